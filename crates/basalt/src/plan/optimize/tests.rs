//! Tests of the optimizer rules on hand-built plans: where conjuncts land (and how their
//! columns are renumbered), which joins become hash joins, and which scans get ranges.

use std::sync::Arc;

use crate::catalog::{Catalog, ColumnDef, IndexDef, IndexMethod, SchemaObject, TableDef};
use crate::plan::{
    AccessPath, BinaryOp, Expr, JoinKind, OutputColumn, PlanKind, PlanNode, RangeBound, ScanColumn,
};
use crate::storage::keys::KeyOrder;
use crate::types::{DataType, Value};

use super::optimize;

fn column_def(name: &str, data_type: DataType, slot: usize) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        data_type,
        declared_type: data_type.name().into(),
        not_null: false,
        default: None,
        generated: None,
        slot,
    }
}

fn table_def(name: &str, columns: &[(&str, DataType)], row_id_column: Option<usize>) -> TableDef {
    TableDef {
        name: name.into(),
        columns: columns
            .iter()
            .enumerate()
            .map(|(slot, (n, t))| column_def(n, *t, slot))
            .collect(),
        root: 10,
        row_id_column,
        primary_key: row_id_column.into_iter().collect(),
        checks: Vec::new(),
        foreign_keys: Vec::new(),
        slot_count: columns.len(),
    }
}

fn index_def(name: &str, table: &str, columns: &[(usize, KeyOrder)], unique: bool) -> IndexDef {
    IndexDef {
        name: name.into(),
        table: table.into(),
        columns: columns.to_vec(),
        unique,
        method: IndexMethod::BTree,
        root: 20,
        implicit: false,
        options: Vec::new(),
    }
}

/// t1(a INTEGER, b INTEGER), t2(c INTEGER, d REAL), t3(id INTEGER PRIMARY KEY, x INTEGER,
/// y TEXT, r REAL) with indexes t3_xy (x, y) and t3_r (r DESC).
fn catalog() -> Catalog {
    use DataType::*;
    Catalog::from_objects(
        1,
        vec![
            SchemaObject::Table(table_def("t1", &[("a", Integer), ("b", Integer)], None)),
            SchemaObject::Table(table_def("t2", &[("c", Integer), ("d", Real)], None)),
            SchemaObject::Table(table_def(
                "t3",
                &[
                    ("id", Integer),
                    ("x", Integer),
                    ("y", Text(None)),
                    ("r", Real),
                ],
                Some(0),
            )),
            SchemaObject::Index(index_def(
                "t3_xy",
                "t3",
                &[(1, KeyOrder::ASC), (2, KeyOrder::ASC)],
                false,
            )),
            SchemaObject::Index(index_def("t3_r", "t3", &[(3, KeyOrder::DESC)], false)),
        ],
    )
}

fn scan(catalog: &Catalog, name: &str) -> PlanNode {
    let table = catalog
        .tables
        .get(name)
        .cloned()
        .unwrap_or_else(|| Arc::new(table_def(name, &[], None)));
    PlanNode {
        schema: table
            .columns
            .iter()
            .map(|c| OutputColumn {
                name: c.name.clone(),
                table: Some(name.into()),
                data_type: c.data_type,
                source: None,
            })
            .collect(),
        kind: PlanKind::Scan {
            columns: (0..table.columns.len()).map(ScanColumn::Column).collect(),
            table,
            access: AccessPath::Full,
            reverse: false,
        },
    }
}

/// The index and bounds of an index range scan (a test failure for anything else).
fn index_range(node: &PlanNode) -> (&IndexDef, &RangeBound, &RangeBound) {
    match &node.kind {
        PlanKind::Scan {
            access:
                AccessPath::IndexRange {
                    index,
                    lower,
                    upper,
                },
            reverse: false,
            ..
        } => (index, lower, upper),
        other => panic!("expected a forward index range scan: {other:?}"),
    }
}

/// Whether `node` reads its whole table in row-id order.
fn is_full_scan(node: &PlanNode) -> bool {
    matches!(
        node.kind,
        PlanKind::Scan {
            access: AccessPath::Full,
            ..
        }
    )
}

fn join(left: PlanNode, right: PlanNode, kind: JoinKind, condition: Option<Expr>) -> PlanNode {
    let schema = left.schema.iter().chain(&right.schema).cloned().collect();
    PlanNode {
        kind: PlanKind::NestedLoopJoin {
            left: Box::new(left),
            right: Box::new(right),
            kind,
            condition,
        },
        schema,
    }
}

