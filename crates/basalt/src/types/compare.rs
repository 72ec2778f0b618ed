//! Comparison of values: SQL comparison operators and the sort order used by ORDER BY,
//! GROUP BY and DISTINCT.
//!
//! * [`compare`] is `<`, `=`, `>` and friends: NULL if either side is NULL (`Ok(None)`), an
//!   error for types that cannot be compared.
//! * [`sort_cmp`] is a total order over all values, NULL first; the executor reverses or
//!   moves NULLs for `DESC` and `NULLS FIRST/LAST`.
//!
//! (Hash aggregation, hash joins and DISTINCT group by the executor's row keys,
//! `exec/row_key.rs`, over columns of one type each.)
//!
//! Semantics shared by both, following PostgreSQL: integers and reals compare by exact
//! numeric value (no rounding of large integers to doubles); reals order NaN above every
//! other number and equal to itself, and −0.0 equals 0.0; text and blobs compare bytewise
//! (the C collation); false < true; dates and timestamps compare chronologically, a date
//! standing for its midnight; intervals compare by their span with a month as 30 days and a
//! day as 24 hours (so `'1 mon' = '30 days'`, see [`super::Interval::span`]); UUIDs compare
//! bytewise; jsonb values compare as `json::order` defines (semantically:
//! `1.0` equals `1`); json values do not compare at all; vectors compare as pgvector's
//! `vector_cmp` (element by element, then the shorter first: `types::vector::compare`);
//! numerics compare exactly with each other and with integers (`1.0 = 1`), and as doubles
//! with reals (PostgreSQL converts numeric to double precision there).

use std::cmp::Ordering;

use super::datetime::MICROS_PER_DAY;
use super::{DataType, TypeError, Value};
use super::{json, vector};

/// SQL comparison: `Ok(None)` when either side is NULL, the ordering otherwise, and
/// [`TypeError::Incomparable`] (42883) for types with no comparison between them.
pub fn compare(a: &Value, b: &Value) -> Result<Option<Ordering>, TypeError> {
    if a.is_null() || b.is_null() {
        return Ok(None);
    }
    match compare_non_null(a, b) {
        Some(ordering) => Ok(Some(ordering)),
        None => Err(TypeError::Incomparable {
            left: a.data_type(),
            right: b.data_type(),
        }),
    }
}

/// A total order over all values for sorting and grouping: NULL is the smallest value,
/// comparable values are ordered as [`compare`] orders them, and values of incomparable
/// types (which a typed column never mixes) are ordered by type: boolean, numbers, text,
/// blob, date/time, interval, uuid.
pub fn sort_cmp(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        // json has no SQL order; its text keeps this order total for whatever internal
        // path sorts it.
        (Value::Json(x), Value::Json(y)) => x.as_bytes().cmp(y.as_bytes()),
        _ => compare_non_null(a, b).unwrap_or_else(|| type_rank(a).cmp(&type_rank(b))),
    }
}

/// Comparison of two non-NULL values, `None` when their types are incomparable.
fn compare_non_null(a: &Value, b: &Value) -> Option<Ordering> {
    Some(match (a, b) {
        (Value::Boolean(x), Value::Boolean(y)) => x.cmp(y),
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Real(x), Value::Real(y)) => compare_reals(*x, *y),
        (Value::Integer(x), Value::Real(y)) => compare_integer_real(*x, *y),
        (Value::Real(x), Value::Integer(y)) => compare_integer_real(*y, *x).reverse(),
        (Value::Numeric(x), Value::Numeric(y)) => x.cmp(y),
        (Value::Integer(x), Value::Numeric(y)) => super::Numeric::from_i64(*x).cmp(y),
        (Value::Numeric(x), Value::Integer(y)) => x.cmp(&super::Numeric::from_i64(*y)),
        // numeric against double compares as doubles, as PostgreSQL's implicit cast does.
        (Value::Numeric(x), Value::Real(y)) => compare_reals(x.to_f64(), *y),
        (Value::Real(x), Value::Numeric(y)) => compare_reals(*x, y.to_f64()),
        (Value::Text(x), Value::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Blob(x), Value::Blob(y)) => x.cmp(y),
        (Value::Date(x), Value::Date(y)) => x.cmp(y),
        (Value::Timestamp(x), Value::Timestamp(y)) => x.cmp(y),
        (Value::Date(d), Value::Timestamp(t)) => date_micros(*d).cmp(&i128::from(*t)),
        (Value::Timestamp(t), Value::Date(d)) => i128::from(*t).cmp(&date_micros(*d)),
        (Value::TimestampTz(x), Value::TimestampTz(y)) => x.cmp(y),
        (Value::Time(x), Value::Time(y)) => x.cmp(y),
        // Local times meet instants in the session zone, as the casts do.
        (Value::TimestampTz(_), Value::Timestamp(_) | Value::Date(_)) => {
            return compare_non_null(a, &super::cast(b, DataType::TimestampTz).ok()?);
        }
        (Value::Timestamp(_) | Value::Date(_), Value::TimestampTz(_)) => {
            return compare_non_null(&super::cast(a, DataType::TimestampTz).ok()?, b);
        }
        (Value::Interval(x), Value::Interval(y)) => x.span().cmp(&y.span()),
        (Value::Uuid(x), Value::Uuid(y)) => x.cmp(y),
        (Value::Jsonb(x), Value::Jsonb(y)) => json::compare(x, y),
        (Value::Vector(x), Value::Vector(y)) => vector::compare(x, y),
        (Value::Array(x), Value::Array(y)) if x.element_type() == y.element_type() => {
            super::array::compare(x, y)
        }
        // json has no comparison operators (PostgreSQL's json has none either).
        _ => return None,
    })
}

