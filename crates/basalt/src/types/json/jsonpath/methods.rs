//! Item methods, comparisons and regular expressions for the jsonpath evaluator
//! (`eval.rs`): `.type()`, `.size()`, `.double()`, `.abs()`, `.floor()`, `.ceiling()`,
//! `.keyvalue()` and `.datetime()` on one item, PostgreSQL's `compareItems`, and
//! `like_regex` patterns compiled with XQuery's flags as PostgreSQL maps them.
//!
//! Errors follow the evaluator's rules ([`Fail`]): what PostgreSQL reports through
//! `RETURN_ERROR` is soft (suppressed by `silent`, unknown inside predicates); a comparison
//! that would need the session time zone, and a template with zone fields, are hard.

use std::cmp::Ordering;

use regex::{Regex, RegexBuilder};

use super::ast::{Cmp, Method, RegexFlags};
use super::datetime::DateTime;
use super::eval::{Fail, Tri};
use super::item::Item;
use super::{coded, soft};
use crate::sqlstate;
use crate::types::TypeError;
use crate::types::numeric as ops;

/// The results of an item method on one (already unwrapped) item.
/// `object_id` is the id `.keyvalue()` reports for `item` (see `layout.rs`).
pub(super) fn method(
    method: &Method,
    item: &Item,
    lax: bool,
    ignore_structural: bool,
    object_id: i64,
) -> Result<Vec<Item>, Fail> {
    let name = method.name();
    let numeric_only = || {
        soft(
            sqlstate::NON_NUMERIC_SQL_JSON_ITEM,
            format!("jsonpath item method .{name}() can only be applied to a numeric value"),
        )
    };
    Ok(vec![match method {
        Method::Type => Item::String(item.type_name().to_owned()),
        Method::Size => match item {
            Item::Array(elements) => Item::Number(elements.len().to_string()),
            _ if lax => Item::Number("1".to_owned()),
            // Strict, below `.**`: no size, no error.
            _ if ignore_structural => return Ok(Vec::new()),
            _ => {
                return Err(soft(
                    sqlstate::SQL_JSON_ARRAY_NOT_FOUND,
                    "jsonpath item method .size() can only be applied to an array".to_owned(),
                ));
            }
        },
        Method::Abs => match item {
            Item::Number(n) => Item::Number(n.trim_start_matches('-').to_owned()),
            _ => return Err(numeric_only()),
        },
        Method::Floor | Method::Ceiling => match item {
            Item::Number(n) => {
                let value = ops::parse(n).map_err(Fail::Soft)?;
                let rounded = if *method == Method::Floor {
                    ops::floor(value)
                } else {
                    ops::ceil(value)
                }
                .map_err(Fail::Soft)?;
                Item::Number(rounded.to_string())
            }
            _ => return Err(numeric_only()),
        },
        Method::Double => Item::Number(double(item)?),
        Method::KeyValue => match item {
            Item::Object(members) => {
                let id = object_id;
                return Ok(members
                    .iter()
                    .map(|(key, value)| {
                        Item::Object(vec![
                            ("id".to_owned(), Item::Number(id.to_string())),
                            ("key".to_owned(), Item::String(key.clone())),
                            ("value".to_owned(), value.clone()),
                        ])
                    })
                    .collect());
            }
            _ => {
                return Err(soft(
                    sqlstate::SQL_JSON_OBJECT_NOT_FOUND,
                    "jsonpath item method .keyvalue() can only be applied to an object".to_owned(),
                ));
            }
        },
        Method::DateTime(Some(template)) if template.to_ascii_uppercase().contains("TZ") => {
            return Err(Fail::Hard(coded(
                sqlstate::FEATURE_NOT_SUPPORTED,
                "jsonpath item method .datetime() with zone fields (TZH, TZM) in its template is not supported".to_owned(),
            )));
        }
        Method::DateTime(Some(template)) => match item {
            // The template parser's errors (22007, 22008) are soft, as PostgreSQL's.
            Item::String(text) => {
                Item::DateTime(DateTime::from_template(text, template).map_err(Fail::Soft)?)
            }
            _ => {
                return Err(soft(
                    sqlstate::INVALID_ARGUMENT_FOR_SQL_JSON_DATETIME_FUNCTION,
                    "jsonpath item method .datetime() can only be applied to a string".to_owned(),
                ));
            }
        },
        Method::DateTime(None) => match item {
            Item::String(text) => match DateTime::parse(text) {
                Some(datetime) => Item::DateTime(datetime),
                None => {
                    return Err(soft(
                        sqlstate::INVALID_ARGUMENT_FOR_SQL_JSON_DATETIME_FUNCTION,
                        format!("datetime format is not recognized: \"{text}\""),
                    ));
                }
            },
            _ => {
                return Err(soft(
                    sqlstate::INVALID_ARGUMENT_FOR_SQL_JSON_DATETIME_FUNCTION,
                    "jsonpath item method .datetime() can only be applied to a string".to_owned(),
                ));
            }
        },
    }])
}

