//! Every Basalt type on the wire: its OID, its text form (simple query), its binary form
//! (tokio-postgres reads results in binary) and as a binary parameter; vectors and intervals,
//! which tokio-postgres has no Rust type for, through the hand-driven client.

mod common;

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use common::{TestServer, frontend, kinds};
use tokio_postgres::SimpleQueryMessage;
use tokio_postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

type BoxError = Box<dyn std::error::Error + Sync + Send>;

/// A NUMERIC in PostgreSQL's binary form (`numeric_send` / `numeric_recv`), held as its text:
/// tokio-postgres has no numeric type of its own.
#[derive(Debug, PartialEq)]
struct PgNumeric(String);

impl<'a> FromSql<'a> for PgNumeric {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        let word = |at: usize| -> Result<u16, BoxError> {
            Ok(u16::from_be_bytes([
                *raw.get(at).ok_or("short")?,
                *raw.get(at + 1).ok_or("short")?,
            ]))
        };
        let count = usize::from(word(0)?);
        let weight = i32::from(word(2)? as i16);
        let negative = word(4)? == 0x4000;
        let scale = usize::from(word(6)?);
        let mut digits = String::new();
        for i in 0..count {
            digits.push_str(&format!("{:04}", word(8 + 2 * i)?));
        }
        // The digits stand for digits × 10^(4 × (weight + 1 − count)).
        let exponent = 4 * (weight + 1 - count as i32);
        let (int, frac) = if exponent >= 0 {
            (digits + &"0".repeat(exponent as usize), String::new())
        } else {
            let frac_len = (-exponent) as usize;
            let padded = format!("{}{digits}", "0".repeat(frac_len));
            let (int, frac) = padded.split_at(padded.len() - frac_len);
            (int.to_owned(), frac.to_owned())
        };
        let int = int.trim_start_matches('0');
        let mut frac = frac.trim_end_matches('0').to_owned();
        while frac.len() < scale {
            frac.push('0');
        }
        let sign = if negative { "-" } else { "" };
        let int = if int.is_empty() { "0" } else { int };
        Ok(PgNumeric(if frac.is_empty() {
            format!("{sign}{int}")
        } else {
            format!("{sign}{int}.{frac}")
        }))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }
}

impl ToSql for PgNumeric {
    fn to_sql(&self, _: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, BoxError> {
        let number: basalt::Numeric = self.0.parse()?;
        out.extend_from_slice(&number.to_pg_binary());
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }

    to_sql_checked!();
}

const CREATE: &str = "CREATE TABLE every (
    id INTEGER PRIMARY KEY, b BOOLEAN, i INTEGER, r REAL, n NUMERIC, t TEXT, v VARCHAR(10),
    y BYTEA, d DATE, ts TIMESTAMP, iv INTERVAL, j JSON, jb JSONB, u UUID, vec VECTOR(3))";

