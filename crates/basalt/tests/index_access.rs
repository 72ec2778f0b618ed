//! Indexes through their access method (`exec::index_access`): a method's `WITH (...)`
//! options are kept in the catalog across reopening, VACUUM and REINDEX; and a table of
//! many rows with several indexes stays consistent — integrity check clean, every index
//! scan agreeing with a scan of the table — through each path that writes an index: plain
//! and single-row inserts, updates of indexed columns, upserts, deletes, cascading foreign
//! keys, CREATE INDEX on a full table, REINDEX and VACUUM.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

#[path = "common/scratch.rs"]
mod scratch;

use basalt::{Connection, Database, SchemaKind};
use scratch::{TempDir, rows};

/// The CREATE INDEX text of every explicit index, by name.
fn index_sql(conn: &Connection) -> Vec<String> {
    conn.schema_objects()
        .unwrap()
        .into_iter()
        .filter(|object| object.kind == SchemaKind::Index)
        .map(|object| object.sql)
        .collect()
}

#[test]
fn with_options_are_kept_across_reopen_vacuum_and_reindex() {
    let dir = TempDir::new("index-access-options");
    let path = dir.0.join("db.basalt");
    let expected = vec![
        "CREATE INDEX t_k ON t (k) WITH (fillfactor = 70)".to_string(),
        "CREATE UNIQUE INDEX t_name ON t (name DESC) WITH (deduplicate_items = false, \
         fillfactor = 100)"
            .to_string(),
        "CREATE INDEX t_plain ON t (k, name)".to_string(),
    ];
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER, name TEXT);
             INSERT INTO t SELECT g, g % 10, 'n' || g FROM generate_series(1, 500) AS s(g);
             CREATE INDEX t_k ON t USING btree (k) WITH (FILLFACTOR = 70);
             CREATE UNIQUE INDEX t_name ON t (name DESC)
                 WITH (deduplicate_items = off, fillfactor = 100);
             CREATE INDEX t_plain ON t (k, name);",
        )
        .unwrap();
        assert_eq!(index_sql(&conn), expected);
    }
    let db = Database::open(&path).unwrap();
    let conn = db.connect();
    assert_eq!(index_sql(&conn), expected, "after reopening");
    conn.execute_batch("REINDEX t_k; REINDEX t_name").unwrap();
    assert_eq!(index_sql(&conn), expected, "after REINDEX");
    conn.execute_batch("VACUUM").unwrap();
    assert_eq!(index_sql(&conn), expected, "after VACUUM");
    assert_eq!(rows(&conn, "PRAGMA integrity_check"), ["Text(\"ok\")"]);

    // The listed statements recreate the same indexes, options included.
    let copy = Database::open_in_memory().unwrap().connect();
    for object in conn.schema_objects().unwrap() {
        copy.execute_batch(&object.sql).unwrap();
    }
    assert_eq!(index_sql(&copy), expected);

    // A parameter given twice is refused, as PostgreSQL refuses it, and leaves nothing.
    let error = conn
        .execute_batch("CREATE INDEX t_twice ON t (k) WITH (fillfactor = 70, fillfactor = 80)")
        .unwrap_err();
    assert_eq!(error.code(), "22023", "{error}");
    assert_eq!(index_sql(&conn), expected);
}

/// Probe values of `k`, `score` ranges and codes the consistency check looks up.
const K_PROBES: &[i64] = &[0, 1, 7, 42, 96];

/// Checks the database: the integrity check is clean, and every index answers what a scan
/// of the table answers (the `+ 0` and `|| ''` keep the optimizer off the index).
fn check_consistent(conn: &Connection, stage: &str) {
    assert_eq!(
        rows(conn, "PRAGMA integrity_check"),
        ["Text(\"ok\")"],
        "integrity after {stage}"
    );
    let plan = rows(conn, "EXPLAIN SELECT id FROM t WHERE k = 1").join("\n");
    assert!(
        plan.contains("Index Scan using t_k_name"),
        "{stage}: {plan}"
    );
    for k in K_PROBES {
        assert_eq!(
            rows(
                conn,
                &format!("SELECT id, name FROM t WHERE k = {k} ORDER BY id")
            ),
            rows(
                conn,
                &format!("SELECT id, name FROM t WHERE k + 0 = {k} ORDER BY id")
            ),
            "{stage}: k = {k}"
        );
    }
    for (low, high) in [(0, 50), (1000, 1400), (9000, 10006)] {
        assert_eq!(
            rows(
                conn,
                &format!("SELECT id FROM t WHERE score BETWEEN {low} AND {high} ORDER BY id")
            ),
            rows(
                conn,
                &format!("SELECT id FROM t WHERE score + 0 BETWEEN {low} AND {high} ORDER BY id")
            ),
            "{stage}: score in [{low}, {high}]"
        );
    }
    for code in ["c1", "c777", "c5000", "c11999", "c20001", "x3"] {
        assert_eq!(
            rows(conn, &format!("SELECT id FROM t WHERE code = '{code}'")),
            rows(
                conn,
                &format!("SELECT id FROM t WHERE code || '' = '{code}'")
            ),
            "{stage}: code {code}"
        );
    }
    // Every non-NULL key through the index, in the index's order, against the table.
    assert_eq!(
        rows(conn, "SELECT count(*) FROM t WHERE k >= 0"),
        rows(conn, "SELECT count(*) FROM t WHERE k + 0 >= 0"),
        "{stage}: non-NULL k"
    );
    assert_eq!(
        rows(
            conn,
            "SELECT score, id FROM t ORDER BY score DESC, id LIMIT 50"
        ),
        rows(
            conn,
            "SELECT score, id FROM t ORDER BY score + 0 DESC, id LIMIT 50"
        ),
        "{stage}: top scores"
    );
    // The child's foreign key index against a scan of the child.
    assert_eq!(
        rows(conn, "SELECT count(*) FROM child WHERE parent = 42"),
        rows(conn, "SELECT count(*) FROM child WHERE parent + 0 = 42"),
        "{stage}: child rows of 42"
    );
}

