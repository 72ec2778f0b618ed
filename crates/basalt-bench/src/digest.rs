//! Answers for the correctness gate: a canonical digest of the rows a workload read.
//!
//! Every row a workload reads, timed or not, flows into a [`Digest`]; the digest of the
//! warm-up iteration is the workload's *answer*, which the harness compares with the
//! reference driver's (SQLite's) before it times anything. The digest must not depend on what
//! the SQL leaves unspecified, so:
//! - rows combine order-independently (a wrapping sum and a xor of row hashes) unless the
//!   metric's query has a total `ORDER BY`, where the position of each row counts too;
//! - numbers compare by value: floats are rounded to 10 significant digits, because engines
//!   legitimately add floats in different orders, and a rounded float that is a whole number
//!   hashes as that integer (one engine's `SUM` may return 3.0 or 4987654.000000001 where
//!   another returns 3 or 4987654.0);
//! - booleans hash as 0/1 and text and blobs as their bytes (with distinct tags);
//! - a vector hashes as the blob of its little-endian f32s, the form SQLite (through
//!   sqlite-vec) stores and returns, so the same vector read from either engine digests the
//!   same. Vector search answers are not digested from floats at all: see
//!   `workloads::retrieval`.
//!
//! Hashing costs a few nanoseconds per value and runs identically for every driver, so it is
//! part of "reading the result", like a user's code touching each column.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::data::mix;
use crate::driver::{RowRef, RowSink, Val};

/// A workload's answer: how many rows it read and the digest of their values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub rows: u64,
    /// Hex, so JSON readers without 64-bit integers keep every bit.
    #[serde(with = "hex_u64")]
    pub hash: u64,
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} rows, digest {:016x}", self.rows, self.hash)
    }
}

/// Accumulates rows into an [`Answer`].
#[derive(Clone, Debug)]
pub struct Digest {
    ordered: bool,
    rows: u64,
    sum: u64,
    xor: u64,
    chain: u64,
}

impl Digest {
    /// A digest where row order does not matter (queries without a total `ORDER BY`).
    pub fn unordered() -> Digest {
        Digest {
            ordered: false,
            rows: 0,
            sum: 0,
            xor: 0,
            chain: 0,
        }
    }

    /// A digest where row order matters.
    pub fn ordered() -> Digest {
        Digest {
            ordered: true,
            ..Digest::unordered()
        }
    }

