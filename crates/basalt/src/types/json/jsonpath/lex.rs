//! The jsonpath tokenizer: SQL/JSON path text into tokens with their byte positions.
//!
//! It follows PostgreSQL 15's `jsonpath_scan.l`: the special characters
//! `? % $ . [ ] { } ( ) | & ! = < > @ # , * : - + / \ "` and blanks separate tokens; any
//! run of other characters is a word (a key, a keyword, or after `$` a variable name).
//! Keywords are not decided here: `type` is a key after `.` and a method before `(`, which
//! only the parser knows. Numbers are PostgreSQL's (`1`, `1.5`, `.5`, `1.`, `1e3`); a number
//! directly followed by a word character is "trailing junk after numeric literal", as
//! PostgreSQL reports it. Errors carry the byte position of the offending token, and the
//! text PostgreSQL names in its message ("at or near ...").

use super::ParseError;

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    /// A run of word characters (a key, keyword or method name).
    Word(String),
    /// A double-quoted string, decoded.
    Str(String),
    /// `$name` or `$"name"`: a variable.
    Variable(String),
    /// A number in PostgreSQL's `numeric` output form.
    Number(String),
    /// Punctuation and operators: `$ @ . [ ] ( ) { } , * ** ? + - / % == != < <= > >= && || !`
    /// (`<>` is returned as `!=`).
    Punct(&'static str),
}

/// A token, where it starts, and its source text.
#[derive(Clone, Debug)]
pub(super) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub text: String,
}

/// Characters that end a word (PostgreSQL's `special` and `blank` sets, and the backslash).
fn is_special(ch: char) -> bool {
    matches!(
        ch,
        '?' | '%'
            | '$'
            | '.'
            | '['
            | ']'
            | '{'
            | '}'
            | '('
            | ')'
            | '|'
            | '&'
            | '!'
            | '='
            | '<'
            | '>'
            | '@'
            | '#'
            | ','
            | '*'
            | ':'
            | '-'
            | '+'
            | '/'
            | '\\'
            | '"'
            | ' '
            | '\t'
            | '\n'
            | '\r'
            | '\u{c}'
    )
}

/// Splits `input` into tokens.
pub(super) fn tokenize(input: &str) -> Result<Vec<Token>, ParseError> {
    let bytes = input.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < input.len() {
        let rest = &input[at..];
        let Some(ch) = rest.chars().next() else {
            break;
        };
        if matches!(ch, ' ' | '\t' | '\n' | '\r' | '\u{c}') {
            at += 1;
            continue;
        }
        let start = at;
        let next = bytes.get(at + 1).copied();
        let (tok, len) =
            if ch.is_ascii_digit() || (ch == '.' && next.is_some_and(|b| b.is_ascii_digit())) {
                let (number, len) = number(input, at)?;
                (Tok::Number(number), len)
            } else if ch == '"' {
                let (text, len) = string(input, at)?;
                (Tok::Str(text), len)
            } else if ch == '$' {
                match next {
                    Some(b'"') => {
                        let (text, len) = string(input, at + 1)?;
                        (Tok::Variable(text), len + 1)
                    }
                    Some(_) if !rest[1..].starts_with(is_special) => {
                        let len = word_len(&rest[1..]);
                        (Tok::Variable(rest[1..1 + len].to_owned()), len + 1)
                    }
                    _ => (Tok::Punct("$"), 1),
                }
            } else if is_special(ch) {
                let two = rest.get(..2).unwrap_or("");
                let punct: Option<(&'static str, usize)> = match two {
                    "**" => Some(("**", 2)),
                    "==" => Some(("==", 2)),
                    "!=" | "<>" => Some(("!=", 2)),
                    "<=" => Some(("<=", 2)),
                    ">=" => Some((">=", 2)),
                    "&&" => Some(("&&", 2)),
                    "||" => Some(("||", 2)),
                    _ => match ch {
                        '$' => Some(("$", 1)),
                        '@' => Some(("@", 1)),
                        '.' => Some((".", 1)),
                        '[' => Some(("[", 1)),
                        ']' => Some(("]", 1)),
                        '(' => Some(("(", 1)),
                        ')' => Some((")", 1)),
                        '{' => Some(("{", 1)),
                        '}' => Some(("}", 1)),
                        ',' => Some((",", 1)),
                        '*' => Some(("*", 1)),
                        '?' => Some(("?", 1)),
                        '+' => Some(("+", 1)),
                        '-' => Some(("-", 1)),
                        '/' => Some(("/", 1)),
                        '%' => Some(("%", 1)),
                        '<' => Some(("<", 1)),
                        '>' => Some((">", 1)),
                        '!' => Some(("!", 1)),
                        _ => None,
                    },
                };
                match punct {
                    Some((punct, len)) => (Tok::Punct(punct), len),
                    // `=`, `&`, `|`, `#`, `:`, `\` alone: no token of the grammar.
                    None => return Err(ParseError::near(start, &rest[..ch.len_utf8()])),
                }
            } else {
                let len = word_len(rest);
                (Tok::Word(rest[..len].to_owned()), len)
            };
        tokens.push(Token {
            tok,
            start,
            text: input[start..start + len].to_owned(),
        });
        at += len;
    }
    Ok(tokens)
}

