//! `.dump`: SQL text that recreates the database — or the tables named — when run by
//! Basalt (`basalt new.basalt < dump.sql`).
//!
//! The statements come from `Connection::schema_objects`; rows become INSERTs (a hundred
//! rows each, one row per line) whose values load back exactly: text with doubled quotes
//! (newlines kept inside the literal), blobs as `X'..'` hex, reals in their shortest
//! round-trip form, infinities and NaN as strings that cast back. Tables come first, then
//! their rows, then indexes (building an index over loaded rows is faster than maintaining it
//! row by row), then views. A `GENERATED ALWAYS` identity column's values load through
//! `OVERRIDING SYSTEM VALUE`, and after the rows every sequence the dump recreates (free-
//! standing, or owned by a dumped table's SERIAL, identity or AUTOINCREMENT column) is put
//! back where it stood with `setval`, so the loaded database hands out the same next values
//! rather than ones its rows already hold. Everything is wrapped in BEGIN/COMMIT, and
//! everything is read from one snapshot, so a dump taken while another connection writes is
//! still consistent.

use basalt::{SchemaKind, SchemaObject, SequencePosition, ValueRef, quote_identifier};

use crate::dot_commands::{indexes_of, matches};
use crate::render::real_literal;
use crate::session::{Failure, Session, output_failure};

/// Rows per INSERT: one statement per row would cost a parse and a plan per row when the
/// dump is loaded (about three times slower); a statement per hundred rows keeps the text
/// easy to read and to edit.
const BATCH_ROWS: usize = 100;
/// A batch ends early once its text passes this size (rows with large values).
const BATCH_BYTES: usize = 256 << 10;

pub fn dump(session: &mut Session, patterns: &[String]) -> Result<(), Failure> {
    let _running = session.ctrl_c.running();
    let own_snapshot = !session.conn.in_transaction();
    if own_snapshot {
        session.conn.execute("BEGIN", ())?;
    }
    let result = write_dump(session, patterns);
    if own_snapshot {
        // Nothing was written; ending the read transaction only releases its snapshot.
        let ended = session.conn.execute("ROLLBACK", ());
        result?;
        ended?;
    } else {
        result?;
    }
    session.flush()
}

