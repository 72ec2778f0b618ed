//! Hash join: equality keys through a hash table of the right side, becoming a grace hash
//! join when the right side outgrows the memory budget.
//!
//! In memory, the right input is materialised into one batch and a table from each row's
//! key (`exec::row_key`) to its rows; left batches stream through it (`join::JoinState` does
//! the emitting and the outer-join bookkeeping). Rows with a NULL in any key never match.
//!
//! Grace: if the buffered right rows pass `ExecContext::operator_memory` (checked per batch),
//! both inputs are divided into `spill::PARTITION_COUNT` spill-file pairs by a hash of the
//! join key, and each pair is joined in turn exactly as above — equal keys always land in
//! the same pair, so every match is found in some pair and only there. A pair whose right
//! side is still too big is divided again with another hash seed (unless dividing stops
//! helping: a single key's rows cannot be split, and are then joined in memory). What the
//! join kinds need beyond matches is kept per pair:
//!
//! * unmatched right rows (RIGHT, FULL) are emitted when a pair's left rows are done, from
//!   that pair's own matched flags;
//! * rows with a NULL key never match but must still come out of outer joins: right ones are
//!   kept (in partition 0) for RIGHT and FULL joins, left ones for LEFT, FULL and ANTI joins,
//!   and dropped otherwise;
//! * pairs that cannot produce rows (no left rows, unless right leftovers are wanted; no
//!   right rows, unless unmatched left rows are) are skipped.
//!
//! Only the order of the output differs from the in-memory join, which SQL leaves
//! unspecified.

