//! Square brackets mean two things in Basalt's SQL: PostgreSQL's arrays (`ARRAY[1,2]`,
//! `a[1]`, `a[1:2]`, `int[]`) and SQLite's quoted identifiers (`[my column]`). The tokenizer
//! cannot tell them apart (it sees one character), so statements are tokenized with `[` and
//! `]` as brackets and then [`quote_identifier_brackets`] turns each bracket pair that stands
//! where an identifier would start — after a keyword such as `SELECT`, `FROM` or `AS`, a
//! comma, an opening parenthesis, a dot or an operator — back into the quoted identifier
//! SQLite means. A bracket right after an operand (an identifier, a type name, `ARRAY`, `)`
//! or `]`), or inside another array bracket, stays an array bracket.
//!
//! What it guarantees: text that tokenized under the old rule (every `[` a quote) and has
//! no array syntax yields the same tokens as before; text with array syntax yields
//! `LBracket`/`RBracket` tokens for sqlparser's PostgreSQL array grammar. Text that only
//! tokenizes under the old rule (a bracketed identifier holding a quote character) is
//! tokenized that way, as before.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// Keywords after which `[` starts an array bracket (type names and `ARRAY`); after any
/// other keyword it starts a quoted identifier.
fn keyword_takes_subscript(keyword: Keyword) -> bool {
    use Keyword as K;
    matches!(
        keyword,
        K::NoKeyword
            | K::ARRAY
            | K::INT
            | K::INTEGER
            | K::INT2
            | K::INT4
            | K::INT8
            | K::SMALLINT
            | K::BIGINT
            | K::REAL
            | K::FLOAT
            | K::FLOAT4
            | K::FLOAT8
            | K::PRECISION
            | K::NUMERIC
            | K::DECIMAL
            | K::TEXT
            | K::VARCHAR
            | K::CHAR
            | K::CHARACTER
            | K::VARYING
            | K::BOOL
            | K::BOOLEAN
            | K::DATE
            | K::TIMESTAMP
            | K::TIMESTAMPTZ
            | K::TIME
            | K::ZONE
            | K::INTERVAL
            | K::UUID
            | K::BYTEA
            | K::JSON
            | K::JSONB
            | K::BLOB
    )
}

fn significant(token: &Token) -> bool {
    !matches!(token, Token::Whitespace(_))
}

/// Rewrites identifier-position bracket pairs of `tokens` (tokenized from `sql` with
/// brackets as brackets) into quoted-identifier words; `None` when a pair cannot be
/// rewritten (unbalanced brackets, or text that `offset` cannot locate), for the caller to
/// fall back to the old tokenization.
pub(crate) fn quote_identifier_brackets(
    sql: &str,
    tokens: Vec<TokenWithSpan>,
    offset: impl Fn(sqlparser::tokenizer::Location) -> Option<usize>,
) -> Option<Vec<TokenWithSpan>> {
    if !tokens.iter().any(|t| t.token == Token::LBracket) {
        return Some(tokens);
    }
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    // Open array brackets (an identifier bracket is consumed whole when found).
    let mut open_arrays = 0usize;
    let mut iter = tokens.into_iter();
    while let Some(token) = iter.next() {
        if token.token != Token::LBracket {
            if token.token == Token::RBracket {
                open_arrays = open_arrays.checked_sub(1)?;
            }
            out.push(token);
            continue;
        }
        let previous = out.iter().rev().find(|t| significant(&t.token));
        let array = match previous.map(|t| &t.token) {
            Some(Token::Word(word)) => {
                word.quote_style.is_some() || keyword_takes_subscript(word.keyword)
            }
            Some(Token::RParen | Token::RBracket) => true,
            Some(Token::LBracket | Token::Comma) => open_arrays > 0,
            _ => false,
        };
        if array {
            open_arrays += 1;
            out.push(token);
            continue;
        }
        // An identifier: everything up to the next `]` is its text, as the old rule read it.
        let start = offset(token.span.start)?;
        let rest = sql.get(start + 1..)?;
        let close = rest.find(']')?;
        let value = rest[..close].to_owned();
        let end_offset = start + 1 + close;
        // Skip the tokens inside, up to the `]` at `end_offset`.
        let end = loop {
            let inner = iter.next()?;
            if inner.token == Token::RBracket && offset(inner.span.start) == Some(end_offset) {
                break inner.span.end;
            }
        };
        out.push(TokenWithSpan {
            token: Token::Word(Word {
                value,
                quote_style: Some('['),
                keyword: Keyword::NoKeyword,
            }),
            span: sqlparser::tokenizer::Span::new(token.span.start, end),
        });
    }
    Some(out)
}
