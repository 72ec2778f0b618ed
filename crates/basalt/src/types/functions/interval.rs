//! Interval functions: `justify_hours`, `justify_days`, `justify_interval`,
//! `make_interval`, `age`, and `date_part` / `EXTRACT` on an interval (called from
//! `datetime.rs`'s `date_part` when its source is an interval).
//!
//! The arithmetic lives in [`crate::types::interval`]; these are its SQL entry points, with
//! PostgreSQL's signatures. `make_interval` takes its seven arguments positionally (years,
//! months, weeks, days, hours, minutes, seconds — all optional, trailing ones default to 0),
//! since Basalt has no named arguments. The one-argument `age(timestamp)` measures from
//! midnight of the current date; the binder rewrites it to the two-argument form, since only
//! the executor knows the statement's time.

use super::{Param, ScalarFunction, check_args, int_arg, real_arg, strict_nulls};
use crate::types::datetime::MICROS_PER_SECOND;
use crate::types::interval::{Interval, age as timestamp_age, f64_to_i64, out_of_range};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("justify_hours", justify_type, justify_hours),
    function!("justify_days", justify_type, justify_days),
    function!("justify_interval", justify_type, justify_interval),
    function!("make_interval", make_interval_type, make_interval),
    function!("age", age_type, age),
];

fn justify_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Interval], &[])?;
    Ok(DataType::Interval)
}

fn make_interval_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(
        name,
        args,
        &[],
        &[
            Param::Integer,
            Param::Integer,
            Param::Integer,
            Param::Integer,
            Param::Integer,
            Param::Integer,
            Param::Number,
        ],
    )?;
    Ok(DataType::Interval)
}

fn age_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Temporal, Param::Temporal], &[])?;
    Ok(DataType::Interval)
}

/// The interval argument at `i`.
fn interval_arg(name: &str, args: &[Value], i: usize) -> Result<Interval, TypeError> {
    match args.get(i) {
        Some(Value::Interval(interval)) => Ok(*interval),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

fn justify(
    name: &str,
    args: &[Value],
    justify: fn(Interval) -> Result<Interval, TypeError>,
) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 1, 1)? {
        return Ok(Value::Null);
    }
    justify(interval_arg(name, args, 0)?).map(Value::Interval)
}

/// `justify_hours(interval)`: 24-hour periods of the time as days.
fn justify_hours(args: &[Value]) -> Result<Value, TypeError> {
    justify("justify_hours", args, Interval::justify_hours)
}

/// `justify_days(interval)`: 30-day periods as months.
fn justify_days(args: &[Value]) -> Result<Value, TypeError> {
    justify("justify_days", args, Interval::justify_days)
}

/// `justify_interval(interval)`: both, with one sign throughout.
fn justify_interval(args: &[Value]) -> Result<Value, TypeError> {
    justify("justify_interval", args, Interval::justify_interval)
}

/// `make_interval([years[, months[, weeks[, days[, hours[, mins[, secs]]]]]]])`, as
/// PostgreSQL's: years and months make the months, weeks and days the days, the rest the
/// time; each integer must fit PostgreSQL's `integer` (32 bits), and the seconds must be
/// finite (22008 otherwise).
fn make_interval(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("make_interval", args, 0, 7)? {
        return Ok(Value::Null);
    }
    let mut parts = [0i32; 6];
    for (index, part) in parts.iter_mut().enumerate().take(args.len()) {
        let value = int_arg("make_interval", args, index)?;
        *part = i32::try_from(value).map_err(|_| TypeError::integer_overflow())?;
    }
    let seconds = if args.len() == 7 {
        real_arg("make_interval", args, 6)?
    } else {
        0.0
    };
    let [years, months, weeks, days, hours, minutes] = parts.map(i64::from);
    let total_months = years * 12 + months;
    let total_days = weeks * 7 + days;
    let micros = f64_to_i64((seconds * MICROS_PER_SECOND as f64).round_ties_even())
        .ok_or_else(out_of_range)?;
    let time = (hours * 3_600 + minutes * 60)
        .checked_mul(MICROS_PER_SECOND)
        .and_then(|time| time.checked_add(micros))
        .ok_or_else(out_of_range)?;
    let months = i32::try_from(total_months).map_err(|_| out_of_range())?;
    let days = i32::try_from(total_days).map_err(|_| out_of_range())?;
    Ok(Value::Interval(Interval::new(months, days, time)))
}

