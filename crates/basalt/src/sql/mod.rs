//! The SQL parsing layer: text in, sqlparser ASTs out.
//!
//! Place in the layers: the API (and the shell) hand SQL text here; the statements that come
//! back go to the binder in `plan/`, which resolves names and types. Nothing here knows the
//! catalog: this layer only decides whether text is well-formed SQL in Basalt's dialect
//! ([`BasaltDialect`]: PostgreSQL plus SQLite's common forms plus pgvector's operators) and,
//! if it is not, where it went wrong ([`SqlSyntaxError`], SQLSTATE 42601).
//!
//! Guarantees:
//! * No input text makes these functions panic: errors are values, deep nesting hits
//!   sqlparser's recursion limit (reported as a syntax error), and as a last line of defence a
//!   panic inside sqlparser is caught and reported as an error too.
//! * Statements are separated by `;`; empty statements (`;;`) are skipped; a statement must
//!   be followed by `;` or the end of the input (unlike `Parser::parse_statements`, which
//!   stops silently at a stray `END`).
//! * [`split_statements`] gives each statement's byte range in the input, from its first
//!   token to its last, excluding the `;` and surrounding whitespace and comments, so that
//!   `&sql[range]` is the statement's own text.
//!
//! The AST is sqlparser 0.63's, unchanged; see [`dialect`] for how Basalt's additions are
//! represented in it.

mod brackets;
pub mod cursor_syntax;
pub mod dialect;
pub mod error;
pub mod identity_syntax;
pub mod insert_syntax;
pub mod names;
pub mod sequence_syntax;

#[cfg(test)]
mod tests;

use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};

use sqlparser::ast::Statement;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, TokenizerError};

pub use dialect::BasaltDialect;
pub use error::SqlSyntaxError;
pub use names::{normalize_ident, object_name_parts};

/// Parses every statement in `sql`. Empty input (or only comments and `;`) gives an empty
/// vector. The parser's tests call it; statements go through [`split_statements`].
#[cfg(test)]
pub fn parse(sql: &str) -> Result<Vec<Statement>, SqlSyntaxError> {
    Ok(split_statements(sql)?
        .into_iter()
        .map(|(statement, _)| statement)
        .collect())
}

/// Parses exactly one statement; a trailing `;` is allowed. No statement, or more than one,
/// is an error.
pub fn parse_one(sql: &str) -> Result<Statement, SqlSyntaxError> {
    let mut statements = split_statements(sql)?;
    if statements.len() > 1 {
        let index = LineIndex::new(sql);
        let start = statements[1].1.start;
        let (line, column) = index.line_column(start);
        return Err(SqlSyntaxError {
            message: format!(
                "expected one statement, found {} (separate statements are not allowed here)",
                statements.len()
            ),
            line,
            column,
            token: first_word(&sql[start..]),
        });
    }
    match statements.pop() {
        Some((statement, _)) => Ok(statement),
        None => {
            let (line, column) = LineIndex::new(sql).line_column(sql.len());
            Err(SqlSyntaxError {
                message: "expected one statement, found none (empty query)".into(),
                line,
                column,
                token: None,
            })
        }
    }
}

/// Parses every statement in `sql`, each with its byte range in `sql` (first token to last
/// token, without the `;`).
pub fn split_statements(sql: &str) -> Result<Vec<(Statement, Range<usize>)>, SqlSyntaxError> {
    match catch_unwind(AssertUnwindSafe(|| split_statements_inner(sql))) {
        Ok(result) => result,
        Err(_) => {
            // sqlparser is not supposed to panic; if it does, the caller still gets an error
            // rather than an unwinding database.
            Err(SqlSyntaxError {
                message: "internal error in the SQL parser".into(),
                line: 1,
                column: 1,
                token: None,
            })
        }
    }
}

