//! The wire protocol against real clients: tokio-postgres for the simple and extended query
//! protocols, and a hand-driven connection (`common::RawClient`) for what tokio-postgres does
//! not expose — text-format parameters, the transaction status in ReadyForQuery, command
//! tags, PortalSuspended, pipelines sent in one write and malformed messages.

mod common;

use common::{TestServer, frontend, kinds, status};
use tokio_postgres::SimpleQueryMessage;
use tokio_postgres::error::{ErrorPosition, SqlState};
use tokio_postgres::types::Type;

/// The rows of a simple query, as text (None for NULL).
fn simple_rows(messages: &[SimpleQueryMessage]) -> Vec<Vec<Option<String>>> {
    messages
        .iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => Some(
                (0..row.len())
                    .map(|index| row.get(index).map(str::to_owned))
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

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
async fn simple_query_runs_each_statement_and_stops_at_an_error() {
    let server = TestServer::start().await;
    let client = server.client().await;
    let messages = client
        .simple_query(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, ok BOOLEAN);
             INSERT INTO t VALUES (1, 'a', true), (2, NULL, false);
             SELECT id, name, ok FROM t ORDER BY id;
             UPDATE t SET name = 'b' WHERE id = 2;
             DELETE FROM t WHERE id = 1",
        )
        .await
        .expect("simple query");
    assert_eq!(completions(&messages), [0, 2, 2, 1, 1]);
    assert_eq!(
        simple_rows(&messages),
        [
            [Some("1".into()), Some("a".into()), Some("t".into())],
            [Some("2".into()), None, Some("f".into())]
        ]
    );

    // The error stops the statements after it, and the message's implicit transaction
    // undoes the ones before it.
    let error = client
        .simple_query("INSERT INTO t VALUES (5, 'x', true); SELECT * FROM missing; INSERT INTO t VALUES (6, 'y', true)")
        .await
        .expect_err("missing table");
    assert_eq!(error.code(), Some(&SqlState::UNDEFINED_TABLE));
    let ids = client
        .simple_query("SELECT id FROM t ORDER BY id")
        .await
        .expect("select");
    assert_eq!(simple_rows(&ids), [[Some("2".into())]]);
    // A message with its own transaction control runs statement by statement.
    let error = client
        .simple_query("BEGIN; INSERT INTO t VALUES (5, 'x', true); COMMIT; SELECT * FROM missing")
        .await
        .expect_err("missing table");
    assert_eq!(error.code(), Some(&SqlState::UNDEFINED_TABLE));
    let ids = client
        .simple_query("SELECT id FROM t ORDER BY id")
        .await
        .expect("select");
    assert_eq!(simple_rows(&ids), [[Some("2".into())], [Some("5".into())]]);

    // A syntax error anywhere in the message: nothing runs, and the position points into
    // the whole query string.
    let query = "INSERT INTO t VALUES (7, 'z', true); SELEC 1";
    let error = client.simple_query(query).await.expect_err("syntax error");
    let db_error = error.as_db_error().expect("server error");
    assert_eq!(db_error.code(), &SqlState::SYNTAX_ERROR);
    assert_eq!(
        db_error.position(),
        Some(&ErrorPosition::Original(
            query.find("SELEC").expect("offset") as u32 + 1
        ))
    );
    let count = client
        .simple_query("SELECT count(*) FROM t")
        .await
        .expect("count");
    assert_eq!(simple_rows(&count), [[Some("2".into())]]);

    // Empty queries: EmptyQueryResponse, then ReadyForQuery.
    client.batch_execute(" ; ").await.expect("only a semicolon");
    let mut raw = server.raw().await;
    for empty in ["", " ; ;", "-- nothing\n"] {
        raw.send(&[frontend::query(empty)]).await;
        assert_eq!(kinds(&raw.read_until_ready().await), "IZ", "{empty:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn command_tags_and_transaction_status_follow_postgresql() {
    let server = TestServer::start().await;
    let mut raw = server.raw().await;
    let mut run = async |sql: &str| {
        raw.send(&[frontend::query(sql)]).await;
        raw.read_until_ready().await
    };
    let replies = run(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b'); \
         UPDATE t SET v = 'c'; DELETE FROM t WHERE id = 2; SELECT * FROM t; CREATE INDEX i ON t (v); \
         DROP INDEX i",
    )
    .await;
    let tags: Vec<String> = replies
        .iter()
        .filter(|message| message.kind == b'C')
        .map(|message| message.tag())
        .collect();
    assert_eq!(
        tags,
        [
            "CREATE TABLE",
            "INSERT 0 2",
            "UPDATE 2",
            "DELETE 1",
            "SELECT 1",
            "CREATE INDEX",
            "DROP INDEX"
        ]
    );
    assert_eq!(status(&replies), 'I');

    // BEGIN → T; an error inside → E, and everything but ROLLBACK is refused with 25P02.
    let replies = run("BEGIN").await;
    assert_eq!((kinds(&replies).as_str(), status(&replies)), ("CZ", 'T'));
    assert_eq!(replies[0].tag(), "BEGIN");
    let replies = run("INSERT INTO t VALUES (3, 'x')").await;
    assert_eq!(status(&replies), 'T');
    let replies = run("SELECT * FROM missing").await;
    assert_eq!(replies[0].error_field(b'C').as_deref(), Some("42P01"));
    assert_eq!(status(&replies), 'E');
    let replies = run("SELECT 1").await;
    assert_eq!(replies[0].error_field(b'C').as_deref(), Some("25P02"));
    assert_eq!(status(&replies), 'E');
    let replies = run("ROLLBACK").await;
    assert_eq!(
        (replies[0].tag().as_str(), status(&replies)),
        ("ROLLBACK", 'I')
    );
    // The failed transaction's insert is gone.
    let replies = run("SELECT count(*) FROM t").await;
    assert_eq!(replies[1].fields(), [Some(b"1".to_vec())]);

    // COMMIT of a failed transaction rolls back and says so; ROLLBACK TO SAVEPOINT recovers.
    run("BEGIN; INSERT INTO t VALUES (4, 'y'); SAVEPOINT s").await;
    // The error comes while the rows are produced: after the RowDescription, as in PostgreSQL.
    let replies = run("SELECT 1/0").await;
    assert_eq!(kinds(&replies), "TEZ");
    assert_eq!(replies[1].error_field(b'C').as_deref(), Some("22012"));
    assert_eq!(status(&replies), 'E');
    let replies = run("ROLLBACK TO SAVEPOINT s").await;
    assert_eq!(status(&replies), 'T');
    let replies = run("SELECT no_such_column FROM t").await;
    assert_eq!(status(&replies), 'E');
    let replies = run("COMMIT").await;
    assert_eq!(
        (replies[0].tag().as_str(), status(&replies)),
        ("ROLLBACK", 'I')
    );
    let replies = run("SELECT count(*) FROM t").await;
    assert_eq!(replies[1].fields(), [Some(b"1".to_vec())]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extended_query_infers_parameter_types_and_coerces_narrow_integers() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR(20), score REAL);
             INSERT INTO t SELECT g, 'name ' || g, g / 2.0 FROM generate_series(1, 10) AS s(g)",
        )
        .await
        .expect("setup");

    let statement = client
        .prepare("SELECT id, name, score FROM t WHERE id > $1 AND name <> $2 ORDER BY id")
        .await
        .expect("prepare");
    assert_eq!(statement.params(), [Type::INT8, Type::TEXT]);
    let columns: Vec<(&str, &Type)> = statement
        .columns()
        .iter()
        .map(|column| (column.name(), column.type_()))
        .collect();
    assert_eq!(
        columns,
        [
            ("id", &Type::INT8),
            ("name", &Type::TEXT),
            ("score", &Type::FLOAT8)
        ]
    );
    let rows = client
        .query(&statement, &[&7i64, &"name 9"])
        .await
        .expect("query");
    let got: Vec<(i64, String, f64)> = rows
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
        .collect();
    assert_eq!(
        got,
        [
            (8, "name 8".to_owned(), 4.0),
            (10, "name 10".to_owned(), 5.0)
        ]
    );

    // Types the client declares win: int2 and int4 parameters arrive as 2 and 4 bytes.
    let typed = client
        .prepare_typed(
            "SELECT count(*) FROM t WHERE id BETWEEN $1 AND $2",
            &[Type::INT2, Type::INT4],
        )
        .await
        .expect("prepare typed");
    assert_eq!(typed.params(), [Type::INT2, Type::INT4]);
    let row = client
        .query_one(&typed, &[&2i16, &5i32])
        .await
        .expect("query typed");
    assert_eq!(row.get::<_, i64>(0), 4);

    // A parameter nothing constrains is text, as PostgreSQL's unknown parameters resolve.
    let untyped = client.prepare("SELECT $1").await.expect("prepare untyped");
    assert_eq!(untyped.params(), [Type::TEXT]);
    let row = client.query_one(&untyped, &[&"hello"]).await.expect("echo");
    assert_eq!(row.get::<_, String>(0), "hello");

    // Writes through the extended protocol report their counts.
    let changed = client
        .execute("UPDATE t SET score = $1 WHERE id <= $2", &[&0.5f64, &3i64])
        .await
        .expect("update");
    assert_eq!(changed, 3);

    // Named statements are reused; closing one frees its name.
    let insert = client
        .prepare("INSERT INTO t (id, name) VALUES ($1, $2)")
        .await
        .expect("prepare insert");
    for id in 11..=20i64 {
        let inserted = client
            .execute(&insert, &[&id, &format!("n{id}")])
            .await
            .expect("insert");
        assert_eq!(inserted, 1);
    }
    drop(insert);

    // A statement whose result changes shape under DDL is refused, as PostgreSQL does.
    let star = client
        .prepare("SELECT * FROM t WHERE id = 1")
        .await
        .expect("prepare");
    client
        .batch_execute("ALTER TABLE t ADD COLUMN extra TEXT")
        .await
        .expect("alter");
    let error = client.query(&star, &[]).await.expect_err("result changed");
    assert_eq!(error.code(), Some(&SqlState::FEATURE_NOT_SUPPORTED));
    let count = client
        .query_one("SELECT count(*) FROM t", &[])
        .await
        .expect("count");
    assert_eq!(count.get::<_, i64>(0), 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_carry_sqlstate_and_position_and_the_session_goes_on() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        .await
        .expect("setup");
    client
        .execute("INSERT INTO t VALUES ($1, $2)", &[&1i64, &"a"])
        .await
        .expect("insert");
    let error = client
        .execute("INSERT INTO t VALUES ($1, $2)", &[&1i64, &"b"])
        .await
        .expect_err("duplicate key");
    assert_eq!(error.code(), Some(&SqlState::UNIQUE_VIOLATION));
    let error = client
        .prepare("SELECT * FROM t WHERE")
        .await
        .expect_err("syntax error");
    let db_error = error.as_db_error().expect("server error");
    assert_eq!(db_error.code(), &SqlState::SYNTAX_ERROR);
    assert_eq!(db_error.position(), Some(&ErrorPosition::Original(22)));
    let error = client
        .query("SELECT nope FROM t", &[])
        .await
        .expect_err("undefined column");
    assert_eq!(error.code(), Some(&SqlState::UNDEFINED_COLUMN));

    // In a transaction, an error fails it until ROLLBACK.
    let mut client = client;
    let transaction = client.transaction().await.expect("begin");
    transaction
        .execute("INSERT INTO t VALUES (2, 'b')", &[])
        .await
        .expect("insert in transaction");
    let error = transaction
        .execute("INSERT INTO t VALUES (3, NULL)", &[])
        .await
        .expect_err("not null");
    assert_eq!(error.code(), Some(&SqlState::NOT_NULL_VIOLATION));
    let error = transaction
        .query("SELECT 1", &[])
        .await
        .expect_err("failed transaction");
    assert_eq!(error.code(), Some(&SqlState::IN_FAILED_SQL_TRANSACTION));
    transaction.rollback().await.expect("rollback");
    let count = client
        .query_one("SELECT count(*) FROM t", &[])
        .await
        .expect("count");
    assert_eq!(count.get::<_, i64>(0), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn portals_fetch_a_large_result_in_parts() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    client
        .batch_execute(
            "CREATE TABLE big (id INTEGER PRIMARY KEY, payload TEXT);
             INSERT INTO big SELECT g, 'row ' || g || ' ' || repeat('x', 40) FROM generate_series(1, 20000) AS s(g)",
        )
        .await
        .expect("setup");
    let transaction = client.transaction().await.expect("begin");
    let portal = transaction
        .bind(
            "SELECT id, payload FROM big WHERE id > $1 ORDER BY id",
            &[&0i64],
        )
        .await
        .expect("bind");
    let mut next = 1i64;
    let mut batches = 0;
    loop {
        let rows = transaction
            .query_portal(&portal, 1500)
            .await
            .expect("fetch");
        if rows.is_empty() {
            break;
        }
        batches += 1;
        assert!(rows.len() <= 1500);
        for row in &rows {
            assert_eq!(row.get::<_, i64>(0), next);
            assert!(row.get::<_, &str>(1).starts_with(&format!("row {next} ")));
            next += 1;
        }
    }
    assert_eq!(next, 20001);
    assert_eq!(batches, 14);
    transaction.commit().await.expect("commit");

    // The same through the raw protocol: PortalSuspended after each part, the final
    // CommandComplete after the last, and a simple query streams all 20k rows.
    let mut raw = server.raw().await;
    raw.send(&[
        frontend::query("BEGIN"),
        frontend::parse("q", "SELECT id FROM big ORDER BY id", &[]),
        frontend::bind("p", "q", &[], &[], &[1]),
        frontend::execute("p", 12000),
        frontend::sync(),
    ])
    .await;
    raw.read_until_ready().await;
    let replies = raw.read_until_ready().await;
    let rows = replies
        .iter()
        .filter(|message| message.kind == b'D')
        .count();
    assert_eq!(rows, 12000);
    assert_eq!(replies[replies.len() - 2].kind, b's', "PortalSuspended");
    raw.send(&[frontend::execute("p", 12000), frontend::sync()])
        .await;
    let replies = raw.read_until_ready().await;
    let data: Vec<_> = replies
        .iter()
        .filter(|message| message.kind == b'D')
        .collect();
    assert_eq!(data.len(), 8000);
    assert_eq!(
        data[0].fields(),
        [Some(12001i64.to_be_bytes().to_vec())],
        "binary int8, resumed after the last row sent"
    );
    assert_eq!(replies[replies.len() - 2].tag(), "SELECT 8000");
    raw.send(&[frontend::query("COMMIT; SELECT id FROM big")])
        .await;
    let replies = raw.read_until_ready().await;
    assert_eq!(
        replies
            .iter()
            .filter(|message| message.kind == b'D')
            .count(),
        20000
    );
    assert_eq!(replies[replies.len() - 2].tag(), "SELECT 20000");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_messages_are_answered_in_order_and_an_error_skips_to_sync() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client
        .batch_execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
        .await
        .expect("setup");
    // tokio-postgres pipelines queries polled together.
    let insert = client
        .prepare("INSERT INTO t VALUES ($1)")
        .await
        .expect("prepare");
    let inserts: Vec<_> = (1..=50i64)
        .map(|id| {
            let client = &client;
            let insert = &insert;
            async move { client.execute(insert, &[&id]).await }
        })
        .collect();
    for result in futures::future::join_all(inserts).await {
        assert_eq!(result.expect("pipelined insert"), 1);
    }
    let count = client
        .query_one("SELECT count(*) FROM t", &[])
        .await
        .expect("count");
    assert_eq!(count.get::<_, i64>(0), 50);

    // By hand: a whole pipeline in one write; the error in the second batch skips its other
    // messages up to Sync, and the third batch runs.
    let mut raw = server.raw().await;
    raw.send(&[
        frontend::parse("", "SELECT $1::INTEGER + 1", &[]),
        frontend::bind("", "", &[0], &[Some(b"41")], &[0]),
        frontend::describe(b'P', ""),
        frontend::execute("", 0),
        frontend::sync(),
        frontend::parse("", "SELECT * FROM missing", &[]),
        frontend::bind("", "", &[], &[], &[]),
        frontend::execute("", 0),
        frontend::sync(),
        frontend::parse("s", "SELECT id FROM t WHERE id <= $1 ORDER BY id", &[]),
        frontend::describe(b'S', "s"),
        frontend::bind("", "s", &[0], &[Some(b"2")], &[]),
        frontend::execute("", 0),
        frontend::close(b'S', "s"),
        frontend::sync(),
    ])
    .await;
    let first = raw.read_until_ready().await;
    assert_eq!(kinds(&first), "12TDCZ");
    assert_eq!(first[3].fields(), [Some(b"42".to_vec())]);
    let second = raw.read_until_ready().await;
    assert_eq!(kinds(&second), "EZ");
    assert_eq!(second[0].error_field(b'C').as_deref(), Some("42P01"));
    let third = raw.read_until_ready().await;
    assert_eq!(kinds(&third), "1tT2DDC3Z");
    assert_eq!(third[1].body, [0, 1, 0, 0, 0, 20], "one int8 parameter");
    assert_eq!(third[6].tag(), "SELECT 2");

    // A failed Parse leaves no unnamed statement behind.
    raw.send(&[
        frontend::parse("", "SELECT * FROM missing", &[]),
        frontend::sync(),
        frontend::bind("", "", &[], &[], &[]),
        frontend::sync(),
    ])
    .await;
    assert_eq!(kinds(&raw.read_until_ready().await), "EZ");
    let replies = raw.read_until_ready().await;
    assert_eq!(replies[0].error_field(b'C').as_deref(), Some("26000"));

    // Flush answers what came before it without a Sync.
    raw.send(&[frontend::parse("", "SELECT 1", &[]), frontend::flush()])
        .await;
    assert_eq!(raw.next().await.map(|message| message.kind), Some(b'1'));
    raw.send(&[frontend::sync()]).await;
    assert_eq!(kinds(&raw.read_until_ready().await), "Z");

    // Outside a transaction block, Sync closes every portal: a suspended one cannot be
    // resumed after it, and a portal's name is free again.
    raw.send(&[
        frontend::parse("ids", "SELECT id FROM t ORDER BY id", &[]),
        frontend::bind("p", "ids", &[], &[], &[]),
        frontend::execute("p", 2),
        frontend::sync(),
        frontend::execute("p", 2),
        frontend::sync(),
        frontend::bind("p", "ids", &[], &[], &[]),
        frontend::execute("p", 0),
        frontend::sync(),
    ])
    .await;
    assert_eq!(kinds(&raw.read_until_ready().await), "12DDsZ");
    let replies = raw.read_until_ready().await;
    assert_eq!(replies[0].error_field(b'C').as_deref(), Some("34000"));
    let replies = raw.read_until_ready().await;
    assert_eq!(replies[replies.len() - 2].tag(), "SELECT 50");

    // Empty statements, unknown portals and statements.
    raw.send(&[
        frontend::parse("", "", &[]),
        frontend::bind("", "", &[], &[], &[]),
        frontend::describe(b'P', ""),
        frontend::execute("", 0),
        frontend::sync(),
        frontend::execute("nope", 0),
        frontend::sync(),
        frontend::bind("", "nope", &[], &[], &[]),
        frontend::sync(),
    ])
    .await;
    assert_eq!(kinds(&raw.read_until_ready().await), "12nIZ");
    let replies = raw.read_until_ready().await;
    assert_eq!(replies[0].error_field(b'C').as_deref(), Some("34000"));
    let replies = raw.read_until_ready().await;
    assert_eq!(replies[0].error_field(b'C').as_deref(), Some("26000"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_messages_close_only_their_connection() {
    let server = TestServer::start().await;
    let mut raw = server.raw().await;
    // A Bind whose parameter length runs past the message.
    let mut bind = frontend::bind("", "", &[], &[Some(b"1")], &[]);
    let length_at = bind.len() - 2 - 1 - 4;
    bind[length_at..length_at + 4].copy_from_slice(&1000i32.to_be_bytes());
    raw.send(&[
        frontend::parse("", "SELECT $1::INTEGER", &[]),
        bind,
        frontend::sync(),
    ])
    .await;
    // pgwire's decoder panics on it; the server catches that and answers FATAL 08P01.
    let mut last = None;
    while let Some(message) = raw.next().await {
        last = Some(message);
    }
    let last = last.expect("an error before the connection closed");
    assert_eq!(last.error_field(b'C').as_deref(), Some("08P01"));
    assert_eq!(last.error_field(b'S').as_deref(), Some("FATAL"));

    // A Parse whose parameter type count runs past the message (found by the fuzz target).
    let mut raw = server.raw().await;
    let mut parse = frontend::parse("", "SELECT 1", &[]);
    let count_at = parse.len() - 2;
    parse[count_at..].copy_from_slice(&3i16.to_be_bytes());
    raw.send(&[parse, frontend::sync()]).await;
    let reply = raw
        .next()
        .await
        .expect("an error before the connection closed");
    assert_eq!(reply.error_field(b'C').as_deref(), Some("08P01"));
    assert!(raw.next().await.is_none());

    // A CopyData whose length is shorter than the length field itself (fuzz target too).
    let mut raw = server.raw().await;
    raw.send(&[vec![b'd', 0, 0, 0, 2]]).await;
    let reply = raw
        .next()
        .await
        .expect("an error before the connection closed");
    assert_eq!(reply.error_field(b'C').as_deref(), Some("08P01"));
    assert!(raw.next().await.is_none());

    // A wrong parameter count and a bad binary parameter are errors, not closed connections.
    let mut raw = server.raw().await;
    raw.send(&[
        frontend::parse("", "SELECT $1::INTEGER", &[23]),
        frontend::bind("", "", &[], &[], &[]),
        frontend::sync(),
        frontend::bind("", "", &[1], &[Some(&[1, 2, 3])], &[]),
        frontend::sync(),
        frontend::query("SELECT 1"),
    ])
    .await;
    let replies = raw.read_until_ready().await;
    assert_eq!(replies[1].error_field(b'C').as_deref(), Some("08P01"));
    let replies = raw.read_until_ready().await;
    assert_eq!(replies[0].error_field(b'C').as_deref(), Some("22P03"));
    let replies = raw.read_until_ready().await;
    assert_eq!(kinds(&replies), "TDCZ");

    // The server still takes new clients.
    let client = server.client().await;
    let row = client.query_one("SELECT 1", &[]).await.expect("select");
    assert_eq!(row.get::<_, i64>(0), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_are_written_in_batches_not_per_message() {
    let server = TestServer::start().await;
    let mut raw = server.raw().await;
    raw.send(&[frontend::query(
        "CREATE TABLE big (id INTEGER PRIMARY KEY);
         INSERT INTO big SELECT g FROM generate_series(1, 20000) AS s(g)",
    )])
    .await;
    raw.read_until_ready().await;

    // 20,000 DataRows (about 300 KB) arrive in writes of the sink's buffer size, not one a
    // row: a few dozen reads at most, whatever the timing.
    raw.send(&[frontend::query("SELECT id FROM big")]).await;
    let (reads, messages) = raw.reads_until_ready().await;
    assert_eq!(messages, 20_003);
    assert!(reads < 500, "{reads} reads for {messages} messages");

    // A pipeline of small replies is one write at Sync: it arrives in one read.
    raw.send(&[
        frontend::parse("", "SELECT 1", &[]),
        frontend::bind("", "", &[], &[], &[]),
        frontend::describe(b'P', ""),
        frontend::execute("", 0),
        frontend::parse("", "SELECT 2", &[]),
        frontend::bind("", "", &[], &[], &[]),
        frontend::execute("", 0),
        frontend::sync(),
    ])
    .await;
    assert_eq!(raw.reads_until_ready().await, (1, 10));
}
