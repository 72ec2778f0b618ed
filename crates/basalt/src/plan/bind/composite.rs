//! Composite values, flattened into their fields. Basalt has no row (composite) type; the
//! one composite-returning function clients call is `information_schema._pg_expandarray(a)`,
//! PostgreSQL's `(x, n)` rows of an array's elements and their 1-based positions, which
//! pgjdbc's `getPrimaryKeys` calls in a SELECT list and reads through a derived table:
//!
//! ```sql
//! SELECT ... FROM (SELECT (information_schema._pg_expandarray(con.conkey)).n AS key_seq,
//!                         information_schema._pg_expandarray(con.conkey) AS keys, ...)
//!   result WHERE result.a_attnum = (result.keys).x
//! ```
//!
//! The rules, applied to a SELECT list before it is bound:
//!
//! - `(f(a)).x` and `(f(a)).n` are the fields themselves: `unnest(a)` and
//!   `generate_subscripts(a, 1) - array_lower(a, 1) + 1`, set-returning calls that then run in
//!   lockstep (`array.rs`), as PostgreSQL runs several calls of one SELECT list.
//! - A bare `f(a) AS keys` (a composite column) becomes one column per field, named
//!   `keys.x` and `keys.n`.
//! - Field access on a column, `(result.keys).x` (bound in `array.rs`'s subscript binding),
//!   reads the column named `keys.x` of `result`.
//!
//! What differs from PostgreSQL: `SELECT *` over such a derived table shows the field
//! columns, not one composite column, and a composite column cannot be output as a value.

use std::ops::ControlFlow;

use sqlparser::ast;

use super::error::BindError;
use super::ident_name;
use crate::sqlstate;

/// The composite-returning function and its fields, in order.
const EXPANDARRAY: &str = "_pg_expandarray";
const FIELDS: [&str; 2] = ["x", "n"];

/// The array argument of a call of `[information_schema.]_pg_expandarray(a)`.
fn expandarray_argument(expr: &ast::Expr) -> Option<&ast::Expr> {
    let ast::Expr::Function(function) = strip_nested(expr) else {
        return None;
    };
    let parts: Vec<String> = function
        .name
        .0
        .iter()
        .filter_map(|part| part.as_ident().map(ident_name))
        .collect();
    let named = match parts.as_slice() {
        [name] => name == EXPANDARRAY,
        [schema, name] => schema == "information_schema" && name == EXPANDARRAY,
        _ => false,
    };
    if !named || function.over.is_some() {
        return None;
    }
    match &function.args {
        ast::FunctionArguments::List(list) if list.clauses.is_empty() => match list.args.as_slice()
        {
            [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(array))] => Some(array),
            _ => None,
        },
        _ => None,
    }
}

fn strip_nested(mut expr: &ast::Expr) -> &ast::Expr {
    while let ast::Expr::Nested(inner) = expr {
        expr = inner;
    }
    expr
}

/// Field `field` of `_pg_expandarray(array)` as an expression.
fn field_expr(array: &ast::Expr, field: &str) -> Result<ast::Expr, BindError> {
    let text = match field {
        "x" => format!("unnest({array})"),
        "n" => format!("generate_subscripts({array}, 1) - array_lower({array}, 1) + 1"),
        other => {
            return Err(BindError::new(
                sqlstate::UNDEFINED_COLUMN,
                format!("could not identify column \"{other}\" in record data type"),
            ));
        }
    };
    super::array::parse_expression(&text)
}

/// The field name of a one-step dot access, `(...).name`.
fn dot_field(chain: &[ast::AccessExpr]) -> Option<String> {
    match chain {
        [ast::AccessExpr::Dot(ast::Expr::Identifier(field))] => Some(ident_name(field)),
        _ => None,
    }
}

/// `select` with its composite calls flattened (see the module documentation); `None` when
/// its SELECT list has none.
pub(super) fn flatten_composite_calls(
    select: &ast::Select,
) -> Result<Option<ast::Select>, BindError> {
    let mut found = false;
    let _ = ast::visit_expressions(&select.projection, |expr: &ast::Expr| {
        if expandarray_argument(expr).is_some() {
            found = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    if !found {
        return Ok(None);
    }
    let mut rewritten = select.clone();
    // A field access as a whole item keeps its field's name once rewritten.
    for item in &mut rewritten.projection {
        if let ast::SelectItem::UnnamedExpr(expr) = item
            && let ast::Expr::CompoundFieldAccess { root, access_chain } = expr
            && expandarray_argument(root).is_some()
            && let Some(field) = dot_field(access_chain)
        {
            *item = ast::SelectItem::ExprWithAlias {
                expr: expr.clone(),
                alias: ast::Ident::new(field),
            };
        }
    }
    // Field access on a call first: `(f(a)).n`.
    let mut failure = None;
    let _ = ast::visit_expressions_mut(&mut rewritten.projection, |expr: &mut ast::Expr| {
        if let ast::Expr::CompoundFieldAccess { root, access_chain } = expr
            && let Some(array) = expandarray_argument(root)
            && let Some(field) = dot_field(access_chain)
        {
            match field_expr(array, &field) {
                Ok(field) => *expr = ast::Expr::Nested(Box::new(field)),
                Err(error) => {
                    failure = Some(error);
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    });
    if let Some(error) = failure {
        return Err(error);
    }
    // Then a bare call, a composite column: one column per field.
    let mut projection = Vec::with_capacity(rewritten.projection.len() + 1);
    for item in rewritten.projection {
        let (expr, name) = match &item {
            ast::SelectItem::UnnamedExpr(expr) => (expr, EXPANDARRAY.to_owned()),
            ast::SelectItem::ExprWithAlias { expr, alias } => (expr, ident_name(alias)),
            _ => {
                projection.push(item);
                continue;
            }
        };
        let Some(array) = expandarray_argument(expr) else {
            projection.push(item);
            continue;
        };
        for field in FIELDS {
            projection.push(ast::SelectItem::ExprWithAlias {
                expr: field_expr(array, field)?,
                alias: field_column(&name, field),
            });
        }
    }
    rewritten.projection = projection;
    Ok(Some(rewritten))
}

/// The column holding field `field` of the composite column `column`.
pub(super) fn field_column(column: &str, field: &str) -> ast::Ident {
    ast::Ident::with_quote('"', format!("{column}.{field}"))
}

/// A field access on a column, `(t.keys).x` or `(keys).x`: the column reference it reads,
/// `t."keys.x"`; `None` for any other access.
pub(super) fn field_of_column(root: &ast::Expr, chain: &[ast::AccessExpr]) -> Option<ast::Expr> {
    let field = dot_field(chain)?;
    match strip_nested(root) {
        ast::Expr::Identifier(column) => Some(ast::Expr::Identifier(field_column(
            &ident_name(column),
            &field,
        ))),
        ast::Expr::CompoundIdentifier(parts) => {
            let (column, qualifier) = parts.split_last()?;
            let mut parts = qualifier.to_vec();
            parts.push(field_column(&ident_name(column), &field));
            Some(ast::Expr::CompoundIdentifier(parts))
        }
        _ => None,
    }
}