/// The byte length of the word at the start of `text`.
fn word_len(text: &str) -> usize {
    text.find(is_special).unwrap_or(text.len())
}

/// A number at `start`: its `numeric` text and byte length.
fn number(input: &str, start: usize) -> Result<(String, usize), ParseError> {
    let bytes = input.as_bytes();
    let digits_from = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        at
    };
    let mut at = digits_from(start);
    let integer = &input[start..at];
    let mut fraction = "";
    if bytes.get(at) == Some(&b'.') {
        let end = digits_from(at + 1);
        fraction = &input[at + 1..end];
        at = end;
    }
    let mut exponent = "";
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        let mut end = at + 1;
        if matches!(bytes.get(end), Some(b'+' | b'-')) {
            end += 1;
        }
        let digits_end = digits_from(end);
        if digits_end == end {
            return Err(ParseError::new(
                start,
                format!(
                    "invalid numeric literal at or near \"{}\" of jsonpath input",
                    &input[start..end]
                ),
            ));
        }
        exponent = &input[at..digits_end];
        at = digits_end;
    }
    // PostgreSQL's integer is `0|[1-9][0-9]*`: a leading zero followed by a digit, or any
    // word character right after the number, is trailing junk.
    let leading_zero = integer.len() > 1 && integer.starts_with('0');
    let junk_at = if leading_zero {
        Some(start + 1)
    } else {
        input[at..]
            .chars()
            .next()
            .filter(|ch| !is_special(*ch))
            .map(|_| at)
    };
    if let Some(junk) = junk_at {
        let end = junk + input[junk..].chars().next().map_or(0, char::len_utf8);
        return Err(ParseError::new(
            start,
            format!(
                "trailing junk after numeric literal at or near \"{}\" of jsonpath input",
                &input[start..end]
            ),
        ));
    }
    let integer = if integer.is_empty() { "0" } else { integer };
    let json = if fraction.is_empty() {
        format!("{integer}{exponent}")
    } else {
        format!("{integer}.{fraction}{exponent}")
    };
    let text = crate::types::json::write::numeric_text(&json)
        .map_err(|error| ParseError::new(start, error.to_string()))?;
    Ok((text, at - start))
}

/// A double-quoted string starting at `start` (the `"`): its decoded text and byte length.
fn string(input: &str, start: usize) -> Result<(String, usize), ParseError> {
    let mut out = String::new();
    let mut chars = input[start + 1..].char_indices();
    let unterminated = || {
        ParseError::new(
            start,
            "unexpected end of quoted string at end of jsonpath input".to_owned(),
        )
    };
    while let Some((offset, ch)) = chars.next() {
        match ch {
            '"' => return Ok((out, offset + 2)),
            '\\' => {
                let (_, escape) = chars.next().ok_or_else(unterminated)?;
                match escape {
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'v' => out.push('\u{b}'),
                    'x' | 'u' => {
                        let here = start + 1 + offset;
                        let code = hex_escape(&mut chars, escape)
                            .ok_or_else(|| invalid_escape(here, &input[here..]))?;
                        out.push(code);
                    }
                    other => out.push(other),
                }
            }
            ch => out.push(ch),
        }
    }
    Err(unterminated())
}

fn invalid_escape(at: usize, rest: &str) -> ParseError {
    let shown: String = rest.chars().take(6).collect();
    ParseError::new(
        at,
        format!("invalid Unicode escape sequence at or near \"{shown}\" of jsonpath input"),
    )
}

/// The character of `\xNN`, `\uNNNN` or `\u{N...}` (the `\` and letter already read). A
/// UTF-16 surrogate pair `\uD83D\uDE00` combines into one character.
fn hex_escape(chars: &mut std::str::CharIndices<'_>, kind: char) -> Option<char> {
    let take = |count: usize, chars: &mut std::str::CharIndices<'_>| -> Option<u32> {
        let mut value = 0u32;
        for _ in 0..count {
            let (_, digit) = chars.next()?;
            value = value * 16 + digit.to_digit(16)?;
        }
        Some(value)
    };
    if kind == 'x' {
        let code = take(2, chars)?;
        return char::from_u32(code).filter(|c| *c != '\0');
    }
    let mut peek = chars.clone();
    if peek.next().map(|(_, c)| c) == Some('{') {
        chars.next();
        let mut value = 0u32;
        let mut count = 0;
        loop {
            let (_, digit) = chars.next()?;
            if digit == '}' {
                break;
            }
            value = value.checked_mul(16)? + digit.to_digit(16)?;
            count += 1;
            if count > 6 {
                return None;
            }
        }
        return char::from_u32(value).filter(|c| *c != '\0');
    }
    let high = take(4, chars)?;
    if (0xD800..0xDC00).contains(&high) {
        // A high surrogate must be followed by `\u` and a low one.
        let (_, backslash) = chars.next()?;
        let (_, u) = chars.next()?;
        if backslash != '\\' || u != 'u' {
            return None;
        }
        let low = take(4, chars)?;
        if !(0xDC00..0xE000).contains(&low) {
            return None;
        }
        return char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00));
    }
    char::from_u32(high).filter(|c| *c != '\0')
}
