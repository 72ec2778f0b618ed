//! Index access methods: the one interface through which the executor reaches an index.
//!
//! # What
//!
//! Every path that reads or writes an index goes through [`IndexAm`]: INSERT, UPDATE and
//! DELETE keep entries in step with rows; unique checks, upserts and foreign keys (and
//! their cascades) look rows up by key; CREATE INDEX builds in bulk; REINDEX builds afresh
//! and destroys the old storage; DROP destroys; VACUUM copies; ANALYZE counts distinct key
//! prefixes; the integrity check walks the pages and compares entries with rows. An
//! index's definition chooses its implementation in one place, [`IndexAccess::of`], by its
//! [`IndexMethod`]. The B+tree ([`BTreeIndex`], over `storage::btree::IndexTree`) is the
//! first method.
//!
//! # Guarantees
//!
//! * Callers hand the method a row's column values and row id, never a key they encoded
//!   themselves: what an index holds for a row is computed in one place per method, so
//!   the writer, CREATE INDEX, REINDEX and the integrity check cannot disagree about it.
//! * Dispatch is static: [`IndexAccess`] is an enum with one variant per method, and a
//!   handle is two words built on the stack, so the per-row write path pays a `match`, not
//!   an allocation or a virtual call.
//! * Writes go through `PageWrite`, reads through `PageRead`, so an index changes inside
//!   the caller's transaction and rolls back with it, like the table.
//!
//! # How a method plugs in
//!
//! A method is a type implementing [`IndexAm`] (and its [`IndexProbe`]), a variant of
//! [`IndexAccess`] and of [`AnyProbe`] with one arm per operation, an [`IndexMethod`]
//! variant with its SQL name and options (`catalog`), and a method byte in the catalog
//! entry. Its `WITH (...)` options reach it as text through [`IndexDef::options`].
//!
//! Only an *ordered* method can serve key ranges, ORDER BY and index joins: scans reach
//! that capability through [`IndexAccess::ordered`], which the B+tree has. A method without
//! a key order — a vector index (HNSW) or a full-text index (BM25) — implements the
//! same row-level operations (its [`IndexEntry`] is then, for instance, the vector's bytes
//! and the row id), answers `ordered` with an error (the optimizer never plans a range over
//! it), never offers uniqueness (CREATE UNIQUE INDEX refuses it; its entries have no unique
//! key), reports no key-prefix statistics, and is searched through an access path of its
//! own (a top-k scan) rather than through [`IndexProbe`]'s prefix lookups, which the
//! binder only plans over ordered methods.
//!
//! # Where it lives
//!
//! In `exec`, not `storage` or `catalog`: it maps SQL values of a row (`types::Value`,
//! through `operators::encode_key_value`) to entries and reads catalog definitions, which the
//! storage layer below must not know, and it runs inside the executor's transactions.

mod btree;
pub mod fts;
mod hnsw;

use std::cell::Cell;
use std::collections::HashSet;

use crate::catalog::{IndexDef, IndexMethod};
use crate::storage::{PageNo, PageRead, PageWrite};
use crate::types::Value;

use super::error::ExecResult;

pub use btree::{BTreeIndex, BTreeProbe};
pub use fts::{FtsIndex, FtsProbe};
pub use hnsw::{HnswIndex, HnswProbe};

/// A row's entry in one index, as its method derives it from the row's values.
#[derive(Debug)]
pub struct IndexEntry {
    /// What the index stores for the row (for the B+tree, the key columns' memcomparable
    /// encoding followed by the row id).
    key: Vec<u8>,
    /// Length of the leading part a unique index may hold only once (the key columns),
    /// `None` when a NULL among them means the entry never collides.
    unique_len: Option<usize>,
    /// Where the lookup of this entry's unique key ended, so the insert that follows starts
    /// there ([`IndexProbe::rows_with_prefix`] returns it; set through a shared reference).
    hint: Cell<Option<PageNo>>,
}

impl IndexEntry {
    /// The part a unique index holds once, if the entry can collide (no NULL in it).
    pub fn unique_key(&self) -> Option<&[u8]> {
        self.unique_len.and_then(|len| self.key.get(..len))
    }