use crate::exec::batch::{Batch, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::ExecResult;
use crate::exec::eval;
use crate::exec::row_key::RowKeyMap;
use crate::exec::row_key::{any_null, equality_key};
use crate::exec::spill::{BatchReader, MAX_PARTITION_DEPTH, Partitions, SpilledRows};
use crate::plan::{Expr, JoinKind};
use crate::types::DataType;

use super::Operator;
use super::join::{JoinState, PendingLeft};
use super::sort::concatenate;

/// Memory a right row costs in the hash table besides its values: its share of an entry
/// (key bytes, the row list, the hash slot).
const ENTRY_OVERHEAD: usize = 64;

/// A join on equal keys through a hash table of the right side.
#[derive(Debug)]
pub struct HashJoin {
    left: Box<dyn Operator>,
    right: Option<Box<dyn Operator>>,
    left_keys: Vec<Expr>,
    right_keys: Vec<Expr>,
    residual: Option<Expr>,
    table: RowKeyMap<Vec<u32>>,
    state: JoinState,
    /// Set when the join spilled: the partition pairs still to join.
    grace: Option<Grace>,
}

#[derive(Debug)]
struct Grace {
    parts: Vec<JoinPart>,
    /// The left rows of the pair being joined.
    probe: Option<BatchReader>,
}

/// A pair of partitions: the left and right rows whose keys hash to it.
#[derive(Debug)]
struct JoinPart {
    left: SpilledRows,
    right: SpilledRows,
    depth: u32,
}

/// Which side of the join a row comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

impl HashJoin {
    #[allow(
        clippy::too_many_arguments,
        reason = "one argument per field of the plan node it builds"
    )]
    pub fn new(
        left: Box<dyn Operator>,
        right: Box<dyn Operator>,
        kind: JoinKind,
        left_keys: Vec<Expr>,
        right_keys: Vec<Expr>,
        residual: Option<Expr>,
        left_types: Vec<DataType>,
        right_types: Vec<DataType>,
    ) -> Self {
        HashJoin {
            left,
            right: Some(right),
            left_keys,
            right_keys,
            residual,
            table: RowKeyMap::default(),
            state: JoinState::new(kind, left_types, right_types),
            grace: None,
        }
    }

    /// Reads the right input: into the hash table if it fits, else into partitions (and
    /// then the left input too).
    fn build(&mut self, right: &mut dyn Operator, ctx: &ExecContext) -> ExecResult<()> {
        let mut batches = Vec::new();
        let mut bytes = 0usize;
        while let Some(batch) = right.next(ctx)? {
            if batch.rows == 0 {
                continue;
            }
            bytes += batch.estimated_bytes() + batch.rows * ENTRY_OVERHEAD;
            batches.push(batch);
            if bytes > ctx.operator_memory {
                return self.partition_inputs(batches, right, ctx);
            }
        }
        self.load_right(concatenate(&batches, &self.state.right_types), ctx)
    }

    /// Makes `right` the rows joined next and builds their hash table.
    fn load_right(&mut self, right: Batch, ctx: &ExecContext) -> ExecResult<()> {
        self.table.clear();
        self.state.set_right(right);
        let key_columns = eval::evaluate_all(&self.right_keys, &self.state.right, ctx)?;
        let refs: Vec<&ColumnVector> = key_columns.iter().collect();
        let mut key = Vec::new();
        for row in 0..self.state.right.rows {
            if any_null(&refs, row) {
                continue;
            }
            equality_key(&refs, row, &mut key);
            self.table.entry(key.clone()).or_default().push(row as u32);
        }
        Ok(())
    }

    /// Switches to a grace join: the buffered right batches, the rest of the right input and
    /// all of the left input go to partitions.
    fn partition_inputs(
        &mut self,
        buffered: Vec<Batch>,
        right: &mut dyn Operator,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        let budget = ctx.operator_memory;
        let mut right_parts = Partitions::new(&self.state.right_types, 0, budget);
        for batch in buffered {
            self.partition_batch(&batch, Side::Right, &mut right_parts, ctx)?;
        }
        while let Some(batch) = right.next(ctx)? {
            self.partition_batch(&batch, Side::Right, &mut right_parts, ctx)?;
        }
        let mut left_parts = Partitions::new(&self.state.left_types, 0, budget);
        while let Some(batch) = self.left.next(ctx)? {
            self.partition_batch(&batch, Side::Left, &mut left_parts, ctx)?;
        }
        let mut parts = Vec::new();
        self.add_parts(left_parts, right_parts, 1, None, &mut parts, ctx)?;
        self.grace = Some(Grace { parts, probe: None });
        Ok(())
    }

    /// Writes each row of `batch` (from `side`) to the partition of its key.
    fn partition_batch(
        &self,
        batch: &Batch,
        side: Side,
        partitions: &mut Partitions,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        let (key_exprs, keep_null_keys) = match side {
            Side::Left => (
                &self.left_keys,
                matches!(
                    self.state.kind,
                    JoinKind::Left | JoinKind::Full | JoinKind::Anti
                ),
            ),
            Side::Right => (
                &self.right_keys,
                matches!(self.state.kind, JoinKind::Right | JoinKind::Full),
            ),
        };
        let key_columns = eval::evaluate_all(key_exprs, batch, ctx)?;
        let refs: Vec<&ColumnVector> = key_columns.iter().collect();
        let mut key = Vec::new();
        for row in 0..batch.rows {
            if any_null(&refs, row) {
                // Never matches; kept (anywhere: partition 0) only if it is output unmatched.
                if keep_null_keys {
                    partitions.write(0, batch, row, ctx)?;
                }
                continue;
            }
            equality_key(&refs, row, &mut key);
            partitions.write(partitions.partition_of(&key), batch, row, ctx)?;
        }
        Ok(())
    }

    /// Adds the pairs of `left` and `right` that can produce rows to `parts`. A pair holding
    /// all `undivided_rows` right rows of the part it came from was not divided at all: it
    /// is not divided again.
    fn add_parts(
        &self,
        left: Partitions,
        right: Partitions,
        depth: u32,
        undivided_rows: Option<u64>,
        parts: &mut Vec<JoinPart>,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        let kind = self.state.kind;
        let keeps_unmatched_left = matches!(kind, JoinKind::Left | JoinKind::Full | JoinKind::Anti);
        let keeps_unmatched_right = matches!(kind, JoinKind::Right | JoinKind::Full);
        for (left, right) in left.finish(ctx)?.into_iter().zip(right.finish(ctx)?) {
            let useful = match (left.rows() > 0, right.rows() > 0) {
                (true, true) => true,
                (true, false) => keeps_unmatched_left,
                (false, true) => keeps_unmatched_right,
                (false, false) => false,
            };
            if useful {
                let depth = match undivided_rows {
                    Some(rows) if rows == right.rows() => MAX_PARTITION_DEPTH,
                    _ => depth,
                };
                parts.push(JoinPart { left, right, depth });
            }
        }
        Ok(())
    }

    /// Starts joining `part`: loads its right rows and returns a reader of its left rows,
    /// or divides it further (adding the pieces to `parts`) if its right rows are too big.
    fn start_part(
        &mut self,
        part: JoinPart,
        parts: &mut Vec<JoinPart>,
        ctx: &ExecContext,
    ) -> ExecResult<Option<BatchReader>> {
        let budget = ctx.operator_memory as u64;
        let estimate = part.right.bytes() + part.right.rows() * ENTRY_OVERHEAD as u64;
        if estimate > budget && part.depth < MAX_PARTITION_DEPTH {
            let seed = u64::from(part.depth);
            let right_rows = part.right.rows();
            let mut right_parts = Partitions::new(&self.state.right_types, seed, budget as usize);
            let mut right = part.right.into_reader()?;
            while let Some(batch) = right.next_batch(ctx)? {
                self.partition_batch(&batch, Side::Right, &mut right_parts, ctx)?;
            }
            let mut left_parts = Partitions::new(&self.state.left_types, seed, budget as usize);
            let mut left = part.left.into_reader()?;
            while let Some(batch) = left.next_batch(ctx)? {
                self.partition_batch(&batch, Side::Left, &mut left_parts, ctx)?;
            }
            self.add_parts(
                left_parts,
                right_parts,
                part.depth + 1,
                Some(right_rows),
                parts,
                ctx,
            )?;
            return Ok(None);
        }
        let right = part.right.into_reader()?.read_all(ctx)?;
        self.load_right(right, ctx)?;
        Ok(Some(part.left.into_reader()?))
    }

    /// The next batch of left rows to probe with, or `None` when every left row (of every
    /// partition pair) has been probed.
    fn next_left(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        let Some(mut grace) = self.grace.take() else {
            return self.left.next(ctx);
        };
        let result = self.next_partitioned_left(&mut grace, ctx);
        self.grace = Some(grace);
        result
    }

    fn next_partitioned_left(
        &mut self,
        grace: &mut Grace,
        ctx: &ExecContext,
    ) -> ExecResult<Option<Batch>> {
        loop {
            if let Some(probe) = &mut grace.probe {
                if let Some(batch) = probe.next_batch(ctx)? {
                    return Ok(Some(batch));
                }
                // The pair's left rows are done: its unmatched right rows are final.
                grace.probe = None;
                self.state.emit_right_leftovers();
                continue;
            }
            let Some(part) = grace.parts.pop() else {
                return Ok(None);
            };
            grace.probe = self.start_part(part, &mut grace.parts, ctx)?;
        }
    }

    /// Joins the rows of a left batch with the loaded right rows, until the output batch is
    /// full or the left batch is done.
    fn probe(
        &mut self,
        pending: &mut PendingLeft,
        key: &mut Vec<u8>,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        let refs: Vec<&ColumnVector> = pending.keys.iter().collect();
        while let Some(left_row) = pending.rows.next(self.state.output.rows) {
            let left = &pending.batch;
            let candidates: &[u32] = if any_null(&refs, left_row) {
                &[]
            } else {
                equality_key(&refs, left_row, key);
                self.table.get(key.as_slice()).map_or(&[], Vec::as_slice)
            };
            let matches = match (&self.residual, candidates.is_empty()) {
                (Some(residual), false) => {
                    let pairs = self.state.pairs(left, left_row, candidates);
                    eval::select_true(residual, &pairs, ctx)?
                        .into_iter()
                        .map(|i| candidates[i as usize])
                        .collect()
                }
                _ => candidates.to_vec(),
            };
            self.state.emit(left, left_row, &matches);
        }
        Ok(())
    }
}

impl Operator for HashJoin {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        ctx.check_interrupt()?;
        if let Some(mut right) = self.right.take() {
            self.build(right.as_mut(), ctx)?;
        }
        let mut key = Vec::new();
        while self.state.wants_rows() {
            // A left batch is only fetched once the previous one is fully joined: in a grace
            // join, fetching may move to the next partition pair, which emits the finished
            // pair's unmatched right rows and replaces the right side.
            let mut pending = match self.state.take_pending() {
                Some(pending) => pending,
                None => match self.next_left(ctx)? {
                    Some(batch) => PendingLeft::with_keys(batch, &self.left_keys, ctx)?,
                    None => {
                        self.state.finished_left = true;
                        continue;
                    }
                },
            };
            self.probe(&mut pending, &mut key, ctx)?;
            self.state.keep_pending(pending);
        }
        if self.state.finished_left {
            self.state.emit_right_leftovers();
            if self.state.output.rows == 0 {
                return Ok(None);
            }
        }
        Ok(Some(self.state.take_output()))
    }
}
