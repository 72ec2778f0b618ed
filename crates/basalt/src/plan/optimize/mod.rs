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
//!
//! Guarantees: every rewrite keeps the result bag exactly (including NULL semantics and any
//! order a Sort gives); plans stay valid for every parameter value, since nothing here looks
//! at parameter values. Subquery plans inside expressions are optimized the same way.
//! Anything a rule cannot prove safe is left as the binder wrote it.
//!
//! `BASALT_NO_OPTIMIZER=1` in the environment (read once per process), or the session
//! setting `SET optimizer = off`, skips all rewrites for statements prepared afterwards: a
//! debugging switch, and the reference side of differential tests.

mod access;
mod hash_join;
mod pushdown;
mod reorder;
mod util;

#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use crate::catalog::Catalog;
use crate::plan::{Bound, BoundStatement, ConflictAction, Expr, PlanKind, PlanNode, RangeBound};

/// Whether the environment disables the optimizer (`BASALT_NO_OPTIMIZER` set to anything
/// but empty or `0`). Read once.
pub fn disabled_by_environment() -> bool {
    static DISABLED: OnceLock<bool> = OnceLock::new();
    *DISABLED.get_or_init(|| {
        std::env::var("BASALT_NO_OPTIMIZER").is_ok_and(|value| !value.is_empty() && value != "0")
    })
}

/// A bound statement with its plans optimized (queries, modifications and EXPLAIN alike).
pub fn optimize_bound(bound: Bound, catalog: &Catalog) -> Bound {
    let statement = match bound.statement {
        BoundStatement::Query(plan) => BoundStatement::Query(optimize(plan, catalog)),
        BoundStatement::Modify(plan) => BoundStatement::Modify(optimize(plan, catalog)),
        BoundStatement::Explain { plan, analyze } => BoundStatement::Explain {
            plan: optimize(plan, catalog),
            analyze,
        },
        ddl @ BoundStatement::Ddl(_) => ddl,
    };
    Bound {
        statement,
        parameters: bound.parameters,
    }
}

/// `plan` rewritten by every rule; the result produces the same rows.
pub fn optimize(mut plan: PlanNode, catalog: &Catalog) -> PlanNode {
    optimize_subqueries(&mut plan, catalog);
    let plan = reorder::reorder_joins(plan);
    let plan = pushdown::push_down(plan, Vec::new());
    physical(plan, catalog)
}

/// Bottom-up: hash joins and access paths, once the filters are where they belong.
fn physical(mut node: PlanNode, catalog: &Catalog) -> PlanNode {
    for child in children_mut(&mut node.kind) {
        let taken = std::mem::replace(child, placeholder());
        *child = physical(taken, catalog);
    }
    match node.kind {
        PlanKind::NestedLoopJoin { .. } => hash_join::to_hash_join(node),
        PlanKind::Filter { .. } => access::choose_access(node, catalog),
        _ => node,
    }
}

/// A node to stand in for a child while it is being rewritten.
fn placeholder() -> PlanNode {
    PlanNode {
        kind: PlanKind::SingleRow,
        schema: Vec::new(),
    }
}

/// Optimizes the plan of every subquery in every expression of the tree.
fn optimize_subqueries(node: &mut PlanNode, catalog: &Catalog) {
    for expr in exprs_mut(&mut node.kind) {
        optimize_expr_subqueries(expr, catalog);
    }
    for child in children_mut(&mut node.kind) {
        optimize_subqueries(child, catalog);
    }
}

fn optimize_expr_subqueries(expr: &mut Expr, catalog: &Catalog) {
    match expr {
        Expr::ScalarSubquery { plan, .. } | Expr::Exists { plan, .. } => {
            let taken = std::mem::replace(&mut **plan, placeholder());
            **plan = optimize(taken, catalog);
        }
        Expr::InSubquery { operand, plan, .. } => {
            optimize_expr_subqueries(operand, catalog);
            let taken = std::mem::replace(&mut **plan, placeholder());
            **plan = optimize(taken, catalog);
        }
        _ => {
            for child in expr.children_mut() {
                optimize_expr_subqueries(child, catalog);
            }
        }
    }
}

