//! `BasaltDialect`: the sqlparser [`Dialect`] that defines what SQL text Basalt accepts.
//!
//! Basalt speaks PostgreSQL's dialect and also accepts SQLite's common forms, so that both
//! PostgreSQL users and programs written against SQLite feel at home. This module is the one
//! place where that policy meets the parser; everything above it (the binder in `plan/`) sees
//! only sqlparser's AST.
//!
//! # How it is built
//!
//! sqlparser decides some behaviour through `Dialect` methods and some through type checks
//! (`dialect_of!(parser is PostgreSqlDialect)`). [`BasaltDialect::dialect`] therefore reports
//! `PostgreSqlDialect`'s `TypeId`, so every PostgreSQL-only branch of the parser (`^` as
//! exponentiation, `@` as absolute value, `MATERIALIZED` CTEs, `E'..'` strings, ...) is taken.
//! Every method that `PostgreSqlDialect` overrides is delegated to it explicitly below (the
//! crate is pinned to exactly 0.63.0, so that list cannot drift silently; a test compares the
//! two dialects on PostgreSQL text). On top of that the dialect changes a few lexical rules
//! and adds SQLite forms through the parser's hooks (`parse_statement`, `parse_prefix`,
//! `parse_infix`, `get_next_precedence`, `parse_column_option`). No sqlparser code is forked.
//!
//! # What differs from `PostgreSqlDialect`, and why
//!
//! * Identifiers may also be quoted with backticks and `[brackets]` (SQLite, MySQL, T-SQL
//!   heritage). Statements are tokenized with `[` as a bracket (PostgreSQL's arrays:
//!   `ARRAY[1,2]`, `a[1]`, `int[]`), and a bracket pair where an identifier would start is
//!   turned back into a quoted identifier (`sql::brackets`). [`BasaltDialect::new`] keeps
//!   the old rule (every `[` starts a quoted identifier) for tools that only split text into
//!   statements.
//! * `?` is never part of a longer operator: `?` and `?NNN` are placeholders (also in `x<?`),
//!   except a bare `?` right after an operand, which is jsonb's key-exists operator (see
//!   `key_exists_operator`), and `?|` / `?&` written together right after an operand,
//!   PostgreSQL's any / all keys operators (see `key_list_operator`).
//! * `+` and `-` are never part of a multi-character operator, so `a<-1`, `a>-1` and `a%-1`
//!   mean what SQLite (and common sense) say rather than being lexed as operators `<-`, `>-`,
//!   `%-`. The pgvector operators `<->` and `<+>`, which do contain them, are reassembled from
//!   their adjacent tokens by the `parse_infix` hook.
//! * The pgvector distance operators `<->` (L2), `<#>` (negative inner product), `<=>`
//!   (cosine), `<+>` (L1), `<~>` (Hamming) and `<%>` (Jaccard) all parse as
//!   `Expr::BinaryOp { op: BinaryOperator::Custom("<->"), .. }` (operator text verbatim) at
//!   PostgreSQL's "any other operator" precedence: tighter than comparisons and `LIKE`, looser
//!   than `+` and `-`. So `a <-> b < 0.5` is `(a <-> b) < 0.5` and `a <-> b + c` is
//!   `a <-> (b + c)`, exactly as in PostgreSQL. `<=>` is *not* MySQL's null-safe equality.
//! * `@name` (no space after `@`) is a placeholder; `@ x` with a space is still PostgreSQL's
//!   absolute value.
//! * SQLite statements and clauses: `REPLACE INTO` (same AST as `INSERT OR REPLACE`),
//!   `PRAGMA name = ident` / `PRAGMA name(-1)` (identifiers and signed numbers as values),
//!   `AUTOINCREMENT`, `GLOB` / `NOT GLOB`, postfix `ISNULL`, `BEGIN DEFERRED|IMMEDIATE|EXCLUSIVE`,
//!   `x IN ()`, `x IN table` (as `x IN (SELECT * FROM table)`), `LIMIT offset, count`,
//!   `ASC`/`DESC` after a column's type.
//! * `x [NOT] BETWEEN SYMMETRIC a AND b` (and `ASYMMETRIC`, the default), which sqlparser
//!   lacks, rewritten as PostgreSQL's parser rewrites it (see `parse_between_symmetric`).
//! * `TRIM(FROM s)`, `TRIM(BOTH FROM s)`, `TRIM(LEADING s, chars)`: PostgreSQL's forms of
//!   `TRIM` that sqlparser rejects or misreads (see `parse_trim`).
//! * `REINDEX [INDEX | TABLE | DATABASE] [name]` (SQLite and PostgreSQL), which sqlparser
//!   lacks, returned as Redshift's `VACUUM REINDEX [name]` AST (see `parse_reindex`).
//! * `CREATE SEQUENCE` options in any order and `ALTER SEQUENCE` (see `sequence_syntax`).
//! * `INSERT ... OVERRIDING SYSTEM | USER VALUE`, taken out of the tokens before parsing
//!   (see `insert_syntax`).
//! * SQLite's `CREATE TRIGGER IF NOT EXISTS`: sqlparser's `CreateTrigger` has no field for
//!   it, so it is carried in `or_alter` (T-SQL's `CREATE OR ALTER`, which Basalt does not
//!   accept: `CREATE OR ALTER TRIGGER` is a syntax error here, leaving the field free).
//!   The rest of SQLite's trigger syntax (`BEGIN stmt; ... END`, optional timing and
//!   `FOR EACH ROW`, `UPDATE OF cols`, `WHEN`) sqlparser parses as it is.

