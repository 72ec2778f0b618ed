//! COPY FROM STDIN and COPY TO STDOUT: the protocol's copy sub-protocol on the session.
//!
//! COPY FROM STDIN: the handler that runs the statement (a simple Query, or Execute of a
//! portal) prepares, on the session's thread, one INSERT with a parameter per copied column
//! (so columns not listed get their defaults, and every field is converted to its column's
//! type by the engine exactly as text input is), answers CopyInResponse and leaves a
//! [`CopyIn`] behind. pgwire then hands the client's CopyData, CopyDone and CopyFail to the
//! [`CopyHandler`] here: records are read with [`CopyReader`], gathered into batches and
//! inserted on the session's thread, each bound to the prepared statement.
//!
//! Transactions: outside a transaction block COPY opens one and commits it at CopyDone, so
//! its rows are one statement's; inside BEGIN its rows are part of the open transaction. An
//! error — a malformed line, a value its column rejects, a duplicate key, CopyFail — undoes
//! the whole COPY: its own transaction is rolled back, or the open transaction block fails
//! (only ROLLBACK, or ROLLBACK TO a savepoint taken before the COPY, goes on from there, as
//! in PostgreSQL). The error carries the context `COPY t, line n`.
//!
//! COPY TO STDOUT runs a SELECT of the table's columns (or the query) as a portal, in trips
//! of rows like any query, each row written as one CopyData message fed to pgwire's framed
//! sink (which writes when its buffer fills, never once a row).
//!
//! pgwire ends the copy-in state itself: after a simple Query's COPY it sends ReadyForQuery
//! with the connection's recorded transaction status, which this module keeps in step with
//! the handler's; after an extended-protocol COPY it waits for Sync as usual.

use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use async_trait::async_trait;
use basalt::{DataType, Execution, Session, Value, ValueRef, quote_identifier};
use bytes::{Bytes, BytesMut};
use futures::{Sink, SinkExt};
use pgwire::api::copy::CopyHandler;
use pgwire::api::{ClientInfo, PgWireConnectionState};
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::PgWireBackendMessage;
use pgwire::messages::copy::{CopyData, CopyDone, CopyFail, CopyInResponse, CopyOutResponse};
use pgwire::messages::response::CommandComplete;

use crate::command::Command;
use crate::connection::{ClientHandler, trip_limit};
use crate::copy_binary::{self, BinaryReader};
use crate::copy_format::{BadRecord, CopyReader, CopyWriter, Record};
use crate::copy_options::Format;
use crate::copy_statement::{CopySource, CopyStatement};
use crate::encode::write_text;
use crate::error::{QUERY_CANCELED, WireError};

/// The session's statement and portal COPY uses. A client's names come in NUL-terminated
/// strings, so it can never name these.
const STATEMENT: &str = "\0copy";
const PORTAL: &str = "\0copy";

/// Records inserted per trip to the session's thread: enough that the trips cost little
/// next to the inserts, few enough to bound what a trip holds.
const RECORDS_PER_TRIP: usize = 1024;

/// 42P10: a FORCE_* option names a column COPY does not copy.
const INVALID_COLUMN_REFERENCE: &str = "42P10";

/// COPY FROM STDIN's reader: text and CSV, or binary.
#[derive(Debug)]
enum DataReader {
    Text {
        reader: CopyReader,
        /// Which copied columns are BYTEA (their fields are `\x` hex).
        blobs: Vec<bool>,
    },
    Binary(BinaryReader),
}

/// One row read: its line (or row number, in binary) and its values.
type ReadRow = (u64, Vec<Value>);

impl DataReader {
    fn feed(&mut self, data: &[u8]) {
        match self {
            DataReader::Text { reader, .. } => reader.feed(data),
            DataReader::Binary(reader) => reader.feed(data),
        }
    }

    fn line(&self) -> u64 {
        match self {
            DataReader::Text { reader, .. } => reader.line(),
            DataReader::Binary(reader) => reader.line(),
        }
    }

