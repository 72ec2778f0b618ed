//! The owned session API: named statements, describe, portals executed N rows at a time and
//! resumed, their snapshots, their end with the transaction, and cancel. Tables here span
//! many pages (20k rows), so a portal that resumes reads across leaves between executions.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt::{ColumnDescription, DataType, Database, Execution, Session, TypeModifier, sqlstate};

const ROWS: i64 = 20_000;

/// A database with `t(id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, score REAL)` of
/// [`ROWS`] rows and an index on `score`.
fn database() -> Database {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, score REAL);
         CREATE INDEX t_score ON t (score);",
    )
    .unwrap();
    let tx = conn.transaction().unwrap();
    {
        let mut insert = tx.prepare("INSERT INTO t VALUES ($1, $2, $3)").unwrap();
        for id in 1..=ROWS {
            insert
                .execute((id, format!("name-{id}"), (id % 97) as f64))
                .unwrap();
        }
    }
    tx.commit().unwrap();
    db
}

/// Executes `portal` for up to `max_rows` rows, returning the first column of each row.
fn fetch(session: &Session, portal: &str, max_rows: u64) -> (Vec<i64>, Execution) {
    let mut ids = Vec::new();
    let execution = session
        .execute_portal(portal, max_rows, |row| {
            ids.push(row.get::<i64>(0)?);
            Ok(())
        })
        .unwrap();
    (ids, execution)
}

fn column(name: &str, data_type: DataType) -> (String, DataType) {
    (name.to_string(), data_type)
}

fn names_and_types(columns: &[ColumnDescription]) -> Vec<(String, DataType)> {
    columns
        .iter()
        .map(|c| (c.name.clone(), c.data_type))
        .collect()
}

#[test]
fn session_is_owned_and_send() {
    fn assert_owned_send<T: Send + 'static>() {}
    assert_owned_send::<Session>();
}

#[test]
fn describe_reports_parameters_and_columns_with_their_sources() {
    let db = database();
    let session = db.session();
    let description = session
        .prepare_named(
            "q",
            "SELECT id, name AS who, score * 2, count(*) OVER () FROM t WHERE id > $1 AND name <> $2",
        )
        .unwrap();
    let parameter_types: Vec<DataType> =
        description.parameters.iter().map(|p| p.data_type).collect();
    assert_eq!(
        parameter_types,
        vec![DataType::Integer, DataType::Text(None)]
    );
    assert_eq!(
        names_and_types(&description.columns),
        vec![
            column("id", DataType::Integer),
            column("who", DataType::Text(Some(20))),
            column("?column?", DataType::Real),
            column("count", DataType::Integer),
        ]
    );
    let who = &description.columns[1];
    assert_eq!(who.table.as_deref(), Some("t"));
    assert_eq!(who.column.as_deref(), Some("name"));
    assert_eq!(who.data_type, DataType::Text(Some(20)));
    assert_eq!(who.data_type.modifier(), Some(TypeModifier::Length(20)));
    assert_eq!(
        who.data_type.modifier().map(TypeModifier::pg_typmod),
        Some(24)
    );
    assert_eq!(description.columns[0].column.as_deref(), Some("id"));
    assert_eq!(description.columns[0].data_type.modifier(), None);
    assert_eq!(
        description.columns[2].table, None,
        "an expression has no source"
    );
    assert_eq!(
        description.columns[3].table, None,
        "a window function has no source"
    );

    // Through a join, a subquery in FROM and GROUP BY keys the source survives.
    let description = session
        .prepare_named(
            "grouped",
            "SELECT s.name, count(*) FROM (SELECT name FROM t) AS s JOIN t u ON u.name = s.name GROUP BY s.name",
        )
        .unwrap();
    assert_eq!(description.columns[0].table.as_deref(), Some("t"));
    assert_eq!(description.columns[0].column.as_deref(), Some("name"));
    assert_eq!(description.columns[1].column, None);

    // A write has no result columns unless it returns some.
    let insert = session
        .prepare_named("ins", "INSERT INTO t (id, name) VALUES ($1, $2)")
        .unwrap();
    assert!(insert.columns.is_empty());
    assert_eq!(insert.parameters.len(), 2);
    let returning = session
        .prepare_named("del", "DELETE FROM t WHERE id = $1 RETURNING name, id + 1")
        .unwrap();
    assert_eq!(returning.columns[0].column.as_deref(), Some("name"));
    assert_eq!(
        returning.columns[0].data_type.modifier(),
        Some(TypeModifier::Length(20))
    );
    assert_eq!(returning.columns[1].column, None);

    // Describing again gives the same answer; after DDL the statement is re-planned.
    assert_eq!(session.describe_statement("q").unwrap().columns.len(), 4);
    session
        .execute_batch("ALTER TABLE t RENAME COLUMN name TO label")
        .unwrap();
    let error = session.describe_statement("q").unwrap_err();
    assert_eq!(error.sqlstate(), sqlstate::UNDEFINED_COLUMN);
    let star = session.prepare_named("star", "SELECT * FROM t").unwrap();
    assert_eq!(star.columns[1].name, "label");
    assert_eq!(star.columns[1].column.as_deref(), Some("label"));
}

