//! Values on the wire: the type OIDs the server reports for Basalt's types, result rows
//! encoded into DataRow bodies in text or binary format, and parameter values decoded from
//! Bind messages.
//!
//! What it guarantees: the text format is PostgreSQL's output function for the type (Basalt's
//! `Display` already follows them; booleans are `t`/`f` here, as `boolout` writes them), and
//! the binary format is PostgreSQL's `send`/`recv` layout (big-endian; dates and timestamps
//! counted from 2000-01-01; pgvector's `vector_send` for vectors). Decoding never panics on
//! client bytes: a malformed parameter is a [`WireError`] with SQLSTATE 22P02 / 22P03.
//!
//! How it fits: the session thread encodes rows with [`RowEncoder`] as the engine hands them
//! out (so rows cross to the connection's task already as message bodies); the Bind handler
//! decodes parameters with [`decode_parameter`] before handing the values to
//! `Session::bind`, which converts them further to the types the statement gives them.

use std::fmt::Write as _;

use basalt::{ColumnDescription, DataType, Interval, Numeric, Row, Value, ValueRef};
use bytes::{BufMut, BytesMut};
use pgwire::messages::data::{DataRow, FieldDescription, RowDescription};

use crate::error::{
    CHARACTER_NOT_IN_REPERTOIRE, FEATURE_NOT_SUPPORTED, INVALID_BINARY_REPRESENTATION,
    INVALID_TEXT_REPRESENTATION, PROTOCOL_VIOLATION, WireError,
};

/// PostgreSQL's type OIDs the server reads or writes.
pub(crate) mod oid {
    pub(crate) const BOOL: u32 = 16;
    pub(crate) const BYTEA: u32 = 17;
    pub(crate) const NAME: u32 = 19;
    pub(crate) const INT8: u32 = 20;
    pub(crate) const INT2: u32 = 21;
    pub(crate) const INT4: u32 = 23;
    pub(crate) const TEXT: u32 = 25;
    pub(crate) const OID: u32 = 26;
    pub(crate) const JSON: u32 = 114;
    pub(crate) const FLOAT4: u32 = 700;
    pub(crate) const FLOAT8: u32 = 701;
    pub(crate) const UNKNOWN: u32 = 705;
    pub(crate) const BPCHAR: u32 = 1042;
    pub(crate) const VARCHAR: u32 = 1043;
    pub(crate) const DATE: u32 = 1082;
    pub(crate) const TIME: u32 = 1083;
    pub(crate) const TIMESTAMP: u32 = 1114;
    pub(crate) const TIMESTAMPTZ: u32 = 1184;
    pub(crate) const INTERVAL: u32 = 1186;
    pub(crate) const NUMERIC: u32 = 1700;
    pub(crate) const UUID: u32 = 2950;
    pub(crate) const JSONB: u32 = 3802;
}

/// pgvector's `vector` has no fixed OID (CREATE EXTENSION assigns one); Basalt reports the
/// one its type descriptor gives, the first OID PostgreSQL leaves to user objects (16385).
pub(crate) fn vector_oid() -> u32 {
    DataType::Vector(None).descriptor().pg_oid
}

/// Days from 1970-01-01 (Basalt's epoch) to 2000-01-01 (PostgreSQL's).
const EPOCH_DAYS: i32 = 10_957;
/// Microseconds from 1970-01-01 00:00 to 2000-01-01 00:00.
const EPOCH_MICROS: i64 = 946_684_800_000_000;

/// The OID the server reports for a column or parameter of `data_type`. A column or
/// parameter nothing gives a type (`SELECT NULL`, `SELECT $1`) is `text`, as PostgreSQL
/// resolves its `unknown` literals and parameters.
pub(crate) fn type_oid(data_type: DataType) -> u32 {
    match data_type {
        DataType::Null => oid::TEXT,
        other => other.descriptor().pg_oid,
    }
}