use sqlparser::ast::{
    BinaryOperator, ColumnOption, Expr, Statement, TrimWhereField, UnaryOperator, Value,
};
use sqlparser::dialect::{Dialect, PostgreSqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Span, Token, TokenWithSpan};

use super::sequence_syntax::{parse_alter_sequence, parse_create_sequence};

/// The PostgreSQL dialect this one delegates to.
const PG: PostgreSqlDialect = PostgreSqlDialect {};

/// The pgvector operators that the tokenizer returns whole, as `Token::CustomBinaryOperator`.
const VECTOR_OPERATORS_WHOLE: [&str; 3] = ["<#>", "<~>", "<%>"];

/// Basalt's SQL dialect: PostgreSQL plus SQLite's common forms plus pgvector's operators.
///
/// See the module documentation for every difference from sqlparser's `PostgreSqlDialect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BasaltDialect {
    /// Whether `[` starts a quoted identifier (true) or is a bracket (false).
    brackets_quote: bool,
}

impl Default for BasaltDialect {
    fn default() -> Self {
        BasaltDialect::new()
    }
}

impl BasaltDialect {
    /// The dialect, with every `[` starting a quoted identifier: what splitting text into
    /// statements needs (a `;` inside `[...]` is not a separator).
    pub const fn new() -> Self {
        BasaltDialect {
            brackets_quote: true,
        }
    }

    /// The dialect with `[` and `]` as brackets, which `sql::tokenize` uses before it turns
    /// identifier-position brackets back into quoted identifiers.
    pub(crate) const fn with_brackets() -> Self {
        BasaltDialect {
            brackets_quote: false,
        }
    }
}

/// Whether `b` starts exactly where `a` ends (no whitespace or comment between them).
fn adjacent(a: &TokenWithSpan, b: &TokenWithSpan) -> bool {
    a.span.end == b.span.start && a.span.end.line != 0
}

/// Recognises a pgvector operator at the parser's position: returns its text and how many
/// (non-whitespace, mutually adjacent) tokens it spans.
///
/// `<->` arrives as `<` `->` (the tokenizer lexes `->` greedily), `<+>` as `<` `+` `>`,
/// `<=>` as the single `Token::Spaceship`, and `<#>`, `<~>`, `<%>` as one
/// `Token::CustomBinaryOperator`.
fn vector_operator(parser: &Parser<'_>) -> Option<(&'static str, usize)> {
    let [t0, t1, t2] = parser.peek_tokens_ref::<3>();
    match (&t0.token, &t1.token, &t2.token) {
        (Token::Spaceship, _, _) => Some(("<=>", 1)),
        (Token::CustomBinaryOperator(op), _, _) => VECTOR_OPERATORS_WHOLE
            .iter()
            .find(|known| **known == op.as_str())
            .map(|known| (*known, 1)),
        (Token::Lt, Token::Arrow, _) if adjacent(t0, t1) => Some(("<->", 2)),
        (Token::Lt, Token::Plus, Token::Gt) if adjacent(t0, t1) && adjacent(t1, t2) => {
            Some(("<+>", 3))
        }
        _ => None,
    }
}

/// `expr op right`, parsing `right` at `precedence` (the operator's tokens already taken).
fn right_operand(
    parser: &mut Parser<'_>,
    expr: &Expr,
    precedence: u8,
    op: BinaryOperator,
) -> Result<Expr, ParserError> {
    parser
        .parse_subexpr(precedence)
        .map(|right| Expr::BinaryOp {
            left: Box::new(expr.clone()),
            op,
            right: Box::new(right),
        })
}

