//! Slotted-page codecs for index B+tree nodes: leaves (key → value) and interior nodes
//! (separator keys with child pointers).
//!
//! # What
//!
//! An index page is a classic slotted page. A 16-byte header is followed by a *slot array*
//! of little-endian `u16` cell offsets, one per cell and kept in key order; the cells
//! themselves are packed at the end of the page and grow downward toward the slot array.
//! Inserting an entry writes its cell into the gap and shifts the slots after its position
//! by two bytes; deleting shifts the slots back and leaves a hole among the cells that is
//! counted in `fragmented_bytes` and reclaimed by [`defragment`] when an insert needs the
//! space. Keys are compared with `memcmp` ([`Ord`] on `[u8]`), which is SQL order for the
//! memcomparable encodings stored here.
//!
//! All integers are little-endian. Offsets are relative to the start of the page and are
//! `u16`, which covers every usable page size (at most 65 532 bytes).
//!
//! ## Leaf page (`kind::INDEX_LEAF`)
//!
//! | offset | size | field                                                           |
//! |--------|------|-----------------------------------------------------------------|
//! | 0      | u8   | kind = 3 (`INDEX_LEAF`)                                         |
//! | 1      | u8   | flags, always 0                                                 |
//! | 2      | u16  | cell_count                                                      |
//! | 4      | u16  | content_start: cells occupy `[content_start, usable_size)`      |
//! | 6      | u16  | fragmented_bytes: dead bytes inside `[content_start, usable)`   |
//! | 8      | u32  | prev_leaf: left sibling leaf, 0 = none                          |
//! | 12     | u32  | next_leaf: right sibling leaf, 0 = none                         |
//! | 16     | 2·n  | slot array: `cell_count` × u16 cell offsets, in key order       |
//!
//! Leaf cell: `u16 key_len, u16 value_len, key bytes, value bytes` (4 bytes of header).
//!
//! ## Interior page (`kind::INDEX_INTERIOR`)
//!
//! | offset | size | field                                                           |
//! |--------|------|-----------------------------------------------------------------|
//! | 0      | u8   | kind = 4 (`INDEX_INTERIOR`)                                     |
//! | 1      | u8   | flags, always 0                                                 |
//! | 2      | u16  | cell_count (number of separator keys)                           |
//! | 4      | u16  | content_start                                                   |
//! | 6      | u16  | fragmented_bytes                                                |
//! | 8      | u32  | rightmost_child                                                 |
//! | 12     | u32  | reserved, written as 0                                          |
//! | 16     | 2·n  | slot array, in key order                                        |
//!
//! Interior cell: `u32 left_child, u16 key_len, key bytes` (6 bytes of header).
//!
//! An interior node with `n` separators `k_0 < … < k_{n-1}` has `n + 1` children: child `i`
//! (`i < n`) is cell `i`'s `left_child` and holds keys in `[k_{i-1}, k_i)`; child `n` is
//! `rightmost_child` and holds keys `≥ k_{n-1}`. A separator need not be a stored key: leaf
//! splits install the shortest prefix of the right half's first key that still sorts above
//! the left half's last key ([`separator`]).
//!
//! ## Entry size limit
//!
//! An entry's size is `key_len + value_len + 6` (cell header plus its slot, see
//! [`entry_size`]); it may be at most [`max_entry_size`] = `(usable_size - 16) / 4`, a
//! quarter of the space below the header: 1019 bytes (so `key_len + value_len ≤ 1013`) for
//! 4 KiB pages and 16 379 bytes (`≤ 16 373`) for 64 KiB pages. An interior cell for a
//! separator costs at most two bytes more than the entry it came from, so every node holds
//! at least three cells and splitting a full node plus one new cell always yields two halves
//! that fit.
//!
//! # Guarantees
//!
//! [`Node::parse`] checks the header (kind, flags, cell count against the slot space,
//! content start and fragmentation inside the page) in O(1); every cell access then checks
//! its slot offset and lengths against the page and returns `StorageError::Corrupt` naming
//! the page rather than panicking or reading out of bounds. [`Node::validate`] is the full
//! O(n) check used by integrity checks: cells inside the page, no overlaps, the byte
//! accounting exact, keys strictly increasing, no child pointer to page 0. Mutating functions
//! take the page's usable bytes and re-parse the header first, so a damaged page is refused
//! rather than made worse.
//!
//! # How it fits
//!
//! This is the lowest layer of the index tree: `index.rs` decides *what* goes into which
//! page (descent, splits, merges); this file only knows how one page is laid out.

