//! `basalt serve FILE`: starts the wire protocol server on a file, refuses a non-loopback
//! address without a password file, and (when psql is installed) answers psql; the data lands
//! in the file. `basalt passwd` writes a user that `serve --password-file` then asks for.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::Command;

use common::{Scratch, spawn};

#[test]
fn serve_refuses_a_non_loopback_address() {
    let scratch = Scratch::new();
    let run = scratch.run(
        &["serve", &scratch.arg("db.basalt"), "--listen", "0.0.0.0:0"],
        "",
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("refusing to listen on 0.0.0.0:0"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("loopback"), "{}", run.stderr);
}

#[test]
fn serve_answers_psql_and_writes_the_file() {
    let scratch = Scratch::new();
    let file = scratch.arg("served.basalt");
    let mut child = spawn(
        scratch.path("").as_path(),
        &["serve", &file, "--listen", "127.0.0.1:0"],
    );
    // The first line says where it listens: "Serving FILE on 127.0.0.1:PORT ...".
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let address = line
        .split_whitespace()
        .skip_while(|word| *word != "on")
        .nth(1)
        .expect("address in the banner")
        .to_owned();
    assert!(address.starts_with("127.0.0.1:"), "{line}");
    let port = address.rsplit(':').next().unwrap().to_owned();

    if Command::new("psql").arg("--version").output().is_ok() {
        let output = Command::new("psql")
            .args([
                "-X",
                "-A",
                "-t",
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-v",
                "ON_ERROR_STOP=1",
            ])
            .args([
                "-c",
                "CREATE TABLE t (a INTEGER)",
                "-c",
                "INSERT INTO t VALUES (41), (1)",
            ])
            .args(["-c", "SELECT sum(a) FROM t"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "CREATE TABLE\nINSERT 0 2\n42\n"
        );
    } else {
        println!("note: psql is not on PATH; only checking that the server starts");
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let run = scratch.run(&[&file, "SELECT count(*) FROM t"], "");
    if Command::new("psql").arg("--version").output().is_ok() {
        assert!(run.stdout.contains('2'), "{run:?}");
    }
}

#[test]
fn passwd_makes_a_user_that_serve_asks_for() {
    let scratch = Scratch::new();
    let users = scratch.arg("users");
    let run = scratch.run(&["passwd", &users, "alice"], "s3cret pass\n");
    assert_eq!(run.code, 0, "{run:?}");
    let text = scratch.read("users");
    assert!(text.starts_with("alice:SCRAM-SHA-256$4096:"), "{text}");
    assert!(!text.contains("s3cret"), "{text}");

    // With a password file, a non-loopback address is allowed.
    let file = scratch.arg("secure.basalt");
    let mut child = spawn(
        scratch.path("").as_path(),
        &[
            "serve",
            &file,
            "--listen",
            "0.0.0.0:0",
            "--password-file",
            &users,
        ],
    );
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("0.0.0.0:"), "{line}");
    let port = line
        .split_whitespace()
        .skip_while(|word| *word != "-p")
        .nth(1)
        .expect("port in the banner")
        .trim_end_matches('.')
        .to_owned();
    if Command::new("psql").arg("--version").output().is_ok() {
        let psql = |password: &str| {
            Command::new("psql")
                .args([
                    "-X",
                    "-A",
                    "-t",
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &port,
                    "-U",
                    "alice",
                ])
                .args(["-c", "SELECT 6 * 7"])
                .env("PGPASSWORD", password)
                .env("PGSSLMODE", "disable")
                .output()
                .unwrap()
        };
        let output = psql("s3cret pass");
        assert!(output.status.success(), "{output:?}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), "42\n");
        let output = psql("wrong");
        assert!(!output.status.success());
        assert!(
            String::from_utf8_lossy(&output.stderr)
                .contains("password authentication failed for user \"alice\""),
            "{output:?}"
        );
    }
    child.kill().unwrap();
    child.wait().unwrap();
}
