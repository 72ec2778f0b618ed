//! COPY FROM STDIN and COPY TO STDOUT through the server: bulk loads over both protocols
//! with rows split across CopyData messages at odd boundaries, every value read back
//! byte for byte, the text and CSV formats' details, errors that undo the whole COPY with
//! PostgreSQL's SQLSTATEs and context, CopyFail, transactions, refusals, and psql's
//! `\copy` and inline `COPY ... FROM STDIN` data.

#![allow(
    clippy::expect_used,
    reason = "test helpers: a broken server fails the test that called them"
)]

mod common;

use std::process::Command;

use bytes::Bytes;
use common::{RawClient, TestServer, frontend, kinds, status};
use futures::{SinkExt, StreamExt, pin_mut};
use tokio_postgres::Client;

const ROWS: usize = 20_000;

async fn create_big(client: &Client, table: &str) {
    client
        .batch_execute(&format!(
            "CREATE TABLE {table} (id INTEGER PRIMARY KEY, name TEXT, score INTEGER, note TEXT);
             CREATE INDEX {table}_name ON {table} (name);
             CREATE INDEX {table}_score ON {table} (score);"
        ))
        .await
        .expect("create table");
}

/// Row `i`'s values: a name with the characters COPY must escape or quote now and then,
/// non-ASCII text, and a NULL note every seventh row.
fn big_row(i: usize) -> (i64, String, i64, Option<String>) {
    let name = match i % 5 {
        0 => format!("name {i}\twith tab"),
        1 => format!("back\\slash, comma {i}"),
        2 => format!("line\nbreak \"quoted\" {i}"),
        3 => format!("żółw {i} 🐢"),
        _ => format!("plain{i}"),
    };
    let note = (!i.is_multiple_of(7)).then(|| format!("note {}", i * 31 % 1000));
    (i as i64, name, (i * 7919 % 1000) as i64, note)
}

fn text_escape(value: &str) -> String {
    let mut out = String::new();
    for c in value.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out
}

fn csv_quote(value: &str) -> String {
    if value.is_empty() || value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_owned()
    }
}

fn big_text() -> String {
    let mut out = String::new();
    for i in 0..ROWS {
        let (id, name, score, note) = big_row(i);
        let note = note.map_or("\\N".to_owned(), |note| text_escape(&note));
        out.push_str(&format!("{id}\t{}\t{score}\t{note}\n", text_escape(&name)));
    }
    out
}

fn big_csv() -> String {
    let mut out = String::from("id,name,score,note\n");
    for i in 0..ROWS {
        let (id, name, score, note) = big_row(i);
        let note = note.map_or(String::new(), |note| csv_quote(&note));
        out.push_str(&format!("{id},{},{score},{note}\n", csv_quote(&name)));
    }
    out
}

/// Splits `data` into pieces of changing, odd sizes (1 to 4,099 bytes), so rows, escapes
/// and quoted fields are cut everywhere.
fn odd_chunks(data: &[u8]) -> Vec<&[u8]> {
    let sizes = [1, 7, 4099, 13, 2, 997, 3, 1500, 61];
    let mut chunks = Vec::new();
    let mut at = 0;
    let mut turn = 0;
    while at < data.len() {
        let end = (at + sizes[turn % sizes.len()]).min(data.len());
        chunks.push(&data[at..end]);
        at = end;
        turn += 1;
    }
    chunks
}

/// COPY FROM STDIN through tokio-postgres (the extended protocol), one CopyData per chunk.
async fn copy_in(
    client: &Client,
    sql: &str,
    chunks: &[&[u8]],
) -> Result<u64, tokio_postgres::Error> {
    let sink = client.copy_in::<_, Bytes>(sql).await?;
    pin_mut!(sink);
    for chunk in chunks {
        sink.send(Bytes::copy_from_slice(chunk)).await?;
    }
    sink.finish().await
}

async fn copy_out(client: &Client, sql: &str) -> Vec<u8> {
    let stream = client.copy_out(sql).await.expect("copy out");
    pin_mut!(stream);
    let mut out = Vec::new();
    while let Some(chunk) = stream.next().await {
        out.extend_from_slice(&chunk.expect("copy data"));
    }
    out
}

