//! COPY's data formats, text and CSV, as PostgreSQL 15 reads and writes them.
//!
//! [`CopyReader`] takes COPY FROM STDIN's bytes as CopyData messages bring them — split
//! anywhere, a row across messages or many rows in one — and hands out whole records, each
//! with its line number, as one optional string per column. [`CopyWriter`] writes result
//! rows, already in PostgreSQL's text form ([`crate::encode::write_text`]), as COPY TO
//! STDOUT's lines.
//!
//! What it guarantees, as PostgreSQL does:
//! - text: the delimiter (tab) separates fields, `\N` (the NULL option) compared with the
//!   raw field is NULL, backslash escapes `\b \f \n \r \t \v \\`, octal `\ooo` and hex `\xhh`
//!   are decoded (any other escaped character stands for itself, a delimiter included), a
//!   line `\.` ends the data; lines end with `\n` or `\r\n`.
//! - CSV: quoted fields may hold delimiters, quotes (doubled, or after the ESCAPE character)
//!   and newlines; an unquoted field equal to the NULL option (empty by default) is NULL, a
//!   quoted one is the string (FORCE_NOT_NULL and FORCE_NULL change that per column).
//! - HEADER skips the first line on input and writes the column names on output.
//! - A malformed record is 22P04 (`missing data for column "x"`, `extra data after last
//!   expected column`, `unterminated CSV quoted field`), bytes that are not UTF-8 22021;
//!   never a panic, whatever the client sends. Converting a field to its column's type is
//!   the engine's work, not this module's.
//!
//! Reading costs one pass over the bytes to find a record's end (resumed where the last
//! message stopped, so a long record split over many messages is not rescanned) and one to
//! split it into fields.

use bytes::{BufMut, BytesMut};

use basalt::ValueRef;

use crate::copy_options::{ColumnSet, CopyOptions, Format};
use crate::error::{BAD_COPY_FILE_FORMAT, CHARACTER_NOT_IN_REPERTOIRE, WireError};

/// One record of COPY data: its line number (1-based, counting the header) and its fields.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) line: u64,
    pub(crate) fields: Vec<Option<String>>,
}

/// A malformed record: the error and the line it is on.
#[derive(Debug)]
pub(crate) struct BadRecord {
    pub(crate) line: u64,
    pub(crate) error: WireError,
}

/// Reads COPY FROM STDIN's data, incrementally.
#[derive(Debug)]
pub(crate) struct CopyReader {
    options: CopyOptions,
    /// The copied columns' names, for messages.
    columns: Vec<String>,
    force_not_null: Vec<bool>,
    force_null: Vec<bool>,
    buffer: Vec<u8>,
    /// Where the next record starts in `buffer`.
    start: usize,
    /// How far past `start` the search for the record's end has looked, and its state
    /// there: inside a CSV quote, or just after an escaping character.
    scanned: usize,
    in_quote: bool,
    escaped: bool,
    /// Records read, the header included.
    line: u64,
    /// The data ended with `\.`: the rest is ignored.
    ended: bool,
}

impl CopyReader {
    pub(crate) fn new(options: CopyOptions, columns: Vec<String>) -> Self {
        let force_not_null = columns
            .iter()
            .map(|column| options.force_not_null.contains(column))
            .collect();
        let force_null = columns
            .iter()
            .map(|column| options.force_null.contains(column))
            .collect();
        CopyReader {
            options,
            columns,
            force_not_null,
            force_null,
            buffer: Vec::new(),
            start: 0,
            scanned: 0,
            in_quote: false,
            escaped: false,
            line: 0,
            ended: false,
        }
    }

