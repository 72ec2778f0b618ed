//! SQL cursors over the wire: DECLARE, FETCH (simple and extended protocol) and MOVE with
//! PostgreSQL's command tags, and a cursor's errors with their SQLSTATEs.

mod common;

use common::TestServer;
use tokio_postgres::SimpleQueryMessage;

/// The row count of each CommandComplete in a simple query's messages.
fn completions(messages: &[SimpleQueryMessage]) -> Vec<u64> {
    messages
        .iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::CommandComplete(rows) => Some(*rows),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declare_fetch_move_and_close() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    client
        .batch_execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY);
             INSERT INTO t SELECT g FROM generate_series(1, 50) g",
        )
        .await
        .expect("create");
    let error = client
        .batch_execute("DECLARE c CURSOR FOR SELECT id FROM t")
        .await
        .expect_err("outside a transaction");
    assert_eq!(error.code().map(|c| c.code()), Some("25P01"));

    let transaction = client.transaction().await.expect("begin");
    transaction
        .batch_execute("DECLARE c SCROLL CURSOR FOR SELECT id FROM t ORDER BY id")
        .await
        .expect("declare");
    // Extended protocol: FETCH described with the cursor's columns.
    let rows = transaction
        .query("FETCH 3 FROM c", &[])
        .await
        .expect("fetch");
    let ids: Vec<i64> = rows.iter().map(|row| row.get(0)).collect();
    assert_eq!(ids, [1, 2, 3]);
    // Simple protocol: MOVE's and FETCH's row counts.
    let messages = transaction
        .simple_query("MOVE FORWARD 10 IN c; FETCH BACKWARD 2 FROM c; MOVE ABSOLUTE 100 IN c")
        .await
        .expect("move");
    assert_eq!(completions(&messages), [10, 2, 0]);
    let rows = transaction
        .query("FETCH PRIOR FROM c", &[])
        .await
        .expect("prior");
    assert_eq!(rows[0].get::<_, i64>(0), 50);
    let error = transaction
        .query("FETCH NEXT FROM missing", &[])
        .await
        .expect_err("unknown cursor");
    assert_eq!(error.code().map(|c| c.code()), Some("34000"));
    transaction.rollback().await.expect("rollback");
}
