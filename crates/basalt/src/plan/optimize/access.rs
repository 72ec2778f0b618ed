//! Access paths: a filter directly above a full table scan narrows the scan to a row-id range
//! or turns it into an index scan, when some of its conjuncts compare a key column with a
//! value fixed for the whole scan (a constant, a parameter, an outer column) or match it
//! against a literal LIKE / GLOB prefix. Failing that, `key IN (list)` on the row id or an
//! index's first column becomes one seek per distinct list value. Each is an
//! [`AccessPath`] of the one scan node.
//!
//! The filter stays above the new scan with every conjunct, so the scan only has to return a
//! superset of the rows that pass — later rules rely on that (an index join replaces the scan
//! by seeks and keeps the filter). Only at the very end of planning
//! ([`drop_enforced_conjuncts`]) does a conjunct that became a bound leave the filter, and
//! only when the scan returns exactly the rows it accepts (see [`exact_key_order`] and
//! `Candidate::enforced`): its type orders keys as SQL compares
//! values, a bound that evaluates to NULL makes the scan empty (the executor's rule, as a
//! comparison with NULL is never true), and NULL keys cannot fall inside the range — row ids
//! are never NULL, and an index column's NULLs sort outside any range bounded on both sides
//! or lie in a NOT NULL column. Everything else — the second of two lower bounds, a one-sided
//! range over a nullable column, REAL keys (where -0 and 0 compare equal but encode apart),
//! LIKE prefixes — stays in the filter.
//!
//! A comparison is usable only when the bound value has exactly the column's type, because
//! the executor evaluates bounds once and uses them as row ids (integers) or encodes them
//! with the column's key encoding: `id < 2.5` arrives from the binder as
//! `CAST(id AS real) < 2.5`, whose column side is not a bare column, so it is left alone.

use std::sync::Arc;

use crate::catalog::{Catalog, IndexDef, IndexMethod, TableDef};
use crate::plan::{AccessPath, BinaryOp, Expr, PlanKind, PlanNode, RangeBound, ScanColumn};
use crate::types::{DataType, Value};

use super::util::{conjuncts, flip, is_bound_value, with_filter};

/// One usable comparison: scan output column `position` `op` `value`.
#[derive(Clone, Debug)]
struct Comparison {
    position: usize,
    op: BinaryOp,
    value: Expr,
    /// The filter conjunct it is (its position in the conjunct list); `None` when it is
    /// derived from one (a LIKE prefix), so enforcing it does not enforce the conjunct.
    conjunct: Option<usize>,
}

/// Whether index keys of `data_type` sort exactly as SQL compares its values, so a key range
/// holds the same values as the comparisons it was built from.
fn exact_key_order(data_type: DataType) -> bool {
    matches!(
        data_type,
        DataType::Boolean
            | DataType::Integer
            | DataType::Text(_)
            | DataType::Blob
            | DataType::Date
            | DataType::Timestamp
            | DataType::TimestampTz
            | DataType::Time(_)
            | DataType::Interval
            | DataType::Uuid
            | DataType::Numeric(_)
    )
}

/// `column op value` (or `value op column`) with a bound-able value of the column's type;
/// `position` is the conjunct's place in the filter.
fn comparison(position_in_filter: usize, conjunct: &Expr) -> Option<Comparison> {
    let Expr::Binary {
        op, left, right, ..
    } = conjunct
    else {
        return None;
    };
    if !op.is_comparison() || *op == BinaryOp::NotEqual {
        return None;
    }
    let (column, value, op) = match (&**left, &**right) {
        (Expr::Column { .. }, value) if is_bound_value(value) => (&**left, value, *op),
        (value, Expr::Column { .. }) if is_bound_value(value) => (&**right, value, flip(*op)),
        _ => return None,
    };
    let Expr::Column { index, data_type } = column else {
        return None;
    };
    (value.data_type().unmodified() == data_type.unmodified()).then(|| Comparison {
        position: *index,
        op,
        value: value.clone(),
        conjunct: Some(position_in_filter),
    })
}

/// The bounds of a chosen access path, with how good it is (higher is better).
struct Candidate {
    score: u32,
    index: Option<Arc<IndexDef>>,
    lower: RangeBound,
    upper: RangeBound,
    /// Filter conjuncts (positions) the bounds enforce exactly: the filter can drop them.
    enforced: Vec<usize>,
}

