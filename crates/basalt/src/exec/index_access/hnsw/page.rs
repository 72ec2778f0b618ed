//! An HNSW graph in database pages: a meta page (the index's root) and a chain of element
//! pages holding node records, read through `PageRead` and changed through `PageWrite`, so
//! the graph lives in the caller's transaction — it commits and rolls back with the rows,
//! readers see it at their snapshot, and the WAL makes it survive a crash.
//!
//! # Layout (little-endian)
//!
//! Meta page: page kind 7 and `HNS` (4 bytes), format version 1 (u8), metric (u8: 0 L2, 1 negative inner
//! product, 2 cosine, 3 L1), m (u16), ef_construction (u16), dimensions (u16), has-entry (u8),
//! entry level (u8), 2 zero bytes, entry node (u64), first element page (u32), last element
//! page (u32), node count (u64), level-draw state (u64, a xorshift state, so levels are
//! reproducible and need no clock or global random source).
//!
//! Element page: page kind 8 and `HNE` (4 bytes), next element page (u32, 0 at the end of the chain), end of
//! the used bytes (u16), node count (u16), then node records back to back. A record never
//! moves once written, so a node is addressed by its page and byte offset, packed into a
//! `NodeId` as `page << 16 | offset`.
//!
//! Node record: row id (i64), level (u8), 3 zero bytes, the vector (dimensions × f32), then
//! for each layer 0 to level: a neighbour count (u16) and room for the layer's most
//! neighbours (2m on layer 0, m above), each a page (u32) and an offset (u16).
//!
//! What it guarantees: every read checks the magic numbers and bounds and reports damage as a
//! corrupt page (never a panic or an out-of-bounds read); writes keep each list within its
//! room.

use std::cell::RefCell;

use crate::exec::error::{ExecError, ExecResult};
use crate::storage::{PageNo, PageRead, PageWrite, StorageError};
use crate::types::vector::kernels::Metric;

use super::graph::{self, GraphRead, GraphWrite, NodeId, Parameters, Query};
use super::memory::MemoryGraph;

/// The first four bytes of a meta page: its page kind, then `HNS`.
const META_MAGIC: &[u8; 4] = &[crate::storage::page::kind::HNSW_META, b'H', b'N', b'S'];
/// The first four bytes of an element page: its page kind, then `HNE`.
const ELEMENT_MAGIC: &[u8; 4] = &[crate::storage::page::kind::HNSW_ELEMENTS, b'H', b'N', b'E'];
const FORMAT_VERSION: u8 = 1;
const ELEMENT_HEADER: usize = 12;
const RECORD_HEADER: usize = 12;
const NEIGHBOR_BYTES: usize = 6;

/// What the meta page records.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    pub metric: Metric,
    pub parameters: Parameters,
    pub dimensions: usize,
    pub entry: Option<(NodeId, usize)>,
    pub first_page: PageNo,
    pub last_page: PageNo,
    pub nodes: u64,
    pub level_state: u64,
}

fn metric_byte(metric: Metric) -> u8 {
    match metric {
        Metric::L2 => 0,
        Metric::NegativeInnerProduct => 1,
        Metric::Cosine => 2,
        Metric::L1 => 3,
    }
}

