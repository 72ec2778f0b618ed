//! Statements that read the table they write (the Halloween problem), over tables of many
//! leaves, compared with SQLite (issue 15).
//!
//! A modification must decide its rows from the table as it was when the statement began
//! and change each exactly once: `INSERT INTO t SELECT ... FROM t` must not read its own
//! rows, an UPDATE of the row id or of an indexed column must not meet a row again when its
//! new key lies further along the range being scanned, a subquery over the same table sees
//! the table before the statement. Row triggers that write the table being scanned are the
//! one case where the statement does see changes: as in SQLite, a row the trigger deleted
//! is skipped and a row it changed is written from its current values. After each
//! statement the table and each index (read back through an index scan) must equal
//! SQLite's. Fixtures are in `common/oracle.rs`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;
#[path = "common/oracle.rs"]
mod oracle;

use common::Rng;
use oracle::{P, Pair, wide_id};

const ROWS: i64 = 10_000;

fn pair() -> Pair {
    let pair = Pair::new();
    pair.wide_table(ROWS, 25);
    pair
}

/// A range of row ids starting at a random row (or just below or above it), of a random
/// width from one row to most of the table.
fn id_range(rng: &mut Rng, step: i64) -> [P; 2] {
    let low = wide_id(rng.below(ROWS as u64) as i64) + step % 3 - 1;
    let high = low + [0, 3, 40, 700, 9000][rng.below(5) as usize];
    [P::I(low), P::I(high)]
}

/// Runs `write` over several ranges inside savepoints that are rolled back, then once for
/// good, checking the table against SQLite after each.
fn over_ranges(pair: &Pair, rng: &mut Rng, write: &str, rounds: i64) {
    pair.batch("BEGIN");
    for step in 0..rounds {
        let range = id_range(rng, step);
        pair.batch("SAVEPOINT s");
        pair.same(write, &range);
        if step % 4 == 0 {
            pair.check_wide();
        } else {
            pair.fingerprint_wide();
        }
        pair.batch("ROLLBACK TO s");
        pair.batch("RELEASE s");
    }
    pair.batch("COMMIT");
    pair.fingerprint_wide();
    let range = id_range(rng, 1);
    pair.same(write, &range);
    pair.check_wide();
}

#[test]
fn insert_select_from_itself_reads_only_the_old_rows() {
    let pair = pair();
    let mut rng = Rng::new(11);
    // New row ids just past each source row: inside the range still being read.
    over_ranges(
        &pair,
        &mut rng,
        "INSERT INTO t SELECT id + 1, k, g, u + 30000, d, name, pad FROM t \
         WHERE id BETWEEN ?1 AND ?2",
        12,
    );
    let before: i64 = pair
        .basalt
        .query_row("SELECT count(*) FROM t", (), |row| row.get(0))
        .unwrap();
    let inserted = pair.ok_outcome(
        "INSERT INTO t SELECT id + 100000, k + 1, g, u + 60000, d, name, pad FROM t",
        &[],
    );
    assert_eq!(
        inserted,
        Ok(Err(before as usize)),
        "the table doubles exactly"
    );
    pair.check_wide();
    // Through an index range too, with new keys inside the range.
    pair.ok(
        "INSERT INTO t SELECT id + 300000, k + 1, g, u + 200000, d, name, pad FROM t \
         WHERE k BETWEEN 100 AND 900",
        &[],
    );
    pair.check_wide();
}

#[test]
fn delete_with_subqueries_on_itself() {
    let pair = pair();
    let mut rng = Rng::new(12);
    for write in [
        "DELETE FROM t WHERE id IN (SELECT id FROM t WHERE id BETWEEN ?1 AND ?2 AND k < 2000)",
        "DELETE FROM t WHERE id IN (SELECT id + 3 FROM t WHERE id BETWEEN ?1 AND ?2)",
        "DELETE FROM t WHERE k IN (SELECT k + 1 FROM t WHERE id BETWEEN ?1 AND ?2)",
        "DELETE FROM t WHERE id BETWEEN ?1 AND ?2 \
         AND EXISTS (SELECT 1 FROM t AS t2 WHERE t2.id = t.id - 3 AND t2.k < t.k)",
        "DELETE FROM t WHERE id BETWEEN ?1 AND ?2 \
         AND k > (SELECT avg(k) FROM t AS t2 WHERE t2.g = t.g)",
    ] {
        over_ranges(&pair, &mut rng, write, 6);
    }
}

