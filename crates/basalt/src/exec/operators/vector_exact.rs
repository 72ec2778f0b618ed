//! Exact vector search (`AccessPath::VectorSearch` without an index, or with
//! `hnsw.exact_search` on): one pass over the table that computes each row's distance to
//! the query straight from the leaf page and keeps the `limit + offset` nearest rows, then
//! reads only those rows.
//!
//! What it guarantees: the rows it returns are exactly the rows the plain plan (scan, filter,
//! TopN by the distance) would return — the `wanted` least by (distance, row id), distances
//! ordered as the sort key orders them (`-0.0` equal to `0.0`, NaN above everything), then
//! rows whose distance is NULL (a NULL vector) in row-id order while fewer than `wanted`
//! rows have a distance — and it returns them in row-id order, the order the scan would have
//! fed them to the TopN above, so that TopN breaks ties as it would have. The distance is
//! computed by the same kernel call as the expression evaluator's (`Metric::distance_to_query`
//! with the query's norm computed once), so it is the same value bit for bit. A row whose
//! vector has another dimension than the query is the same 22000 error, raised when the row
//! passes the filter (the plain plan filters before it computes the distance).
//!
//! Why it exists: the plain plan copies every row's vector into a batch (1.5 KiB a row at
//! 384 dimensions), and that copy, not the arithmetic, was most of an exact search's time.
//! Here the distance is computed from the page's bytes (`Metric::distance_to_query_le`), and
//! only rows that could still be among the nearest are decoded, and then only when a filter
//! needs their columns.

use std::collections::BinaryHeap;
use std::sync::Arc;

use crate::catalog::TableDef;
use crate::exec::batch::Batch;
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::plan::{ScanColumn, VectorSearch};
use crate::sqlstate;
use crate::storage::btree::{TableTree, Value as StoredValue};
use crate::storage::keys;
use crate::types::Value;
use crate::types::vector::{self, kernels};

use super::scan::{column_types, read_leaf_rows, read_row};

/// The most rows an exact search keeps (`limit + offset`); a larger LIMIT reads every row
/// through the TopN instead, whose memory is bounded by the operator budget.
pub const MAX_KEPT_ROWS: usize = 10_000;

/// Rows that could be among the nearest, gathered before the filter runs over them at once.
const PENDING_ROWS: usize = 256;

/// A distance as the sort key's order-preserving bits (`storage::keys`: `-0.0` equal to
/// `0.0`, NaN above `+inf`), so the kept rows are exactly the ones the TopN would keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Distance(u64);

impl Distance {
    fn of(distance: f64) -> Distance {
        Distance(keys::encode_f64(distance))
    }
}

/// What a row's vector gave.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    Distance(Distance),
    /// A NULL vector: a NULL distance, sorted last.
    Null,
    /// A vector of this many dimensions, not the query's.
    Mismatch(usize),
}

/// The rows kept so far.
struct Kept {
    wanted: usize,
    /// Whether the query is the distance's first operand.
    query_first: bool,
    /// The nearest rows, farthest on top; row ids only arrive in increasing order, so a row
    /// at the same distance as the top never displaces it (the TopN keeps the earlier row).
    nearest: BinaryHeap<(Distance, i64)>,
    /// The first `wanted` rows whose distance is NULL, in row-id order.
    nulls: Vec<i64>,
}

impl Kept {
    /// Whether a row with this outcome could still be kept (an error is always "kept": it
    /// must be raised if the row passes the filter).
    fn could_keep(&self, outcome: Outcome) -> bool {
        match outcome {
            Outcome::Distance(distance) => {
                self.nearest.len() < self.wanted
                    || self.nearest.peek().is_some_and(|top| distance < top.0)
            }
            Outcome::Null => self.nulls.len() < self.wanted,
            Outcome::Mismatch(_) => true,
        }
    }

    /// Keeps the row (which passed the filter) if it is still among the nearest.
    fn offer(&mut self, outcome: Outcome, row_id: i64, query_dims: usize) -> ExecResult<()> {
        match outcome {
            Outcome::Distance(distance) => {
                if self.nearest.len() < self.wanted {
                    self.nearest.push((distance, row_id));
                } else if let Some(mut top) = self.nearest.peek_mut()
                    && distance < top.0
                {
                    *top = (distance, row_id);
                }
            }
            Outcome::Null => {
                if self.nulls.len() < self.wanted {
                    self.nulls.push(row_id);
                }
            }
            // The error names the operands in the order the ORDER BY wrote them.
            Outcome::Mismatch(dims) if self.query_first => {
                return Err(vector::different_dimensions(query_dims, dims).into());
            }
            Outcome::Mismatch(dims) => {
                return Err(vector::different_dimensions(dims, query_dims).into());
            }
        }
        Ok(())
    }

    /// The kept row ids in increasing order: the nearest, then NULL-distance rows while
    /// fewer than `wanted`.
    fn row_ids(self) -> Vec<i64> {
        let short = self.wanted.saturating_sub(self.nearest.len());
        let mut ids: Vec<i64> = self.nearest.into_iter().map(|(_, id)| id).collect();
        ids.extend(self.nulls.into_iter().take(short));
        ids.sort_unstable();
        ids
    }
}

