//! Model tests of the trees through real transactions, with close and reopen in between.
//!
//! Random insert / update / delete / seek / range-scan sequences on a table tree (random row
//! ids, two to four columns, values from empty to several pages so overflow chains are used)
//! and on an index tree (composite memcomparable keys with DESC columns and NULLs), checked
//! against a `BTreeMap` after every operation batch. Transactions randomly commit or roll
//! back (the model follows), and the database is closed and reopened from its files
//! (recovering from the log, sometimes after a checkpoint) between rounds.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::Path;
use std::time::Duration;

use basalt::storage::PageRead;
use basalt::storage::btree::{CellValue, ColumnKind, IndexTree, TableTree, Value};
use basalt::storage::keys::{self, KeyOrder, KeyValue};
use basalt::storage::vfs::MemoryVfs;
use basalt::txn::{Store, StoreOptions};
use common::Rng;

#[derive(Clone, Debug, PartialEq)]
enum Cell {
    Null,
    Fixed(u64),
    Bytes(Vec<u8>),
}

fn options(page_size: usize) -> StoreOptions {
    StoreOptions {
        page_size,
        cache_bytes: 64 * page_size,
        autocheckpoint_frames: 300,
        busy_timeout: Duration::from_millis(0),
        ..StoreOptions::default()
    }
}

fn random_row(rng: &mut Rng, kinds: &[ColumnKind], page_size: usize) -> Vec<Cell> {
    kinds
        .iter()
        .map(|kind| {
            if rng.below(8) == 0 {
                return Cell::Null;
            }
            match kind {
                ColumnKind::Var => {
                    let length = match rng.below(12) {
                        0 => rng.below(3 * page_size as u64) as usize,
                        1 | 2 => rng.below(page_size as u64 / 3) as usize,
                        _ => rng.below(40) as usize,
                    };
                    let fill = rng.next_u64() as u8;
                    Cell::Bytes((0..length).map(|i| fill ^ (i as u8)).collect())
                }
                ColumnKind::Fixed8 => Cell::Fixed(rng.next_u64()),
                ColumnKind::Fixed4 => Cell::Fixed(rng.next_u64() & 0xFFFF_FFFF),
                ColumnKind::Fixed2 => Cell::Fixed(rng.next_u64() & 0xFFFF),
                ColumnKind::Fixed1 => Cell::Fixed(rng.next_u64() & 0xFF),
            }
        })
        .collect()
}

fn cells(row: &[Cell]) -> Vec<CellValue<'_>> {
    row.iter()
        .map(|cell| match cell {
            Cell::Null => CellValue::Null,
            Cell::Fixed(value) => CellValue::Fixed(*value),
            Cell::Bytes(bytes) => CellValue::Var(bytes),
        })
        .collect()
}

fn read_cells<S: PageRead>(
    cursor: &basalt::storage::btree::TableCursor<&S>,
    columns: usize,
) -> Vec<Cell> {
    (0..columns)
        .map(|column| match cursor.value(column).unwrap() {
            Value::Null => Cell::Null,
            Value::Fixed(value) => Cell::Fixed(value),
            Value::Bytes(bytes) => Cell::Bytes(bytes.into_owned()),
        })
        .collect()
}

fn check_table<S: PageRead>(
    table: &TableTree,
    store: &S,
    model: &BTreeMap<i64, Vec<Cell>>,
    columns: usize,
    rng: &mut Rng,
) {
    table.check(store).unwrap();
    // A full forward scan, a full backward scan, and random bounded range scans.
    let mut cursor = table.cursor(store);
    let mut seen = Vec::new();
    let mut valid = cursor.first().unwrap();
    while valid {
        seen.push((cursor.row_id().unwrap(), read_cells(&cursor, columns)));
        valid = cursor.next().unwrap();
    }
    let expected: Vec<(i64, Vec<Cell>)> = model.iter().map(|(k, v)| (*k, v.clone())).collect();
    assert_eq!(seen, expected);
    let mut backwards = Vec::new();
    let mut valid = cursor.last().unwrap();
    while valid {
        backwards.push(cursor.row_id().unwrap());
        valid = cursor.prev().unwrap();
    }
    assert!(backwards.iter().rev().eq(model.keys()));
    for _ in 0..20 {
        let low = rng.below(3000) as i64 - 100;
        let exact = cursor.seek_ge(low).unwrap();
        let expected = model.range(low..).next();
        assert_eq!(exact, model.contains_key(&low));
        assert_eq!(cursor.row_id(), expected.map(|(k, _)| *k));
        let exact = cursor.seek_le(low).unwrap();
        assert_eq!(exact, model.contains_key(&low));
        assert_eq!(
            cursor.row_id(),
            model.range(..=low).next_back().map(|(k, _)| *k)
        );
        if cursor.seek_ge(low).unwrap() || cursor.is_valid() {
            let mut count = 0;
            while cursor.is_valid() && count < 50 {
                count += 1;
                cursor.next().unwrap();
            }
            assert_eq!(count, model.range(low..).take(50).count());
        }
    }
}

