//! `generate_series(start, stop[, step])` as a FROM item: integers from `start` towards
//! `stop`, computed batch by batch as they are read, so a series of ten million rows under a
//! LIMIT or an aggregate never exists in memory at once.
//!
//! Semantics are PostgreSQL's: the arguments are evaluated once when the scan starts; a NULL
//! argument gives no rows (the function is strict); a step of zero fails with 22023; a
//! negative step counts down; the series ends at the last value not past `stop`, and also
//! where the next value would overflow a 64-bit integer (instead of failing).

use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval::evaluate_scalar;
use crate::exec::vector::{BATCH_SIZE, Batch, Vector, VectorData};
use crate::plan::Expr;
use crate::types::Value;

use super::Operator;

/// The rows of an integer series still to produce.
#[derive(Debug)]
pub struct GenerateSeries {
    /// The next value, or `None` once the series is exhausted.
    next: Option<i64>,
    stop: i64,
    step: i64,
}

impl GenerateSeries {
    /// Evaluates the arguments (INTEGER expressions without input columns).
    pub fn new(
        start: &Expr,
        stop: &Expr,
        step: Option<&Expr>,
        ctx: &ExecContext,
    ) -> ExecResult<Self> {
        let start = integer_argument(start, ctx)?;
        let stop = integer_argument(stop, ctx)?;
        let step = match step {
            Some(step) => integer_argument(step, ctx)?,
            None => Some(1),
        };
        Ok(match (start, stop, step) {
            // A strict function: with a NULL argument it is not called, so no error either.
            (Some(_), Some(_), Some(0)) => {
                return Err(ExecError::new("22023", "step size cannot equal zero"));
            }
            (Some(start), Some(stop), Some(step)) => GenerateSeries {
                next: Some(start),
                stop,
                step,
            },
            _ => GenerateSeries {
                next: None,
                stop: 0,
                step: 1,
            },
        })
    }

    /// Whether `value` is within the series' end.
    fn within(&self, value: i64) -> bool {
        if self.step > 0 {
            value <= self.stop
        } else {
            value >= self.stop
        }
    }
}

/// An argument's value; `None` for NULL.
fn integer_argument(expr: &Expr, ctx: &ExecContext) -> ExecResult<Option<i64>> {
    match evaluate_scalar(expr, ctx)? {
        Value::Null => Ok(None),
        Value::Integer(value) => Ok(Some(value)),
        other => Err(ExecError::internal(format!(
            "generate_series argument {other:?} is not an integer"
        ))),
    }
}

impl Operator for GenerateSeries {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        ctx.check_interrupt()?;
        let mut values = Vec::with_capacity(BATCH_SIZE);
        while values.len() < BATCH_SIZE {
            let Some(value) = self.next.filter(|&value| self.within(value)) else {
                self.next = None;
                break;
            };
            values.push(value);
            self.next = value.checked_add(self.step);
        }
        if values.is_empty() {
            return Ok(None);
        }
        let rows = values.len();
        Ok(Some(Batch {
            columns: vec![Vector {
                data: VectorData::Integer(values),
                nulls: Vec::new(),
            }],
            rows,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DataType;

    fn literal(value: Value) -> Expr {
        let data_type = match value {
            Value::Null => DataType::Null,
            _ => DataType::Integer,
        };
        Expr::Literal { value, data_type }
    }

    fn series(start: Value, stop: Value, step: Option<Value>) -> ExecResult<Vec<i64>> {
        let ctx = ExecContext::for_tests(1 << 20);
        let step = step.map(literal);
        let mut operator =
            GenerateSeries::new(&literal(start), &literal(stop), step.as_ref(), &ctx)?;
        let mut values = Vec::new();
        while let Some(batch) = operator.next(&ctx)? {
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
        assert_eq!(series(Integer(1), Integer(3000), None).unwrap().len(), 3000);
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
        assert_eq!(error.code, "22023");
        assert_eq!(error.message, "step size cannot equal zero");
    }
}
