//! Entry points for the fuzz target (`crates/basalt-server/fuzz/`), behind the `fuzzing`
//! feature: arbitrary bytes through the decoders the server uses (pgwire's server codec, in
//! each connection state), through the SCRAM exchange, and through a whole connection — the
//! server's own message loop and handlers on an in-memory stream over an in-memory database.
//!
//! What it guarantees: none of these panics in this crate's code on any input, and each
//! returns once the bytes are used up (a connection is also cut off after a time limit, as
//! a statement the bytes happen to ask for may run long). A panic in pgwire's decoder is
//! pgwire's: [`decode_all`] lets it through so the target can tell it apart (the server
//! itself contains such a panic to its connection, see [`crate::Server::run`]).

use std::sync::Arc;
use std::time::Duration;

use basalt::Database;
use bytes::BytesMut;
use pgwire::api::{DefaultClient, PgWireConnectionState};
use pgwire::messages::PgWireFrontendMessage;
use pgwire::tokio::server::PgWireMessageServerCodec;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::codec::Decoder;

use crate::auth::{Handshake, Users, Verifier};
use crate::config::ServerConfig;
use crate::connection::{ClientHandler, Shared};

/// The connection states whose decoding differs: before the SSLRequest, before the startup
/// message, during authentication, and after it.
const STATES: [PgWireConnectionState; 4] = [
    PgWireConnectionState::AwaitingSslRequest,
    PgWireConnectionState::AwaitingStartup,
    PgWireConnectionState::AuthenticationInProgress,
    PgWireConnectionState::ReadyForQuery,
];

/// Decodes `bytes` as the server's codec would, starting in the state `first` picks: the
/// first message in that state, every later one as after startup (as a connection moves on).
/// Returns how many messages were decoded before the bytes ran out or one was malformed.
pub fn decode_all(bytes: &[u8], first: u8) -> usize {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let mut codec: PgWireMessageServerCodec<String> =
        PgWireMessageServerCodec::new(DefaultClient::new(address, false));
    let start = STATES
        .get(usize::from(first) % STATES.len())
        .copied()
        .unwrap_or(PgWireConnectionState::AwaitingStartup);
    codec.client_info.state = start;
    let mut buffer = BytesMut::from(bytes);
    let mut decoded = 0;
    while let Ok(Some(message)) = codec.decode(&mut buffer) {
        decoded += 1;
        codec.client_info.state = match message {
            PgWireFrontendMessage::SslNegotiation(_) => PgWireConnectionState::AwaitingStartup,
            _ => PgWireConnectionState::ReadyForQuery,
        };
        if let PgWireFrontendMessage::PasswordMessageFamily(password) = message {
            // What the SCRAM handler reads from a password message: the initial response
            // with the server's own reader (pgwire's panics on a bad length), the final
            // one with pgwire's.
            if let pgwire::messages::startup::PasswordMessageFamily::Raw(body) = &password {
                let _ = crate::auth::initial_response(body);
            }
            let _ = password.into_sasl_response();
        }
    }
    decoded
}

/// Runs the SCRAM exchange with `bytes` as the client's two messages (split at the first
/// NUL), for a known user and an unknown one.
pub fn scram(bytes: &[u8]) {
    let (first, last) = match bytes.iter().position(|&byte| byte == 0) {
        Some(at) => (&bytes[..at], bytes.get(at + 1..).unwrap_or_default()),
        None => (bytes, &[][..]),
    };
    let Some(users) = test_users() else {
        return;
    };
    for user in ["alice", "nobody"] {
        let mut handshake = Handshake::default();
        if handshake
            .client_first(&users, user, crate::auth::MECHANISM, Some(first))
            .is_ok()
        {
            let _ = handshake.client_final(user, last);
        }
    }
}

/// The users the fuzz connections may log in as: `alice`, password `pencil`.
fn test_users() -> Option<Users> {
    let verifier = Verifier::from_password("pencil", b"fuzzing salt", 4096);
    Users::new([("alice".to_owned(), verifier)]).ok()
}

/// Serves one connection whose client sends `bytes` and then closes its side, on a fresh
/// in-memory database; `password` asks for SCRAM (user `alice`, password `pencil`). Returns
/// how many bytes the server sent back. Must run inside a tokio runtime with time enabled.
pub async fn connection(bytes: &[u8], password: bool) -> usize {
    let Ok(db) = Database::open_in_memory() else {
        return 0;
    };
    let mut config = ServerConfig::default().with_startup_timeout(Duration::from_secs(1));
    if password && let Some(users) = test_users() {
        config = config.with_users(users);
    }
    let handler = Arc::new(ClientHandler::new(Arc::new(Shared::new(db, config))));
    let (mut client, server) = tokio::io::duplex(1 << 16);
    let connection = crate::socket::framed(server);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
    let serve = crate::socket::serve_framed(connection, handler, deadline);
    let talk = async move {
        // The server's replies are read while the bytes are written, so neither side waits
        // for the other's buffer to drain.
        let (mut reader, mut writer) = tokio::io::split(&mut client);
        let write = async {
            let _ = writer.write_all(bytes).await;
            let _ = writer.shutdown().await;
        };
        let read = async {
            let mut received = 0;
            let mut chunk = [0u8; 8192];
            while let Ok(read) = reader.read(&mut chunk).await {
                if read == 0 {
                    break;
                }
                received += read;
            }
            received
        };
        let ((), received) = tokio::join!(write, read);
        received
    };
    let limited = tokio::time::timeout(Duration::from_secs(2), async {
        let (_, received) = tokio::join!(serve, talk);
        received
    });
    limited.await.unwrap_or(0)
}
