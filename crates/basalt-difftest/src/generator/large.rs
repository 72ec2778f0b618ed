//! The statement stream of a large case (`--large`): besides the default generator's
//! statements (which read a large table in at most one FROM item, and never in a
//! subquery), range queries over every kind of key and bulk modifications over ranges —
//! UPDATE of plain columns, indexed columns and the row id, DELETE, and INSERT … SELECT of
//! up to a few thousand rows.
//!
//! Bulk modifications keep to the rules that make the engines agree. A row id or other
//! wide integer key is only *shifted* — `SET id = id + K` with K larger than the span its
//! values can have, so no new value meets an old one and no uniqueness check depends on
//! the order rows are visited (the shifts widen the column's recorded domain); a unique
//! long text gets a prefix no value has had (`'u7:' || c`); other keys get constants as
//! in the default generator. INSERT … SELECT gives the target's wide keys shifted source
//! keys, and takes its rows in a full ORDER BY with a LIMIT (so a case's tables grow by at
//! most a few thousand rows a statement); when it cannot make every unique key fresh, it
//! is INSERT OR IGNORE (its rows being ordered, which of two conflicting ones wins is
//! determined).

use rand::Rng;
use rand::seq::SliceRandom;

use super::modification::bounded_text;
use super::{Generator, Scope, ScopeColumn};
use crate::ast::{
    AggregateFunction, BinaryOperator, Expr, From, Join, JoinKind, Literal, OrderKey, OrderTarget,
    Query, Select, TableReference,
};
use crate::large_schema::{random_large_value, wide_margin};
use crate::schema::{Domain, SqlType, Table};
use crate::statement::{Conflict, InsertSource, Statement};

/// Shifts stop once a wide column's values may span this much (sums of them stay far
/// from overflowing).
const MOST_WIDE_SPAN: i64 = 100_000_000_000;

impl Generator {
    /// One statement of a large case's stream.
    pub(super) fn large_case_statement(&mut self) -> Statement {
        match self.random.gen_range(0..100) {
            0..=34 => self.range_query_statement(),
            35..=52 => self.query_statement(),
            53..=58 => self.insert_statement(),
            59..=63 => self.bulk_insert_statement(),
            64..=67 => self.update_statement(),
            68..=75 => self.bulk_update_statement(),
            76..=78 => self.delete_statement(),
            79..=83 => self.bulk_delete_statement(),
            84..=86 if self.savepoints.is_none() => self.schema_statement(),
            _ => self.control_statement(),
        }
    }

    /// A random large table of the schema.
    fn large_table(&mut self) -> Table {
        let large: Vec<&Table> = self
            .schema
            .tables
            .iter()
            .filter(|table| table.large)
            .collect();
        large
            .choose(&mut self.random)
            .map(|table| (*table).clone())
            .unwrap_or_else(|| self.schema.tables[0].clone())
    }

    /// A join for a range query over `local` (of `table`): another large table (perhaps
    /// the same) on an equality with a one-column unique key of one side, so the join is
    /// no larger than the other side; or a small table.
    fn range_join(
        &mut self,
        table: &Table,
        local: &[ScopeColumn],
    ) -> Option<(Join, Vec<ScopeColumn>)> {
        let kind = if self.random.gen_bool(0.7) {
            JoinKind::Inner
        } else {
            JoinKind::Left
        };
        let other = self.large_table();
        let unique = |table: &Table| -> Vec<String> {
            table
                .unique_keys(&self.schema.indexes)
                .into_iter()
                .filter(|key| key.len() == 1)
                .map(|key| table.columns[key[0]].name.clone())
                .collect()
        };
        let (local_unique, other_unique) = (unique(table), unique(&other));
        if self.random.gen_bool(0.6) {
            let alias = self.alias("b");
            let joined = self.base_table_scope(&other, &alias);
            let pairs: Vec<(&ScopeColumn, &ScopeColumn)> = local
                .iter()
                .flat_map(|old| joined.iter().map(move |new| (old, new)))
                .filter(|(old, new)| {
                    old.sql_type.comparable_with(new.sql_type)
                        && (local_unique.contains(&old.name) || other_unique.contains(&new.name))
                })
                .collect();
            let (old, new) = pairs.choose(&mut self.random)?;
            let on = Expr::binary(BinaryOperator::Equal, old.expression(), new.expression());
            let join = Join {
                kind,
                table: TableReference::Table {
                    name: other.name,
                    alias,
                },
                on: Some(on),
            };
            return Some((join, joined));
        }
        let (table, joined) = self.small_table_reference();
        let mut combined = local.to_vec();
        combined.extend(joined.iter().cloned());
        let pairs: Vec<(&ScopeColumn, &ScopeColumn)> = local
            .iter()
            .flat_map(|old| joined.iter().map(move |new| (old, new)))
            .filter(|(old, new)| old.sql_type.comparable_with(new.sql_type))
            .collect();
        let on = match pairs.choose(&mut self.random) {
            Some((old, new)) if self.random.gen_bool(0.8) => {
                Expr::binary(BinaryOperator::Equal, old.expression(), new.expression())
            }
            _ => self.predicate(&Scope::plain(&combined), 1),
        };
        Some((
            Join {
                kind,
                table,
                on: Some(on),
            },
            joined,
        ))
    }

