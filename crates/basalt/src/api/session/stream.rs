//! [`RowStream`]: the rows of a running statement, pulled a batch at a time from its operator
//! tree and handed out one row at a time. Both result APIs read through it: the borrowed
//! [`Rows`](crate::Rows) of a `Statement`, and a session's portals, which stop after N rows
//! and resume later from the same place.
//!
//! The stream owns its execution context, and with it the snapshot (or the explicit
//! transaction's write transaction) the statement reads. It lets go of both as soon as the
//! last row has been read, so a finished stream never holds back a commit or a checkpoint.

use super::Outcome;
use crate::api::error::Result;
use crate::exec::batch::Batch;
use crate::exec::context::ExecContext;
use crate::exec::operators::Operator;

/// A running statement's remaining rows.
#[derive(Debug)]
pub(crate) struct RowStream {
    /// The operator tree and its context while rows remain; `None` once exhausted.
    running: Option<(Box<dyn Operator>, ExecContext)>,
    /// The batch being read.
    batch: Batch,
    /// Position of the next unread row in `batch`.
    next_row: usize,
}

impl RowStream {
    /// The rows of `outcome` (none for a statement that only changed rows).
    pub(crate) fn new(outcome: Outcome) -> RowStream {
        RowStream {
            running: match outcome {
                Outcome::Rows { operator, ctx } => Some((operator, ctx)),
                Outcome::Changed(_) => None,
            },
            batch: Batch::default(),
            next_row: 0,
        }
    }

    /// Advances to the next row: its position in [`RowStream::batch`], or `None` at the end.
    pub(crate) fn advance(&mut self) -> Result<Option<usize>> {
        while self.next_row >= self.batch.rows {
            let Some((operator, ctx)) = self.running.as_mut() else {
                return Ok(None);
            };
            // Checked here as well as in the operators that loop (scans, joins, sorts),
            // so that a statement whose rows are already computed (a sort's output, a
            // RETURNING list) still stops between batches when cancelled.
            ctx.check_interrupt()?;
            ctx.install_time_zone();
            match operator.next(ctx)? {
                Some(batch) => {
                    self.batch = batch;
                    self.next_row = 0;
                }
                None => {
                    // Release the snapshot (and any pinned pages) as soon as the rows end.
                    self.running = None;
                    self.batch = Batch::default();
                    return Ok(None);
                }
            }
        }
        let row = self.next_row;
        self.next_row += 1;
        Ok(Some(row))
    }

    /// The batch holding the row [`RowStream::advance`] last returned.
    pub(crate) fn batch(&self) -> &Batch {
        &self.batch
    }
}
