//! INTERVAL: PostgreSQL's span of time in three separate fields — months, days and
//! microseconds — and everything computed on it.
//!
//! The fields stay separate because they do not convert into each other exactly: a month is
//! 28 to 31 days and (in time zones with daylight saving, which Basalt does not model but
//! PostgreSQL keeps the representation for) a day is not always 24 hours. So
//! `'1 month' + '30 days'` is `1 mon 30 days`, and adding `'1 month'` to a timestamp moves
//! it to the same day of the next month. For *comparison* only, PostgreSQL (and so Basalt)
//! treats a month as 30 days and a day as 24 hours ([`Interval::span`]): `'1 mon' = '30 days'`
//! is true, and equal intervals group, sort, hash and index alike.
//!
//! What lives here, following PostgreSQL's `timestamp.c`:
//! * [`Interval`] itself with checked field arithmetic, multiplication and division by a
//!   number (fractions cascade down: months to days at 30 per month, days to time at 24 h),
//!   negation, and `justify_hours` / `justify_days` / `justify_interval`;
//! * timestamp ± interval ([`add_to_timestamp`]: months first with the day clamped to the end
//!   of a shorter month, then days, then time), timestamp − timestamp
//!   ([`timestamp_difference`], days and time as `justify_hours` leaves them) and `age`
//!   ([`age`], PostgreSQL's symbolic year/month/day difference);
//! * text output in PostgreSQL's default `postgres` style (`Display`), and input in
//!   [`parse`](mod@parse).
//!
//! Every overflow is a [`TypeError`] (22008, "interval out of range" / "timestamp out of
//! range"), never a panic or a wrapped value.

pub mod parse;
/// Moves whole `unit`s of `smaller` into `larger`, then gives the two the same sign (one
/// unit borrowed back when they differ), as PostgreSQL's `justify_*` functions do.
fn carry(larger: i64, smaller: i64, unit: i64) -> (i64, i64) {
    let whole = smaller / unit;
    let (mut larger, mut smaller) = (larger + whole, smaller - whole * unit);
    if larger > 0 && smaller < 0 {
        smaller += unit;
        larger -= 1;
    } else if larger < 0 && smaller > 0 {
        smaller -= unit;
        larger += 1;
    }
    (larger, smaller)
}

#[cfg(test)]
mod tests;

use std::fmt;

use super::TypeError;
use super::datetime::{
    DayTime, MICROS_PER_DAY, MICROS_PER_SECOND, civil_from_days, days_from_civil, days_in_month,
};

/// Microseconds in one hour.
const MICROS_PER_HOUR: i64 = 3_600_000_000;
/// Microseconds in one minute.
const MICROS_PER_MINUTE: i64 = 60_000_000;
/// PostgreSQL's fixed month length for comparisons and cascading fractions.
pub(crate) const DAYS_PER_MONTH: i64 = 30;
/// Bytes of an interval's stored form.
pub const INTERVAL_BYTES: usize = 16;

/// An SQL INTERVAL: months, days and microseconds, each with its own sign.
///
/// Held in its stored byte form — months (`i32`), days (`i32`) and microseconds (`i64`),
/// little-endian, 16 bytes — so that a row being written can lend those bytes to the table
/// leaf the way text lends its UTF-8, without a side buffer; the accessors decode a field
/// with one load. Derived equality is field identity (`'1 mon'` differs from `'30 days'`);
/// SQL equality is [`Interval::span`]'s, see [`crate::types::compare`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Interval {
    bytes: [u8; INTERVAL_BYTES],
}

impl Interval {
    /// The zero interval (`00:00:00`).
    pub const ZERO: Interval = Interval {
        bytes: [0; INTERVAL_BYTES],
    };

    /// An interval of these fields.
    pub fn new(months: i32, days: i32, micros: i64) -> Interval {
        let mut bytes = [0; INTERVAL_BYTES];
        bytes[..4].copy_from_slice(&months.to_le_bytes());
        bytes[4..8].copy_from_slice(&days.to_le_bytes());
        bytes[8..].copy_from_slice(&micros.to_le_bytes());
        Interval { bytes }
    }

