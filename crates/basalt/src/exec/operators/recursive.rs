//! WITH RECURSIVE: the recursive union and the scan of its working table.
//!
//! PostgreSQL's evaluation, streamed: the rows of the non-recursive term are emitted and kept
//! as the *working table*; then the recursive term is evaluated over the working table, its
//! rows emitted and kept as the next working table, and so on until an evaluation produces
//! no rows. Before each evaluation the working table goes into the context's working tables
//! ([`ExecContext::working_tables`]) under the address of the working table scan node, from
//! where the one [`WorkingTableScan`] for that node takes it; then the recursive term's
//! operators restart ([`Operator::rewind`]) when they all can, and are built afresh
//! otherwise (operators are per-execution state; the plan is immutable). (The recursive
//! term is shared with the statement's plan, so the address is the same for every
//! evaluation and for EXPLAIN ANALYZE.)
//!
//! Guarantees:
//! * Rows stream: a consumer that stops pulling (a LIMIT above) stops the recursion, so an
//!   endless UNION ALL is usable under a LIMIT, as in PostgreSQL.
//! * Memory beyond the output is the working table being read and the one being filled —
//!   one iteration's rows each — plus, for UNION (not ALL), the set of every distinct row
//!   produced so far. That set is an in-memory hash set of row keys (`exec::row_key`); unlike
//!   the set operations it does not spill, because a row must be known to be new before it
//!   can feed the next iteration.
//! * The interrupt flag is checked before every batch, so an endless recursion can be
//!   cancelled even while its iterations produce no rows for the consumer.

use std::sync::Arc;

use crate::exec::batch::{Batch, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::explain::node_key;
use crate::exec::row_key::RowKeySet;
use crate::exec::row_key::equality_key;
use crate::plan::{PlanKind, PlanNode};

use super::{Operator, build};

/// Where the recursive union is in its evaluation.
#[derive(Debug)]
enum Phase {
    /// Reading the non-recursive term.
    Base(Box<dyn Operator>),
    /// Reading one evaluation of the recursive term.
    Recursive(Box<dyn Operator>),
    /// An evaluation produced no rows.
    Finished,
}

/// `base UNION [ALL] recursive`, the recursive term evaluated until it produces nothing.
#[derive(Debug)]
pub struct RecursiveUnion {
    /// The recursive term's plan (shared with the statement's plan), built anew for every
    /// evaluation.
    recursive: Arc<PlanNode>,
    /// The address of the working table scan node inside `recursive`; `None` when the
    /// recursive term does not read the working table after all.
    scan: Option<usize>,
    phase: Phase,
    /// Rows produced by the current evaluation: the next working table.
    produced: Vec<Batch>,
    /// For UNION: the key of every row emitted so far. `None` for UNION ALL.
    seen: Option<RowKeySet>,
    key: Vec<u8>,
}

impl RecursiveUnion {
    /// The union of `base` (already built) and repeated evaluations of `recursive`, whose
    /// working table scan reads `working_table`.
    pub fn new(
        base: Box<dyn Operator>,
        recursive: Arc<PlanNode>,
        working_table: usize,
        all: bool,
    ) -> Self {
        let scan = find_scan(&recursive, working_table).map(node_key);
        RecursiveUnion {
            recursive,
            scan,
            phase: Phase::Base(base),
            produced: Vec::new(),
            seen: (!all).then(RowKeySet::default),
            key: Vec::new(),
        }
    }

    /// The rows of `batch` not emitted before (all of them for UNION ALL).
    fn new_rows(&mut self, batch: Batch) -> Batch {
        let Some(seen) = &mut self.seen else {
            return batch;
        };
        let columns: Vec<&ColumnVector> = batch.columns.iter().collect();
        let mut keep = Vec::with_capacity(batch.rows);
        for row in 0..batch.rows {
            equality_key(&columns, row, &mut self.key);
            if !seen.contains(&self.key) {
                seen.insert(self.key.clone());
                keep.push(row as u32);
            }
        }
        if keep.len() == batch.rows {
            batch
        } else {
            batch.gather(&keep)
        }
    }

    /// Starts the next evaluation over the rows the last one produced, or finishes when it
    /// produced none.
    fn start_evaluation(&mut self, ctx: &ExecContext) -> ExecResult<()> {
        if let Some(key) = self.scan {
            // A table an evaluation did not read (it stopped early) goes now.
            ctx.working_tables.borrow_mut().remove(&key);
        }
        if self.produced.is_empty() {
            self.phase = Phase::Finished;
            return Ok(());
        }
        let working = std::mem::take(&mut self.produced);
        if let Some(key) = self.scan {
            ctx.working_tables.borrow_mut().insert(key, working);
        }
        // The previous evaluation's operators start over when they all can (most recursive
        // terms are a join, a filter and a projection over the working table: no plan to
        // build, no buffers to allocate again); otherwise they are dropped and built anew.
        if let Phase::Recursive(operators) = &mut self.phase
            && operators.rewindable()
        {
            return operators.rewind(ctx);
        }
        self.phase = Phase::Finished;
        self.phase = Phase::Recursive(build(&self.recursive, ctx)?);
        Ok(())
    }
}

impl Operator for RecursiveUnion {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        loop {
            ctx.check_interrupt()?;
            let input = match &mut self.phase {
                Phase::Base(input) | Phase::Recursive(input) => input,
                Phase::Finished => return Ok(None),
            };
            match input.next(ctx)? {
                Some(batch) => {
                    let batch = self.new_rows(batch);
                    if batch.rows == 0 {
                        continue;
                    }
                    self.produced.push(batch.clone());
                    return Ok(Some(batch));
                }
                None => self.start_evaluation(ctx)?,
            }
        }
    }
}

