//! `format(formatstr, args...)`, PostgreSQL's `sprintf` for building SQL and messages,
//! `quote_literal(v)` and `quote_nullable(v)` (`%L` alone: a value as an SQL literal), and
//! `gen_random_uuid()`.
//!
//! A format specifier is `%[position][flags][width]type`:
//!
//! - `position` is `n$`, the 1-based argument to use; without it a specifier takes the
//!   argument after the one the previous specifier used (so after `%3$s`, `%s` is argument 4).
//! - `flags` is at most `-`: left-justify within the width.
//! - `width` is a number, `*` (the next argument is the width) or `*n$` (argument n is). A
//!   negative width read from an argument left-justifies, as the `-` flag does.
//! - `type` is `s` (the value's text form; NULL is the empty string), `I` (an SQL identifier,
//!   double-quoted when it is not a plain lower-case name or is a reserved word; NULL is an
//!   error, 22004), or `L` (an SQL literal, single-quoted, `E'...'` when it holds
//!   backslashes; NULL is the unquoted word `NULL`). `%%` is a literal `%`.
//!
//! A malformed specifier, a position of 0, a missing argument or an unknown type is 22023, as
//! in PostgreSQL. `format(NULL, ...)` is NULL; other NULL arguments are formatted as above.
//! Widths are capped so that `format('%2000000000s', 'x')` is 54000, not an allocation of
//! gigabytes.
//!
//! `gen_random_uuid()` returns a random version-4 UUID (see [`crate::types::uuid`]); it is
//! volatile, so every call (and every row) gets its own.

use super::{
    MAX_RESULT_BYTES, Param, ScalarFunction, check_args, check_variadic, strict_nulls, too_large,
};
use crate::sql::names::POSTGRESQL_RESERVED;
use crate::types::cast::text_form;
use crate::types::uuid::random_uuid;
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("format", format_type, format, strict: false, volatile: false),
    function!("gen_random_uuid", uuid_type, gen_random_uuid, strict: true, volatile: true),
    function!("quote_literal", quote_type, quote_literal_fn, strict: true, volatile: false),
    function!("quote_nullable", quote_type, quote_nullable, strict: false, volatile: false),
];

/// `quote_literal(v)` and `quote_nullable(v)` take one value and return text (asyncpg builds
/// `COPY (query)` texts with `quote_literal`; `quote_ident` is with the catalog functions).
fn quote_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Any], &[])?;
    Ok(DataType::Text(None))
}

/// PostgreSQL's `quote_literal(v)`: the value's text form as a literal; NULL for NULL.
fn quote_literal_fn(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("quote_literal", args, 1, 1)? {
        return Ok(Value::Null);
    }
    Ok(Value::Text(quote_literal(&output_form(&args[0]))))
}

/// `quote_nullable(v)`: as `quote_literal`, but NULL becomes the word `NULL`.
fn quote_nullable(args: &[Value]) -> Result<Value, TypeError> {
    strict_nulls("quote_nullable", args, 1, 1)?;
    Ok(Value::Text(match &args[0] {
        Value::Null => "NULL".to_owned(),
        value => quote_literal(&output_form(value)),
    }))
}

fn format_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_variadic(name, args, 1, Param::Any)?;
    check_args(name, args.get(..1).unwrap_or(&[]), &[Param::Text], &[])?;
    Ok(DataType::Text(None))
}

fn uuid_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[], &[])?;
    Ok(DataType::Uuid)
}

