//! [`ClientHandler`]: one client connection — its startup, its session, the protocol state
//! the server keeps beside the session, and the glue that runs a portal and feeds its rows
//! to the client. The simple and extended query handlers ([`crate::simple`],
//! [`crate::extended`]) are implemented on it.
//!
//! What it keeps, and why: Basalt's `Session` holds the prepared statements and portals
//! themselves; the handler keeps what the protocol needs without a trip to the session's
//! thread — each statement's command kind (for tags and the failed-transaction rule), its
//! parameter OIDs and result columns (for Bind and Describe), each portal's result formats —
//! plus the transaction status PostgreSQL reports. Basalt has no failed transaction state (a
//! failed statement inside BEGIN is undone by its savepoint and the transaction goes on), so
//! the handler provides PostgreSQL's: after an error inside a transaction block, everything
//! but ROLLBACK, ROLLBACK TO SAVEPOINT and COMMIT (which then rolls back) fails with 25P02,
//! and ReadyForQuery reports `E`.
//!
//! Writes are buffered: handlers `feed` messages into pgwire's framed sink, which writes when
//! its buffer fills; only Sync, Flush, the end of a simple query and errors flush.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use async_trait::async_trait;
use basalt::{
    ColumnDescription, DataType, Database, Execution, InterruptHandle, Session, SessionTimeouts,
};
use bytes::Bytes;
use futures::{Sink, SinkExt};
use pgwire::api::auth::{
    ServerParameterProvider, StartupHandler, finish_authentication, protocol_negotiation,
    save_startup_parameters_to_metadata,
};
use pgwire::api::cancel::CancelHandler;
use pgwire::api::{
    ClientInfo, METADATA_APPLICATION_NAME, METADATA_USER, PgWireConnectionState,
    PidSecretKeyGenerator, RandomPidSecretKeyGenerator,
};
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::cancel::CancelRequest;
use pgwire::messages::data::DataRow;
use pgwire::messages::response::TransactionStatus;
use pgwire::messages::startup::{Authentication, ParameterStatus, PasswordMessageFamily};
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::auth::{self, Handshake};
use crate::command::Command;
use crate::config::ServerConfig;
use crate::copy::CopyIn;
use crate::copy_statement::CopyStatement;
use crate::encode::RowEncoder;
use crate::error::WireError;
use crate::session_thread::{SessionGone, SessionThread};

/// The version reported as `server_version`: PostgreSQL 15's numbering, which drivers parse
/// to decide what the server can do; Basalt speaks PostgreSQL 15's dialect and protocol.
pub const SERVER_VERSION: &str = "15.0";

/// Rows fetched from the session per trip to its thread: large enough that the trips cost
/// little next to encoding the rows, small enough to bound the memory a trip holds.
const ROWS_PER_TRIP: u64 = 1024;

/// The `TimeZone` a session starts in (Basalt's default session zone).
const STARTUP_TIME_ZONE: &str = "UTC";

/// What every connection of one server shares.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) db: Database,
    pub(crate) config: ServerConfig,
    /// Each connection's process id → its secret key, its session's interrupt and its
    /// COPY's cancel flag.
    cancel_keys: Mutex<HashMap<i32, CancelTarget>>,
    keys: RandomPidSecretKeyGenerator,
    /// One permit per client past startup, `config.max_connections` in all.
    connection_slots: Arc<Semaphore>,
}

impl Shared {
    pub(crate) fn new(db: Database, config: ServerConfig) -> Self {
        Shared {
            db,
            connection_slots: Arc::new(Semaphore::new(config.max_connections)),
            config,
            cancel_keys: Mutex::new(HashMap::new()),
            keys: RandomPidSecretKeyGenerator::default(),
        }
    }

