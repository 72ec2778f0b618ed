//! Access paths: a filter directly above a full table scan narrows the scan to a row-id range
//! or turns it into an index scan, when some of its conjuncts compare a key column with a
//! value fixed for the whole scan (a constant, a parameter, an outer column).
//!
//! The filter always stays above the new scan, with every conjunct: the scan only has to
//! return a superset of the rows that pass. That keeps the rule simple to trust — NULLs in
//! an index's key column, bounds that evaluate to NULL, and the second of two lower bounds
//! are all handled by the filter — and costs one predicate evaluation per surviving row.
//!
//! A comparison is usable only when the bound value has exactly the column's type, because
//! the executor evaluates bounds once and uses them as row ids (integers) or encodes them
//! with the column's key encoding: `id < 2.5` arrives from the binder as
//! `CAST(id AS real) < 2.5`, whose column side is not a bare column, so it is left alone.

use std::sync::Arc;

use crate::catalog::{Catalog, IndexDef, IndexMethod, TableDef};
use crate::plan::{BinaryOp, Expr, PlanKind, PlanNode, RangeBound, ScanColumn};
use crate::types::DataType;

use super::util::{conjuncts, flip, is_bound_value};

/// One usable comparison: scan output column `position` `op` `value`.
#[derive(Clone, Debug)]
struct Comparison {
    position: usize,
    op: BinaryOp,
    value: Expr,
}

/// `column op value` (or `value op column`) with a bound-able value of the column's type.
fn comparison(conjunct: &Expr) -> Option<Comparison> {
    let Expr::Binary {
        op, left, right, ..
    } = conjunct
    else {
        return None;
    };
    if !op.is_comparison() || *op == BinaryOp::NotEqual {
        return None;
    }
    let (column, value, op) = match (&**left, &**right) {
        (Expr::Column { .. }, value) if is_bound_value(value) => (&**left, value, *op),
        (value, Expr::Column { .. }) if is_bound_value(value) => (&**right, value, flip(*op)),
        _ => return None,
    };
    let Expr::Column { index, data_type } = column else {
        return None;
    };
    (value.data_type() == *data_type).then(|| Comparison {
        position: *index,
        op,
        value: value.clone(),
    })
}

/// The bounds of a chosen access path, with how good it is (higher is better).
struct Candidate {
    score: u32,
    index: Option<Arc<IndexDef>>,
    lower: RangeBound,
    upper: RangeBound,
}

/// The filter over a full table scan with the best narrower scan beneath it, or unchanged.
pub fn choose_access(node: PlanNode, catalog: &Catalog) -> PlanNode {
    let PlanNode { kind, schema } = node;
    let PlanKind::Filter { input, predicate } = kind else {
        return PlanNode { kind, schema };
    };
    let candidate = match &input.kind {
        PlanKind::TableScan {
            table,
            columns,
            lower: RangeBound::Unbounded,
            upper: RangeBound::Unbounded,
            ..
        } => best_candidate(table, columns, &predicate, catalog),
        _ => None,
    };
    let input = match (candidate, *input) {
        (
            Some(candidate),
            PlanNode {
                kind: PlanKind::TableScan { table, columns, .. },
                schema: scan_schema,
            },
        ) => PlanNode {
            kind: match candidate.index {
                None => PlanKind::TableScan {
                    table,
                    columns,
                    lower: candidate.lower,
                    upper: candidate.upper,
                    reverse: false,
                },
                Some(index) => PlanKind::IndexScan {
                    table,
                    index,
                    columns,
                    lower: candidate.lower,
                    upper: candidate.upper,
                    reverse: false,
                },
            },
            schema: scan_schema,
        },
        (_, input) => input,
    };
    PlanNode {
        kind: PlanKind::Filter {
            input: Box::new(input),
            predicate,
        },
        schema,
    }
}

fn best_candidate(
    table: &Arc<TableDef>,
    columns: &[ScanColumn],
    predicate: &Expr,
    catalog: &Catalog,
) -> Option<Candidate> {
    let comparisons: Vec<Comparison> = conjuncts(predicate.clone())
        .iter()
        .filter_map(comparison)
        .collect();
    if comparisons.is_empty() {
        return None;
    }
    let mut best = row_id_candidate(table, columns, &comparisons);
    for index in catalog.indexes_of(&table.name) {
        if let Some(candidate) = index_candidate(table, index, columns, &comparisons)
            && best.as_ref().is_none_or(|b| candidate.score > b.score)
        {
            best = Some(candidate);
        }
    }
    best
}

/// Whether scan output `position` is the table column `column` (of that column's type).
fn reads_column(
    table: &TableDef,
    columns: &[ScanColumn],
    position: usize,
    column: usize,
    comparison_type: DataType,
) -> bool {
    columns.get(position) == Some(&ScanColumn::Column(column))
        && table
            .columns
            .get(column)
            .is_some_and(|c| c.data_type == comparison_type)
}

