//! Functions and operators on arrays, as registry entries (`types::functions`): the
//! constructor `ARRAY[...]`, subscripts and slices, `op ANY / ALL (array)`, `@>`, `<@`, `&&`,
//! `||`, and PostgreSQL's `array_*` functions, with PostgreSQL's NULL rules.
//!
//! The binder resolves the element type of a polymorphic call (`array_append(int[], 1)`) and
//! casts the arguments to it, so these functions see an array and elements of one type; they
//! still check, and report a type mismatch as 42883 rather than panic. The registry's table is `types::functions::array`; the internal entries
//! (`$array`, `$subscript`, `$slice`, `$quantified`) are what the binder turns syntax into;
//! their names cannot be written unquoted in SQL.

use std::cmp::Ordering;
use std::sync::Arc;

use super::{Array, Dimension};
use crate::types::{DataType, TypeError, Value};

/// The names of the functions whose arguments mix arrays and elements of one element type,
/// which the binder unifies (`array_append(int[], 1.5)` is `numeric[]`): per argument, whether
/// it is an array (`true`) or an element (`false`); further arguments are integers.
pub fn polymorphic_signature(name: &str) -> Option<&'static [bool]> {
    Some(match name {
        "array_append" | "array_remove" | "array_position" | "array_positions" => &[true, false],
        "array_prepend" => &[false, true],
        "array_cat" | "arraycontains" | "arraycontained" | "arrayoverlap" => &[true, true],
        "array_replace" => &[true, false, false],
        _ => return None,
    })
}

pub(crate) fn array_arg<'a>(
    name: &str,
    args: &'a [Value],
    i: usize,
) -> Result<&'a Arc<Array>, TypeError> {
    match args.get(i) {
        Some(Value::Array(array)) => Ok(array),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

pub(crate) fn int_arg(name: &str, args: &[Value], i: usize) -> Result<i64, TypeError> {
    match args.get(i) {
        Some(Value::Integer(n)) => Ok(*n),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

pub(crate) fn is_array_or_null(t: DataType) -> bool {
    t.is_array() || t == DataType::Null
}

pub(crate) fn constructor_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    match args.first() {
        Some(t @ DataType::Array(_)) => Ok(*t),
        _ => Err(TypeError::undefined_signature(name, args)),
    }
}

pub(crate) fn subscript_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    match args.first() {
        Some(DataType::Array(element)) => Ok(**element),
        _ => Err(TypeError::undefined_signature(name, args)),
    }
}

pub(crate) fn first_array_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    match args.first() {
        Some(t @ DataType::Array(_)) => Ok(*t),
        _ => Err(TypeError::undefined_signature(name, args)),
    }
}

pub(crate) fn second_array_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    match args.get(1) {
        Some(t @ DataType::Array(_)) => Ok(*t),
        _ => Err(TypeError::undefined_signature(name, args)),
    }
}

pub(crate) fn boolean_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_first_array(name, args)?;
    Ok(DataType::Boolean)
}

pub(crate) fn check_first_array(name: &str, args: &[DataType]) -> Result<(), TypeError> {
    let first = if name == "$quantified" { 1 } else { 0 };
    match args.get(first) {
        Some(t) if is_array_or_null(*t) => Ok(()),
        _ => Err(TypeError::undefined_signature(name, args)),
    }
}

pub(crate) fn integer_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_first_array(name, args)?;
    let integers = match name {
        "array_length" | "array_lower" | "array_upper" => 1..2,
        "array_position" => 2..3,
        _ => 1..1,
    };
    let expected = match name {
        "array_length" | "array_lower" | "array_upper" | "array_positions" => 2..=2,
        "array_position" => 2..=3,
        _ => 1..=1,
    };
    if !expected.contains(&args.len())
        || args
            .get(integers)
            .unwrap_or(&[])
            .iter()
            .any(|t| !matches!(t, DataType::Integer | DataType::Null))
    {
        return Err(TypeError::undefined_signature(name, args));
    }
    Ok(DataType::Integer)
}

pub(crate) fn integers_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    integer_type(name, args)?;
    Ok(DataType::Array(&DataType::Integer))
}

pub(crate) fn text_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_first_array(name, args)?;
    let expected = if name == "array_dims" { 1..=1 } else { 2..=3 };
    if !expected.contains(&args.len())
        || args[1..]
            .iter()
            .any(|t| !matches!(t, DataType::Text(_) | DataType::Null))
    {
        return Err(TypeError::undefined_signature(name, args));
    }
    Ok(DataType::Text(None))
}