fn metric_of(byte: u8) -> Option<Metric> {
    Some(match byte {
        0 => Metric::L2,
        1 => Metric::NegativeInnerProduct,
        2 => Metric::Cosine,
        3 => Metric::L1,
        _ => return None,
    })
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

fn put(bytes: &mut [u8], at: usize, value: &[u8]) -> ExecResult<()> {
    bytes
        .get_mut(at..at + value.len())
        .ok_or_else(|| ExecError::internal("HNSW write past the end of a page"))?
        .copy_from_slice(value);
    Ok(())
}

fn node_id(page: PageNo, offset: usize) -> NodeId {
    (u64::from(page) << 16) | offset as u64
}

fn split(node: NodeId) -> (PageNo, usize) {
    ((node >> 16) as PageNo, (node & 0xFFFF) as usize)
}

impl Meta {
    fn decode(root: PageNo, bytes: &[u8]) -> ExecResult<Meta> {
        let damaged =
            |what: &str| StorageError::corrupt_page(root, format!("HNSW meta page: {what}"));
        if bytes.get(..4) != Some(META_MAGIC.as_slice()) || bytes.get(4) != Some(&FORMAT_VERSION) {
            return Err(damaged("bad magic or version").into());
        }
        let metric = bytes
            .get(5)
            .and_then(|byte| metric_of(*byte))
            .ok_or_else(|| damaged("unknown metric"))?;
        let field16 = |at| {
            u16_at(bytes, at)
                .map(usize::from)
                .ok_or_else(|| damaged("short"))
        };
        let m = field16(6)?;
        let ef_construction = field16(8)?;
        let dimensions = field16(10)?;
        let has_entry = bytes.get(12).copied().ok_or_else(|| damaged("short"))? != 0;
        let entry_level = usize::from(bytes.get(13).copied().ok_or_else(|| damaged("short"))?);
        let entry_node = u64_at(bytes, 16).ok_or_else(|| damaged("short"))?;
        if m < 2 {
            return Err(damaged("bad parameters").into());
        }
        Ok(Meta {
            metric,
            parameters: Parameters { m, ef_construction },
            dimensions,
            entry: has_entry.then_some((entry_node, entry_level)),
            first_page: u32_at(bytes, 24).ok_or_else(|| damaged("short"))?,
            last_page: u32_at(bytes, 28).ok_or_else(|| damaged("short"))?,
            nodes: u64_at(bytes, 32).ok_or_else(|| damaged("short"))?,
            level_state: u64_at(bytes, 40).ok_or_else(|| damaged("short"))?,
        })
    }

    fn encode(&self, bytes: &mut [u8]) -> ExecResult<()> {
        let narrow = |value: usize| {
            u16::try_from(value).map_err(|_| ExecError::internal("HNSW parameter too large"))
        };
        put(bytes, 0, META_MAGIC)?;
        put(bytes, 4, &[FORMAT_VERSION, metric_byte(self.metric)])?;
        put(bytes, 6, &narrow(self.parameters.m)?.to_le_bytes())?;
        put(
            bytes,
            8,
            &narrow(self.parameters.ef_construction)?.to_le_bytes(),
        )?;
        put(bytes, 10, &narrow(self.dimensions)?.to_le_bytes())?;
        let (entry, level) = self.entry.unwrap_or((0, 0));
        let level = u8::try_from(level).map_err(|_| ExecError::internal("HNSW level too high"))?;
        put(bytes, 12, &[u8::from(self.entry.is_some()), level, 0, 0])?;
        put(bytes, 16, &entry.to_le_bytes())?;
        put(bytes, 24, &self.first_page.to_le_bytes())?;
        put(bytes, 28, &self.last_page.to_le_bytes())?;
        put(bytes, 32, &self.nodes.to_le_bytes())?;
        put(bytes, 40, &self.level_state.to_le_bytes())
    }

    /// The bytes of a node record of `level`.
    pub fn record_size(&self, level: usize) -> usize {
        let lists: usize = (0..=level)
            .map(|layer| 2 + NEIGHBOR_BYTES * self.parameters.max_neighbors(layer))
            .sum();
        RECORD_HEADER + 4 * self.dimensions + lists
    }

    /// Where layer `layer`'s list starts within a record.
    fn list_offset(&self, layer: usize) -> usize {
        RECORD_HEADER
            + 4 * self.dimensions
            + (0..layer)
                .map(|l| 2 + NEIGHBOR_BYTES * self.parameters.max_neighbors(l))
                .sum::<usize>()
    }

    /// The next level from the stored xorshift state (advanced).
    fn draw_level(&mut self) -> usize {
        self.level_state = graph::xorshift(self.level_state.max(1));
        self.parameters
            .level_for(graph::unit_draw(self.level_state))
    }
}

/// Allocates the meta page of an empty index and returns it (the index's root).
pub fn create<W: PageWrite + ?Sized>(
    txn: &mut W,
    metric: Metric,
    parameters: Parameters,
) -> ExecResult<PageNo> {
    let root = txn.allocate_page()?;
    let meta = Meta {
        metric,
        parameters,
        dimensions: 0,
        entry: None,
        first_page: 0,
        last_page: 0,
        nodes: 0,
        level_state: 0x9E37_79B9_7F4A_7C15,
    };
    meta.encode(txn.page_mut(root)?)?;
    Ok(root)
}

/// Fails with 54000 when a node record of `dimensions` (with room for every level) cannot fit
/// a page of `usable_size` bytes.
pub fn check_fits(parameters: Parameters, dimensions: usize, usable_size: usize) -> ExecResult<()> {
    let meta = Meta {
        metric: Metric::L2,
        parameters,
        dimensions,
        entry: None,
        first_page: 0,
        last_page: 0,
        nodes: 0,
        level_state: 0,
    };
    if dimensions > usize::from(u16::MAX)
        || ELEMENT_HEADER + meta.record_size(graph::MAX_LEVEL) > usable_size.min(0xFFFF)
    {
        return Err(ExecError::new(
            crate::sqlstate::PROGRAM_LIMIT_EXCEEDED,
            format!(
                "an hnsw index on {dimensions} dimensions does not fit pages of {usable_size} bytes"
            ),
        ));
    }
    Ok(())
}

/// An HNSW graph in pages, read (and, over a `PageWrite`, changed) through `store`.
#[derive(Debug)]
pub struct PageGraph<S> {
    store: S,
    root: PageNo,
    meta: Meta,
    /// The vector of the node being compared, decoded from its page (reused) where the
    /// distance kernels cannot read it from the page's bytes.
    scratch: RefCell<Vec<f32>>,
    /// A second buffer, for distances between two stored nodes.
    other: RefCell<Vec<f32>>,
}

impl<S: PageRead> PageGraph<S> {
    /// Opens the graph whose meta page is `root`.
    pub fn open(store: S, root: PageNo) -> ExecResult<Self> {
        let meta = Meta::decode(root, &store.page(root)?)?;
        Ok(PageGraph {
            store,
            root,
            meta,
            scratch: RefCell::new(Vec::new()),
            other: RefCell::new(Vec::new()),
        })
    }

    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// Reads node `node`'s row id and level, and its vector into `vector`.
    pub fn read_node(&self, node: NodeId, vector: &mut Vec<f32>) -> ExecResult<(i64, usize)> {
        let page = self.store.page(split(node).0)?;
        let (row_id, level, bytes) = self.record(node, &page)?;
        vector.clear();
        crate::types::vector::append_le_bytes(bytes, vector);
        Ok((row_id, level))
    }

    /// Whether node `node` holds exactly `stored` (a table cell's vector bytes): a search
    /// checks a node against its row without decoding either.
    pub fn node_matches(&self, node: NodeId, stored: &[u8]) -> ExecResult<bool> {
        let page = self.store.page(split(node).0)?;
        let (_, _, bytes) = self.record(node, &page)?;
        Ok(bytes == stored)
    }

    /// Node `node`'s row id, level and vector bytes, from `page` (its element page), each
    /// bound checked against the page.
    fn record<'p>(&self, node: NodeId, page: &'p [u8]) -> ExecResult<(i64, usize, &'p [u8])> {
        let (page_no, offset) = split(node);
        let damaged = |what: &str| -> ExecError {
            StorageError::corrupt_page(page_no, format!("HNSW node at {offset}: {what}")).into()
        };
        if page.get(..4) != Some(ELEMENT_MAGIC.as_slice()) {
            return Err(damaged("not an element page"));
        }
        let row_id = u64_at(page, offset).ok_or_else(|| damaged("past the page"))? as i64;
        let level = usize::from(
            *page
                .get(offset + 8)
                .ok_or_else(|| damaged("past the page"))?,
        );
        let end = u16_at(page, 8).map_or(0, usize::from);
        if level > graph::MAX_LEVEL
            || offset < ELEMENT_HEADER
            || offset + self.meta.record_size(level) > end
        {
            return Err(damaged("record out of bounds"));
        }
        let start = offset + RECORD_HEADER;
        let bytes = page
            .get(start..start + 4 * self.meta.dimensions)
            .ok_or_else(|| damaged("vector past the page"))?;
        Ok((row_id, level, bytes))
    }

    /// Builds the graph of `rows` in memory, drawing levels from the meta page's state as
    /// `append` would; returns it with the advanced state, for `write_memory_graph`.
    pub fn build_from<'v>(
        self,
        rows: impl IntoIterator<Item = (i64, &'v [f32])>,
    ) -> ExecResult<(MemoryGraph, u64)> {
        let mut meta = self.meta;
        let mut built: Option<MemoryGraph> = None;
        for (row_id, vector) in rows {
            let graph = built.get_or_insert_with(|| {
                MemoryGraph::new(meta.metric, vector.len(), meta.parameters)
            });
            if vector.len() != graph.dimensions() {
                return Err(crate::types::vector::different_dimensions(
                    graph.dimensions(),
                    vector.len(),
                )
                .into());
            }
            graph.insert(row_id, vector, meta.draw_level())?;
        }
        let state = meta.level_state;
        Ok((
            built.unwrap_or_else(|| MemoryGraph::new(meta.metric, 0, meta.parameters)),
            state,
        ))
    }

    /// Calls `each(node, row id, vector)` for every node, in storage order.
    pub fn for_each_node(
        &self,
        mut each: impl FnMut(NodeId, i64, &[f32]) -> ExecResult<bool>,
    ) -> ExecResult<()> {
        let mut page_no = self.meta.first_page;
        let mut vector = Vec::new();
        let mut seen_pages = 0u64;
        while page_no != 0 {
            seen_pages += 1;
            if seen_pages > self.meta.nodes + 1 {
                return Err(StorageError::corrupt_page(page_no, "HNSW element chain loops").into());
            }
            let page = self.store.page(page_no)?;
            let end = u16_at(&page, 8).map_or(0, usize::from);
            let mut offset = ELEMENT_HEADER;
            while offset < end {
                let node = node_id(page_no, offset);
                let (row_id, level) = self.read_node(node, &mut vector)?;
                if !each(node, row_id, &vector)? {
                    return Ok(());
                }
                offset += self.meta.record_size(level);
            }
            page_no = u32_at(&page, 4).unwrap_or(0);
        }
        Ok(())
    }

    /// Every page the index owns: the meta page and the element chain.
    pub fn pages(&self) -> ExecResult<Vec<PageNo>> {
        let mut pages = vec![self.root];
        let mut page_no = self.meta.first_page;
        while page_no != 0 {
            if pages.len() as u64 > self.meta.nodes + 2 || pages.contains(&page_no) {
                return Err(StorageError::corrupt_page(page_no, "HNSW element chain loops").into());
            }
            pages.push(page_no);
            page_no = u32_at(&self.store.page(page_no)?, 4).unwrap_or(0);
        }
        Ok(pages)
    }

    /// The `k` stored nodes nearest `query` with beam width `ef`: (distance, node, row id).
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
    ) -> ExecResult<Vec<(f64, NodeId, i64)>> {
        let found = graph::search(self, query, k, ef)?;
        found
            .into_iter()
            .map(|scored| {
                let page = self.store.page(split(scored.node).0)?;
                let (row_id, _, _) = self.record(scored.node, &page)?;
                Ok((scored.distance, scored.node, row_id))
            })
            .collect()
    }
}

