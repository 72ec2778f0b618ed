//! Overflow chains: values too long to live inside a leaf page.
//!
//! The part of a long value that does not stay in its leaf (everything after the inline
//! prefix, see [`super::table_leaf`]) is cut into page-sized pieces stored in a singly
//! linked list of overflow pages; the leaf keeps an entry {first page, total length, inline
//! prefix}. An overflow page holds data of one value only. Page layout, all integers
//! little-endian:
//!
//! ```text
//! 0   u8   kind = page::kind::OVERFLOW
//! 1   3 bytes padding (zero)
//! 4   u32  next page of the chain (0 = this is the last page)
//! 8   u32  bytes of value data used on this page
//! 12  ...  value data (usable_size - 12 bytes of room)
//! ```
//!
//! Every page but the last is completely full, so the number of pages of a chain follows
//! from its length (the value's total length minus its inline prefix) alone. The leaf's
//! choice of prefix makes the last page full too whenever the remainder fits inline.
//! Readers rely on that: a chain is read page by page while checking the kind byte, that
//! each page's byte count is exactly what the chain length predicts, and that the chain
//! ends when the value does. A damaged next pointer (even one
//! forming a cycle) therefore makes the read fail after at most the expected number of
//! pages, never loop. Values are limited to [`MAX_VALUE_LEN`] bytes so that a damaged length
//! cannot ask for an absurd allocation.

use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, PageRead, PageWrite, kind};

/// Offset of the value data on an overflow page.
pub const OVERFLOW_HEADER_LEN: usize = 12;

/// Longest value a table tree stores (2 GiB - 1, like the largest SQL string most engines
/// accept). Longer writes are rejected; longer lengths read from a page are corruption.
pub const MAX_VALUE_LEN: u64 = (1 << 31) - 1;

/// Value bytes one overflow page holds.
pub fn data_per_page(usable_size: usize) -> usize {
    usable_size.saturating_sub(OVERFLOW_HEADER_LEN)
}

/// Number of pages a chain of `total_len` bytes occupies.
pub fn chain_page_count(usable_size: usize, total_len: u64) -> u64 {
    total_len.div_ceil(data_per_page(usable_size) as u64)
}

/// Writes `bytes` into a new overflow chain and returns its first page.
///
/// `bytes` must not be empty (an empty value is always stored inline).
pub fn write_chain<S: PageWrite + ?Sized>(store: &mut S, bytes: &[u8]) -> Result<PageNo> {
    if bytes.is_empty() || bytes.len() as u64 > MAX_VALUE_LEN {
        return Err(StorageError::InvalidArgument(format!(
            "an overflow chain holds 1 to {MAX_VALUE_LEN} bytes, not {}",
            bytes.len()
        )));
    }
    let per_page = data_per_page(store.usable_size());
    // Allocate every page first so that each page is written exactly once, already knowing
    // its successor.
    let mut pages = Vec::with_capacity(bytes.len().div_ceil(per_page));
    for _ in 0..bytes.len().div_ceil(per_page) {
        pages.push(store.allocate_page()?);
    }
    for (index, piece) in bytes.chunks(per_page).enumerate() {
        let next = pages.get(index + 1).copied().unwrap_or(0);
        let page_no = pages.get(index).copied().unwrap_or(0);
        let page = store.page_mut(page_no)?;
        let Some(header) = page.get_mut(..OVERFLOW_HEADER_LEN + piece.len()) else {
            return Err(StorageError::corrupt_page(
                page_no,
                "overflow page too small",
            ));
        };
        header[0] = kind::OVERFLOW;
        header[1..4].fill(0);
        header[4..8].copy_from_slice(&next.to_le_bytes());
        #[allow(
            clippy::cast_possible_truncation,
            reason = "a piece is at most one page's payload, and pages are at most 65,536 bytes"
        )]
        let piece_len = piece.len() as u32;
        header[8..12].copy_from_slice(&piece_len.to_le_bytes());
        header[OVERFLOW_HEADER_LEN..].copy_from_slice(piece);
    }
    pages
        .first()
        .copied()
        .ok_or_else(|| StorageError::InvalidArgument("empty overflow value".into()))
}

/// Walks a chain, checking every page, and calls `visit(page_no, data)` for each piece.
fn walk_chain<S: PageRead + ?Sized>(
    store: &S,
    first: PageNo,
    total_len: u64,
    mut visit: impl FnMut(PageNo, &[u8]) -> Result<()>,
) -> Result<()> {
    if total_len == 0 || total_len > MAX_VALUE_LEN {
        return Err(StorageError::corrupt_page(
            first,
            format!("overflow value length {total_len} out of range"),
        ));
    }
    let per_page = data_per_page(store.usable_size()) as u64;
    let mut remaining = total_len;
    let mut page_no = first;
    loop {
        if page_no == 0 {
            return Err(StorageError::corrupt(format!(
                "overflow chain starting at page {first} ends {remaining} bytes early"
            )));
        }
        let page = store.page(page_no)?;
        let header = page
            .get(..OVERFLOW_HEADER_LEN)
            .ok_or_else(|| StorageError::corrupt_page(page_no, "overflow page too small"))?;
        if header[0] != kind::OVERFLOW {
            return Err(StorageError::corrupt_page(
                page_no,
                format!("expected an overflow page, found kind {}", header[0]),
            ));
        }
        let next = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
        let used = u64::from(u32::from_le_bytes([
            header[8], header[9], header[10], header[11],
        ]));
        let expected = remaining.min(per_page);
        if used != expected {
            return Err(StorageError::corrupt_page(
                page_no,
                format!("overflow page holds {used} bytes, expected {expected}"),
            ));
        }
        let data = page
            .get(
                OVERFLOW_HEADER_LEN
                    ..OVERFLOW_HEADER_LEN + usize::try_from(used).unwrap_or(usize::MAX),
            )
            .ok_or_else(|| StorageError::corrupt_page(page_no, "overflow data out of bounds"))?;
        visit(page_no, data)?;
        remaining -= used;
        if remaining == 0 {
            if next != 0 {
                return Err(StorageError::corrupt_page(
                    page_no,
                    "overflow chain continues past the end of its value",
                ));
            }
            return Ok(());
        }
        page_no = next;
    }
}