async fn count(client: &Client, table: &str) -> i64 {
    client
        .query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .await
        .expect("count")
        .get(0)
}

async fn integrity_ok(client: &Client) {
    let rows = client
        .simple_query("PRAGMA integrity_check")
        .await
        .expect("integrity check");
    let lines: Vec<String> = rows
        .iter()
        .filter_map(|message| match message {
            tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_owned),
            _ => None,
        })
        .collect();
    assert_eq!(lines, ["ok"], "integrity check");
}

/// A raw (simple protocol) COPY FROM STDIN: the Query, the data in `chunks`, CopyDone;
/// returns every message up to ReadyForQuery.
async fn raw_copy_in(raw: &mut RawClient, sql: &str, chunks: &[&[u8]]) -> Vec<common::Message> {
    raw.send(&[frontend::query(sql)]).await;
    let response = raw.next().await.expect("CopyInResponse");
    if response.kind != b'G' {
        let mut messages = vec![response];
        if messages[0].kind != b'Z' {
            messages.extend(raw.read_until_ready().await);
        }
        return messages;
    }
    let mut messages: Vec<Vec<u8>> = chunks
        .iter()
        .map(|chunk| frontend::copy_data(chunk))
        .collect();
    messages.push(frontend::copy_done());
    raw.send(&messages).await;
    raw.read_until_ready().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_text_copy_round_trips_over_the_extended_protocol() {
    let server = TestServer::start().await;
    let client = server.client().await;
    create_big(&client, "big").await;
    let data = big_text();
    let copied = copy_in(&client, "COPY big FROM STDIN", &odd_chunks(data.as_bytes()))
        .await
        .expect("copy in");
    assert_eq!(copied, ROWS as u64);
    assert_eq!(count(&client, "big").await, ROWS as i64);
    let back = copy_out(&client, "COPY (SELECT * FROM big ORDER BY id) TO STDOUT").await;
    assert_eq!(String::from_utf8(back).expect("utf-8"), data);
    // The indexes hold every row: lookups through each find what the table holds.
    let (_, name, score, _) = big_row(12_345);
    let found: i64 = client
        .query_one("SELECT count(*) FROM big WHERE name = $1", &[&name])
        .await
        .expect("by name")
        .get(0);
    assert_eq!(found, 1);
    let by_score: i64 = client
        .query_one("SELECT count(*) FROM big WHERE score = $1", &[&score])
        .await
        .expect("by score")
        .get(0);
    assert_eq!(by_score, 20);
    integrity_ok(&client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_csv_copy_round_trips_over_the_simple_protocol() {
    let server = TestServer::start().await;
    let client = server.client().await;
    create_big(&client, "big_csv").await;
    let data = big_csv();
    let mut raw = server.raw().await;
    let messages = raw_copy_in(
        &mut raw,
        "COPY big_csv FROM STDIN WITH (FORMAT csv, HEADER true, FREEZE on)",
        &odd_chunks(data.as_bytes()),
    )
    .await;
    assert_eq!(
        kinds(&messages),
        "CZ",
        "{:?} {:?}",
        messages[0].body,
        String::from_utf8_lossy(&messages[0].body)
    );
    assert_eq!(messages[0].tag(), "COPY 20000");
    assert_eq!(status(&messages), 'I');
    assert_eq!(count(&client, "big_csv").await, ROWS as i64);
    let back = copy_out(
        &client,
        "COPY (SELECT * FROM big_csv ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)",
    )
    .await;
    assert_eq!(String::from_utf8(back).expect("utf-8"), data);
    // The simple protocol's COPY TO: CopyOutResponse, a CopyData a row, CopyDone, COPY n.
    raw.send(&[frontend::query(
        "COPY (SELECT id FROM big_csv WHERE id < 3 ORDER BY id) TO STDOUT",
    )])
    .await;
    let messages = raw.read_until_ready().await;
    assert_eq!(kinds(&messages), "HdddcCZ");
    assert_eq!(messages[1].body, b"0\n");
    assert_eq!(messages[5].tag(), "COPY 3");
    // COPY TO STDOUT may share a Query message with other statements.
    raw.send(&[frontend::query(
        "SELECT 1; COPY (SELECT 'a,b' AS x) TO STDOUT (FORMAT csv, HEADER)",
    )])
    .await;
    let messages = raw.read_until_ready().await;
    assert_eq!(kinds(&messages), "TDCHddcCZ");
    assert_eq!(messages[4].body, b"x\n");
    assert_eq!(messages[5].body, b"\"a,b\"\n");
    assert_eq!(messages[7].tag(), "COPY 1");
    integrity_ok(&client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn formats_nulls_escapes_quotes_columns_and_defaults() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT DEFAULT 'dflt', n INTEGER, d DATE)",
        )
        .await
        .expect("create");
    // Text: NULL, escapes (octal, hex, \b \f \v), a column list leaving b to its default.
    let text = b"1\t\\N\t7\t2024-02-29\n2\ta\\\\b\\tc\\nd\\101\\x42\\b\\f\\v\t-3\t\\N\n";
    let copied = copy_in(
        &client,
        "COPY t (id, a, n, d) FROM STDIN",
        &[&text[..5], &text[5..]],
    )
    .await
    .expect("text copy");
    assert_eq!(copied, 2);
    // CSV: header, quoted empty string vs NULL, doubled quotes, an embedded newline and
    // delimiter, non-ASCII, the old option syntax.
    let csv = "id|a|b\n3||\"\"\n4|\"x|\"\"y\"\"\nz\"|naïve ✓\n";
    copy_in(
        &client,
        "COPY t (id, a, b) FROM STDIN WITH CSV HEADER DELIMITER AS '|'",
        &[csv.as_bytes()],
    )
    .await
    .expect("csv copy");
    let rows = client
        .query("SELECT id, a, b, n, d::text FROM t ORDER BY id", &[])
        .await
        .expect("select");
    let got: Vec<Detail> = rows
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4)))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                1,
                None,
                Some("dflt".into()),
                Some(7),
                Some("2024-02-29".into())
            ),
            (
                2,
                Some("a\\b\tc\ndAB\u{8}\u{c}\u{b}".into()),
                Some("dflt".into()),
                Some(-3),
                None
            ),
            (3, None, Some(String::new()), None, None),
            (
                4,
                Some("x|\"y\"\nz".into()),
                Some("naïve ✓".into()),
                None,
                None
            ),
        ]
    );
    // Out again: text escapes, CSV quoting (a quoted empty string, FORCE_QUOTE), NULL options.
    let text_out = copy_out(&client, "COPY t (id, a) TO STDOUT WITH (NULL 'NULL')").await;
    let text_out = String::from_utf8(text_out).expect("utf-8");
    assert!(
        text_out.contains("2\ta\\\\b\\tc\\ndAB\\b\\f\\v\n"),
        "{text_out}"
    );
    assert!(text_out.starts_with("1\tNULL\n"), "{text_out}");
    let csv_out = copy_out(
        &client,
        "COPY (SELECT id, a, b FROM t WHERE id >= 3 ORDER BY id) TO STDOUT (FORMAT csv, HEADER, FORCE_QUOTE (id))",
    )
    .await;
    assert_eq!(
        String::from_utf8(csv_out).expect("utf-8"),
        "id,a,b\n\"3\",,\"\"\n\"4\",\"x|\"\"y\"\"\nz\",naïve ✓\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_of_every_type_round_trip() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute(
            "CREATE TABLE ty (b BOOLEAN, y BYTEA, j JSONB, u UUID, ts TIMESTAMP, iv INTERVAL,
                              f DOUBLE PRECISION, v VECTOR(3), d DATE, c VARCHAR(5))",
        )
        .await
        .expect("create");
    // In COPY's text format a bytea's `\x` is written `\\x`.
    let data = "t\t\\\\x0102ff\t{\"a\": [1, 2]}\ta0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\t\
                2024-01-02 03:04:05.5\t1 day 02:00:00\t1.5\t[1,2,3]\t2024-02-29\tabc\n\
                f\t\\\\x\t\\N\t\\N\t\\N\t\\N\t-0.25\t\\N\t\\N\t\n";
    copy_in(&client, "COPY ty FROM STDIN", &odd_chunks(data.as_bytes()))
        .await
        .expect("copy in");
    let bytes: Vec<u8> = client
        .query_one("SELECT y FROM ty WHERE b", &[])
        .await
        .expect("bytea")
        .get(0);
    assert_eq!(bytes, [1, 2, 255]);
    let back = copy_out(&client, "COPY ty TO STDOUT").await;
    assert_eq!(String::from_utf8(back).expect("utf-8"), data);
    let error = copy_in(&client, "COPY ty (y) FROM STDIN", &[b"\\\\xzz\n"])
        .await
        .expect_err("bad bytea");
    let db = error.as_db_error().expect("database error");
    assert_eq!(db.code().code(), "22P02");
    assert_eq!(db.where_(), Some("COPY ty, line 1"));
}