/// A timestamp argument (a date is its midnight).
fn instant_arg(args: &[Value], i: usize) -> Result<i64, TypeError> {
    match args.get(i) {
        Some(Value::Timestamp(micros)) => Ok(*micros),
        Some(Value::Date(days)) => crate::types::datetime::date_to_timestamp(*days),
        // age(timestamptz, ...) counts calendar fields on the session zone's clock.
        Some(Value::TimestampTz(utc)) => {
            crate::types::timezone::utc_to_local(&crate::types::timezone::session_zone(), *utc)
        }
        _ => Err(TypeError::undefined_function("age", args)),
    }
}

/// `age(later, earlier)`: the symbolic years/months/days difference.
fn age(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("age", args, 2, 2)? {
        return Ok(Value::Null);
    }
    timestamp_age(instant_arg(args, 0)?, instant_arg(args, 1)?).map(Value::Interval)
}

/// `date_part(field, interval)` (PostgreSQL's `interval_part`): the fields as the interval
/// holds them, each carrying its sign — `hour` counts all the hours of the time (not modulo
/// 24), `day` the days field, `month` the months beyond whole years — and `epoch` the total
/// seconds with a year as 365.25 days and a month as 30. Fields that only make sense for a
/// point in time (`dow`, `week`, ...) are 0A000, as in PostgreSQL.
pub(super) fn interval_part(unit: &str, interval: Interval) -> Result<f64, TypeError> {
    let split = interval.split();
    let whole = |n: i64| n as f64;
    Ok(match unit.trim().to_ascii_lowercase().as_str() {
        "microsecond" | "microseconds" | "us" | "usec" | "usecs" => {
            whole(split.seconds * MICROS_PER_SECOND + split.micros)
        }
        "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" => {
            whole(split.seconds * 1000) + whole(split.micros) / 1000.0
        }
        "second" | "seconds" | "sec" | "secs" | "s" => {
            whole(split.seconds) + whole(split.micros) / 1e6
        }
        "minute" | "minutes" | "min" | "mins" | "m" => whole(split.minutes),
        "hour" | "hours" | "hr" | "hrs" | "h" => whole(split.hours),
        "day" | "days" | "d" => f64::from(split.days),
        "month" | "months" | "mon" | "mons" => f64::from(split.months),
        "quarter" | "qtr" => f64::from(split.months / 3 + 1),
        "year" | "years" | "yr" | "yrs" | "y" => f64::from(split.years),
        "decade" | "decades" => f64::from(split.years / 10),
        "century" | "centuries" => f64::from(split.years / 100),
        "millennium" | "millennia" | "millenniums" => f64::from(split.years / 1000),
        "epoch" => {
            let months = interval.months();
            whole(interval.micros()) / 1e6
                + 365.25 * 86_400.0 * f64::from(months / 12)
                + 30.0 * 86_400.0 * f64::from(months % 12)
                + 86_400.0 * f64::from(interval.days())
        }
        "dow" | "isodow" | "doy" | "week" | "weeks" | "w" | "isoyear" | "timezone"
        | "timezone_hour" | "timezone_minute" => {
            return Err(TypeError::FeatureNotSupported(format!(
                "unit \"{unit}\" not supported for type interval"
            )));
        }
        _ => {
            return Err(TypeError::InvalidArgument(format!(
                "unit \"{unit}\" not recognized for type interval"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, i, r, t};
    use super::*;
    use crate::types::interval::parse::parse_interval;
    use crate::types::{DataType, cast};

    fn interval(text: &str) -> Value {
        Value::Interval(parse_interval(text).unwrap())
    }

    fn text_of(result: Result<Value, &str>) -> Result<String, &str> {
        result.map(|value| value.to_string())
    }

    #[test]
    fn justification_functions() {
        assert_eq!(
            text_of(call(
                "justify_hours",
                &[interval("6 months 3 days 52 hours 3 minutes 2 seconds")]
            )),
            Ok("6 mons 5 days 04:03:02".to_owned())
        );
        assert_eq!(
            text_of(call(
                "justify_days",
                &[interval("6 months 36 days 5 hours 4 minutes 3 seconds")]
            )),
            Ok("7 mons 6 days 05:04:03".to_owned())
        );
        assert_eq!(
            text_of(call("justify_interval", &[interval("1 month -1 hour")])),
            Ok("29 days 23:00:00".to_owned())
        );
        assert_eq!(call("justify_days", &[Value::Null]), Ok(Value::Null));
        assert_eq!(call("justify_days", &[i(1)]), Err("42883"));
    }

    #[test]
    fn make_interval_builds_each_field() {
        assert_eq!(
            text_of(call("make_interval", &[i(2)])),
            Ok("2 years".to_owned())
        );
        assert_eq!(
            text_of(call("make_interval", &[i(1), i(6)])),
            Ok("1 year 6 mons".to_owned())
        );
        assert_eq!(
            text_of(call(
                "make_interval",
                &[i(1), i(-1), i(5), i(-7), i(25), i(-180)]
            )),
            Ok("11 mons 28 days 22:00:00".to_owned())
        );
        assert_eq!(
            text_of(call(
                "make_interval",
                &[i(0), i(0), i(0), i(0), i(-2), i(-10), r(-25.3)]
            )),
            Ok("-02:10:25.3".to_owned())
        );
        assert_eq!(
            text_of(call(
                "make_interval",
                &[i(0), i(0), i(0), i(0), i(0), i(0), r(7e12)]
            )),
            Ok("1944444444:26:40".to_owned())
        );
        assert_eq!(
            text_of(call("make_interval", &[])),
            Ok("00:00:00".to_owned())
        );
        for seconds in [f64::INFINITY, f64::NAN, 1e300] {
            assert_eq!(
                call(
                    "make_interval",
                    &[i(0), i(0), i(0), i(0), i(0), i(0), r(seconds)]
                ),
                Err("22008")
            );
        }
        assert_eq!(call("make_interval", &[i(1 << 40)]), Err("22003"));
        assert_eq!(
            call("make_interval", &[i(i32::MAX.into()), i(1)]),
            Err("22008")
        );
    }

    #[test]
    fn age_of_timestamps_and_dates() {
        let timestamp = |s: &str| cast(&t(s), DataType::Timestamp).unwrap();
        let date = |s: &str| cast(&t(s), DataType::Date).unwrap();
        assert_eq!(
            text_of(call(
                "age",
                &[timestamp("2001-04-10"), timestamp("1957-06-13")]
            )),
            Ok("43 years 9 mons 27 days".to_owned())
        );
        assert_eq!(
            text_of(call(
                "age",
                &[date("2024-03-31"), timestamp("2024-02-29 12:00")]
            )),
            Ok("1 mon 1 day 12:00:00".to_owned())
        );
        assert_eq!(
            call("age", &[Value::Null, date("2024-01-01")]),
            Ok(Value::Null)
        );
        assert_eq!(call("age", &[t("x"), date("2024-01-01")]), Err("42883"));
    }

    #[test]
    fn parts_of_intervals() {
        let day_and_time = parse_interval("1 day 2 hours 3 mins 4 secs").unwrap();
        let cases = [
            ("microsecond", day_and_time, 4_000_000.0),
            ("millisecond", day_and_time, 4_000.0),
            ("second", day_and_time, 4.0),
            ("minute", day_and_time, 3.0),
            ("hour", day_and_time, 2.0),
            ("day", day_and_time, 1.0),
            ("epoch", day_and_time, 93_784.0),
            (
                "epoch",
                parse_interval("34 years").unwrap(),
                1_072_958_400.0,
            ),
            ("epoch", parse_interval("3 mons").unwrap(), 7_776_000.0),
            ("epoch", parse_interval("-14 secs").unwrap(), -14.0),
            ("second", parse_interval("-14.5 secs").unwrap(), -14.5),
            ("hour", parse_interval("50 hours").unwrap(), 50.0),
            ("month", parse_interval("14 mons").unwrap(), 2.0),
            ("quarter", parse_interval("5 mons").unwrap(), 2.0),
            ("quarter", parse_interval("1 min").unwrap(), 1.0),
            ("year", parse_interval("14 mons").unwrap(), 1.0),
            ("decade", parse_interval("-99 y").unwrap(), -9.0),
            ("century", parse_interval("-100 y").unwrap(), -1.0),
            ("millennium", parse_interval("2500 years").unwrap(), 2.0),
        ];
        for (unit, interval, expected) in cases {
            assert_eq!(
                interval_part(unit, interval),
                Ok(expected),
                "{unit} of {interval}"
            );
        }
        assert_eq!(
            interval_part("dow", day_and_time).map_err(|e| e.code()),
            Err("0A000")
        );
        assert_eq!(
            interval_part("fortnight", day_and_time).map_err(|e| e.to_string()),
            Err("unit \"fortnight\" not recognized for type interval".to_owned())
        );
        assert_eq!(
            call("date_part", &[t("day"), interval("3 days")]),
            Ok(r(3.0))
        );
    }
}
