//! SCRAM-SHA-256 password authentication: tokio-postgres and psql log in with the right
//! password, and a wrong password or an unknown user gets FATAL 28P01 with PostgreSQL's text
//! (the same for both); a verifier recorded from PostgreSQL 15 works as is; a password file
//! written by `set_password` is read back; without users, a non-loopback address is refused.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: a broken server fails the test"
)]

mod common;

use std::process::Command;

use basalt_server::ServerConfig;
use basalt_server::auth::{Users, Verifier, set_password};
use common::TestServer;
use tokio_postgres::NoTls;

/// `CREATE ROLE bob LOGIN PASSWORD 'hunter2 é'` in a PostgreSQL 15.18 cluster
/// (`password_encryption = scram-sha-256`, the default), then `SELECT rolpassword FROM
/// pg_authid WHERE rolname = 'bob'`. Its StoredKey and ServerKey are also what Python's
/// hashlib.pbkdf2_hmac / hmac give for that password and salt.
const POSTGRES_VERIFIER: &str = "SCRAM-SHA-256$4096:rE8ei4wWG8APohuPMSId/g==$rOw4UwdJQ95BVYDAIDhUalt3fO9kZ46BUW8L3C5182A=:NdIckJIsPDdOMlVyZr22YzJpt//fN5rOz3GBx/PGJSk=";

const BOB_PASSWORD: &str = "hunter2 é";

fn users() -> Users {
    let bob = Verifier::parse(POSTGRES_VERIFIER).expect("PostgreSQL's verifier parses");
    let alice = Verifier::from_password("wonderland", b"fixed salt alice", 4096);
    Users::new([("bob".to_owned(), bob), ("alice".to_owned(), alice)]).expect("users")
}

async fn server() -> TestServer {
    TestServer::start_with(ServerConfig::default().with_users(users())).await
}