/// The working table scan numbered `working_table` in `node`'s tree (not inside subquery
/// expressions, where the binder never puts one).
fn find_scan(node: &PlanNode, working_table: usize) -> Option<&PlanNode> {
    if matches!(node.kind, PlanKind::WorkingTableScan { working_table: number } if number == working_table)
    {
        return Some(node);
    }
    node.kind
        .children()
        .into_iter()
        .find_map(|child| find_scan(child, working_table))
}

/// The working table of the enclosing recursive union: the rows of its previous evaluation.
#[derive(Debug)]
pub struct WorkingTableScan {
    batches: std::vec::IntoIter<Batch>,
    /// The scan node's address: where the recursive union puts each working table.
    key: usize,
}

impl WorkingTableScan {
    /// Takes the working table for `node` from the context (put there by the recursive union
    /// that is building this scan's operators).
    pub fn new(node: &PlanNode, ctx: &ExecContext) -> ExecResult<Self> {
        let key = node_key(node);
        Ok(WorkingTableScan {
            batches: take_working_table(key, ctx)?.into_iter(),
            key,
        })
    }
}

/// The working table the recursive union put under `key`.
fn take_working_table(key: usize, ctx: &ExecContext) -> ExecResult<Vec<Batch>> {
    ctx.working_tables
        .borrow_mut()
        .remove(&key)
        .ok_or_else(|| ExecError::internal("a working table is read outside its recursive union"))
}

impl Operator for WorkingTableScan {
    fn next(&mut self, _ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        Ok(self.batches.next())
    }

    fn rewindable(&self) -> bool {
        true
    }

