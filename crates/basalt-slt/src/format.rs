//! Formatting result cells by the column type letter a `query` record declares.
//!
//! The rules are those of SQLite's reference runner (`slt_sqlite.c`), which reads every
//! column through the SQLite C API named after the declared letter, whatever the value's
//! actual type:
//!
//! - `NULL` is `NULL` for every letter.
//! - `I`: `sqlite3_column_int64` printed with `%lld`. A real is truncated toward zero
//!   (saturating at the i64 range); text and blobs go through `sqlite3Atoi64`, which reads
//!   the longest leading integer (`"12abc"` → 12, `"1.9"` → 1, `"abc"` → 0).
//! - `R`: `sqlite3_column_double` printed with SQLite's own `%.3f`. Text and blobs go
//!   through `sqlite3AtoF`, which reads the longest leading decimal number. SQLite's printf
//!   rounds exact ties away from zero (Rust's rounds them to even), and prints `-` for any
//!   negative value, even one that rounds to zero.
//! - `T`: `sqlite3_column_text`. Integers print in decimal and reals as SQLite's `%!.15g`
//!   (15 significant digits, always with a `.` or exponent: `1.0`, `1.0e+20`). The C string
//!   ends at the first NUL byte; an empty result prints `(empty)`; every byte outside
//!   printable ASCII (`< ' '` or `> '~'`) becomes `@` — per byte, so a two-byte UTF-8
//!   character becomes `@@`, as the reference's `char` loop does.
//!
//! [`format_cell`] is the single entry point; the helpers are public for testing against
//! SQLite's own `printf()` and `CAST`.

use crate::engine::Cell;

/// A column type letter of a `query` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// `I`
    Integer,
    /// `R`
    Real,
    /// `T`
    Text,
}

impl ColumnType {
    /// Parses one type letter; only the reference runner's three letters are accepted.
    pub fn from_letter(letter: char) -> Option<Self> {
        match letter {
            'I' => Some(Self::Integer),
            'R' => Some(Self::Real),
            'T' => Some(Self::Text),
            _ => None,
        }
    }
}

/// Formats `cell` as the reference runner would for a column declared `column_type`.
pub fn format_cell(cell: &Cell, column_type: ColumnType) -> String {
    match (cell, column_type) {
        (Cell::Null, _) => "NULL".to_owned(),
        (Cell::Integer(value), ColumnType::Integer) => value.to_string(),
        // `as` saturates at the i64 range and maps NaN to 0, as SQLite's doubleToInt64 does.
        (Cell::Real(value), ColumnType::Integer) => (*value as i64).to_string(),
        (Cell::Text(text), ColumnType::Integer) => leading_integer(text.as_bytes()).to_string(),
        (Cell::Blob(bytes), ColumnType::Integer) => leading_integer(bytes).to_string(),
        (Cell::Integer(value), ColumnType::Real) => fixed3(*value as f64),
        (Cell::Real(value), ColumnType::Real) => fixed3(*value),
        (Cell::Text(text), ColumnType::Real) => fixed3(leading_real(text.as_bytes())),
        (Cell::Blob(bytes), ColumnType::Real) => fixed3(leading_real(bytes)),
        (Cell::Integer(value), ColumnType::Text) => value.to_string(),
        (Cell::Real(value), ColumnType::Text) => real_to_text(*value),
        (Cell::Text(text), ColumnType::Text) => printable(text.as_bytes()),
        (Cell::Blob(bytes), ColumnType::Text) => printable(bytes),
    }
}

/// The reference runner's text rendering: stop at NUL, `(empty)` for nothing, and `@` for
/// every byte outside printable ASCII.
pub fn printable(bytes: &[u8]) -> String {
    let end = bytes
        .iter()
        .position(|&byte| byte == 0)
        .unwrap_or(bytes.len());
    let bytes = &bytes[..end];
    if bytes.is_empty() {
        return "(empty)".to_owned();
    }
    bytes
        .iter()
        .map(|&byte| {
            if (b' '..=b'~').contains(&byte) {
                byte as char
            } else {
                '@'
            }
        })
        .collect()
}

