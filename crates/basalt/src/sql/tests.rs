//! Tests of the parsing layer: every special form of Basalt's dialect, placeholders, error
//! positions, statement splitting, and a smoke test over the SQLite logic-test corpus.

use super::*;
use sqlparser::ast::{
    BinaryOperator, ColumnOption, CreateIndex, Expr, IndexType, Insert, OrderByKind, SetExpr,
    SqliteOnConflict, Statement, TransactionModifier, Value,
};
use sqlparser::dialect::PostgreSqlDialect;

fn one(sql: &str) -> Statement {
    match parse_one(sql) {
        Ok(s) => s,
        Err(e) => panic!("{sql:?} failed to parse: {e}\n{}", e.caret_display(sql)),
    }
}

fn fails(sql: &str) -> SqlSyntaxError {
    match parse_one(sql) {
        Ok(s) => panic!("{sql:?} parsed, unexpectedly, as {s}"),
        Err(e) => e,
    }
}

/// The projection's first expression of a `SELECT`.
fn select_expr(sql: &str) -> Expr {
    let Statement::Query(query) = one(sql) else {
        panic!("{sql:?} is not a query");
    };
    let SetExpr::Select(select) = *query.body else {
        panic!("{sql:?} is not a SELECT");
    };
    match select.projection.into_iter().next() {
        Some(sqlparser::ast::SelectItem::UnnamedExpr(e)) => e,
        other => panic!("{sql:?}: unexpected projection {other:?}"),
    }
}

fn placeholder(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Placeholder(p) => Some(p),
            _ => None,
        },
        _ => None,
    }
}

// ----- API shape -----

#[test]
fn empty_input_and_counts() {
    assert_eq!(parse("").map(|v| v.len()), Ok(0));
    assert_eq!(
        parse("  -- just a comment\n ;; /* x */ ;").map(|v| v.len()),
        Ok(0)
    );
    assert_eq!(parse("SELECT 1; SELECT 2;").map(|v| v.len()), Ok(2));
    assert!(parse_one("SELECT 1;").is_ok());
    assert!(parse_one("SELECT 1").is_ok());

    let e = fails("");
    assert!(e.message.contains("found none"), "{e}");
    let e = fails("SELECT 1; SELECT 2");
    assert!(e.message.contains("expected one statement, found 2"), "{e}");
    assert_eq!((e.line, e.column), (1, 11));
}

#[test]
fn statement_must_end_at_semicolon() {
    // sqlparser's own loop would stop silently at this END and drop the rest.
    let e = fails("SELECT 1 END garbage");
    assert_eq!(e.token.as_deref(), Some("END"));
    assert!(parse("SELECT 1 SELECT 2").is_err());
}

// ----- placeholders -----

#[test]
fn placeholders_of_every_style() {
    for (sql, expected) in [
        ("SELECT ?", "?"),
        ("SELECT ?12", "?12"),
        ("SELECT $1", "$1"),
        ("SELECT $23", "$23"),
        ("SELECT :name", ":name"),
        ("SELECT :1", ":1"),
        ("SELECT @name", "@name"),
    ] {
        assert_eq!(placeholder(&select_expr(sql)), Some(expected), "{sql}");
    }
    // With no space after a comparison operator.
    let Statement::Query(q) = one("SELECT * FROM t WHERE a<? AND b>=? AND c<>?1 AND d=?") else {
        panic!()
    };
    assert_eq!(
        q.to_string(),
        "SELECT * FROM t WHERE a < ? AND b >= ? AND c <> ?1 AND d = ?"
    );
    // `@ x` (with a space) is still PostgreSQL's absolute value.
    assert!(matches!(select_expr("SELECT @ x"), Expr::UnaryOp { .. }));
    // Placeholders in INSERT values and LIMIT.
    one("INSERT INTO t (a, b) VALUES (?, $2)");
    one("SELECT * FROM t LIMIT ? OFFSET :off");
}

