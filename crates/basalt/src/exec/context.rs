//! The state shared by every operator of one statement execution: page source, parameters,
//! clock, correlated rows, precomputed rows (subquery results, working tables of recursive
//! queries), cancellation, profiling, and the memory budget each sorting or hashing operator
//! may use before it spills (with the `work_mem` syntax that sets it).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::plan::PlanNode;
use crate::sqlstate;
use crate::types::Value;

use super::batch::Batch;
use super::error::{ExecError, ExecResult};
use super::source::PageSource;
use super::spill::SpillStats;

/// The memory budget of each sorting or hashing operator unless the database's options or the
/// session's `work_mem` say otherwise: 64 MiB.
pub const DEFAULT_OPERATOR_MEMORY: usize = 64 << 20;

/// [`ExecContext`]'s statement time before the clock was read (no real clock gives it).
const NOT_READ_YET: i64 = i64::MIN;

/// Per-execution state: where pages come from, the parameters, the statement's clock, and
/// the stack of enclosing rows that correlated subqueries read.
#[derive(Debug)]
pub struct ExecContext {
    pub source: PageSource,
    pub params: Vec<Value>,
    /// `now()` for this statement, in microseconds since the epoch (one value per statement,
    /// as PostgreSQL does): read from the clock at its first use, since most statements
    /// never ask (see [`ExecContext::statement_time`]). [`NOT_READ_YET`] until then (a
    /// sentinel rather than an `Option`: the context travels by value with every result set,
    /// and the enum holding it must stay small).
    statement_time: Cell<i64>,
    /// Rows of the enclosing queries, innermost last, while a correlated subquery runs.
    pub outer_rows: RefCell<Vec<Vec<Value>>>,
    /// Results of uncorrelated subqueries, computed once per execution, keyed by the plan
    /// node's address and kept with a copy of it (a subquery nested in another subquery
    /// lives in that one's temporary operators, so once they are dropped a different plan
    /// can be allocated at the same address).
    pub subquery_results: RefCell<HashMap<usize, (PlanNode, Vec<Batch>)>>,
    /// The working table of each recursive union, keyed by its working table scan node's
    /// address (the plan is the statement's, alive for the whole execution): put here just
    /// before each evaluation of the recursive term, taken out by that scan.
    pub working_tables: RefCell<HashMap<usize, Vec<Batch>>>,
    /// Set from another thread to cancel this execution ([`INTERRUPT_CANCEL`] or
    /// [`INTERRUPT_STATEMENT_TIMEOUT`]; 0 while it may run); operators that loop over many
    /// rows check it once per batch.
    pub interrupt: Arc<AtomicU8>,
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
    /// The connection's `currval` memory: each sequence's last `nextval` in this session
    /// (`super::sequence`). Shared with the connection, which outlives the execution; `None`
    /// outside a connection, where nothing is remembered. (An `Option` so that making a
    /// context, once per statement, allocates nothing.)
    pub sequence_values: Option<Arc<parking_lot::Mutex<HashMap<String, i64>>>>,
    /// `SET hnsw.ef_search` and `SET hnsw.exact_search`.
    pub vector_search: VectorSearchSettings,
    /// Corpus statistics `bm25_score` gathered during this execution, one scan of a column
    /// per query (`super::eval_text_search`). Boxed and empty until first used, so a context
    /// stays small and allocates nothing for statements that never rank.
    pub text_search_stats: RefCell<Option<Box<super::eval_text_search::StatsCache>>>,
    /// The session's time zone (`SET TIME ZONE`), installed for this thread's casts and
    /// formatting each time the statement's rows are pulled ([`Self::install_time_zone`]),
    /// so that sessions interleaving on one thread each compute in their own zone.
    pub time_zone: jiff::tz::TimeZone,
}

/// The session's settings for vector searches through an HNSW index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorSearchSettings {
    /// The beam width of a search (`hnsw.ef_search`, pgvector's default 40; 1 to 1000).
    pub ef_search: u16,
    /// Read the whole table instead of the index (`hnsw.exact_search`), for recall checks.
    pub exact: bool,
}

impl Default for VectorSearchSettings {
    fn default() -> Self {
        VectorSearchSettings {
            ef_search: 40,
            exact: false,
        }
    }
}

impl ExecContext {
    /// A context reading from `source` with `params`, cancelled when `interrupt` is set.
    pub fn new(source: PageSource, params: Vec<Value>, interrupt: Arc<AtomicU8>) -> Self {
        ExecContext {
            source,
            params,
            statement_time: Cell::new(NOT_READ_YET),
            outer_rows: RefCell::new(Vec::new()),
            subquery_results: RefCell::new(HashMap::new()),
            working_tables: RefCell::new(HashMap::new()),
            interrupt,
            profile: None,
            operator_memory: DEFAULT_OPERATOR_MEMORY,
            spill_directory: None,
            spilled: Cell::new(SpillStats::default()),
            sequence_values: None,
            vector_search: VectorSearchSettings::default(),
            text_search_stats: RefCell::new(None),
            time_zone: jiff::tz::TimeZone::UTC,
        }
    }

