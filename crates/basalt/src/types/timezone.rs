//! Time zones for TIMESTAMPTZ: the session's zone, zone names, and conversions between an
//! instant and the local time of a zone, with PostgreSQL's rules.
//!
//! A TIMESTAMPTZ is an instant (microseconds since 1970-01-01 00:00:00 UTC); only its text
//! forms and the calendar arithmetic on it depend on a zone. Zones come from the `jiff`
//! crate with the IANA tz database bundled into the binary (its `tzdb-bundle-always`
//! feature), so zone names behave the same on every machine, with or without
//! /usr/share/zoneinfo.
//!
//! The session's zone (`SET TIME ZONE`) reaches casts and output formatting through a
//! per-thread slot rather than as an argument: casts ([`super::cast`](mod@super::cast)) and
//! `Display for Value` are called from many places that have no execution context. The
//! session installs its zone into the slot before it binds a statement, and the statement's
//! execution context (which carries the zone) installs it again each time rows are pulled
//! (see `api::session` and `exec::context`), so statements of sessions interleaving on one
//! thread each compute in their own zone. Text made *outside* the engine from a result's
//! values (`Display`, `FromSql for String`) uses the zone of the statement that last pulled
//! rows on this thread: read a result's rows before pulling another session's. The default
//! is UTC.
//!
//! Everything here is total: an unknown zone is a [`TypeError`] (22023), instants outside
//! the tz database's range use the offset at its nearest end, and nothing panics.

use std::cell::RefCell;

use jiff::tz::{AmbiguousOffset, Offset, TimeZone};

use super::TypeError;
use super::datetime::{DayTime, MICROS_PER_SECOND, civil_from_days, days_from_civil};

thread_local! {
    /// The zone of the session that last bound or ran a statement on this thread.
    static SESSION_ZONE: RefCell<TimeZone> = const { RefCell::new(TimeZone::UTC) };
}

/// Makes `zone` the session zone that casts and formatting on this thread use.
pub fn install_session_zone(zone: &TimeZone) {
    SESSION_ZONE.with(|slot| *slot.borrow_mut() = zone.clone());
}

/// The session zone installed on this thread (UTC when no session set one).
pub fn session_zone() -> TimeZone {
    SESSION_ZONE.with(|slot| slot.borrow().clone())
}

/// The error PostgreSQL raises for a zone name it does not know (22023).
fn unknown_zone(name: &str) -> TypeError {
    TypeError::InvalidArgument(format!("time zone \"{name}\" not recognized"))
}

/// The time zone abbreviations PostgreSQL 15 knows by default (its `Default` set, as
/// `pg_timezone_abbrevs` lists them) that input and `AT TIME ZONE` may use, with their
/// offsets in seconds east of UTC. PostgreSQL looks abbreviations up *before* zone names, so
/// `CET` is a fixed +01 here even in summer, where the tz database's `CET` zone has DST.
const ABBREVIATIONS: &[(&str, i64)] = &[
    ("ACDT", 37_800),
    ("ACST", 34_200),
    ("AEDT", 39_600),
    ("AEST", 36_000),
    ("AKDT", -28_800),
    ("AKST", -32_400),
    ("AWST", 28_800),
    ("BST", 3_600),
    ("CDT", -18_000),
    ("CEST", 7_200),
    ("CET", 3_600),
    ("CST", -21_600),
    ("EDT", -14_400),
    ("EEST", 10_800),
    ("EET", 7_200),
    ("EST", -18_000),
    ("HST", -36_000),
    ("IST", 7_200),
    ("JST", 32_400),
    ("KST", 32_400),
    ("MDT", -21_600),
    ("MEST", 7_200),
    ("MET", 3_600),
    ("MSK", 10_800),
    ("MST", -25_200),
    ("NZDT", 46_800),
    ("NZST", 43_200),
    ("PDT", -25_200),
    ("PST", -28_800),
    ("UCT", 0),
    ("UT", 0),
    ("WET", 0),
];

/// The fixed zone of a time zone abbreviation (`PST`, `cest`), if it is one.
fn abbreviation(name: &str) -> Option<TimeZone> {
    ABBREVIATIONS
        .iter()
        .find(|(abbreviation, _)| abbreviation.eq_ignore_ascii_case(name))
        .and_then(|&(_, seconds)| fixed(seconds))
}

