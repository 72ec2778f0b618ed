//! One place that knows, for every kind of plan node, which expressions it evaluates itself
//! and which nodes are its inputs.
//!
//! The binder (aggregate rewriting), the optimizer (every rule walks the tree) and the
//! executor (finding correlated subqueries) all need to walk plans. They do it through
//! [`PlanKind::parts`] and [`PlanKind::parts_mut`], so a new node kind is taught to every walker
//! by adding one arm here. Expressions are returned in a fixed order per kind, inputs left to
//! right; neither list includes anything inside the inputs.

use super::{AccessPath, ConflictAction, Expr, FrameBound, PlanKind, PlanNode, RangeBound};

/// Both traversals are the same match; only the borrow differs. `$iter` is `iter` or
/// `iter_mut`, `$deref` is `as_ref` or `as_mut` (for the boxed inputs).
macro_rules! node_parts {
    ($kind:expr, $iter:ident, $deref:ident) => {{
        let mut exprs = Vec::new();
        let mut inputs = Vec::new();
        match $kind {
            PlanKind::SingleRow => {}
            PlanKind::Values { rows } => exprs.extend(rows.$iter().flatten()),
            PlanKind::Scan { access, .. } => match access {
                AccessPath::Full => {}
                AccessPath::RowIdRange { lower, upper }
                | AccessPath::IndexRange { lower, upper, .. } => {
                    for bound in [lower, upper] {
                        if let RangeBound::Included(values) | RangeBound::Excluded(values) = bound {
                            exprs.extend(values.$iter());
                        }
                    }
                }
                AccessPath::Seeks { keys, .. } => exprs.extend(keys.$iter()),
                AccessPath::VectorSearch(search) => {
                    exprs.push(mut_or_ref!($iter, search.query));
                    exprs.push(mut_or_ref!($iter, search.limit));
                    exprs.extend(mut_or_ref!($iter, search.offset).$iter());
                    exprs.extend(mut_or_ref!($iter, search.filter).$iter());
                }
                AccessPath::TextSearch(search) => {
                    exprs.push(mut_or_ref!($iter, search.query));
                    if let Some((limit, offset)) = mut_or_ref!($iter, search.top) {
                        exprs.push(limit);
                        exprs.extend(offset.$iter());
                    }
                    exprs.extend(mut_or_ref!($iter, search.filter).$iter());
                }
            },
            PlanKind::Filter { input, predicate } => {
                exprs.push(predicate);
                inputs.push(input.$deref());
            }
            PlanKind::Project { input, exprs: list } => {
                exprs.extend(list.$iter());
                inputs.push(input.$deref());
            }
            PlanKind::Aggregate {
                input,
                group_by,
                aggregates,
            } => {
                exprs.extend(group_by.$iter());
                for call in aggregates {
                    exprs.extend(call.args.$iter());
                    exprs.extend(call.filter.$iter());
                    // Over the node's group keys, not its input (see AggregateCall).
                    exprs.extend(call.direct_args.$iter());
                    exprs.extend(
                        call.order_by
                            .$iter()
                            .map(|key| mut_or_ref!($iter, key.expr)),
                    );
                }
                inputs.push(input.$deref());
            }
            PlanKind::Window {
                input,
                partition_by,
                order_by,
                functions,
            } => {
                exprs.extend(partition_by.$iter());
                exprs.extend(order_by.$iter().map(|key| mut_or_ref!($iter, key.expr)));
                for call in functions {
                    exprs.extend(call.args.$iter());
                    exprs.extend(call.filter.$iter());
                    for bound in [
                        mut_or_ref!($iter, call.frame.start),
                        mut_or_ref!($iter, call.frame.end),
                    ] {
                        if let FrameBound::Preceding(offset) | FrameBound::Following(offset) = bound
                        {
                            exprs.push(offset);
                        }
                    }
                }
                inputs.push(input.$deref());
            }
            PlanKind::Sort { input, keys } => {
                exprs.extend(keys.$iter().map(|key| mut_or_ref!($iter, key.expr)));
                inputs.push(input.$deref());
            }
            PlanKind::TopN {
                input,
                keys,
                limit,
                offset,
            } => {
                exprs.extend(keys.$iter().map(|key| mut_or_ref!($iter, key.expr)));
                exprs.push(limit);
                exprs.extend(offset.$iter());
                inputs.push(input.$deref());
            }
            PlanKind::Limit {
                input,
                limit,
                offset,
            } => {
                exprs.extend(limit.$iter());
                exprs.extend(offset.$iter());
                inputs.push(input.$deref());
            }
            PlanKind::Distinct { input } | PlanKind::DistinctOn { input, .. } => {
                inputs.push(input.$deref())
            }
            PlanKind::NestedLoopJoin {
                left,
                right,
                condition,
                ..
            } => {
                exprs.extend(condition.$iter());
                inputs.push(left.$deref());
                inputs.push(right.$deref());
            }
            PlanKind::HashJoin {
                left,
                right,
                left_keys,
                right_keys,
                residual,
                ..
            } => {
                exprs.extend(left_keys.$iter());
                exprs.extend(right_keys.$iter());
                exprs.extend(residual.$iter());
                inputs.push(left.$deref());
                inputs.push(right.$deref());
            }
            PlanKind::IndexJoin {
                left,
                left_keys,
                residual,
                ..
            } => {
                exprs.extend(left_keys.$iter());
                exprs.extend(residual.$iter());
                inputs.push(left.$deref());
            }
            PlanKind::SetOperation { left, right, .. } => {
                inputs.push(left.$deref());
                inputs.push(right.$deref());
            }
            PlanKind::RecursiveUnion {
                base, recursive, ..
            } => {
                inputs.push(base.$deref());
                inputs.push(shared_part!($iter, recursive));
            }
            PlanKind::WorkingTableScan { .. } => {}
            PlanKind::GenerateSeries {
                input,
                start,
                stop,
                step,
            } => {
                exprs.push(start);
                exprs.push(stop);
                exprs.extend(step.$iter());
                inputs.push(input.$deref());
            }
            PlanKind::FunctionScan { input, args, .. } => {
                exprs.extend(args.$iter());
                inputs.push(input.$deref());
            }
            PlanKind::RankFusion {
                branches,
                k,
                weights,
            } => {
                exprs.push(k);
                exprs.extend(weights.$iter());
                inputs.extend(branches.$iter());
            }
            PlanKind::LateralSubquery {
                input,
                subquery,
                condition,
                ..
            } => {
                exprs.extend(condition.$iter());
                inputs.push(input.$deref());
                inputs.push(subquery.$deref());
            }
            PlanKind::Insert {
                source,
                on_conflict,
                returning,
                ..
            } => {
                exprs.extend(returning.$iter());
                if let ConflictAction::Update {
                    assignments,
                    condition,
                    ..
                } = on_conflict
                {
                    exprs.extend(assignments.$iter().map(|(_, expr)| expr));
                    exprs.extend(condition.$iter());
                }
                inputs.push(source.$deref());
            }
            PlanKind::Update {
                input,
                assignments,
                returning,
                ..
            } => {
                exprs.extend(assignments.$iter().map(|(_, expr)| expr));
                exprs.extend(returning.$iter());
                inputs.push(input.$deref());
            }
            PlanKind::Delete {
                input, returning, ..
            } => {
                exprs.extend(returning.$iter());
                inputs.push(input.$deref());
            }
        }
        (exprs, inputs)
    }};
}