fn filter(input: PlanNode, predicate: Expr) -> PlanNode {
    PlanNode {
        schema: input.schema.clone(),
        kind: PlanKind::Filter {
            input: Box::new(input),
            predicate,
        },
    }
}

fn col(index: usize, data_type: DataType) -> Expr {
    Expr::Column { index, data_type }
}

fn int(v: i64) -> Expr {
    Expr::literal(Value::Integer(v))
}

fn real(v: f64) -> Expr {
    Expr::literal(Value::Real(v))
}

fn text(v: &str) -> Expr {
    Expr::literal(Value::Text(v.into()))
}

fn bin(op: BinaryOp, left: Expr, right: Expr) -> Expr {
    Expr::Binary {
        op,
        left: Box::new(left),
        right: Box::new(right),
        data_type: DataType::Boolean,
    }
}

fn and(left: Expr, right: Expr) -> Expr {
    bin(BinaryOp::And, left, right)
}

fn cast(operand: Expr, to: DataType) -> Expr {
    Expr::Cast {
        operand: Box::new(operand),
        to,
    }
}

use DataType::{Integer, Real, Text};

/// The filter predicate and input of a Filter node.
fn as_filter(node: &PlanNode) -> (&Expr, &PlanNode) {
    match &node.kind {
        PlanKind::Filter { predicate, input } => (predicate, input),
        other => panic!("expected a filter, got {other:?}"),
    }
}

#[test]
fn inner_join_conjuncts_go_to_their_side_and_become_hash_keys() {
    let catalog = catalog();
    // SELECT * FROM t1, t2 WHERE a = 1 AND d > 2.0 AND b = c AND a + c > d
    let plan = filter(
        join(
            scan(&catalog, "t1"),
            scan(&catalog, "t2"),
            JoinKind::Inner,
            None,
        ),
        and(
            and(
                bin(BinaryOp::Equal, col(0, Integer), int(1)),
                bin(BinaryOp::Greater, col(3, Real), real(2.0)),
            ),
            and(
                bin(BinaryOp::Equal, col(1, Integer), col(2, Integer)),
                bin(
                    BinaryOp::Greater,
                    cast(bin(BinaryOp::Add, col(0, Integer), col(2, Integer)), Real),
                    col(3, Real),
                ),
            ),
        ),
    );
    let optimized = optimize(plan, &catalog);
    let PlanKind::HashJoin {
        left,
        right,
        kind: JoinKind::Inner,
        left_keys,
        right_keys,
        residual,
    } = &optimized.kind
    else {
        panic!("expected a hash join at the top: {optimized:?}");
    };
    assert_eq!(left_keys, &vec![col(1, Integer)]);
    // Right-side columns are renumbered from the right input's start.
    assert_eq!(right_keys, &vec![col(0, Integer)]);
    assert!(residual.is_some(), "a + c > d spans both sides");
    let (left_predicate, left_input) = as_filter(left);
    assert_eq!(
        left_predicate,
        &bin(BinaryOp::Equal, col(0, Integer), int(1))
    );
    assert!(matches!(left_input.kind, PlanKind::Scan { .. }));
    let (right_predicate, _) = as_filter(right);
    assert_eq!(
        right_predicate,
        &bin(BinaryOp::Greater, col(1, Real), real(2.0))
    );
}

#[test]
fn left_join_keeps_null_extended_conjuncts_in_place() {
    let catalog = catalog();
    // SELECT * FROM t1 LEFT JOIN t2 ON a = c AND d > 5.0 AND b > 3 WHERE a = 1 AND d IS NULL
    let on = and(
        and(
            bin(BinaryOp::Equal, col(0, Integer), col(2, Integer)),
            bin(BinaryOp::Greater, col(3, Real), real(5.0)),
        ),
        bin(BinaryOp::Greater, col(1, Integer), int(3)),
    );
    let where_clause = and(
        bin(BinaryOp::Equal, col(0, Integer), int(1)),
        Expr::IsNull {
            operand: Box::new(col(3, Real)),
            negated: false,
        },
    );
    let plan = filter(
        join(
            scan(&catalog, "t1"),
            scan(&catalog, "t2"),
            JoinKind::Left,
            Some(on),
        ),
        where_clause,
    );
    let optimized = optimize(plan, &catalog);
    // `d IS NULL` reads the NULL-extended side: it stays above the join.
    let (above, join) = as_filter(&optimized);
    assert!(matches!(above, Expr::IsNull { .. }));
    let PlanKind::HashJoin {
        left,
        right,
        kind: JoinKind::Left,
        left_keys,
        right_keys,
        residual,
    } = &join.kind
    else {
        panic!("expected a left hash join: {join:?}");
    };
    assert_eq!(left_keys, &vec![col(0, Integer)]);
    assert_eq!(right_keys, &vec![col(0, Integer)]);
    // `b > 3` is an ON conjunct on the preserved side: filtering the left input would drop
    // rows the LEFT JOIN must keep, so it stays in the join.
    assert_eq!(
        residual,
        &Some(bin(BinaryOp::Greater, col(1, Integer), int(3)))
    );
    // WHERE a = 1 goes into the left input, ON d > 5 into the right input (renumbered).
    assert_eq!(
        as_filter(left).0,
        &bin(BinaryOp::Equal, col(0, Integer), int(1))
    );
    assert_eq!(
        as_filter(right).0,
        &bin(BinaryOp::Greater, col(1, Real), real(5.0))
    );
}

