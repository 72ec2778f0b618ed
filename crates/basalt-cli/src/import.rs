//! `.import FILE TABLE`: load a CSV or TSV file with a header line.
//!
//! If TABLE exists, the header names its columns (matched case-insensitively; when they
//! match none, the file's columns are taken in the table's order if the counts agree) and
//! each field is cast to the column's type by the engine — `CAST(? AS INTEGER)` — so a field
//! is accepted exactly when SQL would accept it. Otherwise TABLE is created first, each column
//! INTEGER, REAL or TEXT by what all its fields look like (a first pass over the file; numbers
//! with leading zeros, like postcodes, stay text).
//!
//! All rows load in one transaction through one prepared INSERT (a savepoint inside a
//! transaction the user already opened). Each INSERT runs under the engine's per-statement
//! savepoint, so a bad row — a field that does not cast, a constraint it breaks, the wrong
//! number of fields — is rejected alone, with its line number and reason in the summary,
//! and the rest load. An empty field is NULL, except in a TEXT column, where it is ''.
//! Ctrl-C undoes the whole import. Large files show a progress bar on a terminal.

use std::fs::File;
use std::io::{self, BufReader, IsTerminal};
use std::path::Path;

use basalt::{DataType, ErrorKind, SchemaKind, Value, quote_identifier};
use indicatif::{ProgressBar, ProgressStyle};

use crate::session::{Failure, Session};

/// Files at least this large get a progress bar (when stderr is a terminal).
const PROGRESS_THRESHOLD: u64 = 8 << 20;
/// Rejected rows listed in the summary; the rest are counted.
const REJECTIONS_SHOWN: usize = 20;

struct Request<'a> {
    file: &'a str,
    table: &'a str,
    delimiter: u8,
}

fn parse_request(args: &[String]) -> Result<Request<'_>, Failure> {
    let mut delimiter = None;
    let mut positional = Vec::new();
    for arg in args {
        match arg.as_str() {
            "--csv" => delimiter = Some(b','),
            "--tsv" => delimiter = Some(b'\t'),
            flag if flag.starts_with("--") => {
                return Err(Failure::Message(format!(
                    "unknown .import option {flag} (use --csv or --tsv)"
                )));
            }
            _ => positional.push(arg.as_str()),
        }
    }
    let [file, table] = positional[..] else {
        return Err(Failure::Message(
            "usage: .import FILE TABLE [--csv | --tsv]".into(),
        ));
    };
    let by_extension = Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("tsv") || e.eq_ignore_ascii_case("tab"));
    Ok(Request {
        file,
        table,
        delimiter: delimiter.unwrap_or(if by_extension { b'\t' } else { b',' }),
    })
}

/// Where each field of a line goes.
struct Target {
    column: String,
    data_type: DataType,
}

/// A line that did not load.
struct Rejection {
    line: u64,
    reason: String,
}

