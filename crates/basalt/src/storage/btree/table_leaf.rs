//! Table leaf pages: rows stored column-major (PAX).
//!
//! A table leaf holds a run of rows with consecutive row ids (in key order). Instead of
//! storing each row as one record, the page stores one array per column, so a scan of one
//! column reads one contiguous array per page and a point read touches one slot per needed
//! column. Fixed-width values are read with `from_le_bytes` straight from the page;
//! variable-length values live in a heap at the end of the page, addressed by 4-byte
//! descriptors in their column's array.
//!
//! # Layout
//!
//! All integers are little-endian. `usable_size` is the page size minus the pager's 4-byte
//! checksum trailer.
//!
//! ```text
//! 0   u8   kind = page::kind::TABLE_LEAF
//! 1   u8   flags (0)
//! 2   u16  column_count
//! 4   u16  row_count
//! 6   u16  capacity       rows the fixed-size arrays below are laid out for (>= row_count)
//! 8   u16  heap_start     the heap occupies [heap_start, usable_size) and grows downward
//! 10  u16  heap_garbage   dead bytes inside the heap, reclaimed by compaction
//! 12  u32  prev_leaf      left sibling (0 = none)
//! 16  u32  next_leaf      right sibling (0 = none)
//! 20  column kinds: column_count bytes (ColumnKind discriminants), zero-padded so the next
//!     array starts at a multiple of 8
//!     row ids: capacity x i64, ascending and unique in slots [0, row_count)
//!     for each column in order:
//!         null bitmap: ceil(capacity / 8) bytes, bit (row % 8) of byte (row / 8) set = NULL,
//!                      zero-padded to a multiple of 8
//!         values: capacity x width for a fixed column (width 1, 2, 4 or 8), or
//!                 capacity x 4 for a Var column: u16 heap offset, u16 length (a Var
//!                 descriptor, below); zero-padded to a multiple of 8
//!     free space
//!     heap (var-length entries, packed downward from usable_size)
//! ```
//!
//! A NULL value has its bitmap bit set and a zero slot (a Var NULL has no heap entry). Slots
//! at positions `row_count..capacity` are zero. An empty Var value has length 0 and no heap
//! bytes. Pages written before an `ALTER TABLE ADD COLUMN` have fewer columns; the missing
//! columns read as NULL.
//!
//! # Var values: inline or overflow
//!
//! A Var descriptor is `u16 offset, u16 length`. With bit 0x8000 of the length clear, the
//! value is the `length` heap bytes at `offset` (length 0: the empty value, offset 0). With
//! the bit set, the `length & 0x7FFF` heap bytes at `offset` are an *overflow entry*:
//!
//! ```text
//! 0   u32  first page of the overflow chain (never 0)
//! 4   u64  total length T of the value (T <= overflow::MAX_VALUE_LEN)
//! 12  ...  inline prefix: the value's first K bytes, K = entry length - 12 (K < T)
//! ```
//!
//! The chain ([`super::overflow`]) holds the value's remaining `T - K` bytes (at least one).
//! Where a value goes is decided per row, before it is stored, with `U` = usable size,
//! `P = U - 12` = value bytes per overflow page and `X` = [`max_inline_len`]`(U)`
//! `= (U - 56) / 2`:
//!
//! 1. A Var value of length `L <= X` is stored inline (heap cost `L`).
//! 2. A longer one goes to overflow with an inline prefix of `K = L mod P` bytes if
//!    `12 + L mod P <= X`, else `K = 0` (heap cost `12 + K`, so at most `X` either way).
//!    The chain then holds `L - K` bytes: a whole number of full pages when `K > 0`.
//! 3. While the row does not fit a leaf twice (`row_fits_twice`: the arrays of a
//!    two-row page plus twice the row's heap cost fit in `U`), the Var value with the
//!    largest heap cost above 12 (the highest column on a tie) is moved out entirely:
//!    overflow with `K = 0`, heap cost 12. If no value is left to move, the row is
//!    rejected with `StorageError::RowTooWide`.
//!
//! Numbers: on 4 KiB pages `U = 4092`, `P = 4080`, `X = 2018`; on 64 KiB pages
//! `U = 65532`, `P = 65520`, `X = 32738`. `X` is the longest value of which two one-column
//! rows fit a leaf (56 bytes are the arrays of a two-row leaf with one Var column), the
//! same two-rows guarantee step 3 keeps for every row, so splits always have rows to
//! separate. A value between a quarter and a half of a page (a 384-dimensional vector is
//! 1536 bytes) is stored in the leaf at its own length rather than in an overflow page of
//! its own that would be mostly empty, and a scan reads it without a second page. Files
//! written before the limit was raised from `(U - 80) / 4` (1003 on 4 KiB pages) hold only
//! shorter inline values, which this rule still accepts. `X + 12 < 0x8000`, so every entry
//! length fits the descriptor.
//!
//! Step 2 is SQLite's local-payload rule (`local = minLocal + (L - minLocal) mod P`, or
//! `minLocal` if that exceeds `maxLocal = X - 12`) with `minLocal = 0`: the chain has
//! `floor(L / P)` pages, plus one when `L mod P > X - 12`, and that holds for any
//! `minLocal <= X - 12`,
//! so a larger minimum prefix would only take leaf space without saving an overflow page.
//! Keeping the remainder `L mod P` in the leaf when it is small enough makes every chain
//! page full.
//!
//! # Modification
//!
//! Inserting at position `i` shifts only rows `i..row_count` of each array, so appending is
//! O(columns). When the arrays are full (`row_count == capacity`) or the heap would run into
//! them, the page is *re-laid out*: a new capacity is estimated from the average row size
//! (fixed bytes plus average heap bytes per row) and the page is rebuilt with its heap
//! compacted. Only when the row does not fit even then does the insert report "no space",
//! and the tree splits the page. A row with more columns than the page (with the same kinds
//! for the shared prefix) upgrades the page's layout the same way.
//!
//! Every view of a page ([`TableLeaf::new`]) validates the header and that the arrays fit
//! below the heap; each heap descriptor is bounds-checked when read. So no byte pattern can
//! make a read go out of bounds; it produces `StorageError::Corrupt` instead.

