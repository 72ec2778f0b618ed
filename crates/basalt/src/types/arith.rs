//! Arithmetic, string concatenation and bitwise operators on single values.
//!
//! The executor calls these for `+ - * / %`, unary `-`/`+`, `||`, and `& | # ~ << >>` when it
//! evaluates row at a time or folds constants; its vectorised kernels must agree with them.
//! The binder has already checked operand types, but every function here still checks and
//! reports [`TypeError::UndefinedOperator`] (42883) rather than assume.
//!
//! Semantics follow PostgreSQL:
//! * NULL in, NULL out (for every operator, including `||`);
//! * integer ⊕ integer is an integer, with overflow an error (22003); division truncates
//!   toward zero; `%` takes the sign of the dividend; division or remainder by zero is an
//!   error (22012) for integers *and* reals;
//! * integer ⊕ real is real; real results that overflow to infinity from finite operands,
//!   or underflow to zero from non-zero operands, are errors (22003), as PostgreSQL's float8
//!   operators do;
//! * date + integer and integer + date add days; date − integer subtracts days; date − date
//!   is the number of days between them;
//! * timestamp ± interval and date ± interval are timestamps (see
//!   [`super::interval::add_to_timestamp`]), interval + timestamp or date too; timestamp −
//!   timestamp (a date standing for its midnight) is an interval of days and time; interval
//!   ± interval adds field by field; interval × number, number × interval and interval ÷
//!   number scale it (fractions cascading down); unary minus negates every field. Results
//!   outside the range are 22008. [`temporal_result_type`] is the table of these operators
//!   the binder resolves against;
//! * timestamptz ± interval moves the session zone's calendar for months and days, then the
//!   instant for the time part; timestamptz − timestamptz (or a timestamp or date read in the
//!   session zone) is an interval (see [`super::timezone`]);
//! * numeric ⊕ numeric (an integer operand converted exactly) is numeric, exact as
//!   [`super::numeric`] defines it; numeric ⊕ real is real;
//! * `||` concatenates text with the text form of any other value, and blob with blob.

use super::cast::text_form;
use super::datetime::{date_from_days, date_to_timestamp};
use super::interval::{Interval, add_to_timestamp, subtract_from_timestamp, timestamp_difference};
use super::numeric::{self, Numeric};
use super::{DataType, TypeError, Value};

/// The result type of `left op right` when it is one of the date/time operators on
/// timestamps, dates and intervals (`op` is `+ - * /`); `None` when it is not one of them
/// (date ± integer and date − date are the caller's numeric-style rules).
pub fn temporal_result_type(op: &str, left: DataType, right: DataType) -> Option<DataType> {
    use DataType::{Date, Integer, Interval, Real, Time, Timestamp, TimestampTz};
    match (op, left, right) {
        ("+" | "-", Time(_), Interval) | ("+", Interval, Time(_)) => Some(Time(None)),
        ("-", Time(_), Time(_)) => Some(Interval),
        ("+", Date, Time(_)) | ("+", Time(_), Date) => Some(Timestamp),
        ("+", TimestampTz, Interval) | ("+", Interval, TimestampTz) => Some(TimestampTz),
        ("-", TimestampTz, Interval) => Some(TimestampTz),
        ("-", TimestampTz, TimestampTz | Timestamp | Date)
        | ("-", Timestamp | Date, TimestampTz) => Some(Interval),
        ("+", Timestamp | Date, Interval) | ("+", Interval, Timestamp | Date) => Some(Timestamp),
        ("-", Timestamp | Date, Interval) => Some(Timestamp),
        ("-", Timestamp, Timestamp | Date) | ("-", Date, Timestamp) => Some(Interval),
        ("+" | "-", Interval, Interval) => Some(Interval),
        ("*", Interval, Integer | Real | DataType::Numeric(_))
        | ("*", Integer | Real | DataType::Numeric(_), Interval) => Some(Interval),
        ("/", Interval, Integer | Real | DataType::Numeric(_)) => Some(Interval),
        _ => None,
    }
}

/// A timestamp or a date's midnight, for the mixed date/timestamp operators.
fn instant(value: &Value) -> Option<Result<i64, TypeError>> {
    match value {
        Value::Timestamp(micros) => Some(Ok(*micros)),
        Value::Date(days) => Some(date_to_timestamp(*days)),
        _ => None,
    }
}

