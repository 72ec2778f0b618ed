//! Ctrl-C at the prompt: it cancels the running statement (SQLSTATE 57014) and the session
//! goes on. The shell is driven through pipes with `--interactive`, and SIGINT is sent with
//! `kill` the way a terminal sends it to the foreground process.

#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// A query that would run for days: a three-way cross join of 10,000-row tables.
const ENDLESS: &str = "\
CREATE TABLE digits (d INTEGER);
INSERT INTO digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
CREATE TABLE big AS SELECT a.d FROM digits a, digits b, digits c, digits d;
SELECT count(*) FROM big a, big b, big c;
";

#[test]
fn ctrl_c_cancels_the_running_statement_and_the_session_goes_on() {
    let home = tempfile::tempdir().unwrap();
    let mut child = common::spawn(home.path(), &["--interactive"]);
    let mut stdin = child.stdin.take().unwrap();
    let lines = |stream: Box<dyn Read + Send>| {
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                if sender.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        receiver
    };
    let stdout = lines(Box::new(child.stdout.take().unwrap()));
    let stderr = lines(Box::new(child.stderr.take().unwrap()));

    // A first answer means the prompt is up, and with it the shell's SIGINT handler (before
    // that, SIGINT would end the process as it ends any program).
    writeln!(stdin, "SELECT 'ready' AS state;").unwrap();
    while !stdout.recv().unwrap().contains("ready") {}

    stdin.write_all(ENDLESS.as_bytes()).unwrap();
    // SIGINT before the query starts is forgotten by design, so keep sending until the
    // cancellation shows (the query cannot finish on its own).
    let mut cancelled = None;
    for _ in 0..600 {
        let kill = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        if let Ok(line) = stderr.recv_timeout(Duration::from_millis(100)) {
            cancelled = Some(line);
            break;
        }
    }
    assert_eq!(
        cancelled.as_deref(),
        Some("Error [57014]: canceling statement due to user request")
    );

    writeln!(stdin, "SELECT 'still here' AS state;").unwrap();
    drop(stdin);
    let rest: Vec<String> = stdout.iter().collect();
    assert!(
        rest.iter().any(|line| line.contains("still here")),
        "{rest:?}"
    );
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