#[test]
fn statement_names_follow_postgresql() {
    let db = database();
    let session = db.session();
    session.prepare_named("a", "SELECT 1").unwrap();
    let duplicate = session.prepare_named("a", "SELECT 2").unwrap_err();
    assert_eq!(duplicate.sqlstate(), sqlstate::DUPLICATE_PREPARED_STATEMENT);
    // The unnamed statement is replaced silently.
    session.prepare_named("", "SELECT 1").unwrap();
    session.prepare_named("", "SELECT 'two'").unwrap();
    assert_eq!(
        session.describe_statement("").unwrap().columns[0].data_type,
        DataType::Text(None)
    );
    let missing = session.describe_statement("nope").unwrap_err();
    assert_eq!(missing.sqlstate(), sqlstate::INVALID_SQL_STATEMENT_NAME);
    let missing = session.bind("p", "nope", ()).unwrap_err();
    assert_eq!(missing.sqlstate(), sqlstate::INVALID_SQL_STATEMENT_NAME);
    session.close_statement("a");
    assert!(!session.has_statement("a"));
    session.close_statement("a"); // closing what is not there is not an error
    session.prepare_named("a", "SELECT 3").unwrap();

    session.bind("p", "a", ()).unwrap();
    let duplicate = session.bind("p", "a", ()).unwrap_err();
    assert_eq!(duplicate.sqlstate(), sqlstate::DUPLICATE_CURSOR);
    let missing = session.execute_portal("q", 0, |_| Ok(())).unwrap_err();
    assert_eq!(missing.sqlstate(), sqlstate::INVALID_CURSOR_NAME);
    let missing = session.describe_portal("q").unwrap_err();
    assert_eq!(missing.sqlstate(), sqlstate::INVALID_CURSOR_NAME);
    // Wrong parameter count is refused at bind.
    session.prepare_named("one", "SELECT $1::int").unwrap();
    let error = session.bind("x", "one", ()).unwrap_err();
    assert_eq!(error.sqlstate(), sqlstate::PROTOCOL_VIOLATION);
}

#[test]
fn portal_resumes_across_many_leaves() {
    let db = database();
    let session = db.session();
    session
        .prepare_named(
            "range",
            "SELECT id FROM t WHERE id BETWEEN $1 AND $2 ORDER BY id",
        )
        .unwrap();
    session.bind("p", "range", (1_001, 18_000)).unwrap();
    let columns = session.describe_portal("p").unwrap();
    assert_eq!(
        names_and_types(&columns),
        vec![column("id", DataType::Integer)]
    );

    let mut seen = Vec::new();
    let mut executions = 0;
    loop {
        let (ids, execution) = fetch(&session, "p", 777);
        executions += 1;
        seen.extend(ids);
        if !execution.suspended {
            assert!(execution.rows < 777);
            break;
        }
        assert_eq!(execution.rows, 777);
    }
    assert_eq!(seen, (1_001..=18_000).collect::<Vec<i64>>());
    assert_eq!(executions, 17_000 / 777 + 1);
    // A finished portal returns nothing more.
    let (ids, execution) = fetch(&session, "p", 10);
    assert!(ids.is_empty());
    assert!(!execution.suspended);
    session.close_portal("p");
    assert!(!session.has_portal("p"));

    // A limit that divides the rows exactly ends suspended; the next execution returns none.
    session.bind("exact", "range", (1, 2_000)).unwrap();
    let (ids, execution) = fetch(&session, "exact", 2_000);
    assert_eq!(ids.len(), 2_000);
    assert!(execution.suspended);
    let (ids, execution) = fetch(&session, "exact", 2_000);
    assert!(ids.is_empty());
    assert!(!execution.suspended);
}

