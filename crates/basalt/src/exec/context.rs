//! The state shared by every operator of one statement execution.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::types::Value;

use super::error::{ExecError, ExecResult};
use super::source::PageSource;
use super::vector::Batch;

/// Per-execution state: where pages come from, the parameters, the statement's clock, and
/// the stack of enclosing rows that correlated subqueries read.
#[derive(Debug)]
pub struct ExecContext {
    pub source: PageSource,
    pub params: Vec<Value>,
    /// `now()` for this statement, in microseconds since the epoch (one value per statement,
    /// as PostgreSQL does).
    pub statement_time: i64,
    /// Rows of the enclosing queries, innermost last, while a correlated subquery runs.
    pub outer_rows: RefCell<Vec<Vec<Value>>>,
    /// Results of uncorrelated subqueries, computed once per execution (keyed by the
    /// address of their plan node, which lives as long as the prepared statement).
    pub subquery_results: RefCell<HashMap<usize, Vec<Batch>>>,
    /// Set from another thread to cancel this execution; operators that loop over many rows
    /// check it once per batch.
    pub interrupt: Arc<AtomicBool>,
    /// Set for EXPLAIN ANALYZE: every operator built records its rows and time here.
    pub profile: Option<Box<RefCell<super::explain::Profile>>>,
}

impl ExecContext {
    /// A context reading from `source` with `params`.
    pub fn new(source: PageSource, params: Vec<Value>) -> Self {
        let statement_time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_micros() as i64)
            .unwrap_or(0);
        ExecContext {
            source,
            params,
            statement_time,
            outer_rows: RefCell::new(Vec::new()),
            subquery_results: RefCell::new(HashMap::new()),
            interrupt: Arc::new(AtomicBool::new(false)),
            profile: None,
        }
    }

    /// The same context, cancelled when `interrupt` is set.
    pub fn with_interrupt(mut self, interrupt: Arc<AtomicBool>) -> Self {
        self.interrupt = interrupt;
        self
    }

    /// The same context, recording every operator's rows and time (EXPLAIN ANALYZE).
    pub fn with_profiling(mut self) -> Self {
        self.profile = Some(Box::new(RefCell::new(super::explain::Profile::new())));
        self
    }

    /// Fails with SQLSTATE 57014 (query_canceled) once the execution has been interrupted.
    #[inline]
    pub fn check_interrupt(&self) -> ExecResult<()> {
        if self.interrupt.load(Ordering::Relaxed) {
            return Err(ExecError::new(
                "57014",
                "canceling statement due to user request",
            ));
        }
        Ok(())
    }
}
