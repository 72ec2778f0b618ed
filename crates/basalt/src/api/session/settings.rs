//! `SET`, `SHOW` and `PRAGMA`: the session's settings, the ones that reach the pager
//! (synchronous, cache size) and the integrity check; `RESET` (and `SET name TO DEFAULT`),
//! which returns a setting, or all of them, to the session's defaults: a new session's values,
//! or what they were when a server called [`Session::keep_settings_as_defaults`] after
//! applying a client's startup options (as PostgreSQL's RESET returns to the values the
//! connection started with). The database's own PRAGMAs (`synchronous`, `cache_size`) are
//! not session settings and stay as they are.

use super::{Outcome, Session, text_rows};
use crate::api::error::{Error, Result};
use crate::exec::source::PageSource;
use crate::plan::ddl::IsolationLevel;
use crate::sqlstate;
use crate::storage::pager::Synchronous;
use crate::types::Value;

/// The session's settings as RESET restores them.
#[derive(Clone, Debug, Default)]
pub(super) struct SettingDefaults {
    settings: std::collections::BTreeMap<String, String>,
    work_mem: Option<usize>,
    time_zone: Option<jiff::tz::TimeZone>,
    vector_search: crate::exec::context::VectorSearchSettings,
    busy_timeout: Option<std::time::Duration>,
    default_isolation: Option<IsolationLevel>,
    default_read_only: bool,
    timeouts: super::SessionTimeouts,
}

impl Session {
    /// Makes the session's current settings what `RESET` returns to. A server calls it once
    /// it has applied a client's startup options (`-c statement_timeout=100`), so that
    /// `RESET ALL` — asyncpg's pool sends it when a connection is released — keeps them, as
    /// in PostgreSQL.
    pub fn keep_settings_as_defaults(&self) {
        let mut state = self.state.borrow_mut();
        let defaults = SettingDefaults {
            settings: state.settings.clone(),
            work_mem: state.work_mem,
            time_zone: state.time_zone.clone(),
            vector_search: state.vector_search,
            busy_timeout: state.busy_timeout,
            default_isolation: state.default_isolation,
            default_read_only: state.default_read_only,
            timeouts: state.timeouts,
        };
        state.setting_defaults = Some(Box::new(defaults));
    }

    /// `RESET name` (`Some`) or `RESET ALL` (`None`): the setting, or every one, back to the
    /// session's defaults. A name no SET has given is left as it is, as RESET of a setting
    /// at its default is in PostgreSQL.
    pub(super) fn reset_setting(&self, name: Option<&str>) -> Result<()> {
        {
            let mut state = self.state.borrow_mut();
            let defaults = state
                .setting_defaults
                .as_deref()
                .cloned()
                .unwrap_or_default();
            match name.map(str::to_lowercase) {
                None => {
                    state.settings = defaults.settings;
                    state.work_mem = defaults.work_mem;
                    state.time_zone = defaults.time_zone;
                    state.vector_search = defaults.vector_search;
                    state.busy_timeout = defaults.busy_timeout;
                    state.default_isolation = defaults.default_isolation;
                    state.default_read_only = defaults.default_read_only;
                    state.timeouts = defaults.timeouts;
                }
                Some(name) => {
                    match name.as_str() {
                        "work_mem" => state.work_mem = defaults.work_mem,
                        "timezone" => state.time_zone = defaults.time_zone,
                        "hnsw.ef_search" => {
                            state.vector_search.ef_search = defaults.vector_search.ef_search;
                        }
                        "hnsw.exact_search" => {
                            state.vector_search.exact = defaults.vector_search.exact;
                        }
                        "busy_timeout" => state.busy_timeout = defaults.busy_timeout,
                        "default_transaction_isolation" => {
                            state.default_isolation = defaults.default_isolation;
                        }
                        "default_transaction_read_only" => {
                            state.default_read_only = defaults.default_read_only;
                        }
                        "statement_timeout" => {
                            state.timeouts.statement = defaults.timeouts.statement;
                        }
                        "idle_session_timeout" => {
                            state.timeouts.idle_session = defaults.timeouts.idle_session;
                        }
                        "idle_in_transaction_session_timeout" => {
                            state.timeouts.idle_in_transaction =
                                defaults.timeouts.idle_in_transaction;
                        }
                        _ => {}
                    }
                    match defaults.settings.get(&name) {
                        Some(value) => state.settings.insert(name, value.clone()),
                        None => state.settings.remove(&name),
                    };
                }
            }
        }
        self.install_time_zone();
        Ok(())
    }

    /// The session's time zone as `SHOW timezone` reports it (`UTC` until `SET TIME ZONE`):
    /// what a wire server reports as the `TimeZone` parameter.
    pub fn time_zone(&self) -> String {
        self.state
            .borrow()
            .settings
            .get("timezone")
            .cloned()
            .unwrap_or_else(|| "UTC".to_string())
    }