#[test]
fn full_join_moves_nothing() {
    let catalog = catalog();
    let plan = filter(
        join(
            scan(&catalog, "t1"),
            scan(&catalog, "t2"),
            JoinKind::Full,
            Some(and(
                bin(BinaryOp::Equal, col(0, Integer), col(2, Integer)),
                bin(BinaryOp::Greater, col(3, Real), real(5.0)),
            )),
        ),
        bin(BinaryOp::Equal, col(0, Integer), int(1)),
    );
    let optimized = optimize(plan, &catalog);
    let (_, join) = as_filter(&optimized);
    let PlanKind::HashJoin {
        left,
        right,
        residual,
        ..
    } = &join.kind
    else {
        panic!("expected a hash join: {join:?}");
    };
    assert!(residual.is_some());
    assert!(matches!(left.kind, PlanKind::Scan { .. }));
    assert!(matches!(right.kind, PlanKind::Scan { .. }));
}

#[test]
fn hash_keys_need_equal_types() {
    let catalog = catalog();
    // The binder's form, CAST(a AS real) = d, is a key; a raw integer = real is not.
    let keyed = join(
        scan(&catalog, "t1"),
        scan(&catalog, "t2"),
        JoinKind::Inner,
        Some(bin(
            BinaryOp::Equal,
            cast(col(0, Integer), Real),
            col(3, Real),
        )),
    );
    let PlanKind::HashJoin {
        left_keys,
        right_keys,
        ..
    } = optimize(keyed, &catalog).kind
    else {
        panic!("expected a hash join");
    };
    assert_eq!(left_keys, vec![cast(col(0, Integer), Real)]);
    assert_eq!(right_keys, vec![col(1, Real)]);

    let mixed = join(
        scan(&catalog, "t1"),
        scan(&catalog, "t2"),
        JoinKind::Inner,
        Some(bin(BinaryOp::Equal, col(0, Integer), col(3, Real))),
    );
    assert!(matches!(
        optimize(mixed, &catalog).kind,
        PlanKind::NestedLoopJoin {
            condition: Some(_),
            ..
        }
    ));
}

#[test]
fn subquery_conjuncts_stay_put() {
    let catalog = catalog();
    let exists = Expr::Exists {
        plan: Box::new(PlanNode {
            kind: PlanKind::SingleRow,
            schema: Vec::new(),
        }),
        negated: false,
    };
    let plan = filter(
        join(
            scan(&catalog, "t1"),
            scan(&catalog, "t2"),
            JoinKind::Inner,
            None,
        ),
        and(
            exists.clone(),
            bin(BinaryOp::Equal, col(0, Integer), int(1)),
        ),
    );
    let optimized = optimize(plan, &catalog);
    let (above, join) = as_filter(&optimized);
    assert_eq!(above, &exists);
    assert!(matches!(
        join.kind,
        PlanKind::NestedLoopJoin {
            condition: None,
            ..
        }
    ));
}