/// The format codes of a Bind message (for parameters or result columns), expanded to one a
/// value: none means all text, one applies to all, otherwise there must be one each.
pub(crate) fn expand_formats(
    codes: &[i16],
    count: usize,
    what: &str,
) -> Result<Vec<bool>, WireError> {
    let binary = |code: i16| match code {
        0 => Ok(false),
        1 => Ok(true),
        other => Err(WireError::new(
            PROTOCOL_VIOLATION,
            format!("unsupported format code: {other}"),
        )),
    };
    match codes {
        [] => Ok(vec![false; count]),
        [code] => Ok(vec![binary(*code)?; count]),
        codes if codes.len() == count => codes.iter().map(|code| binary(*code)).collect(),
        codes => Err(WireError::new(
            PROTOCOL_VIOLATION,
            format!(
                "bind message has {} {what} formats but {count} {what}s",
                codes.len()
            ),
        )),
    }
}

/// A RowDescription for `columns`, each in its format (`binary[i]`; text when absent).
pub(crate) fn row_description(columns: &[ColumnDescription], binary: &[bool]) -> RowDescription {
    let fields = columns
        .iter()
        .enumerate()
        .map(|(index, column)| {
            let descriptor = column.data_type.descriptor();
            FieldDescription::new(
                column.name.clone(),
                // No pg_catalog yet: no table OIDs or attribute numbers to point at.
                0,
                0,
                type_oid(column.data_type),
                if column.data_type == DataType::Null {
                    -1
                } else {
                    descriptor.pg_typlen
                },
                column
                    .data_type
                    .modifier()
                    .map_or(-1, |modifier| modifier.pg_typmod()),
                i16::from(binary.get(index).copied().unwrap_or(false)),
            )
        })
        .collect();
    RowDescription::new(fields)
}

/// Encodes result rows into DataRow bodies, all rows of a batch into one buffer that each
/// row is split off (one allocation a batch, not one a row or a value).
#[derive(Debug)]
pub(crate) struct RowEncoder {
    buffer: BytesMut,
    /// Each column's declared type and whether it goes out in binary.
    columns: Vec<(DataType, bool)>,
}

impl RowEncoder {
    pub(crate) fn new(columns: Vec<(DataType, bool)>) -> Self {
        RowEncoder {
            buffer: BytesMut::with_capacity(16 * 1024),
            columns,
        }
    }

    /// One row as a DataRow.
    pub(crate) fn encode(&mut self, row: &Row<'_>) -> basalt::Result<DataRow> {
        if row.column_count() != self.columns.len() {
            // The statement was re-planned after DDL and now returns other columns than the
            // client was told; PostgreSQL refuses the same way.
            return Err(basalt::Error::new(
                basalt::sqlstate::FEATURE_NOT_SUPPORTED,
                "cached plan must not change result type",
            ));
        }
        for (index, &(data_type, binary)) in self.columns.iter().enumerate() {
            let value = row.get_ref(index)?;
            if value == ValueRef::Null {
                self.buffer.put_i32(-1);
                continue;
            }
            let start = self.buffer.len();
            self.buffer.put_i32(0);
            if binary {
                write_binary(value, data_type, &mut self.buffer);
            } else {
                write_text(value, &mut self.buffer);
            }
            let length = self.buffer.len() - start - 4;
            let length = i32::try_from(length).map_err(|_| {
                basalt::Error::new(
                    basalt::sqlstate::PROGRAM_LIMIT_EXCEEDED,
                    "a value is too large for the wire protocol",
                )
            })?;
            self.buffer[start..start + 4].copy_from_slice(&length.to_be_bytes());
        }
        if self.buffer.capacity() - self.buffer.len() < 1024 {
            self.buffer.reserve(16 * 1024);
        }
        let field_count = i16::try_from(self.columns.len()).unwrap_or(i16::MAX);
        Ok(DataRow::new(self.buffer.split(), field_count))
    }
}

