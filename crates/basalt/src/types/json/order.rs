//! jsonb comparison: the total order used by `=`, `<`, ORDER BY, GROUP BY and DISTINCT, and
//! containment (`@>`, `<@`).
//!
//! The order is PostgreSQL's jsonb b-tree order: Object > Array > Boolean > Number >
//! String > Null; objects with more pairs are greater, then pairs compare in jsonb's storage order
//! (shorter keys first) key, value, key, value...; arrays with more elements are greater,
//! then element by element; numbers compare numerically (`1.0` = `1`); strings bytewise
//! (Basalt's C collation); false < true. As in PostgreSQL, an empty top-level array sorts
//! below everything, even `null`.
//!
//! It is realized as a memcomparable byte string ([`sort_key`]): equal values get identical
//! keys, and `memcmp` of keys is the order. The row-key encoding (`exec::row_key`) embeds it,
//! so sorting and hashing jsonb need nothing special, and [`compare`] is a comparison of
//! keys, so every path agrees.
//!
//! Key layout (one tag byte, then a payload; every encoding is prefix-free, so the elements
//! of arrays and the pairs of objects can simply follow each other):
//!
//! | value                     | tag    | payload                                         |
//! |---------------------------|--------|-------------------------------------------------|
//! | empty top-level array     | `0x01` | none                                            |
//! | null                      | `0x10` | none                                            |
//! | string                    | `0x20` | bytes, `0x00` as `0x00 0xFF`, then `0x00 0x01`  |
//! | number < 0                | `0x30` | the positive payload with every byte inverted   |
//! | number = 0                | `0x31` | none                                            |
//! | number > 0                | `0x32` | exponent (8 bytes, big-endian, sign bit flipped), significant digits as ASCII, `0x00` |
//! | false / true              | `0x40` / `0x41` | none                                   |
//! | array                     | `0x50` | element count (8 bytes big-endian), elements    |
//! | object                    | `0x60` | pair count, then per pair the key's string payload and the value |
//!
//! A number is `0.d₁d₂… × 10^exponent` with `d₁ ≠ 0` and no trailing zero digits, so each
//! value has one spelling and magnitudes compare by exponent, then digits.

use std::cmp::Ordering;

use super::parse::{Tree, parse_tree};
use super::write::{decimal, unique_sorted_members};

const TAG_EMPTY_TOP_ARRAY: u8 = 0x01;
const TAG_NULL: u8 = 0x10;
const TAG_STRING: u8 = 0x20;
const TAG_NEGATIVE: u8 = 0x30;
const TAG_ZERO: u8 = 0x31;
const TAG_POSITIVE: u8 = 0x32;
const TAG_FALSE: u8 = 0x40;
const TAG_TRUE: u8 = 0x41;
const TAG_ARRAY: u8 = 0x50;
const TAG_OBJECT: u8 = 0x60;
/// Stored text that does not parse (never written by Basalt): after every real value, so
/// the order stays total.
const TAG_UNPARSABLE: u8 = 0x70;

/// Appends the memcomparable key of the jsonb value `text`.
pub fn sort_key(text: &str, out: &mut Vec<u8>) {
    match parse_tree(text) {
        Ok(Tree::Array(items)) if items.is_empty() => out.push(TAG_EMPTY_TOP_ARRAY),
        Ok(tree) => push_key(&tree, out),
        Err(_) => {
            out.push(TAG_UNPARSABLE);
            push_escaped(text.as_bytes(), out);
        }
    }
}

/// jsonb comparison of two jsonb texts.
pub fn compare(a: &str, b: &str) -> Ordering {
    let (mut left, mut right) = (Vec::new(), Vec::new());
    sort_key(a, &mut left);
    sort_key(b, &mut right);
    left.cmp(&right)
}

