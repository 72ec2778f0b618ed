//! `basalt import-sqlite` and the shell's `.import-sqlite`, on SQLite files these tests write
//! with rusqlite: the benchmark suite's schemas with tens of thousands of rows (every row
//! compared, indexes present and used, the integrity check clean), a column of mixed types
//! under each `--on-error` mode, foreign keys, views and triggers working afterwards, and the
//! SQLite file left byte for byte as it was.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;

use common::Scratch;
use rusqlite::types::ValueRef as SqliteRef;

/// Every row of a SQLite query, each value as `kind:text` so types are compared too.
fn sqlite_rows(db: &rusqlite::Connection, sql: &str) -> Vec<Vec<String>> {
    let mut statement = db.prepare(sql).unwrap();
    let columns = statement.column_count();
    let mut rows = statement.query([]).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push(
            (0..columns)
                .map(|i| match row.get_ref(i).unwrap() {
                    SqliteRef::Null => "null".to_string(),
                    SqliteRef::Integer(v) => format!("int:{v}"),
                    SqliteRef::Real(v) => format!("real:{v}"),
                    SqliteRef::Text(v) => format!("text:{}", String::from_utf8_lossy(v)),
                    SqliteRef::Blob(v) => format!("blob:{v:?}"),
                })
                .collect(),
        );
    }
    out
}

/// The same for Basalt.
fn basalt_rows(conn: &basalt::Connection, sql: &str) -> Vec<Vec<String>> {
    let mut statement = conn.prepare(sql).unwrap();
    let columns = statement.column_count();
    let mut rows = statement.query(()).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        out.push(
            (0..columns)
                .map(|i| match row.get_ref(i).unwrap() {
                    basalt::ValueRef::Null => "null".to_string(),
                    basalt::ValueRef::Integer(v) => format!("int:{v}"),
                    basalt::ValueRef::Real(v) => format!("real:{v}"),
                    basalt::ValueRef::Text(v) => format!("text:{v}"),
                    basalt::ValueRef::Blob(v) => format!("blob:{v:?}"),
                    other => format!("other:{}", other.to_owned()),
                })
                .collect(),
        );
    }
    out
}

