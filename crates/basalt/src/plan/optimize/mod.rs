//! The optimizer: rewrites the binder's naive plans into cheaper plans with the same results.
//!
//! It sits between the binder (`plan::bind`), whose plans are literal translations of the
//! SQL — comma joins as cross products under one big WHERE filter, every table a full scan —
//! and the executor (`crate::exec`), which runs whatever tree it is given. Rules, in order:
//!
//! 0. [`reorder`]: inner-join trees are re-chained so each next input is connected to the
//!    joined ones by a conjunct (no needless cross products).
//! 1. [`pushdown`]: filter conjuncts move down to the lowest node whose columns they read,
//!    into join inputs and join conditions (respecting outer-join NULL extension).
//! 2. [`hash_join`]: joins with `left = right` conditions become hash joins.
//! 3. [`access`]: filters directly above table scans pick a row-id range or an index range.
//! 4. [`index_join`]: hash joins whose right side is an indexed table become index joins
//!    when the [`estimate`]s say few left rows will probe it.
//! 5. [`order`]: sorts that a scan already delivers disappear (the scan may run backwards);
//!    a sort under a LIMIT becomes a top-N sort.
//! 6. [`columns`]: scan columns nothing above reads are marked unread, so they are never
//!    decoded.
//!
//! Guarantees: every rewrite keeps the result bag exactly (including NULL semantics and any
//! order a Sort gives); plans stay valid for every parameter value, since nothing here looks
//! at parameter values. Sizes (ANALYZE statistics or the provider's estimates) only choose
//! between equivalent plans. Subquery plans inside expressions are optimized the same way.
//! Anything a rule cannot prove safe is left as the binder wrote it.
//!
//! `BASALT_NO_OPTIMIZER=1` in the environment (read once per process), or the session
//! setting `SET optimizer = off`, skips all rewrites for statements prepared afterwards: a
//! debugging switch, and the reference side of differential tests.

mod access;
mod columns;
pub mod estimate;
mod hash_join;
mod index_join;
mod order;
mod pushdown;
mod reorder;
mod text_search;
pub(crate) mod util;
mod vector_search;

#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use crate::catalog::Catalog;

use crate::plan::{Bound, BoundStatement, Expr, PlanKind, PlanNode};
use estimate::{CatalogStatistics, Estimator, Statistics};

/// Whether the environment disables the optimizer (`BASALT_NO_OPTIMIZER` set to anything
/// but empty or `0`). Read once.
pub fn disabled_by_environment() -> bool {
    static DISABLED: OnceLock<bool> = OnceLock::new();
    *DISABLED.get_or_init(|| {
        std::env::var("BASALT_NO_OPTIMIZER").is_ok_and(|value| !value.is_empty() && value != "0")
    })
}

/// A bound statement with its plans optimized (queries, modifications and EXPLAIN alike),
/// with table sizes from ANALYZE only.
pub fn optimize_bound(bound: Bound, catalog: &Catalog) -> Bound {
    optimize_bound_with(bound, catalog, &CatalogStatistics(catalog))
}

/// [`optimize_bound`] with table sizes from `statistics`.
pub fn optimize_bound_with(bound: Bound, catalog: &Catalog, statistics: &dyn Statistics) -> Bound {
    let estimator = Estimator {
        catalog,
        statistics,
    };
    let statement = match bound.statement {
        BoundStatement::Query(plan) => BoundStatement::Query(optimize_plan(plan, &estimator)),
        BoundStatement::Modify(plan) => BoundStatement::Modify(optimize_plan(plan, &estimator)),
        BoundStatement::Explain {
            plan,
            analyze,
            verbose,
        } => BoundStatement::Explain {
            plan: optimize_plan(plan, &estimator),
            analyze,
            verbose,
        },
        ddl @ BoundStatement::Ddl(_) => ddl,
        BoundStatement::InsteadOf(modification) => {
            BoundStatement::InsteadOf(crate::plan::ViewModification {
                rows: optimize_plan(modification.rows, &estimator),
                ..modification
            })
        }
    };
    Bound {
        statement,
        parameters: bound.parameters,
    }
}

/// `plan` rewritten by every rule (table sizes from ANALYZE only); the result produces the
/// same rows. The optimizer's tests call it; statements go through [`optimize_bound_with`].
#[cfg(test)]
pub fn optimize(plan: PlanNode, catalog: &Catalog) -> PlanNode {
    let estimator = Estimator {
        catalog,
        statistics: &CatalogStatistics(catalog),
    };
    optimize_plan(plan, &estimator)
}

fn optimize_plan(mut plan: PlanNode, estimator: &Estimator<'_>) -> PlanNode {
    optimize_subqueries(&mut plan, estimator);
    let plan = reorder::reorder_joins(plan);
    let plan = pushdown::push_down(plan, Vec::new());
    let plan = physical(plan, estimator);
    let mut plan = access::drop_enforced_conjuncts(plan);
    columns::mark_unread(&mut plan);
    plan
}

/// Bottom-up: join methods, access paths and orders, once the filters are where they belong.
fn physical(mut node: PlanNode, estimator: &Estimator<'_>) -> PlanNode {
    for child in node.kind.children_mut() {
        let taken = std::mem::replace(child, placeholder());
        *child = physical(taken, estimator);
    }
    match node.kind {
        PlanKind::NestedLoopJoin { .. } => {
            index_join::to_index_join(hash_join::to_hash_join(node), estimator)
        }
        PlanKind::Filter { .. } => text_search::choose(
            access::choose_access(node, estimator.catalog),
            estimator.catalog,
        ),
        PlanKind::Sort { .. } => order::sort(node, estimator.catalog),
        PlanKind::Limit { .. } => text_search::top_k(vector_search::rewrite(
            order::limit(node, estimator.catalog),
            estimator.catalog,
        )),
        _ => node,
    }
}

/// A node to stand in for a child while it is being rewritten.
pub(super) fn placeholder() -> PlanNode {
    PlanNode {
        kind: PlanKind::SingleRow,
        schema: Vec::new(),
    }
}

/// Optimizes the plan of every subquery in every expression of the tree.
fn optimize_subqueries(node: &mut PlanNode, estimator: &Estimator<'_>) {
    for expr in node.kind.exprs_mut() {
        optimize_expr_subqueries(expr, estimator);
    }
    for child in node.kind.children_mut() {
        optimize_subqueries(child, estimator);
    }
}

fn optimize_expr_subqueries(expr: &mut Expr, estimator: &Estimator<'_>) {
    match expr {
        Expr::ScalarSubquery { plan, .. } | Expr::Exists { plan, .. } => {
            let taken = std::mem::replace(&mut **plan, placeholder());
            **plan = optimize_plan(taken, estimator);
        }
        Expr::InSubquery { operand, plan, .. } => {
            optimize_expr_subqueries(operand, estimator);
            let taken = std::mem::replace(&mut **plan, placeholder());
            **plan = optimize_plan(taken, estimator);
        }
        _ => {
            for child in expr.children_mut() {
                optimize_expr_subqueries(child, estimator);
            }
        }
    }
}
