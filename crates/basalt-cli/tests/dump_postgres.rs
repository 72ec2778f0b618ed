//! `basalt dump --postgres FILE` and `.dump --postgres`: the script loads into a fresh
//! PostgreSQL 15 database with `psql -v ON_ERROR_STOP=1`, every table then holds exactly
//! Basalt's rows (each compared as COPY's text form: PostgreSQL's `COPY (SELECT ...) TO
//! STDOUT` against Basalt's rows written with the same text forms), and the constraints,
//! identities, sequences and triggers work there as they did in Basalt.
//!
//! The database has every type Basalt has, a row-id key, AUTOINCREMENT, SERIAL and identity
//! columns, composite, unique, check and foreign keys, a generated column, B-tree, HNSW and
//! full-text indexes, a view, a used sequence, a trigger, NULLs, awkward text (tabs,
//! newlines, backslashes, `\N`, quotes, non-ASCII) and a table of 12,000 rows.
//!
//! Needs PostgreSQL 15's server binaries (`basalt_slt::pg_cluster`) and psql; skipped, with
//! a note, without them. The shell's `.dump --postgres` is checked against the subcommand
//! (the same bytes) without PostgreSQL, and a `--pgvector` script (vectors, HNSW index,
//! identity positions by `pg_get_serial_sequence`) loads back into `basalt serve` through
//! psql with the same rows.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Output};

use basalt::ValueRef;
use basalt_slt::pg_cluster::{PgCluster, StartError};
use common::{Scratch, spawn};

const SOURCE: &str = r#"
CREATE TABLE regions (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, code CHAR(3), label VARCHAR(20) DEFAULT 'none');
CREATE TABLE counters (id INTEGER PRIMARY KEY AUTOINCREMENT, note TEXT);
CREATE TABLE items (
  id SERIAL PRIMARY KEY,
  region_id INTEGER REFERENCES regions(id) ON DELETE CASCADE,
  "Mixed Name" TEXT,
  "select" INT,
  price NUMERIC(10,2) CHECK (price >= 0),
  ratio REAL,
  flag BOOLEAN DEFAULT true,
  data BLOB,
  born DATE,
  at TIMESTAMP,
  atz TIMESTAMPTZ,
  t TIME,
  span INTERVAL,
  uid UUID,
  j JSON,
  jb JSONB,
  v VECTOR(3),
  tags TEXT[],
  nums INT[],
  total NUMERIC GENERATED ALWAYS AS (price * 2) STORED,
  UNIQUE ("select", born)
);
CREATE TABLE ident (id BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 100) PRIMARY KEY, x INT NOT NULL);
CREATE TABLE pair (a INT, b INT, PRIMARY KEY (a, b));
CREATE TABLE pair_ref (a INT, b INT, FOREIGN KEY (a, b) REFERENCES pair(a, b));
CREATE INDEX items_price ON items (price DESC, born);
CREATE UNIQUE INDEX items_uid ON items (uid);
CREATE VIEW cheap AS SELECT id, price FROM items WHERE price < 10;
CREATE SEQUENCE tickets START 50 INCREMENT 3;
SELECT nextval('tickets');
CREATE TABLE log (msg TEXT);
CREATE TRIGGER items_log AFTER INSERT ON items BEGIN INSERT INTO log VALUES ('added ' || NEW.id); END;
INSERT INTO regions VALUES (1, 'north', 'N', 'up'), (2, E'tab\there', NULL, NULL),
  (5, E'line\nbreak \\ back ''q'' ünï "dq" ✓', 'X', '\N');
INSERT INTO counters (note) VALUES ('a'), ('b');
DELETE FROM counters WHERE id = 2;
INSERT INTO items (region_id, "Mixed Name", "select", price, ratio, flag, data, born, at, atz, t, span, uid, j, jb, v, tags, nums)
SELECT 1 + (g % 2), 'name ' || g || E'\t\\', g, g / 100.0, g / 3.0, g % 2 = 0, X'00FF10',
  DATE '2024-01-01' + g, TIMESTAMP '2024-01-01 00:00:00' + g * INTERVAL '1 minute',
  TIMESTAMPTZ '2024-01-01 00:00:00+00' + g * INTERVAL '1 second', TIME '12:34:56.5',
  INTERVAL '1 day 2 hours', gen_random_uuid(), '{"a": 1}'::json, '{"b": [1, 2]}'::jsonb,
  '[1, 2.5, -3]'::vector, ARRAY['x', 'y z', NULL, E'q"\\'], ARRAY[1, 2]
