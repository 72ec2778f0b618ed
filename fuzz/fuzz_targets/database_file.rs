//! Fuzz target `database_file`: the input is a main database file (mutated from the seeds
//! in `corpus/database_file`, built by `make_seeds`). Its page checksums are re-sealed so
//! mutations reach the parsers behind them; it is written to a scratch file with no log
//! beside it, opened, and read and changed everywhere (`basalt_fuzz::exercise_database`).
//! Errors are expected; panics and hangs are findings.

#![no_main]

use basalt::Database;
use basalt_fuzz::{exercise_database, file_options, fresh_path, seal_main_file};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut main_file = data.to_vec();
    seal_main_file(&mut main_file);
    let path = fresh_path("database_file.basalt").expect("a scratch path");
    std::fs::write(&path, &main_file).expect("writing the main file");
    if let Ok(database) = Database::open_with(&path, file_options()) {
        exercise_database(&database);
    }
});
