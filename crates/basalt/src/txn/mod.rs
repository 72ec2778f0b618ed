//! Transactions: snapshots for readers, one writer at a time.
//!
//! A [`Store`] is one open database file, shared by every thread (it is a cheap `Arc`
//! handle). [`Store::begin_read`] gives a [`ReadTxn`]: a registered snapshot of the newest
//! commit, unaffected by anything committed after it, for as long as it lives. Any number of
//! them may exist at once, on any threads.
//!
//! [`Store::begin_write`] gives the single [`WriteTxn`], waiting up to the busy timeout for the
//! previous writer to finish and failing with `Busy` after that. The writer changes pages by
//! copy-on-write into a private dirty set; nobody else sees them until [`WriteTxn::commit`]
//! appends them to the log and publishes them atomically. Dropping a write transaction without
//! committing rolls it back. When the dirty set outgrows its budget, pages are *spilled* to the
//! log as uncommitted frames (invisible to readers, ignored by recovery unless a commit frame
//! follows), which keeps memory bounded however large the transaction.
//!
//! A commit that grows the log past the automatic checkpoint threshold hands the checkpoint
//! to the database's checkpoint thread ([`checkpointer`]) and returns; the thread copies the
//! log back under the writer slot, like any writer.
//!
//! The writer also owns page allocation. Free pages form a list of *trunk* pages, each holding
//! the numbers of other free pages; allocation pops from the head trunk (and finally reuses the
//! trunk itself), freeing pushes onto it. Because a freed page is only reused by a later
//! write, and every write is a new version in the log, a reader on an older snapshot keeps
//! seeing the page's old contents.
//!
//! Byte layout of a trunk page: kind byte (`FREELIST_TRUNK`), 3 zero bytes, next trunk u32,
//! entry count u32, then that many free page numbers (u32, little-endian).

// Every narrowing cast in the free-list and header code states why it cannot lose bits.
#![cfg_attr(not(test), deny(clippy::cast_possible_truncation))]

mod checkpointer;
pub mod free_list_check;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RawMutex, lock_api::ArcMutexGuard};

use self::checkpointer::Checkpointer;
use crate::storage::deferred::{DeferredMark, DeferredWrites};
use crate::storage::error::{Result, StorageError};
use crate::storage::format::{Header, META_SLOTS};
use crate::storage::page::{self, PageBuf, PageMap, PageNo, PageRead, PageRef, PageWrite};
use crate::storage::pager::{CheckpointReport, Pager, PagerOptions, Snapshot, Synchronous};
use crate::storage::vfs::{MemoryVfs, OsVfs, Vfs};

/// Settings for opening a [`Store`].
#[derive(Clone, Copy, Debug)]
pub struct StoreOptions {
    /// Page size for a new database, a power of two from 4096 to 65536.
    pub page_size: usize,
    /// Page cache size in bytes.
    pub cache_bytes: usize,
    /// Durability of commits.
    pub synchronous: Synchronous,
    /// How long `begin_write` waits for another writer before failing with `Busy`.
    pub busy_timeout: Duration,
    /// Checkpoint once the log holds this many frames (0 = only explicit checkpoints).
    pub autocheckpoint_frames: u64,
    /// Run those automatic checkpoints on a thread of the database's own, so the commit that
    /// asks for one does not wait for it (see `checkpointer`). Off, the committing thread
    /// runs them, which makes the order of file operations depend on nothing but the
    /// program (what tests that count or fail file operations need).
    pub background_checkpoint: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            page_size: page::DEFAULT_PAGE_SIZE,
            cache_bytes: 64 << 20,
            synchronous: Synchronous::Normal,
            busy_timeout: Duration::from_secs(5),
            autocheckpoint_frames: 1000,
            background_checkpoint: true,
        }
    }
}

#[derive(Debug)]
struct Shared {
    /// Shared with the checkpoint thread, which must not hold the `Shared` itself (that
    /// would keep the database open after its last handle is dropped).
    pager: Arc<Pager>,
    checkpointer: Checkpointer,
    background_checkpoint: bool,
    writer_slot: Arc<Mutex<()>>,
    busy_timeout: Duration,
    /// Dirty pages a write transaction may hold before spilling to the log: as many as the
    /// cache holds, so a transaction whose working set fits in the cache never spills (a
    /// smaller budget made random inserts over a cache-sized table rewrite their dirty
    /// pages to the log again and again). Memory stays bounded by twice the cache size.
    dirty_budget: usize,
}

