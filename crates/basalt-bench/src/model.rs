//! The suite's data model: run settings (sent to every worker), and what a worker reports
//! back (per metric: its gate status, answer, and every timed sample). These types are the
//! JSON a worker writes and the body of the committed result envelope, so changing a field
//! changes the result format (bump [`crate::report::json::FORMAT_VERSION`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::digest::Answer;
use crate::driver::DriverKind;

/// Which preset a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The catalogue's sizes, several samples per metric.
    Full,
    /// 5% sizes for the big data sets, few samples, TPC-B for 10 s, only the tuned-SQLite
    /// pairing by default: under three minutes.
    Quick,
    /// Tiny sizes and one sample: the suite's own tests.
    Smoke,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Quick => "quick",
            Mode::Smoke => "smoke",
        }
    }
}

/// Everything that shapes a run's numbers; recorded in the envelope.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    pub mode: Mode,
    /// Multiplier on the catalogue's data sizes (1.0 = as catalogued).
    pub scale: f64,
    /// Seed of every data generator.
    pub seed: u64,
    /// Timed iterations per metric, at least...
    pub min_samples: usize,
    /// ...and at most.
    pub max_samples: usize,
    /// Wall-clock budget per metric; the iteration count is fitted to it after the warm-up.
    pub metric_budget_seconds: f64,
    /// Duration of each TPC-B run (group D).
    pub tpcb_seconds: f64,
    /// A worker that runs longer than this is killed and reported as timed out.
    pub job_timeout_seconds: f64,
}

/// The suite's fixed seed (any change changes every data set: bump the workload versions).
pub const SEED: u64 = 0x0BA5_A17B_E4C4_2026;

impl Settings {
    pub fn for_mode(mode: Mode) -> Settings {
        match mode {
            Mode::Full => Settings {
                mode,
                scale: 1.0,
                seed: SEED,
                min_samples: 3,
                max_samples: 25,
                metric_budget_seconds: 6.0,
                tpcb_seconds: 60.0,
                job_timeout_seconds: 3600.0,
            },
            Mode::Quick => Settings {
                mode,
                scale: 0.05,
                seed: SEED,
                min_samples: 1,
                max_samples: 5,
                metric_budget_seconds: 0.2,
                tpcb_seconds: 10.0,
                job_timeout_seconds: 300.0,
            },
            Mode::Smoke => Settings {
                mode,
                scale: 0.001,
                seed: SEED,
                min_samples: 1,
                max_samples: 1,
                metric_budget_seconds: 0.0,
                tpcb_seconds: 0.2,
                job_timeout_seconds: 120.0,
            },
        }
    }
}

/// One timed measurement: `ops` operations took `nanos`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Timing {
    pub ops: u64,
    pub nanos: u64,
    /// Allocation calls during the measurement (absent for multi-threaded sections).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub allocs: Option<u64>,
}

/// Outcome of a metric for one driver.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Status {
    /// Gated and timed.
    Ok,
    /// Only the answer was computed (the reference driver when it is not being timed).
    AnswerOnly,
    /// The answer differs from the reference: not timed.
    Mismatch { expected: Answer, actual: Answer },
    /// The reference driver produced no answer for this metric, so it cannot be gated.
    NoReference,
    /// The engine rejected the workload's SQL as something it does not support.
    Unsupported { message: String },
    /// Anything else that went wrong.
    Failed { message: String },
}

impl Status {
    /// One line for tables: `ok`, `unsupported: ...`, `wrong answer: ...`.
    pub fn describe(&self) -> String {
        match self {
            Status::Ok => "ok".to_string(),
            Status::AnswerOnly => "answer only".to_string(),
            Status::Mismatch { expected, actual } => {
                format!("wrong answer (refused to time): got {actual}, reference {expected}")
            }
            Status::NoReference => "not timed: the reference driver has no answer".to_string(),
            Status::Unsupported { message } => format!("unsupported: {message}"),
            Status::Failed { message } => format!("failed: {message}"),
        }
    }
}

/// One metric of a workload, as one driver ran it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MetricReport {
    pub name: String,
    /// What one operation is ("lookup", "row", "query", "transaction").
    pub unit: String,
    #[serde(flatten)]
    pub status: Status,
    /// The warm-up's answer: what the gate compared.
    pub answer: Option<Answer>,
    /// The answer of each timed iteration, for the cross-driver drift check.
    pub sample_answers: Vec<Answer>,
    /// Every timed measurement.
    pub timings: Vec<Timing>,
    /// Extra figures (retries, transactions, rows per query).
    pub notes: BTreeMap<String, f64>,
    /// A ranked retrieval's results in the warm-up: per query, the ids returned, best first
    /// (W12). The orchestrator notes their overlap with the reference driver's
    /// ([`crate::report::overlap`]); they are not part of the gate. Empty (and absent from
    /// the JSON) for every other metric and in envelopes written before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rankings: Vec<Vec<i64>>,
}

/// What one worker process (one driver × workload) reports.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkerReport {
    pub workload: String,
    pub driver: DriverKind,
    pub metrics: Vec<MetricReport>,
    /// A failure outside any metric (set-up, a crash, a timeout).
    pub error: Option<String>,
    /// Peak resident set size of the worker process.
    pub peak_rss_kib: Option<u64>,
    pub wall_seconds: f64,
}

impl WorkerReport {
    /// The metric called `name`.
    pub fn metric(&self, name: &str) -> Option<&MetricReport> {
        self.metrics.iter().find(|metric| metric.name == name)
    }

    /// Answers by metric name: what the gate compares the other drivers with.
    pub fn answers(&self) -> BTreeMap<String, Answer> {
        self.metrics
            .iter()
            .filter_map(|metric| metric.answer.map(|answer| (metric.name.clone(), answer)))
            .filter(|(name, _)| {
                self.metric(name)
                    .is_some_and(|metric| matches!(metric.status, Status::Ok | Status::AnswerOnly))
            })
            .collect()
    }
}
