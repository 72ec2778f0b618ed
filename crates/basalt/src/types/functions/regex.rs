//! Regular-expression functions: `regexp_replace`, `regexp_match` and `regexp_like` (which
//! the `~`, `~*`, `!~` and `!~*` operators also call).
//!
//! PostgreSQL's patterns are Henry Spencer's "advanced regular expressions"; Basalt compiles
//! them with the `regex` crate, whose syntax agrees on everything people usually write
//! (classes, `[[:alpha:]]`, `\d \w \s`, quantifiers `{m,n}`, non-greedy `*?`, groups, `(?:...)`,
//! alternation, anchors). What it lacks — back-references *inside* a pattern (`(a)\1`) and
//! lookaround — is reported as an invalid regular expression (2201B), never a crash. Matching
//! runs in linear time, so no pattern can make a query hang.
//!
//! PostgreSQL's default is *not* newline-sensitive: `.` and `[^x]` match a newline and `^`/`$`
//! anchor only at the ends of the string. The flags string changes that as PostgreSQL's does:
//! `i` case-insensitive, `c` case-sensitive (the later of the two wins), `n` or `m`
//! newline-sensitive, `p` partial (`.` stops at newlines, anchors do not), `w` the other
//! partial (anchors at lines, `.` crosses newlines), `s` back to the default, `x` expanded
//! syntax (whitespace and `#` comments ignored), `t` tight (the default), `q` the whole
//! pattern is a literal string, and `g` (only for `regexp_replace`) replaces every match
//! instead of the first. Unknown flags, and the POSIX basic/extended `b`/`e` dialects, are
//! 22023.
//!
//! `regexp_match` returns a `text[]`, as PostgreSQL: the capture groups of the first match
//! (NULL for a group that did not take part), or the whole match when the pattern has no
//! groups, and NULL when nothing matches.
//!
//! Compiled patterns are kept in a small per-thread cache keyed by pattern and flags: a
//! constant pattern applied to every row of a scan compiles once, and the cache is cleared
//! when it reaches [`CACHE_CAPACITY`] entries so that distinct per-row patterns cannot grow
//! it without bound.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use regex::{Captures, Regex, RegexBuilder};

use super::{
    MAX_RESULT_BYTES, Param, ScalarFunction, check_args, strict_nulls, text_arg, too_large,
};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("regexp_replace", replace_type, regexp_replace),
    function!("regexp_match", match_type, regexp_match),
    function!("regexp_like", like_type, regexp_like),
];

/// How many compiled patterns one thread keeps.
const CACHE_CAPACITY: usize = 64;

/// The most memory one compiled pattern may take; `a{1000}{1000}` is refused (2201B) rather
/// than compiled into a gigantic automaton.
const COMPILED_SIZE_LIMIT: usize = 8 << 20;

thread_local! {
    static CACHE: RefCell<HashMap<(String, Options), Rc<Regex>>> =
        RefCell::new(HashMap::new());
}

fn replace_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text; 3], &[Param::Text])?;
    Ok(DataType::Text(None))
}

fn match_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text; 2], &[Param::Text])?;
    Ok(DataType::Array(&DataType::Text(None)))
}

fn like_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text; 2], &[Param::Text])?;
    Ok(DataType::Boolean)
}

/// The compile-time options a flags string selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Options {
    case_insensitive: bool,
    /// `.` and negated brackets match a newline.
    dot_matches_newline: bool,
    /// `^` and `$` also match at line boundaries.
    multi_line: bool,
    expanded: bool,
    literal: bool,
}

/// Parsed flags: the compile options plus whether `g` was given.
struct Flags {
    options: Options,
    global: bool,
}

fn parse_flags(flags: &str) -> Result<Flags, TypeError> {
    let mut options = Options {
        case_insensitive: false,
        dot_matches_newline: true,
        multi_line: false,
        expanded: false,
        literal: false,
    };
    let mut global = false;
    for flag in flags.chars() {
        match flag {
            'g' => global = true,
            'i' => options.case_insensitive = true,
            'c' => options.case_insensitive = false,
            'n' | 'm' => {
                options.dot_matches_newline = false;
                options.multi_line = true;
            }
            'p' => {
                options.dot_matches_newline = false;
                options.multi_line = false;
            }
            'w' => {
                options.dot_matches_newline = true;
                options.multi_line = true;
            }
            's' => {
                options.dot_matches_newline = true;
                options.multi_line = false;
            }
            'x' => options.expanded = true,
            't' => options.expanded = false,
            'q' => options.literal = true,
            other => {
                return Err(TypeError::InvalidArgument(format!(
                    "invalid regular expression option: \"{other}\""
                )));
            }
        }
    }
    Ok(Flags { options, global })
}

