//! NUMERIC arithmetic and the rounding functions, as PostgreSQL's numeric.c defines them
//! within the 38 digits of [`Numeric`]: sums and differences at the larger scale, products
//! at the sum of the scales, quotients at `select_div_scale`'s scale (at least 16
//! significant digits), `%` with the dividend's sign, rounding half away from zero.
//! Results beyond 38 digits are 22003; division by zero is 22012.

use super::wide::U256;
use super::{MAX_SCALE, Numeric, overflow, pow10, round_div};
use crate::types::TypeError;

/// Both mantissas at the larger of the two scales (22003 when one no longer fits).
fn aligned(a: Numeric, b: Numeric) -> Result<(i128, i128, u32), TypeError> {
    let scale = a.scale().max(b.scale());
    let lift = |x: Numeric| {
        x.mantissa()
            .checked_mul(pow10(scale - x.scale()))
            .ok_or_else(overflow)
    };
    Ok((lift(a)?, lift(b)?, scale))
}

/// `a + b` at the larger scale.
pub fn add(a: Numeric, b: Numeric) -> Result<Numeric, TypeError> {
    let (x, y, scale) = aligned(a, b)?;
    Numeric::new(x.checked_add(y).ok_or_else(overflow)?, scale)
}

/// `a - b` at the larger scale.
pub fn subtract(a: Numeric, b: Numeric) -> Result<Numeric, TypeError> {
    let (x, y, scale) = aligned(a, b)?;
    Numeric::new(x.checked_sub(y).ok_or_else(overflow)?, scale)
}

/// A 256-bit magnitude with a sign, rounded down to `from - to` fewer digits and returned
/// as a mantissa (22003 when it does not fit 38 digits).
fn narrow(magnitude: U256, negative: bool, from: u32, to: u32) -> Result<i128, TypeError> {
    let magnitude = if from > to {
        // Round half away from zero: add half of the divisor, then truncate.
        let drop = from - to;
        if drop > 38 {
            return Err(overflow());
        }
        let divisor = pow10(drop) as u128;
        let (q, r) = magnitude.div_rem(divisor).ok_or_else(overflow)?;
        let r = r * 2 >= divisor;
        let q = q.to_u128().ok_or_else(overflow)?;
        if r { q + 1 } else { q }
    } else {
        magnitude.to_u128().ok_or_else(overflow)?
    };
    let magnitude = i128::try_from(magnitude).map_err(|_| overflow())?;
    Ok(if negative { -magnitude } else { magnitude })
}

/// `a × b`: exact at scale `sa + sb` (rounded to scale 38 when that is more).
pub fn multiply(a: Numeric, b: Numeric) -> Result<Numeric, TypeError> {
    let scale = a.scale() + b.scale();
    if let Some(m) = a.mantissa().checked_mul(b.mantissa())
        && scale <= MAX_SCALE
    {
        return Numeric::new(m, scale);
    }
    let product = U256::product(a.mantissa().unsigned_abs(), b.mantissa().unsigned_abs());
    let negative = (a.mantissa() < 0) != (b.mantissa() < 0);
    let target = scale.min(MAX_SCALE);
    Numeric::new(narrow(product, negative, scale, target)?, target)
}

/// PostgreSQL's numeric weight (in base-10000 digits) and first base-10000 digit of a
/// value; (0, 0) for zero.
fn weight_and_first_digit(x: Numeric) -> (i32, u128) {
    let m = x.mantissa().unsigned_abs();
    if m == 0 {
        return (0, 0);
    }
    let digits = m.ilog10() as i32 + 1;
    // The decimal exponent of the leading digit.
    let exponent = digits - 1 - x.scale() as i32;
    let weight = exponent.div_euclid(4);
    // The base-10000 digit at `weight`: ⌊|x| / 10000^weight⌋ mod 10000.
    let shift = x.scale() as i32 + 4 * weight;
    let first = if shift >= 0 {
        m / pow10(shift as u32) as u128
    } else {
        m * pow10((-shift) as u32) as u128
    };
    (weight, first % 10_000)
}

/// PostgreSQL's `select_div_scale`: enough digits for 16 significant digits of quotient,
/// and at least either operand's scale.
pub(crate) fn division_scale(a: Numeric, b: Numeric) -> u32 {
    let (weight1, first1) = weight_and_first_digit(a);
    let (weight2, first2) = weight_and_first_digit(b);
    let mut qweight = weight1 - weight2;
    if first1 <= first2 {
        qweight -= 1;
    }
    let scale = (16 - qweight * 4)
        .max(a.scale() as i32)
        .max(b.scale() as i32)
        .max(0);
    scale.min(MAX_SCALE as i32) as u32
}

