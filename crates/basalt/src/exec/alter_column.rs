//! `ALTER TABLE ... ALTER COLUMN`: SET / DROP DEFAULT and ADD GENERATED ... AS IDENTITY,
//! applied to the table's new definition for `ddl::alter_table`, which stores it.
//!
//! The binder (`plan::bind::alter_column`) has checked everything PostgreSQL checks (the
//! column exists; a default is a valid expression of its type and the column is neither an
//! identity nor generated; an identity's column is a NOT NULL integer without a default), so
//! here a default only replaces the column's, and an identity allocates its sequence (owned
//! by the table, dropped with it) and takes `nextval` of it as the column's default, as a
//! SERIAL column does. Rows are not touched: neither statement changes stored values.

use crate::catalog::{Catalog, TableDef};
use crate::plan::ddl::AlterTable;
use crate::txn::WriteTxn;

use super::error::ExecResult;

/// Applies a SET DEFAULT / DROP DEFAULT / ADD IDENTITY to `table` (the other ALTER TABLE
/// actions are `ddl::alter_table`'s own and change nothing here).
pub fn apply(
    alter: &AlterTable,
    table: &mut TableDef,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<()> {
    match alter {
        AlterTable::SetDefault {
            column, default, ..
        } => {
            if let Some(column) = table.columns.get_mut(*column) {
                column.default = default.clone();
            }
        }
        AlterTable::AddIdentity {
            column, sequence, ..
        } => {
            let default = format!("nextval('{}')", sequence.name.replace('\'', "''"));
            super::sequence::create_sequence(sequence.clone(), false, catalog, txn)?;
            if let Some(column) = table.columns.get_mut(*column) {
                column.default = Some(default);
                column.not_null = true;
            }
        }
        _ => {}
    }
    Ok(())
}
