//! Pages: the unit of storage, caching and logging.
//!
//! A database file is an array of fixed-size pages numbered from 0. Page 0 holds the file
//! header (see `format`); every other page is a B+tree node, an overflow page, a free-list
//! trunk or a free page. Every page ends with a 4-byte CRC-32C trailer that covers the rest of
//! the page and its page number (so a page written to the wrong place is caught), verified
//! whenever the page is read from disk. Code above the pager sees only the *usable* part of a
//! page, without the trailer: [`PageBuf`] dereferences to that slice.
//!
//! Pages are shared as [`PageRef`] (an `Arc`): holding one pins the page in the cache, and a
//! writer modifies a page with copy-on-write (`Arc::make_mut`), so a reader or cursor holding
//! an older image keeps a consistent view of it.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::error::Result;

/// A page number: an index into the database file.
pub type PageNo = u32;

/// A map keyed by page number (or another small integer key), hashed with [`PageHasher`].
pub type PageMap<V> = std::collections::HashMap<PageNo, V, BuildPageHasher>;

/// Builds [`PageHasher`]s.
pub type BuildPageHasher = std::hash::BuildHasherDefault<PageHasher>;

/// A fast hasher for page numbers and other integer keys of in-memory maps: SipHash, the
/// standard default, costs more than the rest of a page lookup. Not for keys an attacker
/// chooses in bulk (it has no per-process key); page numbers come from our own file layout.
#[derive(Debug, Default)]
pub struct PageHasher(u64);

impl std::hash::Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    fn write_u64(&mut self, value: u64) {
        // Multiply-rotate mixing spreads small integers over the high bits the hash table uses.
        self.0 = (self.0 ^ value)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

/// Size of the checksum trailer at the end of every page.
pub const PAGE_TRAILER_SIZE: usize = 4;
/// Smallest allowed page size.
pub const MIN_PAGE_SIZE: usize = 4096;
/// Largest allowed page size.
pub const MAX_PAGE_SIZE: usize = 65536;
/// Page size used when none is chosen.
pub const DEFAULT_PAGE_SIZE: usize = 4096;

/// The first byte of every page other than page 0 says what the page is.
pub mod kind {
    /// Leaf of a table B+tree (rows keyed by row id, column-major).
    pub const TABLE_LEAF: u8 = 1;
    /// Interior node of a table B+tree.
    pub const TABLE_INTERIOR: u8 = 2;
    /// Leaf of an index B+tree (byte keys with byte values).
    pub const INDEX_LEAF: u8 = 3;
    /// Interior node of an index B+tree.
    pub const INDEX_INTERIOR: u8 = 4;
    /// A page of an overflow chain holding part of a long value.
    pub const OVERFLOW: u8 = 5;
    /// A free-list trunk page listing free pages.
    pub const FREELIST_TRUNK: u8 = 6;
    /// The meta page (root) of an HNSW index (`exec/index_access/hnsw/page.rs`).
    pub const HNSW_META: u8 = 7;
    /// A page of an HNSW index's node records.
    pub const HNSW_ELEMENTS: u8 = 8;
}

/// One page image in memory: `page_size` bytes including the checksum trailer.
#[derive(Clone, PartialEq, Eq)]
pub struct PageBuf {
    bytes: Box<[u8]>,
}

impl std::fmt::Debug for PageBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageBuf")
            .field("size", &self.bytes.len())
            .finish()
    }
}

impl PageBuf {
    /// A zeroed page of `page_size` bytes.
    pub fn zeroed(page_size: usize) -> Self {
        PageBuf {
            bytes: vec![0u8; page_size].into_boxed_slice(),
        }
    }

    /// The whole page, trailer included (what goes to disk).
    pub fn raw(&self) -> &[u8] {
        &self.bytes
    }

