//! Tests of the vector text form, order, key encoding and kernels.

use super::kernels::{self, Metric, scalar};
use super::*;

fn text(values: &[f32]) -> String {
    let mut out = String::new();
    format(values, &mut out);
    out
}

#[test]
fn text_round_trips_in_pgvectors_form() {
    assert_eq!(parse("[1,2,3]").unwrap(), vec![1.0, 2.0, 3.0]);
    assert_eq!(parse("\t[\n1,\x0b2\x0c\r]\n").unwrap(), vec![1.0, 2.0]);
    assert_eq!(parse("[1,\u{a0}2]").unwrap_err().code(), "22P02");
    assert_eq!(
        parse("[+1,.5,5.,-.5e1,1E2]").unwrap(),
        vec![1.0, 0.5, 5.0, -5.0, 100.0]
    );
    assert_eq!(
        parse(" [ 1 , 2.5 ,-3e-2 ] ").unwrap(),
        vec![1.0, 2.5, -0.03]
    );
    assert_eq!(text(&[1.0, 2.0, 3.0]), "[1,2,3]");
    assert_eq!(text(&[0.1, -0.0, 1.5]), "[0.1,-0,1.5]");
    assert_eq!(
        text(&[100000.0, 1000000.0, 0.0001, 0.00001]),
        "[100000,1e+06,0.0001,1e-05]"
    );
    assert_eq!(
        text(&[1e20, 3.4e38, 123456789.0, 1e-7, 999999.0]),
        "[1e+20,3.4e+38,1.2345679e+08,1e-07,999999]"
    );
    // Every element reads back as the same f32.
    for value in [
        0.1f32,
        1.0 / 3.0,
        16_777_217.0,
        f32::MIN_POSITIVE,
        7.0e-45,
        123456.79,
    ] {
        let printed = text(&[value]);
        assert_eq!(parse(&printed).unwrap(), vec![value], "{printed}");
    }
}

#[test]
fn bad_text_is_refused_with_pgvectors_codes() {
    for bad in [
        "", "1,2,3", "[1,2", "[1,,2]", "[1 2]", "[a]", "[1,2]x", "[0x]", "[1e]", "[.]",
    ] {
        assert_eq!(parse(bad).unwrap_err().code(), "22P02", "{bad:?}");
    }
    assert_eq!(parse("[]").unwrap_err().code(), "22000");
    assert_eq!(parse("[nan]").unwrap_err().code(), "22000");
    assert_eq!(parse("[inf]").unwrap_err().code(), "22000");
    let overflow = parse("[1e39]").unwrap_err();
    assert_eq!(overflow.code(), "22003");
    assert_eq!(
        overflow.to_string(),
        "\"1e39\" is out of range for type vector"
    );
    // strtof's forms: hexadecimal floats, and underflow to zero.
    assert_eq!(parse("[0x10,-0x1.8p1]").unwrap(), vec![16.0, -3.0]);
    assert_eq!(parse("[1e-46]").unwrap(), vec![0.0]);
    let too_long = format!("[{}]", vec!["1"; 16_001].join(","));
    assert_eq!(parse(&too_long).unwrap_err().code(), "54000");
    let longest = format!("[{}]", vec!["1"; 16_000].join(","));
    assert_eq!(parse(&longest).unwrap().len(), 16_000);
}

#[test]
fn dimensions_are_checked_with_both_numbers_named() {
    assert!(check_dimensions(Some(3), 3).is_ok());
    assert!(check_dimensions(None, 7).is_ok());
    let error = check_dimensions(Some(3), 2).unwrap_err();
    assert_eq!(error.code(), "22000");
    assert_eq!(error.to_string(), "expected 3 dimensions, not 2");
    assert_eq!(check_declared_dimensions(0).unwrap_err().code(), "22023");
    assert_eq!(
        check_declared_dimensions(16_001).unwrap_err().code(),
        "22023"
    );
    assert_eq!(check_declared_dimensions(16_000).unwrap(), 16_000);
    let error = Metric::L2.distance(&[1.0], &[1.0, 2.0]).unwrap_err();
    assert_eq!(error.to_string(), "different vector dimensions 1 and 2");
}

