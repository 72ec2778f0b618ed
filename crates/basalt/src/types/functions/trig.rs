//! Double-precision functions from PostgreSQL's "Mathematical Functions" and "Trigonometric
//! Functions" tables: cbrt, degrees, radians, sin, cos, tan, cot, asin, acos, atan, atan2,
//! sinh, cosh, tanh, asinh, acosh, atanh.
//!
//! They follow PostgreSQL's float8 versions (float.c) rather than the bare libm calls, since
//! the two differ at the edges: an infinite argument to sin/cos/tan/cot, an argument of
//! asin/acos outside [-1, 1], of acosh below 1 or of atanh outside [-1, 1] is 22003 "input
//! is out of range"; NaN arguments give NaN; `cot(0)` is Infinity (PostgreSQL does not
//! check it), and sinh/cosh overflow to ±Infinity rather than erroring, as PostgreSQL's do.
//! `degrees`/`radians` divide and multiply by PostgreSQL's own constant, so `degrees(pi())`
//! is exactly 180 there as here.
//!
//! The degree-based variants (sind, cosd, ...) are not here: PostgreSQL computes them with
//! an exactness-preserving argument reduction this module does not reproduce.

use super::{Param, ScalarFunction, check_args, real_arg, strict_nulls};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("cbrt", real_1, cbrt),
    function!("degrees", real_1, degrees),
    function!("radians", real_1, radians),
    function!("sin", real_1, sin),
    function!("cos", real_1, cos),
    function!("tan", real_1, tan),
    function!("cot", real_1, cot),
    function!("asin", real_1, asin),
    function!("acos", real_1, acos),
    function!("atan", real_1, atan),
    function!("atan2", real_2, atan2),
    function!("sinh", real_1, sinh),
    function!("cosh", real_1, cosh),
    function!("tanh", real_1, tanh),
    function!("asinh", real_1, asinh),
    function!("acosh", real_1, acosh),
    function!("atanh", real_1, atanh),
];

/// PostgreSQL's `RADIANS_PER_DEGREE` (float.h), spelled with its digits so that
/// `degrees`/`radians` round exactly as PostgreSQL's do.
#[allow(
    clippy::excessive_precision,
    reason = "the digits are float.h's, kept as PostgreSQL spells them"
)]
const RADIANS_PER_DEGREE: f64 = 0.0174532925199432957692;

fn real_1(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Number], &[])?;
    Ok(DataType::Real)
}

fn real_2(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Number, Param::Number], &[])?;
    Ok(DataType::Real)
}

/// PostgreSQL's "input is out of range" (22003).
fn out_of_range() -> TypeError {
    TypeError::OutOfRange("input is out of range".to_owned())
}

/// Applies `f` to the single argument (NULL in, NULL out), rejecting arguments where
/// `in_domain` is false (NaN always passes: it yields NaN, as in PostgreSQL).
fn unary(
    name: &str,
    args: &[Value],
    in_domain: fn(f64) -> bool,
    f: fn(f64) -> f64,
) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 1, 1)? {
        return Ok(Value::Null);
    }
    let x = real_arg(name, args, 0)?;
    if x.is_nan() {
        return Ok(Value::Real(f64::NAN));
    }
    if !in_domain(x) {
        return Err(out_of_range());
    }
    Ok(Value::Real(f(x)))
}

/// Checks a result for overflow from finite input, as PostgreSQL's float8 arithmetic does.
fn finite_result(x: f64, result: f64) -> Result<Value, TypeError> {
    if x.is_finite() && result.is_infinite() {
        return Err(TypeError::real_overflow());
    }
    Ok(Value::Real(result))
}

fn any(_: f64) -> bool {
    true
}

fn finite(x: f64) -> bool {
    x.is_finite()
}

fn unit_interval(x: f64) -> bool {
    (-1.0..=1.0).contains(&x)
}

fn cbrt(args: &[Value]) -> Result<Value, TypeError> {
    unary("cbrt", args, any, f64::cbrt)
}

fn degrees(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("degrees", args, 1, 1)? {
        return Ok(Value::Null);
    }
    let x = real_arg("degrees", args, 0)?;
    let result = x / RADIANS_PER_DEGREE;
    if x != 0.0 && result == 0.0 {
        return Err(TypeError::real_overflow());
    }
    finite_result(x, result)
}

