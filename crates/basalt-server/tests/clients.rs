//! Real PostgreSQL clients against `basalt serve`, each a program of `tests/clients/` run as
//! a subprocess with the server's URL: psycopg 3 (every type in text and binary, executemany,
//! COPY, transactions, SQLSTATEs, server-side cursors), asyncpg (the same over its binary
//! protocol, prepared statements, `copy_records_to_table`), SQLAlchemy 2's ORM over psycopg
//! and over asyncpg, and pgjdbc (a statement across its switch to server-prepared binary
//! execution, DatabaseMetaData, batches, transactions, SQLSTATEs).
//!
//! `.ci/run` installs the Python packages into its venv (`BASALT_TEST_PYTHON`) and builds
//! the Java check with Maven before the tests; locally a missing client is skipped with a
//! note, under CI it fails (see `common/clients.rs`).

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a failing client fails the test"
)]

mod common;

use std::process::Command;

use common::TestServer;
use common::clients::{python, require_python_modules, run_to_success, script};

fn url(server: &TestServer, scheme: &str) -> String {
    format!(
        "{scheme}://basalt@127.0.0.1:{}/basalt",
        server.address.port()
    )
}

/// Runs the Python script `name` with the server's URL when `modules` import.
async fn run_python(name: &str, modules: &str, scheme: &str) {
    let python = python();
    if require_python_modules(&python, modules).is_err() {
        return;
    }
    let server = TestServer::start().await;
    let mut command = Command::new(python);
    command.arg(script(name)).arg(url(&server, scheme));
    run_to_success(command).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psycopg_round_trips_every_type() {
    run_python("psycopg_roundtrip.py", "psycopg", "postgresql").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asyncpg_round_trips_every_type() {
    run_python("asyncpg_roundtrip.py", "asyncpg", "postgresql").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlalchemy_orm_over_psycopg() {
    run_python(
        "sqlalchemy_orm.py",
        "sqlalchemy, psycopg",
        "postgresql+psycopg",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlalchemy_orm_over_asyncpg() {
    run_python(
        "sqlalchemy_orm.py",
        "sqlalchemy, asyncpg, greenlet",
        "postgresql+asyncpg",
    )
    .await;
}