/// PostgreSQL's `?|` and `?&` (any / all of a text[] of keys exist), met after an operand:
/// a bare `?` placeholder token directly followed, with no space, by `|` or `&`. Neither can
/// start an operand, so `x ?| y` was never a placeholder; the operator and the number of
/// tokens it spans.
fn key_list_operator(parser: &Parser<'_>) -> Option<BinaryOperator> {
    let [question, next] = parser.peek_tokens_ref::<2>();
    if !key_exists_operator(&question.token) || !adjacent(question, next) {
        return None;
    }
    match next.token {
        Token::Pipe => Some(BinaryOperator::QuestionPipe),
        Token::Ampersand => Some(BinaryOperator::QuestionAnd),
        _ => None,
    }
}

/// Whether the next token, met after an operand, is a bare `?`: jsonb's key-exists operator
/// (PostgreSQL's "any other operator" precedence), since a placeholder is an operand and
/// cannot directly follow another one. `doc ? ?` is the operator with a placeholder key.
fn key_exists_operator(token: &Token) -> bool {
    matches!(token, Token::Placeholder(text) if text == "?")
}

/// Whether the next token is the bare word `ISNULL` (sqlparser has no keyword for it).
fn is_isnull_word(token: &Token) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("isnull"))
}

/// Parses the value of `PRAGMA name = value` or `PRAGMA name(value)`.
///
/// SQLite accepts identifiers and keywords (`WAL`, `ON`, `NORMAL`) and signed numbers
/// (`-2000`) where sqlparser's own PRAGMA parser only takes numbers, strings and
/// placeholders. A bare word is returned as `Value::SingleQuotedString` holding the word as
/// written, since SQLite treats `journal_mode=wal` and `journal_mode='wal'` alike.
fn parse_pragma_value(
    parser: &mut Parser<'_>,
) -> Result<sqlparser::ast::ValueWithSpan, ParserError> {
    let next = parser.peek_token_ref().clone();
    match &next.token {
        Token::Word(w) => {
            parser.advance_token();
            Ok(Value::SingleQuotedString(w.value.clone()).with_span(next.span))
        }
        Token::Minus | Token::Plus => {
            parser.advance_token();
            let number = parser.next_token();
            match number.token {
                Token::Number(n, long) => {
                    let sign = if next.token == Token::Minus { "-" } else { "" };
                    Ok(Value::Number(format!("{sign}{n}"), long)
                        .with_span(Span::new(next.span.start, number.span.end)))
                }
                _ => parser.expected("a number after the sign", number),
            }
        }
        Token::Number(..) | Token::SingleQuotedString(_) | Token::Placeholder(_) => {
            parser.parse_value()
        }
        _ => parser.expected("a number, string or name", next),
    }
}

/// `REINDEX [INDEX | TABLE | DATABASE | SCHEMA | SYSTEM] [name]` (SQLite's form and
/// PostgreSQL's). sqlparser has no REINDEX statement, so it is returned as the one AST node
/// that already means "rebuild indexes": Redshift's `VACUUM REINDEX [name]`, i.e.
/// `Statement::Vacuum` with only `reindex` set. The binder reads exactly that shape as
/// REINDEX. The object kind word is accepted but not checked against the name's kind; a
/// database, schema or system name is ignored (Basalt has one), which rebuilds every index.
fn parse_reindex(parser: &mut Parser<'_>) -> Result<Statement, ParserError> {
    let whole_database =
        parser.parse_one_of_keywords(&[Keyword::DATABASE, Keyword::SCHEMA, Keyword::SYSTEM]);
    if whole_database.is_none() {
        // `INDEX` / `TABLE` only say what the name is.
        let _ = parser.parse_one_of_keywords(&[Keyword::INDEX, Keyword::TABLE]);
    }
    let name = match parser.peek_token_ref().token {
        Token::EOF | Token::SemiColon => None,
        _ => Some(parser.parse_object_name(false)?),
    };
    Ok(Statement::Vacuum(sqlparser::ast::VacuumStatement {
        full: false,
        sort_only: false,
        delete_only: false,
        reindex: true,
        recluster: false,
        table_name: name.filter(|_| whole_database.is_none()),
        threshold: None,
        boost: false,
    }))
}

