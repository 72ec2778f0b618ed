//! The drivers: one small trait that every engine implements, so each workload is written
//! once and runs unchanged on Basalt, SQLite (two profiles) and DuckDB.
//!
//! The trait is deliberately the shape of an application's data-access code: open a database
//! ([`Db`]), take a connection per thread ([`Session`]), run SQL through the engine's own
//! statement cache (`prepare_cached` every time, as rusqlite's documentation recommends) with
//! bound parameters, and stream rows into a [`RowSink`] that reads every column. Nothing is
//! cached on the harness side: a statement is looked up in the engine's cache on each call and
//! result sets are never kept. Parameters and values travel as [`Val`], a borrowed value that
//! costs no allocation to pass.
//!
//! Durability is part of a driver's identity: `basalt` runs `synchronous = NORMAL` (paired
//! with tuned SQLite, WAL + NORMAL) and `basalt-full` runs `FULL` (paired with
//! `sqlite-default`, rollback journal + FULL).

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub mod basalt;
#[cfg(feature = "duckdb")]
pub mod duckdb;
pub mod sqlite;

/// A borrowed SQL value: a parameter or one column of a result row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
    /// A vector of f32s: Basalt binds it as a `VECTOR` value; SQLite and DuckDB, which have
    /// no vector type, get the blob of its little-endian f32s ([`vector_bytes`]), the form
    /// sqlite-vec takes.
    Vector(&'a [f32]),
}

/// A vector as the blob of its elements in little-endian order: sqlite-vec's compact
/// `float[N]` form.
pub fn vector_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One result row, readable column by column without copying.
pub trait RowRef {
    fn column_count(&self) -> usize;
    fn value(&self, column: usize) -> anyhow::Result<Val<'_>>;
}

/// Where query rows go: the correctness digest, or a workload's own reader.
pub trait RowSink {
    fn row(&mut self, row: &dyn RowRef) -> anyhow::Result<()>;
}

/// An open database, shared by the threads of a workload.
pub trait Db: Send + Sync {
    /// A new connection (each thread takes its own).
    fn connect(&self) -> anyhow::Result<Box<dyn Session>>;

    /// The database file's size in bytes once everything committed is in it (Basalt
    /// checkpoints its log first), for a workload that reports what an index costs on disk;
    /// `None` for an in-memory database or a driver that does not say.
    fn file_bytes(&self) -> anyhow::Result<Option<u64>> {
        Ok(None)
    }
}

/// A connection. Every call goes through the engine's prepared-statement cache.
pub trait Session: Send {
    /// Runs a statement that returns no rows; returns the rows changed.
    fn execute(&mut self, sql: &str, params: &[Val<'_>]) -> anyhow::Result<u64>;

    /// Runs a query and hands every row to `sink`.
    fn query(
        &mut self,
        sql: &str,
        params: &[Val<'_>],
        sink: &mut dyn RowSink,
    ) -> anyhow::Result<()>;

    /// Runs several statements without parameters (schema set-up).
    fn execute_batch(&mut self, sql: &str) -> anyhow::Result<()>;

    /// Whether `error` means "another writer got there first; retry the transaction" (SQLite's
    /// BUSY, Basalt's 40001 / busy timeout).
    fn is_retryable(&self, error: &anyhow::Error) -> bool;
}

/// The engines and profiles the suite can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DriverKind {
    /// Basalt, embedded API, `synchronous = NORMAL`.
    Basalt,
    /// Basalt with `synchronous = FULL`, the counterpart of `sqlite-default`.
    BasaltFull,
    /// SQLite (rusqlite, bundled), tuned: WAL, NORMAL, in-memory temp store, 64 MiB cache.
    Sqlite,
    /// SQLite with a rollback journal and `synchronous = FULL`.
    SqliteDefault,
    /// DuckDB at its defaults (only with the `duckdb` cargo feature).
    Duckdb,
}

/// Every driver, in report order.
pub const ALL_DRIVERS: [DriverKind; 5] = [
    DriverKind::Basalt,
    DriverKind::Sqlite,
    DriverKind::BasaltFull,
    DriverKind::SqliteDefault,
    DriverKind::Duckdb,
];

/// The driver whose answers are the reference for the correctness gate.
pub const REFERENCE: DriverKind = DriverKind::Sqlite;

/// Basalt's page cache: the same 64 MiB tuned SQLite gets from `cache_size = -65536` (a
/// workload may set another size, for both engines alike: [`OpenOptions::cache_bytes`]).
pub const CACHE_BYTES: usize = 64 << 20;

/// How long a writer waits for another before its statement fails as busy (both engines).
pub const BUSY_TIMEOUT_MS: u64 = 5_000;

/// Prepared statements each connection caches (both engines).
pub const STATEMENT_CACHE: usize = 64;

impl DriverKind {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            DriverKind::Basalt => "basalt",
            DriverKind::BasaltFull => "basalt-full",
            DriverKind::Sqlite => "sqlite",
            DriverKind::SqliteDefault => "sqlite-default",
            DriverKind::Duckdb => "duckdb",
        }
    }

