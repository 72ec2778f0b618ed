//! Random INSERT, UPDATE and DELETE statements, including ones that violate NOT NULL,
//! PRIMARY KEY and UNIQUE constraints (both engines must then reject the statement).
//!
//! Two rules keep the engines comparable: a row-id column is always given a value (an
//! omitted one is assigned by each engine's own rule, and the index-free twin has no row
//! id), and UPDATE assigns only constants to key columns, so whether it violates
//! uniqueness never depends on the order rows are updated in (SQLite checks each row as
//! it goes; see the crate docs).

use rand::Rng;
use rand::seq::SliceRandom;

use super::{ExpressionType, Generator, Scope, ScopeColumn};
use crate::ast::{Expr, Literal, OrderKey, OrderTarget};
use crate::large_schema::{random_large_value, wide_constant};
use crate::schema::{Domain, SqlType, Table};
use crate::statement::{Conflict, InsertSource, Statement};
use crate::values::{random_column_value, random_value};

/// `substr(value, 1, 100)`: a short text of a large table stays short however many long
/// texts the expression concatenates, so that an index entry over it and a long text stays
/// within Basalt's 1019 bytes (SQLite has no limit; see `crate::large_schema`).
pub(super) fn bounded_text(value: Expr) -> Expr {
    Expr::function(
        "substr",
        vec![
            value,
            Expr::Literal(Literal::Integer(1)),
            Expr::Literal(Literal::Integer(100)),
        ],
    )
}

impl Generator {
    fn table_scope(&self, table: &Table) -> Vec<ScopeColumn> {
        self.base_table_scope(table, &table.name)
    }

    /// A value for column `position` of `table` in an INSERT.
    fn insert_value(&mut self, table: &Table, position: usize) -> Expr {
        let column = &table.columns[position];
        if let (Some(true), Domain::Wide { low, high }) = (
            table.row_id().map(|row_id| row_id == position),
            column.domain,
        ) {
            return Expr::Literal(Literal::Integer(wide_constant(&mut self.random, low, high)));
        }
        if column.domain != Domain::Small {
            return Expr::Literal(random_large_value(&mut self.random, column));
        }
        if table.row_id() == Some(position) {
            return Expr::Literal(random_value(&mut self.random, column.sql_type, true));
        }
        Expr::Literal(random_column_value(&mut self.random, column))
    }

    /// An INSERT of one row with every column, in declared order (the initial data).
    pub(super) fn single_row_insert(&mut self, table_position: usize) -> Statement {
        let table = self.schema.tables[table_position].clone();
        let row = (0..table.columns.len())
            .map(|position| self.insert_value(&table, position))
            .collect();
        Statement::Insert {
            table: table.name.clone(),
            columns: table
                .columns
                .iter()
                .map(|column| column.name.clone())
                .collect(),
            source: InsertSource::Values(vec![row]),
            conflict: Conflict::Abort,
        }
    }

    /// `INSERT OR IGNORE` of `rows` rows over every column (the initial data of a bulk
    /// case): integer keys spread over twice the row count, no NULL in a NOT NULL column.
    pub(super) fn bulk_insert(&mut self, table_position: usize, rows: usize) -> Statement {
        let table = self.schema.tables[table_position].clone();
        let spread = i64::try_from(self.options.max_rows * 2).unwrap_or(i64::MAX);
        let values = (0..rows)
            .map(|_| {
                (0..table.columns.len())
                    .map(|position| {
                        let column = &table.columns[position];
                        let key = table.row_id() == Some(position)
                            || (column.wide_domain && column.sql_type == SqlType::Integer);
                        if key && (column.not_null || self.random.gen_bool(0.9)) {
                            let mut value = self.random.gen_range(-10..=spread);
                            if !column.accepts(&Literal::Integer(value)) {
                                value = value.abs();
                            }
                            Expr::Literal(Literal::Integer(value))
                        } else {
                            self.value_respecting_not_null(&table, position)
                        }
                    })
                    .collect()
            })
            .collect();
        Statement::Insert {
            table: table.name.clone(),
            columns: table
                .columns
                .iter()
                .map(|column| column.name.clone())
                .collect(),
            source: InsertSource::Values(values),
            conflict: Conflict::OrIgnore,
        }
    }

