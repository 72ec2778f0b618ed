//! Tests of the index B+tree as a whole: a randomized model test against `BTreeMap`, page
//! accounting, fill factors, bulk load, size limits and damaged pages.
//!
//! All randomness is seeded, so a failure reproduces exactly.

use std::collections::BTreeMap;
use std::ops::Bound;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::index::IndexTree;
use super::index_page::{ENTRY_OVERHEAD, max_entry_size};
use super::test_store::TestStore;
use crate::storage::error::StorageError;
use crate::storage::page::{PageRead, PageWrite};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

const ALPHABET: &[u8] = &[0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff, b'a', b'b'];

/// A key in the style the SQL layer produces: mostly composite (table tag, a column, a row
/// id) with heavily shared prefixes, some short odd ones, and a few long ones that share a
/// long prefix (so truncated separators stay long and interior nodes split too).
fn random_key(rng: &mut StdRng, max_len: usize) -> Vec<u8> {
    let mut key = Vec::new();
    match rng.gen_range(0..20) {
        0 => {}
        1..=3 => {
            for _ in 0..rng.gen_range(1..4) {
                key.push(ALPHABET[rng.gen_range(0..ALPHABET.len())]);
            }
        }
        4..=15 => {
            key.push(rng.gen_range(1..4));
            key.extend_from_slice(b"idx");
            for _ in 0..rng.gen_range(0..6) {
                key.push(ALPHABET[rng.gen_range(0..ALPHABET.len())]);
            }
            key.push(0);
            key.extend_from_slice(&rng.gen_range(0u64..5000).to_be_bytes());
        }
        16..=17 => {
            for _ in 0..rng.gen_range(0..40) {
                key.push(ALPHABET[rng.gen_range(0..ALPHABET.len())]);
            }
        }
        _ => {
            let len = rng.gen_range(100..=max_len.max(100));
            key.resize(len.saturating_sub(8), 0xaa);
            key.extend_from_slice(&rng.gen_range(0u64..200).to_be_bytes());
        }
    }
    key.truncate(max_len);
    key
}

fn random_value(rng: &mut StdRng) -> Vec<u8> {
    let len = if rng.gen_bool(0.3) {
        0
    } else {
        rng.gen_range(0..200)
    };
    (0..len).map(|_| rng.r#gen()).collect()
}

/// A probe for seeks: an existing key, a neighbour of one, or a fresh random key.
fn probe(rng: &mut StdRng, keys: &[Vec<u8>], max_len: usize) -> Vec<u8> {
    if keys.is_empty() || rng.gen_bool(0.3) {
        return random_key(rng, max_len);
    }
    let mut key = keys[rng.gen_range(0..keys.len())].clone();
    match rng.gen_range(0..4) {
        0 => {}
        1 => key.push(rng.r#gen()),
        2 => {
            key.pop();
        }
        _ => {
            if let Some(last) = key.last_mut() {
                *last = last.wrapping_add(1);
            }
        }
    }
    key
}

fn scan_forward(tree: &IndexTree, store: &TestStore) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let mut cursor = tree.cursor(store);
    let mut valid = cursor.first().unwrap();
    while valid {
        out.push((cursor.key().to_vec(), cursor.value().to_vec()));
        valid = cursor.next().unwrap();
    }
    out
}

fn scan_backward(tree: &IndexTree, store: &TestStore) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let mut cursor = tree.cursor(store);
    let mut valid = cursor.last().unwrap();
    while valid {
        out.push((cursor.key().to_vec(), cursor.value().to_vec()));
        valid = cursor.prev().unwrap();
    }
    out.reverse();
    out
}