    pub(super) fn setting(
        &self,
        name: &str,
        value: Option<String>,
        show: bool,
        params: Vec<Value>,
    ) -> Result<Outcome> {
        let name = name.to_lowercase();
        let ctx = self.exec_context(self.read_source()?, params);
        if is_integrity_check(&name) {
            let problems = integrity_check(&ctx.source, value.as_deref())?;
            return Ok(text_rows(problems, ctx));
        }
        let pager = self.db.store.pager();
        if let Some(value) = value.filter(|_| !show) {
            let value = value.trim_matches('\'').to_string();
            if name == "synchronous" {
                let mode = match value.to_lowercase().as_str() {
                    "off" | "0" => Synchronous::Off,
                    "normal" | "1" => Synchronous::Normal,
                    "full" | "2" | "extra" | "3" => Synchronous::Full,
                    other => {
                        return Err(Error::new(
                            sqlstate::INVALID_PARAMETER_VALUE,
                            format!("invalid value for synchronous: {other}"),
                        ));
                    }
                };
                pager.set_synchronous(mode);
            }
            let value = if name == "foreign_keys" {
                match parse_switch(&value) {
                    Some(true) => "on".to_string(),
                    Some(false) => "off".to_string(),
                    None => {
                        return Err(Error::new(
                            sqlstate::INVALID_PARAMETER_VALUE,
                            format!("invalid value for foreign_keys: {value}"),
                        ));
                    }
                }
            } else {
                value
            };
            if name == "cache_size" {
                pager.set_cache_pages(cache_pages(&value, pager.page_size())?);
            }
            if name == "busy_timeout" {
                let milliseconds = value.parse::<u64>().map_err(|_| {
                    Error::new(
                        sqlstate::INVALID_PARAMETER_VALUE,
                        format!("invalid value for busy_timeout: {value} (milliseconds)"),
                    )
                })?;
                self.state.borrow_mut().busy_timeout =
                    Some(std::time::Duration::from_millis(milliseconds));
            }
            if name == "hnsw.ef_search" {
                let ef = value
                    .parse::<u16>()
                    .ok()
                    .filter(|ef| (1..=1000).contains(ef))
                    .ok_or_else(|| {
                        Error::new(
                            sqlstate::INVALID_PARAMETER_VALUE,
                            format!("invalid value for hnsw.ef_search: {value} (1 to 1000)"),
                        )
                    })?;
                self.state.borrow_mut().vector_search.ef_search = ef;
            }
            // PostgreSQL's defaults for the transactions that follow (as SET SESSION
            // CHARACTERISTICS AS TRANSACTION sets them; psycopg2 sets these).
            if name == "default_transaction_read_only" {
                let read_only = parse_switch(&value).ok_or_else(|| {
                    Error::new(
                        sqlstate::INVALID_PARAMETER_VALUE,
                        format!("parameter \"{name}\" requires a Boolean value"),
                    )
                })?;
                self.state.borrow_mut().default_read_only = read_only;
            }
            if name == "default_transaction_isolation" {
                let level = isolation_level(&value).ok_or_else(|| {
                    Error::new(
                        sqlstate::INVALID_PARAMETER_VALUE,
                        format!("invalid value for parameter \"{name}\": \"{value}\""),
                    )
                })?;
                self.state.borrow_mut().default_isolation = Some(level);
            }
            if name == "hnsw.exact_search" {
                let exact = parse_switch(&value).ok_or_else(|| {
                    Error::new(
                        sqlstate::INVALID_PARAMETER_VALUE,
                        format!("invalid value for hnsw.exact_search: {value}"),
                    )
                })?;
                self.state.borrow_mut().vector_search.exact = exact;
            }
            let value = if name == "timezone" {
                let (shown, zone) = crate::types::timezone::parse_zone_setting(&value)
                    .map_err(|error| Error::new(error.sqlstate(), error.to_string()))?;
                self.state.borrow_mut().time_zone = Some(zone);
                self.install_time_zone();
                shown
            } else {
                value
            };
            let value = if super::timeouts::TIMEOUT_SETTINGS.contains(&name.as_str()) {
                self.set_timeout(&name, &value)?
            } else {
                value
            };
            if name == "work_mem" {
                let bytes =
                    crate::exec::context::parse_memory_setting(&value).ok_or_else(|| {
                        Error::new(
                            sqlstate::INVALID_PARAMETER_VALUE,
                            format!(
                                "invalid value for work_mem: {value} (expected e.g. 4MB, 512kB)"
                            ),
                        )
                    })?;
                self.state.borrow_mut().work_mem = Some(bytes);
            }
            self.state.borrow_mut().settings.insert(name, value);
            return Ok(Outcome::Changed(0));
        }
        let value = match name.as_str() {
            "synchronous" => format!("{:?}", pager.synchronous()).to_lowercase(),
            "foreign_keys" => if self.foreign_keys_enforced() {
                "on"
            } else {
                "off"
            }
            .to_string(),
            "journal_mode" => "wal".to_string(),
            "timezone" => self.time_zone(),
            "page_size" => pager.page_size().to_string(),
            "cache_size" => pager.cache_pages().to_string(),
            "busy_timeout" => self.busy_timeout().as_millis().to_string(),
            "transaction_isolation" | "transaction isolation level" => {
                self.transaction_modes(false).0.name().to_string()
            }
            "default_transaction_isolation" => self.transaction_modes(true).0.name().to_string(),
            "transaction_read_only" => on_off(self.transaction_modes(false).1),
            "default_transaction_read_only" => on_off(self.transaction_modes(true).1),
            "work_mem" => crate::exec::context::format_memory_setting(
                (self.state.borrow().work_mem).unwrap_or(self.db.options.operator_memory),
            ),
            name if super::timeouts::TIMEOUT_SETTINGS.contains(&name) => self.show_timeout(name),
            _ => match self.state.borrow().settings.get(&name) {
                Some(value) => value.clone(),
                // The settings PostgreSQL clients read, at the values a session has.
                None if let Some(value) =
                    crate::plan::bind::pg_catalog::reported_setting(&name) =>
                {
                    value
                }
                None => {
                    return Err(Error::new(
                        sqlstate::UNDEFINED_OBJECT,
                        format!("unrecognized configuration parameter \"{name}\""),
                    ));
                }
            },
        };
        Ok(text_rows(vec![value], ctx))
    }
}