    /// An aggregate whose parts over a partition combine into the whole (count, sum, min,
    /// max), over a column of `columns`.
    fn mergeable_aggregate(&mut self, columns: &[ScopeColumn]) -> Expr {
        let column = columns.choose(&mut self.random);
        let (function, argument) = match (self.random.gen_range(0..4), column) {
            (1, Some(column)) if column.sql_type.is_numeric() && !column.flag => {
                (AggregateFunction::Sum, Some(column.expression()))
            }
            (2, Some(column)) => (AggregateFunction::Min, Some(column.expression())),
            (3, Some(column)) => (AggregateFunction::Max, Some(column.expression())),
            (_, Some(column)) if self.random.gen_bool(0.5) => {
                (AggregateFunction::Count, Some(column.expression()))
            }
            _ => (AggregateFunction::Count, None),
        };
        Expr::Aggregate {
            function,
            distinct: false,
            argument: argument.map(Box::new),
            filter: None,
        }
    }

    /// A query over a range of one key of a large table: aggregates of the range, its
    /// rows (ordered along the key either way, perhaps with LIMIT / OFFSET), or groups.
    fn range_query_statement(&mut self) -> Statement {
        if !self.previous_queries.is_empty() && self.random.gen_bool(0.05) {
            let position = self.random.gen_range(0..self.previous_queries.len());
            return self.previous_queries[position].clone();
        }
        let table = self.large_table();
        let alias = self.alias("a");
        let local = self.base_table_scope(&table, &alias);
        let mut from = From {
            first: TableReference::Table {
                name: table.name.clone(),
                alias: alias.clone(),
            },
            joins: Vec::new(),
        };
        let mut columns = local.clone();
        if self.random.gen_bool(0.2)
            && let Some((join, joined)) = self.range_join(&table, &local)
        {
            from.joins.push(join);
            columns.extend(joined);
        }
        let (range, key) = self.key_range(&table, &alias);
        let mut where_clause = range;
        if self.random.gen_bool(0.25) {
            let extra = self.predicate(&Scope::plain(&columns), 2);
            where_clause = Expr::binary(BinaryOperator::And, where_clause, extra);
        }
        let mut query = Query::simple(Select {
            distinct: false,
            items: Vec::new(),
            from: Some(from),
            where_clause: Some(where_clause),
            group_by: Vec::new(),
            having: None,
        });
        let shape = self.random.gen_range(0..100);
        if shape < 35 {
            let count = self.random.gen_range(1..=3);
            query.body.items = (0..count)
                .map(|_| self.mergeable_aggregate(&columns))
                .collect();
        } else if shape < 85 {
            let mut items: Vec<Expr> = key
                .iter()
                .map(|&position| Expr::column(&alias, &table.columns[position].name))
                .collect();
            for _ in 0..self.random.gen_range(0..=2) {
                if let Some(column) = columns.choose(&mut self.random) {
                    items.push(column.expression());
                }
            }
            query.body.items = items;
            query.body.distinct = self.random.gen_bool(0.1);
            if self.random.gen_bool(0.6) {
                // Along the key (or against it), then every other output column.
                let descending = self.random.gen_bool(0.5);
                let width = query.body.items.len();
                query.order_by = (1..=width)
                    .map(|ordinal| OrderKey {
                        target: OrderTarget::Ordinal(ordinal),
                        descending: if self.random.gen_bool(0.8) {
                            descending
                        } else {
                            !descending
                        },
                        nulls_first: self.random.gen_bool(0.5),
                    })
                    .collect();
                if self.random.gen_bool(0.4) {
                    query.limit = Some(self.random.gen_range(0..=200));
                    if self.random.gen_bool(0.3) {
                        query.offset = Some(self.random.gen_range(0..=100));
                    }
                }
            }
        } else {
            let groupable: Vec<ScopeColumn> = local
                .iter()
                .filter(|column| column.domain == Domain::Small)
                .cloned()
                .collect();
            let Some(key) = groupable.choose(&mut self.random).cloned() else {
                return self.query_statement();
            };
            query.body.group_by = vec![key.expression()];
            query.body.items = vec![key.expression(), self.mergeable_aggregate(&columns)];
            if self.random.gen_bool(0.5) {
                query.body.items.push(self.mergeable_aggregate(&columns));
            }
        }
        let partitionable = query.limit.is_none() && query.body.group_by.is_empty();
        let partition = if partitionable && self.random.gen_bool(0.5) {
            Some(if self.random.gen_bool(0.5) {
                self.key_range(&table, &alias).0
            } else {
                self.predicate(&Scope::plain(&columns), 2)
            })
        } else {
            None
        };
        let statement = Statement::Query {
            query: Box::new(query),
            partition,
        };
        self.previous_queries.push(statement.clone());
        statement
    }