    /// Adds the bytes of one CopyData message.
    pub(crate) fn feed(&mut self, data: &[u8]) {
        if self.ended {
            return;
        }
        if self.start > 0 && self.start * 2 >= self.buffer.len() {
            // Drop the records already read, so the buffer holds about one message's worth.
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        self.buffer.extend_from_slice(data);
    }

    /// The line number of the record last returned or being read.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// The next whole record, or `None` when the bytes so far end mid-record (or the data
    /// ended). `at_end`: no more bytes come (CopyDone), so a last line without its newline
    /// is a record.
    pub(crate) fn next_record(&mut self, at_end: bool) -> Result<Option<Record>, BadRecord> {
        loop {
            if self.ended {
                return Ok(None);
            }
            let Some((end, next)) = self.find_record_end(at_end) else {
                return Ok(None);
            };
            let mut raw = &self.buffer[self.start..end];
            if raw.last() == Some(&b'\r') {
                raw = &raw[..raw.len() - 1];
            }
            let record_start = self.start;
            self.start = next;
            self.scanned = 0;
            self.in_quote = false;
            self.escaped = false;
            if raw == b"\\." {
                self.ended = true;
                return Ok(None);
            }
            self.line += 1;
            if self.line == 1 && self.options.header {
                continue;
            }
            let raw_end = record_start + raw.len();
            let line = self.line;
            let fields = match self.options.format {
                Format::Csv => self.split_csv(record_start, raw_end),
                // Binary data is read by `copy_binary`; text rules are the fallback.
                Format::Text | Format::Binary => self.split_text(record_start, raw_end),
            }
            .map_err(|error| BadRecord { line, error })?;
            self.check_count(&fields)
                .map_err(|error| BadRecord { line, error })?;
            return Ok(Some(Record { line, fields }));
        }
    }

    /// Where the record at `start` ends (its newline, or the buffer's end when `at_end`),
    /// and where the next one starts.
    fn find_record_end(&mut self, at_end: bool) -> Option<(usize, usize)> {
        let csv = self.options.format == Format::Csv;
        let (quote, escape) = (self.options.quote, self.options.escape);
        let mut at = self.start + self.scanned;
        while at < self.buffer.len() {
            let byte = self.buffer[at];
            if self.escaped {
                self.escaped = false;
            } else if csv {
                if self.in_quote {
                    if byte == escape && escape != quote {
                        self.escaped = true;
                    } else if byte == quote {
                        self.in_quote = false;
                    }
                } else if byte == quote {
                    self.in_quote = true;
                } else if byte == b'\n' {
                    return Some((at, at + 1));
                }
            } else if byte == b'\\' {
                // In text, a backslash makes the next byte data, even a newline.
                self.escaped = true;
            } else if byte == b'\n' {
                return Some((at, at + 1));
            }
            at += 1;
        }
        self.scanned = at - self.start;
        if at_end && self.start < self.buffer.len() {
            return Some((self.buffer.len(), self.buffer.len()));
        }
        None
    }

    /// A text-format record's fields.
    fn split_text(&self, start: usize, end: usize) -> Result<Vec<Option<String>>, WireError> {
        let raw = &self.buffer[start..end];
        let delimiter = self.options.delimiter;
        let null = self.options.null.as_bytes();
        let mut fields = Vec::with_capacity(self.columns.len());
        let mut field_start = 0;
        let mut at = 0;
        loop {
            if at == raw.len() || raw[at] == delimiter {
                let field = &raw[field_start..at];
                fields.push(if field == null {
                    None
                } else {
                    Some(unescape_text(field)?)
                });
                if at == raw.len() {
                    return Ok(fields);
                }
                at += 1;
                field_start = at;
            } else if raw[at] == b'\\' {
                at = (at + 2).min(raw.len());
            } else {
                at += 1;
            }
        }
    }

    /// A CSV record's fields.
    fn split_csv(&self, start: usize, end: usize) -> Result<Vec<Option<String>>, WireError> {
        let raw = &self.buffer[start..end];
        let CopyOptions {
            delimiter,
            quote,
            escape,
            ..
        } = self.options;
        let null = self.options.null.as_bytes();
        let mut fields = Vec::with_capacity(self.columns.len());
        let mut at = 0;
        loop {
            let mut value = Vec::new();
            let mut quoted = false;
            let mut in_quote = false;
            while at < raw.len() {
                let byte = raw[at];
                if in_quote {
                    let next = raw.get(at + 1).copied();
                    if byte == escape && (next == Some(quote) || next == Some(escape)) {
                        value.push(next.unwrap_or(byte));
                        at += 2;
                        continue;
                    }
                    if byte == quote {
                        in_quote = false;
                    } else {
                        value.push(byte);
                    }
                } else if byte == delimiter {
                    break;
                } else if byte == quote {
                    in_quote = true;
                    quoted = true;
                } else {
                    value.push(byte);
                }
                at += 1;
            }
            if in_quote {
                return Err(WireError::new(
                    BAD_COPY_FILE_FORMAT,
                    "unterminated CSV quoted field",
                ));
            }
            let column = fields.len();
            let is_null = value == null
                && if quoted {
                    self.force_null.get(column).copied().unwrap_or(false)
                } else {
                    !self.force_not_null.get(column).copied().unwrap_or(false)
                };
            fields.push(if is_null { None } else { Some(utf8(value)?) });
            if at >= raw.len() {
                return Ok(fields);
            }
            // Past the delimiter.
            at += 1;
        }
    }

    fn check_count(&self, fields: &[Option<String>]) -> Result<(), WireError> {
        use std::cmp::Ordering;
        match fields.len().cmp(&self.columns.len()) {
            Ordering::Equal => Ok(()),
            Ordering::Greater => Err(WireError::new(
                BAD_COPY_FILE_FORMAT,
                "extra data after last expected column",
            )),
            Ordering::Less => Err(WireError::new(
                BAD_COPY_FILE_FORMAT,
                format!(
                    "missing data for column \"{}\"",
                    self.columns.get(fields.len()).map_or("", String::as_str)
                ),
            )),
        }
    }
}

/// A text-format field with its backslash escapes decoded.
fn unescape_text(field: &[u8]) -> Result<String, WireError> {
    if !field.contains(&b'\\') {
        return utf8(field.to_vec());
    }
    let mut out = Vec::with_capacity(field.len());
    let mut at = 0;
    while at < field.len() {
        let byte = field[at];
        at += 1;
        if byte != b'\\' || at == field.len() {
            out.push(byte);
            continue;
        }
        let next = field[at];
        at += 1;
        match next {
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'0'..=b'7' => {
                let mut value = u32::from(next - b'0');
                for _ in 0..2 {
                    match field.get(at) {
                        Some(digit @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(digit - b'0');
                            at += 1;
                        }
                        _ => break,
                    }
                }
                // PostgreSQL keeps the low byte of `\777`.
                out.push((value & 0xff) as u8);
            }
            b'x' if field.get(at).is_some_and(u8::is_ascii_hexdigit) => {
                let mut value = 0u8;
                for _ in 0..2 {
                    match field
                        .get(at)
                        .and_then(|digit| char::from(*digit).to_digit(16))
                    {
                        Some(digit) => {
                            value = value * 16 + digit as u8;
                            at += 1;
                        }
                        None => break,
                    }
                }
                out.push(value);
            }
            other => out.push(other),
        }
    }
    utf8(out)
}

fn utf8(bytes: Vec<u8>) -> Result<String, WireError> {
    String::from_utf8(bytes).map_err(|error| {
        let at = error.utf8_error().valid_up_to();
        let bytes = error.into_bytes();
        let shown: String = bytes[at..]
            .iter()
            .take(2)
            .map(|byte| format!("{byte:02x}"))
            .collect();
        WireError::new(
            CHARACTER_NOT_IN_REPERTOIRE,
            format!("invalid byte sequence for encoding \"UTF8\": 0x{shown}"),
        )
    })
}

/// Appends one row in COPY's default text format, as `COPY ... FROM stdin;` in a psql script
/// reads it: each value in PostgreSQL's text form ([`crate::encode::write_text`]), escaped
/// as PostgreSQL's `CopyAttributeOutText` escapes it, tab-separated, `\N` for NULL, ending
/// with a newline. `basalt dump --postgres` writes its data with it, so a dump's rows and
/// COPY TO STDOUT's are the same bytes.
pub fn write_copy_text_row<'a>(values: impl IntoIterator<Item = ValueRef<'a>>, out: &mut Vec<u8>) {
    let writer = CopyWriter {
        options: CopyOptions {
            format: Format::Text,
            delimiter: b'\t',
            null: "\\N".to_string(),
            header: false,
            quote: b'"',
            escape: b'"',
            force_quote: ColumnSet::None,
            force_not_null: ColumnSet::None,
            force_null: ColumnSet::None,
        },
        force_quote: Vec::new(),
    };
    let mut line = BytesMut::new();
    let mut text = BytesMut::new();
    for (index, value) in values.into_iter().enumerate() {
        if index > 0 {
            line.put_u8(b'\t');
        }
        if matches!(value, ValueRef::Null) {
            line.put_slice(b"\\N");
        } else {
            text.clear();
            crate::encode::write_text(value, &mut text);
            writer.text_field(&text, &mut line);
        }
    }
    line.put_u8(b'\n');
    out.extend_from_slice(&line);
}

