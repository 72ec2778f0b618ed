//! The write-ahead log: where every commit goes first.
//!
//! A commit appends one *frame* per changed page (a 24-byte frame header plus the page image)
//! to the log file beside the database; the last frame of a transaction is marked as a commit
//! and carries the database's page count. Frames are never modified once written, so a frame's
//! sequence number names one immutable page image, which is what lets readers on older
//! snapshots keep reading while the writer commits: the [`WalIndex`] maps each page to the
//! sequence numbers of its frames, and a snapshot is just "frames up to sequence S".
//!
//! Integrity comes from a *chained* CRC-32C: each frame's checksum covers its header and page
//! and starts from the previous frame's checksum (the first from the log header's), and every
//! frame repeats the log's random salt. Recovery reads frames in order and stops at the first
//! that fails; it keeps every transaction whose commit frame it reached and drops the rest, so
//! a torn or partially written tail is cut off and never half-applied. A new *generation* of
//! the log (after a checkpoint copied everything back) gets a fresh salt, so stale frames
//! left in the file from an earlier generation can never validate. That is what lets a new
//! generation write over the old one in place: the file keeps its length (up to
//! [`KEPT_LOG_BYTES`]), so a commit overwrites blocks the file system already has instead of
//! extending the file, which made the kernel allocate a block and a page-cache page for every
//! frame of every small commit (a fifth of an autocommitted UPDATE), as SQLite's log is reused.
//!
//! Log header (32 bytes, little-endian): magic `"BSLTWAL\x01"` (8), format version u32, page
//! size u32, base sequence number u64 (sequence of the first frame in this generation), salt
//! u32, CRC-32C of the preceding 28 bytes u32.
//!
//! Frame header (24 bytes): page number u32; page count after commit u32 (0 = not a commit
//! frame); sequence number u64; salt u32; chained checksum u32 over the first 20 header bytes
//! and the page image. Frame `s` starts at `32 + (s - base) * (24 + page_size)`.
//!
//! Concurrency: the single writer appends (serialised by the transaction layer and by an
//! internal mutex); readers look up the index under a read lock and read frames under a shared
//! *generation lock*, which a log reset takes exclusively, so a frame is never overwritten
//! while someone reads it.

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Mutex, RwLock};

use super::error::{Result, StorageError};
use super::page::{PageBuf, PageMap, PageNo};
use super::vfs::VfsFile;

/// Magic string at the start of a log file.
pub const WAL_MAGIC: &[u8; 8] = b"BSLTWAL\x01";
/// Log format version.
pub const WAL_VERSION: u32 = 1;
/// Bytes in the log header.
pub const WAL_HEADER_SIZE: usize = 32;
/// Bytes in a frame header.
pub const FRAME_HEADER_SIZE: usize = 24;
/// The largest base sequence number a log header may carry. Sequence numbers count frames
/// from the database's creation, so no real log comes near it (2^62 frames take 146 years at
/// a billion frames a second); a header claiming more is damage, and trusting it would let
/// the sequence numbers of recovered or new frames overflow.
const MAX_BASE_SEQ: u64 = 1 << 62;

/// A log no longer than this keeps its length when a new generation starts (its frames are
/// overwritten in place); a longer one, left by a large transaction, is truncated so the
/// file does not stay large. Four times the automatic checkpoint's thousand 4 KiB frames.
pub const KEPT_LOG_BYTES: u64 = 16 << 20;

/// The write-ahead log of one database.
#[derive(Debug)]
pub struct Wal {
    file: Arc<dyn VfsFile>,
    path: String,
    page_size: usize,
    /// Sequence number of the first frame of the current generation (readable without locks).
    base_seq: AtomicU64,
    writer: Mutex<WriterState>,
    index: RwLock<WalIndex>,
    /// Held shared while reading a frame, exclusively while resetting the log.
    generation: RwLock<()>,
}

#[derive(Debug)]
struct WriterState {
    salt: u32,
    /// Sequence number the next appended frame gets.
    next_seq: u64,
    /// Checksum the next frame chains from.
    chain: u32,
    /// `next_seq` and `chain` just after the last commit: where a rollback rewinds to.
    committed_next_seq: u64,
    committed_chain: u32,
    /// Frames up to this sequence number have been copied into the main file.
    backfilled_seq: u64,
    /// Reused buffer for encoding frames, so commits do not allocate per frame.
    scratch: Vec<u8>,
}

/// Which frames hold committed page images.
#[derive(Debug, Default)]
pub struct WalIndex {
    frames: PageMap<Vec<u64>>,
    committed_seq: u64,
}

/// What recovery found in the log when the database was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Committed frames replayed.
    pub frames: u64,
    /// Committed transactions found.
    pub transactions: u64,
    /// Page count stored in the last commit frame, if there was one.
    pub page_count: Option<PageNo>,
}