    /// The next whole row as values: a text field stays text for the engine to convert to
    /// its column's type (a BYTEA one is decoded here); a binary one is decoded by type.
    fn next_row(&mut self, at_end: bool) -> Result<Option<ReadRow>, BadRecord> {
        match self {
            DataReader::Text { reader, blobs } => {
                let Some(Record { line, fields }) = reader.next_record(at_end)? else {
                    return Ok(None);
                };
                let values = fields
                    .into_iter()
                    .enumerate()
                    .map(|(index, field)| match field {
                        None => Ok(Value::Null),
                        Some(text) if blobs.get(index).copied().unwrap_or(false) => {
                            bytea_value(text)
                        }
                        Some(text) => Ok(Value::Text(text)),
                    })
                    .collect::<basalt::Result<_>>()
                    .map_err(|error| BadRecord {
                        line,
                        error: WireError::from(error),
                    })?;
                Ok(Some((line, values)))
            }
            DataReader::Binary(reader) => {
                let line = reader.line();
                Ok(reader.next_record(at_end)?.map(|values| (line, values)))
            }
        }
    }
}

/// A COPY FROM STDIN between its CopyInResponse and its CopyDone.
#[derive(Debug)]
pub(crate) struct CopyIn {
    reader: DataReader,
    /// The table's name, for the error context.
    table: String,
    /// Rows read and not yet inserted.
    pending: Vec<ReadRow>,
    inserted: u64,
    /// COPY opened the transaction (none was open) and ends it.
    own_transaction: bool,
}

/// The SQL COPY runs for its table side. Like PostgreSQL's COPY FROM, it writes the values
/// given for a `GENERATED ALWAYS AS IDENTITY` column (pg_dump's data for such a table holds
/// them), hence OVERRIDING SYSTEM VALUE.
fn insert_sql(name_sql: &str, columns: &[(String, String)]) -> String {
    let names: Vec<&str> = columns.iter().map(|(_, sql)| sql.as_str()).collect();
    let parameters: Vec<String> = (1..=columns.len()).map(|n| format!("${n}")).collect();
    format!(
        "INSERT INTO {name_sql} ({}) OVERRIDING SYSTEM VALUE VALUES ({})",
        names.join(", "),
        parameters.join(", ")
    )
}

/// The table's columns (all of them, when the statement lists none), each folded and as SQL.
fn table_columns(
    session: &Session,
    name_sql: &str,
    listed: &[(String, String)],
) -> basalt::Result<Vec<(String, String)>> {
    if !listed.is_empty() {
        return Ok(listed.to_vec());
    }
    session.close_statement(STATEMENT);
    let description = session.prepare_named(STATEMENT, &format!("SELECT * FROM {name_sql}"));
    session.close_statement(STATEMENT);
    Ok(description?
        .columns
        .into_iter()
        .map(|column| {
            let sql = quote_identifier(&column.name);
            (column.name, sql)
        })
        .collect())
}

/// What [`start_copy_in`] found: the copied columns' names and types (the INSERT's
/// parameters'), and whether COPY opened the transaction.
type Started = (Vec<String>, Vec<DataType>, bool);

/// On the session's thread: opens COPY FROM STDIN's transaction (unless one is open) and
/// prepares its INSERT.
fn start_copy_in(session: &Session, copy: &CopyStatement) -> basalt::Result<Started> {
    let CopySource::Table {
        name_sql, columns, ..
    } = &copy.source
    else {
        return Err(basalt::Error::new(
            basalt::sqlstate::SYNTAX_ERROR,
            "COPY FROM needs a table",
        ));
    };
    let own_transaction = !session.in_transaction();
    if own_transaction {
        session.execute_batch("BEGIN")?;
    }
    let prepared = table_columns(session, name_sql, columns).and_then(|columns| {
        session.close_statement(STATEMENT);
        let description = session.prepare_named(STATEMENT, &insert_sql(name_sql, &columns))?;
        let types = description
            .parameters
            .iter()
            .map(|parameter| parameter.data_type)
            .collect();
        Ok((columns.into_iter().map(|(name, _)| name).collect(), types))
    });
    match prepared {
        Ok((columns, types)) => Ok((columns, types, own_transaction)),
        Err(error) => {
            // The prepare's error is the one to report.
            let _ = end_copy_in(session, own_transaction, false);
            Err(error)
        }
    }
}

