//! Python values to Basalt's [`Value`]s (parameters) and result values back to Python objects.
//!
//! In: `None`, `bool`, `int`, `float`, `str`, `bytes`/`bytearray`/`memoryview`,
//! `datetime.datetime` (a naive one a TIMESTAMP, an aware one a TIMESTAMPTZ), `datetime.date`,
//! `datetime.timedelta` (an INTERVAL of days and microseconds), `decimal.Decimal` (an exact
//! NUMERIC; a NaN, an infinity or one past 38 digits binds as a float), `uuid.UUID`, `dict` (JSON), `list` (a VECTOR where the
//! statement expects one, an array where it expects one — `= ANY(?)`, an `INT[]` column —
//! each element converted for the element type and nested lists making more dimensions,
//! else JSON), and any float32/float64 buffer such as a numpy array (a
//! VECTOR). Out: the same types; TIMESTAMPTZ as an aware `datetime` in UTC (the instant; the
//! session's zone only shapes text); NUMERIC as a `decimal.Decimal` with its scale; INTERVAL as a `timedelta` with 30-day months; JSON as
//! `json.loads` gives it; VECTOR as a float32 numpy array when numpy imports, else a list;
//! an array as a list of its elements (nested lists per dimension, lower bounds dropped).
//! A value Python cannot hold (a date past year 9999) raises DataError, never panics.

use basalt::{DataType, Interval, Numeric, Value, ValueRef};
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    IntoPyDict, PyBool, PyByteArray, PyBytes, PyDate, PyDateAccess, PyDateTime, PyDelta,
    PyDeltaAccess, PyDict, PyFloat, PyInt, PyList, PyMemoryView, PyString, PyTime, PyTimeAccess,
    PyType,
};

use crate::errors::{Failure, Outcome, binding};

const MICROS_PER_DAY: i64 = 86_400_000_000;

static DECIMAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static UUID: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static JSON_DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static JSON_LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static UTC: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
/// `numpy.frombuffer`, or `None` when numpy does not import.
static FROMBUFFER: PyOnceLock<Option<Py<PyAny>>> = PyOnceLock::new();
static FLOAT32: PyOnceLock<Option<Py<PyAny>>> = PyOnceLock::new();

fn attribute<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    module: &str,
    name: &str,
) -> PyResult<&'py Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || Ok(py.import(module)?.getattr(name)?.unbind()))
        .map(|object| object.bind(py))
}

fn unsupported(object: &Bound<'_, PyAny>) -> Failure {
    let name = object
        .get_type()
        .name()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    binding(
        "HY004",
        format!("a parameter of type '{name}' is not supported"),
    )
}

/// A float32/float64 buffer's elements (numpy arrays, `array.array('f')`), or `None` when
/// `object` has no such buffer.
fn float_buffer(object: &Bound<'_, PyAny>) -> Option<Vec<f32>> {
    let py = object.py();
    if let Ok(buffer) = PyBuffer::<f32>::get(object) {
        return buffer.to_vec(py).ok();
    }
    if let Ok(buffer) = PyBuffer::<f64>::get(object) {
        return buffer
            .to_vec(py)
            .ok()
            .map(|values| values.into_iter().map(|value| value as f32).collect());
    }
    None
}

