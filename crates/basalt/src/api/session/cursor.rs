//! SQL cursors: `DECLARE`, `FETCH`, `MOVE` and `CLOSE`, per session, with PostgreSQL 15's
//! rules and positions.
//!
//! A cursor's rows are computed in full when it is declared (on the transaction's snapshot,
//! with the statement's parameters) and kept in memory; FETCH and MOVE then move over them
//! in either direction. PostgreSQL streams a forward-only cursor and materializes only what
//! scrolling or WITH HOLD needs; Basalt materializes every cursor (docs/sql.md says so), which
//! keeps the semantics exact — a cursor sees its snapshot whatever the transaction does next
//! — at the cost of holding the rows.
//!
//! Positions are PostgreSQL's: 0 is before the first row, 1 to n on a row, n + 1 after the
//! last. The rules: DECLARE outside a transaction block is 25P01 unless WITH HOLD, a name in
//! use 42P03, an unknown cursor 34000, a backward move on a NO SCROLL cursor 55000; a cursor
//! without hold closes when its transaction ends, and one declared in a transaction that rolls
//! back goes with it, hold or not.

use std::collections::VecDeque;
use std::sync::Arc;

use super::explain::Buffered;
use super::{Outcome, Prepared, Session, SessionState};
use crate::api::error::{Error, Result};
use crate::exec::batch::Batch;
use crate::plan::OutputColumn;
use crate::plan::ddl::{CursorDirection, CursorStatement};
use crate::sqlstate;
use crate::types::{DataType, Value};

/// Rows per batch a FETCH hands out.
const FETCH_BATCH_ROWS: usize = 1024;

/// One open cursor.
#[derive(Debug)]
pub(super) struct Cursor {
    columns: Arc<[OutputColumn]>,
    types: Vec<DataType>,
    rows: Vec<Vec<Value>>,
    /// 0 before the first row, k on row k, `rows.len() + 1` after the last.
    position: usize,
    /// Declared `NO SCROLL`: only forward moves.
    no_scroll: bool,
    hold: bool,
    /// Declared in the explicit transaction still open (a rollback removes it).
    in_transaction: bool,
}

impl Cursor {
    fn len(&self) -> usize {
        self.rows.len()
    }

    /// The rows at the positions a move visits, in the order visited, and the position it
    /// ends at; 55000 for a move backwards (or a re-read of the current row, which PostgreSQL
    /// does by stepping back) on a NO SCROLL cursor.
    fn plan_move(&self, direction: CursorDirection) -> Result<(Vec<usize>, usize)> {
        let n = self.len();
        let after = n + 1;
        let position = self.position;
        let clamp = |target: i128| -> usize {
            if target < 1 {
                0
            } else if target > n as i128 {
                after
            } else {
                target as usize
            }
        };
        let backward = match direction {
            CursorDirection::Backward(_) | CursorDirection::Forward(Some(0)) => true,
            CursorDirection::Relative(k) => k <= 0,
            CursorDirection::Absolute(k) => k <= 0 || clamp(i128::from(k)) <= position,
            CursorDirection::Forward(_) => false,
        };
        if backward && self.no_scroll {
            return Err(Error::new(
                sqlstate::OBJECT_NOT_IN_PREREQUISITE_STATE,
                "cursor can only scan forward",
            ));
        }
        Ok(match direction {
            CursorDirection::Absolute(k) => {
                let target = if k < 0 {
                    clamp(n as i128 + 1 + i128::from(k))
                } else {
                    clamp(i128::from(k))
                };
                let on_row = (1..=n).contains(&target);
                (if on_row { vec![target] } else { vec![] }, target)
            }
            CursorDirection::Relative(k) | CursorDirection::Forward(Some(k @ 0)) => {
                let target = clamp(position as i128 + i128::from(k));
                let on_row = (1..=n).contains(&target);
                (if on_row { vec![target] } else { vec![] }, target)
            }
            CursorDirection::Forward(count) => {
                let first = position + 1;
                let last = match count {
                    None => n,
                    Some(count) => n.min(position.saturating_add(count.unsigned_abs() as usize)),
                };
                let visited: Vec<usize> = (first..=last).collect();
                let end = match count {
                    Some(count) if (count.unsigned_abs() as usize) <= visited.len() => last,
                    _ => after,
                };
                (visited, end.min(after))
            }
            CursorDirection::Backward(Some(0)) => {
                let on_row = (1..=n).contains(&position);
                (if on_row { vec![position] } else { vec![] }, position)
            }
            CursorDirection::Backward(count) => {
                let start = position.min(after).saturating_sub(1);
                let last = match count {
                    None => 1,
                    Some(count) => start
                        .saturating_sub(count.unsigned_abs() as usize)
                        .saturating_add(1)
                        .max(1),
                };
                let visited: Vec<usize> = (last..=start).rev().collect();
                let end = match count {
                    Some(count) if (count.unsigned_abs() as usize) <= visited.len() => last,
                    _ => 0,
                };
                (visited, end)
            }
        })
    }
}

