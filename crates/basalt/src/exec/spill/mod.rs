//! Spill files: where sorts and hash tables put rows that do not fit their memory budget.
//!
//! An operator that outgrows `ExecContext::operator_memory` writes rows to anonymous
//! temporary files and reads them back later, in order, as [`Batch`]es. This module provides
//! the pieces every such operator shares:
//!
//! * [`SpillFile`]: a temporary file (in `ExecContext::spill_directory`, else the system's
//!   temporary directory) that is unlinked the moment it is created, so it never outlives
//!   the process, whatever happens to it; readable only by its owner. Records are appended
//!   through a write buffer and read back with positioned reads, so any number of
//!   [`RecordReader`]s can read different regions of one file at once (the runs of a merge).
//! * [`RowCodec`] (`codec`): a compact binary form of one row, by column type: a null
//!   bitmap, then each non-NULL value — booleans in one byte, dates in four, other
//!   fixed-width values in eight, text and blobs as a length and their bytes.
//! * [`Partitions`]: N spill files written by a hash of a row key, for the operators that
//!   divide their input so each part fits in memory (hash aggregation, grace hash join,
//!   DISTINCT and set operations); [`SpilledRows`] and [`BatchReader`] read a part back.
//!
//! Every failure is an [`ExecError`]: 53100 when the disk is full, 58030 for any other I/O
//! error, XX001 if a file reads back differently from what was written. Nothing here panics.
//! Files are Unix files (positioned reads through `FileExt`, as `storage::vfs::os`).

use std::fs::{File, OpenOptions};
use std::hash::Hasher;
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sqlstate;
use crate::types::DataType;

use super::batch::{BATCH_SIZE, Batch};
use super::context::ExecContext;
use super::error::{ExecError, ExecResult};

pub(crate) mod codec;

pub use codec::RowCodec;
use codec::{read_varint, write_varint};

/// What was written to spill files: by one operator, or by a whole execution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpillStats {
    /// Spill files created.
    pub files: u64,
    /// Bytes written to them.
    pub bytes: u64,
}

impl SpillStats {
    /// Whether nothing was spilled.
    pub fn is_empty(&self) -> bool {
        self.files == 0 && self.bytes == 0
    }

    /// `self + other`.
    pub fn plus(self, other: SpillStats) -> SpillStats {
        SpillStats {
            files: self.files + other.files,
            bytes: self.bytes + other.bytes,
        }
    }

    /// `self − other`, never below zero.
    pub fn minus(self, other: SpillStats) -> SpillStats {
        SpillStats {
            files: self.files.saturating_sub(other.files),
            bytes: self.bytes.saturating_sub(other.bytes),
        }
    }
}

fn note_spill(ctx: &ExecContext, files: u64, bytes: u64) {
    ctx.spilled
        .set(ctx.spilled.get().plus(SpillStats { files, bytes }));
}

/// The error for a failed spill-file operation: 53100 for a full disk, else 58030.
fn spill_error(action: &str, error: io::Error) -> ExecError {
    if matches!(
        error.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
    ) {
        ExecError::new(
            sqlstate::DISK_FULL,
            format!("could not {action}: disk full ({error})"),
        )
    } else {
        ExecError::new(sqlstate::IO_ERROR, format!("could not {action}: {error}"))
    }
}

pub(super) fn corrupt(what: &str) -> ExecError {
    ExecError::new(
        sqlstate::DATA_CORRUPTED,
        format!("spill file reads back damaged: {what}"),
    )
}

/// Creates an anonymous file in `directory`: created exclusively (never someone else's file),
/// readable by its owner only, and unlinked at once so it vanishes with its last handle.
fn create_anonymous_file(directory: &Path) -> ExecResult<File> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.subsec_nanos())
        .unwrap_or(0);
    let mut last_error = None;
    for _ in 0..8 {
        let name = format!(
            "basalt-spill-{}-{}-{nanos}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let path = directory.join(name);
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(file) => {
                std::fs::remove_file(&path)
                    .map_err(|error| spill_error("unlink a new spill file", error))?;
                return Ok(file);
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => last_error = Some(error),
            Err(error) => {
                return Err(spill_error(
                    &format!("create a spill file in {}", directory.display()),
                    error,
                ));
            }
        }
    }
    Err(spill_error(
        "find a free name for a spill file",
        last_error.unwrap_or_else(|| io::Error::other("no free name")),
    ))
}

