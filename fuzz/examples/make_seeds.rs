//! Builds the seed files of the `database_file` and `wal` fuzz targets through the public
//! API: `corpus/database_file/seed-*.basalt` (checkpointed databases, empty logs),
//! `seeds/wal-main.basalt` (the main file the `wal` target always uses) and
//! `corpus/wal/seed-*.basalt-wal` (logs of committed transactions on top of that main file,
//! not yet checkpointed). Run with `cargo run --manifest-path fuzz/Cargo.toml --example
//! make_seeds`; the output depends only on this code (log salts are random, but the `wal`
//! target re-seals checksums anyway).

use std::fs;
use std::path::{Path, PathBuf};

use basalt::{Database, Options};
use basalt_fuzz::{SEED_DATA, SEED_PAGE_SIZE, SEED_SCHEMA, fresh_path};

fn main() {
    let fuzz_directory = Path::new(env!("CARGO_MANIFEST_DIR"));
    let database_file_corpus = fuzz_directory.join("corpus/database_file");
    let wal_corpus = fuzz_directory.join("corpus/wal");
    for directory in [
        &database_file_corpus,
        &wal_corpus,
        &fuzz_directory.join("seeds"),
    ] {
        fs::create_dir_all(directory).expect("creating an output directory");
    }

    let schema_only = build(&[SEED_SCHEMA]);
    fs::copy(
        &schema_only,
        database_file_corpus.join("seed-schema.basalt"),
    )
    .expect("copy");
    let full = build(&[SEED_SCHEMA, SEED_DATA]);
    fs::copy(&full, database_file_corpus.join("seed-data.basalt")).expect("copy");

    // The `wal` target's main file is the full seed; each log continues from it.
    let main_file = fs::read(&full).expect("reading the seed");
    fs::write(fuzz_directory.join("seeds/wal-main.basalt"), &main_file).expect("write");
    let logs: [(&str, &[&str]); 3] = [
        (
            "seed-rows",
            &[
                "INSERT INTO items (name, price, qty) VALUES ('wal 1', 3.5, 1), ('wal 2', NULL, 2)",
                "UPDATE items SET note = 'from the log' WHERE id = 2",
                "DELETE FROM tags WHERE tag = 'red'",
            ],
        ),
        (
            "seed-ddl",
            &[
                "CREATE TABLE later (k INTEGER PRIMARY KEY, v TEXT)",
                "INSERT INTO later VALUES (1, 'one'), (2, repeat('two', 200))",
                "CREATE INDEX later_v ON later (v)",
                "DROP TABLE events",
            ],
        ),
        (
            "seed-delete",
            &["BEGIN; DELETE FROM items WHERE id > 3; UPDATE items SET qty = 9; COMMIT"],
        ),
    ];
    for (name, statements) in logs {
        let path = fresh_path("log.basalt").expect("a scratch path");
        fs::write(&path, &main_file).expect("writing the main file");
        {
            let database = Database::open_with(&path, options()).expect("opening the seed");
            let connection = database.connect();
            for statement in statements {
                connection
                    .execute_batch(statement)
                    .expect("a seed statement");
            }
            // Dropped without a checkpoint: the transactions stay in the log.
        }
        assert_eq!(
            fs::read(&path).expect("read"),
            main_file,
            "nothing was checkpointed"
        );
        let log = basalt::storage::pager::wal_path(&path);
        fs::copy(&log, wal_corpus.join(format!("{name}.basalt-wal"))).expect("copy");
    }
    println!("seeds written under {}", fuzz_directory.display());
}

fn options() -> Options {
    Options {
        page_size: SEED_PAGE_SIZE,
        ..Options::default()
    }
}

/// A database made by running `batches`, checkpointed so the main file holds everything.
fn build(batches: &[&str]) -> PathBuf {
    let path = fresh_path(&format!("seed-{}.basalt", batches.len())).expect("a scratch path");
    let database = Database::open_with(&path, options()).expect("creating a seed");
    let connection = database.connect();
    for batch in batches {
        connection.execute_batch(batch).expect("a seed batch");
    }
    database.checkpoint().expect("checkpointing the seed");
    path
}
