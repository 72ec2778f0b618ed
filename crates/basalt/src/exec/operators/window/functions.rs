//! Window functions over one ordered partition: ranking, navigation (lag, lead,
//! first/last/nth value) and aggregates over frames.
//!
//! Each function gets the partition's [`PartitionShape`] (peer groups), its evaluated
//! arguments (vectors with one entry per partition row) and its frame, and produces one
//! value per row. Aggregates reuse the GROUP BY accumulators (`operators::aggregate`), so a
//! window `sum` and a grouped `sum` agree on types, NULLs and overflow. How a frame's
//! aggregate is kept up to date as the current row advances:
//!
//! * a frame equal to the previous row's reuses its value (peers under the default frame);
//! * a frame with the same start that only grew adds the new rows (the default frame, and
//!   every frame starting at UNBOUNDED PRECEDING: O(n) for the partition);
//! * for count and integer sum/avg, a frame that slid forward removes the rows that left
//!   and adds those that entered (O(n) for ROWS/GROUPS/RANGE sliding frames);
//! * anything else (min/max, real sums whose rounding makes removal inexact, string_agg,
//!   bool_and/or) recomputes the frame: O(n · frame), as PostgreSQL does for aggregates
//!   without an inverse.

use crate::exec::batch::{ColumnData, ColumnVector};
use crate::exec::error::{ExecError, ExecResult};
use crate::plan::{AggregateCall, AggregateFunction, WindowCall, WindowFunction};
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::super::aggregate::Accumulator;
use super::frames::{FrameSpec, PartitionShape};

/// One window call's inputs for one partition.
pub(super) struct CallInput<'a> {
    pub(super) call: &'a WindowCall,
    pub(super) frame: &'a FrameSpec,
    /// The call's arguments, one entry per partition row.
    pub(super) args: &'a [ColumnVector],
    /// Whether each row passes the call's FILTER (`None`: every row does).
    pub(super) keep: Option<&'a [bool]>,
}

/// The call's value for every row of the partition.
pub(super) fn compute(input: &CallInput<'_>, shape: &PartitionShape) -> ExecResult<ColumnVector> {
    let rows = shape.rows;
    let mut out = ColumnVector::with_capacity(input.call.data_type, rows);
    match input.call.function {
        WindowFunction::RowNumber => {
            for row in 0..rows {
                out.push(&Value::Integer(row as i64 + 1));
            }
        }
        WindowFunction::Rank => {
            for row in 0..rows {
                out.push(&Value::Integer(shape.peer_bounds(row).0 as i64 + 1));
            }
        }
        WindowFunction::DenseRank => {
            for row in 0..rows {
                out.push(&Value::Integer(shape.group_of[row] as i64 + 1));
            }
        }
        WindowFunction::PercentRank => {
            for row in 0..rows {
                let value = if rows <= 1 {
                    0.0
                } else {
                    shape.peer_bounds(row).0 as f64 / (rows - 1) as f64
                };
                out.push(&Value::Real(value));
            }
        }
        WindowFunction::CumeDist => {
            for row in 0..rows {
                out.push(&Value::Real(shape.peer_bounds(row).1 as f64 / rows as f64));
            }
        }
        WindowFunction::Ntile => ntile(input, rows, &mut out)?,
        WindowFunction::Lag | WindowFunction::Lead => lag_or_lead(input, rows, &mut out)?,
        WindowFunction::FirstValue | WindowFunction::LastValue | WindowFunction::NthValue => {
            frame_value(input, shape, &mut out)?
        }
        WindowFunction::Aggregate(function) => aggregate(input, function, shape, &mut out)?,
    }
    Ok(out)
}

fn argument<'a>(input: &CallInput<'a>, position: usize) -> ExecResult<&'a ColumnVector> {
    input.args.get(position).ok_or_else(|| {
        ExecError::internal(format!("window function argument {position} is missing"))
    })
}

fn integer_at(vector: &ColumnVector, row: usize) -> Option<i64> {
    match (&vector.data, vector.is_null(row)) {
        (ColumnData::Integer(values), false) => values.get(row).copied(),
        _ => None,
    }
}

