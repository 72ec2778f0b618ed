//! Range reads and writes over tables of many leaves, compared with SQLite (issue 15).
//!
//! Row-id range scans once stopped at the end of the first leaf, and nothing noticed
//! because every test table fitted in one. Here the wide table (`common/oracle.rs`: 12,000
//! rows of seven columns, a dozen rows per leaf, five secondary indexes) is read and
//! written through every access path — row-id ranges both ways, row-id and index IN-list
//! seeks, index ranges both ways on single, multi-column, UNIQUE and DESC indexes, index
//! equality, full scans, top-N over ranges, LIKE / GLOB prefixes, index joins by row id and
//! by index — with bounds swept across every row (so every leaf boundary is a bound, and
//! so are ids just below and above one), before the first row and beyond the last.
//! Modifications run in savepoints that are rolled back (ROLLBACK TO must restore the
//! table and its indexes) and in autocommit; after each the table, and each index read
//! back through an index scan, must equal SQLite's. The Halloween-problem and trigger cases
//! are in `large_writes.rs`.

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

const ROWS: i64 = 12_000;
/// The largest row id of the wide table.
const LAST: i64 = 12 + 3 * (ROWS - 1);

fn pair() -> Pair {
    let pair = Pair::new();
    pair.wide_table(ROWS, 15);
    pair
}

/// Bounds before the first row, at both ends and beyond the last.
const EDGES: [i64; 10] = [
    i64::MIN,
    -1,
    0,
    11,
    12,
    13,
    LAST - 1,
    LAST,
    LAST + 1,
    i64::MAX,
];

#[test]
fn row_id_ranges_read_across_every_leaf_boundary() {
    let pair = pair();
    let mut rng = Rng::new(1);
    pair.assert_plan(
        "SELECT count(*) FROM t WHERE id BETWEEN 100 AND 200",
        "Table Scan on t (row id range)",
    );
    let count = "SELECT count(*), min(id), max(id), sum(k) FROM t WHERE id BETWEEN ?1 AND ?2";
    let open = "SELECT count(*), min(id), max(id), sum(k) FROM t WHERE id > ?1 AND id < ?2";
    let backwards = "SELECT id, k, name FROM t WHERE id BETWEEN ?1 AND ?2 ORDER BY id DESC";
    // Reverse and forward scans starting at the bound (a LIMIT under the ORDER BY still
    // reads a full batch, so the short ranges are what make a sweep over every row cheap).
    let down_from = "SELECT id, g FROM t WHERE id <= ?1 AND id > ?1 - 40 ORDER BY id DESC";
    let down_below = "SELECT id, g FROM t WHERE id < ?1 AND id >= ?1 - 40 ORDER BY id DESC";
    let up_from = "SELECT id, g FROM t WHERE id >= ?1 AND id < ?1 + 40 ORDER BY id";
    let top_down = "SELECT id, g FROM t WHERE id <= ?1 ORDER BY id DESC LIMIT 3";
    let top = "SELECT id, g FROM t WHERE id > ?1 ORDER BY id LIMIT 3";
    let top_offset = "SELECT id FROM t WHERE id <= ?1 ORDER BY id DESC LIMIT 2 OFFSET 13";
    let whole_rows = "SELECT * FROM t WHERE id BETWEEN ?1 AND ?2";
    for i in 0..ROWS {
        // Every row id and the ids just below and above it start a range, so each leaf's
        // first and last row is a bound of some range, inclusive and exclusive.
        let low = wide_id(i) + (i % 3) - 1;
        let high = low + rng.below(60) as i64;
        pair.ok(count, &[P::I(low), P::I(high)]);
        pair.ok(open, &[P::I(low), P::I(high)]);
        pair.ok(down_from, &[P::I(low)]);
        pair.ok(down_below, &[P::I(low)]);
        pair.ok(up_from, &[P::I(low)]);
        if i % 4 == 0 {
            pair.ok(backwards, &[P::I(low), P::I(high)]);
        }
        if i % 16 == 0 {
            pair.ok(top_down, &[P::I(low)]);
            pair.ok(top, &[P::I(low)]);
            pair.ok(top_offset, &[P::I(low)]);
        }
        if i % 50 == 0 {
            pair.ok(whole_rows, &[P::I(low), P::I(low + 600)]);
        }
    }
    // Long one-sided ranges, stopping or starting everywhere.
    for i in (0..ROWS).step_by(89) {
        let bound = wide_id(i) + (i % 3) - 1;
        for sql in [
            "SELECT count(*), sum(k) FROM t WHERE id < ?1",
            "SELECT count(*), sum(k) FROM t WHERE id <= ?1",
            "SELECT count(*), sum(k) FROM t WHERE id > ?1",
            "SELECT count(*), sum(k) FROM t WHERE id >= ?1",
            "SELECT sum(d) FROM (SELECT d FROM t WHERE id < ?1 ORDER BY id DESC) AS x",
        ] {
            pair.ok(sql, &[P::I(bound)]);
        }
    }
    for low in EDGES {
        for high in EDGES {
            pair.ok(count, &[P::I(low), P::I(high)]);
            pair.ok(open, &[P::I(low), P::I(high)]);
        }
        pair.ok(top_down, &[P::I(low)]);
        pair.ok(top, &[P::I(low)]);
    }
    // Full scans, both ways.
    pair.check_wide();
    pair.ok("SELECT id, k, pad FROM t ORDER BY id DESC", &[]);
}

