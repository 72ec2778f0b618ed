//! Operators under a tiny memory budget (4 KiB) against the same operators with an unbounded
//! one: every spilling path (sort runs and multi-pass merges, aggregation partitions,
//! grace join pairs, DISTINCT and set-operation partitions, recursion) must give exactly
//! the in-memory result — the same rows in the same order for sorts, the same multiset for
//! operators whose output order SQL leaves unspecified.

use std::collections::VecDeque;

use crate::exec::batch::Batch;
use crate::exec::context::ExecContext;
use crate::exec::spill::{PARTITION_COUNT, SpillStats};
use crate::plan::{
    AggregateCall, AggregateFunction, BinaryOp, Expr, JoinKind, SetOperator, SortKey,
};
use crate::sqlstate;
use crate::storage::keys::KeyOrder;
use crate::types::{DataType, Value};

use super::aggregate::HashAggregate;
use super::external_sort::Sorter;
use super::hash_join::HashJoin;
use super::setop::SetOperation;
use super::sort::{Sort, TopN};
use super::{Operator, Replay, collect};

const TINY: usize = 4 << 10;

/// A deterministic pseudo-random sequence (so failures reproduce).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }

    fn maybe(&mut self, one_in: u64, value: Value) -> Value {
        if self.below(one_in) == 0 {
            Value::Null
        } else {
            value
        }
    }
}

/// id, g (few values: many ties), s, b, r, d, f — with NULLs in all but id.
const TYPES: [DataType; 7] = [
    DataType::Integer,
    DataType::Integer,
    DataType::Text(None),
    DataType::Blob,
    DataType::Real,
    DataType::Date,
    DataType::Boolean,
];

fn table_rows(count: usize, seed: u64) -> Vec<Vec<Value>> {
    let mut rng = Lcg(seed);
    (0..count)
        .map(|id| {
            let g = Value::Integer(rng.below(60) as i64);
            let text = format!("s{}{}", rng.below(40), "x".repeat(rng.below(30) as usize));
            let blob: Vec<u8> = (0..rng.below(20)).map(|_| rng.below(256) as u8).collect();
            let real = Value::Real(rng.below(1000) as f64 / 8.0 - 50.0);
            let date = Value::Date(rng.below(3000) as i32 - 1000);
            let flag = Value::Boolean(rng.below(2) == 0);
            vec![
                Value::Integer(id as i64),
                rng.maybe(10, g),
                rng.maybe(8, Value::Text(text)),
                rng.maybe(6, Value::Blob(blob)),
                rng.maybe(9, real),
                date,
                rng.maybe(10, flag),
            ]
        })
        .collect()
}

/// Rows as batches of irregular sizes (1 to 700 rows).
fn batches(rows: &[Vec<Value>], types: &[DataType], seed: u64) -> VecDeque<Batch> {
    let mut rng = Lcg(seed);
    let mut out = VecDeque::new();
    let mut rest = rows;
    while !rest.is_empty() {
        let size = (1 + rng.below(700) as usize).min(rest.len());
        let mut batch = Batch::with_types(types, size);
        for row in &rest[..size] {
            batch.push_row(row);
        }
        out.push_back(batch);
        rest = &rest[size..];
    }
    out
}

fn input(rows: &[Vec<Value>], types: &[DataType]) -> Box<dyn Operator> {
    Box::new(Replay(batches(rows, types, rows.len() as u64)))
}

fn run(operator: &mut dyn Operator, ctx: &ExecContext) -> Vec<Vec<Value>> {
    collect(operator, ctx)
        .unwrap()
        .iter()
        .flat_map(|batch| (0..batch.rows).map(|row| batch.row(row)))
        .collect()
}

