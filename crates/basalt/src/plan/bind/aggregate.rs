//! Aggregate calls and grouping: collecting the aggregate calls of a query level, and
//! rewriting expressions bound over the FROM row into expressions over the Aggregate node's
//! output (group keys, then aggregates), as PostgreSQL's grouping rules require.
//!
//! While a query level's SELECT list, HAVING and ORDER BY are bound, each aggregate call is
//! appended to the level's [`AggregateContext::Collecting`] list and stands in the bound
//! expression as a *marker* column (`AGGREGATE_MARK + k`). Once the GROUP BY keys are known,
//! [`rewrite_over_aggregate`] replaces subtrees equal to a key by that key's column, markers
//! by aggregate columns, and rejects any other input column (42803). Markers never leave the
//! binder.

use sqlparser::ast;

use crate::plan::expr::{AggregateCall, AggregateFunction, Expr};
use crate::plan::{PlanNode, SortKey};
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::Binder;
use super::error::BindError;
use super::expr::{coerce, is_untyped};
use super::function::{CallArguments, arg_expr};
use super::scope::Scope;

/// Column indexes at or above this stand for aggregate calls during binding.
pub(super) const AGGREGATE_MARK: usize = usize::MAX / 2;

/// Whether aggregate calls are allowed where an expression is being bound.
#[derive(Clone, Debug)]
pub(super) enum AggregateContext {
    /// Not allowed; the clause's name, for the message.
    Forbidden(&'static str),
    /// Inside an aggregate's arguments.
    Nested,
    /// Allowed: the calls seen so far.
    Collecting(Vec<AggregateCall>),
}

/// Whether `name` with `arg_count` arguments is an aggregate (`min`/`max` with several
/// arguments are SQLite's scalar functions).
pub(super) fn is_aggregate(name: &str, arg_count: usize) -> bool {
    match name {
        "min" | "max" => arg_count <= 1,
        "count" | "sum" | "total" | "avg" | "string_agg" | "group_concat" | "bool_and"
        | "bool_or" | "every" | "json_agg" | "jsonb_agg" | "json_object_agg"
        | "jsonb_object_agg" | "percentile_cont" | "percentile_disc" | "mode" | "array_agg" => true,
        _ => false,
    }
}

impl Binder<'_> {
    /// Binds an aggregate call, returning its marker column.
    pub(super) fn bind_aggregate(
        &mut self,
        name: &str,
        call: &CallArguments<'_>,
        filter: Option<&ast::Expr>,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let mut calls = match std::mem::replace(&mut self.aggregates, AggregateContext::Nested) {
            AggregateContext::Collecting(calls) => calls,
            AggregateContext::Forbidden(clause) => {
                self.aggregates = AggregateContext::Forbidden(clause);
                return Err(BindError::grouping(format!(
                    "aggregate functions are not allowed in {clause}"
                )));
            }
            AggregateContext::Nested => {
                return Err(BindError::grouping(
                    "aggregate function calls cannot be nested",
                ));
            }
        };
        // A window call inside an aggregate's arguments is an error (42803).
        let windows = std::mem::replace(
            &mut self.windows,
            super::window::WindowContext::InsideAggregate,
        );
        let bound = self.bind_aggregate_call(name, call, filter, scope);
        self.windows = windows;
        let call = match bound {
            Ok(call) => call,
            Err(error) => {
                self.aggregates = AggregateContext::Collecting(calls);
                return Err(error);
            }
        };
        let data_type = call.data_type;
        let position = match calls.iter().position(|existing| *existing == call) {
            Some(position) => position,
            None => {
                calls.push(call);
                calls.len() - 1
            }
        };
        self.aggregates = AggregateContext::Collecting(calls);
        Ok(Expr::Column {
            index: AGGREGATE_MARK + position,
            data_type,
        })
    }

