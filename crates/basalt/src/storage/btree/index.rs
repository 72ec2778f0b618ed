//! The index B+tree: an ordered map from unique byte-string keys to short byte values.
//!
//! # What
//!
//! Keys are memcomparable encodings, so plain `memcmp` order is SQL order. Secondary indexes
//! store `encoded columns ‖ encoded row id` as the key with an empty value; the catalog and
//! other system structures use the tree as a general ordered byte map. Entries are limited to
//! [`max_entry_size`] (a quarter of a page), so nothing here ever spills to overflow pages.
//!
//! # Shape and guarantees
//!
//! * The root stays at the page number it was created on. A root split moves its contents
//!   into two new pages and turns the root into an interior node over them; an interior root
//!   left with a single child absorbs that child (the child's page is freed).
//! * All leaves are at the same depth and are linked both ways (`prev_leaf`, `next_leaf`).
//!   Only the root may be an empty leaf; an interior root always has at least one separator.
//!   A non-root interior node may be left with zero separators (one child) when it cannot
//!   merge with a sibling; descents and checks accept that.
//! * Separators are suffix-truncated (see `index_page::separator`): the key range of child
//!   `i` is `[k_{i-1}, k_i)` and a separator need not be a stored key.
//! * Inserts split full nodes. An insert past the last key of the rightmost leaf moves only
//!   the new entry to the new right page (and, on the rightmost spine, interior nodes split
//!   just as unevenly), so sorted loads leave pages full; every other split divides the
//!   bytes near the middle.
//! * Deletes remove emptied leaves, and merge a node that falls below a quarter full with a
//!   sibling under the same parent when both fit in one page, recursively up to the root.
//!   Every page that leaves the tree goes back through `PageWrite::free_page`.
//! * Every page is validated when viewed (see `index_page`), descents are bounded by
//!   `MAX_DEPTH`, and cursors check that keys strictly increase across each sibling link, so
//!   damaged pages produce `StorageError::Corrupt` instead of panics or endless loops.
//!   [`IndexTree::check`] is the full integrity check.
//!
//! # How it fits
//!
//! The tree holds nothing but its root page number; all state is in pages read through
//! `PageRead` and written through `PageWrite`, so the same tree runs inside a read
//! transaction, a write transaction or the in-memory test store. Reads ([`IndexTree::get`],
//! cursors from [`IndexTree::cursor`]) need only `PageRead`. Page layouts live in
//! `index_page`, the cursor in `index_cursor`, the bottom-up bulk load in `index_bulk`.

use std::collections::HashSet;

use super::index_cursor::IndexCursor;
use super::index_page::{
    self as codec, HEADER_SIZE, INTERIOR_CELL_HEADER, MAX_DEPTH, Node, SLOT_SIZE,
};
use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, PageRead, PageRef, PageWrite};

/// An index B+tree, identified by its (fixed) root page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IndexTree {
    root: PageNo,
}

/// What [`IndexTree::check`] found in a healthy tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TreeStats {
    /// Levels, counting the leaf level: a tree whose root is a leaf has depth 1.
    pub depth: usize,
    /// Number of leaf pages.
    pub leaves: usize,
    /// Number of entries.
    pub entries: usize,
    /// Number of pages in the tree, root included.
    pub pages: usize,
    /// Bytes in use over all leaves (headers, slots and live cells), for fill factors.
    pub leaf_bytes: usize,
}

/// One level of a descent: the interior page, the child position taken, and whether that
/// was the rightmost child.
#[derive(Debug, Clone, Copy)]
pub(super) struct Step {
    page: PageNo,
    index: usize,
    rightmost: bool,
}

/// Where a descent is headed.
#[derive(Debug, Clone, Copy)]
pub(super) enum Target<'k> {
    /// The leaf whose key range holds this key.
    Key(&'k [u8]),
    /// The leftmost leaf.
    First,
    /// The rightmost leaf.
    Last,
}

