//! Shared test support: a server on an ephemeral loopback port over a fresh database, a
//! tokio-postgres client connected to it, and a minimal raw protocol client for what
//! tokio-postgres cannot send (text-format parameters, hand-made pipelines, malformed
//! messages) or show (ReadyForQuery's transaction status, PortalSuspended).

#![allow(
    dead_code,
    clippy::expect_used,
    clippy::panic,
    reason = "test helpers: each test binary uses some of them, and a broken server fails the test"
)]

use std::net::SocketAddr;

use basalt::Database;
use basalt_server::Server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_postgres::{Client, NoTls};

/// A running server on a temporary database file.
pub struct TestServer {
    pub address: SocketAddr,
    _dir: tempfile::TempDir,
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::start_with(basalt_server::ServerConfig::default()).await
    }

    /// A server with `config`'s authentication, TLS and limits.
    pub async fn start_with(config: basalt_server::ServerConfig) -> TestServer {
        let dir = tempfile::tempdir().expect("temporary directory");
        let db = Database::open(dir.path().join("test.basalt")).expect("open database");
        let server = Server::bind_with(db, "127.0.0.1:0".parse().expect("address"), config)
            .await
            .expect("bind");
        let address = server.local_addr().expect("local address");
        tokio::spawn(server.run());
        TestServer { address, _dir: dir }
    }

    pub fn config(&self) -> tokio_postgres::Config {
        let mut config = tokio_postgres::Config::new();
        config
            .host("127.0.0.1")
            .port(self.address.port())
            .user("tester")
            .dbname("test");
        config
    }

    /// A tokio-postgres client, its connection driven by a task of its own.
    pub async fn client(&self) -> Client {
        let (client, connection) = self.config().connect(NoTls).await.expect("connect");
        tokio::spawn(connection);
        client
    }

    /// A raw protocol connection, past startup.
    pub async fn raw(&self) -> RawClient {
        let stream = TcpStream::connect(self.address).await.expect("connect");
        let mut raw = RawClient::from_stream(stream);
        raw.startup(&[("user", "raw"), ("database", "test")]).await;
        raw.read_until_ready().await;
        raw
    }
}

/// One backend message: its type byte and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub kind: u8,
    pub body: Vec<u8>,
}

impl Message {
    /// The DataRow's fields (None for NULL).
    pub fn fields(&self) -> Vec<Option<Vec<u8>>> {
        assert_eq!(self.kind, b'D', "not a DataRow");
        let count = i16::from_be_bytes([self.body[0], self.body[1]]);
        let mut at = 2;
        (0..count)
            .map(|_| {
                let length = i32::from_be_bytes(self.body[at..at + 4].try_into().expect("length"));
                at += 4;
                if length < 0 {
                    return None;
                }
                let field = self.body[at..at + length as usize].to_vec();
                at += length as usize;
                Some(field)
            })
            .collect()
    }

    /// An ErrorResponse's field `code` (`b'C'` for SQLSTATE, `b'M'` message, `b'P'` position).
    pub fn error_field(&self, code: u8) -> Option<String> {
        assert_eq!(self.kind, b'E', "not an ErrorResponse");
        self.body
            .split(|byte| *byte == 0)
            .find(|field| field.first() == Some(&code))
            .map(|field| String::from_utf8_lossy(&field[1..]).into_owned())
    }

    /// A CommandComplete's tag.
    pub fn tag(&self) -> String {
        assert_eq!(self.kind, b'C', "not a CommandComplete");
        String::from_utf8_lossy(self.body.strip_suffix(&[0]).unwrap_or(&self.body)).into_owned()
    }
}

/// Frontend messages, built by hand.
pub mod clients;

pub mod frontend {
    fn message(kind: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![kind];
        out.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        out.extend_from_slice(body);
        out
    }

    fn cstring(out: &mut Vec<u8>, text: &str) {
        out.extend_from_slice(text.as_bytes());
        out.push(0);
    }

    pub fn copy_data(data: &[u8]) -> Vec<u8> {
        message(b'd', data)
    }

    pub fn copy_done() -> Vec<u8> {
        message(b'c', &[])
    }

    pub fn copy_fail(reason: &str) -> Vec<u8> {
        let mut body = Vec::new();
        cstring(&mut body, reason);
        message(b'f', &body)
    }

    pub fn query(sql: &str) -> Vec<u8> {
        let mut body = Vec::new();
        cstring(&mut body, sql);
        message(b'Q', &body)
    }

    pub fn parse(name: &str, sql: &str, types: &[u32]) -> Vec<u8> {
        let mut body = Vec::new();
        cstring(&mut body, name);
        cstring(&mut body, sql);
        body.extend_from_slice(&(types.len() as i16).to_be_bytes());
        for oid in types {
            body.extend_from_slice(&oid.to_be_bytes());
        }
        message(b'P', &body)
    }