fn row_id_candidate(
    table: &TableDef,
    columns: &[ScanColumn],
    comparisons: &[Comparison],
) -> Option<Candidate> {
    let is_row_id = |c: &&Comparison| {
        c.value.data_type() == DataType::Integer
            && match columns.get(c.position) {
                Some(ScanColumn::RowId) => true,
                Some(ScanColumn::Column(column)) => {
                    table.row_id_column == Some(*column)
                        && reads_column(table, columns, c.position, *column, DataType::Integer)
                }
                None => false,
            }
    };
    let on_row_id: Vec<&Comparison> = comparisons.iter().filter(is_row_id).collect();
    if let Some(equal) = on_row_id.iter().find(|c| c.op == BinaryOp::Equal) {
        return Some(Candidate {
            score: 1000,
            index: None,
            lower: RangeBound::Included(vec![equal.value.clone()]),
            upper: RangeBound::Included(vec![equal.value.clone()]),
        });
    }
    let (lower, upper) = range_bounds(&on_row_id, Vec::new(), false);
    let sides =
        u32::from(lower != RangeBound::Unbounded) + u32::from(upper != RangeBound::Unbounded);
    (sides > 0).then_some(Candidate {
        score: 3 * sides,
        index: None,
        lower,
        upper,
    })
}

/// Bounds for `prefix` (equalities on the leading key columns) followed by the first lower
/// and first upper comparison in `range` on the next column. For a descending key column the
/// byte order is reversed, so a value's lower bound is the key range's upper bound.
fn range_bounds(
    range: &[&Comparison],
    prefix: Vec<Expr>,
    descending: bool,
) -> (RangeBound, RangeBound) {
    let with = |value: &Expr| {
        let mut key = prefix.clone();
        key.push(value.clone());
        key
    };
    let prefix_bound = || {
        if prefix.is_empty() {
            RangeBound::Unbounded
        } else {
            RangeBound::Included(prefix.clone())
        }
    };
    let mut value_lower = None;
    let mut value_upper = None;
    for comparison in range {
        match comparison.op {
            BinaryOp::Greater if value_lower.is_none() => {
                value_lower = Some(RangeBound::Excluded(with(&comparison.value)))
            }
            BinaryOp::GreaterOrEqual if value_lower.is_none() => {
                value_lower = Some(RangeBound::Included(with(&comparison.value)))
            }
            BinaryOp::Less if value_upper.is_none() => {
                value_upper = Some(RangeBound::Excluded(with(&comparison.value)))
            }
            BinaryOp::LessOrEqual if value_upper.is_none() => {
                value_upper = Some(RangeBound::Included(with(&comparison.value)))
            }
            _ => {}
        }
    }
    let (lower, upper) = if descending {
        (value_upper, value_lower)
    } else {
        (value_lower, value_upper)
    };
    (
        lower.unwrap_or_else(prefix_bound),
        upper.unwrap_or_else(prefix_bound),
    )
}

fn index_candidate(
    table: &TableDef,
    index: &Arc<IndexDef>,
    columns: &[ScanColumn],
    comparisons: &[Comparison],
) -> Option<Candidate> {
    if index.method != IndexMethod::BTree {
        return None;
    }
    let on = |column: usize| -> Vec<&Comparison> {
        comparisons
            .iter()
            .filter(|c| reads_column(table, columns, c.position, column, c.value.data_type()))
            .collect()
    };
    let mut prefix = Vec::new();
    let mut range = None;
    for &(column, order) in &index.columns {
        let compared = on(column);
        match compared.iter().find(|c| c.op == BinaryOp::Equal) {
            Some(equal) => prefix.push(equal.value.clone()),
            None => {
                range = Some((compared, order.descending));
                break;
            }
        }
    }
    let equalities = prefix.len() as u32;
    let full_unique = index.unique && prefix.len() == index.columns.len();
    let (lower, upper) = match range {
        Some((compared, descending)) => range_bounds(&compared, prefix, descending),
        None => (
            RangeBound::Included(prefix.clone()),
            RangeBound::Included(prefix),
        ),
    };
    let bounded = |bound: &RangeBound| match bound {
        RangeBound::Unbounded => 0,
        RangeBound::Included(key) | RangeBound::Excluded(key) => {
            u32::from(key.len() as u32 > equalities)
        }
    };
    let range_sides = bounded(&lower) + bounded(&upper);
    if equalities == 0 && range_sides == 0 {
        return None;
    }
    Some(Candidate {
        score: 10 * equalities + if full_unique { 30 } else { 0 } + 2 * range_sides,
        index: Some(index.clone()),
        lower,
        upper,
    })
}
