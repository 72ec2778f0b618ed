//! The JSON aggregates' accumulation: `json_agg`, `jsonb_agg`, `json_object_agg` and
//! `jsonb_object_agg`, shared by GROUP BY (`aggregate.rs`) and window frames.
//!
//! Unlike the other aggregates these take NULL inputs (they become JSON `null`), so they are
//! handled before the generic NULL skip. Each input is converted to JSON text as it arrives
//! (`types::json::write::push_value`, PostgreSQL's `to_json`), and for the jsonb variants
//! normalized at once, so conversion errors surface on the row that caused them and
//! finishing a group cannot fail. Output spacing is PostgreSQL's: `[1, 2]` for json_agg,
//! `{ "k" : v, "k2" : v2 }` for json_object_agg, jsonb's normal form for the jsonb ones.

use crate::exec::batch::ColumnVector;
use crate::exec::error::ExecResult;
use crate::types::json::{self, parse, write};

use super::aggregate::Accumulator;

impl Accumulator {
    /// Adds row `row` when this is a JSON aggregate: `Some(bytes the state grew by)`;
    /// `None` for any other aggregate.
    pub(super) fn update_json(
        &mut self,
        args: &[ColumnVector],
        row: usize,
    ) -> ExecResult<Option<usize>> {
        let value = |index: usize| {
            args.get(index)
                .map_or(crate::types::Value::Null, |vector| vector.get(row))
        };
        Ok(Some(match self {
            Accumulator::JsonArray { elements, binary } => {
                let mut element = String::new();
                write::push_value(&value(0), &mut element);
                if *binary {
                    element = json::normalize_jsonb(&element)?;
                }
                match elements {
                    None => {
                        let grown = element.len();
                        *elements = Some(element);
                        grown
                    }
                    Some(elements) => {
                        elements.push_str(", ");
                        elements.push_str(&element);
                        element.len() + 2
                    }
                }
            }
            Accumulator::JsonObject(text) => {
                let mut pair = String::new();
                refuse_null_key(&value(0))?;
                write::push_key(&value(0), &mut pair)?;
                pair.push_str(" : ");
                write::push_value(&value(1), &mut pair);
                match text {
                    None => {
                        *text = Some(format!("{{ {pair}"));
                        pair.len() + 2
                    }
                    Some(text) => {
                        text.push_str(", ");
                        text.push_str(&pair);
                        pair.len() + 2
                    }
                }
            }
            Accumulator::JsonbObject(pairs) => {
                let mut key = String::new();
                refuse_null_key(&value(0))?;
                write::push_key(&value(0), &mut key)?;
                let key = match parse::shallow(&key)? {
                    parse::Shallow::String(key) => key,
                    _ => key,
                };
                let mut member = String::new();
                write::push_value(&value(1), &mut member);
                let member = json::normalize_jsonb(&member)?;
                let grown = key.len() + member.len();
                pairs.push((key, member));
                grown
            }
            _ => return Ok(None),
        }))
    }
}

/// The jsonb object of `pairs` (keys decoded, values normalized jsonb): one member per key,
/// the last one added, in jsonb's key order.
pub(super) fn jsonb_object(pairs: &[(String, String)]) -> String {
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    // Later duplicates first within a key, so dedup keeps the last one added.
    order.sort_by(|&a, &b| write::key_order(&pairs[a].0, &pairs[b].0).then(b.cmp(&a)));
    order.dedup_by(|later, earlier| pairs[*later].0 == pairs[*earlier].0);
    let mut out = String::from("{");
    for (index, &position) in order.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        let (key, value) = &pairs[position];
        write::push_string(key, &mut out);
        out.push_str(": ");
        out.push_str(value);
    }
    out.push('}');
    out
}

/// PostgreSQL's error for a NULL key of `json_object_agg` / `jsonb_object_agg` (22023).
fn refuse_null_key(key: &crate::types::Value) -> Result<(), crate::types::TypeError> {
    if *key == crate::types::Value::Null {
        Err(crate::types::TypeError::InvalidArgument(
            "field name must not be null".to_owned(),
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{AggregateCall, AggregateFunction};
    use crate::sqlstate;
    use crate::types::{DataType, Value};

    fn run(function: AggregateFunction, rows: &[Vec<Value>]) -> ExecResult<Value> {
        let types: Vec<DataType> = match function {
            AggregateFunction::JsonAgg | AggregateFunction::JsonbAgg => vec![DataType::Text(None)],
            _ => vec![DataType::Text(None), DataType::Integer],
        };
        let call = AggregateCall {
            function,
            args: Vec::new(),
            distinct: false,
            filter: None,
            order_by: Vec::new(),
            direct_args: Vec::new(),
            data_type: DataType::Json,
        };
        let mut accumulator = Accumulator::new(&call);
        for row in rows {
            let vectors: Vec<ColumnVector> = row
                .iter()
                .zip(&types)
                .map(|(value, data_type)| ColumnVector::constant(value, *data_type, 1))
                .collect();
            accumulator.update(&vectors, 0)?;
        }
        accumulator.finish()
    }

    fn text(s: &str) -> Value {
        Value::Text(s.to_owned())
    }

    #[test]
    fn arrays_keep_nulls_and_objects_keep_pairs() {
        let rows = vec![vec![text("a")], vec![Value::Null], vec![text("b\"")]];
        assert_eq!(
            run(AggregateFunction::JsonAgg, &rows).unwrap(),
            Value::Json("[\"a\", null, \"b\\\"\"]".to_owned())
        );
        assert_eq!(
            run(AggregateFunction::JsonbAgg, &rows).unwrap(),
            Value::Jsonb("[\"a\", null, \"b\\\"\"]".to_owned())
        );
        assert_eq!(run(AggregateFunction::JsonAgg, &[]).unwrap(), Value::Null);
        let pairs = vec![
            vec![text("b"), Value::Integer(1)],
            vec![text("a"), Value::Null],
            vec![text("b"), Value::Integer(3)],
        ];
        assert_eq!(
            run(AggregateFunction::JsonObjectAgg, &pairs).unwrap(),
            Value::Json("{ \"b\" : 1, \"a\" : null, \"b\" : 3 }".to_owned())
        );
        assert_eq!(
            run(AggregateFunction::JsonbObjectAgg, &pairs).unwrap(),
            Value::Jsonb("{\"a\": null, \"b\": 3}".to_owned())
        );
        let error = run(
            AggregateFunction::JsonObjectAgg,
            &[vec![Value::Null, Value::Integer(1)]],
        )
        .unwrap_err();
        assert_eq!(error.code, sqlstate::INVALID_PARAMETER_VALUE);
        assert_eq!(error.message, "field name must not be null");
    }
}
