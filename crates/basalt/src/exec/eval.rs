//! Expression evaluation over batches.
//!
//! [`evaluate`] computes an expression for every row of a batch and returns a column
//! vector. Arithmetic and comparisons on integer and real vectors run as tight loops over
//! the arrays (with the null masks combined afterwards); everything else runs row by row
//! through `crate::types` (casts, functions, LIKE), which defines the semantics.
//!
//! Evaluation is *lazy where SQL requires it*: the right side of AND / OR, later COALESCE
//! arguments and CASE branches are evaluated only for the rows that reach them, so
//! `b <> 0 AND a / b > 1` never divides by zero, as in PostgreSQL and SQLite.
//!
//! Subqueries run through the executor: uncorrelated ones once per execution (cached in
//! the context), correlated ones once per row, with the row pushed on the context's stack
//! of enclosing rows that `Expr::OuterColumn` reads.

use std::cmp::Ordering;

use crate::plan::{BinaryOp, Expr, PlanNode, SequenceOperation, UnaryOp};
use crate::sqlstate;
use crate::types::{self, DataType, TypeError, Value};

use super::batch::{Batch, ColumnData, ColumnVector};
use super::context::ExecContext;
use super::error::{ExecError, ExecResult};
use super::operators;

impl From<TypeError> for ExecError {
    fn from(error: TypeError) -> Self {
        ExecError::new(error.sqlstate(), error.to_string())
    }
}

/// Evaluates a column-free expression once.
pub fn evaluate_scalar(expr: &Expr, ctx: &ExecContext) -> ExecResult<Value> {
    // Literals and parameters, the usual VALUES entries, skip the one-row vector.
    match expr {
        Expr::Literal { value, data_type }
            if value.is_null() || value.data_type() == data_type.unmodified() =>
        {
            return Ok(value.clone());
        }
        Expr::Parameter { index, data_type } => return parameter(*index, *data_type, ctx),
        _ => {}
    }
    let batch = Batch {
        columns: Vec::new(),
        rows: 1,
    };
    Ok(evaluate(expr, &batch, ctx)?.get(0))
}

/// The rows of `batch` for which the predicate is true (not false, not NULL).
pub fn select_true(predicate: &Expr, batch: &Batch, ctx: &ExecContext) -> ExecResult<Vec<u32>> {
    let result = evaluate(predicate, batch, ctx)?;
    Ok(true_rows(&result))
}

fn true_rows(vector: &ColumnVector) -> Vec<u32> {
    let mut rows = Vec::new();
    match &vector.data {
        ColumnData::Boolean(values) => {
            for (row, &value) in values.iter().enumerate() {
                if value && !vector.is_null(row) {
                    rows.push(row as u32);
                }
            }
        }
        ColumnData::Integer(values) => {
            for (row, &value) in values.iter().enumerate() {
                if value != 0 && !vector.is_null(row) {
                    rows.push(row as u32);
                }
            }
        }
        _ => {}
    }
    rows
}

/// Evaluates each of `exprs` for every row of `batch` (an operator's keys, arguments or
/// output columns).
pub fn evaluate_all<'e>(
    exprs: impl IntoIterator<Item = &'e Expr>,
    batch: &Batch,
    ctx: &ExecContext,
) -> ExecResult<Vec<ColumnVector>> {
    exprs
        .into_iter()
        .map(|expr| evaluate(expr, batch, ctx))
        .collect()
}

