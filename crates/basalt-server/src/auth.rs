//! Password authentication: SCRAM-SHA-256 (RFC 5802, RFC 7677) against stored verifiers, as
//! PostgreSQL's `scram-sha-256` method does it.
//!
//! Users come from a password file ([`Users::load`]): one `user:verifier` a line, the
//! verifier in PostgreSQL's `pg_authid.rolpassword` form,
//! `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (base64), so a verifier
//! copied out of PostgreSQL works unchanged; blank lines and lines starting with `#` are
//! skipped. [`set_password`] adds or replaces a user's line from a password it is given
//! (`basalt passwd FILE USER` reads it from the terminal or stdin): the plaintext is never
//! written anywhere.
//!
//! The exchange itself ([`Handshake`]) uses pgwire's SCRAM server with the verifier as its
//! secret: the server only ever holds StoredKey and ServerKey, never the password or the
//! salted password. What it guarantees: a wrong password and an unknown user look the same
//! to the client — an unknown user gets a made-up salt (the same one every time for the same
//! name, as PostgreSQL's mock authentication does) and the exchange runs to the end, then
//! fails with 28P01 `password authentication failed for user "x"`; a malformed SCRAM message
//! fails with 08P01; every failure is FATAL (the connection closes). Nothing here panics on
//! what a client sends.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use pgwire::api::auth::sasl::scram::{
    ScramSecret, ScramServerAuth, ScramServerAuthWaitingForClientFinal, gen_salted_password,
};
use pgwire::error::{ErrorInfo, PgWireError};
use ring::rand::{SecureRandom, SystemRandom};

/// The SASL mechanism offered (channel binding, `-PLUS`, is not).
pub(crate) const MECHANISM: &str = "SCRAM-SHA-256";

/// The iteration count new verifiers get: PostgreSQL's default (`scram_iterations`).
pub const DEFAULT_ITERATIONS: u32 = 4096;

/// The salt length new verifiers get, PostgreSQL's (`SCRAM_DEFAULT_SALT_LEN`).
const SALT_LENGTH: usize = 16;

/// The verifier's prefix, naming the mechanism.
const PREFIX: &str = "SCRAM-SHA-256$";

/// 28P01: a wrong password, or a user the server does not know.
const INVALID_PASSWORD: &str = "28P01";
/// 08P01: a SCRAM message that does not follow the protocol.
const PROTOCOL_VIOLATION: &str = "08P01";

/// A SCRAM-SHA-256 verifier: what the server stores instead of a password.
#[derive(Clone, PartialEq, Eq)]
pub struct Verifier {
    iterations: u32,
    salt: Vec<u8>,
    stored_key: Vec<u8>,
    server_key: Vec<u8>,
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The keys are as good as the password against this server: never printed.
        f.debug_struct("Verifier")
            .field("iterations", &self.iterations)
            .finish_non_exhaustive()
    }
}

impl Verifier {
    /// The verifier of `password` with `salt` and `iterations` (the password is normalized
    /// with SASLprep first, as PostgreSQL and libpq do).
    pub fn from_password(password: &str, salt: &[u8], iterations: u32) -> Verifier {
        let salted = gen_salted_password(password, salt, iterations.max(1) as usize);
        match ScramSecret::verifier_from_salted_password(salt.to_vec(), salted, 0) {
            ScramSecret::Verifier {
                stored_key,
                server_key,
                ..
            } => Verifier {
                iterations,
                salt: salt.to_vec(),
                stored_key,
                server_key,
            },
            // verifier_from_salted_password always makes a Verifier.
            ScramSecret::SaltedPassword { .. } => Verifier {
                iterations,
                salt: salt.to_vec(),
                stored_key: Vec::new(),
                server_key: Vec::new(),
            },
        }
    }