/// `a / b` rounded half away from zero at [`division_scale`]; 22012 for `b = 0`.
pub fn divide(a: Numeric, b: Numeric) -> Result<Numeric, TypeError> {
    divide_at(a, b, division_scale(a, b))
}

/// `a / b` rounded half away from zero at `scale`.
pub(crate) fn divide_at(a: Numeric, b: Numeric, scale: u32) -> Result<Numeric, TypeError> {
    if b.mantissa() == 0 {
        return Err(TypeError::DivisionByZero);
    }
    // a/b at scale s is round(ma × 10^(s + sb - sa) / mb); s ≥ sa in PostgreSQL's rule, but
    // a caller may ask for less, in which case the divisor is scaled instead.
    let lift = scale as i64 + b.scale() as i64 - a.scale() as i64;
    let negative = (a.mantissa() < 0) != (b.mantissa() < 0);
    let (dividend, divisor) = if lift >= 0 {
        (
            U256::from_u128(a.mantissa().unsigned_abs())
                .mul_pow10(lift as u32)
                .ok_or_else(overflow)?,
            b.mantissa().unsigned_abs(),
        )
    } else {
        let divisor = b
            .mantissa()
            .unsigned_abs()
            .checked_mul(pow10((-lift) as u32) as u128)
            .filter(|d| d >> 127 == 0);
        match divisor {
            Some(divisor) => (U256::from_u128(a.mantissa().unsigned_abs()), divisor),
            // The divisor exceeds any dividend: the quotient rounds to zero.
            None => return Numeric::new(0, scale),
        }
    };
    let (q, r) = dividend.div_rem(divisor).ok_or_else(overflow)?;
    let mut q = q.to_u128().ok_or_else(overflow)?;
    if r * 2 >= divisor {
        q += 1;
    }
    let q = i128::try_from(q).map_err(|_| overflow())?;
    Numeric::new(if negative { -q } else { q }, scale)
}

/// `a % b`: `a - trunc(a / b) × b`, at the larger scale, with the sign of `a`.
pub fn remainder(a: Numeric, b: Numeric) -> Result<Numeric, TypeError> {
    if b.mantissa() == 0 {
        return Err(TypeError::DivisionByZero);
    }
    let (x, y, scale) = aligned(a, b)?;
    Numeric::new(x % y, scale)
}

/// `div(a, b)`: the integer quotient truncated toward zero, scale 0.
pub fn div_integer(a: Numeric, b: Numeric) -> Result<Numeric, TypeError> {
    if b.mantissa() == 0 {
        return Err(TypeError::DivisionByZero);
    }
    let (x, y, _) = aligned(a, b)?;
    Numeric::new(x / y, 0)
}

/// The value at `digits` after the point (negative: before it), cut by `cut`; the result's
/// scale is `max(digits, 0)` as PostgreSQL's round and trunc give.
fn to_digits(
    x: Numeric,
    digits: i64,
    cut: impl Fn(i128, i128) -> i128,
) -> Result<Numeric, TypeError> {
    let digits = digits.clamp(-(MAX_SCALE as i64) - 1, MAX_SCALE as i64);
    let scale = x.scale() as i64;
    if digits >= scale {
        return x.rescale(digits as u32);
    }
    let drop = (scale - digits) as u32;
    if drop > 38 {
        return Numeric::new(0, digits.max(0) as u32);
    }
    let unit = pow10(drop);
    let kept = cut(x.mantissa(), unit);
    if digits >= 0 {
        Numeric::new(kept, digits as u32)
    } else {
        let back = kept
            .checked_mul(pow10((-digits) as u32))
            .ok_or_else(overflow)?;
        Numeric::new(back, 0)
    }
}

/// `round(x, digits)`: half away from zero.
pub fn round(x: Numeric, digits: i64) -> Result<Numeric, TypeError> {
    to_digits(x, digits, round_div)
}

/// `trunc(x, digits)`: toward zero.
pub fn trunc(x: Numeric, digits: i64) -> Result<Numeric, TypeError> {
    to_digits(x, digits, |m, unit| m / unit)
}

/// `ceil(x)`: the least integer not below `x`, scale 0.
pub fn ceil(x: Numeric) -> Result<Numeric, TypeError> {
    to_digits(x, 0, |m, unit| {
        let q = m / unit;
        if m % unit > 0 { q + 1 } else { q }
    })
}

/// `floor(x)`: the greatest integer not above `x`, scale 0.
pub fn floor(x: Numeric) -> Result<Numeric, TypeError> {
    to_digits(x, 0, |m, unit| {
        let q = m / unit;
        if m % unit < 0 { q - 1 } else { q }
    })
}
