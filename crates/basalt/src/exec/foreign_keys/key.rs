//! One foreign key resolved against the catalog ([`ResolvedKey`]): how its referenced row is
//! found (always a seek: the row id or a unique index on exactly the referenced columns),
//! how the rows referencing a key are found (the row id, an index whose leading columns are
//! the referencing columns, or a scan), and its PostgreSQL-worded 23503 errors.
//!
//! Values are compared in the referenced column's type, as PostgreSQL's implicit casts do:
//! an INTEGER referencing a REAL is looked up as a REAL, and a referenced 2.5 is held by no
//! INTEGER row.

use std::borrow::Cow;
use std::sync::Arc;

use crate::catalog::{Catalog, ForeignKeyDef, IndexDef, ReferentialAction, TableDef};
use crate::sqlstate;
use crate::storage::btree::TableTree;
use crate::txn::WriteTxn;
use crate::types::{self, DataType, Value};

use super::super::error::{ExecError, ExecResult};
use super::super::index_access::{IndexAccess, IndexAm, IndexProbe};
use super::super::record::stored_to_value;

/// How a referenced row is found from a key: always one seek.
#[derive(Clone, Debug)]
enum ParentAccess {
    /// The referenced column is the referenced table's INTEGER PRIMARY KEY.
    RowId,
    /// A unique index on exactly the referenced columns; its `i`-th column is the key's
    /// `key_order[i]`-th.
    Index {
        index: Arc<IndexDef>,
        key_order: Vec<usize>,
    },
}

/// How the rows referencing a key are found.
#[derive(Clone, Debug)]
enum ChildAccess {
    /// The referencing column is the referencing table's INTEGER PRIMARY KEY.
    RowId,
    /// An index whose leading columns are the referencing columns; its `i`-th column is the
    /// key's `key_order[i]`-th.
    IndexPrefix {
        index: Arc<IndexDef>,
        key_order: Vec<usize>,
    },
    /// No such index: every row of the referencing table is read.
    Scan,
}

/// One foreign key, resolved against a catalog.
#[derive(Clone, Debug)]
pub struct ResolvedKey {
    name: String,
    pub(super) child: Arc<TableDef>,
    pub(super) child_columns: Vec<usize>,
    parent: Arc<TableDef>,
    pub(super) parent_columns: Vec<usize>,
    pub(super) on_delete: ReferentialAction,
    pub(super) on_update: ReferentialAction,
    parent_access: ParentAccess,
    child_access: ChildAccess,
    /// The referencing table's entry in the statement's `ForeignKeyRules`, when the
    /// statement may write it (the key's actions change referencing rows).
    pub(super) child_entry: Option<usize>,
}

impl ResolvedKey {
    /// Resolves `key` of table `child`: where the referenced table's row is found, and how
    /// referencing rows are found. Fails (42P01, 42703, 42830) only for a key the catalog no
    /// longer supports, which DDL prevents.
    pub fn resolve(
        child: &Arc<TableDef>,
        key: &ForeignKeyDef,
        catalog: &Catalog,
    ) -> ExecResult<ResolvedKey> {
        let parent = catalog.table(&key.referenced_table).ok_or_else(|| {
            ExecError::new(
                sqlstate::UNDEFINED_TABLE,
                format!(
                    "relation \"{}\" referenced by foreign key constraint \"{}\" does not exist",
                    key.referenced_table, key.name
                ),
            )
        })?;
        // Keys stored before the binder spelled out a bare `REFERENCES p` have no referenced
        // columns: they mean p's primary key.
        let referenced_names: Vec<&str> = if key.referenced_columns.is_empty() {
            parent
                .primary_key
                .iter()
                .filter_map(|&c| parent.columns.get(c))
                .map(|column| column.name.as_str())
                .collect()
        } else {
            key.referenced_columns.iter().map(String::as_str).collect()
        };
        let parent_columns = referenced_names
            .iter()
            .map(|&name| {
                parent.column(name).map(|(position, _)| position).ok_or_else(|| {
                    ExecError::new(
                        sqlstate::UNDEFINED_COLUMN,
                        format!(
                            "column \"{name}\" referenced in foreign key constraint \"{}\" does not exist",
                            key.name
                        ),
                    )
                })
            })
            .collect::<ExecResult<Vec<usize>>>()?;
        let parent_access = if parent.is_row_id(&parent_columns) {
            ParentAccess::RowId
        } else {
            let index = catalog
                .unique_index_on(&parent.name, &parent_columns)
                .ok_or_else(|| {
                    ExecError::new(
                        sqlstate::INVALID_FOREIGN_KEY,
                        format!(
                            "there is no unique constraint matching the keys of foreign key constraint \"{}\" in table \"{}\"",
                            key.name, parent.name
                        ),
                    )
                })?;
            ParentAccess::Index {
                key_order: key_order(index, &parent_columns),
                index: index.clone(),
            }
        };
        let child_access = if child.is_row_id(&key.columns) {
            ChildAccess::RowId
        } else {
            catalog
                .indexes_of(&child.name)
                .filter(|index| {
                    index.columns.len() >= key.columns.len()
                        && index.columns[..key.columns.len()]
                            .iter()
                            .all(|(column, _)| key.columns.contains(column))
                })
                .min_by_key(|index| index.columns.len())
                .map_or(ChildAccess::Scan, |index| ChildAccess::IndexPrefix {
                    key_order: key_order(index, &key.columns),
                    index: index.clone(),
                })
        };
        Ok(ResolvedKey {
            name: key.name.clone(),
            child: child.clone(),
            child_columns: key.columns.clone(),
            parent: parent.clone(),
            parent_columns,
            on_delete: key.on_delete,
            on_update: key.on_update,
            parent_access,
            child_access,
            child_entry: None,
        })
    }

