//! Calendar arithmetic, parsing and formatting for DATE and TIMESTAMP.
//!
//! A DATE is days since 1970-01-01 and a TIMESTAMP microseconds since 1970-01-01 00:00:00,
//! both in the proleptic Gregorian calendar without time zone (see [`crate::types`]). This
//! module converts between those counts and calendar fields; [`super::cast`](mod@super::cast)
//! uses it for text conversion and the date/time scalar functions for `date_part` and
//! `date_trunc`.
//!
//! Everything is total: out-of-range inputs produce [`TypeError`]s, never panics. Calendar
//! math is done in `i64`/`i128` so that every `i32` day count and every `i64` microsecond
//! count can be converted to fields and back without overflow.
//!
//! Accepted input (after trimming whitespace, case-insensitive):
//! `YYYY-MM-DD`, optionally followed by a time `HH:MM[:SS[.fraction]]` separated by spaces or
//! `T`, optionally followed by a zone (`Z`, `UTC`, `GMT`, `±HH`, `±HH:MM`, `±HHMM`) which is
//! converted to UTC, optionally followed by `AD` or `BC`; also the special value `epoch`.
//! Years have 1 to 7 digits. Fractions beyond microseconds are rounded half up. A DATE
//! accepts the same forms and ignores the time and zone, as PostgreSQL does. A zone *name*
//! (`Europe/Berlin`) in place of the offset is parsed too, but only TIMESTAMPTZ input
//! ([`super::timezone`]) accepts it; TIMESTAMP and DATE refuse it as before.

use super::TypeError;

/// Microseconds in one day.
pub(crate) const MICROS_PER_DAY: i64 = 86_400_000_000;
/// Microseconds in one second.
pub(crate) const MICROS_PER_SECOND: i64 = 1_000_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (year 0 is 1 BC).
///
/// `month` must be 1..=12 and `day` 1..=31; callers validate with [`days_in_month`] first.
/// Correct for any year that fits in a few billion days (Howard Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let month = i64::from(month);
    let day = i64::from(day);
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The (year, month, day) of a day count; the inverse of [`days_from_civil`].
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    // Both are small by construction (1..=31, 1..=12); the fallbacks are unreachable.
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

/// Whether `year` (astronomical numbering) is a Gregorian leap year.
pub(crate) fn is_leap_year(year: i64) -> bool {
    year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
}

/// The number of days in a month, or 0 for a month outside 1..=12.
pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// A point in time split into a day count and the microseconds into that day.
///
/// Splitting keeps every DATE (whose midnight may not fit in an `i64` of microseconds) and
/// every TIMESTAMP representable in one form for field extraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DayTime {
    /// Days since 1970-01-01.
    pub days: i64,
    /// Microseconds since midnight, in `0..MICROS_PER_DAY`.
    pub micros: i64,
}

impl DayTime {
    /// The split form of a TIMESTAMP.
    pub fn from_timestamp(micros: i64) -> DayTime {
        DayTime {
            days: micros.div_euclid(MICROS_PER_DAY),
            micros: micros.rem_euclid(MICROS_PER_DAY),
        }
    }

    /// The split form of a DATE (midnight).
    pub fn from_date(days: i32) -> DayTime {
        DayTime {
            days: i64::from(days),
            micros: 0,
        }
    }

    /// Back to a TIMESTAMP, or an error when it does not fit.
    pub fn to_timestamp(self) -> Result<i64, TypeError> {
        let total = i128::from(self.days) * i128::from(MICROS_PER_DAY) + i128::from(self.micros);
        i64::try_from(total).map_err(|_| TypeError::DatetimeOutOfRange {
            type_name: "timestamp",
        })
    }
}

/// Converts a day count to a DATE, or an error when it does not fit.
pub(crate) fn date_from_days(days: i64) -> Result<i32, TypeError> {
    i32::try_from(days).map_err(|_| TypeError::DatetimeOutOfRange { type_name: "date" })
}

