//! The set-returning (table) function registry: functions used as FROM items that produce
//! rows, such as `json_each(doc)`.
//!
//! Each entry declares its output columns for the argument types (42883 when no signature
//! fits) and computes the rows of one call. All are strict: a NULL argument gives no rows,
//! as PostgreSQL does for strict set-returning functions. The binder
//! (`plan/bind/set_returning.rs`) names and types the FROM item from [`columns`]
//! (SetReturningFunction::columns); the executor's function scan calls
//! [`call`](SetReturningFunction::call) once per input row. `generate_series` is not here:
//! it streams its rows and has its own plan node.
//!
//! `jsonb_path_query(doc, path[, vars[, silent]])` lists the items of a jsonpath (see
//! `functions/jsonpath.rs`).
//!
//! `unnest(array)` lists an array's elements (with `WITH ORDINALITY`, the entry
//! `$unnest_ordinality` adds their positions).
//!
//! The JSON functions: `json_each` / `jsonb_each` (key text, value json/jsonb),
//! `json_each_text` / `jsonb_each_text` (key, value as text), `json_array_elements` /
//! `jsonb_array_elements` (value), `json_array_elements_text` / `jsonb_array_elements_text`
//! and `json_object_keys` / `jsonb_object_keys`. json versions keep members as written,
//! in input order, duplicate keys included; jsonb versions list jsonb's normalized members.
//! Calling one on the wrong kind of JSON value is 22023 with PostgreSQL's message.

use crate::types::json::{parse, path};
use crate::types::{DataType, TypeError, Value};

/// One output column: its name and type.
pub type OutputColumn = (&'static str, DataType);

/// The rows one call returns.
pub type Rows = Vec<Vec<Value>>;

/// One set-returning function.
#[derive(Debug)]
pub struct SetReturningFunction {
    /// The lower-case name.
    pub name: &'static str,
    /// The output columns for these argument types, or 42883.
    pub columns: fn(&[DataType]) -> Result<Vec<OutputColumn>, TypeError>,
    /// Whether the function returns a plain (scalar) type rather than named OUT columns: then,
    /// as in PostgreSQL, an alias `AS x` also names its one column.
    pub scalar: bool,
    /// The rows of one call, with no NULL argument.
    pub call: fn(&[Value]) -> Result<Rows, TypeError>,
}

/// Looks a set-returning function up by (lower-case) name.
pub fn set_returning_function(name: &str) -> Option<&'static SetReturningFunction> {
    FUNCTIONS.iter().find(|f| f.name.eq_ignore_ascii_case(name))
}

/// The columns of `unnest(anyarray)`: one of the element type (`None` for a non-array).
fn unnest_columns(name: &'static str, args: &[DataType]) -> Result<Vec<OutputColumn>, TypeError> {
    match args {
        [DataType::Array(element)] => Ok(vec![("unnest", **element)]),
        _ => Err(TypeError::undefined_signature(name, args)),
    }
}

/// `unnest(array)`: one row per element, in storage order (every dimension flattened),
/// NULL elements included; with ordinality, each row's 1-based position after it.
fn unnest(args: &[Value], ordinality: bool) -> Result<Rows, TypeError> {
    match args {
        [Value::Array(array)] => Ok(array
            .elements()
            .iter()
            .enumerate()
            .map(|(i, element)| {
                let mut row = vec![element.clone()];
                if ordinality {
                    row.push(Value::Integer(i as i64 + 1));
                }
                row
            })
            .collect()),
        _ => Err(TypeError::undefined_function("unnest", args)),
    }
}