/// An IN list of `count` row ids (or values of `column` of the wide table's rows), present
/// and absent, spread over the whole table.
fn in_list(rng: &mut Rng, count: usize, value: impl Fn(i64) -> i64) -> String {
    let values: Vec<String> = (0..count)
        .map(|_| {
            let i = rng.below(ROWS as u64 + 20) as i64 - 10;
            value(i).to_string()
        })
        .collect();
    values.join(", ")
}

#[test]
fn seeks_from_in_lists_span_leaves() {
    let pair = pair();
    let mut rng = Rng::new(2);
    for round in 0..60 {
        let count = [1, 5, 40, 300][round % 4];
        let ids = in_list(&mut rng, count, |i| wide_id(i) + i64::from(i % 7 == 0));
        let by_id = format!("SELECT id, k, name FROM t WHERE id IN ({ids}) ORDER BY id");
        if round == 2 {
            pair.assert_plan(&by_id, "Row Id Seeks on t");
        }
        pair.ok(&by_id, &[]);
        let ks = in_list(&mut rng, count, |i| i.rem_euclid(4100));
        let by_k = format!("SELECT id, k FROM t WHERE k IN ({ks}) ORDER BY id");
        let us = in_list(&mut rng, count, |i| (i * 7919).rem_euclid(20011));
        let by_u = format!("SELECT id, u FROM t WHERE u IN ({us}) ORDER BY id");
        if round == 2 {
            pair.assert_plan(&by_k, "Index Seeks using t_k on t");
            pair.assert_plan(&by_u, "Index Seeks using t_u on t");
        }
        pair.ok(&by_k, &[]);
        pair.ok(&by_u, &[]);
        // The DESC index's and the text index's first column.
        let ds = in_list(&mut rng, count, |i| i.rem_euclid(3) * 7 + i * 8);
        pair.ok(
            &format!("SELECT id, d FROM t WHERE d IN ({ds}) ORDER BY id"),
            &[],
        );
        let names: Vec<String> = (0..count)
            .map(|_| format!("'n{:04}'", rng.below(3100)))
            .collect();
        let by_name = format!(
            "SELECT id, name FROM t WHERE name IN ({}) ORDER BY id",
            names.join(", ")
        );
        if round == 2 {
            pair.assert_plan(&by_name, "Index Seeks using t_name on t");
        }
        pair.ok(&by_name, &[]);
        pair.ok(
            &format!("SELECT count(*), sum(d) FROM t WHERE id IN ({ids}) AND k IN ({ks})"),
            &[],
        );
    }
}