    pub fn bind(
        portal: &str,
        statement: &str,
        formats: &[i16],
        parameters: &[Option<&[u8]>],
        result_formats: &[i16],
    ) -> Vec<u8> {
        let mut body = Vec::new();
        cstring(&mut body, portal);
        cstring(&mut body, statement);
        body.extend_from_slice(&(formats.len() as i16).to_be_bytes());
        for format in formats {
            body.extend_from_slice(&format.to_be_bytes());
        }
        body.extend_from_slice(&(parameters.len() as i16).to_be_bytes());
        for parameter in parameters {
            match parameter {
                None => body.extend_from_slice(&(-1i32).to_be_bytes()),
                Some(bytes) => {
                    body.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
                    body.extend_from_slice(bytes);
                }
            }
        }
        body.extend_from_slice(&(result_formats.len() as i16).to_be_bytes());
        for format in result_formats {
            body.extend_from_slice(&format.to_be_bytes());
        }
        message(b'B', &body)
    }

    pub fn describe(kind: u8, name: &str) -> Vec<u8> {
        let mut body = vec![kind];
        cstring(&mut body, name);
        message(b'D', &body)
    }

    pub fn execute(portal: &str, max_rows: i32) -> Vec<u8> {
        let mut body = Vec::new();
        cstring(&mut body, portal);
        body.extend_from_slice(&max_rows.to_be_bytes());
        message(b'E', &body)
    }

    pub fn close(kind: u8, name: &str) -> Vec<u8> {
        let mut body = vec![kind];
        cstring(&mut body, name);
        message(b'C', &body)
    }

    pub fn sync() -> Vec<u8> {
        message(b'S', &[])
    }

    pub fn flush() -> Vec<u8> {
        message(b'H', &[])
    }
}

/// A hand-driven protocol connection.
pub struct RawClient {
    pub stream: TcpStream,
    buffer: Vec<u8>,
}

impl RawClient {
    pub fn from_stream(stream: TcpStream) -> RawClient {
        RawClient {
            stream,
            buffer: Vec::new(),
        }
    }

    /// Sends a StartupMessage (protocol 3.0) with `parameters`.
    pub async fn startup(&mut self, parameters: &[(&str, &str)]) {
        let mut body = Vec::new();
        body.extend_from_slice(&196_608i32.to_be_bytes());
        for (name, value) in parameters {
            body.extend_from_slice(name.as_bytes());
            body.push(0);
            body.extend_from_slice(value.as_bytes());
            body.push(0);
        }
        body.push(0);
        let mut message = ((body.len() + 4) as i32).to_be_bytes().to_vec();
        message.extend_from_slice(&body);
        self.stream.write_all(&message).await.expect("startup");
    }

    /// Sends `messages` in one write.
    pub async fn send(&mut self, messages: &[Vec<u8>]) {
        let bytes: Vec<u8> = messages.concat();
        self.stream.write_all(&bytes).await.expect("write");
    }

    /// Reads until a ReadyForQuery has arrived; returns how many socket reads that took
    /// and how many messages came. A server that writes its replies at once needs few reads;
    /// one that writes each message needs about as many reads as messages.
    pub async fn reads_until_ready(&mut self) -> (usize, usize) {
        let mut reads = 0;
        let mut messages = 0;
        let mut pending = std::mem::take(&mut self.buffer);
        loop {
            while pending.len() >= 5 {
                let length = i32::from_be_bytes(pending[1..5].try_into().expect("length")) as usize;
                if pending.len() <= length {
                    break;
                }
                let kind = pending[0];
                pending.drain(..1 + length);
                messages += 1;
                if kind == b'Z' {
                    self.buffer = pending;
                    return (reads, messages);
                }
            }
            let mut chunk = vec![0u8; 1 << 20];
            let read = self.stream.read(&mut chunk).await.expect("read");
            assert!(read > 0, "connection closed before ReadyForQuery");
            reads += 1;
            pending.extend_from_slice(&chunk[..read]);
        }
    }

    /// The next backend message, or None when the server closed the connection.
    pub async fn next(&mut self) -> Option<Message> {
        loop {
            if self.buffer.len() >= 5 {
                let length =
                    i32::from_be_bytes(self.buffer[1..5].try_into().expect("length")) as usize;
                if self.buffer.len() > length {
                    let kind = self.buffer[0];
                    let body = self.buffer[5..1 + length].to_vec();
                    self.buffer.drain(..1 + length);
                    return Some(Message { kind, body });
                }
            }
            let mut chunk = [0u8; 65536];
            let read = self.stream.read(&mut chunk).await.ok()?;
            if read == 0 {
                return None;
            }
            self.buffer.extend_from_slice(&chunk[..read]);
        }
    }

    /// Every message up to and including ReadyForQuery; returns them, the last being it.
    pub async fn read_until_ready(&mut self) -> Vec<Message> {
        let mut messages = Vec::new();
        loop {
            let message = self
                .next()
                .await
                .expect("connection closed before ReadyForQuery");
            let ready = message.kind == b'Z';
            messages.push(message);
            if ready {
                return messages;
            }
        }
    }
}

/// The message kinds of `messages`, as a string (`"1", "2", "D", "C", "Z"` → `"12DCZ"`).
pub fn kinds(messages: &[Message]) -> String {
    messages
        .iter()
        .map(|message| message.kind as char)
        .collect()
}

/// ReadyForQuery's transaction status byte.
pub fn status(messages: &[Message]) -> char {
    let last = messages.last().expect("messages");
    assert_eq!(last.kind, b'Z');
    last.body[0] as char
}