    /// Reads PostgreSQL's form, `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`.
    pub fn parse(text: &str) -> Option<Verifier> {
        let rest = text.trim().strip_prefix(PREFIX)?;
        let (parameters, keys) = rest.split_once('$')?;
        let (iterations, salt) = parameters.split_once(':')?;
        let (stored_key, server_key) = keys.split_once(':')?;
        let iterations: u32 = iterations.parse().ok().filter(|&count| count > 0)?;
        let decode = |text: &str| STANDARD.decode(text).ok();
        let verifier = Verifier {
            iterations,
            salt: decode(salt).filter(|salt| !salt.is_empty())?,
            stored_key: decode(stored_key).filter(|key| key.len() == 32)?,
            server_key: decode(server_key).filter(|key| key.len() == 32)?,
        };
        Some(verifier)
    }

    /// The secret pgwire's SCRAM server checks a client's proof against.
    fn secret(&self) -> ScramSecret {
        ScramSecret::Verifier {
            salt: self.salt.clone(),
            iterations: self.iterations as usize,
            stored_key: self.stored_key.clone(),
            server_key: self.server_key.clone(),
        }
    }
}

impl fmt::Display for Verifier {
    /// PostgreSQL's form, as `pg_authid.rolpassword` holds it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{PREFIX}{}:{}${}:{}",
            self.iterations,
            STANDARD.encode(&self.salt),
            STANDARD.encode(&self.stored_key),
            STANDARD.encode(&self.server_key)
        )
    }
}

/// The users a server accepts, with their verifiers.
#[derive(Debug)]
pub struct Users {
    verifiers: HashMap<String, Verifier>,
    /// Keys the made-up salts of unknown users (random per server).
    mock_key: ring::hmac::Key,
}

impl Users {
    /// Users from `verifiers`, as (name, verifier) pairs.
    pub fn new(verifiers: impl IntoIterator<Item = (String, Verifier)>) -> io::Result<Users> {
        let mut seed = [0u8; 32];
        SystemRandom::new()
            .fill(&mut seed)
            .map_err(|_| io::Error::other("no random numbers from the system"))?;
        Ok(Users {
            verifiers: verifiers.into_iter().collect(),
            mock_key: ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &seed),
        })
    }

    /// Reads a password file (see the module's documentation). A line that is not
    /// `user:verifier` is an error naming its line number.
    pub fn load(path: &Path) -> io::Result<Users> {
        let text = std::fs::read_to_string(path)?;
        let mut verifiers = Vec::new();
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let entry = parse_line(line).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}, line {}: expected user:SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>",
                        path.display(),
                        number + 1
                    ),
                )
            })?;
            verifiers.push(entry);
        }
        Users::new(verifiers)
    }

    /// How many users there are.
    pub fn len(&self) -> usize {
        self.verifiers.len()
    }

    /// Whether there are none (then nobody can log in).
    pub fn is_empty(&self) -> bool {
        self.verifiers.is_empty()
    }

    /// The secret to run the exchange with for `user`, and whether the user exists. An
    /// unknown user gets a verifier no password matches, with a salt made from the name.
    fn secret(&self, user: &str) -> (ScramSecret, bool) {
        if let Some(verifier) = self.verifiers.get(user) {
            return (verifier.secret(), true);
        }
        let tag = ring::hmac::sign(&self.mock_key, user.as_bytes());
        let salt = tag.as_ref().get(..SALT_LENGTH).unwrap_or_default().to_vec();
        let mock = Verifier {
            iterations: DEFAULT_ITERATIONS,
            salt,
            // All zeros: SHA-256 of a client key never is (and the user is unknown anyway).
            stored_key: vec![0; 32],
            server_key: vec![0; 32],
        };
        (mock.secret(), false)
    }
}

/// `user:verifier`, split where the verifier starts (a user name may hold `:`).
fn parse_line(line: &str) -> Option<(String, Verifier)> {
    let at = line.find(&format!(":{PREFIX}"))?;
    let user = line.get(..at)?;
    let verifier = Verifier::parse(line.get(at + 1..)?)?;
    (!user.is_empty()).then(|| (user.to_owned(), verifier))
}

/// A fresh verifier of `password` with a random salt and the default iteration count.
pub fn new_verifier(password: &str) -> io::Result<Verifier> {
    let mut salt = [0u8; SALT_LENGTH];
    SystemRandom::new()
        .fill(&mut salt)
        .map_err(|_| io::Error::other("no random numbers from the system"))?;
    Ok(Verifier::from_password(password, &salt, DEFAULT_ITERATIONS))
}

