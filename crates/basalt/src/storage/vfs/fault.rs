//! A fault-injecting in-memory file system for crash and failure tests.
//!
//! The engine's durability claims all reduce to "after a power cut, what was synced is
//! there, and whatever else is there does not confuse recovery". [`FaultVfs`] makes that
//! testable: every file has a *durable* image (what survives a power cut) and a *volatile*
//! image (what reads see), plus the operations issued since its last `sync`. A
//! [`FaultController`], sharing the same state, simulates the power cut ([`FaultController::crash`])
//! and arms failures: a failing fsync, a write torn part-way by a power cut, a full disk.
//!
//! Guarantees the tests rely on:
//! - Determinism: everything random comes from a small generator seeded by the caller (no
//!   `rand` in library code), and files are visited in a fixed order, so a seed reproduces a
//!   failure exactly.
//! - After [`FaultController::crash`], every handle opened before it fails every call with
//!   "simulated crash", and reopening through the same [`FaultVfs`] sees the surviving bytes.
//! - Operation counters ([`FaultController::writes`], [`FaultController::syncs`]) count calls
//!   over all files, so a test can run a workload once to count, then rerun it with a fault
//!   armed at a chosen point.
//!
//! Simplifications, chosen deliberately: directory operations (creating and removing files)
//! are durable immediately, since the `Vfs` trait has no directory sync for the engine to
//! call; and all state sits behind one mutex, since this VFS exists for correctness tests, not
//! speed.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use super::memory::{not_found, read_at, release_lock, resize, take_lock, write_at};
use super::{Vfs, VfsFile};

/// Granularity at which [`CrashMode::KeepSome`] tears a write: disks promise atomic sectors,
/// not atomic multi-sector writes.
const SECTOR: u64 = 512;

/// What a simulated power cut leaves on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashMode {
    /// Every file reverts to its last synced content.
    LoseUnsynced,
    /// Every file keeps its synced content plus an arbitrary selection of the operations issued
    /// since: each is applied, dropped, or (for writes) torn at a sector boundary, as chosen by
    /// the seeded generator. This models a disk that writes back dirty sectors in any order.
    KeepSome,
}

/// A fault-injecting file system. Clones share the same files and fault state.
#[derive(Clone)]
pub struct FaultVfs {
    shared: Arc<Mutex<State>>,
}

/// Arms faults on, crashes and inspects the [`FaultVfs`] it was created with.
#[derive(Clone)]
pub struct FaultController {
    shared: Arc<Mutex<State>>,
}

type FileId = u64;

struct State {
    /// Bumped by every crash; handles remember the epoch they were opened in, and a handle
    /// from an older epoch is dead.
    epoch: u64,
    /// A torn write happened: the power is "going out", and every operation fails until
    /// `crash()` decides what reached the disk.
    torn: bool,
    /// The directory: path to file. Ordered, so crash processing is deterministic.
    names: BTreeMap<PathBuf, FileId>,
    /// File contents, including files removed while still open (like unlinked inodes).
    files: BTreeMap<FileId, FileState>,
    next_file: FileId,
    next_handle: u64,
    writes: u64,
    syncs: u64,
    /// Syncs to let through before one fails.
    fail_sync_in: Option<u64>,
    /// Writes to let through before one is torn, and how many bytes of it survive.
    tear_write_in: Option<(u64, usize)>,
    space_limit: Option<u64>,
    rng: SplitMix64,
}

#[derive(Default)]
struct FileState {
    durable: Vec<u8>,
    volatile: Vec<u8>,
    /// Operations since the last sync, in issue order: `durable` + these = `volatile`.
    pending: Vec<Pending>,
    lock_owner: Option<u64>,
    open_handles: usize,
    /// Still reachable by name; an unlinked file is dropped with its last handle.
    linked: bool,
}

enum Pending {
    Write { offset: u64, data: Vec<u8> },
    SetLen(u64),
}

