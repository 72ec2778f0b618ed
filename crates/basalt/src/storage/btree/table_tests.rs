//! Tests of table trees against a `BTreeMap` model, plus fill factor, bulk load, huge
//! values and damaged pages.

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::overflow::data_per_page;
use super::row::{CellValue, ColumnKind, OwnedValue, Value, ValueRef};
use super::table::TableTree;
use super::table_leaf::{max_inline_len, overflow_prefix_len};
use super::test_store::TestStore;
use crate::storage::error::StorageError;
use crate::storage::page::{PageRead, PageWrite, kind};

type Model = BTreeMap<i64, Vec<OwnedValue>>;

fn cells(row: &[OwnedValue]) -> Vec<CellValue<'_>> {
    row.iter().map(OwnedValue::as_cell).collect()
}

fn random_value(rng: &mut StdRng, kind: ColumnKind, usable: usize) -> OwnedValue {
    if rng.gen_ratio(1, 10) {
        return OwnedValue::Null;
    }
    match kind.fixed_width() {
        Some(width) => {
            let value: u64 = rng.r#gen();
            OwnedValue::Fixed(if width == 8 {
                value
            } else {
                value & ((1u64 << (8 * width)) - 1)
            })
        }
        None => {
            let len = match rng.gen_range(0..20) {
                0 => 0,
                1 => rng.gen_range(usable / 2..usable * 3),
                2..=4 => rng.gen_range(100..usable / 4),
                _ => rng.gen_range(0..40),
            };
            let seed: u8 = rng.r#gen();
            OwnedValue::Bytes((0..len).map(|i| seed.wrapping_add(i as u8)).collect())
        }
    }
}

fn random_row(rng: &mut StdRng, kinds: &[ColumnKind], usable: usize) -> Vec<OwnedValue> {
    kinds
        .iter()
        .map(|&kind| random_value(rng, kind, usable))
        .collect()
}

/// Scans the whole tree forwards and backwards, comparing with the model.
fn compare_scans(tree: &TableTree, store: &TestStore, model: &Model) {
    let mut cursor = tree.cursor(store);
    let mut valid = cursor.first().unwrap();
    let mut expected = model.iter();
    while valid {
        let (id, row) = expected.next().expect("tree has more rows than the model");
        assert_eq!(cursor.row_id(), Some(*id));
        for (column, value) in row.iter().enumerate() {
            assert_eq!(&cursor.value(column).unwrap().into_owned(), value);
        }
        valid = cursor.next().unwrap();
    }
    assert!(expected.next().is_none());
    let mut valid = cursor.last().unwrap();
    let mut expected = model.keys().rev();
    while valid {
        assert_eq!(cursor.row_id(), expected.next().copied());
        valid = cursor.prev().unwrap();
    }
    assert!(expected.next().is_none());
}

