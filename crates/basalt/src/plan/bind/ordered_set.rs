//! Ordered-set aggregates: `percentile_cont(f)`, `percentile_disc(f)` and `mode()`, each
//! `WITHIN GROUP (ORDER BY x)`, bound as PostgreSQL 15 resolves them.
//!
//! An ordered-set call becomes an [`AggregateCall`] whose `args` hold the sorted argument
//! `x`, whose `order_by` holds `x`'s sort key (so the executor's ordered-aggregate path
//! buffers and sorts each group's rows, as for `string_agg(... ORDER BY ...)`), and whose
//! `direct_args` hold the fraction `f`. The fraction is bound over the FROM row here and
//! rewritten onto the group keys once they are known ([`rewrite_direct_args`]): like
//! PostgreSQL, it may use only grouped columns (42803), and it is evaluated once per group,
//! also for a group with no rows, so that a bad fraction is an error even then.
//!
//! Type rules: `percentile_cont` takes numbers (as double precision, the result too) or
//! intervals; `percentile_disc` and `mode` take any type with an ordering and return it. A
//! call that matches none of these (a second sorted key, a direct argument to `mode`, a
//! missing WITHIN GROUP, `percentile_cont` of text) is 42883, as PostgreSQL finds no such
//! function. An array of fractions (`percentile_cont(ARRAY[0.25, 0.5])`) gives an array of
//! results in the fractions' shape.

use crate::plan::SortKey;
use crate::plan::expr::{AggregateCall, AggregateFunction, Expr};
use crate::types::DataType;

use super::Binder;
use super::error::BindError;
use super::expr::coerce;
use super::function::{CallArguments, arg_expr};
use super::scope::Scope;

/// Whether `name` is an ordered-set aggregate Basalt knows.
pub(super) fn is_ordered_set(name: &str) -> bool {
    matches!(name, "percentile_cont" | "percentile_disc" | "mode")
}

impl Binder<'_> {
    /// Binds `name(direct) WITHIN GROUP (ORDER BY key)`, the FILTER already bound.
    pub(super) fn bind_ordered_set_call(
        &mut self,
        name: &str,
        call: &CallArguments<'_>,
        filter: Option<Expr>,
        scope: &Scope,
    ) -> Result<AggregateCall, BindError> {
        let mut direct = Vec::with_capacity(call.args.len());
        let mut direct_asts = Vec::with_capacity(call.args.len());
        for arg in &call.args {
            let ast = arg_expr(arg, name)?;
            direct.push(self.bind_expr(ast, scope)?);
            direct_asts.push(ast);
        }
        let mut sorted = Vec::with_capacity(call.within_group.len());
        for key in call.within_group {
            let order = super::select::order_key(0, &key.options)?;
            let expr = self.bind_expr(&key.expr, scope)?;
            // An untyped literal sorts as text, as PostgreSQL resolves `unknown`.
            let expr = self.type_if_untyped(expr, &key.expr, DataType::Text(None))?;
            sorted.push((expr, order));
        }
        let types: Vec<&str> = direct
            .iter()
            .chain(sorted.iter().map(|(expr, _)| expr))
            .map(|expr| expr.data_type().name())
            .collect();
        let signature = format!("function {name}({}) does not exist", types.join(", "));
        let undefined = || BindError::undefined_function(signature.clone());
        let function = match name {
            "percentile_cont" => AggregateFunction::PercentileCont,
            "percentile_disc" => AggregateFunction::PercentileDisc,
            _ => AggregateFunction::Mode,
        };
        let expected_direct = usize::from(function != AggregateFunction::Mode);
        if sorted.len() != 1 || direct.len() != expected_direct {
            return Err(undefined());
        }
        // The fraction is double precision; a quoted literal is parsed as one.
        let mut direct_args = Vec::with_capacity(direct.len());
        let mut fractions_array = false;
        for (arg, ast) in direct.iter().zip(&direct_asts) {
            // `percentile_cont(ARRAY[0.25, 0.5])`: an array of fractions gives an array.
            if let DataType::Array(element) = arg.data_type() {
                if !matches!(
                    element,
                    DataType::Integer | DataType::Real | DataType::Numeric(_)
                ) {
                    return Err(undefined());
                }
                fractions_array = true;
                direct_args.push(coerce(arg.clone(), DataType::Array(&DataType::Real)));
                continue;
            }
            let arg = self.type_if_untyped(arg.clone(), ast, DataType::Real)?;
            if !matches!(
                arg.data_type(),
                DataType::Integer | DataType::Real | DataType::Numeric(_) | DataType::Null
            ) {
                return Err(undefined());
            }
            direct_args.push(coerce(arg, DataType::Real));
        }
        let (key, order) = sorted.swap_remove(0);
        let key_type = key.data_type().unmodified();
        let (argument, data_type) = match function {
            AggregateFunction::PercentileCont => match key_type {
                // PostgreSQL's percentile_cont is double precision: a NUMERIC key converts.
                DataType::Integer | DataType::Real | DataType::Numeric(_) | DataType::Null => {
                    (coerce(key.clone(), DataType::Real), DataType::Real)
                }
                DataType::Interval => (key.clone(), DataType::Interval),
                _ => return Err(undefined()),
            },
            _ => {
                super::json::require_ordering(key_type)?;
                (key.clone(), key_type)
            }
        };
        let data_type = if fractions_array {
            data_type.array_of().ok_or_else(undefined)?
        } else {
            data_type
        };
        Ok(AggregateCall {
            function,
            args: vec![argument],
            distinct: false,
            filter,
            order_by: vec![SortKey {
                expr: key,
                descending: order.descending,
                nulls_first: order.nulls_first,
            }],
            direct_args,
            data_type,
        })
    }
}

