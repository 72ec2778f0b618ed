//! The shell as a program: output modes, scripts and their errors, one-shot SQL, and the dot
//! commands other than `.import` and `.dump` (see `import_dump.rs`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;

use common::Scratch;

/// A small table with NULLs, unicode, negative and fractional numbers, and text that needs
/// quoting in CSV and escaping in Markdown.
const ITEMS: &str = "\
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, note TEXT);
INSERT INTO items VALUES (1, 'Käse', 3.5, NULL), (2, '東京', -12, 'a,b \"c\"'), (3, NULL, NULL, 'x|y');
";

fn in_mode(mode: &str) -> String {
    let scratch = Scratch::new();
    let script = format!("{ITEMS}.mode {mode}\nSELECT * FROM items ORDER BY id;\n");
    let run = scratch.run(&[], &script);
    assert_eq!(run.stderr, "");
    assert_eq!(run.code, 0);
    run.stdout
}

#[test]
fn table_mode_is_the_default_off_a_terminal() {
    let expected = "\
+----+------+-------+---------+
| id | name | price | note    |
+----+------+-------+---------+
|  1 | Käse |   3.5 | NULL    |
|  2 | 東京 |   -12 | a,b \"c\" |
|  3 | NULL |  NULL | x|y     |
+----+------+-------+---------+
";
    assert_eq!(in_mode("table"), expected);
    let scratch = Scratch::new();
    let run = scratch.run(&[], &format!("{ITEMS}SELECT * FROM items ORDER BY id;\n"));
    assert_eq!(run.stdout, expected);
}

#[test]
fn box_mode() {
    assert_eq!(
        in_mode("box"),
        "\
┌────┬──────┬───────┬─────────┐
│ id │ name │ price │ note    │
├────┼──────┼───────┼─────────┤
│  1 │ Käse │   3.5 │ NULL    │
│  2 │ 東京 │   -12 │ a,b \"c\" │
│  3 │ NULL │  NULL │ x|y     │
└────┴──────┴───────┴─────────┘
"
    );
}

#[test]
fn csv_and_tsv_modes() {
    assert_eq!(
        in_mode("csv"),
        "id,name,price,note\n1,Käse,3.5,\n2,東京,-12,\"a,b \"\"c\"\"\"\n3,,,x|y\n"
    );
    assert_eq!(
        in_mode("tsv"),
        "id\tname\tprice\tnote\n1\tKäse\t3.5\t\n2\t東京\t-12\t\"a,b \"\"c\"\"\"\n3\t\t\tx|y\n"
    );
}

#[test]
fn json_and_jsonl_modes() {
    assert_eq!(
        in_mode("json"),
        r#"[
  {"id": 1, "name": "Käse", "price": 3.5, "note": null},
  {"id": 2, "name": "東京", "price": -12, "note": "a,b \"c\""},
  {"id": 3, "name": null, "price": null, "note": "x|y"}
]
"#
    );
    assert_eq!(
        in_mode("jsonl"),
        r#"{"id": 1, "name": "Käse", "price": 3.5, "note": null}
{"id": 2, "name": "東京", "price": -12, "note": "a,b \"c\""}
{"id": 3, "name": null, "price": null, "note": "x|y"}
"#
    );
}

#[test]
fn line_mode() {
    assert_eq!(
        in_mode("line"),
        "   id = 1\n name = Käse\nprice = 3.5\n note = NULL\n\n   id = 2\n name = 東京\nprice = -12\n note = a,b \"c\"\n\n   id = 3\n name = NULL\nprice = NULL\n note = x|y\n"
    );
}

#[test]
fn markdown_mode() {
    assert_eq!(
        in_mode("markdown"),
        "\
| id  | name | price | note    |
| --: | ---- | ----: | ------- |
|   1 | Käse |   3.5 | NULL    |
|   2 | 東京 |   -12 | a,b \"c\" |
|   3 | NULL |  NULL | x\\|y    |
"
    );
}