/// Reads a whole chain of `total_len` bytes starting at `first`.
pub fn read_chain<S: PageRead + ?Sized>(
    store: &S,
    first: PageNo,
    total_len: u64,
) -> Result<Vec<u8>> {
    read_value(store, &[], first, total_len)
}

/// Reads a value of `total_len` bytes stored as an inline `prefix` followed by the chain
/// starting at `first` (which holds the other `total_len - prefix.len()` bytes).
pub fn read_value<S: PageRead + ?Sized>(
    store: &S,
    prefix: &[u8],
    first: PageNo,
    total_len: u64,
) -> Result<Vec<u8>> {
    let Some(chain_len) = total_len.checked_sub(prefix.len() as u64) else {
        return Err(StorageError::corrupt_page(
            first,
            format!(
                "overflow value length {total_len} shorter than its {}-byte prefix",
                prefix.len()
            ),
        ));
    };
    // Do not trust a damaged length with a huge up-front allocation; grow as pages verify.
    let mut out = Vec::with_capacity(total_len.min(1 << 24) as usize);
    out.extend_from_slice(prefix);
    walk_chain(store, first, chain_len, |_, data| {
        out.extend_from_slice(data);
        Ok(())
    })?;
    Ok(out)
}

/// Frees every page of a chain. The chain is verified completely before any page is freed,
/// so a damaged chain is reported without freeing pages it may share with live data.
pub fn free_chain<S: PageWrite + ?Sized>(
    store: &mut S,
    first: PageNo,
    total_len: u64,
) -> Result<()> {
    let mut pages = Vec::new();
    walk_chain(&*store, first, total_len, |page_no, _| {
        pages.push(page_no);
        Ok(())
    })?;
    for page_no in pages {
        store.free_page(page_no)?;
    }
    Ok(())
}

/// The page numbers of a chain, verified like [`read_chain`] (for integrity checks).
pub fn chain_pages<S: PageRead + ?Sized>(
    store: &S,
    first: PageNo,
    total_len: u64,
) -> Result<Vec<PageNo>> {
    let mut pages = Vec::new();
    walk_chain(store, first, total_len, |page_no, _| {
        pages.push(page_no);
        Ok(())
    })?;
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::btree::test_store::TestStore;

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 31 % 251) as u8).collect()
    }

    #[test]
    fn round_trip_various_lengths() {
        for page_size in [4096, 65536] {
            let mut store = TestStore::new(page_size);
            let per_page = data_per_page(store.usable_size());
            for len in [
                1,
                100,
                per_page - 1,
                per_page,
                per_page + 1,
                3 * per_page + 7,
            ] {
                let bytes = pattern(len);
                let first = write_chain(&mut store, &bytes).unwrap();
                assert_eq!(read_chain(&store, first, len as u64).unwrap(), bytes);
                assert_eq!(
                    chain_pages(&store, first, len as u64).unwrap().len() as u64,
                    chain_page_count(store.usable_size(), len as u64)
                );
                free_chain(&mut store, first, len as u64).unwrap();
            }
            assert_eq!(store.live_pages(), 1);
        }
    }

    #[test]
    fn ten_megabyte_value() {
        let mut store = TestStore::new(4096);
        let bytes = pattern(10 << 20);
        let first = write_chain(&mut store, &bytes).unwrap();
        assert_eq!(
            read_chain(&store, first, bytes.len() as u64).unwrap(),
            bytes
        );
        free_chain(&mut store, first, bytes.len() as u64).unwrap();
        assert_eq!(store.live_pages(), 1);
    }

    #[test]
    fn wrong_lengths_and_cycles_are_errors() {
        let mut store = TestStore::new(4096);
        let per_page = data_per_page(store.usable_size());
        let bytes = pattern(per_page * 3);
        let first = write_chain(&mut store, &bytes).unwrap();
        let total = bytes.len() as u64;
        assert!(read_chain(&store, first, total - 1).is_err());
        assert!(read_chain(&store, first, total + 1).is_err());
        assert!(read_chain(&store, first, 0).is_err());
        assert!(read_chain(&store, first, u64::MAX).is_err());
        // Point the second page back at the first: a cycle.
        let second = chain_pages(&store, first, total).unwrap()[1];
        store.page_mut(second).unwrap()[4..8].copy_from_slice(&first.to_le_bytes());
        assert!(read_chain(&store, first, total).is_err());
        assert!(read_chain(&store, first, total * 100).is_err());
        assert!(free_chain(&mut store, first, total).is_err());
        // A wrong kind byte.
        store.page_mut(first).unwrap()[0] = kind::TABLE_LEAF;
        assert!(read_chain(&store, first, total).is_err());
    }
}
