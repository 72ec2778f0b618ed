//! NUMERIC / DECIMAL: exact decimal numbers, as PostgreSQL's `numeric` within 38 digits.
//!
//! A [`Numeric`] is a signed 128-bit mantissa and a scale: the value is
//! `mantissa × 10^-scale`. The scale is the number of digits after the decimal point that the
//! value *shows* (PostgreSQL's display scale): `12.50` is mantissa 1250, scale 2, and prints
//! as `12.50`, not `12.5`. Equal values of different scales compare equal (`1.0 = 1.00`) and
//! hash alike ([`Numeric::normalized`]).
//!
//! What it guarantees:
//! * the mantissa's magnitude is below 10^38 (at most 38 significant digits) and the scale is
//!   at most 38; every operation that would leave that range fails with 22003 instead of
//!   rounding silently (see `docs/sql.md` for where this differs from PostgreSQL, which
//!   allows up to 131072 digits before the point and 16383 after it);
//! * arithmetic is exact where PostgreSQL's is: `+ - *` keep every digit (a product's scale
//!   is the sum of the scales, rounded to 38 only beyond that), `/` rounds to PostgreSQL's
//!   result scale (`select_div_scale`: at least 16 significant digits), and every rounding is
//!   half away from zero, as PostgreSQL rounds numerics;
//! * text input and output are PostgreSQL's (`' -1.50e2 '` is `-150`, scale 0);
//! * nothing here panics, whatever the input.
//!
//! NaN and ±Infinity, which PostgreSQL 15's numeric also has, are not supported: their text
//! input is an error (0A000).

mod ops;
mod wide;

pub use ops::{add, ceil, div_integer, divide, floor, multiply, remainder, round, subtract, trunc};

use std::cmp::Ordering;
use std::fmt;

use super::TypeError;
use wide::U256;

/// The most significant digits a value holds.
pub const MAX_PRECISION: u32 = 38;
/// The largest scale (digits after the point) a value has.
pub const MAX_SCALE: u32 = 38;