#[test]
fn index_ranges_read_across_every_leaf_boundary() {
    let pair = pair();
    let mut rng = Rng::new(3);
    let range = "SELECT count(*), min(id), max(id), sum(d) FROM t WHERE k BETWEEN ?1 AND ?2";
    let open = "SELECT count(*), min(id), max(id), sum(d) FROM t WHERE k > ?1 AND k < ?2";
    let backwards = "SELECT id, k FROM t WHERE k BETWEEN ?1 AND ?2 ORDER BY k DESC, id DESC";
    let equal = "SELECT id, g FROM t WHERE k = ?1 ORDER BY id";
    // Top-N: a LIMIT right over the index scan (only k is read, so ties need no order),
    // and a top-N sort over a range (with the row id breaking ties).
    let first = "SELECT k FROM t WHERE k > ?1 ORDER BY k LIMIT 4";
    let last = "SELECT k FROM t WHERE k < ?1 ORDER BY k DESC LIMIT 4";
    let top = "SELECT id, k FROM t WHERE k > ?1 ORDER BY k, id LIMIT 4";
    let top_down = "SELECT id, k FROM t WHERE k < ?1 ORDER BY k DESC, id DESC LIMIT 4";
    pair.assert_plan(
        "SELECT count(*) FROM t WHERE k BETWEEN 5 AND 50",
        "Index Scan using t_k on t (range)",
    );
    // k has about three rows per value: every value starts and ends a range.
    for low in -2..4003 {
        let high = low + rng.below(25) as i64;
        pair.ok(range, &[P::I(low), P::I(high)]);
        pair.ok(open, &[P::I(low), P::I(high)]);
        pair.ok(equal, &[P::I(low)]);
        if low % 8 == 0 {
            pair.ok(first, &[P::I(low)]);
            pair.ok(last, &[P::I(low)]);
        }
        if low % 61 == 0 {
            pair.ok(top, &[P::I(low)]);
            pair.ok(top_down, &[P::I(low)]);
        }
        if low % 3 == 0 {
            pair.ok(backwards, &[P::I(low), P::I(high)]);
        }
    }
    for bound in (-1..4001).step_by(97) {
        pair.ok(
            "SELECT count(*), sum(d) FROM t WHERE k < ?1",
            &[P::I(bound)],
        );
        pair.ok(
            "SELECT count(*), sum(d) FROM t WHERE k >= ?1",
            &[P::I(bound)],
        );
    }
    // The two-column index: an equality on g, then a range on k.
    let within_group = "SELECT id, k FROM t WHERE g = ?1 AND k BETWEEN ?2 AND ?3 ORDER BY k, id";
    let group_down = "SELECT id, k FROM t WHERE g = ?1 AND k < ?2 ORDER BY k DESC, id DESC LIMIT 5";
    pair.assert_plan(
        "SELECT id FROM t WHERE g = 3 AND k BETWEEN 10 AND 20",
        "t_gk",
    );
    for g in -1..21 {
        for low in (-3..4003).step_by(53) {
            let high = low + rng.below(200) as i64;
            pair.ok(within_group, &[P::I(g), P::I(low), P::I(high)]);
            pair.ok(group_down, &[P::I(g), P::I(low)]);
        }
    }
    // The UNIQUE index: a point per value, and ranges.
    let unique_point = "SELECT id, k FROM t WHERE u = ?1";
    let unique_range = "SELECT id, u FROM t WHERE u BETWEEN ?1 AND ?2 ORDER BY u DESC";
    for u in (-2..20015).step_by(3) {
        pair.ok(unique_point, &[P::I(u)]);
        pair.ok(unique_range, &[P::I(u), P::I(u + rng.below(40) as i64)]);
    }
    // The DESC index, read in both directions.
    let descending = "SELECT id, d FROM t WHERE d BETWEEN ?1 AND ?2 ORDER BY d DESC, id";
    let ascending = "SELECT id, d FROM t WHERE d BETWEEN ?1 AND ?2 ORDER BY d, id";
    let above = "SELECT d FROM t WHERE d > ?1 ORDER BY d LIMIT 3";
    let below = "SELECT d FROM t WHERE d < ?1 ORDER BY d DESC LIMIT 3";
    pair.assert_plan(
        "SELECT id FROM t WHERE d BETWEEN 5 AND 500",
        "Index Scan using t_d",
    );
    for low in (-50..100_050).step_by(13) {
        let high = low + rng.below(120) as i64;
        pair.ok(descending, &[P::I(low), P::I(high)]);
        if low % 8 == 0 {
            pair.ok(above, &[P::I(low)]);
            pair.ok(below, &[P::I(low)]);
        }
        if low % 2 == 0 {
            pair.ok(ascending, &[P::I(low), P::I(high)]);
        }
    }
}

