//! [`Database`]: an open database file, shared by every connection and thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use crate::catalog::{self, Catalog};
use crate::exec::source::PageSource;
use crate::storage::pager::Synchronous;
use crate::txn::{Store, StoreOptions};

use super::connection::Connection;
use super::error::Result;
use super::session::Session;

/// Settings for [`Database::open_with`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Page size of a new database (4096–65536, a power of two).
    pub page_size: usize,
    /// Page cache size in bytes.
    pub cache_size: usize,
    /// Durability: `Full` syncs every commit, `Normal` (default) syncs at checkpoints.
    pub synchronous: Synchronous,
    /// How long a write waits for another writer before failing with a busy error.
    pub busy_timeout: Duration,
    /// Prepared statements each connection keeps for `prepare_cached`.
    pub statement_cache_capacity: usize,
    /// Memory, in bytes, that each sort, hash aggregation, hash join build side, DISTINCT or
    /// set operation of a statement may hold (default 64 MiB). Beyond it the operator spills
    /// rows to temporary files and finishes in bounded memory. A session can override it
    /// with `SET work_mem = '16MB'` (or `PRAGMA work_mem`).
    pub operator_memory: usize,
    /// Where spill files go (`None`, the default: the system's temporary directory). Files
    /// are unlinked as soon as they are created, so nothing is left behind after a crash;
    /// point this at a disk when the temporary directory is a RAM-backed tmpfs.
    pub spill_directory: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        let store = StoreOptions::default();
        Options {
            page_size: store.page_size,
            cache_size: store.cache_bytes,
            synchronous: store.synchronous,
            busy_timeout: store.busy_timeout,
            statement_cache_capacity: 64,
            operator_memory: crate::exec::context::DEFAULT_OPERATOR_MEMORY,
            spill_directory: None,
        }
    }
}

#[derive(Debug)]
pub(crate) struct DatabaseInner {
    pub(crate) store: Store,
    pub(crate) options: Options,
    /// The newest committed catalog seen, shared by connections planning statements.
    committed_catalog: Mutex<Arc<Catalog>>,
}

impl DatabaseInner {
    /// The catalog as `source` sees it. Committed catalogs (read snapshots) are cached by
    /// schema version; a write transaction's own uncommitted DDL is loaded fresh.
    pub(crate) fn catalog_for(&self, source: &PageSource) -> Result<Arc<Catalog>> {
        let version = source.meta(catalog::SCHEMA_VERSION_SLOT);
        {
            let cached = self.committed_catalog.lock();
            if cached.version == version {
                return Ok(cached.clone());
            }
        }
        let loaded = Arc::new(catalog::load_catalog(source, |slot| source.meta(slot))?);
        // Only a committed catalog may be shared: an uncommitted DDL statement's version
        // number could be reused by another transaction if this one rolls back. A write
        // transaction that has not changed the schema sees the committed catalog; sharing it
        // matters, because after DDL the next statements are often all writes (`BEGIN`,
        // then inserts), and each would otherwise load and parse the catalog again.
        if source.sees_committed_meta(catalog::SCHEMA_VERSION_SLOT) {
            let mut cached = self.committed_catalog.lock();
            if loaded.version > cached.version {
                *cached = loaded.clone();
            }
        }
        Ok(loaded)
    }
}

/// An open database. Cheap to clone; `Send + Sync`; one per file per process.
#[derive(Clone, Debug)]
pub struct Database {
    pub(crate) inner: Arc<DatabaseInner>,
}

impl Database {
    /// Opens (or creates) the database at `path` with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<Database> {
        Database::open_with(path, Options::default())
    }

    /// Opens (or creates) the database at `path`.
    pub fn open_with(path: impl AsRef<Path>, options: Options) -> Result<Database> {
        let store = Store::open(path, store_options(&options))?;
        Database::from_store(store, options)
    }

    /// A new, empty database that lives in memory and vanishes when dropped.
    pub fn open_in_memory() -> Result<Database> {
        Database::open_in_memory_with(Options::default())
    }

    /// An in-memory database with options.
    pub fn open_in_memory_with(options: Options) -> Result<Database> {
        let store = Store::open_in_memory(store_options(&options))?;
        Database::from_store(store, options)
    }

    fn from_store(store: Store, options: Options) -> Result<Database> {
        let reader = Arc::new(store.begin_read());
        let source = PageSource::Read(reader);
        let catalog = catalog::load_catalog(&source, |slot| source.meta(slot))?;
        Ok(Database {
            inner: Arc::new(DatabaseInner {
                store,
                options,
                committed_catalog: Mutex::new(Arc::new(catalog)),
            }),
        })
    }

    /// A new connection (one per thread; connections are `Send` but not `Sync`).
    pub fn connect(&self) -> Connection {
        Connection::new(self.inner.clone())
    }

    /// A new owned session (for a server or a binding that keeps one per client): named
    /// prepared statements, portals, describe and partial execution. A [`Connection`] is
    /// the same session behind rusqlite's API.
    pub fn session(&self) -> Session {
        Session::new(self.inner.clone())
    }

    /// Copies the write-ahead log into the database file and empties it when possible.
    pub fn checkpoint(&self) -> Result<()> {
        self.inner.store.checkpoint()?;
        Ok(())
    }
}

fn store_options(options: &Options) -> StoreOptions {
    StoreOptions {
        page_size: options.page_size,
        cache_bytes: options.cache_size,
        synchronous: options.synchronous,
        busy_timeout: options.busy_timeout,
        ..StoreOptions::default()
    }
}