    /// A WHERE clause for a bulk modification of `table`: a key range, sometimes with
    /// another condition, rarely nothing.
    fn bulk_where(&mut self, table: &Table) -> Option<Expr> {
        if self.random.gen_bool(0.03) {
            return None;
        }
        let (range, _) = self.key_range(table, &table.name);
        if self.random.gen_bool(0.2) {
            let local = self.base_table_scope(table, &table.name);
            let extra = self.predicate(&Scope::plain(&local), 1);
            return Some(Expr::binary(BinaryOperator::And, range, extra));
        }
        Some(range)
    }

    /// `column + K` or `column - K` with K beyond the span of the column's values (its
    /// domain and margin: see [`wide_margin`]), so the new values meet none of the old;
    /// the column's domain grows to cover them.
    fn shift(&mut self, table: &str, position: usize) -> Option<Expr> {
        let table_position = self.schema.tables.iter().position(|t| t.name == table)?;
        let column = &mut self.schema.tables[table_position].columns[position];
        let Domain::Wide { low, high } = column.domain else {
            return None;
        };
        if high - low > MOST_WIDE_SPAN {
            return None;
        }
        let distance = high - low + 2 * wide_margin(low, high) + 1 + self.random.gen_range(0..=50);
        let upward = self.random.gen_bool(0.5);
        column.domain = if upward {
            Domain::Wide {
                low,
                high: high + distance,
            }
        } else {
            Domain::Wide {
                low: low - distance,
                high,
            }
        };
        let operator = if upward {
            BinaryOperator::Plus
        } else {
            BinaryOperator::Minus
        };
        let reference = Expr::column(table, &column.name);
        Some(Expr::binary(
            operator,
            reference,
            Expr::Literal(Literal::Integer(distance)),
        ))
    }

    /// A text prefix no value has had yet.
    fn fresh_prefix(&mut self) -> String {
        self.next_fresh += 1;
        format!("u{}:", self.next_fresh)
    }