/// `ntile(n)`: n is read at the partition's first row, as PostgreSQL does. The first
/// `rows % n` buckets hold one row more than the others.
fn ntile(input: &CallInput<'_>, rows: usize, out: &mut ColumnVector) -> ExecResult<()> {
    let buckets_argument = argument(input, 0)?;
    let Some(buckets) = (if rows == 0 {
        None
    } else {
        integer_at(buckets_argument, 0)
    }) else {
        for _ in 0..rows {
            out.push_null();
        }
        return Ok(());
    };
    if buckets <= 0 {
        return Err(ExecError::new(
            sqlstate::INVALID_ARGUMENT_FOR_NTILE_FUNCTION,
            "argument of ntile must be greater than zero",
        ));
    }
    let buckets = buckets as u64;
    let rows_u64 = rows as u64;
    let small = rows_u64 / buckets;
    let large_buckets = rows_u64 % buckets;
    for row in 0..rows_u64 {
        // Rows in the large buckets come first: each holds `small + 1` rows.
        let large_rows = large_buckets * (small + 1);
        let bucket = if row < large_rows {
            row / (small + 1)
        } else {
            large_buckets + (row - large_rows) / small.max(1)
        };
        out.push(&Value::Integer(bucket as i64 + 1));
    }
    Ok(())
}

/// `lag` / `lead`: the value `offset` rows before / after in the partition (a negative
/// offset looks the other way, as in PostgreSQL), else the default evaluated at the current
/// row; a NULL offset gives NULL.
fn lag_or_lead(input: &CallInput<'_>, rows: usize, out: &mut ColumnVector) -> ExecResult<()> {
    let value = argument(input, 0)?;
    let offsets = input.args.get(1);
    let default = input.args.get(2);
    let backwards = input.call.function == WindowFunction::Lag;
    for row in 0..rows {
        let offset = match offsets {
            None => 1,
            Some(offsets) => match integer_at(offsets, row) {
                Some(offset) => i128::from(offset),
                None => {
                    out.push_null();
                    continue;
                }
            },
        };
        let target = if backwards {
            row as i128 - offset
        } else {
            row as i128 + offset
        };
        if (0..rows as i128).contains(&target) {
            out.push_from(value, target as usize);
        } else {
            match default {
                Some(default) => out.push_from(default, row),
                None => out.push_null(),
            }
        }
    }
    Ok(())
}

/// `first_value`, `last_value`, `nth_value` over each row's frame (NULL for an empty frame
/// or an n past its end).
fn frame_value(
    input: &CallInput<'_>,
    shape: &PartitionShape,
    out: &mut ColumnVector,
) -> ExecResult<()> {
    let value = argument(input, 0)?;
    for row in 0..shape.rows {
        let (start, end) = input.frame.bounds(row, shape);
        let position = match input.call.function {
            WindowFunction::FirstValue => Some(start),
            WindowFunction::LastValue => end.checked_sub(1),
            _ => {
                let Some(n) = integer_at(argument(input, 1)?, row) else {
                    out.push_null();
                    continue;
                };
                if n <= 0 {
                    return Err(ExecError::new(
                        sqlstate::INVALID_ARGUMENT_FOR_NTH_VALUE_FUNCTION,
                        "argument of nth_value must be greater than zero",
                    ));
                }
                usize::try_from(n - 1)
                    .ok()
                    .and_then(|n| start.checked_add(n))
            }
        };
        match position {
            Some(position) if position >= start && position < end => out.push_from(value, position),
            _ => out.push_null(),
        }
    }
    Ok(())
}

/// A state that can also remove rows: count and integer sum / avg.
#[derive(Clone, Copy, Debug)]
enum Removable {
    Count(i64),
    IntegerSum { sum: i128, count: i64 },
    IntegerAverage { sum: i128, count: i64 },
}

impl Removable {
    fn for_call(call: &WindowCall) -> Option<Removable> {
        let integer_argument = call
            .args
            .first()
            .is_some_and(|arg| arg.data_type() == DataType::Integer);
        match call.function {
            WindowFunction::Aggregate(AggregateFunction::CountStar | AggregateFunction::Count) => {
                Some(Removable::Count(0))
            }
            WindowFunction::Aggregate(AggregateFunction::Sum) if integer_argument => {
                Some(Removable::IntegerSum { sum: 0, count: 0 })
            }
            WindowFunction::Aggregate(AggregateFunction::Avg) if integer_argument => {
                Some(Removable::IntegerAverage { sum: 0, count: 0 })
            }
            _ => None,
        }
    }