#[test]
fn question_mark_after_an_operand_is_the_jsonb_exists_operator() {
    let exists = |sql: &str| match select_expr(sql) {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Question,
            right,
        } => (*left, *right),
        other => panic!("{sql}: {other:?}"),
    };
    let (left, right) = exists("SELECT doc ? 'a'");
    assert_eq!(left.to_string(), "doc");
    assert_eq!(right.to_string(), "'a'");
    // A placeholder key, with or without spaces.
    for sql in ["SELECT doc ? ?", "SELECT doc??", "SELECT doc ? $1"] {
        let (_, right) = exists(sql);
        assert!(placeholder(&right).is_some(), "{sql}");
    }
    // PostgreSQL's "other operator" precedence: looser than `-`, left to right with `||`
    // and `->`, tighter than comparisons.
    let (left, _) = exists("SELECT a - 'k' || b ? 'c'");
    assert_eq!(left.to_string(), "a - 'k' || b");
    let e = select_expr("SELECT a ? 'k' = true");
    assert!(
        matches!(&e, Expr::BinaryOp { op: BinaryOperator::Eq, left, .. }
            if matches!(**left, Expr::BinaryOp { op: BinaryOperator::Question, .. })),
        "{e:?}"
    );
    // Everywhere an operand is expected, `?` is still a placeholder.
    let Statement::Query(q) =
        one("SELECT ?, ? + 1 FROM t WHERE a = ? AND b IN (?, ?) AND c ? ? LIMIT ? OFFSET ?")
    else {
        panic!()
    };
    assert_eq!(
        q.to_string(),
        "SELECT ?, ? + 1 FROM t WHERE a = ? AND b IN (?, ?) AND c ? ? LIMIT ? OFFSET ?"
    );
    one("INSERT INTO t VALUES (?, ?1, $2) RETURNING a ? 'k'");
    one("UPDATE t SET a = ? WHERE doc ? ?");
    // A numbered placeholder after an operand is not an operator.
    assert!(parse_one("SELECT a ?1").is_err());
}

// ----- pgvector -----

#[test]
fn vector_operators_are_custom_binary_operators() {
    for op in ["<->", "<=>", "<#>", "<+>", "<~>", "<%>"] {
        for sql in [format!("SELECT a {op} b"), format!("SELECT a{op}b")] {
            match select_expr(&sql) {
                Expr::BinaryOp {
                    op: BinaryOperator::Custom(text),
                    ..
                } => assert_eq!(text, op, "{sql}"),
                other => panic!("{sql}: {other:?}"),
            }
        }
    }
}

#[test]
fn vector_operator_precedence() {
    // Looser than + and -, tighter than comparison: PostgreSQL's "other operator" level.
    let e = select_expr("SELECT a <-> b < 0.5");
    let Expr::BinaryOp {
        left,
        op: BinaryOperator::Lt,
        ..
    } = e
    else {
        panic!("{e:?}")
    };
    assert!(matches!(
        *left,
        Expr::BinaryOp {
            op: BinaryOperator::Custom(_),
            ..
        }
    ));

    let e = select_expr("SELECT a <=> b + c");
    let Expr::BinaryOp {
        op: BinaryOperator::Custom(_),
        right,
        ..
    } = e
    else {
        panic!("{e:?}")
    };
    assert!(matches!(
        *right,
        Expr::BinaryOp {
            op: BinaryOperator::Plus,
            ..
        }
    ));

    let Statement::Query(q) = one("SELECT id FROM items ORDER BY embedding <=> $1 LIMIT 5") else {
        panic!()
    };
    let Some(OrderByKind::Expressions(exprs)) = q.order_by.as_ref().map(|o| &o.kind) else {
        panic!()
    };
    let Expr::BinaryOp { op, right, .. } = &exprs[0].expr else {
        panic!()
    };
    assert_eq!(*op, BinaryOperator::Custom("<=>".into()));
    assert_eq!(placeholder(right), Some("$1"));
    one("SELECT * FROM items WHERE embedding <-> '[1,2,3]' < 0.5 ORDER BY embedding <#> :q");
}

#[test]
fn minus_and_plus_are_not_glued_to_operators() {
    for sql in [
        "SELECT a<-1",
        "SELECT a>-1",
        "SELECT a<>-1",
        "SELECT a>=-1",
        "SELECT a%-1",
        "SELECT a||-1",
    ] {
        let e = select_expr(sql);
        let Expr::BinaryOp { op, right, .. } = &e else {
            panic!("{sql}: {e:?}")
        };
        assert!(!matches!(op, BinaryOperator::Custom(_)), "{sql}: {e:?}");
        assert!(
            matches!(**right, Expr::UnaryOp { .. } | Expr::Value(_)),
            "{sql}: {e:?}"
        );
    }
}

