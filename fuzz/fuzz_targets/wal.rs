//! Fuzz target `wal`: the input is a write-ahead log (mutated from the seeds in
//! `corpus/wal`) beside a fixed, valid main file (`seeds/wal-main.basalt`, the state the
//! seed logs start from; both built by `make_seeds`). The log's header, frame and page
//! checksums are re-sealed so that recovery applies mutated frames rather than stopping at
//! the first damaged one; then the database is opened (recovery) and read and changed
//! everywhere. Errors are expected; panics and hangs are findings.

#![no_main]

use basalt::Database;
use basalt_fuzz::{SEED_PAGE_SIZE, exercise_database, file_options, fresh_path, seal_log};
use libfuzzer_sys::fuzz_target;

const MAIN_FILE: &[u8] = include_bytes!("../seeds/wal-main.basalt");

fuzz_target!(|data: &[u8]| {
    let mut log = data.to_vec();
    seal_log(&mut log, SEED_PAGE_SIZE);
    let path = fresh_path("wal.basalt").expect("a scratch path");
    std::fs::write(&path, MAIN_FILE).expect("writing the main file");
    std::fs::write(basalt::storage::pager::wal_path(&path), &log).expect("writing the log");
    if let Ok(database) = Database::open_with(&path, file_options()) {
        exercise_database(&database);
    }
});