/// The compiled pattern, from the cache when this thread compiled it before.
fn compile(pattern: &str, options: Options) -> Result<Rc<Regex>, TypeError> {
    let key = (pattern.to_owned(), options);
    if let Some(found) = CACHE.with(|cache| cache.borrow().get(&key).cloned()) {
        return Ok(found);
    }
    let source = if options.literal {
        regex::escape(pattern)
    } else {
        pattern.to_owned()
    };
    let compiled = RegexBuilder::new(&source)
        .case_insensitive(options.case_insensitive)
        .dot_matches_new_line(options.dot_matches_newline)
        .multi_line(options.multi_line)
        .ignore_whitespace(options.expanded)
        .size_limit(COMPILED_SIZE_LIMIT)
        .build()
        .map_err(|error| TypeError::InvalidRegularExpression(describe(&error)))?;
    let compiled = Rc::new(compiled);
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_CAPACITY {
            cache.clear();
        }
        cache.insert(key, Rc::clone(&compiled));
    });
    Ok(compiled)
}

/// A one-line description of a compile error (the crate's messages span several lines with
/// a caret diagram, which does not fit an error message).
fn describe(error: &regex::Error) -> String {
    match error {
        regex::Error::Syntax(text) => text
            .lines()
            .rev()
            .find(|line| line.starts_with("error:"))
            .map_or_else(
                || text.replace('\n', " "),
                |line| line.trim_start_matches("error:").trim().to_owned(),
            ),
        regex::Error::CompiledTooBig(_) => "pattern is too complex".to_owned(),
        other => other.to_string().replace('\n', " "),
    }
}

/// The flags argument at `i`, or none.
fn flags_arg(name: &str, args: &[Value], i: usize) -> Result<Flags, TypeError> {
    match args.get(i) {
        Some(_) => parse_flags(text_arg(name, args, i)?),
        None => parse_flags(""),
    }
}

/// Functions that look at one match refuse `g` as PostgreSQL does.
fn refuse_global(name: &str, flags: &Flags) -> Result<(), TypeError> {
    if flags.global {
        return Err(TypeError::InvalidArgument(format!(
            "{name}() does not support the \"global\" option"
        )));
    }
    Ok(())
}

/// Appends `replacement` for one match: `\1`..`\9` are capture groups (empty when the group
/// did not match or does not exist), `\&` is the whole match, `\\` is one backslash, and any
/// other backslash is kept as written — PostgreSQL's rules.
fn expand_replacement(captures: &Captures<'_>, replacement: &str, out: &mut String) {
    let mut chars = replacement.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some(digit @ '1'..='9') => {
                chars.next();
                let group = digit as usize - '0' as usize;
                if let Some(text) = captures.get(group) {
                    out.push_str(text.as_str());
                }
            }
            Some('&') => {
                chars.next();
                if let Some(whole) = captures.get(0) {
                    out.push_str(whole.as_str());
                }
            }
            Some('\\') => {
                chars.next();
                out.push('\\');
            }
            _ => out.push('\\'),
        }
    }
}

/// `regexp_replace(source, pattern, replacement[, flags])`: replaces the first match (every
/// match with `g`).
fn regexp_replace(args: &[Value]) -> Result<Value, TypeError> {
    const NAME: &str = "regexp_replace";
    if strict_nulls(NAME, args, 3, 4)? {
        return Ok(Value::Null);
    }
    let source = text_arg(NAME, args, 0)?;
    let pattern = text_arg(NAME, args, 1)?;
    let replacement = text_arg(NAME, args, 2)?;
    let flags = flags_arg(NAME, args, 3)?;
    let regex = compile(pattern, flags.options)?;
    let mut out = String::with_capacity(source.len());
    let mut copied_to = 0;
    for captures in regex.captures_iter(source) {
        let Some(whole) = captures.get(0) else {
            continue;
        };
        out.push_str(source.get(copied_to..whole.start()).unwrap_or(""));
        expand_replacement(&captures, replacement, &mut out);
        copied_to = whole.end();
        // Each match adds at most the replacement's expansion; checking per match bounds
        // `regexp_replace(big, '', big_replacement, 'g')` before it exhausts memory.
        if out.len() > MAX_RESULT_BYTES {
            return Err(too_large());
        }
        if !flags.global {
            break;
        }
    }
    out.push_str(source.get(copied_to..).unwrap_or(""));
    Ok(Value::Text(out))
}

/// `regexp_match(string, pattern[, flags])`: the first match as a `text[]` of its capture
/// groups (NULL for a group that took no part), or of the whole match when the pattern has
/// no groups; NULL when nothing matches.
fn regexp_match(args: &[Value]) -> Result<Value, TypeError> {
    let Some((string, regex)) = single_match_arguments("regexp_match", args)? else {
        return Ok(Value::Null);
    };
    let Some(captures) = regex.captures(string) else {
        return Ok(Value::Null);
    };
    let groups: Vec<Value> = if captures.len() > 1 {
        (1..captures.len())
            .map(|group| {
                captures
                    .get(group)
                    .map_or(Value::Null, |m| Value::Text(m.as_str().to_owned()))
            })
            .collect()
    } else {
        captures
            .get(0)
            .map(|m| Value::Text(m.as_str().to_owned()))
            .into_iter()
            .collect()
    };
    Ok(crate::types::Array::from_elements(DataType::Text(None), groups)?.into_value())
}

