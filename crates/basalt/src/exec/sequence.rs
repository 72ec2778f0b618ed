//! Sequences at run time: creating and dropping them, and `nextval` / `currval` / `setval`.
//!
//! A sequence's counter is one row (row id 1) of its own table tree: `last_value` (8 bytes)
//! and `is_called` (1 byte), as PostgreSQL keeps them. `nextval` reads the row through the
//! write transaction, steps it by the increment (wrapping with CYCLE, else 2200H past a
//! bound) and writes it back, so it costs one small page write and never touches the
//! catalog or the schema version. Because that page belongs to the transaction, a rollback
//! undoes the step — PostgreSQL never does; `docs/sql.md` documents the difference.
//!
//! `currval` is per connection: the connection owns a map from sequence name to the last
//! value its `nextval` returned, shared with each execution through
//! [`ExecContext::sequence_values`]; before the first `nextval`, `currval` fails with 55000.

use crate::catalog::{self, Catalog, SchemaObject, SequenceDef};
use crate::sqlstate;
use crate::storage::btree::{CellValue, ColumnKind, TableTree, Value as StoredValue};
use crate::txn::WriteTxn;

use super::context::ExecContext;
use super::error::{ExecError, ExecResult};
use super::source::PageSource;

/// The counter row's cells: `last_value`, `is_called`.
pub(crate) const STATE_KINDS: [ColumnKind; 2] = [ColumnKind::Fixed8, ColumnKind::Fixed1];
/// The counter row's row id.
const STATE_ROW: i64 = 1;

/// Where a sequence stands: the last value handed out (or to hand out first, when not
/// `called`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct State {
    last_value: i64,
    called: bool,
}

fn write_state(txn: &mut WriteTxn, root: u32, state: State, exists: bool) -> ExecResult<()> {
    let tree = TableTree::open(root);
    let row = [
        CellValue::Fixed(state.last_value as u64),
        CellValue::Fixed(u64::from(state.called)),
    ];
    if exists {
        tree.update(txn, STATE_ROW, &STATE_KINDS, &row)?;
    } else {
        tree.insert(txn, STATE_ROW, &STATE_KINDS, &row)?;
    }
    Ok(())
}

/// Puts the sequence back at its start, as if new: the next `nextval` returns `start`
/// (`TRUNCATE ... RESTART IDENTITY`, `ALTER SEQUENCE ... RESTART`).
pub fn restart(sequence: &SequenceDef, txn: &mut WriteTxn) -> ExecResult<()> {
    let state = State {
        last_value: sequence.start,
        called: false,
    };
    write_state(txn, sequence.root, state, true)
}

/// Where `sequence` stands in the snapshot `source` reads: the last value handed out and
/// whether it was (`false`: `last_value` is the next one), as `setval`'s arguments take it.
/// For dumps (`basalt dump --postgres` writes a `setval` per sequence).
pub fn position(sequence: &SequenceDef, source: &PageSource) -> ExecResult<(i64, bool)> {
    let state = read_state_in(sequence, source)?;
    Ok((state.last_value, state.called))
}

fn read_state(sequence: &SequenceDef, txn: &WriteTxn) -> ExecResult<State> {
    read_state_in(sequence, txn)
}

fn read_state_in<S: crate::storage::PageRead>(sequence: &SequenceDef, txn: S) -> ExecResult<State> {
    let tree = TableTree::open(sequence.root);
    let mut cursor = tree.cursor(txn);
    if !cursor.first()? {
        return Err(ExecError::new(
            sqlstate::DATA_CORRUPTED,
            format!("sequence \"{}\" has lost its counter", sequence.name),
        ));
    }
    match (cursor.value(0)?, cursor.value(1)?) {
        (StoredValue::Fixed(last_value), StoredValue::Fixed(called)) => Ok(State {
            last_value: last_value as i64,
            called: called != 0,
        }),
        _ => Err(ExecError::new(
            sqlstate::DATA_CORRUPTED,
            format!("sequence \"{}\" has a damaged counter", sequence.name),
        )),
    }
}

/// Whether `name` is taken by a relation or a sequence (they share PostgreSQL's namespace).
fn relation_exists(catalog: &Catalog, name: &str) -> bool {
    let lower = name.to_lowercase();
    catalog.tables.contains_key(&lower)
        || catalog.views.contains_key(&lower)
        || catalog.indexes.contains_key(&lower)
        || catalog.sequences.contains_key(&lower)
}

