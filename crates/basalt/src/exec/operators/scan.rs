//! Scans: reading table rows, by row id or through an index.

use std::sync::Arc;

use crate::catalog::{IndexDef, TableDef};
use crate::exec::batch::{BATCH_BYTES, BATCH_SIZE, Batch};
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::exec::index_access::{BTreeIndex, IndexAccess, IndexAm};
use crate::exec::source::PageSource;
use crate::plan::{AccessPath, Expr, JoinKind, RangeBound, ScanColumn};
use crate::sqlstate;
use crate::storage::btree::{IndexCursor, TableCursor, TableLeaf, TableTree};
use crate::storage::keys::{self, KeyOrder, KeyValue};
use crate::types::{DataType, Value};

use super::Operator;
use super::leaf_filter::LeafFilter;

pub(super) fn column_types(table: &TableDef, columns: &[ScanColumn]) -> Vec<DataType> {
    columns
        .iter()
        .map(|column| match column {
            ScanColumn::RowId => DataType::Integer,
            ScanColumn::Column(index) | ScanColumn::Unread(index) => table
                .columns
                .get(*index)
                .map_or(DataType::Null, |c| c.data_type),
        })
        .collect()
}

/// Appends the cursor's current row to `batch`.
pub(super) fn read_row(
    cursor: &TableCursor<PageSource>,
    table: &TableDef,
    columns: &[ScanColumn],
    batch: &mut Batch,
) -> ExecResult<()> {
    for (vector, column) in batch.columns.iter_mut().zip(columns) {
        match column {
            ScanColumn::RowId => {
                let row_id = cursor
                    .row_id()
                    .ok_or_else(|| ExecError::internal("scan cursor lost its row"))?;
                vector.push(&Value::Integer(row_id));
            }
            ScanColumn::Unread(_) => vector.push_null(),
            ScanColumn::Column(index) => {
                let column = table.columns.get(*index).ok_or_else(|| {
                    ExecError::internal(format!("table {} has no column {index}", table.name))
                })?;
                if column.slot >= cursor.column_count() {
                    // Rows written before ALTER TABLE ADD COLUMN have fewer slots.
                    vector.push_null();
                    continue;
                }
                let stored = cursor.value(column.slot)?;
                vector.push_stored(&stored).map_err(|reason| {
                    ExecError::new(
                        sqlstate::DATA_CORRUPTED,
                        format!("table {} column {}: {reason}", table.name, column.name),
                    )
                })?;
            }
        }
    }
    batch.rows += 1;
    Ok(())
}

/// The operator that reads `table` by `access` (see [`AccessPath`]): a [`TableScan`] for a
/// full scan or a row-id range, an [`IndexScan`] for an index range, and for seeks an index
/// join from the deduplicated key list to the table whose key column is then dropped.
pub(super) fn build_scan(
    table: &Arc<TableDef>,
    columns: &[ScanColumn],
    access: &AccessPath,
    reverse: bool,
    ctx: &ExecContext,
) -> ExecResult<Box<dyn Operator>> {
    Ok(match access {
        AccessPath::Full | AccessPath::RowIdRange { .. } => {
            let unbounded = RangeBound::Unbounded;
            let (lower, upper) = access.bounds().unwrap_or((&unbounded, &unbounded));
            Box::new(TableScan::new(
                Arc::clone(table),
                columns.to_vec(),
                lower,
                upper,
                reverse,
                ctx,
            )?)
        }
        AccessPath::IndexRange {
            index,
            lower,
            upper,
        } => Box::new(IndexScan::new(
            Arc::clone(table),
            Arc::clone(index),
            columns.to_vec(),
            lower,
            upper,
            reverse,
            ctx,
        )?),
        AccessPath::VectorSearch(search) => Box::new(super::vector_scan::VectorScan::new(
            Arc::clone(table),
            columns.to_vec(),
            search.as_ref().clone(),
            ctx,
        )?),
        AccessPath::TextSearch(search) => Box::new(super::text_scan::TextScan::new(
            Arc::clone(table),
            columns.to_vec(),
            search.as_ref().clone(),
        )),
        AccessPath::Seeks { index, keys } => {
            let mut key_type = keys.first().map_or(DataType::Null, Expr::data_type);
            // `column = ANY (array)`: one array (a constant or parameter) whose elements are
            // the keys (a NULL array, or NULL elements, seek nothing).
            let rows: Vec<Vec<Expr>> = match (keys.as_slice(), key_type.element_type()) {
                ([array], Some(element)) => {
                    key_type = element;
                    match eval::evaluate_scalar(array, ctx)? {
                        Value::Array(array) => array
                            .elements()
                            .iter()
                            .filter(|value| !value.is_null())
                            .map(|value| {
                                vec![Expr::Literal {
                                    value: value.clone(),
                                    data_type: element,
                                }]
                            })
                            .collect(),
                        _ => Vec::new(),
                    }
                }
                _ => keys.iter().map(|key| vec![key.clone()]).collect(),
            };
            let values = super::basic::ValuesOperator::new(rows, vec![key_type]);
            let distinct = super::setop::SetOperation::distinct(
                Box::new(values),
                vec![key_type],
                ctx.operator_memory,
            );
            let key = Expr::Column {
                index: 0,
                data_type: key_type,
            };
            let join = super::join::IndexJoin::new(
                Box::new(distinct),
                Arc::clone(table),
                index.clone(),
                columns.to_vec(),
                JoinKind::Inner,
                vec![key],
                None,
                vec![key_type],
                ctx,
            )?;
            // The join's output is the key, then the scan's columns.
            let scan_columns = column_types(table, columns)
                .into_iter()
                .enumerate()
                .map(|(position, data_type)| Expr::Column {
                    index: position + 1,
                    data_type,
                })
                .collect();
            Box::new(super::basic::Project::new(Box::new(join), scan_columns))
        }
    })
}