/// Runs the operator `make` builds with an unbounded and with a tiny budget: (unbounded
/// result, tiny-budget result, what the tiny run spilled).
fn both_budgets(
    make: impl Fn(&ExecContext) -> Box<dyn Operator>,
) -> (Vec<Vec<Value>>, Vec<Vec<Value>>, SpillStats) {
    let unbounded = ExecContext::for_tests(usize::MAX);
    let expected = run(make(&unbounded).as_mut(), &unbounded);
    assert!(unbounded.spilled.get().is_empty());
    let tiny = ExecContext::for_tests(TINY);
    let actual = run(make(&tiny).as_mut(), &tiny);
    (expected, actual, tiny.spilled.get())
}

fn sorted(mut rows: Vec<Vec<Value>>) -> Vec<Vec<Value>> {
    rows.sort_by_cached_key(|row| format!("{row:?}"));
    rows
}

fn column(index: usize, data_type: DataType) -> Expr {
    Expr::Column { index, data_type }
}

fn literal(value: Value, data_type: DataType) -> Expr {
    Expr::Literal { value, data_type }
}

fn sort_key(index: usize, descending: bool, nulls_first: bool) -> SortKey {
    SortKey {
        expr: column(index, TYPES[index]),
        descending,
        nulls_first,
    }
}

#[test]
fn external_sort_gives_the_in_memory_order_ties_included() {
    let rows = table_rows(6000, 1);
    let key_sets = [
        vec![sort_key(1, false, false)],
        vec![sort_key(2, true, true), sort_key(4, false, false)],
        vec![sort_key(3, false, true)],
        vec![sort_key(6, true, false), sort_key(5, false, false)],
    ];
    for keys in key_sets {
        let (expected, actual, spilled) = both_budgets(|_| {
            Box::new(Sort::new(
                input(&rows, &TYPES),
                keys.clone(),
                TYPES.to_vec(),
            ))
        });
        assert_eq!(expected.len(), rows.len());
        assert!(actual == expected, "order differs for keys {keys:?}");
        assert!(spilled.bytes > 0 && spilled.files >= 2, "{spilled:?}");
    }
    // Stability: ties on g keep input (id) order.
    let (sorted_by_g, _, _) = both_budgets(|_| {
        Box::new(Sort::new(
            input(&rows, &TYPES),
            vec![sort_key(1, false, false)],
            TYPES.to_vec(),
        ))
    });
    for pair in sorted_by_g.windows(2) {
        if pair[0][1] == pair[1][1] {
            assert!(
                matches!((&pair[0][0], &pair[1][0]), (Value::Integer(a), Value::Integer(b)) if a < b)
            );
        }
    }
}

#[test]
fn many_runs_merge_in_passes_and_stay_stable() {
    let ctx = ExecContext::for_tests(1);
    let types = [DataType::Integer, DataType::Integer];
    let mut sorter = Sorter::new(types.to_vec(), 1);
    let mut rng = Lcg(7);
    let mut sequence = 0;
    // 300 one-to-five-row runs: far more than one merge takes, so merging needs passes.
    for _ in 0..300 {
        let mut batch = Batch::with_types(&types, 5);
        for _ in 0..=rng.below(5) {
            let key = rng.below(20) as i64;
            batch.push_row(&[Value::Integer(key), Value::Integer(sequence)]);
            sequence += 1;
        }
        let keys = batch.columns[0].clone();
        sorter
            .push(
                batch,
                |row, out| crate::exec::row_key::encode_cell(&keys, row, KeyOrder::ASC, out),
                &ctx,
            )
            .unwrap();
    }
    let mut output = sorter.finish(&ctx).unwrap();
    let mut rows = Vec::new();
    while let Some(batch) = output.next_batch(&ctx).unwrap() {
        rows.extend((0..batch.rows).map(|row| batch.row(row)));
    }
    assert_eq!(rows.len() as i64, sequence);
    for pair in rows.windows(2) {
        let (Value::Integer(k1), Value::Integer(s1)) = (&pair[0][0], &pair[0][1]) else {
            panic!("{pair:?}")
        };
        let (Value::Integer(k2), Value::Integer(s2)) = (&pair[1][0], &pair[1][1]) else {
            panic!("{pair:?}")
        };
        assert!(k1 < k2 || (k1 == k2 && s1 < s2), "{pair:?}");
    }
    // 300 runs in one file, merged 8 at a time: the run file, then a file per pass.
    assert!(ctx.spilled.get().files >= 3, "{:?}", ctx.spilled.get());
}

