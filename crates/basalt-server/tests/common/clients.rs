//! Running a real client program against a [`TestServer`](super::TestServer): a Python
//! script (psycopg, asyncpg, SQLAlchemy) or the pgjdbc check, as a subprocess with the
//! server's URL, its output shown when it fails.
//!
//! A client that is not installed is skipped with a note on a developer's machine, but under
//! CI (`CI` set to `true`, as `.ci/run` runs) it fails the test: CI installs every client, so
//! a missing one means the install step broke, and a silent skip would hide it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The Python that has the client packages: `$BASALT_TEST_PYTHON` (`.ci/run` sets it to its
/// venv's), else `python3`.
pub fn python() -> String {
    std::env::var("BASALT_TEST_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// Whether the tests run under CI, where a missing client is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value == "true" || value == "1")
}

/// `Ok` when `python` imports every module of `modules`; otherwise skips (returns `Err`
/// after printing why) or, under CI, panics.
pub fn require_python_modules(python: &str, modules: &str) -> Result<(), ()> {
    let imported = Command::new(python)
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|output| output.status.success());
    if imported {
        return Ok(());
    }
    missing(&format!(
        "{python} cannot import {modules} (set BASALT_TEST_PYTHON to a Python that has them)"
    ))
}

/// Skips with a note, or fails under CI.
pub fn missing(what: &str) -> Result<(), ()> {
    assert!(!in_ci(), "CI must have every client: {what}");
    println!("SKIPPED: {what}");
    Err(())
}

/// A script of `tests/clients/`.
pub fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/clients")
        .join(name)
}

/// Runs `command` to its end off the async runtime (the server answers on the runtime's
/// threads meanwhile) and asserts it succeeded, printing its output either way.
pub async fn run_to_success(mut command: Command) {
    let described = format!("{command:?}");
    let output: Output = tokio::task::spawn_blocking(move || command.output())
        .await
        .expect("client task")
        .unwrap_or_else(|error| panic!("cannot run {described}: {error}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    print!("{stdout}");
    assert!(
        output.status.success(),
        "{described} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
}
