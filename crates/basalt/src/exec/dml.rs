//! INSERT, UPDATE and DELETE.
//!
//! A modification first runs its input plan to completion (the rows to insert, or the rows
//! to change with their row ids), then applies the changes. Reading everything before
//! writing is what keeps `UPDATE t SET k = k + 1` from seeing its own updates (the Halloween
//! problem) and `INSERT INTO t SELECT * FROM t` from feeding on itself.
//!
//! For each row the executor enforces the table's constraints in PostgreSQL's order and with
//! its error codes: NOT NULL (23502), length limits (22001), CHECK (23514), uniqueness of the
//! row id and of every unique index (23505), and keeps every index in step with the table.
//! Foreign keys (23503 and referential actions) are `super::foreign_keys`' job: the writer
//! reports every row it writes to an [`Enforcer`], which checks and cascades.
//! Row triggers fire around each row's change (`super::triggers`: BEFORE before it is
//! written, AFTER once it is).
//! A failure aborts the statement; the caller rolls back to the statement's savepoint so a
//! failed statement changes nothing. A single-row `INSERT ... VALUES` makes every check
//! before it writes, and runs without that savepoint ([`fails_before_writing`]).

use std::borrow::Cow;
use std::sync::Arc;

use crate::catalog::{Catalog, IndexDef, TableDef};
use crate::plan::bind::{self, BindError};
use crate::plan::{ConflictAction, Expr, PlanKind, PlanNode};
use crate::sqlstate;
use crate::storage::btree::TableTree;
use crate::storage::page::{PageNo, PageRead};
use crate::txn::WriteTxn;
use crate::types::{self, DataType, Value};

use super::batch::Batch;
use super::context::ExecContext;
use super::error::{ExecError, ExecResult};
use super::eval;
use super::foreign_keys::{Enforcer, ForeignKeyRules};
use super::index_access::{IndexAccess, IndexAm, IndexEntry, IndexProbe};
use super::operators::{self, sort::concatenate};
use super::record::{read_row_values, row_to_cells};
use super::triggers::{RowEvent, RowTriggers, TriggerRuntime};

/// What a modification of one table needs beyond its plan, resolved once per prepared
/// statement: column defaults and CHECK constraints, bound over the table's row (column `i`
/// of the table is input column `i`), the indexes to maintain and the storage kinds of the
/// row's slots.
#[derive(Clone, Debug, Default)]
pub struct TableRules {
    /// One entry per table column: the default expression, if any.
    pub defaults: Vec<Option<Expr>>,
    /// CHECK constraints with their SQL text (for messages).
    pub checks: Vec<(String, Expr)>,
    /// Generated columns (by position) and their expressions over the table's row.
    pub generated: Vec<(usize, Expr)>,
    /// The table's indexes.
    pub indexes: Vec<Arc<IndexDef>>,
    /// [`TableDef::slot_kinds`].
    pub slot_kinds: Vec<crate::storage::btree::ColumnKind>,
    /// Root page of the table the rules were bound for (0, which no table has, when they
    /// were not bound: a statement that modifies nothing).
    pub table_root: PageNo,
    /// SQLite's AUTOINCREMENT: the sequence keeping the table's largest row id ever used.
    pub autoincrement: Option<Arc<crate::catalog::SequenceDef>>,
}

impl TableRules {
    /// Binds the defaults and CHECK constraints of `table` and lists its indexes.
    pub fn bind(table: &TableDef, catalog: &Catalog) -> Result<TableRules, BindError> {
        let defaults = table
            .columns
            .iter()
            .map(|column| {
                column
                    .default
                    .as_ref()
                    .map(|sql| bind::bind_column_default(sql, column.data_type, table, catalog))
                    .transpose()
            })
            .collect::<Result<Vec<_>, BindError>>()?;
        let checks = table
            .checks
            .iter()
            .map(|sql| {
                Ok((
                    sql.clone(),
                    bind::bind_table_predicate(sql, table, catalog)?,
                ))
            })
            .collect::<Result<Vec<_>, BindError>>()?;
        let generated = (0..table.columns.len())
            .filter(|&column| table.columns[column].generated.is_some())
            .map(|column| Ok((column, bind::bind_generated_column(table, column, catalog)?)))
            .collect::<Result<Vec<_>, BindError>>()?;
        Ok(TableRules {
            defaults,
            checks,
            generated,
            indexes: catalog.indexes_of(&table.name).cloned().collect(),
            slot_kinds: table.slot_kinds(),
            table_root: table.root,
            autoincrement: catalog
                .sequences
                .values()
                .find(|sequence| {
                    sequence.autoincrement
                        && sequence
                            .owner
                            .as_ref()
                            .is_some_and(|owner| owner.eq_ignore_ascii_case(&table.name))
                })
                .cloned(),
        })
    }
}

/// What a modification did.
#[derive(Debug, Default)]
pub struct ModifyResult {
    /// Rows inserted, updated or deleted.
    pub changes: u64,
    /// Row id of the last inserted row.
    pub last_insert_row_id: Option<i64>,
    /// RETURNING rows.
    pub returning: Vec<Batch>,
}

