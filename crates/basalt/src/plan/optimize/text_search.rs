//! The full-text rules: a filter with `fts_match(column, query)` over a scan of a table
//! whose column has a full-text index (or `fts_match((a, b), query)` over a table with an
//! index over exactly those columns, in any order) reads the matching rows from the index
//! (`AccessPath::TextSearch`) — instead of a full scan or a secondary index's range or seeks,
//! but not instead of a row-id range or seeks; and `ORDER BY bm25_score(column, query) DESC LIMIT n` above
//! such a search asks it for the best `limit + offset` rows only (block-max WAND).
//!
//! What it guarantees: the index serves a conjunct only when it analyzes text exactly as the
//! conjunct does (the binder gives `fts_match` over an indexed column the index's analyzer
//! options: see `plan/bind/text_search.rs`; a call with other options is left to the
//! filter), and the query is a constant or a parameter. The filter keeps every conjunct
//! until the last step of planning (`access::drop_enforced_conjuncts`), where the served
//! `fts_match` leaves it: the index returns exactly the rows it accepts. The top-k form is
//! chosen only over a served `fts_match` with the same column and query, so the rows it
//! ranks are the rows the statement filters to; the TopN stays above and orders them by the
//! exact score. The ORDER BY must be descending (an ascending one wants the worst rows).
//! Under a projection, the top-k search also returns each row's score as a last column and
//! the projection reads it in place of `bm25_score(column, query)`: the search computed it
//! with the same function (`bm25::item_score`, summed in the same order), so it is the value
//! `bm25_score` would give, bit for bit.

use std::sync::Arc;

use crate::catalog::{Catalog, IndexDef, IndexMethod};
use crate::exec::index_access::fts::{analyzer_options, indexes_exactly as same_columns};
use crate::plan::{AccessPath, Expr, OutputColumn, PlanKind, PlanNode, ScanColumn, TextSearch};
use crate::types::text_search::bm25;
use crate::types::{DataType, Value};

use super::util::{RankOrder, and_all, conjuncts, reads_row_id};

/// A filter directly above a full scan, its scan turned into a full-text search when one of
/// its conjuncts is an `fts_match` an index serves.
pub fn choose(mut node: PlanNode, catalog: &Catalog) -> PlanNode {
    let PlanKind::Filter { input, predicate } = &mut node.kind else {
        return node;
    };
    let PlanKind::Scan {
        table,
        columns,
        access,
        reverse: false,
    } = &mut input.kind
    else {
        return node;
    };
    // A row-id range or seek reads few rows, cheaply; a secondary index's range or seeks
    // may read many, and the full-text search reads only matching rows, so it wins there.
    if !matches!(
        access,
        AccessPath::Full | AccessPath::IndexRange { .. } | AccessPath::Seeks { index: Some(_), .. }
    ) {
        return node;
    }
    for conjunct in conjuncts(predicate.clone()) {
        let Some((texts, query)) = match_call(&conjunct) else {
            continue;
        };
        let Some(table_columns) = table_columns(columns, &texts) else {
            continue;
        };
        let index = catalog
            .indexes_of(&table.name)
            .find(|index| index.method == IndexMethod::Fts && same_columns(index, &table_columns));
        if let Some(index) = index
            && same_options(&conjunct, index)
        {
            *access = AccessPath::TextSearch(Box::new(TextSearch {
                index: Arc::clone(index),
                query: query.clone(),
                top: None,
                filter: None,
                score: false,
            }));
            break;
        }
    }
    node
}

/// `fts_match(Column, ..., query, options)` with a constant or parameter query: (the texts'
/// scan columns, query).
fn match_call(expr: &Expr) -> Option<(Vec<usize>, &Expr)> {
    let Expr::Function { function, args, .. } = expr else {
        return None;
    };
    if function.name != "fts_match" {
        return None;
    }
    let [texts @ .., query, _options] = args.as_slice() else {
        return None;
    };
    if texts.is_empty() || !matches!(query, Expr::Literal { .. } | Expr::Parameter { .. }) {
        return None;
    }
    Some((input_columns(texts.iter())?, query))
}

/// The input columns `texts` read, if each is a column.
fn input_columns<'e>(texts: impl Iterator<Item = &'e Expr>) -> Option<Vec<usize>> {
    texts
        .map(|text| match text {
            Expr::Column { index, .. } => Some(*index),
            _ => None,
        })
        .collect()
}

/// The table columns the scan columns `texts` read (sorted), if each reads one.
fn table_columns(columns: &[ScanColumn], texts: &[usize]) -> Option<Vec<usize>> {
    let mut table_columns = texts
        .iter()
        .map(|text| match columns.get(*text) {
            Some(ScanColumn::Column(column)) => Some(*column),
            _ => None,
        })
        .collect::<Option<Vec<usize>>>()?;
    table_columns.sort_unstable();
    Some(table_columns)
}

/// Whether a call's analyzer options (`fts_match`'s last argument, `bm25_score`'s fourth)
/// are `index`'s.
fn same_options(call: &Expr, index: &IndexDef) -> bool {
    let Expr::Function { function, args, .. } = call else {
        return false;
    };
    let options = if function.name == bm25::FUNCTION {
        args.get(3)
    } else {
        args.last()
    };
    matches!(options, Some(Expr::Literal { value: Value::Text(options), .. })
        if *options == analyzer_options(index))
}

