//! Filtering inside the page: the simple conjuncts of a scan's WHERE clause tested on a table
//! leaf's column arrays, so a forward table scan copies only the rows that can pass.
//!
//! A table leaf stores each column as an array (`storage::btree::table_leaf`): a null bitmap,
//! fixed-width values, or descriptors into the page's heap. A conjunct `column op constant`
//! (`=`, `<>`, `<`, `<=`, `>`, `>=` on an integer, real, boolean or text column, the constant
//! a literal or a parameter) or `column IS [NOT] NULL` can be decided there, from the page's
//! bytes, before any other column of the row is decoded — where a scan under a filter used
//! to copy every requested column of every row into a batch and drop most of them after.
//!
//! What it guarantees: [`LeafFilter::select`] keeps every row for which every compiled
//! conjunct could be true. It drops a row only when one of them is false or NULL for it,
//! decided with the evaluator's own comparison (`types::compare`) on the value the scan would
//! have read; a value it cannot decide cheaply (text in an overflow chain, a comparison the
//! types refuse) keeps the row. So it is a pre-filter: the plan's `Filter` stays above the
//! scan and still evaluates the whole predicate on the rows that come through, which keeps
//! every other conjunct, and every error, where it was. What changes is only which rows the
//! filter sees: like PostgreSQL, which tests a scan's quals in the order it chooses, a
//! conjunct that would fail with an error on a row another conjunct rejects may no longer
//! be evaluated there.

use crate::catalog::TableDef;
use crate::exec::context::ExecContext;
use crate::exec::error::ExecResult;
use crate::exec::eval;
use crate::plan::expr::BinaryOp;
use crate::plan::optimize::util;
use crate::plan::{Expr, ScanColumn};
use crate::storage::btree::TableLeaf;
use crate::storage::btree::row::ValueRef;
use crate::types::{self, DataType, Value};

/// How a column's stored values are read for a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stored {
    /// Eight bytes: an `i64`.
    Integer,
    /// Eight bytes: an `f64`'s bits.
    Real,
    /// One byte, non-zero for true.
    Boolean,
    /// UTF-8 bytes in the heap (or an overflow chain).
    Text,
}

#[derive(Debug, Clone)]
enum Test {
    /// `IS NULL` (`negated`: `IS NOT NULL`).
    Null { negated: bool },
    /// `column op value`, the value non-NULL (a comparison with NULL passes no row).
    Compare {
        op: BinaryOp,
        value: Value,
        stored: Stored,
    },
    /// A comparison with NULL: no row passes.
    Nothing,
}

/// One compiled conjunct: a test of the column in `slot`.
#[derive(Debug, Clone)]
struct Conjunct {
    slot: usize,
    test: Test,
}

/// The conjuncts of a filter that a table scan can test inside its leaves.
#[derive(Debug, Clone)]
pub struct LeafFilter {
    conjuncts: Vec<Conjunct>,
}

impl LeafFilter {
    /// The conjuncts of `predicate` (over the scan's output `columns` of `table`) that can
    /// be tested on a leaf, with their constants evaluated; `None` when there are none.
    pub fn compile(
        predicate: &Expr,
        table: &TableDef,
        columns: &[ScanColumn],
        ctx: &ExecContext,
    ) -> ExecResult<Option<LeafFilter>> {
        let mut conjuncts = Vec::new();
        for part in util::conjuncts(predicate.clone()) {
            if let Some(conjunct) = compile_conjunct(&part, table, columns, ctx)? {
                conjuncts.push(conjunct);
            }
        }
        Ok((!conjuncts.is_empty()).then_some(LeafFilter { conjuncts }))
    }

    /// Replaces `selected` with the positions in `rows` of `leaf` that may pass (increasing).
    pub fn select(
        &self,
        leaf: &TableLeaf<'_>,
        rows: std::ops::Range<usize>,
        selected: &mut Vec<usize>,
    ) {
        selected.clear();
        selected.extend(rows);
        for conjunct in &self.conjuncts {
            if selected.is_empty() {
                return;
            }
            if conjunct.slot >= leaf.column_count() {
                // Rows written before ALTER TABLE ADD COLUMN: the column reads as NULL.
                if !matches!(conjunct.test, Test::Null { negated: false }) {
                    selected.clear();
                }
                continue;
            }
            let slot = conjunct.slot;
            match &conjunct.test {
                Test::Nothing => selected.clear(),
                Test::Null { negated } => {
                    selected.retain(|&row| leaf.is_null(row, slot) != *negated);
                }
                Test::Compare { op, value, stored } => {
                    let fixed = leaf.fixed_column(slot);
                    selected.retain(|&row| {
                        !leaf.is_null(row, slot)
                            && may_pass(leaf, fixed, row, slot, *op, value, *stored)
                    });
                }
            }
        }
    }
}

