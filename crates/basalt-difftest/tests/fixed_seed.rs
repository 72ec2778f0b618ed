//! The short deterministic differential run CI executes (part of `cargo test --workspace
//! --release`): a fixed seed and a few thousand statements on Basalt, SQLite and the
//! index-free twin. Any mismatch fails the test and prints its reduced reproduction.

use basalt_difftest::driver::{RunConfiguration, run};
use basalt_difftest::generator::Avoidances;

#[test]
fn fixed_seed_finds_no_mismatch() {
    let configuration = RunConfiguration {
        seed: 7,
        first_case: 0,
        cases: 50,
        statements_per_case: 50,
        verbose: false,
        save_directory: None,
        avoid: Avoidances::all_known(),
        reduce: true,
    };
    let mut output = Vec::new();
    let summary = run(&configuration, &mut output);
    let report = String::from_utf8_lossy(&output);
    let statistics = &summary.statistics;
    println!(
        "{} cases, {} statements, {} partition checks, {} index-free checks in {:.1?}",
        summary.cases,
        statistics.statements,
        statistics.partition_checks,
        statistics.index_free_checks,
        summary.elapsed
    );
    assert!(summary.findings.is_empty(), "{report}");
    assert!(statistics.statements >= 3000, "{statistics:?}");
    assert!(statistics.queries >= 1000, "{statistics:?}");
    assert!(statistics.partition_checks >= 100, "{statistics:?}");
}
