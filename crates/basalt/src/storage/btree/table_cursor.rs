//! Cursors over a table tree, and the descent they share with tree modifications.
//!
//! A [`TableCursor`] points at one row of one leaf. It holds that leaf's [`PageRef`] (which
//! pins the page and, because writers copy pages on write, keeps a consistent image of it)
//! plus the header validated when the leaf was loaded, so reading a value costs one bounds
//! check and one `from_le_bytes`. Moving past either end of a leaf follows the sibling link
//! and checks that the neighbour links back, so a damaged link is reported rather than
//! followed into unrelated pages. A cursor borrows the store immutably; it cannot coexist
//! with a writer's `&mut` borrow, and it must be re-seeked after the tree changes.
//!
//! A point lookup (`seek_ge` then `value_ref`) does not allocate: the descent walks interior
//! pages by binary search and clones page handles only. A cursor that seeks again reuses the
//! interior pages of its earlier descents while the store is unchanged (`remembered_path`),
//! which makes a table lookup per index entry cheaper.
//!
//! For vectorized scans, [`TableCursor::leaf`] exposes the current leaf as a [`TableLeaf`]
//! (whole column arrays at once) and [`TableCursor::next_leaf`] steps a page at a time.

use std::borrow::Cow;

use super::overflow::read_value;
use super::remembered_path::RememberedPages;
use super::row::{Value, ValueRef};
use super::table_interior::TableInterior;
use super::table_leaf::{LeafHeader, TableLeaf};
use crate::storage::error::{Result, StorageError};
use crate::storage::page::{PageNo, PageRead, PageRef, kind};

/// Deepest tree a descent will walk: far beyond any real tree (a 4 KiB-page tree of depth
/// 10 would hold more rows than a u32-page file can), so hitting it means a pointer cycle.
pub(crate) const MAX_DEPTH: usize = 64;

/// Which leaf a descent goes to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target {
    /// The leaf whose key range contains this row id.
    RowId(i64),
    /// The leftmost leaf.
    First,
    /// The rightmost leaf.
    Last,
}

/// One interior step of a descent: the page and the index of the child taken.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step {
    pub(crate) page: PageNo,
    pub(crate) child: usize,
}

/// A leaf reached by a descent, with its validated header.
#[derive(Debug)]
pub(crate) struct LeafHandle {
    pub(crate) page_no: PageNo,
    pub(crate) page: PageRef,
    pub(crate) header: LeafHeader,
}

impl LeafHandle {
    pub(crate) fn view(&self) -> TableLeaf<'_> {
        TableLeaf::with_header(&self.page, self.page_no, self.header)
    }

    fn load<S: PageRead + ?Sized>(store: &S, page_no: PageNo) -> Result<LeafHandle> {
        LeafHandle::of(page_no, store.page(page_no)?)
    }

    fn of(page_no: PageNo, page: PageRef) -> Result<LeafHandle> {
        let header = LeafHeader::read(&page, page_no)?;
        Ok(LeafHandle {
            page_no,
            page,
            header,
        })
    }
}

/// Walks from `root` to a leaf, recording the interior steps in `path` if given.
pub(crate) fn descend<S: PageRead + ?Sized>(
    store: &S,
    root: PageNo,
    target: Target,
    path: Option<&mut Vec<Step>>,
) -> Result<LeafHandle> {
    descend_through(store, root, target, path, None)
}

