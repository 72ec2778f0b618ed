//! The three databases a case runs on — Basalt, SQLite (the oracle) and Basalt's
//! index-free twin — and running one SQL text on each, as a uniform [`Outcome`].
//!
//! Basalt runs every statement through `prepare_cached`, so a repeated query reuses its
//! cached plan (which must follow schema and statistics changes).
//!
//! SQLite runs with `PRAGMA case_sensitive_like = ON` so its LIKE compares letters by byte
//! as PostgreSQL and Basalt do. Basalt's booleans are reported as the integers 0 and 1,
//! which is how SQLite represents truth values. A panic inside Basalt is caught and
//! reported as an outcome of its own (library code must not panic on any input).

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use basalt::{Connection, Database, ValueRef};
use basalt_slt::engine::Cell;
use rusqlite::types::ValueRef as SqliteValue;

use crate::watchdog::Watchdog;

/// How long one statement may run before it is interrupted and its case abandoned.
pub const STATEMENT_TIME_LIMIT: Duration = Duration::from_secs(5);

/// What running one statement produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A query's rows, in the order the engine returned them.
    Rows(Vec<Vec<Cell>>),
    /// A statement without result columns and the number of rows it changed.
    Changed(usize),
    /// An error: its SQLSTATE (Basalt only) and message.
    Error {
        code: Option<String>,
        message: String,
    },
    /// Basalt panicked.
    Panic(String),
    /// The statement ran past [`STATEMENT_TIME_LIMIT`] and was interrupted.
    TimedOut,
}

impl Outcome {
    /// Whether the statement failed (an error or a panic).
    pub fn failed(&self) -> bool {
        matches!(self, Outcome::Error { .. } | Outcome::Panic(_))
    }
}

thread_local! {
    /// Where the last panic on this thread happened, recorded by [`quiet_panics`]' hook.
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replaces the panic hook with one that only records where a panic happened, so panics
/// caught in Basalt do not flood the output; the location is reported in the [`Outcome`].
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|information| {
        let location = information
            .location()
            .map(|location| format!("{}:{}", location.file(), location.line()));
        PANIC_LOCATION.with(|slot| *slot.borrow_mut() = location);
    }));
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let message = payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_owned());
    match PANIC_LOCATION.with(|slot| slot.borrow_mut().take()) {
        Some(location) => format!("{message} at {location}"),
        None => message,
    }
}

/// A fresh in-memory Basalt database and a connection to it.
#[derive(Debug)]
pub struct BasaltDatabase {
    // Declared first so it is dropped before the database.
    connection: Connection,
    _database: Database,
}

impl BasaltDatabase {
    /// Opens an empty in-memory database.
    pub fn open() -> Result<Self, String> {
        let database = Database::open_in_memory().map_err(|error| error.to_string())?;
        Ok(BasaltDatabase {
            connection: database.connect(),
            _database: database,
        })
    }

    /// Runs one statement, catching panics.
    pub fn run(&self, sql: &str) -> Outcome {
        match catch_unwind(AssertUnwindSafe(|| self.run_unguarded(sql))) {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(error)) => Outcome::Error {
                code: Some(error.code().to_owned()),
                message: error.message().to_owned(),
            },
            Err(payload) => Outcome::Panic(panic_message(payload.as_ref())),
        }
    }

    fn run_unguarded(&self, sql: &str) -> basalt::Result<Outcome> {
        // The statement cache is how applications run repeated statements, and the stream
        // repeats queries after the data, indexes and statistics have changed.
        let mut statement = self.connection.prepare_cached(sql)?;
        let width = statement.column_count();
        if width == 0 {
            return Ok(Outcome::Changed(statement.execute(())?));
        }
        let mut rows = statement.query(())?;
        let mut collected = Vec::new();
        while let Some(row) = rows.next()? {
            let cells = (0..width)
                .map(|position| row.get_ref(position).map(basalt_cell))
                .collect::<basalt::Result<Vec<Cell>>>()?;
            collected.push(cells);
        }
        Ok(Outcome::Rows(collected))
    }
}

fn basalt_cell(value: ValueRef<'_>) -> Cell {
    match value {
        ValueRef::Null => Cell::Null,
        ValueRef::Boolean(truth) => Cell::Integer(i64::from(truth)),
        ValueRef::Integer(integer) => Cell::Integer(integer),
        ValueRef::Real(real) => Cell::Real(real),
        // NUMERIC (decimal literals' arithmetic) meets SQLite's doubles as a number.
        ValueRef::Numeric(number) => Cell::Real(number.to_f64()),
        ValueRef::Text(text) => Cell::Text(text.to_owned()),
        ValueRef::Blob(bytes) => Cell::Blob(bytes.to_vec()),
        other => Cell::Text(other.to_owned().to_string()),
    }
}

/// A fresh in-memory SQLite database configured to match Basalt's LIKE.
#[derive(Debug)]
pub struct SqliteDatabase {
    connection: rusqlite::Connection,
}

