//! Joins: nested loops (any condition), and the state every join shares; the hash join
//! (equality keys) is in `hash_join`.
//!
//! Nested loop and hash joins materialise the right input (the hash join spills it past the
//! memory budget; the nested loop join does not), then stream the left input batch by batch. For each
//! left row they form the candidate pairs, evaluate the join condition over the pairs as one
//! batch (so conditions run vectorised), and emit matches. A join stops between left rows as
//! soon as a full output batch is ready and resumes there on the next call (`PendingLeft`):
//! one left batch can match millions of right rows (a cross join, a key shared by many rows),
//! and emitting them all at once would hold the whole product in memory. LEFT / FULL joins add a row with
//! NULLs on the right for unmatched left rows; RIGHT / FULL joins remember which right rows
//! matched and add the others at the end. SEMI and ANTI joins emit left rows only.
//!
//! The index join is the third kind: it never materialises the right side but, for each
//! left row, seeks the right table by row id or through an index on the join key. It is
//! what the optimizer picks when few left rows meet a large indexed table (a point lookup
//! joined to its parent row), where building a hash table of the whole right side would
//! cost far more than a handful of seeks.

use std::sync::Arc;

use crate::catalog::{IndexDef, TableDef};
use crate::exec::batch::{BATCH_SIZE, Batch, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::exec::index_access::{AnyProbe, IndexAccess, IndexAm, IndexProbe};
use crate::exec::row_key::any_null;
use crate::exec::source::PageSource;
use crate::plan::{Expr, JoinKind, ScanColumn};
use crate::sqlstate;
use crate::storage::btree::{TableCursor, TableTree};
use crate::types::{DataType, Value};

use super::sort::concatenate;
use super::{Operator, collect};

/// What the join operators share: the materialised right side (or, for a grace hash join,
/// the right rows of the partition being joined), the output under construction, and the
/// bookkeeping for outer joins.
#[derive(Debug)]
pub(super) struct JoinState {
    pub(super) kind: JoinKind,
    pub(super) left_types: Vec<DataType>,
    pub(super) right_types: Vec<DataType>,
    pub(super) right: Batch,
    right_matched: Vec<bool>,
    pub(super) output: Batch,
    pub(super) finished_left: bool,
    emitted_right_leftovers: bool,
    /// The left batch being joined, when a full output batch was ready before its last row.
    pending: Option<PendingLeft>,
}

/// A left batch partly joined: its join keys (evaluated once for the whole batch; empty for
/// a nested loop join) and where joining it stopped.
#[derive(Debug)]
pub(super) struct PendingLeft {
    pub(super) batch: Batch,
    pub(super) keys: Vec<ColumnVector>,
    pub(super) rows: LeftRows,
}

impl PendingLeft {
    /// `batch` with its join keys evaluated.
    pub(super) fn with_keys(batch: Batch, keys: &[Expr], ctx: &ExecContext) -> ExecResult<Self> {
        let keys = eval::evaluate_all(keys, &batch, ctx)?;
        Ok(PendingLeft::new(batch, keys))
    }

    pub(super) fn new(batch: Batch, keys: Vec<ColumnVector>) -> Self {
        let rows = LeftRows {
            next: 0,
            end: batch.rows,
        };
        PendingLeft { batch, keys, rows }
    }
}

/// The rows of a pending left batch still to join.
#[derive(Debug)]
pub(super) struct LeftRows {
    next: usize,
    end: usize,
}

impl LeftRows {
    /// The next left row to join while the output batch (`output_rows` long) has room;
    /// `None` when the output is full or the batch is done.
    pub(super) fn next(&mut self, output_rows: usize) -> Option<usize> {
        if self.next >= self.end || output_rows >= BATCH_SIZE {
            return None;
        }
        self.next += 1;
        Some(self.next - 1)
    }
}

/// The room a join's first output batch is made with. A join that finds a few rows (a
/// point lookup, each step of a recursive query, which builds its join anew) allocates a few
/// rows' worth instead of [`BATCH_SIZE`] rows per column; a larger one grows its vectors by
/// doubling and sizes its later batches by the last.
const FIRST_OUTPUT_CAPACITY: usize = 16;

impl JoinState {
    pub(super) fn new(
        kind: JoinKind,
        left_types: Vec<DataType>,
        right_types: Vec<DataType>,
    ) -> Self {
        let output_types = Self::output_types_for(kind, &left_types, &right_types);
        JoinState {
            kind,
            left_types,
            right_types,
            right: Batch::default(),
            right_matched: Vec::new(),
            output: Batch::with_types(&output_types, FIRST_OUTPUT_CAPACITY),
            finished_left: false,
            emitted_right_leftovers: false,
            pending: None,
        }
    }

    /// Whether the join should produce more rows before returning its output batch.
    pub(super) fn wants_rows(&self) -> bool {
        self.output.rows < BATCH_SIZE && !self.finished_left
    }

    /// The partly joined left batch, if there is one (the caller gives it back with
    /// [`JoinState::keep_pending`]).
    pub(super) fn take_pending(&mut self) -> Option<PendingLeft> {
        self.pending.take()
    }

    /// Keeps `pending` for the next call if it still has rows to join.
    pub(super) fn keep_pending(&mut self, pending: PendingLeft) {
        if pending.rows.next < pending.rows.end {
            self.pending = Some(pending);
        }
    }

    fn output_types_for(kind: JoinKind, left: &[DataType], right: &[DataType]) -> Vec<DataType> {
        match kind {
            JoinKind::Semi | JoinKind::Anti => left.to_vec(),
            _ => left.iter().chain(right).copied().collect(),
        }
    }

    fn output_types(&self) -> Vec<DataType> {
        Self::output_types_for(self.kind, &self.left_types, &self.right_types)
    }

    fn load_right(&mut self, right: &mut dyn Operator, ctx: &ExecContext) -> ExecResult<()> {
        self.set_right(concatenate(&collect(right, ctx)?, &self.right_types));
        Ok(())
    }

    /// Makes `right` the right rows joined next, none of them matched yet.
    pub(super) fn set_right(&mut self, right: Batch) {
        self.right = right;
        self.right_matched = vec![false; self.right.rows];
        self.emitted_right_leftovers = false;
    }

    /// Pairs of left row `left_row` with each right row in `candidates`, as one batch of
    /// left columns followed by right columns.
    pub(super) fn pairs(&self, left: &Batch, left_row: usize, candidates: &[u32]) -> Batch {
        let mut columns: Vec<ColumnVector> = left
            .columns
            .iter()
            .map(|column| {
                let mut repeated =
                    ColumnVector::with_capacity(column.data_type(), candidates.len());
                for _ in candidates {
                    repeated.push_from(column, left_row);
                }
                repeated
            })
            .collect();
        columns.extend(
            self.right
                .columns
                .iter()
                .map(|column| column.gather(candidates)),
        );
        Batch {
            columns,
            rows: candidates.len(),
        }
    }

    /// Handles left row `left_row` whose matching right rows are `matches`.
    pub(super) fn emit(&mut self, left: &Batch, left_row: usize, matches: &[u32]) {
        for &right_row in matches {
            if let Some(flag) = self.right_matched.get_mut(right_row as usize) {
                *flag = true;
            }
        }
        let left_columns = left.columns.len();
        match self.kind {
            JoinKind::Semi | JoinKind::Anti => {
                if matches.is_empty() == (self.kind == JoinKind::Anti) {
                    for (to, from) in self.output.columns.iter_mut().zip(&left.columns) {
                        to.push_from(from, left_row);
                    }
                    self.output.rows += 1;
                }
            }
            _ => {
                for &right_row in matches {
                    for (to, from) in self.output.columns.iter_mut().zip(&left.columns) {
                        to.push_from(from, left_row);
                    }
                    for (to, from) in self.output.columns[left_columns..]
                        .iter_mut()
                        .zip(&self.right.columns)
                    {
                        to.push_from(from, right_row as usize);
                    }
                    self.output.rows += 1;
                }
                if matches.is_empty() && matches!(self.kind, JoinKind::Left | JoinKind::Full) {
                    for (to, from) in self.output.columns.iter_mut().zip(&left.columns) {
                        to.push_from(from, left_row);
                    }
                    for to in &mut self.output.columns[left_columns..] {
                        to.push_null();
                    }
                    self.output.rows += 1;
                }
            }
        }
    }

    /// After the left input ends: unmatched right rows for RIGHT and FULL joins.
    pub(super) fn emit_right_leftovers(&mut self) {
        if self.emitted_right_leftovers || !matches!(self.kind, JoinKind::Right | JoinKind::Full) {
            self.emitted_right_leftovers = true;
            return;
        }
        self.emitted_right_leftovers = true;
        let left_columns = self.left_types.len();
        for right_row in 0..self.right.rows {
            if self.right_matched[right_row] {
                continue;
            }
            for to in &mut self.output.columns[..left_columns] {
                to.push_null();
            }
            for (to, from) in self.output.columns[left_columns..]
                .iter_mut()
                .zip(&self.right.columns)
            {
                to.push_from(from, right_row);
            }
            self.output.rows += 1;
        }
    }

    /// The output batch so far; the next one is sized like it (a join that filled one batch
    /// likely fills the next, one that found a few rows likely finds a few again).
    /// Forgets the progress of a join whose right rows are fetched per left row (an index
    /// join): its left input starts over, its right side holds nothing to keep.
    pub(super) fn restart_fetched(&mut self) {
        self.output.clear();
        self.right.clear();
        self.right_matched.clear();
        self.finished_left = false;
        self.emitted_right_leftovers = false;
        self.pending = None;
    }

    pub(super) fn take_output(&mut self) -> Batch {
        let capacity = self.output.rows.clamp(FIRST_OUTPUT_CAPACITY, BATCH_SIZE);
        let empty = Batch::with_types(&self.output_types(), capacity);
        std::mem::replace(&mut self.output, empty)
    }
}

/// A join evaluating an arbitrary condition over every pair.
#[derive(Debug)]
pub struct NestedLoopJoin {
    left: Box<dyn Operator>,
    right: Option<Box<dyn Operator>>,
    condition: Option<Expr>,
    state: JoinState,
}

impl NestedLoopJoin {
    pub fn new(
        left: Box<dyn Operator>,
        right: Box<dyn Operator>,
        kind: JoinKind,
        condition: Option<Expr>,
        left_types: Vec<DataType>,
        right_types: Vec<DataType>,
    ) -> Self {
        NestedLoopJoin {
            left,
            right: Some(right),
            condition,
            state: JoinState::new(kind, left_types, right_types),
        }
    }
}

impl Operator for NestedLoopJoin {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        ctx.check_interrupt()?;
        if let Some(mut right) = self.right.take() {
            self.state.load_right(right.as_mut(), ctx)?;
        }
        let all_right: Vec<u32> = (0..self.state.right.rows as u32).collect();
        while self.state.wants_rows() {
            let mut pending = match self.state.take_pending() {
                Some(pending) => pending,
                None => match self.left.next(ctx)? {
                    Some(batch) => PendingLeft::new(batch, Vec::new()),
                    None => {
                        self.state.finished_left = true;
                        continue;
                    }
                },
            };
            while let Some(left_row) = pending.rows.next(self.state.output.rows) {
                let left = &pending.batch;
                let selected;
                let matches: &[u32] = match &self.condition {
                    None => &all_right,
                    Some(_) if all_right.is_empty() => &[],
                    Some(condition) => {
                        let pairs = self.state.pairs(left, left_row, &all_right);
                        selected = eval::select_true(condition, &pairs, ctx)?;
                        &selected
                    }
                };
                self.state.emit(left, left_row, matches);
            }
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

/// A join that seeks the right table once per left row (by row id, or by an index whose
/// leading columns equal the left row's keys). Inner, left, semi and anti joins.
#[derive(Debug)]
pub struct IndexJoin {
    left: Box<dyn Operator>,
    table: Arc<TableDef>,
    index: Option<Arc<IndexDef>>,
    columns: Vec<ScanColumn>,
    left_keys: Vec<Expr>,
    residual: Option<Expr>,
    table_cursor: TableCursor<PageSource>,
    /// Lookups in the index, kept from one left row to the next.
    index_probe: Option<AnyProbe<PageSource>>,
    /// The encoded key prefix being probed, reused across rows.
    probe: Vec<u8>,
    /// The fetched rows' positions for the left row being joined, reused across rows.
    candidates: Vec<u32>,
    state: JoinState,
}

impl IndexJoin {
    #[allow(
        clippy::too_many_arguments,
        reason = "one argument per field of the plan node it builds"
    )]
    pub fn new(
        left: Box<dyn Operator>,
        table: Arc<TableDef>,
        index: Option<Arc<IndexDef>>,
        columns: Vec<ScanColumn>,
        kind: JoinKind,
        left_keys: Vec<Expr>,
        residual: Option<Expr>,
        left_types: Vec<DataType>,
        ctx: &ExecContext,
    ) -> ExecResult<Self> {
        if matches!(kind, JoinKind::Right | JoinKind::Full) {
            return Err(ExecError::internal(
                "an index join cannot be a right or full join",
            ));
        }
        let right_types = super::scan::column_types(&table, &columns);
        let table_cursor = TableTree::open(table.root).cursor(ctx.source.clone());
        let index_probe = index
            .as_ref()
            .map(|index| IndexAccess::of(index).probe(ctx.source.clone()));
        let mut state = JoinState::new(kind, left_types, right_types);
        state.right = Batch::with_types(&state.right_types, 1);
        Ok(IndexJoin {
            left,
            table,
            index,
            columns,
            left_keys,
            residual,
            table_cursor,
            index_probe,
            probe: Vec::new(),
            candidates: Vec::new(),
            state,
        })
    }

    /// Loads into `state.right` the table rows whose key equals `key` (no NULLs in it).
    fn fetch(&mut self, key: &[Value]) -> ExecResult<()> {
        self.state.right.clear();
        match (&self.index, &mut self.index_probe) {
            (Some(index), Some(index_probe)) => {
                IndexAccess::of(index).lookup_key(key, &mut self.probe);
                let (table_cursor, table, columns, right) = (
                    &mut self.table_cursor,
                    &self.table,
                    &self.columns,
                    &mut self.state.right,
                );
                index_probe.rows_with_prefix(&self.probe, |row_id| {
                    if !table_cursor.seek_ge(row_id)? {
                        return Err(ExecError::new(
                            sqlstate::DATA_CORRUPTED,
                            format!(
                                "index of table {} points at missing row {row_id}",
                                table.name
                            ),
                        ));
                    }
                    super::scan::read_row(table_cursor, table, columns, right)?;
                    Ok(true)
                })?;
            }
            _ => {
                let Some(Value::Integer(row_id)) = key.first() else {
                    return Ok(());
                };
                if self.table_cursor.seek_ge(*row_id)? {
                    super::scan::read_row(
                        &self.table_cursor,
                        &self.table,
                        &self.columns,
                        &mut self.state.right,
                    )?;
                }
            }
        }
        Ok(())
    }
}

impl Operator for IndexJoin {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        ctx.check_interrupt()?;
        let mut key: Vec<Value> = Vec::with_capacity(self.left_keys.len());
        while self.state.wants_rows() {
            let mut pending = match self.state.take_pending() {
                Some(pending) => pending,
                None => match self.left.next(ctx)? {
                    Some(batch) => PendingLeft::with_keys(batch, &self.left_keys, ctx)?,
                    None => {
                        self.state.finished_left = true;
                        continue;
                    }
                },
            };
            let refs: Vec<&ColumnVector> = pending.keys.iter().collect();
            while let Some(left_row) = pending.rows.next(self.state.output.rows) {
                if any_null(&refs, left_row) {
                    self.state.right.clear();
                } else {
                    key.clear();
                    key.extend(refs.iter().map(|column| column.get(left_row)));
                    self.fetch(&key)?;
                }
                // Every fetched row is a candidate (one buffer for the whole join).
                self.candidates.clear();
                self.candidates.extend(0..self.state.right.rows as u32);
                let filtered = match (&self.residual, self.candidates.is_empty()) {
                    (Some(residual), false) => {
                        let pairs = self.state.pairs(&pending.batch, left_row, &self.candidates);
                        Some(eval::select_true(residual, &pairs, ctx)?)
                    }
                    _ => None,
                };
                let matches = filtered.as_deref().unwrap_or(&self.candidates);
                self.state.emit(&pending.batch, left_row, matches);
            }
            self.state.keep_pending(pending);
        }
        if self.state.finished_left && self.state.output.rows == 0 {
            return Ok(None);
        }
        Ok(Some(self.state.take_output()))
    }

    /// The right side is fetched per left row (its cursors seek afresh), so only the left
    /// input and the join's progress restart.
    fn rewindable(&self) -> bool {
        self.left.rewindable()
    }

    fn rewind(&mut self, ctx: &ExecContext) -> ExecResult<()> {
        self.left.rewind(ctx)?;
        self.state.restart_fetched();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Joins whose left rows each match many right rows must still hand out batches of
    //! bounded size: the whole product never sits in memory at once.

    use std::collections::VecDeque;

    use super::*;
    use crate::exec::operators::Replay;
    use crate::exec::operators::hash_join::HashJoin;
    use crate::plan::BinaryOp;

    const TYPES: [DataType; 2] = [DataType::Integer, DataType::Integer];

    /// `count` rows `(key, index)` in batches of up to `BATCH_SIZE`.
    fn input(count: usize, key: impl Fn(usize) -> i64) -> Box<dyn Operator> {
        let mut batches = VecDeque::new();
        for start in (0..count).step_by(BATCH_SIZE) {
            let mut batch = Batch::with_types(&TYPES, BATCH_SIZE);
            for index in start..count.min(start + BATCH_SIZE) {
                batch.push_row(&[Value::Integer(key(index)), Value::Integer(index as i64)]);
            }
            batches.push_back(batch);
        }
        Box::new(Replay(batches))
    }

    fn column(index: usize) -> Expr {
        Expr::Column {
            index,
            data_type: DataType::Integer,
        }
    }

    /// Drains `join`, checking every batch's size; returns (rows, unmatched-left rows).
    fn drain(join: &mut dyn Operator, right_rows: usize) -> (usize, usize) {
        let ctx = ExecContext::for_tests(usize::MAX);
        let (mut rows, mut unmatched) = (0, 0);
        while let Some(batch) = join.next(&ctx).unwrap() {
            // One left row may overshoot a full batch by at most its own matches.
            assert!(batch.rows < BATCH_SIZE + right_rows, "{} rows", batch.rows);
            rows += batch.rows;
            unmatched += (0..batch.rows)
                .filter(|&row| batch.columns[2].get(row) == Value::Null)
                .count();
        }
        (rows, unmatched)
    }

    #[test]
    fn a_cross_join_streams_in_bounded_batches() {
        let (left, right) = (3000, 700);
        let mut join = NestedLoopJoin::new(
            input(left, |index| index as i64),
            input(right, |index| index as i64),
            JoinKind::Inner,
            None,
            TYPES.to_vec(),
            TYPES.to_vec(),
        );
        assert_eq!(drain(&mut join, right), (left * right, 0));
    }

    #[test]
    fn a_nested_loop_left_join_keeps_unmatched_rows_across_batches() {
        // Left key k matches right rows with key < k: left rows 0 match nothing.
        let (left, right) = (2500, 400);
        let condition = Expr::Binary {
            op: BinaryOp::Less,
            left: Box::new(column(2)),
            right: Box::new(column(0)),
            data_type: DataType::Boolean,
        };
        let mut join = NestedLoopJoin::new(
            input(left, |index| (index % 5) as i64),
            input(right, |index| (index % 4) as i64),
            JoinKind::Left,
            Some(condition),
            TYPES.to_vec(),
            TYPES.to_vec(),
        );
        // Per 5 left rows (keys 0..5): 0, 100, 200, 300 and 400 matches, key 0 unmatched.
        let per_five = 100 + 200 + 300 + 400 + 1;
        assert_eq!(drain(&mut join, right), (left / 5 * per_five, left / 5));
    }

    #[test]
    fn a_hash_join_on_a_shared_key_streams_in_bounded_batches() {
        // Every row has one of two keys: each left row matches half the right side.
        let (left, right) = (2000, 900);
        for kind in [JoinKind::Inner, JoinKind::Full] {
            let mut join = HashJoin::new(
                input(left, |index| (index % 2) as i64),
                input(right, |index| (index % 3).min(1) as i64),
                kind,
                vec![column(0)],
                vec![column(0)],
                None,
                TYPES.to_vec(),
                TYPES.to_vec(),
            );
            // Key 0: 1000 left × 300 right; key 1: 1000 left × 600 right.
            assert_eq!(
                drain(&mut join, right),
                (1000 * 300 + 1000 * 600, 0),
                "{kind:?}"
            );
        }
    }
}
