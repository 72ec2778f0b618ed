//! TIME through the public API: values bind as `Value::Time` (microseconds since midnight)
//! and come back as `ValueRef::Time`; a `TIME(p)` column rounds what is stored; a TIME
//! column with an index over many pages answers range and equality queries through the
//! index exactly as a full scan of an unindexed twin column does, survives closing and
//! reopening the database, sorts the same when the sort spills to disk, and passes the
//! integrity check.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{DataType, Database, Value, ValueRef};

const MICROS_PER_DAY: i64 = 86_400_000_000;

fn texts(conn: &basalt::Connection, sql: &str) -> Vec<String> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut rows = statement.query(()).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push(row.get::<String>(0).unwrap());
    }
    out
}

fn ids(conn: &basalt::Connection, sql: &str) -> Vec<i64> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut rows = statement.query(()).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push(row.get::<i64>(0).unwrap());
    }
    out
}

#[test]
fn values_bind_and_read_as_microseconds() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    let value: Value = conn
        .query_row("SELECT time '13:45:10.5'", (), |row| row.get(0))
        .unwrap();
    assert_eq!(value, Value::Time(49_510_500_000));
    conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, at TIME(1))")
        .unwrap();
    conn.execute("INSERT INTO t VALUES (1, ?)", (Value::Time(3_723_456_789),))
        .unwrap();
    conn.execute("INSERT INTO t VALUES (2, ?)", ("23:59:59.96",))
        .unwrap();
    assert_eq!(
        texts(&conn, "SELECT at FROM t ORDER BY id"),
        ["01:02:03.5", "24:00:00"]
    );
    let described = conn
        .session()
        .prepare_named("q", "SELECT at FROM t WHERE at > $1")
        .unwrap();
    assert_eq!(
        described.parameters[0].data_type.unmodified(),
        DataType::Time(None)
    );
    let error = conn
        .execute("INSERT INTO t VALUES (3, ?)", ("25:00",))
        .unwrap_err();
    assert_eq!(error.code(), "22008");
}

/// Row `id`'s time: spread over the whole day (and its `24:00:00`) with many duplicates.
fn time_of(id: i64) -> i64 {
    match id % 997 {
        0 => MICROS_PER_DAY,
        1 => 0,
        _ => (id * 7_919_000_123) % MICROS_PER_DAY / 1000 * 1000,
    }
}

#[test]
fn an_indexed_column_matches_a_scan_across_reopening_and_spilling() {
    let dir = std::env::temp_dir().join(format!("basalt-time-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("time.basalt");
    let rows = 12_000_i64;
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE ev (id INTEGER PRIMARY KEY, at TIME NOT NULL, plain TIME NOT NULL);
             CREATE INDEX ev_at ON ev (at);",
        )
        .unwrap();
        conn.execute_batch("BEGIN").unwrap();
        for id in 0..rows {
            let at = Value::Time(time_of(id));
            conn.execute("INSERT INTO ev VALUES (?, ?, ?)", (id, at.clone(), at))
                .unwrap();
        }
        conn.execute_batch("COMMIT").unwrap();
    }
    let db = Database::open(&path).unwrap();
    let conn = db.connect();
    let plan = texts(
        &conn,
        "EXPLAIN SELECT id FROM ev WHERE at >= '06:00' AND at < '06:30'",
    )
    .join("\n");
    assert!(plan.contains("ev_at"), "{plan}");
    let ranges = [
        ("'00:00'", "'00:00:00.001'"),
        ("'06:00'", "'06:30'"),
        ("'11:50'", "'12:10:00.5'"),
        ("'23:00'", "'24:00:00'"),
        ("'23:59:59'", "'24:00:00.000'"),
    ];
    for (low, high) in ranges {
        let through_index = ids(
            &conn,
            &format!("SELECT id FROM ev WHERE at >= {low} AND at < {high} ORDER BY id"),
        );
        let by_scan = ids(
            &conn,
            &format!("SELECT id FROM ev WHERE plain >= {low} AND plain < {high} ORDER BY id"),
        );
        let bound = |text: &str| match conn
            .query_row(&format!("SELECT CAST({text} AS TIME)"), (), |row| {
                row.get::<Value>(0)
            })
            .unwrap()
        {
            Value::Time(v) => v,
            other => panic!("not a time: {other:?}"),
        };
        let (low_micros, high_micros) = (bound(low), bound(high));
        let expected: Vec<i64> = (0..rows)
            .filter(|&id| (low_micros..high_micros).contains(&time_of(id)))
            .collect();
        assert!(!expected.is_empty(), "{low}..{high}");
        assert_eq!(through_index, expected, "{low}..{high}");
        assert_eq!(by_scan, expected, "{low}..{high}");
    }
    // Equality through the index, including 24:00:00 beside 00:00:00.
    let midnight_end = ids(&conn, "SELECT id FROM ev WHERE at = '24:00' ORDER BY id");
    let expected: Vec<i64> = (0..rows)
        .filter(|&id| time_of(id) == MICROS_PER_DAY)
        .collect();
    assert_eq!(midnight_end.len(), 13);
    assert_eq!(midnight_end, expected);
    // A spilled sort gives the order of the values.
    conn.execute_batch("SET work_mem = '64kB'").unwrap();
    let mut statement = conn
        .prepare("SELECT id, at FROM ev ORDER BY at, id")
        .unwrap();
    let mut result = statement.query(()).unwrap();
    let mut expected: Vec<(i64, i64)> = (0..rows).map(|id| (time_of(id), id)).collect();
    expected.sort();
    let mut seen = 0;
    while let Some(row) = result.next().unwrap() {
        let (at, id) = expected[seen];
        assert_eq!(row.get::<i64>(0).unwrap(), id);
        assert!(matches!(row.get_ref(1).unwrap(), ValueRef::Time(v) if v == at));
        seen += 1;
    }
    assert_eq!(seen, expected.len());
    let check: String = conn
        .query_row("PRAGMA integrity_check", (), |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(statement);
    drop(conn);
    drop(db);
    std::fs::remove_dir_all(&dir).unwrap();
}
