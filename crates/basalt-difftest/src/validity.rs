//! What keeps a reduced statement inside the SQL both dialects agree on: the static type
//! of an expression (the reducer only replaces an expression by one of the same type), and
//! the structural rules the generator follows by construction — LIMIT only with a full
//! ORDER BY, scalar subqueries of at most one row, grouped queries that use only grouped
//! columns outside aggregates, no ORDER BY expressions with DISTINCT.

use std::collections::HashMap;

use crate::ast::{
    AggregateFunction, BinaryOperator, Expr, Literal, OrderTarget, Query, Select, TableReference,
};
use crate::generator::ExpressionType;
use crate::schema::{Schema, SqlType};
use crate::statement::{Conflict, InsertSource, Statement};
use crate::visit::{visit_expression, visit_statement_expressions, visit_statement_queries};

/// The types of the columns a statement's expressions can name.
#[derive(Debug, Default)]
pub struct ColumnTypes {
    columns: HashMap<(String, String), SqlType>,
}

impl ColumnTypes {
    /// Collects the column types of every table and derived table `statement` reads or
    /// writes.
    pub fn of_statement(statement: &Statement, schema: &Schema) -> ColumnTypes {
        let mut types = ColumnTypes::default();
        if let Some(name) = statement.written_table() {
            types.add_table(name, name, schema);
            types.add_table(name, "excluded", schema);
        }
        // Derived tables' columns are typed from their items, which may name other derived
        // tables: a few passes reach every level the generator nests.
        for _ in 0..3 {
            let mut copy = statement.clone();
            let mut found = Vec::new();
            visit_statement_queries(&mut copy, &mut |query| {
                // A common table reads like a derived table named by its alias.
                for common in &query.with {
                    found.push(TableReference::Derived {
                        query: Box::new(common.query.clone()),
                        alias: common.name.clone(),
                    });
                }
                let selects = std::iter::once(&query.body)
                    .chain(query.compounds.iter().map(|(_, select)| select));
                for select in selects {
                    for reference in references(select) {
                        found.push(reference.clone());
                    }
                }
            });
            for reference in found {
                match reference {
                    TableReference::Table { name, alias } => {
                        types.add_table(&name, &alias, schema);
                        types.copy_columns(&name, &alias);
                    }
                    TableReference::Derived { query, alias } => {
                        for (position, item) in query.body.items.iter().enumerate() {
                            if let Some(ExpressionType::Scalar(sql_type)) = types.infer(item) {
                                types
                                    .columns
                                    .insert((alias.clone(), format!("v{position}")), sql_type);
                            }
                        }
                    }
                }
            }
        }
        types
    }

    /// Gives `alias` the columns known under `name` (a reference to a common table).
    fn copy_columns(&mut self, name: &str, alias: &str) {
        let copied: Vec<((String, String), SqlType)> = self
            .columns
            .iter()
            .filter(|((qualifier, _), _)| qualifier == name)
            .map(|((_, column), &sql_type)| ((alias.to_owned(), column.clone()), sql_type))
            .collect();
        self.columns.extend(copied);
    }

    fn add_table(&mut self, name: &str, alias: &str, schema: &Schema) {
        if let Some(table) = schema.table(name) {
            for column in &table.columns {
                self.columns
                    .insert((alias.to_owned(), column.name.clone()), column.sql_type);
            }
        }
    }

    /// The static type of `expression`, when it can be told (not for a bare NULL).
    pub fn infer(&self, expression: &Expr) -> Option<ExpressionType> {
        let scalar = ExpressionType::Scalar;
        match expression {
            Expr::Column { qualifier, name } => self
                .columns
                .get(&(qualifier.clone(), name.clone()))
                .map(|&sql_type| scalar(sql_type)),
            Expr::Literal(literal) => match literal {
                Literal::Null => None,
                Literal::TypedNull(sql_type) => Some(scalar(*sql_type)),
                Literal::Integer(_) => Some(scalar(SqlType::Integer)),
                Literal::Real(_) => Some(scalar(SqlType::Real)),
                Literal::Text(_) => Some(scalar(SqlType::Text)),
                Literal::Boolean(_) => Some(ExpressionType::Boolean),
            },
            Expr::Negate(inner) => self.infer(inner),
            Expr::Binary {
                operator,
                left,
                right,
            } => match operator {
                BinaryOperator::Plus
                | BinaryOperator::Minus
                | BinaryOperator::Multiply
                | BinaryOperator::Divide
                | BinaryOperator::Modulo => match (self.infer(left)?, self.infer(right)?) {
                    (
                        ExpressionType::Scalar(SqlType::Integer),
                        ExpressionType::Scalar(SqlType::Integer),
                    ) => Some(scalar(SqlType::Integer)),
                    _ => Some(scalar(SqlType::Real)),
                },
                BinaryOperator::Concatenate => Some(scalar(SqlType::Text)),
                _ => Some(ExpressionType::Boolean),
            },
            Expr::Not(_)
            | Expr::IsNull { .. }
            | Expr::Between { .. }
            | Expr::InList { .. }
            | Expr::InSubquery { .. }
            | Expr::Exists { .. }
            | Expr::Like { .. }
            | Expr::IsTruth { .. } => Some(ExpressionType::Boolean),
            Expr::Cast { to, .. } => Some(scalar(*to)),
            Expr::Subquery(query) => query.body.items.first().and_then(|item| self.infer(item)),
            Expr::Case {
                branches,
                otherwise,
                ..
            } => branches
                .iter()
                .map(|(_, result)| result)
                .chain(otherwise.as_deref())
                .find_map(|result| self.infer(result)),
            Expr::Function { name, arguments } => match name.as_str() {
                "length" => Some(scalar(SqlType::Integer)),
                "upper" | "lower" | "substr" | "replace" => Some(scalar(SqlType::Text)),
                _ => arguments.iter().find_map(|argument| self.infer(argument)),
            },
            Expr::Aggregate {
                function, argument, ..
            } => match function {
                AggregateFunction::Count => Some(scalar(SqlType::Integer)),
                AggregateFunction::Avg | AggregateFunction::Total => Some(scalar(SqlType::Real)),
                AggregateFunction::GroupConcat => Some(scalar(SqlType::Text)),
                _ => argument.as_deref().and_then(|inner| self.infer(inner)),
            },
        }
    }
}

