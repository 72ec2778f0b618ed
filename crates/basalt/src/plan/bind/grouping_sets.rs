//! GROUPING SETS, ROLLUP and CUBE: several groupings of one query level, as PostgreSQL
//! defines them.
//!
//! A GROUP BY list is expanded into its grouping sets ([`expand_grouping_sets`]): a plain
//! expression is one set of one key, `ROLLUP (a, b)` is `(a, b), (a), ()`, `CUBE (a, b)` is
//! every subset, `GROUPING SETS (...)` lists sets (which may nest ROLLUP and CUBE), and the
//! items of the list combine as a cartesian product. The level is then bound exactly as
//! for an ordinary GROUP BY over the union of every set's keys, so the SELECT list, HAVING,
//! ORDER BY and windows see one Aggregate-shaped row: the keys, then the aggregates.
//! [`grouping_sets_plan`] produces that row as a UNION ALL of one Aggregate per set, each
//! projected to the full layout with NULL for the keys its set does not group by — which is
//! what PostgreSQL returns for them. The input plan is evaluated once per set.
//!
//! `GROUPING(a, b, ...)` tells those NULLs from NULL keys: bit *i* (counting from the last
//! argument) is 1 when the row's set does not group by argument *i*. Each call is bound as
//! a marker column (`GROUPING_MARK + k`) with its arguments kept aside; once the keys are
//! known the arguments are matched to them (42803 when one is not a grouping expression),
//! and the marker becomes a column after the aggregates that each set's branch fills with
//! its constant — or the constant 0 under a plain GROUP BY, where every key is grouped.

use sqlparser::ast;

use crate::plan::expr::{AggregateCall, Expr};
use crate::plan::{OutputColumn, PlanKind, PlanNode, SetOperator};
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::Binder;
use super::aggregate::AggregateContext;
use super::error::BindError;
use super::scope::Scope;

/// Column indexes from this (below [`super::window::WINDOW_MARK`]) stand for GROUPING calls
/// during binding.
pub(super) const GROUPING_MARK: usize = usize::MAX / 8;

/// PostgreSQL's limit on GROUPING's arguments (the result is a 32-bit integer there).
const MAX_GROUPING_ARGUMENTS: usize = 31;

impl Binder<'_> {
    /// Binds `GROUPING(args)` in a grouped query level, returning its marker column.
    pub(super) fn bind_grouping_call(
        &mut self,
        args: &[&ast::Expr],
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        match &self.aggregates {
            AggregateContext::Collecting(_) => {}
            AggregateContext::Forbidden(clause) => {
                return Err(BindError::grouping(format!(
                    "grouping operations are not allowed in {clause}"
                )));
            }
            AggregateContext::Nested => {
                return Err(BindError::grouping(
                    "aggregate function calls cannot contain grouping operations",
                ));
            }
        }
        if args.is_empty() || args.len() > MAX_GROUPING_ARGUMENTS {
            return Err(BindError::new(
                sqlstate::TOO_MANY_ARGUMENTS,
                format!("GROUPING must have between 1 and {MAX_GROUPING_ARGUMENTS} arguments"),
            ));
        }
        let mut bound = Vec::with_capacity(args.len());
        for arg in args {
            bound.push(self.bind_expr(arg, scope)?);
        }
        self.grouping_calls.push(bound);
        Ok(Expr::Column {
            index: GROUPING_MARK + self.grouping_calls.len() - 1,
            data_type: DataType::Integer,
        })
    }
}

/// Each GROUPING call's arguments as positions among the GROUP BY `keys`.
pub(super) fn resolve_grouping_calls(
    calls: &[Vec<Expr>],
    keys: &[Expr],
) -> Result<Vec<Vec<usize>>, BindError> {
    calls
        .iter()
        .map(|args| {
            args.iter()
                .map(|arg| {
                    keys.iter().position(|key| key == arg).ok_or_else(|| {
                        BindError::grouping(
                            "arguments to GROUPING must be grouping expressions of the associated query level",
                        )
                    })
                })
                .collect()
        })
        .collect()
}

/// Replaces every GROUPING marker in `expr` by `replacement(call number)`.
pub(super) fn replace_grouping_markers(expr: &mut Expr, replacement: &dyn Fn(usize) -> Expr) {
    if let Expr::Column { index, .. } = expr
        && (GROUPING_MARK..super::window::WINDOW_MARK).contains(index)
    {
        *expr = replacement(*index - GROUPING_MARK);
        return;
    }
    for child in expr.children_mut() {
        replace_grouping_markers(child, replacement);
    }
}

/// GROUPING's value for a row of the set whose keys are `set`: bit `i` from the right is
/// set when the `i`-th argument from the right is not one of them.
fn grouping_value(arguments: &[usize], set: &[usize]) -> i64 {
    arguments.iter().fold(0, |value, argument| {
        (value << 1) | i64::from(!set.contains(argument))
    })
}

/// PostgreSQL's limit on the number of grouping sets.
const MAX_GROUPING_SETS: usize = 4096;