/// A number as the factor of an interval product or quotient.
fn factor(value: &Value) -> Option<f64> {
    match value {
        Value::Integer(n) => Some(*n as f64),
        Value::Real(r) => Some(*r),
        Value::Numeric(n) => Some(n.to_f64()),
        _ => None,
    }
}

/// `a + b` for the date/time operators, `None` when the operands are not theirs.
fn add_temporal(a: &Value, b: &Value) -> Option<Result<Value, TypeError>> {
    let (point, interval) = match (a, b) {
        // time + interval wraps around midnight; date + time is that date's timestamp.
        (Value::Time(time), Value::Interval(interval))
        | (Value::Interval(interval), Value::Time(time)) => {
            return Some(Ok(Value::Time(super::time::add_interval(*time, *interval))));
        }
        (Value::Date(days), Value::Time(time)) | (Value::Time(time), Value::Date(days)) => {
            return Some(
                date_to_timestamp(*days)
                    .and_then(|midnight| {
                        midnight
                            .checked_add(*time)
                            .ok_or(TypeError::DatetimeOutOfRange {
                                type_name: "timestamp",
                            })
                    })
                    .map(Value::Timestamp),
            );
        }
        (Value::Interval(x), Value::Interval(y)) => {
            return Some(x.checked_add(*y).map(Value::Interval));
        }
        (Value::TimestampTz(utc), Value::Interval(interval))
        | (Value::Interval(interval), Value::TimestampTz(utc)) => {
            return Some(super::timezone::add_interval(*utc, *interval).map(Value::TimestampTz));
        }
        (point, Value::Interval(interval)) | (Value::Interval(interval), point) => {
            (instant(point)?, *interval)
        }
        _ => return None,
    };
    Some(point.and_then(|point| add_to_timestamp(point, interval).map(Value::Timestamp)))
}

/// `a - b` for the date/time operators, `None` when the operands are not theirs.
fn subtract_temporal(a: &Value, b: &Value) -> Option<Result<Value, TypeError>> {
    Some(match (a, b) {
        (Value::Interval(x), Value::Interval(y)) => x.checked_sub(*y).map(Value::Interval),
        (Value::Time(time), Value::Interval(interval)) => Ok(Value::Time(
            super::time::subtract_interval(*time, *interval),
        )),
        (Value::Time(later), Value::Time(earlier)) => {
            Ok(Value::Interval(super::time::difference(*later, *earlier)))
        }
        (Value::Time(_), _) | (_, Value::Time(_)) => return None,
        (Value::TimestampTz(utc), Value::Interval(interval)) => interval
            .checked_neg()
            .and_then(|negated| super::timezone::add_interval(*utc, negated))
            .map(Value::TimestampTz),
        // An instant minus an instant; a local time beside one is read in the session zone.
        (Value::TimestampTz(_), _) | (_, Value::TimestampTz(_)) => {
            let later = super::timezone::instant_of(a)?;
            let earlier = super::timezone::instant_of(b)?;
            later.and_then(|later| {
                earlier
                    .and_then(|earlier| timestamp_difference(later, earlier).map(Value::Interval))
            })
        }
        (point, Value::Interval(interval)) => instant(point)?
            .and_then(|point| subtract_from_timestamp(point, *interval).map(Value::Timestamp)),
        // date - date stays the integer rule.
        (Value::Date(_), Value::Date(_)) => return None,
        (later, earlier) => {
            let (later, earlier) = (instant(later)?, instant(earlier)?);
            later.and_then(|later| {
                earlier
                    .and_then(|earlier| timestamp_difference(later, earlier).map(Value::Interval))
            })
        }
    })
}

/// `interval * number` or `number * interval`.
fn multiply_interval(a: &Value, b: &Value) -> Option<Result<Value, TypeError>> {
    let (interval, factor) = match (a, b) {
        (Value::Interval(interval), number) | (number, Value::Interval(interval)) => {
            (*interval, factor(number)?)
        }
        _ => return None,
    };
    Some(interval.multiply(factor).map(Value::Interval))
}

/// `interval / number`.
fn divide_interval(a: &Value, b: &Value) -> Option<Result<Value, TypeError>> {
    let (Value::Interval(interval), divisor) = (a, b) else {
        return None;
    };
    Some(interval.divide(factor(divisor)?).map(Value::Interval))
}

/// `-interval`.
fn negate_interval(interval: Interval) -> Result<Value, TypeError> {
    interval.checked_neg().map(Value::Interval)
}

