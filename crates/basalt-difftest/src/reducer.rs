//! Shrinking a failing case to a small reproduction.
//!
//! A candidate reproduces when running it from scratch yields a mismatch of the same kind
//! at its last statement and nowhere before. The reducer alternates two steps until
//! neither makes progress (or the check budget runs out):
//!
//! 1. delta debugging over the statements before the failing one (dropping chunks of
//!    statements, halving the chunk size when no chunk can go), which also drops rows of
//!    the initial data since each is its own INSERT;
//! 2. simplifying each remaining statement, the failing one first: dropping WHERE,
//!    HAVING, GROUP BY, ORDER BY, LIMIT, DISTINCT, select items, joins, set-operation
//!    members and VALUES rows, halving the rows a large table's load generates, and
//!    replacing subexpressions by same-typed children or literals. Candidates that leave
//!    the SQL both dialects share are skipped.

use crate::ast::{Expr, JoinKind, Literal, OrderTarget, Query};
use crate::case::{MismatchKind, run_case};
use crate::engines::EngineSettings;
use crate::generator::ExpressionType;
use crate::schema::{Schema, SqlType};
use crate::statement::{Conflict, InsertSource, Statement};
use crate::validity::{ColumnTypes, shares_meaning};
use crate::visit::{visit_statement_expressions, visit_statement_queries};

/// How many candidate runs one reduction may spend.
const CHECK_BUDGET: usize = 4000;

/// The reducer's state: the target mismatch and the checks spent.
#[derive(Debug)]
struct Reducer<'a> {
    kind: &'a MismatchKind,
    schema: &'a Schema,
    settings: &'a EngineSettings,
    checks: usize,
}

impl Reducer<'_> {
    fn reproduces(&mut self, statements: &[Statement]) -> bool {
        if self.checks >= CHECK_BUDGET
            || statements.is_empty()
            || !transactions_well_formed(statements)
        {
            return false;
        }
        self.checks += 1;
        match run_case(statements, self.settings) {
            Ok((_, Some(mismatch))) => {
                mismatch.statement + 1 == statements.len() && mismatch.kind == *self.kind
            }
            _ => false,
        }
    }

    /// Delta debugging over every statement but the last.
    fn drop_statements(&mut self, statements: &mut Vec<Statement>) -> bool {
        let mut progress = false;
        let mut parts = 2;
        while statements.len() > 1 {
            let prefix_length = statements.len() - 1;
            let chunk = prefix_length.div_ceil(parts).max(1);
            let mut removed = false;
            let mut start = 0;
            while start < statements.len() - 1 {
                let end = (start + chunk).min(statements.len() - 1);
                let mut candidate = statements.clone();
                candidate.drain(start..end);
                if self.reproduces(&candidate) {
                    *statements = candidate;
                    removed = true;
                    progress = true;
                } else {
                    start = end;
                }
            }
            if removed {
                parts = parts.saturating_sub(1).max(2);
            } else if chunk == 1 {
                break;
            } else {
                parts = (parts * 2).min(prefix_length);
            }
            if self.checks >= CHECK_BUDGET {
                break;
            }
        }
        progress
    }

    /// Greedy simplification of statement `position`.
    fn simplify_statement(&mut self, statements: &mut [Statement], position: usize) -> bool {
        let mut progress = false;
        loop {
            let candidates = simplifications(&statements[position], self.schema);
            let mut improved = false;
            for candidate in candidates {
                if !shares_meaning(&candidate) {
                    continue;
                }
                let mut trial = statements.to_vec();
                trial[position] = candidate;
                if self.reproduces(&trial) {
                    statements.clone_from_slice(&trial);
                    improved = true;
                    progress = true;
                    break;
                }
            }
            if !improved || self.checks >= CHECK_BUDGET {
                return progress;
            }
        }
    }
}

/// Whether every COMMIT, ROLLBACK, SAVEPOINT, RELEASE and ROLLBACK TO is valid where it
/// stands (dropping a BEGIN must not leave a COMMIT that SQLite rejects and Basalt,
/// following PostgreSQL, only warns about).
fn transactions_well_formed(statements: &[Statement]) -> bool {
    let mut savepoints: Option<Vec<&str>> = None;
    for statement in statements {
        let Statement::Control { sql } = statement else {
            continue;
        };
        let mut words = sql.split_whitespace();
        match (words.next(), words.next(), words.next(), &mut savepoints) {
            (Some("BEGIN"), None, _, None) => savepoints = Some(Vec::new()),
            (Some("COMMIT" | "ROLLBACK"), None, _, Some(_)) => savepoints = None,
            (Some("ANALYZE"), _, _, None) => {}
            (Some("SAVEPOINT"), Some(name), None, Some(open)) => open.push(name),
            (Some("RELEASE"), Some(name), None, Some(open)) => {
                let Some(at) = open.iter().rposition(|open| *open == name) else {
                    return false;
                };
                open.truncate(at);
            }
            (Some("ROLLBACK"), Some("TO"), Some(name), Some(open)) => {
                let Some(at) = open.iter().rposition(|open| *open == name) else {
                    return false;
                };
                open.truncate(at + 1);
            }
            _ => return false,
        }
    }
    true
}

