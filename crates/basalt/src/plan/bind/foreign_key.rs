//! Binding `REFERENCES` and `FOREIGN KEY` constraints (CREATE TABLE, ALTER TABLE ADD
//! COLUMN, ALTER TABLE ADD FOREIGN KEY), with PostgreSQL's checks and codes, so that every stored [`ForeignKeyDef`] can be
//! enforced with seeks:
//!
//! * the referenced table exists (42P01) and is a table (42809); a table may reference
//!   itself, including the table being created;
//! * `REFERENCES p` without columns means p's primary key (42830 when p has none), and is
//!   stored with the columns spelled out, so later renames need only rewrite names;
//! * the referenced columns are exactly the columns of p's primary key, a UNIQUE constraint
//!   or a unique index, in any order (42830) — so a parent row is found by one seek;
//! * each referencing column's type equals the referenced column's or converts to it
//!   implicitly (integer → real, date → timestamp), as PostgreSQL requires (42804);
//! * only MATCH SIMPLE, and no DEFERRABLE / INITIALLY DEFERRED / NOT ENFORCED (0A000).
//!
//! Enforcement is `crate::exec::foreign_keys`; DDL that would break a stored key (dropping a
//! referenced table, column or index) is refused by `crate::exec::ddl`.

use sqlparser::ast;

use crate::catalog::{Catalog, ColumnDef, ForeignKeyDef, ReferentialAction, TableDef};
use crate::sqlstate;
use crate::types::{self, DataType};

use super::error::BindError;
use super::{ident_name, object_name};

/// A foreign key as written: names resolved to the referencing table's column positions,
/// nothing about the referenced table checked yet ([`validate`] does that). An unnamed key
/// has an empty name until [`validate`] gives it PostgreSQL's default.
pub(super) fn foreign_key(
    columns: Vec<usize>,
    key: &ast::ForeignKeyConstraint,
    constraint_name: Option<&ast::Ident>,
) -> Result<ForeignKeyDef, BindError> {
    if matches!(
        key.match_kind,
        Some(ast::ConstraintReferenceMatchKind::Full | ast::ConstraintReferenceMatchKind::Partial)
    ) {
        return Err(BindError::unsupported(
            "MATCH FULL and MATCH PARTIAL foreign keys (only MATCH SIMPLE)",
        ));
    }
    if let Some(characteristics) = &key.characteristics {
        if characteristics.deferrable == Some(true)
            || characteristics.initially == Some(ast::DeferrableInitial::Deferred)
        {
            return Err(BindError::unsupported("DEFERRABLE foreign keys"));
        }
        if characteristics.enforced == Some(false) {
            return Err(BindError::unsupported("NOT ENFORCED foreign keys"));
        }
    }
    let action = |action: &Option<ast::ReferentialAction>| match action {
        None | Some(ast::ReferentialAction::NoAction) => ReferentialAction::NoAction,
        Some(ast::ReferentialAction::Restrict) => ReferentialAction::Restrict,
        Some(ast::ReferentialAction::Cascade) => ReferentialAction::Cascade,
        Some(ast::ReferentialAction::SetNull) => ReferentialAction::SetNull,
        Some(ast::ReferentialAction::SetDefault) => ReferentialAction::SetDefault,
    };
    Ok(ForeignKeyDef {
        name: key
            .name
            .as_ref()
            .or(constraint_name)
            .map(ident_name)
            .unwrap_or_default(),
        columns,
        referenced_table: object_name(&key.foreign_table)?,
        referenced_columns: key.referred_columns.iter().map(ident_name).collect(),
        on_delete: action(&key.on_delete),
        on_update: action(&key.on_update),
    })
}

/// The column sets of `table`'s primary key and unique indexes: what a foreign key may
/// reference.
pub(super) fn unique_keys(catalog: &Catalog, table: &TableDef) -> Vec<Vec<usize>> {
    let mut keys = Vec::new();
    if !table.primary_key.is_empty() {
        keys.push(table.primary_key.clone());
    }
    for index in catalog.indexes_of(&table.name).filter(|index| index.unique) {
        keys.push(index.columns.iter().map(|(column, _)| *column).collect());
    }
    keys
}

