//! Running a case: every statement on Basalt, SQLite and the index-free twin, with the
//! checks that find mismatches — Basalt against SQLite, the ternary logic partitioning of
//! a query on Basalt alone, and Basalt with indexes against Basalt without.

use std::fmt::{self, Display, Formatter};

use basalt_slt::engine::Cell;

use crate::ast::AggregateFunction;
use crate::compare::{
    canonical, compare_cells, compare_rows, describe_rows, results_match, sets_match,
};
use crate::engines::{EngineSettings, Engines, Outcome, Target};
use crate::statement::{PartitionShape, Statement, partition_queries, partition_shape};

/// What kind of disagreement a mismatch is. The reducer keeps the kind fixed while it
/// shrinks a case, so a reduction cannot drift to a different problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MismatchKind {
    /// Both engines succeeded but returned different rows or changed different numbers of
    /// rows.
    Results,
    /// Basalt failed (with this SQLSTATE) where SQLite succeeded.
    BasaltError(String),
    /// SQLite failed where Basalt succeeded.
    SqliteError,
    /// Basalt panicked.
    Panic,
    /// The query's rows are not the union of its three partitions (Basalt alone).
    Partition,
    /// Basalt without indexes and keys disagrees with Basalt with them.
    IndexFree,
    /// After the statement, a table Basalt holds differs from SQLite's.
    Contents,
    /// After the statement, Basalt's `PRAGMA integrity_check` finds a problem.
    Integrity,
}

impl Display for MismatchKind {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        match self {
            MismatchKind::Results => write!(formatter, "different results from SQLite"),
            MismatchKind::BasaltError(code) => {
                write!(formatter, "Basalt fails ({code}), SQLite succeeds")
            }
            MismatchKind::SqliteError => write!(formatter, "SQLite fails, Basalt succeeds"),
            MismatchKind::Panic => write!(formatter, "Basalt panics"),
            MismatchKind::Partition => write!(formatter, "ternary logic partitioning fails"),
            MismatchKind::IndexFree => write!(formatter, "index-free Basalt disagrees"),
            MismatchKind::Contents => write!(formatter, "a table differs from SQLite's after it"),
            MismatchKind::Integrity => write!(formatter, "Basalt's integrity check fails after it"),
        }
    }
}

/// A mismatch found at one statement of a case.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// Position of the statement in the case.
    pub statement: usize,
    pub kind: MismatchKind,
    /// What each side produced.
    pub detail: String,
}

/// Counts over a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Statistics {
    pub statements: u64,
    pub queries: u64,
    pub modifications: u64,
    /// Statements rejected by both engines (constraint violations, mostly).
    pub both_failed: u64,
    pub partition_checks: u64,
    pub index_free_checks: u64,
    /// Whole tables compared with SQLite's after a statement changed them.
    pub table_checks: u64,
    /// `PRAGMA integrity_check` runs on Basalt.
    pub integrity_checks: u64,
    /// The most rows a table held when compared whole with SQLite's.
    pub most_table_rows: usize,
    /// Queries rejected by both engines: the generator should make few of these.
    pub queries_both_failed: Vec<String>,
    /// Statements interrupted at the time limit (each ends its case).
    pub timed_out: Vec<String>,
}

impl Statistics {
    /// Adds another run's counts.
    pub fn add(&mut self, other: &Statistics) {
        self.statements += other.statements;
        self.queries += other.queries;
        self.modifications += other.modifications;
        self.both_failed += other.both_failed;
        self.partition_checks += other.partition_checks;
        self.index_free_checks += other.index_free_checks;
        self.table_checks += other.table_checks;
        self.integrity_checks += other.integrity_checks;
        self.most_table_rows = self.most_table_rows.max(other.most_table_rows);
        self.queries_both_failed
            .extend(other.queries_both_failed.iter().cloned());
        self.timed_out.extend(other.timed_out.iter().cloned());
    }
}

fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Rows(rows) => describe_rows(rows, 20),
        Outcome::Changed(count) => format!("  {count} rows changed"),
        Outcome::Error { code, message } => match code {
            Some(code) => format!("  error {code}: {message}"),
            None => format!("  error: {message}"),
        },
        Outcome::Panic(message) => format!("  panic: {message}"),
        Outcome::TimedOut => "  interrupted at the time limit".to_owned(),
    }
}

