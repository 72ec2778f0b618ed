//! Date/time functions: `date_part` (and `extract`, which the parser maps `EXTRACT(f FROM x)`
//! to), `date_trunc`, `make_date`.
//!
//! Fields are named as in PostgreSQL, case-insensitively, with the common plural and short
//! forms. `date_part` returns a real (like PostgreSQL's `date_part`; PostgreSQL's `EXTRACT`
//! returns NUMERIC, which Basalt represents as real anyway). A DATE argument stands for its
//! midnight; an interval source is `interval.rs`'s. `now()` and friends are not functions here: they are per-statement values the
//! executor provides from [`crate::types::current_timestamp_micros`].

use super::{Param, ScalarFunction, check_args, int_arg, strict_nulls, text_arg};
use crate::types::datetime::{
    DayTime, Fields, MICROS_PER_SECOND, date_from_days, days_from_civil, days_in_month,
    iso_day_of_week, iso_week,
};
use crate::types::{DataType, TypeError, Value, timezone};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("date_part", date_part_type, date_part),
    function!("extract", date_part_type, date_part),
    function!("date_trunc", date_trunc_type, date_trunc),
    function!("make_date", make_date_type, make_date),
    function!("timezone", timezone_type, at_time_zone),
    // Volatile: the clock is read at each call, unlike now() (once per statement).
    function!("clock_timestamp", clock_timestamp_type, clock_timestamp, strict: true, volatile: true),
];

fn clock_timestamp_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[], &[])?;
    Ok(DataType::TimestampTz)
}

/// `clock_timestamp()`: the system clock when the call runs, as a timestamptz.
fn clock_timestamp(args: &[Value]) -> Result<Value, TypeError> {
    strict_nulls("clock_timestamp", args, 0, 0)?;
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_micros()).unwrap_or(i64::MAX)
        });
    Ok(Value::TimestampTz(micros))
}

/// `timezone(zone, timestamptz)` is a timestamp, `timezone(zone, timestamp)` a timestamptz;
/// the zone is a name or an interval (an offset east of UTC).
fn timezone_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text, Param::Temporal], &[])
        .or_else(|_| check_args(name, args, &[Param::Interval, Param::Temporal], &[]))?;
    Ok(match args.get(1) {
        Some(DataType::TimestampTz) => DataType::Timestamp,
        _ => DataType::TimestampTz,
    })
}

/// `source AT TIME ZONE zone` (PostgreSQL's `timezone(zone, source)`).
fn at_time_zone(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("timezone", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let zone = match args.first() {
        Some(Value::Interval(interval)) => {
            if interval.months() != 0 || interval.days() != 0 {
                return Err(TypeError::InvalidArgument(format!(
                    "interval time zone \"{interval}\" must not include months or days"
                )));
            }
            timezone::fixed(interval.micros() / MICROS_PER_SECOND).ok_or_else(|| {
                TypeError::InvalidArgument(format!(
                    "interval time zone \"{interval}\" out of range"
                ))
            })?
        }
        _ => timezone::zone_named(text_arg("timezone", args, 0)?)?,
    };
    match args.get(1) {
        Some(Value::TimestampTz(utc)) => Ok(Value::Timestamp(timezone::utc_to_local(&zone, *utc)?)),
        Some(Value::Timestamp(local)) => {
            Ok(Value::TimestampTz(timezone::local_to_utc(&zone, *local)?))
        }
        Some(Value::Date(days)) => Ok(Value::TimestampTz(timezone::local_to_utc(
            &zone,
            crate::types::datetime::date_to_timestamp(*days)?,
        )?)),
        _ => Err(TypeError::undefined_function("timezone", args)),
    }
}

fn date_part_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text, Param::Temporal], &[])
        .or_else(|_| check_args(name, args, &[Param::Text, Param::Interval], &[]))
        .or_else(|_| check_args(name, args, &[Param::Text, Param::Time], &[]))?;
    Ok(DataType::Real)
}