impl<S: PageRead> GraphRead for PageGraph<S> {
    fn entry_point(&self) -> ExecResult<Option<(NodeId, usize)>> {
        Ok(self.meta.entry)
    }

    /// Asks the CPU for the cache lines of the node's vector without waiting for them: the
    /// search prefetches all of a node's unvisited neighbours before it computes the first
    /// distance, so their misses overlap. A page that cannot be read is left to
    /// `distance_to` to report.
    fn prefetch(&self, node: NodeId) {
        let (page_no, offset) = split(node);
        let Ok(page) = self.store.page(page_no) else {
            return;
        };
        let start = offset + RECORD_HEADER;
        let end = (start + 4 * self.meta.dimensions).min(page.len());
        if let Some(bytes) = page.get(start..end) {
            crate::types::vector::prefetch(bytes);
        }
    }

    /// The distance from the node's vector bytes in its page, without decoding them.
    fn distance_to(&self, node: NodeId, query: &Query<'_>) -> ExecResult<f64> {
        let page = self.store.page(split(node).0)?;
        let (_, _, bytes) = self.record(node, &page)?;
        let mut scratch = self.scratch.borrow_mut();
        self.meta
            .metric
            .distance_to_query_le(bytes, query.values, query.norm2, &mut scratch)
            .ok_or_else(|| {
                crate::types::vector::different_dimensions(bytes.len() / 4, query.values.len())
                    .into()
            })
    }

