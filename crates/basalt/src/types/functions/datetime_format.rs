//! Date/time formatting templates: `to_char(timestamp|date, template)` (numbers go to
//! `number_format`), and the parsing side,
//! `to_timestamp(text, template)`, `to_date(text, template)`; plus `to_timestamp(seconds)`.
//!
//! A template is PostgreSQL's: these patterns stand for fields, everything else is copied
//! (or, when parsing, skipped over), and double-quoted text is literal.
//!
//! | pattern | field |
//! |---------|-------|
//! | `YYYY`, `YY` | year (4 digits; last 2) |
//! | `MM` | month number, 01–12 |
//! | `DD`, `DDD` | day of month 01–31; day of year 001–366 |
//! | `HH24`, `HH12` (`HH`) | hour 00–23; hour 01–12 |
//! | `MI`, `SS` | minute, second |
//! | `MS`, `US` | millisecond 000–999, microsecond 000000–999999 |
//! | `AM`/`PM` (`am`/`pm`) | meridiem indicator |
//! | `Month`, `MONTH`, `month` | month name, blank-padded to 9 characters |
//! | `Mon`, `MON`, `mon` | abbreviated month name |
//! | `Day`, `DAY`, `day` | day name, blank-padded to 9 characters |
//! | `Dy`, `DY`, `dy` | abbreviated day name |
//!
//! Numeric patterns are accepted in lower case too (`yyyy-mm-dd`). The `FM` prefix ("fill
//! mode") drops leading zeros and the padding of names. The capitalisation of a name pattern
//! picks the output's (`Month` gives `May`, `MONTH` gives `MAY`). Parsing reads at most the
//! field's width of digits, matches names case-insensitively, and lets any separator in the
//! template match any one non-alphanumeric character of the input; an input that does not fit
//! is 22007, a field out of range (month 13, February 30, hour 13 with `HH12`) 22008.
//!
//! `to_timestamp` returns a TIMESTAMPTZ, as PostgreSQL's: `to_timestamp(seconds)` is that
//! instant after the Unix epoch, `to_timestamp(text, template)` reads the fields as the
//! session zone's wall-clock time (a template has no zone fields).

use super::{Param, ScalarFunction, check_args, real_arg, strict_nulls, text_arg};
use crate::types::datetime::{
    DayTime, Fields, MICROS_PER_SECOND, date_from_days, days_from_civil, days_in_month,
    iso_day_of_week,
};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("to_char", to_char_type, to_char),
    function!("to_timestamp", to_timestamp_type, to_timestamp),
    function!("to_date", to_date_type, to_date),
];

/// `to_char(timestamp|date, text)` here, `to_char(number, text)` in `number_format`.
fn to_char_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    if args.first().is_some_and(|t| t.is_numeric()) {
        check_args(name, args, &[Param::Number, Param::Text], &[])?;
    } else {
        check_args(name, args, &[Param::Temporal, Param::Text], &[])?;
    }
    Ok(DataType::Text(None))
}

fn to_timestamp_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    if args.len() == 1 {
        check_args(name, args, &[Param::Number], &[])?;
    } else {
        check_args(name, args, &[Param::Text, Param::Text], &[])?;
    }
    Ok(DataType::TimestampTz)
}

fn to_date_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text, Param::Text], &[])?;
    Ok(DataType::Date)
}

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Day names from Monday, as ISO numbers them (1 = Monday).
const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// How a name is capitalised in the output, chosen by the pattern's spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Upper,
    Capitalised,
    Lower,
}

/// One field pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Year,
    YearTwoDigits,
    Month,
    Day,
    DayOfYear,
    Hour24,
    Hour12,
    Minute,
    Second,
    Millisecond,
    Microsecond,
    Meridiem(Case),
    MonthName(Case),
    MonthAbbreviation(Case),
    DayName(Case),
    DayAbbreviation(Case),
}