impl Drop for Shared {
    /// The last handle is gone: let the checkpoint thread finish (running a checkpoint that
    /// was asked for) before the pager and its file lock go.
    fn drop(&mut self) {
        self.checkpointer.shutdown();
    }
}

/// An open database file: the entry point of the storage engine. Clone it freely.
#[derive(Clone, Debug)]
pub struct Store {
    shared: Arc<Shared>,
}

impl Store {
    /// Opens or creates the database at `path` on the real file system.
    pub fn open(path: impl AsRef<Path>, options: StoreOptions) -> Result<Store> {
        Store::open_with_vfs(&OsVfs, path.as_ref(), options)
    }

    /// Opens a new, empty database that lives in memory only.
    pub fn open_in_memory(options: StoreOptions) -> Result<Store> {
        Store::open_with_vfs(&MemoryVfs::new(), Path::new(":memory:"), options)
    }

    /// Opens or creates the database at `path` through `vfs`.
    pub fn open_with_vfs(vfs: &dyn Vfs, path: &Path, options: StoreOptions) -> Result<Store> {
        let cache_pages =
            (options.cache_bytes / options.page_size.max(page::MIN_PAGE_SIZE)).max(16);
        let pager = Pager::open(
            vfs,
            path,
            PagerOptions {
                page_size: options.page_size,
                cache_pages,
                synchronous: options.synchronous,
                autocheckpoint_frames: options.autocheckpoint_frames,
            },
        )?;
        Ok(Store {
            shared: Arc::new(Shared {
                pager: Arc::new(pager),
                checkpointer: Checkpointer::default(),
                background_checkpoint: options.background_checkpoint,
                writer_slot: Arc::new(Mutex::new(())),
                busy_timeout: options.busy_timeout,
                dirty_budget: cache_pages.max(16),
            }),
        })
    }

    /// The pager underneath (for statistics and tests).
    pub fn pager(&self) -> &Pager {
        &self.shared.pager
    }

    /// A read transaction on the newest committed snapshot.
    pub fn begin_read(&self) -> ReadTxn {
        let snapshot = self.shared.pager.begin_snapshot();
        ReadTxn {
            shared: self.shared.clone(),
            snapshot,
        }
    }

    /// The write transaction, once the writer slot is free (waiting up to the busy timeout).
    pub fn begin_write(&self) -> Result<WriteTxn> {
        self.begin_write_within(self.shared.busy_timeout)
    }

    /// The store's busy timeout, as opened.
    pub fn busy_timeout(&self) -> Duration {
        self.shared.busy_timeout
    }

    /// [`Store::begin_write`] waiting at most `timeout` for the writer slot (a connection's
    /// own `busy_timeout` setting).
    pub fn begin_write_within(&self, timeout: Duration) -> Result<WriteTxn> {
        let started = Instant::now();
        let guard =
            self.shared
                .writer_slot
                .try_lock_arc_for(timeout)
                .ok_or(StorageError::Busy {
                    waited_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                })?;
        let snapshot = self.shared.pager.committed_snapshot();
        Ok(WriteTxn {
            shared: self.shared.clone(),
            _writer_slot: guard,
            snapshot,
            header: snapshot.header,
            dirty: PageMap::default(),
            spilled: PageMap::default(),
            savepoints: Vec::new(),
            deferred: DeferredWrites::default(),
            changes: 0,
            generation: 0,
            finished: false,
        })
    }

    /// Copies the log into the main file (as far as live readers allow) and empties it when
    /// possible. Waits for the writer slot like `begin_write`.
    pub fn checkpoint(&self) -> Result<CheckpointReport> {
        let started = Instant::now();
        let _guard = self
            .shared
            .writer_slot
            .try_lock_for(self.shared.busy_timeout)
            .ok_or(StorageError::Busy {
                waited_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            })?;
        self.shared.pager.checkpoint()
    }
}

/// A read-only view of one committed snapshot.
#[derive(Debug)]
pub struct ReadTxn {
    shared: Arc<Shared>,
    snapshot: Snapshot,
}

impl ReadTxn {
    /// Meta slot `slot` of the header as of this snapshot.
    pub fn meta(&self, slot: usize) -> u64 {
        self.snapshot.header.meta.get(slot).copied().unwrap_or(0)
    }

    /// The header as of this snapshot.
    pub fn header(&self) -> &Header {
        &self.snapshot.header
    }

