//! [`Session`]: one client's session on a database, owned and `'static` — its transaction,
//! settings, named prepared statements and portals — and the engine loop every statement
//! goes through, whichever API it arrives by.
//!
//! Two front ends sit on it. The wire protocol's shape is the session's own public API
//! ([`portal`]): statements prepared under a name, described (parameter types and result
//! columns), bound to parameters as portals, executed a number of rows at a time and resumed,
//! and cancelled from another thread. The rusqlite-shaped [`Connection`](super::Connection),
//! [`Statement`](super::Statement) and [`Rows`](super::Rows) are a thin layer that borrows a
//! session and drives the same [`Session::run`].
//!
//! Transactions follow SQLite's model with PostgreSQL's syntax. Outside `BEGIN`, every
//! statement runs in its own transaction (autocommit): queries on a fresh snapshot, writes in
//! the single write transaction, committed when the statement succeeds. After `BEGIN`, the
//! session holds a snapshot; its first write takes the writer slot and continues from that
//! snapshot — if another session committed in between, the write fails with 40001 (as
//! SQLite's `BUSY_SNAPSHOT`), because its reads would otherwise be stale. Every statement
//! inside a transaction runs under a savepoint, so a failed statement changes nothing while
//! the transaction continues ([`transaction`], [`write`]).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

use parking_lot::Mutex;

use crate::catalog::Catalog;
use crate::exec::context::ExecContext;
use crate::exec::dml::TableRules;
use crate::exec::foreign_keys::ForeignKeyRules;
use crate::exec::source::PageSource;
use crate::exec::triggers::TriggerRuntime;
use crate::plan::bind;
use crate::plan::ddl::{DdlStatement, IsolationLevel};
use crate::plan::optimize;
use crate::plan::{Bound, BoundStatement, OutputColumn, PlanKind, PlanNode};
use crate::sqlstate;
use crate::txn::{ReadTxn, SavepointId, WriteTxn};
use crate::types::{DataType, Value};

use super::database::DatabaseInner;
use super::error::{Error, Result};

mod cursor;
mod explain;
pub(crate) mod portal;
mod settings;
mod stream;
mod timeouts;
mod transaction;
mod vacuum;
mod write;

pub(crate) use explain::Buffered;
use explain::{analyzed_lines, plan_lines, text_rows};
pub use portal::{ColumnDescription, Execution, ParameterDescription, StatementDescription};
use settings::is_integrity_check;
pub(crate) use stream::RowStream;
pub use timeouts::SessionTimeouts;

/// A prepared statement's plan and everything needed to run or re-plan it. Always boxed:
/// sqlparser's statement alone is kilobytes, and a cached statement moves in and out of the
/// cache on every use.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) sql: String,
    pub(crate) ast: sqlparser::ast::Statement,
    pub(crate) bound: Bound,
    pub(crate) catalog: Arc<Catalog>,
    /// Defaults and CHECKs of the table a modification writes.
    pub(crate) rules: TableRules,
    /// The foreign keys a modification enforces.
    pub(crate) foreign_keys: ForeignKeyRules,
    /// The result columns of `bound` ([`output_columns`]), shared with the statement handles
    /// and portals that hand out its rows, so that running it copies none of them.
    pub(crate) columns: Arc<[OutputColumn]>,
}

/// What running a statement produced.
#[allow(
    clippy::large_enum_variant,
    reason = "one Outcome per statement, moved once; boxing its context would allocate per statement"
)]
pub(crate) enum Outcome {
    /// Rows to stream (queries, RETURNING, SHOW, EXPLAIN).
    Rows {
        operator: Box<dyn crate::exec::operators::Operator>,
        ctx: ExecContext,
    },
    /// Rows changed (0 for DDL and transaction control).
    Changed(u64),
}

#[derive(Debug)]
struct ExplicitTxn {
    read: Arc<ReadTxn>,
    write: Option<Arc<Mutex<WriteTxn>>>,
    /// Named savepoints, oldest first (no storage savepoint until the transaction writes).
    savepoints: Vec<(String, Option<SavepointId>)>,
    /// Started by SAVEPOINT rather than BEGIN: releasing the last savepoint commits.
    started_by_savepoint: bool,
    /// Whether a statement has read rows through `read`. Until one has, the snapshot can
    /// still move: the first write takes the newest one (see `Session::upgrade`).
    read_from: bool,
    /// The isolation level asked for (shown, not acted on: see [`IsolationLevel`]).
    isolation: IsolationLevel,
    /// `READ ONLY`: every write is 25006.
    read_only: bool,
}

