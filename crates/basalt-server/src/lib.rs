//! `basalt-server`: a Basalt database served over PostgreSQL's wire protocol (version 3),
//! so that psql and PostgreSQL drivers can use it unchanged. `basalt serve FILE` runs it.
//!
//! Layers: pgwire reads and writes the protocol's messages and drives each connection's
//! message loop (startup, SSL refusal, the skip-to-Sync rule after an error); this crate's
//! handlers ([`connection`], [`simple`], [`extended`]) turn the messages into calls on one
//! Basalt [`Session`](basalt::Session) per client, all on one shared [`Database`]; each
//! session runs on a thread of its own ([`session_thread`]) so a long statement blocks only
//! its own client; [`encode`] maps Basalt's types to PostgreSQL's OIDs and wire formats;
//! [`command`] gives statements their command tags; [`copy`] runs COPY FROM STDIN / TO
//! STDOUT, reading the statement with [`copy_statement`] and the data with [`copy_format`].
//! Security: [`config`] holds what the server asks of clients, [`auth`] SCRAM-SHA-256
//! against stored verifiers, [`tls`] the rustls acceptor.
//!
//! What it guarantees: a malformed message or a client that misbehaves ends that connection
//! with an error and never the server (no handler panics on client input); trust
//! authentication only on a loopback address ([`Server::bind_with`] refuses any other
//! unless password authentication is configured); replies are buffered and written at
//! Sync, Flush, the end of a simple query or a full buffer — never one write per row or
//! per message.
//!
//! See `docs/server.md`.

pub mod auth;
mod command;
mod config;
mod connection;
mod copy;
mod copy_binary;
mod copy_format;
mod copy_options;
mod copy_statement;
mod encode;
mod error;
mod extended;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod session_thread;
mod simple;
mod socket;
pub mod tls;

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use basalt::Database;
use futures::FutureExt;
use tokio::net::{TcpListener, UnixListener};

use crate::connection::{ClientHandler, Shared};

pub use config::{DEFAULT_MAX_CONNECTIONS, DEFAULT_STARTUP_TIMEOUT, ServerConfig};
pub use connection::SERVER_VERSION;
pub use copy_format::write_copy_text_row;

/// The address `basalt serve` listens on unless told otherwise: PostgreSQL's port, on the
/// loopback interface only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:5432";

