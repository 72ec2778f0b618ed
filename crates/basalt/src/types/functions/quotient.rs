//! Exact integer quotients and divisors: `div(a, b)`, `gcd(a, b)`, `lcm(a, b)`.
//!
//! PostgreSQL defines `div` only on NUMERIC (integers are cast to it) and `gcd`/`lcm` on
//! integers and NUMERIC. Here integer arguments give an integer result (PostgreSQL's
//! `div(7, 2)` is the NUMERIC 3, the same number), NUMERIC arguments to `div` an exact
//! NUMERIC of scale 0 (`types::numeric::div_integer`), and a double argument (and, for
//! `gcd`/`lcm`, a NUMERIC one, converted) is taken at its shortest decimal representation
//! (what it prints as), so that `div(0.3::float8, 0.1::float8)` is 3 and `gcd(0.25, 0.1)` is
//! 0.05 as with NUMERIC, not what binary doubles would give. When the two arguments' decimal
//! exponents are too far apart to line up in 128 bits, `div` falls back to truncating the
//! double quotient. What still differs from PostgreSQL: `div(-9223372036854775808, -1)`
//! overflows (22003) instead of giving the NUMERIC 9223372036854775808; REAL quotients and
//! divisors are doubles, so a quotient beyond 2^53 is approximate and one beyond the double
//! range (`div(1e300, 1e-300)`) is 22003; `gcd`/`lcm` of REALs whose exponents are too far
//! apart to line up in 128 bits is 22003.
//!
//! Infinities and NaN follow PostgreSQL's NUMERIC: `div` by zero is 22012 whatever the
//! dividend, NaN in is NaN out, `div(±Infinity, b)` is ±Infinity (sign of b applied),
//! `div(a, ±Infinity)` is 0, and `gcd`/`lcm` of an infinity or NaN are NaN.

use super::{Param, ScalarFunction, check_args, int_arg, real_arg, strict_nulls};
use crate::types::format::shortest_digits;
use crate::types::numeric::{self, Numeric};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("div", integer_or_real, div),
    function!("gcd", integer_else_real, gcd),
    function!("lcm", integer_else_real, lcm),
];

/// Integer when both arguments are integers, numeric when they are integers and numerics,
/// otherwise real.
fn integer_or_real(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Number, Param::Number], &[])?;
    Ok(if args.iter().all(|t| *t == DataType::Integer) {
        DataType::Integer
    } else if args
        .iter()
        .all(|t| matches!(t, DataType::Integer | DataType::Numeric(_)))
    {
        DataType::Numeric(None)
    } else {
        DataType::Real
    })
}

/// Integer when both arguments are integers, otherwise real (`gcd` and `lcm` of NUMERICs
/// compute on their nearest doubles).
fn integer_else_real(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Number, Param::Number], &[])?;
    Ok(if args.iter().all(|t| *t == DataType::Integer) {
        DataType::Integer
    } else {
        DataType::Real
    })
}

/// Both arguments as integers, or `None` when either is a real.
fn integers(name: &str, args: &[Value]) -> Result<Option<(i64, i64)>, TypeError> {
    if matches!(args, [Value::Integer(_), Value::Integer(_)]) {
        Ok(Some((int_arg(name, args, 0)?, int_arg(name, args, 1)?)))
    } else {
        Ok(None)
    }
}

/// The decimal digits of a finite double as an integer mantissa and a power of ten:
/// `x = mantissa * 10^exponent`.
fn decimal(x: f64) -> (i128, i32) {
    if x == 0.0 {
        return (0, 0);
    }
    let (negative, digits, first) = shortest_digits(x);
    // At most 17 digits, so this always fits.
    let mantissa: i128 = digits.parse().unwrap_or(0);
    let len = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    let exponent = first - (len - 1);
    (if negative { -mantissa } else { mantissa }, exponent)
}

/// Two finite doubles as integers at a common power of ten, `a = x * 10^e`, `b = y * 10^e`;
/// `None` when lining them up does not fit in an i128.
fn common_scale(a: f64, b: f64) -> Option<(i128, i128, i32)> {
    let (ma, ea) = decimal(a);
    let (mb, eb) = decimal(b);
    let scale = |m: i128, by: i32| -> Option<i128> {
        10i128
            .checked_pow(u32::try_from(by).ok()?)
            .and_then(|p| m.checked_mul(p))
    };
    let e = ea.min(eb);
    Some((scale(ma, ea - e)?, scale(mb, eb - e)?, e))
}

/// `x * 10^e` as a double, through its decimal text so it rounds once.
fn from_decimal(x: i128, e: i32) -> Result<f64, TypeError> {
    format!("{x}e{e}")
        .parse()
        .map_err(|_| TypeError::real_overflow())
}

/// `div(a, b)`: the quotient a / b truncated toward zero.
fn div(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("div", args, 2, 2)? {
        return Ok(Value::Null);
    }
    if let Some((a, b)) = integers("div", args)? {
        if b == 0 {
            return Err(TypeError::DivisionByZero);
        }
        return a
            .checked_div(b)
            .map(Value::Integer)
            .ok_or_else(TypeError::integer_overflow);
    }
    let exact = |value: &Value| match value {
        Value::Numeric(n) => Some(*n),
        Value::Integer(i) => Some(Numeric::from_i64(*i)),
        _ => None,
    };
    if let [a, b] = args
        && let (Some(a), Some(b)) = (exact(a), exact(b))
    {
        return numeric::div_integer(a, b).map(Value::Numeric);
    }
    let a = real_arg("div", args, 0)?;
    let b = real_arg("div", args, 1)?;
    if b == 0.0 {
        return Err(TypeError::DivisionByZero);
    }
    if a.is_nan() || b.is_nan() || (a.is_infinite() && b.is_infinite()) {
        return Ok(Value::Real(f64::NAN));
    }
    if a.is_infinite() {
        return Ok(Value::Real(a * b.signum()));
    }
    if b.is_infinite() {
        return Ok(Value::Real(0.0));
    }
    let quotient = match common_scale(a, b) {
        Some((x, y, _)) => from_decimal(x / y, 0)?,
        None => (a / b).trunc(),
    };
    if quotient.is_infinite() {
        return Err(TypeError::real_overflow());
    }
    // NUMERIC has no negative zero.
    Ok(Value::Real(quotient + 0.0))
}