use std::ops::Range;

use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, kind};

/// Size of the page header shared by leaf and interior pages.
pub const HEADER_SIZE: usize = 16;
/// Size of one slot-array entry.
pub const SLOT_SIZE: usize = 2;
/// Bytes of a leaf cell before its key: `u16 key_len, u16 value_len`.
pub const LEAF_CELL_HEADER: usize = 4;
/// Bytes of an interior cell before its key: `u32 left_child, u16 key_len`.
pub const INTERIOR_CELL_HEADER: usize = 6;
/// What an entry costs in a leaf beyond its key and value bytes: cell header plus slot.
pub const ENTRY_OVERHEAD: usize = LEAF_CELL_HEADER + SLOT_SIZE;
/// Deepest tree any walk will follow; deeper means a cycle in damaged child pointers.
/// (A tree of 64 levels with the minimum fan-out of 2 would hold more entries than fit in
/// any file a 32-bit page number can address.)
pub const MAX_DEPTH: usize = 64;

const KIND_AT: usize = 0;
const FLAGS_AT: usize = 1;
const COUNT_AT: usize = 2;
const CONTENT_START_AT: usize = 4;
const FRAGMENTED_AT: usize = 6;
/// `prev_leaf` in a leaf, `rightmost_child` in an interior node.
const LINK_A_AT: usize = 8;
/// `next_leaf` in a leaf, reserved in an interior node.
const LINK_B_AT: usize = 12;

/// The largest allowed entry size ([`entry_size`]) for pages of `usable_size` bytes: a
/// quarter of the space below the header, which guarantees every split succeeds.
pub fn max_entry_size(usable_size: usize) -> usize {
    usable_size.saturating_sub(HEADER_SIZE) / 4
}

/// The size an entry counts against [`max_entry_size`]: key and value bytes plus the 4-byte
/// cell header and the 2-byte slot.
pub fn entry_size(key_len: usize, value_len: usize) -> usize {
    key_len + value_len + ENTRY_OVERHEAD
}

/// The shortest prefix of `right_min` that sorts strictly above `left_max`, used as the
/// separator between two adjacent nodes. `None` if `right_min <= left_max` (keys out of order).
///
/// With `p` the length of the common prefix, `right_min[..p + 1]` works: it differs from
/// `left_max` at byte `p` by a larger byte, or extends `left_max` when that is a prefix of it.
pub fn separator(left_max: &[u8], right_min: &[u8]) -> Option<Vec<u8>> {
    if right_min <= left_max {
        return None;
    }
    let common = left_max
        .iter()
        .zip(right_min)
        .take_while(|(a, b)| a == b)
        .count();
    right_min.get(..common + 1).map(<[u8]>::to_vec)
}

/// Encodes a leaf cell (as stored in a page) for `key` and `value`; the caller has checked
/// the size limit, so both lengths fit in a `u16`.
#[allow(
    clippy::cast_possible_truncation,
    reason = "callers check the entry fits an index page first (check_entry_fits), so both lengths are below 65,536"
)]
pub fn encode_leaf_cell(key: &[u8], value: &[u8]) -> Vec<u8> {
    let mut cell = Vec::with_capacity(LEAF_CELL_HEADER + key.len() + value.len());
    cell.extend_from_slice(&(key.len() as u16).to_le_bytes());
    cell.extend_from_slice(&(value.len() as u16).to_le_bytes());
    cell.extend_from_slice(key);
    cell.extend_from_slice(value);
    cell
}

/// The key of an encoded leaf cell, `None` if the cell is malformed.
pub fn leaf_cell_key(cell: &[u8]) -> Option<&[u8]> {
    let key_len = read_u16(cell, 0)?;
    cell.get(LEAF_CELL_HEADER..LEAF_CELL_HEADER + key_len)
}