/// Candidate rows awaiting the filter: their columns, and what their vectors gave.
struct Pending {
    batch: Batch,
    outcomes: Vec<(Outcome, i64)>,
}

/// The `wanted` rows nearest `query` that pass the search's filter, in row-id order, with
/// `columns` of `table`.
pub(super) fn nearest_rows(
    table: &Arc<TableDef>,
    columns: &[ScanColumn],
    search: &VectorSearch,
    query: &[f32],
    wanted: usize,
    ctx: &ExecContext,
) -> ExecResult<Batch> {
    let types = column_types(table, columns);
    let slot = table
        .columns
        .get(search.column)
        .map(|column| column.slot)
        .ok_or_else(|| ExecError::internal("vector search column is gone"))?;
    let damaged = |reason: &str| {
        ExecError::new(
            sqlstate::DATA_CORRUPTED,
            format!("table {} has a damaged row: {reason}", table.name),
        )
    };
    let query_norm2 = kernels::inner_product(query, query);
    let mut kept = Kept {
        wanted,
        query_first: search.query_first,
        nearest: BinaryHeap::with_capacity(wanted.min(MAX_KEPT_ROWS) + 1),
        nulls: Vec::new(),
    };
    let mut pending = search.filter.as_ref().map(|_| Pending {
        batch: Batch::with_types(&types, PENDING_ROWS),
        outcomes: Vec::with_capacity(PENDING_ROWS),
    });
    let mut scratch: Vec<f32> = Vec::new();
    let mut cursor = TableTree::open(table.root).cursor(ctx.source.clone());
    let mut positioned = cursor.first()?;
    while positioned {
        ctx.check_interrupt()?;
        // The next leaf is fetched, and its bytes requested from memory, while this one is
        // computed: consecutive leaves lie anywhere in memory, so the hardware would not
        // fetch it ahead, and at two 384-dimension rows a leaf the scan is mostly steps.
        if let Some(next) = cursor.fetch_next_leaf() {
            vector::prefetch(next);
        }
        let Some(leaf) = cursor.leaf() else {
            break;
        };
        let (first, count) = (cursor.position(), leaf.row_count());
        for position in first..count {
            let outcome = if slot >= leaf.column_count() {
                // Rows written before ALTER TABLE ADD COLUMN have fewer slots.
                Outcome::Null
            } else {
                match cursor.value_at(position, slot)? {
                    StoredValue::Null => Outcome::Null,
                    StoredValue::Bytes(bytes) => {
                        if !bytes.len().is_multiple_of(4) {
                            return Err(damaged("a vector's length is not a multiple of 4"));
                        }
                        match search.metric.distance_to_query_le(
                            &bytes,
                            query,
                            query_norm2,
                            &mut scratch,
                        ) {
                            Some(distance) => Outcome::Distance(Distance::of(distance)),
                            None => Outcome::Mismatch(bytes.len() / 4),
                        }
                    }
                    StoredValue::Fixed(_) => return Err(damaged("a vector stored as a number")),
                }
            };
            if !kept.could_keep(outcome) {
                continue;
            }
            let row_id = leaf.row_id(position);
            match &mut pending {
                None => kept.offer(outcome, row_id, query.len())?,
                Some(pending) => {
                    read_leaf_rows(
                        &cursor,
                        &leaf,
                        table,
                        columns,
                        position..position + 1,
                        &mut pending.batch,
                    )?;
                    pending.outcomes.push((outcome, row_id));
                    if pending.outcomes.len() >= PENDING_ROWS {
                        filter_pending(pending, search, &mut kept, query.len(), ctx)?;
                    }
                }
            }
        }
        positioned = cursor.advance(count - first)?;
    }
    if let Some(pending) = &mut pending {
        filter_pending(pending, search, &mut kept, query.len(), ctx)?;
    }
    let mut out = Batch::with_types(&types, wanted.min(MAX_KEPT_ROWS));
    for row_id in kept.row_ids() {
        if !cursor.seek_ge(row_id)? || cursor.row_id() != Some(row_id) {
            return Err(ExecError::internal(format!(
                "exact vector search lost row {row_id} of {}",
                table.name
            )));
        }
        read_row(&cursor, table, columns, &mut out)?;
    }
    Ok(out)
}

/// Runs the filter over the pending rows and offers those that pass.
fn filter_pending(
    pending: &mut Pending,
    search: &VectorSearch,
    kept: &mut Kept,
    query_dims: usize,
    ctx: &ExecContext,
) -> ExecResult<()> {
    if pending.batch.rows == 0 {
        return Ok(());
    }
    if let Some(filter) = &search.filter {
        let passed = eval::evaluate(filter, &pending.batch, ctx)?;
        for (row, (outcome, row_id)) in pending.outcomes.iter().enumerate() {
            if passed.get(row) == Value::Boolean(true) && kept.could_keep(*outcome) {
                kept.offer(*outcome, *row_id, query_dims)?;
            }
        }
    }
    pending.batch.clear();
    pending.outcomes.clear();
    Ok(())
}
