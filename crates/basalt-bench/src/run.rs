//! The orchestrator: plans the driver × workload runs, spawns a worker process for each,
//! feeds the reference driver's answers to the others (the correctness gate), checks that
//! later answers did not drift, and writes the envelope, the Markdown report and the chart.
//!
//! Order per workload: SQLite (the reference) first — timed when selected, answers only when
//! not — then every other selected driver with the reference's answers. Workers run one at a
//! time, so they never compete for the two cores with each other.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::RunArgs;
use crate::driver::{ALL_DRIVERS, DriverKind, REFERENCE};
use crate::gate;
use crate::model::{Mode, Settings, Status, WorkerReport};
use crate::report::json::{self, DriverEntry, Envelope, WorkloadEntry};
use crate::report::{self, format_ratio};
use crate::worker::read_json;
use crate::workloads::{self, Workload};

/// One planned worker process.
struct Job {
    workload: String,
    driver: DriverKind,
    answer_only: bool,
}

/// Runs the suite as `args` asks; returns the output directory.
pub fn run(args: &RunArgs) -> anyhow::Result<PathBuf> {
    let mode = if args.smoke {
        Mode::Smoke
    } else if args.quick {
        Mode::Quick
    } else {
        Mode::Full
    };
    let mut settings = Settings::for_mode(mode);
    if let Some(scale) = args.scale {
        anyhow::ensure!(scale > 0.0, "--scale must be positive");
        settings.scale = scale;
    }
    let drivers = selected_drivers(&args.drivers, mode)?;
    let wrong = match &args.inject_wrong_answer {
        Some(name) => {
            Some(DriverKind::parse(name).with_context(|| format!("unknown driver {name}"))?)
        }
        None => None,
    };
    let catalogue: Vec<Workload> = workloads::registry()
        .into_iter()
        .filter(|w| {
            args.only.is_empty() || args.only.iter().any(|f| workloads::matches_filter(w.id, f))
        })
        .collect();
    anyhow::ensure!(
        !catalogue.is_empty(),
        "no workload matches --only {:?}",
        args.only
    );

    let started_utc = json::utc_now();
    // The tree as it is when the run starts is what the binary was built from.
    let (commit, commit_dirty) = json::commit();
    let out_dir = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("bench/results").join(format!("{}-{}", &started_utc[..10], mode.name()))
    });
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let unique = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    let work_dir = args
        .dir
        .clone()
        .unwrap_or_else(std::env::temp_dir)
        .join(format!("basalt-bench-{}-{unique}", std::process::id()));
    std::fs::create_dir_all(&work_dir)
        .with_context(|| format!("creating {}", work_dir.display()))?;

    let plan: Vec<(&Workload, Vec<Job>)> = catalogue
        .iter()
        .map(|workload| (workload, jobs_for(workload, &drivers)))
        .collect();
    let total: usize = plan.iter().map(|(_, jobs)| jobs.len()).sum();
    let progress = progress_bar(total as u64, args.no_progress);
    let clock = Instant::now();
    let mut results = Vec::new();
    for (workload, jobs) in &plan {
        let mut reference: Option<WorkerReport> = None;
        for job in jobs {
            progress.set_message(format!("{} on {}", job.workload, job.driver));
            let expect = if job.driver == REFERENCE {
                None
            } else {
                // `jobs_for` puts the reference first, so its answers exist (possibly none,
                // which refuses every metric).
                let reference = reference
                    .as_ref()
                    .context("the reference driver runs first")?;
                Some(write_expectations(&work_dir, reference)?)
            };
            let report = run_worker(
                job,
                &settings,
                &work_dir,
                expect.as_deref(),
                wrong == Some(job.driver),
                &progress,
            );
            say(&progress, &line_for(&report));
            progress.inc(1);
            if job.driver == REFERENCE {
                reference = Some(report.clone());
                if job.answer_only {
                    continue;
                }
            }
            results.push(report);
        }
        check_drift(&mut results, reference.as_ref(), workload.id);
        note_overlap(&mut results, reference.as_ref(), workload.id);
    }
    progress.finish_and_clear();
    // The databases are gone with their workers' directories; this removes the rest.
    let _ = std::fs::remove_dir_all(&work_dir);

    let comparisons = report::comparisons(&results);
    let envelope = Envelope {
        format: json::FORMAT_VERSION,
        suite: "basalt-bench".to_string(),
        mode: mode.name().to_string(),
        started_utc,
        wall_seconds: clock.elapsed().as_secs_f64(),
        host: json::host(),
        commit,
        commit_dirty,
        versions: json::versions(),
        settings,
        drivers: ALL_DRIVERS
            .into_iter()
            .filter(|d| drivers.contains(d))
            .map(|d| DriverEntry {
                name: d.name().to_string(),
                description: d.description().to_string(),
            })
            .collect(),
        workloads: catalogue
            .iter()
            .map(|w| WorkloadEntry {
                id: w.id.to_string(),
                group: format!("{} {}", w.group.letter(), w.group.title()),
                title: w.title.to_string(),
                foreign_keys: w.foreign_keys,
            })
            .collect(),
        results,
        comparisons,
    };
    std::fs::write(
        out_dir.join("results.json"),
        serde_json::to_string_pretty(&envelope)?,
    )?;
    let markdown = report::markdown::render(&envelope);
    std::fs::write(out_dir.join("results.md"), &markdown)?;
    std::fs::write(out_dir.join("ratios.svg"), report::svg::render(&envelope))?;
    print_summary(&envelope);
    println!(
        "\nwrote {}/results.json, results.md, ratios.svg",
        out_dir.display()
    );
    Ok(out_dir)
}

