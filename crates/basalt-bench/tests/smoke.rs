#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]
//! End-to-end smoke test of the suite through its real path: the binary spawns one worker
//! process per driver × workload, gates answers against SQLite, and writes the JSON, Markdown
//! and SVG reports. Tiny sizes (`--smoke`) keep it to a few seconds.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("basalt-bench-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_suite(out: &Path, extra: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_basalt-bench"))
        .args([
            "--smoke",
            "--no-progress",
            "--drivers",
            "basalt,sqlite",
            "--out",
        ])
        .arg(out)
        .arg("--dir")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "basalt-bench failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let json = std::fs::read_to_string(out.join("results.json")).unwrap();
    serde_json::from_str(&json).unwrap()
}

fn metric<'a>(envelope: &'a Value, workload: &str, driver: &str, name: &str) -> &'a Value {
    envelope["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["workload"] == workload && r["driver"] == driver)
        .unwrap_or_else(|| panic!("no {workload} result for {driver}"))["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

#[test]
fn suite_runs_gates_and_reports() {
    let out = scratch("run");
    let envelope = run_suite(&out, &["--only", "W1,F.graph,W10,W12"]);

    for file in ["results.json", "results.md", "ratios.svg"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let markdown = std::fs::read_to_string(out.join("results.md")).unwrap();
    assert!(markdown.contains("smoke run"));
    assert!(markdown.contains("| W1.v1 |"));
    let svg = std::fs::read_to_string(out.join("ratios.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));

    // Both drivers were gated and timed on W1, in processes of their own.
    for driver in ["basalt", "sqlite"] {
        let lookup = metric(&envelope, "W1.v1", driver, "10k random lookups by id");
        assert_eq!(lookup["status"], "ok", "{driver}: {lookup}");
        assert!(!lookup["timings"].as_array().unwrap().is_empty());
        assert!(
            lookup["timings"][0]["allocs"].is_u64(),
            "allocations are counted"
        );
    }
    let rss = envelope["results"][0]["peak_rss_kib"].as_u64().unwrap();
    assert!(rss > 0);
    let comparisons = envelope["comparisons"].as_array().unwrap();
    // The vector comparator's version is recorded with the others.
    let sqlite_vec = envelope["versions"]["sqlite_vec"].as_str().unwrap();
    assert!(sqlite_vec.starts_with("v0."), "sqlite-vec {sqlite_vec}");
    assert!(
        comparisons
            .iter()
            .any(|c| c["workload"] == "W1.v1" && c["ratio"].is_f64())
    );

    // Vector search: Basalt's exact top-10 against sqlite-vec's, both gated on the same ids
    // and both exact (recall 1 against the brute force in the harness); then Basalt's HNSW
    // index against sqlite-vec's exact search, gated on k distinct rows per query and the
    // recall floor, with the build's time and the index's size noted.
    for driver in ["basalt", "sqlite"] {
        let search = metric(
            &envelope,
            "W10.v3",
            driver,
            "cosine top-10, exact, 10k × 384",
        );
        assert_eq!(search["status"], "ok", "{driver}: {search}");
        assert_eq!(search["notes"]["recall@10"], 1.0, "{driver}: {search}");
        assert_eq!(search["answer"]["rows"], 1000, "100 queries × 10 ids");
        assert!(search["notes"]["raw vector bytes"].as_f64().unwrap() > 0.0);
        for ef_search in [40, 100] {
            let name = format!("cosine top-10, HNSW ef_search {ef_search}, 10k × 384");
            let search = metric(&envelope, "W10.v3", driver, &name);
            assert_eq!(search["status"], "ok", "{driver}: {search}");
            assert_eq!(
                search["answer"]["rows"], 101,
                "100 queries and the recall floor"
            );
            assert!(search["notes"]["recall@10"].as_f64().unwrap() >= 0.8);
            if driver == "basalt" {
                assert!(search["notes"]["build s"].as_f64().unwrap() > 0.0);
                assert!(search["notes"]["index bytes / raw"].as_f64().unwrap() > 0.0);
            }
        }
        // The filtered variant (10% of the rows per query): exact, and through the index,
        // where the gate wants the full LIMIT of rows of the query's own cat every time.
        let exact = metric(
            &envelope,
            "W10.v3",
            driver,
            "cosine top-10, exact, 10% filter, 10k × 384",
        );
        assert_eq!(exact["status"], "ok", "{driver}: {exact}");
        assert_eq!(exact["notes"]["recall@10"], 1.0, "{driver}: {exact}");
        let approximate = metric(
            &envelope,
            "W10.v3",
            driver,
            "cosine top-10, HNSW ef_search 40, 10% filter, 10k × 384",
        );
        assert_eq!(approximate["status"], "ok", "{driver}: {approximate}");
        assert_eq!(approximate["answer"]["rows"], 101);
    }
    assert!(
        comparisons
            .iter()
            .any(|c| c["workload"] == "W10.v3" && c["ratio"].is_f64())
    );

    // Hybrid retrieval: Basalt's one statement against SQLite's two searches fused in the
    // driver, both gated on the same match counts and well-formed branches (100 queries and
    // the vector branch's recall floor); Basalt's fused top-10s were also checked against
    // fusing its own branches, and their overlap with SQLite's is noted.
    for driver in ["basalt", "sqlite"] {
        let hybrid = metric(&envelope, "W12.v1", driver, "hybrid top-10, 1k docs");
        assert_eq!(hybrid["status"], "ok", "{driver}: {hybrid}");
        assert_eq!(hybrid["answer"]["rows"], 101, "{driver}: {hybrid}");
        assert_eq!(hybrid["rankings"].as_array().unwrap().len(), 100);
        assert!(
            hybrid["notes"]["vector branch recall@100"]
                .as_f64()
                .unwrap()
                >= 0.8
        );
    }
    let hybrid = metric(&envelope, "W12.v1", "basalt", "hybrid top-10, 1k docs");
    let overlap = hybrid["notes"]["overlap@10 with sqlite"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&overlap), "{hybrid}");
    assert!(
        comparisons
            .iter()
            .any(|c| c["workload"] == "W12.v1" && c["ratio"].is_f64())
    );

    // F.graph.v2's BFS casts its anchor's parameter, so Basalt runs it and agrees with
    // SQLite (v1's untyped `SELECT ?, 0` was refused with 42883; the unsupported status is
    // covered by `workloads::tests` and the report's tests).
    let bfs = metric(
        &envelope,
        "F.graph.v2",
        "basalt",
        "2-hop BFS with WITH RECURSIVE",
    );
    assert_eq!(bfs["status"], "ok", "{bfs}");
    assert!(
        comparisons.iter().any(|c| c["workload"] == "F.graph.v2"
            && c["metric"] == "2-hop BFS with WITH RECURSIVE"
            && c["ratio"].is_f64()),
        "the BFS has a ratio against SQLite"
    );

    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn gate_refuses_to_time_a_wrong_answer() {
    let out = scratch("gate");
    let envelope = run_suite(&out, &["--only", "W6", "--inject-wrong-answer", "basalt"]);
    let basalt = metric(
        &envelope,
        "W6.v1",
        "basalt",
        "10k random lookups by unique u",
    );
    assert_eq!(basalt["status"], "mismatch", "{basalt}");
    assert!(
        basalt["timings"].as_array().unwrap().is_empty(),
        "a refused driver is never timed"
    );
    let sqlite = metric(
        &envelope,
        "W6.v1",
        "sqlite",
        "10k random lookups by unique u",
    );
    assert_eq!(sqlite["status"], "ok");
    let markdown = std::fs::read_to_string(out.join("results.md")).unwrap();
    assert!(markdown.contains("wrong answer (refused to time)"));
    let _ = std::fs::remove_dir_all(&out);
}
