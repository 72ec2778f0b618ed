//! Deterministic benchmark data: a small seeded generator and the value shapes the workloads
//! insert (words, e-mail addresses, permutations, filler text, clustered vectors).
//!
//! Every driver must see byte-for-byte the same data, so nothing here depends on the driver,
//! the clock or the platform: the generator is SplitMix64 (one 64-bit state, a fixed output
//! function), streams are derived from the run's seed and a label naming their purpose, and
//! text is produced into caller-owned buffers so generating a row inside a timed loop costs
//! the same few nanoseconds for every driver and allocates nothing once the buffer has grown.

use std::fmt::Write as _;

/// SplitMix64: tiny, fast, statistically good enough for benchmark data, and fully specified
/// (so results stay comparable across Rust and crate versions, unlike `StdRng`).
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for the stream `label` of the run seeded with `seed`.
    pub fn new(seed: u64, label: &str) -> Rng {
        Rng {
            state: mix(seed ^ fnv1a(label.as_bytes())),
        }
    }

    /// A generator for item `index` of stream `label`: used where a row's content must be a
    /// function of its id alone (rows shared between two tables, rows deleted and restored).
    pub fn for_item(seed: u64, label: &str, index: u64) -> Rng {
        Rng {
            state: mix(seed ^ fnv1a(label.as_bytes()) ^ mix(index.wrapping_add(1))),
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A value in `0..n` (`n > 0`), by Lemire's multiply-shift; the bias is below 2^-32 for
    /// the ranges used here.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n.max(1))) >> 64) as u64
    }

    /// A value in `low..=high`.
    pub fn range(&mut self, low: i64, high: i64) -> i64 {
        let span = high.wrapping_sub(low).wrapping_add(1) as u64;
        low.wrapping_add(self.below(span) as i64)
    }

    /// A float in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// An approximately standard normal value: the sum of twelve uniforms, less six (mean 0,
    /// variance 1, tails cut at ±6). It needs only integer additions and one exact scaling,
    /// so unlike Box–Muller, whose `ln` and `cos` come from the platform's maths library, it
    /// is bit-identical on every platform. Each uniform is a 16-bit quarter of a 64-bit draw,
    /// taken at the middle of its step so the mean is exactly 0.
    pub fn normal(&mut self) -> f64 {
        let mut sum = 0u64;
        for _ in 0..3 {
            let bits = self.next_u64();
            sum += (bits & 0xFFFF) + (bits >> 16 & 0xFFFF) + (bits >> 32 & 0xFFFF) + (bits >> 48);
        }
        // Twelve uniforms (k + 0.5) / 2^16; every step is exact in f64.
        (sum as f64 + 6.0) / 65_536.0 - 6.0
    }

    /// A score with two decimals in `[0, 100)`: values that print and round-trip exactly in
    /// every engine, so reading them back compares bit for bit.
    pub fn score(&mut self) -> f64 {
        self.below(10_000) as f64 / 100.0
    }

    /// Replaces `out` with a lowercase word of `min..=max` letters.
    pub fn word(&mut self, out: &mut String, min: usize, max: usize) {
        out.clear();
        self.push_word(out, min, max);
    }

    /// Appends a lowercase word of `min..=max` letters to `out`.
    pub fn push_word(&mut self, out: &mut String, min: usize, max: usize) {
        let length = min + self.below((max - min + 1) as u64) as usize;
        for _ in 0..length {
            out.push(char::from(b'a' + self.below(26) as u8));
        }
    }

    /// Replaces `out` with `words` words separated by spaces (a sentence of text).
    pub fn sentence(&mut self, out: &mut String, words: usize) {
        out.clear();
        for index in 0..words {
            if index > 0 {
                out.push(' ');
            }
            self.push_word(out, 2, 9);
        }
    }

    /// Replaces `out` with `length` random bytes.
    pub fn bytes(&mut self, out: &mut Vec<u8>, length: usize) {
        out.clear();
        out.extend((0..length).map(|_| self.next_u64() as u8));
    }

    /// A random permutation of `0..n` (Fisher–Yates).
    pub fn permutation(&mut self, n: usize) -> Vec<u32> {
        let mut values: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            let j = self.below(i as u64 + 1) as usize;
            values.swap(i, j);
        }
        values
    }
}

