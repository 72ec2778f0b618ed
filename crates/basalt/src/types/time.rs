//! `TIME` (`TIME WITHOUT TIME ZONE`): a time of day in microseconds since midnight, as
//! PostgreSQL 15 keeps it — `0` (`00:00:00`) to `86_400_000_000` (`24:00:00`, which
//! PostgreSQL accepts and keeps distinct from the next midnight).
//!
//! This module owns the type's semantics: its input forms ([`parse_time`]: `13:45`,
//! `13:45:10.123456`, `1:45 pm`, `24:00:00`, `allballs`, a leading date and a trailing zone
//! offset that PostgreSQL reads and discards), its output ([`format_time`],
//! `HH:MM:SS[.ffffff]` with trailing zeros of the fraction dropped), `TIME(p)`'s rounding
//! ([`round_to_precision`]), and the arithmetic PostgreSQL defines on it (time ± interval
//! wraps around midnight, time − time is an interval, date + time is a timestamp). Casts,
//! comparison and storage dispatch here from the per-type arms elsewhere.

use super::TypeError;
use super::datetime::{MICROS_PER_DAY, MICROS_PER_SECOND, parse_date};
use super::interval::Interval;

/// The largest precision `TIME(p)` keeps (microseconds). PostgreSQL reduces a larger
/// declared precision to this with a warning; Basalt reduces it silently.
pub const MAX_PRECISION: u32 = 6;

/// Parses PostgreSQL's time input: an optional date (read and discarded), then
/// `H[H]:MM[:SS[.fraction]]`, an optional `am` / `pm`, and an optional zone (`Z`, `UTC`,
/// `+02`, `-05:30`), also discarded, as `time_in` does. `allballs` is midnight.
///
/// Malformed text is 22007; a field out of range (`25:00`, `12:60`, `13:00 pm`, past
/// `24:00:00`) is 22008, PostgreSQL's codes.
pub fn parse_time(text: &str) -> Result<i64, TypeError> {
    let syntax = || TypeError::InvalidDatetimeFormat {
        type_name: "time",
        text: text.to_owned(),
    };
    let range = || TypeError::DatetimeFieldOverflow {
        text: text.to_owned(),
    };
    let mut rest = text.trim();
    if rest.eq_ignore_ascii_case("allballs") {
        return Ok(0);
    }
    // A leading ISO date (`2024-01-31 13:45`, `2024-01-31T13:45`) is read and dropped.
    if let Some(cut) = rest.find([' ', 'T', 't']) {
        let (head, tail) = rest.split_at(cut);
        if head.contains('-') && parse_date(head).is_ok() {
            rest = tail[1..].trim_start();
        }
    }
    let bytes = rest.as_bytes();
    let mut pos = 0;
    let number = |pos: &mut usize, max: usize| -> Option<i64> {
        let start = *pos;
        let mut value: i64 = 0;
        while *pos < bytes.len() && *pos - start < max && bytes[*pos].is_ascii_digit() {
            value = value * 10 + i64::from(bytes[*pos] - b'0');
            *pos += 1;
        }
        (*pos > start).then_some(value)
    };
    let hour = number(&mut pos, 2).ok_or_else(syntax)?;
    if bytes.get(pos) != Some(&b':') {
        return Err(syntax());
    }
    pos += 1;
    let minute = number(&mut pos, 2).ok_or_else(syntax)?;
    let (mut second, mut fraction) = (0, 0);
    if bytes.get(pos) == Some(&b':') {
        pos += 1;
        second = number(&mut pos, 2).ok_or_else(syntax)?;
        if bytes.get(pos) == Some(&b'.') {
            pos += 1;
            let start = pos;
            while bytes.get(pos).is_some_and(u8::is_ascii_digit) {
                pos += 1;
            }
            fraction = fraction_micros(&bytes[start..pos]).ok_or_else(syntax)?;
        }
    }
    let mut tail = rest[pos..].trim_start();
    // AM / PM, as PostgreSQL's meridian: 12 am is midnight, 12 pm noon, past 12 is 22008.
    let mut meridian = None;
    for (word, is_pm) in [("am", false), ("a.m.", false), ("pm", true), ("p.m.", true)] {
        if tail.len() >= word.len()
            && tail.is_char_boundary(word.len())
            && tail[..word.len()].eq_ignore_ascii_case(word)
        {
            meridian = Some(is_pm);
            tail = tail[word.len()..].trim_start();
            break;
        }
    }
    if !zone_suffix(tail) {
        return Err(syntax());
    }
    let hour = match meridian {
        Some(_) if hour > 12 => return Err(range()),
        Some(false) if hour == 12 => 0,
        Some(true) if hour < 12 => hour + 12,
        _ => hour,
    };
    if minute > 59
        || second > 60
        || hour > 24
        || (hour == 24 && (minute > 0 || second > 0 || fraction > 0))
    {
        return Err(range());
    }
    let micros = ((hour * 60 + minute) * 60 + second) * MICROS_PER_SECOND + fraction;
    if micros > MICROS_PER_DAY {
        return Err(range());
    }
    Ok(micros)
}