    /// Parses a driver name.
    pub fn parse(name: &str) -> Option<DriverKind> {
        ALL_DRIVERS.into_iter().find(|kind| kind.name() == name)
    }

    /// What the driver does, for the report's methodology section.
    pub fn description(self) -> &'static str {
        match self {
            DriverKind::Basalt => {
                "Basalt embedded API; prepare_cached + bound parameters; synchronous=NORMAL; 64 MiB page cache unless a metric's notes give another (`page cache MiB`)"
            }
            DriverKind::BasaltFull => {
                "Basalt embedded API; prepare_cached + bound parameters; synchronous=FULL; 64 MiB page cache unless a metric's notes give another (`page cache MiB`)"
            }
            DriverKind::Sqlite => {
                "rusqlite (bundled SQLite); prepare_cached; journal_mode=WAL, synchronous=NORMAL, temp_store=MEMORY, cache_size=-65536 unless a metric's notes give another page cache (`page cache MiB`)"
            }
            DriverKind::SqliteDefault => {
                "rusqlite (bundled SQLite); prepare_cached; journal_mode=DELETE, synchronous=FULL, temp_store=MEMORY, cache_size=-65536 unless a metric's notes give another page cache (`page cache MiB`)"
            }
            DriverKind::Duckdb => {
                "duckdb crate (bundled DuckDB) at its defaults; prepare_cached + bound parameters"
            }
        }
    }

    /// Whether this binary was built with the driver.
    pub fn compiled(self) -> bool {
        self != DriverKind::Duckdb || cfg!(feature = "duckdb")
    }

    /// Whether this is one of Basalt's profiles (the subject of every ratio).
    pub fn is_basalt(self) -> bool {
        matches!(self, DriverKind::Basalt | DriverKind::BasaltFull)
    }

    /// The comparator a Basalt profile is measured against, with matching durability.
    pub fn comparators(self) -> &'static [DriverKind] {
        match self {
            DriverKind::Basalt => &[DriverKind::Sqlite, DriverKind::Duckdb],
            DriverKind::BasaltFull => &[DriverKind::SqliteDefault],
            _ => &[],
        }
    }

    /// Opens (or creates) a database for this driver.
    pub fn open(self, location: &Location, options: &OpenOptions) -> anyhow::Result<Box<dyn Db>> {
        match self {
            DriverKind::Basalt => basalt::open(location, basalt::Durability::Normal, options),
            DriverKind::BasaltFull => basalt::open(location, basalt::Durability::Full, options),
            DriverKind::Sqlite => sqlite::open(location, sqlite::Profile::Tuned, options),
            DriverKind::SqliteDefault => sqlite::open(location, sqlite::Profile::Default, options),
            DriverKind::Duckdb => open_duckdb(location),
        }
    }
}

#[cfg(feature = "duckdb")]
fn open_duckdb(location: &Location) -> anyhow::Result<Box<dyn Db>> {
    duckdb::open(location)
}