FROM generate_series(1, 12000) AS s(g);
INSERT INTO items (region_id) VALUES (NULL);
INSERT INTO ident (x) VALUES (1), (2);
INSERT INTO pair VALUES (1, 2);
INSERT INTO pair_ref VALUES (1, 2), (NULL, 5);
CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT, emb VECTOR(3));
CREATE INDEX docs_emb ON docs USING hnsw (emb vector_cosine_ops);
CREATE INDEX docs_body ON docs USING fts (body);
INSERT INTO docs (body, emb) SELECT 'doc number ' || g, ('[' || g || ', 1, 0.5]')::vector
  FROM generate_series(1, 50) AS s(g);
"#;

/// Every table and the view, each ordered by its first column (unique in [`SOURCE`]).
const RELATIONS: &[&str] = &[
    "regions", "counters", "items", "ident", "pair", "pair_ref", "log", "docs", "cheap",
];

fn succeeded(what: &str, output: Output) -> String {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

fn psql(cluster: &PgCluster, database: &str) -> Command {
    let mut command = Command::new("psql");
    command
        .arg("-X")
        .arg("-h")
        .arg(cluster.socket_dir())
        .args(["-p", &basalt_slt::pg_cluster::PORT.to_string()])
        .args(["-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1"]);
    command
}

/// Basalt's rows of `relation` as COPY text, vectors in array form (their PostgreSQL type
/// without pgvector is `real[]`).
fn basalt_rows(conn: &basalt::Connection, relation: &str) -> String {
    let mut statement = conn
        .prepare(&format!("SELECT * FROM {relation} ORDER BY 1"))
        .unwrap();
    let columns = statement.column_names().len();
    let mut rows = statement.query(()).unwrap();
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap() {
        let mut texts = Vec::new();
        for index in 0..columns {
            if let ValueRef::Vector(elements) = row.get_ref(index).unwrap() {
                let parts: Vec<String> = elements.iter().map(f32::to_string).collect();
                texts.push((index, format!("{{{}}}", parts.join(","))));
            }
        }
        let values = (0..columns).map(|index| match texts.iter().find(|(at, _)| *at == index) {
            Some((_, text)) => ValueRef::Text(text),
            None => row.get_ref(index).unwrap(),
        });
        basalt_server::write_copy_text_row(values, &mut out);
    }
    String::from_utf8(out).unwrap()
}

fn build_source(scratch: &Scratch) -> String {
    let file = scratch.arg("source.basalt");
    let run = scratch.run(&[&file], SOURCE);
    assert_eq!(run.code, 0, "{run:?}");
    file
}

#[test]
fn shell_dump_postgres_writes_the_same_script() {
    let scratch = Scratch::new();
    let file = scratch.arg("small.basalt");
    let run = scratch.run(
        &[&file],
        "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT); INSERT INTO t VALUES (1, E'a\\tb'), (2, NULL);",
    );
    assert_eq!(run.code, 0, "{run:?}");
    let command = scratch.run(&["dump", "--postgres", &file], "");
    assert_eq!(command.code, 0, "{command:?}");
    let shell = scratch.run(&[&file, ".dump --postgres"], "");
    assert_eq!(shell.code, 0, "{shell:?}");
    assert_eq!(command.stdout, shell.stdout);
    assert!(
        command
            .stdout
            .contains("COPY t (id, s) FROM stdin;\n1\ta\\tb\n2\t\\N\n\\.\n"),
        "{}",
        command.stdout
    );
    let missing = scratch.run(&["dump", "--postgres", &scratch.arg("none.basalt")], "");
    assert_eq!(missing.code, 2, "{missing:?}");
}

#[test]
fn dump_postgres_loads_into_postgresql() {
    if Command::new("psql").arg("--version").output().is_err() {
        println!("note: psql is not on PATH; skipping the PostgreSQL load test");
        return;
    }
    let cluster = match PgCluster::start() {
        Ok(cluster) => cluster,
        Err(StartError::NotFound(why)) => {
            println!("note: skipping the PostgreSQL load test: {why}");
            return;
        }
        Err(StartError::Failed(why)) => panic!("PostgreSQL did not start: {why}"),
    };
    let scratch = Scratch::new();
    let file = build_source(&scratch);
    let script = scratch.arg("dump.sql");
    let run = scratch.run(&["dump", "--postgres", &file, "-o", &script], "");
    assert_eq!(run.code, 0, "{run:?}");
    let text = scratch.read("dump.sql");
    for expected in [
        "COPY items (",
        "CREATE TRIGGER items_log AFTER INSERT ON items",
        "-- Basalt's HNSW index docs_emb needs pgvector",
        "-- Basalt's full-text index docs_body",
        "ADD CONSTRAINT pair_ref_a_b_fkey FOREIGN KEY (a, b) REFERENCES pair (a, b)",
    ] {
        assert!(text.contains(expected), "the script has no {expected}");
    }

    succeeded(
        "CREATE DATABASE",
        psql(&cluster, "postgres")
            .args(["-c", "CREATE DATABASE target"])
            .output()
            .unwrap(),
    );
    succeeded(
        "loading the dump",
        psql(&cluster, "target")
            .args(["-q", "-f", &script])
            .output()
            .unwrap(),
    );

    let db = basalt::Database::open(scratch.path("source.basalt")).unwrap();
    let conn = db.connect();
    for relation in RELATIONS {
        let query = format!("COPY (SELECT * FROM {relation} ORDER BY 1) TO STDOUT");
        let postgres = succeeded(
            relation,
            psql(&cluster, "target")
                .args(["-c", &query])
                .output()
                .unwrap(),
        );
        let basalt = basalt_rows(&conn, relation);
        if postgres != basalt {
            let first = postgres
                .lines()
                .zip(basalt.lines())
                .find(|(p, b)| p != b)
                .map(|(p, b)| format!("PostgreSQL: {p}\nBasalt:     {b}"))
                .unwrap_or_else(|| "(one is a prefix of the other)".into());
            panic!("{relation} differs after loading:\n{first}");
        }
    }
    assert_eq!(basalt_rows(&conn, "items").lines().count(), 12_001);

    // What the constraints, identities, sequences and the trigger do there.
    let answers = succeeded(
        "using the loaded database",
        psql(&cluster, "target")
            .args(["-At"])
            .args([
                "-c",
                "INSERT INTO items (region_id) VALUES (5) RETURNING id",
            ])
            .args(["-c", "SELECT count(*) FROM log"])
            .args([
                "-c",
                "INSERT INTO counters (note) VALUES ('c') RETURNING id",
            ])
            .args([
                "-c",
                "INSERT INTO regions (name) VALUES ('south') RETURNING id",
            ])
            .args(["-c", "INSERT INTO ident (x) VALUES (3) RETURNING id"])
            .args(["-c", "SELECT nextval('tickets')"])
            .args(["-c", "SELECT total FROM items WHERE id = 7"])
            .output()
            .unwrap(),
    );
    let answers: Vec<&str> = answers
        .lines()
        .filter(|line| !line.starts_with("INSERT"))
        .collect();
    assert_eq!(
        answers,
        ["12002", "12002", "3", "6", "102", "53", "0.14"],
        "counters, sequences, the trigger and the generated column"
    );
    for (statement, message) in [
        (
            "INSERT INTO regions (name) VALUES ('north')",
            "duplicate key",
        ),
        ("INSERT INTO items (region_id) VALUES (99)", "foreign key"),
        ("INSERT INTO items (price) VALUES (-1)", "check constraint"),
        (
            "INSERT INTO ident (id, x) VALUES (1, 1)",
            "GENERATED ALWAYS",
        ),
        ("INSERT INTO pair_ref VALUES (9, 9)", "foreign key"),
        (
            "INSERT INTO regions (name, label) VALUES ('x', repeat('y', 21))",
            "too long",
        ),
    ] {
        let output = psql(&cluster, "target")
            .args(["-c", statement])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success() && stderr.contains(message),
            "{statement} should fail with {message}: {stderr}"
        );
    }
}