    /// The whole page, trailer included, writable (for reading from disk into it).
    pub fn raw_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }

    /// Computes and stores the trailer checksum for page number `page_no`.
    pub fn seal(&mut self, page_no: PageNo) {
        let checksum = page_checksum(&self.bytes, page_no);
        let at = self.bytes.len() - PAGE_TRAILER_SIZE;
        self.bytes[at..].copy_from_slice(&checksum.to_le_bytes());
    }

    /// Whether the trailer checksum matches the contents for page number `page_no`.
    pub fn verify(&self, page_no: PageNo) -> bool {
        let at = self.bytes.len() - PAGE_TRAILER_SIZE;
        let mut stored = [0u8; 4];
        stored.copy_from_slice(&self.bytes[at..]);
        u32::from_le_bytes(stored) == page_checksum(&self.bytes, page_no)
    }
}

/// CRC-32C of everything but the trailer, seeded with the page number.
fn page_checksum(bytes: &[u8], page_no: PageNo) -> u32 {
    let body = &bytes[..bytes.len() - PAGE_TRAILER_SIZE];
    crc32c::crc32c_append(crc32c::crc32c(&page_no.to_le_bytes()), body)
}

impl Deref for PageBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[..self.bytes.len() - PAGE_TRAILER_SIZE]
    }
}

impl DerefMut for PageBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        let end = self.bytes.len() - PAGE_TRAILER_SIZE;
        &mut self.bytes[..end]
    }
}

/// A shared, immutable page image. Holding it pins the page in the cache.
pub type PageRef = Arc<PageBuf>;

/// Read access to pages as of one snapshot. Implemented by read and write transactions (and
/// by simple in-memory stores in tests); B+tree code is written against this trait.
pub trait PageRead {
    /// The page `page_no` as this reader sees it. Errors if it is beyond the end of the
    /// database or fails its checksum.
    fn page(&self, page_no: PageNo) -> Result<PageRef>;
    /// Usable bytes per page (page size minus the trailer).
    fn usable_size(&self) -> usize;
    /// A number that stays the same for as long as every page image this reader has returned
    /// is still what [`PageRead::page`] would return, so a caller may keep and reuse page
    /// images (a cursor remembering the path of its last descent) while it is unchanged.
    /// `None` means the reader cannot promise that, and callers must fetch every time.
    fn generation(&self) -> Option<u64> {
        None
    }
}

impl<T: PageRead + ?Sized> PageRead for &T {
    fn page(&self, page_no: PageNo) -> Result<PageRef> {
        (**self).page(page_no)
    }

    fn usable_size(&self) -> usize {
        (**self).usable_size()
    }

    fn generation(&self) -> Option<u64> {
        (**self).generation()
    }
}

/// Lets code generic over a reader take a write transaction by `&mut` and still read it (an
/// HNSW graph being changed reads its pages through the same handle).
impl<T: PageRead + ?Sized> PageRead for &mut T {
    fn page(&self, page_no: PageNo) -> Result<PageRef> {
        (**self).page(page_no)
    }

    fn usable_size(&self) -> usize {
        (**self).usable_size()
    }

    fn generation(&self) -> Option<u64> {
        (**self).generation()
    }
}

/// Lets a cursor own a shared handle to its transaction (so query results can stream
/// without borrowing from the connection that started them).
impl<T: PageRead + ?Sized> PageRead for Arc<T> {
    fn page(&self, page_no: PageNo) -> Result<PageRef> {
        (**self).page(page_no)
    }

    fn usable_size(&self) -> usize {
        (**self).usable_size()
    }

    fn generation(&self) -> Option<u64> {
        (**self).generation()
    }
}

/// Write access: copy-on-write modification, allocation and freeing of pages.
pub trait PageWrite: PageRead {
    /// The usable bytes of page `page_no`, writable. The first call in a transaction copies
    /// the page; later reads through [`PageRead::page`] see the changes.
    fn page_mut(&mut self, page_no: PageNo) -> Result<&mut [u8]>;
    /// A new zero-filled page, taken from the free list when it has one.
    fn allocate_page(&mut self) -> Result<PageNo>;
    /// Returns a page to the free list. The caller must no longer reference it.
    fn free_page(&mut self, page_no: PageNo) -> Result<()>;
    /// Where an index method may put off entries to merge later in one pass
    /// ([`super::deferred`]), or `None` when this writer keeps none (entries are then written
    /// at once).
    fn deferred_writes(&mut self) -> Option<&mut super::deferred::DeferredWrites> {
        None
    }
}