/// `UPDATE t SET k = <subquery over t> WHERE id BETWEEN ?1 AND ?2` must compute every
/// subquery over the table as it was before the statement (PostgreSQL's meaning). SQLite
/// evaluates SET expressions row by row after the earlier rows changed, so its statement is
/// spelled as two: the new values into a temporary table first, then the update.
fn update_from_subquery(pair: &Pair, rng: &mut Rng, subquery: &str, rounds: i64) {
    let basalt = format!("UPDATE t SET k = {subquery} WHERE id BETWEEN ?1 AND ?2");
    // (?1 and ?2 are named only so that both statements take the same parameters.)
    let sqlite = "UPDATE t SET k = (SELECT v FROM temp.x WHERE x.id = t.id) \
                  WHERE id IN (SELECT id FROM temp.x) AND coalesce(?1, ?2) IS NOT NULL";
    let prepare = format!(
        "CREATE TEMP TABLE x AS SELECT id, {subquery} AS v FROM t WHERE id BETWEEN ?1 AND ?2"
    );
    pair.batch("BEGIN");
    for step in 0..rounds {
        let range = id_range(rng, step);
        pair.batch("SAVEPOINT s");
        pair.sqlite
            .execute(
                &prepare,
                rusqlite::params_from_iter(range.iter().map(|p| match p {
                    P::I(v) => *v,
                    P::T(_) => 0,
                })),
            )
            .unwrap();
        let _ = pair.same_as(&basalt, sqlite, &range);
        pair.sqlite.execute_batch("DROP TABLE temp.x").unwrap();
        pair.check_wide();
        pair.batch("ROLLBACK TO s");
        pair.batch("RELEASE s");
    }
    pair.batch("COMMIT");
}

#[test]
fn update_with_correlated_subqueries_on_itself() {
    let pair = pair();
    let mut rng = Rng::new(13);
    // Each row takes the k of the row before it, which the statement also changes.
    update_from_subquery(
        &pair,
        &mut rng,
        "coalesce((SELECT t2.k FROM t AS t2 WHERE t2.id = t.id - 3), -1)",
        8,
    );
    // Through the two-column index, over keys the statement is changing.
    update_from_subquery(
        &pair,
        &mut rng,
        "(SELECT count(*) FROM t AS t2 WHERE t2.g = t.g AND t2.k < t.k)",
        6,
    );
    update_from_subquery(&pair, &mut rng, "(SELECT max(k) + 1 FROM t)", 4);
}

#[test]
fn updates_of_the_row_id_meet_each_row_once() {
    let pair = pair();
    let mut rng = Rng::new(14);
    for write in [
        // Row ids are multiples of 3: the new id falls into the rest of the range.
        "UPDATE t SET id = id + 1 WHERE id BETWEEN ?1 AND ?2",
        "UPDATE t SET id = id - 1 WHERE id BETWEEN ?1 AND ?2",
        "UPDATE t SET id = -id WHERE id BETWEEN ?1 AND ?2",
        "UPDATE t SET id = id + 2, k = k + 1 WHERE id > ?1 AND id <= ?2 + 1",
        // Onto the next row's id: a duplicate key, on both.
        "UPDATE t SET id = id + 3 WHERE id BETWEEN ?1 AND ?2",
        "UPDATE t SET id = id + 1 WHERE k BETWEEN ?1 % 4000 AND ?2 % 4000",
    ] {
        over_ranges(&pair, &mut rng, write, 8);
    }
}

#[test]
fn updates_of_indexed_columns_meet_each_row_once() {
    let pair = pair();
    let mut rng = Rng::new(15);
    pair.assert_plan(
        "UPDATE t SET k = k + 10 WHERE k BETWEEN 5 AND 50",
        "Index Scan using t_k",
    );
    for write in [
        // New keys further along the index range being read.
        "UPDATE t SET k = k + 10 WHERE k BETWEEN ?1 % 4000 AND ?2 % 4000",
        "UPDATE t SET k = k + 1 WHERE k > ?1 % 4000",
        "UPDATE t SET d = d - 7 WHERE d BETWEEN ?1 * 3 AND ?2 * 3",
        "UPDATE t SET g = g + 1, k = k + 1 WHERE g = 3 AND k BETWEEN ?1 % 4000 AND ?2",
        "UPDATE t SET u = u + 1 WHERE u BETWEEN ?1 / 2 AND ?2 / 2",
        "UPDATE t SET name = name || 'a' WHERE name LIKE 'n1%' AND id BETWEEN ?1 AND ?2",
    ] {
        over_ranges(&pair, &mut rng, write, 8);
    }
}

/// Runs `writes` over ranges of the wide table with `triggers` created first.
fn with_triggers(seed: u64, triggers: &str, writes: &[&str]) {
    let pair = pair();
    pair.batch(triggers);
    let mut rng = Rng::new(seed);
    for write in writes {
        over_ranges(&pair, &mut rng, write, 8);
    }
}