#[test]
fn vector_indexes() {
    let Statement::CreateIndex(CreateIndex {
        name,
        table_name,
        using,
        columns,
        with,
        ..
    }) = one(
        "CREATE INDEX items_embedding ON items USING hnsw (embedding vector_cosine_ops) \
         WITH (m = 16, ef_construction = 64)",
    )
    else {
        panic!()
    };
    assert_eq!(name.map(|n| n.to_string()), Some("items_embedding".into()));
    assert_eq!(table_name.to_string(), "items");
    assert!(matches!(using, Some(IndexType::Custom(ref i)) if i.value == "hnsw"));
    assert_eq!(columns.len(), 1);
    assert_eq!(
        columns[0].operator_class.as_ref().map(|c| c.to_string()),
        Some("vector_cosine_ops".into())
    );
    assert_eq!(with.len(), 2);
    assert_eq!(with[0].to_string(), "m = 16");
    assert_eq!(with[1].to_string(), "ef_construction = 64");

    let Statement::CreateIndex(CreateIndex { using, columns, .. }) =
        one("CREATE INDEX docs_fts ON docs USING fts (title, body)")
    else {
        panic!()
    };
    assert!(matches!(using, Some(IndexType::Custom(ref i)) if i.value == "fts"));
    assert_eq!(columns.len(), 2);
    assert!(columns.iter().all(|c| c.operator_class.is_none()));
}

// ----- SQLite forms -----

fn insert_or(sql: &str) -> Option<SqliteOnConflict> {
    match one(sql) {
        Statement::Insert(Insert { or, .. }) => or,
        other => panic!("{sql}: {other:?}"),
    }
}

#[test]
fn sqlite_insert_forms() {
    assert_eq!(
        insert_or("INSERT OR IGNORE INTO t VALUES (1)"),
        Some(SqliteOnConflict::Ignore)
    );
    assert_eq!(
        insert_or("INSERT OR REPLACE INTO t VALUES (1)"),
        Some(SqliteOnConflict::Replace)
    );
    assert_eq!(
        insert_or("REPLACE INTO t VALUES (1)"),
        Some(SqliteOnConflict::Replace)
    );
    assert_eq!(
        insert_or("replace into t(a) select 1"),
        Some(SqliteOnConflict::Replace)
    );
    assert_eq!(
        insert_or("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING"),
        None
    );
    // CREATE OR REPLACE is untouched by the REPLACE hook.
    one("CREATE OR REPLACE VIEW v AS SELECT 1");
}

#[test]
fn sqlite_pragma() {
    let pragma = |sql: &str| match one(sql) {
        Statement::Pragma { name, value, is_eq } => {
            (name.to_string(), value.map(|v| v.value), is_eq)
        }
        other => panic!("{sql}: {other:?}"),
    };
    assert_eq!(
        pragma("PRAGMA user_version"),
        ("user_version".into(), None, false)
    );
    assert_eq!(
        pragma("PRAGMA user_version = 3"),
        (
            "user_version".into(),
            Some(Value::Number("3".into(), false)),
            true
        )
    );
    assert_eq!(
        pragma("PRAGMA table_info('t')"),
        (
            "table_info".into(),
            Some(Value::SingleQuotedString("t".into())),
            false
        )
    );
    assert_eq!(
        pragma("PRAGMA table_info(t)"),
        (
            "table_info".into(),
            Some(Value::SingleQuotedString("t".into())),
            false
        )
    );
    assert_eq!(
        pragma("PRAGMA journal_mode=WAL"),
        (
            "journal_mode".into(),
            Some(Value::SingleQuotedString("WAL".into())),
            true
        )
    );
    assert_eq!(
        pragma("PRAGMA main.cache_size = -2000"),
        (
            "main.cache_size".into(),
            Some(Value::Number("-2000".into(), false)),
            true
        )
    );
    assert!(parse_one("PRAGMA x = (1)").is_err());
    assert!(parse_one("PRAGMA").is_err());
}

#[test]
fn sqlite_create_table_forms() {
    let Statement::CreateTable(t) =
        one("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)")
    else {
        panic!()
    };
    let options: Vec<String> = t.columns[0]
        .options
        .iter()
        .map(|o| o.option.to_string())
        .collect();
    assert_eq!(options, vec!["PRIMARY KEY", "AUTOINCREMENT"]);
    assert!(matches!(
        &t.columns[0].options[1].option,
        ColumnOption::DialectSpecific(tokens) if tokens.len() == 1
    ));
    one("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    one("CREATE TABLE t (id INTEGER PRIMARY KEY DESC, b)"
        .replace(", b", "")
        .as_str());
    one("CREATE TABLE IF NOT EXISTS \"T\" (`a` INT, [b c] TEXT)");
}