fn table_types(table: &TableDef) -> Vec<DataType> {
    table
        .columns
        .iter()
        .map(|column| column.data_type)
        .collect()
}

fn run_input(plan: &PlanNode, ctx: &ExecContext) -> ExecResult<Batch> {
    let mut operator = operators::build(plan, ctx)?;
    let mut batches = operators::collect(operator.as_mut(), ctx)?;
    // One batch (every UPDATE or DELETE of a row or a few) is the input as it is: copying it
    // value by value into a batch of its own was a tenth of a one-row DELETE.
    if batches.len() == 1
        && let Some(batch) = batches.pop()
    {
        return Ok(batch);
    }
    let types: Vec<DataType> = plan.schema.iter().map(|column| column.data_type).collect();
    Ok(concatenate(&batches, &types))
}

/// The rows an INSERT writes, in target-column order, all computed before the first is
/// written (so a subquery in the source sees the table as it was when the statement began).
enum InsertRows {
    /// A VALUES list, evaluated row by row without building column batches: the common
    /// single-row `INSERT ... VALUES (?, ?, ...)` then costs one `Value` per column.
    Values(Vec<Vec<Value>>),
    /// Any other source (INSERT ... SELECT), as one batch.
    Batch(Batch),
}

impl InsertRows {
    fn evaluate(source: &PlanNode, ctx: &ExecContext) -> ExecResult<InsertRows> {
        if let PlanKind::Values { rows } = &source.kind {
            let rows = rows
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|expr| eval::evaluate_scalar(expr, ctx))
                        .collect()
                })
                .collect::<ExecResult<_>>()?;
            return Ok(InsertRows::Values(rows));
        }
        Ok(InsertRows::Batch(run_input(source, ctx)?))
    }

    fn len(&self) -> usize {
        match self {
            InsertRows::Values(rows) => rows.len(),
            InsertRows::Batch(batch) => batch.rows,
        }
    }

    /// Row `row` of a VALUES list as a whole, moved out, if it has `columns` values.
    fn take_row(&mut self, row: usize, columns: usize) -> Option<Vec<Value>> {
        match self {
            InsertRows::Values(rows) => rows
                .get_mut(row)
                .filter(|values| values.len() == columns)
                .map(std::mem::take),
            InsertRows::Batch(_) => None,
        }
    }

    /// The value at `row` and `position`, moved out where it can be (each is taken once).
    fn take(&mut self, row: usize, position: usize) -> Value {
        match self {
            InsertRows::Values(rows) => rows
                .get_mut(row)
                .and_then(|row| row.get_mut(position))
                .map(|value| std::mem::replace(value, Value::Null))
                .unwrap_or(Value::Null),
            InsertRows::Batch(batch) => batch
                .columns
                .get(position)
                .map_or(Value::Null, |vector| vector.get(row)),
        }
    }
}

/// Row `row` of an INSERT's input laid out as the table's columns: given values where
/// `target_columns` puts them, defaults (or NULL) elsewhere.
fn row_with_defaults(
    table: &TableDef,
    target_columns: &[usize],
    rules: &TableRules,
    input: &mut InsertRows,
    row: usize,
    ctx: &ExecContext,
) -> ExecResult<Vec<Value>> {
    let mut values: Vec<Value> = vec![Value::Null; table.columns.len()];
    let mut given = vec![false; table.columns.len()];
    for (position, &column) in target_columns.iter().enumerate() {
        if let Some(slot) = values.get_mut(column) {
            *slot = input.take(row, position);
            given[column] = true;
        }
    }
    for (column, default) in rules.defaults.iter().enumerate() {
        if !given.get(column).copied().unwrap_or(true)
            && let Some(default) = default
        {
            values[column] = eval::evaluate_scalar(default, ctx)?;
        }
    }
    Ok(values)
}

/// Executes an INSERT, UPDATE or DELETE plan inside `txn`, enforcing `foreign_keys` (`None`
/// when `PRAGMA foreign_keys` is off) and firing the row triggers `triggers` knows.
pub fn execute_modify(
    plan: &PlanNode,
    rules: &TableRules,
    foreign_keys: Option<&ForeignKeyRules>,
    txn: &Arc<parking_lot::Mutex<WriteTxn>>,
    ctx: &ExecContext,
    triggers: &TriggerRuntime,
) -> ExecResult<ModifyResult> {
    if let PlanKind::Insert { table, .. }
    | PlanKind::Update { table, .. }
    | PlanKind::Delete { table, .. } = &plan.kind
        && rules.table_root != table.root
    {
        // The writer maintains exactly the indexes the rules list.
        return Err(ExecError::internal(format!(
            "modification of \"{}\" run with rules bound for another table",
            table.name
        )));
    }
    let mut enforcer = Enforcer::new(foreign_keys, txn, ctx)?;
    let result = apply_rows(plan, rules, txn, ctx, &mut enforcer, triggers)?;
    enforcer.finish()?;
    Ok(result)
}

