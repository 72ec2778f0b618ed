//! Pattern matching: `LIKE` / `ILIKE` (PostgreSQL) and `GLOB` (SQLite).
//!
//! The executor evaluates `text LIKE pattern [ESCAPE e]` with [`like`], or, when the pattern
//! is a constant, compiles it once with [`LikePattern::new`] and calls
//! [`LikePattern::matches`] per row. [`like_prefix`] finds the literal prefix that would let
//! the planner turn `col LIKE 'abc%'` into an index range; the planner does not do that yet.
//!
//! Patterns are compiled to a list of single-character tokens (a literal, any one character,
//! a class, or "any run") and matched with the two-pointer wildcard algorithm, which
//! backtracks only to the most recent run wildcard: time is O(text × pattern) in the worst
//! case, never exponential. Matching works on characters, so `_` and `?` match one whole
//! multi-byte character.

use super::TypeError;

/// One pattern element; every element but `AnyRun` matches exactly one character.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Literal(char),
    AnyOne,
    AnyRun,
    /// A GLOB character class: matches when the character is in one of the inclusive ranges,
    /// or, when `negated`, in none of them.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Token {
    fn matches_char(&self, c: char) -> bool {
        match self {
            Token::Literal(l) => *l == c,
            Token::AnyOne => true,
            Token::AnyRun => false,
            Token::Class { negated, ranges } => {
                ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != *negated
            }
        }
    }
}

/// A compiled LIKE / ILIKE pattern.
#[derive(Clone, Debug)]
pub struct LikePattern {
    tokens: Vec<Token>,
    case_insensitive: bool,
}

impl LikePattern {
    /// Compiles `pattern`: `%` matches any run of characters, `_` any one character, and the
    /// escape character (if any) makes the next character literal. A pattern ending in the
    /// escape character is an error (22025). With `case_insensitive` (ILIKE), text and
    /// pattern are compared after Unicode lower-casing.
    pub fn new(
        pattern: &str,
        escape: Option<char>,
        case_insensitive: bool,
    ) -> Result<LikePattern, TypeError> {
        let mut tokens = Vec::with_capacity(pattern.len());
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            if Some(c) == escape {
                let escaped = chars.next().ok_or(TypeError::InvalidEscapeSequence)?;
                push_literal(&mut tokens, escaped, case_insensitive);
            } else if c == '%' {
                push_run(&mut tokens);
            } else if c == '_' {
                tokens.push(Token::AnyOne);
            } else {
                push_literal(&mut tokens, c, case_insensitive);
            }
        }
        Ok(LikePattern {
            tokens,
            case_insensitive,
        })
    }

    /// Whether `text` matches the whole pattern.
    pub fn matches(&self, text: &str) -> bool {
        if self.case_insensitive {
            let folded: Vec<char> = text.chars().flat_map(char::to_lowercase).collect();
            match_tokens(&self.tokens, &folded)
        } else {
            let chars: Vec<char> = text.chars().collect();
            match_tokens(&self.tokens, &chars)
        }
    }
}

/// A compiled SQLite GLOB pattern.
#[derive(Clone, Debug)]
pub struct GlobPattern {
    /// `None` for a pattern with an unterminated `[`, which matches nothing (as in SQLite).
    tokens: Option<Vec<Token>>,
}

impl GlobPattern {
    /// Compiles `pattern`: `*` matches any run, `?` any one character, `[...]` one character
    /// from a class (`^` first negates, `a-z` is a range, `]` first and `-` first or last are
    /// literal). Everything else, including case, must match exactly.
    pub fn new(pattern: &str) -> GlobPattern {
        GlobPattern {
            tokens: compile_glob(pattern),
        }
    }

    /// Whether `text` matches the whole pattern.
    pub fn matches(&self, text: &str) -> bool {
        match &self.tokens {
            Some(tokens) => {
                let chars: Vec<char> = text.chars().collect();
                match_tokens(tokens, &chars)
            }
            None => false,
        }
    }
}

/// `text LIKE pattern` (or `ILIKE` with `case_insensitive`), with an explicit `ESCAPE`
/// character or none. PostgreSQL's default escape is backslash: the binder passes
/// `Some('\\')` when the query has no ESCAPE clause and `None` for `ESCAPE ''`.
pub fn like(
    text: &str,
    pattern: &str,
    escape: Option<char>,
    case_insensitive: bool,
) -> Result<bool, TypeError> {
    Ok(LikePattern::new(pattern, escape, case_insensitive)?.matches(text))
}

/// `text GLOB pattern` (SQLite; case-sensitive).
pub fn glob(text: &str, pattern: &str) -> bool {
    GlobPattern::new(pattern).matches(text)
}

