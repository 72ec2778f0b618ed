//! JSON functions: the functions behind the operators (`->`, `->>`, `#>`, `#>>`, `@>`,
//! `<@`), `json_typeof`, `json_array_length`, `json_build_object`, `json_build_array`,
//! `to_json`, `jsonb_exists`, their `jsonb_` twins, and SQLite's `json_extract`.
//!
//! As in PostgreSQL, each `json_` function takes `json` and each `jsonb_` function `jsonb`
//! (an untyped literal argument becomes that type: see [`untyped_argument_type`]); results
//! of the same family keep the input's type, and a `json` member is returned exactly as it
//! was written. Only `json_extract`, which comes from SQLite where JSON lives in text
//! columns, also takes text. Lookups that find nothing are NULL, not errors; functions
//! that need a particular kind of value (`json_array_length` of an object) are 22023.
//!
//! `json_extract(doc, path, ...)` follows SQLite's paths (`$.a.b[0]`, `$[#-1]`) and value
//! mapping, within Basalt's static types: its result is always text — a string's contents,
//! a number's digits, `true`/`false`, an object or array as compact JSON, NULL for JSON null
//! or a missing member; with several paths, a compact JSON array of the results.

use super::{Param, ScalarFunction, check_args, check_variadic, strict_nulls, text_arg};
use crate::types::json::{self, parse, path, write};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("json_object_field", json_field_type, field),
    function!("jsonb_object_field", jsonb_field_type, field),
    function!("json_object_field_text", json_field_text_type, field_text),
    function!("jsonb_object_field_text", jsonb_field_text_type, field_text),
    function!("json_array_element", json_element_type, element),
    function!("jsonb_array_element", jsonb_element_type, element),
    function!(
        "json_array_element_text",
        json_element_text_type,
        element_text
    ),
    function!(
        "jsonb_array_element_text",
        jsonb_element_text_type,
        element_text
    ),
    function!("json_extract_path_op", json_field_type, extract_path),
    function!("jsonb_extract_path_op", jsonb_field_type, extract_path),
    function!(
        "json_extract_path_text_op",
        json_field_text_type,
        extract_path_text
    ),
    function!(
        "jsonb_extract_path_text_op",
        jsonb_field_text_type,
        extract_path_text
    ),
    function!(
        "json_extract_path",
        json_variadic_path_type,
        extract_path_variadic
    ),
    function!(
        "jsonb_extract_path",
        jsonb_variadic_path_type,
        extract_path_variadic
    ),
    function!(
        "json_extract_path_text",
        json_variadic_path_text_type,
        extract_path_variadic_text
    ),
    function!(
        "jsonb_extract_path_text",
        jsonb_variadic_path_text_type,
        extract_path_variadic_text
    ),
    function!("jsonb_contains", jsonb_pair_type, contains),
    function!("jsonb_contained", jsonb_pair_type, contained),
    function!("jsonb_exists", jsonb_exists_type, exists),
    function!("json_typeof", json_typeof_type, type_of),
    function!("jsonb_typeof", jsonb_typeof_type, type_of),
    function!("json_array_length", json_length_type, array_length),
    function!("jsonb_array_length", jsonb_length_type, array_length),
    function!("json_build_object", json_build_type, build_object, strict: false, volatile: false),
    function!("jsonb_build_object", jsonb_build_type, build_object_binary, strict: false, volatile: false),
    function!("json_build_array", json_build_type, build_array, strict: false, volatile: false),
    function!("jsonb_build_array", jsonb_build_type, build_array_binary, strict: false, volatile: false),
    function!("to_json", to_json_type, to_json),
    function!("to_jsonb", to_jsonb_type, to_jsonb),
    function!("json_extract", json_extract_type, json_extract),
];

