//! COPY's binary format, as PostgreSQL 15 reads and writes it: an 11-byte signature
//! (`PGCOPY\n\377\r\n\0`), an int32 flags field, an int32 header-extension length and that
//! many bytes; then per row an int16 field count and per field an int32 length (-1 for NULL)
//! and the value in its type's binary (`send` / `recv`) form; then an int16 -1 trailer.
//!
//! [`BinaryReader`] takes COPY FROM STDIN's bytes as CopyData messages bring them — split
//! anywhere — and hands out whole rows as values, each field decoded by its column's type
//! with the same decoder as binary Bind parameters ([`crate::encode::decode_binary`]).
//! [`write_header`], [`write_row`] and [`write_trailer`] write COPY TO STDOUT's side with
//! the binary encoder of result rows.
//!
//! What it guarantees: a malformed file (a wrong signature, OIDs in the rows, a row with
//! another number of fields, a negative length other than -1, data that ends inside a row)
//! is 22P04 and a field its type cannot decode 22P03, each with its row number, never a
//! panic, whatever the client sends. asyncpg's `copy_records_to_table` and psycopg's binary
//! `cursor.copy` write this format.

use basalt::{DataType, Value, ValueRef};
use bytes::{BufMut, BytesMut};

use crate::copy_format::BadRecord;
use crate::encode::{decode_binary, oid, type_oid, write_binary};
use crate::error::{BAD_COPY_FILE_FORMAT, INVALID_BINARY_REPRESENTATION, WireError};

/// The binary format's signature.
const SIGNATURE: &[u8; 11] = b"PGCOPY\n\xff\r\n\0";
/// The flags bit saying each row carries an OID (PostgreSQL before 12 wrote it).
const HAS_OIDS: u32 = 1 << 16;

/// Reads binary COPY FROM STDIN data, incrementally.
#[derive(Debug)]
pub(crate) struct BinaryReader {
    /// Each copied column's name (for messages) and type OID (how its fields decode).
    columns: Vec<(String, u32)>,
    buffer: Vec<u8>,
    /// Where the unread data starts in `buffer`.
    start: usize,
    header_read: bool,
    /// The trailer was read: the rest is ignored.
    ended: bool,
    /// Rows read.
    rows: u64,
}

fn bad(message: impl Into<String>) -> WireError {
    WireError::new(BAD_COPY_FILE_FORMAT, message)
}

impl BinaryReader {
    /// A reader for rows of `columns` (names) of the types `types` (the INSERT's parameters).
    pub(crate) fn new(columns: Vec<String>, types: &[DataType]) -> Self {
        BinaryReader {
            columns: columns
                .into_iter()
                .zip(types.iter().map(|data_type| type_oid(*data_type)))
                .collect(),
            buffer: Vec::new(),
            start: 0,
            header_read: false,
            ended: false,
            rows: 0,
        }
    }