/// Walks from `root` to a leaf, recording interior steps in `path` when given. Bounded by
/// `MAX_DEPTH` so a cycle in damaged child pointers ends in an error.
pub(super) fn descend<S: PageRead + ?Sized>(
    store: &S,
    root: PageNo,
    target: Target<'_>,
    mut path: Option<&mut Vec<Step>>,
) -> Result<(PageNo, PageRef)> {
    let mut page_no = root;
    for _ in 0..=MAX_DEPTH {
        let page = store.page(page_no)?;
        let node = Node::parse(&page, page_no)?;
        if node.is_leaf() {
            return Ok((page_no, page));
        }
        let count = node.count();
        let index = match target {
            Target::Key(key) => node.upper_bound(key)?,
            Target::First => 0,
            Target::Last => count,
        };
        let child = node.child(index)?;
        if child == page_no {
            return Err(StorageError::corrupt_page(
                page_no,
                "child pointer to itself",
            ));
        }
        if let Some(path) = path.as_mut() {
            // Writers revisit the path's pages while splitting or merging; a page met twice
            // would have them edit one node as if it were two.
            if path.iter().any(|step| step.page == child) {
                return Err(StorageError::corrupt_page(child, "cycle in child pointers"));
            }
            path.push(Step {
                page: page_no,
                index,
                rightmost: index == count,
            });
        }
        page_no = child;
    }
    Err(StorageError::corrupt_page(
        root,
        format!("index tree deeper than {MAX_DEPTH} levels (cycle in child pointers?)"),
    ))
}

/// Parses `page` and requires an interior node.
fn interior(page: &[u8], page_no: PageNo) -> Result<Node<'_>> {
    let node = Node::parse(page, page_no)?;
    if node.is_leaf() {
        return Err(StorageError::corrupt_page(
            page_no,
            "expected an interior index page, found a leaf",
        ));
    }
    Ok(node)
}

/// Copies every cell of a node out of its page.
fn collect_cells(node: &Node<'_>) -> Result<Vec<Vec<u8>>> {
    (0..node.count())
        .map(|i| node.cell(i).map(<[u8]>::to_vec))
        .collect()
}

/// Copies the separators and the child pointers of an interior node.
fn collect_interior(node: &Node<'_>) -> Result<(Vec<Vec<u8>>, Vec<PageNo>)> {
    let keys = (0..node.count())
        .map(|i| node.key(i).map(<[u8]>::to_vec))
        .collect::<Result<Vec<_>>>()?;
    let children = (0..=node.count())
        .map(|i| node.child(i))
        .collect::<Result<Vec<_>>>()?;
    Ok((keys, children))
}

/// A node below this many used bytes is underfull and tries to merge with a sibling.
fn underfull_limit(usable_size: usize) -> usize {
    usable_size / 4
}

/// Where to split the leaf cells `cells` (`left = cells[..k]`): the `k` in `1..len` that
/// minimises the larger half, counting slots.
fn leaf_split_point(cells: &[Vec<u8>]) -> usize {
    let sizes: Vec<usize> = cells.iter().map(|c| c.len() + SLOT_SIZE).collect();
    let total: usize = sizes.iter().sum();
    let mut best = (usize::MAX, 1);
    let mut left = 0;
    for (k, size) in sizes.iter().enumerate().take(sizes.len().saturating_sub(1)) {
        left += size;
        let larger = left.max(total - left);
        if larger < best.0 {
            best = (larger, k + 1);
        }
    }
    best.1
}

/// Which separator of an overfull interior node to push up: the index that minimises the
/// larger remaining half, keeping at least one separator on each side when possible.
fn interior_split_point(keys: &[Vec<u8>]) -> usize {
    let sizes: Vec<usize> = keys
        .iter()
        .map(|k| INTERIOR_CELL_HEADER + k.len() + SLOT_SIZE)
        .collect();
    let total: usize = sizes.iter().sum();
    let candidates = if sizes.len() >= 3 {
        1..sizes.len() - 1
    } else {
        0..sizes.len()
    };
    let mut best = (usize::MAX, candidates.start);
    for mid in candidates {
        let left: usize = sizes.iter().take(mid).sum();
        let right = total - left - sizes.get(mid).copied().unwrap_or(0);
        let larger = left.max(right);
        if larger < best.0 {
            best = (larger, mid);
        }
    }
    best.1
}