#[test]
fn portals_of_one_statement_interleave_and_outlive_it() {
    let db = database();
    let session = db.session();
    session
        .prepare_named("by_score", "SELECT id FROM t WHERE score = $1 ORDER BY id")
        .unwrap();
    session.bind("a", "by_score", (5.0,)).unwrap();
    session.bind("b", "by_score", (6.0,)).unwrap();
    session.close_statement("by_score");
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        a.extend(fetch(&session, "a", 50).0);
        b.extend(fetch(&session, "b", 70).0);
    }
    a.extend(fetch(&session, "a", 0).0);
    b.extend(fetch(&session, "b", 0).0);
    let expected = |score: i64| -> Vec<i64> { (1..=ROWS).filter(|id| id % 97 == score).collect() };
    assert_eq!(a, expected(5));
    assert_eq!(b, expected(6));
}

#[test]
fn portal_reads_its_snapshot_while_others_commit() {
    let db = database();
    let session = db.session();
    session
        .prepare_named("all", "SELECT id FROM t ORDER BY id")
        .unwrap();
    session.bind("p", "all", ()).unwrap();
    let (mut seen, _) = fetch(&session, "p", 1_000);
    // Another session deletes and inserts rows the portal has not reached yet.
    let other = db.connect();
    other.execute("DELETE FROM t WHERE id > 10000", ()).unwrap();
    other
        .execute("INSERT INTO t VALUES (50000, 'late', 1.0)", ())
        .unwrap();
    // Between executions this session runs other statements of its own.
    session
        .execute_batch("CREATE TABLE other (x INTEGER)")
        .unwrap();
    seen.extend(fetch(&session, "p", 0).0);
    assert_eq!(seen, (1..=ROWS).collect::<Vec<i64>>());
    // A new portal sees the committed changes.
    session.bind("q", "all", ()).unwrap();
    let (now, _) = fetch(&session, "q", 0);
    assert_eq!(now.len(), 10_001);
    assert_eq!(now.last(), Some(&50_000));
}