#[test]
fn top_n_with_a_huge_limit_sorts_externally() {
    let rows = table_rows(5000, 2);
    let keys = vec![sort_key(1, true, false), sort_key(2, false, true)];
    let full = |ctx: &ExecContext| {
        run(
            &mut Sort::new(input(&rows, &TYPES), keys.clone(), TYPES.to_vec()),
            ctx,
        )
    };
    let reference = full(&ExecContext::for_tests(usize::MAX));
    for (limit, offset) in [(Some(4000), 7), (None, 123), (Some(10), 4990), (Some(3), 0)] {
        let (expected, actual, spilled) = both_budgets(|ctx| {
            let limit = literal(limit.map_or(Value::Null, Value::Integer), DataType::Integer);
            let offset = literal(Value::Integer(offset), DataType::Integer);
            Box::new(
                TopN::new(
                    input(&rows, &TYPES),
                    keys.clone(),
                    &limit,
                    Some(&offset),
                    TYPES.to_vec(),
                    ctx,
                )
                .unwrap(),
            )
        });
        let window: Vec<_> = reference
            .iter()
            .skip(offset as usize)
            .take(limit.map_or(usize::MAX, |limit| limit as usize))
            .cloned()
            .collect();
        assert!(expected == window, "limit {limit:?} offset {offset}");
        assert!(actual == window, "limit {limit:?} offset {offset}");
        // Small limits keep a few rows in a heap, whatever the budget.
        assert_eq!(
            spilled.is_empty(),
            limit == Some(3),
            "{limit:?}: {spilled:?}"
        );
    }
}

fn call(
    function: AggregateFunction,
    args: Vec<Expr>,
    distinct: bool,
    filter: Option<Expr>,
    data_type: DataType,
) -> AggregateCall {
    AggregateCall {
        function,
        args,
        distinct,
        filter,
        order_by: Vec::new(),
        direct_args: Vec::new(),
        data_type,
    }
}

#[test]
fn partitioned_aggregation_gives_the_in_memory_groups() {
    use AggregateFunction::*;
    let rows = table_rows(6000, 3);
    let col = |index: usize| column(index, TYPES[index]);
    let aggregates = vec![
        call(CountStar, vec![], false, None, DataType::Integer),
        call(Count, vec![col(2)], false, None, DataType::Integer),
        call(Sum, vec![col(0)], false, None, DataType::Integer),
        call(Avg, vec![col(4)], false, None, DataType::Real),
        call(Total, vec![col(4)], false, None, DataType::Real),
        call(Min, vec![col(2)], false, None, DataType::Text(None)),
        call(Max, vec![col(3)], false, None, DataType::Blob),
        call(Min, vec![col(5)], false, None, DataType::Date),
        call(
            StringAgg,
            vec![
                col(2),
                literal(Value::Text("|".into()), DataType::Text(None)),
            ],
            false,
            None,
            DataType::Text(None),
        ),
        call(Count, vec![col(2)], true, None, DataType::Integer),
        call(Sum, vec![col(0)], false, Some(col(6)), DataType::Integer),
        call(BoolAnd, vec![col(6)], false, None, DataType::Boolean),
        // string_agg(c2, '|' ORDER BY c0 DESC, c2 NULLS FIRST): held per group, then sorted.
        AggregateCall {
            order_by: vec![sort_key(0, true, false), sort_key(2, false, true)],
            ..call(
                StringAgg,
                vec![
                    col(2),
                    literal(Value::Text("|".into()), DataType::Text(None)),
                ],
                false,
                None,
                DataType::Text(None),
            )
        },
    ];
    let groupings: [&[usize]; 4] = [&[1], &[1, 2], &[0], &[]];
    for grouping in groupings {
        let group_by: Vec<Expr> = grouping.iter().map(|&index| col(index)).collect();
        let types: Vec<DataType> = grouping
            .iter()
            .map(|&index| TYPES[index])
            .chain(aggregates.iter().map(|call| call.data_type))
            .collect();
        let (expected, actual, spilled) = both_budgets(|_| {
            Box::new(HashAggregate::new(
                input(&rows, &TYPES),
                group_by.clone(),
                aggregates.clone(),
                types.clone(),
                TYPES.to_vec(),
            ))
        });
        assert!(!expected.is_empty());
        assert!(sorted(actual) == sorted(expected), "GROUP BY {grouping:?}");
        // Without GROUP BY there is one group: nothing to divide.
        assert_eq!(spilled.is_empty(), grouping.is_empty(), "{grouping:?}");
    }
}

