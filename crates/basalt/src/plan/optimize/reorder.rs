//! Join order: a tree of inner joins (what comma lists bind to) is flattened into its inputs
//! and conjuncts, and the inputs are re-chained greedily so that each next input is connected
//! to the ones already joined by some conjunct — avoiding cross products that the FROM
//! order would otherwise build (`FROM t1, t2, t3 WHERE t1.a = t3.b AND t3.c = t2.d` joins
//! t1 with t3 first).
//!
//! Inner joins commute and associate under bag semantics, so only the row order changes (a
//! join has none to keep) and the column order, which a Project on top restores. The rule
//! runs before pushdown and emits one Filter over a left-deep chain of condition-free joins;
//! pushdown then places every conjunct. It gives up (leaves the tree alone) when a join
//! condition holds a conjunct that cannot be renumbered (subqueries, volatile functions).

use crate::plan::{Expr, JoinKind, OutputColumn, PlanKind, PlanNode};

use super::util::{columns_of, conjuncts, is_movable, map_columns, with_filter};

/// Reorders every inner-join tree in `node`.
pub fn reorder_joins(node: PlanNode) -> PlanNode {
    let PlanNode { kind, schema } = node;
    match kind {
        PlanKind::Filter { input, predicate }
            if matches!(
                input.kind,
                PlanKind::NestedLoopJoin {
                    kind: JoinKind::Inner,
                    ..
                }
            ) =>
        {
            reorder_tree(*input, conjuncts(predicate), schema)
        }
        PlanKind::NestedLoopJoin {
            kind: JoinKind::Inner,
            left,
            right,
            condition,
        } => {
            let join = PlanNode {
                kind: PlanKind::NestedLoopJoin {
                    kind: JoinKind::Inner,
                    left,
                    right,
                    condition,
                },
                schema: schema.clone(),
            };
            reorder_tree(join, Vec::new(), schema)
        }
        mut other => {
            for child in other.children_mut() {
                let taken = std::mem::replace(child, super::placeholder());
                *child = reorder_joins(taken);
            }
            PlanNode {
                kind: other,
                schema,
            }
        }
    }
}

/// Collects the inputs of an inner-join tree (in order) and its conditions' conjuncts,
/// renumbered over the concatenation of all inputs. `None` when a condition conjunct cannot
/// be renumbered.
fn flatten(node: PlanNode, offset: usize, leaves: &mut Vec<PlanNode>, out: &mut Vec<Expr>) -> bool {
    match node.kind {
        PlanKind::NestedLoopJoin {
            kind: JoinKind::Inner,
            left,
            right,
            condition,
        } => {
            let left_width = left.schema.len();
            if !flatten(*left, offset, leaves, out)
                || !flatten(*right, offset + left_width, leaves, out)
            {
                return false;
            }
            for conjunct in condition.map(conjuncts).unwrap_or_default() {
                if !is_movable(&conjunct) {
                    return false;
                }
                let mut conjunct = conjunct;
                map_columns(&mut conjunct, &mut |index, data_type| Expr::Column {
                    index: index + offset,
                    data_type,
                });
                out.push(conjunct);
            }
            true
        }
        kind => {
            leaves.push(reorder_joins(PlanNode {
                kind,
                schema: node.schema,
            }));
            true
        }
    }
}