/// Whether `plan` makes every check before its first write, so that when it fails it has
/// changed nothing and needs no statement savepoint to undo it: an `INSERT ... VALUES` of
/// one row that aborts on conflict, returns nothing, and whose foreign keys (enforced when
/// `foreign_keys` is given) all reference other tables. SQLite likewise skips its statement
/// journal for a statement that cannot fail half-way. A storage error can still strike after
/// the first write; the caller must treat changes left by a failure as fatal to the
/// transaction ([`WriteTxn::change_count`] tells). A table with triggers never qualifies:
/// a trigger program can fail after the row is written.
pub fn fails_before_writing(
    plan: &PlanNode,
    foreign_keys: Option<&ForeignKeyRules>,
    triggers: &TriggerRuntime,
) -> bool {
    let PlanKind::Insert {
        table,
        source,
        on_conflict: ConflictAction::Abort,
        returning,
        ..
    } = &plan.kind
    else {
        return false;
    };
    returning.is_empty()
        && !triggers.watches(&table.name)
        && matches!(&source.kind, PlanKind::Values { rows } if rows.len() == 1)
        && foreign_keys.is_none_or(ForeignKeyRules::insert_references_only_other_tables)
}

/// Applies the statement's own rows; referential actions wait for `enforcer.finish`.
fn apply_rows(
    plan: &PlanNode,
    rules: &TableRules,
    txn: &Arc<parking_lot::Mutex<WriteTxn>>,
    ctx: &ExecContext,
    enforcer: &mut Enforcer<'_>,
    triggers: &TriggerRuntime,
) -> ExecResult<ModifyResult> {
    match &plan.kind {
        PlanKind::Insert {
            table,
            source,
            target_columns,
            on_conflict,
            returning,
        } => {
            let mut input = InsertRows::evaluate(source, ctx)?;
            let only_row = input.len() == 1;
            let row_triggers =
                RowTriggers::for_change(triggers, &table.name, RowEvent::Insert, &[], txn, ctx);
            let mut writer = Writer::new(table, rules, txn, ctx, enforcer.target());
            let mut result = ModifyResult::default();
            let mut returned = Returning::new(plan, returning, table);
            // Every column given, in table order: a VALUES row is the row as it is.
            let all_in_order = target_columns.len() == table.columns.len()
                && target_columns
                    .iter()
                    .enumerate()
                    .all(|(position, &column)| position == column);
            for row in 0..input.len() {
                let whole_row = all_in_order
                    .then(|| input.take_row(row, table.columns.len()))
                    .flatten();
                let values = match whole_row {
                    Some(values) => values,
                    None => row_with_defaults(table, target_columns, rules, &mut input, row, ctx)?,
                };
                row_triggers.before(Some(&values), None)?;
                if let Some((row_id, final_values)) =
                    writer.insert(values, on_conflict, only_row, enforcer)?
                {
                    row_triggers.after(Some(&final_values), None)?;
                    result.changes += 1;
                    result.last_insert_row_id = Some(row_id);
                    returned.push(&final_values, ctx)?;
                }
            }
            result.returning = returned.finish();
            Ok(result)
        }
        PlanKind::Update {
            table,
            input,
            assignments,
            returning,
        } => {
            let input = run_input(input, ctx)?;
            let new_columns = assignments
                .iter()
                .map(|(column, expr)| Ok((*column, eval::evaluate(expr, &input, ctx)?)))
                .collect::<ExecResult<Vec<_>>>()?;
            let mut writer = Writer::new(table, rules, txn, ctx, enforcer.target());
            let mut result = ModifyResult::default();
            let mut returned = Returning::new(plan, returning, table);
            let updated_columns: Vec<&str> = assignments
                .iter()
                .filter_map(|(column, _)| table.columns.get(*column))
                .map(|column| column.name.as_str())
                .collect();
            let row_triggers = RowTriggers::for_change(
                triggers,
                &table.name,
                RowEvent::Update,
                &updated_columns,
                txn,
                ctx,
            );
            let input_types: Vec<DataType> = input.columns.iter().map(|c| c.data_type()).collect();
            for row in 0..input.rows {
                let values = input.row(row);
                let (row_id, read) = split_row_id(&values)?;
                let mut old = Cow::Borrowed(read);
                let mut new = read.to_vec();
                for (column, vector) in &new_columns {
                    if let Some(slot) = new.get_mut(*column) {
                        *slot = vector.get(row);
                    }
                }
                if row_triggers.fire_any() {
                    // The triggers of the rows updated so far may have deleted or changed
                    // this one since the input was read. As in SQLite, a deleted row is
                    // skipped and a changed one is updated from its current values, SET
                    // computed over them; writing from the values read would also remove
                    // its index entries under keys it no longer has (issue 15).
                    match writer.read_row(row_id)? {
                        None => continue,
                        Some(current) if current != *old => {
                            let mut batch = Batch::with_types(&input_types, 1);
                            batch.push_row(
                                &std::iter::once(Value::Integer(row_id))
                                    .chain(current.iter().cloned())
                                    .collect::<Vec<_>>(),
                            );
                            new.clone_from(&current);
                            for (column, expr) in assignments {
                                if let Some(slot) = new.get_mut(*column) {
                                    *slot = eval::evaluate(expr, &batch, ctx)?.get(0);
                                }
                            }
                            old = Cow::Owned(current);
                        }
                        Some(_) => {}
                    }
                }
                row_triggers.before(Some(&new), Some(&old))?;
                if row_triggers.fire_before() {
                    // A BEFORE trigger may have deleted or changed the row itself: SQLite
                    // then skips it, or keeps what the trigger wrote to the columns the
                    // SET does not assign.
                    match writer.read_row(row_id)? {
                        None => continue,
                        Some(current) if current != *old => {
                            for (column, value) in current.iter().enumerate() {
                                if !assignments.iter().any(|(assigned, _)| *assigned == column)
                                    && let Some(slot) = new.get_mut(column)
                                {
                                    *slot = value.clone();
                                }
                            }
                            old = Cow::Owned(current);
                        }
                        Some(_) => {}
                    }
                }
                let new = writer.update(row_id, &old, new, enforcer)?;
                row_triggers.after(Some(&new), Some(&old))?;
                result.changes += 1;
                returned.push(&new, ctx)?;
            }
            result.returning = returned.finish();
            Ok(result)
        }
        PlanKind::Delete {
            table,
            input,
            returning,
            ..
        } => {
            let input = run_input(input, ctx)?;
            let mut writer = Writer::new(table, rules, txn, ctx, enforcer.target());
            let mut result = ModifyResult::default();
            let mut returned = Returning::new(plan, returning, table);
            let row_triggers =
                RowTriggers::for_change(triggers, &table.name, RowEvent::Delete, &[], txn, ctx);
            for row in 0..input.rows {
                let values = input.row(row);
                let (row_id, read) = split_row_id(&values)?;
                let mut old = Cow::Borrowed(read);
                // The triggers of the rows deleted so far (and this row's BEFORE triggers)
                // may have deleted or changed this row since the input was read: a deleted
                // row is skipped, a changed one deleted as it is now. Deleting it by the
                // values read would leave its index entries behind (issue 15).
                if row_triggers.fire_any() {
                    match writer.read_row(row_id)? {
                        None => continue,
                        Some(current) => old = Cow::Owned(current),
                    }
                }
                row_triggers.before(None, Some(&old))?;
                if row_triggers.fire_before() {
                    match writer.read_row(row_id)? {
                        None => continue,
                        Some(current) => old = Cow::Owned(current),
                    }
                }
                if writer.delete(row_id, &old, enforcer)? {
                    row_triggers.after(None, Some(&old))?;
                    result.changes += 1;
                    returned.push(&old, ctx)?;
                }
            }
            result.returning = returned.finish();
            Ok(result)
        }
        _ => Err(ExecError::internal("not a modification plan")),
    }
}