/// `a + b`.
pub fn add(a: &Value, b: &Value) -> Result<Value, TypeError> {
    if let Some(result) = numeric_op(a, b, numeric::add) {
        return result;
    }
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::Integer(x), Value::Integer(y)) => Value::Integer(checked(x.checked_add(*y))?),
        (Value::Date(d), Value::Integer(n)) | (Value::Integer(n), Value::Date(d)) => {
            Value::Date(date_from_days(i64::from(*d) + clamp_days(*n))?)
        }
        _ => match reals(a, b) {
            Some((x, y)) => Value::Real(check_real(x + y, x, y)?),
            None => add_temporal(a, b).ok_or_else(|| undefined("+", a, b))??,
        },
    })
}

/// `a - b`.
pub fn subtract(a: &Value, b: &Value) -> Result<Value, TypeError> {
    if let Some(result) = numeric_op(a, b, numeric::subtract) {
        return result;
    }
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::Integer(x), Value::Integer(y)) => Value::Integer(checked(x.checked_sub(*y))?),
        (Value::Date(d), Value::Integer(n)) => {
            Value::Date(date_from_days(i64::from(*d) - clamp_days(*n))?)
        }
        (Value::Date(x), Value::Date(y)) => Value::Integer(i64::from(*x) - i64::from(*y)),
        _ => match reals(a, b) {
            Some((x, y)) => Value::Real(check_real(x - y, x, y)?),
            None => subtract_temporal(a, b).ok_or_else(|| undefined("-", a, b))??,
        },
    })
}

/// `a * b`.
pub fn multiply(a: &Value, b: &Value) -> Result<Value, TypeError> {
    if let Some(result) = numeric_op(a, b, numeric::multiply) {
        return result;
    }
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::Integer(x), Value::Integer(y)) => Value::Integer(checked(x.checked_mul(*y))?),
        _ => match reals(a, b) {
            Some((x, y)) => {
                let product = check_real(x * y, x, y)?;
                if product == 0.0 && x != 0.0 && y != 0.0 {
                    return Err(TypeError::real_overflow());
                }
                Value::Real(product)
            }
            None => multiply_interval(a, b).ok_or_else(|| undefined("*", a, b))??,
        },
    })
}

/// `a / b`: integer division truncates toward zero; dividing by zero is an error.
pub fn divide(a: &Value, b: &Value) -> Result<Value, TypeError> {
    if let Some(result) = numeric_op(a, b, numeric::divide) {
        return result;
    }
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::Integer(_), Value::Integer(0)) => return Err(TypeError::DivisionByZero),
        // Only i64::MIN / -1 overflows.
        (Value::Integer(x), Value::Integer(y)) => Value::Integer(checked(x.checked_div(*y))?),
        _ => match reals(a, b) {
            Some((x, y)) => {
                if y == 0.0 {
                    return Err(TypeError::DivisionByZero);
                }
                let quotient = x / y;
                if quotient.is_infinite() && !x.is_infinite() {
                    return Err(TypeError::real_overflow());
                }
                if quotient == 0.0 && x != 0.0 && !y.is_infinite() {
                    return Err(TypeError::real_overflow());
                }
                Value::Real(quotient)
            }
            None => divide_interval(a, b).ok_or_else(|| undefined("/", a, b))??,
        },
    })
}

/// `a % b`: the remainder of truncating division, with the sign of `a`; by zero is an error.
///
/// PostgreSQL has `%` for integers and NUMERIC; reals get the same definition (`fmod`), a
/// leniency PostgreSQL's float8 does not have.
pub fn remainder(a: &Value, b: &Value) -> Result<Value, TypeError> {
    if let Some(result) = numeric_op(a, b, numeric::remainder) {
        return result;
    }
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::Integer(_), Value::Integer(0)) => return Err(TypeError::DivisionByZero),
        // i64::MIN % -1 is 0 mathematically; wrapping_rem gives exactly that.
        (Value::Integer(x), Value::Integer(y)) => Value::Integer(x.wrapping_rem(*y)),
        _ => match reals(a, b) {
            Some((x, y)) => {
                if y == 0.0 {
                    return Err(TypeError::DivisionByZero);
                }
                Value::Real(x % y)
            }
            None => return Err(undefined("%", a, b)),
        },
    })
}

/// Unary `-a`.
pub fn negate(a: &Value) -> Result<Value, TypeError> {
    Ok(match a {
        Value::Null => Value::Null,
        Value::Integer(x) => Value::Integer(checked(x.checked_neg())?),
        Value::Real(x) => Value::Real(-x),
        Value::Numeric(x) => Value::Numeric(x.negate()),
        Value::Interval(interval) => negate_interval(*interval)?,
        _ => return Err(undefined_prefix("-", a)),
    })
}

