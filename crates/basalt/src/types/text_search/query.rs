//! The full-text query language, parsed into a [`Query`] over analyzed terms.
//!
//! ```text
//! query    := or
//! or       := and ("OR" and)*
//! and      := unary (["AND"] unary)*        -- juxtaposition is AND
//! unary    := "NOT" unary | primary
//! primary  := "(" or ")" | "\"" words "\"" | word ["*"]
//! ```
//!
//! `OR`, `AND` and `NOT` are operators only in capitals (as in SQLite FTS5); in any other case
//! they are words. A word is a run of characters other than white space, parentheses, `"` and
//! `*`; it goes through the analyzer like document text, so it may become one term, a phrase
//! (`e-mail` is the words `e` and `mail`, which must stand together), or nothing (a stop
//! word, or punctuation alone), in which case it is left out of the query. A quoted phrase
//! matches its words at the same distances as in the query (a stop word inside keeps its
//! place). `word*` matches every term that begins with the word, lowercased and folded but
//! not stemmed. `NOT` may stand alone (`NOT spam` matches the documents without `spam`).
//!
//! What it guarantees: a query that does not follow the grammar is 42601 naming the character
//! position (1-based, in characters, as PostgreSQL reports positions) and what was expected
//! there; a query whose words are all left out parses to `None`, which matches nothing.

use super::analyzer::{Analyzer, Token};
use crate::types::TypeError;

/// A parsed query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// Documents with this term.
    Term(String),
    /// Documents with a term beginning with this.
    Prefix(String),
    /// Documents with these terms at these distances from the first (at least two terms,
    /// offsets increasing from 0).
    Phrase(Vec<(String, u32)>),
    /// Documents matching every operand.
    And(Vec<Query>),
    /// Documents matching any operand.
    Or(Vec<Query>),
    /// Documents not matching the operand.
    Not(Box<Query>),
}

/// Parses `text` with `analyzer` (see the module doc).
pub fn parse(text: &str, analyzer: &Analyzer) -> Result<Option<Query>, TypeError> {
    let tokens = lex(text)?;
    let mut parser = Parser {
        tokens,
        next: 0,
        analyzer,
        end_position: text.chars().count() + 1,
    };
    if parser.tokens.is_empty() {
        return Ok(None);
    }
    let query = parser.or()?;
    if let Some((token, position)) = parser.tokens.get(parser.next) {
        return Err(syntax_error(
            *position,
            &format!("unexpected {}", token.describe()),
        ));
    }
    Ok(query)
}

