//! `fts_match(text, query)` over a batch with the query parsed once (the registry function
//! parses it for every row), and `bm25_score(column, query)` over a batch: each row's BM25 score
//! (`types::text_search::bm25`) against statistics of the whole column, which the first call
//! of an execution gathers in one scan of the table and the rest reuse. Either may rank a
//! document of several texts, a row of columns (`fts_match((title, body), query)`): their
//! words numbered as one document (`Analyzer::analyze_texts`), NULL only when every text is.
//!
//! What it guarantees: the statistics are those of the column as this execution sees it
//! (its snapshot, its own earlier writes), the same for every row of the statement, whether
//! read from the column's full-text index or gathered by a scan; NULL text or a NULL query
//! scores NULL; a malformed query is 42601 before any row is scored. The binder
//! (`plan/bind/text_search.rs`) binds the call as `bm25_score(query, table root, index root,
//! options, text, slot [, text, slot ...])`: the table's root page and each text's slot,
//! which the scan reads, the root of a full-text index over exactly those columns (0 without
//! one) and the analyzer's options.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::exec::batch::{Batch, ColumnData, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval::{evaluate, evaluate_scalar};
use crate::exec::index_access::fts::{self, read::FtsReader};
use crate::plan::Expr;
use crate::sqlstate;
use crate::storage::btree::{IndexTree, TableTree, Value as StoredValue};
use crate::types::text_search::bm25::{self, CorpusStats};
use crate::types::text_search::matcher::Document;
use crate::types::text_search::{Analyzer, analyzer, query};
use crate::types::{DataType, Value};

/// Statistics gathered so far in an execution: by (table root, the columns' slots in
/// increasing order, query text).
pub type StatsCache = HashMap<(u32, Vec<usize>, String), Arc<CorpusStats>>;

/// `fts_match(args)` for every row of `batch` when the query is a constant or parameter
/// (parsed once for the batch); `None` otherwise, for the registry's row-by-row function.
/// The same results and errors as that function.
pub fn try_fts_match(
    args: &[Expr],
    batch: &Batch,
    ctx: &ExecContext,
    rows: usize,
) -> ExecResult<Option<ColumnVector>> {
    // One text, or a row's texts (bound with the options always given).
    let (texts, query_arg, options) = match args {
        [text, query] => (std::slice::from_ref(text), query, None),
        [texts @ .., query, options] if !texts.is_empty() => (texts, query, Some(options)),
        _ => return Ok(None),
    };
    if !matches!(query_arg, Expr::Literal { .. } | Expr::Parameter { .. }) {
        return Ok(None);
    }
    let query_text = match evaluate_scalar(query_arg, ctx)? {
        Value::Text(text) => text,
        Value::Null => return Ok(Some(nulls(DataType::Boolean, rows))),
        _ => return Ok(None),
    };
    let analyzer = match options {
        None => Rc::new(Analyzer::default()),
        Some(options) => match evaluate_scalar(options, ctx)? {
            Value::Text(options) => analyzer::cached(&options)?,
            Value::Null => return Ok(Some(nulls(DataType::Boolean, rows))),
            _ => return Ok(None),
        },
    };
    let parsed = query::parse(&query_text, &analyzer)?;
    let texts = texts
        .iter()
        .map(|text| evaluate(text, batch, ctx))
        .collect::<ExecResult<Vec<_>>>()?;
    Ok(Some(per_document(
        &texts,
        rows,
        DataType::Boolean,
        &analyzer,
        |document| {
            Value::Boolean(
                parsed
                    .as_ref()
                    .is_some_and(|parsed| document.matches(parsed)),
            )
        },
    )))
}

/// The scores of `bm25_score(args)` for every row of `batch`.
pub fn bm25_scores(
    args: &[Expr],
    batch: &Batch,
    ctx: &ExecContext,
    rows: usize,
) -> ExecResult<ColumnVector> {
    let [query_arg, root, index_root, options, texts @ ..] = args else {
        return Err(ExecError::internal(
            "bm25_score is bound with its query, table, index and options",
        ));
    };
    let constant = |expr: &Expr| -> ExecResult<i64> {
        match evaluate_scalar(expr, ctx)? {
            Value::Integer(n) => Ok(n),
            other => Err(ExecError::internal(format!(
                "bm25_score argument {other:?}"
            ))),
        }
    };
    let root = u32::try_from(constant(root)?)
        .map_err(|_| ExecError::internal("bm25_score's table root"))?;
    let (mut columns, mut slots) = (Vec::new(), Vec::new());
    for pair in texts.chunks(2) {
        let [text, slot] = pair else {
            return Err(ExecError::internal(
                "bm25_score's texts come with their slots",
            ));
        };
        columns.push(evaluate(text, batch, ctx)?);
        slots.push(
            usize::try_from(constant(slot)?)
                .map_err(|_| ExecError::internal("bm25_score's column slot"))?,
        );
    }
    let index_root = u32::try_from(constant(index_root)?)
        .map_err(|_| ExecError::internal("bm25_score's index root"))?;
    let query_text = match evaluate_scalar(query_arg, ctx)? {
        Value::Text(text) => text,
        Value::Null => return Ok(nulls(DataType::Real, rows)),
        other => return Err(ExecError::internal(format!("bm25_score query {other:?}"))),
    };
    let analyzer = match evaluate_scalar(options, ctx)? {
        Value::Text(options) => analyzer::cached(&options)?,
        other => return Err(ExecError::internal(format!("bm25_score options {other:?}"))),
    };
    let parsed = query::parse(&query_text, &analyzer)?;
    let stats = match &parsed {
        Some(parsed) => {
            let column = Column {
                root,
                slots,
                index_root,
            };
            statistics(column, &query_text, parsed, &analyzer, ctx)?
        }
        None => Arc::new(CorpusStats::default()),
    };
    let items = parsed.as_ref().map(bm25::items).unwrap_or_default();
    Ok(per_document(
        &columns,
        rows,
        DataType::Real,
        &analyzer,
        |document| {
            Value::Real(
                parsed
                    .as_ref()
                    .map_or(0.0, |parsed| bm25::score(parsed, &items, document, &stats)),
            )
        },
    ))
}