/// A forward table scan (a full scan or a row-id range) that tests the simple conjuncts of
/// `predicate`, the filter right above it, inside each leaf ([`LeafFilter`]); `None` when
/// the access is not such a scan or no conjunct can be tested there.
pub(super) fn build_filtered_scan(
    table: &Arc<TableDef>,
    columns: &[ScanColumn],
    access: &AccessPath,
    predicate: &Expr,
    ctx: &ExecContext,
) -> ExecResult<Option<Box<dyn Operator>>> {
    if !matches!(access, AccessPath::Full | AccessPath::RowIdRange { .. }) {
        return Ok(None);
    }
    let Some(filter) = LeafFilter::compile(predicate, table, columns, ctx)? else {
        return Ok(None);
    };
    let unbounded = RangeBound::Unbounded;
    let (lower, upper) = access.bounds().unwrap_or((&unbounded, &unbounded));
    let scan = TableScan::new(
        Arc::clone(table),
        columns.to_vec(),
        lower,
        upper,
        false,
        ctx,
    )?;
    Ok(Some(Box::new(scan.with_filter(filter))))
}

/// A row-id bound: `Ok(None)` when unbounded, `Err(())` inside when it evaluated to NULL
/// (a comparison with NULL is never true, so the scan is empty), else the value and whether
/// it is inclusive.
type RowIdBound = Result<Option<(i64, bool)>, ()>;

fn bound_row_id(bound: &RangeBound, ctx: &ExecContext) -> ExecResult<RowIdBound> {
    let (exprs, inclusive) = match bound {
        RangeBound::Unbounded => return Ok(Ok(None)),
        RangeBound::Included(exprs) => (exprs, true),
        RangeBound::Excluded(exprs) => (exprs, false),
    };
    let expr = exprs
        .first()
        .ok_or_else(|| ExecError::internal("row id bound without a value"))?;
    match eval::evaluate_scalar(expr, ctx)? {
        Value::Integer(row_id) => Ok(Ok(Some((row_id, inclusive)))),
        Value::Null => Ok(Err(())),
        other => Err(ExecError::internal(format!("row id bound is {other:?}"))),
    }
}

/// Rows of a table in row-id order (or reverse order), within an optional row-id range.
#[derive(Debug)]
pub struct TableScan {
    table: Arc<TableDef>,
    columns: Vec<ScanColumn>,
    types: Vec<DataType>,
    cursor: TableCursor<PageSource>,
    /// Whether the cursor is on a row still to be returned.
    positioned: bool,
    /// The bound the scan walks towards: the upper one going forward, the lower one in
    /// reverse.
    stop: Option<(i64, bool)>,
    reverse: bool,
    empty: bool,
    /// Rows the first batch is sized for: the width of a bounded row-id range (a point
    /// lookup allocates one row's vectors, not a full batch's), else a full batch.
    capacity: usize,
    /// Conjuncts of the filter above tested inside each leaf (forward scans only): only the
    /// rows that may pass are copied.
    filter: Option<LeafFilter>,
    /// Scratch: the positions of a leaf's rows the filter kept.
    selected: Vec<usize>,
}

