//! Sequences through the public API: a sequence's position is stored in the database file
//! and survives closing and reopening it, `currval` belongs to the connection that called
//! `nextval`, and the schema lists sequences first so a dump's table defaults find them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{Database, SchemaKind};

fn number(conn: &basalt::Connection, sql: &str) -> i64 {
    conn.query_row(sql, (), |row| row.get(0)).unwrap()
}

#[test]
fn a_sequence_position_survives_reopening_the_database() {
    let dir = std::env::temp_dir().join(format!("basalt-sequences-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sequences.basalt");
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch("CREATE SEQUENCE s INCREMENT BY 5 START WITH 10")
            .unwrap();
        assert_eq!(number(&conn, "SELECT nextval('s')"), 10);
        assert_eq!(number(&conn, "SELECT nextval('s')"), 15);
    }
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        // currval is per session: the new connection has not called nextval yet.
        let error = conn
            .query_row("SELECT currval('s')", (), |row| row.get::<i64>(0))
            .unwrap_err();
        assert_eq!(error.code(), "55000", "{error}");
        assert_eq!(number(&conn, "SELECT nextval('s')"), 20);
        let objects = conn.schema_objects().unwrap();
        assert_eq!(objects[0].kind, SchemaKind::Sequence);
        assert_eq!(
            objects[0].sql,
            "CREATE SEQUENCE s INCREMENT BY 5 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 10 NO CYCLE"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn currval_belongs_to_the_connection_that_called_nextval() {
    let db = Database::open_in_memory().unwrap();
    let first = db.connect();
    let second = db.connect();
    first.execute("CREATE SEQUENCE s", ()).unwrap();
    assert_eq!(number(&first, "SELECT nextval('s')"), 1);
    assert_eq!(number(&second, "SELECT nextval('s')"), 2);
    assert_eq!(number(&first, "SELECT currval('s')"), 1);
    assert_eq!(number(&second, "SELECT currval('s')"), 2);
}

#[test]
fn a_serial_table_round_trips_through_its_schema_statement() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, name TEXT)", ())
        .unwrap();
    let objects = conn.schema_objects().unwrap();
    // The owned sequence is part of the table's statement, not listed on its own.
    assert_eq!(objects.len(), 1, "{objects:?}");
    assert_eq!(
        objects[0].sql,
        "CREATE TABLE t (\n    id SERIAL PRIMARY KEY,\n    name TEXT\n)"
    );
    let copy = Database::open_in_memory().unwrap().connect();
    copy.execute(&objects[0].sql, ()).unwrap();
    copy.execute("INSERT INTO t (name) VALUES ('a'), ('b')", ())
        .unwrap();
    assert_eq!(number(&copy, "SELECT max(id) FROM t"), 2);
}

#[test]
fn an_identity_table_round_trips_through_its_schema_statement() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute(
        "CREATE TABLE t (id INTEGER GENERATED ALWAYS AS IDENTITY (INCREMENT BY 2 START WITH 7), name TEXT)",
        (),
    )
    .unwrap();
    let objects = conn.schema_objects().unwrap();
    assert_eq!(objects.len(), 1, "{objects:?}");
    let copy = Database::open_in_memory().unwrap().connect();
    copy.execute(&objects[0].sql, ()).unwrap();
    assert_eq!(copy.schema_objects().unwrap()[0].sql, objects[0].sql);
    copy.execute("INSERT INTO t (name) VALUES ('a'), ('b')", ())
        .unwrap();
    assert_eq!(number(&copy, "SELECT max(id) FROM t"), 9);
    let error = copy
        .execute("INSERT INTO t VALUES (1, 'c')", ())
        .unwrap_err();
    assert_eq!(error.code(), "428C9", "{error}");
}

#[test]
fn an_autoincrement_table_does_not_reuse_ids_after_reopening() {
    let dir = std::env::temp_dir().join(format!("basalt-autoincrement-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("autoincrement.basalt");
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT);
             INSERT INTO t (v) VALUES ('a'), ('b'), ('c');
             DELETE FROM t WHERE id >= 2;",
        )
        .unwrap();
    }
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute("INSERT INTO t (v) VALUES ('d')", ()).unwrap();
        assert_eq!(number(&conn, "SELECT max(id) FROM t"), 4);
        let objects = conn.schema_objects().unwrap();
        assert_eq!(objects.len(), 1, "{objects:?}");
        assert!(
            objects[0]
                .sql
                .contains("id INTEGER PRIMARY KEY AUTOINCREMENT"),
            "{}",
            objects[0].sql
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