fn read_u8(bytes: &[u8], at: usize) -> Option<u8> {
    bytes.get(at).copied()
}

fn read_u16(bytes: &[u8], at: usize) -> Option<usize> {
    let raw: [u8; 2] = bytes.get(at..at + 2)?.try_into().ok()?;
    Some(u16::from_le_bytes(raw) as usize)
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let raw: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
    Some(u32::from_le_bytes(raw))
}

fn write_u16(bytes: &mut [u8], page_no: PageNo, at: usize, value: usize) -> Result<()> {
    let value = u16::try_from(value)
        .map_err(|_| StorageError::corrupt_page(page_no, format!("{value} overflows a u16")))?;
    bytes
        .get_mut(at..at + 2)
        .ok_or_else(|| StorageError::corrupt_page(page_no, format!("write past the page at {at}")))?
        .copy_from_slice(&value.to_le_bytes());
    Ok(())
}

fn write_u32(bytes: &mut [u8], page_no: PageNo, at: usize, value: u32) -> Result<()> {
    bytes
        .get_mut(at..at + 4)
        .ok_or_else(|| StorageError::corrupt_page(page_no, format!("write past the page at {at}")))?
        .copy_from_slice(&value.to_le_bytes());
    Ok(())
}

/// A validated view of one index page. Cheap to construct (header checks only) and `Copy`.
#[derive(Clone, Copy, Debug)]
pub struct Node<'a> {
    bytes: &'a [u8],
    page_no: PageNo,
    leaf: bool,
    count: usize,
    content_start: usize,
    fragmented: usize,
}

impl<'a> Node<'a> {
    /// Checks the header of the index page `page_no` (its usable bytes) and returns a view.
    pub fn parse(bytes: &'a [u8], page_no: PageNo) -> Result<Self> {
        let bad = |reason: String| StorageError::corrupt_page(page_no, reason);
        let len = bytes.len();
        if !(HEADER_SIZE..=u16::MAX as usize).contains(&len) {
            return Err(bad(format!("index page of {len} usable bytes")));
        }
        let leaf = match read_u8(bytes, KIND_AT) {
            Some(kind::INDEX_LEAF) => true,
            Some(kind::INDEX_INTERIOR) => false,
            other => {
                return Err(bad(format!(
                    "page kind {} is not an index page",
                    other.unwrap_or(0)
                )));
            }
        };
        let header = |at| read_u16(bytes, at).unwrap_or(usize::MAX);
        let flags = read_u8(bytes, FLAGS_AT).unwrap_or(u8::MAX);
        if flags != 0 {
            return Err(bad(format!("unknown index page flags {flags:#x}")));
        }
        let count = header(COUNT_AT);
        let content_start = header(CONTENT_START_AT);
        let fragmented = header(FRAGMENTED_AT);
        let slots_end = HEADER_SIZE + count * SLOT_SIZE;
        if slots_end > content_start || content_start > len {
            return Err(bad(format!(
                "{count} cells with content starting at {content_start} do not fit {len} bytes"
            )));
        }
        if fragmented > len - content_start {
            return Err(bad(format!(
                "{fragmented} fragmented bytes in {} bytes of cells",
                len - content_start
            )));
        }
        Ok(Node {
            bytes,
            page_no,
            leaf,
            count,
            content_start,
            fragmented,
        })
    }

    /// Whether this is a leaf (else an interior node).
    pub fn is_leaf(&self) -> bool {
        self.leaf
    }

    /// Number of cells: entries in a leaf, separator keys in an interior node.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The page number this view was parsed for (used in error messages).
    pub fn page_no(&self) -> PageNo {
        self.page_no
    }

    fn err(&self, reason: impl Into<String>) -> StorageError {
        StorageError::corrupt_page(self.page_no, reason)
    }

    fn link(&self, at: usize) -> PageNo {
        // The header was bounds-checked in `parse`, so this always reads.
        read_u32(self.bytes, at).unwrap_or(0)
    }

    /// Left sibling leaf (0 = none). Meaningful for leaves only.
    pub fn prev_leaf(&self) -> PageNo {
        self.link(LINK_A_AT)
    }

