//! Hash joins: a nested-loop join whose condition contains `left_expr = right_expr`
//! conjuncts becomes a hash join on those keys, with the other conjuncts as its residual.
//!
//! Why this preserves results: the executor's hash join pairs rows whose keys have equal
//! canonical encodings and skips NULL keys, which for two operands *of the same type* is
//! exactly when `=` is true (−0.0 = 0.0 and NaN = NaN in both). Pairs that fail the residual
//! are treated as non-matches, just like a nested loop's failed condition, so LEFT / RIGHT /
//! FULL / SEMI / ANTI joins keep their meaning. Operands of different types are left in the
//! residual: the binder already casts comparison operands to a common type, and a cast we
//! would add here (e.g. integer to real) could merge distinct large integers that the
//! evaluator's exact integer/real comparison keeps apart.

use crate::plan::{BinaryOp, Expr, PlanKind, PlanNode};

use super::util::{and_all, columns_of, conjuncts, is_movable, shift_columns};

/// The hash join equivalent of a nested-loop join, or the join unchanged.
pub fn to_hash_join(node: PlanNode) -> PlanNode {
    let PlanNode { kind, schema } = node;
    let PlanKind::NestedLoopJoin {
        left,
        right,
        kind: join_kind,
        condition: Some(condition),
    } = kind
    else {
        return PlanNode { kind, schema };
    };
    let left_width = left.schema.len();
    let right_width = right.schema.len();
    let mut left_keys = Vec::new();
    let mut right_keys = Vec::new();
    let mut residual = Vec::new();
    for conjunct in conjuncts(condition) {
        match equi_key(&conjunct, left_width, right_width) {
            Some((left_key, right_key)) => {
                left_keys.push(left_key);
                right_keys.push(right_key);
            }
            None => residual.push(conjunct),
        }
    }
    let kind = if left_keys.is_empty() {
        PlanKind::NestedLoopJoin {
            left,
            right,
            kind: join_kind,
            condition: and_all(residual),
        }
    } else {
        PlanKind::HashJoin {
            left,
            right,
            kind: join_kind,
            left_keys,
            right_keys,
            residual: and_all(residual),
        }
    };
    PlanNode { kind, schema }
}

/// `(left key over the left input, right key over the right input)` when `conjunct` is an
/// equality between an expression of the left columns only and one of the right columns
/// only, both of the same type.
pub fn equi_key(conjunct: &Expr, left_width: usize, right_width: usize) -> Option<(Expr, Expr)> {
    let Expr::Binary {
        op: BinaryOp::Equal,
        left,
        right,
        ..
    } = conjunct
    else {
        return None;
    };
    if !is_movable(left)
        || !is_movable(right)
        || left.data_type().unmodified() != right.data_type().unmodified()
    {
        return None;
    }
    let side = |expr: &Expr| -> Option<bool> {
        let columns = columns_of(expr);
        let first = columns.first()?;
        let is_left = *first < left_width;
        let consistent = columns.iter().all(|&c| {
            if is_left {
                c < left_width
            } else {
                c >= left_width && c < left_width + right_width
            }
        });
        consistent.then_some(is_left)
    };
    match (side(left)?, side(right)?) {
        (true, false) => Some((
            (**left).clone(),
            shift_columns((**right).clone(), left_width),
        )),
        (false, true) => Some((
            (**right).clone(),
            shift_columns((**left).clone(), left_width),
        )),
        _ => None,
    }
}