    /// Whole months (a year is 12).
    pub fn months(self) -> i32 {
        i32::from_le_bytes([self.bytes[0], self.bytes[1], self.bytes[2], self.bytes[3]])
    }

    /// Whole days.
    pub fn days(self) -> i32 {
        i32::from_le_bytes([self.bytes[4], self.bytes[5], self.bytes[6], self.bytes[7]])
    }

    /// Microseconds (not limited to one day: `'25 hours'` keeps 25 hours here).
    pub fn micros(self) -> i64 {
        let mut word = [0; 8];
        word.copy_from_slice(&self.bytes[8..]);
        i64::from_le_bytes(word)
    }

    /// The stored form (see the type's documentation).
    pub fn as_bytes(&self) -> &[u8; INTERVAL_BYTES] {
        &self.bytes
    }

    /// An interval from its stored form; `None` unless `bytes` is exactly 16 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Option<Interval> {
        Some(Interval {
            bytes: bytes.try_into().ok()?,
        })
    }

    /// The value intervals are compared by: microseconds with a month counted as 30 days and
    /// a day as 24 hours (PostgreSQL's `interval_cmp_value`). Always fits: the fields are
    /// at most 2^31 months, 2^31 days and 2^63 microseconds.
    pub fn span(self) -> i128 {
        let days = i128::from(self.months()) * i128::from(DAYS_PER_MONTH) + i128::from(self.days());
        days * i128::from(MICROS_PER_DAY) + i128::from(self.micros())
    }

    /// An interval from fields computed in wider integers, or 22008 when one does not fit.
    fn from_wide(months: i64, days: i64, micros: i64) -> Result<Interval, TypeError> {
        let months = i32::try_from(months).map_err(|_| out_of_range())?;
        let days = i32::try_from(days).map_err(|_| out_of_range())?;
        Ok(Interval::new(months, days, micros))
    }

    /// `self + other`, field by field.
    pub fn checked_add(self, other: Interval) -> Result<Interval, TypeError> {
        Ok(Interval::new(
            self.months()
                .checked_add(other.months())
                .ok_or_else(out_of_range)?,
            self.days()
                .checked_add(other.days())
                .ok_or_else(out_of_range)?,
            self.micros()
                .checked_add(other.micros())
                .ok_or_else(out_of_range)?,
        ))
    }

    /// `self - other`, field by field.
    pub fn checked_sub(self, other: Interval) -> Result<Interval, TypeError> {
        self.checked_add(other.checked_neg()?)
    }

    /// `-self`: every field negated.
    pub fn checked_neg(self) -> Result<Interval, TypeError> {
        Ok(Interval::new(
            self.months().checked_neg().ok_or_else(out_of_range)?,
            self.days().checked_neg().ok_or_else(out_of_range)?,
            self.micros().checked_neg().ok_or_else(out_of_range)?,
        ))
    }

    /// `self * factor` (PostgreSQL's `interval_mul`): each field scaled, the fractional
    /// months cascading into days (30 per month) and fractional days into time, never up.
    pub fn multiply(self, factor: f64) -> Result<Interval, TypeError> {
        self.scale(|field| field * factor)
    }

    /// `self / divisor` (PostgreSQL's `interval_div`), cascading fractions as
    /// [`Interval::multiply`] does; dividing by zero is 22012.
    pub fn divide(self, divisor: f64) -> Result<Interval, TypeError> {
        if divisor == 0.0 {
            return Err(TypeError::DivisionByZero);
        }
        self.scale(|field| field / divisor)
    }

    /// The shared body of `interval_mul` and `interval_div`: `apply` scales one field.
    fn scale(self, apply: impl Fn(f64) -> f64) -> Result<Interval, TypeError> {
        let scaled_months = apply(f64::from(self.months()));
        let scaled_days = apply(f64::from(self.days()));
        let months = f64_to_i32(scaled_months)?;
        let mut days = f64_to_i32(scaled_days)?;
        // The fractions PostgreSQL cascades, rounded to microsecond precision (`TSROUND`) so
        // that products meant to be whole stay whole.
        let month_remainder_days =
            round_to_micro_precision((scaled_months - f64::from(months)) * DAYS_PER_MONTH as f64);
        let mut second_remainder = round_to_micro_precision(
            (scaled_days - f64::from(days) + month_remainder_days - month_remainder_days.trunc())
                * 86_400.0,
        );
        if second_remainder.abs() >= 86_400.0 {
            let whole_days = (second_remainder / 86_400.0).trunc();
            days = days
                .checked_add(f64_to_i32(whole_days)?)
                .ok_or_else(out_of_range)?;
            second_remainder -= whole_days * 86_400.0;
        }
        days = days
            .checked_add(f64_to_i32(month_remainder_days.trunc())?)
            .ok_or_else(out_of_range)?;
        let micros = (apply(self.micros() as f64) + second_remainder * MICROS_PER_SECOND as f64)
            .round_ties_even();
        let micros = f64_to_i64(micros).ok_or_else(out_of_range)?;
        Ok(Interval::new(months, days, micros))
    }

    /// `justify_hours`: whole 24-hour periods of the time moved into days, with days and
    /// time given the same sign.
    pub fn justify_hours(self) -> Result<Interval, TypeError> {
        let (days, time) = carry(i64::from(self.days()), self.micros(), MICROS_PER_DAY);
        Interval::from_wide(i64::from(self.months()), days, time)
    }

    /// `justify_days`: whole 30-day periods moved into months, with months and days given
    /// the same sign.
    pub fn justify_days(self) -> Result<Interval, TypeError> {
        let (months, days) = carry(
            i64::from(self.months()),
            i64::from(self.days()),
            DAYS_PER_MONTH,
        );
        Interval::from_wide(months, days, self.micros())
    }

    /// `justify_interval`: both justifications, with one sign across all three fields.
    pub fn justify_interval(self) -> Result<Interval, TypeError> {
        let mut months = i64::from(self.months());
        let mut days = i64::from(self.days());
        let mut time = self.micros();
        let whole_days = time / MICROS_PER_DAY;
        time -= whole_days * MICROS_PER_DAY;
        days += whole_days;
        let whole_months = days / DAYS_PER_MONTH;
        days -= whole_months * DAYS_PER_MONTH;
        months += whole_months;
        if months > 0 && (days < 0 || (days == 0 && time < 0)) {
            days += DAYS_PER_MONTH;
            months -= 1;
        } else if months < 0 && (days > 0 || (days == 0 && time > 0)) {
            days -= DAYS_PER_MONTH;
            months += 1;
        }
        if days > 0 && time < 0 {
            time += MICROS_PER_DAY;
            days -= 1;
        } else if days < 0 && time > 0 {
            time -= MICROS_PER_DAY;
            days += 1;
        }
        Interval::from_wide(months, days, time)
    }

    /// The fields PostgreSQL's `interval2itm` splits an interval into, each truncated toward
    /// zero so that it carries the interval's sign: (years, months, days, hours, minutes,
    /// seconds, microseconds within the second).
    pub(crate) fn split(self) -> SplitInterval {
        let time = self.micros();
        SplitInterval {
            years: self.months() / 12,
            months: self.months() % 12,
            days: self.days(),
            hours: time / MICROS_PER_HOUR,
            minutes: time % MICROS_PER_HOUR / MICROS_PER_MINUTE,
            seconds: time % MICROS_PER_MINUTE / MICROS_PER_SECOND,
            micros: time % MICROS_PER_SECOND,
        }
    }
}

