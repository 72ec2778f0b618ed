//! `basalt dump --postgres FILE` and the shell's `.dump --postgres [TABLE...]`: a psql
//! script that recreates the database — or the tables named — in PostgreSQL 15
//! (`psql -v ON_ERROR_STOP=1 -d newdb -f dump.sql`).
//!
//! The statements come from `Connection::postgres_schema` (the engine's
//! `catalog::postgres`, which says how each type and constraint translates); this module
//! orders them as pg_dump does and writes the rows. The script sets what pg_dump's scripts
//! set (UTF-8, standard strings, no function-body checks), then in one transaction: the
//! sequences with their positions, every table, each table's rows as a `COPY ... FROM stdin`
//! block in COPY's text format (written by the server crate's `write_copy_text_row`, so
//! values are PostgreSQL's text forms, escaped as COPY TO STDOUT escapes them), the identity
//! positions, indexes and triggers, then the foreign keys (so the order rows load in does
//! not matter) and the views. Everything is read in one snapshot: an explicit transaction's
//! when one is open in the shell, else a read transaction of its own.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use basalt::{Connection, PostgresOptions, ValueRef, quote_identifier};
use clap::Parser;

use crate::dot_commands::matches;
use crate::session::{Failure, Session, describe, output_failure};

/// Rows are written in chunks of about this many bytes (a row at a time would mean a write
/// call per row; the whole table at once would hold it in memory).
const CHUNK_BYTES: usize = 256 << 10;

/// Writes a psql script that recreates a Basalt database in PostgreSQL 15.
#[derive(Debug, Parser)]
#[command(name = "basalt dump")]
pub struct DumpArgs {
    /// Write PostgreSQL's SQL (required: the Basalt-format dump is the shell's `.dump`)
    #[arg(long)]
    pub postgres: bool,

    /// The target has pgvector: VECTOR columns stay vectors and HNSW indexes are created
    /// (without it, vectors become real[] and HNSW indexes comments)
    #[arg(long)]
    pub pgvector: bool,

    /// Write the script to this file instead of standard output
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,

    /// The database file
    pub file: PathBuf,

    /// Only these tables (and views), by name or LIKE pattern
    pub tables: Vec<String>,
}

/// Whether the command line asks for `basalt dump ...`. A database file that is really
/// named `dump` is reached as `./dump`.
pub fn requested(arguments: &[String]) -> bool {
    arguments.get(1).is_some_and(|word| word == "dump")
}

/// Runs `basalt dump` with the arguments after the word `dump`.
pub fn run(arguments: &[String]) -> ExitCode {
    let args = DumpArgs::parse_from(arguments.iter().skip(1));
    if !args.postgres {
        eprintln!(
            "basalt dump: only --postgres is supported here; for a Basalt script use: basalt FILE .dump"
        );
        return ExitCode::from(2);
    }
    if !args.file.is_file() {
        eprintln!("basalt dump: {}: no such file", args.file.display());
        return ExitCode::from(2);
    }
    let result = basalt::Database::open(&args.file)
        .map_err(Failure::from)
        .and_then(|db| {
            let conn = db.connect();
            let options = PostgresOptions::new(args.pgvector);
            match &args.output {
                Some(path) => {
                    let file = std::fs::File::create(path).map_err(|error| {
                        Failure::Io(format!("cannot create {}", path.display()), error)
                    })?;
                    let mut out = std::io::BufWriter::new(file);
                    dump_postgres(&conn, &mut out, &args.tables, options, &|| false)?;
                    out.flush().map_err(output_failure)
                }
                None => {
                    let stdout = std::io::stdout();
                    let mut out = std::io::BufWriter::new(stdout.lock());
                    dump_postgres(&conn, &mut out, &args.tables, options, &|| false)?;
                    out.flush().map_err(output_failure)
                }
            }
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("basalt dump: {}", describe(&failure));
            ExitCode::FAILURE
        }
    }
}

/// The shell's `.dump --postgres [--pgvector] [TABLE...]` (`args` after `--postgres`).
pub fn shell(session: &mut Session, args: &[String]) -> Result<(), Failure> {
    let pgvector = args.iter().any(|arg| arg == "--pgvector");
    let patterns: Vec<String> = args
        .iter()
        .filter(|arg| *arg != "--pgvector")
        .cloned()
        .collect();
    let _running = session.ctrl_c.running();
    let ctrl_c = session.ctrl_c.clone();
    let cancelled = move || ctrl_c.cancelled();
    let out = session.output.writer();
    dump_postgres(
        &session.conn,
        out,
        &patterns,
        PostgresOptions::new(pgvector),
        &cancelled,
    )?;
    session.flush()
}

