//! A minimal unsigned 256-bit integer for the intermediate results of NUMERIC arithmetic.
//!
//! NUMERIC values are 128-bit mantissas below 10^38 (see [`super`]); a product of two of
//! them, or a dividend scaled up for a quotient of 16 and more significant digits, needs up
//! to 256 bits before it is rounded back. This module supplies exactly the operations those
//! paths need — widening multiplication, multiplication by a small factor, division by a
//! 128-bit divisor — with overflow reported as `None`, never a panic or a silent wrap.

/// An unsigned 256-bit integer: four 64-bit limbs, least significant first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct U256(pub(crate) [u64; 4]);

impl U256 {
    /// The value of a `u128`.
    pub(crate) fn from_u128(v: u128) -> U256 {
        U256([v as u64, (v >> 64) as u64, 0, 0])
    }

    /// The value as a `u128`, `None` when it does not fit.
    pub(crate) fn to_u128(self) -> Option<u128> {
        if self.0[2] != 0 || self.0[3] != 0 {
            return None;
        }
        Some(u128::from(self.0[0]) | (u128::from(self.0[1]) << 64))
    }

    /// The full product of two `u128`s.
    pub(crate) fn product(a: u128, b: u128) -> U256 {
        let a = [a as u64, (a >> 64) as u64];
        let b = [b as u64, (b >> 64) as u64];
        let mut limbs = [0u64; 4];
        for (i, &x) in a.iter().enumerate() {
            let mut carry = 0u128;
            for (j, &y) in b.iter().enumerate() {
                let slot = &mut limbs[i + j];
                let t = u128::from(x) * u128::from(y) + u128::from(*slot) + carry;
                *slot = t as u64;
                carry = t >> 64;
            }
            let mut k = i + 2;
            while carry != 0 && k < 4 {
                let t = u128::from(limbs[k]) + carry;
                limbs[k] = t as u64;
                carry = t >> 64;
                k += 1;
            }
        }
        U256(limbs)
    }

    /// `self × factor`, `None` on overflow of 256 bits.
    pub(crate) fn mul_small(self, factor: u64) -> Option<U256> {
        let mut limbs = [0u64; 4];
        let mut carry = 0u128;
        for (slot, &limb) in limbs.iter_mut().zip(self.0.iter()) {
            let t = u128::from(limb) * u128::from(factor) + carry;
            *slot = t as u64;
            carry = t >> 64;
        }
        (carry == 0).then_some(U256(limbs))
    }

    /// `self × 10^exponent`, `None` on overflow of 256 bits.
    pub(crate) fn mul_pow10(self, mut exponent: u32) -> Option<U256> {
        let mut value = self;
        while exponent > 0 {
            let step = exponent.min(19);
            value = value.mul_small(10u64.pow(step))?;
            exponent -= step;
        }
        Some(value)
    }

    fn bit(self, i: u32) -> bool {
        (self.0[(i / 64) as usize] >> (i % 64)) & 1 == 1
    }

    fn bits(self) -> u32 {
        for i in (0..4).rev() {
            if self.0[i] != 0 {
                return i as u32 * 64 + (64 - self.0[i].leading_zeros());
            }
        }
        0
    }

    /// `(self / divisor, self % divisor)` for a divisor below 2^127, `None` for a zero or
    /// larger divisor. Binary long division: at most 256 steps.
    pub(crate) fn div_rem(self, divisor: u128) -> Option<(U256, u128)> {
        if divisor == 0 || divisor >> 127 != 0 {
            return None;
        }
        if let Some(small) = self.to_u128() {
            return Some((U256::from_u128(small / divisor), small % divisor));
        }
        let mut quotient = [0u64; 4];
        let mut remainder: u128 = 0;
        for i in (0..self.bits()).rev() {
            // remainder < divisor < 2^127, so the shift cannot overflow.
            remainder = (remainder << 1) | u128::from(self.bit(i));
            if remainder >= divisor {
                remainder -= divisor;
                quotient[(i / 64) as usize] |= 1 << (i % 64);
            }
        }
        Some((U256(quotient), remainder))
    }

    /// The two's-complement negation (wrapping), for signed 256-bit key encoding.
    pub(crate) fn wrapping_neg(self) -> U256 {
        let mut limbs = [0u64; 4];
        let mut carry = 1u128;
        for (slot, &limb) in limbs.iter_mut().zip(self.0.iter()) {
            let t = u128::from(!limb) + carry;
            *slot = t as u64;
            carry = t >> 64;
        }
        U256(limbs)
    }

    /// Big-endian bytes.
    pub(crate) fn to_be_bytes(self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, limb) in self.0.iter().rev().enumerate() {
            out[i * 8..i * 8 + 8].copy_from_slice(&limb.to_be_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_and_quotients_agree() {
        let cases = [
            (0u128, 5u128),
            (u128::MAX >> 1, 3),
            (10u128.pow(37), 10u128.pow(37)),
        ];
        for (a, b) in cases {
            let p = U256::product(a, b);
            if b != 0 && b >> 127 == 0 {
                let (q, r) = p.div_rem(b).unwrap();
                assert_eq!(q.to_u128(), Some(a));
                assert_eq!(r, 0);
            }
        }
        let (q, r) = U256::from_u128(100)
            .mul_pow10(40)
            .unwrap()
            .div_rem(7)
            .unwrap();
        // 10^42 / 7 = 142857142857142857142857142857142857142857 rest 1.
        assert_eq!(r, 1);
        assert_eq!(q.to_u128(), None);
        assert!(U256::from_u128(1).mul_pow10(78).is_none());
    }
}
