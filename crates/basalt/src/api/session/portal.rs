//! The session's own API, shaped like PostgreSQL's extended query protocol: statements
//! prepared under a name and described, portals that bind a statement to parameter values,
//! execution of a portal N rows at a time, resumed where it stopped, and closing either.
//!
//! What it guarantees, as PostgreSQL does:
//! - A named statement keeps its name until closed; preparing another under a used name is
//!   42P05. The unnamed statement (`""`) and the unnamed portal are replaced silently.
//! - A portal is independent of its statement once bound: closing or replacing the statement
//!   does not disturb it. It runs at its first execution, against the schema then current (a
//!   statement planned before DDL is re-planned, as every statement is).
//! - Executing with a row limit returns at most that many rows and reports the portal
//!   suspended when the limit was reached; the next execution continues from the next row.
//!   A portal that ran to completion returns no rows when executed again.
//! - Portals end with the transaction they were opened in: COMMIT, ROLLBACK (or a RELEASE
//!   that ends a transaction begun by SAVEPOINT) closes every portal, since a portal over the
//!   transaction would otherwise hold pages the commit publishes. A server also closes its
//!   portals where its protocol says (e.g. at Sync outside a transaction block).
//! - A portal whose execution fails is closed; the error is the execution's.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use parking_lot::Mutex;

use super::stream::RowStream;
use super::{Prepared, Session};
use crate::api::error::{Error, Result};
use crate::api::params::Params;
use crate::api::statement::Row;
use crate::catalog::Catalog;
use crate::plan::OutputColumn;
use crate::sqlstate;
use crate::types::{DataType, Value};

/// What a prepared statement takes and returns, as a client needs to know before running
/// it (the wire protocol's ParameterDescription and RowDescription).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct StatementDescription {
    /// The parameters, in order (`$1`, `$2`, ... or the order `?` / `:name` appear).
    pub parameters: Vec<ParameterDescription>,
    /// The result columns; empty for a statement that returns no rows.
    pub columns: Vec<ColumnDescription>,
}

/// One parameter of a prepared statement.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ParameterDescription {
    /// The name of a `:name` / `@name` / `$name` parameter.
    pub name: Option<String>,
    /// The type the statement's context gives the parameter (`WHERE id = $1` on an INTEGER
    /// column: INTEGER). [`DataType::Null`] when nothing constrains it (`SELECT $1`): the
    /// value is then used as given, and PostgreSQL would call the type `unknown`.
    pub data_type: DataType,
}

/// One result column of a prepared statement or portal.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ColumnDescription {
    /// The column's name in the result (an alias, a column name, `?column?`, `count`, ...).
    pub name: String,
    /// The type of its values, with its modifier (`VARCHAR(20)`'s length) when the column
    /// is a table column read as is: [`DataType::modifier`], [`TypeModifier::pg_typmod`].
    pub data_type: DataType,
    /// The table the column comes from, when it is a table column read as is.
    pub table: Option<String>,
    /// The column's name in that table (it may be renamed by an alias in the result).
    pub column: Option<String>,
}

/// What one execution of a portal did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Execution {
    /// Rows handed to the row callback by this execution; for a statement that returns no
    /// rows, the rows it inserted, updated or deleted (0 for DDL and other statements).
    pub rows: u64,
    /// The row limit was reached: the portal stays open and the next execution resumes
    /// after the last row returned (PostgreSQL's PortalSuspended). `false` means the portal
    /// ran to completion.
    pub suspended: bool,
}

/// A statement bound to parameter values, ready to run or part-way through its rows.
#[derive(Debug)]
pub(crate) struct Portal {
    statement: Arc<Mutex<Prepared>>,
    /// The result columns as of the statement's planning the portal last saw, with the
    /// catalog they were planned against (a column's source is a position in it).
    columns: Arc<[OutputColumn]>,
    catalog: Arc<Catalog>,
    state: PortalState,
}

#[derive(Debug)]
enum PortalState {
    /// Bound, not yet executed: its parameter values.
    Bound(Vec<Value>),
    /// Executed at least once, rows may remain.
    Streaming(Box<RowStream>),
    /// Ran to completion.
    Done,
}

fn no_statement(name: &str) -> Error {
    Error::new(
        sqlstate::INVALID_SQL_STATEMENT_NAME,
        format!("prepared statement \"{name}\" does not exist"),
    )
}

