//! `basalt-bench compare OLD.json NEW.json`: the change per workload, metric and driver
//! between two result envelopes, and the change of every Basalt / comparator ratio.
//!
//! Absolute times only compare on the same machine under the same load, so the command warns
//! when the hosts, modes or scales differ (ratios from one run each are the robust figure),
//! and it refuses to line up a workload whose version changed (`W1.v1` against `W1.v2`
//! measures different things).

use std::collections::BTreeMap;
use std::path::Path;

use crate::report::json::Envelope;
use crate::report::{format_ns, format_ratio, summarize};
use crate::worker::read_json;

/// Splits `W1.v1` into (`W1`, `v1`).
pub fn split_version(id: &str) -> (&str, &str) {
    id.rsplit_once(".v")
        .map_or((id, ""), |(base, _)| (base, &id[base.len() + 1..]))
}

/// Warnings about what makes the two runs hard to compare.
pub fn warnings(old: &Envelope, new: &Envelope) -> Vec<String> {
    let mut out = Vec::new();
    if old.host != new.host {
        out.push(format!(
            "different hosts: {} ({}, {} cores) vs {} ({}, {} cores); compare ratios, not times",
            old.host.hostname,
            old.host.cpu_model,
            old.host.cores,
            new.host.hostname,
            new.host.cpu_model,
            new.host.cores
        ));
    }
    if old.mode != new.mode || old.settings.scale != new.settings.scale {
        out.push(format!(
            "different modes: {} (scale {}) vs {} (scale {})",
            old.mode, old.settings.scale, new.mode, new.settings.scale
        ));
    }
    let versions = |envelope: &Envelope| -> BTreeMap<String, String> {
        envelope
            .workloads
            .iter()
            .map(|w| {
                let (base, version) = split_version(&w.id);
                (base.to_string(), version.to_string())
            })
            .collect()
    };
    let (old_versions, new_versions) = (versions(old), versions(new));
    for (base, version) in &new_versions {
        if let Some(previous) = old_versions.get(base)
            && previous != version
        {
            out.push(format!(
                "workload {base} changed version ({previous} → {version}); not compared"
            ));
        }
    }
    out
}

/// Prints the comparison.
pub fn compare(old_path: &Path, new_path: &Path) -> anyhow::Result<()> {
    let old: Envelope = read_json(old_path)?;
    let new: Envelope = read_json(new_path)?;
    println!(
        "old: {} run {} (commit {})",
        old.mode,
        old.started_utc,
        old.commit.as_deref().unwrap_or("?")
    );
    println!(
        "new: {} run {} (commit {})",
        new.mode,
        new.started_utc,
        new.commit.as_deref().unwrap_or("?")
    );
    for warning in warnings(&old, &new) {
        println!("warning: {warning}");
    }

    println!("\nMedian time per operation (negative change = faster):");
    println!(
        "  {:<16} {:<48} {:<15} {:>12} {:>12} {:>9}",
        "workload", "metric", "driver", "old", "new", "change"
    );
    for report in &new.results {
        let Some(previous) = old
            .results
            .iter()
            .find(|r| r.workload == report.workload && r.driver == report.driver)
        else {
            continue;
        };
        for metric in &report.metrics {
            let (Some(now), Some(before)) = (
                summarize(metric),
                previous.metric(&metric.name).and_then(summarize),
            ) else {
                continue;
            };
            println!(
                "  {:<16} {:<48} {:<15} {:>12} {:>12} {:>+8.1}%",
                report.workload,
                metric.name,
                report.driver.name(),
                format_ns(before.median_ns),
                format_ns(now.median_ns),
                (now.median_ns / before.median_ns - 1.0) * 100.0
            );
        }
    }

    println!("\nBasalt / comparator ratios:");
    for comparison in &new.comparisons {
        let Some(ratio) = comparison.ratio else {
            continue;
        };
        let before = old.comparisons.iter().find(|c| {
            c.workload == comparison.workload
                && c.metric == comparison.metric
                && c.subject == comparison.subject
                && c.comparator == comparison.comparator
        });
        let before = before
            .and_then(|c| c.ratio)
            .map_or("—".to_string(), format_ratio);
        println!(
            "  {:<16} {:<48} vs {:<15} {:>9} → {}",
            comparison.workload,
            comparison.metric,
            comparison.comparator.name(),
            before,
            format_ratio(ratio)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_split_into_base_and_version() {
        assert_eq!(split_version("W1.v1"), ("W1", "v1"));
        assert_eq!(split_version("E.simple.v12"), ("E.simple", "v12"));
        assert_eq!(split_version("odd"), ("odd", ""));
    }
}
