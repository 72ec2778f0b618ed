//! Numbering a statement's placeholders in the order they appear in its text.
//!
//! Parameters are bound by position, so the number of every `?` must not depend on the order
//! in which the binder happens to visit the parts of a statement: it binds FROM and WHERE
//! before the select list and an UPDATE's WHERE before its SET, but `SELECT ? + 0, k FROM t
//! WHERE id = ?` must still take its first argument for the select list. So before binding,
//! every placeholder of the statement is collected with its source position and numbered
//! in text order by SQLite's rules:
//!
//! * `?` is one more than the largest number given so far;
//! * `?N` and `$N` are N, and raise the largest number given so far to at least N;
//! * `:name` (or `@name`) is, at its first appearance, one more than the largest number given
//!   so far, and the same number at every later appearance.
//!
//! Numbers here are zero-based indexes (`?1` is index 0). A placeholder whose position is not
//! known (an AST built without source spans) falls back to the next free index at the time
//! it is bound.

use std::collections::HashMap;
use std::ops::ControlFlow;

use sqlparser::ast;
use sqlparser::tokenizer::{Location, Span};

use super::BindError;

/// The largest parameter number accepted (SQLite's default SQLITE_MAX_VARIABLE_NUMBER is
/// 32766; PostgreSQL's protocol allows 65535).
const MAX_PARAMETER_NUMBER: usize = 65_535;

/// The index of every placeholder of one statement.
#[derive(Debug, Default)]
pub(super) struct PlaceholderNumbering {
    /// Anonymous `?` placeholders by their source position.
    anonymous: HashMap<Location, usize>,
    /// Named placeholders with their indexes, in order of first appearance.
    named: Vec<(String, usize)>,
}

/// What a placeholder's text says about its number.
enum Placeholder<'a> {
    Anonymous,
    Numbered(usize),
    Named(&'a str),
}

fn classify(text: &str) -> Result<Placeholder<'_>, BindError> {
    let invalid = || BindError::syntax(format!("invalid parameter \"{text}\""));
    if text == "?" {
        return Ok(Placeholder::Anonymous);
    }
    if let Some(number) = text.strip_prefix('?').or_else(|| text.strip_prefix('$')) {
        let number: usize = number.parse().map_err(|_| invalid())?;
        if number == 0 || number > MAX_PARAMETER_NUMBER {
            return Err(invalid());
        }
        return Ok(Placeholder::Numbered(number - 1));
    }
    match text
        .strip_prefix(':')
        .or_else(|| text.strip_prefix('@'))
        .filter(|name| !name.is_empty())
    {
        Some(name) => Ok(Placeholder::Named(name)),
        None => Err(invalid()),
    }
}

impl PlaceholderNumbering {
    /// Numbers every placeholder of `statement` in text order.
    pub(super) fn of(statement: &ast::Statement) -> Result<PlaceholderNumbering, BindError> {
        let mut found: Vec<(Location, String)> = Vec::new();
        let _ = ast::visit_expressions(statement, |expr| {
            if let ast::Expr::Value(value) = expr
                && let ast::Value::Placeholder(text) = &value.value
            {
                found.push((value.span.start, text.clone()));
            }
            ControlFlow::<()>::Continue(())
        });
        found.sort_by_key(|(location, _)| *location);

        let mut numbering = PlaceholderNumbering::default();
        // One past the largest index given so far.
        let mut next = 0usize;
        for (location, text) in found {
            match classify(&text)? {
                Placeholder::Anonymous => {
                    if location != Span::empty().start {
                        numbering.anonymous.insert(location, next);
                    }
                    next += 1;
                }
                Placeholder::Numbered(index) => next = next.max(index + 1),
                Placeholder::Named(name) => {
                    if !numbering.named.iter().any(|(known, _)| known == name) {
                        numbering.named.push((name.to_string(), next));
                        next += 1;
                    }
                }
            }
        }
        Ok(numbering)
    }

    /// The index of the placeholder `text` found at `location`, and its name if it has one.
    /// `next_free` is used for a placeholder the numbering did not see (no source position).
    pub(super) fn index(
        &mut self,
        text: &str,
        location: Location,
        next_free: usize,
    ) -> Result<(usize, Option<String>), BindError> {
        match classify(text)? {
            Placeholder::Anonymous => Ok((
                self.anonymous.get(&location).copied().unwrap_or(next_free),
                None,
            )),
            Placeholder::Numbered(index) => Ok((index, None)),
            Placeholder::Named(name) => {
                if let Some((_, index)) = self.named.iter().find(|(known, _)| known == name) {
                    return Ok((*index, Some(name.to_string())));
                }
                self.named.push((name.to_string(), next_free));
                Ok((next_free, Some(name.to_string())))
            }
        }
    }
}