/// The literal text every match of a (case-sensitive) LIKE pattern starts with, for index
/// range seeks: `Some("abc")` for `'abc%'` and `'abc_d'`, `Some("a%b")` for `'a\%b%'` with
/// escape `\`, the whole string for a pattern without wildcards. `None` when the prefix is
/// empty or the pattern is invalid (nothing to seek on).
#[allow(
    dead_code,
    reason = "the planner's LIKE-prefix index range is still to come; tested here"
)]
pub fn like_prefix(pattern: &str, escape: Option<char>) -> Option<String> {
    let compiled = LikePattern::new(pattern, escape, false).ok()?;
    let prefix: String = compiled
        .tokens
        .iter()
        .map_while(|token| match token {
            Token::Literal(c) => Some(*c),
            _ => None,
        })
        .collect();
    (!prefix.is_empty()).then_some(prefix)
}

fn push_literal(tokens: &mut Vec<Token>, c: char, case_insensitive: bool) {
    if case_insensitive {
        tokens.extend(c.to_lowercase().map(Token::Literal));
    } else {
        tokens.push(Token::Literal(c));
    }
}

/// Adds a run wildcard, merging consecutive ones (`%%` is `%`).
fn push_run(tokens: &mut Vec<Token>) {
    if tokens.last() != Some(&Token::AnyRun) {
        tokens.push(Token::AnyRun);
    }
}

fn compile_glob(pattern: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => push_run(&mut tokens),
            '?' => tokens.push(Token::AnyOne),
            '[' => {
                let mut negated = false;
                let mut ranges: Vec<(char, char)> = Vec::new();
                if chars.peek() == Some(&'^') {
                    negated = true;
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    ranges.push((']', ']'));
                    chars.next();
                }
                // Whether the last item is a single character a following `-` may extend.
                let mut can_extend = !ranges.is_empty();
                loop {
                    let member = chars.next()?;
                    if member == ']' {
                        break;
                    }
                    let next_closes = matches!(chars.peek(), Some(']') | None);
                    if member == '-' && can_extend && !next_closes {
                        let hi = chars.next()?;
                        if let Some(last) = ranges.last_mut() {
                            last.1 = hi;
                        }
                        can_extend = false;
                    } else {
                        ranges.push((member, member));
                        can_extend = true;
                    }
                }
                tokens.push(Token::Class { negated, ranges });
            }
            other => tokens.push(Token::Literal(other)),
        }
    }
    Some(tokens)
}

