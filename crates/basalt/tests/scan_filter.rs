//! Filtering inside the page (`exec/operators/leaf_filter.rs`): a forward table scan under a
//! filter tests the filter's simple conjuncts (`column op constant`, `IS [NOT] NULL`) on the
//! leaf's column arrays and copies only the rows that may pass. Compared with SQLite on a
//! table of 20,000 rows over hundreds of leaves: integers, reals and short text with NULLs,
//! long text of which some overflows the page, and a column added by ALTER TABLE halfway
//! (so older leaves lack it and read it as NULL); every comparison operator, both operand
//! orders, literals and parameters, NULL constants, integers against reals, conjuncts mixed
//! with ones that cannot be tested in the page, and aggregates over the filtered scan. The
//! evaluator's own semantics for what SQLite does not have (NaN, -0.0, booleans) are
//! checked against the same comparison evaluated as a projected column.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;
#[path = "common/oracle.rs"]
mod oracle;

use basalt::Database;
use common::Rng;
use oracle::{P, Pair};

const ROWS: i64 = 20_000;

fn insert_rows(pair: &Pair, range: std::ops::Range<i64>, with_late: bool, rng: &mut Rng) {
    pair.batch("BEGIN");
    for i in range {
        let a = match rng.below(10) {
            0 => "NULL".to_owned(),
            _ => (rng.below(4000) as i64 - 100).to_string(),
        };
        let r = match rng.below(10) {
            0 => "NULL".to_owned(),
            _ => format!("{}.{}", rng.below(200) as i64 - 50, rng.below(4) * 25),
        };
        let s = match rng.below(10) {
            0 => "NULL".to_owned(),
            _ => format!(
                "'{}{}'",
                ["a", "m", "x", "é", ""][rng.below(5) as usize],
                rng.below(500)
            ),
        };
        let length = match rng.below(50) {
            0 => 5000,
            _ => 10 + rng.below(200) as usize,
        };
        let pad = format!(
            "'{}'",
            char::from(b'a' + (i % 26) as u8).to_string().repeat(length)
        );
        let late = match (with_late, rng.below(4)) {
            (false, _) | (true, 0) => "NULL".to_owned(),
            (true, _) => rng.below(10).to_string(),
        };
        let sql = if with_late {
            format!("INSERT INTO f VALUES ({i}, {a}, {r}, {s}, {pad}, {late})")
        } else {
            format!("INSERT INTO f VALUES ({i}, {a}, {r}, {s}, {pad})")
        };
        pair.ok(&sql, &[]);
    }
    pair.batch("COMMIT");
}

fn table() -> Pair {
    let pair = Pair::new();
    pair.batch("CREATE TABLE f (id INTEGER PRIMARY KEY, a INTEGER, r REAL, s TEXT, pad TEXT)");
    let mut rng = Rng::new(7);
    insert_rows(&pair, 1..ROWS / 2 + 1, false, &mut rng);
    pair.batch("ALTER TABLE f ADD COLUMN late INTEGER");
    insert_rows(&pair, ROWS / 2 + 1..ROWS + 1, true, &mut rng);
    pair
}

/// Filters each test of which runs through the in-page filter, with what SQLite runs.
const FILTERS: &[&str] = &[
    "a = 17",
    "a <> 17",
    "a < 0",
    "0 > a",
    "a <= -90",
    "a > 3850",
    "3850 <= a",
    "a >= 3899",
    "a IS NULL",
    "a IS NOT NULL",
    "a = 2.5",
    "a > 3800.5",
    "a < -99.75",
    "r = 12.25",
    "r < -49",
    "r >= 149.75",
    "-10 < r",
    "r <> 0",
    "r IS NULL",
    "s = 'x17'",
    "s < 'a2'",
    "s >= 'é4'",
    "'m' > s",
    "s <> 'a1'",
    "s = ''",
    "s IS NULL",
    "pad = 'q'",
    "pad > 'y'",
    "pad < 'b'",
    "late IS NULL",
    "late IS NOT NULL",
    "late = 3",
    "late <> 3",
    "a = NULL",
    "NULL <> a",
    "a > 100 AND s IS NOT NULL AND r < 0",
    "(a < 0 OR a > 3890) AND s IS NULL",
    "a % 7 = 3 AND r > 100",
    "a < 50 AND late IS NOT NULL",
    "late = 5 AND pad > 'x'",
];

