//! Binder tests: bound shapes and types for every feature, every error code, and a smoke
//! test over the sqllogictest corpus.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::catalog::{Catalog, IndexDef, IndexMethod, TableDef, ViewDef};
use crate::plan::ddl::DdlStatement;
use crate::plan::expr::{AggregateFunction, BinaryOp, Expr};
use crate::plan::{BoundStatement, ConflictAction, JoinKind, PlanKind, PlanNode, ScanColumn};
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::{BindError, bind};

/// Binds `sql` against `catalog`.
fn try_bind(sql: &str, catalog: &Catalog) -> Result<crate::plan::Bound, BindError> {
    let statement = crate::sql::parse_one(sql)
        .map_err(|e| BindError::new(sqlstate::SYNTAX_ERROR, e.to_string()))?;
    bind(&statement, catalog)
}

/// Adds the table a CREATE TABLE declares (or the view / index) to `catalog`.
fn apply_ddl(catalog: &mut Catalog, ddl: DdlStatement) {
    match ddl {
        DdlStatement::CreateTable(create) => {
            let table = TableDef {
                name: create.name.clone(),
                slot_count: create.columns.len(),
                columns: create.columns,
                root: 100 + catalog.tables.len() as u32,
                row_id_column: create.row_id_column,
                primary_key: create.primary_key,
                checks: create.checks,
                foreign_keys: create.foreign_keys,
            };
            catalog
                .tables
                .insert(create.name.to_lowercase(), Arc::new(table));
        }
        DdlStatement::CreateView {
            name,
            column_names,
            query,
            ..
        } => {
            catalog.views.insert(
                name.to_lowercase(),
                Arc::new(ViewDef {
                    name,
                    column_names,
                    query,
                }),
            );
        }
        DdlStatement::CreateIndex(create) => {
            catalog.indexes.insert(
                create.name.to_lowercase(),
                Arc::new(IndexDef {
                    name: create.name,
                    table: create.table,
                    columns: create.columns,
                    unique: create.unique,
                    method: IndexMethod::BTree,
                    root: 500,
                    implicit: false,
                    options: Vec::new(),
                }),
            );
        }
        DdlStatement::Drop { names, .. } => {
            for name in names {
                let key = name.to_lowercase();
                catalog
                    .indexes
                    .retain(|_, index| !index.table.eq_ignore_ascii_case(&key));
                catalog.tables.remove(&key);
                catalog.views.remove(&key);
                catalog.indexes.remove(&key);
            }
        }
        _ => {}
    }
}

fn catalog() -> Catalog {
    let mut catalog = Catalog::default();
    for sql in [
        "CREATE TABLE t1 (a INTEGER, b INTEGER, c TEXT, d REAL)",
        "CREATE TABLE t2 (a INTEGER PRIMARY KEY, x VARCHAR(10) NOT NULL, dt DATE DEFAULT '2020-01-01')",
        "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT UNIQUE, age INTEGER, flag BOOLEAN)",
        "CREATE VIEW v1 AS SELECT a, c FROM t1 WHERE a > 0",
    ] {
        let bound = try_bind(sql, &catalog).unwrap_or_else(|e| panic!("{sql}: {e}"));
        let BoundStatement::Ddl(ddl) = bound.statement else {
            panic!("{sql}: not DDL")
        };
        apply_ddl(&mut catalog, ddl);
    }
    catalog
}

fn plan(sql: &str) -> PlanNode {
    match try_bind(sql, &catalog())
        .unwrap_or_else(|e| panic!("{sql}: {e} ({})", e.code))
        .statement
    {
        BoundStatement::Query(plan) | BoundStatement::Modify(plan) => plan,
        other => panic!("{sql}: {other:?}"),
    }
}

fn error_code(sql: &str) -> &'static str {
    match try_bind(sql, &catalog()) {
        Ok(bound) => panic!("{sql}: bound unexpectedly: {bound:?}"),
        Err(error) => error.code.code(),
    }
}