/// Why the server could not start or stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The listen address is not a loopback address and no password authentication is
    /// configured. Clients would connect without a password (trust), which is only safe
    /// where no other machine can reach the server.
    NotLoopback(SocketAddr),
    /// Binding the address or accepting connections failed.
    Io(io::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::NotLoopback(address) => write!(
                f,
                "refusing to listen on {address}: without --password-file clients connect \
                 without authentication, which is only allowed on a loopback address \
                 (127.0.0.1 or ::1)"
            ),
            ServeError::Io(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ServeError {}

impl From<io::Error> for ServeError {
    fn from(error: io::Error) -> Self {
        ServeError::Io(error)
    }
}

/// A bound server: [`Server::run`] accepts clients until the task is dropped.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    unix: Option<(UnixListener, SocketFile)>,
    shared: Arc<Shared>,
}

/// The Unix socket's file, removed when the server stops.
#[derive(Debug)]
struct SocketFile(PathBuf);

impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl Server {
    /// Listens on `address` (port 0 picks a free port; see [`Server::local_addr`]) for
    /// clients of `db`, with the default [`ServerConfig`] (trust, so `address` must be a
    /// loopback one). Must be called inside a tokio runtime.
    pub async fn bind(db: Database, address: SocketAddr) -> Result<Server, ServeError> {
        Server::bind_with(db, address, ServerConfig::default()).await
    }

    /// Listens on `address` for clients of `db`, authenticated, encrypted and limited as
    /// `config` says. Without password authentication (`config.users`), only a loopback
    /// address is allowed. Must be called inside a tokio runtime.
    pub async fn bind_with(
        db: Database,
        address: SocketAddr,
        config: ServerConfig,
    ) -> Result<Server, ServeError> {
        if config.users.is_none() && !address.ip().is_loopback() {
            return Err(ServeError::NotLoopback(address));
        }
        let listener = TcpListener::bind(address).await?;
        Ok(Server {
            listener,
            unix: None,
            shared: Arc::new(Shared::new(db, config)),
        })
    }

    /// Also listens on a Unix socket in `directory`, named as PostgreSQL names its own
    /// (`.s.PGSQL.<port>`, the TCP port), so `psql -h DIRECTORY -p PORT` finds it. A socket
    /// file left by a server that is gone is replaced; one a live server answers on is an
    /// error. Only the local machine can reach a Unix socket, so trust is safe there too;
    /// with password authentication configured, its clients log in as TCP clients do.
    pub async fn with_unix_socket(mut self, directory: &Path) -> Result<Server, ServeError> {
        let path = directory.join(format!(".s.PGSQL.{}", self.local_addr()?.port()));
        if path.exists() {
            if tokio::net::UnixStream::connect(&path).await.is_ok() {
                return Err(ServeError::Io(io::Error::new(
                    io::ErrorKind::AddrInUse,
                    format!("{} is in use by another server", path.display()),
                )));
            }
            std::fs::remove_file(&path)?;
        }
        let listener = UnixListener::bind(&path)?;
        self.unix = Some((listener, SocketFile(path)));
        Ok(self)
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The Unix socket's path, if it listens on one.
    pub fn unix_socket(&self) -> Option<&Path> {
        self.unix.as_ref().map(|(_, file)| file.0.as_path())
    }

    /// Accepts clients, each served by its own task and session, until dropped.
    pub async fn run(self) -> io::Result<()> {
        loop {
            let accepted = match &self.unix {
                Some((unix, _)) => tokio::select! {
                    tcp = self.listener.accept() => tcp.map(|(socket, _)| Accepted::Tcp(socket)),
                    local = unix.accept() => local.map(|(socket, _)| Accepted::Unix(socket)),
                },
                None => self
                    .listener
                    .accept()
                    .await
                    .map(|(socket, _)| Accepted::Tcp(socket)),
            };
            let accepted = match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors or a connection reset before it was accepted:
                    // the listener itself is fine; wait a moment rather than spin.
                    eprintln!("basalt serve: accepting a connection failed: {error}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let handler = Arc::new(ClientHandler::new(self.shared.clone()));
            tokio::spawn(async move {
                let connection = async move {
                    match accepted {
                        Accepted::Tcp(socket) => {
                            // Replies are already batched into one write per Sync; don't let
                            // Nagle hold that write back waiting for an acknowledgement.
                            let _ = socket.set_nodelay(true);
                            socket::serve_tcp(socket, handler).await
                        }
                        Accepted::Unix(socket) => socket::serve_unix(socket, handler).await,
                    }
                };
                // An I/O error ends this connection only; there is nobody to report it to.
                // pgwire's decoders panic on some malformed messages (a Bind whose lengths
                // run past its end): that too ends only this connection. Nothing shared is
                // left half-updated by it — the panic is in message decoding, before any
                // handler runs, and the one shared lock tolerates poisoning.
                if AssertUnwindSafe(connection).catch_unwind().await.is_err() {
                    eprintln!("basalt serve: closed a connection that sent a malformed message");
                }
            });
        }
    }
}

/// A client's connection, by the listener that took it.
enum Accepted {
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
}

/// Serves `db` on `address` as `config` says (and on a Unix socket in `socket_directory`,
/// if given) until
/// Ctrl-C, on a runtime of its own: what `basalt serve` runs. `on_ready` is called with the
/// bound server once clients can connect.
pub fn serve_blocking(
    db: Database,
    address: SocketAddr,
    config: ServerConfig,
    socket_directory: Option<&Path>,
    on_ready: impl FnOnce(&Server) -> io::Result<()>,
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("basalt-serve")
        .build()?;
    runtime.block_on(async move {
        let mut server = Server::bind_with(db, address, config).await?;
        if let Some(directory) = socket_directory {
            server = server.with_unix_socket(directory).await?;
        }
        on_ready(&server)?;
        tokio::select! {
            result = server.run() => result.map_err(ServeError::from),
            signal = tokio::signal::ctrl_c() => signal.map_err(ServeError::from),
        }
    })
}
