//! Where PostgreSQL's binary jsonb would put each object of a document: the `id` that
//! `.keyvalue()` reports.
//!
//! PostgreSQL numbers the objects `.keyvalue()` turns into key/value pairs by their byte
//! offset inside the binary jsonb of the document (`jsonpath_exec.c`, `executeKeyValueMethod`).
//! Basalt keeps jsonb as text, so this module recomputes that layout from PostgreSQL's
//! format (`jsonb.h`, `convertJsonbValue`): a container is a 4-byte header and a 4-byte
//! entry per element (two per object member: keys, then values), followed by the keys'
//! bytes and then the values' data; strings are their UTF-8 bytes, booleans and nulls take
//! no data, numerics (a `numeric` varlena) and nested containers are aligned to 4 bytes.
//! A `numeric` takes a 4-byte length word, a 2-byte header (4 bytes when its display scale
//! exceeds 63 or its base-10000 weight leaves -64..=63) and 2 bytes per base-10000 digit,
//! leading and trailing zero digits dropped. Offsets count from the top-level container,
//! which is 0, as in PostgreSQL. Recursion follows the document, whose depth jsonb input
//! bounds.

use std::collections::HashMap;

use super::item::Item;

/// The offset of every container in `root` (by address), the top-level one at 0.
pub fn offsets(root: &Item) -> HashMap<*const Item, i64> {
    let mut offsets = HashMap::new();
    // The top-level container follows the datum's 4-byte length word, which keeps the
    // alignment of offsets counted from it the same as of absolute ones.
    container(root, 0, &mut offsets);
    offsets
}

fn align(at: usize) -> usize {
    at.div_ceil(4) * 4
}

/// Records `item`'s offset and those of the containers inside it; returns its size.
fn container(item: &Item, start: usize, offsets: &mut HashMap<*const Item, i64>) -> usize {
    offsets.insert(std::ptr::from_ref(item), start as i64);
    let end = match item {
        Item::Array(elements) => {
            let mut at = start + 4 + 4 * elements.len();
            for element in elements {
                at = place(element, at, offsets);
            }
            at
        }
        Item::Object(members) => {
            let mut at = start + 4 + 8 * members.len();
            for (key, _) in members {
                at += key.len();
            }
            for (_, value) in members {
                at = place(value, at, offsets);
            }
            at
        }
        _ => start,
    };
    end - start
}

/// Places one value's data at `at`; returns where the next one starts.
fn place(item: &Item, at: usize, offsets: &mut HashMap<*const Item, i64>) -> usize {
    match item {
        Item::Null | Item::Bool(_) | Item::DateTime(_) => at,
        Item::String(s) => at + s.len(),
        Item::Number(n) => align(at) + numeric_size(n),
        Item::Array(_) | Item::Object(_) => {
            let at = align(at);
            at + container(item, at, offsets)
        }
    }
}

/// The size of PostgreSQL's `numeric` varlena for `numeric` text (`-12.50`).
fn numeric_size(text: &str) -> usize {
    let unsigned = text.trim_start_matches('-');
    let (integer, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let display_scale = fraction.len();
    // Base-10000 digits aligned at the point: the integer part padded on the left, the
    // fraction on the right, to whole groups of four.
    let integer_groups = integer.len().div_ceil(4);
    let padded: Vec<u8> = std::iter::repeat_n(b'0', integer_groups * 4 - integer.len())
        .chain(integer.bytes())
        .chain(fraction.bytes())
        .chain(std::iter::repeat_n(
            b'0',
            fraction.len().div_ceil(4) * 4 - fraction.len(),
        ))
        .collect();
    let groups: Vec<bool> = padded
        .chunks(4)
        .map(|group| group.iter().any(|digit| *digit != b'0'))
        .collect();
    let (digits, weight) = match (
        groups.iter().position(|nonzero| *nonzero),
        groups.iter().rposition(|nonzero| *nonzero),
    ) {
        (Some(first), Some(last)) => (last - first + 1, integer_groups as i64 - 1 - first as i64),
        _ => (0, 0),
    };
    let short = display_scale <= 63 && (-64..=63).contains(&weight);
    4 + if short { 2 } else { 4 } + 2 * digits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids PostgreSQL 15 gives (`$.** ? (@.type() == "object").keyvalue()`).
    #[test]
    fn offsets_match_postgresql() {
        for (doc, expected) in [
            (
                r#"[{"a": 1}, "xyz", 1.5, {"b": 123456789.12345}, [true, {"c": null}], 0, {"d": -0.001}]"#,
                vec![32, 72, 116, 140],
            ),
            (
                r#"{"aa": "xyzxy", "b": [1e20, {"k": 2}], "c": {"e": {"f": 1}}}"#,
                vec![52, 76, 92],
            ),
            (
                r#"[1e70, {"a": 1}, 1e-70, {"a": 1}, 1.5, {"a": 1}, "é", {"a": 1}, 10000, {"a": 1}, 0.0001, {"a": 1}]"#,
                vec![60, 96, 132, 160, 192, 224],
            ),
            (r#"[{"a": 1}, {"b": 2}]"#, vec![12, 36]),
        ] {
            let root = Item::from_json_text(doc).unwrap();
            let offsets = offsets(&root);
            let mut found: Vec<i64> = offsets.values().copied().filter(|o| *o != 0).collect();
            found.sort_unstable();
            // Only objects are reported by the query above; drop the arrays' offsets.
            let mut objects = Vec::new();
            collect_objects(&root, &offsets, &mut objects);
            objects.retain(|o| *o != 0);
            objects.sort_unstable();
            assert_eq!(objects, expected, "{doc}");
        }
    }

    fn collect_objects(item: &Item, offsets: &HashMap<*const Item, i64>, out: &mut Vec<i64>) {
        match item {
            Item::Object(members) => {
                out.push(offsets[&std::ptr::from_ref(item)]);
                for (_, value) in members {
                    collect_objects(value, offsets, out);
                }
            }
            Item::Array(elements) => {
                for element in elements {
                    collect_objects(element, offsets, out);
                }
            }
            _ => {}
        }
    }
}
