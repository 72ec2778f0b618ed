//! FROM items: tables, views (their stored query bound as a subquery), CTEs and derived
//! tables, and joins.
//!
//! Comma lists become left-deep inner `NestedLoopJoin`s without a condition; explicit joins
//! keep their kind and ON condition. `USING` and `NATURAL` joins compare the named columns
//! and show each once: for INNER and LEFT joins the left copy is the merged column and the
//! right copy is hidden; for RIGHT and FULL joins a projection adds the merged column
//! (the right copy, or COALESCE of both) and hides both copies. Nothing is optimised here.

use std::sync::Arc;

use sqlparser::ast;

use crate::catalog::{TableDef, ViewDef, nearest};
use crate::plan::expr::{BinaryOp, Expr};
use crate::plan::{
    AccessPath, ColumnSource, JoinKind, OutputColumn, PlanKind, PlanNode, ScanColumn,
};
use crate::sqlstate;
use crate::types::DataType;

use super::aggregate::AggregateContext;
use super::error::{BindError, with_hint};
use super::expr::{binary, coerce};
use super::scope::{Scope, ScopeColumn};
use super::table_function::Placed;
use super::types::common_type;
use super::{Binder, MAX_VIEW_DEPTH, ident_name, object_name, parse_stored_query};

/// The schema of a scope (what the plan node producing it outputs).
pub(super) fn schema_of(scope: &Scope) -> Vec<OutputColumn> {
    scope
        .columns
        .iter()
        .map(|column| OutputColumn {
            name: column.name.clone(),
            table: column.table.clone(),
            data_type: column.data_type,
            source: column.source.clone(),
        })
        .collect()
}

/// A full scan of `table` producing every column (optionally preceded by the row id).
pub(super) fn table_scan(
    table: &Arc<TableDef>,
    alias: &str,
    with_row_id: bool,
) -> (PlanNode, Scope) {
    let mut columns = Vec::with_capacity(table.columns.len() + 1);
    let mut scope = Scope::default();
    if with_row_id {
        columns.push(ScanColumn::RowId);
        scope.columns.push(ScopeColumn {
            name: "rowid".to_string(),
            table: Some(alias.to_string()),
            data_type: DataType::Integer,
            hidden: true,
            source: None,
        });
    }
    for (position, column) in table.columns.iter().enumerate() {
        columns.push(ScanColumn::Column(position));
        scope.columns.push(ScopeColumn {
            name: column.name.clone(),
            table: Some(alias.to_string()),
            data_type: column.data_type,
            hidden: false,
            source: Some(ColumnSource {
                table: table.name.clone(),
                column: position,
            }),
        });
    }
    let plan = PlanNode {
        kind: PlanKind::Scan {
            table: Arc::clone(table),
            columns,
            access: AccessPath::Full,
            reverse: false,
        },
        schema: schema_of(&scope),
    };
    (plan, scope)
}

