//! `overlay(s PLACING t FROM start [FOR count])`: replaces `count` characters (bytes for a
//! blob) of `s` from position `start` with `t`; `count` defaults to t's length. The binder
//! turns the SQL-standard syntax into a call of this function, which can also be called as
//! `overlay(s, t, start[, count])` as in PostgreSQL.
//!
//! It is PostgreSQL's definition, `substr(s, 1, start - 1) || t || substr(s, start + count)`,
//! with its errors: a start below 1 is 22011 ("negative substring length not allowed"), and a
//! negative count is allowed (the tail then starts before `start`, repeating part of `s`).

use super::string::substr;
use super::{Param, ScalarFunction, check_args, int_arg, strict_nulls};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[function!("overlay", overlay_type, overlay)];

/// `overlay(text, text, integer[, integer])` is text, the blob form is a blob.
fn overlay_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(
        name,
        args,
        &[Param::Bytes, Param::Bytes, Param::Integer],
        &[Param::Integer],
    )?;
    let blob = |i: usize| args.get(i) == Some(&DataType::Blob);
    if blob(0) != blob(1) && !args.iter().take(2).any(|t| *t == DataType::Null) {
        return Err(TypeError::undefined_signature(name, args));
    }
    Ok(if blob(0) || blob(1) {
        DataType::Blob
    } else {
        DataType::Text(None)
    })
}

fn overlay(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("overlay", args, 3, 4)? {
        return Ok(Value::Null);
    }
    let start = int_arg("overlay", args, 2)?;
    if start < 1 {
        return Err(TypeError::NegativeSubstringLength);
    }
    let count = match (args.get(3), args.get(1)) {
        (Some(_), _) => int_arg("overlay", args, 3)?,
        (None, Some(Value::Text(t))) => i64::try_from(t.chars().count()).unwrap_or(i64::MAX),
        (None, Some(Value::Blob(t))) => i64::try_from(t.len()).unwrap_or(i64::MAX),
        _ => return Err(TypeError::undefined_function("overlay", args)),
    };
    let after = start
        .checked_add(count)
        .ok_or_else(TypeError::integer_overflow)?;
    let (Some(s), Some(t)) = (args.first(), args.get(1)) else {
        return Err(TypeError::undefined_function("overlay", args));
    };
    let head = substr(&[s.clone(), Value::Integer(1), Value::Integer(start - 1)])?;
    let tail = substr(&[s.clone(), Value::Integer(after)])?;
    match (head, t, tail) {
        (Value::Text(head), Value::Text(t), Value::Text(tail)) => {
            Ok(Value::Text(format!("{head}{t}{tail}")))
        }
        (Value::Blob(mut head), Value::Blob(t), Value::Blob(tail)) => {
            head.extend_from_slice(t);
            head.extend_from_slice(&tail);
            Ok(Value::Blob(head))
        }
        _ => Err(TypeError::undefined_function("overlay", args)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, i};
    use crate::types::Value;

    fn t(s: &str) -> Value {
        Value::Text(s.to_owned())
    }

    #[test]
    fn overlay_follows_postgres() {
        let cases: Vec<(Vec<Value>, Result<Value, &str>)> = vec![
            (vec![t("Txxxxas"), t("hom"), i(2), i(4)], Ok(t("Thomas"))),
            (vec![t("abcdef"), t("XY"), i(3)], Ok(t("abXYef"))),
            (vec![t("abc"), t("XY"), i(5)], Ok(t("abcXY"))),
            (vec![t("abcdef"), t("XY"), i(2), i(0)], Ok(t("aXYbcdef"))),
            (vec![t("abcdef"), t("XY"), i(2), i(-1)], Ok(t("aXYabcdef"))),
            (vec![t("abcdef"), t("XY"), i(2), i(10)], Ok(t("aXY"))),
            (vec![t("ñandú"), t("é"), i(2)], Ok(t("ñéndú"))),
            (vec![t("abc"), t("XY"), i(0)], Err("22011")),
            (vec![t("abc"), t("XY"), i(2), i(i64::MAX)], Err("22003")),
            (
                vec![Value::Blob(vec![1, 2, 3]), Value::Blob(vec![9]), i(2)],
                Ok(Value::Blob(vec![1, 9, 3])),
            ),
            (vec![Value::Null, t("XY"), i(2)], Ok(Value::Null)),
        ];
        for (args, expected) in cases {
            assert_eq!(call("overlay", &args), expected, "overlay{args:?}");
        }
    }
}