static FUNCTIONS: &[SetReturningFunction] = &[
    // `jsonb_path_query(doc, path[, vars[, silent]])`: one row per item the path yields.
    SetReturningFunction {
        name: "jsonb_path_query",
        columns: |args| {
            (super::jsonpath::FUNCTIONS[0].return_type)(args)
                .map_err(|_| TypeError::undefined_signature("jsonb_path_query", args))?;
            Ok(vec![("jsonb_path_query", DataType::Jsonb)])
        },
        scalar: true,
        call: |args| {
            Ok(super::jsonpath::query_items(args)?
                .into_iter()
                .map(|item| vec![item])
                .collect())
        },
    },
    SetReturningFunction {
        name: "unnest",
        columns: |args| unnest_columns("unnest", args),
        scalar: true,
        call: |args| unnest(args, false),
    },
    // `unnest(a) WITH ORDINALITY`: the binder asks for this entry (its name cannot be
    // written in SQL).
    SetReturningFunction {
        name: "$unnest_ordinality",
        columns: |args| {
            let mut columns = unnest_columns("unnest", args)?;
            columns.push(("ordinality", DataType::Integer));
            Ok(columns)
        },
        scalar: false,
        call: |args| unnest(args, true),
    },
    SetReturningFunction {
        name: "json_each",
        columns: |args| {
            document_columns(
                "json_each",
                args,
                false,
                &[("key", DataType::Text(None)), ("value", DataType::Json)],
            )
        },
        scalar: false,
        call: |args| each("json_each", args, Members::Json),
    },
    SetReturningFunction {
        name: "jsonb_each",
        columns: |args| {
            document_columns(
                "jsonb_each",
                args,
                true,
                &[("key", DataType::Text(None)), ("value", DataType::Jsonb)],
            )
        },
        scalar: false,
        call: |args| each("jsonb_each", args, Members::Jsonb),
    },
    SetReturningFunction {
        name: "json_each_text",
        columns: |args| {
            document_columns(
                "json_each_text",
                args,
                false,
                &[
                    ("key", DataType::Text(None)),
                    ("value", DataType::Text(None)),
                ],
            )
        },
        scalar: false,
        call: |args| each("json_each_text", args, Members::Text),
    },
    SetReturningFunction {
        name: "jsonb_each_text",
        columns: |args| {
            document_columns(
                "jsonb_each_text",
                args,
                true,
                &[
                    ("key", DataType::Text(None)),
                    ("value", DataType::Text(None)),
                ],
            )
        },
        scalar: false,
        call: |args| each("jsonb_each_text", args, Members::Text),
    },
    SetReturningFunction {
        name: "json_array_elements",
        columns: |args| {
            document_columns(
                "json_array_elements",
                args,
                false,
                &[("value", DataType::Json)],
            )
        },
        scalar: false,
        call: |args| elements("json_array_elements", args, Members::Json),
    },
    SetReturningFunction {
        name: "jsonb_array_elements",
        columns: |args| {
            document_columns(
                "jsonb_array_elements",
                args,
                true,
                &[("value", DataType::Jsonb)],
            )
        },
        scalar: false,
        call: |args| elements("jsonb_array_elements", args, Members::Jsonb),
    },
    SetReturningFunction {
        name: "json_array_elements_text",
        columns: |args| {
            document_columns(
                "json_array_elements_text",
                args,
                false,
                &[("value", DataType::Text(None))],
            )
        },
        scalar: false,
        call: |args| elements("json_array_elements_text", args, Members::Text),
    },
    SetReturningFunction {
        name: "jsonb_array_elements_text",
        columns: |args| {
            document_columns(
                "jsonb_array_elements_text",
                args,
                true,
                &[("value", DataType::Text(None))],
            )
        },
        scalar: false,
        call: |args| elements("jsonb_array_elements_text", args, Members::Text),
    },
    SetReturningFunction {
        name: "json_object_keys",
        columns: |args| {
            document_columns(
                "json_object_keys",
                args,
                false,
                &[("json_object_keys", DataType::Text(None))],
            )
        },
        scalar: true,
        call: |args| object_keys("json_object_keys", args),
    },
    SetReturningFunction {
        name: "jsonb_object_keys",
        columns: |args| {
            document_columns(
                "jsonb_object_keys",
                args,
                true,
                &[("jsonb_object_keys", DataType::Text(None))],
            )
        },
        scalar: true,
        call: |args| object_keys("jsonb_object_keys", args),
    },
];

/// The columns of a function of one json (or jsonb) argument.
fn document_columns(
    name: &str,
    args: &[DataType],
    binary: bool,
    columns: &[OutputColumn],
) -> Result<Vec<OutputColumn>, TypeError> {
    let document = if binary {
        DataType::Jsonb
    } else {
        DataType::Json
    };
    match args {
        [t] if *t == document || *t == DataType::Null => Ok(columns.to_vec()),
        _ => Err(TypeError::undefined_signature(name, args)),
    }
}

/// How members come out: as json, as jsonb, or as text (`->>`'s conversion).
#[derive(Clone, Copy)]
enum Members {
    Json,
    Jsonb,
    Text,
}

impl Members {
    fn value(self, member: &str) -> Result<Value, TypeError> {
        Ok(match self {
            Members::Json => Value::Json(member.to_owned()),
            Members::Jsonb => Value::Jsonb(member.to_owned()),
            Members::Text => path::as_text(member)?.map_or(Value::Null, Value::Text),
        })
    }
}