/// [`descend`], reusing the interior pages that `remembered` kept from earlier descents
/// (and keeping the ones it fetches).
fn descend_through<S: PageRead + ?Sized>(
    store: &S,
    root: PageNo,
    target: Target,
    mut path: Option<&mut Vec<Step>>,
    mut remembered: Option<&mut RememberedPages>,
) -> Result<LeafHandle> {
    if let Some(remembered) = remembered.as_deref_mut() {
        remembered.begin(store);
    }
    let mut page_no = root;
    for _ in 0..MAX_DEPTH {
        let kept = remembered
            .as_deref()
            .and_then(|remembered| remembered.get(page_no));
        let (child, fetched) = match kept {
            Some(page) => (interior_child(page, page_no, target)?, None),
            None => {
                let page = store.page(page_no)?;
                if page.first() == Some(&kind::TABLE_LEAF) {
                    let header = LeafHeader::read(&page, page_no)?;
                    return Ok(LeafHandle {
                        page_no,
                        page,
                        header,
                    });
                }
                (interior_child(&page, page_no, target)?, Some(page))
            }
        };
        if let Some(path) = path.as_deref_mut() {
            path.push(Step {
                page: page_no,
                child: child.index,
            });
        }
        if let (Some(page), Some(remembered)) = (fetched, remembered.as_deref_mut()) {
            remembered.keep(page_no, page);
        }
        page_no = child.page_no;
    }
    Err(StorageError::corrupt_page(
        root,
        format!("table tree deeper than {MAX_DEPTH} levels (a pointer cycle?)"),
    ))
}

/// The child a descent for `target` takes from interior page `page_no`.
struct Child {
    index: usize,
    page_no: PageNo,
}

fn interior_child(page: &[u8], page_no: PageNo, target: Target) -> Result<Child> {
    if page.first() != Some(&kind::TABLE_INTERIOR) {
        return Err(StorageError::corrupt_page(
            page_no,
            format!("expected a table tree page, found kind {:?}", page.first()),
        ));
    }
    let view = TableInterior::new(page, page_no)?;
    let index = match target {
        Target::RowId(row_id) => view.child_index(row_id),
        Target::First => 0,
        Target::Last => view.key_count(),
    };
    Ok(Child {
        index,
        page_no: view.checked_child(index)?,
    })
}

/// A position in a table tree. See the module documentation.
pub struct TableCursor<S: PageRead> {
    store: S,
    root: PageNo,
    current: Option<(LeafHandle, usize)>,
    /// The store's generation ([`PageRead::generation`]) when the cursor last walked the
    /// tree (a seek or a step to a sibling leaf): see [`TableCursor::is_stale`].
    walked_at: Option<u64>,
    /// Interior pages of earlier seeks, for the next ones.
    remembered: RememberedPages,
    /// The current leaf's right sibling, fetched ahead by [`TableCursor::fetch_next_leaf`],
    /// with the store's generation then: the step right uses it only while both still hold.
    ahead: Option<(PageNo, PageRef, Option<u64>)>,
}

impl<S: PageRead> std::fmt::Debug for TableCursor<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableCursor")
            .field("root", &self.root)
            .field("leaf", &self.current.as_ref().map(|(leaf, _)| leaf.page_no))
            .field(
                "position",
                &self.current.as_ref().map(|(_, position)| *position),
            )
            .finish()
    }
}

impl<S: PageRead> TableCursor<S> {
    /// A cursor over the tree rooted at `root`, not yet positioned.
    pub(crate) fn new(store: S, root: PageNo) -> Self {
        TableCursor {
            store,
            root,
            current: None,
            walked_at: None,
            remembered: RememberedPages::default(),
            ahead: None,
        }
    }

    /// Fetches the current leaf's right sibling from the store now, so that the step onto it
    /// finds it at hand, and returns its bytes, so that the caller can ask the CPU to load
    /// them while it works on this leaf (a scan that spends long on each leaf, as an exact
    /// vector search does, then rarely waits for memory at a step). `None` at the last leaf,
    /// for a store that cannot promise its pages stay put (no generation), or when the page
    /// cannot be read (the step reports that error).
    pub fn fetch_next_leaf(&mut self) -> Option<&[u8]> {
        let next = self.current.as_ref()?.0.header.next_leaf;
        let generation = self.store.generation();
        if next == 0 || generation.is_none() {
            return None;
        }
        let page = self.store.page(next).ok()?;
        let (_, page, _) = self.ahead.insert((next, page, generation));
        Some(&page[..])
    }

    /// Whether the store may have changed since the cursor reached its current leaf (a
    /// statement's rows still being read while its transaction writes). The leaf it holds
    /// is then an old image: its sibling links and the overflow pages of its rows may name
    /// pages that were split, merged, freed or reused since. The caller must not step or
    /// read values from such a position but seek again by row id. False for a store
    /// without a generation (one that cannot change while the cursor borrows it).
    pub fn is_stale(&self) -> bool {
        matches!((self.walked_at, self.store.generation()), (Some(then), Some(now)) if then != now)
    }

