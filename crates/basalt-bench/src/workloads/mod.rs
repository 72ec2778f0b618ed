//! The workload catalogue (../shared/BENCHMARKS.md) as code, and the measuring context each
//! workload runs in.
//!
//! A [`Workload`] is a function that sets up its data and then measures one or more metrics
//! through [`Ctx::measure`]. `measure` owns the method, so every workload follows it:
//! 1. a warm-up iteration computes the metric's *answer* (the digest of everything read);
//! 2. the gate ([`crate::gate::admit`]) compares it with the reference driver's answer and
//!    refuses to time on any difference;
//! 3. timed iterations follow, as many as fit the metric's time budget (between the run's
//!    minimum and maximum), each recording its [`Timing`]s and its own answer.
//!
//! Only the code inside [`Sample::time`] is timed; set-up between measurements (recreating a
//! table, computing a check digest) is not. A failure is recorded against the metric — with
//! the engine's own message — and the workload moves on to its next metric.
//!
//! Group C (retrieval) has W10, vector search (`retrieval`), W11, BM25 (`fulltext`), and W12,
//! hybrid retrieval fusing the two (`hybrid`). Group G (wire protocol) is part of the
//! [`Group`] list so the registry, reports and filters already know it; its workloads arrive
//! with the server.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::alloc_counter;
use crate::data::{Rng, scaled};
use crate::digest::Digest;
use crate::driver::{Db, DriverKind, Location, OpenOptions, RowRef, RowSink, Session, Val};
use crate::gate::{self, Reference};
use crate::model::{MetricReport, Settings, Status, Timing};

mod analytics;
mod driver_shapes;
mod fulltext;
mod hybrid;
mod micro;
mod micro_pipeline;
mod oltp;
mod retrieval;
mod tpcb;

/// The catalogue's groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Oltp,
    Analytics,
    Retrieval,
    Tpcb,
    DriverShapes,
    Micro,
    Wire,
}

/// Every group, in catalogue order.
pub const GROUPS: [Group; 7] = [
    Group::Oltp,
    Group::Analytics,
    Group::Retrieval,
    Group::Tpcb,
    Group::DriverShapes,
    Group::Micro,
    Group::Wire,
];

impl Group {
    pub fn letter(self) -> char {
        match self {
            Group::Oltp => 'A',
            Group::Analytics => 'B',
            Group::Retrieval => 'C',
            Group::Tpcb => 'D',
            Group::DriverShapes => 'E',
            Group::Micro => 'F',
            Group::Wire => 'G',
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Group::Oltp => "OLTP",
            Group::Analytics => "analytics",
            Group::Retrieval => "retrieval (vector, BM25, hybrid)",
            Group::Tpcb => "TPC-B (after pgbench)",
            Group::DriverShapes => "driver shapes (after the Go driver comparison)",
            Group::Micro => "micro shapes (after the .NET reader's suite)",
            Group::Wire => "the PostgreSQL wire protocol",
        }
    }

    /// Why a group has no workloads yet.
    pub fn pending(self) -> Option<&'static str> {
        match self {
            Group::Wire => Some("joins with the PostgreSQL wire server"),
            _ => None,
        }
    }
}

