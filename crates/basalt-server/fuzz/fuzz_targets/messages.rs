//! `messages`: arbitrary bytes as what a client sends the server. The first byte picks the
//! connection state decoding starts in (bits 0–1: before the SSLRequest, before startup,
//! during authentication, after it) and whether the server asks for a SCRAM password (bit
//! 2; user `alice`, password `pencil`); the rest is the byte stream. Each input goes
//! through pgwire's server codec from every state, through the SCRAM exchange, and through
//! a whole connection (the server's message loop and handlers, an in-memory stream and
//! database). A panic in basalt-server is a crash. A panic in pgwire's decoder is pgwire's:
//! the server contains it to its connection, so here it is counted, its first input kept in
//! `pgwire-panics/`, and the connection run skipped for that input.

#![no_main]

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use libfuzzer_sys::fuzz_target;

thread_local! {
    /// Set while pgwire's decoder runs on its own (outside the server).
    static IN_DECODER: Cell<bool> = const { Cell::new(false) };
}

static DECODER_PANICS: AtomicU64 = AtomicU64::new(0);
static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();

fn runtime() -> &'static tokio::runtime::Runtime {
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a tokio runtime")
    })
}

fuzz_target!(
    init: {
        // libFuzzer's hook aborts on every panic; let pgwire's decoder panics unwind to the
        // catch_unwind below instead, and keep aborting on every other.
        let abort_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_DECODER.with(Cell::get) {
                return;
            }
            abort_hook(info);
        }));
    },
    |data: &[u8]| {
        let Some((&mode, bytes)) = data.split_first() else {
            return;
        };
        IN_DECODER.with(|flag| flag.set(true));
        let mut decoder_panicked = false;
        for state in 0..4u8 {
            let decoded = std::panic::catch_unwind(|| {
                basalt_server::fuzzing::decode_all(bytes, mode.wrapping_add(state))
            });
            decoder_panicked |= decoded.is_err();
        }
        IN_DECODER.with(|flag| flag.set(false));
        if decoder_panicked {
            let count = DECODER_PANICS.fetch_add(1, Ordering::Relaxed) + 1;
            if count == 1 {
                let _ = std::fs::create_dir_all("pgwire-panics");
                let _ = std::fs::write("pgwire-panics/first", data);
            }
            if count.is_power_of_two() {
                eprintln!("pgwire decoder panics so far (contained): {count}");
            }
            return;
        }
        basalt_server::fuzzing::scram(bytes);
        runtime().block_on(basalt_server::fuzzing::connection(bytes, mode & 4 != 0));
    }
);
