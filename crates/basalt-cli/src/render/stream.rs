//! The streaming modes: `csv`, `tsv`, `json`, `jsonl` and `line`. Each row is written as it
//! is read, so exports of any size run in constant memory.
//!
//! csv and tsv quote fields the way RFC 4180 does (only where needed), so that `.import`
//! reads them back; JSON keeps numbers and booleans as JSON values and NULL as `null`.

use std::io::Write;

use basalt::{Rows, ValueRef};

use super::{Column, Mode, RenderError, Style, value_text};

pub(super) fn write(
    out: &mut dyn Write,
    rows: &mut Rows<'_>,
    columns: &[Column],
    style: &Style,
) -> Result<(), RenderError> {
    match style.mode {
        Mode::Csv => write_delimited(out, rows, columns, style, b','),
        Mode::Tsv => write_delimited(out, rows, columns, style, b'\t'),
        Mode::Json => write_json(out, rows, columns, false),
        Mode::Jsonl => write_json(out, rows, columns, true),
        _ => write_lines(out, rows, columns, style),
    }
}

fn write_delimited(
    out: &mut dyn Write,
    rows: &mut Rows<'_>,
    columns: &[Column],
    style: &Style,
    delimiter: u8,
) -> Result<(), RenderError> {
    let mut writer = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    let io = |error: csv::Error| RenderError::Io(error.into());
    if style.headers {
        writer
            .write_record(columns.iter().map(|column| column.name.as_str()))
            .map_err(io)?;
    }
    let mut record = Vec::with_capacity(columns.len());
    while let Some(row) = rows.next()? {
        record.clear();
        for index in 0..columns.len() {
            record.push(value_text(row.get_ref(index)?, style.null_text()));
        }
        writer.write_record(&record).map_err(io)?;
    }
    writer.flush()?;
    Ok(())
}

/// `json`: `[` then one object per line, comma-separated, then `]`. `jsonl`: one object per
/// line and nothing else.
fn write_json(
    out: &mut dyn Write,
    rows: &mut Rows<'_>,
    columns: &[Column],
    lines: bool,
) -> Result<(), RenderError> {
    let keys: Vec<String> = columns.iter().map(|c| json_string(&c.name)).collect();
    let mut first = true;
    if !lines {
        write!(out, "[")?;
    }
    while let Some(row) = rows.next()? {
        let mut object = String::from("{");
        for (index, key) in keys.iter().enumerate() {
            if index > 0 {
                object.push_str(", ");
            }
            object.push_str(key);
            object.push_str(": ");
            object.push_str(&json_value(row.get_ref(index)?));
        }
        object.push('}');
        if lines {
            writeln!(out, "{object}")?;
        } else {
            write!(out, "{}{object}", if first { "\n  " } else { ",\n  " })?;
        }
        first = false;
    }
    if !lines {
        writeln!(out, "{}]", if first { "" } else { "\n" })?;
    }
    Ok(())
}

/// A value as JSON: numbers, booleans and JSON values bare, NULL as `null`, the rest (text,
/// blobs in `\x..` hex, dates, timestamps, and the non-finite reals JSON cannot spell) as
/// strings.
fn json_value(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Null => "null".to_string(),
        ValueRef::Boolean(b) => b.to_string(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) if r.is_finite() => value_text(value, ""),
        // JSON columns are already JSON: nested as they are, not quoted as strings.
        ValueRef::Json(text) | ValueRef::Jsonb(text) => text.trim().to_string(),
        other => json_string(&value_text(other, "")),
    }
}

fn json_string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for ch in text.chars() {
        match ch {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            ch if u32::from(ch) < 0x20 => quoted.push_str(&format!("\\u{:04x}", u32::from(ch))),
            ch => quoted.push(ch),
        }
    }
    quoted.push('"');
    quoted
}

/// `line`: each column on its own line as `name = value`, names right-aligned, a blank line
/// between rows.
fn write_lines(
    out: &mut dyn Write,
    rows: &mut Rows<'_>,
    columns: &[Column],
    style: &Style,
) -> Result<(), RenderError> {
    let width = columns
        .iter()
        .map(|c| unicode_width::UnicodeWidthStr::width(c.name.as_str()))
        .max()
        .unwrap_or(0);
    let mut first = true;
    while let Some(row) = rows.next()? {
        if !first {
            writeln!(out)?;
        }
        first = false;
        for (index, column) in columns.iter().enumerate() {
            let pad = width - unicode_width::UnicodeWidthStr::width(column.name.as_str());
            let value = value_text(row.get_ref(index)?, style.null_text());
            writeln!(out, "{}{} = {value}", " ".repeat(pad), column.name)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes() {
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        assert_eq!(json_value(ValueRef::Real(f64::NAN)), "\"NaN\"");
        assert_eq!(json_value(ValueRef::Real(1.5)), "1.5");
        assert_eq!(json_value(ValueRef::Null), "null");
        assert_eq!(json_value(ValueRef::Jsonb("{\"a\": [1]}")), "{\"a\": [1]}");
        assert_eq!(json_value(ValueRef::Json(" [1, 2] ")), "[1, 2]");
        assert_eq!(json_value(ValueRef::Blob(&[1, 255])), "\"\\\\x01ff\"");
    }
}
