//! Ctrl-C: cancel what is running, never lose the session.
//!
//! A handler thread (the `ctrlc` crate) receives SIGINT. While a statement or dot command
//! runs, it asks the connection to stop through its [`basalt::InterruptHandle`] (the
//! statement fails with SQLSTATE 57014 and undoes itself) and raises a flag that the shell's
//! own loops (`.import`, `.dump`) check between rows. At the interactive prompt rustyline
//! reads Ctrl-C as a key, not a signal, and the shell clears the line instead.
//!
//! When input is a script rather than a person, Ctrl-C also stops the script: between
//! statements the process exits at once (status 130, as shells report SIGINT), during one the
//! statement is cancelled and the script ends after it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use basalt::{Connection, InterruptHandle};

/// Exit status for "stopped by Ctrl-C" (128 + SIGINT).
pub const INTERRUPTED_STATUS: u8 = 130;

#[derive(Debug, Default)]
struct Shared {
    handle: Mutex<Option<InterruptHandle>>,
    running: AtomicBool,
    cancelled: AtomicBool,
    stop_script: AtomicBool,
    interactive: AtomicBool,
}

/// The shell's side of Ctrl-C handling. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct CtrlC {
    shared: Arc<Shared>,
}

impl CtrlC {
    /// The shared state, before the handler is installed.
    pub fn new(interactive: bool) -> CtrlC {
        let ctrl_c = CtrlC::default();
        ctrl_c
            .shared
            .interactive
            .store(interactive, Ordering::Relaxed);
        ctrl_c
    }

    /// Installs the process's SIGINT handler (once). At the prompt this must come after the
    /// line editor starts, because rustyline installs a SIGINT handler of its own that would
    /// otherwise replace this one. Without a handler (if installing fails) Ctrl-C keeps its
    /// default meaning, ending the process, so the failure is only reported.
    pub fn install(&self) {
        let shared = self.shared.clone();
        let installed = ctrlc::set_handler(move || {
            let running = shared.running.load(Ordering::SeqCst);
            let interactive = shared.interactive.load(Ordering::Relaxed);
            if !running && !interactive {
                std::process::exit(i32::from(INTERRUPTED_STATUS));
            }
            shared.cancelled.store(true, Ordering::SeqCst);
            if !interactive {
                shared.stop_script.store(true, Ordering::SeqCst);
            }
            if let Ok(handle) = shared.handle.lock()
                && let Some(handle) = handle.as_ref()
            {
                handle.interrupt();
            }
        });
        if let Err(error) = installed {
            eprintln!("warning: Ctrl-C will end the shell: {error}");
        }
    }

    /// Points Ctrl-C at `conn` (after `.open`).
    pub fn watch(&self, conn: &Connection) {
        if let Ok(mut handle) = self.shared.handle.lock() {
            *handle = Some(conn.interrupt_handle());
        }
    }

    /// Marks work as running until the guard drops; a Ctrl-C before this is forgotten.
    pub fn running(&self) -> Running {
        self.shared.cancelled.store(false, Ordering::SeqCst);
        self.shared.running.store(true, Ordering::SeqCst);
        Running {
            shared: self.shared.clone(),
        }
    }

    /// Whether Ctrl-C was pressed since the running work started.
    pub fn cancelled(&self) -> bool {
        self.shared.cancelled.load(Ordering::SeqCst)
    }

    /// Whether a script should stop because Ctrl-C was pressed while it ran.
    pub fn script_stopped(&self) -> bool {
        self.shared.stop_script.load(Ordering::SeqCst)
    }
}

/// Work in progress that Ctrl-C cancels; see [`CtrlC::running`].
#[derive(Debug)]
pub struct Running {
    shared: Arc<Shared>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shared.running.store(false, Ordering::SeqCst);
    }
}
