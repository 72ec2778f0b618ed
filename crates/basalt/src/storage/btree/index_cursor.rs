//! Cursors over an index B+tree: ordered iteration in both directions from any seek.
//!
//! # What
//!
//! An [`IndexCursor`] is positioned on one entry or is invalid. Seeks descend from the root
//! to the leaf whose key range holds the target and then move at most one leaf sideways
//! (a truncated separator can route a key to a leaf whose entries all sort below it).
//! `next`/`prev` step within the leaf and follow the sibling links at its edges.
//!
//! # Guarantees
//!
//! * The cursor holds the current leaf as a `PageRef`, so `key()` and `value()` borrow
//!   straight from the pinned page image: a seek followed by a key read does not allocate.
//!   It borrows the store immutably, so the tree cannot change under it.
//! * Following a sibling link checks that the neighbour is a non-empty leaf that links back
//!   and whose keys continue strictly past the current leaf's. Keys therefore increase
//!   strictly along every walk, which is what makes a cycle in damaged links impossible to
//!   follow forever; the damage surfaces as `StorageError::Corrupt`.
//! * After an error the cursor is invalid.
//!
//! # How it fits
//!
//! Created by `IndexTree::cursor`; shares the bounded descent of `index.rs` and the page
//! views of `index_page.rs`. Range scans for SQL are built on `seek_ge`/`seek_gt` plus
//! `next` (or `seek_le`/`seek_lt` plus `prev` for descending order).

use std::fmt;
use std::ops::Range;

use super::index::{Target, descend};
use super::index_page::Node;
use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, PageRead, PageRef};

/// A position in an index tree; see the module documentation.
pub struct IndexCursor<S: PageRead> {
    store: S,
    root: PageNo,
    /// The pinned current leaf; `None` when the cursor is invalid.
    leaf: Option<PageRef>,
    leaf_no: PageNo,
    index: usize,
    key: Range<usize>,
    value: Range<usize>,
    /// The store's generation ([`PageRead::generation`]) when the cursor last walked the
    /// tree (a seek or a step to a sibling leaf): see [`IndexCursor::is_stale`].
    walked_at: Option<u64>,
}

impl<S: PageRead> fmt::Debug for IndexCursor<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IndexCursor")
            .field("root", &self.root)
            .field("valid", &self.leaf.is_some())
            .field("leaf", &self.leaf_no)
            .field("index", &self.index)
            .finish()
    }
}

fn leaf_node(page: &[u8], page_no: PageNo) -> Result<Node<'_>> {
    let node = Node::parse(page, page_no)?;
    if !node.is_leaf() {
        return Err(StorageError::corrupt_page(
            page_no,
            "expected an index leaf, found an interior page",
        ));
    }
    Ok(node)
}

impl<S: PageRead> IndexCursor<S> {
    pub(super) fn new(store: S, root: PageNo) -> Self {
        IndexCursor {
            store,
            root,
            leaf: None,
            leaf_no: 0,
            index: 0,
            key: 0..0,
            value: 0..0,
            walked_at: None,
        }
    }

    /// Whether the store may have changed since the cursor reached its current leaf (a
    /// statement's rows still being read while its transaction writes). The leaf it holds
    /// is then an old image whose sibling links may name pages that were split, merged,
    /// freed or reused since: the caller must seek again by key instead of stepping. False
    /// for a store without a generation (one that cannot change while the cursor borrows it).
    pub fn is_stale(&self) -> bool {
        matches!((self.walked_at, self.store.generation()), (Some(then), Some(now)) if then != now)
    }

    /// Whether the cursor is on an entry.
    pub fn is_valid(&self) -> bool {
        self.leaf.is_some()
    }

    /// The current key; empty if the cursor is invalid.
    pub fn key(&self) -> &[u8] {
        self.slice(&self.key)
    }

    /// The current value; empty if the cursor is invalid.
    pub fn value(&self) -> &[u8] {
        self.slice(&self.value)
    }

    fn slice(&self, range: &Range<usize>) -> &[u8] {
        match &self.leaf {
            // The range was validated against this very page when the cursor moved here.
            Some(page) => page.get(range.clone()).unwrap_or_default(),
            None => &[],
        }
    }

    /// Positions on the first entry `>= key`. Returns whether it equals `key`; use
    /// [`is_valid`](Self::is_valid) to learn whether any entry was found.
    pub fn seek_ge(&mut self, key: &[u8]) -> Result<bool> {
        let result = self.seek_forward(key, false);
        self.settle(result)
    }

