//! The statements of a case — DDL, INSERT / UPDATE / DELETE, and queries — kept as trees
//! so the reducer can simplify them, and rendered to SQL text to run.

use std::fmt::{self, Display, Formatter};

use crate::ast::{AggregateFunction, BinaryOperator, Expr, Query};

/// Where an INSERT's rows come from.
#[derive(Debug, Clone, PartialEq)]
pub enum InsertSource {
    Values(Vec<Vec<Expr>>),
    Query(Box<Query>),
}

/// What an INSERT does with a row that violates a uniqueness constraint.
#[derive(Debug, Clone, PartialEq)]
pub enum Conflict {
    /// Fail the statement (no clause).
    Abort,
    /// `INSERT OR IGNORE`: skip the row.
    OrIgnore,
    /// `INSERT OR REPLACE`: delete the conflicting rows first.
    OrReplace,
    /// `ON CONFLICT DO NOTHING`.
    DoNothing,
    /// `ON CONFLICT (target) DO UPDATE SET ...`; the target names a primary key or unique
    /// constraint, and the assignments may read `excluded.*`.
    DoUpdate {
        target: Vec<String>,
        assignments: Vec<(String, Expr)>,
    },
}

/// Rows made in SQL, the initial data of a large table (`--large`): `INSERT INTO table
/// (columns) WITH RECURSIVE s(g) AS (SELECT 0 UNION ALL SELECT g + 1 FROM s WHERE g <
/// rows - 1) SELECT expressions FROM s` (Basalt takes WITH only there, not before INSERT). Both engines evaluate the expressions the same
/// way (integer `*`, `%`, `+`, `-`, CASE, `||`, substr, CAST of integers to TEXT, division
/// by 4.0), so thousands of rows take one short statement and the reproduction of a
/// finding stays small. The expressions number rows from a capacity fixed in their text
/// (their permutations are modulo it), so `rows` can shrink without changing the others'
/// values: the reducer halves it.
#[derive(Debug, Clone, PartialEq)]
pub struct Load {
    pub table: String,
    pub columns: Vec<String>,
    /// Each column's value, an SQL expression of the row number `g` (0 ≤ g < rows).
    pub expressions: Vec<String>,
    pub rows: u64,
}

impl Display for Load {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "INSERT INTO {} ({}) WITH RECURSIVE s(g) AS \
             (SELECT 0 UNION ALL SELECT g + 1 FROM s WHERE g < {}) SELECT {} FROM s",
            self.table,
            self.columns.join(", "),
            self.rows.saturating_sub(1),
            self.expressions.join(", ")
        )
    }
}

/// One statement of a case.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// CREATE TABLE, with the variant for the index-free twin (no keys).
    CreateTable { sql: String, index_free_sql: String },
    /// CREATE INDEX or DROP INDEX (not run on the index-free twin).
    CreateIndex { sql: String },
    /// CREATE VIEW name AS query (its columns are the query's `v0, v1, ...`).
    CreateView { name: String, query: Box<Query> },
    Insert {
        table: String,
        columns: Vec<String>,
        source: InsertSource,
        conflict: Conflict,
    },
    Update {
        table: String,
        assignments: Vec<(String, Expr)>,
        where_clause: Option<Expr>,
    },
    Delete {
        table: String,
        where_clause: Option<Expr>,
    },
    /// A query, and optionally a predicate for the ternary logic partitioning check.
    Query {
        query: Box<Query>,
        partition: Option<Expr>,
    },
    /// Transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE, ROLLBACK TO) or
    /// ANALYZE: compared by success only.
    Control { sql: String },
    /// The generated rows of a large table.
    Load(Box<Load>),
}

impl Display for Statement {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Statement::CreateTable { sql, .. }
            | Statement::CreateIndex { sql }
            | Statement::Control { sql } => formatter.write_str(sql),
            Statement::CreateView { name, query } => {
                write!(formatter, "CREATE VIEW {name} AS {query}")
            }
            Statement::Insert {
                table,
                columns,
                source,
                conflict,
            } => {
                let verb = match conflict {
                    Conflict::OrIgnore => "INSERT OR IGNORE",
                    Conflict::OrReplace => "INSERT OR REPLACE",
                    _ => "INSERT",
                };
                write!(formatter, "{verb} INTO {table} ({}) ", columns.join(", "))?;
                match source {
                    InsertSource::Values(rows) => {
                        formatter.write_str("VALUES ")?;
                        for (position, row) in rows.iter().enumerate() {
                            if position > 0 {
                                formatter.write_str(", ")?;
                            }
                            let values: Vec<String> = row.iter().map(Expr::to_string).collect();
                            write!(formatter, "({})", values.join(", "))?;
                        }
                    }
                    InsertSource::Query(query) => write!(formatter, "{query}")?,
                }
                match conflict {
                    Conflict::DoNothing => write!(formatter, " ON CONFLICT DO NOTHING"),
                    Conflict::DoUpdate {
                        target,
                        assignments,
                    } => {
                        let assignments: Vec<String> = assignments
                            .iter()
                            .map(|(column, value)| format!("{column} = {value}"))
                            .collect();
                        write!(
                            formatter,
                            " ON CONFLICT ({}) DO UPDATE SET {}",
                            target.join(", "),
                            assignments.join(", ")
                        )
                    }
                    _ => Ok(()),
                }
            }
            Statement::Update {
                table,
                assignments,
                where_clause,
            } => {
                let assignments: Vec<String> = assignments
                    .iter()
                    .map(|(column, value)| format!("{column} = {value}"))
                    .collect();
                write!(formatter, "UPDATE {table} SET {}", assignments.join(", "))?;
                if let Some(condition) = where_clause {
                    write!(formatter, " WHERE {condition}")?;
                }
                Ok(())
            }
            Statement::Delete {
                table,
                where_clause,
            } => {
                write!(formatter, "DELETE FROM {table}")?;
                if let Some(condition) = where_clause {
                    write!(formatter, " WHERE {condition}")?;
                }
                Ok(())
            }
            Statement::Query { query, .. } => write!(formatter, "{query}"),
            Statement::Load(load) => write!(formatter, "{load}"),
        }
    }
}

