//! [`WireError`]: an error as the wire protocol reports it — SQLSTATE, message and, for a
//! syntax error, the 1-based character position in the query string the client sent.
//!
//! Every failure the server reports to a client goes through here: Basalt's own errors
//! ([`basalt::Error`], which carry a SQLSTATE and, for syntax errors, a line and column in
//! the statement text) and the server's protocol errors (a malformed Bind, an unknown
//! portal, a statement in a failed transaction). It becomes pgwire's [`ErrorInfo`] at the
//! edge, so the handlers deal in one value type and never in strings of codes.

use pgwire::error::{ErrorInfo, PgWireError};

/// An error for the client, with PostgreSQL's fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WireError {
    pub(crate) code: &'static str,
    pub(crate) message: String,
    /// 1-based character position in the query string (ErrorResponse's `P` field).
    pub(crate) position: Option<usize>,
    /// ErrorResponse's `W` field: where it happened (`COPY t, line 3`).
    pub(crate) context: Option<String>,
    /// ErrorResponse's `H` field: what to do instead.
    pub(crate) hint: Option<String>,
}

/// 08P01: the client broke the protocol (wrong parameter count, bad format code).
pub(crate) const PROTOCOL_VIOLATION: &str = "08P01";
/// 22P02: a parameter's text is not a value of its type.
pub(crate) const INVALID_TEXT_REPRESENTATION: &str = "22P02";
/// 22P03: a parameter's binary form is not a value of its type.
pub(crate) const INVALID_BINARY_REPRESENTATION: &str = "22P03";
/// 22021: a text parameter is not UTF-8 (the only encoding the server speaks).
pub(crate) const CHARACTER_NOT_IN_REPERTOIRE: &str = "22021";
/// 25P02: a statement other than ROLLBACK in a failed transaction block.
pub(crate) const IN_FAILED_SQL_TRANSACTION: &str = "25P02";
/// 34000: Execute or Describe of a portal that does not exist.
pub(crate) const INVALID_CURSOR_NAME: &str = "34000";
/// 26000: Bind or Describe of a statement that does not exist.
pub(crate) const INVALID_SQL_STATEMENT_NAME: &str = "26000";
/// 42P05: Parse under a name already in use.
pub(crate) const DUPLICATE_PREPARED_STATEMENT: &str = "42P05";
/// 0A000: something the server does not do yet (a type it cannot decode).
pub(crate) const FEATURE_NOT_SUPPORTED: &str = "0A000";
/// 22P04: a malformed line of COPY data (a wrong number of columns, a bad quote).
pub(crate) const BAD_COPY_FILE_FORMAT: &str = "22P04";
/// 57014: the client ended COPY FROM STDIN with CopyFail.
pub(crate) const QUERY_CANCELED: &str = "57014";
/// 08006: the session's thread is gone (it can only end with the connection, or if the
/// engine panicked); the connection closes.
pub(crate) const CONNECTION_FAILURE: &str = "08006";

impl WireError {
    pub(crate) fn new(code: &'static str, message: impl Into<String>) -> Self {
        WireError {
            code,
            message: message.into(),
            position: None,
            context: None,
            hint: None,
        }
    }

    /// Basalt's error for a statement whose text starts at byte `offset` of `query` (the
    /// whole query string the client sent): its line and column become a position in it.
    pub(crate) fn from_basalt(error: &basalt::Error, query: &str, offset: usize) -> Self {
        let position = error
            .position()
            .and_then(|(line, column)| character_position(query, offset, line, column));
        WireError {
            code: error.code(),
            message: error.message().to_owned(),
            position,
            context: None,
            hint: None,
        }
    }

    /// The error the current transaction's failure gives every statement but ROLLBACK.
    pub(crate) fn failed_transaction() -> Self {
        WireError::new(
            IN_FAILED_SQL_TRANSACTION,
            "current transaction is aborted, commands ignored until end of transaction block",
        )
    }

    pub(crate) fn session_gone() -> Self {
        WireError::new(CONNECTION_FAILURE, "the session ended unexpectedly")
    }

    /// pgwire's form, for an ErrorResponse.
    pub(crate) fn into_info(self) -> ErrorInfo {
        // The session's loss ends the connection, as a FATAL error in PostgreSQL does.
        let severity = if self.code == CONNECTION_FAILURE {
            "FATAL"
        } else {
            "ERROR"
        };
        let mut info = ErrorInfo::new(severity.to_owned(), self.code.to_owned(), self.message);
        info.position = self.position.map(|position| position.to_string());
        info.where_context = self.context;
        info.hint = self.hint;
        info
    }

    /// pgwire's error, for a handler that returns it (the connection loop then sends the
    /// ErrorResponse and, in the extended protocol, skips messages until Sync).
    pub(crate) fn into_pgwire(self) -> PgWireError {
        PgWireError::UserError(Box::new(self.into_info()))
    }
}

impl From<basalt::Error> for WireError {
    fn from(error: basalt::Error) -> Self {
        WireError {
            code: error.code(),
            message: error.message().to_owned(),
            position: None,
            context: None,
            hint: None,
        }
    }
}

/// The 1-based character position in `query` of `line`:`column` (1-based, columns counted
/// in characters) of the statement starting at byte `offset`.
fn character_position(query: &str, offset: usize, line: u64, column: u64) -> Option<usize> {
    let statement = query.get(offset..)?;
    let mut position = query.get(..offset)?.chars().count();
    let mut lines = statement.split_inclusive('\n');
    for _ in 1..line {
        position += lines.next()?.chars().count();
    }
    let column = usize::try_from(column).ok()?;
    Some(position + column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_from_the_start_of_the_query() {
        // "SELEC" starts at character 11 of the query.
        let query = "SELECT 1; SELEC 2";
        assert_eq!(character_position(query, 10, 1, 1), Some(11));
        let query = "SELECT 'é';\nSELECT\n  oops";
        let offset = query.find("SELECT\n").unwrap_or(0);
        // Line 2, column 3 of the second statement: the `o` of `oops`.
        let position = character_position(query, offset, 2, 3).unwrap_or(0);
        assert_eq!(query.chars().nth(position - 1), Some('o'));
    }
}
