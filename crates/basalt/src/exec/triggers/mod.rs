//! Firing row triggers: running a trigger's program for each row a modification changes.
//!
//! Place in the layers: the modification executor (`super::dml`) asks a [`TriggerRuntime`]
//! which triggers watch the table and event it is applying ([`TriggerRuntime::matching`]),
//! and around each row's change calls [`TriggerRuntime::fire`] — BEFORE triggers before the
//! row is written, AFTER triggers once it has been, INSTEAD OF triggers (on views) in place
//! of the change. A program's statements run through the same executor as any statement,
//! inside the firing statement's write transaction, so everything a trigger does is part of
//! that statement: if the trigger (or anything after it) fails, the statement's savepoint
//! rolls its effects back together with the statement's own (see `api::connection`), and a
//! rolled-back transaction takes every trigger effect with it.
//!
//! # Binding
//!
//! The catalog keeps a trigger as SQL text; the binder turns it into plans whose parameters
//! are the NEW and OLD rows (`crate::plan::bind::trigger`). A runtime lives for one top-level
//! statement execution and binds each trigger it fires once, on first use, against the
//! statement's catalog; every row and every nested firing reuses those plans.
//!
//! # Semantics (SQLite's, with `recursive_triggers` off — SQLite's default)
//!
//! * A trigger fires for each row (`FOR EACH ROW` is the only kind), when its WHEN condition
//!   is true for that row; `UPDATE OF cols` fires only for an UPDATE whose SET names one of
//!   the columns. Several triggers on one table and event fire in name order.
//! * A trigger's statements may change tables that have triggers of their own, which fire in
//!   turn (cascading). A trigger never fires while it is already running further up the
//!   chain — SQLite's behaviour without `PRAGMA recursive_triggers` — so a trigger that
//!   updates its own table does not re-enter itself. Chains of distinct triggers are cut at
//!   [`MAX_TRIGGER_DEPTH`] levels with SQLSTATE 54001: each level is a nested executor on
//!   the native stack, and the limit keeps a long chain an error rather than a stack
//!   overflow (SQLite's own limit is 1000).
//! * Rows changed by trigger programs are not counted in the statement's change count and
//!   do not set the last inserted row id, as in SQLite.
//! * Referential actions of foreign keys (ON DELETE CASCADE, ...) do not fire triggers.

pub mod schema;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::catalog::{Catalog, TriggerDef, TriggerEvent, TriggerTiming};
use crate::plan::bind::{self, BindError};
use crate::plan::{BoundStatement, PlanNode, ViewModification, optimize};
use crate::sqlstate;
use crate::txn::WriteTxn;
use crate::types::Value;

use super::context::ExecContext;
use super::dml::{self, TableRules};
use super::error::{ExecError, ExecResult};
use super::foreign_keys::ForeignKeyRules;
use super::operators;

/// How many trigger programs may be running inside one another.
pub const MAX_TRIGGER_DEPTH: usize = 32;

/// The kind of change a modification makes to a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowEvent {
    Insert,
    Update,
    Delete,
}

/// A statement of a trigger's program, ready to run.
#[derive(Debug)]
enum ProgramStatement {
    /// A SELECT: run for its effects (RAISE, functions), its rows discarded.
    Query(PlanNode),
    /// An INSERT, UPDATE or DELETE with what its execution needs.
    Modify {
        plan: PlanNode,
        rules: Box<TableRules>,
        foreign_keys: ForeignKeyRules,
    },
}

/// A trigger bound for firing.
#[derive(Debug)]
struct Program {
    /// `SELECT 1 WHERE condition`.
    condition: Option<PlanNode>,
    statements: Vec<ProgramStatement>,
    /// Columns of the NEW/OLD row: the parameters are `2 * width` values.
    width: usize,
}

