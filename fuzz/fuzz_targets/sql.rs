//! Fuzz target `sql`: arbitrary text as SQL, parsed, planned and run on a fresh in-memory
//! database that already holds the seed schema and rows (`basalt_fuzz::SEED_SCHEMA`).
//!
//! The text is cut at every `;` and each piece runs as one statement (with its parameters
//! bound), reading every value of every row; errors are expected, panics, hangs and
//! unbounded memory are findings. Statements that are slow by design (cross joins of a
//! table with itself many times) are interrupted after a second through the engine's own
//! cancellation (57014), and the input stops there; statements are limited to 64 and the
//! input to 16 KiB, so the inserts of one input cannot grow a table without bound.
//! Afterwards `PRAGMA integrity_check` must report `ok`: no sequence of statements, failed
//! ones included, may leave a tree, an index or the free list inconsistent.

#![no_main]

use std::time::Duration;

use basalt::{Database, Options};
use basalt_fuzz::{
    SEED_DATA, SEED_SCHEMA, Watchdog, integrity_problems, run_statement, scratch_directory,
};
use libfuzzer_sys::fuzz_target;

const MAX_INPUT_BYTES: usize = 16 * 1024;
const MAX_STATEMENTS: usize = 64;
const TIME_LIMIT: Duration = Duration::from_secs(1);

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT_BYTES {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let spill_directory = scratch_directory();
    std::fs::create_dir_all(&spill_directory).expect("creating the spill directory");
    let options = Options {
        // Small enough that sorts, groupings and joins of a few thousand rows spill.
        operator_memory: 256 * 1024,
        spill_directory: Some(spill_directory),
        ..Options::default()
    };
    let database = Database::open_in_memory_with(options).expect("opening in memory");
    let connection = database.connect();
    connection
        .execute_batch(SEED_SCHEMA)
        .and_then(|()| connection.execute_batch(SEED_DATA))
        .expect("the seed schema and rows load");
    let watchdog = Watchdog::start(&connection, TIME_LIMIT);
    for statement in text.split(';').take(MAX_STATEMENTS) {
        if watchdog.expired() {
            break;
        }
        let _ = run_statement(&connection, statement);
    }
    drop(watchdog);
    // The watchdog is stopped, so the check runs to its end.
    let problems = integrity_problems(&connection).expect("the integrity check runs");
    assert_eq!(problems, ["ok"], "the statements left the database damaged");
});
