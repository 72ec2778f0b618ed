//! The SQL/JSON path functions: `jsonb_path_exists`, `jsonb_path_match`,
//! `jsonb_path_query_array`, `jsonb_path_query_first` (and `jsonb_path_query`, a
//! set-returning function in `set_returning.rs`, through [`query_items`]), the operator
//! functions `jsonb_path_exists_opr` (`@?`) and `jsonb_path_match_opr` (`@@`), and
//! `jsonpath(text)`, the validated text a `::jsonpath` cast produces.
//!
//! The path argument is text (Basalt has no jsonpath storage type): it is parsed on each
//! call (42601 for a bad path). `vars` is a jsonb object (22023 otherwise), `silent`
//! suppresses the path's soft errors (see `types::json::jsonpath::eval`): then
//! `jsonb_path_exists` and `jsonb_path_match` are NULL, the others return what was found
//! before the error. The operators are silent, as PostgreSQL's. Every function is strict.

use super::{Param, ScalarFunction, check_args, strict_nulls, text_arg};
use crate::sqlstate;
use crate::types::json::jsonpath::{self, Outcome, item::Item};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("jsonb_path_exists", boolean_type, exists),
    function!("jsonb_path_match", boolean_type, path_match),
    function!("jsonb_path_query_array", jsonb_type, query_array),
    function!("jsonb_path_query_first", jsonb_type, query_first),
    function!("jsonb_path_exists_opr", operator_type, exists_operator),
    function!("jsonb_path_match_opr", operator_type, match_operator),
    function!("jsonpath", jsonpath_type, jsonpath_text),
];

/// `(jsonb, path text[, vars jsonb[, silent boolean]])`.
fn check_path_args(name: &str, args: &[DataType]) -> Result<(), TypeError> {
    check_args(
        name,
        args,
        &[Param::Jsonb, Param::Text],
        &[Param::Jsonb, Param::Any],
    )?;
    match args.get(3) {
        None | Some(DataType::Boolean | DataType::Null) => Ok(()),
        _ => Err(TypeError::undefined_signature(name, args)),
    }
}

fn boolean_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_path_args(name, args)?;
    Ok(DataType::Boolean)
}

fn jsonb_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_path_args(name, args)?;
    Ok(DataType::Jsonb)
}

fn operator_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb, Param::Text], &[])?;
    Ok(DataType::Boolean)
}

fn jsonpath_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text], &[])?;
    Ok(DataType::Text(None))
}

/// The parsed arguments of one call.
struct Call {
    document: Item,
    path: std::rc::Rc<jsonpath::ast::JsonPath>,
    vars: Option<Item>,
    silent: bool,
}

fn read_call(name: &str, args: &[Value], silent_default: bool) -> Result<Call, TypeError> {
    let document = match args.first() {
        Some(Value::Jsonb(text)) => Item::from_json_text(text)?,
        _ => return Err(TypeError::undefined_function(name, args)),
    };
    let path = jsonpath::cached_path(text_arg(name, args, 1)?)?;
    let vars = match args.get(2) {
        None => None,
        Some(Value::Jsonb(text)) => Some(Item::from_json_text(text)?),
        Some(_) => return Err(TypeError::undefined_function(name, args)),
    };
    let silent = match args.get(3) {
        None => silent_default,
        Some(Value::Boolean(b)) => *b,
        Some(_) => return Err(TypeError::undefined_function(name, args)),
    };
    Ok(Call {
        document,
        path,
        vars,
        silent,
    })
}

fn run(call: &Call, first_only: bool) -> Result<Outcome, TypeError> {
    jsonpath::query(
        &call.path,
        &call.document,
        call.vars.as_ref(),
        call.silent,
        first_only,
    )
}

/// The items `jsonb_path_query(args)` returns, as jsonb values (no rows for a NULL
/// argument).
pub fn query_items(args: &[Value]) -> Result<Vec<Value>, TypeError> {
    let name = "jsonb_path_query";
    if strict_nulls(name, args, 2, 4)? {
        return Ok(Vec::new());
    }
    let call = read_call(name, args, false)?;
    run(&call, false)?
        .items
        .iter()
        .map(|item| item.to_jsonb().map(Value::Jsonb))
        .collect()
}

fn exists_with(name: &str, args: &[Value], max: usize, silent: bool) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 2, max)? {
        return Ok(Value::Null);
    }
    let call = read_call(name, args, silent)?;
    let outcome = run(&call, true)?;
    Ok(if outcome.failed {
        Value::Null
    } else {
        Value::Boolean(!outcome.items.is_empty())
    })
}

fn match_with(name: &str, args: &[Value], max: usize, silent: bool) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 2, max)? {
        return Ok(Value::Null);
    }
    let call = read_call(name, args, silent)?;
    let outcome = run(&call, false)?;
    match outcome.items.as_slice() {
        [Item::Bool(b)] => return Ok(Value::Boolean(*b)),
        [Item::Null] => return Ok(Value::Null),
        _ => {}
    }
    if call.silent {
        return Ok(Value::Null);
    }
    Err(jsonpath::coded(
        sqlstate::SINGLETON_SQL_JSON_ITEM_REQUIRED,
        "single boolean result is expected".to_owned(),
    ))
}