/// Runs `statements` on fresh databases and returns the counts and the first mismatch.
/// Running stops at the first mismatch, or at a statement that runs past the time limit
/// (the databases may then differ, so nothing after it can be compared).
pub fn run_case(
    statements: &[Statement],
    settings: &EngineSettings,
) -> Result<(Statistics, Option<Mismatch>), String> {
    let engines = Engines::open(settings)?;
    let mut statistics = Statistics::default();
    let mut tables = TableChecks {
        enabled: settings.check_tables,
        tables: Vec::new(),
        integrity_check: true,
        check_every: settings.check_every.max(1),
        since_check: 0,
        dirty: Vec::new(),
    };
    for (position, statement) in statements.iter().enumerate() {
        statistics.statements += 1;
        if let Statement::CreateTable { sql, .. } = statement
            && let Some(name) = sql.split_whitespace().nth(2)
        {
            tables.tables.push(name.to_owned());
        }
        let Ok(found) = check_statement(&engines, statement, &mut statistics, &mut tables) else {
            statistics.timed_out.push(statement.to_string());
            return Ok((statistics, None));
        };
        if let Some((kind, detail)) = found {
            let mismatch = Mismatch {
                statement: position,
                kind,
                detail,
            };
            return Ok((statistics, Some(mismatch)));
        }
    }
    // The changes since the last check, checked at the end.
    if tables.enabled && !tables.dirty.is_empty() {
        let Ok(found) = compare_changed_tables(&engines, &mut statistics, &mut tables) else {
            return Ok((statistics, None));
        };
        if let Some((kind, detail)) = found {
            let statement = statements.len().saturating_sub(1);
            let mismatch = Mismatch {
                statement,
                kind,
                detail,
            };
            return Ok((statistics, Some(mismatch)));
        }
    }
    Ok((statistics, None))
}

/// A statement that ran past the time limit on some database.
struct TimedOut;

type Found = Result<Option<(MismatchKind, String)>, TimedOut>;

/// `outcome`, or [`TimedOut`] if it was interrupted.
fn finished(outcome: Outcome) -> Result<Outcome, TimedOut> {
    match outcome {
        Outcome::TimedOut => Err(TimedOut),
        other => Ok(other),
    }
}

/// What the whole-table checks need to know of a case.
struct TableChecks {
    /// Whether to run them ([`EngineSettings::check_tables`]).
    enabled: bool,
    /// The tables created so far.
    tables: Vec<String>,
    /// Whether to run `PRAGMA integrity_check` (off when the engine lacks it).
    integrity_check: bool,
    /// See [`EngineSettings::check_every`].
    check_every: usize,
    /// Changes since the last check.
    since_check: usize,
    /// Tables changed since the last check.
    dirty: Vec<String>,
}

fn check_statement(
    engines: &Engines,
    statement: &Statement,
    statistics: &mut Statistics,
    tables: &mut TableChecks,
) -> Found {
    let sql = statement.to_string();
    let sqlite = finished(engines.run(Target::Sqlite, &sql))?;
    let basalt = finished(engines.run(Target::Basalt, &sql))?;
    if statement.is_modification() {
        statistics.modifications += 1;
    } else {
        statistics.queries += 1;
    }
    let comparison = compare_outcomes(statement, &sqlite, &basalt);
    if comparison.is_some() {
        return Ok(comparison);
    }
    if basalt.failed() {
        statistics.both_failed += 1;
        if !statement.is_modification() && statistics.queries_both_failed.len() < 50 {
            statistics
                .queries_both_failed
                .push(format!("{sql}\n{}", describe(&sqlite)));
        }
        return Ok(None);
    }
    if let Statement::Query {
        query,
        partition: Some(predicate),
    } = statement
        && let (Some(shape), Outcome::Rows(whole)) = (partition_shape(query), &basalt)
    {
        statistics.partition_checks += 1;
        let parts = partition_queries(query, predicate);
        let found = check_partition(engines, &shape, whole, &parts)?;
        if found.is_some() {
            return Ok(found);
        }
    }
    let found = check_index_free(engines, statement, &sql, &basalt, statistics)?;
    if found.is_some() || !tables.enabled {
        return Ok(found);
    }
    check_tables(engines, statement, &basalt, statistics, tables)
}

