//! Sorting: ORDER BY (`Sort`, spilling through `external_sort` past the memory budget) and
//! ORDER BY with LIMIT (`TopN`), plus the helpers other operators use to gather batches.

use std::collections::BinaryHeap;

use crate::exec::batch::{BATCH_SIZE, Batch, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::ExecResult;
use crate::exec::eval;
use crate::plan::SortKey;
use crate::storage::keys::KeyOrder;
use crate::types::DataType;

use super::Operator;
use super::external_sort::{SortedRows, Sorter, encode_sort_key};

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

/// Sorts its whole input (stable) by the keys: in memory, or by an external merge sort when
/// the input outgrows the operator memory budget (`external_sort`).
#[derive(Debug)]
pub struct Sort {
    input: Option<Box<dyn Operator>>,
    keys: Vec<SortKey>,
    types: Vec<DataType>,
    output: SortedRows,
}

impl Sort {
    pub fn new(input: Box<dyn Operator>, keys: Vec<SortKey>, types: Vec<DataType>) -> Self {
        Sort {
            input: Some(input),
            keys,
            types,
            output: SortedRows::default(),
        }
    }
}

/// The key orders of `keys`.
fn key_orders(keys: &[SortKey]) -> Vec<KeyOrder> {
    keys.iter()
        .map(|key| KeyOrder {
            descending: key.descending,
            nulls_first: key.nulls_first,
        })
        .collect()
}

/// The sort keys evaluated over `batch`.
fn key_columns(
    keys: &[SortKey],
    batch: &Batch,
    ctx: &ExecContext,
) -> ExecResult<Vec<ColumnVector>> {
    eval::evaluate_all(keys.iter().map(|key| &key.expr), batch, ctx)
}

/// Feeds every batch of `input` to `sorter` with its sort keys.
fn sort_input(
    input: &mut dyn Operator,
    keys: &[SortKey],
    orders: &[KeyOrder],
    sorter: &mut Sorter,
    ctx: &ExecContext,
) -> ExecResult<()> {
    while let Some(batch) = input.next(ctx)? {
        if batch.rows == 0 {
            continue;
        }
        let key_columns = key_columns(keys, &batch, ctx)?;
        sorter.push(
            batch,
            |row, key| encode_sort_key(&key_columns, orders, row, key),
            ctx,
        )?;
    }
    Ok(())
}

impl Operator for Sort {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if let Some(mut input) = self.input.take() {
            let orders = key_orders(&self.keys);
            let mut sorter = Sorter::new(self.types.clone(), ctx.operator_memory);
            sort_input(input.as_mut(), &self.keys, &orders, &mut sorter, ctx)?;
            self.output = sorter.finish(ctx)?;
        }
        self.output.next_batch(ctx)
    }
}

/// `ORDER BY ... LIMIT n OFFSET m` without sorting the whole input: keeps the best `n + m`
/// rows seen so far in a max-heap (by sort key, then arrival order, so ties keep input order
/// exactly as the stable [`Sort`] does) and skips any row that cannot enter it. Memory is
/// bounded by about twice `n + m` rows, whatever the input size — unless those rows outgrow
/// the operator memory budget (a huge LIMIT), in which case the kept rows and the rest of the
/// input go through the external sort instead, still skipping rows that cannot make the cut.
#[derive(Debug)]
pub struct TopN {
    input: Option<Box<dyn Operator>>,
    keys: Vec<SortKey>,
    orders: Vec<KeyOrder>,
    limit: Option<u64>,
    offset: u64,
    types: Vec<DataType>,
    output: Window,
}

/// Sorted rows after skipping the first `skip`, at most `remaining` of them.
#[derive(Debug, Default)]
struct Window {
    rows: SortedRows,
    skip: u64,
    remaining: u64,
}

impl Window {
    fn next_batch(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        while self.remaining > 0 {
            let Some(batch) = self.rows.next_batch(ctx)? else {
                break;
            };
            let start = self.skip.min(batch.rows as u64);
            self.skip -= start;
            let end = start.saturating_add(self.remaining).min(batch.rows as u64);
            if start == end {
                continue;
            }
            self.remaining -= end - start;
            if start == 0 && end == batch.rows as u64 {
                return Ok(Some(batch));
            }
            let positions: Vec<u32> = (start as u32..end as u32).collect();
            return Ok(Some(batch.gather(&positions)));
        }
        Ok(None)
    }
}

/// A heap entry of [`TopN`]: sort key, arrival number, position in the kept rows.
type Candidate = (Vec<u8>, u64, u32);

