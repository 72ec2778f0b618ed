//! Interval input: the text forms PostgreSQL's `interval_in` accepts, and the SQL
//! qualifier of `INTERVAL '1' DAY`.
//!
//! Accepted (case-insensitive, surrounding whitespace ignored):
//! * PostgreSQL's verbose form: an optional leading `@`, then numbers each followed by a
//!   unit — `microsecond`, `millisecond`, `second`, `minute`, `hour`, `day`, `week`, `month`,
//!   `year`, `decade`, `century`, `millennium`, their plurals and PostgreSQL's abbreviations
//!   (`us`, `ms`, `s`/`sec`, `m`/`min`, `h`/`hr`, `d`, `w`, `mon`, `y`/`yr`, `dec`, `c`,
//!   `mil`) — with or without a space between; a time `[-]H:MM[:SS[.f]]`; a year-month
//!   `Y-M`; and a final `ago`, which negates everything. Each number carries its own sign.
//!   A number followed by a time is a count of days (`'3 04:05:06'`); a number with no unit
//!   is seconds, or the qualifier's last field.
//! * ISO 8601 with designators: `P[nY][nM][nW][nD][T[nH][nM][nS]]`.
//!
//! Fractions cascade down as PostgreSQL's: a fraction of a year becomes whole months
//! (rounded), of a month days at 30 per month and then time, of a week or day time. Each
//! field may be given once (`'1 day 2 days'` is an error, as in PostgreSQL).
//!
//! Not supported, and refused with 22007: ISO 8601's alternative form (`P0001-02-03T...`),
//! `infinity`/`-infinity` intervals (PostgreSQL 17), and the SQL-standard style's sign
//! propagation (a leading `-` negating every field; Basalt, like PostgreSQL's default
//! `postgres` style, applies a sign to its own number only).

use super::{DAYS_PER_MONTH, Interval, MICROS_PER_HOUR, MICROS_PER_MINUTE, f64_to_i64};
use crate::types::TypeError;
use crate::types::datetime::{MICROS_PER_DAY, MICROS_PER_SECOND};

/// A field of an interval qualifier (`INTERVAL '...' DAY TO SECOND`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum QualifierField {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
}

/// An interval qualifier: the leading field and, for a range, the last one. It decides
/// the unit of a bare number (the last field) and which smaller fields are dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Qualifier {
    pub leading: QualifierField,
    pub last: Option<QualifierField>,
}

impl Qualifier {
    /// The smallest field the qualifier keeps.
    fn smallest(self) -> QualifierField {
        self.last.unwrap_or(self.leading)
    }
}

/// Parses interval text (no qualifier).
pub fn parse_interval(text: &str) -> Result<Interval, TypeError> {
    parse_qualified(text, None)
}

/// Parses interval text under a qualifier: a bare number counts in the qualifier's last
/// field, and fields smaller than it are dropped (PostgreSQL's `AdjustIntervalForTypmod`:
/// `INTERVAL '1 day 02:03' DAY` is `1 day`). A qualifier's leading field is not checked
/// against the text, as in PostgreSQL.
pub fn parse_qualified(text: &str, qualifier: Option<Qualifier>) -> Result<Interval, TypeError> {
    let errors = Errors { text };
    let trimmed = text.trim().to_ascii_lowercase();
    let mut fields = Fields::default();
    if let Some(iso) = trimmed.strip_prefix('p') {
        parse_iso(iso, &mut fields, &errors)?;
    } else {
        let default_unit = match qualifier.map(Qualifier::smallest) {
            Some(QualifierField::Year) => Unit::Year,
            Some(QualifierField::Month) => Unit::Month,
            Some(QualifierField::Day) => Unit::Day,
            Some(QualifierField::Hour) => Unit::Hour,
            Some(QualifierField::Minute) => Unit::Minute,
            Some(QualifierField::Second) | None => Unit::Second,
        };
        parse_verbose(&trimmed, default_unit, &mut fields, &errors)?;
    }
    let mut interval = fields.finish(&errors)?;
    if let Some(qualifier) = qualifier {
        interval = truncate(interval, qualifier.smallest());
    }
    Ok(interval)
}