#[test]
fn in_page_filters_return_what_sqlite_returns() {
    let pair = table();
    for filter in FILTERS {
        pair.ok(
            &format!("SELECT id, a, r, s, late FROM f WHERE {filter} ORDER BY id"),
            &[],
        );
        pair.ok(&format!("SELECT count(*) FROM f WHERE {filter}"), &[]);
    }
    pair.ok(
        "SELECT * FROM f WHERE pad = (SELECT pad FROM f WHERE length(pad) = 5000 LIMIT 1)",
        &[],
    );
    let mut rng = Rng::new(3);
    for _ in 0..40 {
        let a = rng.below(4000) as i64 - 100;
        let text = format!("x{}", rng.below(500));
        pair.ok("SELECT id FROM f WHERE a = ?", &[P::I(a)]);
        pair.ok(
            "SELECT id, s FROM f WHERE ? <= a AND s < ?",
            &[P::I(a), P::T(text.clone())],
        );
        pair.ok("SELECT id FROM f WHERE s = ?", &[P::T(text)]);
    }
    // Row-id ranges with an in-page filter end where the range ends.
    pair.ok(
        "SELECT id FROM f WHERE id BETWEEN 9000 AND 11000 AND a < 100 ORDER BY id",
        &[],
    );
    pair.ok(
        "SELECT id FROM f WHERE id > 19000 AND late = 2 ORDER BY id",
        &[],
    );
}

#[test]
fn the_scan_copies_only_the_rows_its_filter_may_pass() {
    let pair = table();
    // EXPLAIN ANALYZE counts what the scan handed up: with `a < 0` tested in the page, the
    // rows with a < 0, not all 20,000.
    let Ok(Ok(matching)) = pair.run_basalt("SELECT count(*) FROM f WHERE a < 0", &[]) else {
        panic!("count failed");
    };
    let Ok(Ok(plan)) = pair.run_basalt("EXPLAIN ANALYZE SELECT id FROM f WHERE a < 0", &[]) else {
        panic!("EXPLAIN ANALYZE failed");
    };
    let text: Vec<String> = plan.iter().map(|row| format!("{:?}", row[0])).collect();
    let text = text.join("\n");
    let oracle::Cell::Integer(matching) = matching[0][0] else {
        panic!("count is not an integer");
    };
    assert!(matching > 0 && matching < ROWS / 10, "{matching}");
    assert!(
        text.contains(&format!("Table Scan on f  (actual rows={matching} loops=1")),
        "{text}"
    );
}

/// What SQLite lacks: NaN, signed zeros and booleans, against the evaluator itself (the same
/// comparison projected as a column, which no scan filters).
#[test]
fn in_page_comparisons_agree_with_the_evaluator() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute_batch("CREATE TABLE v (id INTEGER PRIMARY KEY, r REAL, b BOOLEAN, i INTEGER)")
        .unwrap();
    conn.execute_batch("BEGIN").unwrap();
    let reals = [
        "'NaN'::float8",
        "'-0'::float8",
        "0.0",
        "'Infinity'::float8",
        "'-Infinity'::float8",
        "1.5",
        "-1.5",
        "NULL",
    ];
    for id in 0..6_000i64 {
        let r = reals[(id % 8) as usize];
        let b = ["true", "false", "NULL"][(id % 3) as usize];
        let i = match id % 5 {
            0 => "NULL".to_owned(),
            1 => i64::MAX.to_string(),
            2 => i64::MIN.to_string(),
            _ => (id % 11 - 5).to_string(),
        };
        conn.execute(&format!("INSERT INTO v VALUES ({id}, {r}, {b}, {i})"), ())
            .unwrap();
    }
    conn.execute_batch("COMMIT").unwrap();
    let filters = [
        "r = 'NaN'::float8",
        "r > 'Infinity'::float8",
        "r < 'NaN'::float8",
        "r = 0.0",
        "r = '-0'::float8",
        "r <= 0.0",
        "r <> 1.5",
        "b = true",
        "b <> true",
        "b < true",
        "false >= b",
        "i = 9223372036854775807",
        "i > 9223372036854775806.0",
        "i < -9223372036854775807",
        "i >= 0.5",
        "i = 3",
        "r > 1",
        "r = 1.5 AND b IS NOT NULL",
    ];
    // The ids whose second column is true.
    let ids = |sql: &str| -> Vec<i64> {
        let mut statement = conn.prepare(sql).unwrap();
        let mut rows = statement.query(()).unwrap();
        let mut out = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            if row.get::<Option<bool>>(1).unwrap() == Some(true) {
                out.push(row.get::<i64>(0).unwrap());
            }
        }
        out
    };
    for filter in filters {
        let filtered = ids(&format!(
            "SELECT id, true FROM v WHERE {filter} ORDER BY id"
        ));
        let projected = ids(&format!("SELECT id, ({filter}) FROM v ORDER BY id"));
        assert_eq!(filtered, projected, "{filter}");
        assert!(!filtered.is_empty(), "{filter}");
    }
}