#[derive(Debug, Default)]
struct SessionState {
    txn: Option<ExplicitTxn>,
    last_insert_row_id: i64,
    changes: u64,
    settings: BTreeMap<String, String>,
    /// `SET work_mem`: the operator memory budget overriding `Options::operator_memory`.
    work_mem: Option<usize>,
    /// `SET TIME ZONE`: the zone TIMESTAMPTZ values are read and shown in (`None`: UTC).
    time_zone: Option<jiff::tz::TimeZone>,
    /// `SET hnsw.ef_search`, `SET hnsw.exact_search`.
    vector_search: crate::exec::context::VectorSearchSettings,
    /// `PRAGMA busy_timeout`: how long this connection waits for the writer slot, overriding
    /// the database's `busy_timeout` option.
    busy_timeout: Option<std::time::Duration>,
    /// Counts the explicit transactions that have ended: a portal running when it changes
    /// ran the COMMIT or ROLLBACK that closed every portal, itself included.
    transaction_epoch: u64,
    /// `SET SESSION CHARACTERISTICS AS TRANSACTION ...`: the modes transactions begin with
    /// (`None`: serializable, read-write).
    default_isolation: Option<IsolationLevel>,
    default_read_only: bool,
    /// `currval` memory: each sequence's last `nextval` on this session.
    sequence_values: Arc<Mutex<std::collections::HashMap<String, i64>>>,
    /// Open SQL cursors (DECLARE), by name.
    cursors: HashMap<String, cursor::Cursor>,
    /// `SET statement_timeout` and the idle timeouts (stored for a server to act on).
    timeouts: timeouts::SessionTimeouts,
    /// What RESET returns the settings to (`None`: a new session's).
    setting_defaults: Option<Box<settings::SettingDefaults>>,
}

/// One client's session on a database: its explicit transaction, settings, named prepared
/// statements and open portals. Owned and `'static` (it holds the database by reference
/// count), `Send` but not `Sync`: a server keeps one per client and may move it between
/// threads, but uses it from one at a time. Dropping it rolls back an open transaction.
///
/// ```
/// let db = basalt::Database::open_in_memory()?;
/// let session = db.session();
/// session.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3)")?;
/// let described = session.prepare_named("q", "SELECT id FROM t WHERE id > $1 ORDER BY id")?;
/// assert_eq!(described.parameters[0].data_type, basalt::DataType::Integer);
/// assert_eq!(described.columns[0].column.as_deref(), Some("id"));
/// session.bind("p", "q", (0,))?;
/// let mut ids = Vec::new();
/// let first = session.execute_portal("p", 2, |row| Ok(ids.push(row.get::<i64>(0)?)))?;
/// assert!(first.suspended);
/// let rest = session.execute_portal("p", 2, |row| Ok(ids.push(row.get::<i64>(0)?)))?;
/// assert!(!rest.suspended);
/// assert_eq!(ids, [1, 2, 3]);
/// # Ok::<(), basalt::Error>(())
/// ```
#[derive(Debug)]
pub struct Session {
    pub(crate) db: Arc<DatabaseInner>,
    state: RefCell<SessionState>,
    /// Named prepared statements (the wire protocol's; `""` is the unnamed one).
    statements: RefCell<HashMap<String, Arc<Mutex<Prepared>>>>,
    /// Open portals, by name.
    portals: RefCell<HashMap<String, portal::Portal>>,
    /// Shared with [`InterruptHandle`]s; set to cancel the running statement.
    interrupt: Arc<AtomicU8>,
}

/// Cancels the statement a [`Session`] (or [`Connection`](super::Connection)) is running, from
/// any thread (a shell's Ctrl-C handler, a request timeout, a wire protocol CancelRequest). The
/// statement fails with SQLSTATE 57014 and undoes its changes; an interrupt that arrives while
/// nothing runs is forgotten when the next statement or portal execution starts.
#[derive(Clone, Debug)]
pub struct InterruptHandle {
    interrupt: Arc<AtomicU8>,
}

impl InterruptHandle {
    /// Asks the session's running statement to stop at its next batch.
    pub fn interrupt(&self) {
        self.interrupt
            .store(crate::exec::context::INTERRUPT_CANCEL, Ordering::Relaxed);
    }

    /// Stops the running statement because it ran past the session's `statement_timeout`:
    /// it fails with 57014 `canceling statement due to statement timeout` (unless it was
    /// already cancelled, which keeps its own message).
    pub fn interrupt_for_statement_timeout(&self) {
        let _ = self.interrupt.compare_exchange(
            0,
            crate::exec::context::INTERRUPT_STATEMENT_TIMEOUT,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }
}

impl Session {
    pub(crate) fn new(db: Arc<DatabaseInner>) -> Self {
        Session {
            db,
            state: RefCell::new(SessionState::default()),
            statements: RefCell::new(HashMap::new()),
            portals: RefCell::new(HashMap::new()),
            interrupt: Arc::new(AtomicU8::new(0)),
        }
    }