    /// The log sequence number of the newest commit this snapshot sees. Every commit raises
    /// it, so two transactions started from the same commit exactly when theirs are equal.
    pub fn snapshot_seq(&self) -> u64 {
        self.snapshot.seq
    }
}

impl PageRead for ReadTxn {
    fn page(&self, page_no: PageNo) -> Result<PageRef> {
        self.shared.pager.read_page(page_no, &self.snapshot)
    }

    fn usable_size(&self) -> usize {
        self.shared.pager.page_size() - page::PAGE_TRAILER_SIZE
    }

    /// A snapshot never changes.
    fn generation(&self) -> Option<u64> {
        Some(0)
    }
}

impl Drop for ReadTxn {
    fn drop(&mut self) {
        self.shared.pager.end_snapshot(&self.snapshot);
    }
}

/// The single write transaction. Rolls back when dropped without [`WriteTxn::commit`].
pub struct WriteTxn {
    shared: Arc<Shared>,
    _writer_slot: ArcMutexGuard<RawMutex, ()>,
    snapshot: Snapshot,
    header: Header,
    dirty: PageMap<PageRef>,
    /// Pages whose newest image is a spilled (uncommitted) log frame.
    spilled: PageMap<u64>,
    /// Open savepoints, oldest first.
    savepoints: Vec<SavepointLog>,
    /// Index entries put off until the index is read or the transaction commits.
    deferred: DeferredWrites,
    /// Page changes made so far (see [`WriteTxn::change_count`]).
    changes: u64,
    /// Bumped whenever any page may change, rollbacks to a savepoint included: see
    /// [`PageRead::generation`].
    generation: u64,
    finished: bool,
}

/// What a savepoint needs to undo everything after it: the header as it was, and for each
/// page touched since, its dirty and spilled state as they were before the first touch.
#[derive(Debug)]
struct SavepointLog {
    header: Header,
    undo: PageMap<(Option<PageRef>, Option<u64>)>,
    deferred: DeferredMark,
}

/// Identifies a savepoint of a write transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavepointId(usize);

impl std::fmt::Debug for WriteTxn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteTxn")
            .field("snapshot", &self.snapshot)
            .field("header", &self.header)
            .field("dirty_pages", &self.dirty.len())
            .field("spilled_pages", &self.spilled.len())
            .finish()
    }
}

const TRUNK_HEADER: usize = 12;

impl WriteTxn {
    /// Meta slot `slot` as this transaction sees it.
    pub fn meta(&self, slot: usize) -> u64 {
        self.header.meta.get(slot).copied().unwrap_or(0)
    }

    /// Meta slot `slot` as committed when this transaction began (before its own changes).
    pub fn committed_meta(&self, slot: usize) -> u64 {
        self.snapshot.header.meta.get(slot).copied().unwrap_or(0)
    }

    /// Sets meta slot `slot` (committed with the transaction).
    pub fn set_meta(&mut self, slot: usize, value: u64) -> Result<()> {
        let meta = self.header.meta.get_mut(slot).ok_or_else(|| {
            StorageError::InvalidArgument(format!("meta slot {slot} is not below {META_SLOTS}"))
        })?;
        *meta = value;
        self.changes += 1;
        Ok(())
    }

    /// The header as this transaction sees it.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The log sequence number of the commit this transaction started from (see
    /// [`ReadTxn::snapshot_seq`]).
    pub fn snapshot_seq(&self) -> u64 {
        self.snapshot.seq
    }

    /// Starts a savepoint: [`WriteTxn::rollback_to_savepoint`] undoes every change made
    /// after it. Savepoints nest; the cost of one is proportional to the pages changed
    /// while it is open, not to the size of the transaction.
    pub fn savepoint(&mut self) -> SavepointId {
        self.savepoints.push(SavepointLog {
            header: self.header,
            undo: PageMap::default(),
            deferred: self.deferred.mark(),
        });
        SavepointId(self.savepoints.len() - 1)
    }

    /// Undoes every change made since savepoint `id`, which (with the savepoints inside it)
    /// stays open, like SQL's `ROLLBACK TO SAVEPOINT`.
    pub fn rollback_to_savepoint(&mut self, id: SavepointId) -> Result<()> {
        if id.0 >= self.savepoints.len() {
            return Err(StorageError::InvalidArgument(
                "savepoint is no longer open".into(),
            ));
        }
        // Undo the inner savepoints' changes first, newest to oldest.
        while self.savepoints.len() > id.0 + 1 {
            if let Some(log) = self.savepoints.pop() {
                self.apply_undo(log);
            }
        }
        if let Some(log) = self.savepoints.pop() {
            self.deferred.rollback_to(log.deferred);
            self.apply_undo(log);
        }
        self.savepoints.push(SavepointLog {
            header: self.header,
            undo: PageMap::default(),
            deferred: self.deferred.mark(),
        });
        Ok(())
    }

