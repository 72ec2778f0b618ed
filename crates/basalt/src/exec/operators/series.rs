//! `generate_series(start, stop[, step])` as a FROM item: for each input row, that row
//! followed by each integer (or each timestamp, stepping by an interval) from `start`
//! towards `stop`, computed batch by batch as they are read, so a series of ten million rows
//! under a LIMIT or an aggregate never exists in memory at once.
//!
//! The input is one empty row for a series on its own, or the FROM items to its left for a
//! LATERAL series whose arguments read them; the arguments are evaluated over each input
//! batch, once per row. Semantics are PostgreSQL's: a NULL argument gives no rows for that
//! row (the function is strict); a step of zero fails with 22023; a negative step counts
//! down; a series ends at the last value not past `stop`, and also where the next value
//! would overflow a 64-bit integer (instead of failing). A timestamp series steps by an
//! interval whose sign is its span's (`'1 mon -30 days'` is zero); each value is the previous
//! one plus the step, so month steps from the 31st stay on the 28th/29th once clamped, as in
//! PostgreSQL, and a step past the timestamp range fails (22008), as PostgreSQL's does.

use crate::exec::batch::{BATCH_SIZE, Batch, ColumnData, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval::evaluate;
use crate::plan::Expr;
use crate::sqlstate;
use crate::types::interval::add_to_timestamp;
use crate::types::{DataType, Interval, Value};

use super::Operator;

/// How a series advances: by an integer, or (for timestamps) by an interval.
#[derive(Clone, Copy, Debug)]
enum Step {
    Integer(i64),
    Interval(Interval),
    /// A timestamptz series' step: days and months move the session zone's wall clock.
    ZonedInterval(Interval),
}

/// One input row's series, as far as it has been produced. Timestamps are their
/// microseconds, so both kinds count in `i64`.
#[derive(Debug)]
struct Series {
    /// The next value, or `None` once the series is exhausted.
    next: Option<i64>,
    stop: i64,
    step: Step,
    /// Whether the step is positive (the series counts up).
    ascending: bool,
}

impl Series {
    /// The series of one row's arguments; `None` when one is NULL.
    fn of(start: Value, stop: Value, step: Value) -> ExecResult<Option<Series>> {
        let zero_step = || {
            ExecError::new(
                sqlstate::INVALID_PARAMETER_VALUE,
                "step size cannot equal zero",
            )
        };
        Ok(match (start, stop, step) {
            // A strict function: with a NULL argument it is not called, so no error either.
            (Value::Integer(_), Value::Integer(_), Value::Integer(0)) => return Err(zero_step()),
            (Value::Integer(start), Value::Integer(stop), Value::Integer(step)) => Some(Series {
                next: Some(start),
                stop,
                step: Step::Integer(step),
                ascending: step > 0,
            }),
            (Value::Timestamp(start), Value::Timestamp(stop), Value::Interval(step)) => {
                if step.span() == 0 {
                    return Err(zero_step());
                }
                Some(Series {
                    next: Some(start),
                    stop,
                    step: Step::Interval(step),
                    ascending: step.span() > 0,
                })
            }
            (Value::TimestampTz(start), Value::TimestampTz(stop), Value::Interval(step)) => {
                if step.span() == 0 {
                    return Err(zero_step());
                }
                Some(Series {
                    next: Some(start),
                    stop,
                    step: Step::ZonedInterval(step),
                    ascending: step.span() > 0,
                })
            }
            (Value::Null, _, _) | (_, Value::Null, _) | (_, _, Value::Null) => None,
            other => {
                return Err(ExecError::internal(format!(
                    "generate_series arguments {other:?} are not integers or timestamps"
                )));
            }
        })
    }

    /// The next value, if any is left.
    fn take(&mut self) -> ExecResult<Option<i64>> {
        let value = self.next.filter(|&value| {
            if self.ascending {
                value <= self.stop
            } else {
                value >= self.stop
            }
        });
        self.next = match (value, self.step) {
            (None, _) => None,
            (Some(value), Step::Integer(step)) => value.checked_add(step),
            (Some(value), Step::Interval(step)) => Some(add_to_timestamp(value, step)?),
            (Some(value), Step::ZonedInterval(step)) => {
                Some(crate::types::timezone::add_interval(value, step)?)
            }
        };
        Ok(value)
    }
}

/// The input batch being expanded and its rows' arguments.
#[derive(Debug)]
struct Expanding {
    batch: Batch,
    starts: ColumnVector,
    stops: ColumnVector,
    steps: Option<ColumnVector>,
    /// The row whose series is being produced, and that series.
    row: usize,
    series: Option<Series>,
}

/// Each input row followed by each value of its series.
#[derive(Debug)]
pub struct GenerateSeries {
    input: Box<dyn Operator>,
    start: Expr,
    stop: Expr,
    step: Option<Expr>,
    /// The type of the values: INTEGER or TIMESTAMP.
    data_type: DataType,
    current: Option<Expanding>,
}

impl GenerateSeries {
    /// The series of `start`, `stop` and `step` (expressions over `input`'s rows: INTEGER,
    /// or TIMESTAMP start and stop with an INTERVAL step).
    pub fn new(input: Box<dyn Operator>, start: Expr, stop: Expr, step: Option<Expr>) -> Self {
        let data_type = match start.data_type() {
            DataType::Timestamp => DataType::Timestamp,
            DataType::TimestampTz => DataType::TimestampTz,
            _ => DataType::Integer,
        };
        GenerateSeries {
            input,
            start,
            stop,
            step,
            data_type,
            current: None,
        }
    }

    /// The next input batch with its arguments evaluated; `None` at the end of the input.
    fn next_input(&mut self, ctx: &ExecContext) -> ExecResult<Option<Expanding>> {
        let Some(batch) = self.input.next(ctx)? else {
            return Ok(None);
        };
        Ok(Some(Expanding {
            starts: evaluate(&self.start, &batch, ctx)?,
            stops: evaluate(&self.stop, &batch, ctx)?,
            steps: match &self.step {
                Some(step) => Some(evaluate(step, &batch, ctx)?),
                None => None,
            },
            batch,
            row: 0,
            series: None,
        }))
    }
}

impl Operator for GenerateSeries {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        ctx.check_interrupt()?;
        let mut rows: Vec<u32> = Vec::with_capacity(BATCH_SIZE);
        let mut values: Vec<i64> = Vec::with_capacity(BATCH_SIZE);
        loop {
            let Some(current) = &mut self.current else {
                match self.next_input(ctx)? {
                    Some(expanding) => {
                        self.current = Some(expanding);
                        continue;
                    }
                    None => break,
                }
            };
            if current.row >= current.batch.rows {
                let finished = self.current.take();
                if !values.is_empty() {
                    // The rows gathered so far belong to the finished batch.
                    if let Some(finished) = finished {
                        return Ok(Some(output(&finished.batch, &rows, values, self.data_type)));
                    }
                }
                continue;
            }
            if current.series.is_none() {
                let step = match &current.steps {
                    Some(steps) => steps.get(current.row),
                    None => Value::Integer(1),
                };
                current.series = Series::of(
                    current.starts.get(current.row),
                    current.stops.get(current.row),
                    step,
                )?;
                if current.series.is_none() {
                    current.row += 1;
                    continue;
                }
            }
            let row = current.row as u32;
            let mut exhausted = false;
            if let Some(series) = &mut current.series {
                while values.len() < BATCH_SIZE {
                    match series.take()? {
                        Some(value) => {
                            rows.push(row);
                            values.push(value);
                        }
                        None => {
                            exhausted = true;
                            break;
                        }
                    }
                }
            }
            if exhausted {
                current.series = None;
                current.row += 1;
            }
            if values.len() >= BATCH_SIZE {
                return Ok(Some(output(&current.batch, &rows, values, self.data_type)));
            }
        }
        Ok(None)
    }
}