fn run_model(page_size: usize, seed: u64, operations: usize, key_space: i64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut store = TestStore::new(page_size);
    let usable = store.usable_size();
    let tree = TableTree::create(&mut store).unwrap();
    let column_count = rng.gen_range(2..=5);
    let kinds: Vec<ColumnKind> = (0..column_count)
        .map(|column| {
            if column == 1 {
                ColumnKind::Var
            } else {
                [
                    ColumnKind::Var,
                    ColumnKind::Fixed1,
                    ColumnKind::Fixed2,
                    ColumnKind::Fixed4,
                    ColumnKind::Fixed8,
                ][rng.gen_range(0..5)]
            }
        })
        .collect();
    let mut model = Model::new();
    for step in 0..operations {
        let row_id = rng.gen_range(-key_space..key_space);
        match rng.gen_range(0..100) {
            0..=44 => {
                let row = random_row(&mut rng, &kinds, usable);
                let inserted = tree
                    .insert(&mut store, row_id, &kinds, &cells(&row))
                    .unwrap();
                assert_eq!(inserted, !model.contains_key(&row_id));
                model.entry(row_id).or_insert(row);
            }
            45..=59 => {
                let row = random_row(&mut rng, &kinds, usable);
                let updated = tree
                    .update(&mut store, row_id, &kinds, &cells(&row))
                    .unwrap();
                assert_eq!(updated, model.contains_key(&row_id));
                if updated {
                    model.insert(row_id, row);
                }
            }
            60..=79 => {
                // Delete an existing row most of the time.
                let target = match model.range(row_id..).next() {
                    Some((&existing, _)) if rng.gen_ratio(4, 5) => existing,
                    _ => row_id,
                };
                assert_eq!(
                    tree.delete(&mut store, target).unwrap(),
                    model.remove(&target).is_some()
                );
            }
            80..=87 => {
                assert_eq!(
                    tree.get(&store, row_id).unwrap().as_ref(),
                    model.get(&row_id)
                );
            }
            88..=93 => {
                let mut cursor = tree.cursor(&store);
                let exact = cursor.seek_ge(row_id).unwrap();
                let expected = model.range(row_id..).next();
                assert_eq!(cursor.row_id(), expected.map(|(&id, _)| id));
                assert_eq!(exact, expected.is_some_and(|(&id, _)| id == row_id));
                // Scan a few rows forwards.
                let mut expected_rows = model.range(row_id..);
                for _ in 0..rng.gen_range(0..50) {
                    match expected_rows.next() {
                        Some((&id, row)) => {
                            assert_eq!(cursor.row_id(), Some(id));
                            let column = rng.gen_range(0..kinds.len());
                            assert_eq!(cursor.value(column).unwrap().into_owned(), row[column]);
                            cursor.next().unwrap();
                        }
                        None => {
                            assert!(!cursor.is_valid());
                            break;
                        }
                    }
                }
            }
            94..=98 => {
                let mut cursor = tree.cursor(&store);
                let exact = cursor.seek_le(row_id).unwrap();
                let expected = model.range(..=row_id).next_back();
                assert_eq!(cursor.row_id(), expected.map(|(&id, _)| id));
                assert_eq!(exact, expected.is_some_and(|(&id, _)| id == row_id));
                let mut expected_rows = model.range(..=row_id).rev();
                for _ in 0..rng.gen_range(0..50) {
                    match expected_rows.next() {
                        Some((&id, _)) => {
                            assert_eq!(cursor.row_id(), Some(id));
                            cursor.prev().unwrap();
                        }
                        None => {
                            assert!(!cursor.is_valid());
                            break;
                        }
                    }
                }
            }
            _ => {
                assert_eq!(
                    tree.max_row_id(&store).unwrap(),
                    model.keys().next_back().copied()
                );
            }
        }
        if step % 500 == 0 {
            let stats = tree.check(&store).unwrap();
            assert_eq!(stats.rows, model.len() as u64);
            assert_eq!(
                stats.pages + 1,
                store.live_pages(),
                "leaked pages at step {step}"
            );
        }
    }
    let stats = tree.check(&store).unwrap();
    assert_eq!(stats.rows, model.len() as u64);
    compare_scans(&tree, &store, &model);
    // Delete everything in random order: only the header and the root remain.
    let mut ids: Vec<i64> = model.keys().copied().collect();
    for index in (1..ids.len()).rev() {
        ids.swap(index, rng.gen_range(0..=index));
    }
    for (count, id) in ids.iter().enumerate() {
        assert!(tree.delete(&mut store, *id).unwrap());
        if count % 200 == 0 {
            tree.check(&store).unwrap();
        }
    }
    let stats = tree.check(&store).unwrap();
    assert_eq!(stats.rows, 0);
    assert_eq!(
        store.live_pages(),
        2,
        "pages leaked after deleting everything"
    );
    tree.destroy(&mut store).unwrap();
    assert_eq!(store.live_pages(), 1);
}

#[test]
fn model_4k_dense_keys() {
    run_model(4096, 1, 6000, 800);
}

#[test]
fn model_4k_sparse_keys() {
    run_model(4096, 2, 6000, 1 << 40);
}

#[test]
fn model_64k() {
    run_model(65536, 3, 3000, 2000);
}

#[test]
fn model_more_seeds() {
    for seed in 10..14 {
        run_model(4096, seed, 2500, 400);
    }
}

/// Small rows, many of them: deep trees with interior splits and merges.
#[test]
fn many_small_rows_random_order() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut store = TestStore::new(4096);
    let tree = TableTree::create(&mut store).unwrap();
    let kinds = [ColumnKind::Fixed8];
    let mut ids: Vec<i64> = (0..150_000).map(|id| id * 3).collect();
    for index in (1..ids.len()).rev() {
        ids.swap(index, rng.gen_range(0..=index));
    }
    for &id in &ids {
        assert!(
            tree.insert(&mut store, id, &kinds, &[CellValue::Fixed(id as u64)])
                .unwrap()
        );
    }
    let stats = tree.check(&store).unwrap();
    assert_eq!(stats.rows, 150_000);
    assert!(stats.depth >= 3, "depth {}", stats.depth);
    for index in (1..ids.len()).rev() {
        ids.swap(index, rng.gen_range(0..=index));
    }
    for (count, &id) in ids.iter().enumerate() {
        assert!(tree.delete(&mut store, id).unwrap());
        if count % 25_000 == 0 || count == 140_000 {
            let stats = tree.check(&store).unwrap();
            assert_eq!(stats.pages + 1, store.live_pages());
            // Merging keeps sparse trees compact.
            let fill = stats.leaf_bytes_used as f64 / (stats.leaves * store.usable_size()) as f64;
            assert!(fill > 0.25, "fill {fill} after {count} deletes: {stats:?}");
        }
    }
    tree.check(&store).unwrap();
    assert_eq!(store.live_pages(), 2);
}