impl Session {
    /// Runs a cursor statement; `prepared` is the statement (a FETCH's result columns are
    /// set to its cursor's).
    pub(super) fn run_cursor(
        &self,
        statement: &CursorStatement,
        prepared: &mut Prepared,
        params: Vec<Value>,
    ) -> Result<Outcome> {
        match statement {
            CursorStatement::Declare {
                name,
                query,
                scroll,
                hold,
            } => {
                self.declare(name, query, *scroll == Some(false), *hold, params)?;
                Ok(Outcome::Changed(0))
            }
            CursorStatement::Fetch {
                name,
                direction,
                fetch,
            } => {
                let mut state = self.state.borrow_mut();
                let cursor = state
                    .cursors
                    .get_mut(name)
                    .ok_or_else(|| unknown_cursor(name))?;
                let (visited, end) = cursor.plan_move(*direction)?;
                cursor.position = end;
                if !*fetch {
                    return Ok(Outcome::Changed(visited.len() as u64));
                }
                prepared.columns = cursor.columns.clone();
                let mut batches = VecDeque::new();
                for chunk in visited.chunks(FETCH_BATCH_ROWS) {
                    let mut batch = Batch::with_types(&cursor.types, chunk.len());
                    for &row in chunk {
                        if let Some(values) = cursor.rows.get(row - 1) {
                            batch.push_row(values);
                        }
                    }
                    batches.push_back(batch);
                }
                drop(state);
                let source = self.read_source()?;
                Ok(Outcome::Rows {
                    operator: Box::new(Buffered(batches)),
                    ctx: self.exec_context(source, Vec::new()),
                })
            }
            CursorStatement::Close(name) => {
                let mut state = self.state.borrow_mut();
                match name {
                    None => state.cursors.clear(),
                    Some(name) => {
                        state
                            .cursors
                            .remove(name)
                            .ok_or_else(|| unknown_cursor(name))?;
                    }
                }
                Ok(Outcome::Changed(0))
            }
        }
    }

    /// The result columns a FETCH from `name` would have now (for describing it before it
    /// runs); `None` when there is no such cursor.
    pub(super) fn cursor_columns(&self, name: &str) -> Option<Arc<[OutputColumn]>> {
        let state = self.state.borrow();
        state.cursors.get(name).map(|cursor| cursor.columns.clone())
    }

    fn declare(
        &self,
        name: &str,
        query: &sqlparser::ast::Query,
        no_scroll: bool,
        hold: bool,
        params: Vec<Value>,
    ) -> Result<()> {
        let in_transaction = self.in_transaction();
        if !in_transaction && !hold {
            return Err(Error::new(
                sqlstate::NO_ACTIVE_SQL_TRANSACTION,
                "DECLARE CURSOR can only be used in transaction blocks",
            ));
        }
        if self.state.borrow().cursors.contains_key(name) {
            return Err(Error::new(
                sqlstate::DUPLICATE_CURSOR,
                format!("cursor \"{name}\" already exists"),
            ));
        }
        let sql = query.to_string();
        let mut prepared = self.prepare_ast(
            &sql,
            sqlparser::ast::Statement::Query(Box::new(query.clone())),
        )?;
        let outcome = self.run(&mut prepared, params)?;
        let types: Vec<DataType> = prepared.columns.iter().map(|c| c.data_type).collect();
        let mut rows = Vec::new();
        if let Outcome::Rows { mut operator, ctx } = outcome {
            loop {
                ctx.check_interrupt()?;
                ctx.install_time_zone();
                let Some(batch) = operator.next(&ctx)? else {
                    break;
                };
                for row in 0..batch.rows {
                    rows.push(batch.columns.iter().map(|column| column.get(row)).collect());
                }
            }
        }
        self.state.borrow_mut().cursors.insert(
            name.to_string(),
            Cursor {
                columns: prepared.columns.clone(),
                types,
                rows,
                position: 0,
                no_scroll,
                hold,
                in_transaction,
            },
        );
        Ok(())
    }
}

/// What the end of the explicit transaction does to the cursors: a commit closes those
/// without hold and keeps the others (no longer tied to it); a rollback also drops every
/// cursor declared in the transaction.
pub(super) fn end_of_transaction(state: &mut SessionState, commit: bool) {
    state
        .cursors
        .retain(|_, cursor| cursor.hold && (commit || !cursor.in_transaction));
    for cursor in state.cursors.values_mut() {
        cursor.in_transaction = false;
    }
}

fn unknown_cursor(name: &str) -> Error {
    Error::new(
        sqlstate::INVALID_CURSOR_NAME,
        format!("cursor \"{name}\" does not exist"),
    )
}