/// Microseconds of a DATE's midnight, or an error when it does not fit in a TIMESTAMP.
pub(crate) fn date_to_timestamp(days: i32) -> Result<i64, TypeError> {
    DayTime::from_date(days).to_timestamp()
}

/// The DATE containing a TIMESTAMP (always representable).
pub(crate) fn timestamp_to_date(micros: i64) -> i32 {
    // |micros / MICROS_PER_DAY| < 2^27, so this always fits; the fallback is unreachable.
    i32::try_from(micros.div_euclid(MICROS_PER_DAY)).unwrap_or(0)
}

/// Parses text as a TIMESTAMP (microseconds since the epoch, UTC).
pub fn parse_timestamp(text: &str) -> Result<i64, TypeError> {
    let parsed = parse(text, "timestamp")?;
    let total = i128::from(parsed.days) * i128::from(MICROS_PER_DAY)
        + i128::from(parsed.micros_of_day)
        - i128::from(parsed.offset_seconds.unwrap_or(0)) * i128::from(MICROS_PER_SECOND);
    i64::try_from(total).map_err(|_| TypeError::DatetimeOutOfRange {
        type_name: "timestamp",
    })
}

/// Parses text as a DATE (days since the epoch); any time of day and zone are ignored.
pub fn parse_date(text: &str) -> Result<i32, TypeError> {
    let parsed = parse(text, "date")?;
    date_from_days(parsed.days)
}

/// Formats a DATE as `YYYY-MM-DD` (with ` BC` for years before 1).
pub fn format_date(days: i32) -> String {
    let (year, month, day) = civil_from_days(i64::from(days));
    let (year, era) = display_year(year);
    format!("{year:04}-{month:02}-{day:02}{era}")
}

/// Formats a TIMESTAMP as `YYYY-MM-DD HH:MM:SS[.ffffff]`, the fraction only when non-zero
/// and without trailing zeros (PostgreSQL's ISO output style).
pub fn format_timestamp(micros: i64) -> String {
    let split = DayTime::from_timestamp(micros);
    let (year, month, day) = civil_from_days(split.days);
    let (year, era) = display_year(year);
    let seconds_of_day = split.micros / MICROS_PER_SECOND;
    let fraction = split.micros % MICROS_PER_SECOND;
    let (hour, minute, second) = (
        seconds_of_day / 3600,
        seconds_of_day / 60 % 60,
        seconds_of_day % 60,
    );
    let mut out = format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}");
    if fraction != 0 {
        let digits = format!("{fraction:06}");
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
    out.push_str(era);
    out
}

/// PostgreSQL shows years before 1 as positive years with a ` BC` suffix (year 0 is 1 BC).
fn display_year(year: i64) -> (i64, &'static str) {
    if year <= 0 {
        (1 - year, " BC")
    } else {
        (year, "")
    }
}

/// The fields of parsed date/time text, before conversion to a count.
pub(crate) struct Parsed {
    /// Days since 1970-01-01 of the date written.
    pub days: i64,
    /// The time written, in microseconds since midnight.
    pub micros_of_day: i64,
    /// The offset written (`+02`, `Z`), in seconds east of UTC.
    pub offset_seconds: Option<i64>,
    /// A zone name written after the time (`Europe/Berlin`), for TIMESTAMPTZ to resolve.
    pub zone: Option<String>,
}

/// A byte cursor over ASCII date/time text.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn skip_spaces(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
        self.pos > start
    }

    /// Up to `max` digits (at least one) as a number and the digit count.
    fn digits(&mut self, max: usize) -> Option<(i64, usize)> {
        let mut value: i64 = 0;
        let mut count = 0;
        while count < max {
            match self.peek() {
                Some(b @ b'0'..=b'9') => {
                    value = value * 10 + i64::from(b - b'0');
                    count += 1;
                    self.pos += 1;
                }
                _ => break,
            }
        }
        (count > 0).then_some((value, count))
    }

    /// Consumes `word` case-insensitively when it comes next.
    fn eat_word(&mut self, word: &str) -> bool {
        let end = self.pos + word.len();
        match self.bytes.get(self.pos..end) {
            Some(slice) if slice.eq_ignore_ascii_case(word.as_bytes()) => {
                self.pos = end;
                true
            }
            _ => false,
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }
}

