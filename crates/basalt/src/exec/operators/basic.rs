//! The simple operators: one empty row, literal rows, filter, projection, limit, and the
//! first row of each group of a sorted input (DISTINCT ON).

use crate::exec::batch::Batch;
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::exec::row_key::equality_key;
use crate::plan::Expr;
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::Operator;

/// One row with no columns.
#[derive(Debug, Default)]
pub struct SingleRow {
    done: bool,
}

impl Operator for SingleRow {
    fn next(&mut self, _ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        Ok(Some(Batch {
            columns: Vec::new(),
            rows: 1,
        }))
    }
}

/// Literal rows (expressions without columns, evaluated at execution: they may hold
/// parameters).
#[derive(Debug)]
pub struct ValuesOperator {
    rows: Vec<Vec<Expr>>,
    types: Vec<DataType>,
    done: bool,
}

impl ValuesOperator {
    pub fn new(rows: Vec<Vec<Expr>>, types: Vec<DataType>) -> Self {
        ValuesOperator {
            rows,
            types,
            done: false,
        }
    }
}

impl Operator for ValuesOperator {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        let mut batch = Batch::with_types(&self.types, self.rows.len());
        let mut values = Vec::with_capacity(self.types.len());
        for row in &self.rows {
            values.clear();
            for expr in row {
                values.push(eval::evaluate_scalar(expr, ctx)?);
            }
            batch.push_row(&values);
        }
        Ok(Some(batch))
    }
}

/// Rows for which the predicate is true.
#[derive(Debug)]
pub struct Filter {
    input: Box<dyn Operator>,
    predicate: Expr,
}

impl Filter {
    pub fn new(input: Box<dyn Operator>, predicate: Expr) -> Self {
        Filter { input, predicate }
    }
}

impl Operator for Filter {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        let Some(batch) = self.input.next(ctx)? else {
            return Ok(None);
        };
        let selected = eval::select_true(&self.predicate, &batch, ctx)?;
        if selected.len() == batch.rows {
            return Ok(Some(batch));
        }
        Ok(Some(batch.gather(&selected)))
    }

    fn rewindable(&self) -> bool {
        self.input.rewindable()
    }

    fn rewind(&mut self, ctx: &ExecContext) -> ExecResult<()> {
        self.input.rewind(ctx)
    }
}

/// One output column per expression.
#[derive(Debug)]
pub struct Project {
    input: Box<dyn Operator>,
    exprs: Vec<Expr>,
}

impl Project {
    pub fn new(input: Box<dyn Operator>, exprs: Vec<Expr>) -> Self {
        Project { input, exprs }
    }
}

impl Operator for Project {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        let Some(batch) = self.input.next(ctx)? else {
            return Ok(None);
        };
        let columns = eval::evaluate_all(&self.exprs, &batch, ctx)?;
        Ok(Some(Batch {
            columns,
            rows: batch.rows,
        }))
    }

    fn rewindable(&self) -> bool {
        self.input.rewindable()
    }

    fn rewind(&mut self, ctx: &ExecContext) -> ExecResult<()> {
        self.input.rewind(ctx)
    }
}

/// `OFFSET` then `LIMIT`.
#[derive(Debug)]
pub struct Limit {
    input: Box<dyn Operator>,
    remaining: Option<u64>,
    to_skip: u64,
}

/// How many rows a search under `LIMIT limit OFFSET offset` must produce: `limit + offset`,
/// LIMIT NULL (or ALL) unbounded and no OFFSET zero; a bad count is the error the TopN above
/// would give. The vector and full-text searches ask for this many.
pub(super) fn rows_wanted(
    limit: &Expr,
    offset: Option<&Expr>,
    ctx: &crate::exec::context::ExecContext,
) -> crate::exec::error::ExecResult<usize> {
    let count = |expr: Option<&Expr>, what: &str, absent: u64| {
        count_argument(expr, ctx, what)
            .map(|count| usize::try_from(count.unwrap_or(absent)).unwrap_or(usize::MAX))
    };
    Ok(count(Some(limit), "LIMIT", u64::MAX)?.saturating_add(count(offset, "OFFSET", 0)?))
}

