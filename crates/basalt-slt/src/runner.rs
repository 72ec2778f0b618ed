//! Executing one script against an engine and judging each record.
//!
//! This is the reference runner's `query`/`statement` logic (sqllogictest.c):
//!
//! 1. Every cell is formatted by its column's declared type letter (see `format`).
//! 2. `rowsort` sorts rows, comparing formatted values column by column bytewise (the
//!    reference's `strcmp`); `valuesort` sorts the flattened values; `nosort` keeps order.
//! 3. The result is hashed — md5 over every value followed by `\n`, after sorting — when
//!    the query has a label, or when the hash threshold is non-zero and there are more
//!    values than it. The hash reads `N values hashing to <md5>`.
//! 4. With no threshold, or no more values than it, the expected lines are compared one
//!    per value. (As an extension for files in the newer row-per-line style, when the line
//!    count matches the row count instead, each line is compared with the row's values
//!    joined by single spaces; the SQLite corpus never needs this.) Otherwise the single
//!    expected line must equal the hash line.
//! 5. A labelled query's hash must equal the first hash seen for that label in the file.
//!
//! The hash threshold starts at 8, the reference runner's default, until a
//! `hash-threshold` record changes it (0 turns hashing off except for labels).
//!
//! Records are judged independently: one failure does not stop the file (unless the
//! caller asks for fail-fast), matching the reference, which counts errors and goes on.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::BufRead;

use md5::{Digest, Md5};

use crate::engine::{Engine, Output};
use crate::format::{ColumnType, format_cell};
use crate::script::{RecordKind, ScriptReader, SortMode};

/// How to run a script.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The engine name `skipif` / `onlyif` lines are compared with.
    pub engine_label: String,
    /// Stop the script at its first failing record.
    pub fail_fast: bool,
    /// How many failures to keep in detail (the rest are only counted).
    pub max_failure_details: usize,
}

/// Why one record failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Line of the record's header.
    pub line: usize,
    pub sql: String,
    /// What went wrong, including expected and actual results where relevant.
    pub message: String,
}

/// The verdict on one script.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptOutcome {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// The first `max_failure_details` failures.
    pub failures: Vec<Failure>,
}

/// The hash threshold before any `hash-threshold` record, as in the reference runner.
pub const DEFAULT_HASH_THRESHOLD: usize = 8;

/// How many expected/actual lines a failure message shows before eliding the rest.
const SHOWN_LINES: usize = 12;

/// Runs every record of `script` on `engine`. Records whose header or first line is in
/// `skip_lines` are counted as skipped without running. `should_stop` is polled between
/// records so a parallel run can abandon work no one will report.
pub fn run_script<R: BufRead>(
    script: R,
    engine: &mut dyn Engine,
    options: &RunOptions,
    skip_lines: &HashSet<usize>,
    should_stop: &dyn Fn() -> bool,
) -> std::io::Result<ScriptOutcome> {
    let mut reader = ScriptReader::new(script);
    let mut outcome = ScriptOutcome::default();
    // The reference runner's default (DEFAULT_HASH_THRESHOLD); select1.test relies on it.
    let mut hash_threshold = DEFAULT_HASH_THRESHOLD;
    let mut label_hashes: HashMap<String, String> = HashMap::new();
    while let Some(record) = reader.next_record()? {
        if should_stop() {
            break;
        }
        let counted = matches!(
            record.kind,
            RecordKind::Statement { .. } | RecordKind::Query { .. } | RecordKind::Invalid(_)
        );
        if !record.applies_to(&options.engine_label) {
            if counted {
                outcome.skipped += 1;
            }
            continue;
        }
        if counted && (skip_lines.contains(&record.line) || skip_lines.contains(&record.first_line))
        {
            outcome.skipped += 1;
            continue;
        }
        let verdict = match record.kind {
            RecordKind::HashThreshold(threshold) => {
                hash_threshold = threshold;
                continue;
            }
            RecordKind::Halt => break,
            RecordKind::Invalid(message) => Err(Failure {
                line: record.line,
                sql: String::new(),
                message,
            }),
            RecordKind::Statement {
                expect_error,
                error_pattern,
                sql,
            } => check_statement(engine, expect_error, error_pattern.as_deref(), &sql).map_err(
                |message| Failure {
                    line: record.line,
                    sql,
                    message,
                },
            ),
            RecordKind::Query {
                types,
                sort,
                label,
                sql,
                expected,
            } => {
                let query = Query {
                    types: &types,
                    sort,
                    label: label.as_deref(),
                    expected: &expected,
                };
                check_query(engine, &query, &sql, hash_threshold, &mut label_hashes).map_err(
                    |message| Failure {
                        line: record.line,
                        sql,
                        message,
                    },
                )
            }
        };
        match verdict {
            Ok(()) => outcome.passed += 1,
            Err(failure) => {
                outcome.failed += 1;
                if outcome.failures.len() < options.max_failure_details {
                    outcome.failures.push(failure);
                }
                if options.fail_fast {
                    break;
                }
            }
        }
    }
    Ok(outcome)
}