/// LIKE patterns whose literal prefix ranges are edge cases: wildcards escaped into the
/// prefix, characters whose successor is special (U+FFFF, U+10FFFF, DEL), an empty
/// prefix, a pattern without wildcards, wildcards right after one character.
const LIKE_PATTERNS: [&str; 22] = [
    "n0%",
    "n01%",
    "n012%",
    "n0123",
    "n29%",
    "n_1%",
    "n%",
    "%",
    "_%",
    "",
    "a\\%b%",
    "a\\_b0%",
    "a\\\\b%",
    "a%",
    "a_b%",
    "\u{e9}%",
    "\u{e9}1%",
    "\u{ffff}%",
    "\u{10ffff}%",
    "zz\u{10ffff}%",
    "zz\u{10ffff}\u{10ffff}%",
    "m\u{7f}%",
];

#[test]
fn like_prefixes_read_index_ranges() {
    let pair = pair();
    pair.assert_plan(
        "SELECT id FROM t WHERE name LIKE 'n01%'",
        "Index Scan using t_name",
    );
    for pattern in LIKE_PATTERNS {
        for query in [
            format!(
                "SELECT id, name FROM t WHERE name LIKE '{pattern}' ESCAPE '\\' ORDER BY name, id"
            ),
            format!("SELECT count(*) FROM t WHERE name NOT LIKE '{pattern}' ESCAPE '\\'"),
            format!(
                "SELECT id, name FROM t WHERE name LIKE '{pattern}' ESCAPE '\\' \
                 ORDER BY name DESC, id LIMIT 7"
            ),
        ] {
            pair.ok(&query, &[]);
        }
    }
    for pattern in ["n01*", "n0?1*", "\u{e9}*", "\u{10ffff}*", "n[01]*", "*"] {
        pair.ok(
            &format!("SELECT id, name FROM t WHERE name GLOB '{pattern}' ORDER BY name, id"),
            &[],
        );
    }
    for prefix in 0..300 {
        pair.ok(
            &format!("SELECT count(*), min(id), max(id) FROM t WHERE name LIKE 'n{prefix:03}%'"),
            &[],
        );
    }
}

/// Prefix ranges read from a DESC text index and from the second column of a two-column
/// index, with prefixes whose successor skips the surrogate gap (U+D7FF to U+E000) or
/// drops trailing U+10FFFF.
#[test]
fn like_prefixes_on_desc_and_two_column_indexes() {
    let pair = Pair::new();
    pair.batch(
        "CREATE TABLE w (id INTEGER PRIMARY KEY, g INTEGER NOT NULL, s TEXT NOT NULL);
         CREATE INDEX w_s ON w (s DESC);
         CREATE INDEX w_gs ON w (g, s);",
    );
    let stems = [
        "\u{d7ff}",
        "\u{d7ff}\u{10ffff}",
        "\u{e000}",
        "a\u{10ffff}",
        "a",
        "b",
        "\u{7f}",
        "\u{80}",
        "\u{ff}",
        "x_",
        "x%",
        "",
    ];
    let mut rng = Rng::new(10);
    pair.batch("BEGIN");
    for id in 0..8000 {
        let stem = stems[rng.below(stems.len() as u64) as usize];
        let s = format!("{stem}{}", rng.below(400));
        pair.ok(
            "INSERT INTO w VALUES (?1, ?2, ?3)",
            &[P::I(id), P::I(rng.below(4) as i64), P::T(s)],
        );
    }
    pair.batch("COMMIT");
    pair.assert_plan("SELECT id FROM w WHERE s LIKE 'a%'", "Index Scan using w_s");
    pair.assert_plan(
        "SELECT id FROM w WHERE g = 1 AND s LIKE 'a%'",
        "Index Scan using w_gs",
    );
    for stem in stems {
        pair.ok(
            &format!("SELECT id FROM w WHERE s GLOB '{stem}*' ORDER BY id"),
            &[],
        );
        for tail in ["%", "1%", "_%", "12"] {
            // The stems' own wildcards are escaped into the literal prefix.
            let literal = stem.replace('_', "\\_").replace('%', "\\%");
            let pattern = format!("{literal}{tail}");
            for query in [
                format!("SELECT id, s FROM w WHERE s LIKE '{pattern}' ESCAPE '\\' ORDER BY s, id"),
                format!(
                    "SELECT id, s FROM w WHERE g = 2 AND s LIKE '{pattern}' ESCAPE '\\' \
                     ORDER BY s DESC, id"
                ),
            ] {
                pair.ok(&query, &[]);
            }
        }
    }
}