#[test]
fn sqlite_operators() {
    assert!(matches!(
        select_expr("SELECT a GLOB 'x*'"),
        Expr::BinaryOp {
            op: BinaryOperator::Glob,
            ..
        }
    ));
    let Expr::UnaryOp { expr, .. } = select_expr("SELECT a NOT GLOB 'x*'") else {
        panic!()
    };
    assert!(matches!(
        *expr,
        Expr::BinaryOp {
            op: BinaryOperator::Glob,
            ..
        }
    ));
    // GLOB binds like LIKE: tighter than AND.
    assert!(matches!(
        select_expr("SELECT a GLOB 'x' AND b"),
        Expr::BinaryOp {
            op: BinaryOperator::And,
            ..
        }
    ));
    assert!(matches!(select_expr("SELECT a ISNULL"), Expr::IsNull(_)));
    assert!(matches!(select_expr("SELECT a isnull"), Expr::IsNull(_)));
    assert!(matches!(
        select_expr("SELECT a NOTNULL"),
        Expr::IsNotNull(_)
    ));
    assert!(matches!(
        select_expr("SELECT a + 1 ISNULL"),
        Expr::IsNull(_)
    ));
    assert!(matches!(select_expr("SELECT isnull(a)"), Expr::Function(_)));
    assert!(matches!(
        select_expr("SELECT a == 1"),
        Expr::BinaryOp {
            op: BinaryOperator::Eq,
            ..
        }
    ));
    assert!(matches!(
        select_expr("SELECT a REGEXP 'x'"),
        Expr::RLike { .. }
    ));
    assert!(
        matches!(select_expr("SELECT a IN ()"), Expr::InList { ref list, .. } if list.is_empty())
    );
    // PostgreSQL's own: ^ is exponentiation, || concatenation.
    assert!(matches!(
        select_expr("SELECT 2 ^ 3"),
        Expr::BinaryOp {
            op: BinaryOperator::PGExp,
            ..
        }
    ));
    one("SELECT * FROM t LIMIT 10, 20");
}

#[test]
fn sqlite_transactions() {
    let modifier = |sql: &str| match one(sql) {
        Statement::StartTransaction { modifier, .. } => modifier,
        other => panic!("{sql}: {other:?}"),
    };
    assert_eq!(modifier("BEGIN"), None);
    assert_eq!(modifier("BEGIN TRANSACTION"), None);
    assert_eq!(
        modifier("BEGIN DEFERRED"),
        Some(TransactionModifier::Deferred)
    );
    assert_eq!(
        modifier("BEGIN IMMEDIATE TRANSACTION"),
        Some(TransactionModifier::Immediate)
    );
    assert_eq!(
        modifier("BEGIN EXCLUSIVE"),
        Some(TransactionModifier::Exclusive)
    );
    assert_eq!(modifier("START TRANSACTION"), None);
    assert!(matches!(
        one("END TRANSACTION"),
        Statement::Commit { end: true, .. }
    ));
    assert!(matches!(
        one("COMMIT"),
        Statement::Commit { end: false, .. }
    ));
    assert!(matches!(one("ROLLBACK"), Statement::Rollback { .. }));
    one("SAVEPOINT s1");
    one("RELEASE SAVEPOINT s1");
    one("ROLLBACK TO SAVEPOINT s1");
}

#[test]
fn sqlite_trigger() {
    let sql = "CREATE TRIGGER t1r1 AFTER UPDATE ON t1 FOR EACH ROW WHEN new.x > 0 \
               BEGIN INSERT INTO log VALUES (new.x); UPDATE t2 SET y = 1; END";
    let Statement::CreateTrigger(trigger) = one(sql) else {
        panic!()
    };
    assert_eq!(trigger.name.to_string(), "t1r1");
    assert!(trigger.statements.is_some());
    one("CREATE TRIGGER t1r1 UPDATE ON t1 BEGIN SELECT 1; END;");
    // A trigger body's semicolons do not split the script.
    assert_eq!(
        parse("CREATE TRIGGER r DELETE ON t BEGIN SELECT 1; SELECT 2; END; SELECT 3")
            .map(|v| v.len()),
        Ok(2)
    );
}

#[test]
fn sqlite_in_table() {
    for (sql, negated) in [("SELECT 1 IN t1", false), ("SELECT x NOT IN \"T 2\"", true)] {
        let Expr::InSubquery {
            subquery,
            negated: n,
            ..
        } = select_expr(sql)
        else {
            panic!("{sql}")
        };
        assert_eq!(n, negated);
        assert!(
            subquery.to_string().starts_with("SELECT * FROM "),
            "{subquery}"
        );
    }
    assert_eq!(
        one("SELECT a FROM t WHERE b NOT IN \"T 2\" AND c").to_string(),
        "SELECT a FROM t WHERE b NOT IN (SELECT * FROM \"T 2\") AND c"
    );
    assert!(matches!(
        select_expr("SELECT 1 IN (1, 2)"),
        Expr::InList { .. }
    ));
    assert!(matches!(
        select_expr("SELECT 1 IN (SELECT 2)"),
        Expr::InSubquery { .. }
    ));
}