impl Pending {
    fn apply(&self, image: &mut Vec<u8>) -> io::Result<()> {
        match self {
            Pending::Write { offset, data } => write_at(image, data, *offset),
            Pending::SetLen(len) => resize(image, *len),
        }
    }
}

impl FaultVfs {
    /// A fresh, empty file system and its controller. `seed` drives every random choice.
    pub fn new(seed: u64) -> (FaultVfs, FaultController) {
        let vfs = FaultVfs {
            shared: Arc::new(Mutex::new(State {
                epoch: 0,
                torn: false,
                names: BTreeMap::new(),
                files: BTreeMap::new(),
                next_file: 0,
                next_handle: 0,
                writes: 0,
                syncs: 0,
                fail_sync_in: None,
                tear_write_in: None,
                space_limit: None,
                rng: SplitMix64(seed),
            })),
        };
        let controller = vfs.controller();
        (vfs, controller)
    }

    /// Another controller for this file system.
    pub fn controller(&self) -> FaultController {
        FaultController {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl fmt::Debug for FaultVfs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shared.lock().fmt_summary("FaultVfs", f)
    }
}

impl fmt::Debug for FaultController {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shared.lock().fmt_summary("FaultController", f)
    }
}

impl State {
    fn fmt_summary(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(name)
            .field("files", &self.names.keys().collect::<Vec<_>>())
            .field("epoch", &self.epoch)
            .field("torn", &self.torn)
            .field("writes", &self.writes)
            .field("syncs", &self.syncs)
            .finish()
    }

    fn check_not_torn(&self) -> io::Result<()> {
        if self.torn {
            Err(io::Error::other(
                "simulated crash: power failed during a torn write",
            ))
        } else {
            Ok(())
        }
    }

    /// Bytes in use by all files, as the space limit sees them.
    fn total_size(&self) -> u64 {
        self.files.values().map(|f| f.volatile.len() as u64).sum()
    }

    /// Refuses a change of one file from `old_len` to `new_len` bytes that would exceed the
    /// space limit. Shrinking is always allowed.
    fn check_space(&self, old_len: u64, new_len: u64) -> io::Result<()> {
        let Some(limit) = self.space_limit else {
            return Ok(());
        };
        if new_len <= old_len {
            return Ok(());
        }
        let after = self.total_size().saturating_add(new_len - old_len);
        if after > limit {
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                format!("simulated full disk: {after} bytes needed, limit is {limit}"),
            ));
        }
        Ok(())
    }

    /// The power cut: decide what survives, kill every handle, release every lock.
    fn crash(&mut self, mode: CrashMode) {
        self.epoch += 1;
        self.torn = false;
        // Every handle is dead, so unlinked files are gone for good.
        self.files.retain(|_, f| f.linked);
        let State { files, rng, .. } = self;
        for file in files.values_mut() {
            let image = match mode {
                CrashMode::LoseUnsynced => None,
                CrashMode::KeepSome => survivors(&file.durable, &file.pending, rng).ok(),
            };
            // A reconstruction can only fail to allocate; losing the unsynced part is then
            // still a state a real power cut could leave.
            let image = image.unwrap_or_else(|| std::mem::take(&mut file.durable));
            file.volatile = image.clone();
            file.durable = image;
            file.pending.clear();
            file.lock_owner = None;
            file.open_handles = 0;
        }
    }
}

/// The durable image with each pending operation applied, dropped or torn.
fn survivors(durable: &[u8], pending: &[Pending], rng: &mut SplitMix64) -> io::Result<Vec<u8>> {
    let mut image = durable.to_vec();
    for op in pending {
        match op {
            Pending::SetLen(_) => {
                if rng.below(2) == 0 {
                    op.apply(&mut image)?;
                }
            }
            Pending::Write { offset, data } => {
                let end = offset.saturating_add(data.len() as u64);
                // Sector boundaries strictly inside the write: the places it can tear.
                let first = (offset / SECTOR + 1).saturating_mul(SECTOR);
                let tear_points = if end > first {
                    (end - 1 - first) / SECTOR + 1
                } else {
                    0
                };
                let choices = if tear_points > 0 { 3 } else { 2 };
                match rng.below(choices) {
                    0 => op.apply(&mut image)?,
                    1 => {}
                    _ => {
                        let cut = first + rng.below(tear_points) * SECTOR;
                        let keep = usize::try_from(cut - offset).unwrap_or(data.len());
                        let prefix = data.get(..keep).unwrap_or(data);
                        write_at(&mut image, prefix, *offset)?;
                    }
                }
            }
        }
    }
    Ok(image)
}