/// Writes COPY TO STDOUT's lines.
#[derive(Debug)]
pub(crate) struct CopyWriter {
    options: CopyOptions,
    /// Per column: FORCE_QUOTE applies.
    force_quote: Vec<bool>,
}

impl CopyWriter {
    pub(crate) fn new(options: CopyOptions, columns: &[String]) -> Self {
        let force_quote = columns
            .iter()
            .map(|column| options.force_quote.contains(column))
            .collect();
        CopyWriter {
            options,
            force_quote,
        }
    }

    /// The header line: the column names.
    pub(crate) fn header(&self, columns: &[String], out: &mut BytesMut) {
        for (index, name) in columns.iter().enumerate() {
            if index > 0 {
                out.put_u8(self.options.delimiter);
            }
            self.field(name.as_bytes(), false, columns.len(), out);
        }
        out.put_u8(b'\n');
    }

    /// One field: `None` is NULL, else the value's text form. `index` is its column.
    pub(crate) fn value(
        &self,
        index: usize,
        text: Option<&[u8]>,
        columns: usize,
        out: &mut BytesMut,
    ) {
        if index > 0 {
            out.put_u8(self.options.delimiter);
        }
        match text {
            None => out.put_slice(self.options.null.as_bytes()),
            Some(text) => {
                let force = self.force_quote.get(index).copied().unwrap_or(false);
                self.field(text, force, columns, out);
            }
        }
    }

