//! Table trees: B+trees mapping a 64-bit row id to a row of column values.
//!
//! Rows live in column-major leaves ([`super::table_leaf`]); interior nodes
//! ([`super::table_interior`]) hold separator row ids; values longer than
//! [`max_inline_len`] live in overflow chains ([`super::overflow`]), all but an inline
//! prefix that keeps the chain's pages full. This module holds the
//! tree operations — insert, update, delete, point get, bulk load, destroy; the repair
//! after deletes (freeing and merging nodes) is in `table_rebalance`, the
//! integrity check in [`super::table_check`], cursors in [`super::table_cursor`].
//!
//! Guarantees:
//!
//! * The root keeps its page number for the tree's whole life, so the schema can store it.
//!   A root split moves the root's contents into a new child first; when the root is an
//!   interior node left with a single child, the child is pulled up into the root.
//! * Leaves are linked to both neighbours. Appending past the last row of the rightmost
//!   leaf puts the new row alone into a new right page, so ascending inserts fill leaves
//!   almost completely; other splits divide the bytes near the middle.
//! * Deletes free empty leaves and merge a leaf that drops below a quarter full into a
//!   sibling under the same parent when both fit in one page; interior nodes likewise.
//!   Updates and deletes free the overflow chains of the values they replace.
//! * Every page is validated when read, and descents are bounded by a depth limit, so a
//!   damaged file produces `StorageError::Corrupt`, never a panic or an endless loop.
//!
//! A row must fit in a leaf at least twice (so a split can always separate two rows):
//! before it is stored, Var values over the inline limit move to overflow chains (keeping
//! an inline prefix when that fills the chain's last page), and then the values with the
//! largest heap cost move out entirely until the row fits; if even that is not enough
//! (thousands of columns) the insert fails with `StorageError::RowTooWide`. The exact rule
//! is in the [`super::table_leaf`] module documentation.
//!
//! An error in the middle of a modification (I/O failure, corruption found) can leave the
//! tree half-changed; the transaction layer must then roll the transaction back.

use super::overflow::{free_chain, write_chain};
use super::row::{CellValue, ColumnKind, LoadRow, OwnedValue, ValueRef};
use super::table_cursor::{LeafHandle, Step, TableCursor, Target, descend};
use super::table_interior::{InteriorNode, max_keys};
use super::table_leaf::{
    LeafHeader, OVERFLOW_POINTER_LEN, TableLeaf, build_leaf, choose_capacity, fixed_bytes_per_row,
    init_leaf, insert_row, insert_row_with_header, max_inline_len, merged_kinds,
    overflow_prefix_len, overwrite_row, remove_row, row_fits_twice, set_next_leaf, set_prev_leaf,
};
use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PAGE_TRAILER_SIZE, PageNo, PageRead, PageWrite, kind};

pub use super::table_check::TreeStats;

/// A table B+tree, identified by its root page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableTree {
    root: PageNo,
}

/// Bound on split-and-retry rounds of one insert. Each round strictly shrinks the leaf the
/// row is headed for, so real inserts need one or two; the bound only stops a damaged tree
/// from looping.
const MAX_INSERT_ROUNDS: usize = 256;