    /// The same context in the session's time zone, installed for this thread now.
    pub fn with_time_zone(mut self, zone: jiff::tz::TimeZone) -> Self {
        self.time_zone = zone;
        self.install_time_zone();
        self
    }

    /// Makes this statement's session zone the one casts and formatting on this thread use
    /// (see [`crate::types::timezone`]).
    pub fn install_time_zone(&self) {
        crate::types::timezone::install_session_zone(&self.time_zone);
    }

    /// The same context with the session's vector search settings.
    pub fn with_vector_search(mut self, settings: VectorSearchSettings) -> Self {
        self.vector_search = settings;
        self
    }

    /// The same context, remembering `nextval` results in the connection's `values`.
    pub fn with_sequence_values(
        mut self,
        values: Arc<parking_lot::Mutex<HashMap<String, i64>>>,
    ) -> Self {
        self.sequence_values = Some(values);
        self
    }

    /// `now()` for this statement, in microseconds since the epoch: the clock at the first
    /// call, and the same value for every later call of the same execution.
    pub fn statement_time(&self) -> i64 {
        let time = self.statement_time.get();
        if time != NOT_READ_YET {
            return time;
        }
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_micros() as i64)
            .unwrap_or(0)
            .max(NOT_READ_YET + 1);
        self.statement_time.set(time);
        time
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

    /// The same context, recording every operator's rows and time (EXPLAIN ANALYZE).
    pub fn with_profiling(mut self) -> Self {
        self.profile = Some(Box::new(RefCell::new(super::explain::Profile::new())));
        self
    }

    /// Fails with SQLSTATE 57014 (query_canceled) once the execution has been interrupted.
    #[inline]
    pub fn check_interrupt(&self) -> ExecResult<()> {
        match self.interrupt.load(Ordering::Relaxed) {
            0 => Ok(()),
            INTERRUPT_STATEMENT_TIMEOUT => Err(ExecError::new(
                sqlstate::QUERY_CANCELED,
                "canceling statement due to statement timeout",
            )),
            _ => Err(ExecError::new(
                sqlstate::QUERY_CANCELED,
                "canceling statement due to user request",
            )),
        }
    }
}

/// The interrupt flag's value for a cancel (a CancelRequest, Ctrl-C, a client gone).
pub const INTERRUPT_CANCEL: u8 = 1;
/// The interrupt flag's value for a statement that ran past `statement_timeout`.
pub const INTERRUPT_STATEMENT_TIMEOUT: u8 = 2;

/// Parses a memory size as `SET work_mem` takes it, PostgreSQL style: a whole number with an
/// optional unit `B`, `kB`, `MB`, `GB` or `TB` (any case; kB when there is none). At least
/// 64 kB, as in PostgreSQL.
pub fn parse_memory_setting(text: &str) -> Option<usize> {
    let text = text.trim().to_ascii_lowercase();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let number: usize = number.parse().ok()?;
    let multiplier: usize = match unit.trim() {
        "b" => 1,
        "" | "kb" => 1 << 10,
        "mb" => 1 << 20,
        "gb" => 1 << 30,
        "tb" => 1 << 40,
        _ => return None,
    };
    number
        .checked_mul(multiplier)
        .filter(|&bytes| bytes >= 64 << 10)
}

/// A memory size as `SHOW work_mem` prints it: in the largest unit that divides it.
pub fn format_memory_setting(bytes: usize) -> String {
    match bytes {
        0 => "0kB".to_string(),
        _ if bytes.is_multiple_of(1 << 30) => format!("{}GB", bytes >> 30),
        _ if bytes.is_multiple_of(1 << 20) => format!("{}MB", bytes >> 20),
        _ if bytes.is_multiple_of(1 << 10) => format!("{}kB", bytes >> 10),
        _ => format!("{bytes}B"),
    }
}

#[cfg(test)]
impl ExecContext {
    /// A context over an empty in-memory database, giving each operator `operator_memory`
    /// bytes (for operator tests).
    pub(crate) fn for_tests(operator_memory: usize) -> ExecContext {
        let store = crate::txn::Store::open_in_memory(crate::txn::StoreOptions::default()).unwrap();
        ExecContext::new(
            PageSource::Read(Arc::new(store.begin_read())),
            Vec::new(),
            Arc::new(AtomicU8::new(0)),
        )
        .with_memory_budget(operator_memory, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_settings_parse_like_postgresql() {
        assert_eq!(parse_memory_setting("4MB"), Some(4 << 20));
        assert_eq!(parse_memory_setting(" 512kB "), Some(512 << 10));
        assert_eq!(parse_memory_setting("1024"), Some(1 << 20));
        assert_eq!(parse_memory_setting("2gb"), Some(2 << 30));
        assert_eq!(parse_memory_setting("65536B"), Some(64 << 10));
        assert_eq!(parse_memory_setting("1kB"), None);
        assert_eq!(parse_memory_setting("lots"), None);
        assert_eq!(parse_memory_setting("-4MB"), None);
        assert_eq!(parse_memory_setting("99999999999999999999TB"), None);
        assert_eq!(format_memory_setting(64 << 20), "64MB");
        assert_eq!(format_memory_setting(1536 << 10), "1536kB");
        assert_eq!(format_memory_setting(3 << 30), "3GB");
    }
}