    /// Closes savepoint `id` (and those inside it), keeping their changes, like SQL's
    /// `RELEASE SAVEPOINT`.
    pub fn release_savepoint(&mut self, id: SavepointId) -> Result<()> {
        if id.0 >= self.savepoints.len() {
            return Err(StorageError::InvalidArgument(
                "savepoint is no longer open".into(),
            ));
        }
        while self.savepoints.len() > id.0 {
            let Some(log) = self.savepoints.pop() else {
                break;
            };
            // The enclosing savepoint must still be able to undo what this one recorded.
            if let Some(outer) = self.savepoints.last_mut() {
                for (page_no, before) in log.undo {
                    outer.undo.entry(page_no).or_insert(before);
                }
            }
        }
        if self.savepoints.is_empty() {
            self.deferred.forget_merged();
        }
        Ok(())
    }

    fn apply_undo(&mut self, log: SavepointLog) {
        self.generation += 1;
        self.header = log.header;
        for (page_no, (dirty, spilled)) in log.undo {
            match dirty {
                Some(page) => {
                    self.dirty.insert(page_no, page);
                }
                None => {
                    self.dirty.remove(&page_no);
                }
            }
            match spilled {
                Some(seq) => {
                    self.spilled.insert(page_no, seq);
                }
                None => {
                    self.spilled.remove(&page_no);
                }
            }
        }
    }

    /// Starts this transaction's database over as a file of the header page alone: no pages
    /// after it and an empty free list; the meta slots are kept. For `VACUUM`, which then
    /// writes every live tree again from a [`ReadTxn`] taken before this call, so the rebuilt
    /// file has no free pages and, once checkpointed, ends at its last live page.
    ///
    /// Only a transaction that has changed nothing and has no savepoint may do this: every
    /// page it had touched would otherwise be left dangling past the new end.
    pub fn restart_as_empty_file(&mut self) -> Result<()> {
        if self.is_dirty() || !self.savepoints.is_empty() {
            return Err(StorageError::InvalidArgument(
                "only an unchanged write transaction without savepoints can restart the file"
                    .into(),
            ));
        }
        self.header.page_count = 1;
        self.header.freelist_head = 0;
        self.header.free_count = 0;
        self.changes += 1;
        self.generation += 1;
        Ok(())
    }

    /// How many page changes the transaction has made so far: a statement run without a
    /// savepoint compares it before and after to learn whether its failure left changes behind.
    pub fn change_count(&self) -> u64 {
        self.changes
    }

    /// Records `page_no`'s state for the innermost savepoint before it first changes.
    fn remember(&mut self, page_no: PageNo) {
        self.changes += 1;
        self.generation += 1;
        if let Some(log) = self.savepoints.last_mut()
            && !log.undo.contains_key(&page_no)
        {
            let before = (
                self.dirty.get(&page_no).cloned(),
                self.spilled.get(&page_no).copied(),
            );
            log.undo.insert(page_no, before);
        }
    }

    /// Whether the transaction has changed anything.
    pub fn is_dirty(&self) -> bool {
        !self.dirty.is_empty() || !self.spilled.is_empty() || self.header != self.snapshot.header
    }

    /// The index entries put off in this transaction (see `storage::deferred`).
    pub fn deferred(&self) -> &DeferredWrites {
        &self.deferred
    }

    /// The put-off index entries, to add to or to mark merged. Forgets merged entries first
    /// when no savepoint is open to need them.
    pub fn deferred_mut(&mut self) -> &mut DeferredWrites {
        if self.savepoints.is_empty() {
            self.deferred.forget_merged();
        }
        &mut self.deferred
    }

