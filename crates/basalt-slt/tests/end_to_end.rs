//! End to end: small scripts written here, run on `SqliteEngine` through the library and
//! through the `basalt-slt` binary, covering every record kind and the report format.

// Test helpers outside #[test] functions: panicking on setup failure is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use basalt_slt::engine::SqliteEngine;
use basalt_slt::runner::{RunOptions, ScriptOutcome, run_script};

/// Every record passes or is skipped on an engine labelled `sqlite`: 12 pass, 2 skipped.
const PASSING: &str = "\
# Setup.
statement ok
CREATE TABLE t(a INTEGER, b TEXT, c REAL)

statement ok
INSERT INTO t VALUES (3, 'x', 1.5), (1, 'y y', NULL), (2, '', -0.25)

statement error
INSERT INTO nope VALUES (1)

statement error no such table
SELECT * FROM nope

query ITR nosort
SELECT a, b, c FROM t WHERE a < 3 ORDER BY a
----
1
y y
NULL
2
(empty)
-0.250

query IT rowsort
SELECT a, b FROM t
----
1
y y
2
(empty)
3
x

query I valuesort
SELECT a FROM t UNION ALL SELECT a * 10 FROM t
----
1
10
2
20
3
30

# Nine values: above the default hash threshold of 8.
query ITR nosort
SELECT a, b, c FROM t ORDER BY a
----
9 values hashing to 5a1d7d73627d5a1c41e6c2b93c9099bd

query I rowsort label-1
SELECT a FROM t
----
1
2
3

query I rowsort label-1
SELECT a FROM t ORDER BY a DESC
----
1
2
3

skipif sqlite
query I nosort
SELECT 'would fail'
----
999

onlyif mysql
statement ok
THIS IS NOT SQL

onlyif sqlite
query I nosort
SELECT 42
----
42

hash-threshold 2

query I nosort
SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7
----
3 values hashing to 7b7210b030ec33501adc66a4af7a64ae

onlyif mysql
halt

halt

statement ok
THIS IS NOT RUN
";

/// Two passing records (lines 1 and 15) and five failures (lines 4, 7, 10, 20 and 25).
const FAILING: &str = "\
statement ok
CREATE TABLE t(a)

statement ok
THIS IS NOT SQL

statement error
INSERT INTO t VALUES (1)

query I nosort
SELECT 2
----
3

query I nosort label-x
SELECT 1
----
1

query I nosort label-x
SELECT 2
----
2

query II nosort
SELECT 1
----
1
";

fn run(text: &str, skip_lines: &[usize], fail_fast: bool) -> ScriptOutcome {
    let mut engine = SqliteEngine::open_in_memory().unwrap();
    let options = RunOptions {
        engine_label: "sqlite".into(),
        fail_fast,
        max_failure_details: 10,
    };
    let skip: HashSet<usize> = skip_lines.iter().copied().collect();
    run_script(text.as_bytes(), &mut engine, &options, &skip, &|| false).unwrap()
}

#[test]
fn passing_script() {
    let outcome = run(PASSING, &[], false);
    assert_eq!(outcome.failures, vec![]);
    assert_eq!(
        (outcome.passed, outcome.failed, outcome.skipped),
        (12, 0, 2)
    );
}

#[test]
fn failing_script_reports_each_failure() {
    let outcome = run(FAILING, &[], false);
    assert_eq!((outcome.passed, outcome.failed, outcome.skipped), (2, 5, 0));
    let lines: Vec<usize> = outcome
        .failures
        .iter()
        .map(|failure| failure.line)
        .collect();
    assert_eq!(lines, vec![4, 7, 10, 20, 25]);
    assert!(
        outcome.failures[3].message.contains("label-x"),
        "{}",
        outcome.failures[3].message
    );
    assert!(outcome.failures[4].message.contains("columns"));

    let skipped = run(FAILING, &[4, 10], false);
    assert_eq!((skipped.passed, skipped.failed, skipped.skipped), (2, 3, 2));

    let fast = run(FAILING, &[], true);
    assert_eq!((fast.passed, fast.failed), (1, 1));
}

fn write_script(directory: &Path, name: &str, text: &str) -> PathBuf {
    std::fs::create_dir_all(directory).unwrap();
    let path = directory.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn binary(arguments: &[&str]) -> (String, Option<i32>) {
    let output = Command::new(env!("CARGO_BIN_EXE_basalt-slt"))
        .args(arguments)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code(),
    )
}

#[test]
fn binary_reports_files_in_order() {
    let directory = std::env::temp_dir().join(format!("basalt-slt-e2e-{}", std::process::id()));
    let passing = write_script(&directory.join("scripts"), "a_passing.test", PASSING);
    let failing = write_script(&directory.join("scripts/sub"), "b_failing.slt", FAILING);
    write_script(&directory.join("scripts"), "ignored.txt", "not a script");
    let scripts = directory.join("scripts");
    let scripts = scripts.to_str().unwrap();

    let (stdout, code) = binary(&[
        "--db",
        "sqlite",
        "--engine-label",
        "sqlite",
        "--jobs",
        "2",
        scripts,
    ]);
    let expected = format!(
        "PASS {} (12 records)\nFAIL {}: 5 of 7 records failed\n14 passed, 5 failed, 2 skipped\n",
        passing.display(),
        failing.display()
    );
    assert_eq!(stdout, expected);
    assert_eq!(code, Some(1));

    let skip_list = write_script(
        &directory,
        "skip.txt",
        "# known\nsub/b_failing.slt:4 # bad SQL on purpose\nb_failing.slt:7 # x\nb_failing.slt:10 # x\nb_failing.slt:20 # x\nb_failing.slt:25 # x\n",
    );
    let (stdout, code) = binary(&[
        "--db",
        "sqlite",
        "--engine-label",
        "sqlite",
        "--skip-list",
        skip_list.to_str().unwrap(),
        "--verbose",
        failing.to_str().unwrap(),
    ]);
    assert_eq!(
        stdout,
        format!(
            "PASS {} (2 records)\n2 passed, 0 failed, 5 skipped\n",
            failing.display()
        )
    );
    assert_eq!(code, Some(0));

    // Under the default label (postgresql) the sqlite-only records flip.
    let (stdout, _) = binary(&["--db", "sqlite", passing.to_str().unwrap()]);
    assert!(
        stdout.ends_with("11 passed, 1 failed, 2 skipped\n"),
        "{stdout}"
    );

    let (stdout, code) = binary(&[
        "--db",
        "sqlite",
        "--fail-fast",
        "--engine-label",
        "sqlite",
        scripts,
    ]);
    assert!(
        stdout.ends_with("13 passed, 1 failed, 2 skipped\n"),
        "{stdout}"
    );
    assert_eq!(code, Some(1));

    // The default engine is Basalt: the run completes and ends with the summary line.
    let (stdout, code) = binary(&[scripts]);
    assert!(matches!(code, Some(0 | 1)), "{stdout}");
    assert!(
        stdout
            .lines()
            .last()
            .is_some_and(|line| line.ends_with(" skipped")),
        "{stdout}"
    );

    std::fs::remove_dir_all(&directory).unwrap();
}
