//! SQLite FTS5 virtual tables become an ordinary Basalt table plus a full-text index
//! (`CREATE INDEX ... USING fts`), the closest Basalt has: the table's `id` column holds the
//! FTS5 row id (so joins on it keep working) and each FTS5 column is a TEXT column, indexed
//! unless it was `UNINDEXED`. FTS5 options (`tokenize`, `prefix`, ...) are noted, not kept:
//! Basalt's analyzer is its own. A contentless table (`content=''`) stores no text to copy
//! and is only noted. Queries need rewriting by hand (`MATCH` becomes `fts_match`).

use super::schema::{Column, Kind, Object, Table};
use basalt::quote_identifier;

/// The table and index for the FTS5 table `name` declared by `sql`, or None (with a note)
/// when it cannot be copied.
pub fn convert(name: &str, sql: &str, notes: &mut Vec<String>) -> Option<(Table, Option<Object>)> {
    let lower = name.to_ascii_lowercase();
    let upper = sql.to_ascii_uppercase();
    let start = upper.find("FTS5")?;
    let open = start + sql[start..].find('(')?;
    let close = sql.rfind(')').filter(|close| *close > open)?;
    let mut columns = Vec::new();
    let mut indexed = Vec::new();
    for argument in split_arguments(&sql[open + 1..close]) {
        let argument = argument.trim();
        if let Some((key, value)) = argument.split_once('=') {
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim().trim_matches(|c| c == '\'' || c == '"');
            if key == "content" && value.is_empty() {
                notes.push(format!(
                    "virtual table {name} is a contentless FTS5 table (no text to copy): not copied"
                ));
                return None;
            }
            notes.push(format!(
                "FTS5 table {name}: option {key} = {value} not kept (Basalt's full-text \
                 analyzer is set with CREATE INDEX ... USING fts ... WITH (...))"
            ));
            continue;
        }
        let mut words = argument.split_whitespace();
        let Some(column) = words.next() else { continue };
        let column = column
            .trim_matches(|c| matches!(c, '"' | '`' | '[' | ']' | '\''))
            .to_string();
        let unindexed = words.any(|w| w.eq_ignore_ascii_case("UNINDEXED"));
        let column_name = column.to_ascii_lowercase();
        if !unindexed {
            indexed.push(quote_identifier(&column_name));
        }
        columns.push(text_column(column, column_name));
    }
    if columns.is_empty() {
        return None;
    }
    let id = if columns.iter().any(|c| c.name == "id") {
        "fts_rowid"
    } else {
        "id"
    };
    let mut key = text_column("rowid".into(), id.into());
    key.declared = "INTEGER".into();
    key.sql_type = "INTEGER".into();
    key.kind = Kind::Integer;
    key.pk = 1;
    columns.insert(0, key);
    let index = (!indexed.is_empty()).then(|| Object {
        kind: "index",
        name: format!("{lower}_fts"),
        table: lower.clone(),
        sql: format!(
            "CREATE INDEX {} ON {} USING fts ({})",
            quote_identifier(&format!("{lower}_fts")),
            quote_identifier(&lower),
            indexed.join(", ")
        ),
    });
    notes.push(format!(
        "virtual table {name} (FTS5) becomes table {lower} ({id} = its rowid) with a full-text \
         index {lower}_fts; rewrite MATCH queries with fts_match"
    ));
    Some((
        Table {
            source: name.to_string(),
            name: lower,
            columns,
            rowid_column: Some(0),
            without_rowid: false,
            autoincrement: false,
            uniques: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        },
        index,
    ))
}

fn text_column(source: String, name: String) -> Column {
    Column {
        source,
        name,
        declared: "TEXT".into(),
        sql_type: "TEXT".into(),
        kind: Kind::Text(None),
        not_null: false,
        default: None,
        pk: 0,
        generated: 0,
    }
}

/// The comma-separated arguments of `USING fts5 (...)`, commas inside quotes kept.
fn split_arguments(text: &str) -> Vec<String> {
    let mut arguments = vec![String::new()];
    let mut quote = None;
    for c in text.chars() {
        match (quote, c) {
            (None, '\'' | '"' | '`') => quote = Some(c),
            (Some(q), _) if q == c => quote = None,
            (None, ',') => {
                arguments.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = arguments.last_mut() {
            last.push(c);
        }
    }
    arguments
}
