//! Joins: nested loops (any condition), and the state every join shares; the hash join
//! (equality keys) is in `hash_join`.
//!
//! Nested loop and hash joins materialise the right input (the hash join spills it past the
//! memory budget; the nested loop join does not), then stream the left input batch by batch. For each
//! left row they form the candidate pairs, evaluate the join condition over the pairs as one
//! batch (so conditions run vectorised), and emit matches. LEFT / FULL joins add a row with
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
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::exec::row_key::any_null;
use crate::exec::source::PageSource;
use crate::exec::vector::{BATCH_SIZE, Batch, Vector};
use crate::plan::{Expr, JoinKind, ScanColumn};
use crate::storage::btree::{IndexCursor, IndexTree, TableCursor, TableTree};
use crate::storage::keys;
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
}

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
            output: Batch::with_types(&output_types, BATCH_SIZE),
            finished_left: false,
            emitted_right_leftovers: false,
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
        let mut columns: Vec<Vector> = left
            .columns
            .iter()
            .map(|column| {
                let mut repeated = Vector::with_capacity(column.data_type(), candidates.len());
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

    pub(super) fn take_output(&mut self) -> Batch {
        let empty = Batch::with_types(&self.output_types(), BATCH_SIZE);
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
        while self.state.output.rows < BATCH_SIZE && !self.state.finished_left {
            let Some(left) = self.left.next(ctx)? else {
                self.state.finished_left = true;
                break;
            };
            for left_row in 0..left.rows {
                let matches = match &self.condition {
                    None => all_right.clone(),
                    Some(condition) => {
                        if all_right.is_empty() {
                            Vec::new()
                        } else {
                            let pairs = self.state.pairs(&left, left_row, &all_right);
                            eval::select_true(condition, &pairs, ctx)?
                        }
                    }
                };
                self.state.emit(&left, left_row, &matches);
            }
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
    index_cursor: Option<IndexCursor<PageSource>>,
    /// The encoded key prefix being probed, reused across rows.
    probe: Vec<u8>,
    state: JoinState,
}

impl IndexJoin {
    #[allow(clippy::too_many_arguments)]
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
        let index_cursor = index
            .as_ref()
            .map(|index| IndexTree::open(index.root).cursor(ctx.source.clone()));
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
            index_cursor,
            probe: Vec::new(),
            state,
        })
    }

    /// Loads into `state.right` the table rows whose key equals `key` (no NULLs in it).
    fn fetch(&mut self, key: &[Value]) -> ExecResult<()> {
        self.state.right.clear();
        match (&self.index, &mut self.index_cursor) {
            (Some(index), Some(index_cursor)) => {
                self.probe.clear();
                for (value, (_, order)) in key.iter().zip(&index.columns) {
                    keys::encode_value(&super::scan::key_value(value), *order, &mut self.probe);
                }
                index_cursor.seek_ge(&self.probe)?;
                while index_cursor.is_valid() && index_cursor.key().starts_with(&self.probe) {
                    let row_id = keys::decode_row_id(index_cursor.key())
                        .map_err(|e| ExecError::new("XX001", e.to_string()))?;
                    if !self.table_cursor.seek_ge(row_id)? {
                        return Err(ExecError::new(
                            "XX001",
                            format!(
                                "index of table {} points at missing row {row_id}",
                                self.table.name
                            ),
                        ));
                    }
                    super::scan::read_row(
                        &self.table_cursor,
                        &self.table,
                        &self.columns,
                        &mut self.state.right,
                    )?;
                    index_cursor.next()?;
                }
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
        while self.state.output.rows < BATCH_SIZE && !self.state.finished_left {
            let Some(left) = self.left.next(ctx)? else {
                self.state.finished_left = true;
                break;
            };
            let key_columns = eval::evaluate_all(&self.left_keys, &left, ctx)?;
            let refs: Vec<&Vector> = key_columns.iter().collect();
            for left_row in 0..left.rows {
                if any_null(&refs, left_row) {
                    self.state.right.clear();
                } else {
                    key.clear();
                    key.extend(refs.iter().map(|column| column.get(left_row)));
                    self.fetch(&key)?;
                }
                let candidates: Vec<u32> = (0..self.state.right.rows as u32).collect();
                let matches = match (&self.residual, candidates.is_empty()) {
                    (Some(residual), false) => {
                        let pairs = self.state.pairs(&left, left_row, &candidates);
                        eval::select_true(residual, &pairs, ctx)?
                    }
                    _ => candidates,
                };
                self.state.emit(&left, left_row, &matches);
            }
        }
        if self.state.finished_left && self.state.output.rows == 0 {
            return Ok(None);
        }
        Ok(Some(self.state.take_output()))
    }
}
