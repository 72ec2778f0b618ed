//! PostgreSQL's `INSERT ... OVERRIDING SYSTEM VALUE | OVERRIDING USER VALUE`, which
//! sqlparser does not parse.
//!
//! Parsed from the dialect's `parse_statement` hook: an INSERT that sqlparser cannot parse and
//! whose tokens hold `OVERRIDING SYSTEM|USER VALUE` outside parentheses is parsed by
//! sqlparser's own `parse_insert` from its tokens without those three words, and the clause is carried in the AST's `priority` field
//! (MySQL's `HIGH_PRIORITY` / `LOW_PRIORITY`, which Basalt's PostgreSQL dialect never parses,
//! so that field can only be set from here): see [`overriding`]. Any other INSERT is left to
//! sqlparser untouched. The clause is accepted wherever the words stand in the statement
//! (PostgreSQL wants them after the column list); a misplaced one only loosens what is
//! accepted, and never changes what a correct statement means.

use sqlparser::ast::{Insert, MysqlInsertPriority, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::BasaltDialect;

/// What an INSERT's `OVERRIDING` clause asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overriding {
    /// No clause: a `GENERATED ALWAYS` identity column refuses explicit values (428C9).
    None,
    /// `OVERRIDING SYSTEM VALUE`: explicit values go into identity columns, ALWAYS included.
    System,
    /// `OVERRIDING USER VALUE`: values given for identity columns are ignored; the columns
    /// take their sequences' next values.
    User,
}

/// The `OVERRIDING` clause of a parsed INSERT.
pub fn overriding(insert: &Insert) -> Overriding {
    match insert.priority {
        Some(MysqlInsertPriority::HighPriority) => Overriding::System,
        Some(MysqlInsertPriority::LowPriority) => Overriding::User,
        Some(MysqlInsertPriority::Delayed) | None => Overriding::None,
    }
}

fn is_word(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(word) if word.keyword == keyword && word.quote_style.is_none())
}

fn is_overriding(token: &Token) -> bool {
    matches!(token, Token::Word(word) if word.quote_style.is_none() && word.value.eq_ignore_ascii_case("overriding"))
}

/// An INSERT at the parser's position, or `None` (nothing consumed) for another statement.
/// sqlparser parses it first, so an INSERT without the clause costs nothing more; only when
/// that fails are the statement's tokens searched for `OVERRIDING SYSTEM|USER VALUE`.
pub(super) fn parse_insert(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    if !parser.peek_keyword(Keyword::INSERT) {
        return None;
    }
    let error = match parser.try_parse(|parser| {
        let insert_token = parser.next_token();
        parser.parse_insert(insert_token)
    }) {
        Ok(statement) => return Some(Ok(statement)),
        Err(error) => error,
    };
    Some(parse_with_overriding(parser).unwrap_or(Err(error)))
}

/// `INSERT ... OVERRIDING SYSTEM|USER VALUE ...` at the parser's position, or `None` (nothing
/// consumed) when the statement has no such clause outside parentheses.
fn parse_with_overriding(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    // The statement's raw tokens (whitespace included) up to its `;` or the end.
    let mut tokens: Vec<TokenWithSpan> = Vec::new();
    let mut depth = 0usize;
    let mut clause: Option<usize> = None;
    loop {
        let token = parser.peek_nth_token_no_skip(tokens.len());
        match &token.token {
            Token::EOF => break,
            Token::SemiColon if depth == 0 => break,
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            word if depth == 0 && clause.is_none() && is_overriding(word) => {
                clause = Some(tokens.len());
            }
            _ => {}
        }
        tokens.push(token);
    }
    let start = clause?;
    // OVERRIDING, then SYSTEM or USER, then VALUE, each after optional whitespace.
    let mut words = Vec::new();
    let mut end = start;
    while words.len() < 3 && end < tokens.len() {
        if !matches!(tokens[end].token, Token::Whitespace(_)) {
            words.push(end);
        }
        end += 1;
    }
    let kind = match words.as_slice() {
        [_, which, value] if is_word(&tokens[*value].token, Keyword::VALUE) => {
            match &tokens[*which].token {
                token if is_word(token, Keyword::SYSTEM) => Overriding::System,
                token if is_word(token, Keyword::USER) => Overriding::User,
                _ => return None,
            }
        }
        _ => return None,
    };
    let total = tokens.len();
    let mut rest: Vec<TokenWithSpan> = tokens.drain(..start).collect();
    rest.extend(tokens.into_iter().skip(end - start));
    let dialect = BasaltDialect::new();
    let mut inner = Parser::new(&dialect)
        .with_recursion_limit(128)
        .with_tokens_with_locations(rest);
    let result = (|| {
        let insert_token = inner.next_token();
        let mut statement = inner.parse_insert(insert_token)?;
        let leftover = inner.peek_token();
        if leftover.token != Token::EOF {
            return Err(ParserError::ParserError(format!(
                "Expected: end of statement, found: {}{}",
                leftover.token, leftover.span.start
            )));
        }
        if let Statement::Insert(insert) = &mut statement {
            insert.priority = Some(match kind {
                Overriding::User => MysqlInsertPriority::LowPriority,
                Overriding::System | Overriding::None => MysqlInsertPriority::HighPriority,
            });
        }
        Ok(statement)
    })();
    for _ in 0..total {
        parser.next_token_no_skip();
    }
    Some(result)
}