/// `date_trunc(unit, source)`, and PostgreSQL's `date_trunc(unit, timestamptz, zone)`,
/// which truncates in `zone` instead of the session's (a timestamp or date source is read
/// in the session zone first, as PostgreSQL's implicit cast to timestamptz does).
fn date_trunc_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text, Param::Temporal], &[Param::Text])?;
    Ok(match args.get(1) {
        // A date is read as a timestamptz (its midnight in the session zone), as PostgreSQL
        // resolves date_trunc(text, date) to date_trunc(text, timestamptz).
        Some(DataType::TimestampTz | DataType::Date) => DataType::TimestampTz,
        _ if args.len() == 3 => DataType::TimestampTz,
        _ => DataType::Timestamp,
    })
}

fn make_date_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Integer; 3], &[])?;
    Ok(DataType::Date)
}

/// A date/time field name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Microseconds,
    Milliseconds,
    Second,
    Minute,
    Hour,
    Day,
    DayOfWeek,
    IsoDayOfWeek,
    DayOfYear,
    Week,
    Month,
    Quarter,
    Year,
    IsoYear,
    Decade,
    Century,
    Millennium,
    Epoch,
    /// The session zone's offset in seconds (timestamptz only), and its parts.
    Timezone,
    TimezoneHour,
    TimezoneMinute,
}

fn parse_unit(name: &str) -> Result<Unit, TypeError> {
    Ok(match name.trim().to_ascii_lowercase().as_str() {
        "microsecond" | "microseconds" | "us" | "usec" | "usecs" => Unit::Microseconds,
        "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" => Unit::Milliseconds,
        "second" | "seconds" | "sec" | "secs" | "s" => Unit::Second,
        "minute" | "minutes" | "min" | "mins" | "m" => Unit::Minute,
        "hour" | "hours" | "hr" | "hrs" | "h" => Unit::Hour,
        "day" | "days" | "d" => Unit::Day,
        "dow" => Unit::DayOfWeek,
        "isodow" => Unit::IsoDayOfWeek,
        "doy" => Unit::DayOfYear,
        "week" | "weeks" | "w" => Unit::Week,
        "month" | "months" | "mon" | "mons" => Unit::Month,
        "quarter" | "qtr" => Unit::Quarter,
        "year" | "years" | "yr" | "yrs" | "y" => Unit::Year,
        "isoyear" => Unit::IsoYear,
        "decade" | "decades" => Unit::Decade,
        "century" | "centuries" => Unit::Century,
        "millennium" | "millennia" | "millenniums" => Unit::Millennium,
        "epoch" => Unit::Epoch,
        "timezone" => Unit::Timezone,
        "timezone_h" | "timezone_hour" => Unit::TimezoneHour,
        "timezone_m" | "timezone_minute" => Unit::TimezoneMinute,
        _ => {
            return Err(TypeError::InvalidArgument(format!(
                "unit \"{name}\" not recognized"
            )));
        }
    })
}

/// The argument at `i` as a split day/time (a date is its midnight, a timestamptz its
/// local time in the session zone).
fn point_arg(name: &str, args: &[Value], i: usize) -> Result<DayTime, TypeError> {
    point_in(name, args, i, &timezone::session_zone())
}