    /// Makes every change durable (per `synchronous`) and visible to new snapshots. Refuses
    /// while index entries are still put off (their owner merges them first): committing
    /// then would lose them.
    pub fn commit(mut self) -> Result<()> {
        if self.deferred.has_pending() {
            return Err(StorageError::InvalidArgument(
                "the transaction still has index entries to merge".into(),
            ));
        }
        self.finished = true;
        if !self.is_dirty() {
            return Ok(());
        }
        // Page 0 is written only when the header changed (pages allocated or freed, a meta
        // slot set) or the page was written directly: most small commits change a leaf or
        // two and nothing else, and writing the header too made every such commit log one
        // page in three for nothing. The counter counts the commits that write it; "has
        // anyone committed since?" is answered by log sequence numbers instead
        // (`snapshot_seq`). It may wrap: a file can hold any value here.
        if self.dirty.contains_key(&0) || self.header != self.snapshot.header {
            self.header.commit_counter = self.header.commit_counter.wrapping_add(1);
            let mut header_page = match self.dirty.remove(&0) {
                Some(page) => page,
                None => self.page(0)?,
            };
            self.header.encode(&mut Arc::make_mut(&mut header_page)[..]);
            self.dirty.insert(0, header_page);
        }
        let mut pages: Vec<(PageNo, PageRef)> = self.dirty.drain().collect();
        let spilled: Vec<(PageNo, u64)> = self.spilled.drain().collect();
        let pager = &self.shared.pager;
        if let Err(error) = pager.commit(&mut pages, &spilled, self.header) {
            pager.rollback(&spilled);
            return Err(error);
        }
        if pager.wants_checkpoint() {
            // The commit is durable already; a failed checkpoint leaves the log in place and is
            // retried after the next commit, so it must not turn this commit into an error.
            // The checkpoint thread may keep losing the writer slot to a busy writer, so past
            // a few thresholds the committing thread does it (the log stays bounded).
            let shared = &self.shared;
            let in_background = shared.background_checkpoint
                && !pager.log_far_past_checkpoint()
                && shared.checkpointer.request(
                    &shared.pager,
                    &shared.writer_slot,
                    shared.busy_timeout,
                );
            if !in_background {
                let _ = pager.checkpoint();
            }
        }
        Ok(())
    }

    /// Discards every change.
    pub fn rollback(mut self) {
        self.abandon();
    }

    fn abandon(&mut self) {
        if !self.finished {
            self.finished = true;
            let spilled: Vec<(PageNo, u64)> = self.spilled.drain().collect();
            self.shared.pager.rollback(&spilled);
            self.dirty.clear();
        }
    }

    /// Spills every dirty page to the log when the dirty set is over budget.
    fn spill_if_needed(&mut self) -> Result<()> {
        if self.dirty.len() < self.shared.dirty_budget {
            return Ok(());
        }
        let mut pages: Vec<(PageNo, PageRef)> = self.dirty.drain().collect();
        pages.sort_unstable_by_key(|(page_no, _)| *page_no);
        let seqs = self.shared.pager.spill(&mut pages)?;
        for ((page_no, _), seq) in pages.iter().zip(seqs) {
            self.spilled.insert(*page_no, seq);
        }
        Ok(())
    }

    fn check_in_range(&self, page_no: PageNo) -> Result<()> {
        if page_no >= self.header.page_count {
            return Err(StorageError::corrupt_page(
                page_no,
                format!(
                    "beyond the end of the database ({} pages)",
                    self.header.page_count
                ),
            ));
        }
        Ok(())
    }

    /// Installs a zeroed page as the transaction's image of `page_no`.
    fn install_zeroed(&mut self, page_no: PageNo) -> Result<()> {
        self.spill_if_needed()?;
        let page_size = self.shared.pager.page_size();
        self.remember(page_no);
        self.dirty
            .insert(page_no, Arc::new(PageBuf::zeroed(page_size)));
        Ok(())
    }

    fn read_u32(page: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([page[at], page[at + 1], page[at + 2], page[at + 3]])
    }

    fn trunk_capacity(&self) -> usize {
        (self.usable_size() - TRUNK_HEADER) / 4
    }
}

impl Drop for WriteTxn {
    fn drop(&mut self) {
        self.abandon();
    }
}

impl PageRead for WriteTxn {
    fn page(&self, page_no: PageNo) -> Result<PageRef> {
        self.check_in_range(page_no)?;
        if let Some(page) = self.dirty.get(&page_no) {
            return Ok(page.clone());
        }
        if let Some(&seq) = self.spilled.get(&page_no) {
            return self.shared.pager.read_spilled(page_no, seq);
        }
        self.shared.pager.read_page(page_no, &self.snapshot)
    }

    fn usable_size(&self) -> usize {
        self.shared.pager.page_size() - page::PAGE_TRAILER_SIZE
    }

