//! The one module with `unsafe` code: AVX2 + FMA distance loops for x86-64, used by
//! [`super::kernels`] when the CPU has both (checked at run time).
//!
//! Why it exists: a stored vector is a run of little-endian `f32` bytes in a page, at any
//! byte offset. simsimd's safe API takes `&[f32]`, so every stored vector had to be copied
//! into an aligned buffer first, and that copy (the first read of the page's bytes) was as
//! long as the arithmetic. These loops load straight from the page with unaligned loads, and
//! compute cosine's `a·b` and `|a|²` in one pass over `a`.
//!
//! What it guarantees:
//! * [`sums`] gives the same bits for the same elements whether `a` arrives as `&[f32]` or as
//!   its little-endian bytes ([`Elements`]): both are the same loop over the same pointer, so
//!   the exact search (from page bytes) and the expression evaluator (from a batch's `f32`s)
//!   rank rows identically;
//! * `a·b` from [`Sum::DotAndNorm`] equals [`Sum::Dot`]`(a, b)` and its `|a|²` equals
//!   [`Sum::Dot`]`(a, a)`, bit for bit (one generic loop, the same accumulators and order),
//!   and every sum is symmetric in `a` and `b`;
//! * [`sums`] checks the lengths before any load, so no load reads past either operand.
//!
//! Sums run in eight-lane `f32` accumulators, four of them (32 elements a step), reduced to
//! `f64` in a fixed order; the last `n mod 8` elements are added in `f64`. The results differ
//! from the double-precision scalar reference in `kernels::scalar` by float rounding only,
//! which the tests bound.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{
    __m256, _MM_HINT_T0, _mm_prefetch, _mm256_add_ps, _mm256_andnot_ps, _mm256_fmadd_ps,
    _mm256_loadu_ps, _mm256_set1_ps, _mm256_setzero_ps, _mm256_storeu_ps, _mm256_sub_ps,
};

/// Whether this CPU runs the loops here (AVX2 and FMA). The standard library caches the
/// answer, so this is an atomic load per call.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Asks the CPU to bring `bytes` into its caches ahead of their use, one prefetch per
/// 64-byte line, without waiting for them (a hint: it never faults and changes no result).
/// Scans call it for the page they will read next, which the hardware prefetcher cannot
/// guess: consecutive pages of a table lie anywhere in memory.
pub fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for at in (0..bytes.len()).step_by(64) {
        // SAFETY: `at < bytes.len()`, so the address lies inside `bytes`; a prefetch reads
        // nothing into the program and cannot fault. SSE (which has it) is part of x86-64.
        #[allow(unsafe_code, reason = "a cache prefetch; see the function doc")]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().add(at).cast::<i8>());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

/// What a loop sums over the elements `x` of `a` and `y` of `b` (a const parameter of
/// [`summing_loop`], so each is its own loop with no branch inside).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sum {
    /// `x·y`, and `x·x` beside it.
    DotAndNorm,
    /// `x·y` alone.
    Dot,
    /// `(x - y)²`.
    L2Squared,
    /// `|x - y|`.
    L1,
}

const DOT_AND_NORM: u8 = 0;
const DOT: u8 = 1;
const L2_SQUARED: u8 = 2;
const L1: u8 = 3;

/// [`summing_loop`] for `sum`.
///
/// # Safety
/// As [`summing_loop`].
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code, reason = "AVX2 intrinsics; see the module doc")]
unsafe fn sums_of(a: *const u8, b: *const f32, n: usize, sum: Sum) -> (f64, f64) {
    // SAFETY: the caller's guarantees are `summing_loop`'s.
    unsafe {
        match sum {
            Sum::DotAndNorm => summing_loop::<DOT_AND_NORM>(a, b, n),
            Sum::Dot => summing_loop::<DOT>(a, b, n),
            Sum::L2Squared => summing_loop::<L2_SQUARED>(a, b, n),
            Sum::L1 => summing_loop::<L1>(a, b, n),
        }
    }
}

