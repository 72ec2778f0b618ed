//! Copying a table's rows from SQLite into the Basalt table made for it.
//!
//! Each SQLite value is converted to what its Basalt column accepts (see [`convert`]); a
//! value that does not fit — SQLite lets `'abc'` into an INTEGER column, a blob into TEXT —
//! is never changed or dropped without a [`Problem`] naming the table, SQLite's row id, the
//! column and the value. DATE, TIMESTAMP, UUID and JSON columns are converted by the engine
//! (`CAST(? AS type)`), and when such a row fails each of those values is cast alone to find
//! the culprit. A row the engine refuses for another reason (a constraint) is a problem of
//! the whole row. With `--on-error stop` the first problem ends the copy with
//! [`CopyError::Stop`]; the caller rolls everything back.

use basalt::{Connection, ErrorKind, Value, quote_identifier};
use indicatif::ProgressBar;
use rusqlite::Connection as Sqlite;
use rusqlite::types::ValueRef;

use super::report::{OnError, Problem, Report};
use super::schema::{Kind, Table, sqlite_quote};

/// Why a copy ended early.
pub enum CopyError {
    /// A problem under `--on-error stop` (already in the report).
    Stop,
    Sqlite(rusqlite::Error),
    Basalt(basalt::Error),
}

impl From<rusqlite::Error> for CopyError {
    fn from(error: rusqlite::Error) -> Self {
        CopyError::Sqlite(error)
    }
}

impl From<basalt::Error> for CopyError {
    fn from(error: basalt::Error) -> Self {
        CopyError::Basalt(error)
    }
}

/// A value that does not fit its column: why.
type Misfit = String;

/// Copies every row of `table`, in row id order.
pub fn copy_table(
    sqlite: &Sqlite,
    conn: &Connection,
    table: &Table,
    on_error: OnError,
    progress: &ProgressBar,
    report: &mut Report,
) -> Result<(), CopyError> {
    let columns: Vec<String> = table
        .columns
        .iter()
        .map(|c| sqlite_quote(&c.source))
        .collect();
    let (rowid, order) = if table.without_rowid {
        ("NULL", String::new())
    } else {
        ("_rowid_", " ORDER BY _rowid_".to_string())
    };
    let select = format!(
        "SELECT {rowid}, {} FROM {}{order}",
        columns.join(", "),
        sqlite_quote(&table.source)
    );
    let placeholders: Vec<String> = table
        .columns
        .iter()
        .map(|c| match c.kind {
            Kind::Cast(type_name) => format!("CAST(? AS {type_name})"),
            _ => "?".to_string(),
        })
        .collect();
    let names: Vec<String> = table
        .columns
        .iter()
        .map(|c| quote_identifier(&c.name))
        .collect();
    let insert = format!(
        "INSERT INTO {} ({}) VALUES ({})",
        quote_identifier(&table.name),
        names.join(", "),
        placeholders.join(", ")
    );
    let mut insert = conn.prepare(&insert)?;
    let mut select = sqlite.prepare(&select)?;
    let mut rows = select.query([])?;
    while let Some(row) = rows.next()? {
        progress.inc(1);
        let rowid: Option<i64> = row.get(0)?;
        let mut values = Vec::with_capacity(table.columns.len());
        let mut misfits = Vec::new();
        for (i, column) in table.columns.iter().enumerate() {
            let raw = row.get_ref(i + 1)?;
            match convert(&column.kind, raw) {
                Ok(value) => values.push(value),
                Err(reason) => {
                    misfits.push((i, describe(raw), reason));
                    values.push(Value::Null);
                }
            }
        }
        if misfits.is_empty() {
            match insert.execute(values.clone()) {
                Ok(_) => {
                    report.rows += 1;
                    continue;
                }
                Err(error) if fatal(&error) => return Err(error.into()),
                Err(error) => {
                    misfits = find_casts_that_fail(conn, table, &values, row)?;
                    if misfits.is_empty() {
                        let action = match on_error {
                            OnError::Stop => "import stopped",
                            _ => "row skipped",
                        };
                        report.problems.push(Problem {
                            table: table.name.clone(),
                            rowid,
                            column: None,
                            value: None,
                            reason: error.to_string(),
                            action,
                        });
                        if on_error == OnError::Stop {
                            return Err(CopyError::Stop);
                        }
                        report.skipped_rows += 1;
                        continue;
                    }
                }
            }
        }
        // Some values do not fit: stop, skip the row, or store NULL in their place.
        let nullable = misfits.iter().all(|(i, ..)| !table.columns[*i].not_null);
        let action = match on_error {
            OnError::Stop => "import stopped",
            OnError::SkipRow => "row skipped",
            OnError::Null if nullable => "stored NULL",
            OnError::Null => "row skipped: the column is NOT NULL",
        };
        for (i, value, reason) in &misfits {
            report.problems.push(Problem {
                table: table.name.clone(),
                rowid,
                column: Some(table.columns[*i].name.clone()),
                value: Some(value.clone()),
                reason: reason.clone(),
                action,
            });
        }
        match on_error {
            OnError::Stop => return Err(CopyError::Stop),
            OnError::Null if nullable => {
                for (i, ..) in &misfits {
                    values[*i] = Value::Null;
                }
                match insert.execute(values) {
                    Ok(_) => {
                        report.rows += 1;
                        report.nulled_values += misfits.len() as u64;
                    }
                    Err(error) if fatal(&error) => {
                        return Err(error.into());
                    }
                    Err(error) => {
                        report.problems.push(Problem {
                            table: table.name.clone(),
                            rowid,
                            column: None,
                            value: None,
                            reason: format!("with NULL in place: {error}"),
                            action: "row skipped",
                        });
                        report.skipped_rows += 1;
                    }
                }
            }
            _ => report.skipped_rows += 1,
        }
    }
    Ok(())
}

