//! The pager: snapshots of pages over the main file and the write-ahead log.
//!
//! Every read names a [`Snapshot`]: the sequence number of the newest log frame it may see,
//! plus the file header as of that frame. To read page P, the pager asks the log index for
//! P's newest frame at or below the snapshot; if there is one the image comes from the log,
//! otherwise from the main file. Either way it goes through the shared [`PageCache`] and its
//! checksum is verified on the way in from disk.
//!
//! Commits append frames and *publish* them (index first, then the committed snapshot), so a
//! reader either sees a whole transaction or none of it. Checkpoints copy the newest frame of
//! each page back into the main file — but never past the oldest live reader's snapshot,
//! because a reader that finds no frame for a page reads the main file and must find the
//! image its snapshot expects there. Once everything is copied and no reader is behind, the
//! log starts a new generation (written over the old one in place, or truncated when it grew
//! long), so it does not grow without bound.
//!
//! Durability follows `synchronous`: FULL syncs the log at every commit; NORMAL syncs it only
//! before a checkpoint (a crash of the process loses nothing, a power cut may lose the last
//! commits but never corrupts); OFF never syncs. In every mode the log is synced before the
//! main file is overwritten and the main file is synced before the log is reset, so the main
//! file never holds a page the surviving log contradicts.
//!
//! The pager does not know about transactions or locking; `crate::txn` serialises writers and
//! calls [`Pager::commit`], [`Pager::spill`], [`Pager::rollback`] and [`Pager::checkpoint`]
//! while holding the single writer slot.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use parking_lot::Mutex;

use super::cache::{CacheKey, MAIN_FILE_VERSION, PageCache};
use super::error::{Result, StorageError};
use super::format::{self, HEADER_SIZE, Header};
use super::page::{MIN_PAGE_SIZE, PageBuf, PageNo, PageRef};
use super::vfs::{Vfs, VfsFile};
use super::wal::{RecoveryReport, Wal};

/// When the log is made durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Synchronous {
    /// Never sync: fastest, and a power cut may corrupt the database. Process crashes are safe.
    Off = 0,
    /// Sync the log before each checkpoint: a power cut may lose the newest commits.
    #[default]
    Normal = 1,
    /// Sync the log at every commit: a commit that returned is durable.
    Full = 2,
}

impl Synchronous {
    fn from_u8(value: u8) -> Synchronous {
        match value {
            0 => Synchronous::Off,
            2 => Synchronous::Full,
            _ => Synchronous::Normal,
        }
    }
}

/// Settings of a pager.
#[derive(Clone, Copy, Debug)]
pub struct PagerOptions {
    /// Page size for a new database (existing files keep theirs).
    pub page_size: usize,
    /// Page cache capacity in pages.
    pub cache_pages: usize,
    /// Durability mode.
    pub synchronous: Synchronous,
    /// Checkpoint automatically once the log holds this many committed frames (0 = never).
    pub autocheckpoint_frames: u64,
}

impl Default for PagerOptions {
    fn default() -> Self {
        PagerOptions {
            page_size: super::page::DEFAULT_PAGE_SIZE,
            cache_pages: 16384,
            synchronous: Synchronous::Normal,
            autocheckpoint_frames: 1000,
        }
    }
}

/// A consistent view of the database: frames up to `seq`, and the header as of then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// Newest log frame visible to this snapshot.
    pub seq: u64,
    /// The file header as of this snapshot.
    pub header: Header,
}

/// What a checkpoint did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckpointReport {
    /// Pages copied from the log into the main file.
    pub pages_written: usize,
    /// Whether the log was emptied (everything copied, no reader behind).
    pub log_reset: bool,
}

#[derive(Debug)]
struct SharedState {
    committed: Snapshot,
    /// Live snapshots: (sequence number, how many readers hold it). Small and unsorted; a
    /// `Vec` with spare capacity so beginning a read allocates nothing.
    readers: Vec<(u64, u32)>,
}