/// Drops the fields smaller than `smallest` (truncating toward zero).
fn truncate(interval: Interval, smallest: QualifierField) -> Interval {
    let (months, days, micros) = (interval.months(), interval.days(), interval.micros());
    match smallest {
        QualifierField::Year => Interval::new(months / 12 * 12, 0, 0),
        QualifierField::Month => Interval::new(months, 0, 0),
        QualifierField::Day => Interval::new(months, days, 0),
        QualifierField::Hour => {
            Interval::new(months, days, micros / MICROS_PER_HOUR * MICROS_PER_HOUR)
        }
        QualifierField::Minute => {
            Interval::new(months, days, micros / MICROS_PER_MINUTE * MICROS_PER_MINUTE)
        }
        QualifierField::Second => interval,
    }
}

/// The error constructors, naming the input as given.
struct Errors<'a> {
    text: &'a str,
}

impl Errors<'_> {
    /// Text that is not an interval (22007).
    fn syntax(&self) -> TypeError {
        TypeError::InvalidDatetimeFormat {
            type_name: "interval",
            text: self.text.to_owned(),
        }
    }

    /// A field too large, or a time field out of its range (22015).
    fn overflow(&self) -> TypeError {
        TypeError::IntervalFieldOverflow {
            text: self.text.to_owned(),
        }
    }
}

/// The unit a number in interval text counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Microsecond,
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
    Decade,
    Century,
    Millennium,
}

impl Unit {
    /// PostgreSQL's unit spellings (its `deltatktbl`).
    fn named(word: &str) -> Option<Unit> {
        Some(match word {
            "microsecond" | "microseconds" | "microsecon" | "us" | "usec" | "usecs" | "usecond"
            | "useconds" => Unit::Microsecond,
            "millisecond" | "milliseconds" | "millisecon" | "ms" | "msec" | "msecs" | "msecond"
            | "mseconds" => Unit::Millisecond,
            "second" | "seconds" | "s" | "sec" | "secs" => Unit::Second,
            "minute" | "minutes" | "m" | "min" | "mins" => Unit::Minute,
            "hour" | "hours" | "h" | "hr" | "hrs" => Unit::Hour,
            "day" | "days" | "d" => Unit::Day,
            "week" | "weeks" | "w" => Unit::Week,
            "month" | "months" | "mon" | "mons" => Unit::Month,
            "year" | "years" | "y" | "yr" | "yrs" => Unit::Year,
            "decade" | "decades" | "dec" | "decs" => Unit::Decade,
            "century" | "centuries" | "c" | "cent" => Unit::Century,
            "millennium" | "millennia" | "millenniums" | "mil" | "mils" => Unit::Millennium,
            _ => return None,
        })
    }

    /// The bits of the fields a number of this unit sets, for detecting a field given
    /// twice: seconds with a fraction also set the smaller seconds fields.
    fn mask(self, fraction: f64) -> u32 {
        if self == Unit::Second && fraction != 0.0 {
            ALL_SECONDS_MASK
        } else {
            1 << (self as u32)
        }
    }
}

/// Every seconds field: what a fractional second or a time claims, so that
/// `'5.5 seconds 3 milliseconds'` is an error, as in PostgreSQL.
const ALL_SECONDS_MASK: u32 =
    (1 << Unit::Second as u32) | (1 << Unit::Millisecond as u32) | (1 << Unit::Microsecond as u32);
/// The mask of a `H:MM:SS` time: hours, minutes and every seconds field.
const TIME_MASK: u32 = (1 << Unit::Hour as u32) | (1 << Unit::Minute as u32) | ALL_SECONDS_MASK;
/// The mask of a `Y-M` year-month.
const YEAR_MONTH_MASK: u32 = (1 << Unit::Year as u32) | (1 << Unit::Month as u32);

/// The fields being accumulated, in integers wide enough that only the final conversion
/// can overflow.
#[derive(Default)]
struct Fields {
    months: i64,
    days: i64,
    micros: i64,
    seen: u32,
    negate: bool,
}

impl Fields {
    /// Marks fields as given; false when one already was.
    fn claim(&mut self, mask: u32) -> bool {
        let fresh = self.seen & mask == 0;
        self.seen |= mask;
        fresh
    }