/// Evaluates `expr` for every row of `batch`.
pub fn evaluate(expr: &Expr, batch: &Batch, ctx: &ExecContext) -> ExecResult<ColumnVector> {
    let rows = batch.rows;
    match expr {
        Expr::Column { index, .. } => batch
            .columns
            .get(*index)
            .cloned()
            .ok_or_else(|| ExecError::internal(format!("column {index} is not in the input"))),
        Expr::Literal { value, data_type } => Ok(ColumnVector::constant(value, *data_type, rows)),
        Expr::Parameter { index, data_type } => {
            let value = parameter(*index, *data_type, ctx)?;
            Ok(ColumnVector::constant(
                &value,
                result_type(*data_type, &value),
                rows,
            ))
        }
        Expr::OuterColumn {
            depth,
            index,
            data_type,
        } => {
            let outer = ctx.outer_rows.borrow();
            let value = outer
                .len()
                .checked_sub(*depth)
                .and_then(|level| outer.get(level))
                .and_then(|row| row.get(*index))
                .cloned()
                .ok_or_else(|| ExecError::internal("correlated column outside its subquery"))?;
            Ok(ColumnVector::constant(&value, *data_type, rows))
        }
        Expr::CurrentTimestamp => Ok(ColumnVector::constant(
            &Value::TimestampTz(ctx.statement_time()),
            DataType::TimestampTz,
            rows,
        )),
        Expr::CurrentDate => {
            // The date on the session zone's calendar, as PostgreSQL's current_date.
            let zone = types::timezone::session_zone();
            let local = types::timezone::utc_to_local(&zone, ctx.statement_time())?;
            let days = local.div_euclid(86_400_000_000);
            Ok(ColumnVector::constant(
                &Value::Date(days as i32),
                DataType::Date,
                rows,
            ))
        }
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
            ..
        } => logical(left, right, true, batch, ctx),
        Expr::Binary {
            op: BinaryOp::Or,
            left,
            right,
            ..
        } => logical(left, right, false, batch, ctx),
        Expr::Binary {
            op,
            left,
            right,
            data_type,
        } => {
            let left = evaluate(left, batch, ctx)?;
            let right = evaluate(right, batch, ctx)?;
            binary(*op, &left, &right, *data_type)
        }
        Expr::Unary {
            op,
            operand,
            data_type,
        } => {
            let operand = evaluate(operand, batch, ctx)?;
            row_wise(*data_type, rows, |row| {
                let value = operand.get(row);
                Ok(match op {
                    UnaryOp::Not => match value {
                        Value::Null => Value::Null,
                        Value::Boolean(v) => Value::Boolean(!v),
                        Value::Integer(v) => Value::Boolean(v == 0),
                        other => {
                            return Err(ExecError::new(
                                sqlstate::DATATYPE_MISMATCH,
                                format!("NOT needs a boolean, not {other:?}"),
                            ));
                        }
                    },
                    UnaryOp::Negate => types::arith::negate(&value)?,
                    UnaryOp::Plus => types::arith::unary_plus(&value)?,
                    UnaryOp::BitNot => types::arith::bit_not(&value)?,
                })
            })
        }
        Expr::Cast { operand, to } => {
            let operand = evaluate(operand, batch, ctx)?;
            // A cast to a modifier it enforces (`::vector(3)`) always runs.
            if to.modifier().is_none() && operand.data_type().unmodified() == to.unmodified() {
                return Ok(operand);
            }
            row_wise(*to, rows, |row| Ok(types::cast(&operand.get(row), *to)?))
        }
        Expr::IsNull { operand, negated } => {
            let operand = evaluate(operand, batch, ctx)?;
            let values = (0..rows)
                .map(|row| operand.is_null(row) != *negated)
                .collect();
            Ok(ColumnVector {
                data: ColumnData::Boolean(values),
                nulls: Vec::new(),
            })
        }
        Expr::IsDistinctFrom {
            left,
            right,
            negated,
        } => {
            let left = evaluate(left, batch, ctx)?;
            let right = evaluate(right, batch, ctx)?;
            let mut values = Vec::with_capacity(rows);
            for row in 0..rows {
                let distinct = match (left.get(row), right.get(row)) {
                    (Value::Null, Value::Null) => false,
                    (Value::Null, _) | (_, Value::Null) => true,
                    (a, b) => types::compare(&a, &b)? != Some(Ordering::Equal),
                };
                values.push(distinct != *negated);
            }
            Ok(ColumnVector {
                data: ColumnData::Boolean(values),
                nulls: Vec::new(),
            })
        }
        Expr::InList {
            operand,
            list,
            negated,
        } => {
            let operand = evaluate(operand, batch, ctx)?;
            let items = list
                .iter()
                .map(|item| evaluate(item, batch, ctx))
                .collect::<ExecResult<Vec<_>>>()?;
            row_wise(DataType::Boolean, rows, |row| {
                let value = operand.get(row);
                let candidates = items.iter().map(|item| item.get(row));
                in_values(&value, candidates, *negated)
            })
        }
        Expr::Like {
            operand,
            pattern,
            escape,
            negated,
            case_insensitive,
            glob,
        } => {
            let operand = evaluate(operand, batch, ctx)?;
            let pattern = evaluate(pattern, batch, ctx)?;
            let escape = match escape {
                Some(escape) => Some(evaluate(escape, batch, ctx)?),
                None => None,
            };
            row_wise(DataType::Boolean, rows, |row| {
                let (Value::Text(text), Value::Text(pattern)) =
                    (as_text(operand.get(row)), as_text(pattern.get(row)))
                else {
                    return Ok(Value::Null);
                };
                let matched = if *glob {
                    types::pattern::glob(&text, &pattern)
                } else {
                    let escape_char = match escape.as_ref().map(|e| e.get(row)) {
                        None => Some('\\'),
                        Some(Value::Text(e)) => e.chars().next(),
                        Some(_) => return Ok(Value::Null),
                    };
                    types::pattern::like(&text, &pattern, escape_char, *case_insensitive)?
                };
                Ok(Value::Boolean(matched != *negated))
            })
        }
        Expr::Case {
            operand,
            branches,
            else_result,
            data_type,
        } => evaluate_case(
            operand.as_deref(),
            branches,
            else_result.as_deref(),
            *data_type,
            batch,
            ctx,
        ),
        Expr::Coalesce { args, data_type } => {
            let mut output: Vec<Value> = vec![Value::Null; rows];
            let mut pending: Vec<u32> = (0..rows as u32).collect();
            for arg in args {
                if pending.is_empty() {
                    break;
                }
                let subset = batch.gather(&pending);
                let values = evaluate(arg, &subset, ctx)?;
                let mut still_null = Vec::new();
                for (position, &row) in pending.iter().enumerate() {
                    if values.is_null(position) {
                        still_null.push(row);
                    } else {
                        output[row as usize] = values.get(position);
                    }
                }
                pending = still_null;
            }
            values_to_vector(output, *data_type)
        }
        Expr::Function {
            function,
            args,
            data_type,
        } => {
            if let Some(distances) =
                super::eval_vector::try_distance(&function.name, args, batch, ctx, rows)?
            {
                return Ok(distances);
            }
            if function.name == crate::types::text_search::bm25::FUNCTION {
                return super::eval_text_search::bm25_scores(args, batch, ctx, rows);
            }
            if function.name == "fts_match"
                && let Some(matches) =
                    super::eval_text_search::try_fts_match(args, batch, ctx, rows)?
            {
                return Ok(matches);
            }
            let definition = types::scalar_function(&function.name).ok_or_else(|| {
                ExecError::new(
                    sqlstate::UNDEFINED_FUNCTION,
                    format!("function {}() does not exist", function.name),
                )
            })?;
            let args = args
                .iter()
                .map(|arg| evaluate(arg, batch, ctx))
                .collect::<ExecResult<Vec<_>>>()?;
            let mut values = Vec::with_capacity(args.len());
            row_wise(*data_type, rows, |row| {
                values.clear();
                values.extend(args.iter().map(|arg| arg.get(row)));
                if definition.strict && values.iter().any(Value::is_null) {
                    return Ok(Value::Null);
                }
                Ok((definition.call)(&values)?)
            })
        }
        Expr::Sequence {
            operation,
            sequence,
            args,
        } => {
            let args = args
                .iter()
                .map(|arg| evaluate(arg, batch, ctx))
                .collect::<ExecResult<Vec<_>>>()?;
            // One call per row: each row's nextval is a separate step of the counter.
            row_wise(DataType::Integer, rows, |row| {
                let value = match operation {
                    SequenceOperation::Next => super::sequence::next_value(sequence, ctx)?,
                    SequenceOperation::Current => super::sequence::current_value(sequence, ctx)?,
                    SequenceOperation::Set => {
                        let value = args.first().map(|arg| arg.get(row));
                        let called = args.get(1).map_or(Value::Boolean(true), |arg| arg.get(row));
                        match (value, called) {
                            (Some(Value::Integer(value)), Value::Boolean(called)) => {
                                super::sequence::set_value(sequence, value, called, ctx)?
                            }
                            // setval is strict, as in PostgreSQL.
                            _ => return Ok(Value::Null),
                        }
                    }
                };
                Ok(Value::Integer(value))
            })
        }
        Expr::ScalarSubquery { plan, data_type } => {
            subquery_per_row(plan, batch, ctx, *data_type, |batches| {
                let mut values = batches
                    .iter()
                    .flat_map(|b| (0..b.rows).map(move |row| (b, row)));
                let first = values.next();
                if values.next().is_some() {
                    return Err(ExecError::new(
                        sqlstate::CARDINALITY_VIOLATION,
                        "more than one row returned by a subquery used as an expression",
                    ));
                }
                Ok(first
                    .and_then(|(b, row)| b.columns.first().map(|c| c.get(row)))
                    .unwrap_or(Value::Null))
            })
        }
        Expr::Exists { plan, negated } => {
            subquery_per_row(plan, batch, ctx, DataType::Boolean, |batches| {
                Ok(Value::Boolean(
                    batches.iter().any(|b| b.rows > 0) != *negated,
                ))
            })
        }
        Expr::InSubquery {
            operand,
            plan,
            negated,
            quantifier,
        } => {
            let operand = evaluate(operand, batch, ctx)?;
            let correlated = plan_is_correlated(plan);
            let mut output = Vec::with_capacity(rows);
            for row in 0..rows {
                let batches = run_subquery(plan, batch, row, correlated, ctx)?;
                let candidates = batches.iter().flat_map(|b| {
                    (0..b.rows).filter_map(move |r| b.columns.first().map(|c| c.get(r)))
                });
                output.push(match quantifier {
                    None => in_values(&operand.get(row), candidates, *negated)?,
                    Some(quantifier) => quantified(&operand.get(row), candidates, *quantifier)?,
                });
            }
            values_to_vector(output, DataType::Boolean)
        }
    }
}