    fn cancel_keys(&self) -> MutexGuard<'_, HashMap<i32, CancelTarget>> {
        // The map stays consistent whatever a panicking holder did (one insert or remove).
        self.cancel_keys
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What a CancelRequest with a connection's key stops: the statement its session runs, and
/// a COPY FROM STDIN waiting for data (no statement runs then; [`crate::copy`] checks the
/// flag as the data comes).
type CancelTarget = (Bytes, InterruptHandle, Arc<AtomicBool>);

/// A prepared statement as the protocol sees it.
#[derive(Debug)]
pub(crate) struct PreparedInfo {
    /// `None` for an empty query (no statement at all).
    pub(crate) command: Option<Command>,
    /// Each parameter's type: the client's, where it gave one, else the engine's inference.
    pub(crate) parameter_oids: Vec<u32>,
    pub(crate) columns: Vec<ColumnDescription>,
    /// A COPY statement, read by the server (the engine has no COPY).
    pub(crate) copy: Option<Arc<CopyStatement>>,
}

/// An open portal as the protocol sees it.
#[derive(Debug)]
pub(crate) struct PortalInfo {
    pub(crate) statement: Arc<PreparedInfo>,
    /// Whether each result column goes out in binary.
    pub(crate) binary: Vec<bool>,
    /// For a command that changes rows: the count its first execution reported.
    pub(crate) changed: Option<u64>,
    /// Stopped at a row limit: the session's portal holds a snapshot and its operators.
    pub(crate) suspended: bool,
}

/// The protocol state of one connection.
#[derive(Debug, Default)]
pub(crate) struct ClientState {
    pub(crate) statements: HashMap<String, Arc<PreparedInfo>>,
    pub(crate) portals: HashMap<String, PortalInfo>,
    /// Whether the session has an explicit transaction open (as of its last job).
    pub(crate) in_transaction: bool,
    /// An error happened in the open transaction: only ROLLBACK may run.
    pub(crate) failed: bool,
    /// The session's portals are to be closed before its next job (Sync outside a
    /// transaction block closed them for the protocol; none holds a snapshot, so closing
    /// them in the session can wait for the next trip there instead of costing one).
    pub(crate) close_portals: bool,
    pid: Option<i32>,
    /// The session's `TimeZone` as last reported to the client (ParameterStatus), and whether
    /// a job changed it since (`SET TIME ZONE`): reported after the statement completes.
    time_zone: Option<String>,
    time_zone_changed: bool,
    /// The session's timeouts as of its last job (`SET statement_timeout`, ...).
    timeouts: SessionTimeouts,
    /// When the running statement passes `statement_timeout` (set as it starts).
    statement_deadline: Option<Instant>,
}

/// How a portal's execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PortalEnd {
    /// Ran to completion: the rows this execution returned, and what the engine reported
    /// for the first batch (the changed-row count of a write).
    Complete { returned: u64, first: Execution },
    /// Stopped at the row limit; an Execute resumes it. `first` as above.
    Suspended { first: Execution },
}

/// One client connection's handlers (startup, queries, cancel) and state.
#[derive(Debug)]
pub(crate) struct ClientHandler {
    pub(crate) shared: Arc<Shared>,
    /// Started at startup: a connection that only carries a CancelRequest never has one.
    session: OnceLock<SessionThread>,
    state: Mutex<ClientState>,
    /// A COPY FROM STDIN waiting for the client's data ([`crate::copy`]).
    pub(crate) copy_in: Mutex<Option<CopyIn>>,
    /// Set by a CancelRequest: a COPY FROM STDIN in progress fails with 57014.
    pub(crate) copy_canceled: Arc<AtomicBool>,
    /// The SCRAM exchange, when the server asks for passwords.
    handshake: Mutex<Handshake>,
    /// This client's place among `max_connections`, held until the connection ends.
    slot: Mutex<Option<OwnedSemaphorePermit>>,
}

