//! The session's prepared statements and cursors as drivers use them beyond Parse / Bind /
//! Execute: DEALLOCATE (psycopg sends `DEALLOCATE ALL` after a DROP or ALTER), a statement
//! re-planned with other result types refused at Bind (0A000, as PostgreSQL's plan cache
//! refuses it) instead of sending values under the old types, and a cursor opened by SQL
//! DECLARE described as a portal (psycopg's server-side cursors).

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a failing exchange fails the test"
)]

mod common;

use common::{TestServer, frontend, kinds};

#[tokio::test]
async fn deallocate_forgets_named_statements() {
    let server = TestServer::start().await;
    let mut raw = server.raw().await;
    raw.send(&[
        frontend::parse("s1", "SELECT 1", &[]),
        frontend::parse("s2", "SELECT 2", &[]),
        frontend::parse("s3", "SELECT 3", &[]),
        frontend::sync(),
    ])
    .await;
    assert_eq!(kinds(&raw.read_until_ready().await), "111Z");

    raw.send(&[frontend::query("DEALLOCATE s1")]).await;
    let replies = raw.read_until_ready().await;
    assert_eq!(kinds(&replies), "CZ");
    assert_eq!(replies[0].tag(), "DEALLOCATE");
    let bind_s1 = [
        frontend::bind("", "s1", &[], &[], &[]),
        frontend::execute("", 0),
        frontend::sync(),
    ];
    raw.send(&bind_s1).await;
    let replies = raw.read_until_ready().await;
    assert_eq!(kinds(&replies), "EZ");
    assert_eq!(replies[0].error_field(b'C').as_deref(), Some("26000"));

    // Another name: 26000, as in PostgreSQL.
    raw.send(&[frontend::query("DEALLOCATE PREPARE s1")]).await;
    let replies = raw.read_until_ready().await;
    assert_eq!(replies[0].error_field(b'C').as_deref(), Some("26000"));

    raw.send(&[frontend::query("DEALLOCATE ALL")]).await;
    let replies = raw.read_until_ready().await;
    assert_eq!(replies[0].tag(), "DEALLOCATE ALL");
    for name in ["s2", "s3"] {
        raw.send(&[frontend::bind("", name, &[], &[], &[]), frontend::sync()])
            .await;
        let replies = raw.read_until_ready().await;
        assert_eq!(replies[0].error_field(b'C').as_deref(), Some("26000"));
    }
    // The name is free again.
    raw.send(&[frontend::parse("s2", "SELECT 22", &[]), frontend::sync()])
        .await;
    assert_eq!(kinds(&raw.read_until_ready().await), "1Z");
}

#[tokio::test]
async fn a_statement_whose_result_types_changed_is_refused_at_bind() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute("CREATE TABLE t (id integer, c integer); INSERT INTO t VALUES (1, 7)")
        .await
        .expect("table");
    let statement = client.prepare("SELECT c FROM t").await.expect("prepare");
    let rows = client.query(&statement, &[]).await.expect("query");
    assert_eq!(rows[0].get::<_, i64>(0), 7);
    // Same column count, another type: the client would read text as int8.
    client
        .batch_execute(
            "DROP TABLE t; CREATE TABLE t (id integer, c text); INSERT INTO t VALUES (1, 'x')",
        )
        .await
        .expect("recreate");
    let error = client
        .query(&statement, &[])
        .await
        .expect_err("changed result type");
    assert_eq!(
        error.code().map(|state| state.code()),
        Some("0A000"),
        "{error:?}"
    );
    assert_eq!(
        error.as_db_error().map(|db| db.message()),
        Some("cached plan must not change result type")
    );
    // Prepared again, it works.
    let rows = client.query("SELECT c FROM t", &[]).await.expect("query");
    assert_eq!(rows[0].get::<_, String>(0), "x");
}

#[tokio::test]
async fn a_declared_cursor_is_described_as_a_portal() {
    let server = TestServer::start().await;
    let mut raw = server.raw().await;
    raw.send(&[frontend::query(
        "BEGIN; DECLARE cur CURSOR FOR SELECT 1 AS a, 'x' AS b",
    )])
    .await;
    raw.read_until_ready().await;
    raw.send(&[frontend::describe(b'P', "cur"), frontend::sync()])
        .await;
    let replies = raw.read_until_ready().await;
    assert_eq!(kinds(&replies), "TZ");
    // Two fields: int8 and text.
    let body = &replies[0].body;
    assert_eq!(i16::from_be_bytes([body[0], body[1]]), 2);
    raw.send(&[frontend::describe(b'P', "nothing"), frontend::sync()])
        .await;
    let replies = raw.read_until_ready().await;
    assert_eq!(replies[0].error_field(b'C').as_deref(), Some("34000"));
}

/// What asyncpg's pool sends when it takes a connection back (`SELECT
/// pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL;`), and RESET returning to the
/// client's startup options, as in PostgreSQL.
#[tokio::test]
async fn reset_returns_to_the_startup_settings() {
    let server = TestServer::start().await;
    let mut config = server.config();
    config.options("-c statement_timeout=1234");
    let (client, connection) = config
        .connect(tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    let show = |name: &'static str| {
        let client = &client;
        async move {
            let rows = client
                .simple_query(&format!("SHOW {name}"))
                .await
                .expect("show");
            rows.iter()
                .find_map(|message| match message {
                    tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_owned),
                    _ => None,
                })
                .expect("a row")
        }
    };
    let work_mem = show("work_mem").await;
    assert_eq!(show("statement_timeout").await, "1234ms");
    client
        .batch_execute(
            "SET statement_timeout = 5; SET work_mem = '8MB'; SET application_name = 'DEFAULT'; \
             SET TIME ZONE 'Europe/Paris'",
        )
        .await
        .expect("set");
    // The string 'DEFAULT' is a value; the keyword is RESET.
    assert_eq!(show("application_name").await, "DEFAULT");
    client
        .batch_execute("SET statement_timeout TO DEFAULT")
        .await
        .expect("set to default");
    assert_eq!(show("statement_timeout").await, "1234ms");
    client
        .batch_execute("RESET work_mem")
        .await
        .expect("reset one");
    assert_eq!(show("work_mem").await, work_mem);
    assert_eq!(show("timezone").await, "Europe/Paris");
    client
        .batch_execute(
            "SET statement_timeout = 5; SELECT pg_advisory_unlock_all();\nCLOSE ALL;\n\
             UNLISTEN *;\nRESET ALL;",
        )
        .await
        .expect("asyncpg's reset");
    assert_eq!(show("statement_timeout").await, "1234ms");
    assert_eq!(show("timezone").await, "UTC");
}
