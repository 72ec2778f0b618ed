//! The extended query protocol: Parse, Bind, Describe, Execute, Close, Sync and Flush, on
//! the session's named statements and portals.
//!
//! pgwire reads the messages, and on an error this module returns it sends the ErrorResponse
//! and skips messages until Sync, as the protocol says. What this module adds to pgwire's
//! defaults: the statements and portals live in Basalt's session (pgwire's own store is not
//! used); parameter types come from the client where it gave them and from the engine's
//! inference otherwise (ParameterDescription); parameters are decoded in text or binary;
//! Execute honours its row limit with PortalSuspended and resumes; and every reply is fed,
//! not sent, so a pipeline of messages is answered in one write at Sync or Flush.
//!
//! Portals end with their transaction: at Sync outside a transaction block every portal
//! closes (PostgreSQL's implicit transaction ends there), and COMMIT / ROLLBACK close them all.

use std::fmt::Debug;
use std::sync::Arc;

use async_trait::async_trait;
use basalt::{DataType, Value};
use futures::{Sink, SinkExt};
use pgwire::api::portal::Portal;
use pgwire::api::query::ExtendedQueryHandler;
use pgwire::api::results::Response;
use pgwire::api::stmt::NoopQueryParser;
use pgwire::api::store::PortalStore;
use pgwire::api::{ClientInfo, ClientPortalStore, PgWireConnectionState};
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::PgWireBackendMessage;
use pgwire::messages::data::{NoData, ParameterDescription};
use pgwire::messages::extendedquery::{
    Bind, BindComplete, Close, CloseComplete, Describe, Execute, Flush, Parse, ParseComplete,
    PortalSuspended, Sync as PgSync, TARGET_TYPE_BYTE_PORTAL, TARGET_TYPE_BYTE_STATEMENT,
};
use pgwire::messages::response::{CommandComplete, EmptyQueryResponse, ReadyForQuery};

use crate::command::{Command, is_empty_query};
use crate::connection::{ClientHandler, PortalEnd, PortalInfo, PreparedInfo};
use crate::copy_statement::parse_copy;
use crate::encode::{decode_parameter, expand_formats, row_description, type_oid};
use crate::error::{
    DUPLICATE_PREPARED_STATEMENT, INVALID_CURSOR_NAME, INVALID_SQL_STATEMENT_NAME,
    PROTOCOL_VIOLATION, WireError,
};

/// A handler's result: the outer error ends the connection, the inner one is the client's.
type Reply = PgWireResult<Result<(), WireError>>;

/// Turns a client error into what pgwire's loop expects (ErrorResponse, then skip to Sync),
/// after noting it for the transaction state.
fn finish(handler: &ClientHandler, reply: Reply) -> PgWireResult<()> {
    match reply? {
        Ok(()) => Ok(()),
        Err(error) => {
            handler.note_error();
            Err(error.into_pgwire())
        }
    }
}

#[async_trait]
impl ExtendedQueryHandler for ClientHandler {
    type Statement = String;
    type QueryParser = NoopQueryParser;

    fn query_parser(&self) -> Arc<Self::QueryParser> {
        Arc::new(NoopQueryParser)
    }