/// The error for a malformed query.
fn syntax_error(position: usize, what: &str) -> TypeError {
    TypeError::TextSearchSyntax(format!(
        "syntax error in full-text query at character {position}: {what}"
    ))
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Lexeme {
    Open,
    Close,
    And,
    Or,
    Not,
    Word { text: String, prefix: bool },
    Phrase(String),
}

impl Lexeme {
    fn describe(&self) -> String {
        match self {
            Lexeme::Open => "\"(\"".into(),
            Lexeme::Close => "\")\"".into(),
            Lexeme::And => "AND".into(),
            Lexeme::Or => "OR".into(),
            Lexeme::Not => "NOT".into(),
            Lexeme::Word { text, .. } => format!("word \"{text}\""),
            Lexeme::Phrase(text) => format!("phrase \"{text}\""),
        }
    }
}

/// The lexemes of `text`, each with its 1-based character position.
fn lex(text: &str) -> Result<Vec<(Lexeme, usize)>, TypeError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut at = 0;
    let is_word_char = |c: char| !c.is_whitespace() && !matches!(c, '(' | ')' | '"' | '*');
    while at < chars.len() {
        let c = chars[at];
        let position = at + 1;
        match c {
            c if c.is_whitespace() => at += 1,
            '(' => {
                out.push((Lexeme::Open, position));
                at += 1;
            }
            ')' => {
                out.push((Lexeme::Close, position));
                at += 1;
            }
            '*' => return Err(syntax_error(position, "\"*\" must follow a word")),
            '"' => {
                let close = chars[at + 1..]
                    .iter()
                    .position(|c| *c == '"')
                    .ok_or_else(|| syntax_error(position, "unterminated phrase"))?;
                let phrase: String = chars[at + 1..at + 1 + close].iter().collect();
                out.push((Lexeme::Phrase(phrase), position));
                at += close + 2;
                if chars.get(at) == Some(&'*') {
                    return Err(syntax_error(at + 1, "\"*\" must follow a word"));
                }
            }
            _ => {
                let end = chars[at..]
                    .iter()
                    .position(|c| !is_word_char(*c))
                    .map_or(chars.len(), |length| at + length);
                let word: String = chars[at..end].iter().collect();
                let prefix = chars.get(end) == Some(&'*');
                at = if prefix { end + 1 } else { end };
                let lexeme = match word.as_str() {
                    "AND" if !prefix => Lexeme::And,
                    "OR" if !prefix => Lexeme::Or,
                    "NOT" if !prefix => Lexeme::Not,
                    _ => Lexeme::Word { text: word, prefix },
                };
                out.push((lexeme, position));
            }
        }
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: Vec<(Lexeme, usize)>,
    next: usize,
    analyzer: &'a Analyzer,
    /// The position just past the text, for errors at its end.
    end_position: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Lexeme> {
        self.tokens.get(self.next).map(|(lexeme, _)| lexeme)
    }

    fn position(&self) -> usize {
        self.tokens
            .get(self.next)
            .map_or(self.end_position, |(_, position)| *position)
    }

    fn or(&mut self) -> Result<Option<Query>, TypeError> {
        let mut operands = vec![self.and()?];
        while self.peek() == Some(&Lexeme::Or) {
            self.next += 1;
            operands.push(self.and()?);
        }
        Ok(combine(operands, Query::Or))
    }

    fn and(&mut self) -> Result<Option<Query>, TypeError> {
        let mut operands = vec![self.unary()?];
        loop {
            match self.peek() {
                Some(Lexeme::And) => {
                    self.next += 1;
                    operands.push(self.unary()?);
                }
                Some(Lexeme::Open | Lexeme::Not | Lexeme::Word { .. } | Lexeme::Phrase(_)) => {
                    operands.push(self.unary()?);
                }
                _ => break,
            }
        }
        Ok(combine(operands, Query::And))
    }

    fn unary(&mut self) -> Result<Option<Query>, TypeError> {
        if self.peek() == Some(&Lexeme::Not) {
            self.next += 1;
            return Ok(self.unary()?.map(|operand| Query::Not(Box::new(operand))));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Option<Query>, TypeError> {
        let position = self.position();
        let Some((lexeme, _)) = self.tokens.get(self.next).cloned() else {
            return Err(syntax_error(position, "expected a word, a phrase or \"(\""));
        };
        self.next += 1;
        match lexeme {
            Lexeme::Open => {
                if self.peek() == Some(&Lexeme::Close) {
                    return Err(syntax_error(position, "empty parentheses"));
                }
                let inner = self.or()?;
                if self.peek() != Some(&Lexeme::Close) {
                    return Err(syntax_error(self.position(), "expected \")\""));
                }
                self.next += 1;
                Ok(inner)
            }
            Lexeme::Phrase(text) => phrase(&text, self.analyzer),
            Lexeme::Word {
                text,
                prefix: false,
            } => phrase(&text, self.analyzer),
            // Trigrams match substrings already: `abc*` is `abc`.
            Lexeme::Word { text, prefix: true } if self.analyzer.is_trigram() => {
                phrase(&text, self.analyzer)
            }
            Lexeme::Word { text, prefix: true } => {
                let words: Vec<&str> = unicode_words(&text);
                match words.as_slice() {
                    [] => Ok(None),
                    [word] => Ok(Some(Query::Prefix(self.analyzer.prefix(word)))),
                    _ => Err(syntax_error(position, "a prefix must be a single word")),
                }
            }
            other => Err(syntax_error(
                position,
                &format!(
                    "expected a word, a phrase or \"(\", found {}",
                    other.describe()
                ),
            )),
        }
    }
}

fn unicode_words(text: &str) -> Vec<&str> {
    unicode_segmentation::UnicodeSegmentation::unicode_words(text).collect()
}

/// The query `text`'s words make: nothing, a term, or a phrase. A phrase spans fewer words
/// than the gap between the columns of one document (`analyzer::COLUMN_GAP`), so that it
/// never matches across two of them.
fn phrase(text: &str, analyzer: &Analyzer) -> Result<Option<Query>, TypeError> {
    let mut tokens: Vec<Token> = Vec::new();
    analyzer.analyze(text, 0, &mut tokens);
    Ok(match tokens.as_slice() {
        [] => None,
        [one] => Some(Query::Term(one.term.clone())),
        [first, .., last] => {
            if last.position - first.position >= super::analyzer::COLUMN_GAP {
                return Err(TypeError::ProgramLimitExceeded(
                    "a full-text phrase may span at most 1048576 words",
                ));
            }
            let base = first.position;
            Some(Query::Phrase(
                tokens
                    .iter()
                    .map(|token| (token.term.clone(), token.position - base))
                    .collect(),
            ))
        }
    })
}

/// `operands` without the left-out ones, as one query.
fn combine(operands: Vec<Option<Query>>, join: fn(Vec<Query>) -> Query) -> Option<Query> {
    let mut kept: Vec<Query> = operands.into_iter().flatten().collect();
    match kept.len() {
        0 => None,
        1 => kept.pop(),
        _ => Some(join(kept)),
    }
}