/// 10^0 ..= 10^38 (10^38 < 2^127).
const POW10: [i128; 39] = {
    let mut table = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// 10^n for n ≤ 38.
pub(crate) fn pow10(n: u32) -> i128 {
    POW10.get(n as usize).copied().unwrap_or(i128::MAX)
}

/// The bound every mantissa stays below in magnitude.
const LIMIT: i128 = POW10[38];

/// An exact decimal: `mantissa × 10^-scale`, |mantissa| < 10^38, scale ≤ 38.
///
/// The mantissa is kept as two 64-bit halves rather than an `i128` so that the type is
/// 8-byte aligned: `Value` and `ValueRef` stay 32 bytes (an `i128` would make them 48).
#[derive(Clone, Copy, Debug, Eq)]
pub struct Numeric {
    low: u64,
    high: u64,
    scale: u8,
}

impl PartialEq for Numeric {
    /// Numeric equality: `1.0 == 1.00`.
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl PartialOrd for Numeric {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Numeric {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.mantissa(), other.mantissa());
        if a.signum() != b.signum() {
            return a.signum().cmp(&b.signum());
        }
        match self.scale.cmp(&other.scale) {
            Ordering::Equal => a.cmp(&b),
            Ordering::Less => match a.checked_mul(pow10(u32::from(other.scale - self.scale))) {
                Some(scaled) => scaled.cmp(&b),
                // Beyond i128 in magnitude: farther from zero than any mantissa.
                None => a.signum().cmp(&0),
            },
            Ordering::Greater => match b.checked_mul(pow10(u32::from(self.scale - other.scale))) {
                Some(scaled) => a.cmp(&scaled),
                None => 0.cmp(&b.signum()),
            },
        }
    }
}

/// 22003 for a result beyond 38 digits.
pub(crate) fn overflow() -> TypeError {
    TypeError::OutOfRange("value overflows numeric format".to_owned())
}

impl Numeric {
    /// Zero, scale 0.
    pub const ZERO: Numeric = Numeric {
        low: 0,
        high: 0,
        scale: 0,
    };

    /// The value from its parts, unchecked.
    const fn raw(mantissa: i128, scale: u8) -> Numeric {
        Numeric {
            low: mantissa as u64,
            high: (mantissa >> 64) as u64,
            scale,
        }
    }

    /// `mantissa × 10^-scale`, 22003 when out of range.
    pub fn new(mantissa: i128, scale: u32) -> Result<Numeric, TypeError> {
        if mantissa.unsigned_abs() >= LIMIT.unsigned_abs() || scale > MAX_SCALE {
            return Err(overflow());
        }
        Ok(Numeric::raw(mantissa, scale as u8))
    }

    /// The mantissa.
    pub fn mantissa(self) -> i128 {
        ((u128::from(self.high) << 64) | u128::from(self.low)) as i128
    }

    /// The scale (digits after the point).
    pub fn scale(self) -> u32 {
        u32::from(self.scale)
    }

    /// An integer, scale 0.
    pub fn from_i64(v: i64) -> Numeric {
        Numeric::raw(i128::from(v), 0)
    }

    /// -1, 0 or 1.
    pub fn signum(self) -> i32 {
        self.mantissa().signum() as i32
    }

    /// The value with trailing fractional zeros removed: the one representative of its
    /// value, for hashing and grouping.
    pub fn normalized(self) -> Numeric {
        let (mut m, mut s) = (self.mantissa(), self.scale);
        while s > 0 && m % 10 == 0 {
            m /= 10;
            s -= 1;
        }
        Numeric::raw(m, s)
    }

    /// `-self`.
    pub fn negate(self) -> Numeric {
        Numeric::raw(-self.mantissa(), self.scale)
    }

    /// `|self|`.
    pub fn abs(self) -> Numeric {
        Numeric::raw(self.mantissa().abs(), self.scale)
    }

    /// The value at `scale` digits after the point: padded with zeros, or rounded half
    /// away from zero. 22003 when the padded mantissa no longer fits.
    pub fn rescale(self, scale: u32) -> Result<Numeric, TypeError> {
        let current = self.scale();
        if scale > MAX_SCALE {
            return Err(overflow());
        }
        if scale >= current {
            let m = self
                .mantissa()
                .checked_mul(pow10(scale - current))
                .ok_or_else(overflow)?;
            return Numeric::new(m, scale);
        }
        let m = round_div(self.mantissa(), pow10(current - scale));
        Numeric::new(m, scale)
    }

    /// Applies a `NUMERIC(precision, scale)` modifier as PostgreSQL does on store and cast:
    /// round to `scale`, then 22003 when more than `precision - scale` digits remain before
    /// the point.
    pub fn apply_typmod(self, precision: u32, scale: u32) -> Result<Numeric, TypeError> {
        let rounded = self.rescale(scale)?;
        let bound = precision.min(MAX_PRECISION);
        if precision < MAX_PRECISION && rounded.mantissa().unsigned_abs() >= pow10(bound) as u128 {
            let digits = precision.saturating_sub(scale);
            return Err(TypeError::OutOfRange(format!(
                "numeric field overflow: a field with precision {precision}, scale {scale} \
                 must round to an absolute value less than {}",
                if digits == 0 {
                    "1".to_owned()
                } else {
                    format!("10^{digits}")
                }
            )));
        }
        Ok(rounded)
    }

    /// The nearest integer (half away from zero), 22003 outside `i64`.
    pub fn to_i64(self) -> Result<i64, TypeError> {
        let m = round_div(self.mantissa(), pow10(self.scale()));
        i64::try_from(m).map_err(|_| TypeError::integer_overflow())
    }

    /// The nearest double.
    pub fn to_f64(self) -> f64 {
        // Both operands exact and one IEEE division: correctly rounded.
        if self.mantissa().unsigned_abs() < (1 << 53) && self.scale <= 22 {
            return self.mantissa() as f64 / 10f64.powi(i32::from(self.scale));
        }
        self.to_string().parse::<f64>().unwrap_or(f64::NAN)
    }

    /// A double as PostgreSQL 15's float8 → numeric: its 15 significant digits. NaN and
    /// infinities have no NUMERIC here (0A000); magnitudes beyond 38 digits are 22003.
    pub fn from_f64(r: f64) -> Result<Numeric, TypeError> {
        if !r.is_finite() {
            return Err(TypeError::FeatureNotSupported(format!(
                "cannot convert {} to numeric: NaN and infinity are not supported",
                super::Value::Real(r)
            )));
        }
        if r == 0.0 {
            return Ok(Numeric::ZERO);
        }
        // PostgreSQL prints the double with `%.15g` and reads that back: 15 significant
        // digits, trailing zeros dropped.
        let text = format!("{r:.14e}");
        Ok(parse(&text)?.normalized())
    }

    /// The order-preserving 32-byte key of the value: `value × 10^38` as a signed 256-bit
    /// integer, big-endian, with the sign bit flipped (`docs/file-format.md`). Equal values
    /// of different scales have equal keys.
    pub fn key_bytes(self) -> [u8; 32] {
        let magnitude = U256::product(
            self.mantissa().unsigned_abs(),
            pow10(MAX_SCALE - self.scale()) as u128,
        );
        let signed = if self.mantissa() < 0 {
            magnitude.wrapping_neg()
        } else {
            magnitude
        };
        let mut bytes = signed.to_be_bytes();
        bytes[0] ^= 0x80;
        bytes
    }
}

impl Numeric {
    /// The stored form (a table cell, a spill file): the scale byte, then the mantissa's
    /// two's-complement little-endian bytes without redundant sign bytes (none for zero):
    /// 1 to 17 bytes.
    pub fn to_cell_bytes(self, out: &mut Vec<u8>) {
        out.push(self.scale);
        let bytes = self.mantissa().to_le_bytes();
        let fill = if self.mantissa() < 0 { 0xFF } else { 0x00 };
        let mut len = 16;
        // Drop a top byte while the byte below it carries the same sign.
        while len > 0
            && bytes[len - 1] == fill
            && (len == 1 || (bytes[len - 2] & 0x80 == fill & 0x80))
        {
            len -= 1;
        }
        if len == 0 && self.mantissa() < 0 {
            // -1: one 0xFF byte.
            len = 1;
        }
        out.extend_from_slice(&bytes[..len]);
    }

    /// Reads [`Numeric::to_cell_bytes`]' form; `None` for bytes it cannot have written.
    pub fn from_cell_bytes(bytes: &[u8]) -> Option<Numeric> {
        let (&scale, mantissa) = bytes.split_first()?;
        if mantissa.len() > 16 {
            return None;
        }
        let fill = match mantissa.last() {
            Some(&top) if top & 0x80 != 0 => 0xFF,
            _ => 0x00,
        };
        let mut full = [fill; 16];
        full[..mantissa.len()].copy_from_slice(mantissa);
        Numeric::new(i128::from_le_bytes(full), u32::from(scale)).ok()
    }
}

impl std::str::FromStr for Numeric {
    type Err = TypeError;

    /// [`parse`]: PostgreSQL's numeric input.
    fn from_str(text: &str) -> Result<Numeric, TypeError> {
        parse(text)
    }
}

impl Numeric {
    /// PostgreSQL's binary form (`numeric_send`): digit count, weight, sign and display
    /// scale as 16-bit words, then the base-10000 digits, most significant first, with
    /// leading and trailing zero digits left out.
    pub fn to_pg_binary(self) -> Vec<u8> {
        let scale = self.scale();
        let magnitude = self.mantissa().unsigned_abs();
        // Pad the fraction to whole base-10000 digits: value × 10^(4k) is an integer.
        let frac_groups = scale.div_ceil(4);
        let padded = U256::from_u128(magnitude).mul_pow10(frac_groups * 4 - scale);
        let mut groups = Vec::new();
        if let Some(mut rest) = padded {
            while rest != U256::from_u128(0) {
                match rest.div_rem(10_000) {
                    Some((q, r)) => {
                        groups.push(r as u16);
                        rest = q;
                    }
                    None => break,
                }
            }
        }
        groups.reverse();
        // groups[0] is the most significant; its weight counts from the point.
        let mut weight = groups.len() as i32 - 1 - frac_groups as i32;
        while groups.first() == Some(&0) {
            groups.remove(0);
            weight -= 1;
        }
        while groups.last() == Some(&0) {
            groups.pop();
        }
        if groups.is_empty() {
            weight = 0;
        }
        let sign: u16 = if self.mantissa() < 0 { 0x4000 } else { 0 };
        let mut out = Vec::with_capacity(8 + groups.len() * 2);
        out.extend_from_slice(&(groups.len() as u16).to_be_bytes());
        out.extend_from_slice(&(weight as i16).to_be_bytes());
        out.extend_from_slice(&sign.to_be_bytes());
        out.extend_from_slice(&(scale as u16).to_be_bytes());
        for group in groups {
            out.extend_from_slice(&group.to_be_bytes());
        }
        out
    }
}

/// `value / divisor` rounded half away from zero (divisor > 0).
pub(crate) fn round_div(value: i128, divisor: i128) -> i128 {
    if divisor <= 1 {
        return value;
    }
    let (q, r) = (value / divisor, value % divisor);
    // |r| < divisor ≤ 10^38, so 2|r| fits.
    if r.unsigned_abs() * 2 >= divisor.unsigned_abs() {
        q + value.signum()
    } else {
        q
    }
}

impl fmt::Display for Numeric {
    /// PostgreSQL's output: every digit of the scale, no exponent (`-0.050`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.mantissa().unsigned_abs().to_string();
        let scale = self.scale as usize;
        if self.mantissa() < 0 {
            f.write_str("-")?;
        }
        if scale == 0 {
            return f.write_str(&digits);
        }
        if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            write!(f, "{int}.{frac}")
        } else {
            write!(f, "0.{}{digits}", "0".repeat(scale - digits.len()))
        }
    }
}