fn model_entries(model: &Model) -> Vec<(Vec<u8>, Vec<u8>)> {
    model.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

fn expect_at(
    cursor: &super::index_cursor::IndexCursor<&TestStore>,
    expected: Option<(&Vec<u8>, &Vec<u8>)>,
    what: &str,
) {
    match expected {
        Some((k, v)) => {
            assert!(cursor.is_valid(), "{what}: cursor invalid, expected {k:?}");
            assert_eq!(cursor.key(), &k[..], "{what}");
            assert_eq!(cursor.value(), &v[..], "{what}");
        }
        None => assert!(
            !cursor.is_valid(),
            "{what}: expected no entry, got {:?}",
            cursor.key()
        ),
    }
}

/// Checks the four seeks at `key`, then walks a few steps from each position.
fn check_seeks(tree: &IndexTree, store: &TestStore, model: &Model, key: &[u8], rng: &mut StdRng) {
    let mut cursor = tree.cursor(store);
    let key_vec = key.to_vec();

    let exact = cursor.seek_ge(key).unwrap();
    let expected = model.range(key_vec.clone()..).next();
    assert_eq!(exact, expected.is_some_and(|(k, _)| k == &key_vec));
    expect_at(&cursor, expected, "seek_ge");
    let steps = rng.gen_range(0..40);
    let mut forward = model.range(key_vec.clone()..);
    forward.next();
    for _ in 0..steps {
        let expected = forward.next();
        assert_eq!(cursor.next().unwrap(), expected.is_some());
        expect_at(&cursor, expected, "next after seek_ge");
        if expected.is_none() {
            break;
        }
    }

    let valid = cursor.seek_gt(key).unwrap();
    let expected = model
        .range((Bound::Excluded(key_vec.clone()), Bound::Unbounded))
        .next();
    assert_eq!(valid, expected.is_some());
    expect_at(&cursor, expected, "seek_gt");

    let exact = cursor.seek_le(key).unwrap();
    let expected = model.range(..=key_vec.clone()).next_back();
    assert_eq!(exact, expected.is_some_and(|(k, _)| k == &key_vec));
    expect_at(&cursor, expected, "seek_le");
    let mut backward = model.range(..=key_vec.clone()).rev();
    backward.next();
    for _ in 0..steps {
        let expected = backward.next();
        assert_eq!(cursor.prev().unwrap(), expected.is_some());
        expect_at(&cursor, expected, "prev after seek_le");
        if expected.is_none() {
            break;
        }
    }

    let valid = cursor.seek_lt(key).unwrap();
    let expected = model.range(..key_vec.clone()).next_back();
    assert_eq!(valid, expected.is_some());
    expect_at(&cursor, expected, "seek_lt");
    // Direction changes at an arbitrary point.
    if valid {
        let after = model
            .range((Bound::Excluded(cursor.key().to_vec()), Bound::Unbounded))
            .next();
        let before = cursor.key().to_vec();
        assert_eq!(cursor.next().unwrap(), after.is_some());
        expect_at(&cursor, after, "next after seek_lt");
        if after.is_some() {
            assert!(cursor.prev().unwrap());
            assert_eq!(cursor.key(), &before[..]);
        }
    }
}

/// Random operations against a `BTreeMap`, with integrity checks along the way, then
/// deletion of everything with a check that no page leaked.
fn model_test(page_size: usize, ops: usize, seed: u64) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut store = TestStore::new(page_size);
    let tree = IndexTree::create(&mut store).unwrap();
    let max = max_entry_size(store.usable_size());
    let mut model = Model::new();
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut max_depth = 0;

    for op in 0..ops {
        match rng.gen_range(0..100) {
            0..=39 => {
                let mut value = random_value(&mut rng);
                let key = if !keys.is_empty() && rng.gen_bool(0.1) {
                    keys[rng.gen_range(0..keys.len())].clone()
                } else {
                    random_key(&mut rng, max - ENTRY_OVERHEAD - value.len())
                };
                value.truncate(max - ENTRY_OVERHEAD - key.len());
                let inserted = tree.insert(&mut store, &key, &value).unwrap();
                assert_eq!(inserted, !model.contains_key(&key));
                if inserted {
                    model.insert(key.clone(), value);
                    keys.push(key);
                }
            }
            40..=54 => {
                let mut value = random_value(&mut rng);
                let key = if !keys.is_empty() && rng.gen_bool(0.6) {
                    keys[rng.gen_range(0..keys.len())].clone()
                } else {
                    random_key(&mut rng, max - ENTRY_OVERHEAD - value.len())
                };
                value.truncate(max - ENTRY_OVERHEAD - key.len());
                let old = tree.upsert(&mut store, &key, &value).unwrap();
                assert_eq!(old, model.insert(key.clone(), value));
                keys.push(key);
            }
            55..=79 => {
                let key = if !keys.is_empty() && rng.gen_bool(0.85) {
                    keys.swap_remove(rng.gen_range(0..keys.len()))
                } else {
                    random_key(&mut rng, max)
                };
                let deleted = tree.delete(&mut store, &key).unwrap();
                assert_eq!(deleted, model.remove(&key).is_some());
            }
            80..=89 => {
                let key = probe(&mut rng, &keys, max);
                assert_eq!(tree.get(&store, &key).unwrap(), model.get(&key).cloned());
            }
            _ => {
                let key = probe(&mut rng, &keys, max);
                check_seeks(&tree, &store, &model, &key, &mut rng);
            }
        }
        if op.is_multiple_of(250) || op + 1 == ops {
            let stats = tree.check(&store).unwrap();
            assert_eq!(stats.entries, model.len());
            assert_eq!(stats.pages + 1, store.live_pages(), "leaked or lost pages");
            max_depth = max_depth.max(stats.depth);
        }
        if op % 1000 == 999 {
            assert_eq!(scan_forward(&tree, &store), model_entries(&model));
            assert_eq!(scan_backward(&tree, &store), model_entries(&model));
        }
    }
    assert_eq!(scan_forward(&tree, &store), model_entries(&model));
    assert_eq!(scan_backward(&tree, &store), model_entries(&model));

    // Delete everything in random order; the tree shrinks back to its root.
    let mut remaining: Vec<Vec<u8>> = model.keys().cloned().collect();
    while !remaining.is_empty() {
        let key = remaining.swap_remove(rng.gen_range(0..remaining.len()));
        assert!(tree.delete(&mut store, &key).unwrap());
        model.remove(&key);
        if remaining.len().is_multiple_of(97) {
            let stats = tree.check(&store).unwrap();
            assert_eq!(stats.entries, model.len());
            assert_eq!(stats.pages + 1, store.live_pages());
        }
    }
    let stats = tree.check(&store).unwrap();
    assert_eq!((stats.entries, stats.pages, stats.depth), (0, 1, 1));
    assert_eq!(
        store.live_pages(),
        2,
        "pages leaked after deleting everything"
    );
    assert!(tree.is_empty(&store).unwrap());
    assert!(!tree.cursor(&store).first().unwrap());
    tree.destroy(&mut store).unwrap();
    assert_eq!(store.live_pages(), 1);
    max_depth
}