/// Adds `user` to the password file at `path` with a fresh verifier of `password`, or
/// replaces the user's line; other lines are kept as they are. The file is created if
/// missing, readable by its owner only (on Unix), and replaced in one rename.
pub fn set_password(path: &Path, user: &str, password: &str) -> io::Result<()> {
    if user.is_empty() || user.contains(['\n', '\r']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a user name must be non-empty and on one line",
        ));
    }
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(error),
    };
    let line = format!("{user}:{}", new_verifier(password)?);
    let mut replaced = false;
    let mut lines: Vec<String> = Vec::new();
    for old in existing.lines() {
        if parse_line(old).is_some_and(|(name, _)| name == user) {
            if !replaced {
                lines.push(line.clone());
            }
            replaced = true;
        } else {
            lines.push(old.to_owned());
        }
    }
    if !replaced {
        lines.push(line);
    }
    let temporary = path.with_extension("tmp-basalt-passwd");
    {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&temporary)?;
        for line in &lines {
            writeln!(file, "{line}")?;
        }
        file.sync_all()?;
    }
    std::fs::rename(&temporary, path)
}

/// Where one client's SCRAM exchange stands.
#[derive(Debug, Default)]
pub(crate) enum Handshake {
    /// AuthenticationSASL sent; the client's SASLInitialResponse is next.
    #[default]
    Started,
    /// The server-first message sent; the client's final message is next.
    ServerFirstSent {
        exchange: Box<ScramServerAuthWaitingForClientFinal>,
        known_user: bool,
    },
    /// Over (succeeded or failed): any further password message is a protocol violation.
    Done,
}

impl Handshake {
    /// The client's SASLInitialResponse (`mechanism`, `data`) for `user`: the server-first
    /// message to send back.
    pub(crate) fn client_first(
        &mut self,
        users: &Users,
        user: &str,
        mechanism: &str,
        data: Option<&[u8]>,
    ) -> Result<Vec<u8>, PgWireError> {
        if !matches!(self, Handshake::Started) {
            return Err(malformed("unexpected SASLInitialResponse"));
        }
        *self = Handshake::Done;
        if mechanism != MECHANISM {
            return Err(malformed(
                "client selected an invalid SASL authentication mechanism",
            ));
        }
        let data = data.ok_or_else(|| malformed("empty SCRAM client-first message"))?;
        let (secret, known_user) = users.secret(user);
        let (server_first, exchange) = ScramServerAuth::new()
            .on_client_first_message_with_secret(data, secret)
            .map_err(|_| malformed("malformed SCRAM message"))?;
        *self = Handshake::ServerFirstSent {
            exchange: Box::new(exchange),
            known_user,
        };
        Ok(server_first.into_bytes())
    }

    /// The client's final message: the server-final message (its signature) when the proof
    /// is right, else 28P01 for `user`.
    pub(crate) fn client_final(&mut self, user: &str, data: &[u8]) -> Result<Vec<u8>, PgWireError> {
        let Handshake::ServerFirstSent {
            exchange,
            known_user,
        } = std::mem::take(self)
        else {
            *self = Handshake::Done;
            return Err(malformed("unexpected SASLResponse"));
        };
        *self = Handshake::Done;
        match exchange.on_client_final_message(data) {
            Ok(server_final) if known_user => Ok(server_final.into_bytes()),
            Ok(_) | Err(PgWireError::InvalidPassword(_)) => Err(password_failed(user)),
            Err(_) => Err(malformed("malformed SCRAM message")),
        }
    }
}