    pub(super) fn bind_aggregate_call(
        &mut self,
        name: &str,
        call: &CallArguments<'_>,
        filter: Option<&ast::Expr>,
        scope: &Scope,
    ) -> Result<AggregateCall, BindError> {
        let wrong_arity = || {
            BindError::undefined_function(format!(
                "function {name} does not take {} arguments",
                call.args.len()
            ))
        };
        let filter = match filter {
            Some(filter) => Some(self.bind_boolean(filter, scope, "FILTER")?),
            None => None,
        };
        if super::ordered_set::is_ordered_set(name) {
            return self.bind_ordered_set_call(name, call, filter, scope);
        }
        // count(*)
        if name == "count" && matches!(call.args.as_slice(), [ast::FunctionArgExpr::Wildcard] | [])
        {
            if call.distinct {
                return Err(BindError::syntax("count(DISTINCT *) is not valid"));
            }
            return Ok(AggregateCall {
                function: AggregateFunction::CountStar,
                args: Vec::new(),
                distinct: false,
                filter,
                order_by: Vec::new(),
                direct_args: Vec::new(),
                data_type: DataType::Integer,
            });
        }
        let mut args = Vec::with_capacity(call.args.len());
        let mut asts = Vec::with_capacity(call.args.len());
        for arg in &call.args {
            let ast = arg_expr(arg, name)?;
            args.push(self.bind_expr(ast, scope)?);
            asts.push(ast);
        }
        let undefined = |args: &[Expr]| {
            let types: Vec<&str> = args.iter().map(|arg| arg.data_type().name()).collect();
            BindError::undefined_function(format!(
                "function {name}({}) does not exist",
                types.join(", ")
            ))
        };
        let (function, data_type) = match (name, args.len()) {
            ("count", 1) => (AggregateFunction::Count, DataType::Integer),
            ("sum" | "avg" | "total", 1) => {
                let arg = self.type_if_untyped(args.remove(0), asts[0], DataType::Integer)?;
                let input = match arg.data_type() {
                    DataType::Integer | DataType::Null => DataType::Integer,
                    DataType::Boolean => DataType::Integer,
                    DataType::Real => DataType::Real,
                    // sum and avg of numerics are exact numerics (total is a double).
                    DataType::Numeric(_) if name != "total" => DataType::Numeric(None),
                    DataType::Numeric(_) => DataType::Real,
                    // sum and avg of intervals are intervals (total has no interval form).
                    DataType::Interval if name != "total" => DataType::Interval,
                    // sum and avg of vectors are vectors, element by element (pgvector).
                    DataType::Vector(_) if name != "total" => DataType::Vector(None),
                    _ => return Err(undefined(&[arg])),
                };
                let (function, input, result) = match name {
                    "sum" => (AggregateFunction::Sum, input, input),
                    "avg"
                        if matches!(
                            input,
                            DataType::Interval | DataType::Vector(_) | DataType::Numeric(_)
                        ) =>
                    {
                        (AggregateFunction::Avg, input, input)
                    }
                    "avg" => (AggregateFunction::Avg, input, DataType::Real),
                    _ => (AggregateFunction::Total, DataType::Real, DataType::Real),
                };
                args.insert(0, coerce(arg, input));
                (function, result)
            }
            ("min" | "max", 1) => {
                let target = if is_untyped(asts[0]) && args[0].data_type() != DataType::Null {
                    DataType::Text(None)
                } else {
                    args[0].data_type()
                };
                let arg = self.resolve_untyped(args.remove(0), asts[0], target)?;
                args.insert(0, arg);
                let function = if name == "min" {
                    AggregateFunction::Min
                } else {
                    AggregateFunction::Max
                };
                (function, target)
            }
            ("string_agg", 2) | ("group_concat", 1 | 2) => {
                if args.len() == 1 {
                    args.push(Expr::literal(Value::Text(",".to_string())));
                    asts.push(asts[0]);
                }
                let mut converted = Vec::with_capacity(2);
                for (arg, ast) in args.into_iter().zip(&asts) {
                    let arg = self.resolve_untyped(arg, ast, DataType::Text(None))?;
                    if arg.data_type() == DataType::Blob {
                        return Err(undefined(&[arg]));
                    }
                    converted.push(coerce(arg, DataType::Text(None)));
                }
                args = converted;
                (AggregateFunction::StringAgg, DataType::Text(None))
            }
            ("bool_and" | "bool_or" | "every", 1) => {
                let arg = self.as_boolean(args.remove(0), asts[0], name)?;
                args.insert(0, arg);
                let function = if name == "bool_or" {
                    AggregateFunction::BoolOr
                } else {
                    AggregateFunction::BoolAnd
                };
                (function, DataType::Boolean)
            }
            ("json_agg" | "jsonb_agg", 1) | ("json_object_agg" | "jsonb_object_agg", 2) => {
                // Any type converts to JSON; an untyped literal is text, as in PostgreSQL.
                let mut converted = Vec::with_capacity(args.len());
                for (arg, ast) in args.into_iter().zip(&asts) {
                    converted.push(self.type_if_untyped(arg, ast, DataType::Text(None))?);
                }
                args = converted;
                match name {
                    "json_agg" => (AggregateFunction::JsonAgg, DataType::Json),
                    "jsonb_agg" => (AggregateFunction::JsonbAgg, DataType::Jsonb),
                    "json_object_agg" => (AggregateFunction::JsonObjectAgg, DataType::Json),
                    _ => (AggregateFunction::JsonbObjectAgg, DataType::Jsonb),
                }
            }
            ("array_agg", 1) => {
                let arg = self.type_if_untyped(args.remove(0), asts[0], DataType::Text(None))?;
                let data_type = match arg.data_type() {
                    array @ DataType::Array(_) => array,
                    DataType::Null => DataType::Array(&DataType::Text(None)),
                    other => other
                        .array_of()
                        .ok_or_else(|| BindError::unsupported(format!("arrays of type {other}")))?,
                };
                args.insert(0, arg);
                (AggregateFunction::ArrayAgg, data_type)
            }
            _ => return Err(wrong_arity()),
        };
        let order_by = self.bind_aggregate_order(call, &args, function, scope)?;
        Ok(AggregateCall {
            function,
            args,
            distinct: call.distinct,
            filter,
            order_by,
            direct_args: Vec::new(),
            // max() of a VARCHAR(10) column is text, as PostgreSQL types it.
            data_type: data_type.unmodified(),
        })
    }
}

