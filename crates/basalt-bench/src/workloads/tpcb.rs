//! Group D — TPC-B after pgbench: the transaction mix with 1 connection and with 4 threads
//! for a fixed time, the raw INSERT rate of loading `accounts` one row per autocommitted
//! statement, and a full-scan SELECT rate, on disk and in memory.
//!
//! Schema (pgbench's, scale 1): `branches` 1, `tellers` 10, `accounts` 100k, `history`
//! empty; balances start at 0 and the accounts' filler is pgbench's blank-padded 84
//! characters. A transaction is pgbench's tpcb-like script. Writers start with
//! `BEGIN IMMEDIATE` on both engines: SQLite then takes the write lock up front (waiting up
//! to the busy timeout), while Basalt accepts the syntax but runs a deferred transaction whose
//! first write fails with 40001 when another connection committed since `BEGIN`. Either
//! engine's "busy" failures roll back and retry the same transaction; retries are counted
//! and reported.
//!
//! The gate: the warm-up of each TPC-B metric reloads the tables and runs 1,000 seeded
//! transactions (scaled with the data) on one connection (the answer covers every `SELECT abalance` and the final
//! balances). The timed run then checks pgbench's invariant — the sums of account, teller and
//! branch balances and of history deltas are equal — so a lost update under concurrency
//! fails the metric.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::data::Rng;
use crate::digest::Digest;
use crate::driver::{Db, Session, Val};

use super::{Ctx, Group, Metric, SQLITE_ONLY, Sample, Workload, integers};

pub fn workloads() -> Vec<Workload> {
    let workload = |id, title, run| Workload {
        id,
        group: Group::Tpcb,
        title,
        drivers: SQLITE_ONLY,
        foreign_keys: false,
        sqlite_vec: false,
        cache_bytes: crate::driver::CACHE_BYTES,
        run,
    };
    vec![
        workload(
            "D.tpcb.v1",
            "TPC-B transactions for a fixed time, 1 connection and 4 threads",
            tpcb as fn(&mut Ctx<'_>) -> anyhow::Result<()>,
        ),
        workload(
            "D.load.v1",
            "loading accounts one autocommitted INSERT at a time",
            load,
        ),
        workload("D.scan.v1", "full-scan SELECT matching nothing", scan),
    ]
}

const ACCOUNTS: usize = 100_000;
const TELLERS: i64 = 10;
const BRANCHES: i64 = 1;
/// Seeded transactions of the gate (scaled with the data).
const GATE_TRANSACTIONS: usize = 1_000;

/// pgbench's `char(84)` filler as it reads back: blank-padded.
const FILLER: &str =
    "                                                                                    ";

const SCHEMA: &str = "
    DROP TABLE IF EXISTS history;
    DROP TABLE IF EXISTS accounts;
    DROP TABLE IF EXISTS tellers;
    DROP TABLE IF EXISTS branches;
    CREATE TABLE branches (bid INTEGER PRIMARY KEY, bbalance INTEGER NOT NULL, filler TEXT);
    CREATE TABLE tellers (tid INTEGER PRIMARY KEY, bid INTEGER NOT NULL, tbalance INTEGER NOT NULL, filler TEXT);
    CREATE TABLE accounts (aid INTEGER PRIMARY KEY, bid INTEGER NOT NULL, abalance INTEGER NOT NULL, filler TEXT);
    CREATE TABLE history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime TIMESTAMP, filler TEXT);";

const INSERT_ACCOUNT: &str =
    "INSERT INTO accounts (aid, bid, abalance, filler) VALUES (?, 1, 0, ?)";

/// Creates the four tables; loads branches and tellers, and accounts in one transaction.
fn load_tables(session: &mut dyn Session, accounts: usize) -> anyhow::Result<()> {
    session.execute_batch(SCHEMA)?;
    session.execute("BEGIN", &[])?;
    for bid in 1..=BRANCHES {
        session.execute(
            "INSERT INTO branches (bid, bbalance, filler) VALUES (?, 0, NULL)",
            &[Val::Int(bid)],
        )?;
    }
    for tid in 1..=TELLERS {
        session.execute(
            "INSERT INTO tellers (tid, bid, tbalance, filler) VALUES (?, 1, 0, NULL)",
            &[Val::Int(tid)],
        )?;
    }
    for aid in 1..=accounts as i64 {
        session.execute(INSERT_ACCOUNT, &[Val::Int(aid), Val::Text(FILLER)])?;
    }
    session.execute("COMMIT", &[])?;
    Ok(())
}

