//! `basalt-slt`: run sqllogictest files against Basalt, SQLite or PostgreSQL 15 (`--rewrite`:
//! regenerate the expected results of golden files in place).
//!
//! Each file runs on a fresh in-memory database (under `--db postgres`, a fresh database of a
//! throwaway server this process starts and stops, `basalt_slt::pg_cluster`). Files run on `--jobs` threads, but their
//! reports print in file order, so output is deterministic whatever the scheduling. The
//! last line of standard output is always `N passed, M failed, K skipped` (counting
//! records), and the exit status is 0 exactly when M is 0. Usage errors exit with 2.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{BufReader, Write as _};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use basalt_slt::basalt_engine::BasaltEngine;
use basalt_slt::engine::{Engine, SqliteEngine};
use basalt_slt::pg_cluster::PgCluster;
use basalt_slt::postgres_engine::PostgresEngine;
use basalt_slt::rewrite::rewrite_script;
use basalt_slt::runner::{RunOptions, ScriptOutcome, run_script};
use basalt_slt::skiplist::SkipList;
use clap::{Parser, ValueEnum};

/// Run sqllogictest scripts (.test/.slt files or directories of them).
#[derive(Debug, Parser)]
#[command(name = "basalt-slt", version)]
struct Arguments {
    /// Engine name that `skipif` / `onlyif` lines are matched against.
    #[arg(long, default_value = "postgresql")]
    engine_label: String,
    /// Database engine to test.
    #[arg(long, value_enum, default_value_t = Database::Basalt)]
    db: Database,
    /// Files run in parallel (default: available parallelism).
    #[arg(long)]
    jobs: Option<NonZeroUsize>,
    /// Stop at the first failing record.
    #[arg(long)]
    fail_fast: bool,
    /// Show the first few failures of each failing file in detail.
    #[arg(long)]
    verbose: bool,
    /// Print every failing record as a skip-list line (`path:line  # message`).
    #[arg(long)]
    list_failures: bool,
    /// Records to skip: `path:line  # reason` per line.
    #[arg(long, value_name = "FILE")]
    skip_list: Option<PathBuf>,
    /// Write each query's actual result into the file in place of its expected lines (for
    /// golden files such as tests/slt/plans; review the diff before committing).
    #[arg(long, conflicts_with_all = ["fail_fast", "list_failures", "skip_list"])]
    rewrite: bool,
    /// Script files, or directories searched recursively for *.test and *.slt.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Database {
    Basalt,
    Sqlite,
    /// PostgreSQL 15, started for this run in a temporary directory.
    Postgres,
}

/// The chosen database, with the server it needs (kept running until the run ends).
#[derive(Debug)]
struct Backend {
    database: Database,
    cluster: Option<PgCluster>,
}

impl Backend {
    fn start(database: Database) -> Result<Self, String> {
        let cluster = match database {
            Database::Postgres => Some(PgCluster::start().map_err(|error| error.to_string())?),
            Database::Basalt | Database::Sqlite => None,
        };
        Ok(Backend { database, cluster })
    }

    /// A fresh, empty database to run one file on.
    fn open(&self) -> Result<Box<dyn Engine>, String> {
        match (self.database, &self.cluster) {
            (Database::Sqlite, _) => Ok(Box::new(SqliteEngine::open_in_memory()?)),
            (Database::Basalt, _) => Ok(Box::new(BasaltEngine::open_in_memory()?)),
            (Database::Postgres, Some(cluster)) => Ok(Box::new(PostgresEngine::open(cluster)?)),
            (Database::Postgres, None) => Err("PostgreSQL was not started".to_owned()),
        }
    }
}

/// Failures kept in detail per file (they are only printed under `--verbose`).
const FAILURE_DETAILS: usize = 5;

