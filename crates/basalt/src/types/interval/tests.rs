//! Interval tests: text forms, arithmetic and `age`, against PostgreSQL's documented results.

use super::parse::{Qualifier, QualifierField, parse_interval, parse_qualified};
use super::*;
use crate::types::datetime::parse_timestamp;

const HOUR: i64 = MICROS_PER_HOUR;
const SECOND: i64 = MICROS_PER_SECOND;

fn interval(text: &str) -> Interval {
    parse_interval(text).unwrap_or_else(|error| panic!("{text}: {error}"))
}

fn timestamp(text: &str) -> i64 {
    parse_timestamp(text).unwrap()
}

#[test]
fn output_follows_the_postgres_style() {
    let cases = [
        (
            Interval::new(14, 3, 4 * HOUR + 5 * 60 * SECOND + 6_500_000),
            "1 year 2 mons 3 days 04:05:06.5",
        ),
        (Interval::ZERO, "00:00:00"),
        (Interval::new(0, -1, 0), "-1 days"),
        (Interval::new(0, 1, 0), "1 day"),
        (Interval::new(1, 0, 0), "1 mon"),
        (Interval::new(-1, 0, 0), "-1 mons"),
        (Interval::new(12, 0, 0), "1 year"),
        (Interval::new(-14, 0, 0), "-1 years -2 mons"),
        (Interval::new(0, 1, -HOUR), "1 day -01:00:00"),
        (Interval::new(0, -1, HOUR), "-1 days +01:00:00"),
        (Interval::new(-1, 2, 0), "-1 mons +2 days"),
        (Interval::new(0, 0, -90 * SECOND), "-00:01:30"),
        (Interval::new(0, 0, 25 * HOUR), "25:00:00"),
        (Interval::new(0, 0, 1), "00:00:00.000001"),
        (Interval::new(0, 0, i64::MIN), "-2562047788:00:54.775808"),
    ];
    for (value, expected) in cases {
        assert_eq!(value.to_string(), expected, "{value:?}");
    }
}

#[test]
fn input_accepts_postgresql_forms() {
    let cases = [
        ("1 day", Interval::new(0, 1, 0)),
        ("2 hours 30 minutes", Interval::new(0, 0, 9_000 * SECOND)),
        (
            "1 year 2 mons 3 days 04:05:06.5",
            Interval::new(14, 3, 14_706_500_000),
        ),
        ("-1 day", Interval::new(0, -1, 0)),
        ("@ 1 hour ago", Interval::new(0, 0, -HOUR)),
        ("1 day 2 hours ago", Interval::new(0, -1, -2 * HOUR)),
        ("  1 DAY  ", Interval::new(0, 1, 0)),
        ("1day", Interval::new(0, 1, 0)),
        ("1.5 days", Interval::new(0, 1, 12 * HOUR)),
        ("1.5 months", Interval::new(1, 15, 0)),
        ("1.5 years", Interval::new(18, 0, 0)),
        ("-1.5 days", Interval::new(0, -1, -12 * HOUR)),
        ("1 week", Interval::new(0, 7, 0)),
        ("2 decades", Interval::new(240, 0, 0)),
        ("1 century", Interval::new(1200, 0, 0)),
        ("1 millennium", Interval::new(12_000, 0, 0)),
        ("3 04:05:06", Interval::new(0, 3, 14_706 * SECOND)),
        ("1-2", Interval::new(14, 0, 0)),
        ("5", Interval::new(0, 0, 5 * SECOND)),
        ("1.5", Interval::new(0, 0, 1_500_000)),
        ("01:02", Interval::new(0, 0, HOUR + 120 * SECOND)),
        ("-01:02:03", Interval::new(0, 0, -(HOUR + 123 * SECOND))),
        ("-1 day +2 hours", Interval::new(0, -1, 2 * HOUR)),
        ("1 mon 30 days", Interval::new(1, 30, 0)),
        ("10 ms 5 us", Interval::new(0, 0, 10_005)),
        (
            "500 seconds 99 milliseconds 51 microseconds",
            Interval::new(0, 0, 500_099_051),
        ),
        (
            "+1-2 -3 +4:05:06.789",
            Interval::new(14, -3, 14_706_789_000),
        ),
        (
            "-1-2 +3 -4:05:06.789",
            Interval::new(-14, 3, -14_706_789_000),
        ),
        (
            "10 years -11 month -12 days +13:14",
            Interval::new(109, -12, 47_640 * SECOND),
        ),
        (
            "4 millenniums 5 centuries 4 decades 1 year 4 months 4 days 17 minutes 31 seconds",
            Interval::new(4541 * 12 + 4, 4, 1051 * SECOND),
        ),
        ("P1Y2M3DT4H5M6S", Interval::new(14, 3, 14_706 * SECOND)),
        ("P1W", Interval::new(0, 7, 0)),
        ("PT1.5H", Interval::new(0, 0, 5_400 * SECOND)),
        ("p-1d", Interval::new(0, -1, 0)),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_interval(text), Ok(expected), "{text}");
    }
}

