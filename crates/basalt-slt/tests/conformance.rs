//! Basalt's conformance run, part of the README's test command: our own sqllogictest files
//! (`tests/slt/*.slt`, covering what Basalt adds and its error codes; `tests/slt/regress/`,
//! bugs found by basalt-difftest, one reduced reproduction per file) and the parts of
//! SQLite's corpus that pass today (`../shared/slt/sqlite`: select1–5 and evidence/), minus
//! the records listed with their reasons in `tests/slt/sqlite-skips.txt`. Any failing record
//! fails the test. The corpus lives beside the repository; without it only our own files
//! run (and a note says so).

#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use basalt_slt::basalt_engine::BasaltEngine;
use basalt_slt::runner::{RunOptions, ScriptOutcome, run_script};
use basalt_slt::skiplist::SkipList;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_files(files: &[PathBuf], skips: &SkipList) -> (ScriptOutcome, Vec<String>) {
    let options = RunOptions {
        engine_label: "postgresql".into(),
        fail_fast: false,
        max_failure_details: 5,
    };
    let mut totals = ScriptOutcome::default();
    let mut failures = Vec::new();
    for path in files {
        let mut engine = BasaltEngine::open_in_memory().unwrap();
        let skip_lines: HashSet<usize> = skips.lines_for(path);
        let outcome = run_script(
            BufReader::new(File::open(path).unwrap()),
            &mut engine,
            &options,
            &skip_lines,
            &|| false,
        )
        .unwrap();
        for failure in &outcome.failures {
            failures.push(format!(
                "{}:{}: {}\n{}",
                path.display(),
                failure.line,
                failure.message,
                failure.sql
            ));
        }
        totals.passed += outcome.passed;
        totals.failed += outcome.failed;
        totals.skipped += outcome.skipped;
    }
    (totals, failures)
}

fn scripts_in(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|path| path.extension().is_some_and(|e| e == extension));
    files.sort();
    files
}

#[test]
fn own_slt_files_pass() {
    // Our own files, and the regression files reduced from basalt-difftest findings.
    let mut files = scripts_in(&repository().join("tests/slt"), "slt");
    files.extend(scripts_in(&repository().join("tests/slt/regress"), "slt"));
    assert!(!files.is_empty(), "tests/slt has our own .slt files");
    let (totals, failures) = run_files(&files, &SkipList::default());
    println!(
        "tests/slt: {} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.skipped
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(totals.passed > 50);
}

#[test]
fn sqlite_corpus_select1_to_5_and_evidence_pass() {
    let corpus = repository().join("../shared/slt/sqlite");
    if !corpus.is_dir() {
        println!(
            "note: {} not found; the SQLite corpus was not run",
            corpus.display()
        );
        return;
    }
    let skips = SkipList::parse(
        &std::fs::read_to_string(repository().join("tests/slt/sqlite-skips.txt")).unwrap(),
    )
    .unwrap();
    let mut files: Vec<PathBuf> = [
        "select1.test",
        "select2.test",
        "select3.test",
        "select4.test",
        "select5.test",
    ]
    .iter()
    .map(|f| corpus.join(f))
    .collect();
    files.extend(scripts_in(&corpus.join("evidence"), "test"));
    let (totals, failures) = run_files(&files, &skips);
    println!(
        "sqlite corpus: {} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.skipped
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(totals.passed > 5000);
}
