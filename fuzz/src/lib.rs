//! Shared pieces of Basalt's fuzz targets: the seed schema, statements that read and change
//! every part of a database, checksum re-sealing for mutated files, and a scratch directory.
//!
//! The targets live in `fuzz_targets/`; `examples/make_seeds.rs` builds the seed files of the
//! two file targets from [`SEED_SCHEMA`] and [`SEED_DATA`]. See `README.md`.

use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use basalt::{Connection, Database, Options, SchemaKind, Value, ValueRef, quote_identifier};

/// Page size of every seed file: the engine's default and smallest.
pub const SEED_PAGE_SIZE: usize = 4096;

/// The schema of the seed databases and of the `sql` target's starting database: a row-id
/// table with a long-text and a blob column, unique and multi-column DESC indexes, a
/// composite primary key with a cascading foreign key, date / timestamp / boolean columns
/// and a view, so that every kind of page and catalog entry appears.
pub const SEED_SCHEMA: &str = "
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, qty INTEGER DEFAULT 0,
    note TEXT, data BLOB, CHECK (qty >= 0));
CREATE UNIQUE INDEX items_name ON items (name);
CREATE INDEX items_price_qty ON items (price DESC, qty);
CREATE TABLE tags (item_id INTEGER NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    tag TEXT NOT NULL, PRIMARY KEY (item_id, tag));
CREATE TABLE events (at TIMESTAMP, day DATE, flag BOOLEAN, amount INTEGER);
CREATE INDEX events_day ON events (day NULLS FIRST);
CREATE VIEW expensive AS SELECT name, price FROM items WHERE price > 10;
";

/// Rows for [`SEED_SCHEMA`]: a few dozen, one value long enough for an overflow chain.
pub const SEED_DATA: &str = "
INSERT INTO items (id, name, price, qty, note, data) VALUES
    (1, 'apple', 1.25, 10, NULL, X'00ff'), (2, 'pear', 2.5, 0, 'ripe', NULL),
    (3, 'plum', NULL, 3, '', X''), (4, 'fig', 12.0, 1, 'dried', X'0102030405'),
    (5, 'kiwi', -0.5, 7, NULL, NULL), (6, 'lime', 30.75, 2, repeat('long note ', 500), NULL);
INSERT INTO items (name, price, qty) SELECT 'item ' || id, id * 1.5, id % 5 FROM items;
INSERT INTO tags VALUES (1, 'red'), (1, 'sweet'), (2, 'green'), (4, 'dried'), (6, 'sour');
INSERT INTO events VALUES
    (TIMESTAMP '2024-01-02 03:04:05', DATE '2024-01-02', TRUE, 5),
    (NULL, DATE '1999-12-31', FALSE, -3), (TIMESTAMP '2030-06-30 23:59:59', NULL, NULL, NULL);
ANALYZE;
";

/// Queries that read the seed tables through their indexes, joins and the view.
const READ_QUERIES: &[&str] = &[
    // On a damaged file the integrity check must report, never panic.
    "PRAGMA integrity_check",
    "SELECT id, name FROM items WHERE name >= 'a' ORDER BY name",
    "SELECT name FROM items WHERE name = 'fig'",
    "SELECT price, qty FROM items WHERE price > 0 ORDER BY price DESC, qty",
    "SELECT * FROM items WHERE id BETWEEN 3 AND 20 ORDER BY id DESC",
    "SELECT length(note), data FROM items WHERE id = 6",
    "SELECT * FROM tags WHERE item_id = 1 ORDER BY tag",
    "SELECT i.name, t.tag FROM items i JOIN tags t ON t.item_id = i.id",
    "SELECT day, count(*), sum(amount) FROM events WHERE day >= DATE '2000-01-01' GROUP BY day",
    "SELECT * FROM events ORDER BY day NULLS FIRST LIMIT 2",
];

/// Modifications of the seed tables: they split, merge and free pages and reuse free ones.
const WRITE_STATEMENTS: &[&str] = &[
    "INSERT INTO items (name, price, qty, note) VALUES ('new', 1.0, 1, repeat('n', 5000))",
    "UPDATE items SET qty = qty + 1, note = 'short' WHERE id % 3 = 0",
    "DELETE FROM items WHERE id % 4 = 0",
    "INSERT INTO tags SELECT id, 'bulk' FROM items",
    "CREATE INDEX events_amount ON events (amount)",
    "DROP TABLE events",
];

/// A database opened by the file targets: a small cache, so pages come and go.
pub fn file_options() -> Options {
    Options {
        cache_size: 256 * 1024,
        ..Options::default()
    }
}

/// Runs one statement with every parameter bound (to small integers), reads every value of
/// every row, and returns the first error. Errors are expected; only panics are findings.
pub fn run_statement(connection: &Connection, sql: &str) -> basalt::Result<()> {
    let mut statement = connection.prepare(sql)?;
    let parameters: Vec<Value> = (0..statement.parameter_count())
        .map(|position| Value::Integer(position as i64 + 1))
        .collect();
    let mut rows = statement.query(parameters)?;
    while let Some(row) = rows.next()? {
        for column in 0..row.column_count() {
            read_value(row.get_ref(column)?);
        }
    }
    Ok(())
}

/// Touches a value's bytes, so that a bad length or pointer shows up under the sanitizer.
fn read_value(value: ValueRef<'_>) {
    let bytes: &[u8] = match value {
        ValueRef::Text(text) => text.as_bytes(),
        ValueRef::Blob(blob) => blob,
        _ => &[],
    };
    std::hint::black_box(bytes.iter().fold(0u8, |sum, byte| sum.wrapping_add(*byte)));
}