/// Words `%I` quotes besides [`POSTGRESQL_RESERVED`]: the keywords PostgreSQL reserves only
/// partly (usable as a function or type name, or as a column name) — `quote_ident` quotes
/// every keyword that is not unreserved.
const PARTLY_RESERVED_WORDS: &[&str] = &[
    "between",
    "bigint",
    "bit",
    "boolean",
    "char",
    "character",
    "coalesce",
    "dec",
    "decimal",
    "float",
    "greatest",
    "grouping",
    "inout",
    "int",
    "integer",
    "least",
    "national",
    "nchar",
    "none",
    "normalize",
    "nullif",
    "numeric",
    "out",
    "precision",
    "real",
    "row",
    "setof",
    "smallint",
    "system_user",
    "time",
    "timestamp",
    "treat",
    "values",
    "varchar",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

/// PostgreSQL's `quote_ident`: unchanged when it is a lower-case name that is not reserved,
/// otherwise double-quoted with inner quotes doubled.
pub(crate) fn quote_identifier(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '$')
        && !POSTGRESQL_RESERVED.contains(&name)
        && !PARTLY_RESERVED_WORDS.contains(&name);
    if plain {
        name.to_owned()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// PostgreSQL's `quote_literal`: single-quoted with quotes doubled; a value holding a
/// backslash becomes an `E'...'` literal with backslashes doubled.
pub(crate) fn quote_literal(text: &str) -> String {
    let quoted = text.replace('\'', "''");
    if text.contains('\\') {
        format!("E'{}'", quoted.replace('\\', "\\\\"))
    } else {
        format!("'{quoted}'")
    }
}

/// A value as PostgreSQL's output functions print it, which `format` uses: booleans are `t`
/// and `f` there (unlike the `true`/`false` of a cast to text).
fn output_form(value: &Value) -> String {
    match value {
        Value::Boolean(b) => (if *b { "t" } else { "f" }).to_owned(),
        other => text_form(other),
    }
}

fn bad_format(message: impl Into<String>) -> TypeError {
    TypeError::InvalidArgument(message.into())
}

/// Reads decimal digits at the front of `chars`, if any; absurdly long numbers are 22023.
fn read_number(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
) -> Result<Option<usize>, TypeError> {
    let mut number: Option<usize> = None;
    while let Some(digit) = chars.peek().and_then(|c| c.to_digit(10)) {
        chars.next();
        number = Some(
            number
                .unwrap_or(0)
                .checked_mul(10)
                .and_then(|n| n.checked_add(digit as usize))
                .ok_or_else(|| bad_format("number is out of range"))?,
        );
    }
    Ok(number)
}

/// The formatter's position in the argument list (argument 1 is the first after the format
/// string).
struct Arguments<'a> {
    values: &'a [Value],
    next: usize,
}

impl<'a> Arguments<'a> {
    /// Argument `position` (1-based), or the next one; advances past it.
    fn take(&mut self, position: Option<usize>) -> Result<&'a Value, TypeError> {
        let index = match position {
            Some(0) => {
                return Err(bad_format(
                    "format specifies argument 0, but arguments are numbered from 1",
                ));
            }
            Some(n) => n,
            None => self.next,
        };
        self.next = index.saturating_add(1);
        self.values
            .get(index)
            .ok_or_else(|| bad_format("too few arguments for format()"))
    }
}

/// `format(formatstr, args...)`.
fn format(args: &[Value]) -> Result<Value, TypeError> {
    let Some(first) = args.first() else {
        return Err(TypeError::undefined_function("format", args));
    };
    let template = match first {
        Value::Null => return Ok(Value::Null),
        Value::Text(s) => s.as_str(),
        _ => return Err(TypeError::undefined_function("format", args)),
    };
    let mut arguments = Arguments {
        values: args,
        next: 1,
    };
    let mut out = String::with_capacity(template.len());
    let mut chars = template.chars().peekable();
    let unterminated = || bad_format("unterminated format() type specifier");
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        // `n$` is a position only when the digits are followed by `$`; otherwise they are
        // the width.
        let mut position = None;
        let mut width = read_number(&mut chars)?;
        if width.is_some() && chars.peek() == Some(&'$') {
            chars.next();
            position = width.take();
        }
        let mut left_justify = false;
        if width.is_none() {
            if chars.peek() == Some(&'-') {
                chars.next();
                left_justify = true;
            }
            if chars.peek() == Some(&'*') {
                chars.next();
                let width_position = match read_number(&mut chars)? {
                    Some(n) if chars.peek() == Some(&'$') => {
                        chars.next();
                        Some(n)
                    }
                    Some(_) => return Err(unterminated()),
                    None => None,
                };
                let value = arguments.take(width_position)?;
                match value {
                    Value::Null => {}
                    Value::Integer(n) => {
                        left_justify |= *n < 0;
                        width = Some(usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX));
                    }
                    _ => return Err(bad_format("format() width argument must be an integer")),
                }
            } else {
                width = read_number(&mut chars)?;
            }
        }
        let Some(kind) = chars.next() else {
            return Err(unterminated());
        };
        let text = match kind {
            's' | 'I' | 'L' => {
                let value = arguments.take(position)?;
                match (kind, value) {
                    ('s', Value::Null) => String::new(),
                    ('s', value) => output_form(value),
                    ('I', Value::Null) => {
                        return Err(TypeError::NullValueNotAllowed(
                            "null values cannot be formatted as an SQL identifier",
                        ));
                    }
                    ('I', value) => quote_identifier(&output_form(value)),
                    (_, Value::Null) => "NULL".to_owned(),
                    (_, value) => quote_literal(&output_form(value)),
                }
            }
            other => {
                return Err(bad_format(format!(
                    "unrecognized format() type specifier \"{other}\""
                )));
            }
        };
        let width = width.unwrap_or(0);
        let length = text.chars().count();
        if width.saturating_add(out.len()).saturating_add(text.len()) > MAX_RESULT_BYTES {
            return Err(too_large());
        }
        let padding = " ".repeat(width.saturating_sub(length));
        if left_justify {
            out.push_str(&text);
            out.push_str(&padding);
        } else {
            out.push_str(&padding);
            out.push_str(&text);
        }
    }
    Ok(Value::Text(out))
}