/// How much a spill file buffers before writing: a slice of the operator's budget, within
/// sensible bounds (small budgets still get efficient I/O; large ones waste no memory).
pub fn write_buffer_size(budget: usize, files: usize) -> usize {
    (budget / files.max(1) / 2).clamp(4 << 10, 256 << 10)
}

/// A temporary file of length-prefixed records, appended through a buffer.
#[derive(Debug)]
pub struct SpillFile {
    file: Arc<File>,
    buffer: Vec<u8>,
    buffer_limit: usize,
    /// Bytes already written to the file (readers may read up to here).
    flushed: u64,
}

impl SpillFile {
    /// A new, empty spill file buffering `buffer_limit` bytes before each write.
    pub fn create(ctx: &ExecContext, buffer_limit: usize) -> ExecResult<SpillFile> {
        let file = match &ctx.spill_directory {
            Some(directory) => create_anonymous_file(directory)?,
            None => create_anonymous_file(&std::env::temp_dir())?,
        };
        note_spill(ctx, 1, 0);
        Ok(SpillFile {
            file: Arc::new(file),
            buffer: Vec::with_capacity(buffer_limit),
            buffer_limit,
            flushed: 0,
        })
    }

    /// Bytes appended so far (buffered ones included): the end of the last record.
    pub fn len(&self) -> u64 {
        self.flushed + self.buffer.len() as u64
    }

    /// Appends one record.
    pub fn append(&mut self, record: &[u8], ctx: &ExecContext) -> ExecResult<()> {
        write_varint(record.len() as u64, &mut self.buffer);
        self.buffer.extend_from_slice(record);
        if self.buffer.len() >= self.buffer_limit {
            self.flush(ctx)?;
        }
        Ok(())
    }

    /// Writes out the buffer, so readers see every record appended so far.
    pub fn flush(&mut self, ctx: &ExecContext) -> ExecResult<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.file
            .write_all_at(&self.buffer, self.flushed)
            .map_err(|error| spill_error("write a spill file", error))?;
        self.flushed += self.buffer.len() as u64;
        note_spill(ctx, 0, self.buffer.len() as u64);
        self.buffer.clear();
        Ok(())
    }

    /// A reader of the records in bytes `start..end` (flushed ones), reading `chunk` bytes
    /// at a time.
    pub fn reader(&self, start: u64, end: u64, chunk: usize) -> ExecResult<RecordReader> {
        if start > end || end > self.flushed {
            return Err(ExecError::internal(
                "spill file region read before it was written",
            ));
        }
        Ok(RecordReader {
            file: self.file.clone(),
            next_offset: start,
            end,
            buffer: Vec::new(),
            position: 0,
            chunk: chunk.max(1),
        })
    }
}

/// Reads the records of one region of a spill file, in order.
#[derive(Debug)]
pub struct RecordReader {
    file: Arc<File>,
    /// File offset of the first byte not yet in `buffer`.
    next_offset: u64,
    end: u64,
    buffer: Vec<u8>,
    /// Start of the unread bytes in `buffer`.
    position: usize,
    chunk: usize,
}

impl RecordReader {
    /// The next record, or `None` at the end of the region.
    pub fn next_record(&mut self) -> ExecResult<Option<&[u8]>> {
        let left_in_file = self.end - self.next_offset;
        if self.position == self.buffer.len() && left_in_file == 0 {
            return Ok(None);
        }
        // A length prefix is at most ten bytes, and never runs past the region's end.
        let unread = (self.buffer.len() - self.position) as u64;
        self.fill((unread + left_in_file).min(10) as usize)?;
        let (length, used) = read_varint(&self.buffer[self.position..])
            .ok_or_else(|| corrupt("bad record length"))?;
        self.position += used;
        let length = usize::try_from(length).map_err(|_| corrupt("record too long"))?;
        self.fill(length)?;
        let record = &self.buffer[self.position..self.position + length];
        self.position += length;
        Ok(Some(record))
    }

