//! Distance kernels for VECTOR: L2, inner product, cosine and L1 over `f32` slices, and over
//! a stored vector's little-endian bytes — the inner loops of exact search, HNSW and the
//! distance operators (`<->`, `<#>`, `<=>`, `<+>`).
//!
//! On x86-64 with AVX2 and FMA every kernel runs the loops of [`super::simd`] (the one module
//! with `unsafe`), which read a stored vector straight from the page. Elsewhere L2 and inner
//! product (and cosine, from inner products) run on the `simsimd` crate, which picks the
//! widest SIMD unit the CPU has at run time (NEON, SVE, AVX-512 ...) and has portable code
//! for the rest, and L1 on the portable loop below; a stored vector is decoded into the
//! caller's buffer first. Which path runs is fixed for the process, so a distance from page
//! bytes ([`Metric::distance_to_query_le`]) and the same distance from decoded `f32`s are the
//! same bits. Each kernel has a scalar twin in [`scalar`], computed in double precision,
//! which the tests compare both paths against on seeded random vectors of many lengths.
//!
//! Results follow pgvector: double precision; cosine distance is `1 - a·b / (|a| |b|)` clamped
//! to `[0, 2]`, and NaN when either vector is zero.

use super::different_dimensions;
use super::simd::{self, Elements, Sum};
use crate::types::TypeError;

/// A distance between vectors, as the operators and the index operator classes name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// `<->`, `l2_distance`, `vector_l2_ops`.
    L2,
    /// `<#>`: the negative inner product (smaller is nearer), `vector_ip_ops`.
    NegativeInnerProduct,
    /// `<=>`, `cosine_distance`, `vector_cosine_ops`.
    Cosine,
    /// `<+>`, `l1_distance`, `vector_l1_ops`.
    L1,
}

impl Metric {
    /// The operator spelling.
    pub fn operator(self) -> &'static str {
        match self {
            Metric::L2 => "<->",
            Metric::NegativeInnerProduct => "<#>",
            Metric::Cosine => "<=>",
            Metric::L1 => "<+>",
        }
    }

    /// The metric an operator spells.
    pub fn from_operator(op: &str) -> Option<Metric> {
        Some(match op {
            "<->" => Metric::L2,
            "<#>" => Metric::NegativeInnerProduct,
            "<=>" => Metric::Cosine,
            "<+>" => Metric::L1,
            _ => return None,
        })
    }

    /// The distance between `a` and `b`, or pgvector's error for different dimensions.
    pub fn distance(self, a: &[f32], b: &[f32]) -> Result<f64, TypeError> {
        if a.len() != b.len() {
            return Err(different_dimensions(a.len(), b.len()));
        }
        Ok(self.distance_unchecked(a, b))
    }

    /// The distance from `vector` to a `query` of the same length whose squared norm
    /// (`query · query`, [`inner_product`]) the caller computed once, as a search comparing
    /// many vectors with one query does: the same value, bit for bit, as
    /// `distance_unchecked(vector, query)`, with cosine reading `vector` once for `a·b` and
    /// `|a|²` instead of three inner products.
    pub fn distance_to_query(self, vector: &[f32], query: &[f32], query_norm2: f64) -> f64 {
        match self {
            Metric::Cosine => {
                let (ab, aa) = dot_and_norm(vector, query);
                cosine_from_parts(ab, aa, query_norm2)
            }
            metric => metric.distance_unchecked(vector, query),
        }
    }

    /// [`Metric::distance_to_query`] for a vector as stored (`vector_le`: little-endian
    /// `f32`s, as in a table cell or an HNSW node), the same value bit for bit as decoding it
    /// and calling that. `None` when it is not `4 × query.len()` bytes. `scratch` is used only
    /// on CPUs whose kernels need the vector decoded.
    pub fn distance_to_query_le(
        self,
        vector_le: &[u8],
        query: &[f32],
        query_norm2: f64,
        scratch: &mut Vec<f32>,
    ) -> Option<f64> {
        if vector_le.len() != query.len().checked_mul(4)? {
            return None;
        }
        let direct = match self {
            Metric::L2 => {
                simd_sum(Elements::Stored(vector_le), query, Sum::L2Squared).map(f64::sqrt)
            }
            Metric::NegativeInnerProduct => {
                simd_sum(Elements::Stored(vector_le), query, Sum::Dot).map(|dot| -dot)
            }
            Metric::Cosine => simd::sums(Elements::Stored(vector_le), query, Sum::DotAndNorm)
                .map(|(ab, aa)| cosine_from_parts(ab, aa, query_norm2)),
            Metric::L1 => simd_sum(Elements::Stored(vector_le), query, Sum::L1),
        };
        if direct.is_some() {
            return direct;
        }
        scratch.clear();
        super::append_le_bytes(vector_le, scratch);
        Some(self.distance_to_query(scratch, query, query_norm2))
    }

    /// The distance between two vectors of the same length (callers check).
    pub fn distance_unchecked(self, a: &[f32], b: &[f32]) -> f64 {
        match self {
            Metric::L2 => l2_squared(a, b).sqrt(),
            Metric::NegativeInnerProduct => -inner_product(a, b),
            Metric::Cosine => cosine_distance(a, b),
            Metric::L1 => l1_distance(a, b),
        }
    }
}

