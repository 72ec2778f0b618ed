//! PostgreSQL's system catalogs (`pg_catalog.pg_class`, `pg_attribute`, `pg_type`, ...) and
//! the catalog functions clients call with them (`format_type`, `pg_get_indexdef`, reg*
//! casts, `version()`), so that psql's `\d` commands and drivers' introspection run against
//! Basalt unchanged.
//!
//! How it fits: like `information_schema` (`system.rs`), each relation is computed from the
//! binder's catalog snapshot into a constant `VALUES` node when a statement names it, so a
//! query over it plans like any other subquery and sees the schema the statement is bound
//! against; every schema change invalidates cached plans, so a prepared statement re-reads
//! it. Every relation of PostgreSQL 15's `pg_catalog` exists with PostgreSQL's columns
//! (`data.rs`, recorded from a real server); those Basalt has nothing for are empty rather
//! than missing (42P01), so a client's query over, say, `pg_policy` runs and finds no rows.
//!
//! Rows come from three places: PostgreSQL's own static rows (built-in types, access
//! methods, schemas, roles; `data/*.tsv`), the `pg_catalog` relations themselves (in
//! `pg_class` and `pg_attribute`), and Basalt's objects with the OIDs `objects.rs` gives
//! them (`rows.rs`). A column a row says nothing about holds PostgreSQL's zero value when the
//! column is NOT NULL (`false`, `0`, `''`) and NULL otherwise.
//!
//! Names: `pg_catalog.X` is always the catalog relation (42P01 when there is none); a bare
//! `pg_X` is too, unless a table or view of that name exists (PostgreSQL searches
//! `pg_catalog` first; Basalt lets the user's object win, as for `basalt_schema`).

mod data;
mod functions;
mod objects;
mod reg;
mod rows;

pub(crate) use functions::format_type;
pub(crate) use reg::{RegOutput, is_reg_type, parse_object_name};

use sqlparser::ast;

use crate::sqlstate;
use crate::types::{DataType, Value};

use super::Binder;
use super::error::BindError;
use crate::plan::expr::Expr;
use crate::plan::{OutputColumn, PlanKind, PlanNode};

/// The OID of schema `pg_catalog`.
pub(crate) const PG_CATALOG_OID: i64 = 11;
/// The OID of schema `public`, where every Basalt object lives.
pub(crate) const PUBLIC_OID: i64 = 2200;
/// The OID of the bootstrap superuser, which owns everything: Basalt's one session user.
pub(crate) const OWNER_OID: i64 = 10;

impl Binder<'_> {
    /// The `pg_catalog` relation `parts` names, if it names one (see the module
    /// documentation); 42P01 for an unknown `pg_catalog.X`.
    pub(super) fn pg_catalog_relation(
        &mut self,
        parts: &[String],
    ) -> Result<Option<PlanNode>, BindError> {
        let name = match parts {
            [schema, relation] if schema == "pg_catalog" => match data::relation(relation) {
                Some(_) => relation,
                None => {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_TABLE,
                        format!("relation \"pg_catalog.{relation}\" does not exist"),
                    ));
                }
            },
            [relation]
                if relation.starts_with("pg_")
                    && data::relation(relation).is_some()
                    && self.catalog.table(relation).is_none()
                    && !self.catalog.views.contains_key(relation) =>
            {
                relation
            }
            _ => return Ok(None),
        };
        let Some(relation) = data::relation(name) else {
            return Ok(None);
        };
        let static_rows = data::static_rows(name)
            .map_err(|message| BindError::new(sqlstate::INTERNAL_ERROR, message))?
            .to_vec();
        let mut rows = rows::rename_bootstrap(name, static_rows);
        rows.extend(self.pg_rows(relation)?);
        let schema = relation
            .columns
            .iter()
            .map(|column| OutputColumn {
                name: column.name.to_string(),
                table: None,
                data_type: column.data_type,
                source: None,
            })
            .collect();
        let rows = rows
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .zip(&relation.columns)
                    .map(|(value, column)| Expr::Literal {
                        value,
                        data_type: column.data_type,
                    })
                    .collect()
            })
            .collect();
        Ok(Some(PlanNode {
            kind: PlanKind::Values { rows },
            schema,
        }))
    }
}

/// The lower-cased name of a type named in a cast, without a `pg_catalog.` qualifier and
/// without quotes (`pg_catalog.regclass`, `"char"`).
pub(crate) fn cast_type_name(data_type: &ast::DataType) -> Option<String> {
    match data_type {
        ast::DataType::Regclass => Some("regclass".to_string()),
        ast::DataType::Custom(name, arguments) if arguments.is_empty() => {
            let parts = crate::sql::object_name_parts(name);
            match parts.as_slice() {
                [name] => Some(name.clone()),
                [schema, name] if schema == "pg_catalog" => Some(name.clone()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The settings PostgreSQL clients read on connect, with the values a Basalt session has
/// (the wire server reports the same in its ParameterStatus messages): `current_setting`
/// returns them, `SHOW` falls back to them for a setting the session has not changed, and
/// they are the rows of `pg_settings`.
pub(crate) const REPORTED_SETTINGS: &[(&str, &str)] = &[
    ("server_version", "15.0"),
    ("server_version_num", "150000"),
    ("server_encoding", "UTF8"),
    ("client_encoding", "UTF8"),
    ("DateStyle", "ISO, MDY"),
    ("IntervalStyle", "postgres"),
    ("integer_datetimes", "on"),
    ("standard_conforming_strings", "on"),
    ("max_identifier_length", "63"),
    ("search_path", "\"$user\", public"),
    ("lc_collate", "C"),
    ("lc_ctype", "C"),
    ("lc_messages", "C"),
    ("is_superuser", "on"),
    ("default_table_access_method", "heap"),
];

/// The value of reported setting `name` (case-insensitive), if it is one.
pub(crate) fn reported_setting(name: &str) -> Option<String> {
    REPORTED_SETTINGS
        .iter()
        .find(|(setting, _)| setting.eq_ignore_ascii_case(name))
        .map(|(_, value)| (*value).to_string())
}

/// A constant of `data_type`.
fn literal(value: Value, data_type: DataType) -> Expr {
    Expr::Literal { value, data_type }
}

/// A text constant.
fn text(value: &str) -> Expr {
    literal(Value::Text(value.to_string()), DataType::Text(None))
}
