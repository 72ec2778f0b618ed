//! Constraints ALTER TABLE adds to a table that already has rows: `ADD PRIMARY KEY` and
//! `ADD UNIQUE`, which become the implicit unique index CREATE TABLE would have made (built
//! from the rows, so a duplicate fails the statement) and, for a primary key, NOT NULL
//! columns. Called by `ddl::alter_table`, which stores the changed table and index.

use crate::catalog::{Catalog, IndexDef, TableDef};
use crate::sqlstate;
use crate::txn::WriteTxn;
use crate::types::Value;

use super::ddl::{constraint_index, read_all_rows};
use super::error::{ExecError, ExecResult};
use super::index_access::{IndexAccess, IndexAm};

/// `ALTER TABLE ... ADD PRIMARY KEY / UNIQUE (columns)`: the implicit unique index CREATE
/// TABLE would have made for the constraint (named `{table}_pkey` / `{table}_{columns}_key`
/// unless the constraint is named), built from the rows (23505 on duplicates). A primary key
/// also makes its columns NOT NULL (23502 when a row holds a NULL there) and is refused on a
/// table that has one (42P16). The table keeps its row ids: a primary key added later is
/// never the row-id alias an `INTEGER PRIMARY KEY` of CREATE TABLE is.
pub(super) fn add_unique(
    table: &mut TableDef,
    name: Option<&str>,
    columns: &[usize],
    primary: bool,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<IndexDef> {
    if primary && (!table.primary_key.is_empty() || table.row_id_column.is_some()) {
        return Err(ExecError::new(
            sqlstate::INVALID_TABLE_DEFINITION,
            format!(
                "multiple primary keys for table \"{}\" are not allowed",
                table.name
            ),
        ));
    }
    let rows = read_all_rows(table, &*txn)?;
    if primary {
        for &column in columns {
            let has_null = rows
                .iter()
                .any(|(_, values)| values.get(column).is_none_or(Value::is_null));
            let definition = table
                .columns
                .get_mut(column)
                .ok_or_else(|| ExecError::internal("key column past the table's columns"))?;
            if has_null {
                return Err(ExecError::new(
                    sqlstate::NOT_NULL_VIOLATION,
                    format!(
                        "column \"{}\" of relation \"{}\" contains null values",
                        definition.name, table.name
                    ),
                ));
            }
            definition.not_null = true;
        }
        table.primary_key = columns.to_vec();
    }
    let index = constraint_index(table, columns, primary, name, &[], catalog, txn)?;
    IndexAccess::of(&index).build(txn, &rows)?;
    Ok(index)
}
