//! Hash aggregation: GROUP BY keys to accumulators.
//!
//! Group keys are encoded as row keys (`exec::row_key`), so grouping is a hash lookup on
//! bytes and NULLs form one group. Without GROUP BY there is exactly one group, and one
//! output row even when the input is empty (`SELECT count(*) FROM empty` is 0).

use std::collections::{HashMap, HashSet};

use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::exec::row_key::{encode_cell, equality_key};
use crate::exec::vector::{Batch, Vector, VectorData};
use crate::plan::{AggregateCall, AggregateFunction, Expr};
use crate::storage::keys::KeyOrder;
use crate::types::{DataType, Value};

use super::Operator;
use super::sort::Emitter;

/// The running state of one aggregate for one group.
#[derive(Clone, Debug)]
enum Accumulator {
    Count(i64),
    IntegerSum(Option<i64>),
    RealSum(Option<f64>),
    Total(f64),
    Average {
        sum: f64,
        count: i64,
    },
    /// Min or max: the current best value and its ascending key.
    Extreme {
        best: Option<(Vec<u8>, Value)>,
        maximum: bool,
    },
    StringAgg(Option<String>),
    Bool {
        value: Option<bool>,
        and: bool,
    },
}

impl Accumulator {
    fn new(call: &AggregateCall) -> Accumulator {
        let argument_type = call.args.first().map_or(DataType::Null, Expr::data_type);
        match call.function {
            AggregateFunction::CountStar | AggregateFunction::Count => Accumulator::Count(0),
            AggregateFunction::Sum if argument_type == DataType::Integer => {
                Accumulator::IntegerSum(None)
            }
            AggregateFunction::Sum => Accumulator::RealSum(None),
            AggregateFunction::Total => Accumulator::Total(0.0),
            AggregateFunction::Avg => Accumulator::Average { sum: 0.0, count: 0 },
            AggregateFunction::Min => Accumulator::Extreme {
                best: None,
                maximum: false,
            },
            AggregateFunction::Max => Accumulator::Extreme {
                best: None,
                maximum: true,
            },
            AggregateFunction::StringAgg => Accumulator::StringAgg(None),
            AggregateFunction::BoolAnd => Accumulator::Bool {
                value: None,
                and: true,
            },
            AggregateFunction::BoolOr => Accumulator::Bool {
                value: None,
                and: false,
            },
        }
    }

    /// Adds one row. `args` are the argument vectors; `row` the row in them.
    fn update(&mut self, args: &[Vector], row: usize) -> ExecResult<()> {
        let Some(first) = args.first() else {
            // count(*)
            if let Accumulator::Count(count) = self {
                *count += 1;
            }
            return Ok(());
        };
        if first.is_null(row) {
            return Ok(());
        }
        match self {
            Accumulator::Count(count) => *count += 1,
            Accumulator::IntegerSum(sum) => {
                let VectorData::Integer(values) = &first.data else {
                    return Err(ExecError::internal("integer sum over a non-integer column"));
                };
                let value = values.get(row).copied().unwrap_or(0);
                *sum = Some(
                    sum.unwrap_or(0)
                        .checked_add(value)
                        .ok_or_else(|| ExecError::new("22003", "integer out of range in sum"))?,
                );
            }
            Accumulator::RealSum(sum) => *sum = Some(sum.unwrap_or(0.0) + number(first, row)?),
            Accumulator::Total(total) => *total += number(first, row)?,
            Accumulator::Average { sum, count } => {
                *sum += number(first, row)?;
                *count += 1;
            }
            Accumulator::Extreme { best, maximum } => {
                let mut key = Vec::new();
                encode_cell(first, row, KeyOrder::ASC, &mut key);
                let better = match best {
                    None => true,
                    Some((best_key, _)) => {
                        if *maximum {
                            key > *best_key
                        } else {
                            key < *best_key
                        }
                    }
                };
                if better {
                    *best = Some((key, first.get(row)));
                }
            }
            Accumulator::StringAgg(text) => {
                let value = match first.get(row) {
                    Value::Text(text) => text,
                    other => other.to_string(),
                };
                let separator = match args.get(1).map(|s| s.get(row)) {
                    Some(Value::Text(separator)) => separator,
                    Some(Value::Null) => String::new(),
                    _ => ",".to_string(),
                };
                match text {
                    None => *text = Some(value),
                    Some(text) => {
                        text.push_str(&separator);
                        text.push_str(&value);
                    }
                }
            }
            Accumulator::Bool { value, and } => {
                let VectorData::Boolean(values) = &first.data else {
                    return Err(ExecError::internal(
                        "bool_and/bool_or over a non-boolean column",
                    ));
                };
                let item = values.get(row).copied().unwrap_or(false);
                *value = Some(match value {
                    None => item,
                    Some(current) if *and => *current && item,
                    Some(current) => *current || item,
                });
            }
        }
        Ok(())
    }

    fn finish(&self) -> Value {
        match self {
            Accumulator::Count(count) => Value::Integer(*count),
            Accumulator::IntegerSum(sum) => sum.map_or(Value::Null, Value::Integer),
            Accumulator::RealSum(sum) => sum.map_or(Value::Null, Value::Real),
            Accumulator::Total(total) => Value::Real(*total),
            Accumulator::Average { sum, count } => {
                if *count == 0 {
                    Value::Null
                } else {
                    Value::Real(sum / *count as f64)
                }
            }
            Accumulator::Extreme { best, .. } => best
                .as_ref()
                .map_or(Value::Null, |(_, value)| value.clone()),
            Accumulator::StringAgg(text) => text.clone().map_or(Value::Null, Value::Text),
            Accumulator::Bool { value, .. } => value.map_or(Value::Null, Value::Boolean),
        }
    }
}