    /// Adds one row given as values.
    pub fn add_values(&mut self, values: &[Val<'_>]) {
        let mut hash = 0x6A09_E667_F3BC_C909u64;
        for value in values {
            hash = mix(hash ^ hash_value(*value)).wrapping_add(0x9E37_79B9);
        }
        self.add_row_hash(hash);
    }

    /// Adds a count or other figure the workload computed (for example rows changed).
    pub fn add_figure(&mut self, figure: i64) {
        self.add_values(&[Val::Int(figure)]);
    }

    fn add_row_hash(&mut self, hash: u64) {
        self.rows += 1;
        self.sum = self.sum.wrapping_add(hash);
        self.xor ^= mix(hash ^ 0x5851_F42D_4C95_7F2D);
        if self.ordered {
            self.chain = mix(self.chain ^ hash).wrapping_add(self.rows);
        }
    }

    /// Folds another digest's rows into this one (threads that each read a share).
    pub fn merge(&mut self, other: &Digest) {
        self.rows += other.rows;
        self.sum = self.sum.wrapping_add(other.sum);
        self.xor ^= other.xor;
        self.chain = mix(self.chain ^ other.chain);
    }

    /// The answer so far.
    pub fn answer(&self) -> Answer {
        Answer {
            rows: self.rows,
            hash: mix(self.sum ^ mix(self.xor) ^ mix(self.chain.wrapping_add(self.rows))),
        }
    }
}

impl RowSink for Digest {
    fn row(&mut self, row: &dyn RowRef) -> anyhow::Result<()> {
        let mut hash = 0x6A09_E667_F3BC_C909u64;
        for column in 0..row.column_count() {
            hash = mix(hash ^ hash_value(row.value(column)?)).wrapping_add(0x9E37_79B9);
        }
        self.add_row_hash(hash);
        Ok(())
    }
}

const TAG_NULL: u64 = 0x01;
const TAG_INTEGER: u64 = 0x02;
const TAG_REAL: u64 = 0x03;
const TAG_TEXT: u64 = 0x04;
const TAG_BLOB: u64 = 0x05;

/// The canonical hash of one value (see the module comment for the rules).
pub fn hash_value(value: Val<'_>) -> u64 {
    match value {
        Val::Null => mix(TAG_NULL),
        Val::Int(v) => mix(TAG_INTEGER ^ mix(v as u64)),
        Val::Real(v) => hash_real(v),
        Val::Text(v) => hash_bytes(TAG_TEXT, v.as_bytes()),
        Val::Blob(v) => hash_bytes(TAG_BLOB, v),
        Val::Vector(v) => hash_f32s(v),
    }
}

/// The hash of `values` as a blob of their little-endian bytes, without building the blob:
/// [`hash_bytes`] over eight-byte words, each two consecutive f32s.
fn hash_f32s(values: &[f32]) -> u64 {
    let word = |pair: &[f32]| {
        pair.iter().enumerate().fold(0u64, |word, (i, x)| {
            word | u64::from(x.to_bits()) << (32 * i)
        })
    };
    let mut hash = mix(TAG_BLOB ^ (values.len() * 4) as u64);
    let mut pairs = values.chunks_exact(2);
    for pair in &mut pairs {
        hash = (hash ^ word(pair)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        hash ^= hash >> 29;
    }
    mix(hash ^ word(pairs.remainder()))
}

fn hash_real(value: f64) -> u64 {
    let out_of_range = value != 0.0 && !(1e-280..1e280).contains(&value.abs());
    if !value.is_finite() || out_of_range {
        // Outside what powers of ten can scale exactly: hash the bits.
        return mix(TAG_REAL ^ value.to_bits());
    }
    if value == 0.0 {
        return hash_value(Val::Int(0));
    }
    // Round to 10 significant digits: value ≈ mantissa × 10^power, 10-digit mantissa.
    let mut power = value.abs().log10().floor() as i32 - 9;
    let mut mantissa = scale_by_power_of_ten(value, -power).round() as i64;
    if mantissa.unsigned_abs() >= 10_000_000_000 {
        // 9.9999999996e3 rounds up to 11 digits.
        mantissa /= 10;
        power += 1;
    }
    // Canonical form: no trailing zeros in the mantissa.
    while mantissa != 0 && mantissa % 10 == 0 {
        mantissa /= 10;
        power += 1;
    }
    // A rounded value that is a whole number hashes as that integer: one engine's SUM may
    // return 3.0 or 4987654.000000001 where another returns 3 or 4987654.0.
    if power >= 0
        && let Some(integer) = 10i64
            .checked_pow(power as u32)
            .and_then(|factor| mantissa.checked_mul(factor))
    {
        return hash_value(Val::Int(integer));
    }
    mix(TAG_REAL ^ mix(mantissa as u64) ^ (power as u64).rotate_left(48))
}

/// `value × 10^power`, dividing for negative powers so that 10^-n is never rounded first.
fn scale_by_power_of_ten(value: f64, power: i32) -> f64 {
    if power >= 0 {
        value * 10f64.powi(power)
    } else {
        value / 10f64.powi(-power)
    }
}

/// Hashes bytes eight at a time (fast enough for 200 KB text values).
fn hash_bytes(tag: u64, bytes: &[u8]) -> u64 {
    let mut hash = mix(tag ^ bytes.len() as u64);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        hash = (hash ^ u64::from_le_bytes(word)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        hash ^= hash >> 29;
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    mix(hash ^ u64::from_le_bytes(tail))
}

mod hex_u64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format!("{value:016x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
        let text = String::deserialize(deserializer)?;
        u64::from_str_radix(&text, 16).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "tests"
    )]
    use super::*;

    fn digest_of(rows: &[&[Val<'_>]], ordered: bool) -> Answer {
        let mut digest = if ordered {
            Digest::ordered()
        } else {
            Digest::unordered()
        };
        for row in rows {
            digest.add_values(row);
        }
        digest.answer()
    }

    #[test]
    fn unordered_digest_ignores_row_order_but_not_values() {
        let a: &[Val<'_>] = &[Val::Int(1), Val::Text("x")];
        let b: &[Val<'_>] = &[Val::Int(2), Val::Null];
        assert_eq!(digest_of(&[a, b], false), digest_of(&[b, a], false));
        let c: &[Val<'_>] = &[Val::Int(3), Val::Null];
        assert_ne!(digest_of(&[a, b], false), digest_of(&[a, c], false));
    }

    #[test]
    fn ordered_digest_sees_row_order() {
        let a: &[Val<'_>] = &[Val::Int(1)];
        let b: &[Val<'_>] = &[Val::Int(2)];
        assert_ne!(digest_of(&[a, b], true), digest_of(&[b, a], true));
    }

    #[test]
    fn numbers_compare_by_value() {
        assert_eq!(hash_value(Val::Real(3.0)), hash_value(Val::Int(3)));
        // A sum of two-decimal values that happens to be whole, added in another order.
        assert_eq!(
            hash_value(Val::Real(4_987_654.000_000_001)),
            hash_value(Val::Real(4_987_654.0))
        );
        assert_eq!(
            hash_value(Val::Real(4_987_654.0)),
            hash_value(Val::Int(4_987_654))
        );
        assert_eq!(
            hash_value(Val::Real(2.999_999_999_99)),
            hash_value(Val::Int(3))
        );
        assert_eq!(
            hash_value(Val::Real(-0.25)),
            hash_value(Val::Real(-0.250_000_000_000_1))
        );
        assert_ne!(hash_value(Val::Real(-0.25)), hash_value(Val::Real(0.25)));
        assert_ne!(
            hash_value(Val::Int(5_000_050_000)),
            hash_value(Val::Int(5_000_050_001))
        );
        assert_ne!(hash_value(Val::Real(1.5)), hash_value(Val::Int(1)));
        // Different summation orders give neighbouring floats; they must agree.
        let a: f64 = 0.1 + 0.2 + 0.3;
        let b: f64 = 0.3 + 0.2 + 0.1;
        assert_ne!(a.to_bits(), b.to_bits());
        assert_eq!(hash_value(Val::Real(a)), hash_value(Val::Real(b)));
        assert_ne!(hash_value(Val::Real(0.6)), hash_value(Val::Real(0.61)));
        assert_ne!(hash_value(Val::Text("1")), hash_value(Val::Int(1)));
        assert_ne!(hash_value(Val::Text("ab")), hash_value(Val::Blob(b"ab")));
    }

    #[test]
    fn vectors_hash_as_their_little_endian_blob() {
        for vector in [
            &[][..],
            &[1.5][..],
            &[1.0, -2.0][..],
            &[0.1, 0.2, 0.3, -0.0, f32::MAX][..],
        ] {
            let bytes = crate::driver::vector_bytes(vector);
            assert_eq!(
                hash_value(Val::Vector(vector)),
                hash_value(Val::Blob(&bytes))
            );
        }
        assert_ne!(
            hash_value(Val::Vector(&[1.0, 2.0])),
            hash_value(Val::Vector(&[2.0, 1.0]))
        );
    }

    #[test]
    fn long_texts_hash_every_byte() {
        let mut text = "a".repeat(1000);
        let before = hash_value(Val::Text(&text));
        text.replace_range(997..998, "b");
        assert_ne!(before, hash_value(Val::Text(&text)));
    }

    #[test]
    fn answers_round_trip_through_json() {
        let answer = Answer {
            rows: 3,
            hash: u64::MAX - 5,
        };
        let json = serde_json::to_string(&answer).unwrap();
        assert_eq!(serde_json::from_str::<Answer>(&json).unwrap(), answer);
    }
}