impl ClientHandler {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        ClientHandler {
            shared,
            session: OnceLock::new(),
            state: Mutex::new(ClientState::default()),
            copy_in: Mutex::new(None),
            copy_canceled: Arc::new(AtomicBool::new(false)),
            handshake: Mutex::new(Handshake::default()),
            slot: Mutex::new(None),
        }
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, ClientState> {
        // Every update under this lock is a plain assignment or map edit: a panic cannot
        // leave it half done, so a poisoned lock's state is still sound.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `job` on the session's thread, and notes whether a transaction is open after it.
    pub(crate) async fn run<R: Send + 'static>(
        &self,
        job: impl FnOnce(&Session) -> R + Send + 'static,
    ) -> Result<R, WireError> {
        let session = self.session.get().ok_or_else(WireError::session_gone)?;
        let (close_portals, deadline) = {
            let mut state = self.state();
            (
                std::mem::take(&mut state.close_portals),
                state.statement_deadline,
            )
        };
        let job = session.run(move |session| {
            if close_portals {
                session.close_portals();
            }
            let result = job(session);
            let timeouts = session.timeouts();
            (
                result,
                session.in_transaction(),
                session.time_zone(),
                timeouts,
            )
        });
        let finished = match deadline {
            None => job.await,
            Some(deadline) => {
                tokio::pin!(job);
                tokio::select! {
                    finished = &mut job => finished,
                    () = tokio::time::sleep_until(deadline) => {
                        // statement_timeout: the statement fails with 57014 as for a
                        // cancel, with the timeout's message; its job still ends normally.
                        session.interrupt_handle().interrupt_for_statement_timeout();
                        job.await
                    }
                }
            }
        };
        let (result, in_transaction, time_zone, timeouts) =
            finished.map_err(|SessionGone| WireError::session_gone())?;
        let mut state = self.state();
        state.timeouts = timeouts;
        let reported = state.time_zone.as_deref().unwrap_or(STARTUP_TIME_ZONE);
        if reported != time_zone {
            state.time_zone = Some(time_zone);
            state.time_zone_changed = true;
        }
        if state.in_transaction && !in_transaction {
            // The transaction ended: its portals went with it, and its failure.
            state.portals.clear();
            state.failed = false;
        }
        state.in_transaction = in_transaction;
        Ok(result)
    }

    /// Sends ParameterStatus for a parameter the last statement changed (PostgreSQL reports
    /// its `GUC_REPORT` parameters when they change, before ReadyForQuery): the `TimeZone`.
    pub(crate) async fn report_parameter_changes<C>(&self, client: &mut C) -> PgWireResult<()>
    where
        C: Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let changed = {
            let mut state = self.state();
            std::mem::take(&mut state.time_zone_changed)
                .then(|| state.time_zone.clone())
                .flatten()
        };
        if let Some(zone) = changed {
            client
                .feed(PgWireBackendMessage::ParameterStatus(ParameterStatus::new(
                    "TimeZone".to_owned(),
                    zone,
                )))
                .await?;
        }
        Ok(())
    }

    /// A statement starts: it may run until `statement_timeout` from now (if set).
    pub(crate) fn begin_statement(&self) {
        let mut state = self.state();
        state.statement_deadline = state
            .timeouts
            .statement
            .map(|timeout| Instant::now() + timeout);
    }

    /// The statement (or the message) is over: no deadline until the next one starts.
    pub(crate) fn end_statement(&self) {
        self.state().statement_deadline = None;
    }

    /// The session's timeouts as of its last job.
    pub(crate) fn timeouts(&self) -> SessionTimeouts {
        self.state().timeouts
    }

    /// Records an error for the transaction state: inside a transaction block, it fails it.
    pub(crate) fn note_error(&self) {
        let mut state = self.state();
        state.failed = state.in_transaction;
    }

    /// The status ReadyForQuery reports.
    pub(crate) fn transaction_status(&self) -> TransactionStatus {
        let state = self.state();
        if state.failed {
            TransactionStatus::Error
        } else if state.in_transaction {
            TransactionStatus::Transaction
        } else {
            TransactionStatus::Idle
        }
    }

    /// The failed-transaction rule for `command`: `Ok(None)` runs it as is, `Ok(Some(sql))`
    /// runs `sql` instead (COMMIT of a failed transaction rolls back), `Err` refuses it.
    pub(crate) fn failed_transaction_rule(
        &self,
        command: Option<&Command>,
    ) -> Result<Option<&'static str>, WireError> {
        failed_transaction_rule(self.state().failed, command)
    }

    /// Runs the session's portal `portal` for up to `max_rows` rows (0: all), feeding each
    /// row to `client` as a DataRow, in trips of [`ROWS_PER_TRIP`] rows to the session.
    /// `first`, when given, is the first trip, already made (by a job that also prepared
    /// the portal, saving a trip). The outer error is the connection's; the inner one the
    /// client's.
    pub(crate) async fn drive_portal<C>(
        &self,
        client: &mut C,
        portal: &str,
        max_rows: u64,
        columns: Arc<[(DataType, bool)]>,
        mut first_trip: Option<Trip>,
    ) -> PgWireResult<Result<PortalEnd, WireError>>
    where
        C: Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let mut returned = 0u64;
        let mut first = None;
        loop {
            let trip = match first_trip.take() {
                Some(trip) => Ok(trip),
                None => {
                    let name = portal.to_owned();
                    let columns = columns.clone();
                    let limit = trip_limit(max_rows, returned);
                    self.run(move |session| execute_trip(session, &name, limit, &columns))
                        .await
                        .and_then(|result| result.map_err(WireError::from))
                }
            };
            let (rows, execution) = match trip {
                Ok(trip) => trip,
                Err(error) => return Ok(Err(error)),
            };
            first.get_or_insert(execution);
            returned += rows.len() as u64;
            for row in rows {
                client.feed(PgWireBackendMessage::DataRow(row)).await?;
            }
            let first = first.unwrap_or(execution);
            if !execution.suspended {
                return Ok(Ok(PortalEnd::Complete { returned, first }));
            }
            if max_rows != 0 && returned >= max_rows {
                return Ok(Ok(PortalEnd::Suspended { first }));
            }
        }
    }

    fn register_cancel_key(&self, pid: i32, key: Bytes, interrupt: InterruptHandle) {
        let target = (key, interrupt, self.copy_canceled.clone());
        self.shared.cancel_keys().insert(pid, target);
        self.state().pid = Some(pid);
    }
}

