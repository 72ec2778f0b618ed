//! A streaming reader for sqllogictest scripts, following SQLite's reference runner.
//!
//! Lines are read one at a time, so a file is never held in memory whole. Line handling
//! matches the reference's `nextLine`: a trailing `\r` is dropped (some corpus files use
//! CRLF), a line of only whitespace counts as blank, and a line starting with `#` is a
//! comment wherever it appears — even inside a record, where it is simply skipped.
//!
//! A record is a run of non-blank lines: zero or more `skipif <engine>` / `onlyif
//! <engine>` lines, then a header (`statement ok|error [regex]`, `query <types> [sort]
//! [label]`, `hash-threshold N`, `halt`), then the SQL and, for a query, `----` and the
//! expected lines up to the next blank line. A malformed header does not stop the file: it
//! becomes [`RecordKind::Invalid`] so the runner can report it as a failed record, as the
//! reference reports an error and carries on.

use std::io::BufRead;

use crate::format::ColumnType;

/// How a query's rows are ordered before comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortMode {
    /// Keep the engine's order.
    NoSort,
    /// Sort whole rows (compared column by column, bytewise).
    RowSort,
    /// Sort all values individually, ignoring row boundaries.
    ValueSort,
}

/// A `skipif` / `onlyif` line in front of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    SkipIf(String),
    OnlyIf(String),
}

impl Condition {
    /// Whether this condition lets the record run on the engine called `label`. Engine
    /// names compare case-insensitively, as the reference runner's `stricmp` does.
    pub fn allows(&self, label: &str) -> bool {
        match self {
            Self::SkipIf(engine) => !engine.eq_ignore_ascii_case(label),
            Self::OnlyIf(engine) => engine.eq_ignore_ascii_case(label),
        }
    }
}

/// What a record asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordKind {
    /// `statement ok` / `statement error [regex]`.
    Statement {
        expect_error: bool,
        /// For `statement error <regex>`: the error message must match (search, not
        /// anchored). The SQLite corpus never uses it.
        error_pattern: Option<String>,
        sql: String,
    },
    /// `query <types> [sort] [label]`.
    Query {
        types: Vec<ColumnType>,
        sort: SortMode,
        label: Option<String>,
        sql: String,
        /// The lines after `----` (empty when the record has none).
        expected: Vec<String>,
    },
    /// `hash-threshold N`: hash results with more than N values (0 disables hashing).
    HashThreshold(usize),
    /// `halt`: stop processing the file.
    Halt,
    /// A record the reader could not understand; the message says why.
    Invalid(String),
}

/// One record with its position in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based line of the header (`statement`, `query`, ...): the line reports name.
    pub line: usize,
    /// 1-based line where the record starts (its first condition, if any).
    pub first_line: usize,
    pub conditions: Vec<Condition>,
    pub kind: RecordKind,
}

impl Record {
    /// Whether the conditions let this record run on the engine called `label`.
    pub fn applies_to(&self, label: &str) -> bool {
        self.conditions
            .iter()
            .all(|condition| condition.allows(label))
    }
}

/// Reads records one by one from a script.
#[derive(Debug)]
pub struct ScriptReader<R> {
    reader: R,
    line_number: usize,
    buffer: Vec<u8>,
}

impl<R: BufRead> ScriptReader<R> {
    pub fn new(reader: R) -> Self {
        Self {
            reader,
            line_number: 0,
            buffer: Vec::new(),
        }
    }

    /// The next non-comment line (blank lines come back as ""), or `None` at the end.
    fn next_line(&mut self) -> std::io::Result<Option<String>> {
        loop {
            self.buffer.clear();
            if self.reader.read_until(b'\n', &mut self.buffer)? == 0 {
                return Ok(None);
            }
            self.line_number += 1;
            if self.buffer.last() == Some(&b'\n') {
                self.buffer.pop();
            }
            if self.buffer.last() == Some(&b'\r') {
                self.buffer.pop();
            }
            if self.buffer.first() == Some(&b'#') {
                continue;
            }
            if self.buffer.iter().all(u8::is_ascii_whitespace) {
                return Ok(Some(String::new()));
            }
            return Ok(Some(String::from_utf8_lossy(&self.buffer).into_owned()));
        }
    }

    /// Collects lines up to the next blank line (or the end), joined by `\n`. When
    /// `stop_at_dashes` is set, a `----` line also ends the collection, and the return
    /// value says whether it was seen.
    fn collect_lines(&mut self, stop_at_dashes: bool) -> std::io::Result<(Vec<String>, bool)> {
        let mut lines = Vec::new();
        while let Some(line) = self.next_line()? {
            if line.is_empty() {
                return Ok((lines, false));
            }
            if stop_at_dashes && line == "----" {
                return Ok((lines, true));
            }
            lines.push(line);
        }
        Ok((lines, false))
    }