    /// A handle that cancels this session's running statement from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        InterruptHandle {
            interrupt: self.interrupt.clone(),
        }
    }

    /// A fresh execution context; clears an interrupt left from before this statement.
    fn exec_context(&self, source: PageSource, params: Vec<Value>) -> ExecContext {
        self.interrupt.store(0, Ordering::Relaxed);
        let time_zone = self
            .state
            .borrow()
            .time_zone
            .clone()
            .unwrap_or(jiff::tz::TimeZone::UTC);
        let operator_memory =
            (self.state.borrow().work_mem).unwrap_or(self.db.options.operator_memory);
        let sequence_values = self.state.borrow().sequence_values.clone();
        ExecContext::new(source, params, self.interrupt.clone())
            .with_memory_budget(
                operator_memory,
                self.db.options.spill_directory.clone().map(Arc::new),
            )
            .with_sequence_values(sequence_values)
            .with_vector_search(self.state.borrow().vector_search)
            .with_time_zone(time_zone)
    }

    /// Runs every statement of `sql` in order (no parameters), discarding any rows, and
    /// stops at the first error (the statements before it keep their effect).
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        let statements = crate::sql::split_statements(sql).map_err(|e| Error::syntax(&e, sql))?;
        for (ast, range) in statements {
            let text = sql.get(range).unwrap_or(sql);
            let mut prepared = self.prepare_ast(text, ast)?;
            let mut outcome = self.run(&mut prepared, Vec::new())?;
            if let Outcome::Rows { operator, ctx } = &mut outcome {
                crate::exec::operators::collect(operator.as_mut(), ctx)?;
            }
        }
        Ok(())
    }

    /// The row id of the last row inserted through this session.
    pub fn last_insert_rowid(&self) -> i64 {
        self.state.borrow().last_insert_row_id
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    pub fn changes(&self) -> u64 {
        self.state.borrow().changes
    }

    /// Whether an explicit transaction is open.
    pub fn in_transaction(&self) -> bool {
        self.state.borrow().txn.is_some()
    }

    pub(crate) fn prepare_internal(&self, sql: &str) -> Result<Box<Prepared>> {
        let ast = crate::sql::parse_one(sql).map_err(|e| Error::syntax(&e, sql))?;
        self.prepare_ast(sql, ast)
    }

    /// Makes this session's time zone the one casts and value formatting on this thread use
    /// (see [`crate::types::timezone`]): called before binding (literals are converted
    /// then) and before running a statement.
    fn install_time_zone(&self) {
        const UTC: jiff::tz::TimeZone = jiff::tz::TimeZone::UTC;
        let state = self.state.borrow();
        crate::types::timezone::install_session_zone(state.time_zone.as_ref().unwrap_or(&UTC));
    }

    fn prepare_ast(&self, sql: &str, ast: sqlparser::ast::Statement) -> Result<Box<Prepared>> {
        let source = self.read_source()?;
        let catalog = self.db.catalog_for(&source)?;
        self.install_time_zone();
        let bound = self.optimize(bind::bind(&ast, &catalog)?, &catalog, &source);
        let rules = table_rules(&bound, &catalog)?;
        let foreign_keys = foreign_key_rules(&bound, &catalog);
        // A FETCH's columns are its cursor's (when it is open now; a FETCH sets them again
        // when it runs).
        let columns = match &bound.statement {
            BoundStatement::Ddl(DdlStatement::Cursor(
                crate::plan::ddl::CursorStatement::Fetch {
                    name, fetch: true, ..
                },
            )) => self.cursor_columns(name),
            _ => None,
        };
        Ok(Box::new(Prepared {
            sql: sql.to_string(),
            ast,
            columns: columns.unwrap_or_else(|| output_columns(&bound).into()),
            bound,
            catalog,
            rules,
            foreign_keys,
        }))
    }

    /// `bound` through the optimizer, unless `BASALT_NO_OPTIMIZER` or `SET optimizer = off`
    /// disables it (see `plan::optimize`).
    fn optimize(&self, bound: Bound, catalog: &Catalog, source: &PageSource) -> Bound {
        let off = optimize::disabled_by_environment()
            || self
                .state
                .borrow()
                .settings
                .get("optimizer")
                .is_some_and(|value| {
                    matches!(value.to_lowercase().as_str(), "off" | "false" | "0")
                });
        if off {
            bound
        } else {
            let statistics = TreeShapeStatistics { catalog, source };
            optimize::optimize_bound_with(bound, catalog, &statistics)
        }
    }

    /// The triggers a modification planned against `catalog` fires.
    fn trigger_runtime(&self, catalog: &Arc<Catalog>) -> TriggerRuntime {
        TriggerRuntime::new(Arc::clone(catalog), self.foreign_keys_enforced())
    }

    /// Whether modifications enforce foreign keys: `PRAGMA foreign_keys` / `SET
    /// foreign_keys`, on unless turned off (PostgreSQL always enforces them; SQLite's
    /// default is off).
    fn foreign_keys_enforced(&self) -> bool {
        self.state
            .borrow()
            .settings
            .get("foreign_keys")
            .is_none_or(|value| value != "off")
    }

    /// The page source reads use now: the explicit transaction's, or a fresh snapshot.
    pub(crate) fn read_source(&self) -> Result<PageSource> {
        let state = self.state.borrow();
        Ok(match &state.txn {
            Some(ExplicitTxn {
                write: Some(write), ..
            }) => PageSource::Write(write.clone()),
            Some(ExplicitTxn { read, .. }) => PageSource::Read(read.clone()),
            None => PageSource::Read(Arc::new(self.db.store.begin_read())),
        })
    }

    /// The page source a query reads rows from: [`Session::read_source`], noting that the
    /// explicit transaction's snapshot has now been read from (preparing and describing
    /// statements read only the schema, which a write re-checks, so they do not count).
    fn query_source(&self) -> Result<PageSource> {
        if let Some(txn) = self.state.borrow_mut().txn.as_mut() {
            txn.read_from = true;
        }
        self.read_source()
    }

    /// Re-binds `prepared` if the schema changed since it was planned.
    fn refresh(&self, prepared: &mut Prepared, source: &PageSource) -> Result<()> {
        let catalog = self.db.catalog_for(source)?;
        if catalog.version != prepared.catalog.version {
            self.install_time_zone();
            prepared.bound = self.optimize(bind::bind(&prepared.ast, &catalog)?, &catalog, source);
            prepared.rules = table_rules(&prepared.bound, &catalog)?;
            prepared.foreign_keys = foreign_key_rules(&prepared.bound, &catalog);
            prepared.columns = output_columns(&prepared.bound).into();
            prepared.catalog = catalog;
        }
        Ok(())
    }

    /// Runs a prepared statement.
    pub(crate) fn run(&self, prepared: &mut Prepared, params: Vec<Value>) -> Result<Outcome> {
        match &prepared.bound.statement {
            // EXPLAIN ANALYZE of a modification performs it, as PostgreSQL does.
            BoundStatement::Explain {
                plan,
                analyze: true,
                ..
            } if is_modification(plan) => self.run_write(prepared, params),
            // A query calling nextval or setval changes its sequences' counters.
            BoundStatement::Query(plan) if crate::exec::sequence::plan_writes_sequences(plan) => {
                self.run_write(prepared, params)
            }
            BoundStatement::Query(_) | BoundStatement::Explain { .. } => {
                let source = self.query_source()?;
                self.refresh(prepared, &source)?;
                let ctx = self.exec_context(source, params);
                match &prepared.bound.statement {
                    BoundStatement::Query(plan) => {
                        let operator = crate::exec::operators::build(plan, &ctx)?;
                        Ok(Outcome::Rows { operator, ctx })
                    }
                    BoundStatement::Explain {
                        plan,
                        analyze: false,
                        verbose,
                    } => {
                        let lines = plan_lines(plan, *verbose, &prepared.catalog, &ctx, None);
                        Ok(text_rows(lines, ctx))
                    }
                    BoundStatement::Explain {
                        plan,
                        analyze: true,
                        verbose,
                    } => {
                        let ctx = ctx.with_profiling();
                        let started = Instant::now();
                        let mut operator = crate::exec::operators::build(plan, &ctx)?;
                        while operator.next(&ctx)?.is_some() {}
                        drop(operator);
                        let lines = analyzed_lines(
                            plan,
                            *verbose,
                            &prepared.catalog,
                            &ctx,
                            started.elapsed(),
                        );
                        Ok(text_rows(lines, ctx))
                    }
                    _ => Err(Error::new(
                        sqlstate::INTERNAL_ERROR,
                        "statement changed kind while re-planning",
                    )),
                }
            }
            BoundStatement::Ddl(DdlStatement::Transaction(control)) => {
                let control = control.clone();
                self.control(&control)?;
                Ok(Outcome::Changed(0))
            }
            // Checked by the binder (the object exists); nothing to store.
            BoundStatement::Ddl(DdlStatement::NoEffect) => Ok(Outcome::Changed(0)),
            BoundStatement::Ddl(DdlStatement::Cursor(statement)) => {
                let statement = statement.clone();
                self.run_cursor(&statement, prepared, params)
            }
            BoundStatement::Ddl(DdlStatement::Vacuum { analyze }) => {
                let analyze = analyze.clone();
                self.vacuum(analyze)
            }
            BoundStatement::Ddl(DdlStatement::Setting { name, value, show }) => {
                let (name, value, show) = (name.clone(), value.clone(), *show);
                self.setting(&name, value, show, params)
            }
            BoundStatement::Ddl(DdlStatement::Reset { name }) => {
                let name = name.clone();
                self.reset_setting(name.as_deref())?;
                Ok(Outcome::Changed(0))
            }
            BoundStatement::Modify(_) | BoundStatement::Ddl(_) | BoundStatement::InsteadOf(_) => {
                self.run_write(prepared, params)
            }
        }
    }
}

