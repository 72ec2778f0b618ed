use super::*;

fn n(text: &str) -> Numeric {
    parse(text).unwrap()
}

#[test]
fn text_round_trips_with_scale() {
    for (input, shown) in [
        ("12.50", "12.50"),
        ("-0.050", "-0.050"),
        (" +1.5e2 ", "150"),
        ("1.5e-3", "0.0015"),
        (".5", "0.5"),
        ("5.", "5"),
        ("0", "0"),
        ("-0.00", "0.00"),
        ("12345678901234567890.12", "12345678901234567890.12"),
        (
            "99999999999999999999999999999999999999",
            "99999999999999999999999999999999999999",
        ),
    ] {
        assert_eq!(n(input).to_string(), shown, "{input}");
    }
    for bad in ["", "abc", "1.2.3", "1e", "--1", "1 2"] {
        assert_eq!(parse(bad).map_err(|e| e.code()), Err("22P02"), "{bad}");
    }
    assert_eq!(
        parse("999999999999999999999999999999999999999").map_err(|e| e.code()),
        Err("22003")
    );
    assert_eq!(parse("NaN").map_err(|e| e.code()), Err("0A000"));
}

#[test]
fn arithmetic_is_exact() {
    assert_eq!(add(n("0.1"), n("0.2")).unwrap().to_string(), "0.3");
    assert_eq!(subtract(n("1"), n("0.25")).unwrap().to_string(), "0.75");
    assert_eq!(multiply(n("1.5"), n("2.50")).unwrap().to_string(), "3.750");
    assert_eq!(
        divide(n("1"), n("3")).unwrap().to_string(),
        "0.33333333333333333333"
    );
    assert_eq!(
        divide(n("2"), n("3")).unwrap().to_string(),
        "0.66666666666666666667"
    );
    assert_eq!(
        divide(n("10"), n("4")).unwrap().to_string(),
        "2.5000000000000000"
    );
    assert_eq!(
        divide(n("4.0"), n("2")).unwrap().to_string(),
        "2.0000000000000000"
    );
    assert_eq!(
        divide(n("12345678901234567890.12"), n("7"))
            .unwrap()
            .to_string(),
        "1763668414462081127.16"
    );
    assert_eq!(divide(n("1"), n("0")).map_err(|e| e.code()), Err("22012"));
    assert_eq!(remainder(n("-7.5"), n("2")).unwrap().to_string(), "-1.5");
    assert_eq!(div_integer(n("-7.5"), n("2")).unwrap().to_string(), "-3");
    let big = n("99999999999999999999999999999999999999");
    assert_eq!(add(big, n("1")).map_err(|e| e.code()), Err("22003"));
    assert_eq!(multiply(big, n("10")).map_err(|e| e.code()), Err("22003"));
    assert_eq!(
        multiply(n("0.00000000000000000001"), n("0.0000000000000000005"))
            .unwrap()
            .to_string(),
        format!("0.{}1", "0".repeat(37))
    );
}

#[test]
fn rounding_is_half_away_from_zero() {
    assert_eq!(round(n("2.5"), 0).unwrap().to_string(), "3");
    assert_eq!(round(n("-2.5"), 0).unwrap().to_string(), "-3");
    assert_eq!(round(n("1234.5678"), 2).unwrap().to_string(), "1234.57");
    assert_eq!(round(n("1234.5678"), -2).unwrap().to_string(), "1200");
    assert_eq!(round(n("1.5"), 3).unwrap().to_string(), "1.500");
    assert_eq!(trunc(n("-1.99"), 1).unwrap().to_string(), "-1.9");
    assert_eq!(ceil(n("-1.5")).unwrap().to_string(), "-1");
    assert_eq!(floor(n("-1.5")).unwrap().to_string(), "-2");
    assert_eq!(n("12.5").apply_typmod(10, 2).unwrap().to_string(), "12.50");
    assert_eq!(n("0.005").apply_typmod(3, 2).unwrap().to_string(), "0.01");
    assert_eq!(
        n("1000").apply_typmod(5, 2).map_err(|e| e.code()),
        Err("22003")
    );
    assert_eq!(
        n("999.995").apply_typmod(5, 2).map_err(|e| e.code()),
        Err("22003")
    );
}

#[test]
fn order_and_keys_agree() {
    let values = [
        "-99999999999999999999999999999999999999",
        "-1.5",
        "-1.25",
        "-0.00000000000000000000000000000000000001",
        "0",
        "0.00000000000000000000000000000000000001",
        "1",
        "1.000001",
        "2",
        "12345678901234567890.12",
        "99999999999999999999999999999999999999",
    ];
    for pair in values.windows(2) {
        let (a, b) = (n(pair[0]), n(pair[1]));
        assert!(a < b, "{a} < {b}");
        assert!(a.key_bytes() < b.key_bytes(), "key {a} < {b}");
    }
    assert_eq!(n("1.0"), n("1.00"));
    assert_eq!(n("1.0").key_bytes(), n("1").key_bytes());
    assert_eq!(n("1.10").normalized().to_string(), "1.1");
}

#[test]
fn conversions() {
    assert_eq!(n("2.5").to_i64(), Ok(3));
    assert_eq!(n("-2.5").to_i64(), Ok(-3));
    assert_eq!(n("1e19").to_i64().map_err(|e| e.code()), Err("22003"));
    assert_eq!(n("0.1").to_f64(), 0.1);
    assert_eq!(Numeric::from_f64(0.1).unwrap().to_string(), "0.1");
    assert_eq!(
        Numeric::from_f64(1.0 / 3.0).unwrap().to_string(),
        "0.333333333333333"
    );
    assert_eq!(
        Numeric::from_f64(1e20).unwrap().to_string(),
        "100000000000000000000"
    );
}

proptest::proptest! {
    #[test]
    fn text_never_panics(s in ".{0,20}") {
        let _ = parse(&s);
    }

    #[test]
    fn operations_never_panic(a in proptest::prelude::any::<i128>(), sa in 0u32..40,
                              b in proptest::prelude::any::<i128>(), sb in 0u32..40) {
        if let (Ok(x), Ok(y)) = (Numeric::new(a % LIMIT, sa), Numeric::new(b % LIMIT, sb)) {
            let _ = (add(x, y), subtract(x, y), multiply(x, y), divide(x, y), remainder(x, y));
            let _ = (round(x, i64::from(sb) - 20), ceil(x), floor(x), x.to_f64(), x.key_bytes());
            proptest::prop_assert_eq!(x.cmp(&y), x.key_bytes().cmp(&y.key_bytes()));
        }
    }
}

#[test]
fn values_stay_32_bytes() {
    assert_eq!(std::mem::size_of::<crate::types::Value>(), 32);
    assert_eq!(std::mem::align_of::<Numeric>(), 8);
}