/// Parses text that TIMESTAMP and DATE read with no zone name: a name is a syntax error
/// for them, as before TIMESTAMPTZ existed.
fn parse(text: &str, type_name: &'static str) -> Result<Parsed, TypeError> {
    let parsed = parse_with_zone(text, type_name)?;
    if parsed.zone.is_some() {
        return Err(TypeError::InvalidDatetimeFormat {
            type_name,
            text: text.to_owned(),
        });
    }
    Ok(parsed)
}

/// Parses a date and time, leaving a zone name written after it to the caller.
pub(crate) fn parse_with_zone(text: &str, type_name: &'static str) -> Result<Parsed, TypeError> {
    let trimmed = text.trim();
    let syntax = || TypeError::InvalidDatetimeFormat {
        type_name,
        text: text.to_owned(),
    };
    let range = || TypeError::DatetimeFieldOverflow {
        text: text.to_owned(),
    };
    if trimmed.eq_ignore_ascii_case("epoch") {
        return Ok(Parsed {
            days: 0,
            micros_of_day: 0,
            offset_seconds: Some(0),
            zone: None,
        });
    }
    let mut cur = Cursor {
        bytes: trimmed.as_bytes(),
        pos: 0,
    };

    let (year, _) = cur.digits(7).ok_or_else(syntax)?;
    if !cur.eat(b'-') {
        return Err(syntax());
    }
    let (month, _) = cur.digits(2).ok_or_else(syntax)?;
    if !cur.eat(b'-') {
        return Err(syntax());
    }
    let (day, _) = cur.digits(2).ok_or_else(syntax)?;

    // Time of day, after spaces or a `T`.
    let mut micros_of_day = 0;
    let mut time_fields_valid = true;
    let had_space = cur.skip_spaces();
    let has_time = if cur.peek().is_some_and(|b| b == b'T' || b == b't') {
        cur.pos += 1;
        true
    } else {
        had_space && cur.peek().is_some_and(|b| b.is_ascii_digit())
    };
    if has_time {
        let (hour, _) = cur.digits(2).ok_or_else(syntax)?;
        if !cur.eat(b':') {
            return Err(syntax());
        }
        let (minute, _) = cur.digits(2).ok_or_else(syntax)?;
        let mut second = 0;
        let mut fraction = 0;
        if cur.eat(b':') {
            second = cur.digits(2).ok_or_else(syntax)?.0;
            if cur.eat(b'.') {
                fraction = parse_fraction(&mut cur).ok_or_else(syntax)?;
            }
        }
        // PostgreSQL accepts 24:00:00 (the next midnight) and a leap second 60.
        time_fields_valid = minute <= 59
            && second <= 60
            && (hour <= 23 || (hour == 24 && minute == 0 && second == 0 && fraction == 0));
        micros_of_day = ((hour * 60 + minute) * 60 + second) * MICROS_PER_SECOND + fraction;
    }

    // Zone offset, converted to UTC by the caller.
    cur.skip_spaces();
    let mut offset_seconds = None;
    let mut zone = None;
    if let Some(name) = zone_name(&mut cur) {
        zone = Some(name);
    } else if cur.eat(b'Z') || cur.eat(b'z') || cur.eat_word("UTC") || cur.eat_word("GMT") {
        offset_seconds = Some(0);
        // UTC: no offset.
    } else if let Some(sign @ (b'+' | b'-')) = cur.peek() {
        cur.pos += 1;
        let (first, count) = cur.digits(4).ok_or_else(syntax)?;
        let (hours, mut minutes) = match count {
            1 | 2 => (first, 0),
            4 => (first / 100, first % 100),
            _ => return Err(syntax()),
        };
        if count <= 2 && cur.eat(b':') {
            minutes = cur.digits(2).ok_or_else(syntax)?.0;
        }
        if hours > 15 || minutes > 59 {
            return Err(range());
        }
        let magnitude = hours * 3600 + minutes * 60;
        offset_seconds = Some(if sign == b'-' { -magnitude } else { magnitude });
    }

    // Era.
    cur.skip_spaces();
    let bc = if cur.eat_word("BC") {
        true
    } else {
        cur.eat_word("AD");
        false
    };
    cur.skip_spaces();
    if !cur.at_end() {
        return Err(syntax());
    }

    if year == 0 || !time_fields_valid {
        return Err(range());
    }
    let year = if bc { 1 - year } else { year };
    let month = u32::try_from(month).map_err(|_| range())?;
    let day = u32::try_from(day).map_err(|_| range())?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return Err(range());
    }
    Ok(Parsed {
        days: days_from_civil(year, month, day),
        micros_of_day,
        offset_seconds,
        zone,
    })
}