/// One transaction's random choices.
struct Choice {
    aid: i64,
    tid: i64,
    bid: i64,
    delta: i64,
}

impl Choice {
    fn draw(rng: &mut Rng, accounts: usize) -> Choice {
        Choice {
            aid: rng.range(1, accounts as i64),
            tid: rng.range(1, TELLERS),
            bid: rng.range(1, BRANCHES),
            delta: rng.range(-5000, 5000),
        }
    }
}

/// Runs pgbench's tpcb-like transaction, retrying while the engine says another writer got
/// there first; returns the number of retries.
fn transaction(
    session: &mut dyn Session,
    choice: &Choice,
    sink: &mut Digest,
) -> anyhow::Result<u64> {
    let mut retries = 0;
    loop {
        match attempt(session, choice, sink) {
            Ok(()) => return Ok(retries),
            Err(error) if session.is_retryable(&error) => {
                // The failed statement may have left the transaction open; a ROLLBACK with no
                // transaction open is harmless, so its own result does not matter.
                let _ = session.execute("ROLLBACK", &[]);
                retries += 1;
            }
            Err(error) => {
                let _ = session.execute("ROLLBACK", &[]);
                return Err(error);
            }
        }
    }
}

fn attempt(session: &mut dyn Session, c: &Choice, sink: &mut Digest) -> anyhow::Result<()> {
    session.execute("BEGIN IMMEDIATE", &[])?;
    // Numbered placeholders: Basalt numbers bare `?` in bind order (WHERE before SET), which
    // swaps an UPDATE's parameters (engine bug); `?1`/`?2` mean the same in every engine.
    session.execute(
        "UPDATE accounts SET abalance = abalance + ?1 WHERE aid = ?2",
        &[Val::Int(c.delta), Val::Int(c.aid)],
    )?;
    session.query(
        "SELECT abalance FROM accounts WHERE aid = ?",
        &[Val::Int(c.aid)],
        sink,
    )?;
    session.execute(
        "UPDATE tellers SET tbalance = tbalance + ?1 WHERE tid = ?2",
        &[Val::Int(c.delta), Val::Int(c.tid)],
    )?;
    session.execute(
        "UPDATE branches SET bbalance = bbalance + ?1 WHERE bid = ?2",
        &[Val::Int(c.delta), Val::Int(c.bid)],
    )?;
    session.execute(
        "INSERT INTO history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)",
        &[
            Val::Int(c.tid),
            Val::Int(c.bid),
            Val::Int(c.aid),
            Val::Int(c.delta),
        ],
    )?;
    session.execute("COMMIT", &[])?;
    Ok(())
}

/// pgbench's invariant: every balance sum equals the sum of the deltas applied.
const BALANCES: &str = "SELECT (SELECT SUM(abalance) FROM accounts), (SELECT SUM(tbalance) FROM tellers), \
                        (SELECT SUM(bbalance) FROM branches), (SELECT SUM(delta) FROM history), \
                        (SELECT COUNT(*) FROM history)";

fn tpcb(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let accounts = ctx.size(ACCOUNTS);
    let gate_transactions = ctx.size(GATE_TRANSACTIONS).max(50);
    let db = ctx.open("tpcb")?;
    let seconds = ctx.settings.tpcb_seconds;
    for threads in [1usize, 4] {
        let name = if threads == 1 {
            "1 connection".to_string()
        } else {
            format!("{threads} threads, a connection each")
        };
        ctx.measure(Metric::new(name, "transaction").once(), |s| {
            if s.is_warmup() {
                gate_run(db.as_ref(), accounts, gate_transactions, s)
            } else {
                timed_run(
                    db.as_ref(),
                    accounts,
                    threads,
                    Duration::from_secs_f64(seconds),
                    s,
                )
            }
        })?;
    }
    Ok(())
}

/// The gate: fresh tables, then seeded transactions on one connection.
fn gate_run(
    db: &dyn Db,
    accounts: usize,
    gate_transactions: usize,
    s: &mut Sample<'_>,
) -> anyhow::Result<()> {
    let mut session = db.connect()?;
    load_tables(session.as_mut(), accounts)?;
    let mut rng = s.rng("tpcb.gate");
    for _ in 0..gate_transactions {
        let choice = Choice::draw(&mut rng, accounts);
        transaction(session.as_mut(), &choice, &mut s.digest)?;
    }
    session.query(BALANCES, &[], &mut s.digest)
}

