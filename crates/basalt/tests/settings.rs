//! Settings through SQL: `PRAGMA` / `SET` / `SHOW` for the connection's busy timeout, the
//! shared page cache's size, synchronous and foreign_keys, each read back as set and each
//! with the effect it names.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{Database, ErrorKind, Value};

fn show(conn: &basalt::Connection, name: &str) -> String {
    let mut statement = conn.prepare(&format!("SHOW {name}")).unwrap();
    let value: Value = statement.query_row((), |row| row.get(0)).unwrap();
    match value {
        Value::Text(text) => text,
        other => panic!("SHOW {name} gave {other:?}"),
    }
}

#[test]
fn busy_timeout_is_per_connection_and_bounds_the_wait_for_the_writer() {
    let db = Database::open_in_memory().unwrap();
    let holder = db.connect();
    let waiter = db.connect();
    holder
        .execute_batch("CREATE TABLE t (x INTEGER); BEGIN; INSERT INTO t VALUES (1)")
        .unwrap();

    waiter.execute("PRAGMA busy_timeout = 0", ()).unwrap();
    assert_eq!(show(&waiter, "busy_timeout"), "0");
    let error = waiter.execute("INSERT INTO t VALUES (2)", ()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Busy, "{error}");

    // A short wait still ends in Busy while the holder keeps its transaction open.
    waiter.execute("SET busy_timeout = 20", ()).unwrap();
    assert_eq!(show(&waiter, "busy_timeout"), "20");
    let error = waiter.execute("INSERT INTO t VALUES (2)", ()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Busy, "{error}");
    // The holder's own setting is untouched.
    assert_ne!(show(&holder, "busy_timeout"), "20");

    holder.execute("COMMIT", ()).unwrap();
    waiter.execute("INSERT INTO t VALUES (2)", ()).unwrap();

    let error = waiter
        .execute("PRAGMA busy_timeout = soon", ())
        .unwrap_err();
    assert_eq!(error.code(), "22023");
}

#[test]
fn cache_size_resizes_the_shared_cache_in_pages_or_kibibytes() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute("PRAGMA cache_size = 512", ()).unwrap();
    let pages: usize = show(&conn, "cache_size").parse().unwrap();
    assert!((512..512 + 64).contains(&pages), "{pages} pages");
    // Shared by every connection of the database.
    let other = db.connect();
    assert_eq!(show(&other, "cache_size"), pages.to_string());

    // Negative: KiB, as in SQLite. 4 MiB of 4 KiB pages is 1024 pages.
    let page_size: usize = show(&conn, "page_size").parse().unwrap();
    conn.execute("PRAGMA cache_size = -4096", ()).unwrap();
    let pages: usize = show(&conn, "cache_size").parse().unwrap();
    let expected = 4096 * 1024 / page_size;
    assert!((expected..expected + 64).contains(&pages), "{pages} pages");

    // A tiny cache still answers queries over a table larger than it.
    conn.execute("PRAGMA cache_size = 1", ()).unwrap();
    conn.execute_batch(
        "CREATE TABLE big (id INTEGER PRIMARY KEY, s TEXT);
         INSERT INTO big SELECT i, 'row ' || i FROM generate_series(1, 20000) AS g(i)",
    )
    .unwrap();
    let mut statement = conn
        .prepare("SELECT count(*), sum(length(s)) FROM big")
        .unwrap();
    let (count, length): (i64, i64) = statement
        .query_row((), |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap();
    assert_eq!(count, 20_000);
    assert!(length > 20_000 * 5);

    for bad in ["many", "1.5"] {
        let error = conn
            .execute(&format!("PRAGMA cache_size = '{bad}'"), ())
            .unwrap_err();
        assert_eq!(error.code(), "22023", "{bad}");
    }
}

#[test]
fn synchronous_and_foreign_keys_read_back_as_set() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    for (set, shown) in [("off", "off"), ("NORMAL", "normal"), ("2", "full")] {
        conn.execute(&format!("PRAGMA synchronous = {set}"), ())
            .unwrap();
        assert_eq!(show(&conn, "synchronous"), shown);
    }
    conn.execute("SET foreign_keys = off", ()).unwrap();
    assert_eq!(show(&conn, "foreign_keys"), "off");
    conn.execute("PRAGMA foreign_keys = 1", ()).unwrap();
    assert_eq!(show(&conn, "foreign_keys"), "on");
}