impl SqliteDatabase {
    /// Opens an empty in-memory database.
    pub fn open() -> Result<Self, String> {
        let connection =
            rusqlite::Connection::open_in_memory().map_err(|error| error.to_string())?;
        connection
            .execute_batch("PRAGMA case_sensitive_like = ON")
            .map_err(|error| error.to_string())?;
        Ok(SqliteDatabase { connection })
    }

    /// Runs one statement.
    pub fn run(&self, sql: &str) -> Outcome {
        self.run_unguarded(sql)
            .unwrap_or_else(|error| Outcome::Error {
                code: None,
                message: error.to_string(),
            })
    }

    fn run_unguarded(&self, sql: &str) -> rusqlite::Result<Outcome> {
        let mut statement = self.connection.prepare(sql)?;
        let width = statement.column_count();
        if width == 0 {
            return Ok(Outcome::Changed(statement.execute([])?));
        }
        let mut rows = statement.query([])?;
        let mut collected = Vec::new();
        while let Some(row) = rows.next()? {
            let cells = (0..width)
                .map(|position| row.get_ref(position).map(sqlite_cell))
                .collect::<rusqlite::Result<Vec<Cell>>>()?;
            collected.push(cells);
        }
        Ok(Outcome::Rows(collected))
    }
}

fn sqlite_cell(value: SqliteValue<'_>) -> Cell {
    match value {
        SqliteValue::Null => Cell::Null,
        SqliteValue::Integer(integer) => Cell::Integer(integer),
        SqliteValue::Real(real) => Cell::Real(real),
        SqliteValue::Text(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => Cell::Text(text.to_owned()),
            Err(_) => Cell::Blob(bytes.to_vec()),
        },
        SqliteValue::Blob(bytes) => Cell::Blob(bytes.to_vec()),
    }
}

/// The three databases of one case.
#[derive(Debug)]
pub struct Engines {
    basalt: BasaltDatabase,
    sqlite: SqliteDatabase,
    /// Basalt with the same tables and rows but no primary keys, UNIQUE constraints or
    /// indexes: the optimizer can use no index seeks, index joins or index order.
    index_free: BasaltDatabase,
    watchdog: Watchdog,
}

/// How the Basalt databases are configured, and which checks run after statements.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineSettings {
    /// `SET work_mem = '...'` on both Basalt connections: a small budget (the minimum is
    /// 64kB) makes sorts, grouping, DISTINCT, set operations and hash joins spill to
    /// temporary files, so the spilling code paths are compared too.
    pub work_mem: Option<String>,
    /// After statements that change rows (and rollbacks), compare the changed tables whole
    /// with SQLite's and run Basalt's `PRAGMA integrity_check` (on with `--large`, whose
    /// bulk modifications change thousands of rows a statement); see `check_every`.
    pub check_tables: bool,
    /// With `check_tables`: check the changed tables after every statement that changed
    /// 100 rows or more or rolled back, after every `check_every`-th other change, and at
    /// the end of the case (1: after every change).
    pub check_every: usize,
}

/// Which database of [`Engines`] to run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Basalt,
    Sqlite,
    IndexFree,
}

impl Engines {
    /// Three empty databases, the Basalt ones configured by `settings`.
    pub fn open(settings: &EngineSettings) -> Result<Self, String> {
        let engines = Engines {
            basalt: BasaltDatabase::open()?,
            sqlite: SqliteDatabase::open()?,
            index_free: BasaltDatabase::open()?,
            watchdog: Watchdog::start(),
        };
        if let Some(work_mem) = &settings.work_mem {
            let sql = format!("SET work_mem = '{}'", work_mem.replace('\'', "''"));
            for database in [&engines.basalt, &engines.index_free] {
                if let Outcome::Error { message, .. } = database.run(&sql) {
                    return Err(format!("{sql}: {message}"));
                }
            }
        }
        Ok(engines)
    }

    /// Runs `sql` on `target`, interrupting it after [`STATEMENT_TIME_LIMIT`].
    pub fn run(&self, target: Target, sql: &str) -> Outcome {
        let (outcome, interrupted) = match target {
            Target::Sqlite => {
                let handle = self.sqlite.connection.get_interrupt_handle();
                self.watchdog.guard(
                    STATEMENT_TIME_LIMIT,
                    move || handle.interrupt(),
                    || self.sqlite.run(sql),
                )
            }
            Target::Basalt | Target::IndexFree => {
                let database = if target == Target::Basalt {
                    &self.basalt
                } else {
                    &self.index_free
                };
                let handle = database.connection.interrupt_handle();
                self.watchdog.guard(
                    STATEMENT_TIME_LIMIT,
                    move || handle.interrupt(),
                    || database.run(sql),
                )
            }
        };
        if interrupted {
            Outcome::TimedOut
        } else {
            outcome
        }
    }
}