/// Euclid's algorithm on magnitudes; the result is non-negative.
fn gcd_u128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Both reals at a common decimal scale; `None` when either is infinite or NaN (the result
/// is then NaN, as PostgreSQL's NUMERIC gcd and lcm give).
fn real_pair(name: &str, args: &[Value]) -> Result<Option<(i128, i128, i32)>, TypeError> {
    let a = real_arg(name, args, 0)?;
    let b = real_arg(name, args, 1)?;
    if !a.is_finite() || !b.is_finite() {
        return Ok(None);
    }
    common_scale(a, b)
        .map(Some)
        .ok_or_else(TypeError::real_overflow)
}

/// `gcd(a, b)`: the greatest common divisor, non-negative; `gcd(0, 0)` is 0.
fn gcd(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("gcd", args, 2, 2)? {
        return Ok(Value::Null);
    }
    if let Some((a, b)) = integers("gcd", args)? {
        let g = gcd_u128(u128::from(a.unsigned_abs()), u128::from(b.unsigned_abs()));
        // Only gcd(i64::MIN, 0) and gcd(i64::MIN, i64::MIN) reach 2^63.
        return i64::try_from(g)
            .map(Value::Integer)
            .map_err(|_| TypeError::integer_overflow());
    }
    let Some((x, y, e)) = real_pair("gcd", args)? else {
        return Ok(Value::Real(f64::NAN));
    };
    let g = gcd_u128(x.unsigned_abs(), y.unsigned_abs());
    let g = i128::try_from(g).map_err(|_| TypeError::real_overflow())?;
    Ok(Value::Real(from_decimal(g, e)?))
}

/// `lcm(a, b)`: the least common multiple, non-negative; 0 when either is 0.
fn lcm(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("lcm", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (x, y, e, integer) = match integers("lcm", args)? {
        Some((a, b)) => (i128::from(a), i128::from(b), 0, true),
        None => {
            let Some((x, y, e)) = real_pair("lcm", args)? else {
                return Ok(Value::Real(f64::NAN));
            };
            (x, y, e, false)
        }
    };
    let (x, y) = (x.unsigned_abs(), y.unsigned_abs());
    let l = if x == 0 || y == 0 {
        Some(0)
    } else {
        (x / gcd_u128(x, y)).checked_mul(y)
    };
    let l = l.and_then(|l| i128::try_from(l).ok());
    if integer {
        return l
            .and_then(|l| i64::try_from(l).ok())
            .map(Value::Integer)
            .ok_or_else(TypeError::integer_overflow);
    }
    let l = l.ok_or_else(TypeError::real_overflow)?;
    Ok(Value::Real(from_decimal(l, e)?))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, i, r};
    use crate::types::Value;

    #[test]
    fn quotients_and_divisors_follow_postgres() {
        let null = Value::Null;
        let cases: Vec<(&str, Vec<Value>, Result<Value, &str>)> = vec![
            ("div", vec![i(7), i(2)], Ok(i(3))),
            ("div", vec![i(-7), i(2)], Ok(i(-3))),
            ("div", vec![i(7), i(0)], Err("22012")),
            ("div", vec![i(i64::MIN), i(-1)], Err("22003")),
            ("div", vec![r(0.3), r(0.1)], Ok(r(3.0))),
            ("div", vec![r(-7.5), i(2)], Ok(r(-3.0))),
            ("div", vec![r(-0.5), i(1)], Ok(r(0.0))),
            ("div", vec![r(1e30), i(7)], Ok(r(1.4285714285714286e29))),
            ("div", vec![r(1e300), r(1e-300)], Err("22003")),
            ("div", vec![r(1.5), r(0.0)], Err("22012")),
            (
                "div",
                vec![r(f64::INFINITY), i(-1)],
                Ok(r(f64::NEG_INFINITY)),
            ),
            ("div", vec![i(1), r(f64::INFINITY)], Ok(r(0.0))),
            ("div", vec![r(f64::NAN), i(1)], Ok(r(f64::NAN))),
            ("div", vec![null.clone(), i(0)], Ok(null.clone())),
            ("gcd", vec![i(12), i(-18)], Ok(i(6))),
            ("gcd", vec![i(0), i(0)], Ok(i(0))),
            ("gcd", vec![i(i64::MIN), i(0)], Err("22003")),
            ("gcd", vec![i(i64::MIN), i(2)], Ok(i(2))),
            ("gcd", vec![r(0.25), r(0.1)], Ok(r(0.05))),
            ("gcd", vec![r(-0.6), r(0.4)], Ok(r(0.2))),
            ("lcm", vec![i(-4), i(6)], Ok(i(12))),
            ("lcm", vec![i(0), i(5)], Ok(i(0))),
            ("lcm", vec![i(i64::MAX), i(2)], Err("22003")),
            ("lcm", vec![r(1.5), i(2)], Ok(r(6.0))),
            ("lcm", vec![r(f64::INFINITY), i(2)], Ok(r(f64::NAN))),
            ("lcm", vec![i(1)], Err("42883")),
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
