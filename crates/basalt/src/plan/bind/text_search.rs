//! Binding `bm25_score(column, query)`: the score needs the statistics of the whole column
//! it ranks (document count, mean length, how many documents hold each query term), so the
//! call is bound to the stored column itself — the executor scans it once per execution
//! (`exec/eval_text_search.rs`).
//!
//! What it guarantees: the first argument is a text column read unchanged from a table
//! (through any joins, but not a computed value or a derived table's expression: 0A000
//! otherwise); the query is a constant or a parameter, the same for every row (0A000
//! otherwise), bound as text. The bound call carries the table's root page and the column's
//! slot as two further constant arguments, as a scan node carries its table.

use sqlparser::ast;

use super::Binder;
use super::error::BindError;
use super::scope::Scope;
use crate::plan::{Expr, ScalarFunctionRef};
use crate::types::{DataType, Value};

/// The function's name, in SQL and in the bound call.
pub(super) const BM25_SCORE: &str = crate::types::text_search::bm25::FUNCTION;

impl Binder<'_> {
    /// `bm25_score(column, query)`, its two arguments bound from `asts` over `scope`.
    pub(super) fn bind_bm25_score(
        &mut self,
        bound: Vec<Expr>,
        asts: &[&ast::Expr],
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let mut bound = bound.into_iter();
        let (Some(column), Some(query), None) = (bound.next(), bound.next(), bound.next()) else {
            return Err(BindError::undefined_function(format!(
                "function {BM25_SCORE} takes two arguments, a text column and a query"
            )));
        };
        let source = match &column {
            Expr::Column { index, .. } => scope
                .columns
                .get(*index)
                .and_then(|scope_column| scope_column.source.clone()),
            _ => None,
        };
        let Some(source) = source else {
            return Err(BindError::unsupported(format!(
                "{BM25_SCORE}'s first argument must be a column of a table (it ranks against \
                 the whole column)"
            )));
        };
        let (root, slot) = self
            .catalog
            .table(&source.table)
            .and_then(|table| {
                let column = table.columns.get(source.column)?;
                Some((table.root, column.slot))
            })
            .ok_or_else(|| {
                BindError::unsupported(format!(
                    "{BM25_SCORE}'s first argument must be a column of a table"
                ))
            })?;
        if !column.data_type().is_text() {
            return Err(BindError::undefined_function(format!(
                "function {BM25_SCORE}({}, ...) does not exist: the column must be text",
                column.data_type()
            )));
        }
        let query = self.resolve_untyped(query, asts[1], DataType::Text(None))?;
        if !matches!(query, Expr::Literal { .. } | Expr::Parameter { .. })
            || !matches!(query.data_type(), DataType::Text(_) | DataType::Null)
        {
            return Err(BindError::unsupported(format!(
                "{BM25_SCORE}'s query must be a text constant or parameter"
            )));
        }
        let constant = |value: i64| Expr::Literal {
            value: Value::Integer(value),
            data_type: DataType::Integer,
        };
        Ok(Expr::Function {
            function: ScalarFunctionRef {
                name: BM25_SCORE.into(),
                volatile: false,
            },
            args: vec![
                column,
                query,
                constant(i64::from(root)),
                constant(slot as i64),
            ],
            data_type: DataType::Real,
        })
    }
}
