//! The `basalt-difftest` binary: runs random cases on Basalt and SQLite and reports every
//! mismatch with a reduced sqllogictest reproduction. Exits with status 1 if any case
//! mismatched.

use std::path::PathBuf;
use std::process::ExitCode;

use basalt_difftest::driver::{RunConfiguration, run};
use basalt_difftest::engines::{EngineSettings, quiet_panics};
use basalt_difftest::generator::{Avoidances, GeneratorOptions, generate_case};
use clap::Parser;

/// Differential testing of Basalt against SQLite, with metamorphic checks.
#[derive(Debug, Parser)]
#[command(name = "basalt-difftest")]
struct Arguments {
    /// The seed; a case is a pure function of the seed and its number.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many cases to run.
    #[arg(long, default_value_t = 100)]
    cases: u64,
    /// The number of the first case (to rerun one case: --first-case C --cases 1).
    #[arg(long, default_value_t = 0)]
    first_case: u64,
    /// Random statements per case, after the schema and initial data (default 50, or 200
    /// with --large, whose loads take a while).
    #[arg(long)]
    statements_per_case: Option<usize>,
    /// Also print the queries both engines rejected (a sign of generator waste).
    #[arg(long)]
    verbose: bool,
    /// Write each reduced reproduction to this directory.
    #[arg(long)]
    save_dir: Option<PathBuf>,
    /// Report mismatches without reducing them.
    #[arg(long)]
    no_reduce: bool,
    /// The most rows of initial data per table (above 20, rows are loaded fifty at a time
    /// and queries join at most two tables).
    #[arg(long, default_value_t = 20)]
    max_rows: usize,
    /// Large cases: one or two tables of thousands to tens of thousands of wide rows
    /// (each a twelfth of --large-rows to --large-rows), range queries over every kind of
    /// key, bulk modifications, and whole tables compared with SQLite's (and Basalt's
    /// integrity check) after every statement that changes rows.
    #[arg(long)]
    large: bool,
    /// With --large: the most rows of a large table (at most 90,000).
    #[arg(long, default_value_t = 12_000)]
    large_rows: usize,
    /// Compare changed tables whole with SQLite's after every modification (on with
    /// --large).
    #[arg(long)]
    check_tables: bool,
    /// With whole-table checks: check the changed tables (and run Basalt's PRAGMA
    /// integrity_check) after every statement that changed 100 rows or more or rolled
    /// back, after every Nth other change, and at the end of each case (1: after every
    /// change).
    #[arg(long, default_value_t = 4)]
    check_every: usize,
    /// Run Basalt with this work_mem (for example 64kB, the minimum) so that sorts,
    /// grouping, set operations and hash joins spill to temporary files.
    #[arg(long)]
    work_mem: Option<String>,
    /// Print the generated statements of each case instead of running them.
    #[arg(long)]
    dump: bool,
    /// Steer the generator around the known, unfixed Basalt bugs (every switch of
    /// `generator::Avoidances`, as the CI test does); without it they are found again.
    #[arg(long)]
    avoid_known_bugs: bool,
}

fn main() -> ExitCode {
    let arguments = Arguments::parse();
    quiet_panics();
    let configuration = RunConfiguration {
        seed: arguments.seed,
        first_case: arguments.first_case,
        cases: arguments.cases,
        statements_per_case: arguments.statements_per_case.unwrap_or(if arguments.large {
            200
        } else {
            50
        }),
        max_rows: arguments.max_rows,
        large_rows: if arguments.large {
            arguments.large_rows
        } else {
            0
        },
        verbose: arguments.verbose,
        save_directory: arguments.save_dir,
        avoid: if arguments.avoid_known_bugs {
            Avoidances::all_known()
        } else {
            Avoidances::default()
        },
        reduce: !arguments.no_reduce,
        settings: EngineSettings {
            work_mem: arguments.work_mem,
            check_tables: arguments.check_tables || arguments.large,
            check_every: arguments.check_every,
        },
    };
    if arguments.dump {
        let options = GeneratorOptions {
            statements_per_case: configuration.statements_per_case,
            max_rows: configuration.max_rows,
            large_rows: configuration.large_rows,
            avoid: configuration.avoid,
        };
        for case in configuration.first_case..configuration.first_case + configuration.cases {
            println!("-- seed {} case {case}", configuration.seed);
            for statement in generate_case(configuration.seed, case, options).1 {
                println!("{statement};");
            }
        }
        return ExitCode::SUCCESS;
    }
    let mut output = std::io::stdout();
    let summary = run(&configuration, &mut output);
    let statistics = &summary.statistics;
    println!(
        "seed {}: {} cases, {} statements ({} queries, {} modifications; {} rejected by both), \
         {} partition checks, {} index-free checks, {} table checks (largest {} rows), \
         {} integrity checks, \
         {} timed out, {} mismatches, {:.1?}",
        arguments.seed,
        summary.cases,
        statistics.statements,
        statistics.queries,
        statistics.modifications,
        statistics.both_failed,
        statistics.partition_checks,
        statistics.index_free_checks,
        statistics.table_checks,
        statistics.most_table_rows,
        statistics.integrity_checks,
        statistics.timed_out.len(),
        summary.findings.len(),
        summary.elapsed
    );
    if summary.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
