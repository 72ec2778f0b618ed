//! The HNSW access method: pgvector's approximate nearest-neighbour index over one vector
//! column, `CREATE INDEX ... USING hnsw (emb vector_cosine_ops) WITH (m = 16,
//! ef_construction = 64)`.
//!
//! # What
//!
//! The graph algorithms ([`graph`]) run over a graph in the database's own pages
//! ([`page`]), so the index commits and rolls back with the rows and readers see it at their
//! snapshot. CREATE INDEX, REINDEX and VACUUM build the graph in memory ([`memory`]) from the
//! table's rows and write it in one pass; INSERT and UPDATE add a node per new vector.
//!
//! # Deletes are lazy
//!
//! DELETE, and an UPDATE that changes a row's vector, leave the old node in the graph (it
//! still routes searches). A search therefore checks every candidate against the row at the
//! reader's snapshot — the row must exist and hold exactly the node's vector — and returns
//! each row once (`exec/operators/vector_scan.rs`). So a deleted or changed row never comes
//! back from a search, and no row-id-to-node map is needed. VACUUM rebuilds the graph from
//! the rows, which drops stale nodes and reclaims their space; REINDEX does the same.
//!
//! # Guarantees kept with the other methods
//!
//! An HNSW index is never unique and has no key order: `ordered` refuses it, its probe
//! answers only `contains` (for the integrity check), and ANALYZE counts its nodes. NULL
//! vectors are not indexed. Its entry for a row is the row id and the vector's bytes.

pub mod graph;
pub mod memory;
pub mod page;

/// Seeded clustered vectors for the graph tests.
#[cfg(test)]
pub(crate) mod test_data {
    /// `count` vectors near `centres` random centres (xorshift from `seed`), each coordinate
    /// of a centre in [-1, 1) and of a vector within 0.15 of its centre's.
    pub fn clustered(count: usize, dimensions: usize, centres: usize, seed: u64) -> Vec<Vec<f32>> {
        let mut state = seed.max(1);
        let mut next = move || {
            state = super::graph::xorshift(state);
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let centres: Vec<Vec<f32>> = (0..centres.max(1))
            .map(|_| (0..dimensions).map(|_| next() * 2.0 - 1.0).collect())
            .collect();
        (0..count)
            .map(|i| {
                centres[i % centres.len()]
                    .iter()
                    .map(|c| c + (next() - 0.5) * 0.3)
                    .collect()
            })
            .collect()
    }
}

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use crate::catalog::IndexDef;
use crate::exec::error::{ExecError, ExecResult};
use crate::sqlstate;
use crate::storage::{PageNo, PageRead, PageWrite, StorageError};
use crate::types::Value;
use crate::types::vector::kernels::Metric;

use super::{IndexAm, IndexEntry, IndexProbe, KeyStatistics, StoredRow};
use graph::Parameters;
use page::PageGraph;

/// Defaults of `m` and `ef_construction` (pgvector's).
pub const DEFAULT_M: usize = 16;
pub const DEFAULT_EF_CONSTRUCTION: usize = 64;

/// An HNSW index: its definition and the parameters its options give.
#[derive(Debug, Clone, Copy)]
pub struct HnswIndex<'d> {
    index: &'d IndexDef,
    metric: Metric,
    parameters: Parameters,
}

impl<'d> HnswIndex<'d> {
    pub fn new(index: &'d IndexDef, metric: Metric) -> HnswIndex<'d> {
        let option = |name: &str, default: usize| {
            index
                .options
                .iter()
                .find(|(option, _)| option == name)
                .and_then(|(_, value)| value.parse().ok())
                .unwrap_or(default)
        };
        HnswIndex {
            index,
            metric,
            parameters: Parameters {
                m: option("m", DEFAULT_M),
                ef_construction: option("ef_construction", DEFAULT_EF_CONSTRUCTION),
            },
        }
    }

    /// The indexed column (position in the table).
    pub fn column(&self) -> usize {
        self.index.columns.first().map_or(0, |(column, _)| *column)
    }

    /// The graph, read through `store`.
    pub fn graph<S: PageRead>(&self, store: S) -> ExecResult<PageGraph<S>> {
        PageGraph::open(store, self.index.root)
    }

    /// The indexed vector of a row's values, `None` for NULL.
    fn vector<'v>(&self, values: &'v [Value]) -> Option<&'v [f32]> {
        match values.get(self.column()) {
            Some(Value::Vector(elements)) => Some(elements),
            _ => None,
        }
    }

    /// Builds the graph of `rows` into the empty index at `root`.
    fn build_into<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        root: PageNo,
        rows: &[(i64, Vec<Value>)],
    ) -> ExecResult<()> {
        let vectors = rows
            .iter()
            .filter_map(|(row_id, values)| Some((*row_id, self.vector(values)?)));
        let (built, state) = PageGraph::open(&*txn, root)?.build_from(vectors)?;
        PageGraph::open(&mut *txn, root)?.write_memory_graph(&built, state)
    }
}

