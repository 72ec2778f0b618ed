//! The skip entries of a full-text index kept in step by every write path, in both layouts:
//! documents added one at a time (an append to a term's last block, a new last block when it
//! is full), added in batches (several new blocks at once), removed from the middle of long
//! lists (blocks emptied and merged), added back inside the lists (blocks split), and removed
//! from the tail (the last block emptied, so the block before it becomes the last). After
//! each step every term's cursor yields exactly the model's postings, lands where it should
//! when sent ahead, and its skip entries name exactly its blocks but the last with bounds
//! that hold; an index of layout 1 (written before skip entries) is read and written the
//! same way and never gains one.

#![allow(clippy::unwrap_used, clippy::panic, reason = "tests")]

use std::collections::BTreeMap;

use crate::storage::btree::IndexTree;
use crate::storage::btree::test_store::TestStore;
use crate::types::text_search::Token;

use super::format::{self, Stats, TAG_SKIP};
use super::read::FtsReader;
use super::write::{self, DocumentBatch};

/// Row `row`'s tokens in `round`: `common` one to four times in most documents (the longest
/// list, many blocks), a word of seven and one of forty, and `tail` in the last rows.
fn tokens(row: i64, round: u64) -> Vec<Token> {
    let mut state = (row as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ round;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut terms = Vec::new();
    if next() % 10 != 0 {
        for _ in 0..=(next() % 4) {
            terms.push("common".to_owned());
        }
    }
    terms.push(format!("s{}", next() % 7));
    terms.push(format!("m{}", next() % 40));
    for _ in 0..next() % 30 {
        terms.push(format!("filler{}", next() % 500));
    }
    if row >= 5_000 {
        terms.push("tail".to_owned());
    }
    terms
        .into_iter()
        .enumerate()
        .map(|(position, term)| Token {
            term,
            position: position as u32,
            start: 0,
            end: 0,
        })
        .collect()
}

/// The index and its model: each live row's tokens.
struct Fixture {
    store: TestStore,
    tree: IndexTree,
    model: BTreeMap<i64, Vec<Token>>,
    layout: u64,
}

impl Fixture {
    fn new(layout: u64) -> Fixture {
        let mut store = TestStore::new(4096);
        let tree = IndexTree::create(&mut store).unwrap();
        let stats = Stats {
            layout,
            ..Stats::empty()
        };
        tree.upsert(&mut store, &format::stats_key(), &stats.encode())
            .unwrap();
        Fixture {
            store,
            tree,
            model: BTreeMap::new(),
            layout,
        }
    }

    fn add(&mut self, rows: impl Iterator<Item = i64>, round: u64) {
        for row in rows {
            let document = tokens(row, round);
            write::add_document(self.tree, &mut self.store, row, &document).unwrap();
            self.model.insert(row, document);
        }
    }

    fn add_batch(&mut self, rows: impl Iterator<Item = i64>, round: u64) {
        let mut batch = DocumentBatch::default();
        for row in rows {
            let document = tokens(row, round);
            batch
                .add(row, |sink| {
                    for token in &document {
                        sink(&token.term, token.position);
                    }
                    true
                })
                .unwrap();
            self.model.insert(row, document);
        }
        write::add_batch(self.tree, &mut self.store, batch).unwrap();
    }

    fn remove(&mut self, rows: impl Iterator<Item = i64>) {
        for row in rows {
            let document = self.model.remove(&row).unwrap();
            assert!(write::remove_document(self.tree, &mut self.store, row, &document).unwrap());
        }
    }

    /// Every term's postings, bounds and skip entries against the model.
    fn check(&self, step: &str) {
        let mut lists: BTreeMap<&str, Vec<(i64, u32)>> = BTreeMap::new();
        for (&row, document) in &self.model {
            let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
            for token in document {
                *counts.entry(&token.term).or_default() += 1;
            }
            for (term, tf) in counts {
                lists.entry(term).or_default().push((row, tf));
            }
        }
        let reader = FtsReader::new(self.tree, &self.store);
        assert_eq!(reader.stats().unwrap().0, self.model.len() as u64, "{step}");
        let mut longest = 0;
        for (term, expected) in &lists {
            assert_eq!(reader.skips_problem(term).unwrap(), None, "{step}: {term}");
            let mut cursor = reader.term_postings(term).unwrap();
            cursor.start().unwrap();
            let mut got = Vec::new();
            while let Some(posting) = cursor.current() {
                got.push((posting.row, posting.tf));
                cursor.next().unwrap();
            }
            assert_eq!(&got, expected, "{step}: {term}");
            // Sent ahead, the cursor lands on the first posting at or after the row, through
            // skip entries and blocks alike.
            let mut cursor = reader.term_postings(term).unwrap();
            cursor.start().unwrap();
            for target in (0..6_400).step_by(97) {
                cursor.advance_to(target).unwrap();
                let want = expected.iter().find(|(row, _)| *row >= target).map(|p| p.0);
                assert_eq!(cursor.current().map(|p| p.row), want, "{step}: {term}");
            }
            longest = longest.max(expected.len());
        }
        assert!(longest > 2_000, "a list long enough for many blocks");
        let mut cursor = self.tree.cursor(&self.store);
        cursor.seek_ge(&[TAG_SKIP]).unwrap();
        let skips = cursor.is_valid() && cursor.key().first() == Some(&TAG_SKIP);
        assert_eq!(skips, self.layout == format::LAYOUT_SKIPS, "{step}");
        let stats = self.tree.get(&self.store, &format::stats_key()).unwrap();
        assert_eq!(Stats::decode(&stats.unwrap()).unwrap().layout, self.layout);
    }
}

fn every_write_path(layout: u64) {
    let mut index = Fixture::new(layout);
    index.add(0..3_000, 0);
    index.check("added one at a time");
    index.add_batch(3_000..4_500, 0);
    index.add_batch(4_500..6_000, 0);
    index.check("added in batches");
    index.remove(1_000..1_600);
    index.check("removed from the middle");
    index.add(1_000..1_600, 1);
    index.check("added back inside the lists");
    index.remove((2_000..2_400).step_by(3));
    index.add_batch((2_000..2_400).step_by(3), 2);
    index.check("updated inside the lists in a batch");
    index.remove(5_400..6_000);
    index.check("removed from the tail");
    index.add(6_000..6_300, 0);
    index.check("added past the tail again");
}

#[test]
fn skip_entries_follow_every_write_path() {
    every_write_path(format::LAYOUT_SKIPS);
}

#[test]
fn an_index_without_skip_entries_is_read_and_written_as_before() {
    every_write_path(1);
}
