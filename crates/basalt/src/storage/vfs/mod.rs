//! The virtual file system: every byte Basalt reads or writes goes through this trait.
//!
//! The engine needs very little from files: positioned reads and writes (so several threads
//! can read one file at once), `sync` (fsync: the only durability point), length changes, and
//! an exclusive advisory lock so a second process cannot open the same database. Keeping the
//! surface this small lets tests swap in [`MemoryVfs`] (no disk at all) or [`FaultVfs`], which
//! tears writes, fails fsyncs, runs out of space and simulates a power cut by forgetting
//! everything that was never synced.

use std::fmt::Debug;
use std::io;
use std::path::Path;
use std::sync::Arc;

mod fault;
mod memory;
mod os;

pub use fault::{CrashMode, FaultController, FaultVfs};
pub use memory::MemoryVfs;
pub use os::OsVfs;

/// A file system.
pub trait Vfs: Send + Sync + Debug {
    /// Opens `path` for reading and writing, creating it (empty) when `create` is true and it
    /// does not exist. Opening a missing file without `create` is an `io::ErrorKind::NotFound`.
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>>;
    /// Whether `path` exists.
    fn exists(&self, path: &Path) -> io::Result<bool>;
    /// Deletes `path`; deleting a missing file is not an error.
    fn remove(&self, path: &Path) -> io::Result<()>;
}

/// An open file. All methods take `&self` so one handle can serve many threads.
#[allow(
    clippy::len_without_is_empty,
    reason = "`len` is an I/O call that can fail; nothing in the engine asks whether a file is empty"
)]
pub trait VfsFile: Send + Sync + Debug {
    /// Fills `buf` from `offset`. Reading past the end is `io::ErrorKind::UnexpectedEof`
    /// (a short read is never returned as success).
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of `buf` at `offset`, extending the file (zero-filling any gap) if needed.
    /// A full disk is `io::ErrorKind::StorageFull`.
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Makes every write so far durable (fsync / fdatasync).
    fn sync(&self) -> io::Result<()>;
    /// The file's length in bytes.
    fn len(&self) -> io::Result<u64>;
    /// Truncates or extends (with zeros) the file to `len` bytes.
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// Takes an exclusive lock held until the handle is dropped. Returns `Ok(false)` when
    /// another process (or, for in-memory file systems, another handle) holds it.
    fn try_lock_exclusive(&self) -> io::Result<bool>;
}
