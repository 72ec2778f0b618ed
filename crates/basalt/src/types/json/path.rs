//! Finding members of a JSON value: by key or index (`->`), along a path (`#>`, written as
//! a PostgreSQL `text[]` literal: the text of an untyped literal or of a `text[]` value),
//! and along a SQLite JSON
//! path (`json_extract`'s `$.a.b[0]`).
//!
//! Lookups return the member's source text, a slice of the value: for `json` that is the
//! member exactly as written, for `jsonb` it is already normalized. A missing key, an index
//! out of range or a step into a scalar finds nothing (SQL NULL), never an error, as in
//! PostgreSQL; only malformed paths are errors.

use super::super::TypeError;
use super::parse::{Shallow, shallow};

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// An object key; at an array, PostgreSQL's `#>` reads the key as an integer index.
    Key(String),
    /// An array index (negative: from the end).
    Index(i64),
    /// A NULL path element: the whole path finds nothing.
    Null,
}

/// The member `key` of object `value` (the last one, if the key repeats).
pub fn field<'a>(value: &'a str, key: &str) -> Result<Option<&'a str>, TypeError> {
    Ok(match shallow(value)? {
        Shallow::Object(members) => members
            .into_iter()
            .rev()
            .find(|(name, _)| name == key)
            .map(|(_, member)| member),
        _ => None,
    })
}

/// Element `index` of array `value`, counting from the end when negative.
pub fn element(value: &str, index: i64) -> Result<Option<&str>, TypeError> {
    Ok(match shallow(value)? {
        Shallow::Array(items) => {
            let position = if index < 0 {
                i64::try_from(items.len())
                    .ok()
                    .and_then(|length| length.checked_add(index))
            } else {
                Some(index)
            };
            position
                .and_then(|position| usize::try_from(position).ok())
                .and_then(|position| items.get(position).copied())
        }
        _ => None,
    })
}

/// Follows `steps` from `value`: keys at objects, indexes at arrays (a key step at an array
/// is read as an integer, as `#>` does with its `text[]` path; one that is not an integer
/// finds nothing).
pub fn follow<'a>(value: &'a str, steps: &[Step]) -> Result<Option<&'a str>, TypeError> {
    let mut current = value;
    for step in steps {
        let next = match step {
            Step::Null => None,
            Step::Index(index) => element(current, *index)?,
            Step::Key(key) => match current.as_bytes().first() {
                Some(b'{') => field(current, key)?,
                Some(b'[') => match key.trim().parse::<i64>() {
                    Ok(index) => element(current, index)?,
                    Err(_) => None,
                },
                _ => None,
            },
        };
        match next {
            Some(next) => current = next,
            None => return Ok(None),
        }
    }
    Ok(Some(current))
}

/// A member as text, as `->>` gives it: a string's contents, NULL for JSON null, anything
/// else as its JSON text.
pub fn as_text(member: &str) -> Result<Option<String>, TypeError> {
    Ok(match shallow(member)? {
        Shallow::Null => None,
        Shallow::String(s) => {
            if s.contains('\0') {
                return Err(TypeError::UntranslatableCharacter(
                    "unsupported Unicode escape sequence: \\u0000 cannot be converted to text",
                ));
            }
            Some(s)
        }
        _ => Some(member.to_owned()),
    })
}

/// Parses a path written as a PostgreSQL one-dimensional array literal: `{a,b,0}`, with
/// elements optionally double-quoted (backslash escapes inside), unquoted ones trimmed, and
/// unquoted `NULL` a null element. Malformed literals are 22P02.
pub fn parse_text_array(text: &str) -> Result<Vec<Step>, TypeError> {
    let malformed = || TypeError::MalformedArrayLiteral(text.to_owned());
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix('{')
        .and_then(|rest| rest.strip_suffix('}'))
        .ok_or_else(malformed)?;
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut steps = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut element = String::new();
        let step = if chars.next_if_eq(&'"').is_some() {
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => element.push(chars.next().ok_or_else(malformed)?),
                    Some(c) => element.push(c),
                    None => return Err(malformed()),
                }
            }
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
            Step::Key(element)
        } else {
            while let Some(c) = chars.next_if(|c| *c != ',') {
                match c {
                    '{' | '}' | '"' => return Err(malformed()),
                    '\\' => element.push(chars.next().ok_or_else(malformed)?),
                    c => element.push(c),
                }
            }
            let element = element.trim_end();
            if element.is_empty() {
                return Err(malformed());
            }
            if element.eq_ignore_ascii_case("null") {
                Step::Null
            } else {
                Step::Key(element.to_owned())
            }
        };
        steps.push(step);
        match chars.next() {
            None => return Ok(steps),
            Some(',') => {}
            Some(_) => return Err(malformed()),
        }
    }
}

