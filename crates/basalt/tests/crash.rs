//! Crash tests: every acknowledged commit survives, nothing uncommitted appears.
//!
//! `crash_cycles_with_sigkill`: a child process (this test binary, re-run in child mode)
//! runs workload transactions against a real file and prints `ACK t` after each commit
//! returns. The parent kills it with SIGKILL once it has seen a random number of
//! acknowledgements — so the kill lands at an arbitrary point of a later transaction or
//! checkpoint — then reopens the database and checks that it holds exactly transaction `m`
//! for `m` = the last acknowledged one or the one in flight, that its rows equal the model's,
//! and that the index matches the table. A small automatic-checkpoint threshold makes kills
//! land inside checkpoints too. `BASALT_CRASH_CYCLES=N` sets the number of cycles (200).
//!
//! `crash_cycles_with_fault_injection`: the same workload in-process on the fault-injecting
//! VFS with `synchronous = FULL`: a torn write, a failed fsync or a full disk is armed at a
//! random operation, the workload runs until it fails, then a simulated power cut drops
//! (or partly keeps, tearing at sector boundaries) everything that was not synced.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;
#[path = "common/kill.rs"]
mod kill;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use basalt::storage::pager::Synchronous;
use basalt::storage::vfs::{CrashMode, FaultVfs};
use basalt::txn::{Store, StoreOptions};
use common::{Model, Rng};

const KEY_SPACE: u64 = 2000;
const CHILD_ENV: &str = "BASALT_CRASH_CHILD";

fn store_options(synchronous: Synchronous) -> StoreOptions {
    StoreOptions {
        synchronous,
        cache_bytes: 1 << 20,
        autocheckpoint_frames: 64,
        busy_timeout: Duration::from_secs(10),
        ..StoreOptions::default()
    }
}

fn synchronous_for(cycle: u64) -> Synchronous {
    [Synchronous::Normal, Synchronous::Full, Synchronous::Off][(cycle % 3) as usize]
}

/// Child mode: runs transactions forever (until killed), acknowledging each commit.
#[test]
fn crash_child() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let seed: u64 = std::env::var("BASALT_CRASH_SEED").unwrap().parse().unwrap();
    let cycle: u64 = std::env::var("BASALT_CRASH_CYCLE")
        .unwrap()
        .parse()
        .unwrap();
    let store = Store::open(&path, store_options(synchronous_for(cycle))).unwrap();
    common::initialise(&store).unwrap();
    let mut t = store.begin_read().meta(common::LAST_TXN_SLOT);
    let mut rng = Rng::new(seed ^ cycle);
    loop {
        if rng.below(8) == 0 {
            common::run_rolled_back(&store, rng.next_u64(), KEY_SPACE).unwrap();
        }
        t += 1;
        common::run_transaction(&store, seed, t, KEY_SPACE).unwrap();
        println!("ACK {t}");
    }
}

fn verify(store: &Store, model: &mut Model, acknowledged: u64, cycle: u64) -> u64 {
    let reader = store.begin_read();
    let (last, rows) = common::read_state(&reader)
        .unwrap_or_else(|error| panic!("cycle {cycle}: database damaged after crash: {error}"));
    assert!(
        last == acknowledged || last == acknowledged + 1,
        "cycle {cycle}: database holds transaction {last}, but {acknowledged} were acknowledged"
    );
    assert!(
        *model.after(last) == rows,
        "cycle {cycle}: contents differ from the model after transaction {last}"
    );
    last
}

#[test]
fn crash_cycles_with_sigkill() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let cycles: u64 = std::env::var("BASALT_CRASH_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let seed = 0x00C0_FFEE;
    let dir = kill::fresh_dir("crash");
    let path = dir.join("crash.basalt");
    let mut model = Model::new(seed, KEY_SPACE);
    let mut rng = Rng::new(seed);
    let mut acknowledged = 0u64;
    for cycle in 0..cycles {
        let kill_after = 1 + rng.below(12);
        let env = [
            (CHILD_ENV, path.clone().into_os_string()),
            ("BASALT_CRASH_SEED", seed.to_string().into()),
            ("BASALT_CRASH_CYCLE", cycle.to_string().into()),
        ];
        acknowledged = kill::run_and_kill("crash_child", &env, kill_after, cycle, acknowledged);
        let store = Store::open(&path, store_options(Synchronous::Normal)).unwrap();
        acknowledged = verify(&store, &mut model, acknowledged, cycle);
    }
    println!(
        "SIGKILL crash test: {cycles} cycles, {acknowledged} transactions committed and verified"
    );
    assert!(
        acknowledged >= cycles,
        "every cycle commits at least one transaction"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_process_gets_a_lock_error() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let dir = kill::fresh_dir("lock");
    let path = dir.join("locked.basalt");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_child", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, &path)
        .env("BASALT_CRASH_SEED", "1")
        .env("BASALT_CRASH_CYCLE", "0")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Once the child has committed, it certainly holds the lock.
    while !lines.next().unwrap().unwrap().starts_with("ACK ") {}
    let error = Store::open(&path, StoreOptions::default()).unwrap_err();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        error.to_string().contains("locked by another process"),
        "{error}"
    );
    assert!(
        Store::open(&path, StoreOptions::default()).is_ok(),
        "the lock dies with its process"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn crash_cycles_with_fault_injection() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let cycles: u64 = std::env::var("BASALT_CRASH_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let seed = 0xFA_17;
    let (vfs, controller) = FaultVfs::new(seed);
    let path = Path::new("/fault/db.basalt");
    let mut model = Model::new(seed, KEY_SPACE);
    let mut rng = Rng::new(seed);
    let mut acknowledged = 0u64;
    let mut faults_hit = 0;
    for cycle in 0..cycles {
        let store = Store::open_with_vfs(&vfs, path, store_options(Synchronous::Full)).unwrap();
        acknowledged = verify(&store, &mut model, acknowledged, cycle);
        common::initialise(&store).unwrap();
        let fault = rng.below(3);
        let distance = rng.below(40);
        match fault {
            0 => controller.tear_write_after(distance, rng.below(4096 + 24) as usize),
            1 => controller.fail_sync_after(distance / 4),
            _ => {
                let used = controller.total_size();
                controller.set_space_limit(Some(used + rng.below(200_000)));
            }
        }
        let mut t = acknowledged;
        for _ in 0..60 {
            if rng.below(8) == 0
                && common::run_rolled_back(&store, rng.next_u64(), KEY_SPACE).is_err()
            {
                faults_hit += 1;
                break;
            }
            match common::run_transaction(&store, seed, t + 1, KEY_SPACE) {
                Ok(()) => {
                    t += 1;
                    acknowledged = t;
                }
                Err(_) => {
                    faults_hit += 1;
                    break;
                }
            }
        }
        controller.clear_faults();
        drop(store);
        let mode = if rng.below(2) == 0 {
            CrashMode::LoseUnsynced
        } else {
            CrashMode::KeepSome
        };
        controller.crash(mode);
    }
    let store = Store::open_with_vfs(&vfs, path, store_options(Synchronous::Full)).unwrap();
    verify(&store, &mut model, acknowledged, cycles);
    println!(
        "fault-injection crash test: {cycles} cycles, {faults_hit} injected faults hit, {acknowledged} transactions committed and verified"
    );
    assert!(
        faults_hit > cycles / 3,
        "faults were actually injected ({faults_hit} of {cycles} cycles)"
    );
}
