//! The scalar function registry: `abs(x)`, `lower(s)`, `date_part(f, t)` and the rest.
//!
//! The binder looks a call's name up with [`scalar_function`], asks the entry's
//! [`ScalarFunction::return_type`] for the result type of the argument types (which also
//! rejects calls no signature accepts, 42883), and inserts casts where needed; the executor
//! then calls [`ScalarFunction::call`] with argument values. The planner may fold calls with
//! constant arguments unless the function is [`ScalarFunction::volatile`].
//!
//! NULL handling: functions marked [`ScalarFunction::strict`] return NULL when any argument
//! is NULL (this is checked inside `call`, so callers need not). The exceptions are
//! documented per function: `concat` and `concat_ws` skip NULL values, `greatest`/`least`
//! ignore NULLs, `typeof` describes NULL, `ifnull` and `nullif` are about NULLs, and
//! `format` formats NULL arguments (it is NULL only for a NULL format string).
//!
//! `call` never panics: wrong argument counts or types (which the binder should have caught)
//! are reported as [`TypeError::UndefinedFunction`]. Special forms with their own syntax or
//! evaluation rules (`coalesce`, which evaluates lazily, `CASE`, `now()`) are not here;
//! `now()`/`current_timestamp`/`current_date` read
//! [`crate::types::current_timestamp_micros`] once per statement in the executor.
//!
//! Argument types are checked strictly, as PostgreSQL resolves functions: text functions
//! take text (`length(123)` is an error, unlike SQLite), numeric functions take integers or
//! reals. NULL-typed (unknown) arguments are accepted anywhere.

/// A registry entry: `function!("name", return_type_helper, call)` for a strict, stable
/// function, or with `strict: bool, volatile: bool` spelled out. The return-type helper takes
/// the function's name first so that its errors name the function as called.
macro_rules! function {
    ($name:literal, $return_type:path, $call:path) => {
        function!($name, $return_type, $call, strict: true, volatile: false)
    };
    (
        $name:literal,
        $return_type:path,
        $call:path,
        strict: $strict:expr,
        volatile: $volatile:expr
    ) => {
        $crate::types::functions::ScalarFunction {
            name: $name,
            return_type: {
                fn return_type(
                    args: &[$crate::types::DataType],
                ) -> Result<$crate::types::DataType, $crate::types::TypeError> {
                    $return_type($name, args)
                }
                return_type
            },
            call: $call,
            volatile: $volatile,
            strict: $strict,
        }
    };
}

mod array;
mod datetime;
pub(crate) mod datetime_format;
mod format;
mod interval;
mod json;
mod jsonb_edit;
mod jsonb_modify;
mod jsonpath;
mod math;
mod misc;
mod number_format;
mod overlay;
mod pg_catalog;
mod quotient;
mod regex;
pub mod set_returning;
mod string;
mod text_search;
mod trig;
pub mod vector;

use super::{DataType, TypeError, Value};

pub use json::untyped_argument_type as json_untyped_argument_type;

/// The type an untyped literal argument at `position` of function `name` takes, where the
/// function's parameter says (a JSON document, a vector); `None` when it does not.
pub fn untyped_argument_type(name: &str, position: usize) -> Option<DataType> {
    json::untyped_argument_type(name, position)
        .or_else(|| vector::untyped_argument_type(name, position))
}

/// One scalar function.
#[derive(Debug)]
pub struct ScalarFunction {
    /// The canonical lower-case name (aliases have their own entries).
    pub name: &'static str,
    /// The result type for these argument types, or 42883 when no signature accepts them.
    /// NULL (unknown) argument types are accepted wherever a value is.
    pub return_type: fn(&[DataType]) -> Result<DataType, TypeError>,
    /// Evaluates the function on argument values.
    pub call: fn(&[Value]) -> Result<Value, TypeError>,
    /// Whether results may differ between calls with the same arguments (`random`): never
    /// constant-folded, evaluated per row.
    pub volatile: bool,
    /// Whether any NULL argument makes the result NULL.
    pub strict: bool,
}

/// Looks a function up by name, case-insensitively.
pub fn scalar_function(name: &str) -> Option<&'static ScalarFunction> {
    all_functions().find(|f| f.name.eq_ignore_ascii_case(name))
}