impl FaultController {
    /// Simulates a power cut: every handle opened before it fails from now on, every file's
    /// content becomes what `mode` says survives, all locks are released, and a torn-write
    /// state ends. Armed faults stay armed.
    pub fn crash(&self, mode: CrashMode) {
        self.shared.lock().crash(mode);
    }

    /// Lets `n` syncs (over all files) succeed, then fails the next one, which makes nothing
    /// durable: the file's unsynced operations stay pending, so a later successful sync of
    /// that file still covers them. Only that one sync fails.
    pub fn fail_sync_after(&self, n: u64) {
        self.shared.lock().fail_sync_in = Some(n);
    }

    /// Lets `n` writes (over all files) through, then tears the next one: only its first
    /// `keep_bytes` bytes reach the file, the write returns an error, and every later operation
    /// on the file system fails until [`crash`](Self::crash) is called — a power cut in the
    /// middle of a write.
    pub fn tear_write_after(&self, n: u64, keep_bytes: usize) {
        self.shared.lock().tear_write_in = Some((n, keep_bytes));
    }

    /// Caps the total size of all files; a write or `set_len` that would exceed it fails with
    /// `io::ErrorKind::StorageFull` and changes nothing. `None` removes the cap.
    pub fn set_space_limit(&self, bytes: Option<u64>) {
        self.shared.lock().space_limit = bytes;
    }

    /// Disarms every injected fault (sync failure, torn write, space limit). A torn write that
    /// already happened still needs [`crash`](Self::crash).
    pub fn clear_faults(&self) {
        let mut state = self.shared.lock();
        state.fail_sync_in = None;
        state.tear_write_in = None;
        state.space_limit = None;
    }

    /// Writes issued on live handles since the file system was created, including ones that
    /// failed because of an injected fault.
    pub fn writes(&self) -> u64 {
        self.shared.lock().writes
    }

    /// Syncs issued on live handles since the file system was created, including ones that
    /// failed because of an injected fault.
    pub fn syncs(&self) -> u64 {
        self.shared.lock().syncs
    }

    /// Total bytes of all files as reads see them (what a space limit is measured against).
    pub fn total_size(&self) -> u64 {
        self.shared.lock().total_size()
    }
}

impl Vfs for FaultVfs {
    fn open(&self, path: &Path, create: bool) -> io::Result<Arc<dyn VfsFile>> {
        let mut state = self.shared.lock();
        state.check_not_torn()?;
        let id = match state.names.get(path) {
            Some(&id) => id,
            None if create => {
                state.next_file += 1;
                let id = state.next_file;
                state.names.insert(path.to_path_buf(), id);
                state.files.insert(
                    id,
                    FileState {
                        linked: true,
                        ..FileState::default()
                    },
                );
                id
            }
            None => return Err(not_found(path)),
        };
        let file = state
            .files
            .get_mut(&id)
            .ok_or_else(|| io::Error::other("fault vfs: named file has no contents"))?;
        file.open_handles += 1;
        state.next_handle += 1;
        Ok(Arc::new(FaultFile {
            shared: Arc::clone(&self.shared),
            file: id,
            handle: state.next_handle,
            epoch: state.epoch,
            path: path.to_path_buf(),
        }))
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        let state = self.shared.lock();
        state.check_not_torn()?;
        Ok(state.names.contains_key(path))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut state = self.shared.lock();
        state.check_not_torn()?;
        if let Some(id) = state.names.remove(path) {
            let orphaned = match state.files.get_mut(&id) {
                Some(file) => {
                    file.linked = false;
                    file.open_handles == 0
                }
                None => false,
            };
            if orphaned {
                state.files.remove(&id);
            }
        }
        Ok(())
    }
}

