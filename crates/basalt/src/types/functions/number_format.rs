//! Number formatting templates: `to_char(number, template)`, as PostgreSQL defines them.
//!
//! `datetime_format` owns the `to_char` entry and hands numbers here. The template's
//! patterns (matched case-insensitively unless noted) are:
//!
//! | pattern | meaning |
//! |---------|---------|
//! | `9` | a digit; a leading zero is a blank |
//! | `0` | a digit; leading zeros from the first `0` on are printed |
//! | `.` or `D` | the decimal point |
//! | `,` or `G` | a group separator (a blank before the first digit) |
//! | `S` | the sign, `+` or `-`, anchored to the number |
//! | `MI`, `PL`, `SG` | `-` if negative; `+` if positive; `+` or `-`, at that position |
//! | `PR` | a negative value in angle brackets |
//! | `EEEE` | scientific notation: the digit pattern is the mantissa |
//! | `RN` | Roman numeral, 1 to 3999 (`rn`: lower case), 15 characters wide |
//! | `TH`, `th` | the ordinal suffix of the integer part (`1st`, `2ND`) |
//! | `V` | multiplies by 10 per digit pattern after it (those digits are integer digits) |
//! | `FM` | fill mode: no padding blanks, no trailing zeros from `9` after the point |
//!
//! Double-quoted text is copied without the quotes; any other character is copied. Without
//! `S`, `MI`, `PL`, `SG` or `PR`, a sign position (a blank, or `-`) is written just before
//! the number's first printed character, as PostgreSQL does: `to_char(-0.1, '99.99')` is
//! `'  -.10'`. The value is rounded to the template's fractional digits; a value with more
//! integer digits than the template has is printed as `#` in every digit position. The
//! locale-dependent currency symbol `L` is refused (0A000): Basalt has no locale.

use super::{strict_nulls, text_arg};
use crate::types::{TypeError, Value};

/// One element of a number template.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    /// `9` (`zero: false`) or `0` (`zero: true`).
    Digit {
        zero: bool,
    },
    Point,
    Group,
    /// `S`.
    AnchoredSign,
    Minus,
    Plus,
    SignAlways,
    Brackets,
    Scientific,
    Roman {
        lower: bool,
    },
    Ordinal {
        lower: bool,
    },
    Multiply,
    Literal(String),
}

struct Template {
    tokens: Vec<Token>,
    fill_mode: bool,
}

fn parse(template: &str) -> Result<Template, TypeError> {
    let chars: Vec<char> = template.chars().collect();
    let mut tokens = Vec::new();
    let mut fill_mode = false;
    let mut at = 0;
    let upper_at = |at: usize, word: &str| {
        word.chars().enumerate().all(|(i, c)| {
            chars
                .get(at + i)
                .is_some_and(|x| x.to_ascii_uppercase() == c)
        })
    };
    while let Some(&c) = chars.get(at) {
        let (token, width) = if c == '"' {
            let end = chars[at + 1..]
                .iter()
                .position(|&x| x == '"')
                .map_or(chars.len(), |offset| at + 1 + offset);
            let text: String = chars[at + 1..end].iter().collect();
            (Some(Token::Literal(text)), end + 1 - at)
        } else if upper_at(at, "FM") {
            fill_mode = true;
            (None, 2)
        } else if upper_at(at, "EEEE") {
            (Some(Token::Scientific), 4)
        } else if upper_at(at, "MI") {
            (Some(Token::Minus), 2)
        } else if upper_at(at, "PL") {
            (Some(Token::Plus), 2)
        } else if upper_at(at, "SG") {
            (Some(Token::SignAlways), 2)
        } else if upper_at(at, "PR") {
            (Some(Token::Brackets), 2)
        } else if upper_at(at, "RN") {
            (Some(Token::Roman { lower: c == 'r' }), 2)
        } else if upper_at(at, "TH") {
            (Some(Token::Ordinal { lower: c == 't' }), 2)
        } else {
            let token = match c {
                '9' => Token::Digit { zero: false },
                '0' => Token::Digit { zero: true },
                '.' | 'D' | 'd' => Token::Point,
                ',' | 'G' | 'g' => Token::Group,
                'S' | 's' => Token::AnchoredSign,
                'V' | 'v' => Token::Multiply,
                'L' | 'l' => {
                    return Err(TypeError::FeatureNotSupported(
                        "the currency symbol L in to_char (Basalt has no locale)".into(),
                    ));
                }
                other => Token::Literal(other.to_string()),
            };
            (Some(token), 1)
        };
        tokens.extend(token);
        at += width;
    }
    Ok(Template { tokens, fill_mode })
}