#[test]
fn table_tree_matches_a_btreemap_across_reopens() {
    for (page_size, seed) in [(4096, 1u64), (65536, 2), (8192, 3)] {
        let vfs = MemoryVfs::new();
        let path = Path::new("/model/table.basalt");
        let mut rng = Rng::new(seed);
        let column_count = 2 + rng.below(3) as usize;
        let mut kinds = vec![ColumnKind::Fixed8, ColumnKind::Var];
        let extra = [
            ColumnKind::Fixed4,
            ColumnKind::Var,
            ColumnKind::Fixed1,
            ColumnKind::Fixed2,
        ];
        kinds.extend(extra.iter().take(column_count - 2));
        let mut model: BTreeMap<i64, Vec<Cell>> = BTreeMap::new();
        let mut root = None;
        for round in 0..12 {
            let store = Store::open_with_vfs(&vfs, path, options(page_size)).unwrap();
            if round % 3 == 2 {
                store.checkpoint().unwrap();
            }
            let reader = store.begin_read();
            let table = match root {
                Some(root) => TableTree::open(root),
                None => {
                    drop(reader);
                    let mut txn = store.begin_write().unwrap();
                    let table = TableTree::create(&mut txn).unwrap();
                    txn.commit().unwrap();
                    root = Some(table.root());
                    table
                }
            };
            check_table(&table, &store.begin_read(), &model, kinds.len(), &mut rng);
            for _ in 0..6 {
                let mut txn = store.begin_write().unwrap();
                let mut staged = model.clone();
                for _ in 0..rng.below(120) {
                    let row_id = rng.below(3000) as i64 - 50;
                    match rng.below(5) {
                        0 | 1 => {
                            let row = random_row(&mut rng, &kinds, page_size);
                            let inserted = table
                                .insert(&mut txn, row_id, &kinds, &cells(&row))
                                .unwrap();
                            assert_eq!(inserted, !staged.contains_key(&row_id));
                            staged.entry(row_id).or_insert(row);
                        }
                        2 => {
                            let row = random_row(&mut rng, &kinds, page_size);
                            let updated = table
                                .update(&mut txn, row_id, &kinds, &cells(&row))
                                .unwrap();
                            assert_eq!(updated, staged.contains_key(&row_id));
                            if updated {
                                staged.insert(row_id, row);
                            }
                        }
                        _ => {
                            let deleted = table.delete(&mut txn, row_id).unwrap();
                            assert_eq!(deleted, staged.remove(&row_id).is_some());
                        }
                    }
                }
                check_table(&table, &txn, &staged, kinds.len(), &mut rng);
                if rng.below(4) == 0 {
                    txn.rollback();
                } else {
                    txn.commit().unwrap();
                    model = staged;
                }
            }
            check_table(&table, &store.begin_read(), &model, kinds.len(), &mut rng);
        }
        // Deleting everything gives every page back to the free list.
        let store = Store::open_with_vfs(&vfs, path, options(page_size)).unwrap();
        let mut txn = store.begin_write().unwrap();
        let table = TableTree::open(root.unwrap());
        for row_id in model.keys() {
            assert!(table.delete(&mut txn, *row_id).unwrap());
        }
        let header = *txn.header();
        assert_eq!(
            header.page_count - header.free_count,
            2,
            "only the header and the root remain in use"
        );
        txn.commit().unwrap();
    }
}