/// [`ClientHandler::failed_transaction_rule`] for a transaction that has `failed` or not.
pub(crate) fn failed_transaction_rule(
    failed: bool,
    command: Option<&Command>,
) -> Result<Option<&'static str>, WireError> {
    if !failed {
        return Ok(None);
    }
    match command {
        Some(Command::Commit) => Ok(Some("ROLLBACK")),
        Some(command) if command.ends_failure() => Ok(None),
        _ => Err(WireError::failed_transaction()),
    }
}

/// One trip's rows, encoded, and what the engine reported for it.
pub(crate) type Trip = (Vec<DataRow>, Execution);

/// How many rows the next trip asks for, `returned` rows into an execution limited to
/// `max_rows` (0: no limit).
pub(crate) fn trip_limit(max_rows: u64, returned: u64) -> u64 {
    if max_rows == 0 {
        ROWS_PER_TRIP
    } else {
        ROWS_PER_TRIP.min(max_rows.saturating_sub(returned))
    }
}

/// One trip of a portal's execution on the session's thread: up to `limit` rows, encoded.
pub(crate) fn execute_trip(
    session: &Session,
    portal: &str,
    limit: u64,
    columns: &[(DataType, bool)],
) -> basalt::Result<Trip> {
    let mut encoder = RowEncoder::new(columns.to_vec());
    let mut rows = Vec::new();
    let execution = session.execute_portal(portal, limit, |row| {
        rows.push(encoder.encode(row)?);
        Ok(())
    })?;
    Ok((rows, execution))
}

impl Drop for ClientHandler {
    fn drop(&mut self) {
        let pid = self.state().pid;
        if let Some(pid) = pid {
            self.shared.cancel_keys().remove(&pid);
        }
        // The connection's task is gone (the client hung up, or the server is stopping): a
        // statement still running has nobody to answer to.
        if let Some(session) = self.session.get() {
            session.interrupt();
        }
    }
}

/// The ParameterStatus values sent at startup: what drivers check before they go on.
#[derive(Debug)]
struct ServerParameters;

