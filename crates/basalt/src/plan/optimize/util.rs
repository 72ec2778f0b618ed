//! Expression helpers shared by the optimizer's rules: splitting and joining AND-conjuncts,
//! finding the input columns an expression reads, renumbering them, deciding whether an
//! expression may be moved to another place in the plan at all, telling a scan's row id
//! among its columns, and reading a TopN's ranking order down through projections.

use std::collections::BTreeSet;

use crate::catalog::TableDef;
use crate::plan::{BinaryOp, Expr, PlanKind, PlanNode, ScanColumn, SortKey};
use crate::types::DataType;

/// The AND-conjuncts of `expr`, left to right (`a AND (b AND c)` gives `a, b, c`).
///
/// A filter keeps a row exactly when every conjunct is true, whatever the grouping, so the
/// conjuncts may be applied separately and in any order.
pub fn conjuncts(expr: Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    split_into(expr, &mut out);
    out
}

fn split_into(expr: Expr, out: &mut Vec<Expr>) {
    match expr {
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
            ..
        } => {
            split_into(*left, out);
            split_into(*right, out);
        }
        other => out.push(other),
    }
}

/// The conjunction of `exprs` (`None` for none).
pub fn and_all(exprs: Vec<Expr>) -> Option<Expr> {
    exprs.into_iter().reduce(|left, right| Expr::Binary {
        op: BinaryOp::And,
        left: Box::new(left),
        right: Box::new(right),
        data_type: DataType::Boolean,
    })
}

/// `input` under a filter of `predicates` (unchanged when there are none).
pub fn with_filter(input: PlanNode, predicates: Vec<Expr>) -> PlanNode {
    match and_all(predicates) {
        None => input,
        Some(predicate) => PlanNode {
            schema: input.schema.clone(),
            kind: PlanKind::Filter {
                input: Box::new(input),
                predicate,
            },
        },
    }
}

/// The input columns `expr` reads.
pub fn columns_of(expr: &Expr) -> BTreeSet<usize> {
    let mut columns = BTreeSet::new();
    expr.visit(&mut |inner| {
        if let Expr::Column { index, .. } = inner {
            columns.insert(*index);
        }
    });
    columns
}

/// Whether `expr` may be evaluated somewhere else in the plan (over another row shape, or a
/// different number of times) without changing results: no subqueries (their plans may read
/// this row through outer-column references, which would need renumbering) and no volatile
/// functions (moving them changes how often they run).
pub fn is_movable(expr: &Expr) -> bool {
    let mut movable = true;
    expr.visit(&mut |inner| match inner {
        Expr::ScalarSubquery { .. } | Expr::Exists { .. } | Expr::InSubquery { .. } => {
            movable = false
        }
        Expr::Function { function, .. } if function.volatile => movable = false,
        Expr::Sequence { .. } => movable = false,
        _ => {}
    });
    movable
}

/// Whether `expr` can be a scan bound: movable and reading no input column (parameters and
/// outer columns are fixed for one execution of the scan).
pub fn is_bound_value(expr: &Expr) -> bool {
    is_movable(expr) && expr.is_column_free()
}

/// Replaces every input column reference of `expr` by `f(reference)`.
///
/// Only for movable expressions: subquery plans are not entered.
pub fn map_columns(expr: &mut Expr, f: &mut impl FnMut(usize, DataType) -> Expr) {
    if let Expr::Column { index, data_type } = expr {
        *expr = f(*index, *data_type);
        return;
    }
    for child in expr.children_mut() {
        map_columns(child, f);
    }
}

/// `expr` with every input column index lowered by `by` (for moving a conjunct over a join's
/// combined row into its right input).
pub fn shift_columns(mut expr: Expr, by: usize) -> Expr {
    map_columns(&mut expr, &mut |index, data_type| Expr::Column {
        index: index.saturating_sub(by),
        data_type,
    });
    expr
}

/// The comparison with its operands swapped (`a < b` is `b > a`).
pub fn flip(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Less => BinaryOp::Greater,
        BinaryOp::LessOrEqual => BinaryOp::GreaterOrEqual,
        BinaryOp::Greater => BinaryOp::Less,
        BinaryOp::GreaterOrEqual => BinaryOp::LessOrEqual,
        other => other,
    }
}

/// Whether a scan reads `column` as the row id: the row id itself, or the table's INTEGER
/// PRIMARY KEY, which is its alias.
pub fn is_row_id(table: &TableDef, column: &ScanColumn) -> bool {
    match column {
        ScanColumn::RowId => true,
        ScanColumn::Column(column) => table.row_id_column == Some(*column),
        ScanColumn::Unread(_) => false,
    }
}

/// Whether `expr` is a column of a scan of `table` (reading `columns`) that holds the row id.
pub fn reads_row_id(table: &TableDef, columns: &[ScanColumn], expr: &Expr) -> bool {
    match expr {
        Expr::Column { index, .. } => columns
            .get(*index)
            .is_some_and(|column| is_row_id(table, column)),
        _ => false,
    }
}

/// A TopN's order as the vector and full-text search rules read it: one ranking key, then
/// optionally a tie-break (ascending; the rules accept it only when it is the row id, the
/// order their searches break ties in).
#[derive(Clone, Debug)]
pub struct RankOrder {
    pub key: Expr,
    pub tie: Option<Expr>,
}

impl RankOrder {
    /// The order of a TopN's `keys`, with its first key (for the caller to check its
    /// direction): one key, or two with the second ascending.
    pub fn of(keys: &[SortKey]) -> Option<(&SortKey, RankOrder)> {
        let (first, tie) = match keys {
            [first] => (first, None),
            [first, tie] if !tie.descending => (first, Some(tie.expr.clone())),
            _ => return None,
        };
        let order = RankOrder {
            key: first.expr.clone(),
            tie,
        };
        Some((first, order))
    }

    /// The same order over the input of a projection computing `exprs`: every key must be a
    /// column of the projection, and becomes that column's expression.
    pub fn below(&self, exprs: &[Expr]) -> Option<RankOrder> {
        let through = |expr: &Expr| match expr {
            Expr::Column { index, .. } => exprs.get(*index).cloned(),
            _ => None,
        };
        let tie = match &self.tie {
            None => None,
            Some(tie) => Some(through(tie)?),
        };
        Some(RankOrder {
            key: through(&self.key)?,
            tie,
        })
    }
}
