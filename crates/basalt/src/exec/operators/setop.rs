//! DISTINCT and the set operations UNION, INTERSECT and EXCEPT (with and without ALL), on a
//! hash table of row keys that spills by partitioning when it outgrows the memory budget.
//!
//! All of them are one algorithm: a table from each row key (`exec::row_key`, NULLs equal)
//! to how many right-input rows had it and how many left rows were emitted with it. The
//! right input (INTERSECT/EXCEPT only) is counted first; then left rows stream through and a
//! rule decides, per row, whether to emit it. DISTINCT is EXCEPT with an empty right input
//! (emit each key's first row); UNION is DISTINCT over the left rows then the right rows;
//! UNION ALL just concatenates. Output streams batch by batch, in input order while nothing
//! spills.
//!
//! Spilling ("freezing" the table): once the table's keys and entries outgrow
//! `ExecContext::operator_memory` (checked per batch), it stops taking new keys. Rows whose
//! key it already holds are still handled in memory; every other row goes to one of
//! `spill::PARTITION_COUNT` spill files by a hash of its key (right rows and left rows to
//! separate files with the same hash). A key therefore lives entirely in the table or
//! entirely in one partition pair, so each pair can be processed afterwards, with a fresh
//! table and the same rule, as if it were the whole input (recursively, with a new hash
//! seed, if it is still too big). Within a partition rows keep their input order, so "the
//! first row of each key" means the same as without spilling; only the order between keys
//! of different partitions changes, which SQL leaves unspecified.

use crate::exec::batch::{Batch, ColumnVector};
use crate::exec::context::ExecContext;
use crate::exec::error::ExecResult;
use crate::exec::row_key::RowKeyMap;
use crate::exec::row_key::equality_key;
use crate::exec::spill::{BatchReader, MAX_PARTITION_DEPTH, Partitions, SpilledRows};
use crate::plan::SetOperator;
use crate::types::DataType;

use super::Operator;

/// Memory a table entry costs besides its key bytes: the key's vector header, the counts,
/// the hash table slot and allocation overhead.
const ENTRY_OVERHEAD: usize = 64;

/// Which left rows to emit, given their key's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// EXCEPT ALL: as many copies as the left input has more than the right.
    /// EXCEPT (and DISTINCT, UNION): each key's first left row, if the right input lacks it.
    Except { all: bool },
    /// INTERSECT ALL: as many copies as both inputs have.
    /// INTERSECT: each key's first left row, if the right input has it.
    Intersect { all: bool },
}

