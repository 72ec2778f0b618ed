//! `format_type(type_oid, typmod)`: PostgreSQL's name for a type given its OID and modifier
//! (`character varying(40)`), which psql's `\d` and drivers' reflection read from
//! `pg_attribute`. It knows PostgreSQL 15's built-in types, recorded with the rest of the
//! `pg_catalog` data (`plan::bind::pg_catalog`); an unknown OID is `???`, as in PostgreSQL.
//! A NULL type OID gives NULL; a NULL typmod means "no modifier".
//!
//! `quote_ident(text)`, which psql's `\d` of a sequence calls: the text as an identifier,
//! double-quoted when it needs quotes (the rule of `format('%I')`).
//!
//! `pg_advisory_unlock_all()`: a no-op returning NULL (Basalt has no advisory locks).
//!
//! `pg_size_pretty(bigint)`: a byte count as PostgreSQL 15 words it (`10 kB`, `512 bytes`),
//! with its rounding: halves away from zero, a unit kept up to just under 20 of the next.

use super::{Param, ScalarFunction, check_args, int_arg, strict_nulls, text_arg};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("format_type", format_type_type, format_type, strict: false, volatile: false),
    function!("quote_ident", quote_ident_type, quote_ident),
    function!("pg_size_pretty", pg_size_pretty_type, pg_size_pretty),
    function!(
        "pg_advisory_unlock_all",
        pg_advisory_unlock_all_type,
        pg_advisory_unlock_all,
        strict: false,
        volatile: true
    ),
];

/// `pg_advisory_unlock_all()`: PostgreSQL's `void` function releasing the session's advisory
/// locks. Basalt has no advisory locks, so a session never holds one and there is nothing to
/// release; asyncpg's pool calls it when a connection is released. The result is NULL.
fn pg_advisory_unlock_all_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[], &[])?;
    Ok(DataType::Null)
}

fn pg_advisory_unlock_all(args: &[Value]) -> Result<Value, TypeError> {
    strict_nulls("pg_advisory_unlock_all", args, 0, 0)?;
    Ok(Value::Null)
}

fn pg_size_pretty_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Integer], &[])?;
    Ok(DataType::Text(None))
}

fn pg_size_pretty(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("pg_size_pretty", args, 1, 1)? {
        return Ok(Value::Null);
    }
    let mut size = int_arg("pg_size_pretty", args, 0)?;
    const LIMIT: i64 = 10 * 1024;
    const LIMIT2: i64 = LIMIT * 2 - 1;
    let half_rounded = |x: i64| (x + if x < 0 { -1 } else { 1 }) / 2;
    if size.unsigned_abs() < LIMIT.unsigned_abs() {
        return Ok(Value::Text(format!("{size} bytes")));
    }
    // One extra bit is kept for the rounding.
    size >>= 9;
    for unit in ["kB", "MB", "GB", "TB"] {
        if size.unsigned_abs() < LIMIT2.unsigned_abs() {
            return Ok(Value::Text(format!("{} {unit}", half_rounded(size))));
        }
        size >>= 10;
    }
    Ok(Value::Text(format!("{} PB", half_rounded(size))))
}

fn quote_ident_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Text], &[])?;
    Ok(DataType::Text(None))
}

fn quote_ident(args: &[Value]) -> Result<Value, TypeError> {
    if strict_nulls("quote_ident", args, 1, 1)? {
        return Ok(Value::Null);
    }
    Ok(Value::Text(super::format::quote_identifier(text_arg(
        "quote_ident",
        args,
        0,
    )?)))
}

fn format_type_type(name: &str, args: &[DataType]) -> Result<DataType, TypeError> {
    check_args(name, args, &[Param::Integer, Param::Integer], &[])?;
    Ok(DataType::Text(None))
}

fn format_type(args: &[Value]) -> Result<Value, TypeError> {
    if args.len() != 2 {
        return Err(TypeError::undefined_function("format_type", args));
    }
    if args.first().is_some_and(Value::is_null) {
        return Ok(Value::Null);
    }
    let oid = int_arg("format_type", args, 0)?;
    let typmod = match args.get(1) {
        Some(Value::Null) => -1,
        _ => int_arg("format_type", args, 1)?,
    };
    Ok(Value::Text(crate::plan::bind::pg_catalog::format_type(
        oid, typmod,
    )))
}
