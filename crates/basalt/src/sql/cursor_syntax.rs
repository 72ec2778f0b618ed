//! PostgreSQL's `FETCH` and `MOVE`, parsed here because sqlparser's `FETCH` is narrower than
//! PostgreSQL's (it requires `FROM` / `IN`, a count after `FORWARD` / `BACKWARD`, and takes
//! no signed count) and it has no `MOVE` at all.
//!
//! Both come out as sqlparser's `Statement::Fetch`. A `MOVE` is marked by an `into` of
//! [`MOVE_MARKER`]: PostgreSQL's FETCH has no `INTO` (that is PL/pgSQL's), and this parser
//! refuses one, so no statement written as FETCH can carry the marker.
//!
//! Grammar (PostgreSQL 15's `fetch_args`): `{FETCH | MOVE} [direction] [{FROM | IN}] cursor`,
//! where direction is `NEXT`, `PRIOR`, `FIRST`, `LAST`, `ABSOLUTE n`, `RELATIVE n`, `n`,
//! `ALL`, `FORWARD [n | ALL]` or `BACKWARD [n | ALL]`, and n a signed integer.

use sqlparser::ast::{
    FetchDirection, FetchPosition, Ident, ObjectName, Statement, Value, ValueWithSpan,
};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Span, Token};

/// The `into` name that marks a parsed `MOVE`.
pub const MOVE_MARKER: &str = "\u{0}move";

/// Parses `FETCH ...` or `MOVE ...` when the next word is one of them; `None` otherwise,
/// consuming nothing.
pub fn parse_fetch_or_move(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    let is_move = match &parser.peek_token_ref().token {
        Token::Word(word) if word.keyword == Keyword::FETCH => false,
        Token::Word(word) if word.value.eq_ignore_ascii_case("move") => true,
        _ => return None,
    };
    parser.next_token();
    Some(parse_rest(parser, is_move))
}

fn parse_rest(parser: &mut Parser<'_>, is_move: bool) -> Result<Statement, ParserError> {
    let direction = if parser.parse_keyword(Keyword::NEXT) {
        FetchDirection::Next
    } else if parser.parse_keyword(Keyword::PRIOR) {
        FetchDirection::Prior
    } else if parser.parse_keyword(Keyword::FIRST) {
        FetchDirection::First
    } else if parser.parse_keyword(Keyword::LAST) {
        FetchDirection::Last
    } else if parser.parse_keyword(Keyword::ABSOLUTE) {
        FetchDirection::Absolute {
            limit: signed_count(parser)?.ok_or_else(|| expected("a count after ABSOLUTE"))?,
        }
    } else if parser.parse_keyword(Keyword::RELATIVE) {
        FetchDirection::Relative {
            limit: signed_count(parser)?.ok_or_else(|| expected("a count after RELATIVE"))?,
        }
    } else if parser.parse_keyword(Keyword::ALL) {
        FetchDirection::All
    } else if parser.parse_keyword(Keyword::FORWARD) {
        if parser.parse_keyword(Keyword::ALL) {
            FetchDirection::ForwardAll
        } else {
            FetchDirection::Forward {
                limit: signed_count(parser)?,
            }
        }
    } else if parser.parse_keyword(Keyword::BACKWARD) {
        if parser.parse_keyword(Keyword::ALL) {
            FetchDirection::BackwardAll
        } else {
            FetchDirection::Backward {
                limit: signed_count(parser)?,
            }
        }
    } else if let Some(limit) = signed_count(parser)? {
        FetchDirection::Count { limit }
    } else {
        FetchDirection::Next
    };
    let position = if parser.parse_keyword(Keyword::IN) {
        FetchPosition::In
    } else {
        // FROM is optional, as in PostgreSQL.
        let _ = parser.parse_keyword(Keyword::FROM);
        FetchPosition::From
    };
    let name = parser.parse_identifier()?;
    Ok(Statement::Fetch {
        name,
        direction,
        position,
        into: is_move.then(|| ObjectName::from(vec![Ident::new(MOVE_MARKER)])),
    })
}

/// An optionally signed integer at the cursor, consumed; `None`, consuming nothing, when
/// there is no number there.
fn signed_count(parser: &mut Parser<'_>) -> Result<Option<ValueWithSpan>, ParserError> {
    let [first, second] = parser.peek_tokens_ref::<2>();
    let negative = match (&first.token, &second.token) {
        (Token::Minus, Token::Number(..)) => true,
        (Token::Plus, Token::Number(..)) => false,
        (Token::Number(..), _) => {
            let Token::Number(digits, _) = parser.next_token().token else {
                return Ok(None);
            };
            return Ok(Some(number(digits)));
        }
        _ => return Ok(None),
    };
    parser.next_token();
    let Token::Number(digits, _) = parser.next_token().token else {
        return Err(expected("a number"));
    };
    Ok(Some(number(if negative {
        format!("-{digits}")
    } else {
        digits
    })))
}

fn number(text: String) -> ValueWithSpan {
    ValueWithSpan {
        value: Value::Number(text, false),
        span: Span::empty(),
    }
}

fn expected(what: &str) -> ParserError {
    ParserError::ParserError(format!("expected {what}"))
}