use std::ops::Range;

use super::overflow::{MAX_VALUE_LEN, data_per_page};
use super::row::{ColumnKind, ValueRef};
pub(crate) use super::table_leaf_write::{
    build_leaf, init_leaf, insert_row, insert_row_with_header, merged_kinds, overwrite_row,
    remove_row, set_next_leaf, set_prev_leaf, union_kinds,
};
use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, kind};

/// Bytes of the fixed header before the column kinds.
pub const LEAF_HEADER_LEN: usize = 20;
/// Bytes of an overflow entry before its inline prefix: u32 first page, u64 total length.
pub const OVERFLOW_POINTER_LEN: usize = 12;
/// Descriptor length bit marking an overflow pointer.
pub(crate) const OVERFLOW_FLAG: u16 = 0x8000;
/// Largest capacity a page can declare (the header field is a u16).
pub(crate) const MAX_CAPACITY: usize = u16::MAX as usize;

/// Longest Var value stored inline, `X = (usable_size - 56) / 2`: the longest value of which
/// two one-column rows fit a leaf (56 bytes are that leaf's arrays), so a value up to about
/// half a page (2018 bytes on a 4 KiB page, 32 738 on a 64 KiB page) costs its own length
/// in a leaf and no overflow page. Longer values go to overflow chains, keeping at most this
/// many bytes as inline prefix. See the module documentation for the whole rule.
pub fn max_inline_len(usable_size: usize) -> usize {
    usable_size.saturating_sub(ArrayPlan::for_kinds(&[ColumnKind::Var], 2).arrays_end) / 2
}

/// Inline prefix length of a value of `len > max_inline_len` bytes that goes to overflow
/// (step 2 of the rule in the module documentation): `len mod P` when the entry holding it
/// (12 bytes of pointer and the prefix) is at most the inline limit, so the chain is a whole
/// number of full pages, else 0.
pub fn overflow_prefix_len(usable_size: usize, len: usize) -> usize {
    let remainder = len % data_per_page(usable_size).max(1);
    if OVERFLOW_POINTER_LEN + remainder <= max_inline_len(usable_size) {
        remainder
    } else {
        0
    }
}

