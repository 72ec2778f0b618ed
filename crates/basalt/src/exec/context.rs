//! The state shared by every operator of one statement execution.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::types::Value;

use super::error::{ExecError, ExecResult};
use super::source::PageSource;
use super::spill::SpillStats;
use super::vector::Batch;

/// The memory budget of each sorting or hashing operator unless the database's options or the
/// session's `work_mem` say otherwise: 64 MiB.
pub const DEFAULT_OPERATOR_MEMORY: usize = 64 << 20;

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
    /// Bytes of rows each sort, hash aggregation, hash join build side, DISTINCT or set
    /// operation may hold before it spills to temporary files (`exec::spill`).
    pub operator_memory: usize,
    /// Where spill files are created; `None` is the system's temporary directory. (An `Arc`
    /// keeps the context small: it travels by value with every result set.)
    pub spill_directory: Option<Arc<PathBuf>>,
    /// What every operator of this execution has written to spill files so far (EXPLAIN
    /// ANALYZE reports each operator's share).
    pub spilled: Cell<SpillStats>,
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
            operator_memory: DEFAULT_OPERATOR_MEMORY,
            spill_directory: None,
            spilled: Cell::new(SpillStats::default()),
        }
    }

    /// The same context, with each memory-hungry operator limited to `operator_memory` bytes
    /// and spilling into `spill_directory` (the system's temporary directory when `None`).
    pub fn with_memory_budget(
        mut self,
        operator_memory: usize,
        spill_directory: Option<Arc<PathBuf>>,
    ) -> Self {
        self.operator_memory = operator_memory;
        self.spill_directory = spill_directory;
        self
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

#[cfg(test)]
impl ExecContext {
    /// A context over an empty in-memory database, giving each operator `operator_memory`
    /// bytes (for operator tests).
    pub(crate) fn for_tests(operator_memory: usize) -> ExecContext {
        let store = crate::txn::Store::open_in_memory(crate::txn::StoreOptions::default()).unwrap();
        ExecContext::new(PageSource::Read(Arc::new(store.begin_read())), Vec::new())
            .with_memory_budget(operator_memory, None)
    }
}
