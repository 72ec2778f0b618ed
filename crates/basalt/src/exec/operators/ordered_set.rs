//! The running state of the ordered-set aggregates `percentile_cont`, `percentile_disc`
//! and `mode`, computed as PostgreSQL 15's `orderedsetaggs.c` computes them.
//!
//! The hash aggregate's ordered path (`OrderedRows` in `aggregate.rs`) buffers a group's
//! rows and feeds them here already sorted by the WITHIN GROUP key (ASC or DESC as
//! written); NULL inputs never arrive (the accumulator skips them). The percentiles keep
//! the sorted values and pick from them when the group is finished; `mode` needs only the
//! current run of equal values and the longest run so far, the earliest in sort order
//! winning a tie. The fraction (the direct argument) is set once per group before the
//! result is asked for: NULL gives NULL, a value outside [0, 1] is 22003 — checked before
//! the group's rows, so an empty group with a bad fraction fails as in PostgreSQL.

use crate::exec::batch::ColumnVector;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::row_key::equality_key;
use crate::plan::AggregateFunction;
use crate::sqlstate;
use crate::types::Value;

/// Per-group state of one ordered-set aggregate call.
#[derive(Clone, Debug)]
pub(super) enum OrderedSet {
    Percentile {
        continuous: bool,
        /// The non-NULL inputs, in sort order.
        values: Vec<Value>,
        /// The direct argument: NULL until set.
        fraction: Value,
    },
    Mode {
        /// The run of equal values being read: its equality key, value and length.
        run: Option<(Vec<u8>, Value, u64)>,
        /// The longest finished run: its value and length.
        best: Option<(Value, u64)>,
    },
}

impl OrderedSet {
    pub(super) fn new(function: AggregateFunction) -> OrderedSet {
        match function {
            AggregateFunction::Mode => OrderedSet::Mode {
                run: None,
                best: None,
            },
            _ => OrderedSet::Percentile {
                continuous: function == AggregateFunction::PercentileCont,
                values: Vec::new(),
                fraction: Value::Null,
            },
        }
    }

    /// Takes the group's direct arguments (the fraction; none for `mode`).
    pub(super) fn set_direct(&mut self, direct: &[Value]) {
        if let (OrderedSet::Percentile { fraction, .. }, Some(value)) = (self, direct.first()) {
            *fraction = value.clone();
        }
    }

    /// Adds the next non-NULL input in sort order; returns the bytes the state grew by.
    pub(super) fn update(&mut self, input: &ColumnVector, row: usize) -> usize {
        match self {
            OrderedSet::Percentile { values, .. } => {
                let value = input.get(row);
                let size = std::mem::size_of::<Value>() + super::aggregate::heap_bytes(&value);
                values.push(value);
                size
            }
            OrderedSet::Mode { run, best } => {
                let mut key = Vec::new();
                equality_key(&[input], row, &mut key);
                if let Some((run_key, _, length)) = run
                    && *run_key == key
                {
                    *length += 1;
                    return 0;
                }
                let size = key.len() + std::mem::size_of::<Value>();
                if let Some((_, value, length)) = run.take()
                    && best.as_ref().is_none_or(|(_, longest)| length > *longest)
                {
                    *best = Some((value, length));
                }
                *run = Some((key, input.get(row), 1));
                size
            }
        }
    }

    pub(super) fn finish(&self) -> ExecResult<Value> {
        match self {
            OrderedSet::Mode { run, best } => {
                // The last run still has to be compared; an earlier run wins a tie.
                let winner = match (run, best) {
                    (Some((_, value, length)), Some((_, longest))) if length > longest => value,
                    (_, Some((value, _))) => value,
                    (Some((_, value, _)), None) => value,
                    (None, None) => return Ok(Value::Null),
                };
                Ok(winner.clone())
            }
            OrderedSet::Percentile {
                continuous,
                values,
                fraction,
            } => {
                let fraction = match fraction {
                    Value::Null => return Ok(Value::Null),
                    // `percentile_cont(ARRAY[...])`: one result per fraction, in the
                    // fractions' shape (NULL over no rows, as in PostgreSQL).
                    Value::Array(fractions) => {
                        let Some(first) = values.first() else {
                            return Ok(Value::Null);
                        };
                        let mut results = Vec::with_capacity(fractions.elements().len());
                        for fraction in fractions.elements() {
                            results.push(match fraction {
                                Value::Null => Value::Null,
                                Value::Real(fraction) => {
                                    percentile(values, *continuous, *fraction)?
                                }
                                other => {
                                    return Err(ExecError::internal(format!(
                                        "percentile fraction {other:?} is not a number"
                                    )));
                                }
                            });
                        }
                        return Ok(crate::types::Array::new(
                            first.data_type(),
                            fractions.dimensions().to_vec(),
                            results,
                        )?
                        .into_value());
                    }
                    Value::Real(fraction) => *fraction,
                    Value::Integer(fraction) => *fraction as f64,
                    other => {
                        return Err(ExecError::internal(format!(
                            "percentile fraction {other:?} is not a number"
                        )));
                    }
                };
                check_fraction(fraction)?;
                if values.is_empty() {
                    return Ok(Value::Null);
                }
                percentile(values, *continuous, fraction)
            }
        }
    }
}

fn check_fraction(fraction: f64) -> ExecResult<()> {
    if !(0.0..=1.0).contains(&fraction) {
        return Err(ExecError::new(
            sqlstate::NUMERIC_VALUE_OUT_OF_RANGE,
            format!("percentile value {fraction} is not between 0 and 1"),
        ));
    }
    Ok(())
}