impl Field {
    /// Digits of a numeric field, for zero padding and for how far parsing reads.
    fn width(self) -> Option<usize> {
        Some(match self {
            Field::Year => 4,
            Field::DayOfYear | Field::Millisecond => 3,
            Field::Microsecond => 6,
            Field::YearTwoDigits
            | Field::Month
            | Field::Day
            | Field::Hour24
            | Field::Hour12
            | Field::Minute
            | Field::Second => 2,
            _ => return None,
        })
    }
}

/// A parsed template element.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Element {
    Field { field: Field, fill_mode: bool },
    Literal(String),
}

/// Patterns by spelling, longest first where one is a prefix of another.
const PATTERNS: &[(&str, Field)] = &[
    ("MONTH", Field::MonthName(Case::Upper)),
    ("Month", Field::MonthName(Case::Capitalised)),
    ("month", Field::MonthName(Case::Lower)),
    ("MON", Field::MonthAbbreviation(Case::Upper)),
    ("Mon", Field::MonthAbbreviation(Case::Capitalised)),
    ("mon", Field::MonthAbbreviation(Case::Lower)),
    ("DAY", Field::DayName(Case::Upper)),
    ("Day", Field::DayName(Case::Capitalised)),
    ("day", Field::DayName(Case::Lower)),
    ("DY", Field::DayAbbreviation(Case::Upper)),
    ("Dy", Field::DayAbbreviation(Case::Capitalised)),
    ("dy", Field::DayAbbreviation(Case::Lower)),
    ("AM", Field::Meridiem(Case::Upper)),
    ("PM", Field::Meridiem(Case::Upper)),
    ("am", Field::Meridiem(Case::Lower)),
    ("pm", Field::Meridiem(Case::Lower)),
];

/// Numeric patterns, matched case-insensitively, longest first.
const NUMERIC_PATTERNS: &[(&str, Field)] = &[
    ("YYYY", Field::Year),
    ("YY", Field::YearTwoDigits),
    ("HH24", Field::Hour24),
    ("HH12", Field::Hour12),
    ("HH", Field::Hour12),
    ("DDD", Field::DayOfYear),
    ("DD", Field::Day),
    ("MM", Field::Month),
    ("MI", Field::Minute),
    ("SS", Field::Second),
    ("MS", Field::Millisecond),
    ("US", Field::Microsecond),
];

/// Splits a template into fields and literal text.
fn parse_template(template: &str) -> Vec<Element> {
    let mut elements = Vec::new();
    let mut rest = template;
    let push_literal = |elements: &mut Vec<Element>, text: &str| match elements.last_mut() {
        Some(Element::Literal(previous)) => previous.push_str(text),
        _ => elements.push(Element::Literal(text.to_owned())),
    };
    while !rest.is_empty() {
        let mut fill_mode = false;
        let mut body = rest;
        if body.len() >= 2 && body.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("FM")) {
            fill_mode = true;
            body = body.get(2..).unwrap_or("");
        }
        let exact = PATTERNS
            .iter()
            .find(|(spelling, _)| body.starts_with(spelling));
        let numeric = || {
            NUMERIC_PATTERNS.iter().find(|(spelling, _)| {
                body.get(..spelling.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(spelling))
            })
        };
        if let Some((spelling, field)) = exact.or_else(numeric) {
            elements.push(Element::Field {
                field: *field,
                fill_mode,
            });
            rest = body.get(spelling.len()..).unwrap_or("");
            continue;
        }
        // Not a pattern: a quoted string is literal (without its quotes, `\"` inside for a
        // quote); anything else is one literal character. A lone `FM` is literal too.
        let mut chars = rest.chars();
        let Some(first) = chars.next() else {
            break;
        };
        if first == '"' {
            let mut literal = String::new();
            let mut inner = chars.clone();
            while let Some(c) = inner.next() {
                match c {
                    '"' => break,
                    '\\' => literal.extend(inner.next()),
                    other => literal.push(other),
                }
            }
            push_literal(&mut elements, &literal);
            rest = inner.as_str();
        } else {
            push_literal(&mut elements, &first.to_string());
            rest = chars.as_str();
        }
    }
    elements
}