#[test]
fn a_delete_trigger_that_changes_rows_still_to_be_deleted() {
    with_triggers(
        16,
        "CREATE TRIGGER touch_next AFTER DELETE ON t
         BEGIN UPDATE t SET k = k + 1, u = u + 40000, pad = 'touched' WHERE id = old.id + 3; END;",
        &[
            "DELETE FROM t WHERE id BETWEEN ?1 AND ?2",
            // The trigger only changes rows, so which rows go does not depend on the order
            // the statement reaches them (the trigger's k changes do not matter either: the
            // rows to delete were chosen before it ran).
            "DELETE FROM t WHERE k BETWEEN ?1 % 4000 AND ?2 % 4000",
        ],
    );
}

#[test]
fn an_update_trigger_that_deletes_rows_still_to_be_updated() {
    with_triggers(
        17,
        "CREATE TRIGGER drop_next AFTER UPDATE ON t WHEN new.id % 2 = 0
         BEGIN DELETE FROM t WHERE id = new.id + 3; END;",
        &[
            "UPDATE t SET pad = 'x' || pad WHERE id BETWEEN ?1 AND ?2",
            "UPDATE t SET k = k + 1 WHERE id BETWEEN ?1 AND ?2",
            "UPDATE t SET id = id + 100000 WHERE id BETWEEN ?1 AND ?2",
        ],
    );
}

#[test]
fn an_update_trigger_that_changes_rows_still_to_be_updated() {
    with_triggers(
        18,
        "CREATE TRIGGER mark_next AFTER UPDATE OF k ON t
         BEGIN UPDATE t SET name = name || '!', d = d + 1 WHERE id = old.id + 3; END;",
        &[
            "UPDATE t SET k = k + 1 WHERE id BETWEEN ?1 AND ?2",
            "UPDATE t SET k = k + 1, g = g + 1 WHERE g BETWEEN 2 AND 9 AND id BETWEEN ?1 AND ?2",
        ],
    );
}

#[test]
fn triggers_that_insert_into_and_delete_from_the_table_being_read() {
    with_triggers(
        19,
        "CREATE TRIGGER echo AFTER INSERT ON t WHEN new.id % 3 = 1
         BEGIN INSERT INTO t VALUES (new.id + 1, new.k, new.g, new.u + 100000, new.d, new.name, 'echo'); END;
         CREATE TRIGGER drop_next AFTER DELETE ON t
         BEGIN DELETE FROM t WHERE id = old.id + 3; END;",
        &[
            "INSERT INTO t SELECT id + 1, k, g, u + 30000, d, name, pad FROM t \
             WHERE id BETWEEN ?1 AND ?2",
            // Both engines delete in row-id order here, so the same rows are still there
            // when the statement reaches them.
            "DELETE FROM t WHERE id BETWEEN ?1 AND ?2",
        ],
    );
}

#[test]
fn before_triggers_that_write_rows_still_to_be_reached() {
    with_triggers(
        20,
        "CREATE TRIGGER before_delete BEFORE DELETE ON t
         BEGIN UPDATE t SET k = k + 2, name = name || '<' WHERE id = old.id + 3; END;
         CREATE TRIGGER before_update BEFORE UPDATE OF g ON t WHEN old.id % 2 = 1
         BEGIN DELETE FROM t WHERE id = old.id + 3; END;",
        &[
            "DELETE FROM t WHERE id BETWEEN ?1 AND ?2",
            "UPDATE t SET g = g + 1, k = k + 1 WHERE id BETWEEN ?1 AND ?2",
        ],
    );
}

/// A self-referencing table whose ON DELETE / ON UPDATE CASCADE reach rows of the range
/// the statement itself is working through (and rows outside it). SQLite applies the
/// actions at once and Basalt at the statement's end (as PostgreSQL), so the statements'
/// own change counts may differ; the tables may not.
#[test]
fn self_referencing_cascades_over_ranges() {
    let pair = Pair::new();
    pair.batch(
        "CREATE TABLE tree (id INTEGER PRIMARY KEY,
             parent INTEGER REFERENCES tree ON DELETE CASCADE ON UPDATE CASCADE,
             label TEXT);
         CREATE INDEX tree_parent ON tree (parent);",
    );
    let mut rng = Rng::new(21);
    pair.batch("BEGIN");
    for id in 0..10_000i64 {
        let label = P::T(format!("{id}:{}", "l".repeat(30 + rng.below(300) as usize)));
        if id < 10 {
            pair.ok("INSERT INTO tree VALUES (?1, NULL, ?2)", &[P::I(id), label]);
        } else {
            // Parents lie anywhere before the row: subtrees spread over the whole table.
            let parent = P::I(rng.below(id as u64) as i64);
            pair.ok(
                "INSERT INTO tree VALUES (?1, ?2, ?3)",
                &[P::I(id), parent, label],
            );
        }
    }
    pair.batch("COMMIT");
    let check = |pair: &Pair| {
        pair.check(
            "tree",
            &[
                "SELECT id, parent FROM tree WHERE parent BETWEEN -1000000 AND 1000000000 \
               ORDER BY parent, id",
            ],
        );
    };
    for write in [
        "DELETE FROM tree WHERE id BETWEEN ?1 AND ?2",
        "UPDATE tree SET id = id + 100000 WHERE id BETWEEN ?1 AND ?2",
        "UPDATE tree SET id = -id WHERE id BETWEEN ?1 AND ?2",
    ] {
        pair.batch("BEGIN");
        for step in 0..6i64 {
            let low = 3 * rng.below(3000) as i64 + step % 3;
            let high = low + [0, 30, 400, 3000][rng.below(4) as usize];
            pair.batch("SAVEPOINT s");
            pair.same_state(write, &[P::I(low), P::I(high)]);
            check(&pair);
            pair.batch("ROLLBACK TO s");
            pair.batch("RELEASE s");
        }
        pair.batch("COMMIT");
        check(&pair);
    }
}

