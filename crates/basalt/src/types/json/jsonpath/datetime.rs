//! Date/time items for jsonpath's `.datetime()` without a template.
//!
//! PostgreSQL 15 tries a fixed list of ISO 8601 formats when `.datetime()` has no template:
//! `yyyy-mm-dd` (a date), `HH24:MI:SS[.US][TZH[:TZM]]` (a time, with or without a zone),
//! and `yyyy-mm-dd HH24:MI:SS[.US][TZH[:TZM]]` with a space or a `T` between date and time
//! (a timestamp, with or without a zone). This module reads exactly those, checks field
//! ranges, and keeps the value as microseconds so items compare as PostgreSQL compares them:
//! a date with a timestamp (the date at midnight), like kinds with each other, values with a
//! zone by their instant. Comparisons that would need the session time zone (a zoned value
//! against an unzoned one) are refused: [`DateTime::zone_cast`] names the cast PostgreSQL
//! reports (0A000) without its `_tz` functions.
//!
//! With a template (`.datetime("dd-mm-yyyy")`), [`DateTime::from_template`] reads the text
//! with `to_timestamp`'s template parser (`functions/datetime_format.rs`), requiring the
//! whole text to be read; the template's fields decide the kind. Zone fields (`TZH`,
//! `TZM`) are not supported there.

use std::cmp::Ordering;

/// The kind of a date/time item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Date,
    Time,
    TimeTz,
    Timestamp,
    TimestampTz,
}

/// A date/time item.
#[derive(Clone, Debug, PartialEq)]
pub struct DateTime {
    pub kind: Kind,
    /// Local microseconds: since 2000-01-01 for dates and timestamps (a date at midnight),
    /// since midnight for times.
    micros: i64,
    /// The zone offset east of UTC in seconds, for the zoned kinds.
    offset: i32,
}

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Days from 2000-01-01 to `year-month-day` (proleptic Gregorian).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468 - 10_957
}

/// `year-month-day` of days since 2000-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468 + 10_957;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A cursor over ASCII digits and separators.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn digits(&mut self, min: usize, max: usize) -> Option<(i64, usize)> {
        let start = self.at;
        while self.at < self.bytes.len()
            && self.at - start < max
            && self.bytes[self.at].is_ascii_digit()
        {
            self.at += 1;
        }
        let count = self.at - start;
        if count < min {
            return None;
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
        Some((text.parse().ok()?, count))
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn done(&self) -> bool {
        self.at == self.bytes.len()
    }
}

