//! jsonb functions that test or rewrite a document by key lists and paths, as PostgreSQL 15
//! defines them: `jsonb_exists_any` / `jsonb_exists_all` (`?|`, `?&`), `jsonb_delete_keys`
//! (`jsonb - text[]`), `jsonb_delete_path` (`#-`), `jsonb_set`, `jsonb_set_lax`,
//! `jsonb_insert`, `jsonb_strip_nulls` and `jsonb_pretty`.
//!
//! Documents are read into jsonpath's owned [`Item`] tree, changed, and written back in
//! jsonb's normalized form (which sorts and de-duplicates keys, so inserted keys land where
//! jsonb keeps them). Paths are `text[]` values, as PostgreSQL's: an array step must be an
//! integer (negative counts from the end; 22P02 otherwise), and a NULL step matches
//! nothing. The path walk follows PostgreSQL's `setPath`: only the last step creates or
//! inserts, a missing or scalar step on the way leaves the document as it was, an index
//! beyond the end appends and one before the start prepends. Recursion follows the path,
//! whose length the array bounds, over a document whose depth jsonb input bounds.

use super::{Param, ScalarFunction, check_args, strict_nulls};
use crate::sqlstate;
use crate::types::json::jsonpath::item::Item;
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("jsonb_exists_any", exists_type, exists_any),
    function!("jsonb_exists_all", exists_type, exists_all),
    function!("jsonb_delete_keys", document_and_array_type, delete_keys),
    function!("jsonb_delete_path", document_and_array_type, delete_path),
    function!("jsonb_set", set_type, set),
    function!(
        "jsonb_set_lax",
        set_lax_type,
        set_lax,
        strict: false,
        volatile: false
    ),
    function!("jsonb_insert", set_type, insert),
    function!("jsonb_strip_nulls", strip_nulls_type, strip_nulls),
    function!("jsonb_pretty", pretty_type, pretty),
];

const TEXT_ARRAY: DataType = DataType::Array(&DataType::Text(None));

fn text_array(t: DataType) -> bool {
    t == TEXT_ARRAY || t == DataType::Null
}

fn exists_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb, Param::Any], &[])?;
    if !text_array(args[1]) {
        return Err(TypeError::undefined_signature(name, args));
    }
    Ok(DataType::Boolean)
}

fn document_and_array_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb, Param::Any], &[])?;
    if !text_array(args[1]) {
        return Err(TypeError::undefined_signature(name, args));
    }
    Ok(DataType::Jsonb)
}

/// `(jsonb, text[], jsonb[, boolean])`.
fn set_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(
        name,
        args,
        &[Param::Jsonb, Param::Any, Param::Jsonb],
        &[Param::Any],
    )?;
    if !text_array(args[1])
        || !matches!(args.get(3), None | Some(DataType::Boolean | DataType::Null))
    {
        return Err(TypeError::undefined_signature(name, args));
    }
    Ok(DataType::Jsonb)
}

/// `(jsonb, text[], jsonb[, boolean[, text]])`.
fn set_lax_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(
        name,
        args,
        &[Param::Jsonb, Param::Any, Param::Jsonb],
        &[Param::Any, Param::Text],
    )?;
    if !text_array(args[1])
        || !matches!(args.get(3), None | Some(DataType::Boolean | DataType::Null))
    {
        return Err(TypeError::undefined_signature(name, args));
    }
    Ok(DataType::Jsonb)
}

fn strip_nulls_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb], &[])?;
    Ok(DataType::Jsonb)
}

fn pretty_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Jsonb], &[])?;
    Ok(DataType::Text(None))
}

