//! Integrity check of a table tree.
//!
//! [`TableTree::check`] walks the whole tree and verifies every invariant the other modules
//! rely on: page kinds and headers; row ids strictly ascending inside each leaf and within
//! the bounds the separators above impose; separators strictly ascending; every leaf at the
//! same depth; no page reachable twice; no empty leaf except an empty root; the heap
//! accounting of each leaf (live entries plus garbage = heap size); every value readable,
//! overflow chains included, and placed as the inline rule allows (inline values and
//! prefixes within the inline limit, a prefix only before a chain of full pages); and the
//! leaf chain's links consistent in both directions with the left-to-right order of the
//! leaves. The walk is bounded by the depth limit and by the set of pages already visited,
//! so a damaged tree cannot make it loop. Used by tests and by
//! `PRAGMA integrity_check` (`crate::exec::integrity`).

use std::collections::HashSet;

use super::overflow::{chain_pages, data_per_page};
use super::row::ValueRef;
use super::table::TableTree;
use super::table_cursor::MAX_DEPTH;
use super::table_interior::TableInterior;
use super::table_leaf::{TableLeaf, max_inline_len};
use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, PageRead, kind};

/// What [`TableTree::check`] counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreeStats {
    /// Levels: 1 for a tree that is a single leaf.
    pub depth: usize,
    /// Leaf pages.
    pub leaves: usize,
    /// Interior pages.
    pub interior_pages: usize,
    /// Pages of overflow chains.
    pub overflow_pages: usize,
    /// Rows.
    pub rows: u64,
    /// All pages of the tree: leaves, interior pages and overflow pages.
    pub pages: usize,
    /// Sum over leaves of [`TableLeaf::used_bytes`], for fill-factor measurements.
    pub leaf_bytes_used: u64,
}

struct Walk {
    visited: HashSet<PageNo>,
    leaves: Vec<PageNo>,
    leaf_depth: Option<usize>,
    stats: TreeStats,
}

fn corrupt(page_no: PageNo, reason: impl Into<String>) -> StorageError {
    StorageError::corrupt_page(page_no, reason)
}

/// Checks that a Var value is stored as the placement rule allows: inline values and inline
/// prefixes at most `max_inline` bytes, and a non-empty prefix only in front of a chain of
/// whole pages (the prefix exists to make the chain's pages full).
fn check_placement(
    view: &TableLeaf<'_>,
    value: ValueRef<'_>,
    max_inline: usize,
    per_page: u64,
) -> Result<()> {
    let problem = match value {
        ValueRef::Var(bytes) if bytes.len() > max_inline => Some(format!(
            "inline value of {} bytes exceeds the limit {max_inline}",
            bytes.len()
        )),
        ValueRef::Overflow { prefix, .. } if prefix.len() > max_inline => Some(format!(
            "inline prefix of {} bytes exceeds the limit {max_inline}",
            prefix.len()
        )),
        ValueRef::Overflow { prefix, .. } if !prefix.is_empty() => match value.chain() {
            Some((_, chain_len)) if !chain_len.is_multiple_of(per_page) => Some(format!(
                "inline prefix of {} bytes before a chain of {chain_len} bytes (not whole pages)",
                prefix.len()
            )),
            _ => None,
        },
        _ => None,
    };
    match problem {
        Some(problem) => Err(corrupt(view.page_no(), problem)),
        None => Ok(()),
    }
}

impl TableTree {
    /// Verifies the whole tree (see the module documentation) and returns its statistics.
    pub fn check<S: PageRead + ?Sized>(&self, store: &S) -> Result<TreeStats> {
        self.check_pages(store).map(|(stats, _)| stats)
    }

    /// [`TableTree::check`], also returning every page the tree owns (interior pages,
    /// leaves and overflow pages), so `PRAGMA integrity_check` can account for every page of
    /// the file.
    pub fn check_pages<S: PageRead + ?Sized>(
        &self,
        store: &S,
    ) -> Result<(TreeStats, HashSet<PageNo>)> {
        let mut walk = Walk {
            visited: HashSet::new(),
            leaves: Vec::new(),
            leaf_depth: None,
            stats: TreeStats::default(),
        };
        self.check_page(store, self.root(), 1, None, None, &mut walk)?;
        for (index, &leaf_no) in walk.leaves.iter().enumerate() {
            let page = store.page(leaf_no)?;
            let view = TableLeaf::new(&page, leaf_no)?;
            let expected_prev = index
                .checked_sub(1)
                .and_then(|prev| walk.leaves.get(prev))
                .copied()
                .unwrap_or(0);
            let expected_next = walk.leaves.get(index + 1).copied().unwrap_or(0);
            if view.prev_leaf() != expected_prev || view.next_leaf() != expected_next {
                return Err(corrupt(
                    leaf_no,
                    format!(
                        "sibling links ({}, {}) should be ({expected_prev}, {expected_next})",
                        view.prev_leaf(),
                        view.next_leaf()
                    ),
                ));
            }
        }
        walk.stats.depth = walk.leaf_depth.unwrap_or(1);
        walk.stats.leaves = walk.leaves.len();
        walk.stats.pages =
            walk.stats.leaves + walk.stats.interior_pages + walk.stats.overflow_pages;
        Ok((walk.stats, walk.visited))
    }