/// A small deterministic generator (xorshift) for the kernel and order tests.
fn random_vectors(seed: u64, count: usize, len: usize) -> Vec<Vec<f32>> {
    let mut state = seed.max(1);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((state >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
    };
    (0..count)
        .map(|_| (0..len).map(|_| next()).collect())
        .collect()
}

#[test]
fn key_bytes_sort_as_compare_does() {
    let mut vectors = random_vectors(7, 60, 3);
    vectors.extend(random_vectors(8, 20, 2));
    vectors.push(vec![0.0, 1.0]);
    vectors.push(vec![-0.0, 1.0]);
    vectors.push(vec![-0.0, 1.0, 0.0]);
    vectors.push(vec![f32::MIN_POSITIVE, -f32::MIN_POSITIVE]);
    for a in &vectors {
        for b in &vectors {
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            key_bytes(a, &mut ka);
            key_bytes(b, &mut kb);
            assert_eq!(ka.cmp(&kb), compare(a, b), "{a:?} vs {b:?}");
        }
    }
    assert_eq!(compare(&[1.0, 2.0], &[1.0, 2.0, 0.0]), Ordering::Less);
    assert_eq!(compare(&[0.0], &[-0.0]), Ordering::Equal);
}

#[test]
fn stored_bytes_round_trip() {
    for vector in random_vectors(3, 5, 17) {
        let mut bytes = Vec::new();
        to_le_bytes(&vector, &mut bytes);
        let mut back = Vec::new();
        assert!(decode_le_bytes(&bytes, &mut back));
        assert_eq!(back, vector);
    }
    let mut back = Vec::new();
    assert!(!decode_le_bytes(&[1, 2, 3], &mut back));
}

/// The accelerated kernels agree with the double-precision scalar ones on every length from
/// 1 to 70 (covering every SIMD tail) and on a 1536-element vector.
#[test]
fn kernels_match_the_scalar_reference() {
    let close = |fast: f64, exact: f64, what: &str| {
        let tolerance = 1e-5 * exact.abs().max(1.0);
        assert!(
            (fast - exact).abs() <= tolerance,
            "{what}: {fast} vs {exact}"
        );
    };
    let lengths: Vec<usize> = (1..=70).chain([384, 1536]).collect();
    for (i, len) in lengths.into_iter().enumerate() {
        let pair = random_vectors(100 + i as u64, 2, len);
        let (a, b) = (&pair[0], &pair[1]);
        close(kernels::l2_squared(a, b), scalar::l2_squared(a, b), "l2sq");
        close(
            kernels::inner_product(a, b),
            scalar::inner_product(a, b),
            "dot",
        );
        close(
            kernels::cosine_distance(a, b),
            scalar::cosine_distance(a, b),
            "cos",
        );
        close(kernels::l1_distance(a, b), scalar::l1_distance(a, b), "l1");
    }
}

/// The portable kernels (what CPUs without AVX2 and FMA run) agree with the scalar
/// reference too, on this machine whichever path the kernels above took.
#[test]
fn fallback_kernels_match_the_scalar_reference() {
    for len in (1..=70).chain([384]) {
        let pair = random_vectors(300 + len as u64, 2, len);
        let (a, b) = (&pair[0], &pair[1]);
        for (fast, exact, what) in [
            (
                kernels::fallback::l2_squared(a, b),
                scalar::l2_squared(a, b),
                "l2sq",
            ),
            (
                kernels::fallback::inner_product(a, b),
                scalar::inner_product(a, b),
                "dot",
            ),
            (
                kernels::fallback::l1_distance(a, b),
                scalar::l1_distance(a, b),
                "l1",
            ),
        ] {
            assert!(
                (fast - exact).abs() <= 1e-5 * exact.abs().max(1.0),
                "{what} at {len}: {fast} vs {exact}"
            );
        }
    }
}

/// A distance from a stored vector's bytes, at any byte offset (a page heap aligns nothing),
/// is the same value bit for bit as from its decoded `f32`s, which is the same as the
/// two-vector distance either way round: the exact search (from pages) and the ORDER BY
/// above it (from a batch) must rank rows identically. Lengths cover every SIMD tail.
#[test]
fn stored_vectors_give_the_same_distance_bit_for_bit() {
    let same = |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
    let metrics = [
        Metric::L2,
        Metric::NegativeInnerProduct,
        Metric::Cosine,
        Metric::L1,
    ];
    let mut scratch = Vec::new();
    for len in (1..=70).chain([383, 384, 1536]) {
        let mut pair = random_vectors(500 + len as u64, 2, len);
        if len == 5 {
            // A zero vector: cosine is NaN both ways.
            pair[0] = vec![0.0; len];
        }
        let (vector, query) = (&pair[0], &pair[1]);
        let query_norm2 = kernels::inner_product(query, query);
        let mut bytes = Vec::new();
        to_le_bytes(vector, &mut bytes);
        for offset in 0..4 {
            let mut stored = vec![0xA5u8; offset];
            stored.extend_from_slice(&bytes);
            for metric in metrics {
                let from_bytes = metric
                    .distance_to_query_le(&stored[offset..], query, query_norm2, &mut scratch)
                    .unwrap();
                let decoded = metric.distance_to_query(vector, query, query_norm2);
                assert!(
                    same(from_bytes, decoded),
                    "{metric:?} at {len}, offset {offset}: {from_bytes} vs {decoded}"
                );
                for two in [
                    metric.distance_unchecked(vector, query),
                    metric.distance_unchecked(query, vector),
                ] {
                    assert!(
                        same(two, decoded),
                        "{metric:?} at {len}: {two} vs {decoded}"
                    );
                }
            }
        }
        // A stored vector of another length is refused, not read past.
        assert_eq!(
            Metric::L2.distance_to_query_le(&bytes[4..], query, query_norm2, &mut scratch),
            None
        );
    }
}

#[test]
fn distances_are_pgvectors() {
    let (a, b) = ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]);
    assert_eq!(Metric::L2.distance(&a, &b).unwrap(), 27f64.sqrt());
    assert_eq!(
        Metric::NegativeInnerProduct.distance(&a, &b).unwrap(),
        -32.0
    );
    assert_eq!(Metric::L1.distance(&a, &b).unwrap(), 9.0);
    let cosine = Metric::Cosine.distance(&a, &b).unwrap();
    // pgvector itself computes in f32 (it prints 0.025368153802923787 here).
    assert!((cosine - (1.0 - 32.0 / (14f64 * 77.0).sqrt())).abs() < 1e-9);
    // Identical and opposite vectors are exactly 0 and 2 apart, as in pgvector.
    assert_eq!(Metric::Cosine.distance(&a, &a).unwrap(), 0.0);
    assert_eq!(
        Metric::Cosine.distance(&[1.0, 1.0], &[1.0, 1.0]).unwrap(),
        0.0
    );
    assert_eq!(
        Metric::Cosine.distance(&a, &[-1.0, -2.0, -3.0]).unwrap(),
        2.0
    );
    // Zero vectors have no direction.
    assert!(
        Metric::Cosine
            .distance(&[0.0, 0.0], &[1.0, 2.0])
            .unwrap()
            .is_nan()
    );
    assert!(
        Metric::Cosine
            .distance(&[0.0, 0.0], &[0.0, 0.0])
            .unwrap()
            .is_nan()
    );
    // Parallel and orthogonal vectors are not mistaken for zero ones.
    assert_eq!(
        Metric::Cosine.distance(&[1.0, 0.0], &[0.0, 1.0]).unwrap(),
        1.0
    );
    assert!(
        Metric::Cosine
            .distance(&[2.0, 2.0], &[1.0, 1.0])
            .unwrap()
            .abs()
            < 1e-7
    );
}