fn no_portal(name: &str) -> Error {
    Error::new(
        sqlstate::INVALID_CURSOR_NAME,
        format!("portal \"{name}\" does not exist"),
    )
}

impl Session {
    /// Parses and plans one SQL statement and keeps it under `name` (`""`: the unnamed
    /// statement, which any later unnamed prepare replaces). Returns its description.
    pub fn prepare_named(&self, name: &str, sql: &str) -> Result<StatementDescription> {
        if !name.is_empty() && self.statements.borrow().contains_key(name) {
            return Err(Error::new(
                sqlstate::DUPLICATE_PREPARED_STATEMENT,
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        let prepared = self.prepare_internal(sql)?;
        let description = describe(&prepared);
        self.statements
            .borrow_mut()
            .insert(name.to_owned(), Arc::new(Mutex::new(*prepared)));
        Ok(description)
    }

    /// The parameters and result columns of the statement prepared under `name`, re-planned
    /// first if the schema changed since it was prepared.
    pub fn describe_statement(&self, name: &str) -> Result<StatementDescription> {
        let statement = self.statement(name)?;
        let mut prepared = statement.lock();
        self.refresh(&mut prepared, &self.read_source()?)?;
        Ok(describe(&prepared))
    }

    /// Forgets the statement prepared under `name` (nothing happens when there is none, as
    /// PostgreSQL's Close). Portals bound from it are not affected.
    pub fn close_statement(&self, name: &str) {
        self.statements.borrow_mut().remove(name);
    }

    /// Forgets every named statement (PostgreSQL's `DEALLOCATE ALL`); the unnamed one
    /// stays, as it belongs to the protocol's current exchange.
    pub fn close_named_statements(&self) {
        self.statements
            .borrow_mut()
            .retain(|name, _| name.is_empty());
    }

    /// Binds the statement prepared under `statement` to `params` as the portal `portal`
    /// (`""`: the unnamed portal, replaced by any later unnamed bind). The statement runs at
    /// the portal's first [`Session::execute_portal`].
    pub fn bind(&self, portal: &str, statement: &str, params: impl Params) -> Result<()> {
        if !portal.is_empty() && self.portals.borrow().contains_key(portal) {
            return Err(Error::new(
                sqlstate::DUPLICATE_CURSOR,
                format!("portal \"{portal}\" already exists"),
            ));
        }
        let statement = self.statement(statement)?;
        let (values, columns, catalog) = {
            let prepared = statement.lock();
            let values = params.into_values(&prepared.bound.parameters)?;
            (values, prepared.columns.clone(), prepared.catalog.clone())
        };
        self.portals.borrow_mut().insert(
            portal.to_owned(),
            Portal {
                statement,
                columns,
                catalog,
                state: PortalState::Bound(values),
            },
        );
        Ok(())
    }

    /// The result columns of the portal `portal`.
    pub fn describe_portal(&self, portal: &str) -> Result<Vec<ColumnDescription>> {
        let portals = self.portals.borrow();
        let open = portals.get(portal).ok_or_else(|| no_portal(portal))?;
        if matches!(open.state, PortalState::Bound(_)) {
            // Not run yet: describe it as it would be planned now.
            let mut prepared = open.statement.lock();
            self.refresh(&mut prepared, &self.read_source()?)?;
            return Ok(describe(&prepared).columns);
        }
        Ok(describe_columns(&open.columns, &open.catalog))
    }

    /// The result columns of the SQL cursor `name` (`DECLARE name CURSOR FOR ...`), which
    /// PostgreSQL's protocol also lets a client describe as a portal (psycopg's server-side
    /// cursors do); `None` when no such cursor is open.
    pub fn describe_cursor(&self, name: &str) -> Option<Vec<ColumnDescription>> {
        let columns = self.cursor_columns(name)?;
        Some(
            columns
                .iter()
                .map(|column| ColumnDescription {
                    name: column.name.clone(),
                    data_type: column.data_type,
                    table: None,
                    column: None,
                })
                .collect(),
        )
    }

    /// Runs the portal `portal`, or resumes it where its last execution stopped, handing each
    /// row to `on_row`, until its rows end or `max_rows` rows have been returned (`0`: no
    /// limit). An error from `on_row` stops the execution and closes the portal.
    ///
    /// A statement that writes runs to completion at its first execution, whatever the
    /// limit (as in PostgreSQL); only the rows it returns (RETURNING) are handed out in parts.
    pub fn execute_portal(
        &self,
        portal: &str,
        max_rows: u64,
        mut on_row: impl FnMut(&Row<'_>) -> Result<()>,
    ) -> Result<Execution> {
        // The portal leaves the map while it runs: its statement may be COMMIT, which closes
        // every portal, or may itself open and close portals through a nested API call.
        let mut open = self
            .portals
            .borrow_mut()
            .remove(portal)
            .ok_or_else(|| no_portal(portal))?;
        let epoch = self.state.borrow().transaction_epoch;
        let mut changed = None;
        match std::mem::replace(&mut open.state, PortalState::Done) {
            PortalState::Bound(values) => {
                let mut prepared = open.statement.lock();
                let outcome = self.run(&mut prepared, values)?;
                open.columns = prepared.columns.clone();
                open.catalog = prepared.catalog.clone();
                if let super::Outcome::Changed(count) = &outcome {
                    changed = Some(*count);
                }
                open.state = PortalState::Streaming(Box::new(RowStream::new(outcome)));
            }
            PortalState::Streaming(stream) => {
                // Resuming: an interrupt that arrived while the portal was suspended is
                // forgotten, as one that arrives between statements is.
                self.interrupt.store(0, Ordering::Relaxed);
                open.state = PortalState::Streaming(stream);
            }
            PortalState::Done => {}
        }
        let mut rows = 0;
        let mut suspended = false;
        if let PortalState::Streaming(stream) = &mut open.state {
            loop {
                if max_rows != 0 && rows == max_rows {
                    suspended = true;
                    break;
                }
                let Some(position) = stream.advance()? else {
                    break;
                };
                on_row(&Row::new(stream.batch(), position, &open.columns))?;
                rows += 1;
            }
        }
        if !suspended {
            open.state = PortalState::Done;
        }
        // Keep the portal unless its transaction ended while it ran (COMMIT through it).
        if self.state.borrow().transaction_epoch == epoch {
            self.portals.borrow_mut().insert(portal.to_owned(), open);
        }
        Ok(Execution {
            rows: changed.unwrap_or(rows),
            suspended,
        })
    }

    /// Closes the portal `portal` (nothing happens when there is none), releasing its
    /// snapshot.
    pub fn close_portal(&self, portal: &str) {
        self.portals.borrow_mut().remove(portal);
    }

    /// Closes every open portal.
    pub fn close_portals(&self) {
        self.portals.borrow_mut().clear();
    }

    /// Whether a statement is prepared under `name`.
    pub fn has_statement(&self, name: &str) -> bool {
        self.statements.borrow().contains_key(name)
    }

    /// Whether a portal is open under `name`.
    pub fn has_portal(&self, name: &str) -> bool {
        self.portals.borrow().contains_key(name)
    }

    fn statement(&self, name: &str) -> Result<Arc<Mutex<Prepared>>> {
        self.statements
            .borrow()
            .get(name)
            .cloned()
            .ok_or_else(|| no_statement(name))
    }
}

/// A prepared statement's description, from its current plan.
pub(crate) fn describe(prepared: &Prepared) -> StatementDescription {
    let parameters = prepared
        .bound
        .parameters
        .iter()
        .map(|parameter| ParameterDescription {
            name: parameter.name.clone(),
            // A parameter compared with a VARCHAR(20) column is text of any length.
            data_type: parameter.data_type.unmodified(),
        })
        .collect();
    let columns = describe_columns(&prepared.columns, &prepared.catalog);
    StatementDescription {
        parameters,
        columns,
    }
}

/// Result columns with what the catalog says about the table columns they read.
fn describe_columns(columns: &[OutputColumn], catalog: &Catalog) -> Vec<ColumnDescription> {
    columns
        .iter()
        .map(|column| {
            let origin = column.source.as_ref().and_then(|source| {
                let table = catalog.table(&source.table)?;
                let definition = table.columns.get(source.column)?;
                Some((table.name.clone(), definition))
            });
            ColumnDescription {
                name: column.name.clone(),
                data_type: column.data_type,
                table: origin.as_ref().map(|(table, _)| table.clone()),
                column: origin.map(|(_, definition)| definition.name.clone()),
            }
        })
        .collect()
}