/// An open handle on a [`FaultVfs`] file.
struct FaultFile {
    shared: Arc<Mutex<State>>,
    file: FileId,
    handle: u64,
    epoch: u64,
    path: PathBuf,
}

impl fmt::Debug for FaultFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FaultFile")
            .field("path", &self.path)
            .field("handle", &self.handle)
            .field("epoch", &self.epoch)
            .finish()
    }
}

impl FaultFile {
    /// Fails if this handle died in a crash or the power is going out.
    fn check_live(&self, state: &State) -> io::Result<()> {
        if state.epoch != self.epoch {
            return Err(io::Error::other(format!(
                "simulated crash: {} was opened before a power cut",
                self.path.display()
            )));
        }
        state.check_not_torn()
    }

    fn state<'a>(&self, state: &'a mut State) -> io::Result<&'a mut FileState> {
        state
            .files
            .get_mut(&self.file)
            .ok_or_else(|| io::Error::other("fault vfs: open file has no contents"))
    }
}

impl VfsFile for FaultFile {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let mut state = self.shared.lock();
        self.check_live(&state)?;
        read_at(&self.state(&mut state)?.volatile, buf, offset)
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let mut state = self.shared.lock();
        self.check_live(&state)?;
        state.writes += 1;
        let mut tear = None;
        if let Some((n, keep)) = state.tear_write_in {
            state.tear_write_in = match n.checked_sub(1) {
                Some(rest) => Some((rest, keep)),
                None => {
                    tear = Some(keep);
                    None
                }
            };
        }
        let data = match tear {
            Some(keep) => buf.get(..keep).unwrap_or(buf),
            None => buf,
        };
        if tear.is_some() {
            // The power is going out whatever happens to the bytes below.
            state.torn = true;
        }
        let applied = self.apply_write(&mut state, data, offset);
        if tear.is_some() {
            return Err(io::Error::other(format!(
                "simulated crash: write of {} bytes at offset {offset} torn after {} bytes",
                buf.len(),
                data.len()
            )));
        }
        applied
    }

    fn sync(&self) -> io::Result<()> {
        let mut state = self.shared.lock();
        self.check_live(&state)?;
        state.syncs += 1;
        if let Some(n) = state.fail_sync_in {
            state.fail_sync_in = n.checked_sub(1);
            if n == 0 {
                return Err(io::Error::other("simulated fsync failure"));
            }
        }
        let file = self.state(&mut state)?;
        // Applying the pending operations rather than copying the volatile image keeps a sync
        // proportional to what changed; on failure the unapplied rest stays pending, so
        // `durable` is always reachable by some prefix of the issued operations.
        let mut done = 0;
        let mut result = Ok(());
        for op in &file.pending {
            if let Err(e) = op.apply(&mut file.durable) {
                result = Err(e);
                break;
            }
            done += 1;
        }
        file.pending.drain(..done);
        result
    }

    fn len(&self) -> io::Result<u64> {
        let mut state = self.shared.lock();
        self.check_live(&state)?;
        Ok(self.state(&mut state)?.volatile.len() as u64)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut state = self.shared.lock();
        self.check_live(&state)?;
        let old_len = self.state(&mut state)?.volatile.len() as u64;
        state.check_space(old_len, len)?;
        let file = self.state(&mut state)?;
        resize(&mut file.volatile, len)?;
        file.pending.push(Pending::SetLen(len));
        Ok(())
    }

    fn try_lock_exclusive(&self) -> io::Result<bool> {
        let mut state = self.shared.lock();
        self.check_live(&state)?;
        let file = self.state(&mut state)?;
        Ok(take_lock(&mut file.lock_owner, self.handle))
    }
}