fn compare_outcomes(
    statement: &Statement,
    sqlite: &Outcome,
    basalt: &Outcome,
) -> Option<(MismatchKind, String)> {
    let detail = || {
        format!(
            "SQLite:\n{}\nBasalt:\n{}",
            describe(sqlite),
            describe(basalt)
        )
    };
    match (sqlite, basalt) {
        (_, Outcome::Panic(_)) => Some((MismatchKind::Panic, detail())),
        (Outcome::Error { .. }, Outcome::Error { .. }) => None,
        (_, Outcome::Error { code, .. }) => Some((
            MismatchKind::BasaltError(code.clone().unwrap_or_default()),
            detail(),
        )),
        (Outcome::Error { .. }, _) => Some((MismatchKind::SqliteError, detail())),
        (Outcome::Rows(expected), Outcome::Rows(actual)) => {
            let ordered = match statement {
                Statement::Query { query, .. } => query.is_ordered(),
                _ => false,
            };
            (!results_match(expected, actual, ordered)).then(|| (MismatchKind::Results, detail()))
        }
        // SQLite reports the previous statement's count for DDL: compare only success.
        (Outcome::Changed(_), Outcome::Changed(_))
            if matches!(
                statement,
                Statement::CreateTable { .. }
                    | Statement::CreateIndex { .. }
                    | Statement::CreateView { .. }
                    | Statement::Control { .. }
            ) =>
        {
            None
        }
        (Outcome::Changed(expected), Outcome::Changed(actual)) => {
            (expected != actual).then(|| (MismatchKind::Results, detail()))
        }
        _ => Some((MismatchKind::Results, detail())),
    }
}

fn check_partition(
    engines: &Engines,
    shape: &PartitionShape,
    whole: &[Vec<Cell>],
    parts: &[crate::ast::Query; 3],
) -> Found {
    let mut part_rows = Vec::new();
    let mut report = String::new();
    for part in parts {
        let outcome = finished(engines.run(Target::Basalt, &part.to_string()))?;
        report.push_str(&format!("{part}\n{}\n", describe(&outcome)));
        match outcome {
            Outcome::Rows(rows) => part_rows.push(rows),
            Outcome::Panic(_) => return Ok(Some((MismatchKind::Panic, report))),
            _ => return Ok(Some((MismatchKind::Partition, report))),
        }
    }
    let agrees = match shape {
        PartitionShape::Rows => results_match(whole, &part_rows.concat(), false),
        PartitionShape::DistinctRows => sets_match(whole, &part_rows.concat()),
        PartitionShape::Aggregates(functions) => {
            let combined = combine_aggregates(functions, &part_rows);
            combined.is_some_and(|row| results_match(whole, &[row], true))
        }
    };
    Ok((!agrees).then(|| {
        (
            MismatchKind::Partition,
            format!(
                "whole query:\n{}\nparts:\n{report}",
                describe_rows(whole, 20)
            ),
        )
    }))
}

/// Combines one-row aggregate results of the parts into the value over all rows.
fn combine_aggregates(
    functions: &[AggregateFunction],
    parts: &[Vec<Vec<Cell>>],
) -> Option<Vec<Cell>> {
    let rows: Vec<&Vec<Cell>> = parts
        .iter()
        .map(|rows| rows.first())
        .collect::<Option<Vec<_>>>()?;
    let mut combined = Vec::new();
    for (position, function) in functions.iter().enumerate() {
        let values: Vec<&Cell> = rows
            .iter()
            .filter_map(|row| row.get(position))
            .filter(|cell| **cell != Cell::Null)
            .collect();
        let cell = match function {
            AggregateFunction::Count | AggregateFunction::Sum => sum_cells(&values, *function),
            AggregateFunction::Min => values
                .into_iter()
                .min_by(|left, right| compare_cells(left, right))
                .cloned()
                .unwrap_or(Cell::Null),
            _ => values
                .into_iter()
                .max_by(|left, right| compare_cells(left, right))
                .cloned()
                .unwrap_or(Cell::Null),
        };
        combined.push(cell);
    }
    Some(combined)
}

fn sum_cells(values: &[&Cell], function: AggregateFunction) -> Cell {
    if values.is_empty() {
        return if function == AggregateFunction::Count {
            Cell::Integer(0)
        } else {
            Cell::Null
        };
    }
    if values.iter().all(|cell| matches!(cell, Cell::Integer(_))) {
        let total = values
            .iter()
            .map(|cell| match cell {
                Cell::Integer(value) => *value,
                _ => 0,
            })
            .sum();
        return Cell::Integer(total);
    }
    let total = values
        .iter()
        .map(|cell| match cell {
            Cell::Integer(value) => *value as f64,
            Cell::Real(value) => *value,
            _ => 0.0,
        })
        .sum();
    Cell::Real(total)
}

