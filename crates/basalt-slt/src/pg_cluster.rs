//! A throwaway PostgreSQL server for comparing Basalt's answers with PostgreSQL's.
//!
//! [`PgCluster::start`] finds PostgreSQL's server binaries (in `$BASALT_PG_BIN` alone when it
//! is set, and none when it is set empty; else `/usr/lib/postgresql/15/bin`, else
//! `pg_config --bindir` on the `PATH`), runs `initdb` into a
//! fresh temporary directory and starts the server with `pg_ctl -w` (which returns once the
//! server accepts connections: no sleeping), listening only on a Unix socket inside that
//! directory, so it never clashes with another server or another test
//! ([`PgCluster::start_with_tcp`] also listens on a free loopback port, for clients that
//! cannot use a Unix socket). `initdb` and the
//! server refuse to run as root; when the test runs as root they run as the `postgres` user
//! (the one the Debian packages create), who is given the directory.
//!
//! The server's settings make its output comparable with Basalt's defaults: time zone UTC,
//! `DateStyle` ISO, the C locale (bytewise text order), English messages; durability is off
//! (it is thrown away). Dropping the [`PgCluster`] stops the server (`pg_ctl -m immediate`)
//! and removes the directory, also when a test panics.
//!
//! [`PgCluster::start`] never panics: a missing installation is [`StartError::NotFound`]
//! (callers skip with a message), anything else [`StartError::Failed`] with the tool's output.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The PostgreSQL major version the comparison is written against.
pub const MAJOR_VERSION: &str = "15";

/// The port number in the socket's name (`.s.PGSQL.<port>`); the socket lives in a
/// directory of its own, so any number is free.
pub const PORT: u16 = 5432;

/// Why no server could be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartError {
    /// No PostgreSQL 15 server binaries (or no unprivileged user to run them as root).
    NotFound(String),
    /// The binaries are there but setting up or starting the server failed.
    Failed(String),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::NotFound(message) | StartError::Failed(message) => f.write_str(message),
        }
    }
}

/// A running PostgreSQL server in a temporary directory (stopped and removed on drop).
#[derive(Debug)]
pub struct PgCluster {
    bin: PathBuf,
    data: PathBuf,
    socket_dir: PathBuf,
    /// The user and group the server's tools run as (`None`: the current user).
    run_as: Option<(u32, u32)>,
    /// Also listening on 127.0.0.1 at this port ([`PgCluster::start_with_tcp`]).
    tcp_port: Option<u16>,
    version: String,
    // Last, so the directory is removed after `drop` has stopped the server.
    _dir: tempfile::TempDir,
}

impl PgCluster {
    /// Initialises and starts a server (about two seconds).
    pub fn start() -> Result<Self, StartError> {
        Self::start_listening(None)
    }

    /// Like [`PgCluster::start`], and also listening on TCP at 127.0.0.1 on a free port
    /// ([`PgCluster::port`]; the Unix socket is named by that port too), for clients that
    /// cannot use a Unix socket (pgjdbc). The port is found free by binding it and letting
    /// it go just before the server starts; the server's start fails if another process
    /// took it in between.
    pub fn start_with_tcp() -> Result<Self, StartError> {
        let port = std::net::TcpListener::bind(("127.0.0.1", 0))
            .and_then(|listener| listener.local_addr())
            .map_err(|error| StartError::Failed(format!("no free port: {error}")))?
            .port();
        Self::start_listening(Some(port))
    }