/// The filter over a full table scan with the best narrower scan beneath it, or unchanged.
/// This is where a scan's access path is chosen: a row-id or index range when the filter's
/// conjuncts bound a key ([`best_candidate`]), else seeks for an IN list on the row id or an
/// index's first column, else the full scan stays. (The ORDER BY rule may later read a full
/// scan through an index for its order; index joins replace a scan by seeks from the other
/// side.)
pub fn choose_access(node: PlanNode, catalog: &Catalog) -> PlanNode {
    let PlanNode { kind, schema } = node;
    let PlanKind::Filter { input, predicate } = kind else {
        return PlanNode { kind, schema };
    };
    let (table, columns, reverse, scan_schema) = match *input {
        PlanNode {
            kind:
                PlanKind::Scan {
                    table,
                    columns,
                    access: AccessPath::Full,
                    reverse,
                },
            schema: scan_schema,
        } => (table, columns, reverse, scan_schema),
        other => {
            return PlanNode {
                kind: PlanKind::Filter {
                    input: Box::new(other),
                    predicate,
                },
                schema,
            };
        }
    };
    let conjuncts = conjuncts(predicate.clone());
    let access = match best_candidate(&table, &columns, &conjuncts, catalog) {
        Some(Candidate {
            index: None,
            lower,
            upper,
            ..
        }) => AccessPath::row_id_range(lower, upper),
        Some(Candidate {
            index: Some(index),
            lower,
            upper,
            ..
        }) => AccessPath::IndexRange {
            index,
            lower,
            upper,
        },
        None => in_list_seeks(&table, &columns, &predicate, catalog).unwrap_or(AccessPath::Full),
    };
    let scan = PlanNode {
        kind: PlanKind::Scan {
            table,
            columns,
            access,
            reverse,
        },
        schema: scan_schema,
    };
    PlanNode {
        kind: PlanKind::Filter {
            input: Box::new(scan),
            predicate,
        },
        schema,
    }
}

/// The last step of planning: a filter directly above a scan loses the conjuncts the scan's
/// bounds enforce exactly (`Candidate::enforced`). It runs after every other rule because
/// those may replace a scan — an index join seeks by its key instead and relies on the
/// filter above the scan still holding every conjunct — so only the scans that remain in
/// the final plan may take over their conjuncts. The scan's bounds are derived again from
/// the conjuncts and must come out identical, which ties each dropped conjunct to the bound
/// that enforces it (also after a rule changed the index, as the ORDER BY rule may).
pub fn drop_enforced_conjuncts(node: PlanNode) -> PlanNode {
    let PlanNode { mut kind, schema } = node;
    for child in kind.children_mut() {
        let taken = std::mem::replace(child, super::placeholder());
        *child = drop_enforced_conjuncts(taken);
    }
    let PlanKind::Filter { input, predicate } = kind else {
        return PlanNode { kind, schema };
    };
    let conjuncts = conjuncts(predicate.clone());
    let enforced = enforced_by_scan(&input, &conjuncts);
    if enforced.is_empty() {
        return PlanNode {
            kind: PlanKind::Filter { input, predicate },
            schema,
        };
    }
    let remaining = conjuncts
        .into_iter()
        .enumerate()
        .filter(|(position, _)| !enforced.contains(position))
        .map(|(_, conjunct)| conjunct)
        .collect();
    with_filter(*input, remaining)
}

/// The conjuncts (positions) that `scan`'s bounds enforce exactly: those of the candidate
/// for the scan's own index (or row id) whose bounds are the scan's bounds.
fn enforced_by_scan(scan: &PlanNode, conjuncts: &[Expr]) -> Vec<usize> {
    let PlanKind::Scan {
        table,
        columns,
        access,
        ..
    } = &scan.kind
    else {
        return Vec::new();
    };
    let (index, lower, upper) = match access {
        AccessPath::RowIdRange { lower, upper } => (None, lower, upper),
        AccessPath::IndexRange {
            index,
            lower,
            upper,
        } => (Some(index), lower, upper),
        AccessPath::TextSearch(search) => {
            return super::text_search::enforced(columns, search, conjuncts);
        }
        AccessPath::Full | AccessPath::Seeks { .. } | AccessPath::VectorSearch(_) => {
            return Vec::new();
        }
    };
    if *lower == RangeBound::Unbounded && *upper == RangeBound::Unbounded {
        return Vec::new();
    }
    let comparisons = comparisons(conjuncts);
    let candidate = match index {
        None => row_id_candidate(table, columns, &comparisons),
        Some(index) => index_candidate(table, index, columns, &comparisons),
    };
    match candidate {
        Some(candidate) if candidate.lower == *lower && candidate.upper == *upper => {
            candidate.enforced
        }
        _ => Vec::new(),
    }
}

