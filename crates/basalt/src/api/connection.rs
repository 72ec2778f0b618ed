//! [`Connection`]: a session on a database — transactions, settings, and the statement
//! cache.
//!
//! Transactions follow SQLite's model with PostgreSQL's syntax. Outside `BEGIN`, every
//! statement runs in its own transaction (autocommit): queries on a fresh snapshot, writes in
//! the single write transaction, committed when the statement succeeds. After `BEGIN`, the
//! connection holds a snapshot; its first write takes the writer slot and continues from that
//! snapshot — if another connection committed in between, the write fails with 40001 (as
//! SQLite's `BUSY_SNAPSHOT`), because its reads would otherwise be stale. Every statement
//! inside a transaction runs under a savepoint, so a failed statement changes nothing while
//! the transaction continues.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use parking_lot::Mutex;

use crate::catalog::Catalog;
use crate::exec::context::ExecContext;
use crate::exec::dml::{self, ModifyResult, TableRules};
use crate::exec::explain::{ExplainOptions, OperatorStats, explain_with, node_key};
use crate::exec::foreign_keys::ForeignKeyRules;
use crate::exec::source::PageSource;
use crate::exec::triggers::{self, TriggerRuntime};
use crate::exec::{ddl, eval};
use crate::plan::bind;
use crate::plan::ddl::{DdlStatement, TransactionControl};
use crate::plan::optimize;
use crate::plan::{Bound, BoundStatement, OutputColumn, PlanKind, PlanNode};
use crate::sqlstate;
use crate::storage::pager::Synchronous;
use crate::txn::{ReadTxn, SavepointId, WriteTxn};
use crate::types::{DataType, Value};

use super::database::DatabaseInner;
use super::error::{Error, Result};
use super::params::Params;
use super::statement::{CachedStatement, Statement};

mod vacuum;

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
}

/// What running a statement produced.
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
}

#[derive(Debug, Default)]
struct Session {
    txn: Option<ExplicitTxn>,
    last_insert_row_id: i64,
    changes: u64,
    settings: BTreeMap<String, String>,
    /// `SET work_mem`: the operator memory budget overriding `Options::operator_memory`.
    work_mem: Option<usize>,
    /// `PRAGMA busy_timeout`: how long this connection waits for the writer slot, overriding
    /// the database's `busy_timeout` option.
    busy_timeout: Option<std::time::Duration>,
    /// `currval` memory: each sequence's last `nextval` on this connection.
    sequence_values: Arc<Mutex<std::collections::HashMap<String, i64>>>,
}

/// A connection to a database. `Send`, not `Sync`: use one per thread.
#[derive(Debug)]
pub struct Connection {
    pub(crate) db: Arc<DatabaseInner>,
    session: RefCell<Session>,
    cache: RefCell<VecDeque<Box<Prepared>>>,
    /// Shared with [`InterruptHandle`]s; set to cancel the running statement.
    interrupt: Arc<AtomicBool>,
}

/// Cancels the statement a [`Connection`] is running, from any thread (a shell's Ctrl-C
/// handler, a request timeout). The statement fails with SQLSTATE 57014 and undoes its
/// changes; an interrupt that arrives while nothing runs is forgotten at the next statement.
#[derive(Clone, Debug)]
pub struct InterruptHandle {
    interrupt: Arc<AtomicBool>,
}

impl InterruptHandle {
    /// Asks the connection's running statement to stop at its next batch.
    pub fn interrupt(&self) {
        self.interrupt.store(true, Ordering::Relaxed);
    }
}

impl Connection {
    pub(crate) fn new(db: Arc<DatabaseInner>) -> Self {
        Connection {
            db,
            session: RefCell::new(Session::default()),
            cache: RefCell::new(VecDeque::new()),
            interrupt: Arc::new(AtomicBool::new(false)),
        }
    }