/// `to_char(number, template)`.
pub(super) fn to_char_number(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("to_char", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let template = parse(text_arg("to_char", args, 1)?)?;
    let value = match args.first() {
        Some(Value::Integer(i)) => Number::Integer(*i),
        Some(Value::Real(r)) => Number::Real(*r),
        // A NUMERIC is formatted from its nearest double (exact up to 15 digits).
        Some(Value::Numeric(n)) => Number::Real(n.to_f64()),
        _ => return Err(TypeError::undefined_function("to_char", args)),
    };
    Ok(Value::Text(format(&template, value)))
}

#[derive(Clone, Copy)]
enum Number {
    Integer(i64),
    Real(f64),
}

impl Number {
    fn negative(self) -> bool {
        match self {
            Number::Integer(i) => i < 0,
            Number::Real(r) => r.is_sign_negative() && r != 0.0,
        }
    }

    /// The absolute value times `10^shift`, rounded half away from zero to `fraction`
    /// digits: (integer digits without leading zeros, exactly `fraction` fractional
    /// digits). `None` for NaN and infinities.
    ///
    /// A real is taken as the shortest decimal that reads back as it (what it prints as)
    /// and rounded in decimal, so `12.45` scaled by 10 rounds to 125 as PostgreSQL's
    /// `numeric` does, not to the 124 its binary value is closest to.
    fn digits(self, shift: u32, fraction: usize) -> Option<(String, String)> {
        let decimal = match self {
            Number::Integer(i) => i.unsigned_abs().to_string(),
            Number::Real(r) if r.is_finite() => r.abs().to_string(),
            Number::Real(_) => return None,
        };
        let (integer, fractional) = decimal.split_once('.').unwrap_or((&decimal, ""));
        let mut digits: Vec<u8> = integer.bytes().chain(fractional.bytes()).collect();
        let mut point = integer.len() + shift as usize;
        while digits.len() < point + fraction {
            digits.push(b'0');
        }
        let round_up = digits.get(point + fraction).is_some_and(|&d| d >= b'5');
        digits.truncate(point + fraction);
        if round_up {
            let mut at = digits.len();
            loop {
                if at == 0 {
                    digits.insert(0, b'1');
                    point += 1;
                    break;
                }
                at -= 1;
                if digits[at] == b'9' {
                    digits[at] = b'0';
                } else {
                    digits[at] += 1;
                    break;
                }
            }
        }
        let (integer, fractional) = digits.split_at(point);
        let integer = String::from_utf8_lossy(integer);
        Some((
            integer.trim_start_matches('0').to_string(),
            String::from_utf8_lossy(fractional).into_owned(),
        ))
    }
}

fn format(template: &Template, value: Number) -> String {
    let tokens = &template.tokens;
    if let Some(lower) = tokens.iter().find_map(|token| match token {
        Token::Roman { lower } => Some(*lower),
        _ => None,
    }) {
        return roman(value, lower, template.fill_mode);
    }
    let point = tokens.iter().position(|token| *token == Token::Point);
    let multiply = tokens.iter().position(|token| *token == Token::Multiply);
    let is_digit = |token: &Token| matches!(token, Token::Digit { .. });
    let digits_between =
        |from: usize, to: usize| tokens[from..to].iter().filter(|t| is_digit(t)).count();
    let integer_end = point.unwrap_or(tokens.len());
    // Digit patterns after V are integer digits of the value times 10 per pattern.
    let shift = multiply.map_or(0, |at| digits_between(at, integer_end)) as u32;
    let integer_positions = digits_between(0, integer_end);
    let fraction_positions = point.map_or(0, |at| digits_between(at, tokens.len()));
    let negative = value.negative();
    if tokens.contains(&Token::Scientific) {
        return scientific(template, value, integer_positions, fraction_positions);
    }
    let Some((mut integer, fraction)) = value.digits(shift, fraction_positions) else {
        return "#".repeat(integer_positions + fraction_positions + 1);
    };
    // PostgreSQL prints the zero integer part only when there is nothing after the point.
    if integer.is_empty() && fraction_positions == 0 {
        integer.push('0');
    }
    let overflow = integer.len() > integer_positions;
    // The position (among integer digit patterns) from which zeros are printed.
    let zero_from = tokens[..integer_end]
        .iter()
        .filter(|t| is_digit(t))
        .position(|token| *token == Token::Digit { zero: true })
        .unwrap_or(integer_positions);
    // Fractional digits printed in fill mode: up to the last non-zero one or the last `0`.
    let fraction_patterns: Vec<&Token> = tokens[point.unwrap_or(tokens.len())..]
        .iter()
        .filter(|t| is_digit(t))
        .collect();
    let last_fraction_zero = fraction_patterns
        .iter()
        .rposition(|token| **token == Token::Digit { zero: true })
        .map_or(0, |at| at + 1);
    let significant_fraction = fraction.trim_end_matches('0').len();
    let fraction_shown = if template.fill_mode {
        last_fraction_zero.max(significant_fraction)
    } else {
        fraction_positions
    };
    let explicit_sign = tokens.iter().any(|token| {
        matches!(
            token,
            Token::AnchoredSign | Token::Minus | Token::Plus | Token::SignAlways | Token::Brackets
        )
    });

    let mut out = String::new();
    // Where the number's characters begin, for the implicit sign.
    let mut number_start: Option<usize> = None;
    // An `S` written before the number: where it stood, and the sign.
    let mut leading_sign: Option<(usize, char)> = None;
    let mut integer_index = 0;
    let mut fraction_index = 0;
    let mut printed_digit = false;
    let blank = |out: &mut String| {
        if !template.fill_mode {
            out.push(' ');
        }
    };
    for (position, token) in tokens.iter().enumerate() {
        match token {
            Token::Digit { .. } if position < integer_end => {
                number_start.get_or_insert(out.len());
                let leading = integer_positions - integer_index;
                if overflow {
                    out.push('#');
                } else if leading <= integer.len() {
                    let digit = integer.as_bytes()[integer.len() - leading];
                    out.push(char::from(digit));
                    printed_digit = true;
                } else if integer_index >= zero_from {
                    out.push('0');
                    printed_digit = true;
                } else {
                    blank(&mut out);
                }
                integer_index += 1;
            }
            Token::Digit { .. } => {
                if overflow {
                    out.push('#');
                } else if fraction_index < fraction_shown {
                    out.push(char::from(fraction.as_bytes()[fraction_index]));
                }
                fraction_index += 1;
            }
            Token::Point => {
                number_start.get_or_insert(out.len());
                out.push('.');
            }
            Token::Group => {
                if printed_digit || overflow {
                    out.push(',');
                } else {
                    blank(&mut out);
                }
            }
            Token::AnchoredSign => {
                let sign = if negative { '-' } else { '+' };
                if number_start.is_some() {
                    out.push(sign);
                } else {
                    // Before the number: placed next to its first printed character.
                    number_start = Some(out.len());
                    leading_sign = Some((out.len(), sign));
                }
            }
            Token::Minus => {
                if negative {
                    out.push('-');
                } else {
                    blank(&mut out);
                }
            }
            Token::Plus => {
                if negative {
                    blank(&mut out);
                } else {
                    out.push('+');
                }
            }
            Token::SignAlways => out.push(if negative { '-' } else { '+' }),
            Token::Brackets => {
                if negative {
                    out.push('>');
                } else {
                    blank(&mut out);
                }
            }
            Token::Ordinal { lower } => {
                if !overflow {
                    out.push_str(&ordinal_suffix(&integer, *lower));
                }
            }
            Token::Literal(text) => out.push_str(text),
            Token::Multiply | Token::Scientific | Token::Roman { .. } => {}
        }
    }
    if let Some((at, sign)) = leading_sign {
        let first = first_printed(&out, at);
        out.insert(first, sign);
        return out;
    }
    place_sign(
        out,
        number_start,
        negative,
        explicit_sign,
        tokens,
        template.fill_mode,
    )
}

/// Writes the implicit sign position when the template has no sign pattern, next to the
/// number's first printed character; `PR`'s opening bracket goes in the same place.
fn place_sign(
    mut out: String,
    number_start: Option<usize>,
    negative: bool,
    explicit_sign: bool,
    tokens: &[Token],
    fill_mode: bool,
) -> String {
    let start = number_start.unwrap_or(out.len());
    let brackets = tokens.contains(&Token::Brackets);
    if brackets {
        let first = first_printed(&out, start);
        if negative {
            out.insert(first, '<');
        } else if !fill_mode {
            out.insert(first, ' ');
        }
        return out;
    }
    if !explicit_sign {
        let first = first_printed(&out, start);
        if negative {
            out.insert(first, '-');
        } else if !fill_mode {
            out.insert(first, ' ');
        }
    }
    out
}

/// The byte index of the first non-blank character at or after `from`.
fn first_printed(out: &str, from: usize) -> usize {
    out[from..]
        .find(|c: char| c != ' ')
        .map_or(out.len(), |offset| from + offset)
}

/// `EEEE`: the mantissa with the template's fractional digits, then `e+XX`.
fn scientific(
    template: &Template,
    value: Number,
    integer_positions: usize,
    fraction_positions: usize,
) -> String {
    let magnitude = match value {
        Number::Integer(i) => i.unsigned_abs() as f64,
        Number::Real(r) => r.abs(),
    };
    let sign = if value.negative() {
        "-"
    } else if template.fill_mode {
        ""
    } else {
        " "
    };
    if !magnitude.is_finite() || integer_positions == 0 {
        return format!(
            "{sign}{}",
            "#".repeat(integer_positions + fraction_positions + 5)
        );
    }
    let text = format!("{:.*e}", fraction_positions, magnitude);
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let exponent_sign = if exponent < 0 { '-' } else { '+' };
    format!(
        "{sign}{mantissa}e{exponent_sign}{:02}",
        exponent.unsigned_abs()
    )
}

/// `1st`, `2nd`, `3rd`, `11th`: the suffix for the integer part's last digits.
fn ordinal_suffix(integer: &str, lower: bool) -> String {
    let last_two: u32 = integer
        .get(integer.len().saturating_sub(2)..)
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0);
    let suffix = match (last_two % 100, last_two % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    };
    if lower {
        suffix.to_string()
    } else {
        suffix.to_uppercase()
    }
}