fn apply_case(name: &str, case: Case) -> String {
    match case {
        Case::Upper => name.to_ascii_uppercase(),
        Case::Capitalised => name.to_owned(),
        Case::Lower => name.to_ascii_lowercase(),
    }
}

/// Formats one point in time by a template.
fn format_template(point: DayTime, template: &str) -> String {
    let f = Fields::of(point);
    // Years before 1 AD print as PostgreSQL's BC years, without the sign.
    let year = if f.year > 0 { f.year } else { 1 - f.year };
    let month_index = (f.month as usize).saturating_sub(1).min(11);
    let day_index = usize::try_from(iso_day_of_week(point.days) - 1)
        .unwrap_or(0)
        .min(6);
    let mut out = String::new();
    for element in parse_template(template) {
        let (field, fill_mode) = match element {
            Element::Literal(text) => {
                out.push_str(&text);
                continue;
            }
            Element::Field { field, fill_mode } => (field, fill_mode),
        };
        let number = match field {
            Field::Year => Some(year),
            Field::YearTwoDigits => Some(year % 100),
            Field::Month => Some(i64::from(f.month)),
            Field::Day => Some(i64::from(f.day)),
            Field::DayOfYear => Some(point.days - days_from_civil(f.year, 1, 1) + 1),
            Field::Hour24 => Some(f.hour),
            Field::Hour12 => Some(if f.hour % 12 == 0 { 12 } else { f.hour % 12 }),
            Field::Minute => Some(f.minute),
            Field::Second => Some(f.second),
            Field::Millisecond => Some(f.micros / 1000),
            Field::Microsecond => Some(f.micros),
            _ => None,
        };
        if let (Some(number), Some(width)) = (number, field.width()) {
            if fill_mode {
                out.push_str(&number.to_string());
            } else {
                out.push_str(&format!("{number:0width$}"));
            }
            continue;
        }
        let (name, padded) = match field {
            Field::Meridiem(case) => (
                apply_case(if f.hour < 12 { "AM" } else { "PM" }, case),
                false,
            ),
            Field::MonthName(case) => (apply_case(MONTH_NAMES[month_index], case), true),
            Field::MonthAbbreviation(case) => (
                apply_case(MONTH_NAMES[month_index].get(..3).unwrap_or(""), case),
                false,
            ),
            Field::DayName(case) => (apply_case(DAY_NAMES[day_index], case), true),
            Field::DayAbbreviation(case) => (
                apply_case(DAY_NAMES[day_index].get(..3).unwrap_or(""), case),
                false,
            ),
            _ => (String::new(), false),
        };
        if padded && !fill_mode {
            out.push_str(&format!("{name:<9}"));
        } else {
            out.push_str(&name);
        }
    }
    out
}