/// Whether the stored value at (`row`, `slot`) may satisfy `op value`: false only when the
/// comparison is decided and false.
fn may_pass(
    leaf: &TableLeaf<'_>,
    fixed: Option<(&[u8], usize)>,
    row: usize,
    slot: usize,
    op: BinaryOp,
    value: &Value,
    stored: Stored,
) -> bool {
    let ordering = match stored {
        Stored::Text => match (leaf.value(row, slot), value) {
            (Ok(ValueRef::Var(bytes)), Value::Text(text)) => Some(bytes.cmp(text.as_bytes())),
            _ => None,
        },
        Stored::Integer | Stored::Real | Stored::Boolean => {
            let width = if stored == Stored::Boolean { 1 } else { 8 };
            let cell = match fixed {
                Some((bytes, w)) if w == width => bytes.get(row * width..(row + 1) * width),
                _ => None,
            };
            cell.and_then(|cell| {
                let mut word = [0u8; 8];
                word[..width].copy_from_slice(cell);
                let bits = u64::from_le_bytes(word);
                let stored_value = match stored {
                    Stored::Integer => Value::Integer(bits as i64),
                    Stored::Real => Value::Real(f64::from_bits(bits)),
                    _ => Value::Boolean(bits & 0xFF != 0),
                };
                types::compare(&stored_value, value).ok().flatten()
            })
        }
    };
    match ordering {
        None => true,
        Some(ordering) => eval::compare_result(op, ordering),
    }
}

/// The table slot and stored form of scan output column `index`, when it is a column the
/// leaf holds in a form a comparison can read.
fn column_slot(
    table: &TableDef,
    columns: &[ScanColumn],
    index: usize,
) -> Option<(usize, DataType)> {
    match columns.get(index)? {
        ScanColumn::Column(column) => {
            let column = table.columns.get(*column)?;
            Some((column.slot, column.data_type))
        }
        ScanColumn::RowId | ScanColumn::Unread(_) => None,
    }
}

fn compile_conjunct(
    expr: &Expr,
    table: &TableDef,
    columns: &[ScanColumn],
    ctx: &ExecContext,
) -> ExecResult<Option<Conjunct>> {
    match expr {
        Expr::IsNull { operand, negated } => {
            let Expr::Column { index, .. } = operand.as_ref() else {
                return Ok(None);
            };
            Ok(
                column_slot(table, columns, *index).map(|(slot, _)| Conjunct {
                    slot,
                    test: Test::Null { negated: *negated },
                }),
            )
        }
        Expr::Binary {
            op, left, right, ..
        } if op.is_comparison() => {
            let (index, constant, op) = match (left.as_ref(), right.as_ref()) {
                (Expr::Column { index, .. }, constant) if is_constant(constant) => {
                    (*index, constant, *op)
                }
                (constant, Expr::Column { index, .. }) if is_constant(constant) => {
                    (*index, constant, util::flip(*op))
                }
                _ => return Ok(None),
            };
            let Some((slot, data_type)) = column_slot(table, columns, index) else {
                return Ok(None);
            };
            let stored = match data_type {
                DataType::Integer => Stored::Integer,
                DataType::Real => Stored::Real,
                DataType::Boolean => Stored::Boolean,
                DataType::Text(_) => Stored::Text,
                _ => return Ok(None),
            };
            let value = eval::evaluate_scalar(constant, ctx)?;
            let test = match (&value, stored) {
                (Value::Null, _) => Test::Nothing,
                (Value::Text(_), Stored::Text)
                | (Value::Integer(_) | Value::Real(_), Stored::Integer | Stored::Real)
                | (Value::Boolean(_), Stored::Boolean) => Test::Compare { op, value, stored },
                _ => return Ok(None),
            };
            Ok(Some(Conjunct { slot, test }))
        }
        _ => Ok(None),
    }
}

/// Whether `expr` is a constant of the statement: a literal or a parameter.
fn is_constant(expr: &Expr) -> bool {
    matches!(expr, Expr::Literal { .. } | Expr::Parameter { .. })
}