    /// A value for column `position` that is not NULL when the column is NOT NULL and
    /// satisfies its CHECK (NULL when nothing drawn does and NULL is allowed).
    fn value_respecting_not_null(&mut self, table: &Table, position: usize) -> Expr {
        let column = &table.columns[position];
        for _ in 0..20 {
            let value = match self.insert_value(table, position) {
                Expr::Literal(Literal::Null) if column.not_null => {
                    if column.flag {
                        Literal::Integer(self.random.gen_range(0..=1))
                    } else {
                        random_value(&mut self.random, column.sql_type, column.wide_domain)
                    }
                }
                Expr::Literal(literal) => literal,
                other => return other,
            };
            if column.accepts(&value) {
                return Expr::Literal(value);
            }
        }
        Expr::Literal(if column.not_null {
            column
                .check
                .clone()
                .map_or(Literal::Null, |(_, bound)| bound)
        } else {
            Literal::Null
        })
    }

    /// What to do on a uniqueness conflict; DO UPDATE needs a key to name as its target.
    fn random_conflict(&mut self, table: &Table) -> Conflict {
        match self.random.gen_range(0..100) {
            0..=69 => Conflict::Abort,
            70..=77 => Conflict::OrIgnore,
            78..=85 => Conflict::OrReplace,
            86..=92 => Conflict::DoNothing,
            _ => {
                // SQLite matches no target that lists the row id among other columns.
                let keys: Vec<Vec<usize>> = table
                    .unique_keys(&self.schema.indexes)
                    .into_iter()
                    .filter(|key| {
                        key.len() == 1 || table.row_id().is_none_or(|row_id| !key.contains(&row_id))
                    })
                    .collect();
                let Some(key) = keys.choose(&mut self.random).cloned() else {
                    return Conflict::DoNothing;
                };
                let local = self.table_scope(table);
                let mut visible = local.clone();
                visible.extend(local.iter().map(|column| ScopeColumn {
                    qualifier: "excluded".to_owned(),
                    seekable: false,
                    ..column.clone()
                }));
                let scope = Scope::plain(&visible);
                let mut positions: Vec<usize> = (0..table.columns.len())
                    .filter(|&position| table.row_id() != Some(position))
                    .collect();
                positions.shuffle(&mut self.random);
                positions.truncate(self.random.gen_range(1..=2));
                let assignments = positions
                    .into_iter()
                    .map(|position| {
                        let column = &table.columns[position];
                        let value = match self.random.gen_range(0..10) {
                            0..=3 => Expr::column("excluded", &column.name),
                            4..=6 => Expr::Literal(random_large_value(&mut self.random, column)),
                            // A large table's wide key keeps values near its domain (shifts
                            // of it rely on that).
                            _ if column.flag
                                || column.domain != Domain::Small
                                || (table.large && column.sql_type == SqlType::Text) =>
                            {
                                Expr::column("excluded", &column.name)
                            }
                            _ => self.scalar(column.sql_type, &scope, 1),
                        };
                        (column.name.clone(), value)
                    })
                    .collect();
                Conflict::DoUpdate {
                    target: key
                        .iter()
                        .map(|&position| table.columns[position].name.clone())
                        .collect(),
                    assignments,
                }
            }
        }
    }