    /// Whether the referenced table holds a row whose referenced columns equal the key
    /// values `value(0), value(1), ...` (of the referencing or the referenced columns' types).
    pub fn parent_row_exists<'v>(
        &self,
        value: impl Fn(usize) -> &'v Value,
        txn: &WriteTxn,
        buffer: &mut Vec<u8>,
    ) -> ExecResult<bool> {
        match &self.parent_access {
            ParentAccess::RowId => {
                let row_id = as_type(value(0), DataType::Integer)?;
                let Value::Integer(row_id) = *row_id else {
                    return Ok(false);
                };
                Ok(TableTree::open(self.parent.root)
                    .cursor(txn)
                    .seek_ge(row_id)?)
            }
            ParentAccess::Index { index, key_order } => {
                let access = IndexAccess::of(index);
                buffer.clear();
                for (key_column, ((column, _), &position)) in
                    index.columns.iter().zip(key_order).enumerate()
                {
                    let data_type = column_type(&self.parent, *column)?;
                    let converted = as_type(value(position), data_type)?;
                    access.lookup_column(key_column, &converted, buffer);
                }
                let mut found = false;
                access.probe(txn).rows_with_prefix(buffer, |_| {
                    found = true;
                    Ok(false)
                })?;
                Ok(found)
            }
        }
    }

    /// Row ids of the referencing rows whose referencing columns equal `parent_key` (values
    /// of the referenced columns, in key order); at most one when `first_only`.
    pub(super) fn referencing_rows(
        &self,
        parent_key: &[Value],
        first_only: bool,
        txn: &WriteTxn,
        buffer: &mut Vec<u8>,
    ) -> ExecResult<Vec<i64>> {
        // The referenced values as the referencing columns hold them; a value they cannot
        // hold exactly (2.5 for an INTEGER column) is referenced by no row.
        let mut wanted = Vec::with_capacity(parent_key.len());
        for (value, &column) in parent_key.iter().zip(&self.child_columns) {
            match exact_as_type(value, column_type(&self.child, column)?) {
                Some(value) if !value.is_null() => wanted.push(value),
                _ => return Ok(Vec::new()),
            }
        }
        let mut rows = Vec::new();
        match &self.child_access {
            ChildAccess::RowId => {
                if let Some(Value::Integer(row_id)) = wanted.first().map(|v| &**v)
                    && TableTree::open(self.child.root)
                        .cursor(txn)
                        .seek_ge(*row_id)?
                {
                    rows.push(*row_id);
                }
            }
            ChildAccess::IndexPrefix { index, key_order } => {
                let access = IndexAccess::of(index);
                buffer.clear();
                for (key_column, &position) in key_order.iter().enumerate() {
                    let value = wanted
                        .get(position)
                        .ok_or_else(|| ExecError::internal("foreign key index order"))?;
                    access.lookup_column(key_column, value, buffer);
                }
                access.probe(txn).rows_with_prefix(buffer, |row_id| {
                    rows.push(row_id);
                    Ok(!first_only)
                })?;
            }
            ChildAccess::Scan => {
                let mut cursor = TableTree::open(self.child.root).cursor(txn);
                let mut valid = cursor.first()?;
                while valid {
                    let mut matches = true;
                    for (value, &column) in wanted.iter().zip(&self.child_columns) {
                        let column = self
                            .child
                            .columns
                            .get(column)
                            .ok_or_else(|| ExecError::internal("foreign key column"))?;
                        let stored = if column.slot < cursor.column_count() {
                            stored_to_value(cursor.value(column.slot)?, column.data_type)?
                        } else {
                            Value::Null
                        };
                        if stored != **value {
                            matches = false;
                            break;
                        }
                    }
                    if matches {
                        rows.push(
                            cursor
                                .row_id()
                                .ok_or_else(|| ExecError::internal("cursor lost its row"))?,
                        );
                        if first_only {
                            break;
                        }
                    }
                    valid = cursor.next()?;
                }
            }
        }
        Ok(rows)
    }

    /// Whether the key references the table that holds it.
    pub fn references_own_table(&self) -> bool {
        self.parent.name.eq_ignore_ascii_case(&self.child.name)
    }

    /// 23503 for a referencing row (`values`, in table order) whose referenced row is missing.
    pub fn missing_parent_error(&self, values: &[Value]) -> ExecError {
        ExecError::new(
            sqlstate::FOREIGN_KEY_VIOLATION,
            format!(
                "insert or update on table \"{}\" violates foreign key constraint \"{}\": Key ({})=({}) is not present in table \"{}\".",
                self.child.name,
                self.name,
                column_names(&self.child, &self.child_columns),
                key_text(self.child_columns.iter().map(|&c| values.get(c))),
                self.parent.name
            ),
        )
    }

    /// 23503 for a referenced key (`parent_key`, in key order) that rows still reference.
    pub(super) fn still_referenced_error(&self, parent_key: &[Value]) -> ExecError {
        ExecError::new(
            sqlstate::FOREIGN_KEY_VIOLATION,
            format!(
                "update or delete on table \"{}\" violates foreign key constraint \"{}\" on table \"{}\": Key ({})=({}) is still referenced from table \"{}\".",
                self.parent.name,
                self.name,
                self.child.name,
                column_names(&self.parent, &self.parent_columns),
                key_text(parent_key.iter().map(Some)),
                self.child.name
            ),
        )
    }
}

