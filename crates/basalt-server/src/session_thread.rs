//! [`SessionThread`]: one client's Basalt [`Session`] on a thread of its own, fed jobs over
//! a channel by the connection's async task.
//!
//! Why a thread: a `Session` is `Send` but not `Sync`, and its calls block — a statement runs
//! for as long as it runs, reading pages from disk. Keeping it on a dedicated thread (as
//! PostgreSQL keeps a backend process per connection) leaves the tokio workers free for
//! other clients and for CancelRequests while a statement runs, and needs no locking around
//! the session: only this thread ever touches it.
//!
//! What it guarantees: jobs run one at a time, in the order sent, each with the session; a
//! job's result comes back to the awaiting task. When the connection drops its
//! `SessionThread`, the channel closes, the thread drops the session (rolling back an open
//! transaction) and ends. If a job panics (a bug in the engine), the thread ends and every
//! later call reports [`SessionGone`], so the connection closes instead of hanging.

use std::sync::mpsc;

use basalt::{Database, InterruptHandle, Session};

/// A unit of work for the session's thread.
type Job = Box<dyn FnOnce(&Session) + Send>;

/// The session thread ended: the connection cannot go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SessionGone;

/// A client's session, running on its own thread.
#[derive(Debug)]
pub(crate) struct SessionThread {
    jobs: mpsc::Sender<Job>,
    interrupt: InterruptHandle,
}

/// The session thread's stack: the engine's recursion limits (the parser's depth of 128,
/// recursive plans) fit in 2 MiB with room to spare; 8 MiB is what a main thread gets, and
/// untouched stack costs only address space.
const STACK_SIZE: usize = 8 * 1024 * 1024;

impl SessionThread {
    /// Opens a session on `db` and starts its thread.
    pub(crate) fn start(db: &Database) -> std::io::Result<SessionThread> {
        let session = db.session();
        let interrupt = session.interrupt_handle();
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("basalt-session".to_owned())
            .stack_size(STACK_SIZE)
            .spawn(move || {
                for job in queue {
                    job(&session);
                }
            })?;
        Ok(SessionThread { jobs, interrupt })
    }

    /// Runs `job` on the session's thread and waits for its result.
    pub(crate) async fn run<R: Send + 'static>(
        &self,
        job: impl FnOnce(&Session) -> R + Send + 'static,
    ) -> Result<R, SessionGone> {
        let (reply, result) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move |session| {
                // The connection may have gone while the job ran; nobody to tell.
                let _ = reply.send(job(session));
            }))
            .map_err(|_| SessionGone)?;
        result.await.map_err(|_| SessionGone)
    }

    /// Stops the statement the session is running, if any (its connection has gone).
    pub(crate) fn interrupt(&self) {
        self.interrupt.interrupt();
    }

    pub(crate) fn interrupt_handle(&self) -> InterruptHandle {
        self.interrupt.clone()
    }
}
