//! `basalt-bench`: the benchmark suite. Runs the workload catalogue (../shared/BENCHMARKS.md)
//! on Basalt and its comparators, one worker process per driver × workload, and writes the
//! results as JSON, Markdown and an SVG chart. See docs/benchmarks.md for the method.
//!
//! Layout: `cli` (arguments) → `run` (the orchestrator) → `worker` (one process) →
//! `workloads` (the catalogue, gate and sampling in `workloads::Ctx::measure`) over `driver`
//! (one trait, an implementation per engine); `data` and `digest` make inputs and answers
//! deterministic; `gate` compares answers; `report` and `compare` read the results.

mod alloc_counter;
mod cli;
mod compare;
mod data;
mod digest;
mod driver;
mod gate;
mod model;
mod report;
mod run;
mod worker;
mod workloads;

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser as _;

use crate::cli::{Cli, Command, WorkerArgs};
use crate::driver::DriverKind;
use crate::workloads::GROUPS;

/// Counts allocations so workers can report allocations per operation.
#[global_allocator]
static ALLOCATOR: alloc_counter::CountingAllocator = alloc_counter::CountingAllocator;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        None => run::run(&cli.run).map(|_| ()),
        Some(Command::Compare { old, new }) => compare::compare(&old, &new),
        Some(Command::List) => {
            list();
            Ok(())
        }
        Some(Command::Worker(args)) => worker_main(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("basalt-bench: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn worker_main(args: WorkerArgs) -> anyhow::Result<()> {
    let job = worker::WorkerJob {
        driver: DriverKind::parse(&args.driver)
            .with_context(|| format!("unknown driver {}", args.driver))?,
        workload: args.workload,
        settings: serde_json::from_str(&args.settings).context("parsing --settings")?,
        dir: args.dir,
        out: args.out,
        expect: args.expect,
        answer_only: args.answer_only,
        wrong_answer: args.wrong_answer,
    };
    worker::run(&job)
}

/// Prints the catalogue by group.
fn list() {
    let registry = workloads::registry();
    for group in GROUPS {
        println!("{} — {}", group.letter(), group.title());
        if let Some(pending) = group.pending() {
            println!("    (no workloads yet: {pending})");
        }
        for workload in registry.iter().filter(|w| w.group == group) {
            let drivers: Vec<&str> = workload.drivers.iter().map(|d| d.name()).collect();
            println!(
                "    {:<16} {} [{}]",
                workload.id,
                workload.title,
                drivers.join(", ")
            );
        }
    }
}
