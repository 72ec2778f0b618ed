//! A deterministic transactional workload shared by the crash, fault and concurrency tests.
//!
//! The database holds one table tree (`row id → (k: Fixed8, payload: Var)`) and one index
//! tree whose entries are `k ‖ row id` for every row, so a half-applied transaction shows up
//! as a table/index mismatch. Transaction number `t` (1, 2, ...) performs operations drawn
//! from a generator seeded by `(seed, t)` and records `t` in meta slot [`LAST_TXN_SLOT`].
//! Given the state after `t - 1`, transaction `t` is fully determined, so [`Model`] can
//! replay any prefix of the history and a test can check that a recovered database equals
//! the model after exactly the number of transactions it claims to hold.

#![allow(
    dead_code,
    clippy::unwrap_used,
    reason = "test helpers: each test file uses some of them"
)]

use std::collections::{BTreeMap, BTreeSet};

use basalt::storage::btree::{CellValue, ColumnKind, IndexTree, TableTree, Value};
use basalt::storage::{PageRead, Result, StorageError};
use basalt::txn::{ReadTxn, Store, WriteTxn};

/// Meta slot holding the table tree's root page.
pub const TABLE_ROOT_SLOT: usize = 0;
/// Meta slot holding the index tree's root page.
pub const INDEX_ROOT_SLOT: usize = 1;
/// Meta slot holding the number of the last committed workload transaction.
pub const LAST_TXN_SLOT: usize = 2;

pub const KINDS: [ColumnKind; 2] = [ColumnKind::Fixed8, ColumnKind::Var];

/// A row: the indexed number `k` and a payload whose length sometimes forces overflow pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub k: u64,
    pub payload: Vec<u8>,
}

/// SplitMix64: tiny, deterministic, good enough to pick operations.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound.max(1)
    }
}

/// One operation of a workload transaction.
#[derive(Clone, Debug)]
pub enum Op {
    Put(i64, Row),
    Delete(i64),
}

/// The operations of transaction `t` under `seed`.
pub fn transaction_ops(seed: u64, t: u64, key_space: u64) -> Vec<Op> {
    let mut rng = Rng::new(seed.wrapping_mul(1_000_003) ^ t);
    let count = 1 + rng.below(24);
    (0..count)
        .map(|_| {
            let row_id = rng.below(key_space) as i64;
            if rng.below(4) == 0 {
                Op::Delete(row_id)
            } else {
                let length = match rng.below(20) {
                    0 => 3000 + rng.below(20000) as usize,
                    1..=4 => rng.below(1500) as usize,
                    _ => rng.below(60) as usize,
                };
                let fill = rng.next_u64() as u8;
                let payload = (0..length).map(|i| fill.wrapping_add(i as u8)).collect();
                Op::Put(
                    row_id,
                    Row {
                        k: rng.below(500),
                        payload,
                    },
                )
            }
        })
        .collect()
}

fn index_key(k: u64, row_id: i64) -> Vec<u8> {
    let mut key = k.to_be_bytes().to_vec();
    key.extend_from_slice(&(row_id as u64 ^ (1 << 63)).to_be_bytes());
    key
}

/// Creates the trees if the database is new.
pub fn initialise(store: &Store) -> Result<()> {
    let mut txn = store.begin_write()?;
    if txn.meta(TABLE_ROOT_SLOT) == 0 {
        let table = TableTree::create(&mut txn)?;
        let index = IndexTree::create(&mut txn)?;
        txn.set_meta(TABLE_ROOT_SLOT, u64::from(table.root()))?;
        txn.set_meta(INDEX_ROOT_SLOT, u64::from(index.root()))?;
    }
    txn.commit()
}

fn trees(meta: impl Fn(usize) -> u64) -> (TableTree, IndexTree) {
    (
        TableTree::open(meta(TABLE_ROOT_SLOT) as u32),
        IndexTree::open(meta(INDEX_ROOT_SLOT) as u32),
    )
}

fn read_row<S: PageRead>(table: &TableTree, store: &S, row_id: i64) -> Result<Option<Row>> {
    let mut cursor = table.cursor(store);
    if !cursor.seek_ge(row_id)? {
        return Ok(None);
    }
    Ok(Some(row_from_cursor(&cursor)?))
}

fn row_from_cursor<S: PageRead>(cursor: &basalt::storage::btree::TableCursor<&S>) -> Result<Row> {
    let k = match cursor.value(0)? {
        Value::Fixed(k) => k,
        other => return Err(StorageError::corrupt(format!("k is not fixed: {other:?}"))),
    };
    let payload = match cursor.value(1)? {
        Value::Bytes(bytes) => bytes.into_owned(),
        other => {
            return Err(StorageError::corrupt(format!(
                "payload is not bytes: {other:?}"
            )));
        }
    };
    Ok(Row { k, payload })
}

