//! Reading a SQLite database's schema and writing the Basalt DDL that recreates it.
//!
//! Everything comes from SQLite's own introspection (`PRAGMA table_list`, `table_xinfo`,
//! `index_list`, `index_info`, `foreign_key_list` and `sqlite_master`), so any file SQLite
//! can open is read the same way; only CHECK constraints, which no pragma lists, are taken
//! from the table's `CREATE TABLE` text with sqlparser. Names are folded to lower case: SQLite
//! compares them case-insensitively, and Basalt folds unquoted names, so the views', indexes'
//! and triggers' SQL, re-run verbatim, finds the tables it names.
//!
//! Declared types map by SQLite's affinity rules (see [`map_type`] and "Moving from SQLite" in docs/sql.md);
//! a column with no declared type (or `ANY` in a STRICT table) takes the narrowest type that
//! holds every value it has: INTEGER, then DOUBLE PRECISION, then TEXT, or BLOB when all are
//! blobs. Nothing here writes to the SQLite file.

use rusqlite::Connection as Sqlite;
use sqlparser::ast::{ColumnOption, Statement as Ast, TableConstraint};
use sqlparser::dialect::SQLiteDialect;
use sqlparser::parser::Parser;

use basalt::quote_identifier;

use super::fts;

/// What a Basalt column accepts, which decides how each SQLite value is converted.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Integer,
    Real,
    /// TEXT, or VARCHAR(n)/CHAR(n) with its limit in characters.
    Text(Option<usize>),
    Blob,
    Boolean,
    /// A type the engine converts text to (DATE, TIMESTAMP, UUID, JSON): bound as text
    /// inside `CAST(? AS type)`.
    Cast(&'static str),
}

#[derive(Clone, Debug)]
pub struct Column {
    /// The name in SQLite (for reading), and folded to lower case (for Basalt).
    pub source: String,
    pub name: String,
    pub declared: String,
    pub sql_type: String,
    pub kind: Kind,
    pub not_null: bool,
    pub default: Option<String>,
    /// Position in the primary key (1-based), 0 when not part of it.
    pub pk: i64,
    /// 2 virtual, 3 stored generated column (`table_xinfo`'s `hidden`).
    pub generated: i64,
}

#[derive(Clone, Debug)]
pub struct ForeignKey {
    pub columns: Vec<String>,
    pub parent: String,
    pub parent_columns: Vec<String>,
    pub on_update: String,
    pub on_delete: String,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub source: String,
    pub name: String,
    pub columns: Vec<Column>,
    /// The INTEGER PRIMARY KEY column that is the row id, if there is one.
    pub rowid_column: Option<usize>,
    pub without_rowid: bool,
    pub autoincrement: bool,
    pub uniques: Vec<Vec<String>>,
    pub checks: Vec<String>,
    pub foreign_keys: Vec<ForeignKey>,
}

/// A schema object re-created from its SQL text after the data is in.
#[derive(Clone, Debug)]
pub struct Object {
    pub kind: &'static str,
    pub name: String,
    pub table: String,
    pub sql: String,
}

pub struct Schema {
    pub tables: Vec<Table>,
    pub indexes: Vec<Object>,
    pub views: Vec<Object>,
    pub triggers: Vec<Object>,
    /// Things that are not copied or are copied differently, for the report.
    pub notes: Vec<String>,
}