/// Rewrites page `page_no` as a leaf holding `cells` with the given sibling links.
fn write_leaf<S: PageWrite + ?Sized>(
    store: &mut S,
    page_no: PageNo,
    cells: &[Vec<u8>],
    prev: PageNo,
    next: PageNo,
) -> Result<()> {
    let bytes = store.page_mut(page_no)?;
    codec::init(bytes, page_no, true)?;
    for (i, cell) in cells.iter().enumerate() {
        if !codec::insert_raw_cell(bytes, page_no, i, cell)? {
            return Err(StorageError::corrupt_page(
                page_no,
                "leaf cells do not fit in one page",
            ));
        }
    }
    codec::set_prev_leaf(bytes, page_no, prev)?;
    codec::set_next_leaf(bytes, page_no, next)
}

/// Rewrites page `page_no` as an interior node; `children` has one more entry than `keys`.
pub(super) fn write_interior<S: PageWrite + ?Sized>(
    store: &mut S,
    page_no: PageNo,
    keys: &[&[u8]],
    children: &[PageNo],
) -> Result<()> {
    let Some(&rightmost) = children.last() else {
        return Err(StorageError::corrupt_page(
            page_no,
            "interior node without children",
        ));
    };
    if children.len() != keys.len() + 1 {
        return Err(StorageError::corrupt_page(
            page_no,
            "interior node needs one more child than separators",
        ));
    }
    let bytes = store.page_mut(page_no)?;
    codec::init(bytes, page_no, false)?;
    for (i, (key, &child)) in keys.iter().zip(children).enumerate() {
        if !codec::insert_interior_cell(bytes, page_no, i, child, key)? {
            return Err(StorageError::corrupt_page(
                page_no,
                "interior cells do not fit in one page",
            ));
        }
    }
    codec::set_rightmost(bytes, page_no, rightmost)
}

/// Outcome of a put.
enum Put {
    Inserted,
    Exists,
    Replaced(Vec<u8>),
}

impl IndexTree {
    /// Creates an empty tree: allocates its root page as an empty leaf.
    pub fn create<S: PageWrite + ?Sized>(store: &mut S) -> Result<IndexTree> {
        let root = store.allocate_page()?;
        codec::init(store.page_mut(root)?, root, true)?;
        Ok(IndexTree { root })
    }

    /// The tree whose root is `root` (as recorded in the catalog). Nothing is read yet.
    pub fn open(root: PageNo) -> IndexTree {
        IndexTree { root }
    }

    /// The root page number, fixed for the tree's life.
    pub fn root(&self) -> PageNo {
        self.root
    }

    /// A cursor over the tree, initially not positioned. It reads through `store` and keeps
    /// the current leaf pinned.
    pub fn cursor<S: PageRead>(&self, store: S) -> IndexCursor<S> {
        IndexCursor::new(store, self.root)
    }

    /// Whether the tree has no entries.
    pub fn is_empty<S: PageRead + ?Sized>(&self, store: &S) -> Result<bool> {
        let page = store.page(self.root)?;
        let node = Node::parse(&page, self.root)?;
        Ok(node.is_leaf() && node.count() == 0)
    }

    /// The value stored under `key`, if any.
    pub fn get<S: PageRead + ?Sized>(&self, store: &S, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let (leaf_no, page) = descend(store, self.root, Target::Key(key), None)?;
        let node = Node::parse(&page, leaf_no)?;
        match node.lower_bound(key)? {
            (pos, true) => Ok(Some(node.value(pos)?.to_vec())),
            _ => Ok(None),
        }
    }