/// Writes the script for `conn`'s database (the tables matching `patterns`, or all).
pub fn dump_postgres(
    conn: &Connection,
    out: &mut dyn Write,
    patterns: &[String],
    options: PostgresOptions,
    cancelled: &dyn Fn() -> bool,
) -> Result<(), Failure> {
    let own_snapshot = !conn.in_transaction();
    if own_snapshot {
        conn.execute("BEGIN", ())?;
    }
    let result = write_script(conn, out, patterns, options, cancelled);
    if own_snapshot {
        // Nothing was written; ending the read transaction only releases its snapshot.
        let ended = conn.execute("ROLLBACK", ());
        result?;
        ended?;
        Ok(())
    } else {
        result
    }
}

fn write_script(
    conn: &Connection,
    out: &mut dyn Write,
    patterns: &[String],
    options: PostgresOptions,
    cancelled: &dyn Fn() -> bool,
) -> Result<(), Failure> {
    let selected =
        |name: &str| patterns.is_empty() || patterns.iter().any(|p| matches(Some(p), name));
    let schema = conn.postgres_schema(options)?;
    let tables: Vec<&basalt::PostgresTable> = schema
        .tables
        .iter()
        .filter(|table| selected(&table.name))
        .collect();
    if !patterns.is_empty() && tables.is_empty() {
        return Err(Failure::Message(format!(
            "no table matches {}",
            patterns.join(" ")
        )));
    }
    let mut text = String::new();
    text.push_str(
        "-- A Basalt database as a PostgreSQL 15 script (basalt dump --postgres).\n\
         -- Load it with: psql -v ON_ERROR_STOP=1 -d DATABASE -f FILE\n\n\
         SET client_encoding = 'UTF8';\n\
         SET standard_conforming_strings = on;\n\
         SET check_function_bodies = false;\n\
         SET client_min_messages = warning;\n\n\
         BEGIN;\n\n",
    );
    // Free-standing sequences belong to no table: a dump of some tables leaves them out.
    if patterns.is_empty() {
        for statement in &schema.sequences {
            text.push_str(statement);
            text.push('\n');
        }
        text.push('\n');
    }
    for table in &tables {
        text.push_str(&table.create);
        text.push_str("\n\n");
    }
    out.write_all(text.as_bytes()).map_err(output_failure)?;
    for table in &tables {
        write_rows(conn, out, table, cancelled)?;
    }
    let mut text = String::new();
    for table in &tables {
        for statement in &table.after_data {
            text.push_str(statement);
            text.push('\n');
        }
    }
    for table in &tables {
        for statement in &table.foreign_keys {
            text.push_str(statement);
            text.push('\n');
        }
    }
    // Views only with the whole database: a view may read tables left out.
    if patterns.is_empty() {
        for statement in &schema.views {
            text.push_str(statement);
            text.push('\n');
        }
    }
    text.push_str("\nCOMMIT;\n");
    out.write_all(text.as_bytes()).map_err(output_failure)
}

/// One table's `COPY ... FROM stdin;` block.
fn write_rows(
    conn: &Connection,
    out: &mut dyn Write,
    table: &basalt::PostgresTable,
    cancelled: &dyn Fn() -> bool,
) -> Result<(), Failure> {
    // COPY needs a column; a table whose every column is generated has no data to carry.
    if table.columns.is_empty() {
        return Ok(());
    }
    let mut chunk = Vec::with_capacity(CHUNK_BYTES + 4096);
    chunk.extend_from_slice(table.copy.as_bytes());
    chunk.push(b'\n');
    let mut statement = conn.prepare(&format!(
        "SELECT {} FROM {}",
        table.columns.join(", "),
        quote_identifier(&table.name)
    ))?;
    let mut rows = statement.query(())?;
    let mut vector_text = Vec::new();
    while let Some(row) = rows.next()? {
        if cancelled() {
            return Err(Failure::Message(".dump was interrupted".into()));
        }
        vector_text.clear();
        let mut values = Vec::with_capacity(table.columns.len());
        for index in 0..table.columns.len() {
            values.push(row.get_ref(index)?);
        }
        // Vectors going into real[] columns are written as arrays.
        for (index, value) in values.iter().enumerate() {
            if let (Some(true), ValueRef::Vector(elements)) =
                (table.vector_as_array.get(index), value)
            {
                vector_text.push((index, array_text(elements)));
            }
        }
        for (index, text) in &vector_text {
            if let Some(value) = values.get_mut(*index) {
                *value = ValueRef::Text(text);
            }
        }
        basalt_server::write_copy_text_row(values, &mut chunk);
        if chunk.len() >= CHUNK_BYTES {
            out.write_all(&chunk).map_err(output_failure)?;
            chunk.clear();
        }
    }
    chunk.extend_from_slice(b"\\.\n\n");
    out.write_all(&chunk).map_err(output_failure)
}

/// A vector's elements as a PostgreSQL array literal (`{1,2.5,-3}`), each in its shortest
/// form that reads back as the same `f32`.
fn array_text(elements: &[f32]) -> String {
    let parts: Vec<String> = elements.iter().map(|element| element.to_string()).collect();
    format!("{{{}}}", parts.join(","))
}