/// The first operand of a loop: `f32`s, or their little-endian bytes as stored (in a table
/// cell or an HNSW node, at any byte address).
#[derive(Clone, Copy, Debug)]
pub enum Elements<'a> {
    Floats(&'a [f32]),
    Stored(&'a [u8]),
}

/// The loop `sum` over `a` and `b`: (the sum, and for [`Sum::DotAndNorm`] `|a|²`, else 0).
/// `None` when `a` does not hold `b.len()` elements or the CPU lacks AVX2 and FMA.
pub fn sums(a: Elements<'_>, b: &[f32], sum: Sum) -> Option<(f64, f64)> {
    // `f32`s go through the same byte-pointer loop as stored bytes (x86-64 is
    // little-endian): that is what makes the two give the same bits.
    let (pointer, bytes) = match a {
        Elements::Floats(floats) => (floats.as_ptr().cast::<u8>(), size_of_val(floats)),
        Elements::Stored(stored) => (stored.as_ptr(), stored.len()),
    };
    if bytes != b.len().checked_mul(4)? || !available() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the CPU has AVX2 and FMA (`available`), and `pointer` is valid for exactly
        // `4 * b.len()` bytes, so every load of `b.len()` elements from either operand stays
        // inside its slice. The loads are unaligned, so `a` may start at any byte.
        #[allow(unsafe_code, reason = "AVX2 loads; see the module doc")]
        let sums = unsafe { sums_of(pointer, b.as_ptr(), b.len(), sum) };
        Some(sums)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (pointer, sum);
        None
    }
}

/// The loop: `n` elements of `a` (little-endian `f32`s from any byte address) against `n`
/// of `b`.
///
/// # Safety
/// The CPU must have AVX2 and FMA; `a` must be valid for `4 * n` bytes and `b` for `n`
/// `f32`s.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code, reason = "AVX2 intrinsics; see the module doc")]
#[target_feature(enable = "avx2,fma")]
unsafe fn summing_loop<const SUM: u8>(a: *const u8, b: *const f32, n: usize) -> (f64, f64) {
    let zero = _mm256_setzero_ps();
    // Clearing the sign bit is |x|.
    let sign = _mm256_set1_ps(-0.0);
    let mut first = [zero; 4];
    let mut second = [zero; 4];
    let step = |x: __m256, y: __m256, first: &mut __m256, second: &mut __m256| match SUM {
        DOT_AND_NORM => {
            *first = _mm256_fmadd_ps(x, y, *first);
            *second = _mm256_fmadd_ps(x, x, *second);
        }
        DOT => *first = _mm256_fmadd_ps(x, y, *first),
        L2_SQUARED => {
            let d = _mm256_sub_ps(x, y);
            *first = _mm256_fmadd_ps(d, d, *first);
        }
        _ => *first = _mm256_add_ps(*first, _mm256_andnot_ps(sign, _mm256_sub_ps(x, y))),
    };
    let mut i = 0;
    while i + 32 <= n {
        for lane in 0..4 {
            let at = i + lane * 8;
            // SAFETY: `at + 8 <= n`, so both loads lie within the operands (see above).
            let (x, y) = unsafe {
                (
                    _mm256_loadu_ps(a.add(at * 4).cast::<f32>()),
                    _mm256_loadu_ps(b.add(at)),
                )
            };
            step(x, y, &mut first[lane], &mut second[lane]);
        }
        i += 32;
    }
    while i + 8 <= n {
        // SAFETY: `i + 8 <= n`.
        let (x, y) = unsafe {
            (
                _mm256_loadu_ps(a.add(i * 4).cast::<f32>()),
                _mm256_loadu_ps(b.add(i)),
            )
        };
        step(x, y, &mut first[0], &mut second[0]);
        i += 8;
    }
    let mut totals = (reduce(first), reduce(second));
    while i < n {
        // SAFETY: `i < n`: four bytes of `a` and one element of `b` lie within the operands.
        let (x, y) = unsafe {
            (
                f64::from(f32::from_le_bytes(
                    a.add(i * 4).cast::<[u8; 4]>().read_unaligned(),
                )),
                f64::from(b.add(i).read_unaligned()),
            )
        };
        match SUM {
            DOT_AND_NORM => {
                totals.0 += x * y;
                totals.1 += x * x;
            }
            DOT => totals.0 += x * y,
            L2_SQUARED => totals.0 += (x - y) * (x - y),
            _ => totals.0 += (x - y).abs(),
        }
        i += 1;
    }
    totals
}

/// The four accumulators' lanes summed, in a fixed order, in `f64`.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code, reason = "AVX2 intrinsics; see the module doc")]
#[target_feature(enable = "avx2,fma")]
fn reduce(accumulators: [__m256; 4]) -> f64 {
    let pair = |x: __m256, y: __m256| _mm256_add_ps(x, y);
    let all = pair(
        pair(accumulators[0], accumulators[1]),
        pair(accumulators[2], accumulators[3]),
    );
    let mut lanes = [0.0f32; 8];
    // SAFETY: `lanes` is 8 `f32`s, the width of one unaligned store.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), all) };
    lanes.iter().map(|lane| f64::from(*lane)).sum()
}
