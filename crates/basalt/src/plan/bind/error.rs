//! Bind errors: what went wrong resolving a statement, with the PostgreSQL SQLSTATE a client
//! would see for the same mistake.
//!
//! Every failure of the binder is one of these; the binder never panics on any input, so a
//! malformed or unsupported statement always reaches the caller as a `BindError`.

use crate::sqlstate::{self, SqlState};

/// A statement that cannot be bound.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BindError {
    /// The SQLSTATE: mostly class 42 (`UNDEFINED_TABLE`, `UNDEFINED_COLUMN`,
    /// `DATATYPE_MISMATCH`, `UNDEFINED_FUNCTION`, `SYNTAX_ERROR`, ...), with
    /// `FEATURE_NOT_SUPPORTED` for unsupported features, class 22 for a literal of the wrong
    /// form or out of range, and class 54 for a statement too complex.
    pub code: SqlState,
    pub message: String,
}

impl BindError {
    /// An error with `code` and `message`.
    pub fn new(code: SqlState, message: impl Into<String>) -> BindError {
        BindError {
            code,
            message: message.into(),
        }
    }

    /// `0A000`: a feature Basalt does not support; `feature` names it.
    pub fn unsupported(feature: impl std::fmt::Display) -> BindError {
        BindError::new(
            sqlstate::FEATURE_NOT_SUPPORTED,
            format!("{feature} is not supported"),
        )
    }

    /// `42601`: structurally invalid SQL that the parser accepted.
    pub fn syntax(message: impl Into<String>) -> BindError {
        BindError::new(sqlstate::SYNTAX_ERROR, message)
    }

    /// `42804`: a type mismatch.
    pub fn mismatch(message: impl Into<String>) -> BindError {
        BindError::new(sqlstate::DATATYPE_MISMATCH, message)
    }

    /// `42883`: no function or operator accepts these argument types.
    pub fn undefined_function(message: impl Into<String>) -> BindError {
        BindError::new(sqlstate::UNDEFINED_FUNCTION, message)
    }

    /// `42803`: an aggregate or grouping misuse.
    pub fn grouping(message: impl Into<String>) -> BindError {
        BindError::new(sqlstate::GROUPING_ERROR, message)
    }
}

/// `message`, followed by a "did you mean" hint when a close name exists.
pub(super) fn with_hint(message: String, nearest: Option<&str>) -> String {
    match nearest {
        Some(name) => format!("{message}; did you mean \"{name}\"?"),
        None => message,
    }
}
