//! Binding `bm25_score(column, query)`: the score needs the statistics of the whole column
//! it ranks (document count, mean length, how many documents hold each query term), so the
//! call is bound to the stored column itself — the executor scans it once per execution
//! (`exec/eval_text_search.rs`).
//!
//! What it guarantees: the first argument is a text column read unchanged from a table
//! (through any joins, but not a computed value or a derived table's expression: 0A000
//! otherwise); the query is a constant or a parameter, the same for every row (0A000
//! otherwise), bound as text. The bound call carries the table's root page, the column's
//! slot, the root of the column's full-text index (0 without one: the statistics then come
//! from a scan) and its analyzer's options as four further constant arguments, as a scan
//! node carries its table.
//!
//! `fts_match`, `fts_highlight` and `fts_snippet` over a column with a full-text index are
//! given that index's analyzer options as their last argument (after the defaults of the
//! optional ones), so a scan matches exactly what the index would.

use sqlparser::ast;

use super::Binder;
use super::error::BindError;
use super::scope::Scope;
use std::sync::Arc;

use crate::catalog::{IndexDef, IndexMethod};
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
        let index = self.full_text_index(&column, scope);
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
                constant(index.as_ref().map_or(0, |index| i64::from(index.root))),
                text(
                    index
                        .as_deref()
                        .map(crate::exec::index_access::fts::analyzer_options)
                        .unwrap_or_default(),
                ),
            ],
            data_type: DataType::Real,
        })
    }
}

/// A text constant.
fn text(value: String) -> Expr {
    Expr::Literal {
        value: Value::Text(value),
        data_type: DataType::Text(None),
    }
}

/// How many arguments `fts_match`, `fts_highlight` and `fts_snippet` take before the
/// analyzer options, and the defaults of the optional ones among them.
fn options_position(name: &str) -> Option<(usize, &'static [&'static str])> {
    match name {
        "fts_match" => Some((2, &[])),
        "fts_highlight" => Some((4, &[])),
        "fts_snippet" => Some((6, &["<b>", "</b>", "...", "10"])),
        _ => None,
    }
}

impl Binder<'_> {
    /// The full-text index on the table column `column` reads, if it is one.
    pub(super) fn full_text_index(&self, column: &Expr, scope: &Scope) -> Option<Arc<IndexDef>> {
        let Expr::Column { index, .. } = column else {
            return None;
        };
        let source = scope.columns.get(*index)?.source.clone()?;
        self.catalog
            .indexes_of(&source.table)
            .find(|index| {
                index.method == IndexMethod::Fts
                    && index.columns.first().map(|(c, _)| *c) == Some(source.column)
            })
            .cloned()
    }

    /// `bound` (the arguments of `fts_match`, `fts_highlight` or `fts_snippet`) with the
    /// analyzer options of the first argument's full-text index appended, when it has one
    /// and the call gives no options of its own.
    pub(super) fn add_full_text_options(&self, name: &str, bound: &mut Vec<Expr>, scope: &Scope) {
        let Some((position, defaults)) = options_position(name) else {
            return;
        };
        let Some(index) = bound.first().and_then(|c| self.full_text_index(c, scope)) else {
            return;
        };
        if bound.len() > position || bound.len() < position - defaults.len() {
            return;
        }
        let first_default = position - defaults.len();
        while bound.len() < position {
            let default = defaults[bound.len() - first_default];
            bound.push(match default.parse::<i64>() {
                Ok(n) => Expr::Literal {
                    value: Value::Integer(n),
                    data_type: DataType::Integer,
                },
                Err(_) => text(default.to_owned()),
            });
        }
        bound.push(text(crate::exec::index_access::fts::analyzer_options(
            &index,
        )));
    }
}