impl Wal {
    /// Opens the log in `file` and recovers every committed transaction in it. A missing,
    /// empty or invalid log header starts a fresh generation whose first frame will have
    /// sequence number `first_seq`.
    pub fn open(
        file: Arc<dyn VfsFile>,
        path: String,
        page_size: usize,
        first_seq: u64,
    ) -> Result<(Wal, RecoveryReport)> {
        let wal = Wal {
            file,
            path,
            page_size,
            base_seq: AtomicU64::new(first_seq),
            writer: Mutex::new(WriterState {
                salt: 0,
                next_seq: first_seq,
                chain: 0,
                committed_next_seq: first_seq,
                committed_chain: 0,
                backfilled_seq: first_seq - 1,
                scratch: Vec::new(),
            }),
            index: RwLock::new(WalIndex {
                frames: PageMap::default(),
                committed_seq: first_seq - 1,
            }),
            generation: RwLock::new(()),
        };
        let report = match wal.recover()? {
            Some(report) => report,
            None => {
                wal.reset(first_seq)?;
                RecoveryReport::default()
            }
        };
        Ok((wal, report))
    }

    fn frame_size(&self) -> usize {
        FRAME_HEADER_SIZE + self.page_size
    }

    fn frame_offset(&self, base_seq: u64, seq: u64) -> u64 {
        WAL_HEADER_SIZE as u64 + (seq - base_seq) * self.frame_size() as u64
    }

    fn io(&self, operation: &'static str, error: std::io::Error) -> StorageError {
        StorageError::io(operation, &self.path, error)
    }