/// Every usable comparison among the filter's conjuncts, and the ranges of LIKE prefixes.
fn comparisons(conjuncts: &[Expr]) -> Vec<Comparison> {
    conjuncts
        .iter()
        .enumerate()
        .filter_map(|(position, conjunct)| comparison(position, conjunct))
        .chain(conjuncts.iter().flat_map(like_prefix_range))
        .collect()
}

fn best_candidate(
    table: &Arc<TableDef>,
    columns: &[ScanColumn],
    conjuncts: &[Expr],
    catalog: &Catalog,
) -> Option<Candidate> {
    let comparisons = comparisons(conjuncts);
    if comparisons.is_empty() {
        return None;
    }
    let mut best = row_id_candidate(table, columns, &comparisons);
    for index in catalog.ordered_indexes_of(&table.name) {
        if let Some(candidate) = index_candidate(table, index, columns, &comparisons)
            && best.as_ref().is_none_or(|b| candidate.score > b.score)
        {
            best = Some(candidate);
        }
    }
    best
}

/// Whether scan output `position` is the table column `column` (of that column's type).
fn reads_column(
    table: &TableDef,
    columns: &[ScanColumn],
    position: usize,
    column: usize,
    comparison_type: DataType,
) -> bool {
    columns.get(position) == Some(&ScanColumn::Column(column))
        && table
            .columns
            .get(column)
            .is_some_and(|c| c.data_type.unmodified() == comparison_type.unmodified())
}

fn row_id_candidate(
    table: &TableDef,
    columns: &[ScanColumn],
    comparisons: &[Comparison],
) -> Option<Candidate> {
    let is_row_id = |c: &&Comparison| {
        c.value.data_type() == DataType::Integer
            && match columns.get(c.position) {
                Some(ScanColumn::RowId) => true,
                Some(ScanColumn::Column(column)) => {
                    table.row_id_column == Some(*column)
                        && reads_column(table, columns, c.position, *column, DataType::Integer)
                }
                Some(ScanColumn::Unread(_)) | None => false,
            }
    };
    let on_row_id: Vec<&Comparison> = comparisons.iter().filter(is_row_id).collect();
    // Row ids are never NULL, so every bound is exact, one-sided ones included.
    if let Some(equal) = on_row_id.iter().find(|c| c.op == BinaryOp::Equal) {
        return Some(Candidate {
            score: 1000,
            index: None,
            lower: RangeBound::Included(vec![equal.value.clone()]),
            upper: RangeBound::Included(vec![equal.value.clone()]),
            enforced: equal.conjunct.into_iter().collect(),
        });
    }
    let range = range_bounds(&on_row_id, Vec::new(), false);
    let sides = u32::from(range.lower != RangeBound::Unbounded)
        + u32::from(range.upper != RangeBound::Unbounded);
    (sides > 0).then(|| Candidate {
        score: 3 * sides,
        index: None,
        enforced: range
            .used
            .iter()
            .flatten()
            .filter_map(|c| c.conjunct)
            .collect(),
        lower: range.lower,
        upper: range.upper,
    })
}

/// Bounds built by [`range_bounds`], with the comparisons they came from.
struct Range<'a> {
    lower: RangeBound,
    upper: RangeBound,
    /// The comparisons used as the value's lower and upper bound (before any reversal for a
    /// descending key).
    used: [Option<&'a Comparison>; 2],
}

/// Bounds for `prefix` (equalities on the leading key columns) followed by the first lower
/// and first upper comparison in `range` on the next column. For a descending key column the
/// byte order is reversed, so a value's lower bound is the key range's upper bound.
fn range_bounds<'a>(range: &[&'a Comparison], prefix: Vec<Expr>, descending: bool) -> Range<'a> {
    let with = |value: &Expr| {
        let mut key = prefix.clone();
        key.push(value.clone());
        key
    };
    let prefix_bound = || {
        if prefix.is_empty() {
            RangeBound::Unbounded
        } else {
            RangeBound::Included(prefix.clone())
        }
    };
    let mut value_lower = None;
    let mut value_upper = None;
    let mut used = [None, None];
    for &comparison in range {
        match comparison.op {
            BinaryOp::Greater if value_lower.is_none() => {
                value_lower = Some(RangeBound::Excluded(with(&comparison.value)));
                used[0] = Some(comparison);
            }
            BinaryOp::GreaterOrEqual if value_lower.is_none() => {
                value_lower = Some(RangeBound::Included(with(&comparison.value)));
                used[0] = Some(comparison);
            }
            BinaryOp::Less if value_upper.is_none() => {
                value_upper = Some(RangeBound::Excluded(with(&comparison.value)));
                used[1] = Some(comparison);
            }
            BinaryOp::LessOrEqual if value_upper.is_none() => {
                value_upper = Some(RangeBound::Included(with(&comparison.value)));
                used[1] = Some(comparison);
            }
            _ => {}
        }
    }
    let (lower, upper) = if descending {
        (value_upper, value_lower)
    } else {
        (value_lower, value_upper)
    };
    Range {
        lower: lower.unwrap_or_else(prefix_bound),
        upper: upper.unwrap_or_else(prefix_bound),
        used,
    }
}