const ROW: &str = "INSERT INTO every VALUES (1, true, -42, 1.5, 12.25, 'tëxt', 'short',
    '\\x01ff'::BYTEA, DATE '2024-02-29', TIMESTAMP '2024-02-29 13:14:15.5', INTERVAL '1 day 02:03:04',
    '{\"b\": 1, \"a\": [1, 2]}'::JSON, '{\"b\": 1, \"a\": [1, 2]}'::JSONB,
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID, '[1,2.5,-3]'::VECTOR(3))";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_in_text_and_binary() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client.batch_execute(CREATE).await.expect("create");
    client.batch_execute(ROW).await.expect("insert");
    client
        .batch_execute("INSERT INTO every (id) VALUES (2)")
        .await
        .expect("insert nulls");

    // Text: PostgreSQL's output functions.
    let messages = client
        .simple_query("SELECT b, i, r, n, t, v, y, d, ts, iv, j, jb, u, vec FROM every ORDER BY id")
        .await
        .expect("select");
    let rows: Vec<Vec<Option<String>>> = messages
        .iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => Some(
                (0..row.len())
                    .map(|index| row.get(index).map(str::to_owned))
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    let expected = [
        "t",
        "-42",
        "1.5",
        "12.25",
        "tëxt",
        "short",
        "\\x01ff",
        "2024-02-29",
        "2024-02-29 13:14:15.5",
        "1 day 02:03:04",
        "{\"b\": 1, \"a\": [1, 2]}",
        "{\"a\": [1, 2], \"b\": 1}",
        "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        "[1,2.5,-3]",
    ];
    let first: Vec<&str> = rows[0]
        .iter()
        .map(|v| v.as_deref().unwrap_or("NULL"))
        .collect();
    assert_eq!(first, expected);
    assert!(rows[1].iter().all(Option::is_none));

    // Binary, with the OIDs reported in the RowDescription.
    let statement = client
        .prepare("SELECT b, i, r, n, t, v, y, d, ts, j, jb, u FROM every WHERE id = $1")
        .await
        .expect("prepare");
    let types: Vec<Type> = statement
        .columns()
        .iter()
        .map(|column| column.type_().clone())
        .collect();
    assert_eq!(
        types,
        [
            Type::BOOL,
            Type::INT8,
            Type::FLOAT8,
            Type::NUMERIC,
            Type::TEXT,
            Type::TEXT,
            Type::BYTEA,
            Type::DATE,
            Type::TIMESTAMP,
            Type::JSON,
            Type::JSONB,
            Type::UUID
        ]
    );
    let row = client
        .query_one(&statement, &[&1i64])
        .await
        .expect("binary row");
    let date = NaiveDate::from_ymd_opt(2024, 2, 29).expect("date");
    let timestamp: NaiveDateTime = date.and_hms_milli_opt(13, 14, 15, 500).expect("timestamp");
    let uuid = uuid::Uuid::parse_str("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11").expect("uuid");
    let json = serde_json::json!({"a": [1, 2], "b": 1});
    assert!(row.get::<_, bool>(0));
    assert_eq!(row.get::<_, i64>(1), -42);
    assert_eq!(row.get::<_, f64>(2), 1.5);
    assert_eq!(row.get::<_, PgNumeric>(3), PgNumeric("12.25".to_owned()));
    assert_eq!(row.get::<_, &str>(4), "tëxt");
    assert_eq!(row.get::<_, &str>(5), "short");
    assert_eq!(row.get::<_, &[u8]>(6), [1, 255]);
    assert_eq!(row.get::<_, NaiveDate>(7), date);
    assert_eq!(row.get::<_, NaiveDateTime>(8), timestamp);
    assert_eq!(row.get::<_, serde_json::Value>(9), json);
    assert_eq!(row.get::<_, serde_json::Value>(10), json);
    assert_eq!(row.get::<_, uuid::Uuid>(11), uuid);
    let nulls = client
        .query_one(&statement, &[&2i64])
        .await
        .expect("null row");
    assert_eq!(nulls.get::<_, Option<bool>>(0), None);
    assert_eq!(nulls.get::<_, Option<i64>>(1), None);

    // Binary parameters of each type, read back.
    let insert = client
        .prepare("INSERT INTO every (id, b, i, r, n, t, v, y, d, ts, j, jb, u) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)")
        .await
        .expect("prepare insert");
    client
        .execute(
            &insert,
            &[
                &3i64,
                &false,
                &i64::MIN,
                &-0.25f64,
                &PgNumeric("-12345678901234567890.120".to_owned()),
                &"ünï",
                &"tiny",
                &vec![0u8, 1, 2],
                &date,
                &timestamp,
                &json,
                &json,
                &uuid,
            ],
        )
        .await
        .expect("insert parameters");
    let row = client
        .query_one(&statement, &[&3i64])
        .await
        .expect("read back");
    assert!(!row.get::<_, bool>(0));
    assert_eq!(row.get::<_, i64>(1), i64::MIN);
    assert_eq!(row.get::<_, f64>(2), -0.25);
    assert_eq!(
        row.get::<_, PgNumeric>(3),
        PgNumeric("-12345678901234567890.120".to_owned())
    );
    assert_eq!(row.get::<_, &str>(4), "ünï");
    assert_eq!(row.get::<_, &[u8]>(6), [0, 1, 2]);
    assert_eq!(row.get::<_, NaiveDate>(7), date);
    assert_eq!(row.get::<_, NaiveDateTime>(8), timestamp);
    assert_eq!(row.get::<_, serde_json::Value>(10), json);
    assert_eq!(row.get::<_, uuid::Uuid>(11), uuid);
}

