//! The sorting engine behind ORDER BY: in memory while the rows fit the operator's budget,
//! an external merge sort beyond it.
//!
//! [`Sorter`] takes batches with their sort keys already encoded as memcomparable bytes
//! (`exec::row_key`), so comparing rows is comparing bytes. While the buffered rows fit in
//! `ExecContext::operator_memory` nothing touches the disk, and the result is exactly the
//! old in-memory sort: one `sort_unstable` of `(key, arrival)` pairs. When a batch takes the
//! buffer past the budget, the buffer is sorted and written as one *run* (each row with its
//! key) to a spill file and emptied. At the end the runs are merged with a binary heap; when
//! there are more runs than one merge can read at once (each needs a read buffer out of the
//! budget), groups of consecutive runs are first merged into longer runs, in passes.
//!
//! Stability: the in-memory sort orders ties by arrival. Runs hold consecutive stretches of
//! the input, each sorted stably, so ordering ties across runs by run number (earlier run
//! first) — and merging only consecutive runs in a pass — gives exactly the same order
//! without storing a sequence number per row.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::exec::batch::{BATCH_SIZE, Batch, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::ExecResult;
use crate::exec::spill::{RecordReader, RowCodec, SpillFile, write_buffer_size};
use crate::types::DataType;

use super::sort::{Emitter, concatenate};

/// Memory a buffered row costs besides its values: its key's vector header, allocation
/// overhead and arrival number.
const ROW_OVERHEAD: usize = 48;

/// Read buffer of one run during a merge, per unit of fan-in.
const MERGE_BUFFER: usize = 64 << 10;

/// Runs one merge reads at once: the budget divided into read buffers, at least 8.
fn merge_fan_in(budget: usize) -> usize {
    (budget / MERGE_BUFFER).clamp(8, 256)
}

/// Collects rows and their sort keys; sorts in memory or spills sorted runs.
#[derive(Debug)]
pub struct Sorter {
    types: Vec<DataType>,
    budget: usize,
    batches: Vec<Batch>,
    /// Row number (across `batches`) of each batch's first row.
    starts: Vec<u32>,
    /// Sort key and row number of every buffered row.
    entries: Vec<(Vec<u8>, u32)>,
    rows: usize,
    bytes: usize,
    runs: Option<Runs>,
}

/// Sorted runs written to one spill file, each a byte range of it.
#[derive(Debug)]
struct Runs {
    file: SpillFile,
    bounds: Vec<(u64, u64)>,
    codec: RowCodec,
}

impl Sorter {
    /// An empty sorter of rows of `types`, holding at most about `budget` bytes in memory.
    pub fn new(types: Vec<DataType>, budget: usize) -> Self {
        Sorter {
            types,
            budget,
            batches: Vec::new(),
            starts: Vec::new(),
            entries: Vec::new(),
            rows: 0,
            bytes: 0,
            runs: None,
        }
    }

    /// Adds `batch`, whose rows sort by the concatenated encodings `encode_key` appends for
    /// each row (it is given the row and a cleared buffer).
    pub fn push(
        &mut self,
        batch: Batch,
        mut encode_key: impl FnMut(usize, &mut Vec<u8>),
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        if batch.rows == 0 {
            return Ok(());
        }
        let first = self.rows as u32;
        self.entries.reserve(batch.rows);
        for row in 0..batch.rows {
            let mut key = Vec::new();
            encode_key(row, &mut key);
            self.bytes += key.len() + ROW_OVERHEAD;
            self.entries.push((key, first + row as u32));
        }
        self.bytes += batch.estimated_bytes();
        self.rows += batch.rows;
        self.starts.push(first);
        self.batches.push(batch);
        if self.bytes > self.budget {
            self.write_run(ctx)?;
        }
        Ok(())
    }

    /// Sorts the buffered rows and writes them as the next run.
    fn write_run(&mut self, ctx: &ExecContext) -> ExecResult<()> {
        ctx.check_interrupt()?;
        let runs = match &mut self.runs {
            Some(runs) => runs,
            None => self.runs.insert(Runs {
                file: SpillFile::create(ctx, write_buffer_size(self.budget, 1))?,
                bounds: Vec::new(),
                codec: RowCodec::new(&self.types),
            }),
        };
        self.entries.sort_unstable();
        let start = runs.file.len();
        let mut record = Vec::new();
        for (key, row) in &self.entries {
            let batch_index = self.starts.partition_point(|&first| first <= *row) - 1;
            let local_row = (row - self.starts[batch_index]) as usize;
            record.clear();
            runs.codec
                .encode_keyed(key, &self.batches[batch_index], local_row, &mut record);
            runs.file.append(&record, ctx)?;
        }
        runs.bounds.push((start, runs.file.len()));
        self.batches.clear();
        self.starts.clear();
        self.entries.clear();
        self.rows = 0;
        self.bytes = 0;
        Ok(())
    }