    /// Right sibling leaf (0 = none). Meaningful for leaves only.
    pub fn next_leaf(&self) -> PageNo {
        self.link(LINK_B_AT)
    }

    /// The rightmost child of an interior node.
    pub fn rightmost(&self) -> PageNo {
        self.link(LINK_A_AT)
    }

    /// Bytes in use: header, slots and live cells (fragmentation excluded).
    pub fn used_bytes(&self) -> usize {
        HEADER_SIZE
            + self.count * SLOT_SIZE
            + (self.bytes.len() - self.content_start - self.fragmented)
    }

    /// Bytes an insert could use, after defragmenting if need be.
    pub fn free_bytes(&self) -> usize {
        self.bytes.len().saturating_sub(self.used_bytes())
    }

    fn cell_offset(&self, i: usize) -> Result<usize> {
        if i >= self.count {
            return Err(self.err(format!("cell {i} of {}", self.count)));
        }
        let offset = read_u16(self.bytes, HEADER_SIZE + i * SLOT_SIZE)
            .ok_or_else(|| self.err(format!("slot {i} outside the page")))?;
        if offset < self.content_start {
            return Err(self.err(format!(
                "slot {i} points to {offset}, before the cell area at {}",
                self.content_start
            )));
        }
        Ok(offset)
    }

    /// The extent of cell `i` and the extent of its key within the page.
    fn cell_ranges(&self, i: usize) -> Result<(Range<usize>, Range<usize>)> {
        let offset = self.cell_offset(i)?;
        let (key_start, key_len, tail) = if self.leaf {
            let key_len = read_u16(self.bytes, offset);
            let value_len = read_u16(self.bytes, offset + 2);
            match (key_len, value_len) {
                (Some(k), Some(v)) => (offset + LEAF_CELL_HEADER, k, v),
                _ => return Err(self.err(format!("cell {i} header outside the page"))),
            }
        } else {
            match read_u16(self.bytes, offset + 4) {
                Some(k) => (offset + INTERIOR_CELL_HEADER, k, 0),
                None => return Err(self.err(format!("cell {i} header outside the page"))),
            }
        };
        let end = key_start + key_len + tail;
        if end > self.bytes.len() {
            return Err(self.err(format!(
                "cell {i} at {offset} runs to {end}, past the page end {}",
                self.bytes.len()
            )));
        }
        Ok((offset..end, key_start..key_start + key_len))
    }

