//! Orders: an ORDER BY that a scan already delivers needs no sort, and an ORDER BY under a
//! LIMIT needs only the best rows.
//!
//! * A sort whose keys are the row id (ascending or descending) over a table scan becomes
//!   that scan, run forwards or backwards.
//! * A sort whose keys follow an index's columns — after the leading columns an index range
//!   fixes by equality — over an index scan becomes that scan, forwards or backwards. The
//!   directions must agree with the index's on every key (including where NULLs go, unless the
//!   column is NOT NULL), all forwards or all backwards.
//! * Under a LIMIT, a full table scan may also be replaced by a full index scan that delivers
//!   the order: the scan then stops after a few rows instead of sorting the table. Without a
//!   LIMIT that trade is usually bad (a table lookup per row against one sort), so it is not
//!   made.
//! * Any other sort under a LIMIT becomes a top-N sort.
//!
//! Only projections and filters may sit between the sort and the scan: both keep their
//! input's order. Ties between equal keys come out in the scan's order, which for a backward
//! scan differs from the forward order a full sort would keep; SQL leaves that order
//! unspecified.

use super::util::is_row_id;
use crate::catalog::{Catalog, IndexDef, IndexMethod, TableDef};
use crate::plan::{AccessPath, Expr, PlanKind, PlanNode, RangeBound, ScanColumn, SortKey};

/// A sort key as a column of the node it is applied to.
#[derive(Clone, Copy, Debug)]
struct ColumnKey {
    column: usize,
    descending: bool,
    nulls_first: bool,
}

/// A Sort node, or its input when a scan below already delivers the order.
pub fn sort(node: PlanNode, catalog: &Catalog) -> PlanNode {
    let PlanKind::Sort { input, keys } = &node.kind else {
        return node;
    };
    match ordered_input(input, keys, catalog, false) {
        Some(ordered) => ordered,
        None => node,
    }
}

/// A Limit node over a sort: the sort served by an index (switching a full scan to an index
/// scan if one fits), or else a top-N sort.
pub fn limit(node: PlanNode, catalog: &Catalog) -> PlanNode {
    let PlanNode { kind, schema } = node;
    let PlanKind::Limit {
        input,
        limit: Some(limit),
        offset,
    } = kind
    else {
        return PlanNode { kind, schema };
    };
    let input = match input.kind {
        PlanKind::Project {
            input: projected,
            exprs,
        } if matches!(projected.kind, PlanKind::Sort { .. }) => {
            return match sort_under_limit(*projected, &limit, &offset, catalog) {
                UnderLimit::TopN(top) => PlanNode {
                    kind: PlanKind::Project {
                        input: Box::new(top),
                        exprs,
                    },
                    schema,
                },
                UnderLimit::Ordered(ordered) => limit_node(
                    PlanNode {
                        kind: PlanKind::Project {
                            input: Box::new(ordered),
                            exprs,
                        },
                        schema: input.schema,
                    },
                    limit,
                    offset,
                    schema,
                ),
            };
        }
        PlanKind::Sort { .. } => *input,
        other => {
            return limit_node(
                PlanNode {
                    kind: other,
                    schema: input.schema,
                },
                limit,
                offset,
                schema,
            );
        }
    };
    match sort_under_limit(input, &limit, &offset, catalog) {
        UnderLimit::TopN(top) => top,
        UnderLimit::Ordered(ordered) => limit_node(ordered, limit, offset, schema),
    }
}

fn limit_node(
    input: PlanNode,
    limit: Expr,
    offset: Option<Expr>,
    schema: Vec<crate::plan::OutputColumn>,
) -> PlanNode {
    PlanNode {
        kind: PlanKind::Limit {
            input: Box::new(input),
            limit: Some(limit),
            offset,
        },
        schema,
    }
}

/// What becomes of a sort under a limit.
enum UnderLimit {
    /// A top-N node replacing both the sort and the limit.
    TopN(PlanNode),
    /// The sort's input, delivering the order itself; the limit stays above it.
    Ordered(PlanNode),
}

fn sort_under_limit(
    sort_node: PlanNode,
    limit: &Expr,
    offset: &Option<Expr>,
    catalog: &Catalog,
) -> UnderLimit {
    let PlanNode { kind, schema } = sort_node;
    let PlanKind::Sort { input, keys } = kind else {
        return UnderLimit::Ordered(PlanNode { kind, schema });
    };
    if let Some(ordered) = ordered_input(&input, &keys, catalog, true) {
        return UnderLimit::Ordered(ordered);
    }
    UnderLimit::TopN(PlanNode {
        kind: PlanKind::TopN {
            input,
            keys,
            limit: limit.clone(),
            offset: offset.clone(),
        },
        schema,
    })
}

