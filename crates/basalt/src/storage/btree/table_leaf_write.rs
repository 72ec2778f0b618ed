//! Writing table leaf pages: positional insert and remove, relayout, and building a page
//! from row ranges of other pages (for splits and merges).
//!
//! The page format and the read side are described in [`super::table_leaf`]. Writers
//! follow one rule: the fast path edits a page in place (shifting only the rows after the
//! insertion point), and anything that changes the page's shape — a new capacity, new
//! columns, heap compaction, a split or a merge — rebuilds the page with [`build_leaf`]
//! from a read-only view of the old image, so there is exactly one piece of code that lays
//! out arrays and packs the heap.

#![allow(
    clippy::cast_possible_truncation,
    reason = "every header field written here (row and column counts, capacities, heap offsets, garbage bytes) is a count or offset inside one page, and pages are at most 65,536 bytes (MAX_PAGE_SIZE); the one value that can reach 65,536, the page length as the empty heap's start, is clamped to 65,535 first (docs/file-format.md)"
)]

use std::ops::Range;

use super::row::{ColumnKind, ValueRef};
use super::table_leaf::{
    ArrayPlan, LEAF_HEADER_LEN, LeafHeader, MAX_CAPACITY, OVERFLOW_FLAG, OVERFLOW_POINTER_LEN,
    TableLeaf, align8, bit, choose_capacity, column_arrays_len, corrupt, read_uint, set_bit,
    write_u16, write_u32, write_uint,
};
use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, kind};

/// Formats `bytes` as an empty leaf with no columns and no links.
pub(crate) fn init_leaf(bytes: &mut [u8]) {
    bytes.fill(0);
    if let Some(first) = bytes.first_mut() {
        *first = kind::TABLE_LEAF;
    }
    let len = bytes.len().min(u16::MAX as usize) as u16;
    write_u16(bytes, 8, len);
}

/// Sets the left sibling link.
pub(crate) fn set_prev_leaf(bytes: &mut [u8], prev: PageNo) {
    write_u32(bytes, 12, prev);
}

/// Sets the right sibling link.
pub(crate) fn set_next_leaf(bytes: &mut [u8], next: PageNo) {
    write_u32(bytes, 16, next);
}

/// The kinds a page must have to hold both its current rows and a row with `row_kinds`:
/// `None` when that is the page's own layout (the common case, checked without
/// allocating), or the new kinds — its own extended by the row's extra columns. An empty
/// page simply takes the row's kinds. Conflicting kinds on the shared prefix are an error.
pub(crate) fn merged_kinds(
    leaf: &TableLeaf<'_>,
    row_kinds: &[ColumnKind],
) -> Result<Option<Vec<ColumnKind>>> {
    let page_columns = leaf.header().column_count;
    let page_kind = |column: usize| leaf.column_kind(column);
    if leaf.row_count() == 0 {
        let same = row_kinds.len() == page_columns
            && row_kinds
                .iter()
                .enumerate()
                .all(|(column, kind)| page_kind(column) == Some(*kind));
        return Ok((!same).then(|| row_kinds.to_vec()));
    }
    for (column, kind) in row_kinds.iter().enumerate().take(page_columns) {
        if let Some(stored) = page_kind(column)
            && stored != *kind
        {
            return Err(StorageError::InvalidArgument(format!(
                "column {column} is stored as {stored:?} but the row has {kind:?}"
            )));
        }
    }
    if row_kinds.len() <= page_columns {
        return Ok(None);
    }
    union_kinds(&leaf.column_kinds(), row_kinds).map(Some)
}

/// The longer of two kind lists, checking they agree on their shared prefix.
pub(crate) fn union_kinds(first: &[ColumnKind], second: &[ColumnKind]) -> Result<Vec<ColumnKind>> {
    for (column, (a, b)) in first.iter().zip(second).enumerate() {
        if a != b {
            return Err(StorageError::InvalidArgument(format!(
                "column {column} is stored as {a:?} but the row has {b:?}"
            )));
        }
    }
    Ok(if second.len() > first.len() {
        second.to_vec()
    } else {
        first.to_vec()
    })
}

