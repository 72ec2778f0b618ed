//! Unit tests of array values: the text form both ways, the stored cell and the key, and
//! that the key's byte order is `compare`'s order.

use std::cmp::Ordering;

use super::cell::{from_cell_bytes, key_bytes, to_cell_bytes};
use super::text::{format, parse};
use super::*;
use crate::types::{Interval, Numeric};

fn text(array: &Array) -> String {
    let mut out = String::new();
    format(array, &mut out);
    out
}

fn ints(input: &str) -> Array {
    parse(input, DataType::Integer).unwrap()
}

#[test]
fn text_form_round_trips_as_postgresql_writes_it() {
    let cases = [
        ("{1,2,3}", "{1,2,3}"),
        ("{ 1 , NULL ,3 }", "{1,NULL,3}"),
        ("{}", "{}"),
        ("  {}  ", "{}"),
        ("{{1,2},{3,4}}", "{{1,2},{3,4}}"),
        ("[0:1]={5,6}", "[0:1]={5,6}"),
        ("[1:2]={5,6}", "{5,6}"),
    ];
    for (input, expected) in cases {
        assert_eq!(text(&ints(input)), expected, "{input}");
    }
    let texts = parse(
        r#"{"a b",NULL,"NULL",c,"",x\"y,"\\"}"#,
        DataType::Text(None),
    )
    .unwrap();
    assert_eq!(text(&texts), r#"{"a b",NULL,"NULL",c,"","x\"y","\\"}"#);
    assert_eq!(texts.elements()[1], Value::Null);
    assert_eq!(texts.elements()[2], Value::Text("NULL".into()));
}

#[test]
fn malformed_literals_are_22p02() {
    for input in [
        "",
        "1,2",
        "{1,2",
        "{1,2}x",
        "{{1,2},{3}}",
        "{{1},2}",
        "{1,{2}}",
        "{,}",
        "{1,}",
        "[1:3]={1,2}",
        "[2:1]={}",
        "{\"a}",
        "{a\"b\"}",
    ] {
        let error = parse(input, DataType::Integer).unwrap_err();
        assert_eq!(error.code(), "22P02", "{input}");
    }
    // Seven dimensions is past PostgreSQL's limit.
    let error = parse("{{{{{{{1}}}}}}}", DataType::Integer).unwrap_err();
    assert_eq!(error.code(), "54000");
    // An element of the wrong form is the element type's error.
    assert_eq!(parse("{a}", DataType::Integer).unwrap_err().code(), "22P02");
}

fn sample_arrays() -> Vec<Array> {
    let mut arrays = vec![
        Array::empty(DataType::Integer),
        ints("{1}"),
        ints("{1,2}"),
        ints("{1,NULL}"),
        ints("{NULL}"),
        ints("{-5,7,9}"),
        ints("{{1,2},{3,4}}"),
        ints("{1,2,3,4}"),
        ints("[0:1]={1,2}"),
        ints("{2}"),
    ];
    arrays.push(
        Array::from_elements(
            DataType::Integer,
            vec![Value::Integer(i64::MIN), Value::Integer(i64::MAX)],
        )
        .unwrap(),
    );
    arrays
}

#[test]
fn keys_order_as_compare_does() {
    let arrays = sample_arrays();
    for a in &arrays {
        for b in &arrays {
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            key_bytes(a, &mut ka);
            key_bytes(b, &mut kb);
            assert_eq!(ka.cmp(&kb), compare(a, b), "{} vs {}", text(a), text(b));
        }
    }
    // PostgreSQL's order: NULL above values, a prefix first, then the shape.
    assert_eq!(
        compare(&ints("{1,NULL}"), &ints("{1,5}")),
        Ordering::Greater
    );
    assert_eq!(compare(&ints("{1,2}"), &ints("{1,2,0}")), Ordering::Less);
    assert_eq!(compare(&ints("{2}"), &ints("{1,9}")), Ordering::Greater);
    assert_eq!(
        compare(&ints("{1,2,3,4}"), &ints("{{1,2},{3,4}}")),
        Ordering::Less
    );
    assert_eq!(
        compare(&ints("{1,2}"), &ints("[0:1]={1,2}")),
        Ordering::Greater
    );
}

#[test]
fn cells_round_trip_for_every_element_type() {
    let numeric = Numeric::from_i64(125);
    let samples = vec![
        Array::from_elements(DataType::Boolean, vec![Value::Boolean(true), Value::Null]),
        Array::from_elements(
            DataType::Real,
            vec![Value::Real(-0.5), Value::Real(f64::NAN)],
        ),
        Array::from_elements(DataType::Numeric(None), vec![Value::Numeric(numeric)]),
        Array::from_elements(DataType::Text(None), vec![Value::Text("héllo".into())]),
        Array::from_elements(DataType::Blob, vec![Value::Blob(vec![0, 255])]),
        Array::from_elements(DataType::Date, vec![Value::Date(-3)]),
        Array::from_elements(DataType::Timestamp, vec![Value::Timestamp(1)]),
        Array::from_elements(DataType::TimestampTz, vec![Value::TimestampTz(-1)]),
        Array::from_elements(
            DataType::Interval,
            vec![Value::Interval(Interval::new(1, 2, 3))],
        ),
        Array::from_elements(DataType::Uuid, vec![Value::Uuid([7; 16])]),
        Array::from_elements(DataType::Json, vec![Value::Json("[1, 2]".into())]),
        Array::from_elements(DataType::Jsonb, vec![Value::Jsonb("{\"a\": 1}".into())]),
        Ok(ints("[-3:-2][4:5]={{1,2},{NULL,4}}")),
        Ok(Array::empty(DataType::Uuid)),
    ];
    for array in samples {
        let array = array.unwrap();
        let mut bytes = Vec::new();
        to_cell_bytes(&array, &mut bytes);
        let back = from_cell_bytes(&bytes).unwrap();
        assert_eq!(back.dimensions(), array.dimensions());
        assert_eq!(back.element_type(), array.element_type());
        assert_eq!(text(&back), text(&array));
        // Every truncation is damage, reported rather than a panic.
        for cut in 0..bytes.len() {
            assert!(from_cell_bytes(&bytes[..cut]).is_none(), "cut at {cut}");
        }
    }
    assert!(from_cell_bytes(&[0x02, 7]).is_none());
    assert!(
        from_cell_bytes(&[0x0C, 0]).is_none(),
        "arrays of vectors are not stored"
    );
}

#[test]
fn value_stays_32_bytes() {
    assert_eq!(std::mem::size_of::<Value>(), 32);
}

/// The example docs/file-format.md gives, byte for byte.
#[test]
fn the_documented_cell_example() {
    let mut bytes = Vec::new();
    to_cell_bytes(&ints("[0:1]={7,NULL}"), &mut bytes);
    let expected: Vec<u8> = [
        &[0x02, 0x01][..],
        &0i32.to_le_bytes(),
        &2u32.to_le_bytes(),
        &[0x01],
        &7i64.to_le_bytes(),
        &[0x00],
    ]
    .concat();
    assert_eq!(bytes, expected);
}