    /// Reads the header and replays committed frames. `None` if there is no valid header.
    fn recover(&self) -> Result<Option<RecoveryReport>> {
        let file_len = self
            .file
            .len()
            .map_err(|e| self.io("reading the log length", e))?;
        if file_len < WAL_HEADER_SIZE as u64 {
            return Ok(None);
        }
        let mut header = [0u8; WAL_HEADER_SIZE];
        self.file
            .read_exact_at(&mut header, 0)
            .map_err(|e| self.io("reading the log header", e))?;
        let Some((base_seq, salt, header_checksum)) = self.parse_header(&header) else {
            return Ok(None);
        };

        let mut report = RecoveryReport::default();
        let mut index = WalIndex {
            frames: PageMap::default(),
            committed_seq: base_seq - 1,
        };
        let mut pending: Vec<(PageNo, u64)> = Vec::new();
        let mut chain = header_checksum;
        let mut committed_chain = header_checksum;
        let mut seq = base_seq;
        let frame_size = self.frame_size();
        // Read many frames per call: recovery of a large log is otherwise one syscall per page.
        let frames_per_read = (1 << 20) / frame_size + 1;
        let mut buffer = vec![0u8; frames_per_read * frame_size];
        'scan: loop {
            let offset = self.frame_offset(base_seq, seq);
            let whole_frames = usize::try_from(file_len.saturating_sub(offset) / frame_size as u64)
                .unwrap_or(usize::MAX);
            let count = whole_frames.min(frames_per_read);
            if count == 0 {
                break;
            }
            let chunk = &mut buffer[..count * frame_size];
            self.file
                .read_exact_at(chunk, offset)
                .map_err(|e| self.io("reading the log", e))?;
            for frame in chunk.chunks_exact(frame_size) {
                let field = |at: usize| {
                    u32::from_le_bytes([frame[at], frame[at + 1], frame[at + 2], frame[at + 3]])
                };
                let page_no = field(0);
                let commit_page_count = field(4);
                let mut seq_bytes = [0u8; 8];
                seq_bytes.copy_from_slice(&frame[8..16]);
                if u64::from_le_bytes(seq_bytes) != seq || field(16) != salt {
                    break 'scan;
                }
                let checksum = frame_checksum(chain, &frame[..20], &frame[FRAME_HEADER_SIZE..]);
                if checksum != field(20) {
                    break 'scan;
                }
                chain = checksum;
                pending.push((page_no, seq));
                if commit_page_count != 0 {
                    for (page_no, frame_seq) in pending.drain(..) {
                        index.frames.entry(page_no).or_default().push(frame_seq);
                    }
                    index.committed_seq = seq;
                    committed_chain = chain;
                    report.transactions += 1;
                    report.page_count = Some(commit_page_count);
                }
                seq += 1;
            }
        }
        report.frames = index.committed_seq + 1 - base_seq;
        let next_seq = index.committed_seq + 1;
        self.base_seq.store(base_seq, Ordering::Release);
        *self.writer.lock() = WriterState {
            salt,
            next_seq,
            chain: committed_chain,
            committed_next_seq: next_seq,
            committed_chain,
            backfilled_seq: base_seq - 1,
            scratch: Vec::new(),
        };
        *self.index.write() = index;
        Ok(Some(report))
    }

    /// Validates a log header; returns (base sequence, salt, header checksum).
    fn parse_header(&self, header: &[u8; WAL_HEADER_SIZE]) -> Option<(u64, u32, u32)> {
        let field = |at: usize| {
            u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
        };
        let mut base_bytes = [0u8; 8];
        base_bytes.copy_from_slice(&header[16..24]);
        let base_seq = u64::from_le_bytes(base_bytes);
        let valid = &header[0..8] == WAL_MAGIC
            && field(8) == WAL_VERSION
            && field(12) as usize == self.page_size
            && (1..=MAX_BASE_SEQ).contains(&base_seq)
            && crc32c::crc32c(&header[..28]) == field(28);
        valid.then(|| (base_seq, field(24), field(28)))
    }

    /// Starts a new, empty generation of the log whose first frame gets `base_seq`. The caller
    /// must hold the write lock of the transaction layer and must have copied every committed
    /// frame into the main file (nothing in the old generation is needed any more).
    pub fn reset(&self, base_seq: u64) -> Result<()> {
        let _exclusive = self.generation.write();
        let mut writer = self.writer.lock();
        let salt = random_u32();
        let mut header = [0u8; WAL_HEADER_SIZE];
        header[0..8].copy_from_slice(WAL_MAGIC);
        header[8..12].copy_from_slice(&WAL_VERSION.to_le_bytes());
        #[allow(
            clippy::cast_possible_truncation,
            reason = "the page size was checked against MAX_PAGE_SIZE (65,536) when the log was opened"
        )]
        let page_size = self.page_size as u32;
        header[12..16].copy_from_slice(&page_size.to_le_bytes());
        header[16..24].copy_from_slice(&base_seq.to_le_bytes());
        header[24..28].copy_from_slice(&salt.to_le_bytes());
        let header_checksum = crc32c::crc32c(&header[..28]);
        header[28..32].copy_from_slice(&header_checksum.to_le_bytes());
        // Everything in the old generation is already in the main file, so any state a crash
        // leaves is correct: the old header (its frames replay to what the main file holds),
        // the new one (the old frames after it have the old salt and sequence numbers and
        // never validate), or a torn one (no valid header: an empty log). A long log is
        // truncated first, as a short one need not be.
        let length = self
            .file
            .len()
            .map_err(|e| self.io("reading the log length", e))?;
        if length > KEPT_LOG_BYTES {
            self.file
                .set_len(0)
                .map_err(|e| self.io("truncating the log", e))?;
        }
        self.file
            .write_all_at(&header, 0)
            .map_err(|e| self.io("writing the log header", e))?;
        self.base_seq.store(base_seq, Ordering::Release);
        writer.salt = salt;
        writer.next_seq = base_seq;
        writer.chain = header_checksum;
        writer.committed_next_seq = base_seq;
        writer.committed_chain = header_checksum;
        writer.backfilled_seq = base_seq - 1;
        let mut index = self.index.write();
        index.frames.clear();
        index.committed_seq = base_seq - 1;
        Ok(())
    }

    /// Appends one frame per page (pages must already be sealed). With `commit_page_count`,
    /// the last frame is a commit frame. Returns the sequence number of the first frame.
    /// On failure nothing is appended (the write position is unchanged).
    pub fn append(
        &self,
        pages: &[(PageNo, &PageBuf)],
        commit_page_count: Option<PageNo>,
    ) -> Result<u64> {
        let mut writer = self.writer.lock();
        let writer = &mut *writer;
        let first_seq = writer.next_seq;
        let frame_size = self.frame_size();
        let mut scratch = std::mem::take(&mut writer.scratch);
        scratch.clear();
        scratch.reserve(pages.len() * frame_size);
        let mut chain = writer.chain;
        for (position, (page_no, page)) in pages.iter().enumerate() {
            let is_last = position + 1 == pages.len();
            let commit = if is_last {
                commit_page_count.unwrap_or(0)
            } else {
                0
            };
            let start = scratch.len();
            scratch.extend_from_slice(&page_no.to_le_bytes());
            scratch.extend_from_slice(&commit.to_le_bytes());
            scratch.extend_from_slice(&(first_seq + position as u64).to_le_bytes());
            scratch.extend_from_slice(&writer.salt.to_le_bytes());
            scratch.extend_from_slice(&[0u8; 4]);
            scratch.extend_from_slice(page.raw());
            let frame = &mut scratch[start..];
            chain = frame_checksum(chain, &frame[..20], &frame[FRAME_HEADER_SIZE..]);
            frame[20..24].copy_from_slice(&chain.to_le_bytes());
        }
        let offset = self.frame_offset(self.base_seq.load(Ordering::Acquire), first_seq);
        let written = self.file.write_all_at(&scratch, offset);
        writer.scratch = scratch;
        written.map_err(|e| self.io("appending to the log", e))?;
        writer.next_seq = first_seq + pages.len() as u64;
        writer.chain = chain;
        if commit_page_count.is_some() {
            writer.committed_next_seq = writer.next_seq;
            writer.committed_chain = chain;
        }
        Ok(first_seq)
    }

    /// Forgets frames appended since the last commit (a rolled-back transaction's spills).
    pub fn rollback_uncommitted(&self) {
        let mut writer = self.writer.lock();
        writer.next_seq = writer.committed_next_seq;
        writer.chain = writer.committed_chain;
    }

    /// Makes the log durable.
    pub fn sync(&self) -> Result<()> {
        self.file.sync().map_err(|e| self.io("syncing the log", e))
    }

    /// Makes a commit visible to new snapshots: records where each page's newest image is and
    /// advances the committed sequence number.
    pub fn publish(&self, frames: impl IntoIterator<Item = (PageNo, u64)>, committed_seq: u64) {
        let mut index = self.index.write();
        for (page_no, seq) in frames {
            index.frames.entry(page_no).or_default().push(seq);
        }
        index.committed_seq = committed_seq;
    }

    /// The sequence number of the newest committed frame (the id of the newest snapshot).
    pub fn committed_seq(&self) -> u64 {
        self.index.read().committed_seq
    }

    /// The newest frame holding `page_no` that snapshot `snapshot_seq` may see.
    pub fn lookup(&self, page_no: PageNo, snapshot_seq: u64) -> Option<u64> {
        let index = self.index.read();
        let seqs = index.frames.get(&page_no)?;
        let visible = seqs.partition_point(|&seq| seq <= snapshot_seq);
        visible.checked_sub(1).map(|at| seqs[at])
    }

    /// Whether no committed frame is in the log.
    pub fn is_empty(&self) -> bool {
        self.index.read().frames.is_empty()
    }

    /// Reads frame `seq` into `page`. Returns false if the frame no longer exists (the log
    /// was reset since the caller looked it up) or does not hold `page_no`.
    pub fn read_frame(&self, seq: u64, page_no: PageNo, page: &mut PageBuf) -> Result<bool> {
        let _shared = self.generation.read();
        let base_seq = self.base_seq.load(Ordering::Acquire);
        if seq < base_seq {
            return Ok(false);
        }
        let offset = self.frame_offset(base_seq, seq);
        let mut header = [0u8; FRAME_HEADER_SIZE];
        self.file
            .read_exact_at(&mut header, offset)
            .map_err(|e| self.io("reading a log frame", e))?;
        let mut seq_bytes = [0u8; 8];
        seq_bytes.copy_from_slice(&header[8..16]);
        let frame_page = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
        if u64::from_le_bytes(seq_bytes) != seq || frame_page != page_no {
            return Ok(false);
        }
        self.file
            .read_exact_at(page.raw_mut(), offset + FRAME_HEADER_SIZE as u64)
            .map_err(|e| self.io("reading a log frame", e))?;
        Ok(true)
    }

    /// For each page, its newest frame with a sequence number in `(backfilled, limit]`:
    /// what a checkpoint up to `limit` must copy into the main file.
    pub fn frames_to_backfill(&self, limit: u64) -> Vec<(PageNo, u64)> {
        let backfilled = self.writer.lock().backfilled_seq;
        let index = self.index.read();
        let mut frames: Vec<(PageNo, u64)> = index
            .frames
            .iter()
            .filter_map(|(&page_no, seqs)| {
                let visible = seqs.partition_point(|&seq| seq <= limit);
                let newest = *seqs.get(visible.checked_sub(1)?)?;
                (newest > backfilled).then_some((page_no, newest))
            })
            .collect();
        frames.sort_unstable();
        frames
    }

    /// Records that frames up to `seq` are in the main file.
    pub fn set_backfilled(&self, seq: u64) {
        self.writer.lock().backfilled_seq = seq;
    }

    /// Frames up to this sequence number are in the main file.
    pub fn backfilled_seq(&self) -> u64 {
        self.writer.lock().backfilled_seq
    }

    /// Committed frames in the current generation.
    pub fn committed_frames(&self) -> u64 {
        self.committed_seq() + 1 - self.base_seq.load(Ordering::Acquire)
    }
}

fn frame_checksum(chain: u32, header: &[u8], page: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c_append(chain, header), page)
}

/// A random salt, from the standard library's per-process random hash keys.
fn random_u32() -> u32 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(std::process::id().into());
    #[allow(
        clippy::cast_possible_truncation,
        reason = "the salt is the hash's low 32 bits, on purpose"
    )]
    let salt = hasher.finish() as u32;
    salt
}