fn write_dump(session: &mut Session, patterns: &[String]) -> Result<(), Failure> {
    let selected =
        |name: &str| patterns.is_empty() || patterns.iter().any(|p| matches(Some(p), name));
    let objects = session.conn.schema_objects()?;
    let tables: Vec<&SchemaObject> = objects
        .iter()
        .filter(|o| o.kind == SchemaKind::Table && selected(&o.name))
        .collect();
    let views: Vec<&SchemaObject> = objects
        .iter()
        .filter(|o| o.kind == SchemaKind::View && selected(&o.name))
        .collect();
    if !patterns.is_empty() && tables.is_empty() && views.is_empty() {
        return Err(Failure::Message(format!(
            "no table or view matches {}",
            patterns.join(" ")
        )));
    }

    let out = session.output.writer();
    // Rows are written table by table; a self-referencing table's rows, or a dump of a
    // single table, need not satisfy foreign keys until everything is loaded (as sqlite3's
    // .dump does).
    writeln!(out, "PRAGMA foreign_keys = OFF;").map_err(output_failure)?;
    writeln!(out, "BEGIN;").map_err(output_failure)?;
    // Sequences come first: column defaults call them. A whole-database dump recreates
    // them with their definitions; their positions are set after the rows.
    let sequences = session.conn.sequence_positions()?;
    let owned_by = |table: &str, sequence: &SequencePosition| {
        sequence
            .owner
            .as_deref()
            .is_some_and(|owner| owner.eq_ignore_ascii_case(table))
    };
    for sequence in objects
        .iter()
        .filter(|o| o.kind == SchemaKind::Sequence && patterns.is_empty())
    {
        writeln!(out, "{};", sequence.sql).map_err(output_failure)?;
    }
    for table in &tables {
        writeln!(out, "{};", table.sql).map_err(output_failure)?;
        let mut statement = session
            .conn
            .prepare(&format!("SELECT * FROM {}", quote_identifier(&table.name)))?;
        let columns: Vec<String> = statement
            .column_names()
            .into_iter()
            .map(quote_identifier)
            .collect();
        // Explicit values of a GENERATED ALWAYS identity column are refused (428C9) unless
        // the INSERT overrides the system value.
        let overriding = if sequences
            .iter()
            .any(|s| s.generated_always && owned_by(&table.name, s))
        {
            " OVERRIDING SYSTEM VALUE"
        } else {
            ""
        };
        let prefix = format!(
            "INSERT INTO {} ({}){overriding} VALUES",
            quote_identifier(&table.name),
            columns.join(", ")
        );
        let mut rows = statement.query(())?;
        let mut batch = String::new();
        let mut batched = 0;
        while let Some(row) = rows.next()? {
            if session.ctrl_c.cancelled() {
                return Err(Failure::Message(".dump was interrupted".into()));
            }
            batch.push_str(if batched == 0 { "\n    (" } else { ",\n    (" });
            for index in 0..columns.len() {
                if index > 0 {
                    batch.push_str(", ");
                }
                push_literal(&mut batch, row.get_ref(index)?);
            }
            batch.push(')');
            batched += 1;
            if batched == BATCH_ROWS || batch.len() >= BATCH_BYTES {
                writeln!(out, "{prefix}{batch};").map_err(output_failure)?;
                batch.clear();
                batched = 0;
            }
        }
        if batched > 0 {
            writeln!(out, "{prefix}{batch};").map_err(output_failure)?;
        }
    }
    for sequence in sequences.iter().filter(|s| match &s.owner {
        Some(_) => tables.iter().any(|table| owned_by(&table.name, s)),
        None => patterns.is_empty(),
    }) {
        writeln!(
            out,
            "SELECT setval('{}', {}, {});",
            quote_identifier(&sequence.name).replace('\'', "''"),
            sequence.last_value,
            sequence.called
        )
        .map_err(output_failure)?;
    }
    for table in &tables {
        for index in indexes_of(&objects, &table.name) {
            writeln!(out, "{};", index.sql).map_err(output_failure)?;
        }
    }
    for view in &views {
        writeln!(out, "{};", view.sql).map_err(output_failure)?;
    }
    // Triggers last, as sqlite3's .dump does, so loading the rows does not fire them.
    let dumped = |name: &str| {
        tables
            .iter()
            .chain(&views)
            .any(|object| object.name.eq_ignore_ascii_case(name))
    };
    for trigger in objects
        .iter()
        .filter(|o| o.kind == SchemaKind::Trigger && dumped(&o.table))
    {
        writeln!(out, "{};", trigger.sql).map_err(output_failure)?;
    }
    writeln!(out, "COMMIT;").map_err(output_failure)?;
    Ok(())
}

/// Appends `value` as a SQL literal that reads back as the same value.
pub fn push_literal(sql: &mut String, value: ValueRef<'_>) {
    match value {
        ValueRef::Null => sql.push_str("NULL"),
        ValueRef::Boolean(b) => sql.push_str(if b { "TRUE" } else { "FALSE" }),
        // The smallest integer has no positive counterpart to negate.
        ValueRef::Integer(i64::MIN) => sql.push_str("(-9223372036854775807 - 1)"),
        ValueRef::Integer(i) => sql.push_str(&i.to_string()),
        ValueRef::Real(r) => sql.push_str(&real_literal(r)),
        ValueRef::Text(text) => push_string(sql, text),
        ValueRef::Blob(bytes) => {
            sql.push_str("X'");
            for byte in bytes {
                sql.push_str(&format!("{byte:02X}"));
            }
            sql.push('\'');
        }
        // Dates and timestamps in their text form, which the column's type casts back.
        other => push_string(sql, &other.to_owned().to_string()),
    }
}

fn push_string(sql: &mut String, text: &str) {
    sql.push('\'');
    sql.push_str(&text.replace('\'', "''"));
    sql.push('\'');
}