pub(crate) fn align8(value: usize) -> usize {
    value.div_ceil(8) * 8
}

pub(crate) fn read_u16(bytes: &[u8], at: usize) -> u16 {
    match bytes.get(at..at + 2) {
        Some(slice) => u16::from_le_bytes([slice[0], slice[1]]),
        None => 0,
    }
}

pub(crate) fn read_u32(bytes: &[u8], at: usize) -> u32 {
    match bytes.get(at..at + 4) {
        Some(slice) => u32::from_le_bytes([slice[0], slice[1], slice[2], slice[3]]),
        None => 0,
    }
}

pub(crate) fn read_u64(bytes: &[u8], at: usize) -> u64 {
    let mut buffer = [0u8; 8];
    if let Some(slice) = bytes.get(at..at + 8) {
        buffer.copy_from_slice(slice);
    }
    u64::from_le_bytes(buffer)
}

/// Reads a little-endian unsigned value of `width` (1..=8) bytes; 0 if out of bounds.
pub(crate) fn read_uint(bytes: &[u8], at: usize, width: usize) -> u64 {
    let mut buffer = [0u8; 8];
    if let (Some(slice), Some(target)) = (bytes.get(at..at + width), buffer.get_mut(..width)) {
        target.copy_from_slice(slice);
    }
    u64::from_le_bytes(buffer)
}

pub(crate) fn write_u16(bytes: &mut [u8], at: usize, value: u16) {
    if let Some(slice) = bytes.get_mut(at..at + 2) {
        slice.copy_from_slice(&value.to_le_bytes());
    }
}

pub(crate) fn write_u32(bytes: &mut [u8], at: usize, value: u32) {
    if let Some(slice) = bytes.get_mut(at..at + 4) {
        slice.copy_from_slice(&value.to_le_bytes());
    }
}

pub(crate) fn write_uint(bytes: &mut [u8], at: usize, width: usize, value: u64) {
    if let (Some(slice), Some(source)) = (
        bytes.get_mut(at..at + width),
        value.to_le_bytes().get(..width),
    ) {
        slice.copy_from_slice(source);
    }
}

pub(crate) fn corrupt(page_no: PageNo, reason: impl Into<String>) -> StorageError {
    StorageError::corrupt_page(page_no, reason)
}

/// Where the arrays of a leaf lie, for a given list of column kinds and capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ArrayPlan {
    /// Offset of the row id array.
    pub(crate) row_ids_at: usize,
    /// Offset of column 0's null bitmap.
    pub(crate) columns_at: usize,
    /// Padded length of one null bitmap.
    pub(crate) bitmap_len: usize,
    /// First byte after the last column's value array.
    pub(crate) arrays_end: usize,
}

/// Bytes one column takes in a leaf of `capacity` rows: its null bitmap (`bitmap_len`) then
/// its value array, padded to 8. Columns follow each other in this layout.
pub(crate) fn column_arrays_len(bitmap_len: usize, capacity: usize, kind: ColumnKind) -> usize {
    bitmap_len + align8(capacity * kind.slot_width())
}

impl ArrayPlan {
    fn new(kinds: impl Iterator<Item = ColumnKind>, column_count: usize, capacity: usize) -> Self {
        ArrayPlan::recording_starts(kinds, column_count, capacity, &mut [])
    }

    /// [`ArrayPlan::new`], also writing where each of the first `starts.len()` columns'
    /// arrays begin (its null bitmap) into `starts` (saturated at `u16::MAX`, which only a
    /// plan too large for any page can reach).
    fn recording_starts(
        kinds: impl Iterator<Item = ColumnKind>,
        column_count: usize,
        capacity: usize,
        starts: &mut [u16],
    ) -> Self {
        let row_ids_at = align8(LEAF_HEADER_LEN + column_count);
        let columns_at = row_ids_at + capacity * 8;
        let bitmap_len = align8(capacity.div_ceil(8));
        let mut end = columns_at;
        for (column, kind) in kinds.enumerate() {
            if let Some(start) = starts.get_mut(column) {
                *start = u16::try_from(end).unwrap_or(u16::MAX);
            }
            end += column_arrays_len(bitmap_len, capacity, kind);
        }
        ArrayPlan {
            row_ids_at,
            columns_at,
            bitmap_len,
            arrays_end: end,
        }
    }