fn check_index_free(
    engines: &Engines,
    statement: &Statement,
    sql: &str,
    basalt: &Outcome,
    statistics: &mut Statistics,
) -> Found {
    if statement.resolves_conflicts()
        && let Some(table) = statement.written_table()
    {
        return copy_table_to_twin(engines, table);
    }
    let twin_sql = match statement {
        Statement::CreateIndex { .. } => return Ok(None),
        Statement::CreateTable { index_free_sql, .. } => index_free_sql.as_str(),
        _ => sql,
    };
    let twin = finished(engines.run(Target::IndexFree, twin_sql))?;
    statistics.index_free_checks += 1;
    let agrees = match (basalt, &twin) {
        (Outcome::Rows(with_indexes), Outcome::Rows(without)) => {
            let ordered = match statement {
                Statement::Query { query, .. } => query.is_ordered(),
                _ => false,
            };
            results_match(with_indexes, without, ordered)
        }
        (Outcome::Changed(with_indexes), Outcome::Changed(without)) => {
            with_indexes == without || !statement.is_modification_of_rows()
        }
        _ => false,
    };
    if agrees {
        return Ok(None);
    }
    let kind = if matches!(twin, Outcome::Panic(_)) {
        MismatchKind::Panic
    } else {
        MismatchKind::IndexFree
    };
    Ok(Some((
        kind,
        format!(
            "Basalt with indexes:\n{}\nBasalt without indexes:\n{}",
            describe(basalt),
            describe(&twin)
        ),
    )))
}

/// After a statement that changed rows of a table (or rolled back a transaction or
/// savepoint, which may restore any), notes the table (or every table) as changed; after
/// one that changed 100 rows or more, rolled back, or was the `check_every`-th change since
/// the last check, checks the changed tables (see [`compare_changed_tables`]).
fn check_tables(
    engines: &Engines,
    statement: &Statement,
    basalt: &Outcome,
    statistics: &mut Statistics,
    tables: &mut TableChecks,
) -> Found {
    let (changed, bulk) = match (statement, statement.written_table(), basalt) {
        (Statement::Control { sql }, _, _) if sql.starts_with("ROLLBACK") => {
            (tables.tables.clone(), true)
        }
        (_, Some(table), Outcome::Changed(count)) if *count > 0 => {
            (vec![table.to_owned()], *count >= 100)
        }
        _ => return Ok(None),
    };
    for table in changed {
        if !tables.dirty.contains(&table) {
            tables.dirty.push(table);
        }
    }
    tables.since_check += 1;
    if !bulk && tables.since_check < tables.check_every {
        return Ok(None);
    }
    compare_changed_tables(engines, statistics, tables)
}

/// Compares each table changed since the last check whole with SQLite's, by an
/// order-independent digest of its rows and, only when the digests differ, row by row
/// (reals with the tolerance); then runs Basalt's `PRAGMA integrity_check` (every tree
/// well formed, every index holding exactly its table's entries).
fn compare_changed_tables(
    engines: &Engines,
    statistics: &mut Statistics,
    tables: &mut TableChecks,
) -> Found {
    tables.since_check = 0;
    let changed = std::mem::take(&mut tables.dirty);
    for table in &changed {
        let sql = format!("SELECT * FROM {table}");
        let sqlite = finished(engines.run(Target::Sqlite, &sql))?;
        let basalt = finished(engines.run(Target::Basalt, &sql))?;
        statistics.table_checks += 1;
        let Outcome::Rows(expected) = &sqlite else {
            continue;
        };
        statistics.most_table_rows = statistics.most_table_rows.max(expected.len());
        let agrees = match &basalt {
            Outcome::Rows(actual) => {
                digest(expected) == digest(actual) || results_match(expected, actual, false)
            }
            _ => false,
        };
        if !agrees {
            let detail = match &basalt {
                Outcome::Rows(actual) => describe_difference(expected, actual),
                other => describe(other),
            };
            return Ok(Some((
                MismatchKind::Contents,
                format!("{sql} after the statement:\n{detail}"),
            )));
        }
    }
    if tables.integrity_check {
        match finished(engines.run(Target::Basalt, "PRAGMA integrity_check"))? {
            Outcome::Rows(rows) if rows == [vec![Cell::Text("ok".to_owned())]] => {
                statistics.integrity_checks += 1;
            }
            Outcome::Rows(rows) => {
                return Ok(Some((MismatchKind::Integrity, describe_rows(&rows, 20))));
            }
            outcome @ Outcome::Panic(_) => {
                let detail = format!("PRAGMA integrity_check:\n{}", describe(&outcome));
                return Ok(Some((MismatchKind::Panic, detail)));
            }
            // Not in this build of Basalt: do without.
            Outcome::Error { code, .. } if code.as_deref() == Some("42704") => {
                tables.integrity_check = false;
            }
            outcome => {
                let detail = format!("PRAGMA integrity_check:\n{}", describe(&outcome));
                return Ok(Some((MismatchKind::Integrity, detail)));
            }
        }
    }
    Ok(None)
}