/// `object` as a parameter value; `expected` is the type the statement gives the parameter
/// (it decides whether a list is a VECTOR or JSON).
pub(crate) fn to_value(object: &Bound<'_, PyAny>, expected: DataType) -> Outcome<Value> {
    let py = object.py();
    if object.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(value) = object.cast::<PyBool>() {
        return Ok(Value::Boolean(value.is_true()));
    }
    if object.is_instance_of::<PyInt>() {
        return match object.extract::<i64>() {
            Ok(value) => Ok(Value::Integer(value)),
            Err(_) => Err(binding(
                "22003",
                "integer out of range for a 64-bit INTEGER",
            )),
        };
    }
    if let Ok(value) = object.cast::<PyFloat>() {
        return Ok(Value::Real(value.value()));
    }
    if let Ok(value) = object.cast::<PyString>() {
        return Ok(Value::Text(value.to_str()?.to_owned()));
    }
    if let Ok(value) = object.cast::<PyBytes>() {
        return Ok(Value::Blob(value.as_bytes().to_vec()));
    }
    if let Ok(value) = object.cast::<PyByteArray>() {
        return Ok(Value::Blob(value.to_vec()));
    }
    if object.is_instance_of::<PyMemoryView>() {
        return Ok(Value::Blob(object.call_method0("tobytes")?.extract()?));
    }
    if let Ok(value) = object.cast::<PyDateTime>() {
        // An aware datetime is an instant: a TIMESTAMPTZ of its UTC time.
        let aware = !value.getattr("tzinfo")?.is_none();
        let value = if !aware {
            value.clone()
        } else {
            let utc = attribute(py, &UTC, "datetime", "timezone")?.getattr("utc")?;
            let naive = value.call_method1("astimezone", (utc,))?.call_method(
                "replace",
                (),
                Some(&[("tzinfo", py.None())].into_py_dict(py)?),
            )?;
            naive.cast_into::<PyDateTime>().map_err(PyErr::from)?
        };
        let days = basalt::days_from_civil(
            i64::from(value.get_year()),
            u32::from(value.get_month()),
            u32::from(value.get_day()),
        );
        let micros = i64::from(value.get_hour()) * 3_600_000_000
            + i64::from(value.get_minute()) * 60_000_000
            + i64::from(value.get_second()) * 1_000_000
            + i64::from(value.get_microsecond());
        let micros = days * MICROS_PER_DAY + micros;
        return Ok(if aware {
            Value::TimestampTz(micros)
        } else {
            Value::Timestamp(micros)
        });
    }
    if let Ok(value) = object.cast::<PyTime>() {
        // Basalt has no TIME WITH TIME ZONE: an aware time has nowhere to keep its offset.
        if !value.getattr("tzinfo")?.is_none() {
            return Err(binding(
                "0A000",
                "an aware datetime.time (Basalt has no time with time zone)",
            ));
        }
        return Ok(Value::Time(
            i64::from(value.get_hour()) * 3_600_000_000
                + i64::from(value.get_minute()) * 60_000_000
                + i64::from(value.get_second()) * 1_000_000
                + i64::from(value.get_microsecond()),
        ));
    }
    if let Ok(value) = object.cast::<PyDate>() {
        let days = basalt::days_from_civil(
            i64::from(value.get_year()),
            u32::from(value.get_month()),
            u32::from(value.get_day()),
        );
        // Python's dates (years 1..=9999) are all within i32 days.
        return Ok(Value::Date(days as i32));
    }
    if let Ok(value) = object.cast::<PyDelta>() {
        let micros =
            i64::from(value.get_seconds()) * 1_000_000 + i64::from(value.get_microseconds());
        return Ok(Value::Interval(Interval::new(0, value.get_days(), micros)));
    }
    if object.is_instance(DECIMAL.import(py, "decimal", "Decimal")?)? {
        // Through its text (`str(Decimal)`, which may use an exponent): exact when it fits.
        let text: String = object.str()?.extract()?;
        return Ok(match text.parse::<Numeric>() {
            Ok(number) => Value::Numeric(number),
            Err(_) => Value::Real(object.extract::<f64>()?),
        });
    }
    if object.is_instance(UUID.import(py, "uuid", "UUID")?)? {
        let bytes: Vec<u8> = object.getattr("bytes")?.extract()?;
        let bytes: [u8; 16] = bytes
            .try_into()
            .map_err(|_| binding("22P02", "a UUID must have 16 bytes"))?;
        return Ok(Value::Uuid(bytes));
    }
    if object.is_instance_of::<PyDict>() {
        return json(object);
    }
    if (object.is_instance_of::<PyList>() || object.is_instance_of::<pyo3::types::PyTuple>())
        && let Some(element) = expected.element_type()
    {
        return array(object, element);
    }
    if object.is_instance_of::<PyList>() {
        if matches!(expected, DataType::Vector(_)) {
            return match object.extract::<Vec<f32>>() {
                Ok(elements) => Ok(Value::Vector(elements)),
                Err(_) => Err(binding("22P02", "a vector must be a list of numbers")),
            };
        }
        return json(object);
    }
    if let Some(elements) = float_buffer(object) {
        return Ok(Value::Vector(elements));
    }
    // numpy's scalars and other numbers that are not int or float subclasses.
    if object.hasattr("__index__")? {
        return to_value(&object.call_method0("__index__")?, expected);
    }
    if object.hasattr("__float__")? {
        return Ok(Value::Real(object.extract::<f64>()?));
    }
    Err(unsupported(object))
}