fn random_index_key(rng: &mut Rng, orders: &[KeyOrder]) -> Vec<u8> {
    let texts = ["", "a", "ab", "abc", "b", "ba", "zz", "a\0b", "ü"];
    let values: Vec<KeyValue<'_>> = orders
        .iter()
        .enumerate()
        .map(|(column, _)| {
            if rng.below(10) == 0 {
                return KeyValue::Null;
            }
            match column {
                0 => KeyValue::Integer(rng.below(60) as i64 - 30),
                1 => KeyValue::Text(texts[rng.below(texts.len() as u64) as usize]),
                _ => KeyValue::Real(rng.below(1000) as f64 / 7.0),
            }
        })
        .collect();
    let mut key = Vec::new();
    keys::encode_key(&values, orders, &mut key).unwrap();
    keys::encode_row_id(rng.below(50) as i64, &mut key);
    key
}

#[test]
fn index_tree_with_composite_keys_matches_a_btreemap_across_reopens() {
    let orders = [KeyOrder::ASC, KeyOrder::DESC, KeyOrder::new(false, true)];
    for (page_size, seed) in [(4096, 11u64), (65536, 12)] {
        let vfs = MemoryVfs::new();
        let path = Path::new("/model/index.basalt");
        let mut rng = Rng::new(seed);
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut root = None;
        for _round in 0..10 {
            let store = Store::open_with_vfs(&vfs, path, options(page_size)).unwrap();
            let index = match root {
                Some(root) => IndexTree::open(root),
                None => {
                    let mut txn = store.begin_write().unwrap();
                    let index = IndexTree::create(&mut txn).unwrap();
                    txn.commit().unwrap();
                    root = Some(index.root());
                    index
                }
            };
            for _ in 0..5 {
                let mut txn = store.begin_write().unwrap();
                let mut staged = model.clone();
                for _ in 0..rng.below(300) {
                    let key = random_index_key(&mut rng, &orders);
                    if rng.below(3) == 0 {
                        assert_eq!(
                            index.delete(&mut txn, &key).unwrap(),
                            staged.remove(&key).is_some()
                        );
                    } else {
                        let value = vec![rng.next_u64() as u8; rng.below(40) as usize];
                        let inserted = index.insert(&mut txn, &key, &value).unwrap();
                        assert_eq!(inserted, !staged.contains_key(&key));
                        staged.entry(key).or_insert(value);
                    }
                }
                check_index(&index, &txn, &staged, &mut rng, &orders);
                if rng.below(4) == 0 {
                    txn.rollback();
                } else {
                    txn.commit().unwrap();
                    model = staged;
                }
            }
            check_index(&index, &store.begin_read(), &model, &mut rng, &orders);
        }
    }
}

fn check_index<S: PageRead>(
    index: &IndexTree,
    store: &S,
    model: &BTreeMap<Vec<u8>, Vec<u8>>,
    rng: &mut Rng,
    orders: &[KeyOrder],
) {
    index.check(store).unwrap();
    let mut cursor = index.cursor(store);
    let mut seen = Vec::new();
    let mut valid = cursor.first().unwrap();
    while valid {
        seen.push((cursor.key().to_vec(), cursor.value().to_vec()));
        valid = cursor.next().unwrap();
    }
    assert!(seen.iter().map(|(k, v)| (k, v)).eq(model.iter()));
    for _ in 0..30 {
        let probe = random_index_key(rng, orders);
        cursor.seek_ge(&probe).unwrap();
        let expected = model
            .range::<Vec<u8>, _>((Bound::Included(&probe), Bound::Unbounded))
            .next();
        assert_eq!(
            cursor.is_valid().then(|| cursor.key().to_vec()),
            expected.map(|(k, _)| k.clone())
        );
        cursor.seek_lt(&probe).unwrap();
        let expected = model
            .range::<Vec<u8>, _>((Bound::Unbounded, Bound::Excluded(&probe)))
            .next_back();
        assert_eq!(
            cursor.is_valid().then(|| cursor.key().to_vec()),
            expected.map(|(k, _)| k.clone())
        );
    }
}