/// The one argument's value text (surrounding whitespace removed), or `None` for NULL.
fn document<'a>(name: &str, args: &'a [Value]) -> Result<Option<&'a str>, TypeError> {
    match args {
        [Value::Null] => Ok(None),
        [Value::Json(text)] => Ok(Some(parse::top_level(text)?)),
        [Value::Jsonb(text)] => Ok(Some(text.as_str())),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

fn each(name: &str, args: &[Value], members: Members) -> Result<Vec<Vec<Value>>, TypeError> {
    let Some(document) = document(name, args)? else {
        return Ok(Vec::new());
    };
    match parse::shallow(document)? {
        parse::Shallow::Object(pairs) => pairs
            .into_iter()
            .map(|(key, member)| Ok(vec![Value::Text(key), members.value(member)?]))
            .collect(),
        // PostgreSQL's messages: json's functions name what they were given, jsonb's their own name.
        parse::Shallow::Array(_) if !name.starts_with("jsonb") => Err(TypeError::InvalidArgument(
            "cannot deconstruct an array as an object".to_owned(),
        )),
        _ if !name.starts_with("jsonb") => Err(TypeError::InvalidArgument(
            "cannot deconstruct a scalar".to_owned(),
        )),
        _ => Err(TypeError::InvalidArgument(format!(
            "cannot call {name} on a non-object"
        ))),
    }
}

fn elements(name: &str, args: &[Value], members: Members) -> Result<Vec<Vec<Value>>, TypeError> {
    let Some(document) = document(name, args)? else {
        return Ok(Vec::new());
    };
    let binary = matches!(args, [Value::Jsonb(_)]);
    match parse::shallow(document)? {
        parse::Shallow::Array(items) => items
            .into_iter()
            .map(|member| Ok(vec![members.value(member)?]))
            .collect(),
        parse::Shallow::Object(_) if binary => Err(TypeError::InvalidArgument(
            "cannot extract elements from an object".to_owned(),
        )),
        _ if binary => Err(TypeError::InvalidArgument(
            "cannot extract elements from a scalar".to_owned(),
        )),
        parse::Shallow::Object(_) => Err(TypeError::InvalidArgument(format!(
            "cannot call {name} on a non-array"
        ))),
        _ => Err(TypeError::InvalidArgument(format!(
            "cannot call {name} on a scalar"
        ))),
    }
}

fn object_keys(name: &str, args: &[Value]) -> Result<Vec<Vec<Value>>, TypeError> {
    let Some(document) = document(name, args)? else {
        return Ok(Vec::new());
    };
    match parse::shallow(document)? {
        parse::Shallow::Object(pairs) => Ok(pairs
            .into_iter()
            .map(|(key, _)| vec![Value::Text(key)])
            .collect()),
        parse::Shallow::Array(_) => Err(TypeError::InvalidArgument(format!(
            "cannot call {name} on an array"
        ))),
        _ => Err(TypeError::InvalidArgument(format!(
            "cannot call {name} on a scalar"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(name: &str, argument: Value) -> Result<Vec<Vec<Value>>, &'static str> {
        let function = set_returning_function(name).unwrap_or_else(|| panic!("no {name}"));
        let types = (function.columns)(&[argument.data_type()]).map_err(|e| e.code())?;
        let rows = (function.call)(&[argument]).map_err(|e| e.code())?;
        for row in &rows {
            assert_eq!(row.len(), types.len());
            for (value, (_, data_type)) in row.iter().zip(&types) {
                assert!(value.is_null() || value.data_type() == *data_type);
            }
        }
        Ok(rows)
    }

    fn t(s: &str) -> Value {
        Value::Text(s.to_owned())
    }

    #[test]
    fn each_and_elements() {
        let doc = Value::Json(r#"{"b": [1,  2], "a": "x", "b": null}"#.to_owned());
        assert_eq!(
            rows("json_each", doc.clone()),
            Ok(vec![
                vec![t("b"), Value::Json("[1,  2]".into())],
                vec![t("a"), Value::Json("\"x\"".into())],
                vec![t("b"), Value::Json("null".into())],
            ])
        );
        assert_eq!(
            rows("json_each_text", doc.clone()),
            Ok(vec![
                vec![t("b"), t("[1,  2]")],
                vec![t("a"), t("x")],
                vec![t("b"), Value::Null],
            ])
        );
        assert_eq!(
            rows("json_object_keys", doc),
            Ok(vec![vec![t("b")], vec![t("a")], vec![t("b")]])
        );
        let array = Value::Jsonb("[1, \"two\", {\"a\": 1}]".to_owned());
        assert_eq!(
            rows("jsonb_array_elements_text", array.clone()),
            Ok(vec![vec![t("1")], vec![t("two")], vec![t("{\"a\": 1}")]])
        );
        assert_eq!(rows("jsonb_each", array.clone()), Err("22023"));
        assert_eq!(rows("json_array_elements", Value::Null), Ok(Vec::new()));
        assert_eq!(
            rows("jsonb_array_elements", Value::Jsonb("{}".into())),
            Err("22023")
        );
        assert_eq!(rows("json_each", t("{}")), Err("42883"));
    }
}
