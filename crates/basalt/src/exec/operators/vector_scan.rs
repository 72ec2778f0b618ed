//! The vector search scan (`AccessPath::VectorSearch`): rows nearest a query vector through an
//! HNSW index, each checked against the table and the search's filter; or, without an index
//! or with `hnsw.exact_search` on, the exact nearest rows (`vector_exact`).
//!
//! What it guarantees:
//! * every row it returns exists at the statement's snapshot and holds exactly the vector of
//!   the node that found it (an HNSW index keeps nodes of deleted and changed rows until
//!   VACUUM: see `exec::index_access::hnsw`), passes the filter, and comes once;
//! * with a filter, the search widens — doubling its beam from `hnsw.ef_search` — until
//!   `limit + offset` rows pass or every node has been considered, so a filtered query returns
//!   the full LIMIT whenever that many rows match, however selective the filter;
//! * without an index, or with `hnsw.exact_search` on (for recall checks), it returns the
//!   exact nearest rows that pass the filter; with a NULL query vector, or a LIMIT above
//!   `vector_exact::MAX_KEPT_ROWS`, every row that passes (the TopN above then computes the
//!   answer).
//!
//! Rows come nearest first as the graph ranks them; the TopN the planner keeps above this
//! scan orders them by the exact distance.

use std::collections::HashSet;
use std::sync::Arc;

use crate::catalog::{IndexDef, IndexMethod, TableDef};
use crate::exec::batch::Batch;
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::exec::index_access::HnswIndex;
use crate::plan::{RangeBound, ScanColumn, VectorSearch};
use crate::storage::btree::{TableTree, Value as StoredValue};
use crate::types::Value;

use super::Operator;
use super::scan::{TableScan, column_types, read_row};
use super::vector_exact::{self, MAX_KEPT_ROWS};

/// The most nodes a widening search considers before it settles for fewer rows than asked
/// (pgvector's `hnsw.max_scan_tuples` default).
pub const MAX_SCAN_NODES: usize = 20_000;

/// How a [`VectorScan`] finds its rows.
#[derive(Debug)]
enum Mode {
    /// Every row, filtered, for the TopN above to order: a NULL query vector (every distance
    /// is NULL, so rows come in table order, as a scan's would) or a LIMIT too large to keep.
    EveryRow(Box<TableScan>),
    /// The exact nearest rows (`vector_exact`): no index, or `hnsw.exact_search` on.
    Exact { query: Vec<f32>, wanted: usize },
    /// A search of the HNSW index.
    Graph { query: Vec<f32>, wanted: usize },
}

/// The scan.
#[derive(Debug)]
pub struct VectorScan {
    table: Arc<TableDef>,
    columns: Vec<ScanColumn>,
    search: VectorSearch,
    mode: Mode,
    done: bool,
}

impl VectorScan {
    pub fn new(
        table: Arc<TableDef>,
        columns: Vec<ScanColumn>,
        search: VectorSearch,
        ctx: &ExecContext,
    ) -> ExecResult<Self> {
        let query = match eval::evaluate_scalar(&search.query, ctx)? {
            Value::Vector(elements) => Some(elements),
            Value::Null => None,
            other => {
                return Err(ExecError::internal(format!(
                    "vector search query is {}",
                    other.data_type()
                )));
            }
        };
        let wanted = super::basic::rows_wanted(&search.limit, search.offset.as_ref(), ctx)?;
        let through_graph = search.index.is_some() && !ctx.vector_search.exact;
        let mode = match query {
            Some(query) if through_graph => Mode::Graph { query, wanted },
            Some(query) if wanted <= MAX_KEPT_ROWS => Mode::Exact { query, wanted },
            _ => Mode::EveryRow(Box::new(TableScan::new(
                Arc::clone(&table),
                columns.clone(),
                &RangeBound::Unbounded,
                &RangeBound::Unbounded,
                false,
                ctx,
            )?)),
        };
        Ok(VectorScan {
            table,
            columns,
            search,
            mode,
            done: false,
        })
    }