#[test]
fn index_joins_seek_the_inner_side_across_leaves() {
    let pair = pair();
    let mut rng = Rng::new(4);
    pair.batch("CREATE TABLE s (id INTEGER PRIMARY KEY, tid INTEGER, tu INTEGER, tk INTEGER)");
    pair.batch("BEGIN");
    for i in 0..3000 {
        let row = |rng: &mut Rng| rng.below(ROWS as u64 + 10) as i64;
        let tid = wide_id(row(&mut rng));
        let tu = (row(&mut rng) * 7919) % 20011;
        let tk = rng.below(4010) as i64;
        pair.ok(
            "INSERT INTO s VALUES (?1, ?2, ?3, ?4)",
            &[P::I(i), P::I(tid), P::I(tu), P::I(tk)],
        );
    }
    pair.batch("COMMIT");
    let by_id = "SELECT s.id, t.id, t.k FROM s JOIN t ON t.id = s.tid \
                 WHERE s.id BETWEEN ?1 AND ?2 ORDER BY s.id";
    let by_unique = "SELECT s.id, t.id, t.u FROM s JOIN t ON t.u = s.tu \
                     WHERE s.id BETWEEN ?1 AND ?2 ORDER BY s.id";
    let by_index = "SELECT s.id, t.id, t.k FROM s JOIN t ON t.k = s.tk \
                    WHERE s.id BETWEEN ?1 AND ?2 ORDER BY s.id, t.id";
    let left = "SELECT s.id, t.id FROM s LEFT JOIN t ON t.id = s.tid + 1 \
                WHERE s.id BETWEEN ?1 AND ?2 ORDER BY s.id";
    for (sql, index) in [
        (by_id, "Join on t using row id"),
        (by_unique, "Join on t using t_u"),
        (by_index, "Join on t using t_k"),
        (left, "Left Join on t using row id"),
    ] {
        pair.assert_plan(&sql.replace("?1", "10").replace("?2", "12"), index);
    }
    for low in (0..3000).step_by(7) {
        let high = low + rng.below(12) as i64;
        for sql in [by_id, by_unique, by_index, left] {
            pair.ok(sql, &[P::I(low), P::I(high)]);
        }
    }
}

/// Statements that change rows over a row-id range, each with the columns it changes:
/// plain ones, the row id itself, indexed ones (UNIQUE and DESC included).
const ROW_ID_WRITES: [&str; 6] = [
    "DELETE FROM t WHERE id BETWEEN ?1 AND ?2",
    "UPDATE t SET pad = pad || 'x', g = g WHERE id BETWEEN ?1 AND ?2",
    "UPDATE t SET id = id + 100000 WHERE id BETWEEN ?1 AND ?2",
    "UPDATE t SET k = k + 7, d = d - 3 WHERE id BETWEEN ?1 AND ?2",
    "UPDATE t SET u = u + 30000, name = name || 'x' WHERE id BETWEEN ?1 AND ?2",
    "DELETE FROM t WHERE id > ?1 AND id < ?2",
];

#[test]
fn row_id_range_writes_roll_back_to_savepoints() {
    let pair = pair();
    let mut rng = Rng::new(5);
    pair.batch("BEGIN");
    for write in ROW_ID_WRITES {
        for step in 0..16 {
            let i = rng.below(ROWS as u64) as i64;
            let low = wide_id(i) + (step % 3) - 1;
            let width = [0, 2, 30, 100, 900, 4000][rng.below(6) as usize];
            let high = low + width;
            pair.batch("SAVEPOINT s");
            pair.ok(write, &[P::I(low), P::I(high)]);
            if step % 8 == 0 {
                pair.check_wide();
            } else {
                pair.fingerprint_wide();
                pair.ok(
                    "SELECT count(*), sum(k) FROM t WHERE id BETWEEN ?1 AND ?2",
                    &[P::I(low - 100), P::I(high + 100)],
                );
            }
            pair.batch("ROLLBACK TO s");
            pair.batch("RELEASE s");
            if step == 0 {
                pair.check_wide();
            } else if step % 2 == 0 {
                pair.fingerprint_wide();
            }
        }
        // Bounds at both ends of the table and beyond.
        for (low, high) in [(i64::MIN, 40), (LAST - 40, i64::MAX), (LAST + 1, i64::MAX)] {
            pair.batch("SAVEPOINT s");
            pair.ok(write, &[P::I(low), P::I(high)]);
            pair.fingerprint_wide();
            pair.batch("ROLLBACK TO s");
            pair.batch("RELEASE s");
        }
    }
    pair.batch("COMMIT");
    pair.check_wide();
    // The same writes for good, in autocommit, each followed by a full check.
    for write in ROW_ID_WRITES {
        let low = wide_id(rng.below(ROWS as u64) as i64);
        pair.ok(write, &[P::I(low), P::I(low + 1500)]);
        pair.check_wide();
    }
}

