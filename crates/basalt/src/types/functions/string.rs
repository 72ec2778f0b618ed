//! Text functions: lengths, case, substrings, trimming, padding, searching, splitting.
//!
//! Positions and lengths count characters (Unicode scalar values), not bytes, as PostgreSQL
//! does for UTF-8 text; `octet_length` counts bytes, and the functions that also accept
//! blobs (`length`, `octet_length`, `substr`, `instr`) count bytes of blobs. Case mapping is
//! Unicode's (not locale-dependent). Results are capped at 1 GiB (54000) so that
//! `repeat('x', 1e12)` is an error rather than an allocation failure.

use super::{
    MAX_RESULT_BYTES, Param, ScalarFunction, bytes_arg, check_args, check_variadic, int_arg,
    strict_nulls, text_arg, too_large,
};
use crate::types::cast::text_form;
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("length", bytes_to_int, length),
    function!("char_length", text_to_int, char_length),
    function!("character_length", text_to_int, char_length),
    function!("octet_length", bytes_to_int, octet_length),
    function!("lower", text_to_text, lower),
    function!("upper", text_to_text, upper),
    function!("initcap", text_to_text, initcap),
    function!("reverse", text_to_text, reverse),
    function!("substr", substr_type, substr),
    function!("substring", substr_type, substr),
    function!("trim", trim_type, btrim),
    function!("btrim", trim_type, btrim),
    function!("ltrim", trim_type, ltrim),
    function!("rtrim", trim_type, rtrim),
    function!("replace", replace_type, replace),
    function!("repeat", text_int_to_text, repeat),
    function!("position", text_text_to_int, strpos),
    function!("strpos", text_text_to_int, strpos),
    function!("instr", instr_type, instr),
    function!("left", text_int_to_text, left),
    function!("right", text_int_to_text, right),
    function!("lpad", pad_type, lpad),
    function!("rpad", pad_type, rpad),
    function!("starts_with", starts_with_type, starts_with),
    function!("split_part", split_part_type, split_part),
    function!("chr", chr_type, chr),
    function!("ascii", text_to_int, ascii),
    function!("concat", concat_type, concat, strict: false, volatile: false),
    function!("concat_ws", concat_ws_type, concat_ws, strict: false, volatile: false),
];

// ---- return types ----

fn bytes_to_int(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Bytes], &[])?;
    Ok(DataType::Integer)
}

fn text_to_int(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text], &[])?;
    Ok(DataType::Integer)
}

fn text_to_text(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text], &[])?;
    Ok(DataType::Text(None))
}

/// `substr(text|blob, integer[, integer])`, returning the first argument's type.
fn substr_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(
        name,
        args,
        &[Param::Bytes, Param::Integer],
        &[Param::Integer],
    )?;
    Ok(if args.first() == Some(&DataType::Blob) {
        DataType::Blob
    } else {
        DataType::Text(None)
    })
}

fn trim_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text], &[Param::Text])?;
    Ok(DataType::Text(None))
}

fn replace_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text; 3], &[])?;
    Ok(DataType::Text(None))
}

fn text_int_to_text(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text, Param::Integer], &[])?;
    Ok(DataType::Text(None))
}

fn text_text_to_int(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text, Param::Text], &[])?;
    Ok(DataType::Integer)
}

fn instr_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Bytes, Param::Bytes], &[])?;
    Ok(DataType::Integer)
}

fn pad_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text, Param::Integer], &[Param::Text])?;
    Ok(DataType::Text(None))
}

fn starts_with_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text, Param::Text], &[])?;
    Ok(DataType::Boolean)
}

fn split_part_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text, Param::Text, Param::Integer], &[])?;
    Ok(DataType::Text(None))
}

fn chr_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Integer], &[])?;
    Ok(DataType::Text(None))
}

fn concat_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_variadic(name, args, 1, Param::Any)?;
    Ok(DataType::Text(None))
}

fn concat_ws_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_variadic(name, args, 1, Param::Any)?;
    check_args(name, args.get(..1).unwrap_or(&[]), &[Param::Text], &[])?;
    Ok(DataType::Text(None))
}

// ---- helpers ----

/// The byte offset of character `n` (0-based) in `s`, or `s.len()` past the end.
fn char_offset(s: &str, n: usize) -> usize {
    s.char_indices()
        .nth(n)
        .map_or(s.len(), |(offset, _)| offset)
}