/// One catalogue entry.
#[derive(Debug)]
pub struct Workload {
    /// Versioned id (`W1.v1`): bumped whenever the shape or data changes.
    pub id: &'static str,
    pub group: Group,
    pub title: &'static str,
    /// Drivers the workload runs on (the reference, SQLite, is always among them).
    pub drivers: &'static [DriverKind],
    /// `PRAGMA foreign_keys` for the whole workload.
    pub foreign_keys: bool,
    /// Whether SQLite's connections register sqlite-vec (group C's vector comparator).
    pub sqlite_vec: bool,
    /// Page cache bytes for every engine ([`crate::driver::CACHE_BYTES`] for all but W10).
    pub cache_bytes: usize,
    pub run: fn(&mut Ctx<'_>) -> anyhow::Result<()>,
}

/// Drivers of the groups compared with tuned SQLite and DuckDB.
pub const WITH_DUCKDB: &[DriverKind] =
    &[DriverKind::Sqlite, DriverKind::Basalt, DriverKind::Duckdb];
/// Drivers of the groups compared with tuned SQLite only.
pub const SQLITE_ONLY: &[DriverKind] = &[DriverKind::Sqlite, DriverKind::Basalt];
/// Group E: both durability pairings.
pub const BOTH_PROFILES: &[DriverKind] = &[
    DriverKind::Sqlite,
    DriverKind::Basalt,
    DriverKind::SqliteDefault,
    DriverKind::BasaltFull,
];

/// The whole catalogue, in report order.
pub fn registry() -> Vec<Workload> {
    let mut all = Vec::new();
    all.extend(oltp::workloads());
    all.extend(analytics::workloads());
    all.extend(retrieval::workloads());
    all.extend(fulltext::workloads());
    all.extend(hybrid::workloads());
    all.extend(tpcb::workloads());
    all.extend(driver_shapes::workloads());
    all.extend(micro::workloads());
    all.extend(micro_pipeline::workloads());
    all
}

/// The workload with `id`.
pub fn find(id: &str) -> Option<Workload> {
    registry().into_iter().find(|workload| workload.id == id)
}

/// Whether `id` is selected by the `--only` prefix `filter`. A prefix ending in a digit does
/// not run into further digits, so `W1` selects `W1.v1` but not `W10.v2`, while `W9`
/// selects `W9a.v1` and `E` selects every `E.*`.
pub fn matches_filter(id: &str, filter: &str) -> bool {
    id.strip_prefix(filter).is_some_and(|rest| {
        !(filter.ends_with(|c: char| c.is_ascii_digit())
            && rest.starts_with(|c: char| c.is_ascii_digit()))
    })
}

/// How many timed iterations a metric gets.
#[derive(Clone, Copy, Debug)]
pub enum Sampling {
    /// As many as fit the run's per-metric budget, within its minimum and maximum.
    Budget,
    /// Exactly one (fixed-duration runs such as TPC-B).
    Once,
    /// Budgeted, but at most this many even if the run's minimum is higher: iterations that
    /// each write gigabytes.
    AtMost(usize),
}

/// A metric's name and how to measure it.
#[derive(Clone, Debug)]
pub struct Metric {
    pub name: String,
    pub unit: &'static str,
    pub ordered: bool,
    pub sampling: Sampling,
}

impl Metric {
    /// A metric measured in `unit`s. Names carry the catalogue's sizes ("insert 1M users");
    /// `--quick` and `--scale` shrink the data, not the names, and the report says so.
    pub fn new(name: impl Into<String>, unit: &'static str) -> Metric {
        Metric {
            name: name.into(),
            unit,
            ordered: false,
            sampling: Sampling::Budget,
        }
    }

    /// The query has a total `ORDER BY`: row order is part of the answer.
    pub fn ordered(mut self) -> Metric {
        self.ordered = true;
        self
    }

    /// One timed iteration only.
    pub fn once(mut self) -> Metric {
        self.sampling = Sampling::Once;
        self
    }

    /// At most `iterations` timed iterations.
    pub fn at_most(mut self, iterations: usize) -> Metric {
        self.sampling = Sampling::AtMost(iterations.max(1));
        self
    }
}

/// What a workload runs in: the driver, the settings, the gate, and the reports so far.
pub struct Ctx<'a> {
    pub driver: DriverKind,
    pub settings: &'a Settings,
    pub workload: &'a Workload,
    dir: &'a Path,
    reference: Reference<'a>,
    answer_only: bool,
    /// Test hook: report a deliberately wrong answer, to prove the gate refuses it.
    wrong_answer: bool,
    pub reports: Vec<MetricReport>,
}