/// Rewrites the direct arguments of `aggregates`, bound over the FROM row, onto the group
/// keys (column `i` is key `i`): a column that is not grouped is 42803, as in PostgreSQL.
/// With grouping sets each set's Aggregate remaps the keys ([`direct_args_for_set`]), which
/// does not reach into subqueries, so a subquery there is refused (0A000).
pub(super) fn rewrite_direct_args(
    aggregates: &mut [AggregateCall],
    group_by: &[Expr],
    scope: &Scope,
    grouping_sets: bool,
) -> Result<(), BindError> {
    for call in aggregates {
        for arg in &mut call.direct_args {
            let mut subquery = false;
            arg.visit(&mut |expr| {
                if matches!(
                    expr,
                    Expr::ScalarSubquery { .. } | Expr::Exists { .. } | Expr::InSubquery { .. }
                ) {
                    subquery = true;
                }
            });
            if grouping_sets && subquery {
                return Err(BindError::unsupported(
                    "a subquery in the direct argument of an ordered-set aggregate with grouping sets",
                ));
            }
            super::aggregate::rewrite_over_aggregate(arg, group_by, scope)?;
            // Anything left past the keys (a GROUPING() marker) has no value per group.
            let mut beyond_keys = false;
            arg.visit(&mut |expr| {
                if matches!(expr, Expr::Column { index, .. } if *index >= group_by.len()) {
                    beyond_keys = true;
                }
            });
            if beyond_keys {
                return Err(BindError::unsupported(
                    "GROUPING() in the direct argument of an ordered-set aggregate",
                ));
            }
        }
    }
    Ok(())
}

/// The direct arguments of `call`, over all of `keys`, remapped for one grouping set whose
/// Aggregate groups by `set` (positions in `keys`): keys outside the set are NULL there.
pub(super) fn direct_args_for_set(call: &AggregateCall, keys: &[Expr], set: &[usize]) -> Vec<Expr> {
    call.direct_args
        .iter()
        .map(|arg| {
            let mut arg = arg.clone();
            remap_keys(&mut arg, keys, set);
            arg
        })
        .collect()
}

fn remap_keys(expr: &mut Expr, keys: &[Expr], set: &[usize]) {
    if let Expr::Column { index, data_type } = expr {
        *expr = match set.iter().position(|member| member == index) {
            Some(position) => Expr::Column {
                index: position,
                data_type: *data_type,
            },
            None => Expr::Literal {
                value: crate::types::Value::Null,
                data_type: keys.get(*index).map_or(*data_type, Expr::data_type),
            },
        };
        return;
    }
    for child in expr.children_mut() {
        remap_keys(child, keys, set);
    }
}