/// Parameter `index`'s value, converted to the type its context gave it.
fn parameter(index: usize, data_type: DataType, ctx: &ExecContext) -> ExecResult<Value> {
    let value = ctx.params.get(index).cloned().ok_or_else(|| {
        ExecError::new(
            sqlstate::PROTOCOL_VIOLATION,
            format!("parameter ${} has no value", index + 1),
        )
    })?;
    conform(value, data_type)
}

/// Converts a parameter value to the type its context expects.
fn conform(value: Value, data_type: DataType) -> ExecResult<Value> {
    if data_type == DataType::Null || value.is_null() || value.is_of(data_type) {
        return Ok(value);
    }
    Ok(types::cast(&value, data_type)?)
}

fn result_type(declared: DataType, value: &Value) -> DataType {
    if declared == DataType::Null {
        value.data_type()
    } else {
        declared
    }
}

fn as_text(value: Value) -> Value {
    match value {
        Value::Null | Value::Text(_) => value,
        other => Value::Text(other.to_string()),
    }
}

/// `value IN candidates` with SQL's three-valued result.
fn in_values(
    value: &Value,
    candidates: impl Iterator<Item = Value>,
    negated: bool,
) -> ExecResult<Value> {
    let mut candidates = candidates.peekable();
    // `x IN (empty set)` is false whatever x is, NULL included (SQL standard, PostgreSQL).
    if candidates.peek().is_none() {
        return Ok(Value::Boolean(negated));
    }
    if value.is_null() {
        return Ok(Value::Null);
    }
    let mut saw_null = false;
    for candidate in candidates {
        match types::compare(value, &candidate)? {
            Some(Ordering::Equal) => return Ok(Value::Boolean(!negated)),
            None => saw_null = true,
            Some(_) => {}
        }
    }
    Ok(if saw_null {
        Value::Null
    } else {
        Value::Boolean(negated)
    })
}