    /// Adds the bytes of one CopyData message.
    pub(crate) fn feed(&mut self, data: &[u8]) {
        if self.ended {
            return;
        }
        if self.start > 0 && self.start * 2 >= self.buffer.len() {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        self.buffer.extend_from_slice(data);
    }

    /// The number of the row being read (1-based), for an error's context.
    pub(crate) fn line(&self) -> u64 {
        self.rows + 1
    }

    /// The next whole row, or `None` when the bytes so far end inside one (or the data
    /// ended). `at_end`: no more bytes come (CopyDone), so a row cut short is an error.
    pub(crate) fn next_record(&mut self, at_end: bool) -> Result<Option<Vec<Value>>, BadRecord> {
        let line = self.rows + 1;
        let at_line = |error| BadRecord { line, error };
        if self.ended {
            return Ok(None);
        }
        if !self.header_read {
            match self.read_header().map_err(at_line)? {
                Some(()) => self.header_read = true,
                None if at_end => return Err(at_line(bad("unexpected EOF in COPY data"))),
                None => return Ok(None),
            }
        }
        let Some((fields, next)) = self.scan_row().map_err(at_line)? else {
            if at_end && self.start < self.buffer.len() {
                return Err(at_line(bad("unexpected EOF in COPY data")));
            }
            return Ok(None);
        };
        let Some(fields) = fields else {
            // The trailer.
            self.ended = true;
            self.start = next;
            return Ok(None);
        };
        let mut values = Vec::with_capacity(fields.len());
        for ((name, oid), field) in self.columns.iter().zip(&fields) {
            values.push(match field {
                None => Value::Null,
                Some(range) => {
                    let bytes = self.buffer.get(range.clone()).unwrap_or_default();
                    decode_field(bytes, *oid).map_err(|message| {
                        at_line(WireError::new(
                            INVALID_BINARY_REPRESENTATION,
                            format!("incorrect binary data format in column \"{name}\": {message}"),
                        ))
                    })?
                }
            });
        }
        self.start = next;
        self.rows += 1;
        Ok(Some(values))
    }

    /// Reads the header when all of it is there.
    fn read_header(&mut self) -> Result<Option<()>, WireError> {
        let data = &self.buffer[self.start..];
        if data.len() < SIGNATURE.len() + 8 {
            // A prefix that is already not the signature need not wait for more bytes.
            let prefix = data.len().min(SIGNATURE.len());
            if data[..prefix] != SIGNATURE[..prefix] {
                return Err(bad("COPY file signature not recognized"));
            }
            return Ok(None);
        }
        if data[..SIGNATURE.len()] != SIGNATURE[..] {
            return Err(bad("COPY file signature not recognized"));
        }
        let flags = read_u32(data, SIGNATURE.len());
        if flags & HAS_OIDS != 0 {
            return Err(bad("COPY with OIDs is not supported"));
        }
        if flags & 0xffff_0000 & !HAS_OIDS != 0 {
            return Err(bad("unrecognized critical flags in COPY file header"));
        }
        let extension = read_u32(data, SIGNATURE.len() + 4) as usize;
        let header = SIGNATURE.len() + 8;
        if extension > data.len() - header {
            if extension > (1 << 30) {
                return Err(bad("invalid COPY file header (wrong length)"));
            }
            return Ok(None);
        }
        self.start += header + extension;
        Ok(Some(()))
    }

    /// Finds the next row's fields (byte ranges in `buffer`, `None` for NULL) and where the
    /// row after it starts; `Some((None, next))` for the trailer; `None` when the row is not
    /// all there yet.
    #[allow(
        clippy::type_complexity,
        reason = "one private helper; a named type would not say more"
    )]
    fn scan_row(
        &self,
    ) -> Result<Option<(Option<Vec<Option<std::ops::Range<usize>>>>, usize)>, WireError> {
        let data = &self.buffer;
        let mut at = self.start;
        let Some(count) = data.get(at..at + 2) else {
            return Ok(None);
        };
        let count = i16::from_be_bytes([count[0], count[1]]);
        at += 2;
        if count == -1 {
            return Ok(Some((None, at)));
        }
        if usize::try_from(count).ok() != Some(self.columns.len()) {
            return Err(bad(format!(
                "row field count is {count}, expected {}",
                self.columns.len()
            )));
        }
        let mut fields = Vec::with_capacity(self.columns.len());
        for _ in 0..self.columns.len() {
            let Some(length) = data.get(at..at + 4) else {
                return Ok(None);
            };
            let length = i32::from_be_bytes([length[0], length[1], length[2], length[3]]);
            at += 4;
            if length == -1 {
                fields.push(None);
                continue;
            }
            let Ok(length) = usize::try_from(length) else {
                return Err(bad("invalid field size"));
            };
            if data.len() - at < length {
                return Ok(None);
            }
            fields.push(Some(at..at + length));
            at += length;
        }
        Ok(Some((Some(fields), at)))
    }
}

/// One field of a column of type `oid`. Binary COPY sends no type per field, and a client
/// writes what it knows of the column: PostgreSQL's `integer` and `smallint` columns take
/// int4 and int2, `real` float4 — which Basalt's 64-bit integers and doubles hold exactly, so
/// those widths are read too (by their length, which says which one was sent).
fn decode_field(bytes: &[u8], oid: u32) -> Result<Value, String> {
    match (oid, bytes) {
        (oid::INT8, &[a, b]) => Ok(Value::Integer(i64::from(i16::from_be_bytes([a, b])))),
        (oid::INT8, &[a, b, c, d]) => {
            Ok(Value::Integer(i64::from(i32::from_be_bytes([a, b, c, d]))))
        }
        (oid::FLOAT8, &[a, b, c, d]) => {
            Ok(Value::Real(f64::from(f32::from_be_bytes([a, b, c, d]))))
        }
        _ => decode_binary(bytes, oid),
    }
}

fn read_u32(data: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
}

/// The header COPY TO STDOUT writes before the rows: the signature, no flags, no extension.
pub(crate) fn write_header(out: &mut BytesMut) {
    out.put_slice(SIGNATURE);
    out.put_u32(0);
    out.put_u32(0);
}

