//! The session's explicit transaction: BEGIN, COMMIT, ROLLBACK and savepoints, and taking
//! the writer slot at a transaction's first write; `SET TRANSACTION` and the modes BEGIN
//! takes (a READ ONLY transaction's writes are refused in `write.rs`, 25006).
//!
//! A deferred BEGIN takes a snapshot, but until a statement has read rows through it the
//! transaction has observed nothing, so its first write may move it to the newest commit
//! instead of failing with 40001 because another connection committed in between (a
//! transaction that has read rows and then writes after someone else's commit still fails:
//! what it read may be stale).
//!
//! A transaction ends only when nothing still reads from its write transaction: a portal or
//! result stream over it would otherwise hold pages the commit is about to publish, so the
//! session closes its portals when a transaction ends, as PostgreSQL does.

use std::sync::Arc;

use parking_lot::Mutex;

use super::{ExplicitTxn, Session, SessionState};
use crate::api::error::{Error, Result};
use crate::plan::ddl::{IsolationLevel, TransactionControl, TransactionModes};
use crate::sqlstate;
use crate::txn::WriteTxn;

impl Session {
    /// The explicit transaction's write transaction, taking the writer slot on first use.
    pub(super) fn upgrade(&self) -> Result<Arc<Mutex<WriteTxn>>> {
        let busy_timeout = self.busy_timeout();
        let mut state = self.state.borrow_mut();
        let Some(txn) = state.txn.as_mut() else {
            return Err(Error::new(
                sqlstate::INTERNAL_ERROR,
                "no explicit transaction to write in",
            ));
        };
        if let Some(write) = &txn.write {
            return Ok(write.clone());
        }
        let mut write = self.db.store.begin_write_within(busy_timeout)?;
        if write.snapshot_seq() != txn.read.snapshot_seq() && !txn.read_from {
            // Nothing of the transaction has read rows yet (BEGIN, then a write, as
            // pgbench's transactions go): it may start from the newest commit instead, as
            // SQLite's deferred BEGIN does. Its statements bind against the write's catalog.
            let newest = self.db.store.begin_read();
            if newest.snapshot_seq() == write.snapshot_seq() {
                txn.read = Arc::new(newest);
            }
        }
        if write.snapshot_seq() != txn.read.snapshot_seq() {
            return Err(Error::new(
                sqlstate::SERIALIZATION_FAILURE,
                "could not serialize access: another connection committed since this transaction began",
            ));
        }
        for (_, savepoint) in &mut txn.savepoints {
            *savepoint = Some(write.savepoint());
        }
        let write = Arc::new(Mutex::new(write));
        txn.write = Some(write.clone());
        Ok(write)
    }

    /// BEGIN, COMMIT, ROLLBACK and savepoints.
    pub(crate) fn control(&self, control: &TransactionControl) -> Result<()> {
        let busy_timeout = self.busy_timeout();
        let mut state = self.state.borrow_mut();
        match control {
            TransactionControl::Begin { immediate, modes } => {
                if state.txn.is_some() {
                    return Err(Error::new(
                        sqlstate::ACTIVE_SQL_TRANSACTION,
                        "there is already a transaction in progress",
                    ));
                }
                // IMMEDIATE takes the writer slot now, waiting for another writer as long as
                // the busy timeout allows; its snapshot is taken after, while no one else can
                // commit, so its writes never fail with 40001 as a deferred BEGIN's may.
                let write = match immediate {
                    true => Some(Arc::new(Mutex::new(
                        self.db.store.begin_write_within(busy_timeout)?,
                    ))),
                    false => None,
                };
                state.txn = Some(ExplicitTxn {
                    read: Arc::new(self.db.store.begin_read()),
                    write,
                    savepoints: Vec::new(),
                    started_by_savepoint: false,
                    read_from: false,
                    isolation: modes
                        .isolation
                        .or(state.default_isolation)
                        .unwrap_or(IsolationLevel::Serializable),
                    read_only: modes.read_only.unwrap_or(state.default_read_only),
                });
            }
            TransactionControl::SetTransaction {
                modes,
                session: true,
            } => {
                if let Some(isolation) = modes.isolation {
                    state.default_isolation = Some(isolation);
                }
                if let Some(read_only) = modes.read_only {
                    state.default_read_only = read_only;
                }
            }
            TransactionControl::SetTransaction {
                modes,
                session: false,
            } => {
                // Outside a transaction PostgreSQL only warns (25P01) and changes nothing.
                if let Some(txn) = state.txn.as_mut() {
                    set_transaction(txn, modes)?;
                }
            }
            TransactionControl::Commit => {
                if let Some(txn) = state.txn.take() {
                    self.end_transaction(&mut state, txn, true)?;
                }
            }
            TransactionControl::Rollback => {
                if let Some(txn) = state.txn.take() {
                    self.end_transaction(&mut state, txn, false)?;
                }
            }
            TransactionControl::Savepoint(name) => {
                if state.txn.is_none() {
                    state.txn = Some(ExplicitTxn {
                        read: Arc::new(self.db.store.begin_read()),
                        write: None,
                        savepoints: Vec::new(),
                        started_by_savepoint: true,
                        read_from: false,
                        isolation: state
                            .default_isolation
                            .unwrap_or(IsolationLevel::Serializable),
                        read_only: state.default_read_only,
                    });
                }
                if let Some(txn) = state.txn.as_mut() {
                    let id = txn.write.as_ref().map(|write| write.lock().savepoint());
                    txn.savepoints.push((name.to_lowercase(), id));
                }
            }
            TransactionControl::ReleaseSavepoint(name)
            | TransactionControl::RollbackToSavepoint(name) => {
                let release = matches!(control, TransactionControl::ReleaseSavepoint(_));
                let Some(txn) = state.txn.as_mut() else {
                    return Err(Error::new(
                        sqlstate::INVALID_SAVEPOINT_SPECIFICATION,
                        format!("savepoint \"{name}\" does not exist"),
                    ));
                };
                let lower = name.to_lowercase();
                let Some(position) = txn.savepoints.iter().rposition(|(n, _)| *n == lower) else {
                    return Err(Error::new(
                        sqlstate::INVALID_SAVEPOINT_SPECIFICATION,
                        format!("savepoint \"{name}\" does not exist"),
                    ));
                };
                let id = txn.savepoints[position].1;
                if let (Some(id), Some(write)) = (id, &txn.write) {
                    let mut write = write.lock();
                    if release {
                        write.release_savepoint(id)?;
                    } else {
                        write.rollback_to_savepoint(id)?;
                    }
                }
                txn.savepoints
                    .truncate(if release { position } else { position + 1 });
                if release
                    && txn.savepoints.is_empty()
                    && txn.started_by_savepoint
                    && let Some(txn) = state.txn.take()
                {
                    self.end_transaction(&mut state, txn, true)?;
                }
            }
        }
        Ok(())
    }