/// Parses a SQLite JSON path: `$`, then any of `.key`, `."quoted key"`, `[N]` and `[#-N]`
/// (the Nth element from the end). Anything else is 22023 `bad JSON path`.
pub fn parse_sqlite_path(path: &str) -> Result<Vec<Step>, TypeError> {
    let bad = || TypeError::InvalidArgument(format!("bad JSON path: '{path}'"));
    let mut rest = path.strip_prefix('$').ok_or_else(bad)?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            if let Some(quoted) = after.strip_prefix('"') {
                let end = quoted.find('"').ok_or_else(bad)?;
                steps.push(Step::Key(quoted[..end].to_owned()));
                rest = &quoted[end + 1..];
            } else {
                let end = after.find(['.', '[']).unwrap_or(after.len());
                if end == 0 {
                    return Err(bad());
                }
                steps.push(Step::Key(after[..end].to_owned()));
                rest = &after[end..];
            }
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').ok_or_else(bad)?;
            let inside = after[..end].trim();
            let index = if let Some(from_end) = inside.strip_prefix('#') {
                let back = from_end.trim().strip_prefix('-').ok_or_else(bad)?;
                let back: i64 = back.trim().parse().map_err(|_| bad())?;
                if back <= 0 {
                    return Err(bad());
                }
                -back
            } else {
                let index: i64 = inside.parse().map_err(|_| bad())?;
                if index < 0 {
                    return Err(bad());
                }
                index
            };
            steps.push(Step::Index(index));
            rest = &after[end + 1..];
        } else {
            return Err(bad());
        }
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{"a": {"b": [10, {"c": "x"}, 30]}, "k": 1, "k": 2, "s": "q\"t"}"#;

    fn key(k: &str) -> Step {
        Step::Key(k.to_owned())
    }

    #[test]
    fn fields_elements_and_paths() {
        assert_eq!(field(DOC, "k").unwrap(), Some("2"), "the last duplicate");
        assert_eq!(field(DOC, "zz").unwrap(), None);
        assert_eq!(field("[1]", "a").unwrap(), None);
        assert_eq!(element("[1, 2, 3]", -1).unwrap(), Some("3"));
        assert_eq!(element("[1, 2, 3]", -3).unwrap(), Some("1"));
        assert_eq!(element("[1, 2, 3]", -4).unwrap(), None);
        assert_eq!(element("[1, 2, 3]", 3).unwrap(), None);
        assert_eq!(element("{\"a\": 1}", 0).unwrap(), None);
        assert_eq!(
            follow(DOC, &[key("a"), key("b"), key("1"), key("c")]).unwrap(),
            Some("\"x\"")
        );
        assert_eq!(
            follow(DOC, &[key("a"), key("b"), key("-1")]).unwrap(),
            Some("30")
        );
        assert_eq!(follow(DOC, &[key("a"), key("b"), key("x")]).unwrap(), None);
        assert_eq!(follow(DOC, &[key("k"), key("x")]).unwrap(), None);
        assert_eq!(follow(DOC, &[key("a"), Step::Null]).unwrap(), None);
        assert_eq!(follow(DOC, &[]).unwrap(), Some(DOC));
        assert_eq!(as_text("\"q\\\"t\"").unwrap(), Some("q\"t".to_owned()));
        assert_eq!(as_text("null").unwrap(), None);
        assert_eq!(as_text("[1,  2]").unwrap(), Some("[1,  2]".to_owned()));
    }

    #[test]
    fn text_array_literals() {
        assert_eq!(
            parse_text_array("{a, b ,0}").unwrap(),
            [key("a"), key("b"), key("0")]
        );
        assert_eq!(parse_text_array(" {} ").unwrap(), []);
        assert_eq!(
            parse_text_array(r#"{"x, y","q\"z",NULL,"NULL"}"#).unwrap(),
            [key("x, y"), key("q\"z"), Step::Null, key("NULL")]
        );
        for bad in [
            "a,b", "{a", "{a,,b}", "{\"a}", "{{a}}", "{a\"b}", "{\"a\"b}",
        ] {
            assert_eq!(
                parse_text_array(bad).map_err(|e| e.code()),
                Err("22P02"),
                "{bad}"
            );
        }
    }

    #[test]
    fn sqlite_paths() {
        assert_eq!(parse_sqlite_path("$").unwrap(), []);
        assert_eq!(
            parse_sqlite_path("$.a.b[0]").unwrap(),
            [key("a"), key("b"), Step::Index(0)]
        );
        assert_eq!(
            parse_sqlite_path("$.\"x.y\"[#-1]").unwrap(),
            [key("x.y"), Step::Index(-1)]
        );
        for bad in [
            "", "a", "$.", "$[", "$[x]", "$[-1]", "$[#]", "$[#-0]", "$a", "$.\"a",
        ] {
            assert_eq!(
                parse_sqlite_path(bad).map_err(|e| e.code()),
                Err("22023"),
                "{bad}"
            );
        }
    }
}