/// An order-independent digest of a multiset of rows (-0.0 counted as 0.0).
fn digest(rows: &[Vec<Cell>]) -> u64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    rows.iter().fold(0u64, |total, row| {
        let mut hasher = DefaultHasher::new();
        for cell in row {
            match cell {
                Cell::Null => 0u8.hash(&mut hasher),
                Cell::Integer(value) => (1u8, value).hash(&mut hasher),
                Cell::Real(value) => (2u8, (value + 0.0).to_bits()).hash(&mut hasher),
                Cell::Text(text) => (3u8, text).hash(&mut hasher),
                Cell::Blob(bytes) => (4u8, bytes).hash(&mut hasher),
            }
        }
        total.wrapping_add(hasher.finish())
    })
}

/// The rows only one side has (a few of each), and the row counts.
fn describe_difference(expected: &[Vec<Cell>], actual: &[Vec<Cell>]) -> String {
    let expected_rows = canonical(expected);
    let actual_rows = canonical(actual);
    let (mut only_expected, mut only_actual) = (Vec::new(), Vec::new());
    let (mut left, mut right) = (0, 0);
    while left < expected_rows.len() || right < actual_rows.len() {
        let order = match (expected_rows.get(left), actual_rows.get(right)) {
            (Some(one), Some(other)) => compare_rows(one, other),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                only_expected.push(expected_rows[left].clone());
                left += 1;
            }
            std::cmp::Ordering::Greater => {
                only_actual.push(actual_rows[right].clone());
                right += 1;
            }
            std::cmp::Ordering::Equal => {
                left += 1;
                right += 1;
            }
        }
    }
    format!(
        "SQLite has {} rows, Basalt {}.\nOnly in SQLite's:\n{}\nOnly in Basalt's:\n{}",
        expected.len(),
        actual.len(),
        describe_rows(&only_expected, 10),
        describe_rows(&only_actual, 10)
    )
}

/// Makes the twin's copy of `table` equal to Basalt's (after an INSERT whose conflict
/// clause the twin, without constraints, would apply differently). Only the rows whose
/// number differs are deleted and inserted again: a large table is not copied whole for
/// the few rows an INSERT changes. (Generated tables name their columns c0, c1, …)
fn copy_table_to_twin(engines: &Engines, table: &str) -> Found {
    let read = |target: Target| -> Result<Result<Vec<Vec<Cell>>, String>, TimedOut> {
        match finished(engines.run(target, &format!("SELECT * FROM {table}")))? {
            Outcome::Rows(rows) => Ok(Ok(rows)),
            other => Ok(Err(format!(
                "reading {table} to copy it failed:\n{}",
                describe(&other)
            ))),
        }
    };
    let wanted = match read(Target::Basalt)? {
        Ok(rows) => rows,
        Err(detail) => return Ok(Some((MismatchKind::IndexFree, detail))),
    };
    let present = match read(Target::IndexFree)? {
        Ok(rows) => rows,
        Err(detail) => return Ok(Some((MismatchKind::IndexFree, detail))),
    };
    let mut statements = Vec::new();
    let changes = count_differences(&wanted, &present);
    // Rows the twin has (too many or too few of) are deleted and inserted again; rows it
    // lacks are inserted.
    let replaced = changes
        .iter()
        .filter(|(_, _, present)| *present > 0)
        .count();
    if replaced > 20 {
        statements.push(format!("DELETE FROM {table}"));
        statements.extend(insert_rows(table, &wanted));
    } else {
        let mut inserted = Vec::new();
        for (row, count, present) in changes {
            if present > 0 {
                let conditions: Vec<String> = row
                    .iter()
                    .enumerate()
                    .map(|(position, cell)| {
                        format!("(c{position} IS NOT DISTINCT FROM {})", cell_literal(cell))
                    })
                    .collect();
                statements.push(format!(
                    "DELETE FROM {table} WHERE {}",
                    conditions.join(" AND ")
                ));
            }
            inserted.extend(std::iter::repeat_n(row, count));
        }
        statements.extend(insert_rows(table, &inserted));
    }
    for sql in statements {
        let outcome = finished(engines.run(Target::IndexFree, &sql))?;
        if outcome.failed() {
            let detail = format!(
                "copying {table} to the twin failed:\n{sql}\n{}",
                describe(&outcome)
            );
            return Ok(Some((MismatchKind::IndexFree, detail)));
        }
    }
    Ok(None)
}