/// An entry: the row id (8 bytes, little-endian), then the vector's bytes (none for NULL).
fn encode_entry(row_id: i64, vector: Option<&[f32]>) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + vector.map_or(0, |v| v.len() * 4));
    key.extend_from_slice(&row_id.to_le_bytes());
    if let Some(vector) = vector {
        crate::types::vector::to_le_bytes(vector, &mut key);
    }
    key
}

/// An entry's row id and vector (`None` for a NULL vector).
fn decode_entry(key: &[u8]) -> ExecResult<(i64, Option<Vec<f32>>)> {
    let (row_id, rest) = key
        .split_first_chunk::<8>()
        .ok_or_else(|| ExecError::internal("short hnsw entry"))?;
    let row_id = i64::from_le_bytes(*row_id);
    if rest.is_empty() {
        return Ok((row_id, None));
    }
    let mut vector = Vec::new();
    if !crate::types::vector::decode_le_bytes(rest, &mut vector) {
        return Err(ExecError::internal("hnsw entry is not whole f32s"));
    }
    Ok((row_id, Some(vector)))
}

/// A row's identity in the graph for the integrity check: its row id and a hash of its
/// vector's bits.
fn fingerprint(row_id: i64, vector: &[f32]) -> (i64, u64) {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for value in vector {
        value.to_bits().hash(&mut hasher);
    }
    (row_id, hasher.finish())
}

