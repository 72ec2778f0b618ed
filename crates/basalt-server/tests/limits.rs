//! Limits and timeouts: `max_connections` (the next client gets FATAL 53300, the others go
//! on, a place frees when a client leaves), `statement_timeout` (SET / SHOW, the startup
//! option `-c statement_timeout=...`, 57014 with PostgreSQL's message, the session goes on,
//! simple and extended protocol), the startup timeout (a silent client, one stopped in the
//! middle of authentication) and `idle_session_timeout` / `idle_in_transaction_session_timeout`
//! (FATAL 57P05 / 25P03). Every wait is for an event — a reply, an error, the server closing
//! the connection — never a sleep, and nothing asserts on elapsed time.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a broken server fails the test"
)]

mod common;

use std::time::Duration;

use basalt_server::ServerConfig;
use basalt_server::auth::{Users, Verifier};
use common::{Message, RawClient, TestServer, frontend};
use tokio::net::TcpStream;
use tokio_postgres::NoTls;

/// A statement that would run for a very long time: counting to 10^9 one row at a time.
const ENDLESS: &str = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c \
                       WHERE n < 1000000000) SELECT count(*) FROM c";

/// A raw client past startup as `user`.
async fn logged_in(server: &TestServer) -> RawClient {
    let stream = TcpStream::connect(server.address).await.expect("connect");
    let mut raw = RawClient::from_stream(stream);
    raw.startup(&[("user", "raw"), ("database", "test")]).await;
    raw
}

/// The next message, which must be an ErrorResponse; its code and message.
fn error_of(message: Option<Message>) -> (String, String) {
    let message = message.expect("an error before the connection closed");
    assert_eq!(message.kind, b'E', "expected an ErrorResponse");
    (
        message.error_field(b'C').expect("code"),
        message.error_field(b'M').expect("message"),
    )
}