/// An interval's fields as [`Interval::split`] returns them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SplitInterval {
    pub years: i32,
    pub months: i32,
    pub days: i32,
    pub hours: i64,
    pub minutes: i64,
    pub seconds: i64,
    pub micros: i64,
}

impl fmt::Debug for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interval")
            .field("months", &self.months())
            .field("days", &self.days())
            .field("micros", &self.micros())
            .finish()
    }
}

/// PostgreSQL's `postgres` output style (its default): `1 year 2 mons 3 days 04:05:06.5`.
///
/// Years, months and days are shown when non-zero, each with its own sign (`-1 days`); a
/// field after a negative one gets an explicit `+` when positive. The time is shown as
/// `[-]HH:MM:SS[.ffffff]` (hours not limited to 24, trailing fraction zeros dropped) when it
/// is non-zero or when nothing else was shown (`00:00:00`).
impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let split = self.split();
        let mut nothing_yet = true;
        let mut previous_negative = false;
        for (value, unit) in [
            (split.years, "year"),
            (split.months, "mon"),
            (split.days, "day"),
        ] {
            if value == 0 {
                continue;
            }
            let space = if nothing_yet { "" } else { " " };
            let plus = if previous_negative && value > 0 {
                "+"
            } else {
                ""
            };
            let plural = if value == 1 { "" } else { "s" };
            write!(f, "{space}{plus}{value} {unit}{plural}")?;
            previous_negative = value < 0;
            nothing_yet = false;
        }
        if nothing_yet || self.micros() != 0 {
            let space = if nothing_yet { "" } else { " " };
            let sign = if self.micros() < 0 {
                "-"
            } else if previous_negative {
                "+"
            } else {
                ""
            };
            write!(
                f,
                "{space}{sign}{:02}:{:02}:{:02}",
                split.hours.unsigned_abs(),
                split.minutes.unsigned_abs(),
                split.seconds.unsigned_abs()
            )?;
            if split.micros != 0 {
                let digits = format!("{:06}", split.micros.unsigned_abs());
                write!(f, ".{}", digits.trim_end_matches('0'))?;
            }
        }
        Ok(())
    }
}