/// Checks that a row matches its kinds: same length, and each value of the right shape.
fn validate_row(kinds: &[ColumnKind], row: &[CellValue<'_>]) -> Result<()> {
    if kinds.len() != row.len() {
        return Err(StorageError::InvalidArgument(format!(
            "row has {} values for {} column kinds",
            row.len(),
            kinds.len()
        )));
    }
    if kinds.len() > usize::from(u16::MAX) {
        return Err(StorageError::InvalidArgument(format!(
            "a row has at most {} columns",
            u16::MAX
        )));
    }
    for (column, (kind, value)) in kinds.iter().zip(row).enumerate() {
        let suits = match value {
            CellValue::Null => true,
            CellValue::Fixed(_) => *kind != ColumnKind::Var,
            CellValue::Var(_) => *kind == ColumnKind::Var,
        };
        if !suits {
            return Err(StorageError::InvalidArgument(format!(
                "column {column} is {kind:?} but the value is {value:?}"
            )));
        }
    }
    Ok(())
}

/// Decides where each value of a row goes (the rule in the [`super::table_leaf`] module
/// documentation): `None` to store it as is, `Some(k)` for a Var value that goes to an
/// overflow chain keeping its first `k` bytes inline. An empty plan: every value as is.
fn plan_overflow(
    usable_size: usize,
    kinds: &[ColumnKind],
    row: &[CellValue<'_>],
) -> Result<Vec<Option<usize>>> {
    let max_inline = max_inline_len(usable_size);
    let heap_len = |value: &CellValue<'_>, placement: Option<usize>| match (value, placement) {
        (CellValue::Var(_), Some(prefix)) => OVERFLOW_POINTER_LEN + prefix,
        (CellValue::Var(bytes), None) => bytes.len(),
        _ => 0,
    };
    // The usual row: every value inline. The empty plan says so without allocating.
    let all_inline = row
        .iter()
        .all(|value| !matches!(value, CellValue::Var(bytes) if bytes.len() > max_inline));
    if all_inline {
        let heap = row.iter().map(|value| heap_len(value, None)).sum();
        if row_fits_twice(kinds, usable_size, heap) {
            return Ok(Vec::new());
        }
    }
    // Steps 1 and 2: medium values inline, long ones out with the page-filling prefix.
    let mut plan: Vec<Option<usize>> = row
        .iter()
        .map(|value| match value {
            CellValue::Var(bytes) if bytes.len() > max_inline => {
                Some(overflow_prefix_len(usable_size, bytes.len()))
            }
            _ => None,
        })
        .collect();
    let mut heap: usize = row
        .iter()
        .zip(&plan)
        .map(|(value, &placement)| heap_len(value, placement))
        .sum();
    // Step 3: move the value costing the most heap out entirely until the row fits twice.
    // Each round lowers the heap cost, and only values costing more than a bare pointer
    // qualify, so the loop ends.
    while !row_fits_twice(kinds, usable_size, heap) {
        let largest = row
            .iter()
            .zip(&plan)
            .enumerate()
            .filter_map(|(column, (value, &placement))| {
                let cost = heap_len(value, placement);
                (cost > OVERFLOW_POINTER_LEN).then_some((cost, column))
            })
            .max();
        let Some((cost, column)) = largest else {
            return Err(StorageError::RowTooWide {
                columns: kinds.len(),
                page_size: usable_size + PAGE_TRAILER_SIZE,
            });
        };
        if let Some(placement) = plan.get_mut(column) {
            *placement = Some(0);
        }
        heap = heap - cost + OVERFLOW_POINTER_LEN;
    }
    Ok(plan)
}

/// Rows of up to this many columns whose values are all inline are converted for an insert
/// without allocating.
const INLINE_ROW_COLUMNS: usize = 16;

/// A cell stored inline (what `store_row` makes of it when the plan keeps it in the page).
fn inline_value(cell: CellValue<'_>) -> ValueRef<'_> {
    match cell {
        CellValue::Null => ValueRef::Null,
        CellValue::Fixed(value) => ValueRef::Fixed(value),
        CellValue::Var(bytes) => ValueRef::Var(bytes),
    }
}

/// Writes the overflow chains a row needs and returns the row as stored values.
fn store_row<'r, S: PageWrite + ?Sized>(
    store: &mut S,
    row: &[CellValue<'r>],
    plan: &[Option<usize>],
) -> Result<Vec<ValueRef<'r>>> {
    let mut values = Vec::with_capacity(row.len());
    for (column, value) in row.iter().enumerate() {
        // An empty plan (or a missing entry) means inline.
        let placement = plan.get(column).copied().flatten();
        values.push(match (*value, placement) {
            (CellValue::Var(bytes), Some(prefix_len)) => {
                // plan_overflow leaves at least one byte for the chain; a prefix beyond the
                // value would be a bug, reported rather than sliced past.
                let (Some(prefix), Some(rest)) = (bytes.get(..prefix_len), bytes.get(prefix_len..))
                else {
                    return Err(StorageError::InvalidArgument(format!(
                        "inline prefix of {prefix_len} bytes for a {}-byte value",
                        bytes.len()
                    )));
                };
                ValueRef::Overflow {
                    first_page: write_chain(store, rest)?,
                    total_len: bytes.len() as u64,
                    prefix,
                }
            }
            (cell, _) => inline_value(cell),
        });
    }
    Ok(values)
}

/// The overflow chains (first page, chain length) referenced by row `row` of `leaf`.
fn row_chains(leaf: &TableLeaf<'_>, row: usize) -> Result<Vec<(PageNo, u64)>> {
    let mut chains = Vec::new();
    for column in 0..leaf.column_count() {
        chains.extend(leaf.value(row, column)?.chain());
    }
    Ok(chains)
}

/// Where a descent found a row's leaf: the interior steps, the leaf and its validated header,
/// handed to [`TableTree::insert_stored`] so it need not descend or parse the header again.
/// Valid only while the tree is unchanged (writing fresh overflow pages does not change it).
struct Located {
    path: Vec<Step>,
    leaf_no: PageNo,
    header: LeafHeader,
}

/// Reads page `page_no` as a leaf header (to check a neighbour before relinking it).
fn leaf_header<S: PageRead + ?Sized>(store: &S, page_no: PageNo) -> Result<LeafHeader> {
    LeafHeader::read(&store.page(page_no)?, page_no)
}

impl TableTree {
    /// Creates an empty tree: allocates its root, an empty leaf.
    pub fn create<S: PageWrite + ?Sized>(store: &mut S) -> Result<TableTree> {
        let root = store.allocate_page()?;
        init_leaf(store.page_mut(root)?);
        Ok(TableTree { root })
    }

    /// The tree whose root is `root` (as recorded in the schema).
    pub fn open(root: PageNo) -> TableTree {
        TableTree { root }
    }

    /// The root page number, fixed for the tree's life.
    pub fn root(&self) -> PageNo {
        self.root
    }

    /// A cursor over the tree, not yet positioned.
    pub fn cursor<S: PageRead>(&self, store: S) -> TableCursor<S> {
        TableCursor::new(store, self.root)
    }

    /// Inserts a row. Returns `false`, changing nothing, if `row_id` already exists.
    ///
    /// `kinds` are the storage classes of the row's columns (one per value); they must agree
    /// with the kinds already stored for the same columns.
    pub fn insert<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        row_id: i64,
        kinds: &[ColumnKind],
        row: &[CellValue<'_>],
    ) -> Result<bool> {
        validate_row(kinds, row)?;
        let plan = plan_overflow(store.usable_size(), kinds, row)?;
        let mut path = Vec::new();
        let leaf = descend(&*store, self.root, Target::RowId(row_id), Some(&mut path))?;
        if leaf.view().search(row_id).is_ok() {
            return Ok(false);
        }
        // Reject conflicting kinds before any overflow page is written.
        merged_kinds(&leaf.view(), kinds)?;
        let located = Located {
            path,
            leaf_no: leaf.page_no,
            header: leaf.header,
        };
        drop(leaf);
        // The usual row (every value inline, a few columns) is converted on the stack: an
        // insert is a few thousand instructions, and an allocation and free are a tenth of it.
        let mut inline = [ValueRef::Null; INLINE_ROW_COLUMNS];
        let stored;
        let values: &[ValueRef<'_>] = match inline.get_mut(..row.len()) {
            Some(slots) if plan.is_empty() => {
                for (slot, cell) in slots.iter_mut().zip(row) {
                    *slot = inline_value(*cell);
                }
                slots
            }
            _ => {
                // Writing overflow pages only allocates fresh pages, so the descent stays
                // valid.
                stored = store_row(store, row, &plan)?;
                &stored
            }
        };
        self.insert_stored(store, row_id, kinds, values, Some(located))?;
        Ok(true)
    }

    /// Replaces the row `row_id`. Returns `false`, changing nothing, if it does not exist.
    pub fn update<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        row_id: i64,
        kinds: &[ColumnKind],
        row: &[CellValue<'_>],
    ) -> Result<bool> {
        validate_row(kinds, row)?;
        let plan = plan_overflow(store.usable_size(), kinds, row)?;
        let mut path = Vec::new();
        let leaf = descend(&*store, self.root, Target::RowId(row_id), Some(&mut path))?;
        let Ok(position) = leaf.view().search(row_id) else {
            return Ok(false);
        };
        merged_kinds(&leaf.view(), kinds)?;
        let old_chains = row_chains(&leaf.view(), position)?;
        let leaf_no = leaf.page_no;
        drop(leaf);
        let values = store_row(store, row, &plan)?;
        // Overwrite in place where the new values fit the old ones' slots (the usual
        // UPDATE of a few columns); otherwise remove and re-insert: the leaf keeps its key
        // range, so the row lands in the same leaf (even if this empties it), re-laid out
        // or split if the new row is larger.
        if old_chains.is_empty()
            && overwrite_row(store.page_mut(leaf_no)?, leaf_no, position, kinds, &values)?
        {
            return Ok(true);
        }
        remove_row(store.page_mut(leaf_no)?, leaf_no, position)?;
        for (first, len) in old_chains {
            free_chain(store, first, len)?;
        }
        let located = Located {
            path,
            leaf_no,
            header: leaf_header(&*store, leaf_no)?,
        };
        self.insert_stored(store, row_id, kinds, &values, Some(located))?;
        Ok(true)
    }

    /// Deletes the row `row_id`. Returns `false` if it does not exist.
    pub fn delete<S: PageWrite + ?Sized>(&self, store: &mut S, row_id: i64) -> Result<bool> {
        let mut path = Vec::new();
        let leaf = descend(&*store, self.root, Target::RowId(row_id), Some(&mut path))?;
        let Ok(position) = leaf.view().search(row_id) else {
            return Ok(false);
        };
        let chains = row_chains(&leaf.view(), position)?;
        let leaf_no = leaf.page_no;
        drop(leaf);
        for (first, len) in chains {
            free_chain(store, first, len)?;
        }
        remove_row(store.page_mut(leaf_no)?, leaf_no, position)?;
        self.rebalance_leaf(store, &path, leaf_no)?;
        Ok(true)
    }

    /// The row `row_id` with overflow values read, or `None`. It has as many values as its
    /// leaf has columns (rows stored before an ADD COLUMN have fewer; the rest are NULL).
    pub fn get<S: PageRead + ?Sized>(
        &self,
        store: &S,
        row_id: i64,
    ) -> Result<Option<Vec<OwnedValue>>> {
        let mut cursor = self.cursor(store);
        if !cursor.seek_ge(row_id)? {
            return Ok(None);
        }
        let mut values = Vec::with_capacity(cursor.column_count());
        for column in 0..cursor.column_count() {
            values.push(cursor.value(column)?.into_owned());
        }
        Ok(Some(values))
    }

    /// The largest row id in the tree (for allocating the next one), in O(depth).
    pub fn max_row_id<S: PageRead + ?Sized>(&self, store: &S) -> Result<Option<i64>> {
        let leaf = descend(store, self.root, Target::Last, None)?;
        let view = leaf.view();
        Ok(view
            .row_count()
            .checked_sub(1)
            .map(|last| view.row_id(last)))
    }

    /// A quick estimate of the row count from the tree's shape, reading one page per level:
    /// the fan-out of the leftmost interior node on each level times the rows of the leftmost
    /// leaf. Exact for a single-leaf tree; within a small factor for trees filled by the
    /// usual insert patterns. For planning, never for answers.
    pub fn estimate_rows<S: PageRead + ?Sized>(&self, store: &S) -> Result<u64> {
        let mut page_no = self.root;
        let mut fan_out = 1u64;
        for _ in 0..super::table_cursor::MAX_DEPTH {
            let page = store.page(page_no)?;
            if page.first() == Some(&kind::TABLE_INTERIOR) {
                let view = super::table_interior::TableInterior::new(&page, page_no)?;
                fan_out = fan_out.saturating_mul(view.key_count() as u64 + 1);
                page_no = view.checked_child(0)?;
            } else {
                let leaf = descend(store, page_no, Target::First, None)?;
                let rows = u64::try_from(leaf.view().row_count()).unwrap_or(u64::MAX);
                return Ok(fan_out.saturating_mul(rows));
            }
        }
        Err(StorageError::corrupt_page(
            self.root,
            "table tree too deep while estimating its size",
        ))
    }

    /// Frees every page of the tree: leaves, interior nodes, overflow chains and the root.
    pub fn destroy<S: PageWrite + ?Sized>(self, store: &mut S) -> Result<()> {
        free_subtree(store, self.root, 0)
    }

    /// Loads rows with strictly increasing row ids into this tree, which must be empty:
    /// fills leaves left to right, builds the interior levels bottom up and installs the
    /// top node at the root page. Returns the number of rows loaded. On an error in the
    /// input (unordered ids, a bad row) the pages written so far are freed and the tree is
    /// left empty.
    pub fn bulk_load<S, R, I>(&self, store: &mut S, kinds: &[ColumnKind], rows: I) -> Result<u64>
    where
        S: PageWrite + ?Sized,
        R: LoadRow,
        I: IntoIterator<Item = (i64, R)>,
    {
        let root = descend(&*store, self.root, Target::First, None)?;
        if root.page_no != self.root || root.header.row_count != 0 {
            return Err(StorageError::InvalidArgument(
                "bulk_load needs an empty tree".into(),
            ));
        }
        drop(root);
        let mut leaves: Vec<(i64, PageNo)> = Vec::new();
        let loaded = match fill_leaves(store, kinds, rows, &mut leaves) {
            Ok(loaded) => loaded,
            Err(error) => {
                for (_, page_no) in leaves {
                    free_subtree(store, page_no, 0)?;
                }
                return Err(error);
            }
        };
        if leaves.is_empty() {
            return Ok(0);
        }
        let fanout = max_keys(store.usable_size()) + 1;
        let mut level = leaves;
        while level.len() > 1 {
            // Spread the children evenly so no node is left with a single child.
            let groups = level.len().div_ceil(fanout);
            let mut next_level = Vec::with_capacity(groups);
            let mut start = 0;
            for group in 0..groups {
                let end = start + (level.len() - start) / (groups - group);
                let members = level.get(start..end).unwrap_or_default();
                let node = InteriorNode {
                    keys: members.iter().skip(1).map(|&(first, _)| first).collect(),
                    children: members.iter().map(|&(_, page_no)| page_no).collect(),
                };
                let page_no = store.allocate_page()?;
                node.encode(store.page_mut(page_no)?)?;
                if let Some(&(first, _)) = members.first() {
                    next_level.push((first, page_no));
                }
                start = end;
            }
            level = next_level;
        }
        if let Some(&(_, top)) = level.first() {
            let top_page = store.page(top)?;
            store.page_mut(self.root)?.copy_from_slice(&top_page);
            drop(top_page);
            store.free_page(top)?;
        }
        Ok(loaded)
    }

    /// Inserts a row whose overflow chains are already written, splitting as needed.
    /// `located` is the caller's descent to the row's leaf (path, leaf and header), still
    /// valid because nothing in the tree changed since; without it the first round descends.
    fn insert_stored<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        row_id: i64,
        kinds: &[ColumnKind],
        values: &[ValueRef<'_>],
        mut located: Option<Located>,
    ) -> Result<()> {
        let mut path = Vec::new();
        for _ in 0..MAX_INSERT_ROUNDS {
            let leaf = match located.take() {
                Some(known) => {
                    path = known.path;
                    LeafHandle {
                        page_no: known.leaf_no,
                        page: store.page(known.leaf_no)?,
                        header: known.header,
                    }
                }
                None => {
                    path.clear();
                    descend(&*store, self.root, Target::RowId(row_id), Some(&mut path))?
                }
            };
            let position = match leaf.view().search(row_id) {
                Ok(_) => {
                    return Err(StorageError::InvalidArgument(format!(
                        "row id {row_id} already exists"
                    )));
                }
                Err(position) => position,
            };
            let leaf_no = leaf.page_no;
            let header = leaf.header;
            let rows = header.row_count;
            let rightmost = header.next_leaf == 0;
            drop(leaf);
            if insert_row_with_header(
                store.page_mut(leaf_no)?,
                leaf_no,
                header,
                position,
                row_id,
                kinds,
                values,
            )? {
                return Ok(());
            }
            if rows == 0 {
                // An empty leaf takes any row that passed plan_overflow.
                return Err(StorageError::RowTooWide {
                    columns: kinds.len(),
                    page_size: store.usable_size() + PAGE_TRAILER_SIZE,
                });
            }
            let (leaf_no, path) = self.push_down_if_root(store, leaf_no, &path)?;
            if position == rows && rightmost {
                return self.append_leaf(store, &path, leaf_no, row_id, kinds, values);
            }
            let page = store.page(leaf_no)?;
            let view = TableLeaf::new(&page, leaf_no)?;
            let new_bytes =
                kinds.len() * 4 + 8 + values.iter().map(ValueRef::heap_len).sum::<usize>();
            let split_at = split_point(&view, position, new_bytes)?;
            let separator = if split_at < rows {
                view.row_id(split_at)
            } else {
                row_id
            };
            drop(page);
            self.split_leaf(store, &path, leaf_no, split_at, separator)?;
        }
        Err(StorageError::corrupt_page(
            self.root,
            "insert did not converge (damaged tree?)",
        ))
    }

    /// If `leaf_no` is the root leaf, moves its contents into a new child so it can split
    /// like any other leaf. Returns the leaf to split and its path.
    fn push_down_if_root<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        leaf_no: PageNo,
        path: &[Step],
    ) -> Result<(PageNo, Vec<Step>)> {
        if leaf_no != self.root {
            return Ok((leaf_no, path.to_vec()));
        }
        let child = store.allocate_page()?;
        let root_page = store.page(self.root)?;
        store.page_mut(child)?.copy_from_slice(&root_page);
        drop(root_page);
        InteriorNode {
            keys: Vec::new(),
            children: vec![child],
        }
        .encode(store.page_mut(self.root)?)?;
        Ok((
            child,
            vec![Step {
                page: self.root,
                child: 0,
            }],
        ))
    }

    /// Puts a row past the end of the rightmost leaf alone into a new right neighbour.
    fn append_leaf<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        path: &[Step],
        leaf_no: PageNo,
        row_id: i64,
        kinds: &[ColumnKind],
        values: &[ValueRef<'_>],
    ) -> Result<()> {
        // Rows appended in row-id order tend to look like the ones before them, so the full
        // leaf on the left predicts how many fit: laying the new leaf out for that many
        // saves the rebuild a layout sized from its first row alone needs as it fills.
        let usable = store.usable_size();
        let predicted = {
            let left = store.page(leaf_no)?;
            let view = TableLeaf::new(&left, leaf_no)?;
            let rows = view.row_count();
            let heap = view.heap_bytes(0..rows)?;
            choose_capacity(kinds, usable, rows, heap)
        };
        let new_no = store.allocate_page()?;
        let bytes = store.page_mut(new_no)?;
        match predicted {
            Some(capacity) => build_leaf(bytes, new_no, kinds, capacity, &[], leaf_no, 0)?,
            None => {
                init_leaf(bytes);
                set_prev_leaf(bytes, leaf_no);
            }
        }
        if !insert_row(bytes, new_no, 0, row_id, kinds, values)? {
            return Err(StorageError::RowTooWide {
                columns: kinds.len(),
                page_size: store.usable_size() + PAGE_TRAILER_SIZE,
            });
        }
        set_next_leaf(store.page_mut(leaf_no)?, new_no);
        self.insert_into_parent(store, path, row_id, new_no)
    }

    /// Splits leaf `leaf_no` (not the root) so rows `split_at..` move to a new right
    /// neighbour, and registers `separator` for it in the parent.
    fn split_leaf<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        path: &[Step],
        leaf_no: PageNo,
        split_at: usize,
        separator: i64,
    ) -> Result<()> {
        let usable = store.usable_size();
        let page = store.page(leaf_no)?;
        let view = TableLeaf::new(&page, leaf_no)?;
        let kinds = view.column_kinds();
        let rows = view.row_count();
        let next = view.next_leaf();
        if next != 0 {
            leaf_header(&*store, next)?;
        }
        let capacity_for = |range: std::ops::Range<usize>| -> Result<usize> {
            let heap = view.heap_bytes(range.clone())?;
            choose_capacity(&kinds, usable, range.len(), heap)
                .ok_or_else(|| StorageError::corrupt_page(leaf_no, "leaf rows do not fit a page"))
        };
        let right_capacity = capacity_for(split_at..rows)?;
        let left_capacity = capacity_for(0..split_at)?;
        let right_no = store.allocate_page()?;
        build_leaf(
            store.page_mut(right_no)?,
            right_no,
            &kinds,
            right_capacity,
            &[(view, split_at..rows)],
            leaf_no,
            next,
        )?;
        build_leaf(
            store.page_mut(leaf_no)?,
            leaf_no,
            &kinds,
            left_capacity,
            &[(view, 0..split_at)],
            view.prev_leaf(),
            right_no,
        )?;
        drop(page);
        if next != 0 {
            set_prev_leaf(store.page_mut(next)?, right_no);
        }
        self.insert_into_parent(store, path, separator, right_no)
    }

    /// Adds `separator` and its right child `right` after the child the last step of `path`
    /// went through, splitting interior nodes up to the root as needed.
    fn insert_into_parent<S: PageWrite + ?Sized>(
        &self,
        store: &mut S,
        path: &[Step],
        separator: i64,
        right: PageNo,
    ) -> Result<()> {
        let Some((step, upper)) = path.split_last() else {
            return Err(StorageError::InvalidArgument(
                "split of a node without a parent".into(),
            ));
        };
        let mut node = InteriorNode::read(&store.page(step.page)?, step.page)?;
        if step.child > node.keys.len() {
            return Err(StorageError::corrupt_page(
                step.page,
                "child index out of range",
            ));
        }
        node.keys.insert(step.child, separator);
        node.children.insert(step.child + 1, right);
        let limit = max_keys(store.usable_size());
        if node.keys.len() <= limit {
            return node.encode(store.page_mut(step.page)?);
        }
        let middle = node.keys.len() / 2;
        let up = node.keys.get(middle).copied().unwrap_or(separator);
        let right_node = InteriorNode {
            keys: node.keys.split_off(middle + 1),
            children: node.children.split_off(middle + 1),
        };
        node.keys.truncate(middle);
        if step.page == self.root {
            // The root keeps its page: both halves move to new pages below it.
            let left_no = store.allocate_page()?;
            let right_no = store.allocate_page()?;
            node.encode(store.page_mut(left_no)?)?;
            right_node.encode(store.page_mut(right_no)?)?;
            return InteriorNode {
                keys: vec![up],
                children: vec![left_no, right_no],
            }
            .encode(store.page_mut(self.root)?);
        }
        let right_no = store.allocate_page()?;
        right_node.encode(store.page_mut(right_no)?)?;
        node.encode(store.page_mut(step.page)?)?;
        self.insert_into_parent(store, upper, up, right_no)
    }
}

