//! PostgreSQL 15's own catalog data, recorded from a real server and kept in `data/` as text:
//! the shape of every `pg_catalog` table and view (`columns.tsv`: relation, column, PostgreSQL
//! type name, `not null` or `null`, in column order), the OIDs and kinds of those relations
//! (`relations.tsv`), and the rows of the catalogs whose contents do not depend on the
//! database (`pg_type.tsv` for the built-in types, `pg_am.tsv`, `pg_namespace.tsv`,
//! `pg_collation.tsv`, `pg_roles.tsv`, `pg_user.tsv`, `pg_database.tsv`), each in COPY's text
//! format. docs/server.md says how the files were made; nothing here is typed by hand.
//!
//! What it guarantees: every relation of `columns.tsv` has a column list with a Basalt type
//! per column ([`basalt_type`]: OIDs and the reg* types are 64-bit integers, names and
//! `"char"` text, `int2vector`/`oidvector` integer arrays), and the static rows parse into
//! values of exactly those types. The files are compiled in and parsed once per process;
//! a file that fails to parse (a damaged checkout) is an internal error (XX000) for the
//! statements that read it, never a panic.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::types::{DataType, Value};

const COLUMNS: &str = include_str!("data/columns.tsv");
const RELATIONS: &str = include_str!("data/relations.tsv");

/// The static rows, by relation name.
const STATIC_ROWS: &[(&str, &str)] = &[
    ("pg_type", include_str!("data/pg_type.tsv")),
    ("pg_am", include_str!("data/pg_am.tsv")),
    ("pg_namespace", include_str!("data/pg_namespace.tsv")),
    ("pg_collation", include_str!("data/pg_collation.tsv")),
    ("pg_roles", include_str!("data/pg_roles.tsv")),
    ("pg_user", include_str!("data/pg_user.tsv")),
    ("pg_database", include_str!("data/pg_database.tsv")),
];

/// One column of a system relation.
#[derive(Debug)]
pub(crate) struct SystemColumn {
    pub name: &'static str,
    /// PostgreSQL's `typname` of the column (`oid`, `name`, `_text`, `int2vector`).
    pub pg_type: &'static str,
    pub not_null: bool,
    pub data_type: DataType,
}

/// A `pg_catalog` table or view.
#[derive(Debug)]
pub(crate) struct SystemRelation {
    pub name: &'static str,
    /// PostgreSQL's OID of the relation (`'pg_class'::regclass`).
    pub oid: i64,
    /// `r` (table) or `v` (view).
    pub kind: &'static str,
    pub columns: Vec<SystemColumn>,
}

impl SystemRelation {
    /// The position of column `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|column| column.name == name)
    }
}

/// Vector columns (`int2vector`) shown as PostgreSQL's text output (`0 3`) rather than as
/// integer arrays, because clients read them as text: SQLAlchemy splits `pg_index.indoption`
/// on spaces (and reads `indkey` and `indclass` through `unnest`, so those stay arrays).
/// PostgreSQL's vector types are both at once; Basalt has no such type.
const TEXT_VECTORS: &[(&str, &str)] = &[("pg_index", "indoption")];

/// Every `pg_catalog` relation, in name order.
pub(crate) fn relations() -> &'static [SystemRelation] {
    static RELATIONS_BY_NAME: OnceLock<Vec<SystemRelation>> = OnceLock::new();
    RELATIONS_BY_NAME.get_or_init(parse_relations)
}

/// The `pg_catalog` relation called `name`.
pub(crate) fn relation(name: &str) -> Option<&'static SystemRelation> {
    let relations = relations();
    relations
        .binary_search_by(|relation| relation.name.cmp(name))
        .ok()
        .and_then(|index| relations.get(index))
}

fn parse_relations() -> Vec<SystemRelation> {
    let oids: HashMap<&str, (i64, &str)> = RELATIONS
        .lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let oid = fields.next()?.parse().ok()?;
            let name = fields.next()?;
            let kind = fields.next()?;
            Some((name, (oid, kind)))
        })
        .collect();
    let mut relations: Vec<SystemRelation> = Vec::new();
    for line in COLUMNS.lines() {
        let mut fields = line.split('\t');
        let (Some(relation), Some(name), Some(pg_type), Some(nullability)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let column = SystemColumn {
            name,
            pg_type,
            not_null: nullability == "not null",
            data_type: if TEXT_VECTORS.contains(&(relation, name)) {
                DataType::Text(None)
            } else {
                basalt_type(pg_type)
            },
        };
        match relations.last_mut() {
            Some(last) if last.name == relation => last.columns.push(column),
            _ => {
                let (oid, kind) = oids.get(relation).copied().unwrap_or((0, "r"));
                relations.push(SystemRelation {
                    name: relation,
                    oid,
                    kind,
                    columns: vec![column],
                });
            }
        }
    }
    relations.sort_by(|a, b| a.name.cmp(b.name));
    relations
}

