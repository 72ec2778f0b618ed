//! The error type of the public API: every failure, with a SQLSTATE code.

use std::fmt;

use crate::exec::error::ExecError;
use crate::plan::bind::BindError;
use crate::sql::SqlSyntaxError;
use crate::sqlstate::{self, SqlState};
use crate::storage::StorageError;

/// Broad classes of errors, for callers that branch on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The SQL text does not parse (42601).
    Syntax,
    /// The SQL names something that does not exist, or mixes types wrongly (42xxx).
    Semantic,
    /// A constraint was violated (23xxx).
    Constraint,
    /// A value is out of range, malformed, or divides by zero (22xxx).
    Data,
    /// Another transaction holds the write lock, or a snapshot went stale (40xxx, 55xxx).
    Busy,
    /// The API was used wrongly: wrong parameter count, a finished transaction (08P01, 25xxx).
    Misuse,
    /// The file is damaged, unreadable, or the disk is full (XX001, 58030, 53100).
    Storage,
    /// Something Basalt does not support yet (0A000).
    Unsupported,
    /// An internal error: a bug in Basalt (XX000).
    Internal,
}

/// An error from Basalt: a SQLSTATE code, a message, and for syntax errors the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: SqlState,
    message: String,
    /// 1-based line and column of a syntax error.
    position: Option<(u64, u64)>,
    /// The statement with a caret under the error position, for syntax errors.
    caret: Option<String>,
}

impl Error {
    /// An error with `code` and `message`.
    pub fn new(code: SqlState, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            position: None,
            caret: None,
        }
    }

    /// The SQLSTATE code (for example `23505` for a unique violation).
    pub fn code(&self) -> &'static str {
        self.code.code()
    }

    /// The SQLSTATE as a [`SqlState`], to compare with the constants of [`crate::sqlstate`]
    /// (for example `error.sqlstate() == sqlstate::UNIQUE_VIOLATION`).
    pub fn sqlstate(&self) -> SqlState {
        self.code
    }

    /// The message, without the code.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Line and column (1-based) of a syntax error.
    pub fn position(&self) -> Option<(u64, u64)> {
        self.position
    }

    /// For syntax errors: the offending line with a `^` under the position.
    pub fn caret(&self) -> Option<&str> {
        self.caret.as_deref()
    }

    /// The error's class.
    pub fn kind(&self) -> ErrorKind {
        match self.code {
            sqlstate::SYNTAX_ERROR => ErrorKind::Syntax,
            sqlstate::FEATURE_NOT_SUPPORTED => ErrorKind::Unsupported,
            sqlstate::INTERNAL_ERROR => ErrorKind::Internal,
            sqlstate::SERIALIZATION_FAILURE
            | sqlstate::LOCK_NOT_AVAILABLE
            | sqlstate::OBJECT_IN_USE => ErrorKind::Busy,
            // The rest by class: 23 integrity constraints, 21 cardinality and 22 data
            // exceptions, 42 the binder's errors, 08 / 25 / 3B misuse of the API.
            code => match code.class() {
                "23" => ErrorKind::Constraint,
                "21" | "22" => ErrorKind::Data,
                "42" => ErrorKind::Semantic,
                "08" | "25" | "3B" => ErrorKind::Misuse,
                _ => ErrorKind::Storage,
            },
        }
    }

    pub(crate) fn syntax(error: &SqlSyntaxError, sql: &str) -> Self {
        Error {
            code: error.sqlstate(),
            message: error.to_string(),
            position: Some((error.line, error.column)),
            caret: Some(error.caret_display(sql)),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (SQLSTATE {})", self.message, self.code)
    }
}

impl std::error::Error for Error {}

impl From<ExecError> for Error {
    fn from(error: ExecError) -> Self {
        Error::new(error.code, error.message)
    }
}

impl From<StorageError> for Error {
    fn from(error: StorageError) -> Self {
        ExecError::from(error).into()
    }
}

impl From<BindError> for Error {
    fn from(error: BindError) -> Self {
        Error::new(error.code, error.message)
    }
}

/// The result type of the public API.
pub type Result<T, E = Error> = std::result::Result<T, E>;