#[test]
fn many_rows_stay_consistent_through_every_index_path() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, k INTEGER,
             name TEXT, score INTEGER);
         CREATE INDEX t_k_name ON t (k, name);
         CREATE INDEX t_score ON t (score DESC) WITH (fillfactor = 90);
         CREATE TABLE child (id INTEGER PRIMARY KEY,
             parent INTEGER REFERENCES t (id) ON DELETE CASCADE, note TEXT);
         CREATE INDEX child_parent ON child (parent);
         INSERT INTO t SELECT g, 'c' || g, CASE WHEN g % 50 = 0 THEN NULL ELSE g % 97 END,
             'n' || (g % 1000), (g * 7919) % 10007 FROM generate_series(1, 10000) AS s(g);
         INSERT INTO child SELECT g, g % 3000 + 1, 'x' FROM generate_series(1, 6000) AS s(g);",
    )
    .unwrap();
    check_consistent(&conn, "bulk insert");

    // Single-row inserts: the path that checks every index before writing.
    conn.execute_batch("BEGIN").unwrap();
    for id in 10_001..12_001i64 {
        conn.execute(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
            (
                id,
                format!("c{id}"),
                id % 97,
                format!("n{}", id % 1000),
                (id * 7919) % 10007,
            ),
        )
        .unwrap();
    }
    conn.execute_batch("COMMIT").unwrap();
    // A duplicate code fails and leaves every index as it was.
    let error = conn
        .execute("INSERT INTO t VALUES (20001, 'c5000', 1, 'dup', 1)", ())
        .unwrap_err();
    assert_eq!(error.code(), "23505");
    check_consistent(&conn, "single-row inserts");

    conn.execute_batch(
        "UPDATE t SET k = k + 1, score = (score + 13) % 10007 WHERE id % 3 = 0;
         UPDATE t SET name = 'renamed' || id WHERE id % 7 = 0;
         UPDATE t SET code = 'x' || id WHERE id % 11 = 0;
         UPDATE t SET id = id + 20000 WHERE id % 13 = 0 AND id > 11000;",
    )
    .unwrap();
    check_consistent(&conn, "updates");

    conn.execute_batch(
        "INSERT INTO t SELECT g, 'c' || g, g % 5, 'upserted', g FROM generate_series(9000, 13000)
             AS s(g) WHERE g % 13 <> 0 OR g <= 11000
         ON CONFLICT (id) DO UPDATE SET k = excluded.k, name = excluded.name;
         INSERT OR REPLACE INTO t VALUES (3, 'c3', 3, 'replaced', 3), (30000, 'c4', 4, 'r', 4);",
    )
    .unwrap();
    check_consistent(&conn, "upserts");

    conn.execute_batch(
        "DELETE FROM t WHERE id % 5 = 0 AND id < 6000;
         DELETE FROM t WHERE score BETWEEN 2000 AND 2500;",
    )
    .unwrap();
    assert_eq!(
        rows(
            &conn,
            "SELECT count(*) FROM child WHERE parent NOT IN (SELECT id FROM t)"
        ),
        ["Integer(0)"],
        "the cascade removed every orphan"
    );
    check_consistent(&conn, "deletes and cascades");

    conn.execute_batch("CREATE INDEX t_name ON t (name); ANALYZE")
        .unwrap();
    check_consistent(&conn, "CREATE INDEX on a full table");
    conn.execute_batch("REINDEX t_k_name; REINDEX t_score; REINDEX t_name")
        .unwrap();
    check_consistent(&conn, "REINDEX");
    conn.execute_batch("VACUUM").unwrap();
    check_consistent(&conn, "VACUUM");
    conn.execute_batch("DROP INDEX t_name; DELETE FROM t WHERE id % 2 = 0")
        .unwrap();
    check_consistent(&conn, "DROP INDEX and half the rows deleted");
}