    /// The raw bytes of cell `i` (for moving cells between pages).
    pub fn cell(&self, i: usize) -> Result<&'a [u8]> {
        let (cell, _) = self.cell_ranges(i)?;
        self.bytes
            .get(cell)
            .ok_or_else(|| self.err(format!("cell {i} outside the page")))
    }

    /// The key of cell `i`.
    pub fn key(&self, i: usize) -> Result<&'a [u8]> {
        let (_, key) = self.cell_ranges(i)?;
        self.bytes
            .get(key)
            .ok_or_else(|| self.err(format!("key {i} outside the page")))
    }

    /// Byte ranges of the key and the value of leaf entry `i`, for cursors that keep the page
    /// and slice it later without re-validating.
    pub fn leaf_entry_ranges(&self, i: usize) -> Result<(Range<usize>, Range<usize>)> {
        if !self.leaf {
            return Err(self.err("entry read from an interior page"));
        }
        let (cell, key) = self.cell_ranges(i)?;
        let value = key.end..cell.end;
        Ok((key, value))
    }

    /// The value of leaf entry `i`.
    pub fn value(&self, i: usize) -> Result<&'a [u8]> {
        let (_, value) = self.leaf_entry_ranges(i)?;
        self.bytes
            .get(value)
            .ok_or_else(|| self.err(format!("value {i} outside the page")))
    }

    /// The child pointer at position `i` of an interior node: cell `i`'s left child for
    /// `i < count`, the rightmost child for `i == count`. Never 0 (page 0 is the file header).
    pub fn child(&self, i: usize) -> Result<PageNo> {
        if self.leaf {
            return Err(self.err("child pointer read from a leaf"));
        }
        let child = if i == self.count {
            self.rightmost()
        } else {
            let offset = self.cell_offset(i)?;
            read_u32(self.bytes, offset)
                .ok_or_else(|| self.err(format!("cell {i} header outside the page")))?
        };
        if child == 0 {
            return Err(self.err(format!("child pointer {i} is page 0")));
        }
        Ok(child)
    }

    /// Binary search: the position of the first key `>= key`, and whether it is equal.
    pub fn lower_bound(&self, key: &[u8]) -> Result<(usize, bool)> {
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.key(mid)?.cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Equal => return Ok((mid, true)),
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        Ok((lo, false))
    }

    /// Binary search: the position of the first key `> key`. In an interior node this is the
    /// index of the child whose range holds `key`.
    pub fn upper_bound(&self, key: &[u8]) -> Result<usize> {
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.key(mid)? <= key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// The full O(n) check: every cell inside the cell area, no two cells overlapping, live
    /// plus fragmented bytes equal to the cell area, keys strictly increasing, no child 0.
    pub fn validate(&self) -> Result<()> {
        let mut extents = Vec::with_capacity(self.count);
        for i in 0..self.count {
            let (cell, _) = self.cell_ranges(i)?;
            extents.push(cell);
            if !self.leaf {
                self.child(i)?;
            }
        }
        if !self.leaf {
            self.child(self.count)?;
        }
        extents.sort_by_key(|r| r.start);
        let mut live = 0;
        let mut previous_end = self.content_start;
        for extent in &extents {
            if extent.start < previous_end {
                return Err(self.err(format!("cell at {} overlaps another", extent.start)));
            }
            previous_end = extent.end;
            live += extent.len();
        }
        let area = self.bytes.len() - self.content_start;
        if live + self.fragmented != area {
            return Err(self.err(format!(
                "{live} live and {} fragmented bytes do not add up to {area} bytes of cells",
                self.fragmented
            )));
        }
        for i in 1..self.count {
            if self.key(i - 1)? >= self.key(i)? {
                return Err(self.err(format!("keys {} and {i} out of order", i - 1)));
            }
        }
        Ok(())
    }
}

/// Formats `bytes` (a page's usable bytes) as an empty leaf or interior node.
pub fn init(bytes: &mut [u8], page_no: PageNo, leaf: bool) -> Result<()> {
    let len = bytes.len();
    if !(HEADER_SIZE..=u16::MAX as usize).contains(&len) {
        return Err(StorageError::corrupt_page(
            page_no,
            format!("index page of {len} usable bytes"),
        ));
    }
    if let Some(header) = bytes.get_mut(..HEADER_SIZE) {
        header.fill(0);
        header[KIND_AT] = if leaf {
            kind::INDEX_LEAF
        } else {
            kind::INDEX_INTERIOR
        };
    }
    write_u16(bytes, page_no, CONTENT_START_AT, len)
}

fn set_link(bytes: &mut [u8], page_no: PageNo, leaf: bool, at: usize, value: PageNo) -> Result<()> {
    let node = Node::parse(bytes, page_no)?;
    if node.is_leaf() != leaf {
        return Err(StorageError::corrupt_page(
            page_no,
            if leaf {
                "expected an index leaf, found an interior page"
            } else {
                "expected an index interior page, found a leaf"
            },
        ));
    }
    write_u32(bytes, page_no, at, value)
}

/// Sets a leaf's left sibling.
pub fn set_prev_leaf(bytes: &mut [u8], page_no: PageNo, prev: PageNo) -> Result<()> {
    set_link(bytes, page_no, true, LINK_A_AT, prev)
}

/// Sets a leaf's right sibling.
pub fn set_next_leaf(bytes: &mut [u8], page_no: PageNo, next: PageNo) -> Result<()> {
    set_link(bytes, page_no, true, LINK_B_AT, next)
}

/// Sets an interior node's rightmost child.
pub fn set_rightmost(bytes: &mut [u8], page_no: PageNo, child: PageNo) -> Result<()> {
    set_link(bytes, page_no, false, LINK_A_AT, child)
}