#[test]
fn index_range_writes_roll_back_to_savepoints() {
    let pair = pair();
    let mut rng = Rng::new(6);
    let writes = [
        "DELETE FROM t WHERE k BETWEEN ?1 AND ?2",
        "UPDATE t SET pad = 'p' || id WHERE k BETWEEN ?1 AND ?2",
        "UPDATE t SET id = id + 100000 WHERE k BETWEEN ?1 AND ?2",
        "UPDATE t SET k = k + 3 WHERE k BETWEEN ?1 AND ?2",
        "UPDATE t SET d = d + 5, g = g + 1 WHERE g = 4 AND k BETWEEN ?1 AND ?2",
        "DELETE FROM t WHERE d BETWEEN ?1 * 25 AND ?2 * 25",
        "UPDATE t SET u = u + 40000 WHERE u BETWEEN ?1 * 5 AND ?2 * 5",
        "DELETE FROM t WHERE id IN (SELECT id FROM t WHERE k > ?1 AND k < ?2 + 500 ORDER BY k LIMIT 40)",
        "UPDATE t SET name = name || 'y' WHERE k < ?2 AND k >= ?1",
    ];
    pair.batch("BEGIN");
    for write in writes {
        for step in 0..12 {
            let low = rng.below(4000) as i64 - 2;
            let high = low + [0, 3, 40, 400][rng.below(4) as usize];
            pair.batch("SAVEPOINT s");
            pair.ok(write, &[P::I(low), P::I(high)]);
            if step % 8 == 0 {
                pair.check_wide();
            } else {
                pair.fingerprint_wide();
            }
            pair.batch("ROLLBACK TO s");
            if step % 8 == 0 {
                pair.check_wide();
            } else if step % 2 == 0 {
                pair.fingerprint_wide();
            }
            pair.batch("RELEASE s");
        }
    }
    pair.batch("COMMIT");
    for write in writes {
        let low = rng.below(4000) as i64;
        pair.ok(write, &[P::I(low), P::I(low + 300)]);
        pair.check_wide();
    }
    // LIKE prefixes and IN lists drive writes too.
    for pattern in ["n01%", "a\\%b%", "\u{10ffff}%", "zz\u{10ffff}%", "n2%"] {
        pair.ok(
            &format!("UPDATE t SET k = k + 1 WHERE name LIKE '{pattern}' ESCAPE '\\'"),
            &[],
        );
        pair.ok(
            &format!("DELETE FROM t WHERE name LIKE '{pattern}' ESCAPE '\\' AND k % 2 = 0"),
            &[],
        );
    }
    pair.check_wide();
    for _ in 0..5 {
        let ids = in_list(&mut rng, 200, wide_id);
        pair.ok(
            &format!("UPDATE t SET id = id + 200000 WHERE id IN ({ids})"),
            &[],
        );
        let us = in_list(&mut rng, 200, |i| (i * 7919).rem_euclid(20011));
        pair.ok(&format!("DELETE FROM t WHERE u IN ({us})"), &[]);
        pair.check_wide();
    }
}