fn index_candidate(
    table: &TableDef,
    index: &Arc<IndexDef>,
    columns: &[ScanColumn],
    comparisons: &[Comparison],
) -> Option<Candidate> {
    if index.method != IndexMethod::BTree {
        return None;
    }
    let on = |column: usize| -> Vec<&Comparison> {
        comparisons
            .iter()
            .filter(|c| reads_column(table, columns, c.position, column, c.value.data_type()))
            .collect()
    };
    // A key column's comparisons are exact when its type orders keys as SQL does; its
    // range bounds also need NULL keys kept out, by a bound on both sides or NOT NULL.
    let exact = |column: usize| {
        table
            .columns
            .get(column)
            .is_some_and(|c| exact_key_order(c.data_type))
    };
    let not_null = |column: usize| table.columns.get(column).is_some_and(|c| c.not_null);
    let mut prefix = Vec::new();
    let mut enforced = Vec::new();
    let mut range = None;
    for &(column, order) in &index.columns {
        let compared = on(column);
        match compared.iter().find(|c| c.op == BinaryOp::Equal) {
            Some(equal) => {
                prefix.push(equal.value.clone());
                if exact(column) {
                    enforced.extend(equal.conjunct);
                }
            }
            None => {
                range = Some((column, compared, order.descending));
                break;
            }
        }
    }
    let equalities = prefix.len() as u32;
    let full_unique = index.unique && prefix.len() == index.columns.len();
    let (lower, upper) = match range {
        Some((column, compared, descending)) => {
            let range = range_bounds(&compared, prefix, descending);
            let both_sides = range.used.iter().all(Option::is_some);
            if exact(column) && (both_sides || not_null(column)) {
                enforced.extend(range.used.iter().flatten().filter_map(|c| c.conjunct));
            }
            (range.lower, range.upper)
        }
        None => (
            RangeBound::Included(prefix.clone()),
            RangeBound::Included(prefix),
        ),
    };
    let bounded = |bound: &RangeBound| match bound {
        RangeBound::Unbounded => 0,
        RangeBound::Included(key) | RangeBound::Excluded(key) => {
            u32::from(key.len() as u32 > equalities)
        }
    };
    let range_sides = bounded(&lower) + bounded(&upper);
    if equalities == 0 && range_sides == 0 {
        return None;
    }
    Some(Candidate {
        score: 10 * equalities + if full_unique { 30 } else { 0 } + 2 * range_sides,
        index: Some(index.clone()),
        lower,
        upper,
        enforced,
    })
}

/// `column LIKE 'prefix%'` (or `GLOB 'prefix*'`) with a literal pattern: the column's values
/// lie in `[prefix, successor(prefix))`, two comparisons an index on the column can seek.
/// Case-insensitive matching (ILIKE) has no such range.
fn like_prefix_range(conjunct: &Expr) -> Vec<Comparison> {
    let Expr::Like {
        operand,
        pattern,
        escape,
        negated: false,
        case_insensitive: false,
        glob,
    } = conjunct
    else {
        return Vec::new();
    };
    let (
        Expr::Column {
            index,
            data_type: DataType::Text(_),
        },
        Expr::Literal {
            value: Value::Text(pattern),
            ..
        },
    ) = (&**operand, &**pattern)
    else {
        return Vec::new();
    };
    let escape = match escape.as_deref() {
        None => None,
        Some(Expr::Literal {
            value: Value::Text(escape),
            ..
        }) if escape.chars().count() == 1 => escape.chars().next(),
        Some(_) => return Vec::new(),
    };
    let prefix = literal_prefix(pattern, escape, *glob);
    if prefix.is_empty() {
        return Vec::new();
    }
    let text = |text: String| Expr::Literal {
        value: Value::Text(text),
        data_type: DataType::Text(None),
    };
    let mut range = Vec::with_capacity(2);
    if let Some(successor) = text_successor(&prefix) {
        range.push(Comparison {
            position: *index,
            op: BinaryOp::Less,
            value: text(successor),
            conjunct: None,
        });
    }
    range.push(Comparison {
        position: *index,
        op: BinaryOp::GreaterOrEqual,
        value: text(prefix),
        conjunct: None,
    });
    range
}

