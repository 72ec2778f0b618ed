//! Frames: which rows of an ordered partition a window call reads for each row.
//!
//! A partition arrives ordered by the window's ORDER BY; [`PartitionShape`] records its
//! peer groups (runs of rows with equal ORDER BY values — every row is a peer of every
//! other without ORDER BY) and, for RANGE frames with an offset, the single ORDER BY key as
//! numbers on an ascending axis ([`Axis`]): numbers as they are, dates and timestamps as
//! microseconds, intervals by PostgreSQL's comparison value. [`FrameSpec::bounds`] then
//! turns a frame into a half-open row range `[start, end)` for one row, as PostgreSQL
//! defines it:
//!
//! * ROWS counts rows from the current row;
//! * GROUPS counts peer groups from the current row's group; CURRENT ROW means the whole
//!   peer group;
//! * RANGE compares ORDER BY values: `n PRECEDING` starts at the first row whose value is
//!   at least `value - n` (mirrored for DESC); CURRENT ROW means the peer group. A NULL
//!   ORDER BY value is a peer of the other NULLs only, so for a NULL current row an offset
//!   bound is its peer group's edge, and non-NULL rows' offset bounds never reach the NULLs.
//!   A date or timestamp key moves by an interval offset with timestamp arithmetic
//!   (`2024-01-31 + 1 mon` is `2024-02-29`, as PostgreSQL's `in_range` for timestamps); a
//!   move past the timestamp range, an error in PostgreSQL, reaches the partition's edge.
//!
//! Offsets were evaluated once per execution ([`FrameSpec::resolve`]); a negative or NULL
//! offset is an error here, with PostgreSQL's SQLSTATE (22013 / 22004). Bounds only move
//! forward as the current row advances, which the sliding aggregates rely on.

use std::cmp::Ordering;

use crate::exec::batch::{ColumnData, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::plan::{FrameBound, FrameUnits, WindowFrame};
use crate::sqlstate;
use crate::types::interval::{add_to_timestamp, subtract_from_timestamp};
use crate::types::{Interval, Value};

/// Microseconds in a day, to put dates on the timestamp axis.
const MICROS_PER_DAY: i128 = 86_400_000_000;

/// A number on the RANGE axis: the ORDER BY value negated for DESC, so the axis always
/// ascends through the partition.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Number {
    Integer(i128),
    Real(f64),
}

impl Number {
    fn as_real(self) -> f64 {
        match self {
            Number::Integer(value) => value as f64,
            Number::Real(value) => value,
        }
    }

    fn add(self, other: Number) -> Number {
        match (self, other) {
            (Number::Integer(a), Number::Integer(b)) => Number::Integer(a.saturating_add(b)),
            (a, b) => Number::Real(a.as_real() + b.as_real()),
        }
    }

    fn negate(self) -> Number {
        match self {
            Number::Integer(value) => Number::Integer(-value),
            Number::Real(value) => Number::Real(-value),
        }
    }

    /// SQL order: NaN is larger than every other number, −0.0 equals 0.0.
    fn compare(self, other: Number) -> Ordering {
        match (self, other) {
            (Number::Integer(a), Number::Integer(b)) => a.cmp(&b),
            (a, b) => {
                let (a, b) = (a.as_real(), b.as_real());
                match (a.is_nan(), b.is_nan()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
                }
            }
        }
    }
}

/// An evaluated frame offset: a count or number, or an interval (RANGE over a date,
/// timestamp or interval key).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Offset {
    Number(Number),
    Interval(Interval),
}

/// What the RANGE axis holds, which decides how an offset moves along it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    /// Integers or reals, moved by a number.
    Number,
    /// Dates and timestamps as microseconds, moved by timestamp-interval arithmetic.
    Timestamp,
    /// Timestamptz instants as microseconds, moved as `timestamptz ± interval` is (days and
    /// months on the session zone's calendar).
    Instant,
    /// Intervals by their comparison value (`Interval::span`), moved by an interval's span:
    /// the span of a sum is the sum of the spans.
    Interval,
}