/// A zone name at the cursor (`Europe/Berlin`, `America/Argentina/Buenos_Aires`, `EST`),
/// consumed; `None`, consuming nothing, when the word there is an era (`BC`, `AD`) or one of
/// the UTC spellings the offset branch reads (`Z`, `UTC`, `GMT`).
fn zone_name(cur: &mut Cursor<'_>) -> Option<String> {
    if !cur.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let start = cur.pos;
    let mut end = start;
    while cur
        .bytes
        .get(end)
        .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'-' | b'+'))
    {
        end += 1;
    }
    let word = std::str::from_utf8(cur.bytes.get(start..end)?).ok()?;
    if ["bc", "ad", "z", "utc", "gmt"]
        .iter()
        .any(|reserved| word.eq_ignore_ascii_case(reserved))
    {
        return None;
    }
    cur.pos = end;
    Some(word.to_string())
}

/// Fractional-second digits as microseconds, rounded half up at the seventh digit.
fn parse_fraction(cur: &mut Cursor<'_>) -> Option<i64> {
    let mut micros = 0;
    let mut count = 0;
    let mut round_up = false;
    while let Some(b @ b'0'..=b'9') = cur.peek() {
        let digit = i64::from(b - b'0');
        if count < 6 {
            micros = micros * 10 + digit;
        } else if count == 6 {
            round_up = digit >= 5;
        }
        count += 1;
        cur.pos += 1;
    }
    if count == 0 {
        return None;
    }
    for _ in count..6 {
        micros *= 10;
    }
    Some(micros + i64::from(round_up))
}

/// Calendar fields for `date_part`/`EXTRACT`.
pub(crate) struct Fields {
    /// Astronomical year (0 is 1 BC).
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: i64,
    pub minute: i64,
    /// Whole seconds.
    pub second: i64,
    /// Microseconds within the second.
    pub micros: i64,
}

impl Fields {
    pub fn of(point: DayTime) -> Fields {
        let (year, month, day) = civil_from_days(point.days);
        let seconds = point.micros / MICROS_PER_SECOND;
        Fields {
            year,
            month,
            day,
            hour: seconds / 3600,
            minute: seconds / 60 % 60,
            second: seconds % 60,
            micros: point.micros % MICROS_PER_SECOND,
        }
    }
}

/// ISO 8601 day of week: Monday 1 through Sunday 7.
pub(crate) fn iso_day_of_week(days: i64) -> i64 {
    // 1970-01-01 was a Thursday (ISO 4).
    (days + 3).rem_euclid(7) + 1
}

/// ISO 8601 (year, week number) of a day.
pub(crate) fn iso_week(days: i64) -> (i64, i64) {
    // The ISO year of a day is the calendar year of the Thursday in its week.
    let thursday = days - iso_day_of_week(days) + 4;
    let (iso_year, _, _) = civil_from_days(thursday);
    let week = (thursday - days_from_civil(iso_year, 1, 1)) / 7 + 1;
    (iso_year, week)
}