/// The type an untyped literal or parameter takes as argument `position` of JSON function
/// `name` (scalar or table function), as PostgreSQL resolves an unknown-typed argument
/// against the function's declared parameter: the `json_` family's document parameter is
/// `json`, the `jsonb_` family's `jsonb`. `None` for other functions and positions.
pub fn untyped_argument_type(name: &str, position: usize) -> Option<DataType> {
    let documents_only_first = [
        "object_field",
        "object_field_text",
        "array_element",
        "array_element_text",
        "extract_path",
        "extract_path_text",
        "extract_path_op",
        "extract_path_text_op",
        "exists",
        "typeof",
        "array_length",
        "each",
        "each_text",
        "array_elements",
        "array_elements_text",
        "object_keys",
        "delete",
    ];
    let (data_type, rest) = if let Some(rest) = name.strip_prefix("jsonb_") {
        (DataType::Jsonb, rest)
    } else if let Some(rest) = name.strip_prefix("json_") {
        (DataType::Json, rest)
    } else {
        return None;
    };
    if matches!(rest, "contains" | "contained" | "concat") {
        return Some(data_type);
    }
    // The jsonpath functions: the document and `vars` are jsonb, the path text.
    if data_type == DataType::Jsonb && rest.starts_with("path_") {
        return matches!(position, 0 | 2).then_some(DataType::Jsonb);
    }
    // The key-list and path functions (`jsonb_modify.rs`): a document, a text[], and for
    // set / insert a new jsonb value.
    if data_type == DataType::Jsonb
        && matches!(
            rest,
            "exists_any"
                | "exists_all"
                | "delete_keys"
                | "delete_path"
                | "set"
                | "set_lax"
                | "insert"
                | "strip_nulls"
                | "pretty"
        )
    {
        return match position {
            0 | 2 => Some(DataType::Jsonb),
            1 => Some(DataType::Array(&DataType::Text(None))),
            _ => None,
        };
    }
    (position == 0 && documents_only_first.contains(&rest)).then_some(data_type)
}

// ---- return types ----

fn document(binary: bool) -> Param {
    if binary { Param::Jsonb } else { Param::Json }
}

fn field_of(name: &str, args: &[DataType], binary: bool, key: Param) -> Result<(), TypeError> {
    check_args(name, args, &[document(binary), key], &[])
}

fn json_field_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    field_of(name, args, false, Param::Text)?;
    Ok(DataType::Json)
}

fn jsonb_field_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    field_of(name, args, true, Param::Text)?;
    Ok(DataType::Jsonb)
}

fn json_field_text_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    field_of(name, args, false, Param::Text)?;
    Ok(DataType::Text(None))
}

fn jsonb_field_text_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    field_of(name, args, true, Param::Text)?;
    Ok(DataType::Text(None))
}

fn json_element_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    field_of(name, args, false, Param::Integer)?;
    Ok(DataType::Json)
}

fn jsonb_element_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    field_of(name, args, true, Param::Integer)?;
    Ok(DataType::Jsonb)
}

fn json_element_text_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    field_of(name, args, false, Param::Integer)?;
    Ok(DataType::Text(None))
}

fn jsonb_element_text_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    field_of(name, args, true, Param::Integer)?;
    Ok(DataType::Text(None))
}

fn variadic_path(name: &str, args: &[DataType], binary: bool) -> Result<(), TypeError> {
    let fits = args.split_first().is_some_and(|(first, rest)| {
        document(binary).accepts(*first) && rest.iter().all(|t| Param::Text.accepts(*t))
    });
    if fits {
        Ok(())
    } else {
        Err(TypeError::undefined_signature(name, args))
    }
}

fn json_variadic_path_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    variadic_path(name, args, false)?;
    Ok(DataType::Json)
}

fn jsonb_variadic_path_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    variadic_path(name, args, true)?;
    Ok(DataType::Jsonb)
}

fn json_variadic_path_text_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    variadic_path(name, args, false)?;
    Ok(DataType::Text(None))
}

fn jsonb_variadic_path_text_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    variadic_path(name, args, true)?;
    Ok(DataType::Text(None))
}

fn jsonb_pair_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb, Param::Jsonb], &[])?;
    Ok(DataType::Boolean)
}

fn jsonb_exists_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb, Param::Text], &[])?;
    Ok(DataType::Boolean)
}

fn json_typeof_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Json], &[])?;
    Ok(DataType::Text(None))
}

fn jsonb_typeof_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb], &[])?;
    Ok(DataType::Text(None))
}

fn json_length_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Json], &[])?;
    Ok(DataType::Integer)
}

fn jsonb_length_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb], &[])?;
    Ok(DataType::Integer)
}

fn json_build_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_variadic(name, args, 0, Param::Any)?;
    Ok(DataType::Json)
}

fn jsonb_build_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_variadic(name, args, 0, Param::Any)?;
    Ok(DataType::Jsonb)
}

fn to_json_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Any], &[])?;
    Ok(DataType::Json)
}

fn to_jsonb_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Any], &[])?;
    Ok(DataType::Jsonb)
}

