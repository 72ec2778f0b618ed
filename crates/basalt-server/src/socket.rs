//! One client connection's message loop, from the accepted socket to its close: TLS
//! negotiation, the startup and authentication deadline, then every message handed to
//! pgwire's dispatcher (which calls this crate's handlers), with the idle timeouts between
//! commands.
//!
//! Why not pgwire's own `process_socket`: it fixes the startup timeout at 60 s, has no idle
//! timeouts, and answers a FATAL error with a ReadyForQuery after it; this loop is the same
//! dispatch with those three done as PostgreSQL does them.
//!
//! What it guarantees: a client that has not finished startup and authentication within
//! `ServerConfig::startup_timeout` (from the moment it connected) is disconnected; a client
//! that sits idle after ReadyForQuery past `idle_session_timeout` (outside a transaction
//! block) or `idle_in_transaction_session_timeout` (inside one) gets FATAL 57P05 / 25P03
//! and is disconnected; a message the decoder cannot read ends the connection with FATAL
//! 08P01; a FATAL error (a failed login, too many clients) is sent alone and the connection
//! closed. It works on any byte stream, so the fuzz target can drive it in memory.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use std::panic::AssertUnwindSafe;

use futures::{FutureExt, SinkExt, StreamExt};
use pgwire::api::{ClientInfo, DefaultClient, PgWireConnectionState};
use pgwire::error::{ErrorInfo, PgWireError};
use pgwire::messages::response::TransactionStatus;
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};
use pgwire::tokio::server::{
    MaybeTls, PgWireMessageServerCodec, negotiate_tls, process_error, process_message,
};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, UnixStream};
use tokio::time::Instant;
use tokio_util::codec::Framed;

use crate::connection::ClientHandler;

/// The framed connection pgwire's dispatcher works on (statements are named by strings).
type Connection<S> = Framed<S, PgWireMessageServerCodec<String>>;

/// Serves a TCP client: TLS negotiation (an SSLRequest answered `S` when TLS is
/// configured, else `N`), then [`serve_framed`].
pub(crate) async fn serve_tcp(socket: TcpStream, handler: Arc<ClientHandler>) -> io::Result<()> {
    let deadline = Instant::now() + handler.shared.config.startup_timeout;
    let tls = handler.shared.config.tls.clone();
    let negotiated = tokio::time::timeout_at(deadline, negotiate_tls(socket, tls)).await;
    match negotiated {
        // A client that negotiated, or a direct TLS connection without TLS configured.
        Ok(Ok(Some(connection))) => serve_framed(connection, handler, deadline).await,
        Ok(Ok(None)) => Ok(()),
        Ok(Err(error)) => Err(error),
        // Startup timeout during negotiation (or a TLS handshake that never finished).
        Err(_) => Ok(()),
    }
}

/// Serves a Unix socket client (no TLS: only the local machine reaches it).
pub(crate) async fn serve_unix(socket: UnixStream, handler: Arc<ClientHandler>) -> io::Result<()> {
    let deadline = Instant::now() + handler.shared.config.startup_timeout;
    let connection = framed(MaybeTls::Unix(socket));
    serve_framed(connection, handler, deadline).await
}

/// A fresh connection on `stream`, waiting for the startup message (an SSLRequest on a
/// stream that cannot do TLS is answered `N` by pgwire's decoder state).
pub(crate) fn framed<S: 'static>(stream: S) -> Connection<S> {
    // A Unix socket or an in-memory stream has no peer address; PostgreSQL shows none either.
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let mut connection = Framed::new(
        stream,
        PgWireMessageServerCodec::new(DefaultClient::new(address, false)),
    );
    connection.set_state(PgWireConnectionState::AwaitingStartup);
    connection
}

/// What the loop waits for besides the next message.
enum Deadline {
    /// Nothing: a statement is in progress across messages (a pipeline, COPY).
    None,
    /// Startup and authentication must be over by then; the connection just closes.
    Startup(Instant),
    /// The client is idle after ReadyForQuery: FATAL with this SQLSTATE and message.
    Idle(Instant, &'static str, &'static str),
}

/// The message loop of one connection, until the client leaves, breaks the protocol, fails
/// to log in or times out. `startup_deadline` bounds startup and authentication.
pub(crate) async fn serve_framed<S>(
    mut connection: Connection<S>,
    handler: Arc<ClientHandler>,
    startup_deadline: Instant,
) -> io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + Sync + 'static,
{
    let served = message_loop(&mut connection, &handler, startup_deadline).await;
    // The client's place among max_connections is free before it sees the connection close.
    handler.release_connection_slot();
    drop(connection);
    served
}

