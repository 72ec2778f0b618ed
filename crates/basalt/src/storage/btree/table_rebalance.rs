//! Deletion repair for table trees: freeing empty leaves and merging underfull nodes.
//!
//! After a row is removed from a leaf, [`TableTree::rebalance_leaf`] restores the tree's
//! shape rules: no empty leaf below the root (it is unlinked from its neighbours, freed and
//! removed from its parent); a leaf under a quarter full is merged with a sibling under the
//! same parent when both fit in one page; an interior node that loses children is freed when
//! it has none left, merged with a sibling when under a quarter full and the two (plus the
//! separator between them) fit; and a root left with a single child pulls that child up,
//! so the root page number never changes. Freed pages go back through `free_page`.
//!
//! Merges only join siblings under the same parent, so every leaf stays at the same depth.
//! Nodes that cannot merge (their sibling is too full) are left underfull: correctness
//! never depends on fill, and the next delete in the area tries again.

use super::table::TableTree;
use super::table_cursor::{MAX_DEPTH, Step};
use super::table_interior::{InteriorNode, TableInterior, max_keys};
use super::table_leaf::{
    LeafHeader, TableLeaf, build_leaf, choose_capacity, init_leaf, set_next_leaf, set_prev_leaf,
    union_kinds,
};
use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, PageRead, PageWrite, kind};

/// Reads page `page_no` as a leaf header (to check a neighbour before relinking it).
fn leaf_header<S: PageRead + ?Sized>(store: &S, page_no: PageNo) -> Result<LeafHeader> {
    LeafHeader::read(&store.page(page_no)?, page_no)
}

