//! The SIGKILL harness of the crash tests (`crash.rs`, `crash_hnsw.rs`, `crash_fts.rs`): run one
//! test of the current test binary as a child process, count the `ACK t` lines it prints after
//! each commit, kill it with SIGKILL after a chosen number of them, and report the last
//! transaction it acknowledged — every line it printed before dying counts, since a commit it
//! acknowledged must survive. The SQL-level index tests share their whole cycle loop as well
//! ([`index_crash_cycles`]) and their child's loop ([`run_child`]): transaction `t` records
//! `t` in a one-row table `progress(n)` as it commits, so a reopened database says which
//! transaction it holds.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers: each test file uses some of them"
)]

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use basalt::{Connection, Database};

/// Runs test `child_test` of this test binary with `env`, kills it once it has acknowledged
/// `kill_after` commits, and returns the last transaction it acknowledged before it died
/// (`acknowledged` when it printed none). Panics, naming `cycle`, when the child exits first.
pub fn run_and_kill(
    child_test: &str,
    env: &[(&str, OsString)],
    kill_after: u64,
    cycle: u64,
    mut acknowledged: u64,
) -> u64 {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args(["--exact", child_test, "--nocapture", "--test-threads=1"]);
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = 0;
    while seen < kill_after {
        let Some(line) = lines.next() else {
            panic!("cycle {cycle}: child exited early")
        };
        if let Some(t) = line.unwrap().strip_prefix("ACK ") {
            acknowledged = t.parse().unwrap();
            seen += 1;
        }
    }
    child.kill().unwrap();
    // Whatever the child printed before it died was acknowledged too.
    for line in lines {
        if let Some(t) = line.unwrap().strip_prefix("ACK ") {
            acknowledged = t.parse().unwrap();
        }
    }
    child.wait().unwrap();
    acknowledged
}

/// A fresh directory `basalt-{name}-{pid}` under the system's temporary directory.
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("basalt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An index crash test: its scratch directory's name, the variable that sets its number of
/// cycles, the variable that hands the child the database's path, the child's test name, and
/// the transaction that builds the index.
pub struct IndexCrashTest<'a> {
    pub name: &'a str,
    pub cycles_var: &'a str,
    pub child_env: &'a str,
    pub child_test: &'a str,
    pub build_at: u64,
}

/// The cycles of an index crash test (a no-op in the child process): `cycles_var` times (20
/// unless set), run the child and kill it — in the first cycle just before the index build,
/// later after 1 to 6 acknowledgements drawn from a fixed xorshift sequence — then reopen the
/// database and `verify(connection, acknowledged, cycle)`, which returns the transaction the
/// database holds. At the end the child must have got past the build, so kills landed both
/// in the build and after it.
pub fn index_crash_cycles(
    test: &IndexCrashTest<'_>,
    mut verify: impl FnMut(&Connection, u64, u64) -> u64,
) {
    if std::env::var(test.child_env).is_ok() {
        return;
    }
    let cycles: u64 = std::env::var(test.cycles_var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let dir = fresh_dir(test.name);
    let path = dir.join("crash.basalt");
    let mut acknowledged = 0u64;
    let mut state: u64 = 0x5EED;
    for cycle in 0..cycles {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let kill_after = if cycle == 0 {
            test.build_at - 1
        } else {
            1 + state % 6
        };
        let env = [(test.child_env, path.clone().into_os_string())];
        acknowledged = run_and_kill(test.child_test, &env, kill_after, cycle, acknowledged);
        let db = Database::open(&path).unwrap();
        let conn = db.connect();
        acknowledged = verify(&conn, acknowledged, cycle);
    }
    assert!(
        acknowledged > test.build_at,
        "the index was built and written after"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The last transaction a database of an index crash test committed: `progress.n`, 0 before
/// the first (no `progress` table yet).
pub fn committed(conn: &Connection) -> u64 {
    let exists: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'progress'",
            (),
            |row| row.get(0),
        )
        .unwrap();
    if exists == 0 {
        return 0;
    }
    let n: i64 = conn
        .query_row("SELECT n FROM progress", (), |row| row.get(0))
        .unwrap();
    n as u64
}

/// Child mode of an index crash test (a no-op unless `child_env` names the database): runs
/// `transaction(conn, t)` for t after the last committed one, printing `ACK t` after each,
/// until killed.
pub fn run_child(child_env: &str, transaction: impl Fn(&Connection, u64)) {
    let Ok(path) = std::env::var(child_env) else {
        return;
    };
    let db = Database::open(&path).unwrap();
    let conn = db.connect();
    let mut t = committed(&conn);
    loop {
        t += 1;
        transaction(&conn, t);
        println!("ACK {t}");
    }
}