impl Statement {
    /// Whether the statement may change the database (everything but a query).
    pub fn is_modification(&self) -> bool {
        !matches!(self, Statement::Query { .. })
    }

    /// Whether the statement's effect depends on uniqueness constraints beyond failing:
    /// an INSERT with a conflict clause, which the index-free twin (having no constraints)
    /// cannot repeat; its table is copied to the twin instead.
    pub fn resolves_conflicts(&self) -> bool {
        matches!(
            self,
            Statement::Insert { conflict, .. } if *conflict != Conflict::Abort
        )
    }

    /// Whether the statement is an INSERT, UPDATE or DELETE.
    pub fn is_modification_of_rows(&self) -> bool {
        self.written_table().is_some()
    }

    /// The table an INSERT, UPDATE or DELETE writes.
    pub fn written_table(&self) -> Option<&str> {
        match self {
            Statement::Insert { table, .. }
            | Statement::Update { table, .. }
            | Statement::Delete { table, .. } => Some(table),
            Statement::Load(load) => Some(&load.table),
            _ => None,
        }
    }
}

/// How the parts of a partitioned query recombine into the whole.
#[derive(Debug, Clone, PartialEq)]
pub enum PartitionShape {
    /// Rows: the whole is the multiset union of the parts.
    Rows,
    /// DISTINCT rows: the whole is the set union of the parts.
    DistinctRows,
    /// One row of these aggregates: counts and sums add up, minima and maxima combine.
    Aggregates(Vec<AggregateFunction>),
}

/// The shape of `query` for the partitioning check, if it has one.
pub fn partition_shape(query: &Query) -> Option<PartitionShape> {
    let body = &query.body;
    if !query.compounds.is_empty()
        || query.limit.is_some()
        || query.offset.is_some()
        || !body.group_by.is_empty()
        || body.having.is_some()
        || body.from.is_none()
    {
        return None;
    }
    if !body.items.iter().any(Expr::contains_aggregate) {
        return Some(if body.distinct {
            PartitionShape::DistinctRows
        } else {
            PartitionShape::Rows
        });
    }
    if body.distinct {
        return None;
    }
    let functions = body
        .items
        .iter()
        .map(|item| match item {
            Expr::Aggregate {
                function:
                    function @ (AggregateFunction::Count
                    | AggregateFunction::Sum
                    | AggregateFunction::Min
                    | AggregateFunction::Max),
                distinct: false,
                argument,
                ..
            } if argument
                .as_ref()
                .is_none_or(|inner| !inner.contains_aggregate()) =>
            {
                Some(*function)
            }
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some(PartitionShape::Aggregates(functions))
}

/// The three parts of `query` under `predicate`: rows where it is true, false, NULL.
pub fn partition_queries(query: &Query, predicate: &Expr) -> [Query; 3] {
    let parts = [
        predicate.clone(),
        Expr::Not(Box::new(predicate.clone())),
        Expr::IsNull {
            operand: Box::new(predicate.clone()),
            negated: false,
        },
    ];
    parts.map(|part| {
        let mut piece = query.clone();
        piece.order_by.clear();
        piece.body.where_clause = Some(match piece.body.where_clause.take() {
            Some(existing) => Expr::binary(BinaryOperator::And, existing, part),
            None => part,
        });
        piece
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{From, Select, TableReference};

    #[test]
    fn a_query_splits_into_true_false_and_null_parts() {
        let query = Query::simple(Select {
            distinct: false,
            items: vec![Expr::column("a", "c0")],
            from: Some(From {
                first: TableReference::Table {
                    name: "t0".into(),
                    alias: "a".into(),
                },
                joins: Vec::new(),
            }),
            where_clause: Some(Expr::column("a", "c1")),
            group_by: Vec::new(),
            having: None,
        });
        let parts = partition_queries(&query, &Expr::column("a", "c2"));
        let texts: Vec<String> = parts.iter().map(Query::to_string).collect();
        assert_eq!(
            texts,
            [
                "SELECT a.c0 AS v0 FROM t0 AS a WHERE (a.c1 AND a.c2)",
                "SELECT a.c0 AS v0 FROM t0 AS a WHERE (a.c1 AND (NOT a.c2))",
                "SELECT a.c0 AS v0 FROM t0 AS a WHERE (a.c1 AND (a.c2 IS NULL))",
            ]
        );
        assert_eq!(partition_shape(&query), Some(PartitionShape::Rows));
    }
}