/// Sets the child pointer at position `i` of an interior node (`i == count`: rightmost).
pub fn set_child(bytes: &mut [u8], page_no: PageNo, i: usize, child: PageNo) -> Result<()> {
    let node = Node::parse(bytes, page_no)?;
    if node.is_leaf() {
        return Err(node.err("child pointer written to a leaf"));
    }
    if i == node.count() {
        return set_rightmost(bytes, page_no, child);
    }
    let offset = node.cell_offset(i)?;
    write_u32(bytes, page_no, offset, child)
}

/// Makes room for a cell of `size` bytes at slot position `pos`, defragmenting if the space
/// exists but is scattered. Returns the cell's offset, or `None` if the page is too full.
fn reserve(bytes: &mut [u8], page_no: PageNo, pos: usize, size: usize) -> Result<Option<usize>> {
    let node = Node::parse(bytes, page_no)?;
    let count = node.count();
    if pos > count {
        return Err(node.err(format!("insert at {pos} past {count} cells")));
    }
    let need = size + SLOT_SIZE;
    if node.free_bytes() < need {
        return Ok(None);
    }
    let slots_end = HEADER_SIZE + count * SLOT_SIZE;
    let mut content_start = node.content_start;
    if content_start - slots_end < need {
        defragment(bytes, page_no)?;
        content_start = Node::parse(bytes, page_no)?.content_start;
        // A damaged fragmentation count can promise space that is not there.
        if content_start < slots_end + need {
            return Ok(None);
        }
    }
    let offset = content_start - size;
    let slot_at = HEADER_SIZE + pos * SLOT_SIZE;
    // In bounds: slots_end + SLOT_SIZE <= offset <= len, checked just above.
    bytes.copy_within(slot_at..slots_end, slot_at + SLOT_SIZE);
    write_u16(bytes, page_no, slot_at, offset)?;
    write_u16(bytes, page_no, COUNT_AT, count + 1)?;
    write_u16(bytes, page_no, CONTENT_START_AT, offset)?;
    Ok(Some(offset))
}

fn write_at(bytes: &mut [u8], page_no: PageNo, at: usize, data: &[u8]) -> Result<()> {
    bytes
        .get_mut(at..at + data.len())
        .ok_or_else(|| StorageError::corrupt_page(page_no, format!("write past the page at {at}")))?
        .copy_from_slice(data);
    Ok(())
}

fn check_kind(bytes: &[u8], page_no: PageNo, leaf: bool) -> Result<()> {
    if Node::parse(bytes, page_no)?.is_leaf() != leaf {
        return Err(StorageError::corrupt_page(
            page_no,
            "cell of the wrong node kind for this page",
        ));
    }
    Ok(())
}

/// Inserts a leaf entry at slot position `pos`. `Ok(false)` if the page is too full. Lengths
/// must fit in a `u16` (guaranteed by the entry size limit).
pub fn insert_leaf_entry(
    bytes: &mut [u8],
    page_no: PageNo,
    pos: usize,
    key: &[u8],
    value: &[u8],
) -> Result<bool> {
    check_kind(bytes, page_no, true)?;
    let size = LEAF_CELL_HEADER + key.len() + value.len();
    let Some(at) = reserve(bytes, page_no, pos, size)? else {
        return Ok(false);
    };
    write_u16(bytes, page_no, at, key.len())?;
    write_u16(bytes, page_no, at + 2, value.len())?;
    write_at(bytes, page_no, at + LEAF_CELL_HEADER, key)?;
    write_at(bytes, page_no, at + LEAF_CELL_HEADER + key.len(), value)?;
    Ok(true)
}

/// Inserts an interior cell `(left_child, key)` at slot position `pos`. `Ok(false)` if full.
pub fn insert_interior_cell(
    bytes: &mut [u8],
    page_no: PageNo,
    pos: usize,
    left_child: PageNo,
    key: &[u8],
) -> Result<bool> {
    check_kind(bytes, page_no, false)?;
    let size = INTERIOR_CELL_HEADER + key.len();
    let Some(at) = reserve(bytes, page_no, pos, size)? else {
        return Ok(false);
    };
    write_u32(bytes, page_no, at, left_child)?;
    write_u16(bytes, page_no, at + 4, key.len())?;
    write_at(bytes, page_no, at + INTERIOR_CELL_HEADER, key)?;
    Ok(true)
}