/// Binds the defaults and CHECK constraints of the table a modification writes.
fn table_rules(bound: &Bound, catalog: &Catalog) -> Result<TableRules> {
    match &bound.statement {
        BoundStatement::Modify(PlanNode {
            kind:
                PlanKind::Insert { table, .. }
                | PlanKind::Update { table, .. }
                | PlanKind::Delete { table, .. },
            ..
        })
        | BoundStatement::Explain {
            plan:
                PlanNode {
                    kind:
                        PlanKind::Insert { table, .. }
                        | PlanKind::Update { table, .. }
                        | PlanKind::Delete { table, .. },
                    ..
                },
            ..
        } => Ok(TableRules::bind(table, catalog)?),
        _ => Ok(TableRules::default()),
    }
}

/// Resolves the foreign keys a modification enforces (also under EXPLAIN ANALYZE, which
/// performs it).
fn foreign_key_rules(bound: &Bound, catalog: &Catalog) -> ForeignKeyRules {
    match &bound.statement {
        BoundStatement::Modify(plan) | BoundStatement::Explain { plan, .. } => {
            ForeignKeyRules::for_modification(plan, catalog)
        }
        _ => ForeignKeyRules::default(),
    }
}

/// Table sizes for the optimizer: ANALYZE's counts when the table was analysed, else an
/// estimate from the shape of its tree (one page read per level, usually cached).
struct TreeShapeStatistics<'a> {
    catalog: &'a Catalog,
    source: &'a PageSource,
}

