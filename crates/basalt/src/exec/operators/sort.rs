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

/// `ORDER BY ... LIMIT n OFFSET m` without sorting the whole input: keeps the best `n + m`
/// rows seen so far in a max-heap (by sort key, then arrival order, so ties keep input order
/// exactly as the stable [`Sort`] does) and skips any row that cannot enter it. Memory is
/// bounded by about twice `n + m` rows, whatever the input size.
#[derive(Debug)]
pub struct TopN {
    input: Option<Box<dyn Operator>>,
    keys: Vec<SortKey>,
    orders: Vec<KeyOrder>,
    limit: Option<u64>,
    offset: u64,
    types: Vec<DataType>,
    output: Emitter,
}

impl TopN {
    pub fn new(
        input: Box<dyn Operator>,
        keys: Vec<SortKey>,
        limit: &crate::plan::Expr,
        offset: Option<&crate::plan::Expr>,
        types: Vec<DataType>,
        ctx: &ExecContext,
    ) -> ExecResult<Self> {
        let orders = keys
            .iter()
            .map(|key| KeyOrder {
                descending: key.descending,
                nulls_first: key.nulls_first,
            })
            .collect();
        Ok(TopN {
            input: Some(input),
            keys,
            orders,
            limit: super::basic::count_argument(Some(limit), ctx, "LIMIT")?,
            offset: super::basic::count_argument(offset, ctx, "OFFSET")?.unwrap_or(0),
            types,
            output: Emitter::default(),
        })
    }

    /// Reads the whole input, keeping the first `wanted` rows in key order.
    fn select(
        &mut self,
        input: &mut dyn Operator,
        wanted: usize,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        // Candidates live in `kept`; the heap holds (key, arrival, position in `kept`) of the
        // best `wanted` so far, worst on top. Rows evicted from the heap stay in `kept` until
        // it is compacted.
        let mut kept = Batch::with_types(&self.types, wanted.min(BATCH_SIZE));
        let mut heap: std::collections::BinaryHeap<(Vec<u8>, u64, u32)> =
            std::collections::BinaryHeap::with_capacity(wanted.min(BATCH_SIZE) + 1);
        let mut arrival = 0u64;
        let mut key = Vec::new();
        while let Some(batch) = input.next(ctx)? {
            let key_columns = self
                .keys
                .iter()
                .map(|sort_key| eval::evaluate(&sort_key.expr, &batch, ctx))
                .collect::<ExecResult<Vec<_>>>()?;
            for row in 0..batch.rows {
                key.clear();
                for (column, order) in key_columns.iter().zip(&self.orders) {
                    encode_cell(column, row, *order, &mut key);
                }
                arrival += 1;
                if heap.len() == wanted
                    && heap
                        .peek()
                        .is_some_and(|worst| key.as_slice() >= worst.0.as_slice())
                {
                    continue;
                }
                for (to, from) in kept.columns.iter_mut().zip(&batch.columns) {
                    to.push_from(from, row);
                }
                kept.rows += 1;
                heap.push((key.clone(), arrival, (kept.rows - 1) as u32));
                if heap.len() > wanted {
                    heap.pop();
                }
            }
            if kept.rows > wanted.saturating_mul(2).max(BATCH_SIZE) {
                let mut entries = std::mem::take(&mut heap).into_vec();
                let positions: Vec<u32> = entries.iter().map(|entry| entry.2).collect();
                kept = kept.gather(&positions);
                for (new_position, entry) in entries.iter_mut().enumerate() {
                    entry.2 = new_position as u32;
                }
                heap = entries.into();
            }
        }
        let sorted = heap.into_sorted_vec();
        let positions: Vec<u32> = sorted
            .iter()
            .skip(self.offset as usize)
            .map(|entry| entry.2)
            .collect();
        self.output = Emitter::new(kept, positions);
        Ok(())
    }
}

impl Operator for TopN {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if let Some(mut input) = self.input.take() {
            match self.limit {
                // LIMIT NULL / ALL: a full sort, then skip the offset.
                None => {
                    let mut sort = Sort::new(input, self.keys.clone(), self.types.clone());
                    let batches = collect(&mut sort, ctx)?;
                    let all = concatenate(&batches, &self.types);
                    let positions =
                        (self.offset.min(all.rows as u64) as u32..all.rows as u32).collect();
                    self.output = Emitter::new(all, positions);
                }
                Some(limit) => {
                    let wanted = limit.saturating_add(self.offset);
                    if wanted > 0 {
                        let wanted = usize::try_from(wanted).unwrap_or(usize::MAX);
                        self.select(input.as_mut(), wanted, ctx)?;
                    }
                }
            }
        }
        Ok(self.output.next_batch())
    }
}
