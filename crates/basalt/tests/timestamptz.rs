//! TIMESTAMPTZ through the public API: values bind as `Value::TimestampTz` (microseconds
//! since 1970-01-01 UTC) and come back as `ValueRef::TimestampTz` with the same instant;
//! their text follows the session's `SET TIME ZONE`; a timestamptz column with an index
//! over many pages survives closing and reopening the database, answers range queries
//! through the index, and sorts the same when the sort spills to disk.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{DataType, Database, Value, ValueRef};

/// 2024-03-10 12:00:00 UTC.
const NOON_UTC: i64 = 1_710_072_000_000_000;
const HOUR: i64 = 3_600_000_000;

fn texts(conn: &basalt::Connection, sql: &str) -> Vec<String> {
    let mut statement = conn.prepare(sql).unwrap();
    let mut rows = statement.query(()).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push(row.get::<String>(0).unwrap());
    }
    out
}

#[test]
fn values_bind_and_read_as_instants_shown_in_the_session_zone() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    let value: Value = conn
        .query_row("SELECT '2024-03-10 13:00:00+01'::timestamptz", (), |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(value, Value::TimestampTz(NOON_UTC));
    // A bound instant comes back unchanged, whatever the zone.
    conn.execute_batch("SET TIME ZONE 'America/New_York'")
        .unwrap();
    let (back, text): (Value, String) = conn
        .query_row(
            "SELECT ?::timestamptz, CAST(?::timestamptz AS text)",
            (Value::TimestampTz(NOON_UTC), Value::TimestampTz(NOON_UTC)),
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(back, Value::TimestampTz(NOON_UTC));
    assert_eq!(text, "2024-03-10 08:00:00-04");
    let mut statement = conn.prepare("SELECT now()").unwrap();
    let mut rows = statement.query(()).unwrap();
    let row = rows.next().unwrap().unwrap();
    assert!(matches!(row.get_ref(0).unwrap(), ValueRef::TimestampTz(_)));
    drop(rows);
    // A parameter compared with a timestamptz column is described as one.
    conn.execute_batch("CREATE TABLE t (at timestamptz)")
        .unwrap();
    let described = conn
        .session()
        .prepare_named("q", "SELECT at FROM t WHERE at > $1")
        .unwrap();
    assert_eq!(described.parameters[0].data_type, DataType::TimestampTz);
    // Text parameters are read in the session zone.
    conn.execute("INSERT INTO t VALUES (?)", ("2024-03-10 08:00",))
        .unwrap();
    let stored: Value = conn
        .query_row("SELECT at FROM t", (), |row| row.get(0))
        .unwrap();
    assert_eq!(stored, Value::TimestampTz(NOON_UTC));
}

#[test]
fn an_indexed_column_survives_reopening_and_spilling() {
    let dir = std::env::temp_dir().join(format!("basalt-timestamptz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("timestamptz.basalt");
    let rows = 12_000_i64;
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE ev (id INTEGER PRIMARY KEY, at TIMESTAMPTZ NOT NULL);
             CREATE INDEX ev_at ON ev (at);",
        )
        .unwrap();
        // Inserted in descending time so that neither the table nor the index order comes
        // for free; every tenth row bound as a Value.
        for id in 0..rows {
            let at = NOON_UTC - id * HOUR;
            if id % 10 == 0 {
                conn.execute(
                    "INSERT INTO ev VALUES (?, ?)",
                    (Value::Integer(id), Value::TimestampTz(at)),
                )
                .unwrap();
            } else {
                conn.execute(
                    "INSERT INTO ev VALUES (?, ?::timestamptz + ? * interval '-1 hour')",
                    (id, "2024-03-10 12:00:00+00", id),
                )
                .unwrap();
            }
        }
    }
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch("SET TIME ZONE 'Europe/Berlin'").unwrap();
        assert_eq!(
            texts(&conn, "SELECT max(at) FROM ev"),
            ["2024-03-10 13:00:00+01"]
        );
        // One day of the Berlin calendar, through the index.
        let plan = texts(
            &conn,
            "EXPLAIN SELECT count(*) FROM ev WHERE at >= '2024-03-01' AND at < '2024-03-02'",
        )
        .join("\n");
        assert!(plan.contains("ev_at"), "{plan}");
        assert_eq!(
            texts(
                &conn,
                "SELECT count(*) FROM ev WHERE at >= '2024-03-01' AND at < '2024-03-02'"
            ),
            ["24"]
        );
        let first: Value = conn
            .query_row(
                "SELECT at FROM ev WHERE at > '2024-03-01 00:30' ORDER BY at LIMIT 1",
                (),
                |row| row.get(0),
            )
            .unwrap();
        // 00:30 Berlin is 23:30 UTC; the rows fall on whole UTC hours.
        assert_eq!(first, Value::TimestampTz(NOON_UTC - (9 * 24 + 12) * HOUR));
        // A sort of every row under a small memory budget spills and keeps the order.
        conn.execute_batch("SET work_mem = '64kB'").unwrap();
        let mut statement = conn
            .prepare("SELECT id, at FROM ev ORDER BY at DESC, id")
            .unwrap();
        let mut result = statement.query(()).unwrap();
        let mut expected_id = 0;
        while let Some(row) = result.next().unwrap() {
            assert_eq!(row.get::<i64>(0).unwrap(), expected_id);
            assert!(matches!(
                row.get_ref(1).unwrap(),
                ValueRef::TimestampTz(at) if at == NOON_UTC - expected_id * HOUR
            ));
            expected_id += 1;
        }
        assert_eq!(expected_id, rows);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sessions_interleaving_on_one_thread_each_keep_their_zone() {
    let db = Database::open_in_memory().unwrap();
    let berlin = db.connect();
    let kolkata = db.connect();
    berlin
        .execute_batch("SET TIME ZONE 'Europe/Berlin'")
        .unwrap();
    kolkata
        .execute_batch("SET TIME ZONE 'Asia/Kolkata'")
        .unwrap();
    // Text computed by the statements themselves, over several batches each, pulled in turn.
    let sql = "SELECT (timestamptz '2024-01-10 12:00+00' + i * interval '1 minute')::text \
               FROM generate_series(1, 5000) AS g(i)";
    let mut first = berlin.prepare(sql).unwrap();
    let mut second = kolkata.prepare(sql).unwrap();
    let mut first_rows = first.query(()).unwrap();
    let mut second_rows = second.query(()).unwrap();
    let mut pulled = 0;
    loop {
        let a = first_rows
            .next()
            .unwrap()
            .map(|row| row.get::<String>(0).unwrap());
        let b = second_rows
            .next()
            .unwrap()
            .map(|row| row.get::<String>(0).unwrap());
        match (a, b) {
            (Some(a), Some(b)) => {
                assert!(a.ends_with("+01"), "{a}");
                assert!(b.ends_with("+05:30"), "{b}");
                pulled += 1;
            }
            (None, None) => break,
            other => panic!("uneven results: {other:?}"),
        }
    }
    assert_eq!(pulled, 5000);
}
