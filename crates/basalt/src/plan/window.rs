//! Window functions in plans: what a [`PlanKind::Window`](super::PlanKind::Window) node
//! computes.
//!
//! A Window node passes every input row through unchanged and appends one column per
//! [`WindowCall`]. All calls of one node share the node's window — its PARTITION BY and
//! ORDER BY — because the executor orders the input once by (partition keys, order keys)
//! and then walks one partition at a time; calls with different windows go to different,
//! stacked Window nodes. Each call has its own frame (ROWS / RANGE / GROUPS and two
//! bounds), since frames only change which rows of the ordered partition a call reads.
//!
//! The binder guarantees what the executor relies on: frame bounds are well formed (the
//! start is never UNBOUNDED FOLLOWING, the end never UNBOUNDED PRECEDING, a start never
//! lies after the end in the cases PostgreSQL rejects), offsets read no columns, a RANGE
//! frame with an offset has exactly one ORDER BY key, numeric (offset of its type) or a
//! date, timestamp or interval (offset an interval), and GROUPS has an ORDER BY.
//! Values that can only be checked at run time (negative or NULL offsets, `ntile(0)`) are
//! the executor's errors, with PostgreSQL's SQLSTATEs.

use crate::types::DataType;

use super::expr::{AggregateFunction, Expr};

/// The function a window call computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowFunction {
    /// The row's position in its partition, from 1.
    RowNumber,
    /// 1 + the number of rows before the row's peer group (gaps after ties).
    Rank,
    /// The peer group's position, from 1 (no gaps).
    DenseRank,
    /// `(rank - 1) / (partition rows - 1)`, 0 for a one-row partition.
    PercentRank,
    /// Rows up to the end of the row's peer group, divided by the partition's rows.
    CumeDist,
    /// `ntile(n)`: the bucket, 1 to n, of n as equal as possible.
    Ntile,
    /// `lag(value[, offset[, default]])`: the value `offset` rows before, in the partition.
    Lag,
    /// `lead(value[, offset[, default]])`: the value `offset` rows after, in the partition.
    Lead,
    /// The value at the frame's first row.
    FirstValue,
    /// The value at the frame's last row.
    LastValue,
    /// `nth_value(value, n)`: the value at the frame's n-th row (NULL past its end).
    NthValue,
    /// An aggregate over the frame's rows.
    Aggregate(AggregateFunction),
}

/// How a frame's offsets count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameUnits {
    /// Physical rows.
    Rows,
    /// Values of the single ORDER BY key (peers always together).
    Range,
    /// Peer groups.
    Groups,
}

/// One end of a frame. Offsets are column-free expressions, evaluated once per execution.
#[derive(Clone, Debug, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(Expr),
    CurrentRow,
    Following(Expr),
    UnboundedFollowing,
}

/// The rows of the partition a call reads for each row. EXCLUDE is not supported, so a
/// frame is always one contiguous run of the ordered partition.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowFrame {
    pub units: FrameUnits,
    pub start: FrameBound,
    pub end: FrameBound,
}

impl WindowFrame {
    /// PostgreSQL's default frame: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, which
    /// without ORDER BY (every row a peer of every other) is the whole partition.
    pub fn default_frame() -> WindowFrame {
        WindowFrame {
            units: FrameUnits::Range,
            start: FrameBound::UnboundedPreceding,
            end: FrameBound::CurrentRow,
        }
    }
}

/// One window function call of a Window node.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowCall {
    pub function: WindowFunction,
    /// Arguments over the node's input row (empty for count(*) and the ranking functions).
    pub args: Vec<Expr>,
    /// An aggregate's `FILTER (WHERE ...)`, over the input row: rows for which it is not
    /// true are left out of the aggregate.
    pub filter: Option<Expr>,
    pub frame: WindowFrame,
    pub data_type: DataType,
}

/// The output column name PostgreSQL gives a window call.
pub fn window_function_name(function: WindowFunction) -> &'static str {
    match function {
        WindowFunction::RowNumber => "row_number",
        WindowFunction::Rank => "rank",
        WindowFunction::DenseRank => "dense_rank",
        WindowFunction::PercentRank => "percent_rank",
        WindowFunction::CumeDist => "cume_dist",
        WindowFunction::Ntile => "ntile",
        WindowFunction::Lag => "lag",
        WindowFunction::Lead => "lead",
        WindowFunction::FirstValue => "first_value",
        WindowFunction::LastValue => "last_value",
        WindowFunction::NthValue => "nth_value",
        WindowFunction::Aggregate(function) => function.name(),
    }
}
