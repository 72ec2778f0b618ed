//! SQL/JSON path language (`jsonpath`), as PostgreSQL 15 implements it (section 9.16.2):
//! the parser, the normalized printer and the evaluator behind `jsonb_path_exists`,
//! `jsonb_path_match`, `jsonb_path_query*` and the `@?` / `@@` operators.
//!
//! * [`lex`] and [`parse`] turn path text into an [`ast::JsonPath`]; errors are 42601 with
//!   PostgreSQL's message (`syntax error at or near "=" of jsonpath input`), and
//!   [`ParseError`] also keeps the byte position. Nesting is bounded, so no path can
//!   overflow the stack.
//! * [`print`] writes a path back as PostgreSQL prints a `jsonpath` value
//!   (`'$.a'::jsonpath` is `$."a"`); Basalt has no jsonpath storage type, so the cast
//!   produces that text.
//! * [`eval`] runs a path over an [`item::Item`] read from jsonb, in lax or strict mode,
//!   with `vars`, and the error rules of [`eval::Fail`]; [`datetime`] reads
//!   `.datetime()`'s ISO formats.
//!
//! [`query`] is the entry point the SQL functions use.

pub mod ast;
pub mod datetime;
pub mod eval;
pub mod item;
mod layout;
mod lex;
pub mod methods;
pub mod parse;
pub mod print;

use crate::sqlstate::{self, SqlState};
use crate::types::TypeError;

use ast::JsonPath;
use eval::{Exec, Fail};
use item::Item;

/// A path syntax error: PostgreSQL's message, and the byte offset it refers to.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub position: usize,
    pub message: String,
    state: SqlState,
}

impl ParseError {
    fn new(position: usize, message: String) -> ParseError {
        ParseError {
            position,
            message,
            state: sqlstate::SYNTAX_ERROR,
        }
    }

    /// `syntax error at or near "<text>" of jsonpath input`.
    fn near(position: usize, text: &str) -> ParseError {
        ParseError::new(
            position,
            format!("syntax error at or near \"{text}\" of jsonpath input"),
        )
    }

    /// The same error as a feature that is not supported (0A000).
    fn feature(mut self) -> ParseError {
        self.state = sqlstate::FEATURE_NOT_SUPPORTED;
        self
    }
}

impl From<ParseError> for TypeError {
    fn from(error: ParseError) -> TypeError {
        let state = if error
            .message
            .starts_with("invalid input syntax for type jsonpath")
        {
            sqlstate::INVALID_TEXT_REPRESENTATION
        } else {
            error.state
        };
        coded(state, error.message)
    }
}

/// A [`TypeError`] with its own SQLSTATE.
pub(crate) fn coded(state: SqlState, message: String) -> TypeError {
    TypeError::Coded { state, message }
}

/// A suppressible evaluation error.
fn soft(state: SqlState, message: String) -> Fail {
    Fail::Soft(coded(state, message))
}

/// Parses path text (42601 for a syntax error, 2201B for a `like_regex` pattern that does
/// not compile, as PostgreSQL checks both when the path is read).
pub fn parse_path(text: &str) -> Result<JsonPath, TypeError> {
    let path = parse::parse(text)?;
    check_regexes(&path.expr)?;
    Ok(path)
}

/// How many parsed paths [`cached_path`] keeps per thread.
const CACHED_PATHS: usize = 16;

thread_local! {
    /// Recently parsed paths by their text: a query calls a path function once per row with
    /// the same path, which is then parsed (and its regular expressions checked) once.
    static PATHS: std::cell::RefCell<Vec<(String, std::rc::Rc<JsonPath>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// [`parse_path`], remembering the last few paths parsed on this thread (errors are not
/// remembered: they end the statement).
pub fn cached_path(text: &str) -> Result<std::rc::Rc<JsonPath>, TypeError> {
    let hit = PATHS.with(|paths| {
        paths
            .borrow()
            .iter()
            .find(|(cached, _)| cached == text)
            .map(|(_, path)| std::rc::Rc::clone(path))
    });
    if let Some(path) = hit {
        return Ok(path);
    }
    let path = std::rc::Rc::new(parse_path(text)?);
    PATHS.with(|paths| {
        let mut paths = paths.borrow_mut();
        if paths.len() >= CACHED_PATHS {
            paths.remove(0);
        }
        paths.push((text.to_owned(), std::rc::Rc::clone(&path)));
    });
    Ok(path)
}

/// The normalized text of path text: what `'...'::jsonpath` prints.
pub fn normalize(text: &str) -> Result<String, TypeError> {
    Ok(print::to_text(&parse_path(text)?))
}

fn check_regexes(expr: &ast::Expr) -> Result<(), TypeError> {
    use ast::{Expr, Step};
    match expr {
        Expr::LikeRegex {
            operand,
            pattern,
            flags,
        } => {
            methods::compile_regex(pattern, *flags)?;
            check_regexes(operand)
        }
        Expr::Chain(base, steps) => {
            check_regexes(base)?;
            for step in steps {
                match step {
                    Step::Filter(predicate) => check_regexes(predicate)?,
                    Step::Index(subscripts) => {
                        for (from, to) in subscripts {
                            check_regexes(from)?;
                            if let Some(to) = to {
                                check_regexes(to)?;
                            }
                        }
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        Expr::Arith(_, a, b)
        | Expr::Compare(_, a, b)
        | Expr::And(a, b)
        | Expr::Or(a, b)
        | Expr::StartsWith(a, b) => {
            check_regexes(a)?;
            check_regexes(b)
        }
        Expr::Unary(_, a) | Expr::Not(a) | Expr::IsUnknown(a) | Expr::Exists(a) => check_regexes(a),
        _ => Ok(()),
    }
}

/// What an evaluation gave: its items, and whether a suppressed (silent) error cut it short
/// (the items found before the error are kept, as PostgreSQL keeps them).
#[derive(Debug, Default)]
pub struct Outcome {
    pub items: Vec<Item>,
    pub failed: bool,
}

/// Runs `path` over `document` with the variables of `vars` (a jsonb object, or `None`).
/// With `silent`, soft errors end the evaluation without an error (see [`Outcome`]);
/// `first_only` lets lax mode stop at the first item (for the existence tests).
pub fn query(
    path: &JsonPath,
    document: &Item,
    vars: Option<&Item>,
    silent: bool,
    first_only: bool,
) -> Result<Outcome, TypeError> {
    if vars.is_some_and(|vars| !matches!(vars, Item::Object(_))) {
        return Err(coded(
            sqlstate::INVALID_PARAMETER_VALUE,
            "\"vars\" argument is not an object".to_owned(),
        ));
    }
    let mut exec = Exec::new(path.strict, silent, document, vars);
    let mut outcome = Outcome::default();
    match exec.run(&path.expr, &mut outcome.items, first_only) {
        Ok(()) => Ok(outcome),
        Err(Fail::Soft(_)) if silent => {
            outcome.failed = true;
            Ok(outcome)
        }
        Err(Fail::Soft(error) | Fail::Hard(error)) => Err(error),
    }
}

#[cfg(test)]
mod tests;
