//! DDL: creating, altering and dropping tables, indexes and views (triggers:
//! `super::triggers::schema`).
//!
//! Every change is made inside the caller's write transaction — new trees are allocated,
//! catalog entries written, old trees freed page by page — so DDL commits and rolls back
//! exactly like DML, and a crash in the middle leaves either the old schema or the new one.
//!
//! Foreign keys stay valid through DDL, whatever `PRAGMA foreign_keys` says: a table, column
//! or unique index that a key needs cannot be dropped (2BP01; `DROP TABLE ... CASCADE` drops
//! the referencing keys instead, as PostgreSQL does), and renaming a table or column rewrites
//! the keys that name it (`super::foreign_keys::schema`).

use std::sync::Arc;

use crate::catalog::{
    self, Catalog, ForeignKeyDef, IndexDef, IndexMethod, SchemaObject, TableDef, ViewDef,
};
use crate::plan::bind::{BindError, rewrite};
use crate::plan::ddl::{AlterTable, CreateIndex, CreateTable, ObjectKind};
use crate::sqlstate;
use crate::storage::btree::TableTree;
use crate::storage::keys;
use crate::txn::WriteTxn;
use crate::types::Value;

use super::error::{ExecError, ExecResult};
use super::foreign_keys::{ResolvedKey, schema};
use super::index_access::{IndexAccess, IndexAm};
use super::record::{read_row_values, row_to_cells};

fn already_exists(kind: &str, name: &str) -> ExecError {
    ExecError::new(
        sqlstate::DUPLICATE_TABLE,
        format!("{kind} \"{name}\" already exists"),
    )
}

/// Whether a new relation may take `name`: `Ok(false)` when it exists and the statement said
/// IF NOT EXISTS (nothing to do), an error when it exists otherwise.
fn claim_name(catalog: &Catalog, name: &str, if_not_exists: bool) -> ExecResult<bool> {
    match (name_taken(catalog, name), if_not_exists) {
        (false, _) => Ok(true),
        (true, true) => Ok(false),
        (true, false) => Err(already_exists("relation", name)),
    }
}

fn name_taken(catalog: &Catalog, name: &str) -> bool {
    let lower = name.to_lowercase();
    catalog.tables.contains_key(&lower)
        || catalog.views.contains_key(&lower)
        || catalog.indexes.contains_key(&lower)
        || catalog.sequences.contains_key(&lower)
}

fn unknown_table(catalog: &Catalog, name: &str) -> ExecError {
    let hint = catalog
        .nearest_table_name(name)
        .map(|near| format!(" (did you mean \"{near}\"?)"))
        .unwrap_or_default();
    ExecError::new(
        sqlstate::UNDEFINED_TABLE,
        format!("relation \"{name}\" does not exist{hint}"),
    )
}