    /// Searches the graph of `index`: the rows to return, nearest first.
    fn search(
        &self,
        index: &IndexDef,
        query: &[f32],
        wanted: usize,
        ctx: &ExecContext,
    ) -> ExecResult<Batch> {
        let types = column_types(&self.table, &self.columns);
        let mut out = Batch::with_types(&types, 16);
        let IndexMethod::Hnsw(metric) = index.method else {
            return Err(ExecError::internal("a vector search over a non-hnsw index"));
        };
        if wanted == 0 {
            return Ok(out);
        }
        let access = HnswIndex::new(index, metric);
        let graph = access.graph(ctx.source.clone())?;
        let nodes = usize::try_from(graph.meta().nodes).unwrap_or(usize::MAX);
        if nodes == 0 {
            return Ok(out);
        }
        if graph.meta().dimensions != query.len() {
            return Err(crate::types::vector::different_dimensions(
                graph.meta().dimensions,
                query.len(),
            )
            .into());
        }
        let column = access.column();
        let slot = self
            .table
            .columns
            .get(column)
            .map(|c| c.slot)
            .ok_or_else(|| ExecError::internal("vector search column is gone"))?;
        let mut cursor = TableTree::open(self.table.root).cursor(ctx.source.clone());
        let mut returned: HashSet<i64> = HashSet::new();
        let mut considered: HashSet<u64> = HashSet::new();
        // One row at a time, for the filter; reused across candidates.
        let mut row = Batch::with_types(&types, 1);
        let mut ef = usize::from(ctx.vector_search.ef_search).max(wanted);
        loop {
            let width = ef.min(nodes);
            for (_, node, row_id) in graph.search(query, width, width)? {
                if !considered.insert(node) || returned.contains(&row_id) {
                    continue;
                }
                ctx.check_interrupt()?;
                // The row must exist at this snapshot and hold exactly the node's vector.
                if !cursor.seek_ge(row_id)? || cursor.row_id() != Some(row_id) {
                    continue;
                }
                let matches = slot < cursor.column_count()
                    && match cursor.value(slot)? {
                        StoredValue::Bytes(bytes) => graph.node_matches(node, &bytes)?,
                        _ => false,
                    };
                if !matches {
                    continue;
                }
                row.clear();
                read_row(&cursor, &self.table, &self.columns, &mut row)?;
                if let Some(filter) = &self.search.filter
                    && eval::evaluate(filter, &row, ctx)?.get(0) != Value::Boolean(true)
                {
                    continue;
                }
                for (to, from) in out.columns.iter_mut().zip(&row.columns) {
                    to.push_from(from, 0);
                }
                out.rows += 1;
                returned.insert(row_id);
                if returned.len() >= wanted {
                    return Ok(out);
                }
            }
            // Too few rows passed: widen the beam, up to every node or the scan bound.
            if width >= nodes || considered.len() >= MAX_SCAN_NODES.max(wanted) {
                return Ok(out);
            }
            ef = ef.saturating_mul(2);
        }
    }
}

impl Operator for VectorScan {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if let Mode::EveryRow(scan) = &mut self.mode {
            // Every row, filtered here as the search would.
            while let Some(batch) = scan.next(ctx)? {
                let Some(filter) = &self.search.filter else {
                    return Ok(Some(batch));
                };
                let keep = eval::evaluate(filter, &batch, ctx)?;
                let positions: Vec<u32> = (0..batch.rows)
                    .filter(|row| keep.get(*row) == Value::Boolean(true))
                    .map(|row| row as u32)
                    .collect();
                if !positions.is_empty() {
                    return Ok(Some(batch.gather(&positions)));
                }
            }
            return Ok(None);
        }
        if self.done {
            return Ok(None);
        }
        self.done = true;
        let batch = match (&self.mode, &self.search.index) {
            (Mode::Graph { query, wanted }, Some(index)) => {
                self.search(index, query, *wanted, ctx)?
            }
            (Mode::Exact { wanted: 0, .. }, _) => return Ok(None),
            (Mode::Exact { query, wanted }, _) => vector_exact::nearest_rows(
                &self.table,
                &self.columns,
                &self.search,
                query,
                *wanted,
                ctx,
            )?,
            _ => return Err(ExecError::internal("vector search without its index")),
        };
        Ok((batch.rows > 0).then_some(batch))
    }
}
