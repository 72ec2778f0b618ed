//! A model-based test of reads and writes through the public SQL API over a table of
//! 10,000 wide rows (issue 15: row-id range scans stopped at the end of the first leaf,
//! and no test had tables spanning many leaves).
//!
//! The table `m` has a row id, a unique index, a composite index with a DESC text column,
//! a DESC index on a real and indexes on a text and a nullable integer; its rows are
//! 40–300 bytes, so the table and its indexes span hundreds of pages. A seeded stream of
//! point reads, row-id ranges and index ranges (read in key order, some backwards, some
//! with LIMIT), inserts (some failing on a duplicate key), INSERT … SELECT, updates of
//! plain columns, indexed columns, the unique column and the row id over ranges, and
//! deletes over ranges runs inside occasional explicit transactions with savepoints and
//! rollbacks. A `BTreeMap<i64, Row>` follows every statement (and every rollback), and
//! each result — rows, change counts, errors — is compared with the model's.
//!
//! Every few statements and at every transaction boundary the whole table is compared with
//! the model, once read by row id and once through each index (queries whose plans EXPLAIN
//! shows use that index), and `PRAGMA integrity_check` must answer `ok` where the engine
//! has it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;

use std::collections::{BTreeMap, HashSet};

use basalt::{Connection, Database, Value};
use common::Rng;

/// Rows loaded at the start.
const ROWS: usize = 10_000;
/// Statements after the load.
const STATEMENTS: usize = 1_500;
/// A whole-table check after this many statements (and at transaction boundaries).
const CHECK_EVERY: usize = 40;

#[derive(Clone, Debug, PartialEq)]
struct Row {
    a: i64,
    b: Option<i64>,
    r: Option<f64>,
    s: String,
    u: Option<i64>,
}

type Model = BTreeMap<i64, Row>;

const SCHEMA: &str = "
    CREATE TABLE m (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER, r REAL,
                    s TEXT NOT NULL, u INTEGER);
    CREATE UNIQUE INDEX m_u ON m (u);
    CREATE INDEX m_as ON m (a, s DESC);
    CREATE INDEX m_r ON m (r DESC);
    CREATE INDEX m_s ON m (s);
    CREATE INDEX m_b ON m (b);
";

const PREFIXES: &[&str] = &["a", "ab", "b", "ba", "c", "x"];

fn random_text(rng: &mut Rng) -> String {
    let prefix = PREFIXES[rng.below(PREFIXES.len() as u64) as usize];
    let digits = rng.below(10_000);
    let length = 30 + rng.below(220) as usize;
    let filler: String = (0..length)
        .map(|i| (b'a' + ((i as u64 * 7 + digits) % 26) as u8) as char)
        .collect();
    format!("{prefix}{digits:04}{filler}")
}

fn random_row(rng: &mut Rng, u: Option<i64>) -> Row {
    Row {
        a: rng.below(40) as i64,
        b: (rng.below(5) != 0).then(|| rng.below(1000) as i64),
        r: (rng.below(7) != 0).then(|| (rng.below(800) as f64 - 400.0) / 4.0),
        s: random_text(rng),
        u,
    }
}