/// The rows whose number differs between `wanted` and `present`, each with its numbers in
/// `wanted` and in `present`.
fn count_differences(
    wanted: &[Vec<Cell>],
    present: &[Vec<Cell>],
) -> Vec<(Vec<Cell>, usize, usize)> {
    let group = |rows: &[Vec<Cell>]| {
        let mut groups: Vec<(Vec<Cell>, usize)> = Vec::new();
        for row in canonical(rows) {
            match groups.last_mut() {
                Some((last, count)) if compare_rows(last, &row).is_eq() => *count += 1,
                _ => groups.push((row, 1)),
            }
        }
        groups
    };
    let (wanted, present) = (group(wanted), group(present));
    let mut differences = Vec::new();
    let (mut left, mut right) = (0, 0);
    while left < wanted.len() || right < present.len() {
        let order = match (wanted.get(left), present.get(right)) {
            (Some((one, _)), Some((other, _))) => compare_rows(one, other),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                differences.push((wanted[left].0.clone(), wanted[left].1, 0));
                left += 1;
            }
            std::cmp::Ordering::Greater => {
                differences.push((present[right].0.clone(), 0, present[right].1));
                right += 1;
            }
            std::cmp::Ordering::Equal => {
                if wanted[left].1 != present[right].1 {
                    differences.push((wanted[left].0.clone(), wanted[left].1, present[right].1));
                }
                left += 1;
                right += 1;
            }
        }
    }
    differences
}

/// `INSERT INTO table VALUES …` of `rows` (none for no rows).
fn insert_rows(table: &str, rows: &[Vec<Cell>]) -> Option<String> {
    if rows.is_empty() {
        return None;
    }
    let values: Vec<String> = rows
        .iter()
        .map(|row| {
            let cells: Vec<String> = row.iter().map(cell_literal).collect();
            format!("({})", cells.join(", "))
        })
        .collect();
    Some(format!("INSERT INTO {table} VALUES {}", values.join(", ")))
}

/// A cell as a SQL literal of its own type.
fn cell_literal(cell: &Cell) -> String {
    match cell {
        Cell::Null => "NULL".to_owned(),
        Cell::Integer(value) => value.to_string(),
        Cell::Real(value) => format!("{value:?}"),
        Cell::Text(text) => format!("'{}'", text.replace('\'', "''")),
        Cell::Blob(bytes) => {
            let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
            format!("x'{hex}'")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregates_of_parts_combine_into_the_whole() {
        let parts = vec![
            vec![vec![
                Cell::Integer(2),
                Cell::Integer(5),
                Cell::Text("b".into()),
            ]],
            vec![vec![Cell::Integer(0), Cell::Null, Cell::Null]],
            vec![vec![
                Cell::Integer(1),
                Cell::Integer(-3),
                Cell::Text("a".into()),
            ]],
        ];
        let functions = [
            AggregateFunction::Count,
            AggregateFunction::Sum,
            AggregateFunction::Min,
        ];
        assert_eq!(
            combine_aggregates(&functions, &parts),
            Some(vec![
                Cell::Integer(3),
                Cell::Integer(2),
                Cell::Text("a".into())
            ])
        );
        let empty = vec![vec![vec![Cell::Integer(0), Cell::Null, Cell::Null]]; 3];
        assert_eq!(
            combine_aggregates(&functions, &empty),
            Some(vec![Cell::Integer(0), Cell::Null, Cell::Null])
        );
    }
}