#[test]
fn upserts_over_ranges() {
    let pair = pair();
    let mut rng = Rng::new(7);
    let upserts = [
        // Every source row conflicts on the row id.
        "INSERT INTO t SELECT id, k + 1, g, u, d, name, 'up' || pad FROM t \
         WHERE id BETWEEN ?1 AND ?2 ORDER BY id \
         ON CONFLICT (id) DO UPDATE SET k = excluded.k, pad = excluded.pad",
        // New row ids (ids are multiples of 3), conflicting on the UNIQUE u.
        "INSERT INTO t SELECT id + 1, k, g, u, d, name, pad FROM t \
         WHERE id BETWEEN ?1 AND ?2 ORDER BY id \
         ON CONFLICT (u) DO UPDATE SET d = t.d + 1, name = excluded.name || 'z'",
        // Rows of even id conflict on it; those of odd id are new rows with new u values.
        "INSERT INTO t SELECT id + (id % 2), k, g, u + 50000 * (id % 2), d, name, pad \
         FROM t WHERE id BETWEEN ?1 AND ?2 ORDER BY id \
         ON CONFLICT (id) DO UPDATE SET g = excluded.g + 100",
        // OR REPLACE: conflicts on u delete the source rows themselves.
        "INSERT OR REPLACE INTO t SELECT id + 1, k, g, u, d, name, pad FROM t \
         WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
        "INSERT OR REPLACE INTO t SELECT id, k + 5, g, u, d + 1, name, pad FROM t \
         WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
    ];
    pair.batch("BEGIN");
    for upsert in upserts {
        for step in 0..8 {
            let low = wide_id(rng.below(ROWS as u64) as i64) + (step % 3) - 1;
            let high = low + [0, 20, 300, 2000][rng.below(4) as usize];
            pair.batch("SAVEPOINT s");
            pair.ok(upsert, &[P::I(low), P::I(high)]);
            if step % 4 == 0 {
                pair.check_wide();
            } else {
                pair.fingerprint_wide();
            }
            pair.batch("ROLLBACK TO s");
            pair.batch("RELEASE s");
        }
    }
    pair.batch("COMMIT");
    pair.fingerprint_wide();
    for upsert in upserts {
        let low = wide_id(rng.below(ROWS as u64) as i64);
        pair.ok(upsert, &[P::I(low), P::I(low + 1200)]);
        pair.check_wide();
    }
}

/// Parents `p` and children `c` referencing them twice: by row id (ON DELETE CASCADE, ON
/// UPDATE CASCADE) and by a UNIQUE text code (ON DELETE SET NULL, ON UPDATE CASCADE).
/// Children's ids are shuffled so one parent's children lie in many leaves.
fn family(pair: &Pair, rng: &mut Rng) {
    pair.batch(
        "CREATE TABLE p (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, v INTEGER);
         CREATE TABLE c (id INTEGER PRIMARY KEY,
             pid INTEGER REFERENCES p ON DELETE CASCADE ON UPDATE CASCADE,
             pcode TEXT REFERENCES p (code) ON DELETE SET NULL ON UPDATE CASCADE,
             w TEXT);
         CREATE INDEX c_pid ON c (pid);
         CREATE INDEX c_pcode ON c (pcode);",
    );
    pair.batch("BEGIN");
    let parents = 2500;
    for id in 0..parents {
        pair.ok(
            "INSERT INTO p VALUES (?1, ?2, ?3)",
            &[P::I(id * 2), P::T(format!("c{id:05}")), P::I(id % 13)],
        );
    }
    for id in 0..parents * 6 {
        // id * 6007 mod 15013 (prime) shuffles the children's row ids.
        let child = (id * 6007) % 15013;
        let parent = rng.below(parents as u64) as i64;
        let other = rng.below(parents as u64) as i64;
        let w = "w".repeat(40 + rng.below(200) as usize);
        pair.ok(
            "INSERT INTO c VALUES (?1, ?2, ?3, ?4)",
            &[
                P::I(child),
                P::I(parent * 2),
                P::T(format!("c{other:05}")),
                P::T(w),
            ],
        );
    }
    pair.batch("COMMIT");
}

fn check_family(pair: &Pair) {
    pair.check_table("p");
    pair.check(
        "c",
        &[
            "SELECT id, pid FROM c WHERE pid BETWEEN -1000000 AND 1000000000 ORDER BY pid, id",
            "SELECT id, pcode FROM c WHERE pcode >= '' ORDER BY pcode, id",
        ],
    );
}