#[test]
fn brackets_after_an_operand_are_subscripts_elsewhere_identifiers() {
    // After an operand a bracket is PostgreSQL's subscript (SQLite would read `a AS "1"`);
    // where an identifier starts it is SQLite's quoted identifier.
    for (sql, expected) in [
        ("SELECT a[1] FROM t", "SELECT a[1] FROM t"),
        (
            "SELECT a[1:2], (b)[1][2] FROM t",
            "SELECT a[1:2], (b)[1][2] FROM t",
        ),
        ("SELECT ARRAY[[1, 2], [3]]", "SELECT ARRAY[[1, 2], [3]]"),
        (
            "SELECT CAST(x AS INT[]) FROM [t]",
            "SELECT CAST(x AS INT[]) FROM [t]",
        ),
        (
            "SELECT [a b], t.[c] AS [d] FROM [my t] AS t WHERE [a b] = 1",
            "SELECT [a b], t.[c] AS [d] FROM [my t] AS t WHERE [a b] = 1",
        ),
        // Only the old rule tokenizes this one (a quote inside brackets): it still works.
        ("SELECT [it's] FROM t", "SELECT [it's] FROM t"),
    ] {
        let Statement::Query(q) = one(sql) else {
            panic!("{sql}")
        };
        assert_eq!(q.to_string(), expected, "{sql}");
    }
}

