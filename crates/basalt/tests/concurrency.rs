//! Concurrency: reader threads check an invariant while a writer commits.
//!
//! A table holds 200 accounts whose balances always sum to the same total; every write
//! transaction moves money between random accounts. Readers on other threads repeatedly
//! take a snapshot and sum all balances (through a full scan and through point lookups):
//! any torn view of a transaction would break the total. Checkpoints run throughout (a small
//! automatic threshold plus explicit calls), so readers also race the log being copied back
//! and reset.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use basalt::storage::btree::{CellValue, ColumnKind, TableTree, Value};
use basalt::txn::{Store, StoreOptions};
use common::Rng;

const ACCOUNTS: i64 = 200;
const TOTAL: u64 = ACCOUNTS as u64 * 1000;

fn balance(value: Value<'_>) -> u64 {
    match value {
        Value::Fixed(balance) => balance,
        other => panic!("balance is {other:?}"),
    }
}

#[test]
fn readers_never_see_a_torn_transaction() {
    let options = StoreOptions {
        cache_bytes: 512 << 10,
        autocheckpoint_frames: 40,
        busy_timeout: Duration::from_secs(10),
        ..StoreOptions::default()
    };
    let store = Store::open_in_memory(options).unwrap();
    let kinds = [ColumnKind::Fixed8, ColumnKind::Var];
    let mut txn = store.begin_write().unwrap();
    let table = TableTree::create(&mut txn).unwrap();
    let note = vec![7u8; 300];
    for id in 0..ACCOUNTS {
        table
            .insert(
                &mut txn,
                id,
                &kinds,
                &[CellValue::Fixed(1000), CellValue::Var(&note)],
            )
            .unwrap();
    }
    txn.commit().unwrap();

    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let readers: Vec<_> = (0..3)
            .map(|reader_no| {
                let (store, done) = (store.clone(), &done);
                scope.spawn(move || {
                    let mut checks = 0u64;
                    while !done.load(Ordering::Relaxed) || checks < 50 {
                        let reader = store.begin_read();
                        let mut sum = 0;
                        if (checks + reader_no).is_multiple_of(2) {
                            let mut cursor = table.cursor(&reader);
                            let mut valid = cursor.first().unwrap();
                            while valid {
                                sum += balance(cursor.value(0).unwrap());
                                valid = cursor.next().unwrap();
                            }
                        } else {
                            for id in 0..ACCOUNTS {
                                let mut cursor = table.cursor(&reader);
                                assert!(cursor.seek_ge(id).unwrap());
                                sum += balance(cursor.value(0).unwrap());
                            }
                        }
                        assert_eq!(sum, TOTAL, "a reader saw a torn transaction");
                        checks += 1;
                    }
                    checks
                })
            })
            .collect();

        let mut rng = Rng::new(9);
        for step in 0..1500u64 {
            let mut txn = store.begin_write().unwrap();
            for _ in 0..1 + rng.below(4) {
                let from = rng.below(ACCOUNTS as u64) as i64;
                let to = rng.below(ACCOUNTS as u64) as i64;
                let read = |txn: &basalt::txn::WriteTxn, id| {
                    let mut cursor = table.cursor(txn);
                    assert!(cursor.seek_ge(id).unwrap());
                    balance(cursor.value(0).unwrap())
                };
                let amount = rng.below(read(&txn, from) + 1);
                let from_balance = read(&txn, from) - amount;
                table
                    .update(
                        &mut txn,
                        from,
                        &kinds,
                        &[CellValue::Fixed(from_balance), CellValue::Var(&note)],
                    )
                    .unwrap();
                let to_balance = read(&txn, to) + amount;
                table
                    .update(
                        &mut txn,
                        to,
                        &kinds,
                        &[CellValue::Fixed(to_balance), CellValue::Var(&note)],
                    )
                    .unwrap();
            }
            if rng.below(10) == 0 {
                txn.rollback();
            } else {
                txn.commit().unwrap();
            }
            if step % 200 == 0 {
                store.checkpoint().unwrap();
            }
        }
        done.store(true, Ordering::Relaxed);
        for reader in readers {
            assert!(reader.join().unwrap() >= 50);
        }
    });
}