/// "interval out of range" (22008).
pub(crate) fn out_of_range() -> TypeError {
    TypeError::DatetimeOutOfRange {
        type_name: "interval",
    }
}

fn timestamp_out_of_range() -> TypeError {
    TypeError::DatetimeOutOfRange {
        type_name: "timestamp",
    }
}

/// A double truncated toward zero to `i32`, or 22008 when it is NaN or does not fit.
fn f64_to_i32(value: f64) -> Result<i32, TypeError> {
    let truncated = value.trunc();
    if truncated >= f64::from(i32::MIN) && truncated <= f64::from(i32::MAX) {
        Ok(truncated as i32)
    } else {
        Err(out_of_range())
    }
}

/// A whole double as `i64`; `None` when it is NaN or outside `i64` (whose bounds, ±2^63,
/// are exact doubles).
pub(crate) fn f64_to_i64(value: f64) -> Option<i64> {
    (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0)
        .contains(&value)
        .then_some(value as i64)
}

/// PostgreSQL's `TSROUND`: rounds to six decimal places.
fn round_to_micro_precision(value: f64) -> f64 {
    (value * 1e6).round_ties_even() / 1e6
}

/// `timestamp + interval` (PostgreSQL's `timestamp_pl_interval`): first the months, keeping
/// the day of the month unless the new month is shorter (then its last day: `2024-01-31 +
/// 1 mon` is `2024-02-29`), then the days, then the time.
pub fn add_to_timestamp(timestamp: i64, interval: Interval) -> Result<i64, TypeError> {
    let mut result = timestamp;
    if interval.months() != 0 {
        let point = DayTime::from_timestamp(result);
        let (year, month, day) = civil_from_days(point.days);
        let total_months = year * 12 + i64::from(month) - 1 + i64::from(interval.months());
        let new_year = total_months.div_euclid(12);
        // In 1..=12 by construction.
        let new_month = u32::try_from(total_months.rem_euclid(12) + 1).unwrap_or(1);
        let new_day = day.min(days_in_month(new_year, new_month));
        result = DayTime {
            days: days_from_civil(new_year, new_month, new_day),
            micros: point.micros,
        }
        .to_timestamp()?;
    }
    let day_micros = i64::from(interval.days())
        .checked_mul(MICROS_PER_DAY)
        .ok_or_else(timestamp_out_of_range)?;
    result
        .checked_add(day_micros)
        .and_then(|result| result.checked_add(interval.micros()))
        .ok_or_else(timestamp_out_of_range)
}

