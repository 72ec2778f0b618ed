//! Helpers for the SQL-level tests that compare whole results or need files: every row of a
//! query as text, and a scratch directory removed when the test ends.

#![allow(
    dead_code,
    clippy::unwrap_used,
    reason = "test helpers: each test file uses some of them"
)]

use std::path::PathBuf;

use basalt::{Connection, Value};

/// Every row of `sql` as text (each value's `Debug` form, joined by `|`), in the query's
/// order.
pub fn rows(conn: &Connection, sql: &str) -> Vec<String> {
    let mut statement = conn.prepare(sql).unwrap();
    let columns = statement.column_count();
    let mut rows = statement.query(()).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        let values: Vec<String> = (0..columns)
            .map(|i| format!("{:?}", row.get::<Value>(i).unwrap()))
            .collect();
        out.push(values.join("|"));
    }
    out
}

/// A fresh directory `basalt-{name}-{pid}` under the system's temporary directory, removed
/// with everything in it when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("basalt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