#[test]
fn sequential_inserts_fill_leaves() {
    for page_size in [4096, 65536] {
        let mut store = TestStore::new(page_size);
        let tree = TableTree::create(&mut store).unwrap();
        let kinds = [ColumnKind::Fixed8, ColumnKind::Fixed8];
        for id in 0..100_000i64 {
            let row = [CellValue::Fixed(id as u64), CellValue::Fixed(!id as u64)];
            assert!(tree.insert(&mut store, id, &kinds, &row).unwrap());
        }
        let stats = tree.check(&store).unwrap();
        assert_eq!(stats.rows, 100_000);
        let fill = stats.leaf_bytes_used as f64 / (stats.leaves * store.usable_size()) as f64;
        assert!(
            fill >= 0.9,
            "fill factor {fill} with {page_size}-byte pages"
        );
        assert_eq!(tree.max_row_id(&store).unwrap(), Some(99_999));
        assert_eq!(
            tree.get(&store, 4242).unwrap(),
            Some(vec![OwnedValue::Fixed(4242), OwnedValue::Fixed(!4242u64)])
        );
    }
}

/// Appends lay a new leaf out for as many rows as the full leaf on its left holds; rows
/// that change size between leaves must still land, read back and fill the pages.
#[test]
fn appends_whose_row_sizes_change_fill_leaves_and_read_back() {
    for page_size in [4096, 65536] {
        let mut store = TestStore::new(page_size);
        let tree = TableTree::create(&mut store).unwrap();
        let kinds = [ColumnKind::Fixed8, ColumnKind::Var];
        // Short rows, then rows 40 times longer, then short ones again: each change makes
        // the prediction from the left leaf wrong in the other direction.
        let text_len = |id: i64| match id / 20_000 {
            1 => 320,
            _ => 8,
        };
        let text = |id: i64| vec![(id % 251) as u8; text_len(id)];
        for id in 0..60_000i64 {
            let bytes = text(id);
            let row = [CellValue::Fixed(id as u64), CellValue::Var(&bytes)];
            assert!(tree.insert(&mut store, id, &kinds, &row).unwrap());
        }
        let stats = tree.check(&store).unwrap();
        assert_eq!(stats.rows, 60_000);
        let fill = stats.leaf_bytes_used as f64 / (stats.leaves * store.usable_size()) as f64;
        assert!(
            fill >= 0.85,
            "fill factor {fill} with {page_size}-byte pages"
        );
        for id in (0..60_000i64).step_by(997) {
            assert_eq!(
                tree.get(&store, id).unwrap(),
                Some(vec![
                    OwnedValue::Fixed(id as u64),
                    OwnedValue::Bytes(text(id))
                ]),
                "row {id}"
            );
        }
    }
}

#[test]
fn bulk_load_matches_inserts() {
    for page_size in [4096, 65536] {
        let mut rng = StdRng::seed_from_u64(99);
        let kinds = [ColumnKind::Fixed4, ColumnKind::Var, ColumnKind::Fixed8];
        let mut model = Model::new();
        let mut id = -5_000i64;
        for _ in 0..20_000 {
            id += rng.gen_range(1..10);
            model.insert(id, random_row(&mut rng, &kinds, 4092 / 2));
        }
        let mut loaded_store = TestStore::new(page_size);
        let loaded = TableTree::create(&mut loaded_store).unwrap();
        let count = loaded
            .bulk_load(
                &mut loaded_store,
                &kinds,
                model.iter().map(|(&id, row)| (id, cells(row))),
            )
            .unwrap();
        assert_eq!(count, model.len() as u64);
        let loaded_stats = loaded.check(&loaded_store).unwrap();
        assert_eq!(loaded_stats.pages + 1, loaded_store.live_pages());
        compare_scans(&loaded, &loaded_store, &model);

        let mut inserted_store = TestStore::new(page_size);
        let inserted = TableTree::create(&mut inserted_store).unwrap();
        for (&id, row) in &model {
            inserted
                .insert(&mut inserted_store, id, &kinds, &cells(row))
                .unwrap();
        }
        let inserted_stats = inserted.check(&inserted_store).unwrap();
        assert_eq!(inserted_stats.rows, loaded_stats.rows);
        assert!(loaded_stats.leaves <= inserted_stats.leaves + 1);
        // The loaded tree is a normal tree: modify it further.
        for (&id, _) in model.iter().step_by(3) {
            assert!(loaded.delete(&mut loaded_store, id).unwrap());
        }
        assert!(
            loaded
                .insert(
                    &mut loaded_store,
                    id + 1,
                    &kinds,
                    &[CellValue::Null, CellValue::Var(b"x"), CellValue::Fixed(1)]
                )
                .unwrap()
        );
        loaded.check(&loaded_store).unwrap();
        loaded.destroy(&mut loaded_store).unwrap();
        assert_eq!(loaded_store.live_pages(), 1);
    }
}