/// Inserts a row at position `position` of the leaf in `bytes`, relaying the page out if
/// needed. Returns `Ok(false)` without changing the page if the row does not fit.
///
/// `values` may have fewer entries than the page has columns (the rest are NULL); it must
/// match `kinds`, which must agree with the page's kinds on their shared prefix. Var values
/// must already be short enough to store inline (longer ones are `ValueRef::Overflow`, with
/// their chains written); heap entries of 0x8000 bytes or more are rejected.
pub(crate) fn insert_row(
    bytes: &mut [u8],
    page_no: PageNo,
    position: usize,
    row_id: i64,
    kinds: &[ColumnKind],
    values: &[ValueRef<'_>],
) -> Result<bool> {
    let header = LeafHeader::read(bytes, page_no)?;
    insert_row_with_header(bytes, page_no, header, position, row_id, kinds, values)
}

/// [`insert_row`] for a caller that already validated the page's header (`header` must be
/// what [`LeafHeader::read`] returns for `bytes`: a descent's leaf, unchanged since), which
/// saves parsing it again on the insert path.
pub(crate) fn insert_row_with_header(
    bytes: &mut [u8],
    page_no: PageNo,
    header: LeafHeader,
    position: usize,
    row_id: i64,
    kinds: &[ColumnKind],
    values: &[ValueRef<'_>],
) -> Result<bool> {
    let usable = bytes.len();
    let leaf = TableLeaf::with_header(bytes, page_no, header);
    if position > header.row_count {
        return Err(StorageError::InvalidArgument(format!(
            "insert at position {position} of a leaf with {} rows",
            header.row_count
        )));
    }
    let new_kinds = merged_kinds(&leaf, kinds)?;
    check_entry_lengths(values)?;
    let new_heap: usize = values.iter().map(ValueRef::heap_len).sum();
    let same_layout = new_kinds.is_none();
    let fits_now = same_layout
        && header.row_count < header.capacity
        && header.heap_start - header.plan.arrays_end >= new_heap;
    let header = if fits_now {
        header
    } else {
        let rows = header.row_count + 1;
        let live = leaf.live_heap_bytes();
        let heap_total = live + new_heap;
        // Keep the capacity when compaction alone makes room; otherwise estimate anew.
        let keep = same_layout
            && header.row_count < header.capacity
            && header.plan.arrays_end + heap_total <= usable;
        let target_kinds = new_kinds.unwrap_or_else(|| leaf.column_kinds());
        let capacity = if keep {
            header.capacity
        } else {
            match choose_capacity(&target_kinds, usable, rows, heap_total) {
                Some(capacity) => capacity,
                None => return Ok(false),
            }
        };
        let old = leaf.bytes().to_vec();
        let old_leaf = TableLeaf::with_header(&old, page_no, header);
        build_leaf(
            bytes,
            page_no,
            &target_kinds,
            capacity,
            &[(old_leaf, 0..header.row_count)],
            header.prev_leaf,
            header.next_leaf,
        )?;
        LeafHeader::read(bytes, page_no)?
    };
    write_row(bytes, page_no, header, position, row_id, values)?;
    Ok(true)
}

/// Overwrites the row at `position` in place when the new values fit where the old ones
/// are: the row's kinds are the page's, no value old or new is an overflow entry, and no Var
/// value is longer than the one it replaces (the bytes it no longer uses become heap
/// garbage). Returns `Ok(false)`, changing nothing, otherwise; the caller then removes and
/// re-inserts the row.
///
/// This is what makes an UPDATE of a few columns cheap: a leaf filled by a bulk load has no
/// free heap, so remove-and-insert would rebuild the whole page for every changed row.
pub(crate) fn overwrite_row(
    bytes: &mut [u8],
    page_no: PageNo,
    position: usize,
    kinds: &[ColumnKind],
    values: &[ValueRef<'_>],
) -> Result<bool> {
    let leaf = TableLeaf::new(bytes, page_no)?;
    let header = leaf.header();
    if position >= header.row_count
        || values.len() > header.column_count
        || kinds.len() != header.column_count
        || leaf.column_kinds() != kinds
    {
        return Ok(false);
    }
    let mut locations = Vec::with_capacity(header.column_count);
    let mut freed = 0usize;
    for column in 0..header.column_count {
        let location @ (bitmap_at, values_at, kind) = leaf
            .column_location(column)
            .ok_or_else(|| corrupt(page_no, "column location"))?;
        let value = values.get(column).copied().unwrap_or(ValueRef::Null);
        match (value, kind) {
            (ValueRef::Overflow { .. }, _) => return Ok(false),
            (ValueRef::Fixed(_), ColumnKind::Var) => return Ok(false),
            (ValueRef::Var(_), kind) if kind != ColumnKind::Var => return Ok(false),
            (_, ColumnKind::Var) => {
                let descriptor = read_uint(bytes, values_at + position * 4, 4);
                let raw_len = (descriptor >> 16) as u16;
                let old_len = if bit(bytes, bitmap_at, position) {
                    0
                } else if raw_len & OVERFLOW_FLAG != 0 {
                    return Ok(false);
                } else {
                    usize::from(raw_len)
                };
                let new_len = value.heap_len();
                if new_len > old_len {
                    return Ok(false);
                }
                freed += old_len - new_len;
            }
            _ => {}
        }
        locations.push(location);
    }
    for (column, &(bitmap_at, values_at, kind)) in locations.iter().enumerate() {
        let value = values.get(column).copied().unwrap_or(ValueRef::Null);
        let width = kind.slot_width();
        let slot_at = values_at + position * width;
        let (null, slot_value) = match value {
            ValueRef::Null => (true, 0),
            ValueRef::Fixed(value) => (false, value),
            ValueRef::Var(data) => {
                let offset = (read_uint(bytes, slot_at, 4) & 0xFFFF) as usize;
                if data.is_empty() {
                    (false, 0)
                } else {
                    bytes
                        .get_mut(offset..offset + data.len())
                        .ok_or_else(|| corrupt(page_no, "row value outside the page"))?
                        .copy_from_slice(data);
                    (false, offset as u64 | (data.len() as u64) << 16)
                }
            }
            // Ruled out above.
            ValueRef::Overflow { .. } => return Ok(false),
        };
        set_bit(bytes, bitmap_at, position, null);
        write_uint(bytes, slot_at, width, slot_value);
    }
    if freed > 0 {
        write_u16(bytes, 10, (header.heap_garbage + freed) as u16);
    }
    Ok(true)
}

/// Writes a row into a page known to have a free slot and enough free heap; `header` is the
/// page's validated header.
fn write_row(
    bytes: &mut [u8],
    page_no: PageNo,
    header: LeafHeader,
    position: usize,
    row_id: i64,
    values: &[ValueRef<'_>],
) -> Result<()> {
    let rows = header.row_count;
    if values.len() > header.column_count {
        return Err(StorageError::InvalidArgument(
            "row has more columns than the page".into(),
        ));
    }
    // Row ids: shift [position, rows) one slot right.
    let ids_at = header.plan.row_ids_at;
    bytes.copy_within(
        ids_at + position * 8..ids_at + rows * 8,
        ids_at + position * 8 + 8,
    );
    if let Some(slot) = bytes.get_mut(ids_at + position * 8..ids_at + position * 8 + 8) {
        slot.copy_from_slice(&row_id.to_le_bytes());
    }
    let mut heap_start = header.heap_start;
    // Each column's bitmap and value array follow the previous column's, as `ArrayPlan`
    // lays them out (the kind bytes this reads lie before the arrays this loop writes).
    let mut column_at = header.plan.columns_at;
    for column in 0..header.column_count {
        let kind = bytes
            .get(LEAF_HEADER_LEN + column)
            .and_then(|&byte| ColumnKind::from_byte(byte))
            .ok_or_else(|| corrupt(page_no, "column location"))?;
        let width = kind.slot_width();
        let (bitmap_at, values_at) = (column_at, column_at + header.plan.bitmap_len);
        column_at += column_arrays_len(header.plan.bitmap_len, header.capacity, kind);
        bytes.copy_within(
            values_at + position * width..values_at + rows * width,
            values_at + (position + 1) * width,
        );
        for row in (position..rows).rev() {
            let null = bit(bytes, bitmap_at, row);
            set_bit(bytes, bitmap_at, row + 1, null);
        }
        let value = values.get(column).copied().unwrap_or(ValueRef::Null);
        let slot_at = values_at + position * width;
        let (null, slot_value) = match (value, kind) {
            (ValueRef::Null, _) => (true, 0),
            (
                ValueRef::Fixed(value),
                ColumnKind::Fixed1 | ColumnKind::Fixed2 | ColumnKind::Fixed4 | ColumnKind::Fixed8,
            ) => (false, value),
            (ValueRef::Var(data), ColumnKind::Var) => {
                heap_start -= data.len();
                if let Some(target) = bytes.get_mut(heap_start..heap_start + data.len()) {
                    target.copy_from_slice(data);
                }
                let offset = if data.is_empty() { 0 } else { heap_start };
                (false, offset as u64 | (data.len() as u64) << 16)
            }
            (value @ ValueRef::Overflow { .. }, ColumnKind::Var) => {
                heap_start -= value.heap_len();
                (false, write_overflow_entry(bytes, heap_start, value))
            }
            (value, kind) => {
                return Err(StorageError::InvalidArgument(format!(
                    "value {value:?} does not suit a {kind:?} column {column}"
                )));
            }
        };
        set_bit(bytes, bitmap_at, position, null);
        write_uint(bytes, slot_at, width, slot_value);
    }
    write_u16(bytes, 4, (rows + 1) as u16);
    write_u16(bytes, 8, heap_start as u16);
    Ok(())
}

/// Writes the heap entry of an overflow value at `at` (u32 first page, u64 total length,
/// inline prefix) and returns its descriptor: offset `at`, entry length with the overflow
/// flag. Lengths were checked by [`check_entry_lengths`] or come from a validated page.
fn write_overflow_entry(bytes: &mut [u8], at: usize, value: ValueRef<'_>) -> u64 {
    let ValueRef::Overflow {
        first_page,
        total_len,
        prefix,
    } = value
    else {
        return 0;
    };
    let len = OVERFLOW_POINTER_LEN + prefix.len();
    if let Some(entry) = bytes.get_mut(at..at + len) {
        entry[..4].copy_from_slice(&first_page.to_le_bytes());
        entry[4..OVERFLOW_POINTER_LEN].copy_from_slice(&total_len.to_le_bytes());
        entry[OVERFLOW_POINTER_LEN..].copy_from_slice(prefix);
    }
    at as u64 | (len as u64 | u64::from(OVERFLOW_FLAG)) << 16
}

/// Checks that every Var heap entry of a row can be described by a descriptor: its length
/// must stay below the overflow flag bit, and an overflow value must have at least one byte
/// in its chain. The tree's own rows always pass (their entries are at most
/// `max_inline_len + 12` bytes); this guards the leaf codec against other callers.
fn check_entry_lengths(values: &[ValueRef<'_>]) -> Result<()> {
    for value in values {
        let valid = match value {
            ValueRef::Var(bytes) => bytes.len() < usize::from(OVERFLOW_FLAG),
            ValueRef::Overflow {
                first_page,
                total_len,
                prefix,
            } => {
                *first_page != 0
                    && value.heap_len() < usize::from(OVERFLOW_FLAG)
                    && *total_len > prefix.len() as u64
            }
            ValueRef::Null | ValueRef::Fixed(_) => true,
        };
        if !valid {
            return Err(StorageError::InvalidArgument(format!(
                "value {value:?} cannot be stored in a leaf heap"
            )));
        }
    }
    Ok(())
}

/// Removes the row at `position`. Its heap entries become garbage; overflow chains are the
/// caller's to free (read them first).
/// Removes bit `position` from the first `rows` bits of the bitmap at `bitmap_at`: the bits
/// above it move down one and bit `rows - 1` becomes 0. A byte at a time (shifting the bits
/// one by one was half the cost of removing a row from a leaf).
pub(crate) fn remove_bit(bytes: &mut [u8], bitmap_at: usize, position: usize, rows: usize) {
    if position >= rows {
        return;
    }
    let (first, last) = (bitmap_at + position / 8, bitmap_at + (rows - 1) / 8);
    let Some(bitmap) = bytes.get_mut(first..=last) else {
        return;
    };
    // Bits of the first byte below `position` stay where they are.
    let kept = (1u8 << (position % 8)) - 1;
    let mut carry = 0u8;
    for byte in bitmap.iter_mut().rev() {
        let shifted = (*byte >> 1) | (carry << 7);
        carry = *byte & 1;
        *byte = shifted;
    }
    if let Some(head) = bitmap.first_mut() {
        // The first byte's own bit `position % 8` went out through `carry`, and its kept bits
        // were shifted with the rest: put them back.
        let original = (*head << 1) | carry;
        *head = (original & kept) | (*head & !kept);
    }
    set_bit(bytes, bitmap_at, rows - 1, false);
}

pub(crate) fn remove_row(bytes: &mut [u8], page_no: PageNo, position: usize) -> Result<()> {
    let leaf = TableLeaf::new(bytes, page_no)?;
    let header = leaf.header();
    let rows = header.row_count;
    if position >= rows {
        return Err(StorageError::InvalidArgument(format!(
            "remove of row {position} from a leaf with {rows} rows"
        )));
    }
    let freed = leaf.heap_bytes(position..position + 1)?;
    let mut locations = Vec::with_capacity(header.column_count);
    for column in 0..header.column_count {
        locations.push(
            leaf.column_location(column)
                .ok_or_else(|| corrupt(page_no, "column location"))?,
        );
    }
    let ids_at = header.plan.row_ids_at;
    bytes.copy_within(
        ids_at + (position + 1) * 8..ids_at + rows * 8,
        ids_at + position * 8,
    );
    if let Some(slot) = bytes.get_mut(ids_at + (rows - 1) * 8..ids_at + rows * 8) {
        slot.fill(0);
    }
    for &(bitmap_at, values_at, kind) in &locations {
        let width = kind.slot_width();
        bytes.copy_within(
            values_at + (position + 1) * width..values_at + rows * width,
            values_at + position * width,
        );
        if let Some(slot) = bytes.get_mut(values_at + (rows - 1) * width..values_at + rows * width)
        {
            slot.fill(0);
        }
        remove_bit(bytes, bitmap_at, position, rows);
    }
    write_u16(bytes, 4, (rows - 1) as u16);
    if rows == 1 {
        // Empty page: the whole heap is free again.
        write_u16(bytes, 8, bytes.len().min(u16::MAX as usize) as u16);
        write_u16(bytes, 10, 0);
    } else {
        write_u16(bytes, 10, (header.heap_garbage + freed) as u16);
    }
    Ok(())
}

/// Builds a leaf in `target` from row ranges of other leaves (which must not alias
/// `target`), with the given kinds and capacity and a compacted heap. Used for relayout,
/// splits and merges. Fails with `InvalidArgument` if the rows do not fit.
pub(crate) fn build_leaf(
    target: &mut [u8],
    page_no: PageNo,
    kinds: &[ColumnKind],
    capacity: usize,
    sources: &[(TableLeaf<'_>, Range<usize>)],
    prev_leaf: PageNo,
    next_leaf: PageNo,
) -> Result<()> {
    let usable = target.len();
    let rows: usize = sources.iter().map(|(_, range)| range.len()).sum();
    let plan = ArrayPlan::for_kinds(kinds, capacity);
    if rows > capacity
        || capacity > MAX_CAPACITY
        || kinds.len() > u16::MAX as usize
        || plan.arrays_end > usable
    {
        return Err(StorageError::InvalidArgument(format!(
            "{rows} rows do not fit a leaf of capacity {capacity}"
        )));
    }
    let mut heap_needed = 0;
    for (source, range) in sources {
        if range.end > source.row_count() {
            return Err(StorageError::InvalidArgument(
                "row range past the source".into(),
            ));
        }
        union_kinds(kinds, &source.column_kinds())?;
        if source.column_count() > kinds.len() {
            return Err(StorageError::InvalidArgument(
                "source has more columns than the target".into(),
            ));
        }
        heap_needed += source.heap_bytes(range.clone())?;
    }
    if plan.arrays_end + heap_needed > usable {
        return Err(StorageError::InvalidArgument(
            "rows do not fit one leaf".into(),
        ));
    }
    target.fill(0);
    target[0] = kind::TABLE_LEAF;
    write_u16(target, 2, kinds.len() as u16);
    write_u16(target, 4, rows as u16);
    write_u16(target, 6, capacity as u16);
    write_u32(target, 12, prev_leaf);
    write_u32(target, 16, next_leaf);
    for (column, kind) in kinds.iter().enumerate() {
        if let Some(byte) = target.get_mut(LEAF_HEADER_LEN + column) {
            *byte = kind.to_byte();
        }
    }
    let mut heap_start = usable;
    let mut row = 0;
    for (source, range) in sources {
        let source_ids = source.row_ids_raw();
        let ids_at = plan.row_ids_at + row * 8;
        if let (Some(to), Some(from)) = (
            target.get_mut(ids_at..ids_at + range.len() * 8),
            source_ids.get(range.start * 8..range.end * 8),
        ) {
            to.copy_from_slice(from);
        }
        let mut bitmap_at = plan.columns_at;
        for (column, kind) in kinds.iter().enumerate() {
            let width = kind.slot_width();
            let values_at = bitmap_at + plan.bitmap_len;
            for (offset, source_row) in range.clone().enumerate() {
                let row_here = row + offset;
                let slot_at = values_at + row_here * width;
                match source.value(source_row, column)? {
                    ValueRef::Null => set_bit(target, bitmap_at, row_here, true),
                    ValueRef::Fixed(value) => write_uint(target, slot_at, width, value),
                    ValueRef::Var(data) => {
                        let offset = if data.is_empty() {
                            0
                        } else {
                            heap_start -= data.len();
                            if let Some(to) = target.get_mut(heap_start..heap_start + data.len()) {
                                to.copy_from_slice(data);
                            }
                            heap_start
                        };
                        write_uint(
                            target,
                            slot_at,
                            4,
                            offset as u64 | (data.len() as u64) << 16,
                        );
                    }
                    value @ ValueRef::Overflow { .. } => {
                        heap_start -= value.heap_len();
                        let slot = write_overflow_entry(target, heap_start, value);
                        write_uint(target, slot_at, 4, slot);
                    }
                }
            }
            bitmap_at = values_at + align8(capacity * width);
        }
        row += range.len();
    }
    write_u16(target, 8, heap_start.min(u16::MAX as usize) as u16);
    write_u16(target, 10, 0);
    // Page numbers are only for error messages here; validate what we wrote in debug builds.
    debug_assert!(LeafHeader::read(target, page_no).is_ok());
    Ok(())
}