fn lines(conn: &basalt::Connection, sql: &str) -> String {
    basalt_rows(conn, sql)
        .into_iter()
        .map(|row| row.join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A small deterministic generator (no rand dependency needed).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// The OLTP, TPC-B, analytics and driver-shape schemas of `crates/basalt-bench`, as the
/// benchmark creates them in SQLite, with generated rows.
fn write_bench_file(path: &std::path::Path) {
    let db = rusqlite::Connection::open(path).unwrap();
    db.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, \
             u INTEGER NOT NULL UNIQUE, name TEXT, score DOUBLE PRECISION);
         CREATE INDEX t_k ON t (k);
         CREATE TABLE branches (bid INTEGER PRIMARY KEY, bbalance INTEGER NOT NULL, filler TEXT);
         CREATE TABLE tellers (tid INTEGER PRIMARY KEY, bid INTEGER NOT NULL, tbalance INTEGER NOT NULL, filler TEXT);
         CREATE TABLE accounts (aid INTEGER PRIMARY KEY, bid INTEGER NOT NULL, abalance INTEGER NOT NULL, filler TEXT);
         CREATE TABLE history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime TIMESTAMP, filler TEXT);
         CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, region TEXT NOT NULL);
         CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, amount INTEGER NOT NULL);
         CREATE TABLE users (id INTEGER PRIMARY KEY, created INTEGER NOT NULL, email TEXT NOT NULL, active INTEGER NOT NULL);
         CREATE INDEX users_created ON users (created);
         CREATE TABLE articles (id INTEGER PRIMARY KEY, created INTEGER NOT NULL, userId INTEGER NOT NULL REFERENCES users (id), text TEXT NOT NULL);
         CREATE INDEX articles_created ON articles (created);
         CREATE INDEX articles_userId ON articles (userId);",
    )
    .unwrap();
    let mut rng = Lcg(7);
    db.execute_batch("BEGIN").unwrap();
    for id in 1..=30_000i64 {
        db.execute(
            "INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![
                id,
                rng.below(1000) as i64,
                id * 7919 % 1_000_003,
                format!("name-{}-{}", id, "x".repeat(rng.below(40) as usize)),
                rng.below(1_000_000) as f64 / 8.0
            ],
        )
        .unwrap();
    }
    for bid in 1..=4i64 {
        db.execute("INSERT INTO branches VALUES (?1, 0, 'branch')", [bid])
            .unwrap();
    }
    for tid in 1..=40i64 {
        db.execute(
            "INSERT INTO tellers VALUES (?1, ?2, 0, 'teller')",
            [tid, (tid - 1) / 10 + 1],
        )
        .unwrap();
    }
    for aid in 1..=20_000i64 {
        db.execute(
            "INSERT INTO accounts VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![
                aid,
                (aid - 1) / 5000 + 1,
                rng.below(10_000) as i64 - 5000,
                "a".repeat(84)
            ],
        )
        .unwrap();
    }
    for i in 0..5_000i64 {
        db.execute(
            "INSERT INTO history VALUES (?1, ?2, ?3, ?4, ?5, NULL)",
            rusqlite::params![
                rng.below(40) as i64 + 1,
                rng.below(4) as i64 + 1,
                rng.below(20_000) as i64 + 1,
                rng.below(10_000) as i64 - 5000,
                format!("2024-01-{:02} {:02}:{:02}:00", i % 28 + 1, i % 24, i % 60)
            ],
        )
        .unwrap();
    }
    for id in 1..=2_000i64 {
        db.execute(
            "INSERT INTO customers VALUES (?1, ?2, ?3)",
            rusqlite::params![
                id,
                format!("customer {id}"),
                ["north", "south", "east"][id as usize % 3]
            ],
        )
        .unwrap();
    }
    for id in 1..=20_000i64 {
        db.execute(
            "INSERT INTO orders VALUES (?1, ?2, ?3)",
            rusqlite::params![id, rng.below(2000) as i64 + 1, rng.below(500) as i64],
        )
        .unwrap();
    }
    for id in 1..=5_000i64 {
        db.execute(
            "INSERT INTO users VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![
                id,
                rng.below(100_000) as i64,
                format!("u{id}@example.com"),
                id % 2
            ],
        )
        .unwrap();
    }
    for id in 1..=10_000i64 {
        db.execute(
            "INSERT INTO articles VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![
                id,
                rng.below(100_000) as i64,
                rng.below(5000) as i64 + 1,
                format!("article {id}")
            ],
        )
        .unwrap();
    }
    db.execute_batch("COMMIT").unwrap();
    // sqlite_stat1 and sqlite_stat4 appear; internal tables are never copied.
    db.execute_batch("ANALYZE").unwrap();
}