/// Splits an UPDATE/DELETE input row into its row id and the table's column values.
fn split_row_id(values: &[Value]) -> ExecResult<(i64, &[Value])> {
    match values.split_first() {
        Some((Value::Integer(row_id), columns)) => Ok((*row_id, columns)),
        _ => Err(ExecError::internal("modification input lacks the row id")),
    }
}

/// Collects the RETURNING rows of a modification: the RETURNING expressions evaluated over
/// each changed row (the table's columns in table order).
struct Returning<'a> {
    exprs: &'a [Expr],
    table: &'a TableDef,
    rows: Batch,
}

impl<'a> Returning<'a> {
    fn new(plan: &PlanNode, exprs: &'a [Expr], table: &'a TableDef) -> Self {
        let types: Vec<DataType> = plan.schema.iter().map(|column| column.data_type).collect();
        Returning {
            exprs,
            table,
            rows: Batch::with_types(&types, 16),
        }
    }

    fn push(&mut self, row: &[Value], ctx: &ExecContext) -> ExecResult<()> {
        if self.exprs.is_empty() {
            return Ok(());
        }
        let mut batch = Batch::with_types(&table_types(self.table), 1);
        batch.push_row(row);
        let values = self
            .exprs
            .iter()
            .map(|expr| Ok(eval::evaluate(expr, &batch, ctx)?.get(0)))
            .collect::<ExecResult<Vec<_>>>()?;
        self.rows.push_row(&values);
        Ok(())
    }

    fn finish(self) -> Vec<Batch> {
        if self.rows.rows > 0 {
            vec![self.rows]
        } else {
            Vec::new()
        }
    }
}

/// Applies row changes to one table and its indexes.
#[derive(Debug)]
pub(super) struct Writer<'a> {
    table: &'a TableDef,
    indexes: &'a [Arc<IndexDef>],
    rules: &'a TableRules,
    txn: &'a Arc<parking_lot::Mutex<WriteTxn>>,
    ctx: &'a ExecContext,
    tree: TableTree,
    kinds: &'a [crate::storage::btree::ColumnKind],
    /// The table's entry in the statement's foreign key rules, if any key concerns it.
    foreign_key_entry: Option<usize>,
    /// Usable bytes of a page, which bound an index entry's size.
    usable_size: usize,
}

