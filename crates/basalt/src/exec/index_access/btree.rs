//! The B+tree access method: an index as an ordered `storage::btree::IndexTree`.
//!
//! An entry is the key columns' memcomparable encoding (`storage::keys`, each column in its
//! own ASC/DESC and NULLS order) followed by the row id, with an empty value, so every
//! entry is distinct and `memcmp` order is the index's SQL order. A unique index's unique
//! key is the entry less its row id: rows sharing it sit next to each other, so a probe is
//! one seek and a run of `starts_with`, and a bulk build spots duplicates in its sorted
//! input. The ordered cursor ([`BTreeIndex::cursor`]) is the capability key-range scans,
//! ORDER BY and index joins rely on.

use std::collections::HashSet;

use crate::catalog::IndexDef;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::operators::encode_key_value;
use crate::exec::vacuum::until_error;
use crate::sqlstate;
use crate::storage::btree::{IndexCursor, IndexTree};
use crate::storage::{PageNo, PageRead, PageWrite, keys};
use crate::types::Value;

use super::{IndexAm, IndexEntry, IndexProbe, KeyStatistics, StoredRow};

/// A B+tree index: its definition and its tree.
#[derive(Debug, Clone, Copy)]
pub struct BTreeIndex<'d> {
    index: &'d IndexDef,
    tree: IndexTree,
}

impl<'d> BTreeIndex<'d> {
    /// The B+tree of `index` (at its root; nothing is read yet).
    pub fn new(index: &'d IndexDef) -> BTreeIndex<'d> {
        BTreeIndex {
            index,
            tree: IndexTree::open(index.root),
        }
    }

    /// An ordered cursor over the entries, reading through `store`.
    pub fn cursor<S: PageRead>(&self, store: S) -> IndexCursor<S> {
        self.tree.cursor(store)
    }

    /// Appends the key columns of `values` (table column order) to `key`; whether one is
    /// NULL.
    fn encode_columns(&self, values: &[Value], key: &mut Vec<u8>) -> bool {
        let mut has_null = false;
        for (column, order) in &self.index.columns {
            let value = values.get(*column).unwrap_or(&Value::Null);
            has_null |= value.is_null();
            encode_key_value(value, *order, key);
        }
        has_null
    }

    /// A buffer sized for `values`' key (a tag and eight bytes per number, the bytes plus a
    /// tag and terminator per string) and `extra` bytes: growing from empty cost three
    /// reallocations per key on the write path.
    fn key_buffer(&self, values: &[Value], extra: usize) -> Vec<u8> {
        let capacity: usize = self
            .index
            .columns
            .iter()
            .map(|(column, _)| match values.get(*column) {
                Some(Value::Text(text)) => text.len() + 4,
                Some(Value::Blob(bytes)) => bytes.len() + 4,
                _ => 9,
            })
            .sum();
        Vec::with_capacity(capacity + extra)
    }
}

fn corrupt(error: impl ToString) -> ExecError {
    ExecError::new(sqlstate::DATA_CORRUPTED, error.to_string())
}

impl IndexAm for BTreeIndex<'_> {
    type Probe<S: PageRead> = BTreeProbe<S>;

    fn create<W: PageWrite + ?Sized>(&self, txn: &mut W) -> ExecResult<PageNo> {
        Ok(IndexTree::create(txn)?.root())
    }

    fn entry(&self, values: &[Value], row_id: i64) -> IndexEntry {
        let mut key = self.key_buffer(values, 9);
        let has_null = self.encode_columns(values, &mut key);
        let unique_len = (!has_null).then_some(key.len());
        keys::encode_row_id(row_id, &mut key);
        IndexEntry {
            key,
            unique_len,
            hint: std::cell::Cell::new(None),
        }
    }

    fn unique_key(&self, values: &[Value]) -> Option<Vec<u8>> {
        let mut key = self.key_buffer(values, 0);
        (!self.encode_columns(values, &mut key)).then_some(key)
    }

    fn lookup_column(&self, column: usize, value: &Value, out: &mut Vec<u8>) {
        // Past the key columns there is nothing to match: the key stays a whole prefix.
        if let Some((_, order)) = self.index.columns.get(column) {
            encode_key_value(value, *order, out);
        }
    }

