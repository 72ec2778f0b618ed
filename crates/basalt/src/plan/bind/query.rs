//! Query structure around SELECT: WITH, set operations, VALUES, ORDER BY over a set
//! operation, LIMIT/OFFSET, and RETURNING lists.
//!
//! Set operations unify each column pair to its common type (a cast projection on the side
//! that differs); ORDER BY and LIMIT of a query apply to its whole body.

use std::rc::Rc;

use sqlparser::ast;

use crate::plan::expr::Expr;
use crate::plan::{OutputColumn, PlanKind, PlanNode, SetOperator, SortKey};
use crate::sqlstate;
use crate::types::DataType;

use super::aggregate::AggregateContext;
use super::error::BindError;
use super::expr::coerce;
use super::recursive::{recursive_form, refers_to};
use super::scope::Scope;
use super::select::{order_key, ordinal};
use super::types::common_type;
use super::{Binder, CteDefinition, ident_name, scope_of};

impl Binder<'_> {
    /// Binds a full query (WITH, body, ORDER BY, LIMIT).
    pub(super) fn bind_query(&mut self, query: &ast::Query) -> Result<PlanNode, BindError> {
        if query.fetch.is_some()
            || !query.locks.is_empty()
            || query.for_clause.is_some()
            || !query.pipe_operators.is_empty()
        {
            return Err(BindError::unsupported(format!("query clause in {query}")));
        }
        let visible_ctes = self.ctes.len();
        let result = match &query.with {
            Some(with) => self.push_with(with),
            None => Ok(()),
        }
        .and_then(|()| self.bind_query_body(query));
        self.ctes.truncate(visible_ctes);
        result
    }

    /// Makes the CTEs of a WITH clause visible (the caller truncates them away afterwards).
    /// In a WITH RECURSIVE list each CTE sees the whole list; one that names itself must
    /// have the recursive form, checked here for every CTE, used or not, as PostgreSQL does.
    pub(super) fn push_with(&mut self, with: &ast::With) -> Result<(), BindError> {
        let list_end = self.ctes.len() + with.cte_tables.len();
        for cte in &with.cte_tables {
            let name = ident_name(&cte.alias.name);
            let recursive = with.recursive && refers_to(&name, cte.query.as_ref());
            if recursive {
                recursive_form(&name, &cte.query)?;
            }
            self.ctes.push(CteDefinition {
                column_names: cte
                    .alias
                    .columns
                    .iter()
                    .map(|column| ident_name(&column.name))
                    .collect(),
                query: Rc::new((*cte.query).clone()),
                visible: if with.recursive {
                    list_end
                } else {
                    self.ctes.len()
                },
                recursive,
                binding: false,
                working_table: None,
                name,
            });
        }
        Ok(())
    }

    pub(super) fn bind_query_body(&mut self, query: &ast::Query) -> Result<PlanNode, BindError> {
        let order_by: &[ast::OrderByExpr] = match &query.order_by {
            None => &[],
            Some(order_by) => match &order_by.kind {
                ast::OrderByKind::Expressions(keys) => keys,
                ast::OrderByKind::All(_) => return Err(BindError::unsupported("ORDER BY ALL")),
            },
        };
        let plan = match query.body.as_ref() {
            ast::SetExpr::Select(select) => self.bind_select(select, order_by)?,
            body => {
                let plan = self.bind_set_expr(body)?;
                self.sort_output(plan, order_by)?
            }
        };
        self.bind_limit(plan, query.limit_clause.as_ref())
    }

    /// Binds a query body without ORDER BY / LIMIT of its own.
    pub(super) fn bind_set_expr(&mut self, body: &ast::SetExpr) -> Result<PlanNode, BindError> {
        match body {
            ast::SetExpr::Select(select) => self.bind_select(select, &[]),
            ast::SetExpr::Query(query) => self.bind_query(query),
            ast::SetExpr::Values(values) => self.bind_values(values),
            ast::SetExpr::SetOperation {
                left,
                op,
                set_quantifier,
                right,
            } => {
                let operator = match op {
                    ast::SetOperator::Union => SetOperator::Union,
                    ast::SetOperator::Intersect => SetOperator::Intersect,
                    ast::SetOperator::Except | ast::SetOperator::Minus => SetOperator::Except,
                };
                let all = match set_quantifier {
                    ast::SetQuantifier::All => true,
                    ast::SetQuantifier::Distinct | ast::SetQuantifier::None => false,
                    other => return Err(BindError::unsupported(format!("{op} {other}"))),
                };
                let left = self.bind_set_expr(left)?;
                let right = self.bind_set_expr(right)?;
                if left.schema.len() != right.schema.len() {
                    return Err(BindError::syntax(format!(
                        "each {op} query must have the same number of columns"
                    )));
                }
                let mut types = Vec::with_capacity(left.schema.len());
                for (l, r) in left.schema.iter().zip(&right.schema) {
                    types.push(common_type(l.data_type, r.data_type).ok_or_else(|| {
                        BindError::mismatch(format!(
                            "{op} types {} and {} cannot be matched",
                            l.data_type, r.data_type
                        ))
                    })?);
                }
                let left = cast_columns(left, &types);
                let right = cast_columns(right, &types);
                let schema = left
                    .schema
                    .iter()
                    .map(|column| OutputColumn {
                        name: column.name.clone(),
                        table: None,
                        data_type: column.data_type,
                        source: None,
                    })
                    .collect();
                Ok(PlanNode {
                    kind: PlanKind::SetOperation {
                        operator,
                        all,
                        left: Box::new(left),
                        right: Box::new(right),
                    },
                    schema,
                })
            }
            other => Err(BindError::unsupported(format!("query body {other}"))),
        }
    }

    /// Binds the rows of a VALUES list (each column unified to one type), named
    /// `column1`, `column2`... as PostgreSQL does.
    pub(super) fn bind_values(&mut self, values: &ast::Values) -> Result<PlanNode, BindError> {
        let rows = self.bind_value_rows(values)?;
        let width = rows.first().map_or(0, Vec::len);
        let mut columns: Vec<Vec<(Expr, &ast::Expr)>> = (0..width).map(|_| Vec::new()).collect();
        for row in rows {
            for (column, item) in columns.iter_mut().zip(row) {
                column.push(item);
            }
        }
        let mut unified = Vec::with_capacity(width);
        let mut schema = Vec::with_capacity(width);
        for (position, column) in columns.into_iter().enumerate() {
            let (exprs, data_type) = self.unify_list(column, "VALUES")?;
            unified.push(exprs);
            schema.push(OutputColumn {
                name: format!("column{}", position + 1),
                table: None,
                data_type,
                source: None,
            });
        }
        let row_count = unified.first().map_or(values.rows.len(), Vec::len);
        let mut rows: Vec<Vec<Expr>> = (0..row_count).map(|_| Vec::with_capacity(width)).collect();
        for column in unified {
            for (row, expr) in rows.iter_mut().zip(column) {
                row.push(expr);
            }
        }
        Ok(PlanNode {
            kind: PlanKind::Values { rows },
            schema,
        })
    }

    /// Binds each VALUES row over an empty scope (outer columns stay visible), checking
    /// that every row has the same length.
    pub(super) fn bind_value_rows<'v>(
        &mut self,
        values: &'v ast::Values,
    ) -> Result<Vec<Vec<(Expr, &'v ast::Expr)>>, BindError> {
        let scope = Scope::default();
        let saved = std::mem::replace(&mut self.aggregates, AggregateContext::Forbidden("VALUES"));
        let mut rows = Vec::with_capacity(values.rows.len());
        let mut result = Ok(());
        for row in &values.rows {
            if rows
                .first()
                .is_some_and(|first: &Vec<_>| first.len() != row.content.len())
            {
                result = Err(BindError::syntax(
                    "VALUES lists must all be the same length",
                ));
                break;
            }
            let mut bound = Vec::with_capacity(row.content.len());
            for item in &row.content {
                match self.bind_expr(item, &scope) {
                    Ok(expr) => bound.push((expr, item)),
                    Err(error) => {
                        result = Err(error);
                        break;
                    }
                }
            }
            if result.is_err() {
                break;
            }
            rows.push(bound);
        }
        self.aggregates = saved;
        result.map(|()| rows)
    }

    /// ORDER BY over a set operation or VALUES: output names, positions, or expressions
    /// over the output columns.
    pub(super) fn sort_output(
        &mut self,
        plan: PlanNode,
        order_by: &[ast::OrderByExpr],
    ) -> Result<PlanNode, BindError> {
        if order_by.is_empty() {
            return Ok(plan);
        }
        let scope = scope_of(&plan);
        let saved = std::mem::replace(
            &mut self.aggregates,
            AggregateContext::Forbidden("ORDER BY"),
        );
        let mut keys = Vec::with_capacity(order_by.len());
        let result = (|| {
            for key in order_by {
                let expr = match &key.expr {
                    ast::Expr::Value(value) if matches!(value.value, ast::Value::Number(..)) => {
                        let position = ordinal(&key.expr)
                            .filter(|&position| position < scope.columns.len())
                            .ok_or_else(|| {
                                BindError::new(
                                    sqlstate::INVALID_COLUMN_REFERENCE,
                                    format!("ORDER BY position {} is not in select list", key.expr),
                                )
                            })?;
                        Expr::Column {
                            index: position,
                            data_type: scope.columns[position].data_type,
                        }
                    }
                    expr => self.bind_expr(expr, &scope)?,
                };
                super::json::require_ordering(expr.data_type())?;
                let order = order_key(0, &key.options)?;
                keys.push(SortKey {
                    expr,
                    descending: order.descending,
                    nulls_first: order.nulls_first,
                });
            }
            Ok(())
        })();
        self.aggregates = saved;
        result?;
        Ok(PlanNode {
            schema: plan.schema.clone(),
            kind: PlanKind::Sort {
                input: Box::new(plan),
                keys,
            },
        })
    }

    pub(super) fn bind_limit(
        &mut self,
        plan: PlanNode,
        clause: Option<&ast::LimitClause>,
    ) -> Result<PlanNode, BindError> {
        let (limit, offset) = match clause {
            None => return Ok(plan),
            Some(ast::LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            }) => {
                if !limit_by.is_empty() {
                    return Err(BindError::unsupported("LIMIT BY"));
                }
                (limit.as_ref(), offset.as_ref().map(|offset| &offset.value))
            }
            Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
                (Some(limit), Some(offset))
            }
        };
        let limit = match limit {
            Some(limit) => self.bind_count(limit, "LIMIT")?,
            None => None,
        };
        let offset = match offset {
            Some(offset) => self.bind_count(offset, "OFFSET")?,
            None => None,
        };
        if limit.is_none() && offset.is_none() {
            return Ok(plan);
        }
        Ok(PlanNode {
            schema: plan.schema.clone(),
            kind: PlanKind::Limit {
                input: Box::new(plan),
                limit,
                offset,
            },
        })
    }

    /// A LIMIT or OFFSET: an integer expression without columns (`LIMIT NULL`/`ALL` = none).
    fn bind_count(
        &mut self,
        expr: &ast::Expr,
        clause: &'static str,
    ) -> Result<Option<Expr>, BindError> {
        if let ast::Expr::Identifier(ident) = expr
            && ident.value.eq_ignore_ascii_case("all")
        {
            return Ok(None);
        }
        let saved = std::mem::replace(&mut self.aggregates, AggregateContext::Forbidden(clause));
        let bound = self.bind_expr(expr, &Scope::default());
        self.aggregates = saved;
        let bound = bound?;
        let bound = self.resolve_untyped(bound, expr, DataType::Integer)?;
        match bound.data_type() {
            DataType::Integer => Ok(Some(bound)),
            DataType::Null if matches!(bound, Expr::Literal { .. }) => Ok(None),
            DataType::Real | DataType::Numeric(_) | DataType::Boolean | DataType::Null => {
                Ok(Some(coerce(bound, DataType::Integer)))
            }
            other => Err(BindError::mismatch(format!(
                "argument of {clause} must be type integer, not type {other}"
            ))),
        }
    }
}