impl Binder<'_> {
    /// The keys of `agg(args ORDER BY keys)`. PostgreSQL's rule for DISTINCT holds: each key
    /// must be one of the arguments (42P10). Keys are bound (so their errors are reported)
    /// but dropped for aggregates whose result the order cannot change.
    fn bind_aggregate_order(
        &mut self,
        call: &CallArguments<'_>,
        args: &[Expr],
        function: AggregateFunction,
        scope: &Scope,
    ) -> Result<Vec<SortKey>, BindError> {
        let mut keys = Vec::with_capacity(call.order_by.len());
        for key in call.order_by {
            let order = super::select::order_key(0, &key.options)?;
            let expr = self.bind_expr(&key.expr, scope)?;
            if call.distinct && !args.contains(&expr) {
                return Err(BindError::new(
                    sqlstate::INVALID_COLUMN_REFERENCE,
                    "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list",
                ));
            }
            keys.push(SortKey {
                expr,
                descending: order.descending,
                nulls_first: order.nulls_first,
            });
        }
        let order_matters = matches!(
            function,
            AggregateFunction::StringAgg
                | AggregateFunction::ArrayAgg
                | AggregateFunction::JsonAgg
                | AggregateFunction::JsonbAgg
                | AggregateFunction::JsonObjectAgg
                | AggregateFunction::JsonbObjectAgg
        );
        if !order_matters {
            keys.clear();
        }
        Ok(keys)
    }
}

/// Whether a bound expression contains an aggregate marker.
pub(super) fn has_aggregate(expr: &Expr) -> bool {
    let mut found = false;
    expr.visit(&mut |e| {
        if matches!(e, Expr::Column { index, .. } if *index >= AGGREGATE_MARK) {
            found = true;
        }
    });
    found
}