#[cfg(not(feature = "duckdb"))]
fn open_duckdb(_location: &Location) -> anyhow::Result<Box<dyn Db>> {
    anyhow::bail!("this basalt-bench was built without the `duckdb` feature")
}

impl fmt::Display for DriverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a database lives.
#[derive(Clone, Debug)]
pub enum Location {
    /// A file (the engines put their journal or WAL beside it).
    File(PathBuf),
    /// Memory only, gone when the last handle closes.
    Memory,
}

/// Settings a workload fixes for every driver alike.
#[derive(Clone, Copy, Debug)]
pub struct OpenOptions {
    /// `PRAGMA foreign_keys` as the workload says, set explicitly on every connection of
    /// every engine (both enforce foreign keys when it is on).
    pub foreign_keys: bool,
    /// Register sqlite-vec (its functions and the `vec0` module) on every SQLite connection:
    /// the vector comparator of group C. Basalt's vectors are built in; DuckDB ignores it.
    pub sqlite_vec: bool,
    /// Page cache per connection (SQLite) or per database (Basalt), in bytes: [`CACHE_BYTES`]
    /// unless the workload's data is meant to be served from memory (W10's vector index).
    pub cache_bytes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for kind in ALL_DRIVERS {
            assert_eq!(DriverKind::parse(kind.name()), Some(kind));
        }
        assert_eq!(DriverKind::parse("postgres"), None);
    }

    #[test]
    fn every_comparator_pairing_matches_durability() {
        assert_eq!(
            DriverKind::BasaltFull.comparators(),
            &[DriverKind::SqliteDefault]
        );
        assert!(
            DriverKind::Basalt
                .comparators()
                .contains(&DriverKind::Sqlite)
        );
        assert!(DriverKind::Sqlite.comparators().is_empty());
    }
}

#[cfg(test)]
mod agreement {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "tests"
    )]
    use super::*;

    struct Rows(Vec<String>);
    impl RowSink for Rows {
        fn row(&mut self, row: &dyn RowRef) -> anyhow::Result<()> {
            let values: Vec<String> = (0..row.column_count())
                .map(|c| format!("{:?}", row.value(c).unwrap()))
                .collect();
            self.0.push(values.join(","));
            Ok(())
        }
    }

    fn run(kind: DriverKind) -> Vec<String> {
        let db = kind
            .open(
                &Location::Memory,
                &OpenOptions {
                    foreign_keys: false,
                    sqlite_vec: false,
                    cache_bytes: CACHE_BYTES,
                },
            )
            .unwrap();
        let mut s = db.connect().unwrap();
        s.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, score DOUBLE PRECISION)",
        )
        .unwrap();
        for id in 1..=3 {
            s.execute(
                "INSERT INTO t (id, k, score) VALUES (?, ?, ?)",
                &[Val::Int(id), Val::Int(id * 10), Val::Real(0.5)],
            )
            .unwrap();
        }
        let mut out = Vec::new();
        let changed = s
            .execute(
                "UPDATE t SET score = ?1 WHERE id = ?2",
                &[Val::Real(7.25), Val::Int(2)],
            )
            .unwrap();
        out.push(format!("changed {changed}"));
        let changed = s
            .execute(
                "UPDATE t SET k = k + ?1 WHERE id = ?2",
                &[Val::Int(5), Val::Int(3)],
            )
            .unwrap();
        out.push(format!("changed {changed}"));
        let mut rows = Rows(Vec::new());
        s.query("SELECT * FROM t ORDER BY id", &[], &mut rows)
            .unwrap();
        out.extend(rows.0);
        out
    }

    /// The UPDATEs number their placeholders: Basalt numbers bare `?` in the order it binds
    /// clauses (WHERE before SET), so `SET score = ? WHERE id = ?` takes its parameters
    /// swapped — an engine bug the suite's gate caught. `?1`/`?2` mean the same everywhere.
    #[test]
    fn basalt_and_sqlite_agree_on_updates() {
        assert_eq!(run(DriverKind::Basalt), run(DriverKind::Sqlite));
    }
}