    fn neighbors(&self, node: NodeId, level: usize, out: &mut Vec<NodeId>) -> ExecResult<()> {
        out.clear();
        let (page_no, offset) = split(node);
        let page = self.store.page(page_no)?;
        let node_level = usize::from(*page.get(offset + 8).unwrap_or(&0));
        if level > node_level {
            return Ok(());
        }
        let start = offset + self.meta.list_offset(level);
        let count = usize::from(u16_at(&page, start).unwrap_or(0));
        if count > self.meta.parameters.max_neighbors(level) {
            return Err(
                StorageError::corrupt_page(page_no, "HNSW neighbour list overflows").into(),
            );
        }
        for i in 0..count {
            let at = start + 2 + i * NEIGHBOR_BYTES;
            let (Some(neighbor_page), Some(neighbor_offset)) =
                (u32_at(&page, at), u16_at(&page, at + 4))
            else {
                return Err(StorageError::corrupt_page(
                    page_no,
                    "HNSW neighbour list past the page",
                )
                .into());
            };
            out.push(node_id(neighbor_page, usize::from(neighbor_offset)));
        }
        Ok(())
    }
}

impl<W: PageWrite + ?Sized> PageGraph<&mut W> {
    /// Fixes the graph's dimension at its first vector (later ones must match it).
    fn take_dimensions(&mut self, dimensions: usize) -> ExecResult<()> {
        if self.meta.dimensions == 0 {
            check_fits(self.meta.parameters, dimensions, self.store.usable_size())?;
            self.meta.dimensions = dimensions;
        } else if self.meta.dimensions != dimensions {
            return Err(crate::types::vector::different_dimensions(
                self.meta.dimensions,
                dimensions,
            )
            .into());
        }
        Ok(())
    }