/// `value op ANY (candidates)` / `op ALL`, three-valued as PostgreSQL's: ANY is true when
/// some comparison is true, else NULL when some is NULL, else false (so false over no rows);
/// ALL is false when some comparison is false, else NULL when some is NULL, else true (so
/// true over no rows, even for a NULL value).
fn quantified(
    value: &Value,
    candidates: impl Iterator<Item = Value>,
    quantifier: crate::plan::expr::Quantifier,
) -> ExecResult<Value> {
    let mut saw_null = false;
    for candidate in candidates {
        let holds = match types::compare(value, &candidate)? {
            None => {
                saw_null = true;
                continue;
            }
            Some(ordering) => match quantifier.op {
                BinaryOp::Equal => ordering == Ordering::Equal,
                BinaryOp::NotEqual => ordering != Ordering::Equal,
                BinaryOp::Less => ordering == Ordering::Less,
                BinaryOp::LessOrEqual => ordering != Ordering::Greater,
                BinaryOp::Greater => ordering == Ordering::Greater,
                BinaryOp::GreaterOrEqual => ordering != Ordering::Less,
                _ => {
                    return Err(ExecError::internal(
                        "ANY / ALL with an operator that does not compare",
                    ));
                }
            },
        };
        if holds != quantifier.all {
            // ANY found a row that satisfies it; ALL found one that does not.
            return Ok(Value::Boolean(holds));
        }
    }
    Ok(if saw_null {
        Value::Null
    } else {
        Value::Boolean(quantifier.all)
    })
}