/// PostgreSQL's `VACUUM [FULL] [FREEZE] [VERBOSE] [ANALYZE] [table [(columns)] [, ...]]` and
/// `VACUUM (option [value] [, ...]) [table ...]` (pgbench sends `vacuum analyze t`), which
/// sqlparser reads only as `VACUUM [FULL] [name]`. Returned as `Statement::Vacuum` with
/// `full` as given and, for ANALYZE, `recluster` set (a Redshift word Basalt has no other
/// use for; the binder reads it as "then ANALYZE"). One table is kept as `table_name`;
/// several become none (VACUUM rebuilds the whole file either way, and ANALYZE then takes
/// every table). FREEZE, VERBOSE and PostgreSQL's other options are accepted and change
/// nothing; an unknown option is a syntax error, as in PostgreSQL.
fn parse_vacuum(parser: &mut Parser<'_>) -> Result<Statement, ParserError> {
    let mut full = false;
    let mut analyze = false;
    if parser.consume_token(&Token::LParen) {
        loop {
            let option = parser.parse_identifier()?.value.to_lowercase();
            let enabled = match &parser.peek_token_ref().token {
                Token::Comma | Token::RParen => true,
                _ => {
                    let value = parser.next_token();
                    !matches!(
                        &value.token,
                        Token::Word(word) if matches!(word.value.to_lowercase().as_str(), "false" | "off")
                    ) && !matches!(&value.token, Token::Number(n, _) if n == "0")
                }
            };
            match option.as_str() {
                "full" => full = enabled,
                "analyze" | "analyse" => analyze = enabled,
                "verbose"
                | "freeze"
                | "skip_locked"
                | "disable_page_skipping"
                | "index_cleanup"
                | "process_toast"
                | "process_main"
                | "truncate"
                | "parallel"
                | "skip_database_stats"
                | "only_database_stats"
                | "buffer_usage_limit" => {}
                other => {
                    return Err(ParserError::ParserError(format!(
                        "unrecognized VACUUM option \"{other}\""
                    )));
                }
            }
            if !parser.consume_token(&Token::Comma) {
                parser.expect_token(&Token::RParen)?;
                break;
            }
        }
    } else {
        full = parser.parse_keyword(Keyword::FULL);
        let _ = parser.parse_keyword(Keyword::FREEZE);
        let _ = parser.parse_keyword(Keyword::VERBOSE);
        analyze = parser.parse_keyword(Keyword::ANALYZE);
        // PostgreSQL's British spelling, which sqlparser has no keyword for.
        if !analyze
            && matches!(&parser.peek_token_ref().token, Token::Word(word) if word.quote_style.is_none() && word.value.eq_ignore_ascii_case("analyse"))
        {
            parser.advance_token();
            analyze = true;
        }
    }
    let mut tables = Vec::new();
    if !matches!(parser.peek_token_ref().token, Token::EOF | Token::SemiColon) {
        loop {
            tables.push(parser.parse_object_name(false)?);
            // A column list says what ANALYZE samples; Basalt's ANALYZE takes every column.
            if parser.consume_token(&Token::LParen) {
                parser.parse_comma_separated(|p| p.parse_identifier())?;
                parser.expect_token(&Token::RParen)?;
            }
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
    }
    let table_name = match tables.len() {
        1 => tables.pop(),
        _ => None,
    };
    Ok(Statement::Vacuum(sqlparser::ast::VacuumStatement {
        full,
        sort_only: false,
        delete_only: false,
        reindex: false,
        recluster: analyze,
        table_name,
        threshold: None,
        boost: false,
    }))
}

/// `PRAGMA [schema.]name [= value | (value)]`, with SQLite's value forms.
/// `CREATE TRIGGER IF NOT EXISTS ...` as a `CreateTrigger` with `or_alter` set (see the module
/// documentation); `CREATE OR ALTER TRIGGER` refused. `None` for any other statement.
fn parse_create_trigger_if_not_exists(
    parser: &mut Parser<'_>,
) -> Option<Result<Statement, ParserError>> {
    let [create, second, third] = parser.peek_tokens_ref::<3>();
    let is_word = |token: &TokenWithSpan, keyword: Keyword| matches!(&token.token, Token::Word(word) if word.keyword == keyword && word.quote_style.is_none());
    if !is_word(create, Keyword::CREATE) {
        return None;
    }
    if is_word(second, Keyword::OR) && is_word(third, Keyword::ALTER) {
        return Some(Err(ParserError::ParserError(
            "CREATE OR ALTER is not supported".into(),
        )));
    }
    if !is_word(second, Keyword::TRIGGER) || !is_word(third, Keyword::IF) {
        return None;
    }
    parser.advance_token();
    parser.advance_token();
    if !parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]) {
        return Some(parser.expected_ref("IF NOT EXISTS", parser.peek_token_ref()));
    }
    Some(
        parser
            .parse_create_trigger(false, true, false, false)
            .map(Statement::CreateTrigger),
    )
}