impl IndexAm for HnswIndex<'_> {
    type Probe<S: PageRead> = HnswProbe<S>;

    fn create<W: PageWrite + ?Sized>(&self, txn: &mut W) -> ExecResult<PageNo> {
        page::create(txn, self.metric, self.parameters)
    }

    fn entry(&self, values: &[Value], row_id: i64) -> IndexEntry {
        IndexEntry {
            key: encode_entry(row_id, self.vector(values)),
            unique_len: None,
            hint: std::cell::Cell::new(None),
        }
    }

    fn unique_key(&self, _values: &[Value]) -> Option<Vec<u8>> {
        None
    }

    fn lookup_column(&self, _column: usize, _value: &Value, _out: &mut Vec<u8>) {
        // No key lookups: the binder plans none over an unordered method.
    }

    fn check_fits(&self, entry: &IndexEntry, usable_size: usize) -> ExecResult<()> {
        let dimensions = entry.key.len().saturating_sub(8) / 4;
        if dimensions == 0 {
            return Ok(());
        }
        page::check_fits(self.parameters, dimensions, usable_size)
    }

    fn build<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        rows: &[(i64, Vec<Value>)],
    ) -> ExecResult<()> {
        self.build_into(txn, self.index.root, rows)
    }

    fn insert<W: PageWrite + ?Sized>(&self, txn: &mut W, entry: &IndexEntry) -> ExecResult<()> {
        let (row_id, vector) = decode_entry(&entry.key)?;
        if let Some(vector) = vector {
            PageGraph::open(&mut *txn, self.index.root)?.append(row_id, &vector)?;
        }
        Ok(())
    }

    fn delete<W: PageWrite + ?Sized>(
        &self,
        _txn: &mut W,
        _values: &[Value],
        _row_id: i64,
    ) -> ExecResult<bool> {
        // Lazy (see the module comment): searches check candidates against the rows.
        Ok(true)
    }

    fn update<W: PageWrite + ?Sized>(
        &self,
        txn: &mut W,
        old: (&[Value], i64),
        new: (&[Value], i64),
    ) -> ExecResult<bool> {
        let unchanged = old.1 == new.1
            && match (self.vector(old.0), self.vector(new.0)) {
                (Some(a), Some(b)) => {
                    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
                }
                (None, None) => true,
                _ => false,
            };
        if unchanged {
            return Ok(false);
        }
        self.insert(txn, &self.entry(new.0, new.1))?;
        Ok(true)
    }

    fn destroy<W: PageWrite + ?Sized>(&self, txn: &mut W) -> ExecResult<()> {
        let pages = self.graph(&*txn)?.pages()?;
        for page in pages {
            txn.free_page(page)?;
        }
        Ok(())
    }

    fn copy_into<S: PageRead + ?Sized, W: PageWrite + ?Sized>(
        &self,
        source: &S,
        target: &mut W,
    ) -> ExecResult<PageNo> {
        // VACUUM rebuilds an HNSW index from the rows instead (`rebuilds_from_rows`); a copy
        // of every node, stale ones included, is the fallback.
        let graph = PageGraph::open(source, self.index.root)?;
        let mut nodes = Vec::new();
        graph.for_each_node(|_, row_id, vector| {
            nodes.push((row_id, vector.to_vec()));
            Ok(true)
        })?;
        let root = page::create(target, self.metric, self.parameters)?;
        let (built, state) = PageGraph::open(&*target, root)?.build_from(
            nodes
                .iter()
                .map(|(row_id, vector)| (*row_id, vector.as_slice())),
        )?;
        PageGraph::open(&mut *target, root)?.write_memory_graph(&built, state)?;
        Ok(root)
    }

    fn rebuilds_from_rows(&self) -> bool {
        true
    }

    fn probe<S: PageRead>(&self, store: S) -> HnswProbe<S> {
        HnswProbe {
            store,
            root: self.index.root,
            column: self.column(),
            rows: None,
        }
    }

    fn check_pages<S: PageRead + ?Sized>(
        &self,
        store: &S,
    ) -> crate::storage::Result<HashSet<PageNo>> {
        let as_storage = |error: ExecError| StorageError::corrupt(error.message);
        let graph = PageGraph::open(store, self.index.root).map_err(as_storage)?;
        // Every node decodes, and every link names a node on the layer it links.
        let mut levels = std::collections::HashMap::new();
        graph
            .for_each_node(|node, _, _| {
                let mut scratch = Vec::new();
                let (_, level) = graph.read_node(node, &mut scratch)?;
                levels.insert(node, level);
                Ok(true)
            })
            .map_err(as_storage)?;
        let mut neighbors = Vec::new();
        for (&node, &level) in &levels {
            for layer in 0..=level {
                graph::GraphRead::neighbors(&graph, node, layer, &mut neighbors)
                    .map_err(as_storage)?;
                for neighbor in &neighbors {
                    if levels.get(neighbor).is_none_or(|l| *l < layer) {
                        return Err(StorageError::corrupt(format!(
                            "hnsw index {}: a link to {neighbor:#x} on layer {layer} names no node there",
                            self.index.name
                        )));
                    }
                }
            }
        }
        if let Some((entry, level)) = graph.meta().entry
            && levels.get(&entry) != Some(&level)
        {
            return Err(StorageError::corrupt(format!(
                "hnsw index {}: its entry point is not a node of its level",
                self.index.name
            )));
        }
        Ok(graph.pages().map_err(as_storage)?.into_iter().collect())
    }

    fn verify_entries<S: PageRead>(
        &self,
        _store: S,
        _row: impl FnMut(i64) -> ExecResult<StoredRow>,
        _problem: impl FnMut(String) -> bool,
    ) -> ExecResult<()> {
        // A node whose row is gone or changed is stale by design (lazy deletes), not damage;
        // that every row has its node is checked through the probe, and the links by
        // `check_pages`.
        Ok(())
    }

    fn key_statistics<S: PageRead>(&self, store: S) -> ExecResult<KeyStatistics> {
        Ok(KeyStatistics {
            entries: self.graph(store)?.meta().nodes,
            distinct_prefixes: Vec::new(),
        })
    }
}

/// The HNSW index's probe: only `contains`, for the integrity check, answered from a set of
/// the graph's (row id, vector) fingerprints built at the first call.
#[derive(Debug)]
pub struct HnswProbe<S: PageRead> {
    store: S,
    root: PageNo,
    column: usize,
    rows: Option<HashSet<(i64, u64)>>,
}

impl<S: PageRead> IndexProbe for HnswProbe<S> {
    fn rows_with_prefix(
        &mut self,
        _prefix: &[u8],
        _each: impl FnMut(i64) -> ExecResult<bool>,
    ) -> ExecResult<Option<PageNo>> {
        Err(ExecError::new(
            sqlstate::FEATURE_NOT_SUPPORTED,
            "an hnsw index has no key lookups",
        ))
    }

    fn contains(&mut self, entry: &IndexEntry) -> ExecResult<bool> {
        let _ = self.column;
        let (row_id, vector) = decode_entry(&entry.key)?;
        let Some(vector) = vector else {
            return Ok(true); // NULL vectors are not indexed.
        };
        if self.rows.is_none() {
            let mut rows = HashSet::new();
            PageGraph::open(&self.store, self.root)?.for_each_node(|_, row_id, vector| {
                rows.insert(fingerprint(row_id, vector));
                Ok(true)
            })?;
            self.rows = Some(rows);
        }
        Ok(self
            .rows
            .as_ref()
            .is_some_and(|rows| rows.contains(&fingerprint(row_id, &vector))))
    }
}
