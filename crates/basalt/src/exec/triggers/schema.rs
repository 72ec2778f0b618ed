//! Trigger DDL: storing and removing triggers in the catalog, and keeping them in step with
//! the tables and views they watch.
//!
//! A trigger is one catalog entry (kind byte `r`, see `crate::catalog::encode`), written in
//! the statement's write transaction like every other schema change, so `CREATE TRIGGER`
//! and `DROP TRIGGER` commit and roll back with the transaction, and bump the schema version
//! that makes every prepared statement re-plan (a modification's plan includes the triggers
//! it fires). Dropping a table or a view drops its triggers, as SQLite does; renaming a
//! table moves its triggers to the new name. (The program's text is not rewritten: a
//! trigger whose program names the renamed table itself fails when it next fires.)

use crate::catalog::{self, Catalog, SchemaObject, TriggerDef};
use crate::plan::bind::BindError;
use crate::sqlstate;
use crate::txn::WriteTxn;

use super::super::error::{ExecError, ExecResult};

/// Stores `trigger`; `Ok(false)` when one of its name exists and the statement said IF NOT
/// EXISTS.
pub fn create_trigger(
    trigger: TriggerDef,
    if_not_exists: bool,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<bool> {
    if let Some(existing) = catalog.triggers.get(&trigger.name.to_lowercase()) {
        if if_not_exists {
            return Ok(false);
        }
        let error: BindError =
            crate::plan::bind::duplicate_trigger_error(&existing.name, &existing.table);
        return Err(error.into());
    }
    catalog::put_object(txn, &SchemaObject::Trigger(trigger))?;
    Ok(true)
}

/// Removes the trigger `name` (42704 when there is none, unless `if_exists`).
pub fn drop_trigger(
    name: &str,
    if_exists: bool,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<()> {
    match catalog.triggers.get(&name.to_lowercase()) {
        Some(trigger) => {
            catalog::remove_object(txn, b'r', &trigger.name)?;
            Ok(())
        }
        None if if_exists => Ok(()),
        None => Err(ExecError::new(
            sqlstate::UNDEFINED_OBJECT,
            format!("trigger \"{name}\" does not exist"),
        )),
    }
}

/// Removes every trigger on `relation` (a table or view being dropped).
pub fn drop_triggers_of(relation: &str, catalog: &Catalog, txn: &mut WriteTxn) -> ExecResult<()> {
    for trigger in catalog.triggers_of(relation) {
        catalog::remove_object(txn, b'r', &trigger.name)?;
    }
    Ok(())
}

/// Moves the triggers on table `old_name` to `new_name`.
pub fn rename_triggers_of(
    old_name: &str,
    new_name: &str,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<()> {
    for trigger in catalog.triggers_of(old_name) {
        let moved = TriggerDef {
            table: new_name.to_string(),
            ..TriggerDef::clone(trigger)
        };
        catalog::put_object(txn, &SchemaObject::Trigger(moved))?;
    }
    Ok(())
}