/// `timestamp - interval`: the timestamp plus the negated interval.
pub fn subtract_from_timestamp(timestamp: i64, interval: Interval) -> Result<i64, TypeError> {
    add_to_timestamp(timestamp, interval.checked_neg()?)
}

/// `later - earlier` for timestamps (PostgreSQL's `timestamp_mi`): the difference in days
/// and time, as `justify_hours` leaves it (`1 day 02:00:00`, never months).
pub fn timestamp_difference(later: i64, earlier: i64) -> Result<Interval, TypeError> {
    let micros = later.checked_sub(earlier).ok_or_else(out_of_range)?;
    Interval::new(0, 0, micros).justify_hours()
}

/// `age(later, earlier)` (PostgreSQL's `timestamp_age`): the difference in calendar fields
/// — years, months, days and time — each borrowed from the next larger one when negative,
/// a month borrowing the length of the month of the earlier argument (of the later one when
/// the result is negative), so `age('2024-03-31', '2024-02-29')` is `1 mon 2 days`.
pub fn age(later: i64, earlier: i64) -> Result<Interval, TypeError> {
    let first = DayTime::from_timestamp(later);
    let second = DayTime::from_timestamp(earlier);
    let (first_year, first_month, first_day) = civil_from_days(first.days);
    let (second_year, second_month, second_day) = civil_from_days(second.days);
    let negative = later < earlier;
    let sign = if negative { -1 } else { 1 };
    // Differences of the time of day fields, and of the calendar fields; all i64.
    let mut micros = sign * (first.micros % MICROS_PER_SECOND - second.micros % MICROS_PER_SECOND);
    let seconds_of = |point: DayTime| point.micros / MICROS_PER_SECOND;
    let (first_seconds, second_seconds) = (seconds_of(first), seconds_of(second));
    let mut seconds = sign * (first_seconds % 60 - second_seconds % 60);
    let mut minutes = sign * (first_seconds / 60 % 60 - second_seconds / 60 % 60);
    let mut hours = sign * (first_seconds / 3600 - second_seconds / 3600);
    let mut days = sign * (i64::from(first_day) - i64::from(second_day));
    let mut months = sign * (i64::from(first_month) - i64::from(second_month));
    let mut years = sign * (first_year - second_year);
    if micros < 0 {
        micros += MICROS_PER_SECOND;
        seconds -= 1;
    }
    if seconds < 0 {
        seconds += 60;
        minutes -= 1;
    }
    if minutes < 0 {
        minutes += 60;
        hours -= 1;
    }
    if hours < 0 {
        hours += 24;
        days -= 1;
    }
    // PostgreSQL borrows the length of the month of the *earlier* point in time (which is
    // `later`'s month when the arguments are reversed).
    let (borrow_year, borrow_month) = if negative {
        (first_year, first_month)
    } else {
        (second_year, second_month)
    };
    // One borrow may not be enough (a 28-day month against a -31), as in PostgreSQL's loop.
    while days < 0 {
        days += i64::from(days_in_month(borrow_year, borrow_month));
        months -= 1;
    }
    if months < 0 {
        months += 12;
        years -= 1;
    }
    let total_months = years
        .checked_mul(12)
        .and_then(|m| m.checked_add(months))
        .ok_or_else(out_of_range)?;
    let time = ((hours * 60 + minutes) * 60 + seconds) * MICROS_PER_SECOND + micros;
    Interval::from_wide(sign * total_months, sign * days, sign * time)
}
