//! A whole run: generate and run cases, reduce each mismatch to a sqllogictest
//! reproduction, optionally save it, and count what was done.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::case::{Mismatch, MismatchKind, Statistics, run_case};
use crate::engines::EngineSettings;
use crate::generator::{Avoidances, GeneratorOptions, generate_case};
use crate::reducer::reduce;
use crate::reproduction::{ReproductionOptions, failing_records, reproduction_text};
use crate::schema::Schema;
use crate::statement::Statement;

/// What to run.
#[derive(Debug, Clone)]
pub struct RunConfiguration {
    pub seed: u64,
    pub first_case: u64,
    pub cases: u64,
    pub statements_per_case: usize,
    /// See [`GeneratorOptions::max_rows`].
    pub max_rows: usize,
    /// See [`GeneratorOptions::large_rows`] (0: no large tables).
    pub large_rows: usize,
    pub verbose: bool,
    /// Where to write each reproduction (`seed<S>-case<C>.slt`).
    pub save_directory: Option<PathBuf>,
    pub avoid: Avoidances,
    /// Reduce mismatches (off: report the unreduced failing statement only).
    pub reduce: bool,
    pub settings: EngineSettings,
}

/// One mismatch and its reproduction.
#[derive(Debug, Clone)]
pub struct Finding {
    pub case: u64,
    pub mismatch: Mismatch,
    /// The reduced case as a sqllogictest file.
    pub reproduction: String,
    /// How many records of the reproduction fail on Basalt (None: running it panicked).
    pub failing_records: Option<usize>,
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    pub cases: u64,
    pub statistics: Statistics,
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
}

/// Runs the configured cases, writing progress and findings to `output`.
pub fn run(configuration: &RunConfiguration, output: &mut dyn Write) -> RunSummary {
    let started = Instant::now();
    let options = GeneratorOptions {
        statements_per_case: configuration.statements_per_case,
        max_rows: configuration.max_rows,
        large_rows: configuration.large_rows,
        avoid: configuration.avoid,
    };
    let mut summary = RunSummary::default();
    let mut last_report = Instant::now();
    let end = configuration.first_case + configuration.cases;
    for case in configuration.first_case..end {
        let (schema, statements) = generate_case(configuration.seed, case, options);
        let (statistics, mismatch) = match run_case(&statements, &configuration.settings) {
            Ok(result) => result,
            Err(problem) => {
                let _ = writeln!(output, "case {case}: cannot open databases: {problem}");
                continue;
            }
        };
        summary.cases += 1;
        if configuration.verbose {
            for failed in &statistics.queries_both_failed {
                let _ = writeln!(
                    output,
                    "case {case}: query rejected by both engines:\n{failed}"
                );
            }
        }
        for statement in &statistics.timed_out {
            let _ = writeln!(
                output,
                "case {case}: interrupted at the time limit:\n{statement}"
            );
        }
        summary.statistics.add(&statistics);
        if let Some(mismatch) = mismatch {
            let finding = investigate(configuration, case, &schema, statements, mismatch, output);
            summary.findings.push(finding);
        }
        if last_report.elapsed() > Duration::from_secs(30) {
            last_report = Instant::now();
            let _ = writeln!(
                output,
                "progress: {} cases, {} statements, {} mismatches, {:.0?}",
                summary.cases,
                summary.statistics.statements,
                summary.findings.len(),
                started.elapsed()
            );
        }
    }
    summary.elapsed = started.elapsed();
    summary
}

fn investigate(
    configuration: &RunConfiguration,
    case: u64,
    schema: &Schema,
    statements: Vec<Statement>,
    mismatch: Mismatch,
    output: &mut dyn Write,
) -> Finding {
    let seed = configuration.seed;
    let _ = writeln!(
        output,
        "MISMATCH seed {seed} case {case} statement {}: {}\n{}\n{}",
        mismatch.statement, mismatch.kind, statements[mismatch.statement], mismatch.detail
    );
    let mut failing: Vec<_> = statements[..=mismatch.statement].to_vec();
    if configuration.reduce {
        failing = reduce(failing, &mismatch.kind, schema, &configuration.settings);
    }
    let comment = format!(
        "Found by basalt-difftest --seed {seed} (case {case}, statement {}): {}.\n\
         Reduced from {} statements to {}; expected results are SQLite's.\n\
         The last statement's outcome on each side, before reduction:\n{}",
        mismatch.statement,
        mismatch.kind,
        mismatch.statement + 1,
        failing.len(),
        mismatch.detail
    );
    let (reproduction, failing_records) = write_reproduction(
        &failing,
        schema,
        &comment,
        &mismatch.kind,
        &configuration.settings,
    );
    let _ = writeln!(
        output,
        "reduced reproduction ({} statements; {} on Basalt):\n{reproduction}",
        failing.len(),
        match failing_records {
            Some(0) => "passes — the mismatch does not show in rows".to_owned(),
            Some(count) => format!("{count} records fail"),
            None => "running it panics".to_owned(),
        }
    );
    if let Some(directory) = &configuration.save_directory {
        let path = directory.join(format!("seed{seed}-case{case}.slt"));
        let written =
            std::fs::create_dir_all(directory).and_then(|()| std::fs::write(&path, &reproduction));
        match written {
            Ok(()) => {
                let _ = writeln!(output, "saved {}", path.display());
            }
            Err(problem) => {
                let _ = writeln!(output, "cannot save {}: {problem}", path.display());
            }
        }
    }
    Finding {
        case,
        mismatch,
        reproduction,
        failing_records,
    }
}

/// The reproduction text and how many of its records fail on Basalt (None: it panics).
/// For an index-free mismatch, whichever of the two databases is wrong is the one
/// written (the one whose file fails; with keys and indexes when neither does).
fn write_reproduction(
    statements: &[Statement],
    schema: &Schema,
    comment: &str,
    kind: &MismatchKind,
    settings: &EngineSettings,
) -> (String, Option<usize>) {
    let check_errors = matches!(kind, MismatchKind::BasaltError(_) | MismatchKind::Panic);
    let variants: &[bool] = if *kind == MismatchKind::IndexFree {
        &[false, true]
    } else {
        &[false]
    };
    let mut first = None;
    for &index_free in variants {
        let options = ReproductionOptions {
            work_mem: settings.work_mem.clone(),
            index_free,
            check_errors: check_errors || *kind == MismatchKind::IndexFree,
        };
        let note = if index_free {
            format!("{comment}\nThe tables are the index-free twin's: no keys, no indexes.")
        } else {
            comment.to_owned()
        };
        let text = reproduction_text(statements, schema, &note, options)
            .unwrap_or_else(|problem| format!("# cannot write a reproduction: {problem}\n"));
        let failing = catch_unwind(AssertUnwindSafe(|| failing_records(&text)))
            .ok()
            .and_then(Result::ok);
        if failing != Some(0) {
            return (text, failing);
        }
        first.get_or_insert((text, failing));
    }
    first.unwrap_or_default()
}
