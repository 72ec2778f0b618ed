//! The vector search rule: `ORDER BY <distance between a vector column and a constant or
//! parameter> [, <row id>] LIMIT n` over a full scan of a table becomes a vector search
//! (`AccessPath::VectorSearch`): through an HNSW index on that column by that distance when
//! the table has one, else an exact search that keeps only the nearest rows as it scans.
//!
//! What it guarantees: the plan keeps its TopN, which orders the rows the search returns by
//! the exact distance, and its Filter; the search itself is given the Filter's predicate and
//! the limit (plus offset) so it can widen until that many rows pass, or keep that many
//! (`exec/operators/vector_scan.rs`). Only a full scan is replaced (a scan an ordinary index
//! narrows stays as it is: it reads few rows), and an index serves only the distance of its
//! own metric (an L2 index does not serve `<=>`).

use std::sync::Arc;

use crate::catalog::{Catalog, IndexMethod};
use crate::plan::{AccessPath, Expr, PlanKind, PlanNode, ScanColumn, VectorSearch};
use crate::types::functions::vector::operator_function;
use crate::types::vector::kernels::Metric;

use super::util::{RankOrder, reads_row_id};

/// `node` (what the LIMIT rule produced) with its TopN's scan turned into a vector search
/// where the rule applies.
pub fn rewrite(mut node: PlanNode, catalog: &Catalog) -> PlanNode {
    match &mut node.kind {
        PlanKind::Project { input, .. } => {
            let taken = std::mem::replace(input.as_mut(), super::placeholder());
            **input = rewrite(taken, catalog);
            node
        }
        PlanKind::TopN {
            input,
            keys,
            limit,
            offset,
        } => {
            // The distance, optionally then the row id ascending (a deterministic tie-break;
            // the search keeps the least by (distance, row id), so the TopN's order holds).
            if let Some((first, order)) = RankOrder::of(keys)
                && !first.descending
                && !first.nulls_first
            {
                let (limit, offset) = (limit.clone(), offset.clone());
                try_search(input, &order, &limit, offset.as_ref(), catalog);
            }
            node
        }
        _ => node,
    }
}

/// The metric a distance function computes.
fn function_metric(name: &str) -> Option<Metric> {
    [
        Metric::L2,
        Metric::NegativeInnerProduct,
        Metric::Cosine,
        Metric::L1,
    ]
    .into_iter()
    .find(|metric| operator_function(*metric) == name)
}

/// Follows the order's keys down through projections to the scan, and makes it a vector
/// search.
fn try_search(
    node: &mut PlanNode,
    order: &RankOrder,
    limit: &Expr,
    offset: Option<&Expr>,
    catalog: &Catalog,
) {
    match &mut node.kind {
        PlanKind::Project { input, exprs } => {
            // The keys read this projection's output: look through it.
            let Some(order) = order.below(exprs) else {
                return;
            };
            try_search(input, &order, limit, offset, catalog);
        }
        PlanKind::Filter { input, predicate } => {
            let predicate = predicate.clone();
            if let PlanKind::Scan { .. } = input.kind {
                make_search(input, order, limit, offset, Some(predicate), catalog);
            }
        }
        PlanKind::Scan { .. } => make_search(node, order, limit, offset, None, catalog),
        _ => {}
    }
}

fn make_search(
    scan: &mut PlanNode,
    order: &RankOrder,
    limit: &Expr,
    offset: Option<&Expr>,
    filter: Option<Expr>,
    catalog: &Catalog,
) {
    let PlanKind::Scan {
        table,
        columns,
        access,
        reverse,
    } = &mut scan.kind
    else {
        return;
    };
    if *access != AccessPath::Full || *reverse {
        return;
    }
    if !order
        .tie
        .as_ref()
        .is_none_or(|tie| reads_row_id(table, columns, tie))
    {
        return;
    }
    let Expr::Function { function, args, .. } = &order.key else {
        return;
    };
    let Some(metric) = function_metric(&function.name) else {
        return;
    };
    let [left, right] = args.as_slice() else {
        return;
    };
    // Every metric is symmetric, so the column may be on either side.
    let is_constant = |expr: &Expr| matches!(expr, Expr::Literal { .. } | Expr::Parameter { .. });
    let (column, query, query_first) = match (left, right) {
        (Expr::Column { index, .. }, query) if is_constant(query) => (*index, query, false),
        (query, Expr::Column { index, .. }) if is_constant(query) => (*index, query, true),
        _ => return,
    };
    let Some(ScanColumn::Column(table_column)) = columns.get(column) else {
        return;
    };
    let index = catalog.indexes_of(&table.name).find(|index| {
        index.method == IndexMethod::Hnsw(metric)
            && index.columns.first().map(|(c, _)| *c) == Some(*table_column)
    });
    *access = AccessPath::VectorSearch(Box::new(VectorSearch {
        index: index.map(Arc::clone),
        column: *table_column,
        metric,
        query: query.clone(),
        query_first,
        limit: limit.clone(),
        offset: offset.cloned(),
        filter,
    }));
}
