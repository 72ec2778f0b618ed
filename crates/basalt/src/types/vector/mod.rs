//! VECTOR values: pgvector's `vector` type — a list of 1 to 16,000 finite `f32`s — with its
//! text form, its dimension checks, its order, and its arithmetic.
//!
//! What it guarantees: every vector this module builds or accepts has at least one and at most
//! [`MAX_DIMENSIONS`] elements, none of them NaN or infinite (pgvector's invariants, checked on
//! input and after arithmetic); errors carry pgvector's SQLSTATEs and messages. Distances live
//! in [`kernels`], the engine's one SIMD module.
//!
//! How it fits: `types::cast` parses and prints vectors through [`parse`] and [`format`], the
//! write path enforces a column's `VECTOR(n)` with [`check_dimensions`], `types::compare` orders
//! them with [`compare`], the storage layer keeps them as [`to_le_bytes`] (4 bytes per element,
//! little-endian, no header: the cell's length gives the dimension), and index keys use
//! [`key_bytes`], whose byte order is [`compare`]'s order.

pub mod kernels;
mod simd;

pub use simd::prefetch;

use std::cmp::Ordering;

use super::TypeError;
use super::format::push_real4;

/// The most elements a vector may have (pgvector's `VECTOR_MAX_DIM`).
pub const MAX_DIMENSIONS: u32 = 16_000;

/// The error for a wrong number of dimensions in a column or cast (pgvector's wording).
fn dimension_mismatch(expected: u32, actual: usize) -> TypeError {
    TypeError::DataException(format!("expected {expected} dimensions, not {actual}"))
}

/// The error for two vector operands of different dimensions.
pub fn different_dimensions(a: usize, b: usize) -> TypeError {
    TypeError::DataException(format!("different vector dimensions {a} and {b}"))
}

/// Checks `declared` (a `VECTOR(n)`'s n) against a value's dimension.
pub fn check_dimensions(declared: Option<u32>, actual: usize) -> Result<(), TypeError> {
    match declared {
        Some(expected) if usize::try_from(expected).ok() != Some(actual) => {
            Err(dimension_mismatch(expected, actual))
        }
        _ => Ok(()),
    }
}

/// Checks a declared `VECTOR(n)`: 1 ≤ n ≤ 16,000.
pub fn check_declared_dimensions(dimensions: i64) -> Result<u32, TypeError> {
    if dimensions < 1 {
        return Err(TypeError::InvalidArgument(
            "dimensions for type vector must be at least 1".to_owned(),
        ));
    }
    match u32::try_from(dimensions) {
        Ok(dimensions) if dimensions <= MAX_DIMENSIONS => Ok(dimensions),
        _ => Err(TypeError::InvalidArgument(format!(
            "dimensions for type vector cannot exceed {MAX_DIMENSIONS}"
        ))),
    }
}

/// Checks a vector built by parsing or arithmetic: its size and that every element is finite.
pub fn check(values: &[f32]) -> Result<(), TypeError> {
    if values.is_empty() {
        return Err(TypeError::DataException(
            "vector must have at least 1 dimension".to_owned(),
        ));
    }
    if values.len() > MAX_DIMENSIONS as usize {
        return Err(TypeError::ProgramLimitExceeded(
            "vector cannot have more than 16000 dimensions",
        ));
    }
    for value in values {
        if value.is_nan() {
            return Err(TypeError::DataException(
                "NaN not allowed in vector".to_owned(),
            ));
        }
        if value.is_infinite() {
            return Err(TypeError::DataException(
                "infinite value not allowed in vector".to_owned(),
            ));
        }
    }
    Ok(())
}