#[test]
fn foreign_key_cascades_over_ranges_of_parents() {
    let pair = pair();
    let mut rng = Rng::new(8);
    family(&pair, &mut rng);
    pair.assert_plan(
        "SELECT id FROM c WHERE pid BETWEEN -1000000 AND 1000000000",
        "Index Scan using c_pid",
    );
    let writes = [
        "DELETE FROM p WHERE id BETWEEN ?1 AND ?2",
        "UPDATE p SET id = id + 100001 WHERE id BETWEEN ?1 AND ?2",
        "UPDATE p SET code = code || '#' WHERE id BETWEEN ?1 AND ?2",
        "DELETE FROM p WHERE v = ?1 % 13 AND id BETWEEN ?1 AND ?2 + 2000",
        "UPDATE p SET v = v + 1 WHERE id > ?1 AND id < ?2",
    ];
    pair.batch("BEGIN");
    for write in writes {
        for step in 0..8 {
            let low = rng.below(5000) as i64 + (step % 3) - 1;
            let high = low + [0, 9, 150, 1500][rng.below(4) as usize];
            pair.batch("SAVEPOINT s");
            pair.ok(write, &[P::I(low), P::I(high)]);
            pair.ok("SELECT count(*), sum(pid), sum(length(pcode)) FROM c", &[]);
            if step % 4 == 0 {
                check_family(&pair);
            }
            pair.batch("ROLLBACK TO s");
            pair.batch("RELEASE s");
        }
    }
    // Ranges of the UNIQUE text key, whose children hold it in a SET NULL reference.
    for step in 0..10 {
        let low = rng.below(2500) as i64;
        let high = low + [0, 5, 100, 900][step % 4];
        let code = |n: i64| P::T(format!("c{n:05}"));
        pair.batch("SAVEPOINT s");
        pair.ok(
            "DELETE FROM p WHERE code BETWEEN ?1 AND ?2",
            &[code(low), code(high)],
        );
        pair.ok(
            "UPDATE p SET code = code || '+' WHERE code > ?1 AND code < ?2",
            &[code(high), code(high + 300)],
        );
        check_family(&pair);
        pair.batch("ROLLBACK TO s");
        pair.batch("RELEASE s");
    }
    pair.batch("COMMIT");
    check_family(&pair);
    for write in writes {
        let low = rng.below(4000) as i64;
        pair.ok(write, &[P::I(low), P::I(low + 700)]);
        check_family(&pair);
    }
}

#[test]
fn triggers_on_range_writes_write_another_table() {
    let pair = pair();
    let mut rng = Rng::new(9);
    pair.batch(
        "CREATE TABLE log (n INTEGER PRIMARY KEY, kind TEXT, a INTEGER, b INTEGER, c INTEGER);
         CREATE INDEX log_a ON log (a);
         CREATE TRIGGER t_deleted AFTER DELETE ON t
         BEGIN INSERT INTO log (kind, a, b, c) VALUES ('d', old.id, old.k, old.u); END;
         CREATE TRIGGER t_updated AFTER UPDATE ON t
         BEGIN
             INSERT INTO log (kind, a, b, c) VALUES ('u', old.id, new.id, new.k);
             UPDATE log SET c = c + 1 WHERE a = new.id AND kind = 'd';
         END;",
    );
    let writes = [
        "DELETE FROM t WHERE id BETWEEN ?1 AND ?2",
        "UPDATE t SET k = k + 1 WHERE id BETWEEN ?1 AND ?2",
        "UPDATE t SET id = id + 100000 WHERE id BETWEEN ?1 AND ?2",
        "DELETE FROM t WHERE k BETWEEN ?1 / 10 AND ?2 / 10",
        "UPDATE t SET u = u + 50000 WHERE d BETWEEN ?1 AND ?2",
    ];
    let log = "SELECT kind, a, b, c FROM log ORDER BY kind, a, b, c";
    pair.batch("BEGIN");
    for write in writes {
        for step in 0..10 {
            let low = wide_id(rng.below(ROWS as u64) as i64) + (step % 3) - 1;
            let high = low + [0, 20, 400, 3000][rng.below(4) as usize];
            pair.batch("SAVEPOINT s");
            pair.ok(write, &[P::I(low), P::I(high)]);
            pair.ok(log, &[]);
            pair.fingerprint_wide();
            pair.batch("ROLLBACK TO s");
            pair.batch("RELEASE s");
        }
    }
    pair.batch("COMMIT");
    for write in writes {
        let low = wide_id(rng.below(ROWS as u64) as i64);
        pair.ok(write, &[P::I(low), P::I(low + 2000)]);
        pair.ok(log, &[]);
        pair.check_wide();
    }
}
