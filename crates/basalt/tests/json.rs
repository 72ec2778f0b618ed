//! JSON through the public API: json and jsonb columns keep their values across closing
//! and reopening the database file, text parameters are validated (json) or normalized
//! (jsonb) on the way into a column, and results surface as `ValueRef::Json` /
//! `ValueRef::Jsonb` holding PostgreSQL's text output.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{Database, ValueRef};

#[test]
fn json_columns_survive_updates_and_reopening() {
    let dir = std::env::temp_dir().join(format!("basalt-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("json.basalt");
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, raw JSON, doc JSONB)")
            .unwrap();
        conn.execute(
            "INSERT INTO t VALUES (?, ?, ?)",
            (
                1,
                " {\"b\": 1,\"a\": [1, 2.50]} ",
                "{\"b\": 1,\"a\": [1, 2.50], \"b\": 2}",
            ),
        )
        .unwrap();
        conn.execute("INSERT INTO t VALUES (2, '[]', '{\"k\": \"v\"}')", ())
            .unwrap();
        conn.execute(
            "UPDATE t SET doc = jsonb_build_object('k', doc -> 'k', 'n', 3) WHERE id = 2",
            (),
        )
        .unwrap();
        let error = conn
            .execute("INSERT INTO t VALUES (3, ?, NULL)", ("{\"a\" 1}",))
            .unwrap_err();
        assert_eq!(error.code(), "22P02", "{error}");
        assert!(error.message().contains("line 1, column 6"), "{error}");
    }
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        let mut statement = conn.prepare("SELECT raw, doc FROM t ORDER BY id").unwrap();
        let mut rows = statement.query(()).unwrap();
        let row = rows.next().unwrap().unwrap();
        assert_eq!(
            row.get_ref(0).unwrap(),
            ValueRef::Json(" {\"b\": 1,\"a\": [1, 2.50]} ")
        );
        assert_eq!(
            row.get_ref(1).unwrap(),
            ValueRef::Jsonb("{\"a\": [1, 2.50], \"b\": 2}")
        );
        let text: String = row.get(1).unwrap();
        assert_eq!(text, "{\"a\": [1, 2.50], \"b\": 2}");
        let row = rows.next().unwrap().unwrap();
        assert_eq!(
            row.get_ref(1).unwrap(),
            ValueRef::Jsonb("{\"k\": \"v\", \"n\": 3}")
        );
        drop(rows);
        let kinds: (String, String) = conn
            .query_row(
                "SELECT typeof(raw), typeof(doc) FROM t WHERE id = 1",
                (),
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        assert_eq!(kinds, ("json".to_owned(), "jsonb".to_owned()));
        let found: i64 = conn
            .query_row(
                "SELECT id FROM t WHERE doc @> ? AND doc ->> 'k' = ?",
                ("{\"n\": 3.0}", "v"),
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(found, 2);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The jsonb `?` operator beside `?`, `?N` and `$N` placeholders: a bare `?` after an
/// operand is the operator, anywhere else a parameter, numbered in text order as before.
#[test]
fn key_exists_operator_and_placeholders_together() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, doc JSONB);
         INSERT INTO t VALUES (1, '{\"a\": 1, \"b\": 2}'), (2, '[\"a\", \"c\"]'), (3, '{\"c\": 3}');",
    )
    .unwrap();
    let ids = |sql: &str, params: (&str, i64)| -> Vec<i64> {
        let mut statement = conn.prepare(sql).unwrap();
        let mut rows = statement.query(params).unwrap();
        let mut ids = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            ids.push(row.get(0).unwrap());
        }
        ids
    };
    // The key is the first parameter, the id bound the second.
    assert_eq!(
        ids(
            "SELECT id FROM t WHERE doc ? ? AND id >= ? ORDER BY id",
            ("a", 1)
        ),
        [1, 2]
    );
    assert_eq!(
        ids(
            "SELECT id FROM t WHERE doc?? AND id >= ? ORDER BY id",
            ("c", 3)
        ),
        [3]
    );
    assert_eq!(
        ids(
            "SELECT id FROM t WHERE doc ? $1 AND id > $2 ORDER BY id",
            ("a", 1)
        ),
        [2]
    );
    assert_eq!(
        ids(
            "SELECT id FROM t WHERE id > ?2 AND doc ? ?1 ORDER BY id",
            ("c", 0)
        ),
        [2, 3]
    );
    // `-` and `||` with parameters: an untyped key of `-` is text, an operand of `||` jsonb.
    let doc: String = conn
        .query_row(
            "SELECT (doc - ? || ?)::text FROM t WHERE id = 1",
            ("a", "{\"z\": [1]}"),
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(doc, "{\"b\": 2, \"z\": [1]}");
}