#[test]
fn bad_input_is_an_error_with_a_sqlstate() {
    for text in [
        "",
        "abc",
        "1 day 1 day",
        "day",
        "1 fortnight",
        "1 day ago 2 hours",
        "P",
        "P1H",
        "PT1D",
        "P1Y2MT",
        "1:",
        "1 2 3",
        "infinity",
        "ago",
        "1 day -",
        "P0001-02-03",
    ] {
        let error = parse_interval(text).unwrap_err();
        assert_eq!(error.code(), "22007", "{text}: {error}");
        assert_eq!(
            error.to_string(),
            format!("invalid input syntax for type interval: \"{text}\"")
        );
    }
    // 22015 as PostgreSQL 15 gives, for a field too large or a time field out of range.
    for text in [
        "2147483648 days",
        "-2147483649 mons",
        "1 day 01:60:00",
        "1 day 01:00:61",
        "9223372036854775807 hours",
        "99999999999999999999 days",
    ] {
        let error = parse_interval(text).unwrap_err();
        assert_eq!(error.code(), "22015", "{text}: {error}");
    }
    // PostgreSQL says 22008 here (the years fit, their months do not); Basalt 22015.
    let error = parse_interval("178956971 years").unwrap_err();
    assert_eq!(error.code(), "22015", "{error}");
    assert_eq!(
        parse_interval("3000000000 seconds"),
        Ok(Interval::new(0, 0, 3_000_000_000 * 1_000_000))
    );
    assert_eq!(
        parse_interval("-2147483648 days"),
        Ok(Interval::new(0, i32::MIN, 0))
    );
    assert_eq!(
        parse_interval("2147483647 days"),
        Ok(Interval::new(0, i32::MAX, 0))
    );
}

#[test]
fn qualifiers_set_the_unit_of_bare_numbers_and_drop_smaller_fields() {
    let qualified = |text, leading, last| parse_qualified(text, Some(Qualifier { leading, last }));
    use QualifierField::*;
    assert_eq!(qualified("1", Day, None), Ok(Interval::new(0, 1, 0)));
    assert_eq!(
        qualified("2", Hour, None),
        Ok(Interval::new(0, 0, 2 * HOUR))
    );
    assert_eq!(
        qualified("3", Year, Some(Month)),
        Ok(Interval::new(3, 0, 0))
    );
    assert_eq!(
        qualified("1 day 02:03:04", Day, None),
        Ok(Interval::new(0, 1, 0))
    );
    assert_eq!(
        qualified("1 day 02:03:04", Day, Some(Minute)),
        Ok(Interval::new(0, 1, 2 * HOUR + 180 * SECOND))
    );
    assert_eq!(
        qualified("1 year 5 mons", Year, None),
        Ok(Interval::new(12, 0, 0))
    );
}

#[test]
fn text_round_trips() {
    for value in [
        Interval::ZERO,
        Interval::new(14, 3, 14_706_500_000),
        Interval::new(-14, 3, -1),
        Interval::new(0, -1, HOUR),
        Interval::new(i32::MAX, i32::MIN, i64::MAX),
        Interval::new(i32::MIN, i32::MAX, i64::MIN + 1),
        Interval::new(-1, 0, 59 * SECOND + 999_999),
    ] {
        let text = value.to_string();
        assert_eq!(parse_interval(&text), Ok(value), "{text}");
    }
}

