//! Corruption tests: no damaged file makes Basalt panic, hang or return wrong data.
//!
//! A valid database is built with the shared workload, then damaged in many ways — random
//! bytes, a page overwritten with noise or zeros or another page, a truncated file, a damaged
//! log. Opening and fully scanning each damaged copy must either fail with an error or
//! return exactly the right contents. Checksums catch most damage before any parser sees it;
//! a second pass re-seals the checksums of the damaged pages, so the page parsers themselves
//! must reject nonsense (there, any `Ok` result is accepted: the bytes are "valid").

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;

use std::path::Path;
use std::time::Duration;

use basalt::storage::PageBuf;
use basalt::storage::pager::Synchronous;
use basalt::storage::vfs::{MemoryVfs, Vfs};
use basalt::txn::{Store, StoreOptions};
use common::{Model, Rng};

const KEY_SPACE: u64 = 400;
const SEED: u64 = 77;
const PAGE_SIZE: usize = 4096;

fn options(autocheckpoint_frames: u64) -> StoreOptions {
    StoreOptions {
        synchronous: Synchronous::Full,
        autocheckpoint_frames,
        // The file images these tests inspect must not depend on a thread's timing.
        background_checkpoint: false,
        busy_timeout: Duration::from_millis(0),
        ..StoreOptions::default()
    }
}

fn read_file(vfs: &MemoryVfs, path: &Path) -> Vec<u8> {
    let file = vfs.open(path, false).unwrap();
    let mut bytes = vec![0u8; file.len().unwrap() as usize];
    file.read_exact_at(&mut bytes, 0).unwrap();
    bytes
}

fn write_file(vfs: &MemoryVfs, path: &Path, bytes: &[u8]) {
    let file = vfs.open(path, true).unwrap();
    file.set_len(0).unwrap();
    file.write_all_at(bytes, 0).unwrap();
}

/// Builds a database of `transactions` workload transactions; returns (main file, log).
fn build(transactions: u64, checkpoint: bool) -> (Vec<u8>, Vec<u8>) {
    let vfs = MemoryVfs::new();
    let path = Path::new("/build/db.basalt");
    {
        let store = Store::open_with_vfs(&vfs, path, options(0)).unwrap();
        common::initialise(&store).unwrap();
        for t in 1..=transactions {
            common::run_transaction(&store, SEED, t, KEY_SPACE).unwrap();
        }
        if checkpoint {
            store.checkpoint().unwrap();
        }
    }
    (
        read_file(&vfs, path),
        read_file(&vfs, &basalt::storage::pager::wal_path(path)),
    )
}

/// Opens and scans a damaged copy. `Ok(Some(t))`: it read back exactly transaction `t`'s
/// state (checked against the model when `check_contents`); `Err`: it reported damage.
fn open_and_scan(
    main: &[u8],
    log: &[u8],
    model: &mut Model,
    check_contents: bool,
) -> Result<u64, String> {
    let vfs = MemoryVfs::new();
    let path = Path::new("/damaged/db.basalt");
    write_file(&vfs, path, main);
    write_file(&vfs, &basalt::storage::pager::wal_path(path), log);
    let store = Store::open_with_vfs(&vfs, path, options(1000)).map_err(|e| e.to_string())?;
    let reader = store.begin_read();
    let (last, rows) = common::read_state(&reader).map_err(|e| e.to_string())?;
    if check_contents {
        assert!(
            *model.after(last) == rows,
            "damaged file returned wrong rows for transaction {last}"
        );
    }
    Ok(last)
}

fn damage(bytes: &mut Vec<u8>, rng: &mut Rng) -> Vec<usize> {
    let page_count = bytes.len() / PAGE_SIZE;
    let page = rng.below(page_count as u64) as usize;
    let start = page * PAGE_SIZE;
    match rng.below(6) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                let at = start + rng.below(PAGE_SIZE as u64) as usize;
                bytes[at] ^= 1 << rng.below(8);
            }
        }
        1 => bytes[start..start + PAGE_SIZE]
            .iter_mut()
            .for_each(|b| *b = rng.next_u64() as u8),
        2 => bytes[start..start + PAGE_SIZE].fill(0),
        3 => {
            let other = rng.below(page_count as u64) as usize * PAGE_SIZE;
            let copy = bytes[other..other + PAGE_SIZE].to_vec();
            bytes[start..start + PAGE_SIZE].copy_from_slice(&copy);
        }
        4 => bytes.truncate(rng.below(bytes.len() as u64) as usize),
        _ => {
            let at = start + rng.below(PAGE_SIZE as u64 - 64) as usize;
            let len = 1 + rng.below(64) as usize;
            bytes[at..at + len]
                .iter_mut()
                .for_each(|b| *b = rng.next_u64() as u8);
        }
    }
    vec![page]
}

