//! `basalt serve FILE`: starts the wire protocol server on a file, refuses a non-loopback
//! address, and (when psql is installed) answers psql; the data lands in the file.

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