impl<'a> Ctx<'a> {
    pub fn new(
        driver: DriverKind,
        settings: &'a Settings,
        workload: &'a Workload,
        dir: &'a Path,
        reference: Reference<'a>,
        answer_only: bool,
        wrong_answer: bool,
    ) -> Ctx<'a> {
        Ctx {
            driver,
            settings,
            workload,
            dir,
            reference,
            answer_only,
            wrong_answer,
            reports: Vec::new(),
        }
    }

    /// A catalogue size scaled by the run's `scale`.
    pub fn size(&self, catalogue: usize) -> usize {
        scaled(catalogue, self.settings.scale)
    }

    pub fn seed(&self) -> u64 {
        self.settings.seed
    }

    /// A generator for set-up data: the same stream for every driver.
    pub fn rng(&self, label: &str) -> Rng {
        Rng::new(self.settings.seed, label)
    }

    /// The path of database file `name` in the worker's directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.db"))
    }

    fn options(&self) -> OpenOptions {
        OpenOptions {
            foreign_keys: self.workload.foreign_keys,
            sqlite_vec: self.workload.sqlite_vec,
            cache_bytes: self.workload.cache_bytes,
        }
    }

    /// What opens database file `name` with this driver, for workloads that time opening.
    pub fn opener(&self, name: &str) -> Opener {
        Opener {
            driver: self.driver,
            location: Location::File(self.path(name)),
            options: self.options(),
        }
    }

    /// Opens (creating) database file `name` with this driver.
    pub fn open(&self, name: &str) -> anyhow::Result<Box<dyn Db>> {
        self.opener(name).open()
    }

    /// A fresh in-memory database with this driver.
    pub fn open_memory(&self) -> anyhow::Result<Box<dyn Db>> {
        self.driver.open(&Location::Memory, &self.options())
    }

    /// Gates and times one metric (see the module comment). Errors inside `body` are
    /// recorded against the metric; the returned error is only for the harness itself.
    pub fn measure(
        &mut self,
        metric: Metric,
        mut body: impl FnMut(&mut Sample<'_>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut report = MetricReport {
            name: metric.name.clone(),
            unit: metric.unit.to_string(),
            status: Status::Ok,
            answer: None,
            sample_answers: Vec::new(),
            timings: Vec::new(),
            notes: BTreeMap::new(),
            rankings: Vec::new(),
        };
        let log = |message: &str| {
            eprintln!(
                "[{} {}] {}: {message}",
                self.workload.id, self.driver, metric.name
            );
        };
        let started = Instant::now();
        let digest = if metric.ordered {
            Digest::ordered()
        } else {
            Digest::unordered()
        };

        // 1. Warm-up: the answer.
        let mut warm_timings = Vec::new();
        let mut warm_notes = BTreeMap::new();
        let mut warmup = Sample::new(
            0,
            self.settings,
            digest.clone(),
            &mut warm_timings,
            &mut warm_notes,
        );
        if let Err(error) = body(&mut warmup) {
            report.status = classify(&error);
            log(&report.status.describe());
            self.reports.push(report);
            return Ok(());
        }
        report.rankings = std::mem::take(&mut warmup.rankings);
        let mut answer = warmup.digest.answer();
        if self.wrong_answer {
            answer.hash ^= 1;
        }
        report.answer = Some(answer);

        // 2. The gate.
        if let Err(refusal) = gate::admit(self.reference, &metric.name, answer) {
            report.status = refusal;
            log(&report.status.describe());
            self.reports.push(report);
            return Ok(());
        }
        if self.answer_only {
            report.status = Status::AnswerOnly;
            self.reports.push(report);
            return Ok(());
        }

        // 3. Timed iterations.
        let warm = started.elapsed().max(Duration::from_micros(1));
        let budget = Duration::from_secs_f64(self.settings.metric_budget_seconds);
        let (mut min, mut max) = (
            self.settings.min_samples.max(1),
            self.settings.max_samples.max(1),
        );
        match metric.sampling {
            Sampling::Once => (min, max) = (1, 1),
            Sampling::AtMost(limit) => (min, max) = (min.min(limit), max.min(limit)),
            Sampling::Budget => {}
        }
        let fitted = (budget.as_secs_f64() / warm.as_secs_f64()) as usize;
        let planned = fitted.clamp(min, max.max(min));
        let timed_start = Instant::now();
        for iteration in 1..=planned {
            let mut sample = Sample::new(
                iteration,
                self.settings,
                digest.clone(),
                &mut report.timings,
                &mut report.notes,
            );
            if let Err(error) = body(&mut sample) {
                report.status = match classify(&error) {
                    Status::Unsupported { message } | Status::Failed { message } => {
                        Status::Failed {
                            message: format!("timed iteration {iteration}: {message}"),
                        }
                    }
                    other => other,
                };
                break;
            }
            report.sample_answers.push(sample.digest.answer());
            if iteration >= min && timed_start.elapsed() > budget {
                break;
            }
        }
        log(&format!(
            "{} ({} timed iterations, {:.2} s)",
            report.status.describe(),
            report.sample_answers.len(),
            started.elapsed().as_secs_f64()
        ));
        self.reports.push(report);
        Ok(())
    }
}