/// Unary `+a`: the number itself.
pub fn unary_plus(a: &Value) -> Result<Value, TypeError> {
    match a {
        Value::Null | Value::Integer(_) | Value::Real(_) | Value::Numeric(_) => Ok(a.clone()),
        _ => Err(undefined_prefix("+", a)),
    }
}

/// `a || b`: text concatenated with the text form of any non-NULL value (either side may be
/// the text), or blob with blob. NULL on either side gives NULL, as in PostgreSQL.
pub fn concat(a: &Value, b: &Value) -> Result<Value, TypeError> {
    Ok(match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Value::Null,
        (Value::Blob(x), Value::Blob(y)) => {
            let mut out = Vec::with_capacity(x.len().saturating_add(y.len()));
            out.extend_from_slice(x);
            out.extend_from_slice(y);
            Value::Blob(out)
        }
        (Value::Text(_), _) | (_, Value::Text(_)) => {
            let mut out = text_form(a);
            out.push_str(&text_form(b));
            Value::Text(out)
        }
        _ => return Err(undefined("||", a, b)),
    })
}

/// `a & b` on integers.
pub fn bit_and(a: &Value, b: &Value) -> Result<Value, TypeError> {
    integer_op("&", a, b, |x, y| Ok(x & y))
}

/// `a | b` on integers.
pub fn bit_or(a: &Value, b: &Value) -> Result<Value, TypeError> {
    integer_op("|", a, b, |x, y| Ok(x | y))
}

/// `a # b` (exclusive or) on integers.
pub fn bit_xor(a: &Value, b: &Value) -> Result<Value, TypeError> {
    integer_op("#", a, b, |x, y| Ok(x ^ y))
}

/// `~a` on an integer.
pub fn bit_not(a: &Value) -> Result<Value, TypeError> {
    match a {
        Value::Null => Ok(Value::Null),
        Value::Integer(x) => Ok(Value::Integer(!x)),
        _ => Err(undefined_prefix("~", a)),
    }
}

/// `a << n`: bits shifted out are lost (no overflow error, as in PostgreSQL); a count of 64
/// or more gives 0, and a negative count shifts right instead.
pub fn shift_left(a: &Value, n: &Value) -> Result<Value, TypeError> {
    integer_op("<<", a, n, |x, n| Ok(shift(x, n)))
}

/// `a >> n`: arithmetic (sign-extending) shift; a count of 64 or more gives 0 or −1, and a
/// negative count shifts left instead.
pub fn shift_right(a: &Value, n: &Value) -> Result<Value, TypeError> {
    integer_op(">>", a, n, |x, n| {
        Ok(shift(x, n.checked_neg().unwrap_or(i64::MAX)))
    })
}

/// Shifts left by `n` (right when negative), with counts past the width saturating.
fn shift(x: i64, n: i64) -> i64 {
    if n >= 0 {
        u32::try_from(n)
            .ok()
            .and_then(|n| x.checked_shl(n))
            .unwrap_or(0)
    } else {
        let n = n.unsigned_abs().min(63);
        // n ≤ 63, so the shift is in range.
        x >> n
    }
}

fn integer_op(
    op: &'static str,
    a: &Value,
    b: &Value,
    f: impl FnOnce(i64, i64) -> Result<i64, TypeError>,
) -> Result<Value, TypeError> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        (Value::Integer(x), Value::Integer(y)) => Ok(Value::Integer(f(*x, *y)?)),
        _ => Err(undefined(op, a, b)),
    }
}

/// Both operands as reals when both are numbers and at least one is a real.
fn reals(a: &Value, b: &Value) -> Option<(f64, f64)> {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => Some((*x, *y)),
        (Value::Real(x), Value::Integer(y)) => Some((*x, *y as f64)),
        (Value::Integer(x), Value::Real(y)) => Some((*x as f64, *y)),
        (Value::Real(x), Value::Numeric(y)) => Some((*x, y.to_f64())),
        (Value::Numeric(x), Value::Real(y)) => Some((x.to_f64(), *y)),
        _ => None,
    }
}

/// Both operands as numerics when one is a numeric and the other a numeric or an integer.
fn numerics(a: &Value, b: &Value) -> Option<(Numeric, Numeric)> {
    match (a, b) {
        (Value::Numeric(x), Value::Numeric(y)) => Some((*x, *y)),
        (Value::Numeric(x), Value::Integer(y)) => Some((*x, Numeric::from_i64(*y))),
        (Value::Integer(x), Value::Numeric(y)) => Some((Numeric::from_i64(*x), *y)),
        _ => None,
    }
}