/// Reads the schema of the SQLite database `db`.
pub fn read(db: &Sqlite) -> rusqlite::Result<Schema> {
    let mut schema = Schema {
        tables: Vec::new(),
        indexes: Vec::new(),
        views: Vec::new(),
        triggers: Vec::new(),
        notes: Vec::new(),
    };
    let listed: Vec<(String, String, bool, bool)> = db
        .prepare("SELECT name, type, wr, strict FROM pragma_table_list WHERE schema = 'main' ORDER BY name")?
        .query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get::<_, i64>(2)? != 0, row.get::<_, i64>(3)? != 0))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let sql_of = |kind: &str, name: &str| -> rusqlite::Result<Option<String>> {
        db.query_row(
            "SELECT sql FROM sqlite_master WHERE type = ?1 AND name = ?2",
            [kind, name],
            |row| row.get(0),
        )
        .or_else(|error| match error {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            other => Err(other),
        })
    };
    for (name, kind, without_rowid, strict) in listed {
        if name.to_ascii_lowercase().starts_with("sqlite_") {
            continue;
        }
        match kind.as_str() {
            "table" => {
                let sql = sql_of("table", &name)?.unwrap_or_default();
                let table = read_table(db, &name, &sql, without_rowid, &mut schema.notes)?;
                if strict {
                    schema.notes.push(format!(
                        "table {}: STRICT (its types map as any others)",
                        table.name
                    ));
                }
                schema.tables.push(table);
            }
            "virtual" => {
                let sql = sql_of("table", &name)?.unwrap_or_default();
                let fts5 = sql.to_ascii_uppercase().contains("FTS5");
                match fts5
                    .then(|| fts::convert(&name, &sql, &mut schema.notes))
                    .flatten()
                {
                    Some((table, index)) => {
                        schema.tables.push(table);
                        schema.indexes.extend(index);
                    }
                    None => schema.notes.push(format!(
                        "virtual table {name} is not copied (Basalt has no virtual tables): {sql}"
                    )),
                }
            }
            "shadow" => {}
            "view" => {}
            other => schema.notes.push(format!("{other} {name} is not copied")),
        }
    }
    let mut statement = db.prepare(
        "SELECT type, name, tbl_name, sql FROM sqlite_master \
         WHERE type IN ('index', 'view', 'trigger') AND sql IS NOT NULL ORDER BY rowid",
    )?;
    let objects = statement.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, String>(2)?,
            row.get::<_, String>(3)?,
        ))
    })?;
    let copied: Vec<String> = schema.tables.iter().map(|t| t.source.clone()).collect();
    for object in objects {
        let (kind, name, table, sql) = object?;
        let object = Object {
            kind: match kind.as_str() {
                "index" => "index",
                "view" => "view",
                _ => "trigger",
            },
            name,
            table: table.to_ascii_lowercase(),
            sql,
        };
        match kind.as_str() {
            "index" if copied.contains(&table) => schema.indexes.push(object),
            "index" => {}
            "view" => schema.views.push(object),
            _ => schema.triggers.push(object),
        }
    }
    Ok(schema)
}