#[test]
fn model_4k() {
    let depth = model_test(4096, 6000, 0x5eed_0001);
    assert!(
        depth >= 3,
        "the test should exercise interior splits (depth {depth})"
    );
}

#[test]
fn model_64k() {
    let depth = model_test(65536, 2500, 0x5eed_0002);
    assert!(
        depth >= 2,
        "the test should exercise splits (depth {depth})"
    );
}

#[test]
fn model_4k_other_seeds() {
    for seed in 10..13 {
        model_test(4096, 2000, seed);
    }
}

/// A long key with a long shared prefix: separators stay long, so fan-out is low.
fn padded(n: u64) -> Vec<u8> {
    [vec![0x42; 300], composite(4, n)].concat()
}

fn composite(table: u8, n: u64) -> Vec<u8> {
    let mut key = vec![table, b'i', b'x'];
    key.extend_from_slice(&(n * 7).to_be_bytes());
    key.extend_from_slice(&n.to_be_bytes());
    key
}

#[test]
fn sorted_inserts_fill_pages() {
    for page_size in [4096, 65536] {
        let mut store = TestStore::new(page_size);
        let tree = IndexTree::create(&mut store).unwrap();
        let n = if page_size == 4096 { 20_000 } else { 60_000 };
        for i in 0..n {
            assert!(tree.insert(&mut store, &composite(1, i), b"").unwrap());
        }
        let stats = tree.check(&store).unwrap();
        assert_eq!(stats.entries, n as usize);
        let fill = stats.leaf_bytes as f64 / (stats.leaves * store.usable_size()) as f64;
        assert!(fill >= 0.9, "page size {page_size}: fill {fill:.3}");
        // Interior pages stay few: the rightmost spine splits unevenly as well.
        assert!(
            stats.pages - stats.leaves <= stats.leaves / 50 + 2,
            "{stats:?}"
        );
        assert_eq!(stats.pages + 1, store.live_pages());
    }
}