/// `jsonb_path_exists(doc, path[, vars[, silent]])`: whether the path yields any item.
fn exists(args: &[Value]) -> Result<Value, TypeError> {
    exists_with("jsonb_path_exists", args, 4, false)
}

/// `doc @? path`: `jsonb_path_exists` with errors suppressed.
fn exists_operator(args: &[Value]) -> Result<Value, TypeError> {
    exists_with("jsonb_path_exists_opr", args, 2, true)
}

/// `jsonb_path_match(doc, path[, vars[, silent]])`: the result of a predicate check.
fn path_match(args: &[Value]) -> Result<Value, TypeError> {
    match_with("jsonb_path_match", args, 4, false)
}

/// `doc @@ path`: `jsonb_path_match` with errors suppressed.
fn match_operator(args: &[Value]) -> Result<Value, TypeError> {
    match_with("jsonb_path_match_opr", args, 2, true)
}

/// `jsonb_path_query_array(...)`: every item, as one jsonb array.
fn query_array(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_path_query_array";
    if strict_nulls(name, args, 2, 4)? {
        return Ok(Value::Null);
    }
    let call = read_call(name, args, false)?;
    let items = run(&call, false)?.items;
    Ok(Value::Jsonb(Item::Array(items).to_jsonb()?))
}

/// `jsonb_path_query_first(...)`: the first item, or NULL.
fn query_first(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_path_query_first";
    if strict_nulls(name, args, 2, 4)? {
        return Ok(Value::Null);
    }
    let call = read_call(name, args, false)?;
    match run(&call, false)?.items.first() {
        Some(item) => Ok(Value::Jsonb(item.to_jsonb()?)),
        None => Ok(Value::Null),
    }
}

/// `jsonpath(text)` / `text::jsonpath`: the path checked and printed in normal form.
fn jsonpath_text(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonpath";
    if strict_nulls(name, args, 1, 1)? {
        return Ok(Value::Null);
    }
    Ok(Value::Text(jsonpath::normalize(text_arg(name, args, 0)?)?))
}

#[cfg(test)]
mod tests {
    use super::super::tests::call;
    use super::*;

    fn jsonb(text: &str) -> Value {
        Value::Jsonb(crate::types::json::normalize_jsonb(text).unwrap())
    }

    fn t(s: &str) -> Value {
        Value::Text(s.to_owned())
    }

    #[test]
    fn exists_match_and_query() {
        let doc = jsonb(r#"{"a": [1, 2, 3], "b": "x"}"#);
        assert_eq!(
            call("jsonb_path_exists", &[doc.clone(), t("$.a[*] ? (@ > 2)")]),
            Ok(Value::Boolean(true))
        );
        assert_eq!(
            call("jsonb_path_exists", &[doc.clone(), t("$.c")]),
            Ok(Value::Boolean(false))
        );
        assert_eq!(
            call("jsonb_path_exists", &[doc.clone(), t("strict $.c")]),
            Err("2203A")
        );
        assert_eq!(
            call(
                "jsonb_path_exists",
                &[
                    doc.clone(),
                    t("strict $.c"),
                    jsonb("{}"),
                    Value::Boolean(true)
                ]
            ),
            Ok(Value::Null)
        );
        assert_eq!(
            call("jsonb_path_exists_opr", &[doc.clone(), t("strict $.c")]),
            Ok(Value::Null)
        );
        assert_eq!(
            call("jsonb_path_match", &[doc.clone(), t("$.a[0] == 1")]),
            Ok(Value::Boolean(true))
        );
        assert_eq!(
            call("jsonb_path_match", &[doc.clone(), t("$.a")]),
            Err("22038")
        );
        assert_eq!(
            call("jsonb_path_match_opr", &[doc.clone(), t("$.a")]),
            Ok(Value::Null)
        );
        assert_eq!(
            call(
                "jsonb_path_query_array",
                &[
                    doc.clone(),
                    t("$.a[*] ? (@ >= $min)"),
                    jsonb(r#"{"min": 2}"#)
                ]
            ),
            Ok(jsonb("[2, 3]"))
        );
        assert_eq!(
            call("jsonb_path_query_first", &[doc.clone(), t("$.b")]),
            Ok(jsonb(r#""x""#))
        );
        assert_eq!(
            call("jsonb_path_query_first", &[doc.clone(), t("$.z")]),
            Ok(Value::Null)
        );
        assert_eq!(
            call("jsonb_path_query_first", &[doc.clone(), t("$.a[")]),
            Err("42601")
        );
        assert_eq!(
            call(
                "jsonb_path_query_first",
                &[doc.clone(), t("$x"), jsonb("[]")]
            ),
            Err("22023")
        );
        assert_eq!(
            call("jsonb_path_query_first", &[doc, t("$x")]),
            Err("42704")
        );
        assert_eq!(
            query_items(&[jsonb("[1, 2]"), t("$[*]")]),
            Ok(vec![jsonb("1"), jsonb("2")])
        );
        assert_eq!(call("jsonpath", &[t("$.a")]), Ok(t("$.\"a\"")));
    }
}