fn references(select: &Select) -> Vec<&TableReference> {
    select
        .from
        .iter()
        .flat_map(|from| {
            std::iter::once(&from.first).chain(from.joins.iter().map(|join| &join.table))
        })
        .collect()
}

fn aliases(select: &Select) -> Vec<String> {
    references(select)
        .into_iter()
        .map(|reference| match reference {
            TableReference::Table { alias, .. } | TableReference::Derived { alias, .. } => {
                alias.clone()
            }
        })
        .collect()
}

/// Column references in `expression` outside aggregate calls, subqueries included.
fn bare_columns(expression: &Expr) -> Vec<Expr> {
    let mut copy = expression.clone();
    let mut found = Vec::new();
    visit_expression(&mut copy, &mut |node| match node {
        // Replacing the aggregate in the copy stops the walk from entering it.
        Expr::Aggregate { .. } => *node = Expr::Literal(Literal::Null),
        Expr::Column { .. } => found.push(node.clone()),
        _ => {}
    });
    found
}

fn select_is_grouped_correctly(select: &Select, order_keys: &[&Expr]) -> bool {
    let aggregated = !select.group_by.is_empty()
        || select.having.is_some()
        || select.items.iter().any(Expr::contains_aggregate);
    if !aggregated {
        return true;
    }
    let own = aliases(select);
    let checked = select
        .items
        .iter()
        .chain(select.having.iter())
        .chain(order_keys.iter().copied());
    checked.flat_map(bare_columns).all(|column| match &column {
        Expr::Column { qualifier, .. } => {
            !own.contains(qualifier) || select.group_by.contains(&column)
        }
        _ => true,
    })
}

fn query_shares_meaning(query: &Query) -> bool {
    if (query.limit.is_some() || query.offset.is_some()) && !query.is_ordered() {
        return false;
    }
    let order_keys: Vec<&Expr> = query
        .order_by
        .iter()
        .filter_map(|key| match &key.target {
            OrderTarget::Expression(expression) => Some(expression),
            OrderTarget::Ordinal(_) => None,
        })
        .collect();
    if !order_keys.is_empty() && (query.body.distinct || !query.compounds.is_empty()) {
        return false;
    }
    // A constant ORDER BY or GROUP BY key is an ordinal, or an error in PostgreSQL.
    let selects =
        std::iter::once(&query.body).chain(query.compounds.iter().map(|(_, select)| select));
    let constant_key = order_keys
        .iter()
        .copied()
        .chain(selects.flat_map(|select| select.group_by.iter()))
        .any(|key| !key.mentions_column());
    if constant_key {
        return false;
    }
    let selects =
        std::iter::once(&query.body).chain(query.compounds.iter().map(|(_, select)| select));
    if selects
        .into_iter()
        .any(|select| select.having.is_some() && select.group_by.is_empty())
    {
        return false;
    }
    select_is_grouped_correctly(&query.body, &order_keys)
        && query
            .compounds
            .iter()
            .all(|(_, select)| select_is_grouped_correctly(select, &[]))
}

/// Whether a scalar subquery returns at most one row of one column.
fn is_single_value(query: &Query) -> bool {
    let body = &query.body;
    body.items.len() == 1
        && query.compounds.is_empty()
        && (query.limit.is_some_and(|limit| limit <= 1)
            || (body.group_by.is_empty() && body.items.iter().any(Expr::contains_aggregate)))
}

/// Whether `statement` keeps to the SQL both dialects give the same meaning, as far as the
/// reducer can break it.
pub fn shares_meaning(statement: &Statement) -> bool {
    let mut copy = statement.clone();
    // With a conflict clause, which of two conflicting rows wins depends on their order.
    let mut valid = match statement {
        Statement::Insert {
            source: InsertSource::Query(query),
            conflict,
            ..
        } => *conflict == Conflict::Abort || query.is_ordered(),
        _ => true,
    };
    visit_statement_queries(&mut copy, &mut |query| valid &= query_shares_meaning(query));
    visit_statement_expressions(&mut copy, &mut |expression| {
        match expression {
            Expr::Subquery(query) => valid &= is_single_value(query),
            // SQLite miscounts DISTINCT aggregates with FILTER read from an index.
            Expr::Aggregate {
                distinct: true,
                filter: Some(_),
                ..
            } => valid = false,
            // SQLite drops DISTINCT inside EXISTS even when OFFSET then counts rows.
            Expr::Exists { query, .. } => valid &= query.offset.is_none(),
            _ => {}
        }
    });
    valid
}
