//! Reciprocal rank fusion (`rrf(...)` in FROM; [`PlanKind::RankFusion`]).
//!
//! Each branch runs to completion, in plan order; its n-th row (from 1) adds
//! `weight / (k + n)` to the score of its key (the row's first column). Keys are told apart by
//! their ascending row-key encoding (`exec::row_key`), so keys SQL calls equal (NULLs
//! included, as GROUP BY groups them) share one score. The output is every key once with its
//! score, highest first, ties by key ascending (NULL last): deterministic, and the order
//! `ORDER BY score DESC, key` asks for. Branches are ranked lists, usually a LIMIT's worth of
//! rows each, so the table is small; it is not spilled.
//!
//! The scores are the long form's (docs/sql.md: `weight / (k + row_number())` summed per key),
//! computed in the same order, so the two agree bit for bit when the long form adds the
//! branches in the same order.
//!
//! [`PlanKind::RankFusion`]: crate::plan::PlanKind::RankFusion

use std::cmp::Ordering;

use crate::exec::batch::{Batch, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::exec::row_key::RowKeyMap;
use crate::exec::row_key::equality_key;
use crate::plan::Expr;
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::Operator;

/// Rows per output batch.
const BATCH_ROWS: usize = 1024;

/// One key's fused score.
#[derive(Debug)]
struct Fused {
    /// The key's ascending encoding (the tie-break order).
    encoded: Vec<u8>,
    /// The key as the first branch that ranked it returned it.
    key: Value,
    score: f64,
}

#[derive(Debug)]
pub struct RankFusion {
    branches: Vec<Box<dyn Operator>>,
    k: Expr,
    weights: Vec<Expr>,
    key_type: DataType,
    /// The fused rows, best last (popped from the end), once the branches have run.
    fused: Option<Vec<Fused>>,
}

impl RankFusion {
    pub fn new(
        branches: Vec<Box<dyn Operator>>,
        k: Expr,
        weights: Vec<Expr>,
        key_type: DataType,
    ) -> RankFusion {
        RankFusion {
            branches,
            k,
            weights,
            key_type,
            fused: None,
        }
    }

    /// Runs every branch and returns the keys with their scores, worst first.
    fn fuse(&mut self, ctx: &ExecContext) -> ExecResult<Vec<Fused>> {
        let k = number(&self.k, ctx, "k")?;
        let mut weights = Vec::with_capacity(self.weights.len());
        for weight in &self.weights {
            weights.push(number(weight, ctx, "weight")?);
        }
        // Key encoding -> (the key as first returned, score so far).
        let mut scores: RowKeyMap<(Value, f64)> = RowKeyMap::default();
        let mut encoded = Vec::new();
        for (branch, weight) in self.branches.iter_mut().zip(weights) {
            let mut rank = 0u64;
            while let Some(batch) = branch.next(ctx)? {
                let Some(keys) = batch.columns.first() else {
                    continue;
                };
                for row in 0..batch.rows {
                    rank += 1;
                    let contribution = weight / (k + rank as f64);
                    equality_key(&[keys], row, &mut encoded);
                    match scores.get_mut(&encoded) {
                        Some((_, score)) => *score += contribution,
                        None => {
                            scores.insert(encoded.clone(), (keys.get(row), contribution));
                        }
                    }
                }
            }
        }
        let mut fused: Vec<Fused> = scores
            .into_iter()
            .map(|(encoded, (key, score))| Fused {
                encoded,
                key,
                score,
            })
            .collect();
        // Worst first, so the output pops the best from the end.
        fused.sort_by(|a, b| match a.score.total_cmp(&b.score) {
            Ordering::Equal => b.encoded.cmp(&a.encoded),
            other => other,
        });
        Ok(fused)
    }
}

/// `k` or a weight: finite and not negative.
fn number(expr: &Expr, ctx: &ExecContext, what: &str) -> ExecResult<f64> {
    let value = eval::evaluate_scalar(expr, ctx)?;
    let number = match value {
        Value::Real(number) => Some(number),
        Value::Integer(number) => Some(number as f64),
        _ => None,
    };
    match number {
        Some(number) if number.is_finite() && number >= 0.0 => Ok(number),
        _ => Err(ExecError::new(
            sqlstate::INVALID_PARAMETER_VALUE,
            format!("rrf's {what} must be a finite number that is not negative, not {value}"),
        )),
    }
}

impl Operator for RankFusion {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if self.fused.is_none() {
            self.fused = Some(self.fuse(ctx)?);
        }
        let Some(fused) = self.fused.as_mut().filter(|fused| !fused.is_empty()) else {
            return Ok(None);
        };
        let mut keys = ColumnVector::with_capacity(self.key_type, BATCH_ROWS.min(fused.len()));
        let mut scores = ColumnVector::with_capacity(DataType::Real, BATCH_ROWS.min(fused.len()));
        let mut rows = 0;
        while rows < BATCH_ROWS
            && let Some(entry) = fused.pop()
        {
            keys.push(&entry.key);
            scores.push(&Value::Real(entry.score));
            rows += 1;
        }
        Ok(Some(Batch {
            columns: vec![keys, scores],
            rows,
        }))
    }
}
