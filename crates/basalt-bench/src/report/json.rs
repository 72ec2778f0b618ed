//! The result envelope: one JSON file holding where and how the run happened (host, CPU,
//! commit, versions, settings) and everything it measured (every worker's report with every
//! sample, plus the derived ratios). Every number in the docs comes from such a file, and
//! `basalt-bench compare` reads two of them.

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::Comparison;
use crate::model::{Settings, WorkerReport};

/// Bumped whenever the envelope's shape changes.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Envelope {
    pub format: u32,
    pub suite: String,
    pub mode: String,
    pub started_utc: String,
    pub wall_seconds: f64,
    pub host: Host,
    pub commit: Option<String>,
    /// Whether the working tree had uncommitted changes.
    pub commit_dirty: Option<bool>,
    pub versions: Versions,
    pub settings: Settings,
    pub drivers: Vec<DriverEntry>,
    pub workloads: Vec<WorkloadEntry>,
    pub results: Vec<WorkerReport>,
    pub comparisons: Vec<Comparison>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub hostname: String,
    pub cpu_model: String,
    pub cores: usize,
    pub os: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Versions {
    pub basalt: String,
    pub basalt_bench: String,
    /// The SQLite library rusqlite runs (`rusqlite::version()`).
    pub sqlite: String,
    /// sqlite-vec's `vec_version()` (group C's comparator); absent in envelopes written
    /// before it was recorded.
    #[serde(default)]
    pub sqlite_vec: Option<String>,
    pub duckdb: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DriverEntry {
    pub name: String,
    pub description: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkloadEntry {
    pub id: String,
    pub group: String,
    pub title: String,
    pub foreign_keys: bool,
}

/// This machine.
pub fn host() -> Host {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let cpu_model = read("/proc/cpuinfo")
        .lines()
        .find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == "model name").then(|| value.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string());
    let hostname = read("/proc/sys/kernel/hostname").trim().to_string();
    let os = read("/proc/sys/kernel/osrelease").trim().to_string();
    Host {
        hostname: if hostname.is_empty() {
            "unknown".into()
        } else {
            hostname
        },
        cpu_model,
        cores: std::thread::available_parallelism().map_or(0, usize::from),
        os: format!("{} {os}", std::env::consts::OS),
    }
}

/// The commit of the working tree and whether it has changes, when git is available.
pub fn commit() -> (Option<String>, Option<bool>) {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "HEAD"]);
    let dirty = head
        .as_ref()
        .and_then(|_| git(&["status", "--porcelain", "--untracked-files=no"]))
        .map(|status| !status.is_empty());
    (head, dirty)
}

pub fn versions() -> Versions {
    Versions {
        // basalt and basalt-bench share the workspace version.
        basalt: env!("CARGO_PKG_VERSION").to_string(),
        basalt_bench: env!("CARGO_PKG_VERSION").to_string(),
        sqlite: rusqlite::version().to_string(),
        sqlite_vec: crate::driver::sqlite::sqlite_vec_version(),
        duckdb: duckdb_version(),
    }
}

#[cfg(feature = "duckdb")]
fn duckdb_version() -> Option<String> {
    let connection = duckdb::Connection::open_in_memory().ok()?;
    connection
        .query_row("SELECT version()", [], |row| row.get::<_, String>(0))
        .ok()
}

#[cfg(not(feature = "duckdb"))]
fn duckdb_version() -> Option<String> {
    None
}

/// Now as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    utc_timestamp(seconds)
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (Howard Hinnant's civil-from-days).
pub fn utc_timestamp(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let rest = seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_civil_dates() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_798_675_200 + 3_723), "2026-12-31T01:02:03Z");
    }

    #[test]
    fn host_is_described() {
        let host = host();
        assert!(!host.hostname.is_empty());
        assert!(host.cores >= 1);
    }
}