/// PostgreSQL's text form of `value`.
pub(crate) fn write_text(value: ValueRef<'_>, out: &mut BytesMut) {
    match value {
        ValueRef::Null => {}
        ValueRef::Boolean(flag) => out.put_slice(if flag { b"t" } else { b"f" }),
        ValueRef::Integer(integer) => {
            let _ = write!(out, "{integer}");
        }
        ValueRef::Text(text) | ValueRef::Json(text) | ValueRef::Jsonb(text) => {
            out.put_slice(text.as_bytes());
        }
        ValueRef::Blob(bytes) => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.reserve(2 + bytes.len() * 2);
            out.put_slice(b"\\x");
            for byte in bytes {
                out.put_u8(HEX[usize::from(byte >> 4)]);
                out.put_u8(HEX[usize::from(byte & 0x0f)]);
            }
        }
        other => {
            let _ = write!(out, "{}", other.to_owned());
        }
    }
}

/// PostgreSQL's binary form of `value` for a column of `declared` type.
pub(crate) fn write_binary(value: ValueRef<'_>, declared: DataType, out: &mut BytesMut) {
    match (value, declared) {
        // Text-typed and untyped columns (reported as text) carry any value as its text.
        (_, DataType::Text(_) | DataType::Null) | (ValueRef::Text(_), _) => write_text(value, out),
        (ValueRef::Null, _) => {}
        (ValueRef::Boolean(flag), _) => out.put_u8(u8::from(flag)),
        (ValueRef::Integer(integer), DataType::Real) => out.put_f64(integer as f64),
        (ValueRef::Integer(integer), _) => out.put_i64(integer),
        (ValueRef::Real(real), _) => out.put_f64(real),
        (ValueRef::Numeric(number), _) => out.put_slice(&number.to_pg_binary()),
        (ValueRef::Blob(bytes), _) => out.put_slice(bytes),
        (ValueRef::Date(days), _) => out.put_i32(days.saturating_sub(EPOCH_DAYS)),
        // timestamptz_send is the instant's microseconds since 2000-01-01 UTC: no zone.
        (ValueRef::Timestamp(micros) | ValueRef::TimestampTz(micros), _) => {
            out.put_i64(micros.saturating_sub(EPOCH_MICROS))
        }
        // time_send: int8 microseconds since midnight.
        (ValueRef::Time(micros), _) => out.put_i64(micros),
        (ValueRef::Interval(interval), _) => {
            out.put_i64(interval.micros());
            out.put_i32(interval.days());
            out.put_i32(interval.months());
        }
        (ValueRef::Uuid(bytes), _) => out.put_slice(bytes),
        (ValueRef::Json(text), _) => out.put_slice(text.as_bytes()),
        (ValueRef::Jsonb(text), _) => {
            // jsonb_send: a version byte, then the text.
            out.put_u8(1);
            out.put_slice(text.as_bytes());
        }
        (ValueRef::Vector(elements), _) => {
            // pgvector's vector_send: int16 dimensions, int16 unused, then float4s.
            out.put_i16(i16::try_from(elements.len()).unwrap_or(i16::MAX));
            out.put_i16(0);
            for element in elements {
                out.put_f32(*element);
            }
        }
        (ValueRef::Array(array), _) => write_array(array, out),
        // A value variant this match does not know yet goes out as its text.
        (other, _) => write_text(other, out),
    }
}

/// PostgreSQL's `array_send`: the number of dimensions, a has-NULLs flag and the element
/// type's OID (int32 each), per dimension its length and lower bound (int32), then per
/// element an int32 length (-1 for NULL) and the element's own binary form.
fn write_array(array: &basalt::Array, out: &mut BytesMut) {
    let element = array.element_type();
    out.put_i32(array.ndims() as i32);
    out.put_i32(i32::from(array.elements().iter().any(Value::is_null)));
    out.put_u32(type_oid(element));
    for dimension in array.dimensions() {
        out.put_i32(i32::try_from(dimension.length).unwrap_or(i32::MAX));
        out.put_i32(dimension.lower);
    }
    let mut body = BytesMut::new();
    for value in array.elements() {
        if value.is_null() {
            out.put_i32(-1);
            continue;
        }
        body.clear();
        write_binary(ValueRef::from(value), element, &mut body);
        out.put_i32(i32::try_from(body.len()).unwrap_or(i32::MAX));
        out.put_slice(&body);
    }
}