/// Inserts an already encoded cell (taken from a page of the same kind) at `pos`.
pub fn insert_raw_cell(bytes: &mut [u8], page_no: PageNo, pos: usize, cell: &[u8]) -> Result<bool> {
    let Some(at) = reserve(bytes, page_no, pos, cell.len())? else {
        return Ok(false);
    };
    write_at(bytes, page_no, at, cell)?;
    Ok(true)
}

/// Removes cell `pos`. Its bytes become fragmentation unless the cell sat at the start of
/// the cell area, in which case the area simply shrinks.
pub fn remove_cell(bytes: &mut [u8], page_no: PageNo, pos: usize) -> Result<()> {
    let node = Node::parse(bytes, page_no)?;
    let count = node.count();
    let (cell, _) = node.cell_ranges(pos)?;
    let len = bytes.len();
    let mut content_start = node.content_start;
    let mut fragmented = node.fragmented;
    let slot_at = HEADER_SIZE + pos * SLOT_SIZE;
    // In bounds: pos < count (checked by cell_ranges) and the slot array ends before
    // content_start <= len (checked by parse).
    bytes.copy_within(
        slot_at + SLOT_SIZE..HEADER_SIZE + count * SLOT_SIZE,
        slot_at,
    );
    if count == 1 {
        content_start = len;
        fragmented = 0;
    } else if cell.start == content_start {
        content_start = cell.end;
    } else {
        fragmented = (fragmented + cell.len()).min(len - content_start);
    }
    write_u16(bytes, page_no, COUNT_AT, count - 1)?;
    write_u16(bytes, page_no, CONTENT_START_AT, content_start)?;
    write_u16(bytes, page_no, FRAGMENTED_AT, fragmented)
}

/// Removes separator `s` of an interior node together with the child to its right, keeping
/// the child to its left in that position (used when the right child merged into the left).
pub fn remove_separator_and_right(bytes: &mut [u8], page_no: PageNo, s: usize) -> Result<()> {
    let node = Node::parse(bytes, page_no)?;
    if node.is_leaf() || s >= node.count() {
        return Err(node.err(format!("no separator {s} to remove")));
    }
    let left = node.child(s)?;
    remove_cell(bytes, page_no, s)?;
    set_child(bytes, page_no, s, left)
}

/// Removes child pointer `i` of an interior node with at least one separator, together
/// with an adjacent separator, so the neighbouring child absorbs the removed child's range.
pub fn remove_child(bytes: &mut [u8], page_no: PageNo, i: usize) -> Result<()> {
    let node = Node::parse(bytes, page_no)?;
    if node.is_leaf() || node.count() == 0 || i > node.count() {
        return Err(node.err(format!(
            "cannot remove child {i} of a node with {} separators",
            node.count()
        )));
    }
    if i == 0 {
        // Child 1 takes over the range below k_0.
        remove_cell(bytes, page_no, 0)
    } else {
        // Child i-1 takes over [k_{i-1}, k_i).
        remove_separator_and_right(bytes, page_no, i - 1)
    }
}

/// Rewrites the cells contiguously at the end of the page so all free space is one gap.
pub fn defragment(bytes: &mut [u8], page_no: PageNo) -> Result<()> {
    let copy = bytes.to_vec();
    let node = Node::parse(&copy, page_no)?;
    let slots_end = HEADER_SIZE + node.count() * SLOT_SIZE;
    let mut end = copy.len();
    for i in 0..node.count() {
        let cell = node.cell(i)?;
        let start = end
            .checked_sub(cell.len())
            .filter(|&start| start >= slots_end)
            .ok_or_else(|| node.err("cells overflow the page"))?;
        write_at(bytes, page_no, start, cell)?;
        write_u16(bytes, page_no, HEADER_SIZE + i * SLOT_SIZE, start)?;
        end = start;
    }
    write_u16(bytes, page_no, CONTENT_START_AT, end)?;
    write_u16(bytes, page_no, FRAGMENTED_AT, 0)
}

#[cfg(test)]
#[path = "index_page_tests.rs"]
mod tests;