    async fn on_parse<C>(&self, client: &mut C, message: Parse) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Self::Statement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let reply = self.parse(client, message).await;
        finish(self, reply)
    }

    async fn on_bind<C>(&self, client: &mut C, message: Bind) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Self::Statement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let reply = self.bind(client, message).await;
        finish(self, reply)
    }

    async fn on_execute<C>(&self, client: &mut C, message: Execute) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Self::Statement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        // statement_timeout runs from here to the end of this Execute.
        self.begin_statement();
        let reply = self.execute(client, message).await;
        finish(self, reply)
    }

    async fn on_describe<C>(&self, client: &mut C, message: Describe) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Self::Statement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let reply = self.describe(client, message).await;
        finish(self, reply)
    }

    async fn on_flush<C>(&self, client: &mut C, _message: Flush) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        client.flush().await?;
        Ok(())
    }

    async fn on_sync<C>(&self, client: &mut C, _message: PgSync) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Self::Statement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        // Outside a transaction block, Sync ends PostgreSQL's implicit transaction and its
        // portals. A suspended portal holds a snapshot: close it now. Portals that ran to
        // completion or never ran hold nothing, and close with the session's next job.
        let close_now = {
            let mut state = self.state();
            let mut close_now = false;
            if !state.in_transaction && !state.portals.is_empty() {
                close_now = state.portals.values().any(|portal| portal.suspended);
                state.portals.clear();
                state.close_portals = true;
            }
            close_now
        };
        if close_now {
            // The session is gone only if its thread died; the next message reports it.
            let _ = self.run(|_| ()).await;
        }
        client.set_state(PgWireConnectionState::ReadyForQuery);
        client
            .feed(PgWireBackendMessage::ReadyForQuery(ReadyForQuery::new(
                self.transaction_status(),
            )))
            .await?;
        client.flush().await?;
        Ok(())
    }

    async fn on_close<C>(&self, client: &mut C, message: Close) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Self::Statement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let name = message.name.unwrap_or_default();
        let statement = message.target_type == TARGET_TYPE_BYTE_STATEMENT;
        {
            let mut state = self.state();
            if statement {
                state.statements.remove(&name);
            } else {
                state.portals.remove(&name);
            }
        }
        let closed = self
            .run(move |session| {
                if statement {
                    session.close_statement(&name);
                } else {
                    session.close_portal(&name);
                }
            })
            .await;
        finish(self, Ok(closed))?;
        client
            .feed(PgWireBackendMessage::CloseComplete(CloseComplete::new()))
            .await?;
        Ok(())
    }

    /// Not used: `on_execute` above runs every portal itself.
    async fn do_query<C>(
        &self,
        _client: &mut C,
        _portal: &Portal<Self::Statement>,
        _max_rows: usize,
    ) -> PgWireResult<Response>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Self::Statement>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        Ok(Response::EmptyQuery)
    }
}

