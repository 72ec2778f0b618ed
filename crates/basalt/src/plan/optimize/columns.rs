//! Unread columns: a scan column that nothing above the scan reads becomes
//! [`ScanColumn::Unread`], so the executor neither decodes nor copies it (it carries NULL in
//! that position instead).
//!
//! Plans keep their shapes: expressions above a scan refer to its columns by position, so
//! instead of removing a column (and renumbering every reference above), the column stays
//! in place, typed as before, and is never filled. `SELECT id FROM docs WHERE ...` then reads
//! no text of `body`, and a full-text search whose caller reads only the row id does not read
//! the table at all (`exec::operators::text_scan`).
//!
//! Guarantees: a column is marked unread only when no expression of any node above it can
//! read it — walking down from the root, each node passes to its inputs the columns its own
//! expressions read plus those of its output that are needed and come straight from an
//! input. Anything the walk cannot see through is needed whole: an expression holding a
//! subquery (its plan may read the row through outer references), the inputs of DISTINCT,
//! set operations, recursive unions, rank fusion, lateral subqueries and modifications (but
//! a DELETE, which reads only what its indexes need of a row when nothing else reads it), and
//! vector-search scans (which read their vector column themselves). The root's columns are
//! all needed. The pass runs last, so no other rule meets an unread column.

use crate::catalog::TableDef;
use crate::plan::{AccessPath, Expr, JoinKind, PlanKind, PlanNode, ScanColumn};

use super::util::columns_of;

/// Marks the unread scan columns of `plan`, whose every output column is needed.
pub fn mark_unread(plan: &mut PlanNode) {
    let width = plan.schema.len();
    prune(plan, vec![true; width]);
}

/// Which of a row's columns are needed, growable by expression references.
struct Needed(Vec<bool>);

impl Needed {
    fn none(width: usize) -> Needed {
        Needed(vec![false; width])
    }

    fn all(width: usize) -> Needed {
        Needed(vec![true; width])
    }

    /// Adds the columns `expr` reads (every one when it holds a subquery).
    fn add(&mut self, expr: &Expr) {
        if holds_subquery(expr) {
            self.0.iter_mut().for_each(|needed| *needed = true);
            return;
        }
        for index in columns_of(expr) {
            if let Some(needed) = self.0.get_mut(index) {
                *needed = true;
            }
        }
    }

    /// Adds the needed output columns that are this row's columns `0..`, shifted by `from`
    /// (an output column `from + i` is this row's column `i`).
    fn pass_through(&mut self, output: &[bool], from: usize) {
        for (index, needed) in self.0.iter_mut().enumerate() {
            if output.get(from + index).copied().unwrap_or(false) {
                *needed = true;
            }
        }
    }
}

fn holds_subquery(expr: &Expr) -> bool {
    let mut found = false;
    expr.visit(&mut |inner| {
        if matches!(
            inner,
            Expr::ScalarSubquery { .. } | Expr::Exists { .. } | Expr::InSubquery { .. }
        ) {
            found = true;
        }
    });
    found
}

/// What a join needs of its two sides (`left` and a right side `right_width` wide): the
/// needed output columns from the side they come from (the left's only, for semi and anti
/// joins, whose output is the left row), and the columns `condition` reads of the joined row.
fn split_joined(
    needed: &[bool],
    kind: JoinKind,
    condition: Option<&Expr>,
    (left, right_width): (&PlanNode, usize),
) -> (Needed, Needed) {
    let left_width = left.schema.len();
    let mut joined = Needed::none(left_width + right_width);
    joined.pass_through(needed, 0);
    if matches!(kind, JoinKind::Semi | JoinKind::Anti) {
        joined.0[left_width..].iter_mut().for_each(|n| *n = false);
    }
    if let Some(condition) = condition {
        joined.add(condition);
    }
    let right = Needed(joined.0.split_off(left_width));
    (joined, right)
}

/// Marks the table columns among `columns` that `read` says nothing reads (the row id's
/// alias is left as it is: it costs nothing to read).
fn mark(table: &TableDef, columns: &mut [ScanColumn], read: &[bool]) {
    for (column, read) in columns.iter_mut().zip(read) {
        if let ScanColumn::Column(position) = *column
            && !read
            && table.row_id_column != Some(position)
        {
            *column = ScanColumn::Unread(position);
        }
    }
}

