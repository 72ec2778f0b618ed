//! The full-text search scan (`AccessPath::TextSearch`): the rows whose text matches a query,
//! found in the column's full-text index (`exec::index_access::fts`), or the best of them by
//! BM25 through block-max WAND.
//!
//! What it guarantees: the rows it returns are exactly those a scan filtered by
//! `fts_match(column, query)` returns (in row order), or, with a limit, the `limit + offset`
//! best-scoring of them that pass the search's filter, best first and ties in row order —
//! the rows a TopN over the filtered scan keeps — and, when the plan asks
//! (`TextSearch::score`), each one's score as a last column, the value `bm25_score` would
//! compute. The index is read in full at the first call, before any row is returned, so a statement that writes the table while it reads
//! the rows (UPDATE ... WHERE fts_match(...)) sees the index as it was when it started.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::catalog::TableDef;
use crate::exec::batch::{BATCH_SIZE, Batch};
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::exec::index_access::FtsIndex;
use crate::exec::index_access::fts::search;
use crate::plan::{ScanColumn, TextSearch};
use crate::storage::btree::TableTree;
use crate::types::text_search::query;
use crate::types::{DataType, Value};

use super::Operator;
use super::scan::{column_types, read_row};

/// The scan.
#[derive(Debug)]
pub struct TextScan {
    table: Arc<TableDef>,
    columns: Vec<ScanColumn>,
    search: TextSearch,
    /// The rows still to return, once searched.
    rows: Option<VecDeque<i64>>,
    /// Their scores, front to front (top-k only; empty otherwise).
    scores: VecDeque<f64>,
}

impl TextScan {
    pub fn new(table: Arc<TableDef>, columns: Vec<ScanColumn>, search: TextSearch) -> Self {
        TextScan {
            table,
            columns,
            search,
            rows: None,
            scores: VecDeque::new(),
        }
    }

    /// The rows to return, in order, and their BM25 scores when ranked (else none).
    fn search(&self, ctx: &ExecContext) -> ExecResult<(Vec<i64>, Vec<f64>)> {
        let query_text = match eval::evaluate_scalar(&self.search.query, ctx)? {
            Value::Text(text) => text,
            Value::Null => return Ok((Vec::new(), Vec::new())),
            other => {
                return Err(ExecError::internal(format!(
                    "full-text search query is {}",
                    other.data_type()
                )));
            }
        };
        let index = FtsIndex::new(&self.search.index);
        let analyzer = index.analyzer()?;
        let Some(parsed) = query::parse(&query_text, &analyzer)? else {
            return Ok((Vec::new(), Vec::new()));
        };
        ctx.source.merge_deferred()?;
        let reader = index.reader(ctx.source.clone());
        let Some((limit, offset)) = &self.search.top else {
            return Ok((search::matching_rows(&reader, &parsed)?, Vec::new()));
        };
        let wanted = super::basic::rows_wanted(limit, offset.as_ref(), ctx)?;
        let types = column_types(&self.table, &self.columns);
        let mut row = Batch::with_types(&types, 1);
        let mut cursor = TableTree::open(self.table.root).cursor(ctx.source.clone());
        let filter = self.search.filter.as_ref();
        let accept = |row_id: i64| -> ExecResult<bool> {
            let Some(filter) = filter else {
                return Ok(true);
            };
            if !cursor.seek_ge(row_id)? || cursor.row_id() != Some(row_id) {
                return Ok(false);
            }
            row.clear();
            read_row(&cursor, &self.table, &self.columns, &mut row)?;
            Ok(eval::evaluate(filter, &row, ctx)?.get(0) == Value::Boolean(true))
        };
        let (rows, stats) =
            search::top_k(&reader, &parsed, wanted, accept, || ctx.check_interrupt())?;
        // The statistics the rows were ranked with are those `bm25_score` above would read
        // from the index: keep them for it, as its own first read would
        // (`exec/eval_text_search.rs`).
        let slots: Option<Vec<usize>> = self
            .search
            .index
            .columns
            .iter()
            .map(|(column, _)| self.table.columns.get(*column).map(|c| c.slot))
            .collect();
        if let Some(mut slots) = slots {
            slots.sort_unstable();
            ctx.text_search_stats
                .borrow_mut()
                .get_or_insert_with(Box::default)
                .insert((self.table.root, slots, query_text), Arc::new(stats));
        }
        Ok(rows.into_iter().unzip())
    }
}

impl Operator for TextScan {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if self.rows.is_none() {
            let (rows, scores) = self.search(ctx)?;
            self.rows = Some(rows.into());
            self.scores = scores.into();
        }
        let Some(rows) = self.rows.as_mut() else {
            return Ok(None);
        };
        if rows.is_empty() {
            return Ok(None);
        }
        let mut types = column_types(&self.table, &self.columns);
        if self.search.score {
            types.push(DataType::Real);
        }
        let mut batch = Batch::with_types(&types, rows.len().min(BATCH_SIZE));
        let mut cursor = TableTree::open(self.table.root).cursor(ctx.source.clone());
        // When the row id is all the plan reads (`SELECT id ... WHERE fts_match(...)` with id
        // the INTEGER PRIMARY KEY, `count(*)`), the index's row ids are the answer and the
        // table is not read: a search of a very common term does not pull every row's page
        // into the cache. Modifications read their whole input before writing, so no row
        // named here has been moved by this statement yet.
        let row_id_only = self.columns.iter().all(|column| match column {
            ScanColumn::RowId | ScanColumn::Unread(_) => true,
            ScanColumn::Column(position) => self.table.row_id_column == Some(*position),
        });
        while batch.rows < BATCH_SIZE
            && let Some(row_id) = rows.pop_front()
        {
            let score = self.scores.pop_front();
            if row_id_only {
                for (vector, column) in batch.columns.iter_mut().zip(&self.columns) {
                    match column {
                        ScanColumn::Unread(_) => vector.push_null(),
                        _ => vector.push(&Value::Integer(row_id)),
                    }
                }
                batch.rows += 1;
                if self.search.score
                    && let (Some(scores), Some(score)) = (batch.columns.last_mut(), score)
                {
                    scores.push(&Value::Real(score));
                }
                continue;
            }
            // The index and the table are one snapshot, so every row it names exists — unless
            // this statement has since moved it (an UPDATE of the row id), as a table scan
            // would not meet it again either.
            if !cursor.seek_ge(row_id)? || cursor.row_id() != Some(row_id) {
                continue;
            }
            read_row(&cursor, &self.table, &self.columns, &mut batch)?;
            if self.search.score
                && let (Some(scores), Some(score)) = (batch.columns.last_mut(), score)
            {
                scores.push(&Value::Real(score));
            }
        }
        Ok(Some(batch))
    }
}