/// `HH:MM:SS[.frac]` as microseconds since midnight.
fn time_of_day(c: &mut Cursor<'_>) -> Option<i64> {
    let (hour, _) = c.digits(1, 2)?;
    if !c.eat(b':') {
        return None;
    }
    let (minute, _) = c.digits(1, 2)?;
    if !c.eat(b':') {
        return None;
    }
    let (second, _) = c.digits(1, 2)?;
    let mut micros = 0;
    if c.eat(b'.') {
        let (fraction, count) = c.digits(1, 6)?;
        micros = fraction * 10_i64.pow(6 - count as u32);
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    Some(((hour * 60 + minute) * 60 + second) * 1_000_000 + micros)
}

/// `+HH[:MM]` / `-HH[:MM]`, in seconds east of UTC, if present.
fn zone(c: &mut Cursor<'_>) -> Option<Option<i32>> {
    let negative = if c.eat(b'-') {
        true
    } else if c.eat(b'+') {
        false
    } else {
        return Some(None);
    };
    let (hours, _) = c.digits(1, 2)?;
    let minutes = if c.eat(b':') { c.digits(2, 2)?.0 } else { 0 };
    if hours > 15 || minutes > 59 {
        return None;
    }
    let seconds = i32::try_from(hours * 3600 + minutes * 60).ok()?;
    Some(Some(if negative { -seconds } else { seconds }))
}

impl DateTime {
    /// The date/time `text` spells in one of the recognized formats.
    pub fn parse(text: &str) -> Option<DateTime> {
        let mut c = Cursor {
            bytes: text.as_bytes(),
            at: 0,
        };
        // A time starts HH: — a date YYYY-.
        let time_first = text.as_bytes().get(1..3).is_some_and(|b| b.contains(&b':'));
        if time_first {
            let micros = time_of_day(&mut c)?;
            let offset = zone(&mut c)?;
            if !c.done() {
                return None;
            }
            return Some(match offset {
                Some(offset) => DateTime {
                    kind: Kind::TimeTz,
                    micros,
                    offset,
                },
                None => DateTime {
                    kind: Kind::Time,
                    micros,
                    offset: 0,
                },
            });
        }
        let (year, _) = c.digits(4, 6)?;
        if !c.eat(b'-') {
            return None;
        }
        let (month, _) = c.digits(1, 2)?;
        if !c.eat(b'-') {
            return None;
        }
        let (day, _) = c.digits(1, 2)?;
        if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
            return None;
        }
        let date = days_from_civil(year, month, day) * MICROS_PER_DAY;
        if c.done() {
            return Some(DateTime {
                kind: Kind::Date,
                micros: date,
                offset: 0,
            });
        }
        if !(c.eat(b' ') || c.eat(b'T')) {
            return None;
        }
        let micros = date + time_of_day(&mut c)?;
        let offset = zone(&mut c)?;
        if !c.done() {
            return None;
        }
        Some(match offset {
            Some(offset) => DateTime {
                kind: Kind::TimestampTz,
                micros,
                offset,
            },
            None => DateTime {
                kind: Kind::Timestamp,
                micros,
                offset: 0,
            },
        })
    }

    /// The date/time `text` spells by a `to_timestamp`-style `template` (the whole text
    /// read): a date, a time or a timestamp as the template has date fields, time fields or
    /// both. Templates have no zone fields here, so the item never has a zone.
    pub fn from_template(text: &str, template: &str) -> Result<DateTime, crate::types::TypeError> {
        let (point, date, time) =
            crate::types::functions::datetime_format::parse_whole(text, template)?;
        // `point.days` counts from 1970-01-01; items count from 2000-01-01.
        let local = (point.days - 10_957) * MICROS_PER_DAY + point.micros;
        Ok(match (date, time) {
            (false, true) => DateTime {
                kind: Kind::Time,
                micros: point.micros,
                offset: 0,
            },
            (true, false) => DateTime {
                kind: Kind::Date,
                micros: local,
                offset: 0,
            },
            _ => DateTime {
                kind: Kind::Timestamp,
                micros: local,
                offset: 0,
            },
        })
    }

    /// `.type()` of the item.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Date => "date",
            Kind::Time => "time without time zone",
            Kind::TimeTz => "time with time zone",
            Kind::Timestamp => "timestamp without time zone",
            Kind::TimestampTz => "timestamp with time zone",
        }
    }

    /// The ISO 8601 text jsonb output gives the item (`2017-03-10T12:34:56+05:30`).
    pub fn text(&self) -> String {
        let days = self.micros.div_euclid(MICROS_PER_DAY);
        let of_day = self.micros.rem_euclid(MICROS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        let date = format!("{year:04}-{month:02}-{day:02}");
        let seconds = of_day / 1_000_000;
        let fraction = of_day % 1_000_000;
        let mut time = format!(
            "{:02}:{:02}:{:02}",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        );
        if fraction != 0 {
            let digits = format!("{fraction:06}");
            time.push('.');
            time.push_str(digits.trim_end_matches('0'));
        }
        let zone = || {
            let sign = if self.offset < 0 { '-' } else { '+' };
            let minutes = self.offset.unsigned_abs() / 60;
            format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
        };
        match self.kind {
            Kind::Date => date,
            Kind::Time => time,
            Kind::TimeTz => format!("{time}{}", zone()),
            Kind::Timestamp => format!("{date}T{time}"),
            Kind::TimestampTz => format!("{date}T{time}{}", zone()),
        }
    }

    /// The SQL type name PostgreSQL's cast messages use.
    fn sql_name(&self) -> &'static str {
        match self.kind {
            Kind::Date => "date",
            Kind::Time => "time",
            Kind::TimeTz => "timetz",
            Kind::Timestamp => "timestamp",
            Kind::TimestampTz => "timestamptz",
        }
    }

    /// For a zoned and an unzoned value that PostgreSQL would compare through the session
    /// time zone: the (from, to) type names of the cast it refuses without the `_tz`
    /// functions (`cannot convert value from date to timestamptz without time zone usage`).
    pub fn zone_cast(&self, other: &DateTime) -> Option<(&'static str, &'static str)> {
        use Kind::*;
        let zoned = |d: &DateTime| matches!(d.kind, TimeTz | TimestampTz);
        let (from, to) = match (zoned(self), zoned(other)) {
            (false, true) => (self, other),
            (true, false) => (other, self),
            _ => return None,
        };
        match (from.kind, to.kind) {
            (Date | Timestamp, TimestampTz) | (Time, TimeTz) => {
                Some((from.sql_name(), to.sql_name()))
            }
            _ => None,
        }
    }

    /// The instant of a zoned value, in UTC microseconds.
    fn utc(&self) -> i64 {
        self.micros - i64::from(self.offset) * 1_000_000
    }

    /// PostgreSQL's comparison of two date/time items, `None` when it would need the
    /// session time zone or the kinds do not compare (a date with a time).
    pub fn compare(&self, other: &DateTime) -> Option<Ordering> {
        use Kind::*;
        match (self.kind, other.kind) {
            (Date | Timestamp, Date | Timestamp) | (Time, Time) => {
                Some(self.micros.cmp(&other.micros))
            }
            (TimestampTz, TimestampTz) => Some(self.utc().cmp(&other.utc())),
            // timetz_cmp: by the UTC time of day, then by the offset.
            (TimeTz, TimeTz) => Some(
                self.utc()
                    .cmp(&other.utc())
                    .then(other.offset.cmp(&self.offset)),
            ),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognized_formats_round_trip() {
        for (input, kind, text) in [
            ("2017-03-10", Kind::Date, "2017-03-10"),
            ("12:34:56", Kind::Time, "12:34:56"),
            ("12:34:56.5+05:30", Kind::TimeTz, "12:34:56.5+05:30"),
            (
                "2017-03-10 12:34:56",
                Kind::Timestamp,
                "2017-03-10T12:34:56",
            ),
            (
                "2017-03-10T12:34:56.123",
                Kind::Timestamp,
                "2017-03-10T12:34:56.123",
            ),
            (
                "2017-03-10 12:34:56-08",
                Kind::TimestampTz,
                "2017-03-10T12:34:56-08:00",
            ),
            ("1999-12-31", Kind::Date, "1999-12-31"),
            ("2024-02-29", Kind::Date, "2024-02-29"),
        ] {
            let parsed = DateTime::parse(input).unwrap_or_else(|| panic!("{input}"));
            assert_eq!(
                (parsed.kind, parsed.text().as_str()),
                (kind, text),
                "{input}"
            );
        }
        for bad in [
            "2017-03-10 12:34",
            "2023-02-29",
            "24:00:00",
            "2017-13-01",
            "x",
            "",
            "2017-03-10 ",
        ] {
            assert!(DateTime::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn comparisons() {
        let p = |s: &str| DateTime::parse(s).unwrap();
        assert_eq!(
            p("2017-03-10").compare(&p("2017-03-10 00:00:00")),
            Some(Ordering::Equal)
        );
        assert_eq!(
            p("2017-03-10").compare(&p("2017-03-10 00:00:01")),
            Some(Ordering::Less)
        );
        assert_eq!(
            p("2017-03-10 12:00:00+01").compare(&p("2017-03-10 11:00:00+00")),
            Some(Ordering::Equal)
        );
        assert_eq!(p("2017-03-10").compare(&p("12:00:00")), None);
        assert_eq!(
            p("2017-03-10 12:00:00").compare(&p("2017-03-10 12:00:00+00")),
            None
        );
    }
}