/// Builds a vector of `data_type` from per-row results, casting values of another type.
fn row_wise(
    data_type: DataType,
    rows: usize,
    mut f: impl FnMut(usize) -> ExecResult<Value>,
) -> ExecResult<ColumnVector> {
    let mut out = ColumnVector::with_capacity(data_type, rows);
    for row in 0..rows {
        let value = f(row)?;
        push_conformed(&mut out, value, data_type)?;
    }
    Ok(out)
}

fn push_conformed(out: &mut ColumnVector, value: Value, data_type: DataType) -> ExecResult<()> {
    if value.is_null() || value.data_type() == data_type.unmodified() || data_type == DataType::Null
    {
        out.push(&value);
    } else {
        out.push(&types::cast(&value, data_type)?);
    }
    Ok(())
}

fn values_to_vector(values: Vec<Value>, data_type: DataType) -> ExecResult<ColumnVector> {
    let mut out = ColumnVector::with_capacity(data_type, values.len());
    for value in values {
        push_conformed(&mut out, value, data_type)?;
    }
    Ok(out)
}

/// Truth of row `row` of a boolean (or integer, SQLite-style) vector: None = NULL.
fn truth(vector: &ColumnVector, row: usize) -> Option<bool> {
    if vector.is_null(row) {
        return None;
    }
    match &vector.data {
        ColumnData::Boolean(values) => values.get(row).copied(),
        ColumnData::Integer(values) => values.get(row).map(|&v| v != 0),
        _ => None,
    }
}