fn is_sqlite_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `sqlite3Atoi64`: leading whitespace, an optional sign, then as many digits as there are;
/// anything after is ignored, no digits give 0, and overflow saturates.
pub fn leading_integer(bytes: &[u8]) -> i64 {
    let mut position = 0;
    while position < bytes.len() && is_sqlite_space(bytes[position]) {
        position += 1;
    }
    let mut negative = false;
    if let Some(&sign) = bytes.get(position)
        && (sign == b'-' || sign == b'+')
    {
        negative = sign == b'-';
        position += 1;
    }
    // Accumulate in u128 and stop growing once far beyond the i64 range, so long digit
    // strings cannot overflow the accumulator.
    let mut magnitude: u128 = 0;
    while let Some(&digit) = bytes.get(position) {
        if !digit.is_ascii_digit() {
            break;
        }
        if magnitude <= u128::from(u64::MAX) {
            magnitude = magnitude * 10 + u128::from(digit - b'0');
        }
        position += 1;
    }
    if negative {
        let limit = u128::from(i64::MAX as u64) + 1;
        if magnitude >= limit {
            i64::MIN
        } else {
            -(magnitude as i64)
        }
    } else if magnitude > i64::MAX as u128 {
        i64::MAX
    } else {
        magnitude as i64
    }
}

/// `sqlite3AtoF`: leading whitespace, then the longest prefix shaped like a decimal number
/// (sign, digits, optional fraction, optional exponent); no number gives 0.0.
pub fn leading_real(bytes: &[u8]) -> f64 {
    let mut start = 0;
    while start < bytes.len() && is_sqlite_space(bytes[start]) {
        start += 1;
    }
    let mut position = start;
    if matches!(bytes.get(position), Some(b'-' | b'+')) {
        position += 1;
    }
    let digits_start = position;
    while bytes.get(position).is_some_and(u8::is_ascii_digit) {
        position += 1;
    }
    let mut digit_count = position - digits_start;
    if bytes.get(position) == Some(&b'.') {
        let fraction_start = position + 1;
        let mut end = fraction_start;
        while bytes.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        digit_count += end - fraction_start;
        position = end;
    }
    if digit_count == 0 {
        return 0.0;
    }
    // An exponent only counts when at least one digit follows the `e` and its sign.
    if matches!(bytes.get(position), Some(b'e' | b'E')) {
        let mut end = position + 1;
        if matches!(bytes.get(end), Some(b'-' | b'+')) {
            end += 1;
        }
        let exponent_digits = end;
        while bytes.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        if end > exponent_digits {
            position = end;
        }
    }
    // The prefix is ASCII by construction; Rust's parser accepts every shape kept above
    // ("5.", ".5", "+1e3") and rounds correctly.
    std::str::from_utf8(&bytes[start..position])
        .ok()
        .and_then(|text| text.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// SQLite's `%.3f`: the value rounded to three decimals, ties away from zero, but never
/// to more than 16 significant digits — SQLite's printf produces at most 16 and pads with
/// zeros (`-9223372036854775808.0` prints as `-9223372036854776000.000`, as the corpus
/// expects). Any negative value gets a `-`, even one that rounds to zero.
pub fn fixed3(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Inf" } else { "-Inf" }.to_owned();
    }
    let magnitude = value.abs();
    let sign = if value < 0.0 { "-" } else { "" };
    if magnitude == 0.0 {
        return format!("{sign}0.000");
    }
    let (leading, exponent) = scientific(magnitude, 17);
    // Significant digits down to the 10^-3 place, capped at SQLite's 16.
    let keep = (exponent + 4).min(16);
    if keep < 0 {
        return format!("{sign}0.000");
    }
    if keep == 0 {
        // The first digit sits at 10^-4: rounding at 10^-3 gives 0.001 or 0.000.
        let rounded = if leading.starts_with(['5', '6', '7', '8', '9']) {
            "0.001"
        } else {
            "0.000"
        };
        return format!("{sign}{rounded}");
    }
    let (digits, exponent) = significant_digits(magnitude, keep as usize);
    let digit_at = |power: i32| -> char {
        // The digit for 10^power: the first digit is 10^exponent.
        usize::try_from(exponent - power)
            .ok()
            .and_then(|index| digits.as_bytes().get(index))
            .map_or('0', |&byte| byte as char)
    };
    let mut text = String::from(sign);
    if exponent < 0 {
        text.push('0');
    } else {
        text.extend((0..=exponent).rev().map(digit_at));
    }
    text.push('.');
    text.extend((1..=3).map(|place| digit_at(-place)));
    text
}

/// Adds one unit in the last place to a non-negative decimal string ("9.99" → "10.00").
fn increment_last_digit(decimal: &str) -> String {
    let mut bytes = decimal.as_bytes().to_vec();
    let mut index = bytes.len();
    while index > 0 {
        index -= 1;
        match bytes[index] {
            b'.' => continue,
            b'9' => bytes[index] = b'0',
            digit => {
                bytes[index] = digit + 1;
                return String::from_utf8_lossy(&bytes).into_owned();
            }
        }
    }
    let mut carried = String::with_capacity(bytes.len() + 1);
    carried.push('1');
    carried.push_str(&String::from_utf8_lossy(&bytes));
    carried
}

/// SQLite's text rendering of a real (`%!.15g`): 15 significant digits, trailing zeros
/// removed but at least one digit after the point, scientific notation (with a signed,
/// two-digit-minimum exponent) below 1e-4 or from 1e15 on; ties round away from zero.
///
/// This is the conversion of the SQLite the reference runner was built with, which
/// produced the corpus. SQLite 3.54 (bundled by rusqlite) has moved to `%!.17g`, so a
/// `CAST(real AS TEXT)` done by SQLite itself would show more digits.
pub fn real_to_text(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Inf" } else { "-Inf" }.to_owned();
    }
    if value == 0.0 {
        return "0.0".to_owned();
    }
    let magnitude = value.abs();
    let (mut digits, mut exponent) = significant_digits(magnitude, 15);
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    let text = if !(-4..15).contains(&exponent) {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        let sign = if exponent < 0 { '-' } else { '+' };
        exponent = exponent.abs();
        format!("{first}.{rest}e{sign}{exponent:02}")
    } else if exponent >= 0 {
        let integer_len = exponent as usize + 1;
        if digits.len() <= integer_len {
            let zeros = "0".repeat(integer_len - digits.len());
            format!("{digits}{zeros}.0")
        } else {
            let (integer, fraction) = digits.split_at(integer_len);
            format!("{integer}.{fraction}")
        }
    } else {
        let zeros = "0".repeat((-exponent - 1) as usize);
        format!("0.{zeros}{digits}")
    };
    if value < 0.0 {
        format!("-{text}")
    } else {
        text
    }
}