impl Rule {
    /// Whether to emit a left row whose key has `counts`; updates the counts.
    fn admit(self, counts: &mut KeyCounts) -> bool {
        let emit = match self {
            Rule::Except { all: true } => counts.emitted + 1 > counts.right,
            Rule::Except { all: false } => counts.emitted == 0 && counts.right == 0,
            Rule::Intersect { all: true } => counts.emitted < counts.right,
            Rule::Intersect { all: false } => counts.emitted == 0 && counts.right > 0,
        };
        // EXCEPT ALL counts every left row (the first `right` of them cancel out).
        if emit || self == (Rule::Except { all: true }) {
            counts.emitted += 1;
        }
        emit
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct KeyCounts {
    right: u64,
    emitted: u64,
}

/// The key table of one input or one partition pair.
#[derive(Debug)]
struct KeyTable {
    rule: Rule,
    types: Vec<DataType>,
    table: RowKeyMap<KeyCounts>,
    bytes: usize,
    budget: usize,
    depth: u32,
    /// Set once the table is frozen: where rows of keys it does not hold go.
    overflow: Option<Overflow>,
    /// Whether it froze while counting right rows: then a key missing from the table may
    /// have right rows in a partition.
    froze_during_right: bool,
    key: Vec<u8>,
}

#[derive(Debug)]
struct Overflow {
    left: Partitions,
    right: Partitions,
}

/// A partition pair still to process.
#[derive(Debug)]
struct Part {
    left: SpilledRows,
    right: SpilledRows,
    depth: u32,
}

impl KeyTable {
    fn new(rule: Rule, types: &[DataType], budget: usize, depth: u32) -> Self {
        KeyTable {
            rule,
            types: types.to_vec(),
            table: RowKeyMap::default(),
            bytes: 0,
            budget,
            depth,
            overflow: None,
            froze_during_right: false,
            key: Vec::new(),
        }
    }

    /// Freezes the table once it outgrows the budget (called after each batch).
    fn check_budget(&mut self) {
        if self.overflow.is_none() && self.bytes > self.budget && self.depth < MAX_PARTITION_DEPTH {
            let seed = u64::from(self.depth);
            self.overflow = Some(Overflow {
                left: Partitions::new(&self.types, seed, self.budget),
                right: Partitions::new(&self.types, seed, self.budget),
            });
        }
    }

    /// Counts the rows of a batch of the right input.
    fn add_right(&mut self, batch: &Batch, ctx: &ExecContext) -> ExecResult<()> {
        let columns: Vec<&ColumnVector> = batch.columns.iter().collect();
        for row in 0..batch.rows {
            equality_key(&columns, row, &mut self.key);
            if let Some(counts) = self.table.get_mut(&self.key) {
                counts.right += 1;
            } else if let Some(overflow) = &mut self.overflow {
                let partition = overflow.right.partition_of(&self.key);
                overflow.right.write(partition, batch, row, ctx)?;
            } else {
                self.bytes += self.key.len() + ENTRY_OVERHEAD;
                self.table.insert(
                    self.key.clone(),
                    KeyCounts {
                        right: 1,
                        emitted: 0,
                    },
                );
            }
        }
        self.check_budget();
        self.froze_during_right = self.overflow.is_some();
        Ok(())
    }

    /// The rows of a batch of the left input to emit now (rows spilled to a partition are
    /// decided when it is processed).
    fn filter_left(&mut self, batch: Batch, ctx: &ExecContext) -> ExecResult<Batch> {
        let columns: Vec<&ColumnVector> = batch.columns.iter().collect();
        let mut keep = Vec::with_capacity(batch.rows);
        for row in 0..batch.rows {
            equality_key(&columns, row, &mut self.key);
            if let Some(counts) = self.table.get_mut(&self.key) {
                if self.rule.admit(counts) {
                    keep.push(row as u32);
                }
                continue;
            }
            // A key the table lacks. Unless the table froze while counting right rows, the
            // right input has no such row, and only EXCEPT's duplicate removal needs to
            // remember it.
            match (&mut self.overflow, self.rule) {
                (Some(overflow), rule)
                    if self.froze_during_right || rule == (Rule::Except { all: false }) =>
                {
                    let partition = overflow.left.partition_of(&self.key);
                    overflow.left.write(partition, &batch, row, ctx)?;
                }
                (_, Rule::Intersect { .. }) => {}
                (_, Rule::Except { all: true }) => keep.push(row as u32),
                (_, Rule::Except { all: false }) => {
                    self.bytes += self.key.len() + ENTRY_OVERHEAD;
                    self.table.insert(
                        self.key.clone(),
                        KeyCounts {
                            right: 0,
                            emitted: 1,
                        },
                    );
                    keep.push(row as u32);
                }
            }
        }
        self.check_budget();
        Ok(if keep.len() == batch.rows {
            batch
        } else {
            batch.gather(&keep)
        })
    }

    /// The partition pairs left to process (those with left rows: only left rows are ever
    /// emitted).
    fn finish(self, ctx: &ExecContext) -> ExecResult<Vec<Part>> {
        let Some(overflow) = self.overflow else {
            return Ok(Vec::new());
        };
        let lefts = overflow.left.finish(ctx)?;
        let rights = overflow.right.finish(ctx)?;
        Ok(lefts
            .into_iter()
            .zip(rights)
            .filter(|(left, _)| left.rows() > 0)
            .map(|(left, right)| Part {
                left,
                right,
                depth: self.depth + 1,
            })
            .collect())
    }
}

/// DISTINCT, UNION, INTERSECT or EXCEPT over inputs with the same column types.
#[derive(Debug)]
pub struct SetOperation {
    /// Inputs whose rows are filtered (and emitted), in order.
    inputs: Vec<Box<dyn Operator>>,
    /// The input that is only counted (INTERSECT and EXCEPT).
    right: Option<Box<dyn Operator>>,
    /// The table over the inputs; `None` for UNION ALL, and once they are exhausted.
    table: Option<KeyTable>,
    /// Spilled partition pairs still to process, and the one being processed.
    parts: Vec<Part>,
    current: Option<(KeyTable, BatchReader)>,
    /// The rule of the tables of spilled partitions (UNION ALL never spills).
    rule: Rule,
    types: Vec<DataType>,
    budget: usize,
}

impl SetOperation {
    /// DISTINCT: the first row of each group of equal rows.
    pub fn distinct(input: Box<dyn Operator>, types: Vec<DataType>, budget: usize) -> Self {
        Self::with_rule(
            vec![input],
            None,
            Some(Rule::Except { all: false }),
            types,
            budget,
        )
    }

    pub fn new(
        left: Box<dyn Operator>,
        right: Box<dyn Operator>,
        operator: SetOperator,
        all: bool,
        types: Vec<DataType>,
        budget: usize,
    ) -> Self {
        match operator {
            SetOperator::Union => Self::with_rule(
                vec![left, right],
                None,
                (!all).then_some(Rule::Except { all: false }),
                types,
                budget,
            ),
            SetOperator::Intersect => Self::with_rule(
                vec![left],
                Some(right),
                Some(Rule::Intersect { all }),
                types,
                budget,
            ),
            SetOperator::Except => Self::with_rule(
                vec![left],
                Some(right),
                Some(Rule::Except { all }),
                types,
                budget,
            ),
        }
    }

    fn with_rule(
        mut inputs: Vec<Box<dyn Operator>>,
        right: Option<Box<dyn Operator>>,
        rule: Option<Rule>,
        types: Vec<DataType>,
        budget: usize,
    ) -> Self {
        // Inputs are taken from the back.
        inputs.reverse();
        SetOperation {
            inputs,
            right,
            table: rule.map(|rule| KeyTable::new(rule, &types, budget, 0)),
            parts: Vec::new(),
            current: None,
            rule: rule.unwrap_or(Rule::Except { all: true }),
            types,
            budget,
        }
    }

    /// The next batch of spilled partitions, processed one pair at a time.
    fn next_from_parts(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        loop {
            if let Some((table, left)) = &mut self.current {
                if let Some(batch) = left.next_batch(ctx)? {
                    return table.filter_left(batch, ctx).map(Some);
                }
                if let Some((table, _)) = self.current.take() {
                    self.parts.extend(table.finish(ctx)?);
                }
                continue;
            }
            let Some(part) = self.parts.pop() else {
                return Ok(None);
            };
            let mut table = KeyTable::new(self.rule, &self.types, self.budget, part.depth);
            let mut right = part.right.into_reader()?;
            while let Some(batch) = right.next_batch(ctx)? {
                table.add_right(&batch, ctx)?;
            }
            self.current = Some((table, part.left.into_reader()?));
        }
    }
}

impl Operator for SetOperation {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        if let Some(mut right) = self.right.take()
            && let Some(table) = &mut self.table
        {
            while let Some(batch) = right.next(ctx)? {
                table.add_right(&batch, ctx)?;
            }
        }
        while let Some(input) = self.inputs.last_mut() {
            match input.next(ctx)? {
                Some(batch) => {
                    return match &mut self.table {
                        Some(table) => table.filter_left(batch, ctx).map(Some),
                        None => Ok(Some(batch)),
                    };
                }
                None => {
                    self.inputs.pop();
                }
            }
        }
        if let Some(table) = self.table.take() {
            self.parts = table.finish(ctx)?;
        }
        self.next_from_parts(ctx)
    }
}