/// `&key.expr` or `&mut key.expr`, matching the traversal's borrow.
macro_rules! mut_or_ref {
    (iter, $place:expr) => {
        &$place
    };
    (iter_mut, $place:expr) => {
        &mut $place
    };
}
#[allow(
    unused_imports,
    reason = "makes the macro nameable by path below its definition"
)]
use mut_or_ref;

/// The node inside an `Arc` input: borrowed, or made unique (copied only if shared) for
/// rewriting.
macro_rules! shared_part {
    (iter, $arc:expr) => {
        $arc.as_ref()
    };
    (iter_mut, $arc:expr) => {
        std::sync::Arc::make_mut($arc)
    };
}
#[allow(
    unused_imports,
    reason = "makes the macro nameable by path below its definition"
)]
use shared_part;

impl PlanKind {
    /// The expressions this node evaluates and its inputs.
    pub fn parts(&self) -> (Vec<&Expr>, Vec<&PlanNode>) {
        node_parts!(self, iter, as_ref)
    }

    /// The expressions this node evaluates and its inputs, for rewriting.
    pub fn parts_mut(&mut self) -> (Vec<&mut Expr>, Vec<&mut PlanNode>) {
        node_parts!(self, iter_mut, as_mut)
    }

    /// The node's inputs.
    pub fn children(&self) -> Vec<&PlanNode> {
        self.parts().1
    }

    /// The node's inputs, for rewriting.
    pub fn children_mut(&mut self) -> Vec<&mut PlanNode> {
        self.parts_mut().1
    }

    /// The expressions the node evaluates itself, for rewriting.
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        self.parts_mut().0
    }
}

impl PlanNode {
    /// Calls `f` on every expression of this node and of every node below it (not inside
    /// subquery plans held by those expressions).
    pub fn visit_exprs(&self, f: &mut impl FnMut(&Expr)) {
        let (exprs, inputs) = self.kind.parts();
        exprs.into_iter().for_each(&mut *f);
        for input in inputs {
            input.visit_exprs(f);
        }
    }
}