    /// UPDATE of one to three columns of a large table over a key range: plain and
    /// indexed columns get expressions, wide keys (the row id among them) are shifted,
    /// unique long texts get a fresh prefix.
    pub(super) fn bulk_update_statement(&mut self) -> Statement {
        let table = self.large_table();
        let keys = table.key_columns(&self.schema.indexes);
        let local = self.base_table_scope(&table, &table.name);
        let scope = Scope::plain(&local);
        let mut positions: Vec<usize> = (0..table.columns.len()).collect();
        positions.shuffle(&mut self.random);
        positions.truncate(self.random.gen_range(1..=3));
        // The row id moves often: that is what issue 15's scans got wrong.
        if let Some(row_id) = table.row_id()
            && !positions.contains(&row_id)
            && self.random.gen_bool(0.2)
        {
            positions[0] = row_id;
        }
        let mut assignments = Vec::new();
        for position in positions {
            let column = table.columns[position].clone();
            let reference = Expr::column(&table.name, &column.name);
            let key = keys.contains(&position);
            let value = match column.domain {
                // A constant over a range would give thousands of rows one value (and an
                // equality join on it thousands squared rows); a key takes it only when
                // it can no longer be shifted (the statement then fails unless the range
                // holds one row).
                Domain::Wide { .. } => match self.shift(&table.name, position) {
                    Some(shifted) => shifted,
                    None if key => Expr::Literal(random_large_value(&mut self.random, &column)),
                    None => reference,
                },
                Domain::LongText if key => {
                    let prefix = Expr::Literal(Literal::Text(self.fresh_prefix()));
                    Expr::binary(BinaryOperator::Concatenate, prefix, reference)
                }
                // Long texts stay nearly distinct (their first ten bytes are) and short
                // enough for an index entry.
                Domain::LongText => match self.random.gen_range(0..5) {
                    0 => Expr::function(
                        "substr",
                        vec![
                            reference,
                            Expr::Literal(Literal::Integer(1)),
                            Expr::Literal(Literal::Integer(self.random.gen_range(10..=300))),
                        ],
                    ),
                    1 => Expr::binary(
                        BinaryOperator::Concatenate,
                        Expr::Literal(Literal::Text("z".to_owned())),
                        Expr::function(
                            "substr",
                            vec![reference, Expr::Literal(Literal::Integer(2))],
                        ),
                    ),
                    2 | 3 => Expr::function("upper", vec![reference]),
                    _ => Expr::function(
                        "replace",
                        vec![
                            reference,
                            Expr::Literal(Literal::Text("a".to_owned())),
                            Expr::Literal(Literal::Text("B".to_owned())),
                        ],
                    ),
                },
                Domain::Small if key => {
                    Expr::Literal(random_large_value(&mut self.random, &column))
                }
                Domain::Small if column.flag => {
                    if self.random.gen_bool(0.5) {
                        Expr::binary(
                            BinaryOperator::Minus,
                            Expr::Literal(Literal::Integer(1)),
                            reference,
                        )
                    } else {
                        Expr::Literal(random_large_value(&mut self.random, &column))
                    }
                }
                Domain::Small if self.random.gen_bool(0.2) => {
                    Expr::Literal(random_large_value(&mut self.random, &column))
                }
                Domain::Small if column.sql_type == SqlType::Text => {
                    let value = self.scalar(column.sql_type, &scope, 2);
                    bounded_text(value)
                }
                Domain::Small => self.scalar(column.sql_type, &scope, 2),
            };
            assignments.push((column.name.clone(), value));
        }
        let where_clause = self.bulk_where(&table);
        Statement::Update {
            table: table.name,
            assignments,
            where_clause,
        }
    }

    /// DELETE of a key range of a large table.
    fn bulk_delete_statement(&mut self) -> Statement {
        let table = self.large_table();
        let where_clause = self.bulk_where(&table);
        Statement::Delete {
            table: table.name,
            where_clause,
        }
    }

