//! An in-memory file system: the VFS for unit tests and for databases that never touch disk.
//!
//! Files are byte vectors in a map shared by every clone of a [`MemoryVfs`], so a test can
//! "close" a database and open it again through a clone and see the same bytes. Nothing is
//! ever lost: `sync` is a no-op because there is no power cut to survive (use `FaultVfs` for
//! that). The byte-level rules — reads past the end fail with `UnexpectedEof`, writes past the
//! end zero-fill the gap — are the same ones `OsVfs` gets from the operating system, and the
//! helpers that implement them here are shared with `FaultVfs` so the three back ends cannot
//! drift apart.
//!
//! Locks model `flock`: one exclusive lock per file among all handles, released when the
//! handle that took it is dropped. A file removed while open stays readable through its open
//! handles (like an unlinked inode), and its lock goes with it rather than with the path.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Mutex, RwLock};

use super::{Vfs, VfsFile};

/// A file system held entirely in memory. Clones share the same files.
#[derive(Clone, Default)]
pub struct MemoryVfs {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    files: Mutex<HashMap<PathBuf, Arc<Node>>>,
    /// Source of handle identities, so a lock can name the handle that holds it.
    next_handle: AtomicU64,
}

/// One file: its bytes and which handle (if any) holds its exclusive lock.
#[derive(Default)]
struct Node {
    data: RwLock<Vec<u8>>,
    lock_owner: Mutex<Option<u64>>,
}

impl MemoryVfs {
    /// An empty file system.
    pub fn new() -> Self {
        Self::default()
    }
}

impl fmt::Debug for MemoryVfs {
    // Printing file contents would flood test output; sizes are what one wants to see.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let files = self.shared.files.lock();
        let mut map = f.debug_map();
        for (path, node) in files.iter() {
            map.entry(path, &node.data.read().len());
        }
        map.finish()
    }
}

impl Vfs for MemoryVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        let node = {
            let mut files = self.shared.files.lock();
            match files.get(path) {
                Some(node) => Arc::clone(node),
                None if create => {
                    let node = Arc::new(Node::default());
                    files.insert(path.to_path_buf(), Arc::clone(&node));
                    node
                }
                None => return Err(not_found(path)),
            }
        };
        let id = self.shared.next_handle.fetch_add(1, Ordering::Relaxed) + 1;
        Ok(Arc::new(MemoryFile {
            node,
            id,
            path: path.to_path_buf(),
        }))
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        Ok(self.shared.files.lock().contains_key(path))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        self.shared.files.lock().remove(path);
        Ok(())
    }
}

/// An open handle on a [`MemoryVfs`] file.
struct MemoryFile {
    node: Arc<Node>,
    id: u64,
    path: PathBuf,
}

impl fmt::Debug for MemoryFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryFile")
            .field("path", &self.path)
            .field("handle", &self.id)
            .finish()
    }
}

impl VfsFile for MemoryFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        read_at(&self.node.data.read(), buf, offset)
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        write_at(&mut self.node.data.write(), buf, offset)
    }

    fn sync(&self) -> io::Result<()> {
        Ok(())
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.node.data.read().len() as u64)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        resize(&mut self.node.data.write(), len)
    }

    fn try_lock_exclusive(&self) -> io::Result<bool> {
        Ok(take_lock(&mut self.node.lock_owner.lock(), self.id))
    }
}

impl Drop for MemoryFile {
    fn drop(&mut self) {
        release_lock(&mut self.node.lock_owner.lock(), self.id);
    }
}

/// Takes a file lock for handle `id`. Re-locking through the holder succeeds, as `flock` does
/// on the same open file description.
pub(super) fn take_lock(owner: &mut Option<u64>, id: u64) -> bool {
    match *owner {
        None => {
            *owner = Some(id);
            true
        }
        Some(holder) => holder == id,
    }
}

/// Releases the lock if handle `id` holds it; a handle that never locked must not free
/// someone else's lock when it is dropped.
pub(super) fn release_lock(owner: &mut Option<u64>, id: u64) {
    if *owner == Some(id) {
        *owner = None;
    }
}

pub(super) fn not_found(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("no such file: {}", path.display()),
    )
}

/// The byte range `offset..offset + len` as in-memory indices, or an error when it cannot be
/// addressed on this machine (an offset from a corrupt header must not panic or wrap).
fn range(offset: u64, len: usize) -> io::Result<(usize, usize)> {
    let start = usize::try_from(offset).ok();
    let end = start.and_then(|start| start.checked_add(len));
    match (start, end) {
        (Some(start), Some(end)) => Ok((start, end)),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("offset {offset} + {len} bytes is beyond the addressable range"),
        )),
    }
}

/// Fills `buf` from `data[offset..]`; a short read is `UnexpectedEof`, never partial success.
pub(super) fn read_at(data: &[u8], buf: &mut [u8], offset: u64) -> io::Result<()> {
    if buf.is_empty() {
        return Ok(());
    }
    let eof = || {
        io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "read of {} bytes at offset {offset} is past the end of a {}-byte file",
                buf.len(),
                data.len()
            ),
        )
    };
    let (start, end) = range(offset, buf.len()).map_err(|_| eof())?;
    let src = data.get(start..end).ok_or_else(eof)?;
    buf.copy_from_slice(src);
    Ok(())
}

/// Writes `buf` at `offset`, zero-filling any gap. An empty write does not extend the file,
/// matching `pwrite` of zero bytes.
pub(super) fn write_at(data: &mut Vec<u8>, buf: &[u8], offset: u64) -> io::Result<()> {
    if buf.is_empty() {
        return Ok(());
    }
    let (start, end) = range(offset, buf.len())?;
    if end > data.len() {
        grow(data, end)?;
    }
    if let Some(dst) = data.get_mut(start..end) {
        dst.copy_from_slice(buf);
    }
    Ok(())
}