/// Parses pgvector's text form, `[1,2.5,-3e-2]`: brackets, comma-separated floats, optional
/// whitespace around each element and the brackets.
pub fn parse(text: &str) -> Result<Vec<f32>, TypeError> {
    let invalid = || TypeError::InvalidTextRepresentation {
        type_name: "vector",
        text: text.to_owned(),
    };
    let inner = c_trim(text)
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .ok_or_else(invalid)?;
    if c_trim(inner).is_empty() {
        return Err(TypeError::DataException(
            "vector must have at least 1 dimension".to_owned(),
        ));
    }
    let mut values = Vec::with_capacity(inner.len() / 4 + 1);
    for element in inner.split(',') {
        let element = c_trim(element);
        let value = parse_element(element).ok_or_else(invalid)?;
        if value.is_infinite() && !element.to_ascii_lowercase().contains("inf") {
            return Err(TypeError::OutOfRange(format!(
                "\"{element}\" is out of range for type vector"
            )));
        }
        values.push(value);
    }
    check(&values)?;
    Ok(values)
}

/// `text` without the whitespace C's `isspace` knows (space, tab, newline, vertical tab,
/// form feed, carriage return), which is what pgvector skips; other Unicode spaces are not.
fn c_trim(text: &str) -> &str {
    text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r'))
}

