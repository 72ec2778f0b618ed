//! Foreign key enforcement: PostgreSQL's rules for `REFERENCES`, applied by the DML
//! executor (`super::dml`) while `PRAGMA foreign_keys` is on (the default).
//!
//! **What is guaranteed.** When a statement ends without error, every row of every table it
//! touched that has all its referencing columns non-NULL (MATCH SIMPLE) has a referenced row;
//! otherwise the statement fails with 23503 and, like any failed statement, is undone as a
//! whole by the caller's statement savepoint (or by dropping the autocommit transaction).
//!
//! **When things happen.** Checks and actions follow PostgreSQL's non-deferrable constraints,
//! whose triggers fire at the end of the statement:
//! * A written referencing row is checked at once with one seek into the referenced table; if
//!   the referenced row is missing, the row is remembered and checked again when the
//!   statement ends, so `INSERT INTO tree VALUES (2, 1), (1, NULL)` succeeds as in PostgreSQL.
//! * A deleted referenced row, or one whose referenced columns change, is looked up in each
//!   referencing table at once; nothing referencing it means nothing to do (the common case).
//!   Otherwise CASCADE, SET NULL and SET DEFAULT are queued and applied after the statement's
//!   own rows, breadth first (each cascaded change may queue more), and NO ACTION and
//!   RESTRICT are checked once the queue is empty: NO ACTION passes if a row with the old key
//!   exists again (`UPDATE p SET id = id - 1` moving row 2 onto key 1, or `INSERT OR
//!   REPLACE` of a row with the same key), RESTRICT does not. So `DELETE FROM tree` on a
//!   self-referencing table passes, whatever the row order.
//!
//! Applying actions after the statement's own rows also means an UPDATE never re-reads a row
//! that a cascade changed under it. Cascades terminate on cyclic and self-referencing
//! schemas: a delete removes the row before its referencing rows are looked up, so a row is
//! deleted once; an update action only moves referencing rows off a key that no longer exists.
//!
//! **How rows are found.** A referenced row is always found by a seek: the binder only
//! accepts keys whose referenced columns are the INTEGER PRIMARY KEY (the row id) or exactly
//! the columns of a unique index. Referencing rows are found through the referencing table's
//! row id, or any index whose leading columns are the referencing columns; without one the
//! referencing table is scanned for each changed referenced row — as in PostgreSQL, users
//! should index their foreign key columns.
//!
//! The keys a statement may need are resolved once, when it is prepared
//! ([`ForeignKeyRules::for_modification`]): the target table's keys and, when the statement
//! can delete rows or change keys, every table a cascade can reach, with the defaults and
//! CHECKs needed to write them.
//!
//! Layout: this module holds the per-statement rules and the [`Enforcer`]; `key` resolves
//! one key and finds rows for it; [`schema`] is what DDL does to keep keys valid. The
//! binder's side (what a key may reference) is `crate::plan::bind::foreign_key`.

mod key;
pub mod schema;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::catalog::{Catalog, ReferentialAction, TableDef};
use crate::plan::{ConflictAction, PlanKind, PlanNode};
use crate::storage::btree::TableTree;
use crate::txn::WriteTxn;
use crate::types::Value;

use super::context::ExecContext;
use super::dml::{TableRules, Writer};
use super::error::{ExecError, ExecResult};
use super::eval;
use super::record::read_row_values;

pub use key::ResolvedKey;

/// A table a statement may write, with the keys that concern it.
#[derive(Debug)]
struct TableKeys {
    table: Arc<TableDef>,
    /// Defaults and CHECKs, for writing the table in a cascade.
    rules: TableRules,
    /// Keys the table's rows hold (it is the referencing table).
    outgoing: Vec<usize>,
    /// Keys that reference the table.
    incoming: Vec<usize>,
}