impl ClientHandler {
    async fn parse<C>(&self, client: &mut C, message: Parse) -> Reply
    where
        C: Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let name = message.name.unwrap_or_default();
        if name.is_empty() {
            // As PostgreSQL does, the unnamed statement goes first: a Parse that fails
            // leaves none behind for a later Bind to use by mistake.
            self.state().statements.remove("");
        } else if self.state().statements.contains_key(&name) {
            return Ok(Err(WireError::new(
                DUPLICATE_PREPARED_STATEMENT,
                format!("prepared statement \"{name}\" already exists"),
            )));
        }
        let query: Arc<str> = message.query.into();
        let command = Command::of(&query);
        if let Err(error) = self.failed_transaction_rule(Some(&command)) {
            return Ok(Err(error));
        }
        if command == Command::Copy {
            // The engine has no COPY: the server reads it, and runs it at Execute.
            let copy = match parse_copy(&query) {
                Ok(copy) => copy,
                Err(error) => return Ok(Err(error)),
            };
            let info = PreparedInfo {
                command: Some(command),
                parameter_oids: Vec::new(),
                columns: Vec::new(),
                copy: Some(Arc::new(copy)),
            };
            self.state().statements.insert(name, Arc::new(info));
            client
                .feed(PgWireBackendMessage::ParseComplete(ParseComplete::new()))
                .await?;
            return Ok(Ok(()));
        }
        let sql = query.clone();
        let statement_name = name.clone();
        let prepared = self
            .run(move |session| {
                if is_empty_query(&sql) {
                    return Ok(None);
                }
                session.prepare_named(&statement_name, &sql).map(Some)
            })
            .await
            .and_then(|result| result.map_err(|error| WireError::from_basalt(&error, &query, 0)));
        let description = match prepared {
            Ok(description) => description,
            Err(error) => return Ok(Err(error)),
        };
        let info = match description {
            None => PreparedInfo {
                command: None,
                parameter_oids: Vec::new(),
                columns: Vec::new(),
                copy: None,
            },
            Some(description) => {
                let parameter_oids = description
                    .parameters
                    .iter()
                    .enumerate()
                    .map(|(index, parameter)| {
                        match message.type_oids.get(index).copied().unwrap_or(0) {
                            0 => type_oid(parameter.data_type),
                            given => given,
                        }
                    })
                    .collect();
                PreparedInfo {
                    command: Some(command),
                    parameter_oids,
                    columns: description.columns,
                    copy: None,
                }
            }
        };
        self.state().statements.insert(name, Arc::new(info));
        client
            .feed(PgWireBackendMessage::ParseComplete(ParseComplete::new()))
            .await?;
        Ok(Ok(()))
    }

    async fn bind<C>(&self, client: &mut C, message: Bind) -> Reply
    where
        C: Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let statement_name = message.statement_name.clone().unwrap_or_default();
        let portal_name = message.portal_name.clone().unwrap_or_default();
        let Some(statement) = self.state().statements.get(&statement_name).cloned() else {
            return Ok(Err(WireError::new(
                INVALID_SQL_STATEMENT_NAME,
                format!("prepared statement \"{statement_name}\" does not exist"),
            )));
        };
        if let Err(error) = self.failed_transaction_rule(statement.command.as_ref()) {
            return Ok(Err(error));
        }
        let count = statement.parameter_oids.len();
        if message.parameters.len() != count {
            return Ok(Err(WireError::new(
                PROTOCOL_VIOLATION,
                format!(
                    "bind message supplies {} parameters, but prepared statement \"{statement_name}\" requires {count}",
                    message.parameters.len()
                ),
            )));
        }
        let values = match decode_parameters(&message, &statement) {
            Ok(values) => values,
            Err(error) => return Ok(Err(error)),
        };
        let binary = match expand_formats(
            &message.result_column_format_codes,
            statement.columns.len(),
            "result column",
        ) {
            Ok(binary) => binary,
            Err(error) => return Ok(Err(error)),
        };
        if statement.command.is_some() && statement.copy.is_none() {
            let portal = portal_name.clone();
            let described: Vec<DataType> = statement.columns.iter().map(|c| c.data_type).collect();
            let bound = self
                .run(move |session| {
                    session.bind(&portal, &statement_name, values)?;
                    // The statement is re-planned when the schema changed since Parse; the
                    // client decodes rows by the types it was told then, so other types
                    // now are an error, as PostgreSQL's plan cache makes it (a client such
                    // as psycopg then prepares the statement again).
                    let now = session.describe_portal(&portal)?;
                    if now.len() != described.len()
                        || now.iter().zip(&described).any(|(c, t)| c.data_type != *t)
                    {
                        session.close_portal(&portal);
                        return Err(basalt::Error::new(
                            basalt::sqlstate::FEATURE_NOT_SUPPORTED,
                            "cached plan must not change result type",
                        ));
                    }
                    Ok(())
                })
                .await
                .and_then(|result| result.map_err(WireError::from));
            if let Err(error) = bound {
                return Ok(Err(error));
            }
        }
        self.state().portals.insert(
            portal_name,
            PortalInfo {
                statement,
                binary,
                changed: None,
                suspended: false,
            },
        );
        client
            .feed(PgWireBackendMessage::BindComplete(BindComplete::new()))
            .await?;
        Ok(Ok(()))
    }

    async fn describe<C>(&self, client: &mut C, message: Describe) -> Reply
    where
        C: Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let name = message.name.unwrap_or_default();
        let (statement, binary) = match message.target_type {
            TARGET_TYPE_BYTE_STATEMENT => {
                let Some(statement) = self.state().statements.get(&name).cloned() else {
                    return Ok(Err(WireError::new(
                        INVALID_SQL_STATEMENT_NAME,
                        format!("prepared statement \"{name}\" does not exist"),
                    )));
                };
                client
                    .feed(PgWireBackendMessage::ParameterDescription(
                        ParameterDescription::new(statement.parameter_oids.clone()),
                    ))
                    .await?;
                // A statement's columns are described in text: formats come with Bind.
                (statement, Vec::new())
            }
            TARGET_TYPE_BYTE_PORTAL => {
                let described = self
                    .state()
                    .portals
                    .get(&name)
                    .map(|portal| (portal.statement.clone(), portal.binary.clone()));
                match described {
                    Some(described) => described,
                    None => return self.describe_cursor(client, name).await,
                }
            }
            other => {
                return Ok(Err(WireError::new(
                    PROTOCOL_VIOLATION,
                    format!("invalid DESCRIBE message subtype {other}"),
                )));
            }
        };
        let message = if statement.columns.is_empty() {
            PgWireBackendMessage::NoData(NoData::new())
        } else {
            PgWireBackendMessage::RowDescription(row_description(&statement.columns, &binary))
        };
        client.feed(message).await?;
        Ok(Ok(()))
    }

    /// Describe of a portal the protocol did not bind: a cursor opened by SQL `DECLARE`,
    /// which PostgreSQL keeps among the session's portals. Its columns go out in text (a
    /// FETCH chooses its own formats); 34000 when there is no such cursor either.
    async fn describe_cursor<C>(&self, client: &mut C, name: String) -> Reply
    where
        C: Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let lookup = name.clone();
        let columns = match self
            .run(move |session| session.describe_cursor(&lookup))
            .await
        {
            Ok(Some(columns)) => columns,
            Ok(None) => return Ok(Err(no_portal(&name))),
            Err(error) => return Ok(Err(error)),
        };
        let message = if columns.is_empty() {
            PgWireBackendMessage::NoData(NoData::new())
        } else {
            PgWireBackendMessage::RowDescription(row_description(&columns, &[]))
        };
        client.feed(message).await?;
        Ok(Ok(()))
    }

    async fn execute<C>(&self, client: &mut C, message: Execute) -> Reply
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let name = message.name.unwrap_or_default();
        let (statement, columns, changed) = {
            let state = self.state();
            let Some(portal) = state.portals.get(&name) else {
                drop(state);
                return Ok(Err(no_portal(&name)));
            };
            let columns: Arc<[(DataType, bool)]> = portal
                .statement
                .columns
                .iter()
                .zip(portal.binary.iter().copied())
                .map(|(column, binary)| (column.data_type, binary))
                .collect();
            (portal.statement.clone(), columns, portal.changed)
        };
        let Some(command) = statement.command.clone() else {
            client
                .feed(PgWireBackendMessage::EmptyQueryResponse(
                    EmptyQueryResponse::new(),
                ))
                .await?;
            return Ok(Ok(()));
        };
        match self.failed_transaction_rule(Some(&command)) {
            Ok(None) => {}
            Ok(Some(substitute)) => return self.run_substitute(client, &name, substitute).await,
            Err(error) => return Ok(Err(error)),
        }
        if let Some(copy) = &statement.copy {
            return self.run_copy(client, copy, true).await;
        }
        // A negative row limit is no limit, as in PostgreSQL.
        let max_rows = u64::try_from(message.max_rows).unwrap_or(0);
        let end = match self
            .drive_portal(client, &name, max_rows, columns, None)
            .await?
        {
            Ok(end) => end,
            Err(error) => return Ok(Err(error)),
        };
        let reply = match end {
            PortalEnd::Suspended { first } => {
                // A write's count comes from its first execution; later ones resume its
                // RETURNING rows.
                if let Some(portal) = self.state().portals.get_mut(&name) {
                    portal.suspended = true;
                    if command.counts_changes() {
                        portal.changed.get_or_insert(first.rows);
                    }
                }
                PgWireBackendMessage::PortalSuspended(PortalSuspended::new())
            }
            PortalEnd::Complete { returned, first } => {
                let rows = if command.counts_changes() {
                    changed.unwrap_or(first.rows)
                } else if matches!(command, Command::Select) && statement.columns.is_empty() {
                    first.rows
                } else {
                    returned
                };
                let mut state = self.state();
                if let Some(portal) = state.portals.get_mut(&name) {
                    portal.suspended = false;
                }
                if matches!(command, Command::RollbackTo) {
                    state.failed = false;
                }
                drop(state);
                PgWireBackendMessage::CommandComplete(CommandComplete::new(command.tag(rows)))
            }
        };
        client.feed(reply).await?;
        self.report_parameter_changes(client).await?;
        Ok(Ok(()))
    }

    /// Runs `sql` in place of portal `name`'s statement (COMMIT in a failed transaction
    /// block rolls back, and says so).
    async fn run_substitute<C>(&self, client: &mut C, name: &str, sql: &'static str) -> Reply
    where
        C: Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let portal = name.to_owned();
        let ran = self
            .run(move |session| {
                session.close_portal(&portal);
                session.execute_batch(sql)
            })
            .await
            .and_then(|result| result.map_err(WireError::from));
        if let Err(error) = ran {
            return Ok(Err(error));
        }
        client
            .feed(PgWireBackendMessage::CommandComplete(CommandComplete::new(
                Command::of(sql).tag(0),
            )))
            .await?;
        Ok(Ok(()))
    }
}

fn no_portal(name: &str) -> WireError {
    WireError::new(
        INVALID_CURSOR_NAME,
        format!("portal \"{name}\" does not exist"),
    )
}

/// The Bind message's parameters as values, each decoded by its format and type.
fn decode_parameters(message: &Bind, statement: &PreparedInfo) -> Result<Vec<Value>, WireError> {
    let binary = expand_formats(
        &message.parameter_format_codes,
        message.parameters.len(),
        "parameter",
    )?;
    message
        .parameters
        .iter()
        .zip(binary)
        .zip(&statement.parameter_oids)
        .enumerate()
        .map(|(index, ((bytes, binary), oid))| {
            decode_parameter(bytes.as_deref(), binary, *oid, index)
        })
        .collect()
}