    /// The plan for `kinds` at `capacity`.
    pub(crate) fn for_kinds(kinds: &[ColumnKind], capacity: usize) -> Self {
        ArrayPlan::new(kinds.iter().copied(), kinds.len(), capacity)
    }
}

/// Bytes the arrays of a leaf with `kinds` need per row (row id, slots, one bitmap bit per
/// column rounded up), ignoring padding.
pub(crate) fn fixed_bytes_per_row(kinds: &[ColumnKind]) -> usize {
    8 + kinds.iter().map(|kind| kind.slot_width()).sum::<usize>() + kinds.len().div_ceil(8)
}

/// The largest capacity for which arrays plus `heap_bytes` of heap fit in `usable_size`.
fn max_capacity(kinds: &[ColumnKind], usable_size: usize, heap_bytes: usize) -> Option<usize> {
    let base = ArrayPlan::for_kinds(kinds, 0).arrays_end;
    let room = usable_size.checked_sub(base + heap_bytes)?;
    // Estimate from the per-row cost (bitmap bits counted exactly), then step down past the
    // padding, which is at most 14 bytes per column plus 7 for the row ids.
    let per_row_bits =
        8 * (8 + kinds.iter().map(|kind| kind.slot_width()).sum::<usize>()) + kinds.len();
    let mut capacity = (room * 8 / per_row_bits).min(MAX_CAPACITY);
    while ArrayPlan::for_kinds(kinds, capacity).arrays_end + heap_bytes > usable_size {
        capacity = capacity.checked_sub(1)?;
    }
    Some(capacity)
}

/// Capacity for a page that will hold `rows` rows with `heap_bytes` of live heap: enough
/// for as many rows of the current average size as the page holds (so later inserts of
/// similar rows need no relayout), at least `rows`, at most what fits. `None` if `rows`
/// rows do not fit at all.
pub(crate) fn choose_capacity(
    kinds: &[ColumnKind],
    usable_size: usize,
    rows: usize,
    heap_bytes: usize,
) -> Option<usize> {
    let most = max_capacity(kinds, usable_size, heap_bytes)?;
    if most < rows {
        return None;
    }
    let base = ArrayPlan::for_kinds(kinds, 0).arrays_end;
    let average_row = fixed_bytes_per_row(kinds) + heap_bytes.div_ceil(rows.max(1));
    let estimate = usable_size.saturating_sub(base) / average_row.max(1);
    Some(estimate.clamp(rows, most))
}

/// Whether a row with these kinds and this many heap bytes fits twice in one page, the
/// condition for storing it (a split must be able to separate any two rows).
pub(crate) fn row_fits_twice(kinds: &[ColumnKind], usable_size: usize, heap_bytes: usize) -> bool {
    ArrayPlan::for_kinds(kinds, 2).arrays_end + 2 * heap_bytes <= usable_size
}

/// Columns whose array offsets a [`LeafHeader`] keeps, so reading one of them from a row
/// needs no walk over the columns before it (later columns walk from the last kept one).
const KEPT_COLUMN_STARTS: usize = 16;

/// The validated header of a leaf page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LeafHeader {
    pub(crate) column_count: usize,
    pub(crate) row_count: usize,
    pub(crate) capacity: usize,
    pub(crate) heap_start: usize,
    pub(crate) heap_garbage: usize,
    pub(crate) prev_leaf: PageNo,
    pub(crate) next_leaf: PageNo,
    pub(crate) plan: ArrayPlan,
    /// Where the arrays of each of the first [`KEPT_COLUMN_STARTS`] columns begin.
    column_starts: [u16; KEPT_COLUMN_STARTS],
}