impl TopN {
    pub fn new(
        input: Box<dyn Operator>,
        keys: Vec<SortKey>,
        limit: &crate::plan::Expr,
        offset: Option<&crate::plan::Expr>,
        types: Vec<DataType>,
        ctx: &ExecContext,
    ) -> ExecResult<Self> {
        let orders = key_orders(&keys);
        Ok(TopN {
            input: Some(input),
            keys,
            orders,
            limit: super::basic::count_argument(Some(limit), ctx, "LIMIT")?,
            offset: super::basic::count_argument(offset, ctx, "OFFSET")?.unwrap_or(0),
            types,
            output: Window::default(),
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
        let mut heap: BinaryHeap<Candidate> = BinaryHeap::with_capacity(wanted.min(BATCH_SIZE) + 1);
        let mut heap_key_bytes = 0usize;
        let mut arrival = 0u64;
        let mut key = Vec::new();
        while let Some(batch) = input.next(ctx)? {
            let key_columns = key_columns(&self.keys, &batch, ctx)?;
            for row in 0..batch.rows {
                key.clear();
                encode_sort_key(&key_columns, &self.orders, row, &mut key);
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
                heap_key_bytes += key.len();
                heap.push((key.clone(), arrival, (kept.rows - 1) as u32));
                if heap.len() > wanted
                    && let Some(evicted) = heap.pop()
                {
                    heap_key_bytes -= evicted.0.len();
                }
            }
            let over_budget = kept.estimated_bytes() + heap_key_bytes > ctx.operator_memory;
            if kept.rows > wanted.saturating_mul(2).max(BATCH_SIZE) || over_budget {
                let mut entries = std::mem::take(&mut heap).into_vec();
                let positions: Vec<u32> = entries.iter().map(|entry| entry.2).collect();
                kept = kept.gather(&positions);
                for (new_position, entry) in entries.iter_mut().enumerate() {
                    entry.2 = new_position as u32;
                }
                heap = entries.into();
                // Compacting leaves only the heap's rows; if even they take half the budget,
                // a full external sort holds less.
                if over_budget && kept.estimated_bytes() + heap_key_bytes > ctx.operator_memory / 2
                {
                    return self.sort_externally(kept, heap, wanted, input, ctx);
                }
            }
        }
        let sorted = heap.into_sorted_vec();
        let positions: Vec<u32> = sorted
            .iter()
            .skip(self.offset as usize)
            .map(|entry| entry.2)
            .collect();
        self.output = Window {
            rows: SortedRows::Memory(Emitter::new(kept, positions)),
            skip: 0,
            remaining: u64::MAX,
        };
        Ok(())
    }

    /// Finishes through the external sort: the heap's rows (in arrival order, so ties stay
    /// stable), then every remaining input row that can still beat the worst of them.
    fn sort_externally(
        &mut self,
        kept: Batch,
        heap: BinaryHeap<Candidate>,
        wanted: usize,
        input: &mut dyn Operator,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        let mut sorter = Sorter::new(self.types.clone(), ctx.operator_memory);
        let threshold = (heap.len() == wanted)
            .then(|| heap.peek().map(|worst| worst.0.clone()))
            .flatten();
        let mut entries = heap.into_vec();
        entries.sort_unstable_by_key(|entry| entry.1);
        let positions: Vec<u32> = entries.iter().map(|entry| entry.2).collect();
        sorter.push(
            kept.gather(&positions),
            |row, key| key.extend_from_slice(&entries[row].0),
            ctx,
        )?;
        drop(entries);
        while let Some(batch) = input.next(ctx)? {
            let key_columns = key_columns(&self.keys, &batch, ctx)?;
            let mut keys = Vec::with_capacity(batch.rows);
            let mut positions = Vec::with_capacity(batch.rows);
            for row in 0..batch.rows {
                let mut key = Vec::new();
                encode_sort_key(&key_columns, &self.orders, row, &mut key);
                if threshold.as_ref().is_none_or(|worst| key < *worst) {
                    keys.push(key);
                    positions.push(row as u32);
                }
            }
            sorter.push(
                batch.gather(&positions),
                |row, key| key.extend_from_slice(&keys[row]),
                ctx,
            )?;
        }
        self.output = Window {
            rows: sorter.finish(ctx)?,
            skip: self.offset,
            remaining: wanted as u64 - self.offset.min(wanted as u64),
        };
        Ok(())
    }
}

impl Operator for TopN {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if let Some(mut input) = self.input.take() {
            match self.limit {
                // LIMIT NULL / ALL: a full sort, then skip the offset.
                None => {
                    let mut sorter = Sorter::new(self.types.clone(), ctx.operator_memory);
                    sort_input(input.as_mut(), &self.keys, &self.orders, &mut sorter, ctx)?;
                    self.output = Window {
                        rows: sorter.finish(ctx)?,
                        skip: self.offset,
                        remaining: u64::MAX,
                    };
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
        self.output.next_batch(ctx)
    }
}