    /// Adds `whole + fraction` of `unit` (PostgreSQL's `DecodeInterval` per unit).
    fn add(&mut self, unit: Unit, whole: i64, fraction: f64) -> Option<()> {
        match unit {
            Unit::Microsecond => self.add_micros(whole, fraction, 1),
            Unit::Millisecond => self.add_micros(whole, fraction, 1000),
            Unit::Second => self.add_micros(whole, fraction, MICROS_PER_SECOND),
            Unit::Minute => self.add_micros(whole, fraction, MICROS_PER_MINUTE),
            Unit::Hour => self.add_micros(whole, fraction, MICROS_PER_HOUR),
            Unit::Day => {
                self.days = self.days.checked_add(whole)?;
                self.add_fraction_micros(fraction, MICROS_PER_DAY)
            }
            Unit::Week => {
                self.days = self.days.checked_add(whole.checked_mul(7)?)?;
                self.add_fraction_days(fraction, 7)
            }
            Unit::Month => {
                self.months = self.months.checked_add(whole)?;
                self.add_fraction_days(fraction, DAYS_PER_MONTH)
            }
            Unit::Year => self.add_years(whole, fraction, 1),
            Unit::Decade => self.add_years(whole, fraction, 10),
            Unit::Century => self.add_years(whole, fraction, 100),
            Unit::Millennium => self.add_years(whole, fraction, 1000),
        }
    }

    fn add_micros(&mut self, whole: i64, fraction: f64, scale: i64) -> Option<()> {
        self.micros = self.micros.checked_add(whole.checked_mul(scale)?)?;
        self.add_fraction_micros(fraction, scale)
    }

    /// `AdjustFractMicroseconds`: a fraction of `scale` microseconds, rounded to whole ones.
    fn add_fraction_micros(&mut self, fraction: f64, scale: i64) -> Option<()> {
        if fraction == 0.0 {
            return Some(());
        }
        let scaled = fraction * scale as f64;
        let whole = scaled.trunc();
        let micros =
            f64_to_i64(whole)?.checked_add(f64_to_i64((scaled - whole).round_ties_even())?)?;
        self.micros = self.micros.checked_add(micros)?;
        Some(())
    }

    /// `AdjustFractDays`: a fraction of `scale` days, whole days first, the rest as time.
    fn add_fraction_days(&mut self, fraction: f64, scale: i64) -> Option<()> {
        if fraction == 0.0 {
            return Some(());
        }
        let scaled = fraction * scale as f64;
        let whole = scaled.trunc();
        self.days = self.days.checked_add(f64_to_i64(whole)?)?;
        self.add_fraction_micros(scaled - whole, MICROS_PER_DAY)
    }

    /// Years times `scale`, the fraction as whole months (`AdjustFractYears`).
    fn add_years(&mut self, whole: i64, fraction: f64, scale: i64) -> Option<()> {
        self.months = self
            .months
            .checked_add(whole.checked_mul(scale)?.checked_mul(12)?)?;
        let extra = (fraction * scale as f64 * 12.0).round_ties_even();
        self.months = self.months.checked_add(f64_to_i64(extra)?)?;
        Some(())
    }

    fn finish(self, errors: &Errors<'_>) -> Result<Interval, TypeError> {
        if self.seen == 0 {
            return Err(errors.syntax());
        }
        // 22015, as PostgreSQL, except that it says 22008 ("interval out of range") when
        // the years fit but their months do not (`178956971 years`): months here count both.
        let months = i32::try_from(self.months).map_err(|_| errors.overflow())?;
        let days = i32::try_from(self.days).map_err(|_| errors.overflow())?;
        let interval = Interval::new(months, days, self.micros);
        if self.negate {
            interval.checked_neg().map_err(|_| errors.overflow())
        } else {
            Ok(interval)
        }
    }
}

/// A piece of verbose interval text.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Token<'a> {
    /// A signed number: its whole part and its fraction (with the same sign).
    Number { whole: i64, fraction: f64 },
    /// `[-]H:MM[:SS[.f]]` as microseconds.
    Time(i64),
    /// `Y-M` as months.
    YearMonth(i64),
    /// A unit or `ago`.
    Word(&'a str),
}

