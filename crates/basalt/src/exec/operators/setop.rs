//! UNION, INTERSECT and EXCEPT, with and without ALL.

use std::collections::HashMap;

use crate::exec::context::ExecContext;
use crate::exec::error::ExecResult;
use crate::exec::row_key::equality_key;
use crate::exec::vector::Batch;
use crate::plan::SetOperator;
use crate::types::DataType;

use super::sort::{Emitter, concatenate};
use super::{Operator, collect};

/// A set operation over two inputs with the same column types.
#[derive(Debug)]
pub struct SetOperation {
    inputs: Option<(Box<dyn Operator>, Box<dyn Operator>)>,
    operator: SetOperator,
    all: bool,
    types: Vec<DataType>,
    output: Emitter,
}

impl SetOperation {
    pub fn new(
        left: Box<dyn Operator>,
        right: Box<dyn Operator>,
        operator: SetOperator,
        all: bool,
        types: Vec<DataType>,
    ) -> Self {
        SetOperation {
            inputs: Some((left, right)),
            operator,
            all,
            types,
            output: Emitter::default(),
        }
    }
}

fn row_keys(batch: &Batch) -> Vec<Vec<u8>> {
    let columns: Vec<_> = batch.columns.iter().collect();
    (0..batch.rows)
        .map(|row| {
            let mut key = Vec::new();
            equality_key(&columns, row, &mut key);
            key
        })
        .collect()
}

impl Operator for SetOperation {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if let Some((mut left, mut right)) = self.inputs.take() {
            let left = concatenate(&collect(left.as_mut(), ctx)?, &self.types);
            let right = concatenate(&collect(right.as_mut(), ctx)?, &self.types);
            let (batch, positions) = match self.operator {
                SetOperator::Union => {
                    let both = concatenate(&[left, right], &self.types);
                    let positions: Vec<u32> = if self.all {
                        (0..both.rows as u32).collect()
                    } else {
                        let mut seen = std::collections::HashSet::new();
                        row_keys(&both)
                            .into_iter()
                            .enumerate()
                            .filter_map(|(row, key)| seen.insert(key).then_some(row as u32))
                            .collect()
                    };
                    (both, positions)
                }
                SetOperator::Intersect | SetOperator::Except => {
                    let mut right_counts: HashMap<Vec<u8>, usize> = HashMap::new();
                    for key in row_keys(&right) {
                        *right_counts.entry(key).or_default() += 1;
                    }
                    let mut emitted: HashMap<Vec<u8>, usize> = HashMap::new();
                    let intersect = self.operator == SetOperator::Intersect;
                    let positions = row_keys(&left)
                        .into_iter()
                        .enumerate()
                        .filter_map(|(row, key)| {
                            let in_right = right_counts.get(&key).copied().unwrap_or(0);
                            let count = emitted.entry(key).or_default();
                            let keep = match (intersect, self.all) {
                                // INTERSECT ALL: min(left count, right count) copies.
                                (true, true) => *count < in_right,
                                (true, false) => *count == 0 && in_right > 0,
                                // EXCEPT ALL: left count − right count copies.
                                (false, true) => {
                                    *count += 1;
                                    return (*count > in_right).then_some(row as u32);
                                }
                                (false, false) => *count == 0 && in_right == 0,
                            };
                            if keep {
                                *count += 1;
                            }
                            keep.then_some(row as u32)
                        })
                        .collect();
                    (left, positions)
                }
            };
            self.output = Emitter::new(batch, positions);
        }
        Ok(self.output.next_batch())
    }
}