impl TableScan {
    pub fn new(
        table: Arc<TableDef>,
        columns: Vec<ScanColumn>,
        lower: &RangeBound,
        upper: &RangeBound,
        reverse: bool,
        ctx: &ExecContext,
    ) -> ExecResult<TableScan> {
        let mut cursor = TableTree::open(table.root).cursor(ctx.source.clone());
        let (lower, upper) = (bound_row_id(lower, ctx)?, bound_row_id(upper, ctx)?);
        let empty = lower.is_err() || upper.is_err();
        let (lower, upper) = (lower.unwrap_or(None), upper.unwrap_or(None));
        let (start, stop) = if reverse {
            (upper, lower)
        } else {
            (lower, upper)
        };
        let positioned = match (start, reverse) {
            (None, false) => cursor.first()?,
            (None, true) => cursor.last()?,
            (Some((start, inclusive)), false) => {
                let exact = cursor.seek_ge(start)?;
                if exact && !inclusive {
                    cursor.next()?
                } else {
                    cursor.is_valid()
                }
            }
            (Some((start, inclusive)), true) => {
                let exact = cursor.seek_le(start)?;
                if exact && !inclusive {
                    cursor.prev()?
                } else {
                    cursor.is_valid()
                }
            }
        };
        let capacity = match (lower, upper) {
            (Some((low, _)), Some((high, _))) => usize::try_from(high.saturating_sub(low))
                .map_or(BATCH_SIZE, |width| width.saturating_add(1).min(BATCH_SIZE)),
            _ => BATCH_SIZE,
        };
        let types = column_types(&table, &columns);
        Ok(TableScan {
            table,
            columns,
            types,
            cursor,
            positioned,
            stop,
            reverse,
            empty,
            capacity,
            filter: None,
            selected: Vec::new(),
        })
    }

    /// The scan with `filter` tested inside each leaf (a forward scan; a reverse one reads
    /// every row and leaves the filtering to the operator above).
    pub fn with_filter(mut self, filter: LeafFilter) -> TableScan {
        if !self.reverse {
            self.filter = Some(filter);
        }
        self
    }

    /// Whether `row_id` lies beyond the bound the scan walks towards.
    fn past_stop(&self, row_id: i64) -> bool {
        match self.stop {
            None => false,
            Some((stop, inclusive)) => {
                let beyond = if self.reverse {
                    row_id < stop
                } else {
                    row_id > stop
                };
                beyond || (row_id == stop && !inclusive)
            }
        }
    }
}

impl TableScan {
    /// Fills `batch` going backwards, a row at a time.
    fn fill_backward(&mut self, batch: &mut Batch) -> ExecResult<()> {
        while self.positioned && batch.rows < BATCH_SIZE {
            let row_id = self
                .cursor
                .row_id()
                .ok_or_else(|| ExecError::internal("scan cursor lost its row"))?;
            if self.past_stop(row_id) {
                self.positioned = false;
                break;
            }
            read_row(&self.cursor, &self.table, &self.columns, batch)?;
            self.positioned = self.cursor.prev()?;
        }
        Ok(())
    }