/// Parses NUMERIC text as PostgreSQL: optional spaces and sign, digits with an optional
/// point, an optional exponent. The scale is the digits after the point less the exponent
/// (never below 0). 22P02 for malformed text, 22003 beyond 38 digits or scale 38, 0A000
/// for `NaN` and `Infinity`.
pub fn parse(text: &str) -> Result<Numeric, TypeError> {
    let invalid = || TypeError::InvalidTextRepresentation {
        type_name: "numeric",
        text: text.to_owned(),
    };
    let trimmed = text.trim();
    let (negative, body) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let lowered = body.to_ascii_lowercase();
    if matches!(lowered.as_str(), "nan" | "infinity" | "inf") {
        return Err(TypeError::FeatureNotSupported(format!(
            "numeric value \"{}\" is not supported (NaN and infinity)",
            text.trim()
        )));
    }
    let (number, exponent) = match body.find(['e', 'E']) {
        Some(at) => {
            let exp_text = &body[at + 1..];
            let exp: i64 = exp_text
                .strip_prefix('+')
                .unwrap_or(exp_text)
                .parse()
                .map_err(|_| invalid())?;
            if exp_text.is_empty()
                || !exp_text
                    .trim_start_matches(['+', '-'])
                    .bytes()
                    .all(|b| b.is_ascii_digit())
            {
                return Err(invalid());
            }
            (&body[..at], exp)
        }
        None => (body, 0),
    };
    let (int_part, frac_part) = match number.split_once('.') {
        Some((int, frac)) => (int, frac),
        None => (number, ""),
    };
    if (int_part.is_empty() && frac_part.is_empty())
        || !int_part.bytes().all(|b| b.is_ascii_digit())
        || !frac_part.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(invalid());
    }
    if !(-1000..=1000).contains(&exponent) {
        return Err(overflow());
    }
    let mut mantissa: i128 = 0;
    let mut significant = 0u32;
    for b in int_part.bytes().chain(frac_part.bytes()) {
        if mantissa == 0 && b == b'0' {
            continue;
        }
        significant += 1;
        if significant > MAX_PRECISION {
            return Err(overflow());
        }
        mantissa = mantissa * 10 + i128::from(b - b'0');
    }
    let mut scale = frac_part.len() as i64 - exponent;
    if scale < 0 {
        let shift = u32::try_from(-scale).map_err(|_| overflow())?;
        if shift > MAX_PRECISION {
            if mantissa != 0 {
                return Err(overflow());
            }
        } else {
            mantissa = mantissa.checked_mul(pow10(shift)).ok_or_else(overflow)?;
        }
        scale = 0;
    }
    if scale > i64::from(MAX_SCALE) {
        return Err(overflow());
    }
    if negative {
        mantissa = -mantissa;
    }
    Numeric::new(mantissa, scale as u32)
}

#[cfg(test)]
mod tests;
