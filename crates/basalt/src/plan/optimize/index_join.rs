//! Index joins: a hash join whose right side is a table with a row id or an index on the
//! join key becomes a join that seeks that table once per left row — when the estimates say
//! the seeks cost less than reading and hashing the whole table.
//!
//! The shape it rewrites is `HashJoin(left, [Filter] over a scan of table T)` with inner,
//! left, semi or anti kind. The scan may be a full scan or an access path the `access` rule
//! chose; either way the filter above it still holds every conjunct, so the rewrite drops the
//! scan, seeks T by the key, and evaluates the filter (renumbered to the joined row) as part
//! of the join's residual, together with any key pairs the seek does not use. A pair fails
//! the residual exactly when it would have failed the filter or the hash join, so every join
//! kind keeps its meaning. Keys must be bare columns of T of the left key's type (the hash
//! join rule guarantees equal types), since the seek encodes left values with T's key
//! encoding.
//!
//! Cost model, in units of "read and hash one row": a hash join reads all of T once
//! (`rows(T)`) and probes once per left row; an index join pays a seek (`SEEK_COST`) plus the
//! matching rows per left row. Without statistics both sides of an ordinary join are large
//! and the hash join stays; a point lookup joined to its parent row becomes one seek.

use std::sync::Arc;

use crate::catalog::{IndexDef, IndexMethod, TableDef};
use crate::plan::{BinaryOp, Expr, JoinKind, PlanKind, PlanNode, ScanColumn};
use crate::types::DataType;

use super::estimate::Estimator;
use super::util::{and_all, is_movable, is_row_id, map_columns};

/// A seek's cost relative to reading and hashing one row.
const SEEK_COST: f64 = 4.0;

/// How the right table is reached.
struct Access {
    index: Option<Arc<IndexDef>>,
    /// Positions (in the hash join's key lists) of the keys the seek uses, in seek order.
    used_keys: Vec<usize>,
    rows_per_probe: f64,
}

/// The index join equivalent of a hash join, when one exists and is estimated cheaper. An
/// inner join may also be turned around (the left table probed for each right row), under a
/// projection that restores the column order.
pub fn to_index_join(node: PlanNode, estimator: &Estimator<'_>) -> PlanNode {
    if let Some(access) = plan_access(&node, estimator) {
        return rewrite(node, access);
    }
    let Some(swapped) = swapped_inner_join(&node) else {
        return node;
    };
    let Some(access) = plan_access(&swapped, estimator) else {
        return node;
    };
    let PlanKind::HashJoin { left, right, .. } = &node.kind else {
        return node;
    };
    let (left_width, right_width) = (left.schema.len(), right.schema.len());
    let exprs = node
        .schema
        .iter()
        .enumerate()
        .map(|(position, column)| Expr::Column {
            index: if position < left_width {
                right_width + position
            } else {
                position - left_width
            },
            data_type: column.data_type,
        })
        .collect();
    PlanNode {
        kind: PlanKind::Project {
            input: Box::new(rewrite(swapped, access)),
            exprs,
        },
        schema: node.schema,
    }
}

/// An inner hash join with its inputs exchanged (columns: right's, then left's), when the
/// left input is a table that could be probed.
fn swapped_inner_join(node: &PlanNode) -> Option<PlanNode> {
    let PlanKind::HashJoin {
        left,
        right,
        kind: JoinKind::Inner,
        left_keys,
        right_keys,
        residual,
    } = &node.kind
    else {
        return None;
    };
    let scan = match &left.kind {
        PlanKind::Filter { input, .. } => input,
        _ => left,
    };
    if !matches!(scan.kind, PlanKind::Scan { .. })
        || residual
            .as_ref()
            .is_some_and(|residual| !is_movable(residual))
    {
        return None;
    }
    let (left_width, right_width) = (left.schema.len(), right.schema.len());
    let residual = residual.clone().map(|mut residual| {
        map_columns(&mut residual, &mut |index, data_type| Expr::Column {
            index: if index < left_width {
                index + right_width
            } else {
                index - left_width
            },
            data_type,
        });
        residual
    });
    Some(PlanNode {
        kind: PlanKind::HashJoin {
            left: right.clone(),
            right: left.clone(),
            kind: JoinKind::Inner,
            left_keys: right_keys.clone(),
            right_keys: left_keys.clone(),
            residual,
        },
        schema: right.schema.iter().chain(&left.schema).cloned().collect(),
    })
}

