//! The page cache: a bounded set of page images shared by every transaction.
//!
//! Entries are keyed by page number *and version*: version 0 is the page as stored in the
//! main database file, any other version is the sequence number of the write-ahead-log frame
//! holding that image. Because a frame never changes once written, a cached `(page, frame)`
//! entry is valid for as long as it exists; main-file entries are the only ones that can go
//! stale, and the checkpointer (the only code that writes the main file) removes them when it
//! overwrites their pages. Readers on different snapshots can therefore share the cache with
//! no coordination beyond the lookup itself.
//!
//! A page is pinned while anyone holds its `PageRef` (the `Arc`'s count is above one).
//! Eviction is CLOCK over unpinned entries. If every entry of a shard is pinned, a new page is
//! handed out without being cached, so the cache never grows past its bound. The cache is
//! split into shards by page number so threads reading different pages rarely contend; a hit
//! costs one uncontended lock, one hash probe and one atomic increment, and allocates nothing.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use super::page::{BuildPageHasher, PageNo, PageRef};

/// Version number meaning "the image stored in the main database file".
pub const MAIN_FILE_VERSION: u64 = 0;

const SHARD_COUNT: usize = 8;

/// Identifies one image of one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    /// The page.
    pub page_no: PageNo,
    /// [`MAIN_FILE_VERSION`], or the WAL frame sequence number holding this image.
    pub version: u64,
}

/// A bounded, sharded, CLOCK-evicting page cache.
#[derive(Debug)]
pub struct PageCache {
    shards: Box<[Mutex<Shard>]>,
}

#[derive(Debug)]
struct Shard {
    capacity: usize,
    index: HashMap<CacheKey, usize, BuildPageHasher>,
    slots: Vec<Slot>,
    clock_hand: usize,
}

#[derive(Debug)]
struct Slot {
    key: CacheKey,
    page: PageRef,
    referenced: bool,
}

impl PageCache {
    /// A cache holding at most `capacity_pages` pages (at least a few per shard).
    pub fn new(capacity_pages: usize) -> Self {
        let per_shard = capacity_pages.div_ceil(SHARD_COUNT).max(4);
        let shards = (0..SHARD_COUNT)
            .map(|_| {
                Mutex::new(Shard {
                    capacity: per_shard,
                    // Both grow with the pages actually cached, not to the capacity at once:
                    // a large cache (PRAGMA cache_size of a gigabyte) over a small working set
                    // would otherwise spread a few thousand entries over megabytes of index,
                    // and every lookup would miss the CPU's caches (a 10k-row vector scan
                    // ran at half speed with a 1 GiB cache before this).
                    index: HashMap::with_hasher(Default::default()),
                    slots: Vec::new(),
                    clock_hand: 0,
                })
            })
            .collect();
        PageCache { shards }
    }

    /// Pages the cache holds at most (the sum of its shards' capacities).
    pub fn capacity(&self) -> usize {
        self.shards.iter().map(|shard| shard.lock().capacity).sum()
    }

    /// Changes how many pages the cache may hold (`PRAGMA cache_size`). Shrinking evicts
    /// unpinned pages at once; pages someone still holds stay until released and evicted
    /// later, as with any full cache.
    pub fn set_capacity(&self, capacity_pages: usize) {
        let per_shard = capacity_pages.div_ceil(SHARD_COUNT).max(4);
        for shard in self.shards.iter() {
            let mut shard = shard.lock();
            shard.capacity = per_shard;
            shard.shrink_to_capacity();
        }
    }

    fn shard(&self, page_no: PageNo) -> &Mutex<Shard> {
        &self.shards[page_no as usize % SHARD_COUNT]
    }

    /// The cached image, if present (and marks it recently used).
    pub fn get(&self, key: CacheKey) -> Option<PageRef> {
        let mut shard = self.shard(key.page_no).lock();
        let slot_index = *shard.index.get(&key)?;
        let slot = &mut shard.slots[slot_index];
        slot.referenced = true;
        Some(slot.page.clone())
    }

    /// Caches `page` under `key` unless an image is already there, and returns the cached
    /// image (so racing readers converge on one copy).
    pub fn insert(&self, key: CacheKey, page: PageRef) -> PageRef {
        self.shard(key.page_no).lock().insert(key, page)
    }

