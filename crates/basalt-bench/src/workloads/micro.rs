//! Group F — micro shapes after the .NET SQLite reader's suite: the `core`, `index` and
//! `graph` sets (the `pipeline` and `writes` sets are in `micro_pipeline`).
//!
//! `users` has nine columns — `id, name, email, age, score, active, created, bio (nullable),
//! avatar (nullable blob)` — and 5k rows (not scaled by `--quick`: it is already small).
//! A row is a function of its id, so rows deleted by one metric can be restored exactly.
//! Point lookups report allocations per lookup (the design's target is zero).

use crate::data::{Rng, email};
use crate::driver::{Session, Val};

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
            "F.core.v1",
            "lookups, open, schema, scans, NULL count, unindexed filter on 5k users",
            core as fn(&mut Ctx<'_>) -> anyhow::Result<()>,
        ),
        workload(
            "F.index.v1",
            "equality filters with and without an index",
            index,
        ),
        workload(
            "F.graph.v2",
            "5k nodes, 15k edges: seeks, scans, counts, 2-hop BFS",
            graph,
        ),
    ]
}

/// Rows of the `users` table.
pub const USERS: i64 = 5_000;

pub const USERS_SCHEMA: &str = "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, \
    email TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL, active INTEGER NOT NULL, \
    created INTEGER NOT NULL, bio TEXT, avatar BLOB)";

/// A digest of the whole `users` table, for checking writes.
pub const USERS_CHECK: &str = "SELECT COUNT(*), SUM(id), SUM(age), SUM(score), SUM(LENGTH(bio)), \
    SUM(LENGTH(avatar)), SUM(LENGTH(email)) FROM users";

/// Reusable buffers for generating user rows without allocating per row.
#[derive(Default)]
pub struct UserBuffers {
    name: String,
    email: String,
    bio: String,
    avatar: Vec<u8>,
}

/// Inserts user `id`; its content depends only on `seed` and `id`.
pub fn insert_user(
    session: &mut dyn Session,
    seed: u64,
    id: i64,
    buffers: &mut UserBuffers,
) -> anyhow::Result<()> {
    let mut rng = Rng::for_item(seed, "f.user", id as u64);
    rng.word(&mut buffers.name, 4, 10);
    email(&mut buffers.email, id);
    let age = rng.range(18, 80);
    let score = rng.score();
    let active = i64::from(rng.chance(0.7));
    let has_bio = rng.chance(0.7);
    if has_bio {
        rng.sentence(&mut buffers.bio, 12);
    }
    let has_avatar = rng.chance(0.5);
    if has_avatar {
        let length = rng.range(64, 256) as usize;
        rng.bytes(&mut buffers.avatar, length);
    }
    session.execute(
        "INSERT INTO users (id, name, email, age, score, active, created, bio, avatar) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &[
            Val::Int(id),
            Val::Text(&buffers.name),
            Val::Text(&buffers.email),
            Val::Int(age),
            Val::Real(score),
            Val::Int(active),
            Val::Int(1_700_000_000 + id * 60),
            if has_bio {
                Val::Text(&buffers.bio)
            } else {
                Val::Null
            },
            if has_avatar {
                Val::Blob(&buffers.avatar)
            } else {
                Val::Null
            },
        ],
    )?;
    Ok(())
}

/// Creates `users` and loads its 5k rows in one transaction.
pub fn load_users(session: &mut dyn Session, seed: u64) -> anyhow::Result<()> {
    session.execute_batch("DROP TABLE IF EXISTS users")?;
    session.execute_batch(USERS_SCHEMA)?;
    let mut buffers = UserBuffers::default();
    session.execute("BEGIN", &[])?;
    for id in 1..=USERS {
        insert_user(session, seed, id, &mut buffers)?;
    }
    session.execute("COMMIT", &[])?;
    Ok(())
}

const LOOKUP: &str = "SELECT * FROM users WHERE id = ?";
const LOOKUP_SIX: &str = "SELECT * FROM users WHERE id IN (?, ?, ?, ?, ?, ?)";

