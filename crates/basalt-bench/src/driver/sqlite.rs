//! The `sqlite` and `sqlite-default` drivers: rusqlite with its bundled SQLite, used the way
//! rusqlite's documentation recommends — `prepare_cached`, bound parameters, `Rows::next` and
//! `Row::get_ref`.
//!
//! Profiles (set on every connection, so each thread's connection is identical):
//! - tuned (`sqlite`): `journal_mode=WAL, synchronous=NORMAL, temp_store=MEMORY,
//!   cache_size=-65536` (64 MiB);
//! - default (`sqlite-default`): the same except `journal_mode=DELETE, synchronous=FULL`,
//!   so the pairing with `basalt-full` isolates durability rather than cache size.
//!
//! `PRAGMA foreign_keys` is always set explicitly, because rusqlite's bundled build turns
//! foreign keys on by default while the workloads say when they want them.
//!
//! Workloads that compare vector search (group C) ask for sqlite-vec
//! ([`OpenOptions::sqlite_vec`]): the `sqlite-vec` crate compiles sqlite-vec's C source into
//! this binary, and every connection of such a workload registers it ([`load_sqlite_vec`]).
//! No other workload's connections carry it, so opening a database costs what it always did.

use std::ffi::{CStr, c_char, c_int};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context as _;
use rusqlite::ffi;
use rusqlite::types::{ToSqlOutput, ValueRef};

use super::{
    BUSY_TIMEOUT_MS, Db, Location, OpenOptions, RowRef, RowSink, STATEMENT_CACHE, Session, Val,
    vector_bytes,
};

/// Which SQLite profile.
#[derive(Clone, Copy, Debug)]
pub enum Profile {
    Tuned,
    Default,
}

/// Opens a SQLite database with a profile.
pub fn open(
    location: &Location,
    profile: Profile,
    options: &OpenOptions,
) -> anyhow::Result<Box<dyn Db>> {
    let path = match location {
        Location::File(path) => Some(path.clone()),
        Location::Memory => None,
    };
    let db = SqliteDb {
        path,
        profile,
        foreign_keys: options.foreign_keys,
        sqlite_vec: options.sqlite_vec,
        cache_kib: options.cache_bytes / 1024,
        memory: Mutex::new(None),
    };
    if db.path.is_none() {
        // An in-memory SQLite database lives in its one connection; open it now and hand it
        // out once.
        let connection = db.open_connection()?;
        *db.memory.lock().map_err(|_| anyhow::anyhow!("poisoned"))? = Some(connection);
    } else {
        // Create the file and set its journal mode before anything else runs.
        drop(db.open_connection()?);
    }
    Ok(Box::new(db))
}

struct SqliteDb {
    path: Option<PathBuf>,
    profile: Profile,
    foreign_keys: bool,
    sqlite_vec: bool,
    /// `PRAGMA cache_size = -cache_kib`.
    cache_kib: usize,
    memory: Mutex<Option<rusqlite::Connection>>,
}

impl SqliteDb {
    fn open_connection(&self) -> anyhow::Result<rusqlite::Connection> {
        let connection = match &self.path {
            Some(path) => rusqlite::Connection::open(path)
                .with_context(|| format!("opening {}", path.display()))?,
            None => rusqlite::Connection::open_in_memory()?,
        };
        connection.busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS))?;
        connection.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        let (journal, synchronous) = match self.profile {
            Profile::Tuned => ("WAL", "NORMAL"),
            Profile::Default => ("DELETE", "FULL"),
        };
        if self.path.is_some() {
            // `journal_mode` answers with the mode now in force; insist it took.
            let mode: String =
                connection.query_row(&format!("PRAGMA journal_mode = {journal}"), [], |row| {
                    row.get(0)
                })?;
            anyhow::ensure!(
                mode.eq_ignore_ascii_case(journal),
                "SQLite refused journal_mode={journal} (got {mode})"
            );
        }
        connection.execute_batch(&format!(
            "PRAGMA synchronous = {synchronous};
             PRAGMA temp_store = MEMORY;
             PRAGMA cache_size = -{};
             PRAGMA foreign_keys = {};",
            self.cache_kib,
            if self.foreign_keys { "ON" } else { "OFF" }
        ))?;
        if self.sqlite_vec {
            load_sqlite_vec(&connection)?;
        }
        Ok(connection)
    }
}

/// The C signature of sqlite-vec's entry point, `sqlite3_vec_init`.
type VecInit = unsafe extern "C" fn(
    *mut ffi::sqlite3,
    *mut *mut c_char,
    *const ffi::sqlite3_api_routines,
) -> c_int;

/// The version of the sqlite-vec compiled into the benchmark (its `vec_version()`, e.g.
/// `v0.1.9`), for the report; `None` if it cannot be registered.
pub fn sqlite_vec_version() -> Option<String> {
    let connection = rusqlite::Connection::open_in_memory().ok()?;
    load_sqlite_vec(&connection).ok()?;
    connection
        .query_row("SELECT vec_version()", [], |row| row.get::<_, String>(0))
        .ok()
}

