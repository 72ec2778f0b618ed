//! Bounded memory: with a 4 MB page cache, writing and then scanning 200 MB keeps the
//! process's peak resident memory under 32 MB (about 15 MB measured). Large transactions spill to the log and the
//! cache evicts, so memory does not grow with the data. (Alone in its own test binary, so
//! the peak belongs to this test.)

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use std::time::Duration;

use basalt::storage::btree::{CellValue, ColumnKind, TableTree, Value};
use basalt::txn::{Store, StoreOptions};

const TOTAL_BYTES: usize = 200 << 20;

/// This process's own peak resident memory. On Linux that is `VmHWM`: `getrusage`'s
/// `ru_maxrss` is no good there, because a forked child's high-water mark starts at its
/// parent's resident size and survives `execve`, so under `cargo test` it reports cargo's
/// peak (56-65 MB, varying with cargo) rather than this test's.
fn peak_rss_bytes() -> u64 {
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        let high_water = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.trim().strip_suffix("kB"))
            .and_then(|kilobytes| kilobytes.trim().parse::<u64>().ok());
        if let Some(kilobytes) = high_water {
            return kilobytes * 1024;
        }
    }
    // SAFETY: getrusage only writes into the zero-initialised struct we pass.
    #[allow(
        unsafe_code,
        reason = "getrusage is a C call; the peak RSS has no safe std equivalent"
    )]
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, &mut usage), 0);
        usage
    };
    // Kilobytes on Linux and the BSDs, bytes on macOS.
    if cfg!(target_os = "macos") {
        usage.ru_maxrss as u64
    } else {
        usage.ru_maxrss as u64 * 1024
    }
}

#[test]
fn writing_and_scanning_200_mb_with_a_4_mb_cache_stays_under_32_mb() {
    let dir = std::env::temp_dir().join(format!("basalt-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.basalt");
    let options = StoreOptions {
        cache_bytes: 4 << 20,
        busy_timeout: Duration::from_secs(1),
        ..StoreOptions::default()
    };
    let store = Store::open(&path, options).unwrap();
    let kinds = [ColumnKind::Fixed8, ColumnKind::Var];
    let mut txn = store.begin_write().unwrap();
    let table = TableTree::create(&mut txn).unwrap();
    txn.commit().unwrap();

    let mut written = 0usize;
    let mut row_id = 0i64;
    let mut payload = Vec::new();
    while written < TOTAL_BYTES {
        let mut txn = store.begin_write().unwrap();
        for _ in 0..5000 {
            row_id += 1;
            // Mostly 1 KB rows, every 50th a 20 KB row on overflow pages.
            let length = if row_id % 50 == 0 { 20_000 } else { 1000 };
            payload.clear();
            payload.extend((0..length).map(|i| (row_id as usize + i) as u8));
            table
                .insert(
                    &mut txn,
                    row_id,
                    &kinds,
                    &[CellValue::Fixed(row_id as u64), CellValue::Var(&payload)],
                )
                .unwrap();
            written += length + 8;
        }
        txn.commit().unwrap();
    }
    store.checkpoint().unwrap();

    let reader = store.begin_read();
    let mut cursor = table.cursor(&reader);
    let mut valid = cursor.first().unwrap();
    let (mut rows, mut bytes) = (0i64, 0usize);
    while valid {
        rows += 1;
        assert_eq!(cursor.row_id(), Some(rows));
        match cursor.value(1).unwrap() {
            Value::Bytes(value) => {
                assert_eq!(value.first().copied(), Some(rows as u8));
                bytes += value.len();
            }
            other => panic!("unexpected {other:?}"),
        }
        valid = cursor.next().unwrap();
    }
    assert_eq!(rows, row_id);
    assert!(bytes >= TOTAL_BYTES - row_id as usize * 8);
    drop(cursor);
    drop(reader);
    drop(store);
    let file_size = std::fs::metadata(&path).unwrap().len();
    let _ = std::fs::remove_dir_all(&dir);
    let peak = peak_rss_bytes();
    println!(
        "peak RSS {} MB for a {} MB file",
        peak >> 20,
        file_size >> 20
    );
    assert!(file_size as usize >= TOTAL_BYTES);
    // 1 KB values stay in the leaves (three rows per 4 KiB page) and 20 KB values fill
    // their overflow pages, so the file stays near 1.3x the data (it was 3.3x when every
    // value over 508 bytes took overflow pages of its own).
    assert!(
        (file_size as usize) < TOTAL_BYTES * 3 / 2,
        "{} MB file for {} MB of data",
        file_size >> 20,
        TOTAL_BYTES >> 20
    );
    assert!(peak < 32 << 20, "peak RSS {} MB exceeds 32 MB", peak >> 20);
}
