//! The real file system: the VFS a database on disk runs on.
//!
//! A thin layer over `std::fs::File`. Reads and writes are positioned (`pread`/`pwrite`
//! through `FileExt`), so one handle serves any number of threads without a shared cursor or
//! a lock around it. `sync` is the durability point the pager and the write-ahead log build
//! on; the lock is `flock`-style (via `File::try_lock`), which is what keeps a second process
//! from opening the same database.
//!
//! Errors pass through unchanged so callers can match on `io::ErrorKind`; the one adjustment
//! is that an exceeded disk quota is reported as `StorageFull`, because to the engine both mean
//! "a write failed for lack of space, nothing committed is lost".

use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Vfs, VfsFile};

/// The operating system's file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct OsVfs;

impl OsVfs {
    /// The real file system.
    pub fn new() -> Self {
        OsVfs
    }
}

impl Vfs for OsVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        // Parent directories are never created: a database in a directory that does not exist
        // is almost always a typo, and silently creating it would hide that.
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(create)
            .open(path)?;
        Ok(Arc::new(OsFile {
            file,
            path: path.to_path_buf(),
            len_changed: AtomicBool::new(false),
        }))
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        path.try_exists()
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }
}

/// An open file on disk.
struct OsFile {
    file: File,
    path: PathBuf,
    /// Set by `set_len`, cleared by the next `sync`: tells `sync` it needs a full `fsync`.
    len_changed: AtomicBool,
}

impl fmt::Debug for OsFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OsFile").field("path", &self.path).finish()
    }
}

impl VfsFile for OsFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        FileExt::read_exact_at(&self.file, buf, offset)
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        FileExt::write_all_at(&self.file, buf, offset).map_err(full_disk)
    }

    /// `fdatasync` after plain writes, `fsync` after a length change.
    ///
    /// POSIX requires `fdatasync` to flush the metadata needed to read the data back, which
    /// includes a size grown by a write, and skipping timestamps is what makes it cheaper than
    /// `fsync` on the hot commit path. Explicit truncations and extensions (checkpoints
    /// shrinking the log or the database) are rare, and a full `fsync` there guards against
    /// file systems that treat a bare size change more lazily than data, where a lost
    /// truncation would resurrect stale log frames after a crash.
    fn sync(&self) -> io::Result<()> {
        if self.len_changed.swap(false, Ordering::AcqRel) {
            self.file.sync_all().inspect_err(|_| {
                // The size change is still not known to be durable; the next sync retries it.
                self.len_changed.store(true, Ordering::Release);
            })
        } else {
            self.file.sync_data()
        }
        .map_err(full_disk)
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let result = self.file.set_len(len);
        // Flag after the change (even a failed one may have moved the size), so any sync that
        // starts once this returns sees it. A sync racing with `set_len` itself has no
        // ordering to promise anyway.
        self.len_changed.store(true, Ordering::Release);
        result.map_err(full_disk)
    }

    fn try_lock_exclusive(&self) -> io::Result<bool> {
        match self.file.try_lock() {
            Ok(()) => Ok(true),
            Err(TryLockError::WouldBlock) => Ok(false),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }
}

/// Reports an exceeded quota (`EDQUOT`) as a full disk; std already maps `ENOSPC` to
/// `StorageFull`.
fn full_disk(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::QuotaExceeded {
        io::Error::new(io::ErrorKind::StorageFull, e)
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    /// A fresh directory under the system temp dir, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> Self {
            static COUNTER: AtomicU32 = AtomicU32::new(0);
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir()
                .join(format!("basalt-osvfs-{}-{name}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir(&dir).unwrap();
            TempDir(dir)
        }

        fn path(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn read_write_extend_and_zero_fill() {
        let dir = TempDir::new("rw");
        let vfs = OsVfs;
        let f = vfs.open(&dir.path("db"), true).unwrap();
        assert_eq!(f.len().unwrap(), 0);
        f.write_all_at(b"hello", 0).unwrap();
        f.write_all_at(b"world", 10).unwrap();
        assert_eq!(f.len().unwrap(), 15);
        let mut buf = [0xffu8; 15];
        f.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"hello\0\0\0\0\0world");
        f.sync().unwrap();

        f.set_len(3).unwrap();
        f.set_len(6).unwrap();
        f.sync().unwrap();
        let mut buf = [0xffu8; 6];
        f.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"hel\0\0\0");
    }

    #[test]
    fn reads_past_the_end_are_eof() {
        let dir = TempDir::new("eof");
        let f = OsVfs.open(&dir.path("db"), true).unwrap();
        f.write_all_at(&[1, 2, 3, 4], 0).unwrap();
        let mut buf = [0u8; 4];
        let err = f.read_exact_at(&mut buf, 1).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        let err = f.read_exact_at(&mut buf, 1 << 40).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn open_create_exists_remove() {
        let dir = TempDir::new("files");
        let vfs = OsVfs;
        let p = dir.path("db");
        assert_eq!(
            vfs.open(&p, false).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert!(!vfs.exists(&p).unwrap());
        vfs.open(&p, true).unwrap().write_all_at(b"abc", 0).unwrap();
        assert!(vfs.exists(&p).unwrap());
        // Opening an existing file (with or without create) keeps its contents.
        assert_eq!(vfs.open(&p, true).unwrap().len().unwrap(), 3);
        assert_eq!(vfs.open(&p, false).unwrap().len().unwrap(), 3);
        vfs.remove(&p).unwrap();
        assert!(!vfs.exists(&p).unwrap());
        vfs.remove(&p).unwrap();
        // Parent directories are not created.
        let nested = dir.path("missing/db");
        assert_eq!(
            vfs.open(&nested, true).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn lock_is_exclusive_per_open_and_released_on_drop() {
        let dir = TempDir::new("lock");
        let p = dir.path("db");
        let first = OsVfs.open(&p, true).unwrap();
        let second = OsVfs.open(&p, false).unwrap();
        assert!(first.try_lock_exclusive().unwrap());
        assert!(first.try_lock_exclusive().unwrap(), "re-lock by the holder");
        // flock locks belong to the open file description, so a second open in the same
        // process is refused just as another process would be.
        assert!(!second.try_lock_exclusive().unwrap());
        drop(first);
        assert!(second.try_lock_exclusive().unwrap());
    }

    #[test]
    fn full_disk_is_storage_full() {
        assert_eq!(
            io::Error::from_raw_os_error(libc::ENOSPC).kind(),
            io::ErrorKind::StorageFull
        );
        assert_eq!(
            full_disk(io::Error::from_raw_os_error(libc::EDQUOT)).kind(),
            io::ErrorKind::StorageFull
        );
        // /dev/full fails every write with ENOSPC: the real path, end to end.
        let dev_full = Path::new("/dev/full");
        if dev_full.exists() {
            let f = OsVfs.open(dev_full, false).unwrap();
            let err = f.write_all_at(&[0u8; 512], 0).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        }
    }

    #[test]
    fn concurrent_positioned_io_on_one_handle() {
        let dir = TempDir::new("threads");
        let f = OsVfs.open(&dir.path("db"), true).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u8 {
                let f = Arc::clone(&f);
                s.spawn(move || {
                    for i in 0..32u64 {
                        let off = (u64::from(t) * 32 + i) * 16;
                        f.write_all_at(&[t; 16], off).unwrap();
                        let mut buf = [0u8; 16];
                        f.read_exact_at(&mut buf, off).unwrap();
                        assert_eq!(buf, [t; 16]);
                    }
                });
            }
        });
        assert_eq!(f.len().unwrap(), 4 * 32 * 16);
    }
}