/// Registers sqlite-vec's functions and its `vec0` module on `connection`: what
/// `sqlite3_auto_extension` would do for every connection of the process, done for this one.
/// The crate compiles sqlite-vec with `SQLITE_CORE`, so the extension calls the bundled
/// SQLite that rusqlite links, directly.
#[allow(
    unsafe_code,
    reason = "sqlite-vec is C: its entry point is called on rusqlite's raw connection handle"
)]
pub(crate) fn load_sqlite_vec(connection: &rusqlite::Connection) -> anyhow::Result<()> {
    // SAFETY: the crate declares `sqlite3_vec_init` as `fn()`, but the C definition it links
    // is `int sqlite3_vec_init(sqlite3 *, char **, const sqlite3_api_routines *)`, which
    // `VecInit` spells out; both are function pointers of the same size, and calling through
    // `VecInit` calls the function with its real signature (the crate's own example does this
    // transmute).
    let init = unsafe {
        std::mem::transmute::<unsafe extern "C" fn(), VecInit>(sqlite_vec::sqlite3_vec_init)
    };
    let mut message: *mut c_char = std::ptr::null_mut();
    // SAFETY: `handle()` is the open connection's `sqlite3 *`, used on this thread while
    // `connection` is borrowed; `message` is a valid place for the error message; built with
    // `SQLITE_CORE`, the entry point ignores its API-routines argument, so null is allowed.
    let code = unsafe { init(connection.handle(), &mut message, std::ptr::null()) };
    if code == ffi::SQLITE_OK {
        return Ok(());
    }
    let detail = if message.is_null() {
        String::new()
    } else {
        // SAFETY: on failure sqlite-vec sets `message` with `sqlite3_mprintf`: a
        // NUL-terminated string that the caller owns and frees with `sqlite3_free`, which
        // happens here once it has been copied.
        unsafe {
            let text = CStr::from_ptr(message).to_string_lossy().into_owned();
            ffi::sqlite3_free(message.cast());
            text
        }
    };
    anyhow::bail!("registering sqlite-vec failed (SQLite code {code}): {detail}")
}

impl Db for SqliteDb {
    fn connect(&self) -> anyhow::Result<Box<dyn Session>> {
        let connection = if self.path.is_some() {
            self.open_connection()?
        } else {
            self.memory
                .lock()
                .map_err(|_| anyhow::anyhow!("poisoned"))?
                .take()
                .context("an in-memory SQLite database has exactly one connection")?
        };
        Ok(Box::new(SqliteSession { connection }))
    }

    fn file_bytes(&self) -> anyhow::Result<Option<u64>> {
        let Some(path) = &self.path else {
            return Ok(None);
        };
        // Everything the log holds goes into the file first, as Basalt's driver checkpoints.
        self.open_connection()?
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")?;
        Ok(Some(std::fs::metadata(path)?.len()))
    }
}

struct SqliteSession {
    connection: rusqlite::Connection,
}

impl rusqlite::ToSql for Val<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match *self {
            Val::Null => ValueRef::Null,
            Val::Int(v) => ValueRef::Integer(v),
            Val::Real(v) => ValueRef::Real(v),
            Val::Text(v) => ValueRef::Text(v.as_bytes()),
            Val::Blob(v) => ValueRef::Blob(v),
            // sqlite-vec's compact form: the blob of the little-endian f32s (one copy, as
            // Basalt's driver makes one copy into its `Value::Vector`).
            Val::Vector(v) => {
                return Ok(ToSqlOutput::Owned(rusqlite::types::Value::Blob(
                    vector_bytes(v),
                )));
            }
        }))
    }
}

impl Session for SqliteSession {
    fn execute(&mut self, sql: &str, params: &[Val<'_>]) -> anyhow::Result<u64> {
        let mut statement = self.connection.prepare_cached(sql)?;
        Ok(statement.execute(rusqlite::params_from_iter(params.iter()))? as u64)
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[Val<'_>],
        sink: &mut dyn RowSink,
    ) -> anyhow::Result<()> {
        let mut statement = self.connection.prepare_cached(sql)?;
        let columns = statement.column_count();
        let mut rows = statement.query(rusqlite::params_from_iter(params.iter()))?;
        while let Some(row) = rows.next()? {
            sink.row(&SqliteRow { row, columns })?;
        }
        Ok(())
    }

    fn execute_batch(&mut self, sql: &str) -> anyhow::Result<()> {
        self.connection.execute_batch(sql)?;
        Ok(())
    }

    fn is_retryable(&self, error: &anyhow::Error) -> bool {
        matches!(
            error.downcast_ref::<rusqlite::Error>(),
            Some(rusqlite::Error::SqliteFailure(failure, _))
                if matches!(
                    failure.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                )
        )
    }
}

struct SqliteRow<'a, 'r> {
    row: &'r rusqlite::Row<'a>,
    columns: usize,
}

impl RowRef for SqliteRow<'_, '_> {
    fn column_count(&self) -> usize {
        self.columns
    }

    fn value(&self, column: usize) -> anyhow::Result<Val<'_>> {
        Ok(match self.row.get_ref(column)? {
            ValueRef::Null => Val::Null,
            ValueRef::Integer(v) => Val::Int(v),
            ValueRef::Real(v) => Val::Real(v),
            ValueRef::Text(v) => Val::Text(std::str::from_utf8(v)?),
            ValueRef::Blob(v) => Val::Blob(v),
        })
    }
}