#[test]
fn partitions_that_are_still_too_big_are_divided_again() {
    // 40,000 groups: each of the 16 first-level partitions holds about 2,500 of them, more
    // than a batch, so they outgrow the budget again and are divided with another seed.
    let rows = table_rows(40_000, 13);
    let aggregates = vec![
        call(
            AggregateFunction::CountStar,
            vec![],
            false,
            None,
            DataType::Integer,
        ),
        call(
            AggregateFunction::Max,
            vec![column(2, DataType::Text(None))],
            false,
            None,
            DataType::Text(None),
        ),
    ];
    let (expected, actual, spilled) = both_budgets(|_| {
        Box::new(HashAggregate::new(
            input(&rows, &TYPES),
            vec![column(0, DataType::Integer)],
            aggregates.clone(),
            vec![DataType::Integer, DataType::Integer, DataType::Text(None)],
            TYPES.to_vec(),
        ))
    });
    assert_eq!(expected.len(), rows.len());
    assert!(sorted(actual) == sorted(expected));
    assert!(spilled.files > 2 * PARTITION_COUNT as u64, "{spilled:?}");
}

/// Rows of (g, t) with many duplicates and NULLs, for DISTINCT and set operations.
fn pair_rows(count: usize, seed: u64, keys: u64) -> Vec<Vec<Value>> {
    let mut rng = Lcg(seed);
    (0..count)
        .map(|_| {
            let g = Value::Integer(rng.below(keys) as i64);
            let t = Value::Text(
                ["a", "bb", "ccc", "a longer text value"][rng.below(4) as usize].into(),
            );
            vec![rng.maybe(15, g), rng.maybe(12, t)]
        })
        .collect()
}

const PAIR_TYPES: [DataType; 2] = [DataType::Integer, DataType::Text(None)];

#[test]
fn distinct_and_set_operations_spill_by_partition() {
    let left = pair_rows(5000, 4, 400);
    let right_cases = [pair_rows(3000, 5, 600), pair_rows(20, 6, 600)];
    let (expected, actual, spilled) = both_budgets(|ctx| {
        Box::new(SetOperation::distinct(
            input(&left, &PAIR_TYPES),
            PAIR_TYPES.to_vec(),
            ctx.operator_memory,
        ))
    });
    assert!(sorted(actual) == sorted(expected.clone()));
    assert!(!spilled.is_empty());
    assert!(
        expected.len() > 1000 && expected.len() < 2500,
        "{}",
        expected.len()
    );
    for right in &right_cases {
        for operator in [
            SetOperator::Union,
            SetOperator::Intersect,
            SetOperator::Except,
        ] {
            for all in [false, true] {
                let (expected, actual, spilled) = both_budgets(|ctx| {
                    Box::new(SetOperation::new(
                        input(&left, &PAIR_TYPES),
                        input(right, &PAIR_TYPES),
                        operator,
                        all,
                        PAIR_TYPES.to_vec(),
                        ctx.operator_memory,
                    ))
                });
                let case = format!("{operator:?} all={all} right={}", right.len());
                assert!(!expected.is_empty(), "{case}");
                assert!(sorted(actual) == sorted(expected), "{case}");
                // UNION ALL keeps no table; INTERSECT ALL with a small right side keeps only
                // the right side's keys; everything else outgrows 4 KiB.
                let keeps_little = (operator == SetOperator::Union && all)
                    || (operator == SetOperator::Intersect && right.len() < 100)
                    || (operator == SetOperator::Except && all && right.len() < 100);
                assert_eq!(spilled.is_empty(), keeps_little, "{case}: {spilled:?}");
            }
        }
    }
}