/// Rewrites `expr`, bound over the FROM row (`scope`), to run over the Aggregate node's
/// output: `group_by.len()` key columns, then the aggregates.
pub(super) fn rewrite_over_aggregate(
    expr: &mut Expr,
    group_by: &[Expr],
    scope: &Scope,
) -> Result<(), BindError> {
    if let Some(position) = group_by.iter().position(|key| key == expr) {
        *expr = Expr::Column {
            index: position,
            data_type: expr.data_type(),
        };
        return Ok(());
    }
    match expr {
        Expr::Column { index, .. } if *index >= AGGREGATE_MARK => {
            *index = *index - AGGREGATE_MARK + group_by.len();
            Ok(())
        }
        // Window calls are computed above the Aggregate node; their own expressions are
        // rewritten separately.
        Expr::Column { index, .. } if *index >= super::window::WINDOW_MARK => Ok(()),
        // GROUPING(...) calls are replaced once the grouping sets are known.
        Expr::Column { index, .. } if *index >= super::grouping_sets::GROUPING_MARK => Ok(()),
        Expr::Column { index, .. } => Err(ungrouped(scope, *index)),
        Expr::ScalarSubquery { plan, .. } | Expr::Exists { plan, .. } => {
            rewrite_outer_in_plan(plan, 1, group_by, scope)
        }
        Expr::InSubquery { operand, plan, .. } => {
            rewrite_over_aggregate(operand, group_by, scope)?;
            rewrite_outer_in_plan(plan, 1, group_by, scope)
        }
        other => {
            for child in other.children_mut() {
                rewrite_over_aggregate(child, group_by, scope)?;
            }
            Ok(())
        }
    }
}

fn ungrouped(scope: &Scope, index: usize) -> BindError {
    let name = match scope.columns.get(index) {
        Some(column) => match &column.table {
            Some(table) => format!("{table}.{}", column.name),
            None => column.name.clone(),
        },
        None => format!("#{index}"),
    };
    BindError::grouping(format!(
        "column \"{name}\" must appear in the GROUP BY clause or be used in an aggregate function"
    ))
}

/// Rewrites a subquery's references to the grouped query level (`depth` levels out) so they
/// point at group keys.
fn rewrite_outer_in_plan(
    plan: &mut PlanNode,
    depth: usize,
    group_by: &[Expr],
    scope: &Scope,
) -> Result<(), BindError> {
    let (exprs, inputs) = plan.kind.parts_mut();
    for expr in exprs {
        rewrite_outer_in_expr(expr, depth, group_by, scope)?;
    }
    for input in inputs {
        rewrite_outer_in_plan(input, depth, group_by, scope)?;
    }
    Ok(())
}

fn rewrite_outer_in_expr(
    expr: &mut Expr,
    depth: usize,
    group_by: &[Expr],
    scope: &Scope,
) -> Result<(), BindError> {
    match expr {
        Expr::OuterColumn {
            depth: d,
            index,
            data_type,
        } if *d == depth => {
            let column = Expr::Column {
                index: *index,
                data_type: *data_type,
            };
            match group_by.iter().position(|key| *key == column) {
                Some(position) => {
                    *index = position;
                    Ok(())
                }
                None => Err(ungrouped(scope, *index)),
            }
        }
        Expr::ScalarSubquery { plan, .. } | Expr::Exists { plan, .. } => {
            rewrite_outer_in_plan(plan, depth + 1, group_by, scope)
        }
        Expr::InSubquery { operand, plan, .. } => {
            rewrite_outer_in_expr(operand, depth, group_by, scope)?;
            rewrite_outer_in_plan(plan, depth + 1, group_by, scope)
        }
        other => {
            for child in other.children_mut() {
                rewrite_outer_in_expr(child, depth, group_by, scope)?;
            }
            Ok(())
        }
    }
}