/// A zone as `AT TIME ZONE`, `timezone(zone, ts)` and zone names inside timestamptz text
/// name it: an abbreviation (`PST`, see [`ABBREVIATIONS`]), an IANA name (`Europe/Berlin`,
/// `UTC`, any case), a POSIX zone string (`UTC+3`, `<+05>-05`), or a bare offset, which
/// PostgreSQL reads with POSIX's sign (`'+05'` is five hours *west* of UTC).
pub fn zone_named(name: &str) -> Result<TimeZone, TypeError> {
    match abbreviation(name.trim()) {
        Some(zone) => Ok(zone),
        None => zone_without_abbreviations(name),
    }
}

/// [`zone_named`] without the abbreviations, as `SET TIME ZONE` reads a zone (PostgreSQL's
/// setting takes no abbreviations: `SET TIME ZONE 'PST'` is an error).
fn zone_without_abbreviations(name: &str) -> Result<TimeZone, TypeError> {
    let trimmed = name.trim();
    if let Ok(zone) = TimeZone::get(trimmed) {
        return Ok(zone);
    }
    if let Some(seconds) = parse_offset(trimmed) {
        return fixed(-seconds).ok_or_else(|| unknown_zone(name));
    }
    TimeZone::posix(trimmed).map_err(|_| unknown_zone(name))
}

/// A zone of a fixed offset east of UTC, in seconds.
pub fn fixed(seconds: i64) -> Option<TimeZone> {
    let seconds = i32::try_from(seconds).ok()?;
    Offset::from_seconds(seconds).ok().map(TimeZone::fixed)
}

/// `[+-]HH[:MM[:SS]]` or `[+-]HHMM` as seconds (east positive, as written).
fn parse_offset(text: &str) -> Option<i64> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let parts: Vec<&str> = rest.split(':').collect();
    let number = |part: &str| -> Option<i64> {
        (!part.is_empty() && part.len() <= 2 && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse().ok())
            .flatten()
    };
    let (hours, minutes, seconds) = match parts.as_slice() {
        [hhmm] if hhmm.len() == 4 && hhmm.bytes().all(|b| b.is_ascii_digit()) => {
            (number(&hhmm[..2])?, number(&hhmm[2..])?, 0)
        }
        [hours] => (number(hours)?, 0, 0),
        [hours, minutes] => (number(hours)?, number(minutes)?, 0),
        [hours, minutes, seconds] => (number(hours)?, number(minutes)?, number(seconds)?),
        _ => return None,
    };
    (hours <= 15 && minutes < 60 && seconds < 60)
        .then_some(sign * (hours * 3600 + minutes * 60 + seconds))
}

/// `SET TIME ZONE` / `SET timezone = ...`: the zone and the name `SHOW timezone` reports.
///
/// As PostgreSQL: a number is hours east of UTC (`5.5`, `-3`), `INTERVAL '+02:00' HOUR TO
/// MINUTE` an offset east, `LOCAL` / `DEFAULT` the default zone (UTC in Basalt), anything
/// else a zone name as [`zone_named`] reads it. An unknown zone is PostgreSQL's 22023
/// `invalid value for parameter "TimeZone"`.
pub fn parse_zone_setting(text: &str) -> Result<(String, TimeZone), TypeError> {
    let trimmed = text.trim();
    let invalid = || {
        TypeError::InvalidArgument(format!(
            "invalid value for parameter \"TimeZone\": \"{trimmed}\""
        ))
    };
    if trimmed.eq_ignore_ascii_case("local") || trimmed.eq_ignore_ascii_case("default") {
        return Ok(("UTC".to_string(), TimeZone::UTC));
    }
    let offset_setting = |seconds: i64| -> Result<(String, TimeZone), TypeError> {
        let zone = fixed(seconds).filter(|_| seconds.abs() < 15 * 3600 + 60 * 60);
        let zone = zone.ok_or_else(invalid)?;
        // PostgreSQL reports such a zone in POSIX form: `<+05:30>-05:30`.
        let east = format_offset(seconds);
        let west = format_offset(-seconds);
        Ok((format!("<{east}>{west}"), zone))
    };
    if let Ok(hours) = trimmed.parse::<f64>()
        && hours.is_finite()
    {
        return offset_setting((hours * 3600.0).round() as i64);
    }
    let upper = trimmed.to_ascii_uppercase();
    if let Some(rest) = upper.strip_prefix("INTERVAL") {
        // `INTERVAL '+02:00' HOUR TO MINUTE`: the quoted text is the offset east.
        let quoted = rest.split('\'').nth(1).ok_or_else(invalid)?;
        let interval = super::interval::parse::parse_interval(quoted).map_err(|_| invalid())?;
        if interval.months() != 0 || interval.days() != 0 {
            return Err(invalid());
        }
        return offset_setting(interval.micros() / MICROS_PER_SECOND);
    }
    let zone = zone_without_abbreviations(trimmed).map_err(|_| invalid())?;
    let name = zone.iana_name().unwrap_or(trimmed).to_string();
    Ok((name, zone))
}