    /// Stores a node for `row_id` and links it into the graph.
    pub fn append(&mut self, row_id: i64, vector: &[f32]) -> ExecResult<NodeId> {
        self.take_dimensions(vector.len())?;
        let level = self.meta.draw_level();
        let node = self.store_record(row_id, vector, level)?;
        let parameters = self.meta.parameters;
        graph::insert(self, parameters, node, vector, level)?;
        self.meta.nodes += 1;
        self.write_meta()?;
        Ok(node)
    }

    /// Writes a record with empty lists at the end of the element chain.
    fn store_record(&mut self, row_id: i64, vector: &[f32], level: usize) -> ExecResult<NodeId> {
        let size = self.meta.record_size(level);
        let usable = self.store.usable_size();
        let mut page_no = self.meta.last_page;
        let mut end = if page_no == 0 {
            usable
        } else {
            u16_at(&self.store.page(page_no)?, 8).map_or(usable, usize::from)
        };
        if end + size > usable || end > 0xFFFF {
            let fresh = self.store.allocate_page()?;
            {
                let bytes = self.store.page_mut(fresh)?;
                put(bytes, 0, ELEMENT_MAGIC)?;
                put(bytes, 8, &(ELEMENT_HEADER as u16).to_le_bytes())?;
            }
            if page_no == 0 {
                self.meta.first_page = fresh;
            } else {
                put(self.store.page_mut(page_no)?, 4, &fresh.to_le_bytes())?;
            }
            self.meta.last_page = fresh;
            page_no = fresh;
            end = ELEMENT_HEADER;
        }
        let bytes = self.store.page_mut(page_no)?;
        put(bytes, end, &row_id.to_le_bytes())?;
        let level_byte =
            u8::try_from(level).map_err(|_| ExecError::internal("HNSW level too high"))?;
        put(bytes, end + 8, &[level_byte, 0, 0, 0])?;
        for (i, value) in vector.iter().enumerate() {
            put(bytes, end + RECORD_HEADER + 4 * i, &value.to_le_bytes())?;
        }
        for layer in 0..=level {
            put(
                bytes,
                end + self.meta.list_offset(layer),
                &0u16.to_le_bytes(),
            )?;
        }
        let count = u16_at(bytes, 10).unwrap_or(0).saturating_add(1);
        put(bytes, 8, &((end + size) as u16).to_le_bytes())?;
        put(bytes, 10, &count.to_le_bytes())?;
        Ok(node_id(page_no, end))
    }