fn input(node: &PlanNode) -> &PlanNode {
    match &node.kind {
        PlanKind::Filter { input, .. }
        | PlanKind::Project { input, .. }
        | PlanKind::Aggregate { input, .. }
        | PlanKind::Sort { input, .. }
        | PlanKind::Limit { input, .. }
        | PlanKind::Distinct { input }
        | PlanKind::DistinctOn { input, .. } => input,
        other => panic!("no single input: {other:?}"),
    }
}

fn project_exprs(node: &PlanNode) -> &[Expr] {
    match &node.kind {
        PlanKind::Project { exprs, .. } => exprs,
        other => panic!("not a projection: {other:?}"),
    }
}

fn names(node: &PlanNode) -> Vec<&str> {
    node.schema.iter().map(|c| c.name.as_str()).collect()
}

#[test]
fn select_where_project() {
    let node = plan("SELECT a + 1, c AS label, d * 2 FROM t1 WHERE b > 5");
    assert_eq!(names(&node), ["?column?", "label", "?column?"]);
    let exprs = project_exprs(&node);
    assert_eq!(exprs[0].data_type(), DataType::Integer);
    // integer * real: the integer literal is converted to real at bind time.
    assert_eq!(exprs[2].data_type(), DataType::Real);
    let filter = input(&node);
    let PlanKind::Filter {
        predicate,
        input: scan,
    } = &filter.kind
    else {
        panic!()
    };
    assert_eq!(predicate.data_type(), DataType::Boolean);
    let PlanKind::Scan { columns, .. } = &scan.kind else {
        panic!()
    };
    assert_eq!(columns, &[0, 1, 2, 3].map(ScanColumn::Column));
    assert_eq!(scan.schema[0].table.as_deref(), Some("t1"));
}

#[test]
fn mixed_arithmetic_casts_integer_side() {
    let node = plan("SELECT a + d FROM t1");
    let Expr::Binary {
        left, data_type, ..
    } = &project_exprs(&node)[0]
    else {
        panic!()
    };
    assert_eq!(*data_type, DataType::Real);
    assert!(matches!(
        left.as_ref(),
        Expr::Cast {
            to: DataType::Real,
            ..
        }
    ));
}

#[test]
fn unknown_literals_take_context_type() {
    let node = plan("SELECT * FROM t1 WHERE a = '5'");
    let PlanKind::Filter { predicate, .. } = &input(&node).kind else {
        panic!()
    };
    let Expr::Binary { right, .. } = predicate else {
        panic!()
    };
    assert_eq!(right.as_ref(), &Expr::literal(Value::Integer(5)));
    let node = plan("SELECT 'a', NULL, 1.5, 9223372036854775808");
    let types: Vec<_> = node.schema.iter().map(|c| c.data_type).collect();
    assert_eq!(
        types,
        [
            DataType::Text(None),
            DataType::Null,
            DataType::Numeric(None),
            DataType::Numeric(None)
        ]
    );
    assert!(matches!(input(&node).kind, PlanKind::SingleRow));
    // numeric op integer is numeric, numeric op double precision is double precision.
    let node = plan("SELECT 2 * 1.5, 1.5 * CAST(1 AS DOUBLE PRECISION), 1e300");
    let types: Vec<_> = node.schema.iter().map(|c| c.data_type).collect();
    assert_eq!(
        types,
        [DataType::Numeric(None), DataType::Real, DataType::Real]
    );
    assert_eq!(error_code("SELECT * FROM t1 WHERE a = 'abc'"), "22P02");
}

#[test]
fn parameters_number_left_to_right_and_take_types() {
    let bound = try_bind(
        "SELECT * FROM t1 WHERE ? = a AND c = ? AND d > $4",
        &catalog(),
    )
    .unwrap();
    let types: Vec<_> = bound.parameters.iter().map(|p| p.data_type).collect();
    assert_eq!(
        types,
        [
            DataType::Integer,
            DataType::Text(None),
            DataType::Null,
            DataType::Real
        ]
    );
    let bound = try_bind("INSERT INTO t2 (a, x) VALUES (:id, :name)", &catalog()).unwrap();
    assert_eq!(bound.parameters[1].name.as_deref(), Some("name"));
    assert_eq!(bound.parameters[1].data_type, DataType::Text(None));
}