    /// Ends the explicit transaction `txn`, already taken out of `state`. Every portal is
    /// closed first: one reading the transaction would keep its write transaction shared,
    /// and one on an older snapshot outlives what PostgreSQL lets a portal outlive.
    pub(super) fn end_transaction(
        &self,
        state: &mut SessionState,
        txn: ExplicitTxn,
        commit: bool,
    ) -> Result<()> {
        state.transaction_epoch += 1;
        self.portals.borrow_mut().clear();
        super::cursor::end_of_transaction(state, commit);
        finish(txn, commit)
    }

    /// The write transaction, waiting for the writer slot as long as this session's
    /// busy timeout allows.
    pub(super) fn begin_write(&self) -> Result<crate::txn::WriteTxn> {
        Ok(self.db.store.begin_write_within(self.busy_timeout())?)
    }

    /// Whether a write now would be in a read-only transaction: the explicit transaction's
    /// mode, else (autocommit) the session's default.
    pub(super) fn read_only(&self) -> bool {
        let state = self.state.borrow();
        state
            .txn
            .as_ref()
            .map_or(state.default_read_only, |txn| txn.read_only)
    }

    /// The isolation level `SHOW transaction_isolation` reports, and whether the current
    /// transaction (or, outside one, the session's default) is read-only.
    pub(super) fn transaction_modes(&self, defaults: bool) -> (IsolationLevel, bool) {
        let state = self.state.borrow();
        let default = (
            state
                .default_isolation
                .unwrap_or(IsolationLevel::Serializable),
            state.default_read_only,
        );
        match &state.txn {
            Some(txn) if !defaults => (txn.isolation, txn.read_only),
            _ => default,
        }
    }

    /// This session's busy timeout: its own setting, else the database's.
    pub(super) fn busy_timeout(&self) -> std::time::Duration {
        self.state
            .borrow()
            .busy_timeout
            .unwrap_or_else(|| self.db.store.busy_timeout())
    }
}

/// `SET TRANSACTION` inside a transaction. As in PostgreSQL, the isolation level and a
/// switch to READ WRITE must come before the transaction's first query (25001); a switch to
/// READ ONLY may come at any time.
fn set_transaction(txn: &mut ExplicitTxn, modes: &TransactionModes) -> Result<()> {
    let queried = txn.read_from || txn.write.is_some();
    if let Some(isolation) = modes.isolation {
        if queried && isolation != txn.isolation {
            return Err(Error::new(
                sqlstate::ACTIVE_SQL_TRANSACTION,
                "SET TRANSACTION ISOLATION LEVEL must be called before any query",
            ));
        }
        txn.isolation = isolation;
    }
    if let Some(read_only) = modes.read_only {
        if queried && txn.read_only && !read_only {
            return Err(Error::new(
                sqlstate::ACTIVE_SQL_TRANSACTION,
                "transaction read-write mode must be set before any query",
            ));
        }
        txn.read_only = read_only;
    }
    Ok(())
}

/// Ends an explicit transaction.
fn finish(txn: ExplicitTxn, commit: bool) -> Result<()> {
    let ExplicitTxn { read, write, .. } = txn;
    // The snapshot taken at BEGIN must be let go before the commit: a commit may checkpoint,
    // and a live snapshot older than the commit keeps the log from being emptied, so every
    // later commit would copy pages back and sync again.
    drop(read);
    let Some(write) = write else {
        return Ok(());
    };
    let write = Arc::try_unwrap(write)
        .map_err(|_| {
            Error::new(
                sqlstate::INVALID_TRANSACTION_STATE,
                "cannot end the transaction while a query on it is still being read",
            )
        })?
        .into_inner();
    if commit {
        commit_write(write)?;
    } else {
        write.rollback();
    }
    Ok(())
}

/// Commits `write`, merging first the index entries it put off (`fts::deferred`): the one
/// way a session commits a transaction that may have written.
pub(super) fn commit_write(mut write: WriteTxn) -> Result<()> {
    crate::exec::index_access::fts::deferred::merge_pending(&mut write)?;
    write.commit()?;
    Ok(())
}