/// Three-valued AND (`is_and`) or OR, evaluating the right side only where it matters.
fn logical(
    left: &Expr,
    right: &Expr,
    is_and: bool,
    batch: &Batch,
    ctx: &ExecContext,
) -> ExecResult<ColumnVector> {
    let left = evaluate(left, batch, ctx)?;
    let rows = batch.rows;
    let mut result: Vec<Option<bool>> = (0..rows).map(|row| truth(&left, row)).collect();
    // AND needs the right side unless the left is false; OR unless the left is true.
    let decided = !is_and;
    let undecided: Vec<u32> = (0..rows as u32)
        .filter(|&row| result[row as usize] != Some(decided))
        .collect();
    if !undecided.is_empty() {
        let subset = if undecided.len() == rows {
            batch.clone()
        } else {
            batch.gather(&undecided)
        };
        let right = evaluate(right, &subset, ctx)?;
        for (position, &row) in undecided.iter().enumerate() {
            let left_value = result[row as usize];
            let right_value = truth(&right, position);
            result[row as usize] = match (left_value, right_value) {
                (Some(a), Some(b)) => Some(if is_and { a && b } else { a || b }),
                (_, Some(b)) if b == decided => Some(decided),
                _ => None,
            };
        }
    }
    let nulls: Vec<bool> = result.iter().map(Option::is_none).collect();
    let values = result.iter().map(|value| value.unwrap_or(false)).collect();
    let has_null = nulls.iter().any(|&null| null);
    Ok(ColumnVector {
        data: ColumnData::Boolean(values),
        nulls: if has_null { nulls } else { Vec::new() },
    })
}

fn combined_nulls(left: &ColumnVector, right: &ColumnVector, rows: usize) -> Vec<bool> {
    if left.nulls.is_empty() && right.nulls.is_empty() {
        return Vec::new();
    }
    (0..rows)
        .map(|row| left.is_null(row) || right.is_null(row))
        .collect()
}

/// Whether `ordering` satisfies comparison `op` (false for an operator that does not compare).
pub(crate) fn compare_result(op: BinaryOp, ordering: Ordering) -> bool {
    match op {
        BinaryOp::Equal => ordering == Ordering::Equal,
        BinaryOp::NotEqual => ordering != Ordering::Equal,
        BinaryOp::Less => ordering == Ordering::Less,
        BinaryOp::LessOrEqual => ordering != Ordering::Greater,
        BinaryOp::Greater => ordering == Ordering::Greater,
        BinaryOp::GreaterOrEqual => ordering != Ordering::Less,
        _ => false,
    }
}