impl ServerParameterProvider for ServerParameters {
    fn server_parameters<C>(&self, client: &C) -> Option<HashMap<String, String>>
    where
        C: ClientInfo,
    {
        let metadata = client.metadata();
        let user = metadata
            .get(METADATA_USER)
            .cloned()
            .unwrap_or_else(|| "basalt".to_owned());
        let application_name = metadata
            .get(METADATA_APPLICATION_NAME)
            .cloned()
            .unwrap_or_default();
        let parameters = [
            ("server_version", SERVER_VERSION.to_owned()),
            ("server_encoding", "UTF8".to_owned()),
            // Only UTF-8 is spoken, whatever the client asked for.
            ("client_encoding", "UTF8".to_owned()),
            ("DateStyle", "ISO, MDY".to_owned()),
            ("IntervalStyle", "postgres".to_owned()),
            // The session zone timestamptz text is shown in; SET TIME ZONE changes it, and
            // the change is reported (`ClientHandler::report_parameter_changes`).
            ("TimeZone", STARTUP_TIME_ZONE.to_owned()),
            ("integer_datetimes", "on".to_owned()),
            ("standard_conforming_strings", "on".to_owned()),
            ("is_superuser", "on".to_owned()),
            ("session_authorization", user),
            ("application_name", application_name),
            ("default_transaction_read_only", "off".to_owned()),
            ("in_hot_standby", "off".to_owned()),
        ];
        Some(
            parameters
                .into_iter()
                .map(|(name, value)| (name.to_owned(), value))
                .collect(),
        )
    }
}

#[async_trait]
impl StartupHandler for ClientHandler {
    async fn on_startup<C>(
        &self,
        client: &mut C,
        message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        match message {
            PgWireFrontendMessage::Startup(startup) => {
                protocol_negotiation(client, &startup).await?;
                save_startup_parameters_to_metadata(client, &startup);
                self.take_connection_slot()?;
                if self.shared.config.users.is_none() {
                    // Trust: the server only listens where that is safe (loopback).
                    return self.start_session(client).await;
                }
                if startup_user(client).is_empty() {
                    return Err(auth::fatal(
                        "28000",
                        "no PostgreSQL user name specified in startup packet".to_owned(),
                    ));
                }
                client.set_state(PgWireConnectionState::AuthenticationInProgress);
                client
                    .send(PgWireBackendMessage::Authentication(Authentication::SASL(
                        vec![auth::MECHANISM.to_owned()],
                    )))
                    .await?;
                Ok(())
            }
            PgWireFrontendMessage::PasswordMessageFamily(message) => {
                self.on_password_message(client, message).await
            }
            _ => Ok(()),
        }
    }
}

impl ClientHandler {
    /// One message of the SCRAM exchange: answers the client-first message with the
    /// server-first, and the client-final with the server-final, then starts the session.
    async fn on_password_message<C>(
        &self,
        client: &mut C,
        message: PasswordMessageFamily,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let Some(users) = self.shared.config.users.clone() else {
            return Err(auth::fatal(
                "08P01",
                "unexpected password message".to_owned(),
            ));
        };
        let user = startup_user(client);
        let started = matches!(*self.handshake(), Handshake::Started);
        if started {
            let server_first = match &message {
                PasswordMessageFamily::Raw(body) => {
                    let (mechanism, data) = auth::initial_response(body)?;
                    self.handshake()
                        .client_first(&users, &user, &mechanism, data)?
                }
                _ => return Err(auth::fatal("08P01", "expected SASL response".to_owned())),
            };
            client
                .send(PgWireBackendMessage::Authentication(
                    Authentication::SASLContinue(server_first.into()),
                ))
                .await?;
            return Ok(());
        }
        let response = message
            .into_sasl_response()
            .map_err(|_| auth::fatal("08P01", "expected SASL response".to_owned()))?;
        let server_final = self.handshake().client_final(&user, &response.data)?;
        client
            .feed(PgWireBackendMessage::Authentication(
                Authentication::SASLFinal(server_final.into()),
            ))
            .await?;
        self.start_session(client).await
    }