#[test]
fn row_id_comparisons_bound_the_table_scan() {
    let catalog = catalog();
    let predicate = and(
        bin(BinaryOp::GreaterOrEqual, col(0, Integer), int(5)),
        bin(BinaryOp::Greater, int(10), col(0, Integer)),
    );
    let optimized = optimize(filter(scan(&catalog, "t3"), predicate.clone()), &catalog);
    // Row ids are never NULL and the bounds are integers: the range is exact, no filter.
    assert_eq!(
        optimized.kind,
        PlanKind::Scan {
            table: catalog.tables["t3"].clone(),
            columns: (0..4).map(ScanColumn::Column).collect(),
            access: AccessPath::RowIdRange {
                lower: RangeBound::Included(vec![int(5)]),
                upper: RangeBound::Excluded(vec![int(10)]),
            },
            reverse: false,
        }
    );

    // Equality with a parameter: a point range (a NULL parameter is handled at run time).
    let param = Expr::Parameter {
        index: 0,
        data_type: Integer,
    };
    let optimized = optimize(
        filter(
            scan(&catalog, "t3"),
            bin(BinaryOp::Equal, col(0, Integer), param.clone()),
        ),
        &catalog,
    );
    let PlanKind::Scan {
        access: AccessPath::RowIdRange { lower, upper },
        ..
    } = &optimized.kind
    else {
        panic!("expected a row-id range scan");
    };
    assert_eq!(lower, &RangeBound::Included(vec![param.clone()]));
    assert_eq!(upper, &RangeBound::Included(vec![param]));

    // With a second lower bound, the one not used stays in the filter.
    let predicate = and(
        bin(BinaryOp::Greater, col(0, Integer), int(5)),
        bin(BinaryOp::Greater, col(0, Integer), int(7)),
    );
    let optimized = optimize(filter(scan(&catalog, "t3"), predicate), &catalog);
    let (kept, input) = as_filter(&optimized);
    assert_eq!(kept, &bin(BinaryOp::Greater, col(0, Integer), int(7)));
    assert!(matches!(
        &input.kind,
        PlanKind::Scan {
            access: AccessPath::RowIdRange { lower: RangeBound::Excluded(low), .. },
            ..
        } if low == &vec![int(5)]
    ));
}

#[test]
fn real_bounds_never_reach_the_integer_row_id() {
    let catalog = catalog();
    for predicate in [
        // The binder's form of `id < 2.5`.
        bin(BinaryOp::Less, cast(col(0, Integer), Real), real(2.5)),
        // A hand-built mismatch.
        bin(BinaryOp::Less, col(0, Integer), real(2.5)),
    ] {
        let optimized = optimize(filter(scan(&catalog, "t3"), predicate), &catalog);
        assert!(is_full_scan(as_filter(&optimized).1));
    }
}

#[test]
fn index_prefix_equality_then_range() {
    let catalog = catalog();
    // x = 3 AND y > 'b' on index (x, y).
    let predicate = and(
        bin(BinaryOp::Equal, col(1, Integer), int(3)),
        bin(BinaryOp::Greater, col(2, Text(None)), text("b")),
    );
    let optimized = optimize(filter(scan(&catalog, "t3"), predicate), &catalog);
    let (kept, input) = as_filter(&optimized);
    // The integer equality is exact and leaves the filter; a one-sided range leaves it only
    // on a NOT NULL column, so `y > 'b'` stays.
    assert_eq!(kept, &bin(BinaryOp::Greater, col(2, Text(None)), text("b")));
    let (index, lower, upper) = index_range(input);
    assert_eq!(index.name, "t3_xy");
    assert_eq!(lower, &RangeBound::Excluded(vec![int(3), text("b")]));
    assert_eq!(upper, &RangeBound::Included(vec![int(3)]));

    // A range on the second column alone cannot use (x, y).
    let optimized = optimize(
        filter(
            scan(&catalog, "t3"),
            bin(BinaryOp::Greater, col(2, Text(None)), text("b")),
        ),
        &catalog,
    );
    assert!(is_full_scan(as_filter(&optimized).1));
}

#[test]
fn descending_index_swaps_range_ends() {
    let catalog = catalog();
    // r >= 1.5 on an index (r DESC): larger values come first, so the value's lower bound
    // is the key range's upper end.
    let optimized = optimize(
        filter(
            scan(&catalog, "t3"),
            bin(BinaryOp::GreaterOrEqual, col(3, Real), real(1.5)),
        ),
        &catalog,
    );
    let (index, lower, upper) = index_range(as_filter(&optimized).1);
    assert_eq!(index.name, "t3_r");
    assert_eq!(lower, &RangeBound::Unbounded);
    assert_eq!(upper, &RangeBound::Included(vec![real(1.5)]));

    // An integer bound on the real column would encode with the wrong tag: no index.
    let optimized = optimize(
        filter(
            scan(&catalog, "t3"),
            bin(BinaryOp::GreaterOrEqual, col(3, Real), int(1)),
        ),
        &catalog,
    );
    assert!(is_full_scan(as_filter(&optimized).1));
}