/// Where to split a full leaf receiving a row of `new_bytes` leaf bytes at `position`: the
/// row count `k` such that rows `..k` stay and `k..` move right, balancing bytes with the
/// new row counted on its side. With one row, the split isolates the new row's side.
fn split_point(view: &TableLeaf<'_>, position: usize, new_bytes: usize) -> Result<usize> {
    let rows = view.row_count();
    if rows <= 1 {
        return Ok(if position == 0 { 0 } else { rows });
    }
    let fixed = fixed_bytes_per_row(&view.column_kinds());
    let mut sizes = Vec::with_capacity(rows + 1);
    for row in 0..rows {
        if row == position {
            sizes.push(new_bytes);
        }
        sizes.push(fixed + view.heap_bytes(row..row + 1)?);
    }
    if position == rows {
        sizes.push(new_bytes);
    }
    let total: usize = sizes.iter().sum();
    let mut running = 0;
    let mut middle = sizes.len() - 1;
    for (index, size) in sizes.iter().enumerate() {
        running += size;
        if running * 2 >= total {
            middle = index + 1;
            break;
        }
    }
    let old_rows_left = if middle <= position {
        middle
    } else {
        middle - 1
    };
    Ok(old_rows_left.clamp(1, rows - 1))
}

/// Appends rows to new leaves, recording (first row id, page) of each leaf in `leaves`.
fn fill_leaves<S, R, I>(
    store: &mut S,
    kinds: &[ColumnKind],
    rows: I,
    leaves: &mut Vec<(i64, PageNo)>,
) -> Result<u64>
where
    S: PageWrite + ?Sized,
    R: LoadRow,
    I: IntoIterator<Item = (i64, R)>,
{
    let usable = store.usable_size();
    let mut last_row_id: Option<i64> = None;
    let mut rows_here = 0;
    let mut loaded = 0u64;
    for (row_id, row) in rows {
        if last_row_id.is_some_and(|last| row_id <= last) {
            return Err(StorageError::InvalidArgument(format!(
                "bulk_load row ids must increase strictly; {row_id} follows {last_row_id:?}"
            )));
        }
        last_row_id = Some(row_id);
        let row = row.cells();
        validate_row(kinds, &row)?;
        let plan = plan_overflow(usable, kinds, &row)?;
        let values = store_row(store, &row, &plan)?;
        let fitted = match leaves.last() {
            Some(&(_, page_no)) => insert_row(
                store.page_mut(page_no)?,
                page_no,
                rows_here,
                row_id,
                kinds,
                &values,
            )?,
            None => false,
        };
        if !fitted {
            let new_no = store.allocate_page()?;
            let previous = leaves.last().map(|&(_, page_no)| page_no);
            let bytes = store.page_mut(new_no)?;
            init_leaf(bytes);
            set_prev_leaf(bytes, previous.unwrap_or(0));
            let inserted = insert_row(bytes, new_no, 0, row_id, kinds, &values)?;
            leaves.push((row_id, new_no));
            if let Some(previous) = previous {
                set_next_leaf(store.page_mut(previous)?, new_no);
            }
            if !inserted {
                return Err(StorageError::RowTooWide {
                    columns: kinds.len(),
                    page_size: usable + PAGE_TRAILER_SIZE,
                });
            }
            rows_here = 0;
        }
        rows_here += 1;
        loaded += 1;
    }
    Ok(loaded)
}

