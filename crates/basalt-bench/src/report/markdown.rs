//! The Markdown report: the run's context, the ratio table (what docs/benchmarks.md quotes),
//! every driver's statistics, and one row per worker process with its peak RSS.

use std::fmt::Write as _;

use super::json::Envelope;
use super::{format_ns, format_rate, format_ratio, summarize};
use crate::model::Status;

/// Renders the whole report.
pub fn render(envelope: &Envelope) -> String {
    let mut out = String::new();
    header(envelope, &mut out);
    ratio_table(envelope, &mut out);
    driver_table(envelope, &mut out);
    process_table(envelope, &mut out);
    out
}

fn header(envelope: &Envelope, out: &mut String) {
    let settings = &envelope.settings;
    let _ = writeln!(
        out,
        "# basalt-bench: {} run, {}\n",
        envelope.mode, envelope.started_utc
    );
    if envelope.mode != "full" {
        let _ = writeln!(
            out,
            "> **{} run**: data sizes × {} of the catalogue's (group F at full size; W10 at 10k \
             rows, and 100k when scaled above that, except in smoke runs), at most {} timed iterations per metric, TPC-B \
             for {} s. Use it to catch regressions, not to quote; only full runs are comparable \
             with the catalogue.\n",
            envelope.mode, settings.scale, settings.max_samples, settings.tpcb_seconds
        );
    }
    let host = &envelope.host;
    let _ = writeln!(
        out,
        "- Host: `{}`, {} ({} cores), {}",
        host.hostname, host.cpu_model, host.cores, host.os
    );
    let commit = envelope.commit.as_deref().unwrap_or("unknown");
    let dirty = if envelope.commit_dirty == Some(true) {
        " (with uncommitted changes)"
    } else {
        ""
    };
    let _ = writeln!(out, "- Commit: `{commit}`{dirty}");
    let versions = &envelope.versions;
    let _ = writeln!(
        out,
        "- Versions: Basalt {}, SQLite {} (rusqlite, bundled), sqlite-vec {}, DuckDB {}",
        versions.basalt,
        versions.sqlite,
        versions.sqlite_vec.as_deref().unwrap_or("unknown"),
        versions
            .duckdb
            .as_deref()
            .unwrap_or("not built (cargo feature `duckdb`)")
    );
    let _ = writeln!(
        out,
        "- Settings: scale {}, seed {:#x}, {}–{} timed iterations per metric within ~{} s each, \
         TPC-B {} s; wall time {:.0} s",
        settings.scale,
        settings.seed,
        settings.min_samples,
        settings.max_samples,
        settings.metric_budget_seconds,
        settings.tpcb_seconds,
        envelope.wall_seconds
    );
    let _ = writeln!(out, "- Drivers:");
    for driver in &envelope.drivers {
        let _ = writeln!(out, "  - `{}`: {}", driver.name, driver.description);
    }
    out.push('\n');
}

fn ratio_table(envelope: &Envelope, out: &mut String) {
    let _ = writeln!(
        out,
        "## Basalt / comparator\n\nRatio of median time per operation, same run; **below 1 means \
         Basalt is faster**. p95 in parentheses. Allocations are counted per operation inside \
         timed single-threaded sections.\n"
    );
    let _ = writeln!(
        out,
        "| workload | metric | unit | vs | Basalt | comparator | ratio | allocs/op (Basalt / comparator) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for comparison in &envelope.comparisons {
        let time = |summary: Option<super::Summary>| {
            summary.map_or("—".to_string(), |s| {
                format!("{} ({})", format_ns(s.median_ns), format_ns(s.p95_ns))
            })
        };
        let allocs = |summary: Option<super::Summary>| {
            summary
                .and_then(|s| s.allocs_per_op)
                .map_or("—".to_string(), |a| format!("{a:.1}"))
        };
        let ratio = match (comparison.ratio, &comparison.note) {
            (Some(ratio), _) => format!("**{}**", format_ratio(ratio)),
            (None, Some(note)) => note.replace('|', "\\|"),
            (None, None) => "—".to_string(),
        };
        let pair = if comparison.subject == crate::driver::DriverKind::Basalt {
            comparison.comparator.to_string()
        } else {
            format!("{} (Basalt FULL)", comparison.comparator)
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} / {} |",
            comparison.workload,
            comparison.metric,
            comparison.unit,
            pair,
            time(comparison.subject_summary),
            time(comparison.comparator_summary),
            ratio,
            allocs(comparison.subject_summary),
            allocs(comparison.comparator_summary),
        );
    }
    out.push('\n');
}

fn driver_table(envelope: &Envelope, out: &mut String) {
    let _ = writeln!(out, "## Every driver\n");
    let _ = writeln!(
        out,
        "| workload | metric | driver | median | p95 | ops/s | allocs/op | measurements | status | notes |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|");
    for report in &envelope.results {
        for metric in &report.metrics {
            let notes = metric
                .notes
                .iter()
                .map(|(key, value)| format!("{key} {value}"))
                .collect::<Vec<_>>()
                .join(", ");
            let status = match &metric.status {
                Status::Ok => "ok".to_string(),
                other => other.describe().replace('|', "\\|"),
            };
            match summarize(metric) {
                Some(s) => {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {} | {} | {}/s | {} | {} | {status} | {notes} |",
                        report.workload,
                        metric.name,
                        report.driver,
                        format_ns(s.median_ns),
                        format_ns(s.p95_ns),
                        format_rate(s.ops_per_second),
                        s.allocs_per_op
                            .map_or("—".to_string(), |a| format!("{a:.1}")),
                        s.measurements,
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | — | — | — | — | 0 | {status} | {notes} |",
                        report.workload, metric.name, report.driver
                    );
                }
            }
        }
    }
    out.push('\n');
}

fn process_table(envelope: &Envelope, out: &mut String) {
    let _ = writeln!(out, "## Worker processes\n");
    let _ = writeln!(out, "| workload | driver | peak RSS | wall time | error |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for report in &envelope.results {
        let rss = report.peak_rss_kib.map_or("—".to_string(), |kib| {
            format!("{:.1} MiB", kib as f64 / 1024.0)
        });
        let error = report
            .error
            .as_deref()
            .unwrap_or("")
            .replace('|', "\\|")
            .replace('\n', " ");
        let _ = writeln!(
            out,
            "| {} | {} | {rss} | {:.1} s | {error} |",
            report.workload, report.driver, report.wall_seconds
        );
    }
}
