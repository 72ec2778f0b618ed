//! The text form of arrays, as PostgreSQL's `array_in` reads it and `array_out` writes it.
//!
//! Input: optional dimension decoration (`[0:2]={...}`), then nested braces; elements are
//! separated by commas, may be double-quoted (with `\` escaping any character inside or
//! outside quotes), lose unquoted leading and trailing whitespace, and an unquoted `NULL`
//! (any case) is a NULL element. Sub-arrays must have matching dimensions. Each element's
//! text is then read as the element type reads text. Anything else is 22P02 "malformed
//! array literal".
//!
//! Output: `{1,2,3}`, nested braces per dimension, `{}` for the empty array, the decoration
//! when any lower bound is not 1, `NULL` for NULL elements, and an element in double quotes
//! (with `"` and `\` backslash-escaped) when it is empty, spells `NULL`, or holds a brace,
//! comma, quote, backslash or whitespace. Booleans are written `t` / `f`, as `boolout` does.

use super::{Array, Dimension, MAX_DIMENSIONS};
use crate::types::{DataType, TypeError, Value};

fn malformed(input: &str) -> TypeError {
    TypeError::MalformedArrayLiteral(input.to_owned())
}

/// One parsed level of braces.
enum Node {
    List(Vec<Node>),
    /// An element's text, `None` for an unquoted NULL.
    Item(Option<String>),
}

struct Parser<'a> {
    input: &'a str,
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    depth: usize,
}

impl Parser<'_> {
    fn skip_whitespace(&mut self) {
        while self
            .chars
            .next_if(|(_, c)| c.is_ascii_whitespace())
            .is_some()
        {}
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    /// After an opening `{`: the list up to and including its `}`.
    fn list(&mut self) -> Result<Node, TypeError> {
        self.depth += 1;
        if self.depth > MAX_DIMENSIONS {
            return Err(super::too_many_dimensions(self.depth));
        }
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.chars.next_if(|&(_, c)| c == '}').is_some() {
            self.depth -= 1;
            return Ok(Node::List(items));
        }
        loop {
            self.skip_whitespace();
            let item = match self.peek() {
                Some('{') => {
                    self.chars.next();
                    self.list()?
                }
                Some('"') => {
                    self.chars.next();
                    Node::Item(Some(self.quoted()?))
                }
                Some(_) => self.unquoted()?,
                None => return Err(malformed(self.input)),
            };
            items.push(item);
            self.skip_whitespace();
            match self.chars.next() {
                Some((_, ',')) => {}
                Some((_, '}')) => break,
                _ => return Err(malformed(self.input)),
            }
        }
        self.depth -= 1;
        Ok(Node::List(items))
    }

    fn quoted(&mut self) -> Result<String, TypeError> {
        let mut text = String::new();
        loop {
            match self.chars.next() {
                Some((_, '"')) => return Ok(text),
                Some((_, '\\')) => match self.chars.next() {
                    Some((_, c)) => text.push(c),
                    None => return Err(malformed(self.input)),
                },
                Some((_, c)) => text.push(c),
                None => return Err(malformed(self.input)),
            }
        }
    }

    fn unquoted(&mut self) -> Result<Node, TypeError> {
        let mut text = String::new();
        // The length of `text` up to its last character that is not unescaped whitespace,
        // so trailing unescaped whitespace is dropped.
        let mut kept = 0;
        let mut escaped = false;
        loop {
            match self.peek() {
                Some(',' | '}') => break,
                Some('{' | '"') | None => return Err(malformed(self.input)),
                Some('\\') => {
                    self.chars.next();
                    match self.chars.next() {
                        Some((_, c)) => text.push(c),
                        None => return Err(malformed(self.input)),
                    }
                    escaped = true;
                    kept = text.len();
                }
                Some(c) => {
                    self.chars.next();
                    text.push(c);
                    if !c.is_ascii_whitespace() {
                        kept = text.len();
                    }
                }
            }
        }
        text.truncate(kept);
        if text.is_empty() && !escaped {
            return Err(malformed(self.input));
        }
        if !escaped && text.eq_ignore_ascii_case("NULL") {
            return Ok(Node::Item(None));
        }
        Ok(Node::Item(Some(text)))
    }
}

/// Reads `[lo:hi][lo:hi]=` decoration; `None` when there is none.
fn decoration(text: &str, input: &str) -> Result<Option<(Vec<Dimension>, usize)>, TypeError> {
    if !text.starts_with('[') {
        return Ok(None);
    }
    let mut dimensions = Vec::new();
    let mut rest = text;
    while let Some(after) = rest.strip_prefix('[') {
        let close = after.find(']').ok_or_else(|| malformed(input))?;
        let spec = &after[..close];
        let number = |s: &str| s.trim().parse::<i32>().map_err(|_| malformed(input));
        let (lower, upper) = match spec.split_once(':') {
            Some((lower, upper)) => (number(lower)?, number(upper)?),
            None => (1, number(spec)?),
        };
        if upper < lower {
            return Err(malformed(input));
        }
        let length =
            u32::try_from(i64::from(upper) - i64::from(lower) + 1).map_err(|_| malformed(input))?;
        dimensions.push(Dimension { lower, length });
        if dimensions.len() > MAX_DIMENSIONS {
            return Err(super::too_many_dimensions(dimensions.len()));
        }
        rest = after[close + 1..].trim_start();
    }
    let rest = rest.strip_prefix('=').ok_or_else(|| malformed(input))?;
    Ok(Some((dimensions, text.len() - rest.len())))
}