#[test]
fn descending_and_middle_inserts_stay_valid() {
    let mut store = TestStore::new(4096);
    let tree = IndexTree::create(&mut store).unwrap();
    for i in (0..5000u64).rev() {
        assert!(
            tree.insert(&mut store, &composite(2, i), &[i as u8; 20])
                .unwrap()
        );
    }
    for i in 0..5000u64 {
        let key = [composite(2, i), vec![0x80]].concat();
        assert!(tree.insert(&mut store, &key, b"mid").unwrap());
    }
    let stats = tree.check(&store).unwrap();
    assert_eq!(stats.entries, 10_000);
    let fill = stats.leaf_bytes as f64 / (stats.leaves * store.usable_size()) as f64;
    assert!(fill >= 0.45, "fill {fill:.3}");
}

#[test]
fn bulk_load_matches_inserts() {
    for page_size in [4096, 65536] {
        let mut rng = StdRng::seed_from_u64(0xb01c + page_size as u64);
        let max = max_entry_size(page_size - 4);
        let mut model = Model::new();
        let count = if page_size == 4096 { 5000 } else { 6000 };
        while model.len() < count {
            let value = random_value(&mut rng);
            let key = random_key(&mut rng, max - ENTRY_OVERHEAD - value.len());
            model.insert(key, value);
        }
        let mut bulk_store = TestStore::new(page_size);
        let bulk = IndexTree::create(&mut bulk_store).unwrap();
        bulk.bulk_load(&mut bulk_store, model_entries(&model))
            .unwrap();
        let bulk_stats = bulk.check(&bulk_store).unwrap();
        assert_eq!(bulk_stats.entries, model.len());
        assert_eq!(bulk_stats.pages + 1, bulk_store.live_pages());

        let mut insert_store = TestStore::new(page_size);
        let inserted = IndexTree::create(&mut insert_store).unwrap();
        for (k, v) in &model {
            assert!(inserted.insert(&mut insert_store, k, v).unwrap());
        }
        inserted.check(&insert_store).unwrap();
        assert_eq!(scan_forward(&bulk, &bulk_store), model_entries(&model));
        assert_eq!(scan_backward(&bulk, &bulk_store), model_entries(&model));
        assert_eq!(
            scan_forward(&inserted, &insert_store),
            scan_forward(&bulk, &bulk_store)
        );
        for (k, v) in model.iter().step_by(37) {
            assert_eq!(bulk.get(&bulk_store, k).unwrap().as_ref(), Some(v));
        }

        // The loaded tree keeps working under random changes.
        let keys: Vec<Vec<u8>> = model.keys().cloned().collect();
        for i in 0..2000u32 {
            let key = keys[rng.gen_range(0..keys.len())].clone();
            if i.is_multiple_of(2) {
                assert_eq!(
                    bulk.delete(&mut bulk_store, &key).unwrap(),
                    model.remove(&key).is_some()
                );
            } else {
                let value = random_value(&mut rng);
                let mut key = key;
                key.push(rng.r#gen());
                key.truncate(max - ENTRY_OVERHEAD - value.len());
                assert_eq!(
                    bulk.upsert(&mut bulk_store, &key, &value).unwrap(),
                    model.insert(key, value)
                );
            }
        }
        assert_eq!(bulk.check(&bulk_store).unwrap().entries, model.len());
        assert_eq!(scan_forward(&bulk, &bulk_store), model_entries(&model));
    }
}

#[test]
fn bulk_load_small_and_empty_inputs() {
    let mut store = TestStore::new(4096);
    let tree = IndexTree::create(&mut store).unwrap();
    tree.bulk_load(&mut store, Vec::new()).unwrap();
    assert!(tree.is_empty(&store).unwrap());
    tree.bulk_load(&mut store, vec![(b"a".to_vec(), b"1".to_vec())])
        .unwrap();
    assert_eq!(tree.check(&store).unwrap().pages, 1);
    assert_eq!(tree.get(&store, b"a").unwrap(), Some(b"1".to_vec()));
    // Only into an empty tree.
    assert!(matches!(
        tree.bulk_load(&mut store, vec![(b"b".to_vec(), Vec::new())]),
        Err(StorageError::InvalidArgument(_))
    ));
}

#[test]
fn bulk_load_rejects_bad_input_without_leaking() {
    let mut store = TestStore::new(4096);
    let tree = IndexTree::create(&mut store).unwrap();
    let mut entries: Vec<(Vec<u8>, Vec<u8>)> =
        (0..3000).map(|i| (composite(3, i), vec![1; 10])).collect();
    entries.push((composite(3, 5), Vec::new()));
    assert!(matches!(
        tree.bulk_load(&mut store, entries),
        Err(StorageError::InvalidArgument(_))
    ));
    assert_eq!(store.live_pages(), 2);
    assert!(tree.is_empty(&store).unwrap());
    let too_big = vec![(vec![1u8; 2000], Vec::new())];
    assert!(matches!(
        tree.bulk_load(&mut store, too_big),
        Err(StorageError::KeyTooLarge { .. })
    ));
    assert_eq!(store.live_pages(), 2);
    tree.check(&store).unwrap();
}

#[test]
fn oversized_entries_are_refused() {
    for page_size in [4096, 65536] {
        let mut store = TestStore::new(page_size);
        let tree = IndexTree::create(&mut store).unwrap();
        let max = max_entry_size(store.usable_size());
        let fits = vec![7u8; max - ENTRY_OVERHEAD];
        assert!(tree.insert(&mut store, &fits, b"").unwrap());
        let key = vec![8u8; max - ENTRY_OVERHEAD - 10];
        assert!(tree.insert(&mut store, &key, &[0; 10]).unwrap());
        let too_big = vec![9u8; max - ENTRY_OVERHEAD + 1];
        match tree.insert(&mut store, &too_big, b"") {
            Err(StorageError::KeyTooLarge { size, max: m }) => {
                assert_eq!((size, m), (max + 1, max));
            }
            other => panic!("expected KeyTooLarge, got {other:?}"),
        }
        assert!(matches!(
            tree.upsert(&mut store, &key, &[0; 11]),
            Err(StorageError::KeyTooLarge { .. })
        ));
        // Maximal entries split cleanly, many times over.
        for i in 0..60u8 {
            let mut key = fits.clone();
            key[0] = i;
            tree.upsert(&mut store, &key, b"").unwrap();
        }
        assert_eq!(tree.check(&store).unwrap().entries, 61);
    }
}

#[test]
fn root_keeps_its_page_number() {
    let mut store = TestStore::new(4096);
    let tree = IndexTree::create(&mut store).unwrap();
    let root = tree.root();
    for i in 0..3000 {
        tree.insert(&mut store, &padded(i), &[0; 30]).unwrap();
    }
    assert!(tree.check(&store).unwrap().depth >= 3);
    let reopened = IndexTree::open(root);
    assert_eq!(
        reopened.get(&store, &padded(1234)).unwrap(),
        Some(vec![0; 30])
    );
    for i in 0..3000 {
        assert!(reopened.delete(&mut store, &padded(i)).unwrap());
    }
    assert_eq!(reopened.root(), root);
    assert_eq!(store.live_pages(), 2);
}

#[test]
fn destroy_frees_every_page() {
    let mut store = TestStore::new(4096);
    let keep = IndexTree::create(&mut store).unwrap();
    keep.insert(&mut store, b"keep", b"me").unwrap();
    let tree = IndexTree::create(&mut store).unwrap();
    for i in 0..8000 {
        tree.insert(&mut store, &composite(5, i), &[1; 12]).unwrap();
    }
    assert!(store.live_pages() > 50);
    tree.destroy(&mut store).unwrap();
    assert_eq!(store.live_pages(), 2);
    keep.check(&store).unwrap();
}

/// Builds a small multi-level tree and returns it with its keys.
fn small_tree(seed: u64) -> (TestStore, IndexTree, Vec<Vec<u8>>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut store = TestStore::new(4096);
    let tree = IndexTree::create(&mut store).unwrap();
    let mut keys = Vec::new();
    for _ in 0..600 {
        let value = random_value(&mut rng);
        let key = random_key(&mut rng, 300);
        if tree
            .insert(&mut store, &key, &value[..value.len().min(60)])
            .unwrap()
        {
            keys.push(key);
        }
    }
    (store, tree, keys)
}

/// A copy of a store none of whose pages was ever freed.
fn copy_store(source: &TestStore, page_size: usize) -> TestStore {
    let mut copy = TestStore::new(page_size);
    for page_no in 1..source.live_pages() as u32 {
        assert_eq!(copy.allocate_page().unwrap(), page_no);
        copy.page_mut(page_no)
            .unwrap()
            .copy_from_slice(&source.page(page_no).unwrap());
    }
    copy
}

/// Exercises every operation on a possibly damaged tree. Results are ignored: the point is
/// that none of them panics or loops.
fn exercise(store: &mut TestStore, tree: &IndexTree, keys: &[Vec<u8>], rng: &mut StdRng) {
    let _ = tree.check(store);
    let limit = keys.len() + 10;
    {
        let mut cursor = tree.cursor(&*store);
        let mut steps = 0;
        let mut valid = cursor.first().unwrap_or(false);
        while valid {
            steps += 1;
            assert!(steps <= limit, "forward scan does not terminate");
            valid = cursor.next().unwrap_or(false);
        }
        let mut steps = 0;
        let mut valid = cursor.last().unwrap_or(false);
        while valid {
            steps += 1;
            assert!(steps <= limit, "backward scan does not terminate");
            valid = cursor.prev().unwrap_or(false);
        }
        for key in keys.iter().step_by(7) {
            let _ = cursor.seek_ge(key);
            let _ = cursor.next();
            let _ = cursor.seek_le(key);
            let _ = cursor.prev();
            let _ = cursor.seek_gt(key);
            let _ = cursor.seek_lt(key);
            let _ = cursor.key();
            let _ = cursor.value();
        }
    }
    for key in keys.iter().step_by(5) {
        let _ = tree.get(&*store, key);
    }
    for i in 0..40u32 {
        let key = &keys[rng.gen_range(0..keys.len())];
        if i.is_multiple_of(2) {
            let _ = tree.delete(store, key);
        } else {
            let _ = tree.upsert(store, &[key.as_slice(), b"x"].concat(), &[3; 50]);
        }
    }
    let _ = tree.check(store);
    let _ = tree.destroy(store);
}

#[test]
fn damaged_pages_give_errors_not_panics() {
    let mut rng = StdRng::seed_from_u64(0xbad);
    let mut errors = 0;
    let originals: Vec<_> = (0..5).map(small_tree).collect();
    for trial in 0..150 {
        let (original, tree, keys) = &originals[trial % 5];
        let mut store = copy_store(original, 4096);
        let pages = store.live_pages() as u32 - 1;
        let victim = rng.gen_range(1..=pages);
        let usable = store.usable_size();
        let bytes = store.page_mut(victim).unwrap();
        match trial % 5 {
            0 => rng.fill(&mut bytes[..]),
            1 => {
                for _ in 0..rng.gen_range(1..8) {
                    let at = rng.gen_range(0..24);
                    bytes[at] = rng.r#gen();
                }
            }
            2 => {
                for _ in 0..rng.gen_range(1..20) {
                    let at = rng.gen_range(0..usable);
                    bytes[at] = rng.r#gen();
                }
            }
            3 => {
                // Child pointers and links aimed at arbitrary pages, including the root.
                let target = rng.gen_range(0..pages + 3);
                let at = [8, 12][rng.gen_range(0..2)];
                bytes[at..at + 4].copy_from_slice(&target.to_le_bytes());
            }
            _ => {
                let at = rng.gen_range(16..64);
                bytes[at] = rng.r#gen();
                bytes[at + 1] = rng.r#gen();
            }
        }
        if tree.check(&store).is_err() {
            errors += 1;
        }
        exercise(&mut store, tree, keys, &mut rng);
    }
    assert!(
        errors > 100,
        "check() should notice most damage ({errors}/150)"
    );
}

#[test]
fn separator_property() {
    use proptest::prelude::*;
    let config = ProptestConfig {
        cases: 500,
        ..ProptestConfig::default()
    };
    proptest!(config, |(a in proptest::collection::vec(0u8..4, 0..12),
                        b in proptest::collection::vec(0u8..4, 0..12))| {
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        match super::index_page::separator(&lo, &hi) {
            Some(sep) => {
                prop_assert!(lo < hi);
                prop_assert!(lo < sep && sep <= hi);
                prop_assert!(hi.starts_with(&sep));
                // Shortest: dropping a byte would no longer sort above `lo`.
                prop_assert!(sep[..sep.len() - 1] <= lo[..]);
            }
            None => prop_assert_eq!(lo, hi),
        }
    });
}

#[test]
fn inserts_near_a_hint_land_where_plain_inserts_would() {
    // Hints from a seek (the intended use), stale hints from earlier seeks (leaves that
    // have split since), the root, and arbitrary pages: every insert must end up exactly
    // as a plain insert would, and duplicates must still be refused.
    let mut rng = StdRng::seed_from_u64(41);
    let mut store = TestStore::new(4096);
    let tree = IndexTree::create(&mut store).unwrap();
    let mut model = Model::new();
    let mut stale = Vec::new();
    for round in 0..6000u64 {
        let key = if round % 7 == 0 && !model.is_empty() {
            let index = rng.gen_range(0..model.len());
            model.keys().nth(index).cloned().unwrap_or_default()
        } else {
            composite(3, rng.gen_range(0..50_000))
        };
        let seeked = {
            let mut cursor = tree.cursor(&store);
            cursor.seek_ge(&key).unwrap();
            cursor.leaf_page()
        };
        let hint = match round % 4 {
            0 | 1 => seeked,
            2 => stale.get(rng.gen_range(0..stale.len().max(1))).copied(),
            _ => Some(rng.gen_range(0..store.live_pages() as u32)),
        };
        if let Some(page) = seeked {
            stale.push(page);
        }
        let inserted = tree.insert_near(&mut store, hint, &key, b"v").unwrap();
        assert_eq!(inserted, !model.contains_key(&key), "round {round}");
        model.entry(key).or_insert_with(|| b"v".to_vec());
    }
    let stats = tree.check(&store).unwrap();
    assert_eq!(stats.entries, model.len());
    assert_eq!(scan_forward(&tree, &store), model_entries(&model));
}

/// `replace_near` agrees with `upsert` whatever the hint: the right leaf (same size, grown,
/// shrunk, grown past the page's room), a wrong leaf, a freed-and-reused page of the same
/// tree, or none; the tree stays valid and equal to a model.
#[test]
fn replace_near_matches_upsert_with_any_hint() {
    let mut store = TestStore::new(4096);
    let tree = IndexTree::create(&mut store).unwrap();
    let mut model = BTreeMap::new();
    let mut rng = StdRng::seed_from_u64(0x4e1a);
    for i in 0..3000u64 {
        let key = composite(2, i);
        let value = vec![(i % 251) as u8; (i % 40) as usize];
        tree.insert(&mut store, &key, &value).unwrap();
        model.insert(key, value);
    }
    let keys: Vec<Vec<u8>> = model.keys().cloned().collect();
    for round in 0..4000 {
        let key = &keys[rng.gen_range(0..keys.len())];
        let len = match round % 4 {
            0 => model[key].len(),
            1 => rng.gen_range(0..20),
            2 => rng.gen_range(20..120),
            _ => rng.gen_range(120..(max_entry_size(4096) - ENTRY_OVERHEAD - key.len())),
        };
        let value: Vec<u8> = (0..len).map(|_| rng.gen_range(0..=255u8)).collect();
        let mut cursor = tree.cursor(&store);
        cursor.seek_ge(key).unwrap();
        let own_leaf = cursor.leaf_page();
        cursor.seek_ge(&keys[rng.gen_range(0..keys.len())]).unwrap();
        let other_leaf = cursor.leaf_page();
        drop(cursor);
        let hint = match round % 3 {
            0 => own_leaf,
            1 => other_leaf,
            _ => None,
        };
        tree.replace_near(&mut store, hint, key, &value).unwrap();
        model.insert(key.clone(), value);
    }
    assert_eq!(tree.check(&store).unwrap().entries, model.len());
    assert_eq!(scan_forward(&tree, &store), model_entries(&model));
}
