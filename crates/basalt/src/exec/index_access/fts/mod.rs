//! The full-text access method: an inverted index over text columns, `CREATE INDEX ... ON
//! t USING fts (body) WITH (stemmer = english, stopwords = english)`, searched by
//! `fts_match` and ranked by `bm25_score`. An index over several columns (`USING fts
//! (title, body)`) indexes one document per row, their texts together (`fts_match((title,
//! body), query)`): the columns' words numbered `COLUMN_GAP` apart, so no phrase spans two.
//!
//! # What
//!
//! The index is one B+tree in the database's own pages ([`format`] gives its entries): per
//! term, its document count and blocks of postings (row, tf, document length, positions);
//! per row, its document length; and the corpus's document count and total length. So it
//! commits and rolls back with the rows, readers see it at their snapshot, and the WAL
//! carries it through a crash like every other page. INSERT, UPDATE and DELETE change it in
//! place ([`write`]); CREATE INDEX, REINDEX and VACUUM build it in one sorted bulk load.
//!
//! Searches ([`search`]) answer exactly what a scan with the same analyzer answers: the rows
//! a query matches, the corpus statistics BM25 needs (so `bm25_score` need not scan the
//! table), and the top k rows by BM25 through block-max WAND.
//!
//! # Guarantees kept with the other methods
//!
//! A full-text index is never unique and has no key order: `ordered` refuses it, its probe
//! answers only `contains` (for the integrity check). NULL values are not documents (a row whose
//! indexed columns are all NULL; a NULL among texts adds no words). Its entry for a row is
//! the row id and the texts; the terms are computed from the texts by the index's analyzer
//! (its `WITH` options) whenever the entry is written or removed, so a row's postings are
//! always those of its current texts.

pub mod build;
pub mod deferred;
pub mod format;
pub mod read;
pub mod search;
#[cfg(test)]
mod skip_tests;
pub mod write;

use std::collections::HashSet;
use std::rc::Rc;

use crate::catalog::IndexDef;
use crate::exec::error::{ExecError, ExecResult};
use crate::sqlstate;
use crate::storage::btree::IndexTree;
use crate::storage::{PageNo, PageRead, PageWrite};
use crate::types::Value;
use crate::types::text_search::{Analyzer, Token};

use super::{IndexAm, IndexEntry, IndexProbe, KeyStatistics, StoredRow};
use format::{Posting, TermInfo, corrupt};
use read::FtsReader;

/// A full-text index: its definition.
#[derive(Debug, Clone, Copy)]
pub struct FtsIndex<'d> {
    index: &'d IndexDef,
    tree: IndexTree,
}

