//! The database engines the runner can drive, behind one small trait.
//!
//! The runner only needs "run this SQL and give me either nothing or rows of cells"; all
//! value formatting and comparison happens in the runner (see `format` and `runner`), so an
//! engine returns raw typed cells and never formats anything itself. That keeps the
//! reference runner's formatting rules in one place, shared by every engine.
//!
//! [`SqliteEngine`] wraps the bundled SQLite through rusqlite. It exists to validate the
//! runner: SQLite passes its own corpus, so any failure it reports is a runner bug. The
//! Basalt adapter will implement the same trait against Basalt's public API.

use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::types::ValueRef;
use rusqlite::{Batch, Connection};

/// A database that can execute SQL text.
pub trait Engine {
    /// Executes `sql` (which may hold several `;`-separated statements) and returns the
    /// rows of the last statement that produces result columns, or [`Output::Statement`]
    /// if none does. Any error is returned as its message.
    fn run(&mut self, sql: &str) -> Result<Output, String>;

    /// Executes the SQL of a `query` record. The reference runner's SQLite driver treats
    /// only a failure to *prepare* a query as an error; an error while stepping through
    /// rows just ends the result early. The corpus relies on that:
    /// `evidence/slt_lang_aggfunc.test` expects an overflowing `sum()` — an error at step
    /// time — to show no rows. Engines that can tell the two phases apart should override
    /// this to do the same; the default treats every error as a query failure.
    fn query(&mut self, sql: &str) -> Result<Output, String> {
        self.run(sql)
    }
}

/// What a successful [`Engine::run`] produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// The SQL had no result columns (DDL, DML, ...).
    Statement,
    /// Result rows in the order the engine produced them.
    Rows(Vec<Vec<Cell>>),
}

/// One value in a result row, with the engine's own storage class.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// SQLite (bundled, in memory) behind [`Engine`].
#[derive(Debug)]
pub struct SqliteEngine {
    connection: Connection,
}

impl SqliteEngine {
    /// Opens a fresh, private in-memory database.
    pub fn open_in_memory() -> Result<Self, String> {
        let connection = Connection::open_in_memory().map_err(|error| error.to_string())?;
        Ok(Self { connection })
    }
}

impl Engine for SqliteEngine {
    fn run(&mut self, sql: &str) -> Result<Output, String> {
        self.execute(sql, false)
    }

    fn query(&mut self, sql: &str) -> Result<Output, String> {
        self.execute(sql, true)
    }
}

impl SqliteEngine {
    /// Runs every statement of `sql`. With `stop_rows_on_error`, an error while stepping a
    /// statement that has result columns ends its rows instead of failing (see
    /// [`Engine::query`]); preparation errors always fail.
    fn execute(&mut self, sql: &str, stop_rows_on_error: bool) -> Result<Output, String> {
        // `Batch` prepares one statement at a time, so a later statement may depend on an
        // earlier one in the same text (CREATE TABLE t ...; INSERT INTO t ...), as with
        // sqlite3_exec, which the reference runner uses for `statement` records.
        let mut batch = Batch::new(&self.connection, sql);
        let mut output = Output::Statement;
        while let Some(mut statement) = batch.next().map_err(|error| error.to_string())? {
            let column_count = statement.column_count();
            if column_count == 0 {
                statement.raw_execute().map_err(|error| error.to_string())?;
                continue;
            }
            let mut rows = statement.raw_query();
            let mut collected = Vec::new();
            loop {
                let row = match rows.next() {
                    Ok(Some(row)) => row,
                    Ok(None) => break,
                    Err(_) if stop_rows_on_error => break,
                    Err(error) => return Err(error.to_string()),
                };
                let mut cells = Vec::with_capacity(column_count);
                for index in 0..column_count {
                    let value = row.get_ref(index).map_err(|error| error.to_string())?;
                    cells.push(cell_from_sqlite(value));
                }
                collected.push(cells);
            }
            output = Output::Rows(collected);
        }
        Ok(output)
    }
}

fn cell_from_sqlite(value: ValueRef<'_>) -> Cell {
    match value {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(integer) => Cell::Integer(integer),
        ValueRef::Real(real) => Cell::Real(real),
        // SQLite text need not be valid UTF-8 (CAST(x'ff' AS TEXT)). The reference runner
        // formats the raw bytes, so invalid text is carried as bytes rather than lossily
        // converted: a blob formats exactly like text of the same bytes.
        ValueRef::Text(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => Cell::Text(text.to_owned()),
            Err(_) => Cell::Blob(bytes.to_vec()),
        },
        ValueRef::Blob(bytes) => Cell::Blob(bytes.to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_and_rows() {
        let mut engine = SqliteEngine::open_in_memory().unwrap();
        assert_eq!(
            engine
                .run("CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x')")
                .unwrap(),
            Output::Statement
        );
        assert_eq!(
            engine
                .run("SELECT a, b, NULL, 2.5, x'00ff' FROM t")
                .unwrap(),
            Output::Rows(vec![vec![
                Cell::Integer(1),
                Cell::Text("x".into()),
                Cell::Null,
                Cell::Real(2.5),
                Cell::Blob(vec![0, 255]),
            ]])
        );
        assert!(engine.run("SELECT * FROM missing").is_err());
        assert_eq!(
            engine.run("SELECT 1 WHERE 0").unwrap(),
            Output::Rows(vec![])
        );
        // A runtime error ends a query's rows, as in the reference driver, but fails `run`.
        let overflow = "SELECT sum(x) FROM (SELECT 9223372036854775807 AS x UNION ALL SELECT 1)";
        assert_eq!(engine.query(overflow).unwrap(), Output::Rows(vec![]));
        assert!(engine.run(overflow).is_err());
        assert!(engine.query("SELEC 1").is_err());
    }
}
