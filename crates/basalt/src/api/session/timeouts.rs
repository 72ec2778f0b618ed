//! The session's timeout settings — `statement_timeout`, `idle_session_timeout` and
//! `idle_in_transaction_session_timeout` — as PostgreSQL reads and shows them. The engine
//! only stores them; a server acts on them ([`Session::timeouts`]): it interrupts a
//! statement that runs past `statement_timeout` and closes a connection left idle.
//!
//! What it guarantees: a value is a whole or decimal number with an optional unit `us`,
//! `ms` (the default), `s`, `min`, `h` or `d`, between 0 and 2147483647 ms, else 22023;
//! 0 turns the timeout off; `SHOW` prints the value in the largest unit that divides it,
//! as PostgreSQL does (`50ms`, `1s`, `0`).

use std::time::Duration;

use super::Session;
use crate::api::error::{Error, Result};
use crate::sqlstate;

/// The timeouts a session has set (`None`: off, the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionTimeouts {
    /// `statement_timeout`: the longest a statement may run.
    pub statement: Option<Duration>,
    /// `idle_session_timeout`: the longest a connection may wait for a command outside a
    /// transaction block.
    pub idle_session: Option<Duration>,
    /// `idle_in_transaction_session_timeout`: the same inside a transaction block.
    pub idle_in_transaction: Option<Duration>,
}

/// The names of the timeout settings.
pub(super) const TIMEOUT_SETTINGS: [&str; 3] = [
    "statement_timeout",
    "idle_session_timeout",
    "idle_in_transaction_session_timeout",
];

/// PostgreSQL's upper bound for a millisecond setting (`INT_MAX`).
const MAX_MILLISECONDS: f64 = 2_147_483_647.0;

impl Session {
    /// The timeouts this session has set with `SET` (all off until then).
    pub fn timeouts(&self) -> SessionTimeouts {
        self.state.borrow().timeouts
    }

    /// `SET name = value` of a timeout setting: stores it; returns the value as `SHOW` prints
    /// it.
    pub(super) fn set_timeout(&self, name: &str, value: &str) -> Result<String> {
        let milliseconds = parse_milliseconds(value).ok_or_else(|| {
            Error::new(
                sqlstate::INVALID_PARAMETER_VALUE,
                format!("invalid value for parameter \"{name}\": \"{value}\""),
            )
        })?;
        let duration = (milliseconds > 0).then(|| Duration::from_millis(milliseconds));
        let mut state = self.state.borrow_mut();
        match name {
            "statement_timeout" => state.timeouts.statement = duration,
            "idle_session_timeout" => state.timeouts.idle_session = duration,
            _ => state.timeouts.idle_in_transaction = duration,
        }
        Ok(format_milliseconds(milliseconds))
    }

    /// `SHOW name` of a timeout setting.
    pub(super) fn show_timeout(&self, name: &str) -> String {
        let timeouts = self.timeouts();
        let duration = match name {
            "statement_timeout" => timeouts.statement,
            "idle_session_timeout" => timeouts.idle_session,
            _ => timeouts.idle_in_transaction,
        };
        let milliseconds = duration.map_or(0, |duration| {
            u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
        });
        format_milliseconds(milliseconds)
    }
}

/// A time setting in milliseconds, PostgreSQL style: a number and an optional unit (ms when
/// there is none), rounded to whole milliseconds; `None` when malformed or out of range.
pub fn parse_milliseconds(text: &str) -> Option<u64> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("default") {
        return Some(0);
    }
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale = match unit.trim() {
        "" | "ms" => 1.0,
        "us" => 0.001,
        "s" => 1_000.0,
        "min" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        _ => return None,
    };
    let milliseconds = (number * scale).round();
    if !(0.0..=MAX_MILLISECONDS).contains(&milliseconds) {
        return None;
    }
    // In range and whole: the conversion is exact.
    Some(milliseconds as u64)
}

/// A millisecond setting as `SHOW` prints it: the largest unit that divides it.
fn format_milliseconds(milliseconds: u64) -> String {
    if milliseconds == 0 {
        return "0".to_string();
    }
    let units = [
        (86_400_000, "d"),
        (3_600_000, "h"),
        (60_000, "min"),
        (1_000, "s"),
    ];
    for (size, unit) in units {
        if milliseconds.is_multiple_of(size) {
            return format!("{}{unit}", milliseconds / size);
        }
    }
    format!("{milliseconds}ms")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_shows_as_postgresql_does() {
        assert_eq!(parse_milliseconds("50"), Some(50));
        assert_eq!(parse_milliseconds("50ms"), Some(50));
        assert_eq!(parse_milliseconds(" 2s "), Some(2_000));
        assert_eq!(parse_milliseconds("1.5s"), Some(1_500));
        assert_eq!(parse_milliseconds("1min"), Some(60_000));
        assert_eq!(parse_milliseconds("0"), Some(0));
        assert_eq!(parse_milliseconds("-1"), None);
        assert_eq!(parse_milliseconds("abc"), None);
        assert_eq!(parse_milliseconds("5 parsecs"), None);
        assert_eq!(parse_milliseconds("99999999999"), None);
        assert_eq!(format_milliseconds(0), "0");
        assert_eq!(format_milliseconds(50), "50ms");
        assert_eq!(format_milliseconds(1_000), "1s");
        assert_eq!(format_milliseconds(90_000), "90s");
        assert_eq!(format_milliseconds(3_600_000), "1h");
    }
}