#[test]
fn functions_follow_pgvector() {
    assert_eq!(norm(&[3.0, 4.0]), 5.0);
    assert_eq!(l2_normalize(&[3.0, 4.0]), vec![0.6, 0.8]);
    assert_eq!(l2_normalize(&[0.0, 0.0]), vec![0.0, 0.0]);
    let v = [1.0, 2.0, 3.0, 4.0, 5.0];
    assert_eq!(subvector(&v, 2, 3).unwrap(), vec![2.0, 3.0, 4.0]);
    assert_eq!(subvector(&v, 0, 3).unwrap(), vec![1.0, 2.0]);
    assert_eq!(subvector(&v, 4, 10).unwrap(), vec![4.0, 5.0]);
    assert_eq!(subvector(&v, 6, 1).unwrap_err().code(), "22000");
    assert_eq!(subvector(&v, 1, 0).unwrap_err().code(), "22000");
    assert_eq!(
        elementwise(&[1.0, 2.0], &[3.0, 4.0], |x, y| x + y, false).unwrap(),
        vec![4.0, 6.0]
    );
    let overflow = elementwise(&[3e38], &[3e38], |x, y| x + y, false).unwrap_err();
    assert_eq!(overflow.to_string(), "value out of range: overflow");
    let underflow = elementwise(&[1e-30], &[1e-30], |x, y| x * y, true).unwrap_err();
    assert_eq!(underflow.to_string(), "value out of range: underflow");
    assert_eq!(underflow.code(), "22003");
}
