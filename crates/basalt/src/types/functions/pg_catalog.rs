//! `format_type(type_oid, typmod)`: PostgreSQL's name for a type given its OID and modifier
//! (`character varying(40)`), which psql's `\d` and drivers' reflection read from
//! `pg_attribute`. It knows PostgreSQL 15's built-in types, recorded with the rest of the
//! `pg_catalog` data (`plan::bind::pg_catalog`); an unknown OID is `???`, as in PostgreSQL.
//! A NULL type OID gives NULL; a NULL typmod means "no modifier".

use super::{Param, ScalarFunction, check_args, int_arg};
use crate::types::{DataType, TypeError, Value};

pub(super) static FUNCTIONS: &[ScalarFunction] = &[function!(
    "format_type",
    format_type_type,
    format_type,
    strict: false,
    volatile: false
)];

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
