//! The interior pages a cursor's descents passed through, kept for its next descents.
//!
//! An index scan that reads each matching row from its table seeks the table tree once per
//! row, and every seek walks root → interior → leaf. The root is the same page every time,
//! and with a few hundred children per interior page the level below it has only a handful
//! of pages, so a cursor that keeps the interior pages it has seen can skip fetching them
//! again — each fetch is a transaction lookup, a log lookup and a cache lookup under locks,
//! the largest part of a seek. Leaves are not kept: a lookup by random key rarely lands on
//! the same leaf twice. The search inside each page still runs; only the fetch is saved.
//!
//! Reuse is sound only while the kept images are still the store's current pages.
//! [`PageRead::generation`] says exactly that: a descent starts by comparing the store's
//! generation with the one the pages were fetched under and forgets them all if it moved (a
//! read snapshot never moves; a write transaction moves with every page change and savepoint
//! rollback). A store without a generation gets no memory at all. Pages are matched by page
//! number, which names one image for as long as the generation holds.
//!
//! At most [`KEPT_PAGES`] pages are kept (each pins a page in the cache). The first page kept
//! is the root, reached by every descent, and it is never replaced; the others are replaced
//! in turn when a new interior page comes along.

use crate::storage::page::{PageNo, PageRead, PageRef};

/// Interior pages a cursor keeps: the root and the level below it in trees of up to a few
/// million rows.
pub(crate) const KEPT_PAGES: usize = 8;

/// Interior pages seen by earlier descents. See the module documentation.
#[derive(Debug, Default)]
pub(crate) struct RememberedPages {
    /// The store's generation when `pages` were fetched; `None` keeps nothing.
    generation: Option<u64>,
    pages: Vec<(PageNo, PageRef)>,
    /// The slot the next new page replaces once `pages` is full (never 0, the root's).
    next_replaced: usize,
}

impl RememberedPages {
    /// Starts a descent: forgets every page unless the store is unchanged since they were
    /// fetched.
    pub(crate) fn begin<S: PageRead + ?Sized>(&mut self, store: &S) {
        let generation = store.generation();
        if generation.is_none() || generation != self.generation {
            self.pages.clear();
            self.generation = generation;
        }
    }

    /// The kept image of page `page_no`, if there is one.
    pub(crate) fn get(&self, page_no: PageNo) -> Option<&PageRef> {
        self.pages
            .iter()
            .find(|(kept, _)| *kept == page_no)
            .map(|(_, page)| page)
    }

    /// Keeps `page` (interior page `page_no`, just fetched) for later descents.
    pub(crate) fn keep(&mut self, page_no: PageNo, page: PageRef) {
        if self.generation.is_none() {
            return;
        }
        if self.pages.len() < KEPT_PAGES {
            self.pages.push((page_no, page));
            return;
        }
        let slot = self.next_replaced.clamp(1, KEPT_PAGES - 1);
        self.pages[slot] = (page_no, page);
        self.next_replaced = if slot + 1 < KEPT_PAGES { slot + 1 } else { 1 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Result;
    use crate::storage::btree::test_store::TestStore;
    use crate::storage::page::PageWrite;

    /// A store whose generation the test controls, counting fetches.
    struct Counting {
        inner: TestStore,
        generation: Option<u64>,
        fetches: std::cell::Cell<usize>,
    }

    impl PageRead for Counting {
        fn page(&self, page_no: PageNo) -> Result<PageRef> {
            self.fetches.set(self.fetches.get() + 1);
            self.inner.page(page_no)
        }
        fn usable_size(&self) -> usize {
            self.inner.usable_size()
        }
        fn generation(&self) -> Option<u64> {
            self.generation
        }
    }

    fn store(generation: Option<u64>) -> Counting {
        let mut inner = TestStore::new(4096);
        for _ in 0..KEPT_PAGES + 4 {
            inner.allocate_page().unwrap();
        }
        Counting {
            inner,
            generation,
            fetches: std::cell::Cell::new(0),
        }
    }

    fn page(store: &Counting, remembered: &mut RememberedPages, page_no: PageNo) {
        if remembered.get(page_no).is_none() {
            let fetched = store.page(page_no).unwrap();
            remembered.keep(page_no, fetched);
        }
    }

    #[test]
    fn keeps_pages_while_the_store_is_unchanged() {
        let store = store(Some(7));
        let mut remembered = RememberedPages::default();
        for _ in 0..3 {
            remembered.begin(&store);
            page(&store, &mut remembered, 1);
            page(&store, &mut remembered, 2);
        }
        assert_eq!(store.fetches.get(), 2, "each page fetched once");
    }

    #[test]
    fn the_root_stays_when_newer_pages_replace_each_other() {
        let store = store(Some(7));
        let mut remembered = RememberedPages::default();
        remembered.begin(&store);
        page(&store, &mut remembered, 1);
        for round in 0..3 {
            for page_no in 2..=KEPT_PAGES as PageNo + 2 {
                page(&store, &mut remembered, page_no);
            }
            assert!(remembered.get(1).is_some(), "root lost in round {round}");
        }
        assert_eq!(remembered.pages.len(), KEPT_PAGES);
    }

    #[test]
    fn forgets_everything_when_the_generation_moves_or_is_unknown() {
        let mut store = store(Some(1));
        let mut remembered = RememberedPages::default();
        remembered.begin(&store);
        page(&store, &mut remembered, 1);
        store.generation = Some(2);
        remembered.begin(&store);
        page(&store, &mut remembered, 1);
        assert_eq!(store.fetches.get(), 2, "a changed store is fetched again");

        store.generation = None;
        for _ in 0..2 {
            remembered.begin(&store);
            page(&store, &mut remembered, 1);
        }
        assert_eq!(store.fetches.get(), 4, "no generation, no memory");
    }
}