/// Creates a table and the indexes behind its PRIMARY KEY and UNIQUE constraints.
pub fn create_table(
    create: &CreateTable,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<bool> {
    if !claim_name(catalog, &create.name, create.if_not_exists)? {
        return Ok(false);
    }
    let tree = TableTree::create(txn)?;
    let mut columns = create.columns.clone();
    for (slot, column) in columns.iter_mut().enumerate() {
        column.slot = slot;
    }
    let table = TableDef {
        name: create.name.clone(),
        slot_count: columns.len(),
        columns,
        root: tree.root(),
        row_id_column: create.row_id_column,
        primary_key: create.primary_key.clone(),
        checks: create.checks.clone(),
        foreign_keys: create.foreign_keys.clone(),
    };
    for sequence in &create.sequences {
        super::sequence::create_sequence(sequence.clone(), false, catalog, txn)?;
    }
    catalog::put_object(txn, &SchemaObject::Table(table.clone()))?;
    let mut used_names = Vec::new();
    for (position, key_columns) in create.unique_constraints.iter().enumerate() {
        let is_primary =
            position == 0 && !create.primary_key.is_empty() && *key_columns == create.primary_key;
        let index = constraint_index(
            &table,
            key_columns,
            is_primary,
            None,
            &used_names,
            catalog,
            txn,
        )?;
        used_names.push(index.name.clone());
        catalog::put_object(txn, &SchemaObject::Index(index))?;
    }
    Ok(true)
}

/// The empty implicit unique index of a PRIMARY KEY or UNIQUE constraint over `columns`,
/// created: named `name` when the constraint is named (42P07 if taken), else PostgreSQL's
/// `{table}_pkey` / `{table}_{columns}_key` with a number added until the name is free
/// (of the catalog and of `pending`, names this statement is about to store).
pub(super) fn constraint_index(
    table: &TableDef,
    columns: &[usize],
    primary: bool,
    name: Option<&str>,
    pending: &[String],
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<IndexDef> {
    let taken = |candidate: &str| {
        name_taken(catalog, candidate) || pending.iter().any(|known| known == candidate)
    };
    let name = match name {
        Some(name) if taken(name) => return Err(already_exists("relation", name)),
        Some(name) => name.to_string(),
        None => {
            let base = if primary {
                format!("{}_pkey", table.name)
            } else {
                let names: Vec<&str> = columns
                    .iter()
                    .filter_map(|&c| table.columns.get(c).map(|col| col.name.as_str()))
                    .collect();
                format!("{}_{}_key", table.name, names.join("_"))
            };
            let mut candidate = base.clone();
            let mut suffix = 1;
            while taken(&candidate) {
                candidate = format!("{base}{suffix}");
                suffix += 1;
            }
            candidate
        }
    };
    let mut index = IndexDef {
        name,
        table: table.name.clone(),
        columns: columns.iter().map(|&c| (c, keys::KeyOrder::ASC)).collect(),
        unique: true,
        method: IndexMethod::BTree,
        root: 0,
        implicit: true,
        options: Vec::new(),
    };
    index.root = IndexAccess::of(&index).create(txn)?;
    Ok(index)
}

/// Every row of a table as (row id, values in column order).
pub(super) fn read_all_rows<S: crate::storage::PageRead>(
    table: &TableDef,
    txn: S,
) -> ExecResult<Vec<(i64, Vec<Value>)>> {
    let mut rows = Vec::new();
    let mut cursor = TableTree::open(table.root).cursor(txn);
    let mut valid = cursor.first()?;
    while valid {
        let row_id = cursor
            .row_id()
            .ok_or_else(|| ExecError::internal("cursor lost its row"))?;
        let values = read_row_values(&cursor, table)?;
        rows.push((row_id, values));
        valid = cursor.next()?;
    }
    Ok(rows)
}

/// Creates an index and fills it from the table's rows.
pub fn create_index(
    create: &CreateIndex,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<bool> {
    if !claim_name(catalog, &create.name, create.if_not_exists)? {
        return Ok(false);
    }
    let table = catalog
        .table(&create.table)
        .ok_or_else(|| unknown_table(catalog, &create.table))?;
    let mut index = IndexDef {
        name: create.name.clone(),
        table: table.name.clone(),
        columns: create.columns.clone(),
        unique: create.unique,
        method: create.method,
        root: 0,
        implicit: false,
        options: create.options.clone(),
    };
    index.root = IndexAccess::of(&index).create(txn)?;
    let rows = read_all_rows(table, &*txn)?;
    IndexAccess::of(&index).build(txn, &rows)?;
    catalog::put_object(txn, &SchemaObject::Index(index))?;
    Ok(true)
}

/// Rebuilds each named index from its table's rows into a fresh tree, frees the old tree and
/// points the catalog at the new one (`REINDEX`). The result holds the same entries, packed
/// as a bulk load packs them; a damaged index is replaced by a correct one.
pub fn reindex(names: &[String], catalog: &Catalog, txn: &mut WriteTxn) -> ExecResult<()> {
    // ANALYZE statistics name the index roots they were taken from; the rebuilt index holds
    // the same entries, so its statistics move to the new root (per table, once at the end).
    let mut statistics: std::collections::BTreeMap<String, catalog::TableStatistics> =
        std::collections::BTreeMap::new();
    for name in names {
        let Some(old) = catalog.indexes.get(&name.to_lowercase()) else {
            return Err(ExecError::new(
                sqlstate::UNDEFINED_TABLE,
                format!("index \"{name}\" does not exist"),
            ));
        };
        let table = catalog
            .table(&old.table)
            .ok_or_else(|| unknown_table(catalog, &old.table))?;
        let old_access = IndexAccess::of(old);
        let index = IndexDef {
            root: old_access.create(txn)?,
            ..IndexDef::clone(old)
        };
        let rows = read_all_rows(table, &*txn)?;
        IndexAccess::of(&index).build(txn, &rows)?;
        old_access.destroy(txn)?;
        if let Some(table_statistics) = catalog.statistics.get(&table.name.to_lowercase()) {
            let entry = statistics
                .entry(table.name.to_lowercase())
                .or_insert_with(|| (**table_statistics).clone());
            for index_statistics in &mut entry.indexes {
                if index_statistics.index_root == old.root {
                    index_statistics.index_root = index.root;
                }
            }
        }
        catalog::put_object(txn, &SchemaObject::Index(index))?;
    }
    for table_statistics in statistics.into_values() {
        catalog::put_object(txn, &SchemaObject::Statistics(table_statistics))?;
    }
    Ok(())
}

/// Creates a view.
pub fn create_view(
    view: ViewDef,
    if_not_exists: bool,
    or_replace: bool,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<bool> {
    let exists = name_taken(catalog, &view.name);
    if exists {
        let is_view = catalog.views.contains_key(&view.name.to_lowercase());
        if !(or_replace && is_view) {
            if if_not_exists {
                return Ok(false);
            }
            return Err(already_exists("relation", &view.name));
        }
    }
    catalog::put_object(txn, &SchemaObject::View(view))?;
    Ok(true)
}

/// Replaces each stored SQL text in `texts` that `rewrite` changes (`Some`).
fn rewrite_each(
    texts: &mut [String],
    rewrite: impl Fn(&str) -> Result<Option<String>, BindError>,
) -> ExecResult<()> {
    for text in texts {
        if let Some(rewritten) = rewrite(text)? {
            *text = rewritten;
        }
    }
    Ok(())
}

/// Stores the new query of every view that `rewrite` changes (`Some`).
fn rewrite_views(
    catalog: &Catalog,
    txn: &mut WriteTxn,
    rewrite: impl Fn(&ViewDef) -> Result<Option<String>, BindError>,
) -> ExecResult<()> {
    for view in catalog.views.values() {
        if let Some(query) = rewrite(view)? {
            let view = ViewDef {
                query,
                ..ViewDef::clone(view)
            };
            catalog::put_object(txn, &SchemaObject::View(view))?;
        }
    }
    Ok(())
}

/// Rewrites `table`'s rows into a fresh tree without the column at `position`, as SQLite
/// does: `new_table` (its columns already without it) gets one slot per column and the new
/// root. Row ids are kept, so the indexes stay valid as they are.
///
/// Rewriting, rather than leaving the dropped slot in place, keeps every slot's storage kind
/// known from the columns: a dropped INTEGER slot left behind would be typed as text by
/// [`TableDef::slot_kinds`] and clash with the rows already stored in it.
fn rebuild_without_column(
    table: &TableDef,
    position: usize,
    new_table: &mut TableDef,
    txn: &mut WriteTxn,
) -> ExecResult<()> {
    let rows = read_all_rows(table, &*txn)?;
    for (slot, column) in new_table.columns.iter_mut().enumerate() {
        column.slot = slot;
    }
    new_table.slot_count = new_table.columns.len();
    let kinds = new_table.slot_kinds();
    let fresh = TableTree::create(txn)?;
    for (row_id, mut values) in rows {
        values.remove(position);
        let mut vector_bytes = Vec::new();
        let cells = row_to_cells(new_table, &values, &mut vector_bytes);
        fresh.insert(txn, row_id, &kinds, &cells)?;
    }
    TableTree::open(table.root).destroy(txn)?;
    new_table.root = fresh.root();
    Ok(())
}

fn destroy_index(index: &IndexDef, txn: &mut WriteTxn) -> ExecResult<()> {
    IndexAccess::of(index).destroy(txn)?;
    catalog::remove_object(txn, b'i', &index.name)?;
    Ok(())
}

/// DROP TABLE / INDEX / VIEW. `cascade` (DROP TABLE only) drops the foreign keys that
/// reference dropped tables rather than failing.
pub fn drop_objects(
    kind: ObjectKind,
    names: &[String],
    if_exists: bool,
    cascade: bool,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<()> {
    if kind == ObjectKind::Table {
        let dropped: Vec<&Arc<TableDef>> = names
            .iter()
            .filter_map(|name| catalog.table(name))
            .collect();
        schema::drop_references_to(&dropped, cascade, catalog, txn)?;
    }
    for name in names {
        let lower = name.to_lowercase();
        match kind {
            ObjectKind::Table => {
                let Some(table) = catalog.tables.get(&lower) else {
                    if if_exists {
                        continue;
                    }
                    return Err(unknown_table(catalog, name));
                };
                for index in catalog.indexes_of(&table.name) {
                    destroy_index(index, txn)?;
                }
                TableTree::open(table.root).destroy(txn)?;
                super::triggers::schema::drop_triggers_of(&table.name, catalog, txn)?;
                for sequence in catalog.sequences_owned_by(&table.name) {
                    super::sequence::drop_sequence(sequence, txn)?;
                }
                catalog::remove_object(txn, b't', &table.name)?;
                if catalog.statistics.contains_key(&lower) {
                    catalog::remove_object(txn, b's', &table.name)?;
                }
            }
            ObjectKind::Index => {
                let Some(index) = catalog.indexes.get(&lower) else {
                    if if_exists {
                        continue;
                    }
                    return Err(ExecError::new(
                        sqlstate::UNDEFINED_OBJECT,
                        format!("index \"{name}\" does not exist"),
                    ));
                };
                if index.implicit {
                    return Err(ExecError::new(
                        sqlstate::DEPENDENT_OBJECTS_STILL_EXIST,
                        format!(
                            "cannot drop index {} because a constraint of table {} requires it",
                            index.name, index.table
                        ),
                    ));
                }
                schema::check_index_drop(index, catalog)?;
                destroy_index(index, txn)?;
            }
            ObjectKind::View => {
                let Some(view) = catalog.views.get(&lower) else {
                    if if_exists {
                        continue;
                    }
                    return Err(ExecError::new(
                        sqlstate::UNDEFINED_TABLE,
                        format!("view \"{name}\" does not exist"),
                    ));
                };
                super::triggers::schema::drop_triggers_of(&view.name, catalog, txn)?;
                catalog::remove_object(txn, b'v', &view.name)?;
            }
        }
    }
    Ok(())
}

/// What the existing rows hold in a column `ALTER TABLE ADD COLUMN` adds.
pub enum AddedColumnValues<'a> {
    /// The same value in every row: NULL, or the column's DEFAULT evaluated once (as in
    /// PostgreSQL).
    Constant(Value),
    /// A generated column: its value computed from each row's values (in table order,
    /// without the new column).
    Computed(&'a dyn Fn(&[Value]) -> ExecResult<Value>),
}

impl std::fmt::Debug for AddedColumnValues<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddedColumnValues::Constant(value) => f.debug_tuple("Constant").field(value).finish(),
            AddedColumnValues::Computed(_) => f.write_str("Computed"),
        }
    }
}

/// ALTER TABLE. `added_values` says what existing rows hold in an added column.
pub fn alter_table(
    alter: &AlterTable,
    added_values: AddedColumnValues<'_>,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<()> {
    let table_name = match alter {
        AlterTable::AddColumn { table, .. }
        | AlterTable::DropColumn { table, .. }
        | AlterTable::RenameColumn { table, .. }
        | AlterTable::RenameTable { table, .. }
        | AlterTable::AddForeignKey { table, .. }
        | AlterTable::AddUnique { table, .. }
        | AlterTable::SetDefault { table, .. }
        | AlterTable::AddIdentity { table, .. }
        | AlterTable::DropConstraint { table, .. } => table,
    };
    let table = catalog
        .table(table_name)
        .ok_or_else(|| unknown_table(catalog, table_name))?;
    let mut new_table = TableDef::clone(table);
    let mut indexes: Vec<IndexDef> = catalog
        .indexes_of(&table.name)
        .map(|index| IndexDef::clone(index))
        .collect();
    match alter {
        AlterTable::AddColumn {
            column,
            foreign_keys,
            if_not_exists,
            ..
        } => {
            if table.column(&column.name).is_some() {
                if *if_not_exists {
                    return Ok(());
                }
                return Err(ExecError::new(
                    sqlstate::DUPLICATE_COLUMN,
                    format!(
                        "column \"{}\" of relation \"{}\" already exists",
                        column.name, table.name
                    ),
                ));
            }
            let mut column = column.clone();
            column.slot = new_table.slot_count;
            new_table.slot_count += 1;
            new_table.columns.push(column.clone());
            let mut rows = read_all_rows(table, &*txn)?;
            // The rows that get a value: all of them or none for a constant, each computed
            // one for a generated column.
            let mut any_filled = false;
            for (_, values) in &mut rows {
                let fill = match &added_values {
                    AddedColumnValues::Constant(value) => value.clone(),
                    AddedColumnValues::Computed(compute) => compute(values)?,
                };
                if fill.is_null() && column.not_null {
                    return Err(ExecError::new(
                        sqlstate::NOT_NULL_VIOLATION,
                        format!(
                            "column \"{}\" of relation \"{}\" contains null values",
                            column.name, table.name
                        ),
                    ));
                }
                any_filled |= !fill.is_null();
                values.push(fill);
            }
            new_table.foreign_keys.extend(foreign_keys.iter().cloned());
            if any_filled && !foreign_keys.is_empty() {
                let child = Arc::new(new_table.clone());
                // A constant default is the same key in every row: one row stands for all.
                let checked = match added_values {
                    AddedColumnValues::Constant(_) => 1,
                    AddedColumnValues::Computed(_) => rows.len(),
                };
                for key in foreign_keys {
                    let resolved = ResolvedKey::resolve(&child, key, catalog)?;
                    schema::check_existing_rows(
                        &resolved,
                        rows.iter().map(|(_, values)| values).take(checked),
                        txn,
                    )?;
                }
            }
            if any_filled {
                // Rewrite the rows that hold a value in the new slot.
                let tree = TableTree::open(table.root);
                let kinds = new_table.slot_kinds();
                for (row_id, values) in &rows {
                    if values.last().is_some_and(Value::is_null) {
                        continue;
                    }
                    let mut vector_bytes = Vec::new();
                    let cells = row_to_cells(&new_table, values, &mut vector_bytes);
                    tree.update(txn, *row_id, &kinds, &cells)?;
                }
            }
        }
        AlterTable::DropColumn {
            column, if_exists, ..
        } => {
            let Some((position, _)) = table.column(column) else {
                if *if_exists {
                    return Ok(());
                }
                return Err(ExecError::new(
                    sqlstate::UNDEFINED_COLUMN,
                    format!(
                        "column \"{column}\" of relation \"{}\" does not exist",
                        table.name
                    ),
                ));
            };
            if table.columns.len() == 1 {
                return Err(ExecError::new(
                    sqlstate::FEATURE_NOT_SUPPORTED,
                    "cannot drop the only column of a table",
                ));
            }
            schema::check_column_drop(table, position, catalog)?;
            for view in catalog.views.values() {
                if rewrite::view_uses_column(view, table, column, catalog)? {
                    return Err(ExecError::new(
                        sqlstate::DEPENDENT_OBJECTS_STILL_EXIST,
                        format!(
                            "cannot drop column {column} of table {} because view {} depends on it",
                            table.name, view.name
                        ),
                    ));
                }
            }
            // A generated column computed from it would lose its input (PostgreSQL drops it
            // only with CASCADE).
            for other in &table.columns {
                if let Some(expression) = &other.generated
                    && !other.name.eq_ignore_ascii_case(column)
                    && rewrite::check_mentions_column(expression, &table.name, column)?
                {
                    return Err(ExecError::new(
                        sqlstate::DEPENDENT_OBJECTS_STILL_EXIST,
                        format!(
                            "cannot drop column {column} of table {} because generated column {} depends on it",
                            table.name, other.name
                        ),
                    ));
                }
            }
            // CHECK constraints involving the column go with it (PostgreSQL does the same).
            let mut checks = Vec::with_capacity(table.checks.len());
            for check in &table.checks {
                if !rewrite::check_mentions_column(check, &table.name, column)? {
                    checks.push(check.clone());
                }
            }
            new_table.checks = checks;
            if new_table.row_id_column == Some(position)
                || new_table.primary_key.contains(&position)
            {
                return Err(ExecError::new(
                    sqlstate::FEATURE_NOT_SUPPORTED,
                    format!("cannot drop primary key column \"{column}\""),
                ));
            }
            new_table.columns.remove(position);
            rebuild_without_column(table, position, &mut new_table, txn)?;
            let shift = |c: &mut usize| {
                if *c > position {
                    *c -= 1;
                }
            };
            if let Some(row_id) = &mut new_table.row_id_column {
                shift(row_id);
            }
            new_table.primary_key.iter_mut().for_each(shift);
            for key in &mut new_table.foreign_keys {
                key.columns.iter_mut().for_each(shift);
            }
            // Indexes on the dropped column go with it (PostgreSQL does the same).
            let (doomed, kept): (Vec<IndexDef>, Vec<IndexDef>) = indexes
                .into_iter()
                .partition(|index| index.columns.iter().any(|(c, _)| *c == position));
            for index in &doomed {
                destroy_index(index, txn)?;
            }
            indexes = kept;
            for index in &mut indexes {
                for (c, _) in &mut index.columns {
                    shift(c);
                }
            }
        }
        AlterTable::RenameColumn {
            old_name, new_name, ..
        } => {
            let Some((position, _)) = table.column(old_name) else {
                return Err(ExecError::new(
                    sqlstate::UNDEFINED_COLUMN,
                    format!(
                        "column \"{old_name}\" of relation \"{}\" does not exist",
                        table.name
                    ),
                ));
            };
            if table.column(new_name).is_some() {
                return Err(ExecError::new(
                    sqlstate::DUPLICATE_COLUMN,
                    format!(
                        "column \"{new_name}\" of relation \"{}\" already exists",
                        table.name
                    ),
                ));
            }
            let old_name = table.columns[position].name.clone();
            new_table.columns[position].name = new_name.clone();
            let rename = |key: &mut ForeignKeyDef| {
                for column in &mut key.referenced_columns {
                    if column.eq_ignore_ascii_case(&old_name) {
                        *column = new_name.clone();
                    }
                }
            };
            new_table
                .foreign_keys
                .iter_mut()
                .filter(|key| key.referenced_table.eq_ignore_ascii_case(&table.name))
                .for_each(rename);
            schema::rewrite_references_to(&table.name, catalog, txn, rename)?;
            rewrite_each(&mut new_table.checks, |check| {
                rewrite::rename_column_in_check(check, &table.name, &old_name, new_name)
            })?;
            for column in &mut new_table.columns {
                if let Some(expression) = &mut column.generated
                    && let Some(rewritten) = rewrite::rename_column_in_check(
                        expression,
                        &table.name,
                        &old_name,
                        new_name,
                    )?
                {
                    *expression = rewritten;
                }
            }
            if !catalog.views.is_empty() {
                let mut after = catalog.clone();
                after
                    .tables
                    .insert(table.name.to_lowercase(), Arc::new(new_table.clone()));
                rewrite_views(catalog, txn, |view| {
                    rewrite::rename_column_in_view(
                        view, table, &old_name, new_name, catalog, &after,
                    )
                })?;
            }
        }
        AlterTable::RenameTable { new_name, .. } => {
            if name_taken(catalog, new_name) {
                return Err(already_exists("relation", new_name));
            }
            catalog::remove_object(txn, b't', &table.name)?;
            super::triggers::schema::rename_triggers_of(&table.name, new_name, catalog, txn)?;
            // Owned sequences follow their table (their names stay, as in PostgreSQL).
            for sequence in catalog.sequences.values() {
                if sequence
                    .owner
                    .as_ref()
                    .is_some_and(|owner| owner.eq_ignore_ascii_case(&table.name))
                {
                    let mut moved = sequence.as_ref().clone();
                    moved.owner = Some(new_name.clone());
                    catalog::put_object(txn, &SchemaObject::Sequence(moved))?;
                }
            }
            new_table.name = new_name.clone();
            let rename = |key: &mut ForeignKeyDef| key.referenced_table = new_name.clone();
            new_table
                .foreign_keys
                .iter_mut()
                .filter(|key| key.referenced_table.eq_ignore_ascii_case(&table.name))
                .for_each(rename);
            schema::rewrite_references_to(&table.name, catalog, txn, rename)?;
            for index in &mut indexes {
                index.table = new_name.clone();
            }
            rewrite_each(&mut new_table.checks, |check| {
                rewrite::rename_table_in_check(check, &table.name, new_name)
            })?;
            for column in &mut new_table.columns {
                if let Some(expression) = &mut column.generated
                    && let Some(rewritten) =
                        rewrite::rename_table_in_check(expression, &table.name, new_name)?
                {
                    *expression = rewritten;
                }
            }
            rewrite_views(catalog, txn, |view| {
                rewrite::rename_table_in_view(view, &table.name, new_name, catalog)
            })?;
        }
        AlterTable::AddForeignKey { key, .. } => {
            new_table.foreign_keys.push(key.clone());
            // Like PostgreSQL, a key added to a table with rows must hold for all of them.
            let resolved = ResolvedKey::resolve(&Arc::new(new_table.clone()), key, catalog)?;
            let rows = read_all_rows(table, &*txn)?;
            schema::check_existing_rows(&resolved, rows.iter().map(|(_, values)| values), txn)?;
        }
        AlterTable::AddUnique {
            name,
            columns,
            primary,
            ..
        } => {
            let index = super::constraint::add_unique(
                &mut new_table,
                name.as_deref(),
                columns,
                *primary,
                catalog,
                txn,
            )?;
            indexes.push(index);
        }
        AlterTable::SetDefault { .. } | AlterTable::AddIdentity { .. } => {
            super::alter_column::apply(alter, &mut new_table, catalog, txn)?;
        }
        AlterTable::DropConstraint {
            name, if_exists, ..
        } => {
            let before = new_table.foreign_keys.len();
            new_table
                .foreign_keys
                .retain(|key| !key.name.eq_ignore_ascii_case(name));
            if new_table.foreign_keys.len() == before {
                if *if_exists {
                    return Ok(());
                }
                return Err(ExecError::new(
                    sqlstate::UNDEFINED_OBJECT,
                    format!(
                        "constraint \"{name}\" of relation \"{}\" does not exist (only foreign keys can be dropped by name)",
                        table.name
                    ),
                ));
            }
        }
    }
    catalog::put_object(txn, &SchemaObject::Table(new_table))?;
    for index in indexes {
        catalog::put_object(txn, &SchemaObject::Index(index))?;
    }
    Ok(())
}