fn main() -> ExitCode {
    let arguments = Arguments::parse();
    let result = if arguments.rewrite {
        rewrite(&arguments)
    } else {
        run(&arguments)
    };
    match result {
        Ok(all_passed) => {
            if all_passed {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(message) => {
            eprintln!("basalt-slt: {message}");
            ExitCode::from(2)
        }
    }
}

/// Runs everything; `Ok(true)` when no record failed, `Err` for usage problems.
fn run(arguments: &Arguments) -> Result<bool, String> {
    let started = Instant::now();
    // Opening one engine up front turns "this engine cannot work at all" into one clear
    // error instead of a failure per file.
    let backend = Backend::start(arguments.db)?;
    backend.open()?;
    let skip_list = match &arguments.skip_list {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|error| format!("{}: {error}", path.display()))?;
            SkipList::parse(&text).map_err(|error| format!("{}: {error}", path.display()))?
        }
        None => SkipList::default(),
    };
    let mut files = Vec::new();
    for path in &arguments.paths {
        collect_scripts(path, &mut files)?;
    }
    for entry in skip_list.unmatched(&files) {
        eprintln!(
            "basalt-slt: warning: skip-list entry {}:{} matches no script",
            entry.path.display(),
            entry.line
        );
    }
    let options = RunOptions {
        engine_label: arguments.engine_label.clone(),
        fail_fast: arguments.fail_fast,
        max_failure_details: if arguments.list_failures {
            usize::MAX
        } else {
            FAILURE_DETAILS
        },
    };
    let jobs = arguments
        .jobs
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get)
        .min(files.len().max(1));

    // Under --fail-fast, the lowest index of a failing file: files after it are neither
    // started nor finished, files before it still run to completion so the printed
    // prefix is the same as a sequential run's.
    let first_failure = AtomicUsize::new(usize::MAX);
    let next_file = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel::<(usize, Result<ScriptOutcome, String>)>();
    let mut totals = ScriptOutcome::default();
    let stdout = std::io::stdout();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let sender = sender.clone();
            let (files, options, skip_list, backend) = (&files, &options, &skip_list, &backend);
            let (first_failure, next_file) = (&first_failure, &next_file);
            scope.spawn(move || {
                loop {
                    let index = next_file.fetch_add(1, Ordering::SeqCst);
                    let abandoned =
                        || options.fail_fast && index > first_failure.load(Ordering::SeqCst);
                    if index >= files.len() || abandoned() {
                        break;
                    }
                    let path = &files[index];
                    let outcome = run_file(
                        path,
                        backend,
                        options,
                        &skip_list.lines_for(path),
                        &abandoned,
                    );
                    if options.fail_fast
                        && outcome.as_ref().map_or(true, |outcome| outcome.failed > 0)
                    {
                        first_failure.fetch_min(index, Ordering::SeqCst);
                    }
                    if sender.send((index, outcome)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);

        let mut pending = BTreeMap::new();
        let mut next_to_print = 0;
        'receive: for (index, outcome) in receiver {
            pending.insert(index, outcome);
            while let Some(outcome) = pending.remove(&next_to_print) {
                let failed = report(
                    &mut stdout.lock(),
                    &files[next_to_print],
                    outcome,
                    arguments.verbose,
                    arguments.list_failures,
                    &mut totals,
                );
                next_to_print += 1;
                if failed && arguments.fail_fast {
                    break 'receive;
                }
            }
        }
    });
    // Not println!: it panics when stdout is a closed pipe (`basalt-slt ... | head`).
    let _ = writeln!(
        stdout.lock(),
        "{} passed, {} failed, {} skipped",
        totals.passed,
        totals.failed,
        totals.skipped
    );
    if arguments.verbose {
        eprintln!(
            "basalt-slt: {} files in {:.2?}",
            files.len(),
            started.elapsed()
        );
    }
    Ok(totals.failed == 0)
}