/// The grouping sets of a GROUP BY list, or `None` when it has no ROLLUP, CUBE or GROUPING
/// SETS (an ordinary GROUP BY).
pub(super) fn expand_grouping_sets(
    items: &[ast::Expr],
) -> Result<Option<Vec<Vec<ast::Expr>>>, BindError> {
    let special = items.iter().any(|item| {
        matches!(
            item,
            ast::Expr::GroupingSets(_) | ast::Expr::Rollup(_) | ast::Expr::Cube(_)
        )
    });
    if !special {
        return Ok(None);
    }
    let mut sets = vec![Vec::new()];
    for item in items {
        sets = product(sets, expand(item)?)?;
    }
    Ok(Some(sets))
}

/// Every concatenation of a set of `left` with a set of `right`.
fn product(
    left: Vec<Vec<ast::Expr>>,
    right: Vec<Vec<ast::Expr>>,
) -> Result<Vec<Vec<ast::Expr>>, BindError> {
    if left.len().saturating_mul(right.len()) > MAX_GROUPING_SETS {
        return Err(too_many());
    }
    let mut out = Vec::with_capacity(left.len() * right.len());
    for first in &left {
        for second in &right {
            let mut set = first.clone();
            set.extend(second.iter().cloned());
            out.push(set);
        }
    }
    Ok(out)
}

fn too_many() -> BindError {
    BindError::new(
        sqlstate::STATEMENT_TOO_COMPLEX,
        format!("too many grouping sets present (maximum {MAX_GROUPING_SETS})"),
    )
}

/// The grouping sets one GROUP BY item stands for.
fn expand(item: &ast::Expr) -> Result<Vec<Vec<ast::Expr>>, BindError> {
    match item {
        ast::Expr::GroupingSets(sets) => {
            let mut out = Vec::new();
            for set in sets {
                let mut expanded = vec![Vec::new()];
                for element in set {
                    expanded = product(expanded, expand(element)?)?;
                }
                out.extend(expanded);
                if out.len() > MAX_GROUPING_SETS {
                    return Err(too_many());
                }
            }
            Ok(out)
        }
        ast::Expr::Rollup(elements) => Ok((0..=elements.len())
            .rev()
            .map(|length| elements[..length].concat())
            .collect()),
        ast::Expr::Cube(elements) => {
            if elements.len() > 12 {
                return Err(too_many());
            }
            Ok((0..1_usize << elements.len())
                .rev()
                .map(|mask| {
                    elements
                        .iter()
                        .enumerate()
                        .filter(|(position, _)| mask & (1 << (elements.len() - 1 - position)) != 0)
                        .flat_map(|(_, element)| element.iter().cloned())
                        .collect()
                })
                .collect())
        }
        // `(a, b)` as a plain GROUP BY item is the two keys.
        ast::Expr::Tuple(exprs) => Ok(vec![exprs.clone()]),
        other => Ok(vec![vec![other.clone()]]),
    }
}

/// A UNION ALL of one Aggregate per grouping set over `input`, each row laid out as `keys`
/// (NULL where its set does not group by the key), the aggregates, then one value per
/// GROUPING call (`grouping` lists each call's arguments as key positions). `sets` lists,
/// per set, the positions of its keys in `keys`.
pub(super) fn grouping_sets_plan(
    input: PlanNode,
    keys: &[Expr],
    sets: &[Vec<usize>],
    aggregates: &[AggregateCall],
    grouping: &[Vec<usize>],
    schema: &[OutputColumn],
) -> PlanNode {
    let mut union: Option<PlanNode> = None;
    for set in sets {
        let group_by: Vec<Expr> = set.iter().map(|&key| keys[key].clone()).collect();
        let mut aggregate_schema: Vec<OutputColumn> =
            set.iter().map(|&key| schema[key].clone()).collect();
        aggregate_schema.extend(
            schema[keys.len()..keys.len() + aggregates.len()]
                .iter()
                .cloned(),
        );
        let aggregate = PlanNode {
            kind: PlanKind::Aggregate {
                input: Box::new(input.clone()),
                group_by,
                // An ordered-set aggregate's direct arguments read this set's keys.
                aggregates: aggregates
                    .iter()
                    .map(|call| AggregateCall {
                        direct_args: super::ordered_set::direct_args_for_set(call, keys, set),
                        ..call.clone()
                    })
                    .collect(),
            },
            schema: aggregate_schema,
        };
        let mut exprs: Vec<Expr> = keys
            .iter()
            .enumerate()
            .map(
                |(key, expr)| match set.iter().position(|&member| member == key) {
                    Some(position) => Expr::Column {
                        index: position,
                        data_type: expr.data_type(),
                    },
                    None => Expr::Literal {
                        value: Value::Null,
                        data_type: expr.data_type(),
                    },
                },
            )
            .collect();
        exprs.extend(
            aggregates
                .iter()
                .enumerate()
                .map(|(position, call)| Expr::Column {
                    index: set.len() + position,
                    data_type: call.data_type,
                }),
        );
        exprs.extend(grouping.iter().map(|arguments| Expr::Literal {
            value: Value::Integer(grouping_value(arguments, set)),
            data_type: DataType::Integer,
        }));
        let projected = PlanNode {
            kind: PlanKind::Project {
                input: Box::new(aggregate),
                exprs,
            },
            schema: schema.to_vec(),
        };
        union = Some(match union {
            None => projected,
            Some(left) => PlanNode {
                kind: PlanKind::SetOperation {
                    operator: SetOperator::Union,
                    all: true,
                    left: Box::new(left),
                    right: Box::new(projected),
                },
                schema: schema.to_vec(),
            },
        });
    }
    union.unwrap_or(input)
}