    /// Adds (`sign` 1) or removes (`sign` -1) row `row`.
    fn apply(&mut self, args: &[ColumnVector], row: usize, sign: i64) {
        let value = match args.first() {
            // count(*)
            None => None,
            Some(arg) if arg.is_null(row) => return,
            Some(arg) => integer_at(arg, row),
        };
        match self {
            Removable::Count(count) => *count += sign,
            Removable::IntegerSum { sum, count } | Removable::IntegerAverage { sum, count } => {
                *sum += i128::from(value.unwrap_or(0)) * i128::from(sign);
                *count += sign;
            }
        }
    }

    fn finish(&self) -> ExecResult<Value> {
        Ok(match *self {
            Removable::Count(count) => Value::Integer(count),
            Removable::IntegerSum { count: 0, .. } | Removable::IntegerAverage { count: 0, .. } => {
                Value::Null
            }
            Removable::IntegerSum { sum, .. } => {
                Value::Integer(i64::try_from(sum).map_err(|_| {
                    ExecError::new(
                        sqlstate::NUMERIC_VALUE_OUT_OF_RANGE,
                        "integer out of range in sum",
                    )
                })?)
            }
            Removable::IntegerAverage { sum, count } => Value::Real(sum as f64 / count as f64),
        })
    }
}

/// The running state of an aggregate over the current frame.
enum FrameState {
    Removable(Removable),
    Accumulator(Accumulator),
}

/// An aggregate over each row's frame, kept up to date incrementally where it can be (see
/// the module comment).
fn aggregate(
    input: &CallInput<'_>,
    function: AggregateFunction,
    shape: &PartitionShape,
    out: &mut ColumnVector,
) -> ExecResult<()> {
    let call = AggregateCall {
        function,
        args: input.call.args.clone(),
        distinct: false,
        order_by: Vec::new(),
        direct_args: Vec::new(),
        filter: None,
        data_type: input.call.data_type,
    };
    let removable = Removable::for_call(input.call);
    let fresh = || match removable {
        Some(state) => FrameState::Removable(state),
        None => FrameState::Accumulator(Accumulator::new(&call)),
    };
    let keep = |row: usize| input.keep.is_none_or(|keep| keep[row]);
    let mut state = fresh();
    // The rows `state` holds, and the value it gave for them.
    let (mut held_start, mut held_end) = (0, 0);
    let mut last: Option<((usize, usize), Value)> = None;
    for row in 0..shape.rows {
        let frame = input.frame.bounds(row, shape);
        if let Some((previous, value)) = &last
            && *previous == frame
        {
            out.push(value);
            continue;
        }
        let (start, end) = frame;
        let grows = start == held_start && end >= held_end;
        let slides = matches!(state, FrameState::Removable(_))
            && start >= held_start
            && end >= held_end
            && start <= held_end;
        // Rows `leaving` drop out of the state, then rows from `add_from` to `end` enter.
        let (add_from, leaving) = if grows {
            (held_end, 0..0)
        } else if slides {
            (held_end, held_start..start)
        } else {
            state = fresh();
            (start, 0..0)
        };
        if let FrameState::Removable(removable) = &mut state {
            for gone in leaving {
                if keep(gone) {
                    removable.apply(input.args, gone, -1);
                }
            }
        }
        for entering in add_from.max(start)..end {
            if !keep(entering) {
                continue;
            }
            match &mut state {
                FrameState::Removable(removable) => removable.apply(input.args, entering, 1),
                FrameState::Accumulator(accumulator) => {
                    accumulator.update(input.args, entering)?;
                }
            }
        }
        held_start = start;
        held_end = end;
        let value = match &state {
            FrameState::Removable(removable) => removable.finish()?,
            FrameState::Accumulator(accumulator) => accumulator.finish()?,
        };
        out.push(&value);
        last = Some((frame, value));
    }
    Ok(())
}
