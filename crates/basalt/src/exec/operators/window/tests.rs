//! The window operator against brute force: every aggregate over every kind of frame, kept
//! up to date incrementally (growing, sliding, recomputed), must equal the aggregate of the
//! frame's rows computed from scratch; and a window over a sort that spills must give
//! exactly the rows it gives in memory.

use std::collections::VecDeque;

use crate::exec::batch::{Batch, ColumnVector};
use crate::exec::context::ExecContext;
use crate::plan::{
    AggregateFunction, Expr, FrameBound, FrameUnits, SortKey, WindowCall, WindowFrame,
    WindowFunction,
};
use crate::types::{DataType, Value};

use super::super::sort::Sort;
use super::super::{Operator, Replay, collect};
use super::WindowOperator;
use super::frames::{FrameSpec, PartitionShape};
use super::functions::{CallInput, compute};

fn column(index: usize, data_type: DataType) -> Expr {
    Expr::Column { index, data_type }
}

fn integer(value: i64) -> Expr {
    Expr::literal(Value::Integer(value))
}

/// Pseudo-random rows (g, k, v): g few groups, k an order key with ties and NULLs, v values
/// with NULLs.
fn rows(count: usize) -> Vec<Vec<Value>> {
    let mut state = 42_u64;
    let mut next = |bound: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % bound
    };
    (0..count)
        .map(|_| {
            let g = Value::Integer(next(4) as i64);
            let k = match next(10) {
                0 => Value::Null,
                n => Value::Integer(n as i64 * 3 + next(3) as i64),
            };
            let v = match next(7) {
                0 => Value::Null,
                n => Value::Integer(n as i64 * 11 - 30),
            };
            vec![g, k, v]
        })
        .collect()
}

const TYPES: [DataType; 3] = [DataType::Integer, DataType::Integer, DataType::Integer];

fn frames() -> Vec<WindowFrame> {
    let frame = |units, start, end| WindowFrame { units, start, end };
    let mut frames = vec![WindowFrame::default_frame()];
    for units in [FrameUnits::Rows, FrameUnits::Range, FrameUnits::Groups] {
        frames.push(frame(
            units,
            FrameBound::Preceding(integer(2)),
            FrameBound::Following(integer(1)),
        ));
        frames.push(frame(
            units,
            FrameBound::CurrentRow,
            FrameBound::UnboundedFollowing,
        ));
        frames.push(frame(
            units,
            FrameBound::Following(integer(1)),
            FrameBound::Following(integer(4)),
        ));
        frames.push(frame(
            units,
            FrameBound::Preceding(integer(5)),
            FrameBound::Preceding(integer(1)),
        ));
    }
    frames
}

/// Every aggregate over every frame equals the frame's rows aggregated from scratch.
#[test]
fn incremental_aggregates_match_brute_force() {
    let ctx = ExecContext::for_tests(usize::MAX);
    let mut data = rows(300);
    // One partition ordered by k (NULLs last), as the operator would see it.
    data.sort_by_key(|row| match row[1] {
        Value::Integer(k) => (0, k),
        _ => (1, 0),
    });
    let mut batch = Batch::with_types(&TYPES, data.len());
    for row in &data {
        batch.push_row(row);
    }
    let order_keys: Vec<Vec<u8>> = (0..batch.rows)
        .map(|row| {
            let mut key = Vec::new();
            crate::exec::row_key::encode_cell(
                &batch.columns[1],
                row,
                crate::storage::keys::KeyOrder::ASC,
                &mut key,
            );
            key
        })
        .collect();
    let shape = PartitionShape::new(&order_keys, Some((&batch.columns[1], false))).unwrap();
    let values = &batch.columns[2..3];
    for frame in frames() {
        let spec = FrameSpec::resolve(&frame, &ctx).unwrap();
        for (function, data_type) in [
            (AggregateFunction::Sum, DataType::Integer),
            (AggregateFunction::Count, DataType::Integer),
            (AggregateFunction::Avg, DataType::Real),
            (AggregateFunction::Max, DataType::Integer),
        ] {
            let call = WindowCall {
                function: WindowFunction::Aggregate(function),
                args: vec![column(2, DataType::Integer)],
                filter: None,
                frame: frame.clone(),
                data_type,
            };
            let input = CallInput {
                call: &call,
                frame: &spec,
                args: values,
                keep: None,
            };
            let result: ColumnVector = compute(&input, &shape).unwrap();
            for row in 0..shape.rows {
                let (start, end) = spec.bounds(row, &shape);
                let frame_values: Vec<i64> = (start..end)
                    .filter_map(|r| match values[0].get(r) {
                        Value::Integer(v) => Some(v),
                        _ => None,
                    })
                    .collect();
                let expected = match function {
                    AggregateFunction::Count => Value::Integer(frame_values.len() as i64),
                    _ if frame_values.is_empty() => Value::Null,
                    AggregateFunction::Sum => Value::Integer(frame_values.iter().sum()),
                    AggregateFunction::Avg => Value::Real(
                        frame_values.iter().sum::<i64>() as f64 / frame_values.len() as f64,
                    ),
                    _ => Value::Integer(frame_values.iter().copied().max().unwrap_or(0)),
                };
                assert_eq!(
                    result.get(row),
                    expected,
                    "{function:?} over {frame:?} at row {row}"
                );
            }
        }
    }
}