impl Binder<'_> {
    /// Binds a FROM list: `SingleRow` when empty.
    pub(super) fn bind_from(
        &mut self,
        from: &[ast::TableWithJoins],
    ) -> Result<(PlanNode, Scope), BindError> {
        let saved = std::mem::replace(&mut self.aggregates, AggregateContext::Forbidden("FROM"));
        let result = (|| {
            let mut current: Option<(PlanNode, Scope)> = None;
            for item in from {
                current = Some(self.bind_table_with_joins(item, current)?);
            }
            Ok(current.unwrap_or_else(|| {
                (
                    PlanNode {
                        kind: PlanKind::SingleRow,
                        schema: Vec::new(),
                    },
                    Scope::default(),
                )
            }))
        })();
        self.aggregates = saved;
        result
    }

    /// Binds one item of a FROM list, joined (inner) to the items before it, `comma_left`,
    /// if any. A table function that reads the columns of the items to its left is joined
    /// to them first (LATERAL); the item's own joins then apply on top, which is the same
    /// join unless one of them is RIGHT or FULL (refused).
    fn bind_table_with_joins(
        &mut self,
        item: &ast::TableWithJoins,
        comma_left: Option<(PlanNode, Scope)>,
    ) -> Result<(PlanNode, Scope), BindError> {
        let (mut current, pending_left) = match comma_left {
            None => (self.bind_table_factor(&item.relation)?, None),
            Some(left) => match self.bind_after(&item.relation, left)? {
                Placed::Joined(joined) => {
                    if item.joins.iter().any(|join| {
                        matches!(
                            join.join_operator,
                            ast::JoinOperator::Right(_)
                                | ast::JoinOperator::RightOuter(_)
                                | ast::JoinOperator::FullOuter(_)
                        )
                    }) {
                        return Err(BindError::unsupported(
                            "a RIGHT or FULL JOIN after a LATERAL function",
                        ));
                    }
                    (joined, None)
                }
                Placed::Separate { left, right } => (right, Some(*left)),
            },
        };
        for join in &item.joins {
            let (kind, constraint) = match &join.join_operator {
                ast::JoinOperator::Join(c) | ast::JoinOperator::Inner(c) => (JoinKind::Inner, c),
                ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => (JoinKind::Left, c),
                ast::JoinOperator::Right(c) | ast::JoinOperator::RightOuter(c) => {
                    (JoinKind::Right, c)
                }
                ast::JoinOperator::FullOuter(c) => (JoinKind::Full, c),
                ast::JoinOperator::CrossJoin(c) => (JoinKind::Inner, c),
                other => {
                    return Err(BindError::unsupported(
                        format!("join {other:?}")
                            .split('(')
                            .next()
                            .unwrap_or("this join")
                            .to_string(),
                    ));
                }
            };
            current = match self.bind_after(&join.relation, current)? {
                Placed::Separate { left, right } => self.join(*left, right, kind, constraint)?,
                Placed::Joined(joined) => self.lateral_condition(joined, kind, constraint)?,
            };
        }
        match pending_left {
            Some(left) => self.join(left, current, JoinKind::Inner, &ast::JoinConstraint::None),
            None => Ok(current),
        }
    }

    /// A subquery's plan as a FROM item named by `alias` (without one, its columns are
    /// unqualified).
    pub(super) fn derived_item(
        &mut self,
        plan: PlanNode,
        alias: Option<&ast::TableAlias>,
    ) -> Result<(PlanNode, Scope), BindError> {
        let (alias_name, column_names) = alias_parts(alias, "");
        if alias_name.is_empty() {
            let scope = Scope::requalified(&plan.schema, "", &column_names);
            let scope = Scope {
                columns: scope
                    .columns
                    .into_iter()
                    .map(|c| ScopeColumn { table: None, ..c })
                    .collect(),
                star: None,
            };
            return Ok((rename(plan, &scope), scope));
        }
        derived(plan, &alias_name, &column_names)
    }

    /// A view's stored query, bound as a subquery: it sees neither the caller's CTEs nor its
    /// outer queries, and views nest at most [`MAX_VIEW_DEPTH`] deep.
    pub(super) fn bind_view(&mut self, view: &ViewDef) -> Result<PlanNode, BindError> {
        if self.view_depth >= MAX_VIEW_DEPTH {
            return Err(BindError::new(
                sqlstate::STATEMENT_TOO_COMPLEX,
                format!("view \"{}\" nests too deeply", view.name),
            ));
        }
        let query = parse_stored_query(&view.query)?;
        let ctes = std::mem::take(&mut self.ctes);
        let outer = std::mem::take(&mut self.outer);
        self.view_depth += 1;
        let plan = self.bind_query(&query);
        self.view_depth -= 1;
        self.ctes = ctes;
        self.outer = outer;
        plan
    }

    pub(super) fn bind_table_factor(
        &mut self,
        factor: &ast::TableFactor,
    ) -> Result<(PlanNode, Scope), BindError> {
        if let Some(function) = super::table_function::unnest_as_function(factor) {
            return self.bind_table_factor(&function);
        }
        match factor {
            ast::TableFactor::Table { args: Some(_), .. } | ast::TableFactor::Function { .. } => {
                self.bind_function_factor(factor)
                    .unwrap_or_else(|| Err(BindError::unsupported(format!("FROM item {factor}"))))
            }
            ast::TableFactor::Table { name, alias, .. } => {
                let table_name = object_name(name)?;
                let (alias_name, column_names) = alias_parts(alias.as_ref(), &table_name);
                if name.0.len() == 1
                    && let Some(position) = self
                        .ctes
                        .iter()
                        .rposition(|cte| cte.name.eq_ignore_ascii_case(&table_name))
                {
                    return self.bind_cte_reference(position, &alias_name, column_names);
                }
                if let Some(plan) = self.system_relation(name)? {
                    return derived(plan, &alias_name, &column_names);
                }
                if let Some(table) = self.catalog.table(&table_name) {
                    let table = Arc::clone(table);
                    let (plan, scope) = table_scan(&table, &alias_name, false);
                    if column_names.is_empty() {
                        return Ok((plan, scope));
                    }
                    // `FROM t AS x (a, b)` renames t's leading columns; the plan stays a scan
                    // of t (so its indexes still serve), only the names it is seen by change.
                    return derived(plan, &alias_name, &column_names);
                }
                if let Some(view) = self.catalog.views.get(&table_name.to_lowercase()) {
                    let view = Arc::clone(view);
                    let plan = self.bind_view(&view);
                    let names = if column_names.is_empty() {
                        view.column_names.clone()
                    } else {
                        column_names
                    };
                    return derived(plan?, &alias_name, &names);
                }
                let candidates = self
                    .catalog
                    .tables
                    .values()
                    .map(|t| t.name.as_str())
                    .chain(self.catalog.views.values().map(|v| v.name.as_str()))
                    .chain(self.ctes.iter().map(|c| c.name.as_str()));
                let hint = nearest(&table_name, candidates);
                Err(BindError::new(
                    sqlstate::UNDEFINED_TABLE,
                    with_hint(format!("relation \"{table_name}\" does not exist"), hint),
                ))
            }
            // `LATERAL` with nothing to its left is an ordinary subquery (bind_after binds
            // the lateral ones that have items to their left).
            ast::TableFactor::Derived {
                subquery, alias, ..
            } => {
                let plan = self.bind_query(subquery)?;
                self.derived_item(plan, alias.as_ref())
            }
            ast::TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let (plan, scope) = self.bind_table_with_joins(table_with_joins, None)?;
                match alias {
                    None => Ok((plan, scope)),
                    Some(alias) => {
                        let (alias_name, column_names) = alias_parts(Some(alias), "");
                        let visible: Vec<usize> = scope.star_positions();
                        let exprs = visible
                            .iter()
                            .map(|&index| Expr::Column {
                                index,
                                data_type: scope.columns[index].data_type,
                            })
                            .collect();
                        let schema: Vec<OutputColumn> = visible
                            .iter()
                            .map(|&i| schema_of(&scope)[i].clone())
                            .collect();
                        let plan = PlanNode {
                            kind: PlanKind::Project {
                                input: Box::new(plan),
                                exprs,
                            },
                            schema,
                        };
                        derived(plan, &alias_name, &column_names)
                    }
                }
            }
            other => Err(BindError::unsupported(format!("FROM item {other}"))),
        }
    }

    /// A reference to the CTE at `position` of [`Binder::ctes`], named `alias`: its query
    /// bound again (seeing only the CTEs its definition sees), or inside a recursive CTE's
    /// recursive term the working table.
    fn bind_cte_reference(
        &mut self,
        position: usize,
        alias: &str,
        column_names: Vec<String>,
    ) -> Result<(PlanNode, Scope), BindError> {
        let cte = self.ctes[position].clone();
        if let Some(working_table) = &cte.working_table {
            let plan = PlanNode {
                kind: PlanKind::WorkingTableScan {
                    working_table: working_table.number,
                },
                schema: working_table.schema.clone(),
            };
            return derived(plan, alias, &column_names);
        }
        if cte.binding {
            return Err(BindError::new(
                sqlstate::FEATURE_NOT_SUPPORTED,
                "mutual recursion between WITH items is not implemented",
            ));
        }
        let hidden = self.ctes.split_off(cte.visible.min(self.ctes.len()));
        // Only a CTE of a WITH RECURSIVE list sees itself (and so needs the mark).
        if let Some(visible_self) = self.ctes.get_mut(position) {
            visible_self.binding = true;
        }
        let plan = if cte.recursive {
            self.bind_recursive_cte(&cte)
        } else {
            self.bind_query(&cte.query)
        };
        if let Some(visible_self) = self.ctes.get_mut(position) {
            visible_self.binding = false;
        }
        self.ctes.extend(hidden);
        let names = if column_names.is_empty() {
            cte.column_names
        } else {
            column_names
        };
        derived(plan?, alias, &names)
    }

    /// Joins two bound FROM items.
    pub(super) fn join(
        &mut self,
        (left, left_scope): (PlanNode, Scope),
        (right, right_scope): (PlanNode, Scope),
        kind: JoinKind,
        constraint: &ast::JoinConstraint,
    ) -> Result<(PlanNode, Scope), BindError> {
        for column in &right_scope.columns {
            if let Some(table) = &column.table
                && !table.is_empty()
                && left_scope.has_table(table)
            {
                return Err(BindError::new(
                    sqlstate::DUPLICATE_ALIAS,
                    format!("table name \"{table}\" specified more than once"),
                ));
            }
        }
        let offset = left_scope.columns.len();
        let mut scope = Scope {
            columns: left_scope
                .columns
                .iter()
                .chain(&right_scope.columns)
                .cloned()
                .collect(),
            star: None,
        };
        let left_star = left_scope.star_positions();
        let right_star: Vec<usize> = right_scope
            .star_positions()
            .into_iter()
            .map(|i| i + offset)
            .collect();
        let using_names: Vec<String> = match constraint {
            ast::JoinConstraint::Using(names) => {
                names.iter().map(object_name).collect::<Result<_, _>>()?
            }
            ast::JoinConstraint::Natural => left_star
                .iter()
                .map(|&i| left_scope.columns[i].name.clone())
                .filter(|name| {
                    right_scope
                        .columns
                        .iter()
                        .any(|c| !c.hidden && c.name.eq_ignore_ascii_case(name))
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut condition = match constraint {
            ast::JoinConstraint::On(expr) => {
                self.aggregates = AggregateContext::Forbidden("JOIN conditions");
                Some(self.bind_boolean(expr, &scope, "JOIN/ON")?)
            }
            _ => None,
        };
        let mut pairs = Vec::with_capacity(using_names.len());
        for name in &using_names {
            let missing = |side: &str| {
                BindError::new(
                    sqlstate::UNDEFINED_COLUMN,
                    format!(
                        "column \"{name}\" specified in USING clause does not exist in {side} table"
                    ),
                )
            };
            let l = left_scope
                .resolve(None, name)?
                .ok_or_else(|| missing("left"))?;
            let r = right_scope
                .resolve(None, name)?
                .ok_or_else(|| missing("right"))?
                + offset;
            let (lt, rt) = (scope.columns[l].data_type, scope.columns[r].data_type);
            let common = common_type(lt, rt).ok_or_else(|| {
                BindError::undefined_function(format!("operator does not exist: {lt} = {rt}"))
            })?;
            let equal = binary(
                BinaryOp::Equal,
                coerce(
                    Expr::Column {
                        index: l,
                        data_type: lt,
                    },
                    common,
                ),
                coerce(
                    Expr::Column {
                        index: r,
                        data_type: rt,
                    },
                    common,
                ),
                DataType::Boolean,
            );
            condition = Some(match condition {
                None => equal,
                Some(previous) => binary(BinaryOp::And, previous, equal, DataType::Boolean),
            });
            pairs.push((l, r, common));
        }
        let schema = schema_of(&scope);
        let mut plan = PlanNode {
            kind: PlanKind::NestedLoopJoin {
                left: Box::new(left),
                right: Box::new(right),
                kind,
                condition,
            },
            schema,
        };
        if pairs.is_empty() {
            scope.star = Some(left_star.into_iter().chain(right_star).collect());
            return Ok((plan, scope));
        }
        let merged_left: Vec<usize> = pairs.iter().map(|(l, _, _)| *l).collect();
        let merged_right: Vec<usize> = pairs.iter().map(|(_, r, _)| *r).collect();
        let rest = left_star
            .into_iter()
            .filter(|i| !merged_left.contains(i))
            .chain(right_star.into_iter().filter(|i| !merged_right.contains(i)));
        if matches!(kind, JoinKind::Inner | JoinKind::Left) {
            for &r in &merged_right {
                scope.columns[r].hidden = true;
            }
            scope.star = Some(merged_left.iter().copied().chain(rest).collect());
            return Ok((plan, scope));
        }
        // RIGHT / FULL: the merged column is the right copy, or the first non-NULL copy.
        let width = scope.columns.len();
        let mut exprs: Vec<Expr> = (0..width)
            .map(|index| Expr::Column {
                index,
                data_type: scope.columns[index].data_type,
            })
            .collect();
        let rest: Vec<usize> = rest.collect();
        for (position, &(l, r, common)) in pairs.iter().enumerate() {
            let right_column = coerce(
                Expr::Column {
                    index: r,
                    data_type: scope.columns[r].data_type,
                },
                common,
            );
            exprs.push(if kind == JoinKind::Right {
                right_column
            } else {
                Expr::Coalesce {
                    args: vec![
                        coerce(
                            Expr::Column {
                                index: l,
                                data_type: scope.columns[l].data_type,
                            },
                            common,
                        ),
                        right_column,
                    ],
                    data_type: common,
                }
            });
            scope.columns[l].hidden = true;
            scope.columns[r].hidden = true;
            scope.columns.push(ScopeColumn {
                name: using_names[position].clone(),
                table: None,
                data_type: common,
                hidden: false,
                source: None,
            });
        }
        scope.star = Some((width..width + pairs.len()).chain(rest).collect());
        plan = PlanNode {
            kind: PlanKind::Project {
                input: Box::new(plan),
                exprs,
            },
            schema: schema_of(&scope),
        };
        Ok((plan, scope))
    }
}

/// The alias name (or `default`) and column aliases of a FROM item.
fn alias_parts(alias: Option<&ast::TableAlias>, default: &str) -> (String, Vec<String>) {
    match alias {
        Some(alias) => (
            ident_name(&alias.name),
            alias
                .columns
                .iter()
                .map(|column| ident_name(&column.name))
                .collect(),
        ),
        None => (default.to_string(), Vec::new()),
    }
}

/// A subquery's plan seen as a table named `alias`, with optional column renames.
pub(super) fn derived(
    plan: PlanNode,
    alias: &str,
    names: &[String],
) -> Result<(PlanNode, Scope), BindError> {
    if names.len() > plan.schema.len() {
        return Err(BindError::new(
            sqlstate::INVALID_COLUMN_REFERENCE,
            format!(
                "table \"{alias}\" has {} columns available but {} columns specified",
                plan.schema.len(),
                names.len()
            ),
        ));
    }
    let scope = Scope::requalified(&plan.schema, alias, names);
    Ok((rename(plan, &scope), scope))
}

/// `plan` with its schema's names and tables replaced by the scope's.
fn rename(mut plan: PlanNode, scope: &Scope) -> PlanNode {
    plan.schema = schema_of(scope);
    plan
}