fn split_statements_inner(sql: &str) -> Result<Vec<(Statement, Range<usize>)>, SqlSyntaxError> {
    let dialect = BasaltDialect::with_brackets();
    let index = LineIndex::new(sql);
    let mut tokens = tokenize(sql).map_err(|e| tokenizer_error(&index, e))?;
    // INSERT's OVERRIDING clause, which sqlparser lacks: put back after parsing.
    let mut overriding = insert_syntax::take_clauses(&mut tokens)
        .into_iter()
        .peekable();
    // SQLite accepts expressions nested far deeper than sqlparser's default limit of 50
    // (its own corpus nests about 60 deep); 128 stays well inside a 2 MiB thread stack.
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(128)
        .with_tokens_with_locations(tokens.clone());

    let mut statements = Vec::new();
    loop {
        while parser.consume_token(&Token::SemiColon) {}
        let first = parser.peek_token_ref().clone();
        if first.token == Token::EOF {
            break;
        }
        let mut statement = parser
            .parse_statement()
            .map_err(|e| parser_error(sql, &index, &tokens, &first, e))?;

        let next = parser.peek_token_ref().clone();
        while let Some(clause) =
            overriding.next_if(|clause| next.token == Token::EOF || clause.at < next.span.start)
        {
            if let Err(message) = insert_syntax::apply_clause(&mut statement, clause) {
                let (line, column) = index.clamp(clause.at);
                return Err(SqlSyntaxError {
                    message,
                    line,
                    column,
                    token: Some("OVERRIDING".to_owned()),
                });
            }
        }
        if !matches!(next.token, Token::SemiColon | Token::EOF) {
            return Err(error_at_token(
                sql,
                &index,
                &next,
                format!(
                    "expected ';' or end of input after the statement, found {}",
                    next.token
                ),
            ));
        }
        let last = last_consumed(&tokens, parser.index()).unwrap_or(&first);
        let start = index.offset(first.span.start).unwrap_or(0);
        let end = index.offset(last.span.end).unwrap_or(sql.len()).max(start);
        statements.push((statement, start..end));
    }
    // A clause after the last statement belongs to none.
    if let Some(clause) = overriding.next() {
        let (line, column) = index.clamp(clause.at);
        return Err(SqlSyntaxError {
            message: "syntax error at or near \"OVERRIDING\"".to_owned(),
            line,
            column,
            token: Some("OVERRIDING".to_owned()),
        });
    }
    Ok(statements)
}

/// Tokenizes `sql` for parsing with [`BasaltDialect::with_brackets`]: `[` and `]` are
/// brackets, except a pair where an identifier would start, which is a quoted identifier
/// (see `brackets`). Text that only tokenizes with every `[` a quote is tokenized that way.
pub(crate) fn tokenize(sql: &str) -> Result<Vec<TokenWithSpan>, TokenizerError> {
    let index = LineIndex::new(sql);
    let bracketed = Tokenizer::new(&BasaltDialect::with_brackets(), sql)
        .tokenize_with_location()
        .ok()
        .and_then(|tokens| {
            brackets::quote_identifier_brackets(sql, tokens, |location| index.offset(location))
        });
    match bracketed {
        Some(tokens) => Ok(tokens),
        None => Tokenizer::new(&BasaltDialect::new(), sql).tokenize_with_location(),
    }
}

/// The last non-whitespace token before position `end` of the token stream.
fn last_consumed(tokens: &[TokenWithSpan], end: usize) -> Option<&TokenWithSpan> {
    tokens
        .get(..end.min(tokens.len()))?
        .iter()
        .rev()
        .find(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF))
}

/// The first word of `text`, for naming the token at an error.
fn first_word(text: &str) -> Option<String> {
    let word: String = text
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!word.is_empty()).then_some(word)
}

fn tokenizer_error(index: &LineIndex<'_>, e: TokenizerError) -> SqlSyntaxError {
    let (line, column) = index.clamp(e.location);
    SqlSyntaxError {
        message: e.message,
        line,
        column,
        token: None,
    }
}