    fn write_meta(&mut self) -> ExecResult<()> {
        let meta = self.meta.clone();
        meta.encode(self.store.page_mut(self.root)?)
    }

    /// Writes a graph built in memory (into this empty index), node records in the memory
    /// graph's order, with its links translated to page addresses.
    pub fn write_memory_graph(&mut self, built: &MemoryGraph, level_state: u64) -> ExecResult<()> {
        self.meta.level_state = level_state;
        if built.nodes().is_empty() {
            return self.write_meta();
        }
        self.take_dimensions(built.dimensions())?;
        let mut addresses = Vec::with_capacity(built.nodes().len());
        for (id, node) in built.nodes().iter().enumerate() {
            let level = node.neighbors.len().saturating_sub(1);
            addresses.push(self.store_record(node.row_id, built.vector(id as NodeId), level)?);
        }
        let mut translated = Vec::new();
        for (id, node) in built.nodes().iter().enumerate() {
            for (layer, list) in node.neighbors.iter().enumerate() {
                translated.clear();
                for neighbor in list {
                    translated.push(
                        *addresses.get(*neighbor as usize).ok_or_else(|| {
                            ExecError::internal("HNSW build links a missing node")
                        })?,
                    );
                }
                self.set_neighbors(addresses[id], layer, &translated)?;
            }
        }
        if let Some((entry, level)) = built.entry() {
            let address = *addresses
                .get(entry as usize)
                .ok_or_else(|| ExecError::internal("HNSW build's entry point is missing"))?;
            self.meta.entry = Some((address, level));
        }
        self.meta.nodes += built.nodes().len() as u64;
        self.write_meta()
    }
}

impl<W: PageWrite + ?Sized> GraphWrite for PageGraph<&mut W> {
    fn distance_between(&self, a: NodeId, b: NodeId) -> ExecResult<f64> {
        let mut first = self.scratch.borrow_mut();
        let mut second = self.other.borrow_mut();
        self.read_node(a, &mut first)?;
        self.read_node(b, &mut second)?;
        Ok(self.meta.metric.distance_unchecked(&first, &second))
    }

    fn set_neighbors(
        &mut self,
        node: NodeId,
        level: usize,
        neighbors: &[NodeId],
    ) -> ExecResult<()> {
        if neighbors.len() > self.meta.parameters.max_neighbors(level) {
            return Err(ExecError::internal(
                "HNSW neighbour list longer than its room",
            ));
        }
        let (page_no, offset) = split(node);
        let start = offset + self.meta.list_offset(level);
        let bytes = self.store.page_mut(page_no)?;
        let node_level = usize::from(*bytes.get(offset + 8).unwrap_or(&0));
        if level > node_level {
            return Err(ExecError::internal("HNSW link above a node's level"));
        }
        put(bytes, start, &(neighbors.len() as u16).to_le_bytes())?;
        for (i, neighbor) in neighbors.iter().enumerate() {
            let (neighbor_page, neighbor_offset) = split(*neighbor);
            let at = start + 2 + i * NEIGHBOR_BYTES;
            put(bytes, at, &neighbor_page.to_le_bytes())?;
            put(bytes, at + 4, &(neighbor_offset as u16).to_le_bytes())?;
        }
        Ok(())
    }