    /// The next record, or `None` at the end of the script.
    pub fn next_record(&mut self) -> std::io::Result<Option<Record>> {
        let mut header = loop {
            match self.next_line()? {
                None => return Ok(None),
                Some(line) if line.is_empty() => continue,
                Some(line) => break line,
            }
        };
        let first_line = self.line_number;
        let mut conditions = Vec::new();
        loop {
            let mut tokens = header.split_whitespace();
            let keyword = tokens.next().unwrap_or_default();
            let engine = tokens.next().unwrap_or_default().to_owned();
            match keyword {
                "skipif" => conditions.push(Condition::SkipIf(engine)),
                "onlyif" => conditions.push(Condition::OnlyIf(engine)),
                _ => break,
            }
            header = match self.next_line()? {
                Some(line) if !line.is_empty() => line,
                _ => {
                    return Ok(Some(Record {
                        line: self.line_number,
                        first_line,
                        conditions,
                        kind: RecordKind::Invalid("condition without a record".to_owned()),
                    }));
                }
            };
        }
        let line = self.line_number;
        let tokens: Vec<&str> = header.split_whitespace().collect();
        let kind = match tokens.first().copied().unwrap_or_default() {
            "statement" => {
                let (sql, _) = self.collect_lines(false)?;
                let sql = sql.join("\n");
                match tokens.get(1).copied() {
                    Some("ok") => RecordKind::Statement {
                        expect_error: false,
                        error_pattern: None,
                        sql,
                    },
                    Some("error") => {
                        // Everything after the `error` keyword, spacing kept, is the regex.
                        let rest = header
                            .trim_start()
                            .strip_prefix("statement")
                            .map(str::trim_start)
                            .and_then(|rest| rest.strip_prefix("error"))
                            .map(str::trim)
                            .unwrap_or_default();
                        let error_pattern = (!rest.is_empty()).then(|| rest.to_owned());
                        RecordKind::Statement {
                            expect_error: true,
                            error_pattern,
                            sql,
                        }
                    }
                    other => RecordKind::Invalid(format!(
                        "unknown statement expectation {:?}",
                        other.unwrap_or_default()
                    )),
                }
            }
            "query" => self.read_query(&tokens)?,
            "hash-threshold" => {
                self.collect_lines(false)?;
                match tokens.get(1).and_then(|value| value.parse().ok()) {
                    Some(threshold) => RecordKind::HashThreshold(threshold),
                    None => RecordKind::Invalid(format!("bad hash-threshold line {header:?}")),
                }
            }
            "halt" => {
                self.collect_lines(false)?;
                RecordKind::Halt
            }
            other => {
                self.collect_lines(false)?;
                RecordKind::Invalid(format!("unknown record type {other:?}"))
            }
        };
        Ok(Some(Record {
            line,
            first_line,
            conditions,
            kind,
        }))
    }

    fn read_query(&mut self, tokens: &[&str]) -> std::io::Result<RecordKind> {
        let (sql, has_results) = self.collect_lines(true)?;
        let expected = if has_results {
            self.collect_lines(false)?.0
        } else {
            Vec::new()
        };
        let type_letters = tokens.get(1).copied().unwrap_or_default();
        let types: Option<Vec<ColumnType>> =
            type_letters.chars().map(ColumnType::from_letter).collect();
        let Some(types) = types.filter(|types| !types.is_empty()) else {
            return Ok(RecordKind::Invalid(format!(
                "bad query type string {type_letters:?}"
            )));
        };
        let sort = match tokens.get(2).copied() {
            None | Some("nosort") => SortMode::NoSort,
            Some("rowsort") => SortMode::RowSort,
            Some("valuesort") => SortMode::ValueSort,
            Some(other) => return Ok(RecordKind::Invalid(format!("unknown sort mode {other:?}"))),
        };
        let label = tokens.get(3).map(|label| (*label).to_owned());
        Ok(RecordKind::Query {
            types,
            sort,
            label,
            sql: sql.join("\n"),
            expected,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str) -> Vec<Record> {
        let mut reader = ScriptReader::new(text.as_bytes());
        let mut records = Vec::new();
        while let Some(record) = reader.next_record().unwrap() {
            records.push(record);
        }
        records
    }

    #[test]
    fn parses_the_record_kinds() {
        let text = "# comment\r\nhash-threshold 8\r\n\r\nstatement ok\r\nCREATE TABLE t(a)\r\n  \r\n\
                    skipif mysql # not compatible\nonlyif sqlite\nquery IT rowsort label-1\nSELECT a,\n# inner comment\n'x' FROM t\n----\n1\nx y\n\n\
                    statement error no such.*\nSELECT * FROM nope\n\nhalt\n\nbogus\n";
        let records = records(text);
        assert_eq!(records.len(), 6);
        assert_eq!(records[0].kind, RecordKind::HashThreshold(8));
        assert_eq!(records[0].line, 2);
        assert_eq!(
            records[1].kind,
            RecordKind::Statement {
                expect_error: false,
                error_pattern: None,
                sql: "CREATE TABLE t(a)".into()
            }
        );
        assert_eq!(records[2].first_line, 7);
        assert_eq!(records[2].line, 9);
        assert_eq!(
            records[2].conditions,
            vec![
                Condition::SkipIf("mysql".into()),
                Condition::OnlyIf("sqlite".into())
            ]
        );
        assert!(records[2].applies_to("SQLite"));
        assert!(!records[2].applies_to("mysql"));
        assert_eq!(
            records[2].kind,
            RecordKind::Query {
                types: vec![ColumnType::Integer, ColumnType::Text],
                sort: SortMode::RowSort,
                label: Some("label-1".into()),
                sql: "SELECT a,\n'x' FROM t".into(),
                expected: vec!["1".into(), "x y".into()],
            }
        );
        assert_eq!(
            records[3].kind,
            RecordKind::Statement {
                expect_error: true,
                error_pattern: Some("no such.*".into()),
                sql: "SELECT * FROM nope".into()
            }
        );
        assert_eq!(records[4].kind, RecordKind::Halt);
        assert!(matches!(records[5].kind, RecordKind::Invalid(_)));
    }

    #[test]
    fn query_without_results_and_bad_headers() {
        let records = records(
            "query I\nSELECT 1\n\nquery X\nSELECT 1\n----\n1\n\nquery I wobble\nSELECT 1\n",
        );
        assert!(
            matches!(&records[0].kind, RecordKind::Query { expected, .. } if expected.is_empty())
        );
        assert!(matches!(records[1].kind, RecordKind::Invalid(_)));
        assert!(matches!(records[2].kind, RecordKind::Invalid(_)));
    }
}