#[test]
fn portals_end_with_their_transaction() {
    let db = database();
    let session = db.session();
    session.execute_batch("BEGIN").unwrap();
    session
        .execute_batch("UPDATE t SET score = -1 WHERE id <= 100")
        .unwrap();
    session
        .prepare_named("low", "SELECT id FROM t WHERE score < 0 ORDER BY id")
        .unwrap();
    session.bind("p", "low", ()).unwrap();
    let (first, execution) = fetch(&session, "p", 10);
    assert_eq!(first, (1..=10).collect::<Vec<i64>>());
    assert!(execution.suspended);
    // COMMIT run as a portal: it closes every portal (its own too) and the commit succeeds
    // although a portal was reading the transaction.
    session.prepare_named("commit", "COMMIT").unwrap();
    session.bind("c", "commit", ()).unwrap();
    let execution = session.execute_portal("c", 0, |_| Ok(())).unwrap();
    assert_eq!(execution.rows, 0);
    assert!(!session.has_portal("p"));
    assert!(!session.has_portal("c"));
    assert!(!session.in_transaction());
    let count: i64 = db
        .connect()
        .query_row("SELECT count(*) FROM t WHERE score < 0", (), |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(count, 100, "the update committed");

    // ROLLBACK closes portals too.
    session.execute_batch("BEGIN").unwrap();
    session.bind("p", "low", ()).unwrap();
    fetch(&session, "p", 5);
    session.execute_batch("ROLLBACK").unwrap();
    assert!(!session.has_portal("p"));
}

#[test]
fn a_writing_portal_runs_whole_at_its_first_execution() {
    let db = database();
    let session = db.session();
    session
        .prepare_named(
            "move",
            "UPDATE t SET score = score + 1000 WHERE id BETWEEN $1 AND $2 RETURNING id",
        )
        .unwrap();
    session.bind("w", "move", (5_001, 15_000)).unwrap();
    let (first, execution) = fetch(&session, "w", 100);
    assert_eq!(first.len(), 100);
    assert!(execution.suspended);
    // Every row is already updated (and committed: the statement autocommitted).
    let moved: i64 = db
        .connect()
        .query_row("SELECT count(*) FROM t WHERE score >= 1000", (), |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(moved, 10_000);
    let (rest, execution) = fetch(&session, "w", 0);
    assert!(!execution.suspended);
    let mut all: Vec<i64> = first.into_iter().chain(rest).collect();
    all.sort_unstable();
    assert_eq!(all, (5_001..=15_000).collect::<Vec<i64>>());

    // Without RETURNING the execution reports the rows changed.
    session
        .prepare_named("del", "DELETE FROM t WHERE id > $1")
        .unwrap();
    session.bind("", "del", (19_000,)).unwrap();
    let execution = session.execute_portal("", 1, |_| Ok(())).unwrap();
    assert_eq!(execution.rows, 1_000);
    assert!(!execution.suspended);
    assert_eq!(session.changes(), 1_000);
}

#[test]
fn a_failed_execution_closes_its_portal() {
    let db = database();
    let session = db.session();
    session
        .prepare_named("div", "SELECT 100 / (id - 15000) FROM t ORDER BY id")
        .unwrap();
    session.bind("p", "div", ()).unwrap();
    let (rows, _) = fetch(&session, "p", 10);
    assert_eq!(rows.len(), 10);
    let error = session.execute_portal("p", 0, |_| Ok(())).unwrap_err();
    assert_eq!(error.sqlstate(), sqlstate::DIVISION_BY_ZERO);
    assert!(!session.has_portal("p"));
    // An error from the row callback stops the execution and closes the portal too.
    session.bind("p", "div", ()).unwrap();
    let mut calls = 0;
    let error = session
        .execute_portal("p", 0, |_| {
            calls += 1;
            Err(basalt::Error::new(
                sqlstate::QUERY_CANCELED,
                "client went away",
            ))
        })
        .unwrap_err();
    assert_eq!(error.sqlstate(), sqlstate::QUERY_CANCELED);
    assert_eq!(calls, 1);
    assert!(!session.has_portal("p"));
}

#[test]
fn cancel_stops_the_running_execution_only() {
    let db = database();
    let session = db.session();
    let handle = session.interrupt_handle();
    session
        .prepare_named("all", "SELECT id FROM t ORDER BY score, id")
        .unwrap();
    session.bind("p", "all", ()).unwrap();
    // Cancelled from "another thread" while running: here from the row callback, which runs
    // inside the execution, so the test needs no timing.
    let mut rows = 0;
    let error = session
        .execute_portal("p", 0, |_| {
            rows += 1;
            if rows == 1 {
                let handle = handle.clone();
                std::thread::spawn(move || handle.interrupt())
                    .join()
                    .unwrap();
            }
            Ok(())
        })
        .unwrap_err();
    assert_eq!(error.sqlstate(), sqlstate::QUERY_CANCELED);
    assert!((rows as i64) < ROWS, "the execution stopped early");
    assert!(!session.has_portal("p"));

    // An interrupt while a portal is suspended is forgotten when it resumes.
    session.bind("p", "all", ()).unwrap();
    let (first, _) = fetch(&session, "p", 5);
    handle.interrupt();
    let (rest, execution) = fetch(&session, "p", 0);
    assert!(!execution.suspended);
    assert_eq!(first.len() + rest.len(), ROWS as usize);
}

#[test]
fn connection_and_session_api_share_one_session() {
    let db = database();
    let conn = db.connect();
    let tx = conn.transaction().unwrap();
    tx.execute("INSERT INTO t VALUES (30000, 'inside', 0.5)", ())
        .unwrap();
    let session = conn.session();
    assert!(session.in_transaction());
    session
        .prepare_named("find", "SELECT name FROM t WHERE id = $1")
        .unwrap();
    session.bind("p", "find", (30_000,)).unwrap();
    let mut names = Vec::new();
    session
        .execute_portal("p", 0, |row| {
            names.push(row.get::<String>(0)?);
            Ok(())
        })
        .unwrap();
    assert_eq!(
        names,
        vec!["inside".to_string()],
        "the portal reads the open transaction"
    );
    tx.rollback().unwrap();
    assert!(!conn.session().has_portal("p"));
    let value: Option<String> = conn
        .query_row("SELECT name FROM t WHERE id = 30000", (), |row| row.get(0))
        .ok();
    assert_eq!(value, None);
}
