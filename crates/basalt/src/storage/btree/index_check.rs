//! The integrity check of an index tree.
//!
//! [`IndexTree::check`] walks the whole tree and verifies everything the other index modules
//! promise: each page passes the full codec validation (cells in bounds, no overlaps, exact
//! byte accounting, sorted keys), keys lie within the separators above them and increase
//! strictly across leaves, all leaves sit at one depth, no page is reachable twice, the root
//! is not an interior node without separators, only the root leaf may be empty, and the
//! sibling chain links every leaf to its neighbours in both directions. It is what tests,
//! `PRAGMA integrity_check`-style tooling and recovery tests rely on; it reads through
//! `PageRead` only.

use std::collections::HashSet;

use super::index::{IndexTree, TreeStats};
use super::index_page::{MAX_DEPTH, Node};
use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, PageRead};

impl IndexTree {
    /// Full integrity check: every page valid, keys sorted within and across pages and
    /// bounded by the separators above them, all leaves at one depth, no page reachable
    /// twice, and the leaf chain consistent in both directions.
    pub fn check<S: PageRead + ?Sized>(&self, store: &S) -> Result<TreeStats> {
        self.check_pages(store).map(|(stats, _)| stats)
    }

    /// [`IndexTree::check`], also returning every page the tree owns, so
    /// `PRAGMA integrity_check` can account for every page of the file.
    pub fn check_pages<S: PageRead + ?Sized>(
        &self,
        store: &S,
    ) -> Result<(TreeStats, HashSet<PageNo>)> {
        let mut walk = CheckWalk {
            store,
            root: self.root(),
            visited: HashSet::new(),
            leaves: Vec::new(),
            leaf_depth: None,
            last_key: None,
            stats: TreeStats::default(),
        };
        walk.visit(self.root(), 1, None, None)?;
        let leaves = &walk.leaves;
        for (i, &(page_no, prev, next)) in leaves.iter().enumerate() {
            let expected_prev = if i == 0 { 0 } else { leaves[i - 1].0 };
            let expected_next = leaves.get(i + 1).map_or(0, |l| l.0);
            if prev != expected_prev || next != expected_next {
                return Err(StorageError::corrupt_page(
                    page_no,
                    format!(
                        "leaf links prev={prev} next={next}, expected prev={expected_prev} \
                         next={expected_next}"
                    ),
                ));
            }
        }
        let mut stats = walk.stats;
        stats.depth = walk.leaf_depth.unwrap_or(0);
        Ok((stats, walk.visited))
    }
}

/// State of one [`IndexTree::check`] walk.
struct CheckWalk<'s, S: ?Sized> {
    store: &'s S,
    root: PageNo,
    visited: HashSet<PageNo>,
    /// (page, prev_leaf, next_leaf) in key order.
    leaves: Vec<(PageNo, PageNo, PageNo)>,
    leaf_depth: Option<usize>,
    last_key: Option<Vec<u8>>,
    stats: TreeStats,
}

impl<S: PageRead + ?Sized> CheckWalk<'_, S> {
    fn visit(
        &mut self,
        page_no: PageNo,
        depth: usize,
        lower: Option<&[u8]>,
        upper: Option<&[u8]>,
    ) -> Result<()> {
        let bad = |reason: String| StorageError::corrupt_page(page_no, reason);
        if depth > MAX_DEPTH + 1 {
            return Err(bad(format!("deeper than {MAX_DEPTH} levels")));
        }
        if !self.visited.insert(page_no) {
            return Err(bad("page reachable twice".into()));
        }
        let page = self.store.page(page_no)?;
        let node = Node::parse(&page, page_no)?;
        node.validate()?;
        self.stats.pages += 1;
        let count = node.count();
        if count > 0 {
            let (first, last) = (node.key(0)?, node.key(count - 1)?);
            if lower.is_some_and(|lower| first < lower) {
                return Err(bad(
                    "first key below the separator bounding this page".into()
                ));
            }
            if upper.is_some_and(|upper| last >= upper) {
                return Err(bad(
                    "last key not below the separator bounding this page".into()
                ));
            }
        }
        if node.is_leaf() {
            match self.leaf_depth {
                None => self.leaf_depth = Some(depth),
                Some(d) if d != depth => {
                    return Err(bad(format!("leaf at depth {depth}, others at {d}")));
                }
                Some(_) => {}
            }
            if count == 0 && page_no != self.root {
                return Err(bad("empty non-root leaf".into()));
            }
            if count > 0 {
                let first = node.key(0)?;
                if self.last_key.as_deref().is_some_and(|last| first <= last) {
                    return Err(bad("keys not increasing across leaves".into()));
                }
                self.last_key = Some(node.key(count - 1)?.to_vec());
            }
            self.stats.leaves += 1;
            self.stats.entries += count;
            self.stats.leaf_bytes += node.used_bytes();
            self.leaves
                .push((page_no, node.prev_leaf(), node.next_leaf()));
            return Ok(());
        }
        if page_no == self.root && count == 0 {
            return Err(bad("interior root without separators".into()));
        }
        for i in 0..=count {
            let lo = if i == 0 {
                lower
            } else {
                Some(node.key(i - 1)?)
            };
            let hi = if i == count {
                upper
            } else {
                Some(node.key(i)?)
            };
            self.visit(node.child(i)?, depth + 1, lo, hi)?;
        }
        Ok(())
    }
}
