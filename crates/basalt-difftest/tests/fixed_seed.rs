//! The short deterministic differential run CI executes (part of `cargo test --workspace
//! --release`): fixed seeds and a few thousand statements on Basalt, SQLite and the
//! index-free twin, once with the default work_mem and once with the minimum (so sorts and
//! hash tables spill). Any mismatch fails the test and prints its reduced reproduction.

use basalt_difftest::driver::{RunConfiguration, RunSummary, run};
use basalt_difftest::engines::EngineSettings;
use basalt_difftest::generator::Avoidances;

fn run_fixed(seed: u64, cases: u64, work_mem: Option<&str>) -> RunSummary {
    let configuration = RunConfiguration {
        seed,
        first_case: 0,
        cases,
        statements_per_case: 50,
        max_rows: 20,
        large_rows: 0,
        verbose: false,
        save_directory: None,
        avoid: Avoidances::all_known(),
        reduce: true,
        settings: EngineSettings {
            work_mem: work_mem.map(str::to_owned),
            check_tables: false,
        },
    };
    let mut output = Vec::new();
    let summary = run(&configuration, &mut output);
    let statistics = &summary.statistics;
    println!(
        "seed {seed}, work_mem {work_mem:?}: {} cases, {} statements, {} partition checks, \
         {} index-free checks in {:.1?}",
        summary.cases,
        statistics.statements,
        statistics.partition_checks,
        statistics.index_free_checks,
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
    let default_memory = run_fixed(7, 50, None);
    let spilling = run_fixed(8, 15, Some("64kB"));
    let statements = default_memory.statistics.statements + spilling.statistics.statements;
    let queries = default_memory.statistics.queries + spilling.statistics.queries;
    let partitions =
        default_memory.statistics.partition_checks + spilling.statistics.partition_checks;
    assert!(statements >= 4000, "{statements} statements");
    assert!(queries >= 1200, "{queries} queries");
    assert!(partitions >= 150, "{partitions} partition checks");
}