/// A BYTEA field's value, as the engine reads a bytea literal: `\x` and hex digits, or
/// else the text's bytes. (A text parameter bound to a BYTEA column would be taken as its
/// bytes, so `\x...`, the form COPY TO writes, must be decoded here.)
fn bytea_value(text: String) -> basalt::Result<Value> {
    let Some(hex) = text.strip_prefix("\\x") else {
        return Ok(Value::Blob(text.into_bytes()));
    };
    let digits: Option<Vec<u8>> = hex
        .as_bytes()
        .chunks(2)
        .map(|pair| {
            let pair = std::str::from_utf8(pair)
                .ok()
                .filter(|pair| pair.len() == 2)?;
            u8::from_str_radix(pair, 16).ok()
        })
        .collect();
    digits.map(Value::Blob).ok_or_else(|| {
        basalt::Error::new(
            basalt::sqlstate::INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type bytea: \"{text}\""),
        )
    })
}

/// On the session's thread: inserts `rows`, each bound to the prepared INSERT. An error
/// comes with the line of the row that caused it.
fn insert_records(session: &Session, rows: Vec<ReadRow>) -> Result<u64, (u64, basalt::Error)> {
    let mut inserted = 0;
    for (line, values) in rows {
        session
            .bind(PORTAL, STATEMENT, values)
            .and_then(|()| session.execute_portal(PORTAL, 0, |_| Ok(())))
            .map_err(|error| (line, error))?;
        session.close_portal(PORTAL);
        inserted += 1;
    }
    Ok(inserted)
}

/// On the session's thread: ends COPY FROM STDIN: forgets its statement and, when it opened
/// the transaction, commits it (`commit`) or rolls it back.
fn end_copy_in(session: &Session, own_transaction: bool, commit: bool) -> basalt::Result<()> {
    session.close_portal(PORTAL);
    session.close_statement(STATEMENT);
    if own_transaction {
        session.execute_batch(if commit { "COMMIT" } else { "ROLLBACK" })?;
    }
    Ok(())
}

fn with_line(mut error: WireError, table: &str, line: u64) -> WireError {
    error.context = Some(format!("COPY {table}, line {line}"));
    error
}

/// Checks that the FORCE_* options name copied columns, as PostgreSQL does.
fn check_forced(copy: &CopyStatement, columns: &[String]) -> Result<(), WireError> {
    for forced in copy.forced_columns() {
        if !columns
            .iter()
            .any(|column| column.eq_ignore_ascii_case(forced))
        {
            return Err(WireError::new(
                INVALID_COLUMN_REFERENCE,
                format!("column \"{forced}\" named in a FORCE option is not referenced by COPY"),
            ));
        }
    }
    Ok(())
}

impl ClientHandler {
    /// Whether a COPY FROM STDIN waits for the client's data.
    pub(crate) fn copy_in_active(&self) -> bool {
        self.copy_in().is_some()
    }