fn date_micros(days: i32) -> i128 {
    i128::from(days) * i128::from(MICROS_PER_DAY)
}

/// PostgreSQL's float order: NaN equals NaN and is above everything else; −0.0 equals 0.0.
pub(crate) fn compare_reals(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        // Neither is NaN, so partial_cmp is total here.
        (false, false) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// Exact comparison of an integer with a real, without rounding the integer to a double.
fn compare_integer_real(i: i64, r: f64) -> Ordering {
    const LOW: f64 = -9_223_372_036_854_775_808.0;
    const HIGH: f64 = 9_223_372_036_854_775_808.0;
    if r.is_nan() || r >= HIGH {
        return Ordering::Less;
    }
    if r < LOW {
        return Ordering::Greater;
    }
    // r is in [-2^63, 2^63): its integer part converts to i64 exactly, and the fractional
    // part (exact in floating point) breaks the tie.
    let whole = r.trunc();
    match i.cmp(&(whole as i64)) {
        Ordering::Equal => {
            let fraction = r - whole;
            if fraction > 0.0 {
                Ordering::Less
            } else if fraction < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        other => other,
    }
}

/// The order of incomparable type families in [`sort_cmp`].
fn type_rank(value: &Value) -> u8 {
    match value {
        Value::Null => 0,
        Value::Boolean(_) => 1,
        Value::Integer(_) | Value::Real(_) | Value::Numeric(_) => 2,
        Value::Text(_) => 3,
        Value::Blob(_) => 4,
        Value::Date(_) | Value::Timestamp(_) | Value::TimestampTz(_) => 5,
        Value::Interval(_) => 6,
        Value::Uuid(_) => 7,
        Value::Json(_) => 6,
        Value::Jsonb(_) => 7,
        Value::Vector(_) => 8,
        Value::Time(_) => 9,
        Value::Array(_) => 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type Case = (Value, Value, Result<Option<Ordering>, &'static str>);

    #[test]
    fn sql_comparison() {
        use Ordering::*;
        let big = 9.223372036854776e18; // 2^63, just above i64::MAX
        let cases: Vec<Case> = vec![
            (Value::Null, Value::Integer(1), Ok(None)),
            (Value::Text("a".into()), Value::Null, Ok(None)),
            (Value::Null, Value::Null, Ok(None)),
            (Value::Integer(1), Value::Integer(2), Ok(Some(Less))),
            (Value::Integer(1), Value::Real(1.0), Ok(Some(Equal))),
            (Value::Integer(i64::MAX), Value::Real(big), Ok(Some(Less))),
            (
                Value::Real(big),
                Value::Integer(i64::MAX),
                Ok(Some(Greater)),
            ),
            (Value::Integer(i64::MIN), Value::Real(-big), Ok(Some(Equal))),
            (
                Value::Integer(i64::MIN),
                Value::Real(-1e19),
                Ok(Some(Greater)),
            ),
            (
                Value::Integer((1 << 53) + 1),
                Value::Real(9_007_199_254_740_992.0),
                Ok(Some(Greater)),
            ),
            (Value::Integer(2), Value::Real(2.5), Ok(Some(Less))),
            (Value::Integer(-2), Value::Real(-2.5), Ok(Some(Greater))),
            (
                Value::Integer(i64::MAX),
                Value::Real(f64::INFINITY),
                Ok(Some(Less)),
            ),
            (
                Value::Integer(i64::MAX),
                Value::Real(f64::NAN),
                Ok(Some(Less)),
            ),
            (
                Value::Real(f64::NAN),
                Value::Real(f64::NAN),
                Ok(Some(Equal)),
            ),
            (
                Value::Real(f64::NAN),
                Value::Real(f64::INFINITY),
                Ok(Some(Greater)),
            ),
            (Value::Real(-0.0), Value::Real(0.0), Ok(Some(Equal))),
            (
                Value::Text("B".into()),
                Value::Text("a".into()),
                Ok(Some(Less)),
            ),
            (
                Value::Text("é".into()),
                Value::Text("z".into()),
                Ok(Some(Greater)),
            ),
            (
                Value::Blob(vec![1]),
                Value::Blob(vec![1, 0]),
                Ok(Some(Less)),
            ),
            (Value::Boolean(false), Value::Boolean(true), Ok(Some(Less))),
            (
                Value::Date(1),
                Value::Timestamp(MICROS_PER_DAY),
                Ok(Some(Equal)),
            ),
            (
                Value::Date(1),
                Value::Timestamp(MICROS_PER_DAY + 1),
                Ok(Some(Less)),
            ),
            (
                Value::Timestamp(i64::MAX),
                Value::Date(i32::MAX),
                Ok(Some(Less)),
            ),
            (Value::Integer(1), Value::Text("1".into()), Err("42883")),
            (Value::Boolean(true), Value::Integer(1), Err("42883")),
            (
                Value::Text("a".into()),
                Value::Blob(vec![b'a']),
                Err("42883"),
            ),
        ];
        for (a, b, expected) in cases {
            assert_eq!(
                compare(&a, &b).map_err(|e| e.code()),
                expected,
                "{a:?} vs {b:?}"
            );
        }
    }

    #[test]
    fn sort_order_basics() {
        assert_eq!(
            sort_cmp(&Value::Null, &Value::Integer(i64::MIN)),
            Ordering::Less
        );
        assert_eq!(sort_cmp(&Value::Null, &Value::Null), Ordering::Equal);
        assert_eq!(
            sort_cmp(&Value::Real(f64::NAN), &Value::Real(f64::INFINITY)),
            Ordering::Greater
        );
        assert_eq!(
            sort_cmp(&Value::Boolean(true), &Value::Integer(0)),
            Ordering::Less
        );
        assert_eq!(sort_cmp(&Value::Null, &Value::Null), Ordering::Equal);
        assert_eq!(
            sort_cmp(&Value::Real(-0.0), &Value::Real(0.0)),
            Ordering::Equal
        );
        assert_ne!(
            sort_cmp(&Value::Integer(1), &Value::Text("1".into())),
            Ordering::Equal
        );
    }

    fn numeric() -> impl Strategy<Value = Value> {
        let near = (-3i64..3).prop_map(|d| (1i64 << 53) + d);
        prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::Integer),
            near.clone().prop_map(Value::Integer),
            near.prop_map(|i| Value::Real(i as f64)),
            prop_oneof![
                any::<f64>(),
                Just(f64::NAN),
                Just(-0.0),
                Just(9.223372036854776e18),
                Just(-9.223372036854776e18),
                (-4.0f64..4.0).prop_map(|x| (x * 2.0).round() / 2.0),
            ]
            .prop_map(Value::Real),
            (-4i64..4).prop_map(Value::Integer),
            Just(Value::Integer(i64::MAX)),
            Just(Value::Integer(i64::MIN)),
        ]
    }

    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            numeric(),
            any::<bool>().prop_map(Value::Boolean),
            "[a-c\u{e9}]{0,3}".prop_map(Value::Text),
            proptest::collection::vec(0u8..3, 0..3).prop_map(Value::Blob),
            (-3i32..3).prop_map(Value::Date),
            (-3i64..3).prop_map(|d| Value::Timestamp(d * MICROS_PER_DAY / 2)),
        ]
    }

    fn check_order(a: &Value, b: &Value, c: &Value) -> Result<(), TestCaseError> {
        let ab = sort_cmp(a, b);
        prop_assert_eq!(ab, sort_cmp(b, a).reverse(), "antisymmetry {:?} {:?}", a, b);
        prop_assert_eq!(sort_cmp(a, a), Ordering::Equal);
        let bc = sort_cmp(b, c);
        let ac = sort_cmp(a, c);
        if ab != Ordering::Greater && bc != Ordering::Greater {
            prop_assert_ne!(
                ac,
                Ordering::Greater,
                "transitivity {:?} {:?} {:?}",
                a,
                b,
                c
            );
        }
        if ab == Ordering::Equal && bc == Ordering::Equal {
            prop_assert_eq!(ac, Ordering::Equal);
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn sort_cmp_is_a_total_order_on_numbers(a in numeric(), b in numeric(), c in numeric()) {
            check_order(&a, &b, &c)?;
            // compare agrees with sort_cmp where it is defined.
            if let Ok(Some(ordering)) = compare(&a, &b) {
                prop_assert_eq!(ordering, sort_cmp(&a, &b));
            }
        }

        #[test]
        fn sort_cmp_is_a_total_order_on_anything(
            a in any_value(), b in any_value(), c in any_value()
        ) {
            check_order(&a, &b, &c)?;
        }

        #[test]
        fn sort_cmp_on_texts_matches_bytes(a in ".{0,4}", b in ".{0,4}") {
            let ordering = sort_cmp(&Value::Text(a.clone()), &Value::Text(b.clone()));
            prop_assert_eq!(ordering, a.as_bytes().cmp(b.as_bytes()));
        }
    }
}