    /// A handle that cancels this connection's running statement from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        InterruptHandle {
            interrupt: self.interrupt.clone(),
        }
    }

    /// A fresh execution context; clears an interrupt left from before this statement.
    fn exec_context(&self, source: PageSource, params: Vec<Value>) -> ExecContext {
        self.interrupt.store(false, Ordering::Relaxed);
        let operator_memory =
            (self.session.borrow().work_mem).unwrap_or(self.db.options.operator_memory);
        let sequence_values = self.session.borrow().sequence_values.clone();
        ExecContext::new(source, params, self.interrupt.clone())
            .with_memory_budget(
                operator_memory,
                self.db.options.spill_directory.clone().map(Arc::new),
            )
            .with_sequence_values(sequence_values)
    }

    /// Prepares one statement.
    pub fn prepare(&self, sql: &str) -> Result<Statement<'_>> {
        Ok(Statement::new(self, self.prepare_internal(sql)?))
    }

    /// Prepares one statement, reusing a cached plan for the same SQL text when there is one.
    /// The statement returns to the cache when dropped.
    pub fn prepare_cached(&self, sql: &str) -> Result<CachedStatement<'_>> {
        let cached = {
            let mut cache = self.cache.borrow_mut();
            cache
                .iter()
                .position(|prepared| prepared.sql == sql)
                .and_then(|at| cache.remove(at))
        };
        let prepared = match cached {
            Some(prepared) => prepared,
            None => self.prepare_internal(sql)?,
        };
        Ok(CachedStatement::new(Statement::new(self, prepared)))
    }

    pub(crate) fn return_to_cache(&self, prepared: Box<Prepared>) {
        let mut cache = self.cache.borrow_mut();
        cache.push_front(prepared);
        cache.truncate(self.db.options.statement_cache_capacity);
    }

    /// Runs one statement; returns the number of rows it changed.
    pub fn execute(&self, sql: &str, params: impl Params) -> Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    /// Runs every statement of `sql` in order (no parameters), stopping at the first error.
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

    /// Runs a query and maps its first row; error `P0002` when there is no row.
    pub fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        f: impl FnOnce(&super::statement::Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }

    /// Starts a transaction that rolls back when dropped unless committed.
    pub fn transaction(&self) -> Result<Transaction<'_>> {
        self.control(&TransactionControl::Begin)?;
        Ok(Transaction {
            conn: self,
            done: false,
        })
    }

    /// The row id of the last row inserted through this connection.
    pub fn last_insert_rowid(&self) -> i64 {
        self.session.borrow().last_insert_row_id
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    pub fn changes(&self) -> u64 {
        self.session.borrow().changes
    }

    /// Whether an explicit transaction is open.
    pub fn in_transaction(&self) -> bool {
        self.session.borrow().txn.is_some()
    }

    pub(crate) fn prepare_internal(&self, sql: &str) -> Result<Box<Prepared>> {
        let ast = crate::sql::parse_one(sql).map_err(|e| Error::syntax(&e, sql))?;
        self.prepare_ast(sql, ast)
    }

    fn prepare_ast(&self, sql: &str, ast: sqlparser::ast::Statement) -> Result<Box<Prepared>> {
        let source = self.read_source()?;
        let catalog = self.db.catalog_for(&source)?;
        let bound = self.optimize(bind::bind(&ast, &catalog)?, &catalog, &source);
        let rules = table_rules(&bound, &catalog)?;
        let foreign_keys = foreign_key_rules(&bound, &catalog);
        Ok(Box::new(Prepared {
            sql: sql.to_string(),
            ast,
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
                .session
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
        self.session
            .borrow()
            .settings
            .get("foreign_keys")
            .is_none_or(|value| value != "off")
    }

    /// The page source reads use now: the explicit transaction's, or a fresh snapshot.
    pub(super) fn read_source(&self) -> Result<PageSource> {
        let session = self.session.borrow();
        Ok(match &session.txn {
            Some(ExplicitTxn {
                write: Some(write), ..
            }) => PageSource::Write(write.clone()),
            Some(ExplicitTxn { read, .. }) => PageSource::Read(read.clone()),
            None => PageSource::Read(Arc::new(self.db.store.begin_read())),
        })
    }

    /// Re-binds `prepared` if the schema changed since it was planned.
    fn refresh(&self, prepared: &mut Prepared, source: &PageSource) -> Result<()> {
        let catalog = self.db.catalog_for(source)?;
        if catalog.version != prepared.catalog.version {
            prepared.bound = self.optimize(bind::bind(&prepared.ast, &catalog)?, &catalog, source);
            prepared.rules = table_rules(&prepared.bound, &catalog)?;
            prepared.foreign_keys = foreign_key_rules(&prepared.bound, &catalog);
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
                let source = self.read_source()?;
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
                        let lines =
                            plan_lines(plan, *verbose, &prepared.catalog, &ctx.source, None);
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
            BoundStatement::Ddl(DdlStatement::Vacuum) => self.vacuum(),
            BoundStatement::Ddl(DdlStatement::Setting { name, value, show }) => {
                let (name, value, show) = (name.clone(), value.clone(), *show);
                self.setting(&name, value, show, params)
            }
            BoundStatement::Modify(_) | BoundStatement::Ddl(_) | BoundStatement::InsteadOf(_) => {
                self.run_write(prepared, params)
            }
        }
    }

    /// Runs a modification or DDL in the write transaction (autocommit or explicit).
    fn run_write(&self, prepared: &mut Prepared, params: Vec<Value>) -> Result<Outcome> {
        let explicit = self.session.borrow().txn.is_some();
        if !explicit {
            let write = Arc::new(Mutex::new(self.begin_write()?));
            self.refresh(prepared, &PageSource::Write(write.clone()))?;
            let result = self.apply(prepared, params, &write);
            // Rows a write returns (RETURNING, EXPLAIN ANALYZE) are already computed; their
            // context must let go of the write transaction so it can commit.
            return match result? {
                Outcome::Rows { operator, ctx } => {
                    drop(ctx);
                    self.commit_autocommit(write)?;
                    let ctx = self.exec_context(self.read_source()?, Vec::new());
                    Ok(Outcome::Rows { operator, ctx })
                }
                changed @ Outcome::Changed(_) => {
                    self.commit_autocommit(write)?;
                    Ok(changed)
                }
            };
        }
        let write = self.upgrade()?;
        self.refresh(prepared, &PageSource::Write(write.clone()))?;
        if let BoundStatement::Modify(plan) = &prepared.bound.statement
            && dml::fails_before_writing(
                plan,
                self.foreign_keys_enforced()
                    .then_some(&prepared.foreign_keys),
                &self.trigger_runtime(&prepared.catalog),
            )
        {
            return self.apply_without_savepoint(prepared, params, write);
        }
        let savepoint = write.lock().savepoint();
        let result = self.apply(prepared, params, &write);
        let mut txn = write.lock();
        if result.is_err() {
            txn.rollback_to_savepoint(savepoint)?;
        }
        txn.release_savepoint(savepoint)?;
        result
    }

    /// Runs a statement that makes all its checks before its first write
    /// ([`dml::fails_before_writing`]) in the explicit transaction without a statement
    /// savepoint: a savepoint copies every page the statement touches, which for a one-row
    /// INSERT in a bulk-loading transaction was an eighth of its cost. If the statement still
    /// fails after writing (an I/O error, a corrupt page), its changes cannot be undone
    /// alone, so the whole transaction is rolled back, as SQLite does after an I/O error.
    fn apply_without_savepoint(
        &self,
        prepared: &mut Prepared,
        params: Vec<Value>,
        write: Arc<Mutex<WriteTxn>>,
    ) -> Result<Outcome> {
        let changes_before = write.lock().change_count();
        let result = self.apply(prepared, params, &write);
        let Err(error) = result else {
            return result;
        };
        if write.lock().change_count() == changes_before {
            return Err(error);
        }
        drop(write);
        let txn = self.session.borrow_mut().txn.take();
        if let Some(txn) = txn {
            finish(txn, false)?;
        }
        Err(Error::new(
            error.sqlstate(),
            format!(
                "{} (the statement failed after it had begun writing, so the transaction was rolled back)",
                error.message()
            ),
        ))
    }

    fn commit_autocommit(&self, write: Arc<Mutex<WriteTxn>>) -> Result<()> {
        let txn = Arc::try_unwrap(write)
            .map_err(|_| {
                Error::new(
                    sqlstate::INTERNAL_ERROR,
                    "write transaction still referenced at commit",
                )
            })?
            .into_inner();
        txn.commit()?;
        Ok(())
    }

    /// Runs `prepared`, already refreshed against `write`'s catalog, in `write`.
    fn apply(
        &self,
        prepared: &mut Prepared,
        params: Vec<Value>,
        write: &Arc<Mutex<WriteTxn>>,
    ) -> Result<Outcome> {
        let ctx = self.exec_context(PageSource::Write(write.clone()), params);
        match &prepared.bound.statement {
            BoundStatement::Modify(plan) => {
                let ModifyResult {
                    changes,
                    last_insert_row_id,
                    returning,
                } = dml::execute_modify(
                    plan,
                    &prepared.rules,
                    self.foreign_keys_enforced()
                        .then_some(&prepared.foreign_keys),
                    write,
                    &ctx,
                    &self.trigger_runtime(&prepared.catalog),
                )?;
                {
                    let mut session = self.session.borrow_mut();
                    session.changes = changes;
                    if let Some(row_id) = last_insert_row_id {
                        session.last_insert_row_id = row_id;
                    }
                }
                if plan.schema.is_empty() {
                    Ok(Outcome::Changed(changes))
                } else {
                    Ok(Outcome::Rows {
                        operator: Box::new(Buffered(returning.into_iter().collect())),
                        ctx,
                    })
                }
            }
            BoundStatement::Ddl(statement) => {
                self.apply_ddl(statement, &prepared.catalog, write, &ctx)?;
                Ok(Outcome::Changed(0))
            }
            // A query that advances sequences: its rows are computed now, inside the write
            // transaction, and served after it commits.
            BoundStatement::Query(plan) => {
                let mut operator = crate::exec::operators::build(plan, &ctx)?;
                let mut batches = VecDeque::new();
                while let Some(batch) = operator.next(&ctx)? {
                    batches.push_back(batch);
                }
                drop(operator);
                Ok(Outcome::Rows {
                    operator: Box::new(Buffered(batches)),
                    ctx,
                })
            }
            BoundStatement::InsteadOf(modification) => {
                let changes = triggers::execute_view_modification(
                    modification,
                    &self.trigger_runtime(&prepared.catalog),
                    write,
                    &ctx,
                )?;
                self.session.borrow_mut().changes = changes;
                Ok(Outcome::Changed(changes))
            }
            BoundStatement::Explain {
                plan,
                analyze: true,
                verbose,
            } => {
                let ctx = ctx.with_profiling();
                let started = Instant::now();
                let result = dml::execute_modify(
                    plan,
                    &prepared.rules,
                    self.foreign_keys_enforced()
                        .then_some(&prepared.foreign_keys),
                    write,
                    &ctx,
                    &self.trigger_runtime(&prepared.catalog),
                )?;
                let elapsed = started.elapsed();
                self.session.borrow_mut().changes = result.changes;
                if let Some(profile) = &ctx.profile {
                    profile.borrow_mut().insert(
                        node_key(plan),
                        OperatorStats {
                            rows: result.changes,
                            time: elapsed,
                            loops: 1,
                            ..OperatorStats::default()
                        },
                    );
                }
                let lines = analyzed_lines(plan, *verbose, &prepared.catalog, &ctx, elapsed);
                Ok(text_rows(lines, ctx))
            }
            _ => Err(Error::new(
                sqlstate::INTERNAL_ERROR,
                "not a write statement",
            )),
        }
    }

    fn apply_ddl(
        &self,
        statement: &DdlStatement,
        catalog: &Catalog,
        write: &Arc<Mutex<WriteTxn>>,
        ctx: &ExecContext,
    ) -> Result<()> {
        match statement {
            DdlStatement::CreateTable(create) => {
                let created = ddl::create_table(create, catalog, &mut write.lock())?;
                if created && let Some(query) = &create.as_query {
                    let sql = format!(
                        "INSERT INTO \"{}\" {query}",
                        create.name.replace('"', "\"\"")
                    );
                    let ast = crate::sql::parse_one(&sql).map_err(|e| Error::syntax(&e, &sql))?;
                    let source = PageSource::Write(write.clone());
                    let catalog = self.db.catalog_for(&source)?;
                    let bound = self.optimize(bind::bind(&ast, &catalog)?, &catalog, &source);
                    let rules = table_rules(&bound, &catalog)?;
                    let BoundStatement::Modify(plan) = &bound.statement else {
                        return Err(Error::new(
                            sqlstate::INTERNAL_ERROR,
                            "CREATE TABLE AS did not bind to an INSERT",
                        ));
                    };
                    let foreign_keys = ForeignKeyRules::for_modification(plan, &catalog);
                    dml::execute_modify(
                        plan,
                        &rules,
                        self.foreign_keys_enforced().then_some(&foreign_keys),
                        write,
                        ctx,
                        &self.trigger_runtime(&catalog),
                    )?;
                }
            }
            DdlStatement::CreateIndex(create) => {
                ddl::create_index(create, catalog, &mut write.lock())?;
            }
            DdlStatement::CreateView {
                name,
                column_names,
                query,
                if_not_exists,
                or_replace,
            } => {
                let view = crate::catalog::ViewDef {
                    name: name.clone(),
                    column_names: column_names.clone(),
                    query: query.clone(),
                };
                ddl::create_view(
                    view,
                    *if_not_exists,
                    *or_replace,
                    catalog,
                    &mut write.lock(),
                )?;
            }
            DdlStatement::Drop {
                kind,
                names,
                if_exists,
                cascade,
            } => {
                ddl::drop_objects(
                    *kind,
                    names,
                    *if_exists,
                    *cascade,
                    catalog,
                    &mut write.lock(),
                )?;
            }
            DdlStatement::CreateTrigger {
                trigger,
                if_not_exists,
            } => {
                triggers::schema::create_trigger(
                    trigger.clone(),
                    *if_not_exists,
                    catalog,
                    &mut write.lock(),
                )?;
            }
            DdlStatement::CreateSequence {
                sequence,
                if_not_exists,
            } => {
                crate::exec::sequence::create_sequence(
                    sequence.clone(),
                    *if_not_exists,
                    catalog,
                    &mut write.lock(),
                )?;
            }
            DdlStatement::DropSequence { names, if_exists } => {
                crate::exec::sequence::drop_sequences(
                    names,
                    *if_exists,
                    catalog,
                    &mut write.lock(),
                )?;
            }
            DdlStatement::DropTrigger { name, if_exists } => {
                triggers::schema::drop_trigger(name, *if_exists, catalog, &mut write.lock())?;
            }
            DdlStatement::AlterTable(alter) => {
                let mut generated = None;
                let mut default = Value::Null;
                if let crate::plan::ddl::AlterTable::AddColumn { column, table, .. } = alter
                    && let Some(table) = catalog.table(table)
                {
                    if let Some(sql) = &column.default {
                        let expr =
                            bind::bind_column_default(sql, column.data_type, table, catalog)?;
                        default = eval::evaluate_scalar(&expr, ctx)?;
                    }
                    if column.generated.is_some() {
                        let mut draft = crate::catalog::TableDef::clone(table);
                        draft.columns.push(column.clone());
                        let position = draft.columns.len() - 1;
                        // The row's column types, computed once for every row's batch.
                        let types: Vec<DataType> =
                            draft.columns.iter().map(|c| c.data_type).collect();
                        generated = Some((
                            bind::bind_generated_column(&draft, position, catalog)?,
                            types,
                        ));
                    }
                }
                let compute = |values: &[Value]| {
                    let Some((expr, types)) = &generated else {
                        return Ok(Value::Null);
                    };
                    let mut batch = crate::exec::batch::Batch::with_types(types, 1);
                    let mut row = values.to_vec();
                    row.push(Value::Null);
                    batch.push_row(&row);
                    Ok(eval::evaluate(expr, &batch, ctx)?.get(0))
                };
                let added_values = match generated {
                    Some(_) => ddl::AddedColumnValues::Computed(&compute),
                    None => ddl::AddedColumnValues::Constant(default),
                };
                ddl::alter_table(alter, added_values, catalog, &mut write.lock())?;
            }
            DdlStatement::Analyze { table } => {
                crate::exec::analyze::analyze(table.as_deref(), catalog, &mut write.lock())?;
            }
            DdlStatement::Reindex { indexes } => {
                ddl::reindex(indexes, catalog, &mut write.lock())?;
            }
            DdlStatement::Transaction(_) | DdlStatement::Setting { .. } | DdlStatement::Vacuum => {
                return Err(Error::new(
                    sqlstate::INTERNAL_ERROR,
                    "session statement reached the DDL executor",
                ));
            }
        }
        Ok(())
    }

    /// The explicit transaction's write transaction, taking the writer slot on first use.
    fn upgrade(&self) -> Result<Arc<Mutex<WriteTxn>>> {
        let busy_timeout = self.busy_timeout();
        let mut session = self.session.borrow_mut();
        let Some(txn) = session.txn.as_mut() else {
            return Err(Error::new(
                sqlstate::INTERNAL_ERROR,
                "no explicit transaction to write in",
            ));
        };
        if let Some(write) = &txn.write {
            return Ok(write.clone());
        }
        let mut write = self.db.store.begin_write_within(busy_timeout)?;
        if write.header().commit_counter != txn.read.header().commit_counter {
            return Err(Error::new(
                sqlstate::SERIALIZATION_FAILURE,
                "could not serialize access: another connection committed since this transaction began",
            ));
        }
        for (_, savepoint) in &mut txn.savepoints {
            *savepoint = Some(write.savepoint());
        }
        let write = Arc::new(Mutex::new(write));
        txn.write = Some(write.clone());
        Ok(write)
    }

    /// BEGIN, COMMIT, ROLLBACK and savepoints.
    pub(crate) fn control(&self, control: &TransactionControl) -> Result<()> {
        let mut session = self.session.borrow_mut();
        match control {
            TransactionControl::Begin => {
                if session.txn.is_some() {
                    return Err(Error::new(
                        sqlstate::ACTIVE_SQL_TRANSACTION,
                        "there is already a transaction in progress",
                    ));
                }
                session.txn = Some(ExplicitTxn {
                    read: Arc::new(self.db.store.begin_read()),
                    write: None,
                    savepoints: Vec::new(),
                    started_by_savepoint: false,
                });
            }
            TransactionControl::Commit => {
                if let Some(txn) = session.txn.take() {
                    finish(txn, true)?;
                }
            }
            TransactionControl::Rollback => {
                if let Some(txn) = session.txn.take() {
                    finish(txn, false)?;
                }
            }
            TransactionControl::Savepoint(name) => {
                if session.txn.is_none() {
                    session.txn = Some(ExplicitTxn {
                        read: Arc::new(self.db.store.begin_read()),
                        write: None,
                        savepoints: Vec::new(),
                        started_by_savepoint: true,
                    });
                }
                if let Some(txn) = session.txn.as_mut() {
                    let id = txn.write.as_ref().map(|write| write.lock().savepoint());
                    txn.savepoints.push((name.to_lowercase(), id));
                }
            }
            TransactionControl::ReleaseSavepoint(name)
            | TransactionControl::RollbackToSavepoint(name) => {
                let release = matches!(control, TransactionControl::ReleaseSavepoint(_));
                let Some(txn) = session.txn.as_mut() else {
                    return Err(Error::new(
                        sqlstate::INVALID_SAVEPOINT_SPECIFICATION,
                        format!("savepoint \"{name}\" does not exist"),
                    ));
                };
                let lower = name.to_lowercase();
                let Some(position) = txn.savepoints.iter().rposition(|(n, _)| *n == lower) else {
                    return Err(Error::new(
                        sqlstate::INVALID_SAVEPOINT_SPECIFICATION,
                        format!("savepoint \"{name}\" does not exist"),
                    ));
                };
                let id = txn.savepoints[position].1;
                if let (Some(id), Some(write)) = (id, &txn.write) {
                    let mut write = write.lock();
                    if release {
                        write.release_savepoint(id)?;
                    } else {
                        write.rollback_to_savepoint(id)?;
                    }
                }
                txn.savepoints
                    .truncate(if release { position } else { position + 1 });
                if release
                    && txn.savepoints.is_empty()
                    && txn.started_by_savepoint
                    && let Some(txn) = session.txn.take()
                {
                    finish(txn, true)?;
                }
            }
        }
        Ok(())
    }

    /// The write transaction, waiting for the writer slot as long as this connection's
    /// busy timeout allows.
    fn begin_write(&self) -> Result<crate::txn::WriteTxn> {
        Ok(self.db.store.begin_write_within(self.busy_timeout())?)
    }

    /// This connection's busy timeout: its own setting, else the database's.
    fn busy_timeout(&self) -> std::time::Duration {
        self.session
            .borrow()
            .busy_timeout
            .unwrap_or_else(|| self.db.store.busy_timeout())
    }

    fn setting(
        &self,
        name: &str,
        value: Option<String>,
        show: bool,
        params: Vec<Value>,
    ) -> Result<Outcome> {
        let name = name.to_lowercase();
        let ctx = self.exec_context(self.read_source()?, params);
        if is_integrity_check(&name) {
            let problems = integrity_check(&ctx.source, value.as_deref())?;
            return Ok(text_rows(problems, ctx));
        }
        let pager = self.db.store.pager();
        if let Some(value) = value.filter(|_| !show) {
            let value = value.trim_matches('\'').to_string();
            if name == "synchronous" {
                let mode = match value.to_lowercase().as_str() {
                    "off" | "0" => Synchronous::Off,
                    "normal" | "1" => Synchronous::Normal,
                    "full" | "2" | "extra" | "3" => Synchronous::Full,
                    other => {
                        return Err(Error::new(
                            sqlstate::INVALID_PARAMETER_VALUE,
                            format!("invalid value for synchronous: {other}"),
                        ));
                    }
                };
                pager.set_synchronous(mode);
            }
            let value = if name == "foreign_keys" {
                match parse_switch(&value) {
                    Some(true) => "on".to_string(),
                    Some(false) => "off".to_string(),
                    None => {
                        return Err(Error::new(
                            sqlstate::INVALID_PARAMETER_VALUE,
                            format!("invalid value for foreign_keys: {value}"),
                        ));
                    }
                }
            } else {
                value
            };
            if name == "cache_size" {
                pager.set_cache_pages(cache_pages(&value, pager.page_size())?);
            }
            if name == "busy_timeout" {
                let milliseconds = value.parse::<u64>().map_err(|_| {
                    Error::new(
                        sqlstate::INVALID_PARAMETER_VALUE,
                        format!("invalid value for busy_timeout: {value} (milliseconds)"),
                    )
                })?;
                self.session.borrow_mut().busy_timeout =
                    Some(std::time::Duration::from_millis(milliseconds));
            }
            if name == "work_mem" {
                let bytes =
                    crate::exec::context::parse_memory_setting(&value).ok_or_else(|| {
                        Error::new(
                            sqlstate::INVALID_PARAMETER_VALUE,
                            format!(
                                "invalid value for work_mem: {value} (expected e.g. 4MB, 512kB)"
                            ),
                        )
                    })?;
                self.session.borrow_mut().work_mem = Some(bytes);
            }
            self.session.borrow_mut().settings.insert(name, value);
            return Ok(Outcome::Changed(0));
        }
        let value = match name.as_str() {
            "synchronous" => format!("{:?}", pager.synchronous()).to_lowercase(),
            "foreign_keys" => if self.foreign_keys_enforced() {
                "on"
            } else {
                "off"
            }
            .to_string(),
            "journal_mode" => "wal".to_string(),
            "page_size" => pager.page_size().to_string(),
            "cache_size" => pager.cache_pages().to_string(),
            "busy_timeout" => self.busy_timeout().as_millis().to_string(),
            "work_mem" => crate::exec::context::format_memory_setting(
                (self.session.borrow().work_mem).unwrap_or(self.db.options.operator_memory),
            ),
            _ => match self.session.borrow().settings.get(&name) {
                Some(value) => value.clone(),
                None => {
                    return Err(Error::new(
                        sqlstate::UNDEFINED_OBJECT,
                        format!("unrecognized configuration parameter \"{name}\""),
                    ));
                }
            },
        };
        Ok(text_rows(vec![value], ctx))
    }
}

/// Whether a PRAGMA names the integrity check (`quick_check` is SQLite's lighter variant;
/// Basalt runs the full check for both).
fn is_integrity_check(name: &str) -> bool {
    name.eq_ignore_ascii_case("integrity_check") || name.eq_ignore_ascii_case("quick_check")
}

/// `PRAGMA integrity_check[(N | table)]`, as SQLite reads its argument: a number caps the
/// problems reported, a name limits the row-against-index comparison to that table. Returns
/// the problems, or the single line `ok`.
fn integrity_check(source: &PageSource, argument: Option<&str>) -> Result<Vec<String>> {
    let argument = argument.map(|text| text.trim().trim_matches(['\'', '"']));
    let (max, table) = match argument {
        None => (crate::exec::integrity::DEFAULT_MAX_PROBLEMS, None),
        Some(text) => match text.parse::<i64>() {
            Ok(max) if max > 0 => (usize::try_from(max).unwrap_or(usize::MAX), None),
            Ok(_) => (crate::exec::integrity::DEFAULT_MAX_PROBLEMS, None),
            Err(_) => (crate::exec::integrity::DEFAULT_MAX_PROBLEMS, Some(text)),
        },
    };
    let problems = crate::exec::integrity::check(source, max, table)?;
    Ok(if problems.is_empty() {
        vec!["ok".to_string()]
    } else {
        problems
    })
}

/// A boolean setting's value: on/off, true/false, yes/no, 1/0.
fn parse_switch(value: &str) -> Option<bool> {
    match value.to_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Some(true),
        "off" | "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// Ends an explicit transaction.
fn finish(txn: ExplicitTxn, commit: bool) -> Result<()> {
    let ExplicitTxn { read, write, .. } = txn;
    // The snapshot taken at BEGIN must be let go before the commit: a commit may checkpoint,
    // and a live snapshot older than the commit keeps the log from being emptied, so every
    // later commit would copy pages back and sync again.
    drop(read);
    let Some(write) = write else {
        return Ok(());
    };
    let write = Arc::try_unwrap(write)
        .map_err(|_| {
            Error::new(
                sqlstate::INVALID_TRANSACTION_STATE,
                "cannot end the transaction while a query on it is still being read",
            )
        })?
        .into_inner();
    if commit {
        write.commit()?;
    } else {
        write.rollback();
    }
    Ok(())
}

/// A transaction handle: rolls back when dropped unless [`Transaction::commit`] ran.
#[derive(Debug)]
pub struct Transaction<'conn> {
    conn: &'conn Connection,
    done: bool,
}

impl Transaction<'_> {
    /// Commits.
    pub fn commit(mut self) -> Result<()> {
        self.done = true;
        self.conn.control(&TransactionControl::Commit)
    }

    /// Rolls back.
    pub fn rollback(mut self) -> Result<()> {
        self.done = true;
        self.conn.control(&TransactionControl::Rollback)
    }
}

impl std::ops::Deref for Transaction<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.conn.control(&TransactionControl::Rollback);
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

/// EXPLAIN output: the plan, with VERBOSE each operator's estimated rows (from the same
/// statistics the optimizer used) and details, with a profile each operator's measurements.
fn plan_lines(
    plan: &PlanNode,
    verbose: bool,
    catalog: &Catalog,
    source: &PageSource,
    profile: Option<&crate::exec::explain::Profile>,
) -> Vec<String> {
    let statistics = TreeShapeStatistics { catalog, source };
    let estimator = optimize::estimate::Estimator {
        catalog,
        statistics: &statistics,
    };
    let estimate = |node: &PlanNode| estimator.rows(node);
    explain_with(
        plan,
        &ExplainOptions {
            profile,
            verbose,
            estimate: Some(&estimate),
        },
    )
}

/// EXPLAIN ANALYZE output: the plan with each operator's measurements, then the total.
fn analyzed_lines(
    plan: &PlanNode,
    verbose: bool,
    catalog: &Catalog,
    ctx: &ExecContext,
    elapsed: std::time::Duration,
) -> Vec<String> {
    let profile = ctx.profile.as_ref().map(|profile| profile.borrow().clone());
    let mut lines = plan_lines(plan, verbose, catalog, &ctx.source, profile.as_ref());
    lines.push(format!(
        "Execution Time: {:.3} ms",
        elapsed.as_secs_f64() * 1000.0
    ));
    lines
}

/// Rows of one text column.
fn text_rows(lines: Vec<String>, ctx: ExecContext) -> Outcome {
    let mut batch = crate::exec::batch::Batch::with_types(&[DataType::Text], lines.len());
    for line in lines {
        batch.push_row(&[Value::Text(line)]);
    }
    Outcome::Rows {
        operator: Box::new(Buffered(vec![batch].into())),
        ctx,
    }
}

/// Batches computed up front, served as an operator.
#[derive(Debug)]
pub(crate) struct Buffered(pub(crate) VecDeque<crate::exec::batch::Batch>);

impl crate::exec::operators::Operator for Buffered {
    fn next(
        &mut self,
        _ctx: &ExecContext,
    ) -> crate::exec::error::ExecResult<Option<crate::exec::batch::Batch>> {
        Ok(self.0.pop_front())
    }
}

/// Output columns of a prepared statement.
pub(crate) fn output_columns(bound: &Bound) -> Vec<OutputColumn> {
    let text = |name: &str| OutputColumn {
        name: name.into(),
        table: None,
        data_type: DataType::Text,
    };
    match &bound.statement {
        BoundStatement::Query(plan) | BoundStatement::Modify(plan) => plan.schema.clone(),
        BoundStatement::Explain { .. } => vec![text("QUERY PLAN")],
        BoundStatement::Ddl(DdlStatement::Setting { name, .. }) if is_integrity_check(name) => {
            vec![text(&name.to_lowercase())]
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

/// `PRAGMA cache_size` as SQLite reads it: a positive number of pages, or a negative number of
/// KiB (`-2000` is about 2 MB), converted to pages of `page_size` bytes (at least one).
fn cache_pages(value: &str, page_size: usize) -> Result<usize> {
    let invalid = || {
        Error::new(
            sqlstate::INVALID_PARAMETER_VALUE,
            format!("invalid value for cache_size: {value} (pages, or -KiB)"),
        )
    };
    let number = value.trim().parse::<i64>().map_err(|_| invalid())?;
    let pages = if number >= 0 {
        usize::try_from(number).map_err(|_| invalid())?
    } else {
        let bytes = number.unsigned_abs().saturating_mul(1024);
        usize::try_from(bytes / page_size.max(1) as u64).map_err(|_| invalid())?
    };
    Ok(pages.max(1))
}