/// `CREATE SEQUENCE`: allocates the counter's tree, positioned before `start`. Returns
/// whether it was created (`false` for IF NOT EXISTS on an existing name).
pub fn create_sequence(
    mut sequence: SequenceDef,
    if_not_exists: bool,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<bool> {
    if relation_exists(catalog, &sequence.name) {
        if if_not_exists {
            return Ok(false);
        }
        return Err(ExecError::new(
            sqlstate::DUPLICATE_TABLE,
            format!("relation \"{}\" already exists", sequence.name),
        ));
    }
    let tree = TableTree::create(txn)?;
    sequence.root = tree.root();
    let state = State {
        last_value: sequence.start,
        called: false,
    };
    write_state(txn, sequence.root, state, false)?;
    catalog::put_object(txn, &SchemaObject::Sequence(sequence))?;
    Ok(true)
}

/// `ALTER SEQUENCE`: stores `sequence`, the bound new definition of sequence `name`, and
/// for RESTART positions the counter so that the next `nextval` returns `restart`. The
/// sequence must still be the one bound (42P01 if it has gone since). Without RESTART the
/// current value must lie within the new bounds (22023, PostgreSQL's check and message).
pub fn alter_sequence(
    name: &str,
    sequence: SequenceDef,
    restart: Option<i64>,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<()> {
    match catalog.sequences.get(&name.to_lowercase()) {
        Some(current) if current.root == sequence.root => {}
        _ => {
            return Err(ExecError::new(
                sqlstate::UNDEFINED_TABLE,
                format!("relation \"{name}\" does not exist"),
            ));
        }
    }
    match restart {
        Some(value) => {
            let state = State {
                last_value: value,
                called: false,
            };
            write_state(txn, sequence.root, state, true)?;
        }
        None => {
            let current = read_state(&sequence, txn)?.last_value;
            let bound = if current < sequence.min_value {
                Some(("less than MINVALUE", sequence.min_value))
            } else if current > sequence.max_value {
                Some(("greater than MAXVALUE", sequence.max_value))
            } else {
                None
            };
            if let Some((relation, bound)) = bound {
                return Err(ExecError::new(
                    sqlstate::INVALID_PARAMETER_VALUE,
                    format!("RESTART value ({current}) cannot be {relation} ({bound})"),
                ));
            }
        }
    }
    catalog::put_object(txn, &SchemaObject::Sequence(sequence))?;
    Ok(())
}

/// Frees a sequence's tree and removes it from the catalog.
pub fn drop_sequence(sequence: &SequenceDef, txn: &mut WriteTxn) -> ExecResult<()> {
    TableTree::open(sequence.root).destroy(txn)?;
    catalog::remove_object(txn, b'q', &sequence.name)?;
    Ok(())
}

/// `DROP SEQUENCE`: names were checked by the binder; ones gone since are skipped only with
/// IF EXISTS.
pub fn drop_sequences(
    names: &[String],
    if_exists: bool,
    catalog: &Catalog,
    txn: &mut WriteTxn,
) -> ExecResult<()> {
    for name in names {
        match catalog.sequences.get(&name.to_lowercase()) {
            Some(sequence) => drop_sequence(sequence, txn)?,
            None if if_exists => {}
            None => {
                return Err(ExecError::new(
                    sqlstate::UNDEFINED_TABLE,
                    format!("sequence \"{name}\" does not exist"),
                ));
            }
        }
    }
    Ok(())
}

/// The value after `state`, or 2200H when the sequence is exhausted and does not cycle.
fn step(sequence: &SequenceDef, state: State) -> ExecResult<i64> {
    if !state.called {
        return Ok(state.last_value);
    }
    let next = state.last_value.checked_add(sequence.increment);
    let ascending = sequence.increment > 0;
    match next {
        Some(value) if (sequence.min_value..=sequence.max_value).contains(&value) => Ok(value),
        _ if sequence.cycle => Ok(if ascending {
            sequence.min_value
        } else {
            sequence.max_value
        }),
        _ => Err(ExecError::new(
            sqlstate::SEQUENCE_GENERATOR_LIMIT_EXCEEDED,
            format!(
                "nextval: reached {} value of sequence \"{}\" ({})",
                if ascending { "maximum" } else { "minimum" },
                sequence.name,
                if ascending {
                    sequence.max_value
                } else {
                    sequence.min_value
                }
            ),
        )),
    }
}

fn write_transaction(
    ctx: &ExecContext,
    function: &str,
) -> ExecResult<std::sync::Arc<parking_lot::Mutex<WriteTxn>>> {
    match &ctx.source {
        PageSource::Write(write) => Ok(write.clone()),
        PageSource::Read(_) => Err(ExecError::new(
            sqlstate::READ_ONLY_SQL_TRANSACTION,
            format!("cannot execute {function}() in a read-only transaction"),
        )),
    }
}

/// `nextval`: advances the sequence and remembers the value as this session's `currval`.
pub fn next_value(sequence: &SequenceDef, ctx: &ExecContext) -> ExecResult<i64> {
    let write = write_transaction(ctx, "nextval")?;
    let mut txn = write.lock();
    let state = read_state(sequence, &txn)?;
    let value = step(sequence, state)?;
    let next = State {
        last_value: value,
        called: true,
    };
    write_state(&mut txn, sequence.root, next, true)?;
    remember_value(sequence, value, ctx);
    Ok(value)
}

/// Records `value` as the session's `currval` of `sequence` (when the context belongs to a
/// connection).
fn remember_value(sequence: &SequenceDef, value: i64, ctx: &ExecContext) {
    if let Some(values) = &ctx.sequence_values {
        values.lock().insert(sequence.name.to_lowercase(), value);
    }
}

/// `currval`: this session's last `nextval` of the sequence (55000 before the first).
pub fn current_value(sequence: &SequenceDef, ctx: &ExecContext) -> ExecResult<i64> {
    ctx.sequence_values
        .as_ref()
        .and_then(|values| values.lock().get(&sequence.name.to_lowercase()).copied())
        .ok_or_else(|| {
            ExecError::new(
                sqlstate::OBJECT_NOT_IN_PREREQUISITE_STATE,
                format!(
                    "currval of sequence \"{}\" is not yet defined in this session",
                    sequence.name
                ),
            )
        })
}

/// `setval(value, is_called)`: the next `nextval` returns `value` when not `called`, else
/// the value after it. 22003 when `value` is outside the sequence's bounds.
pub fn set_value(
    sequence: &SequenceDef,
    value: i64,
    called: bool,
    ctx: &ExecContext,
) -> ExecResult<i64> {
    if !(sequence.min_value..=sequence.max_value).contains(&value) {
        return Err(ExecError::new(
            sqlstate::NUMERIC_VALUE_OUT_OF_RANGE,
            format!(
                "setval: value {value} is out of bounds for sequence \"{}\" ({}..{})",
                sequence.name, sequence.min_value, sequence.max_value
            ),
        ));
    }
    let write = write_transaction(ctx, "setval")?;
    let mut txn = write.lock();
    let state = State {
        last_value: value,
        called,
    };
    write_state(&mut txn, sequence.root, state, true)?;
    if called {
        // PostgreSQL's setval also sets currval when the value counts as handed out.
        remember_value(sequence, value, ctx);
    }
    Ok(value)
}

/// Whether running `plan` advances or sets a sequence (in any expression, subqueries
/// included), so that a query must run in the write transaction.
pub fn plan_writes_sequences(plan: &crate::plan::PlanNode) -> bool {
    use crate::plan::{Expr, SequenceOperation};
    let mut writes = false;
    plan.visit_exprs(&mut |expr| {
        expr.visit(&mut |inner| match inner {
            Expr::Sequence { operation, .. } if *operation != SequenceOperation::Current => {
                writes = true
            }
            Expr::ScalarSubquery { plan, .. }
            | Expr::Exists { plan, .. }
            | Expr::InSubquery { plan, .. } => writes |= plan_writes_sequences(plan),
            _ => {}
        })
    });
    writes
}

/// SQLite's AUTOINCREMENT: the largest row id `sequence` (the table's high-water mark) has
/// recorded; 0 before the first row.
pub fn high_water(sequence: &SequenceDef, txn: &WriteTxn) -> ExecResult<i64> {
    Ok(read_state(sequence, txn)?.last_value)
}

/// Raises the high-water mark to `row_id` if it is larger (never lowers it, so a deleted
/// largest row id is not handed out again).
pub fn raise_high_water(sequence: &SequenceDef, row_id: i64, txn: &mut WriteTxn) -> ExecResult<()> {
    let state = read_state(sequence, txn)?;
    if row_id > state.last_value {
        let raised = State {
            last_value: row_id,
            called: true,
        };
        write_state(txn, sequence.root, raised, true)?;
    }
    Ok(())
}