/// Shrinks `statements` (which mismatch with `kind` at their last statement).
pub fn reduce(
    statements: Vec<Statement>,
    kind: &MismatchKind,
    schema: &Schema,
    settings: &EngineSettings,
) -> Vec<Statement> {
    let mut reducer = Reducer {
        kind,
        schema,
        settings,
        checks: 0,
    };
    let mut statements = statements;
    loop {
        let mut progress = reducer.drop_statements(&mut statements);
        for position in (0..statements.len()).rev() {
            progress |= reducer.simplify_statement(&mut statements, position);
        }
        if !progress || reducer.checks >= CHECK_BUDGET {
            return statements;
        }
    }
}

/// Every one-step simplification of `statement`, biggest cuts first.
fn simplifications(statement: &Statement, schema: &Schema) -> Vec<Statement> {
    let mut candidates = Vec::new();
    match statement {
        Statement::Query {
            query,
            partition: Some(_),
        } => candidates.push(Statement::Query {
            query: query.clone(),
            partition: None,
        }),
        Statement::Insert {
            table,
            columns,
            source,
            conflict,
        } => {
            if *conflict != Conflict::Abort {
                candidates.push(Statement::Insert {
                    table: table.clone(),
                    columns: columns.clone(),
                    source: source.clone(),
                    conflict: Conflict::Abort,
                });
            }
            if let InsertSource::Values(rows) = source
                && rows.len() > 1
            {
                for skipped in 0..rows.len() {
                    let mut fewer = rows.clone();
                    fewer.remove(skipped);
                    candidates.push(Statement::Insert {
                        table: table.clone(),
                        columns: columns.clone(),
                        source: InsertSource::Values(fewer),
                        conflict: conflict.clone(),
                    });
                }
            }
        }
        Statement::Update {
            table,
            assignments,
            where_clause,
        } => {
            if where_clause.is_some() {
                candidates.push(Statement::Update {
                    table: table.clone(),
                    assignments: assignments.clone(),
                    where_clause: None,
                });
            }
            for skipped in 0..assignments.len() {
                if assignments.len() > 1 {
                    let mut fewer = assignments.clone();
                    fewer.remove(skipped);
                    candidates.push(Statement::Update {
                        table: table.clone(),
                        assignments: fewer,
                        where_clause: where_clause.clone(),
                    });
                }
            }
        }
        Statement::Delete {
            table,
            where_clause: Some(_),
        } => candidates.push(Statement::Delete {
            table: table.clone(),
            where_clause: None,
        }),
        // Fewer generated rows: the first half, then the first seven eighths.
        Statement::Load(load) if load.rows > 1 => {
            for rows in [load.rows / 2, load.rows - load.rows / 8] {
                let mut fewer = load.clone();
                fewer.rows = rows;
                candidates.push(Statement::Load(fewer));
            }
        }
        _ => {}
    }
    candidates.extend(query_simplifications(statement));
    candidates.extend(expression_simplifications(statement, schema));
    candidates
}

/// Structural simplifications of each query in `statement`.
fn query_simplifications(statement: &Statement) -> Vec<Statement> {
    let mut count = 0;
    visit_statement_queries(&mut statement.clone(), &mut |_| count += 1);
    let mut candidates = Vec::new();
    for target in 0..count {
        let mut original = None;
        let mut copy = statement.clone();
        let mut seen = 0;
        visit_statement_queries(&mut copy, &mut |query| {
            if seen == target {
                original = Some(query.clone());
            }
            seen += 1;
        });
        let Some(original) = original else { continue };
        for edited in edits_of(&original) {
            let mut candidate = statement.clone();
            let mut seen = 0;
            visit_statement_queries(&mut candidate, &mut |query| {
                if seen == target {
                    *query = edited.clone();
                }
                seen += 1;
            });
            candidates.push(candidate);
        }
    }
    candidates
}