/// The first `count` significant decimal digits of a positive finite `value`, rounded with
/// ties away from zero, and the decimal exponent of the first digit.
fn significant_digits(value: f64, count: usize) -> (String, i32) {
    let (digits, exponent) = scientific(value, count + 5);
    let kept = &digits[..count];
    let rest = &digits[count..];
    // Correct rounding to `count` digits differs from SQLite's only on an exact tie (the
    // rest is 5 followed by zeros forever). Five extra correctly rounded digits cannot
    // prove a tie, so only then pay for the full expansion of the double.
    let round_up = if rest == "50000" {
        let (exact, _) = scientific(value, 800);
        exact[count..].starts_with('5')
    } else {
        rest.as_bytes()[0] >= b'5'
    };
    if !round_up {
        return (kept.to_owned(), exponent);
    }
    let rounded = increment_last_digit(kept);
    if rounded.len() > count {
        // 999.. rounded up to 1000..: one more digit, one higher exponent.
        (rounded[..count].to_owned(), exponent + 1)
    } else {
        (rounded, exponent)
    }
}

/// `value` (positive, finite) as `digits` significant digits (correctly rounded) plus the
/// decimal exponent of the first digit.
fn scientific(value: f64, digits: usize) -> (String, i32) {
    let text = format!("{value:.precision$e}", precision = digits - 1);
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exponent.parse().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(cell: Cell, letter: char) -> String {
        format_cell(&cell, ColumnType::from_letter(letter).unwrap())
    }

    #[test]
    fn null_is_null_for_every_letter() {
        for letter in ['I', 'R', 'T'] {
            assert_eq!(format(Cell::Null, letter), "NULL");
        }
    }

    #[test]
    fn integer_letter() {
        assert_eq!(format(Cell::Integer(-42), 'I'), "-42");
        assert_eq!(format(Cell::Real(2.9), 'I'), "2");
        assert_eq!(format(Cell::Real(-2.9), 'I'), "-2");
        assert_eq!(format(Cell::Real(1e300), 'I'), i64::MAX.to_string());
        assert_eq!(format(Cell::Text("abc".into()), 'I'), "0");
        assert_eq!(format(Cell::Text("  12abc".into()), 'I'), "12");
        assert_eq!(format(Cell::Text("-7.9".into()), 'I'), "-7");
        assert_eq!(
            format(Cell::Text("99999999999999999999".into()), 'I'),
            i64::MAX.to_string()
        );
        assert_eq!(
            format(Cell::Text("-9223372036854775808".into()), 'I'),
            i64::MIN.to_string()
        );
        assert_eq!(format(Cell::Blob(b"5".to_vec()), 'I'), "5");
    }

    #[test]
    fn real_letter() {
        assert_eq!(format(Cell::Integer(3), 'R'), "3.000");
        assert_eq!(format(Cell::Real(-1.23456), 'R'), "-1.235");
        assert_eq!(format(Cell::Real(-0.0001), 'R'), "-0.000");
        assert_eq!(format(Cell::Real(-0.0), 'R'), "0.000");
        // Exact ties round away from zero, as SQLite's printf does.
        assert_eq!(format(Cell::Real(0.0625), 'R'), "0.063");
        assert_eq!(format(Cell::Real(-2.0625), 'R'), "-2.063");
        assert_eq!(format(Cell::Real(9.9995), 'R'), "9.999"); // not a tie in binary
        assert_eq!(format(Cell::Text("1.5e1x".into()), 'R'), "15.000");
        assert_eq!(format(Cell::Text("abc".into()), 'R'), "0.000");
        assert_eq!(format(Cell::Text("1e".into()), 'R'), "1.000");
        assert_eq!(format(Cell::Real(0.0005), 'R'), "0.001");
        assert_eq!(format(Cell::Real(0.00049), 'R'), "0.000");
        assert_eq!(format(Cell::Real(0.00001), 'R'), "0.000");
        assert_eq!(format(Cell::Real(999.9996), 'R'), "1000.000");
        assert_eq!(
            format(Cell::Integer(i64::MIN), 'R'),
            "-9223372036854776000.000"
        );
        assert_eq!(
            format(Cell::Real(-18446744073709551616.0), 'R'),
            "-18446744073709550000.000"
        );
    }

    #[test]
    fn text_letter() {
        assert_eq!(format(Cell::Text("a b".into()), 'T'), "a b");
        assert_eq!(format(Cell::Text(String::new()), 'T'), "(empty)");
        assert_eq!(format(Cell::Text("tab\there".into()), 'T'), "tab@here");
        assert_eq!(format(Cell::Text("é~".into()), 'T'), "@@~");
        assert_eq!(format(Cell::Text("a\0b".into()), 'T'), "a");
        assert_eq!(format(Cell::Blob(vec![0x7f, b'x']), 'T'), "@x");
        assert_eq!(format(Cell::Integer(-5), 'T'), "-5");
        assert_eq!(format(Cell::Real(1.0), 'T'), "1.0");
        assert_eq!(format(Cell::Real(0.1), 'T'), "0.1");
        assert_eq!(format(Cell::Real(-2.5e-5), 'T'), "-2.5e-05");
        assert_eq!(format(Cell::Real(1e20), 'T'), "1.0e+20");
        assert_eq!(
            format(Cell::Real(123456789012345.0), 'T'),
            "123456789012345.0"
        );
        assert_eq!(format(Cell::Real(1e15), 'T'), "1.0e+15");
        assert_eq!(
            format(Cell::Real(1234567890123456.0), 'T'),
            "1.23456789012346e+15"
        );
        assert_eq!(format(Cell::Real(999999999999999.9), 'T'), "1.0e+15");
        assert_eq!(format(Cell::Real(1.0 / 3.0), 'T'), "0.333333333333333");
        assert_eq!(format(Cell::Real(0.0001), 'T'), "0.0001");
    }
}