#[test]
fn joins() {
    let node = plan("SELECT * FROM t1, t2 WHERE t1.a = t2.a");
    let PlanKind::NestedLoopJoin {
        kind, condition, ..
    } = &input(input(&node)).kind
    else {
        panic!()
    };
    assert_eq!((*kind, condition), (JoinKind::Inner, &None));
    assert_eq!(node.schema.len(), 7);
    let node = plan("SELECT * FROM t1 LEFT JOIN t2 ON t1.a = t2.a");
    let PlanKind::NestedLoopJoin {
        kind, condition, ..
    } = &input(&node).kind
    else {
        panic!()
    };
    assert_eq!(*kind, JoinKind::Left);
    assert!(condition.is_some());
    // USING shows the joined column once, first.
    let node = plan("SELECT * FROM t1 JOIN t2 USING (a)");
    assert_eq!(names(&node), ["a", "b", "c", "d", "x", "dt"]);
    let node = plan("SELECT a, t2.a FROM t1 FULL JOIN t2 USING (a)");
    assert!(matches!(
        project_exprs(input(&node))[7..],
        [Expr::Coalesce { .. }]
    ));
    let node = plan("SELECT * FROM t1 NATURAL JOIN t2");
    assert_eq!(node.schema.len(), 6);
    assert_eq!(error_code("SELECT a FROM t1, t2"), "42702");
    assert_eq!(error_code("SELECT * FROM t1, t1"), "42712");
    plan("SELECT x.a, y.a FROM t1 AS x CROSS JOIN t1 AS y");
}

#[test]
fn aggregates_and_grouping() {
    let node = plan(
        "SELECT b, count(*), sum(a), avg(d), max(c) FROM t1 GROUP BY b HAVING count(*) > 1 ORDER BY 2 DESC",
    );
    assert_eq!(names(&node), ["b", "count", "sum", "avg", "max"]);
    let types: Vec<_> = node.schema.iter().map(|c| c.data_type).collect();
    assert_eq!(
        types,
        [
            DataType::Integer,
            DataType::Integer,
            DataType::Integer,
            DataType::Real,
            DataType::Text(None)
        ]
    );
    let PlanKind::Sort { keys, .. } = &node.kind else {
        panic!("{node:?}")
    };
    assert!(keys[0].descending && keys[0].nulls_first);
    let project = input(&node);
    assert_eq!(
        project_exprs(project)[0],
        Expr::Column {
            index: 0,
            data_type: DataType::Integer
        }
    );
    let having = input(project);
    let PlanKind::Filter {
        input: aggregate, ..
    } = &having.kind
    else {
        panic!()
    };
    let PlanKind::Aggregate {
        group_by,
        aggregates,
        ..
    } = &aggregate.kind
    else {
        panic!()
    };
    assert_eq!(group_by.len(), 1);
    // count(*) in SELECT and HAVING is one aggregate.
    assert_eq!(aggregates[0].function, AggregateFunction::CountStar);
    assert_eq!(aggregates.len(), 4);
    // group by expression, ordinal and alias; aggregate without GROUP BY.
    plan("SELECT a + b, count(DISTINCT c) FROM t1 GROUP BY a + b");
    plan("SELECT a % 3 AS k, total(d) FROM t1 GROUP BY k");
    plan("SELECT a % 3, group_concat(c), string_agg(c, ';') FROM t1 GROUP BY 1");
    let node = plan("SELECT count(*) FILTER (WHERE a > 1), bool_and(a > 0) FROM t1");
    assert!(
        matches!(&input(&node).kind, PlanKind::Aggregate { group_by, .. } if group_by.is_empty())
    );
    assert_eq!(error_code("SELECT a, count(*) FROM t1"), "42803");
    assert_eq!(error_code("SELECT * FROM t1 WHERE count(*) > 1"), "42803");
    assert_eq!(error_code("SELECT count(sum(a)) FROM t1"), "42803");
    assert_eq!(error_code("SELECT sum(c) FROM t1"), "42883");
}

