//! psql (PostgreSQL 15's client) drives a script through the server and its output is
//! checked line by line. Skipped, with a note, when psql is not installed.

mod common;

use std::process::Command;

use common::TestServer;

const SCRIPT: &str = r"CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, active BOOLEAN);
INSERT INTO items VALUES (1, 'bolt', 0.25, true), (2, 'nut', 0.1, false), (3, 'washer', NULL, true);
UPDATE items SET price = 0.05 WHERE id = 3;
SELECT id, name, price, active FROM items ORDER BY id;
BEGIN;
DELETE FROM items WHERE id = 2;
SELECT count(*) AS n FROM items \gset
ROLLBACK;
\echo :n
SELECT name FROM items WHERE price > 0.09 ORDER BY name;
";

const EXPECTED: &str = "CREATE TABLE
INSERT 0 3
UPDATE 1
 id |  name  | price | active 
----+--------+-------+--------
  1 | bolt   |  0.25 | t
  2 | nut    |   0.1 | f
  3 | washer |  0.05 | t
(3 rows)

BEGIN
DELETE 1
ROLLBACK
2
 name 
------
 bolt
 nut
(2 rows)

";

fn psql_available() -> bool {
    Command::new("psql").arg("--version").output().is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psql_runs_a_script() {
    if !psql_available() {
        println!("note: psql is not on PATH; skipping the psql test");
        return;
    }
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().expect("temporary directory");
    let script = dir.path().join("script.sql");
    std::fs::write(&script, SCRIPT).expect("script");
    let port = server.address.port().to_string();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("psql")
            .args([
                "-X",
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "tester",
                "-d",
                "test",
            ])
            .args(["-v", "ON_ERROR_STOP=1", "-f"])
            .arg(&script)
            .env("PGCONNECT_TIMEOUT", "10")
            .env_remove("PGPASSWORD")
            .output()
            .expect("run psql")
    })
    .await
    .expect("psql task");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "psql failed: {stderr}\n{stdout}");
    assert_eq!(stdout, EXPECTED, "stderr: {stderr}");

    // An error stops the script (ON_ERROR_STOP) with psql's exit status 3 and the SQLSTATE's
    // message on stderr.
    let failing = dir.path().join("failing.sql");
    std::fs::write(&failing, "SELECT 1;\nSELECT * FROM missing;\nSELECT 2;\n").expect("script");
    let port = server.address.port().to_string();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("psql")
            .args([
                "-X",
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "tester",
                "-d",
                "test",
            ])
            .args(["-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose", "-f"])
            .arg(&failing)
            .output()
            .expect("run psql")
    })
    .await
    .expect("psql task");
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("42P01"), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !stdout.contains(" 2\n"),
        "the statement after the error ran: {stdout}"
    );
}