/// Whether `tail` is empty or a zone PostgreSQL's time input accepts and ignores.
fn zone_suffix(tail: &str) -> bool {
    let tail = tail.trim();
    if tail.is_empty()
        || ["z", "utc", "gmt"]
            .iter()
            .any(|w| tail.eq_ignore_ascii_case(w))
    {
        return true;
    }
    let Some(offset) = tail.strip_prefix(['+', '-']) else {
        return false;
    };
    let digits = offset.replace(':', "");
    !digits.is_empty() && digits.len() <= 4 && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Fractional-second digits as microseconds, rounded half up at the seventh digit (so
/// `23:59:59.9999999` is `24:00:00`, as in PostgreSQL).
fn fraction_micros(digits: &[u8]) -> Option<i64> {
    if digits.is_empty() {
        return None;
    }
    let mut micros = 0;
    for position in 0..6 {
        micros = micros * 10 + digits.get(position).map_or(0, |d| i64::from(d - b'0'));
    }
    Some(micros + i64::from(digits.get(6).is_some_and(|&d| d >= b'5')))
}

/// `HH:MM:SS`, with `.ffffff` (trailing zeros dropped) when there is a fraction.
pub fn format_time(micros: i64) -> String {
    let seconds = micros.div_euclid(MICROS_PER_SECOND);
    let fraction = micros.rem_euclid(MICROS_PER_SECOND);
    let mut out = format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
    if fraction != 0 {
        let digits = format!("{fraction:06}");
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
    out
}

/// A time rounded to `precision` fractional digits, half up, as PostgreSQL's
/// `AdjustTimeForTypmod` (`23:59:59.5` in `TIME(0)` is `24:00:00`).
pub fn round_to_precision(micros: i64, precision: Option<u32>) -> i64 {
    let Some(precision) = precision.filter(|&p| p < MAX_PRECISION) else {
        return micros;
    };
    let scale = 10_i64.pow(MAX_PRECISION - precision);
    (micros + scale / 2).div_euclid(scale) * scale
}

/// `time + interval`: only the interval's time part counts (PostgreSQL ignores its days
/// and months), and the result wraps around midnight.
pub fn add_interval(time: i64, interval: Interval) -> i64 {
    (i128::from(time) + i128::from(interval.micros())).rem_euclid(i128::from(MICROS_PER_DAY)) as i64
}

/// `time - interval`.
pub fn subtract_interval(time: i64, interval: Interval) -> i64 {
    (i128::from(time) - i128::from(interval.micros())).rem_euclid(i128::from(MICROS_PER_DAY)) as i64
}

/// `time - time`: an interval of microseconds only (`'01:00' - '23:00'` is `-22:00:00`).
pub fn difference(later: i64, earlier: i64) -> Interval {
    Interval::new(0, 0, later - earlier)
}

/// `interval::time`: the interval's time part modulo a day, as PostgreSQL's
/// `interval_time` (days and months dropped; a negative time counts back from midnight).
pub fn from_interval(interval: Interval) -> i64 {
    interval.micros().rem_euclid(MICROS_PER_DAY)
}

/// `timestamp::time`: the time of day of a local timestamp.
pub fn from_timestamp(micros: i64) -> i64 {
    micros.rem_euclid(MICROS_PER_DAY)
}

/// `date_part(field, time)`: the fields PostgreSQL's `time_part` knows; a unit it knows
/// that a time does not have is 0A000, an unknown one 22023, with PostgreSQL's messages.
pub fn part(unit: &str, micros: i64) -> Result<f64, TypeError> {
    let seconds_part = micros % (60 * MICROS_PER_SECOND);
    let field = unit.trim().to_ascii_lowercase();
    Ok(match field.as_str() {
        "microsecond" | "microseconds" | "us" | "usec" | "usecs" => seconds_part as f64,
        "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" => seconds_part as f64 / 1000.0,
        "second" | "seconds" | "s" | "sec" | "secs" => seconds_part as f64 / 1_000_000.0,
        "minute" | "minutes" | "m" | "min" | "mins" => (micros / 60_000_000 % 60) as f64,
        "hour" | "hours" | "h" | "hr" | "hrs" => (micros / 3_600_000_000) as f64,
        "epoch" => micros as f64 / 1_000_000.0,
        "day" | "days" | "d" | "month" | "months" | "mon" | "mons" | "year" | "years" | "y"
        | "yr" | "yrs" | "week" | "weeks" | "w" | "quarter" | "decade" | "decades" | "century"
        | "centuries" | "millennium" | "millennia" | "dow" | "doy" | "isodow" | "isoyear"
        | "julian" | "timezone" | "timezone_hour" | "timezone_minute" => {
            return Err(TypeError::FeatureNotSupported(format!(
                "unit \"{unit}\" not supported for type time without time zone"
            )));
        }
        _ => {
            return Err(TypeError::InvalidArgument(format!(
                "unit \"{unit}\" not recognized for type time without time zone"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn micros(h: i64, m: i64, s: i64, f: i64) -> i64 {
        ((h * 60 + m) * 60 + s) * MICROS_PER_SECOND + f
    }

    #[test]
    fn parses_postgresql_input_forms() {
        let ok = |text: &str| parse_time(text).map_err(|e| e.code());
        assert_eq!(ok("13:45"), Ok(micros(13, 45, 0, 0)));
        assert_eq!(ok("13:45:10.123456"), Ok(micros(13, 45, 10, 123_456)));
        assert_eq!(ok("1:45 pm"), Ok(micros(13, 45, 0, 0)));
        assert_eq!(ok("12:00 AM"), Ok(0));
        assert_eq!(ok("12:30 pm"), Ok(micros(12, 30, 0, 0)));
        assert_eq!(ok("24:00:00"), Ok(MICROS_PER_DAY));
        assert_eq!(ok(" allballs "), Ok(0));
        assert_eq!(ok("2024-01-31 04:05:06"), Ok(micros(4, 5, 6, 0)));
        assert_eq!(ok("04:05:06+02"), Ok(micros(4, 5, 6, 0)));
        assert_eq!(ok("23:59:59.9999999"), Ok(MICROS_PER_DAY));
        assert_eq!(ok("1.5"), Err("22007"));
        assert_eq!(ok("abc"), Err("22007"));
        assert_eq!(ok("12:00 xyz"), Err("22007"));
        assert_eq!(ok("25:00"), Err("22008"));
        assert_eq!(ok("12:60"), Err("22008"));
        assert_eq!(ok("13:00 pm"), Err("22008"));
        assert_eq!(ok("24:00:01"), Err("22008"));
    }

    #[test]
    fn formats_and_rounds() {
        assert_eq!(format_time(micros(13, 45, 10, 123_450)), "13:45:10.12345");
        assert_eq!(format_time(0), "00:00:00");
        assert_eq!(format_time(MICROS_PER_DAY), "24:00:00");
        assert_eq!(
            round_to_precision(micros(1, 2, 3, 456_789), Some(2)),
            micros(1, 2, 3, 460_000)
        );
        assert_eq!(
            round_to_precision(micros(23, 59, 59, 500_000), Some(0)),
            MICROS_PER_DAY
        );
        assert_eq!(round_to_precision(7, None), 7);
    }

    #[test]
    fn arithmetic_wraps_around_midnight() {
        let hour = Interval::new(0, 0, 3_600_000_000);
        assert_eq!(
            add_interval(micros(23, 30, 0, 0), hour),
            micros(0, 30, 0, 0)
        );
        assert_eq!(
            subtract_interval(micros(0, 30, 0, 0), hour),
            micros(23, 30, 0, 0)
        );
        assert_eq!(add_interval(0, Interval::new(1, 1, 0)), 0);
        assert_eq!(difference(0, micros(1, 0, 0, 0)).micros(), -3_600_000_000);
        assert_eq!(
            from_interval(Interval::new(0, 3, -3_600_000_000)),
            micros(23, 0, 0, 0)
        );
    }
}
