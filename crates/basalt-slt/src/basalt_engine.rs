//! The Basalt engine for the runner: each script runs on a fresh in-memory database through
//! the public embedded API, exactly as an application would use it.

use basalt::{Connection, Database, ValueRef};

use crate::engine::{Cell, Engine, Output};

/// A connection to a fresh in-memory Basalt database.
#[derive(Debug)]
pub struct BasaltEngine {
    // Declared before the database so it is dropped first.
    connection: Connection,
    _database: Database,
}

impl BasaltEngine {
    /// A new, empty in-memory database.
    pub fn open_in_memory() -> Result<Self, String> {
        let database = Database::open_in_memory().map_err(|error| error.to_string())?;
        Ok(BasaltEngine {
            connection: database.connect(),
            _database: database,
        })
    }

    fn execute(&mut self, sql: &str, stop_rows_on_error: bool) -> Result<Output, String> {
        let mut statement = self
            .connection
            .prepare(sql)
            .map_err(|error| error.to_string())?;
        if statement.column_count() == 0 {
            statement.execute(()).map_err(|error| error.to_string())?;
            return Ok(Output::Statement);
        }
        let column_count = statement.column_count();
        let mut rows = statement.query(()).map_err(|error| error.to_string())?;
        let mut collected = Vec::new();
        loop {
            let row = match rows.next() {
                Ok(Some(row)) => row,
                Ok(None) => break,
                // The reference runner reports only errors from preparing a query; an error
                // while stepping through its rows just ends the result.
                Err(_) if stop_rows_on_error => break,
                Err(error) => return Err(error.to_string()),
            };
            let mut cells = Vec::with_capacity(column_count);
            for index in 0..column_count {
                let value = row.get_ref(index).map_err(|error| error.to_string())?;
                cells.push(cell(value));
            }
            collected.push(cells);
        }
        Ok(Output::Rows(collected))
    }
}

fn cell(value: ValueRef<'_>) -> Cell {
    match value {
        ValueRef::Null => Cell::Null,
        ValueRef::Boolean(value) => Cell::Integer(i64::from(value)),
        ValueRef::Integer(value) => Cell::Integer(value),
        ValueRef::Real(value) => Cell::Real(value),
        ValueRef::Text(value) => Cell::Text(value.to_owned()),
        ValueRef::Blob(value) => Cell::Blob(value.to_vec()),
        other => Cell::Text(other.to_owned().to_string()),
    }
}

impl Engine for BasaltEngine {
    fn run(&mut self, sql: &str) -> Result<Output, String> {
        self.execute(sql, false)
    }

    fn query(&mut self, sql: &str) -> Result<Output, String> {
        self.execute(sql, true)
    }
}
