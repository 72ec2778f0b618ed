//! Statements that write: modifications, DDL, RETURNING and sequence-advancing queries, run
//! in the session's write transaction — its own for an autocommitted statement (committed
//! when the statement succeeds), or the explicit transaction's under a statement savepoint,
//! so a failed statement changes nothing while the transaction goes on.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;

use super::{Buffered, Outcome, Prepared, Session, analyzed_lines, table_rules, text_rows};
use crate::api::error::{Error, Result};
use crate::catalog::Catalog;
use crate::exec::context::ExecContext;
use crate::exec::dml::{self, ModifyResult};
use crate::exec::explain::{OperatorStats, node_key};
use crate::exec::foreign_keys::ForeignKeyRules;
use crate::exec::source::PageSource;
use crate::exec::triggers;
use crate::exec::{ddl, eval};
use crate::plan::bind;
use crate::plan::ddl::DdlStatement;
use crate::plan::{BoundStatement, PlanNode};
use crate::sqlstate;
use crate::txn::WriteTxn;
use crate::types::{DataType, Value};

impl Session {
    /// Runs a modification or DDL in the write transaction (autocommit or explicit).
    pub(super) fn run_write(&self, prepared: &mut Prepared, params: Vec<Value>) -> Result<Outcome> {
        if self.read_only() {
            return Err(Error::new(
                sqlstate::READ_ONLY_SQL_TRANSACTION,
                format!(
                    "cannot execute {} in a read-only transaction",
                    command_name(prepared)
                ),
            ));
        }
        let explicit = self.state.borrow().txn.is_some();
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
        let mut state = self.state.borrow_mut();
        if let Some(txn) = state.txn.take() {
            self.end_transaction(&mut state, txn, false)?;
        }
        drop(state);
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
        super::transaction::commit_write(txn)
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
                } = self.execute_modify(plan, prepared, write, &ctx)?;
                {
                    let mut state = self.state.borrow_mut();
                    state.changes = changes;
                    if let Some(row_id) = last_insert_row_id {
                        state.last_insert_row_id = row_id;
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
                self.state.borrow_mut().changes = changes;
                Ok(Outcome::Changed(changes))
            }
            BoundStatement::Explain {
                plan,
                analyze: true,
                verbose,
            } => {
                let ctx = ctx.with_profiling();
                let started = Instant::now();
                let result = self.execute_modify(plan, prepared, write, &ctx)?;
                let elapsed = started.elapsed();
                self.state.borrow_mut().changes = result.changes;
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

    /// Runs the modification `plan` of `prepared` in `write`: its table's defaults and
    /// CHECKs, its foreign keys when this session enforces them, and its triggers.
    fn execute_modify(
        &self,
        plan: &PlanNode,
        prepared: &Prepared,
        write: &Arc<Mutex<WriteTxn>>,
        ctx: &ExecContext,
    ) -> Result<ModifyResult> {
        Ok(dml::execute_modify(
            plan,
            &prepared.rules,
            self.foreign_keys_enforced()
                .then_some(&prepared.foreign_keys),
            write,
            ctx,
            &self.trigger_runtime(&prepared.catalog),
        )?)
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
                    self.install_time_zone();
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
            DdlStatement::Truncate {
                tables,
                restart_identity,
                cascade,
            } => {
                crate::exec::truncate::truncate(
                    tables,
                    *restart_identity,
                    *cascade,
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
            DdlStatement::AlterSequence { name, change } => {
                if let Some((sequence, restart)) = change {
                    crate::exec::sequence::alter_sequence(
                        name,
                        sequence.clone(),
                        *restart,
                        catalog,
                        &mut write.lock(),
                    )?;
                }
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
            DdlStatement::Transaction(_)
            | DdlStatement::NoEffect
            | DdlStatement::Cursor(_)
            | DdlStatement::Setting { .. }
            | DdlStatement::Reset { .. }
            | DdlStatement::Vacuum { .. } => {
                return Err(Error::new(
                    sqlstate::INTERNAL_ERROR,
                    "session statement reached the DDL executor",
                ));
            }
        }
        Ok(())
    }
}

/// What PostgreSQL calls a statement in "cannot execute ... in a read-only transaction":
/// `nextval()` for a query advancing a sequence, else the statement's leading keywords
/// (`INSERT`, `CREATE TABLE`).
fn command_name(prepared: &Prepared) -> String {
    use sqlparser::ast::Statement;
    match &prepared.ast {
        Statement::Query(_) => "nextval()".to_owned(),
        Statement::Insert(_) => "INSERT".to_owned(),
        Statement::Update(_) => "UPDATE".to_owned(),
        Statement::Delete(_) => "DELETE".to_owned(),
        other => {
            let text = other.to_string();
            let words: Vec<&str> = text.split_whitespace().take(2).collect();
            match words.as_slice() {
                [first, second]
                    if ["CREATE", "DROP", "ALTER"].contains(&first.to_uppercase().as_str()) =>
                {
                    format!("{} {}", first.to_uppercase(), second.to_uppercase())
                }
                [first, ..] => first.to_uppercase(),
                [] => "this statement".to_owned(),
            }
        }
    }
}