    fn copy_in(&self) -> std::sync::MutexGuard<'_, Option<CopyIn>> {
        // Only plain assignments happen under this lock.
        self.copy_in
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs a COPY statement: COPY TO STDOUT to its end, COPY FROM STDIN up to its
    /// CopyInResponse (the CopyHandler does the rest). `extended`: it came in an Execute.
    pub(crate) async fn run_copy<C>(
        &self,
        client: &mut C,
        copy: &CopyStatement,
        extended: bool,
    ) -> PgWireResult<Result<(), WireError>>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        if copy.from {
            self.start_copy_in(client, copy, extended).await
        } else {
            self.copy_out(client, copy).await
        }
    }

    async fn start_copy_in<C>(
        &self,
        client: &mut C,
        copy: &CopyStatement,
        extended: bool,
    ) -> PgWireResult<Result<(), WireError>>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        // A cancel that came before this COPY was for a statement before it.
        self.copy_canceled.store(false, Ordering::Relaxed);
        let statement = copy.clone();
        let started = self
            .run(move |session| start_copy_in(session, &statement))
            .await
            .and_then(|result| result.map_err(WireError::from));
        let (columns, types, own_transaction) = match started {
            Ok(started) => started,
            Err(error) => return Ok(Err(error)),
        };
        if let Err(error) = check_forced(copy, &columns) {
            let _ = self
                .run(move |session| end_copy_in(session, own_transaction, false))
                .await;
            return Ok(Err(error));
        }
        let table = match &copy.source {
            CopySource::Table { name, .. } => name.clone(),
            CopySource::Query(_) => String::new(),
        };
        let count = columns.len();
        let binary = copy.options.format == Format::Binary;
        let reader = if binary {
            DataReader::Binary(BinaryReader::new(columns, &types))
        } else {
            DataReader::Text {
                reader: CopyReader::new(copy.options.clone(), columns),
                blobs: types.iter().map(|t| *t == DataType::Blob).collect(),
            }
        };
        *self.copy_in() = Some(CopyIn {
            reader,
            table,
            pending: Vec::new(),
            inserted: 0,
            own_transaction,
        });
        client.set_state(PgWireConnectionState::CopyInProgress(extended));
        // The client waits for this before it sends data: send it now.
        let format = i8::from(binary);
        client
            .send(PgWireBackendMessage::CopyInResponse(CopyInResponse::new(
                format,
                i16::try_from(count).unwrap_or(i16::MAX),
                vec![i16::from(format); count],
            )))
            .await?;
        Ok(Ok(()))
    }

    /// Reads what records the data so far holds and inserts them when a batch is full (or
    /// all of them, `at_end`). Returns the COPY's state back, or its error.
    async fn absorb(&self, mut copy: CopyIn, at_end: bool) -> Result<CopyIn, (CopyIn, WireError)> {
        loop {
            // A CancelRequest while COPY waits for data: no statement runs for the session's
            // interrupt to stop, so the flag is checked as the data comes.
            if self.copy_canceled.swap(false, Ordering::Relaxed) {
                let error =
                    WireError::new(QUERY_CANCELED, "canceling statement due to user request");
                let error = with_line(error, &copy.table, copy.reader.line());
                return Err((copy, error));
            }
            match copy.reader.next_row(at_end) {
                Ok(Some(row)) => {
                    copy.pending.push(row);
                    if copy.pending.len() < RECORDS_PER_TRIP {
                        continue;
                    }
                }
                Ok(None) => {
                    if !at_end || copy.pending.is_empty() {
                        return Ok(copy);
                    }
                }
                Err(BadRecord { line, error }) => {
                    let error = with_line(error, &copy.table, line);
                    return Err((copy, error));
                }
            }
            let rows = std::mem::take(&mut copy.pending);
            let inserted = self.run(move |session| insert_records(session, rows)).await;
            match inserted {
                Ok(Ok(count)) => copy.inserted += count,
                Ok(Err((line, error))) => {
                    let error = with_line(WireError::from(error), &copy.table, line);
                    return Err((copy, error));
                }
                Err(error) => return Err((copy, error)),
            }
        }
    }

    /// Undoes a failed COPY FROM STDIN and readies the error for pgwire, which sends it
    /// (and, after a simple Query, ReadyForQuery with the status recorded here).
    async fn fail_copy_in<C>(&self, client: &mut C, copy: CopyIn, error: WireError) -> PgWireError
    where
        C: ClientInfo,
    {
        let own_transaction = copy.own_transaction;
        // The session is gone only if its thread died; the error says enough.
        let _ = self
            .run(move |session| end_copy_in(session, own_transaction, false))
            .await;
        self.note_error();
        client.set_transaction_status(self.transaction_status());
        error.into_pgwire()
    }

    /// COPY TO STDOUT: CopyOutResponse, a CopyData a row, CopyDone, `COPY n`.
    async fn copy_out<C>(
        &self,
        client: &mut C,
        copy: &CopyStatement,
    ) -> PgWireResult<Result<(), WireError>>
    where
        C: Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let sql = match &copy.source {
            CopySource::Query(query) => query.clone(),
            CopySource::Table {
                name_sql, columns, ..
            } if columns.is_empty() => format!("SELECT * FROM {name_sql}"),
            CopySource::Table {
                name_sql, columns, ..
            } => {
                let names: Vec<&str> = columns.iter().map(|(_, sql)| sql.as_str()).collect();
                format!("SELECT {} FROM {name_sql}", names.join(", "))
            }
        };
        let started = self
            .run(move |session| {
                session.close_statement(STATEMENT);
                session.close_portal(PORTAL);
                let description = session
                    .prepare_named(STATEMENT, &sql)
                    .and_then(|description| {
                        session.bind(PORTAL, STATEMENT, Vec::<Value>::new())?;
                        Ok(description)
                    });
                session.close_statement(STATEMENT);
                let description = description?;
                Ok::<_, basalt::Error>(
                    description
                        .columns
                        .into_iter()
                        .map(|column| (column.name, column.data_type))
                        .unzip::<_, _, Vec<String>, Vec<DataType>>(),
                )
            })
            .await
            .and_then(|result| result.map_err(WireError::from));
        let (columns, types) = match started {
            Ok(columns) => columns,
            Err(error) => return Ok(Err(error)),
        };
        if let Err(error) = check_forced(copy, &columns) {
            let _ = self.run(|session| session.close_portal(PORTAL)).await;
            return Ok(Err(error));
        }
        let count = columns.len();
        let binary = copy.options.format == Format::Binary;
        let format = i8::from(binary);
        client
            .feed(PgWireBackendMessage::CopyOutResponse(CopyOutResponse::new(
                format,
                i16::try_from(count).unwrap_or(i16::MAX),
                vec![i16::from(format); count],
            )))
            .await?;
        let writer = Arc::new(if binary {
            RowWriter::Binary(types)
        } else {
            RowWriter::Text(CopyWriter::new(copy.options.clone(), &columns))
        });
        // The binary header goes in one CopyData with the first row (or the trailer), as
        // PostgreSQL sends it: psycopg reads the signature off the first row's message.
        let mut binary_header = BytesMut::new();
        match &*writer {
            RowWriter::Binary(_) => copy_binary::write_header(&mut binary_header),
            RowWriter::Text(writer) if copy.options.header => {
                let mut line = BytesMut::new();
                writer.header(&columns, &mut line);
                client
                    .feed(PgWireBackendMessage::CopyData(CopyData::new(line.freeze())))
                    .await?;
            }
            RowWriter::Text(_) => {}
        }
        let mut rows = 0u64;
        loop {
            let writer = writer.clone();
            let trip = self
                .run(move |session| copy_out_trip(session, &writer, count))
                .await
                .and_then(|result| result.map_err(WireError::from));
            let (lines, execution) = match trip {
                Ok(trip) => trip,
                Err(error) => return Ok(Err(error)),
            };
            rows += lines.len() as u64;
            for line in lines {
                let line = if binary_header.is_empty() {
                    line
                } else {
                    binary_header.extend_from_slice(&line);
                    binary_header.split().freeze()
                };
                client
                    .feed(PgWireBackendMessage::CopyData(CopyData::new(line)))
                    .await?;
            }
            if !execution.suspended {
                break;
            }
        }
        let _ = self.run(|session| session.close_portal(PORTAL)).await;
        if binary {
            // After the header when there was no row.
            copy_binary::write_trailer(&mut binary_header);
            client
                .feed(PgWireBackendMessage::CopyData(CopyData::new(
                    binary_header.freeze(),
                )))
                .await?;
        }
        client
            .feed(PgWireBackendMessage::CopyDone(CopyDone::new()))
            .await?;
        client
            .feed(PgWireBackendMessage::CommandComplete(CommandComplete::new(
                Command::Copy.tag(rows),
            )))
            .await?;
        Ok(Ok(()))
    }
}