/// One row of the details test: id, a, b, n, d.
type Detail = (
    i64,
    Option<String>,
    Option<String>,
    Option<i64>,
    Option<String>,
);

/// The SQLSTATE and context of a failed COPY through tokio-postgres.
async fn copy_error(client: &Client, sql: &str, data: &str) -> (String, String, String) {
    let error = copy_in(client, sql, &odd_chunks(data.as_bytes()))
        .await
        .expect_err("the copy fails");
    let db = error.as_db_error().expect("a database error");
    (
        db.code().code().to_owned(),
        db.message().to_owned(),
        db.where_().unwrap_or_default().to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_line_undoes_the_whole_copy() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, s TEXT); INSERT INTO t VALUES (-1, 0, 'kept')")
        .await
        .expect("create");
    // Enough good rows before the bad one that several batches were inserted already.
    let good = |count: usize| -> String { (0..count).map(|i| format!("{i}\t{i}\tx\n")).collect() };
    let cases = [
        (
            format!("{}3000\t1\n", good(2500)),
            "22P04",
            "missing data for column \"s\"",
            2501,
        ),
        (
            format!("{}3000\t1\tx\ty\n", good(2500)),
            "22P04",
            "extra data after last expected column",
            2501,
        ),
        (
            format!("{}3000\tabc\tx\n{}", good(2500), "4000\t1\tx\n"),
            "22P02",
            "",
            2501,
        ),
        (format!("{}7\t1\tdup\n", good(2500)), "23505", "", 2501),
        (
            "1\t1\tx\n2\t2\tx\n3\t3\t4\t5\n".to_owned(),
            "22P04",
            "extra data",
            3,
        ),
    ];
    for (data, code, message, line) in cases {
        let (got_code, got_message, context) =
            copy_error(&client, "COPY t FROM STDIN", &data).await;
        assert_eq!(got_code, code, "{got_message}");
        assert!(got_message.contains(message), "{got_message}");
        assert_eq!(context, format!("COPY t, line {line}"));
        assert_eq!(
            count(&client, "t").await,
            1,
            "no row of the failed COPY remains"
        );
    }
    // The simple protocol: ErrorResponse then ReadyForQuery, idle, and the connection goes on.
    let mut raw = server.raw().await;
    let messages = Box::pin(raw_copy_in(
        &mut raw,
        "COPY t FROM STDIN (FORMAT csv)",
        &[b"1,1,a\n2,zz,b\n"],
    ))
    .await;
    assert_eq!(messages[0].kind, b'E');
    assert_eq!(messages[0].error_field(b'C').as_deref(), Some("22P02"));
    assert_eq!(
        messages[0].error_field(b'W').as_deref(),
        Some("COPY t, line 2")
    );
    assert_eq!(status(&messages), 'I');
    raw.send(&[frontend::query("SELECT count(*) FROM t")]).await;
    let messages = raw.read_until_ready().await;
    assert_eq!(messages[1].fields(), vec![Some(b"1".to_vec())]);
    integrity_ok(&client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_fail_is_57014_and_undoes_the_copy() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT)")
        .await
        .expect("create");
    // CopyFail: 57014 with PostgreSQL's message; nothing stays.
    let mut raw = server.raw().await;
    raw.send(&[frontend::query("COPY t FROM STDIN")]).await;
    assert_eq!(raw.next().await.expect("response").kind, b'G');
    raw.send(&[
        frontend::copy_data(b"1\ta\n2\tb\n"),
        frontend::copy_fail("changed my mind"),
    ])
    .await;
    let messages = raw.read_until_ready().await;
    assert_eq!(kinds(&messages), "EZ");
    assert_eq!(messages[0].error_field(b'C').as_deref(), Some("57014"));
    assert_eq!(
        messages[0].error_field(b'M').as_deref(),
        Some("COPY from stdin failed: changed my mind")
    );
    assert_eq!(status(&messages), 'I');
    assert_eq!(count(&client, "t").await, 0);
    // The extended protocol: tokio-postgres sends CopyFail (and Sync) for a sink dropped
    // before it finished; nothing stays and the client goes on.
    {
        let sink = client
            .copy_in::<_, Bytes>("COPY t FROM STDIN")
            .await
            .expect("copy in");
        pin_mut!(sink);
        sink.send(Bytes::from_static(b"9\tnine\n"))
            .await
            .expect("data");
    }
    assert_eq!(count(&client, "t").await, 0);
}

