//! What the full-text tests run their statements with: rows of (id, score), a plan's text,
//! the integrity check, and statements run on an indexed table and its unindexed twin.

#![allow(dead_code, reason = "test helpers: each test file uses some of them")]

use basalt::{Connection, Value};

/// Each row's id and, when the statement selects one, its score, with `query` as `$1`.
pub fn rows(conn: &Connection, sql: &str, query: &str) -> Vec<(i64, Option<f64>)> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut result = statement.query(vec![Value::Text(query.into())]).unwrap();
    let mut out = Vec::new();
    while let Some(row) = result.next().unwrap() {
        let score = row.get::<Option<f64>>(1).ok().flatten();
        out.push((row.get::<i64>(0).unwrap(), score));
    }
    out
}

/// `EXPLAIN sql` with `query` as `$1`, one line per plan line.
pub fn plan(conn: &Connection, sql: &str, query: &str) -> String {
    let mut statement = conn.prepare(&format!("EXPLAIN {sql}")).unwrap();
    let mut result = statement.query(vec![Value::Text(query.into())]).unwrap();
    let mut out = String::new();
    while let Some(row) = result.next().unwrap() {
        out.push_str(&row.get::<String>(0).unwrap());
        out.push('\n');
    }
    out
}

/// The integrity check says `ok`: every index agrees with its table.
pub fn integrity(conn: &Connection) {
    let mut statement = conn.prepare("PRAGMA integrity_check").unwrap();
    let mut result = statement.query(vec![]).unwrap();
    let row = result.next().unwrap().unwrap();
    assert_eq!(row.get::<String>(0).unwrap(), "ok");
}

/// A document's text, NULL for `None`.
pub fn text_value(text: Option<String>) -> Value {
    text.map_or(Value::Null, Value::Text)
}

/// Runs `sql` with `params` on `docs` and on its twin `plain` (`{t}` names the table).
pub fn both(conn: &Connection, sql: &str, params: &[Value]) {
    for table in ["docs", "plain"] {
        conn.execute(&sql.replace("{t}", table), params.to_vec())
            .unwrap();
    }
}