/// A byte cursor over lower-cased ASCII interval text.
struct Cursor<'a> {
    text: &'a str,
    position: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.position).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.text.as_bytes().get(self.position + offset).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.position += usize::from(found);
        found
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.position += 1;
        }
    }

    /// Decimal digits as a number (`None` for none, or for too many to fit).
    fn integer(&mut self) -> Option<Result<i64, ()>> {
        let start = self.position;
        let mut value: Option<i64> = Some(0);
        while let Some(b @ b'0'..=b'9') = self.peek() {
            value = value
                .and_then(|v| v.checked_mul(10))
                .and_then(|v| v.checked_add(i64::from(b - b'0')));
            self.position += 1;
        }
        (self.position > start).then_some(value.ok_or(()))
    }

    /// `.digits` as a fraction in [0, 1); `Some(0.0)` when there is no `.`.
    fn fraction(&mut self) -> Option<f64> {
        if !self.eat(b'.') {
            return Some(0.0);
        }
        let start = self.position;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.position += 1;
        }
        // The digits with a leading "0." parse as a double; none at all is "1." style, 0.
        let digits = self.text.get(start..self.position)?;
        if digits.is_empty() {
            return Some(0.0);
        }
        format!("0.{digits}").parse().ok()
    }

    fn word(&mut self) -> &'a str {
        let start = self.position;
        while self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
            self.position += 1;
        }
        self.text.get(start..self.position).unwrap_or("")
    }
}

/// Splits verbose interval text into tokens.
fn tokenize<'a>(text: &'a str, errors: &Errors<'_>) -> Result<Vec<Token<'a>>, TypeError> {
    let mut cursor = Cursor { text, position: 0 };
    let mut tokens = Vec::new();
    cursor.skip_spaces();
    cursor.eat(b'@');
    loop {
        cursor.skip_spaces();
        let Some(byte) = cursor.peek() else {
            return Ok(tokens);
        };
        if byte.is_ascii_alphabetic() {
            tokens.push(Token::Word(cursor.word()));
            continue;
        }
        let negative = match byte {
            b'-' => true,
            b'+' => false,
            b'0'..=b'9' | b'.' => {
                tokens.push(number_token(&mut cursor, false, errors)?);
                continue;
            }
            _ => return Err(errors.syntax()),
        };
        cursor.position += 1;
        if !cursor
            .peek()
            .is_some_and(|b| b.is_ascii_digit() || b == b'.')
        {
            return Err(errors.syntax());
        }
        tokens.push(number_token(&mut cursor, negative, errors)?);
    }
}

/// A number, time or year-month starting at the cursor (after its sign).
fn number_token<'a>(
    cursor: &mut Cursor<'_>,
    negative: bool,
    errors: &Errors<'_>,
) -> Result<Token<'a>, TypeError> {
    let sign = if negative { -1 } else { 1 };
    let whole = match cursor.integer() {
        Some(Ok(whole)) => whole,
        Some(Err(())) => return Err(errors.overflow()),
        None => 0,
    };
    if cursor.peek() == Some(b':') {
        let micros = time_token(cursor, whole, errors)?;
        return Ok(Token::Time(sign * micros));
    }
    if cursor.peek() == Some(b'-') && cursor.peek_at(1).is_some_and(|b| b.is_ascii_digit()) {
        cursor.position += 1;
        let months = match cursor.integer() {
            Some(Ok(months)) if months < 12 => months,
            _ => return Err(errors.overflow()),
        };
        let total = whole
            .checked_mul(12)
            .and_then(|m| m.checked_add(months))
            .ok_or_else(|| errors.overflow())?;
        return Ok(Token::YearMonth(sign * total));
    }
    let fraction = cursor.fraction().ok_or_else(|| errors.syntax())?;
    Ok(Token::Number {
        whole: sign * whole,
        fraction: if negative { -fraction } else { fraction },
    })
}

