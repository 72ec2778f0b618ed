//! `basalt serve FILE [--listen ADDRESS] [--password-file FILE] [--tls-cert FILE --tls-key
//! FILE] ...`: serves a database file over PostgreSQL's wire protocol (the `basalt-server`
//! crate), so psql and PostgreSQL drivers can use it, until Ctrl-C.
//!
//! The file is created if missing, as the shell does. Safe by default: without
//! `--password-file` clients connect without a password, so the listen address must be a
//! loopback one (127.0.0.1 by default); with it, every client logs in with SCRAM-SHA-256 and
//! any address is allowed. `--tls-cert` and `--tls-key` turn TLS on. `--socket-dir DIR` adds
//! a Unix socket, as PostgreSQL's. The exit status is 0 after Ctrl-C, 2 when the database,
//! the password file, the certificate or the address could not be opened.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

/// Serves a database over the PostgreSQL wire protocol (psql, libpq and drivers connect to
/// it), until Ctrl-C.
#[derive(Debug, Parser)]
#[command(name = "basalt serve")]
pub struct ServeArgs {
    /// The database file, created if missing
    pub file: PathBuf,

    /// The address and port to listen on (loopback only unless --password-file is given)
    #[arg(long, value_name = "ADDRESS:PORT", default_value = basalt_server::DEFAULT_LISTEN)]
    pub listen: SocketAddr,

    /// Require SCRAM-SHA-256 passwords: users and their verifiers, one
    /// `user:SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` a line (`basalt
    /// passwd FILE USER` adds one)
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,

    /// Offer TLS with this certificate chain (PEM); needs --tls-key
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The TLS certificate's private key (PEM); needs --tls-cert
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// At most this many clients at once (the next gets "too many clients", 53300)
    #[arg(long, value_name = "N", default_value_t = basalt_server::DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,

    /// Seconds a client has to finish startup and authentication
    #[arg(long, value_name = "SECONDS", default_value_t = basalt_server::DEFAULT_STARTUP_TIMEOUT.as_secs_f64())]
    pub startup_timeout: f64,

    /// Also listen on a Unix socket in this directory (`.s.PGSQL.PORT`, as PostgreSQL
    /// names it; `psql -h DIRECTORY -p PORT` connects to it)
    #[arg(long, value_name = "DIRECTORY")]
    pub socket_dir: Option<PathBuf>,
}

/// Whether the command line asks for `basalt serve ...`. A database file that is really
/// named `serve` is reached as `./serve`.
pub fn requested(arguments: &[String]) -> bool {
    arguments.get(1).is_some_and(|word| word == "serve")
}

/// Runs `basalt serve` with the arguments after the word `serve`.
pub fn run(arguments: &[String]) -> ExitCode {
    let args = ServeArgs::parse_from(arguments.iter().skip(1));
    let db = match basalt::Database::open(&args.file) {
        Ok(db) => db,
        Err(error) => {
            eprintln!("basalt serve: {}: {error}", args.file.display());
            return ExitCode::from(2);
        }
    };
    let config = match server_config(&args) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("basalt serve: {error}");
            return ExitCode::from(2);
        }
    };
    let file = args.file.display().to_string();
    let served = basalt_server::serve_blocking(
        db,
        args.listen,
        config,
        args.socket_dir.as_deref(),
        |server| {
            let address = server.local_addr()?;
            println!(
                "Serving {file} on {address} (PostgreSQL protocol); connect with \
                 psql -h {} -p {}. Ctrl-C stops.",
                address.ip(),
                address.port()
            );
            if let Some(socket) = server.unix_socket() {
                println!("Also on the Unix socket {}.", socket.display());
            }
            Ok(())
        },
    );
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("basalt serve: {error}");
            ExitCode::from(2)
        }
    }
}

/// The server's security settings from the command line: reads the password file and the
/// certificate now, so a mistake is reported before the server starts.
fn server_config(args: &ServeArgs) -> Result<basalt_server::ServerConfig, String> {
    let mut config = basalt_server::ServerConfig::default()
        .with_max_connections(args.max_connections)
        .with_startup_timeout(
            Duration::try_from_secs_f64(args.startup_timeout)
                .map_err(|_| format!("invalid --startup-timeout {}", args.startup_timeout))?,
        );
    if let Some(path) = &args.password_file {
        let users = basalt_server::auth::Users::load(path)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        if users.is_empty() {
            eprintln!(
                "basalt serve: warning: {} has no users; nobody can log in",
                path.display()
            );
        }
        config = config.with_users(users);
    }
    if let (Some(certificate), Some(key)) = (&args.tls_cert, &args.tls_key) {
        let acceptor = basalt_server::tls::acceptor_from_pem_files(certificate, key)
            .map_err(|error| error.to_string())?;
        config = config.with_tls(acceptor);
    }
    Ok(config)
}
