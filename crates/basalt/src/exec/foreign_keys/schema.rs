//! How DDL keeps stored foreign keys valid, whatever `PRAGMA foreign_keys` says (called by
//! `crate::exec::ddl`): tables, columns and unique indexes a key needs cannot be dropped
//! (2BP01, PostgreSQL's "cannot drop ... because other objects depend on it"), except that
//! `DROP TABLE ... CASCADE` drops the referencing keys; renames rewrite the keys that name
//! the renamed table or column; and a key added to a table with rows must hold for each.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::catalog::{self, Catalog, ForeignKeyDef, IndexDef, SchemaObject, TableDef};
use crate::sqlstate;
use crate::txn::WriteTxn;
use crate::types::Value;

use super::super::error::{ExecError, ExecResult};
use super::ResolvedKey;

/// 2BP01 for dropping `what` (a table, column or index) that foreign key `key` of table
/// `child` needs.
fn needed_by_foreign_key(what: String, key: &ForeignKeyDef, child: &str) -> ExecError {
    ExecError::new(
        sqlstate::DEPENDENT_OBJECTS_STILL_EXIST,
        format!(
            "cannot drop {what} because other objects depend on it: constraint {} on table {child} depends on it",
            key.name
        ),
    )
}

/// Refuses to drop tables that other tables' foreign keys reference, unless those tables go
/// too (or reference themselves); with `cascade`, drops the referencing keys instead.
pub(crate) fn drop_references_to(
    dropped: &[&Arc<TableDef>],
    cascade: bool,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<()> {
    let is_dropped = |name: &str| {
        dropped
            .iter()
            .any(|table| table.name.eq_ignore_ascii_case(name))
    };
    let mut changed: BTreeMap<String, TableDef> = BTreeMap::new();
    for table in dropped {
        for (child, key) in catalog.references_to(&table.name) {
            if is_dropped(&child.name) {
                continue;
            }
            if !cascade {
                return Err(needed_by_foreign_key(
                    format!("table {}", table.name),
                    key,
                    &child.name,
                ));
            }
            changed
                .entry(child.name.to_lowercase())
                .or_insert_with(|| TableDef::clone(child))
                .foreign_keys
                .retain(|kept| kept.name != key.name);
        }
    }
    for child in changed.into_values() {
        catalog::put_object(txn, &SchemaObject::Table(child))?;
    }
    Ok(())
}

/// Refuses to drop a unique index that is the only way to find the rows some foreign key
/// references.
pub(crate) fn check_index_drop(index: &IndexDef, catalog: &Catalog) -> ExecResult<()> {
    let Some(parent) = catalog.table(&index.table) else {
        return Ok(());
    };
    if !index.unique {
        return Ok(());
    }
    for (child, key) in catalog.references_to(&parent.name) {
        let referenced: Vec<usize> = key
            .referenced_columns
            .iter()
            .filter_map(|name| parent.column(name).map(|(position, _)| position))
            .collect();
        let served_by = |other: &IndexDef| {
            other.unique
                && other.columns.len() == referenced.len()
                && other.columns.iter().all(|(c, _)| referenced.contains(c))
        };
        let other_access = parent.is_row_id(&referenced)
            || catalog
                .indexes_of(&parent.name)
                .any(|other| other.name != index.name && served_by(other));
        if served_by(index) && !other_access {
            return Err(needed_by_foreign_key(
                format!("index {}", index.name),
                key,
                &child.name,
            ));
        }
    }
    Ok(())
}

/// Rewrites, in every table other than `parent`, the foreign keys that reference `parent`.
pub(crate) fn rewrite_references_to(
    parent: &str,
    catalog: &Catalog,
    txn: &mut WriteTxn,
    rewrite: impl Fn(&mut ForeignKeyDef),
) -> ExecResult<()> {
    for child in catalog.tables.values() {
        let references = |key: &ForeignKeyDef| key.referenced_table.eq_ignore_ascii_case(parent);
        if child.name.eq_ignore_ascii_case(parent) || !child.foreign_keys.iter().any(references) {
            continue;
        }
        let mut child = TableDef::clone(child);
        child
            .foreign_keys
            .iter_mut()
            .filter(|key| references(key))
            .for_each(&rewrite);
        catalog::put_object(txn, &SchemaObject::Table(child))?;
    }
    Ok(())
}

/// Refuses to drop column `position` of `table` if a foreign key references it or is made
/// of it.
pub(crate) fn check_column_drop(
    table: &TableDef,
    position: usize,
    catalog: &Catalog,
) -> ExecResult<()> {
    let Some(column) = table.columns.get(position) else {
        return Ok(());
    };
    let what = || format!("column {} of table {}", column.name, table.name);
    if let Some(key) = table
        .foreign_keys
        .iter()
        .find(|key| key.columns.contains(&position))
    {
        return Err(needed_by_foreign_key(what(), key, &table.name));
    }
    if let Some((child, key)) = catalog.references_to(&table.name).find(|(_, key)| {
        key.referenced_columns
            .iter()
            .any(|name| name.eq_ignore_ascii_case(&column.name))
    }) {
        return Err(needed_by_foreign_key(what(), key, &child.name));
    }
    Ok(())
}

/// Checks `key` against rows already in its referencing table (each in table order): 23503
/// for the first whose referenced row is missing.
pub(crate) fn check_existing_rows<'r>(
    key: &ResolvedKey,
    rows: impl IntoIterator<Item = &'r Vec<Value>>,
    txn: &WriteTxn,
) -> ExecResult<()> {
    let mut buffer = Vec::new();
    for values in rows {
        let key_values: Option<Vec<&Value>> = key
            .child_columns
            .iter()
            .map(|&c| values.get(c).filter(|value| !value.is_null()))
            .collect();
        let Some(key_values) = key_values else {
            continue; // A NULL in the key: no reference (MATCH SIMPLE).
        };
        if !key.parent_row_exists(|i| key_values[i], txn, &mut buffer)? {
            return Err(key.missing_parent_error(values));
        }
    }
    Ok(())
}