/// Join inputs: (k, payload, text-or-blob), keys partly overlapping, NULL keys on both sides.
fn join_rows(count: usize, seed: u64, low: u64, high: u64, blob: bool) -> Vec<Vec<Value>> {
    let mut rng = Lcg(seed);
    (0..count)
        .map(|index| {
            let key = Value::Integer((low + rng.below(high - low)) as i64);
            let bytes: Vec<u8> = (0..rng.below(12)).map(|_| rng.below(256) as u8).collect();
            let third = if blob {
                Value::Blob(bytes)
            } else {
                Value::Text(format!("t{}", bytes.len()))
            };
            vec![
                rng.maybe(20, key),
                Value::Integer(index as i64),
                rng.maybe(7, third),
            ]
        })
        .collect()
}

const LEFT_TYPES: [DataType; 3] = [DataType::Integer, DataType::Integer, DataType::Text(None)];
const RIGHT_TYPES: [DataType; 3] = [DataType::Integer, DataType::Integer, DataType::Blob];

fn hash_join(
    left: &[Vec<Value>],
    right: &[Vec<Value>],
    kind: JoinKind,
    residual: Option<Expr>,
) -> Box<dyn Operator> {
    Box::new(HashJoin::new(
        input(left, &LEFT_TYPES),
        input(right, &RIGHT_TYPES),
        kind,
        vec![column(0, DataType::Integer)],
        vec![column(0, DataType::Integer)],
        residual,
        LEFT_TYPES.to_vec(),
        RIGHT_TYPES.to_vec(),
    ))
}

#[test]
fn grace_hash_join_gives_the_in_memory_rows_for_every_kind() {
    let left = join_rows(3000, 8, 0, 500, false);
    let right = join_rows(2500, 9, 250, 750, true);
    // Left payload < right payload: pairs the residual rejects.
    let residual = Expr::Binary {
        op: BinaryOp::Less,
        left: Box::new(column(1, DataType::Integer)),
        right: Box::new(column(4, DataType::Integer)),
        data_type: DataType::Boolean,
    };
    let kinds = [
        JoinKind::Inner,
        JoinKind::Left,
        JoinKind::Right,
        JoinKind::Full,
        JoinKind::Semi,
        JoinKind::Anti,
    ];
    for kind in kinds {
        for residual in [None, Some(residual.clone())] {
            let case = format!("{kind:?} residual={}", residual.is_some());
            let (expected, actual, spilled) =
                both_budgets(|_| hash_join(&left, &right, kind, residual.clone()));
            assert!(!expected.is_empty(), "{case}");
            assert!(sorted(actual) == sorted(expected), "{case}");
            assert!(spilled.files > 16, "{case}: {spilled:?}");
        }
    }
}