fn count_chars(n: usize) -> Value {
    Value::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

/// `n` as a character count, negative counts clamped to zero.
fn clamp_count(n: i64) -> usize {
    usize::try_from(n.max(0)).unwrap_or(usize::MAX)
}

// ---- implementations ----

/// Characters of text, bytes of a blob.
fn length(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("length", args, 1, 1)? {
        return Ok(Value::Null);
    }
    match args.first() {
        Some(Value::Text(s)) => Ok(count_chars(s.chars().count())),
        Some(Value::Blob(b)) => Ok(count_chars(b.len())),
        _ => Err(TypeError::undefined_function("length", args)),
    }
}

fn char_length(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("char_length", args, 1, 1)? {
        return Ok(Value::Null);
    }
    Ok(count_chars(
        text_arg("char_length", args, 0)?.chars().count(),
    ))
}

fn octet_length(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("octet_length", args, 1, 1)? {
        return Ok(Value::Null);
    }
    Ok(count_chars(bytes_arg("octet_length", args, 0)?.len()))
}

fn map_text(name: &str, args: &[Value], f: fn(&str) -> String) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 1, 1)? {
        return Ok(Value::Null);
    }
    Ok(Value::Text(f(text_arg(name, args, 0)?)))
}

fn lower(args: &[Value]) -> Result<Value, TypeError> {
    map_text("lower", args, str::to_lowercase)
}

fn upper(args: &[Value]) -> Result<Value, TypeError> {
    map_text("upper", args, str::to_uppercase)
}

fn reverse(args: &[Value]) -> Result<Value, TypeError> {
    map_text("reverse", args, |s| s.chars().rev().collect())
}

/// Upper-cases the first letter of each word and lower-cases the rest; words are runs of
/// alphanumeric characters (PostgreSQL's rule).
fn initcap(args: &[Value]) -> Result<Value, TypeError> {
    map_text("initcap", args, |s| {
        let mut out = String::with_capacity(s.len());
        let mut in_word = false;
        for c in s.chars() {
            if in_word {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            in_word = c.is_alphanumeric();
        }
        out
    })
}

/// `substr(s, start[, count])`: SQL's 1-based substring. The selected range is
/// `[start, start + count)` intersected with the string, so a start at or below zero eats
/// into the count (`substr('abc', 0, 2)` is `'a'`); a negative count is an error (22011).
pub(super) fn substr(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("substr", args, 2, 3)? {
        return Ok(Value::Null);
    }
    let start = int_arg("substr", args, 1)?;
    let end = match args.get(2) {
        Some(_) => {
            let count = int_arg("substr", args, 2)?;
            if count < 0 {
                return Err(TypeError::NegativeSubstringLength);
            }
            start.saturating_add(count)
        }
        None => i64::MAX,
    };
    let first = start.max(1);
    let skip = clamp_count(first - 1);
    let take = clamp_count(end.saturating_sub(first));
    match args.first() {
        Some(Value::Text(s)) => {
            let from = char_offset(s, skip);
            let rest = s.get(from..).unwrap_or("");
            let to = char_offset(rest, take);
            Ok(Value::Text(rest.get(..to).unwrap_or("").to_owned()))
        }
        Some(Value::Blob(b)) => {
            let rest = b.get(skip..).unwrap_or(&[]);
            Ok(Value::Blob(
                rest.get(..take.min(rest.len())).unwrap_or(&[]).to_vec(),
            ))
        }
        _ => Err(TypeError::undefined_function("substr", args)),
    }
}

#[derive(Clone, Copy)]
enum TrimSide {
    Both,
    Leading,
    Trailing,
}

/// Removes the longest prefix and/or suffix made of characters in the set (default: space).
fn trim_impl(name: &str, args: &[Value], side: TrimSide) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 1, 2)? {
        return Ok(Value::Null);
    }
    let s = text_arg(name, args, 0)?;
    let set = match args.get(1) {
        Some(_) => text_arg(name, args, 1)?,
        None => " ",
    };
    let in_set = |c: char| set.contains(c);
    let trimmed = match side {
        TrimSide::Both => s.trim_matches(in_set),
        TrimSide::Leading => s.trim_start_matches(in_set),
        TrimSide::Trailing => s.trim_end_matches(in_set),
    };
    Ok(Value::Text(trimmed.to_owned()))
}