fn document(name: &str, args: &[Value], i: usize) -> Result<Item, TypeError> {
    match args.get(i) {
        Some(Value::Jsonb(text)) => Item::from_json_text(text),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

/// A text[] argument's elements (`None` for NULL elements).
fn steps(name: &str, args: &[Value], i: usize) -> Result<Vec<Option<String>>, TypeError> {
    match args.get(i) {
        Some(Value::Array(array)) => Ok(array
            .elements()
            .iter()
            .map(|element| match element {
                Value::Text(s) => Some(s.clone()),
                _ => None,
            })
            .collect()),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

fn jsonb(item: &Item) -> Result<Value, TypeError> {
    item.to_jsonb().map(Value::Jsonb)
}

/// Whether `key` exists in `doc` as `?` tests it: a key of the object, a string element of
/// the array, or the string itself.
fn has_key(doc: &Item, key: &str) -> bool {
    match doc {
        Item::Object(members) => members.iter().any(|(k, _)| k == key),
        Item::Array(elements) => elements
            .iter()
            .any(|e| matches!(e, Item::String(s) if s == key)),
        Item::String(s) => s == key,
        _ => false,
    }
}

fn exists_with(name: &str, args: &[Value], all: bool) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let doc = document(name, args, 0)?;
    // NULL keys are skipped, as PostgreSQL does.
    let keys: Vec<String> = steps(name, args, 1)?.into_iter().flatten().collect();
    let mut tests = keys.iter().map(|key| has_key(&doc, key));
    Ok(Value::Boolean(if all {
        tests.all(|found| found)
    } else {
        tests.any(|found| found)
    }))
}

/// `doc ?| keys`: any of the keys exists.
fn exists_any(args: &[Value]) -> Result<Value, TypeError> {
    exists_with("jsonb_exists_any", args, false)
}

/// `doc ?& keys`: all of the keys exist.
fn exists_all(args: &[Value]) -> Result<Value, TypeError> {
    exists_with("jsonb_exists_all", args, true)
}

/// `doc - keys`: `doc - key` for each key.
fn delete_keys(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_delete_keys";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let mut doc = document(name, args, 0)?;
    let keys: Vec<String> = steps(name, args, 1)?.into_iter().flatten().collect();
    match &mut doc {
        Item::Object(members) => members.retain(|(k, _)| !keys.contains(k)),
        Item::Array(elements) => {
            elements.retain(|e| !matches!(e, Item::String(s) if keys.contains(s)));
        }
        _ => {
            return Err(TypeError::InvalidArgument(
                "cannot delete from scalar".to_owned(),
            ));
        }
    }
    jsonb(&doc)
}

/// What the last step of a path does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// jsonb_set without create_missing: replace an existing value only.
    Replace,
    /// jsonb_set: replace or add.
    Create,
    /// jsonb_insert: add before (or after) an array element, or a new key.
    InsertBefore,
    InsertAfter,
    /// `#-`
    Delete,
}

/// The array index of path step `level` (22P02 when it is not an integer).
fn array_index(step: &str, level: usize) -> Result<i64, TypeError> {
    step.trim()
        .parse::<i32>()
        .map(i64::from)
        .map_err(|_| TypeError::Coded {
            state: sqlstate::INVALID_TEXT_REPRESENTATION,
            message: format!(
                "path element at position {} is not an integer: \"{step}\"",
                level + 1
            ),
        })
}

/// PostgreSQL's `setPath`: applies `op` with `value` at `path[level..]` inside `item`.
fn set_path(
    item: &mut Item,
    path: &[Option<String>],
    level: usize,
    value: &Item,
    op: Op,
) -> Result<(), TypeError> {
    let Some(step) = path.get(level) else {
        return Ok(());
    };
    let last = level + 1 == path.len();
    let creating = matches!(op, Op::Create | Op::InsertBefore | Op::InsertAfter);
    match item {
        Item::Object(members) => {
            let Some(key) = step else {
                return Ok(());
            };
            match members.iter().position(|(k, _)| k == key) {
                Some(at) if last => match op {
                    Op::InsertBefore | Op::InsertAfter => {
                        return Err(TypeError::InvalidArgument(
                            "cannot replace existing key".to_owned(),
                        ));
                    }
                    Op::Delete => {
                        members.remove(at);
                    }
                    Op::Replace | Op::Create => members[at].1 = value.clone(),
                },
                Some(at) => set_path(&mut members[at].1, path, level + 1, value, op)?,
                None if last && creating => members.push((key.clone(), value.clone())),
                None => {}
            }
        }
        Item::Array(elements) => {
            let Some(step) = step else {
                return Ok(());
            };
            let length = elements.len() as i64;
            let mut index = array_index(step, level)?;
            let mut prepend = false;
            if index < 0 {
                if -index > length {
                    prepend = true;
                } else {
                    index += length;
                }
            }
            if index > length {
                index = length;
            }
            if (prepend || length == 0) && last && creating {
                elements.insert(0, value.clone());
                return Ok(());
            }
            if prepend {
                return Ok(());
            }
            if index < length {
                let at = index as usize;
                if !last {
                    return set_path(&mut elements[at], path, level + 1, value, op);
                }
                match op {
                    Op::Replace | Op::Create => elements[at] = value.clone(),
                    Op::InsertBefore => elements.insert(at, value.clone()),
                    Op::InsertAfter => elements.insert(at + 1, value.clone()),
                    Op::Delete => {
                        elements.remove(at);
                    }
                }
            } else if last && creating {
                elements.push(value.clone());
            }
        }
        // A scalar on the way: nothing changes.
        _ => {}
    }
    Ok(())
}

/// The shared body of `jsonb_set`, `jsonb_insert` and `#-`.
fn modify(doc: Item, path: &[Option<String>], value: &Item, op: Op) -> Result<Value, TypeError> {
    let mut doc = doc;
    if !matches!(doc, Item::Object(_) | Item::Array(_)) {
        let verb = if op == Op::Delete { "delete" } else { "set" };
        return Err(TypeError::InvalidArgument(format!(
            "cannot {verb} path in scalar"
        )));
    }
    // PostgreSQL returns an empty document untouched when nothing can be created in it,
    // before reading the path (so `'[]' #- '{x}'` is `[]`, not a bad array index).
    let empty = matches!(&doc, Item::Object(m) if m.is_empty())
        || matches!(&doc, Item::Array(e) if e.is_empty());
    if empty && matches!(op, Op::Delete | Op::Replace) {
        return jsonb(&doc);
    }
    set_path(&mut doc, path, 0, value, op)?;
    jsonb(&doc)
}

/// `doc #- path`: removes the value at `path`.
fn delete_path(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_delete_path";
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let doc = document(name, args, 0)?;
    let path = steps(name, args, 1)?;
    modify(doc, &path, &Item::Null, Op::Delete)
}

fn flag(args: &[Value], i: usize, default: bool) -> bool {
    match args.get(i) {
        Some(Value::Boolean(b)) => *b,
        _ => default,
    }
}

/// `jsonb_set(doc, path, value[, create_missing = true])`.
fn set(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_set";
    if strict_nulls(name, args, 3, 4)? {
        return Ok(Value::Null);
    }
    let doc = document(name, args, 0)?;
    let path = steps(name, args, 1)?;
    let value = document(name, args, 2)?;
    let op = if flag(args, 3, true) {
        Op::Create
    } else {
        Op::Replace
    };
    modify(doc, &path, &value, op)
}

/// `jsonb_set_lax(doc, path, value[, create_missing[, null_value_treatment]])`: as
/// `jsonb_set`, but an SQL NULL value is treated as the last argument says.
fn set_lax(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_set_lax";
    if args.len() < 3 || args.len() > 5 {
        return Err(TypeError::undefined_function(name, args));
    }
    if args[0].is_null() || args[1].is_null() || args.get(3).is_some_and(Value::is_null) {
        return Ok(Value::Null);
    }
    let treatment = match args.get(4) {
        None => "use_json_null",
        Some(Value::Text(t)) => t.as_str(),
        _ => "",
    };
    if !matches!(
        treatment,
        "raise_exception" | "use_json_null" | "delete_key" | "return_target"
    ) {
        return Err(TypeError::InvalidArgument(
            "null_value_treatment must be \"delete_key\", \"return_target\", \"use_json_null\", or \"raise_exception\"".to_owned(),
        ));
    }
    if !args[2].is_null() {
        return set(&args[..args.len().min(4)]);
    }
    match treatment {
        "raise_exception" => Err(TypeError::NullValueNotAllowed(
            "JSON value must not be null",
        )),
        "delete_key" => delete_path(&args[..2]),
        "return_target" => Ok(args[0].clone()),
        _ => {
            let doc = document(name, args, 0)?;
            let path = steps(name, args, 1)?;
            let op = if flag(args, 3, true) {
                Op::Create
            } else {
                Op::Replace
            };
            modify(doc, &path, &Item::Null, op)
        }
    }
}

/// `jsonb_insert(doc, path, value[, insert_after = false])`.
fn insert(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_insert";
    if strict_nulls(name, args, 3, 4)? {
        return Ok(Value::Null);
    }
    let doc = document(name, args, 0)?;
    let path = steps(name, args, 1)?;
    let value = document(name, args, 2)?;
    let op = if flag(args, 3, false) {
        Op::InsertAfter
    } else {
        Op::InsertBefore
    };
    modify(doc, &path, &value, op)
}

fn strip(item: &mut Item) {
    match item {
        Item::Object(members) => {
            members.retain(|(_, v)| *v != Item::Null);
            for (_, value) in members {
                strip(value);
            }
        }
        Item::Array(elements) => elements.iter_mut().for_each(strip),
        _ => {}
    }
}

/// `jsonb_strip_nulls(doc)`: object members whose value is null removed, at every depth
/// (null array elements stay).
fn strip_nulls(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_strip_nulls";
    if strict_nulls(name, args, 1, 1)? {
        return Ok(Value::Null);
    }
    let mut doc = document(name, args, 0)?;
    strip(&mut doc);
    jsonb(&doc)
}

/// Writes `item` (already normalized jsonb text for scalars) with PostgreSQL's
/// `jsonb_pretty` layout: four spaces per level, one member per line, empty containers
/// opened and closed on two lines.
fn write_pretty(item: &Item, indent: usize, out: &mut String) -> Result<(), TypeError> {
    let pad = |level: usize, out: &mut String| out.push_str(&"    ".repeat(level));
    match item {
        Item::Array(elements) => {
            out.push_str("[\n");
            for (i, element) in elements.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                pad(indent + 1, out);
                write_pretty(element, indent + 1, out)?;
            }
            if !elements.is_empty() {
                out.push('\n');
            }
            pad(indent, out);
            out.push(']');
        }
        Item::Object(members) => {
            out.push_str("{\n");
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                pad(indent + 1, out);
                crate::types::json::write::push_string(key, out);
                out.push_str(": ");
                write_pretty(value, indent + 1, out)?;
            }
            if !members.is_empty() {
                out.push('\n');
            }
            pad(indent, out);
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_jsonb()?),
    }
    Ok(())
}

/// `jsonb_pretty(doc)`: the document indented, as text.
fn pretty(args: &[Value]) -> Result<Value, TypeError> {
    let name = "jsonb_pretty";
    if strict_nulls(name, args, 1, 1)? {
        return Ok(Value::Null);
    }
    let doc = document(name, args, 0)?;
    let mut out = String::new();
    write_pretty(&doc, 0, &mut out)?;
    Ok(Value::Text(out))
}