/// The element type and element OID of an array type OID the server reads parameters of.
fn array_element(type_oid: u32) -> Option<(DataType, u32)> {
    Some(match type_oid {
        1000 => (DataType::Boolean, oid::BOOL),
        1005 => (DataType::Integer, oid::INT2),
        1007 => (DataType::Integer, oid::INT4),
        1016 => (DataType::Integer, oid::INT8),
        1021 => (DataType::Real, oid::FLOAT4),
        1022 => (DataType::Real, oid::FLOAT8),
        1231 => (DataType::Numeric(None), oid::NUMERIC),
        1009 => (DataType::Text(None), oid::TEXT),
        1015 => (DataType::Text(None), oid::VARCHAR),
        1014 => (DataType::Text(None), oid::BPCHAR),
        1001 => (DataType::Blob, oid::BYTEA),
        1182 => (DataType::Date, oid::DATE),
        1115 => (DataType::Timestamp, oid::TIMESTAMP),
        1185 => (DataType::TimestampTz, oid::TIMESTAMPTZ),
        1183 => (DataType::Time(None), oid::TIME),
        1187 => (DataType::Interval, oid::INTERVAL),
        2951 => (DataType::Uuid, oid::UUID),
        199 => (DataType::Json, oid::JSON),
        3807 => (DataType::Jsonb, oid::JSONB),
        _ => return None,
    })
}

/// PostgreSQL's `array_recv` layout (see [`write_array`]) for an array of `element`s whose
/// elements are sent as `element_oid`; the element OID in the data must be that one.
fn decode_array(bytes: &[u8], element: DataType, element_oid: u32) -> Result<Value, String> {
    let mut rest = bytes;
    fn int(rest: &mut &[u8]) -> Result<i32, String> {
        let (head, tail) = rest
            .split_first_chunk::<4>()
            .ok_or("array data ends early")?;
        *rest = tail;
        Ok(i32::from_be_bytes(*head))
    }
    let ndims = usize::try_from(int(&mut rest)?).map_err(|_| "negative number of dimensions")?;
    if ndims > 6 {
        return Err(format!(
            "number of array dimensions ({ndims}) exceeds the maximum allowed (6)"
        ));
    }
    let _has_nulls = int(&mut rest)?;
    let sent_oid = int(&mut rest)? as u32;
    if sent_oid != element_oid {
        return Err(format!(
            "wrong element type {sent_oid}, expected {element_oid}"
        ));
    }
    let mut dimensions = Vec::with_capacity(ndims);
    let mut count: usize = 1;
    for _ in 0..ndims {
        let length = u32::try_from(int(&mut rest)?).map_err(|_| "negative array length")?;
        let lower = int(&mut rest)?;
        count = count
            .checked_mul(length as usize)
            .filter(|&c| c <= bytes.len())
            .ok_or("array length does not fit the data")?;
        dimensions.push(basalt::ArrayDimension { lower, length });
    }
    if ndims == 0 {
        count = 0;
    }
    let mut elements = Vec::with_capacity(count);
    for _ in 0..count {
        let length = int(&mut rest)?;
        if length < 0 {
            elements.push(Value::Null);
            continue;
        }
        let length = length as usize;
        if rest.len() < length {
            return Err("array data ends early".to_owned());
        }
        let (body, tail) = rest.split_at(length);
        rest = tail;
        let value = decode_binary(body, element_oid)?;
        // A numeric NaN decodes as a double, which a numeric[] cannot hold.
        if !value.is_of(element) {
            return Err(format!("array element {value} is not of type {element}"));
        }
        elements.push(value);
    }
    if !rest.is_empty() {
        return Err("extra data after the array".to_owned());
    }
    basalt::Array::new(element, dimensions, elements)
        .map(basalt::Array::into_value)
        .map_err(|error| error.to_string())
}