    /// Caches `page` under `to` in place of the images under `from` and `to`, if cached
    /// (both keys name the same page). The checkpointer uses it when a log frame's image
    /// becomes the main file's: the frame's entry is retired rather than kept beside the new
    /// one, because one `PageRef` in two slots would count as pinned in both and could never
    /// be evicted.
    pub fn move_to(&self, from: CacheKey, to: CacheKey, page: PageRef) {
        debug_assert_eq!(from.page_no, to.page_no, "a cache move keeps the page");
        let mut shard = self.shard(to.page_no).lock();
        for stale in [to, from] {
            if let Some(slot_index) = shard.index.remove(&stale) {
                shard.remove_slot(slot_index);
            }
        }
        shard.insert(to, page);
    }

    /// Number of cached images someone outside the cache still holds.
    #[cfg(test)]
    pub fn pinned_len(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| {
                let shard = shard.lock();
                shard
                    .slots
                    .iter()
                    .filter(|slot| Arc::strong_count(&slot.page) > 1)
                    .count()
            })
            .sum()
    }

    /// Drops the image of `key`, if cached.
    pub fn remove(&self, key: CacheKey) {
        let mut shard = self.shard(key.page_no).lock();
        if let Some(slot_index) = shard.index.remove(&key) {
            shard.remove_slot(slot_index);
        }
    }

    /// Drops every main-file image of a page at or beyond `first_page` (after truncation).
    pub fn remove_main_file_pages_from(&self, first_page: PageNo) {
        for shard in self.shards.iter() {
            let mut shard = shard.lock();
            let doomed: Vec<CacheKey> = shard
                .index
                .keys()
                .filter(|key| key.version == MAIN_FILE_VERSION && key.page_no >= first_page)
                .copied()
                .collect();
            for key in doomed {
                if let Some(slot_index) = shard.index.remove(&key) {
                    shard.remove_slot(slot_index);
                }
            }
        }
    }

    /// Number of cached images.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| shard.lock().slots.len())
            .sum()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Shard {
    /// Drops unpinned slots until the shard holds no more than its capacity.
    fn shrink_to_capacity(&mut self) {
        let mut slot_index = 0;
        while self.slots.len() > self.capacity && slot_index < self.slots.len() {
            if Arc::strong_count(&self.slots[slot_index].page) > 1 {
                slot_index += 1;
                continue;
            }
            let key = self.slots[slot_index].key;
            self.index.remove(&key);
            self.remove_slot(slot_index);
        }
        self.clock_hand = 0;
    }

    /// [`PageCache::insert`] within this shard.
    fn insert(&mut self, key: CacheKey, page: PageRef) -> PageRef {
        if let Some(&slot_index) = self.index.get(&key) {
            return self.slots[slot_index].page.clone();
        }
        if self.slots.len() < self.capacity {
            let slot_index = self.slots.len();
            self.slots.push(Slot {
                key,
                page: page.clone(),
                referenced: true,
            });
            self.index.insert(key, slot_index);
            return page;
        }
        if let Some(victim) = self.find_victim() {
            let old_key = self.slots[victim].key;
            self.index.remove(&old_key);
            self.slots[victim] = Slot {
                key,
                page: page.clone(),
                referenced: true,
            };
            self.index.insert(key, victim);
        }
        page
    }

    /// CLOCK: sweep at most two rounds, clearing reference bits, skipping pinned pages.
    fn find_victim(&mut self) -> Option<usize> {
        let slot_count = self.slots.len();
        for _ in 0..slot_count * 2 {
            let hand = self.clock_hand;
            self.clock_hand = (self.clock_hand + 1) % slot_count;
            let slot = &mut self.slots[hand];
            if Arc::strong_count(&slot.page) > 1 {
                continue;
            }
            if slot.referenced {
                slot.referenced = false;
                continue;
            }
            return Some(hand);
        }
        None
    }

    /// Removes a slot by moving the last slot into its place.
    fn remove_slot(&mut self, slot_index: usize) {
        self.slots.swap_remove(slot_index);
        if slot_index < self.slots.len() {
            let moved_key = self.slots[slot_index].key;
            self.index.insert(moved_key, slot_index);
        }
        if self.clock_hand >= self.slots.len() {
            self.clock_hand = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::page::PageBuf;

    fn key(page_no: PageNo, version: u64) -> CacheKey {
        CacheKey { page_no, version }
    }

    #[test]
    fn stays_within_capacity_and_keeps_pinned_pages() {
        let cache = PageCache::new(32);
        let pinned = cache.insert(key(0, 0), Arc::new(PageBuf::zeroed(4096)));
        for page_no in 1..1000 {
            cache.insert(key(page_no, 0), Arc::new(PageBuf::zeroed(4096)));
        }
        assert!(cache.len() <= 32);
        assert!(
            cache.get(key(0, 0)).is_some(),
            "a pinned page must not be evicted"
        );
        drop(pinned);
    }

    #[test]
    fn shrinking_evicts_unpinned_pages_and_keeps_the_index_consistent() {
        let cache = PageCache::new(4096);
        let pinned = cache.insert(key(7, 0), Arc::new(PageBuf::zeroed(4096)));
        for page_no in 0..2000 {
            cache.insert(key(page_no, 1), Arc::new(PageBuf::zeroed(4096)));
        }
        assert_eq!(cache.len(), 2001);
        cache.set_capacity(64);
        assert!(cache.len() <= 64, "{} pages after shrinking", cache.len());
        assert!(cache.get(key(7, 0)).is_some(), "a pinned page stays");
        // Every page the index still knows is really there, and new pages go in.
        let found = (0..2000)
            .filter(|&p| cache.get(key(p, 1)).is_some())
            .count();
        assert!(found < 64);
        for page_no in 5000..5200 {
            cache.insert(key(page_no, 0), Arc::new(PageBuf::zeroed(4096)));
            assert!(cache.get(key(page_no, 0)).is_some());
        }
        assert!(cache.len() <= 64);
        assert_eq!(cache.capacity(), 64);
        drop(pinned);
    }

    #[test]
    fn versions_are_distinct_and_removable() {
        let cache = PageCache::new(64);
        let mut first = PageBuf::zeroed(4096);
        first[0] = 1;
        cache.insert(key(5, 0), Arc::new(first));
        cache.insert(key(5, 9), Arc::new(PageBuf::zeroed(4096)));
        assert_eq!(cache.get(key(5, 0)).unwrap()[0], 1);
        assert_eq!(cache.get(key(5, 9)).unwrap()[0], 0);
        cache.remove(key(5, 0));
        assert!(cache.get(key(5, 0)).is_none());
        cache.insert(key(8, 0), Arc::new(PageBuf::zeroed(4096)));
        cache.insert(key(30, 0), Arc::new(PageBuf::zeroed(4096)));
        cache.remove_main_file_pages_from(8);
        assert!(cache.get(key(8, 0)).is_none() && cache.get(key(30, 0)).is_none());
        assert!(cache.get(key(5, 9)).is_some());
    }

    #[test]
    fn a_moved_image_is_cached_once_and_stays_evictable() {
        let cache = PageCache::new(32);
        let page = cache.insert(key(3, 17), Arc::new(PageBuf::zeroed(4096)));
        cache.move_to(key(3, 17), key(3, MAIN_FILE_VERSION), page);
        assert!(cache.get(key(3, 17)).is_none());
        assert!(cache.get(key(3, MAIN_FILE_VERSION)).is_some());
        assert_eq!(
            cache.pinned_len(),
            0,
            "only the cache holds the moved image"
        );
        for page_no in 100..1000 {
            cache.insert(key(page_no, 0), Arc::new(PageBuf::zeroed(4096)));
        }
        assert!(
            cache.get(key(3, MAIN_FILE_VERSION)).is_none(),
            "an unpinned image is evicted under pressure"
        );
    }

    #[test]
    fn when_everything_is_pinned_new_pages_are_not_cached() {
        let cache = PageCache::new(8);
        let held: Vec<PageRef> = (0..64)
            .map(|page_no| cache.insert(key(page_no, 0), Arc::new(PageBuf::zeroed(4096))))
            .collect();
        assert!(cache.len() <= 32);
        drop(held);
    }
}