/// Frees a subtree: its overflow chains and pages, depth-first.
fn free_subtree<S: PageWrite + ?Sized>(store: &mut S, page_no: PageNo, depth: usize) -> Result<()> {
    if depth > super::table_cursor::MAX_DEPTH {
        return Err(StorageError::corrupt_page(
            page_no,
            "table tree too deep (a pointer cycle?)",
        ));
    }
    let page = store.page(page_no)?;
    match page.first() {
        Some(&kind::TABLE_LEAF) => {
            let view = TableLeaf::new(&page, page_no)?;
            let mut chains = Vec::new();
            for row in 0..view.row_count() {
                chains.extend(row_chains(&view, row)?);
            }
            drop(page);
            for (first, len) in chains {
                free_chain(store, first, len)?;
            }
        }
        Some(&kind::TABLE_INTERIOR) => {
            let node = InteriorNode::read(&page, page_no)?;
            drop(page);
            for child in node.children {
                if child == 0 || child == page_no {
                    return Err(StorageError::corrupt_page(page_no, "invalid child pointer"));
                }
                free_subtree(store, child, depth + 1)?;
            }
        }
        other => {
            return Err(StorageError::corrupt_page(
                page_no,
                format!("expected a table tree page, found kind {other:?}"),
            ));
        }
    }
    store.free_page(page_no)
}