fn reorder_tree(join: PlanNode, predicates: Vec<Expr>, schema: Vec<OutputColumn>) -> PlanNode {
    let original = join.clone();
    let mut leaves = Vec::new();
    let mut condition = Vec::new();
    if !flatten(join, 0, &mut leaves, &mut condition) || leaves.len() < 3 {
        // Keep the tree, but reorder inside its inputs.
        let PlanNode {
            mut kind,
            schema: join_schema,
        } = original;
        for child in kind.children_mut() {
            let taken = std::mem::replace(child, super::placeholder());
            *child = reorder_joins(taken);
        }
        return with_filter(
            PlanNode {
                kind,
                schema: join_schema,
            },
            predicates,
        );
    }
    // Which leaf each global column belongs to, and each leaf's first column.
    let mut starts = Vec::with_capacity(leaves.len());
    let mut owner = Vec::new();
    for (leaf_index, leaf) in leaves.iter().enumerate() {
        starts.push(owner.len());
        owner.extend(std::iter::repeat_n(leaf_index, leaf.schema.len()));
    }
    let (movable, fixed): (Vec<Expr>, Vec<Expr>) = predicates.into_iter().partition(is_movable);
    let all: Vec<Expr> = condition.into_iter().chain(movable).collect();
    let leaf_sets: Vec<Vec<usize>> = all
        .iter()
        .map(|expr| {
            let mut set: Vec<usize> = columns_of(expr)
                .into_iter()
                .filter_map(|c| owner.get(c).copied())
                .collect();
            set.dedup();
            set
        })
        .collect();

    let order = greedy_order(leaves.len(), &leaf_sets);
    if order.iter().copied().eq(0..leaves.len()) {
        // Already a good order: rebuild as one filter over the original chain.
        let mut fixed_and_all = all;
        fixed_and_all.extend(fixed);
        let join = unflattened_chain(leaves, &(0..starts.len()).collect::<Vec<_>>());
        return with_filter(join, fixed_and_all);
    }
    // New position of every original column.
    let mut new_position = vec![0; owner.len()];
    let mut next = 0;
    for &leaf in &order {
        let width = leaves.get(leaf).map_or(0, |l| l.schema.len());
        let start = starts.get(leaf).copied().unwrap_or(0);
        for (offset, slot) in new_position.iter_mut().skip(start).take(width).enumerate() {
            *slot = next + offset;
        }
        next += width;
    }
    let remapped: Vec<Expr> = all
        .into_iter()
        .map(|mut expr| {
            map_columns(&mut expr, &mut |index, data_type| Expr::Column {
                index: new_position.get(index).copied().unwrap_or(index),
                data_type,
            });
            expr
        })
        .collect();
    let chain = unflattened_chain(leaves, &order);
    let filtered = with_filter(chain, remapped);
    let exprs = schema
        .iter()
        .enumerate()
        .map(|(index, column)| Expr::Column {
            index: new_position.get(index).copied().unwrap_or(index),
            data_type: column.data_type,
        })
        .collect();
    let project = PlanNode {
        kind: PlanKind::Project {
            input: Box::new(filtered),
            exprs,
        },
        schema,
    };
    with_filter(project, fixed)
}

/// A left-deep chain of condition-free inner joins over `leaves` taken in `order`.
fn unflattened_chain(leaves: Vec<PlanNode>, order: &[usize]) -> PlanNode {
    let mut slots: Vec<Option<PlanNode>> = leaves.into_iter().map(Some).collect();
    let mut chain: Option<PlanNode> = None;
    for &leaf in order {
        let Some(node) = slots.get_mut(leaf).and_then(Option::take) else {
            continue;
        };
        chain = Some(match chain {
            None => node,
            Some(left) => {
                let schema = left.schema.iter().chain(&node.schema).cloned().collect();
                PlanNode {
                    kind: PlanKind::NestedLoopJoin {
                        left: Box::new(left),
                        right: Box::new(node),
                        kind: JoinKind::Inner,
                        condition: None,
                    },
                    schema,
                }
            }
        });
    }
    chain.unwrap_or_else(super::placeholder)
}

/// The join order: start with the input that has the most single-input conjuncts (ties: the
/// earliest), then repeatedly the earliest input connected to the joined ones by a conjunct
/// (preferring inputs that also have single-input conjuncts); a cross product only when
/// nothing is connected.
fn greedy_order(count: usize, leaf_sets: &[Vec<usize>]) -> Vec<usize> {
    let local = |leaf: usize| {
        leaf_sets
            .iter()
            .filter(|set| set.len() == 1 && set.first() == Some(&leaf))
            .count()
    };
    let mut chosen: Vec<usize> = Vec::with_capacity(count);
    let mut joined = vec![false; count];
    let first = (0..count)
        .max_by_key(|&leaf| (local(leaf), std::cmp::Reverse(leaf)))
        .unwrap_or(0);
    chosen.push(first);
    if let Some(flag) = joined.get_mut(first) {
        *flag = true;
    }
    while chosen.len() < count {
        let connected = |leaf: usize| {
            leaf_sets.iter().any(|set| {
                set.contains(&leaf)
                    && set.len() > 1
                    && set
                        .iter()
                        .all(|&other| other == leaf || joined.get(other) == Some(&true))
            })
        };
        let remaining = (0..count).filter(|&leaf| joined.get(leaf) == Some(&false));
        let next = remaining
            .clone()
            .filter(|&leaf| connected(leaf))
            .max_by_key(|&leaf| (local(leaf) > 0, std::cmp::Reverse(leaf)))
            .or_else(|| remaining.clone().next());
        let Some(next) = next else { break };
        chosen.push(next);
        if let Some(flag) = joined.get_mut(next) {
            *flag = true;
        }
    }
    chosen
}
