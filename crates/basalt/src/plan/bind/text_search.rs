//! Binding the full-text functions' documents. `bm25_score(column, query)` needs the
//! statistics of the whole column it ranks (document count, mean length, how many documents
//! hold each query term), so the call is bound to the stored column itself — the executor
//! reads them from the column's full-text index or scans the column once per execution
//! (`exec/eval_text_search.rs`). A row of columns, `bm25_score((title, body), query)` or
//! `fts_match((title, body), query)`, is one document of their texts, as a full-text index
//! over those columns indexes it (`Analyzer::analyze_texts`).
//!
//! What it guarantees: `bm25_score`'s first argument is a text column read unchanged from a
//! table, or a row of such columns of one table (through any joins, but not a computed value
//! or a derived table's expression: 0A000 otherwise); the query is a constant or a parameter,
//! the same for every row (0A000 otherwise), bound as text. The bound call is
//! `bm25_score(query, table root, index root, options, text, slot [, text, slot ...])`: the
//! table's root page, the root of a full-text index over exactly those columns (0 without
//! one: the statistics then come from a scan), the analyzer's options, and each text with
//! the slot the scan reads it from — as a scan node carries its table.
//!
//! `fts_match`, `fts_highlight` and `fts_snippet` over a column with a full-text index are
//! given that index's analyzer options as their last argument (after the defaults of the
//! optional ones), so a scan matches exactly what the index would; `fts_match` over a row is
//! bound as `fts_match(text, ..., query, options)`, the options always given.

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
    /// `bm25_score(column, query)` or `bm25_score((column, ...), query)`: the texts (one, or
    /// the items of a row) and the query bound from `asts` over `scope`.
    pub(super) fn bind_bm25_score(
        &mut self,
        texts: Vec<Expr>,
        query: (Expr, &ast::Expr),
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let mut table = None;
        let mut slots = Vec::with_capacity(texts.len());
        for text in &texts {
            let source = match text {
                Expr::Column { index, .. } => scope
                    .columns
                    .get(*index)
                    .and_then(|scope_column| scope_column.source.clone()),
                _ => None,
            };
            let Some(source) = source else {
                return Err(BindError::unsupported(format!(
                    "{BM25_SCORE}'s first argument must be a column of a table, or a row of \
                     columns of one table (it ranks against the whole column)"
                )));
            };
            if table.as_ref().is_some_and(|table| *table != source.table) {
                return Err(BindError::unsupported(format!(
                    "{BM25_SCORE}'s columns must be of one table"
                )));
            }
            let slot = self
                .catalog
                .table(&source.table)
                .and_then(|table| Some(table.columns.get(source.column)?.slot))
                .ok_or_else(|| {
                    BindError::unsupported(format!(
                        "{BM25_SCORE}'s first argument must be a column of a table"
                    ))
                })?;
            if !text.data_type().is_text() {
                return Err(BindError::undefined_function(format!(
                    "function {BM25_SCORE}({}, ...) does not exist: the column must be text",
                    text.data_type()
                )));
            }
            slots.push(slot);
            table = Some(source.table);
        }
        let root = table
            .as_ref()
            .and_then(|table| self.catalog.table(table))
            .map_or(0, |table| table.root);
        let query = self.resolve_untyped(query.0, query.1, DataType::Text(None))?;
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
        let index = self.full_text_index(&texts, scope);
        // Statistics come from an index of exactly these columns: one with more columns
        // counts other words.
        let index_root = match &index {
            Some((index, true)) => i64::from(index.root),
            _ => 0,
        };
        let options = index
            .as_ref()
            .map(|(index, _)| crate::exec::index_access::fts::analyzer_options(index))
            .unwrap_or_default();
        let mut args = vec![
            query,
            constant(i64::from(root)),
            constant(index_root),
            text(options),
        ];
        for (text, slot) in texts.into_iter().zip(slots) {
            args.push(text);
            args.push(constant(slot as i64));
        }
        Ok(Expr::Function {
            function: ScalarFunctionRef {
                name: BM25_SCORE.into(),
                volatile: false,
            },
            args,
            data_type: DataType::Real,
        })
    }

    /// A full-text function whose first argument is a row, `(title, body)`: its texts are one
    /// document, as a full-text index over those columns makes it. `fts_match` is bound with
    /// the texts first, then the query and the analyzer options (always given: the options
    /// of an index over exactly these columns, the call's own, or the default analyzer's);
    /// `bm25_score` as [`Binder::bind_bm25_score`] binds it. The display functions mark one
    /// text: they refuse a row.
    pub(super) fn bind_full_text_row(
        &mut self,
        name: &str,
        items: &[ast::Expr],
        rest: &[&ast::Expr],
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        if name != "fts_match" && name != BM25_SCORE {
            return Err(BindError::undefined_function(format!(
                "function {name} takes one text, not a row: call it on each column"
            )));
        }
        let mut texts = Vec::with_capacity(items.len());
        for item in items {
            let bound = self.bind_expr(item, scope)?;
            let bound = self.type_if_untyped(bound, item, DataType::Text(None))?;
            if !matches!(bound.data_type(), DataType::Text(_) | DataType::Null) {
                return Err(BindError::undefined_function(format!(
                    "function {name}(row, ...) does not exist: each item of the row must be \
                     text, not {}",
                    bound.data_type()
                )));
            }
            texts.push(bound);
        }
        let mut rest_bound = Vec::with_capacity(rest.len());
        for ast in rest {
            let bound = self.bind_expr(ast, scope)?;
            rest_bound.push(self.type_if_untyped(bound, ast, DataType::Text(None))?);
        }
        if name == BM25_SCORE {
            let ([query], [query_ast]) = (rest_bound.as_slice(), rest) else {
                return Err(BindError::undefined_function(format!(
                    "function {BM25_SCORE} takes two arguments, a text column (or a row of \
                     them) and a query"
                )));
            };
            return self.bind_bm25_score(texts, (query.clone(), query_ast), scope);
        }
        if !(1..=2).contains(&rest_bound.len())
            || rest_bound
                .iter()
                .any(|arg| !matches!(arg.data_type(), DataType::Text(_) | DataType::Null))
        {
            return Err(BindError::undefined_function(
                "function fts_match takes a text (or a row of them), a query and optionally \
                 analyzer options, all text",
            ));
        }
        if rest_bound.len() == 1 {
            let options = self
                .full_text_index(&texts, scope)
                .filter(|(_, exact)| *exact)
                .map(|(index, _)| crate::exec::index_access::fts::analyzer_options(&index))
                .unwrap_or_default();
            rest_bound.push(text(options));
        }
        texts.extend(rest_bound);
        Ok(Expr::Function {
            function: ScalarFunctionRef {
                name: "fts_match".into(),
                volatile: false,
            },
            args: texts,
            data_type: DataType::Boolean,
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

/// Whether `name` is a full-text function whose first argument is a document, which may
/// be a row of texts (`fts_match((title, body), query)`).
pub(super) fn takes_document(name: &str) -> bool {
    matches!(
        name,
        "fts_match" | BM25_SCORE | "fts_highlight" | "fts_snippet" | "fts_terms"
    )
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
    /// The full-text index for a call over `texts`, when they are columns of one table: an
    /// index over exactly those columns (in any order: the document is the same) with
    /// `true`, else, for one column, an index that includes it (its analyzer is the one to
    /// match or mark that column's text with) with `false`.
    pub(super) fn full_text_index(
        &self,
        texts: &[Expr],
        scope: &Scope,
    ) -> Option<(Arc<IndexDef>, bool)> {
        let mut table = None;
        let mut columns = Vec::with_capacity(texts.len());
        for text in texts {
            let Expr::Column { index, .. } = text else {
                return None;
            };
            let source = scope.columns.get(*index)?.source.clone()?;
            if table.as_ref().is_some_and(|table| *table != source.table) {
                return None;
            }
            columns.push(source.column);
            table = Some(source.table);
        }
        columns.sort_unstable();
        let table = table?;
        let indexes = || {
            self.catalog
                .indexes_of(&table)
                .filter(|index| index.method == IndexMethod::Fts)
        };
        if let Some(index) =
            indexes().find(|index| crate::exec::index_access::fts::indexes_exactly(index, &columns))
        {
            return Some((Arc::clone(index), true));
        }
        match columns.as_slice() {
            [column] => indexes()
                .find(|index| index.columns.iter().any(|(c, _)| c == column))
                .map(|index| (Arc::clone(index), false)),
            _ => None,
        }
    }

    /// `bound` (the arguments of `fts_match`, `fts_highlight` or `fts_snippet`) with the
    /// analyzer options of the first argument's full-text index appended, when it has one
    /// and the call gives no options of its own.
    pub(super) fn add_full_text_options(&self, name: &str, bound: &mut Vec<Expr>, scope: &Scope) {
        let Some((position, defaults)) = options_position(name) else {
            return;
        };
        let Some((index, _)) = bound
            .first()
            .and_then(|text| self.full_text_index(std::slice::from_ref(text), scope))
        else {
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