    fn start_listening(tcp_port: Option<u16>) -> Result<Self, StartError> {
        let bin = find_binaries()?;
        let version = version_of(&bin)?;
        let run_as = if is_root() {
            Some(unprivileged_user().ok_or_else(|| {
                StartError::NotFound(
                    "running as root and there is no `postgres` user to run PostgreSQL as".into(),
                )
            })?)
        } else {
            None
        };
        let dir = tempfile::Builder::new()
            .prefix("basalt-pgcheck-")
            .tempdir()
            .map_err(|error| StartError::Failed(format!("temporary directory: {error}")))?;
        if let Some((uid, gid)) = run_as {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).map_err(|error| {
                StartError::Failed(format!("chown temporary directory: {error}"))
            })?;
        }
        let cluster = PgCluster {
            data: dir.path().join("data"),
            socket_dir: dir.path().to_path_buf(),
            bin,
            run_as,
            tcp_port,
            version,
            _dir: dir,
        };
        cluster.init()?;
        Ok(cluster)
    }

    fn init(&self) -> Result<(), StartError> {
        let mut initdb = self.command("initdb");
        initdb
            .arg("-D")
            .arg(&self.data)
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "--locale=C",
                "--encoding=UTF8",
            ])
            .arg("--no-sync");
        check("initdb", initdb.output())?;
        let listen = if self.tcp_port.is_some() {
            "127.0.0.1"
        } else {
            ""
        };
        let port = self.port();
        let settings = format!(
            "\n# basalt-slt's comparison run\nlisten_addresses = '{listen}'\nunix_socket_directories = '{}'\n\
             port = {port}\ntimezone = 'UTC'\ndatestyle = 'ISO, MDY'\nintervalstyle = 'postgres'\n\
             lc_messages = 'C'\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\n\
             shared_buffers = 16MB\nmax_connections = 20\n",
            self.socket_dir.display()
        );
        let conf = self.data.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf)
            .map_err(|error| StartError::Failed(format!("{}: {error}", conf.display())))?;
        text.push_str(&settings);
        std::fs::write(&conf, text)
            .map_err(|error| StartError::Failed(format!("{}: {error}", conf.display())))?;
        let mut start = self.command("pg_ctl");
        start
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(self.socket_dir.join("server.log"))
            .args(["-w", "-t", "60", "start"]);
        check("pg_ctl start", start.output()).map_err(|error| {
            let log =
                std::fs::read_to_string(self.socket_dir.join("server.log")).unwrap_or_default();
            StartError::Failed(format!("{error}\nserver log:\n{log}"))
        })
    }

    /// A command running one of the server's tools as the cluster's user.
    fn command(&self, tool: &str) -> Command {
        let mut command = Command::new(self.bin.join(tool));
        if let Some((uid, gid)) = self.run_as {
            use std::os::unix::process::CommandExt as _;
            command.uid(uid).gid(gid).env("HOME", &self.socket_dir);
        }
        command.env("LC_ALL", "C").env_remove("PGDATA");
        command
    }

    /// The directory holding the server's socket (the `host` to connect to).
    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// The server's port: [`PORT`], or the TCP port of [`PgCluster::start_with_tcp`].
    pub fn port(&self) -> u16 {
        self.tcp_port.unwrap_or(PORT)
    }

    /// `postgres --version`'s output, e.g. `postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)`.
    pub fn version(&self) -> &str {
        &self.version
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let mut stop = self.command("pg_ctl");
        stop.arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"]);
        let _ = stop.output();
    }
}

fn check(what: &str, output: std::io::Result<Output>) -> Result<(), StartError> {
    match output {
        Ok(output) if output.status.success() => Ok(()),
        Ok(output) => Err(StartError::Failed(format!(
            "{what} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))),
        Err(error) => Err(StartError::Failed(format!("{what}: {error}"))),
    }
}

/// The directory of `initdb`, `pg_ctl` and `postgres`.
fn find_binaries() -> Result<PathBuf, StartError> {
    let mut candidates = Vec::new();
    if let Some(dir) = std::env::var_os("BASALT_PG_BIN") {
        // Set, it is the only place looked in; set empty, it turns the comparison off.
        if dir.is_empty() {
            return Err(StartError::NotFound("BASALT_PG_BIN is set empty".into()));
        }
        candidates.push(PathBuf::from(dir));
    } else {
        candidates.push(PathBuf::from(format!(
            "/usr/lib/postgresql/{MAJOR_VERSION}/bin"
        )));
        if let Ok(output) = Command::new("pg_config").arg("--bindir").output()
            && output.status.success()
        {
            let dir = String::from_utf8_lossy(&output.stdout).trim().to_owned();
            candidates.push(PathBuf::from(dir));
        }
    }
    candidates
        .iter()
        .find(|dir| {
            ["initdb", "pg_ctl", "postgres"]
                .iter()
                .all(|tool| dir.join(tool).is_file())
        })
        .cloned()
        .ok_or_else(|| {
            let looked: Vec<String> = candidates.iter().map(|d| d.display().to_string()).collect();
            StartError::NotFound(format!(
                "no PostgreSQL server binaries (initdb, pg_ctl, postgres) in {} \
                 (set BASALT_PG_BIN to their directory)",
                looked.join(", ")
            ))
        })
}

/// `postgres --version`, which must be of [`MAJOR_VERSION`].
fn version_of(bin: &Path) -> Result<String, StartError> {
    let output = Command::new(bin.join("postgres"))
        .arg("--version")
        .output()
        .map_err(|error| StartError::Failed(format!("postgres --version: {error}")))?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let major = version
        .split_whitespace()
        .nth(2)
        .and_then(|number| number.split('.').next())
        .unwrap_or_default();
    if major == MAJOR_VERSION {
        Ok(version)
    } else {
        Err(StartError::NotFound(format!(
            "{} is `{version}`, not PostgreSQL {MAJOR_VERSION}",
            bin.display()
        )))
    }
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt as _;
    // /proc/self belongs to the process's effective user.
    std::fs::metadata("/proc/self").is_ok_and(|metadata| metadata.uid() == 0)
}

/// The `postgres` user's uid and gid, from /etc/passwd.
fn unprivileged_user() -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        if fields.first() == Some(&"postgres") && fields.len() > 3 {
            Some((fields[2].parse().ok()?, fields[3].parse().ok()?))
        } else {
            None
        }
    })
}
