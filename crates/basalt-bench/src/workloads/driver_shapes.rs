//! Group E — driver shapes, after the comparison of Go SQLite drivers: a users / articles /
//! comments schema with foreign keys on, run against both SQLite profiles (tuned, and
//! `sqlite-default` with a rollback journal and FULL sync) and Basalt at the matching
//! durability.
//!
//! Rows are functions of their id (`created = 1.7e9 + id`, `email = user<id>@example.com`,
//! `active = id mod 2`, article and comment texts from a per-id generator), so every driver
//! inserts exactly the same bytes. Foreign keys are on: both engines check every article's
//! and comment's parent.

use std::sync::Barrier;
use std::time::Instant;

use crate::data::{Rng, email, filler_block, filler_slice};
use crate::digest::Digest;
use crate::driver::{Db, Session, Val};

use super::{BOTH_PROFILES, Ctx, Group, Metric, Workload};

pub fn workloads() -> Vec<Workload> {
    let workload = |id, title, run| Workload {
        id,
        group: Group::DriverShapes,
        title,
        drivers: BOTH_PROFILES,
        foreign_keys: true,
        sqlite_vec: false,
        cache_bytes: crate::driver::CACHE_BYTES,
        run,
    };
    vec![
        workload(
            "E.simple.v1",
            "insert 1M users in one transaction, read them all",
            simple as fn(&mut Ctx<'_>) -> anyhow::Result<()>,
        ),
        workload(
            "E.complex.v1",
            "200 users, 20k articles, 400k comments; a three-way join read in full",
            complex,
        ),
        workload(
            "E.many.v1",
            "read N users (10 / 100 / 1000) 1000 times",
            many,
        ),
        workload(
            "E.large.v1",
            "10k users with 50 / 100 / 200 KB of text each",
            large,
        ),
        workload(
            "E.concurrent.v1",
            "2 / 4 / 8 threads each read all 1M users",
            concurrent,
        ),
    ]
}

const SCHEMA: &str = "
    DROP TABLE IF EXISTS comments;
    DROP TABLE IF EXISTS articles;
    DROP TABLE IF EXISTS users;
    CREATE TABLE users (id INTEGER PRIMARY KEY, created INTEGER NOT NULL, email TEXT NOT NULL, active INTEGER NOT NULL);
    CREATE INDEX users_created ON users (created);
    CREATE TABLE articles (id INTEGER PRIMARY KEY, created INTEGER NOT NULL, userId INTEGER NOT NULL REFERENCES users (id), text TEXT NOT NULL);
    CREATE INDEX articles_created ON articles (created);
    CREATE INDEX articles_userId ON articles (userId);
    CREATE TABLE comments (id INTEGER PRIMARY KEY, created INTEGER NOT NULL, articleId INTEGER NOT NULL REFERENCES articles (id), text TEXT NOT NULL);
    CREATE INDEX comments_created ON comments (created);
    CREATE INDEX comments_articleId ON comments (articleId);";

/// `large` adds the text column to `users`.
const LARGE_SCHEMA: &str = "
    DROP TABLE IF EXISTS comments;
    DROP TABLE IF EXISTS articles;
    DROP TABLE IF EXISTS users;
    CREATE TABLE users (id INTEGER PRIMARY KEY, created INTEGER NOT NULL, email TEXT NOT NULL, active INTEGER NOT NULL, text TEXT NOT NULL);
    CREATE INDEX users_created ON users (created);";

const CREATED: i64 = 1_700_000_000;
const READ_USERS: &str = "SELECT id, created, email, active FROM users ORDER BY id";
const USERS_CHECK: &str =
    "SELECT COUNT(*), SUM(id), SUM(created), SUM(LENGTH(email)), SUM(active) FROM users";

/// Inserts users `1..=count` in one transaction.
fn insert_users(session: &mut dyn Session, count: usize) -> anyhow::Result<()> {
    let mut address = String::new();
    session.execute("BEGIN", &[])?;
    for id in 1..=count as i64 {
        email(&mut address, id);
        session.execute(
            "INSERT INTO users (id, created, email, active) VALUES (?, ?, ?, ?)",
            &[
                Val::Int(id),
                Val::Int(CREATED + id),
                Val::Text(&address),
                Val::Int(id % 2),
            ],
        )?;
    }
    session.execute("COMMIT", &[])?;
    Ok(())
}

fn simple(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let users = ctx.size(1_000_000);
    let db = ctx.open("shapes")?;
    let mut session = db.connect()?;
    let insert = Metric::new("insert 1M users, one transaction", "row");
    ctx.measure(insert, |s| {
        session.execute_batch(SCHEMA)?;
        s.time(users as u64, |_| insert_users(session.as_mut(), users))?;
        session.query(USERS_CHECK, &[], &mut s.digest)
    })?;
    let read = Metric::new("read all users", "row").ordered();
    ctx.measure(read, |s| {
        s.time(users as u64, |digest| {
            session.query(READ_USERS, &[], digest)
        })
    })
}

fn complex(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let users = ctx.size(200);
    let articles = users * 100;
    let comments = articles * 20;
    let seed = ctx.seed();
    let db = ctx.open("shapes")?;
    let mut session = db.connect()?;
    let total = (users + articles + comments) as u64;
    let insert = Metric::new(
        "insert 200 users, 20k articles, 400k comments (3 transactions)",
        "row",
    );
    ctx.measure(insert, |s| {
        session.execute_batch(SCHEMA)?;
        s.time(total, |_| {
            insert_users(session.as_mut(), users)?;
            let mut text = String::new();
            session.execute("BEGIN", &[])?;
            for id in 1..=articles as i64 {
                Rng::for_item(seed, "article", id as u64).sentence(&mut text, 8);
                session.execute(
                    "INSERT INTO articles (id, created, userId, text) VALUES (?, ?, ?, ?)",
                    &[
                        Val::Int(id),
                        Val::Int(CREATED + id),
                        Val::Int((id - 1) / 100 + 1),
                        Val::Text(&text),
                    ],
                )?;
            }
            session.execute("COMMIT", &[])?;
            session.execute("BEGIN", &[])?;
            for id in 1..=comments as i64 {
                Rng::for_item(seed, "comment", id as u64).sentence(&mut text, 4);
                session.execute(
                    "INSERT INTO comments (id, created, articleId, text) VALUES (?, ?, ?, ?)",
                    &[
                        Val::Int(id),
                        Val::Int(CREATED + id),
                        Val::Int((id - 1) / 20 + 1),
                        Val::Text(&text),
                    ],
                )?;
            }
            session.execute("COMMIT", &[])
        })?;
        session.query(
            "SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM articles), \
             (SELECT SUM(LENGTH(text)) FROM articles), (SELECT COUNT(*) FROM comments), \
             (SELECT SUM(LENGTH(text)) FROM comments)",
            &[],
            &mut s.digest,
        )
    })?;
    let read = Metric::new("read users ⋈ articles ⋈ comments in full", "row");
    ctx.measure(read, |s| {
        s.time(comments as u64, |digest| {
            session.query(
                "SELECT u.id, u.email, a.id, a.created, a.text, c.id, c.created, c.text \
                 FROM users u JOIN articles a ON a.userId = u.id JOIN comments c ON c.articleId = a.id",
                &[],
                digest,
            )
        })
    })
}

fn many(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    const READS: u64 = 1_000;
    let db = ctx.open("shapes")?;
    let mut session = db.connect()?;
    for users in [10usize, 100, 1000] {
        session.execute_batch(SCHEMA)?;
        insert_users(session.as_mut(), users)?;
        let metric = Metric::new(format!("read {users} users, 1000 times"), "query").ordered();
        ctx.measure(metric, |s| {
            s.time_batches(READS, 100, |_, digest| {
                session.query(READ_USERS, &[], digest)
            })
        })?;
    }
    Ok(())
}

fn large(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let users = ctx.size(10_000);
    let db = ctx.open("shapes")?;
    let mut session = db.connect()?;
    let block = filler_block(ctx.seed(), 200_000);
    for kib in [50usize, 100, 200] {
        let bytes = kib * 1000;
        // Each iteration writes users × bytes (2 GB at 200 KB): one timed iteration after
        // the gate's.
        let insert = Metric::new(format!("insert 10k users with {kib} KB text"), "row").at_most(1);
        ctx.measure(insert, |s| {
            session.execute_batch(LARGE_SCHEMA)?;
            let mut address = String::new();
            s.time(users as u64, |_| {
                session.execute("BEGIN", &[])?;
                for id in 1..=users as i64 {
                    email(&mut address, id);
                    session.execute(
                        "INSERT INTO users (id, created, email, active, text) VALUES (?, ?, ?, ?, ?)",
                        &[
                            Val::Int(id),
                            Val::Int(CREATED + id),
                            Val::Text(&address),
                            Val::Int(id % 2),
                            Val::Text(filler_slice(&block, id, bytes)),
                        ],
                    )?;
                }
                session.execute("COMMIT", &[])
            })?;
            session.query("SELECT COUNT(*), SUM(LENGTH(text)) FROM users", &[], &mut s.digest)
        })?;
        let read = Metric::new(format!("read 10k users with {kib} KB text"), "row")
            .ordered()
            .at_most(2);
        ctx.measure(read, |s| {
            s.time(users as u64, |digest| {
                session.query(
                    "SELECT id, created, email, active, text FROM users ORDER BY id",
                    &[],
                    digest,
                )
            })
        })?;
    }
    Ok(())
}

fn concurrent(ctx: &mut Ctx<'_>) -> anyhow::Result<()> {
    let users = ctx.size(1_000_000);
    let db = ctx.open("shapes")?;
    {
        let mut session = db.connect()?;
        session.execute_batch(SCHEMA)?;
        insert_users(session.as_mut(), users)?;
    }
    for threads in [2usize, 4, 8] {
        let metric =
            Metric::new(format!("{threads} threads each read all users"), "round").ordered();
        ctx.measure(metric, |s| {
            let (elapsed, digests) = read_concurrently(db.as_ref(), threads)?;
            s.record(1, elapsed);
            for digest in &digests {
                s.digest.merge(digest);
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// Every thread connects, waits for the others, then reads all users; the clock runs from
/// the common start to the last thread's finish.
fn read_concurrently(
    db: &dyn Db,
    threads: usize,
) -> anyhow::Result<(std::time::Duration, Vec<Digest>)> {
    let barrier = Barrier::new(threads + 1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let barrier = &barrier;
                scope.spawn(move || -> anyhow::Result<Digest> {
                    let connected = db.connect();
                    barrier.wait();
                    let mut session = connected?;
                    let mut digest = Digest::ordered();
                    session.query(READ_USERS, &[], &mut digest)?;
                    Ok(digest)
                })
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        let digests = handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a reader thread panicked")))
            })
            .collect::<anyhow::Result<Vec<_>>>();
        let elapsed = start.elapsed();
        Ok((elapsed, digests?))
    })
}
