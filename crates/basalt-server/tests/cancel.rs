//! CancelRequest: stops the running statement of the session whose key it carries (57014),
//! and only that one; the session goes on afterwards.

mod common;

use std::time::Duration;

use common::TestServer;
use tokio_postgres::NoTls;
use tokio_postgres::error::SqlState;

/// A statement that would run for hours: a three-way cross join of 2,000 rows, counted
/// (no memory grows while it runs).
const ENDLESS: &str = "SELECT count(*) FROM nums a, nums b, nums c";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_only_the_running_statement_of_its_session() {
    let server = TestServer::start().await;
    let victim = server.client().await;
    victim
        .batch_execute(
            "CREATE TABLE nums (n INTEGER PRIMARY KEY);
             INSERT INTO nums SELECT g FROM generate_series(1, 2000) AS s(g)",
        )
        .await
        .expect("setup");
    let bystander = server.client().await;
    let token = victim.cancel_token();

    let victim_query = tokio::spawn(async move {
        let result = victim.simple_query(ENDLESS).await;
        (victim, result)
    });
    // A bystander's work before, during and after the cancel is untouched.
    let bystander_work = tokio::spawn(async move {
        let mut total = 0i64;
        for _ in 0..20 {
            let row = bystander
                .query_one("SELECT count(*) FROM nums a, nums b WHERE a.n <= 50", &[])
                .await
                .expect("bystander's statement");
            total += row.get::<_, i64>(0);
        }
        total
    });

    // The cancel can only stop a statement that has started; until the victim's statement
    // ends, ask again (a request that arrives between statements is forgotten).
    // A cancel that never lands fails the test instead of hanging it.
    let mut victim_query = victim_query;
    let cancelling = async {
        loop {
            token.cancel_query(NoTls).await.expect("cancel request");
            match tokio::time::timeout(Duration::from_millis(50), &mut victim_query).await {
                Ok(joined) => break joined.expect("victim task"),
                Err(_still_running) => continue,
            }
        }
    };
    let (victim, result) = tokio::time::timeout(Duration::from_secs(60), cancelling)
        .await
        .expect("the statement stopped within a minute of the first cancel");
    let error = result.expect_err("the statement was cancelled");
    assert_eq!(error.code(), Some(&SqlState::QUERY_CANCELED));
    assert_eq!(
        bystander_work.await.expect("bystander task"),
        20 * 50 * 2000
    );

    // The cancelled session goes on.
    let row = victim
        .query_one("SELECT count(*) FROM nums", &[])
        .await
        .expect("after cancel");
    assert_eq!(row.get::<_, i64>(0), 2000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_with_the_wrong_key_does_nothing() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute(
            "CREATE TABLE nums (n INTEGER PRIMARY KEY);
             INSERT INTO nums SELECT g FROM generate_series(1, 300) AS s(g)",
        )
        .await
        .expect("setup");
    // Another connection's token: its key does not match this session.
    let other = server.client().await;
    let token = other.cancel_token();
    let running = tokio::spawn(async move {
        client
            .query_one(
                "SELECT count(*) FROM nums a, nums b, nums c WHERE c.n <= 20",
                &[],
            )
            .await
            .map(|row| row.get::<_, i64>(0))
    });
    token.cancel_query(NoTls).await.expect("cancel request");
    assert_eq!(
        running.await.expect("task").expect("not cancelled"),
        300 * 300 * 20
    );
}