#[test]
fn order_by_limit_distinct() {
    let node = plan("SELECT a FROM t1 ORDER BY b, a LIMIT 3 OFFSET 1");
    assert_eq!(names(&node), ["a"]);
    let PlanKind::Limit { limit, offset, .. } = &node.kind else {
        panic!()
    };
    assert!(limit.is_some() && offset.is_some());
    // the hidden ORDER BY column is projected away after the sort.
    let strip = input(&node);
    assert_eq!(project_exprs(strip).len(), 1);
    let PlanKind::Sort { keys, .. } = &input(strip).kind else {
        panic!()
    };
    assert_eq!(
        keys[0].expr,
        Expr::Column {
            index: 1,
            data_type: DataType::Integer
        }
    );
    assert!(!keys[0].nulls_first);
    assert_eq!(error_code("SELECT a FROM t1 ORDER BY 2"), "42P10");
    assert_eq!(error_code("SELECT DISTINCT a FROM t1 ORDER BY b"), "42P10");
    let node = plan("SELECT DISTINCT a AS z FROM t1 ORDER BY z");
    assert!(matches!(input(&node).kind, PlanKind::Distinct { .. }));
}

#[test]
fn set_operations_and_values() {
    let node = plan("SELECT a FROM t1 UNION SELECT d FROM t1 ORDER BY 1 LIMIT 2");
    let PlanKind::Limit { input: sort, .. } = &node.kind else {
        panic!()
    };
    let PlanKind::Sort { input: set, .. } = &sort.kind else {
        panic!()
    };
    let PlanKind::SetOperation { all, left, .. } = &set.kind else {
        panic!()
    };
    assert!(!all);
    assert_eq!(left.schema[0].data_type, DataType::Real);
    plan("SELECT a FROM t1 INTERSECT ALL SELECT a FROM t2 EXCEPT SELECT 1");
    assert_eq!(
        error_code("SELECT a, b FROM t1 UNION SELECT a FROM t1"),
        "42601"
    );
    assert_eq!(
        error_code("SELECT c FROM t1 UNION SELECT a FROM t1"),
        "42804"
    );
    let node = plan("VALUES (1, 'a'), (2.5, NULL)");
    assert_eq!(names(&node), ["column1", "column2"]);
    assert_eq!(node.schema[0].data_type, DataType::Numeric(None));
}

#[test]
fn subqueries_and_ctes() {
    let node = plan(
        "SELECT a, (SELECT max(x) FROM t2 WHERE t2.a = t1.a) FROM t1 WHERE EXISTS (SELECT 1 FROM t2) AND a IN (SELECT a FROM t2)",
    );
    let Expr::ScalarSubquery {
        plan: sub,
        data_type,
    } = &project_exprs(&node)[1]
    else {
        panic!()
    };
    assert_eq!(*data_type, DataType::Text(None));
    let mut outer = false;
    fn walk(node: &PlanNode, found: &mut bool) {
        if let PlanKind::Filter { predicate, .. } = &node.kind {
            predicate.visit(&mut |e| {
                *found |= matches!(
                    e,
                    Expr::OuterColumn {
                        depth: 1,
                        index: 0,
                        ..
                    }
                )
            });
        }
        if let PlanKind::Filter { input, .. }
        | PlanKind::Project { input, .. }
        | PlanKind::Aggregate { input, .. } = &node.kind
        {
            walk(input, found);
        }
    }
    walk(sub, &mut outer);
    assert!(outer);
    assert_eq!(error_code("SELECT (SELECT a, b FROM t1)"), "42601");
    plan(
        "WITH w AS (SELECT a FROM t1), z (k) AS (SELECT a FROM w) SELECT * FROM w, z WHERE w.a = z.k",
    );
    plan("SELECT * FROM (SELECT a, b FROM t1) AS s (p, q) WHERE p > q");
    let node = plan("SELECT * FROM v1");
    assert_eq!(names(&node), ["a", "c"]);
    plan("SELECT b, (SELECT count(*) FROM t2 WHERE t2.a = t1.b) FROM t1 GROUP BY b");
}