/// Checks `new_keys` of table `child` (whose `foreign_keys` holds the keys it already has)
/// against the referenced tables and completes them: referenced table and column names as
/// the catalog spells them, the primary key's columns for a bare `REFERENCES p`, and a name.
/// `own_unique_keys` are `child`'s own unique column sets, for keys referencing `child`.
pub(super) fn validate(
    catalog: &Catalog,
    child: &TableDef,
    own_unique_keys: &[Vec<usize>],
    new_keys: Vec<ForeignKeyDef>,
) -> Result<Vec<ForeignKeyDef>, BindError> {
    let mut taken: Vec<String> = child
        .foreign_keys
        .iter()
        .map(|key| key.name.to_lowercase())
        .collect();
    let mut validated = Vec::with_capacity(new_keys.len());
    for mut key in new_keys {
        let referenced = resolve_referenced(catalog, child, own_unique_keys, &key)?;
        check_types(child, referenced.table, &referenced.columns, &key)?;
        key.referenced_table = referenced.table.name.clone();
        key.referenced_columns = referenced
            .columns
            .iter()
            .filter_map(|&column| referenced.table.columns.get(column))
            .map(|column| column.name.clone())
            .collect();
        if key.name.is_empty() {
            let base = ForeignKeyDef::default_name(child, &key.columns);
            key.name = base.clone();
            let mut suffix = 1;
            while taken.contains(&key.name.to_lowercase()) {
                key.name = format!("{base}{suffix}");
                suffix += 1;
            }
        } else if taken.contains(&key.name.to_lowercase()) {
            return Err(BindError::new(
                sqlstate::DUPLICATE_OBJECT,
                format!(
                    "constraint \"{}\" for relation \"{}\" already exists",
                    key.name, child.name
                ),
            ));
        }
        taken.push(key.name.to_lowercase());
        validated.push(key);
    }
    Ok(validated)
}

/// `ALTER TABLE table ADD COLUMN column ... REFERENCES ...`: `keys` (on the column) checked
/// and completed as [`validate`] does.
pub(super) fn validate_added_column(
    catalog: &Catalog,
    table: &TableDef,
    column: &ColumnDef,
    mut keys: Vec<ForeignKeyDef>,
) -> Result<Vec<ForeignKeyDef>, BindError> {
    // The new column comes after the existing ones (its slot may be further on: dropped
    // columns keep theirs).
    let position = table.columns.len();
    for key in &mut keys {
        key.columns = vec![position];
    }
    let mut widened = table.clone();
    widened.columns.push(column.clone());
    validate(catalog, &widened, &unique_keys(catalog, table), keys)
}