fn parse_pragma(parser: &mut Parser<'_>) -> Result<Statement, ParserError> {
    let name = parser.parse_object_name(false)?;
    if parser.consume_token(&Token::LParen) {
        let value = parse_pragma_value(parser)?;
        parser.expect_token(&Token::RParen)?;
        Ok(Statement::Pragma {
            name,
            value: Some(value),
            is_eq: false,
        })
    } else if parser.consume_token(&Token::Eq) {
        Ok(Statement::Pragma {
            name,
            value: Some(parse_pragma_value(parser)?),
            is_eq: true,
        })
    } else {
        Ok(Statement::Pragma {
            name,
            value: None,
            is_eq: false,
        })
    }
}

/// SQLite's `x [NOT] IN table`, which means `x [NOT] IN (SELECT * FROM table)`, and is
/// represented that way: `Expr::InSubquery` whose subquery is `SELECT * FROM table`.
///
/// Returns `None` (consuming nothing) unless the next tokens are `[NOT] IN` and a word other
/// than `UNNEST`, so that `IN (...)` and everything else take sqlparser's path.
fn parse_in_table(parser: &mut Parser<'_>, expr: &Expr) -> Option<Result<Expr, ParserError>> {
    let [t0, t1, t2] = parser.peek_tokens_ref::<3>();
    let is_kw =
        |t: &TokenWithSpan, k: Keyword| matches!(&t.token, Token::Word(w) if w.keyword == k);
    let is_table = |t: &TokenWithSpan| matches!(&t.token, Token::Word(w) if w.keyword != Keyword::UNNEST || w.quote_style.is_some());
    let negated = if is_kw(t0, Keyword::IN) && is_table(t1) {
        false
    } else if is_kw(t0, Keyword::NOT) && is_kw(t1, Keyword::IN) && is_table(t2) {
        true
    } else {
        return None;
    };
    parser.advance_token();
    if negated {
        parser.advance_token();
    }
    Some((|| {
        let table = parser.parse_object_name(false)?;
        // Building a Query by hand would spell out every field of sqlparser's Select; parsing
        // the equivalent text is shorter and stays correct across its AST changes. The table
        // name is printed with its original quoting, so it round-trips exactly.
        let dialect = BasaltDialect::new();
        let subquery = Parser::new(&dialect)
            .try_with_sql(&format!("SELECT * FROM {table}"))?
            .parse_query()?;
        Ok(Expr::InSubquery {
            expr: Box::new(expr.clone()),
            subquery,
            negated,
        })
    })())
}

/// `TRIM(...)` with all of PostgreSQL's argument forms: `[BOTH | LEADING | TRAILING]`, then
/// `[chars] FROM s`, `FROM s [, chars]` or `s [, chars]`. sqlparser's own parser rejects
/// `TRIM(FROM s)` and `TRIM(BOTH FROM s)`, and drops `LEADING`/`TRAILING` from
/// `TRIM(LEADING s, chars)`. The result is sqlparser's `Expr::Trim`, with the characters of
/// the comma forms in `trim_characters`.
fn parse_trim(parser: &mut Parser<'_>) -> Option<Result<Expr, ParserError>> {
    let [trim, paren] = parser.peek_tokens_ref::<2>();
    let is_trim = matches!(&trim.token, Token::Word(w) if w.keyword == Keyword::TRIM)
        && paren.token == Token::LParen;
    if !is_trim {
        return None;
    }
    parser.advance_token();
    Some(parse_trim_arguments(parser))
}

fn parse_trim_arguments(parser: &mut Parser<'_>) -> Result<Expr, ParserError> {
    parser.expect_token(&Token::LParen)?;
    let trim_where =
        match parser.parse_one_of_keywords(&[Keyword::BOTH, Keyword::LEADING, Keyword::TRAILING]) {
            Some(Keyword::BOTH) => Some(TrimWhereField::Both),
            Some(Keyword::LEADING) => Some(TrimWhereField::Leading),
            Some(Keyword::TRAILING) => Some(TrimWhereField::Trailing),
            _ => None,
        };
    let (expr, trim_what) = if parser.parse_keyword(Keyword::FROM) {
        (parser.parse_expr()?, None)
    } else {
        let first = parser.parse_expr()?;
        if parser.parse_keyword(Keyword::FROM) {
            (parser.parse_expr()?, Some(Box::new(first)))
        } else {
            (first, None)
        }
    };
    let trim_characters = if parser.consume_token(&Token::Comma) {
        Some(parser.parse_comma_separated(Parser::parse_expr)?)
    } else {
        None
    };
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::Trim {
        expr: Box::new(expr),
        trim_where,
        trim_what,
        trim_characters,
    })
}

