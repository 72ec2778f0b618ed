//! Turning worker reports into numbers people read: per-metric summaries (median, p95,
//! ops/s, allocations per op) and the Basalt / comparator ratios, then the three renderings —
//! the JSON envelope (`json`), the Markdown tables (`markdown`) and the SVG chart (`svg`).
//!
//! The ratio is Basalt's median time per operation divided by the comparator's, both from
//! the same run; below 1 means Basalt is faster. A ratio exists only when both drivers passed
//! the gate and were timed.

use serde::{Deserialize, Serialize};

use crate::driver::DriverKind;
use crate::model::{MetricReport, Status, WorkerReport};

pub mod json;
pub mod markdown;
pub mod svg;

/// The statistics of one metric for one driver.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// Median time per operation over all measurements.
    pub median_ns: f64,
    /// 95th percentile (nearest rank) of time per operation.
    pub p95_ns: f64,
    /// Operations per second at the median.
    pub ops_per_second: f64,
    /// Allocation calls per operation (absent where not counted).
    pub allocs_per_op: Option<f64>,
    /// Number of measurements.
    pub measurements: usize,
    pub ops: u64,
}

/// Summarises a metric's timings; `None` when it has none.
pub fn summarize(metric: &MetricReport) -> Option<Summary> {
    if metric.status != Status::Ok {
        return None;
    }
    let mut per_op: Vec<f64> = metric
        .timings
        .iter()
        .filter(|timing| timing.ops > 0)
        .map(|timing| timing.nanos as f64 / timing.ops as f64)
        .collect();
    if per_op.is_empty() {
        return None;
    }
    per_op.sort_by(f64::total_cmp);
    let median = median_of_sorted(&per_op);
    let p95 = per_op[((per_op.len() as f64 * 0.95).ceil() as usize).clamp(1, per_op.len()) - 1];
    let ops: u64 = metric.timings.iter().map(|timing| timing.ops).sum();
    let counted: Vec<_> = metric
        .timings
        .iter()
        .filter_map(|t| t.allocs.map(|a| (a, t.ops)))
        .collect();
    let allocs_per_op = (!counted.is_empty()).then(|| {
        let allocs: u64 = counted.iter().map(|(allocs, _)| allocs).sum();
        let ops: u64 = counted.iter().map(|(_, ops)| ops).sum();
        allocs as f64 / ops.max(1) as f64
    });
    Some(Summary {
        median_ns: median,
        p95_ns: p95,
        ops_per_second: if median > 0.0 { 1e9 / median } else { 0.0 },
        allocs_per_op,
        measurements: per_op.len(),
        ops,
    })
}

fn median_of_sorted(values: &[f64]) -> f64 {
    let middle = values.len() / 2;
    if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    }
}

/// Basalt against one comparator on one metric.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Comparison {
    pub workload: String,
    pub metric: String,
    pub unit: String,
    pub subject: DriverKind,
    pub comparator: DriverKind,
    pub subject_summary: Option<Summary>,
    pub comparator_summary: Option<Summary>,
    /// Subject median / comparator median.
    pub ratio: Option<f64>,
    /// Why there is no ratio (the failing side's status).
    pub note: Option<String>,
}

/// Every Basalt-vs-comparator pairing present in `results`, in report order.
pub fn comparisons(results: &[WorkerReport]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for subject_report in results.iter().filter(|report| report.driver.is_basalt()) {
        for &comparator in subject_report.driver.comparators() {
            let Some(comparator_report) = results
                .iter()
                .find(|r| r.workload == subject_report.workload && r.driver == comparator)
            else {
                continue;
            };
            for metric in &subject_report.metrics {
                let other = comparator_report.metric(&metric.name);
                let subject_summary = summarize(metric);
                let comparator_summary = other.and_then(summarize);
                let ratio = match (subject_summary, comparator_summary) {
                    (Some(s), Some(c)) if c.median_ns > 0.0 => Some(s.median_ns / c.median_ns),
                    _ => None,
                };
                let note = if ratio.is_some() {
                    None
                } else if metric.status != Status::Ok {
                    Some(format!(
                        "{}: {}",
                        subject_report.driver,
                        metric.status.describe()
                    ))
                } else {
                    Some(match other {
                        Some(other) => format!("{comparator}: {}", other.status.describe()),
                        None => match &comparator_report.error {
                            Some(error) => format!("{comparator}: {error}"),
                            None => format!("{comparator}: metric missing"),
                        },
                    })
                };
                out.push(Comparison {
                    workload: subject_report.workload.clone(),
                    metric: metric.name.clone(),
                    unit: metric.unit.clone(),
                    subject: subject_report.driver,
                    comparator,
                    subject_summary,
                    comparator_summary,
                    ratio,
                    note,
                });
            }
        }
    }
    out
}