fn json_extract_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    let fits = args.split_first().is_some_and(|(first, rest)| {
        matches!(
            first,
            DataType::Json | DataType::Jsonb | DataType::Text(_) | DataType::Null
        ) && !rest.is_empty()
            && rest.iter().all(|t| Param::Text.accepts(*t))
    });
    if fits {
        Ok(DataType::Text(None))
    } else {
        Err(TypeError::undefined_signature(name, args))
    }
}

// ---- implementations ----

/// Argument `i` as a JSON document: its value text (surrounding whitespace removed) and
/// whether it is jsonb.
fn document_arg<'a>(name: &str, args: &'a [Value], i: usize) -> Result<(&'a str, bool), TypeError> {
    match args.get(i) {
        Some(Value::Json(text)) => Ok((parse::top_level(text)?, false)),
        Some(Value::Jsonb(text)) => Ok((text.as_str(), true)),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

/// A found member as a value of the document's type.
fn member(found: Option<&str>, binary: bool) -> Value {
    match found {
        None => Value::Null,
        Some(text) if binary => Value::Jsonb(text.to_owned()),
        Some(text) => Value::Json(text.to_owned()),
    }
}

fn member_text(found: Option<&str>) -> Result<Value, TypeError> {
    Ok(match found {
        None => Value::Null,
        Some(text) => path::as_text(text)?.map_or(Value::Null, Value::Text),
    })
}

fn integer(name: &str, args: &[Value], i: usize) -> Result<i64, TypeError> {
    match args.get(i) {
        Some(Value::Integer(n)) => Ok(*n),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

fn field(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_object_field";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (document, binary) = document_arg(name, args, 0)?;
    Ok(member(
        path::field(document, text_arg(name, args, 1)?)?,
        binary,
    ))
}

fn field_text(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_object_field_text";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (document, _) = document_arg(name, args, 0)?;
    member_text(path::field(document, text_arg(name, args, 1)?)?)
}

fn element(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_array_element";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (document, binary) = document_arg(name, args, 0)?;
    Ok(member(
        path::element(document, integer(name, args, 1)?)?,
        binary,
    ))
}

fn element_text(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_array_element_text";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (document, _) = document_arg(name, args, 0)?;
    member_text(path::element(document, integer(name, args, 1)?)?)
}

fn extract_path(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_extract_path_op";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (document, binary) = document_arg(name, args, 0)?;
    let steps = path::parse_text_array(text_arg(name, args, 1)?)?;
    Ok(member(path::follow(document, &steps)?, binary))
}

fn extract_path_text(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_extract_path_text_op";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (document, _) = document_arg(name, args, 0)?;
    let steps = path::parse_text_array(text_arg(name, args, 1)?)?;
    member_text(path::follow(document, &steps)?)
}

/// The keys of a variadic path (`json_extract_path(doc, 'a', '0')`).
fn variadic_steps(name: &str, args: &[Value]) -> Result<Vec<path::Step>, TypeError> {
    (1..args.len())
        .map(|i| Ok(path::Step::Key(text_arg(name, args, i)?.to_owned())))
        .collect()
}

fn extract_path_variadic(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_extract_path";
    if strict_nulls(name, args, 1, usize::MAX)? {
        return Ok(Value::Null);
    }
    let (document, binary) = document_arg(name, args, 0)?;
    let steps = variadic_steps(name, args)?;
    Ok(member(path::follow(document, &steps)?, binary))
}

fn extract_path_variadic_text(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_extract_path_text";
    if strict_nulls(name, args, 1, usize::MAX)? {
        return Ok(Value::Null);
    }
    let (document, _) = document_arg(name, args, 0)?;
    let steps = variadic_steps(name, args)?;
    member_text(path::follow(document, &steps)?)
}

fn containment(args: &[Value], name: &str, reversed: bool) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (left, _) = document_arg(name, args, 0)?;
    let (right, _) = document_arg(name, args, 1)?;
    let (left, right) = (parse::parse_tree(left)?, parse::parse_tree(right)?);
    Ok(Value::Boolean(if reversed {
        json::contains(&right, &left)
    } else {
        json::contains(&left, &right)
    }))
}

fn contains(args: &[Value]) -> Result<Value, TypeError> {
    containment(args, "jsonb_contains", false)
}

fn contained(args: &[Value]) -> Result<Value, TypeError> {
    containment(args, "jsonb_contained", true)
}

/// `jsonb_exists(doc, key)` (PostgreSQL's `?`): whether `key` is a key of the object, or a
/// string element of the array, or the string itself.
fn exists(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_exists";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (document, _) = document_arg(name, args, 0)?;
    let key = text_arg(name, args, 1)?;
    let is_key =
        |text: &str| matches!(parse::shallow(text), Ok(parse::Shallow::String(s)) if s == key);
    Ok(Value::Boolean(match parse::shallow(document)? {
        parse::Shallow::Object(members) => members.iter().any(|(name, _)| name == key),
        parse::Shallow::Array(items) => items.iter().any(|item| is_key(item)),
        parse::Shallow::String(s) => s == key,
        _ => false,
    }))
}

fn type_of(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_typeof";
    if strict_nulls(name, args, 1, 1)? {
        return Ok(Value::Null);
    }
    let (document, _) = document_arg(name, args, 0)?;
    Ok(Value::Text(json::type_name(document).to_owned()))
}

fn array_length(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_array_length";
    if strict_nulls(name, args, 1, 1)? {
        return Ok(Value::Null);
    }
    let (document, _) = document_arg(name, args, 0)?;
    match parse::shallow(document)? {
        parse::Shallow::Array(items) => Ok(Value::Integer(items.len() as i64)),
        parse::Shallow::Object(_) => Err(TypeError::InvalidArgument(
            "cannot get array length of a non-array".to_owned(),
        )),
        _ => Err(TypeError::InvalidArgument(
            "cannot get array length of a scalar".to_owned(),
        )),
    }
}

/// `json_build_object(k1, v1, ...)`'s text: `{"k1" : v1, "k2" : v2}`, PostgreSQL's spacing.
/// A NULL key is 22023 with PostgreSQL's message for the function (`jsonb` says it its way).
fn object_text(args: &[Value], jsonb: bool) -> Result<String, TypeError> {
    if !args.len().is_multiple_of(2) {
        return Err(TypeError::InvalidArgument(
            "argument list must have even number of elements".to_owned(),
        ));
    }
    let mut out = String::from("{");
    for (index, pair) in args.chunks_exact(2).enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        if pair[0] == Value::Null {
            let argument = 2 * index + 1;
            return Err(TypeError::InvalidArgument(if jsonb {
                format!("argument {argument}: key must not be null")
            } else {
                format!("argument {argument} cannot be null")
            }));
        }
        write::push_key(&pair[0], &mut out)?;
        out.push_str(" : ");
        write::push_value(&pair[1], &mut out);
    }
    out.push('}');
    Ok(out)
}

/// `json_build_array(v1, ...)`'s text: `[v1, v2]`.
fn array_text(args: &[Value]) -> String {
    let mut out = String::from("[");
    for (index, value) in args.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        write::push_value(value, &mut out);
    }
    out.push(']');
    out
}

fn build_object(args: &[Value]) -> Result<Value, TypeError> {
    Ok(Value::Json(object_text(args, false)?))
}

fn build_object_binary(args: &[Value]) -> Result<Value, TypeError> {
    Ok(Value::Jsonb(json::normalize_jsonb(&object_text(
        args, true,
    )?)?))
}

fn build_array(args: &[Value]) -> Result<Value, TypeError> {
    Ok(Value::Json(array_text(args)))
}

fn build_array_binary(args: &[Value]) -> Result<Value, TypeError> {
    Ok(Value::Jsonb(json::normalize_jsonb(&array_text(args))?))
}

fn to_json(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("to_json", args, 1, 1)? {
        return Ok(Value::Null);
    }
    let mut out = String::new();
    if let Some(value) = args.first() {
        write::push_value(value, &mut out);
    }
    Ok(Value::Json(out))
}

fn to_jsonb(args: &[Value]) -> Result<Value, TypeError> {
    match to_json(args)? {
        Value::Json(text) => Ok(Value::Jsonb(json::normalize_jsonb(&text)?)),
        other => Ok(other),
    }
}

/// One `json_extract` result as SQLite maps it (but as text: see the module comment).
fn extracted_text(found: Option<&str>) -> Result<Option<String>, TypeError> {
    let Some(text) = found else {
        return Ok(None);
    };
    Ok(match parse::shallow(text)? {
        parse::Shallow::Null => None,
        parse::Shallow::String(s) => Some(s),
        parse::Shallow::Array(_) | parse::Shallow::Object(_) => {
            Some(write::compact(&parse::parse_tree(text)?))
        }
        _ => Some(text.to_owned()),
    })
}

fn json_extract(args: &[Value]) -> Result<Value, TypeError> {
    let name = "json_extract";
    if strict_nulls(name, args, 2, usize::MAX)? {
        return Ok(Value::Null);
    }
    let document = match args.first() {
        Some(Value::Json(text) | Value::Text(text)) => {
            // Text (SQLite's JSON columns) is checked as json input would be.
            json::validate_json(text)?;
            parse::top_level(text)?
        }
        Some(Value::Jsonb(text)) => text.as_str(),
        _ => return Err(TypeError::undefined_function(name, args)),
    };
    let mut results = Vec::with_capacity(args.len() - 1);
    for i in 1..args.len() {
        let steps = path::parse_sqlite_path(text_arg(name, args, i)?)?;
        results.push(path::follow(document, &steps)?);
    }
    if let [only] = results.as_slice() {
        return Ok(extracted_text(*only)?.map_or(Value::Null, Value::Text));
    }
    // Several paths: a JSON array of what each found (null where nothing).
    let mut out = String::from("[");
    for (index, found) in results.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        match found {
            Some(text) => out.push_str(&write::compact(&parse::parse_tree(text)?)),
            None => out.push_str("null"),
        }
    }
    out.push(']');
    Ok(Value::Text(out))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, i, t};
    use super::*;

    fn json(text: &str) -> Value {
        Value::Json(text.to_owned())
    }

    fn jsonb(text: &str) -> Value {
        Value::Jsonb(json::normalize_jsonb(text).unwrap())
    }

    #[test]
    fn field_and_element_lookups() {
        let doc = json(r#" {"a": {"b":  [1, 2.50]}, "s": "x\ty", "n": null} "#);
        assert_eq!(
            call("json_object_field", &[doc.clone(), t("a")]),
            Ok(json(r#"{"b":  [1, 2.50]}"#))
        );
        assert_eq!(
            call("json_object_field", &[doc.clone(), t("zz")]),
            Ok(Value::Null)
        );
        assert_eq!(
            call("json_object_field_text", &[doc.clone(), t("s")]),
            Ok(t("x\ty"))
        );
        assert_eq!(
            call("json_object_field_text", &[doc.clone(), t("n")]),
            Ok(Value::Null)
        );
        assert_eq!(
            call("json_extract_path_op", &[doc.clone(), t("{a,b,1}")]),
            Ok(json("2.50"))
        );
        assert_eq!(
            call("json_extract_path_text_op", &[doc.clone(), t("{a,b,-2}")]),
            Ok(t("1"))
        );
        assert_eq!(
            call(
                "json_extract_path_text",
                &[doc.clone(), t("a"), t("b"), t("1")]
            ),
            Ok(t("2.50"))
        );
        assert_eq!(call("json_extract_path_op", &[doc, t("a,b")]), Err("22P02"));
        let array = jsonb("[1, \"two\", {\"three\": 3}]");
        assert_eq!(
            call("jsonb_array_element", &[array.clone(), i(-1)]),
            Ok(jsonb("{\"three\": 3}"))
        );
        assert_eq!(
            call("jsonb_array_element_text", &[array.clone(), i(1)]),
            Ok(t("two"))
        );
        assert_eq!(call("jsonb_array_element", &[array, i(5)]), Ok(Value::Null));
        assert_eq!(
            call("jsonb_object_field", &[jsonb("[1]"), t("a")]),
            Ok(Value::Null)
        );
        assert_eq!(
            call("json_object_field", &[Value::Null, t("a")]),
            Ok(Value::Null)
        );
    }

    #[test]
    fn kinds_lengths_and_containment() {
        for (text, kind) in [
            ("{}", "object"),
            ("[]", "array"),
            ("\"x\"", "string"),
            ("-1.5", "number"),
            ("false", "boolean"),
            ("null", "null"),
        ] {
            assert_eq!(call("json_typeof", &[json(text)]), Ok(t(kind)));
            assert_eq!(call("jsonb_typeof", &[jsonb(text)]), Ok(t(kind)));
        }
        assert_eq!(call("json_array_length", &[json("[1, [2, 3]]")]), Ok(i(2)));
        assert_eq!(call("jsonb_array_length", &[jsonb("{}")]), Err("22023"));
        assert_eq!(call("json_array_length", &[json("3")]), Err("22023"));
        assert_eq!(
            call(
                "jsonb_contains",
                &[jsonb("{\"a\": [1, 2]}"), jsonb("{\"a\": [2]}")]
            ),
            Ok(Value::Boolean(true))
        );
        assert_eq!(
            call(
                "jsonb_contained",
                &[jsonb("{\"a\": [1, 2]}"), jsonb("{\"a\": [2]}")]
            ),
            Ok(Value::Boolean(false))
        );
        assert_eq!(
            call("jsonb_exists", &[jsonb("[\"a\", 1]"), t("a")]),
            Ok(Value::Boolean(true))
        );
        assert_eq!(
            call("jsonb_exists", &[jsonb("{\"b\": \"a\"}"), t("a")]),
            Ok(Value::Boolean(false))
        );
    }

    #[test]
    fn builders() {
        assert_eq!(
            call(
                "json_build_object",
                &[t("a"), i(1), t("b"), Value::Null, i(2), json("[1,2]")]
            ),
            Ok(json("{\"a\" : 1, \"b\" : null, \"2\" : [1,2]}"))
        );
        assert_eq!(
            call(
                "jsonb_build_object",
                &[t("b"), i(1), t("a"), t("x"), t("b"), Value::Boolean(true)]
            ),
            Ok(Value::Jsonb("{\"a\": \"x\", \"b\": true}".to_owned()))
        );
        assert_eq!(call("json_build_object", &[t("a")]), Err("22023"));
        // A NULL key: 22023, as PostgreSQL.
        assert_eq!(
            call("json_build_object", &[Value::Null, i(1)]),
            Err("22023")
        );
        assert_eq!(
            call("jsonb_build_object", &[t("a"), i(1), Value::Null, i(2)]),
            Err("22023")
        );
        assert_eq!(call("json_build_object", &[]), Ok(json("{}")));
        assert_eq!(
            call(
                "json_build_array",
                &[i(1), t("x"), Value::Null, Value::Real(0.5)]
            ),
            Ok(json("[1, \"x\", null, 0.5]"))
        );
        assert_eq!(
            call("jsonb_build_array", &[json("{\"b\":1,\"a\":2}")]),
            Ok(Value::Jsonb("[{\"a\": 2, \"b\": 1}]".to_owned()))
        );
        assert_eq!(call("to_json", &[t("a\"b")]), Ok(json("\"a\\\"b\"")));
        assert_eq!(
            call("to_jsonb", &[Value::Real(1e20)]),
            Ok(jsonb("100000000000000000000"))
        );
        assert_eq!(call("to_json", &[Value::Null]), Ok(Value::Null));
    }

    #[test]
    fn sqlite_json_extract() {
        let doc = t(r#"{"a": {"b": [1, 2.5, "x", true, null, {"c": [ 1 ]}]}}"#);
        let extract = |path: &str| call("json_extract", &[doc.clone(), t(path)]);
        assert_eq!(extract("$.a.b[0]"), Ok(t("1")));
        assert_eq!(extract("$.a.b[1]"), Ok(t("2.5")));
        assert_eq!(extract("$.a.b[2]"), Ok(t("x")));
        assert_eq!(extract("$.a.b[3]"), Ok(t("true")));
        assert_eq!(extract("$.a.b[4]"), Ok(Value::Null));
        assert_eq!(extract("$.a.b[#-1]"), Ok(t("{\"c\":[1]}")));
        assert_eq!(extract("$.a.missing"), Ok(Value::Null));
        assert_eq!(
            extract("$.a.b"),
            Ok(t("[1,2.5,\"x\",true,null,{\"c\":[1]}]"))
        );
        assert_eq!(extract("a.b"), Err("22023"));
        assert_eq!(
            call(
                "json_extract",
                &[doc.clone(), t("$.a.b[0]"), t("$.zz"), t("$.a.b[2]")]
            ),
            Ok(t("[1,null,\"x\"]"))
        );
        assert_eq!(call("json_extract", &[t("{bad"), t("$")]), Err("22P02"));
        assert_eq!(
            call("json_extract", &[jsonb("{\"a\": 1}"), t("$.a")]),
            Ok(t("1"))
        );
    }

    #[test]
    fn untyped_arguments_take_the_document_type() {
        assert_eq!(
            untyped_argument_type("json_typeof", 0),
            Some(DataType::Json)
        );
        assert_eq!(
            untyped_argument_type("jsonb_each", 0),
            Some(DataType::Jsonb)
        );
        assert_eq!(
            untyped_argument_type("jsonb_contains", 1),
            Some(DataType::Jsonb)
        );
        assert_eq!(untyped_argument_type("json_object_field", 1), None);
        assert_eq!(untyped_argument_type("json_build_object", 0), None);
        assert_eq!(untyped_argument_type("lower", 0), None);
    }
}