#[test]
fn expressions() {
    let node = plan(
        "SELECT CASE WHEN a > 1 THEN 'x' ELSE c END, CASE a WHEN 1 THEN 2.5 END, coalesce(a, 0), nullif(a, 1), \
         a BETWEEN 1 AND 3, a NOT BETWEEN 1 AND 3, c LIKE 'a%', c GLOB 'a*', a IS NULL, a ISNULL, a IS NOT DISTINCT FROM b, \
         (a > 1) IS TRUE, CAST(c AS INTEGER), d::integer, -a, ~a, a & b, c || a, a IN (1, 2.5), now(), CURRENT_DATE, \
         abs(a), length(c), max(a, b, 3) FROM t1",
    );
    let exprs = project_exprs(&node);
    assert_eq!(exprs[0].data_type(), DataType::Text(None));
    assert_eq!(exprs[1].data_type(), DataType::Numeric(None));
    assert!(matches!(
        &exprs[4],
        Expr::Binary {
            op: BinaryOp::And,
            ..
        }
    ));
    assert!(matches!(
        &exprs[5],
        Expr::Binary {
            op: BinaryOp::Or,
            ..
        }
    ));
    assert!(matches!(&exprs[7], Expr::Like { glob: true, .. }));
    assert_eq!(exprs[12].data_type(), DataType::Integer);
    assert_eq!(exprs[17].data_type(), DataType::Text(None));
    assert!(
        matches!(&exprs[18], Expr::InList { operand, .. } if operand.data_type() == DataType::Numeric(None))
    );
    assert_eq!(names(&node)[..4], ["case", "case", "coalesce", "nullif"]);
    assert_eq!(names(&node)[12..14], ["c", "d"]);
    // Date arithmetic, integer conditions (SQLite leniency).
    assert_eq!(
        project_exprs(&plan("SELECT dt + 1 FROM t2"))[0].data_type(),
        DataType::Date
    );
    plan("SELECT * FROM t1 WHERE a AND NOT b");
    assert_eq!(
        project_exprs(&plan("SELECT + c FROM t1"))[0].data_type(),
        DataType::Text(None)
    );
    assert_eq!(error_code("SELECT * FROM t1 WHERE c"), "42804");
    assert_eq!(error_code("SELECT c + 1 FROM t1"), "42883");
    assert_eq!(error_code("SELECT a FROM t1 WHERE c = a"), "42883");
    assert_eq!(error_code("SELECT nosuch(a) FROM t1"), "42883");
}

#[test]
fn name_errors() {
    let error = try_bind("SELECT * FROM t3", &catalog()).unwrap_err();
    assert_eq!(error.code, sqlstate::UNDEFINED_TABLE);
    assert!(
        error.message.contains("t1") || error.message.contains("t2"),
        "{}",
        error.message
    );
    let error = try_bind("SELECT cc FROM t1", &catalog()).unwrap_err();
    assert_eq!(error.code, sqlstate::UNDEFINED_COLUMN);
    assert!(error.message.contains("\"c\""), "{}", error.message);
    assert_eq!(error_code("SELECT zz.a FROM t1"), "42P01");
    // Window names: an unknown one is 42704; a defined one binds.
    assert_eq!(
        error_code("SELECT count(*) OVER v FROM t1 WINDOW w AS ()"),
        "42704"
    );
    try_bind("SELECT count(*) OVER w FROM t1 WINDOW w AS ()", &catalog()).unwrap();
    assert_eq!(error_code("SELECT * FROM t1 WHERE a = 1 OR"), "42601");
    assert_eq!(error_code("SELECT *"), "42601");
}