    /// Takes one of the server's `max_connections` places for this client, or fails with
    /// PostgreSQL's FATAL 53300. The place is freed when the connection ends.
    fn take_connection_slot(&self) -> PgWireResult<()> {
        let permit = self
            .shared
            .connection_slots
            .clone()
            .try_acquire_owned()
            .map_err(|_| auth::fatal("53300", "sorry, too many clients already".to_owned()))?;
        *self
            .slot
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(permit);
        Ok(())
    }

    /// Gives this client's place among `max_connections` back (the connection is ending).
    pub(crate) fn release_connection_slot(&self) {
        self.slot
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
    }

    fn handshake(&self) -> MutexGuard<'_, Handshake> {
        // Each update is one assignment: a poisoned lock's state is still sound.
        self.handshake
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The client is in: opens its session, sends AuthenticationOk, the parameters,
    /// BackendKeyData and ReadyForQuery.
    async fn start_session<C>(&self, client: &mut C) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let session = SessionThread::start(&self.shared.db)?;
        let (pid, key) = self.shared.keys.generate(client);
        client.set_pid_and_secret_key(pid, key.clone());
        self.register_cancel_key(pid, key.to_bytes(), session.interrupt_handle());
        // Startup runs once per connection; a second Startup message never reaches here.
        let _ = self.session.set(session);
        let options = client
            .metadata()
            .get("options")
            .cloned()
            .unwrap_or_default();
        for (name, value) in startup_settings(&options)? {
            let sql = format!("SET {name} = '{}'", value.replace('\'', "''"));
            let set = self.run(move |session| session.execute_batch(&sql)).await;
            if let Err(error) = set.and_then(|result| result.map_err(WireError::from)) {
                return Err(auth::fatal(error.code, error.message));
            }
        }
        // RESET returns to the startup options, as in PostgreSQL.
        if let Err(error) = self
            .run(|session| session.keep_settings_as_defaults())
            .await
        {
            return Err(auth::fatal(error.code, error.message));
        }
        finish_authentication(client, &ServerParameters).await
    }
}

/// The settings in the startup packet's `options` (`PGOPTIONS`): `-c name=value` or
/// `--name=value`, separated by spaces (`\\ ` is a space inside a value), as PostgreSQL reads
/// them. A name must be a plain identifier (letters, digits, `_`, `.`); anything else is
/// FATAL 22023.
fn startup_settings(options: &str) -> PgWireResult<Vec<(String, String)>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut characters = options.chars();
    while let Some(character) = characters.next() {
        match character {
            '\\' => word.extend(characters.next()),
            ' ' | '\t' | '\n' | '\r' => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            other => word.push(other),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    let invalid = |word: &str| {
        auth::fatal(
            "22023",
            format!("invalid command-line argument for server process: {word}"),
        )
    };
    let mut settings = Vec::new();
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        let setting = if word == "-c" {
            words.next().ok_or_else(|| invalid(&word))?
        } else if let Some(rest) = word.strip_prefix("-c").or_else(|| word.strip_prefix("--")) {
            rest.to_owned()
        } else {
            return Err(invalid(&word));
        };
        let (name, value) = setting.split_once('=').ok_or_else(|| invalid(&setting))?;
        let name = name.replace('-', "_");
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            return Err(invalid(&setting));
        }
        settings.push((name, value.to_owned()));
    }
    Ok(settings)
}

/// The user name the client gave at startup (empty if none).
fn startup_user<C: ClientInfo>(client: &C) -> String {
    client
        .metadata()
        .get(METADATA_USER)
        .cloned()
        .unwrap_or_default()
}

#[async_trait]
impl CancelHandler for ClientHandler {
    async fn on_cancel_request(&self, request: CancelRequest) {
        let key = request.secret_key.to_bytes();
        let target = self.shared.cancel_keys().get(&request.pid).cloned();
        // A wrong key is ignored without a word, as PostgreSQL does.
        if let Some((expected, interrupt, copy_canceled)) = target
            && expected == key
        {
            copy_canceled.store(true, Ordering::Relaxed);
            interrupt.interrupt();
        }
    }
}