impl<'a> Writer<'a> {
    /// A writer of `table`, maintaining the indexes `rules` (bound for `table`) list.
    pub(super) fn new(
        table: &'a TableDef,
        rules: &'a TableRules,
        txn: &'a Arc<parking_lot::Mutex<WriteTxn>>,
        ctx: &'a ExecContext,
        foreign_key_entry: Option<usize>,
    ) -> Self {
        Writer {
            table,
            indexes: &rules.indexes,
            rules,
            txn,
            ctx,
            tree: TableTree::open(table.root),
            kinds: &rules.slot_kinds,
            foreign_key_entry,
            usable_size: txn.lock().usable_size(),
        }
    }

    /// SQLite's `OR REPLACE` for NOT NULL: a NULL bound for a NOT NULL column that has a
    /// default takes the default (without one, `conform` then fails the row). The row id
    /// column keeps its NULL, which asks for the next row id.
    fn defaults_for_not_null(&self, mut values: Vec<Value>) -> ExecResult<Vec<Value>> {
        for (column, value) in values.iter_mut().enumerate() {
            if value.is_null()
                && Some(column) != self.table.row_id_column
                && self.table.columns.get(column).is_some_and(|c| c.not_null)
                && let Some(Some(default)) = self.rules.defaults.get(column)
            {
                *value = eval::evaluate_scalar(default, self.ctx)?;
            }
        }
        Ok(values)
    }