#[test]
fn pgvector_script_loads_back_into_basalt_serve() {
    if Command::new("psql").arg("--version").output().is_err() {
        println!("note: psql is not on PATH; skipping the round trip through basalt serve");
        return;
    }
    let scratch = Scratch::new();
    let file = scratch.arg("vectors.basalt");
    let run = scratch.run(
        &[&file],
        r"CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL, emb VECTOR(3));
         CREATE INDEX docs_emb ON docs USING hnsw (emb vector_cosine_ops);
         CREATE TABLE tags (n SERIAL PRIMARY KEY, doc INTEGER REFERENCES docs (id), t TEXT);
         INSERT INTO docs (body, emb) SELECT 'doc ' || g || E'\t\\', ('[' || g || ', 1, 0.5]')::vector
           FROM generate_series(1, 500) AS s(g);
         INSERT INTO tags (doc, t) SELECT g, NULL FROM generate_series(1, 100) AS s(g);",
    );
    assert_eq!(run.code, 0, "{run:?}");
    let script = scratch.arg("vectors.sql");
    let run = scratch.run(
        &["dump", "--postgres", "--pgvector", &file, "-o", &script],
        "",
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        scratch
            .read("vectors.sql")
            .contains("CREATE INDEX docs_emb ON docs USING hnsw (emb vector_cosine_ops);"),
        "pgvector's index"
    );

    let copy = scratch.arg("copy.basalt");
    let mut child = spawn(
        scratch.path("").as_path(),
        &["serve", &copy, "--listen", "127.0.0.1:0"],
    );
    // "Serving FILE on 127.0.0.1:PORT ..."
    let mut banner = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut banner)
        .unwrap();
    let port = banner
        .split_whitespace()
        .skip_while(|word| *word != "on")
        .nth(1)
        .and_then(|address| address.rsplit(':').next())
        .expect("port in the banner")
        .to_owned();
    let psql = || {
        let mut command = Command::new("psql");
        command.args([
            "-X",
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-v",
            "ON_ERROR_STOP=1",
        ]);
        command
    };
    let loaded = psql().args(["-q", "-f", &script]).output().unwrap();
    let next = psql()
        .args([
            "-At",
            "-c",
            "INSERT INTO docs (body) VALUES ('new') RETURNING id",
        ])
        .args(["-c", "INSERT INTO tags (t) VALUES ('x') RETURNING n"])
        .output()
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    succeeded("loading the script into basalt serve", loaded);
    assert_eq!(
        succeeded("inserting after the load", next)
            .lines()
            .filter(|line| !line.starts_with("INSERT"))
            .collect::<Vec<_>>(),
        ["501", "101"]
    );

    let source = basalt::Database::open(scratch.path("vectors.basalt")).unwrap();
    let copied = basalt::Database::open(scratch.path("copy.basalt")).unwrap();
    for table in ["docs", "tags"] {
        // The rows that were there before the two inserts above.
        let query = match table {
            "docs" => "SELECT * FROM docs WHERE id <= 500 ORDER BY 1",
            _ => "SELECT * FROM tags WHERE n <= 100 ORDER BY 1",
        };
        let rows = |db: &basalt::Database| {
            let conn = db.connect();
            let mut statement = conn.prepare(query).unwrap();
            let columns = statement.column_names().len();
            let mut rows = statement.query(()).unwrap();
            let mut out = Vec::new();
            while let Some(row) = rows.next().unwrap() {
                basalt_server::write_copy_text_row(
                    (0..columns).map(|index| row.get_ref(index).unwrap()),
                    &mut out,
                );
            }
            out
        };
        let (before, after) = (rows(&source), rows(&copied));
        assert!(!before.is_empty());
        assert!(before == after, "{table} differs after the round trip");
    }
    // The HNSW index came back and answers.
    let conn = copied.connect();
    let mut statement = conn
        .prepare("SELECT id FROM docs ORDER BY emb <=> '[3, 1, 0.5]' LIMIT 1")
        .unwrap();
    let mut rows = statement.query(()).unwrap();
    let nearest: i64 = rows.next().unwrap().expect("a row").get(0).unwrap();
    assert_eq!(nearest, 3);
}