fn literal_text(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn literal_integer(value: Option<i64>) -> String {
    value.map_or("NULL".to_owned(), |value| format!("({value})"))
}

fn literal_real(value: Option<f64>) -> String {
    value.map_or("NULL".to_owned(), |value| format!("({value:?})"))
}

fn values(id: i64, row: &Row) -> String {
    format!(
        "({id}, {}, {}, {}, {}, {})",
        row.a,
        literal_integer(row.b),
        literal_real(row.r),
        literal_text(&row.s),
        literal_integer(row.u)
    )
}

/// A WHERE condition the model can evaluate, over one key: the row id or an index.
#[derive(Clone, Debug)]
enum Condition {
    IdBelow(i64, bool),
    IdAbove(i64, bool),
    IdBetween(i64, i64),
    AEqualSAbove(i64, String),
    ABetween(i64, i64),
    BBetween(i64, i64),
    BIsNull,
    RBelow(f64),
    RBetween(f64, f64),
    SRange(String, String),
    SPrefix(String),
    UBetween(i64, i64),
    UIn(Vec<i64>),
}

impl Condition {
    fn sql(&self) -> String {
        match self {
            Condition::IdBelow(x, true) => format!("id <= ({x})"),
            Condition::IdBelow(x, false) => format!("id < ({x})"),
            Condition::IdAbove(x, true) => format!("({x}) <= id"),
            Condition::IdAbove(x, false) => format!("id > ({x})"),
            Condition::IdBetween(x, y) => format!("id BETWEEN ({x}) AND ({y})"),
            Condition::AEqualSAbove(a, s) => format!("a = {a} AND s > {}", literal_text(s)),
            Condition::ABetween(x, y) => format!("a BETWEEN {x} AND {y}"),
            Condition::BBetween(x, y) => format!("b BETWEEN ({x}) AND ({y})"),
            Condition::BIsNull => "b IS NULL".to_owned(),
            Condition::RBelow(x) => format!("r < ({x:?})"),
            Condition::RBetween(x, y) => format!("r BETWEEN ({x:?}) AND ({y:?})"),
            Condition::SRange(x, y) => {
                format!("s >= {} AND s < {}", literal_text(x), literal_text(y))
            }
            Condition::SPrefix(prefix) => format!("s LIKE '{prefix}%'"),
            Condition::UBetween(x, y) => format!("u BETWEEN ({x}) AND ({y})"),
            Condition::UIn(list) => {
                let items: Vec<String> = list.iter().map(|x| format!("({x})")).collect();
                format!("u IN ({})", items.join(", "))
            }
        }
    }

    fn matches(&self, id: i64, row: &Row) -> bool {
        match self {
            Condition::IdBelow(x, inclusive) => id < *x || (*inclusive && id == *x),
            Condition::IdAbove(x, inclusive) => id > *x || (*inclusive && id == *x),
            Condition::IdBetween(x, y) => *x <= id && id <= *y,
            Condition::AEqualSAbove(a, s) => row.a == *a && row.s.as_str() > s.as_str(),
            Condition::ABetween(x, y) => *x <= row.a && row.a <= *y,
            Condition::BBetween(x, y) => row.b.is_some_and(|b| *x <= b && b <= *y),
            Condition::BIsNull => row.b.is_none(),
            Condition::RBelow(x) => row.r.is_some_and(|r| r < *x),
            Condition::RBetween(x, y) => row.r.is_some_and(|r| *x <= r && r <= *y),
            Condition::SRange(x, y) => x.as_str() <= row.s.as_str() && row.s.as_str() < y.as_str(),
            Condition::SPrefix(prefix) => row.s.starts_with(prefix.as_str()),
            Condition::UBetween(x, y) => row.u.is_some_and(|u| *x <= u && u <= *y),
            Condition::UIn(list) => row.u.is_some_and(|u| list.contains(&u)),
        }
    }
}

/// The test's state: the database, the model, and savepoint snapshots.
struct Harness {
    _database: Database,
    connection: Connection,
    model: Model,
    rng: Rng,
    /// While a transaction is open: the model at BEGIN, then at each savepoint.
    snapshots: Option<Vec<(String, Model)>>,
    next_savepoint: usize,
    integrity_check: bool,
    counts: Counts,
}

/// Statements run, rows read, rows changed, statements that failed as predicted,
/// rollbacks, whole-table checks.
#[derive(Debug, Default)]
struct Counts {
    statements: usize,
    rows_read: usize,
    rows_changed: usize,
    conflicts: usize,
    rollbacks: usize,
    checks: usize,
}

impl Harness {
    fn id_span(&self) -> (i64, i64) {
        let low = self.model.keys().next().copied().unwrap_or(0);
        let high = self.model.keys().next_back().copied().unwrap_or(0);
        (low, high)
    }

    fn u_span(&self) -> (i64, i64) {
        let values = self.model.values().filter_map(|row| row.u);
        let (low, high) = values.fold((i64::MAX, i64::MIN), |(low, high), u| {
            (low.min(u), high.max(u))
        });
        if low > high { (0, 0) } else { (low, high) }
    }

    /// The row id at `position` in key order (clamped), or 0 in an empty table.
    fn nth_id(&self, position: usize) -> i64 {
        let position = position.min(self.model.len().saturating_sub(1));
        self.model.keys().nth(position).copied().unwrap_or(0)
    }

    /// An id near the table's: mostly next to one it has, sometimes anywhere in or just
    /// outside its span.
    fn some_id(&mut self) -> i64 {
        if self.rng.below(5) != 0 {
            let position = self.rng.below(self.model.len() as u64) as usize;
            return self.nth_id(position) + self.rng.below(5) as i64 - 2;
        }
        let (low, high) = self.id_span();
        let margin = (high - low) / 20 + 10;
        low - margin + self.rng.below((high - low + 2 * margin) as u64 + 1) as i64
    }

    fn existing_id(&mut self) -> Option<i64> {
        if self.model.is_empty() {
            return None;
        }
        let position = self.rng.below(self.model.len() as u64) as usize;
        Some(self.nth_id(position))
    }

    /// A unique value near the table's, like [`Harness::some_id`].
    fn some_u(&mut self) -> i64 {
        let taken: Vec<i64> = self.model.values().filter_map(|row| row.u).collect();
        if !taken.is_empty() && self.rng.below(5) != 0 {
            let value = taken[self.rng.below(taken.len() as u64) as usize];
            return value + self.rng.below(3) as i64 - 1;
        }
        let (low, high) = self.u_span();
        low - 10 + self.rng.below((high - low + 20) as u64 + 1) as i64
    }

    /// A condition matching at most a quarter of the table (at the fifth try, any), so
    /// that DELETE and INSERT … SELECT change its size by steps (and UPDATEs stay quick).
    fn modest_condition(&mut self) -> Condition {
        for _ in 0..4 {
            let condition = self.condition();
            if self.model_rows(&condition).count() <= self.model.len() / 4 {
                return condition;
            }
        }
        self.condition()
    }

    fn condition(&mut self) -> Condition {
        match self.rng.below(13) {
            0 => Condition::IdBelow(self.some_id(), self.rng.below(2) == 0),
            1 => Condition::IdAbove(self.some_id(), self.rng.below(2) == 0),
            2 | 3 => {
                // Mostly a few hundred rows, sometimes thousands.
                let first = self.rng.below(self.model.len() as u64) as usize;
                let width = if self.rng.below(4) == 0 {
                    self.rng.below(5000)
                } else {
                    self.rng.below(400)
                } as usize;
                let x = self.nth_id(first) + self.rng.below(3) as i64 - 1;
                let y = self.nth_id(first + width) + self.rng.below(3) as i64 - 1;
                Condition::IdBetween(x, y)
            }
            4 => Condition::AEqualSAbove(self.rng.below(40) as i64, random_text(&mut self.rng)),
            5 => {
                let x = self.rng.below(42) as i64 - 1;
                Condition::ABetween(x, x + self.rng.below(4) as i64)
            }
            6 => {
                let x = self.rng.below(1000) as i64;
                Condition::BBetween(x, x + self.rng.below(80) as i64)
            }
            7 => Condition::BIsNull,
            8 => Condition::RBelow((self.rng.below(840) as f64 - 420.0) / 4.0),
            9 => {
                let x = (self.rng.below(840) as f64 - 420.0) / 4.0;
                Condition::RBetween(x, x + self.rng.below(60) as f64 / 2.0)
            }
            10 => {
                let (x, y) = (random_text(&mut self.rng), random_text(&mut self.rng));
                let (x, y) = if x <= y { (x, y) } else { (y, x) };
                Condition::SRange(x, y)
            }
            11 => {
                let prefix = PREFIXES[self.rng.below(PREFIXES.len() as u64) as usize];
                Condition::SPrefix(format!("{prefix}{}", self.rng.below(10)))
            }
            _ if self.rng.below(2) == 0 => {
                let x = self.some_u();
                Condition::UBetween(x, x + self.rng.below(3000) as i64)
            }
            _ => {
                let list = (0..1 + self.rng.below(20)).map(|_| self.some_u()).collect();
                Condition::UIn(list)
            }
        }
    }

    /// Runs a statement and returns its change count or its error's SQLSTATE.
    fn execute(&self, sql: &str) -> Result<usize, String> {
        self.connection
            .execute(sql, ())
            .map_err(|error| error.code().to_owned())
    }

    fn query(&self, sql: &str) -> Vec<Vec<Value>> {
        let mut statement = self
            .connection
            .prepare(sql)
            .unwrap_or_else(|error| panic!("{sql}: {error}"));
        let width = statement.column_count();
        statement
            .query(())
            .unwrap()
            .map(|row| (0..width).map(|i| row.get::<Value>(i)).collect())
            .unwrap_or_else(|error| panic!("{sql}: {error}"))
    }

    fn model_rows<'a>(&'a self, condition: &'a Condition) -> impl Iterator<Item = (i64, &'a Row)> {
        self.model
            .iter()
            .filter(move |(id, row)| condition.matches(**id, row))
            .map(|(id, row)| (*id, row))
    }

    /// A read: a point read, or a key range read in key order (forwards or backwards,
    /// sometimes with LIMIT), or counted.
    fn read(&mut self) {
        if self.rng.below(5) == 0 {
            let id = if self.rng.below(2) == 0 {
                self.existing_id().unwrap_or(0)
            } else {
                self.some_id()
            };
            let sql = format!("SELECT id, a, b, r, s, u FROM m WHERE id = {id}");
            let expected: Vec<Vec<Value>> = self
                .model
                .get(&id)
                .map(|row| full(id, row))
                .into_iter()
                .collect();
            assert_eq!(self.query(&sql), expected, "{sql}");
            return;
        }
        let condition = self.condition();
        if self.rng.below(4) == 0 {
            let sql = format!("SELECT count(*), sum(a) FROM m WHERE {}", condition.sql());
            let (count, sum) = self
                .model_rows(&condition)
                .fold((0, 0), |(count, sum), (_, row)| (count + 1, sum + row.a));
            let sum = if count == 0 {
                Value::Null
            } else {
                Value::Integer(sum)
            };
            assert_eq!(
                self.query(&sql),
                vec![vec![Value::Integer(count), sum]],
                "{sql}"
            );
            return;
        }
        // Ordered by the key the condition is on (then the row id), either way round.
        let descending = self.rng.below(2) == 0;
        let limit = (self.rng.below(3) == 0).then(|| self.rng.below(300) as usize);
        let direction = if descending { " DESC" } else { "" };
        let key = match condition {
            Condition::IdBelow(..) | Condition::IdAbove(..) | Condition::IdBetween(..) => "",
            Condition::AEqualSAbove(..) | Condition::ABetween(..) => "a, s DESC, ",
            Condition::BBetween(..) | Condition::BIsNull => "b, ",
            Condition::RBelow(..) | Condition::RBetween(..) => "r DESC, ",
            Condition::SRange(..) | Condition::SPrefix(..) => "s, ",
            Condition::UBetween(..) | Condition::UIn(..) => "u, ",
        };
        let mut expected: Vec<(i64, &Row)> = self.model_rows(&condition).collect();
        expected.sort_by(|(left_id, left), (right_id, right)| {
            let order = match key {
                "a, s DESC, " => left.a.cmp(&right.a).then(right.s.cmp(&left.s)),
                "b, " => left.b.cmp(&right.b),
                "r DESC, " => right
                    .r
                    .partial_cmp(&left.r)
                    .unwrap_or(std::cmp::Ordering::Equal),
                "s, " => left.s.cmp(&right.s),
                "u, " => left.u.cmp(&right.u),
                _ => std::cmp::Ordering::Equal,
            };
            order.then(left_id.cmp(right_id))
        });
        if descending {
            expected.reverse();
        }
        let order: Vec<String> = format!("{key}id")
            .split(", ")
            .map(|part| match (part.strip_suffix(" DESC"), descending) {
                (Some(column), true) => column.to_owned(),
                (Some(_), false) => part.to_owned(),
                (None, true) => format!("{part}{direction}"),
                (None, false) => part.to_owned(),
            })
            .collect();
        let mut sql = format!(
            "SELECT id, a, b, r, s, u FROM m WHERE {} ORDER BY {}",
            condition.sql(),
            order.join(", ")
        );
        if let Some(limit) = limit {
            sql.push_str(&format!(" LIMIT {limit}"));
            expected.truncate(limit);
        }
        let expected: Vec<Vec<Value>> = expected.iter().map(|(id, row)| full(*id, row)).collect();
        let actual = self.query(&sql);
        self.counts.rows_read += actual.len();
        assert!(
            actual == expected,
            "{sql}: {} rows, the model {}; first difference at {:?}",
            actual.len(),
            expected.len(),
            actual.iter().zip(&expected).position(|(a, e)| a != e)
        );
    }

    /// Runs a modification the model predicts: its change count, or that it fails with
    /// 23505 and changes nothing.
    fn modify(&mut self, sql: &str, outcome: Result<Model, ()>, changed: usize) {
        let result = self.execute(sql);
        match outcome {
            Ok(model) => {
                assert_eq!(result, Ok(changed), "{sql}");
                self.model = model;
                self.counts.rows_changed += changed;
            }
            Err(()) => {
                assert_eq!(result, Err("23505".to_owned()), "{sql}");
                self.counts.conflicts += 1;
            }
        }
    }

    /// INSERT … SELECT: copies of a range of rows, moved past every row id, without their
    /// unique values.
    fn insert_copies(&mut self) {
        let (low, high) = self.id_span();
        let condition = self.modest_condition();
        let first = self.model_rows(&condition).next().map_or(low, |(id, _)| id);
        let last = self.model_rows(&condition).last().map_or(low, |(id, _)| id);
        // The span grows by the copied rows' spread: only narrow spreads are copied.
        if last - first > ((high - low) / 4).max(1000) {
            return self.insert();
        }
        let distance = high + 1 - first + self.rng.below(100) as i64;
        let sql = format!(
            "INSERT INTO m (id, a, b, r, s, u) SELECT id + {distance}, a, b, r, s || 'c', NULL \
             FROM m WHERE {}",
            condition.sql()
        );
        let mut model = self.model.clone();
        let copies: Vec<(i64, Row)> = self
            .model_rows(&condition)
            .map(|(id, row)| {
                let s = format!("{}c", row.s);
                (
                    id + distance,
                    Row {
                        s,
                        u: None,
                        ..row.clone()
                    },
                )
            })
            .collect();
        let count = copies.len();
        model.extend(copies);
        self.modify(&sql, Ok(model), count);
    }

    /// INSERT … VALUES of up to twenty rows, failing on a duplicate row id or unique value.
    fn insert(&mut self) {
        let count = 1 + self.rng.below(20) as usize;
        let mut model = self.model.clone();
        let mut conflict = false;
        let mut rows = Vec::new();
        let mut seen_u = HashSet::new();
        let taken_u: HashSet<i64> = self.model.values().filter_map(|row| row.u).collect();
        for _ in 0..count {
            let id = self.some_id();
            let u =
                (self.rng.below(5) != 0).then(|| self.some_u() + self.rng.below(3) as i64 * 50_000);
            let row = random_row(&mut self.rng, u);
            if let Some(u) = u {
                conflict |= taken_u.contains(&u) || !seen_u.insert(u);
            }
            conflict |= model.insert(id, row.clone()).is_some();
            rows.push(values(id, &row));
        }
        let sql = format!(
            "INSERT INTO m (id, a, b, r, s, u) VALUES {}",
            rows.join(", ")
        );
        let outcome = if conflict { Err(()) } else { Ok(model) };
        self.modify(&sql, outcome, count);
    }

    fn update(&mut self) {
        let condition = self.modest_condition();
        let matched: Vec<i64> = self.model_rows(&condition).map(|(id, _)| id).collect();
        // Shifts move the matched rows' row ids (or unique values) just past, or just
        // before, every other: no new value meets an old one, and the span grows only by
        // the matched rows' own.
        let (id_low, id_high) = self.id_span();
        let (u_low, u_high) = self.u_span();
        let matched_u: Vec<i64> = matched.iter().filter_map(|id| self.model[id].u).collect();
        let upward = self.rng.below(2) == 0;
        let id_shift = match (matched.first(), matched.last()) {
            (Some(first), _) if upward => id_high + 1 - first,
            (_, Some(last)) => id_low - 1 - last,
            _ => 1,
        };
        let u_shift = match (matched_u.iter().min(), matched_u.iter().max()) {
            (Some(least), _) if upward => u_high + 1 - least,
            (_, Some(most)) => u_low - 1 - most,
            _ => 1,
        };
        let a = self.rng.below(40) as i64;
        let u = self.some_u();
        let mut choice = self.rng.below(8);
        // A shift widens the span by the matched rows' spread: only narrow spreads move,
        // so the values stay far from overflowing.
        let narrow = |values: &[i64], (low, high): (i64, i64)| {
            let spread = values.iter().max().unwrap_or(&0) - values.iter().min().unwrap_or(&0);
            spread <= ((high - low) / 4).max(1000)
        };
        if (choice == 4 && !narrow(&matched_u, (u_low, u_high)))
            || (choice == 6 && !narrow(&matched, (id_low, id_high)))
        {
            choice = 0;
        }
        let assignment = match choice {
            0 => "b = b + 1".to_owned(),
            1 => format!("a = {a}"),
            2 => "r = -r, b = NULL".to_owned(),
            3 => "s = 'z' || substr(s, 2)".to_owned(),
            4 => format!("u = u + ({u_shift})"),
            5 => format!("u = {u}"),
            6 => format!("id = id + ({id_shift})"),
            _ => format!("a = {a}, s = 'q' || s"),
        };
        let outside = self
            .model
            .iter()
            .any(|(id, row)| row.u == Some(u) && !matched.contains(id));
        let conflict = choice == 5 && (matched.len() > 1 || (!matched.is_empty() && outside));
        let mut model = self.model.clone();
        let mut moved = Vec::new();
        for id in &matched {
            let mut row = model.remove(id).unwrap();
            let mut new_id = *id;
            match choice {
                0 => row.b = row.b.map(|b| b + 1),
                1 => row.a = a,
                2 => {
                    row.r = row.r.map(|r| -r);
                    row.b = None;
                }
                3 => row.s = format!("z{}", &row.s[1..]),
                4 => row.u = row.u.map(|value| value + u_shift),
                5 => row.u = Some(u),
                6 => new_id = id + id_shift,
                _ => {
                    row.a = a;
                    row.s = format!("q{}", row.s);
                }
            }
            moved.push((new_id, row));
        }
        model.extend(moved);
        let sql = format!("UPDATE m SET {assignment} WHERE {}", condition.sql());
        let outcome = if conflict { Err(()) } else { Ok(model) };
        self.modify(&sql, outcome, matched.len());
    }

    fn delete(&mut self) {
        let condition = self.modest_condition();
        let mut model = self.model.clone();
        model.retain(|id, row| !condition.matches(*id, row));
        let count = self.model.len() - model.len();
        let sql = format!("DELETE FROM m WHERE {}", condition.sql());
        self.modify(&sql, Ok(model), count);
    }

    /// BEGIN, SAVEPOINT, ROLLBACK TO, RELEASE, COMMIT or ROLLBACK, where valid; true if
    /// it ended a transaction or rolled back to a savepoint.
    fn control(&mut self) -> bool {
        let Some(snapshots) = &mut self.snapshots else {
            self.execute("BEGIN").unwrap();
            self.snapshots = Some(vec![(String::new(), self.model.clone())]);
            return false;
        };
        let choice = self.rng.below(10);
        let (sql, boundary) = match choice {
            0..=3 => {
                self.next_savepoint += 1;
                let name = format!("s{}", self.next_savepoint);
                snapshots.push((name.clone(), self.model.clone()));
                (format!("SAVEPOINT {name}"), false)
            }
            4 | 5 if snapshots.len() > 1 => {
                let keep = 1 + self.rng.below(snapshots.len() as u64 - 1) as usize;
                snapshots.truncate(keep + 1);
                self.model = snapshots[keep].1.clone();
                (format!("ROLLBACK TO {}", snapshots[keep].0), true)
            }
            6 if snapshots.len() > 1 => {
                let name = snapshots.pop().unwrap().0;
                (format!("RELEASE {name}"), false)
            }
            7 => {
                self.model = snapshots[0].1.clone();
                self.snapshots = None;
                ("ROLLBACK".to_owned(), true)
            }
            _ => {
                self.snapshots = None;
                ("COMMIT".to_owned(), true)
            }
        };
        assert_eq!(self.execute(&sql), Ok(0), "{sql}");
        self.counts.rollbacks += usize::from(sql.starts_with("ROLLBACK"));
        boundary
    }

    /// The whole table by row id, then through each index, against the model; and the
    /// engine's own integrity check where it has one.
    fn check_everything(&mut self) {
        let context = format!("after {} statements", self.counts.statements);
        self.counts.checks += 1;
        let all: Vec<Vec<Value>> = self.model.iter().map(|(id, row)| full(*id, row)).collect();
        let rows = self.query("SELECT id, a, b, r, s, u FROM m ORDER BY id");
        assert!(rows == all, "table scan differs from the model {context}");
        // Each index's entries: the model's row ids with the indexed values (rows whose
        // value is NULL have none the range reads).
        type Entry = fn(&Row) -> Option<Vec<Value>>;
        let indexes: [(&str, &str, Entry); 5] = [
            ("m_as", "a > -1000000", |row| {
                Some(vec![Value::Integer(row.a), Value::Text(row.s.clone())])
            }),
            ("m_b", "b > -1000000", |row| {
                Some(vec![Value::Integer(row.b?)])
            }),
            ("m_r", "r > -1000000.0", |row| {
                Some(vec![Value::Real(row.r?)])
            }),
            ("m_s", "s >= ''", |row| {
                Some(vec![Value::Text(row.s.clone())])
            }),
            ("m_u", "u > -1000000000000", |row| {
                Some(vec![Value::Integer(row.u?)])
            }),
        ];
        for (index, condition, entry) in indexes {
            let column = condition.split(' ').next().unwrap_or("a");
            let columns = if index == "m_as" { "a, s" } else { column };
            let sql = format!("SELECT id, {columns} FROM m WHERE {condition}");
            let plan = format!("{:?}", self.query(&format!("EXPLAIN {sql}")));
            let expected_plan = format!("Index Scan using {index}");
            assert!(plan.contains(&expected_plan), "{sql}: {plan}");
            let mut actual = self.query(&sql);
            actual.sort_by_key(|row| match row[0] {
                Value::Integer(id) => id,
                _ => i64::MIN,
            });
            let expected: Vec<Vec<Value>> = self
                .model
                .iter()
                .filter_map(|(id, row)| Some([vec![Value::Integer(*id)], entry(row)?].concat()))
                .collect();
            assert!(
                actual == expected,
                "{index} differs from the model {context}: {} entries, {} rows",
                actual.len(),
                expected.len()
            );
        }
        if self.integrity_check {
            let report = self
                .connection
                .prepare("PRAGMA integrity_check")
                .and_then(|mut statement| statement.query(())?.map(|row| row.get::<Value>(0)));
            match report {
                Ok(report) => {
                    assert_eq!(report, vec![Value::Text("ok".to_owned())], "{context}")
                }
                // Not in this build of the engine.
                Err(error) if error.code() == "42704" => self.integrity_check = false,
                Err(error) => panic!("PRAGMA integrity_check {context}: {error}"),
            }
        }
    }
}

