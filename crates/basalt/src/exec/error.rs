//! Errors raised while executing a statement, each with a SQLSTATE code.

use crate::plan::bind::BindError;
use crate::storage::StorageError;

/// An execution error: a SQLSTATE code and a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExecError {
    pub code: &'static str,
    pub message: String,
}

impl ExecError {
    /// An error with `code` and `message`.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        ExecError {
            code,
            message: message.into(),
        }
    }

    /// A violated invariant of the engine itself (a bug, reported rather than panicking).
    pub fn internal(message: impl Into<String>) -> Self {
        ExecError::new("XX000", message)
    }
}

/// Stored SQL (a CHECK, a view) that fails to bind during execution keeps its code.
impl From<BindError> for ExecError {
    fn from(error: BindError) -> Self {
        ExecError::new(error.code, error.message)
    }
}

impl From<StorageError> for ExecError {
    fn from(error: StorageError) -> Self {
        let code = match &error {
            StorageError::Io { .. } => "58030",
            StorageError::DiskFull { .. } => "53100",
            StorageError::Corrupt { .. } | StorageError::NotADatabase { .. } => "XX001",
            StorageError::LockedByAnotherProcess { .. } => "55006",
            StorageError::Busy { .. } => "55P03",
            StorageError::KeyTooLarge { .. } | StorageError::RowTooWide { .. } => "54000",
            StorageError::InvalidArgument(_) => "22023",
            StorageError::Poisoned(_) => "58030",
        };
        ExecError::new(code, error.to_string())
    }
}

/// The result type of execution.
pub type ExecResult<T> = Result<T, ExecError>;
