//! Table interior pages: separator row ids and child page numbers.
//!
//! An interior node with `n` keys has `n + 1` children. Child `i` holds row ids that are
//! `>= key[i-1]` (if `i > 0`) and `< key[i]` (if `i < n`); the last child holds the rest.
//! A lookup binary-searches the keys for the number of keys `<= row_id`, which is the index
//! of the child to descend into. Layout, all integers little-endian:
//!
//! ```text
//! 0   u8   kind = page::kind::TABLE_INTERIOR
//! 1   u8   padding (0)
//! 2   u16  key_count n
//! 4   u32  padding (0)
//! 8   children: (n + 1) x u32 page numbers
//! 8 + 4(n+1)   keys: n x i64, strictly ascending
//! ```
//!
//! The keys follow the children directly, so a node's layout depends only on its own key
//! count. At most [`max_keys`] keys fit: `(usable_size - 12) / 12` (340 on a 4 KiB page,
//! 5460 on a 64 KiB page).
//!
//! Readers use the validated zero-copy view [`TableInterior`]; writers decode a node into an
//! `InteriorNode` (two vectors), edit it and encode it back. Interior pages change only
//! when a child splits or merges, so the simple decode/encode costs little.

use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, kind};

/// Bytes before the child array.
const INTERIOR_HEADER_LEN: usize = 8;

/// Most keys an interior page of `usable_size` bytes holds.
pub fn max_keys(usable_size: usize) -> usize {
    usable_size.saturating_sub(INTERIOR_HEADER_LEN + 4) / 12
}

/// A validated, read-only view of a table interior page.
#[derive(Debug, Clone, Copy)]
pub struct TableInterior<'a> {
    bytes: &'a [u8],
    page_no: PageNo,
    key_count: usize,
}

