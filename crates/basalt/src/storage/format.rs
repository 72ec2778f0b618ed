//! The file header: page 0 of every database file.
//!
//! The header identifies the file (a 16-byte magic string and a format version), fixes the
//! page size for the file's whole life, and carries the few values that describe the database
//! as a whole: how many pages it has, where the free list starts, a commit counter, and eight
//! *meta slots* that upper layers use for their own roots (the catalog's root page, the schema
//! version). Page 0 is versioned like any other page: a transaction that changes these values
//! writes a new image of page 0 to the write-ahead log, so every snapshot has its own header.
//!
//! Byte layout of page 0 (little-endian; the last 4 bytes of the page are the usual CRC-32C
//! trailer, see `page`):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 16 | magic: `"Basalt format\0\0\0"` |
//! | 16 | 4 | format version (1) |
//! | 20 | 4 | page size in bytes (a power of two, 4096–65536) |
//! | 24 | 4 | page count, page 0 included |
//! | 28 | 4 | first free-list trunk page (0 = empty free list) |
//! | 32 | 4 | number of free pages (trunks included) |
//! | 36 | 4 | reserved, zero |
//! | 40 | 8 | commit counter: incremented by every commit that changes the file |
//! | 48 | 64 | eight meta slots of 8 bytes each, owned by upper layers |
//! | 112 | … | zero up to the trailer |

use super::error::{Result, StorageError};
use super::page::{MAX_PAGE_SIZE, MIN_PAGE_SIZE, PageNo};

/// The magic string at offset 0 of every Basalt database file.
pub const MAGIC: &[u8; 16] = b"Basalt format\0\0\0";
/// The file format version this code reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Number of 64-bit meta slots in the header.
pub const META_SLOTS: usize = 8;
/// Bytes of the header that carry data; the rest of page 0 is zero.
pub const HEADER_SIZE: usize = 112;

/// The decoded header of one snapshot of the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Page size in bytes.
    pub page_size: u32,
    /// Pages in the database, page 0 included.
    pub page_count: PageNo,
    /// First free-list trunk page, 0 if the free list is empty.
    pub freelist_head: PageNo,
    /// Free pages, trunk pages included.
    pub free_count: u32,
    /// Incremented by every commit that changes the database.
    pub commit_counter: u64,
    /// Slots owned by upper layers (catalog root, schema version, ...).
    pub meta: [u64; META_SLOTS],
}

impl Header {
    /// The header of a new, empty database: just page 0.
    pub fn new(page_size: u32) -> Self {
        Header {
            page_size,
            page_count: 1,
            freelist_head: 0,
            free_count: 0,
            commit_counter: 0,
            meta: [0; META_SLOTS],
        }
    }

    /// Writes the header into the usable bytes of page 0.
    pub fn encode(&self, page: &mut [u8]) {
        page[..HEADER_SIZE].fill(0);
        page[0..16].copy_from_slice(MAGIC);
        page[16..20].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        page[20..24].copy_from_slice(&self.page_size.to_le_bytes());
        page[24..28].copy_from_slice(&self.page_count.to_le_bytes());
        page[28..32].copy_from_slice(&self.freelist_head.to_le_bytes());
        page[32..36].copy_from_slice(&self.free_count.to_le_bytes());
        page[40..48].copy_from_slice(&self.commit_counter.to_le_bytes());
        for (slot, value) in self.meta.iter().enumerate() {
            let at = 48 + slot * 8;
            page[at..at + 8].copy_from_slice(&value.to_le_bytes());
        }
    }

    /// Decodes and validates the header from page 0's bytes. `expected_page_size` is the page
    /// size the file was opened with; a mismatch means damage.
    pub fn decode(page: &[u8], expected_page_size: usize) -> Result<Header> {
        let page_size = read_page_size(page)?;
        if page_size as usize != expected_page_size {
            return Err(StorageError::corrupt_page(
                0,
                format!("header page size {page_size} differs from {expected_page_size}"),
            ));
        }
        let read_u32 =
            |at: usize| u32::from_le_bytes([page[at], page[at + 1], page[at + 2], page[at + 3]]);
        let read_u64 = |at: usize| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&page[at..at + 8]);
            u64::from_le_bytes(bytes)
        };
        let mut meta = [0u64; META_SLOTS];
        for (slot, value) in meta.iter_mut().enumerate() {
            *value = read_u64(48 + slot * 8);
        }
        let header = Header {
            page_size,
            page_count: read_u32(24),
            freelist_head: read_u32(28),
            free_count: read_u32(32),
            commit_counter: read_u64(40),
            meta,
        };
        if header.page_count == 0 {
            return Err(StorageError::corrupt_page(0, "page count is zero"));
        }
        if header.freelist_head >= header.page_count || header.free_count >= header.page_count {
            return Err(StorageError::corrupt_page(
                0,
                "free list points beyond the end of the database",
            ));
        }
        Ok(header)
    }
}

/// Checks the magic string and version at the start of a file and returns its page size.
/// Needs only the first [`HEADER_SIZE`] bytes, so it can run before the page size is known.
pub fn read_page_size(bytes: &[u8]) -> Result<u32> {
    if bytes.len() < HEADER_SIZE {
        return Err(StorageError::corrupt_page(0, "header is truncated"));
    }
    if &bytes[0..16] != MAGIC {
        return Err(StorageError::corrupt_page(0, "bad magic string"));
    }
    let version = u32::from_le_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]);
    if version != FORMAT_VERSION {
        return Err(StorageError::corrupt_page(
            0,
            format!("unsupported format version {version}"),
        ));
    }
    let page_size = u32::from_le_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]);
    if !valid_page_size(page_size as usize) {
        return Err(StorageError::corrupt_page(
            0,
            format!("invalid page size {page_size}"),
        ));
    }
    Ok(page_size)
}

/// Whether `size` is an allowed page size: a power of two from 4 KiB to 64 KiB.
pub fn valid_page_size(size: usize) -> bool {
    size.is_power_of_two() && (MIN_PAGE_SIZE..=MAX_PAGE_SIZE).contains(&size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_rejects_damage() {
        let mut page = vec![0u8; 4092];
        let mut header = Header::new(4096);
        header.page_count = 10;
        header.freelist_head = 3;
        header.free_count = 2;
        header.commit_counter = 77;
        header.meta[7] = u64::MAX;
        header.encode(&mut page);
        assert_eq!(Header::decode(&page, 4096).unwrap(), header);
        assert!(Header::decode(&page, 8192).is_err());
        let mut bad = page.clone();
        bad[0] = b'X';
        assert!(Header::decode(&bad, 4096).is_err());
        let mut bad = page.clone();
        bad[28..32].copy_from_slice(&20u32.to_le_bytes());
        assert!(Header::decode(&bad, 4096).is_err());
        assert!(Header::decode(&page[..50], 4096).is_err());
    }

    #[test]
    fn page_sizes() {
        assert!(valid_page_size(4096) && valid_page_size(65536) && valid_page_size(16384));
        assert!(!valid_page_size(2048) && !valid_page_size(131072) && !valid_page_size(5000));
    }
}