pub(crate) fn check_statement(
    engine: &mut dyn Engine,
    expect_error: bool,
    error_pattern: Option<&str>,
    sql: &str,
) -> Result<(), String> {
    match (engine.run(sql), expect_error) {
        (Ok(_), false) => Ok(()),
        (Err(error), false) => Err(format!("statement failed: {error}")),
        (Ok(_), true) => Err("statement succeeded but an error was expected".to_owned()),
        (Err(error), true) => match error_pattern {
            None => Ok(()),
            Some(pattern) => {
                let regex = regex::Regex::new(pattern)
                    .map_err(|problem| format!("bad error pattern {pattern:?}: {problem}"))?;
                if regex.is_match(&error) {
                    Ok(())
                } else {
                    Err(format!("error {error:?} does not match {pattern:?}"))
                }
            }
        },
    }
}

/// The parts of a `query` record that judge its result.
struct Query<'a> {
    types: &'a [ColumnType],
    sort: SortMode,
    label: Option<&'a str>,
    expected: &'a [String],
}

/// Runs a query and formats its rows by the record's column types, then orders them by its
/// sort mode: the rows, and the values flattened (what a record's expected lines list).
pub fn query_values(
    engine: &mut dyn Engine,
    types: &[ColumnType],
    sort: SortMode,
    sql: &str,
) -> Result<(Vec<Vec<String>>, Vec<String>), String> {
    let rows = match engine
        .query(sql)
        .map_err(|error| format!("query failed: {error}"))?
    {
        Output::Statement => Vec::new(),
        Output::Rows(rows) => rows,
    };
    let mut formatted: Vec<Vec<String>> = Vec::with_capacity(rows.len());
    for row in &rows {
        if row.len() != types.len() {
            return Err(format!(
                "expected {} columns, the query returned {}",
                types.len(),
                row.len()
            ));
        }
        formatted.push(
            row.iter()
                .zip(types)
                .map(|(cell, &column_type)| format_cell(cell, column_type))
                .collect(),
        );
    }
    Ok(sort_results(formatted, sort))
}

