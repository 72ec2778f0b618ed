//! Group F, continued — the `pipeline` set (set operations, CTEs, sorting and grouping over
//! two 2.5k-row tables sharing 500 rows) and the `writes` set (insert / update / delete of
//! 1 to 10k rows, one transaction each).
//!
//! Pipeline tables `pa` (ids 1–2500) and `pb` (ids 2001–4500) hold rows that are functions of
//! their id, so the 500 ids in both tables are identical rows: UNION, INTERSECT and EXCEPT
//! have real work to do. Queries with `ORDER BY ... LIMIT` order by `score DESC, id` so the
//! answer is fully determined.

use crate::data::Rng;
use crate::driver::{Session, Val};

use super::micro::{USERS, USERS_CHECK, UserBuffers, insert_user, load_users};
use super::{Ctx, Group, Metric, SQLITE_ONLY, Workload};

pub fn workloads() -> Vec<Workload> {
    let workload = |id, title, run| Workload {
        id,
        group: Group::Micro,
        title,
        drivers: SQLITE_ONLY,
        foreign_keys: false,
        sqlite_vec: false,
        cache_bytes: crate::driver::CACHE_BYTES,
        run,
    };
    vec![
        workload(
            "F.pipeline.v1",
            "set operations, CTEs, GROUP BY and top-N over 2 × 2.5k rows",
            pipeline as fn(&mut Ctx<'_>) -> anyhow::Result<()>,
        ),
        workload(
            "F.writes.v1",
            "insert, update and delete 1 to 10k rows per transaction",
            writes,
        ),
    ]
}

const CITIES: [&str; 8] = [
    "Lisbon", "Oslo", "Quito", "Hanoi", "Accra", "Perth", "Tromsø", "Cusco",
];

fn load_pipeline(session: &mut dyn Session, seed: u64) -> anyhow::Result<()> {
    session.execute_batch(
        "DROP TABLE IF EXISTS pa;
         DROP TABLE IF EXISTS pb;
         CREATE TABLE pa (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, city TEXT NOT NULL, score REAL NOT NULL);
         CREATE TABLE pb (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, city TEXT NOT NULL, score REAL NOT NULL);",
    )?;
    let mut name = String::new();
    session.execute("BEGIN", &[])?;
    for (table, ids) in [("pa", 1..=2500i64), ("pb", 2001..=4500)] {
        let sql =
            format!("INSERT INTO {table} (id, name, age, city, score) VALUES (?, ?, ?, ?, ?)");
        for id in ids {
            let mut rng = Rng::for_item(seed, "pipeline", id as u64);
            rng.word(&mut name, 4, 10);
            let age = rng.range(18, 80);
            let city = CITIES[rng.below(CITIES.len() as u64) as usize];
            session.execute(
                &sql,
                &[
                    Val::Int(id),
                    Val::Text(&name),
                    Val::Int(age),
                    Val::Text(city),
                    Val::Real(rng.score()),
                ],
            )?;
        }
    }
    session.execute("COMMIT", &[])?;
    Ok(())
}

/// (metric, SQL, whether its ORDER BY determines row order).
const PIPELINE: [(&str, &str, bool); 12] = [
    ("SELECT *", "SELECT * FROM pa", false),
    ("WHERE age > 30", "SELECT * FROM pa WHERE age > 30", false),
    (
        "UNION ALL",
        "SELECT * FROM pa UNION ALL SELECT * FROM pb",
        false,
    ),
    ("UNION", "SELECT * FROM pa UNION SELECT * FROM pb", false),
    (
        "GROUP BY + COUNT + AVG",
        "SELECT city, COUNT(*), AVG(score) FROM pa GROUP BY city",
        false,
    ),
    (
        "WHERE + ORDER BY + LIMIT 100",
        "SELECT * FROM pa WHERE age > 30 ORDER BY score DESC, id LIMIT 100",
        true,
    ),
    (
        "UNION ALL + ORDER BY + LIMIT 50",
        "SELECT * FROM pa UNION ALL SELECT * FROM pb ORDER BY score DESC, id LIMIT 50",
        true,
    ),
    (
        "INTERSECT",
        "SELECT * FROM pa INTERSECT SELECT * FROM pb",
        false,
    ),
    ("EXCEPT", "SELECT * FROM pa EXCEPT SELECT * FROM pb", false),
    (
        "3-way UNION ALL",
        "SELECT * FROM pa UNION ALL SELECT * FROM pb UNION ALL SELECT * FROM pa WHERE age > 50",
        false,
    ),
    (
        "CTE → WHERE",
        "WITH older AS (SELECT * FROM pa WHERE age > 30) SELECT * FROM older WHERE score > 50",
        false,
    ),
    (
        "CTE + UNION ALL",
        "WITH young AS (SELECT id, name, age FROM pa WHERE age < 30) \
         SELECT * FROM young UNION ALL SELECT id, name, age FROM pb WHERE age > 60",
        false,
    ),
];

fn pipeline(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let seed = ctx.seed();
    let db = ctx.open("pipeline")?;
    let mut session = db.connect()?;
    load_pipeline(session.as_mut(), seed)?;
    for (name, sql, ordered) in PIPELINE {
        let metric = Metric::new(name, "query");
        let metric = if ordered { metric.ordered() } else { metric };
        ctx.measure(metric, |s| {
            s.time_batches(20, 1, |_, digest| session.query(sql, &[], digest))
        })?;
    }
    ctx.measure(Metric::new("parameterized WHERE", "query"), |s| {
        let mut rng = s.rng("F.param");
        s.time_batches(50, 5, |_, digest| {
            let low = rng.range(18, 70);
            session.query(
                "SELECT * FROM pa WHERE age BETWEEN ? AND ?",
                &[Val::Int(low), Val::Int(low + 10)],
                digest,
            )
        })
    })
}

/// Ids of rows the insert metrics add (above the 5k loaded ones).
const NEW_IDS: i64 = 1_000_000;

fn writes(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let seed = ctx.seed();
    let db = ctx.open("writes")?;
    let mut session = db.connect()?;
    load_users(session.as_mut(), seed)?;
    let mut buffers = UserBuffers::default();

    for (rows, label) in [
        (1u64, "1 row"),
        (100, "100 rows"),
        (1_000, "1k rows"),
        (10_000, "10k rows"),
    ] {
        let transactions = (10_000 / rows).clamp(2, 50);
        let metric = Metric::new(format!("insert {label}, one transaction"), "transaction");
        ctx.measure(metric, |s| {
            let mut next = NEW_IDS;
            for _ in 0..transactions {
                s.time(1, |_| {
                    session.execute("BEGIN", &[])?;
                    for _ in 0..rows {
                        insert_user(session.as_mut(), seed, next, &mut buffers)?;
                        next += 1;
                    }
                    session.execute("COMMIT", &[])
                })?;
            }
            session.query(USERS_CHECK, &[], &mut s.digest)?;
            // Back to the 5k rows for the next iteration (not timed).
            let removed =
                session.execute("DELETE FROM users WHERE id >= ?", &[Val::Int(NEW_IDS)])?;
            s.digest.add_figure(removed as i64);
            Ok(())
        })?;
    }

    for (rows, label) in [(1u64, "1 row"), (100, "100 rows")] {
        // A driver's number of timed iterations depends on its speed, so the scores it leaves
        // behind do too: start every metric from the loaded table.
        load_users(session.as_mut(), seed)?;
        let metric = Metric::new(format!("update {label}, one transaction"), "transaction");
        ctx.measure(metric, |s| {
            let mut rng = s.rng(&format!("F.update.{rows}"));
            for _ in 0..20 {
                s.time(1, |digest| {
                    session.execute("BEGIN", &[])?;
                    for _ in 0..rows {
                        // Numbered placeholders: Basalt numbers bare `?` in bind order (WHERE before SET), which
                        // swaps an UPDATE's parameters (engine bug); `?1`/`?2` mean the same in every engine.
                        let changed = session.execute(
                            "UPDATE users SET score = ?1 WHERE id = ?2",
                            &[Val::Real(rng.score()), Val::Int(rng.range(1, USERS))],
                        )?;
                        digest.add_figure(changed as i64);
                    }
                    session.execute("COMMIT", &[])
                })?;
            }
            session.query(USERS_CHECK, &[], &mut s.digest)
        })?;
    }

    for (rows, label) in [(1u64, "1 row"), (100, "100 rows")] {
        load_users(session.as_mut(), seed)?;
        let metric = Metric::new(format!("delete {label}, one transaction"), "transaction");
        ctx.measure(metric, |s| {
            let mut rng = s.rng(&format!("F.delete.{rows}"));
            for _ in 0..20 {
                // Distinct ids, so every DELETE removes a row.
                let first = rng.range(1, USERS - rows as i64);
                s.time(1, |digest| {
                    session.execute("BEGIN", &[])?;
                    for id in first..first + rows as i64 {
                        let changed =
                            session.execute("DELETE FROM users WHERE id = ?", &[Val::Int(id)])?;
                        digest.add_figure(changed as i64);
                    }
                    session.execute("COMMIT", &[])
                })?;
                // Restore the deleted rows exactly (not timed).
                session.execute("BEGIN", &[])?;
                for id in first..first + rows as i64 {
                    insert_user(session.as_mut(), seed, id, &mut buffers)?;
                }
                session.execute("COMMIT", &[])?;
            }
            session.query(USERS_CHECK, &[], &mut s.digest)
        })?;
    }
    Ok(())
}