/// The triggers of one top-level statement execution: bound programs, and the chain of
/// triggers running now.
#[derive(Debug)]
pub struct TriggerRuntime {
    catalog: Arc<Catalog>,
    foreign_keys_enforced: bool,
    programs: RefCell<HashMap<String, Rc<Program>>>,
    /// Lower-cased names of the triggers whose programs are running, outermost first.
    active: RefCell<Vec<String>>,
}

impl TriggerRuntime {
    /// A runtime firing the triggers of `catalog`; modifications made by trigger programs
    /// enforce foreign keys when `foreign_keys_enforced`.
    pub fn new(catalog: Arc<Catalog>, foreign_keys_enforced: bool) -> Self {
        TriggerRuntime {
            catalog,
            foreign_keys_enforced,
            programs: RefCell::new(HashMap::new()),
            active: RefCell::new(Vec::new()),
        }
    }

    /// Whether any trigger watches `relation` (so a change to it may run more than its own
    /// writes).
    pub fn watches(&self, relation: &str) -> bool {
        self.catalog.triggers_of(relation).next().is_some()
    }

    /// The triggers on `relation` that fire at `timing` for `event`; for an UPDATE,
    /// `updated_columns` are the names of the columns its SET assigns (an `UPDATE OF`
    /// trigger fires only when one of its columns is among them).
    pub fn matching(
        &self,
        relation: &str,
        timing: TriggerTiming,
        event: RowEvent,
        updated_columns: &[&str],
    ) -> Vec<Arc<TriggerDef>> {
        self.catalog
            .triggers_of(relation)
            .filter(|trigger| trigger.timing == timing)
            .filter(|trigger| match (&trigger.event, event) {
                (TriggerEvent::Insert, RowEvent::Insert)
                | (TriggerEvent::Delete, RowEvent::Delete) => true,
                (TriggerEvent::Update(columns), RowEvent::Update) => {
                    columns.is_empty()
                        || columns.iter().any(|column| {
                            updated_columns
                                .iter()
                                .any(|updated| updated.eq_ignore_ascii_case(column))
                        })
                }
                _ => false,
            })
            .cloned()
            .collect()
    }

    /// Runs `triggers` (from [`TriggerRuntime::matching`]) for one row: `new` is the row
    /// after the change (INSERT, UPDATE), `old` the row before it (UPDATE, DELETE).
    pub fn fire(
        &self,
        triggers: &[Arc<TriggerDef>],
        new: Option<&[Value]>,
        old: Option<&[Value]>,
        txn: &Arc<parking_lot::Mutex<WriteTxn>>,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        for trigger in triggers {
            let key = trigger.name.to_lowercase();
            if self.active.borrow().contains(&key) {
                // SQLite without recursive_triggers: a running trigger does not re-enter.
                continue;
            }
            if self.active.borrow().len() >= MAX_TRIGGER_DEPTH {
                return Err(ExecError::new(
                    sqlstate::STATEMENT_TOO_COMPLEX,
                    format!(
                        "too many levels of trigger recursion (more than {MAX_TRIGGER_DEPTH}) at trigger \"{}\"",
                        trigger.name
                    ),
                ));
            }
            let program = self.program(trigger)?;
            let params = row_parameters(program.width, new, old);
            let ctx = nested_context(ctx, params);
            if let Some(condition) = &program.condition
                && !returns_a_row(condition, &ctx)?
            {
                continue;
            }
            self.active.borrow_mut().push(key);
            let result = self.run_program(&program, txn, &ctx);
            self.active.borrow_mut().pop();
            result.map_err(|error| in_trigger(error, &trigger.name))?;
        }
        Ok(())
    }