/// The two-pointer wildcard match: advance through text and pattern together; on a
/// mismatch, retry from the most recent `AnyRun` with it absorbing one more character.
/// Backtracking to an earlier run is never needed, since a later run can absorb anything an
/// earlier one could.
fn match_tokens(tokens: &[Token], text: &[char]) -> bool {
    let mut t = 0;
    let mut p = 0;
    // (pattern index after the last run, text index that run's match ends at)
    let mut backtrack: Option<(usize, usize)> = None;
    while let Some(&c) = text.get(t) {
        match tokens.get(p) {
            Some(Token::AnyRun) => {
                p += 1;
                backtrack = Some((p, t));
            }
            Some(token) if token.matches_char(c) => {
                p += 1;
                t += 1;
            }
            _ => match backtrack {
                Some((after_run, run_end)) => {
                    p = after_run;
                    t = run_end + 1;
                    backtrack = Some((after_run, run_end + 1));
                }
                None => return false,
            },
        }
    }
    tokens
        .get(p..)
        .is_some_and(|rest| rest.iter().all(|token| *token == Token::AnyRun))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Case = (
        &'static str,
        &'static str,
        Option<char>,
        bool,
        Result<bool, &'static str>,
    );

    #[test]
    fn like_cases() {
        let bs = Some('\\');
        let cases: Vec<Case> = vec![
            ("abc", "abc", bs, false, Ok(true)),
            ("abc", "ab", bs, false, Ok(false)),
            ("abc", "a%", bs, false, Ok(true)),
            ("abc", "%c", bs, false, Ok(true)),
            ("abc", "%b%", bs, false, Ok(true)),
            ("abc", "%%", bs, false, Ok(true)),
            ("", "%%", bs, false, Ok(true)),
            ("", "", bs, false, Ok(true)),
            ("a", "", bs, false, Ok(false)),
            ("", "_", bs, false, Ok(false)),
            ("abc", "a_c", bs, false, Ok(true)),
            ("ac", "a_c", bs, false, Ok(false)),
            ("héllo", "h_llo", bs, false, Ok(true)),
            ("日本語", "___", bs, false, Ok(true)),
            ("日本語", "__", bs, false, Ok(false)),
            ("日本語", "%語", bs, false, Ok(true)),
            ("ABC", "abc", bs, false, Ok(false)),
            ("ABC", "abc", bs, true, Ok(true)),
            ("ÉCOLE", "éc%", bs, true, Ok(true)),
            ("abc", "A%", bs, true, Ok(true)),
            ("50%", "50\\%", bs, false, Ok(true)),
            ("500", "50\\%", bs, false, Ok(false)),
            ("a_b", "a\\_b", bs, false, Ok(true)),
            ("axb", "a\\_b", bs, false, Ok(false)),
            ("a\\b", "a\\\\b", bs, false, Ok(true)),
            ("ab", "a\\b", bs, false, Ok(true)),
            ("a\\b", "a\\b", None, false, Ok(true)),
            ("50%", "50#%", Some('#'), false, Ok(true)),
            ("abc", "ab\\", bs, false, Err("22025")),
            ("abc", "ab#", Some('#'), false, Err("22025")),
            ("aXb", "aXXb", Some('X'), true, Ok(true)),
            ("aYb", "aXXb", Some('X'), true, Ok(false)),
            ("axb", "aXxb", Some('X'), true, Ok(true)),
            ("mississippi", "%iss%ppi", bs, false, Ok(true)),
            ("mississippi", "m%s%s%s%s%", bs, false, Ok(true)),
            ("mississippi", "m%s%s%s%s%s%", bs, false, Ok(false)),
            ("mississippi", "m%ss%ss%", bs, false, Ok(true)),
            ("aaa", "%a%a%a%a", bs, false, Ok(false)),
        ];
        for (text, pattern, escape, ci, expected) in cases {
            let got = like(text, pattern, escape, ci).map_err(|e| e.code());
            assert_eq!(
                got, expected,
                "{text:?} LIKE {pattern:?} ESCAPE {escape:?} ci={ci}"
            );
        }
    }

    #[test]
    fn like_is_not_exponential() {
        let text = "a".repeat(2000);
        let pattern = format!("{}b", "%a".repeat(200));
        assert_eq!(like(&text, &pattern, None, false), Ok(false));
        let pattern = format!("{}%", "%a".repeat(200));
        assert_eq!(like(&text, &pattern, None, false), Ok(true));
    }

    #[test]
    fn glob_cases() {
        let cases: Vec<(&str, &str, bool)> = vec![
            ("abc", "abc", true),
            ("abc", "a*", true),
            ("abc", "*", true),
            ("", "*", true),
            ("", "", true),
            ("", "?", false),
            ("abc", "a?c", true),
            ("aé", "a?", true),
            ("ABC", "abc", false),
            ("a%c", "a%c", true),
            ("a_c", "abc", false),
            ("b", "[abc]", true),
            ("d", "[abc]", false),
            ("d", "[^abc]", true),
            ("a", "[^abc]", false),
            ("m", "[a-z]", true),
            ("M", "[a-z]", false),
            ("-", "[a-]", true),
            ("-", "[-a]", true),
            ("b", "[-a]", false),
            ("]", "[]a]", true),
            ("a", "[]a]", true),
            ("]", "[^]a]", false),
            ("x", "[^]a]", true),
            ("5", "[0-9][0-9]", false),
            ("57", "[0-9][0-9]", true),
            ("a", "[a", false),
            ("[", "[[]", true),
            ("*", "[*]", true),
            ("x", "[*]", false),
            ("file.txt", "*.txt", true),
            ("file.txt", "*.TXT", false),
            ("abcabd", "*ab?", true),
        ];
        for (text, pattern, expected) in cases {
            assert_eq!(glob(text, pattern), expected, "{text:?} GLOB {pattern:?}");
        }
    }

    /// A straightforward recursive LIKE matcher (exponential, for small inputs only).
    fn naive_like(text: &[char], pattern: &[char]) -> bool {
        match pattern.split_first() {
            None => text.is_empty(),
            Some(('%', rest)) => (0..=text.len()).any(|i| naive_like(&text[i..], rest)),
            Some(('_', rest)) => !text.is_empty() && naive_like(&text[1..], rest),
            Some((c, rest)) => text.first() == Some(c) && naive_like(&text[1..], rest),
        }
    }

    proptest::proptest! {
        #[test]
        fn like_agrees_with_naive_matcher(text in "[ab]{0,8}", pattern in "[ab%_]{0,6}") {
            let t: Vec<char> = text.chars().collect();
            let p: Vec<char> = pattern.chars().collect();
            proptest::prop_assert_eq!(like(&text, &pattern, None, false), Ok(naive_like(&t, &p)));
        }

        #[test]
        fn glob_agrees_with_like(text in "[ab]{0,8}", pattern in "[ab*?]{0,6}") {
            let as_like = pattern.replace('*', "%").replace('?', "_");
            let expected = like(&text, &as_like, None, false);
            proptest::prop_assert_eq!(Ok(glob(&text, &pattern)), expected);
        }
    }

    #[test]
    fn prefixes() {
        let bs = Some('\\');
        assert_eq!(like_prefix("abc%", bs), Some("abc".to_owned()));
        assert_eq!(like_prefix("abc_d%", bs), Some("abc".to_owned()));
        assert_eq!(like_prefix("abc", bs), Some("abc".to_owned()));
        assert_eq!(like_prefix("a\\%b%", bs), Some("a%b".to_owned()));
        assert_eq!(like_prefix("%abc", bs), None);
        assert_eq!(like_prefix("", bs), None);
        assert_eq!(like_prefix("ab\\", bs), None);
        assert_eq!(like_prefix("日本%", None), Some("日本".to_owned()));
    }
}
