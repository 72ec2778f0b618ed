//! COPY's binary format through tokio-postgres's binary COPY writer and reader: 20,000 rows
//! of several types in, read back in binary and compared value for value, a table with no
//! rows (header and trailer in one message), a NULL in every column, and malformed data
//! refused with 22P04 / 22P03 and the COPY undone.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a failing COPY fails the test"
)]

mod common;

use bytes::Bytes;
use common::TestServer;
use futures::{SinkExt, StreamExt, pin_mut};
use tokio_postgres::binary_copy::{BinaryCopyInWriter, BinaryCopyOutStream};
use tokio_postgres::types::{ToSql, Type};

const ROWS: i64 = 20_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_copy_round_trips_rows_of_several_types() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute(
            "CREATE TABLE b (id bigint PRIMARY KEY, name text, score double precision, \
             flag boolean, data bytea)",
        )
        .await
        .expect("table");
    let types = [
        Type::INT8,
        Type::TEXT,
        Type::FLOAT8,
        Type::BOOL,
        Type::BYTEA,
    ];
    let sink = client
        .copy_in("COPY b (id, name, score, flag, data) FROM STDIN (FORMAT binary)")
        .await
        .expect("copy in");
    let writer = BinaryCopyInWriter::new(sink, &types);
    pin_mut!(writer);
    for id in 0..ROWS {
        let name = (id % 7 != 0).then(|| format!("name {id}\t\\ é"));
        let score = id as f64 / 3.0;
        let flag = id % 2 == 0;
        let data = id.to_be_bytes().to_vec();
        let row: [&(dyn ToSql + Sync); 5] = [&id, &name, &score, &flag, &data];
        writer.as_mut().write(&row).await.expect("row");
    }
    assert_eq!(writer.finish().await.expect("finish"), ROWS as u64);

    let stream = client
        .copy_out("COPY (SELECT id, name, score, flag, data FROM b ORDER BY id) TO STDOUT (FORMAT binary)")
        .await
        .expect("copy out");
    let rows = BinaryCopyOutStream::new(stream, &types);
    pin_mut!(rows);
    let mut expected = 0i64;
    while let Some(row) = rows.next().await {
        let row = row.expect("binary row");
        let id: i64 = row.get(0);
        assert_eq!(id, expected);
        let name: Option<String> = row.get(1);
        assert_eq!(name, (id % 7 != 0).then(|| format!("name {id}\t\\ é")));
        assert_eq!(row.get::<f64>(2).to_bits(), (id as f64 / 3.0).to_bits());
        assert_eq!(row.get::<bool>(3), id % 2 == 0);
        assert_eq!(row.get::<Vec<u8>>(4), id.to_be_bytes().to_vec());
        expected += 1;
    }
    assert_eq!(expected, ROWS);

    // No rows: the header and the trailer alone.
    client.batch_execute("DELETE FROM b").await.expect("delete");
    let stream = client
        .copy_out("COPY b TO STDOUT (FORMAT binary)")
        .await
        .expect("copy out");
    let rows = BinaryCopyOutStream::new(stream, &types);
    pin_mut!(rows);
    assert!(rows.next().await.is_none(), "no rows");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_binary_copy_is_refused_and_undone() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute("CREATE TABLE b (id bigint PRIMARY KEY, name text)")
        .await
        .expect("table");
    let header: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";
    let good_row: &[u8] = &[0, 2, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1, 255, 255, 255, 255];
    let cases: [(&str, Vec<u8>, &str); 4] = [
        (
            "a wrong signature",
            b"PGCOPY\n\xff\r\n\x01".to_vec(),
            "22P04",
        ),
        (
            "a row of one field",
            [header, &[0, 1, 255, 255, 255, 255]].concat(),
            "22P04",
        ),
        (
            "an integer of three bytes",
            [header, &[0, 2, 0, 0, 0, 3, 0, 0, 1, 255, 255, 255, 255]].concat(),
            "22P03",
        ),
        (
            "data ending inside a row",
            [header, good_row, &[0, 2, 0, 0]].concat(),
            "22P04",
        ),
    ];
    for (what, data, code) in cases {
        let sink = client
            .copy_in::<_, Bytes>("COPY b FROM STDIN (FORMAT binary)")
            .await
            .expect("copy in");
        pin_mut!(sink);
        let sent = sink.send(Bytes::from(data)).await;
        let error = match sent {
            Err(error) => error,
            Ok(()) => sink.finish().await.expect_err(what),
        };
        assert_eq!(
            error.code().map(|state| state.code()),
            Some(code),
            "{what}: {error:?}"
        );
        let count: i64 = client
            .query_one("SELECT count(*) FROM b", &[])
            .await
            .expect("count")
            .get(0);
        assert_eq!(count, 0, "{what}: the COPY is undone");
    }
}