#[test]
fn bench_schemas_import_with_every_row_index_and_key() {
    let scratch = Scratch::new();
    let source = scratch.path("bench.sqlite");
    write_bench_file(&source);
    let before = std::fs::read(&source).unwrap();
    let target = scratch.arg("bench.basalt");
    let run = scratch.run(
        &["import-sqlite", &scratch.arg("bench.sqlite"), &target],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("Imported 9 tables and 92044 rows"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("problem"), "{}", run.stderr);
    // (d) read-only: the file is byte for byte the same.
    assert_eq!(std::fs::read(&source).unwrap(), before);

    let sqlite = rusqlite::Connection::open(&source).unwrap();
    let db = basalt::Database::open(&target).unwrap();
    let conn = db.connect();
    let keys = [
        ("t", "id"),
        ("branches", "bid"),
        ("tellers", "tid"),
        ("accounts", "aid"),
        ("history", "tid, bid, aid, delta, mtime"),
        ("customers", "id"),
        ("orders", "id"),
        ("users", "id"),
        ("articles", "id"),
    ];
    for (table, key) in keys {
        let sql = format!("SELECT * FROM {table} ORDER BY {key}");
        let expected = sqlite_rows(&sqlite, &sql);
        let mut actual = basalt_rows(&conn, &sql);
        if table == "history" {
            // TIMESTAMP is a real type in Basalt: compare its text form.
            for row in &mut actual {
                row[4] = row[4].replace("other:", "text:");
            }
        }
        assert!(expected.len() >= 4, "{table}");
        assert_eq!(actual.len(), expected.len(), "{table}");
        assert!(actual == expected, "{table} differs");
    }
    // Indexes are there and used; the UNIQUE constraint holds; the integrity check passes.
    let plan = lines(&conn, "EXPLAIN SELECT id FROM t WHERE k = 5");
    assert!(plan.contains("t_k"), "{plan}");
    let plan = lines(&conn, "EXPLAIN SELECT id FROM articles WHERE userid = 5");
    assert!(plan.contains("articles_userid"), "{plan}");
    let plan = lines(&conn, "EXPLAIN SELECT id FROM users WHERE created = 5");
    assert!(plan.contains("users_created"), "{plan}");
    let duplicate = conn.execute("INSERT INTO t (k, u) VALUES (1, 7919)", ());
    assert_eq!(duplicate.unwrap_err().code(), "23505");
    let orphan = conn.execute(
        "INSERT INTO articles (created, userid, text) VALUES (1, 999999, 'x')",
        (),
    );
    assert_eq!(orphan.unwrap_err().code(), "23503");
    assert_eq!(lines(&conn, "PRAGMA integrity_check"), "text:ok");
}

/// A table whose INTEGER column and untyped column hold all four storage classes.
fn write_mixed_file(path: &std::path::Path) {
    let db = rusqlite::Connection::open(path).unwrap();
    db.execute_batch(
        "CREATE TABLE m (id INTEGER PRIMARY KEY, n INTEGER, anything, label TEXT NOT NULL);
         INSERT INTO m VALUES (1, 10, 1, 'int');
         INSERT INTO m VALUES (2, 2.5, 2.5, 'real');
         INSERT INTO m VALUES (3, 'abc', 'text', 'text');
         INSERT INTO m VALUES (4, x'0102', x'0304', 'blob');
         INSERT INTO m VALUES (5, NULL, NULL, 'null');
         CREATE TABLE ok (id INTEGER PRIMARY KEY, v TEXT);
         INSERT INTO ok VALUES (1, 'fine');",
    )
    .unwrap();
}

#[test]
fn mixed_types_stop_by_default_and_leave_nothing() {
    let scratch = Scratch::new();
    write_mixed_file(&scratch.path("mixed.sqlite"));
    let run = scratch.run(
        &[
            "import-sqlite",
            &scratch.arg("mixed.sqlite"),
            &scratch.arg("mixed.basalt"),
        ],
        "",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("table m, row 2, column n: real 2.5: not an integer (import stopped)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("nothing was imported"),
        "{}",
        run.stderr
    );
    // The target file it created is gone.
    assert!(!scratch.path("mixed.basalt").exists());
}

#[test]
fn mixed_types_skip_row_lists_every_problem() {
    let scratch = Scratch::new();
    write_mixed_file(&scratch.path("mixed.sqlite"));
    let target = scratch.arg("mixed.basalt");
    let run = scratch.run(
        &[
            "import-sqlite",
            &scratch.arg("mixed.sqlite"),
            &target,
            "--on-error",
            "skip-row",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    for expected in [
        "4 problems with values (3 rows skipped, 0 values stored as NULL):",
        "table m, row 2, column n: real 2.5: not an integer (row skipped)",
        "table m, row 3, column n: text 'abc': not an integer (row skipped)",
        "table m, row 4, column n: blob x'0102' (2 bytes): not an integer (row skipped)",
        "table m, row 4, column anything: blob x'0304' (2 bytes): a blob in a text column (row skipped)",
    ] {
        assert!(run.stderr.contains(expected), "{expected}\n{}", run.stderr);
    }
    let db = basalt::Database::open(&target).unwrap();
    let conn = db.connect();
    assert_eq!(
        lines(&conn, "SELECT id, n, anything, label FROM m ORDER BY id"),
        "int:1 int:10 text:1 text:int\nint:5 null null text:null"
    );
    assert_eq!(lines(&conn, "SELECT v FROM ok"), "text:fine");
}

#[test]
fn mixed_types_null_keeps_the_rows() {
    let scratch = Scratch::new();
    write_mixed_file(&scratch.path("mixed.sqlite"));
    let target = scratch.arg("mixed.basalt");
    let run = scratch.run(
        &[
            "import-sqlite",
            &scratch.arg("mixed.sqlite"),
            &target,
            "--on-error=null",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The untyped column holds text, so it is TEXT: its blob does not fit either.
    for expected in [
        "4 problems with values (0 rows skipped, 4 values stored as NULL):",
        "table m, row 4, column anything: blob x'0304' (2 bytes): a blob in a text column (stored NULL)",
        "table m, row 3, column n: text 'abc': not an integer (stored NULL)",
    ] {
        assert!(run.stderr.contains(expected), "{expected}\n{}", run.stderr);
    }
    let db = basalt::Database::open(&target).unwrap();
    let conn = db.connect();
    assert_eq!(
        lines(&conn, "SELECT id, n, anything FROM m ORDER BY id"),
        "int:1 int:10 text:1\nint:2 null text:2.5\nint:3 null text:text\nint:4 null null\nint:5 null null"
    );
}

#[test]
fn keys_views_and_triggers_work_after_the_import() {
    let scratch = Scratch::new();
    let source = scratch.path("app.sqlite");
    {
        let db = rusqlite::Connection::open(&source).unwrap();
        db.execute_batch(
            "CREATE TABLE Teams (id INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(20) NOT NULL UNIQUE);
             CREATE TABLE members (
                 team INTEGER NOT NULL REFERENCES Teams (id) ON DELETE CASCADE,
                 seat INTEGER NOT NULL,
                 name TEXT DEFAULT 'anon',
                 active BOOLEAN NOT NULL DEFAULT 1,
                 joined DATE,
                 age INTEGER CHECK (age >= 0),
                 PRIMARY KEY (team, seat)
             );
             CREATE TABLE log (what TEXT);
             CREATE INDEX members_by_name ON members (name) WHERE name IS NOT NULL;
             CREATE INDEX members_by_age ON members (age DESC);
             CREATE UNIQUE INDEX teams_lower_name ON Teams (lower(name));
             CREATE VIEW team_sizes AS SELECT t.name, count(*) AS n FROM Teams t JOIN members m ON m.team = t.id GROUP BY t.name;
             CREATE TRIGGER members_log AFTER INSERT ON members BEGIN INSERT INTO log VALUES ('added ' || new.name); END;
             CREATE VIRTUAL TABLE notes USING fts5 (body, tag UNINDEXED);
             INSERT INTO Teams (name) VALUES ('red'), ('blue');
             INSERT INTO members VALUES (1, 1, 'ann', 1, '2024-01-31', 30), (1, 2, 'bob', 0, NULL, 40), (2, 1, 'cy', 1, '2023-12-01', NULL);
             INSERT INTO notes (rowid, body, tag) VALUES (7, 'hello world', 'a'), (9, 'goodbye', 'b');",
        )
        .unwrap();
    }
    let before = std::fs::read(&source).unwrap();
    let target = scratch.arg("app.basalt");
    // (e) through the shell, into the open database.
    let run = scratch.run(&[&target, ".import-sqlite app.sqlite"], "");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "note: virtual table notes (FTS5) becomes table notes (id = its rowid) with a \
             full-text index notes_fts"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("AUTOINCREMENT kept"), "{}", run.stderr);
    assert!(run.stderr.contains("view team_sizes"), "{}", run.stderr);
    // Basalt has no partial indexes yet: reported with its error and SQL, and the import goes on.
    assert!(
        run.stderr.contains(
            "not created: index members_by_name (on members): partial indexes is not supported"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "not created: index teams_lower_name (on teams): expressions in indexes is not supported"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("not created").count(),
        2,
        "{}",
        run.stderr
    );
    // Teams, members, log and the FTS5 table; not sqlite_sequence nor FTS5's shadow tables.
    assert!(
        run.stderr.contains("Imported 4 tables and 10 rows"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&source).unwrap(), before);

    let db = basalt::Database::open(&target).unwrap();
    let conn = db.connect();
    assert_eq!(
        lines(&conn, "SELECT name, n FROM team_sizes ORDER BY name"),
        "text:blue int:1\ntext:red int:2"
    );
    assert_eq!(
        lines(
            &conn,
            "SELECT team, seat, name, active, joined, age FROM members ORDER BY team, seat"
        ),
        "int:1 int:1 text:ann other:true other:2024-01-31 int:30\n\
         int:1 int:2 text:bob other:false null int:40\n\
         int:2 int:1 text:cy other:true other:2023-12-01 null"
    );
    // The log holds the three rows SQLite's trigger wrote, copied once: the trigger did not
    // fire again for the copied members. It fires now.
    assert_eq!(
        lines(&conn, "SELECT what FROM log ORDER BY what"),
        "text:added ann\ntext:added bob\ntext:added cy"
    );
    conn.execute(
        "INSERT INTO members (team, seat, name) VALUES (2, 2, 'dee')",
        (),
    )
    .unwrap();
    assert_eq!(
        lines(&conn, "SELECT what FROM log ORDER BY what DESC LIMIT 1"),
        "text:added dee"
    );
    // Defaults, CHECK, the foreign key and its cascade are in force.
    assert_eq!(
        lines(&conn, "SELECT active FROM members WHERE name = 'dee'"),
        "other:true"
    );
    let error = conn
        .execute("INSERT INTO members (team, seat) VALUES (9, 1)", ())
        .unwrap_err();
    assert_eq!(error.code(), "23503");
    let error = conn
        .execute(
            "INSERT INTO members (team, seat, age) VALUES (1, 5, -1)",
            (),
        )
        .unwrap_err();
    assert_eq!(error.code(), "23514");
    let error = conn
        .execute(
            "INSERT INTO teams (name) VALUES ('a name longer than twenty')",
            (),
        )
        .unwrap_err();
    assert_eq!(error.code(), "22001");
    conn.execute("DELETE FROM teams WHERE name = 'red'", ())
        .unwrap();
    assert_eq!(lines(&conn, "SELECT count(*) FROM members"), "int:2");
    // AUTOINCREMENT continues after the largest id.
    conn.execute("INSERT INTO teams (name) VALUES ('green')", ())
        .unwrap();
    assert_eq!(
        lines(&conn, "SELECT id FROM teams WHERE name = 'green'"),
        "int:3"
    );
    let plan = lines(&conn, "EXPLAIN SELECT team FROM members WHERE age = 30");
    assert!(plan.contains("members_by_age"), "{plan}");
    // The FTS5 table is a table with a full-text index, its row ids kept.
    assert_eq!(
        lines(
            &conn,
            "SELECT id, tag FROM notes WHERE fts_match(body, 'hello')"
        ),
        "int:7 text:a"
    );
    let plan = lines(
        &conn,
        "EXPLAIN SELECT id FROM notes WHERE fts_match(body, 'goodbye')",
    );
    assert!(plan.contains("notes_fts"), "{plan}");
    assert_eq!(lines(&conn, "PRAGMA integrity_check"), "text:ok");
}

#[test]
fn a_foreign_key_the_data_breaks_stops_the_import() {
    let scratch = Scratch::new();
    {
        let db = rusqlite::Connection::open(scratch.path("orphans.sqlite")).unwrap();
        db.execute_batch(
            "PRAGMA foreign_keys = OFF;
             CREATE TABLE p (id INTEGER PRIMARY KEY);
             CREATE TABLE c (id INTEGER PRIMARY KEY, p_id INTEGER REFERENCES p (id));
             INSERT INTO p VALUES (1);
             INSERT INTO c VALUES (1, 1), (2, 7);",
        )
        .unwrap();
    }
    let target = scratch.arg("orphans.basalt");
    let run = scratch.run(
        &[
            &target,
            "CREATE TABLE keep (x INTEGER)",
            ".import-sqlite orphans.sqlite",
            "SELECT 1",
        ],
        "",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("foreign key of table c"),
        "{}",
        run.stderr
    );
    // The shell's database has what it had before, nothing of the import.
    let db = basalt::Database::open(&target).unwrap();
    let conn = db.connect();
    let tables = lines(
        &conn,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    assert_eq!(tables, "text:keep");
}

#[test]
fn without_rowid_strict_and_generated_tables_map_and_are_noted() {
    let scratch = Scratch::new();
    {
        let db = rusqlite::Connection::open(scratch.path("kinds.sqlite")).unwrap();
        db.execute_batch(
            "CREATE TABLE words (word TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
             CREATE TABLE s (id INTEGER PRIMARY KEY, v ANY, r REAL) STRICT;
             CREATE TABLE g (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL,
                             c TEXT GENERATED ALWAYS AS ('x' || a) STORED);
             INSERT INTO words VALUES ('pear', 2), ('apple', 1);
             INSERT INTO s VALUES (1, 5, 1.5), (2, 7, 2);
             INSERT INTO g (a) VALUES (1), (2);",
        )
        .unwrap();
    }
    let target = scratch.arg("kinds.basalt");
    let run = scratch.run(
        &["import-sqlite", &scratch.arg("kinds.sqlite"), &target],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    for expected in [
        "Imported 3 tables and 6 rows",
        "note: table words: WITHOUT ROWID becomes an ordinary table with the same primary key",
        "note: table s: STRICT",
        "note: table g: generated column b becomes an ordinary column holding its values",
        "note: table g: generated column c becomes an ordinary column holding its values",
    ] {
        assert!(run.stderr.contains(expected), "{expected}\n{}", run.stderr);
    }
    let db = basalt::Database::open(&target).unwrap();
    let conn = db.connect();
    assert_eq!(
        lines(&conn, "SELECT * FROM words ORDER BY word"),
        "text:apple int:1\ntext:pear int:2"
    );
    assert_eq!(
        conn.execute("INSERT INTO words VALUES ('pear', 3)", ())
            .unwrap_err()
            .code(),
        "23505"
    );
    // `v ANY` held only integers: INTEGER. `r REAL` holds 2 as a real.
    assert_eq!(
        lines(&conn, "SELECT * FROM s ORDER BY id"),
        "int:1 int:5 real:1.5\nint:2 int:7 real:2"
    );
    assert_eq!(
        lines(&conn, "SELECT a, b, c FROM g ORDER BY a"),
        "int:1 int:2 text:x1\nint:2 int:4 text:x2"
    );
}

#[test]
fn a_wal_mode_file_and_its_log_stay_as_they_were() {
    let scratch = Scratch::new();
    let source = scratch.path("wal.sqlite");
    let db = rusqlite::Connection::open(&source).unwrap();
    db.execute_batch(
        "PRAGMA journal_mode = WAL;
         PRAGMA wal_autocheckpoint = 0;
         CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
         INSERT INTO t VALUES (1, 'in the log only');",
    )
    .unwrap();
    // Left open without a checkpoint (as a crashed or still-running writer would), so the
    // row lives only in the -wal file. A connection that could write would checkpoint it
    // into the main file when it closed; a read-only one must not.
    // Copied while it is open, so that no SQLite connection holds the copy.
    std::mem::forget(db);
    for suffix in ["", "-wal"] {
        std::fs::copy(
            scratch.path(&format!("wal.sqlite{suffix}")),
            scratch.path(&format!("copy.sqlite{suffix}")),
        )
        .unwrap();
    }
    let files = ["copy.sqlite", "copy.sqlite-wal"];
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(scratch.path(f)).unwrap())
        .collect();
    let target = scratch.arg("wal.basalt");
    let run = scratch.run(&["import-sqlite", &scratch.arg("copy.sqlite"), &target], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let after: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(scratch.path(f)).unwrap_or_default())
        .collect();
    assert!(before == after, "the SQLite file or its log changed");
    let db = basalt::Database::open(&target).unwrap();
    assert_eq!(
        lines(&db.connect(), "SELECT v FROM t"),
        "text:in the log only"
    );
}

#[test]
fn a_file_that_is_not_sqlite_or_an_open_transaction_is_refused() {
    let scratch = Scratch::new();
    scratch.write(
        "notes.txt",
        "not a database at all, just some text that is long enough",
    );
    let run = scratch.run(
        &[
            "import-sqlite",
            &scratch.arg("notes.txt"),
            &scratch.arg("out.basalt"),
        ],
        "",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("file is not a database"),
        "{}",
        run.stderr
    );
    assert!(!scratch.path("out.basalt").exists());
    let run = scratch.run(
        &[
            "import-sqlite",
            &scratch.arg("missing.sqlite"),
            &scratch.arg("out.basalt"),
        ],
        "",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);

    write_mixed_file(&scratch.path("mixed.sqlite"));
    let run = scratch.run(
        &[
            &scratch.arg("t.basalt"),
            "BEGIN",
            ".import-sqlite mixed.sqlite --on-error null",
        ],
        "",
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("cannot import inside a transaction"),
        "{}",
        run.stderr
    );
}