/// Errors that end the import whatever `--on-error` says: Ctrl-C, a storage failure.
fn fatal(error: &basalt::Error) -> bool {
    matches!(error.kind(), ErrorKind::Interrupted | ErrorKind::Storage)
}

/// After the engine refused a row: which of its engine-converted values do not cast.
fn find_casts_that_fail(
    conn: &Connection,
    table: &Table,
    values: &[Value],
    row: &rusqlite::Row<'_>,
) -> Result<Vec<(usize, String, Misfit)>, CopyError> {
    let mut misfits = Vec::new();
    for (i, column) in table.columns.iter().enumerate() {
        let Kind::Cast(type_name) = column.kind else {
            continue;
        };
        let Some(value) = values.get(i).filter(|v| **v != Value::Null) else {
            continue;
        };
        let mut probe = conn.prepare(&format!("SELECT CAST(? AS {type_name})"))?;
        let cast = probe
            .query(vec![value.clone()])
            .and_then(|mut rows| rows.next().map(|_| ()));
        if let Err(error) = cast {
            misfits.push((
                i,
                describe(row.get_ref(i + 1)?),
                error.message().to_string(),
            ));
        }
    }
    Ok(misfits)
}

/// The Basalt value for a SQLite value in a column of this kind, or why it does not fit.
pub fn convert(kind: &Kind, value: ValueRef<'_>) -> Result<Value, Misfit> {
    let text = |bytes: &[u8]| {
        std::str::from_utf8(bytes)
            .map(str::to_string)
            .map_err(|_| "text that is not valid UTF-8".to_string())
    };
    Ok(match (kind, value) {
        (_, ValueRef::Null) => Value::Null,
        (Kind::Integer, ValueRef::Integer(i)) => Value::Integer(i),
        (Kind::Integer, _) => return Err("not an integer".into()),
        // Beyond 2^53 a float would round it: reported rather than changed.
        (Kind::Real, ValueRef::Integer(i)) if (i as f64) as i128 == i128::from(i) => {
            Value::Real(i as f64)
        }
        (Kind::Real, ValueRef::Integer(_)) => {
            return Err("an integer a float cannot hold exactly".into());
        }
        (Kind::Real, ValueRef::Real(f)) => Value::Real(f),
        (Kind::Real, _) => return Err("not a number".into()),
        (Kind::Text(limit), ValueRef::Text(bytes)) => {
            let text = text(bytes)?;
            if let Some(limit) = limit
                && text.chars().count() > *limit
            {
                return Err(format!("longer than {limit} characters"));
            }
            Value::Text(text)
        }
        (Kind::Text(_), ValueRef::Integer(i)) => Value::Text(i.to_string()),
        (Kind::Text(_), ValueRef::Real(f)) => Value::Text(f.to_string()),
        (Kind::Text(_), ValueRef::Blob(_)) => return Err("a blob in a text column".into()),
        (Kind::Blob, ValueRef::Blob(bytes)) => Value::Blob(bytes.to_vec()),
        (Kind::Blob, _) => return Err("not a blob".into()),
        (Kind::Boolean, ValueRef::Integer(i @ (0 | 1))) => Value::Boolean(i == 1),
        (Kind::Boolean, ValueRef::Text(bytes)) => {
            match text(bytes)?.trim().to_ascii_lowercase().as_str() {
                "true" | "t" | "yes" | "y" | "on" | "1" => Value::Boolean(true),
                "false" | "f" | "no" | "n" | "off" | "0" => Value::Boolean(false),
                _ => return Err("not a boolean".into()),
            }
        }
        (Kind::Boolean, _) => return Err("not a boolean (0 or 1)".into()),
        (Kind::Cast(_), ValueRef::Integer(i)) => Value::Text(i.to_string()),
        (Kind::Cast(_), ValueRef::Real(f)) => Value::Text(f.to_string()),
        (Kind::Cast(_), ValueRef::Text(bytes)) => Value::Text(text(bytes)?),
        (Kind::Cast(type_name), ValueRef::Blob(_)) => {
            return Err(format!("a blob cannot be a {type_name}"));
        }
    })
}