fn read_table(
    db: &Sqlite,
    source: &str,
    sql: &str,
    without_rowid: bool,
    notes: &mut Vec<String>,
) -> rusqlite::Result<Table> {
    let name = source.to_ascii_lowercase();
    let mut columns: Vec<Column> = db
        .prepare("SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?1) ORDER BY cid")?
        .query_map([source], |row| {
            let source: String = row.get(0)?;
            let declared: String = row.get(1)?;
            Ok(Column {
                name: source.to_ascii_lowercase(),
                source,
                sql_type: String::new(),
                kind: Kind::Blob,
                declared,
                not_null: row.get::<_, i64>(2)? != 0,
                default: row.get(3)?,
                pk: row.get(4)?,
                generated: row.get(5)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    for column in &mut columns {
        let (sql_type, kind) = match map_type(&column.declared) {
            Some(mapped) => mapped,
            None => infer_type(db, source, &column.source)?,
        };
        column.sql_type = sql_type;
        column.kind = kind;
        if column.generated >= 2 {
            notes.push(format!(
                "table {name}: generated column {} becomes an ordinary column holding its values",
                column.name
            ));
        }
    }
    let pk_columns = columns.iter().filter(|c| c.pk > 0).count();
    let rowid_column = if without_rowid || pk_columns != 1 {
        None
    } else {
        columns
            .iter()
            .position(|c| c.pk == 1 && c.declared.eq_ignore_ascii_case("integer"))
    };
    if let Some(index) = rowid_column {
        columns[index].sql_type = "INTEGER".into();
        columns[index].kind = Kind::Integer;
    }
    let autoincrement =
        rowid_column.is_some() && sql.to_ascii_uppercase().contains("AUTOINCREMENT");
    if autoincrement {
        notes.push(format!(
            "table {name}: AUTOINCREMENT kept (Basalt tracks it with a sequence, not sqlite_sequence)"
        ));
    }
    if without_rowid {
        notes.push(format!(
            "table {name}: WITHOUT ROWID becomes an ordinary table with the same primary key"
        ));
    }

    let mut uniques = Vec::new();
    let index_list: Vec<(String, bool, String)> = db
        .prepare("SELECT name, \"unique\", origin FROM pragma_index_list(?1) ORDER BY seq DESC")?
        .query_map([source], |row| {
            Ok((row.get(0)?, row.get::<_, i64>(1)? != 0, row.get(2)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    for (index, unique, origin) in index_list {
        if origin == "u" && unique {
            let cols: Vec<String> = db
                .prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")?
                .query_map([&index], |row| row.get::<_, Option<String>>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?
                .into_iter()
                .map(|c| c.unwrap_or_default().to_ascii_lowercase())
                .collect();
            uniques.push(cols);
        }
    }

    let mut foreign_keys: Vec<ForeignKey> = Vec::new();
    let fk_rows: Vec<(i64, String, String, Option<String>, String, String)> = db
        .prepare("SELECT id, \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?1) ORDER BY id, seq")?
        .query_map([source], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut last_id = None;
    for (id, parent, from, to, on_update, on_delete) in fk_rows {
        if last_id != Some(id) {
            foreign_keys.push(ForeignKey {
                columns: Vec::new(),
                parent: parent.to_ascii_lowercase(),
                parent_columns: Vec::new(),
                on_update,
                on_delete,
            });
            last_id = Some(id);
        }
        if let Some(key) = foreign_keys.last_mut() {
            key.columns.push(from.to_ascii_lowercase());
            if let Some(to) = to {
                key.parent_columns.push(to.to_ascii_lowercase());
            }
        }
    }

    let checks = checks_of(sql).unwrap_or_else(|| {
        if sql.to_ascii_uppercase().contains("CHECK") {
            notes.push(format!(
                "table {name}: its CHECK constraints are not copied (its CREATE TABLE \
                 does not parse here)"
            ));
        }
        Vec::new()
    });
    Ok(Table {
        source: source.to_string(),
        name,
        columns,
        rowid_column,
        without_rowid,
        autoincrement,
        uniques,
        checks,
        foreign_keys,
    })
}

/// The CHECK constraints of a `CREATE TABLE` statement (column ones made table ones), or
/// None when sqlparser cannot read the statement (the caller notes that).
fn checks_of(sql: &str) -> Option<Vec<String>> {
    let statements = Parser::parse_sql(&SQLiteDialect {}, sql).ok()?;
    let mut checks = Vec::new();
    for statement in statements {
        if let Ast::CreateTable(create) = statement {
            for column in &create.columns {
                for option in &column.options {
                    if let ColumnOption::Check(check) = &option.option {
                        checks.push(check.expr.to_string());
                    }
                }
            }
            for constraint in &create.constraints {
                if let TableConstraint::Check(check) = constraint {
                    checks.push(check.expr.to_string());
                }
            }
        }
    }
    Some(checks)
}

/// The Basalt type for a declared SQLite type, or None for no type (or `ANY`), which is
/// inferred from the values.
pub fn map_type(declared: &str) -> Option<(String, Kind)> {
    let upper = declared.trim().to_ascii_uppercase();
    if upper.is_empty() || upper == "ANY" {
        return None;
    }
    let base = upper.split('(').next().unwrap_or("").trim().to_string();
    let limit = upper
        .split_once('(')
        .and_then(|(_, rest)| rest.trim_end_matches(')').trim().parse::<usize>().ok());
    // Declared types Basalt has, kept as they are.
    match base.as_str() {
        "BOOLEAN" | "BOOL" => return Some(("BOOLEAN".into(), Kind::Boolean)),
        "DATE" => return Some(("DATE".into(), Kind::Cast("DATE"))),
        "DATETIME" | "TIMESTAMP" => return Some(("TIMESTAMP".into(), Kind::Cast("TIMESTAMP"))),
        "UUID" => return Some(("UUID".into(), Kind::Cast("UUID"))),
        "JSON" => return Some(("JSON".into(), Kind::Cast("JSON"))),
        "VARCHAR" | "CHARACTER VARYING" | "CHAR" | "CHARACTER" | "NVARCHAR" | "NCHAR" => {
            if let Some(n) = limit.filter(|n| *n > 0) {
                return Some((format!("VARCHAR({n})"), Kind::Text(Some(n))));
            }
        }
        _ => {}
    }
    // SQLite's affinity rules, in its order (https://sqlite.org/datatype3.html 3.1).
    Some(if upper.contains("INT") {
        ("INTEGER".into(), Kind::Integer)
    } else if upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT") {
        ("TEXT".into(), Kind::Text(None))
    } else if upper.contains("BLOB") {
        ("BLOB".into(), Kind::Blob)
    } else if upper.contains("REAL") || upper.contains("FLOA") || upper.contains("DOUB") {
        ("DOUBLE PRECISION".into(), Kind::Real)
    } else {
        // NUMERIC affinity holds SQLite's doubles: Basalt's exact NUMERIC would round them
        // to 15 digits and refuse NaN, so they stay doubles.
        ("DOUBLE PRECISION".into(), Kind::Real)
    })
}

/// The narrowest type holding every value of an untyped column.
fn infer_type(db: &Sqlite, table: &str, column: &str) -> rusqlite::Result<(String, Kind)> {
    let sql = format!(
        "SELECT DISTINCT typeof({}) FROM {}",
        sqlite_quote(column),
        sqlite_quote(table)
    );
    let types: Vec<String> = db
        .prepare(&sql)?
        .query_map([], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let has = |t: &str| types.iter().any(|x| x == t);
    Ok(if has("text") {
        ("TEXT".into(), Kind::Text(None))
    } else if has("real") {
        ("DOUBLE PRECISION".into(), Kind::Real)
    } else if has("integer") {
        ("INTEGER".into(), Kind::Integer)
    } else if has("blob") {
        ("BLOB".into(), Kind::Blob)
    } else {
        ("TEXT".into(), Kind::Text(None))
    })
}

/// A name quoted for SQLite.
pub fn sqlite_quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Which optional parts of a table's definition to write.
#[derive(Clone, Copy)]
pub struct Parts {
    pub checks: bool,
    pub defaults: bool,
}

/// `CREATE TABLE` for Basalt, without foreign keys (they are added once the data is in).
pub fn create_table(table: &Table, parts: Parts) -> String {
    let mut lines = Vec::new();
    for (i, column) in table.columns.iter().enumerate() {
        let mut line = format!("{} {}", quote_identifier(&column.name), column.sql_type);
        if table.rowid_column == Some(i) {
            line.push_str(" PRIMARY KEY");
            if table.autoincrement {
                line.push_str(" AUTOINCREMENT");
            }
        }
        if column.not_null {
            line.push_str(" NOT NULL");
        }
        if parts.defaults
            && column.generated < 2
            && let Some(default) = &column.default
        {
            line.push_str(&format!(" DEFAULT {default}"));
        }
        lines.push(line);
    }
    if table.rowid_column.is_none() {
        let mut pk: Vec<&Column> = table.columns.iter().filter(|c| c.pk > 0).collect();
        pk.sort_by_key(|c| c.pk);
        if !pk.is_empty() {
            lines.push(format!(
                "PRIMARY KEY ({})",
                name_list(pk.iter().map(|c| &c.name))
            ));
        }
    }
    for unique in &table.uniques {
        lines.push(format!("UNIQUE ({})", name_list(unique.iter())));
    }
    if parts.checks {
        for check in &table.checks {
            lines.push(format!("CHECK ({check})"));
        }
    }
    format!(
        "CREATE TABLE {} (\n    {}\n)",
        quote_identifier(&table.name),
        lines.join(",\n    ")
    )
}

/// `ALTER TABLE ... ADD FOREIGN KEY`, which checks every row already loaded.
pub fn add_foreign_key(table: &Table, key: &ForeignKey) -> String {
    let mut sql = format!(
        "ALTER TABLE {} ADD FOREIGN KEY ({}) REFERENCES {}",
        quote_identifier(&table.name),
        name_list(key.columns.iter()),
        quote_identifier(&key.parent)
    );
    if !key.parent_columns.is_empty() {
        sql.push_str(&format!(" ({})", name_list(key.parent_columns.iter())));
    }
    for (event, action) in [("UPDATE", &key.on_update), ("DELETE", &key.on_delete)] {
        if action != "NO ACTION" && !action.is_empty() {
            sql.push_str(&format!(" ON {event} {action}"));
        }
    }
    sql
}

fn name_list<'a>(names: impl Iterator<Item = &'a String>) -> String {
    names
        .map(|n| quote_identifier(n))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapped(declared: &str) -> Option<String> {
        map_type(declared).map(|(sql_type, _)| sql_type)
    }

    #[test]
    fn declared_types_map_by_affinity_in_sqlites_order() {
        for (declared, expected) in [
            ("INTEGER", "INTEGER"),
            ("bigint", "INTEGER"),
            ("UNSIGNED BIG INT", "INTEGER"),
            // "POINT" contains INT: SQLite's rule 1 wins, as in SQLite.
            ("FLOATING POINT", "INTEGER"),
            ("TEXT", "TEXT"),
            ("VARCHAR(255)", "VARCHAR(255)"),
            ("varchar", "TEXT"),
            ("NVARCHAR(10)", "VARCHAR(10)"),
            ("CLOB", "TEXT"),
            ("BLOB", "BLOB"),
            ("REAL", "DOUBLE PRECISION"),
            ("DOUBLE PRECISION", "DOUBLE PRECISION"),
            ("FLOAT", "DOUBLE PRECISION"),
            ("NUMERIC", "DOUBLE PRECISION"),
            ("DECIMAL(10,2)", "DOUBLE PRECISION"),
            ("BOOLEAN", "BOOLEAN"),
            ("bool", "BOOLEAN"),
            ("DATE", "DATE"),
            ("DATETIME", "TIMESTAMP"),
            ("timestamp", "TIMESTAMP"),
            ("UUID", "UUID"),
            ("JSON", "JSON"),
            ("STRING", "DOUBLE PRECISION"),
        ] {
            assert_eq!(mapped(declared).as_deref(), Some(expected), "{declared}");
        }
        assert_eq!(mapped(""), None);
        assert_eq!(mapped("ANY"), None);
    }

    #[test]
    fn checks_come_from_columns_and_the_table() {
        let checks =
            checks_of("CREATE TABLE t (a INTEGER CHECK (a > 0), b TEXT, CHECK (length(b) < 5))");
        assert_eq!(
            checks,
            Some(vec!["a > 0".to_string(), "length(b) < 5".to_string()])
        );
        assert_eq!(checks_of("CREATE TABLE t (a, b"), None);
    }
}