pub fn import(session: &mut Session, args: &[String]) -> Result<(), Failure> {
    let request = parse_request(args)?;
    let _running = session.ctrl_c.running();
    let mut reader = open_reader(&request)?;
    let header = read_header(&mut reader, &request)?;

    let existing = session
        .conn
        .schema_objects()?
        .into_iter()
        .filter(|o| o.kind == SchemaKind::Table && o.name.eq_ignore_ascii_case(request.table))
        .min_by_key(|o| o.name != request.table)
        .map(|o| o.name);
    let (table, targets, create) = match existing {
        Some(table) => {
            let targets = existing_targets(session, &table, &header)?;
            (table, targets, None)
        }
        None => {
            let table = request.table.to_ascii_lowercase();
            let types = infer_types(&request, header.len(), session)?;
            let targets: Vec<Target> = header
                .iter()
                .zip(types)
                .map(|(column, data_type)| Target {
                    column: column.clone(),
                    data_type,
                })
                .collect();
            let columns: Vec<String> = targets
                .iter()
                .map(|t| {
                    format!(
                        "{} {}",
                        quote_identifier(&t.column),
                        t.data_type.name().to_uppercase()
                    )
                })
                .collect();
            let create = format!(
                "CREATE TABLE {} ({})",
                quote_identifier(&table),
                columns.join(", ")
            );
            (table, targets, Some(create))
        }
    };

    // Our own transaction, or a savepoint inside the user's.
    let nested = session.conn.in_transaction();
    session.conn.execute(
        if nested {
            "SAVEPOINT basalt_import"
        } else {
            "BEGIN"
        },
        (),
    )?;
    let loaded = load(
        session,
        &request,
        &mut reader,
        &table,
        &targets,
        create.as_deref(),
    );
    let finished = match &loaded {
        Ok(_) if nested => session.conn.execute("RELEASE SAVEPOINT basalt_import", ()),
        Ok(_) => session.conn.execute("COMMIT", ()),
        Err(_) if nested => session
            .conn
            .execute("ROLLBACK TO SAVEPOINT basalt_import", ())
            .and_then(|_| session.conn.execute("RELEASE SAVEPOINT basalt_import", ())),
        Err(_) => session.conn.execute("ROLLBACK", ()),
    };
    let (rows, rejections) = loaded?;
    finished?;

    if create.is_some() {
        let columns: Vec<String> = targets
            .iter()
            .map(|t| format!("{} {}", t.column, t.data_type.name().to_uppercase()))
            .collect();
        eprintln!("Created table {table} ({}).", columns.join(", "));
    }
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    if rejections.is_empty() {
        eprintln!(
            "Imported {rows} row{} into {table} from {}.",
            plural(rows),
            request.file
        );
    } else {
        let rejected = rejections.len() as u64;
        eprintln!(
            "Imported {rows} row{} into {table} from {}; rejected {rejected} row{}:",
            plural(rows),
            request.file,
            plural(rejected)
        );
        for rejection in rejections.iter().take(REJECTIONS_SHOWN) {
            eprintln!("  line {}: {}", rejection.line, rejection.reason);
        }
        if rejections.len() > REJECTIONS_SHOWN {
            eprintln!("  ... and {} more", rejections.len() - REJECTIONS_SHOWN);
        }
    }
    Ok(())
}

type CsvReader = csv::Reader<BufReader<File>>;

fn open_reader(request: &Request<'_>) -> Result<CsvReader, Failure> {
    let file = File::open(request.file)
        .map_err(|error| Failure::Io(format!("cannot open {}", request.file), error))?;
    Ok(csv::ReaderBuilder::new()
        .delimiter(request.delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(BufReader::new(file)))
}

fn read_error(request: &Request<'_>, error: csv::Error) -> Failure {
    Failure::Io(format!("cannot read {}", request.file), error.into())
}

/// The header's column names: trimmed, folded to lower case like unquoted SQL names, blanks
/// named `column_N`, repeats numbered.
fn read_header(reader: &mut CsvReader, request: &Request<'_>) -> Result<Vec<String>, Failure> {
    let mut record = csv::ByteRecord::new();
    if !reader
        .read_byte_record(&mut record)
        .map_err(|e| read_error(request, e))?
    {
        return Err(Failure::Message(format!(
            "{} is empty: .import needs a header line naming the columns",
            request.file
        )));
    }
    let mut names: Vec<String> = Vec::with_capacity(record.len());
    for (position, field) in record.iter().enumerate() {
        let field = if position == 0 {
            field.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(field)
        } else {
            field
        };
        let mut name = String::from_utf8_lossy(field).trim().to_ascii_lowercase();
        if name.is_empty() {
            name = format!("column_{}", position + 1);
        }
        let base = name.clone();
        let mut suffix = 2;
        while names.contains(&name) {
            name = format!("{base}_{suffix}");
            suffix += 1;
        }
        names.push(name);
    }
    Ok(names)
}

/// The existing table's columns for the file's fields: by header name, or else by position.
fn existing_targets(
    session: &Session,
    table: &str,
    header: &[String],
) -> Result<Vec<Target>, Failure> {
    let statement = session
        .conn
        .prepare(&format!("SELECT * FROM {}", quote_identifier(table)))?;
    let columns: Vec<(String, DataType)> = statement
        .column_names()
        .into_iter()
        .map(str::to_string)
        .zip(statement.column_types())
        .collect();
    let by_name: Option<Vec<Target>> = header
        .iter()
        .map(|name| {
            columns
                .iter()
                .find(|(column, _)| column.eq_ignore_ascii_case(name))
                .map(|(column, data_type)| Target {
                    column: column.clone(),
                    data_type: *data_type,
                })
        })
        .collect();
    match by_name {
        Some(targets) => Ok(targets),
        None if header.len() == columns.len() => Ok(columns
            .into_iter()
            .map(|(column, data_type)| Target { column, data_type })
            .collect()),
        None => Err(Failure::Message(format!(
            "the header names columns that {table} does not have, and it has {} columns, not {}",
            columns.len(),
            header.len()
        ))),
    }
}

/// What a column's fields have looked like so far.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Seen {
    Nothing,
    Integers,
    Reals,
    Text,
}