#[test]
fn identifier_quoting() {
    let Statement::Query(q) = one(r#"SELECT "A b", `C d`, [E f], g FROM "T""#) else {
        panic!()
    };
    let SetExpr::Select(select) = *q.body else {
        panic!()
    };
    let quotes: Vec<Option<char>> = select
        .projection
        .iter()
        .map(|item| match item {
            sqlparser::ast::SelectItem::UnnamedExpr(Expr::Identifier(i)) => i.quote_style,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(quotes, vec![Some('"'), Some('`'), Some('['), None]);
}

#[test]
fn postgres_forms_still_parse() {
    for sql in [
        "SELECT a::int, CAST(b AS text) FROM t",
        "SELECT E'a\\nb', $$dollar quoted$$",
        "WITH x AS MATERIALIZED (SELECT 1) SELECT * FROM x",
        "SELECT * FROM t WHERE a ILIKE 'x%' AND b IS DISTINCT FROM c",
        "INSERT INTO t VALUES (1) ON CONFLICT (a) DO UPDATE SET b = excluded.b RETURNING *",
        "SELECT count(*) FILTER (WHERE a > 1) FROM t",
        "CREATE TABLE t (a BIGINT GENERATED ALWAYS AS IDENTITY, b TEXT DEFAULT 'x')",
        "SELECT a FROM t ORDER BY a DESC NULLS LAST LIMIT 10 OFFSET 5",
        "EXPLAIN ANALYZE SELECT 1",
        "SELECT DISTINCT ON (a) a, b FROM t",
        "SELECT x->'a', x->>'b' FROM t",
    ] {
        one(sql);
    }
}

/// On PostgreSQL text that does not touch Basalt's additions, the two dialects agree.
#[test]
fn agrees_with_postgres_dialect() {
    for sql in [
        "SELECT a, b + 1 * 2 FROM t WHERE c BETWEEN 1 AND 2 OR d IS NOT NULL",
        "SELECT 2 ^ 3 # 1, a << 2, |/ 16, @ -5",
        "SELECT f(t.*) FROM t GROUP BY a HAVING count(*) > 1",
        "UPDATE t SET a = a || 'x' FROM u WHERE t.id = u.id",
        "CREATE TABLE t (a TEXT COLLATE \"C\", CONSTRAINT c CHECK (a <> ''))",
        "SELECT interval '1 day', a NOTNULL FROM t",
    ] {
        let ours = parse(sql).map(|v| v.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>());
        let theirs = sqlparser::parser::Parser::parse_sql(&PostgreSqlDialect {}, sql)
            .map(|v| v.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>());
        assert_eq!(ours.ok(), theirs.ok(), "{sql}");
    }
}

#[test]
fn must_not_parse() {
    for sql in [
        "SELECT",
        "SELECT * FROM",
        "SELECT 1 +",
        "INSERT OR NOTHING INTO t VALUES (1)",
        "CREATE TABLE t (a INT,)",
        "SELECT a <- > b",
        "SELECT 'unterminated",
        "SELECT \"unterminated",
        "SELECT [unterminated",
        "BEGIN SOMETIMES",
        "PRAGMA a = ",
        "SELECT a IN",
        "SELECT a NOT IN",
        "CREATE INDEX i ON t USING hnsw (c) WITH (m = )",
    ] {
        assert!(parse(sql).is_err(), "{sql:?} parsed");
    }
}

// ----- errors -----

#[test]
fn error_position_mid_statement() {
    let sql = "SELECT a,\n       b c d,\n       e FROM t";
    let e = fails(sql);
    assert_eq!((e.line, e.column), (2, 12), "{e}");
    assert_eq!(e.token.as_deref(), Some("d"));
    assert_eq!(e.sqlstate().code(), "42601");
    assert!(
        e.to_string()
            .starts_with("syntax error at line 2, column 12 near \"d\": "),
        "{e}"
    );
    assert_eq!(
        e.caret_display(sql),
        "LINE 2:        b c d,\n                   ^"
    );
}

#[test]
fn error_position_in_later_statement_and_at_end() {
    let sql = "SELECT 1;\nSELECT 2;\nSELECT (3";
    let e = fails(sql);
    assert_eq!((e.line, e.column), (3, 10), "{e}");
    assert_eq!(e.token, None);
    assert!(e.message.contains("end of input"), "{e}");

    // Multi-byte characters before the error: columns count characters.
    let sql = "SELECT 'ünïcødé' , , 1";
    let e = fails(sql);
    assert_eq!((e.line, e.column), (1, 20), "{e}");
    assert_eq!(e.token.as_deref(), Some(","));
    assert!(
        e.caret_display(sql)
            .ends_with(&format!("\n{}^", " ".repeat(8 + 19)))
    );

    // Tokenizer errors carry positions too.
    let e = fails("SELECT 1,\n  'abc");
    assert_eq!(e.line, 2, "{e}");
    assert!(e.message.contains("Unterminated"), "{e}");
}

#[test]
fn no_panic_on_hostile_input() {
    let deep = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
    assert!(parse(&deep).is_err());
    let deep_not = format!("SELECT {}1", "NOT ".repeat(5000));
    assert!(parse(&deep_not).is_err());
    for sql in [
        "\0", "'", "\"", "`", "[", "$", "$$", "?", "@", ":", "/*", "--", "\u{feff}", "é", "\r\n;",
    ] {
        let _ = parse(sql);
        let _ = parse_one(sql);
        let _ = split_statements(sql);
    }
}

// ----- split_statements -----

#[test]
fn split_ranges() {
    let sql = "-- leading comment; not a statement\n\
               INSERT INTO t VALUES ('a;b', \"c;d\");  /* trailing; comment */\n\
               ;;\n\
               SELECT $$x;y$$, 'it''s;' FROM t WHERE a = ?\n\
               ;\n\
               CREATE TRIGGER r AFTER INSERT ON t BEGIN SELECT 1; END;\
               \tSELECT 'ü'";
    let Ok(split) = split_statements(sql) else {
        panic!("{:?}", split_statements(sql))
    };
    let texts: Vec<&str> = split.iter().map(|(_, r)| &sql[r.clone()]).collect();
    assert_eq!(
        texts,
        vec![
            "INSERT INTO t VALUES ('a;b', \"c;d\")",
            "SELECT $$x;y$$, 'it''s;' FROM t WHERE a = ?",
            "CREATE TRIGGER r AFTER INSERT ON t BEGIN SELECT 1; END",
            "SELECT 'ü'",
        ]
    );
    // Each range's text parses to the same statement.
    for (statement, range) in &split {
        assert_eq!(parse_one(&sql[range.clone()]).as_ref(), Ok(statement));
    }
}

// ----- SQLite corpus smoke test -----

/// Extracts the SQL of each record in a sqllogictest file that SQLite is meant to run:
/// `(must_parse, line, sql)`. `must_parse` is false for `statement error` records, whose text
/// may be a deliberate syntax error.
fn slt_records(text: &str) -> Vec<(bool, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut records = Vec::new();
    let mut skip = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        i += 1;
        let mut words = line.split_whitespace();
        match words.next() {
            Some("onlyif") => skip |= words.next() != Some("sqlite"),
            Some("skipif") => skip |= words.next() == Some("sqlite"),
            Some(kind @ ("statement" | "query")) => {
                let must_parse = !(kind == "statement" && words.next() == Some("error"));
                let start = i + 1;
                let mut sql = Vec::new();
                while i < lines.len() && !lines[i].trim().is_empty() && lines[i].trim() != "----" {
                    sql.push(lines[i]);
                    i += 1;
                }
                if !skip {
                    records.push((must_parse, start, sql.join("\n")));
                }
                skip = false;
            }
            _ if line.trim().is_empty() => skip = false,
            _ => {}
        }
    }
    records
}

#[test]
fn sqlite_corpus_smoke() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/slt/sqlite");
    if !root.is_dir() {
        eprintln!("skipping: {} not found", root.display());
        return;
    }
    let mut files = vec![root.join("select1.test")];
    if let Ok(dir) = std::fs::read_dir(root.join("evidence")) {
        let mut evidence: Vec<_> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "test"))
            .collect();
        evidence.sort();
        files.extend(evidence);
    }

    let (mut total, mut failed) = (0usize, Vec::new());
    let (mut error_records, mut error_records_parsing) = (0usize, 0usize);
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (must_parse, line, sql) in slt_records(&text) {
            let result = parse(&sql);
            if !must_parse {
                error_records += 1;
                error_records_parsing += usize::from(result.is_ok());
                continue;
            }
            total += 1;
            if let Err(e) = result {
                failed.push(format!("{name}:{line}: {sql}\n    {e}"));
            }
        }
    }
    eprintln!(
        "SQLite corpus: {} of {total} statements/queries parsed; {} failed",
        total - failed.len(),
        failed.len()
    );
    eprintln!(
        "(`statement error` records, not counted: {error_records_parsing} of {error_records} parse)"
    );
    for f in &failed {
        eprintln!("{f}");
    }
    assert!(total > 0);
    assert!(
        failed.len() * 100 <= total,
        "more than 1% of the corpus failed to parse"
    );
}

