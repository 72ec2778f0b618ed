//! The modes of `BEGIN` / `START TRANSACTION` and `SET TRANSACTION`: PostgreSQL's isolation
//! levels and access modes, read from sqlparser's AST into [`TransactionModes`]. The session
//! applies them (`api/session/transaction.rs`).

use sqlparser::ast;

use crate::plan::ddl::{IsolationLevel, TransactionModes};

use super::error::BindError;

/// The modes of a BEGIN or SET TRANSACTION. A mode given twice takes the last value, as in
/// PostgreSQL; `ISOLATION LEVEL SNAPSHOT` (SQL Server's) is 42601.
pub(super) fn transaction_modes(
    modes: &[ast::TransactionMode],
) -> Result<TransactionModes, BindError> {
    let mut result = TransactionModes::default();
    for mode in modes {
        match mode {
            ast::TransactionMode::IsolationLevel(level) => {
                let level = match level {
                    ast::TransactionIsolationLevel::ReadUncommitted => {
                        IsolationLevel::ReadUncommitted
                    }
                    ast::TransactionIsolationLevel::ReadCommitted => IsolationLevel::ReadCommitted,
                    ast::TransactionIsolationLevel::RepeatableRead => {
                        IsolationLevel::RepeatableRead
                    }
                    ast::TransactionIsolationLevel::Serializable => IsolationLevel::Serializable,
                    ast::TransactionIsolationLevel::Snapshot => {
                        return Err(BindError::syntax("syntax error at or near \"SNAPSHOT\""));
                    }
                };
                result.isolation = Some(level);
            }
            ast::TransactionMode::AccessMode(access) => {
                result.read_only = Some(matches!(access, ast::TransactionAccessMode::ReadOnly));
            }
        }
    }
    Ok(result)
}
