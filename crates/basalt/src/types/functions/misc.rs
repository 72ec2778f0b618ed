//! Functions about types, NULLs and bytes: typeof, ifnull, nullif, greatest, least, hex,
//! to_hex, md5, and `collate_nocase`, the ASCII case folding that `expr COLLATE NOCASE` binds
//! to (see `plan/bind/collate.rs`).
//!
//! `greatest`/`least` follow PostgreSQL: NULL arguments are ignored and the result is NULL
//! only when all are NULL; arguments are converted to their common type. `ifnull(a, b)` is
//! SQLite's two-argument COALESCE; `nullif(a, b)` is NULL when `a = b`, otherwise `a`.

use md5::{Digest, Md5};

use super::{Param, ScalarFunction, bytes_arg, check_args, check_variadic, int_arg, strict_nulls};
use crate::types::cast::{cast, common_type, text_form};
use crate::types::compare::{compare, sort_cmp};
use crate::types::format::upper_hex;
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("typeof", typeof_type, type_of, strict: false, volatile: false),
    function!("ifnull", ifnull_type, ifnull, strict: false, volatile: false),
    function!("nullif", nullif_type, nullif, strict: false, volatile: false),
    function!("greatest", extreme_type, greatest, strict: false, volatile: false),
    function!("least", extreme_type, least, strict: false, volatile: false),
    function!("hex", hex_type, hex, strict: true, volatile: false),
    function!("to_hex", to_hex_type, to_hex, strict: true, volatile: false),
    function!("md5", md5_type, md5, strict: true, volatile: false),
    function!("collate_nocase", collate_nocase_type, collate_nocase),
    // SQLite's RAISE in trigger programs; the binder refuses it anywhere else.
    function!("raise", raise_type, raise, strict: false, volatile: true),
];

// ---- return types ----

fn typeof_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Any], &[])?;
    Ok(DataType::Text(None))
}

/// The common type of all arguments, or 42804 naming the two that cannot be matched.
fn unify(what: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    args.iter().try_fold(DataType::Null, |acc, t| {
        common_type(acc, *t).ok_or_else(|| {
            TypeError::DatatypeMismatch(format!("{what} types {acc} and {t} cannot be matched"))
        })
    })
}

fn ifnull_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Any, Param::Any], &[])?;
    unify(name, args)
}

fn nullif_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Any, Param::Any], &[])?;
    unify(name, args)?;
    Ok(match args.first() {
        Some(DataType::Null) | None => args.get(1).copied().unwrap_or(DataType::Null),
        Some(t) => *t,
    })
}

fn extreme_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_variadic(name, args, 1, Param::Any)?;
    unify(name, args)
}

fn hex_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Any], &[])?;
    Ok(DataType::Text(None))
}

fn to_hex_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Integer], &[])?;
    Ok(DataType::Text(None))
}

fn md5_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Bytes], &[])?;
    Ok(DataType::Text(None))
}

fn raise_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text], &[])?;
    Ok(DataType::Text(None))
}

fn collate_nocase_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text], &[])?;
    Ok(DataType::Text(None))
}

// ---- implementations ----

/// `collate_nocase(s)`: `s` with A–Z folded to a–z and every other character kept, SQLite's
/// NOCASE collation key (deliberately not Unicode lower-casing, which SQLite does not do).
fn collate_nocase(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("collate_nocase", args, 1, 1)? {
        return Ok(Value::Null);
    }
    match args.first() {
        Some(Value::Text(s)) => Ok(Value::Text(s.to_ascii_lowercase())),
        _ => Err(TypeError::undefined_function("collate_nocase", args)),
    }
}

/// `RAISE(ABORT, message)`: always an error carrying the message (an empty one for NULL).
fn raise(args: &[Value]) -> Result<Value, TypeError> {
    match args {
        [Value::Text(message)] => Err(TypeError::RaiseException(message.clone())),
        [Value::Null] => Err(TypeError::RaiseException(String::new())),
        _ => Err(TypeError::undefined_function("raise", args)),
    }
}

/// `typeof(x)`: the SQL type name of the value, `'null'` for NULL.
fn type_of(args: &[Value]) -> Result<Value, TypeError> {
    match args {
        [Value::Null] => Ok(Value::Text("null".to_owned())),
        [value] => Ok(Value::Text(value.data_type().name().to_owned())),
        _ => Err(TypeError::undefined_function("typeof", args)),
    }
}

/// Converts a chosen argument to the common type of all arguments' values.
fn to_common(chosen: &Value, args: &[Value], what: &str) -> Result<Value, TypeError> {
    let types: Vec<DataType> = args.iter().map(Value::data_type).collect();
    let target = unify(what, &types)?;
    cast(chosen, target)
}

/// `ifnull(a, b)`: `a` unless it is NULL, then `b`.
fn ifnull(args: &[Value]) -> Result<Value, TypeError> {
    match args {
        [a, b] => to_common(if a.is_null() { b } else { a }, args, "IFNULL"),
        _ => Err(TypeError::undefined_function("ifnull", args)),
    }
}

/// `nullif(a, b)`: NULL when `a = b`, otherwise `a` (also when `b` is NULL).
fn nullif(args: &[Value]) -> Result<Value, TypeError> {
    match args {
        [a, b] => match compare(a, b)? {
            Some(std::cmp::Ordering::Equal) => Ok(Value::Null),
            _ => Ok(a.clone()),
        },
        _ => Err(TypeError::undefined_function("nullif", args)),
    }
}