/// A column of `rows` NULLs (a NULL query).
fn nulls(data_type: DataType, rows: usize) -> ColumnVector {
    let mut out = ColumnVector::with_capacity(data_type, rows);
    (0..rows).for_each(|_| out.push_null());
    out
}

/// Each row's `value` of the analyzed document of its texts (the token buffer reused from
/// row to row); NULL where every text is NULL.
fn per_document(
    texts: &[ColumnVector],
    rows: usize,
    data_type: DataType,
    analyzer: &Analyzer,
    mut value: impl FnMut(&Document<'_>) -> Value,
) -> ColumnVector {
    let mut out = ColumnVector::with_capacity(data_type, rows);
    let mut tokens = Vec::new();
    for row in 0..rows {
        tokens.clear();
        if analyzer.analyze_texts(texts.iter().map(|texts| text_at(texts, row)), &mut tokens) {
            out.push(&value(&Document::new(&tokens)));
        } else {
            out.push_null();
        }
    }
    out
}

/// Row `row` of a text column, borrowed; `None` for NULL.
fn text_at(column: &ColumnVector, row: usize) -> Option<&str> {
    match &column.data {
        ColumnData::Text(values) if !column.is_null(row) => Some(values.get_str(row)),
        _ => None,
    }
}

/// Where a ranked document's statistics come from: its table and its columns' slots, and
/// their full-text index (0 for none).
struct Column {
    root: u32,
    slots: Vec<usize>,
    index_root: u32,
}

/// The column's statistics for `query`, from the execution's cache, else from its full-text
/// index (a few lookups), else from one scan of the table.
fn statistics(
    column: Column,
    query_text: &str,
    parsed: &query::Query,
    analyzer: &Analyzer,
    ctx: &ExecContext,
) -> ExecResult<Arc<CorpusStats>> {
    let Column {
        root,
        slots,
        index_root,
    } = column;
    let mut key_slots = slots.clone();
    key_slots.sort_unstable();
    let key = (root, key_slots, query_text.to_owned());
    if let Some(cache) = ctx.text_search_stats.borrow().as_ref()
        && let Some(stats) = cache.get(&key)
    {
        return Ok(Arc::clone(stats));
    }
    let items = bm25::items(parsed);
    if index_root != 0 {
        ctx.source.merge_deferred()?;
        let reader = FtsReader::new(IndexTree::open(index_root), ctx.source.clone());
        let stats = Arc::new(fts::search::corpus_stats(&reader, &items)?);
        ctx.text_search_stats
            .borrow_mut()
            .get_or_insert_with(Box::default)
            .insert(key, Arc::clone(&stats));
        return Ok(stats);
    }
    let mut stats = CorpusStats::new(&items);
    let mut cursor = TableTree::open(root).cursor(ctx.source.clone());
    let mut valid = cursor.first()?;
    let mut tokens = Vec::new();
    let mut rows_read = 0usize;
    while valid {
        rows_read += 1;
        if rows_read.is_multiple_of(1024) {
            ctx.check_interrupt()?;
        }
        // Borrowed from the cursor's page, so new for each row.
        let mut values = Vec::with_capacity(slots.len());
        for &slot in &slots {
            // A column added after the row was written reads as NULL.
            values.push(if slot < cursor.column_count() {
                match cursor.value(slot)? {
                    StoredValue::Bytes(bytes) => Some(bytes),
                    _ => None,
                }
            } else {
                None
            });
        }
        let texts = values
            .iter()
            .map(|bytes| {
                bytes
                    .as_deref()
                    .map(|bytes| {
                        std::str::from_utf8(bytes).map_err(|_| {
                            ExecError::new(
                                sqlstate::DATA_CORRUPTED,
                                "a text value is not valid UTF-8",
                            )
                        })
                    })
                    .transpose()
            })
            .collect::<ExecResult<Vec<_>>>()?;
        tokens.clear();
        if analyzer.analyze_texts(texts, &mut tokens) {
            stats.add(&Document::new(&tokens), &items);
        }
        drop(values); // before the cursor moves off the page the texts are on
        valid = cursor.next()?;
    }
    let stats = Arc::new(stats);
    ctx.text_search_stats
        .borrow_mut()
        .get_or_insert_with(Box::default)
        .insert(key, Arc::clone(&stats));
    Ok(stats)
}