impl optimize::estimate::Statistics for TreeShapeStatistics<'_> {
    fn table_rows(&self, table: &crate::catalog::TableDef) -> f64 {
        if let Some(rows) = self.catalog.analyzed_rows(table) {
            return rows as f64;
        }
        crate::storage::btree::TableTree::open(table.root)
            .estimate_rows(self.source)
            .map_or(optimize::estimate::UNKNOWN_TABLE_ROWS, |rows| rows as f64)
    }
}

/// Whether a plan changes rows (INSERT, UPDATE or DELETE at its root).
fn is_modification(plan: &PlanNode) -> bool {
    matches!(
        plan.kind,
        PlanKind::Insert { .. } | PlanKind::Update { .. } | PlanKind::Delete { .. }
    )
}

/// Output columns of a bound statement.
fn output_columns(bound: &Bound) -> Vec<OutputColumn> {
    let text = |name: &str| OutputColumn {
        name: name.into(),
        table: None,
        data_type: DataType::Text(None),
        source: None,
    };
    match &bound.statement {
        BoundStatement::Query(plan) | BoundStatement::Modify(plan) => plan.schema.clone(),
        BoundStatement::Explain { .. } => vec![text("QUERY PLAN")],
        BoundStatement::Ddl(DdlStatement::Setting { name, .. }) if is_integrity_check(name) => {
            vec![text(&name.to_lowercase())]
        }
        // `SHOW TRANSACTION ISOLATION LEVEL` is PostgreSQL's spelling of the setting
        // `transaction_isolation`, which names its column.
        BoundStatement::Ddl(DdlStatement::Setting {
            name, show: true, ..
        }) if name.eq_ignore_ascii_case("transaction isolation level") => {
            vec![text("transaction_isolation")]
        }
        BoundStatement::Ddl(DdlStatement::Setting {
            name, show: true, ..
        }) => vec![text(name)],
        BoundStatement::Ddl(DdlStatement::Setting {
            name, value: None, ..
        }) => vec![text(name)],
        BoundStatement::Ddl(_) | BoundStatement::InsteadOf(_) => Vec::new(),
    }
}
