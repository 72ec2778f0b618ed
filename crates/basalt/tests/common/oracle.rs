//! Basalt and SQLite side by side: every statement runs on both, and results, change counts
//! and success must agree. Used by the large-table tests (`large_ranges.rs`,
//! `large_writes.rs`), which compare whole tables after each modification and read every
//! index back through an index scan, so a range that stops early, a row visited twice or an
//! index entry left behind shows up as a difference from the oracle.

#![allow(
    dead_code,
    clippy::unwrap_used,
    reason = "test helpers: each test file uses some of them"
)]

use basalt::{Connection, Database, ValueRef};

/// One result value, as both engines can report it.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// A statement parameter.
#[derive(Clone, Debug)]
pub enum P {
    I(i64),
    T(String),
}

impl From<i64> for P {
    fn from(value: i64) -> Self {
        P::I(value)
    }
}

impl From<&str> for P {
    fn from(value: &str) -> Self {
        P::T(value.to_string())
    }
}

/// What one statement did: rows, or a change count; `Err` holds the error text.
pub type Outcome = Result<Result<Vec<Vec<Cell>>, usize>, String>;

fn basalt_cell(value: ValueRef<'_>) -> Cell {
    match value {
        ValueRef::Null => Cell::Null,
        ValueRef::Boolean(v) => Cell::Integer(i64::from(v)),
        ValueRef::Integer(v) => Cell::Integer(v),
        // Whole reals (avg, sum over reals) compare as the integers SQLite may report.
        ValueRef::Real(v) if v.fract() == 0.0 && v.abs() < 9.0e15 => Cell::Integer(v as i64),
        ValueRef::Real(v) => Cell::Real(v),
        ValueRef::Text(v) | ValueRef::Json(v) | ValueRef::Jsonb(v) => Cell::Text(v.to_string()),
        ValueRef::Blob(v) => Cell::Blob(v.to_vec()),
        other => Cell::Text(other.to_owned().to_string()),
    }
}

fn sqlite_cell(value: rusqlite::types::ValueRef<'_>) -> Cell {
    use rusqlite::types::ValueRef as S;
    match value {
        S::Null => Cell::Null,
        S::Integer(v) => Cell::Integer(v),
        S::Real(v) if v.fract() == 0.0 && v.abs() < 9.0e15 => Cell::Integer(v as i64),
        S::Real(v) => Cell::Real(v),
        S::Text(v) => Cell::Text(String::from_utf8_lossy(v).into_owned()),
        S::Blob(v) => Cell::Blob(v.to_vec()),
    }
}

/// A Basalt database and an SQLite database that should always hold the same rows.
pub struct Pair {
    _db: Database,
    pub basalt: Connection,
    pub sqlite: rusqlite::Connection,
    /// Whether Basalt has `PRAGMA integrity_check` (probed once).
    integrity_check: bool,
    /// Calls of [`Pair::check`] so far: the integrity check, which walks the whole file,
    /// runs on every third.
    checks: std::cell::Cell<u32>,
}

impl Default for Pair {
    fn default() -> Self {
        Self::new()
    }
}

impl Pair {
    /// Two empty in-memory databases, SQLite set up to behave as Basalt: case-sensitive
    /// LIKE, enforced foreign keys.
    pub fn new() -> Pair {
        let db = Database::open_in_memory().unwrap();
        let basalt = db.connect();
        let sqlite = rusqlite::Connection::open_in_memory().unwrap();
        sqlite
            .execute_batch("PRAGMA case_sensitive_like = ON; PRAGMA foreign_keys = ON;")
            .unwrap();
        let integrity_check = match basalt.prepare("PRAGMA integrity_check") {
            Ok(mut statement) => statement.query(()).is_ok(),
            Err(_) => false,
        };
        Pair {
            _db: db,
            basalt,
            sqlite,
            integrity_check,
            checks: std::cell::Cell::new(0),
        }
    }