    /// Takes the new working table, as [`WorkingTableScan::new`] takes the first.
    fn rewind(&mut self, ctx: &ExecContext) -> ExecResult<()> {
        self.batches = take_working_table(self.key, ctx)?.into_iter();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::exec::operators::{Replay, collect};
    use crate::plan::{BinaryOp, Expr, OutputColumn, PlanKind};
    use crate::sqlstate;
    use crate::types::{DataType, Value};

    const WORKING_TABLE: usize = 7;

    fn integers(values: &[i64]) -> Batch {
        let mut batch = Batch::with_types(&[DataType::Integer], values.len());
        for &value in values {
            batch.push_row(&[Value::Integer(value)]);
        }
        batch
    }

    fn base(batches: Vec<Batch>) -> Box<dyn Operator> {
        Box::new(Replay(VecDeque::from(batches)))
    }

    fn node(kind: PlanKind) -> PlanNode {
        PlanNode {
            kind,
            schema: vec![OutputColumn {
                name: "x".into(),
                table: None,
                data_type: DataType::Integer,
                source: None,
            }],
        }
    }

    fn integer(value: i64) -> Expr {
        Expr::Literal {
            value: Value::Integer(value),
            data_type: DataType::Integer,
        }
    }

    fn binary(op: BinaryOp, left: Expr, right: Expr, data_type: DataType) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
            data_type,
        }
    }

    /// `SELECT x + step FROM working_table [WHERE x < limit]`.
    fn step_term(step: i64, limit: Option<i64>) -> Arc<PlanNode> {
        let column = Expr::Column {
            index: 0,
            data_type: DataType::Integer,
        };
        let mut input = node(PlanKind::WorkingTableScan {
            working_table: WORKING_TABLE,
        });
        if let Some(limit) = limit {
            input = node(PlanKind::Filter {
                input: Box::new(input),
                predicate: binary(
                    BinaryOp::Less,
                    column.clone(),
                    integer(limit),
                    DataType::Boolean,
                ),
            });
        }
        Arc::new(node(PlanKind::Project {
            input: Box::new(input),
            exprs: vec![binary(
                BinaryOp::Add,
                column,
                integer(step),
                DataType::Integer,
            )],
        }))
    }

    fn values(batches: &[Batch]) -> Vec<i64> {
        batches
            .iter()
            .flat_map(|batch| (0..batch.rows).map(|row| batch.columns[0].get(row)))
            .map(|value| match value {
                Value::Integer(value) => value,
                other => panic!("not an integer: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn counts_until_the_recursive_term_produces_nothing() {
        let ctx = ExecContext::for_tests(1 << 20);
        let mut union = RecursiveUnion::new(
            base(vec![integers(&[1])]),
            step_term(1, Some(5)),
            WORKING_TABLE,
            true,
        );
        let batches = collect(&mut union, &ctx).unwrap();
        assert_eq!(values(&batches), [1, 2, 3, 4, 5]);
        assert!(ctx.working_tables.borrow().is_empty());
    }

    #[test]
    fn an_empty_base_never_evaluates_the_recursive_term() {
        let ctx = ExecContext::for_tests(1 << 20);
        let mut union = RecursiveUnion::new(
            base(vec![integers(&[]), integers(&[])]),
            step_term(1, None),
            WORKING_TABLE,
            true,
        );
        assert!(collect(&mut union, &ctx).unwrap().is_empty());
    }

    #[test]
    fn empty_batches_between_rows_do_not_end_an_evaluation() {
        let ctx = ExecContext::for_tests(1 << 20);
        let mut union = RecursiveUnion::new(
            base(vec![integers(&[]), integers(&[10, 20]), integers(&[])]),
            step_term(1, Some(12)),
            WORKING_TABLE,
            true,
        );
        // 20 is filtered out of the first evaluation's input; the batch still carries 11.
        let batches = collect(&mut union, &ctx).unwrap();
        assert_eq!(values(&batches), [10, 20, 11, 12]);
    }

    #[test]
    fn union_drops_rows_seen_in_any_earlier_evaluation() {
        let ctx = ExecContext::for_tests(1 << 20);
        // x -> x + 0 produces nothing new: the recursion ends after one evaluation.
        let mut union = RecursiveUnion::new(
            base(vec![integers(&[3, 3, 4]), integers(&[4, 5])]),
            step_term(0, None),
            WORKING_TABLE,
            false,
        );
        let batches = collect(&mut union, &ctx).unwrap();
        assert_eq!(values(&batches), [3, 4, 5]);
    }

    #[test]
    fn an_endless_union_all_stops_at_the_interrupt() {
        let ctx = ExecContext::for_tests(1 << 20);
        let mut union = RecursiveUnion::new(
            base(vec![integers(&[1])]),
            step_term(1, None),
            WORKING_TABLE,
            true,
        );
        for expected in 1..=1000 {
            let batch = union.next(&ctx).unwrap().unwrap();
            assert_eq!(values(&[batch]), [expected]);
        }
        ctx.interrupt.store(1, Ordering::Relaxed);
        let error = union.next(&ctx).unwrap_err();
        assert_eq!(error.code, sqlstate::QUERY_CANCELED);
    }

    #[test]
    fn a_scan_outside_its_union_is_an_internal_error() {
        let ctx = ExecContext::for_tests(1 << 20);
        let scan = node(PlanKind::WorkingTableScan {
            working_table: WORKING_TABLE,
        });
        let error = WorkingTableScan::new(&scan, &ctx).unwrap_err();
        assert_eq!(error.code, sqlstate::INTERNAL_ERROR);
    }
}
