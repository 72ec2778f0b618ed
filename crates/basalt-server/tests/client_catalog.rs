//! Drivers' catalog queries through the extended protocol, with their parameters bound as the
//! drivers bind them: SQLAlchemy 2's column reflection (as its asyncpg dialect sends it, with
//! 21 typed parameters), psycopg 3's `TypeInfo.fetch` and SQLAlchemy's connect-time queries,
//! each text taken verbatim from the captured traffic of PostgreSQL 15
//! (`pg-clients/statements-pg15.log`). The expected rows are PostgreSQL's for the same table.
//!
//! And SQLAlchemy itself, when Python has `sqlalchemy` and `psycopg` (`$BASALT_TEST_PYTHON`,
//! else `python3`; SKIPPED otherwise, a failure under CI): `sqlalchemy_reflect.py` reflects a schema with every
//! kind of constraint through the inspector and `MetaData.reflect` and checks PostgreSQL 15's
//! answers for the same schema.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a failing psql or query fails the test"
)]

mod common;

use std::process::Command;

use common::TestServer;

const SAMPLE: &str = "CREATE TABLE t(id int primary key, name varchar(40) not null default 'x', \
created timestamptz default now());
CREATE INDEX t_name_idx ON t(name)";

/// SQLAlchemy 2's reflection of a table's columns (`Inspector.get_columns`).
const SQLALCHEMY_COLUMNS: &str = include_str!("sqlalchemy_columns.sql");

/// psycopg 3's `TypeInfo.fetch(conn, name)`.
const PSYCOPG_TYPE_INFO: &str = "SELECT
    typname AS name, oid, typarray AS array_oid,
    oid::regtype::text AS regtype, typdelim AS delimiter
FROM pg_type t
WHERE t.oid = to_regtype($1)
ORDER BY t.oid";

#[tokio::test]
async fn sqlalchemy_reflects_the_sample_table() {
    let server = TestServer::start().await;
    let client = server.client().await;
    client.batch_execute(SAMPLE).await.expect("schema");

    let version: String = client
        .query_one("select pg_catalog.version()", &[])
        .await
        .expect("version")
        .get(0);
    assert!(version.starts_with("PostgreSQL 15."), "{version}");
    let schema: String = client
        .query_one("select current_schema()", &[])
        .await
        .expect("current_schema")
        .get(0);
    assert_eq!(schema, "public");
    let described = client
        .prepare("show transaction isolation level")
        .await
        .expect("describe SHOW");
    assert_eq!(described.columns()[0].name(), "transaction_isolation");
    for (statement, expected) in [
        ("show standard_conforming_strings", "on"),
        ("show transaction isolation level", "serializable"),
    ] {
        let rows = client.simple_query(statement).await.expect(statement);
        let value = rows.iter().find_map(|message| match message {
            tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_owned),
            _ => None,
        });
        assert_eq!(value.as_deref(), Some(expected), "{statement}");
    }

    let rows = client
        .query(
            SQLALCHEMY_COLUMNS,
            &[
                &"",
                &"always",
                &"a",
                &"start",
                &"increment",
                &"minvalue",
                &"maxvalue",
                &"cache",
                &"cycle",
                &"",
                &0_i64,
                &"name",
                &"schema",
                &0_i64,
                &"r",
                &"p",
                &"f",
                &"v",
                &"m",
                &"pg_catalog",
                &"t",
            ],
        )
        .await
        .expect("SQLAlchemy's reflection query");
    let columns: Vec<(String, String, Option<String>, bool, String)> = rows
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4)))
        .collect();
    let expected = [
        ("id", "integer", None, true),
        (
            "name",
            "character varying(40)",
            Some("'x'::character varying"),
            true,
        ),
        ("created", "timestamp with time zone", Some("now()"), false),
    ];
    assert_eq!(columns.len(), expected.len(), "{columns:?}");
    for (column, (name, type_name, default, not_null)) in columns.iter().zip(expected) {
        assert_eq!(column.0, name);
        assert_eq!(column.1, type_name);
        assert_eq!(column.2.as_deref(), default);
        assert_eq!(column.3, not_null);
        assert_eq!(column.4, "t");
    }
    for row in &rows {
        // No comment, identity options or collation (the last two are JSON).
        let comment: Option<String> = row.get(5);
        assert_eq!(comment, None);
        for index in [7, 8] {
            let value: Option<serde_json::Value> = row.get(index);
            assert_eq!(value, None, "column {index}");
        }
        let generated: String = row.get(6);
        assert_eq!(generated, "");
    }
}

#[tokio::test]
async fn psycopg_type_info_finds_built_in_types_and_not_missing_ones() {
    let server = TestServer::start().await;
    let client = server.client().await;
    let rows = client
        .query(PSYCOPG_TYPE_INFO, &[&"int4"])
        .await
        .expect("TypeInfo.fetch");
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    let (name, oid, array, regtype, delimiter): (String, i64, i64, String, String) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    assert_eq!((name.as_str(), oid, array), ("int4", 23, 1007));
    assert_eq!((regtype.as_str(), delimiter.as_str()), ("integer", ","));

    let vector = client
        .query(PSYCOPG_TYPE_INFO, &[&"vector"])
        .await
        .expect("TypeInfo.fetch vector");
    assert_eq!(vector.len(), 1, "Basalt's vector type is in pg_type");
    let missing = client
        .query(PSYCOPG_TYPE_INFO, &[&"hstore"])
        .await
        .expect("TypeInfo.fetch hstore");
    assert!(missing.is_empty());
}

/// The schema `sqlalchemy_reflect.py` expects.
const REFLECTED: &str =
    "CREATE TABLE t(id int primary key, name varchar(40) not null default 'x', \
created timestamptz default now());
CREATE INDEX t_name_idx ON t(name);
CREATE TABLE orders(order_id bigint primary key, t_id int references t(id), code text unique, \
qty int check (qty > 0));
CREATE INDEX orders_qty_desc ON orders(qty DESC);
CREATE VIEW big_orders AS SELECT order_id, qty FROM orders WHERE qty > 10;
CREATE SEQUENCE order_numbers";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlalchemy_inspector_reflects_a_schema() {
    let python = common::clients::python();
    if common::clients::require_python_modules(&python, "sqlalchemy, psycopg").is_err() {
        return;
    }
    let server = TestServer::start().await;
    let client = server.client().await;
    client.batch_execute(REFLECTED).await.expect("schema");
    let url = format!(
        "postgresql+psycopg://basalt@127.0.0.1:{}/basalt",
        server.address.port()
    );
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/clients/sqlalchemy_reflect.py"
    );
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .arg(script)
            .arg(url)
            .output()
            .expect("run python")
    })
    .await
    .expect("python task");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
