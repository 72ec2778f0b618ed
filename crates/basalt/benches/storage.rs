//! Storage-engine benchmarks (criterion): the raw cost of the B+tree and pager paths that
//! every SQL statement will sit on. Rows are `(k INTEGER, v INTEGER, name TEXT)`-shaped:
//! two fixed 8-byte columns and a short variable-length one, in a table tree on a real file
//! with `synchronous = NORMAL`.
//!
//! * `insert_1m_sequential` / `insert_1m_random`: one transaction inserting 1M rows into an
//!   empty table, with row ids ascending or shuffled, then commit.
//! * `point_read`: one random row looked up by row id inside an open read transaction
//!   (seek + decode every column), over a 1M-row table.
//! * `point_read_with_transaction`: the same, including beginning and ending the snapshot.
//! * `full_scan_1m`: a cursor over all 1M rows summing one fixed column.

#![allow(clippy::expect_used, reason = "a benchmark stops at its first failure")]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use basalt::storage::btree::{CellValue, ColumnKind, TableTree, ValueRef};
use basalt::txn::{Store, StoreOptions};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

const ROWS: i64 = 1_000_000;
const KINDS: [ColumnKind; 3] = [ColumnKind::Fixed8, ColumnKind::Fixed8, ColumnKind::Var];

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("basalt-bench-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create bench dir");
        Scratch(dir)
    }

    fn fresh_store(&self) -> Store {
        let path = self.0.join("bench.basalt");
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(self.0.join("bench.basalt-wal"));
        Store::open(&path, StoreOptions::default()).expect("open bench store")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A deterministic permutation of 0..n (multiplicative hashing by an odd constant modulo a
/// power of two, then filtered), so every run inserts in the same "random" order.
fn shuffled_ids(n: i64) -> Vec<i64> {
    let mut ids: Vec<i64> = (0..n).collect();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for i in (1..ids.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ids.swap(i, (state % (i as u64 + 1)) as usize);
    }
    ids
}

fn insert_rows(store: &Store, ids: &[i64]) -> TableTree {
    let mut txn = store.begin_write().expect("begin");
    let table = TableTree::create(&mut txn).expect("create");
    let mut name = Vec::with_capacity(32);
    for &id in ids {
        name.clear();
        name.extend_from_slice(b"name-");
        name.extend_from_slice(id.to_string().as_bytes());
        let row = [
            CellValue::Fixed(id as u64 % 1000),
            CellValue::Fixed(id as u64 * 7),
            CellValue::Var(&name),
        ];
        table.insert(&mut txn, id, &KINDS, &row).expect("insert");
    }
    txn.commit().expect("commit");
    table
}

fn inserts(c: &mut Criterion) {
    let scratch = Scratch::new("insert");
    let sequential: Vec<i64> = (0..ROWS).collect();
    let random = shuffled_ids(ROWS);
    let mut group = c.benchmark_group("storage");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("insert_1m_sequential", |b| {
        b.iter_batched(
            || scratch.fresh_store(),
            |store| insert_rows(&store, &sequential),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("insert_1m_random", |b| {
        b.iter_batched(
            || scratch.fresh_store(),
            |store| insert_rows(&store, &random),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

fn reads(c: &mut Criterion) {
    let scratch = Scratch::new("read");
    let store = scratch.fresh_store();
    let sequential: Vec<i64> = (0..ROWS).collect();
    let table = insert_rows(&store, &sequential);
    store.checkpoint().expect("checkpoint");
    let probes = shuffled_ids(ROWS);
    let mut group = c.benchmark_group("storage");

    let reader = store.begin_read();
    let mut next = 0usize;
    group.bench_function("point_read", |b| {
        b.iter(|| {
            let id = probes[next % probes.len()];
            next += 1;
            let mut cursor = table.cursor(&reader);
            assert!(cursor.seek_ge(id).expect("seek"));
            let k = cursor.value_ref(0).expect("k");
            let v = cursor.value_ref(1).expect("v");
            let name = match cursor.value_ref(2).expect("name") {
                ValueRef::Var(bytes) => bytes.len(),
                _ => 0,
            };
            black_box((k, v, name));
        })
    });
    drop(reader);

    group.bench_function("point_read_with_transaction", |b| {
        b.iter(|| {
            let id = probes[next % probes.len()];
            next += 1;
            let reader = store.begin_read();
            let mut cursor = table.cursor(&reader);
            assert!(cursor.seek_ge(id).expect("seek"));
            black_box(cursor.value_ref(1).expect("v"));
        })
    });

    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("full_scan_1m", |b| {
        b.iter(|| {
            let reader = store.begin_read();
            let mut cursor = table.cursor(&reader);
            let mut sum = 0u64;
            let mut rows = 0;
            let mut valid = cursor.first().expect("first");
            while valid {
                if let ValueRef::Fixed(v) = cursor.value_ref(1).expect("v") {
                    sum = sum.wrapping_add(v);
                }
                rows += 1;
                valid = cursor.next().expect("next");
            }
            assert_eq!(rows, ROWS);
            black_box(sum)
        })
    });
    group.finish();
}

criterion_group!(benches, inserts, reads);
criterion_main!(benches);
