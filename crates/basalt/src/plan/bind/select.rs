//! Queries: WITH, SELECT (WHERE, GROUP BY, HAVING, projection, DISTINCT), VALUES, set
//! operations, ORDER BY and LIMIT/OFFSET.
//!
//! A SELECT becomes `FROM → Filter(WHERE) → Aggregate → Filter(HAVING) → Window… → Project →
//! Distinct → Sort → Project(drop hidden sort columns) → Limit` (with DISTINCT ON, `Sort →
//! DistinctOn` in place of `Distinct → Sort`), each step present only when
//! the query needs it. ORDER BY keys may name output columns (by alias or position) or any
//! input expression, which is computed as a hidden extra column of the projection.

use sqlparser::ast;

use crate::plan::expr::Expr;
use crate::plan::{ColumnSource, OutputColumn, PlanKind, PlanNode, SortKey};
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::aggregate::{AggregateContext, has_aggregate, rewrite_over_aggregate};
use super::error::BindError;
use super::expr::{is_untyped, number_literal};
use super::grouping_sets::{
    expand_grouping_sets, grouping_sets_plan, replace_grouping_markers, resolve_grouping_calls,
};
use super::scope::Scope;
use super::window::{WindowContext, add_window_nodes, has_window};
use super::{Binder, ident_name};

/// One output column of a SELECT list while it is being bound.
pub(super) struct SelectOutput {
    pub expr: Expr,
    pub name: String,
    pub table: Option<String>,
}

/// One ORDER BY key: a position in the projection.
#[derive(Clone, Copy, Debug)]
pub(super) struct OrderKey {
    pub column: usize,
    pub descending: bool,
    pub nulls_first: bool,
}