#[test]
fn comparison_counts_a_month_as_30_days() {
    assert_eq!(interval("1 mon").span(), interval("30 days").span());
    assert!(interval("1 day").span() > interval("23 hours").span());
    assert!(interval("-1 year").span() < interval("1 second").span());
    assert!(Interval::new(i32::MAX, i32::MAX, i64::MAX).span() > 0);
    assert!(Interval::new(i32::MIN, i32::MIN, i64::MIN).span() < 0);
}

#[test]
fn field_arithmetic_checks_overflow() {
    assert_eq!(
        interval("1 mon").checked_add(interval("30 days")),
        Ok(Interval::new(1, 30, 0))
    );
    assert_eq!(
        interval("1 day").checked_sub(interval("1 hour")),
        Ok(Interval::new(0, 1, -HOUR))
    );
    let biggest = Interval::new(i32::MAX, 0, 0);
    assert_eq!(
        biggest.checked_add(interval("1 mon")).map_err(|e| e.code()),
        Err("22008")
    );
    assert_eq!(
        Interval::new(i32::MIN, 0, 0)
            .checked_neg()
            .map_err(|e| e.code()),
        Err("22008")
    );
    assert_eq!(
        interval("1 day 01:00").checked_neg(),
        Ok(Interval::new(0, -1, -HOUR))
    );
}

#[test]
fn multiplication_and_division_cascade_fractions_down() {
    let cases = [
        (interval("1 day").multiply(1.5), "1 day 12:00:00"),
        (interval("1 mon").multiply(1.5), "1 mon 15 days"),
        (interval("1 hour").multiply(2.0), "02:00:00"),
        (interval("1 mon 1 day").multiply(-2.0), "-2 mons -2 days"),
        (interval("1 mon").divide(2.0), "15 days"),
        (interval("1 day").divide(3.0), "08:00:00"),
        (interval("1 mon").divide(3.0), "10 days"),
        (
            interval("1 year").divide(7.0),
            "1 mon 21 days 10:17:08.5344",
        ),
    ];
    for (result, expected) in cases {
        assert_eq!(result.map(|i| i.to_string()), Ok(expected.to_owned()));
    }
    assert_eq!(
        interval("1 hour").divide(0.0).map_err(|e| e.code()),
        Err("22012")
    );
    for factor in [f64::NAN, f64::INFINITY, 1e300] {
        assert_eq!(
            interval("1 mon").multiply(factor).map_err(|e| e.code()),
            Err("22008")
        );
    }
    assert_eq!(
        Interval::new(0, 0, i64::MAX)
            .multiply(2.0)
            .map_err(|e| e.code()),
        Err("22008")
    );
}

#[test]
fn justification() {
    let justified = |text: &str, f: fn(Interval) -> Result<Interval, TypeError>| {
        f(interval(text)).unwrap().to_string()
    };
    assert_eq!(
        justified("27 hours", Interval::justify_hours),
        "1 day 03:00:00"
    );
    assert_eq!(
        justified("-27 hours", Interval::justify_hours),
        "-1 days -03:00:00"
    );
    assert_eq!(
        justified("1 day -1 hour", Interval::justify_hours),
        "23:00:00"
    );
    assert_eq!(justified("35 days", Interval::justify_days), "1 mon 5 days");
    assert_eq!(justified("1 mon -1 day", Interval::justify_days), "29 days");
    assert_eq!(
        justified("1 mon -1 hour", Interval::justify_interval),
        "29 days 23:00:00"
    );
    assert_eq!(
        justified("1 year 65 days 30 hours", Interval::justify_interval),
        "1 year 2 mons 6 days 06:00:00"
    );
    assert_eq!(
        Interval::new(i32::MAX, 30, 0)
            .justify_days()
            .map_err(|e| e.code()),
        Err("22008")
    );
}