/// `RN`: the value rounded to an integer as a Roman numeral, right-aligned in 15
/// characters (no padding in fill mode); `#` when outside 1–3999.
fn roman(value: Number, lower: bool, fill_mode: bool) -> String {
    let rounded = match value {
        Number::Integer(i) => Some(i),
        Number::Real(r) if r.is_finite() => Some(r.round() as i64),
        Number::Real(_) => None,
    };
    let Some(mut number) = rounded.filter(|n| (1..=3999).contains(n)) else {
        return "#".repeat(15);
    };
    const NUMERALS: [(i64, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut text = String::new();
    for (worth, numeral) in NUMERALS {
        while number >= worth {
            text.push_str(numeral);
            number -= worth;
        }
    }
    if lower {
        text = text.to_lowercase();
    }
    if fill_mode {
        text
    } else {
        format!("{text:>15}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to_char(value: Value, template: &str) -> String {
        match to_char_number(&[value, Value::Text(template.into())]) {
            Ok(Value::Text(text)) => text,
            other => panic!("to_char gave {other:?}"),
        }
    }

    /// The examples of PostgreSQL's documentation (table "to_char Examples"), C locale.
    #[test]
    fn postgresql_documentation_examples() {
        let real = Value::Real;
        let int = Value::Integer;
        let cases: &[(Value, &str, &str)] = &[
            (real(-0.1), "99.99", "  -.10"),
            (real(-0.1), "FM9.99", "-.1"),
            (real(-0.1), "FM90.99", "-0.1"),
            (real(0.1), "0.9", " 0.1"),
            (int(12), "9990999.9", "    0012.0"),
            (int(12), "FM9990999.9", "0012."),
            (int(485), "999", " 485"),
            (int(-485), "999", "-485"),
            (int(485), "9 9 9", " 4 8 5"),
            (int(1485), "9,999", " 1,485"),
            (int(1485), "9G999", " 1,485"),
            (real(148.5), "999.999", " 148.500"),
            (real(148.5), "FM999.999", "148.5"),
            (real(148.5), "FM999.990", "148.500"),
            (real(148.5), "999D999", " 148.500"),
            (int(-485), "999S", "485-"),
            (int(-485), "999MI", "485-"),
            (int(485), "999MI", "485 "),
            (int(485), "FM999MI", "485"),
            (int(485), "PL999", "+485"),
            (int(485), "SG999", "+485"),
            (int(-485), "SG999", "-485"),
            (int(-485), "9SG99", "4-85"),
            (int(-485), "999PR", "<485>"),
            (int(485), "RN", "        CDLXXXV"),
            (int(485), "FMRN", "CDLXXXV"),
            (real(5.2), "FMRN", "V"),
            (int(482), "999th", " 482nd"),
            (int(485), "\"Good number:\"999", "Good number: 485"),
            (
                real(485.8),
                "\"Pre:\"999\" Post:\" .999",
                "Pre: 485 Post: .800",
            ),
            (int(12), "99V999", " 12000"),
            (real(12.4), "99V999", " 12400"),
            (real(12.45), "99V9", " 125"),
            (real(0.0004859), "9.99EEEE", " 4.86e-04"),
        ];
        for (value, template, expected) in cases {
            assert_eq!(
                to_char(value.clone(), template),
                *expected,
                "{value:?} {template}"
            );
        }
    }

    #[test]
    fn overflow_signs_and_rounding() {
        assert_eq!(to_char(Value::Integer(1234), "99"), " ##");
        assert_eq!(to_char(Value::Integer(-5), "000"), "-005");
        assert_eq!(to_char(Value::Integer(5), "S999"), "  +5");
        assert_eq!(to_char(Value::Real(2.675), "9.9"), " 2.7");
        assert_eq!(to_char(Value::Real(0.125), "9.99"), "  .13");
        // Rounding can carry into a new integer digit, which may then overflow.
        assert_eq!(to_char(Value::Real(9.99), "9.9"), " #.#");
        assert_eq!(to_char(Value::Real(99.96), "999.9"), " 100.0");
        assert_eq!(to_char(Value::Integer(0), "999"), "   0");
        assert_eq!(to_char(Value::Integer(11), "99TH"), " 11TH");
        assert_eq!(to_char(Value::Integer(4000), "RN"), "###############");
        assert!(matches!(
            to_char_number(&[Value::Integer(1), Value::Text("L999".into())]),
            Err(TypeError::FeatureNotSupported(_))
        ));
        assert_eq!(
            to_char_number(&[Value::Null, Value::Text("999".into())]).ok(),
            Some(Value::Null)
        );
    }
}