/// A list (or tuple) as an array of `element`s: each item converted as a parameter of that
/// type; a list of lists is a multidimensional array (sub-lists of different lengths are
/// 2202E, as `ARRAY[...]` says).
fn array(object: &Bound<'_, PyAny>, element: DataType) -> Outcome<Value> {
    let mut items = Vec::new();
    for item in object.try_iter()? {
        let item = item?;
        if item.is_instance_of::<PyList>() || item.is_instance_of::<pyo3::types::PyTuple>() {
            items.push(array(&item, element)?);
        } else {
            items.push(to_value(&item, element)?);
        }
    }
    basalt::Array::construct(element, items)
        .map_err(|error| binding(error.code(), error.to_string()))
}

fn json(object: &Bound<'_, PyAny>) -> Outcome<Value> {
    let py = object.py();
    let dumps = attribute(py, &JSON_DUMPS, "json", "dumps")?;
    let kwargs = [("allow_nan", false)].into_py_dict(py)?;
    match dumps.call((object,), Some(&kwargs)) {
        Ok(text) => Ok(Value::Json(text.extract()?)),
        Err(error) => Err(binding("22P02", format!("the value is not JSON: {error}"))),
    }
}

fn data_error(message: impl Into<String>) -> PyErr {
    PyErr::from(binding("22008", message))
}

/// The (year, month, day) of a day count, month and day as Python's constructors take them.
fn python_civil(days: i64) -> (i64, u8, u8) {
    let (year, month, day) = basalt::civil_from_days(days);
    // Both are in range by construction (1..=12, 1..=31).
    (year, month as u8, day as u8)
}