/// The characters a pattern must start with: everything before its first wildcard, with
/// escapes resolved (LIKE: `%`, `_`; GLOB: `*`, `?`, `[`).
fn literal_prefix(pattern: &str, escape: Option<char>, glob: bool) -> String {
    let mut prefix = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if !glob && Some(c) == escape {
            match chars.next() {
                Some(escaped) => prefix.push(escaped),
                None => break,
            }
            continue;
        }
        let wildcard = if glob {
            matches!(c, '*' | '?' | '[')
        } else {
            matches!(c, '%' | '_')
        };
        if wildcard {
            break;
        }
        prefix.push(c);
    }
    prefix
}

/// The smallest string greater than every string that starts with `prefix`: the prefix
/// with its last character incremented (dropping trailing U+10FFFF). Text compares by code
/// point, so `[prefix, successor)` holds exactly the strings starting with `prefix`. `None`
/// when there is no such string (a prefix of only U+10FFFF).
fn text_successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = match u32::from(last) + 1 {
            0xD800 => Some('\u{E000}'),
            code => char::from_u32(code),
        };
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// `operand IN (list)`, or `operand = ANY (array)` as the operand and a one-item list
/// holding the array.
fn in_list_or_any(conjunct: Expr) -> Option<(Expr, Vec<Expr>)> {
    match conjunct {
        Expr::InList {
            operand,
            list,
            negated: false,
        } => Some((*operand, list)),
        Expr::Function { function, args, .. } if function.name == "$quantified" => {
            let mut args = args.into_iter();
            let (Some(operand), Some(array), Some(op), Some(all)) =
                (args.next(), args.next(), args.next(), args.next())
            else {
                return None;
            };
            let equal_any = matches!(
                (&op, &all),
                (
                    Expr::Literal {
                        value: crate::types::Value::Integer(0),
                        ..
                    },
                    Expr::Literal {
                        value: crate::types::Value::Boolean(false),
                        ..
                    }
                )
            );
            (equal_any && array.data_type().is_array()).then(|| (operand, vec![array]))
        }
        _ => None,
    }
}

/// `column IN (v1, .., vn)` or `column = ANY (array)` on the row id or on an index's first
/// column, every value bound
/// for the scan and of the column's type: one seek per distinct value instead of a full
/// scan ([`AccessPath::Seeks`]; the filter above still checks every conjunct).
fn in_list_seeks(
    table: &Arc<TableDef>,
    columns: &[ScanColumn],
    predicate: &Expr,
    catalog: &Catalog,
) -> Option<AccessPath> {
    for conjunct in conjuncts(predicate.clone()) {
        let Some((operand, list)) = in_list_or_any(conjunct) else {
            continue;
        };
        let Expr::Column {
            index: position,
            data_type,
        } = operand
        else {
            continue;
        };
        // Seeks on an array column are not made, so that one array-typed key always means
        // `= ANY (array)` to the scan.
        if data_type.is_array() {
            continue;
        }
        // The values: each of the column's type, or one array of it (`= ANY ($1)`), whose
        // elements the scan seeks.
        let of_column_type = |value: &Expr| {
            let value_type = value.data_type();
            value_type == data_type.unmodified()
                || value_type.element_type() == Some(data_type.unmodified())
        };
        if list.is_empty()
            || !list
                .iter()
                .all(|value| is_bound_value(value) && of_column_type(value))
        {
            continue;
        }
        let seek_index = match columns.get(position) {
            Some(ScanColumn::RowId) if data_type == DataType::Integer => None,
            Some(ScanColumn::Column(column))
                if table.row_id_column == Some(*column) && data_type == DataType::Integer =>
            {
                None
            }
            Some(ScanColumn::Column(column)) => {
                let usable = |index: &&Arc<IndexDef>| {
                    index.method == IndexMethod::BTree
                        && index.columns.first().map(|(first, _)| *first) == Some(*column)
                        && reads_column(table, columns, position, *column, data_type)
                };
                // A unique index on exactly this column gives at most one row per value.
                let mut indexes: Vec<&Arc<IndexDef>> = catalog
                    .ordered_indexes_of(&table.name)
                    .filter(usable)
                    .collect();
                indexes.sort_by_key(|index| !(index.unique && index.columns.len() == 1));
                match indexes.first() {
                    Some(index) => Some(Arc::clone(index)),
                    None => continue,
                }
            }
            _ => continue,
        };
        return Some(AccessPath::Seeks {
            index: seek_index,
            keys: list,
        });
    }
    None
}