/// Threads run transactions until the deadline; the main thread records throughput per
/// window. Afterwards the invariant must hold.
fn timed_run(
    db: &dyn Db,
    accounts: usize,
    threads: usize,
    duration: Duration,
    s: &mut Sample<'_>,
) -> anyhow::Result<()> {
    let stop = AtomicBool::new(false);
    let committed = AtomicU64::new(0);
    let retries = AtomicU64::new(0);
    let window = (duration / 20).clamp(Duration::from_millis(50), Duration::from_secs(1));
    let thread_seed = s.rng("tpcb.threads").next_u64();
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|thread| {
                let (stop, committed, retries) = (&stop, &committed, &retries);
                let mut rng = Rng::for_item(thread_seed, "tpcb.thread", thread as u64);
                scope.spawn(move || -> anyhow::Result<()> {
                    let mut session = db.connect()?;
                    // What the transactions read is consumed but not part of the answer: how
                    // many run in the time is not deterministic.
                    let mut sink = Digest::unordered();
                    while !stop.load(Ordering::Relaxed) {
                        let choice = Choice::draw(&mut rng, accounts);
                        let retried = transaction(session.as_mut(), &choice, &mut sink)?;
                        committed.fetch_add(1, Ordering::Relaxed);
                        retries.fetch_add(retried, Ordering::Relaxed);
                    }
                    Ok(())
                })
            })
            .collect();
        let start = Instant::now();
        let (mut last_count, mut last_time) = (0, start);
        while start.elapsed() < duration {
            std::thread::sleep(window.min(duration.saturating_sub(start.elapsed())));
            let (count, now) = (committed.load(Ordering::Relaxed), Instant::now());
            if count > last_count {
                s.record(count - last_count, now - last_time);
            }
            (last_count, last_time) = (count, now);
            if handles.iter().all(|handle| handle.is_finished()) {
                break; // every thread failed; their errors follow
            }
        }
        stop.store(true, Ordering::Relaxed);
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a TPC-B thread panicked")))
            })
            .collect::<Vec<_>>()
    });
    for result in results {
        result?;
    }
    s.note("transactions", committed.load(Ordering::Relaxed) as f64);
    s.note("retries", retries.load(Ordering::Relaxed) as f64);
    let mut session = db.connect()?;
    let sums = integers(session.as_mut(), BALANCES, &[])?;
    anyhow::ensure!(
        sums.len() == 5 && sums[0] == sums[3] && sums[1] == sums[3] && sums[2] == sums[3],
        "TPC-B invariant broken (lost or duplicated updates): account, teller, branch and \
         history sums are {:?}",
        &sums[..4.min(sums.len())]
    );
    // The invariant holding is this iteration's (deterministic) answer.
    s.digest.add_figure(1);
    Ok(())
}

/// The accounts check for the load and scan metrics.
const ACCOUNT_CHECK: &str = "SELECT COUNT(*), SUM(aid), SUM(LENGTH(filler)) FROM accounts";

fn load(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let accounts = ctx.size(ACCOUNTS);
    let disk = ctx.open("load")?;
    let memory = ctx.open_memory()?;
    for (db, place) in [(disk, "on disk"), (memory, "in memory")] {
        let mut session = db.connect()?;
        let metric = Metric::new(format!("INSERT one row per statement, {place}"), "insert");
        ctx.measure(metric, |s| {
            session.execute_batch(SCHEMA)?;
            s.time_batches(accounts as u64, 1_000, |index, _| {
                session.execute(
                    INSERT_ACCOUNT,
                    &[Val::Int(index as i64 + 1), Val::Text(FILLER)],
                )?;
                Ok(())
            })?;
            session.query(ACCOUNT_CHECK, &[], &mut s.digest)
        })?;
    }
    Ok(())
}

fn scan(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let accounts = ctx.size(ACCOUNTS);
    let disk = ctx.open("scan")?;
    let memory = ctx.open_memory()?;
    for (db, place) in [(disk, "on disk"), (memory, "in memory")] {
        let mut session = db.connect()?;
        load_tables(session.as_mut(), accounts)?;
        let metric = Metric::new(format!("full scan, {place}"), "row");
        ctx.measure(metric, |s| {
            s.time(accounts as u64, |digest| {
                session.query("SELECT * FROM accounts WHERE abalance = 1", &[], digest)
            })?;
            session.query(ACCOUNT_CHECK, &[], &mut s.digest)
        })?;
    }
    Ok(())
}