    /// Ends a row.
    pub(crate) fn end_row(out: &mut BytesMut) {
        out.put_u8(b'\n');
    }

    fn field(&self, text: &[u8], force_quote: bool, columns: usize, out: &mut BytesMut) {
        match self.options.format {
            Format::Csv => self.csv_field(text, force_quote, columns, out),
            // Binary rows are written by `copy_binary`; text rules are the fallback.
            Format::Text | Format::Binary => self.text_field(text, out),
        }
    }

    /// PostgreSQL's `CopyAttributeOutText`.
    fn text_field(&self, text: &[u8], out: &mut BytesMut) {
        let delimiter = self.options.delimiter;
        for &byte in text {
            let escaped = match byte {
                8 => Some(b'b'),
                12 => Some(b'f'),
                b'\n' => Some(b'n'),
                b'\r' => Some(b'r'),
                b'\t' => Some(b't'),
                11 => Some(b'v'),
                b'\\' => Some(b'\\'),
                byte if byte == delimiter => Some(byte),
                _ => None,
            };
            match escaped {
                Some(letter) => {
                    out.put_u8(b'\\');
                    out.put_u8(letter);
                }
                None => out.put_u8(byte),
            }
        }
    }

    /// PostgreSQL's `CopyAttributeOutCSV`: quoted when forced, when it could be read back as
    /// NULL or as the end marker, or when it holds the delimiter, the quote or a line break.
    fn csv_field(&self, text: &[u8], force_quote: bool, columns: usize, out: &mut BytesMut) {
        let CopyOptions {
            delimiter,
            quote,
            escape,
            ..
        } = self.options;
        let needs_quote = force_quote
            || text == self.options.null.as_bytes()
            || (columns == 1 && text == b"\\.")
            || text
                .iter()
                .any(|&byte| byte == delimiter || byte == quote || byte == b'\n' || byte == b'\r');
        if !needs_quote {
            out.put_slice(text);
            return;
        }
        out.put_u8(quote);
        for &byte in text {
            if byte == quote || byte == escape {
                out.put_u8(escape);
            }
            out.put_u8(byte);
        }
        out.put_u8(quote);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_statement::parse_copy;

    fn new_reader(options: &str, columns: &[&str]) -> CopyReader {
        let copy = parse_copy(&format!("copy t from stdin {options}")).expect("options");
        CopyReader::new(
            copy.options,
            columns.iter().map(|name| (*name).to_owned()).collect(),
        )
    }

    /// Every record of `data` fed `step` bytes at a time.
    fn read_all(reader: &mut CopyReader, data: &[u8], step: usize) -> Vec<Vec<Option<String>>> {
        let mut records = Vec::new();
        for chunk in data.chunks(step) {
            reader.feed(chunk);
            while let Some(record) = reader.next_record(false).expect("record") {
                records.push(record.fields);
            }
        }
        while let Some(record) = reader.next_record(true).expect("record") {
            records.push(record.fields);
        }
        records
    }

    fn some(text: &str) -> Option<String> {
        Some(text.to_owned())
    }

    #[test]
    fn text_escapes_nulls_and_the_end_marker() {
        let data = b"1\t\\N\ta\\tb\\\\c\\nd\r\n2\t\\101\\x42\\\t\t\xc3\xa9\n\\.\nignored\n";
        for step in [1, 2, 3, 7, 100] {
            let mut reader = new_reader("", &["a", "b", "c"]);
            assert_eq!(
                read_all(&mut reader, data, step),
                vec![
                    vec![some("1"), None, some("a\tb\\c\nd")],
                    vec![some("2"), some("AB\t"), some("é")],
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn csv_quotes_nulls_and_headers() {
        let data = b"a,b,c\n1,,\"\"\n\"x,\"\"y\"\"\nz\",plain,\"\"\"\"\nlast,no,newline";
        for step in [1, 4, 5, 1000] {
            let mut reader = new_reader("csv header", &["a", "b", "c"]);
            assert_eq!(
                read_all(&mut reader, data, step),
                vec![
                    vec![some("1"), None, some("")],
                    vec![some("x,\"y\"\nz"), some("plain"), some("\"")],
                    vec![some("last"), some("no"), some("newline")],
                ]
            );
        }
    }

    #[test]
    fn malformed_records_say_which_line() {
        let mut reader = new_reader("(format csv)", &["a", "b"]);
        reader.feed(b"1,2\n3\n");
        assert!(reader.next_record(false).expect("first").is_some());
        let bad = reader.next_record(false).expect_err("missing column");
        assert_eq!((bad.line, bad.error.code), (2, "22P04"));
        assert_eq!(bad.error.message, "missing data for column \"b\"");
        let mut reader = new_reader("", &["a"]);
        reader.feed(b"1\t2\n");
        let bad = reader.next_record(false).expect_err("extra column");
        assert_eq!(bad.error.message, "extra data after last expected column");
        let mut reader = new_reader("csv", &["a"]);
        reader.feed(b"\"open");
        let bad = reader.next_record(true).expect_err("unterminated");
        assert_eq!(bad.error.code, "22P04");
    }

    #[test]
    fn output_escapes_and_quotes() {
        let copy = parse_copy("copy t to stdout").expect("text");
        let writer = CopyWriter::new(copy.options, &["a".to_owned(), "b".to_owned()]);
        let mut out = BytesMut::new();
        writer.value(0, Some(b"a\tb\\c\nd"), 2, &mut out);
        writer.value(1, None, 2, &mut out);
        CopyWriter::end_row(&mut out);
        assert_eq!(&out[..], b"a\\tb\\\\c\\nd\t\\N\n");
        let copy = parse_copy("copy t to stdout (format csv, force_quote (b))").expect("csv");
        let writer = CopyWriter::new(copy.options, &["a".to_owned(), "b".to_owned()]);
        let mut out = BytesMut::new();
        writer.value(0, Some(b""), 2, &mut out);
        writer.value(1, Some(b"x"), 2, &mut out);
        CopyWriter::end_row(&mut out);
        writer.value(0, None, 2, &mut out);
        writer.value(1, Some(b"say \"hi\", ok"), 2, &mut out);
        CopyWriter::end_row(&mut out);
        assert_eq!(&out[..], b"\"\",\"x\"\n,\"say \"\"hi\"\", ok\"\n");
    }
}