fn number(vector: &Vector, row: usize) -> ExecResult<f64> {
    match &vector.data {
        VectorData::Integer(values) => Ok(values.get(row).copied().unwrap_or(0) as f64),
        VectorData::Real(values) => Ok(values.get(row).copied().unwrap_or(0.0)),
        _ => Err(ExecError::new(
            "42883",
            format!("cannot sum or average {}", vector.data_type()),
        )),
    }
}

/// Per-group state.
#[derive(Debug)]
struct Group {
    accumulators: Vec<Accumulator>,
    /// For DISTINCT aggregates: argument keys already counted, per aggregate.
    seen: Vec<HashSet<Vec<u8>>>,
}

/// GROUP BY with hash tables.
#[derive(Debug)]
pub struct HashAggregate {
    input: Option<Box<dyn Operator>>,
    group_by: Vec<Expr>,
    aggregates: Vec<AggregateCall>,
    types: Vec<DataType>,
    output: Emitter,
}

impl HashAggregate {
    pub fn new(
        input: Box<dyn Operator>,
        group_by: Vec<Expr>,
        aggregates: Vec<AggregateCall>,
        types: Vec<DataType>,
    ) -> Self {
        HashAggregate {
            input: Some(input),
            group_by,
            aggregates,
            types,
            output: Emitter::default(),
        }
    }

    fn new_group(&self) -> Group {
        Group {
            accumulators: self.aggregates.iter().map(Accumulator::new).collect(),
            seen: self.aggregates.iter().map(|_| HashSet::new()).collect(),
        }
    }

    fn run(&self, input: &mut dyn Operator, ctx: &ExecContext) -> ExecResult<Batch> {
        let key_types: Vec<DataType> = self.group_by.iter().map(Expr::data_type).collect();
        let mut keys_batch = Batch::with_types(&key_types, 64);
        let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut groups: Vec<Group> = Vec::new();
        if self.group_by.is_empty() {
            groups.push(self.new_group());
            keys_batch.rows = 1;
        }
        let mut key = Vec::new();
        while let Some(batch) = input.next(ctx)? {
            if batch.rows == 0 {
                continue;
            }
            let key_columns = self
                .group_by
                .iter()
                .map(|expr| eval::evaluate(expr, &batch, ctx))
                .collect::<ExecResult<Vec<_>>>()?;
            let key_refs: Vec<&Vector> = key_columns.iter().collect();
            let mut arguments = Vec::with_capacity(self.aggregates.len());
            let mut filters = Vec::with_capacity(self.aggregates.len());
            for call in &self.aggregates {
                let args = call
                    .args
                    .iter()
                    .map(|arg| eval::evaluate(arg, &batch, ctx))
                    .collect::<ExecResult<Vec<_>>>()?;
                arguments.push(args);
                filters.push(match &call.filter {
                    Some(filter) => {
                        let mut keep = vec![false; batch.rows];
                        for row in eval::select_true(filter, &batch, ctx)? {
                            keep[row as usize] = true;
                        }
                        Some(keep)
                    }
                    None => None,
                });
            }
            for row in 0..batch.rows {
                let group_index = if self.group_by.is_empty() {
                    0
                } else {
                    equality_key(&key_refs, row, &mut key);
                    match index.get(&key) {
                        Some(&group_index) => group_index,
                        None => {
                            index.insert(key.clone(), groups.len());
                            for (to, from) in keys_batch.columns.iter_mut().zip(&key_columns) {
                                to.push_from(from, row);
                            }
                            keys_batch.rows += 1;
                            groups.push(self.new_group());
                            groups.len() - 1
                        }
                    }
                };
                let group = &mut groups[group_index];
                for (position, call) in self.aggregates.iter().enumerate() {
                    if filters[position].as_ref().is_some_and(|keep| !keep[row]) {
                        continue;
                    }
                    let args = &arguments[position];
                    if call.distinct {
                        let refs: Vec<&Vector> = args.iter().take(1).collect();
                        if refs.first().is_some_and(|arg| arg.is_null(row)) {
                            continue;
                        }
                        let mut argument_key = Vec::new();
                        equality_key(&refs, row, &mut argument_key);
                        if !group.seen[position].insert(argument_key) {
                            continue;
                        }
                    }
                    group.accumulators[position].update(args, row)?;
                }
            }
        }
        let mut out = Batch::with_types(&self.types, groups.len());
        for (group_index, group) in groups.iter().enumerate() {
            let mut values = keys_batch.row(group_index);
            values.truncate(self.group_by.len());
            values.extend(group.accumulators.iter().map(Accumulator::finish));
            out.push_row(&values);
        }
        Ok(out)
    }
}

impl Operator for HashAggregate {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if let Some(mut input) = self.input.take() {
            let result = self.run(input.as_mut(), ctx)?;
            let positions = (0..result.rows as u32).collect();
            self.output = Emitter::new(result, positions);
        }
        Ok(self.output.next_batch())
    }
}