/// A frame bound with its offset evaluated.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bound {
    UnboundedPreceding,
    Preceding(Offset),
    CurrentRow,
    Following(Offset),
    UnboundedFollowing,
}

/// A frame with its offsets evaluated, ready to compute row ranges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct FrameSpec {
    units: FrameUnits,
    start: Bound,
    end: Bound,
}

impl FrameSpec {
    /// Evaluates the frame's offsets (once per execution; they read no columns).
    pub(super) fn resolve(frame: &WindowFrame, ctx: &ExecContext) -> ExecResult<FrameSpec> {
        Ok(FrameSpec {
            units: frame.units,
            start: resolve_bound(&frame.start, "starting", ctx)?,
            end: resolve_bound(&frame.end, "ending", ctx)?,
        })
    }

    /// The frame of row `row`: rows `start..end` of the partition (empty when end ≤ start).
    pub(super) fn bounds(&self, row: usize, shape: &PartitionShape) -> (usize, usize) {
        let start = self.position(self.start, row, shape, true);
        let end = self.position(self.end, row, shape, false);
        (start, end.max(start))
    }

    /// Where a bound puts the frame's start (`is_start`) or exclusive end for `row`.
    fn position(&self, bound: Bound, row: usize, shape: &PartitionShape, is_start: bool) -> usize {
        let rows = shape.rows;
        let (group_start, group_end) = shape.peer_bounds(row);
        match bound {
            Bound::UnboundedPreceding => 0,
            Bound::UnboundedFollowing => rows,
            Bound::CurrentRow => match self.units {
                FrameUnits::Rows if is_start => row,
                FrameUnits::Rows => row + 1,
                FrameUnits::Range | FrameUnits::Groups if is_start => group_start,
                FrameUnits::Range | FrameUnits::Groups => group_end,
            },
            Bound::Preceding(offset) | Bound::Following(offset) => {
                let following = matches!(bound, Bound::Following(_));
                match self.units {
                    FrameUnits::Rows => {
                        let count = count_of(offset);
                        let anchor = if is_start {
                            row as i128
                        } else {
                            row as i128 + 1
                        };
                        let moved = if following {
                            anchor + count
                        } else {
                            anchor - count
                        };
                        clamp(moved, rows)
                    }
                    FrameUnits::Groups => {
                        let count = count_of(offset);
                        let group = shape.group_of[row] as i128;
                        let target = if following {
                            group + count
                        } else {
                            group - count
                        };
                        if target < 0 {
                            0
                        } else if target >= shape.groups.len() as i128 {
                            rows
                        } else {
                            let (start, end) = shape.groups[target as usize];
                            if is_start { start } else { end }
                        }
                    }
                    FrameUnits::Range => {
                        let Some(value) = shape.range_value(row) else {
                            // A NULL current row: its offset bounds are its peer group's.
                            return if is_start { group_start } else { group_end };
                        };
                        let target = shape.shift(value, offset, following);
                        // Start: the first row at or beyond the target; end: the first row
                        // past it.
                        shape.first_non_null_where(|key| match key.compare(target) {
                            Ordering::Less => false,
                            Ordering::Equal => is_start,
                            Ordering::Greater => true,
                        })
                    }
                }
            }
        }
    }
}

/// A ROWS / GROUPS offset as a count (the binder makes it an integer).
fn count_of(offset: Offset) -> i128 {
    match offset {
        Offset::Number(Number::Integer(value)) => value,
        Offset::Number(Number::Real(value)) => value as i128,
        Offset::Interval(_) => 0,
    }
}

fn clamp(position: i128, rows: usize) -> usize {
    position.clamp(0, rows as i128) as usize
}