/// Clustered vectors: a mixture of Gaussians in `dims` dimensions, so that nearest neighbours
/// mean something (a query's neighbours are the members of its cluster, at distances that
/// differ) and an approximate index has a recall to measure.
///
/// Every centre coordinate is standard normal; each cluster has its own spread σ, uniform in
/// `[0.3, 0.7)`. A vector picks its cluster uniformly and adds σ × N(0, 1) to each coordinate
/// of the centre (so its cosine similarity to the centre is about 1/√(1 + σ²), 0.82–0.96,
/// while two centres are nearly orthogonal). Row `id` and query `index` are each a function of
/// the seed, the label and their number alone (separate streams), so the table never has to
/// be held in memory: a row is generated again wherever it is needed, bit for bit.
#[derive(Clone, Debug)]
pub struct GaussianMixture {
    seed: u64,
    dims: usize,
    /// `clusters × dims` centre coordinates, row-major.
    centres: Vec<f64>,
    spreads: Vec<f64>,
    row_label: String,
    query_label: String,
}

impl GaussianMixture {
    /// The mixture of stream `label` of the run seeded with `seed`.
    pub fn new(seed: u64, label: &str, clusters: usize, dims: usize) -> GaussianMixture {
        let clusters = clusters.max(1);
        let mut rng = Rng::new(seed, &format!("{label}.centres"));
        let centres = (0..clusters * dims).map(|_| rng.normal()).collect();
        let spreads = (0..clusters).map(|_| 0.3 + 0.4 * rng.unit()).collect();
        GaussianMixture {
            seed,
            dims,
            centres,
            spreads,
            row_label: format!("{label}.row"),
            query_label: format!("{label}.query"),
        }
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Replaces `out` with the vector of row `id`.
    pub fn row(&self, id: u64, out: &mut Vec<f32>) {
        self.draw(Rng::for_item(self.seed, &self.row_label, id), out);
    }

    /// Replaces `out` with query vector `index`: drawn like a row (near a cluster) from a
    /// stream of its own, so it is not one of the rows.
    pub fn query(&self, index: u64, out: &mut Vec<f32>) {
        self.draw(Rng::for_item(self.seed, &self.query_label, index), out);
    }

    fn draw(&self, mut rng: Rng, out: &mut Vec<f32>) {
        let cluster = rng.below(self.spreads.len() as u64) as usize;
        let spread = self.spreads[cluster];
        let centre = &self.centres[cluster * self.dims..(cluster + 1) * self.dims];
        out.clear();
        out.extend(centre.iter().map(|c| (c + spread * rng.normal()) as f32));
    }
}

/// The SplitMix64 / Murmur3 finaliser: a bijective 64-bit mix.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a over bytes: turns stream labels into seeds.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3)
    })
}

/// Replaces `out` with the e-mail address of user `id` (unique per id).
pub fn email(out: &mut String, id: i64) {
    out.clear();
    // Writing to a String cannot fail.
    let _ = write!(out, "user{id}@example.com");
}

/// A block of random lowercase letters long enough that `filler_slice` can cut `length`
/// bytes at many offsets: large text values without one allocation per row.
pub fn filler_block(seed: u64, length: usize) -> String {
    let mut rng = Rng::new(seed, "filler");
    let mut block = String::with_capacity(length + FILLER_OFFSETS);
    for _ in 0..length + FILLER_OFFSETS {
        block.push(char::from(b'a' + rng.below(26) as u8));
    }
    block
}

/// How many distinct starting offsets `filler_slice` uses.
const FILLER_OFFSETS: usize = 4096;