/// How COPY TO writes its rows: text or CSV lines, or binary rows of the columns' types.
#[derive(Debug)]
enum RowWriter {
    Text(CopyWriter),
    Binary(Vec<DataType>),
}

/// On the session's thread: the next rows of COPY TO's portal, each a line of its own.
fn copy_out_trip(
    session: &Session,
    writer: &RowWriter,
    columns: usize,
) -> basalt::Result<(Vec<Bytes>, Execution)> {
    let mut out = BytesMut::with_capacity(16 * 1024);
    let mut text = BytesMut::new();
    let mut lines = Vec::new();
    let writer = match writer {
        RowWriter::Text(writer) => writer,
        RowWriter::Binary(types) => {
            let execution = session.execute_portal(PORTAL, trip_limit(0, 0), |row| {
                let values = (0..columns)
                    .map(|index| row.get_ref(index))
                    .collect::<basalt::Result<Vec<_>>>()?;
                copy_binary::write_row(values.into_iter().zip(types.iter().copied()), &mut out);
                lines.push(out.split().freeze());
                Ok(())
            })?;
            return Ok((lines, execution));
        }
    };
    let execution = session.execute_portal(PORTAL, trip_limit(0, 0), |row| {
        for index in 0..columns {
            let value = row.get_ref(index)?;
            if value == ValueRef::Null {
                writer.value(index, None, columns, &mut out);
            } else {
                text.clear();
                write_text(value, &mut text);
                writer.value(index, Some(&text), columns, &mut out);
            }
        }
        CopyWriter::end_row(&mut out);
        lines.push(out.split().freeze());
        Ok(())
    })?;
    Ok((lines, execution))
}