    /// Fills `batch` going forwards, a leaf's run of rows at a time: fixed-width columns
    /// are copied from the leaf's value arrays in bulk (the reason leaves are column-major).
    fn fill_forward(&mut self, batch: &mut Batch, ctx: &ExecContext) -> ExecResult<()> {
        let mut leaves = 0usize;
        while self.positioned && batch.rows < BATCH_SIZE {
            leaves += 1;
            if leaves.is_multiple_of(256) {
                // A filter that keeps few rows reads many leaves for one batch.
                ctx.check_interrupt()?;
            }
            let Some(leaf) = self.cursor.leaf() else {
                self.positioned = false;
                break;
            };
            let first = self.cursor.position();
            let mut end = leaf.row_count().min(first + (BATCH_SIZE - batch.rows));
            let mut reached_stop = false;
            if let Some((stop, inclusive)) = self.stop {
                // The stop is reached inside this leaf only when the leaf holds the stop row
                // itself or a row beyond it. A stop past the leaf's last row
                // (`Err(row_count)`) says nothing about the leaves to its right: the scan
                // must go on into them (issue 15: treating it as reached ended every
                // row-id range at the first leaf's end).
                let stop_at = match leaf.search(stop) {
                    Ok(position) if inclusive => Some(position + 1),
                    Ok(position) => Some(position),
                    Err(position) if position < leaf.row_count() => Some(position),
                    Err(_) => None,
                };
                if let Some(stop_at) = stop_at
                    && stop_at <= end
                {
                    end = stop_at.max(first);
                    reached_stop = true;
                }
            }
            match &self.filter {
                None => read_leaf_rows(
                    &self.cursor,
                    &leaf,
                    &self.table,
                    &self.columns,
                    first..end,
                    batch,
                )?,
                Some(filter) => {
                    filter.select(&leaf, first..end, &mut self.selected);
                    // Runs of consecutive kept rows, each copied as one range.
                    let mut at = 0;
                    while let Some(&start) = self.selected.get(at) {
                        let mut stop = start + 1;
                        at += 1;
                        while self.selected.get(at) == Some(&stop) {
                            stop += 1;
                            at += 1;
                        }
                        read_leaf_rows(
                            &self.cursor,
                            &leaf,
                            &self.table,
                            &self.columns,
                            start..stop,
                            batch,
                        )?;
                    }
                }
            }
            if reached_stop {
                self.positioned = false;
                break;
            }
            self.positioned = self.cursor.advance(end - first)?;
            // Wide rows (vectors, long text) end a batch early, at a size that stays in the
            // CPU's L2 cache: the operators above then read what the scan just copied from
            // there. 1,024 rows of 384-dimension vectors are 1.5 MiB, and a distance pass
            // over them ran from the L3 cache or memory instead.
            if batch.estimated_bytes() >= BATCH_BYTES {
                break;
            }
        }
        Ok(())
    }
}

impl Operator for TableScan {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if self.empty || !self.positioned {
            return Ok(None);
        }
        ctx.check_interrupt()?;
        if self.cursor.is_stale() {
            // The caller wrote to the transaction between two batches (a statement's rows
            // read while other statements run on the connection): the cursor's leaf is an
            // old image whose sibling link, or its rows' overflow pages, may now belong to
            // other pages. Go on from the same row id in the tree as it is now; following
            // the old link reported a healthy file as corrupt (XX001).
            let row_id = self
                .cursor
                .row_id()
                .ok_or_else(|| ExecError::internal("scan cursor lost its row"))?;
            if self.reverse {
                self.cursor.seek_le(row_id)?;
            } else {
                self.cursor.seek_ge(row_id)?;
            }
            self.positioned = self.cursor.is_valid();
            if !self.positioned {
                return Ok(None);
            }
        }
        let mut batch = Batch::with_types(&self.types, self.capacity);
        if self.reverse {
            self.fill_backward(&mut batch)?;
        } else {
            self.fill_forward(&mut batch, ctx)?;
        }
        Ok(Some(batch))
    }
}

/// Appends rows `rows` of the cursor's current leaf to `batch`.
pub(super) fn read_leaf_rows(
    cursor: &TableCursor<PageSource>,
    leaf: &TableLeaf<'_>,
    table: &TableDef,
    columns: &[ScanColumn],
    rows: std::ops::Range<usize>,
    batch: &mut Batch,
) -> ExecResult<()> {
    let damaged = |reason: &str| {
        ExecError::new(
            sqlstate::DATA_CORRUPTED,
            format!("table {} has a damaged row: {reason}", table.name),
        )
    };
    for (vector, column) in batch.columns.iter_mut().zip(columns) {
        match column {
            ScanColumn::RowId => {
                for row in rows.clone() {
                    vector.push(&Value::Integer(leaf.row_id(row)));
                }
            }
            ScanColumn::Unread(_) => rows.clone().for_each(|_| vector.push_null()),
            ScanColumn::Column(index) => {
                let column = table.columns.get(*index).ok_or_else(|| {
                    ExecError::internal(format!("table {} has no column {index}", table.name))
                })?;
                if column.slot >= leaf.column_count() {
                    // Rows written before ALTER TABLE ADD COLUMN have fewer slots.
                    rows.clone().for_each(|_| vector.push_null());
                    continue;
                }
                match leaf.fixed_column(column.slot) {
                    Some((values, width)) => vector
                        .extend_fixed(
                            values,
                            width,
                            leaf.null_bitmap(column.slot).unwrap_or(&[]),
                            rows.start,
                            rows.len(),
                        )
                        .map_err(damaged)?,
                    None => {
                        for row in rows.clone() {
                            let stored = cursor.value_at(row, column.slot)?;
                            vector.push_stored(&stored).map_err(damaged)?;
                        }
                    }
                }
            }
        }
    }
    batch.rows += rows.len();
    Ok(())
}