/// The squared Euclidean distance.
pub fn l2_squared(a: &[f32], b: &[f32]) -> f64 {
    simd_sum(Elements::Floats(a), b, Sum::L2Squared).unwrap_or_else(|| fallback::l2_squared(a, b))
}

/// The inner product.
pub fn inner_product(a: &[f32], b: &[f32]) -> f64 {
    simd_sum(Elements::Floats(a), b, Sum::Dot).unwrap_or_else(|| fallback::inner_product(a, b))
}

/// `a·b` and `|a|²`, the same bits as `inner_product(a, b)` and `inner_product(a, a)`, in one
/// pass over `a` where the CPU allows.
pub fn dot_and_norm(a: &[f32], b: &[f32]) -> (f64, f64) {
    simd::sums(Elements::Floats(a), b, Sum::DotAndNorm)
        .unwrap_or_else(|| (inner_product(a, b), inner_product(a, a)))
}

/// The cosine distance, pgvector's way: `1 - a·b / sqrt(|a|² |b|²)` with the similarity
/// clamped to [-1, 1], and NaN when a vector is zero (0 / 0).
///
/// Three inner products rather than simsimd's own cosine kernel: that one normalizes with an
/// approximate reciprocal square root, which leaves identical vectors about 1e-8 apart
/// instead of 0.
pub fn cosine_distance(a: &[f32], b: &[f32]) -> f64 {
    let (ab, aa) = dot_and_norm(a, b);
    cosine_from_parts(ab, aa, inner_product(b, b))
}

/// The cosine distance from `a·b`, `|a|²` and `|b|²` (so a search can compute its query's
/// norm once).
pub fn cosine_from_parts(ab: f64, aa: f64, bb: f64) -> f64 {
    let similarity = ab / (aa * bb).sqrt();
    if similarity.is_nan() {
        return f64::NAN;
    }
    1.0 - similarity.clamp(-1.0, 1.0)
}

/// The L1 (Manhattan) distance.
pub fn l1_distance(a: &[f32], b: &[f32]) -> f64 {
    simd_sum(Elements::Floats(a), b, Sum::L1).unwrap_or_else(|| fallback::l1_distance(a, b))
}

/// A single-sum [`simd`] loop (`None` where it does not run).
fn simd_sum(a: Elements<'_>, b: &[f32], sum: Sum) -> Option<f64> {
    simd::sums(a, b, sum).map(|(total, _)| total)
}

/// The kernels where [`simd`] does not run (no AVX2 and FMA, or not x86-64).
pub mod fallback {
    use super::scalar;
    use simsimd::SpatialSimilarity;

    /// The squared Euclidean distance, by simsimd.
    pub fn l2_squared(a: &[f32], b: &[f32]) -> f64 {
        <f32 as SpatialSimilarity>::l2sq(a, b).unwrap_or_else(|| scalar::l2_squared(a, b))
    }

    /// The inner product, by simsimd.
    pub fn inner_product(a: &[f32], b: &[f32]) -> f64 {
        <f32 as SpatialSimilarity>::dot(a, b).unwrap_or_else(|| scalar::inner_product(a, b))
    }

    /// The L1 distance (simsimd has no kernel for it): eight independent sums, which the
    /// compiler keeps in SIMD registers, then summed in double precision.
    pub fn l1_distance(a: &[f32], b: &[f32]) -> f64 {
        let mut lanes = [0.0f32; 8];
        let chunks_a = a.chunks_exact(8);
        let chunks_b = b.chunks_exact(8);
        let (tail_a, tail_b) = (chunks_a.remainder(), chunks_b.remainder());
        for (x, y) in chunks_a.zip(chunks_b) {
            for lane in 0..8 {
                lanes[lane] += (x[lane] - y[lane]).abs();
            }
        }
        let tail: f64 = tail_a
            .iter()
            .zip(tail_b)
            .map(|(x, y)| f64::from((x - y).abs()))
            .sum();
        lanes.iter().map(|lane| f64::from(*lane)).sum::<f64>() + tail
    }
}

/// The reference kernels: plain loops in double precision, for the tests to check the
/// accelerated ones against (and used when lengths differ, which callers rule out).
pub mod scalar {
    /// The squared Euclidean distance.
    pub fn l2_squared(a: &[f32], b: &[f32]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| {
                let d = f64::from(*x) - f64::from(*y);
                d * d
            })
            .sum()
    }

    /// The inner product.
    pub fn inner_product(a: &[f32], b: &[f32]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| f64::from(*x) * f64::from(*y))
            .sum()
    }

    /// The cosine distance (NaN when a vector is zero).
    #[cfg(test)]
    pub fn cosine_distance(a: &[f32], b: &[f32]) -> f64 {
        super::cosine_from_parts(
            inner_product(a, b),
            inner_product(a, a),
            inner_product(b, b),
        )
    }

    /// The L1 distance.
    #[cfg(test)]
    pub fn l1_distance(a: &[f32], b: &[f32]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| (f64::from(*x) - f64::from(*y)).abs())
            .sum()
    }
}