/// The percentile at `fraction` (checked) of the sorted, non-empty `values`.
fn percentile(values: &[Value], continuous: bool, fraction: f64) -> ExecResult<Value> {
    check_fraction(fraction)?;
    if continuous {
        continuous_percentile(values, fraction)
    } else {
        Ok(discrete_percentile(values, fraction).clone())
    }
}

/// `percentile_disc`: the first value whose position (counting from 1) reaches
/// `fraction * n`, rounded up; the first value for fraction 0.
fn discrete_percentile(values: &[Value], fraction: f64) -> &Value {
    let position = (fraction * values.len() as f64).ceil() as usize;
    let index = position.clamp(1, values.len()) - 1;
    &values[index]
}

/// `percentile_cont`: the value at position `fraction * (n - 1)` (from 0), interpolated
/// linearly between its two neighbours as PostgreSQL's `float8_lerp` / `interval_lerp`:
/// `lo + pct * (hi - lo)`.
fn continuous_percentile(values: &[Value], fraction: f64) -> ExecResult<Value> {
    let position = fraction * (values.len() - 1) as f64;
    let first = position.floor() as usize;
    let second = position.ceil() as usize;
    let (Some(low), Some(high)) = (values.get(first), values.get(second)) else {
        return Err(ExecError::internal("percentile position past the values"));
    };
    if second == first {
        return Ok(low.clone());
    }
    let proportion = position - first as f64;
    match (low, high) {
        (Value::Real(low), Value::Real(high)) => Ok(Value::Real(low + proportion * (high - low))),
        (Value::Interval(low), Value::Interval(high)) => Ok(Value::Interval(
            high.checked_sub(*low)?
                .multiply(proportion)?
                .checked_add(*low)?,
        )),
        _ => Err(ExecError::internal(
            "percentile_cont over values that are neither real nor interval",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::batch::Batch;
    use crate::types::DataType;

    fn run(function: AggregateFunction, inputs: &[Value], fraction: Value) -> ExecResult<Value> {
        let data_type = match inputs.first() {
            Some(Value::Text(_)) => DataType::Text(None),
            Some(Value::Integer(_)) => DataType::Integer,
            _ => DataType::Real,
        };
        let mut batch = Batch::with_types(&[data_type], inputs.len());
        for value in inputs {
            batch.push_row(std::slice::from_ref(value));
        }
        let mut state = OrderedSet::new(function);
        for row in 0..batch.rows {
            state.update(&batch.columns[0], row);
        }
        state.set_direct(&[fraction]);
        state.finish()
    }

    fn reals(values: &[f64]) -> Vec<Value> {
        values.iter().map(|value| Value::Real(*value)).collect()
    }

    #[test]
    fn continuous_interpolates_between_neighbours() {
        let values = reals(&[1.0, 2.0, 4.0, 10.0]);
        let at = |fraction: f64| {
            run(
                AggregateFunction::PercentileCont,
                &values,
                Value::Real(fraction),
            )
            .unwrap()
        };
        assert_eq!(at(0.0), Value::Real(1.0));
        assert_eq!(at(1.0), Value::Real(10.0));
        // position 1.5: halfway between 2 and 4
        assert_eq!(at(0.5), Value::Real(3.0));
        // position 0.75 * 3 = 2.25: 4 + 0.25 * 6
        assert_eq!(at(0.75), Value::Real(5.5));
        // exact positions take the value itself
        assert_eq!(at(1.0 / 3.0), Value::Real(2.0));
    }

    #[test]
    fn discrete_takes_the_first_value_reaching_the_fraction() {
        let values = reals(&[1.0, 2.0, 4.0, 10.0]);
        let at = |fraction: f64| {
            run(
                AggregateFunction::PercentileDisc,
                &values,
                Value::Real(fraction),
            )
            .unwrap()
        };
        assert_eq!(at(0.0), Value::Real(1.0));
        assert_eq!(at(0.25), Value::Real(1.0));
        assert_eq!(at(0.26), Value::Real(2.0));
        assert_eq!(at(0.5), Value::Real(2.0));
        assert_eq!(at(1.0), Value::Real(10.0));
    }

    #[test]
    fn fraction_is_checked_before_emptiness_and_null_gives_null() {
        for fraction in [-0.01, 1.5, f64::NAN] {
            let error = run(
                AggregateFunction::PercentileCont,
                &[],
                Value::Real(fraction),
            )
            .unwrap_err();
            assert_eq!(error.code, sqlstate::NUMERIC_VALUE_OUT_OF_RANGE);
        }
        assert_eq!(
            run(AggregateFunction::PercentileDisc, &[], Value::Real(0.5)).unwrap(),
            Value::Null
        );
        assert_eq!(
            run(
                AggregateFunction::PercentileDisc,
                &reals(&[1.0]),
                Value::Null
            )
            .unwrap(),
            Value::Null
        );
    }

    #[test]
    fn mode_prefers_the_longest_run_then_the_earliest() {
        let text = |items: &[&str]| -> Vec<Value> {
            items
                .iter()
                .map(|item| Value::Text((*item).to_string()))
                .collect()
        };
        let mode = |values: &[Value]| run(AggregateFunction::Mode, values, Value::Null).unwrap();
        assert_eq!(mode(&text(&["a", "b", "b", "c"])), Value::Text("b".into()));
        // ties: the first run in sort order
        assert_eq!(mode(&text(&["a", "a", "b", "b"])), Value::Text("a".into()));
        // the last run is longest
        assert_eq!(mode(&text(&["a", "b", "c", "c"])), Value::Text("c".into()));
        assert_eq!(mode(&text(&["x"])), Value::Text("x".into()));
        assert_eq!(mode(&[]), Value::Null);
        // -0.0 and 0.0 are one value
        assert_eq!(mode(&reals(&[-0.0, 0.0, 1.0])), Value::Real(-0.0));
    }
}
