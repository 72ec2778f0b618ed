//! Group B — analytics (W7–W9): aggregates, GROUP BY at three cardinalities, and a join of
//! two 100k-row tables, both as per-key probes and as a join aggregate.
//!
//! `big(id INTEGER PRIMARY KEY, k10, k1k, k100k, v INTEGER, f DOUBLE PRECISION)`, 1M rows:
//! `k10` and `k1k` are uniform random, `k100k = (i * 7919 + 13) mod 100000` (every one of the
//! 100k groups present, ten rows each), `v` uniform in `0..1000`. The catalogue's `f REAL`
//! is spelled `DOUBLE PRECISION` for DuckDB's sake (its `REAL` is 32-bit).
//!
//! W9: `customers(id INTEGER PRIMARY KEY, name TEXT, region TEXT)` with 20 regions and
//! `orders(id INTEGER PRIMARY KEY, customer_id INTEGER, amount INTEGER)` (amounts in cents,
//! so sums are exact), 100k × 100k as the brief fixes it (the catalogue's 1M × 100k variant
//! is not run). W9a.v2 times the catalogue's 10k probes per iteration; v1 timed 1k, from
//! when Basalt had no index nested-loop join.

use std::fmt::Write as _;

use crate::driver::{Db, Session, Val};

use super::{Ctx, Group, Metric, WITH_DUCKDB, Workload};

pub fn workloads() -> Vec<Workload> {
    let workload = |id, title, run| Workload {
        id,
        group: Group::Analytics,
        title,
        drivers: WITH_DUCKDB,
        foreign_keys: false,
        sqlite_vec: false,
        cache_bytes: crate::driver::CACHE_BYTES,
        run,
    };
    vec![
        workload(
            "W7.v1",
            "SUM over 1M rows",
            w7 as fn(&mut Ctx<'_>) -> anyhow::Result<()>,
        ),
        workload(
            "W8.v1",
            "GROUP BY at 10 / 1k / 100k groups over 1M rows",
            w8,
        ),
        workload("W9a.v2", "join probe by order id, 100k × 100k", w9a),
        workload("W9b.v1", "join + GROUP BY, 100k × 100k", w9b),
    ]
}

const BIG_ROWS: usize = 1_000_000;
const JOIN_ROWS: usize = 100_000;
const REGIONS: u64 = 20;
/// W9a's probes per iteration, as the catalogue asks.
const PROBES: usize = 10_000;

/// Loads `big` (one transaction) into database file `big`.
fn load_big(ctx: &Ctx<'_>) -> anyhow::Result<Box<dyn Db>> {
    let rows = ctx.size(BIG_ROWS);
    let db = ctx.open("big")?;
    let mut session = db.connect()?;
    session.execute_batch(
        "CREATE TABLE big (id INTEGER PRIMARY KEY, k10 INTEGER, k1k INTEGER, k100k INTEGER, \
         v INTEGER, f DOUBLE PRECISION)",
    )?;
    let mut rng = ctx.rng("big");
    session.execute("BEGIN", &[])?;
    for index in 0..rows as i64 {
        session.execute(
            "INSERT INTO big (id, k10, k1k, k100k, v, f) VALUES (?, ?, ?, ?, ?, ?)",
            &[
                Val::Int(index + 1),
                Val::Int(rng.below(10) as i64),
                Val::Int(rng.below(1000) as i64),
                Val::Int((index * 7919 + 13) % 100_000),
                Val::Int(rng.below(1000) as i64),
                Val::Real(rng.score() * 10.0),
            ],
        )?;
    }
    session.execute("COMMIT", &[])?;
    Ok(db)
}

/// Times one run of `sql` per iteration.
fn time_query(
    ctx: &mut Ctx<'_>,
    session: &mut dyn Session,
    metric: Metric,
    sql: &str,
) -> anyhow::Result<()> {
    ctx.measure(metric, |s| {
        s.time(1, |digest| session.query(sql, &[], digest))
    })
}

fn w7(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let db = load_big(ctx)?;
    let mut session = db.connect()?;
    time_query(
        ctx,
        session.as_mut(),
        Metric::new("SELECT SUM(v) FROM big", "query"),
        "SELECT SUM(v) FROM big",
    )
}

fn w8(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let db = load_big(ctx)?;
    let mut session = db.connect()?;
    for (column, label) in [("k10", "10"), ("k1k", "1k"), ("k100k", "100k")] {
        let sql = format!("SELECT {column}, COUNT(*), SUM(v) FROM big GROUP BY {column}");
        time_query(
            ctx,
            session.as_mut(),
            Metric::new(format!("GROUP BY {label} groups"), "query"),
            &sql,
        )?;
    }
    Ok(())
}

/// Loads `customers` and `orders` (one transaction each).
fn load_join(ctx: &Ctx<'_>) -> anyhow::Result<(Box<dyn Db>, usize)> {
    let rows = ctx.size(JOIN_ROWS);
    let db = ctx.open("join")?;
    let mut session = db.connect()?;
    session.execute_batch(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, region TEXT NOT NULL);
         CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, amount INTEGER NOT NULL);",
    )?;
    let mut rng = ctx.rng("customers");
    let (mut name, mut region) = (String::new(), String::new());
    session.execute("BEGIN", &[])?;
    for id in 1..=rows as i64 {
        rng.word(&mut name, 5, 12);
        region.clear();
        let _ = write!(region, "region-{:02}", rng.below(REGIONS));
        session.execute(
            "INSERT INTO customers (id, name, region) VALUES (?, ?, ?)",
            &[Val::Int(id), Val::Text(&name), Val::Text(&region)],
        )?;
    }
    session.execute("COMMIT", &[])?;
    let mut rng = ctx.rng("orders");
    session.execute("BEGIN", &[])?;
    for id in 1..=rows as i64 {
        session.execute(
            "INSERT INTO orders (id, customer_id, amount) VALUES (?, ?, ?)",
            &[
                Val::Int(id),
                Val::Int(rng.range(1, rows as i64)),
                Val::Int(rng.below(100_000) as i64),
            ],
        )?;
    }
    session.execute("COMMIT", &[])?;
    Ok((db, rows))
}

fn w9a(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let (db, rows) = load_join(ctx)?;
    let probes = ctx.size(PROBES) as u64;
    let mut session = db.connect()?;
    let metric = Metric::new("join probe by order id", "probe");
    ctx.measure(metric, |s| {
        let mut rng = s.rng("W9a");
        s.time_batches(probes, 50, |_, digest| {
            let id = rng.range(1, rows as i64);
            session.query(
                "SELECT c.name, o.amount FROM orders o JOIN customers c ON c.id = o.customer_id \
                 WHERE o.id = ?",
                &[Val::Int(id)],
                digest,
            )
        })
    })
}

fn w9b(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let (db, _) = load_join(ctx)?;
    let mut session = db.connect()?;
    time_query(
        ctx,
        session.as_mut(),
        Metric::new("join 100k × 100k + GROUP BY region", "query"),
        "SELECT c.region, COUNT(*), SUM(o.amount) FROM orders o JOIN customers c \
         ON c.id = o.customer_id GROUP BY c.region",
    )
}