    fn check_page<S: PageRead + ?Sized>(
        &self,
        store: &S,
        page_no: PageNo,
        depth: usize,
        lower: Option<i64>,
        upper: Option<i64>,
        walk: &mut Walk,
    ) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(corrupt(page_no, "tree deeper than the depth limit"));
        }
        if page_no == 0 || !walk.visited.insert(page_no) {
            return Err(corrupt(
                page_no,
                "page referenced twice or page 0 in the tree",
            ));
        }
        let page = store.page(page_no)?;
        match page.first() {
            Some(&kind::TABLE_LEAF) => {
                let view = TableLeaf::new(&page, page_no)?;
                if *walk.leaf_depth.get_or_insert(depth) != depth {
                    return Err(corrupt(page_no, "leaves at different depths"));
                }
                self.check_leaf(store, &view, lower, upper, walk)?;
                walk.leaves.push(page_no);
                Ok(())
            }
            Some(&kind::TABLE_INTERIOR) => {
                let view = TableInterior::new(&page, page_no)?;
                walk.stats.interior_pages += 1;
                let mut previous = lower;
                for index in 0..view.key_count() {
                    let key = view.key(index);
                    if previous.is_some_and(|previous| key < previous)
                        || (index > 0 && previous == Some(key))
                        || upper.is_some_and(|upper| key > upper)
                    {
                        return Err(corrupt(page_no, format!("separator {key} out of order")));
                    }
                    previous = Some(key);
                }
                for index in 0..=view.key_count() {
                    let child = view.checked_child(index)?;
                    let child_lower = if index == 0 {
                        lower
                    } else {
                        Some(view.key(index - 1))
                    };
                    let child_upper = if index == view.key_count() {
                        upper
                    } else {
                        Some(view.key(index))
                    };
                    self.check_page(store, child, depth + 1, child_lower, child_upper, walk)?;
                }
                Ok(())
            }
            other => Err(corrupt(
                page_no,
                format!("expected a table tree page, found kind {other:?}"),
            )),
        }
    }

    fn check_leaf<S: PageRead + ?Sized>(
        &self,
        store: &S,
        view: &TableLeaf<'_>,
        lower: Option<i64>,
        upper: Option<i64>,
        walk: &mut Walk,
    ) -> Result<()> {
        let page_no = view.page_no();
        let rows = view.row_count();
        if rows == 0 && page_no != self.root() {
            return Err(corrupt(page_no, "empty leaf below the root"));
        }
        let mut previous: Option<i64> = None;
        for row_id in view.row_ids() {
            if previous.is_some_and(|previous| row_id <= previous)
                || lower.is_some_and(|lower| row_id < lower)
                || upper.is_some_and(|upper| row_id >= upper)
            {
                return Err(corrupt(page_no, format!("row id {row_id} out of order")));
            }
            previous = Some(row_id);
        }
        let max_inline = max_inline_len(view.bytes().len());
        let per_page = data_per_page(view.bytes().len()) as u64;
        let mut live_heap = 0;
        for row in 0..rows {
            for column in 0..view.column_count() {
                let value = view.value(row, column)?;
                live_heap += value.heap_len();
                check_placement(view, value, max_inline, per_page)?;
                if let Some((first_page, chain_len)) = value.chain() {
                    for chain_page in chain_pages(store, first_page, chain_len)? {
                        if !walk.visited.insert(chain_page) {
                            return Err(corrupt(chain_page, "overflow page referenced twice"));
                        }
                        walk.stats.overflow_pages += 1;
                    }
                }
            }
        }
        if live_heap != view.live_heap_bytes() {
            return Err(corrupt(
                page_no,
                format!(
                    "heap accounting: {live_heap} live bytes, header implies {}",
                    view.live_heap_bytes()
                ),
            ));
        }
        walk.stats.rows += rows as u64;
        walk.stats.leaf_bytes_used += view.used_bytes() as u64;
        Ok(())
    }
}