/// `length` bytes of `block` starting at an offset that depends on `id`, so neighbouring rows
/// differ.
pub fn filler_slice(block: &str, id: i64, length: usize) -> &str {
    let offset = (id.unsigned_abs() as usize).wrapping_mul(37) % FILLER_OFFSETS;
    block.get(offset..offset + length).unwrap_or(block)
}

/// `n × scale`, rounded, at least 1: workload sizes under `--quick` and `--scale`.
pub fn scaled(n: usize, scale: f64) -> usize {
    ((n as f64 * scale).round() as usize).max(1)
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

    #[test]
    fn streams_are_deterministic_and_distinct() {
        let mut a = Rng::new(42, "x");
        let mut b = Rng::new(42, "x");
        let mut c = Rng::new(42, "y");
        let first: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        assert_eq!(first, (0..4).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert_ne!(first, (0..4).map(|_| c.next_u64()).collect::<Vec<_>>());
        // Pinned: a change to the generator silently changes every workload's data, which
        // must bump the workload versions.
        assert_eq!(Rng::new(1, "pin").next_u64(), 0x9808_a3cf_4245_35be);
    }

    #[test]
    fn permutation_is_a_permutation() {
        let mut rng = Rng::new(7, "perm");
        let mut values = rng.permutation(1000);
        values.sort_unstable();
        assert_eq!(values, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn ranges_stay_in_bounds() {
        let mut rng = Rng::new(3, "range");
        for _ in 0..10_000 {
            let value = rng.range(-5, 5);
            assert!((-5..=5).contains(&value));
            assert!(rng.below(7) < 7);
            let unit = rng.unit();
            assert!((0.0..1.0).contains(&unit));
        }
    }

    #[test]
    fn normal_values_have_mean_zero_and_variance_one() {
        let mut rng = Rng::new(5, "normal");
        let n = 200_000;
        let values: Vec<f64> = (0..n).map(|_| rng.normal()).collect();
        let mean = values.iter().sum::<f64>() / n as f64;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((variance - 1.0).abs() < 0.01, "variance {variance}");
        assert!(values.iter().all(|v| v.abs() <= 6.0));
        // Pinned, like the generator itself: a change changes every vector workload's data.
        assert_eq!(Rng::new(1, "pin").normal().to_bits(), 0x3fc7_3200_0000_0000);
    }

    #[test]
    fn mixture_rows_are_functions_of_their_id_and_cluster() {
        let mixture = GaussianMixture::new(9, "m", 8, 384);
        let again = GaussianMixture::new(9, "m", 8, 384);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        mixture.row(17, &mut a);
        again.row(17, &mut b);
        assert_eq!(a.len(), 384);
        assert_eq!(a, b, "same seed, same row");
        mixture.query(17, &mut b);
        assert_ne!(a, b, "queries come from their own stream");
        // A row is close to its own centre by cosine and far from every other.
        let cosine = |x: &[f32], y: &[f64]| {
            let dot: f64 = x.iter().zip(y).map(|(a, b)| f64::from(*a) * b).sum();
            let nx: f64 = x.iter().map(|a| f64::from(*a).powi(2)).sum();
            let ny: f64 = y.iter().map(|b| b * b).sum();
            dot / (nx * ny).sqrt()
        };
        for id in 0..50 {
            let mut rng = Rng::for_item(9, "m.row", id);
            let cluster = rng.below(8) as usize;
            mixture.row(id, &mut a);
            let own = cosine(&a, &mixture.centres[cluster * 384..(cluster + 1) * 384]);
            assert!(own > 0.75, "row {id}: cosine {own} to its centre");
            for other in (0..8).filter(|c| *c != cluster) {
                let far = cosine(&a, &mixture.centres[other * 384..(other + 1) * 384]);
                assert!(far < own - 0.5, "row {id}: cluster {other} at {far}");
            }
        }
    }

    #[test]
    fn filler_slices_have_the_requested_length() {
        let block = filler_block(1, 100);
        for id in 0..50 {
            assert_eq!(filler_slice(&block, id, 100).len(), 100);
        }
    }
}
