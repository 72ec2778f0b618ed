//! The short deterministic differential run CI executes (part of `cargo test --workspace
//! --release`): fixed seeds and a few thousand statements on Basalt, SQLite and the
//! index-free twin, once with the default work_mem, once with the minimum (so sorts and
//! hash tables spill), and once with large tables (`--large`: thousands of wide rows, so
//! tables and indexes span many pages and range scans cross leaves — issue 15's blind
//! spot). Any mismatch fails the test and prints its reduced reproduction.

use basalt_difftest::driver::{RunConfiguration, RunSummary, run};
use basalt_difftest::engines::EngineSettings;
use basalt_difftest::generator::Avoidances;

/// How a fixed run differs from the default.
#[derive(Clone, Copy, Default)]
struct Variant {
    work_mem: Option<&'static str>,
    /// The most rows of a large table (0: the default small tables).
    large_rows: usize,
    statements_per_case: usize,
}

fn run_fixed(seed: u64, cases: u64, variant: Variant) -> RunSummary {
    let configuration = RunConfiguration {
        seed,
        first_case: 0,
        cases,
        statements_per_case: variant.statements_per_case,
        max_rows: 20,
        large_rows: variant.large_rows,
        verbose: false,
        save_directory: None,
        avoid: Avoidances::all_known(),
        reduce: true,
        settings: EngineSettings {
            work_mem: variant.work_mem.map(str::to_owned),
            check_tables: variant.large_rows > 0,
            check_every: 1,
        },
    };
    let mut output = Vec::new();
    let summary = run(&configuration, &mut output);
    let statistics = &summary.statistics;
    println!(
        "seed {seed}, work_mem {:?}, large rows {}: {} cases, {} statements, {} partition \
         checks, {} index-free checks, {} table checks (largest {} rows), {} integrity checks \
         in {:.1?}",
        variant.work_mem,
        variant.large_rows,
        summary.cases,
        statistics.statements,
        statistics.partition_checks,
        statistics.index_free_checks,
        statistics.table_checks,
        statistics.most_table_rows,
        statistics.integrity_checks,
        summary.elapsed
    );
    assert!(
        summary.findings.is_empty(),
        "{}",
        String::from_utf8_lossy(&output)
    );
    summary
}

#[test]
fn fixed_seeds_find_no_mismatch() {
    let small = Variant {
        statements_per_case: 50,
        ..Variant::default()
    };
    let default_memory = run_fixed(7, 50, small);
    let spilling = run_fixed(
        8,
        15,
        Variant {
            work_mem: Some("64kB"),
            ..small
        },
    );
    let statements = default_memory.statistics.statements + spilling.statistics.statements;
    let queries = default_memory.statistics.queries + spilling.statistics.queries;
    let partitions =
        default_memory.statistics.partition_checks + spilling.statistics.partition_checks;
    assert!(statements >= 4000, "{statements} statements");
    assert!(queries >= 1200, "{queries} queries");
    assert!(partitions >= 150, "{partitions} partition checks");
}

#[test]
fn a_fixed_seed_with_large_tables_finds_no_mismatch() {
    // Three of these four cases find issue 15 when its fix is reverted.
    let large = run_fixed(
        10,
        4,
        Variant {
            large_rows: 4000,
            statements_per_case: 150,
            ..Variant::default()
        },
    );
    let statistics = &large.statistics;
    // A table of 2,000 wide rows spans over a hundred leaves.
    assert!(
        statistics.most_table_rows >= 2000,
        "the largest table had {} rows",
        statistics.most_table_rows
    );
    assert!(
        statistics.statements >= 300,
        "{} statements",
        statistics.statements
    );
    assert!(
        statistics.table_checks >= 50,
        "{} table checks",
        statistics.table_checks
    );
    assert!(
        statistics.integrity_checks >= 50,
        "{} integrity checks",
        statistics.integrity_checks
    );
}