pub(crate) fn texts_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    if !(2..=3).contains(&args.len())
        || args
            .iter()
            .any(|t| !matches!(t, DataType::Text(_) | DataType::Null))
    {
        return Err(TypeError::undefined_signature(name, args));
    }
    Ok(DataType::Array(&DataType::Text(None)))
}

/// `$array(template, e1, e2, ...)`: the template (an empty array) names the element type;
/// elements that are themselves arrays make a multidimensional array, as `ARRAY[ARRAY[1,2],
/// ARRAY[3,4]]` does.
pub(crate) fn constructor(args: &[Value]) -> Result<Value, TypeError> {
    let template = array_arg("array", args, 0)?;
    let element = template.element_type();
    let items = &args[1..];
    let nested = items.iter().any(|v| matches!(v, Value::Array(_)));
    if !nested {
        return Ok(Array::from_elements(element, items.to_vec())?.into_value());
    }
    // Sub-arrays: all of one shape (PostgreSQL skips neither NULLs nor empty ones).
    let mismatch = || {
        TypeError::ArraySubscript(
            "multidimensional arrays must have array expressions with matching dimensions".into(),
        )
    };
    let mut shape: Option<&[Dimension]> = None;
    let mut elements = Vec::new();
    for item in items {
        let Value::Array(sub) = item else {
            return Err(mismatch());
        };
        match shape {
            None => shape = Some(sub.dimensions()),
            Some(dims) if dims == sub.dimensions() => {}
            Some(_) => return Err(mismatch()),
        }
        elements.extend(sub.elements().iter().cloned());
    }
    let sub_dims = shape.unwrap_or(&[]);
    if sub_dims.is_empty() {
        return Ok(Array::empty(element).into_value());
    }
    let mut dimensions = vec![Dimension {
        lower: 1,
        length: u32::try_from(items.len()).map_err(|_| super::too_large())?,
    }];
    dimensions.extend_from_slice(sub_dims);
    Ok(Array::new(element, dimensions, elements)?.into_value())
}

/// The offset in storage order of the element at `subscripts`, `None` when out of range.
pub(crate) fn offset(array: &Array, subscripts: &[i64]) -> Option<usize> {
    if subscripts.len() != array.ndims() {
        return None;
    }
    let mut offset = 0usize;
    for (dimension, &subscript) in array.dimensions().iter().zip(subscripts) {
        let index = subscript.checked_sub(i64::from(dimension.lower))?;
        if index < 0 || index >= i64::from(dimension.length) {
            return None;
        }
        offset = offset * dimension.length as usize + index as usize;
    }
    Some(offset)
}

