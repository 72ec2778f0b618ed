//! pgvector's functions: the distances (`l2_distance`, `cosine_distance`, `inner_product`,
//! `l1_distance`, and `vector_negative_inner_product`, which `<#>` binds to), `vector_dims`,
//! `vector_norm`, `l2_normalize`, `subvector`, and the element-wise arithmetic `vector_add`,
//! `vector_sub`, `vector_mul` and `vector_concat` that `+`, `-`, `*` and `||` on vectors bind
//! to.
//!
//! Results are pgvector's: distances, norms and inner products are double precision, dimensions
//! are integers, and the vector functions return vectors. Operands of different dimensions are
//! 22000 naming both; an untyped literal argument is read as a vector
//! ([`untyped_argument_type`]).

use super::{Param, ScalarFunction, check_args, int_arg, strict_nulls};
use crate::types::vector::{self, kernels::Metric};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("l2_distance", distance_type, l2_distance),
    function!("cosine_distance", distance_type, cosine_distance),
    function!("inner_product", distance_type, inner_product),
    function!(
        "vector_negative_inner_product",
        distance_type,
        negative_inner_product
    ),
    function!("l1_distance", distance_type, l1_distance),
    function!("vector_dims", dims_type, vector_dims),
    function!("vector_norm", norm_type, vector_norm),
    function!("l2_normalize", unary_vector_type, l2_normalize),
    function!("subvector", subvector_type, subvector),
    function!("vector_add", binary_vector_type, vector_add),
    function!("vector_sub", binary_vector_type, vector_sub),
    function!("vector_mul", binary_vector_type, vector_mul),
    function!("vector_concat", binary_vector_type, vector_concat),
];

/// The function a distance operator binds to (`a <-> b` is `l2_distance(a, b)`).
pub fn operator_function(metric: Metric) -> &'static str {
    match metric {
        Metric::L2 => "l2_distance",
        Metric::NegativeInnerProduct => "vector_negative_inner_product",
        Metric::Cosine => "cosine_distance",
        Metric::L1 => "l1_distance",
    }
}

/// The type an untyped literal argument of a vector function takes: a vector wherever the
/// function takes one (so `l2_distance(v, '[1,2,3]')` reads the literal as a vector).
pub fn untyped_argument_type(name: &str, position: usize) -> Option<DataType> {
    let vectors = match name {
        "l2_distance"
        | "cosine_distance"
        | "inner_product"
        | "vector_negative_inner_product"
        | "l1_distance"
        | "vector_add"
        | "vector_sub"
        | "vector_mul"
        | "vector_concat" => 2,
        "vector_dims" | "vector_norm" | "l2_normalize" | "subvector" => 1,
        _ => return None,
    };
    (position < vectors).then_some(DataType::Vector(None))
}

// ---- return types ----

fn distance_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Vector, Param::Vector], &[])?;
    Ok(DataType::Real)
}

fn dims_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Vector], &[])?;
    Ok(DataType::Integer)
}

fn norm_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Vector], &[])?;
    Ok(DataType::Real)
}

fn unary_vector_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Vector], &[])?;
    Ok(DataType::Vector(None))
}

fn binary_vector_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Vector, Param::Vector], &[])?;
    Ok(DataType::Vector(None))
}

fn subvector_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(
        name,
        args,
        &[Param::Vector, Param::Integer, Param::Integer],
        &[],
    )?;
    Ok(DataType::Vector(None))
}

// ---- calls ----

/// Argument `i` as a vector's elements.
fn vector_arg<'a>(name: &str, args: &'a [Value], i: usize) -> Result<&'a [f32], TypeError> {
    match args.get(i) {
        Some(Value::Vector(elements)) => Ok(elements),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

fn distance(name: &str, args: &[Value], metric: Metric) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (a, b) = (vector_arg(name, args, 0)?, vector_arg(name, args, 1)?);
    Ok(Value::Real(metric.distance(a, b)?))
}

fn l2_distance(args: &[Value]) -> Result<Value, TypeError> {
    distance("l2_distance", args, Metric::L2)
}

fn cosine_distance(args: &[Value]) -> Result<Value, TypeError> {
    distance("cosine_distance", args, Metric::Cosine)
}

fn negative_inner_product(args: &[Value]) -> Result<Value, TypeError> {
    distance(
        "vector_negative_inner_product",
        args,
        Metric::NegativeInnerProduct,
    )
}

fn l1_distance(args: &[Value]) -> Result<Value, TypeError> {
    distance("l1_distance", args, Metric::L1)
}

fn inner_product(args: &[Value]) -> Result<Value, TypeError> {
    match distance("inner_product", args, Metric::NegativeInnerProduct)? {
        Value::Real(negative) => Ok(Value::Real(-negative)),
        other => Ok(other),
    }
}

fn vector_dims(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("vector_dims", args, 1, 1)? {
        return Ok(Value::Null);
    }
    let elements = vector_arg("vector_dims", args, 0)?;
    Ok(Value::Integer(elements.len() as i64))
}

fn vector_norm(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("vector_norm", args, 1, 1)? {
        return Ok(Value::Null);
    }
    Ok(Value::Real(vector::norm(vector_arg(
        "vector_norm",
        args,
        0,
    )?)))
}

fn l2_normalize(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("l2_normalize", args, 1, 1)? {
        return Ok(Value::Null);
    }
    Ok(Value::Vector(vector::l2_normalize(vector_arg(
        "l2_normalize",
        args,
        0,
    )?)))
}

fn subvector(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("subvector", args, 3, 3)? {
        return Ok(Value::Null);
    }
    let elements = vector_arg("subvector", args, 0)?;
    let start = int_arg("subvector", args, 1)?;
    let count = int_arg("subvector", args, 2)?;
    Ok(Value::Vector(vector::subvector(elements, start, count)?))
}

fn arithmetic(
    name: &str,
    args: &[Value],
    op: fn(f32, f32) -> f32,
    is_product: bool,
) -> Result<Value, TypeError> {
    if strict_nulls(name, args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (a, b) = (vector_arg(name, args, 0)?, vector_arg(name, args, 1)?);
    Ok(Value::Vector(vector::elementwise(a, b, op, is_product)?))
}

fn vector_add(args: &[Value]) -> Result<Value, TypeError> {
    arithmetic("vector_add", args, |x, y| x + y, false)
}

fn vector_sub(args: &[Value]) -> Result<Value, TypeError> {
    arithmetic("vector_sub", args, |x, y| x - y, false)
}

fn vector_mul(args: &[Value]) -> Result<Value, TypeError> {
    arithmetic("vector_mul", args, |x, y| x * y, true)
}

fn vector_concat(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("vector_concat", args, 2, 2)? {
        return Ok(Value::Null);
    }
    let (a, b) = (
        vector_arg("vector_concat", args, 0)?,
        vector_arg("vector_concat", args, 1)?,
    );
    let joined: Vec<f32> = a.iter().chain(b).copied().collect();
    vector::check(&joined)?;
    Ok(Value::Vector(joined))
}
