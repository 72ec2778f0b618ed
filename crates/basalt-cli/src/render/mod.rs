//! Turning query results into text: the output modes of `.mode` and `--mode`.
//!
//! The session hands a statement's [`basalt::Rows`] here together with the column names and
//! types. Aligned modes (`table`, `box`, `markdown`) read every row first to size the columns
//! ([`grid`]); the others ([`stream`]) write each row as it arrives, so exporting a large
//! table does not hold it in memory. Every mode shows NULL distinctly: `.nullvalue` text
//! (default `NULL`) where there is room for a word, empty in csv/tsv, `null` in JSON.

mod grid;
mod stream;

use std::io::{self, Write};

use basalt::{DataType, Rows, Value, ValueRef};

/// How results are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Aligned columns inside ASCII borders.
    Table,
    /// Aligned columns inside Unicode box-drawing borders.
    Box,
    /// Comma-separated values (RFC 4180 quoting).
    Csv,
    /// Tab-separated values (quoted like CSV where needed).
    Tsv,
    /// One JSON array of objects.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// One `column = value` line per column, rows separated by a blank line.
    Line,
    /// A GitHub-flavoured Markdown table.
    Markdown,
}

impl Mode {
    /// Every mode's name, for messages.
    pub const NAMES: &'static str = "table, box, csv, tsv, json, jsonl, line, markdown";

    /// The mode named `name`.
    pub fn parse(name: &str) -> Option<Mode> {
        <Mode as clap::ValueEnum>::from_str(name, true).ok()
    }

    /// The mode's name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Table => "table",
            Mode::Box => "box",
            Mode::Csv => "csv",
            Mode::Tsv => "tsv",
            Mode::Json => "json",
            Mode::Jsonl => "jsonl",
            Mode::Line => "line",
            Mode::Markdown => "markdown",
        }
    }

    /// What NULL looks like when `.nullvalue` was not set.
    fn default_null(self) -> &'static str {
        match self {
            Mode::Table | Mode::Box | Mode::Line | Mode::Markdown => "NULL",
            Mode::Csv | Mode::Tsv | Mode::Json | Mode::Jsonl => "",
        }
    }
}

/// The settings that shape output.
#[derive(Clone, Debug)]
pub struct Style {
    pub mode: Mode,
    /// Whether to print a header line (table, box, markdown, csv, tsv).
    pub headers: bool,
    /// What NULL prints as; `None` means the mode's default.
    pub null_text: Option<String>,
    /// Terminal width to fit aligned tables into; `None` when output is not a terminal.
    pub width: Option<usize>,
}

impl Style {
    fn null_text(&self) -> &str {
        self.null_text
            .as_deref()
            .unwrap_or(self.mode.default_null())
    }
}

/// A result column's name and type.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub data_type: DataType,
}

impl Column {
    /// Numbers line up on the right.
    fn right_aligned(&self) -> bool {
        self.data_type.is_numeric()
    }
}

/// Why writing results stopped.
#[derive(Debug)]
pub enum RenderError {
    /// Reading the next row failed (an error in the query, or the statement was cancelled).
    Query(basalt::Error),
    /// Writing failed.
    Io(io::Error),
}

impl From<basalt::Error> for RenderError {
    fn from(error: basalt::Error) -> Self {
        RenderError::Query(error)
    }
}

impl From<io::Error> for RenderError {
    fn from(error: io::Error) -> Self {
        RenderError::Io(error)
    }
}

/// Writes every row of `rows` in `style`.
pub fn write_rows(
    out: &mut dyn Write,
    rows: &mut Rows<'_>,
    columns: &[Column],
    style: &Style,
) -> Result<(), RenderError> {
    match style.mode {
        Mode::Table | Mode::Box | Mode::Markdown => grid::write(out, rows, columns, style),
        Mode::Csv | Mode::Tsv | Mode::Json | Mode::Jsonl | Mode::Line => {
            stream::write(out, rows, columns, style)
        }
    }
}

/// A value as display text: PostgreSQL's text form (`true`, `1.5`, `\x0102` for blobs,
/// `2024-01-31`), NULL as `null_text`.
pub fn value_text(value: ValueRef<'_>, null_text: &str) -> String {
    match value {
        ValueRef::Null => null_text.to_string(),
        ValueRef::Text(text) => text.to_string(),
        other => other.to_owned().to_string(),
    }
}

/// A real as SQL text that reads back as the same double: always with a decimal point or an
/// exponent (so it is not taken for an integer), and the non-finite values and negative zero
/// as quoted strings that cast back. (A literal with a point is NUMERIC, as in PostgreSQL,
/// which a double column takes exactly — but NUMERIC has no negative zero.)
pub fn real_literal(value: f64) -> String {
    let text = Value::Real(value).to_string();
    if !value.is_finite() || (value == 0.0 && value.is_sign_negative()) {
        return format!("'{text}'");
    }
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    }
}
