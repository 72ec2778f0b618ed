//! Reading SQL the way the engine reads it: when typed input ends a statement, and where
//! one statement stops and the next begins.
//!
//! Both questions are answered with the engine's own tokenizer (sqlparser's, configured by
//! [`basalt::BasaltDialect`]), so a `;` inside a string literal, a quoted identifier, a
//! dollar-quoted string or a comment never ends a statement, by exactly the engine's rules.
//! The engine's statement splitter parses as well as splits, and stops at the
//! first syntax error; the shell needs the statements before a broken one to run (and the
//! broken one to be reported on its own, with a caret), so it splits on the tokens here and
//! hands each statement's text to `Connection::prepare`, which parses it.
//!
//! One rule goes beyond the tokens, as in sqlite3's `sqlite3_complete`: inside `CREATE
//! [TEMP] TRIGGER`, whose program is `BEGIN stmt; stmt; END`, only a `;` right after `END`
//! ends the statement.

use basalt::BasaltDialect;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer};

/// One statement of a piece of input.
#[derive(Debug, PartialEq, Eq)]
pub struct Statement<'a> {
    /// From its first token to its last, without the `;` or surrounding comments.
    pub text: &'a str,
    /// 1-based line of `text`'s start within the input.
    pub line: usize,
}

/// The statements of `text` if it is ready to run: its last token (ignoring whitespace and
/// comments) is `;`. Text whose string, quoted identifier or comment is still open is not.
pub fn complete_statements(text: &str) -> Option<Vec<Statement<'_>>> {
    let tokens = tokenize(text)?;
    let last = tokens.iter().rev().find(|token| !is_space(token))?;
    if last.token != Token::SemiColon {
        return None;
    }
    let (statements, open) = segments(text, &tokens);
    (!open).then_some(statements)
}

/// Whether `text` holds nothing to run (only whitespace, comments and `;`).
pub fn is_blank(text: &str) -> bool {
    match tokenize(text) {
        Some(tokens) => tokens
            .iter()
            .all(|token| is_space(token) || token.token == Token::SemiColon),
        None => text.trim().is_empty(),
    }
}

/// The statements of `text`, in order. Text that does not tokenize (an unterminated string
/// at the end of a script) comes back whole, so that running it reports the error.
pub fn split(text: &str) -> Vec<Statement<'_>> {
    let Some(tokens) = tokenize(text) else {
        let trimmed = text.trim_start();
        let skipped = &text[..text.len() - trimmed.len()];
        return vec![Statement {
            text: trimmed.trim_end(),
            line: 1 + skipped.matches('\n').count(),
        }];
    };
    statements_of(text, &tokens)
}

fn statements_of<'a>(text: &'a str, tokens: &[TokenWithSpan]) -> Vec<Statement<'a>> {
    segments(text, tokens).0
}

/// Whether `token` is the (unquoted) keyword `word`.
fn is_word(token: Option<&TokenWithSpan>, word: &str) -> bool {
    matches!(token.map(|token| &token.token), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// The statements of `text`, and whether the input ended inside a statement whose `;` were
/// all within a trigger's program (so it is not complete yet).
fn segments<'a>(text: &'a str, tokens: &[TokenWithSpan]) -> (Vec<Statement<'a>>, bool) {
    let lines = LineStarts::new(text);
    let mut statements = Vec::new();
    let mut first: Option<&TokenWithSpan> = None;
    let mut last: Option<&TokenWithSpan> = None;
    // The statement's first three words, to recognise CREATE [TEMP] TRIGGER.
    let mut leading: Vec<&TokenWithSpan> = Vec::new();
    let mut open_trigger = false;
    for token in tokens.iter().chain(std::iter::once(&END)) {
        if is_space(token) {
            continue;
        }
        let in_trigger = is_word(leading.first().copied(), "create")
            && (is_word(leading.get(1).copied(), "trigger")
                || (is_word(leading.get(2).copied(), "trigger")
                    && (is_word(leading.get(1).copied(), "temp")
                        || is_word(leading.get(1).copied(), "temporary"))));
        if token.token == Token::SemiColon && in_trigger && !is_word(last, "end") {
            open_trigger = true;
            last = Some(token);
            continue;
        }
        if token.token == Token::SemiColon || token.token == Token::EOF {
            if token.token == Token::SemiColon {
                open_trigger = false;
            }
            leading.clear();
            if let (Some(first), Some(last)) = (first, last) {
                let start = lines.offset(first.span.start);
                let end = lines.offset(last.span.end).max(start);
                statements.push(Statement {
                    text: &text[start..end],
                    line: usize::try_from(first.span.start.line).unwrap_or(1),
                });
            }
            first = None;
            last = None;
            continue;
        }
        first = first.or(Some(token));
        last = Some(token);
        if leading.len() < 3 {
            leading.push(token);
        }
    }
    (statements, open_trigger)
}

/// Marks the end of the token stream for [`split`].
static END: TokenWithSpan = TokenWithSpan {
    token: Token::EOF,
    span: sqlparser::tokenizer::Span::empty(),
};

fn tokenize(text: &str) -> Option<Vec<TokenWithSpan>> {
    Tokenizer::new(&BasaltDialect::new(), text)
        .tokenize_with_location()
        .ok()
}

fn is_space(token: &TokenWithSpan) -> bool {
    matches!(token.token, Token::Whitespace(_))
}

/// Maps the tokenizer's (line, character column) locations to byte offsets.
struct LineStarts<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineStarts<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        LineStarts { text, starts }
    }

    /// The byte offset of `location`, clamped to the text.
    fn offset(&self, location: Location) -> usize {
        let line = usize::try_from(location.line).unwrap_or(0).max(1) - 1;
        let Some(&start) = self.starts.get(line) else {
            return self.text.len();
        };
        let column = usize::try_from(location.column).unwrap_or(0).max(1) - 1;
        self.text[start..]
            .char_indices()
            .nth(column)
            .map_or(self.text.len(), |(at, _)| start + at)
    }
}

