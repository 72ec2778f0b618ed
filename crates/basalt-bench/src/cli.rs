//! The command line: `basalt-bench [--quick] [--only ...] [--drivers ...] [--out DIR]` runs
//! the suite; `compare A.json B.json` diffs two runs; `list` prints the catalogue; the hidden
//! `worker` subcommand is how the orchestrator runs one driver × workload per process.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// The Basalt benchmark suite: every workload of the catalogue on Basalt and SQLite (and
/// DuckDB when built with `--features duckdb`), each driver × workload in its own process,
/// answers gated against SQLite before anything is timed.
#[derive(Debug, Parser)]
#[command(name = "basalt-bench", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the change per workload between two result files (`results.json`).
    Compare {
        /// The earlier run.
        old: PathBuf,
        /// The later run.
        new: PathBuf,
    },
    /// List the workload catalogue.
    List,
    /// Run one driver × workload (spawned by the suite itself).
    #[command(hide = true)]
    Worker(WorkerArgs),
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The reduced run (5% data sizes, few samples, TPC-B for 10 s, tuned-SQLite pairing
    /// only unless --drivers says otherwise): under three minutes.
    #[arg(long)]
    pub quick: bool,
    /// Only workloads whose id starts with one of these prefixes (`W1,W7,E.simple`).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Drivers to run: basalt, basalt-full, sqlite, sqlite-default, duckdb (default: all
    /// built in; --quick leaves out basalt-full and sqlite-default). SQLite always computes
    /// the reference answers, even when not listed.
    #[arg(long, value_delimiter = ',')]
    pub drivers: Vec<String>,
    /// Output directory (default: bench/results/<date>-<quick|full>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Directory for the temporary databases (default: the system temp directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Never draw the progress bar; print a line per finished run instead.
    #[arg(long)]
    pub no_progress: bool,
    /// Tiny sizes and one sample per metric: the suite's own tests.
    #[arg(long, hide = true)]
    pub smoke: bool,
    /// Override the data-size multiplier.
    #[arg(long, hide = true)]
    pub scale: Option<f64>,
    /// Test hook: this driver reports wrong answers, so the gate must refuse to time it.
    #[arg(long, hide = true)]
    pub inject_wrong_answer: Option<String>,
}

#[derive(Debug, Args)]
pub struct WorkerArgs {
    #[arg(long)]
    pub driver: String,
    #[arg(long)]
    pub workload: String,
    /// The run's settings as JSON.
    #[arg(long)]
    pub settings: String,
    #[arg(long)]
    pub dir: PathBuf,
    #[arg(long)]
    pub out: PathBuf,
    /// The reference driver's answers (JSON map from metric to answer).
    #[arg(long)]
    pub expect: Option<PathBuf>,
    #[arg(long)]
    pub answer_only: bool,
    #[arg(long)]
    pub wrong_answer: bool,
}
