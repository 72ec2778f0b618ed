//! A set-returning function (`types::functions::set_returning`, e.g. `json_each`) as a FROM
//! item: each input row followed by each row the function returns for it.
//!
//! The input is one empty row for a function on its own, or the FROM items to its left for
//! a LATERAL call whose arguments read them; the arguments are evaluated over each input
//! batch. One call's rows are computed at once (they come from one value already in memory,
//! such as a JSON document) and handed out in batches of at most `BATCH_SIZE` rows. A NULL
//! argument gives no rows for that input row (the functions are strict).

use crate::exec::batch::{BATCH_SIZE, Batch, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval::evaluate_all;
use crate::types::functions::set_returning::{SetReturningFunction, set_returning_function};
use crate::types::{DataType, Value};

use super::Operator;

/// The input batch being expanded.
#[derive(Debug)]
struct Expanding {
    batch: Batch,
    args: Vec<ColumnVector>,
    /// The next input row to call the function for.
    row: usize,
    /// The current row's function rows not yet handed out.
    pending: std::vec::IntoIter<Vec<Value>>,
    /// The input row `pending` belongs to.
    pending_row: u32,
}

/// Each input row followed by each row of its function call.
#[derive(Debug)]
pub struct FunctionScan {
    input: Box<dyn Operator>,
    function: &'static SetReturningFunction,
    args: Vec<crate::plan::Expr>,
    /// The output types: the input's columns, then the function's.
    types: Vec<DataType>,
    /// How many of `types` are the input's.
    input_width: usize,
    current: Option<Expanding>,
}

impl FunctionScan {
    /// The scan of registry function `name` over `input`; `types` is the node's schema.
    pub fn new(
        input: Box<dyn Operator>,
        name: &str,
        args: Vec<crate::plan::Expr>,
        types: Vec<DataType>,
    ) -> ExecResult<Self> {
        let function = set_returning_function(name)
            .ok_or_else(|| ExecError::internal(format!("no set-returning function {name}")))?;
        let argument_types: Vec<DataType> = args.iter().map(crate::plan::Expr::data_type).collect();
        let function_width = (function.columns)(&argument_types)?.len();
        let input_width = types.len().checked_sub(function_width).ok_or_else(|| {
            ExecError::internal("function scan schema narrower than the function")
        })?;
        Ok(FunctionScan {
            input,
            function,
            args,
            types,
            input_width,
            current: None,
        })
    }
}

impl Operator for FunctionScan {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        ctx.check_interrupt()?;
        let mut rows: Vec<u32> = Vec::with_capacity(BATCH_SIZE);
        let mut produced = Batch::with_types(&self.types[self.input_width..], BATCH_SIZE);
        loop {
            let Some(current) = &mut self.current else {
                match self.input.next(ctx)? {
                    Some(batch) => {
                        self.current = Some(Expanding {
                            args: evaluate_all(&self.args, &batch, ctx)?,
                            batch,
                            row: 0,
                            pending: Vec::new().into_iter(),
                            pending_row: 0,
                        });
                        continue;
                    }
                    None => break,
                }
            };
            while rows.len() < BATCH_SIZE {
                if let Some(values) = current.pending.next() {
                    rows.push(current.pending_row);
                    produced.push_row(&values);
                    continue;
                }
                if current.row >= current.batch.rows {
                    break;
                }
                let row = current.row;
                current.row += 1;
                let args: Vec<Value> = current.args.iter().map(|arg| arg.get(row)).collect();
                if args.iter().any(Value::is_null) {
                    continue;
                }
                current.pending = (self.function.call)(&args)?.into_iter();
                current.pending_row = row as u32;
            }
            if rows.len() >= BATCH_SIZE {
                return Ok(Some(output(&current.batch, &rows, produced)));
            }
            // This input batch is used up.
            let finished = self.current.take();
            if !rows.is_empty()
                && let Some(finished) = finished
            {
                return Ok(Some(output(&finished.batch, &rows, produced)));
            }
        }
        Ok(None)
    }
}

/// The input rows at `rows`, each followed by its function row in `produced`.
fn output(input: &Batch, rows: &[u32], produced: Batch) -> Batch {
    let mut batch = input.gather(rows);
    batch.columns.extend(produced.columns);
    batch.rows = rows.len();
    batch
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::exec::operators::{Replay, collect};
    use crate::plan::Expr;
    use crate::sqlstate;

    #[test]
    fn each_input_row_is_followed_by_its_members_in_batches() {
        // Input rows: a 1500-element array, NULL, a 2-element array.
        let big = format!(
            "[{}]",
            (0..1500)
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let mut input = Batch::with_types(&[DataType::Json], 3);
        for value in [
            Value::Json(big),
            Value::Null,
            Value::Json("[\"a\", null]".into()),
        ] {
            input.push_row(&[value]);
        }
        let ctx = ExecContext::for_tests(1 << 20);
        let mut scan = FunctionScan::new(
            Box::new(Replay(VecDeque::from([input]))),
            "json_array_elements_text",
            vec![Expr::Column {
                index: 0,
                data_type: DataType::Json,
            }],
            vec![DataType::Json, DataType::Text(None)],
        )
        .unwrap();
        let mut values = Vec::new();
        for batch in collect(&mut scan, &ctx).unwrap() {
            assert!(batch.rows <= BATCH_SIZE);
            assert_eq!(batch.columns.len(), 2);
            for row in 0..batch.rows {
                values.push(batch.columns[1].get(row));
            }
        }
        let mut expected: Vec<Value> = (0..1500).map(|n| Value::Text(n.to_string())).collect();
        expected.extend([Value::Text("a".into()), Value::Null]);
        assert_eq!(values, expected);
    }

    #[test]
    fn errors_of_the_function_surface() {
        let mut input = Batch::with_types(&[DataType::Jsonb], 1);
        input.push_row(&[Value::Jsonb("3".into())]);
        let ctx = ExecContext::for_tests(1 << 20);
        let mut scan = FunctionScan::new(
            Box::new(Replay(VecDeque::from([input]))),
            "jsonb_each",
            vec![Expr::Column {
                index: 0,
                data_type: DataType::Jsonb,
            }],
            vec![DataType::Jsonb, DataType::Text(None), DataType::Jsonb],
        )
        .unwrap();
        let error = collect(&mut scan, &ctx).unwrap_err();
        assert_eq!(error.code, sqlstate::INVALID_PARAMETER_VALUE);
        assert_eq!(error.message, "cannot call jsonb_each on a non-object");
    }
}
