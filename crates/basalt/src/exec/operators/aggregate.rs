//! Hash aggregation: GROUP BY keys to accumulators, spilling to partitions past the memory
//! budget.
//!
//! Group keys are encoded as row keys (`exec::row_key`), so grouping is a hash lookup on
//! bytes and NULLs form one group. Without GROUP BY there is exactly one group, and one
//! output row even when the input is empty (`SELECT count(*) FROM empty` is 0). How the
//! operator stays within `ExecContext::operator_memory` is described at [`HashAggregate`].
//!
//! An aggregate with its own ORDER BY (`string_agg(x, ',' ORDER BY y)`) keeps each group's
//! arguments with their sort keys ([`OrderedRows`]) and feeds them to its accumulator in key
//! order (ties in input order) when the group is finished; the rows count against the
//! memory budget like any other state. The ordered-set aggregates (`percentile_cont`,
//! `mode`, ...) take the same path, and get their direct arguments (the fraction) from the
//! group's keys when the group is finished (`ordered_set`).

use crate::exec::batch::{Batch, ColumnData, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::{ExecError, ExecResult};
use crate::exec::eval;
use crate::exec::row_key::{RowKeyMap, RowKeySet};
use crate::exec::row_key::{encode_cell, equality_key};
use crate::exec::spill::{MAX_PARTITION_DEPTH, Partitions, SpilledRows};
use crate::plan::{AggregateCall, AggregateFunction, Expr};
use crate::sqlstate;
use crate::storage::keys::KeyOrder as SortOrder;
use crate::storage::keys::KeyOrder;
use crate::types::numeric::{self, Numeric};
use crate::types::{DataType, Interval, Value, vector};

use super::Operator;
use super::json_aggregate;
use super::ordered_set::OrderedSet;
use super::sort::Emitter;

/// The running state of one aggregate for one group (or, for the window operator, one
/// frame).
#[derive(Clone, Debug)]
pub(super) enum Accumulator {
    Count(i64),
    IntegerSum(Option<i64>),
    RealSum(Option<f64>),
    /// sum(numeric) and avg(numeric): the exact sum as a 128-bit mantissa at the largest
    /// scale seen so far, and the count of values.
    NumericSum {
        sum: i128,
        scale: u32,
        count: i64,
        average: bool,
    },
    /// sum(interval): field by field, as PostgreSQL's `interval_pl`.
    IntervalSum(Option<Interval>),
    /// avg(interval): the field-wise sum divided by the count (`interval_div`).
    IntervalAverage {
        sum: Interval,
        count: i64,
    },
    Total(f64),
    Average {
        sum: f64,
        count: i64,
    },
    /// sum(vector): element-wise in `f32`, as pgvector's `vector_add`.
    VectorSum(Option<Vec<f32>>),
    /// avg(vector): element-wise sums in double precision, as pgvector's `vector_accum`.
    VectorAverage {
        sum: Vec<f64>,
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
    /// json_agg / jsonb_agg: the elements so far, each already JSON text (for jsonb,
    /// normalized), so that finishing cannot fail.
    JsonArray {
        elements: Option<String>,
        binary: bool,
    },
    /// json_object_agg: the object text so far (PostgreSQL's `{ "k" : v, ... }` spacing).
    JsonObject(Option<String>),
    /// jsonb_object_agg: the pairs so far (key, normalized value), deduplicated and sorted
    /// when finished.
    JsonbObject(Vec<(String, String)>),
    /// array_agg: the inputs so far (NULLs included), and the result's array type.
    ArrayAgg {
        elements: Option<Vec<Value>>,
        data_type: DataType,
    },
    /// percentile_cont, percentile_disc and mode: fed in WITHIN GROUP order.
    OrderedSet(OrderedSet),
}

impl Accumulator {
    pub(super) fn new(call: &AggregateCall) -> Accumulator {
        let argument_type = call.args.first().map_or(DataType::Null, Expr::data_type);
        match call.function {
            AggregateFunction::CountStar | AggregateFunction::Count => Accumulator::Count(0),
            AggregateFunction::Sum if argument_type == DataType::Integer => {
                Accumulator::IntegerSum(None)
            }
            AggregateFunction::Sum if argument_type == DataType::Interval => {
                Accumulator::IntervalSum(None)
            }
            AggregateFunction::Sum if matches!(argument_type, DataType::Vector(_)) => {
                Accumulator::VectorSum(None)
            }
            AggregateFunction::Avg if matches!(argument_type, DataType::Vector(_)) => {
                Accumulator::VectorAverage {
                    sum: Vec::new(),
                    count: 0,
                }
            }
            AggregateFunction::Sum | AggregateFunction::Avg
                if matches!(argument_type, DataType::Numeric(_)) =>
            {
                Accumulator::NumericSum {
                    sum: 0,
                    scale: 0,
                    count: 0,
                    average: call.function == AggregateFunction::Avg,
                }
            }
            AggregateFunction::Sum => Accumulator::RealSum(None),
            AggregateFunction::Avg if argument_type == DataType::Interval => {
                Accumulator::IntervalAverage {
                    sum: Interval::ZERO,
                    count: 0,
                }
            }
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
            AggregateFunction::JsonAgg | AggregateFunction::JsonbAgg => Accumulator::JsonArray {
                elements: None,
                binary: call.function == AggregateFunction::JsonbAgg,
            },
            AggregateFunction::JsonObjectAgg => Accumulator::JsonObject(None),
            AggregateFunction::ArrayAgg => Accumulator::ArrayAgg {
                elements: None,
                data_type: call.data_type,
            },
            AggregateFunction::JsonbObjectAgg => Accumulator::JsonbObject(Vec::new()),
            AggregateFunction::PercentileCont
            | AggregateFunction::PercentileDisc
            | AggregateFunction::Mode => Accumulator::OrderedSet(OrderedSet::new(call.function)),
        }
    }

    /// Adds one row. `args` are the argument vectors; `row` the row in them. Returns how many
    /// bytes the state grew by (string_agg's text, min/max of text), for the memory budget.
    pub(super) fn update(&mut self, args: &[ColumnVector], row: usize) -> ExecResult<usize> {
        let Some(first) = args.first() else {
            // count(*)
            if let Accumulator::Count(count) = self {
                *count += 1;
            }
            return Ok(0);
        };
        if let Some(grown) = self.update_json(args, row)? {
            return Ok(grown);
        }
        // array_agg keeps NULL inputs, so it comes before the NULL skip.
        if let Accumulator::ArrayAgg { elements, .. } = self {
            let value = first.get(row);
            let grown = 32 + heap_bytes(&value);
            elements.get_or_insert_with(Vec::new).push(value);
            return Ok(grown);
        }
        if first.is_null(row) {
            return Ok(0);
        }
        let mut grown = 0;
        match self {
            Accumulator::Count(count) => *count += 1,
            Accumulator::IntegerSum(sum) => {
                let ColumnData::Integer(values) = &first.data else {
                    return Err(ExecError::internal("integer sum over a non-integer column"));
                };
                let value = values.get(row).copied().unwrap_or(0);
                *sum = Some(sum.unwrap_or(0).checked_add(value).ok_or_else(|| {
                    ExecError::new(
                        sqlstate::NUMERIC_VALUE_OUT_OF_RANGE,
                        "integer out of range in sum",
                    )
                })?);
            }
            Accumulator::RealSum(sum) => *sum = Some(sum.unwrap_or(0.0) + number(first, row)?),
            Accumulator::NumericSum {
                sum, scale, count, ..
            } => {
                let ColumnData::Numeric(values) = &first.data else {
                    return Err(ExecError::internal("numeric sum over a non-numeric column"));
                };
                let value = values.get(row).copied().unwrap_or(Numeric::ZERO);
                let overflow = || ExecError::from(numeric::overflow());
                let mut mantissa = value.mantissa();
                if value.scale() > *scale {
                    *sum = sum
                        .checked_mul(numeric::pow10(value.scale() - *scale))
                        .ok_or_else(overflow)?;
                    *scale = value.scale();
                } else if value.scale() < *scale {
                    mantissa = mantissa
                        .checked_mul(numeric::pow10(*scale - value.scale()))
                        .ok_or_else(overflow)?;
                }
                *sum = sum.checked_add(mantissa).ok_or_else(overflow)?;
                *count += 1;
            }
            Accumulator::IntervalSum(sum) => {
                let value = interval(first, row)?;
                *sum = Some(match sum {
                    None => value,
                    Some(sum) => sum.checked_add(value)?,
                });
            }
            Accumulator::IntervalAverage { sum, count } => {
                *sum = sum.checked_add(interval(first, row)?)?;
                *count += 1;
            }
            Accumulator::VectorSum(sum) => {
                let value = vector_elements(first, row)?;
                *sum = Some(match sum.take() {
                    None => {
                        grown = value.len() * 4;
                        value.to_vec()
                    }
                    Some(sum) => vector::elementwise(&sum, value, |x, y| x + y, false)?,
                });
            }
            Accumulator::VectorAverage { sum, count } => {
                let value = vector_elements(first, row)?;
                if *count == 0 {
                    grown = value.len() * 8;
                    sum.resize(value.len(), 0.0);
                } else if sum.len() != value.len() {
                    return Err(vector::check_dimensions(
                        u32::try_from(sum.len()).ok(),
                        value.len(),
                    )
                    .err()
                    .map_or_else(
                        || ExecError::internal("vector average dimensions"),
                        ExecError::from,
                    ));
                }
                for (total, element) in sum.iter_mut().zip(value) {
                    *total += f64::from(*element);
                }
                *count += 1;
            }
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
                    let value = first.get(row);
                    let size = key.len() + heap_bytes(&value);
                    let old_size = best
                        .as_ref()
                        .map_or(0, |(key, value)| key.len() + heap_bytes(value));
                    grown = size.saturating_sub(old_size);
                    *best = Some((key, value));
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
                    None => {
                        grown = value.len();
                        *text = Some(value);
                    }
                    Some(text) => {
                        grown = separator.len() + value.len();
                        text.push_str(&separator);
                        text.push_str(&value);
                    }
                }
            }
            Accumulator::Bool { value, and } => {
                let ColumnData::Boolean(values) = &first.data else {
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
            Accumulator::OrderedSet(state) => grown = state.update(first, row),
            // Handled before the NULL skip above.
            Accumulator::ArrayAgg { .. } => {}
            // Handled by `update_json` above.
            Accumulator::JsonArray { .. }
            | Accumulator::JsonObject(_)
            | Accumulator::JsonbObject(_) => {}
        }
        Ok(grown)
    }

    /// The aggregate's result; an error only when avg(interval)'s division overflows.
    pub(super) fn finish(&self) -> ExecResult<Value> {
        Ok(match self {
            Accumulator::Count(count) => Value::Integer(*count),
            Accumulator::IntegerSum(sum) => sum.map_or(Value::Null, Value::Integer),
            Accumulator::RealSum(sum) => sum.map_or(Value::Null, Value::Real),
            Accumulator::NumericSum {
                sum,
                scale,
                count,
                average,
            } => {
                if *count == 0 {
                    Value::Null
                } else {
                    let total = Numeric::new(*sum, *scale)?;
                    if *average {
                        Value::Numeric(numeric::divide(total, Numeric::from_i64(*count))?)
                    } else {
                        Value::Numeric(total)
                    }
                }
            }
            Accumulator::IntervalSum(sum) => sum.map_or(Value::Null, Value::Interval),
            Accumulator::IntervalAverage { sum, count } => {
                if *count == 0 {
                    Value::Null
                } else {
                    Value::Interval(sum.divide(*count as f64)?)
                }
            }
            Accumulator::VectorSum(sum) => sum.clone().map_or(Value::Null, Value::Vector),
            Accumulator::VectorAverage { sum, count } => {
                if *count == 0 {
                    Value::Null
                } else {
                    let average: Vec<f32> = sum
                        .iter()
                        .map(|total| (total / *count as f64) as f32)
                        .collect();
                    vector::check(&average)?;
                    Value::Vector(average)
                }
            }
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
            Accumulator::JsonArray { elements, binary } => match elements {
                None => Value::Null,
                Some(elements) if *binary => Value::Jsonb(format!("[{elements}]")),
                Some(elements) => Value::Json(format!("[{elements}]")),
            },
            Accumulator::JsonObject(text) => text
                .as_ref()
                .map_or(Value::Null, |text| Value::Json(format!("{text} }}"))),
            Accumulator::JsonbObject(pairs) => {
                if pairs.is_empty() {
                    Value::Null
                } else {
                    Value::Jsonb(json_aggregate::jsonb_object(pairs))
                }
            }
            Accumulator::ArrayAgg {
                elements,
                data_type,
            } => match elements {
                None => Value::Null,
                Some(elements) => {
                    let element = match data_type.element_type() {
                        Some(element) => element,
                        None => return Err(ExecError::internal("array_agg of a non-array type")),
                    };
                    // Arrays of arrays stack into one more dimension, as ARRAY[...] does.
                    let mut args = Vec::with_capacity(elements.len() + 1);
                    args.push(crate::types::Array::empty(element).into_value());
                    args.extend(elements.iter().cloned());
                    if elements.iter().any(Value::is_null)
                        && elements.iter().any(|v| matches!(v, Value::Array(_)))
                    {
                        return Err(ExecError::new(
                            sqlstate::NULL_VALUE_NOT_ALLOWED,
                            "cannot accumulate null arrays",
                        ));
                    }
                    crate::types::array::functions::constructor(&args)?
                }
            },
            Accumulator::OrderedSet(state) => state.finish()?,
        })
    }
}

/// Bytes a value keeps outside its enum (text and blob contents).
pub(super) fn heap_bytes(value: &Value) -> usize {
    match value {
        Value::Text(text) => text.len(),
        Value::Blob(bytes) => bytes.len(),
        _ => 0,
    }
}

fn vector_elements(column: &ColumnVector, row: usize) -> ExecResult<&[f32]> {
    match &column.data {
        ColumnData::Vector(values) => Ok(values.get(row)),
        _ => Err(ExecError::internal(
            "vector aggregate over a non-vector column",
        )),
    }
}

fn interval(vector: &ColumnVector, row: usize) -> ExecResult<Interval> {
    match &vector.data {
        ColumnData::Interval(values) => Ok(values.get(row).copied().unwrap_or(Interval::ZERO)),
        _ => Err(ExecError::internal(
            "interval sum over a non-interval column",
        )),
    }
}

fn number(vector: &ColumnVector, row: usize) -> ExecResult<f64> {
    match &vector.data {
        ColumnData::Integer(values) => Ok(values.get(row).copied().unwrap_or(0) as f64),
        ColumnData::Real(values) => Ok(values.get(row).copied().unwrap_or(0.0)),
        _ => Err(ExecError::new(
            sqlstate::UNDEFINED_FUNCTION,
            format!("cannot sum or average {}", vector.data_type()),
        )),
    }
}

/// Per-group state.
#[derive(Debug)]
struct Group {
    accumulators: Vec<Accumulator>,
    /// For DISTINCT aggregates: argument keys already counted, per aggregate.
    seen: Vec<RowKeySet>,
    /// For aggregates with an ORDER BY: the rows they will take, per aggregate.
    ordered: Vec<Option<OrderedRows>>,
}

/// Roughly the bytes row `row` of `column` takes when copied: its text or bytes, else a
/// fixed width. For the memory budget only.
fn cell_bytes(column: &ColumnVector, row: usize) -> usize {
    match &column.data {
        ColumnData::Text(bytes)
        | ColumnData::Blob(bytes)
        | ColumnData::Json(bytes)
        | ColumnData::Jsonb(bytes) => bytes.get(row).len() + 8,
        ColumnData::Vector(floats) => 4 * floats.get(row).len() + 8,
        _ => 16,
    }
}

/// An ordered aggregate's rows for one group: its arguments and each row's sort key.
#[derive(Debug)]
struct OrderedRows {
    arguments: Batch,
    keys: Vec<Vec<u8>>,
}

impl OrderedRows {
    fn new(call: &AggregateCall) -> OrderedRows {
        let types: Vec<DataType> = call.args.iter().map(Expr::data_type).collect();
        OrderedRows {
            arguments: Batch::with_types(&types, 0),
            keys: Vec::new(),
        }
    }

    /// Adds row `row` of `args` with its sort key; returns the bytes it took.
    fn push(&mut self, args: &[ColumnVector], row: usize, key: Vec<u8>) -> usize {
        let mut bytes = key.len() + ACCUMULATOR_OVERHEAD;
        for (to, from) in self.arguments.columns.iter_mut().zip(args) {
            to.push_from(from, row);
            bytes += cell_bytes(from, row);
        }
        self.arguments.rows += 1;
        self.keys.push(key);
        bytes
    }

    /// Feeds the rows to `accumulator` in key order (a stable sort: ties keep input order).
    fn feed(self, accumulator: &mut Accumulator) -> ExecResult<()> {
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        order.sort_by(|a, b| self.keys[*a].cmp(&self.keys[*b]));
        for row in order {
            accumulator.update(&self.arguments.columns, row)?;
        }
        Ok(())
    }
}

/// Memory a group costs besides its key and states' contents: the index entry, the group's
/// vectors and allocation overhead; and each accumulator or DISTINCT-set entry.
const GROUP_OVERHEAD: usize = 96;
const ACCUMULATOR_OVERHEAD: usize = 48;

/// The groups of one input (or one spilled partition of it).
#[derive(Debug)]
struct GroupTable {
    /// The group key values, one row per group.
    keys_batch: Batch,
    index: RowKeyMap<usize>,
    groups: Vec<Group>,
    bytes: usize,
    /// Partitioning depth: 0 for the input itself.
    depth: u32,
    /// Set once the table is frozen: input rows of groups it does not hold go here.
    overflow: Option<Partitions>,
}

/// GROUP BY with hash tables.
///
/// When the groups outgrow `ExecContext::operator_memory` (checked per input batch), the
/// table is frozen: rows of groups it holds still update them in memory, but rows of any new
/// group are written, whole, to one of `spill::PARTITION_COUNT` spill files by a hash of the
/// group key. Each group's rows are thus all in memory or all in one partition, in input
/// order, so aggregating each partition afterwards — as if it were the whole input,
/// partitioning again with a new hash seed if it is still too big — gives exactly the values
/// the in-memory path gives (string_agg order, DISTINCT aggregates and all). Spilling raw
/// rows rather than partial states keeps every aggregate correct without a merge step.
/// Only the order of the output groups differs, which SQL leaves unspecified. A single
/// group's state (string_agg of a huge input) cannot be divided and stays in memory; without
/// GROUP BY there is one group, so nothing spills.
#[derive(Debug)]
pub struct HashAggregate {
    input: Option<Box<dyn Operator>>,
    group_by: Vec<Expr>,
    aggregates: Vec<AggregateCall>,
    types: Vec<DataType>,
    input_types: Vec<DataType>,
    output: Emitter,
    /// Spilled partitions still to aggregate, with their depth.
    parts: Vec<(SpilledRows, u32)>,
}

impl HashAggregate {
    pub fn new(
        input: Box<dyn Operator>,
        group_by: Vec<Expr>,
        aggregates: Vec<AggregateCall>,
        types: Vec<DataType>,
        input_types: Vec<DataType>,
    ) -> Self {
        HashAggregate {
            input: Some(input),
            group_by,
            aggregates,
            types,
            input_types,
            output: Emitter::default(),
            parts: Vec::new(),
        }
    }

    fn new_group(&self) -> Group {
        Group {
            accumulators: self.aggregates.iter().map(Accumulator::new).collect(),
            seen: self
                .aggregates
                .iter()
                .map(|_| RowKeySet::default())
                .collect(),
            ordered: self
                .aggregates
                .iter()
                .map(|call| (!call.order_by.is_empty()).then(|| OrderedRows::new(call)))
                .collect(),
        }
    }

    fn new_table(&self, depth: u32) -> GroupTable {
        let key_types: Vec<DataType> = self.group_by.iter().map(Expr::data_type).collect();
        let mut table = GroupTable {
            keys_batch: Batch::with_types(&key_types, 64),
            index: RowKeyMap::default(),
            groups: Vec::new(),
            bytes: 0,
            depth,
            overflow: None,
        };
        if self.group_by.is_empty() {
            table.groups.push(self.new_group());
            table.keys_batch.rows = 1;
        }
        table
    }

    /// Aggregates one input batch into `table`.
    fn consume(&self, table: &mut GroupTable, batch: &Batch, ctx: &ExecContext) -> ExecResult<()> {
        let key_columns = eval::evaluate_all(&self.group_by, batch, ctx)?;
        let key_refs: Vec<&ColumnVector> = key_columns.iter().collect();
        let mut arguments = Vec::with_capacity(self.aggregates.len());
        let mut filters = Vec::with_capacity(self.aggregates.len());
        let mut sort_keys = Vec::with_capacity(self.aggregates.len());
        for call in &self.aggregates {
            let args = eval::evaluate_all(&call.args, batch, ctx)?;
            arguments.push(args);
            sort_keys.push(if call.order_by.is_empty() {
                None
            } else {
                let columns =
                    eval::evaluate_all(call.order_by.iter().map(|key| &key.expr), batch, ctx)?;
                let orders: Vec<SortOrder> = call
                    .order_by
                    .iter()
                    .map(|key| SortOrder {
                        descending: key.descending,
                        nulls_first: key.nulls_first,
                    })
                    .collect();
                Some((columns, orders))
            });
            filters.push(match &call.filter {
                Some(filter) => {
                    let mut keep = vec![false; batch.rows];
                    for row in eval::select_true(filter, batch, ctx)? {
                        keep[row as usize] = true;
                    }
                    Some(keep)
                }
                None => None,
            });
        }
        let mut key = Vec::new();
        for row in 0..batch.rows {
            let group_index = if self.group_by.is_empty() {
                0
            } else {
                equality_key(&key_refs, row, &mut key);
                match table.index.get(&key) {
                    Some(&group_index) => group_index,
                    None => {
                        if let Some(overflow) = &mut table.overflow {
                            let partition = overflow.partition_of(&key);
                            overflow.write(partition, batch, row, ctx)?;
                            continue;
                        }
                        table.index.insert(key.clone(), table.groups.len());
                        for (to, from) in table.keys_batch.columns.iter_mut().zip(&key_columns) {
                            to.push_from(from, row);
                        }
                        table.keys_batch.rows += 1;
                        table.groups.push(self.new_group());
                        table.bytes += 2 * key.len()
                            + GROUP_OVERHEAD
                            + ACCUMULATOR_OVERHEAD * self.aggregates.len();
                        table.groups.len() - 1
                    }
                }
            };
            let group = &mut table.groups[group_index];
            for (position, call) in self.aggregates.iter().enumerate() {
                if filters[position].as_ref().is_some_and(|keep| !keep[row]) {
                    continue;
                }
                let args = &arguments[position];
                if call.distinct {
                    let refs: Vec<&ColumnVector> = args.iter().take(1).collect();
                    if refs.first().is_some_and(|arg| arg.is_null(row)) {
                        continue;
                    }
                    let mut argument_key = Vec::new();
                    equality_key(&refs, row, &mut argument_key);
                    let size = argument_key.len() + ACCUMULATOR_OVERHEAD;
                    if !group.seen[position].insert(argument_key) {
                        continue;
                    }
                    table.bytes += size;
                }
                if let (Some(rows), Some((columns, orders))) =
                    (&mut group.ordered[position], &sort_keys[position])
                {
                    let mut key = Vec::new();
                    super::external_sort::encode_sort_key(columns, orders, row, &mut key);
                    table.bytes += rows.push(args, row, key);
                    continue;
                }
                table.bytes += group.accumulators[position].update(args, row)?;
            }
        }
        // Freeze once over budget. Without GROUP BY there is one group: nothing to divide.
        if table.overflow.is_none()
            && !self.group_by.is_empty()
            && table.bytes > ctx.operator_memory
            && table.depth < MAX_PARTITION_DEPTH
        {
            table.overflow = Some(Partitions::new(
                &self.input_types,
                u64::from(table.depth),
                ctx.operator_memory,
            ));
        }
        Ok(())
    }

    /// The result rows of `table`'s groups (to emit next); its partitions join the queue.
    fn finish(&mut self, table: GroupTable, ctx: &ExecContext) -> ExecResult<()> {
        let mut out = Batch::with_types(&self.types, table.groups.len());
        let GroupTable {
            keys_batch,
            groups,
            overflow,
            depth,
            ..
        } = table;
        // Ordered-set aggregates' direct arguments, one value per group (over its keys).
        let mut direct = Vec::with_capacity(self.aggregates.len());
        for call in &self.aggregates {
            direct.push(if call.direct_args.is_empty() {
                Vec::new()
            } else {
                eval::evaluate_all(&call.direct_args, &keys_batch, ctx)?
            });
        }
        for (group_index, mut group) in groups.into_iter().enumerate() {
            let mut values = keys_batch.row(group_index);
            values.truncate(self.group_by.len());
            for ((accumulator, ordered), direct) in group
                .accumulators
                .iter_mut()
                .zip(group.ordered)
                .zip(&direct)
            {
                if let Some(rows) = ordered {
                    rows.feed(accumulator)?;
                }
                if let Accumulator::OrderedSet(state) = accumulator {
                    let arguments: Vec<Value> = direct
                        .iter()
                        .map(|column| column.get(group_index))
                        .collect();
                    state.set_direct(&arguments);
                }
            }
            for accumulator in &group.accumulators {
                values.push(accumulator.finish()?);
            }
            out.push_row(&values);
        }
        let positions = (0..out.rows as u32).collect();
        self.output = Emitter::new(out, positions);
        if let Some(overflow) = overflow {
            for part in overflow.finish(ctx)? {
                if part.rows() > 0 {
                    self.parts.push((part, depth + 1));
                }
            }
        }
        Ok(())
    }
}

impl Operator for HashAggregate {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if let Some(mut input) = self.input.take() {
            let mut table = self.new_table(0);
            while let Some(batch) = input.next(ctx)? {
                if batch.rows > 0 {
                    self.consume(&mut table, &batch, ctx)?;
                }
            }
            self.finish(table, ctx)?;
        }
        loop {
            if let Some(batch) = self.output.next_batch() {
                return Ok(Some(batch));
            }
            let Some((part, depth)) = self.parts.pop() else {
                return Ok(None);
            };
            let mut table = self.new_table(depth);
            let mut rows = part.into_reader()?;
            while let Some(batch) = rows.next_batch(ctx)? {
                self.consume(&mut table, &batch, ctx)?;
            }
            self.finish(table, ctx)?;
        }
    }
}
