//! Triggers through the public API: they survive closing and reopening the database, show in
//! the schema, make prepared statements re-plan when created or dropped, and a chain of
//! triggers deeper than the limit is an error rather than a stack overflow.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{Database, SchemaKind};

fn count(conn: &basalt::Connection, sql: &str) -> i64 {
    conn.query_row(sql, (), |row| row.get(0)).unwrap()
}

#[test]
fn triggers_survive_reopening_the_database() {
    let dir = std::env::temp_dir().join(format!("basalt-triggers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("triggers.basalt");
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER);
             CREATE TABLE log (id INTEGER, v INTEGER);
             CREATE TRIGGER t_log AFTER INSERT ON t WHEN new.v > 0 BEGIN INSERT INTO log VALUES (new.id, new.v); END;
             CREATE TRIGGER t_gone BEFORE DELETE ON t BEGIN DELETE FROM log WHERE id = old.id; END;",
        )
        .unwrap();
    }
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute("INSERT INTO t VALUES (1, 10), (2, -1), (3, 30)", ())
            .unwrap();
        assert_eq!(count(&conn, "SELECT count(*) FROM log"), 2);
        conn.execute("DELETE FROM t WHERE id = 1", ()).unwrap();
        assert_eq!(count(&conn, "SELECT sum(v) FROM log"), 30);
        let triggers: Vec<(String, String)> = conn
            .schema_objects()
            .unwrap()
            .into_iter()
            .filter(|object| object.kind == SchemaKind::Trigger)
            .map(|object| (object.name, object.sql))
            .collect();
        assert_eq!(triggers.len(), 2);
        assert_eq!(
            triggers[0].1,
            "CREATE TRIGGER t_gone BEFORE DELETE ON t FOR EACH ROW BEGIN DELETE FROM log WHERE id = old.id; END"
        );
        assert!(triggers[1].1.contains("WHEN new.v > 0"));
        conn.execute("DROP TRIGGER t_log", ()).unwrap();
    }
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute("INSERT INTO t VALUES (4, 40)", ()).unwrap();
        assert_eq!(count(&conn, "SELECT count(*) FROM log"), 1);
        let error = conn.execute("DROP TRIGGER t_log", ()).unwrap_err();
        assert_eq!(error.code(), "42704");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn prepared_statements_replan_when_triggers_change() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch("CREATE TABLE t (v INTEGER); CREATE TABLE log (v INTEGER);")
        .unwrap();
    let mut insert = conn.prepare("INSERT INTO t VALUES (?)").unwrap();
    insert.execute((1,)).unwrap();
    conn.execute(
        "CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.v); END",
        (),
    )
    .unwrap();
    insert.execute((2,)).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM log"), 1);
    conn.execute("DROP TRIGGER t_log", ()).unwrap();
    insert.execute((3,)).unwrap();
    assert_eq!(count(&conn, "SELECT count(*) FROM log"), 1);
    assert_eq!(count(&conn, "SELECT count(*) FROM t"), 3);
}

/// `tables` tables, each with a trigger copying its inserts into the next.
fn chain(conn: &basalt::Connection, tables: usize) {
    for index in 0..tables {
        conn.execute(&format!("CREATE TABLE c{index} (v INTEGER)"), ())
            .unwrap();
    }
    for index in 0..tables - 1 {
        conn.execute(
            &format!(
                "CREATE TRIGGER c{index}_next AFTER INSERT ON c{index} BEGIN INSERT INTO c{} VALUES (new.v + 1); END",
                index + 1
            ),
            (),
        )
        .unwrap();
    }
}

#[test]
fn trigger_chains_stop_at_the_depth_limit() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    chain(&conn, 30);
    conn.execute("INSERT INTO c0 VALUES (0)", ()).unwrap();
    assert_eq!(count(&conn, "SELECT v FROM c29"), 29);

    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    chain(&conn, 40);
    let error = conn.execute("INSERT INTO c0 VALUES (0)", ()).unwrap_err();
    assert_eq!(error.code(), "54001");
    // The failed statement left nothing behind.
    assert_eq!(count(&conn, "SELECT count(*) FROM c1"), 0);
}