/// [`point_arg`], a timestamptz read on `zone`'s clock.
fn point_in(
    name: &str,
    args: &[Value],
    i: usize,
    zone: &jiff::tz::TimeZone,
) -> Result<DayTime, TypeError> {
    match args.get(i) {
        Some(Value::Date(days)) => Ok(DayTime::from_date(*days)),
        Some(Value::Timestamp(micros)) => Ok(DayTime::from_timestamp(*micros)),
        Some(Value::TimestampTz(utc)) => {
            Ok(DayTime::from_timestamp(timezone::utc_to_local(zone, *utc)?))
        }
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

/// The session zone's offset at the timestamptz argument at `i`, in seconds east; `None`
/// for a date or timestamp, which have no zone.
fn offset_arg(args: &[Value], i: usize) -> Option<i64> {
    offset_in(args, i, &timezone::session_zone())
}

/// [`offset_arg`] in `zone`.
fn offset_in(args: &[Value], i: usize, zone: &jiff::tz::TimeZone) -> Option<i64> {
    match args.get(i) {
        Some(Value::TimestampTz(utc)) => Some(timezone::offset_at(zone, *utc)),
        _ => None,
    }
}

/// PostgreSQL's year numbering for output: no year 0, 1 BC is −1.
fn pg_year(astronomical: i64) -> i64 {
    if astronomical > 0 {
        astronomical
    } else {
        astronomical - 1
    }
}

/// `date_part(field, source)`: one field of a date or timestamp as a real. `second`
/// includes the fraction; `dow` counts from Sunday = 0, `isodow` from Monday = 1; `week`
/// and `isoyear` are ISO 8601's; `epoch` is seconds since 1970-01-01 00:00:00.
fn date_part(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("date_part", args, 2, 2)? {
        return Ok(Value::Null);
    }
    if let Some(Value::Interval(interval)) = args.get(1) {
        let unit = text_arg("date_part", args, 0)?;
        return super::interval::interval_part(unit, *interval).map(Value::Real);
    }
    if let Some(Value::Time(micros)) = args.get(1) {
        let unit = text_arg("date_part", args, 0)?;
        return crate::types::time::part(unit, *micros).map(Value::Real);
    }
    let unit = parse_unit(text_arg("date_part", args, 0)?)?;
    let point = point_arg("date_part", args, 1)?;
    let offset = offset_arg(args, 1);
    let f = Fields::of(point);
    let year = pg_year(f.year);
    let whole = |n: i64| n as f64;
    let value = match unit {
        Unit::Microseconds => whole(f.second * MICROS_PER_SECOND + f.micros),
        Unit::Milliseconds => whole(f.second * 1000) + whole(f.micros) / 1000.0,
        Unit::Second => whole(f.second) + whole(f.micros) / 1e6,
        Unit::Minute => whole(f.minute),
        Unit::Hour => whole(f.hour),
        Unit::Day => f64::from(f.day),
        Unit::DayOfWeek => whole(iso_day_of_week(point.days) % 7),
        Unit::IsoDayOfWeek => whole(iso_day_of_week(point.days)),
        Unit::DayOfYear => whole(point.days - days_from_civil(f.year, 1, 1) + 1),
        Unit::Week => whole(iso_week(point.days).1),
        Unit::Month => f64::from(f.month),
        Unit::Quarter => f64::from((f.month - 1) / 3 + 1),
        Unit::Year => whole(year),
        Unit::IsoYear => whole(pg_year(iso_week(point.days).0)),
        // PostgreSQL's definitions: decade 202 is 2020-2029; the 21st century and the 3rd
        // millennium start in 2001; BC years count downward from -1.
        Unit::Decade => whole(if year >= 0 {
            year / 10
        } else {
            -((8 - (year - 1)) / 10)
        }),
        Unit::Century => whole(if year > 0 {
            (year + 99) / 100
        } else {
            -((99 - (year - 1)) / 100)
        }),
        Unit::Millennium => whole(if year > 0 {
            (year + 999) / 1000
        } else {
            -((999 - (year - 1)) / 1000)
        }),
        // A timestamptz's epoch counts from 1970-01-01 UTC, not from its local time.
        Unit::Epoch => {
            whole(point.days) * 86_400.0 + whole(point.micros) / 1e6
                - offset.map_or(0.0, |offset| offset as f64)
        }
        Unit::Timezone | Unit::TimezoneHour | Unit::TimezoneMinute => {
            let Some(offset) = offset else {
                return Err(TypeError::FeatureNotSupported(format!(
                    "unit \"{}\" not supported for type {}",
                    text_arg("date_part", args, 0)?,
                    args.get(1).map_or(DataType::Null, Value::data_type)
                )));
            };
            whole(match unit {
                Unit::Timezone => offset,
                Unit::TimezoneHour => offset / 3600,
                _ => offset / 60 % 60,
            })
        }
    };
    Ok(Value::Real(value))
}

/// `date_trunc(field, source)`: the timestamp at the start of the field's period containing
/// `source`. Weeks start on Monday; decades at years divisible by 10; centuries and
/// millennia at years ending in 01 and 001 (PostgreSQL's convention).
fn date_trunc(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("date_trunc", args, 2, 3)? {
        return Ok(Value::Null);
    }
    let unit = parse_unit(text_arg("date_trunc", args, 0)?)?;
    // The three-argument form: a timestamptz truncated on `zone`'s clock.
    let (zone, args) = match args.get(2) {
        None => {
            let mut args = args.to_vec();
            if let Some(date @ Value::Date(_)) = args.get(1) {
                args[1] = crate::types::cast(date, DataType::TimestampTz)?;
            }
            (timezone::session_zone(), args)
        }
        Some(_) => {
            let zone = timezone::zone_named(text_arg("date_trunc", args, 2)?)?;
            let source = match args.get(1) {
                Some(source @ (Value::Timestamp(_) | Value::Date(_))) => {
                    crate::types::cast(source, DataType::TimestampTz)?
                }
                Some(source) => source.clone(),
                None => Value::Null,
            };
            (
                zone,
                vec![args.first().cloned().unwrap_or(Value::Null), source],
            )
        }
    };
    let args = args.as_slice();
    let point = point_in("date_trunc", args, 1, &zone)?;
    let offset = offset_in(args, 1, &zone);
    let f = Fields::of(point);
    let floor_to = |step: i64| DayTime {
        days: point.days,
        micros: point.micros - point.micros % step,
    };
    let first_of = |year: i64, month: u32| DayTime {
        days: days_from_civil(year, month, 1),
        micros: 0,
    };
    let truncated = match unit {
        Unit::Microseconds => point,
        Unit::Milliseconds => floor_to(1000),
        Unit::Second => floor_to(MICROS_PER_SECOND),
        Unit::Minute => floor_to(60 * MICROS_PER_SECOND),
        Unit::Hour => floor_to(3600 * MICROS_PER_SECOND),
        Unit::Day => floor_to(86_400 * MICROS_PER_SECOND),
        Unit::Week => DayTime {
            days: point.days - (iso_day_of_week(point.days) - 1),
            micros: 0,
        },
        Unit::Month => first_of(f.year, f.month),
        Unit::Quarter => first_of(f.year, (f.month - 1) / 3 * 3 + 1),
        Unit::Year => first_of(f.year, 1),
        Unit::Decade => first_of(f.year.div_euclid(10) * 10, 1),
        Unit::Century => first_of((f.year - 1).div_euclid(100) * 100 + 1, 1),
        Unit::Millennium => first_of((f.year - 1).div_euclid(1000) * 1000 + 1, 1),
        Unit::DayOfWeek
        | Unit::IsoDayOfWeek
        | Unit::DayOfYear
        | Unit::IsoYear
        | Unit::Epoch
        | Unit::Timezone
        | Unit::TimezoneHour
        | Unit::TimezoneMinute => {
            return Err(TypeError::InvalidArgument(format!(
                "unit \"{unit:?}\" not supported for date_trunc"
            )));
        }
    };
    let local = truncated.to_timestamp()?;
    Ok(match offset {
        None => Value::Timestamp(local),
        // As PostgreSQL's timestamptz_trunc: a truncation to a day or longer is a local
        // midnight, resolved in the session zone (its offset may differ across a DST
        // change); a shorter one keeps the instant's own offset.
        Some(offset) => {
            let whole_days = matches!(
                unit,
                Unit::Day
                    | Unit::Week
                    | Unit::Month
                    | Unit::Quarter
                    | Unit::Year
                    | Unit::Decade
                    | Unit::Century
                    | Unit::Millennium
            );
            Value::TimestampTz(if whole_days {
                timezone::local_to_utc(&zone, local)?
            } else {
                local.checked_sub(offset * MICROS_PER_SECOND).ok_or(
                    TypeError::DatetimeOutOfRange {
                        type_name: "timestamp with time zone",
                    },
                )?
            })
        }
    })
}

/// `make_date(year, month, day)`: negative years are BC (−1 is 1 BC); year 0 and invalid
/// days are errors (22008).
fn make_date(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("make_date", args, 3, 3)? {
        return Ok(Value::Null);
    }
    let year = int_arg("make_date", args, 0)?;
    let month = int_arg("make_date", args, 1)?;
    let day = int_arg("make_date", args, 2)?;
    let invalid = || TypeError::DatetimeFieldOverflow {
        text: format!("{year}-{month:02}-{day:02}"),
    };
    // Years this far out are past the date range anyway; bounding them keeps the calendar
    // arithmetic far from overflow.
    if year == 0 || !(-10_000_000..=10_000_000).contains(&year) {
        return Err(invalid());
    }
    let astronomical = if year < 0 { year + 1 } else { year };
    let month = u32::try_from(month).map_err(|_| invalid())?;
    let day = u32::try_from(day).map_err(|_| invalid())?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(astronomical, month) {
        return Err(invalid());
    }
    Ok(Value::Date(date_from_days(days_from_civil(
        astronomical,
        month,
        day,
    ))?))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, i, r, t};
    use crate::types::{DataType, Value, cast};

    fn ts(s: &str) -> Value {
        cast(&t(s), DataType::Timestamp).unwrap()
    }
    fn date(s: &str) -> Value {
        cast(&t(s), DataType::Date).unwrap()
    }

    #[test]
    fn date_parts() {
        let moment = ts("2024-02-29 13:45:30.25");
        let cases: Vec<(&str, Value, f64)> = vec![
            ("year", moment.clone(), 2024.0),
            ("YEARS", moment.clone(), 2024.0),
            ("month", moment.clone(), 2.0),
            ("day", moment.clone(), 29.0),
            ("hour", moment.clone(), 13.0),
            ("minute", moment.clone(), 45.0),
            ("second", moment.clone(), 30.25),
            ("milliseconds", moment.clone(), 30_250.0),
            ("microseconds", moment.clone(), 30_250_000.0),
            ("dow", moment.clone(), 4.0),
            ("isodow", moment.clone(), 4.0),
            ("doy", moment.clone(), 60.0),
            ("quarter", moment.clone(), 1.0),
            ("week", moment.clone(), 9.0),
            ("epoch", moment.clone(), 1_709_214_330.25),
            ("decade", moment.clone(), 202.0),
            ("century", moment.clone(), 21.0),
            ("millennium", moment.clone(), 3.0),
            ("century", date("2000-12-31"), 20.0),
            ("dow", date("2024-03-03"), 0.0),
            ("isodow", date("2024-03-03"), 7.0),
            ("doy", date("2023-12-31"), 365.0),
            ("hour", date("2023-12-31"), 0.0),
            ("week", date("2021-01-03"), 53.0),
            ("isoyear", date("2021-01-03"), 2020.0),
            ("week", date("2024-12-30"), 1.0),
            ("isoyear", date("2024-12-30"), 2025.0),
            ("epoch", ts("1969-12-31 23:59:59.5"), -0.5),
            ("year", date("0001-06-01 BC"), -1.0),
            ("century", date("0001-06-01 BC"), -1.0),
        ];
        for (field, source, expected) in cases {
            assert_eq!(
                call("date_part", &[t(field), source.clone()]),
                Ok(r(expected)),
                "date_part({field}, {source})"
            );
        }
        assert_eq!(
            call("extract", &[t("year"), date("1999-01-01")]),
            Ok(r(1999.0))
        );
        assert_eq!(
            call("date_part", &[t("fortnight"), moment.clone()]).map_err(|_| "err"),
            Err("err")
        );
        assert_eq!(
            call("date_part", &[t("year"), Value::Null]),
            Ok(Value::Null)
        );
        assert_eq!(call("date_part", &[t("year"), i(1)]), Err("42883"));
        // Extremes do not panic.
        for source in [
            Value::Date(i32::MIN),
            Value::Date(i32::MAX),
            Value::Timestamp(i64::MIN),
            Value::Timestamp(i64::MAX),
        ] {
            for field in ["year", "week", "epoch", "century", "doy", "isoyear"] {
                assert!(call("date_part", &[t(field), source.clone()]).is_ok());
            }
        }
    }

    #[test]
    fn date_truncs() {
        let moment = ts("2024-05-15 13:45:30.123456");
        let cases: Vec<(&str, Value, Result<Value, &str>)> = vec![
            ("microseconds", moment.clone(), Ok(moment.clone())),
            (
                "milliseconds",
                moment.clone(),
                Ok(ts("2024-05-15 13:45:30.123")),
            ),
            ("second", moment.clone(), Ok(ts("2024-05-15 13:45:30"))),
            ("minute", moment.clone(), Ok(ts("2024-05-15 13:45"))),
            ("hour", moment.clone(), Ok(ts("2024-05-15 13:00"))),
            ("day", moment.clone(), Ok(ts("2024-05-15"))),
            ("week", moment.clone(), Ok(ts("2024-05-13"))),
            ("month", moment.clone(), Ok(ts("2024-05-01"))),
            ("quarter", moment.clone(), Ok(ts("2024-04-01"))),
            ("year", moment.clone(), Ok(ts("2024-01-01"))),
            ("decade", moment.clone(), Ok(ts("2020-01-01"))),
            ("century", moment.clone(), Ok(ts("2001-01-01"))),
            ("millennium", moment.clone(), Ok(ts("2001-01-01"))),
            ("century", ts("2000-06-01"), Ok(ts("1901-01-01"))),
            // A date is a timestamptz here, as in PostgreSQL: 2024-02-01 00:00 in the session
            // zone (UTC).
            (
                "month",
                date("2024-02-29"),
                Ok(Value::TimestampTz(1_706_745_600_000_000)),
            ),
            (
                "hour",
                ts("1969-12-31 23:59:59"),
                Ok(ts("1969-12-31 23:00")),
            ),
            ("dow", moment.clone(), Err("22023")),
            ("bogus", moment.clone(), Err("22023")),
            ("day", Value::Date(i32::MAX), Err("22008")),
            ("year", Value::Timestamp(i64::MIN), Err("22008")),
        ];
        for (field, source, expected) in cases {
            assert_eq!(
                call("date_trunc", &[t(field), source.clone()]),
                expected,
                "date_trunc({field}, {source})"
            );
        }
    }

    #[test]
    fn make_dates() {
        let cases: Vec<(i64, i64, i64, Result<Value, &str>)> = vec![
            (2024, 2, 29, Ok(date("2024-02-29"))),
            (2023, 2, 29, Err("22008")),
            (2024, 13, 1, Err("22008")),
            (2024, 1, 0, Err("22008")),
            (0, 1, 1, Err("22008")),
            (-1, 1, 1, Ok(date("0001-01-01 BC"))),
            (i64::MAX, 1, 1, Err("22008")),
            (2024, i64::MIN, 1, Err("22008")),
        ];
        for (y, m, d, expected) in cases {
            assert_eq!(
                call("make_date", &[i(y), i(m), i(d)]),
                expected,
                "{y}-{m}-{d}"
            );
        }
    }
}