/// `SHOW statement_timeout`.
async fn show_statement_timeout(client: &tokio_postgres::Client) -> String {
    let messages = client
        .simple_query("SHOW statement_timeout")
        .await
        .expect("SHOW");
    messages
        .iter()
        .find_map(|message| match message {
            tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_owned),
            _ => None,
        })
        .expect("a row")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_past_max_connections_is_refused_until_one_leaves() {
    let server = TestServer::start_with(ServerConfig::default().with_max_connections(2)).await;
    let mut first = logged_in(&server).await;
    assert_eq!(
        first.read_until_ready().await.last().map(|m| m.kind),
        Some(b'Z')
    );
    let second = server.client().await;

    let mut third = logged_in(&server).await;
    let (code, message) = error_of(third.next().await);
    assert_eq!(code, "53300");
    assert_eq!(message, "sorry, too many clients already");
    assert!(
        third.next().await.is_none(),
        "the refused client is disconnected"
    );
    let refused = server.config().connect(NoTls).await.err().expect("refused");
    let refused = refused.as_db_error().expect("a server error");
    assert_eq!(refused.code().code(), "53300");
    assert_eq!(refused.severity(), "FATAL");

    // The two connected clients are unaffected.
    let row = second.query_one("SELECT 40 + 2", &[]).await.expect("query");
    assert_eq!(row.get::<_, i64>(0), 42);
    first.send(&[frontend::query("SELECT 1")]).await;
    assert_eq!(
        first.read_until_ready().await.last().map(|m| m.kind),
        Some(b'Z')
    );

    // One leaves (the server closes the connection once its place is free): the next gets in.
    first.send(&[vec![b'X', 0, 0, 0, 4]]).await;
    while first.next().await.is_some() {}
    let third = server.client().await;
    let row = third.query_one("SELECT 1", &[]).await.expect("query");
    assert_eq!(row.get::<_, i64>(0), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_timeout_cancels_the_statement_and_the_session_goes_on() {
    let server = TestServer::start().await;
    let client = server.client().await;
    let setting = show_statement_timeout;
    assert_eq!(setting(&client).await, "0");
    client
        .batch_execute("SET statement_timeout = 50")
        .await
        .expect("SET");
    assert_eq!(setting(&client).await, "50ms");
    client
        .batch_execute("SET statement_timeout = '100ms'")
        .await
        .expect("SET");
    assert_eq!(setting(&client).await, "100ms");

    // Simple protocol, then extended (tokio-postgres's query), then simple again.
    for extended in [false, true, false] {
        let error = if extended {
            client.query(ENDLESS, &[]).await.err()
        } else {
            client.simple_query(ENDLESS).await.err()
        };
        let error = error.expect("the statement times out");
        let db = error.as_db_error().expect("a server error");
        assert_eq!(db.code().code(), "57014");
        assert_eq!(db.message(), "canceling statement due to statement timeout");
        let row = client.query_one("SELECT 2 + 2", &[]).await.expect("query");
        assert_eq!(row.get::<_, i64>(0), 4);
    }

    let error = client
        .batch_execute("SET statement_timeout = 'soon'")
        .await
        .expect_err("refused");
    assert_eq!(
        error.as_db_error().map(|db| db.code().code()),
        Some("22023")
    );
    client
        .batch_execute("SET statement_timeout = 0")
        .await
        .expect("SET");
    assert_eq!(setting(&client).await, "0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_timeout_from_the_startup_options() {
    let server = TestServer::start().await;
    let mut config = server.config();
    config.options("-c statement_timeout=100");
    let (client, connection) = config.connect(NoTls).await.expect("connect");
    tokio::spawn(connection);
    assert_eq!(show_statement_timeout(&client).await, "100ms");
    let error = client.simple_query(ENDLESS).await.expect_err("times out");
    assert_eq!(
        error.as_db_error().map(|db| db.code().code()),
        Some("57014")
    );

    // A bad value in the options refuses the connection.
    let mut config = server.config();
    config.options("-c statement_timeout=never");
    let error = config.connect(NoTls).await.err().expect("refused");
    let db = error.as_db_error().expect("a server error");
    assert_eq!((db.severity(), db.code().code()), ("FATAL", "22023"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_finish_startup_is_disconnected() {
    let alice = Verifier::from_password("pencil", b"salt", 4096);
    let users = Users::new([("alice".to_owned(), alice)]).expect("users");
    let config = ServerConfig::default()
        .with_users(users)
        .with_startup_timeout(Duration::from_millis(100));
    let server = TestServer::start_with(config).await;

    // Connects and sends nothing.
    let mut silent =
        RawClient::from_stream(TcpStream::connect(server.address).await.expect("connect"));
    assert!(silent.next().await.is_none(), "closed without a word");

    // Starts, is asked for SASL, and stops there.
    let mut stalled = logged_in(&server).await;
    let asked = stalled.next().await.expect("AuthenticationSASL");
    assert_eq!(asked.kind, b'R');
    assert!(stalled.next().await.is_none(), "closed mid-authentication");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_timeouts_end_the_session_with_postgresqls_errors() {
    let server = TestServer::start().await;

    let mut idle = logged_in(&server).await;
    idle.read_until_ready().await;
    idle.send(&[frontend::query("SET idle_session_timeout = 100")])
        .await;
    idle.read_until_ready().await;
    let (code, message) = error_of(idle.next().await);
    assert_eq!(code, "57P05");
    assert_eq!(
        message,
        "terminating connection due to idle-session timeout"
    );
    assert!(idle.next().await.is_none());

    let mut in_transaction = logged_in(&server).await;
    in_transaction.read_until_ready().await;
    in_transaction
        .send(&[frontend::query(
            "SET idle_in_transaction_session_timeout = '100ms'",
        )])
        .await;
    in_transaction.read_until_ready().await;
    in_transaction.send(&[frontend::query("BEGIN")]).await;
    let ready = in_transaction.read_until_ready().await;
    assert_eq!(common::status(&ready), 'T');
    let (code, message) = error_of(in_transaction.next().await);
    assert_eq!(code, "25P03");
    assert_eq!(
        message,
        "terminating connection due to idle-in-transaction timeout"
    );
    assert!(in_transaction.next().await.is_none());
}