    /// Makes at least `wanted` unread bytes available in the buffer.
    fn fill(&mut self, wanted: usize) -> ExecResult<()> {
        let available = self.buffer.len() - self.position;
        if available >= wanted {
            return Ok(());
        }
        self.buffer.drain(..self.position);
        self.position = 0;
        let left_in_file = self.end - self.next_offset;
        let read = ((wanted - available).max(self.chunk) as u64).min(left_in_file) as usize;
        if available + read < wanted {
            return Err(corrupt("record runs past the end of its region"));
        }
        let old_length = self.buffer.len();
        self.buffer.resize(old_length + read, 0);
        self.file
            .read_exact_at(&mut self.buffer[old_length..], self.next_offset)
            .map_err(|error| spill_error("read a spill file", error))?;
        self.next_offset += read as u64;
        Ok(())
    }
}

/// The hash that assigns a row key to a partition. Each level of recursive partitioning
/// uses its own `seed`, so rows that shared a partition at one level spread at the next.
pub fn partition_hash(key: &[u8], seed: u64) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write_u64(seed);
    hasher.write(key);
    hasher.finish()
}

/// How many parts an operator divides its overflow into at each level. Sixteen parts take
/// a table sixteen times the budget in one level, 256 times in two.
pub const PARTITION_COUNT: usize = 16;

/// How many times an operator partitions a part that is still too big. Every level makes
/// progress, so this only bounds pathological cases (one huge key), which then run in memory.
pub const MAX_PARTITION_DEPTH: u32 = 6;

/// Rows divided into [`PARTITION_COUNT`] spill files by the hash of a key.
#[derive(Debug)]
pub struct Partitions {
    codec: RowCodec,
    files: Vec<Option<SpillFile>>,
    rows: Vec<u64>,
    seed: u64,
    buffer_limit: usize,
    record: Vec<u8>,
}

impl Partitions {
    /// Empty partitions for rows of `types`, assigning keys with `seed`; `budget` is the
    /// operator's memory budget, which sizes the write buffers.
    pub fn new(types: &[DataType], seed: u64, budget: usize) -> Self {
        Partitions {
            codec: RowCodec::new(types),
            files: (0..PARTITION_COUNT).map(|_| None).collect(),
            rows: vec![0; PARTITION_COUNT],
            seed,
            buffer_limit: write_buffer_size(budget, PARTITION_COUNT),
            record: Vec::new(),
        }
    }

    /// The partition of rows whose key is `key`.
    pub fn partition_of(&self, key: &[u8]) -> usize {
        (partition_hash(key, self.seed) % PARTITION_COUNT as u64) as usize
    }

    /// Appends row `row` of `batch` to `partition` (files are created on first use).
    pub fn write(
        &mut self,
        partition: usize,
        batch: &Batch,
        row: usize,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        let Some(slot) = self.files.get_mut(partition) else {
            return Err(ExecError::internal("spill partition out of range"));
        };
        let file = match slot {
            Some(file) => file,
            None => slot.insert(SpillFile::create(ctx, self.buffer_limit)?),
        };
        self.record.clear();
        self.codec.encode(batch, row, &mut self.record);
        file.append(&self.record, ctx)?;
        self.rows[partition] += 1;
        Ok(())
    }

    /// Flushes every partition; one [`SpilledRows`] per partition, in partition order.
    pub fn finish(self, ctx: &ExecContext) -> ExecResult<Vec<SpilledRows>> {
        let codec = self.codec;
        self.files
            .into_iter()
            .zip(self.rows)
            .map(|(file, rows)| {
                let file = match file {
                    Some(mut file) => {
                        file.flush(ctx)?;
                        Some(file)
                    }
                    None => None,
                };
                Ok(SpilledRows {
                    file,
                    rows,
                    codec: codec.clone(),
                })
            })
            .collect()
    }
}

/// The rows of one partition, written and flushed.
#[derive(Debug)]
pub struct SpilledRows {
    file: Option<SpillFile>,
    rows: u64,
    codec: RowCodec,
}

impl SpilledRows {
    /// Number of rows.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Bytes they take on disk (a fair estimate of their size in memory).
    pub fn bytes(&self) -> u64 {
        self.file.as_ref().map_or(0, SpillFile::len)
    }

    /// Reads the rows back, in the order they were written; the file goes away when the
    /// reader does.
    pub fn into_reader(self) -> ExecResult<BatchReader> {
        let records = match &self.file {
            Some(file) => Some(file.reader(0, file.len(), 64 << 10)?),
            None => None,
        };
        Ok(BatchReader {
            records,
            codec: self.codec,
        })
    }
}

