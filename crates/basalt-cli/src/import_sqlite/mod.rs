//! Moving a SQLite database into Basalt: `basalt import-sqlite FILE.sqlite FILE.basalt` and
//! the shell's `.import-sqlite FILE` (into the open database).
//!
//! The SQLite file is opened read-only (`SQLITE_OPEN_READ_ONLY`) through rusqlite's bundled
//! SQLite, so it is never changed. The import is one Basalt transaction: tables (without
//! their foreign keys), then each table's rows, then the foreign keys (`ALTER TABLE ADD
//! FOREIGN KEY`, which checks every row), indexes, views and triggers, in SQLite's order —
//! triggers last, so they do not fire on the copied rows. If it stops (a value that does
//! not fit under `--on-error stop`, a table Basalt cannot create, a foreign key the data
//! breaks, Ctrl-C) the transaction is rolled back, and `basalt import-sqlite` removes a
//! target file it created, so nothing of a partial import is left. Indexes, views and
//! triggers Basalt refuses are reported with its error and the import goes on.
//!
//! `schema` reads SQLite's schema and writes the DDL (`fts` turns FTS5 virtual tables into
//! a table with a full-text index), `data` copies rows and converts values, `report` collects what did not load as it was and prints the summary.

mod data;
mod fts;
mod report;
mod schema;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use basalt::Connection;
use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use rusqlite::OpenFlags;

use self::data::CopyError;
pub use self::report::OnError;
use self::report::Report;
use self::schema::{Parts, sqlite_quote};

/// Copies a SQLite database into a Basalt database: tables, keys, indexes, views, triggers
/// and rows. The SQLite file is only read.
#[derive(Debug, Parser)]
#[command(name = "basalt import-sqlite")]
pub struct ImportArgs {
    /// The SQLite database to read (opened read-only)
    pub source: PathBuf,

    /// The Basalt database to write, created if missing
    pub target: PathBuf,

    /// What to do with a value that does not fit its column: stop (nothing is imported),
    /// skip-row, or null (store NULL instead); every problem is listed either way
    #[arg(long, value_enum, default_value = "stop")]
    pub on_error: OnError,
}

/// Whether the command line asks for `basalt import-sqlite ...`.
pub fn requested(arguments: &[String]) -> bool {
    arguments.get(1).is_some_and(|word| word == "import-sqlite")
}

/// Runs `basalt import-sqlite`: 0 when everything was imported (problems skipped or nulled
/// under `--on-error skip-row|null` included: they are listed), 1 when the import stopped and
/// nothing was kept (also when the source is not a SQLite database), 2 when the source is
/// missing or the target cannot be opened.
pub fn run(arguments: &[String]) -> ExitCode {
    let args = ImportArgs::parse_from(arguments.iter().skip(1));
    if !args.source.is_file() {
        eprintln!(
            "basalt import-sqlite: {}: no such file",
            args.source.display()
        );
        return ExitCode::from(2);
    }
    let existed = args.target.exists();
    let db = match basalt::Database::open(&args.target) {
        Ok(db) => db,
        Err(error) => {
            eprintln!("basalt import-sqlite: {}: {error}", args.target.display());
            return ExitCode::from(2);
        }
    };
    let conn = db.connect();
    let outcome = import(&conn, &args.source, args.on_error);
    drop(conn);
    drop(db);
    match outcome {
        Ok(report) => {
            for line in report.lines() {
                eprintln!("{line}");
            }
            ExitCode::SUCCESS
        }
        Err(failure) => {
            for line in failure.lines() {
                eprintln!("{line}");
            }
            if !existed {
                remove_database(&args.target);
            }
            ExitCode::FAILURE
        }
    }
}

/// Removes a database file this command created, and its log.
fn remove_database(path: &Path) {
    let mut log = path.as_os_str().to_owned();
    log.push("-wal");
    for file in [path.to_path_buf(), PathBuf::from(log)] {
        if let Err(error) = std::fs::remove_file(&file)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            eprintln!(
                "basalt import-sqlite: could not remove {}: {error}",
                file.display()
            );
        }
    }
}

/// An import that did not finish: why, and what was found before it stopped.
pub struct Failure {
    pub message: String,
    /// Boxed: a Report is large and this travels in a `Result`'s error.
    pub report: Box<Report>,
}

impl Failure {
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.report.problems.is_empty() {
            lines.push("Problems found before the import stopped:".to_string());
            for problem in &self.report.problems {
                lines.push(format!("  {problem}"));
            }
        }
        lines.push(format!(
            "import-sqlite: {}; nothing was imported",
            self.message
        ));
        lines
    }
}

/// Imports the SQLite database at `source` into `conn`'s database, in one transaction.
pub fn import(conn: &Connection, source: &Path, on_error: OnError) -> Result<Report, Failure> {
    let fail = |message: String, report: Report| Failure {
        message,
        report: Box::new(report),
    };
    if conn.in_transaction() {
        return Err(fail(
            "cannot import inside a transaction (COMMIT or ROLLBACK first)".into(),
            Report::default(),
        ));
    }
    let sqlite = rusqlite::Connection::open_with_flags(
        source,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|error| fail(format!("{}: {error}", source.display()), Report::default()))?;
    let schema = schema::read(&sqlite).map_err(|error| {
        fail(
            format!("{}: cannot read its schema: {error}", source.display()),
            Report::default(),
        )
    })?;
    let mut total = 0u64;
    for table in &schema.tables {
        let count: i64 = sqlite
            .query_row(
                &format!("SELECT count(*) FROM {}", sqlite_quote(&table.source)),
                [],
                |row| row.get(0),
            )
            .map_err(|error| {
                fail(
                    format!("table {}: {error}", table.source),
                    Report::default(),
                )
            })?;
        total += count.max(0) as u64;
    }
    let progress = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(total);
        if let Ok(style) = ProgressStyle::with_template(
            "{msg} [{bar:40}] {human_pos}/{human_len} rows ({eta} left)",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar
    } else {
        ProgressBar::hidden()
    };

    let mut report = Report {
        notes: schema.notes.clone(),
        ..Report::default()
    };
    if let Err(error) = conn.execute("BEGIN", ()) {
        return Err(fail(error.to_string(), report));
    }
    let result = load(conn, &sqlite, &schema, on_error, &progress, &mut report);
    progress.finish_and_clear();
    match result {
        Ok(()) => match conn.execute("COMMIT", ()) {
            Ok(_) => Ok(report),
            Err(error) => Err(fail(format!("COMMIT failed: {error}"), report)),
        },
        Err(message) => {
            // Ignored: if the rollback itself fails the transaction is gone already.
            let _ = conn.execute("ROLLBACK", ());
            Err(fail(message, report))
        }
    }
}