/// `ALTER TABLE table ADD [CONSTRAINT name] FOREIGN KEY ...`, checked and completed as
/// [`validate`] does.
pub(super) fn validate_added_key(
    catalog: &Catalog,
    table: &TableDef,
    key: &ast::ForeignKeyConstraint,
) -> Result<ForeignKeyDef, BindError> {
    let columns = key
        .columns
        .iter()
        .map(|column| {
            let column = ident_name(column);
            table.column(&column).map(|(position, _)| position).ok_or_else(|| {
                BindError::new(
                    sqlstate::UNDEFINED_COLUMN,
                    format!("column \"{column}\" referenced in foreign key constraint does not exist"),
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let key = foreign_key(columns, key, None)?;
    validate(catalog, table, &unique_keys(catalog, table), vec![key])?
        .pop()
        .ok_or_else(|| BindError::new(sqlstate::INTERNAL_ERROR, "foreign key lost in validation"))
}

/// The referenced table of a key and the positions of its referenced columns there.
struct Referenced<'a> {
    table: &'a TableDef,
    columns: Vec<usize>,
}

fn resolve_referenced<'a>(
    catalog: &'a Catalog,
    child: &'a TableDef,
    own_unique_keys: &[Vec<usize>],
    key: &ForeignKeyDef,
) -> Result<Referenced<'a>, BindError> {
    for (i, column) in key.columns.iter().enumerate() {
        if key.columns[..i].contains(column) {
            let name = child.columns.get(*column).map_or("", |c| c.name.as_str());
            return Err(BindError::new(
                sqlstate::DUPLICATE_COLUMN,
                format!("column \"{name}\" appears twice in foreign key constraint"),
            ));
        }
    }
    let (parent, unique): (&TableDef, Vec<Vec<usize>>) =
        if key.referenced_table.eq_ignore_ascii_case(&child.name) {
            (child, own_unique_keys.to_vec())
        } else if let Some(parent) = catalog.table(&key.referenced_table) {
            (parent, unique_keys(catalog, parent))
        } else if catalog
            .views
            .contains_key(&key.referenced_table.to_lowercase())
        {
            return Err(BindError::new(
                sqlstate::WRONG_OBJECT_TYPE,
                format!(
                    "referenced relation \"{}\" is not a table",
                    key.referenced_table
                ),
            ));
        } else {
            return Err(BindError::new(
                sqlstate::UNDEFINED_TABLE,
                format!("relation \"{}\" does not exist", key.referenced_table),
            ));
        };
    let columns: Vec<usize> = if key.referenced_columns.is_empty() {
        if parent.primary_key.is_empty() {
            return Err(BindError::new(
                sqlstate::INVALID_FOREIGN_KEY,
                format!(
                    "there is no primary key for referenced table \"{}\"",
                    parent.name
                ),
            ));
        }
        parent.primary_key.clone()
    } else {
        key.referenced_columns
            .iter()
            .map(|name| {
                parent.column(name).map(|(position, _)| position).ok_or_else(|| {
                    BindError::new(
                        sqlstate::UNDEFINED_COLUMN,
                        format!("column \"{name}\" referenced in foreign key constraint does not exist"),
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };
    if columns.len() != key.columns.len() {
        return Err(BindError::new(
            sqlstate::INVALID_FOREIGN_KEY,
            "number of referencing and referenced columns for foreign key disagree",
        ));
    }
    for (i, column) in columns.iter().enumerate() {
        if columns[..i].contains(column) {
            return Err(BindError::new(
                sqlstate::INVALID_FOREIGN_KEY,
                "foreign key referenced-columns list must not contain duplicates",
            ));
        }
    }
    let same_set = |set: &Vec<usize>| {
        set.len() == columns.len() && set.iter().all(|column| columns.contains(column))
    };
    if !unique.iter().any(same_set) {
        return Err(BindError::new(
            sqlstate::INVALID_FOREIGN_KEY,
            format!(
                "there is no unique constraint matching given keys for referenced table \"{}\"",
                parent.name
            ),
        ));
    }
    Ok(Referenced {
        table: parent,
        columns,
    })
}

/// Each referencing column must compare with its referenced column without an explicit
/// cast: the same type, or one that converts to it implicitly.
fn check_types(
    child: &TableDef,
    parent: &TableDef,
    referenced: &[usize],
    key: &ForeignKeyDef,
) -> Result<(), BindError> {
    for (&column, &parent_column) in key.columns.iter().zip(referenced) {
        let (Some(column), Some(parent_column)) =
            (child.columns.get(column), parent.columns.get(parent_column))
        else {
            return Err(BindError::new(
                sqlstate::INTERNAL_ERROR,
                "foreign key names a column that does not exist",
            ));
        };
        if !comparable(column.data_type, parent_column.data_type) {
            let name = if key.name.is_empty() {
                ForeignKeyDef::default_name(child, &key.columns)
            } else {
                key.name.clone()
            };
            return Err(BindError::mismatch(format!(
                "foreign key constraint \"{name}\" cannot be implemented: key columns \"{}\" and \"{}\" are of incompatible types: {} and {}",
                column.name,
                parent_column.name,
                column.data_type.name(),
                parent_column.data_type.name()
            )));
        }
    }
    Ok(())
}

/// Whether a referencing column of type `child` can reference one of type `parent`.
fn comparable(child: DataType, parent: DataType) -> bool {
    child != DataType::Null && types::implicit_cast(child, parent)
}