fn check_query(
    engine: &mut dyn Engine,
    query: &Query<'_>,
    sql: &str,
    hash_threshold: usize,
    label_hashes: &mut HashMap<String, String>,
) -> Result<(), String> {
    let (rows, values) = query_values(engine, query.types, query.sort, sql)?;
    let hash = (query.label.is_some() || (hash_threshold > 0 && values.len() > hash_threshold))
        .then(|| hash_line(&values));

    let mut problems = Vec::new();
    if hash_threshold == 0 || values.len() <= hash_threshold {
        if !values_match(query.expected, &rows, &values, query.sort) {
            problems.push(format!(
                "wrong result\n  expected:\n{}  actual:\n{}",
                indent(query.expected),
                indent(&values)
            ));
        }
    } else if let Some(hash) = &hash
        && query.expected.first() != Some(hash)
    {
        problems.push(format!(
            "wrong result hash\n  expected:\n{}  actual:\n    {hash}\n",
            indent(query.expected)
        ));
    }
    if let (Some(label), Some(hash)) = (query.label, hash) {
        match label_hashes.get(label) {
            None => {
                label_hashes.insert(label.to_owned(), hash);
            }
            Some(first) if *first != hash => problems.push(format!(
                "labelled result [{label}] does not agree with previous values: {hash} vs {first}"
            )),
            Some(_) => {}
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Orders formatted rows by `sort` and returns them together with the flattened values
/// (for `valuesort`, rows keep engine order and only the values are sorted).
pub fn sort_results(mut rows: Vec<Vec<String>>, sort: SortMode) -> (Vec<Vec<String>>, Vec<String>) {
    if sort == SortMode::RowSort {
        // Vec<String> orders lexicographically by element, and String bytewise: exactly the
        // reference's column-by-column strcmp.
        rows.sort_unstable();
    }
    let mut values: Vec<String> = rows.iter().flatten().cloned().collect();
    if sort == SortMode::ValueSort {
        values.sort_unstable();
    }
    (rows, values)
}

/// The reference runner's hash line for (already sorted) values.
pub fn hash_line(values: &[String]) -> String {
    let mut hasher = Md5::new();
    for value in values {
        hasher.update(value.as_bytes());
        hasher.update(b"\n");
    }
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(32);
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    format!("{} values hashing to {hex}", values.len())
}

fn values_match(
    expected: &[String],
    rows: &[Vec<String>],
    values: &[String],
    sort: SortMode,
) -> bool {
    if expected.len() == values.len() {
        return expected
            .iter()
            .zip(values)
            .all(|(line, value)| line == value);
    }
    // Row-per-line style: only meaningful when rows survive sorting and have several
    // columns (with one column the two styles coincide and the check above decided).
    sort != SortMode::ValueSort
        && rows.first().is_some_and(|row| row.len() > 1)
        && expected.len() == rows.len()
        && expected
            .iter()
            .zip(rows)
            .all(|(line, row)| *line == row.join(" "))
}

fn indent(lines: &[String]) -> String {
    let mut text = String::new();
    for line in lines.iter().take(SHOWN_LINES) {
        let _ = writeln!(text, "    {line}");
    }
    if lines.len() > SHOWN_LINES {
        let _ = writeln!(text, "    ... ({} more)", lines.len() - SHOWN_LINES);
    }
    if lines.is_empty() {
        text.push_str("    (nothing)\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(values: &[&str]) -> Vec<String> {
        values.iter().map(|value| (*value).to_owned()).collect()
    }

    fn rows() -> Vec<Vec<String>> {
        vec![
            strings(&["b", "1"]),
            strings(&["a", "2"]),
            strings(&["a", "10"]),
        ]
    }

    #[test]
    fn nosort_keeps_order() {
        let (_, values) = sort_results(rows(), SortMode::NoSort);
        assert_eq!(values, strings(&["b", "1", "a", "2", "a", "10"]));
    }

    #[test]
    fn rowsort_sorts_rows_as_strings() {
        let (sorted, values) = sort_results(rows(), SortMode::RowSort);
        // "10" < "2" bytewise: sorting is on formatted text, not numbers.
        assert_eq!(values, strings(&["a", "10", "a", "2", "b", "1"]));
        assert_eq!(sorted[0], strings(&["a", "10"]));
    }

    #[test]
    fn valuesort_sorts_every_value() {
        let (_, values) = sort_results(rows(), SortMode::ValueSort);
        assert_eq!(values, strings(&["1", "10", "2", "a", "a", "b"]));
    }

    #[test]
    fn hash_matches_known_md5() {
        // md5("") and md5("1\n2\n"), checked with coreutils md5sum.
        assert_eq!(
            hash_line(&[]),
            "0 values hashing to d41d8cd98f00b204e9800998ecf8427e"
        );
        assert_eq!(
            hash_line(&strings(&["1", "2"])),
            "2 values hashing to 6ddb4095eb719e2a9f0a3f95677d24e0"
        );
    }

    #[test]
    fn row_per_line_style_is_accepted() {
        let (rows, values) = sort_results(
            vec![strings(&["1", "a b"]), strings(&["2", "c"])],
            SortMode::NoSort,
        );
        assert!(values_match(
            &strings(&["1 a b", "2 c"]),
            &rows,
            &values,
            SortMode::NoSort
        ));
        assert!(values_match(
            &strings(&["1", "a b", "2", "c"]),
            &rows,
            &values,
            SortMode::NoSort
        ));
        assert!(!values_match(
            &strings(&["1 a b", "2 d"]),
            &rows,
            &values,
            SortMode::NoSort
        ));
    }
}