/// One Bind parameter as a value: `bytes` (NULL when absent) in text or binary format, of
/// type `type_oid` (the client's declared type, or the one the server inferred).
pub(crate) fn decode_parameter(
    bytes: Option<&[u8]>,
    binary: bool,
    type_oid: u32,
    index: usize,
) -> Result<Value, WireError> {
    let Some(bytes) = bytes else {
        return Ok(Value::Null);
    };
    if binary {
        decode_binary(bytes, type_oid).map_err(|message| {
            WireError::new(
                INVALID_BINARY_REPRESENTATION,
                format!(
                    "incorrect binary data format in bind parameter {}: {message}",
                    index + 1
                ),
            )
        })
    } else {
        let text = std::str::from_utf8(bytes).map_err(|_| {
            WireError::new(
                CHARACTER_NOT_IN_REPERTOIRE,
                format!(
                    "invalid byte sequence for encoding \"UTF8\" in bind parameter {}",
                    index + 1
                ),
            )
        })?;
        decode_text(text, type_oid)
    }
}

/// A text-format parameter. Numbers and booleans become values here, so that a client's
/// declared type holds even where the statement does not constrain the parameter; every
/// other type stays text, which the engine converts to the type the statement gives it.
fn decode_text(text: &str, type_oid: u32) -> Result<Value, WireError> {
    let invalid = |type_name: &str| {
        WireError::new(
            INVALID_TEXT_REPRESENTATION,
            format!("invalid input syntax for type {type_name}: \"{text}\""),
        )
    };
    match type_oid {
        oid::INT2 | oid::INT4 | oid::INT8 | oid::OID => text
            .trim()
            .parse::<i64>()
            .map(Value::Integer)
            .map_err(|_| invalid("integer")),
        // An exact decimal when it is one NUMERIC holds; NaN, infinities and values past
        // 38 digits stay doubles.
        oid::NUMERIC => match text.trim().parse::<Numeric>() {
            Ok(number) => Ok(Value::Numeric(number)),
            Err(_) => parse_float(text.trim())
                .map(Value::Real)
                .ok_or_else(|| invalid("numeric")),
        },
        oid::FLOAT4 | oid::FLOAT8 => parse_float(text.trim())
            .map(Value::Real)
            .ok_or_else(|| invalid("double precision")),
        oid::BOOL => match text.trim().to_ascii_lowercase().as_str() {
            "t" | "true" | "yes" | "y" | "on" | "1" => Ok(Value::Boolean(true)),
            "f" | "false" | "no" | "n" | "off" | "0" => Ok(Value::Boolean(false)),
            _ => Err(invalid("boolean")),
        },
        _ => Ok(Value::Text(text.to_owned())),
    }
}

fn parse_float(text: &str) -> Option<f64> {
    match text.to_ascii_lowercase().as_str() {
        "infinity" | "+infinity" | "inf" => Some(f64::INFINITY),
        "-infinity" | "-inf" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => text.parse().ok(),
    }
}