/// `op` on two numerics, `None` when the operands are not numerics.
fn numeric_op(
    a: &Value,
    b: &Value,
    op: fn(Numeric, Numeric) -> Result<Numeric, TypeError>,
) -> Option<Result<Value, TypeError>> {
    let (x, y) = numerics(a, b)?;
    Some(op(x, y).map(Value::Numeric))
}

fn checked(result: Option<i64>) -> Result<i64, TypeError> {
    result.ok_or_else(TypeError::integer_overflow)
}

/// A day offset clamped so that adding it to any date cannot overflow `i64`; any offset
/// this large already takes the result out of the date range, which `date_from_days` reports.
fn clamp_days(n: i64) -> i64 {
    n.clamp(-(1 << 40), 1 << 40)
}

/// PostgreSQL's float overflow check: an infinite result from finite operands is an error.
fn check_real(result: f64, x: f64, y: f64) -> Result<f64, TypeError> {
    if result.is_infinite() && x.is_finite() && y.is_finite() {
        Err(TypeError::real_overflow())
    } else {
        Ok(result)
    }
}

fn undefined(op: &'static str, a: &Value, b: &Value) -> TypeError {
    TypeError::UndefinedOperator {
        op,
        left: Some(a.data_type()),
        right: b.data_type(),
    }
}

