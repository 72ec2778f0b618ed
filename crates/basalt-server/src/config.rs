//! [`ServerConfig`]: how a server authenticates, encrypts and limits its clients — what
//! `basalt serve`'s security options set.
//!
//! The defaults are the safe ones for a server on the loopback interface: trust
//! authentication (only allowed on a loopback address, see [`crate::Server::bind_with`]),
//! no TLS (an SSLRequest is answered `N`), at most [`DEFAULT_MAX_CONNECTIONS`] clients, and
//! [`DEFAULT_STARTUP_TIMEOUT`] to get through startup and authentication.

use std::sync::Arc;
use std::time::Duration;

use crate::auth::Users;

/// PostgreSQL's default `max_connections`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 100;

/// PostgreSQL's default `authentication_timeout`: a client that has not finished startup
/// and authentication by then is disconnected.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// A server's security settings. Build it with [`ServerConfig::default`] and the `with_`
/// methods.
#[derive(Clone)]
#[non_exhaustive]
pub struct ServerConfig {
    /// SCRAM-SHA-256 users: when set, every client (TCP and Unix socket) must log in as one
    /// of them. `None`: trust, loopback only.
    pub users: Option<Arc<Users>>,
    /// TLS: when set, an SSLRequest is answered `S` and the connection upgraded.
    pub tls: Option<pgwire::tokio::TlsAcceptor>,
    /// How many clients may be connected at once; the next one gets FATAL 53300.
    pub max_connections: usize,
    /// How long a client has to finish startup (SSL negotiation, the startup message and
    /// authentication) before the connection is closed.
    pub startup_timeout: Duration,
}

impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConfig")
            .field("users", &self.users.as_ref().map(|users| users.len()))
            .field("tls", &self.tls.is_some())
            .field("max_connections", &self.max_connections)
            .field("startup_timeout", &self.startup_timeout)
            .finish()
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            users: None,
            tls: None,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
        }
    }
}

impl ServerConfig {
    /// Requires SCRAM-SHA-256 authentication as one of `users`.
    pub fn with_users(mut self, users: Users) -> Self {
        self.users = Some(Arc::new(users));
        self
    }

    /// Offers TLS with `acceptor` (see [`crate::tls::acceptor_from_pem_files`]).
    pub fn with_tls(mut self, acceptor: pgwire::tokio::TlsAcceptor) -> Self {
        self.tls = Some(acceptor);
        self
    }

    /// At most `max` clients at once.
    pub fn with_max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// `timeout` to finish startup and authentication.
    pub fn with_startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }
}