/// Opens one database file with one driver and the workload's options.
#[derive(Clone, Debug)]
pub struct Opener {
    driver: DriverKind,
    location: Location,
    options: OpenOptions,
}

impl Opener {
    pub fn open(&self) -> anyhow::Result<Box<dyn Db>> {
        self.driver.open(&self.location, &self.options)
    }
}

/// How an error is reported: the engine saying it does not support the SQL, or a failure.
pub fn classify(error: &anyhow::Error) -> Status {
    let message = format!("{error:#}");
    if let Some(basalt) = error.downcast_ref::<basalt::Error>() {
        // 0A000 feature not supported, 42601 syntax, 42P01 missing relation (such as the
        // catalog tables other engines have), 42883 missing function.
        if matches!(basalt.code(), "0A000" | "42601" | "42P01" | "42883") {
            return Status::Unsupported { message };
        }
    }
    Status::Failed { message }
}

/// One iteration of a metric: collects timings and the answer.
pub struct Sample<'a> {
    iteration: usize,
    seed: u64,
    pub digest: Digest,
    timings: &'a mut Vec<Timing>,
    notes: &'a mut BTreeMap<String, f64>,
    /// See [`Sample::set_rankings`].
    rankings: Vec<Vec<i64>>,
}

impl<'a> Sample<'a> {
    fn new(
        iteration: usize,
        settings: &Settings,
        digest: Digest,
        timings: &'a mut Vec<Timing>,
        notes: &'a mut BTreeMap<String, f64>,
    ) -> Sample<'a> {
        Sample {
            iteration,
            seed: settings.seed,
            digest,
            timings,
            notes,
            rankings: Vec::new(),
        }
    }

    /// The warm-up iteration (number 0) computes the gated answer; timed ones are 1, 2, ...
    pub fn is_warmup(&self) -> bool {
        self.iteration == 0
    }

    /// A generator for this iteration's operations: the same for every driver, different
    /// for each iteration.
    pub fn rng(&self, label: &str) -> Rng {
        Rng::for_item(self.seed, label, self.iteration as u64)
    }

    /// Times `f`, which performs `ops` operations, counting its allocations.
    pub fn time<R>(
        &mut self,
        ops: u64,
        f: impl FnOnce(&mut Digest) -> anyhow::Result<R>,
    ) -> anyhow::Result<R> {
        self.time_counted(|digest| f(digest).map(|value| (ops, value)))
    }

    /// Times `f`, which returns how many operations it performed, counting its allocations.
    pub fn time_counted<R>(
        &mut self,
        f: impl FnOnce(&mut Digest) -> anyhow::Result<(u64, R)>,
    ) -> anyhow::Result<R> {
        let allocations = alloc_counter::allocations();
        alloc_counter::set_counting(true);
        let start = Instant::now();
        let result = f(&mut self.digest);
        let elapsed = start.elapsed();
        alloc_counter::set_counting(false);
        let allocs = alloc_counter::allocations() - allocations;
        let (ops, value) = result?;
        self.timings.push(Timing {
            ops,
            nanos: elapsed.as_nanos() as u64,
            allocs: Some(allocs),
        });
        Ok(value)
    }

    /// Times `total` operations in measurements of `batch` each; `op` gets the operation's
    /// index. Batches keep the clock's own cost negligible while giving a distribution.
    pub fn time_batches(
        &mut self,
        total: u64,
        batch: u64,
        mut op: impl FnMut(u64, &mut Digest) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut done = 0;
        while done < total {
            let count = batch.min(total - done);
            self.time(count, |digest| {
                for index in done..done + count {
                    op(index, digest)?;
                }
                Ok(())
            })?;
            done += count;
        }
        Ok(())
    }

    /// Records a measurement the workload timed itself (multi-threaded sections, where
    /// allocations are not counted).
    pub fn record(&mut self, ops: u64, elapsed: Duration) {
        self.timings.push(Timing {
            ops,
            nanos: elapsed.as_nanos() as u64,
            allocs: None,
        });
    }

    /// Adds `value` to the note `key` (summed over timed iterations).
    pub fn note(&mut self, key: &str, value: f64) {
        *self.notes.entry(key.to_string()).or_insert(0.0) += value;
    }

    /// Sets the note `key` to `value`, replacing what an earlier iteration set: for figures
    /// every iteration reproduces rather than adds to (a recall, a load time measured once).
    pub fn set_note(&mut self, key: &str, value: f64) {
        self.notes.insert(key.to_string(), value);
    }

    /// Records a ranked retrieval's results (per query, the ids returned, best first). The
    /// warm-up's are kept in the report, and the orchestrator notes their overlap with the
    /// reference driver's: for rankings that legitimately differ between engines (W12's
    /// fusion), where the gate cannot compare them.
    pub fn set_rankings(&mut self, rankings: Vec<Vec<i64>>) {
        self.rankings = rankings;
    }
}

