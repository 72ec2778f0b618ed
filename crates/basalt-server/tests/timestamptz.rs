//! TIMESTAMPTZ on the wire: OID 1184, text in the session's time zone, binary as
//! PostgreSQL's int8 microseconds since 2000-01-01 UTC (results and parameters), and a
//! ParameterStatus `TimeZone` when SET TIME ZONE changes the zone.

#![allow(clippy::expect_used, reason = "tests")]

mod common;

use chrono::{DateTime, TimeZone, Utc};
use common::{TestServer, frontend};
use tokio_postgres::SimpleQueryMessage;
use tokio_postgres::types::Type;

fn noon_utc() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 3, 10, 12, 0, 0)
        .single()
        .expect("valid time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_follows_the_session_zone_and_binary_is_the_instant() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute("SET TIME ZONE 'Asia/Kolkata'")
        .await
        .expect("set");
    let messages = client
        .simple_query("SELECT '2024-03-10 12:00:00.5+00'::timestamptz")
        .await
        .expect("select");
    let text: Vec<String> = messages
        .iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => row.get(0).map(str::to_owned),
            _ => None,
        })
        .collect();
    assert_eq!(text, ["2024-03-10 17:30:00.5+05:30"]);

    // Binary results (tokio-postgres asks for them) and a binary parameter.
    let statement = client
        .prepare("SELECT $1::timestamptz + interval '1 hour'")
        .await
        .expect("prepare");
    assert_eq!(statement.params()[0], Type::TIMESTAMPTZ);
    assert_eq!(statement.columns()[0].type_(), &Type::TIMESTAMPTZ);
    let row = client
        .query_one(&statement, &[&noon_utc()])
        .await
        .expect("query");
    let later: DateTime<Utc> = row.get(0);
    assert_eq!(later, noon_utc() + chrono::Duration::hours(1));

    client
        .batch_execute("CREATE TABLE ev (at TIMESTAMPTZ)")
        .await
        .expect("create");
    client
        .execute("INSERT INTO ev VALUES ($1)", &[&noon_utc()])
        .await
        .expect("insert");
    let row = client
        .query_one("SELECT at, at::text FROM ev", &[])
        .await
        .expect("select");
    assert_eq!(row.get::<_, DateTime<Utc>>(0), noon_utc());
    assert_eq!(row.get::<_, String>(1), "2024-03-10 17:30:00+05:30");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_time_zone_reports_the_new_zone() {
    let server = TestServer::start().await;
    let mut raw = server.raw().await;
    let parameter = |messages: &[common::Message]| -> Vec<String> {
        messages
            .iter()
            .filter(|message| message.kind == b'S')
            .map(|message| String::from_utf8_lossy(&message.body).replace('\0', " "))
            .collect()
    };
    raw.send(&[frontend::query("SET TIME ZONE 'europe/berlin'")])
        .await;
    let replies = raw.read_until_ready().await;
    assert_eq!(parameter(&replies), ["TimeZone Europe/Berlin "]);
    // Setting the same zone again, or running anything else, reports nothing.
    raw.send(&[frontend::query("SET TIME ZONE 'Europe/Berlin'; SELECT 1")])
        .await;
    assert!(parameter(&raw.read_until_ready().await).is_empty());
    // Through the extended protocol too.
    raw.send(&[
        frontend::parse("", "SET TIME ZONE LOCAL", &[]),
        frontend::bind("", "", &[], &[], &[]),
        frontend::execute("", 0),
        frontend::sync(),
    ])
    .await;
    assert_eq!(parameter(&raw.read_until_ready().await), ["TimeZone UTC "]);
}