fn prune(node: &mut PlanNode, needed: Vec<bool>) {
    match &mut node.kind {
        PlanKind::Scan {
            table,
            columns,
            access,
            ..
        } => {
            if matches!(access, AccessPath::VectorSearch(_)) {
                return;
            }
            let mut read = Needed::none(columns.len());
            read.pass_through(&needed, 0);
            if let AccessPath::TextSearch(search) = access
                && let Some(filter) = &search.filter
            {
                read.add(filter);
            }
            mark(table, columns, &read.0);
        }
        PlanKind::Filter { input, predicate } => {
            let mut child = Needed::none(input.schema.len());
            child.pass_through(&needed, 0);
            child.add(predicate);
            prune(input, child.0);
        }
        PlanKind::Sort { input, keys } | PlanKind::TopN { input, keys, .. } => {
            let mut child = Needed::none(input.schema.len());
            child.pass_through(&needed, 0);
            for key in keys.iter() {
                child.add(&key.expr);
            }
            prune(input, child.0);
        }
        PlanKind::Limit { input, .. } => {
            let mut child = Needed::none(input.schema.len());
            child.pass_through(&needed, 0);
            prune(input, child.0);
        }
        PlanKind::DistinctOn { input, keys } => {
            let mut child = Needed::none(input.schema.len());
            child.pass_through(&needed, 0);
            for key in keys.iter() {
                if let Some(needed) = child.0.get_mut(*key) {
                    *needed = true;
                }
            }
            prune(input, child.0);
        }
        // One input and expressions over its rows. Every expression is evaluated (a volatile
        // one must run even if its column is not read), so every column any of them reads is
        // needed; a window or a set-returning function also passes its input columns on.
        PlanKind::Project { .. }
        | PlanKind::Aggregate { .. }
        | PlanKind::Window { .. }
        | PlanKind::GenerateSeries { .. }
        | PlanKind::FunctionScan { .. } => {
            let passes_input = !matches!(
                node.kind,
                PlanKind::Project { .. } | PlanKind::Aggregate { .. }
            );
            let (exprs, mut inputs) = node.kind.parts_mut();
            let Some(input) = inputs.pop() else { return };
            let mut child = Needed::none(input.schema.len());
            if passes_input {
                child.pass_through(&needed, 0);
            }
            for expr in exprs {
                child.add(expr);
            }
            prune(input, child.0);
        }
        PlanKind::NestedLoopJoin {
            left,
            right,
            kind,
            condition,
        } => {
            let (left_needed, right_needed) = split_joined(
                &needed,
                *kind,
                condition.as_ref(),
                (left, right.schema.len()),
            );
            prune(left, left_needed.0);
            prune(right, right_needed.0);
        }
        PlanKind::HashJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
        } => {
            let (mut left_needed, mut right_needed) = split_joined(
                &needed,
                *kind,
                residual.as_ref(),
                (left, right.schema.len()),
            );
            for key in left_keys.iter() {
                left_needed.add(key);
            }
            for key in right_keys.iter() {
                right_needed.add(key);
            }
            prune(left, left_needed.0);
            prune(right, right_needed.0);
        }
        PlanKind::IndexJoin {
            left,
            table,
            columns,
            kind,
            left_keys,
            residual,
            ..
        } => {
            let (mut left_needed, right_needed) =
                split_joined(&needed, *kind, residual.as_ref(), (left, columns.len()));
            for key in left_keys.iter() {
                left_needed.add(key);
            }
            mark(table, columns, &right_needed.0);
            prune(left, left_needed.0);
        }
        // The recursive part is shared with its operator; its plan is left as it is.
        PlanKind::RecursiveUnion { base, .. } => {
            let width = base.schema.len();
            prune(base, Needed::all(width).0);
        }
        PlanKind::SingleRow | PlanKind::Values { .. } | PlanKind::WorkingTableScan { .. } => {}
        // A DELETE reads the row id, and of the old row only what its indexes need when
        // nothing else reads it (`PlanKind::Delete::old_columns`); its input is the row id
        // and then the table's columns in order.
        PlanKind::Delete {
            input,
            old_columns: Some(old_columns),
            ..
        } => {
            let mut reads = Needed::none(input.schema.len());
            if let Some(row_id) = reads.0.first_mut() {
                *row_id = true;
            }
            for &column in old_columns.iter() {
                if let Some(needed) = reads.0.get_mut(column + 1) {
                    *needed = true;
                }
            }
            prune(input, reads.0);
        }
        PlanKind::Distinct { .. }
        | PlanKind::SetOperation { .. }
        | PlanKind::RankFusion { .. }
        | PlanKind::LateralSubquery { .. }
        | PlanKind::Insert { .. }
        | PlanKind::Update { .. }
        | PlanKind::Delete { .. } => {
            for input in node.kind.children_mut() {
                let width = input.schema.len();
                prune(input, Needed::all(width).0);
            }
        }
    }
}