#[test]
fn row_id_equality_beats_index_equality() {
    let catalog = catalog();
    let optimized = optimize(
        filter(
            scan(&catalog, "t3"),
            and(
                bin(BinaryOp::Equal, col(1, Integer), int(3)),
                bin(BinaryOp::Equal, col(0, Integer), int(7)),
            ),
        ),
        &catalog,
    );
    assert!(matches!(
        as_filter(&optimized).1.kind,
        PlanKind::Scan {
            access: AccessPath::RowIdRange {
                lower: RangeBound::Included(_),
                ..
            },
            ..
        }
    ));
}

#[test]
fn filters_move_through_projections_and_sorts() {
    let catalog = catalog();
    // SELECT * FROM (SELECT x + 1 AS v, id FROM t3 ORDER BY id) WHERE id = 4 AND v > 2
    let sorted = PlanNode {
        schema: scan(&catalog, "t3").schema,
        kind: PlanKind::Sort {
            input: Box::new(scan(&catalog, "t3")),
            keys: vec![crate::plan::SortKey {
                expr: col(0, Integer),
                descending: false,
                nulls_first: false,
            }],
        },
    };
    let project = PlanNode {
        schema: vec![
            OutputColumn {
                name: "v".into(),
                table: None,
                data_type: Integer,
                source: None,
            },
            OutputColumn {
                name: "id".into(),
                table: None,
                data_type: Integer,
                source: None,
            },
        ],
        kind: PlanKind::Project {
            input: Box::new(sorted),
            exprs: vec![bin(BinaryOp::Add, col(1, Integer), int(1)), col(0, Integer)],
        },
    };
    let plan = filter(
        project,
        and(
            bin(BinaryOp::Equal, col(1, Integer), int(4)),
            bin(BinaryOp::Greater, col(0, Integer), int(2)),
        ),
    );
    let optimized = optimize(plan, &catalog);
    let PlanKind::Project { input, .. } = &optimized.kind else {
        panic!("expected the projection on top: {optimized:?}");
    };
    // The sort on the row id is gone: the (narrowed) table scan delivers that order.
    let (_, scan) = as_filter(input);
    assert!(matches!(
        scan.kind,
        PlanKind::Scan {
            access: AccessPath::RowIdRange {
                lower: RangeBound::Included(_),
                ..
            },
            reverse: false,
            ..
        }
    ));
}

#[test]
fn in_lists_become_seeks_on_the_row_id_or_an_index() {
    let catalog = catalog();
    let in_list = |column: Expr, values: Vec<Expr>| Expr::InList {
        operand: Box::new(column),
        list: values,
        negated: false,
    };
    // On the row id: seeks by row id, every conjunct kept in the filter above.
    let predicate = in_list(col(0, Integer), vec![int(7), int(3), int(7)]);
    let optimized = optimize(filter(scan(&catalog, "t3"), predicate.clone()), &catalog);
    let (kept, input) = as_filter(&optimized);
    assert_eq!(kept, &predicate);
    let PlanKind::Scan {
        access: AccessPath::Seeks { index: None, keys },
        reverse: false,
        ..
    } = &input.kind
    else {
        panic!("expected row-id seeks: {input:?}");
    };
    assert_eq!(keys, &vec![int(7), int(3), int(7)]);

    // On an index's first column: seeks through that index.
    let optimized = optimize(
        filter(
            scan(&catalog, "t3"),
            in_list(col(1, Integer), vec![int(1), int(2)]),
        ),
        &catalog,
    );
    let PlanKind::Scan {
        access: AccessPath::Seeks {
            index: Some(index),
            keys,
        },
        ..
    } = &as_filter(&optimized).1.kind
    else {
        panic!("expected index seeks");
    };
    assert_eq!(index.name, "t3_xy");
    assert_eq!(keys.len(), 2);

    // On a column no index leads with, or with a value of another type: a full scan.
    for predicate in [
        in_list(col(2, Text(None)), vec![text("a")]),
        in_list(col(1, Integer), vec![int(1), real(2.5)]),
        Expr::InList {
            operand: Box::new(col(0, Integer)),
            list: vec![int(1)],
            negated: true,
        },
    ] {
        let optimized = optimize(filter(scan(&catalog, "t3"), predicate), &catalog);
        assert!(is_full_scan(as_filter(&optimized).1));
    }
}