/// An isolation level by the name `SHOW` gives it.
fn isolation_level(name: &str) -> Option<IsolationLevel> {
    [
        IsolationLevel::ReadUncommitted,
        IsolationLevel::ReadCommitted,
        IsolationLevel::RepeatableRead,
        IsolationLevel::Serializable,
    ]
    .into_iter()
    .find(|level| level.name().eq_ignore_ascii_case(name.trim()))
}

fn on_off(value: bool) -> String {
    if value { "on" } else { "off" }.to_string()
}

/// Whether a PRAGMA names the integrity check (`quick_check` is SQLite's lighter variant;
/// Basalt runs the full check for both).
pub(super) fn is_integrity_check(name: &str) -> bool {
    name.eq_ignore_ascii_case("integrity_check") || name.eq_ignore_ascii_case("quick_check")
}

/// `PRAGMA integrity_check[(N | table)]`, as SQLite reads its argument: a number caps the
/// problems reported, a name limits the row-against-index comparison to that table. Returns
/// the problems, or the single line `ok`.
fn integrity_check(source: &PageSource, argument: Option<&str>) -> Result<Vec<String>> {
    let argument = argument.map(|text| text.trim().trim_matches(['\'', '"']));
    let (max, table) = match argument {
        None => (crate::exec::integrity::DEFAULT_MAX_PROBLEMS, None),
        Some(text) => match text.parse::<i64>() {
            Ok(max) if max > 0 => (usize::try_from(max).unwrap_or(usize::MAX), None),
            Ok(_) => (crate::exec::integrity::DEFAULT_MAX_PROBLEMS, None),
            Err(_) => (crate::exec::integrity::DEFAULT_MAX_PROBLEMS, Some(text)),
        },
    };
    let problems = crate::exec::integrity::check(source, max, table)?;
    Ok(if problems.is_empty() {
        vec!["ok".to_string()]
    } else {
        problems
    })
}

/// A boolean setting's value: on/off, true/false, yes/no, 1/0.
fn parse_switch(value: &str) -> Option<bool> {
    match value.to_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Some(true),
        "off" | "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// `PRAGMA cache_size` as SQLite reads it: a positive number of pages, or a negative number of
/// KiB (`-2000` is about 2 MB), converted to pages of `page_size` bytes (at least one).
fn cache_pages(value: &str, page_size: usize) -> Result<usize> {
    let invalid = || {
        Error::new(
            sqlstate::INVALID_PARAMETER_VALUE,
            format!("invalid value for cache_size: {value} (pages, or -KiB)"),
        )
    };
    let number = value.trim().parse::<i64>().map_err(|_| invalid())?;
    let pages = if number >= 0 {
        usize::try_from(number).map_err(|_| invalid())?
    } else {
        let bytes = number.unsigned_abs().saturating_mul(1024);
        usize::try_from(bytes / page_size.max(1) as u64).map_err(|_| invalid())?
    };
    Ok(pages.max(1))
}