fn window(ctx: &ExecContext, data: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let mut batches = VecDeque::new();
    for chunk in data.chunks(97) {
        let mut batch = Batch::with_types(&TYPES, chunk.len());
        for row in chunk {
            batch.push_row(row);
        }
        batches.push_back(batch);
    }
    let partition_by = vec![column(0, DataType::Integer)];
    let order_by = vec![SortKey {
        expr: column(1, DataType::Integer),
        descending: true,
        nulls_first: false,
    }];
    let mut keys: Vec<SortKey> = partition_by
        .iter()
        .map(|expr| SortKey {
            expr: expr.clone(),
            descending: false,
            nulls_first: false,
        })
        .collect();
    keys.extend(order_by.iter().cloned());
    let sorted = Box::new(Sort::new(Box::new(Replay(batches)), keys, TYPES.to_vec()));
    let functions = vec![
        WindowCall {
            function: WindowFunction::Rank,
            args: Vec::new(),
            filter: None,
            frame: WindowFrame::default_frame(),
            data_type: DataType::Integer,
        },
        WindowCall {
            function: WindowFunction::Aggregate(AggregateFunction::Sum),
            args: vec![column(2, DataType::Integer)],
            filter: None,
            frame: WindowFrame {
                units: FrameUnits::Rows,
                start: FrameBound::Preceding(integer(3)),
                end: FrameBound::CurrentRow,
            },
            data_type: DataType::Integer,
        },
    ];
    let mut output_types = TYPES.to_vec();
    output_types.extend([DataType::Integer, DataType::Integer]);
    let mut operator = WindowOperator::new(
        sorted,
        partition_by,
        order_by,
        functions,
        TYPES.to_vec(),
        output_types,
    );
    collect(&mut operator as &mut dyn Operator, ctx)
        .unwrap()
        .iter()
        .flat_map(|batch| (0..batch.rows).map(|row| batch.row(row)))
        .collect()
}

/// Under a 4 KiB budget the sort beneath the window spills; the window's rows are the same.
#[test]
fn window_over_a_spilling_sort_matches_memory() {
    let data = rows(5000);
    let unbounded = ExecContext::for_tests(usize::MAX);
    let expected = window(&unbounded, &data);
    let tiny = ExecContext::for_tests(4 << 10);
    let actual = window(&tiny, &data);
    assert!(
        !tiny.spilled.get().is_empty(),
        "the sort should have spilled"
    );
    assert_eq!(expected.len(), 5000);
    assert_eq!(expected, actual);
}

/// RANGE over a timestamp key with interval offsets, ASC and DESC, equals the frames found
/// by comparing every row with the current row moved by calendar arithmetic (month ends
/// clamp: `2024-01-31 + 1 mon` is `2024-02-29`).
#[test]
fn timestamp_range_frames_match_brute_force() {
    use crate::types::Interval;
    use crate::types::interval::{add_to_timestamp, subtract_from_timestamp};

    let ctx = ExecContext::for_tests(usize::MAX);
    let base = crate::types::datetime::parse_timestamp("2023-12-29 06:00:00").unwrap();
    let hour = 3_600_000_000_i64;
    // Month ends and their neighbours, with ties: a step of 19 hours, some repeated.
    let mut keys: Vec<i64> = (0..160_i64)
        .map(|i| base + ((i * 37) % 140) * 19 * hour)
        .collect();
    let offsets = [
        (Interval::new(1, 0, 0), Interval::new(0, 2, 3 * hour)),
        (Interval::new(0, 0, 0), Interval::new(1, 1, 0)),
        (Interval::new(0, 3, 0), Interval::new(0, 0, 0)),
    ];
    for descending in [false, true] {
        keys.sort_unstable();
        if descending {
            keys.reverse();
        }
        let mut batch = Batch::with_types(&[DataType::Timestamp], keys.len());
        for key in &keys {
            batch.push_row(&[Value::Timestamp(*key)]);
        }
        let order = crate::storage::keys::KeyOrder {
            descending,
            nulls_first: false,
        };
        let order_keys: Vec<Vec<u8>> = (0..batch.rows)
            .map(|row| {
                let mut key = Vec::new();
                crate::exec::row_key::encode_cell(&batch.columns[0], row, order, &mut key);
                key
            })
            .collect();
        let shape =
            PartitionShape::new(&order_keys, Some((&batch.columns[0], descending))).unwrap();
        for (preceding, following) in offsets {
            let frame = WindowFrame {
                units: FrameUnits::Range,
                start: FrameBound::Preceding(Expr::literal(Value::Interval(preceding))),
                end: FrameBound::Following(Expr::literal(Value::Interval(following))),
            };
            let spec = FrameSpec::resolve(&frame, &ctx).unwrap();
            for row in 0..keys.len() {
                let current = keys[row];
                // PRECEDING looks back along the order: to earlier times ascending, later
                // ones descending.
                let (low, high) = if descending {
                    (
                        subtract_from_timestamp(current, following).unwrap(),
                        add_to_timestamp(current, preceding).unwrap(),
                    )
                } else {
                    (
                        subtract_from_timestamp(current, preceding).unwrap(),
                        add_to_timestamp(current, following).unwrap(),
                    )
                };
                let expected: Vec<usize> = (0..keys.len())
                    .filter(|&other| (low..=high).contains(&keys[other]))
                    .collect();
                let (start, end) = spec.bounds(row, &shape);
                assert_eq!(
                    (start..end).collect::<Vec<_>>(),
                    expected,
                    "row {row} descending {descending} offsets {preceding:?} {following:?}"
                );
            }
        }
    }
}