impl LeafHeader {
    /// Reads and validates the header of `bytes` (the usable part of page `page_no`).
    pub(crate) fn read(bytes: &[u8], page_no: PageNo) -> Result<LeafHeader> {
        if bytes.len() < LEAF_HEADER_LEN || bytes.len() > u16::MAX as usize + 1 {
            return Err(corrupt(page_no, "page size unsuitable for a table leaf"));
        }
        if bytes[0] != kind::TABLE_LEAF {
            return Err(corrupt(
                page_no,
                format!("expected a table leaf, found page kind {}", bytes[0]),
            ));
        }
        let column_count = usize::from(read_u16(bytes, 2));
        let row_count = usize::from(read_u16(bytes, 4));
        let capacity = usize::from(read_u16(bytes, 6));
        let heap_start = usize::from(read_u16(bytes, 8));
        let heap_garbage = usize::from(read_u16(bytes, 10));
        if row_count > capacity {
            return Err(corrupt(
                page_no,
                format!("row count {row_count} exceeds capacity {capacity}"),
            ));
        }
        let kinds = bytes
            .get(LEAF_HEADER_LEN..LEAF_HEADER_LEN + column_count)
            .ok_or_else(|| corrupt(page_no, "column kinds run past the page"))?;
        let mut parsed = Ok(());
        let mut column_starts = [0; KEPT_COLUMN_STARTS];
        let plan = ArrayPlan::recording_starts(
            kinds.iter().map(|&byte| {
                ColumnKind::from_byte(byte).unwrap_or_else(|| {
                    parsed = Err(corrupt(page_no, format!("invalid column kind {byte}")));
                    ColumnKind::Fixed1
                })
            }),
            column_count,
            capacity,
            &mut column_starts,
        );
        parsed?;
        // An empty page may keep the heap at the very end: heap_start == usable size.
        if plan.arrays_end > heap_start || heap_start > bytes.len() {
            return Err(corrupt(
                page_no,
                format!(
                    "arrays end at {} but heap starts at {heap_start} (page {} bytes)",
                    plan.arrays_end,
                    bytes.len()
                ),
            ));
        }
        if heap_garbage > bytes.len() - heap_start {
            return Err(corrupt(page_no, "heap garbage exceeds the heap"));
        }
        Ok(LeafHeader {
            column_count,
            row_count,
            capacity,
            heap_start,
            heap_garbage,
            prev_leaf: read_u32(bytes, 12),
            next_leaf: read_u32(bytes, 16),
            plan,
            column_starts,
        })
    }
}

/// A validated, read-only view of a table leaf page.
#[derive(Debug, Clone, Copy)]
pub struct TableLeaf<'a> {
    bytes: &'a [u8],
    page_no: PageNo,
    header: LeafHeader,
}

impl<'a> TableLeaf<'a> {
    /// Validates the usable bytes of page `page_no` as a table leaf.
    pub fn new(bytes: &'a [u8], page_no: PageNo) -> Result<TableLeaf<'a>> {
        let header = LeafHeader::read(bytes, page_no)?;
        Ok(TableLeaf {
            bytes,
            page_no,
            header,
        })
    }

    /// A view with a header validated earlier for these same bytes.
    pub(crate) fn with_header(bytes: &'a [u8], page_no: PageNo, header: LeafHeader) -> Self {
        TableLeaf {
            bytes,
            page_no,
            header,
        }
    }

    /// The page bytes this view reads.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub(crate) fn header(&self) -> LeafHeader {
        self.header
    }

    /// The page number this view was read from.
    pub fn page_no(&self) -> PageNo {
        self.page_no
    }

    /// Rows on the page.
    pub fn row_count(&self) -> usize {
        self.header.row_count
    }

    /// Columns the page is laid out for; higher columns read as NULL.
    pub fn column_count(&self) -> usize {
        self.header.column_count
    }

    /// Rows the arrays have room for before a relayout.
    pub fn capacity(&self) -> usize {
        self.header.capacity
    }

    /// Left sibling leaf (0 = none).
    pub fn prev_leaf(&self) -> PageNo {
        self.header.prev_leaf
    }

    /// Right sibling leaf (0 = none).
    pub fn next_leaf(&self) -> PageNo {
        self.header.next_leaf
    }

    /// Storage class of column `column`, `None` beyond the page's columns.
    pub fn column_kind(&self, column: usize) -> Option<ColumnKind> {
        if column >= self.header.column_count {
            return None;
        }
        self.bytes
            .get(LEAF_HEADER_LEN + column)
            .and_then(|&byte| ColumnKind::from_byte(byte))
    }