fn extreme(name: &str, args: &[Value], want: std::cmp::Ordering) -> Result<Value, TypeError> {
    if args.is_empty() {
        return Err(TypeError::undefined_function(name, args));
    }
    let mut best: Option<&Value> = None;
    for value in args.iter().filter(|v| !v.is_null()) {
        best = match best {
            None => Some(value),
            Some(current) => {
                // Errors for incomparable types, which the common-type check below would
                // report anyway.
                compare(value, current)?;
                Some(if sort_cmp(value, current) == want {
                    value
                } else {
                    current
                })
            }
        };
    }
    match best {
        Some(value) => to_common(value, args, "GREATEST/LEAST"),
        None => Ok(Value::Null),
    }
}

/// `greatest(a, ...)`: the largest non-NULL argument.
fn greatest(args: &[Value]) -> Result<Value, TypeError> {
    extreme("greatest", args, std::cmp::Ordering::Greater)
}

/// `least(a, ...)`: the smallest non-NULL argument.
fn least(args: &[Value]) -> Result<Value, TypeError> {
    extreme("least", args, std::cmp::Ordering::Less)
}

/// SQLite's `hex(x)`: upper-case hex of a blob's bytes, or of the UTF-8 bytes of any other
/// value's text form.
fn hex(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("hex", args, 1, 1)? {
        return Ok(Value::Null);
    }
    Ok(Value::Text(match args.first() {
        Some(Value::Blob(bytes)) => upper_hex(bytes),
        Some(value) => upper_hex(text_form(value).as_bytes()),
        None => return Err(TypeError::undefined_function("hex", args)),
    }))
}

/// PostgreSQL's `to_hex(n)`: lower-case hex; negative numbers as 64-bit two's complement.
fn to_hex(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("to_hex", args, 1, 1)? {
        return Ok(Value::Null);
    }
    let n = int_arg("to_hex", args, 0)?;
    Ok(Value::Text(format!("{:x}", n.cast_unsigned())))
}

/// `md5(s)`: the MD5 digest of the text's UTF-8 bytes (or a blob's bytes) as 32 lower-case
/// hex digits.
fn md5(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("md5", args, 1, 1)? {
        return Ok(Value::Null);
    }
    let digest = Md5::digest(bytes_arg("md5", args, 0)?);
    Ok(Value::Text(
        digest.iter().map(|b| format!("{b:02x}")).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, i, r, t};
    use crate::types::Value;

    #[test]
    fn misc_functions() {
        let null = Value::Null;
        let cases: Vec<(&str, Vec<Value>, Result<Value, &str>)> = vec![
            ("typeof", vec![null.clone()], Ok(t("null"))),
            ("typeof", vec![i(1)], Ok(t("integer"))),
            ("typeof", vec![r(1.0)], Ok(t("real"))),
            ("typeof", vec![t("")], Ok(t("text"))),
            ("typeof", vec![Value::Blob(vec![])], Ok(t("blob"))),
            ("typeof", vec![Value::Boolean(true)], Ok(t("boolean"))),
            ("typeof", vec![Value::Date(0)], Ok(t("date"))),
            ("typeof", vec![Value::Timestamp(0)], Ok(t("timestamp"))),
            ("typeof", vec![], Err("42883")),
            ("ifnull", vec![null.clone(), i(2)], Ok(i(2))),
            ("ifnull", vec![i(1), i(2)], Ok(i(1))),
            ("ifnull", vec![i(1), r(2.5)], Ok(r(1.0))),
            ("ifnull", vec![null.clone(), null.clone()], Ok(null.clone())),
            ("ifnull", vec![i(1), t("x")], Err("42804")),
            ("nullif", vec![i(1), i(1)], Ok(null.clone())),
            ("nullif", vec![i(1), r(1.0)], Ok(null.clone())),
            ("nullif", vec![i(1), i(2)], Ok(i(1))),
            ("nullif", vec![i(1), null.clone()], Ok(i(1))),
            ("nullif", vec![null.clone(), i(1)], Ok(null.clone())),
            ("nullif", vec![i(1), t("1")], Err("42883")),
            ("greatest", vec![i(1), i(3), i(2)], Ok(i(3))),
            ("greatest", vec![i(1), null.clone(), i(2)], Ok(i(2))),
            (
                "greatest",
                vec![null.clone(), null.clone()],
                Ok(null.clone()),
            ),
            ("greatest", vec![i(3), r(2.5)], Ok(r(3.0))),
            ("greatest", vec![t("b"), t("ab")], Ok(t("b"))),
            (
                "greatest",
                vec![Value::Date(1), Value::Timestamp(1)],
                Ok(Value::Timestamp(86_400_000_000)),
            ),
            ("greatest", vec![i(1), t("b")], Err("42883")),
            ("greatest", vec![], Err("42883")),
            ("least", vec![i(1), i(3), null.clone()], Ok(i(1))),
            ("least", vec![r(f64::NAN), r(1.0)], Ok(r(1.0))),
            ("hex", vec![Value::Blob(vec![0xab, 0x01])], Ok(t("AB01"))),
            ("hex", vec![t("é")], Ok(t("C3A9"))),
            ("hex", vec![i(255)], Ok(t("323535"))),
            ("hex", vec![null.clone()], Ok(null.clone())),
            ("to_hex", vec![i(255)], Ok(t("ff"))),
            ("to_hex", vec![i(-1)], Ok(t("ffffffffffffffff"))),
            (
                "md5",
                vec![t("")],
                Ok(t("d41d8cd98f00b204e9800998ecf8427e")),
            ),
            (
                "md5",
                vec![t("abc")],
                Ok(t("900150983cd24fb0d6963f7d28e17f72")),
            ),
            (
                "md5",
                vec![Value::Blob(b"abc".to_vec())],
                Ok(t("900150983cd24fb0d6963f7d28e17f72")),
            ),
            ("md5", vec![i(1)], Err("42883")),
        ];
        for (name, args, expected) in cases {
            assert_eq!(call(name, &args), expected, "{name}{args:?}");
        }
    }
}