#[test]
fn bulk_load_rejects_bad_input() {
    let mut store = TestStore::new(4096);
    let tree = TableTree::create(&mut store).unwrap();
    let kinds = [ColumnKind::Var];
    let big = vec![5u8; 10_000];
    let rows = (0..500).map(|id| {
        (
            if id == 400 { 3 } else { id },
            vec![CellValue::Var(&big[..(id as usize * 7) % 9000])],
        )
    });
    assert!(matches!(
        tree.bulk_load(&mut store, &kinds, rows),
        Err(StorageError::InvalidArgument(_))
    ));
    assert_eq!(store.live_pages(), 2);
    tree.check(&store).unwrap();
    tree.insert(&mut store, 1, &kinds, &[CellValue::Var(b"a")])
        .unwrap();
    assert!(
        tree.bulk_load(
            &mut store,
            &kinds,
            std::iter::empty::<(i64, Vec<CellValue<'static>>)>()
        )
        .is_err()
    );
}

#[test]
fn huge_values_round_trip() {
    let mut store = TestStore::new(4096);
    let tree = TableTree::create(&mut store).unwrap();
    let kinds = [ColumnKind::Fixed8, ColumnKind::Var, ColumnKind::Var];
    let ten_megabytes: Vec<u8> = (0..10 << 20).map(|i: usize| (i % 251) as u8).collect();
    let wide: Vec<u8> = vec![3u8; 200_000];
    tree.insert(
        &mut store,
        1,
        &kinds,
        &[
            CellValue::Fixed(1),
            CellValue::Var(&ten_megabytes),
            CellValue::Var(&wide),
        ],
    )
    .unwrap();
    tree.insert(
        &mut store,
        2,
        &kinds,
        &[
            CellValue::Fixed(2),
            CellValue::Var(b"small"),
            CellValue::Var(&wide),
        ],
    )
    .unwrap();
    let mut cursor = tree.cursor(&store);
    assert!(cursor.seek_ge(1).unwrap());
    assert_eq!(
        cursor.value(1).unwrap(),
        Value::Bytes(ten_megabytes.as_slice().into())
    );
    assert!(cursor.next().unwrap());
    assert_eq!(
        cursor.value(2).unwrap().into_owned(),
        OwnedValue::Bytes(wide.clone())
    );
    let stats = tree.check(&store).unwrap();
    let per_page = data_per_page(store.usable_size());
    assert!(stats.overflow_pages >= (10 << 20) / per_page);
    // Updating and deleting free the chains.
    tree.update(
        &mut store,
        1,
        &kinds,
        &[CellValue::Fixed(1), CellValue::Null, CellValue::Var(b"x")],
    )
    .unwrap();
    tree.delete(&mut store, 2).unwrap();
    tree.check(&store).unwrap();
    assert_eq!(store.live_pages(), 2);
}

/// Inserts a one-column row with a value of `len` bytes (the shape the inline limit is
/// defined by) into a fresh tree and checks
/// where the value went: inline (`None`) or to overflow with the given prefix length and
/// chain page count. Then reads it back, checks the tree and deletes it, freeing all pages.
fn check_placement(page_size: usize, len: usize, expected: Option<(usize, usize)>) {
    let mut store = TestStore::new(page_size);
    let tree = TableTree::create(&mut store).unwrap();
    let kinds = [ColumnKind::Var];
    let value: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
    let row = [CellValue::Var(&value)];
    assert!(tree.insert(&mut store, 1, &kinds, &row).unwrap());
    // A second row makes the page hold more than one row, like in real tables.
    assert!(tree.insert(&mut store, 2, &kinds, &row).unwrap());
    let mut cursor = tree.cursor(&store);
    assert!(cursor.seek_ge(1).unwrap());
    let stored = cursor.value_ref(0).unwrap();
    match (stored, expected) {
        (ValueRef::Var(bytes), None) => assert_eq!(bytes.len(), len),
        (
            ValueRef::Overflow {
                total_len, prefix, ..
            },
            Some((prefix_len, _)),
        ) => {
            assert_eq!(total_len, len as u64);
            assert_eq!(prefix.len(), prefix_len, "prefix of a {len}-byte value");
            assert_eq!(prefix, &value[..prefix_len]);
        }
        other => panic!("{len}-byte value on {page_size}-byte pages stored as {other:?}"),
    }
    assert_eq!(
        cursor.value(0).unwrap(),
        Value::Bytes(value.as_slice().into())
    );
    drop(cursor);
    let stats = tree.check(&store).unwrap();
    let chain_pages = expected.map_or(0, |(_, pages)| pages);
    assert_eq!(stats.overflow_pages, 2 * chain_pages, "{len} bytes");
    if let Some((prefix_len, pages)) = expected {
        // The chain's pages are full exactly when a prefix was kept (or the value is a
        // multiple of the page data size).
        let per_page = data_per_page(store.usable_size());
        let full = (len - prefix_len).is_multiple_of(per_page);
        assert_eq!(full, prefix_len > 0 || len.is_multiple_of(per_page));
        assert_eq!(pages, (len - prefix_len).div_ceil(per_page));
    }
    assert_eq!(
        tree.get(&store, 2).unwrap().unwrap()[0],
        OwnedValue::Bytes(value.clone())
    );
    // Shrinking the value by update frees its chain; deleting the rows frees everything.
    tree.update(&mut store, 1, &kinds, &[CellValue::Var(b"short")])
        .unwrap();
    assert_eq!(tree.check(&store).unwrap().overflow_pages, chain_pages);
    assert!(tree.delete(&mut store, 1).unwrap());
    assert!(tree.delete(&mut store, 2).unwrap());
    tree.check(&store).unwrap();
    assert_eq!(store.live_pages(), 2);
}

#[test]
fn boundary_value_sizes() {
    for page_size in [4096, 65536] {
        let usable = page_size - 4;
        let limit = max_inline_len(usable);
        let per_page = usable - 12;
        assert_eq!(limit, if page_size == 4096 { 2018 } else { 32738 });
        check_placement(page_size, 0, None);
        check_placement(page_size, limit - 1, None);
        // Exactly at the limit: inline. One above: all of it to one, partly used page.
        check_placement(page_size, limit, None);
        check_placement(page_size, limit + 1, Some((0, 1)));
        check_placement(page_size, per_page - 1, Some((0, 1)));
        for pages in 1..=3 {
            // Remainders that fit inline leave exactly `pages` full chain pages.
            check_placement(page_size, pages * per_page, Some((0, pages)));
            check_placement(page_size, pages * per_page + 1, Some((1, pages)));
            // The largest remainder kept: its entry (12-byte pointer and prefix) is `limit`.
            let kept = limit - 12;
            check_placement(page_size, pages * per_page + kept, Some((kept, pages)));
            // One byte more and the remainder no longer fits: a partial page more.
            check_placement(page_size, pages * per_page + kept + 1, Some((0, pages + 1)));
        }
    }
}

#[test]
fn ten_megabyte_blob_keeps_its_remainder_inline() {
    for page_size in [4096, 65536] {
        let len = 10 << 20;
        let per_page = page_size - 16;
        let remainder = len % per_page;
        // 160 bytes on 4 KiB pages, 2560 on 64 KiB pages: both under the inline limit.
        assert!(remainder > 0 && remainder <= max_inline_len(page_size - 4));
        check_placement(page_size, len, Some((remainder, len / per_page)));
    }
}

#[test]
fn row_of_200_kilobytes_in_several_columns() {
    for page_size in [4096, 65536] {
        let mut store = TestStore::new(page_size);
        let usable = store.usable_size();
        let per_page = data_per_page(usable);
        let tree = TableTree::create(&mut store).unwrap();
        let mut kinds = vec![ColumnKind::Fixed8];
        kinds.extend([ColumnKind::Var; 8]);
        kinds.push(ColumnKind::Fixed4);
        // Eight values of about 200 KB in all: long ones with and without an inline
        // remainder, one just above the inline limit, medium and short ones; the first is
        // whole chain pages making up the rest. Chosen so that steps 1 and 2 of the placement
        // rule decide every value (the inline bytes fit twice in a page, so step 3 moves
        // nothing out) on both page sizes.
        let limit = max_inline_len(usable);
        let mut lengths = [
            0,
            40_000,
            20_000,
            per_page + 10,
            limit / 4,
            limit + 1,
            100,
            3_000,
        ];
        lengths[0] = (200_000 - lengths.iter().sum::<usize>()) / per_page * per_page;
        let values: Vec<Vec<u8>> = lengths
            .iter()
            .enumerate()
            .map(|(column, &len)| (0..len).map(|i| (i * 7 + column) as u8).collect())
            .collect();
        let mut row = vec![CellValue::Fixed(u64::MAX)];
        row.extend(values.iter().map(|value| CellValue::Var(value)));
        row.push(CellValue::Fixed(0xDEAD_BEEF));
        for id in 0..5 {
            assert!(tree.insert(&mut store, id, &kinds, &row).unwrap());
        }
        let stats = tree.check(&store).unwrap();
        // Each value's chain has the pages the rule predicts.
        let expected_pages: usize = lengths
            .iter()
            .filter(|&&len| len > limit)
            .map(|&len| {
                let prefix = overflow_prefix_len(usable, len);
                (len - prefix).div_ceil(per_page)
            })
            .sum();
        assert_eq!(stats.overflow_pages, 5 * expected_pages);
        let got = tree.get(&store, 3).unwrap().unwrap();
        assert_eq!(got[0], OwnedValue::Fixed(u64::MAX));
        for (column, value) in values.iter().enumerate() {
            assert_eq!(got[column + 1], OwnedValue::Bytes(value.clone()));
        }
        assert_eq!(got[9], OwnedValue::Fixed(0xDEAD_BEEF));
        for id in 0..5 {
            assert!(tree.delete(&mut store, id).unwrap());
        }
        assert_eq!(store.live_pages(), 2);
    }
}

#[test]
fn wide_rows_move_prefixes_out_entirely() {
    // Six values that would each keep a 900-byte prefix inline: too much for two rows per
    // 4 KiB page, so the costliest (highest columns on a tie) move out entirely until the
    // row fits: 2 x 912 + 4 x 12 heap bytes fit twice beside the arrays, 3 x 912 do not.
    let mut store = TestStore::new(4096);
    let per_page = data_per_page(store.usable_size());
    let tree = TableTree::create(&mut store).unwrap();
    let kinds = vec![ColumnKind::Var; 6];
    let value: Vec<u8> = (0..per_page + 900).map(|i| (i % 249) as u8).collect();
    let row: Vec<CellValue<'_>> = (0..6).map(|_| CellValue::Var(&value)).collect();
    for id in 0..4 {
        assert!(tree.insert(&mut store, id, &kinds, &row).unwrap());
    }
    let mut cursor = tree.cursor(&store);
    assert!(cursor.seek_ge(2).unwrap());
    for column in 0..6 {
        let ValueRef::Overflow { prefix, .. } = cursor.value_ref(column).unwrap() else {
            panic!("column {column} not in overflow");
        };
        assert_eq!(
            prefix.len(),
            if column < 2 { 900 } else { 0 },
            "column {column}"
        );
        assert_eq!(
            cursor.value(column).unwrap(),
            Value::Bytes(value.as_slice().into())
        );
    }
    drop(cursor);
    assert_eq!(tree.check(&store).unwrap().overflow_pages, 4 * (2 + 4 * 2));
}

#[test]
fn wide_rows_spill_or_fail() {
    let mut store = TestStore::new(4096);
    let tree = TableTree::create(&mut store).unwrap();
    // 40 Var columns of 300 bytes: each under the inline limit, together far too wide for
    // two rows per page, so the largest move to overflow.
    let kinds = vec![ColumnKind::Var; 40];
    let value = vec![9u8; 300];
    let row: Vec<CellValue<'_>> = (0..40).map(|_| CellValue::Var(&value)).collect();
    for id in 0..20 {
        assert!(tree.insert(&mut store, id, &kinds, &row).unwrap());
    }
    tree.check(&store).unwrap();
    assert_eq!(
        tree.get(&store, 7).unwrap().unwrap()[39],
        OwnedValue::Bytes(value.clone())
    );
    // Thousands of fixed columns cannot fit at all.
    let kinds = vec![ColumnKind::Fixed8; 3000];
    let row = vec![CellValue::Fixed(1); 3000];
    assert!(matches!(
        tree.insert(&mut store, 100, &kinds, &row),
        Err(StorageError::RowTooWide { .. })
    ));
    // Mismatched rows are rejected.
    assert!(
        tree.insert(
            &mut store,
            100,
            &[ColumnKind::Fixed8],
            &[CellValue::Var(b"x")]
        )
        .is_err()
    );
    assert!(
        tree.insert(&mut store, 100, &[ColumnKind::Fixed8], &[])
            .is_err()
    );
}

#[test]
fn add_column_later() {
    let mut store = TestStore::new(4096);
    let tree = TableTree::create(&mut store).unwrap();
    let old = [ColumnKind::Fixed8];
    let new = [ColumnKind::Fixed8, ColumnKind::Var];
    for id in 0..2000 {
        tree.insert(&mut store, id * 2, &old, &[CellValue::Fixed(id as u64)])
            .unwrap();
    }
    for id in 0..2000 {
        tree.insert(
            &mut store,
            id * 2 + 1,
            &new,
            &[CellValue::Fixed(id as u64), CellValue::Var(b"added")],
        )
        .unwrap();
    }
    tree.check(&store).unwrap();
    let mut cursor = tree.cursor(&store);
    assert!(cursor.seek_ge(10).unwrap());
    assert_eq!(cursor.value(1).unwrap(), Value::Null);
    assert!(cursor.next().unwrap());
    assert_eq!(
        cursor.value(1).unwrap(),
        Value::Bytes(b"added".as_slice().into())
    );
    // Conflicting kinds for an existing column are rejected.
    assert!(matches!(
        tree.insert(
            &mut store,
            1_000_000,
            &[ColumnKind::Var],
            &[CellValue::Var(b"x")]
        ),
        Err(StorageError::InvalidArgument(_))
    ));
}

#[test]
fn leaf_at_a_time_scan() {
    let mut store = TestStore::new(4096);
    let tree = TableTree::create(&mut store).unwrap();
    let kinds = [ColumnKind::Fixed8, ColumnKind::Fixed4];
    for id in 0..10_000i64 {
        tree.insert(
            &mut store,
            id,
            &kinds,
            &[
                CellValue::Fixed(id as u64 * 2),
                if id % 7 == 0 {
                    CellValue::Null
                } else {
                    CellValue::Fixed(1)
                },
            ],
        )
        .unwrap();
    }
    let mut cursor = tree.cursor(&store);
    let mut sum = 0u64;
    let mut nulls = 0;
    let mut valid = cursor.first().unwrap();
    while valid {
        let leaf = cursor.leaf().unwrap();
        assert_eq!(cursor.position(), 0);
        let (values, width) = leaf.fixed_column(0).unwrap();
        assert_eq!(width, 8);
        sum += values
            .chunks_exact(8)
            .map(|chunk| u64::from_le_bytes(chunk.try_into().unwrap()))
            .sum::<u64>();
        nulls += leaf
            .null_bitmap(1)
            .unwrap()
            .iter()
            .map(|byte| byte.count_ones())
            .sum::<u32>();
        valid = cursor.next_leaf().unwrap();
    }
    assert_eq!(sum, (0..10_000u64).map(|id| id * 2).sum::<u64>());
    assert_eq!(nulls, (0..10_000).filter(|id| id % 7 == 0).count() as u32);
}

/// Writes random bytes into tree pages; every operation must return (Ok or Err), never
/// panic or hang.
#[test]
fn corrupted_pages_give_errors() {
    let mut rng = StdRng::seed_from_u64(5);
    for round in 0..60 {
        let mut store = TestStore::new(4096);
        let tree = TableTree::create(&mut store).unwrap();
        let kinds = [ColumnKind::Fixed8, ColumnKind::Var];
        let long = vec![1u8; 5000];
        for id in 0..3000i64 {
            let text = if id % 97 == 0 {
                long.as_slice()
            } else {
                b"some text".as_slice()
            };
            tree.insert(
                &mut store,
                id * 5,
                &kinds,
                &[CellValue::Fixed(id as u64), CellValue::Var(text)],
            )
            .unwrap();
        }
        // Pick tree pages of the wanted kind: leaves on even rounds, interior on odd rounds.
        let wanted = if round % 2 == 0 {
            kind::TABLE_LEAF
        } else {
            kind::TABLE_INTERIOR
        };
        let pages: Vec<u32> = (1..store.live_pages() as u32)
            .filter(|&page_no| store.page(page_no).unwrap()[0] == wanted)
            .collect();
        let target = pages[rng.gen_range(0..pages.len())];
        let damage = rng.gen_range(1..40);
        let bytes = store.page_mut(target).unwrap();
        for _ in 0..damage {
            let at = if rng.gen_bool(0.5) {
                rng.gen_range(0..64)
            } else {
                rng.gen_range(0..bytes.len())
            };
            bytes[at] = rng.r#gen();
        }
        let _ = tree.check(&store);
        for probe in 0..200 {
            let id = rng.gen_range(-10..16_000);
            let _ = tree.get(&store, id);
            let mut cursor = tree.cursor(&store);
            if cursor.seek_ge(id).is_ok() {
                for _ in 0..20 {
                    let _ = cursor.value(1);
                    if !matches!(cursor.next(), Ok(true)) {
                        break;
                    }
                }
            }
            let _ = cursor.seek_le(id);
            let _ = cursor.last();
            match probe % 3 {
                0 => {
                    let _ = tree.insert(
                        &mut store,
                        id,
                        &kinds,
                        &[CellValue::Fixed(1), CellValue::Var(b"new")],
                    );
                }
                1 => {
                    let _ = tree.delete(&mut store, id);
                }
                _ => {
                    let _ = tree.update(
                        &mut store,
                        id,
                        &kinds,
                        &[CellValue::Null, CellValue::Var(&long)],
                    );
                }
            }
        }
        let _ = tree.max_row_id(&store);
        let _ = tree.destroy(&mut store);
    }
}

#[test]
fn interior_cycle_is_bounded() {
    let mut store = TestStore::new(4096);
    let tree = TableTree::create(&mut store).unwrap();
    let kinds = [ColumnKind::Fixed8];
    for id in 0..2000i64 {
        tree.insert(&mut store, id, &kinds, &[CellValue::Fixed(1)])
            .unwrap();
    }
    // Make the root's first child pointer point at another interior page that points back.
    let other = store.allocate_page().unwrap();
    let root = tree.root();
    let bytes = store.page_mut(other).unwrap();
    bytes[0] = kind::TABLE_INTERIOR;
    bytes[8..12].copy_from_slice(&root.to_le_bytes());
    store.page_mut(root).unwrap()[8..12].copy_from_slice(&other.to_le_bytes());
    assert!(tree.get(&store, 0).is_err());
    assert!(tree.check(&store).is_err());
    assert!(
        tree.insert(&mut store, -1, &kinds, &[CellValue::Fixed(1)])
            .is_err()
    );
}

#[test]
fn extreme_row_ids() {
    let mut store = TestStore::new(4096);
    let tree = TableTree::create(&mut store).unwrap();
    let kinds = [ColumnKind::Var];
    let long = vec![4u8; 3000];
    let mut ids = vec![i64::MIN, i64::MAX, 0, -1, 1, i64::MIN + 1, i64::MAX - 1];
    ids.extend((0..3000).map(|i| i64::MAX - 10_000 + i * 3));
    ids.extend((0..3000).map(|i| i64::MIN + i * 3 + 7));
    for &id in &ids {
        assert!(
            tree.insert(
                &mut store,
                id,
                &kinds,
                &[CellValue::Var(&long[..(id as usize) % 3000])]
            )
            .unwrap()
        );
    }
    tree.check(&store).unwrap();
    assert_eq!(tree.max_row_id(&store).unwrap(), Some(i64::MAX));
    let mut cursor = tree.cursor(&store);
    assert!(cursor.first().unwrap());
    assert_eq!(cursor.row_id(), Some(i64::MIN));
    assert!(!cursor.seek_ge(i64::MAX - 1).unwrap() || cursor.row_id() == Some(i64::MAX - 1));
    assert!(cursor.seek_le(i64::MIN).unwrap());
    assert!(!cursor.prev().unwrap());
    // A conflicting kind with a long value is rejected without leaking overflow pages.
    let before = store.live_pages();
    assert!(
        tree.insert(&mut store, 5, &[ColumnKind::Fixed8], &[CellValue::Fixed(1)])
            .is_err()
    );
    assert!(
        tree.update(&mut store, 0, &[ColumnKind::Fixed8], &[CellValue::Fixed(1)])
            .is_err()
    );
    assert_eq!(store.live_pages(), before);
    for &id in &ids {
        assert!(tree.delete(&mut store, id).unwrap());
    }
    assert_eq!(store.live_pages(), 2);
}

/// A store that promises its pages stay put between writes (a generation, bumped by the
/// test when it writes), so a cursor over it fetches the next leaf ahead.
struct Steady<'a> {
    store: &'a std::cell::RefCell<TestStore>,
    generation: &'a std::cell::Cell<u64>,
}