/// Recomputes the checksum trailer of `page_no` so that damage reaches the page parsers.
fn reseal(bytes: &mut [u8], page_no: usize) {
    let start = page_no * PAGE_SIZE;
    if start + PAGE_SIZE > bytes.len() {
        return;
    }
    let mut page = PageBuf::zeroed(PAGE_SIZE);
    page.raw_mut()
        .copy_from_slice(&bytes[start..start + PAGE_SIZE]);
    page.seal(page_no as u32);
    bytes[start..start + PAGE_SIZE].copy_from_slice(page.raw());
}

#[test]
fn damaged_main_files_give_errors_or_correct_data() {
    let (main, log) = build(150, true);
    // The checkpoint left no frame of the log's new generation: the frames still in the file
    // carry the old generation's salt (log header bytes 24..28, a frame's 16..20), so the main
    // file alone holds the data.
    let salt = log.get(24..28);
    assert!(salt.is_some(), "the log has a header");
    assert!(
        log.get(32 + 16..32 + 20)
            .is_none_or(|first| Some(first) != salt),
        "the checkpoint left no frame to replay"
    );
    let mut model = Model::new(SEED, KEY_SPACE);
    assert_eq!(open_and_scan(&main, &log, &mut model, true), Ok(150));
    let mut rng = Rng::new(1);
    let (mut errors, mut intact) = (0, 0);
    for _ in 0..1000 {
        let mut damaged = main.clone();
        damage(&mut damaged, &mut rng);
        let mut model = Model::new(SEED, KEY_SPACE);
        match open_and_scan(&damaged, &log, &mut model, true) {
            Ok(last) => {
                assert_eq!(last, 150);
                intact += 1;
            }
            Err(_) => errors += 1,
        }
    }
    assert!(
        errors > 500,
        "most damage is detected ({errors} errors, {intact} intact)"
    );
}

#[test]
fn damage_behind_valid_checksums_never_panics() {
    let (main, log) = build(150, true);
    let mut rng = Rng::new(2);
    let mut model = Model::new(SEED, KEY_SPACE);
    for _ in 0..1000 {
        let mut damaged = main.clone();
        for page_no in damage(&mut damaged, &mut rng) {
            reseal(&mut damaged, page_no);
        }
        let _ = open_and_scan(&damaged, &log, &mut model, false);
    }
}

#[test]
fn a_damaged_log_recovers_a_committed_prefix() {
    let (main, log) = build(120, false);
    assert!(
        log.len() > 100 * PAGE_SIZE,
        "the log holds the transactions"
    );
    let mut rng = Rng::new(3);
    let mut cut_short = 0;
    for _ in 0..300 {
        let mut damaged_log = log.clone();
        match rng.below(3) {
            0 => damaged_log.truncate(rng.below(log.len() as u64) as usize),
            1 => {
                let at = rng.below(log.len() as u64) as usize;
                damaged_log[at] ^= 1 << rng.below(8);
            }
            _ => {
                let at = rng.below(log.len() as u64 - 256) as usize;
                damaged_log[at..at + 256]
                    .iter_mut()
                    .for_each(|b| *b = rng.next_u64() as u8);
            }
        }
        // Cutting the log anywhere must leave a committed prefix of the history.
        let mut model = Model::new(SEED, KEY_SPACE);
        if let Ok(last) = open_and_scan(&main, &damaged_log, &mut model, true) {
            assert!(last <= 120);
            if last < 120 {
                cut_short += 1;
            }
        }
    }
    assert!(
        cut_short > 100,
        "damage really cut the log ({cut_short} of 300)"
    );
}
