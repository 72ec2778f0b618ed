//! `basalt-slt --rewrite`: runs a script and writes each query's actual result in place of
//! its expected lines, for golden files such as the plan tests (`tests/slt/plans/`), whose
//! expected output is whatever the engine prints today and is reviewed as a diff.
//!
//! Everything else in the file stays byte for byte: comments, conditions, statements, the
//! SQL and header of each query. A query whose result already matches (by the runner's own
//! rules, so a row-per-line expectation that matches is left alone) keeps its lines. The
//! result is written as the reference format lists it: one value per line, or the hash line
//! when the values exceed the hash threshold or the query has a label. Statements run as
//! usual (the database state evolves as in a normal run); a failing statement, or a query
//! that fails to run, is reported and its record left unchanged.

use std::collections::HashSet;

use crate::engine::Engine;
use crate::runner::{DEFAULT_HASH_THRESHOLD, check_statement, hash_line, query_values};
use crate::script::{RecordKind, ScriptReader};

/// What a rewrite did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RewriteReport {
    /// Queries whose expected lines were replaced.
    pub rewritten: usize,
    /// Query records that already matched.
    pub unchanged: usize,
    /// Records that could not be rewritten (a statement that failed as it should not, a
    /// query that failed to run), with the line of their header and why.
    pub problems: Vec<(usize, String)>,
}

/// Runs `text` (a whole script) on `engine` and returns it with every query's expected lines
/// replaced by what the engine returned. Records whose conditions exclude `engine_label`
/// are skipped, as in a normal run.
pub fn rewrite_script(
    text: &str,
    engine: &mut dyn Engine,
    engine_label: &str,
) -> std::io::Result<(String, RewriteReport)> {
    let mut reader = ScriptReader::new(text.as_bytes());
    let mut report = RewriteReport::default();
    let mut hash_threshold = DEFAULT_HASH_THRESHOLD;
    // Header line (1-based) → the lines that should follow `----`.
    let mut replacements: Vec<(usize, Vec<String>)> = Vec::new();
    while let Some(record) = reader.next_record()? {
        if !record.applies_to(engine_label) {
            continue;
        }
        match record.kind {
            RecordKind::HashThreshold(threshold) => hash_threshold = threshold,
            RecordKind::Halt => break,
            RecordKind::Invalid(message) => report.problems.push((record.line, message)),
            RecordKind::Statement {
                expect_error,
                error_pattern,
                sql,
            } => {
                if let Err(message) =
                    check_statement(engine, expect_error, error_pattern.as_deref(), &sql)
                {
                    report.problems.push((record.line, message));
                }
            }
            RecordKind::Query {
                types,
                sort,
                label,
                sql,
                expected,
            } => match query_values(engine, &types, sort, &sql) {
                Err(message) => report.problems.push((record.line, message)),
                Ok((rows, values)) => {
                    let hashed =
                        label.is_some() || (hash_threshold > 0 && values.len() > hash_threshold);
                    let lines = if hashed {
                        vec![hash_line(&values)]
                    } else {
                        values
                    };
                    let row_per_line: Vec<String> = rows.iter().map(|row| row.join(" ")).collect();
                    if expected == lines || (!hashed && expected == row_per_line) {
                        report.unchanged += 1;
                    } else {
                        report.rewritten += 1;
                        replacements.push((record.line, lines));
                    }
                }
            },
        }
    }
    Ok((apply(text, &replacements), report))
}

/// `text` with the expected block of each query whose header is on a given line replaced.
fn apply(text: &str, replacements: &[(usize, Vec<String>)]) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let headers: HashSet<usize> = replacements.iter().map(|(line, _)| *line).collect();
    let mut out = String::with_capacity(text.len());
    let mut index = 0;
    let blank = |line: &str| line.trim().is_empty();
    while index < lines.len() {
        let line_number = index + 1;
        out.push_str(lines[index]);
        index += 1;
        if !headers.contains(&line_number) {
            continue;
        }
        let Some((_, new_lines)) = replacements.iter().find(|(line, _)| *line == line_number)
        else {
            continue;
        };
        // The SQL, up to `----` or the record's end.
        let mut has_dashes = false;
        while index < lines.len() && !blank(lines[index]) {
            let current = lines[index];
            out.push_str(current);
            index += 1;
            if current.trim_end_matches(['\r', '\n']) == "----" {
                has_dashes = true;
                break;
            }
        }
        if !has_dashes {
            // A query written without results gains its `----`.
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("----\n");
        }
        // Drop the old expected lines, then write the new ones.
        while index < lines.len() && !blank(lines[index]) {
            index += 1;
        }
        for new_line in new_lines {
            out.push_str(new_line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SqliteEngine;

    #[test]
    fn wrong_and_missing_results_are_replaced_and_the_rest_kept() {
        let script = "\
# a comment stays
hash-threshold 0

statement ok
CREATE TABLE t (a INTEGER, b TEXT)

statement ok
INSERT INTO t VALUES (1, 'x'), (2, 'y')

query IT rowsort
SELECT a, b FROM t
----
1
x
9
z

query I nosort
SELECT count(*) FROM t
----
2

query I nosort
SELECT a FROM t ORDER BY a DESC

query IT rowsort
SELECT a, b FROM t
----
1 x
2 y
";
        let mut engine = SqliteEngine::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        let (rewritten, report) =
            rewrite_script(script, &mut engine, "sqlite").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.rewritten, 2);
        assert_eq!(report.unchanged, 2);
        assert!(report.problems.is_empty());
        let expected = script.replace("1\nx\n9\nz\n", "1\nx\n2\ny\n").replace(
            "SELECT a FROM t ORDER BY a DESC\n",
            "SELECT a FROM t ORDER BY a DESC\n----\n2\n1\n",
        );
        assert_eq!(rewritten, expected);
        // A second rewrite changes nothing.
        let mut engine = SqliteEngine::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        let (again, report) =
            rewrite_script(&rewritten, &mut engine, "sqlite").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again, rewritten);
        assert_eq!(report.rewritten, 0);
    }

    #[test]
    fn failing_records_are_reported_and_left_alone() {
        let script = "statement ok\nSELEC 1\n\nquery I nosort\nSELECT nope\n----\n1\n";
        let mut engine = SqliteEngine::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        let (rewritten, report) =
            rewrite_script(script, &mut engine, "sqlite").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rewritten, script);
        assert_eq!(
            report
                .problems
                .iter()
                .map(|(line, _)| *line)
                .collect::<Vec<_>>(),
            [1, 4]
        );
    }
}