/// The zone's offset from UTC, in seconds, at the instant `utc` (microseconds since the
/// epoch). Instants beyond the tz database's range take the offset at its nearest end.
pub fn offset_at(zone: &TimeZone, utc: i64) -> i64 {
    let min = jiff::Timestamp::MIN.as_microsecond();
    let max = jiff::Timestamp::MAX.as_microsecond();
    let instant = jiff::Timestamp::from_microsecond(utc.clamp(min, max))
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    i64::from(zone.to_offset(instant).seconds())
}

/// The instant `utc` as local time in `zone` (microseconds since 1970-01-01 00:00 local).
pub fn utc_to_local(zone: &TimeZone, utc: i64) -> Result<i64, TypeError> {
    utc.checked_add(offset_at(zone, utc) * MICROS_PER_SECOND)
        .ok_or(TypeError::DatetimeOutOfRange {
            type_name: "timestamp",
        })
}

/// The instant at which `zone`'s clocks show `local`, as PostgreSQL resolves a local time
/// that a DST change skips (the offset from before the change: 02:30 on a spring-forward
/// night in Berlin is 03:30 CEST) or repeats (the later, standard-time one).
pub fn local_to_utc(zone: &TimeZone, local: i64) -> Result<i64, TypeError> {
    local
        .checked_sub(local_offset(zone, local) * MICROS_PER_SECOND)
        .ok_or(TypeError::DatetimeOutOfRange {
            type_name: "timestamp with time zone",
        })
}

/// The offset, in seconds, that `zone` has at local time `local`.
fn local_offset(zone: &TimeZone, local: i64) -> i64 {
    // jiff's civil times span years -9999..=9999; beyond them the offset at the end holds.
    let split = DayTime::from_timestamp(local);
    let days = split
        .days
        .clamp(days_from_civil(-9999, 1, 2), days_from_civil(9999, 12, 30));
    let (year, month, day) = civil_from_days(days);
    let seconds = split.micros / MICROS_PER_SECOND;
    let nanos = (split.micros % MICROS_PER_SECOND) * 1000;
    let civil = jiff::civil::DateTime::new(
        i16::try_from(year).unwrap_or(0),
        i8::try_from(month).unwrap_or(1),
        i8::try_from(day).unwrap_or(1),
        i8::try_from(seconds / 3600).unwrap_or(0),
        i8::try_from(seconds / 60 % 60).unwrap_or(0),
        i8::try_from(seconds % 60).unwrap_or(0),
        i32::try_from(nanos).unwrap_or(0),
    );
    let Ok(civil) = civil else {
        return offset_at(zone, local);
    };
    let offset = match zone.to_ambiguous_timestamp(civil).offset() {
        AmbiguousOffset::Unambiguous { offset } => offset,
        AmbiguousOffset::Gap { before, .. } => before,
        AmbiguousOffset::Fold { after, .. } => after,
    };
    i64::from(offset.seconds())
}