/// `plan` with its columns cast to `types` (a projection, only when some type differs).
pub(super) fn cast_columns(plan: PlanNode, types: &[DataType]) -> PlanNode {
    if plan
        .schema
        .iter()
        .zip(types)
        .all(|(column, to)| column.data_type.unmodified() == to.unmodified())
    {
        return plan;
    }
    let exprs = plan
        .schema
        .iter()
        .zip(types)
        .enumerate()
        .map(|(index, (column, to))| {
            coerce(
                Expr::Column {
                    index,
                    data_type: column.data_type,
                },
                *to,
            )
        })
        .collect();
    let schema = plan
        .schema
        .iter()
        .zip(types)
        .map(|(column, to)| OutputColumn {
            data_type: *to,
            source: None,
            ..column.clone()
        })
        .collect();
    PlanNode {
        kind: PlanKind::Project {
            input: Box::new(plan),
            exprs,
        },
        schema,
    }
}

impl Binder<'_> {
    /// Binds a RETURNING list over the written row (`scope`): expressions and schema.
    pub(super) fn bind_returning(
        &mut self,
        items: Option<&[ast::SelectItem]>,
        scope: &Scope,
    ) -> Result<(Vec<Expr>, Vec<OutputColumn>), BindError> {
        let Some(items) = items else {
            return Ok((Vec::new(), Vec::new()));
        };
        let saved = std::mem::replace(
            &mut self.aggregates,
            AggregateContext::Forbidden("RETURNING"),
        );
        let outputs = self.bind_projection(items, scope, false);
        self.aggregates = saved;
        let outputs = outputs?;
        let schema = outputs
            .iter()
            .map(|output| OutputColumn {
                name: output.name.clone(),
                table: output.table.clone(),
                data_type: output.expr.data_type(),
                source: match &output.expr {
                    Expr::Column { index, .. } => scope
                        .columns
                        .get(*index)
                        .and_then(|column| column.source.clone()),
                    _ => None,
                },
            })
            .collect();
        Ok((
            outputs.into_iter().map(|output| output.expr).collect(),
            schema,
        ))
    }
}