/// PostgreSQL's `x [NOT] BETWEEN SYMMETRIC a AND b` and `x [NOT] BETWEEN ASYMMETRIC a AND b`,
/// which sqlparser does not parse (its `Expr::Between` has no field for it).
///
/// `ASYMMETRIC` is plain `BETWEEN`. `SYMMETRIC` is rewritten here as PostgreSQL's own parser
/// rewrites it: `(x BETWEEN a AND b OR x BETWEEN b AND a)`, and the negated form
/// `(x NOT BETWEEN a AND b AND x NOT BETWEEN b AND a)` (the same thing by De Morgan, which
/// holds in three-valued logic). As in PostgreSQL, `x` is therefore evaluated twice.
fn parse_between_symmetric(
    parser: &mut Parser<'_>,
    expr: &Expr,
) -> Option<Result<Expr, ParserError>> {
    for (keyword, symmetric) in [(Keyword::SYMMETRIC, true), (Keyword::ASYMMETRIC, false)] {
        let negated = parser.parse_keywords(&[Keyword::NOT, Keyword::BETWEEN, keyword]);
        if !negated && !parser.parse_keywords(&[Keyword::BETWEEN, keyword]) {
            continue;
        }
        let between = parser.parse_between(expr.clone(), negated);
        if !symmetric {
            return Some(between);
        }
        return Some(between.map(|between| {
            let Expr::Between { low, high, .. } = &between else {
                return between;
            };
            let swapped = Expr::Between {
                expr: Box::new(expr.clone()),
                negated,
                low: high.clone(),
                high: low.clone(),
            };
            Expr::Nested(Box::new(Expr::BinaryOp {
                left: Box::new(between),
                op: if negated {
                    BinaryOperator::And
                } else {
                    BinaryOperator::Or
                },
                right: Box::new(swapped),
            }))
        }));
    }
    None
}

impl Dialect for BasaltDialect {
    // ----- identity: take every `dialect_of!(.. is PostgreSqlDialect)` branch -----

    fn dialect(&self) -> std::any::TypeId {
        std::any::TypeId::of::<PostgreSqlDialect>()
    }

