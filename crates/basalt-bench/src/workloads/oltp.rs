//! Group A — OLTP (W1–W6) on `t(id INTEGER PRIMARY KEY, k INTEGER NOT NULL,
//! u INTEGER NOT NULL UNIQUE, name TEXT, score REAL)`, with `score` spelled `DOUBLE PRECISION`.
//!
//! Data: row `i` (id `i + 1`) has `k = perm_k[i] / 4` (so every `k` value has exactly four
//! rows and a `BETWEEN` over `w` values returns exactly `4w` rows), `u = perm_u[i]` (a
//! permutation, so the unique index is filled in random order), a random 8–16 letter name and
//! a two-decimal score; a row's content depends only on its index.

use crate::data::Rng;
use crate::driver::{Session, Val};

use super::{Ctx, Group, Metric, WITH_DUCKDB, Workload};

pub fn workloads() -> Vec<Workload> {
    let workload = |id, title, run| Workload {
        id,
        group: Group::Oltp,
        title,
        drivers: WITH_DUCKDB,
        foreign_keys: false,
        sqlite_vec: false,
        cache_bytes: crate::driver::CACHE_BYTES,
        run,
    };
    vec![
        workload(
            "W1.v1",
            "read by primary key",
            w1 as fn(&mut Ctx<'_>) -> anyhow::Result<()>,
        ),
        workload("W2.v1", "range scan on an index", w2),
        workload("W3.v1", "bulk insert in one transaction", w3),
        workload("W4.v1", "single-row autocommitted inserts", w4),
        workload("W5.v1", "mixed point reads and updates", w5),
        workload("W6.v1", "lookup on a unique secondary index", w6),
    ]
}

/// The catalogue's table size.
const ROWS: usize = 100_000;
/// Operations per timed iteration of the point workloads.
const PROBES: u64 = 10_000;
/// Operations per measurement.
const BATCH: u64 = 100;

/// The catalogue's `score REAL`, spelled `DOUBLE PRECISION`: the same 64-bit float in SQLite
/// and Basalt, and not DuckDB's 32-bit `REAL`, which would round the scores.
const SCHEMA: &str = "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, \
                      u INTEGER NOT NULL UNIQUE, name TEXT, score DOUBLE PRECISION)";
const INSERT: &str = "INSERT INTO t (id, k, u, name, score) VALUES (?, ?, ?, ?, ?)";
const CHECK: &str = "SELECT COUNT(*), SUM(k), SUM(u), SUM(LENGTH(name)), SUM(score) FROM t";

/// The permutations behind `k` and `u` for a table of `rows` rows.
struct TableData {
    seed: u64,
    k: Vec<u32>,
    u: Vec<u32>,
}

impl TableData {
    fn new(ctx: &Ctx<'_>, rows: usize) -> TableData {
        TableData {
            seed: ctx.seed(),
            k: ctx.rng("t.k").permutation(rows),
            u: ctx.rng("t.u").permutation(rows),
        }
    }

    fn rows(&self) -> usize {
        self.k.len()
    }

    /// Inserts row `index` (id `index + 1`).
    fn insert(
        &self,
        session: &mut dyn Session,
        index: usize,
        name: &mut String,
    ) -> anyhow::Result<()> {
        let mut rng = Rng::for_item(self.seed, "t.row", index as u64);
        rng.word(name, 8, 16);
        session.execute(
            INSERT,
            &[
                Val::Int(index as i64 + 1),
                Val::Int(i64::from(self.k[index] / 4)),
                Val::Int(i64::from(self.u[index])),
                Val::Text(name),
                Val::Real(rng.score()),
            ],
        )?;
        Ok(())
    }

    /// Inserts rows `range` in one transaction (untimed set-up).
    fn load(&self, session: &mut dyn Session, range: std::ops::Range<usize>) -> anyhow::Result<()> {
        let mut name = String::new();
        session.execute("BEGIN", &[])?;
        for index in range {
            self.insert(session, index, &mut name)?;
        }
        session.execute("COMMIT", &[])?;
        Ok(())
    }
}

fn recreate(session: &mut dyn Session) -> anyhow::Result<()> {
    session.execute_batch("DROP TABLE IF EXISTS t")?;
    session.execute_batch(SCHEMA)?;
    Ok(())
}

/// A loaded table `t` with `rows` rows (and the index on `k` when asked).
fn loaded(
    ctx: &Ctx<'_>,
    rows: usize,
    index_k: bool,
) -> anyhow::Result<(Box<dyn crate::driver::Db>, TableData)> {
    let db = ctx.open("oltp")?;
    let mut session = db.connect()?;
    recreate(session.as_mut())?;
    if index_k {
        session.execute_batch("CREATE INDEX t_k ON t (k)")?;
    }
    let data = TableData::new(ctx, rows);
    data.load(session.as_mut(), 0..rows)?;
    Ok((db, data))
}

fn w1(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let rows = ctx.size(ROWS);
    let (db, _) = loaded(ctx, rows, false)?;
    let mut session = db.connect()?;
    ctx.measure(Metric::new("10k random lookups by id", "lookup"), |s| {
        let mut rng = s.rng("W1");
        s.time_batches(PROBES, BATCH, |_, digest| {
            let id = rng.range(1, rows as i64);
            session.query("SELECT * FROM t WHERE id = ?", &[Val::Int(id)], digest)
        })
    })
}

fn w2(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let rows = ctx.size(ROWS);
    let (db, _) = loaded(ctx, rows, true)?;
    let mut session = db.connect()?;
    let distinct_k = (rows / 4).max(1) as i64;
    // (result rows, queries per timed iteration)
    for (wanted, queries, label) in [(100, 1_000, "100"), (1_000, 100, "1k"), (10_000, 20, "10k")] {
        let width = (wanted as i64 / 4).clamp(1, distinct_k);
        let metric = Metric::new(format!("BETWEEN returning {label} rows"), "query");
        ctx.measure(metric, |s| {
            let mut rng = s.rng(&format!("W2.{label}"));
            s.time_batches(queries, (queries / 10).max(1), |_, digest| {
                let low = rng.range(0, distinct_k - width);
                session.query(
                    "SELECT * FROM t WHERE k BETWEEN ? AND ?",
                    &[Val::Int(low), Val::Int(low + width - 1)],
                    digest,
                )
            })
        })?;
    }
    Ok(())
}

fn w3(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let rows = ctx.size(ROWS);
    let db = ctx.open("oltp")?;
    let mut session = db.connect()?;
    let data = TableData::new(ctx, rows);
    let mut name = String::new();
    ctx.measure(Metric::new("100k rows in one transaction", "row"), |s| {
        recreate(session.as_mut())?;
        s.time(data.rows() as u64, |_| {
            session.execute("BEGIN", &[])?;
            for index in 0..data.rows() {
                data.insert(session.as_mut(), index, &mut name)?;
            }
            session.execute("COMMIT", &[])?;
            Ok(())
        })?;
        session.query(CHECK, &[], &mut s.digest)
    })
}

fn w4(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    const PRELOADED: usize = 1_000;
    const INSERTS: usize = 1_000;
    let db = ctx.open("oltp")?;
    let mut session = db.connect()?;
    let data = TableData::new(ctx, PRELOADED + INSERTS);
    let mut name = String::new();
    ctx.measure(Metric::new("1k autocommitted inserts", "insert"), |s| {
        recreate(session.as_mut())?;
        data.load(session.as_mut(), 0..PRELOADED)?;
        s.time_batches(INSERTS as u64, BATCH, |index, _| {
            data.insert(session.as_mut(), PRELOADED + index as usize, &mut name)
        })?;
        session.query(CHECK, &[], &mut s.digest)
    })
}

fn w5(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let rows = ctx.size(ROWS);
    let (db, _) = loaded(ctx, rows, false)?;
    let mut session = db.connect()?;
    ctx.measure(
        Metric::new("50/50 lookup and update, autocommit", "op"),
        |s| {
            let mut rng = s.rng("W5");
            s.time_batches(PROBES, BATCH, |_, digest| {
                let id = rng.range(1, rows as i64);
                if rng.chance(0.5) {
                    session.query("SELECT * FROM t WHERE id = ?", &[Val::Int(id)], digest)
                } else {
                    // Numbered placeholders: Basalt numbers bare `?` in bind order (WHERE before SET), which
                    // swaps an UPDATE's parameters (engine bug); `?1`/`?2` mean the same in every engine.
                    let changed = session.execute(
                        "UPDATE t SET score = ?1 WHERE id = ?2",
                        &[Val::Real(rng.score()), Val::Int(id)],
                    )?;
                    digest.add_figure(changed as i64);
                    Ok(())
                }
            })?;
            session.query(CHECK, &[], &mut s.digest)
        },
    )
}

fn w6(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let rows = ctx.size(ROWS);
    let (db, _) = loaded(ctx, rows, false)?;
    let mut session = db.connect()?;
    ctx.measure(
        Metric::new("10k random lookups by unique u", "lookup"),
        |s| {
            let mut rng = s.rng("W6");
            s.time_batches(PROBES, BATCH, |_, digest| {
                let u = rng.range(0, rows as i64 - 1);
                session.query("SELECT * FROM t WHERE u = ?", &[Val::Int(u)], digest)
            })
        },
    )
}