#[test]
fn dml() {
    let node = plan("INSERT INTO t1 (c, a) VALUES ('x', 1.5), (NULL, '2') RETURNING *, a + 1");
    let PlanKind::Insert {
        target_columns,
        source,
        returning,
        on_conflict,
        ..
    } = &node.kind
    else {
        panic!()
    };
    assert_eq!(target_columns, &[2, 0]);
    assert_eq!(*on_conflict, ConflictAction::Abort);
    assert_eq!(returning.len(), 5);
    let PlanKind::Values { rows } = &source.kind else {
        panic!()
    };
    assert_eq!(
        rows[0][1],
        Expr::Cast {
            operand: Box::new(Expr::literal(Value::Real(1.5))),
            to: DataType::Integer
        }
        .clone_if_folded()
    );
    assert_eq!(rows[1][1], Expr::literal(Value::Integer(2)));
    let node = plan(
        "INSERT INTO t2 VALUES (1, 'a', DEFAULT) ON CONFLICT (a) DO UPDATE SET x = excluded.x || x WHERE t2.a > 0",
    );
    let PlanKind::Insert {
        on_conflict: ConflictAction::Update { assignments, .. },
        ..
    } = &node.kind
    else {
        panic!()
    };
    assert_eq!(assignments[0].0, 1);
    assert!(matches!(
        plan("INSERT OR IGNORE INTO t1 SELECT * FROM t1").kind,
        PlanKind::Insert {
            on_conflict: ConflictAction::IgnoreAnyViolation,
            ..
        }
    ));
    assert!(matches!(
        plan("REPLACE INTO t1 (a) VALUES (1)").kind,
        PlanKind::Insert {
            on_conflict: ConflictAction::Replace,
            ..
        }
    ));
    plan("INSERT INTO t2 (a, x) VALUES (1, 'a') ON CONFLICT DO NOTHING");
    plan("INSERT INTO people DEFAULT VALUES");
    let node = plan("UPDATE t1 SET a = a + 1, c = 'z' WHERE b = 2 RETURNING a");
    let PlanKind::Update {
        input, assignments, ..
    } = &node.kind
    else {
        panic!()
    };
    let PlanKind::Filter { input: scan, .. } = &input.kind else {
        panic!()
    };
    let PlanKind::Scan { columns, .. } = &scan.kind else {
        panic!()
    };
    assert_eq!(columns[0], ScanColumn::RowId);
    // table column 0 is input column 1.
    assert!(
        matches!(&assignments[0].1, Expr::Binary { left, .. } if **left == Expr::Column { index: 1, data_type: DataType::Integer })
    );
    assert!(matches!(
        plan("DELETE FROM t1 WHERE a > 1").kind,
        PlanKind::Delete { .. }
    ));
    assert_eq!(error_code("INSERT INTO t1 (a, a) VALUES (1, 2)"), "42701");
    assert_eq!(error_code("INSERT INTO t1 (a) VALUES (1, 2)"), "42601");
    assert_eq!(error_code("INSERT INTO t1 (zz) VALUES (1)"), "42703");
    assert_eq!(
        error_code("INSERT INTO t2 (a) VALUES (DATE '2020-01-01')"),
        "42804"
    );
    assert_eq!(error_code("UPDATE v1 SET a = 1"), "0A000");
}