    fn check_fits(&self, entry: &IndexEntry, usable_size: usize) -> ExecResult<()> {
        Ok(IndexTree::check_entry_fits(usable_size, &entry.key, &[])?)
    }

    fn build<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        rows: &[(i64, Vec<Value>)],
    ) -> ExecResult<()> {
        let mut entries: Vec<IndexEntry> = rows
            .iter()
            .map(|(row_id, values)| self.entry(values, *row_id))
            .collect();
        entries.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        if self.index.unique {
            for pair in entries.windows(2) {
                if pair[0].unique_key().is_some() && pair[0].unique_key() == pair[1].unique_key() {
                    return Err(ExecError::new(
                        sqlstate::UNIQUE_VIOLATION,
                        format!(
                            "could not create unique index \"{}\": duplicate keys exist",
                            self.index.name
                        ),
                    ));
                }
            }
        }
        self.tree.bulk_load(
            txn,
            entries.into_iter().map(|entry| (entry.key, Vec::new())),
        )?;
        Ok(())
    }

    fn insert<W: PageWrite + ?Sized>(&self, txn: &mut W, entry: &IndexEntry) -> ExecResult<()> {
        self.tree
            .insert_near(txn, entry.hint.get(), &entry.key, &[])?;
        Ok(())
    }

    fn delete<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        values: &[Value],
        row_id: i64,
    ) -> ExecResult<bool> {
        let entry = self.entry(values, row_id);
        Ok(self.tree.delete(txn, &entry.key)?)
    }

    fn update<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        (old, old_row_id): (&[Value], i64),
        (new, new_row_id): (&[Value], i64),
    ) -> ExecResult<bool> {
        let old = self.entry(old, old_row_id);
        let new = self.entry(new, new_row_id);
        if old.key == new.key {
            return Ok(false);
        }
        self.tree.delete(txn, &old.key)?;
        self.tree.insert(txn, &new.key, &[])?;
        Ok(true)
    }

    fn destroy<W: PageWrite + ?Sized>(&self, txn: &mut W) -> ExecResult<()> {
        Ok(self.tree.destroy(txn)?)
    }

    fn copy_into<S: PageRead + ?Sized, W: PageWrite + ?Sized>(
        &self,
        source: &S,
        target: &mut W,
    ) -> ExecResult<PageNo> {
        copy_tree(self.tree, source, target)
    }

    fn probe<S: PageRead>(&self, store: S) -> BTreeProbe<S> {
        BTreeProbe {
            cursor: self.tree.cursor(store),
        }
    }

    fn check_pages<S: PageRead + ?Sized>(
        &self,
        store: &S,
    ) -> crate::storage::Result<HashSet<PageNo>> {
        self.tree.check_pages(store).map(|(_, pages)| pages)
    }

    fn verify_entries<S: PageRead>(
        &self,
        store: S,
        mut row: impl FnMut(i64) -> ExecResult<StoredRow>,
        mut problem: impl FnMut(String) -> bool,
    ) -> ExecResult<()> {
        let name = &self.index.name;
        let mut entries = self.tree.cursor(store);
        // The previous entry's unique key, if it had one: equal keys are adjacent.
        let mut previous_unique: Option<Vec<u8>> = None;
        let mut valid = entries.first()?;
        let mut wanted = true;
        while valid && wanted {
            let stored = entries.key();
            match keys::decode_row_id(stored) {
                Err(error) => {
                    wanted = problem(format!("index {name}: an entry has no row id: {error}"));
                }
                Ok(row_id) => match row(row_id)? {
                    StoredRow::Missing => {
                        wanted = problem(format!(
                            "index {name}: entry for row {row_id}, which table {} does not have",
                            self.index.table
                        ));
                    }
                    StoredRow::Unreadable => {}
                    StoredRow::Values(values) => {
                        let expected = self.entry(&values, row_id);
                        if expected.key != stored {
                            wanted = problem(format!(
                                "index {name}: the entry for row {row_id} does not match the row"
                            ));
                        } else if self.index.unique {
                            let unique = expected.unique_key();
                            if unique.is_some() && previous_unique.as_deref() == unique {
                                wanted = problem(format!(
                                    "index {name}: duplicate key in a UNIQUE index (row {row_id})"
                                ));
                            }
                            previous_unique = unique.map(<[u8]>::to_vec);
                        }
                    }
                },
            }
            valid = entries.next()?;
        }
        Ok(())
    }

    /// Walks the index in key order; a prefix of `k` columns is new whenever its bytes
    /// differ from the previous entry's first `k` columns.
    fn key_statistics<S: PageRead>(&self, store: S) -> ExecResult<KeyStatistics> {
        let width = self.index.columns.len();
        let mut distinct = vec![0u64; width];
        let mut entries = 0u64;
        let mut previous: Vec<u8> = Vec::new();
        let mut previous_ends: Vec<usize> = Vec::new();
        let mut ends = Vec::with_capacity(width);
        let mut cursor = self.tree.cursor(store);
        let mut valid = cursor.first()?;
        while valid {
            let key = cursor.key();
            ends.clear();
            let mut offset = 0;
            for (_, order) in &self.index.columns {
                let rest = key.get(offset..).unwrap_or_default();
                offset += keys::skip_value(rest, *order).map_err(corrupt)?;
                ends.push(offset);
            }
            // Once a shorter prefix differs, every longer one does too.
            let mut changed = entries == 0;
            for (columns, end) in ends.iter().enumerate() {
                changed = changed
                    || previous_ends.get(columns) != Some(end)
                    || previous.get(..*end) != key.get(..*end);
                if changed {
                    distinct[columns] += 1;
                }
            }
            entries += 1;
            previous.clear();
            previous.extend_from_slice(key.get(..offset).unwrap_or_default());
            std::mem::swap(&mut previous_ends, &mut ends);
            valid = cursor.next()?;
        }
        Ok(KeyStatistics {
            entries,
            distinct_prefixes: distinct,
        })
    }
}