/// The foreign keys a modification must enforce, resolved when it is prepared.
#[derive(Debug, Default)]
pub struct ForeignKeyRules {
    keys: Vec<ResolvedKey>,
    /// The tables the statement may write: its target first, then every table a cascade
    /// reaches. Empty when no foreign key concerns the statement.
    tables: Vec<TableKeys>,
    /// Why the keys could not be resolved (a schema from before foreign keys were
    /// enforced); reported when a statement runs with enforcement on.
    unresolved: Option<ExecError>,
}

impl ForeignKeyRules {
    /// The keys an INSERT, UPDATE or DELETE plan must enforce against `catalog`.
    pub fn for_modification(plan: &PlanNode, catalog: &Catalog) -> ForeignKeyRules {
        let (table, changes_keys) = match &plan.kind {
            PlanKind::Insert {
                table, on_conflict, ..
            } => (
                table,
                matches!(
                    on_conflict,
                    ConflictAction::Replace | ConflictAction::Update { .. }
                ),
            ),
            PlanKind::Update { table, .. } | PlanKind::Delete { table, .. } => (table, true),
            _ => return ForeignKeyRules::default(),
        };
        let mut rules = ForeignKeyRules::default();
        if let Err(error) = rules.resolve(table, changes_keys, catalog) {
            return ForeignKeyRules {
                unresolved: Some(error),
                ..ForeignKeyRules::default()
            };
        }
        rules
    }

    /// Adds `target` and, when the statement can delete rows or change keys, every table
    /// its referential actions can write.
    fn resolve(
        &mut self,
        target: &Arc<TableDef>,
        changes_keys: bool,
        catalog: &Catalog,
    ) -> ExecResult<()> {
        let target_is_referenced = || catalog.references_to(&target.name).next().is_some();
        if target.foreign_keys.is_empty() && !(changes_keys && target_is_referenced()) {
            return Ok(());
        }
        self.add_table(target, catalog)?;
        let mut next = 0;
        while next < self.tables.len() {
            let table = self.tables[next].table.clone();
            for key in &table.foreign_keys {
                let resolved = ResolvedKey::resolve(&table, key, catalog)?;
                self.keys.push(resolved);
                let id = self.keys.len() - 1;
                self.tables[next].outgoing.push(id);
            }
            if changes_keys {
                for (child, key) in catalog.references_to(&table.name) {
                    let mut resolved = ResolvedKey::resolve(child, key, catalog)?;
                    if modifies(key.on_delete) || modifies(key.on_update) {
                        resolved.child_entry = Some(match self.entry(&child.name) {
                            Some(entry) => entry,
                            None => self.add_table(child, catalog)?,
                        });
                    }
                    self.keys.push(resolved);
                    let id = self.keys.len() - 1;
                    self.tables[next].incoming.push(id);
                }
            }
            next += 1;
        }
        Ok(())
    }

    fn add_table(&mut self, table: &Arc<TableDef>, catalog: &Catalog) -> ExecResult<usize> {
        let rules = TableRules::bind(table, catalog)
            .map_err(|error| ExecError::new(error.code, error.message))?;
        self.tables.push(TableKeys {
            table: table.clone(),
            rules,
            outgoing: Vec::new(),
            incoming: Vec::new(),
        });
        Ok(self.tables.len() - 1)
    }

    /// Whether every key an INSERT into the target must check references another table.
    /// Then a single inserted row's references are settled by the seeks made before it is
    /// written ([`Enforcer::inserted_row_checked_at_once`]): nothing the statement writes can
    /// supply a missing referenced row. A self-reference can (a row may be its own parent),
    /// so it keeps its check at the end of the statement.
    pub fn insert_references_only_other_tables(&self) -> bool {
        self.unresolved.is_none()
            && self.tables.first().is_none_or(|target| {
                target
                    .outgoing
                    .iter()
                    .all(|&key| !self.keys[key].references_own_table())
            })
    }