fn resolve_bound(bound: &FrameBound, which: &str, ctx: &ExecContext) -> ExecResult<Bound> {
    let negative = || {
        ExecError::new(
            sqlstate::INVALID_PRECEDING_OR_FOLLOWING_SIZE,
            format!("frame {which} offset must not be negative"),
        )
    };
    let offset = |expr| -> ExecResult<Offset> {
        let number = match eval::evaluate_scalar(expr, ctx)? {
            Value::Null => {
                return Err(ExecError::new(
                    sqlstate::NULL_VALUE_NOT_ALLOWED,
                    format!("frame {which} offset must not be null"),
                ));
            }
            Value::Integer(value) => Number::Integer(i128::from(value)),
            Value::Real(value) => Number::Real(value),
            // Negative as PostgreSQL compares intervals: `'1 mon -40 days'` is.
            Value::Interval(value) if value.span() < 0 => return Err(negative()),
            Value::Interval(value) => return Ok(Offset::Interval(value)),
            other => {
                return Err(ExecError::internal(format!(
                    "frame offset of type {}",
                    other.data_type()
                )));
            }
        };
        if number.compare(Number::Integer(0)) == Ordering::Less {
            return Err(negative());
        }
        Ok(Offset::Number(number))
    };
    Ok(match bound {
        FrameBound::UnboundedPreceding => Bound::UnboundedPreceding,
        FrameBound::Preceding(expr) => Bound::Preceding(offset(expr)?),
        FrameBound::CurrentRow => Bound::CurrentRow,
        FrameBound::Following(expr) => Bound::Following(offset(expr)?),
        FrameBound::UnboundedFollowing => Bound::UnboundedFollowing,
    })
}

/// The peer groups of one ordered partition, and its RANGE axis when a frame needs it.
#[derive(Debug)]
pub(super) struct PartitionShape {
    pub(super) rows: usize,
    /// The peer group of each row.
    pub(super) group_of: Vec<usize>,
    /// Each peer group's rows, `start..end`.
    pub(super) groups: Vec<(usize, usize)>,
    /// The ORDER BY key on the RANGE axis (`None` for NULL), when some frame is RANGE
    /// with an offset.
    range_keys: Option<Vec<Option<Number>>>,
    /// What the RANGE axis holds, and whether the key is DESC (the axis negated).
    axis: Axis,
    descending: bool,
    /// The rows whose RANGE key is not NULL: one run, since NULLs sort together.
    non_null: (usize, usize),
}

impl PartitionShape {
    /// The shape of a partition whose rows' ORDER BY keys encode to `order_keys` (equal
    /// encodings = peers). `range_key` is the single ORDER BY key's values and direction,
    /// when a RANGE frame with an offset needs them.
    pub(super) fn new(
        order_keys: &[Vec<u8>],
        range_key: Option<(&ColumnVector, bool)>,
    ) -> ExecResult<PartitionShape> {
        let rows = order_keys.len();
        let mut group_of = Vec::with_capacity(rows);
        let mut groups: Vec<(usize, usize)> = Vec::new();
        for row in 0..rows {
            if row == 0 || order_keys[row] != order_keys[row - 1] {
                groups.push((row, row + 1));
            } else if let Some(last) = groups.last_mut() {
                last.1 = row + 1;
            }
            group_of.push(groups.len() - 1);
        }
        let mut non_null = (0, 0);
        let axis = match range_key.map(|(vector, _)| &vector.data) {
            Some(ColumnData::Date(_) | ColumnData::Timestamp(_)) => Axis::Timestamp,
            Some(ColumnData::TimestampTz(_)) => Axis::Instant,
            Some(ColumnData::Interval(_)) => Axis::Interval,
            _ => Axis::Number,
        };
        let descending = range_key.is_some_and(|(_, descending)| descending);
        let range_keys = match range_key {
            None => None,
            Some((vector, descending)) => {
                let mut keys = Vec::with_capacity(rows);
                for row in 0..rows {
                    let key = if vector.is_null(row) {
                        None
                    } else {
                        let number = match &vector.data {
                            ColumnData::Integer(values) => Number::Integer(i128::from(values[row])),
                            ColumnData::Real(values) => Number::Real(values[row]),
                            ColumnData::Date(values) => {
                                Number::Integer(i128::from(values[row]) * MICROS_PER_DAY)
                            }
                            ColumnData::Timestamp(values) | ColumnData::TimestampTz(values) => {
                                Number::Integer(i128::from(values[row]))
                            }
                            ColumnData::Interval(values) => Number::Integer(values[row].span()),
                            _ => {
                                return Err(ExecError::internal(
                                    "RANGE offset over a non-numeric ORDER BY key",
                                ));
                            }
                        };
                        Some(if descending { number.negate() } else { number })
                    };
                    keys.push(key);
                }
                let first = keys.iter().position(Option::is_some).unwrap_or(rows);
                let last = keys
                    .iter()
                    .rposition(Option::is_some)
                    .map_or(first, |p| p + 1);
                non_null = (first, last);
                Some(keys)
            }
        };
        Ok(PartitionShape {
            rows,
            group_of,
            groups,
            range_keys,
            axis,
            descending,
            non_null,
        })
    }