    /// All column kinds of the page.
    pub fn column_kinds(&self) -> Vec<ColumnKind> {
        (0..self.header.column_count)
            .filter_map(|column| self.column_kind(column))
            .collect()
    }

    /// The row id at position `row` (`row < row_count`; 0 otherwise).
    pub fn row_id(&self, row: usize) -> i64 {
        if row >= self.header.row_count {
            return 0;
        }
        read_u64(self.bytes, self.header.plan.row_ids_at + row * 8) as i64
    }

    /// The row ids as raw bytes: `row_count` little-endian i64s.
    pub fn row_ids_raw(&self) -> &'a [u8] {
        let at = self.header.plan.row_ids_at;
        self.bytes
            .get(at..at + self.header.row_count * 8)
            .unwrap_or_default()
    }

    /// The row ids in order.
    pub fn row_ids(&self) -> impl Iterator<Item = i64> + 'a {
        self.row_ids_raw().chunks_exact(8).map(|chunk| {
            let mut buffer = [0u8; 8];
            buffer.copy_from_slice(chunk);
            i64::from_le_bytes(buffer)
        })
    }

    /// Binary search for `row_id`: `Ok(position)` if present, else `Err(insertion point)`.
    pub fn search(&self, row_id: i64) -> std::result::Result<usize, usize> {
        // Slice the id array once so each probe is a plain load.
        let ids = self.row_ids_raw();
        let (mut low, mut high) = (0, ids.len() / 8);
        while low < high {
            let middle = low + (high - low) / 2;
            let probe = read_u64(ids, middle * 8) as i64;
            if probe < row_id {
                low = middle + 1;
            } else if probe > row_id {
                high = middle;
            } else {
                return Ok(middle);
            }
        }
        Err(low)
    }

    /// Offsets of column `column`'s null bitmap and value array, and its kind.
    pub(crate) fn column_location(&self, column: usize) -> Option<(usize, usize, ColumnKind)> {
        if column >= self.header.column_count {
            return None;
        }
        let kinds = self
            .bytes
            .get(LEAF_HEADER_LEN..LEAF_HEADER_LEN + column + 1)?;
        let capacity = self.header.capacity;
        // The header was validated, so every kept start lies inside the page.
        let walk_from = column.min(KEPT_COLUMN_STARTS - 1);
        let mut at = usize::from(self.header.column_starts[walk_from]);
        for &byte in kinds.get(walk_from..column)? {
            let kind = ColumnKind::from_byte(byte)?;
            at += column_arrays_len(self.header.plan.bitmap_len, capacity, kind);
        }
        let kind = ColumnKind::from_byte(*kinds.get(column)?)?;
        Some((at, at + self.header.plan.bitmap_len, kind))
    }

    /// A fixed-width column's values as raw bytes (`row_count × width`, little-endian) and
    /// its width; `None` for a Var column or one the page lacks. NULL rows hold zeros.
    pub fn fixed_column(&self, column: usize) -> Option<(&'a [u8], usize)> {
        let (_, values_at, kind) = self.column_location(column)?;
        let width = kind.fixed_width()?;
        let bytes = self
            .bytes
            .get(values_at..values_at + self.header.row_count * width)?;
        Some((bytes, width))
    }

    /// A column's null bitmap (`ceil(row_count / 8)` bytes, bit set = NULL); `None` for a
    /// column the page lacks (every row reads as NULL).
    pub fn null_bitmap(&self, column: usize) -> Option<&'a [u8]> {
        let (bitmap_at, _, _) = self.column_location(column)?;
        self.bytes
            .get(bitmap_at..bitmap_at + self.header.row_count.div_ceil(8))
    }

    /// Whether the value at (`row`, `column`) is NULL.
    pub fn is_null(&self, row: usize, column: usize) -> bool {
        match self.column_location(column) {
            Some((bitmap_at, _, _)) => bit(self.bytes, bitmap_at, row),
            None => true,
        }
    }

    /// The value at (`row`, `column`), borrowed from the page.
    pub fn value(&self, row: usize, column: usize) -> Result<ValueRef<'a>> {
        if row >= self.header.row_count {
            return Err(StorageError::InvalidArgument(format!(
                "row {row} of a leaf with {} rows",
                self.header.row_count
            )));
        }
        let Some((bitmap_at, values_at, kind)) = self.column_location(column) else {
            return Ok(ValueRef::Null);
        };
        if bit(self.bytes, bitmap_at, row) {
            return Ok(ValueRef::Null);
        }
        match kind.fixed_width() {
            Some(width) => Ok(ValueRef::Fixed(read_uint(
                self.bytes,
                values_at + row * width,
                width,
            ))),
            None => self.var_value(values_at + row * 4),
        }
    }

    /// Decodes the Var descriptor at `at`, checking the heap entry lies inside the heap.
    fn var_value(&self, at: usize) -> Result<ValueRef<'a>> {
        let offset = usize::from(read_u16(self.bytes, at));
        let raw_len = read_u16(self.bytes, at + 2);
        let len = usize::from(raw_len & !OVERFLOW_FLAG);
        if len == 0 && raw_len & OVERFLOW_FLAG == 0 {
            return Ok(ValueRef::Var(&[]));
        }
        if offset < self.header.heap_start {
            return Err(corrupt(
                self.page_no,
                "var descriptor points below the heap",
            ));
        }
        let entry = self
            .bytes
            .get(offset..offset + len)
            .ok_or_else(|| corrupt(self.page_no, "var descriptor points past the page"))?;
        if raw_len & OVERFLOW_FLAG == 0 {
            return Ok(ValueRef::Var(entry));
        }
        let Some(prefix) = entry.get(OVERFLOW_POINTER_LEN..) else {
            return Err(corrupt(
                self.page_no,
                "overflow entry shorter than its pointer",
            ));
        };
        let first_page = read_u32(entry, 0);
        let total_len = read_u64(entry, 4);
        if first_page == 0 {
            return Err(corrupt(self.page_no, "overflow pointer to page 0"));
        }
        // The chain holds at least one byte, and the length is bounded so that no reader
        // trusts an absurd allocation.
        if total_len <= prefix.len() as u64 || total_len > MAX_VALUE_LEN {
            return Err(corrupt(
                self.page_no,
                format!(
                    "overflow value length {total_len} with a {}-byte inline prefix",
                    prefix.len()
                ),
            ));
        }
        Ok(ValueRef::Overflow {
            first_page,
            total_len,
            prefix,
        })
    }

    /// Heap bytes used by the live values of rows in `rows`.
    pub(crate) fn heap_bytes(&self, rows: Range<usize>) -> Result<usize> {
        let mut total = 0;
        for column in 0..self.header.column_count {
            if self.column_kind(column) != Some(ColumnKind::Var) {
                continue;
            }
            for row in rows.clone() {
                total += self.value(row, column)?.heap_len();
            }
        }
        Ok(total)
    }

    /// Heap bytes in use by live values, from the header (heap size minus garbage).
    pub(crate) fn live_heap_bytes(&self) -> usize {
        self.bytes.len() - self.header.heap_start - self.header.heap_garbage
    }

    /// Bytes the page would need if its arrays had exactly `row_count` slots: the measure of
    /// how full a page is, used for fill statistics and merge decisions.
    pub fn used_bytes(&self) -> usize {
        ArrayPlan::new(
            self.column_kinds().into_iter(),
            self.header.column_count,
            self.header.row_count,
        )
        .arrays_end
            + self.live_heap_bytes()
    }
}

pub(crate) fn bit(bytes: &[u8], bitmap_at: usize, row: usize) -> bool {
    bytes
        .get(bitmap_at + row / 8)
        .is_some_and(|byte| byte & (1 << (row % 8)) != 0)
}

pub(crate) fn set_bit(bytes: &mut [u8], bitmap_at: usize, row: usize, value: bool) {
    if let Some(byte) = bytes.get_mut(bitmap_at + row / 8) {
        if value {
            *byte |= 1 << (row % 8);
        } else {
            *byte &= !(1 << (row % 8));
        }
    }
}

#[cfg(test)]
#[path = "table_leaf_tests.rs"]
mod tests;