fn undefined_prefix(op: &'static str, a: &Value) -> TypeError {
    TypeError::UndefinedOperator {
        op,
        left: None,
        right: a.data_type(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type BinOp = fn(&Value, &Value) -> Result<Value, TypeError>;
    type Case = (
        &'static str,
        BinOp,
        Value,
        Value,
        Result<Value, &'static str>,
    );

    fn i(x: i64) -> Value {
        Value::Integer(x)
    }
    fn r(x: f64) -> Value {
        Value::Real(x)
    }
    fn t(s: &str) -> Value {
        Value::Text(s.to_owned())
    }

    #[test]
    fn binary_operators() {
        let cases: Vec<Case> = vec![
            ("+", add, i(1), i(2), Ok(i(3))),
            ("+", add, i(i64::MAX), i(1), Err("22003")),
            ("+", add, i(1), r(0.5), Ok(r(1.5))),
            ("+", add, Value::Null, i(1), Ok(Value::Null)),
            ("+", add, i(1), Value::Null, Ok(Value::Null)),
            ("+", add, r(f64::MAX), r(f64::MAX), Err("22003")),
            ("+", add, r(f64::INFINITY), r(1.0), Ok(r(f64::INFINITY))),
            ("+", add, Value::Date(0), i(31), Ok(Value::Date(31))),
            ("+", add, i(-1), Value::Date(0), Ok(Value::Date(-1))),
            ("+", add, Value::Date(i32::MAX), i(1), Err("22008")),
            ("+", add, Value::Date(0), i(i64::MAX), Err("22008")),
            ("+", add, i(1), t("1"), Err("42883")),
            ("+", add, Value::Boolean(true), i(1), Err("42883")),
            ("-", subtract, i(i64::MIN), i(1), Err("22003")),
            ("-", subtract, i(5), i(7), Ok(i(-2))),
            ("-", subtract, Value::Date(10), Value::Date(3), Ok(i(7))),
            (
                "-",
                subtract,
                Value::Date(i32::MIN),
                Value::Date(i32::MAX),
                Ok(i(-4_294_967_295)),
            ),
            ("-", subtract, Value::Date(10), i(3), Ok(Value::Date(7))),
            ("-", subtract, i(3), Value::Date(10), Err("42883")),
            ("*", multiply, i(i64::MAX), i(2), Err("22003")),
            ("*", multiply, i(i64::MIN), i(-1), Err("22003")),
            ("*", multiply, i(-3), i(4), Ok(i(-12))),
            ("*", multiply, r(1e-200), r(1e-200), Err("22003")),
            ("*", multiply, r(2.0), i(3), Ok(r(6.0))),
            ("/", divide, i(7), i(2), Ok(i(3))),
            ("/", divide, i(-7), i(2), Ok(i(-3))),
            ("/", divide, i(7), i(-2), Ok(i(-3))),
            ("/", divide, i(i64::MIN), i(-1), Err("22003")),
            ("/", divide, i(i64::MIN), i(1), Ok(i(i64::MIN))),
            ("/", divide, i(1), i(0), Err("22012")),
            ("/", divide, r(1.0), r(0.0), Err("22012")),
            ("/", divide, r(0.0), r(-0.0), Err("22012")),
            ("/", divide, i(1), r(0.0), Err("22012")),
            ("/", divide, r(1.0), i(0), Err("22012")),
            ("/", divide, i(7), r(2.0), Ok(r(3.5))),
            ("/", divide, r(1e300), r(1e-300), Err("22003")),
            ("/", divide, r(1.0), r(f64::INFINITY), Ok(r(0.0))),
            ("/", divide, Value::Null, i(0), Ok(Value::Null)),
            ("%", remainder, i(7), i(3), Ok(i(1))),
            ("%", remainder, i(-7), i(3), Ok(i(-1))),
            ("%", remainder, i(7), i(-3), Ok(i(1))),
            ("%", remainder, i(i64::MIN), i(-1), Ok(i(0))),
            ("%", remainder, i(1), i(0), Err("22012")),
            ("%", remainder, r(5.5), i(2), Ok(r(1.5))),
            ("%", remainder, r(5.5), r(0.0), Err("22012")),
            ("||", concat, t("a"), t("b"), Ok(t("ab"))),
            ("||", concat, t("n="), i(5), Ok(t("n=5"))),
            ("||", concat, r(1.5), t("!"), Ok(t("1.5!"))),
            ("||", concat, t("d:"), Value::Date(0), Ok(t("d:1970-01-01"))),
            ("||", concat, t("a"), Value::Null, Ok(Value::Null)),
            ("||", concat, Value::Null, t("a"), Ok(Value::Null)),
            (
                "||",
                concat,
                Value::Blob(vec![1]),
                Value::Blob(vec![2]),
                Ok(Value::Blob(vec![1, 2])),
            ),
            ("||", concat, i(1), i(2), Err("42883")),
            ("&", bit_and, i(12), i(10), Ok(i(8))),
            ("|", bit_or, i(12), i(10), Ok(i(14))),
            ("#", bit_xor, i(12), i(10), Ok(i(6))),
            ("&", bit_and, i(1), r(1.0), Err("42883")),
            ("<<", shift_left, i(1), i(3), Ok(i(8))),
            ("<<", shift_left, i(1), i(63), Ok(i(i64::MIN))),
            ("<<", shift_left, i(1), i(64), Ok(i(0))),
            ("<<", shift_left, i(8), i(-2), Ok(i(2))),
            ("<<", shift_left, i(-8), i(i64::MIN), Ok(i(-1))),
            (">>", shift_right, i(-8), i(1), Ok(i(-4))),
            (">>", shift_right, i(-8), i(100), Ok(i(-1))),
            (">>", shift_right, i(8), i(100), Ok(i(0))),
            (">>", shift_right, i(1), i(-3), Ok(i(8))),
            (">>", shift_right, i(1), i(i64::MIN), Ok(i(0))),
            ("<<", shift_left, Value::Null, i(1), Ok(Value::Null)),
        ];
        for (name, op, a, b, expected) in cases {
            let got = op(&a, &b).map_err(|e| e.code());
            assert_eq!(got, expected, "{a:?} {name} {b:?}");
        }
    }

    #[test]
    fn unary_operators() {
        assert_eq!(negate(&i(5)), Ok(i(-5)));
        assert_eq!(negate(&i(i64::MIN)).map_err(|e| e.code()), Err("22003"));
        assert_eq!(negate(&i(i64::MAX)), Ok(i(-i64::MAX)));
        assert_eq!(negate(&r(0.0)), Ok(r(-0.0)));
        assert_eq!(negate(&Value::Null), Ok(Value::Null));
        assert_eq!(negate(&t("x")).map_err(|e| e.code()), Err("42883"));
        assert_eq!(unary_plus(&r(2.5)), Ok(r(2.5)));
        assert_eq!(
            unary_plus(&Value::Boolean(true)).map_err(|e| e.code()),
            Err("42883")
        );
        assert_eq!(bit_not(&i(0)), Ok(i(-1)));
        assert_eq!(bit_not(&Value::Null), Ok(Value::Null));
        let err = add(&i(1), &t("x")).unwrap_err();
        assert_eq!(err.to_string(), "operator does not exist: integer + text");
        assert_eq!(
            add(&i(i64::MAX), &i(1)).unwrap_err().to_string(),
            "integer out of range"
        );
    }
}