    /// Notes where a lookup of [`IndexEntry::unique_key`] ended, for the insert.
    pub fn set_hint(&self, hint: Option<PageNo>) {
        self.hint.set(hint);
    }
}

/// What the table holds for the row id an index entry names (see
/// [`IndexAm::verify_entries`]).
#[derive(Debug)]
pub enum StoredRow {
    /// No such row.
    Missing,
    /// The row exists but cannot be decoded (reported by the check of the table itself).
    Unreadable,
    /// The row's values, in table column order.
    Values(Vec<Value>),
}

/// What ANALYZE learns from an index's keys.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyStatistics {
    /// Entries in the index.
    pub entries: u64,
    /// Distinct values of the first 1, 2, … key columns; empty for a method without
    /// ordered key columns.
    pub distinct_prefixes: Vec<u64>,
}

/// The operations of an index access method; one value of it is a handle on one index.
///
/// Entries are computed from row values ([`IndexAm::entry`]); lookups by the leading key
/// columns go through a [`IndexProbe`] kept across lookups (a statement's unique checks,
/// a join's seeks).
pub trait IndexAm {
    /// The method's lookup of entries by key.
    type Probe<S: PageRead>: IndexProbe;

    /// Allocates fresh, empty storage for the index and returns its root page, which the
    /// caller records in the definition (CREATE INDEX, REINDEX). The definition's current
    /// root is not read.
    fn create<W: PageWrite + ?Sized>(&self, txn: &mut W) -> ExecResult<PageNo>;

    /// Row `row_id`'s entry, from its values in table column order.
    fn entry(&self, values: &[Value], row_id: i64) -> IndexEntry;

    /// What a unique index may hold once for `values` (without the row id), or `None` when
    /// a NULL means it never collides. Equal to the `unique_key` of their [`IndexEntry`].
    fn unique_key(&self, values: &[Value]) -> Option<Vec<u8>>;

    /// Appends to `out` key column `column`'s part (`column` counts the index's key columns)
    /// of a lookup key for `value`. The lookup key for rows whose leading key columns equal
    /// some values is their parts in index order: the `prefix` of
    /// [`IndexProbe::rows_with_prefix`]. Built a column at a time so that a caller converting
    /// each value first (a foreign key's referenced type) needs no list of them.
    fn lookup_column(&self, column: usize, value: &Value, out: &mut Vec<u8>);

    /// Replaces `out` with the lookup key for rows whose leading key columns equal
    /// `values`, one per key column in index order (fewer is a prefix).
    fn lookup_key<'v>(&self, values: impl IntoIterator<Item = &'v Value>, out: &mut Vec<u8>) {
        out.clear();
        for (column, value) in values.into_iter().enumerate() {
            self.lookup_column(column, value, out);
        }
    }

    /// Fails with the storage layer's 54000 if `entry` cannot be stored in pages of
    /// `usable_size` bytes, so a writer can check every entry before its first write.
    fn check_fits(&self, entry: &IndexEntry, usable_size: usize) -> ExecResult<()>;

    /// Fills the empty index with an entry per row (in any order); a unique index fails with
    /// 23505 when two rows share a key without NULLs.
    fn build<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        rows: &[(i64, Vec<Value>)],
    ) -> ExecResult<()>;

    /// Adds `entry` (uniqueness already checked by the caller), starting where its probe
    /// ended when that proves to be its place.
    fn insert<W: PageWrite + ?Sized>(&self, txn: &mut W, entry: &IndexEntry) -> ExecResult<()>;

    /// Removes row `row_id`'s entry (computed from `values`); whether it was there.
    fn delete<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        values: &[Value],
        row_id: i64,
    ) -> ExecResult<bool>;

    /// Moves a row's entry from its `old` values and row id to its `new` ones; does nothing
    /// (and returns false) when the entry does not change.
    fn update<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        old: (&[Value], i64),
        new: (&[Value], i64),
    ) -> ExecResult<bool>;

    /// Whether VACUUM rebuilds this index from the table's rows (with `create` and `build`)
    /// rather than copying its storage (`copy_into`): an HNSW graph, whose stale nodes only
    /// the rows can tell apart.
    fn rebuilds_from_rows(&self) -> bool {
        false
    }

    /// Frees all the index's storage (DROP, REINDEX of the old storage).
    fn destroy<W: PageWrite + ?Sized>(&self, txn: &mut W) -> ExecResult<()>;

    /// Copies the index as `source` holds it into fresh storage in `target`, exactly and
    /// densely (VACUUM); returns the new root page.
    fn copy_into<S: PageRead + ?Sized, W: PageWrite + ?Sized>(
        &self,
        source: &S,
        target: &mut W,
    ) -> ExecResult<PageNo>;

    /// A lookup over `store`, kept across lookups.
    fn probe<S: PageRead>(&self, store: S) -> Self::Probe<S>;

    /// The structural check of the index's storage; every page it owns.
    fn check_pages<S: PageRead + ?Sized>(
        &self,
        store: &S,
    ) -> crate::storage::Result<HashSet<PageNo>>;

    /// The integrity check of entries against rows: each stored entry must name a row
    /// (`row` looks it up) whose entry it is, and a unique index must hold no unique key
    /// twice. Each problem goes to `problem`, which returns whether it wants more.
    fn verify_entries<S: PageRead>(
        &self,
        store: S,
        row: impl FnMut(i64) -> ExecResult<StoredRow>,
        problem: impl FnMut(String) -> bool,
    ) -> ExecResult<()>;

    /// Entries and distinct key prefixes, for ANALYZE.
    fn key_statistics<S: PageRead>(&self, store: S) -> ExecResult<KeyStatistics>;
}