/// Every registered function, aliases included.
pub fn all_functions() -> impl Iterator<Item = &'static ScalarFunction> {
    [
        math::FUNCTIONS,
        quotient::FUNCTIONS,
        trig::FUNCTIONS,
        string::FUNCTIONS,
        overlay::FUNCTIONS,
        misc::FUNCTIONS,
        datetime::FUNCTIONS,
        regex::FUNCTIONS,
        format::FUNCTIONS,
        datetime_format::FUNCTIONS,
        interval::FUNCTIONS,
        json::FUNCTIONS,
        jsonb_edit::FUNCTIONS,
        jsonb_modify::FUNCTIONS,
        jsonpath::FUNCTIONS,
        vector::FUNCTIONS,
        text_search::FUNCTIONS,
        array::FUNCTIONS,
        pg_catalog::FUNCTIONS,
    ]
    .into_iter()
    .flatten()
}

/// What a parameter position accepts (NULL is accepted everywhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Param {
    Any,
    Number,
    Integer,
    Text,
    /// Text or blob.
    Bytes,
    /// Date or timestamp.
    Temporal,
    /// Interval.
    Interval,
    /// Time of day.
    Time,
    Json,
    Jsonb,
    /// A vector of any dimension.
    Vector,
}

impl Param {
    fn accepts(self, t: DataType) -> bool {
        use DataType as T;
        t == T::Null
            || match self {
                Param::Any => true,
                Param::Number => t.is_numeric(),
                Param::Integer => t == T::Integer,
                Param::Text => t.is_text(),
                Param::Bytes => matches!(t, T::Text(_) | T::Blob),
                Param::Temporal => matches!(t, T::Date | T::Timestamp | T::TimestampTz),
                Param::Interval => t == T::Interval,
                Param::Time => matches!(t, T::Time(_)),
                Param::Json => t == T::Json,
                Param::Jsonb => t == T::Jsonb,
                Param::Vector => matches!(t, T::Vector(_)),
            }
    }
}

/// Checks argument types against `required` parameters followed by up to all of `optional`.
fn check_args(
    name: &str,
    args: &[DataType],
    required: &[Param],
    optional: &[Param],
) -> Result<(), TypeError> {
    let fits = args.len() >= required.len()
        && args.len() <= required.len() + optional.len()
        && args
            .iter()
            .zip(required.iter().chain(optional))
            .all(|(t, p)| p.accepts(*t));
    if fits {
        Ok(())
    } else {
        Err(TypeError::undefined_signature(name, args))
    }
}

/// Checks a variadic call: at least `min` arguments, each accepted by `param`.
fn check_variadic(
    name: &str,
    args: &[DataType],
    min: usize,
    param: Param,
) -> Result<(), TypeError> {
    if args.len() >= min && args.iter().all(|t| param.accepts(*t)) {
        Ok(())
    } else {
        Err(TypeError::undefined_signature(name, args))
    }
}

/// The type of argument `i` (NULL when absent).
fn arg_type(args: &[DataType], i: usize) -> DataType {
    args.get(i).copied().unwrap_or(DataType::Null)
}

/// A numeric argument's type (integer, numeric or real) with unknown (NULL) resolved to
/// real.
fn numeric_type(t: DataType) -> DataType {
    match t {
        DataType::Integer => DataType::Integer,
        DataType::Numeric(_) => DataType::Numeric(None),
        _ => DataType::Real,
    }
}

/// The start of every strict function: checks the argument count and reports whether any
/// argument is NULL (so the result is NULL).
fn strict_nulls(name: &str, args: &[Value], min: usize, max: usize) -> Result<bool, TypeError> {
    if args.len() < min || args.len() > max {
        return Err(TypeError::undefined_function(name, args));
    }
    Ok(args.iter().any(Value::is_null))
}

