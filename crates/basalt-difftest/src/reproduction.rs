//! Writing a reduced case as a sqllogictest file that `basalt-slt` (and the conformance
//! test over `tests/slt`) runs: statements as `statement ok` / `statement error`, queries
//! as `query` records whose expected results are SQLite's, formatted by the reference
//! runner's rules. A partitioned query is followed by its three parts, and a failing
//! modification by a query of the table it wrote, so the file fails on Basalt wherever the
//! mismatch shows in rows.

use std::collections::HashSet;
use std::fmt::Write as _;

use basalt_slt::basalt_engine::BasaltEngine;
use basalt_slt::engine::Cell;
use basalt_slt::format::{ColumnType, format_cell};
use basalt_slt::runner::{RunOptions, run_script, sort_results};
use basalt_slt::script::SortMode;

use crate::ast::Query;
use crate::engines::{Outcome, SqliteDatabase};
use crate::generator::ExpressionType;
use crate::schema::{Schema, SqlType};
use crate::statement::{Statement, partition_queries, partition_shape};
use crate::validity::ColumnTypes;

/// One query to record, with the static types of its columns when known.
struct RecordedQuery {
    sql: String,
    ordered: bool,
    types: Vec<Option<ExpressionType>>,
}

fn type_letter(observed: Option<&Cell>, inferred: Option<ExpressionType>) -> char {
    match observed {
        Some(Cell::Integer(_)) => 'I',
        Some(Cell::Real(_)) => 'R',
        Some(Cell::Text(_) | Cell::Blob(_)) => 'T',
        Some(Cell::Null) | None => match inferred {
            Some(ExpressionType::Scalar(SqlType::Real)) => 'R',
            Some(ExpressionType::Scalar(SqlType::Text)) => 'T',
            _ => 'I',
        },
    }
}

fn letter_type(letter: char) -> ColumnType {
    match letter {
        'R' => ColumnType::Real,
        'T' => ColumnType::Text,
        _ => ColumnType::Integer,
    }
}

fn write_query(text: &mut String, sqlite: &SqliteDatabase, query: &RecordedQuery) {
    let rows = match sqlite.run(&query.sql) {
        Outcome::Rows(rows) => rows,
        _ => {
            let _ = write!(text, "statement error\n{}\n\n", query.sql);
            return;
        }
    };
    let letters: Vec<char> = query
        .types
        .iter()
        .enumerate()
        .map(|(position, &inferred)| {
            let observed = rows
                .iter()
                .map(|row| &row[position])
                .find(|cell| **cell != Cell::Null);
            type_letter(observed, inferred)
        })
        .collect();
    let formatted: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .zip(&letters)
                .map(|(cell, &letter)| format_cell(cell, letter_type(letter)))
                .collect()
        })
        .collect();
    let sort = if query.ordered {
        SortMode::NoSort
    } else {
        SortMode::RowSort
    };
    let (_, values) = sort_results(formatted, sort);
    let _ = writeln!(
        text,
        "query {} {}",
        letters.iter().collect::<String>(),
        if query.ordered { "nosort" } else { "rowsort" }
    );
    let _ = write!(text, "{}\n----\n", query.sql);
    for value in values {
        let _ = writeln!(text, "{value}");
    }
    text.push('\n');
}

fn recorded(query: &Query, types: &ColumnTypes) -> RecordedQuery {
    RecordedQuery {
        sql: query.to_string(),
        ordered: query.is_ordered(),
        types: query
            .body
            .items
            .iter()
            .map(|item| types.infer(item))
            .collect(),
    }
}

fn table_contents(table: &str, schema: &Schema) -> Option<RecordedQuery> {
    let table = schema.table(table)?;
    let names: Vec<&str> = table
        .columns
        .iter()
        .map(|column| column.name.as_str())
        .collect();
    Some(RecordedQuery {
        sql: format!("SELECT {} FROM {}", names.join(", "), table.name),
        ordered: false,
        types: table
            .columns
            .iter()
            .map(|column| Some(ExpressionType::Scalar(column.sql_type)))
            .collect(),
    })
}

/// How to write a reproduction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReproductionOptions {
    /// The run's work_mem, set first thing in the file.
    pub work_mem: Option<String>,
    /// Create the tables without keys and skip the indexes (the index-free twin).
    pub index_free: bool,
    /// Also run the last query as a `statement ok` record: an error while stepping
    /// through its rows does not fail a `query` record (the reference runner ends the
    /// rows there), but it fails a statement.
    pub check_errors: bool,
}

/// The sqllogictest text for `statements`, preceded by `comment` (each line prefixed
/// with `# `). Expected results come from running the statements on SQLite.
pub fn reproduction_text(
    statements: &[Statement],
    schema: &Schema,
    comment: &str,
    options: ReproductionOptions,
) -> Result<String, String> {
    let sqlite = SqliteDatabase::open()?;
    let mut text = String::new();
    for line in comment.lines() {
        let _ = writeln!(text, "{}", format!("# {line}").trim_end());
    }
    text.push_str("\nhash-threshold 0\n\n");
    if let Some(work_mem) = &options.work_mem {
        let _ = write!(text, "statement ok\nSET work_mem = '{work_mem}'\n\n");
    }
    let last = statements.len().saturating_sub(1);
    for (position, statement) in statements.iter().enumerate() {
        let types = ColumnTypes::of_statement(statement, schema);
        match statement {
            Statement::CreateIndex { .. } if options.index_free => {}
            Statement::CreateTable { index_free_sql, .. } if options.index_free => {
                sqlite.run(index_free_sql);
                let _ = write!(text, "statement ok\n{index_free_sql}\n\n");
            }
            Statement::Query { query, partition } => {
                let sql = query.to_string();
                if position == last && options.check_errors && !sqlite.run(&sql).failed() {
                    let _ = write!(text, "statement ok\n{sql}\n\n");
                }
                write_query(&mut text, &sqlite, &recorded(query, &types));
                if position == last
                    && let Some(predicate) = partition
                    && partition_shape(query).is_some()
                {
                    for part in partition_queries(query, predicate) {
                        write_query(&mut text, &sqlite, &recorded(&part, &types));
                    }
                }
            }
            _ => {
                let sql = statement.to_string();
                let verdict = if sqlite.run(&sql).failed() {
                    "error"
                } else {
                    "ok"
                };
                let _ = write!(text, "statement {verdict}\n{sql}\n\n");
                if position == last
                    && let Some(contents) = statement
                        .written_table()
                        .and_then(|table| table_contents(table, schema))
                {
                    write_query(&mut text, &sqlite, &contents);
                }
            }
        }
    }
    Ok(text.trim_end().to_owned() + "\n")
}

/// Runs a reproduction on a fresh Basalt through the sqllogictest runner and returns how
/// many of its records fail (a useful reproduction fails at least one).
pub fn failing_records(text: &str) -> Result<usize, String> {
    let mut engine = BasaltEngine::open_in_memory()?;
    let options = RunOptions {
        engine_label: "postgresql".into(),
        fail_fast: false,
        max_failure_details: 0,
    };
    let outcome = run_script(
        text.as_bytes(),
        &mut engine,
        &options,
        &HashSet::new(),
        &|| false,
    )
    .map_err(|error| error.to_string())?;
    Ok(outcome.failed)
}