/// Sends a CancelRequest for `key` (BackendKeyData's body: process id, secret key) and
/// waits until the server has handled it and closed the connection.
async fn cancel(server: &TestServer, key: &[u8]) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(server.address)
        .await
        .expect("connect");
    let mut request = 16i32.to_be_bytes().to_vec();
    request.extend_from_slice(&80_877_102i32.to_be_bytes());
    request.extend_from_slice(key);
    stream.write_all(&request).await.expect("cancel request");
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).await.expect("closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_a_copy_waiting_for_data() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT)")
        .await
        .expect("create");
    let stream = tokio::net::TcpStream::connect(server.address)
        .await
        .expect("connect");
    let mut raw = RawClient::from_stream(stream);
    raw.startup(&[("user", "raw"), ("database", "test")]).await;
    let startup = raw.read_until_ready().await;
    let key = startup
        .iter()
        .find(|message| message.kind == b'K')
        .expect("BackendKeyData")
        .body
        .clone();
    // A cancel before the COPY is for whatever ran then, not for the COPY.
    cancel(&server, &key).await;
    raw.send(&[frontend::query("COPY t FROM STDIN")]).await;
    assert_eq!(raw.next().await.expect("response").kind, b'G');
    raw.send(&[frontend::copy_data(b"1\tone\n")]).await;
    // No statement runs while COPY waits for data; the cancel still stops it.
    cancel(&server, &key).await;
    raw.send(&[frontend::copy_data(b"2\ttwo\n"), frontend::copy_done()])
        .await;
    let messages = raw.read_until_ready().await;
    assert_eq!(kinds(&messages), "EZ");
    assert_eq!(messages[0].error_field(b'C').as_deref(), Some("57014"));
    assert_eq!(count(&client, "t").await, 0);
    // The next COPY is not touched by it.
    let messages = Box::pin(raw_copy_in(&mut raw, "COPY t FROM STDIN", &[b"3\tthree\n"])).await;
    assert_eq!(kinds(&messages), "CZ");
    assert_eq!(count(&client, "t").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_inside_a_transaction_block() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT)")
        .await
        .expect("create");
    let mut raw = server.raw().await;
    // Inside BEGIN: part of the transaction; ROLLBACK leaves nothing, COMMIT keeps it.
    raw.send(&[frontend::query("BEGIN")]).await;
    raw.read_until_ready().await;
    let messages = Box::pin(raw_copy_in(&mut raw, "COPY t FROM STDIN", &[b"1\ta\n"])).await;
    assert_eq!(kinds(&messages), "CZ");
    assert_eq!(status(&messages), 'T');
    raw.send(&[frontend::query("SELECT count(*) FROM t")]).await;
    let messages = raw.read_until_ready().await;
    assert_eq!(messages[1].fields(), vec![Some(b"1".to_vec())]);
    raw.send(&[frontend::query("ROLLBACK")]).await;
    raw.read_until_ready().await;
    assert_eq!(count(&client, "t").await, 0);
    // A failed COPY inside BEGIN fails the transaction block, as any statement does.
    raw.send(&[frontend::query("BEGIN")]).await;
    raw.read_until_ready().await;
    let messages = Box::pin(raw_copy_in(
        &mut raw,
        "COPY t FROM STDIN",
        &[b"1\ta\n1\tb\n"],
    ))
    .await;
    assert_eq!(messages[0].error_field(b'C').as_deref(), Some("23505"));
    assert_eq!(status(&messages), 'E');
    raw.send(&[frontend::query("SELECT 1")]).await;
    let messages = raw.read_until_ready().await;
    assert_eq!(messages[0].error_field(b'C').as_deref(), Some("25P02"));
    raw.send(&[frontend::query("COMMIT")]).await;
    let messages = raw.read_until_ready().await;
    assert_eq!(messages[0].tag(), "ROLLBACK");
    assert_eq!(count(&client, "t").await, 0);
    // tokio-postgres inside a transaction, committed.
    client.batch_execute("BEGIN").await.expect("begin");
    copy_in(&client, "COPY t FROM STDIN", &[b"5\tfive\n"])
        .await
        .expect("copy");
    client.batch_execute("COMMIT").await.expect("commit");
    assert_eq!(count(&client, "t").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_basalt_does_not_do_is_refused() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute("CREATE TABLE t (id INTEGER)")
        .await
        .expect("create");
    let cases = [
        ("COPY t FROM '/etc/passwd'", "42501"),
        ("COPY t TO '/tmp/out.txt'", "42501"),
        ("COPY t FROM PROGRAM 'cat /etc/passwd'", "42501"),
        ("COPY t FROM STDIN (FORMAT binary, HEADER)", "42601"),
        ("COPY t TO STDOUT (FORMAT binary, DELIMITER ',')", "42601"),
        ("COPY t FROM STDIN (FORMAT xml)", "22023"),
        ("COPY t FROM STDIN (QUOTE '\"')", "0A000"),
        ("COPY missing FROM STDIN", "42P01"),
        ("SELECT 1; COPY t FROM STDIN", "0A000"),
    ];
    for (sql, code) in cases {
        let error = client.batch_execute(sql).await.expect_err(sql);
        let db = error.as_db_error().expect("database error");
        assert_eq!(db.code().code(), code, "{sql}: {}", db.message());
    }
    let error = client
        .batch_execute("COPY t FROM '/etc/passwd'")
        .await
        .expect_err("file");
    let hint = error
        .as_db_error()
        .and_then(|db| db.hint())
        .unwrap_or_default()
        .to_owned();
    assert!(hint.contains("\\copy"), "{hint}");
    // Nothing ran, the connection goes on.
    assert_eq!(count(&client, "t").await, 0);
}