fn push_key(tree: &Tree<'_>, out: &mut Vec<u8>) {
    match tree {
        Tree::Null => out.push(TAG_NULL),
        Tree::Boolean(b) => out.push(if *b { TAG_TRUE } else { TAG_FALSE }),
        Tree::String(s) => {
            out.push(TAG_STRING);
            push_escaped(s.as_bytes(), out);
        }
        Tree::Number(text) => push_number(text, out),
        Tree::Array(items) => {
            out.push(TAG_ARRAY);
            out.extend_from_slice(&(items.len() as u64).to_be_bytes());
            for item in items {
                push_key(item, out);
            }
        }
        Tree::Object(members) => {
            let members = unique_sorted_members(members);
            out.push(TAG_OBJECT);
            out.extend_from_slice(&(members.len() as u64).to_be_bytes());
            for (key, value) in members {
                push_escaped(key.as_bytes(), out);
                push_key(value, out);
            }
        }
    }
}

/// String content: `0x00` escaped as `0x00 0xFF`, terminated by `0x00 0x01` (so a string
/// sorts before its extensions and the encoding is prefix-free).
fn push_escaped(bytes: &[u8], out: &mut Vec<u8>) {
    for &byte in bytes {
        if byte == 0 {
            out.extend_from_slice(&[0x00, 0xFF]);
        } else {
            out.push(byte);
        }
    }
    out.extend_from_slice(&[0x00, 0x01]);
}

/// A number's canonical form: sign, exponent, significant digits (`None` for zero).
fn canonical_number(text: &str) -> Option<(bool, i64, &str, &str)> {
    let parts = decimal(text);
    let integer_significant = parts.integer.trim_start_matches('0');
    // Significant digits start in the integer part, or else after the fraction's zeros.
    let (first, second, leading_zeros) = if integer_significant.is_empty() {
        let fraction = parts.fraction.trim_start_matches('0');
        let zeros = parts.fraction.len() - fraction.len();
        ("", fraction, parts.integer.len() + zeros)
    } else {
        (
            integer_significant,
            parts.fraction,
            parts.integer.len() - integer_significant.len(),
        )
    };
    // Trailing zeros are not significant.
    let (first, second) = if second.trim_end_matches('0').is_empty() {
        (first.trim_end_matches('0'), "")
    } else {
        (first, second.trim_end_matches('0'))
    };
    if first.is_empty() && second.is_empty() {
        return None;
    }
    let exponent = (parts.integer.len() as i64)
        .saturating_add(parts.exponent)
        .saturating_sub(leading_zeros as i64);
    Some((parts.negative, exponent, first, second))
}

fn push_number(text: &str, out: &mut Vec<u8>) {
    let Some((negative, exponent, first, second)) = canonical_number(text) else {
        out.push(TAG_ZERO);
        return;
    };
    out.push(if negative { TAG_NEGATIVE } else { TAG_POSITIVE });
    let start = out.len();
    out.extend_from_slice(&((exponent as u64) ^ (1 << 63)).to_be_bytes());
    out.extend_from_slice(first.as_bytes());
    out.extend_from_slice(second.as_bytes());
    out.push(0x00);
    if negative {
        for byte in &mut out[start..] {
            *byte = !*byte;
        }
    }
}

/// Whether two scalars (or containers, compared whole) are equal as jsonb values.
fn equal(a: &Tree<'_>, b: &Tree<'_>) -> bool {
    let (mut left, mut right) = (Vec::new(), Vec::new());
    push_key(a, &mut left);
    push_key(b, &mut right);
    left == right
}

fn is_container(tree: &Tree<'_>) -> bool {
    matches!(tree, Tree::Array(_) | Tree::Object(_))
}

/// jsonb containment, `value @> contained`, as PostgreSQL defines it: an object contains an
/// object whose every key it has with a containing value; an array contains an array each
/// of whose elements it contains (scalars equal to one of its scalars, containers contained
/// in one of its containers), regardless of order and duplicates; scalars contain equal
/// scalars. At the top level only, an array also contains a scalar it has as an element.
pub fn contains(value: &Tree<'_>, contained: &Tree<'_>) -> bool {
    match (value, contained) {
        (Tree::Array(items), scalar) if !is_container(scalar) => {
            items.iter().any(|item| equal(item, scalar))
        }
        _ => deep_contains(value, contained),
    }
}