async fn message_loop<S>(
    connection: &mut Connection<S>,
    handler: &Arc<ClientHandler>,
    startup_deadline: Instant,
) -> io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + Sync + 'static,
{
    // Whether the last message was answered with ReadyForQuery (idle timers run only then).
    let mut at_ready = false;
    loop {
        let deadline = match connection.state() {
            PgWireConnectionState::AwaitingStartup
            | PgWireConnectionState::AuthenticationInProgress => {
                Deadline::Startup(startup_deadline)
            }
            PgWireConnectionState::ReadyForQuery
                if at_ready && connection.read_buffer().is_empty() =>
            {
                idle_deadline(handler)
            }
            _ => Deadline::None,
        };
        let message = match deadline {
            Deadline::None => next_message(connection).await,
            Deadline::Startup(at) => tokio::select! {
                message = next_message(connection) => message,
                () = tokio::time::sleep_until(at) => return Ok(()),
            },
            Deadline::Idle(at, code, text) => tokio::select! {
                message = next_message(connection) => message,
                () = tokio::time::sleep_until(at) => {
                    return send_fatal(connection, code, text).await;
                }
            },
        };
        let message = match message {
            Some(Ok(message)) => message,
            // The client hung up.
            None => return Ok(()),
            Some(Err(error)) => {
                // The decoder could not read a message: there is no telling where the next
                // one starts, so the connection ends, as PostgreSQL ends it.
                let text = format!("invalid frontend message: {error}");
                let _ = send_fatal_text(connection, "08P01", text).await;
                return Ok(());
            }
        };
        if matches!(message, PgWireFrontendMessage::Terminate(_)) {
            return Ok(());
        }
        let is_extended_query = match connection.state() {
            PgWireConnectionState::CopyInProgress(extended) => extended,
            _ => message.is_extended_query(),
        };
        let is_cancel_request = matches!(message, PgWireFrontendMessage::CancelRequest(_));
        at_ready = matches!(
            message,
            PgWireFrontendMessage::Query(_)
                | PgWireFrontendMessage::Sync(_)
                | PgWireFrontendMessage::CopyDone(_)
                | PgWireFrontendMessage::CopyFail(_)
                | PgWireFrontendMessage::PasswordMessageFamily(_)
                | PgWireFrontendMessage::Startup(_)
        );
        let handled = process_message(
            message,
            connection,
            handler.clone(),
            handler.clone(),
            handler.clone(),
            handler.clone(),
            handler.clone(),
        )
        .await;
        handler.end_statement();
        if let Err(error) = handled {
            if error.is_fatal() {
                let info = ErrorInfo::from(error);
                connection
                    .send(PgWireBackendMessage::ErrorResponse(info.into()))
                    .await?;
                return Ok(());
            }
            if matches!(error, PgWireError::IoError(_)) {
                return Ok(());
            }
            process_error(connection, error, is_extended_query).await?;
        }
        if is_cancel_request {
            return Ok(());
        }
    }
}

/// The next message from the client (None when it hung up). pgwire's decoder panics on
/// some malformed messages (a Parse or Bind whose counts run past its end, found by the
/// fuzz target): such a panic is caught here and reported as a malformed message, so the
/// client gets FATAL 08P01 and only its connection ends.
async fn next_message<S>(
    connection: &mut Connection<S>,
) -> Option<Result<PgWireFrontendMessage, PgWireError>>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + Sync + 'static,
{
    match AssertUnwindSafe(connection.next()).catch_unwind().await {
        Ok(message) => message,
        Err(_) => Some(Err(PgWireError::IoError(io::Error::new(
            io::ErrorKind::InvalidData,
            "malformed message",
        )))),
    }
}

/// The idle timeout that applies now (from the session's settings and its transaction
/// status), if any.
fn idle_deadline(handler: &ClientHandler) -> Deadline {
    let timeouts = handler.timeouts();
    let at = |timeout: Duration| Instant::now() + timeout;
    match handler.transaction_status() {
        TransactionStatus::Idle => match timeouts.idle_session {
            Some(timeout) => Deadline::Idle(
                at(timeout),
                "57P05",
                "terminating connection due to idle-session timeout",
            ),
            None => Deadline::None,
        },
        _ => match timeouts.idle_in_transaction {
            Some(timeout) => Deadline::Idle(
                at(timeout),
                "25P03",
                "terminating connection due to idle-in-transaction timeout",
            ),
            None => Deadline::None,
        },
    }
}

/// Sends a FATAL error; the caller then closes the connection.
async fn send_fatal<S>(connection: &mut Connection<S>, code: &str, message: &str) -> io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + Sync + 'static,
{
    send_fatal_text(connection, code, message.to_owned()).await
}

async fn send_fatal_text<S>(
    connection: &mut Connection<S>,
    code: &str,
    message: String,
) -> io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + Sync + 'static,
{
    let info = ErrorInfo::new("FATAL".to_owned(), code.to_owned(), message);
    connection
        .send(PgWireBackendMessage::ErrorResponse(info.into()))
        .await
}