fn btrim(args: &[Value]) -> Result<Value, TypeError> {
    trim_impl("btrim", args, TrimSide::Both)
}

fn ltrim(args: &[Value]) -> Result<Value, TypeError> {
    trim_impl("ltrim", args, TrimSide::Leading)
}

fn rtrim(args: &[Value]) -> Result<Value, TypeError> {
    trim_impl("rtrim", args, TrimSide::Trailing)
}

/// `replace(s, from, to)`: every occurrence; an empty `from` leaves `s` unchanged.
fn replace(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("replace", args, 3, 3)? {
        return Ok(Value::Null);
    }
    let s = text_arg("replace", args, 0)?;
    let from = text_arg("replace", args, 1)?;
    let to = text_arg("replace", args, 2)?;
    if from.is_empty() {
        return Ok(Value::Text(s.to_owned()));
    }
    let occurrences = s.matches(from).count();
    let growth = to
        .len()
        .saturating_sub(from.len())
        .saturating_mul(occurrences);
    if s.len().saturating_add(growth) > MAX_RESULT_BYTES {
        return Err(too_large());
    }
    Ok(Value::Text(s.replace(from, to)))
}

/// `repeat(s, n)`: `s` n times; empty for n ≤ 0.
fn repeat(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("repeat", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let s = text_arg("repeat", args, 0)?;
    let n = clamp_count(int_arg("repeat", args, 1)?);
    match s.len().checked_mul(n) {
        Some(total) if total <= MAX_RESULT_BYTES => Ok(Value::Text(s.repeat(n))),
        _ => Err(too_large()),
    }
}

/// `strpos(s, sub)` / `position(s, sub)`: the 1-based character position of the first
/// occurrence, 0 if none, 1 for an empty `sub`. The parser rewrites SQL's
/// `POSITION(sub IN s)` to `position(s, sub)`.
fn strpos(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("strpos", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let s = text_arg("strpos", args, 0)?;
    let sub = text_arg("strpos", args, 1)?;
    Ok(match s.find(sub) {
        Some(offset) => count_chars(s.get(..offset).unwrap_or("").chars().count() + 1),
        None => Value::Integer(0),
    })
}

/// SQLite's `instr(s, sub)`: like `strpos` for text; for blobs, byte positions.
fn instr(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("instr", args, 2, 2)? {
        return Ok(Value::Null);
    }
    match (args.first(), args.get(1)) {
        (Some(Value::Text(_)), Some(Value::Text(_))) => strpos(args),
        _ => {
            let haystack = bytes_arg("instr", args, 0)?;
            let needle = bytes_arg("instr", args, 1)?;
            if needle.is_empty() {
                return Ok(Value::Integer(1));
            }
            Ok(haystack
                .windows(needle.len())
                .position(|w| w == needle)
                .map_or(Value::Integer(0), |p| count_chars(p + 1)))
        }
    }
}

/// `left(s, n)`: the first n characters; for negative n, all but the last |n|.
fn left(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("left", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let s = text_arg("left", args, 0)?;
    let n = int_arg("left", args, 1)?;
    let keep = if n >= 0 {
        clamp_count(n)
    } else {
        s.chars()
            .count()
            .saturating_sub(clamp_count(n.saturating_neg()))
    };
    Ok(Value::Text(
        s.get(..char_offset(s, keep)).unwrap_or("").to_owned(),
    ))
}

/// `right(s, n)`: the last n characters; for negative n, all but the first |n|.
fn right(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("right", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let s = text_arg("right", args, 0)?;
    let n = int_arg("right", args, 1)?;
    let skip = if n >= 0 {
        s.chars().count().saturating_sub(clamp_count(n))
    } else {
        clamp_count(n.saturating_neg())
    };
    Ok(Value::Text(
        s.get(char_offset(s, skip)..).unwrap_or("").to_owned(),
    ))
}

/// `lpad(s, n[, fill])` / `rpad`: pads with `fill` (default space) to n characters, or cuts
/// `s` to n characters when longer; an empty fill leaves a short `s` as is.
fn pad(name: &str, args: &[Value], on_left: bool) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 2, 3)? {
        return Ok(Value::Null);
    }
    let s = text_arg(name, args, 0)?;
    let target = clamp_count(int_arg(name, args, 1)?);
    let fill = match args.get(2) {
        Some(_) => text_arg(name, args, 2)?,
        None => " ",
    };
    let len = s.chars().count();
    if len >= target {
        return Ok(Value::Text(
            s.get(..char_offset(s, target)).unwrap_or("").to_owned(),
        ));
    }
    if fill.is_empty() {
        return Ok(Value::Text(s.to_owned()));
    }
    let missing = target - len;
    let widest = fill.chars().map(char::len_utf8).max().unwrap_or(1);
    if missing.saturating_mul(widest).saturating_add(s.len()) > MAX_RESULT_BYTES {
        return Err(too_large());
    }
    let padding: String = fill.chars().cycle().take(missing).collect();
    Ok(Value::Text(if on_left {
        padding + s
    } else {
        s.to_owned() + &padding
    }))
}

fn lpad(args: &[Value]) -> Result<Value, TypeError> {
    pad("lpad", args, true)
}

fn rpad(args: &[Value]) -> Result<Value, TypeError> {
    pad("rpad", args, false)
}

fn starts_with(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("starts_with", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let s = text_arg("starts_with", args, 0)?;
    let prefix = text_arg("starts_with", args, 1)?;
    Ok(Value::Boolean(s.starts_with(prefix)))
}

/// `split_part(s, delimiter, n)`: the n-th field (1-based; negative counts from the end);
/// empty when there is no such field; n = 0 is an error (22023). An empty delimiter makes
/// the whole string the only field.
fn split_part(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("split_part", args, 3, 3)? {
        return Ok(Value::Null);
    }
    let s = text_arg("split_part", args, 0)?;
    let delimiter = text_arg("split_part", args, 1)?;
    let n = int_arg("split_part", args, 2)?;
    if n == 0 {
        return Err(TypeError::InvalidArgument(
            "field position must not be zero".to_owned(),
        ));
    }
    let fields: Vec<&str> = if delimiter.is_empty() {
        vec![s]
    } else {
        s.split(delimiter).collect()
    };
    let index = if n > 0 {
        usize::try_from(n - 1).ok()
    } else {
        usize::try_from(n.unsigned_abs())
            .ok()
            .and_then(|back| fields.len().checked_sub(back))
    };
    let field = index.and_then(|i| fields.get(i)).copied().unwrap_or("");
    Ok(Value::Text(field.to_owned()))
}

/// `chr(n)`: the character with code point n. 0 is refused (54000) like PostgreSQL;
/// negatives, surrogates and values past U+10FFFF are invalid (22023).
fn chr(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("chr", args, 1, 1)? {
        return Ok(Value::Null);
    }
    let n = int_arg("chr", args, 0)?;
    if n == 0 {
        return Err(TypeError::ProgramLimitExceeded(
            "null character not permitted",
        ));
    }
    u32::try_from(n)
        .ok()
        .and_then(char::from_u32)
        .map(|c| Value::Text(c.to_string()))
        .ok_or_else(|| {
            TypeError::InvalidArgument(format!("requested character not valid for encoding: {n}"))
        })
}

/// `ascii(s)`: the code point of the first character, 0 for the empty string.
fn ascii(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("ascii", args, 1, 1)? {
        return Ok(Value::Null);
    }
    let s = text_arg("ascii", args, 0)?;
    Ok(Value::Integer(
        s.chars().next().map_or(0, |c| i64::from(u32::from(c))),
    ))
}

/// `concat(a, ...)`: the text forms of the non-NULL arguments, concatenated. Never NULL.
fn concat(args: &[Value]) -> Result<Value, TypeError> {
    if args.is_empty() {
        return Err(TypeError::undefined_function("concat", args));
    }
    join(args.iter(), "")
}

/// `concat_ws(sep, a, ...)`: the non-NULL arguments' text forms joined by `sep`; NULL when
/// `sep` is NULL.
fn concat_ws(args: &[Value]) -> Result<Value, TypeError> {
    match args.first() {
        Some(Value::Null) => Ok(Value::Null),
        Some(Value::Text(sep)) => join(args.iter().skip(1), sep),
        _ => Err(TypeError::undefined_function("concat_ws", args)),
    }
}

fn join<'a>(values: impl Iterator<Item = &'a Value>, sep: &str) -> Result<Value, TypeError> {
    let mut out = String::new();
    let mut first = true;
    for value in values.filter(|v| !v.is_null()) {
        if !first {
            out.push_str(sep);
        }
        first = false;
        out.push_str(&text_form(value));
        if out.len() > MAX_RESULT_BYTES {
            return Err(too_large());
        }
    }
    Ok(Value::Text(out))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, i, t};
    use crate::types::Value;

    #[test]
    fn string_functions() {
        let null = Value::Null;
        let blob = |b: &[u8]| Value::Blob(b.to_vec());
        let cases: Vec<(&str, Vec<Value>, Result<Value, &str>)> = vec![
            ("length", vec![t("héllo")], Ok(i(5))),
            ("length", vec![t("")], Ok(i(0))),
            ("length", vec![blob(&[1, 2, 3])], Ok(i(3))),
            ("length", vec![null.clone()], Ok(null.clone())),
            ("char_length", vec![t("日本")], Ok(i(2))),
            ("character_length", vec![t("ab")], Ok(i(2))),
            ("octet_length", vec![t("日本")], Ok(i(6))),
            ("octet_length", vec![blob(&[0])], Ok(i(1))),
            ("lower", vec![t("HÉLLO")], Ok(t("héllo"))),
            ("upper", vec![t("straße")], Ok(t("STRASSE"))),
            (
                "initcap",
                vec![t("hello wORLD-foo bar1baz")],
                Ok(t("Hello World-Foo Bar1baz")),
            ),
            ("reverse", vec![t("añb")], Ok(t("bña"))),
            ("substr", vec![t("hello"), i(2)], Ok(t("ello"))),
            ("substr", vec![t("hello"), i(2), i(3)], Ok(t("ell"))),
            ("substring", vec![t("hello"), i(0), i(2)], Ok(t("h"))),
            ("substr", vec![t("hello"), i(-3), i(5)], Ok(t("h"))),
            ("substr", vec![t("hello"), i(-3), i(2)], Ok(t(""))),
            ("substr", vec![t("hello"), i(10)], Ok(t(""))),
            ("substr", vec![t("héllo"), i(2), i(2)], Ok(t("él"))),
            ("substr", vec![t("hello"), i(2), i(-1)], Err("22011")),
            (
                "substr",
                vec![t("hello"), i(i64::MIN), i(i64::MAX)],
                Ok(t("")),
            ),
            (
                "substr",
                vec![t("hello"), i(i64::MAX), i(i64::MAX)],
                Ok(t("")),
            ),
            (
                "substr",
                vec![blob(&[1, 2, 3, 4]), i(2), i(2)],
                Ok(blob(&[2, 3])),
            ),
            ("substr", vec![t("hello"), null.clone()], Ok(null.clone())),
            ("trim", vec![t("  a b  ")], Ok(t("a b"))),
            ("trim", vec![t("\ta\t")], Ok(t("\ta\t"))),
            ("btrim", vec![t("xxaxyx"), t("xy")], Ok(t("a"))),
            ("ltrim", vec![t("  a  ")], Ok(t("a  "))),
            ("rtrim", vec![t("  a  ")], Ok(t("  a"))),
            ("rtrim", vec![t("aéé"), t("é")], Ok(t("a"))),
            ("trim", vec![t("abc"), t("")], Ok(t("abc"))),
            (
                "replace",
                vec![t("abcabc"), t("b"), t("XY")],
                Ok(t("aXYcaXYc")),
            ),
            ("replace", vec![t("abc"), t(""), t("X")], Ok(t("abc"))),
            ("replace", vec![t("aaa"), t("aa"), t("b")], Ok(t("ba"))),
            ("repeat", vec![t("ab"), i(3)], Ok(t("ababab"))),
            ("repeat", vec![t("ab"), i(-1)], Ok(t(""))),
            ("repeat", vec![t("ab"), i(i64::MAX)], Err("54000")),
            ("repeat", vec![t(""), i(i64::MAX)], Ok(t(""))),
            ("position", vec![t("héllo"), t("llo")], Ok(i(3))),
            ("strpos", vec![t("hello"), t("z")], Ok(i(0))),
            ("strpos", vec![t("hello"), t("")], Ok(i(1))),
            ("instr", vec![t("日本語"), t("語")], Ok(i(3))),
            ("instr", vec![blob(&[1, 2, 3]), blob(&[2, 3])], Ok(i(2))),
            ("instr", vec![blob(&[1, 2, 3]), blob(&[4])], Ok(i(0))),
            ("left", vec![t("héllo"), i(2)], Ok(t("hé"))),
            ("left", vec![t("hello"), i(-2)], Ok(t("hel"))),
            ("left", vec![t("hello"), i(-10)], Ok(t(""))),
            ("left", vec![t("hello"), i(i64::MIN)], Ok(t(""))),
            ("right", vec![t("héllo"), i(3)], Ok(t("llo"))),
            ("right", vec![t("hello"), i(-2)], Ok(t("llo"))),
            ("right", vec![t("hello"), i(10)], Ok(t("hello"))),
            ("right", vec![t("hello"), i(i64::MIN)], Ok(t(""))),
            ("lpad", vec![t("hi"), i(5)], Ok(t("   hi"))),
            ("lpad", vec![t("hi"), i(5), t("xy")], Ok(t("xyxhi"))),
            ("lpad", vec![t("hello"), i(2)], Ok(t("he"))),
            ("lpad", vec![t("hi"), i(5), t("")], Ok(t("hi"))),
            ("lpad", vec![t("hi"), i(-1)], Ok(t(""))),
            ("lpad", vec![t("hi"), i(i64::MAX)], Err("54000")),
            ("rpad", vec![t("hi"), i(5), t("é")], Ok(t("hiééé"))),
            ("rpad", vec![t("hello"), i(2)], Ok(t("he"))),
            (
                "starts_with",
                vec![t("alphabet"), t("alph")],
                Ok(Value::Boolean(true)),
            ),
            (
                "starts_with",
                vec![t("alphabet"), t("beta")],
                Ok(Value::Boolean(false)),
            ),
            ("split_part", vec![t("a,b,c"), t(","), i(2)], Ok(t("b"))),
            ("split_part", vec![t("a,b,c"), t(","), i(4)], Ok(t(""))),
            ("split_part", vec![t("a,b,c"), t(","), i(-1)], Ok(t("c"))),
            ("split_part", vec![t("a,b,c"), t(","), i(-4)], Ok(t(""))),
            (
                "split_part",
                vec![t("a,b,c"), t(","), i(i64::MIN)],
                Ok(t("")),
            ),
            ("split_part", vec![t("a,b,c"), t(","), i(0)], Err("22023")),
            ("split_part", vec![t("abc"), t(""), i(1)], Ok(t("abc"))),
            ("split_part", vec![t("abc"), t(""), i(2)], Ok(t(""))),
            ("split_part", vec![t("a~@~b"), t("~@~"), i(2)], Ok(t("b"))),
            ("chr", vec![i(65)], Ok(t("A"))),
            ("chr", vec![i(0x1F600)], Ok(t("\u{1F600}"))),
            ("chr", vec![i(0)], Err("54000")),
            ("chr", vec![i(-1)], Err("22023")),
            ("chr", vec![i(0xD800)], Err("22023")),
            ("chr", vec![i(0x110000)], Err("22023")),
            ("ascii", vec![t("A")], Ok(i(65))),
            ("ascii", vec![t("é")], Ok(i(233))),
            ("ascii", vec![t("")], Ok(i(0))),
            (
                "concat",
                vec![t("a"), null.clone(), i(1), Value::Real(1.5)],
                Ok(t("a11.5")),
            ),
            ("concat", vec![null.clone()], Ok(t(""))),
            (
                "concat",
                vec![Value::Boolean(true), Value::Date(0)],
                Ok(t("true1970-01-01")),
            ),
            ("concat", vec![], Err("42883")),
            (
                "concat_ws",
                vec![t(","), t("a"), null.clone(), i(2)],
                Ok(t("a,2")),
            ),
            ("concat_ws", vec![null.clone(), t("a")], Ok(null.clone())),
            ("concat_ws", vec![t(",")], Ok(t(""))),
            ("lower", vec![i(1)], Err("42883")),
            ("lower", vec![], Err("42883")),
        ];
        for (name, args, expected) in cases {
            assert_eq!(call(name, &args), expected, "{name}{args:?}");
        }
    }
}