impl Binder<'_> {
    pub(super) fn bind_select(
        &mut self,
        select: &ast::Select,
        order_by: &[ast::OrderByExpr],
    ) -> Result<PlanNode, BindError> {
        if let Some(rewritten) = super::composite::flatten_composite_calls(select)? {
            return self.bind_select(&rewritten, order_by);
        }
        if let Some(rewritten) = super::array::select_list_unnest(select)? {
            return self.bind_select(&rewritten, order_by);
        }
        let saved = std::mem::replace(&mut self.aggregates, AggregateContext::Forbidden("FROM"));
        let saved_windows = std::mem::replace(&mut self.windows, WindowContext::Forbidden("FROM"));
        let saved_named = std::mem::replace(&mut self.named_windows, select.named_window.clone());
        let saved_grouping = std::mem::take(&mut self.grouping_calls);
        let result = self.bind_select_inner(select, order_by);
        self.aggregates = saved;
        self.windows = saved_windows;
        self.named_windows = saved_named;
        self.grouping_calls = saved_grouping;
        result
    }

    fn bind_select_inner(
        &mut self,
        select: &ast::Select,
        order_by: &[ast::OrderByExpr],
    ) -> Result<PlanNode, BindError> {
        if select.top.is_some() || select.into.is_some() || select.qualify.is_some() {
            return Err(BindError::unsupported(format!("SELECT clause in {select}")));
        }
        self.check_named_windows()?;
        let (distinct, distinct_on) = match &select.distinct {
            None | Some(ast::Distinct::All) => (false, None),
            Some(ast::Distinct::Distinct) => (true, None),
            Some(ast::Distinct::On(exprs)) => (false, Some(exprs)),
        };
        let (mut plan, scope) = self.bind_from(&select.from)?;

        if let Some(condition) = &select.selection {
            self.aggregates = AggregateContext::Forbidden("WHERE");
            self.windows = WindowContext::Forbidden("WHERE");
            let predicate = self.bind_boolean(condition, &scope, "WHERE")?;
            plan = filter(plan, predicate);
        }

        self.aggregates = AggregateContext::Collecting(Vec::new());
        self.windows = WindowContext::Collecting(Vec::new());
        let mut outputs =
            self.bind_projection(&select.projection, &scope, select.from.is_empty())?;

        // With GROUPING SETS / ROLLUP / CUBE, `group_by` is every set's keys and
        // `grouping_sets` each set's positions among them.
        let (group_by, grouping_sets) = match &select.group_by {
            ast::GroupByExpr::Expressions(exprs, modifiers) if modifiers.is_empty() => {
                match expand_grouping_sets(exprs)? {
                    None => (
                        self.bind_group_by(exprs, &select.projection, &outputs, &scope)?,
                        None,
                    ),
                    Some(sets) => {
                        let mut keys: Vec<Expr> = Vec::new();
                        let mut positions = Vec::with_capacity(sets.len());
                        for set in &sets {
                            let bound =
                                self.bind_group_by(set, &select.projection, &outputs, &scope)?;
                            let members = bound
                                .into_iter()
                                .map(|key| match keys.iter().position(|known| *known == key) {
                                    Some(position) => position,
                                    None => {
                                        keys.push(key);
                                        keys.len() - 1
                                    }
                                })
                                .collect();
                            positions.push(members);
                        }
                        (keys, Some(positions))
                    }
                }
            }
            other => return Err(BindError::unsupported(format!("{other}"))),
        };

        let windows = std::mem::replace(&mut self.windows, WindowContext::Forbidden("HAVING"));
        let having = match &select.having {
            Some(having) => Some(self.bind_boolean(having, &scope, "HAVING")?),
            None => None,
        };
        self.windows = windows;

        let visible = outputs.len();
        let keys = self.bind_order_keys(order_by, &mut outputs, &scope, distinct)?;
        let distinct_on = match distinct_on {
            Some(exprs) => {
                Some(self.bind_distinct_on(exprs, visible, &mut outputs, &scope, &keys)?)
            }
            None => None,
        };
        for key in &keys {
            if let Some(output) = outputs.get(key.column) {
                super::json::require_ordering(output.expr.data_type())?;
            }
        }
        for key in &group_by {
            super::json::require_equality(key.data_type())?;
        }
        if distinct {
            for output in outputs.iter().take(visible) {
                super::json::require_equality(output.expr.data_type())?;
            }
        }
        if let Some((columns, _)) = &distinct_on {
            for &column in columns {
                if let Some(output) = outputs.get(column) {
                    super::json::require_equality(output.expr.data_type())?;
                }
            }
        }

        let mut aggregates = match std::mem::replace(
            &mut self.aggregates,
            AggregateContext::Forbidden("this context"),
        ) {
            AggregateContext::Collecting(calls) => calls,
            _ => Vec::new(),
        };
        let mut windows =
            match std::mem::replace(&mut self.windows, WindowContext::Forbidden("this context")) {
                WindowContext::Collecting(calls) => calls,
                _ => Vec::new(),
            };
        let grouped = !aggregates.is_empty()
            || !group_by.is_empty()
            || having.is_some()
            || grouping_sets.is_some();
        let mut having = having;
        let grouping_calls = resolve_grouping_calls(&self.grouping_calls, &group_by)?;
        if grouped {
            super::ordered_set::rewrite_direct_args(
                &mut aggregates,
                &group_by,
                &scope,
                grouping_sets.is_some(),
            )?;
            for output in &mut outputs {
                rewrite_over_aggregate(&mut output.expr, &group_by, &scope)?;
            }
            for window in &mut windows {
                let call = &mut window.call;
                let exprs = window
                    .partition_by
                    .iter_mut()
                    .chain(window.order_by.iter_mut().map(|key| &mut key.expr))
                    .chain(call.args.iter_mut())
                    .chain(call.filter.iter_mut());
                for expr in exprs {
                    rewrite_over_aggregate(expr, &group_by, &scope)?;
                }
            }
            if let Some(having) = &mut having {
                rewrite_over_aggregate(having, &group_by, &scope)?;
            }
            // GROUPING(...) is 0 under a plain GROUP BY; with grouping sets it is a column
            // after the aggregates that each set's branch fills with its own constant.
            let grouping_base = group_by.len() + aggregates.len();
            let sets_given = grouping_sets.is_some();
            let replace = |call: usize| {
                if sets_given {
                    Expr::Column {
                        index: grouping_base + call,
                        data_type: DataType::Integer,
                    }
                } else {
                    Expr::Literal {
                        value: Value::Integer(0),
                        data_type: DataType::Integer,
                    }
                }
            };
            let windows_exprs = windows.iter_mut().flat_map(|window| {
                window
                    .partition_by
                    .iter_mut()
                    .chain(window.order_by.iter_mut().map(|key| &mut key.expr))
                    .chain(window.call.args.iter_mut())
                    .chain(window.call.filter.iter_mut())
            });
            for expr in outputs
                .iter_mut()
                .map(|output| &mut output.expr)
                .chain(having.iter_mut())
                .chain(windows_exprs)
            {
                replace_grouping_markers(expr, &replace);
            }
            let mut schema: Vec<OutputColumn> = group_by
                .iter()
                .map(|key| OutputColumn {
                    name: match key {
                        Expr::Column { index, .. } => scope
                            .columns
                            .get(*index)
                            .map_or_else(|| "?column?".to_string(), |c| c.name.clone()),
                        _ => "?column?".to_string(),
                    },
                    table: None,
                    data_type: key.data_type(),
                    source: match key {
                        Expr::Column { index, .. } => scope
                            .columns
                            .get(*index)
                            .and_then(|column| column.source.clone()),
                        _ => None,
                    },
                })
                .collect();
            schema.extend(aggregates.iter().map(|call| OutputColumn {
                name: call.function.name().to_string(),
                table: None,
                data_type: call.data_type,
                source: None,
            }));
            plan = match &grouping_sets {
                Some(sets) => {
                    schema.extend(grouping_calls.iter().map(|_| OutputColumn {
                        name: "grouping".to_string(),
                        table: None,
                        data_type: DataType::Integer,
                        source: None,
                    }));
                    grouping_sets_plan(plan, &group_by, sets, &aggregates, &grouping_calls, &schema)
                }
                None => PlanNode {
                    kind: PlanKind::Aggregate {
                        input: Box::new(plan),
                        group_by,
                        aggregates,
                    },
                    schema,
                },
            };
            if let Some(having) = having {
                plan = filter(plan, having);
            }
        }

        if !windows.is_empty() {
            let mut exprs: Vec<&mut Expr> =
                outputs.iter_mut().map(|output| &mut output.expr).collect();
            plan = add_window_nodes(plan, windows, &mut exprs);
        }

        let schema = outputs
            .iter()
            .map(|output| OutputColumn {
                name: output.name.clone(),
                table: output.table.clone(),
                data_type: output.expr.data_type(),
                source: ColumnSource::of(&output.expr, &plan.schema),
            })
            .collect();
        plan = PlanNode {
            kind: PlanKind::Project {
                input: Box::new(plan),
                exprs: outputs.into_iter().map(|output| output.expr).collect(),
            },
            schema,
        };
        if distinct {
            plan = PlanNode {
                schema: plan.schema.clone(),
                kind: PlanKind::Distinct {
                    input: Box::new(plan),
                },
            };
        }
        match distinct_on {
            // Sorted so each group's rows are adjacent and its first row is the one ORDER BY
            // puts first; then the first row of each group.
            Some((columns, sort_keys)) => {
                plan = sort(plan, &sort_keys);
                plan = PlanNode {
                    schema: plan.schema.clone(),
                    kind: PlanKind::DistinctOn {
                        input: Box::new(plan),
                        keys: columns,
                    },
                };
            }
            None => plan = sort(plan, &keys),
        }
        if plan.schema.len() > visible {
            plan = project_prefix(plan, visible);
        }
        Ok(plan)
    }

    /// Binds the SELECT list, expanding `*` and `t.*`.
    pub(super) fn bind_projection(
        &mut self,
        items: &[ast::SelectItem],
        scope: &Scope,
        no_from: bool,
    ) -> Result<Vec<SelectOutput>, BindError> {
        let mut outputs = Vec::with_capacity(items.len());
        let column_output = |position: usize| SelectOutput {
            expr: Expr::Column {
                index: position,
                data_type: scope.columns[position].data_type,
            },
            name: scope.columns[position].name.clone(),
            table: scope.columns[position].table.clone(),
        };
        for item in items {
            match item {
                ast::SelectItem::Wildcard(options) => {
                    check_wildcard_options(options)?;
                    if no_from {
                        return Err(BindError::syntax(
                            "SELECT * with no tables specified is not valid",
                        ));
                    }
                    outputs.extend(scope.star_positions().into_iter().map(column_output));
                }
                ast::SelectItem::QualifiedWildcard(kind, options) => {
                    check_wildcard_options(options)?;
                    let table = match kind {
                        ast::SelectItemQualifiedWildcardKind::ObjectName(name) => {
                            super::object_name(name)?
                        }
                        ast::SelectItemQualifiedWildcardKind::Expr(_) => {
                            return Err(BindError::unsupported("expression.*"));
                        }
                    };
                    let positions = scope.table_positions(&table);
                    if positions.is_empty() {
                        return Err(BindError::new(
                            sqlstate::UNDEFINED_TABLE,
                            format!("missing FROM-clause entry for table \"{table}\""),
                        ));
                    }
                    outputs.extend(positions.into_iter().map(column_output));
                }
                ast::SelectItem::UnnamedExpr(expr) => {
                    let bound = self.bind_expr(expr, scope)?;
                    let table = source_table(&bound, scope);
                    outputs.push(SelectOutput {
                        expr: bound,
                        name: output_name(expr),
                        table,
                    });
                }
                ast::SelectItem::ExprWithAlias { expr, alias } => {
                    let bound = self.bind_expr(expr, scope)?;
                    outputs.push(SelectOutput {
                        expr: bound,
                        name: ident_name(alias),
                        table: None,
                    });
                }
                ast::SelectItem::ExprWithAliases { .. } => {
                    return Err(BindError::unsupported("multiple aliases"));
                }
            }
        }
        Ok(outputs)
    }

    /// Binds GROUP BY keys: input expressions, output positions, or output aliases (when
    /// the name is not an input column), as PostgreSQL allows.
    fn bind_group_by(
        &mut self,
        exprs: &[ast::Expr],
        projection: &[ast::SelectItem],
        outputs: &[SelectOutput],
        scope: &Scope,
    ) -> Result<Vec<Expr>, BindError> {
        let saved = std::mem::replace(
            &mut self.aggregates,
            AggregateContext::Forbidden("GROUP BY"),
        );
        let saved_windows =
            std::mem::replace(&mut self.windows, WindowContext::Forbidden("GROUP BY"));
        let mut keys = Vec::with_capacity(exprs.len());
        let result = (|| {
            for expr in exprs {
                let output = match expr {
                    ast::Expr::Value(value) if matches!(value.value, ast::Value::Number(..)) => {
                        let position = ordinal(expr).ok_or_else(|| {
                            BindError::new(
                                sqlstate::INVALID_COLUMN_REFERENCE,
                                format!("GROUP BY position {expr} is not in select list"),
                            )
                        })?;
                        Some(outputs.get(position).ok_or_else(|| {
                            BindError::new(
                                sqlstate::INVALID_COLUMN_REFERENCE,
                                format!("GROUP BY position {expr} is not in select list"),
                            )
                        })?)
                    }
                    ast::Expr::Identifier(ident)
                        if scope.resolve(None, &ident_name(ident))?.is_none() =>
                    {
                        let name = ident_name(ident);
                        projection
                            .iter()
                            .position(|item| matches!(item, ast::SelectItem::ExprWithAlias { alias, .. } if ident_name(alias) == name))
                            .and_then(|position| outputs.get(position))
                    }
                    _ => None,
                };
                let key = match output {
                    Some(output) if has_aggregate(&output.expr) => {
                        return Err(BindError::grouping(
                            "aggregate functions are not allowed in GROUP BY",
                        ));
                    }
                    Some(output) if has_window(&output.expr) => {
                        return Err(BindError::new(
                            sqlstate::WINDOWING_ERROR,
                            "window functions are not allowed in GROUP BY",
                        ));
                    }
                    Some(output) => output.expr.clone(),
                    None => self.bind_expr(expr, scope)?,
                };
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
            Ok(())
        })();
        self.aggregates = saved;
        self.windows = saved_windows;
        result.map(|()| keys)
    }

    /// Resolves ORDER BY keys to projection positions, appending hidden columns for keys
    /// that are not in the SELECT list.
    fn bind_order_keys(
        &mut self,
        order_by: &[ast::OrderByExpr],
        outputs: &mut Vec<SelectOutput>,
        scope: &Scope,
        distinct: bool,
    ) -> Result<Vec<OrderKey>, BindError> {
        let mut keys = Vec::with_capacity(order_by.len());
        let visible = outputs.len();
        for key in order_by {
            let column =
                self.output_column(&key.expr, "ORDER BY", visible, outputs, scope, distinct)?;
            keys.push(order_key(column, &key.options)?);
        }
        Ok(keys)
    }

    /// The projection column an ORDER BY or DISTINCT ON item names, by PostgreSQL's rules: a
    /// position among the `visible` outputs, an output's name, or else any expression over
    /// the input, added as a hidden output column unless an output already computes it (or,
    /// under SELECT DISTINCT, refused: a hidden column would change what is distinct).
    fn output_column(
        &mut self,
        expr: &ast::Expr,
        clause: &str,
        visible: usize,
        outputs: &mut Vec<SelectOutput>,
        scope: &Scope,
        distinct: bool,
    ) -> Result<usize, BindError> {
        Ok(match expr {
            ast::Expr::Value(value) if matches!(value.value, ast::Value::Number(..)) => {
                ordinal(expr)
                    .filter(|&position| position < visible)
                    .ok_or_else(|| {
                        BindError::new(
                            sqlstate::INVALID_COLUMN_REFERENCE,
                            format!("{clause} position {expr} is not in select list"),
                        )
                    })?
            }
            ast::Expr::Identifier(ident)
                if outputs[..visible]
                    .iter()
                    .any(|o| o.name == ident_name(ident)) =>
            {
                let name = ident_name(ident);
                outputs
                    .iter()
                    .position(|o| o.name == name)
                    .unwrap_or_default()
            }
            expr => {
                let bound = self.bind_expr(expr, scope)?;
                match outputs.iter().position(|output| output.expr == bound) {
                    Some(position) => position,
                    None if distinct => {
                        return Err(BindError::new(
                            sqlstate::INVALID_COLUMN_REFERENCE,
                            "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                        ));
                    }
                    None => {
                        outputs.push(SelectOutput {
                            expr: bound,
                            name: output_name(expr),
                            table: None,
                        });
                        outputs.len() - 1
                    }
                }
            }
        })
    }

    /// Binds `DISTINCT ON (exprs)` against the ORDER BY `keys`: the projection columns that
    /// make up a group, and the sort that puts each group's rows together with its first
    /// row (by ORDER BY) in front.
    ///
    /// PostgreSQL's rule (42P10 "SELECT DISTINCT ON expressions must match initial ORDER BY
    /// expressions"): the ORDER BY items that are DISTINCT ON items come first, and once an
    /// ORDER BY item that is not one has been seen, every DISTINCT ON item must already have
    /// appeared. DISTINCT ON items ORDER BY leaves out are sorted after its keys, ascending.
    fn bind_distinct_on(
        &mut self,
        exprs: &[ast::Expr],
        visible: usize,
        outputs: &mut Vec<SelectOutput>,
        scope: &Scope,
        order_keys: &[OrderKey],
    ) -> Result<(Vec<usize>, Vec<OrderKey>), BindError> {
        let mut columns: Vec<usize> = Vec::with_capacity(exprs.len());
        for expr in exprs {
            let column = self.output_column(expr, "DISTINCT ON", visible, outputs, scope, false)?;
            if !columns.contains(&column) {
                columns.push(column);
            }
        }
        let mismatch = || {
            BindError::new(
                sqlstate::INVALID_COLUMN_REFERENCE,
                "SELECT DISTINCT ON expressions must match initial ORDER BY expressions",
            )
        };
        let mut sort_keys: Vec<OrderKey> = Vec::with_capacity(order_keys.len() + columns.len());
        let mut skipped = false;
        for key in order_keys {
            if columns.contains(&key.column) {
                if skipped {
                    return Err(mismatch());
                }
            } else {
                skipped = true;
            }
            sort_keys.push(*key);
        }
        let covered: Vec<usize> = order_keys.iter().map(|key| key.column).collect();
        let missing: Vec<usize> = columns
            .iter()
            .copied()
            .filter(|column| !covered.contains(column))
            .collect();
        if !missing.is_empty() {
            if skipped {
                return Err(mismatch());
            }
            sort_keys.extend(missing.into_iter().map(|column| OrderKey {
                column,
                descending: false,
                nulls_first: false,
            }));
        }
        Ok((columns, sort_keys))
    }
}

fn check_wildcard_options(options: &ast::WildcardAdditionalOptions) -> Result<(), BindError> {
    if options.opt_exclude.is_some()
        || options.opt_except.is_some()
        || options.opt_replace.is_some()
        || options.opt_rename.is_some()
        || options.opt_ilike.is_some()
    {
        return Err(BindError::unsupported("wildcard options"));
    }
    Ok(())
}

/// A 1-based position literal as a 0-based index.
pub(super) fn ordinal(expr: &ast::Expr) -> Option<usize> {
    match expr {
        ast::Expr::Value(value) => match &value.value {
            ast::Value::Number(text, _) => match number_literal(text).ok()? {
                Value::Integer(n) if n >= 1 => usize::try_from(n - 1).ok(),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn order_key(
    column: usize,
    options: &ast::OrderByOptions,
) -> Result<OrderKey, BindError> {
    let descending = match &options.sort {
        None | Some(ast::OrderBySort::Asc) => false,
        Some(ast::OrderBySort::Desc) => true,
        Some(_) => return Err(BindError::unsupported("ORDER BY USING")),
    };
    Ok(OrderKey {
        column,
        descending,
        // PostgreSQL: NULLs sort as larger than every value.
        nulls_first: options.nulls_first.unwrap_or(descending),
    })
}

fn filter(input: PlanNode, predicate: Expr) -> PlanNode {
    PlanNode {
        schema: input.schema.clone(),
        kind: PlanKind::Filter {
            input: Box::new(input),
            predicate,
        },
    }
}

fn sort(plan: PlanNode, keys: &[OrderKey]) -> PlanNode {
    if keys.is_empty() {
        return plan;
    }
    let keys = keys
        .iter()
        .map(|key| SortKey {
            expr: Expr::Column {
                index: key.column,
                data_type: plan.schema[key.column].data_type,
            },
            descending: key.descending,
            nulls_first: key.nulls_first,
        })
        .collect();
    PlanNode {
        schema: plan.schema.clone(),
        kind: PlanKind::Sort {
            input: Box::new(plan),
            keys,
        },
    }
}

/// A projection keeping the first `count` columns.
fn project_prefix(plan: PlanNode, count: usize) -> PlanNode {
    let schema: Vec<OutputColumn> = plan.schema.iter().take(count).cloned().collect();
    let exprs = schema
        .iter()
        .enumerate()
        .map(|(index, column)| Expr::Column {
            index,
            data_type: column.data_type,
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

/// The table a bare column reference came from.
fn source_table(expr: &Expr, scope: &Scope) -> Option<String> {
    match expr {
        Expr::Column { index, .. } => scope
            .columns
            .get(*index)
            .and_then(|column| column.table.clone()),
        _ => None,
    }
}

/// The name PostgreSQL gives an unaliased output column.
pub(super) fn output_name(expr: &ast::Expr) -> String {
    figure_name(expr).unwrap_or_else(|| "?column?".to_string())
}

fn figure_name(expr: &ast::Expr) -> Option<String> {
    match expr {
        ast::Expr::Identifier(ident) => Some(ident_name(ident)),
        ast::Expr::CompoundIdentifier(parts) => parts.last().map(ident_name),
        ast::Expr::Nested(inner) => figure_name(inner),
        // `(t.keys).x` is named after its field, as in PostgreSQL.
        ast::Expr::CompoundFieldAccess { access_chain, .. } => match access_chain.as_slice() {
            [ast::AccessExpr::Dot(ast::Expr::Identifier(field))] => Some(ident_name(field)),
            _ => None,
        },
        ast::Expr::Function(function) => super::object_name(&function.name).ok(),
        ast::Expr::Cast {
            expr: inner,
            data_type,
            ..
        } => figure_name(inner)
            .filter(|_| !is_untyped(inner) && !matches!(inner.as_ref(), ast::Expr::Value(_)))
            .or_else(|| {
                super::types::sql_type(data_type)
                    .ok()
                    .map(|t| t.name().to_string())
            }),
        ast::Expr::TypedString(typed) => super::types::sql_type(&typed.data_type)
            .ok()
            .map(|t| t.name().to_string()),
        ast::Expr::Case { .. } => Some("case".to_string()),
        ast::Expr::Exists { .. } => Some("exists".to_string()),
        ast::Expr::Substring { .. } => Some("substring".to_string()),
        ast::Expr::Trim { trim_where, .. } => Some(
            match trim_where {
                Some(ast::TrimWhereField::Leading) => "ltrim",
                Some(ast::TrimWhereField::Trailing) => "rtrim",
                _ => "btrim",
            }
            .to_string(),
        ),
        ast::Expr::Overlay { .. } => Some("overlay".to_string()),
        ast::Expr::Ceil { .. } => Some("ceil".to_string()),
        ast::Expr::Floor { .. } => Some("floor".to_string()),
        ast::Expr::Position { .. } => Some("position".to_string()),
        ast::Expr::Value(value) if matches!(value.value, ast::Value::Boolean(_)) => {
            Some("bool".to_string())
        }
        ast::Expr::Subquery(query) => match query.body.as_ref() {
            ast::SetExpr::Select(select) => match select.projection.as_slice() {
                [ast::SelectItem::UnnamedExpr(expr)] => figure_name(expr),
                [ast::SelectItem::ExprWithAlias { alias, .. }] => Some(ident_name(alias)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}