/// `input` rewritten so that it produces its rows in the keys' order, if a scan can.
fn ordered_input(
    input: &PlanNode,
    keys: &[SortKey],
    catalog: &Catalog,
    switch_to_index: bool,
) -> Option<PlanNode> {
    let keys = keys
        .iter()
        .map(|key| match key.expr {
            Expr::Column { index, .. } => Some(ColumnKey {
                column: index,
                descending: key.descending,
                nulls_first: key.nulls_first,
            }),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    if keys.is_empty() {
        return None;
    }
    rewrite(input, &keys, catalog, switch_to_index)
}

fn rewrite(
    node: &PlanNode,
    keys: &[ColumnKey],
    catalog: &Catalog,
    switch_to_index: bool,
) -> Option<PlanNode> {
    let kind = match &node.kind {
        PlanKind::Project { input, exprs } => {
            let keys = keys
                .iter()
                .map(|key| match exprs.get(key.column) {
                    Some(Expr::Column { index, .. }) => Some(ColumnKey {
                        column: *index,
                        ..*key
                    }),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            PlanKind::Project {
                input: Box::new(rewrite(input, &keys, catalog, switch_to_index)?),
                exprs: exprs.clone(),
            }
        }
        PlanKind::Filter { input, predicate } => PlanKind::Filter {
            input: Box::new(rewrite(input, keys, catalog, switch_to_index)?),
            predicate: predicate.clone(),
        },
        PlanKind::Scan {
            table,
            columns,
            access,
            reverse: false,
        } => match access {
            AccessPath::VectorSearch(_) | AccessPath::TextSearch(_) => return None,
            AccessPath::Full | AccessPath::RowIdRange { .. } => {
                if let Some(reverse) = row_id_order(table, columns, keys) {
                    PlanKind::Scan {
                        table: table.clone(),
                        columns: columns.clone(),
                        access: access.clone(),
                        reverse,
                    }
                } else if switch_to_index && matches!(access, AccessPath::Full) {
                    let (index, reverse) =
                        catalog.ordered_indexes_of(&table.name).find_map(|index| {
                            Some((index, index_order(table, index, columns, keys, 0)?))
                        })?;
                    PlanKind::Scan {
                        table: table.clone(),
                        columns: columns.clone(),
                        access: AccessPath::IndexRange {
                            index: index.clone(),
                            lower: RangeBound::Unbounded,
                            upper: RangeBound::Unbounded,
                        },
                        reverse,
                    }
                } else {
                    return None;
                }
            }
            AccessPath::IndexRange {
                index,
                lower,
                upper,
            } => {
                let fixed = super::estimate::equality_prefix(lower, upper);
                let (index, reverse) = match index_order(table, index, columns, keys, fixed) {
                    Some(reverse) => (index.clone(), reverse),
                    None => same_prefix_index(table, index, columns, keys, lower, upper, catalog)?,
                };
                PlanKind::Scan {
                    table: table.clone(),
                    columns: columns.clone(),
                    access: AccessPath::IndexRange {
                        index,
                        lower: lower.clone(),
                        upper: upper.clone(),
                    },
                    reverse,
                }
            }
            // Seeks come in the list's order, not a key order.
            AccessPath::Seeks { .. } => return None,
        },
        _ => return None,
    };
    Some(PlanNode {
        kind,
        schema: node.schema.clone(),
    })
}

/// Whether the keys ask for row-id order: `Some(backwards)`. Row ids are unique, so keys after
/// the first cannot change the order.
fn row_id_order(table: &TableDef, columns: &[ScanColumn], keys: &[ColumnKey]) -> Option<bool> {
    let first = keys.first()?;
    is_row_id(table, columns.get(first.column)?).then_some(first.descending)
}

/// Another index that can take the same bounds — they are pure equalities on leading
/// columns, which mean the same under any key direction — and delivers the keys' order.
fn same_prefix_index(
    table: &TableDef,
    chosen: &IndexDef,
    columns: &[ScanColumn],
    keys: &[ColumnKey],
    lower: &RangeBound,
    upper: &RangeBound,
    catalog: &Catalog,
) -> Option<(std::sync::Arc<IndexDef>, bool)> {
    let (RangeBound::Included(low), RangeBound::Included(high)) = (lower, upper) else {
        return None;
    };
    if low != high {
        return None;
    }
    let fixed = low.len();
    let leading: Vec<usize> = chosen
        .columns
        .get(..fixed)?
        .iter()
        .map(|(c, _)| *c)
        .collect();
    catalog.ordered_indexes_of(&table.name).find_map(|index| {
        let same_leading = index.columns.len() >= fixed
            && index.columns[..fixed]
                .iter()
                .map(|(column, _)| *column)
                .eq(leading.iter().copied());
        if !same_leading {
            return None;
        }
        Some((
            index.clone(),
            index_order(table, index, columns, keys, fixed)?,
        ))
    })
}

/// Whether scanning `index` (with its first `fixed` columns fixed) yields the keys' order:
/// `Some(backwards)`.
fn index_order(
    table: &TableDef,
    index: &IndexDef,
    columns: &[ScanColumn],
    keys: &[ColumnKey],
    fixed: usize,
) -> Option<bool> {
    if index.method != IndexMethod::BTree {
        return None;
    }
    let fixed_columns = index.columns.get(..fixed)?;
    let mut position = fixed;
    let mut direction = None;
    for key in keys {
        let ScanColumn::Column(column) = *columns.get(key.column)? else {
            return None;
        };
        if fixed_columns
            .iter()
            .any(|(fixed_column, _)| *fixed_column == column)
        {
            // Equal on every row of the range: this key cannot change the order.
            continue;
        }
        let (index_column, order) = index.columns.get(position)?;
        if *index_column != column {
            return None;
        }
        let never_null = table.columns.get(column).is_some_and(|c| c.not_null)
            || table.row_id_column == Some(column);
        let same_nulls = order.nulls_first == key.nulls_first;
        let backwards = if order.descending == key.descending && (same_nulls || never_null) {
            false
        } else if order.descending != key.descending && (!same_nulls || never_null) {
            true
        } else {
            return None;
        };
        if direction.is_some_and(|earlier| earlier != backwards) {
            return None;
        }
        direction = Some(backwards);
        position += 1;
    }
    // Every key was a fixed column: any order of the range is the keys' order.
    Some(direction.unwrap_or(false))
}