/// `to_char(timestamp|date, template)`.
fn to_char(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("to_char", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let point = match args.first() {
        Some(Value::Date(days)) => DayTime::from_date(*days),
        Some(Value::Timestamp(micros)) => DayTime::from_timestamp(*micros),
        // A timestamptz is formatted on the session zone's clock.
        Some(Value::TimestampTz(utc)) => DayTime::from_timestamp(
            crate::types::timezone::utc_to_local(&crate::types::timezone::session_zone(), *utc)?,
        ),
        Some(Value::Integer(_) | Value::Real(_) | Value::Numeric(_)) => {
            return super::number_format::to_char_number(args);
        }
        _ => return Err(TypeError::undefined_function("to_char", args)),
    };
    let template = text_arg("to_char", args, 1)?;
    Ok(Value::Text(format_template(point, template)))
}

/// The fields a parse found; absent ones default to 0001-01-01 00:00:00 as in PostgreSQL.
#[derive(Default)]
struct Parsed {
    year: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
    day_of_year: Option<i64>,
    hour: i64,
    hour_is_12: bool,
    afternoon: Option<bool>,
    minute: i64,
    second: i64,
    micros: i64,
}

/// Parses `input` by `template` into a point in time.
fn parse_by_template(
    input: &str,
    template: &str,
    type_name: &'static str,
) -> Result<DayTime, TypeError> {
    parse_with_rest(input, template, type_name).map(|(point, _)| point)
}

/// What jsonpath's `.datetime(template)` reads: the point in time, and whether the template
/// has date fields and time fields (which decide the item's type: a date, a time, or a
/// timestamp). The whole input must be read (PostgreSQL's strict template mode): what
/// remains is 22007 `trailing characters remain in input string after datetime format`.
pub(crate) fn parse_whole(input: &str, template: &str) -> Result<(DayTime, bool, bool), TypeError> {
    let (point, rest) = parse_with_rest(input, template, "timestamp")?;
    if !rest.trim().is_empty() {
        return Err(TypeError::Coded {
            state: crate::sqlstate::INVALID_DATETIME_FORMAT,
            message: "trailing characters remain in input string after datetime format".to_owned(),
        });
    }
    let (mut date, mut time) = (false, false);
    for element in parse_template(template) {
        if let Element::Field { field, .. } = element {
            match field {
                Field::Hour24
                | Field::Hour12
                | Field::Minute
                | Field::Second
                | Field::Millisecond
                | Field::Microsecond
                | Field::Meridiem(_) => time = true,
                _ => date = true,
            }
        }
    }
    Ok((point, date, time))
}

/// [`parse_by_template`], and the input left after the template.
fn parse_with_rest<'a>(
    input: &'a str,
    template: &str,
    type_name: &'static str,
) -> Result<(DayTime, &'a str), TypeError> {
    let invalid = || TypeError::InvalidDatetimeFormat {
        type_name,
        text: input.to_owned(),
    };
    let out_of_range = || TypeError::DatetimeFieldOverflow {
        text: input.to_owned(),
    };
    let mut parsed = Parsed::default();
    let mut rest = input;
    for element in parse_template(template) {
        let field = match element {
            Element::Literal(text) => {
                // Template spaces skip input whitespace; other literal characters each skip
                // one non-alphanumeric input character if there is one.
                for c in text.chars() {
                    if c.is_whitespace() {
                        rest = rest.trim_start();
                    } else if let Some(next) = rest.chars().next()
                        && !next.is_alphanumeric()
                    {
                        rest = &rest[next.len_utf8()..];
                    }
                }
                continue;
            }
            Element::Field { field, .. } => field,
        };
        rest = rest.trim_start();
        if let Some(width) = field.width() {
            let digits = rest
                .char_indices()
                .take(width)
                .take_while(|(_, c)| c.is_ascii_digit())
                .count();
            if digits == 0 {
                return Err(invalid());
            }
            let number: i64 = rest[..digits].parse().map_err(|_| invalid())?;
            rest = &rest[digits..];
            match field {
                Field::Year => parsed.year = Some(number),
                // PostgreSQL's YY: 00-69 are 2000s, 70-99 are 1900s.
                Field::YearTwoDigits => {
                    parsed.year = Some(if number < 70 {
                        2000 + number
                    } else {
                        1900 + number
                    })
                }
                Field::Month => parsed.month = Some(number),
                Field::Day => parsed.day = Some(number),
                Field::DayOfYear => parsed.day_of_year = Some(number),
                Field::Hour24 => parsed.hour = number,
                Field::Hour12 => {
                    parsed.hour = number;
                    parsed.hour_is_12 = true;
                }
                Field::Minute => parsed.minute = number,
                Field::Second => parsed.second = number,
                // Fractions are scaled by the digits actually read: `.5` with MS is 500 ms.
                Field::Millisecond => parsed.micros += number * 10i64.pow(3 - digits as u32) * 1000,
                Field::Microsecond => parsed.micros += number * 10i64.pow(6 - digits as u32),
                _ => {}
            }
            continue;
        }
        let matches_word = |word: &str| {
            rest.get(..word.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(word))
        };
        match field {
            Field::Meridiem(_) => {
                let found = ["AM", "PM", "A.M.", "P.M."]
                    .into_iter()
                    .rev()
                    .find(|word| matches_word(word))
                    .ok_or_else(invalid)?;
                parsed.afternoon = Some(found.starts_with(['P', 'p']));
                rest = &rest[found.len()..];
            }
            Field::MonthName(_) | Field::MonthAbbreviation(_) => {
                let full = matches!(field, Field::MonthName(_));
                let (index, length) = MONTH_NAMES
                    .iter()
                    .enumerate()
                    .find_map(|(i, name)| {
                        let word = if full { name } else { &name[..3] };
                        matches_word(word).then_some((i, word.len()))
                    })
                    .ok_or_else(invalid)?;
                parsed.month = Some(index as i64 + 1);
                rest = &rest[length..];
            }
            Field::DayName(_) | Field::DayAbbreviation(_) => {
                // The day's name is read and ignored, as PostgreSQL does.
                let full = matches!(field, Field::DayName(_));
                let length = DAY_NAMES
                    .iter()
                    .find_map(|name| {
                        let word = if full { name } else { &name[..3] };
                        matches_word(word).then_some(word.len())
                    })
                    .ok_or_else(invalid)?;
                rest = &rest[length..];
            }
            _ => {}
        }
    }
    if parsed.hour_is_12 && !(1..=12).contains(&parsed.hour) {
        return Err(out_of_range());
    }
    if let Some(afternoon) = parsed.afternoon {
        parsed.hour = parsed.hour % 12 + if afternoon { 12 } else { 0 };
    }
    let year = parsed.year.unwrap_or(1);
    if !(1..=294_276).contains(&year)
        || !(0..24).contains(&parsed.hour)
        || !(0..60).contains(&parsed.minute)
        || !(0..60).contains(&parsed.second)
    {
        return Err(out_of_range());
    }
    let days = match (parsed.day_of_year, parsed.month, parsed.day) {
        (Some(day_of_year), None, None) => {
            let last = if days_in_month(year, 2) == 29 {
                366
            } else {
                365
            };
            if !(1..=last).contains(&day_of_year) {
                return Err(out_of_range());
            }
            days_from_civil(year, 1, 1) + day_of_year - 1
        }
        (_, month, day) => {
            let month = u32::try_from(month.unwrap_or(1)).map_err(|_| out_of_range())?;
            let day = u32::try_from(day.unwrap_or(1)).map_err(|_| out_of_range())?;
            if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
                return Err(out_of_range());
            }
            days_from_civil(year, month, day)
        }
    };
    Ok((
        DayTime {
            days,
            micros: ((parsed.hour * 60 + parsed.minute) * 60 + parsed.second) * MICROS_PER_SECOND
                + parsed.micros,
        },
        rest,
    ))
}