    /// Positions at `leaf[position]`, moving right across leaves if `position` is past the
    /// end. Returns whether the cursor is valid.
    fn settle_forward(&mut self, mut leaf: LeafHandle, position: usize) -> Result<bool> {
        if position < leaf.header.row_count {
            self.current = Some((leaf, position));
            return Ok(true);
        }
        self.current = None;
        let next = leaf.header.next_leaf;
        if next == 0 {
            return Ok(false);
        }
        let from = leaf.page_no;
        self.walked_at = self.store.generation();
        leaf = match self.ahead.take() {
            Some((page_no, page, generation))
                if page_no == next && generation == self.walked_at =>
            {
                LeafHandle::of(page_no, page)?
            }
            _ => LeafHandle::load(&self.store, next)?,
        };
        if leaf.header.prev_leaf != from {
            return Err(StorageError::corrupt_page(
                next,
                format!("left link is {}, expected {from}", leaf.header.prev_leaf),
            ));
        }
        if leaf.header.row_count == 0 {
            return Err(StorageError::corrupt_page(
                next,
                "empty leaf in the leaf chain",
            ));
        }
        self.current = Some((leaf, 0));
        Ok(true)
    }

    /// Positions at the last row of the leaf left of `leaf`. Returns whether valid.
    fn settle_backward(&mut self, leaf: LeafHandle) -> Result<bool> {
        self.current = None;
        let prev = leaf.header.prev_leaf;
        if prev == 0 {
            return Ok(false);
        }
        let from = leaf.page_no;
        self.walked_at = self.store.generation();
        let leaf = LeafHandle::load(&self.store, prev)?;
        if leaf.header.next_leaf != from {
            return Err(StorageError::corrupt_page(
                prev,
                format!("right link is {}, expected {from}", leaf.header.next_leaf),
            ));
        }
        let Some(position) = leaf.header.row_count.checked_sub(1) else {
            return Err(StorageError::corrupt_page(
                prev,
                "empty leaf in the leaf chain",
            ));
        };
        self.current = Some((leaf, position));
        Ok(true)
    }

    /// Walks to the leaf for `target`, reusing what the last walk fetched where it can.
    fn descend(&mut self, target: Target) -> Result<LeafHandle> {
        self.walked_at = self.store.generation();
        descend_through(
            &self.store,
            self.root,
            target,
            None,
            Some(&mut self.remembered),
        )
    }

    /// Moves to the first row with id `>= row_id`. Returns whether that row has id
    /// `row_id` exactly; the cursor may be invalid afterwards (no such row).
    pub fn seek_ge(&mut self, row_id: i64) -> Result<bool> {
        let leaf = self.descend(Target::RowId(row_id))?;
        match leaf.view().search(row_id) {
            Ok(position) => {
                self.current = Some((leaf, position));
                Ok(true)
            }
            Err(position) => {
                self.settle_forward(leaf, position)?;
                Ok(false)
            }
        }
    }

    /// Moves to the last row with id `<= row_id`. Returns whether that row has id `row_id`
    /// exactly; the cursor may be invalid afterwards (no such row).
    pub fn seek_le(&mut self, row_id: i64) -> Result<bool> {
        let leaf = self.descend(Target::RowId(row_id))?;
        match leaf.view().search(row_id) {
            Ok(position) => {
                self.current = Some((leaf, position));
                Ok(true)
            }
            Err(0) => {
                self.settle_backward(leaf)?;
                Ok(false)
            }
            Err(position) => {
                self.current = Some((leaf, position - 1));
                Ok(false)
            }
        }
    }

    /// Moves to the first row. Returns false if the tree is empty.
    pub fn first(&mut self) -> Result<bool> {
        let leaf = self.descend(Target::First)?;
        self.settle_forward(leaf, 0)
    }