/// INTEGER, REAL or TEXT for each column, by a pass over the data lines.
fn infer_types(
    request: &Request<'_>,
    width: usize,
    session: &Session,
) -> Result<Vec<DataType>, Failure> {
    let mut reader = open_reader(request)?;
    let progress = progress_bar(request, "scanning");
    let mut seen = vec![Seen::Nothing; width];
    let mut record = csv::ByteRecord::new();
    let mut first = true;
    let mut count = 0u64;
    while reader
        .read_byte_record(&mut record)
        .map_err(|e| read_error(request, e))?
    {
        if std::mem::take(&mut first) || record.len() != width {
            continue;
        }
        if session.ctrl_c.cancelled() {
            return Err(Failure::Message(".import was interrupted".into()));
        }
        for (field, seen) in record.iter().zip(seen.iter_mut()) {
            let text = String::from_utf8_lossy(field);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            let kind = if looks_integer(text) {
                Seen::Integers
            } else if looks_real(text) {
                Seen::Reals
            } else {
                Seen::Text
            };
            *seen = (*seen).max(kind);
        }
        count += 1;
        if let Some(bar) = &progress
            && count.is_multiple_of(4096)
        {
            bar.set_position(reader.position().byte());
        }
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    Ok(seen
        .into_iter()
        .map(|seen| match seen {
            Seen::Integers => DataType::Integer,
            Seen::Reals => DataType::Real,
            Seen::Nothing | Seen::Text => DataType::Text(None),
        })
        .collect())
}

/// A number with a leading zero (`007`, `01.5`) is a code, not a quantity.
fn leading_zero(digits: &str) -> bool {
    let digits = digits.trim_start_matches(['+', '-']);
    digits.len() > 1 && digits.starts_with('0') && !digits.starts_with("0.")
}

fn looks_integer(text: &str) -> bool {
    text.parse::<i64>().is_ok() && !leading_zero(text)
}

/// Decimal notation only: Rust would also read `inf` and `NaN`, which are words here.
fn looks_real(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
        && text.chars().any(|c| c.is_ascii_digit())
        && text.parse::<f64>().is_ok_and(f64::is_finite)
        && !leading_zero(text)
}

fn progress_bar(request: &Request<'_>, verb: &str) -> Option<ProgressBar> {
    let size = std::fs::metadata(request.file).ok()?.len();
    if size < PROGRESS_THRESHOLD || !io::stderr().is_terminal() {
        return None;
    }
    let style = ProgressStyle::with_template(&format!(
        "{verb} {{bar:40}} {{bytes}}/{{total_bytes}} ({{eta}} left)"
    ))
    .ok()?;
    Some(ProgressBar::new(size).with_style(style))
}

/// Inserts every data line; returns the rows loaded and the lines rejected.
fn load(
    session: &Session,
    request: &Request<'_>,
    reader: &mut CsvReader,
    table: &str,
    targets: &[Target],
    create: Option<&str>,
) -> Result<(u64, Vec<Rejection>), Failure> {
    if let Some(create) = create {
        session.conn.execute(create, ())?;
    }
    let columns: Vec<String> = targets
        .iter()
        .map(|t| quote_identifier(&t.column))
        .collect();
    let values: Vec<String> = targets
        .iter()
        .map(|t| match t.data_type {
            DataType::Text(_) => "?".to_string(),
            other => format!("CAST(? AS {})", other.name().to_uppercase()),
        })
        .collect();
    let mut insert = session.conn.prepare(&format!(
        "INSERT INTO {} ({}) VALUES ({})",
        quote_identifier(table),
        columns.join(", "),
        values.join(", ")
    ))?;

    let progress = progress_bar(request, "loading");
    let mut record = csv::ByteRecord::new();
    let mut loaded = 0u64;
    let mut rejections = Vec::new();
    let mut params: Vec<Value> = Vec::with_capacity(targets.len());
    while reader
        .read_byte_record(&mut record)
        .map_err(|e| read_error(request, e))?
    {
        if session.ctrl_c.cancelled() {
            return Err(Failure::Message(
                ".import was interrupted; nothing was loaded".into(),
            ));
        }
        let line = record.position().map_or(0, |p| p.line());
        if record.len() != targets.len() {
            rejections.push(Rejection {
                line,
                reason: format!("expected {} fields, found {}", targets.len(), record.len()),
            });
            continue;
        }
        params.clear();
        let mut utf8 = true;
        for (field, target) in record.iter().zip(targets) {
            let Ok(text) = std::str::from_utf8(field) else {
                utf8 = false;
                break;
            };
            params.push(field_value(text, target.data_type));
        }
        if !utf8 {
            rejections.push(Rejection {
                line,
                reason: "not valid UTF-8".into(),
            });
            continue;
        }
        match insert.execute(params.clone()) {
            Ok(_) => loaded += 1,
            Err(error) if error.code() == "57014" => {
                return Err(Failure::Message(
                    ".import was interrupted; nothing was loaded".into(),
                ));
            }
            Err(error)
                if matches!(
                    error.kind(),
                    ErrorKind::Storage | ErrorKind::Internal | ErrorKind::Busy
                ) =>
            {
                return Err(Failure::Sql(error));
            }
            Err(error) => rejections.push(Rejection {
                line,
                reason: format!("{} [{}]", error.message(), error.code()),
            }),
        }
        if let Some(bar) = &progress
            && loaded.is_multiple_of(4096)
        {
            bar.set_position(reader.position().byte());
        }
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    Ok((loaded, rejections))
}

/// A field as a parameter: NULL when empty (except for text), trimmed for typed columns.
fn field_value(text: &str, data_type: DataType) -> Value {
    match data_type {
        DataType::Text(_) => Value::Text(text.to_string()),
        _ if text.trim().is_empty() => Value::Null,
        _ => Value::Text(text.trim().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_shapes() {
        assert!(looks_integer("42"));
        assert!(looks_integer("-7"));
        assert!(looks_integer("0"));
        assert!(!looks_integer("007"));
        assert!(!looks_integer("1.5"));
        assert!(looks_real("1.5"));
        assert!(looks_real("-2e10"));
        assert!(looks_real("0.25"));
        assert!(!looks_real("inf"));
        assert!(!looks_real("NaN"));
        assert!(!looks_real("01.5"));
        assert!(!looks_real("1.2.3"));
        assert!(!looks_real("e"));
    }
}