/// For each column of `index` (in index order), its position in `columns`.
fn key_order(index: &IndexDef, columns: &[usize]) -> Vec<usize> {
    index
        .columns
        .iter()
        .filter_map(|(column, _)| columns.iter().position(|c| c == column))
        .collect()
}

fn column_type(table: &TableDef, column: usize) -> ExecResult<DataType> {
    table
        .columns
        .get(column)
        .map(|column| column.data_type)
        .ok_or_else(|| ExecError::internal("foreign key names a missing column"))
}

fn column_names(table: &TableDef, columns: &[usize]) -> String {
    columns
        .iter()
        .filter_map(|&c| table.columns.get(c))
        .map(|column| column.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn key_text<'v>(values: impl Iterator<Item = Option<&'v Value>>) -> String {
    values
        .map(|value| value.map_or_else(String::new, Value::to_string))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `value` as type `data_type` (the implicit conversions the binder allows between
/// referencing and referenced columns), borrowed when it already is.
fn as_type(value: &Value, data_type: DataType) -> ExecResult<Cow<'_, Value>> {
    if value.is_null() || value.data_type() == data_type.unmodified() {
        Ok(Cow::Borrowed(value))
    } else {
        Ok(Cow::Owned(types::cast(value, data_type)?))
    }
}

/// `value` as type `data_type` if that type holds it exactly (converting back gives it
/// again), else `None`.
fn exact_as_type(value: &Value, data_type: DataType) -> Option<Cow<'_, Value>> {
    if value.is_null() || value.data_type() == data_type.unmodified() {
        return Some(Cow::Borrowed(value));
    }
    let converted = types::cast(value, data_type).ok()?;
    (types::cast(&converted, value.data_type()).ok().as_ref() == Some(value))
        .then_some(Cow::Owned(converted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{ColumnDef, IndexMethod, SchemaObject};
    use crate::storage::keys::KeyOrder;

    fn column(name: &str, data_type: DataType, slot: usize) -> ColumnDef {
        ColumnDef {
            name: name.into(),
            data_type,
            declared_type: String::new(),
            not_null: false,
            default: None,
            generated: None,
            slot,
        }
    }

    fn table(name: &str, columns: Vec<ColumnDef>, row_id: Option<usize>) -> TableDef {
        TableDef {
            name: name.into(),
            slot_count: columns.len(),
            columns,
            root: 10,
            row_id_column: row_id,
            primary_key: row_id.into_iter().collect(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        }
    }

    fn key(columns: Vec<usize>, parent: &str, referenced: &[&str]) -> ForeignKeyDef {
        ForeignKeyDef {
            name: "k".into(),
            columns,
            referenced_table: parent.into(),
            referenced_columns: referenced.iter().map(|c| c.to_string()).collect(),
            on_delete: ReferentialAction::NoAction,
            on_update: ReferentialAction::NoAction,
        }
    }

    /// p(id INTEGER PRIMARY KEY, code TEXT UNIQUE); c(a INTEGER, code TEXT, x INTEGER) with
    /// a non-unique index on (x, code) and one on (a).
    fn catalog() -> Catalog {
        let index = |name: &str, table: &str, columns: Vec<usize>, unique: bool| {
            SchemaObject::Index(IndexDef {
                name: name.into(),
                table: table.into(),
                columns: columns.into_iter().map(|c| (c, KeyOrder::ASC)).collect(),
                unique,
                method: IndexMethod::BTree,
                root: 20,
                implicit: false,
                options: Vec::new(),
            })
        };
        Catalog::from_objects(
            1,
            [
                SchemaObject::Table(table(
                    "p",
                    vec![
                        column("id", DataType::Integer, 0),
                        column("code", DataType::Text(None), 1),
                    ],
                    Some(0),
                )),
                SchemaObject::Table(table(
                    "c",
                    vec![
                        column("a", DataType::Integer, 0),
                        column("code", DataType::Text(None), 1),
                        column("x", DataType::Integer, 2),
                    ],
                    None,
                )),
                index("p_code_key", "p", vec![1], true),
                index("c_x_code", "c", vec![2, 1], false),
                index("c_a", "c", vec![0], false),
            ],
        )
    }

    fn resolve(key: &ForeignKeyDef) -> ExecResult<ResolvedKey> {
        let catalog = catalog();
        let child = catalog.table("c").unwrap().clone();
        ResolvedKey::resolve(&child, key, &catalog)
    }

    #[test]
    fn parents_are_found_by_row_id_or_unique_index() {
        let by_id = resolve(&key(vec![0], "p", &["id"])).unwrap();
        assert!(matches!(by_id.parent_access, ParentAccess::RowId));
        let by_code = resolve(&key(vec![1], "p", &["code"])).unwrap();
        assert!(
            matches!(&by_code.parent_access, ParentAccess::Index { index, .. } if index.name == "p_code_key")
        );
        // A key stored without referenced columns (before they were spelled out) means the
        // primary key.
        let legacy = resolve(&key(vec![0], "p", &[])).unwrap();
        assert!(matches!(legacy.parent_access, ParentAccess::RowId));
        assert_eq!(legacy.parent_columns, vec![0]);
    }

    #[test]
    fn children_are_found_by_an_index_prefix_or_a_scan() {
        let by_a = resolve(&key(vec![0], "p", &["id"])).unwrap();
        assert!(
            matches!(&by_a.child_access, ChildAccess::IndexPrefix { index, .. } if index.name == "c_a")
        );
        // (code) is not a prefix of (x, code): scan.
        let by_code = resolve(&key(vec![1], "p", &["code"])).unwrap();
        assert!(matches!(by_code.child_access, ChildAccess::Scan));
    }

    #[test]
    fn keys_the_catalog_cannot_serve_are_errors() {
        let missing_table = resolve(&key(vec![0], "nope", &["id"])).unwrap_err();
        assert_eq!(missing_table.code, sqlstate::UNDEFINED_TABLE);
        let missing_column = resolve(&key(vec![0], "p", &["nope"])).unwrap_err();
        assert_eq!(missing_column.code, sqlstate::UNDEFINED_COLUMN);
    }

    #[test]
    fn values_convert_exactly_or_not_at_all() {
        assert_eq!(
            exact_as_type(&Value::Real(2.0), DataType::Integer).as_deref(),
            Some(&Value::Integer(2))
        );
        assert_eq!(exact_as_type(&Value::Real(2.5), DataType::Integer), None);
        assert_eq!(
            as_type(&Value::Integer(2), DataType::Real)
                .unwrap()
                .as_ref(),
            &Value::Real(2.0)
        );
    }
}
