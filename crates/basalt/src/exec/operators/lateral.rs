//! `LATERAL (subquery)` in FROM: the subquery runs once per row of the items to its left.
//!
//! The binder bound the subquery with the left items' row as its innermost outer row, so
//! the operator only has to make that row current while the subquery runs: it pushes the
//! row on the context's outer-row stack (where `OuterColumn { depth: 1 }` reads it, and
//! deeper references reach the enclosing queries' rows below it), builds and drains the
//! subquery, and pops the row again. Each subquery row is appended to the left row. For
//! `LEFT JOIN LATERAL ... ON condition` only the pairs passing the condition are kept, and
//! a left row without any comes out once with NULLs, as a left join's does.
//!
//! Cost: one subquery execution per left row, like PostgreSQL's nested loop over a
//! lateral subquery (no caching across rows, since each row may give different results).

use crate::exec::batch::Batch;
use crate::exec::context::ExecContext;
use crate::exec::error::ExecResult;
use crate::exec::eval;
use crate::plan::{Expr, PlanNode};
use crate::types::{DataType, Value};

use super::Operator;

/// Rows gathered before a batch is handed up.
const BATCH_ROWS: usize = 1024;

#[derive(Debug)]
pub(super) struct LateralSubquery {
    input: Box<dyn Operator>,
    subquery: PlanNode,
    outer: bool,
    condition: Option<Expr>,
    /// The output's column types: the input's, then the subquery's.
    types: Vec<DataType>,
}

impl LateralSubquery {
    pub(super) fn new(
        input: Box<dyn Operator>,
        subquery: PlanNode,
        outer: bool,
        condition: Option<Expr>,
        types: Vec<DataType>,
    ) -> Self {
        LateralSubquery {
            input,
            subquery,
            outer,
            condition,
            types,
        }
    }

    /// The subquery's rows for one left row.
    fn run_for(&self, left: &[Value], ctx: &ExecContext) -> ExecResult<Vec<Batch>> {
        ctx.outer_rows.borrow_mut().push(left.to_vec());
        let result = super::build(&self.subquery, ctx)
            .and_then(|mut operator| super::collect(operator.as_mut(), ctx));
        ctx.outer_rows.borrow_mut().pop();
        result
    }

    /// Whether the combined row passes the LEFT JOIN's condition.
    fn passes(&self, row: &[Value], ctx: &ExecContext) -> ExecResult<bool> {
        let Some(condition) = &self.condition else {
            return Ok(true);
        };
        let mut batch = Batch::with_types(&self.types, 1);
        batch.push_row(row);
        Ok(eval::evaluate(condition, &batch, ctx)?.get(0) == Value::Boolean(true))
    }
}

impl Operator for LateralSubquery {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        let mut out = Batch::with_types(&self.types, BATCH_ROWS);
        loop {
            let Some(batch) = self.input.next(ctx)? else {
                return Ok((out.rows > 0).then_some(out));
            };
            for row in 0..batch.rows {
                ctx.check_interrupt()?;
                let left = batch.row(row);
                let mut matched = false;
                for right in self.run_for(&left, ctx)? {
                    for right_row in 0..right.rows {
                        let mut combined = left.clone();
                        combined.extend(right.row(right_row));
                        if self.passes(&combined, ctx)? {
                            out.push_row(&combined);
                            matched = true;
                        }
                    }
                }
                if self.outer && !matched {
                    let mut combined = left;
                    combined.resize(self.types.len(), Value::Null);
                    out.push_row(&combined);
                }
            }
            if out.rows >= BATCH_ROWS {
                return Ok(Some(out));
            }
        }
    }
}