    /// Computes generated columns, casts values to their columns' types and checks NOT
    /// NULL, lengths and CHECKs.
    fn conform(&self, mut out: Vec<Value>) -> ExecResult<Vec<Value>> {
        out.truncate(self.table.columns.len());
        if !self.rules.generated.is_empty() {
            self.compute_generated(&mut out)?;
        }
        for (column, value) in self.table.columns.iter().zip(out.iter_mut()) {
            if !value.is_null() && !value.is_of(column.data_type) {
                *value = types::cast(value, column.data_type)?;
            }
            if value.is_null() && column.not_null {
                return Err(ExecError::new(
                    sqlstate::NOT_NULL_VIOLATION,
                    format!(
                        "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                        column.name, self.table.name
                    ),
                ));
            }
            match (column.data_type, &*value) {
                (DataType::Text(Some(max)), Value::Text(text)) => {
                    *value =
                        Value::Text(types::cast::enforce_char_length(text, max as usize, false)?);
                }
                (DataType::Vector(dimensions), Value::Vector(elements)) => {
                    types::vector::check_dimensions(dimensions, elements.len())?;
                }
                // NUMERIC(p, s): rounded to s, 22003 past p, as PostgreSQL stores it.
                (DataType::Numeric(Some((precision, scale))), Value::Numeric(number)) => {
                    *value = Value::Numeric(number.apply_typmod(precision, scale)?);
                }
                // TIME(p): rounded to p fractional digits, as PostgreSQL stores it.
                (DataType::Time(precision @ Some(_)), Value::Time(micros)) => {
                    *value = Value::Time(types::time::round_to_precision(*micros, precision));
                }
                _ => {}
            }
        }
        if !self.rules.checks.is_empty() {
            let mut batch = Batch::with_types(&table_types(self.table), 1);
            batch.push_row(&out);
            for (sql, check) in &self.rules.checks {
                // A CHECK passes unless it is false (NULL passes, as in SQL).
                if eval::evaluate(check, &batch, self.ctx)?.get(0) == Value::Boolean(false) {
                    return Err(ExecError::new(
                        sqlstate::CHECK_VIOLATION,
                        format!(
                            "new row for relation \"{}\" violates check constraint ({sql})",
                            self.table.name
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Replaces each generated column's value by its expression over the row. Runs after
    /// BEFORE triggers (whatever they set a generated column to is overwritten, as in
    /// PostgreSQL) and before every constraint, so constraints and indexes see the computed
    /// values. The expressions read only base columns, cast here to their types first.
    fn compute_generated(&self, values: &mut [Value]) -> ExecResult<()> {
        for (column, value) in self.table.columns.iter().zip(values.iter_mut()) {
            if !value.is_null() && !value.is_of(column.data_type) {
                *value = types::cast(value, column.data_type)?;
            }
        }
        let mut batch = Batch::with_types(&table_types(self.table), 1);
        batch.push_row(values);
        for (column, expr) in &self.rules.generated {
            let computed = eval::evaluate(expr, &batch, self.ctx)?.get(0);
            if let Some(slot) = values.get_mut(*column) {
                *slot = computed;
            }
        }
        Ok(())
    }

    /// Row ids of rows (other than `except`) that collide with `values` on a unique index,
    /// leaving out indexes where the key equals `unchanged_from`'s (an update of row `except`
    /// from `unchanged_from` creates conflicts only where it changes the key: the row already
    /// held its old keys).
    fn unique_conflicts(
        &self,
        values: &[Value],
        unchanged_from: Option<&[Value]>,
        except: Option<i64>,
    ) -> ExecResult<Vec<(Arc<IndexDef>, i64)>> {
        let probes = self.unique_probes(values, unchanged_from);
        self.rows_holding(
            probes.iter().map(|(index, key)| (*index, &key[..], None)),
            except,
        )
    }

    /// The unique conflicts of a new row whose index entries are `entries`
    /// ([`Writer::index_entries`]): each entry's key less its row id is the probe.
    fn unique_conflicts_of_entries(
        &self,
        entries: &[IndexEntry],
    ) -> ExecResult<Vec<(Arc<IndexDef>, i64)>> {
        let probes = self
            .indexes
            .iter()
            .zip(entries)
            .filter(|(index, _)| index.unique)
            .filter_map(|(index, entry)| Some((index, entry.unique_key()?, Some(entry))));
        self.rows_holding(probes, None)
    }

    /// `values`' key (without row id) in each unique index where it has no NULL (NULLs never
    /// collide), leaving out indexes where the key equals `unchanged_from`'s.
    fn unique_probes(
        &self,
        values: &[Value],
        unchanged_from: Option<&[Value]>,
    ) -> Vec<(&Arc<IndexDef>, Vec<u8>)> {
        self.indexes
            .iter()
            .filter(|index| index.unique)
            .filter_map(|index| {
                let access = IndexAccess::of(index);
                let key = access.unique_key(values)?;
                let changed = unchanged_from
                    .is_none_or(|old| access.unique_key(old).as_deref() != Some(&key[..]));
                changed.then_some((index, key))
            })
            .collect()
    }

    /// Rows (other than `except`) holding an entry that starts with one of `probes`, each a
    /// unique index with a unique key and, optionally, the entry to be inserted, which
    /// notes where the probe ended (where its key goes).
    fn rows_holding<'i>(
        &self,
        probes: impl IntoIterator<Item = (&'i Arc<IndexDef>, &'i [u8], Option<&'i IndexEntry>)>,
        except: Option<i64>,
    ) -> ExecResult<Vec<(Arc<IndexDef>, i64)>> {
        let mut conflicts = Vec::new();
        let txn = self.txn.lock();
        for (index, prefix, entry) in probes {
            let hint = IndexAccess::of(index)
                .probe(&*txn)
                .rows_with_prefix(prefix, |row_id| {
                    if Some(row_id) != except {
                        conflicts.push((index.clone(), row_id));
                    }
                    Ok(true)
                })?;
            if let Some(entry) = entry {
                entry.set_hint(hint);
            }
        }
        Ok(conflicts)
    }

    /// Whether row `row_id` exists (a seek, without decoding the row).
    fn row_exists(&self, row_id: i64) -> ExecResult<bool> {
        let txn = self.txn.lock();
        Ok(self.tree.cursor(&*txn).seek_ge(row_id)?)
    }

    fn read_row(&self, row_id: i64) -> ExecResult<Option<Vec<Value>>> {
        let txn = self.txn.lock();
        let mut cursor = self.tree.cursor(&*txn);
        if !cursor.seek_ge(row_id)? {
            return Ok(None);
        }
        Ok(Some(read_row_values(&cursor, self.table)?))
    }

    fn duplicate_error(&self, index: Option<&IndexDef>) -> ExecError {
        let name = index.map_or_else(
            || format!("{}_pkey", self.table.name),
            |index| index.name.clone(),
        );
        ExecError::new(
            sqlstate::UNIQUE_VIOLATION,
            format!("duplicate key value violates unique constraint \"{name}\""),
        )
    }

    /// Inserts one row, resolving conflicts by `on_conflict`; `only_row` says the statement
    /// inserts no other row. Returns the row id and final values, or `None` if the row was
    /// skipped (`OR IGNORE`, `DO NOTHING`). An AUTOINCREMENT table's high-water mark rises to
    /// every row id it stores, generated or explicit, as SQLite's `sqlite_sequence` does.
    fn insert(
        &mut self,
        values: Vec<Value>,
        on_conflict: &ConflictAction,
        only_row: bool,
        enforcer: &mut Enforcer<'_>,
    ) -> ExecResult<Option<(i64, Vec<Value>)>> {
        let inserted = self.insert_row(values, on_conflict, only_row, enforcer)?;
        if let (Some((row_id, _)), Some(sequence)) = (&inserted, &self.rules.autoincrement) {
            super::sequence::raise_high_water(sequence, *row_id, &mut self.txn.lock())?;
        }
        Ok(inserted)
    }

    fn insert_row(
        &mut self,
        values: Vec<Value>,
        on_conflict: &ConflictAction,
        only_row: bool,
        enforcer: &mut Enforcer<'_>,
    ) -> ExecResult<Option<(i64, Vec<Value>)>> {
        let values = match on_conflict {
            ConflictAction::Replace => self.defaults_for_not_null(values)?,
            _ => values,
        };
        let mut values = match self.conform(values) {
            Err(error)
                if *on_conflict == ConflictAction::IgnoreAnyViolation
                    && matches!(
                        error.code,
                        sqlstate::NOT_NULL_VIOLATION | sqlstate::CHECK_VIOLATION
                    ) =>
            {
                return Ok(None);
            }
            conformed => conformed?,
        };
        let row_id = match self
            .table
            .row_id_column
            .and_then(|column| values.get(column))
        {
            Some(Value::Integer(row_id)) => *row_id,
            _ => {
                let next = {
                    let txn = self.txn.lock();
                    let largest = self.tree.max_row_id(&*txn)?;
                    // AUTOINCREMENT: above every row id ever used, not only the present ones.
                    let largest = match &self.rules.autoincrement {
                        Some(sequence) => Some(
                            largest
                                .unwrap_or(0)
                                .max(super::sequence::high_water(sequence, &txn)?),
                        ),
                        None => largest,
                    };
                    largest.map_or(Ok(1), |max| {
                        max.checked_add(1).ok_or_else(|| {
                            ExecError::new(
                                sqlstate::NUMERIC_VALUE_OUT_OF_RANGE,
                                "row id space exhausted",
                            )
                        })
                    })?
                };
                if let Some(column) = self.table.row_id_column {
                    values[column] = Value::Integer(next);
                }
                next
            }
        };
        if matches!(on_conflict, ConflictAction::Abort) {
            // Every check comes before the first write, so a failing single-row INSERT
            // changes nothing and can run without a statement savepoint
            // (`fails_before_writing`). The table insert itself reports a taken row id
            // before writing; the error paths look for one first, so a row that breaks
            // several rules reports the row id, as the end-of-statement order would.
            let entries = self.index_entries(row_id, &values)?;
            if let Some((index, _)) = self.unique_conflicts_of_entries(&entries)?.first() {
                let index = (!self.row_exists(row_id)?).then_some(&**index);
                return Err(self.duplicate_error(index));
            }
            let references = if only_row {
                enforcer.inserted_row_checked_at_once(self.foreign_key_entry, row_id, &values)
            } else {
                enforcer.inserted(self.foreign_key_entry, row_id, &values)
            };
            if let Err(error) = references {
                if self.row_exists(row_id)? {
                    return Err(self.duplicate_error(None));
                }
                return Err(error);
            }
            self.write_row(row_id, &values)?;
            self.write_index_keys(&entries)?;
            return Ok(Some((row_id, values)));
        }
        let existing_row = self.row_exists(row_id)?;
        let mut conflicts = self.unique_conflicts(&values, None, None)?;
        if existing_row {
            conflicts.insert(
                0,
                (Arc::new(IndexDef::primary_placeholder(self.table)), row_id),
            );
        }
        if let Some((index, conflicting)) = conflicts.first().cloned() {
            match on_conflict {
                ConflictAction::Abort => {
                    let index = (!existing_row || conflicting != row_id).then_some(&*index);
                    return Err(self.duplicate_error(index));
                }
                ConflictAction::Ignore | ConflictAction::IgnoreAnyViolation => return Ok(None),
                ConflictAction::Replace => {
                    let mut doomed: Vec<i64> = conflicts.iter().map(|(_, id)| *id).collect();
                    doomed.sort_unstable();
                    doomed.dedup();
                    for id in doomed {
                        if let Some(old) = self.read_row(id)? {
                            self.delete(id, &old, enforcer)?;
                        }
                    }
                }
                ConflictAction::Update {
                    target_columns,
                    assignments,
                    condition,
                } => {
                    // Only a conflict on the constraint the target names is resolved by the
                    // update; one on any other constraint fails, as in PostgreSQL and
                    // SQLite (found by basalt-difftest).
                    let mut target = target_columns.clone();
                    target.sort_unstable();
                    target.dedup();
                    let arbiter = conflicts.iter().find(|(candidate, _)| {
                        let mut columns: Vec<usize> = if candidate.columns.is_empty() {
                            self.table.row_id_column.into_iter().collect()
                        } else {
                            candidate
                                .columns
                                .iter()
                                .map(|(column, _)| *column)
                                .collect()
                        };
                        columns.sort_unstable();
                        columns == target
                    });
                    let Some(&(_, conflicting)) = arbiter else {
                        let index = (!existing_row || conflicting != row_id).then_some(&*index);
                        return Err(self.duplicate_error(index));
                    };
                    let Some(old) = self.read_row(conflicting)? else {
                        return Ok(None);
                    };
                    let mut batch = Batch::with_types(
                        &table_types(self.table)
                            .into_iter()
                            .chain(table_types(self.table))
                            .collect::<Vec<_>>(),
                        1,
                    );
                    batch.push_row(&old.iter().chain(values.iter()).cloned().collect::<Vec<_>>());
                    if let Some(condition) = condition
                        && eval::evaluate(condition, &batch, self.ctx)?.get(0)
                            != Value::Boolean(true)
                    {
                        return Ok(None);
                    }
                    let mut new = old.clone();
                    for (column, expr) in assignments {
                        if let Some(slot) = new.get_mut(*column) {
                            *slot = eval::evaluate(expr, &batch, self.ctx)?.get(0);
                        }
                    }
                    let new = self.update(conflicting, &old, new, enforcer)?;
                    return Ok(Some((conflicting, new)));
                }
            }
        }
        self.write_row(row_id, &values)?;
        self.write_index_entries(row_id, &values)?;
        enforcer.inserted(self.foreign_key_entry, row_id, &values)?;
        Ok(Some((row_id, values)))
    }

    /// Writes a new row to the table; a taken row id is a primary-key violation (23505).
    fn write_row(&self, row_id: i64, values: &[Value]) -> ExecResult<()> {
        let mut vector_bytes = Vec::new();
        let cells = row_to_cells(self.table, values, &mut vector_bytes);
        let mut txn = self.txn.lock();
        if !self.tree.insert(&mut *txn, row_id, self.kinds, &cells)? {
            return Err(self.duplicate_error(None));
        }
        Ok(())
    }

    /// Adds a new row's entries to every index of the table (uniqueness already checked).
    fn write_index_entries(&self, row_id: i64, values: &[Value]) -> ExecResult<()> {
        let entries = self.index_entries(row_id, values)?;
        self.write_index_keys(&entries)
    }

    /// Row `row_id`'s entry in each index of the table, in `self.indexes` order, each
    /// checked to fit in an index page (so writing them cannot fail on their size).
    fn index_entries(&self, row_id: i64, values: &[Value]) -> ExecResult<Vec<IndexEntry>> {
        self.indexes
            .iter()
            .map(|index| {
                let access = IndexAccess::of(index);
                let entry = access.entry(values, row_id);
                access.check_fits(&entry, self.usable_size)?;
                Ok(entry)
            })
            .collect()
    }

    /// Inserts entries from [`Writer::index_entries`].
    fn write_index_keys(&self, entries: &[IndexEntry]) -> ExecResult<()> {
        let mut txn = self.txn.lock();
        for (index, entry) in self.indexes.iter().zip(entries) {
            IndexAccess::of(index).insert(&mut *txn, entry)?;
        }
        Ok(())
    }

    /// Replaces row `row_id` (currently `old`) with `new`; returns the final values.
    pub(super) fn update(
        &mut self,
        row_id: i64,
        old: &[Value],
        new: Vec<Value>,
        enforcer: &mut Enforcer<'_>,
    ) -> ExecResult<Vec<Value>> {
        let new = self.conform(new)?;
        let row_id_value = self
            .table
            .row_id_column
            .and_then(|column| Some((column, new.get(column)?)));
        let new_row_id = match row_id_value {
            Some((_, Value::Integer(id))) => *id,
            // The row id is the primary key: an INSERT assigns one for NULL, an UPDATE
            // cannot store NULL in it (found by basalt-difftest).
            Some((column, Value::Null)) => {
                return Err(ExecError::new(
                    sqlstate::NOT_NULL_VIOLATION,
                    format!(
                        "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                        self.table.columns[column].name, self.table.name
                    ),
                ));
            }
            _ => row_id,
        };
        if new_row_id != row_id && self.row_exists(new_row_id)? {
            return Err(self.duplicate_error(None));
        }
        if let Some((index, _)) = self
            .unique_conflicts(&new, Some(old), Some(row_id))?
            .first()
        {
            return Err(self.duplicate_error(Some(index)));
        }
        {
            let mut vector_bytes = Vec::new();
            let cells = row_to_cells(self.table, &new, &mut vector_bytes);
            let mut txn = self.txn.lock();
            for index in self.indexes.iter() {
                IndexAccess::of(index).update(&mut *txn, (old, row_id), (&new, new_row_id))?;
            }
            if new_row_id == row_id {
                self.tree.update(&mut *txn, row_id, self.kinds, &cells)?;
            } else {
                self.tree.delete(&mut *txn, row_id)?;
                self.tree
                    .insert(&mut *txn, new_row_id, self.kinds, &cells)?;
            }
        }
        enforcer.updated(self.foreign_key_entry, row_id, new_row_id, old, &new)?;
        Ok(new)
    }

    /// Deletes row `row_id` (currently `old`) and its index entries; false if it was
    /// already gone.
    pub(super) fn delete(
        &mut self,
        row_id: i64,
        old: &[Value],
        enforcer: &mut Enforcer<'_>,
    ) -> ExecResult<bool> {
        {
            let mut txn = self.txn.lock();
            if !self.tree.delete(&mut *txn, row_id)? {
                return Ok(false);
            }
            for index in self.indexes.iter() {
                IndexAccess::of(index).delete(&mut *txn, old, row_id)?;
            }
        }
        enforcer.deleted(self.foreign_key_entry, old)?;
        Ok(true)
    }
}

impl IndexDef {
    /// Stands for the row-id "index" in conflict reports.
    fn primary_placeholder(table: &TableDef) -> IndexDef {
        IndexDef {
            name: format!("{}_pkey", table.name),
            table: table.name.clone(),
            columns: Vec::new(),
            unique: true,
            method: crate::catalog::IndexMethod::BTree,
            root: table.root,
            implicit: true,
            options: Vec::new(),
        }
    }
}