/// Applies operations inside a write transaction, keeping the index in step with the table.
pub fn apply_ops(txn: &mut WriteTxn, ops: &[Op]) -> Result<()> {
    let (table, index) = trees(|slot| txn.meta(slot));
    for op in ops {
        match op {
            Op::Put(row_id, row) => {
                let cells = [CellValue::Fixed(row.k), CellValue::Var(&row.payload)];
                match read_row(&table, txn, *row_id)? {
                    Some(old) => {
                        index.delete(txn, &index_key(old.k, *row_id))?;
                        table.update(txn, *row_id, &KINDS, &cells)?;
                    }
                    None => {
                        table.insert(txn, *row_id, &KINDS, &cells)?;
                    }
                }
                index.insert(txn, &index_key(row.k, *row_id), &[])?;
            }
            Op::Delete(row_id) => {
                if let Some(old) = read_row(&table, txn, *row_id)? {
                    index.delete(txn, &index_key(old.k, *row_id))?;
                    table.delete(txn, *row_id)?;
                }
            }
        }
    }
    Ok(())
}

/// Runs workload transaction `t` and commits it.
pub fn run_transaction(store: &Store, seed: u64, t: u64, key_space: u64) -> Result<()> {
    let mut txn = store.begin_write()?;
    apply_ops(&mut txn, &transaction_ops(seed, t, key_space))?;
    txn.set_meta(LAST_TXN_SLOT, t)?;
    txn.commit()
}

/// Runs a transaction of random operations and rolls it back (must leave no trace).
pub fn run_rolled_back(store: &Store, seed: u64, key_space: u64) -> Result<()> {
    let mut txn = store.begin_write()?;
    apply_ops(&mut txn, &transaction_ops(seed ^ 0xABCD, seed, key_space))?;
    txn.rollback();
    Ok(())
}

/// Everything a snapshot holds: the last transaction number and the table's rows, after
/// checking that the index matches the table exactly and both trees pass their checks.
pub fn read_state(reader: &ReadTxn) -> Result<(u64, BTreeMap<i64, Row>)> {
    if reader.meta(TABLE_ROOT_SLOT) == 0 {
        return Ok((reader.meta(LAST_TXN_SLOT), BTreeMap::new()));
    }
    let (table, index) = trees(|slot| reader.meta(slot));
    table.check(reader)?;
    index.check(reader)?;
    let mut rows = BTreeMap::new();
    let mut cursor = table.cursor(reader);
    let mut valid = cursor.first()?;
    while valid {
        rows.insert(
            cursor
                .row_id()
                .ok_or_else(|| StorageError::corrupt("cursor lost its row"))?,
            row_from_cursor(&cursor)?,
        );
        valid = cursor.next()?;
    }
    let mut index_entries = BTreeSet::new();
    let mut cursor = index.cursor(reader);
    let mut valid = cursor.first()?;
    while valid {
        index_entries.insert(cursor.key().to_vec());
        valid = cursor.next()?;
    }
    let expected: BTreeSet<Vec<u8>> = rows
        .iter()
        .map(|(row_id, row)| index_key(row.k, *row_id))
        .collect();
    if expected != index_entries {
        return Err(StorageError::corrupt("index does not match the table"));
    }
    Ok((reader.meta(LAST_TXN_SLOT), rows))
}

/// The expected contents after a number of transactions, computed by replaying the
/// workload. It only moves forward (a recovered database never goes back in time), so it
/// keeps one state instead of the whole history.
#[derive(Debug)]
pub struct Model {
    seed: u64,
    key_space: u64,
    applied: u64,
    rows: BTreeMap<i64, Row>,
}

impl Model {
    pub fn new(seed: u64, key_space: u64) -> Self {
        Model {
            seed,
            key_space,
            applied: 0,
            rows: BTreeMap::new(),
        }
    }

    /// The rows after transaction `t` (0 = empty database). `t` must not go backwards.
    pub fn after(&mut self, t: u64) -> &BTreeMap<i64, Row> {
        assert!(
            t >= self.applied,
            "the model cannot go back from {} to {t}",
            self.applied
        );
        while self.applied < t {
            self.applied += 1;
            for op in transaction_ops(self.seed, self.applied, self.key_space) {
                match op {
                    Op::Put(row_id, row) => {
                        self.rows.insert(row_id, row);
                    }
                    Op::Delete(row_id) => {
                        self.rows.remove(&row_id);
                    }
                }
            }
        }
        &self.rows
    }
}