// ----- fuzz -----

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Arbitrary text made of SQL-ish fragments never makes the parser panic (tested below
    /// the `catch_unwind` guard, which would otherwise hide a panic), and every error position
    /// lies inside the text.
    #[test]
    fn never_panics(parts in proptest::collection::vec(
        proptest::sample::select(vec![
            "SELECT", "FROM", "WHERE", "(", ")", "[", "]", "'", "\"", "`", "$", "$$", "?", "?1",
            ":a", "@b", "<", "-", ">", "+", "=", "#", "%", "~", "!", ";", ",", ".", "*", "\n",
            "\t", " ", "1", "é", "漢", "--", "/*", "*/", "NOT", "IN", "GLOB", "ISNULL", "INSERT",
            "OR", "REPLACE", "INTO", "PRAGMA", "BEGIN", "END", "CREATE", "TRIGGER", "ON", "t",
        ]),
        0..40,
    )) {
        let sql: String = parts.concat();
        if let Err(e) = split_statements_inner(&sql) {
            let lines = sql.split('\n').count() as u64;
            proptest::prop_assert!(e.line >= 1 && e.line <= lines, "{e} in {sql:?}");
            let _ = e.caret_display(&sql);
        }
    }
}

#[test]
fn sqlite_triggers_parse() {
    let Statement::CreateTrigger(trigger) = one(
        "CREATE TRIGGER t1r1 UPDATE OF a, b ON t1 BEGIN SELECT 1; UPDATE t SET x = new.a; END;",
    ) else {
        panic!("not a trigger");
    };
    assert!(trigger.period.is_none() && !trigger.or_alter);
    assert_eq!(trigger.statements.map(|s| s.statements().len()), Some(2));
    let Statement::CreateTrigger(trigger) = one(
        "CREATE TRIGGER IF NOT EXISTS r AFTER DELETE ON t FOR EACH ROW WHEN old.a > 0 BEGIN DELETE FROM u; END",
    ) else {
        panic!("not a trigger");
    };
    assert!(trigger.or_alter, "IF NOT EXISTS travels in or_alter");
    assert!(trigger.condition.is_some());
    fails("CREATE OR ALTER TRIGGER r AFTER DELETE ON t BEGIN SELECT 1; END");
    // SQLite's RAISE() parses as a function call.
    assert!(matches!(
        select_expr("SELECT RAISE(ABORT, 'no')"),
        Expr::Function(_)
    ));
}

#[test]
fn between_symmetric_is_rewritten_as_postgres_does() {
    let cases = [
        (
            "SELECT x BETWEEN SYMMETRIC a + 1 AND b AND c",
            "(x BETWEEN a + 1 AND b OR x BETWEEN b AND a + 1) AND c",
        ),
        (
            "SELECT x NOT BETWEEN SYMMETRIC a AND b",
            "(x NOT BETWEEN a AND b AND x NOT BETWEEN b AND a)",
        ),
        ("SELECT x BETWEEN ASYMMETRIC a AND b", "x BETWEEN a AND b"),
        (
            "SELECT x NOT BETWEEN ASYMMETRIC a AND b",
            "x NOT BETWEEN a AND b",
        ),
        ("SELECT x BETWEEN a AND b", "x BETWEEN a AND b"),
    ];
    for (sql, expected) in cases {
        assert_eq!(select_expr(sql).to_string(), expected, "{sql}");
    }
}