/// `gen_random_uuid()`: a random version-4 UUID.
fn gen_random_uuid(args: &[Value]) -> Result<Value, TypeError> {
    strict_nulls("gen_random_uuid", args, 0, 0)?;
    Ok(Value::Uuid(random_uuid()))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, i, t};
    use super::*;

    fn fmt(args: &[Value]) -> Result<Value, &'static str> {
        call("format", args)
    }

    #[test]
    fn quote_functions_follow_postgresql() {
        assert_eq!(call("quote_literal", &[t("it's")]), Ok(t("'it''s'")));
        assert_eq!(call("quote_literal", &[t("a\\b")]), Ok(t("E'a\\\\b'")));
        assert_eq!(call("quote_literal", &[i(42)]), Ok(t("'42'")));
        assert_eq!(call("quote_literal", &[Value::Null]), Ok(Value::Null));
        assert_eq!(call("quote_nullable", &[Value::Null]), Ok(t("NULL")));
        assert_eq!(call("quote_nullable", &[t("x")]), Ok(t("'x'")));
    }

    #[test]
    fn format_specifiers() {
        assert_eq!(fmt(&[t("Hello %s"), t("World")]), Ok(t("Hello World")));
        assert_eq!(fmt(&[t("100%%")]), Ok(t("100%")));
        assert_eq!(
            fmt(&[t("INSERT INTO %I VALUES(%L)"), t("Foo bar"), t("O'Reilly")]),
            Ok(t("INSERT INTO \"Foo bar\" VALUES('O''Reilly')"))
        );
        assert_eq!(
            fmt(&[t("%I.%I"), t("people"), t("select")]),
            Ok(t("people.\"select\""))
        );
        assert_eq!(fmt(&[t("%L"), t("C:\\x")]), Ok(t("E'C:\\\\x'")));
        assert_eq!(
            fmt(&[t("%L, %s."), Value::Null, Value::Null]),
            Ok(t("NULL, ."))
        );
        assert_eq!(fmt(&[t("%s %s"), i(1), Value::Boolean(true)]), Ok(t("1 t")));
        assert_eq!(fmt(&[t("|%10s|"), t("foo")]), Ok(t("|       foo|")));
        assert_eq!(fmt(&[t("|%-10s|"), t("foo")]), Ok(t("|foo       |")));
        assert_eq!(fmt(&[t("|%*s|"), i(10), t("foo")]), Ok(t("|       foo|")));
        assert_eq!(fmt(&[t("|%*s|"), i(-10), t("foo")]), Ok(t("|foo       |")));
        assert_eq!(fmt(&[t("|%-*s|"), i(10), t("foo")]), Ok(t("|foo       |")));
        assert_eq!(fmt(&[t("|%1$*2$s|"), t("foo"), i(6)]), Ok(t("|   foo|")));
        assert_eq!(
            fmt(&[
                t("Testing %3$s, %2$s, %1$s"),
                t("one"),
                t("two"),
                t("three")
            ]),
            Ok(t("Testing three, two, one"))
        );
        assert_eq!(
            fmt(&[t("Testing %3$s, %2$s, %s"), t("one"), t("two"), t("three")]),
            Ok(t("Testing three, two, three"))
        );
        assert_eq!(fmt(&[Value::Null, t("x")]), Ok(Value::Null));
    }

    #[test]
    fn format_errors() {
        assert_eq!(fmt(&[t("%s %s"), t("a")]), Err("22023"));
        assert_eq!(fmt(&[t("%x"), t("a")]), Err("22023"));
        assert_eq!(fmt(&[t("abc %")]), Err("22023"));
        assert_eq!(fmt(&[t("%0$s"), t("a")]), Err("22023"));
        assert_eq!(fmt(&[t("%I"), Value::Null]), Err("22004"));
        assert_eq!(fmt(&[t("%2000000000s"), t("a")]), Err("54000"));
        assert_eq!(fmt(&[t("%99999999999999999999999s"), t("a")]), Err("22023"));
    }

    #[test]
    fn uuids_are_version_4_and_fresh_per_call() {
        let Ok(Value::Uuid(a)) = call("gen_random_uuid", &[]) else {
            panic!("no uuid");
        };
        let Ok(Value::Uuid(b)) = call("gen_random_uuid", &[]) else {
            panic!("no uuid");
        };
        assert_ne!(a, b);
        assert_eq!(a[6] >> 4, 4);
        assert_eq!(a[8] >> 6, 0b10);
    }
}
