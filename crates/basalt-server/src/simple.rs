//! The simple query protocol: a Query message holding any number of statements, run one
//! after another, each answered with its RowDescription, DataRows and CommandComplete; an
//! empty query with EmptyQueryResponse; the first error ends the message; ReadyForQuery
//! closes it.
//!
//! The whole message is parsed before anything runs (as PostgreSQL does), so a syntax error
//! in the third statement stops the first from running; and several statements outside a
//! transaction block run in one implicit transaction, so an error undoes the ones before it.
//! Each statement goes through the session's unnamed statement and portal — the same path as the extended protocol, so rows
//! stream to the client in trips rather than being collected — which, as in PostgreSQL,
//! replaces whatever the client had left in them.

use std::fmt::Debug;
use std::ops::Range;
use std::sync::Arc;

use async_trait::async_trait;
use basalt::{ColumnDescription, DataType, Session, Value};
use futures::{Sink, SinkExt};
use pgwire::api::query::SimpleQueryHandler;
use pgwire::api::results::Response;
use pgwire::api::store::PortalStore;
use pgwire::api::{ClientInfo, ClientPortalStore, PgWireConnectionState};
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::PgWireBackendMessage;
use pgwire::messages::response::{CommandComplete, EmptyQueryResponse, ReadyForQuery};
use pgwire::messages::simplequery::Query;

use crate::command::Command;
use crate::connection::{
    ClientHandler, PortalEnd, Trip, execute_trip, failed_transaction_rule, trip_limit,
};
use crate::copy_statement::parse_copy;
use crate::encode::row_description;
use crate::error::{FEATURE_NOT_SUPPORTED, INVALID_SQL_STATEMENT_NAME, WireError};

#[async_trait]
impl SimpleQueryHandler for ClientHandler {
    async fn on_query<C>(&self, client: &mut C, query: Query) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let query: Arc<str> = query.query.into();
        if let Err(error) = self.run_query(client, &query).await? {
            self.note_error();
            client
                .feed(PgWireBackendMessage::ErrorResponse(
                    error.into_info().into(),
                ))
                .await?;
        } else if self.copy_in_active() {
            // COPY FROM STDIN answered CopyInResponse: the query goes on with the client's
            // data, and ReadyForQuery comes after its CopyDone (pgwire sends it).
            return Ok(());
        }
        client.set_state(PgWireConnectionState::ReadyForQuery);
        client
            .send(PgWireBackendMessage::ReadyForQuery(ReadyForQuery::new(
                self.transaction_status(),
            )))
            .await?;
        Ok(())
    }

    /// Not used: `on_query` above answers every Query itself.
    async fn do_query<C>(&self, _client: &mut C, _query: &str) -> PgWireResult<Vec<Response>>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        Ok(Vec::new())
    }
}

/// A statement prepared, bound, described and run for its first rows in one trip: its
/// result columns, their formats (text), and the first trip or the error it ran into.
type Started = (
    Vec<ColumnDescription>,
    Arc<[(DataType, bool)]>,
    basalt::Result<Trip>,
);

/// On the session's thread: prepares `sql` as the unnamed statement, binds the unnamed
/// portal, describes it and runs its first trip.
fn start_statement(session: &Session, sql: &str) -> basalt::Result<Started> {
    session.prepare_named("", sql)?;
    session.bind("", "", Vec::<Value>::new())?;
    let columns = session.describe_portal("")?;
    let formats: Arc<[(DataType, bool)]> = columns
        .iter()
        .map(|column| (column.data_type, false))
        .collect();
    let trip = execute_trip(session, "", trip_limit(0, 0), &formats);
    Ok((columns, formats, trip))
}

/// A statement's command, and what to run instead under the failed-transaction rule.
fn classify(failed: bool, statement: &str) -> Result<(Command, Option<&'static str>), WireError> {
    let command = Command::of(statement);
    match failed_transaction_rule(failed, Some(&command))? {
        // COMMIT of a failed transaction rolls back, and its tag says so.
        Some(substitute) => Ok((Command::Rollback, Some(substitute))),
        None => Ok((command, None)),
    }
}