#[test]
fn trim_takes_postgres_argument_forms() {
    let cases = [
        ("SELECT TRIM(FROM s)", "TRIM(s)"),
        ("SELECT TRIM(BOTH FROM s)", "TRIM(BOTH s)"),
        (
            "SELECT TRIM(LEADING 'x' FROM s)",
            "TRIM(LEADING 'x' FROM s)",
        ),
        ("SELECT TRIM(TRAILING s, 'x')", "TRIM(TRAILING s, 'x')"),
        ("SELECT trim(s)", "TRIM(s)"),
        ("SELECT TRIM(FROM s, 'x')", "TRIM(s, 'x')"),
    ];
    for (sql, expected) in cases {
        assert_eq!(select_expr(sql).to_string(), expected, "{sql}");
    }
}

// ----- sequences -----

#[test]
fn create_sequence_options_in_any_order() {
    let Statement::CreateSequence {
        name,
        data_type,
        sequence_options,
        owned_by,
        ..
    } = one(
        "CREATE SEQUENCE public.t_id_seq AS integer START WITH 1 INCREMENT BY 1 NO MINVALUE \
         NO MAXVALUE CACHE 1 OWNED BY NONE",
    )
    else {
        panic!()
    };
    assert_eq!(name.to_string(), "public.t_id_seq");
    assert_eq!(data_type.map(|t| t.to_string()).as_deref(), Some("INTEGER"));
    let written: Vec<String> = sequence_options.iter().map(ToString::to_string).collect();
    assert_eq!(
        written.join("").split_whitespace().collect::<Vec<_>>(),
        [
            "START",
            "WITH",
            "1",
            "INCREMENT",
            "BY",
            "1",
            "NO",
            "MINVALUE",
            "NO",
            "MAXVALUE",
            "CACHE",
            "1"
        ]
    );
    assert_eq!(owned_by.map(|o| o.to_string()).as_deref(), Some("NONE"));
    let e = fails("CREATE SEQUENCE s START 1 START 2");
    assert!(
        e.message.contains("conflicting or redundant options"),
        "{e}"
    );
}

#[test]
fn alter_sequence_is_carried_as_alter_connector() {
    use crate::sql::sequence_syntax::AlterOption;
    let Statement::AlterConnector {
        name,
        properties: Some(properties),
        ..
    } = one("ALTER SEQUENCE IF EXISTS public.s RESTART WITH -5 INCREMENT 2 NO MAXVALUE CYCLE")
    else {
        panic!()
    };
    assert_eq!(name.value, "s");
    let keys: Vec<(Option<AlterOption>, String)> = properties
        .iter()
        .map(|property| match property {
            sqlparser::ast::SqlOption::KeyValue { key, value } => {
                (AlterOption::of_key(&key.value), value.to_string())
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        keys,
        [
            (Some(AlterOption::IfExists), "true".to_string()),
            (Some(AlterOption::Increment), "2".to_string()),
            (Some(AlterOption::MaxValue), "NULL".to_string()),
            (Some(AlterOption::Cycle), "true".to_string()),
            (Some(AlterOption::Restart), "-5".to_string()),
        ]
    );
    assert!(parse_one("ALTER SEQUENCE s").is_err());
    assert!(parse_one("ALTER CONNECTOR c SET URL 'x'").is_err());
}

#[test]
fn insert_overriding_clause_goes_to_its_own_statement() {
    use super::insert_syntax::{Overriding, overriding};
    let statements = parse(
        "INSERT INTO a (id) VALUES (1); INSERT INTO a (id) overriding user value VALUES (2); \
         INSERT INTO a (id) OVERRIDING SYSTEM VALUE SELECT 3",
    )
    .unwrap();
    let kinds: Vec<Overriding> = statements
        .iter()
        .map(|statement| match statement {
            Statement::Insert(insert) => overriding(insert),
            other => panic!("not an INSERT: {other}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [Overriding::None, Overriding::User, Overriding::System]
    );
    // Quoted, it is a name; anything but SYSTEM / USER VALUE is left to the parser.
    assert!(parse("SELECT 1 AS \"overriding\"").is_ok());
    let error = fails("SELECT 1; SELECT 2 OVERRIDING SYSTEM VALUE");
    assert_eq!((error.line, error.column), (1, 20));
    assert!(parse("INSERT INTO a (id) OVERRIDING ANY VALUE VALUES (1)").is_err());
}