/// Encodes a bound's values as a key prefix of the index.
fn bound_key(
    bound: &RangeBound,
    index: &BTreeIndex<'_>,
    ctx: &ExecContext,
) -> ExecResult<Option<(Vec<u8>, bool, bool)>> {
    let (exprs, inclusive) = match bound {
        RangeBound::Unbounded => return Ok(None),
        RangeBound::Included(exprs) => (exprs, true),
        RangeBound::Excluded(exprs) => (exprs, false),
    };
    let mut key = Vec::new();
    let mut has_null = false;
    for (column, expr) in exprs.iter().enumerate() {
        let value = eval::evaluate_scalar(expr, ctx)?;
        has_null |= value.is_null();
        index.lookup_column(column, &value, &mut key);
    }
    Ok(Some((key, inclusive, has_null)))
}

/// Appends `value` as an index key column under `order`.
pub fn encode_key_value(value: &Value, order: KeyOrder, out: &mut Vec<u8>) {
    match value {
        // A vector keys by its own memcomparable bytes (pgvector's order), carried as a blob
        // so the encoding stays prefix-free for the columns after it.
        Value::Vector(v) => {
            let mut bytes = Vec::with_capacity(v.len() * 4);
            crate::types::vector::key_bytes(v, &mut bytes);
            keys::encode_value(&KeyValue::Blob(&bytes), order, out);
        }
        // An array keys by its own order-preserving bytes (`types::array::cell::key_bytes`).
        Value::Array(array) => {
            let mut bytes = Vec::new();
            crate::types::array::cell::key_bytes(array, &mut bytes);
            keys::encode_value(&KeyValue::Blob(&bytes), order, out);
        }
        other => keys::encode_value(&scalar_key_value(other), order, out),
    }
}

/// A value other than a vector as a key column.
#[inline]
fn scalar_key_value(value: &Value) -> KeyValue<'_> {
    match value {
        Value::Null | Value::Vector(_) | Value::Array(_) => KeyValue::Null,
        Value::Boolean(v) => KeyValue::Boolean(*v),
        Value::Integer(v) => KeyValue::Integer(*v),
        Value::Real(v) => KeyValue::Real(*v),
        Value::Numeric(v) => KeyValue::Fixed32(v.key_bytes()),
        Value::Text(v) => KeyValue::Text(v),
        Value::Blob(v) => KeyValue::Blob(v),
        // JSON columns cannot be indexed (CREATE INDEX refuses them); their text is the
        // nearest key should one ever get here.
        Value::Json(v) | Value::Jsonb(v) => KeyValue::Text(v),
        Value::Date(v) => KeyValue::Integer(i64::from(*v)),
        Value::Timestamp(v) | Value::TimestampTz(v) | Value::Time(v) => KeyValue::Integer(*v),
        Value::Interval(v) => KeyValue::Integer128(v.span()),
        Value::Uuid(v) => KeyValue::Blob(v),
    }
}

/// Rows found through an index key range, in index order.
#[derive(Debug)]
pub struct IndexScan {
    table: Arc<TableDef>,
    columns: Vec<ScanColumn>,
    types: Vec<DataType>,
    index_cursor: IndexCursor<PageSource>,
    table_cursor: TableCursor<PageSource>,
    positioned: bool,
    reverse: bool,
    /// Stop before keys ≥ this (forward) or < this (reverse).
    stop: Option<Vec<u8>>,
    /// Rows the first batch is sized for: one for an equality on every column of a unique
    /// index, else a full batch.
    capacity: usize,
}