/// Lookups of an index by its leading key columns.
pub trait IndexProbe {
    /// Calls `each` with the row id of every entry whose key starts with `prefix` (from
    /// [`IndexAm::lookup_key`] or [`IndexEntry::unique_key`]), in key order, until it returns
    /// false. Returns where the lookup ended, a hint for inserting a key with that prefix
    /// ([`IndexEntry::set_hint`]).
    fn rows_with_prefix(
        &mut self,
        prefix: &[u8],
        each: impl FnMut(i64) -> ExecResult<bool>,
    ) -> ExecResult<Option<PageNo>>;

    /// Whether the index holds `entry`.
    fn contains(&mut self, entry: &IndexEntry) -> ExecResult<bool>;
}

/// An index, through the implementation of its method.
#[derive(Debug, Clone, Copy)]
pub enum IndexAccess<'d> {
    BTree(BTreeIndex<'d>),
    Hnsw(HnswIndex<'d>),
    Fts(FtsIndex<'d>),
}

impl<'d> IndexAccess<'d> {
    /// The implementation of `index`'s method: the one place a definition chooses it.
    pub fn of(index: &'d IndexDef) -> IndexAccess<'d> {
        match index.method {
            IndexMethod::BTree => IndexAccess::BTree(BTreeIndex::new(index)),
            IndexMethod::Hnsw(metric) => IndexAccess::Hnsw(HnswIndex::new(index, metric)),
            IndexMethod::Fts => IndexAccess::Fts(FtsIndex::new(index)),
        }
    }

    /// The index as an ordered method, for key ranges and ORDER BY. A method without a key
    /// order will answer 0A000 (`sqlstate::FEATURE_NOT_SUPPORTED`) here; the optimizer
    /// never plans a range over one.
    pub fn ordered(&self) -> ExecResult<&BTreeIndex<'d>> {
        match self {
            IndexAccess::BTree(tree) => Ok(tree),
            IndexAccess::Hnsw(_) | IndexAccess::Fts(_) => Err(super::error::ExecError::new(
                crate::sqlstate::FEATURE_NOT_SUPPORTED,
                "an hnsw or fts index has no key order",
            )),
        }
    }
}

/// A lookup through the implementation of an index's method.
#[derive(Debug)]
pub enum AnyProbe<S: PageRead> {
    BTree(BTreeProbe<S>),
    Hnsw(HnswProbe<S>),
    Fts(FtsProbe<S>),
}

/// Runs `$body` with `$method` bound to the implementation behind an [`IndexAccess`].
macro_rules! dispatch {
    ($access:expr, $method:ident => $body:expr) => {
        match $access {
            IndexAccess::BTree($method) => $body,
            IndexAccess::Hnsw($method) => $body,
            IndexAccess::Fts($method) => $body,
        }
    };
}

impl IndexAm for IndexAccess<'_> {
    type Probe<S: PageRead> = AnyProbe<S>;

    fn create<W: PageWrite + ?Sized>(&self, txn: &mut W) -> ExecResult<PageNo> {
        dispatch!(self, method => method.create(txn))
    }

    fn entry(&self, values: &[Value], row_id: i64) -> IndexEntry {
        dispatch!(self, method => method.entry(values, row_id))
    }

    fn unique_key(&self, values: &[Value]) -> Option<Vec<u8>> {
        dispatch!(self, method => method.unique_key(values))
    }

    fn lookup_column(&self, column: usize, value: &Value, out: &mut Vec<u8>) {
        dispatch!(self, method => method.lookup_column(column, value, out))
    }

    fn check_fits(&self, entry: &IndexEntry, usable_size: usize) -> ExecResult<()> {
        dispatch!(self, method => method.check_fits(entry, usable_size))
    }

    fn build<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        rows: &[(i64, Vec<Value>)],
    ) -> ExecResult<()> {
        dispatch!(self, method => method.build(txn, rows))
    }

    fn insert<W: PageWrite + ?Sized>(&self, txn: &mut W, entry: &IndexEntry) -> ExecResult<()> {
        dispatch!(self, method => method.insert(txn, entry))
    }

    fn delete<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        values: &[Value],
        row_id: i64,
    ) -> ExecResult<bool> {
        dispatch!(self, method => method.delete(txn, values, row_id))
    }

    fn update<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        old: (&[Value], i64),
        new: (&[Value], i64),
    ) -> ExecResult<bool> {
        dispatch!(self, method => method.update(txn, old, new))
    }

    fn destroy<W: PageWrite + ?Sized>(&self, txn: &mut W) -> ExecResult<()> {
        dispatch!(self, method => method.destroy(txn))
    }

    fn rebuilds_from_rows(&self) -> bool {
        dispatch!(self, method => method.rebuilds_from_rows())
    }

    fn copy_into<S: PageRead + ?Sized, W: PageWrite + ?Sized>(
        &self,
        source: &S,
        target: &mut W,
    ) -> ExecResult<PageNo> {
        dispatch!(self, method => method.copy_into(source, target))
    }

    fn probe<S: PageRead>(&self, store: S) -> AnyProbe<S> {
        match self {
            IndexAccess::BTree(method) => AnyProbe::BTree(method.probe(store)),
            IndexAccess::Hnsw(method) => AnyProbe::Hnsw(method.probe(store)),
            IndexAccess::Fts(method) => AnyProbe::Fts(method.probe(store)),
        }
    }

    fn check_pages<S: PageRead + ?Sized>(
        &self,
        store: &S,
    ) -> crate::storage::Result<HashSet<PageNo>> {
        dispatch!(self, method => method.check_pages(store))
    }

    fn verify_entries<S: PageRead>(
        &self,
        store: S,
        row: impl FnMut(i64) -> ExecResult<StoredRow>,
        problem: impl FnMut(String) -> bool,
    ) -> ExecResult<()> {
        dispatch!(self, method => method.verify_entries(store, row, problem))
    }

    fn key_statistics<S: PageRead>(&self, store: S) -> ExecResult<KeyStatistics> {
        dispatch!(self, method => method.key_statistics(store))
    }
}

impl<S: PageRead> IndexProbe for AnyProbe<S> {
    fn rows_with_prefix(
        &mut self,
        prefix: &[u8],
        each: impl FnMut(i64) -> ExecResult<bool>,
    ) -> ExecResult<Option<PageNo>> {
        match self {
            AnyProbe::BTree(probe) => probe.rows_with_prefix(prefix, each),
            AnyProbe::Hnsw(probe) => probe.rows_with_prefix(prefix, each),
            AnyProbe::Fts(probe) => probe.rows_with_prefix(prefix, each),
        }
    }

    fn contains(&mut self, entry: &IndexEntry) -> ExecResult<bool> {
        match self {
            AnyProbe::BTree(probe) => probe.contains(entry),
            AnyProbe::Hnsw(probe) => probe.contains(entry),
            AnyProbe::Fts(probe) => probe.contains(entry),
        }
    }
}
