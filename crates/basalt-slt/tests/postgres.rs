//! The PostgreSQL check, part of the README's test command: the `.slt` files whose expected
//! results are meant to be PostgreSQL 15's (`PG_EXACT_FILES`) run on a real PostgreSQL 15,
//! started by this test in a temporary directory (`basalt_slt::pg_cluster`), and every record
//! must pass there too: each query's rows, each statement's success, and each expected error
//! with its SQLSTATE. Basalt runs the same files in `tests/conformance.rs`, so a file that
//! passes both holds PostgreSQL's answers, and Basalt gives them.
//!
//! Records where Basalt deliberately differs (docs/sql.md says why) are listed with their
//! reasons in `tests/slt/postgres-skips.txt` and not run on PostgreSQL. A file with listed
//! records runs a second time with none skipped, and a listed record that passes there is
//! an error too: the list stays the list of real differences (when Basalt gains arrays, say,
//! its entry must go). Without PostgreSQL 15's server binaries the test prints why and passes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use std::collections::HashSet;
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::time::Instant;

use basalt_slt::pg_cluster::{PgCluster, StartError};
use basalt_slt::postgres_engine::PostgresEngine;
use basalt_slt::runner::{RunOptions, run_script};
use basalt_slt::skiplist::SkipList;

/// The files (below `tests/slt`) whose expected results are PostgreSQL 15's.
const PG_EXACT_FILES: &[&str] = &[
    "aggregate-order-by.slt",
    "arrays.slt",
    "alias-columns.slt",
    "alter-table.slt",
    "expandarray.slt",
    "alter-table-keys.slt",
    "constraints.slt",
    "cursors.slt",
    "distinct-on.slt",
    "functions-more.slt",
    "generate-series.slt",
    "generated.slt",
    "grouping-sets.slt",
    "identity.slt",
    "interval.slt",
    "introspection.slt",
    "json.slt",
    "jsonb-operators.slt",
    "jsonpath-random.slt",
    "jsonpath.slt",
    "lateral.slt",
    "numeric.slt",
    "ordered-set-aggregates.slt",
    "overriding.slt",
    "pg-catalog.slt",
    "pg-dump-statements.slt",
    "postgres-functions.slt",
    "quantified-subqueries.slt",
    "queries.slt",
    "recursive.slt",
    "sequence-options.slt",
    "sequences.slt",
    "settings-reset.slt",
    "time.slt",
    "timestamptz.slt",
    "transaction-modes.slt",
    "transactions.slt",
    "truncate.slt",
    "uuid.slt",
    "vacuum.slt",
    "window-range-offsets.slt",
    "window.slt",
];

fn slt_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/slt")
}

#[test]
fn pg_exact_files_pass_on_postgresql_15() {
    let started = Instant::now();
    let cluster = match PgCluster::start() {
        Ok(cluster) => cluster,
        Err(StartError::NotFound(why)) => {
            println!("SKIPPED: the PostgreSQL check did not run: {why}");
            return;
        }
        Err(StartError::Failed(why)) => panic!("PostgreSQL could not be started: {why}"),
    };
    println!("{} started in {:.1?}", cluster.version(), started.elapsed());
    let skips =
        SkipList::parse(&std::fs::read_to_string(slt_dir().join("postgres-skips.txt")).unwrap())
            .unwrap();
    let files: Vec<PathBuf> = PG_EXACT_FILES.iter().map(|f| slt_dir().join(f)).collect();
    let stale: Vec<String> = skips
        .unmatched(&files)
        .iter()
        .map(|entry| format!("{}:{}", entry.path.display(), entry.line))
        .collect();
    assert!(
        stale.is_empty(),
        "postgres-skips.txt names files the check does not run: {stale:?}"
    );
    let options = RunOptions {
        engine_label: "postgresql".into(),
        fail_fast: false,
        max_failure_details: usize::MAX,
    };
    let run = |path: &PathBuf, skip_lines: &HashSet<usize>| {
        let mut engine = PostgresEngine::open(&cluster).unwrap();
        run_script(
            BufReader::new(File::open(path).unwrap()),
            &mut engine,
            &options,
            skip_lines,
            &|| false,
        )
        .unwrap()
    };
    let mut failures = Vec::new();
    let (mut passed, mut skipped) = (0, 0);
    for path in &files {
        let skip_lines: HashSet<usize> = skips.lines_for(path);
        if !skip_lines.is_empty() {
            // Every listed record must still fail on PostgreSQL when nothing is skipped.
            let unskipped = run(path, &HashSet::new());
            let failing: HashSet<usize> = unskipped
                .failures
                .iter()
                .map(|failure| failure.line)
                .collect();
            let mut agreeing: Vec<usize> = skip_lines.difference(&failing).copied().collect();
            agreeing.sort_unstable();
            for line in agreeing {
                failures.push(format!(
                    "{}:{line}: listed in postgres-skips.txt, but PostgreSQL gives the file's \
                     answer now: remove the entry",
                    path.display()
                ));
            }
        }
        let outcome = run(path, &skip_lines);
        passed += outcome.passed;
        skipped += outcome.skipped;
        for failure in outcome.failures {
            failures.push(format!(
                "{}:{}: {}\n{}",
                path.display(),
                failure.line,
                failure.message,
                failure.sql
            ));
        }
    }
    println!(
        "PostgreSQL: {passed} records passed, {} failed, {skipped} skipped, in {:.1?}",
        failures.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} records disagree with PostgreSQL:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(passed > 500, "only {passed} records ran");
}
