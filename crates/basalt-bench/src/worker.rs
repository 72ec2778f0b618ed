//! The worker: one driver × one workload in a process of its own (`basalt-bench worker ...`,
//! spawned by the orchestrator from `std::env::current_exe()`).
//!
//! A process per run means peak RSS belongs to one driver, one engine's caches never warm the
//! other's data, and a crash or a runaway workload takes down only its own row of the report.
//! The worker runs the workload (see `workloads::Ctx::measure` for the gate and sampling),
//! reads its peak RSS (`VmHWM`) at the end, and writes a [`WorkerReport`] as JSON.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;

use crate::alloc_counter;
use crate::digest::Answer;
use crate::driver::DriverKind;
use crate::gate::Reference;
use crate::model::{Settings, WorkerReport};
use crate::workloads::{self, Ctx};

/// Everything a worker is told on its command line.
#[derive(Debug)]
pub struct WorkerJob {
    pub driver: DriverKind,
    pub workload: String,
    pub settings: Settings,
    /// Directory for the databases (the orchestrator removes it afterwards).
    pub dir: PathBuf,
    /// Where the JSON report goes.
    pub out: PathBuf,
    /// The reference's answers (absent for the reference itself).
    pub expect: Option<PathBuf>,
    /// Compute answers only; time nothing.
    pub answer_only: bool,
    /// Test hook: report wrong answers.
    pub wrong_answer: bool,
}

/// Runs the job and writes its report; errors only when no report could be written.
pub fn run(job: &WorkerJob) -> anyhow::Result<()> {
    let started = Instant::now();
    let workload = workloads::find(&job.workload)
        .with_context(|| format!("no workload with id {}", job.workload))?;
    std::fs::create_dir_all(&job.dir).with_context(|| format!("creating {}", job.dir.display()))?;
    let expected: Option<BTreeMap<String, Answer>> = match &job.expect {
        Some(path) => Some(read_json(path)?),
        None => None,
    };
    let reference = match &expected {
        Some(answers) => Reference::Answers(answers),
        None => Reference::Itself,
    };
    let mut ctx = Ctx::new(
        job.driver,
        &job.settings,
        &workload,
        &job.dir,
        reference,
        job.answer_only,
        job.wrong_answer,
    );
    let outcome = (workload.run)(&mut ctx);
    let error = outcome.err().map(|error| {
        let status = workloads::classify(&error);
        eprintln!("[{} {}] {}", job.workload, job.driver, status.describe());
        status.describe()
    });
    let report = WorkerReport {
        workload: job.workload.clone(),
        driver: job.driver,
        metrics: ctx.reports,
        error,
        peak_rss_kib: alloc_counter::peak_rss_kib(),
        wall_seconds: started.elapsed().as_secs_f64(),
    };
    let json = serde_json::to_string_pretty(&report)?;
    std::fs::write(&job.out, json).with_context(|| format!("writing {}", job.out.display()))?;
    Ok(())
}

/// Reads a JSON file.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}