    /// Moves to the last row. Returns false if the tree is empty.
    pub fn last(&mut self) -> Result<bool> {
        let leaf = self.descend(Target::Last)?;
        match leaf.header.row_count.checked_sub(1) {
            Some(position) => {
                self.current = Some((leaf, position));
                Ok(true)
            }
            None => self.settle_backward(leaf),
        }
    }

    /// Moves to the next row. Returns whether the cursor is still valid.
    // Not `Iterator::next`: moving is fallible and yields no item; values are read in place.
    #[allow(
        clippy::should_implement_trait,
        reason = "a cursor step can fail and returns no item; it is not an Iterator"
    )]
    pub fn next(&mut self) -> Result<bool> {
        match self.current.take() {
            Some((leaf, position)) => self.settle_forward(leaf, position + 1),
            None => Ok(false),
        }
    }

    /// Moves to the previous row. Returns whether the cursor is still valid.
    pub fn prev(&mut self) -> Result<bool> {
        match self.current.take() {
            Some((leaf, 0)) => self.settle_backward(leaf),
            Some((leaf, position)) => {
                self.current = Some((leaf, position - 1));
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Moves to the first row of the next leaf (for leaf-at-a-time scans). Returns whether
    /// there is one.
    pub fn next_leaf(&mut self) -> Result<bool> {
        match self.current.take() {
            Some((leaf, _)) => {
                let end = leaf.header.row_count;
                self.settle_forward(leaf, end)
            }
            None => Ok(false),
        }
    }

    /// Whether the cursor is on a row.
    pub fn is_valid(&self) -> bool {
        self.current.is_some()
    }

    /// The current row id, `None` if the cursor is not on a row.
    pub fn row_id(&self) -> Option<i64> {
        self.current
            .as_ref()
            .map(|(leaf, position)| leaf.view().row_id(*position))
    }

    /// Columns of the current leaf (a table that gained columns later may have more; those
    /// read as NULL). 0 if the cursor is not on a row.
    pub fn column_count(&self) -> usize {
        self.current
            .as_ref()
            .map_or(0, |(leaf, _)| leaf.header.column_count)
    }

    /// The current leaf, for reading whole column arrays.
    pub fn leaf(&self) -> Option<TableLeaf<'_>> {
        self.current.as_ref().map(|(leaf, _)| leaf.view())
    }

    /// Position of the current row within [`TableCursor::leaf`] (0 if not on a row).
    pub fn position(&self) -> usize {
        self.current.as_ref().map_or(0, |(_, position)| *position)
    }

    /// Column `column` of the current row as stored (overflow values not read).
    pub fn value_ref(&self, column: usize) -> Result<ValueRef<'_>> {
        match &self.current {
            Some((leaf, position)) => leaf.view().value(*position, column),
            None => Err(StorageError::InvalidArgument(
                "cursor is not on a row".into(),
            )),
        }
    }

    /// Column `column` of the current row, reading an overflow chain if needed.
    pub fn value(&self, column: usize) -> Result<Value<'_>> {
        self.value_at(self.position(), column)
    }

    /// Column `column` of row `position` of the current leaf, reading an overflow chain if
    /// needed (for scans that read a leaf's rows in bulk).
    pub fn value_at(&self, position: usize, column: usize) -> Result<Value<'_>> {
        let Some((leaf, _)) = &self.current else {
            return Err(StorageError::InvalidArgument(
                "cursor is not on a row".into(),
            ));
        };
        Ok(match leaf.view().value(position, column)? {
            ValueRef::Null => Value::Null,
            ValueRef::Fixed(value) => Value::Fixed(value),
            ValueRef::Var(bytes) => Value::Bytes(Cow::Borrowed(bytes)),
            ValueRef::Overflow {
                first_page,
                total_len,
                prefix,
            } => Value::Bytes(Cow::Owned(read_value(
                &self.store,
                prefix,
                first_page,
                total_len,
            )?)),
        })
    }

    /// Moves `rows` rows forward within the leaf; past its end, to the first row of the next
    /// leaf. Returns whether the cursor is still valid.
    pub fn advance(&mut self, rows: usize) -> Result<bool> {
        match self.current.take() {
            Some((leaf, position)) => self.settle_forward(leaf, position + rows),
            None => Ok(false),
        }
    }
}