/// How far two drivers' rankings of the same queries agree: overlap@k, the mean over the
/// queries of the ids both returned divided by the longer of the two lists (1 when both are
/// empty), with k the longest list. `None` when there is nothing to compare (no rankings, or
/// a different number of queries).
pub fn overlap(subject: &[Vec<i64>], reference: &[Vec<i64>]) -> Option<(usize, f64)> {
    if subject.is_empty() || subject.len() != reference.len() {
        return None;
    }
    let k = subject.iter().chain(reference).map(Vec::len).max()?;
    let total: f64 = subject
        .iter()
        .zip(reference)
        .map(|(ours, theirs)| {
            let longer = ours.len().max(theirs.len());
            if longer == 0 {
                return 1.0;
            }
            let shared = ours.iter().filter(|id| theirs.contains(id)).count();
            shared as f64 / longer as f64
        })
        .sum();
    Some((k, total / subject.len() as f64))
}

/// A duration in the unit that reads best.
pub fn format_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// A rate with a thousands suffix.
pub fn format_rate(per_second: f64) -> String {
    if per_second >= 1e6 {
        format!("{:.2}M", per_second / 1e6)
    } else if per_second >= 1e3 {
        format!("{:.1}k", per_second / 1e3)
    } else if per_second >= 10.0 {
        format!("{per_second:.0}")
    } else {
        format!("{per_second:.2}")
    }
}

/// A ratio as printed in tables.
pub fn format_ratio(ratio: f64) -> String {
    if ratio >= 100.0 {
        format!("{ratio:.0}×")
    } else if ratio >= 10.0 {
        format!("{ratio:.1}×")
    } else {
        format!("{ratio:.2}×")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::Timing;

    fn metric(timings: &[(u64, u64)], status: Status) -> MetricReport {
        MetricReport {
            name: "m".into(),
            unit: "op".into(),
            status,
            answer: None,
            sample_answers: Vec::new(),
            timings: timings
                .iter()
                .map(|&(ops, nanos)| Timing {
                    ops,
                    nanos,
                    allocs: Some(ops * 2),
                })
                .collect(),
            notes: BTreeMap::new(),
            rankings: Vec::new(),
        }
    }

    #[test]
    fn overlap_is_the_mean_share_of_ids_in_common() {
        let reference = vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8], vec![]];
        let subject = vec![vec![4, 3, 2, 1], vec![5, 9, 10, 11], vec![]];
        let (k, overlap) = overlap(&subject, &reference).expect("comparable");
        assert_eq!(k, 4);
        assert!((overlap - (1.0 + 0.25 + 1.0) / 3.0).abs() < 1e-12);
        assert_eq!(super::overlap(&[], &reference), None);
        assert_eq!(super::overlap(&subject[..2], &reference), None);
    }

    #[test]
    fn summary_uses_time_per_operation() {
        let summary = summarize(&metric(
            &[(10, 100), (10, 300), (10, 200), (10, 1000)],
            Status::Ok,
        ));
        let summary = summary.expect("timed metric has a summary");
        assert_eq!(summary.median_ns, 25.0);
        assert_eq!(summary.p95_ns, 100.0);
        assert_eq!(summary.allocs_per_op, Some(2.0));
        assert_eq!(summary.ops, 40);
    }

    #[test]
    fn untimed_metric_has_no_summary() {
        let unsupported = Status::Unsupported {
            message: "WITH RECURSIVE".into(),
        };
        assert!(summarize(&metric(&[(1, 1)], unsupported)).is_none());
    }

    #[test]
    fn ratio_is_subject_over_comparator() {
        let report = |driver, nanos| WorkerReport {
            workload: "W1.v1".into(),
            driver,
            metrics: vec![metric(&[(1, nanos)], Status::Ok)],
            error: None,
            peak_rss_kib: None,
            wall_seconds: 0.0,
        };
        let found = comparisons(&[
            report(DriverKind::Sqlite, 100),
            report(DriverKind::Basalt, 250),
        ]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].ratio, Some(2.5));
    }

    #[test]
    fn an_unsupported_side_has_no_ratio_and_carries_the_message() {
        let report = |driver, status| WorkerReport {
            workload: "F.x.v1".into(),
            driver,
            metrics: vec![metric(&[(1, 100)], status)],
            error: None,
            peak_rss_kib: None,
            wall_seconds: 0.0,
        };
        let message = "WITH RECURSIVE is not supported (SQLSTATE 0A000)";
        let found = comparisons(&[
            report(DriverKind::Sqlite, Status::Ok),
            report(
                DriverKind::Basalt,
                Status::Unsupported {
                    message: message.into(),
                },
            ),
        ]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].ratio, None);
        let note = found[0].note.as_deref().unwrap_or_default();
        assert!(note.contains(&format!("unsupported: {message}")), "{note}");
    }
}