fn core(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let seed = ctx.seed();
    let db = ctx.open("micro")?;
    let mut session = db.connect()?;
    load_users(session.as_mut(), seed)?;

    ctx.measure(Metric::new("point lookup (same id)", "lookup"), |s| {
        s.time_batches(1_000, 100, |_, digest| {
            session.query(LOOKUP, &[Val::Int(USERS / 2)], digest)
        })
    })?;
    ctx.measure(Metric::new("6 lookups in one IN list", "query"), |s| {
        let mut rng = s.rng("F.six");
        s.time_batches(500, 50, |_, digest| {
            let ids: [i64; 6] = std::array::from_fn(|_| rng.range(1, USERS));
            let params = ids.map(Val::Int);
            session.query(LOOKUP_SIX, &params, digest)
        })
    })?;
    ctx.measure(Metric::new("random lookup", "lookup"), |s| {
        let mut rng = s.rng("F.random");
        s.time_batches(1_000, 100, |_, digest| {
            session.query(LOOKUP, &[Val::Int(rng.range(1, USERS))], digest)
        })
    })?;
    ctx.measure(Metric::new("read the schema", "query").ordered(), |s| {
        s.time_batches(100, 10, |_, digest| {
            session.query(
                "SELECT type, name FROM sqlite_master ORDER BY name",
                &[],
                digest,
            )
        })
    })?;
    let scans = [
        ("scan all rows, every column", "SELECT * FROM users"),
        (
            "scan all rows, integer columns only",
            "SELECT id, age, active, created FROM users",
        ),
        (
            "count NULLs in a nullable column",
            "SELECT COUNT(*) FROM users WHERE bio IS NULL",
        ),
    ];
    for (name, sql) in scans {
        ctx.measure(Metric::new(name, "query"), |s| {
            s.time_batches(20, 1, |_, digest| session.query(sql, &[], digest))
        })?;
    }
    ctx.measure(Metric::new("unindexed WHERE filter", "query"), |s| {
        s.time_batches(20, 1, |_, digest| {
            session.query(
                "SELECT * FROM users WHERE active = 1 AND score > ?",
                &[Val::Real(90.0)],
                digest,
            )
        })
    })?;

    // Opening needs the file to itself: Basalt locks its file per open handle.
    drop(session);
    drop(db);
    let opener = ctx.opener("micro");
    ctx.measure(Metric::new("open database + first query", "open"), |s| {
        for _ in 0..20 {
            let (db, session) = s.time(1, |digest| {
                let db = opener.open()?;
                let mut session = db.connect()?;
                session.query(LOOKUP, &[Val::Int(1)], digest)?;
                Ok((db, session))
            })?;
            // Closing is not part of this metric.
            drop(session);
            drop(db);
        }
        Ok(())
    })
}

fn index(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let seed = ctx.seed();
    let db = ctx.open("micro")?;
    let mut session = db.connect()?;
    load_users(session.as_mut(), seed)?;
    let mut address = String::new();
    for indexed in [false, true] {
        if indexed {
            session.execute_batch("CREATE INDEX users_age ON users (age)")?;
        }
        let state = if indexed { "with an index" } else { "no index" };
        ctx.measure(
            Metric::new(format!("WHERE age = N, {state}"), "query"),
            |s| {
                let mut rng = s.rng("F.age");
                s.time_batches(100, 10, |_, digest| {
                    session.query(
                        "SELECT * FROM users WHERE age = ?",
                        &[Val::Int(rng.range(18, 80))],
                        digest,
                    )
                })
            },
        )?;
    }
    for indexed in [false, true] {
        if indexed {
            session.execute_batch("CREATE INDEX users_email ON users (email)")?;
        }
        let state = if indexed { "with an index" } else { "no index" };
        let queries = if indexed { 1_000 } else { 100 };
        ctx.measure(
            Metric::new(format!("WHERE email = T, {state}"), "query"),
            |s| {
                let mut rng = s.rng("F.email");
                s.time_batches(queries, 10, |_, digest| {
                    email(&mut address, rng.range(1, USERS));
                    session.query(
                        "SELECT * FROM users WHERE email = ?",
                        &[Val::Text(&address)],
                        digest,
                    )
                })
            },
        )?;
    }
    Ok(())
}

const NODES: i64 = 5_000;
const EDGES: i64 = 15_000;
const NODE_KINDS: [&str; 3] = ["person", "post", "tag"];
const EDGE_KINDS: [&str; 3] = ["follows", "likes", "mentions"];