    /// Every row added, in key order (ties in arrival order).
    pub fn finish(mut self, ctx: &ExecContext) -> ExecResult<SortedRows> {
        if self.runs.is_none() {
            let all = concatenate(&self.batches, &self.types);
            self.batches.clear();
            // Ties keep input order: the row number is part of the sort key.
            self.entries.sort_unstable();
            let positions = self.entries.into_iter().map(|(_, row)| row).collect();
            return Ok(SortedRows::Memory(Emitter::new(all, positions)));
        }
        if self.rows > 0 {
            self.write_run(ctx)?;
        }
        let Some(Runs {
            mut file,
            mut bounds,
            codec,
        }) = self.runs.take()
        else {
            return Err(crate::exec::error::ExecError::internal(
                "sort lost its runs",
            ));
        };
        file.flush(ctx)?;
        let fan_in = merge_fan_in(self.budget);
        let read_buffer = (self.budget / fan_in).clamp(4 << 10, 1 << 20);
        while bounds.len() > fan_in {
            let mut merged = SpillFile::create(ctx, write_buffer_size(self.budget, 1))?;
            let mut merged_bounds = Vec::new();
            let mut record = Vec::new();
            for group in bounds.chunks(fan_in) {
                let start = merged.len();
                let mut merge = Merge::new(&file, group, &codec, read_buffer)?;
                ctx.check_interrupt()?;
                while merge.pop(|key, row| {
                    record.clear();
                    codec.encode_keyed(key, row, 0, &mut record);
                    merged.append(&record, ctx)
                })? {}
                merged_bounds.push((start, merged.len()));
            }
            merged.flush(ctx)?;
            file = merged;
            bounds = merged_bounds;
        }
        let merge = Merge::new(&file, &bounds, &codec, read_buffer)?;
        Ok(SortedRows::Merge {
            merge,
            types: self.types,
        })
    }
}

/// Sorted rows, served in batches.
#[derive(Debug)]
pub enum SortedRows {
    Memory(Emitter),
    Merge { merge: Merge, types: Vec<DataType> },
}

impl Default for SortedRows {
    fn default() -> Self {
        SortedRows::Memory(Emitter::default())
    }
}

impl SortedRows {
    /// The next batch of at most [`BATCH_SIZE`] rows, or `None` after the last.
    pub fn next_batch(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        match self {
            SortedRows::Memory(emitter) => Ok(emitter.next_batch()),
            SortedRows::Merge { merge, types } => {
                ctx.check_interrupt()?;
                let mut out = Batch::with_types(types, BATCH_SIZE);
                while out.rows < BATCH_SIZE
                    && merge.pop(|_, row| {
                        append_row(&mut out, row, 0);
                        Ok(())
                    })?
                {}
                Ok((out.rows > 0).then_some(out))
            }
        }
    }
}

fn append_row(out: &mut Batch, from: &Batch, row: usize) {
    for (to, column) in out.columns.iter_mut().zip(&from.columns) {
        to.push_from(column, row);
    }
    out.rows += 1;
}

/// A k-way merge of sorted runs: a heap of each run's next key, smallest first, ties to the
/// earlier run.
#[derive(Debug)]
pub struct Merge {
    runs: Vec<RunCursor>,
    heap: BinaryHeap<Reverse<(Vec<u8>, usize)>>,
    codec: RowCodec,
}

/// A run being merged: its reader and its current row (a one-row batch).
#[derive(Debug)]
struct RunCursor {
    records: RecordReader,
    row: Batch,
}

impl Merge {
    fn new(
        file: &SpillFile,
        bounds: &[(u64, u64)],
        codec: &RowCodec,
        read_buffer: usize,
    ) -> ExecResult<Merge> {
        let mut merge = Merge {
            runs: Vec::with_capacity(bounds.len()),
            heap: BinaryHeap::with_capacity(bounds.len()),
            codec: codec.clone(),
        };
        for (index, &(start, end)) in bounds.iter().enumerate() {
            merge.runs.push(RunCursor {
                records: file.reader(start, end, read_buffer)?,
                row: Batch::with_types(codec.types(), 1),
            });
            let mut key = Vec::new();
            if merge.advance(index, &mut key)? {
                merge.heap.push(Reverse((key, index)));
            }
        }
        Ok(merge)
    }

    /// Loads run `index`'s next row and its key into `key`; false at the run's end.
    fn advance(&mut self, index: usize, key: &mut Vec<u8>) -> ExecResult<bool> {
        let run = &mut self.runs[index];
        run.row.clear();
        match run.records.next_record()? {
            Some(record) => {
                self.codec.decode_keyed(record, key, &mut run.row)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Passes the smallest remaining row (its key, and a batch whose row 0 it is) to
    /// `visit`; false when every run is exhausted.
    fn pop(&mut self, mut visit: impl FnMut(&[u8], &Batch) -> ExecResult<()>) -> ExecResult<bool> {
        let Some(Reverse((mut key, index))) = self.heap.pop() else {
            return Ok(false);
        };
        visit(&key, &self.runs[index].row)?;
        // The popped key's allocation is reused for the run's next key.
        if self.advance(index, &mut key)? {
            self.heap.push(Reverse((key, index)));
        }
        Ok(true)
    }
}

/// Encodes row `row`'s sort key from `key_columns` under `orders` (the form every caller of
/// [`Sorter::push`] uses).
pub fn encode_sort_key(
    key_columns: &[ColumnVector],
    orders: &[crate::storage::keys::KeyOrder],
    row: usize,
    out: &mut Vec<u8>,
) {
    for (column, order) in key_columns.iter().zip(orders) {
        crate::exec::row_key::encode_cell(column, row, *order, out);
    }
}