/// Splits a dot command's arguments at whitespace; `'single'` and `"double"` quotes group
/// words (a doubled quote inside stands for itself). Backslashes are not special, so Windows
/// paths need no escaping.
pub fn split_arguments(text: &str) -> Result<Vec<String>, String> {
    let mut arguments = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else {
            return Ok(arguments);
        };
        let mut argument = String::new();
        if first == '\'' || first == '"' {
            chars.next();
            loop {
                match chars.next() {
                    Some(c) if c == first => {
                        if chars.next_if_eq(&first).is_some() {
                            argument.push(first);
                        } else {
                            break;
                        }
                    }
                    Some(c) => argument.push(c),
                    None => return Err(format!("unterminated {first}quoted{first} argument")),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                argument.push(c);
            }
        }
        arguments.push(argument);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(input: &str) -> Vec<(&str, usize)> {
        split(input).into_iter().map(|s| (s.text, s.line)).collect()
    }

    fn is_complete(text: &str) -> bool {
        complete_statements(text).is_some()
    }

    #[test]
    fn completeness_follows_the_tokenizer() {
        assert!(is_complete("SELECT 1;"));
        assert!(is_complete("SELECT 1; -- done\n"));
        assert!(!is_complete("SELECT 1"));
        assert!(!is_complete("SELECT ';"));
        assert!(!is_complete("SELECT 1 /* ; */"));
        assert!(!is_complete("SELECT 1 -- ;"));
        assert!(!is_complete("SELECT \"a;"));
        assert!(is_complete("SELECT 'a;b';"));
        assert!(is_complete("SELECT $$ ; $$;"));
    }

    #[test]
    fn a_trigger_ends_at_end_semicolon() {
        let trigger =
            "CREATE TRIGGER r AFTER INSERT ON t BEGIN INSERT INTO u VALUES (1); DELETE FROM v; END";
        assert!(!is_complete(
            "CREATE TRIGGER r AFTER INSERT ON t BEGIN INSERT INTO u VALUES (1);"
        ));
        assert!(is_complete(&format!("{trigger};")));
        let input =
            format!("{trigger}; SELECT 1;\nCREATE TEMP TRIGGER x DELETE ON t BEGIN SELECT 1; END;");
        let statements = texts(&input);
        assert_eq!(statements.len(), 3);
        assert_eq!(statements[0].0, trigger);
        assert_eq!(statements[1].0, "SELECT 1");
        assert_eq!(
            statements[2],
            ("CREATE TEMP TRIGGER x DELETE ON t BEGIN SELECT 1; END", 2)
        );
    }

    #[test]
    fn splitting_keeps_each_statement_text() {
        assert_eq!(
            texts("SELECT 'a;b'; -- note;\n/* c; */ INSERT INTO t\nVALUES (1) ;;\n"),
            [("SELECT 'a;b'", 1), ("INSERT INTO t\nVALUES (1)", 2)]
        );
        assert_eq!(texts("SELECT 'é', 2"), [("SELECT 'é', 2", 1)]);
        assert_eq!(texts("-- only a comment\n;"), []);
        assert_eq!(texts("\n\nSELECT 'open"), [("SELECT 'open", 3)]);
    }

    #[test]
    fn blank_input() {
        assert!(is_blank("  ;; -- x\n"));
        assert!(!is_blank("SELECT"));
    }

    #[test]
    fn arguments() {
        assert_eq!(
            split_arguments(r#" a  'b c' "d ""e""" C:\x "#).unwrap(),
            ["a", "b c", "d \"e\"", "C:\\x"]
        );
        assert_eq!(split_arguments("''").unwrap(), [""]);
        assert!(split_arguments("'open").is_err());
    }
}