    /// A random INSERT: one to three rows of VALUES, or INSERT ... SELECT, with a conflict
    /// clause sometimes. ON CONFLICT only follows VALUES (after a SELECT, SQLite would read
    /// ON as a join condition), and DO UPDATE inserts one row (PostgreSQL refuses to update
    /// the same row twice in one statement, SQLite does not).
    pub(super) fn insert_statement(&mut self) -> Statement {
        let table_position = self.random.gen_range(0..self.schema.tables.len());
        let table = self.schema.tables[table_position].clone();
        let conflict = self.random_conflict(&table);
        let mut positions: Vec<usize> = (0..table.columns.len())
            .filter(|&position| table.row_id() == Some(position) || self.random.gen_bool(0.85))
            .collect();
        if positions.is_empty() {
            positions.push(0);
        }
        positions.shuffle(&mut self.random);
        let columns = positions
            .iter()
            .map(|&position| table.columns[position].name.clone())
            .collect();
        let values_only = matches!(conflict, Conflict::DoNothing | Conflict::DoUpdate { .. });
        // Not into a large table: a query would give its wide keys any values (see
        // `generator::large` on why they must stay near their domains).
        let source = if !values_only
            && table.row_id().is_none()
            && !table.large
            && self.random.gen_bool(0.15)
        {
            let types: Vec<ExpressionType> = positions
                .iter()
                .map(|&position| ExpressionType::Scalar(table.columns[position].sql_type))
                .collect();
            let mut query = self.query(&types, &[], 1, false);
            if conflict != Conflict::Abort && !query.is_ordered() {
                // Which of two conflicting rows wins depends on the order they come in.
                query.order_by = (1..=types.len())
                    .map(|ordinal| OrderKey {
                        target: OrderTarget::Ordinal(ordinal),
                        descending: self.random.gen_bool(0.5),
                        nulls_first: self.random.gen_bool(0.5),
                    })
                    .collect();
            }
            InsertSource::Query(Box::new(query))
        } else {
            let row_count = match conflict {
                Conflict::DoUpdate { .. } => 1,
                _ => self.random.gen_range(1..=3),
            };
            InsertSource::Values(
                (0..row_count)
                    .map(|_| {
                        positions
                            .iter()
                            .map(|&position| self.insert_value(&table, position))
                            .collect()
                    })
                    .collect(),
            )
        };
        Statement::Insert {
            table: table.name,
            columns,
            source,
            conflict,
        }
    }

    /// A random UPDATE of one or two columns.
    pub(super) fn update_statement(&mut self) -> Statement {
        let table_position = self.random.gen_range(0..self.schema.tables.len());
        let table = self.schema.tables[table_position].clone();
        let keys = table.key_columns(&self.schema.indexes);
        let local = self.table_scope(&table);
        self.excluded_table = Some(table.name.clone());
        let scope = Scope {
            local: &local,
            outer: &[],
            grouping: None,
            subquery_budget: 1,
        };
        let mut positions: Vec<usize> = (0..table.columns.len()).collect();
        // A large table's wide integers and long texts that are not keys change only in
        // bulk updates, which keep them nearly distinct (a constant over a range would give
        // thousands of rows one value, and joins on it thousands squared rows).
        if table.large {
            positions.retain(|&position| {
                table.columns[position].domain == Domain::Small || keys.contains(&position)
            });
            if positions.is_empty() {
                self.excluded_table = None;
                return self.bulk_update_statement();
            }
        }
        positions.shuffle(&mut self.random);
        positions.truncate(self.random.gen_range(1..=2));
        let assignments = positions
            .into_iter()
            .map(|position| {
                let column = &table.columns[position];
                let value =
                    if keys.contains(&position) || column.flag || column.domain != Domain::Small {
                        if column.domain != Domain::Small {
                            Expr::Literal(random_large_value(&mut self.random, column))
                        } else if table.row_id() == Some(position) && self.random.gen_bool(0.95) {
                            Expr::Literal(random_value(&mut self.random, column.sql_type, true))
                        } else {
                            Expr::Literal(random_column_value(&mut self.random, column))
                        }
                    } else if self.random.gen_bool(0.1) {
                        Expr::Literal(Literal::Null)
                    } else if table.large && column.sql_type == SqlType::Text {
                        let value = self.scalar(column.sql_type, &scope, 2);
                        bounded_text(value)
                    } else {
                        self.scalar(column.sql_type, &scope, 2)
                    };
                (column.name.clone(), value)
            })
            .collect();
        let where_clause = self
            .random
            .gen_bool(0.85)
            .then(|| self.predicate(&scope, 2));
        let where_clause = self.with_sargable(&local, where_clause);
        self.excluded_table = None;
        Statement::Update {
            table: table.name,
            assignments,
            where_clause,
        }
    }

    /// A random DELETE.
    pub(super) fn delete_statement(&mut self) -> Statement {
        let table_position = self.random.gen_range(0..self.schema.tables.len());
        let table = self.schema.tables[table_position].clone();
        let local = self.table_scope(&table);
        self.excluded_table = Some(table.name.clone());
        let scope = Scope {
            local: &local,
            outer: &[],
            grouping: None,
            subquery_budget: 1,
        };
        let where_clause = self
            .random
            .gen_bool(0.85)
            .then(|| self.predicate(&scope, 2));
        let where_clause = self.with_sargable(&local, where_clause);
        self.excluded_table = None;
        Statement::Delete {
            table: table.name,
            where_clause,
        }
    }
}