    /// The leaf page the cursor is on, when it is valid: a hint for
    /// [`IndexTree::insert_near`](super::index::IndexTree::insert_near) after a seek to where
    /// a new key will go.
    pub fn leaf_page(&self) -> Option<PageNo> {
        self.leaf.as_ref().map(|_| self.leaf_no)
    }

    /// Positions on the first entry `> key`. Returns whether there is one.
    pub fn seek_gt(&mut self, key: &[u8]) -> Result<bool> {
        let result = self.seek_forward(key, true);
        self.settle(result)
    }

    /// Positions on the last entry `<= key`. Returns whether it equals `key`; use
    /// [`is_valid`](Self::is_valid) to learn whether any entry was found.
    pub fn seek_le(&mut self, key: &[u8]) -> Result<bool> {
        let result = self.seek_backward(key, true);
        self.settle(result)
    }

    /// Positions on the last entry `< key`. Returns whether there is one.
    pub fn seek_lt(&mut self, key: &[u8]) -> Result<bool> {
        let result = self.seek_backward(key, false);
        self.settle(result)
    }

    /// Positions on the smallest entry. Returns whether the tree has one.
    pub fn first(&mut self) -> Result<bool> {
        let result = self.first_inner();
        self.settle(result)
    }

    /// Positions on the largest entry. Returns whether the tree has one.
    pub fn last(&mut self) -> Result<bool> {
        let result = self.last_inner();
        self.settle(result)
    }

