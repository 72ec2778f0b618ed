//! [`Connection`]: the rusqlite-shaped API — `prepare`, `execute`, `query_row`,
//! `transaction` — as a thin layer over a [`Session`], plus a cache of prepared statements
//! keyed by SQL text.
//!
//! Everything a statement does (transactions, settings, savepoints, re-planning after DDL)
//! is the session's; a connection only adds the borrowed [`Statement`] / [`Rows`](super::Rows)
//! handles and the statement cache. Its [`Connection::session`] gives the owned session API
//! (named statements, portals) on the same session, so both can be mixed.

use std::cell::RefCell;
use std::collections::VecDeque;

use crate::plan::ddl::TransactionControl;

use super::database::DatabaseInner;
use super::error::Result;
use super::params::Params;
use super::session::{InterruptHandle, Outcome, Prepared, Session};
use super::statement::{CachedStatement, Row, Statement};

/// A connection to a database. `Send`, not `Sync`: use one per thread.
#[derive(Debug)]
pub struct Connection {
    session: Session,
    /// Plans of statements dropped by [`CachedStatement`], most recently used first.
    cache: RefCell<VecDeque<Box<Prepared>>>,
}

impl Connection {
    pub(crate) fn new(db: std::sync::Arc<DatabaseInner>) -> Self {
        Connection {
            session: Session::new(db),
            cache: RefCell::new(VecDeque::new()),
        }
    }

    /// The session this connection runs its statements in: its owned API (named statements,
    /// portals, describe) acts on the same transaction and settings.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// A handle that cancels this connection's running statement from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        self.session.interrupt_handle()
    }

    /// Prepares one statement.
    pub fn prepare(&self, sql: &str) -> Result<Statement<'_>> {
        Ok(Statement::new(self, self.session.prepare_internal(sql)?))
    }

    /// Prepares one statement, reusing a cached plan for the same SQL text when there is one.
    /// The statement returns to the cache when dropped.
    pub fn prepare_cached(&self, sql: &str) -> Result<CachedStatement<'_>> {
        let cached = {
            let mut cache = self.cache.borrow_mut();
            cache
                .iter()
                .position(|prepared| prepared.sql == sql)
                .and_then(|at| cache.remove(at))
        };
        let prepared = match cached {
            Some(prepared) => prepared,
            None => self.session.prepare_internal(sql)?,
        };
        Ok(CachedStatement::new(Statement::new(self, prepared)))
    }

    pub(crate) fn return_to_cache(&self, prepared: Box<Prepared>) {
        let mut cache = self.cache.borrow_mut();
        cache.push_front(prepared);
        cache.truncate(self.session.db.options.statement_cache_capacity);
    }

    /// Runs a prepared statement in the session.
    pub(crate) fn run(
        &self,
        prepared: &mut Prepared,
        params: Vec<crate::Value>,
    ) -> Result<Outcome> {
        self.session.run(prepared, params)
    }

    /// Runs one statement; returns the number of rows it changed.
    pub fn execute(&self, sql: &str, params: impl Params) -> Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    /// Runs every statement of `sql` in order (no parameters), stopping at the first error.
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        self.session.execute_batch(sql)
    }

    /// Runs a query and maps its first row; error `P0002` when there is no row.
    pub fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        f: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }

    /// Starts a transaction that rolls back when dropped unless committed.
    pub fn transaction(&self) -> Result<Transaction<'_>> {
        self.session.control(&TransactionControl::Begin {
            immediate: false,
            modes: Default::default(),
        })?;
        Ok(Transaction {
            conn: self,
            done: false,
        })
    }

    /// The row id of the last row inserted through this connection.
    pub fn last_insert_rowid(&self) -> i64 {
        self.session.last_insert_rowid()
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    pub fn changes(&self) -> u64 {
        self.session.changes()
    }

    /// Whether an explicit transaction is open.
    pub fn in_transaction(&self) -> bool {
        self.session.in_transaction()
    }
}

/// A transaction handle: rolls back when dropped unless [`Transaction::commit`] ran.
#[derive(Debug)]
pub struct Transaction<'conn> {
    conn: &'conn Connection,
    done: bool,
}

impl Transaction<'_> {
    /// Commits.
    pub fn commit(mut self) -> Result<()> {
        self.done = true;
        self.conn.session.control(&TransactionControl::Commit)
    }

    /// Rolls back.
    pub fn rollback(mut self) -> Result<()> {
        self.done = true;
        self.conn.session.control(&TransactionControl::Rollback)
    }
}

impl std::ops::Deref for Transaction<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.conn.session.control(&TransactionControl::Rollback);
        }
    }
}
