//! The background checkpointer: copies the log into the main file on a thread of its own,
//! so a commit that pushes the log past the automatic checkpoint threshold returns as soon
//! as its frames are written instead of also paying for the checkpoint.
//!
//! Why: an automatic checkpoint is two syncs and a write of every page in the log. After a
//! bulk insert of a few megabytes that is most of the commit's time (about 15 ms of 20 ms
//! for 100k rows on the project's machine), spent while the application waits, although
//! nothing about the commit depends on it: the commit is durable (per `synchronous`) once
//! its frames are in the log. PostgreSQL's checkpointer is a process of its own for the
//! same reason.
//!
//! What it guarantees:
//! * A checkpoint runs only while holding the writer slot, as an inline one does, so it
//!   never overlaps a write transaction or another checkpoint (see [`super::Store`]).
//! * Requests coalesce: any number of commits asking while a checkpoint is pending or
//!   running cause at most one more.
//! * Shutting down (when the database's last handle goes) waits for the thread, and runs a
//!   requested checkpoint first. So when the last handle's drop returns, the thread holds
//!   nothing of the database: its file lock is released and it can be opened again at once.
//! * It never makes the log unbounded: the thread may lose the writer slot to a busy
//!   writer, so the committing transaction checkpoints inline once the log is several
//!   thresholds long (see `WriteTxn::commit`).
//!
//! How it fits: `Store` owns one, started on the first request; the thread holds the pager
//! and the writer slot (not the `Store`), so it never keeps a database open by itself.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::storage::pager::Pager;

/// What the committing threads and the checkpoint thread share.
#[derive(Debug, Default)]
struct Signal {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct State {
    /// A checkpoint was asked for since the thread last took a request.
    requested: bool,
    /// The database is closing: finish a requested checkpoint, then exit.
    shutdown: bool,
}

/// The checkpoint thread of one database, started on the first request.
#[derive(Debug, Default)]
pub(super) struct Checkpointer {
    signal: Arc<Signal>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Checkpointer {
    /// Asks for a checkpoint of `pager`'s log, taking `writer_slot` for it (waiting up to
    /// `busy_timeout`). Returns `false` when no thread could be started; the caller then
    /// checkpoints inline.
    pub(super) fn request(
        &self,
        pager: &Arc<Pager>,
        writer_slot: &Arc<Mutex<()>>,
        busy_timeout: Duration,
    ) -> bool {
        let mut thread = self.thread.lock();
        if thread.is_none() {
            let signal = Arc::clone(&self.signal);
            let pager = Arc::clone(pager);
            let writer_slot = Arc::clone(writer_slot);
            let spawned = std::thread::Builder::new()
                .name("basalt-checkpoint".into())
                .spawn(move || run(&signal, &pager, &writer_slot, busy_timeout));
            match spawned {
                Ok(handle) => *thread = Some(handle),
                Err(_) => return false,
            }
        }
        self.signal.state.lock().requested = true;
        self.signal.wake.notify_one();
        true
    }

    /// Stops the thread, after it has run a requested checkpoint, and waits for it.
    pub(super) fn shutdown(&self) {
        let Some(handle) = self.thread.lock().take() else {
            return;
        };
        self.signal.state.lock().shutdown = true;
        self.signal.wake.notify_one();
        // The thread catches nothing that could panic (checkpoint errors are values), so a
        // join error would be a bug in this module; there is nothing to do about it here.
        let _ = handle.join();
    }
}

/// The thread: waits for a request, takes the writer slot, checkpoints if the log still
/// wants it; exits on shutdown.
fn run(signal: &Signal, pager: &Pager, writer_slot: &Mutex<()>, busy_timeout: Duration) {
    loop {
        let (requested, shutdown) = {
            let mut state = signal.state.lock();
            while !state.requested && !state.shutdown {
                signal.wake.wait(&mut state);
            }
            (std::mem::take(&mut state.requested), state.shutdown)
        };
        if requested && let Some(_slot) = writer_slot.try_lock_for(busy_timeout) {
            // Someone may have checkpointed since the request (an explicit checkpoint, or
            // an inline one), so ask again under the slot. A failed checkpoint leaves the
            // log in place; the next commit past the threshold asks again.
            if pager.wants_checkpoint() {
                let _ = pager.checkpoint();
            }
        }
        if shutdown {
            return;
        }
    }
}