/// COPY FROM STDIN must be alone in its Query message in Basalt: the statements after it
/// would have to wait for the client's data, which pgwire's message loop cannot do.
fn refuse_copy_in_among_others(query: &str, ranges: &[Range<usize>]) -> Result<(), WireError> {
    for range in ranges {
        let statement = query.get(range.clone()).unwrap_or_default();
        if Command::of(statement) == Command::Copy
            && parse_copy(statement).is_ok_and(|copy| copy.from)
        {
            return Err(WireError::new(
                FEATURE_NOT_SUPPORTED,
                "COPY FROM STDIN must be the only statement of its query string in Basalt",
            ));
        }
    }
    Ok(())
}

impl ClientHandler {
    /// Runs every statement of `query`, stopping at the first error, which it returns.
    async fn run_query<C>(
        &self,
        client: &mut C,
        query: &Arc<str>,
    ) -> PgWireResult<Result<(), WireError>>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        // statement_timeout runs from here (for a lone statement, COPY included).
        self.begin_statement();
        // The session's unnamed statement and portal are about to be replaced.
        let (in_transaction, failed) = {
            let mut state = self.state();
            state.statements.remove("");
            state.portals.remove("");
            (state.in_transaction, state.failed)
        };
        // A lone COPY is read by the server, not split by the engine's parser: sqlparser
        // does not read every option PostgreSQL accepts (`FREEZE on`).
        if Command::of(query) == Command::Copy
            && let Ok(copy) = parse_copy(query)
        {
            if let Err(error) = classify(failed, query) {
                return Ok(Err(error));
            }
            return self.run_copy(client, &copy, false).await;
        }
        // One trip splits the message and, when it is one statement (the usual case), also
        // starts it.
        let text = query.clone();
        let split = self
            .run(move |session| {
                let ranges = basalt::split_statements(&text)?;
                let mut started = None;
                if let [range] = ranges.as_slice() {
                    let statement = text.get(range.clone()).unwrap_or_default();
                    if let Ok((command, substitute)) = classify(failed, statement)
                        && command != Command::Copy
                        && !matches!(command, Command::Deallocate(_))
                    {
                        let sql = substitute.unwrap_or(statement);
                        started = Some((command, start_statement(session, sql)));
                    }
                }
                Ok::<_, basalt::Error>((ranges, started))
            })
            .await
            .and_then(|split| split.map_err(|error| WireError::from_basalt(&error, query, 0)));
        let (ranges, started) = match split {
            Ok(split) => split,
            Err(error) => return Ok(Err(error)),
        };
        if ranges.is_empty() {
            client
                .feed(PgWireBackendMessage::EmptyQueryResponse(
                    EmptyQueryResponse::new(),
                ))
                .await?;
            return Ok(Ok(()));
        }
        if let (Some((command, started)), [range]) = (started, ranges.as_slice()) {
            return self
                .finish_statement(client, query, range.start, command, started)
                .await;
        }
        if ranges.len() > 1
            && let Err(error) = refuse_copy_in_among_others(query, &ranges)
        {
            return Ok(Err(error));
        }
        // Several statements outside a transaction block run as one implicit transaction,
        // as in PostgreSQL: an error undoes the statements before it. A message that opens,
        // ends or marks transactions itself runs statement by statement.
        let implicit = !in_transaction
            && ranges.len() > 1
            && ranges.iter().all(|range| {
                !Command::of(query.get(range.clone()).unwrap_or_default()).controls_transaction()
            });
        if implicit && let Err(error) = self.run_control("BEGIN").await {
            return Ok(Err(error));
        }
        for range in ranges {
            // statement_timeout applies to each statement of the message on its own, as in
            // PostgreSQL 13 and later.
            self.begin_statement();
            if let Err(error) = self.run_statement(client, query, range).await? {
                if implicit {
                    // The session is gone only if its thread died; the error says enough.
                    let _ = self.run_control("ROLLBACK").await;
                }
                return Ok(Err(error));
            }
        }
        if implicit && let Err(error) = self.run_control("COMMIT").await {
            return Ok(Err(error));
        }
        Ok(Ok(()))
    }

    /// DEALLOCATE: forgets the prepared statement `name` (every named one for `None`, ALL)
    /// both in the protocol's state and in the session. An unknown name is 26000, as in
    /// PostgreSQL.
    async fn deallocate(&self, name: Option<String>) -> Result<(), WireError> {
        {
            let mut state = self.state();
            match &name {
                Some(name) if state.statements.remove(name).is_none() => {
                    return Err(WireError::new(
                        INVALID_SQL_STATEMENT_NAME,
                        format!("prepared statement \"{name}\" does not exist"),
                    ));
                }
                Some(_) => {}
                None => state.statements.retain(|name, _| name.is_empty()),
            }
        }
        self.run(move |session| match &name {
            Some(name) => session.close_statement(name),
            None => session.close_named_statements(),
        })
        .await
    }

    /// Runs a transaction control statement of the server's own (no reply to the client).
    async fn run_control(&self, sql: &'static str) -> Result<(), WireError> {
        self.run(move |session| session.execute_batch(sql))
            .await
            .and_then(|result| result.map_err(WireError::from))
    }

    /// Runs the statement at `range` of `query` and sends its results.
    async fn run_statement<C>(
        &self,
        client: &mut C,
        query: &Arc<str>,
        range: Range<usize>,
    ) -> PgWireResult<Result<(), WireError>>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let statement = query.get(range.clone()).unwrap_or_default();
        let (command, substitute) = match classify(self.state().failed, statement) {
            Ok(classified) => classified,
            Err(error) => return Ok(Err(error)),
        };
        if command == Command::Copy {
            return match parse_copy(statement) {
                Ok(copy) => self.run_copy(client, &copy, false).await,
                Err(error) => Ok(Err(error)),
            };
        }
        if let Command::Deallocate(name) = &command {
            if let Err(error) = self.deallocate(name.clone()).await {
                return Ok(Err(error));
            }
            client
                .feed(PgWireBackendMessage::CommandComplete(CommandComplete::new(
                    command.tag(0),
                )))
                .await?;
            return Ok(Ok(()));
        }
        let text = query.clone();
        let start = range.start;
        let started = self
            .run(move |session| {
                let sql = substitute.unwrap_or_else(|| text.get(range).unwrap_or_default());
                start_statement(session, sql)
            })
            .await;
        let started = match started {
            Ok(started) => started,
            Err(error) => return Ok(Err(error)),
        };
        self.finish_statement(client, query, start, command, started)
            .await
    }

    /// Sends a started statement's results: its RowDescription, its rows (in further trips
    /// while there are more) and its CommandComplete. `start` is its offset in `query`.
    async fn finish_statement<C>(
        &self,
        client: &mut C,
        query: &str,
        start: usize,
        command: Command,
        started: basalt::Result<Started>,
    ) -> PgWireResult<Result<(), WireError>>
    where
        C: Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let (columns, formats, first_trip) = match started {
            Ok(started) => started,
            Err(error) => return Ok(Err(WireError::from_basalt(&error, query, start))),
        };
        if !columns.is_empty() {
            client
                .feed(PgWireBackendMessage::RowDescription(row_description(
                    &columns,
                    &[],
                )))
                .await?;
        }
        // An error while the rows are produced comes after the RowDescription, as in
        // PostgreSQL.
        let first_trip = match first_trip {
            Ok(trip) => trip,
            Err(error) => return Ok(Err(WireError::from(error))),
        };
        let end = match self
            .drive_portal(client, "", 0, formats, Some(first_trip))
            .await?
        {
            Ok(end) => end,
            Err(error) => return Ok(Err(error)),
        };
        let rows = match end {
            PortalEnd::Complete { returned, first } => {
                if command.counts_changes() {
                    first.rows
                } else if matches!(command, Command::Select) && columns.is_empty() {
                    // CREATE TABLE AS: the rows it wrote.
                    first.rows
                } else {
                    returned
                }
            }
            // Unreachable with no row limit; report what was sent.
            PortalEnd::Suspended { .. } => 0,
        };
        if matches!(command, Command::RollbackTo) {
            self.state().failed = false;
        }
        client
            .feed(PgWireBackendMessage::CommandComplete(CommandComplete::new(
                command.tag(rows),
            )))
            .await?;
        self.report_parameter_changes(client).await?;
        Ok(Ok(()))
    }
}