/// TIME is OID 1083: text `HH:MM:SS[.ffffff]`, binary int8 microseconds since midnight
/// (time_send), binary parameters read back; `TIME(3)` reports typmod 3 and rounds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_in_text_and_binary() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute(
            "CREATE TABLE clock (id INTEGER PRIMARY KEY, at TIME, ms TIME(3));
             INSERT INTO clock VALUES (1, '13:45:10.5', '01:02:03.4567'), (2, '24:00', NULL)",
        )
        .await
        .expect("create");
    let messages = client
        .simple_query("SELECT at, ms FROM clock ORDER BY id")
        .await
        .expect("select");
    let cells: Vec<Option<String>> = messages
        .iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => Some(
                (0..row.len())
                    .map(|index| row.get(index).map(str::to_owned))
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(
        cells,
        [
            Some("13:45:10.5".to_owned()),
            Some("01:02:03.457".to_owned()),
            Some("24:00:00".to_owned()),
            None
        ]
    );
    let statement = client
        .prepare("SELECT at, ms FROM clock WHERE id = $1")
        .await
        .expect("prepare");
    assert_eq!(statement.columns()[0].type_(), &Type::TIME);
    let row = client.query_one(&statement, &[&1i64]).await.expect("row");
    let at = NaiveTime::from_hms_milli_opt(13, 45, 10, 500).expect("time");
    assert_eq!(row.get::<_, NaiveTime>(0), at);
    assert_eq!(
        row.get::<_, NaiveTime>(1),
        NaiveTime::from_hms_milli_opt(1, 2, 3, 457).expect("time")
    );
    let bound = NaiveTime::from_hms_micro_opt(23, 59, 58, 123_456).expect("time");
    client
        .execute("INSERT INTO clock VALUES (3, $1, $1)", &[&bound])
        .await
        .expect("bind");
    let row = client.query_one(&statement, &[&3i64]).await.expect("row");
    assert_eq!(row.get::<_, NaiveTime>(0), bound);
    assert_eq!(
        row.get::<_, NaiveTime>(1),
        NaiveTime::from_hms_milli_opt(23, 59, 58, 123).expect("time")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_and_intervals_as_pgvector_and_postgresql_send_them() {
    let server = TestServer::start().await;
    let mut raw = server.raw().await;
    raw.send(&[frontend::query(CREATE), frontend::query(ROW)])
        .await;
    raw.read_until_ready().await;
    raw.read_until_ready().await;

    // Binary results: vector_send and interval_send.
    raw.send(&[
        frontend::parse("", "SELECT vec, iv FROM every WHERE id = 1", &[]),
        frontend::bind("", "", &[], &[], &[1]),
        frontend::describe(b'P', ""),
        frontend::execute("", 0),
        frontend::sync(),
    ])
    .await;
    let replies = raw.read_until_ready().await;
    assert_eq!(kinds(&replies), "12TDCZ");
    let description = &replies[2].body;
    // Vector's OID is 16385 (pgvector's is assigned by CREATE EXTENSION).
    let vector_oid = u32::from_be_bytes(
        description[2 + 4 + 4 + 2..2 + 4 + 4 + 2 + 4]
            .try_into()
            .expect("oid"),
    );
    assert_eq!(vector_oid, 16_385);
    let fields = replies[3].fields();
    let mut vector = vec![0, 3, 0, 0];
    for element in [1.0f32, 2.5, -3.0] {
        vector.extend_from_slice(&element.to_be_bytes());
    }
    assert_eq!(fields[0].as_deref(), Some(vector.as_slice()));
    let mut interval = Vec::new();
    interval.extend_from_slice(&((2 * 3600 + 3 * 60 + 4) * 1_000_000i64).to_be_bytes());
    interval.extend_from_slice(&1i32.to_be_bytes());
    interval.extend_from_slice(&0i32.to_be_bytes());
    assert_eq!(fields[1].as_deref(), Some(interval.as_slice()));

    // Binary parameters: a vector and an interval read back in text; text parameters too.
    let mut month = Vec::new();
    month.extend_from_slice(&0i64.to_be_bytes());
    month.extend_from_slice(&0i32.to_be_bytes());
    month.extend_from_slice(&14i32.to_be_bytes());
    raw.send(&[
        frontend::parse(
            "ins",
            "INSERT INTO every (id, vec, iv, d, b) VALUES ($1, $2, $3, $4, $5)",
            &[],
        ),
        frontend::bind(
            "",
            "ins",
            &[0, 1, 1, 0, 0],
            &[
                Some(b"5"),
                Some(&vector),
                Some(&month),
                Some(b"2001-02-03"),
                Some(b"yes"),
            ],
            &[],
        ),
        frontend::execute("", 0),
        frontend::sync(),
        frontend::query("SELECT vec, iv, d, b FROM every WHERE id = 5"),
    ])
    .await;
    let replies = raw.read_until_ready().await;
    assert_eq!(kinds(&replies), "12CZ", "{replies:?}");
    assert_eq!(replies[2].tag(), "INSERT 0 1");
    let replies = raw.read_until_ready().await;
    let text: Vec<Option<String>> = replies[1]
        .fields()
        .into_iter()
        .map(|field| field.map(|bytes| String::from_utf8(bytes).expect("utf-8")))
        .collect();
    assert_eq!(
        text,
        [
            Some("[1,2.5,-3]".to_owned()),
            Some("1 year 2 mons".to_owned()),
            Some("2001-02-03".to_owned()),
            Some("t".to_owned())
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_reports_what_clients_check() {
    let server = TestServer::start().await;
    let stream = tokio::net::TcpStream::connect(server.address)
        .await
        .expect("connect");
    let mut raw = common::RawClient::from_stream(stream);
    raw.startup(&[
        ("user", "alice"),
        ("database", "x"),
        ("application_name", "probe"),
    ])
    .await;
    let messages = raw.read_until_ready().await;
    let parameters: std::collections::HashMap<String, String> = messages
        .iter()
        .filter(|message| message.kind == b'S')
        .map(|message| {
            let mut parts = message.body.split(|byte| *byte == 0);
            let name = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
            let value = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
            (name, value)
        })
        .collect();
    for (name, value) in [
        ("server_version", "15.0"),
        ("server_encoding", "UTF8"),
        ("client_encoding", "UTF8"),
        ("DateStyle", "ISO, MDY"),
        ("standard_conforming_strings", "on"),
        ("integer_datetimes", "on"),
        ("TimeZone", "UTC"),
        ("application_name", "probe"),
        ("is_superuser", "on"),
        ("session_authorization", "alice"),
    ] {
        assert_eq!(
            parameters.get(name).map(String::as_str),
            Some(value),
            "{name}"
        );
    }
    assert!(
        messages.iter().any(|message| message.kind == b'K'),
        "BackendKeyData"
    );
    assert_eq!(kinds(&messages).chars().next(), Some('R'));
    assert_eq!(common::status(&messages), 'I');
}