/// The inputs of a node.
fn children_mut(kind: &mut PlanKind) -> Vec<&mut PlanNode> {
    match kind {
        PlanKind::SingleRow
        | PlanKind::Values { .. }
        | PlanKind::TableScan { .. }
        | PlanKind::IndexScan { .. } => Vec::new(),
        PlanKind::Filter { input, .. }
        | PlanKind::Project { input, .. }
        | PlanKind::Aggregate { input, .. }
        | PlanKind::Sort { input, .. }
        | PlanKind::Limit { input, .. }
        | PlanKind::Distinct { input }
        | PlanKind::Update { input, .. }
        | PlanKind::Delete { input, .. } => vec![&mut **input],
        PlanKind::Insert { source, .. } => vec![&mut **source],
        PlanKind::NestedLoopJoin { left, right, .. }
        | PlanKind::HashJoin { left, right, .. }
        | PlanKind::SetOperation { left, right, .. } => vec![&mut **left, &mut **right],
    }
}

/// The expressions a node itself evaluates (not those of its inputs).
fn exprs_mut(kind: &mut PlanKind) -> Vec<&mut Expr> {
    fn bound_exprs(bound: &mut RangeBound) -> impl Iterator<Item = &mut Expr> {
        match bound {
            RangeBound::Unbounded => [].iter_mut(),
            RangeBound::Included(exprs) | RangeBound::Excluded(exprs) => exprs.iter_mut(),
        }
    }
    match kind {
        PlanKind::SingleRow | PlanKind::Distinct { .. } | PlanKind::SetOperation { .. } => {
            Vec::new()
        }
        PlanKind::Values { rows } => rows.iter_mut().flatten().collect(),
        PlanKind::TableScan { lower, upper, .. } | PlanKind::IndexScan { lower, upper, .. } => {
            bound_exprs(lower).chain(bound_exprs(upper)).collect()
        }
        PlanKind::Filter { predicate, .. } => vec![predicate],
        PlanKind::Project { exprs, .. } => exprs.iter_mut().collect(),
        PlanKind::Aggregate {
            group_by,
            aggregates,
            ..
        } => {
            let mut out: Vec<&mut Expr> = group_by.iter_mut().collect();
            for call in aggregates {
                out.extend(call.args.iter_mut());
                out.extend(call.filter.iter_mut());
            }
            out
        }
        PlanKind::Sort { keys, .. } => keys.iter_mut().map(|key| &mut key.expr).collect(),
        PlanKind::Limit { limit, offset, .. } => {
            limit.iter_mut().chain(offset.iter_mut()).collect()
        }
        PlanKind::NestedLoopJoin { condition, .. } => condition.iter_mut().collect(),
        PlanKind::HashJoin {
            left_keys,
            right_keys,
            residual,
            ..
        } => left_keys
            .iter_mut()
            .chain(right_keys.iter_mut())
            .chain(residual.iter_mut())
            .collect(),
        PlanKind::Insert {
            on_conflict,
            returning,
            ..
        } => {
            let mut out: Vec<&mut Expr> = returning.iter_mut().collect();
            if let ConflictAction::Update {
                assignments,
                condition,
                ..
            } = on_conflict
            {
                out.extend(assignments.iter_mut().map(|(_, expr)| expr));
                out.extend(condition.iter_mut());
            }
            out
        }
        PlanKind::Update {
            assignments,
            returning,
            ..
        } => assignments
            .iter_mut()
            .map(|(_, expr)| expr)
            .chain(returning.iter_mut())
            .collect(),
        PlanKind::Delete { returning, .. } => returning.iter_mut().collect(),
    }
}