/// A binary-format parameter, by PostgreSQL's `recv` layout for `type_oid`.
pub(crate) fn decode_binary(bytes: &[u8], type_oid: u32) -> Result<Value, String> {
    let fixed = |width: usize| -> Result<(), String> {
        if bytes.len() == width {
            Ok(())
        } else {
            Err(format!("expected {width} bytes, got {}", bytes.len()))
        }
    };
    let utf8 = |bytes: &[u8]| {
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| "text is not UTF-8".to_owned())
    };
    Ok(match type_oid {
        oid::BOOL => {
            fixed(1)?;
            Value::Boolean(bytes[0] != 0)
        }
        oid::INT2 => {
            fixed(2)?;
            Value::Integer(i64::from(i16::from_be_bytes([bytes[0], bytes[1]])))
        }
        oid::INT4 => Value::Integer(i64::from(i32::from_be_bytes(array4(bytes)?))),
        oid::OID => Value::Integer(i64::from(u32::from_be_bytes(array4(bytes)?))),
        oid::INT8 => Value::Integer(i64::from_be_bytes(array8(bytes)?)),
        oid::FLOAT4 => Value::Real(f64::from(f32::from_be_bytes(array4(bytes)?))),
        oid::FLOAT8 => Value::Real(f64::from_be_bytes(array8(bytes)?)),
        oid::NUMERIC => decode_numeric(bytes)?,
        oid::TEXT | oid::VARCHAR | oid::BPCHAR | oid::NAME | oid::UNKNOWN | 0 => {
            Value::Text(utf8(bytes)?)
        }
        oid::BYTEA => Value::Blob(bytes.to_vec()),
        oid::DATE => Value::Date(
            i32::from_be_bytes(array4(bytes)?)
                .checked_add(EPOCH_DAYS)
                .ok_or("date out of range")?,
        ),
        oid::TIMESTAMP => Value::Timestamp(
            i64::from_be_bytes(array8(bytes)?)
                .checked_add(EPOCH_MICROS)
                .ok_or("timestamp out of range")?,
        ),
        oid::TIMESTAMPTZ => Value::TimestampTz(
            i64::from_be_bytes(array8(bytes)?)
                .checked_add(EPOCH_MICROS)
                .ok_or("timestamp out of range")?,
        ),
        oid::TIME => {
            let micros = i64::from_be_bytes(array8(bytes)?);
            // time_recv's check: 00:00:00 to 24:00:00.
            if !(0..=86_400_000_000).contains(&micros) {
                return Err("time out of range".to_owned());
            }
            Value::Time(micros)
        }
        oid::INTERVAL => {
            fixed(16)?;
            let micros = i64::from_be_bytes(array8(&bytes[..8])?);
            let days = i32::from_be_bytes(array4(&bytes[8..12])?);
            let months = i32::from_be_bytes(array4(&bytes[12..])?);
            Value::Interval(Interval::new(months, days, micros))
        }
        oid::UUID => {
            fixed(16)?;
            let mut uuid = [0; 16];
            uuid.copy_from_slice(bytes);
            Value::Uuid(uuid)
        }
        oid::JSON => Value::Json(utf8(bytes)?),
        oid::JSONB => match bytes.split_first() {
            Some((1, text)) => Value::Jsonb(utf8(text)?),
            _ => return Err("unsupported jsonb version".to_owned()),
        },
        other if other == vector_oid() => Value::Vector(decode_vector(bytes)?),
        other if let Some((element, element_oid)) = array_element(other) => {
            decode_array(bytes, element, element_oid)?
        }
        other => {
            return Err(format!(
                "binary format for type OID {other} is not supported ({FEATURE_NOT_SUPPORTED})"
            ));
        }
    })
}

fn array4(bytes: &[u8]) -> Result<[u8; 4], String> {
    bytes
        .try_into()
        .map_err(|_| format!("expected 4 bytes, got {}", bytes.len()))
}

fn array8(bytes: &[u8]) -> Result<[u8; 8], String> {
    bytes
        .try_into()
        .map_err(|_| format!("expected 8 bytes, got {}", bytes.len()))
}