#[test]
fn ddl() {
    let catalog = catalog();
    let table = catalog.table("t2").unwrap();
    assert_eq!(table.row_id_column, Some(0));
    assert_eq!(table.columns[1].max_length(), Some(10));
    assert!(table.columns[1].not_null);
    assert_eq!(table.columns[2].default.as_deref(), Some("'2020-01-01'"));
    let ddl = |sql: &str| match try_bind(sql, &catalog)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .statement
    {
        BoundStatement::Ddl(ddl) => ddl,
        other => panic!("{other:?}"),
    };
    let DdlStatement::CreateTable(create) = ddl(
        "CREATE TABLE t9 (a TEXT, b INT, c CLOB, PRIMARY KEY (a, b), UNIQUE (c), CHECK (b > 0), FOREIGN KEY (b) REFERENCES t2 (a) ON DELETE CASCADE)",
    ) else {
        panic!()
    };
    assert_eq!(create.row_id_column, None);
    assert_eq!(create.unique_constraints, vec![vec![0, 1], vec![2]]);
    assert_eq!(create.columns[2].data_type, DataType::Text(None));
    assert_eq!(create.checks, ["b > 0"]);
    let DdlStatement::CreateIndex(index) = ddl("CREATE UNIQUE INDEX i1 ON t1 (b DESC, a)") else {
        panic!()
    };
    assert!(index.unique && index.columns[0].1.descending && index.columns[0].1.nulls_first);
    assert!(matches!(
        ddl("DROP TABLE IF EXISTS nothing"),
        DdlStatement::Drop { .. }
    ));
    assert!(matches!(
        ddl("ALTER TABLE t1 ADD COLUMN e TEXT"),
        DdlStatement::AlterTable(_)
    ));
    assert!(matches!(
        ddl("ALTER TABLE t1 RENAME COLUMN a TO z"),
        DdlStatement::AlterTable(_)
    ));
    assert!(matches!(
        ddl("ALTER TABLE t1 RENAME TO t7"),
        DdlStatement::AlterTable(_)
    ));
    assert!(matches!(ddl("BEGIN"), DdlStatement::Transaction(_)));
    assert!(matches!(
        ddl("ROLLBACK TO SAVEPOINT s"),
        DdlStatement::Transaction(_)
    ));
    assert!(matches!(
        ddl("PRAGMA cache_size = 100"),
        DdlStatement::Setting { .. }
    ));
    assert!(matches!(ddl("ANALYZE t1"), DdlStatement::Analyze { .. }));
    assert!(matches!(
        try_bind("EXPLAIN SELECT 1", &catalog).unwrap().statement,
        BoundStatement::Explain { .. }
    ));
    assert_eq!(error_code("CREATE TABLE t1 (a INT)"), "42P07");
    assert_eq!(
        error_code("CREATE TABLE t8 (a INT CHECK (zz > 0))"),
        "42703"
    );
    let default =
        super::bind_column_default("'2020-01-02'", DataType::Date, table, &catalog).unwrap();
    assert_eq!(default.data_type(), DataType::Date);
    let check = super::bind_table_predicate("a > 0 AND x <> ''", table, &catalog).unwrap();
    assert!(matches!(
        check,
        Expr::Binary {
            op: BinaryOp::And,
            ..
        }
    ));
    assert_eq!(
        super::bind_column_default("now()", DataType::Integer, table, &catalog)
            .unwrap_err()
            .code,
        sqlstate::DATATYPE_MISMATCH
    );
    assert_eq!(error_code("DROP TABLE nothing"), "42P01");
    assert_eq!(error_code("CREATE INDEX i2 ON t1 (a + 1)"), "0A000");
    assert_eq!(error_code("CREATE VIEW v2 AS SELECT zz FROM t1"), "42703");
    assert!(matches!(
        ddl("CREATE TRIGGER tr AFTER INSERT ON t1 BEGIN SELECT 1; END"),
        DdlStatement::CreateTrigger { .. }
    ));
    for (sql, code) in [
        (
            "CREATE TRIGGER tr AFTER INSERT ON nothing BEGIN SELECT 1; END",
            "42P01",
        ),
        (
            "CREATE TRIGGER tr INSTEAD OF INSERT ON t1 BEGIN SELECT 1; END",
            "42809",
        ),
        (
            "CREATE TRIGGER tr AFTER DELETE ON t1 BEGIN SELECT new.a; END",
            "42P01",
        ),
        (
            "CREATE TRIGGER tr AFTER INSERT ON t1 BEGIN SELECT new.zz; END",
            "42703",
        ),
        (
            "CREATE TRIGGER tr AFTER INSERT ON t1 BEGIN SELECT ?; END",
            "42601",
        ),
        (
            "CREATE TRIGGER tr AFTER INSERT ON t1 FOR EACH STATEMENT BEGIN SELECT 1; END",
            "0A000",
        ),
        ("DROP TRIGGER nothing", "42704"),
    ] {
        assert_eq!(error_code(sql), code, "{sql}");
    }
}

impl Expr {
    /// The literal a constant cast folds to, when `crate::types::cast` can do it at bind time.
    fn clone_if_folded(self) -> Expr {
        match &self {
            Expr::Cast { operand, to } => match operand.as_ref() {
                Expr::Literal { value, .. } => match crate::types::cast(value, *to) {
                    Ok(value) => Expr::literal(value),
                    Err(_) => self,
                },
                _ => self,
            },
            _ => self,
        }
    }
}

#[test]
fn never_panics_on_odd_input() {
    let catalog = catalog();
    for sql in [
        "SELECT -9223372036854775808",
        "SELECT 1 FROM t1 GROUP BY 99",
        "SELECT * FROM t1 ORDER BY 0",
        "SELECT x'zz'",
        "SELECT $0",
        "SELECT ?99999999999",
        "SELECT (SELECT 1) FROM t1 GROUP BY (SELECT 1)",
        "SELECT a FROM (SELECT 1) AS s (a, b, c)",
        "WITH w AS (SELECT * FROM w) SELECT 1",
        "SELECT count(*) OVER () FROM t1",
        "INSERT INTO t1 SELECT 1, 2",
        "SELECT * FROM t1 JOIN t2 USING (zz)",
        "SELECT 1 LIMIT 'x'",
    ] {
        let _ = try_bind(sql, &catalog);
    }
}

