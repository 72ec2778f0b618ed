//! A time limit per statement: a helper thread that interrupts a statement still running
//! at its deadline. Random queries can nest correlated subqueries over joins deeply
//! enough to run for minutes; such a statement is abandoned (and its case stopped) rather
//! than stalling the whole run.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

type Interrupt = Box<dyn Fn() + Send>;

#[derive(Default)]
struct State {
    /// The running statement's deadline and how to interrupt it.
    armed: Option<(Instant, Interrupt)>,
    /// Whether the armed statement was interrupted.
    fired: bool,
    shutdown: bool,
}

type Shared = Arc<(Mutex<State>, Condvar)>;

fn lock(shared: &Shared) -> MutexGuard<'_, State> {
    shared
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The helper thread and the state it shares with the caller.
pub struct Watchdog {
    shared: Shared,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Watchdog {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Watchdog")
    }
}

impl Watchdog {
    /// Starts the helper thread.
    pub fn start() -> Watchdog {
        let shared: Shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
        let watched = Arc::clone(&shared);
        let thread = std::thread::spawn(move || watch(&watched));
        Watchdog {
            shared,
            thread: Some(thread),
        }
    }

    /// Runs `work`, calling `interrupt` if it is still running after `limit`. Returns its
    /// result and whether it was interrupted.
    pub fn guard<T>(
        &self,
        limit: Duration,
        interrupt: impl Fn() + Send + 'static,
        work: impl FnOnce() -> T,
    ) -> (T, bool) {
        {
            let mut state = lock(&self.shared);
            state.armed = Some((Instant::now() + limit, Box::new(interrupt)));
            state.fired = false;
            self.shared.1.notify_all();
        }
        let result = work();
        let mut state = lock(&self.shared);
        state.armed = None;
        self.shared.1.notify_all();
        (result, state.fired)
    }
}

fn watch(shared: &Shared) {
    let mut state = lock(shared);
    loop {
        if state.shutdown {
            return;
        }
        let deadline = state.armed.as_ref().map(|(deadline, _)| *deadline);
        state = match deadline {
            None => shared
                .1
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
            Some(deadline) if Instant::now() >= deadline => {
                if let Some((_, interrupt)) = state.armed.take() {
                    interrupt();
                    state.fired = true;
                }
                state
            }
            Some(deadline) => {
                let wait = deadline.saturating_duration_since(Instant::now());
                shared
                    .1
                    .wait_timeout(state, wait)
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .0
            }
        };
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        lock(&self.shared).shutdown = true;
        self.shared.1.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn a_long_task_is_interrupted_and_a_short_one_is_not() {
        let watchdog = Watchdog::start();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let (spins, fired) = watchdog.guard(
            Duration::from_millis(20),
            move || flag.store(true, Ordering::SeqCst),
            || {
                let mut spins = 0_u64;
                while !stop.load(Ordering::SeqCst) {
                    spins += 1;
                    std::hint::spin_loop();
                }
                spins
            },
        );
        assert!(fired && spins > 0);
        let (value, fired) = watchdog.guard(Duration::from_secs(60), || {}, || 7);
        assert_eq!((value, fired), (7, false));
    }
}