fn full(id: i64, row: &Row) -> Vec<Value> {
    let integer = |value: Option<i64>| value.map_or(Value::Null, Value::Integer);
    vec![
        Value::Integer(id),
        Value::Integer(row.a),
        integer(row.b),
        row.r.map_or(Value::Null, Value::Real),
        Value::Text(row.s.clone()),
        integer(row.u),
    ]
}

#[test]
fn sql_reads_and_writes_over_ten_thousand_rows_match_a_model() {
    let database = Database::open_in_memory().unwrap();
    let connection = database.connect();
    connection.execute_batch(SCHEMA).unwrap();
    let mut rng = Rng::new(15);
    // Row ids spread with gaps, inserted in scrambled order (pages split in the middle).
    let mut ids: Vec<i64> = (0..ROWS as i64)
        .map(|i| i * 3 + rng.below(3) as i64)
        .collect();
    for i in (1..ids.len()).rev() {
        ids.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut model = Model::new();
    for chunk in ids.chunks(500) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|&id| {
                let u = (rng.below(10) != 0).then_some(id * 5 + 1);
                let row = random_row(&mut rng, u);
                let text = values(id, &row);
                model.insert(id, row);
                text
            })
            .collect();
        let sql = format!(
            "INSERT INTO m (id, a, b, r, s, u) VALUES {}",
            rows.join(", ")
        );
        assert_eq!(connection.execute(&sql, ()).unwrap(), chunk.len());
    }
    let mut harness = Harness {
        _database: database,
        connection,
        model,
        rng,
        snapshots: None,
        next_savepoint: 0,
        integrity_check: true,
        counts: Counts::default(),
    };
    harness.check_everything();
    let mut since_check = 0;
    for _ in 0..STATEMENTS {
        harness.counts.statements += 1;
        since_check += 1;
        // Keep the table near its size: copies rather than deletes when it shrank, and
        // the other way round when it grew.
        let size = harness.model.len();
        let (grow, shrink) = (size < ROWS * 4 / 5, size > ROWS * 6 / 5);
        let mut boundary = false;
        match harness.rng.below(100) {
            0..=39 => harness.read(),
            40..=49 => harness.insert(),
            50..=69 => harness.update(),
            70..=79 if shrink || !grow => harness.delete(),
            70..=84 if !shrink => harness.insert_copies(),
            70..=84 => harness.read(),
            _ => boundary = harness.control(),
        }
        if boundary || since_check >= CHECK_EVERY {
            harness.check_everything();
            since_check = 0;
        }
    }
    if harness.snapshots.take().is_some() {
        harness.execute("COMMIT").unwrap();
    }
    harness.check_everything();
    println!(
        "{:?}, integrity check: {}, {} rows at the end",
        harness.counts,
        harness.integrity_check,
        harness.model.len()
    );
    assert!(harness.counts.rows_changed > 100_000 && harness.counts.rows_read > 100_000);
}
