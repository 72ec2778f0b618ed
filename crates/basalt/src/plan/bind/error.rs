//! Bind errors: what went wrong resolving a statement, with the PostgreSQL SQLSTATE a client
//! would see for the same mistake.
//!
//! Every failure of the binder is one of these; the binder never panics on any input, so a
//! malformed or unsupported statement always reaches the caller as a `BindError`.

/// A statement that cannot be bound.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BindError {
    /// The SQLSTATE: `42P01` unknown table, `42703` unknown column, `42702` ambiguous column,
    /// `42804` type mismatch, `42883` unknown function or operator, `42803` grouping error,
    /// `42P10` bad ORDER BY / DISTINCT reference, `42601` invalid structure, `42701` a column
    /// named twice, `42712` a table name used twice in one FROM, `42P07` duplicate object,
    /// `0A000` unsupported feature, `22P02` a literal of the wrong form, `22003` a literal out
    /// of range, `54001` statement too complex.
    pub code: &'static str,
    pub message: String,
}

impl BindError {
    pub fn new(code: &'static str, message: impl Into<String>) -> BindError {
        BindError {
            code,
            message: message.into(),
        }
    }

    /// `0A000`: a feature Basalt does not support; `feature` names it.
    pub fn unsupported(feature: impl std::fmt::Display) -> BindError {
        BindError::new("0A000", format!("{feature} is not supported"))
    }

    /// `42601`: structurally invalid SQL that the parser accepted.
    pub fn syntax(message: impl Into<String>) -> BindError {
        BindError::new("42601", message)
    }

    /// `42804`: a type mismatch.
    pub fn mismatch(message: impl Into<String>) -> BindError {
        BindError::new("42804", message)
    }

    /// `42883`: no function or operator accepts these argument types.
    pub fn undefined_function(message: impl Into<String>) -> BindError {
        BindError::new("42883", message)
    }

    /// `42803`: an aggregate or grouping misuse.
    pub fn grouping(message: impl Into<String>) -> BindError {
        BindError::new("42803", message)
    }
}

/// `message`, followed by a "did you mean" hint when a close name exists.
pub(super) fn with_hint(message: String, nearest: Option<&str>) -> String {
    match nearest {
        Some(name) => format!("{message}; did you mean \"{name}\"?"),
        None => message,
    }
}
