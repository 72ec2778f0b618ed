//! What an import found: the values that did not fit their columns, the rows that were
//! refused, the schema objects Basalt would not create, and the notes on what was copied
//! differently. Every problem is kept (counted) and the first [`PROBLEMS_SHOWN`] are listed
//! in full, so nothing is dropped silently.

use std::fmt;

/// Problems listed one by one in the summary; the rest are counted.
pub const PROBLEMS_SHOWN: usize = 50;

/// What to do with a value that does not fit its column (`--on-error`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OnError {
    /// Stop, and leave the target without any of the import
    Stop,
    /// Leave the row out and go on
    SkipRow,
    /// Store NULL in the column instead and go on (the row is left out if NULL is refused)
    Null,
}

impl OnError {
    pub fn parse(word: &str) -> Option<OnError> {
        match word {
            "stop" => Some(OnError::Stop),
            "skip-row" => Some(OnError::SkipRow),
            "null" => Some(OnError::Null),
            _ => None,
        }
    }
}

/// A value or row that did not load as it was in SQLite.
#[derive(Clone, Debug)]
pub struct Problem {
    pub table: String,
    /// SQLite's row id (None for a WITHOUT ROWID table).
    pub rowid: Option<i64>,
    /// The column, when the problem is one value's.
    pub column: Option<String>,
    /// The value as SQLite held it, e.g. `text 'abc'`.
    pub value: Option<String>,
    pub reason: String,
    /// What was done: "row skipped", "stored NULL", "import stopped".
    pub action: &'static str,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "table {}", self.table)?;
        match self.rowid {
            Some(rowid) => write!(f, ", row {rowid}")?,
            None => write!(f, ", a row")?,
        }
        if let Some(column) = &self.column {
            write!(f, ", column {column}")?;
        }
        if let Some(value) = &self.value {
            write!(f, ": {value}")?;
        }
        write!(f, ": {} ({})", self.reason, self.action)
    }
}

#[derive(Default)]
pub struct Report {
    pub problems: Vec<Problem>,
    /// Schema objects not created, with Basalt's error.
    pub refused: Vec<String>,
    pub notes: Vec<String>,
    pub tables: usize,
    pub rows: u64,
    pub skipped_rows: u64,
    pub nulled_values: u64,
    pub created: Vec<String>,
}

impl Report {
    /// The summary printed at the end, one line a string.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        lines.push(format!(
            "Imported {} table{} and {} row{} ({}).",
            self.tables,
            plural(self.tables as u64),
            self.rows,
            plural(self.rows),
            if self.created.is_empty() {
                "no indexes, views or triggers".to_string()
            } else {
                self.created.join(", ")
            }
        ));
        for note in &self.notes {
            lines.push(format!("note: {note}"));
        }
        for refused in &self.refused {
            lines.push(format!("not created: {refused}"));
        }
        if !self.problems.is_empty() {
            lines.push(format!(
                "{} problem{} with values ({} row{} skipped, {} value{} stored as NULL):",
                self.problems.len(),
                plural(self.problems.len() as u64),
                self.skipped_rows,
                plural(self.skipped_rows),
                self.nulled_values,
                plural(self.nulled_values)
            ));
            for problem in self.problems.iter().take(PROBLEMS_SHOWN) {
                lines.push(format!("  {problem}"));
            }
            if self.problems.len() > PROBLEMS_SHOWN {
                lines.push(format!(
                    "  ... and {} more ({} in all)",
                    self.problems.len() - PROBLEMS_SHOWN,
                    self.problems.len()
                ));
            }
        }
        lines
    }
}

pub fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}