fn binary(
    op: BinaryOp,
    left: &ColumnVector,
    right: &ColumnVector,
    data_type: DataType,
) -> ExecResult<ColumnVector> {
    let rows = left.len().min(right.len());
    let nulls = combined_nulls(left, right, rows);
    // Fast paths: same-typed numeric arrays.
    match (&left.data, &right.data) {
        (ColumnData::Integer(a), ColumnData::Integer(b)) => {
            if op.is_comparison() {
                let values = (0..rows)
                    .map(|i| compare_result(op, a[i].cmp(&b[i])))
                    .collect();
                return Ok(ColumnVector {
                    data: ColumnData::Boolean(values),
                    nulls,
                });
            }
            let checked: Option<fn(i64, i64) -> Option<i64>> = match op {
                BinaryOp::Add => Some(i64::checked_add),
                BinaryOp::Subtract => Some(i64::checked_sub),
                BinaryOp::Multiply => Some(i64::checked_mul),
                _ => None,
            };
            if let Some(checked) = checked {
                let mut values = Vec::with_capacity(rows);
                for i in 0..rows {
                    let is_null = nulls.get(i).copied().unwrap_or(false);
                    match checked(a[i], b[i]) {
                        Some(value) => values.push(value),
                        None if is_null => values.push(0),
                        None => {
                            return Err(ExecError::new(
                                sqlstate::NUMERIC_VALUE_OUT_OF_RANGE,
                                "integer out of range",
                            ));
                        }
                    }
                }
                return Ok(ColumnVector {
                    data: ColumnData::Integer(values),
                    nulls,
                });
            }
        }
        (ColumnData::Real(a), ColumnData::Real(b)) => {
            if op.is_comparison() {
                // PostgreSQL orders NaN above every number and equal to itself.
                let values = (0..rows)
                    .map(|i| {
                        compare_result(
                            op,
                            a[i].total_cmp(&b[i])
                                .then(Ordering::Equal)
                                .max_nan(a[i], b[i]),
                        )
                    })
                    .collect();
                return Ok(ColumnVector {
                    data: ColumnData::Boolean(values),
                    nulls,
                });
            }
            let operation: Option<fn(f64, f64) -> f64> = match op {
                BinaryOp::Add => Some(|x, y| x + y),
                BinaryOp::Subtract => Some(|x, y| x - y),
                BinaryOp::Multiply => Some(|x, y| x * y),
                _ => None,
            };
            if let Some(operation) = operation {
                let values = (0..rows).map(|i| operation(a[i], b[i])).collect();
                return Ok(ColumnVector {
                    data: ColumnData::Real(values),
                    nulls,
                });
            }
        }
        _ => {}
    }
    row_wise(data_type, rows, |row| {
        let (a, b) = (left.get(row), right.get(row));
        if a.is_null() || b.is_null() {
            return Ok(Value::Null);
        }
        Ok(match op {
            BinaryOp::Add => types::arith::add(&a, &b)?,
            BinaryOp::Subtract => types::arith::subtract(&a, &b)?,
            BinaryOp::Multiply => types::arith::multiply(&a, &b)?,
            BinaryOp::Divide => types::arith::divide(&a, &b)?,
            BinaryOp::Remainder => types::arith::remainder(&a, &b)?,
            BinaryOp::Concat => types::arith::concat(&a, &b)?,
            BinaryOp::BitAnd => types::arith::bit_and(&a, &b)?,
            BinaryOp::BitOr => types::arith::bit_or(&a, &b)?,
            BinaryOp::BitXor => types::arith::bit_xor(&a, &b)?,
            BinaryOp::ShiftLeft => types::arith::shift_left(&a, &b)?,
            BinaryOp::ShiftRight => types::arith::shift_right(&a, &b)?,
            comparison => match types::compare(&a, &b)? {
                Some(ordering) => Value::Boolean(compare_result(comparison, ordering)),
                None => Value::Null,
            },
        })
    })
}

/// Orders floats as PostgreSQL does: NaN equal to NaN and above everything else; -0 = 0.
trait NanOrder {
    fn max_nan(self, a: f64, b: f64) -> Ordering;
}

impl NanOrder for Ordering {
    fn max_nan(self, a: f64, b: f64) -> Ordering {
        match (a.is_nan(), b.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => a.partial_cmp(&b).unwrap_or(self),
        }
    }
}

fn evaluate_case(
    operand: Option<&Expr>,
    branches: &[(Expr, Expr)],
    else_result: Option<&Expr>,
    data_type: DataType,
    batch: &Batch,
    ctx: &ExecContext,
) -> ExecResult<ColumnVector> {
    let rows = batch.rows;
    let mut output: Vec<Value> = vec![Value::Null; rows];
    let operand = match operand {
        Some(operand) => Some(evaluate(operand, batch, ctx)?),
        None => None,
    };
    let mut pending: Vec<u32> = (0..rows as u32).collect();
    for (condition, result) in branches {
        if pending.is_empty() {
            break;
        }
        let subset = batch.gather(&pending);
        let condition = evaluate(condition, &subset, ctx)?;
        let mut taken = Vec::new();
        let mut rest = Vec::new();
        for (position, &row) in pending.iter().enumerate() {
            let matched = match &operand {
                Some(operand) => {
                    let (a, b) = (operand.get(row as usize), condition.get(position));
                    !a.is_null() && !b.is_null() && types::compare(&a, &b)? == Some(Ordering::Equal)
                }
                None => truth(&condition, position) == Some(true),
            };
            if matched {
                taken.push(row)
            } else {
                rest.push(row)
            }
        }
        if !taken.is_empty() {
            let values = evaluate(result, &batch.gather(&taken), ctx)?;
            for (position, &row) in taken.iter().enumerate() {
                output[row as usize] = values.get(position);
            }
        }
        pending = rest;
    }
    if let Some(else_result) = else_result
        && !pending.is_empty()
    {
        let values = evaluate(else_result, &batch.gather(&pending), ctx)?;
        for (position, &row) in pending.iter().enumerate() {
            output[row as usize] = values.get(position);
        }
    }
    values_to_vector(output, data_type)
}