impl FaultFile {
    /// Applies a write to the volatile image and records it as pending, unless it would
    /// exceed the space limit.
    fn apply_write(&self, state: &mut State, data: &[u8], offset: u64) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let old_len = self.state(state)?.volatile.len() as u64;
        let new_len = old_len.max(offset.saturating_add(data.len() as u64));
        state.check_space(old_len, new_len)?;
        let file = self.state(state)?;
        write_at(&mut file.volatile, data, offset)?;
        file.pending.push(Pending::Write {
            offset,
            data: data.to_vec(),
        });
        Ok(())
    }
}

impl Drop for FaultFile {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        // A crash already released everything a dead handle held.
        if state.epoch != self.epoch {
            return;
        }
        let remove = match state.files.get_mut(&self.file) {
            Some(file) => {
                release_lock(&mut file.lock_owner, self.handle);
                file.open_handles = file.open_handles.saturating_sub(1);
                !file.linked && file.open_handles == 0
            }
            None => false,
        };
        if remove {
            state.files.remove(&self.file);
        }
    }
}

/// SplitMix64: tiny, fast and good enough to pick crash outcomes; kept here because `rand` is
/// only a dev-dependency.
#[derive(Clone, Copy)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`0` when `n` is 0), by multiply-shift to avoid modulo bias.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> PathBuf {
        PathBuf::from(name)
    }

    fn read_all(f: &Arc<dyn VfsFile>) -> Vec<u8> {
        let mut buf = vec![0u8; f.len().unwrap() as usize];
        f.read_exact_at(&mut buf, 0).unwrap();
        buf
    }

    fn is_crash(e: &io::Error) -> bool {
        e.to_string().contains("simulated crash")
    }

    #[test]
    fn behaves_like_a_file_system() {
        let (vfs, _ctl) = FaultVfs::new(1);
        assert_eq!(
            vfs.open(&p("db"), false).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        let f = vfs.open(&p("db"), true).unwrap();
        f.write_all_at(b"ab", 0).unwrap();
        f.write_all_at(b"cd", 4).unwrap();
        assert_eq!(read_all(&f), b"ab\0\0cd");
        let err = f.read_exact_at(&mut [0u8; 4], 4).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        f.set_len(1).unwrap();
        assert_eq!(read_all(&f), b"a");
        assert!(vfs.exists(&p("db")).unwrap());
        vfs.remove(&p("db")).unwrap();
        vfs.remove(&p("db")).unwrap();
        assert!(!vfs.exists(&p("db")).unwrap());
        // The open handle still works on the unlinked file.
        assert_eq!(read_all(&f), b"a");
    }

    #[test]
    fn unsynced_writes_vanish_and_synced_ones_survive() {
        let (vfs, ctl) = FaultVfs::new(7);
        let f = vfs.open(&p("db"), true).unwrap();
        f.write_all_at(b"synced", 0).unwrap();
        f.sync().unwrap();
        f.write_all_at(b"SYN", 0).unwrap();
        f.write_all_at(b"-lost", 6).unwrap();
        f.set_len(100).unwrap();
        let other = vfs.open(&p("other"), true).unwrap();
        other.write_all_at(b"never synced", 0).unwrap();

        ctl.crash(CrashMode::LoseUnsynced);

        let err = f.read_exact_at(&mut [0u8; 1], 0).unwrap_err();
        assert!(is_crash(&err), "{err}");
        assert!(is_crash(&f.sync().unwrap_err()));
        assert!(is_crash(&f.write_all_at(b"x", 0).unwrap_err()));
        assert!(is_crash(&f.len().unwrap_err()));
        assert!(is_crash(&f.set_len(0).unwrap_err()));
        assert!(is_crash(&f.try_lock_exclusive().unwrap_err()));

        let f = vfs.open(&p("db"), false).unwrap();
        assert_eq!(read_all(&f), b"synced");
        // Creating a file is durable at once; its unsynced content is not.
        let other = vfs.open(&p("other"), false).unwrap();
        assert_eq!(other.len().unwrap(), 0);
        // Fresh handles work normally.
        f.write_all_at(b"!", 6).unwrap();
        f.sync().unwrap();
        ctl.crash(CrashMode::LoseUnsynced);
        assert_eq!(read_all(&vfs.open(&p("db"), false).unwrap()), b"synced!");
    }

    #[test]
    fn synced_set_len_survives() {
        let (vfs, ctl) = FaultVfs::new(7);
        let f = vfs.open(&p("db"), true).unwrap();
        f.write_all_at(&[9u8; 1000], 0).unwrap();
        f.sync().unwrap();
        f.set_len(10).unwrap();
        f.sync().unwrap();
        ctl.crash(CrashMode::LoseUnsynced);
        assert_eq!(read_all(&vfs.open(&p("db"), false).unwrap()), vec![9u8; 10]);
    }

    #[test]
    fn failed_sync_makes_nothing_durable() {
        let (vfs, ctl) = FaultVfs::new(3);
        let f = vfs.open(&p("db"), true).unwrap();
        f.write_all_at(b"one", 0).unwrap();
        f.sync().unwrap();
        ctl.fail_sync_after(1);
        f.write_all_at(b"two", 3).unwrap();
        f.sync().unwrap(); // the first sync from now succeeds
        f.write_all_at(b"three", 6).unwrap();
        let err = f.sync().unwrap_err();
        assert!(err.to_string().contains("fsync"), "{err}");
        assert_eq!(ctl.syncs(), 3);
        // Reads still see the unsynced bytes; only durability failed.
        assert_eq!(read_all(&f), b"onetwothree");
        ctl.crash(CrashMode::LoseUnsynced);
        assert_eq!(read_all(&vfs.open(&p("db"), false).unwrap()), b"onetwo");

        // Only that one sync fails.
        let f = vfs.open(&p("db"), false).unwrap();
        f.write_all_at(b"3", 6).unwrap();
        f.sync().unwrap();
        ctl.crash(CrashMode::LoseUnsynced);
        assert_eq!(read_all(&vfs.open(&p("db"), false).unwrap()), b"onetwo3");
    }

    #[test]
    fn torn_write_keeps_the_prefix_and_stops_everything_until_crash() {
        let (vfs, ctl) = FaultVfs::new(5);
        let f = vfs.open(&p("db"), true).unwrap();
        let g = vfs.open(&p("log"), true).unwrap();
        f.write_all_at(&[1u8; 8], 0).unwrap();
        f.sync().unwrap();
        ctl.tear_write_after(1, 3);
        g.write_all_at(b"fine", 0).unwrap();
        let err = f.write_all_at(&[2u8; 8], 4).unwrap_err();
        assert!(is_crash(&err), "{err}");
        assert_eq!(ctl.writes(), 3);

        // Everything fails now, on every file and on the file system itself.
        assert!(is_crash(&f.read_exact_at(&mut [0u8; 1], 0).unwrap_err()));
        assert!(is_crash(&g.len().unwrap_err()));
        assert!(is_crash(&g.sync().unwrap_err()));
        assert!(is_crash(&g.write_all_at(b"x", 0).unwrap_err()));
        assert!(is_crash(&vfs.open(&p("db"), false).unwrap_err()));
        assert!(is_crash(&vfs.exists(&p("db")).unwrap_err()));
        assert!(is_crash(&vfs.remove(&p("db")).unwrap_err()));
        // The torn write is the only fault: later writes fail because of the power cut, not
        // because another tear is armed, and the counter does not move for them.
        assert_eq!(ctl.writes(), 3);

        // Only the prefix was ever issued to the disk, so whatever survives holds either all
        // of it or none of it (it lies within one sector).
        ctl.crash(CrashMode::KeepSome);
        let f = vfs.open(&p("db"), false).unwrap();
        let got = read_all(&f);
        assert!(
            got == [1u8; 8] || got == [1, 1, 1, 1, 2, 2, 2, 1],
            "{got:?}"
        );
    }

    #[test]
    fn torn_write_prefix_is_visible_in_the_volatile_image() {
        // Inspect the volatile image directly: between the tear and the crash no handle may
        // read, so look at the state the way crash() will.
        let (vfs, ctl) = FaultVfs::new(5);
        let f = vfs.open(&p("db"), true).unwrap();
        ctl.tear_write_after(0, 5);
        assert!(f.write_all_at(b"abcdefgh", 2).is_err());
        {
            let state = vfs.shared.lock();
            let file = state.files.values().next().unwrap();
            assert_eq!(file.volatile, b"\0\0abcde");
            assert!(file.durable.is_empty());
        }
        // keep_bytes beyond the write's length keeps it all (but still crashes).
        ctl.crash(CrashMode::LoseUnsynced);
        let f = vfs.open(&p("db"), false).unwrap();
        assert_eq!(f.len().unwrap(), 0);
        ctl.tear_write_after(0, 100);
        assert!(f.write_all_at(b"xyz", 0).is_err());
        assert_eq!(
            vfs.shared.lock().files.values().next().unwrap().volatile,
            b"xyz"
        );
        ctl.crash(CrashMode::LoseUnsynced);
        vfs.open(&p("db"), false)
            .unwrap()
            .write_all_at(b"ok", 0)
            .unwrap();
    }

    #[test]
    fn space_limit_gives_storage_full_and_changes_nothing() {
        let (vfs, ctl) = FaultVfs::new(9);
        let a = vfs.open(&p("a"), true).unwrap();
        let b = vfs.open(&p("b"), true).unwrap();
        a.write_all_at(&[1u8; 60], 0).unwrap();
        ctl.set_space_limit(Some(100));
        b.write_all_at(&[2u8; 40], 0).unwrap();
        let err = b.write_all_at(&[3u8; 1], 40).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        assert_eq!(read_all(&b), vec![2u8; 40]);
        // Overwriting in place needs no space.
        b.write_all_at(&[4u8; 40], 0).unwrap();
        let err = a.set_len(61).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        assert_eq!(a.len().unwrap(), 60);
        // Shrinking frees space.
        a.set_len(50).unwrap();
        b.write_all_at(&[5u8; 10], 40).unwrap();
        ctl.clear_faults();
        b.write_all_at(&[6u8; 1000], 50).unwrap();
    }

    #[test]
    fn locks_are_exclusive_and_released_by_drop_and_crash() {
        let (vfs, ctl) = FaultVfs::new(2);
        let first = vfs.open(&p("db"), true).unwrap();
        let second = vfs.open(&p("db"), false).unwrap();
        assert!(first.try_lock_exclusive().unwrap());
        assert!(!second.try_lock_exclusive().unwrap());
        drop(first);
        assert!(second.try_lock_exclusive().unwrap());
        ctl.crash(CrashMode::LoseUnsynced);
        let third = vfs.open(&p("db"), false).unwrap();
        assert!(third.try_lock_exclusive().unwrap());
        // A dead handle dropping later must not release the new holder's lock.
        drop(second);
        let fourth = vfs.open(&p("db"), false).unwrap();
        assert!(!fourth.try_lock_exclusive().unwrap());
    }

    #[test]
    fn unlinked_files_disappear_with_their_last_handle() {
        let (vfs, _ctl) = FaultVfs::new(2);
        let f = vfs.open(&p("db"), true).unwrap();
        f.write_all_at(b"x", 0).unwrap();
        vfs.remove(&p("db")).unwrap();
        assert_eq!(vfs.shared.lock().files.len(), 1);
        drop(f);
        assert!(vfs.shared.lock().files.is_empty());
    }

    /// Runs a fixed workload of non-overlapping writes on two files, crashes with KeepSome,
    /// and returns (durable, volatile, survived) per file.
    #[allow(
        clippy::type_complexity,
        reason = "a test helper's one-off return type"
    )]
    fn keep_some_run(seed: u64) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
        let (vfs, ctl) = FaultVfs::new(seed);
        let names = ["db", "wal"];
        let files: Vec<_> = names
            .iter()
            .map(|n| vfs.open(&p(n), true).unwrap())
            .collect();
        for (i, f) in files.iter().enumerate() {
            f.write_all_at(&vec![0x11 * (i as u8 + 1); 3000], 0)
                .unwrap();
            f.sync().unwrap();
            // Unsynced, non-overlapping, some crossing sector boundaries, one extending.
            f.write_all_at(&[0xA0; 700], 100).unwrap();
            f.write_all_at(&[0xB0; 1500], 1000).unwrap();
            f.write_all_at(&[0xC0; 2000], 3000).unwrap();
        }
        let before: Vec<_> = {
            let state = vfs.shared.lock();
            state
                .files
                .values()
                .map(|f| (f.durable.clone(), f.volatile.clone()))
                .collect()
        };
        ctl.crash(CrashMode::KeepSome);
        before
            .into_iter()
            .zip(names)
            .map(|((durable, volatile), n)| {
                (
                    durable,
                    volatile,
                    read_all(&vfs.open(&p(n), false).unwrap()),
                )
            })
            .collect()
    }

    #[test]
    fn keep_some_is_deterministic_per_seed() {
        for seed in 0..16 {
            assert_eq!(keep_some_run(seed), keep_some_run(seed));
        }
    }

    #[test]
    fn keep_some_survivors_lie_between_durable_and_volatile() {
        let mut outcomes = std::collections::HashSet::new();
        let mut saw_torn = false;
        for seed in 0..64 {
            for (durable, volatile, survived) in keep_some_run(seed) {
                assert!(survived.len() >= durable.len() && survived.len() <= volatile.len());
                for (i, &byte) in survived.iter().enumerate() {
                    let d = durable.get(i).copied().unwrap_or(0);
                    assert!(
                        byte == d || byte == volatile[i],
                        "seed {seed} byte {i}: {byte:#x}"
                    );
                }
                // The unsynced writes are 100..800, 1000..2500, 3000..5000. A tear shows up as
                // a write applied up to a sector boundary strictly inside it.
                let b = &survived;
                let partial = |start: usize, end: usize, v: u8| {
                    let n = b
                        .get(start..end.min(b.len()))
                        .map_or(0, |s| s.iter().take_while(|&&x| x == v).count());
                    n > 0 && n < end - start
                };
                if partial(1000, 2500, 0xB0) || partial(3000, 5000, 0xC0) {
                    saw_torn = true;
                }
                outcomes.insert(survived);
            }
        }
        assert!(saw_torn, "64 seeds never tore a write");
        assert!(
            outcomes.len() > 8,
            "too few distinct outcomes: {}",
            outcomes.len()
        );
    }

    #[test]
    fn keep_some_tears_only_at_sector_boundaries() {
        for seed in 0..64 {
            let (vfs, ctl) = FaultVfs::new(seed);
            let f = vfs.open(&p("db"), true).unwrap();
            f.write_all_at(&[7u8; 2000], 300).unwrap();
            ctl.crash(CrashMode::KeepSome);
            let len = vfs.open(&p("db"), false).unwrap().len().unwrap();
            assert!(
                [0, 512, 1024, 1536, 2048, 2300].contains(&len),
                "seed {seed}: len {len}"
            );
        }
    }

    #[test]
    fn counters_count_calls_over_all_files() {
        let (vfs, ctl) = FaultVfs::new(0);
        let a = vfs.open(&p("a"), true).unwrap();
        let b = vfs.open(&p("b"), true).unwrap();
        a.write_all_at(b"1", 0).unwrap();
        b.write_all_at(b"2", 0).unwrap();
        a.sync().unwrap();
        assert_eq!((ctl.writes(), ctl.syncs()), (2, 1));
        ctl.crash(CrashMode::LoseUnsynced);
        let _ = a.write_all_at(b"dead", 0);
        assert_eq!(ctl.writes(), 2, "dead handles do not count");
        assert_eq!(vfs.controller().syncs(), 1);
    }

    #[test]
    fn splitmix_below_stays_in_range() {
        let mut rng = SplitMix64(42);
        for n in 1..200 {
            assert!(rng.below(n) < n);
        }
        assert_eq!(rng.below(0), 0);
    }
}
