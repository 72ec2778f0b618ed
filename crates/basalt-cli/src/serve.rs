//! `basalt serve FILE [--listen ADDRESS]`: serves a database file over PostgreSQL's wire
//! protocol (the `basalt-server` crate), so psql and PostgreSQL drivers can use it, until
//! Ctrl-C.
//!
//! The file is created if missing, as the shell does. Clients connect without a password,
//! so the listen address must be a loopback one (127.0.0.1 by default); any other is refused
//! until authentication exists. `--socket-dir DIR` adds a Unix socket, as PostgreSQL's. The
//! exit status is 0 after Ctrl-C, 2 when the database or the address could not be opened.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Serves a database over the PostgreSQL wire protocol (psql, libpq and drivers connect to
/// it), until Ctrl-C.
#[derive(Debug, Parser)]
#[command(name = "basalt serve")]
pub struct ServeArgs {
    /// The database file, created if missing
    pub file: PathBuf,

    /// The address and port to listen on (loopback only: clients connect without a password)
    #[arg(long, value_name = "ADDRESS:PORT", default_value = basalt_server::DEFAULT_LISTEN)]
    pub listen: SocketAddr,

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
    let file = args.file.display().to_string();
    let served =
        basalt_server::serve_blocking(db, args.listen, args.socket_dir.as_deref(), |server| {
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
        });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("basalt serve: {error}");
            ExitCode::from(2)
        }
    }
}