/// The Basalt type a column of PostgreSQL type `pg_type` is shown as. Every integer is
/// Basalt's 64-bit integer, OIDs and the reg* types included (a reg* *cast* shows names: see
/// `functions.rs`); the vector types of the catalogs are arrays; everything Basalt has no
/// type for (`name`, `"char"`, `aclitem`, `pg_node_tree`, `pg_lsn`, ...) is text.
pub(crate) fn basalt_type(pg_type: &str) -> DataType {
    let array = |element: DataType| element.array_of().unwrap_or(DataType::Text(None));
    match pg_type {
        "bool" => DataType::Boolean,
        "int2" | "int4" | "int8" | "oid" | "regproc" | "regtype" | "xid" | "cid" => {
            DataType::Integer
        }
        "float4" | "float8" => DataType::Real,
        "numeric" => DataType::Numeric(None),
        "bytea" => DataType::Blob,
        "interval" => DataType::Interval,
        "timestamptz" => DataType::TimestampTz,
        "_bool" => array(DataType::Boolean),
        "_int2" | "_int4" | "_int8" | "_oid" | "_regtype" | "int2vector" | "oidvector" => {
            array(DataType::Integer)
        }
        "_float4" | "_float8" => array(DataType::Real),
        "_char" | "_name" | "_text" | "_aclitem" => array(DataType::Text(None)),
        _ => DataType::Text(None),
    }
}

/// Parsed static rows by relation name.
type StaticTables = HashMap<&'static str, Vec<Vec<Value>>>;

/// The static rows of relation `name` (empty for a relation without any), as values of the
/// relation's column types.
pub(crate) fn static_rows(name: &str) -> Result<&'static [Vec<Value>], String> {
    static PARSED: OnceLock<Result<StaticTables, String>> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| {
        let mut tables = HashMap::new();
        for (relation_name, text) in STATIC_ROWS {
            let relation = relation(relation_name)
                .ok_or_else(|| format!("no columns recorded for {relation_name}"))?;
            let rows = text
                .lines()
                .map(|line| parse_row(relation, line))
                .collect::<Result<Vec<_>, _>>()?;
            tables.insert(*relation_name, rows);
        }
        Ok(tables)
    });
    match parsed {
        Ok(tables) => Ok(tables.get(name).map_or(&[], Vec::as_slice)),
        Err(message) => Err(message.clone()),
    }
}

/// One line of COPY text output as values of `relation`'s columns.
fn parse_row(relation: &SystemRelation, line: &str) -> Result<Vec<Value>, String> {
    let fields: Vec<&str> = line.split('\t').collect();
    if fields.len() != relation.columns.len() {
        return Err(format!(
            "{}: a row with {} fields for {} columns",
            relation.name,
            fields.len(),
            relation.columns.len()
        ));
    }
    relation
        .columns
        .iter()
        .zip(fields)
        .map(|(column, field)| parse_field(column, field))
        .collect()
}

fn parse_field(column: &SystemColumn, field: &str) -> Result<Value, String> {
    if field == "\\N" {
        return Ok(Value::Null);
    }
    let text = unescape(field);
    let text = match column.pg_type {
        // COPY writes these vectors space-separated, not as array literals.
        "int2vector" | "oidvector" => {
            format!("{{{}}}", text.split(' ').collect::<Vec<_>>().join(","))
        }
        _ => text,
    };
    if let DataType::Text(_) = column.data_type {
        return Ok(Value::Text(text));
    }
    crate::types::cast::parse_literal_for(column.data_type, &text)
        .map_err(|error| format!("column {}: {error}", column.name))
}

/// COPY text format's backslash escapes.
fn unescape(field: &str) -> String {
    if !field.contains('\\') {
        return field.to_string();
    }
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The zero value of a NOT NULL catalog column a Basalt object has nothing to say about
/// (`false`, `0`, `''`, an empty array), as PostgreSQL's catalogs hold for such facts.
pub(crate) fn zero_value(column: &SystemColumn) -> Value {
    match column.data_type {
        DataType::Boolean => Value::Boolean(false),
        DataType::Integer => Value::Integer(0),
        DataType::Real => Value::Real(0.0),
        DataType::Array(_) => {
            crate::types::cast::parse_literal_for(column.data_type, "{}").unwrap_or(Value::Null)
        }
        DataType::Text(_) => Value::Text(String::new()),
        _ => Value::Null,
    }
}

/// PostgreSQL's type OID for `typname`, from the recorded `pg_type`.
pub(crate) fn type_oid(typname: &str) -> Option<i64> {
    type_names()
        .iter()
        .find(|(_, name)| name == typname)
        .map(|(oid, _)| *oid)
}

/// `typname` of the built-in type `oid`.
pub(crate) fn type_name(oid: i64) -> Option<&'static str> {
    type_names()
        .iter()
        .find(|(type_oid, _)| *type_oid == oid)
        .map(|(_, name)| name.as_str())
}

/// `(oid, typname)` of every recorded built-in type.
fn type_names() -> &'static [(i64, String)] {
    static NAMES: OnceLock<Vec<(i64, String)>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let Ok(rows) = static_rows("pg_type") else {
            return Vec::new();
        };
        rows.iter()
            .filter_map(|row| match (row.first(), row.get(1)) {
                (Some(Value::Integer(oid)), Some(Value::Text(name))) => Some((*oid, name.clone())),
                _ => None,
            })
            .collect()
    })
}

/// `typelem` of the built-in type `oid` (0 when it is no array).
pub(crate) fn element_type(oid: i64) -> i64 {
    let Ok(rows) = static_rows("pg_type") else {
        return 0;
    };
    let Some(position) = relation("pg_type").and_then(|r| r.position("typelem")) else {
        return 0;
    };
    rows.iter()
        .find(|row| row.first() == Some(&Value::Integer(oid)))
        .and_then(|row| match row.get(position) {
            Some(Value::Integer(element)) => Some(*element),
            _ => None,
        })
        .unwrap_or(0)
}
