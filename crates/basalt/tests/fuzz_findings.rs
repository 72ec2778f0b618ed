//! Regression tests for what the fuzz targets (`fuzz/`, `docs/testing.md` "Fuzzing") found in
//! damaged files: each test crafts the damage through the public API and a byte patch, and
//! checks that opening and using the file gives an error instead of a panic or an
//! unbounded allocation.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use std::path::{Path, PathBuf};

use basalt::storage::PageBuf;
use basalt::{Database, Options};

const PAGE_SIZE: usize = 4096;

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("basalt-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

/// Builds a checkpointed database from `sql` and returns its main file.
fn build(directory: &Path, sql: &str) -> Vec<u8> {
    let path = directory.join("build.basalt");
    let database = Database::open(&path).unwrap();
    database.connect().execute_batch(sql).unwrap();
    database.checkpoint().unwrap();
    drop(database);
    std::fs::read(&path).unwrap()
}

/// Where `pattern` (which must be there) first occurs in `file`.
fn find(file: &[u8], pattern: &[u8]) -> usize {
    file.windows(pattern.len())
        .position(|window| window == pattern)
        .expect("the pattern is in the file")
}

/// Overwrites `file` at `at` with `bytes` and re-seals the page, so that the damage passes
/// the checksum and reaches the parsers (as the fuzz targets do).
fn patch(file: &mut [u8], at: usize, bytes: &[u8]) {
    file[at..at + bytes.len()].copy_from_slice(bytes);
    let page_number = at / PAGE_SIZE;
    let start = page_number * PAGE_SIZE;
    let mut page = PageBuf::zeroed(PAGE_SIZE);
    page.raw_mut()
        .copy_from_slice(&file[start..start + PAGE_SIZE]);
    page.seal(page_number as u32);
    file[start..start + PAGE_SIZE].copy_from_slice(page.raw());
}

/// Writes `file` as a database with no log and opens it.
fn open(directory: &Path, file: &[u8]) -> basalt::Result<Database> {
    let path = directory.join("damaged.basalt");
    std::fs::write(&path, file).unwrap();
    Database::open_with(&path, Options::default())
}

/// A catalog entry claiming 4 billion column slots for a table was trusted: every INSERT
/// then allocated a cell per slot (tens of gigabytes). No leaf can hold more than 65535
/// columns, so the catalog now rejects such an entry as damage.
#[test]
fn a_table_entry_with_an_impossible_slot_count_is_damage() {
    let directory = scratch("slots");
    let mut file = build(&directory, "CREATE TABLE wide (a INTEGER, b TEXT)");
    // A table entry: a version byte, kind 't', the name, the root page (4 bytes), the slot
    // count. Found from the kind byte on, so that a new catalog version does not move it.
    let entry = find(&file, b"t\x04\x00\x00\x00wide") - 1;
    let slots_at = entry + 10 + 4;
    assert_eq!(file[slots_at..slots_at + 4], 2u32.to_le_bytes());
    patch(&mut file, slots_at, &0xF000_0000u32.to_le_bytes());
    let error = open(&directory, &file)
        .and_then(|database| {
            database
                .connect()
                .execute("INSERT INTO wide VALUES (1, 'x')", ())
        })
        .expect_err("the damaged entry is reported");
    assert!(error.message().contains("column slots"), "{error}");
}

/// The limit behind that check: DDL never makes a table the catalog would refuse to read.
#[test]
fn tables_have_at_most_1600_columns() {
    let database = Database::open_in_memory().unwrap();
    let connection = database.connect();
    let columns = |count: usize| {
        (0..count)
            .map(|column| format!("c{column} INTEGER"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let error = connection
        .execute(&format!("CREATE TABLE t ({})", columns(1601)), ())
        .unwrap_err();
    assert_eq!(error.code(), "54011");
    connection
        .execute(&format!("CREATE TABLE t ({})", columns(1600)), ())
        .unwrap();
    connection
        .execute("ALTER TABLE t DROP COLUMN c0", ())
        .unwrap();
    // DROP COLUMN rewrites the rows into dense slots: the dropped column's slot is free
    // again, for one column and no more.
    connection
        .execute("ALTER TABLE t ADD COLUMN extra TEXT", ())
        .unwrap();
    let error = connection
        .execute("ALTER TABLE t ADD COLUMN one_too_many TEXT", ())
        .unwrap_err();
    assert_eq!(error.code(), "54011");
}

/// Found by the `wal` fuzz target: a log header whose base sequence number was near
/// `u64::MAX` was accepted, and the next commit's sequence numbers overflowed (a panic with
/// overflow checks). No real log gets past 2⁶² frames, so such a header is now damage and
/// the log is ignored like any other damaged header; the checkpointed data is intact.
#[test]
fn a_log_header_with_a_huge_base_sequence_number_is_damage() {
    let directory = scratch("base-sequence");
    let main = build(
        &directory,
        "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2)",
    );
    let mut log = std::fs::read(directory.join("build.basalt-wal")).unwrap();
    log.truncate(32);
    // The header: magic, version, page size, base sequence number (bytes 16..24), salt, and
    // the CRC-32C of the first 28 bytes.
    log[16..24].copy_from_slice(&(u64::MAX - 1).to_le_bytes());
    let checksum = crc32c::crc32c(&log[..28]);
    log[28..32].copy_from_slice(&checksum.to_le_bytes());
    let path = directory.join("damaged.basalt");
    std::fs::write(&path, &main).unwrap();
    std::fs::write(directory.join("damaged.basalt-wal"), &log).unwrap();
    let database = Database::open(&path).unwrap();
    let connection = database.connect();
    for value in 3..6 {
        connection
            .execute("INSERT INTO t VALUES (?)", (value,))
            .unwrap();
    }
    let sum: i64 = connection
        .query_row("SELECT sum(a) FROM t", (), |row| row.get(0))
        .unwrap();
    assert_eq!(sum, 15);
}

/// Noticed while fixing the above: the header's commit counter, which a file can set to
/// anything, was incremented with `+`, so a counter at `u64::MAX` made the next commit panic
/// (with overflow checks). Nothing decides anything by it, and it now wraps. Only commits
/// that write page 0 count (creating a table allocates its root, so the header changes).
#[test]
fn a_commit_counter_at_its_maximum_wraps() {
    let directory = scratch("commit-counter");
    let mut main = build(&directory, "CREATE TABLE t (a INTEGER)");
    // Header bytes 40..48: the commit counter.
    patch(&mut main, 40, &u64::MAX.to_le_bytes());
    let database = open(&directory, &main).unwrap();
    let connection = database.connect();
    connection
        .execute("CREATE TABLE u (b INTEGER)", ())
        .unwrap();
    connection
        .execute("CREATE TABLE v (c INTEGER)", ())
        .unwrap();
    connection.execute("INSERT INTO t VALUES (1)", ()).unwrap();
    connection.execute("INSERT INTO t VALUES (2)", ()).unwrap();
    let count: i64 = connection
        .query_row("SELECT count(*) FROM t", (), |row| row.get(0))
        .unwrap();
    assert_eq!(count, 2);
}