#[test]
fn grace_hash_join_with_one_huge_key_stops_dividing() {
    // Every right row has key 7: dividing again cannot help, so the pair is joined in memory.
    let left = join_rows(300, 10, 0, 20, false);
    let right: Vec<Vec<Value>> = join_rows(2000, 11, 0, 1, true)
        .into_iter()
        .map(|mut row| {
            row[0] = Value::Integer(7);
            row
        })
        .collect();
    for kind in [JoinKind::Inner, JoinKind::Right, JoinKind::Anti] {
        let (expected, actual, spilled) = both_budgets(|_| hash_join(&left, &right, kind, None));
        assert!(sorted(actual) == sorted(expected), "{kind:?}");
        assert!(!spilled.is_empty(), "{kind:?}");
        // Divided twice at most: the first level, then one try that shows no progress.
        assert!(spilled.files <= 2 * 2 * 16, "{kind:?}: {spilled:?}");
    }
}

#[test]
fn spill_errors_are_sqlstate_errors() {
    let mut ctx = ExecContext::for_tests(TINY);
    ctx.spill_directory = Some(std::sync::Arc::new("/nonexistent/basalt-spill-test".into()));
    let rows = table_rows(3000, 12);
    let mut sort = Sort::new(
        input(&rows, &TYPES),
        vec![sort_key(1, false, false)],
        TYPES.to_vec(),
    );
    let error = collect(&mut sort, &ctx).unwrap_err();
    assert_eq!(error.code, sqlstate::IO_ERROR, "{error}");
}

#[test]
fn work_mem_is_a_session_setting_and_explain_analyze_shows_spilling() {
    let db = crate::Database::open_in_memory().unwrap();
    let conn = db.connect();
    conn.execute("CREATE TABLE t(a INTEGER, b TEXT)", ())
        .unwrap();
    conn.execute("BEGIN", ()).unwrap();
    for a in 0..20_000i64 {
        conn.execute(
            "INSERT INTO t VALUES (?, ?)",
            ((a * 7_919) % 20_011, format!("b{}", a % 101)),
        )
        .unwrap();
    }
    conn.execute("COMMIT", ()).unwrap();
    let show = |conn: &crate::Connection| -> String {
        conn.query_row("SHOW work_mem", (), |row| row.get(0))
            .unwrap()
    };
    let query = "SELECT a, b FROM t ORDER BY b, a";
    let rows = |conn: &crate::Connection| {
        let mut statement = conn.prepare(query).unwrap();
        statement
            .query(())
            .unwrap()
            .map(|row| Ok((row.get::<i64>(0)?, row.get::<String>(1)?)))
            .unwrap()
    };
    let explain = |conn: &crate::Connection| -> Vec<String> {
        let mut statement = conn.prepare(&format!("EXPLAIN ANALYZE {query}")).unwrap();
        statement
            .query(())
            .unwrap()
            .map(|row| row.get::<String>(0))
            .unwrap()
    };
    assert_eq!(show(&conn), "64MB");
    let in_memory = rows(&conn);
    assert!(!explain(&conn).iter().any(|line| line.contains("spilled=")));

    conn.execute("SET work_mem = '64kB'", ()).unwrap();
    assert_eq!(show(&conn), "64kB");
    assert_eq!(rows(&conn), in_memory);
    let plan = explain(&conn);
    let sort_line = plan.iter().find(|line| line.contains("Sort")).unwrap();
    assert!(sort_line.contains("spilled="), "{plan:?}");
    // Only the operator that spilled reports it, not the ones above or below.
    assert_eq!(
        plan.iter().filter(|line| line.contains("spilled=")).count(),
        1
    );

    conn.execute("PRAGMA work_mem = 2048", ()).unwrap();
    assert_eq!(show(&conn), "2MB");
    for bad in ["'lots'", "'1kB'", "'-5MB'"] {
        let error = conn
            .execute(&format!("SET work_mem = {bad}"), ())
            .unwrap_err();
        assert_eq!(error.code(), "22023", "{bad}: {error}");
    }
    assert_eq!(show(&conn), "2MB");
    // Other connections keep the database's default.
    assert_eq!(show(&db.connect()), "64MB");
}