/// One row of `values`, each in the binary form of its column's declared type.
pub(crate) fn write_row<'a>(
    values: impl ExactSizeIterator<Item = (ValueRef<'a>, DataType)>,
    out: &mut BytesMut,
) {
    out.put_i16(i16::try_from(values.len()).unwrap_or(i16::MAX));
    for (value, declared) in values {
        if value == ValueRef::Null {
            out.put_i32(-1);
            continue;
        }
        let at = out.len();
        out.put_i32(0);
        write_binary(value, declared, out);
        let length = i32::try_from(out.len() - at - 4).unwrap_or(i32::MAX);
        out[at..at + 4].copy_from_slice(&length.to_be_bytes());
    }
}

/// The trailer after the last row.
pub(crate) fn write_trailer(out: &mut BytesMut) {
    out.put_i16(-1);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader() -> BinaryReader {
        BinaryReader::new(
            vec!["id".to_owned(), "name".to_owned()],
            &[DataType::Integer, DataType::Text(None)],
        )
    }

    fn sample() -> Vec<u8> {
        let mut out = BytesMut::new();
        write_header(&mut out);
        write_row(
            [
                (ValueRef::Integer(7), DataType::Integer),
                (ValueRef::Text("seven"), DataType::Text(None)),
            ]
            .into_iter(),
            &mut out,
        );
        write_row(
            [
                (ValueRef::Integer(-1), DataType::Integer),
                (ValueRef::Null, DataType::Text(None)),
            ]
            .into_iter(),
            &mut out,
        );
        write_trailer(&mut out);
        out.to_vec()
    }

    #[test]
    fn rows_written_read_back_in_any_split() {
        let data = sample();
        for step in [1, 2, 3, 7, data.len()] {
            let mut reader = reader();
            let mut rows = Vec::new();
            for chunk in data.chunks(step) {
                reader.feed(chunk);
                while let Some(row) = reader.next_record(false).expect("valid data") {
                    rows.push(row);
                }
            }
            assert!(reader.next_record(true).expect("valid end").is_none());
            assert_eq!(
                rows,
                vec![
                    vec![Value::Integer(7), Value::Text("seven".to_owned())],
                    vec![Value::Integer(-1), Value::Null],
                ],
                "split every {step} bytes"
            );
        }
    }

    #[test]
    fn malformed_data_is_22p04_with_its_row() {
        let code = |data: &[u8]| {
            let mut reader = reader();
            reader.feed(data);
            loop {
                match reader.next_record(true) {
                    Ok(Some(_)) => continue,
                    Ok(None) => return None,
                    Err(bad) => return Some((bad.error.code, bad.line)),
                }
            }
        };
        assert_eq!(code(b"PGCOPX\n"), Some(("22P04", 1)));
        let data = sample();
        // Cut inside the second row.
        assert_eq!(code(&data[..data.len() - 6]), Some(("22P04", 2)));
        // A row with one field.
        let mut one = BytesMut::new();
        write_header(&mut one);
        one.put_i16(1);
        one.put_i32(-1);
        assert_eq!(code(&one), Some(("22P04", 1)));
        // A negative length other than -1.
        let mut negative = BytesMut::new();
        write_header(&mut negative);
        negative.put_i16(2);
        negative.put_i32(-5);
        assert_eq!(code(&negative), Some(("22P04", 1)));
        // Narrower integers and floats, as a client writes PostgreSQL's int4, int2 and
        // float4 columns, are read by their width.
        let mut narrow = BytesMut::new();
        write_header(&mut narrow);
        narrow.put_i16(2);
        narrow.put_i32(4);
        narrow.put_i32(-70_000);
        narrow.put_i32(-1);
        narrow.put_i16(2);
        narrow.put_i32(2);
        narrow.put_i16(-3);
        narrow.put_i32(-1);
        let mut reader = reader();
        reader.feed(&narrow);
        assert_eq!(
            reader.next_record(true).expect("int4").expect("row")[0],
            Value::Integer(-70_000)
        );
        assert_eq!(
            reader.next_record(true).expect("int2").expect("row")[0],
            Value::Integer(-3)
        );
        // An integer field of three bytes.
        let mut short = BytesMut::new();
        write_header(&mut short);
        short.put_i16(2);
        short.put_i32(3);
        short.put_slice(&[0, 0, 1]);
        short.put_i32(-1);
        assert_eq!(code(&short), Some(("22P03", 1)));
        // OIDs in the rows.
        let mut oids = BytesMut::new();
        oids.put_slice(SIGNATURE);
        oids.put_u32(HAS_OIDS);
        oids.put_u32(0);
        assert_eq!(code(&oids), Some(("22P04", 1)));
    }
}