    /// The entry of table `name` among the tables the statement may write.
    fn entry(&self, name: &str) -> Option<usize> {
        self.tables
            .iter()
            .position(|entry| entry.table.name.eq_ignore_ascii_case(name))
    }
}

/// Whether an action changes referencing rows (rather than refusing the change).
fn modifies(action: ReferentialAction) -> bool {
    matches!(
        action,
        ReferentialAction::Cascade | ReferentialAction::SetNull | ReferentialAction::SetDefault
    )
}

/// A referential action waiting to be applied: the rows referencing `old` (values of the
/// referenced columns, in key order) are deleted or updated.
#[derive(Debug)]
struct PendingAction {
    key: usize,
    old: Vec<Value>,
    /// The referenced row's new key; `None` when it was deleted.
    new: Option<Vec<Value>>,
}

/// Enforces foreign keys over one statement's changes: the [`Writer`]s report each row
/// they write, and [`Enforcer::finish`] applies the queued actions and the final checks.
#[derive(Debug)]
pub struct Enforcer<'a> {
    /// `None` when enforcement is off or no key concerns the statement.
    rules: Option<&'a ForeignKeyRules>,
    txn: &'a Arc<Mutex<WriteTxn>>,
    ctx: &'a ExecContext,
    /// Reused for every encoded key, so a check allocates nothing.
    buffer: Vec<u8>,
    /// Referencing rows (key, row id) whose referenced row was missing when written.
    unmatched: Vec<(usize, i64)>,
    /// Referenced keys that went away while rows referenced them, with the key's NO ACTION
    /// or RESTRICT.
    vanished: Vec<(usize, Vec<Value>, ReferentialAction)>,
    actions: VecDeque<PendingAction>,
}

impl<'a> Enforcer<'a> {
    /// An enforcer for a statement; `rules` is `None` when `PRAGMA foreign_keys` is off.
    pub fn new(
        rules: Option<&'a ForeignKeyRules>,
        txn: &'a Arc<Mutex<WriteTxn>>,
        ctx: &'a ExecContext,
    ) -> ExecResult<Self> {
        if let Some(error) = rules.and_then(|rules| rules.unresolved.as_ref()) {
            return Err(error.clone());
        }
        Ok(Enforcer {
            rules: rules.filter(|rules| !rules.tables.is_empty()),
            txn,
            ctx,
            buffer: Vec::new(),
            unmatched: Vec::new(),
            vanished: Vec::new(),
            actions: VecDeque::new(),
        })
    }

    /// The entry of the statement's target table, for its [`Writer`].
    pub fn target(&self) -> Option<usize> {
        self.rules.map(|_| 0)
    }

    /// A row was inserted into table `entry`.
    pub fn inserted(
        &mut self,
        entry: Option<usize>,
        row_id: i64,
        values: &[Value],
    ) -> ExecResult<()> {
        let (Some(rules), Some(entry)) = (self.rules, entry) else {
            return Ok(());
        };
        for &key in &rules.tables[entry].outgoing {
            self.check_reference(rules, key, row_id, values)?;
        }
        Ok(())
    }

    /// Row `values` is about to be inserted into table `entry`, the only row its statement
    /// inserts: a row missing from a table the statement does not write is an error now,
    /// before anything is written, rather than at the end of the statement (where it would
    /// be the same error). A key referencing the table itself stays pending: the row may be
    /// its own parent.
    pub fn inserted_row_checked_at_once(
        &mut self,
        entry: Option<usize>,
        row_id: i64,
        values: &[Value],
    ) -> ExecResult<()> {
        let unmatched_before = self.unmatched.len();
        self.inserted(entry, row_id, values)?;
        let Some(rules) = self.rules else {
            return Ok(());
        };
        match self.unmatched[unmatched_before..]
            .iter()
            .find(|&&(key, _)| !rules.keys[key].references_own_table())
        {
            Some(&(key, _)) => Err(rules.keys[key].missing_parent_error(values)),
            None => Ok(()),
        }
    }