/// Collects the first column of each row as an id (the retrieval workloads' answers).
pub struct Ids<'a>(pub &'a mut Vec<i64>);

impl RowSink for Ids<'_> {
    fn row(&mut self, row: &dyn RowRef) -> anyhow::Result<()> {
        match row.value(0)? {
            Val::Int(id) => {
                self.0.push(id);
                Ok(())
            }
            other => anyhow::bail!("expected a row id, got {other:?}"),
        }
    }
}

/// Reads the first row of a query as integers (check sums for invariants; NULL reads as 0).
pub fn integers(
    session: &mut dyn Session,
    sql: &str,
    params: &[Val<'_>],
) -> anyhow::Result<Vec<i64>> {
    struct FirstRow(Option<Vec<i64>>);
    impl RowSink for FirstRow {
        fn row(&mut self, row: &dyn RowRef) -> anyhow::Result<()> {
            if self.0.is_none() {
                let mut values = Vec::with_capacity(row.column_count());
                for column in 0..row.column_count() {
                    values.push(match row.value(column)? {
                        Val::Null => 0,
                        Val::Int(v) => v,
                        Val::Real(v) if v.fract() == 0.0 => v as i64,
                        other => anyhow::bail!("expected an integer, got {other:?}"),
                    });
                }
                self.0 = Some(values);
            }
            Ok(())
        }
    }
    let mut first = FirstRow(None);
    session.query(sql, params, &mut first)?;
    first
        .0
        .ok_or_else(|| anyhow::anyhow!("query returned no rows: {sql}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::panic, reason = "tests")]
    use super::*;

    #[test]
    fn filter_prefixes_respect_number_boundaries() {
        assert!(matches_filter("W1.v1", "W1"));
        assert!(!matches_filter("W10.v2", "W1"));
        assert!(matches_filter("W9a.v1", "W9"));
        assert!(matches_filter("E.simple.v1", "E"));
        assert!(matches_filter("E.simple.v1", "E.simple"));
        assert!(!matches_filter("F.core.v1", "E"));
    }

    #[test]
    fn engine_refusals_are_unsupported_and_other_errors_failures() {
        let db = basalt::Database::open_in_memory().expect("in-memory database");
        let conn = db.connect();
        let refused = |sql: &str| {
            let error = conn.execute_batch(sql).expect_err(sql);
            classify(&anyhow::Error::new(error))
        };
        // 0A000 (a feature Basalt lacks: user-defined types) and 42P01 (a catalog table
        // another engine has).
        for sql in [
            "CREATE TYPE mood AS ENUM ('sad')",
            "SELECT * FROM pg_no_such_catalog",
        ] {
            match refused(sql) {
                Status::Unsupported { message } => {
                    assert!(message.contains("SQLSTATE"), "{message}")
                }
                other => panic!("{sql}: {other:?}"),
            }
        }
        // A constraint violation is the engine working, so a failure of the workload.
        conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)")
            .expect("setup");
        assert!(matches!(
            refused("INSERT INTO t VALUES (1)"),
            Status::Failed { .. }
        ));
    }

    #[test]
    fn ids_are_unique_versioned_and_include_the_reference() {
        let all = registry();
        let mut ids: Vec<&str> = all.iter().map(|w| w.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), all.len());
        for workload in &all {
            assert!(workload.id.contains(".v"), "{} has no version", workload.id);
            assert!(workload.drivers.contains(&crate::driver::REFERENCE));
        }
    }
}
