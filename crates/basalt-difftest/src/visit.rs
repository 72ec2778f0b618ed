//! Walking statements for the reducer: visiting every expression and every query,
//! including those nested in subqueries and derived tables.

use crate::ast::{Expr, OrderTarget, Query, Select, TableReference};
use crate::statement::{Conflict, InsertSource, Statement};

/// Calls `visit` on every expression of `statement`, parents before children, including
/// expressions inside nested queries.
pub fn visit_statement_expressions(statement: &mut Statement, visit: &mut dyn FnMut(&mut Expr)) {
    match statement {
        Statement::CreateTable { .. }
        | Statement::CreateIndex { .. }
        | Statement::Control { .. }
        | Statement::Load(_) => {}
        Statement::Insert {
            source, conflict, ..
        } => {
            match source {
                InsertSource::Values(rows) => rows
                    .iter_mut()
                    .flatten()
                    .for_each(|value| visit_expression(value, visit)),
                InsertSource::Query(query) => visit_query_expressions(query, visit),
            }
            if let Conflict::DoUpdate { assignments, .. } = conflict {
                for (_, value) in assignments {
                    visit_expression(value, visit);
                }
            }
        }
        Statement::Update {
            assignments,
            where_clause,
            ..
        } => {
            for (_, value) in assignments {
                visit_expression(value, visit);
            }
            if let Some(condition) = where_clause {
                visit_expression(condition, visit);
            }
        }
        Statement::Delete { where_clause, .. } => {
            if let Some(condition) = where_clause {
                visit_expression(condition, visit);
            }
        }
        Statement::CreateView { query, .. } => visit_query_expressions(query, visit),
        Statement::Query { query, partition } => {
            visit_query_expressions(query, visit);
            if let Some(predicate) = partition {
                visit_expression(predicate, visit);
            }
        }
    }
}

fn visit_query_expressions(query: &mut Query, visit: &mut dyn FnMut(&mut Expr)) {
    for common in &mut query.with {
        visit_query_expressions(&mut common.query, visit);
    }
    visit_select_expressions(&mut query.body, visit);
    for (_, select) in &mut query.compounds {
        visit_select_expressions(select, visit);
    }
    for key in &mut query.order_by {
        if let OrderTarget::Expression(expression) = &mut key.target {
            visit_expression(expression, visit);
        }
    }
}

fn visit_select_expressions(select: &mut Select, visit: &mut dyn FnMut(&mut Expr)) {
    for item in &mut select.items {
        visit_expression(item, visit);
    }
    if let Some(from) = &mut select.from {
        if let TableReference::Derived { query, .. } = &mut from.first {
            visit_query_expressions(query, visit);
        }
        for join in &mut from.joins {
            if let TableReference::Derived { query, .. } = &mut join.table {
                visit_query_expressions(query, visit);
            }
            if let Some(on) = &mut join.on {
                visit_expression(on, visit);
            }
        }
    }
    for expression in select
        .where_clause
        .iter_mut()
        .chain(select.group_by.iter_mut())
        .chain(select.having.iter_mut())
    {
        visit_expression(expression, visit);
    }
}

/// Calls `visit` on `expression` and then on every expression inside it, nested queries included.
pub fn visit_expression(expression: &mut Expr, visit: &mut dyn FnMut(&mut Expr)) {
    visit(expression);
    match expression {
        Expr::Column { .. } | Expr::Literal(_) => {}
        Expr::Negate(inner) | Expr::Not(inner) => visit_expression(inner, visit),
        Expr::Binary { left, right, .. } => {
            visit_expression(left, visit);
            visit_expression(right, visit);
        }
        Expr::IsNull { operand, .. }
        | Expr::IsTruth { operand, .. }
        | Expr::Cast { operand, .. } => visit_expression(operand, visit),
        Expr::Between {
            operand, low, high, ..
        } => {
            visit_expression(operand, visit);
            visit_expression(low, visit);
            visit_expression(high, visit);
        }
        Expr::InList { operand, list, .. } => {
            visit_expression(operand, visit);
            list.iter_mut()
                .for_each(|item| visit_expression(item, visit));
        }
        Expr::InSubquery { operand, query, .. } => {
            visit_expression(operand, visit);
            visit_query_expressions(query, visit);
        }
        Expr::Exists { query, .. } | Expr::Subquery(query) => visit_query_expressions(query, visit),
        Expr::Like {
            operand, pattern, ..
        } => {
            visit_expression(operand, visit);
            visit_expression(pattern, visit);
        }
        Expr::Case {
            operand,
            branches,
            otherwise,
        } => {
            if let Some(operand) = operand {
                visit_expression(operand, visit);
            }
            for (condition, result) in branches {
                visit_expression(condition, visit);
                visit_expression(result, visit);
            }
            if let Some(otherwise) = otherwise {
                visit_expression(otherwise, visit);
            }
        }
        Expr::Function { arguments, .. } => arguments
            .iter_mut()
            .for_each(|argument| visit_expression(argument, visit)),
        Expr::Aggregate {
            argument, filter, ..
        } => {
            if let Some(argument) = argument {
                visit_expression(argument, visit);
            }
            if let Some(filter) = filter {
                visit_expression(filter, visit);
            }
        }
    }
}

/// Calls `visit` on every query of `statement`: the statement's own, then nested ones.
pub fn visit_statement_queries(statement: &mut Statement, visit: &mut dyn FnMut(&mut Query)) {
    // The statement's top query and its derived tables are visited here; queries nested in
    // expressions are reached through the expression walk.
    match statement {
        Statement::Query { query, .. } | Statement::CreateView { query, .. } => {
            visit_query_tree(query, visit)
        }
        Statement::Insert {
            source: InsertSource::Query(query),
            ..
        } => visit_query_tree(query, visit),
        _ => {}
    }
    visit_statement_expressions(statement, &mut |expression| match expression {
        Expr::InSubquery { query, .. } | Expr::Exists { query, .. } | Expr::Subquery(query) => {
            visit_query_tree(query, visit)
        }
        _ => {}
    });
}

/// Visits `query` and the derived tables in its FROM clauses (not expression subqueries).
fn visit_query_tree(query: &mut Query, visit: &mut dyn FnMut(&mut Query)) {
    visit(query);
    for common in &mut query.with {
        visit_query_tree(&mut common.query, visit);
    }
    let selects = std::iter::once(&mut query.body)
        .chain(query.compounds.iter_mut().map(|(_, select)| select));
    for select in selects {
        if let Some(from) = &mut select.from {
            let references = std::iter::once(&mut from.first)
                .chain(from.joins.iter_mut().map(|join| &mut join.table));
            for reference in references {
                if let TableReference::Derived { query, .. } = reference {
                    visit_query_tree(query, visit);
                }
            }
        }
    }
}