#[async_trait]
impl CopyHandler for ClientHandler {
    async fn on_copy_data<C>(&self, client: &mut C, copy_data: CopyData) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let copy = self.copy_in().take();
        let Some(mut copy) = copy else {
            return Ok(());
        };
        copy.reader.feed(&copy_data.data);
        match self.absorb(copy, false).await {
            Ok(copy) => {
                *self.copy_in() = Some(copy);
                Ok(())
            }
            Err((copy, error)) => Err(self.fail_copy_in(client, copy, error).await),
        }
    }

    async fn on_copy_done<C>(&self, client: &mut C, _done: CopyDone) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let copy = self.copy_in().take();
        let Some(copy) = copy else {
            return Ok(());
        };
        let copy = match self.absorb(copy, true).await {
            Ok(copy) => copy,
            Err((copy, error)) => return Err(self.fail_copy_in(client, copy, error).await),
        };
        let own_transaction = copy.own_transaction;
        let ended = self
            .run(move |session| end_copy_in(session, own_transaction, true))
            .await
            .and_then(|result| result.map_err(WireError::from));
        if let Err(error) = ended {
            let line = copy.reader.line();
            let error = with_line(error, &copy.table, line);
            return Err(self.fail_copy_in(client, copy, error).await);
        }
        client.set_transaction_status(self.transaction_status());
        client
            .feed(PgWireBackendMessage::CommandComplete(CommandComplete::new(
                Command::Copy.tag(copy.inserted),
            )))
            .await?;
        Ok(())
    }

    async fn on_copy_fail<C>(&self, client: &mut C, fail: CopyFail) -> PgWireError
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let error = WireError::new(
            QUERY_CANCELED,
            format!("COPY from stdin failed: {}", fail.message),
        );
        let copy = self.copy_in().take();
        match copy {
            Some(copy) => {
                let line = copy.reader.line();
                let error = with_line(error, &copy.table, line);
                self.fail_copy_in(client, copy, error).await
            }
            None => error.into_pgwire(),
        }
    }
}