/// `timestamptz + interval` as PostgreSQL's `timestamptz_pl_interval`: months and days move
/// the session zone's local date (keeping the wall-clock time across a DST change, so noon
/// plus a day is noon the next day), the time part then moves the instant itself.
pub fn add_interval(utc: i64, interval: super::Interval) -> Result<i64, TypeError> {
    let mut result = utc;
    if interval.months() != 0 || interval.days() != 0 {
        let zone = session_zone();
        let local = utc_to_local(&zone, utc)?;
        let calendar = super::Interval::new(interval.months(), interval.days(), 0);
        let moved = super::interval::add_to_timestamp(local, calendar)?;
        result = local_to_utc(&zone, moved)?;
    }
    result
        .checked_add(interval.micros())
        .ok_or(TypeError::DatetimeOutOfRange {
            type_name: "timestamp with time zone",
        })
}

/// A TIMESTAMPTZ, or a TIMESTAMP or DATE read in the session zone, as an instant: the
/// operand of `timestamptz - timestamp` and the comparisons between them.
pub fn instant_of(value: &super::Value) -> Option<Result<i64, TypeError>> {
    match value {
        super::Value::TimestampTz(utc) => Some(Ok(*utc)),
        super::Value::Timestamp(local) => Some(local_to_utc(&session_zone(), *local)),
        super::Value::Date(days) => Some(
            super::datetime::date_to_timestamp(*days)
                .and_then(|local| local_to_utc(&session_zone(), local)),
        ),
        _ => None,
    }
}

/// An offset as PostgreSQL prints it after a timestamptz: `+01`, `+05:30`, `-04:56:02`.
pub fn format_offset(seconds: i64) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let magnitude = seconds.abs();
    let (hours, minutes, secs) = (magnitude / 3600, magnitude / 60 % 60, magnitude % 60);
    let mut out = format!("{sign}{hours:02}");
    if minutes != 0 || secs != 0 {
        out.push_str(&format!(":{minutes:02}"));
    }
    if secs != 0 {
        out.push_str(&format!(":{secs:02}"));
    }
    out
}

/// A timestamptz's text in `zone`, PostgreSQL's ISO output: `2024-03-10 11:00:00+01`,
/// `0001-01-01 05:53:28+05:53:28 BC`.
pub fn format_timestamptz_in(utc: i64, zone: &TimeZone) -> String {
    let offset = offset_at(zone, utc);
    let Some(local) = utc.checked_add(offset * MICROS_PER_SECOND) else {
        return super::datetime::format_timestamp(utc);
    };
    let text = super::datetime::format_timestamp(local);
    let offset = format_offset(offset);
    match text.strip_suffix(" BC") {
        Some(date_time) => format!("{date_time}{offset} BC"),
        None => text + &offset,
    }
}

/// A timestamptz's text in the session zone.
pub fn format_timestamptz(utc: i64) -> String {
    SESSION_ZONE.with(|slot| format_timestamptz_in(utc, &slot.borrow()))
}

/// A timestamptz as JSON shows it: ISO 8601 with a `T` and a `+HH:MM` offset
/// (`2024-03-10T15:30:00.5+05:30`), in the session zone.
pub fn json_timestamptz(utc: i64) -> String {
    let zone = session_zone();
    let offset = offset_at(&zone, utc);
    let local = utc.saturating_add(offset * MICROS_PER_SECOND);
    let text = super::datetime::format_timestamp(local).replacen(' ', "T", 1);
    let mut offset = format_offset(offset);
    if offset.len() == 3 {
        offset.push_str(":00");
    }
    match text.strip_suffix(" BC") {
        Some(date_time) => format!("{date_time}{offset} BC"),
        None => text + &offset,
    }
}