    /// Inserts `key → value`. Returns false, changing nothing, if `key` is already present.
    /// Errors with `KeyTooLarge` if the entry exceeds [`max_entry_size`].
    pub fn insert<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        key: &[u8],
        value: &[u8],
    ) -> Result<bool> {
        Ok(matches!(self.put(store, key, value, false)?, Put::Inserted))
    }

    /// [`IndexTree::insert`], trying first the leaf `hint` (where a cursor seek for the key
    /// just ended) instead of descending from the root.
    ///
    /// The hint is used only when it proves itself: it must be a leaf, the key must fall
    /// strictly between two of its entries (then no other leaf can be the key's home, since
    /// leaves hold disjoint, ordered key ranges), and the entry must fit without a split.
    /// Otherwise (a page that is not an index leaf included) this is a plain insert. A
    /// unique-key check that probes an index just before inserting into it thus pays for one
    /// descent instead of two.
    ///
    /// The hint must be a page of this tree, or a page no tree uses: a leaf of another index
    /// would take the entry. A cursor on this tree, in the same transaction, gives one.
    pub fn insert_near<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        hint: Option<PageNo>,
        key: &[u8],
        value: &[u8],
    ) -> Result<bool> {
        if let Some(leaf_no) = hint {
            Self::check_entry_fits(store.usable_size(), key, value)?;
            let page = store.page(leaf_no)?;
            if let Ok(node) = Node::parse(&page, leaf_no)
                && node.is_leaf()
            {
                let (pos, found) = node.lower_bound(key)?;
                if found {
                    return Ok(false);
                }
                let room = node.free_bytes() >= codec::entry_size(key.len(), value.len());
                if pos > 0 && pos < node.count() && room {
                    drop(page);
                    let bytes = store.page_mut(leaf_no)?;
                    if codec::insert_leaf_entry(bytes, leaf_no, pos, key, value)? {
                        return Ok(true);
                    }
                }
            }
        }
        self.insert(store, key, value)
    }

    /// Inserts or replaces `key → value`, returning the previous value if there was one.
    pub fn upsert<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        key: &[u8],
        value: &[u8],
    ) -> Result<Option<Vec<u8>>> {
        match self.put(store, key, value, true)? {
            Put::Replaced(old) => Ok(Some(old)),
            Put::Inserted | Put::Exists => Ok(None),
        }
    }

    /// [`IndexTree::upsert`] of a key that a cursor of this tree, in this transaction, just
    /// found in leaf `hint`: the value is replaced in that leaf, without a descent, when the
    /// key is there and the new value fits in its page; otherwise this is a plain upsert.
    /// The same rule as [`IndexTree::insert_near`] keeps the hint safe: the key found in the
    /// leaf proves the leaf is its home.
    pub fn replace_near<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        hint: Option<PageNo>,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        if let Some(leaf_no) = hint {
            Self::check_entry_fits(store.usable_size(), key, value)?;
            let page = store.page(leaf_no)?;
            if let Ok(node) = Node::parse(&page, leaf_no)
                && node.is_leaf()
                && let (pos, true) = node.lower_bound(key)?
            {
                let old = node.value(pos)?;
                if old == value {
                    return Ok(());
                }
                if old.len() == value.len() {
                    // Same size: overwrite the value's bytes where they are.
                    let (_, range) = node.leaf_entry_ranges(pos)?;
                    drop(page);
                    let bytes = store.page_mut(leaf_no)?;
                    bytes
                        .get_mut(range)
                        .ok_or_else(|| StorageError::corrupt_page(leaf_no, "value past the page"))?
                        .copy_from_slice(value);
                    return Ok(());
                }
                let room = node.free_bytes() + codec::entry_size(key.len(), old.len());
                if room >= codec::entry_size(key.len(), value.len()) {
                    drop(page);
                    let bytes = store.page_mut(leaf_no)?;
                    codec::remove_cell(bytes, leaf_no, pos)?;
                    if codec::insert_leaf_entry(bytes, leaf_no, pos, key, value)? {
                        return Ok(());
                    }
                    return Err(StorageError::corrupt_page(
                        leaf_no,
                        "a replaced entry no longer fits its leaf",
                    ));
                }
            }
        }
        self.upsert(store, key, value).map(|_| ())
    }

    /// Errors with `KeyTooLarge` if `key → value` would not fit in pages of `usable_size`
    /// bytes: what [`IndexTree::insert`] checks first, for callers that must know before they
    /// write anything else.
    pub fn check_entry_fits(usable_size: usize, key: &[u8], value: &[u8]) -> Result<()> {
        let size = codec::entry_size(key.len(), value.len());
        let max = codec::max_entry_size(usable_size);
        if size > max {
            return Err(StorageError::KeyTooLarge { size, max });
        }
        Ok(())
    }

    fn put<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        key: &[u8],
        value: &[u8],
        replace: bool,
    ) -> Result<Put> {
        Self::check_entry_fits(store.usable_size(), key, value)?;
        let mut path = Vec::new();
        let (leaf_no, page) = descend(&*store, self.root, Target::Key(key), Some(&mut path))?;
        let node = Node::parse(&page, leaf_no)?;
        let (pos, found) = node.lower_bound(key)?;
        let mut outcome = Put::Inserted;
        if found {
            if !replace {
                return Ok(Put::Exists);
            }
            let old = node.value(pos)?;
            if old == value {
                // Nothing changes: skip dirtying the page.
                return Ok(Put::Replaced(old.to_vec()));
            }
            outcome = Put::Replaced(old.to_vec());
        }
        // Release our reference before writing so copy-on-write need not copy the page.
        drop(page);
        let bytes = store.page_mut(leaf_no)?;
        if found {
            codec::remove_cell(bytes, leaf_no, pos)?;
        }
        if !codec::insert_leaf_entry(bytes, leaf_no, pos, key, value)? {
            let cell = codec::encode_leaf_cell(key, value);
            self.split_leaf(store, &mut path, leaf_no, pos, cell)?;
        }
        Ok(outcome)
    }

    /// Splits the full leaf `leaf_no` while inserting `new_cell` at position `pos`, then
    /// installs the separator in the parent (splitting upward as needed).
    fn split_leaf<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        path: &mut Vec<Step>,
        leaf_no: PageNo,
        pos: usize,
        new_cell: Vec<u8>,
    ) -> Result<()> {
        let page = store.page(leaf_no)?;
        let node = Node::parse(&page, leaf_no)?;
        let (prev, next, count) = (node.prev_leaf(), node.next_leaf(), node.count());
        let mut cells = collect_cells(&node)?;
        drop(page);
        if pos > cells.len() {
            return Err(StorageError::corrupt_page(
                leaf_no,
                "insert position past the leaf",
            ));
        }
        cells.insert(pos, new_cell);
        // Appending past the last key of the rightmost leaf: leave this page full and start
        // a fresh one with only the new entry, so ascending inserts fill pages completely.
        let at = if next == 0 && pos == count && count > 0 {
            count
        } else {
            leaf_split_point(&cells)
        };
        let (left, right) = cells.split_at(at);
        let bad_cell = || StorageError::corrupt_page(leaf_no, "malformed leaf cell");
        let left_max = left
            .last()
            .and_then(|c| codec::leaf_cell_key(c))
            .ok_or_else(bad_cell)?;
        let right_min = right
            .first()
            .and_then(|c| codec::leaf_cell_key(c))
            .ok_or_else(bad_cell)?;
        let sep = codec::separator(left_max, right_min)
            .ok_or_else(|| StorageError::corrupt_page(leaf_no, "leaf keys out of order"))?;

        if path.is_empty() {
            // Root split: the root's entries move to two new leaves.
            let l = store.allocate_page()?;
            let r = store.allocate_page()?;
            write_leaf(store, l, left, 0, r)?;
            write_leaf(store, r, right, l, 0)?;
            return write_interior(store, self.root, &[&sep], &[l, r]);
        }
        let r = store.allocate_page()?;
        write_leaf(store, leaf_no, left, prev, r)?;
        write_leaf(store, r, right, leaf_no, next)?;
        if next != 0 {
            codec::set_prev_leaf(store.page_mut(next)?, next, r)?;
        }
        self.insert_separator(store, path, sep, r)
    }

    /// Inserts `sep` into the parent at the end of `path`, with `right` as the child to its
    /// right (the page just split off the child the descent went through). Splits interior
    /// nodes upward as needed, up to a root split.
    fn insert_separator<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        path: &mut Vec<Step>,
        mut sep: Vec<u8>,
        mut right: PageNo,
    ) -> Result<()> {
        while let Some(step) = path.pop() {
            let parent = step.page;
            let page = store.page(parent)?;
            let node = interior(&page, parent)?;
            let old = node.child(step.index)?;
            let count = node.count();
            drop(page);
            let bytes = store.page_mut(parent)?;
            // Cell (old, sep) goes at the descent position; the pointer after it, which
            // used to lead to `old`, now leads to `right`.
            if codec::insert_interior_cell(bytes, parent, step.index, old, &sep)? {
                return codec::set_child(bytes, parent, step.index + 1, right);
            }

            let page = store.page(parent)?;
            let (mut keys, mut children) = collect_interior(&interior(&page, parent)?)?;
            drop(page);
            if step.index > keys.len() {
                return Err(StorageError::corrupt_page(
                    parent,
                    "descent position past the node",
                ));
            }
            keys.insert(step.index, sep);
            children.insert(step.index + 1, right);
            let on_right_spine = path.iter().all(|s| s.rightmost);
            let mid = if on_right_spine && step.index == count && keys.len() >= 3 {
                // Appending at the right edge of the tree: keep this node nearly full.
                keys.len() - 2
            } else {
                interior_split_point(&keys)
            };
            let right_keys = keys.split_off(mid + 1);
            let right_children = children.split_off(mid + 1);
            let up = keys
                .pop()
                .ok_or_else(|| StorageError::corrupt_page(parent, "interior split of no keys"))?;
            let left_refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
            let right_refs: Vec<&[u8]> = right_keys.iter().map(Vec::as_slice).collect();

            if path.is_empty() {
                // Root split: the root's contents move to two new interior pages.
                let l = store.allocate_page()?;
                let r = store.allocate_page()?;
                write_interior(store, l, &left_refs, &children)?;
                write_interior(store, r, &right_refs, &right_children)?;
                return write_interior(store, self.root, &[&up], &[l, r]);
            }
            let r = store.allocate_page()?;
            write_interior(store, parent, &left_refs, &children)?;
            write_interior(store, r, &right_refs, &right_children)?;
            sep = up;
            right = r;
        }
        Err(StorageError::corrupt_page(
            self.root,
            "separator propagated above the root",
        ))
    }

    /// Removes `key`. Returns whether it was present.
    pub fn delete<S: PageWrite + ?Sized>(&self, store: &mut S, key: &[u8]) -> Result<bool> {
        let mut path = Vec::new();
        let (leaf_no, page) = descend(&*store, self.root, Target::Key(key), Some(&mut path))?;
        let (pos, found) = Node::parse(&page, leaf_no)?.lower_bound(key)?;
        drop(page);
        if !found {
            return Ok(false);
        }
        let bytes = store.page_mut(leaf_no)?;
        codec::remove_cell(bytes, leaf_no, pos)?;
        let node = Node::parse(bytes, leaf_no)?;
        let (count, used, prev, next) = (
            node.count(),
            node.used_bytes(),
            node.prev_leaf(),
            node.next_leaf(),
        );
        if path.is_empty() {
            // The root leaf may be empty or sparse.
            return Ok(true);
        }
        if count == 0 {
            self.unlink_leaf(store, prev, next)?;
            store.free_page(leaf_no)?;
            self.remove_child(store, &mut path)?;
        } else if used < underfull_limit(store.usable_size()) {
            self.merge_upward(store, &mut path)?;
        }
        Ok(true)
    }

    /// Joins the neighbours of a leaf that is leaving the chain.
    fn unlink_leaf<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        prev: PageNo,
        next: PageNo,
    ) -> Result<()> {
        if prev != 0 {
            codec::set_next_leaf(store.page_mut(prev)?, prev, next)?;
        }
        if next != 0 {
            codec::set_prev_leaf(store.page_mut(next)?, next, prev)?;
        }
        Ok(())
    }

    /// Removes the child pointer at the end of `path` (its page is already freed), then
    /// repairs upward: a parent left without children is freed in turn, an underfull parent
    /// tries to merge, and the root collapses if it is left with one child.
    fn remove_child<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        path: &mut Vec<Step>,
    ) -> Result<()> {
        while let Some(step) = path.pop() {
            let page = store.page(step.page)?;
            let count = interior(&page, step.page)?.count();
            drop(page);
            if count == 0 {
                // The node's only child is gone, so the node goes too.
                if path.is_empty() {
                    // Only reachable in a damaged tree (an interior root always has a
                    // separator); the tree is now empty.
                    return codec::init(store.page_mut(self.root)?, self.root, true);
                }
                store.free_page(step.page)?;
                continue;
            }
            let bytes = store.page_mut(step.page)?;
            codec::remove_child(bytes, step.page, step.index)?;
            let used = Node::parse(bytes, step.page)?.used_bytes();
            if path.is_empty() {
                return self.collapse_root(store);
            }
            if used < underfull_limit(store.usable_size()) {
                return self.merge_upward(store, path);
            }
            return Ok(());
        }
        Ok(())
    }

    /// The child at the end of `path` is underfull: merge it with its left or right sibling
    /// if the two fit in one page, and repeat for the parent if that leaves it underfull.
    fn merge_upward<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        path: &mut Vec<Step>,
    ) -> Result<()> {
        let limit = underfull_limit(store.usable_size());
        while let Some(&step) = path.last() {
            let parent = step.page;
            let page = store.page(parent)?;
            let node = interior(&page, parent)?;
            let count = node.count();
            // Separator s lies between children s and s + 1: try the left sibling first.
            let mut pairs = Vec::with_capacity(2);
            let left_sep = step.index.checked_sub(1);
            let right_sep = (step.index < count).then_some(step.index);
            for s in [left_sep, right_sep].into_iter().flatten() {
                pairs.push((s, node.child(s)?, node.child(s + 1)?, node.key(s)?.to_vec()));
            }
            drop(page);
            let mut merged = false;
            for (s, left, right, sep) in pairs {
                if self.merge_pair(store, left, right, &sep)? {
                    codec::remove_separator_and_right(store.page_mut(parent)?, parent, s)?;
                    merged = true;
                    break;
                }
            }
            if !merged {
                return Ok(());
            }
            path.pop();
            if path.is_empty() {
                return self.collapse_root(store);
            }
            let page = store.page(parent)?;
            if Node::parse(&page, parent)?.used_bytes() >= limit {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Moves everything from `right` into its left sibling `left` if it fits, freeing
    /// `right`. `sep` is the parent's separator between them, pulled down between the two
    /// halves when they are interior nodes. Returns whether the merge happened.
    fn merge_pair<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        left: PageNo,
        right: PageNo,
        sep: &[u8],
    ) -> Result<bool> {
        let usable = store.usable_size();
        let left_page = store.page(left)?;
        let right_page = store.page(right)?;
        let l = Node::parse(&left_page, left)?;
        let r = Node::parse(&right_page, right)?;
        if l.is_leaf() != r.is_leaf() {
            return Err(StorageError::corrupt_page(
                right,
                "sibling nodes at the same level of different kinds",
            ));
        }
        let leaf = l.is_leaf();
        let pulled_down = if leaf {
            0
        } else {
            INTERIOR_CELL_HEADER + sep.len() + SLOT_SIZE
        };
        if l.used_bytes() + r.used_bytes() - HEADER_SIZE + pulled_down > usable {
            return Ok(false);
        }
        if leaf && (l.next_leaf() != right || r.prev_leaf() != left) {
            return Err(StorageError::corrupt_page(
                right,
                format!("sibling links between leaves {left} and {right} are inconsistent"),
            ));
        }
        let cells = collect_cells(&r)?;
        let (right_next, right_rightmost, left_rightmost) =
            (r.next_leaf(), r.rightmost(), l.rightmost());
        let mut pos = l.count();
        drop(left_page);
        drop(right_page);

        let bytes = store.page_mut(left)?;
        let does_not_fit = || StorageError::corrupt_page(left, "merged node does not fit");
        if !leaf {
            if !codec::insert_interior_cell(bytes, left, pos, left_rightmost, sep)? {
                return Err(does_not_fit());
            }
            pos += 1;
        }
        for cell in &cells {
            if !codec::insert_raw_cell(bytes, left, pos, cell)? {
                return Err(does_not_fit());
            }
            pos += 1;
        }
        if leaf {
            codec::set_next_leaf(bytes, left, right_next)?;
            if right_next != 0 {
                codec::set_prev_leaf(store.page_mut(right_next)?, right_next, left)?;
            }
        } else {
            codec::set_rightmost(bytes, left, right_rightmost)?;
        }
        store.free_page(right)?;
        Ok(true)
    }

    /// While the root is an interior node with no separator, pull its only child up into it.
    fn collapse_root<S: PageWrite + ?Sized>(&self, store: &mut S) -> Result<()> {
        for _ in 0..=MAX_DEPTH {
            let page = store.page(self.root)?;
            let node = Node::parse(&page, self.root)?;
            if node.is_leaf() || node.count() > 0 {
                return Ok(());
            }
            let child = node.rightmost();
            drop(page);
            if child == 0 || child == self.root {
                return Err(StorageError::corrupt_page(
                    self.root,
                    "bad only child of the root",
                ));
            }
            let child_page = store.page(child)?;
            let child_leaf = Node::parse(&child_page, child)?.is_leaf();
            let bytes = store.page_mut(self.root)?;
            if bytes.len() != child_page.len() {
                return Err(StorageError::corrupt_page(
                    child,
                    "page of a different size",
                ));
            }
            bytes.copy_from_slice(&child_page);
            if child_leaf {
                // The only leaf of the tree has no siblings.
                codec::set_prev_leaf(bytes, self.root, 0)?;
                codec::set_next_leaf(bytes, self.root, 0)?;
            }
            drop(child_page);
            store.free_page(child)?;
        }
        Err(StorageError::corrupt_page(
            self.root,
            "root collapse did not terminate",
        ))
    }

    /// Frees every page of the tree, the root included. The whole tree is walked (and
    /// checked for shared or cyclic pointers) before anything is freed.
    pub fn destroy<S: PageWrite + ?Sized>(self, store: &mut S) -> Result<()> {
        let mut pages = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![(self.root, 1usize)];
        while let Some((page_no, depth)) = stack.pop() {
            if depth > MAX_DEPTH + 1 {
                return Err(StorageError::corrupt_page(page_no, "index tree too deep"));
            }
            if !seen.insert(page_no) {
                return Err(StorageError::corrupt_page(page_no, "page reachable twice"));
            }
            let page = store.page(page_no)?;
            let node = Node::parse(&page, page_no)?;
            if !node.is_leaf() {
                for i in 0..=node.count() {
                    stack.push((node.child(i)?, depth + 1));
                }
            }
            pages.push(page_no);
        }
        for page_no in pages {
            store.free_page(page_no)?;
        }
        Ok(())
    }
}

pub use codec::max_entry_size;