fn load_graph(session: &mut dyn Session, seed: u64) -> anyhow::Result<()> {
    session.execute_batch(
        "DROP TABLE IF EXISTS edges;
         DROP TABLE IF EXISTS nodes;
         CREATE TABLE nodes (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, label TEXT NOT NULL);
         CREATE TABLE edges (src INTEGER NOT NULL, dst INTEGER NOT NULL, kind TEXT NOT NULL, weight REAL NOT NULL);
         CREATE INDEX edges_src_kind ON edges (src, kind);",
    )?;
    let mut rng = Rng::new(seed, "graph");
    let mut label = String::new();
    session.execute("BEGIN", &[])?;
    for id in 1..=NODES {
        rng.word(&mut label, 3, 12);
        let kind = NODE_KINDS[rng.below(3) as usize];
        session.execute(
            "INSERT INTO nodes (id, kind, label) VALUES (?, ?, ?)",
            &[Val::Int(id), Val::Text(kind), Val::Text(&label)],
        )?;
    }
    for _ in 0..EDGES {
        let (src, dst) = (rng.range(1, NODES), rng.range(1, NODES));
        let kind = EDGE_KINDS[rng.below(3) as usize];
        session.execute(
            "INSERT INTO edges (src, dst, kind, weight) VALUES (?, ?, ?, ?)",
            &[
                Val::Int(src),
                Val::Int(dst),
                Val::Text(kind),
                Val::Real(rng.score()),
            ],
        )?;
    }
    session.execute("COMMIT", &[])?;
    Ok(())
}

const SEEK_NODE: &str = "SELECT * FROM nodes WHERE id = ?";

/// Nodes reachable in at most two hops (the start included). The anchor casts its
/// parameter (v2; v1 had `SELECT ?, 0`): an untyped parameter is text under PostgreSQL's
/// rules, so v1's `e.src = r.id` compared integer with text, which Basalt and PostgreSQL
/// refuse and SQLite's dynamic typing accepts.
const BFS: &str = "WITH RECURSIVE reach(id, depth) AS (
        SELECT CAST(? AS BIGINT), 0
        UNION
        SELECT e.dst, r.depth + 1 FROM reach r JOIN edges e ON e.src = r.id WHERE r.depth < 2
    )
    SELECT DISTINCT id FROM reach";

fn graph(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let seed = ctx.seed();
    let db = ctx.open("graph")?;
    let mut session = db.connect()?;
    load_graph(session.as_mut(), seed)?;

    ctx.measure(Metric::new("seek one node", "lookup"), |s| {
        let mut rng = s.rng("G.seek");
        s.time_batches(1_000, 100, |_, digest| {
            session.query(SEEK_NODE, &[Val::Int(rng.range(1, NODES))], digest)
        })
    })?;
    ctx.measure(Metric::new("seek 6 nodes in one IN list", "query"), |s| {
        let mut rng = s.rng("G.six");
        s.time_batches(500, 50, |_, digest| {
            let params = std::array::from_fn::<_, 6, _>(|_| Val::Int(rng.range(1, NODES)));
            session.query(
                "SELECT * FROM nodes WHERE id IN (?, ?, ?, ?, ?, ?)",
                &params,
                digest,
            )
        })
    })?;
    let scans = [
        ("scan nodes", "SELECT * FROM nodes"),
        ("scan edges", "SELECT * FROM edges"),
        (
            "count edges by kind",
            "SELECT kind, COUNT(*) FROM edges GROUP BY kind",
        ),
    ];
    for (name, sql) in scans {
        ctx.measure(Metric::new(name, "query"), |s| {
            s.time_batches(20, 1, |_, digest| session.query(sql, &[], digest))
        })?;
    }
    ctx.measure(Metric::new("2-hop BFS with WITH RECURSIVE", "query"), |s| {
        let mut rng = s.rng("G.bfs");
        s.time_batches(50, 5, |_, digest| {
            session.query(BFS, &[Val::Int(rng.range(1, NODES))], digest)
        })
    })?;

    drop(session);
    drop(db);
    let opener = ctx.opener("graph");
    ctx.measure(Metric::new("open, seek one node, close", "open"), |s| {
        let mut rng = s.rng("G.open");
        s.time_batches(20, 1, |_, digest| {
            let db = opener.open()?;
            let mut session = db.connect()?;
            session.query(SEEK_NODE, &[Val::Int(rng.range(1, NODES))], digest)?;
            drop(session);
            drop(db);
            Ok(())
        })
    })
}