/// Reads a SASLInitialResponse's body — the mechanism's name (a C string), then the
/// length of the client-first message (-1: none) and the message. pgwire's own decoder
/// panics when the length runs past the body; this one fails with 08P01.
pub(crate) fn initial_response(body: &[u8]) -> Result<(String, Option<&[u8]>), PgWireError> {
    let invalid = || malformed("malformed SASLInitialResponse message");
    let end = body
        .iter()
        .position(|&byte| byte == 0)
        .ok_or_else(invalid)?;
    let mechanism = String::from_utf8_lossy(body.get(..end).unwrap_or_default()).into_owned();
    let rest = body.get(end + 1..).unwrap_or_default();
    let (length, data) = rest.split_first_chunk::<4>().ok_or_else(invalid)?;
    let length = i32::from_be_bytes(*length);
    if length == -1 {
        return Ok((mechanism, None));
    }
    let length = usize::try_from(length).map_err(|_| invalid())?;
    match data.get(..length) {
        Some(data) if data.len() == length => Ok((mechanism, Some(data))),
        _ => Err(invalid()),
    }
}

/// FATAL 28P01 with PostgreSQL's text (which does not say whether the user exists).
pub(crate) fn password_failed(user: &str) -> PgWireError {
    fatal(
        INVALID_PASSWORD,
        format!("password authentication failed for user \"{user}\""),
    )
}

/// FATAL 08P01 for a SCRAM message that breaks the protocol.
fn malformed(message: &str) -> PgWireError {
    fatal(PROTOCOL_VIOLATION, message.to_owned())
}

/// A FATAL error: pgwire sends it and closes the connection.
pub(crate) fn fatal(code: &str, message: String) -> PgWireError {
    PgWireError::UserError(Box::new(ErrorInfo::new(
        "FATAL".to_owned(),
        code.to_owned(),
        message,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677's test vector: user "user", password "pencil", salt
    /// `W22ZaJ0SNY7soEsUEjb6gQ==`, 4096 iterations; the StoredKey and ServerKey below are
    /// what PostgreSQL 15 stores for that password and salt.
    const RFC7677_VERIFIER: &str = "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=";

    #[test]
    fn verifiers_match_rfc_7677_and_postgresql() {
        let salt = STANDARD
            .decode("W22ZaJ0SNY7soEsUEjb6gQ==")
            .unwrap_or_default();
        let verifier = Verifier::from_password("pencil", &salt, 4096);
        assert_eq!(verifier.to_string(), RFC7677_VERIFIER);
        assert_eq!(Verifier::parse(RFC7677_VERIFIER), Some(verifier));
    }

    #[test]
    fn malformed_verifiers_and_lines_are_refused() {
        assert_eq!(Verifier::parse("md5abcdef"), None);
        assert_eq!(Verifier::parse("SCRAM-SHA-256$0:c2FsdA==$a:b"), None);
        assert_eq!(
            Verifier::parse("SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA"),
            None
        );
        assert!(
            parse_line(&format!("a:b:{RFC7677_VERIFIER}")).is_some_and(|(user, _)| user == "a:b")
        );
        assert!(parse_line(&format!(":{RFC7677_VERIFIER}")).is_none());
        assert!(parse_line("user").is_none());
    }

    #[test]
    fn initial_responses_are_read_without_trusting_their_lengths() {
        let mut body = b"SCRAM-SHA-256\0".to_vec();
        body.extend_from_slice(&3i32.to_be_bytes());
        body.extend_from_slice(b"n,,");
        let read = initial_response(&body).ok();
        assert_eq!(read, Some(("SCRAM-SHA-256".to_owned(), Some(&b"n,,"[..]))));
        let mut none = b"SCRAM-SHA-256\0".to_vec();
        none.extend_from_slice(&(-1i32).to_be_bytes());
        assert_eq!(
            initial_response(&none).ok(),
            Some(("SCRAM-SHA-256".to_owned(), None))
        );
        for bad in [
            &body[..16],
            &body[..body.len() - 1],
            b"SCRAM",
            b"x\0\xff\xff\xff\xfe",
        ] {
            assert!(initial_response(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn unknown_users_get_a_stable_made_up_salt() {
        let users = Users::new(Vec::new()).unwrap_or_else(|error| panic!("{error}"));
        let salt = |user: &str| match users.secret(user) {
            (ScramSecret::Verifier { salt, .. }, false) => salt,
            _ => panic!("expected a mock verifier"),
        };
        assert_eq!(salt("nobody"), salt("nobody"));
        assert_ne!(salt("nobody"), salt("somebody"));
        assert_eq!(salt("nobody").len(), SALT_LENGTH);
    }
}