    /// INSERT … SELECT of up to a few thousand rows of a large table (the target itself or
    /// another) into a large table: wide keys shifted past the target's values, unique long
    /// texts with a fresh prefix, other columns from source columns of their kind or
    /// constants.
    fn bulk_insert_statement(&mut self) -> Statement {
        let target = self.large_table();
        let source = self.large_table();
        let alias = self.alias("a");
        let source_scope = self.base_table_scope(&source, &alias);
        let source_keys = source.unique_keys(&self.schema.indexes);
        // Source columns whose values are distinct and never NULL: the row id, and NOT
        // NULL one-column keys.
        let distinct: Vec<usize> = (0..source.columns.len())
            .filter(|&position| {
                source.row_id() == Some(position)
                    || (source.columns[position].not_null
                        && source_keys.iter().any(|key| key == &vec![position]))
            })
            .collect();
        let distinct_wide: Vec<usize> = distinct
            .iter()
            .copied()
            .filter(|&position| matches!(source.columns[position].domain, Domain::Wide { .. }))
            .collect();
        let distinct_text: Vec<usize> = distinct
            .iter()
            .copied()
            .filter(|&position| source.columns[position].domain == Domain::LongText)
            .collect();
        let mut fresh = vec![false; target.columns.len()];
        let mut items = Vec::new();
        for (position, column) in target.columns.iter().enumerate() {
            let same_kind: Vec<&ScopeColumn> = source_scope
                .iter()
                .filter(|candidate| {
                    candidate.sql_type == column.sql_type
                        && candidate.domain == column.domain
                        && candidate.flag == column.flag
                })
                .collect();
            let item = match column.domain {
                Domain::Wide { low, high } => {
                    let Some(&from) = distinct_wide.choose(&mut self.random) else {
                        if target.row_id() == Some(position) {
                            // Nothing would give the row id distinct values.
                            return self.insert_statement();
                        }
                        items.push(Expr::Literal(random_large_value(&mut self.random, column)));
                        continue;
                    };
                    let Domain::Wide {
                        low: source_low,
                        high: source_high,
                    } = source.columns[from].domain
                    else {
                        continue;
                    };
                    if high - low > MOST_WIDE_SPAN || source_high - source_low > MOST_WIDE_SPAN {
                        return self.insert_statement();
                    }
                    // Past every value the target's column may hold, from the smallest the
                    // source's may hold.
                    let distance = high + wide_margin(low, high) - source_low
                        + wide_margin(source_low, source_high)
                        + 1
                        + self.random.gen_range(0..=50);
                    let new_high = high.max(source_high + distance);
                    self.schema.tables.iter_mut().for_each(|table| {
                        if table.name == target.name {
                            table.columns[position].domain = Domain::Wide {
                                low,
                                high: new_high,
                            };
                        }
                    });
                    fresh[position] = true;
                    Expr::binary(
                        BinaryOperator::Plus,
                        Expr::column(&alias, &source.columns[from].name),
                        Expr::Literal(Literal::Integer(distance)),
                    )
                }
                Domain::LongText if !distinct_text.is_empty() && self.random.gen_bool(0.8) => {
                    let from = distinct_text[self.random.gen_range(0..distinct_text.len())];
                    let prefix = Expr::Literal(Literal::Text(self.fresh_prefix()));
                    fresh[position] = true;
                    Expr::binary(
                        BinaryOperator::Concatenate,
                        prefix,
                        Expr::column(&alias, &source.columns[from].name),
                    )
                }
                _ => match same_kind.choose(&mut self.random) {
                    Some(candidate) if self.random.gen_bool(0.85) => {
                        let value = candidate.expression();
                        if column.not_null {
                            let fallback =
                                Expr::Literal(random_large_value(&mut self.random, column));
                            Expr::function("coalesce", vec![value, fallback])
                        } else {
                            value
                        }
                    }
                    _ => Expr::Literal(random_large_value(&mut self.random, column)),
                },
            };
            items.push(item);
        }
        let all_fresh = target
            .unique_keys(&self.schema.indexes)
            .iter()
            .all(|key| key.iter().any(|&position| fresh[position]));
        let (where_clause, _) = self.key_range(&source, &alias);
        let width = items.len();
        let mut query = Query::simple(Select {
            distinct: false,
            items,
            from: Some(From {
                first: TableReference::Table {
                    name: source.name.clone(),
                    alias,
                },
                joins: Vec::new(),
            }),
            where_clause: Some(where_clause),
            group_by: Vec::new(),
            having: None,
        });
        // Every output column ordered: the LIMIT keeps determined rows, and which of two
        // conflicting rows OR IGNORE keeps is determined.
        query.order_by = (1..=width)
            .map(|ordinal| OrderKey {
                target: OrderTarget::Ordinal(ordinal),
                descending: self.random.gen_bool(0.5),
                nulls_first: self.random.gen_bool(0.5),
            })
            .collect();
        query.limit = Some(self.random.gen_range(1..=3000));
        Statement::Insert {
            table: target.name.clone(),
            columns: target
                .columns
                .iter()
                .map(|column| column.name.clone())
                .collect(),
            source: InsertSource::Query(Box::new(query)),
            conflict: if all_fresh {
                Conflict::Abort
            } else {
                Conflict::OrIgnore
            },
        }
    }
}