fn date(py: Python<'_>, days: i64) -> PyResult<Bound<'_, PyAny>> {
    let (year, month, day) = python_civil(days);
    let year = i32::try_from(year).map_err(|_| data_error("date out of Python's range"))?;
    PyDate::new(py, year, month, day)
        .map(Bound::into_any)
        .map_err(|_| data_error(format!("date out of Python's range (year {year})")))
}

fn timestamp(py: Python<'_>, micros: i64) -> PyResult<Bound<'_, PyAny>> {
    let days = micros.div_euclid(MICROS_PER_DAY);
    let time = micros.rem_euclid(MICROS_PER_DAY);
    let (year, month, day) = python_civil(days);
    let year = i32::try_from(year).map_err(|_| data_error("timestamp out of Python's range"))?;
    // Each part is in range: time < 86,400,000,000.
    let hour = (time / 3_600_000_000) as u8;
    let minute = (time / 60_000_000 % 60) as u8;
    let second = (time / 1_000_000 % 60) as u8;
    let micro = (time % 1_000_000) as u32;
    PyDateTime::new(py, year, month, day, hour, minute, second, micro, None)
        .map(Bound::into_any)
        .map_err(|_| data_error(format!("timestamp out of Python's range (year {year})")))
}

/// A TIMESTAMPTZ as an aware `datetime` in UTC.
fn timestamptz(py: Python<'_>, micros: i64) -> PyResult<Bound<'_, PyAny>> {
    let naive = timestamp(py, micros)?;
    let utc = attribute(py, &UTC, "datetime", "timezone")?.getattr("utc")?;
    naive.call_method("replace", (), Some(&[("tzinfo", utc)].into_py_dict(py)?))
}

/// A TIME as a `datetime.time`. `24:00:00`, which Python's time cannot hold, is
/// `datetime.time.max` (23:59:59.999999).
fn time(py: Python<'_>, micros: i64) -> PyResult<Bound<'_, PyAny>> {
    let micros = micros.clamp(0, MICROS_PER_DAY - 1);
    // Each part is in range: micros < 86,400,000,000.
    let hour = (micros / 3_600_000_000) as u8;
    let minute = (micros / 60_000_000 % 60) as u8;
    let second = (micros / 1_000_000 % 60) as u8;
    let micro = (micros % 1_000_000) as u32;
    PyTime::new(py, hour, minute, second, micro, None)
        .map(Bound::into_any)
        .map_err(|_| data_error("time out of Python's range"))
}

fn interval(py: Python<'_>, value: Interval) -> PyResult<Bound<'_, PyAny>> {
    let micros = value.micros();
    let days = i64::from(value.months()) * 30
        + i64::from(value.days())
        + micros.div_euclid(MICROS_PER_DAY);
    let rest = micros.rem_euclid(MICROS_PER_DAY);
    let days = i32::try_from(days).map_err(|_| data_error("interval out of Python's range"))?;
    // rest < one day: both parts fit.
    let seconds = (rest / 1_000_000) as i32;
    let micro = (rest % 1_000_000) as i32;
    PyDelta::new(py, days, seconds, micro, true)
        .map(Bound::into_any)
        .map_err(|_| data_error("interval out of Python's range"))
}

fn vector<'py>(py: Python<'py>, elements: &[f32]) -> PyResult<Bound<'py, PyAny>> {
    let frombuffer = FROMBUFFER.get_or_init(py, || {
        py.import("numpy")
            .and_then(|numpy| numpy.getattr("frombuffer"))
            .ok()
            .map(Bound::unbind)
    });
    let float32 = FLOAT32.get_or_init(py, || {
        py.import("numpy")
            .and_then(|numpy| numpy.getattr("float32"))
            .ok()
            .map(Bound::unbind)
    });
    match (frombuffer, float32) {
        (Some(frombuffer), Some(float32)) => {
            let mut bytes = Vec::with_capacity(elements.len() * 4);
            for element in elements {
                bytes.extend_from_slice(&element.to_ne_bytes());
            }
            // A bytearray, so that the array is writable.
            let buffer = PyByteArray::new(py, &bytes);
            frombuffer.bind(py).call1((buffer, float32.bind(py)))
        }
        _ => Ok(PyList::new(py, elements.iter().map(|element| f64::from(*element)))?.into_any()),
    }
}

/// A result value as a Python object.
pub(crate) fn to_python<'py>(py: Python<'py>, value: ValueRef<'_>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        ValueRef::Null => py.None().into_bound(py),
        ValueRef::Boolean(value) => PyBool::new(py, value).to_owned().into_any(),
        ValueRef::Integer(value) => value.into_pyobject(py)?.into_any(),
        ValueRef::Real(value) => PyFloat::new(py, value).into_any(),
        // decimal.Decimal('12.50'): the text keeps the scale.
        ValueRef::Numeric(value) => DECIMAL
            .import(py, "decimal", "Decimal")?
            .call1((value.to_string(),))?,
        ValueRef::Text(value) => PyString::new(py, value).into_any(),
        ValueRef::Blob(value) => PyBytes::new(py, value).into_any(),
        ValueRef::Date(days) => date(py, i64::from(days))?,
        ValueRef::Timestamp(micros) => timestamp(py, micros)?,
        ValueRef::TimestampTz(micros) => timestamptz(py, micros)?,
        ValueRef::Time(micros) => time(py, micros)?,
        ValueRef::Interval(value) => interval(py, value)?,
        ValueRef::Uuid(bytes) => {
            let kwargs = [("bytes", PyBytes::new(py, bytes))].into_py_dict(py)?;
            UUID.import(py, "uuid", "UUID")?.call((), Some(&kwargs))?
        }
        ValueRef::Json(text) | ValueRef::Jsonb(text) => {
            attribute(py, &JSON_LOADS, "json", "loads")?.call1((text,))?
        }
        ValueRef::Vector(elements) => vector(py, elements)?,
        ValueRef::Array(array) => {
            let mut next = 0;
            array_level(py, array, 0, &mut next)?
        }
        _ => {
            return Err(PyErr::from(binding(
                "0A000",
                "a result value of a type the module does not know",
            )));
        }
    })
}

/// Dimension `level` of `array` as a list, its elements taken from `*next` on.
fn array_level<'py>(
    py: Python<'py>,
    array: &basalt::Array,
    level: usize,
    next: &mut usize,
) -> PyResult<Bound<'py, PyAny>> {
    let list = PyList::empty(py);
    let Some(dimension) = array.dimensions().get(level) else {
        return Ok(list.into_any());
    };
    for _ in 0..dimension.length {
        if level + 1 < array.ndims() {
            list.append(array_level(py, array, level + 1, next)?)?;
        } else {
            let element = array.elements().get(*next).unwrap_or(&Value::Null);
            list.append(value_to_python(py, element)?)?;
            *next += 1;
        }
    }
    Ok(list.into_any())
}

/// An owned result value as a Python object (through the engine's borrowed view of it,
/// `ValueRef::from`).
pub(crate) fn value_to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    to_python(py, ValueRef::from(value))
}

/// The type code `cursor.description` gives a column: the type's SQL name.
pub(crate) fn type_code(data_type: DataType) -> &'static str {
    data_type.name()
}