fn error_at_token(
    sql: &str,
    index: &LineIndex<'_>,
    token: &TokenWithSpan,
    message: String,
) -> SqlSyntaxError {
    if token.token == Token::EOF || token.span.start.line == 0 {
        let (line, column) = index.line_column(sql.len());
        return SqlSyntaxError {
            message,
            line,
            column,
            token: None,
        };
    }
    let (line, column) = index.clamp(token.span.start);
    SqlSyntaxError {
        message,
        line,
        column,
        token: token_text(sql, index, token),
    }
}

/// The source text of a token, as written.
fn token_text(sql: &str, index: &LineIndex<'_>, token: &TokenWithSpan) -> Option<String> {
    let start = index.offset(token.span.start)?;
    let end = index.offset(token.span.end)?;
    sql.get(start..end).map(str::to_owned)
}

/// Converts a sqlparser error. Its position is only available inside the message text
/// (`"... at Line: 2, Column: 7"`); without one (sqlparser reports `found: EOF` that way) the
/// error is at the end of the input.
fn parser_error(
    sql: &str,
    index: &LineIndex<'_>,
    tokens: &[TokenWithSpan],
    statement_start: &TokenWithSpan,
    e: ParserError,
) -> SqlSyntaxError {
    let text = match e {
        ParserError::ParserError(text) | ParserError::TokenizerError(text) => text,
        ParserError::RecursionLimitExceeded => {
            return error_at_token(
                sql,
                index,
                statement_start,
                "statement is nested too deeply".into(),
            );
        }
    };
    let (message, location) = split_location(&text);
    let message = message.replace("found: EOF", "found: end of input");
    match location {
        Some(location) => {
            let token = tokens
                .iter()
                .find(|t| t.span.start == location && !matches!(t.token, Token::Whitespace(_)));
            let (line, column) = index.clamp(location);
            SqlSyntaxError {
                message,
                line,
                column,
                token: token.and_then(|t| token_text(sql, index, t)),
            }
        }
        None => {
            let (line, column) = index.line_column(sql.len());
            SqlSyntaxError {
                message,
                line,
                column,
                token: None,
            }
        }
    }
}

/// Splits sqlparser's `"<message> at Line: L, Column: C"` into the message and location.
fn split_location(text: &str) -> (String, Option<Location>) {
    const MARK: &str = " at Line: ";
    let Some(at) = text.rfind(MARK) else {
        return (text.to_owned(), None);
    };
    let rest = &text[at + MARK.len()..];
    let parsed = rest.split_once(", Column: ").and_then(|(line, column)| {
        Some(Location::new(
            line.trim().parse().ok()?,
            column.trim().parse().ok()?,
        ))
    });
    match parsed {
        Some(location) => (text[..at].to_owned(), Some(location)),
        None => (text.to_owned(), None),
    }
}

/// Maps between byte offsets and the tokenizer's (line, character column) locations.
struct LineIndex<'a> {
    sql: &'a str,
    /// Byte offset where each line starts; line `n` (1-based) starts at `starts[n - 1]`.
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(sql: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(sql.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { sql, starts }
    }

    /// Byte offset of a location, or `None` for sqlparser's empty location (line 0) or one
    /// outside the text.
    fn offset(&self, location: Location) -> Option<usize> {
        let line = usize::try_from(location.line).ok()?.checked_sub(1)?;
        let start = *self.starts.get(line)?;
        let skip = usize::try_from(location.column).ok()?.checked_sub(1)?;
        let rest = self.sql.get(start..)?;
        Some(match rest.char_indices().nth(skip) {
            Some((i, _)) => start + i,
            None => self.sql.len(),
        })
    }

    /// The (line, column) of a byte offset (clamped to the text, rounded down to a character
    /// boundary).
    fn line_column(&self, offset: usize) -> (u64, u64) {
        let mut offset = offset.min(self.sql.len());
        while !self.sql.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let column = self.sql[start..offset].chars().count() + 1;
        (line as u64, column as u64)
    }

    /// A location as (line, column), with sqlparser's empty location mapped to the end.
    fn clamp(&self, location: Location) -> (u64, u64) {
        match self.offset(location) {
            Some(_) => (location.line, location.column),
            None => self.line_column(self.sql.len()),
        }
    }
}