    /// Runs `sql` with `params` on Basalt.
    pub fn run_basalt(&self, sql: &str, params: &[P]) -> Outcome {
        let values: Vec<basalt::Value> = params
            .iter()
            .map(|p| match p {
                P::I(v) => basalt::Value::Integer(*v),
                P::T(v) => basalt::Value::Text(v.clone()),
            })
            .collect();
        let run = || -> basalt::Result<Result<Vec<Vec<Cell>>, usize>> {
            let mut statement = self.basalt.prepare_cached(sql)?;
            if statement.column_count() == 0 {
                return Ok(Err(statement.execute(values.clone())?));
            }
            let width = statement.column_count();
            let mut rows = statement.query(values.clone())?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                out.push(
                    (0..width)
                        .map(|i| row.get_ref(i).map(basalt_cell))
                        .collect::<basalt::Result<Vec<Cell>>>()?,
                );
            }
            Ok(Ok(out))
        };
        run().map_err(|e| format!("{} {}", e.code(), e.message()))
    }

    /// Runs `sql` with `params` on SQLite.
    pub fn run_sqlite(&self, sql: &str, params: &[P]) -> Outcome {
        let values: Vec<rusqlite::types::Value> = params
            .iter()
            .map(|p| match p {
                P::I(v) => rusqlite::types::Value::Integer(*v),
                P::T(v) => rusqlite::types::Value::Text(v.clone()),
            })
            .collect();
        let run = || -> rusqlite::Result<Result<Vec<Vec<Cell>>, usize>> {
            let mut statement = self.sqlite.prepare_cached(sql)?;
            let width = statement.column_count();
            if width == 0 {
                return Ok(Err(
                    statement.execute(rusqlite::params_from_iter(values.iter()))?
                ));
            }
            let mut rows = statement.query(rusqlite::params_from_iter(values.iter()))?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                out.push(
                    (0..width)
                        .map(|i| row.get_ref(i).map(sqlite_cell))
                        .collect::<rusqlite::Result<Vec<Cell>>>()?,
                );
            }
            Ok(Ok(out))
        };
        run().map_err(|e| e.to_string())
    }

    /// Runs `sql` on both and requires the same outcome (both failing counts as the same);
    /// returns Basalt's.
    pub fn same(&self, sql: &str, params: &[P]) {
        let _ = self.same_as(sql, sql, params);
    }

    /// [`Pair::same`], with SQLite running `sqlite_sql` instead: for statements whose
    /// PostgreSQL meaning SQLite spells differently.
    pub fn same_as(&self, sql: &str, sqlite_sql: &str, params: &[P]) -> Outcome {
        let basalt = self.run_basalt(sql, params);
        let sqlite = self.run_sqlite(sqlite_sql, params);
        let agree = match (&basalt, &sqlite) {
            (Err(_), Err(_)) => true,
            (Ok(b), Ok(s)) => b == s,
            _ => false,
        };
        if !agree {
            let first_difference = match (&basalt, &sqlite) {
                (Ok(Ok(b)), Ok(Ok(s))) => {
                    let at = b
                        .iter()
                        .zip(s)
                        .position(|(b, s)| b != s)
                        .unwrap_or(b.len().min(s.len()));
                    format!(
                        "\nfirst difference at row {at}: Basalt {:?}, SQLite {:?}",
                        b.get(at),
                        s.get(at)
                    )
                }
                _ => String::new(),
            };
            panic!(
                "Basalt and SQLite differ on\n  {sql}\n  params {params:?}\nBasalt: {}\nSQLite: {}{first_difference}",
                describe(&basalt),
                describe(&sqlite)
            );
        }
        basalt
    }

    /// Runs `sql` on both; both must succeed alike.
    pub fn ok(&self, sql: &str, params: &[P]) {
        let _ = self.ok_outcome(sql, params);
    }

    /// [`Pair::ok`], returning Basalt's outcome.
    pub fn ok_outcome(&self, sql: &str, params: &[P]) -> Outcome {
        let outcome = self.same_as(sql, sql, params);
        if let Err(error) = &outcome {
            panic!("{sql} failed on both: {error}");
        }
        outcome
    }

    /// Runs `sql` on both: both must succeed, or both fail; the change counts may differ
    /// (for statements whose count depends on the order rows are reached in: SQLite runs
    /// foreign key actions at once, Basalt at the statement's end as PostgreSQL does).
    /// The caller compares the tables afterwards.
    pub fn same_state(&self, sql: &str, params: &[P]) {
        let basalt = self.run_basalt(sql, params);
        let sqlite = self.run_sqlite(sql, params);
        assert_eq!(
            basalt.is_ok(),
            sqlite.is_ok(),
            "{sql} {params:?}\nBasalt: {}\nSQLite: {}",
            describe(&basalt),
            describe(&sqlite)
        );
    }

    /// Runs several statements (no parameters) on both; each must succeed.
    pub fn batch(&self, sql: &str) {
        self.basalt
            .execute_batch(sql)
            .unwrap_or_else(|e| panic!("Basalt: {sql}: {e:?}"));
        self.sqlite
            .execute_batch(sql)
            .unwrap_or_else(|e| panic!("SQLite: {sql}: {e}"));
    }

    /// Basalt's plan for `sql`, one line per operator.
    pub fn explain(&self, sql: &str) -> String {
        let mut statement = self.basalt.prepare(&format!("EXPLAIN {sql}")).unwrap();
        let mut rows = statement.query(()).unwrap();
        let mut lines = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            lines.push(row.get::<String>(0).unwrap());
        }
        lines.join("\n")
    }

    /// Requires Basalt's plan for `sql` to mention `what` (an index or operator name), so a
    /// check meant for one access path does not silently test another.
    pub fn assert_plan(&self, sql: &str, what: &str) {
        let plan = self.explain(sql);
        assert!(plan.contains(what), "plan of {sql} lacks {what}:\n{plan}");
    }

    /// The whole of `table` in row-id order must be the same on both.
    pub fn check_table(&self, table: &str) {
        self.ok(&format!("SELECT * FROM {table} ORDER BY id"), &[]);
    }

    /// `table` must agree with SQLite, and each query in `index_reads` (each served by one
    /// of the table's indexes, see [`Pair::assert_plan`]) must too: an index entry left
    /// behind points at a missing row (XX001) or returns a row twice, a missing one drops
    /// it. Every third call runs `PRAGMA integrity_check` as well (where Basalt has it),
    /// which compares every index entry with its row.
    pub fn check(&self, table: &str, index_reads: &[&str]) {
        self.check_table(table);
        for read in index_reads {
            self.ok(read, &[]);
        }
        self.checks.set(self.checks.get() + 1);
        if self.integrity_check && self.checks.get() % 3 == 1 {
            let result = self.run_basalt("PRAGMA integrity_check", &[]);
            let fine = matches!(&result, Ok(Ok(rows)) if rows.iter().all(|row|
                matches!(row.first(), Some(Cell::Text(text)) if text.eq_ignore_ascii_case("ok"))));
            assert!(fine, "integrity_check: {}", describe(&result));
        }
    }
}