/// One element as C's `strtof` reads it (pgvector parses with it): a decimal float, a
/// hexadecimal one (`0x10`, `0x1.8p3`), or `nan` / `inf` / `infinity` (which [`check`] then
/// refuses). Rust's parser alone would take forms `strtof` does not, and the reverse.
/// Values too small for an `f32` become zero, as `strtof`'s do.
fn parse_element(text: &str) -> Option<f32> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let lower = body.to_ascii_lowercase();
    let magnitude = if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_float(hex)?
    } else if matches!(lower.as_str(), "nan" | "inf" | "infinity") || looks_like_float(&lower) {
        lower.parse::<f32>().ok()?
    } else {
        return None;
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The digits of a C hexadecimal float after `0x`: hex digits with an optional point, then an
/// optional binary exponent `p[+-]n`.
fn parse_hex_float(text: &str) -> Option<f32> {
    let (mantissa, exponent) = match text.split_once('p') {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut value = 0.0f64;
    for digit in whole.chars() {
        value = value * 16.0 + f64::from(digit.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for digit in fraction.chars() {
        value += f64::from(digit.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    Some((value * 2f64.powi(exponent)) as f32)
}

/// Whether lower-case `text` (without its sign) is a decimal float as C writes one: digits
/// with at most one point, then an optional exponent.
fn looks_like_float(lower: &str) -> bool {
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (lower, None),
    };
    let digits = mantissa.chars().filter(char::is_ascii_digit).count();
    let points = mantissa.chars().filter(|c| *c == '.').count();
    let mantissa_ok =
        digits > 0 && points <= 1 && mantissa.chars().all(|c| c.is_ascii_digit() || c == '.');
    let exponent_ok = exponent.is_none_or(|exponent| {
        let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
    });
    mantissa_ok && exponent_ok
}

/// Appends pgvector's text form of `values`: `[1,2.5,-0.03]`, each element in the shortest
/// form that reads back as the same `f32` (PostgreSQL's `float4out`).
pub fn format(values: &[f32], out: &mut String) {
    out.push('[');
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_real4(*value, out);
    }
    out.push(']');
}

/// pgvector's order (`vector_cmp`): element by element over the shorter length, then the
/// shorter vector first. Elements are finite, so `-0` and `0` are equal and nothing is NaN.
pub fn compare(a: &[f32], b: &[f32]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match x.partial_cmp(y) {
            Some(Ordering::Equal) | None => {}
            Some(order) => return order,
        }
    }
    a.len().cmp(&b.len())
}

/// The vector as stored in a table cell: each element's 4 bytes, little-endian.
pub fn to_le_bytes(values: &[f32], out: &mut Vec<u8>) {
    out.reserve(values.len() * 4);
    for value in values {
        out.extend_from_slice(&value.to_le_bytes());
    }
}

/// Decodes a stored cell into `out` (cleared first); `false` when the length is not a
/// multiple of 4 (a damaged cell).
pub fn decode_le_bytes(bytes: &[u8], out: &mut Vec<f32>) -> bool {
    out.clear();
    if !bytes.len().is_multiple_of(4) {
        return false;
    }
    append_le_bytes(bytes, out);
    true
}

/// Appends the whole little-endian `f32`s of `bytes` to `out` (a trailing partial element is
/// ignored; callers check the length first). Written as a resize and a zipped loop, not an
/// `extend` over a mapped iterator, because this shape compiles to a vectorised copy: the
/// exact-search scan decodes every stored vector through here, and the mapped `extend` was a
/// seventh of its time.
pub fn append_le_bytes(bytes: &[u8], out: &mut Vec<f32>) {
    let start = out.len();
    out.resize(start + bytes.len() / 4, 0.0);
    for (value, chunk) in out[start..].iter_mut().zip(bytes.chunks_exact(4)) {
        *value = f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
}

/// Memcomparable bytes: comparing two keys byte by byte gives [`compare`]'s order. Each
/// element is 4 bytes — the sign bit flipped for positive numbers and every bit flipped for
/// negative ones, big-endian — so a prefix sorts first, as the shorter vector does.
pub fn key_bytes(values: &[f32], out: &mut Vec<u8>) {
    out.reserve(values.len() * 4);
    for value in values {
        // -0 and 0 compare equal, so they must encode alike.
        let value = if *value == 0.0 { 0.0f32 } else { *value };
        let bits = value.to_bits();
        let ordered = if bits & 0x8000_0000 != 0 {
            !bits
        } else {
            bits | 0x8000_0000
        };
        out.extend_from_slice(&ordered.to_be_bytes());
    }
}

/// Element-wise `a + b`, `a - b` or `a * b` (pgvector's vector arithmetic, in `f32`),
/// checked for matching dimensions, for overflow to infinity and, for a product, for
/// underflow to zero of non-zero factors — pgvector's errors, 22003.
pub fn elementwise(
    a: &[f32],
    b: &[f32],
    op: fn(f32, f32) -> f32,
    is_product: bool,
) -> Result<Vec<f32>, TypeError> {
    if a.len() != b.len() {
        return Err(different_dimensions(a.len(), b.len()));
    }
    let mut result = Vec::with_capacity(a.len());
    for (x, y) in a.iter().zip(b) {
        let value = op(*x, *y);
        if value.is_infinite() {
            return Err(TypeError::OutOfRange(
                "value out of range: overflow".to_owned(),
            ));
        }
        if is_product && value == 0.0 && *x != 0.0 && *y != 0.0 {
            return Err(TypeError::OutOfRange(
                "value out of range: underflow".to_owned(),
            ));
        }
        result.push(value);
    }
    Ok(result)
}

/// `vector_norm`: the Euclidean norm, accumulated in double precision as pgvector does.
pub fn norm(values: &[f32]) -> f64 {
    values
        .iter()
        .map(|value| f64::from(*value) * f64::from(*value))
        .sum::<f64>()
        .sqrt()
}

/// `l2_normalize`: the vector scaled to norm 1; a zero vector stays zero.
pub fn l2_normalize(values: &[f32]) -> Vec<f32> {
    let norm = norm(values);
    if norm > 0.0 {
        values
            .iter()
            .map(|value| (f64::from(*value) / norm) as f32)
            .collect()
    } else {
        values.to_vec()
    }
}

/// `subvector(v, start, count)`: `count` elements from the 1-based `start`, clipped to the
/// vector as pgvector clips them; an empty result is an error.
pub fn subvector(values: &[f32], start: i64, count: i64) -> Result<Vec<f32>, TypeError> {
    // The range [start, start + count) in 1-based positions, clipped to [1, len].
    let len = i64::try_from(values.len()).unwrap_or(i64::MAX);
    let end = start.saturating_add(count);
    let first = start.max(1);
    let last = end.min(len.saturating_add(1));
    if count < 1 || last <= first {
        return Err(TypeError::DataException(
            "vector must have at least 1 dimension".to_owned(),
        ));
    }
    let from = usize::try_from(first - 1).unwrap_or(0);
    let to = usize::try_from(last - 1).unwrap_or(0);
    Ok(values.get(from..to).unwrap_or(&[]).to_vec())
}

#[cfg(test)]
mod tests;