    fn run_program(
        &self,
        program: &Program,
        txn: &Arc<parking_lot::Mutex<WriteTxn>>,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        for statement in &program.statements {
            match statement {
                ProgramStatement::Query(plan) => {
                    let mut operator = operators::build(plan, ctx)?;
                    while operator.next(ctx)?.is_some() {}
                }
                ProgramStatement::Modify {
                    plan,
                    rules,
                    foreign_keys,
                } => {
                    dml::execute_modify(
                        plan,
                        rules,
                        self.foreign_keys_enforced.then_some(foreign_keys),
                        txn,
                        ctx,
                        self,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// `trigger`'s program, bound on first use.
    fn program(&self, trigger: &TriggerDef) -> ExecResult<Rc<Program>> {
        let key = trigger.name.to_lowercase();
        if let Some(program) = self.programs.borrow().get(&key) {
            return Ok(Rc::clone(program));
        }
        let program = Rc::new(
            self.bind_program(trigger)
                .map_err(|error| in_trigger(error.into(), &trigger.name))?,
        );
        self.programs.borrow_mut().insert(key, Rc::clone(&program));
        Ok(program)
    }

    fn bind_program(&self, trigger: &TriggerDef) -> Result<Program, BindError> {
        let catalog = self.catalog.as_ref();
        let bound = bind::bind_trigger_program(trigger, catalog)?;
        let optimize = |bound: crate::plan::Bound| {
            if optimize::disabled_by_environment() {
                bound
            } else {
                optimize::optimize_bound(bound, catalog)
            }
        };
        let condition = match bound.condition.map(optimize) {
            Some(crate::plan::Bound {
                statement: BoundStatement::Query(plan),
                ..
            }) => Some(plan),
            Some(_) => return Err(BindError::syntax("a trigger's WHEN is not a condition")),
            None => None,
        };
        let statements = bound
            .body
            .into_iter()
            .map(|statement| match optimize(statement).statement {
                BoundStatement::Query(plan) => Ok(ProgramStatement::Query(plan)),
                BoundStatement::Modify(plan) => {
                    let rules = match &plan.kind {
                        crate::plan::PlanKind::Insert { table, .. }
                        | crate::plan::PlanKind::Update { table, .. }
                        | crate::plan::PlanKind::Delete { table, .. } => {
                            TableRules::bind(table, catalog)?
                        }
                        _ => TableRules::default(),
                    };
                    let foreign_keys = ForeignKeyRules::for_modification(&plan, catalog);
                    Ok(ProgramStatement::Modify {
                        plan,
                        rules: Box::new(rules),
                        foreign_keys,
                    })
                }
                _ => Err(BindError::syntax(
                    "a trigger program may contain only INSERT, UPDATE, DELETE and SELECT statements",
                )),
            })
            .collect::<Result<Vec<_>, BindError>>()?;
        Ok(Program {
            condition,
            statements,
            width: bound.row.len(),
        })
    }
}

/// The parameters of one firing: the NEW row's columns, then the OLD row's (NULLs for the
/// row the event does not have).
fn row_parameters(width: usize, new: Option<&[Value]>, old: Option<&[Value]>) -> Vec<Value> {
    let mut params = Vec::with_capacity(2 * width);
    for row in [new, old] {
        for column in 0..width {
            params.push(
                row.and_then(|values| values.get(column))
                    .cloned()
                    .unwrap_or(Value::Null),
            );
        }
    }
    params
}

/// A context for running a program inside the statement `outer` executes: the same pages,
/// cancellation and memory budget, with the row as parameters.
fn nested_context(outer: &ExecContext, params: Vec<Value>) -> ExecContext {
    let mut ctx = ExecContext::new(outer.source.clone(), params, outer.interrupt.clone());
    ctx.operator_memory = outer.operator_memory;
    ctx.spill_directory = outer.spill_directory.clone();
    ctx
}

fn returns_a_row(plan: &PlanNode, ctx: &ExecContext) -> ExecResult<bool> {
    let mut operator = operators::build(plan, ctx)?;
    while let Some(batch) = operator.next(ctx)? {
        if batch.rows > 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `error` with the trigger it happened in (once, at the innermost trigger), keeping its
/// SQLSTATE.
fn in_trigger(mut error: ExecError, trigger: &str) -> ExecError {
    if !error.message.contains("(in trigger \"") {
        error.message = format!("{} (in trigger \"{trigger}\")", error.message);
    }
    error
}

/// Carries out an INSERT, UPDATE or DELETE on a view: fires the view's INSTEAD OF triggers
/// for each row `modification.rows` produces. Returns 0: like SQLite's `changes()`, the
/// count leaves out INSTEAD OF firings (the triggers' own changes are not the statement's).
pub fn execute_view_modification(
    modification: &ViewModification,
    runtime: &TriggerRuntime,
    txn: &Arc<parking_lot::Mutex<WriteTxn>>,
    ctx: &ExecContext,
) -> ExecResult<u64> {
    let (event, updated_columns) = match &modification.event {
        TriggerEvent::Insert => (RowEvent::Insert, Vec::new()),
        TriggerEvent::Update(columns) => (RowEvent::Update, columns.clone()),
        TriggerEvent::Delete => (RowEvent::Delete, Vec::new()),
    };
    let updated_columns: Vec<&str> = updated_columns.iter().map(String::as_str).collect();
    let triggers = runtime.matching(
        &modification.view,
        TriggerTiming::InsteadOf,
        event,
        &updated_columns,
    );
    // Every row is computed before the first trigger runs, as for any modification.
    let mut operator = operators::build(&modification.rows, ctx)?;
    let batches = operators::collect(operator.as_mut(), ctx)?;
    drop(operator);
    let width = modification.width;
    for batch in &batches {
        for row in 0..batch.rows {
            let values = batch.row(row);
            let (new, old) = match event {
                RowEvent::Insert => (values.get(..width), None),
                RowEvent::Delete => (None, values.get(..width)),
                RowEvent::Update => (values.get(width..2 * width), values.get(..width)),
            };
            runtime.fire(&triggers, new, old, txn, ctx)?;
        }
    }
    Ok(0)
}

/// The BEFORE and AFTER triggers of one modification of one table, ready to fire per row.
/// Empty (and free) when no trigger watches the change.
#[derive(Debug)]
pub struct RowTriggers<'a> {
    runtime: &'a TriggerRuntime,
    before: Vec<Arc<TriggerDef>>,
    after: Vec<Arc<TriggerDef>>,
    txn: &'a Arc<parking_lot::Mutex<WriteTxn>>,
    ctx: &'a ExecContext,
}

impl<'a> RowTriggers<'a> {
    /// The triggers an `event` on `relation` fires ([`TriggerRuntime::matching`]).
    pub fn for_change(
        runtime: &'a TriggerRuntime,
        relation: &str,
        event: RowEvent,
        updated_columns: &[&str],
        txn: &'a Arc<parking_lot::Mutex<WriteTxn>>,
        ctx: &'a ExecContext,
    ) -> Self {
        let watched = runtime.watches(relation);
        let matching = |timing| {
            if watched {
                runtime.matching(relation, timing, event, updated_columns)
            } else {
                Vec::new()
            }
        };
        RowTriggers {
            runtime,
            before: matching(TriggerTiming::Before),
            after: matching(TriggerTiming::After),
            txn,
            ctx,
        }
    }

    /// Whether any trigger fires for the change: its programs may then change other rows
    /// of the table while the statement is still working through its rows.
    pub fn fire_any(&self) -> bool {
        !self.before.is_empty() || !self.after.is_empty()
    }

    /// Whether a BEFORE trigger fires (and may change the very row about to be written).
    pub fn fire_before(&self) -> bool {
        !self.before.is_empty()
    }

    /// Fires the BEFORE triggers for a row about to change.
    pub fn before(&self, new: Option<&[Value]>, old: Option<&[Value]>) -> ExecResult<()> {
        if self.before.is_empty() {
            return Ok(());
        }
        self.runtime
            .fire(&self.before, new, old, self.txn, self.ctx)
    }

    /// Fires the AFTER triggers for a row that changed.
    pub fn after(&self, new: Option<&[Value]>, old: Option<&[Value]>) -> ExecResult<()> {
        if self.after.is_empty() {
            return Ok(());
        }
        self.runtime.fire(&self.after, new, old, self.txn, self.ctx)
    }
}