#[test]
fn headers_and_null_text_settings() {
    let scratch = Scratch::new();
    let run = scratch.run(
        &[],
        &format!(
            "{ITEMS}.mode csv\n.headers off\n.nullvalue '(none)'\nSELECT name, note FROM items ORDER BY id;\n"
        ),
    );
    assert_eq!(
        run.stdout,
        "Käse,(none)\n東京,\"a,b \"\"c\"\"\"\n(none),x|y\n"
    );
    // JSON's null is not text, so .nullvalue leaves it alone.
    let run = scratch.run(
        &["--json", "--nullvalue", "-"],
        &format!("{ITEMS}SELECT note FROM items WHERE id = 1;\n"),
    );
    assert_eq!(run.stdout, "[\n  {\"note\": null}\n]\n");
}

#[test]
fn an_empty_result_still_shows_its_columns() {
    let scratch = Scratch::new();
    let run = scratch.run(
        &["--json"],
        &format!("{ITEMS}SELECT * FROM items WHERE id > 9;\n"),
    );
    assert_eq!(run.stdout, "[]\n");
    let run = scratch.run(&[], &format!("{ITEMS}SELECT id FROM items WHERE id > 9;\n"));
    assert_eq!(run.stdout, "+----+\n| id |\n+----+\n+----+\n");
}

#[test]
fn one_shot_sql_with_csv_and_json_flags() {
    let scratch = Scratch::new();
    let db = scratch.arg("shop.basalt");
    let setup = scratch.run(&[&db, ITEMS], "");
    assert_eq!((setup.code, setup.stderr.as_str()), (0, ""));

    let run = scratch.run(
        &["--csv", &db, "SELECT id, name FROM items ORDER BY id"],
        "",
    );
    assert_eq!(run.stdout, "id,name\n1,Käse\n2,東京\n3,\n");
    assert_eq!(run.code, 0);

    let run = scratch.run(
        &[
            &db,
            "--json",
            "SELECT count(*) AS n FROM items; SELECT 'two' AS second",
        ],
        "",
    );
    assert_eq!(
        run.stdout,
        "[\n  {\"n\": 3}\n]\n[\n  {\"second\": \"two\"}\n]\n"
    );

    // Several arguments run in order; dot commands work too; stdin is not read.
    let run = scratch.run(
        &[
            &db,
            "--mode",
            "csv",
            ".headers off",
            "SELECT max(id) FROM items",
        ],
        "SELECT 'ignored';",
    );
    assert_eq!(run.stdout, "3\n");

    let run = scratch.run(
        &[&db, "--markdown", "SELECT id FROM items WHERE id = 2"],
        "",
    );
    assert_eq!(run.stdout, "| id  |\n| --: |\n|   2 |\n");
}

#[test]
fn one_shot_error_exits_non_zero() {
    let scratch = Scratch::new();
    let run = scratch.run(&[":memory:", "SELECT 1/0", "SELECT 'not reached'"], "");
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "Error [22012]: division by zero\n");
}

/// A script whose third statement fails; the others leave marks in table `log`.
const FAILING_SCRIPT: &str = "\
CREATE TABLE log (step INTEGER);
INSERT INTO log VALUES (1);
INSERT INTO missing VALUES (2);
INSERT INTO log VALUES (3);
";

#[test]
fn a_script_stops_at_its_first_error() {
    let scratch = Scratch::new();
    let db = scratch.arg("bail.basalt");
    let run = scratch.run(&[&db], FAILING_SCRIPT);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "Error [42P01]: relation \"missing\" does not exist\n  at <stdin>, line 3\n"
    );
    let after = scratch.run(&[&db, "--csv", "SELECT step FROM log ORDER BY step"], "");
    assert_eq!(
        after.stdout, "step\n1\n",
        "the statement before ran; the one after did not"
    );
}

#[test]
fn keep_going_runs_the_rest_and_still_fails() {
    let scratch = Scratch::new();
    let db = scratch.arg("keep.basalt");
    let run = scratch.run(&[&db, "--keep-going"], FAILING_SCRIPT);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("Error [42P01]"), "{}", run.stderr);
    let after = scratch.run(&[&db, "--csv", "SELECT step FROM log ORDER BY step"], "");
    assert_eq!(after.stdout, "step\n1\n3\n");
}