/// The page layer of one open database.
#[derive(Debug)]
pub struct Pager {
    path: String,
    db_file: Arc<dyn VfsFile>,
    wal: Wal,
    cache: PageCache,
    page_size: usize,
    synchronous: AtomicU8,
    autocheckpoint_frames: u64,
    state: Mutex<SharedState>,
    poisoned: Mutex<Option<String>>,
    recovery: RecoveryReport,
}

impl Pager {
    /// Opens (creating if needed) the database at `path` and its log at `path` + "-wal",
    /// takes the file lock, and recovers committed transactions from the log.
    pub fn open(vfs: &dyn Vfs, path: &Path, options: PagerOptions) -> Result<Pager> {
        let display = path.display().to_string();
        let io = |operation: &'static str| {
            let display = display.clone();
            move |error: std::io::Error| StorageError::io(operation, &display, error)
        };
        let wal_path = wal_path(path);
        let db_file = vfs.open(path, true).map_err(io("opening the database"))?;
        if !db_file
            .try_lock_exclusive()
            .map_err(io("locking the database"))?
        {
            return Err(StorageError::LockedByAnotherProcess { path: display });
        }
        let file_len = db_file.len().map_err(io("reading the database length"))?;
        let page_size = if file_len == 0 {
            if !format::valid_page_size(options.page_size) {
                return Err(StorageError::InvalidArgument(format!(
                    "page size {} is not a power of two from 4096 to 65536",
                    options.page_size
                )));
            }
            // A log beside an empty file belongs to an earlier database of the same name: we
            // only ever write to the log after the header below is durable.
            vfs.remove(&wal_path).map_err(io("removing a stale log"))?;
            let mut page = PageBuf::zeroed(options.page_size);
            #[allow(
                clippy::cast_possible_truncation,
                reason = "the page size was checked against MAX_PAGE_SIZE (65,536)"
            )]
            let page_size = options.page_size as u32;
            Header::new(page_size).encode(&mut page);
            page.seal(0);
            db_file
                .write_all_at(page.raw(), 0)
                .map_err(io("creating the database"))?;
            if options.synchronous != Synchronous::Off {
                db_file.sync().map_err(io("syncing the new database"))?;
            }
            options.page_size
        } else {
            if file_len < MIN_PAGE_SIZE as u64 {
                return Err(StorageError::NotADatabase {
                    path: display,
                    reason: "file is too short".into(),
                });
            }
            let mut start = [0u8; HEADER_SIZE];
            db_file
                .read_exact_at(&mut start, 0)
                .map_err(io("reading the header"))?;
            if &start[..16] != format::MAGIC {
                return Err(StorageError::NotADatabase {
                    path: display,
                    reason: "no Basalt magic string".into(),
                });
            }
            format::read_page_size(&start)? as usize
        };

        let wal_file = vfs.open(&wal_path, true).map_err(io("opening the log"))?;
        let (wal, recovery) = Wal::open(wal_file, wal_path.display().to_string(), page_size, 1)?;
        let provisional = Snapshot {
            seq: wal.committed_seq(),
            header: Header::new(u32::try_from(page_size).unwrap_or(u32::MAX)),
        };
        let mut pager = Pager {
            path: display,
            db_file,
            wal,
            cache: PageCache::new(options.cache_pages),
            page_size,
            synchronous: AtomicU8::new(options.synchronous as u8),
            autocheckpoint_frames: options.autocheckpoint_frames,
            state: Mutex::new(SharedState {
                committed: provisional,
                readers: Vec::with_capacity(64),
            }),
            poisoned: Mutex::new(None),
            recovery,
        };
        let page_zero = pager.read_page(0, &provisional)?;
        let header = Header::decode(&page_zero, page_size)?;
        drop(page_zero);
        if let Some(count) = recovery.page_count
            && count != header.page_count
        {
            return Err(StorageError::corrupt(format!(
                "log commit frame says {count} pages, header says {}",
                header.page_count
            )));
        }
        pager.state.get_mut().committed = Snapshot {
            seq: provisional.seq,
            header,
        };
        if !pager.wal.is_empty() {
            // Fold the recovered log into the main file now, while nobody else can read.
            pager.checkpoint()?;
        }
        Ok(pager)
    }

    /// Page size of this database.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// What recovery found in the log when this pager was opened.
    pub fn recovery_report(&self) -> RecoveryReport {
        self.recovery
    }

    /// The current durability mode.
    pub fn synchronous(&self) -> Synchronous {
        Synchronous::from_u8(self.synchronous.load(Ordering::Relaxed))
    }

    /// Pages the shared page cache holds at most.
    pub fn cache_pages(&self) -> usize {
        self.cache.capacity()
    }

    /// Resizes the shared page cache (`PRAGMA cache_size`).
    pub fn set_cache_pages(&self, pages: usize) {
        self.cache.set_capacity(pages);
    }

    /// Changes the durability mode for later commits.
    pub fn set_synchronous(&self, mode: Synchronous) {
        self.synchronous.store(mode as u8, Ordering::Relaxed);
    }

    /// The newest committed snapshot, registered as live until [`Pager::end_snapshot`].
    pub fn begin_snapshot(&self) -> Snapshot {
        let mut state = self.state.lock();
        let snapshot = state.committed;
        match state
            .readers
            .iter_mut()
            .find(|(seq, _)| *seq == snapshot.seq)
        {
            Some((_, count)) => *count += 1,
            None => state.readers.push((snapshot.seq, 1)),
        }
        snapshot
    }

    /// Releases a snapshot taken with [`Pager::begin_snapshot`].
    pub fn end_snapshot(&self, snapshot: &Snapshot) {
        let mut state = self.state.lock();
        if let Some(position) = state
            .readers
            .iter()
            .position(|(seq, _)| *seq == snapshot.seq)
        {
            state.readers[position].1 -= 1;
            if state.readers[position].1 == 0 {
                state.readers.swap_remove(position);
            }
        }
    }

    /// The newest committed snapshot, not registered (for the single writer, whose view is
    /// always the newest and which checkpoints only between its own transactions).
    pub fn committed_snapshot(&self) -> Snapshot {
        self.state.lock().committed
    }

    /// Page `page_no` as of `snapshot`.
    pub fn read_page(&self, page_no: PageNo, snapshot: &Snapshot) -> Result<PageRef> {
        if page_no >= snapshot.header.page_count {
            return Err(StorageError::corrupt_page(
                page_no,
                format!(
                    "beyond the end of the database ({} pages)",
                    snapshot.header.page_count
                ),
            ));
        }
        // A frame can vanish between lookup and read only through a log reset, after which the
        // main file holds the right image; two attempts always suffice, three is a safety margin.
        for _ in 0..3 {
            let frame = self.wal.lookup(page_no, snapshot.seq);
            let key = CacheKey {
                page_no,
                version: frame.unwrap_or(MAIN_FILE_VERSION),
            };
            if let Some(page) = self.cache.get(key) {
                return Ok(page);
            }
            let mut page = PageBuf::zeroed(self.page_size);
            match frame {
                Some(seq) => {
                    if !self.wal.read_frame(seq, page_no, &mut page)? {
                        continue;
                    }
                }
                None => self.read_main_page(page_no, &mut page)?,
            }
            if !page.verify(page_no) {
                return Err(StorageError::corrupt_page(page_no, "checksum mismatch"));
            }
            return Ok(self.cache.insert(key, Arc::new(page)));
        }
        Err(StorageError::corrupt_page(
            page_no,
            "log frame kept disappearing while being read",
        ))
    }

    fn read_main_page(&self, page_no: PageNo, page: &mut PageBuf) -> Result<()> {
        let offset = u64::from(page_no) * self.page_size as u64;
        self.db_file
            .read_exact_at(page.raw_mut(), offset)
            .map_err(|error| {
                if error.kind() == std::io::ErrorKind::UnexpectedEof {
                    StorageError::corrupt_page(page_no, "missing from the database file")
                } else {
                    StorageError::io("reading a page", &self.path, error)
                }
            })
    }

    /// Reads a frame the current write transaction spilled to the log before committing.
    pub fn read_spilled(&self, page_no: PageNo, seq: u64) -> Result<PageRef> {
        let key = CacheKey {
            page_no,
            version: seq,
        };
        if let Some(page) = self.cache.get(key) {
            return Ok(page);
        }
        let mut page = PageBuf::zeroed(self.page_size);
        if !self.wal.read_frame(seq, page_no, &mut page)? || !page.verify(page_no) {
            return Err(StorageError::corrupt_page(
                page_no,
                "spilled log frame is damaged",
            ));
        }
        Ok(self.cache.insert(key, Arc::new(page)))
    }

    fn check_poisoned(&self) -> Result<()> {
        match &*self.poisoned.lock() {
            Some(reason) => Err(StorageError::Poisoned(reason.clone())),
            None => Ok(()),
        }
    }

    fn poison(&self, error: &StorageError) {
        self.poisoned
            .lock()
            .get_or_insert_with(|| error.to_string());
    }

    /// Writes `pages` to the log as uncommitted frames, so a large transaction need not keep
    /// every changed page in memory. Returns their sequence numbers, in order.
    pub fn spill(&self, pages: &mut [(PageNo, PageRef)]) -> Result<Vec<u64>> {
        self.check_poisoned()?;
        for (page_no, page) in pages.iter_mut() {
            Arc::make_mut(page).seal(*page_no);
        }
        let frames: Vec<(PageNo, &PageBuf)> = pages
            .iter()
            .map(|(page_no, page)| (*page_no, &**page))
            .collect();
        let first_seq = self.wal.append(&frames, None)?;
        let seqs: Vec<u64> = (first_seq..first_seq + pages.len() as u64).collect();
        for ((page_no, page), &seq) in pages.iter().zip(&seqs) {
            self.cache.insert(
                CacheKey {
                    page_no: *page_no,
                    version: seq,
                },
                page.clone(),
            );
        }
        Ok(seqs)
    }

    /// Commits a transaction: `pages` are the changed pages still in memory (page 0 with the
    /// new header among them), `spilled` the pages whose newest image is an earlier spilled
    /// frame. On success the transaction is visible to every later snapshot.
    pub fn commit(
        &self,
        pages: &mut [(PageNo, PageRef)],
        spilled: &[(PageNo, u64)],
        header: Header,
    ) -> Result<()> {
        self.check_poisoned()?;
        pages.sort_unstable_by_key(|(page_no, _)| *page_no);
        for (page_no, page) in pages.iter_mut() {
            Arc::make_mut(page).seal(*page_no);
        }
        let frames: Vec<(PageNo, &PageBuf)> = pages
            .iter()
            .map(|(page_no, page)| (*page_no, &**page))
            .collect();
        let first_seq = self.wal.append(&frames, Some(header.page_count))?;
        if self.synchronous() == Synchronous::Full
            && let Err(error) = self.wal.sync()
        {
            // After a failed fsync the kernel may have dropped the written pages; nothing we
            // believe about the log can be trusted until it is recovered from disk again.
            self.poison(&error);
            return Err(error);
        }
        let last_seq = first_seq + pages.len() as u64 - 1;
        let committed_frames = pages
            .iter()
            .enumerate()
            .map(|(position, (page_no, _))| (*page_no, first_seq + position as u64));
        let still_spilled = spilled
            .iter()
            .filter(|(page_no, _)| pages.binary_search_by_key(page_no, |(p, _)| *p).is_err());
        self.wal
            .publish(still_spilled.copied().chain(committed_frames), last_seq);
        for (position, (page_no, page)) in pages.iter().enumerate() {
            self.cache.insert(
                CacheKey {
                    page_no: *page_no,
                    version: first_seq + position as u64,
                },
                page.clone(),
            );
        }
        self.state.lock().committed = Snapshot {
            seq: last_seq,
            header,
        };
        Ok(())
    }

    /// Undoes an uncommitted transaction's spills.
    pub fn rollback(&self, spilled: &[(PageNo, u64)]) {
        self.wal.rollback_uncommitted();
        for &(page_no, seq) in spilled {
            // Sequence numbers of rolled-back frames will be reused by the next transaction.
            self.cache.remove(CacheKey {
                page_no,
                version: seq,
            });
        }
    }

    /// Number of page images in the cache.
    #[cfg(test)]
    pub fn cached_pages(&self) -> usize {
        self.cache.len()
    }

    /// Number of cached page images that something besides the cache holds (and that
    /// therefore cannot be evicted).
    #[cfg(test)]
    pub fn pinned_cached_pages(&self) -> usize {
        self.cache.pinned_len()
    }

    /// Whether the log has grown past the automatic checkpoint threshold.
    pub fn wants_checkpoint(&self) -> bool {
        self.autocheckpoint_frames > 0 && self.wal.committed_frames() >= self.autocheckpoint_frames
    }

    /// Committed frames in the log since it was last emptied.
    pub fn log_frames(&self) -> u64 {
        self.wal.committed_frames()
    }

    /// Whether the log has grown to four times the automatic checkpoint threshold: a
    /// checkpoint left to the background has fallen behind and the committer must run it.
    pub fn log_far_past_checkpoint(&self) -> bool {
        self.autocheckpoint_frames > 0
            && self.wal.committed_frames() >= self.autocheckpoint_frames.saturating_mul(4)
    }

    /// Copies committed frames into the main file, up to the oldest live snapshot, and
    /// empties the log when nothing in it is needed any more. The caller holds the writer slot.
    pub fn checkpoint(&self) -> Result<CheckpointReport> {
        self.check_poisoned()?;
        let (limit, committed) = {
            let state = self.state.lock();
            let oldest_reader = state.readers.iter().map(|(seq, _)| *seq).min();
            let committed = state.committed;
            (
                oldest_reader.unwrap_or(committed.seq).min(committed.seq),
                committed,
            )
        };
        let mut report = CheckpointReport::default();
        let frames = self.wal.frames_to_backfill(limit);
        if !frames.is_empty() {
            if self.synchronous() != Synchronous::Off {
                self.wal.sync()?;
            }
            let snapshot_at_limit = Snapshot {
                seq: limit,
                header: committed.header,
            };
            let mut page_count_at_limit = None;
            for &(page_no, seq) in &frames {
                let key = CacheKey {
                    page_no,
                    version: seq,
                };
                let page = match self.cache.get(key) {
                    Some(page) => page,
                    None => self.read_page(page_no, &snapshot_at_limit)?,
                };
                if page_no == 0 {
                    page_count_at_limit = Some(Header::decode(&page, self.page_size)?.page_count);
                }
                let offset = u64::from(page_no) * self.page_size as u64;
                self.db_file
                    .write_all_at(page.raw(), offset)
                    .map_err(|e| StorageError::io("writing a checkpoint", &self.path, e))?;
                // The main file now holds this image: cache it under the main file's version,
                // or every hot page would be read back from disk (and its checksum verified)
                // once the log is reset. The frame's entry goes: a reader still on this frame
                // reads it from the log again, which is rare and correct. (No reader needs
                // the page's old main-file image: the checkpoint stops at the oldest reader's
                // snapshot, which sees this frame.)
                let main_file_key = CacheKey {
                    page_no,
                    version: MAIN_FILE_VERSION,
                };
                self.cache.move_to(key, main_file_key, page);
                report.pages_written += 1;
            }
            if let Some(page_count) = page_count_at_limit {
                let wanted_len = u64::from(page_count) * self.page_size as u64;
                let file_len = self
                    .db_file
                    .len()
                    .map_err(|e| StorageError::io("checkpoint", &self.path, e))?;
                if file_len > wanted_len {
                    self.db_file
                        .set_len(wanted_len)
                        .map_err(|e| StorageError::io("truncating the database", &self.path, e))?;
                    self.cache.remove_main_file_pages_from(page_count);
                }
            }
            if self.synchronous() != Synchronous::Off {
                self.db_file
                    .sync()
                    .map_err(|e| StorageError::io("syncing a checkpoint", &self.path, e))?;
            }
            self.wal.set_backfilled(limit);
        }
        if limit == committed.seq
            && self.wal.backfilled_seq() == committed.seq
            && self.wal.committed_frames() > 0
        {
            self.wal.reset(committed.seq + 1)?;
            report.log_reset = true;
        }
        Ok(report)
    }
}

/// The log's path: the database path with "-wal" appended.
pub fn wal_path(path: &Path) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    std::path::PathBuf::from(name)
}
