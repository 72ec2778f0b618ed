//! INTERVAL and UUID columns through the public API: their values (and the indexes on them)
//! are stored in the database file and read back unchanged after closing and reopening it,
//! results come back as `ValueRef::Interval` / `ValueRef::Uuid` whose text is PostgreSQL's,
//! and text parameters convert to both types.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::Interval;
use basalt::{Database, Value, ValueRef};

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
fn interval_and_uuid_columns_survive_reopening_the_database() {
    let dir = std::env::temp_dir().join(format!("basalt-interval-uuid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("interval-uuid.basalt");
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE spans (id UUID PRIMARY KEY, span INTERVAL NOT NULL);
             CREATE INDEX spans_by_span ON spans (span);",
        )
        .unwrap();
        let error = conn
            .execute("INSERT INTO spans VALUES ('a0eebc99-9c0b', '1 day')", ())
            .unwrap_err();
        assert_eq!(error.code(), "22P02", "{error}");
        let error = conn
            .execute(
                "INSERT INTO spans VALUES (gen_random_uuid(), '1 fortnight')",
                (),
            )
            .unwrap_err();
        assert_eq!(error.code(), "22007", "{error}");
        conn.execute_batch(
            "INSERT INTO spans VALUES
               ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 year 2 mons 3 days 04:05:06.5'),
               ('{00000000-0000-0000-0000-000000000001}', '-1 days +01:00:00'),
               ('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', '30 days')",
        )
        .unwrap();
        conn.execute(
            "INSERT INTO spans VALUES (?, ?)",
            (
                "12345678123456781234567812345678",
                "-178956970 years -8 mons",
            ),
        )
        .unwrap();
    }
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        assert_eq!(
            texts(&conn, "SELECT span FROM spans ORDER BY span"),
            [
                "-178956970 years -8 mons",
                "-1 days +01:00:00",
                "30 days",
                "1 year 2 mons 3 days 04:05:06.5"
            ]
        );
        assert_eq!(
            texts(&conn, "SELECT id FROM spans ORDER BY id"),
            [
                "00000000-0000-0000-0000-000000000001",
                "12345678-1234-5678-1234-567812345678",
                "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
                "ffffffff-ffff-ffff-ffff-ffffffffffff"
            ]
        );
        // The index on span answers an equality that holds across fields: 1 mon = 30 days.
        assert_eq!(
            texts(&conn, "SELECT id FROM spans WHERE span = interval '1 mon'"),
            ["ffffffff-ffff-ffff-ffff-ffffffffffff"]
        );
        let (span, id): (Value, Value) = conn
            .query_row(
                "SELECT span, id FROM spans WHERE id = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
                (),
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap();
        assert_eq!(span, Value::Interval(Interval::new(14, 3, 14_706_500_000)));
        let Value::Uuid(bytes) = id else {
            panic!("not a uuid: {id:?}");
        };
        assert_eq!(bytes[0], 0xa0);
        let mut statement = conn.prepare("SELECT span, id FROM spans LIMIT 1").unwrap();
        let mut rows = statement.query(()).unwrap();
        let row = rows.next().unwrap().unwrap();
        assert!(matches!(row.get_ref(0).unwrap(), ValueRef::Interval(_)));
        assert!(matches!(row.get_ref(1).unwrap(), ValueRef::Uuid(_)));
        // A duplicate primary key is refused whatever spelling it comes in.
        let error = conn
            .execute(
                "INSERT INTO spans VALUES ('A0EEBC999C0B4EF8BB6D6BB9BD380A11', '1 day')",
                (),
            )
            .unwrap_err();
        assert_eq!(error.code(), "23505", "{error}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