/// Evaluates a subquery for every row (once, if uncorrelated) and maps its result.
fn subquery_per_row(
    plan: &PlanNode,
    batch: &Batch,
    ctx: &ExecContext,
    data_type: DataType,
    mut map: impl FnMut(&[Batch]) -> ExecResult<Value>,
) -> ExecResult<ColumnVector> {
    let correlated = plan_is_correlated(plan);
    if !correlated {
        let batches = run_subquery(plan, batch, 0, false, ctx)?;
        let value = map(&batches)?;
        return Ok(ColumnVector::constant(&value, data_type, batch.rows));
    }
    row_wise(data_type, batch.rows, |row| {
        let batches = run_subquery(plan, batch, row, true, ctx)?;
        map(&batches)
    })
}

fn run_subquery(
    plan: &PlanNode,
    batch: &Batch,
    row: usize,
    correlated: bool,
    ctx: &ExecContext,
) -> ExecResult<Vec<Batch>> {
    let cache_key = plan as *const PlanNode as usize;
    if !correlated
        && let Some((cached_plan, batches)) = ctx.subquery_results.borrow().get(&cache_key)
        && cached_plan == plan
    {
        return Ok(batches.clone());
    }
    if correlated {
        ctx.outer_rows.borrow_mut().push(batch.row(row));
    }
    let result = operators::build(plan, ctx)
        .and_then(|mut operator| operators::collect(operator.as_mut(), ctx));
    if correlated {
        ctx.outer_rows.borrow_mut().pop();
    }
    let batches = result?;
    if !correlated {
        ctx.subquery_results
            .borrow_mut()
            .insert(cache_key, (plan.clone(), batches.clone()));
    }
    Ok(batches)
}

/// Whether a subquery plan reads columns of an enclosing query.
pub fn plan_is_correlated(node: &PlanNode) -> bool {
    let mut correlated = false;
    node.visit_exprs(&mut |expr| {
        expr.visit(&mut |inner| {
            if matches!(inner, Expr::OuterColumn { .. }) {
                correlated = true;
            }
            if let Expr::ScalarSubquery { plan, .. }
            | Expr::Exists { plan, .. }
            | Expr::InSubquery { plan, .. } = inner
                && plan_is_correlated_beyond(plan, 1)
            {
                correlated = true;
            }
        })
    });
    correlated
}

/// Whether a nested subquery reads columns more than `depth` levels out (past the query
/// that contains it), which makes the containing query correlated too.
fn plan_is_correlated_beyond(node: &PlanNode, depth: usize) -> bool {
    let mut found = false;
    node.visit_exprs(&mut |expr| {
        expr.visit(&mut |inner| match inner {
            Expr::OuterColumn { depth: d, .. } if *d > depth => found = true,
            Expr::ScalarSubquery { plan, .. }
            | Expr::Exists { plan, .. }
            | Expr::InSubquery { plan, .. }
                if plan_is_correlated_beyond(plan, depth + 1) =>
            {
                found = true
            }
            _ => {}
        })
    });
    found
}
