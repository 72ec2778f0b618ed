//! `basalt check FILE`, and database files written by earlier releases.
//!
//! `tests/fixtures/v1-*.basalt` were made by the release at commit bb66547 (398551b plus the scan fix; file format 1,
//! catalog entries of format 3) from `tests/fixtures/v1-schema.sql`, before types carried
//! modifiers: `v1-wal.basalt` with its log not yet checkpointed (opening it recovers the
//! log), `v1-checkpointed.basalt` after VACUUM. They hold every column type, UNIQUE, DESC
//! and composite indexes, a view, a trigger, a sequence, SERIAL, IDENTITY and AUTOINCREMENT
//! columns, a generated column, a foreign key, ANALYZE statistics and overflow values.
//! Every later release must open them and answer `tests/fixtures/v1-queries.sql` exactly as
//! that release did (`v1-expected.csv`, its output), and pass the integrity check. The
//! fixtures are copied to a scratch directory first: opening recovers and checkpoints.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;

use std::path::PathBuf;

use common::Scratch;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// Copies fixture `name` (and its log, if it has one) into `scratch`.
fn copy_fixture(scratch: &Scratch, name: &str) {
    std::fs::copy(fixtures().join(name), scratch.path(name)).unwrap();
    let log = format!("{name}-wal");
    if fixtures().join(&log).exists() {
        std::fs::copy(fixtures().join(&log), scratch.path(&log)).unwrap();
    }
}

fn answers_as_written(name: &str) {
    let scratch = Scratch::new();
    copy_fixture(&scratch, name);
    let queries = std::fs::read_to_string(fixtures().join("v1-queries.sql")).unwrap();
    let expected = std::fs::read_to_string(fixtures().join("v1-expected.csv")).unwrap();
    let run = scratch.run(&["--csv", &scratch.arg(name)], &queries);
    assert_eq!(run.stderr, "", "{name}");
    assert_eq!(run.code, 0, "{name}");
    assert_eq!(run.stdout, expected, "{name}");
    let check = scratch.run(&["check", &scratch.arg(name)], "");
    assert_eq!((check.stdout.as_str(), check.code), ("ok\n", 0), "{name}");
}

#[test]
fn a_format_1_file_with_its_log_opens_and_answers_as_written() {
    answers_as_written("v1-wal.basalt");
}

#[test]
fn a_checkpointed_format_1_file_opens_and_answers_as_written() {
    answers_as_written("v1-checkpointed.basalt");
}

#[test]
fn a_format_1_file_takes_writes_and_stays_sound() {
    let scratch = Scratch::new();
    copy_fixture(&scratch, "v1-checkpointed.basalt");
    let file = scratch.arg("v1-checkpointed.basalt");
    let script = "INSERT INTO kinds (id, i, v) VALUES (5000, 5000, 'new');
         UPDATE kinds SET v = 'changed' WHERE id BETWEEN 100 AND 2500;
         DELETE FROM kinds WHERE id > 2900;
         INSERT INTO child (pid, note) VALUES (2, 'late');
         ALTER TABLE kinds ADD COLUMN extra VARCHAR(5) DEFAULT 'e';
         SELECT count(*), count(extra), max(cid) FROM kinds, (SELECT max(cid) AS cid FROM child) AS c;
         SELECT nextval('counter');";
    let run = scratch.run(&["--csv", &file], script);
    assert_eq!(run.stderr, "");
    assert_eq!(run.stdout, "count,count,max\n2799,2799,51\nnextval\n110\n");
    let check = scratch.run(&["check", &file], "");
    assert_eq!((check.stdout.as_str(), check.code), ("ok\n", 0));
}

/// The fixture's `VARCHAR(12)` and `CHAR(3)` lengths were written in catalog format 3 as a
/// plain length; read today as type modifiers, they are still enforced and still shown.
#[test]
fn a_format_1_files_declared_lengths_still_hold() {
    let scratch = Scratch::new();
    copy_fixture(&scratch, "v1-checkpointed.basalt");
    let file = scratch.arg("v1-checkpointed.basalt");
    let fits = scratch.run(
        &["--csv", &file],
        "INSERT INTO kinds (id, i, v, c) VALUES (6000, 1, 'twelve chars', 'abc');
         SELECT v, c FROM kinds WHERE id = 6000;",
    );
    assert_eq!(fits.stderr, "");
    assert_eq!(fits.stdout, "v,c\ntwelve chars,abc\n");
    let too_long = scratch.run(
        &["--csv", &file],
        "INSERT INTO kinds (id, i, v) VALUES (6001, 1, 'thirteen char');",
    );
    assert!(too_long.stderr.contains("22001"), "{too_long:?}");
    let too_long = scratch.run(
        &["--csv", &file],
        "INSERT INTO kinds (id, i, c) VALUES (6002, 1, 'abcd');",
    );
    assert!(too_long.stderr.contains("22001"), "{too_long:?}");
}

#[test]
fn check_reports_problems_with_its_exit_status() {
    let scratch = Scratch::new();
    // A missing file is not created.
    let missing = scratch.run(&["check", &scratch.arg("missing.basalt")], "");
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("no such file"),
        "{}",
        missing.stderr
    );
    assert!(!scratch.path("missing.basalt").exists());
    // Not a database.
    scratch.write("junk.basalt", &"junk".repeat(2000));
    let junk = scratch.run(&["check", &scratch.arg("junk.basalt")], "");
    assert_eq!(junk.code, 2, "{junk:?}");
    // A page the header counts but nothing uses: the file grows by one zero page.
    copy_fixture(&scratch, "v1-checkpointed.basalt");
    let path = scratch.path("v1-checkpointed.basalt");
    let mut bytes = std::fs::read(&path).unwrap();
    let page_size = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
    let page_count = u32::from_le_bytes(bytes[24..28].try_into().unwrap());
    bytes[24..28].copy_from_slice(&(page_count + 1).to_le_bytes());
    reseal(&mut bytes[..page_size], 0);
    bytes.resize(bytes.len() + page_size, 0);
    std::fs::write(&path, &bytes).unwrap();
    let leaked = scratch.run(&["check", &scratch.arg("v1-checkpointed.basalt")], "");
    assert_eq!(leaked.code, 1, "{leaked:?}");
    assert_eq!(leaked.stdout, format!("page {page_count} is never used\n"));
}

/// Recomputes a page's checksum trailer (docs/file-format.md: CRC-32C of the page number
/// followed by the page's first `page_size - 4` bytes).
fn reseal(page: &mut [u8], page_no: u32) {
    let body = page.len() - 4;
    let checksum = crc32c::crc32c_append(crc32c::crc32c(&page_no.to_le_bytes()), &page[..body]);
    page[body..].copy_from_slice(&checksum.to_le_bytes());
}