    /// The point `offset` away from `value` on the RANGE axis: further along it for
    /// FOLLOWING (`following`), back for PRECEDING. For a DESC key the axis is the values
    /// negated, so FOLLOWING subtracts the offset from the value itself.
    fn shift(&self, value: Number, offset: Offset, following: bool) -> Number {
        let step = match (self.axis, offset) {
            (_, Offset::Number(step)) => step,
            (Axis::Interval | Axis::Number, Offset::Interval(step)) => Number::Integer(step.span()),
            (Axis::Timestamp | Axis::Instant, Offset::Interval(step)) => {
                return self.shift_timestamp(value, step, following);
            }
        };
        if following {
            value.add(step)
        } else {
            value.add(step.negate())
        }
    }

    /// [`Self::shift`] for a date or timestamp key: calendar arithmetic on the value itself
    /// (months are not a fixed length), then back onto the axis.
    fn shift_timestamp(&self, value: Number, step: Interval, following: bool) -> Number {
        let edge = Number::Integer(if following { i128::MAX } else { i128::MIN });
        let Number::Integer(axis_value) = value else {
            return edge;
        };
        let original = if self.descending {
            -axis_value
        } else {
            axis_value
        };
        let Ok(original) = i64::try_from(original) else {
            return edge;
        };
        let forward = following != self.descending;
        let moved = match (self.axis, forward) {
            (Axis::Instant, true) => crate::types::timezone::add_interval(original, step),
            (Axis::Instant, false) => step
                .checked_neg()
                .and_then(|back| crate::types::timezone::add_interval(original, back)),
            (_, true) => add_to_timestamp(original, step),
            (_, false) => subtract_from_timestamp(original, step),
        };
        match moved {
            Ok(moved) if self.descending => Number::Integer(-i128::from(moved)),
            Ok(moved) => Number::Integer(i128::from(moved)),
            // Past the timestamp range: every key lies before (or after) the target.
            Err(_) => edge,
        }
    }

    /// The rows of `row`'s peer group, `start..end`.
    pub(super) fn peer_bounds(&self, row: usize) -> (usize, usize) {
        self.groups[self.group_of[row]]
    }

    fn range_value(&self, row: usize) -> Option<Number> {
        self.range_keys.as_ref().and_then(|keys| keys[row])
    }

    /// The first non-NULL row whose key satisfies `predicate` (monotone: false, then true),
    /// or the end of the non-NULL run.
    fn first_non_null_where(&self, predicate: impl Fn(Number) -> bool) -> usize {
        let (first, last) = self.non_null;
        let Some(keys) = &self.range_keys else {
            return first;
        };
        let run = &keys[first..last];
        first + run.partition_point(|key| key.is_some_and(|key| !predicate(key)))
    }
}