impl IndexScan {
    pub fn new(
        table: Arc<TableDef>,
        index: Arc<IndexDef>,
        columns: Vec<ScanColumn>,
        lower: &RangeBound,
        upper: &RangeBound,
        reverse: bool,
        ctx: &ExecContext,
    ) -> ExecResult<IndexScan> {
        // Key ranges and index order need an ordered method (the B+tree).
        let access = IndexAccess::of(&index);
        let ordered = access.ordered()?;
        let mut index_cursor = ordered.cursor(ctx.source.clone());
        let table_cursor = TableTree::open(table.root).cursor(ctx.source.clone());
        let unique_point = index.unique
            && matches!((lower, upper), (RangeBound::Included(low), RangeBound::Included(high))
                if low == high && low.len() == index.columns.len());
        let capacity = if unique_point { 1 } else { BATCH_SIZE };
        let lower = bound_key(lower, ordered, ctx)?;
        let upper = bound_key(upper, ordered, ctx)?;
        // A comparison with NULL is never true: such a range is empty.
        let empty = lower.as_ref().is_some_and(|b| b.2) || upper.as_ref().is_some_and(|b| b.2);
        // Entries are `prefix ‖ rest`: an inclusive bound covers every entry starting with the
        // prefix, so it extends to the prefix's successor.
        let start = lower.map(|(key, inclusive, _)| {
            if inclusive {
                Some(key)
            } else {
                keys::prefix_successor(&key)
            }
        });
        let end = upper.map(|(key, inclusive, _)| {
            if inclusive {
                keys::prefix_successor(&key)
            } else {
                Some(key)
            }
        });
        let (positioned, stop) = if empty {
            (false, None)
        } else if !reverse {
            let positioned = match &start {
                None => index_cursor.first()?,
                Some(Some(start)) => {
                    index_cursor.seek_ge(start)?;
                    index_cursor.is_valid()
                }
                Some(None) => false,
            };
            (positioned, end.flatten())
        } else {
            let positioned = match &end {
                None | Some(None) => index_cursor.last()?,
                Some(Some(end)) => index_cursor.seek_lt(end)?,
            };
            (positioned, start.flatten())
        };
        let types = column_types(&table, &columns);
        Ok(IndexScan {
            table,
            columns,
            types,
            index_cursor,
            table_cursor,
            positioned,
            reverse,
            stop,
            capacity,
        })
    }
}

impl Operator for IndexScan {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if !self.positioned {
            return Ok(None);
        }
        ctx.check_interrupt()?;
        if self.index_cursor.is_stale() {
            // As in `TableScan::next`: the transaction changed between two batches, so go
            // on from the same key in the index as it is now, not through an old leaf's
            // sibling link.
            let key = self.index_cursor.key().to_vec();
            if self.reverse {
                self.index_cursor.seek_le(&key)?;
            } else {
                self.index_cursor.seek_ge(&key)?;
            }
            self.positioned = self.index_cursor.is_valid();
            if !self.positioned {
                return Ok(None);
            }
        }
        let mut batch = Batch::with_types(&self.types, self.capacity);
        while self.positioned && batch.rows < BATCH_SIZE {
            let key = self.index_cursor.key();
            if let Some(stop) = &self.stop {
                let past = if self.reverse {
                    key < stop.as_slice()
                } else {
                    key >= stop.as_slice()
                };
                if past {
                    self.positioned = false;
                    break;
                }
            }
            let row_id = keys::decode_row_id(key)
                .map_err(|e| ExecError::new(sqlstate::DATA_CORRUPTED, e.to_string()))?;
            if !self.table_cursor.seek_ge(row_id)? {
                return Err(ExecError::new(
                    sqlstate::DATA_CORRUPTED,
                    format!(
                        "index of table {} points at missing row {row_id}",
                        self.table.name
                    ),
                ));
            }
            read_row(&self.table_cursor, &self.table, &self.columns, &mut batch)?;
            self.positioned = if self.reverse {
                self.index_cursor.prev()?
            } else {
                self.index_cursor.next()?
            };
        }
        Ok(Some(batch))
    }
}