/// One-step structural edits of one query.
fn edits_of(query: &Query) -> Vec<Query> {
    let mut edits = Vec::new();
    let mut edit = |change: &dyn Fn(&mut Query)| {
        let mut copy = query.clone();
        change(&mut copy);
        if copy != *query {
            edits.push(copy);
        }
    };
    edit(&|edited| edited.compounds.clear());
    for common in 0..query.with.len() {
        edit(&|edited| {
            edited.with.remove(common);
        });
    }
    for member in 0..query.compounds.len() {
        edit(&|edited| {
            edited.compounds.remove(member);
        });
        edit(&|edited| {
            let (_, select) = edited.compounds.remove(member);
            edited.body = select;
        });
    }
    edit(&|edited| edited.body.where_clause = None);
    edit(&|edited| edited.body.having = None);
    edit(&|edited| edited.body.group_by.clear());
    edit(&|edited| {
        edited.order_by.clear();
        edited.limit = None;
        edited.offset = None;
    });
    edit(&|edited| edited.offset = None);
    edit(&|edited| {
        edited.limit = None;
        edited.offset = None;
    });
    edit(&|edited| edited.body.distinct = false);
    for key in 0..query.order_by.len() {
        edit(&|edited| {
            edited.order_by.remove(key);
        });
    }
    let width = query.body.items.len();
    for item in 0..width {
        if width > 1 {
            edit(&|edited| remove_item(edited, item));
        }
    }
    let joins = query.body.from.as_ref().map_or(0, |from| from.joins.len());
    for join in 0..joins {
        edit(&|edited| {
            if let Some(from) = &mut edited.body.from {
                from.joins.remove(join);
            }
        });
        edit(&|edited| {
            if let Some(from) = &mut edited.body.from
                && join == 0
            {
                let first = from.joins.remove(0);
                from.first = first.table;
            }
        });
        edit(&|edited| {
            if let Some(from) = &mut edited.body.from
                && from.joins[join].kind != JoinKind::Cross
            {
                from.joins[join].kind = JoinKind::Inner;
            }
        });
    }
    edits
}

/// Removes output column `item` from every member and renumbers ORDER BY ordinals.
fn remove_item(query: &mut Query, item: usize) {
    query.body.items.remove(item);
    for (_, select) in &mut query.compounds {
        if item < select.items.len() {
            select.items.remove(item);
        }
    }
    let removed = item + 1;
    query
        .order_by
        .retain(|key| key.target != OrderTarget::Ordinal(removed));
    for key in &mut query.order_by {
        if let OrderTarget::Ordinal(ordinal) = &mut key.target
            && *ordinal > removed
        {
            *ordinal -= 1;
        }
    }
}

fn literals_of(expression_type: Option<ExpressionType>) -> Vec<Literal> {
    let mut literals = vec![match expression_type {
        Some(ExpressionType::Scalar(sql_type)) => Literal::typed_null(sql_type),
        _ => Literal::Null,
    }];
    match expression_type {
        Some(ExpressionType::Scalar(SqlType::Integer)) => {
            literals.extend([Literal::Integer(0), Literal::Integer(1)])
        }
        Some(ExpressionType::Scalar(SqlType::Real)) => {
            literals.extend([Literal::Real(0.0), Literal::Real(1.0)])
        }
        Some(ExpressionType::Scalar(SqlType::Text)) => {
            literals.extend([Literal::Text(String::new()), Literal::Text("a".to_owned())])
        }
        Some(ExpressionType::Boolean) => {
            literals.extend([Literal::Boolean(true), Literal::Boolean(false)])
        }
        None => {}
    }
    literals
}

/// Replacements of each non-literal expression node by a same-typed child or a literal.
fn expression_simplifications(statement: &Statement, schema: &Schema) -> Vec<Statement> {
    let types = ColumnTypes::of_statement(statement, schema);
    let mut nodes = Vec::new();
    visit_statement_expressions(&mut statement.clone(), &mut |node| nodes.push(node.clone()));
    let mut candidates = Vec::new();
    for (target, node) in nodes.iter().enumerate() {
        if matches!(node, Expr::Literal(_)) {
            continue;
        }
        let node_type = types.infer(node);
        let mut replacements: Vec<Expr> = Vec::new();
        node.for_each_child(&mut |child| {
            if node_type.is_some() && types.infer(child) == node_type {
                replacements.push(child.clone());
            }
        });
        if let Expr::Subquery(query) = node
            && let Some(item) = query.body.items.first()
            && query.body.from.is_none()
        {
            replacements.push(item.clone());
        }
        replacements.extend(literals_of(node_type).into_iter().map(Expr::Literal));
        for replacement in replacements {
            let mut candidate = statement.clone();
            let mut seen = 0;
            visit_statement_expressions(&mut candidate, &mut |current| {
                if seen == target {
                    *current = replacement.clone();
                }
                seen += 1;
            });
            candidates.push(candidate);
        }
    }
    candidates
}