/// A statement whose rows are still being read while the same transaction writes the
/// table (the caller steps through `Rows` and runs other statements on the connection in
/// between). Which of the new changes the rest of the rows show is not defined (as in
/// SQLite), but the reading must not fail: the scan's leaf is then an old image whose
/// sibling link, and its rows' overflow pages, may since have been reused, and following
/// them reported the file as corrupt (XX001). Every row that exists throughout must still
/// come out once, with its own values.
#[test]
fn reading_while_the_same_transaction_writes() {
    let db = basalt::Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE r (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, pad TEXT);
         CREATE INDEX r_k ON r (k);",
    )
    .unwrap();
    let cases = [
        (
            "SELECT id, pad FROM r",
            "INSERT INTO r SELECT id + 1, k, (id + 1) || ':new' FROM r WHERE id BETWEEN 0 AND 6000",
        ),
        (
            "SELECT id, pad FROM r",
            "DELETE FROM r WHERE id BETWEEN 2500 AND 9000",
        ),
        (
            "SELECT id, pad FROM r ORDER BY id DESC",
            "DELETE FROM r WHERE id BETWEEN 3000 AND 11000",
        ),
        (
            "SELECT id, pad FROM r ORDER BY id DESC",
            "UPDATE r SET pad = pad || repeat('y', 5000) WHERE id < 12000",
        ),
        (
            "SELECT id, pad FROM r WHERE k BETWEEN 0 AND 99",
            "UPDATE r SET k = k + 1, pad = pad || 'yy' WHERE id < 14000",
        ),
        (
            "SELECT id, pad FROM r WHERE k BETWEEN 0 AND 99 ORDER BY k DESC",
            "DELETE FROM r WHERE k BETWEEN 20 AND 60",
        ),
    ];
    for (read, write) in cases {
        conn.execute_batch("BEGIN").unwrap();
        for i in 0..8000i64 {
            // Every fifth row's text overflows its leaf.
            let length = if i % 5 == 0 { 3000 } else { 60 };
            let pad = format!("{}:{}", i * 2, "p".repeat(length));
            conn.execute("INSERT INTO r VALUES (?1, ?2, ?3)", (i * 2, i % 100, pad))
                .unwrap();
        }
        let before: std::collections::BTreeSet<i64> = conn
            .prepare("SELECT id FROM r")
            .unwrap()
            .query(())
            .unwrap()
            .map(|row| row.get(0))
            .unwrap()
            .into_iter()
            .collect();
        let mut statement = conn.prepare(read).unwrap();
        let mut rows = statement.query(()).unwrap();
        let mut seen = Vec::new();
        let mut check = |row: &basalt::Row<'_>| {
            let id: i64 = row.get(0).unwrap();
            let pad: String = row.get(1).unwrap();
            assert!(
                pad.starts_with(&format!("{id}:")),
                "{read}: row {id} has {pad:.20}"
            );
            seen.push(id);
        };
        for _ in 0..10 {
            check(&rows.next().unwrap().unwrap());
        }
        conn.execute(write, ()).unwrap();
        loop {
            match rows.next() {
                Ok(Some(row)) => check(&row),
                Ok(None) => break,
                Err(error) => panic!("{read} after {write}: {} {}", error.code(), error.message()),
            }
        }
        drop(rows);
        let after: std::collections::BTreeSet<i64> = conn
            .prepare("SELECT id FROM r")
            .unwrap()
            .query(())
            .unwrap()
            .map(|row| row.get(0))
            .unwrap()
            .into_iter()
            .collect();
        let mut sorted = seen.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if !read.contains("WHERE k") {
            assert_eq!(sorted.len(), seen.len(), "{read}: a row came out twice");
            for id in before.intersection(&after) {
                assert!(
                    sorted.binary_search(id).is_ok(),
                    "{read} after {write}: row {id} lost"
                );
            }
        }
        conn.execute_batch("ROLLBACK").unwrap();
    }
}
