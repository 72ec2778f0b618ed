//! Random values for columns and literals: small, NULL-heavy domains so that joins, GROUP
//! BY, DISTINCT and set operations find equal values, and uniqueness checks fire often.
//!
//! Numbers stay small (integers within ±100 at the leaves) so arithmetic never overflows,
//! and reals are multiples of 0.25 so their sums are exact in binary floating point. Text
//! is short ASCII with upper and lower case letters, digits and LIKE's wildcards.

use rand::Rng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use crate::ast::Literal;
use crate::schema::{Column, SqlType};

/// Text values the data and literals are drawn from.
pub const TEXTS: &[&str] = &[
    "", "a", "b", "c", "ab", "abc", "ba", "bca", "A", "B", "Ab", "aB", "a_b", "x%", " a", "0",
    "10", "9",
];

/// Longer text values for columns with a wide domain (keys), so inserts mostly succeed.
pub const WIDE_TEXTS: &[&str] = &[
    "", "a", "b", "c", "d", "e", "ab", "ac", "ad", "ba", "bb", "bc", "ca", "cb", "abc", "acb",
    "bac", "A", "B", "C", "AB", "Ab", "aB", "a_b", "x%", " a", "0", "1", "10", "9", "99", "z",
];

/// A random non-NULL value of `sql_type`; `wide` picks from a larger domain.
pub fn random_value(random: &mut StdRng, sql_type: SqlType, wide: bool) -> Literal {
    match sql_type {
        SqlType::Integer if wide => Literal::Integer(random.gen_range(-10..=40)),
        SqlType::Integer => Literal::Integer(random.gen_range(-3..=6)),
        SqlType::Real if wide => Literal::Real(f64::from(random.gen_range(-40..=80)) / 4.0),
        SqlType::Real => Literal::Real(f64::from(random.gen_range(-6..=10)) / 4.0),
        SqlType::Text => {
            let pool = if wide { WIDE_TEXTS } else { TEXTS };
            Literal::Text(pool.choose(random).copied().unwrap_or("").to_owned())
        }
    }
}

/// A random value for `column`: NULL often when the column allows it, and — rarely —
/// NULL even when it does not, to exercise NOT NULL checks.
pub fn random_column_value(random: &mut StdRng, column: &Column) -> Literal {
    let null_chance = if column.not_null { 0.02 } else { 0.3 };
    if random.gen_bool(null_chance) {
        return Literal::Null;
    }
    if column.flag {
        return Literal::Integer(random.gen_range(0..=1));
    }
    random_value(random, column.sql_type, column.wide_domain)
}

/// A literal of `sql_type` for use inside an expression (sometimes NULL).
pub fn random_literal(random: &mut StdRng, sql_type: SqlType) -> Literal {
    if random.gen_bool(0.08) {
        return Literal::typed_null(sql_type);
    }
    random_value(random, sql_type, false)
}

/// A non-empty text literal: `replace`'s pattern (SQLite returns the input unchanged for
/// an empty pattern even when the replacement is NULL, PostgreSQL returns NULL).
pub fn nonempty_text(random: &mut StdRng) -> Literal {
    let pool: Vec<&str> = TEXTS
        .iter()
        .copied()
        .filter(|text| !text.is_empty())
        .collect();
    Literal::Text(pool.choose(random).copied().unwrap_or("a").to_owned())
}

/// A nonzero integer literal (a divisor or modulus).
pub fn nonzero_integer(random: &mut StdRng) -> Literal {
    let magnitude = random.gen_range(1..=4);
    Literal::Integer(if random.gen_bool(0.25) {
        -magnitude
    } else {
        magnitude
    })
}

/// A nonzero real literal with an exact binary representation (a divisor).
pub fn nonzero_real(random: &mut StdRng) -> Literal {
    let value = *[0.5, 2.0, 4.0, -2.0, 0.25].choose(random).unwrap_or(&2.0);
    Literal::Real(value)
}

/// A LIKE pattern: made of letters that occur in the data, `%` and `_`.
pub fn random_pattern(random: &mut StdRng) -> Literal {
    let pieces = ["a", "b", "A", "%", "_", "c", "0", "1", "x"];
    let length = random.gen_range(0..=4);
    let mut pattern: String = (0..length)
        .map(|_| *pieces.choose(random).unwrap_or(&"%"))
        .collect();
    if random.gen_bool(0.4) {
        pattern.push('%');
    }
    Literal::Text(pattern)
}

/// A GLOB pattern: letters and digits of the data, `*`, `?` and character classes.
pub fn random_glob_pattern(random: &mut StdRng) -> Literal {
    let pieces = ["a", "b", "A", "*", "?", "[ab]", "[^a]", "[0-9]", "c", "x"];
    let length = random.gen_range(0..=4);
    let mut pattern: String = (0..length)
        .map(|_| *pieces.choose(random).unwrap_or(&"*"))
        .collect();
    if random.gen_bool(0.4) {
        pattern.push('*');
    }
    Literal::Text(pattern)
}