/// Everything the transaction does; an Err is the reason to roll it back.
fn load(
    conn: &Connection,
    sqlite: &rusqlite::Connection,
    schema: &schema::Schema,
    on_error: OnError,
    progress: &ProgressBar,
    report: &mut Report,
) -> Result<(), String> {
    for table in &schema.tables {
        create_table(conn, table, report)?;
        report.tables += 1;
    }
    for table in &schema.tables {
        progress.set_message(table.name.clone());
        match data::copy_table(sqlite, conn, table, on_error, progress, report) {
            Ok(()) => {}
            Err(CopyError::Stop) => {
                return Err(format!(
                    "a value did not fit its column in table {} (--on-error skip-row or null \
                     imports the rest)",
                    table.name
                ));
            }
            Err(CopyError::Sqlite(error)) => {
                return Err(format!("reading table {}: {error}", table.source));
            }
            Err(CopyError::Basalt(error)) => {
                return Err(format!("writing table {}: {error}", table.name));
            }
        }
    }
    for table in &schema.tables {
        for key in &table.foreign_keys {
            let sql = schema::add_foreign_key(table, key);
            if let Err(error) = conn.execute(&sql, ()) {
                let refused = format!("foreign key of table {} ({sql}): {error}", table.name);
                if on_error == OnError::Stop {
                    return Err(refused);
                }
                report.refused.push(refused);
            }
        }
    }
    for object in schema
        .indexes
        .iter()
        .chain(&schema.views)
        .chain(&schema.triggers)
    {
        match conn.execute_batch(&object.sql) {
            Ok(()) => report
                .created
                .push(format!("{} {}", object.kind, object.name)),
            Err(error) if error.kind() == basalt::ErrorKind::Interrupted => {
                return Err(error.to_string());
            }
            Err(error) => report.refused.push(format!(
                "{} {} (on {}): {error}\n    {}",
                object.kind,
                object.name,
                object.table,
                object.sql.trim()
            )),
        }
    }
    Ok(())
}

/// Creates a table; when Basalt refuses its CHECK constraints or DEFAULTs, tries without
/// them and reports what was left out.
fn create_table(
    conn: &Connection,
    table: &schema::Table,
    report: &mut Report,
) -> Result<(), String> {
    let attempts = [
        Parts {
            checks: true,
            defaults: true,
        },
        Parts {
            checks: false,
            defaults: true,
        },
        Parts {
            checks: false,
            defaults: false,
        },
    ];
    let mut first_error = None;
    for parts in attempts {
        let sql = schema::create_table(table, parts);
        match conn.execute(&sql, ()) {
            Ok(_) => {
                if let Some(error) = first_error {
                    let left_out = if parts.defaults {
                        "CHECK constraints"
                    } else {
                        "CHECK constraints and DEFAULTs"
                    };
                    report
                        .refused
                        .push(format!("table {}: its {left_out} ({error})", table.name));
                }
                return Ok(());
            }
            Err(error) => {
                if first_error.is_none() {
                    first_error = Some(error.to_string());
                }
            }
        }
    }
    Err(format!(
        "cannot create table {}: {}",
        table.name,
        first_error.unwrap_or_default()
    ))
}

/// `.import-sqlite FILE [--on-error stop|skip-row|null]` in the shell: imports into the open
/// database; the summary goes to standard error, as `.import`'s does.
pub fn shell(
    session: &mut crate::session::Session,
    args: &[String],
) -> Result<(), crate::session::Failure> {
    use crate::session::Failure as ShellFailure;
    const USAGE: &str = "usage: .import-sqlite FILE [--on-error stop|skip-row|null]";
    let mut file = None;
    let mut on_error = OnError::Stop;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let value = if word == "--on-error" {
            words.next().map(String::as_str)
        } else if let Some(value) = word.strip_prefix("--on-error=") {
            Some(value)
        } else if word.starts_with("--") || file.is_some() {
            return Err(ShellFailure::Message(USAGE.into()));
        } else {
            file = Some(word.as_str());
            continue;
        };
        on_error = value
            .and_then(OnError::parse)
            .ok_or_else(|| ShellFailure::Message(USAGE.into()))?;
    }
    let Some(file) = file else {
        return Err(ShellFailure::Message(USAGE.into()));
    };
    if !Path::new(file).is_file() {
        return Err(ShellFailure::Message(format!("{file}: no such file")));
    }
    let _running = session.ctrl_c.running();
    match import(&session.conn, Path::new(file), on_error) {
        Ok(report) => {
            for line in report.lines() {
                eprintln!("{line}");
            }
            Ok(())
        }
        Err(failure) => {
            let mut lines = failure.lines();
            let last = lines.pop().unwrap_or_default();
            for line in lines {
                eprintln!("{line}");
            }
            Err(ShellFailure::Message(last))
        }
    }
}