/// `regexp_like(string, pattern[, flags])`: whether the pattern matches anywhere.
fn regexp_like(args: &[Value]) -> Result<Value, TypeError> {
    let Some((string, regex)) = single_match_arguments("regexp_like", args)? else {
        return Ok(Value::Null);
    };
    Ok(Value::Boolean(regex.is_match(string)))
}

/// The `(string, pattern[, flags])` arguments of a function that looks at one match: the
/// string and the compiled pattern, or `None` when an argument is NULL (the result is then
/// NULL). The `g` flag is refused, as PostgreSQL does for these functions.
fn single_match_arguments<'a>(
    name: &str,
    args: &'a [Value],
) -> Result<Option<(&'a str, Rc<Regex>)>, TypeError> {
    if strict_nulls(name, args, 2, 3)? {
        return Ok(None);
    }
    let string = text_arg(name, args, 0)?;
    let pattern = text_arg(name, args, 1)?;
    let flags = flags_arg(name, args, 2)?;
    refuse_global(name, &flags)?;
    Ok(Some((string, compile(pattern, flags.options)?)))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, t};
    use super::*;

    fn replace(args: &[&str]) -> Result<Value, &'static str> {
        let values: Vec<Value> = args.iter().map(|a| t(a)).collect();
        call("regexp_replace", &values)
    }

    #[test]
    fn replacements() {
        assert_eq!(replace(&["foobarbaz", "b..", "X"]), Ok(t("fooXbaz")));
        assert_eq!(replace(&["foobarbaz", "b..", "X", "g"]), Ok(t("fooXX")));
        assert_eq!(
            replace(&["foobarbaz", "b(..)", "X\\1Y", "g"]),
            Ok(t("fooXarYXazY"))
        );
        assert_eq!(replace(&["Hello", "L", "_", "ig"]), Ok(t("He__o")));
        assert_eq!(replace(&["abc", "b", "[\\&]"]), Ok(t("a[b]c")));
        assert_eq!(replace(&["abc", "b", "\\\\"]), Ok(t("a\\c")));
        assert_eq!(replace(&["abc", "b", "\\x\\0\\5"]), Ok(t("a\\x\\0c")));
        assert_eq!(replace(&["abc", "", "-", "g"]), Ok(t("-a-b-c-")));
        assert_eq!(replace(&["a.c", ".", "x", "q"]), Ok(t("axc")));
        assert_eq!(replace(&["a\nb", "a.b", "x"]), Ok(t("x")));
        assert_eq!(replace(&["a\nb", "a.b", "x", "n"]), Ok(t("a\nb")));
        assert_eq!(replace(&["abc", "(", "x"]), Err("2201B"));
        assert_eq!(replace(&["abc", "(a)\\1", "x"]), Err("2201B"));
        assert_eq!(replace(&["abc", "a", "x", "z"]), Err("22023"));
        assert_eq!(replace(&["abc", "a{1000}{1000}", "x"]), Err("2201B"));
    }

    #[test]
    fn matches_and_likes() {
        let m = |s: &str, p: &str| {
            call("regexp_match", &[t(s), t(p)]).map(|v| match v {
                Value::Null => "NULL".to_owned(),
                other => other.to_string(),
            })
        };
        assert_eq!(m("foobarbequebaz", "bar.*que").as_deref(), Ok("{barbeque}"));
        assert_eq!(
            m("foobarbequebaz", "(bar)(beque)").as_deref(),
            Ok("{bar,beque}")
        );
        assert_eq!(m("abc", "x").as_deref(), Ok("NULL"));
        assert_eq!(m("ac", "a(b)?c").as_deref(), Ok("{NULL}"));
        assert_eq!(
            call("regexp_match", &[t("ABC"), t("b"), t("g")]),
            Err("22023")
        );
        assert_eq!(
            call("regexp_like", &[t("ABC"), t("b"), t("i")]),
            Ok(Value::Boolean(true))
        );
        assert_eq!(
            call("regexp_like", &[t("ABC"), t("b")]),
            Ok(Value::Boolean(false))
        );
    }

    #[test]
    fn cache_stays_bounded() {
        for n in 0..(CACHE_CAPACITY * 3) {
            let _ = call("regexp_like", &[t("x"), t(&format!("x{n}"))]);
        }
        CACHE.with(|cache| assert!(cache.borrow().len() <= CACHE_CAPACITY));
    }
}
