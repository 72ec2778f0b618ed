//! An in-memory page store for unit tests of the B+tree code: no cache, no log, no
//! transactions — just pages in a vector and a free list, with the same contract as a write
//! transaction (zeroed pages on allocation, freed pages reused).

use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageBuf, PageNo, PageRead, PageRef, PageWrite};
use std::sync::Arc;

/// Pages in memory. Page 0 is reserved (as the file header is in a real database).
#[derive(Debug)]
pub(crate) struct TestStore {
    page_size: usize,
    pages: Vec<Option<PageRef>>,
    free: Vec<PageNo>,
}

impl TestStore {
    pub(crate) fn new(page_size: usize) -> Self {
        TestStore {
            page_size,
            pages: vec![Some(Arc::new(PageBuf::zeroed(page_size)))],
            free: Vec::new(),
        }
    }

    /// Pages currently allocated (not free), page 0 included.
    pub(crate) fn live_pages(&self) -> usize {
        self.pages.iter().filter(|p| p.is_some()).count()
    }
}

impl PageRead for TestStore {
    fn page(&self, page_no: PageNo) -> Result<PageRef> {
        match self.pages.get(page_no as usize) {
            Some(Some(page)) => Ok(page.clone()),
            Some(None) => Err(StorageError::corrupt_page(page_no, "read of a freed page")),
            None => Err(StorageError::corrupt_page(
                page_no,
                "beyond the end of the store",
            )),
        }
    }

    fn usable_size(&self) -> usize {
        self.page_size - crate::storage::page::PAGE_TRAILER_SIZE
    }
}

impl PageWrite for TestStore {
    fn page_mut(&mut self, page_no: PageNo) -> Result<&mut [u8]> {
        match self.pages.get_mut(page_no as usize) {
            Some(Some(page)) => Ok(&mut Arc::make_mut(page)[..]),
            _ => Err(StorageError::corrupt_page(
                page_no,
                "write to a missing page",
            )),
        }
    }

    fn allocate_page(&mut self) -> Result<PageNo> {
        let fresh = Some(Arc::new(PageBuf::zeroed(self.page_size)));
        if let Some(page_no) = self.free.pop() {
            self.pages[page_no as usize] = fresh;
            return Ok(page_no);
        }
        self.pages.push(fresh);
        Ok((self.pages.len() - 1) as PageNo)
    }

    fn free_page(&mut self, page_no: PageNo) -> Result<()> {
        match self.pages.get_mut(page_no as usize) {
            Some(slot @ Some(_)) if page_no != 0 => {
                *slot = None;
                self.free.push(page_no);
                Ok(())
            }
            _ => Err(StorageError::corrupt_page(
                page_no,
                "double free or free of page 0",
            )),
        }
    }
}