    // ----- lexical rules -----

    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        // PostgreSQL's "..." plus SQLite's `...` and [...].
        ch == '"' || ch == '`' || (ch == '[' && self.brackets_quote)
    }

    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        PG.identifier_quote_style(identifier)
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        PG.is_identifier_start(ch)
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        PG.is_identifier_part(ch)
    }

    fn is_custom_operator_part(&self, ch: char) -> bool {
        // Not `?` (always a placeholder) and not `+`/`-` (so `a<-1` is `a < -1`); see the
        // module documentation.
        !matches!(ch, '?' | '+' | '-') && PG.is_custom_operator_part(ch)
    }

    // ----- hooks: Basalt's additions -----

    fn parse_statement(&self, parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
        if parser.peek_keyword(Keyword::REPLACE) {
            // SQLite's `REPLACE INTO t ...` is `INSERT OR REPLACE INTO t ...`. Leaving
            // `REPLACE` unconsumed lets `parse_insert`'s conflict clause read it, which yields
            // `Insert { or: Some(SqliteOnConflict::Replace), .. }` (as sqlparser's SQLite
            // dialect does).
            let token = parser.peek_token_ref().clone();
            return Some(parser.parse_insert(token));
        }
        if parser.parse_keyword(Keyword::PRAGMA) {
            return Some(parse_pragma(parser));
        }
        if parser.parse_keyword(Keyword::REINDEX) {
            return Some(parse_reindex(parser));
        }
        if parser.parse_keyword(Keyword::VACUUM) {
            return Some(parse_vacuum(parser));
        }
        if let Some(result) = parse_create_trigger_if_not_exists(parser) {
            return Some(result);
        }
        // CREATE SEQUENCE options in any order, ALTER SEQUENCE, and pg_dump's ALTER TABLE
        // ... ADD GENERATED AS IDENTITY (SEQUENCE NAME ...).
        for parse in [
            parse_create_sequence,
            parse_alter_sequence,
            super::identity_syntax::parse_add_identity,
        ] {
            if let Some(result) = parse(parser) {
                return Some(result);
            }
        }
        // PostgreSQL's FETCH and MOVE (see cursor_syntax).
        if let Some(result) = super::cursor_syntax::parse_fetch_or_move(parser) {
            return Some(result);
        }
        PG.parse_statement(parser)
    }

    fn parse_prefix(&self, parser: &mut Parser<'_>) -> Option<Result<Expr, ParserError>> {
        // `@name` placeholder: `@` immediately followed by a word. (sqlparser would otherwise
        // take PostgreSQL's prefix `@`, absolute value.)
        let [at, word] = parser.peek_tokens_ref::<2>();
        if at.token == Token::AtSign && matches!(word.token, Token::Word(_)) && adjacent(at, word) {
            return Some(parser.parse_value().map(Expr::Value));
        }
        if let Some(result) = parse_trim(parser) {
            return Some(result);
        }
        PG.parse_prefix(parser)
    }

    fn parse_infix(
        &self,
        parser: &mut Parser<'_>,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if let Some((op, tokens)) = vector_operator(parser) {
            for _ in 0..tokens {
                parser.advance_token();
            }
            return Some(right_operand(
                parser,
                expr,
                precedence,
                BinaryOperator::Custom(op.to_string()),
            ));
        }
        if is_isnull_word(&parser.peek_token_ref().token) {
            parser.advance_token();
            return Some(Ok(Expr::IsNull(Box::new(expr.clone()))));
        }
        if let Some(op) = key_list_operator(parser) {
            parser.advance_token();
            parser.advance_token();
            return Some(right_operand(parser, expr, precedence, op));
        }
        if key_exists_operator(&parser.peek_token_ref().token) {
            parser.advance_token();
            return Some(right_operand(
                parser,
                expr,
                precedence,
                BinaryOperator::Question,
            ));
        }
        if let Some(result) = parse_in_table(parser, expr) {
            return Some(result);
        }
        if let Some(result) = parse_between_symmetric(parser, expr) {
            return Some(result);
        }
        // SQLite's GLOB; sqlparser only parses it for SQLiteDialect. NOT GLOB becomes
        // NOT (a GLOB b), since BinaryOperator has no negated form.
        let negated = parser.parse_keywords(&[Keyword::NOT, Keyword::GLOB]);
        if negated || parser.parse_keyword(Keyword::GLOB) {
            return Some(parser.parse_subexpr(precedence).map(|right| {
                let glob = Expr::BinaryOp {
                    left: Box::new(expr.clone()),
                    op: BinaryOperator::Glob,
                    right: Box::new(right),
                };
                if negated {
                    Expr::UnaryOp {
                        op: UnaryOperator::Not,
                        expr: Box::new(glob),
                    }
                } else {
                    glob
                }
            }));
        }
        PG.parse_infix(parser, expr, precedence)
    }

    fn get_next_precedence(&self, parser: &Parser<'_>) -> Option<Result<u8, ParserError>> {
        if vector_operator(parser).is_some() {
            return Some(Ok(self.prec_value(Precedence::PgOther)));
        }
        if is_isnull_word(&parser.peek_token_ref().token) {
            return Some(Ok(self.prec_value(Precedence::Is)));
        }
        if key_exists_operator(&parser.peek_token_ref().token)
            || key_list_operator(parser).is_some()
        {
            return Some(Ok(self.prec_value(Precedence::PgOther)));
        }
        PG.get_next_precedence(parser)
    }

    fn parse_column_option(
        &self,
        parser: &mut Parser<'_>,
    ) -> Result<Option<Result<Option<ColumnOption>, ParserError>>, ParserError> {
        // SQLite's AUTOINCREMENT; same representation as sqlparser's SQLite dialect.
        if parser.parse_keyword(Keyword::AUTOINCREMENT) {
            return Ok(Some(Ok(Some(ColumnOption::DialectSpecific(vec![
                Token::make_keyword("AUTOINCREMENT"),
            ])))));
        }
        PG.parse_column_option(parser)
    }

    // ----- SQLite additions -----

    fn supports_start_transaction_modifier(&self) -> bool {
        true // BEGIN DEFERRED | IMMEDIATE | EXCLUSIVE
    }

    fn supports_in_empty_list(&self) -> bool {
        true // x IN ()
    }

    fn supports_limit_comma(&self) -> bool {
        true // LIMIT offset, count
    }

    fn supports_asc_desc_in_column_definition(&self) -> bool {
        true // CREATE TABLE t(id INTEGER PRIMARY KEY DESC)
    }

    fn supports_geometric_types(&self) -> bool {
        // PostgreSQL enables this; it turns `?` into a jsonb operator token and `<->` into a
        // geometric one. Basalt needs `?` as a placeholder and `<->` as pgvector's distance.
        false
    }

    // ----- everything else PostgreSqlDialect overrides, delegated -----

    fn supports_unicode_string_literal(&self) -> bool {
        PG.supports_unicode_string_literal()
    }

    fn is_reserved_for_identifier(&self, kw: Keyword) -> bool {
        PG.is_reserved_for_identifier(kw)
    }

    fn is_table_alias(&self, kw: &Keyword, parser: &mut Parser<'_>) -> bool {
        PG.is_table_alias(kw, parser)
    }

    fn supports_filter_during_aggregation(&self) -> bool {
        PG.supports_filter_during_aggregation()
    }

    fn supports_group_by_expr(&self) -> bool {
        PG.supports_group_by_expr()
    }

    fn supports_alter_user_as_alter_role(&self) -> bool {
        PG.supports_alter_user_as_alter_role()
    }

    fn prec_value(&self, prec: Precedence) -> u8 {
        PG.prec_value(prec)
    }

    fn allow_extract_custom(&self) -> bool {
        PG.allow_extract_custom()
    }

    fn allow_extract_single_quotes(&self) -> bool {
        PG.allow_extract_single_quotes()
    }

    fn supports_create_index_with_clause(&self) -> bool {
        PG.supports_create_index_with_clause()
    }

    fn supports_explain_with_utility_options(&self) -> bool {
        PG.supports_explain_with_utility_options()
    }

    fn supports_listen_notify(&self) -> bool {
        PG.supports_listen_notify()
    }

    fn supports_exclude_constraint(&self) -> bool {
        PG.supports_exclude_constraint()
    }

    fn supports_factorial_operator(&self) -> bool {
        PG.supports_factorial_operator()
    }

    fn supports_bitwise_shift_operators(&self) -> bool {
        PG.supports_bitwise_shift_operators()
    }

    fn supports_comment_on(&self) -> bool {
        PG.supports_comment_on()
    }

    fn supports_load_extension(&self) -> bool {
        PG.supports_load_extension()
    }

    fn supports_named_fn_args_with_colon_operator(&self) -> bool {
        PG.supports_named_fn_args_with_colon_operator()
    }

    fn supports_named_fn_args_with_expr_name(&self) -> bool {
        PG.supports_named_fn_args_with_expr_name()
    }

    fn supports_empty_projections(&self) -> bool {
        PG.supports_empty_projections()
    }

    fn supports_nested_comments(&self) -> bool {
        PG.supports_nested_comments()
    }

    fn supports_string_escape_constant(&self) -> bool {
        PG.supports_string_escape_constant()
    }

    fn supports_numeric_literal_underscores(&self) -> bool {
        PG.supports_numeric_literal_underscores()
    }

    fn supports_array_typedef_with_brackets(&self) -> bool {
        PG.supports_array_typedef_with_brackets()
    }

    fn supports_order_by_using_operator(&self) -> bool {
        PG.supports_order_by_using_operator()
    }

    fn supports_set_names(&self) -> bool {
        PG.supports_set_names()
    }

    fn supports_alter_column_type_using(&self) -> bool {
        PG.supports_alter_column_type_using()
    }

    fn supports_left_associative_joins_without_parens(&self) -> bool {
        PG.supports_left_associative_joins_without_parens()
    }

    fn supports_notnull_operator(&self) -> bool {
        PG.supports_notnull_operator()
    }

    fn supports_interval_options(&self) -> bool {
        PG.supports_interval_options()
    }

    fn supports_insert_table_alias(&self) -> bool {
        PG.supports_insert_table_alias()
    }

    fn supports_create_table_like_parenthesized(&self) -> bool {
        PG.supports_create_table_like_parenthesized()
    }

    fn supports_select_wildcard_with_alias(&self) -> bool {
        PG.supports_select_wildcard_with_alias()
    }

    fn supports_comma_separated_trim(&self) -> bool {
        PG.supports_comma_separated_trim()
    }

    fn supports_xml_expressions(&self) -> bool {
        PG.supports_xml_expressions()
    }

    fn supports_aliased_function_args(&self) -> bool {
        PG.supports_aliased_function_args()
    }

    fn supports_comment_optimizer_hint(&self) -> bool {
        PG.supports_comment_optimizer_hint()
    }
}