/// A SQLite value as the report shows it: its storage class and a readable form, cut short.
pub fn describe(value: ValueRef<'_>) -> String {
    const SHOWN: usize = 40;
    match value {
        ValueRef::Null => "NULL".into(),
        ValueRef::Integer(i) => format!("integer {i}"),
        ValueRef::Real(f) => format!("real {f}"),
        ValueRef::Text(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            let cut: String = text.chars().take(SHOWN).collect();
            let more = if text.chars().count() > SHOWN {
                "..."
            } else {
                ""
            };
            format!("text '{}'{more}", cut.replace('\'', "''"))
        }
        ValueRef::Blob(bytes) => {
            let hex: String = bytes
                .iter()
                .take(SHOWN / 2)
                .map(|b| format!("{b:02x}"))
                .collect();
            let more = if bytes.len() > SHOWN / 2 { "..." } else { "" };
            format!("blob x'{hex}'{more} ({} bytes)", bytes.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_convert_or_say_why_not() {
        assert_eq!(
            convert(&Kind::Integer, ValueRef::Integer(5)),
            Ok(Value::Integer(5))
        );
        assert!(convert(&Kind::Integer, ValueRef::Real(2.5)).is_err());
        assert!(convert(&Kind::Integer, ValueRef::Text(b"abc")).is_err());
        assert_eq!(
            convert(&Kind::Real, ValueRef::Integer(2)),
            Ok(Value::Real(2.0))
        );
        assert!(convert(&Kind::Real, ValueRef::Integer((1 << 53) + 1)).is_err());
        assert_eq!(
            convert(&Kind::Text(None), ValueRef::Real(0.1)),
            Ok(Value::Text("0.1".into()))
        );
        assert!(convert(&Kind::Text(Some(3)), ValueRef::Text("abcd".as_bytes())).is_err());
        assert_eq!(
            convert(&Kind::Text(Some(3)), ValueRef::Text("été".as_bytes())),
            Ok(Value::Text("été".into()))
        );
        assert!(convert(&Kind::Text(None), ValueRef::Text(&[0xff])).is_err());
        assert!(convert(&Kind::Blob, ValueRef::Text(b"x")).is_err());
        assert_eq!(
            convert(&Kind::Boolean, ValueRef::Integer(1)),
            Ok(Value::Boolean(true))
        );
        assert!(convert(&Kind::Boolean, ValueRef::Integer(2)).is_err());
        assert_eq!(
            convert(&Kind::Boolean, ValueRef::Text(b"FALSE")),
            Ok(Value::Boolean(false))
        );
        assert!(convert(&Kind::Cast("DATE"), ValueRef::Blob(b"x")).is_err());
        assert_eq!(convert(&Kind::Integer, ValueRef::Null), Ok(Value::Null));
        assert_eq!(
            describe(ValueRef::Text(b"it's")),
            "text 'it''s'".to_string()
        );
    }
}