/// `--rewrite`: rewrites each file in place, one after another; `Ok(true)` when every
/// record could be run.
fn rewrite(arguments: &Arguments) -> Result<bool, String> {
    let mut files = Vec::new();
    for path in &arguments.paths {
        collect_scripts(path, &mut files)?;
    }
    let mut clean = true;
    let stdout = std::io::stdout();
    let backend = Backend::start(arguments.db)?;
    for path in &files {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        let mut engine = backend.open()?;
        let (rewritten, report) = rewrite_script(&text, engine.as_mut(), &arguments.engine_label)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        if rewritten != text {
            std::fs::write(path, &rewritten)
                .map_err(|error| format!("{}: {error}", path.display()))?;
        }
        let _ = writeln!(
            stdout.lock(),
            "{}: {} rewritten, {} unchanged, {} problems",
            path.display(),
            report.rewritten,
            report.unchanged,
            report.problems.len()
        );
        for (line, problem) in &report.problems {
            clean = false;
            let first = problem.lines().next().unwrap_or_default();
            let _ = writeln!(stdout.lock(), "  {}:{line}: {first}", path.display());
        }
    }
    Ok(clean)
}

fn run_file(
    path: &Path,
    backend: &Backend,
    options: &RunOptions,
    skip_lines: &HashSet<usize>,
    should_stop: &dyn Fn() -> bool,
) -> Result<ScriptOutcome, String> {
    let mut engine = backend.open()?;
    let file = File::open(path).map_err(|error| error.to_string())?;
    run_script(
        BufReader::with_capacity(1 << 16, file),
        engine.as_mut(),
        options,
        skip_lines,
        should_stop,
    )
    .map_err(|error| error.to_string())
}

/// Prints one file's report, adds it to `totals`, and says whether the file failed. A
/// file that could not be run at all counts as one failed record, so it cannot pass.
fn report(
    out: &mut impl std::io::Write,
    path: &Path,
    outcome: Result<ScriptOutcome, String>,
    verbose: bool,
    list_failures: bool,
    totals: &mut ScriptOutcome,
) -> bool {
    let path = path.display();
    // Write errors (a closed pipe) are ignored: the exit status still tells the truth.
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            let _ = writeln!(out, "FAIL {path}: {error}");
            totals.failed += 1;
            return true;
        }
    };
    totals.passed += outcome.passed;
    totals.failed += outcome.failed;
    totals.skipped += outcome.skipped;
    let run = outcome.passed + outcome.failed;
    if outcome.failed == 0 {
        let _ = writeln!(out, "PASS {path} ({run} records)");
        return false;
    }
    let _ = writeln!(
        out,
        "FAIL {path}: {} of {run} records failed",
        outcome.failed
    );
    if list_failures {
        for failure in &outcome.failures {
            let first_line = failure.message.lines().next().unwrap_or_default();
            let _ = writeln!(out, "{path}:{}  # {first_line}", failure.line);
        }
    }
    if verbose {
        for failure in &outcome.failures {
            let _ = writeln!(
                out,
                "  {path}:{}: {}",
                failure.line,
                failure.message.trim_end()
            );
            for line in failure.sql.lines() {
                let _ = writeln!(out, "    | {line}");
            }
        }
    }
    true
}

/// Adds `path` (a file) or every *.test / *.slt below it (a directory, sorted) to `files`.
fn collect_scripts(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let metadata =
        std::fs::metadata(path).map_err(|error| format!("{}: {error}", path.display()))?;
    if !metadata.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let mut found = Vec::new();
    let mut directories = vec![path.to_path_buf()];
    while let Some(directory) = directories.pop() {
        let entries = std::fs::read_dir(&directory)
            .map_err(|error| format!("{}: {error}", directory.display()))?;
        for entry in entries {
            let entry = entry.map_err(|error| format!("{}: {error}", directory.display()))?;
            let entry_path = entry.path();
            if entry_path.is_dir() {
                directories.push(entry_path);
            } else if entry_path
                .extension()
                .is_some_and(|extension| extension == "test" || extension == "slt")
            {
                found.push(entry_path);
            }
        }
    }
    found.sort();
    files.extend(found);
    Ok(())
}