/// Argument `i` as text.
fn text_arg<'a>(name: &str, args: &'a [Value], i: usize) -> Result<&'a str, TypeError> {
    match args.get(i) {
        Some(Value::Text(s)) => Ok(s),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

/// Argument `i` as an integer.
fn int_arg(name: &str, args: &[Value], i: usize) -> Result<i64, TypeError> {
    match args.get(i) {
        Some(Value::Integer(n)) => Ok(*n),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

/// Argument `i` as a real (integers convert).
fn real_arg(name: &str, args: &[Value], i: usize) -> Result<f64, TypeError> {
    match args.get(i) {
        Some(Value::Real(r)) => Ok(*r),
        Some(Value::Integer(n)) => Ok(*n as f64),
        // PostgreSQL's implicit numeric → double precision, for the double-only functions.
        Some(Value::Numeric(n)) => Ok(n.to_f64()),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

/// Argument `i` as bytes (text as UTF-8).
fn bytes_arg<'a>(name: &str, args: &'a [Value], i: usize) -> Result<&'a [u8], TypeError> {
    match args.get(i) {
        Some(Value::Text(s)) => Ok(s.as_bytes()),
        Some(Value::Blob(b)) => Ok(b),
        _ => Err(TypeError::undefined_function(name, args)),
    }
}

/// The largest text or blob a function will build (PostgreSQL's limit is also 1 GiB).
const MAX_RESULT_BYTES: usize = 1 << 30;

fn too_large() -> TypeError {
    TypeError::ProgramLimitExceeded("requested length too large")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls a function by name and returns its result or error code, checking on the way
    /// that `return_type` agrees with the value produced.
    pub(super) fn call(name: &str, args: &[Value]) -> Result<Value, &'static str> {
        let function = scalar_function(name).unwrap_or_else(|| panic!("no function {name}"));
        let types: Vec<DataType> = args.iter().map(Value::data_type).collect();
        let result = (function.call)(args).map_err(|e| e.code());
        if let Ok(value) = &result {
            let declared = (function.return_type)(&types)
                .unwrap_or_else(|e| panic!("{name}{types:?}: return_type says {e}"));
            assert!(
                value.is_null() || value.data_type() == declared.unmodified(),
                "{name}{types:?} returned {value:?}, declared {declared}"
            );
        }
        if function.strict && args.iter().any(Value::is_null) {
            assert_eq!(
                result,
                Ok(Value::Null),
                "strict {name} with a NULL argument"
            );
        }
        result
    }

    pub(super) fn t(s: &str) -> Value {
        Value::Text(s.to_owned())
    }
    pub(super) fn i(n: i64) -> Value {
        Value::Integer(n)
    }
    pub(super) fn r(x: f64) -> Value {
        Value::Real(x)
    }

    #[test]
    fn lookup_is_case_insensitive() {
        assert_eq!(scalar_function("ABS").map(|f| f.name), Some("abs"));
        assert_eq!(scalar_function("Lower").map(|f| f.name), Some("lower"));
        assert!(scalar_function("no_such_function").is_none());
        assert!(scalar_function("coalesce").is_none());
        assert!(scalar_function("random").is_some_and(|f| f.volatile));
        assert!(scalar_function("abs").is_some_and(|f| !f.volatile && f.strict));
    }

    #[test]
    fn names_are_unique_and_lower_case() {
        let names: Vec<&str> = all_functions().map(|f| f.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "duplicate function names");
        assert!(names.iter().all(|n| *n == n.to_ascii_lowercase()));
    }

    #[test]
    fn wrong_calls_are_errors_not_panics() {
        let samples = [
            Value::Null,
            Value::Boolean(true),
            i(i64::MIN),
            i(-1),
            i(0),
            i(i64::MAX),
            r(f64::NAN),
            r(-0.0),
            r(f64::INFINITY),
            r(1e308),
            t(""),
            t("héllo wörld"),
            Value::Blob(vec![0xff, 0]),
            Value::Date(i32::MIN),
            Value::Date(i32::MAX),
            Value::Timestamp(i64::MIN),
            Value::Timestamp(i64::MAX),
        ];
        for function in all_functions() {
            // Every function, with zero to three arguments drawn from the samples.
            let _ = (function.call)(&[]);
            let _ = (function.return_type)(&[]);
            for a in &samples {
                let _ = (function.call)(std::slice::from_ref(a));
                for b in &samples {
                    let _ = (function.call)(&[a.clone(), b.clone()]);
                    for c in [&samples[2], &samples[4], &samples[10], &samples[12]] {
                        let _ = (function.call)(&[a.clone(), b.clone(), c.clone()]);
                    }
                }
            }
        }
        let err =
            (scalar_function("abs").unwrap().return_type)(&[DataType::Text(None)]).unwrap_err();
        assert_eq!(err.code(), "42883");
        assert_eq!(err.to_string(), "function abs(text) does not exist");
    }
}
