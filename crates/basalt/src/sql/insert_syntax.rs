//! PostgreSQL's `INSERT ... OVERRIDING SYSTEM VALUE | OVERRIDING USER VALUE`, which
//! sqlparser does not parse.
//!
//! The clause is taken out of the token stream before parsing ([`take_clauses`]: one pass
//! over the tokens, which finds nothing in almost every statement) and put back into the
//! parsed INSERT ([`apply_clause`]) in the AST's `priority` field — MySQL's `HIGH_PRIORITY`
//! (SYSTEM VALUE) / `LOW_PRIORITY` (USER VALUE), which Basalt's PostgreSQL dialect never
//! parses, so that field can only be set from here: see [`overriding`]. A clause in a
//! statement other than an INSERT is a syntax error (42601). The clause is accepted wherever
//! it stands in the INSERT (PostgreSQL wants it after the column list); a misplaced one only
//! loosens what is accepted, and never changes what a correct statement means.

use sqlparser::ast::{Insert, MysqlInsertPriority, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

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

/// A clause taken out of the tokens: where its `OVERRIDING` stood, and what it asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Clause {
    pub(super) at: Location,
    pub(super) kind: Overriding,
}

fn is_word(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(word) if word.keyword == keyword && word.quote_style.is_none())
}

fn is_overriding(token: &Token) -> bool {
    matches!(token, Token::Word(word) if word.quote_style.is_none() && word.value.eq_ignore_ascii_case("overriding"))
}

/// Removes every `OVERRIDING SYSTEM|USER VALUE` (unquoted words, whitespace between them)
/// from `tokens`, returning where each stood.
pub(super) fn take_clauses(tokens: &mut Vec<TokenWithSpan>) -> Vec<Clause> {
    if !tokens.iter().any(|token| is_overriding(&token.token)) {
        return Vec::new();
    }
    let mut clauses = Vec::new();
    let mut kept = Vec::with_capacity(tokens.len());
    let mut position = 0;
    while position < tokens.len() {
        if is_overriding(&tokens[position].token)
            && let Some((kind, end)) = clause_at(tokens, position)
        {
            clauses.push(Clause {
                at: tokens[position].span.start,
                kind,
            });
            position = end;
            continue;
        }
        kept.push(tokens[position].clone());
        position += 1;
    }
    *tokens = kept;
    clauses
}

/// The clause starting at `start` (an `OVERRIDING`), and the position after its `VALUE`.
fn clause_at(tokens: &[TokenWithSpan], start: usize) -> Option<(Overriding, usize)> {
    let mut words = Vec::with_capacity(2);
    let mut position = start + 1;
    while words.len() < 2 {
        let token = &tokens.get(position)?.token;
        if !matches!(token, Token::Whitespace(_)) {
            words.push(token);
        }
        position += 1;
    }
    let kind = match words.as_slice() {
        [which, value] if is_word(value, Keyword::VALUE) => {
            if is_word(which, Keyword::SYSTEM) {
                Overriding::System
            } else if is_word(which, Keyword::USER) {
                Overriding::User
            } else {
                return None;
            }
        }
        _ => return None,
    };
    Some((kind, position))
}

/// Puts `clause`, found inside `statement`, back into it; `Err` with a message when the
/// statement is not an INSERT.
pub(super) fn apply_clause(statement: &mut Statement, clause: Clause) -> Result<(), String> {
    let Statement::Insert(insert) = statement else {
        return Err("syntax error at or near \"OVERRIDING\"".to_owned());
    };
    insert.priority = Some(match clause.kind {
        Overriding::User => MysqlInsertPriority::LowPriority,
        Overriding::System | Overriding::None => MysqlInsertPriority::HighPriority,
    });
    Ok(())
}