/// The drivers named on the command line. By default every built-in one, except that the
/// quick run leaves out the FULL-durability pairing (group E's `basalt-full` against
/// `sqlite-default`) to stay under three minutes.
fn selected_drivers(names: &[String], mode: Mode) -> anyhow::Result<BTreeSet<DriverKind>> {
    if names.is_empty() {
        return Ok(ALL_DRIVERS
            .into_iter()
            .filter(|d| d.compiled())
            .filter(|d| {
                mode != Mode::Quick
                    || !matches!(d, DriverKind::BasaltFull | DriverKind::SqliteDefault)
            })
            .collect());
    }
    names
        .iter()
        .map(|name| {
            let kind = DriverKind::parse(name).with_context(|| {
                format!("unknown driver {name} (basalt, basalt-full, sqlite, sqlite-default, duckdb)")
            })?;
            anyhow::ensure!(
                kind.compiled(),
                "driver {name} needs a build with `--features {name}` (DuckDB's bundled build compiles its C++ sources: an hour or more on two cores)"
            );
            Ok(kind)
        })
        .collect()
}

/// The reference first (answers only when not selected), then the selected drivers.
fn jobs_for(workload: &Workload, drivers: &BTreeSet<DriverKind>) -> Vec<Job> {
    let mut jobs = vec![Job {
        workload: workload.id.to_string(),
        driver: REFERENCE,
        answer_only: !drivers.contains(&REFERENCE),
    }];
    for &driver in workload.drivers {
        if driver != REFERENCE && drivers.contains(&driver) {
            jobs.push(Job {
                workload: workload.id.to_string(),
                driver,
                answer_only: false,
            });
        }
    }
    jobs
}

fn write_expectations(work_dir: &Path, reference: &WorkerReport) -> anyhow::Result<PathBuf> {
    let path = work_dir.join(format!("{}-expected.json", reference.workload));
    std::fs::write(&path, serde_json::to_string_pretty(&reference.answers())?)?;
    Ok(path)
}

/// Spawns one worker and waits for it (killing it at the job timeout). Never fails: a
/// worker that could not run becomes a report carrying the error.
fn run_worker(
    job: &Job,
    settings: &Settings,
    work_dir: &Path,
    expect: Option<&Path>,
    wrong_answer: bool,
    progress: &ProgressBar,
) -> WorkerReport {
    let started = Instant::now();
    let name = format!("{}-{}", job.workload, job.driver);
    let db_dir = work_dir.join(&name);
    let out = work_dir.join(format!("{name}.json"));
    let log = work_dir.join(format!("{name}.log"));
    let outcome = spawn_and_wait(
        job,
        settings,
        &db_dir,
        &out,
        &log,
        expect,
        wrong_answer,
        progress,
    );
    let _ = std::fs::remove_dir_all(&db_dir);
    let failure = |error: String| WorkerReport {
        workload: job.workload.clone(),
        driver: job.driver,
        metrics: Vec::new(),
        error: Some(error),
        peak_rss_kib: None,
        wall_seconds: started.elapsed().as_secs_f64(),
    };
    match outcome {
        Ok(()) => {
            read_json::<WorkerReport>(&out).unwrap_or_else(|error| failure(format!("{error:#}")))
        }
        Err(error) => {
            let tail = std::fs::read_to_string(&log).unwrap_or_default();
            let tail: Vec<&str> = tail.lines().rev().take(5).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            failure(format!("{error:#}; last log lines: {}", tail.join(" / ")))
        }
    }
}