/// A short description of an outcome for failure messages.
pub fn describe(outcome: &Outcome) -> String {
    match outcome {
        Err(error) => format!("error {error}"),
        Ok(Err(changes)) => format!("{changes} changes"),
        Ok(Ok(rows)) => {
            let shown: Vec<String> = rows.iter().take(8).map(|r| format!("{r:?}")).collect();
            format!("{} rows: {}", rows.len(), shown.join(", "))
        }
    }
}

/// The wide table `t` of the large-table tests: seven columns, text of tens to thousands
/// of bytes (a few rows overflow), so a 4 KiB leaf holds about a dozen rows and 10k rows
/// make a three-level tree; and five secondary indexes — single-column (`t_k`), two-column
/// (`t_gk`), UNIQUE (`t_u`), DESC (`t_d`) and text for LIKE prefixes (`t_name`).
pub const WIDE_SCHEMA: &str = "
    CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, g INTEGER NOT NULL,
        u INTEGER NOT NULL, d INTEGER NOT NULL, name TEXT NOT NULL, pad TEXT);
    CREATE INDEX t_k ON t (k);
    CREATE INDEX t_gk ON t (g, k);
    CREATE UNIQUE INDEX t_u ON t (u);
    CREATE INDEX t_d ON t (d DESC);
    CREATE INDEX t_name ON t (name);";

