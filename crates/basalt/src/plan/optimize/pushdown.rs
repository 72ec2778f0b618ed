//! Predicate pushdown: every filter conjunct moves as far down the tree as the columns it
//! reads allow, so rows are dropped before joins multiply them and so that conjuncts end up
//! directly above the scans whose ranges they can narrow.
//!
//! Where a conjunct may go:
//! * through a Filter (merging with its conjuncts) and a Sort (a filter keeps the relative
//!   order of the rows it keeps, and the sort is stable);
//! * through a Project when every column it reads is a movable expression of the Project
//!   (the conjunct is rewritten over the Project's input);
//! * into an inner join's left or right input when it reads only that side's columns
//!   (renumbered for the right side), into the join condition when it reads both;
//! * for LEFT joins, WHERE conjuncts on the left columns go into the left input and ON
//!   conjuncts on the right columns into the right input — nothing else moves, because the
//!   NULL-extended rows depend on exactly which pairs matched (RIGHT joins mirror this;
//!   FULL joins move nothing);
//! * for SEMI / ANTI joins (output = left columns), conjuncts from above go into the left
//!   input, ON conjuncts on the right columns into the right input, and for SEMI joins ON
//!   conjuncts on the left columns into the left input.
//!
//! Conjuncts that contain subqueries or volatile functions never move (see
//! [`util::is_movable`]); conjuncts reading no column go to the leftmost input, the earliest
//! point they can cut rows.

use crate::plan::Expr;
use crate::plan::{JoinKind, PlanKind, PlanNode};

use super::util::{columns_of, conjuncts, is_movable, map_columns, shift_columns, with_filter};

/// `node` with `predicates` (over its output) applied, pushed as far down as they go, and
/// every filter below pushed down too.
pub fn push_down(node: PlanNode, predicates: Vec<Expr>) -> PlanNode {
    let PlanNode { kind, schema } = node;
    match kind {
        PlanKind::Filter { input, predicate } => {
            let mut all = conjuncts(predicate);
            all.extend(predicates);
            push_down(*input, all)
        }
        PlanKind::Sort { input, keys } => PlanNode {
            kind: PlanKind::Sort {
                input: Box::new(push_down(*input, predicates)),
                keys,
            },
            schema,
        },
        PlanKind::Project { input, exprs } => {
            let mut below = Vec::new();
            let mut above = Vec::new();
            for predicate in predicates {
                match through_project(&predicate, &exprs) {
                    Some(rewritten) => below.push(rewritten),
                    None => above.push(predicate),
                }
            }
            let node = PlanNode {
                kind: PlanKind::Project {
                    input: Box::new(push_down(*input, below)),
                    exprs,
                },
                schema,
            };
            with_filter(node, above)
        }
        PlanKind::NestedLoopJoin {
            left,
            right,
            kind,
            condition,
        } => push_into_join(*left, *right, kind, condition, predicates, schema),
        // Conjuncts over the input's columns alone (they come first, at the same positions)
        // filter the rows the function is called for, as PostgreSQL pushes them below a
        // LATERAL function: fewer calls, and no call on rows the query excludes.
        PlanKind::FunctionScan {
            input,
            function,
            args,
        } => {
            let (below, above) = over_input_only(predicates, input.schema.len());
            let node = PlanNode {
                kind: PlanKind::FunctionScan {
                    input: Box::new(push_down(*input, below)),
                    function,
                    args,
                },
                schema,
            };
            with_filter(node, above)
        }
        // The same for a LATERAL subquery: conjuncts over the left items' columns run
        // before the subquery does. (Above a LEFT JOIN LATERAL they come from WHERE and
        // read the preserved side, so filtering its rows first is the same.)
        PlanKind::LateralSubquery {
            input,
            subquery,
            outer,
            condition,
        } => {
            let (below, above) = over_input_only(predicates, input.schema.len());
            let node = PlanNode {
                kind: PlanKind::LateralSubquery {
                    input: Box::new(push_down(*input, below)),
                    subquery: Box::new(push_down(*subquery, Vec::new())),
                    outer,
                    condition,
                },
                schema,
            };
            with_filter(node, above)
        }
        other => {
            let node = PlanNode {
                kind: push_into_children(other),
                schema,
            };
            with_filter(node, predicates)
        }
    }
}