    /// Moves to the next entry. Returns whether the cursor is still valid; an invalid
    /// cursor stays invalid.
    // Not `Iterator::next`: stepping can fail, and the entry is read through `key`/`value`
    // borrowed from the pinned page rather than yielded as an owned item.
    #[allow(
        clippy::should_implement_trait,
        reason = "a cursor step can fail and returns no item; it is not an Iterator"
    )]
    pub fn next(&mut self) -> Result<bool> {
        let result = self.next_inner();
        self.settle(result)
    }

    /// Moves to the previous entry. Returns whether the cursor is still valid.
    pub fn prev(&mut self) -> Result<bool> {
        let result = self.prev_inner();
        self.settle(result)
    }

    /// Invalidates the cursor if `result` is an error, then passes it on.
    fn settle(&mut self, result: Result<bool>) -> Result<bool> {
        if result.is_err() {
            self.invalidate();
        }
        result
    }

    fn invalidate(&mut self) {
        self.leaf = None;
    }

    fn position(&mut self, page: PageRef, page_no: PageNo, index: usize) -> Result<()> {
        let (key, value) = leaf_node(&page, page_no)?.leaf_entry_ranges(index)?;
        self.key = key;
        self.value = value;
        self.leaf = Some(page);
        self.leaf_no = page_no;
        self.index = index;
        Ok(())
    }

    /// Positions on entry `index` of the leaf, or on the first entry of the following leaf
    /// when `index` is past its end. Returns validity.
    fn forward_from(&mut self, page: PageRef, page_no: PageNo, index: usize) -> Result<bool> {
        if index < leaf_node(&page, page_no)?.count() {
            self.position(page, page_no, index)?;
            return Ok(true);
        }
        self.step_to_next_leaf(&page, page_no)
    }

    /// Positions on the first entry of the leaf after `page_no`, checking the link.
    fn step_to_next_leaf(&mut self, page: &PageRef, page_no: PageNo) -> Result<bool> {
        let node = leaf_node(page, page_no)?;
        let next = node.next_leaf();
        if next == 0 {
            self.invalidate();
            return Ok(false);
        }
        self.walked_at = self.store.generation();
        let next_page = self.store.page(next)?;
        let next_node = leaf_node(&next_page, next)?;
        if next_node.prev_leaf() != page_no {
            return Err(StorageError::corrupt_page(
                next,
                format!(
                    "prev_leaf is {}, but leaf {page_no} links here",
                    next_node.prev_leaf()
                ),
            ));
        }
        if next_node.count() == 0 {
            return Err(StorageError::corrupt_page(
                next,
                "empty leaf in the sibling chain",
            ));
        }
        if node.count() > 0 && next_node.key(0)? <= node.key(node.count() - 1)? {
            return Err(StorageError::corrupt_page(
                next,
                "keys do not increase across the sibling link",
            ));
        }
        self.position(next_page, next, 0)?;
        Ok(true)
    }

    /// Positions on the last entry of the leaf before `page_no`, checking the link.
    fn step_to_prev_leaf(&mut self, page: &PageRef, page_no: PageNo) -> Result<bool> {
        let node = leaf_node(page, page_no)?;
        let prev = node.prev_leaf();
        if prev == 0 {
            self.invalidate();
            return Ok(false);
        }
        self.walked_at = self.store.generation();
        let prev_page = self.store.page(prev)?;
        let prev_node = leaf_node(&prev_page, prev)?;
        if prev_node.next_leaf() != page_no {
            return Err(StorageError::corrupt_page(
                prev,
                format!(
                    "next_leaf is {}, but leaf {page_no} links here",
                    prev_node.next_leaf()
                ),
            ));
        }
        let count = prev_node.count();
        if count == 0 {
            return Err(StorageError::corrupt_page(
                prev,
                "empty leaf in the sibling chain",
            ));
        }
        if node.count() > 0 && prev_node.key(count - 1)? >= node.key(0)? {
            return Err(StorageError::corrupt_page(
                prev,
                "keys do not increase across the sibling link",
            ));
        }
        self.position(prev_page, prev, count - 1)?;
        Ok(true)
    }

    fn seek_forward(&mut self, key: &[u8], strict: bool) -> Result<bool> {
        self.walked_at = self.store.generation();
        let (page_no, page) = descend(&self.store, self.root, Target::Key(key), None)?;
        let node = leaf_node(&page, page_no)?;
        let (index, exact) = if strict {
            (node.upper_bound(key)?, false)
        } else {
            node.lower_bound(key)?
        };
        let valid = self.forward_from(page, page_no, index)?;
        Ok(if strict { valid } else { valid && exact })
    }

    fn seek_backward(&mut self, key: &[u8], inclusive: bool) -> Result<bool> {
        self.walked_at = self.store.generation();
        let (page_no, page) = descend(&self.store, self.root, Target::Key(key), None)?;
        let node = leaf_node(&page, page_no)?;
        // `end` = number of entries in this leaf that qualify (all sort before the others).
        let (end, exact) = if inclusive {
            let end = node.upper_bound(key)?;
            let exact = end > 0 && node.key(end - 1)? == key;
            (end, exact)
        } else {
            (node.lower_bound(key)?.0, false)
        };
        let valid = match end.checked_sub(1) {
            Some(index) => {
                self.position(page, page_no, index)?;
                true
            }
            None => self.step_to_prev_leaf(&page, page_no)?,
        };
        Ok(if inclusive { valid && exact } else { valid })
    }

    fn first_inner(&mut self) -> Result<bool> {
        self.walked_at = self.store.generation();
        let (page_no, page) = descend(&self.store, self.root, Target::First, None)?;
        self.forward_from(page, page_no, 0)
    }

    fn last_inner(&mut self) -> Result<bool> {
        self.walked_at = self.store.generation();
        let (page_no, page) = descend(&self.store, self.root, Target::Last, None)?;
        match leaf_node(&page, page_no)?.count().checked_sub(1) {
            Some(index) => {
                self.position(page, page_no, index)?;
                Ok(true)
            }
            None => self.step_to_prev_leaf(&page, page_no),
        }
    }

    fn next_inner(&mut self) -> Result<bool> {
        let Some(page) = self.leaf.as_ref() else {
            return Ok(false);
        };
        // The common step stays on the leaf: one parse of its header and no change of the
        // page handle (a scan over many entries steps here once per entry).
        let node = leaf_node(page, self.leaf_no)?;
        let index = self.index + 1;
        if index < node.count() {
            let (key, value) = node.leaf_entry_ranges(index)?;
            self.key = key;
            self.value = value;
            self.index = index;
            return Ok(true);
        }
        let page = page.clone();
        self.step_to_next_leaf(&page, self.leaf_no)
    }

    fn prev_inner(&mut self) -> Result<bool> {
        let Some(page) = self.leaf.clone() else {
            return Ok(false);
        };
        match self.index.checked_sub(1) {
            Some(index) => {
                let page_no = self.leaf_no;
                self.position(page, page_no, index)?;
                Ok(true)
            }
            None => self.step_to_prev_leaf(&page, self.leaf_no),
        }
    }
}
