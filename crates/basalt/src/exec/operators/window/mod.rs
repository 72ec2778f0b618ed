//! The window operator: evaluates the window function calls of a `PlanKind::Window` node.
//!
//! Its input arrives ordered by (PARTITION BY keys, ORDER BY keys): [`super::build`] puts
//! the ordinary [`Sort`](super::sort::Sort) operator beneath it, which spills to disk past
//! the operator memory budget. The operator then reads the sorted rows, cuts them into
//! partitions where the PARTITION BY values change, and for each complete partition
//! computes every call ([`functions`]) over its frames ([`frames`]), emitting the input
//! rows with one extra column per call.
//!
//! Memory: only the current partition is held (its input rows, plus the evaluated ORDER BY
//! keys, arguments and FILTERs), along with the finished rows of the partitions completed
//! by the last input batch. A single partition larger than memory is not divided.
//!
//! Output order is the sort order, which SQL leaves unspecified without an ORDER BY on the
//! query; NULL partition keys form one partition, as in PostgreSQL.

mod frames;
mod functions;
#[cfg(test)]
mod tests;

use crate::exec::batch::{Batch, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::ExecResult;
use crate::exec::eval;
use crate::exec::row_key::equality_key;
use crate::plan::{Expr, FrameBound, FrameUnits, SortKey, WindowCall};
use crate::storage::keys::KeyOrder;
use crate::types::{DataType, Value};

use super::Operator;
use super::external_sort::encode_sort_key;
use super::sort::Emitter;
use frames::{FrameSpec, PartitionShape};
use functions::CallInput;

/// Where one call's evaluated inputs sit among a partition's work columns.
#[derive(Debug)]
struct CallColumns {
    /// The first argument column and the number of arguments.
    args: (usize, usize),
    /// The FILTER column, if the call has one.
    filter: Option<usize>,
}

/// Evaluates window calls over sorted input, one partition at a time.
#[derive(Debug)]
pub struct WindowOperator {
    input: Box<dyn Operator>,
    partition_by: Vec<Expr>,
    order_by: Vec<SortKey>,
    functions: Vec<WindowCall>,
    output_types: Vec<DataType>,
    /// The frames with their offsets evaluated, on the first call of `next`.
    frames: Option<Vec<FrameSpec>>,
    /// The expressions evaluated per input row beside its columns: the ORDER BY keys, then
    /// each call's arguments and filter (positions in `call_columns`).
    work: Vec<Expr>,
    call_columns: Vec<CallColumns>,
    /// The rows of the partition being gathered: the input columns, then `work`.
    partition: Batch,
    partition_types: Vec<DataType>,
    /// The PARTITION BY key of the partition being gathered.
    partition_key: Option<Vec<u8>>,
    /// Whether some frame is RANGE with an offset (then the peer computation also needs the
    /// ORDER BY key's values).
    needs_range_axis: bool,
    input_columns: usize,
    output: Emitter,
    input_done: bool,
}

impl WindowOperator {
    /// `input` must already be ordered by `partition_by` then `order_by`.
    pub fn new(
        input: Box<dyn Operator>,
        partition_by: Vec<Expr>,
        order_by: Vec<SortKey>,
        functions: Vec<WindowCall>,
        input_types: Vec<DataType>,
        output_types: Vec<DataType>,
    ) -> Self {
        let mut work: Vec<Expr> = order_by.iter().map(|key| key.expr.clone()).collect();
        let mut call_columns = Vec::with_capacity(functions.len());
        for call in &functions {
            let first = work.len();
            work.extend(call.args.iter().cloned());
            let args = (first, call.args.len());
            let filter = call.filter.as_ref().map(|filter| {
                work.push(filter.clone());
                work.len() - 1
            });
            call_columns.push(CallColumns { args, filter });
        }
        let mut partition_types = input_types.clone();
        partition_types.extend(work.iter().map(Expr::data_type));
        let needs_range_axis = functions.iter().any(|call| {
            call.frame.units == FrameUnits::Range
                && [&call.frame.start, &call.frame.end].iter().any(|bound| {
                    matches!(bound, FrameBound::Preceding(_) | FrameBound::Following(_))
                })
        });
        WindowOperator {
            input,
            partition_by,
            order_by,
            functions,
            output_types,
            frames: None,
            work,
            call_columns,
            partition: Batch::with_types(&partition_types, 0),
            partition_types,
            partition_key: None,
            needs_range_axis,
            input_columns: input_types.len(),
            output: Emitter::default(),
            input_done: false,
        }
    }

    /// Adds one sorted input batch; partitions it completes are appended to `finished`.
    fn consume(
        &mut self,
        batch: &Batch,
        finished: &mut Batch,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        let keys = eval::evaluate_all(&self.partition_by, batch, ctx)?;
        let key_refs: Vec<&ColumnVector> = keys.iter().collect();
        let work = eval::evaluate_all(&self.work, batch, ctx)?;
        let mut key = Vec::new();
        for row in 0..batch.rows {
            equality_key(&key_refs, row, &mut key);
            if self
                .partition_key
                .as_ref()
                .is_some_and(|current| *current != key)
            {
                self.finish_partition(finished)?;
            }
            if self.partition_key.as_ref() != Some(&key) {
                self.partition_key = Some(key.clone());
            }
            let columns = batch.columns.iter().chain(&work);
            for (to, from) in self.partition.columns.iter_mut().zip(columns) {
                to.push_from(from, row);
            }
            self.partition.rows += 1;
        }
        Ok(())
    }

    /// Computes every call over the gathered partition and appends its rows to `finished`.
    fn finish_partition(&mut self, finished: &mut Batch) -> ExecResult<()> {
        let partition = std::mem::replace(
            &mut self.partition,
            Batch::with_types(&self.partition_types, 0),
        );
        let rows = partition.rows;
        if rows == 0 {
            return Ok(());
        }
        let work = &partition.columns[self.input_columns..];
        let order_columns = &work[..self.order_by.len()];
        let orders: Vec<KeyOrder> = self
            .order_by
            .iter()
            .map(|key| KeyOrder {
                descending: key.descending,
                nulls_first: key.nulls_first,
            })
            .collect();
        let mut order_keys = Vec::with_capacity(rows);
        for row in 0..rows {
            let mut key = Vec::new();
            encode_sort_key(order_columns, &orders, row, &mut key);
            order_keys.push(key);
        }
        let range_axis = match (self.needs_range_axis, order_columns.first(), orders.first()) {
            (true, Some(column), Some(order)) => Some((column, order.descending)),
            _ => None,
        };
        let shape = PartitionShape::new(&order_keys, range_axis)?;
        let frames = self.frames.as_deref().unwrap_or_default();
        let mut results = Vec::with_capacity(self.functions.len());
        for ((call, columns), frame) in self.functions.iter().zip(&self.call_columns).zip(frames) {
            let (first, count) = columns.args;
            let keep: Option<Vec<bool>> = columns.filter.map(|filter| {
                let filter = &partition.columns[self.input_columns + filter];
                // True, or (SQLite's lenient conditions) a non-zero integer.
                (0..rows)
                    .map(|row| match filter.get(row) {
                        Value::Boolean(value) => value,
                        Value::Integer(value) => value != 0,
                        _ => false,
                    })
                    .collect()
            });
            let input = CallInput {
                call,
                frame,
                args: &work[first..first + count],
                keep: keep.as_deref(),
            };
            results.push(functions::compute(&input, &shape)?);
        }
        let columns = partition.columns[..self.input_columns]
            .iter()
            .chain(&results);
        for (to, from) in finished.columns.iter_mut().zip(columns) {
            for row in 0..rows {
                to.push_from(from, row);
            }
        }
        finished.rows += rows;
        Ok(())
    }
}

impl Operator for WindowOperator {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if self.frames.is_none() {
            let frames = self
                .functions
                .iter()
                .map(|call| FrameSpec::resolve(&call.frame, ctx))
                .collect::<ExecResult<Vec<_>>>()?;
            self.frames = Some(frames);
        }
        loop {
            if let Some(batch) = self.output.next_batch() {
                return Ok(Some(batch));
            }
            if self.input_done {
                return Ok(None);
            }
            let mut finished = Batch::with_types(&self.output_types, 0);
            match self.input.next(ctx)? {
                Some(batch) => self.consume(&batch, &mut finished, ctx)?,
                None => {
                    self.input_done = true;
                    self.finish_partition(&mut finished)?;
                }
            }
            if finished.rows > 0 {
                let positions = (0..finished.rows as u32).collect();
                self.output = Emitter::new(finished, positions);
            }
        }
    }
}