/// The input rows at `rows`, each followed by its value (an integer, or a timestamp's
/// microseconds when `data_type` is TIMESTAMP).
fn output(input: &Batch, rows: &[u32], values: Vec<i64>, data_type: DataType) -> Batch {
    let mut batch = input.gather(rows);
    batch.columns.push(ColumnVector {
        data: match data_type {
            DataType::Timestamp => ColumnData::Timestamp(values),
            DataType::TimestampTz => ColumnData::TimestampTz(values),
            _ => ColumnData::Integer(values),
        },
        nulls: Vec::new(),
    });
    batch.rows = rows.len();
    batch
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::exec::operators::{Replay, collect};
    use crate::types::datetime::{format_timestamp, parse_timestamp};
    use crate::types::interval::parse::parse_interval;

    fn literal(value: Value) -> Expr {
        let data_type = value.data_type();
        Expr::Literal { value, data_type }
    }

    fn one_empty_row() -> Box<dyn Operator> {
        Box::new(Replay(VecDeque::from([Batch {
            columns: Vec::new(),
            rows: 1,
        }])))
    }

    fn series(start: Value, stop: Value, step: Option<Value>) -> ExecResult<Vec<i64>> {
        let ctx = ExecContext::for_tests(1 << 20);
        let mut operator = GenerateSeries::new(
            one_empty_row(),
            literal(start),
            literal(stop),
            step.map(literal),
        );
        let mut values = Vec::new();
        for batch in collect(&mut operator, &ctx)? {
            assert!(batch.rows <= BATCH_SIZE);
            for row in 0..batch.rows {
                match batch.columns[0].get(row) {
                    Value::Integer(value) => values.push(value),
                    other => panic!("unexpected {other:?}"),
                }
            }
        }
        Ok(values)
    }

    #[test]
    fn counts_up_down_and_stops_before_overflow() {
        use Value::Integer;
        assert_eq!(
            series(Integer(1), Integer(5), None).unwrap(),
            [1, 2, 3, 4, 5]
        );
        assert_eq!(
            series(Integer(5), Integer(1), Some(Integer(-2))).unwrap(),
            [5, 3, 1]
        );
        assert!(series(Integer(5), Integer(1), None).unwrap().is_empty());
        assert_eq!(
            series(Integer(i64::MAX - 1), Integer(i64::MAX), None).unwrap(),
            [i64::MAX - 1, i64::MAX]
        );
        assert_eq!(
            series(Integer(i64::MIN + 1), Integer(i64::MIN), Some(Integer(-5))).unwrap(),
            [i64::MIN + 1]
        );
        assert_eq!(
            series(Integer(1), Integer(3000), None).unwrap(),
            (1..=3000).collect::<Vec<_>>()
        );
    }

    #[test]
    fn null_arguments_give_no_rows_and_zero_step_fails() {
        use Value::{Integer, Null};
        assert!(series(Null, Integer(5), None).unwrap().is_empty());
        assert!(
            series(Integer(1), Integer(5), Some(Null))
                .unwrap()
                .is_empty()
        );
        assert!(
            series(Null, Integer(5), Some(Integer(0)))
                .unwrap()
                .is_empty()
        );
        let error = series(Integer(1), Integer(5), Some(Integer(0))).unwrap_err();
        assert_eq!(error.code, sqlstate::INVALID_PARAMETER_VALUE);
        assert_eq!(error.message, "step size cannot equal zero");
    }

    #[test]
    fn each_input_row_is_followed_by_its_own_series() {
        // Input rows n = 2, NULL, 0, 1500, 1 (in two batches): series 1..n per row.
        let mut first = Batch::with_types(&[DataType::Integer], 3);
        for value in [Value::Integer(2), Value::Null, Value::Integer(0)] {
            first.push_row(&[value]);
        }
        let mut second = Batch::with_types(&[DataType::Integer], 2);
        for value in [Value::Integer(1500), Value::Integer(1)] {
            second.push_row(&[value]);
        }
        let ctx = ExecContext::for_tests(1 << 20);
        let mut operator = GenerateSeries::new(
            Box::new(Replay(VecDeque::from([
                first,
                Batch::with_types(&[DataType::Integer], 0),
                second,
            ]))),
            literal(Value::Integer(1)),
            Expr::Column {
                index: 0,
                data_type: DataType::Integer,
            },
            None,
        );
        let mut pairs = Vec::new();
        for batch in collect(&mut operator, &ctx).unwrap() {
            assert!(batch.rows <= BATCH_SIZE);
            for row in 0..batch.rows {
                pairs.push((batch.columns[0].get(row), batch.columns[1].get(row)));
            }
        }
        let mut expected = vec![
            (Value::Integer(2), Value::Integer(1)),
            (Value::Integer(2), Value::Integer(2)),
        ];
        expected.extend((1..=1500).map(|value| (Value::Integer(1500), Value::Integer(value))));
        expected.push((Value::Integer(1), Value::Integer(1)));
        assert_eq!(pairs, expected);
    }

    /// The timestamps (as text) of the series from `start` to `stop` by `step`.
    fn timestamps(start: &str, stop: &str, step: &str) -> ExecResult<Vec<String>> {
        let ctx = ExecContext::for_tests(1 << 20);
        let timestamp = |text| Value::Timestamp(parse_timestamp(text).unwrap());
        let mut operator = GenerateSeries::new(
            one_empty_row(),
            literal(timestamp(start)),
            literal(timestamp(stop)),
            Some(literal(Value::Interval(parse_interval(step).unwrap()))),
        );
        let mut values = Vec::new();
        for batch in collect(&mut operator, &ctx)? {
            for row in 0..batch.rows {
                match batch.columns[0].get(row) {
                    Value::Timestamp(micros) => values.push(format_timestamp(micros)),
                    other => panic!("unexpected {other:?}"),
                }
            }
        }
        Ok(values)
    }

    #[test]
    fn timestamps_step_by_intervals() {
        assert_eq!(
            timestamps("2024-01-31", "2024-05-31", "1 mon").unwrap(),
            [
                "2024-01-31 00:00:00",
                "2024-02-29 00:00:00",
                "2024-03-29 00:00:00",
                "2024-04-29 00:00:00",
                "2024-05-29 00:00:00"
            ]
        );
        assert_eq!(
            timestamps("2024-01-02 12:00", "2024-01-01", "-12 hours").unwrap(),
            [
                "2024-01-02 12:00:00",
                "2024-01-02 00:00:00",
                "2024-01-01 12:00:00",
                "2024-01-01 00:00:00"
            ]
        );
        assert!(
            timestamps("2024-01-02", "2024-01-01", "1 day")
                .unwrap()
                .is_empty()
        );
        let error = timestamps("2024-01-01", "2024-02-01", "1 mon -30 days").unwrap_err();
        assert_eq!(error.code, sqlstate::INVALID_PARAMETER_VALUE);
        let ctx = ExecContext::for_tests(1 << 20);
        let mut past_the_end = GenerateSeries::new(
            one_empty_row(),
            literal(Value::Timestamp(i64::MAX - 10)),
            literal(Value::Timestamp(i64::MAX)),
            Some(literal(Value::Interval(parse_interval("1 day").unwrap()))),
        );
        assert_eq!(
            collect(&mut past_the_end, &ctx).map_err(|error| error.code),
            Err(sqlstate::DATETIME_FIELD_OVERFLOW)
        );
    }
}