/// Reads everything a (possibly damaged) database holds: every table and view the catalog
/// lists, the seed queries, then the seed modifications and a checkpoint. Errors are
/// ignored, each statement runs whatever the previous one did.
pub fn exercise_database(database: &Database) {
    let connection = database.connect();
    let Ok(objects) = connection.schema_objects() else {
        return;
    };
    for object in &objects {
        if object.kind != SchemaKind::Index {
            let sql = format!("SELECT * FROM {}", quote_identifier(&object.name));
            let _ = run_statement(&connection, &sql);
        }
    }
    for sql in READ_QUERIES.iter().chain(WRITE_STATEMENTS) {
        let _ = run_statement(&connection, sql);
    }
    let _ = database.checkpoint();
    let _ = run_statement(&connection, "SELECT count(*) FROM items");
    let _ = run_statement(&connection, "PRAGMA integrity_check");
}

/// The integrity check's rows (`["ok"]` for a sound database).
pub fn integrity_problems(connection: &Connection) -> basalt::Result<Vec<String>> {
    let mut statement = connection.prepare("PRAGMA integrity_check")?;
    let mut rows = statement.query(())?;
    let mut problems = Vec::new();
    while let Some(row) = rows.next()? {
        problems.push(row.get::<String>(0)?);
    }
    Ok(problems)
}

/// Whether `size` is a page size the engine accepts.
fn valid_page_size(size: usize) -> bool {
    size.is_power_of_two() && (4096..=65536).contains(&size)
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    let mut field = [0u8; 4];
    field.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(field)
}

/// The page size a main file's header claims, or the seed page size if it claims nonsense.
pub fn claimed_page_size(main_file: &[u8]) -> usize {
    match main_file.get(20..24) {
        Some(_) if valid_page_size(read_u32(main_file, 20) as usize) => {
            read_u32(main_file, 20) as usize
        }
        _ => SEED_PAGE_SIZE,
    }
}

/// Recomputes a page's checksum trailer (`docs/file-format.md`: CRC-32C of the page number,
/// then everything but the trailer).
fn seal_page(page: &mut [u8], page_number: u32) {
    let body_length = page.len() - 4;
    let checksum = crc32c::crc32c_append(
        crc32c::crc32c(&page_number.to_le_bytes()),
        &page[..body_length],
    );
    page[body_length..].copy_from_slice(&checksum.to_le_bytes());
}

/// Re-seals every whole page of a mutated main file. Without it nearly every mutation would
/// stop at the checksum check; with it, mutations reach the header, catalog and page parsers.
/// (Checksum failures themselves are covered by `crates/basalt/tests/corruption.rs`.)
pub fn seal_main_file(main_file: &mut [u8]) {
    let page_size = claimed_page_size(main_file);
    for (page_number, page) in main_file.chunks_exact_mut(page_size).enumerate() {
        seal_page(page, page_number as u32);
    }
}

/// Re-seals a mutated log: the header checksum, each frame's page trailer (for the page the
/// frame names) and the chained frame checksums, so that recovery accepts the frames and
/// applies them, instead of stopping at the first mutated byte.
pub fn seal_log(log: &mut [u8], page_size: usize) {
    const HEADER_SIZE: usize = 32;
    const FRAME_HEADER_SIZE: usize = 24;
    if log.len() < HEADER_SIZE {
        return;
    }
    let mut chain = crc32c::crc32c(&log[..28]);
    log[28..32].copy_from_slice(&chain.to_le_bytes());
    for frame in log[HEADER_SIZE..].chunks_exact_mut(FRAME_HEADER_SIZE + page_size) {
        let page_number = read_u32(frame, 0);
        let (header, page) = frame.split_at_mut(FRAME_HEADER_SIZE);
        seal_page(page, page_number);
        chain = crc32c::crc32c_append(crc32c::crc32c_append(chain, &header[..20]), page);
        header[20..24].copy_from_slice(&chain.to_le_bytes());
    }
}

/// A directory for this process's scratch databases (`BASALT_FUZZ_DIR`, else the system's
/// temporary directory), emptied of the previous input's files by [`fresh_path`].
pub fn scratch_directory() -> PathBuf {
    let base = std::env::var_os("BASALT_FUZZ_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    base.join(format!("basalt-fuzz-{}", std::process::id()))
}

/// The path of a database file with nothing beside it (no log left from the last input).
pub fn fresh_path(name: &str) -> std::io::Result<PathBuf> {
    let directory = scratch_directory();
    std::fs::create_dir_all(&directory)?;
    let path = directory.join(name);
    for stale in [path.clone(), basalt::storage::pager::wal_path(&path)] {
        match std::fs::remove_file(&stale) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
            _ => {}
        }
    }
    Ok(path)
}

/// Interrupts a connection's statements once `limit` has passed, until dropped: the `sql`
/// target's guard against statements that are slow by design (a cross join of a table with
/// itself ten times), which are not findings. `expired` tells the caller to stop.
#[derive(Debug)]
pub struct Watchdog {
    done: Option<mpsc::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
    expired: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Watchdog {
    pub fn start(connection: &Connection, limit: Duration) -> Watchdog {
        let (done, finished) = mpsc::channel::<()>();
        let handle = connection.interrupt_handle();
        let expired = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = expired.clone();
        let thread = thread::spawn(move || {
            if finished.recv_timeout(limit) != Err(mpsc::RecvTimeoutError::Timeout) {
                return;
            }
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
            // Each statement clears the flag when it starts, so keep setting it.
            while finished.recv_timeout(Duration::from_millis(5))
                == Err(mpsc::RecvTimeoutError::Timeout)
            {
                handle.interrupt();
            }
        });
        Watchdog {
            done: Some(done),
            thread: Some(thread),
            expired,
        }
    }

    pub fn expired(&self) -> bool {
        self.expired.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        drop(self.done.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
