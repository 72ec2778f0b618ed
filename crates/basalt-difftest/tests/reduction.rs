//! The checks and the reducer must be able to fail: a statement whose meaning differs
//! between the dialects (division by zero is NULL in SQLite, an error in Basalt) is
//! reported as a mismatch, reduced to the few statements that matter, and written as a
//! sqllogictest file that fails on Basalt.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests"
)]

use basalt_difftest::ast::{BinaryOperator, Expr, From, Literal, Query, Select, TableReference};
use basalt_difftest::case::{MismatchKind, run_case};
use basalt_difftest::engines::EngineSettings;
use basalt_difftest::reducer::reduce;
use basalt_difftest::reproduction::{ReproductionOptions, failing_records, reproduction_text};
use basalt_difftest::schema::{Column, Domain, PrimaryKey, Schema, SqlType, Table};
use basalt_difftest::statement::{Conflict, InsertSource, Statement};

fn table() -> Table {
    let column = |name: &str| Column {
        name: name.to_owned(),
        sql_type: SqlType::Integer,
        not_null: false,
        flag: false,
        wide_domain: false,
        default: None,
        check: None,
        domain: Domain::Small,
    };
    Table {
        name: "t".to_owned(),
        columns: vec![column("a"), column("b")],
        primary_key: PrimaryKey::None,
        unique_constraints: Vec::new(),
        large: false,
    }
}

fn insert(a: i64, b: i64) -> Statement {
    Statement::Insert {
        table: "t".to_owned(),
        columns: vec!["a".to_owned(), "b".to_owned()],
        source: InsertSource::Values(vec![vec![
            Expr::Literal(Literal::Integer(a)),
            Expr::Literal(Literal::Integer(b)),
        ]]),
        conflict: Conflict::Abort,
    }
}

/// `SELECT a + 1, a / b FROM t AS x WHERE b >= 0`: divides by zero when b = 0.
fn dividing_query() -> Statement {
    let column = |name: &str| Expr::column("x", name);
    let select = Select {
        distinct: false,
        items: vec![
            Expr::binary(
                BinaryOperator::Plus,
                column("a"),
                Expr::Literal(Literal::Integer(1)),
            ),
            Expr::binary(BinaryOperator::Divide, column("a"), column("b")),
        ],
        from: Some(From {
            first: TableReference::Table {
                name: "t".to_owned(),
                alias: "x".to_owned(),
            },
            joins: Vec::new(),
        }),
        where_clause: Some(Expr::binary(
            BinaryOperator::GreaterOrEqual,
            column("b"),
            Expr::Literal(Literal::Integer(0)),
        )),
        group_by: Vec::new(),
        having: None,
    };
    Statement::Query {
        query: Box::new(Query::simple(select)),
        partition: None,
    }
}

#[test]
fn a_dialect_difference_is_found_reduced_and_reproduced() {
    let table = table();
    let schema = Schema {
        tables: vec![table.clone()],
        indexes: Vec::new(),
    };
    let mut statements = vec![Statement::CreateTable {
        sql: table.create_sql(true),
        index_free_sql: table.create_sql(false),
    }];
    for value in 1..=8 {
        statements.push(insert(value, value % 3));
    }
    statements.push(dividing_query());

    let settings = EngineSettings::default();
    let (_, mismatch) = run_case(&statements, &settings).unwrap();
    let mismatch = mismatch.expect("division by zero differs between the dialects");
    assert_eq!(mismatch.statement, statements.len() - 1);
    assert_eq!(mismatch.kind, MismatchKind::BasaltError("22012".to_owned()));

    let reduced = reduce(statements, &mismatch.kind, &schema, &settings);
    // CREATE TABLE, one row with b = 0, and the query.
    assert_eq!(reduced.len(), 3, "{reduced:#?}");
    let text = reduction_text(&reduced, &schema);
    assert!(text.contains("statement ok\nCREATE TABLE t"), "{text}");
    assert!(failing_records(&text).unwrap() >= 1, "{text}");
}

fn reduction_text(statements: &[Statement], schema: &Schema) -> String {
    reproduction_text(statements, schema, "test", ReproductionOptions::default()).unwrap()
}
