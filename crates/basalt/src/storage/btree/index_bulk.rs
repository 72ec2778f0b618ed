//! Bottom-up bulk load of an empty index tree from sorted input.
//!
//! # What
//!
//! `CREATE INDEX` on a populated table sorts the entries and hands them here. Instead of
//! descending once per entry, the load fills leaves left to right, each to capacity, linking
//! each to its neighbours as it goes; then it builds every interior level from the level
//! below (again filling nodes to capacity, with suffix-truncated separators) until one node
//! remains, which is written into the tree's fixed root page.
//!
//! # Guarantees
//!
//! * Keys must be strictly increasing and every entry within `max_entry_size`; otherwise the
//!   load fails with `InvalidArgument` or `KeyTooLarge`, frees the pages it allocated and
//!   leaves the tree empty (the root is written last).
//! * The result satisfies every invariant `IndexTree::check` verifies, and later inserts and
//!   deletes work on it as on any tree. No node of an interior level is left with a single
//!   child: the last node borrows a child from its neighbour instead.
//! * Memory: one page buffer plus one `(page, separator)` pair per page of the level being
//!   built, never the entries themselves.
//!
//! # How it fits
//!
//! An extra `impl IndexTree` block beside `index.rs`, using the same page codecs.

use super::index::{IndexTree, write_interior};
use super::index_page::{
    self as codec, HEADER_SIZE, INTERIOR_CELL_HEADER, MAX_DEPTH, Node, SLOT_SIZE,
};
use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, PageWrite};

/// A page of the level being built and the separator that bounds it from the left (empty
/// for the first page of a level, which has no left bound).
type LevelEntry = (PageNo, Vec<u8>);

impl IndexTree {
    /// Loads `entries` (strictly increasing keys) into this tree, which must be empty.
    pub fn bulk_load<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        entries: impl IntoIterator<Item = (Vec<u8>, Vec<u8>)>,
    ) -> Result<()> {
        if !self.is_empty(store)? {
            return Err(StorageError::InvalidArgument(
                "bulk_load needs an empty index tree".into(),
            ));
        }
        let mut allocated = Vec::new();
        let result = self.load(store, entries.into_iter(), &mut allocated);
        if result.is_err() {
            // Give back what the failed load took. A failure here would only hide the
            // original error, which is the one worth reporting.
            for page_no in allocated {
                let _ = store.free_page(page_no);
            }
        }
        result
    }

    fn load<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        entries: impl Iterator<Item = (Vec<u8>, Vec<u8>)>,
        allocated: &mut Vec<PageNo>,
    ) -> Result<()> {
        let usable = store.usable_size();
        let max = codec::max_entry_size(usable);
        // The leaf being filled lives in memory until it is full; its page number is taken
        // only then, so input that fits one leaf goes straight into the root.
        let mut buf = vec![0u8; usable];
        codec::init(&mut buf, self.root(), true)?;
        let mut current: Option<PageNo> = None;
        let mut prev: PageNo = 0;
        let mut level: Vec<LevelEntry> = Vec::new();
        let mut left_bound = Vec::new();
        let mut last_key: Option<Vec<u8>> = None;

        for (key, value) in entries {
            let size = codec::entry_size(key.len(), value.len());
            if size > max {
                return Err(StorageError::KeyTooLarge { size, max });
            }
            if last_key.as_ref().is_some_and(|last| key <= *last) {
                return Err(StorageError::InvalidArgument(
                    "bulk_load keys must be strictly increasing".into(),
                ));
            }
            let count = Node::parse(&buf, self.root())?.count();
            if !codec::insert_leaf_entry(&mut buf, self.root(), count, &key, &value)? {
                let this = match current {
                    Some(page_no) => page_no,
                    None => allocate(store, allocated)?,
                };
                let next = allocate(store, allocated)?;
                codec::set_prev_leaf(&mut buf, this, prev)?;
                codec::set_next_leaf(&mut buf, this, next)?;
                store.page_mut(this)?.copy_from_slice(&buf);
                level.push((this, std::mem::take(&mut left_bound)));
                let last = last_key.as_deref().unwrap_or_default();
                left_bound = codec::separator(last, &key).ok_or_else(|| {
                    StorageError::InvalidArgument(
                        "bulk_load keys must be strictly increasing".into(),
                    )
                })?;
                prev = this;
                current = Some(next);
                codec::init(&mut buf, self.root(), true)?;
                if !codec::insert_leaf_entry(&mut buf, self.root(), 0, &key, &value)? {
                    return Err(StorageError::corrupt_page(
                        next,
                        "entry does not fit an empty leaf",
                    ));
                }
            }
            last_key = Some(key);
        }

        let Some(this) = current else {
            // Everything fit in one leaf: it is the root.
            store.page_mut(self.root())?.copy_from_slice(&buf);
            return Ok(());
        };
        codec::set_prev_leaf(&mut buf, this, prev)?;
        codec::set_next_leaf(&mut buf, this, 0)?;
        store.page_mut(this)?.copy_from_slice(&buf);
        level.push((this, left_bound));

        for _ in 0..MAX_DEPTH {
            let groups = group_children(&level, usable);
            if let [only] = groups.as_slice() {
                return write_group(
                    store,
                    self.root(),
                    level.get(only.clone()).unwrap_or_default(),
                );
            }
            let mut upper = Vec::with_capacity(groups.len());
            for group in groups {
                let children = level.get(group).unwrap_or_default();
                let page_no = allocate(store, allocated)?;
                write_group(store, page_no, children)?;
                let bound = children.first().map(|c| c.1.clone()).unwrap_or_default();
                upper.push((page_no, bound));
            }
            level = upper;
        }
        Err(StorageError::corrupt_page(
            self.root(),
            "bulk load built more than the maximum number of levels",
        ))
    }
}

fn allocate<S: PageWrite + ?Sized>(store: &mut S, allocated: &mut Vec<PageNo>) -> Result<PageNo> {
    let page_no = store.allocate_page()?;
    allocated.push(page_no);
    Ok(page_no)
}

/// Splits one level's pages into runs that each fill one interior node: a run of children
/// `c_a..=c_b` costs one cell per child after the first (the separator bounding it from the
/// left). A final run of a single child takes one child from the run before it.
fn group_children(level: &[LevelEntry], usable: usize) -> Vec<std::ops::Range<usize>> {
    let capacity = usable - HEADER_SIZE;
    let mut groups = Vec::new();
    let mut start = 0;
    let mut used = 0;
    for (i, (_, bound)) in level.iter().enumerate().skip(1) {
        let cost = INTERIOR_CELL_HEADER + bound.len() + SLOT_SIZE;
        if used + cost > capacity {
            groups.push(start..i);
            start = i;
            used = 0;
        } else {
            used += cost;
        }
    }
    groups.push(start..level.len());
    let n = groups.len();
    if n >= 2 && groups[n - 1].len() == 1 && groups[n - 2].len() >= 3 {
        groups[n - 2].end -= 1;
        groups[n - 1].start -= 1;
    }
    groups
}

/// Writes one interior node over `children`: child `i > 0` is bounded on the left by its
/// separator, which becomes key `i - 1` of the node.
fn write_group<S: PageWrite + ?Sized>(
    store: &mut S,
    page_no: PageNo,
    children: &[LevelEntry],
) -> Result<()> {
    let keys: Vec<&[u8]> = children.iter().skip(1).map(|c| c.1.as_slice()).collect();
    let pages: Vec<PageNo> = children.iter().map(|c| c.0).collect();
    write_interior(store, page_no, &keys, &pages)
}
