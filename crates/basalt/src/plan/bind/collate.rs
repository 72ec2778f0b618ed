//! `COLLATE`: the collations Basalt knows and how a collated expression is bound.
//!
//! Text compares byte-wise (PostgreSQL's `"C"` collation, also reachable as `POSIX`, SQLite's
//! `BINARY` and `default`); `expr COLLATE "C"` is therefore `expr` itself. The one other
//! collation is SQLite's `NOCASE`, which folds the ASCII letters A–Z to lower case before
//! comparing. Rather than threading a collation through every comparison, sort and hash in
//! the executor, `expr COLLATE NOCASE` binds to `collate_nocase(expr)`: the folded text. Every
//! consumer that compares values — `=`/`<`/..., ORDER BY, GROUP BY, DISTINCT — then behaves
//! case-insensitively without knowing about collations, at the price that the *value* of the
//! expression is the folded text (`SELECT 'ABC' COLLATE NOCASE` shows `abc`).
//!
//! A comparison with a NOCASE operand folds the other operand too (`name COLLATE NOCASE =
//! 'ABC'` is `collate_nocase(name) = collate_nocase('ABC')`), as the SQL rule that one
//! operand's explicit collation governs the comparison requires.
//!
//! Folding also keeps such comparisons away from index ranges: the optimizer only turns
//! `column op value` with a *bare* column into a key range (and may drop the comparison from
//! the filter when the range enforces it), and `collate_nocase(column)` is a function call,
//! so a NOCASE comparison is always evaluated as written against every candidate row.
//!
//! A column's declared collation (`name TEXT COLLATE NOCASE`) would have to live in the
//! catalog and reach every comparison of the column; Basalt accepts the binary names there
//! and refuses NOCASE (0A000). Unknown collation names are 42704, a collation on a non-text
//! value 42804, as in PostgreSQL.

use sqlparser::ast;

use crate::plan::expr::Expr;
use crate::sqlstate;
use crate::types::DataType;

use super::Binder;
use super::error::BindError;
use super::scope::Scope;

/// A collation Basalt supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Collation {
    /// Byte-wise comparison of UTF-8 text, the default.
    Binary,
    /// ASCII case-insensitive comparison (SQLite's NOCASE).
    NoCase,
}

/// Resolves a collation name; names are matched case-insensitively (SQLite's are, and the
/// PostgreSQL names Basalt accepts have no case variants that mean something else).
pub(super) fn collation(name: &ast::ObjectName) -> Result<Collation, BindError> {
    let spelled = super::object_name(name)?;
    match spelled.to_ascii_lowercase().as_str() {
        "c" | "posix" | "binary" | "default" | "ucs_basic" => Ok(Collation::Binary),
        "nocase" => Ok(Collation::NoCase),
        _ => Err(BindError::new(
            sqlstate::UNDEFINED_OBJECT,
            format!("collation \"{spelled}\" for encoding \"UTF8\" does not exist"),
        )),
    }
}

/// Whether `expr` (under any parentheses) is `... COLLATE NOCASE`.
pub(super) fn is_nocase(expr: &ast::Expr) -> bool {
    match expr {
        ast::Expr::Nested(inner) => is_nocase(inner),
        ast::Expr::Collate {
            collation: name, ..
        } => {
            matches!(collation(name), Ok(Collation::NoCase))
        }
        _ => false,
    }
}

impl Binder<'_> {
    /// Binds `expr COLLATE name`.
    pub(super) fn bind_collate(
        &mut self,
        expr: &ast::Expr,
        name: &ast::ObjectName,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let collation = collation(name)?;
        let bound = self.bind_expr(expr, scope)?;
        self.apply_collation(bound, expr, collation)
    }

    /// Applies a collation to an already bound operand: binary is the value itself, NOCASE
    /// its folded form. Untyped literals are text; other non-text types are 42804.
    pub(super) fn apply_collation(
        &mut self,
        bound: Expr,
        ast: &ast::Expr,
        collation: Collation,
    ) -> Result<Expr, BindError> {
        let data_type = bound.data_type();
        if !matches!(data_type, DataType::Text(_) | DataType::Null) {
            return Err(BindError::new(
                sqlstate::DATATYPE_MISMATCH,
                format!("collations are not supported by type {data_type}"),
            ));
        }
        let bound = self.resolve_untyped(bound, ast, DataType::Text(None))?;
        match collation {
            Collation::Binary => Ok(bound),
            Collation::NoCase => self.call_scalar("collate_nocase", vec![bound]),
        }
    }

    /// For a comparison: when one operand is explicitly NOCASE, folds the other as well.
    pub(super) fn collate_comparison(
        &mut self,
        left: (Expr, &ast::Expr),
        right: (Expr, &ast::Expr),
    ) -> Result<(Expr, Expr), BindError> {
        let (left_nocase, right_nocase) = (is_nocase(left.1), is_nocase(right.1));
        let left_bound = if right_nocase && !left_nocase {
            self.apply_collation(left.0, left.1, Collation::NoCase)?
        } else {
            left.0
        };
        let right_bound = if left_nocase && !right_nocase {
            self.apply_collation(right.0, right.1, Collation::NoCase)?
        } else {
            right.0
        };
        Ok((left_bound, right_bound))
    }
}
