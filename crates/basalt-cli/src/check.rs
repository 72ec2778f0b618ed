//! `basalt check FILE`: runs `PRAGMA integrity_check` on a database file and prints its
//! result, one problem a line (`ok` when there is none).
//!
//! The exit status says what it found, for scripts: 0 when the file is sound, 1 when it has
//! problems, 2 when it could not be checked at all (no such file, not a Basalt database, a
//! header or log too damaged to open). A missing file is an error rather than a new empty
//! database, which is what opening it in the shell would make.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Verifies a database file: every tree and its ordering, every index against its table,
/// and the free list.
#[derive(Debug, Parser)]
#[command(name = "basalt check")]
pub struct CheckArgs {
    /// The database file to check
    pub file: PathBuf,

    /// Report at most this many problems
    #[arg(long, default_value_t = 100)]
    pub max_problems: u32,
}

/// Whether the command line asks for `basalt check ...`. A database file that is really
/// named `check` is reached as `./check`.
pub fn requested(arguments: &[String]) -> bool {
    arguments.get(1).is_some_and(|word| word == "check")
}

/// Runs `basalt check` with the arguments after the word `check`.
pub fn run(arguments: &[String]) -> ExitCode {
    let args = CheckArgs::parse_from(arguments.iter().skip(1));
    if !args.file.is_file() {
        eprintln!("basalt check: {}: no such file", args.file.display());
        return ExitCode::from(2);
    }
    let db = match basalt::Database::open(&args.file) {
        Ok(db) => db,
        Err(error) => {
            eprintln!("basalt check: {}: {error}", args.file.display());
            return ExitCode::from(2);
        }
    };
    let conn = db.connect();
    match problems(&conn, args.max_problems) {
        Ok(lines) => {
            for line in &lines {
                println!("{line}");
            }
            if lines.len() == 1 && lines[0] == "ok" {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("basalt check: {}: {error}", args.file.display());
            ExitCode::from(2)
        }
    }
}

fn problems(conn: &basalt::Connection, max: u32) -> basalt::Result<Vec<String>> {
    let mut statement = conn.prepare(&format!("PRAGMA integrity_check({max})"))?;
    let mut rows = statement.query(())?;
    let mut lines = Vec::new();
    while let Some(row) = rows.next()? {
        lines.push(row.get::<String>(0)?);
    }
    Ok(lines)
}