/// Whether two queries are the same constant or the same parameter.
fn same_query(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Literal { value: a, .. }, Expr::Literal { value: b, .. }) => a == b,
        (Expr::Parameter { index: a, .. }, Expr::Parameter { index: b, .. }) => a == b,
        _ => false,
    }
}

/// Whether `conjunct` is an `fts_match` that `search` answers exactly.
fn served(columns: &[ScanColumn], search: &TextSearch, conjunct: &Expr) -> bool {
    match_call(conjunct).is_some_and(|(texts, query)| {
        table_columns(columns, &texts).is_some_and(|texts| same_columns(&search.index, &texts))
            && same_query(query, &search.query)
            && same_options(conjunct, &search.index)
    })
}

/// The conjuncts (positions) a full-text search enforces: the `fts_match` it serves.
pub fn enforced(columns: &[ScanColumn], search: &TextSearch, conjuncts: &[Expr]) -> Vec<usize> {
    conjuncts
        .iter()
        .enumerate()
        .filter(|(_, conjunct)| served(columns, search, conjunct))
        .map(|(position, _)| position)
        .collect()
}

/// `node` (what the LIMIT rules produced) with a TopN by `bm25_score DESC` (and then,
/// optionally, the row id ascending: the order the search breaks ties in) over a full-text
/// search turned into a top-k search.
pub fn top_k(mut node: PlanNode) -> PlanNode {
    match &mut node.kind {
        PlanKind::Project { input, .. } => {
            let taken = std::mem::replace(input.as_mut(), super::placeholder());
            **input = top_k(taken);
        }
        PlanKind::TopN {
            input,
            keys,
            limit,
            offset,
        } => {
            if let Some((first, order)) = RankOrder::of(keys)
                && first.descending
            {
                let top = (limit.clone(), offset.clone());
                // No projection between: the score cannot become a column (the TopN's output
                // is its input's), so the search does not emit it.
                try_top(input, &order, top, false);
            }
        }
        _ => {}
    }
    node
}

/// Follows the order's keys down through projections to the filtered search.
/// With `projected` (a projection is the caller), the search also emits each row's score as
/// a last column, and the result is that column's position: the projection right above the
/// filter then reads the score instead of computing `bm25_score` again, which would analyze
/// every returned row's text a second time.
fn try_top(
    node: &mut PlanNode,
    order: &RankOrder,
    top: (Expr, Option<Expr>),
    projected: bool,
) -> Option<usize> {
    let score_column = match &mut node.kind {
        PlanKind::Project { input, exprs } => {
            let order = order.below(exprs)?;
            if let Some(position) = try_top(input, &order, top, true) {
                let score = Expr::Column {
                    index: position,
                    data_type: DataType::Real,
                };
                for expr in exprs.iter_mut() {
                    replace(expr, &order.key, &score);
                }
            }
            return None;
        }
        PlanKind::Filter { input, predicate } => {
            let PlanKind::Scan {
                table,
                columns,
                access,
                ..
            } = &mut input.kind
            else {
                return None;
            };
            let AccessPath::TextSearch(search) = access else {
                return None;
            };
            if search.top.is_some()
                || !ranks(columns, search, &order.key)
                || !order
                    .tie
                    .as_ref()
                    .is_none_or(|tie| reads_row_id(table, columns, tie))
            {
                return None;
            }
            let remaining: Vec<Expr> = conjuncts(predicate.clone())
                .into_iter()
                .filter(|conjunct| !served(columns, search, conjunct))
                .collect();
            search.filter = and_all(remaining);
            search.top = Some(top);
            if !projected {
                return None;
            }
            search.score = true;
            let position = columns.len();
            input.schema.push(score_output());
            position
        }
        _ => return None,
    };
    // The filter passes its input's columns on, the score among them.
    node.schema.push(score_output());
    Some(score_column)
}

/// The column a top-k search appends: each row's BM25 score.
fn score_output() -> OutputColumn {
    OutputColumn {
        name: bm25::FUNCTION.to_string(),
        table: None,
        data_type: DataType::Real,
        source: None,
    }
}

/// `expr` with every occurrence of `target` replaced by `with`.
fn replace(expr: &mut Expr, target: &Expr, with: &Expr) {
    if expr == target {
        *expr = with.clone();
        return;
    }
    for child in expr.children_mut() {
        replace(child, target, with);
    }
}

/// Whether `key` is `bm25_score` of the search's column and query, by its analyzer.
fn ranks(columns: &[ScanColumn], search: &TextSearch, key: &Expr) -> bool {
    let Expr::Function { function, args, .. } = key else {
        return false;
    };
    if function.name != bm25::FUNCTION {
        return false;
    }
    // bm25_score(query, table root, index root, options, text, slot, ...).
    let [query, _, _, _, texts @ ..] = args.as_slice() else {
        return false;
    };
    input_columns(texts.iter().step_by(2))
        .and_then(|texts| table_columns(columns, &texts))
        .is_some_and(|texts| same_columns(&search.index, &texts))
        && same_query(query, &search.query)
        && same_options(key, &search.index)
}