/// Connects as `user` with `password`; the server's error (code, message) if refused.
async fn login(server: &TestServer, user: &str, password: &str) -> Result<(), (String, String)> {
    let mut config = server.config();
    config.user(user).password(password);
    match config.connect(NoTls).await {
        Ok((client, connection)) => {
            tokio::spawn(connection);
            let row = client.query_one("SELECT 1 + 1", &[]).await.expect("query");
            assert_eq!(row.get::<_, i64>(0), 2);
            Ok(())
        }
        Err(error) => {
            let db = error.as_db_error().expect("a server error");
            Err((db.code().code().to_owned(), db.message().to_owned()))
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scram_logs_in_with_the_right_password_only() {
    let server = server().await;
    assert_eq!(login(&server, "alice", "wonderland").await, Ok(()));
    // The verifier PostgreSQL made, with a non-ASCII password.
    assert_eq!(login(&server, "bob", BOB_PASSWORD).await, Ok(()));
    let refused = |user: &str| {
        Err((
            "28P01".to_owned(),
            format!("password authentication failed for user \"{user}\""),
        ))
    };
    assert_eq!(login(&server, "alice", "wrong").await, refused("alice"));
    assert_eq!(login(&server, "bob", "hunter2").await, refused("bob"));
    // An unknown user is told exactly what a wrong password is told.
    assert_eq!(
        login(&server, "mallory", "wonderland").await,
        refused("mallory")
    );
    // Refusals leave the server serving.
    assert_eq!(login(&server, "alice", "wonderland").await, Ok(()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_a_password_is_refused() {
    let server = server().await;
    let mut config = server.config();
    config.user("alice");
    let error = config.connect(NoTls).await.err().expect("refused");
    // tokio-postgres gives up itself when asked for a password it was not given.
    assert!(format!("{error:?}").contains("password"), "{error:?}");
}

fn psql_available() -> bool {
    Command::new("psql").arg("--version").output().is_ok()
}

/// Runs `SELECT 42` through psql as `user` with `password`: (success, stdout, stderr).
async fn psql(server: &TestServer, user: &str, password: &str) -> (bool, String, String) {
    let port = server.address.port().to_string();
    let (user, password) = (user.to_owned(), password.to_owned());
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
            .args(["-c", "SELECT 42"])
            .env("PGPASSWORD", &password)
            .env("PGCONNECT_TIMEOUT", "10")
            .env("PGSSLMODE", "disable")
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
async fn psql_logs_in_with_scram() {
    if !psql_available() {
        println!("note: psql is not on PATH; skipping the psql test");
        return;
    }
    let server = server().await;
    let (ok, stdout, stderr) = psql(&server, "bob", BOB_PASSWORD).await;
    assert!(ok, "psql failed: {stderr}");
    assert_eq!(stdout, "42\n");
    for (user, password) in [("bob", "wrong"), ("nobody", BOB_PASSWORD)] {
        let (ok, _, stderr) = psql(&server, user, password).await;
        assert!(!ok);
        assert!(
            stderr.contains(&format!(
                "FATAL:  password authentication failed for user \"{user}\""
            )),
            "{stderr}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_password_writes_a_file_the_server_reads() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let file = dir.path().join("users");
    std::fs::write(&file, format!("# users\n\nbob:{POSTGRES_VERIFIER}\n")).expect("write");
    set_password(&file, "carol", "first").expect("add carol");
    set_password(&file, "carol", "second").expect("change carol's password");
    let text = std::fs::read_to_string(&file).expect("read");
    assert!(
        !text.contains("first") && !text.contains("second"),
        "{text}"
    );
    assert_eq!(
        text.matches("carol:SCRAM-SHA-256$4096:").count(),
        1,
        "{text}"
    );
    assert!(text.starts_with("# users\n\nbob:"), "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the file is readable by its owner only");
    }
    let users = Users::load(&file).expect("load");
    assert_eq!(users.len(), 2);
    let server = TestServer::start_with(ServerConfig::default().with_users(users)).await;
    assert_eq!(login(&server, "carol", "second").await, Ok(()));
    assert!(login(&server, "carol", "first").await.is_err());
    assert_eq!(login(&server, "bob", BOB_PASSWORD).await, Ok(()));

    std::fs::write(&file, "bob:md5deadbeef\n").expect("write");
    let error = Users::load(&file).expect_err("an md5 verifier is refused");
    assert!(error.to_string().contains("line 1"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_password_authentication_may_listen_beyond_loopback() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let open = || basalt::Database::open(dir.path().join("t.basalt")).expect("open");
    let everywhere = "0.0.0.0:0".parse().expect("address");
    let refused = basalt_server::Server::bind(open(), everywhere).await;
    assert!(matches!(
        refused,
        Err(basalt_server::ServeError::NotLoopback(_))
    ));
    let config = ServerConfig::default().with_users(users());
    let server = basalt_server::Server::bind_with(open(), everywhere, config).await;
    assert!(server.is_ok(), "{server:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_sasl_message_is_a_protocol_violation() {
    let server = server().await;
    let stream = tokio::net::TcpStream::connect(server.address)
        .await
        .expect("connect");
    let mut raw = common::RawClient::from_stream(stream);
    raw.startup(&[("user", "alice"), ("database", "test")])
        .await;
    let asked = raw.next().await.expect("AuthenticationSASL");
    assert_eq!(asked.kind, b'R');
    // A SASLInitialResponse whose length runs past the message (pgwire's own reader panics
    // on it; the server reads it itself).
    let mut body = b"SCRAM-SHA-256\0".to_vec();
    body.extend_from_slice(&1000i32.to_be_bytes());
    body.extend_from_slice(b"n,,n=,r=abc");
    let mut message = vec![b'p'];
    message.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
    message.extend_from_slice(&body);
    raw.send(&[message]).await;
    let reply = raw
        .next()
        .await
        .expect("an error before the connection closed");
    assert_eq!(reply.error_field(b'C').as_deref(), Some("08P01"));
    assert_eq!(reply.error_field(b'S').as_deref(), Some("FATAL"));
    assert!(raw.next().await.is_none());
}