/// One query per index of `t` reading the whole index in its order (bounds wide enough for
/// every value any test writes), with the index each must be served by.
pub const WIDE_INDEX_READS: [(&str, &str); 5] = [
    (
        "t_k",
        "SELECT id, k FROM t WHERE k BETWEEN -1000000000 AND 1000000000 ORDER BY k, id",
    ),
    (
        "t_gk",
        "SELECT id, g, k FROM t WHERE g BETWEEN -1000000000 AND 1000000000 ORDER BY g, k, id",
    ),
    (
        "t_u",
        "SELECT id, u FROM t WHERE u BETWEEN -1000000000 AND 1000000000 ORDER BY u",
    ),
    (
        "t_d",
        "SELECT id, d FROM t WHERE d BETWEEN -1000000000 AND 1000000000 ORDER BY d DESC, id",
    ),
    (
        "t_name",
        "SELECT id, name FROM t WHERE name >= '' ORDER BY name, id",
    ),
];

/// Row id of the `i`-th row of the wide table: multiples of 3 from 12, so every bound can
/// be a present id or fall just below or above one.
pub fn wide_id(i: i64) -> i64 {
    12 + 3 * i
}

/// Name prefixes: plain ones, LIKE's wildcards and escape as literal characters, and
/// characters at the top of the code-point range, where a prefix's successor is special.
const NAME_STEMS: [&str; 9] = [
    "a%b",
    "a_b",
    "a\\b",
    "\u{e9}",
    "\u{ffff}",
    "\u{10ffff}",
    "zz\u{10ffff}",
    "m\u{7f}",
    "n",
];

/// The `i`-th row of the wide table (after its row id): k, g, u, d, name, pad.
pub fn wide_row(rng: &mut crate::common::Rng, i: i64) -> Vec<P> {
    let stem = match rng.below(24) {
        s @ 0..=7 => NAME_STEMS[s as usize],
        _ => "n",
    };
    let name = format!("{stem}{:04}", rng.below(3000));
    let length = match rng.below(80) {
        0 => 2500 + rng.below(3000),
        1..=6 => 300 + rng.below(700),
        _ => 20 + rng.below(280),
    } as usize;
    let fill = char::from(b'a' + (i % 26) as u8);
    let mut pad = format!("{i}:");
    while pad.len() < length {
        pad.push(fill);
    }
    vec![
        P::I(rng.below(4000) as i64),
        P::I(rng.below(20) as i64),
        // A permutation of 0..20011 (prime), so distinct for the first 20011 rows.
        P::I((i * 7919) % 20011),
        P::I(rng.below(100_000) as i64),
        P::T(name),
        P::T(pad),
    ]
}

impl Pair {
    /// Creates the wide table with `rows` rows on both engines, and checks that each of
    /// [`WIDE_INDEX_READS`] is served by its index.
    pub fn wide_table(&self, rows: i64, seed: u64) {
        self.batch(WIDE_SCHEMA);
        self.insert_wide(0..rows, seed);
        for (index, read) in WIDE_INDEX_READS {
            self.assert_plan(read, &format!("Index Scan using {index}"));
        }
    }

    /// Inserts rows `range` of the wide table, in one transaction.
    pub fn insert_wide(&self, range: std::ops::Range<i64>, seed: u64) {
        let mut rng = crate::common::Rng::new(seed);
        self.batch("BEGIN");
        for i in range {
            let mut params = vec![P::I(wide_id(i))];
            params.extend(wide_row(&mut rng, i));
            self.ok("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &params);
        }
        self.batch("COMMIT");
    }

    /// [`Pair::check`] of the wide table.
    pub fn check_wide(&self) {
        let reads: Vec<&str> = WIDE_INDEX_READS.iter().map(|(_, read)| *read).collect();
        self.check("t", &reads);
    }

    /// A cheap fingerprint of the wide table (count and sums over every column), compared
    /// between the engines where a full [`Pair::check_wide`] would cost too much.
    pub fn fingerprint_wide(&self) {
        self.ok(
            "SELECT count(*), sum(id), sum(k), sum(g), sum(u), sum(d), sum(length(name)), \
             sum(length(pad)) FROM t",
            &[],
        );
    }
}