    /// Row `old_row_id` of table `entry` changed from `old` to `new` (both in table order)
    /// and is now row `row_id`.
    pub fn updated(
        &mut self,
        entry: Option<usize>,
        old_row_id: i64,
        row_id: i64,
        old: &[Value],
        new: &[Value],
    ) -> ExecResult<()> {
        let (Some(rules), Some(entry)) = (self.rules, entry) else {
            return Ok(());
        };
        let changed = |columns: &[usize]| columns.iter().any(|&c| old.get(c) != new.get(c));
        for &key in &rules.tables[entry].outgoing {
            // A row that moved is checked again even with the same key: a check still
            // pending for it would look for it under its old row id.
            if changed(&rules.keys[key].child_columns) || old_row_id != row_id {
                self.check_reference(rules, key, row_id, new)?;
            }
        }
        for &key in &rules.tables[entry].incoming {
            let columns = &rules.keys[key].parent_columns;
            if changed(columns) {
                let new_key = columns
                    .iter()
                    .map(|&c| new.get(c).cloned().unwrap_or(Value::Null))
                    .collect();
                self.key_vanished(rules, key, old, Some(new_key))?;
            }
        }
        Ok(())
    }

    /// Row `old` (in table order) was deleted from table `entry`.
    pub fn deleted(&mut self, entry: Option<usize>, old: &[Value]) -> ExecResult<()> {
        let (Some(rules), Some(entry)) = (self.rules, entry) else {
            return Ok(());
        };
        for &key in &rules.tables[entry].incoming {
            self.key_vanished(rules, key, old, None)?;
        }
        Ok(())
    }

    /// Checks that the row `values` (written as `row_id`) has the row it references under
    /// `key`, or remembers it for the end of the statement.
    fn check_reference(
        &mut self,
        rules: &ForeignKeyRules,
        key: usize,
        row_id: i64,
        values: &[Value],
    ) -> ExecResult<()> {
        let resolved = &rules.keys[key];
        if resolved
            .child_columns
            .iter()
            .any(|&c| values.get(c).is_none_or(Value::is_null))
        {
            return Ok(()); // MATCH SIMPLE: a NULL in the key means no reference.
        }
        let found = {
            let txn = self.txn.lock();
            resolved.parent_row_exists(
                |i| &values[resolved.child_columns[i]],
                &txn,
                &mut self.buffer,
            )?
        };
        if !found {
            self.unmatched.push((key, row_id));
        }
        Ok(())
    }

    /// The referenced key of row `old` under `key` is gone (the row was deleted, or its key
    /// changed to `new_key`): if rows reference it, queue the key's action.
    fn key_vanished(
        &mut self,
        rules: &ForeignKeyRules,
        key: usize,
        old: &[Value],
        new_key: Option<Vec<Value>>,
    ) -> ExecResult<()> {
        let resolved = &rules.keys[key];
        let old_key: Vec<Value> = resolved
            .parent_columns
            .iter()
            .map(|&c| old.get(c).cloned().unwrap_or(Value::Null))
            .collect();
        if old_key.iter().any(Value::is_null) {
            return Ok(()); // No row can reference a key with a NULL in it.
        }
        let referenced = {
            let txn = self.txn.lock();
            !resolved
                .referencing_rows(&old_key, true, &txn, &mut self.buffer)?
                .is_empty()
        };
        if !referenced {
            return Ok(());
        }
        let action = if new_key.is_some() {
            resolved.on_update
        } else {
            resolved.on_delete
        };
        if modifies(action) {
            self.actions.push_back(PendingAction {
                key,
                old: old_key,
                new: new_key,
            });
        } else {
            self.vanished.push((key, old_key, action));
        }
        Ok(())
    }