    fn set_entry_point(&mut self, node: NodeId, level: usize) -> ExecResult<()> {
        self.meta.entry = Some((node, level));
        self.write_meta()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::index_access::hnsw::test_data::clustered;
    use crate::storage::btree::test_store::TestStore;
    use std::collections::HashSet;

    fn recall(
        graph: &PageGraph<&TestStore>,
        rows: &[(i64, Vec<f32>)],
        queries: &[Vec<f32>],
    ) -> f64 {
        let metric = graph.meta().metric;
        let mut hits = 0;
        for query in queries {
            let mut exact: Vec<(f64, i64)> = rows
                .iter()
                .map(|(id, v)| (metric.distance_unchecked(v, query), *id))
                .collect();
            exact.sort_by(|a, b| a.0.total_cmp(&b.0));
            let truth: HashSet<i64> = exact.iter().take(10).map(|(_, id)| *id).collect();
            let found = graph.search(query, 10, 40).unwrap();
            hits += found.iter().filter(|(_, _, id)| truth.contains(id)).count();
        }
        hits as f64 / (queries.len() * 10) as f64
    }

    /// Inserted one at a time through pages, and built in memory then written, the graph
    /// finds what exact search finds, and every node reads back as written.
    #[test]
    fn page_graphs_insert_build_and_search() {
        let parameters = Parameters {
            m: 8,
            ef_construction: 48,
        };
        let mut vectors = clustered(1240, 24, 8, 5);
        let queries = vectors.split_off(1200);
        let rows: Vec<(i64, Vec<f32>)> = vectors
            .into_iter()
            .enumerate()
            .map(|(i, v)| (i as i64 * 3, v))
            .collect();

        let mut store = TestStore::new(4096);
        let root = create(&mut store, Metric::Cosine, parameters).unwrap();
        {
            let mut graph = PageGraph::open(&mut store, root).unwrap();
            for (row_id, vector) in &rows {
                graph.append(*row_id, vector).unwrap();
            }
        }
        let inserted = PageGraph::open(&store, root).unwrap();
        assert_eq!(inserted.meta().nodes, rows.len() as u64);
        assert!(recall(&inserted, &rows, &queries) >= 0.95);
        let mut read = Vec::new();
        inserted
            .for_each_node(|_, row_id, vector| {
                read.push((row_id, vector.to_vec()));
                Ok(true)
            })
            .unwrap();
        assert_eq!(read, rows);
        // Two 24-dim records (m = 8) fit a 4 KiB page many times over: a short chain.
        let pages = inserted.pages().unwrap();
        assert!(pages.len() < rows.len() / 5, "{} pages", pages.len());

        let mut built = MemoryGraph::new(Metric::Cosine, 24, parameters);
        let mut meta = inserted.meta().clone();
        for (row_id, vector) in &rows {
            built.insert(*row_id, vector, meta.draw_level()).unwrap();
        }
        let root = create(&mut store, Metric::Cosine, parameters).unwrap();
        PageGraph::open(&mut store, root)
            .unwrap()
            .write_memory_graph(&built, meta.level_state)
            .unwrap();
        let written = PageGraph::open(&store, root).unwrap();
        assert!(recall(&written, &rows, &queries) >= 0.95);
        // Links in pages are the memory graph's, translated.
        let mut neighbors = Vec::new();
        let mut vector = Vec::new();
        let (entry, level) = written.meta().entry.unwrap();
        assert_eq!(written.read_node(entry, &mut vector).unwrap().1, level);
        written.neighbors(entry, 0, &mut neighbors).unwrap();
        assert!(!neighbors.is_empty());
    }

    #[test]
    fn damage_is_reported_not_trusted() {
        let parameters = Parameters {
            m: 4,
            ef_construction: 8,
        };
        let mut store = TestStore::new(4096);
        let root = create(&mut store, Metric::L2, parameters).unwrap();
        {
            let mut graph = PageGraph::open(&mut store, root).unwrap();
            graph.append(1, &[1.0, 2.0, 3.0]).unwrap();
            graph.append(2, &[2.0, 2.0, 3.0]).unwrap();
        }
        let graph = PageGraph::open(&store, root).unwrap();
        let mut vector = Vec::new();
        // An address inside the header, or past the used bytes, is refused.
        let first = graph.meta().first_page;
        assert!(graph.read_node(node_id(first, 4), &mut vector).is_err());
        assert!(graph.read_node(node_id(first, 4000), &mut vector).is_err());
        // A meta page with the wrong magic does not open.
        let element = store.page(first).unwrap();
        assert!(Meta::decode(first, &element).is_err());
        // Too many dimensions for the page size is 54000.
        let parameters = Parameters {
            m: 16,
            ef_construction: 64,
        };
        let error = check_fits(parameters, 2000, 4096).unwrap_err();
        assert!(check_fits(parameters, 384, 4096).is_ok());
        assert_eq!(error.code, crate::sqlstate::PROGRAM_LIMIT_EXCEEDED);
    }
}