impl PageRead for Steady<'_> {
    fn page(
        &self,
        page_no: crate::storage::page::PageNo,
    ) -> crate::storage::error::Result<crate::storage::page::PageRef> {
        self.store.borrow().page(page_no)
    }

    fn usable_size(&self) -> usize {
        self.store.borrow().usable_size()
    }

    fn generation(&self) -> Option<u64> {
        Some(self.generation.get())
    }
}

/// A walk that fetches each next leaf ahead reads every row once, in order; and a leaf
/// fetched ahead is not used once the store has changed: the step reads the page as it is
/// now (without the generation check it returned the old image's value).
#[test]
fn fetching_the_next_leaf_ahead() {
    let store = std::cell::RefCell::new(TestStore::new(4096));
    let generation = std::cell::Cell::new(1);
    let tree = TableTree::create(&mut *store.borrow_mut()).unwrap();
    let kinds = [ColumnKind::Fixed8];
    for id in 0..20_000i64 {
        let row = [CellValue::Fixed(id as u64)];
        assert!(
            tree.insert(&mut *store.borrow_mut(), id, &kinds, &row)
                .unwrap()
        );
    }
    let mut cursor = tree.cursor(Steady {
        store: &store,
        generation: &generation,
    });
    let (mut seen, mut leaves) = (Vec::new(), 0);
    let mut valid = cursor.first().unwrap();
    while valid {
        let fetched = cursor.fetch_next_leaf().is_some();
        let leaf = cursor.leaf().unwrap();
        assert_eq!(fetched, leaf.next_leaf() != 0);
        let (first, count) = (cursor.position(), leaf.row_count());
        seen.extend((first..count).map(|row| leaf.row_id(row)));
        leaves += 1;
        valid = cursor.advance(count - first).unwrap();
    }
    assert!(leaves > 20, "{leaves} leaves");
    assert_eq!(seen, (0..20_000).collect::<Vec<i64>>());

    // Fetch the second leaf ahead, then change its first row in place.
    assert!(cursor.first().unwrap());
    let rows_in_first = cursor.leaf().unwrap().row_count();
    assert!(cursor.fetch_next_leaf().is_some());
    let changed = rows_in_first as i64;
    tree.update(
        &mut *store.borrow_mut(),
        changed,
        &kinds,
        &[CellValue::Fixed(999_999)],
    )
    .unwrap();
    generation.set(2);
    assert!(cursor.advance(rows_in_first).unwrap());
    assert_eq!(cursor.row_id(), Some(changed));
    assert!(matches!(cursor.value(0).unwrap(), Value::Fixed(999_999)));
}