/// An index's analyzer options as one text (`stemmer = 'english', stopwords = 'a, b'`), the
/// form `Analyzer::from_option_text` and `fts_terms` read.
pub fn analyzer_options(index: &IndexDef) -> String {
    index
        .options
        .iter()
        .map(|(name, value)| format!("{name} = '{value}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `index` indexes exactly `columns` (table positions, sorted): a document of those
/// columns' texts is the one it holds, whatever order a call names them in.
pub fn indexes_exactly(index: &IndexDef, columns: &[usize]) -> bool {
    let mut indexed: Vec<usize> = index.columns.iter().map(|(c, _)| *c).collect();
    indexed.sort_unstable();
    indexed == columns
}

impl<'d> FtsIndex<'d> {
    pub fn new(index: &'d IndexDef) -> FtsIndex<'d> {
        FtsIndex {
            index,
            tree: IndexTree::open(index.root),
        }
    }

    /// The indexed columns (positions in the table), in the index's order.
    pub fn columns(&self) -> impl Iterator<Item = usize> + '_ {
        self.index.columns.iter().map(|(column, _)| *column)
    }

    /// The index's analyzer.
    pub fn analyzer(&self) -> ExecResult<Rc<Analyzer>> {
        Ok(crate::types::text_search::analyzer::cached(
            &analyzer_options(self.index),
        )?)
    }

    /// A read handle on the index through `store`.
    pub fn reader<S: PageRead + Clone>(&self, store: S) -> FtsReader<S> {
        FtsReader::new(self.tree, store)
    }

    /// The indexed texts of a row's values, in the index's order: `None` for NULL (or a
    /// value of another type).
    fn texts<'v>(&self, values: &'v [Value]) -> Vec<Option<&'v str>> {
        self.columns()
            .map(|column| match values.get(column) {
                Some(Value::Text(text)) => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The document of `texts`, `None` when every text is NULL (no document).
    fn tokens(&self, texts: &[Option<&str>]) -> ExecResult<Option<Vec<Token>>> {
        let mut tokens = Vec::new();
        let any = self
            .analyzer()?
            .analyze_texts(texts.iter().copied(), &mut tokens);
        Ok(any.then_some(tokens))
    }
}

/// An entry: the row id (8 bytes, big-endian), then per indexed column 0 for NULL, or 1, the
/// text's length (4 bytes, big-endian) and the text.
fn decode_entry(key: &[u8]) -> ExecResult<(i64, Vec<Option<&str>>)> {
    let bad = || ExecError::internal("a full-text index entry is malformed");
    let row = i64::from_be_bytes(
        key.get(..8)
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or_else(bad)?,
    );
    let (mut texts, mut rest) = (Vec::new(), key.get(8..).unwrap_or_default());
    while let Some((&flag, after)) = rest.split_first() {
        match flag {
            0 => {
                texts.push(None);
                rest = after;
            }
            1 => {
                let length = after
                    .get(..4)
                    .and_then(|bytes| bytes.try_into().ok())
                    .map(u32::from_be_bytes)
                    .ok_or_else(bad)? as usize;
                let text = after.get(4..4 + length).ok_or_else(bad)?;
                texts.push(Some(std::str::from_utf8(text).map_err(|_| bad())?));
                rest = &after[4 + length..];
            }
            _ => return Err(bad()),
        }
    }
    Ok((row, texts))
}

impl IndexAm for FtsIndex<'_> {
    type Probe<S: PageRead> = FtsProbe<S>;

    fn create<W: PageWrite + ?Sized>(&self, txn: &mut W) -> ExecResult<PageNo> {
        Ok(IndexTree::create(txn)?.root())
    }

    fn entry(&self, values: &[Value], row_id: i64) -> IndexEntry {
        let texts = self.texts(values);
        let mut key = Vec::with_capacity(
            8 + texts
                .iter()
                .map(|text| 5 + text.map_or(0, str::len))
                .sum::<usize>(),
        );
        key.extend_from_slice(&row_id.to_be_bytes());
        for text in texts {
            match text {
                // A text longer than 4 GiB cannot be stored in a row either.
                Some(text) => {
                    key.push(1);
                    key.extend_from_slice(&(text.len() as u32).to_be_bytes());
                    key.extend_from_slice(text.as_bytes());
                }
                None => key.push(0),
            }
        }
        IndexEntry {
            key,
            unique_len: None,
            hint: std::cell::Cell::new(None),
        }
    }

    fn unique_key(&self, _values: &[Value]) -> Option<Vec<u8>> {
        None
    }

    fn lookup_column(&self, _column: usize, _value: &Value, _out: &mut Vec<u8>) {}

    fn check_fits(&self, _entry: &IndexEntry, _usable_size: usize) -> ExecResult<()> {
        // Terms are stored truncated past `format::MAX_TERM_BYTES` and blocks split to fit.
        Ok(())
    }

    fn build<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        rows: &[(i64, Vec<Value>)],
    ) -> ExecResult<()> {
        deferred::merge_pending(txn)?;
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_unstable_by_key(|&i| rows[i].0);
        // Each build thread analyzes with its own analyzer (analyzers are per thread).
        let options = analyzer_options(self.index);
        let columns: Vec<usize> = self.columns().collect();
        let analyze = |i: usize, sink: &mut dyn FnMut(&str, u32)| -> ExecResult<Option<i64>> {
            let Some((row, values)) = order.get(i).and_then(|&at| rows.get(at)) else {
                return Err(ExecError::internal("a full-text index build lost a row"));
            };
            let texts = columns.iter().map(|&column| match values.get(column) {
                Some(Value::Text(text)) => Some(text.as_str()),
                _ => None,
            });
            let analyzer = crate::types::text_search::analyzer::cached(&options)?;
            Ok(analyzer.each_term_of_texts(texts, sink).then_some(*row))
        };
        let entries = build::build_entries(rows.len(), build::RUN, analyze, txn.usable_size())?;
        self.tree.bulk_load(txn, entries)?;
        Ok(())
    }

    /// Puts the document off until the transaction next reads a full-text index or commits
    /// ([`deferred`]), when the writer allows; else adds it at once.
    fn insert<W: PageWrite + ?Sized>(&self, txn: &mut W, entry: &IndexEntry) -> ExecResult<()> {
        if deferred::defer(
            txn,
            self.index.root,
            || analyzer_options(self.index),
            &entry.key,
        )? {
            return Ok(());
        }
        let (row, texts) = decode_entry(&entry.key)?;
        if let Some(tokens) = self.tokens(&texts)? {
            write::add_document(self.tree, txn, row, &tokens)?;
        }
        Ok(())
    }

    fn delete<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        values: &[Value],
        row_id: i64,
    ) -> ExecResult<bool> {
        deferred::merge_pending(txn)?;
        match self.tokens(&self.texts(values))? {
            Some(tokens) => write::remove_document(self.tree, txn, row_id, &tokens),
            None => Ok(true),
        }
    }

    fn update<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        old: (&[Value], i64),
        new: (&[Value], i64),
    ) -> ExecResult<bool> {
        if old.1 == new.1 && self.texts(old.0) == self.texts(new.0) {
            return Ok(false);
        }
        self.delete(txn, old.0, old.1)?;
        self.insert(txn, &self.entry(new.0, new.1))?;
        Ok(true)
    }

    fn destroy<W: PageWrite + ?Sized>(&self, txn: &mut W) -> ExecResult<()> {
        // Merged first, so a rollback to a savepoint before the drop finds them again.
        deferred::merge_pending(txn)?;
        Ok(self.tree.destroy(txn)?)
    }

    fn copy_into<S: PageRead + ?Sized, W: PageWrite + ?Sized>(
        &self,
        source: &S,
        target: &mut W,
    ) -> ExecResult<PageNo> {
        super::btree::copy_tree(self.tree, source, target)
    }

    fn probe<S: PageRead>(&self, store: S) -> FtsProbe<S> {
        FtsProbe {
            store,
            tree: self.tree,
            options: analyzer_options(self.index),
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
        let reader = self.reader(&store);
        let analyzer = self.analyzer()?;
        // Each document entry names a row whose text has that length.
        let mut documents = HashSet::new();
        let (mut total_length, mut tokens) = (0u64, Vec::new());
        let mut cursor = self.tree.cursor(&store);
        cursor.seek_ge(&[format::TAG_DOCUMENT])?;
        while cursor.is_valid() && cursor.key().first() == Some(&format::TAG_DOCUMENT) {
            let row_id = crate::storage::keys::decode_row_id(cursor.key())
                .map_err(|_| corrupt("document key"))?;
            let length = format::Reader::new(cursor.value()).varint()?;
            documents.insert(row_id);
            total_length += length;
            let actual = match row(row_id)? {
                StoredRow::Values(values) => {
                    tokens.clear();
                    analyzer
                        .analyze_texts(self.texts(&values), &mut tokens)
                        .then_some(tokens.len() as u64)
                }
                StoredRow::Missing | StoredRow::Unreadable => None,
            };
            if actual != Some(length)
                && !problem(format!(
                    "index {name}: document {row_id} does not match its row's texts"
                ))
            {
                return Ok(());
            }
            cursor.next()?;
        }
        let (count, total) = reader.stats()?;
        if (count, total) != (documents.len() as u64, total_length)
            && !problem(format!(
                "index {name}: its statistics ({count} documents, {total} tokens) differ from \
                 its documents ({}, {total_length})",
                documents.len()
            ))
        {
            return Ok(());
        }
        // Each term's postings name indexed documents, as many as its entry counts.
        cursor.seek_ge(&[format::TAG_POSTINGS])?;
        while cursor.is_valid() && cursor.key().first() == Some(&format::TAG_POSTINGS) {
            let Some(term) = format::term_of_key(cursor.key())?.map(str::to_owned) else {
                cursor.next()?;
                continue;
            };
            let info = TermInfo::decode(cursor.value())?;
            if let Some(wrong) = reader.skips_problem(&term)?
                && !problem(format!("index {name}: \"{term}\": {wrong}"))
            {
                return Ok(());
            }
            let mut postings = reader.term_postings(&term)?;
            postings.start()?;
            let mut count = 0u64;
            while let Some(posting) = postings.current() {
                count += 1;
                if (!documents.contains(&posting.row)
                    || posting.tf > info.max_tf
                    || posting.length < info.min_length)
                    && !problem(format!(
                        "index {name}: a posting of \"{term}\" names row {} wrongly",
                        posting.row
                    ))
                {
                    return Ok(());
                }
                postings.next()?;
            }
            if count != info.documents
                && !problem(format!(
                    "index {name}: \"{term}\" has {count} postings, its entry says {}",
                    info.documents
                ))
            {
                return Ok(());
            }
            cursor.next()?;
        }
        Ok(())
    }

    fn key_statistics<S: PageRead>(&self, store: S) -> ExecResult<KeyStatistics> {
        Ok(KeyStatistics {
            entries: self.reader(&store).stats()?.0,
            distinct_prefixes: Vec::new(),
        })
    }
}

/// The full-text index's probe: only `contains`, for the integrity check: the row's
/// document entry and every one of its postings are there, as its text gives them.
#[derive(Debug)]
pub struct FtsProbe<S: PageRead> {
    store: S,
    tree: IndexTree,
    options: String,
}

impl<S: PageRead> IndexProbe for FtsProbe<S> {
    fn rows_with_prefix(
        &mut self,
        _prefix: &[u8],
        _each: impl FnMut(i64) -> ExecResult<bool>,
    ) -> ExecResult<Option<PageNo>> {
        Err(ExecError::new(
            sqlstate::FEATURE_NOT_SUPPORTED,
            "a full-text index has no key lookups",
        ))
    }

    fn contains(&mut self, entry: &IndexEntry) -> ExecResult<bool> {
        let (row, texts) = decode_entry(&entry.key)?;
        let mut tokens = Vec::new();
        if !crate::types::text_search::analyzer::cached(&self.options)?
            .analyze_texts(texts, &mut tokens)
        {
            return Ok(true); // NULL is not a document.
        }
        let length = tokens.len() as u64;
        match self.tree.get(&self.store, &format::document_key(row))? {
            Some(value) if format::Reader::new(&value).varint()? == length => {}
            _ => return Ok(false),
        }
        let reader = FtsReader::new(self.tree, &self.store);
        for (term, positions) in write::group_terms(&tokens).iter() {
            let mut postings = reader.term_postings(term)?;
            postings.start()?;
            postings.advance_to(row)?;
            let found = match postings.current() {
                Some(Posting { row: at, tf, .. }) if *at == row => {
                    let mut stored = Vec::new();
                    postings.positions(&mut stored)?;
                    *tf as usize == positions.len() && stored == positions
                }
                _ => false,
            };
            if !found {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