/// pgvector's `vector_recv`: int16 dimensions, int16 unused, then that many float4s.
fn decode_vector(bytes: &[u8]) -> Result<Vec<f32>, String> {
    let (header, elements) = bytes.split_at_checked(4).ok_or("vector header missing")?;
    let dimensions = usize::try_from(i16::from_be_bytes([header[0], header[1]]))
        .map_err(|_| "negative vector dimensions".to_owned())?;
    if elements.len() != dimensions * 4 {
        return Err(format!(
            "vector of {dimensions} dimensions has {} bytes of elements",
            elements.len()
        ));
    }
    Ok(elements
        .chunks_exact(4)
        .map(|chunk| f32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
        .collect())
}

/// `numeric_recv`, to the double Basalt keeps NUMERIC as: int16 digit count, int16 weight
/// (of the first base-10000 digit), int16 sign, int16 display scale, then the digits.
fn decode_numeric(bytes: &[u8]) -> Result<Value, String> {
    let (header, digits) = bytes.split_at_checked(8).ok_or("numeric header missing")?;
    let word = |at: usize| i16::from_be_bytes([header[at], header[at + 1]]);
    let count = usize::try_from(word(0)).map_err(|_| "negative digit count".to_owned())?;
    let weight = i32::from(word(2));
    let sign = word(4) as u16;
    if digits.len() != count * 2 {
        return Err("numeric digit count does not match its length".to_owned());
    }
    let scale = word(6);
    match sign {
        0xC000 => return Ok(Value::Real(f64::NAN)),
        0xD000 => return Ok(Value::Real(f64::INFINITY)),
        0xF000 => return Ok(Value::Real(f64::NEG_INFINITY)),
        0x0000 | 0x4000 => {}
        _ => return Err("invalid numeric sign".to_owned()),
    }
    // Through the decimal text, so the double is the correctly rounded one.
    let mut text = String::with_capacity(count * 4 + 8);
    for pair in digits.chunks_exact(2) {
        let digit = u16::from_be_bytes([pair[0], pair[1]]);
        if digit > 9999 {
            return Err("numeric digit out of range".to_owned());
        }
        let _ = write!(text, "{digit:04}");
    }
    let exponent = (weight + 1 - i32::try_from(count).unwrap_or(i32::MAX)) * 4;
    let text = format!(
        "{}0{text}e{exponent}",
        if sign == 0x4000 { "-" } else { "" }
    );
    // Exactly, at the sender's display scale, when NUMERIC holds it; else the nearest double.
    if let Ok(number) = text.parse::<Numeric>()
        && let Ok(scale) = u32::try_from(scale)
        && let Ok(number) = number.rescale(scale)
    {
        return Ok(Value::Numeric(number));
    }
    text.parse::<f64>()
        .map(Value::Real)
        .map_err(|_| "numeric out of range".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_binary_decodes_exactly() {
        // 12345.678: digits 1, 2345, 6780; weight 1; scale 3.
        let mut bytes = vec![0, 3, 0, 1, 0, 0, 0, 3];
        for digit in [1u16, 2345, 6780] {
            bytes.extend_from_slice(&digit.to_be_bytes());
        }
        assert_eq!(
            decode_numeric(&bytes).map(|v| v.to_string()),
            Ok("12345.678".to_owned())
        );
        // -0.05: digit 500, weight -1.
        let bytes = [0, 1, 0xff, 0xff, 0x40, 0, 0, 2, 0x01, 0xf4];
        assert_eq!(
            decode_numeric(&bytes).map(|v| v.to_string()),
            Ok("-0.05".to_owned())
        );
        assert!(decode_numeric(&[0, 1]).is_err());
    }

    #[test]
    fn malformed_binary_parameters_are_errors() {
        assert!(decode_parameter(Some(&[1, 2, 3]), true, oid::INT4, 0).is_err());
        assert!(decode_parameter(Some(&[0, 2, 0, 0, 1]), true, vector_oid(), 0).is_err());
        assert!(decode_parameter(Some(&[0xff]), false, oid::TEXT, 0).is_err());
        assert_eq!(
            decode_parameter(Some(&[0, 7]), true, oid::INT2, 0),
            Ok(Value::Integer(7))
        );
        assert_eq!(decode_parameter(None, true, oid::INT2, 0), Ok(Value::Null));
    }

    #[test]
    fn format_codes_expand_to_one_a_value() {
        assert_eq!(expand_formats(&[], 2, "parameter"), Ok(vec![false, false]));
        assert_eq!(expand_formats(&[1], 2, "parameter"), Ok(vec![true, true]));
        assert_eq!(
            expand_formats(&[0, 1], 2, "parameter"),
            Ok(vec![false, true])
        );
        assert!(expand_formats(&[0, 1, 1], 2, "parameter").is_err());
        assert!(expand_formats(&[2], 1, "parameter").is_err());
    }
}
