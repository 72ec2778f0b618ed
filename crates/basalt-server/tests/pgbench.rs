//! pgbench (PostgreSQL 15's) against the server: `pgbench -i -s 1` (its DROP / CREATE
//! TABLE ... WITH (fillfactor), TRUNCATE, COPY ... FROM STDIN WITH (FREEZE ON), VACUUM
//! ANALYZE and ALTER TABLE ADD PRIMARY KEY), then TPC-B-like runs under each query mode
//! (`-M simple`, `extended`, `prepared`) with several clients, and TPC-B's balance invariant
//! checked afterwards: the accounts, tellers and branches hold the same total, and it is the
//! sum of the history's deltas, so no transaction was half applied. Skipped, with a note,
//! when pgbench is not installed (a failure under CI, `CI=true`, whose machine has
//! PostgreSQL 15's client tools).

#![allow(clippy::expect_used, clippy::panic, reason = "tests")]

mod common;

use std::process::Command;

use common::TestServer;

fn pgbench_available() -> bool {
    Command::new("pgbench").arg("--version").output().is_ok()
}

/// Runs pgbench with `args` against `server`; its standard output, or a panic with both
/// streams when it fails.
async fn pgbench(server: &TestServer, args: &[&str]) -> String {
    let port = server.address.port().to_string();
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let run_args = args.clone();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("pgbench")
            .args(["-h", "127.0.0.1", "-p", &port, "-U", "tester"])
            .args(&run_args)
            .arg("test")
            .env("PGCONNECT_TIMEOUT", "10")
            .env_remove("PGPASSWORD")
            .output()
            .expect("run pgbench")
    })
    .await
    .expect("pgbench task");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "pgbench {args:?} failed:\n{stdout}\n{stderr}"
    );
    stdout
}

/// The number after `label` on its line of pgbench's report.
fn reported(report: &str, label: &str) -> u64 {
    report
        .lines()
        .find_map(|line| line.strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("no {label:?} in the report:\n{report}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pgbench_initializes_and_runs_in_every_query_mode() {
    if !pgbench_available() {
        // A note locally; under CI, which has PostgreSQL's client tools, a failure.
        let _ = common::clients::missing("pgbench is not on PATH; skipping the pgbench test");
        return;
    }
    let server = TestServer::start().await;
    pgbench(&server, &["-i", "-s", "1", "-q"]).await;
    let client = server.client().await;
    let accounts: i64 = client
        .query_one("SELECT count(*) FROM pgbench_accounts", &[])
        .await
        .expect("count")
        .get(0);
    assert_eq!(accounts, 100_000);

    let mut processed = 0;
    for mode in ["simple", "extended", "prepared"] {
        // -n: no VACUUM and no TRUNCATE of the history before the run, so the history keeps
        // every transaction of the three runs for the invariant below.
        let report = pgbench(
            &server,
            &["-n", "-M", mode, "-c", "3", "-j", "3", "-T", "4"],
        )
        .await;
        let done = reported(&report, "number of transactions actually processed: ");
        assert!(done > 0, "{mode}: no transaction ran:\n{report}");
        assert_eq!(
            reported(&report, "number of failed transactions: "),
            0,
            "{mode}:\n{report}"
        );
        processed += done;
    }

    let row = client
        .query_one(
            "SELECT (SELECT sum(abalance) FROM pgbench_accounts),
                    (SELECT sum(tbalance) FROM pgbench_tellers),
                    (SELECT sum(bbalance) FROM pgbench_branches),
                    (SELECT sum(delta) FROM pgbench_history),
                    (SELECT count(*) FROM pgbench_history)",
            &[],
        )
        .await
        .expect("invariant query");
    let (accounts, tellers, branches, history): (i64, i64, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!((accounts, tellers, branches), (history, history, history));
    let transactions: i64 = row.get(4);
    assert_eq!(u64::try_from(transactions).expect("count"), processed);
    let check: String = client
        .query_one("PRAGMA integrity_check", &[])
        .await
        .expect("integrity check")
        .get(0);
    assert_eq!(check, "ok");
}