/// Parses `input` as an array of `element`s (`'{1,2,3}'::int[]`).
pub fn parse(input: &str, element: DataType) -> Result<Array, TypeError> {
    let text = input.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let (declared, start) = match decoration(text, input)? {
        Some((dimensions, consumed)) => (Some(dimensions), consumed),
        None => (None, 0),
    };
    let body = text[start..].trim_start_matches(|c: char| c.is_ascii_whitespace());
    let Some(body) = body.strip_prefix('{') else {
        return Err(malformed(input));
    };
    let mut parser = Parser {
        input,
        chars: body.char_indices().peekable(),
        depth: 0,
    };
    let root = parser.list()?;
    parser.skip_whitespace();
    if parser.chars.next().is_some() {
        return Err(malformed(input));
    }
    // The shape: lengths per level, every sibling the same.
    let mut lengths = Vec::new();
    let mut texts = Vec::new();
    shape(&root, 0, &mut lengths, &mut texts, input)?;
    if texts.is_empty() {
        return match declared {
            Some(dimensions) if !dimensions.is_empty() => Err(malformed(input)),
            _ => Ok(Array::empty(element)),
        };
    }
    let dimensions = match declared {
        Some(dimensions) => {
            let declared_lengths: Vec<u32> = dimensions.iter().map(|d| d.length).collect();
            if declared_lengths != lengths {
                return Err(malformed(input));
            }
            dimensions
        }
        None => lengths
            .iter()
            .map(|&length| Dimension { lower: 1, length })
            .collect(),
    };
    let elements = texts
        .into_iter()
        .map(|text| match text {
            None => Ok(Value::Null),
            Some(text) => crate::types::parse_literal_for(element, &text),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Array::new(element, dimensions, elements)
}

fn shape(
    node: &Node,
    level: usize,
    lengths: &mut Vec<u32>,
    texts: &mut Vec<Option<String>>,
    input: &str,
) -> Result<(), TypeError> {
    let Node::List(items) = node else {
        return Err(malformed(input));
    };
    let length = u32::try_from(items.len()).map_err(|_| malformed(input))?;
    match lengths.get(level) {
        Some(&expected) if expected != length => return Err(malformed(input)),
        Some(_) => {}
        None => lengths.push(length),
    }
    let lists = items.iter().filter(|n| matches!(n, Node::List(_))).count();
    if lists != 0 && lists != items.len() {
        return Err(malformed(input));
    }
    if lists == 0 && lengths.len() != level + 1 {
        // Elements at a level where siblings had sub-arrays.
        return Err(malformed(input));
    }
    for item in items {
        match item {
            Node::Item(text) => texts.push(text.clone()),
            Node::List(_) => shape(item, level + 1, lengths, texts, input)?,
        }
    }
    if lists > 0
        && items
            .iter()
            .any(|n| matches!(n, Node::List(l) if l.is_empty()))
    {
        return Err(malformed(input));
    }
    Ok(())
}

/// Appends `array` in PostgreSQL's output form.
pub fn format(array: &Array, out: &mut String) {
    if array.dimensions.is_empty() {
        out.push_str("{}");
        return;
    }
    if array.dimensions.iter().any(|d| d.lower != 1) {
        for d in &array.dimensions {
            let upper = i64::from(d.lower) + i64::from(d.length) - 1;
            out.push_str(&format!("[{}:{upper}]", d.lower));
        }
        out.push('=');
    }
    let mut next = 0;
    format_level(array, 0, &mut next, out);
}

fn format_level(array: &Array, level: usize, next: &mut usize, out: &mut String) {
    let Some(dimension) = array.dimensions.get(level) else {
        return;
    };
    out.push('{');
    for i in 0..dimension.length {
        if i > 0 {
            out.push(',');
        }
        if level + 1 < array.dimensions.len() {
            format_level(array, level + 1, next, out);
        } else {
            if let Some(value) = array.elements.get(*next) {
                push_element(value, out);
            }
            *next += 1;
        }
    }
    out.push('}');
}

/// An element's text as `array_out` writes it.
pub fn push_element(value: &Value, out: &mut String) {
    let text = match value {
        Value::Null => {
            out.push_str("NULL");
            return;
        }
        Value::Boolean(b) => {
            out.push(if *b { 't' } else { 'f' });
            return;
        }
        other => other.to_string(),
    };
    let needs_quotes = text.is_empty()
        || text.eq_ignore_ascii_case("NULL")
        || text
            .chars()
            .any(|c| matches!(c, '{' | '}' | ',' | '"' | '\\') || is_space(c));
    if !needs_quotes {
        out.push_str(&text);
        return;
    }
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// C's `isspace` in the C locale, which `array_out` asks.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}')
}
