//! TLS: with `--tls-cert` / `--tls-key` an SSLRequest is answered `S` and psql's
//! `sslmode=require` connects over TLS (psql's `\conninfo` says so), also with a SCRAM
//! login on top; without them `sslmode=require` fails (the server answers `N`) while the
//! default `sslmode=prefer` connects in the clear. A certificate and key that do not belong
//! together, or files that are not PEM, are refused before the server starts.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a broken server fails the test"
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use basalt_server::ServerConfig;
use basalt_server::auth::{Users, Verifier};
use basalt_server::tls::acceptor_from_pem_files;
use common::TestServer;

/// A self-signed certificate for `localhost` and its key, as PEM files in `dir`.
fn self_signed(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let generated = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()])
        .expect("a self-signed certificate");
    let certificate = dir.join(format!("{name}.crt"));
    let key = dir.join(format!("{name}.key"));
    std::fs::write(&certificate, generated.cert.pem()).expect("write certificate");
    std::fs::write(&key, generated.signing_key.serialize_pem()).expect("write key");
    (certificate, key)
}

fn psql_available() -> bool {
    Command::new("psql").arg("--version").output().is_ok()
}

/// psql's `\conninfo` through `sslmode`, as `user` with `password`: (success, stdout,
/// stderr).
async fn conninfo(
    server: &TestServer,
    sslmode: &str,
    user: &str,
    password: &str,
) -> (bool, String, String) {
    let port = server.address.port().to_string();
    let (sslmode, user, password) = (sslmode.to_owned(), user.to_owned(), password.to_owned());
    let output = tokio::task::spawn_blocking(move || {
        Command::new("psql")
            .args([
                "-X",
                "-At",
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                &user,
                "-d",
                "test",
            ])
            .args(["-c", "\\conninfo", "-c", "SELECT 'over ' || 'the wire'"])
            .env("PGSSLMODE", &sslmode)
            .env("PGPASSWORD", &password)
            .env("PGCONNECT_TIMEOUT", "10")
            .output()
            .expect("run psql")
    })
    .await
    .expect("psql task");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sslmode_require_connects_over_tls() {
    if !psql_available() {
        println!("note: psql is not on PATH; skipping the TLS test");
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let (certificate, key) = self_signed(dir.path(), "server");
    let acceptor = acceptor_from_pem_files(&certificate, &key).expect("acceptor");
    let server = TestServer::start_with(ServerConfig::default().with_tls(acceptor.clone())).await;
    let (ok, stdout, stderr) = conninfo(&server, "require", "tester", "").await;
    assert!(ok, "psql failed: {stderr}");
    assert!(
        stdout.contains("SSL connection (protocol: TLSv1."),
        "{stdout}"
    );
    assert!(stdout.ends_with("over the wire\n"), "{stdout}");

    // SCRAM inside TLS; a wrong password is still 28P01.
    let alice = Verifier::from_password("pencil", b"some salt", 4096);
    let users = Users::new([("alice".to_owned(), alice)]).expect("users");
    let config = ServerConfig::default().with_tls(acceptor).with_users(users);
    let server = TestServer::start_with(config).await;
    let (ok, stdout, stderr) = conninfo(&server, "require", "alice", "pencil").await;
    assert!(ok, "psql failed: {stderr}");
    assert!(stdout.contains("SSL connection"), "{stdout}");
    let (ok, _, stderr) = conninfo(&server, "require", "alice", "wrong").await;
    assert!(!ok);
    assert!(
        stderr.contains("password authentication failed for user \"alice\""),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_tls_sslmode_require_fails_and_prefer_connects_in_the_clear() {
    if !psql_available() {
        println!("note: psql is not on PATH; skipping the TLS test");
        return;
    }
    let server = TestServer::start().await;
    let (ok, _, stderr) = conninfo(&server, "require", "tester", "").await;
    assert!(!ok);
    assert!(
        stderr.contains("server does not support SSL, but SSL was required"),
        "{stderr}"
    );
    let (ok, stdout, stderr) = conninfo(&server, "prefer", "tester", "").await;
    assert!(ok, "psql failed: {stderr}");
    assert!(!stdout.contains("SSL connection"), "{stdout}");
}

#[test]
fn a_key_that_does_not_fit_the_certificate_is_refused() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let (certificate, _) = self_signed(dir.path(), "one");
    let (_, other_key) = self_signed(dir.path(), "two");
    let error = acceptor_from_pem_files(&certificate, &other_key)
        .err()
        .expect("a mismatched key is refused");
    assert!(error.to_string().contains("two.key"), "{error}");
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "not a certificate").expect("write");
    let error = acceptor_from_pem_files(&garbage, &other_key)
        .err()
        .expect("garbage is refused");
    assert!(error.to_string().contains("garbage.pem"), "{error}");
}