/// `to_timestamp(seconds)` (Unix epoch, UTC) or `to_timestamp(text, template)`.
fn to_timestamp(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("to_timestamp", args, 1, 2)? {
        return Ok(Value::Null);
    }
    if args.len() == 2 {
        let input = text_arg("to_timestamp", args, 0)?;
        let template = text_arg("to_timestamp", args, 1)?;
        let point = parse_by_template(input, template, "timestamp")?;
        // The fields are the session zone's wall-clock time, as PostgreSQL reads them.
        let zone = crate::types::timezone::session_zone();
        return Ok(Value::TimestampTz(crate::types::timezone::local_to_utc(
            &zone,
            point.to_timestamp()?,
        )?));
    }
    let seconds = real_arg("to_timestamp", args, 0)?;
    let micros = (seconds * 1e6).round();
    // Comparing as reals first keeps the conversion exact-or-error (NaN fails both tests).
    if !(micros >= i64::MIN as f64 && micros < i64::MAX as f64) {
        return Err(TypeError::DatetimeOutOfRange {
            type_name: "timestamp",
        });
    }
    Ok(Value::TimestampTz(micros as i64))
}

/// `to_date(text, template)`.
fn to_date(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("to_date", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let input = text_arg("to_date", args, 0)?;
    let template = text_arg("to_date", args, 1)?;
    let point = parse_by_template(input, template, "date")?;
    Ok(Value::Date(date_from_days(point.days)?))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, r, t};
    use super::*;
    use crate::types::cast;

    fn ts(s: &str) -> Value {
        cast(&t(s), DataType::Timestamp).unwrap()
    }

    /// A timestamptz read in the session zone (UTC on a test thread).
    fn tstz(s: &str) -> Value {
        cast(&t(s), DataType::TimestampTz).unwrap()
    }

    #[test]
    fn templates_split_into_fields() {
        let elements = parse_template("FMDD \"of\" Month");
        assert_eq!(
            elements,
            vec![
                Element::Field {
                    field: Field::Day,
                    fill_mode: true
                },
                Element::Literal(" of ".to_owned()),
                Element::Field {
                    field: Field::MonthName(Case::Capitalised),
                    fill_mode: false
                },
            ]
        );
        assert_eq!(
            parse_template("hh24:mi"),
            vec![
                Element::Field {
                    field: Field::Hour24,
                    fill_mode: false
                },
                Element::Literal(":".to_owned()),
                Element::Field {
                    field: Field::Minute,
                    fill_mode: false
                },
            ]
        );
    }

    #[test]
    fn to_char_formats() {
        let moment = ts("2024-05-08 14:05:09.123456");
        let cases = [
            ("YYYY-MM-DD HH24:MI:SS", "2024-05-08 14:05:09"),
            ("yyyy/mm/dd", "2024/05/08"),
            ("HH12:MI AM", "02:05 PM"),
            ("FMHH12:MI pm", "2:05 pm"),
            ("MS US", "123 123456"),
            (
                "Month|MONTH|FMMonth|Mon|mon",
                "May      |MAY      |May|May|may",
            ),
            ("Day|FMDay|DY|Dy", "Wednesday|Wednesday|WED|Wed"),
            ("FMDD \"of\" FMMonth YY DDD", "8 of May 24 129"),
            ("\"HH\" HH", "HH 02"),
        ];
        for (template, expected) in cases {
            assert_eq!(
                call("to_char", &[moment.clone(), t(template)]),
                Ok(t(expected)),
                "{template}"
            );
        }
        assert_eq!(
            call("to_char", &[ts("2024-01-01 00:30"), t("HH12 AM")]),
            Ok(t("12 AM"))
        );
    }

    #[test]
    fn to_timestamp_parses() {
        let parse = |input: &str, template: &str| call("to_timestamp", &[t(input), t(template)]);
        assert_eq!(
            parse("2024-05-08 14:05:09", "YYYY-MM-DD HH24:MI:SS"),
            Ok(tstz("2024-05-08 14:05:09"))
        );
        assert_eq!(
            parse("08 May 2024 2:05 PM", "DD Mon YYYY HH12:MI AM"),
            Ok(tstz("2024-05-08 14:05"))
        );
        assert_eq!(
            parse("Wednesday, 8 may 2024", "Day, DD Month YYYY"),
            Ok(tstz("2024-05-08"))
        );
        assert_eq!(
            parse("2024-05-08 14:05:09.5", "YYYY-MM-DD HH24:MI:SS.MS"),
            Ok(tstz("2024-05-08 14:05:09.5"))
        );
        assert_eq!(parse("2024-13-01", "YYYY-MM-DD"), Err("22008"));
        assert_eq!(parse("2023-02-29", "YYYY-MM-DD"), Err("22008"));
        assert_eq!(parse("13:00 PM", "HH12:MI AM"), Err("22008"));
        assert_eq!(parse("abcd", "YYYY"), Err("22007"));
        assert_eq!(call("to_timestamp", &[r(0.0)]), Ok(tstz("1970-01-01")));
        assert_eq!(
            call("to_timestamp", &[r(1_700_000_000.5)]),
            Ok(tstz("2023-11-14 22:13:20.5"))
        );
        assert_eq!(call("to_timestamp", &[r(f64::NAN)]), Err("22008"));
        assert_eq!(call("to_timestamp", &[r(1e300)]), Err("22008"));
    }
}