    fn generation(&self) -> Option<u64> {
        Some(self.generation)
    }
}

impl PageWrite for WriteTxn {
    fn page_mut(&mut self, page_no: PageNo) -> Result<&mut [u8]> {
        self.check_in_range(page_no)?;
        if !self.dirty.contains_key(&page_no) {
            let current = self.page(page_no)?;
            self.spill_if_needed()?;
            self.remember(page_no);
            self.dirty.insert(page_no, current);
        } else {
            self.remember(page_no);
        }
        match self.dirty.get_mut(&page_no) {
            Some(page) => Ok(&mut Arc::make_mut(page)[..]),
            None => Err(StorageError::corrupt_page(page_no, "dirty page vanished")),
        }
    }

    fn deferred_writes(&mut self) -> Option<&mut DeferredWrites> {
        Some(self.deferred_mut())
    }

    fn allocate_page(&mut self) -> Result<PageNo> {
        let trunk_no = self.header.freelist_head;
        if trunk_no == 0 {
            let page_no = self.header.page_count;
            if page_no == PageNo::MAX {
                return Err(StorageError::InvalidArgument(
                    "database has reached its maximum size".into(),
                ));
            }
            self.header.page_count += 1;
            self.install_zeroed(page_no)?;
            return Ok(page_no);
        }
        let trunk = self.page(trunk_no)?;
        if trunk.first() != Some(&page::kind::FREELIST_TRUNK) {
            return Err(StorageError::corrupt_page(
                trunk_no,
                "free-list trunk has the wrong page kind",
            ));
        }
        let next_trunk = Self::read_u32(&trunk, 4);
        let count = Self::read_u32(&trunk, 8) as usize;
        if count > self.trunk_capacity() || next_trunk >= self.header.page_count {
            return Err(StorageError::corrupt_page(
                trunk_no,
                "free-list trunk header out of range",
            ));
        }
        let page_no = if count == 0 {
            // An empty trunk is itself the last free page it describes.
            self.header.freelist_head = next_trunk;
            trunk_no
        } else {
            let at = TRUNK_HEADER + (count - 1) * 4;
            let page_no = Self::read_u32(&trunk, at);
            if page_no == 0 || page_no >= self.header.page_count {
                return Err(StorageError::corrupt_page(
                    trunk_no,
                    format!("free-list entry {page_no} out of range"),
                ));
            }
            let trunk = self.page_mut(trunk_no)?;
            trunk[8..12].copy_from_slice(&(trunk_count(count) - 1).to_le_bytes());
            page_no
        };
        self.header.free_count = self.header.free_count.saturating_sub(1);
        self.remember(page_no);
        self.spilled.remove(&page_no);
        self.install_zeroed(page_no)?;
        Ok(page_no)
    }

    fn free_page(&mut self, page_no: PageNo) -> Result<()> {
        if page_no == 0 {
            return Err(StorageError::InvalidArgument(
                "page 0 cannot be freed".into(),
            ));
        }
        self.check_in_range(page_no)?;
        let head = self.header.freelist_head;
        let capacity = self.trunk_capacity();
        if head != 0 {
            let trunk = self.page(head)?;
            let count = Self::read_u32(&trunk, 8) as usize;
            if count < capacity {
                let trunk = self.page_mut(head)?;
                let at = TRUNK_HEADER + count * 4;
                trunk[at..at + 4].copy_from_slice(&page_no.to_le_bytes());
                trunk[8..12].copy_from_slice(&(trunk_count(count) + 1).to_le_bytes());
                self.header.free_count += 1;
                // The freed page's contents no longer matter; don't write them to the log.
                self.remember(page_no);
                self.dirty.remove(&page_no);
                return Ok(());
            }
        }
        // No trunk, or the head trunk is full: the freed page becomes the new head trunk.
        self.install_zeroed(page_no)?;
        let trunk = self.page_mut(page_no)?;
        trunk[0] = page::kind::FREELIST_TRUNK;
        trunk[4..8].copy_from_slice(&head.to_le_bytes());
        self.header.freelist_head = page_no;
        self.header.free_count += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests;

/// A free-list trunk's entry count as stored: it is read from the trunk's four count bytes
/// and bounded by the entries one page holds, so it fits in a `u32`.
#[allow(
    clippy::cast_possible_truncation,
    reason = "a trunk holds at most a page's worth of four-byte entries (fewer than 16,384)"
)]
fn trunk_count(count: usize) -> u32 {
    count as u32
}
