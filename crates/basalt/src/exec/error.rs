//! Errors raised while executing a statement, each with a SQLSTATE code.

use crate::plan::bind::BindError;
use crate::sqlstate::{self, SqlState};
use crate::storage::StorageError;

/// An execution error: a SQLSTATE code and a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExecError {
    pub code: SqlState,
    pub message: String,
}

impl ExecError {
    /// An error with `code` and `message`.
    pub fn new(code: SqlState, message: impl Into<String>) -> Self {
        ExecError {
            code,
            message: message.into(),
        }
    }

    /// A violated invariant of the engine itself (a bug, reported rather than panicking).
    pub fn internal(message: impl Into<String>) -> Self {
        ExecError::new(sqlstate::INTERNAL_ERROR, message)
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
            StorageError::Io { .. } => sqlstate::IO_ERROR,
            StorageError::DiskFull { .. } => sqlstate::DISK_FULL,
            StorageError::Corrupt { .. } | StorageError::NotADatabase { .. } => {
                sqlstate::DATA_CORRUPTED
            }
            StorageError::LockedByAnotherProcess { .. } => sqlstate::OBJECT_IN_USE,
            StorageError::Busy { .. } => sqlstate::LOCK_NOT_AVAILABLE,
            StorageError::KeyTooLarge { .. } | StorageError::RowTooWide { .. } => {
                sqlstate::PROGRAM_LIMIT_EXCEEDED
            }
            StorageError::InvalidArgument(_) => sqlstate::INVALID_PARAMETER_VALUE,
            StorageError::Poisoned(_) => sqlstate::IO_ERROR,
        };
        ExecError::new(code, error.to_string())
    }
}

/// The result type of execution.
pub type ExecResult<T> = Result<T, ExecError>;