impl<'a> TableInterior<'a> {
    /// Validates the usable bytes of page `page_no` as a table interior node.
    pub fn new(bytes: &'a [u8], page_no: PageNo) -> Result<TableInterior<'a>> {
        let Some(header) = bytes.get(..INTERIOR_HEADER_LEN) else {
            return Err(StorageError::corrupt_page(page_no, "page too small"));
        };
        if header[0] != kind::TABLE_INTERIOR {
            return Err(StorageError::corrupt_page(
                page_no,
                format!("expected a table interior page, found kind {}", header[0]),
            ));
        }
        let key_count = usize::from(u16::from_le_bytes([header[2], header[3]]));
        if key_count > max_keys(bytes.len()) {
            return Err(StorageError::corrupt_page(
                page_no,
                format!("key count {key_count} exceeds the page's maximum"),
            ));
        }
        Ok(TableInterior {
            bytes,
            page_no,
            key_count,
        })
    }

    /// Number of keys (children minus one).
    pub fn key_count(&self) -> usize {
        self.key_count
    }

    /// The page this view was read from.
    pub fn page_no(&self) -> PageNo {
        self.page_no
    }

    fn keys_at(&self) -> usize {
        INTERIOR_HEADER_LEN + 4 * (self.key_count + 1)
    }

    /// Child `index` (`index <= key_count`); page 0 (never a tree page) if out of range.
    pub fn child(&self, index: usize) -> PageNo {
        let at = INTERIOR_HEADER_LEN + 4 * index;
        if index > self.key_count {
            return 0;
        }
        match self.bytes.get(at..at + 4) {
            Some(slice) => u32::from_le_bytes([slice[0], slice[1], slice[2], slice[3]]),
            None => 0,
        }
    }

    /// Key `index` (`index < key_count`).
    pub fn key(&self, index: usize) -> i64 {
        let at = self.keys_at() + 8 * index;
        let mut buffer = [0u8; 8];
        if index < self.key_count
            && let Some(slice) = self.bytes.get(at..at + 8)
        {
            buffer.copy_from_slice(slice);
        }
        i64::from_le_bytes(buffer)
    }

    /// Index of the child whose range contains `row_id`: the number of keys `<= row_id`.
    pub fn child_index(&self, row_id: i64) -> usize {
        // Slice the key array once so each probe is a plain load.
        let at = self.keys_at();
        let keys = self
            .bytes
            .get(at..at + 8 * self.key_count)
            .unwrap_or_default();
        let key = |index: usize| {
            let mut buffer = [0u8; 8];
            if let Some(slice) = keys.get(index * 8..index * 8 + 8) {
                buffer.copy_from_slice(slice);
            }
            i64::from_le_bytes(buffer)
        };
        let (mut low, mut high) = (0, keys.len() / 8);
        while low < high {
            let middle = low + (high - low) / 2;
            if key(middle) <= row_id {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        low
    }

    /// The child page for `row_id`, checked not to be page 0.
    pub fn child_for(&self, row_id: i64) -> Result<PageNo> {
        self.checked_child(self.child_index(row_id))
    }

    /// Child `index`, checked not to be page 0 or this page itself.
    pub fn checked_child(&self, index: usize) -> Result<PageNo> {
        let child = self.child(index);
        if child == 0 || child == self.page_no {
            return Err(StorageError::corrupt_page(
                self.page_no,
                format!("invalid child pointer {child} at index {index}"),
            ));
        }
        Ok(child)
    }
}

/// An interior node decoded for editing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InteriorNode {
    pub(crate) keys: Vec<i64>,
    pub(crate) children: Vec<PageNo>,
}

impl InteriorNode {
    /// Decodes a validated view.
    pub(crate) fn decode(view: &TableInterior<'_>) -> InteriorNode {
        InteriorNode {
            keys: (0..view.key_count()).map(|index| view.key(index)).collect(),
            children: (0..=view.key_count())
                .map(|index| view.child(index))
                .collect(),
        }
    }

    /// Reads and decodes page bytes.
    pub(crate) fn read(bytes: &[u8], page_no: PageNo) -> Result<InteriorNode> {
        Ok(InteriorNode::decode(&TableInterior::new(bytes, page_no)?))
    }

    /// Writes the node into `bytes` (the whole usable page), which it must fit.
    pub(crate) fn encode(&self, bytes: &mut [u8]) -> Result<()> {
        let count = self.keys.len();
        if self.children.len() != count + 1 || count > max_keys(bytes.len()) {
            return Err(StorageError::InvalidArgument(format!(
                "interior node with {count} keys and {} children does not fit",
                self.children.len()
            )));
        }
        bytes.fill(0);
        bytes[0] = kind::TABLE_INTERIOR;
        #[allow(
            clippy::cast_possible_truncation,
            reason = "the keys were just checked to fit the page, so there are fewer than 65,536"
        )]
        let key_count = count as u16;
        bytes[2..4].copy_from_slice(&key_count.to_le_bytes());
        let mut at = INTERIOR_HEADER_LEN;
        for child in &self.children {
            bytes[at..at + 4].copy_from_slice(&child.to_le_bytes());
            at += 4;
        }
        for key in &self.keys {
            bytes[at..at + 8].copy_from_slice(&key.to_le_bytes());
            at += 8;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_and_search() {
        for usable in [4092, 65532] {
            let count = max_keys(usable);
            let node = InteriorNode {
                keys: (0..count as i64).map(|key| key * 10).collect(),
                children: (1..=count as u32 + 1).collect(),
            };
            let mut page = vec![0u8; usable];
            node.encode(&mut page).unwrap();
            let view = TableInterior::new(&page, 7).unwrap();
            assert_eq!(InteriorNode::decode(&view), node);
            assert_eq!(view.child_index(-5), 0);
            assert_eq!(view.child_index(0), 1);
            assert_eq!(view.child_index(9), 1);
            assert_eq!(view.child_index(10), 2);
            assert_eq!(view.child_index(i64::MAX), count);
            let too_many = InteriorNode {
                keys: vec![0; count + 1],
                children: vec![1; count + 2],
            };
            assert!(too_many.encode(&mut page).is_err());
        }
    }

    #[test]
    fn damaged_headers_are_errors() {
        let mut page = vec![0u8; 4092];
        assert!(TableInterior::new(&page, 3).is_err());
        page[0] = kind::TABLE_INTERIOR;
        page[2..4].copy_from_slice(&u16::MAX.to_le_bytes());
        assert!(TableInterior::new(&page, 3).is_err());
        page[2..4].copy_from_slice(&1u16.to_le_bytes());
        let view = TableInterior::new(&page, 3).unwrap();
        assert!(view.child_for(5).is_err());
    }
}
