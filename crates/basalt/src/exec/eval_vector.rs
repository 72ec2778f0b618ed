//! The distance functions over a batch without a `Value` per row: `emb <-> $1` in a scan's
//! projection or an ORDER BY reads each row's vector as a slice of the column batch's `f32`
//! arena (which the scan filled from the page without a per-row allocation) and the query
//! vector once, and runs the SIMD kernel on the two slices.
//!
//! What it guarantees: the same results and errors as the row-by-row call of the registry
//! function (`types::functions::vector`) — NULL for a NULL operand, 22000 for different
//! dimensions — which [`crate::exec::eval`] falls back to for anything this does not cover.

use std::borrow::Cow;

use crate::plan::Expr;
use crate::types::vector::different_dimensions;
use crate::types::vector::kernels::{self, Metric};
use crate::types::{DataType, Value};

use super::batch::{Batch, ColumnData, ColumnVector};
use super::context::ExecContext;
use super::error::ExecResult;
use super::eval::{evaluate, evaluate_scalar};

/// The metric a distance function computes, and whether its result is negated
/// (`inner_product` is the negative of `<#>`'s distance).
fn distance_function(name: &str) -> Option<(Metric, bool)> {
    Some(match name {
        "l2_distance" => (Metric::L2, false),
        "vector_negative_inner_product" => (Metric::NegativeInnerProduct, false),
        "inner_product" => (Metric::NegativeInnerProduct, true),
        "cosine_distance" => (Metric::Cosine, false),
        "l1_distance" => (Metric::L1, false),
        _ => return None,
    })
}

/// One operand: a vector per row, or one value for every row (a constant or parameter). A
/// column of the input is borrowed, not copied: its arena is the batch's largest.
enum Operand<'b> {
    Column(Cow<'b, ColumnVector>),
    Constant(Option<Vec<f32>>),
}

impl<'b> Operand<'b> {
    fn of(expr: &Expr, batch: &'b Batch, ctx: &ExecContext) -> ExecResult<Option<Operand<'b>>> {
        if matches!(expr, Expr::Literal { .. } | Expr::Parameter { .. }) {
            return Ok(match evaluate_scalar(expr, ctx)? {
                Value::Vector(elements) => Some(Operand::Constant(Some(elements))),
                Value::Null => Some(Operand::Constant(None)),
                _ => None,
            });
        }
        let column = match expr {
            Expr::Column { index, .. } => match batch.columns.get(*index) {
                Some(column) => Cow::Borrowed(column),
                None => Cow::Owned(evaluate(expr, batch, ctx)?),
            },
            _ => Cow::Owned(evaluate(expr, batch, ctx)?),
        };
        Ok(matches!(column.data, ColumnData::Vector(_)).then_some(Operand::Column(column)))
    }

    /// Row `row`'s elements, `None` for NULL.
    fn get(&self, row: usize) -> Option<&[f32]> {
        match self {
            Operand::Constant(elements) => elements.as_deref(),
            Operand::Column(column) => match &column.data {
                ColumnData::Vector(values) if !column.is_null(row) => Some(values.get(row)),
                _ => None,
            },
        }
    }
}

/// `name(args)` for every row of `batch` when it is a distance function over two vector
/// operands; `None` when it is something else (the caller evaluates it row by row).
pub(super) fn try_distance(
    name: &str,
    args: &[Expr],
    batch: &Batch,
    ctx: &ExecContext,
    rows: usize,
) -> ExecResult<Option<ColumnVector>> {
    let (Some((metric, negate)), [left, right]) = (distance_function(name), args) else {
        return Ok(None);
    };
    let (Some(left), Some(right)) = (
        Operand::of(left, batch, ctx)?,
        Operand::of(right, batch, ctx)?,
    ) else {
        return Ok(None);
    };
    // A constant operand (the query of `ORDER BY emb <=> $1`) has its norm computed once.
    let constant = |operand: &Operand<'_>| match operand {
        Operand::Constant(Some(values)) => Some(kernels::inner_product(values, values)),
        _ => None,
    };
    let (left_norm2, right_norm2) = (constant(&left), constant(&right));
    let mut out = ColumnVector::with_capacity(DataType::Real, rows);
    for row in 0..rows {
        match (left.get(row), right.get(row)) {
            (Some(a), Some(b)) => {
                if a.len() != b.len() {
                    return Err(different_dimensions(a.len(), b.len()).into());
                }
                // Commutative, bit for bit: `a·b`, `|a|²|b|²` and the L2, L1 sums are the
                // same either way round.
                let distance = match (left_norm2, right_norm2) {
                    (_, Some(norm2)) => metric.distance_to_query(a, b, norm2),
                    (Some(norm2), None) => metric.distance_to_query(b, a, norm2),
                    (None, None) => metric.distance_unchecked(a, b),
                };
                out.push(&Value::Real(if negate { -distance } else { distance }));
            }
            _ => out.push_null(),
        }
    }
    Ok(Some(out))
}