    /// Applies the queued referential actions, then checks what had to wait for the end
    /// of the statement. The first violation is the statement's error.
    pub fn finish(mut self) -> ExecResult<()> {
        let Some(rules) = self.rules else {
            return Ok(());
        };
        let mut writers: HashMap<usize, Writer<'a>> = HashMap::new();
        while let Some(action) = self.actions.pop_front() {
            self.ctx.check_interrupt()?;
            self.apply(rules, action, &mut writers)?;
        }
        let txn = self.txn.lock();
        for &(key, row_id) in &self.unmatched {
            let resolved = &rules.keys[key];
            let mut cursor = TableTree::open(resolved.child.root).cursor(&*txn);
            if !cursor.seek_ge(row_id)? {
                continue; // Deleted later in the statement.
            }
            let values = read_row_values(&cursor, &resolved.child)?;
            if resolved
                .child_columns
                .iter()
                .any(|&c| values.get(c).is_none_or(Value::is_null))
            {
                continue;
            }
            let value = |i: usize| &values[resolved.child_columns[i]];
            if !resolved.parent_row_exists(value, &txn, &mut self.buffer)? {
                return Err(resolved.missing_parent_error(&values));
            }
        }
        for (key, old_key, action) in &self.vanished {
            let resolved = &rules.keys[*key];
            // NO ACTION lets another row take the key within the statement; RESTRICT not.
            if *action == ReferentialAction::NoAction
                && resolved.parent_row_exists(|i| &old_key[i], &txn, &mut self.buffer)?
            {
                continue;
            }
            if !resolved
                .referencing_rows(old_key, true, &txn, &mut self.buffer)?
                .is_empty()
            {
                return Err(resolved.still_referenced_error(old_key));
            }
        }
        Ok(())
    }

    /// Applies one queued action to the rows that still reference its key.
    fn apply(
        &mut self,
        rules: &'a ForeignKeyRules,
        action: PendingAction,
        writers: &mut HashMap<usize, Writer<'a>>,
    ) -> ExecResult<()> {
        let resolved = &rules.keys[action.key];
        let entry = resolved
            .child_entry
            .ok_or_else(|| ExecError::internal("referential action on a table not prepared"))?;
        let rows = {
            let txn = self.txn.lock();
            resolved.referencing_rows(&action.old, false, &txn, &mut self.buffer)?
        };
        let table = &rules.tables[entry];
        let writer = writers.entry(entry).or_insert_with(|| {
            Writer::new(&table.table, &table.rules, self.txn, self.ctx, Some(entry))
        });
        let kind = if action.new.is_some() {
            resolved.on_update
        } else {
            resolved.on_delete
        };
        for row_id in rows {
            let old = {
                let txn = self.txn.lock();
                let mut cursor = TableTree::open(table.table.root).cursor(&*txn);
                if !cursor.seek_ge(row_id)? {
                    continue;
                }
                read_row_values(&cursor, &table.table)?
            };
            if kind == ReferentialAction::Cascade && action.new.is_none() {
                writer.delete(row_id, &old, self)?;
                continue;
            }
            let mut new = old.clone();
            for (i, &column) in resolved.child_columns.iter().enumerate() {
                let value = match kind {
                    ReferentialAction::Cascade => action
                        .new
                        .as_ref()
                        .and_then(|new| new.get(i))
                        .cloned()
                        .unwrap_or(Value::Null),
                    ReferentialAction::SetDefault => match table.rules.defaults.get(column) {
                        Some(Some(default)) => eval::evaluate_scalar(default, self.ctx)?,
                        _ => Value::Null,
                    },
                    _ => Value::Null,
                };
                if let Some(slot) = new.get_mut(column) {
                    *slot = value;
                }
            }
            writer.update(row_id, &old, new, self)?;
        }
        if kind == ReferentialAction::SetDefault {
            // A default equal to the vanished key leaves the rows referencing it (and the
            // writer sees no change to check): PostgreSQL then fails as NO ACTION would.
            self.vanished
                .push((action.key, action.old, ReferentialAction::NoAction));
        }
        Ok(())
    }
}