/// The rest of `H:MM[:SS[.f]]` after the hours, as unsigned microseconds.
fn time_token(cursor: &mut Cursor<'_>, hours: i64, errors: &Errors<'_>) -> Result<i64, TypeError> {
    let part = |cursor: &mut Cursor<'_>| -> Result<i64, TypeError> {
        if !cursor.eat(b':') {
            return Err(errors.syntax());
        }
        match cursor.integer() {
            Some(Ok(value)) => Ok(value),
            _ => Err(errors.syntax()),
        }
    };
    let minutes = part(cursor)?;
    let mut seconds = 0;
    let mut fraction = 0.0;
    if cursor.peek() == Some(b':') {
        seconds = part(cursor)?;
        fraction = cursor.fraction().ok_or_else(|| errors.syntax())?;
    }
    // PostgreSQL's DecodeTime: minutes below 60, seconds up to 60 (a leap second).
    if minutes > 59 || seconds > 60 {
        return Err(errors.overflow());
    }
    let fraction_micros = (fraction * 1e6).round_ties_even() as i64;
    hours
        .checked_mul(MICROS_PER_HOUR)
        .and_then(|micros| micros.checked_add(minutes * MICROS_PER_MINUTE))
        .and_then(|micros| micros.checked_add(seconds * MICROS_PER_SECOND + fraction_micros))
        .ok_or_else(|| errors.overflow())
}

/// PostgreSQL's verbose (and SQL-standard) interval text.
fn parse_verbose(
    text: &str,
    default_unit: Unit,
    fields: &mut Fields,
    errors: &Errors<'_>,
) -> Result<(), TypeError> {
    let tokens = tokenize(text, errors)?;
    let mut index = 0;
    while let Some(&token) = tokens.get(index) {
        index += 1;
        match token {
            Token::Number { whole, fraction } => {
                let unit = match tokens.get(index) {
                    Some(Token::Word(word)) if Unit::named(word).is_some() => {
                        index += 1;
                        Unit::named(word).unwrap_or(default_unit)
                    }
                    // `'3 04:05:06'`: a number before a time counts days.
                    Some(Token::Time(_)) => Unit::Day,
                    _ => default_unit,
                };
                if !fields.claim(unit.mask(fraction)) {
                    return Err(errors.syntax());
                }
                fields
                    .add(unit, whole, fraction)
                    .ok_or_else(|| errors.overflow())?;
            }
            Token::Time(micros) => {
                if !fields.claim(TIME_MASK) {
                    return Err(errors.syntax());
                }
                fields.micros = fields
                    .micros
                    .checked_add(micros)
                    .ok_or_else(|| errors.overflow())?;
            }
            Token::YearMonth(months) => {
                if !fields.claim(YEAR_MONTH_MASK) {
                    return Err(errors.syntax());
                }
                fields.months = fields
                    .months
                    .checked_add(months)
                    .ok_or_else(|| errors.overflow())?;
            }
            Token::Word("ago") if index == tokens.len() && index > 1 => fields.negate = true,
            Token::Word(_) => return Err(errors.syntax()),
        }
    }
    Ok(())
}

/// ISO 8601 with designators, after the `P`.
fn parse_iso(text: &str, fields: &mut Fields, errors: &Errors<'_>) -> Result<(), TypeError> {
    let mut cursor = Cursor { text, position: 0 };
    let mut in_time = false;
    while cursor.peek().is_some() {
        if cursor.eat(b't') {
            if in_time || cursor.peek().is_none() {
                return Err(errors.syntax());
            }
            in_time = true;
            continue;
        }
        let negative = if cursor.eat(b'-') {
            true
        } else {
            cursor.eat(b'+');
            false
        };
        let whole = match cursor.integer() {
            Some(Ok(whole)) => whole,
            Some(Err(())) => return Err(errors.overflow()),
            None if cursor.peek() == Some(b'.') => 0,
            None => return Err(errors.syntax()),
        };
        let fraction = cursor.fraction().ok_or_else(|| errors.syntax())?;
        let sign = if negative { -1 } else { 1 };
        let unit = match (in_time, cursor.peek()) {
            (false, Some(b'y')) => Unit::Year,
            (false, Some(b'm')) => Unit::Month,
            (false, Some(b'w')) => Unit::Week,
            (false, Some(b'd')) => Unit::Day,
            (true, Some(b'h')) => Unit::Hour,
            (true, Some(b'm')) => Unit::Minute,
            (true, Some(b's')) => Unit::Second,
            _ => return Err(errors.syntax()),
        };
        cursor.position += 1;
        if !fields.claim(unit.mask(fraction)) {
            return Err(errors.syntax());
        }
        fields
            .add(
                unit,
                sign * whole,
                if negative { -fraction } else { fraction },
            )
            .ok_or_else(|| errors.overflow())?;
    }
    Ok(())
}