/// Text to a timestamptz: a date and time with an offset (`+02`, `+05:30`, `Z`) or a zone
/// name (`Europe/Berlin`) is that instant; without either it is read in the session zone.
pub fn parse_timestamptz(text: &str) -> Result<i64, TypeError> {
    let parsed = super::datetime::parse_with_zone(text, "timestamp with time zone")?;
    let local = i128::from(parsed.days) * i128::from(super::datetime::MICROS_PER_DAY)
        + i128::from(parsed.micros_of_day);
    let range = || TypeError::DatetimeOutOfRange {
        type_name: "timestamp with time zone",
    };
    let local = i64::try_from(local).map_err(|_| range())?;
    match (parsed.offset_seconds, parsed.zone) {
        (Some(offset), _) => local
            .checked_sub(offset * MICROS_PER_SECOND)
            .ok_or_else(range),
        (None, Some(name)) => {
            let zone = match abbreviation(&name) {
                Some(zone) => zone,
                None => TimeZone::get(&name).map_err(|_| unknown_zone(&name.to_lowercase()))?,
            };
            local_to_utc(&zone, local)
        }
        (None, None) => SESSION_ZONE.with(|slot| local_to_utc(&slot.borrow(), local)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn berlin() -> TimeZone {
        zone_named("Europe/Berlin").unwrap()
    }

    #[test]
    fn offsets_print_as_postgresql_does() {
        assert_eq!(format_offset(3600), "+01");
        assert_eq!(format_offset(19_800), "+05:30");
        assert_eq!(format_offset(-(4 * 3600 + 56 * 60 + 2)), "-04:56:02");
        assert_eq!(format_offset(0), "+00");
    }

    #[test]
    fn input_with_offsets_and_names_is_that_instant() {
        install_session_zone(&TimeZone::UTC);
        let noon = parse_timestamptz("2024-03-10 12:00:00+00").unwrap();
        assert_eq!(parse_timestamptz("2024-03-10 14:00:00+02").unwrap(), noon);
        assert_eq!(
            parse_timestamptz("2024-03-10T17:30:00+05:30").unwrap(),
            noon
        );
        assert_eq!(parse_timestamptz("2024-03-10 12:00Z").unwrap(), noon);
        assert_eq!(
            parse_timestamptz("2024-03-10 13:00 Europe/Berlin").unwrap(),
            noon
        );
        assert_eq!(
            parse_timestamptz("2024-03-10 08:00 america/new_york").unwrap(),
            noon
        );
        assert!(parse_timestamptz("2024-03-10 12:00 Foo/Bar").is_err());
    }

    #[test]
    fn dst_gaps_take_the_earlier_offset_and_overlaps_the_later() {
        install_session_zone(&berlin());
        let gap = parse_timestamptz("2024-03-31 02:30").unwrap();
        assert_eq!(format_timestamptz(gap), "2024-03-31 03:30:00+02");
        let overlap = parse_timestamptz("2024-10-27 02:30").unwrap();
        assert_eq!(format_timestamptz(overlap), "2024-10-27 02:30:00+01");
        install_session_zone(&TimeZone::UTC);
    }

    #[test]
    fn output_in_the_zone_with_fractions_and_eras() {
        let kolkata = zone_named("Asia/Kolkata").unwrap();
        let t = parse_timestamptz("2024-03-10 12:00:00.5+02").unwrap();
        assert_eq!(
            format_timestamptz_in(t, &kolkata),
            "2024-03-10 15:30:00.5+05:30"
        );
        let bc = parse_timestamptz("0001-01-01 00:00 UTC BC").unwrap();
        assert_eq!(
            format_timestamptz_in(bc, &kolkata),
            "0001-01-01 05:53:28+05:53:28 BC"
        );
    }

    #[test]
    fn settings_read_as_postgresql_reads_them() {
        assert_eq!(
            parse_zone_setting("europe/berlin").unwrap().0,
            "Europe/Berlin"
        );
        assert_eq!(parse_zone_setting("5.5").unwrap().0, "<+05:30>-05:30");
        assert_eq!(
            parse_zone_setting("INTERVAL '+02:00' HOUR TO MINUTE")
                .unwrap()
                .0,
            "<+02>-02"
        );
        assert_eq!(parse_zone_setting("LOCAL").unwrap().0, "UTC");
        assert!(parse_zone_setting("foo/bar").is_err());
        // Abbreviations are fixed offsets in input and AT TIME ZONE, but no setting.
        assert!(parse_zone_setting("PST").is_err());
        assert_eq!(
            offset_at(&zone_named("cet").unwrap(), 1_719_835_200_000_000),
            3600
        );
        assert_eq!(
            parse_timestamptz("2024-07-01 12:00 PST").unwrap(),
            parse_timestamptz("2024-07-01 20:00+00").unwrap()
        );
        // A bare offset in AT TIME ZONE has POSIX's sign.
        let west = zone_named("+05").unwrap();
        assert_eq!(offset_at(&west, 0), -5 * 3600);
    }
}