fn psql_available() -> bool {
    Command::new("psql").arg("--version").output().is_ok()
}

fn run_psql(port: u16, script: &std::path::Path) -> std::process::Output {
    Command::new("psql")
        .args([
            "-X",
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-U",
            "tester",
            "-d",
            "test",
        ])
        .args(["-v", "ON_ERROR_STOP=1", "-f"])
        .arg(script)
        .env("PGCONNECT_TIMEOUT", "10")
        .env_remove("PGPASSWORD")
        .output()
        .expect("run psql")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psql_copies_from_a_file_and_from_inline_data() {
    if !psql_available() {
        println!("note: psql is not on PATH; skipping the psql COPY test");
        return;
    }
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().expect("temporary directory");
    let csv = dir.path().join("items.csv");
    std::fs::write(&csv, "id,name\n1,\"bolt, steel\"\n2,\n3,\"\"\n").expect("csv");
    let script = dir.path().join("script.sql");
    std::fs::write(
        &script,
        format!(
            "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);
\\copy items from '{}' csv header
COPY items FROM STDIN;
4\tinline \\101\\\\
5\t\\N
\\.
SELECT id, coalesce(name, '<null>') AS name FROM items ORDER BY id;
COPY items TO STDOUT WITH (FORMAT csv);
",
            csv.display()
        ),
    )
    .expect("script");
    let port = server.address.port();
    let output = tokio::task::spawn_blocking(move || run_psql(port, &script))
        .await
        .expect("psql task");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "psql failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout,
        "CREATE TABLE
COPY 3
COPY 2
 id |    name     
----+-------------
  1 | bolt, steel
  2 | <null>
  3 | 
  4 | inline A\\
  5 | <null>
(5 rows)

1,\"bolt, steel\"
2,
3,\"\"
4,inline A\\
5,
"
    );
}