/// Reads spilled rows back as batches of up to [`BATCH_SIZE`] rows.
#[derive(Debug)]
pub struct BatchReader {
    records: Option<RecordReader>,
    codec: RowCodec,
}

impl BatchReader {
    /// The next batch, or `None` after the last row.
    pub fn next_batch(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        ctx.check_interrupt()?;
        let Some(records) = &mut self.records else {
            return Ok(None);
        };
        let mut batch = Batch::with_types(self.codec.types(), BATCH_SIZE);
        while batch.rows < BATCH_SIZE {
            let Some(record) = records.next_record()? else {
                break;
            };
            self.codec.decode(record, &mut batch)?;
        }
        if batch.rows == 0 {
            self.records = None;
            return Ok(None);
        }
        Ok(Some(batch))
    }

    /// Every remaining row, as one batch.
    pub fn read_all(&mut self, ctx: &ExecContext) -> ExecResult<Batch> {
        let mut batches = Vec::new();
        while let Some(batch) = self.next_batch(ctx)? {
            batches.push(batch);
        }
        Ok(super::operators::sort::concatenate(
            &batches,
            self.codec.types(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Value;

    #[test]
    fn rows_of_every_type_read_back_across_buffer_boundaries() {
        let ctx = ExecContext::for_tests(1 << 20);
        let types = [
            DataType::Boolean,
            DataType::Integer,
            DataType::Real,
            DataType::Text(None),
            DataType::Blob,
            DataType::Date,
            DataType::Timestamp,
            DataType::Null,
            DataType::Interval,
            DataType::Uuid,
            DataType::Json,
            DataType::Jsonb,
        ];
        let mut batch = Batch::with_types(&types, 4);
        let big = vec![0xA5u8; 300 << 10];
        batch.push_row(&[
            Value::Boolean(true),
            Value::Integer(i64::MIN),
            Value::Real(-0.5),
            Value::Text("héllo".into()),
            Value::Blob(big.clone()),
            Value::Date(-719_162),
            Value::Timestamp(i64::MAX),
            Value::Null,
            Value::Interval(crate::types::Interval::new(-14, 3, i64::MIN)),
            Value::Uuid([0xAB; 16]),
            Value::Json(" [1,2] ".into()),
            Value::Jsonb("{\"a\": 1}".into()),
        ]);
        batch.push_row(&vec![Value::Null; types.len()]);
        batch.push_row(&[
            Value::Boolean(false),
            Value::Integer(0),
            Value::Real(f64::INFINITY),
            Value::Text(String::new()),
            Value::Blob(Vec::new()),
            Value::Date(20_000),
            Value::Timestamp(-1),
            Value::Null,
            Value::Interval(crate::types::Interval::ZERO),
            Value::Uuid([0; 16]),
            Value::Json("null".into()),
            Value::Jsonb("[]".into()),
        ]);
        let mut partitions = Partitions::new(&types, 0, 1 << 20);
        for _ in 0..3 {
            for row in 0..batch.rows {
                partitions.write(row % 2, &batch, row, &ctx).unwrap();
            }
        }
        let parts = partitions.finish(&ctx).unwrap();
        assert_eq!(parts.len(), PARTITION_COUNT);
        assert_eq!(
            (parts[0].rows(), parts[1].rows(), parts[2].rows()),
            (6, 3, 0)
        );
        assert!(parts[0].bytes() > 3 * big.len() as u64);
        let mut parts = parts.into_iter();
        let mut reader = parts.next().unwrap().into_reader().unwrap();
        let read = reader.read_all(&ctx).unwrap();
        assert_eq!(read.rows, 6);
        for row in 0..6 {
            let original = if row % 2 == 0 { 0 } else { 2 };
            assert_eq!(read.row(row), batch.row(original), "row {row}");
        }
        let read = parts
            .next()
            .unwrap()
            .into_reader()
            .unwrap()
            .read_all(&ctx)
            .unwrap();
        assert_eq!(read.row(2), batch.row(1));
        let mut empty = parts.next().unwrap().into_reader().unwrap();
        assert!(empty.next_batch(&ctx).unwrap().is_none());
        assert_eq!(ctx.spilled.get().files, 2);
    }
}