/// `a[i]`, `a[i][j]`: the element, NULL out of range or with the wrong number of subscripts.
pub(crate) fn subscript(args: &[Value]) -> Result<Value, TypeError> {
    let array = array_arg("subscript", args, 0)?;
    let subscripts = args[1..]
        .iter()
        .map(|v| match v {
            Value::Integer(n) => Ok(*n),
            _ => Err(TypeError::undefined_function("subscript", args)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(offset(array, &subscripts)
        .and_then(|o| array.elements().get(o).cloned())
        .unwrap_or(Value::Null))
}

/// `a[lo:hi]` (one pair of bounds per dimension; `i64::MIN` / `i64::MAX` stand for an omitted
/// bound): the elements within the bounds, clamped to the array, as a new array with lower
/// bounds 1; the empty array when nothing is left.
pub(crate) fn slice(args: &[Value]) -> Result<Value, TypeError> {
    let array = array_arg("slice", args, 0)?;
    let bounds = args[1..]
        .iter()
        .map(|v| match v {
            Value::Integer(n) => Ok(*n),
            _ => Err(TypeError::undefined_function("slice", args)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let element = array.element_type();
    if array.ndims() == 0 || bounds.len() / 2 > array.ndims() || bounds.len() % 2 != 0 {
        return Ok(Array::empty(element).into_value());
    }
    // Per dimension, the kept range of zero-based indexes; dimensions without bounds are
    // kept whole.
    let mut ranges = Vec::with_capacity(array.ndims());
    for (d, dimension) in array.dimensions().iter().enumerate() {
        let lower = i64::from(dimension.lower);
        let upper = lower + i64::from(dimension.length) - 1;
        let (lo, hi) = match (bounds.get(2 * d), bounds.get(2 * d + 1)) {
            (Some(&lo), Some(&hi)) => (lo.max(lower), hi.min(upper)),
            _ => (lower, upper),
        };
        if lo > hi {
            return Ok(Array::empty(element).into_value());
        }
        ranges.push(((lo - lower) as usize, (hi - lower) as usize));
    }
    let lengths: Vec<usize> = array
        .dimensions()
        .iter()
        .map(|d| d.length as usize)
        .collect();
    let mut elements = Vec::new();
    let mut index = vec![0usize; ranges.len()];
    for (i, range) in ranges.iter().enumerate() {
        index[i] = range.0;
    }
    'outer: loop {
        let mut offset = 0;
        for (i, length) in lengths.iter().enumerate() {
            offset = offset * length + index[i];
        }
        elements.push(array.elements().get(offset).cloned().unwrap_or(Value::Null));
        // Advance the last dimension first (row-major order).
        for d in (0..ranges.len()).rev() {
            if index[d] < ranges[d].1 {
                index[d] += 1;
                continue 'outer;
            }
            index[d] = ranges[d].0;
        }
        break;
    }
    let dimensions = ranges
        .iter()
        .map(|&(lo, hi)| Dimension {
            lower: 1,
            length: (hi - lo + 1) as u32,
        })
        .collect();
    Ok(Array::new(element, dimensions, elements)?.into_value())
}

/// `value op ANY (array)` (`all` false; `op` is 0 to 5 for `=`, `<>`, `<`, `<=`, `>`, `>=`) or `op ALL (array)`: PostgreSQL's rules — NULL for
/// a NULL array; ANY is true if one comparison is true, else NULL if one was NULL, else
/// false (false for the empty array); ALL is false if one is false, else NULL if one was
/// NULL, else true (true for the empty array).
pub(crate) fn quantified(args: &[Value]) -> Result<Value, TypeError> {
    let (Some(value), Some(array), Some(Value::Integer(op)), Some(Value::Boolean(all))) =
        (args.first(), args.get(1), args.get(2), args.get(3))
    else {
        return Err(TypeError::undefined_function("any", args));
    };
    let array = match array {
        Value::Null => return Ok(Value::Null),
        Value::Array(array) => array,
        _ => return Err(TypeError::undefined_function("any", args)),
    };
    let mut saw_null = false;
    for element in array.elements() {
        let result = match crate::types::compare(value, element)? {
            None => {
                saw_null = true;
                continue;
            }
            Some(ordering) => match op {
                0 => ordering == Ordering::Equal,
                1 => ordering != Ordering::Equal,
                2 => ordering == Ordering::Less,
                3 => ordering != Ordering::Greater,
                4 => ordering == Ordering::Greater,
                _ => ordering != Ordering::Less,
            },
        };
        if result != *all {
            return Ok(Value::Boolean(result));
        }
    }
    Ok(if saw_null {
        Value::Null
    } else {
        Value::Boolean(*all)
    })
}

pub(crate) fn dimension(array: &Array, dim: i64) -> Option<&Dimension> {
    usize::try_from(dim)
        .ok()
        .and_then(|d| d.checked_sub(1))
        .and_then(|d| array.dimensions().get(d))
}

pub(crate) fn array_length(args: &[Value]) -> Result<Value, TypeError> {
    let array = array_arg("array_length", args, 0)?;
    let dim = int_arg("array_length", args, 1)?;
    Ok(dimension(array, dim).map_or(Value::Null, |d| Value::Integer(i64::from(d.length))))
}

pub(crate) fn array_lower(args: &[Value]) -> Result<Value, TypeError> {
    let array = array_arg("array_lower", args, 0)?;
    let dim = int_arg("array_lower", args, 1)?;
    Ok(dimension(array, dim).map_or(Value::Null, |d| Value::Integer(i64::from(d.lower))))
}

pub(crate) fn array_upper(args: &[Value]) -> Result<Value, TypeError> {
    let array = array_arg("array_upper", args, 0)?;
    let dim = int_arg("array_upper", args, 1)?;
    Ok(dimension(array, dim).map_or(Value::Null, |d| {
        Value::Integer(i64::from(d.lower) + i64::from(d.length) - 1)
    }))
}

pub(crate) fn cardinality(args: &[Value]) -> Result<Value, TypeError> {
    let array = array_arg("cardinality", args, 0)?;
    Ok(Value::Integer(array.elements().len() as i64))
}

pub(crate) fn array_ndims(args: &[Value]) -> Result<Value, TypeError> {
    let array = array_arg("array_ndims", args, 0)?;
    Ok(if array.ndims() == 0 {
        Value::Null
    } else {
        Value::Integer(array.ndims() as i64)
    })
}

pub(crate) fn array_dims(args: &[Value]) -> Result<Value, TypeError> {
    let array = array_arg("array_dims", args, 0)?;
    if array.ndims() == 0 {
        return Ok(Value::Null);
    }
    let mut text = String::new();
    for d in array.dimensions() {
        let upper = i64::from(d.lower) + i64::from(d.length) - 1;
        text.push_str(&format!("[{}:{upper}]", d.lower));
    }
    Ok(Value::Text(text))
}

/// Whether two elements are not distinct (NULL matches NULL), as `array_position` and
/// `array_remove` compare.
pub(crate) fn not_distinct(a: &Value, b: &Value) -> Result<bool, TypeError> {
    Ok(match (a.is_null(), b.is_null()) {
        (true, true) => true,
        (true, false) | (false, true) => false,
        _ => crate::types::compare(a, b)? == Some(Ordering::Equal),
    })
}

pub(crate) fn one_dimensional(name: &str, array: &Array) -> Result<(), TypeError> {
    if array.ndims() > 1 {
        return Err(TypeError::FeatureNotSupported(format!(
            "searching for elements in multidimensional arrays is not supported ({name})"
        )));
    }
    Ok(())
}

pub(crate) fn array_position(args: &[Value]) -> Result<Value, TypeError> {
    let array = match args.first() {
        Some(Value::Null) | None => return Ok(Value::Null),
        _ => array_arg("array_position", args, 0)?,
    };
    one_dimensional("array_position", array)?;
    let needle = args.get(1).unwrap_or(&Value::Null);
    let lower = array.dimensions().first().map_or(1, |d| i64::from(d.lower));
    let start = match args.get(2) {
        None => lower,
        Some(Value::Null) => {
            return Err(TypeError::NullValueNotAllowed(
                "initial position must not be null",
            ));
        }
        Some(_) => int_arg("array_position", args, 2)?,
    };
    for (i, element) in array.elements().iter().enumerate() {
        let position = lower + i as i64;
        if position >= start && not_distinct(element, needle)? {
            return Ok(Value::Integer(position));
        }
    }
    Ok(Value::Null)
}

pub(crate) fn array_positions(args: &[Value]) -> Result<Value, TypeError> {
    let array = match args.first() {
        Some(Value::Null) | None => return Ok(Value::Null),
        _ => array_arg("array_positions", args, 0)?,
    };
    one_dimensional("array_positions", array)?;
    let needle = args.get(1).unwrap_or(&Value::Null);
    let lower = array.dimensions().first().map_or(1, |d| i64::from(d.lower));
    let mut positions = Vec::new();
    for (i, element) in array.elements().iter().enumerate() {
        if not_distinct(element, needle)? {
            positions.push(Value::Integer(lower + i as i64));
        }
    }
    Ok(Array::from_elements(DataType::Integer, positions)?.into_value())
}

/// A one-dimensional array's elements and lower bound (an empty array: none, 1).
pub(crate) fn one_d<'a>(name: &str, array: &'a Array) -> Result<(&'a [Value], i32), TypeError> {
    if array.ndims() > 1 {
        return Err(TypeError::DataException(format!(
            "argument must be empty or one-dimensional array ({name})"
        )));
    }
    Ok((
        array.elements(),
        array.dimensions().first().map_or(1, |d| d.lower),
    ))
}

pub(crate) fn with_lower(
    element: DataType,
    elements: Vec<Value>,
    lower: i32,
) -> Result<Value, TypeError> {
    let length = u32::try_from(elements.len()).map_err(|_| super::too_large())?;
    Ok(Array::new(element, vec![Dimension { lower, length }], elements)?.into_value())
}

pub(crate) fn array_append(args: &[Value]) -> Result<Value, TypeError> {
    let value = args.get(1).cloned().unwrap_or(Value::Null);
    match args.first() {
        Some(Value::Array(array)) => {
            let (elements, lower) = one_d("array_append", array)?;
            let mut elements = elements.to_vec();
            elements.push(value);
            with_lower(array.element_type(), elements, lower)
        }
        Some(Value::Null) if !value.is_null() => {
            Ok(Array::from_elements(value.data_type(), vec![value])?.into_value())
        }
        _ => Ok(Value::Null),
    }
}

pub(crate) fn array_prepend(args: &[Value]) -> Result<Value, TypeError> {
    let value = args.first().cloned().unwrap_or(Value::Null);
    match args.get(1) {
        Some(Value::Array(array)) => {
            let (elements, lower) = one_d("array_prepend", array)?;
            let mut all = Vec::with_capacity(elements.len() + 1);
            all.push(value);
            all.extend_from_slice(elements);
            // PostgreSQL 15 keeps the old lower bound for the new first element.
            with_lower(array.element_type(), all, lower)
        }
        Some(Value::Null) if !value.is_null() => {
            Ok(Array::from_elements(value.data_type(), vec![value])?.into_value())
        }
        _ => Ok(Value::Null),
    }
}

/// `array_cat(a, b)` / `a || b`: NULL and empty operands give the other; arrays of the same
/// number of dimensions concatenate along the first; an array one dimension lower is
/// appended or prepended as one more slice. The other dimensions must agree in length and
/// lower bound, as PostgreSQL checks (2202E).
pub(crate) fn array_cat(args: &[Value]) -> Result<Value, TypeError> {
    let (a, b) = match (args.first(), args.get(1)) {
        (Some(Value::Array(a)), Some(Value::Array(b))) => (a, b),
        (Some(Value::Array(a)), _) => return Ok(Value::Array(a.clone())),
        (_, Some(Value::Array(b))) => return Ok(Value::Array(b.clone())),
        _ => return Ok(Value::Null),
    };
    if a.is_empty() {
        return Ok(Value::Array(b.clone()));
    }
    if b.is_empty() {
        return Ok(Value::Array(a.clone()));
    }
    let element = a.element_type();
    let mismatch =
        || TypeError::ArraySubscript("cannot concatenate incompatible arrays".to_owned());
    let mut elements = a.elements().to_vec();
    elements.extend_from_slice(b.elements());
    let (da, db) = (a.dimensions(), b.dimensions());
    let dimensions = if da.len() == db.len() {
        if da[1..] != db[1..] {
            return Err(mismatch());
        }
        let mut dims = da.to_vec();
        dims[0].length += db[0].length;
        dims
    } else if da.len() == db.len() + 1 {
        if da[1..] != *db {
            return Err(mismatch());
        }
        let mut dims = da.to_vec();
        dims[0].length += 1;
        dims
    } else if da.len() + 1 == db.len() {
        if *da != db[1..] {
            return Err(mismatch());
        }
        let mut dims = db.to_vec();
        dims[0].length += 1;
        dims
    } else {
        return Err(mismatch());
    };
    Ok(Array::new(element, dimensions, elements)?.into_value())
}

pub(crate) fn array_remove(args: &[Value]) -> Result<Value, TypeError> {
    let array = match args.first() {
        Some(Value::Array(array)) => array,
        _ => return Ok(Value::Null),
    };
    if array.is_empty() {
        return Ok(Value::Array(array.clone()));
    }
    let (elements, _) = one_d("array_remove", array)?;
    let needle = args.get(1).unwrap_or(&Value::Null);
    let mut kept = Vec::with_capacity(elements.len());
    for element in elements {
        if !not_distinct(element, needle)? {
            kept.push(element.clone());
        }
    }
    Ok(Array::from_elements(array.element_type(), kept)?.into_value())
}

pub(crate) fn array_replace(args: &[Value]) -> Result<Value, TypeError> {
    let array = match args.first() {
        Some(Value::Array(array)) => array,
        _ => return Ok(Value::Null),
    };
    let from = args.get(1).unwrap_or(&Value::Null);
    let to = args.get(2).unwrap_or(&Value::Null);
    let mut elements = Vec::with_capacity(array.elements().len());
    for element in array.elements() {
        elements.push(if not_distinct(element, from)? {
            to.clone()
        } else {
            element.clone()
        });
    }
    Ok(Array::new(array.element_type(), array.dimensions().to_vec(), elements)?.into_value())
}

/// `array_to_string(a, delimiter[, null_text])`: NULL elements skipped unless `null_text`.
pub(crate) fn array_to_string(args: &[Value]) -> Result<Value, TypeError> {
    let (Some(Value::Array(array)), Some(Value::Text(delimiter))) = (args.first(), args.get(1))
    else {
        return Ok(Value::Null);
    };
    let null_text = match args.get(2) {
        Some(Value::Text(text)) => Some(text.as_str()),
        _ => None,
    };
    let mut out = String::new();
    let mut first = true;
    for element in array.elements() {
        let text = match element {
            Value::Null => match null_text {
                Some(text) => text.to_owned(),
                None => continue,
            },
            Value::Boolean(b) => (if *b { "t" } else { "f" }).to_owned(),
            other => other.to_string(),
        };
        if !first {
            out.push_str(delimiter);
        }
        first = false;
        out.push_str(&text);
    }
    Ok(Value::Text(out))
}

/// `string_to_array(s, delimiter[, null_text])`: NULL delimiter splits into characters, an
/// empty delimiter keeps the whole string, an empty string is the empty array.
pub(crate) fn string_to_array(args: &[Value]) -> Result<Value, TypeError> {
    let text = match args.first() {
        Some(Value::Text(text)) => text,
        _ => return Ok(Value::Null),
    };
    let null_text = match args.get(2) {
        Some(Value::Text(t)) => Some(t.as_str()),
        _ => None,
    };
    let element = |piece: &str| {
        if null_text == Some(piece) {
            Value::Null
        } else {
            Value::Text(piece.to_owned())
        }
    };
    if text.is_empty() {
        return Ok(Array::empty(DataType::Text(None)).into_value());
    }
    let elements: Vec<Value> = match args.get(1) {
        Some(Value::Text(delimiter)) if delimiter.is_empty() => vec![element(text)],
        Some(Value::Text(delimiter)) => text.split(delimiter.as_str()).map(element).collect(),
        _ => text
            .chars()
            .map(|c| element(c.encode_utf8(&mut [0; 4])))
            .collect(),
    };
    Ok(Array::from_elements(DataType::Text(None), elements)?.into_value())
}

/// Whether every non-NULL element of `b` equals some element of `a` (PostgreSQL's
/// `array_contain_compare`: NULL elements never match, so `a @> '{NULL}'` is false unless
/// `b` has no values... and in fact false whenever `b` holds a NULL).
pub(crate) fn contains_all(a: &Array, b: &Array) -> Result<bool, TypeError> {
    for needle in b.elements() {
        if needle.is_null() {
            return Ok(false);
        }
        let mut found = false;
        for element in a.elements() {
            if crate::types::compare(element, needle)? == Some(Ordering::Equal) {
                found = true;
                break;
            }
        }
        if !found {
            return Ok(false);
        }
    }
    Ok(true)
}

pub(crate) fn contains(args: &[Value]) -> Result<Value, TypeError> {
    let a = array_arg("arraycontains", args, 0)?;
    let b = array_arg("arraycontains", args, 1)?;
    Ok(Value::Boolean(contains_all(a, b)?))
}

pub(crate) fn contained(args: &[Value]) -> Result<Value, TypeError> {
    let a = array_arg("arraycontained", args, 0)?;
    let b = array_arg("arraycontained", args, 1)?;
    Ok(Value::Boolean(contains_all(b, a)?))
}

pub(crate) fn overlap(args: &[Value]) -> Result<Value, TypeError> {
    let a = array_arg("arrayoverlap", args, 0)?;
    let b = array_arg("arrayoverlap", args, 1)?;
    for x in a.elements().iter().filter(|v| !v.is_null()) {
        for y in b.elements().iter().filter(|v| !v.is_null()) {
            if crate::types::compare(x, y)? == Some(Ordering::Equal) {
                return Ok(Value::Boolean(true));
            }
        }
    }
    Ok(Value::Boolean(false))
}

/// `array::T[]` of another element type: each element cast (the shape kept).
pub fn cast_elements(array: &Array, to: DataType) -> Result<Value, TypeError> {
    let elements = array
        .elements()
        .iter()
        .map(|v| crate::types::cast(v, to))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Array::new(to, array.dimensions().to_vec(), elements)?.into_value())
}