/// Compiles a `like_regex` pattern with its flags, as PostgreSQL maps XQuery's: by default
/// `.` does not match a newline and `^` / `$` match only at the ends; `s` lets `.` match a
/// newline, `m` makes `^` / `$` match at line breaks, `i` ignores case, `q` takes the
/// pattern literally.
pub fn compile_regex(pattern: &str, flags: RegexFlags) -> Result<Regex, TypeError> {
    let source = if flags.q {
        regex::escape(pattern)
    } else {
        pattern.to_owned()
    };
    RegexBuilder::new(&source)
        .case_insensitive(flags.i)
        .multi_line(flags.m && !flags.q)
        .dot_matches_new_line(flags.s)
        .size_limit(1 << 22)
        .build()
        .map_err(|error| TypeError::InvalidRegularExpression(error.to_string()))
}

/// Compares two items as PostgreSQL's `compareItems`. A zoned and an unzoned date/time
/// are a hard error (0A000), as PostgreSQL's comparison without the `_tz` functions.
pub(super) fn compare(op: Cmp, a: &Item, b: &Item) -> Result<Tri, Fail> {
    if let (Item::DateTime(x), Item::DateTime(y)) = (a, b)
        && let Some((from, to)) = x.zone_cast(y)
    {
        return Err(Fail::Hard(coded(
            sqlstate::FEATURE_NOT_SUPPORTED,
            format!("cannot convert value from {from} to {to} without time zone usage"),
        )));
    }
    Ok(compare_values(op, a, b))
}

fn compare_values(op: Cmp, a: &Item, b: &Item) -> Tri {
    let ordering = match (a, b) {
        (Item::Null, Item::Null) => Ordering::Equal,
        (Item::Bool(x), Item::Bool(y)) => x.cmp(y),
        (Item::Number(x), Item::Number(y)) => crate::types::json::compare(x, y),
        (Item::String(x), Item::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Item::DateTime(x), Item::DateTime(y)) => match x.compare(y) {
            Some(ordering) => ordering,
            None => return Tri::Unknown,
        },
        (Item::Null, _) | (_, Item::Null) => return Tri::from(op == Cmp::Ne),
        _ => return Tri::Unknown,
    };
    Tri::from(match op {
        Cmp::Eq => ordering == Ordering::Equal,
        Cmp::Ne => ordering != Ordering::Equal,
        Cmp::Lt => ordering == Ordering::Less,
        Cmp::Le => ordering != Ordering::Greater,
        Cmp::Gt => ordering == Ordering::Greater,
        Cmp::Ge => ordering != Ordering::Less,
    })
}

/// The negation of a `numeric` text.
pub(super) fn negate(n: &str) -> String {
    if let Some(positive) = n.strip_prefix('-') {
        positive.to_owned()
    } else if n.bytes().all(|b| b == b'0' || b == b'.') {
        n.to_owned()
    } else {
        format!("-{n}")
    }
}

/// `.double()`: a number stays as it is if `double precision` can hold it; a string is
/// read as a `double precision` and becomes the number PostgreSQL's `float8_numeric`
/// writes (15 significant digits).
fn double(item: &Item) -> Result<String, Fail> {
    let value = match item {
        Item::Number(n) => {
            let value: f64 = n.parse().unwrap_or(f64::INFINITY);
            if !value.is_finite() {
                return Err(soft(
                    sqlstate::NON_NUMERIC_SQL_JSON_ITEM,
                    "numeric argument of jsonpath item method .double() is out of range for type double precision".to_owned(),
                ));
            }
            return Ok(n.clone());
        }
        Item::String(s) => match s.trim().parse::<f64>() {
            Ok(value) if value.is_finite() && !s.trim().is_empty() => value,
            _ => {
                return Err(soft(
                    sqlstate::NON_NUMERIC_SQL_JSON_ITEM,
                    "string argument of jsonpath item method .double() is not a valid representation of a double precision number".to_owned(),
                ));
            }
        },
        _ => {
            return Err(soft(
                sqlstate::NON_NUMERIC_SQL_JSON_ITEM,
                "jsonpath item method .double() can only be applied to a string or numeric value"
                    .to_owned(),
            ));
        }
    };
    let scientific = format!("{value:.14e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    crate::types::json::write::numeric_text(&format!("{mantissa}e{exponent}")).map_err(Fail::Soft)
}
