//! The `VACUUM` statement on a session: the transaction handling around
//! [`crate::exec::vacuum::rebuild`].
//!
//! `VACUUM` runs in a write transaction of its own, never inside `BEGIN ... COMMIT`
//! (25001, as PostgreSQL and SQLite refuse it too): the rebuild starts the file over, which
//! only makes sense when no statement of the same transaction has written before it. The
//! snapshot it copies from is taken after the writer slot, so it is exactly the commit the
//! rebuild replaces. After the commit the log is checkpointed, which truncates the main file
//! at once unless a reader on an older snapshot still needs its tail (then a later
//! checkpoint truncates it).

use super::{Outcome, Session};
use crate::api::error::{Error, Result};
use crate::sqlstate;

impl Session {
    /// Rebuilds the file; then, for `VACUUM ANALYZE`, analyzes `analyze`'s table (every
    /// table for `Some(None)`) in a transaction of its own, as `ANALYZE` would.
    pub(super) fn vacuum(&self, analyze: Option<Option<String>>) -> Result<Outcome> {
        if self.state.borrow().txn.is_some() {
            return Err(Error::new(
                sqlstate::ACTIVE_SQL_TRANSACTION,
                "VACUUM cannot run inside a transaction block",
            ));
        }
        let mut write = self.begin_write()?;
        let source = self.db.store.begin_read();
        crate::exec::vacuum::rebuild(&source, &mut write)?;
        drop(source);
        write.commit()?;
        // The rebuild is committed; a checkpoint that cannot run now (another connection
        // holds the writer slot past the busy timeout) leaves the truncation to a later one.
        let _ = self.db.store.checkpoint();
        match analyze {
            None => {}
            Some(None) => self.execute_batch("ANALYZE")?,
            Some(Some(table)) => {
                self.execute_batch(&format!("ANALYZE {}", crate::quote_identifier(&table)))?;
            }
        }
        Ok(Outcome::Changed(0))
    }
}