#[allow(
    clippy::too_many_arguments,
    reason = "one argument per part of a run it reports"
)]
fn spawn_and_wait(
    job: &Job,
    settings: &Settings,
    db_dir: &Path,
    out: &Path,
    log: &Path,
    expect: Option<&Path>,
    wrong_answer: bool,
    progress: &ProgressBar,
) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("locating basalt-bench")?;
    let mut command = Command::new(exe);
    command
        .arg("worker")
        .args(["--driver", job.driver.name(), "--workload", &job.workload])
        .arg("--settings")
        .arg(serde_json::to_string(settings)?)
        .arg("--dir")
        .arg(db_dir)
        .arg("--out")
        .arg(out);
    if let Some(expect) = expect {
        command.arg("--expect").arg(expect);
    }
    if job.answer_only {
        command.arg("--answer-only");
    }
    if wrong_answer {
        command.arg("--wrong-answer");
    }
    let log_file = std::fs::File::create(log)?;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log_file))
        .spawn()
        .context("spawning a worker")?;
    let timeout = Duration::from_secs_f64(settings.job_timeout_seconds);
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            anyhow::ensure!(status.success(), "worker exited with {status}");
            return Ok(());
        }
        if started.elapsed() > timeout {
            child.kill()?;
            child.wait()?;
            anyhow::bail!("timed out after {:.0} s", timeout.as_secs_f64());
        }
        progress.tick();
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Marks metrics whose timed answers diverged from the reference's.
fn check_drift(results: &mut [WorkerReport], reference: Option<&WorkerReport>, workload: &str) {
    let Some(reference) = reference else { return };
    for report in results
        .iter_mut()
        .filter(|r| r.workload == workload && r.driver != REFERENCE)
    {
        for metric in &mut report.metrics {
            if metric.status != Status::Ok {
                continue;
            }
            if let Some(reference_metric) = reference.metric(&metric.name)
                && let Some(message) = gate::drift(metric, reference_metric)
            {
                metric.status = Status::Failed {
                    message: format!("answer drift: {message}"),
                };
            }
        }
    }
}

/// Notes, on each ranked metric of the other drivers, how far its rankings agree with the
/// reference's (`overlap@k with sqlite`): for rankings the engines legitimately compute
/// differently, which the gate therefore does not compare.
fn note_overlap(results: &mut [WorkerReport], reference: Option<&WorkerReport>, workload: &str) {
    let Some(reference) = reference else { return };
    for report in results
        .iter_mut()
        .filter(|r| r.workload == workload && r.driver != REFERENCE)
    {
        for metric in &mut report.metrics {
            let Some(theirs) = reference.metric(&metric.name) else {
                continue;
            };
            if let Some((k, overlap)) = report::overlap(&metric.rankings, &theirs.rankings) {
                metric
                    .notes
                    .insert(format!("overlap@{k} with {}", REFERENCE.name()), overlap);
            }
        }
    }
}

fn progress_bar(total: u64, hidden: bool) -> ProgressBar {
    let bar = ProgressBar::new(total);
    if hidden {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Prints a line above the bar (or plainly when the bar is hidden or not a terminal).
fn say(progress: &ProgressBar, line: &str) {
    if progress.is_hidden() {
        eprintln!("{line}");
    } else {
        progress.println(line);
    }
}

fn line_for(report: &WorkerReport) -> String {
    let ok = report
        .metrics
        .iter()
        .filter(|m| matches!(m.status, Status::Ok | Status::AnswerOnly))
        .count();
    let mut line = format!(
        "{:<16} {:<15} {:>6.1} s  {}/{} metrics ok",
        report.workload,
        report.driver.name(),
        report.wall_seconds,
        ok,
        report.metrics.len()
    );
    for metric in report
        .metrics
        .iter()
        .filter(|m| !matches!(m.status, Status::Ok | Status::AnswerOnly))
    {
        line.push_str(&format!(
            "\n    {}: {}",
            metric.name,
            metric.status.describe()
        ));
    }
    if let Some(error) = &report.error {
        line.push_str(&format!("\n    error: {error}"));
    }
    line
}

fn print_summary(envelope: &Envelope) {
    println!(
        "\nBasalt / comparator (median time per operation; < 1 = Basalt faster), {} run:",
        envelope.mode
    );
    for comparison in &envelope.comparisons {
        let ratio = comparison
            .ratio
            .map_or_else(|| comparison.note.clone().unwrap_or_default(), format_ratio);
        println!(
            "  {:<16} {:<48} vs {:<15} {}",
            comparison.workload,
            comparison.metric,
            comparison.comparator.name(),
            ratio
        );
    }
}