impl TableTree {
    /// After a delete from leaf `leaf_no` (reached by `path`): frees it if empty, merges it
    /// with a sibling if it is under a quarter full and they fit together.
    pub(super) fn rebalance_leaf<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        path: &[Step],
        leaf_no: PageNo,
    ) -> Result<()> {
        let Some(step) = path.last() else {
            return Ok(()); // The root leaf may shrink to nothing.
        };
        let usable = store.usable_size();
        let page = store.page(leaf_no)?;
        let view = TableLeaf::new(&page, leaf_no)?;
        if view.row_count() == 0 {
            let (prev, next) = (view.prev_leaf(), view.next_leaf());
            drop(page);
            if prev != 0 {
                leaf_header(&*store, prev)?;
                set_next_leaf(store.page_mut(prev)?, next);
            }
            if next != 0 {
                leaf_header(&*store, next)?;
                set_prev_leaf(store.page_mut(next)?, prev);
            }
            store.free_page(leaf_no)?;
            return self.remove_child(store, path);
        }
        if view.used_bytes() >= usable / 4 {
            return Ok(());
        }
        drop(page);
        // Read the two children through the parent's view: decoding the whole node (hundreds
        // of children) on every delete from an underfull leaf whose sibling is too full to
        // merge was most of the cost of a run of deletes.
        let (left_index, left_no, right_no) = {
            let parent_page = store.page(step.page)?;
            let parent = TableInterior::new(&parent_page, step.page)?;
            let children = parent.key_count() + 1;
            let left_index = if step.child + 1 < children {
                step.child
            } else if step.child > 0 {
                step.child - 1
            } else {
                return Ok(());
            };
            (
                left_index,
                parent.child(left_index),
                parent.child(left_index + 1),
            )
        };
        if left_no == 0 || right_no == 0 {
            return Ok(());
        }
        if !self.merge_leaves(store, left_no, right_no)? {
            return Ok(());
        }
        let mut parent_path = path.to_vec();
        if let Some(last) = parent_path.last_mut() {
            last.child = left_index + 1;
        }
        self.remove_child(store, &parent_path)
    }

    /// Moves all rows of leaf `right_no` into its left neighbour `left_no` if they fit, and
    /// frees `right_no`. Returns whether it merged. The parent is the caller's to fix.
    fn merge_leaves<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        left_no: PageNo,
        right_no: PageNo,
    ) -> Result<bool> {
        let usable = store.usable_size();
        let left_page = store.page(left_no)?;
        let right_page = store.page(right_no)?;
        let left = TableLeaf::new(&left_page, left_no)?;
        let right = TableLeaf::new(&right_page, right_no)?;
        if left.next_leaf() != right_no || right.prev_leaf() != left_no {
            return Err(StorageError::corrupt_page(
                left_no,
                format!("sibling links to {right_no} broken"),
            ));
        }
        // Two leaves that already use more than a page between them cannot merge; saying so
        // from their headers spares summing their rows' heap bytes.
        if left.used_bytes() + right.used_bytes() > usable {
            return Ok(false);
        }
        let kinds = union_kinds(&left.column_kinds(), &right.column_kinds())?;
        let rows = left.row_count() + right.row_count();
        let heap =
            left.heap_bytes(0..left.row_count())? + right.heap_bytes(0..right.row_count())?;
        let Some(capacity) = choose_capacity(&kinds, usable, rows, heap) else {
            return Ok(false);
        };
        let next = right.next_leaf();
        if next != 0 {
            leaf_header(&*store, next)?;
        }
        build_leaf(
            store.page_mut(left_no)?,
            left_no,
            &kinds,
            capacity,
            &[(left, 0..left.row_count()), (right, 0..right.row_count())],
            left.prev_leaf(),
            next,
        )?;
        drop(left_page);
        drop(right_page);
        if next != 0 {
            set_prev_leaf(store.page_mut(next)?, left_no);
        }
        store.free_page(right_no)?;
        Ok(true)
    }

    /// Removes the child the last step of `path` points at (already freed or merged away)
    /// from its parent, then repairs the parent: frees it if it has no children left,
    /// collapses a single-child root, or merges an underfull node with a sibling.
    fn remove_child<S: PageWrite + ?Sized>(&self, store: &mut S, path: &[Step]) -> Result<()> {
        let Some((step, upper)) = path.split_last() else {
            return Ok(());
        };
        let mut node = InteriorNode::read(&store.page(step.page)?, step.page)?;
        if step.child >= node.children.len() {
            return Err(StorageError::corrupt_page(
                step.page,
                "child index out of range",
            ));
        }
        node.children.remove(step.child);
        if !node.keys.is_empty() {
            node.keys.remove(step.child.saturating_sub(1));
        }
        if node.children.is_empty() {
            if step.page == self.root() {
                init_leaf(store.page_mut(self.root())?);
                return Ok(());
            }
            store.free_page(step.page)?;
            return self.remove_child(store, upper);
        }
        node.encode(store.page_mut(step.page)?)?;
        if step.page == self.root() {
            return self.collapse_root(store);
        }
        if node.keys.len() < max_keys(store.usable_size()) / 4 {
            self.merge_interior(store, upper)?;
        }
        Ok(())
    }

    /// While the root is an interior node with a single child, pulls the child up into it.
    fn collapse_root<S: PageWrite + ?Sized>(&self, store: &mut S) -> Result<()> {
        for _ in 0..MAX_DEPTH {
            let page = store.page(self.root())?;
            if page.first() != Some(&kind::TABLE_INTERIOR) {
                return Ok(());
            }
            let view = TableInterior::new(&page, self.root())?;
            if view.key_count() > 0 {
                return Ok(());
            }
            let child = view.checked_child(0)?;
            drop(page);
            let child_page = store.page(child)?;
            store.page_mut(self.root())?.copy_from_slice(&child_page);
            drop(child_page);
            store.free_page(child)?;
        }
        Err(StorageError::corrupt_page(
            self.root(),
            "root collapse did not end",
        ))
    }

    /// Merges the interior node the last step of `path` points at with a sibling under the
    /// same parent, if their keys plus the separator fit one page.
    fn merge_interior<S: PageWrite + ?Sized>(&self, store: &mut S, path: &[Step]) -> Result<()> {
        let Some(step) = path.last() else {
            return Ok(());
        };
        let parent = InteriorNode::read(&store.page(step.page)?, step.page)?;
        let left_index = if step.child + 1 < parent.children.len() {
            step.child
        } else if step.child > 0 {
            step.child - 1
        } else {
            return Ok(());
        };
        let (Some(&left_no), Some(&right_no), Some(&separator)) = (
            parent.children.get(left_index),
            parent.children.get(left_index + 1),
            parent.keys.get(left_index),
        ) else {
            return Ok(());
        };
        let mut left = InteriorNode::read(&store.page(left_no)?, left_no)?;
        let right = InteriorNode::read(&store.page(right_no)?, right_no)?;
        if left.keys.len() + right.keys.len() + 1 > max_keys(store.usable_size()) {
            return Ok(());
        }
        left.keys.push(separator);
        left.keys.extend_from_slice(&right.keys);
        left.children.extend_from_slice(&right.children);
        left.encode(store.page_mut(left_no)?)?;
        store.free_page(right_no)?;
        let mut parent_path = path.to_vec();
        if let Some(last) = parent_path.last_mut() {
            last.child = left_index + 1;
        }
        self.remove_child(store, &parent_path)
    }
}
