//! The error type of the public API: every failure, with a SQLSTATE code.

use std::fmt;

use crate::exec::error::ExecError;
use crate::plan::bind::BindError;
use crate::sql::SqlSyntaxError;
use crate::sqlstate::{self, SqlState};
use crate::storage::StorageError;

/// Broad classes of errors, for callers that branch on them. Every SQLSTATE Basalt raises
/// falls in exactly one ([`Error::kind`]); more kinds may come, so matches need a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The SQL text does not parse (42601).
    Syntax,
    /// The SQL names something that does not exist, mixes types wrongly, or would leave
    /// objects depending on a dropped one (42xxx, 2BP01).
    Semantic,
    /// A constraint was violated, or a trigger raised an error (23xxx, P0001).
    Constraint,
    /// A value is out of range, malformed, divides by zero, or exceeds one of Basalt's
    /// limits (21000, 22xxx, 54xxx).
    Data,
    /// Another transaction holds the write lock, another process holds the file, or a
    /// snapshot went stale (40001, 55006, 55P03).
    Busy,
    /// The API was used wrongly: wrong parameter count, a finished transaction, an unknown
    /// savepoint, `currval` before `nextval` (08P01, 25xxx, 3B001, 55000).
    Misuse,
    /// `query_row` found no row (P0002).
    NotFound,
    /// The statement was interrupted through its `InterruptHandle` (57014).
    Interrupted,
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
            sqlstate::RAISE_EXCEPTION => ErrorKind::Constraint,
            sqlstate::NO_DATA_FOUND => ErrorKind::NotFound,
            sqlstate::OBJECT_NOT_IN_PREREQUISITE_STATE => ErrorKind::Misuse,
            // The rest by class: 23 integrity constraints, 21 cardinality and 22 data
            // exceptions, 54 Basalt's limits, 42, 2B and 3F (a schema that does not exist)
            // the binder's errors, 08 / 25 / 26 /
            // 34 / 3B misuse of the API (a transaction, statement, portal or savepoint used
            // wrongly or by a wrong name), 57 an interrupt; 53, 58 and XX001 are the storage's.
            code => match code.class() {
                "23" => ErrorKind::Constraint,
                "21" | "22" | "54" => ErrorKind::Data,
                "42" | "2B" | "3F" => ErrorKind::Semantic,
                "08" | "25" | "26" | "34" | "3B" => ErrorKind::Misuse,
                "57" => ErrorKind::Interrupted,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the storage's own codes are storage errors: a code that falls through the
    /// class match by mistake would tell a caller the file is damaged.
    #[test]
    fn only_storage_codes_are_storage_errors() {
        for &code in sqlstate::ALL {
            let kind = Error::new(code, "").kind();
            let storage = matches!(code.class(), "53" | "58") || code == sqlstate::DATA_CORRUPTED;
            assert_eq!(kind == ErrorKind::Storage, storage, "{code} is {kind:?}");
        }
        let kind = |code| Error::new(code, "").kind();
        assert_eq!(kind(sqlstate::QUERY_CANCELED), ErrorKind::Interrupted);
        assert_eq!(kind(sqlstate::NO_DATA_FOUND), ErrorKind::NotFound);
        assert_eq!(kind(sqlstate::RAISE_EXCEPTION), ErrorKind::Constraint);
        assert_eq!(kind(sqlstate::PROGRAM_LIMIT_EXCEEDED), ErrorKind::Data);
        assert_eq!(
            kind(sqlstate::DEPENDENT_OBJECTS_STILL_EXIST),
            ErrorKind::Semantic
        );
        assert_eq!(kind(sqlstate::UNIQUE_VIOLATION), ErrorKind::Constraint);
        assert_eq!(kind(sqlstate::LOCK_NOT_AVAILABLE), ErrorKind::Busy);
        assert_eq!(kind(sqlstate::DATA_CORRUPTED), ErrorKind::Storage);
        assert_eq!(kind(sqlstate::INVALID_CURSOR_NAME), ErrorKind::Misuse);
        assert_eq!(
            kind(sqlstate::INVALID_SQL_STATEMENT_NAME),
            ErrorKind::Misuse
        );
    }
}