fn deep_contains(value: &Tree<'_>, contained: &Tree<'_>) -> bool {
    match (value, contained) {
        (Tree::Object(members), Tree::Object(wanted)) => {
            let members = unique_sorted_members(members);
            unique_sorted_members(wanted)
                .into_iter()
                .all(|(key, want)| {
                    members
                        .binary_search_by(|(candidate, _)| super::write::key_order(candidate, key))
                        .ok()
                        .and_then(|position| members.get(position))
                        .is_some_and(|(_, have)| {
                            if is_container(want) {
                                deep_contains(have, want)
                            } else {
                                !is_container(have) && equal(have, want)
                            }
                        })
                })
        }
        (Tree::Array(items), Tree::Array(wanted)) => wanted.iter().all(|want| {
            if is_container(want) {
                items
                    .iter()
                    .any(|item| is_container(item) && deep_contains(item, want))
            } else {
                items
                    .iter()
                    .any(|item| !is_container(item) && equal(item, want))
            }
        }),
        (Tree::Object(_), _) | (Tree::Array(_), _) | (_, Tree::Object(_)) | (_, Tree::Array(_)) => {
            false
        }
        (have, want) => equal(have, want),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ordered(texts: &[&str]) {
        for pair in texts.windows(2) {
            assert_eq!(compare(pair[0], pair[1]), Ordering::Less, "{pair:?}");
            assert_eq!(compare(pair[1], pair[0]), Ordering::Greater, "{pair:?}");
        }
    }

    #[test]
    fn postgresql_jsonb_order() {
        ordered(&[
            "[]",
            "null",
            "\"\"",
            "\"a\"",
            "\"a\\u0000\"",
            "\"ab\"",
            "\"b\"",
            "-1e10",
            "-2",
            "-1.5",
            "-0.001",
            "0",
            "0.001",
            "1",
            "1.5",
            "2",
            "10",
            "1e10",
            "false",
            "true",
            "[1]",
            "[\"a\", 1]",
            "[1, 2]",
            "[1, [1]]",
            "[1, {}]",
            "{}",
            "{\"aa\": 1}",
            "{\"b\": 1}",
            "{\"b\": 2}",
            "{\"a\": 1, \"b\": 1}",
        ]);
        // PostgreSQL's documented surprise: keys compare in storage order, shorter first.
        assert_eq!(
            compare("{\"aa\": 1, \"c\": 1}", "{\"b\": 1, \"d\": 1}"),
            Ordering::Greater
        );
    }

    #[test]
    fn equal_values_have_equal_keys() {
        for (a, b) in [
            ("1", "1.0"),
            ("100", "1e2"),
            ("0.5", "5e-1"),
            ("0", "-0.00"),
            ("-12.30", "-1.23e1"),
            ("{\"a\": 1, \"b\": [1.0]}", "{\"b\": [1], \"a\": 1.00}"),
        ] {
            assert_eq!(compare(a, b), Ordering::Equal, "{a} = {b}");
        }
        assert_ne!(compare("1", "\"1\""), Ordering::Equal);
        assert_ne!(
            compare("123456789012345678901", "123456789012345678902"),
            Ordering::Equal
        );
    }

    #[test]
    fn containment() {
        let tree = |text: &'static str| parse_tree(text).unwrap();
        let cases = [
            ("{\"a\": 1, \"b\": 2}", "{\"a\": 1}", true),
            ("{\"a\": 1}", "{\"a\": 1, \"b\": 2}", false),
            (
                "{\"a\": {\"b\": [1, 2, 3]}}",
                "{\"a\": {\"b\": [3, 1]}}",
                true,
            ),
            ("{\"a\": [1, 2]}", "{\"a\": 1}", false),
            ("[1, 2, 3]", "[3, 3, 1]", true),
            ("[1, 2, 3]", "[4]", false),
            ("[1, [2, 3]]", "[[3]]", true),
            ("[1, [2, 3]]", "[3]", false),
            ("[{\"a\": 1, \"b\": 2}]", "[{\"a\": 1}]", true),
            ("[\"foo\", \"bar\"]", "\"foo\"", true),
            ("\"foo\"", "[\"foo\"]", false),
            ("1.0", "1", true),
            ("{\"a\": 1}", "[]", false),
            ("[]", "[]", true),
            ("{}", "{}", true),
            ("{\"a\": null}", "{\"a\": null}", true),
        ];
        for (value, contained, expected) in cases {
            assert_eq!(
                contains(&tree(value), &tree(contained)),
                expected,
                "{value} @> {contained}"
            );
        }
    }
}