/// Lookups in a B+tree index: one cursor, reused (its pinned leaf and descent) from one
/// lookup to the next.
#[derive(Debug)]
pub struct BTreeProbe<S: PageRead> {
    cursor: IndexCursor<S>,
}

impl<S: PageRead> IndexProbe for BTreeProbe<S> {
    fn rows_with_prefix(
        &mut self,
        prefix: &[u8],
        mut each: impl FnMut(i64) -> ExecResult<bool>,
    ) -> ExecResult<Option<PageNo>> {
        self.cursor.seek_ge(prefix)?;
        // The leaf the seek ended on is where a key with this prefix goes.
        let hint = self.cursor.leaf_page();
        while self.cursor.is_valid() && self.cursor.key().starts_with(prefix) {
            let row_id = keys::decode_row_id(self.cursor.key()).map_err(corrupt)?;
            if !each(row_id)? {
                break;
            }
            self.cursor.next()?;
        }
        Ok(hint)
    }

    fn contains(&mut self, entry: &IndexEntry) -> ExecResult<bool> {
        Ok(self.cursor.seek_ge(&entry.key)?)
    }
}

/// Copies the index tree `tree` as `source` holds it into a fresh tree in `target`, exactly
/// and densely (VACUUM); returns the copy's root. Entries move as stored bytes, in key order,
/// into a bulk load: nothing is decoded, so the copy is exact whatever the entries hold.
pub(super) fn copy_tree<S: PageRead + ?Sized, W: PageWrite + ?Sized>(
    tree: IndexTree,
    source: &S,
    target: &mut W,
) -> ExecResult<PageNo> {
    let copy = IndexTree::create(target)?;
    let mut cursor = tree.cursor(source);
    let mut valid = cursor.first()?;
    let mut failure = None;
    let entries = until_error(&mut failure, || {
        if !valid {
            return Ok(None);
        }
        let entry = (cursor.key().to_vec(), cursor.value().to_vec());
        valid = cursor.next()?;
        Ok(Some(entry))
    });
    copy.bulk_load(target, entries)?;
    if let Some(error) = failure {
        return Err(error.into());
    }
    Ok(copy.root())
}