pub(super) fn count_argument(
    expr: Option<&Expr>,
    ctx: &ExecContext,
    what: &str,
) -> ExecResult<Option<u64>> {
    let Some(expr) = expr else { return Ok(None) };
    match eval::evaluate_scalar(expr, ctx)? {
        Value::Null => Ok(None),
        Value::Integer(count) if count >= 0 => Ok(Some(count as u64)),
        Value::Integer(_) => Err(ExecError::new(
            sqlstate::INVALID_ROW_COUNT_IN_LIMIT_CLAUSE,
            format!("{what} must not be negative"),
        )),
        other => Err(ExecError::new(
            sqlstate::INVALID_PARAMETER_VALUE,
            format!("{what} must be an integer, not {other:?}"),
        )),
    }
}

impl Limit {
    pub fn new(
        input: Box<dyn Operator>,
        limit: Option<&Expr>,
        offset: Option<&Expr>,
        ctx: &ExecContext,
    ) -> ExecResult<Self> {
        Ok(Limit {
            input,
            remaining: count_argument(limit, ctx, "LIMIT")?,
            to_skip: count_argument(offset, ctx, "OFFSET")?.unwrap_or(0),
        })
    }
}

impl Operator for Limit {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        loop {
            if self.remaining == Some(0) {
                return Ok(None);
            }
            let Some(batch) = self.input.next(ctx)? else {
                return Ok(None);
            };
            let skip = (self.to_skip as usize).min(batch.rows);
            self.to_skip -= skip as u64;
            let available = batch.rows - skip;
            let take = match self.remaining {
                Some(remaining) => (remaining as usize).min(available),
                None => available,
            };
            if let Some(remaining) = &mut self.remaining {
                *remaining -= take as u64;
            }
            if take == 0 {
                continue;
            }
            if skip == 0 && take == batch.rows {
                return Ok(Some(batch));
            }
            let positions: Vec<u32> = (skip..skip + take).map(|i| i as u32).collect();
            return Ok(Some(batch.gather(&positions)));
        }
    }
}

/// DISTINCT ON: the first row of each run of rows whose `keys` columns are equal (NULLs
/// equal, by the row keys DISTINCT and GROUP BY compare with). Runs may cross batches: the
/// last key seen is kept between them. The input must bring equal keys together (the
/// binder sorts it); the operator only streams.
#[derive(Debug)]
pub struct DistinctOn {
    input: Box<dyn Operator>,
    keys: Vec<usize>,
    /// The key of the last row emitted (meaningful once `started`); `key` is the scratch
    /// buffer of the row being looked at. The two swap, so no key is allocated per group.
    previous: Vec<u8>,
    key: Vec<u8>,
    started: bool,
}

impl DistinctOn {
    pub fn new(input: Box<dyn Operator>, keys: Vec<usize>) -> Self {
        DistinctOn {
            input,
            keys,
            previous: Vec::new(),
            key: Vec::new(),
            started: false,
        }
    }
}

impl Operator for DistinctOn {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        let Some(batch) = self.input.next(ctx)? else {
            return Ok(None);
        };
        let columns =
            self.keys
                .iter()
                .map(|&key| {
                    batch.columns.get(key).ok_or_else(|| {
                        ExecError::internal("DISTINCT ON key past the input's columns")
                    })
                })
                .collect::<ExecResult<Vec<_>>>()?;
        let mut selected: Vec<u32> = Vec::new();
        for row in 0..batch.rows {
            equality_key(&columns, row, &mut self.key);
            if !self.started || self.previous != self.key {
                selected.push(
                    u32::try_from(row)
                        .map_err(|_| ExecError::internal("batch of more than 2^32 rows"))?,
                );
                std::mem::swap(&mut self.previous, &mut self.key);
                self.started = true;
            }
        }
        if selected.len() == batch.rows {
            return Ok(Some(batch));
        }
        Ok(Some(batch.gather(&selected)))
    }
}