/// `node` (a hash join) as an index join reaching its right table through `access`.
fn rewrite(node: PlanNode, access: Access) -> PlanNode {
    let PlanNode { kind, schema } = node;
    let PlanKind::HashJoin {
        left,
        right,
        kind: join_kind,
        left_keys,
        right_keys,
        residual,
    } = kind
    else {
        return PlanNode { kind, schema };
    };
    let left_width = left.schema.len();
    let (filter, scan) = match right.kind {
        PlanKind::Filter { input, predicate } => (Some(predicate), *input),
        other => (
            None,
            PlanNode {
                kind: other,
                schema: right.schema,
            },
        ),
    };
    let PlanKind::Scan { table, columns, .. } = scan.kind else {
        // `plan_access` only accepts scans.
        return PlanNode {
            kind: PlanKind::SingleRow,
            schema: Vec::new(),
        };
    };
    let mut residuals: Vec<Expr> = residual.into_iter().collect();
    for (position, (left_key, right_key)) in left_keys.iter().zip(&right_keys).enumerate() {
        if !access.used_keys.contains(&position) {
            residuals.push(Expr::Binary {
                op: BinaryOp::Equal,
                left: Box::new(left_key.clone()),
                right: Box::new(raise_columns(right_key.clone(), left_width)),
                data_type: DataType::Boolean,
            });
        }
    }
    residuals.extend(filter.map(|predicate| raise_columns(predicate, left_width)));
    let seek_keys = access
        .used_keys
        .iter()
        .map(|&position| left_keys[position].clone())
        .collect();
    PlanNode {
        kind: PlanKind::IndexJoin {
            left,
            table,
            index: access.index,
            columns,
            kind: join_kind,
            left_keys: seek_keys,
            residual: and_all(residuals),
        },
        schema,
    }
}

/// The best way to seek the right side of a hash join, if it beats the hash join.
fn plan_access(node: &PlanNode, estimator: &Estimator<'_>) -> Option<Access> {
    let PlanKind::HashJoin {
        left,
        right,
        kind,
        left_keys,
        right_keys,
        ..
    } = &node.kind
    else {
        return None;
    };
    if matches!(kind, JoinKind::Right | JoinKind::Full) {
        return None;
    }
    let scan = match &right.kind {
        // Renumbering reaches into the filter; subquery plans inside it would not follow.
        PlanKind::Filter { predicate, .. } if !is_movable(predicate) => return None,
        PlanKind::Filter { input, .. } => input,
        _ => right,
    };
    let PlanKind::Scan { table, columns, .. } = &scan.kind else {
        return None;
    };
    // Each key pair as (position, table column the right key reads).
    let key_columns: Vec<(usize, ScanColumn)> = right_keys
        .iter()
        .zip(left_keys)
        .enumerate()
        .filter_map(|(position, (right_key, left_key))| match right_key {
            Expr::Column { index, data_type }
                if left_key.data_type().unmodified() == data_type.unmodified() =>
            {
                Some((position, *columns.get(*index)?))
            }
            _ => None,
        })
        .collect();
    let access = best_access(table, &key_columns, estimator)?;
    let left_rows = estimator.rows(left);
    let table_rows = estimator.table_rows(table);
    let index_join_cost = left_rows * (SEEK_COST + access.rows_per_probe);
    let hash_join_cost = table_rows + left_rows;
    (index_join_cost < hash_join_cost).then_some(access)
}

/// A row-id seek if a key is the row id, else the index whose leading columns the keys cover
/// best.
fn best_access(
    table: &TableDef,
    key_columns: &[(usize, ScanColumn)],
    estimator: &Estimator<'_>,
) -> Option<Access> {
    if let Some((position, _)) = key_columns
        .iter()
        .find(|(_, column)| is_row_id(table, column))
    {
        return Some(Access {
            index: None,
            used_keys: vec![*position],
            rows_per_probe: 1.0,
        });
    }
    let mut best: Option<Access> = None;
    for index in estimator.catalog.ordered_indexes_of(&table.name) {
        if index.method != IndexMethod::BTree {
            continue;
        }
        let mut used_keys = Vec::new();
        for (index_column, _) in &index.columns {
            match key_columns
                .iter()
                .find(|(_, column)| *column == ScanColumn::Column(*index_column))
            {
                Some((position, _)) => used_keys.push(*position),
                None => break,
            }
        }
        if used_keys.is_empty() {
            continue;
        }
        let rows_per_probe = estimator.rows_per_key(index, used_keys.len());
        if best
            .as_ref()
            .is_none_or(|current| rows_per_probe < current.rows_per_probe)
        {
            best = Some(Access {
                index: Some(index.clone()),
                used_keys,
                rows_per_probe,
            });
        }
    }
    best
}

/// `expr` (over the right input) renumbered to the joined row, whose right columns start
/// after the `by` left columns.
fn raise_columns(mut expr: Expr, by: usize) -> Expr {
    map_columns(&mut expr, &mut |index, data_type| Expr::Column {
        index: index + by,
        data_type,
    });
    expr
}