/// Splits conjuncts above a node whose output starts with its input's `width` columns into
/// those that read only those columns (and may move below it) and the rest.
fn over_input_only(predicates: Vec<Expr>, width: usize) -> (Vec<Expr>, Vec<Expr>) {
    predicates.into_iter().partition(|predicate| {
        is_movable(predicate) && columns_of(predicate).iter().all(|&index| index < width)
    })
}

/// The conjunct rewritten over a Project's input, if every column it reads is a movable
/// expression of the Project.
fn through_project(predicate: &Expr, exprs: &[Expr]) -> Option<Expr> {
    if !is_movable(predicate) {
        return None;
    }
    let columns = columns_of(predicate);
    if columns
        .iter()
        .any(|&index| exprs.get(index).is_none_or(|expr| !is_movable(expr)))
    {
        return None;
    }
    let mut rewritten = predicate.clone();
    map_columns(&mut rewritten, &mut |index, data_type| {
        exprs
            .get(index)
            .cloned()
            .unwrap_or(Expr::Column { index, data_type })
    });
    Some(rewritten)
}

/// Where one conjunct of a join goes.
enum Place {
    Left,
    Right,
    Condition,
    Above,
}

fn push_into_join(
    left: PlanNode,
    right: PlanNode,
    kind: JoinKind,
    condition: Option<Expr>,
    predicates: Vec<Expr>,
    schema: Vec<crate::plan::OutputColumn>,
) -> PlanNode {
    let left_width = left.schema.len();
    let right_width = right.schema.len();
    // Which sides a movable conjunct reads: (reads left, reads right).
    let sides = |expr: &Expr| -> Option<(bool, bool)> {
        if !is_movable(expr) {
            return None;
        }
        let columns = columns_of(expr);
        Some((
            columns.iter().any(|&c| c < left_width),
            columns
                .iter()
                .any(|&c| c >= left_width && c < left_width + right_width),
        ))
    };
    let mut left_predicates = Vec::new();
    let mut right_predicates = Vec::new();
    let mut kept_condition = Vec::new();
    let mut above = Vec::new();
    let mut place = |expr: Expr, place: Place| match place {
        Place::Left => left_predicates.push(expr),
        Place::Right => right_predicates.push(shift_columns(expr, left_width)),
        Place::Condition => kept_condition.push(expr),
        Place::Above => above.push(expr),
    };

    // Conjuncts of the ON condition (or of an inner join's condition).
    for expr in condition.map(conjuncts).unwrap_or_default() {
        let target = match (kind, sides(&expr)) {
            (_, None) => Place::Condition,
            (JoinKind::Inner, Some((false, false))) => Place::Left,
            (JoinKind::Inner | JoinKind::Semi, Some((true, false))) => Place::Left,
            (
                JoinKind::Inner | JoinKind::Left | JoinKind::Semi | JoinKind::Anti,
                Some((false, true)),
            ) => Place::Right,
            (JoinKind::Right, Some((true, false))) => Place::Left,
            _ => Place::Condition,
        };
        place(expr, target);
    }
    // Conjuncts from filters above the join (over its output row).
    for expr in predicates {
        let target = match (kind, sides(&expr)) {
            (_, None) => Place::Above,
            (JoinKind::Inner, Some((true, true))) => Place::Condition,
            (JoinKind::Inner, Some((false, true))) => Place::Right,
            (JoinKind::Inner | JoinKind::Left, Some((_, false))) => Place::Left,
            // The output of SEMI / ANTI joins is the left row.
            (JoinKind::Semi | JoinKind::Anti, Some(_)) => Place::Left,
            (JoinKind::Right, Some((false, true))) => Place::Right,
            _ => Place::Above,
        };
        place(expr, target);
    }

    let node = PlanNode {
        kind: PlanKind::NestedLoopJoin {
            left: Box::new(push_down(left, left_predicates)),
            right: Box::new(push_down(right, right_predicates)),
            kind,
            condition: super::util::and_all(kept_condition),
        },
        schema,
    };
    with_filter(node, above)
}

/// A node whose children get no conjuncts from above, with pushdown applied inside them.
fn push_into_children(mut kind: PlanKind) -> PlanKind {
    for child in kind.children_mut() {
        let taken = std::mem::replace(child, super::placeholder());
        *child = push_down(taken, Vec::new());
    }
    kind
}
