//! `format_type(type_oid, typmod)`: PostgreSQL's name for a type given its OID and modifier
//! (`character varying(40)`), which psql's `\d` and drivers' reflection read from
//! `pg_attribute`. It knows PostgreSQL 15's built-in types, recorded with the rest of the
//! `pg_catalog` data (`plan::bind::pg_catalog`); an unknown OID is `???`, as in PostgreSQL.
//! A NULL type OID gives NULL; a NULL typmod means "no modifier".
//!
//! `quote_ident(text)`, which psql's `\d` of a sequence calls: the text as an identifier,
//! double-quoted when it needs quotes (the rule of `format('%I')`).

use super::{Param, ScalarFunction, check_args, int_arg, strict_nulls, text_arg};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[
    function!("format_type", format_type_type, format_type, strict: false, volatile: false),
    function!("quote_ident", quote_ident_type, quote_ident),
];

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