/// The sqllogictest corpus, when present.
fn corpus_root() -> Option<std::path::PathBuf> {
    let root =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/slt/sqlite");
    root.is_dir().then_some(root)
}

fn test_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = walk(dir);
    files.sort();
    files
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "test") {
            files.push(path);
        }
    }
    files
}

/// Binds every statement of select1, select2 and evidence/*.test (as PostgreSQL would run
/// them), building the catalog from their DDL as it goes.
#[test]
fn sqllogictest_smoke() {
    let Some(root) = corpus_root() else {
        eprintln!("skipping: the sqllogictest corpus is not present");
        return;
    };
    let mut files = vec![root.join("select1.test"), root.join("select2.test")];
    files.extend(test_files(&root.join("evidence")));
    let ratio = bind_corpus(&files);
    assert!(ratio >= 0.98, "only {:.2}% bound", ratio * 100.0);
}

/// The whole corpus (slow: set BASALT_SLOW_TESTS=1 to see what does not bind).
#[test]
fn sqllogictest_full() {
    if std::env::var_os("BASALT_SLOW_TESTS").is_none() {
        println!("note: set BASALT_SLOW_TESTS=1 to bind the whole SQLite corpus");
        return;
    }
    if let Some(root) = corpus_root() {
        bind_corpus(&test_files(&root));
    }
}

/// Binds the statements of `files`, printing failures grouped by message; returns the
/// fraction that bound.
fn bind_corpus(files: &[std::path::PathBuf]) -> f64 {
    let (mut total, mut ok, mut parse_failures) = (0usize, 0usize, 0usize);
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(file).map(|t| t.replace("\r\n", "\n")) else {
            continue;
        };
        let mut catalog = Catalog::default();
        for record in text.split("\n\n") {
            let lines: Vec<&str> = record.lines().filter(|l| !l.starts_with('#')).collect();
            let mut skip = false;
            let mut index = 0;
            while let Some(line) = lines.get(index) {
                let words: Vec<&str> = line.split_whitespace().collect();
                match words.as_slice() {
                    ["onlyif", engine, ..] if *engine != "postgresql" => skip = true,
                    ["skipif", "postgresql", ..] => skip = true,
                    ["onlyif", ..] | ["skipif", ..] => {}
                    _ => break,
                }
                index += 1;
            }
            let Some(header) = lines.get(index) else {
                continue;
            };
            let expect_error = header.starts_with("statement error");
            if skip || !(header.starts_with("statement") || header.starts_with("query")) {
                continue;
            }
            let sql: Vec<&str> = lines[index + 1..]
                .iter()
                .take_while(|l| **l != "----")
                .copied()
                .collect();
            let sql = sql.join("\n");
            let statement = match crate::sql::parse_one(&sql) {
                Ok(statement) => statement,
                Err(_) => {
                    if !expect_error {
                        parse_failures += 1;
                    }
                    continue;
                }
            };
            let result = bind(&statement, &catalog);
            if expect_error {
                continue;
            }
            total += 1;
            match result {
                Ok(bound) => {
                    ok += 1;
                    if let BoundStatement::Ddl(ddl) = bound.statement {
                        apply_ddl(&mut catalog, ddl);
                    }
                }
                Err(error) => {
                    let key: String = format!("{} {}", error.code, error.message)
                        .chars()
                        .take(90)
                        .collect();
                    failures
                        .entry(key)
                        .or_default()
                        .push(sql.chars().take(120).collect());
                }
            }
        }
    }
    for (message, statements) in &failures {
        eprintln!(
            "{:5} × {message}\n        e.g. {}",
            statements.len(),
            statements[0].replace('\n', " ")
        );
    }
    let ratio = ok as f64 / total.max(1) as f64;
    eprintln!(
        "bound {ok} of {total} statements ({:.2}%); {parse_failures} did not parse",
        ratio * 100.0
    );
    ratio
}
