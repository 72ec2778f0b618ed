//! Command-line arguments (`basalt --help`).

use std::path::PathBuf;

use clap::Parser;

use crate::render::Mode;

/// The Basalt shell: an interactive SQL prompt, or one-shot statements and scripts.
///
/// With no FILE, the database lives in memory and vanishes on exit. With SQL arguments, each
/// is run (statements or dot commands) and the shell exits; otherwise a script on standard
/// input is run, or, at a terminal, the interactive prompt starts.
#[derive(Debug, Parser)]
#[command(name = "basalt", version, after_help = AFTER_HELP)]
pub struct Args {
    /// The database file, created if missing (`:memory:` or nothing for an in-memory one)
    pub file: Option<PathBuf>,

    /// SQL statements or dot commands to run instead of reading input
    pub commands: Vec<String>,

    /// Output mode [default: box at a terminal, table otherwise]
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,

    /// Same as --mode csv
    #[arg(long, conflicts_with_all = ["mode", "json", "markdown"])]
    pub csv: bool,

    /// Same as --mode json
    #[arg(long, conflicts_with_all = ["mode", "markdown"])]
    pub json: bool,

    /// Same as --mode markdown
    #[arg(long, conflicts_with = "mode")]
    pub markdown: bool,

    /// Leave out the line of column names
    #[arg(long)]
    pub no_headers: bool,

    /// Text that stands for NULL in results
    #[arg(long, value_name = "TEXT")]
    pub nullvalue: Option<String>,

    /// Stop at the first error (the default for scripts and SQL arguments)
    #[arg(long)]
    pub bail: bool,

    /// Go on after errors, then exit with status 1 if there were any
    #[arg(long, conflicts_with = "bail")]
    pub keep_going: bool,

    /// Prompt for input even when standard input is not a terminal
    #[arg(short, long)]
    pub interactive: bool,
}

const AFTER_HELP: &str = "\
Examples:
  basalt demo.basalt                          interactive shell
  basalt demo.basalt \"SELECT count(*) FROM orders\"
  basalt --csv demo.basalt \"SELECT * FROM regions\" > regions.csv
  basalt new.basalt < dump.sql                run a script (stops at the first error)
  basalt check demo.basalt                    verify every tree, index and the free list
  basalt dump --postgres demo.basalt > pg.sql a psql script for PostgreSQL 15 (-o OUT,
                                              --pgvector, TABLE... for some tables)
  basalt import-sqlite app.sqlite app.basalt  copy a SQLite database into a new Basalt one
                                              (--on-error stop|skip-row|null)
  basalt serve demo.basalt                    serve it to psql and PostgreSQL drivers
                                              (--listen 127.0.0.1:5432 by default)
  basalt passwd users.txt alice               add a user for serve --password-file

Inside the shell, enter .help for the dot commands.";

impl Args {
    /// The output mode the flags ask for, if any.
    pub fn requested_mode(&self) -> Option<Mode> {
        if self.csv {
            Some(Mode::Csv)
        } else if self.json {
            Some(Mode::Json)
        } else if self.markdown {
            Some(Mode::Markdown)
        } else {
            self.mode
        }
    }
}