/// Truncates or zero-extends `data` to `len` bytes.
pub(super) fn resize(data: &mut Vec<u8>, len: u64) -> io::Result<()> {
    let (len, _) = range(len, 0)?;
    if len > data.len() {
        grow(data, len)
    } else {
        data.truncate(len);
        Ok(())
    }
}

/// Zero-extends `data` to `len` bytes. Uses `try_reserve` because a huge length (say, from a
/// corrupt header) must come back as an error, not abort the process on allocation failure.
fn grow(data: &mut Vec<u8>, len: usize) -> io::Result<()> {
    let extra = len.saturating_sub(data.len());
    data.try_reserve(extra).map_err(|e| {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!("cannot grow an in-memory file to {len} bytes: {e}"),
        )
    })?;
    data.resize(len, 0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(name: &str) -> PathBuf {
        PathBuf::from(name)
    }

    #[test]
    fn read_write_extend_and_zero_fill() {
        let vfs = MemoryVfs::new();
        let f = vfs.open(&path("db"), true).unwrap();
        assert_eq!(f.len().unwrap(), 0);
        f.write_all_at(b"hello", 0).unwrap();
        f.write_all_at(b"world", 10).unwrap();
        assert_eq!(f.len().unwrap(), 15);
        let mut buf = [0xffu8; 15];
        f.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"hello\0\0\0\0\0world");
        // Overwrite in the middle.
        f.write_all_at(b"XY", 3).unwrap();
        let mut buf = [0u8; 5];
        f.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"helXY");
        // An empty write past the end does not extend.
        f.write_all_at(b"", 100).unwrap();
        assert_eq!(f.len().unwrap(), 15);
    }

    #[test]
    fn reads_past_the_end_are_eof() {
        let vfs = MemoryVfs::new();
        let f = vfs.open(&path("db"), true).unwrap();
        f.write_all_at(&[1, 2, 3, 4], 0).unwrap();
        let mut buf = [0u8; 4];
        let err = f.read_exact_at(&mut buf, 1).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        let err = f.read_exact_at(&mut buf, u64::MAX).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        f.read_exact_at(&mut [], 1000).unwrap();
    }

    #[test]
    fn huge_offsets_are_errors_not_panics() {
        let vfs = MemoryVfs::new();
        let f = vfs.open(&path("db"), true).unwrap();
        assert!(f.write_all_at(b"x", u64::MAX).is_err());
        assert!(f.set_len(u64::MAX).is_err());
        assert_eq!(f.len().unwrap(), 0);
    }

    #[test]
    fn set_len_truncates_and_zero_extends() {
        let vfs = MemoryVfs::new();
        let f = vfs.open(&path("db"), true).unwrap();
        f.write_all_at(b"abcdef", 0).unwrap();
        f.set_len(3).unwrap();
        assert_eq!(f.len().unwrap(), 3);
        f.set_len(6).unwrap();
        let mut buf = [0xffu8; 6];
        f.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"abc\0\0\0");
        f.sync().unwrap();
    }

    #[test]
    fn open_create_exists_remove_and_clones_share_files() {
        let vfs = MemoryVfs::new();
        let p = path("dir/db");
        assert_eq!(
            vfs.open(&p, false).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert!(!vfs.exists(&p).unwrap());
        let f = vfs.open(&p, true).unwrap();
        f.write_all_at(b"shared", 0).unwrap();
        let clone = vfs.clone();
        assert!(clone.exists(&p).unwrap());
        let g = clone.open(&p, false).unwrap();
        let mut buf = [0u8; 6];
        g.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"shared");
        // Opening with create does not truncate.
        assert_eq!(vfs.open(&p, true).unwrap().len().unwrap(), 6);

        vfs.remove(&p).unwrap();
        assert!(!clone.exists(&p).unwrap());
        vfs.remove(&p).unwrap();
        // An open handle keeps the unlinked file's bytes.
        g.read_exact_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"shared");
        assert_eq!(vfs.open(&p, true).unwrap().len().unwrap(), 0);
    }

    #[test]
    fn lock_is_exclusive_among_handles_and_released_on_drop() {
        let vfs = MemoryVfs::new();
        let p = path("db");
        let first = vfs.open(&p, true).unwrap();
        let second = vfs.open(&p, false).unwrap();
        assert!(first.try_lock_exclusive().unwrap());
        assert!(first.try_lock_exclusive().unwrap(), "re-lock by the holder");
        assert!(!second.try_lock_exclusive().unwrap());
        // Dropping a handle that does not hold the lock must not release it.
        let third = vfs.open(&p, false).unwrap();
        drop(third);
        assert!(!second.try_lock_exclusive().unwrap());
        drop(first);
        assert!(second.try_lock_exclusive().unwrap());
    }

    #[test]
    fn concurrent_readers_and_writers_share_a_handle() {
        let vfs = MemoryVfs::new();
        let f = vfs.open(&path("db"), true).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u8 {
                let f = Arc::clone(&f);
                s.spawn(move || {
                    for i in 0..64u64 {
                        let off = (u64::from(t) * 64 + i) * 8;
                        f.write_all_at(&[t; 8], off).unwrap();
                        let mut buf = [0u8; 8];
                        f.read_exact_at(&mut buf, off).unwrap();
                        assert_eq!(buf, [t; 8]);
                    }
                });
            }
        });
        assert_eq!(f.len().unwrap(), 4 * 64 * 8);
    }
}