#[test]
fn timestamp_plus_interval_moves_months_then_days_then_time() {
    let plus = |at: &str, span: &str| {
        add_to_timestamp(timestamp(at), interval(span))
            .map(crate::types::datetime::format_timestamp)
    };
    let cases = [
        ("2024-01-31", "1 mon", "2024-02-29 00:00:00"),
        ("2023-01-31", "1 mon", "2023-02-28 00:00:00"),
        ("2024-02-29", "1 year", "2025-02-28 00:00:00"),
        ("2024-03-31", "-1 mon", "2024-02-29 00:00:00"),
        (
            "2024-01-31 10:00",
            "1 mon 1 day 02:00",
            "2024-03-01 12:00:00",
        ),
        ("2024-12-15", "1 mon", "2025-01-15 00:00:00"),
        ("2024-01-15", "-13 mons", "2022-12-15 00:00:00"),
        ("2024-02-28 23:00", "2 hours", "2024-02-29 01:00:00"),
        ("0001-01-01", "-1 day", "0001-12-31 00:00:00 BC"),
    ];
    for (at, span, expected) in cases {
        assert_eq!(plus(at, span), Ok(expected.to_owned()), "{at} + {span}");
    }
    assert_eq!(
        add_to_timestamp(i64::MAX, interval("1 microsecond")).map_err(|e| e.code()),
        Err("22008")
    );
    // 178 million years: past every timestamp.
    assert_eq!(
        add_to_timestamp(0, Interval::new(i32::MAX, 0, 0)).map_err(|e| e.code()),
        Err("22008")
    );
    assert_eq!(
        subtract_from_timestamp(timestamp("2024-03-31"), interval("1 mon")),
        Ok(timestamp("2024-02-29"))
    );
}

#[test]
fn timestamp_differences_are_days_and_time() {
    let minus = |a: &str, b: &str| {
        timestamp_difference(timestamp(a), timestamp(b))
            .unwrap()
            .to_string()
    };
    assert_eq!(
        minus("2024-01-02 03:00", "2024-01-01 01:00"),
        "1 day 02:00:00"
    );
    assert_eq!(
        minus("2024-01-01 01:00", "2024-01-02 03:00"),
        "-1 days -02:00:00"
    );
    assert_eq!(minus("2024-03-01", "2024-02-28"), "2 days");
    assert_eq!(minus("2023-03-01", "2023-02-28"), "1 day");
    assert_eq!(
        minus("2024-01-01 12:00", "2024-01-01 11:59:30.25"),
        "00:00:29.75"
    );
    assert_eq!(
        timestamp_difference(i64::MAX, -1).map_err(|e| e.code()),
        Err("22008")
    );
}

#[test]
fn age_is_a_symbolic_calendar_difference() {
    let age_of = |a: &str, b: &str| age(timestamp(a), timestamp(b)).unwrap().to_string();
    assert_eq!(
        age_of("2001-04-10", "1957-06-13"),
        "43 years 9 mons 27 days"
    );
    assert_eq!(
        age_of("1957-06-13", "2001-04-10"),
        "-43 years -9 mons -27 days"
    );
    assert_eq!(age_of("2024-03-31", "2024-02-29"), "1 mon 2 days");
    assert_eq!(age_of("2024-03-01", "2024-01-31"), "1 mon 1 day");
    assert_eq!(age_of("2024-01-01 00:00", "2023-12-31 23:00"), "01:00:00");
    assert_eq!(age_of("2024-01-01 10:00", "2024-01-01 10:00"), "00:00:00");
    assert_eq!(
        age_of("2024-06-15 08:30", "2020-02-29 12:45:30.5"),
        "4 years 3 mons 14 days 19:44:29.5"
    );
    assert!(age(i64::MAX, i64::MIN).is_ok());
}

#[test]
fn split_fields_carry_the_sign() {
    let split = Interval::new(-14, -3, -(HOUR + 61 * SECOND + 5)).split();
    assert_eq!(
        split,
        SplitInterval {
            years: -1,
            months: -2,
            days: -3,
            hours: -1,
            minutes: -1,
            seconds: -1,
            micros: -5,
        }
    );
}

#[test]
fn stored_form_round_trips() {
    let value = Interval::new(-7, 123, i64::MIN);
    assert_eq!(Interval::from_bytes(value.as_bytes()), Some(value));
    assert_eq!(Interval::from_bytes(&[0; 15]), None);
    assert_eq!(
        (value.months(), value.days(), value.micros()),
        (-7, 123, i64::MIN)
    );
}
