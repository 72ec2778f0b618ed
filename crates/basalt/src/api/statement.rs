//! Prepared statements, their result rows, and typed access to columns.

use std::ops::{Deref, DerefMut};

use crate::exec::batch::Batch;
use crate::plan::OutputColumn;
use crate::sqlstate;
use crate::types::DataType;

use super::connection::Connection;
use super::error::{Error, Result};
use super::params::Params;
use super::session::{Outcome, Prepared, RowStream};
use super::value::{FromSql, ValueRef, value_ref};

/// A statement parsed and planned once, executable many times with different parameters.
#[derive(Debug)]
pub struct Statement<'conn> {
    conn: &'conn Connection,
    prepared: Option<Box<Prepared>>,
}

impl<'conn> Statement<'conn> {
    pub(crate) fn new(conn: &'conn Connection, prepared: Box<Prepared>) -> Self {
        Statement {
            conn,
            prepared: Some(prepared),
        }
    }

    /// The result columns of the statement's current plan.
    fn columns(&self) -> &[OutputColumn] {
        self.prepared
            .as_deref()
            .map_or(&[], |prepared| &prepared.columns)
    }

    fn prepared(&mut self) -> Result<&mut Prepared> {
        self.prepared
            .as_deref_mut()
            .ok_or_else(|| Error::new(sqlstate::INTERNAL_ERROR, "statement has no plan"))
    }

    /// Number of result columns (0 for statements that return no rows).
    pub fn column_count(&self) -> usize {
        self.columns().len()
    }

    /// Names of the result columns.
    pub fn column_names(&self) -> Vec<&str> {
        self.columns()
            .iter()
            .map(|column| column.name.as_str())
            .collect()
    }

    /// Types of the result columns.
    pub fn column_types(&self) -> Vec<DataType> {
        self.columns()
            .iter()
            .map(|column| column.data_type)
            .collect()
    }

    /// Number of parameters the statement takes.
    pub fn parameter_count(&self) -> usize {
        self.prepared
            .as_ref()
            .map_or(0, |prepared| prepared.bound.parameters.len())
    }

    fn start(&mut self, params: impl Params) -> Result<Outcome> {
        let conn = self.conn;
        let prepared = self.prepared()?;
        let values = params.into_values(&prepared.bound.parameters)?;
        conn.run(prepared, values)
    }

    /// Runs the statement and streams its rows.
    pub fn query(&mut self, params: impl Params) -> Result<Rows<'_>> {
        let outcome = self.start(params)?;
        Ok(Rows {
            stream: RowStream::new(outcome),
            columns: self.columns(),
        })
    }

    /// Runs the statement and maps its first row; error `P0002` when there is none.
    pub fn query_row<T>(
        &mut self,
        params: impl Params,
        f: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut rows = self.query(params)?;
        match rows.next()? {
            Some(row) => f(&row),
            None => Err(Error::new(
                sqlstate::NO_DATA_FOUND,
                "query returned no rows",
            )),
        }
    }

    /// Runs the statement; returns the number of rows changed (0 for queries).
    pub fn execute(&mut self, params: impl Params) -> Result<usize> {
        match self.start(params)? {
            Outcome::Changed(changes) => Ok(changes as usize),
            Outcome::Rows { mut operator, ctx } => {
                crate::exec::operators::collect(operator.as_mut(), &ctx)?;
                Ok(self.conn.changes() as usize)
            }
        }
    }
}

/// A statement from [`Connection::prepare_cached`]; returns to the cache when dropped.
#[derive(Debug)]
pub struct CachedStatement<'conn> {
    statement: Statement<'conn>,
}

impl<'conn> CachedStatement<'conn> {
    pub(crate) fn new(statement: Statement<'conn>) -> Self {
        CachedStatement { statement }
    }
}

impl<'conn> Deref for CachedStatement<'conn> {
    type Target = Statement<'conn>;
    fn deref(&self) -> &Statement<'conn> {
        &self.statement
    }
}

impl DerefMut for CachedStatement<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.statement
    }
}

impl Drop for CachedStatement<'_> {
    fn drop(&mut self) {
        if let Some(prepared) = self.statement.prepared.take() {
            self.statement.conn.return_to_cache(prepared);
        }
    }
}

/// Streaming result rows.
pub struct Rows<'stmt> {
    stream: RowStream,
    columns: &'stmt [OutputColumn],
}

impl std::fmt::Debug for Rows<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rows")
            .field("columns", &self.columns.len())
            .finish()
    }
}

impl<'stmt> Rows<'stmt> {
    /// The next row, or `None` at the end.
    #[allow(
        clippy::should_implement_trait,
        reason = "rows borrow the statement, which Iterator::next cannot express"
    )]
    pub fn next(&mut self) -> Result<Option<Row<'_>>> {
        Ok(self
            .stream
            .advance()?
            .map(|row| Row::new(self.stream.batch(), row, self.columns)))
    }

    /// Column names.
    pub fn column_names(&self) -> Vec<&str> {
        self.columns
            .iter()
            .map(|column| column.name.as_str())
            .collect()
    }

    /// Maps every remaining row.
    pub fn map<T>(mut self, mut f: impl FnMut(&Row<'_>) -> Result<T>) -> Result<Vec<T>> {
        let mut out = Vec::new();
        while let Some(row) = self.next()? {
            out.push(f(&row)?);
        }
        Ok(out)
    }
}

/// One result row.
#[derive(Debug)]
pub struct Row<'a> {
    batch: &'a Batch,
    row: usize,
    columns: &'a [OutputColumn],
}

/// A column position or name.
pub trait RowIndex {
    /// The column's position in `columns`.
    fn position(&self, columns: &[OutputColumn]) -> Result<usize>;
}

impl RowIndex for usize {
    fn position(&self, columns: &[OutputColumn]) -> Result<usize> {
        if *self < columns.len() {
            Ok(*self)
        } else {
            Err(Error::new(
                sqlstate::UNDEFINED_COLUMN,
                format!(
                    "column index {self} is out of range ({} columns)",
                    columns.len()
                ),
            ))
        }
    }
}

impl RowIndex for &str {
    fn position(&self, columns: &[OutputColumn]) -> Result<usize> {
        columns
            .iter()
            .position(|column| column.name.eq_ignore_ascii_case(self))
            .ok_or_else(|| {
                Error::new(
                    sqlstate::UNDEFINED_COLUMN,
                    format!("no result column named \"{self}\""),
                )
            })
    }
}

impl<'a> Row<'a> {
    pub(crate) fn new(batch: &'a Batch, row: usize, columns: &'a [OutputColumn]) -> Row<'a> {
        Row {
            batch,
            row,
            columns,
        }
    }

    /// Column `index` converted to `T`.
    pub fn get<T: FromSql<'a>>(&self, index: impl RowIndex) -> Result<T> {
        T::from_sql(self.get_ref(index)?)
    }

    /// Column `index` as a borrowed value.
    pub fn get_ref(&self, index: impl RowIndex) -> Result<ValueRef<'a>> {
        let position = index.position(self.columns)?;
        let batch: &'a Batch = self.batch;
        let vector = batch
            .columns
            .get(position)
            .ok_or_else(|| Error::new(sqlstate::INTERNAL_ERROR, "result column missing"))?;
        Ok(value_ref(vector, self.row))
    }

    /// Number of columns.
    pub fn column_count(&self) -> usize {
        self.columns.len()
    }
}
