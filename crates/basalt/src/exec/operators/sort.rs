//! Sorting and duplicate removal.

use std::collections::HashSet;

use crate::exec::context::ExecContext;
use crate::exec::error::ExecResult;
use crate::exec::eval;
use crate::exec::row_key::{encode_cell, equality_key};
use crate::exec::vector::{BATCH_SIZE, Batch};
use crate::plan::SortKey;
use crate::storage::keys::KeyOrder;
use crate::types::DataType;

use super::{Operator, collect};

/// Concatenates batches into one.
pub fn concatenate(batches: &[Batch], types: &[DataType]) -> Batch {
    let total = batches.iter().map(|b| b.rows).sum();
    let mut out = Batch::with_types(types, total);
    for batch in batches {
        for (to, from) in out.columns.iter_mut().zip(&batch.columns) {
            for row in 0..batch.rows {
                to.push_from(from, row);
            }
        }
        out.rows += batch.rows;
    }
    out
}

/// Emits `batch` in slices of at most [`BATCH_SIZE`] rows, in the order of `positions`.
#[derive(Debug, Default)]
pub struct Emitter {
    batch: Batch,
    positions: Vec<u32>,
    next: usize,
}

impl Emitter {
    pub fn new(batch: Batch, positions: Vec<u32>) -> Self {
        Emitter {
            batch,
            positions,
            next: 0,
        }
    }

    pub fn next_batch(&mut self) -> Option<Batch> {
        if self.next >= self.positions.len() {
            return None;
        }
        let end = (self.next + BATCH_SIZE).min(self.positions.len());
        let out = self.batch.gather(&self.positions[self.next..end]);
        self.next = end;
        Some(out)
    }
}

/// Sorts its whole input (stable) by the keys.
#[derive(Debug)]
pub struct Sort {
    input: Option<Box<dyn Operator>>,
    keys: Vec<SortKey>,
    types: Vec<DataType>,
    output: Emitter,
}

impl Sort {
    pub fn new(input: Box<dyn Operator>, keys: Vec<SortKey>, types: Vec<DataType>) -> Self {
        Sort {
            input: Some(input),
            keys,
            types,
            output: Emitter::default(),
        }
    }
}

impl Operator for Sort {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if let Some(mut input) = self.input.take() {
            let batches = collect(input.as_mut(), ctx)?;
            let all = concatenate(&batches, &self.types);
            let key_columns = self
                .keys
                .iter()
                .map(|key| eval::evaluate(&key.expr, &all, ctx))
                .collect::<ExecResult<Vec<_>>>()?;
            let orders: Vec<KeyOrder> = self
                .keys
                .iter()
                .map(|key| KeyOrder {
                    descending: key.descending,
                    nulls_first: key.nulls_first,
                })
                .collect();
            let mut sort_keys: Vec<(Vec<u8>, u32)> = (0..all.rows)
                .map(|row| {
                    let mut key = Vec::new();
                    for (column, order) in key_columns.iter().zip(&orders) {
                        encode_cell(column, row, *order, &mut key);
                    }
                    (key, row as u32)
                })
                .collect();
            // Ties keep input order: the row number is part of the sort key.
            sort_keys.sort_unstable();
            self.output = Emitter::new(all, sort_keys.into_iter().map(|(_, row)| row).collect());
        }
        Ok(self.output.next_batch())
    }
}

/// Removes duplicate rows (NULLs equal), keeping the first of each.
#[derive(Debug)]
pub struct Distinct {
    input: Box<dyn Operator>,
    seen: HashSet<Vec<u8>>,
}

impl Distinct {
    pub fn new(input: Box<dyn Operator>) -> Self {
        Distinct {
            input,
            seen: HashSet::new(),
        }
    }
}

impl Operator for Distinct {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        let Some(batch) = self.input.next(ctx)? else {
            return Ok(None);
        };
        let columns: Vec<_> = batch.columns.iter().collect();
        let mut key = Vec::new();
        let mut keep = Vec::new();
        for row in 0..batch.rows {
            equality_key(&columns, row, &mut key);
            if self.seen.insert(key.clone()) {
                keep.push(row as u32);
            }
        }
        Ok(Some(batch.gather(&keep)))
    }
}