fn radians(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("radians", args, 1, 1)? {
        return Ok(Value::Null);
    }
    let x = real_arg("radians", args, 0)?;
    let result = x * RADIANS_PER_DEGREE;
    if x != 0.0 && result == 0.0 {
        return Err(TypeError::real_overflow());
    }
    finite_result(x, result)
}

fn sin(args: &[Value]) -> Result<Value, TypeError> {
    unary("sin", args, finite, f64::sin)
}

fn cos(args: &[Value]) -> Result<Value, TypeError> {
    unary("cos", args, finite, f64::cos)
}

fn tan(args: &[Value]) -> Result<Value, TypeError> {
    unary("tan", args, finite, f64::tan)
}

/// `1 / tan(x)`; `cot(0)` is Infinity, which PostgreSQL leaves unchecked too.
fn cot(args: &[Value]) -> Result<Value, TypeError> {
    unary("cot", args, finite, |x| 1.0 / x.tan())
}

fn asin(args: &[Value]) -> Result<Value, TypeError> {
    unary("asin", args, unit_interval, f64::asin)
}

fn acos(args: &[Value]) -> Result<Value, TypeError> {
    unary("acos", args, unit_interval, f64::acos)
}

fn atan(args: &[Value]) -> Result<Value, TypeError> {
    unary("atan", args, any, f64::atan)
}

fn atan2(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("atan2", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let y = real_arg("atan2", args, 0)?;
    let x = real_arg("atan2", args, 1)?;
    Ok(Value::Real(y.atan2(x)))
}

/// Overflows to ±Infinity, as PostgreSQL's dsinh does.
fn sinh(args: &[Value]) -> Result<Value, TypeError> {
    unary("sinh", args, any, f64::sinh)
}

/// Overflows to Infinity, as PostgreSQL's dcosh does.
fn cosh(args: &[Value]) -> Result<Value, TypeError> {
    unary("cosh", args, any, f64::cosh)
}

fn tanh(args: &[Value]) -> Result<Value, TypeError> {
    unary("tanh", args, any, f64::tanh)
}

fn asinh(args: &[Value]) -> Result<Value, TypeError> {
    unary("asinh", args, any, f64::asinh)
}

fn acosh(args: &[Value]) -> Result<Value, TypeError> {
    unary("acosh", args, |x| x >= 1.0, f64::acosh)
}

/// `atanh(±1)` is ±Infinity, as in PostgreSQL.
fn atanh(args: &[Value]) -> Result<Value, TypeError> {
    unary("atanh", args, unit_interval, f64::atanh)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, i, r};
    use crate::types::Value;

    #[test]
    fn edges_follow_postgres() {
        let null = Value::Null;
        let cases: Vec<(&str, Vec<Value>, Result<Value, &str>)> = vec![
            ("cbrt", vec![i(-8)], Ok(r(-2.0))),
            ("degrees", vec![r(std::f64::consts::PI)], Ok(r(180.0))),
            ("radians", vec![i(180)], Ok(r(std::f64::consts::PI))),
            ("degrees", vec![r(f64::MAX)], Err("22003")),
            ("sin", vec![r(f64::INFINITY)], Err("22003")),
            ("sin", vec![r(f64::NAN)], Ok(r(f64::NAN))),
            ("cot", vec![i(0)], Ok(r(f64::INFINITY))),
            ("asin", vec![i(2)], Err("22003")),
            ("acos", vec![i(1)], Ok(r(0.0))),
            ("acosh", vec![r(0.5)], Err("22003")),
            ("atanh", vec![i(1)], Ok(r(f64::INFINITY))),
            ("atanh", vec![i(2)], Err("22003")),
            ("sinh", vec![i(1000)], Ok(r(f64::INFINITY))),
            ("sinh", vec![i(-1000)], Ok(r(f64::NEG_INFINITY))),
            ("atan2", vec![i(1), null.clone()], Ok(null.clone())),
            ("atan2", vec![i(1)], Err("42883")),
            ("sin", vec![Value::Text("1".into())], Err("42883")),
        ];
        for (name, args, expected) in cases {
            let got = call(name, &args);
            let same = match (&got, &expected) {
                (Ok(Value::Real(a)), Ok(Value::Real(b))) => (a.is_nan() && b.is_nan()) || a == b,
                _ => got == expected,
            };
            assert!(same, "{name}{args:?}: got {got:?}, expected {expected:?}");
        }
    }
}
