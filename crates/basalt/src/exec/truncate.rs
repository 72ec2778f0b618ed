//! `TRUNCATE [TABLE] t [, ...] [RESTART IDENTITY | CONTINUE IDENTITY] [CASCADE | RESTRICT]`:
//! every row of the tables gone at once, as PostgreSQL does it.
//!
//! What it guarantees: each table's B+tree and each of its indexes is replaced by an empty
//! one and the old pages are freed, inside the statement's write transaction (so TRUNCATE
//! commits and rolls back like any write, and readers at an older snapshot still see the
//! rows). No row is visited: DELETE triggers do not fire and no foreign key action runs.
//! Instead, as in PostgreSQL, a table another table references through a foreign key can
//! only be truncated together with it: without CASCADE that is 0A000, with CASCADE the
//! referencing tables are truncated too (and the tables referencing them, transitively).
//! RESTART IDENTITY restarts the sequences the tables own (SERIAL and identity columns);
//! the ANALYZE statistics of a truncated table are dropped, since they describe rows that
//! are gone.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::catalog::{self, Catalog, IndexDef, SchemaObject, TableDef};
use crate::sqlstate;
use crate::storage::btree::TableTree;
use crate::txn::WriteTxn;

use super::error::{ExecError, ExecResult};
use super::index_access::{IndexAccess, IndexAm};

/// Truncates `names` (tables the binder checked exist).
pub fn truncate(
    names: &[String],
    restart_identity: bool,
    cascade: bool,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<()> {
    // The tables to empty, by lower-cased name, each once.
    let mut tables: BTreeMap<String, &Arc<TableDef>> = BTreeMap::new();
    for name in names {
        let table = catalog.table(name).ok_or_else(|| {
            ExecError::new(
                sqlstate::UNDEFINED_TABLE,
                format!("relation \"{name}\" does not exist"),
            )
        })?;
        tables.insert(table.name.to_lowercase(), table);
    }
    // Tables referencing one being emptied: truncated with it under CASCADE, else an error.
    loop {
        let mut added = false;
        for referencing in catalog.tables.values() {
            if tables.contains_key(&referencing.name.to_lowercase()) {
                continue;
            }
            let Some(key) = referencing
                .foreign_keys
                .iter()
                .find(|key| tables.contains_key(&key.referenced_table.to_lowercase()))
            else {
                continue;
            };
            if !cascade {
                return Err(ExecError::new(
                    sqlstate::FEATURE_NOT_SUPPORTED,
                    format!(
                        "cannot truncate a table referenced in a foreign key constraint: \
                         table \"{}\" references \"{}\" (truncate it at the same time, or \
                         use TRUNCATE ... CASCADE)",
                        referencing.name, key.referenced_table
                    ),
                ));
            }
            tables.insert(referencing.name.to_lowercase(), referencing);
            added = true;
        }
        if !added {
            break;
        }
    }
    for (lower, table) in &tables {
        empty_table(table, catalog, txn)?;
        if catalog.statistics.contains_key(lower) {
            catalog::remove_object(txn, b's', &table.name)?;
        }
        if restart_identity {
            for sequence in catalog.sequences_owned_by(&table.name) {
                super::sequence::restart(sequence, txn)?;
            }
        }
    }
    Ok(())
}

/// Replaces the table's tree and its indexes with empty ones and frees the old pages.
fn empty_table(table: &TableDef, catalog: &Catalog, txn: &mut WriteTxn) -> ExecResult<()> {
    let fresh = TableTree::create(txn)?;
    TableTree::open(table.root).destroy(txn)?;
    catalog::put_object(
        txn,
        &SchemaObject::Table(TableDef {
            root: fresh.root(),
            ..table.clone()
        }),
    )?;
    for old in catalog.indexes_of(&table.name) {
        let old_access = IndexAccess::of(old);
        let index = IndexDef {
            root: old_access.create(txn)?,
            ..IndexDef::clone(old)
        };
        old_access.destroy(txn)?;
        catalog::put_object(txn, &SchemaObject::Index(index))?;
    }
    Ok(())
}