#[test]
fn a_syntax_error_shows_the_statement_with_a_caret() {
    let scratch = Scratch::new();
    let run = scratch.run(
        &[],
        "SELECT 1 AS ok;\nSELECT name\n  FROM items WHERE id = = 2;\n",
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "+----+\n| ok |\n+----+\n|  1 |\n+----+\n");
    assert_eq!(
        run.stderr,
        "\
Error [42601]: syntax error at line 2, column 25 near \"=\": Expected: an expression, found: =
LINE 2:   FROM items WHERE id = = 2
                                ^
  at <stdin>, line 3
"
    );
}

#[test]
fn semicolons_in_strings_and_comments_do_not_end_statements() {
    let scratch = Scratch::new();
    let script = "\
SELECT 'a;b' AS one, -- a comment; with a semicolon
  /* and ; another */ 2 AS two
;
SELECT 3 AS three; SELECT \"x;y\" FROM (SELECT 4 AS \"x;y\") t;
";
    let run = scratch.run(&["--csv"], script);
    assert_eq!(run.stderr, "");
    assert_eq!(run.stdout, "one,two\na;b,2\nthree\n3\nx;y\n4\n");
}

#[test]
fn a_last_statement_without_semicolon_still_runs() {
    let scratch = Scratch::new();
    let run = scratch.run(&["--csv"], "SELECT 1 AS a;\nSELECT 2 AS b\n");
    assert_eq!(run.stdout, "a\n1\nb\n2\n");
    let run = scratch.run(&[], "SELECT 'unterminated\n");
    assert_eq!(run.code, 1);
    assert!(run.stderr.starts_with("Error [42601]"), "{}", run.stderr);
}

#[test]
fn tables_schema_and_indexes() {
    let scratch = Scratch::new();
    let script = "\
CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, age INTEGER CHECK (age >= 0));
CREATE TABLE \"Order Lines\" (n INTEGER, qty REAL DEFAULT 1);
CREATE INDEX users_by_age ON users (age DESC);
CREATE VIEW adults AS SELECT * FROM users WHERE age >= 18;
.tables
.tables u%
.schema users
.indexes
.indexes order%
.schema adults
";
    let run = scratch.run(&[], script);
    assert_eq!(run.stderr, "");
    assert_eq!(
        run.stdout,
        "\
adults
Order Lines
users
users
CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    age INTEGER,
    CHECK (age >= 0)
);
CREATE INDEX users_by_age ON users (age DESC);
users_by_age
CREATE VIEW adults AS SELECT * FROM users WHERE age >= 18;
"
    );
}

#[test]
fn read_runs_a_file_and_reports_its_lines() {
    let scratch = Scratch::new();
    scratch.write(
        "setup.sql",
        "CREATE TABLE t (x INTEGER);\nINSERT INTO t VALUES (1), (2);\n\nSELECT nope FROM t;\n",
    );
    let run = scratch.run(
        &["--csv", "--keep-going"],
        ".read setup.sql\nSELECT sum(x) AS total FROM t;\n.read missing.sql\n",
    );
    assert_eq!(run.stdout, "total\n3\n");
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines[0], "Error [42703]: column \"nope\" does not exist");
    assert_eq!(lines[1], "  at setup.sql, line 4");
    assert!(
        lines[2].starts_with("Error: cannot open missing.sql: "),
        "{}",
        run.stderr
    );
    assert_eq!(lines[3], "  at <stdin>, line 3");
}

#[test]
fn output_sends_results_to_a_file_and_back() {
    let scratch = Scratch::new();
    let run = scratch.run(
        &["--csv"],
        ".output result.csv\nSELECT 1 AS first;\n.output\nSELECT 2 AS second;\n",
    );
    assert_eq!(run.stderr, "");
    assert_eq!(run.stdout, "second\n2\n");
    assert_eq!(scratch.read("result.csv"), "first\n1\n");
}

#[test]
fn open_switches_databases() {
    let scratch = Scratch::new();
    let script = "\
CREATE TABLE here (x INTEGER);
.open other.basalt
CREATE TABLE there (y INTEGER);
.tables
";
    let run = scratch.run(&[], script);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("there\n", ""));
    assert!(scratch.path("other.basalt").exists());
}

#[test]
fn explain_shows_plans() {
    let scratch = Scratch::new();
    let script = "\
CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
.explain SELECT v FROM t WHERE id = 1;
.explain on
SELECT count(*) AS n FROM t;
";
    let run = scratch.run(&["--csv"], script);
    assert_eq!(run.stderr, "");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("Project"), "{}", run.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("Table Scan on t (row id range)")),
        "{}",
        run.stdout
    );
    // With .explain on, the plan comes first, then the result.
    assert_eq!(lines[lines.len() - 2..], ["n", "0"]);
    assert!(
        lines.iter().any(|l| l.contains("Aggregate")),
        "{}",
        run.stdout
    );
}

#[test]
fn unknown_commands_and_bad_arguments_are_explained() {
    let scratch = Scratch::new();
    let run = scratch.run(
        &["--keep-going"],
        ".frobnicate\n.mode sideways\n.headers maybe\n.import only-one-argument\n.open\n.output a b\n.read 'unterminated\n",
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "\
Error: unknown command \".frobnicate\"; enter \".help\" for the list
  at <stdin>, line 1
Error: unknown mode \"sideways\"; choose one of: table, box, csv, tsv, json, jsonl, line, markdown
  at <stdin>, line 2
Error: .headers takes on or off, not \"maybe\"
  at <stdin>, line 3
Error: usage: .import FILE TABLE [--csv | --tsv]
  at <stdin>, line 4
Error: usage: .open FILE
  at <stdin>, line 5
Error: usage: .output [FILE]
  at <stdin>, line 6
Error: unterminated 'quoted' argument
  at <stdin>, line 7
"
    );
}

#[test]
fn help_lists_every_command() {
    let scratch = Scratch::new();
    let run = scratch.run(&[], ".help\n");
    for command in [
        ".bail",
        ".dump",
        ".exit",
        ".explain",
        ".headers",
        ".help",
        ".import",
        ".indexes",
        ".mode",
        ".nullvalue",
        ".open",
        ".output",
        ".quit",
        ".read",
        ".schema",
        ".show",
        ".tables",
        ".timer",
    ] {
        assert!(run.stdout.contains(command), "{command} missing from .help");
    }
}

#[test]
fn quit_stops_reading() {
    let scratch = Scratch::new();
    let run = scratch.run(&["--csv"], "SELECT 1 AS a;\n.quit\nSELECT 2 AS b;\n");
    assert_eq!((run.stdout.as_str(), run.code), ("a\n1\n", 0));
}

#[test]
fn timer_reports_on_stderr() {
    let scratch = Scratch::new();
    let run = scratch.run(&["--csv"], ".timer on\nSELECT 1 AS a;\n");
    assert_eq!(run.stdout, "a\n1\n");
    assert!(run.stderr.starts_with("Run Time: "), "{}", run.stderr);
}

#[test]
fn without_a_file_the_prompt_says_the_database_is_in_memory() {
    let scratch = Scratch::new();
    let run = scratch.run(
        &["--interactive"],
        "CREATE TABLE t (x INTEGER);\nINSERT INTO t VALUES (1);\nSELECT x\n  FROM t;\nSELECT 1/0;\nSELECT 'still here' AS s;\n",
    );
    assert!(
        run.stdout
            .starts_with("Basalt 0.1.0 — enter SQL ending with \";\", or .help"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("Connected to a transient in-memory database; use .open FILE"),
        "{}",
        run.stdout
    );
    // At the prompt an error does not end the session, and leaving with Ctrl-D is success.
    assert!(run.stdout.contains("| still here |"), "{}", run.stdout);
    assert_eq!(run.stderr, "Error [22012]: division by zero\n");
    assert_eq!(run.code, 0);
    // Each statement became one history entry.
    let history = scratch.read(".basalt_history");
    assert!(history.contains("SELECT x\n  FROM t;") || history.contains("SELECT x\\n  FROM t;"));
}

#[test]
fn a_transaction_left_open_is_rolled_back_with_a_warning() {
    let scratch = Scratch::new();
    let db = scratch.arg("txn.basalt");
    let run = scratch.run(
        &[&db],
        "CREATE TABLE t (x INTEGER);\nBEGIN;\nINSERT INTO t VALUES (1);\n",
    );
    assert_eq!(run.code, 0);
    assert!(run.stderr.contains("rolled back"), "{}", run.stderr);
    let after = scratch.run(&[&db, "--csv", "SELECT count(*) AS n FROM t"], "");
    assert_eq!(after.stdout, "n\n0\n");
}
