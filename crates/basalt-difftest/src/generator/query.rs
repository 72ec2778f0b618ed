//! Random queries: FROM clauses with inner, outer and cross joins and derived tables;
//! WHERE, GROUP BY, HAVING, DISTINCT; set operations; ORDER BY, LIMIT and OFFSET.
//!
//! Set operations are at most two-way when one of them is INTERSECT (PostgreSQL binds
//! INTERSECT tighter than UNION and EXCEPT, SQLite does not). LIMIT and OFFSET only appear
//! with an ORDER BY over every output column, so the rows they keep are determined, and
//! ORDER BY always names NULLS FIRST or LAST (the dialects' defaults differ).

use rand::Rng;
use rand::seq::SliceRandom;

use super::{ExpressionType, Generator, Scope, ScopeColumn, random_sql_type};
use crate::ast::{
    AggregateFunction, BinaryOperator, CommonTable, Expr, From, Join, JoinKind, OrderKey,
    OrderTarget, Query, Select, SetOperator, TableReference,
};
use crate::schema::{Domain, SqlType};
use crate::statement::Statement;

/// What a generated SELECT looks like, for the choices made after it.
struct SelectShape {
    local: Vec<ScopeColumn>,
    aggregated: bool,
}

impl Generator {
    /// A FROM clause of up to `max_tables` tables (fewer without subquery budget), and the
    /// columns it makes visible. `outer` columns may appear in join conditions.
    pub(super) fn random_from_clause(
        &mut self,
        outer: &[ScopeColumn],
        budget: usize,
        max_tables: usize,
    ) -> (From, Vec<ScopeColumn>) {
        let table_count = match self.random.gen_range(0..100) {
            0..=39 => 1,
            40..=84 => 2,
            _ => 3,
        }
        .min(max_tables);
        let (first, mut local) = self.table_reference(budget);
        let mut large_read = self.is_large_reference(&first);
        let mut joins = Vec::new();
        for _ in 1..table_count {
            // In a large case, at most one FROM item is large (or a view or derived table,
            // which may be): joining two could take minutes.
            let small_only = self.small_tables_only;
            self.small_tables_only |= large_read;
            let (table, columns) = self.table_reference(budget);
            self.small_tables_only = small_only;
            let joins_large = large_read || self.is_large_reference(&table);
            large_read |= joins_large;
            if joins_large && let Some(join) = self.large_join(&local, &columns, table.clone()) {
                local.extend(columns);
                joins.push(join);
                continue;
            }
            let kind = match self.random.gen_range(0..100) {
                0..=39 => JoinKind::Inner,
                40..=69 => JoinKind::Left,
                70..=79 => JoinKind::Cross,
                80..=89 => JoinKind::Right,
                _ => JoinKind::Full,
            };
            let on =
                (kind != JoinKind::Cross).then(|| self.join_condition(&local, &columns, outer));
            local.extend(columns);
            joins.push(Join { kind, table, on });
        }
        (From { first, joins }, local)
    }

    /// A join of `table` (whose columns are `added`) to a FROM clause with a large item
    /// (or of a large one): never CROSS, always on an equality, so it costs about as much
    /// as its larger input; None if no columns compare.
    fn large_join(
        &mut self,
        earlier: &[ScopeColumn],
        added: &[ScopeColumn],
        table: TableReference,
    ) -> Option<Join> {
        let pairs: Vec<(&ScopeColumn, &ScopeColumn)> = added
            .iter()
            .flat_map(|new| {
                earlier
                    .iter()
                    .filter(|old| old.sql_type.comparable_with(new.sql_type))
                    .map(move |old| (new, old))
            })
            .collect();
        let (new, old) = pairs.choose(&mut self.random)?;
        let on = Expr::binary(BinaryOperator::Equal, old.expression(), new.expression());
        let kind = *[
            JoinKind::Inner,
            JoinKind::Inner,
            JoinKind::Left,
            JoinKind::Right,
            JoinKind::Full,
        ]
        .choose(&mut self.random)
        .unwrap_or(&JoinKind::Inner);
        Some(Join {
            kind,
            table,
            on: Some(on),
        })
    }

    /// Whether `reference` may be large (in a large case: a large table, or a view, common
    /// table or derived table, which may read one).
    fn is_large_reference(&self, reference: &TableReference) -> bool {
        if !self.options.large() {
            return false;
        }
        match reference {
            TableReference::Table { name, .. } => {
                self.schema.table(name).is_none_or(|table| table.large)
            }
            TableReference::Derived { .. } => true,
        }
    }

    fn table_reference(&mut self, budget: usize) -> (TableReference, Vec<ScopeColumn>) {
        if self.small_tables_only {
            return self.small_table_reference();
        }
        let named_queries = if !self.common_tables.is_empty() && self.random.gen_bool(0.3) {
            Some(&self.common_tables)
        } else if !self.views.is_empty() && self.random.gen_bool(0.15) {
            Some(&self.views)
        } else {
            None
        };
        if let Some(named_queries) = named_queries {
            let position = self.random.gen_range(0..named_queries.len());
            let (name, types) = named_queries[position].clone();
            let alias = self.alias("a");
            let columns = types
                .iter()
                .enumerate()
                .map(|(column, &sql_type)| ScopeColumn {
                    qualifier: alias.clone(),
                    name: format!("v{column}"),
                    sql_type,
                    flag: false,
                    seekable: false,
                    domain: Domain::Small,
                })
                .collect();
            return (TableReference::Table { name, alias }, columns);
        }
        if budget > 0 && self.random.gen_bool(0.12) {
            let alias = self.alias("d");
            let width = self.random.gen_range(1..=3);
            let types: Vec<SqlType> = (0..width)
                .map(|_| random_sql_type(&mut self.random))
                .collect();
            let item_types: Vec<ExpressionType> =
                types.iter().map(|&t| ExpressionType::Scalar(t)).collect();
            // A derived table cannot see the enclosing query's columns (no LATERAL).
            let query = self.query(&item_types, &[], budget - 1, false);
            let columns = types
                .iter()
                .enumerate()
                .map(|(position, &sql_type)| ScopeColumn {
                    qualifier: alias.clone(),
                    name: format!("v{position}"),
                    sql_type,
                    flag: false,
                    seekable: false,
                    domain: Domain::Small,
                })
                .collect();
            let reference = TableReference::Derived {
                query: Box::new(query),
                alias,
            };
            return (reference, columns);
        }
        self.base_table_reference(false)
    }

    /// A small base table (any, if there is none but the one being modified).
    pub(super) fn small_table_reference(&mut self) -> (TableReference, Vec<ScopeColumn>) {
        self.base_table_reference(true)
    }

    fn base_table_reference(&mut self, small: bool) -> (TableReference, Vec<ScopeColumn>) {
        let candidates = |small: bool| -> Vec<usize> {
            (0..self.schema.tables.len())
                .filter(|&position| {
                    let table = &self.schema.tables[position];
                    Some(&table.name) != self.excluded_table.as_ref() && !(small && table.large)
                })
                .collect()
        };
        let mut eligible = candidates(small);
        if eligible.is_empty() {
            eligible = candidates(false);
        }
        let position = eligible
            .choose(&mut self.random)
            .copied()
            .unwrap_or_default();
        let table = self.schema.tables[position].clone();
        let alias = self.alias("a");
        let scope = self.base_table_scope(&table, &alias);
        let name = table.name;
        (TableReference::Table { name, alias }, scope)
    }

    /// An ON condition: usually an equality between a new column and an earlier one of a
    /// comparable type, sometimes with another conjunct.
    fn join_condition(
        &mut self,
        earlier: &[ScopeColumn],
        added: &[ScopeColumn],
        outer: &[ScopeColumn],
    ) -> Expr {
        let mut combined = earlier.to_vec();
        combined.extend_from_slice(added);
        // Sometimes a subquery in the ON condition (correlated with the joined tables).
        let scope = Scope {
            local: &combined,
            outer,
            grouping: None,
            subquery_budget: usize::from(!self.options.bulk() && self.random.gen_bool(0.2)),
        };
        let pairs: Vec<(&ScopeColumn, &ScopeColumn)> = added
            .iter()
            .flat_map(|new| {
                earlier
                    .iter()
                    .filter(|old| old.sql_type.comparable_with(new.sql_type))
                    .map(move |old| (new, old))
            })
            .collect();
        // Joining on a seekable column lets the planner pick an index join.
        let seekable_pairs: Vec<(&ScopeColumn, &ScopeColumn)> = pairs
            .iter()
            .copied()
            .filter(|(new, _)| new.seekable)
            .collect();
        let pairs = if !seekable_pairs.is_empty() && self.random.gen_bool(0.6) {
            seekable_pairs
        } else {
            pairs
        };
        let equality = pairs
            .choose(&mut self.random)
            .filter(|_| self.random.gen_bool(0.85))
            .map(|(new, old)| {
                Expr::binary(BinaryOperator::Equal, old.expression(), new.expression())
            });
        match equality {
            Some(equality) if self.random.gen_bool(0.3) => {
                let extra = self.predicate(&scope, 1);
                Expr::binary(BinaryOperator::And, equality, extra)
            }
            Some(equality) => equality,
            None => self.predicate(&scope, 1),
        }
    }

    /// One SELECT producing `types`, seeing `outer` columns, joining at most `max_tables`.
    fn select(
        &mut self,
        types: &[ExpressionType],
        outer: &[ScopeColumn],
        budget: usize,
        max_tables: usize,
    ) -> (Select, SelectShape) {
        let (from, local) = self.random_from_clause(outer, budget, max_tables);
        let plain = Scope {
            local: &local,
            outer,
            grouping: None,
            subquery_budget: budget,
        };
        let where_clause = self.random.gen_bool(0.7).then(|| self.predicate(&plain, 3));
        let where_clause = self.with_sargable(&local, where_clause);
        let aggregated = self.random.gen_bool(0.3);
        let (items, group_by, having) = if aggregated {
            let mut keys: Vec<ScopeColumn> = local.clone();
            keys.shuffle(&mut self.random);
            keys.truncate(self.random.gen_range(0..=2));
            let grouped = Scope {
                grouping: Some(&keys),
                ..plain
            };
            let items = types
                .iter()
                .map(|&item_type| self.expression(item_type, &grouped, 2))
                .collect();
            // SQLite rejects HAVING without GROUP BY unless the select list aggregates.
            let having = (!keys.is_empty() && self.random.gen_bool(0.3))
                .then(|| self.predicate(&grouped, 2));
            let group_by = keys.iter().map(ScopeColumn::expression).collect();
            (items, group_by, having)
        } else {
            let items = types
                .iter()
                .map(|&item_type| self.expression(item_type, &plain, 3))
                .collect();
            (items, Vec::new(), None)
        };
        let select = Select {
            distinct: self.random.gen_bool(0.15),
            items,
            from: Some(from),
            where_clause,
            group_by,
            having,
        };
        let aggregated = aggregated
            && (!select.group_by.is_empty()
                || select.having.is_some()
                || select.items.iter().any(Expr::contains_aggregate));
        (select, SelectShape { local, aggregated })
    }

    /// A query producing `types`: a SELECT, sometimes combined with others by set
    /// operators; ordered (and then perhaps limited) when `top_level` or by chance.
    pub(super) fn query(
        &mut self,
        types: &[ExpressionType],
        outer: &[ScopeColumn],
        budget: usize,
        top_level: bool,
    ) -> Query {
        // Nested queries join at most two tables: a correlated subquery runs once per outer
        // row, and Basalt runs it naively, so three-way joins there make minutes-long
        // statements.
        // With bulk data, subqueries (run once per outer row) read one table.
        let max_tables = match (top_level, self.options.bulk()) {
            (true, false) => 3,
            (true, true) | (false, false) => 2,
            (false, true) => 1,
        };
        let (body, shape) = self.select(types, outer, budget, max_tables);
        let mut query = Query::simple(body);
        if self.random.gen_bool(if top_level { 0.15 } else { 0.08 }) {
            let members = self.random.gen_range(1..=2);
            for _ in 0..members {
                let operators: &[SetOperator] = if members == 1 {
                    &[
                        SetOperator::Union,
                        SetOperator::UnionAll,
                        SetOperator::Intersect,
                        SetOperator::Except,
                    ]
                } else {
                    &[
                        SetOperator::Union,
                        SetOperator::UnionAll,
                        SetOperator::Except,
                    ]
                };
                let operator = *operators
                    .choose(&mut self.random)
                    .unwrap_or(&SetOperator::Union);
                let (member, _) = self.select(types, outer, budget, max_tables);
                query.compounds.push((operator, member));
            }
        }
        let order_chance = if top_level { 0.4 } else { 0.1 };
        if self.random.gen_bool(order_chance) {
            let mut ordinals: Vec<usize> = (1..=types.len()).collect();
            ordinals.shuffle(&mut self.random);
            let plain_select =
                query.compounds.is_empty() && !query.body.distinct && !shape.aggregated;
            if plain_select && self.random.gen_bool(0.3) {
                let scope = Scope {
                    local: &shape.local,
                    outer,
                    grouping: None,
                    subquery_budget: 0,
                };
                let sql_type = self.pick_type(shape.local.iter());
                let key = self.scalar(sql_type, &scope, 1);
                // A constant key would be an ordinal (or an error in PostgreSQL).
                if key.mentions_column() {
                    query
                        .order_by
                        .push(self.order_key(OrderTarget::Expression(key)));
                }
            }
            for ordinal in ordinals {
                query
                    .order_by
                    .push(self.order_key(OrderTarget::Ordinal(ordinal)));
            }
            if self.random.gen_bool(0.5) {
                query.limit = Some(self.random.gen_range(0..=6));
                if self.random.gen_bool(0.3) {
                    query.offset = Some(self.random.gen_range(0..=4));
                }
            }
        }
        query
    }

    fn order_key(&mut self, target: OrderTarget) -> OrderKey {
        OrderKey {
            target,
            descending: self.random.gen_bool(0.5),
            nulls_first: self.random.gen_bool(0.5),
        }
    }

    /// A subquery for IN or EXISTS, correlated with the columns visible in `scope`.
    pub(super) fn subquery(&mut self, types: &[SqlType], scope: &Scope<'_>) -> Query {
        let outer = scope.visible();
        let item_types: Vec<ExpressionType> =
            types.iter().map(|&t| ExpressionType::Scalar(t)).collect();
        let small_only = self.small_tables_only;
        self.small_tables_only |= self.options.large();
        let query = self.query(&item_types, &outer, scope.subquery_budget - 1, false);
        self.small_tables_only = small_only;
        query
    }

    /// A query statement, with a partitioning predicate for the ternary logic check when
    /// the query's shape allows one.
    pub(super) fn query_statement(&mut self) -> Statement {
        if !self.previous_queries.is_empty() && self.random.gen_bool(0.1) {
            let position = self.random.gen_range(0..self.previous_queries.len());
            return self.previous_queries[position].clone();
        }
        let statement = self.new_query_statement();
        self.previous_queries.push(statement.clone());
        statement
    }

    fn new_query_statement(&mut self) -> Statement {
        if self.random.gen_bool(0.12) {
            return self.mergeable_aggregate_statement();
        }
        let width = self.random.gen_range(1..=4);
        let types: Vec<ExpressionType> = (0..width)
            .map(|_| {
                if self.random.gen_bool(0.12) {
                    ExpressionType::Boolean
                } else {
                    ExpressionType::Scalar(random_sql_type(&mut self.random))
                }
            })
            .collect();
        // Common table expressions, visible to the whole query, subqueries included.
        let mut with = Vec::new();
        if self.random.gen_bool(0.12) {
            for _ in 0..self.random.gen_range(1..=2) {
                let width = self.random.gen_range(1..=3);
                let column_types: Vec<SqlType> = (0..width)
                    .map(|_| random_sql_type(&mut self.random))
                    .collect();
                let item_types: Vec<ExpressionType> = column_types
                    .iter()
                    .map(|&t| ExpressionType::Scalar(t))
                    .collect();
                let query = self.query(&item_types, &[], 1, false);
                let name = format!("w{}", with.len() + 1);
                self.common_tables.push((name.clone(), column_types));
                with.push(CommonTable { name, query });
            }
        }
        // Basalt runs a correlated subquery once per outer row, building its operators
        // each time: with bulk data, one level of subqueries is as much as stays fast.
        let budget = if self.options.large() {
            // A correlated subquery runs once per row of a large table.
            usize::from(self.random.gen_bool(0.3))
        } else if self.options.bulk() {
            1
        } else {
            2
        };
        let mut query = self.query(&types, &[], budget, true);
        query.with = with;
        self.common_tables.clear();
        let partitionable = query.compounds.is_empty()
            && query.limit.is_none()
            && query.offset.is_none()
            && query.body.group_by.is_empty()
            && query.body.having.is_none()
            && !query.body.items.iter().any(Expr::contains_aggregate);
        let partition = if partitionable && self.random.gen_bool(0.6) {
            self.partition_predicate(&query)
        } else {
            None
        };
        Statement::Query {
            query: Box::new(query),
            partition,
        }
    }

    /// A predicate over the query's FROM columns, to split its rows three ways.
    fn partition_predicate(&mut self, query: &Query) -> Option<Expr> {
        let from = query.body.from.as_ref()?;
        let local = self.columns_of(from);
        let scope = Scope {
            local: &local,
            outer: &[],
            grouping: None,
            subquery_budget: usize::from(!self.options.bulk()),
        };
        if self.random.gen_bool(0.3)
            && let Some(seek) = self.sargable_predicate(&local)
        {
            return Some(seek);
        }
        Some(self.predicate(&scope, 2))
    }

    /// The columns a FROM clause makes visible (base tables only; derived tables' columns
    /// are named v0, v1, ... and typed by the derived query, which we do not track here,
    /// so they are left out).
    fn columns_of(&self, from: &From) -> Vec<ScopeColumn> {
        let mut columns = Vec::new();
        let references =
            std::iter::once(&from.first).chain(from.joins.iter().map(|join| &join.table));
        for reference in references {
            if let TableReference::Table { name, alias } = reference
                && let Some(table) = self.schema.table(name)
            {
                columns.extend(self.base_table_scope(table, alias));
            }
        }
        columns
    }

    /// `SELECT count(*), sum(x), min(y), ... FROM ... [WHERE ...]`: aggregates whose values
    /// over a partition of the rows combine into the value over all of them.
    fn mergeable_aggregate_statement(&mut self) -> Statement {
        let max_tables = if self.options.large() { 2 } else { 3 };
        let (from, local) = self.random_from_clause(&[], 1, max_tables);
        let plain = Scope {
            local: &local,
            outer: &[],
            grouping: None,
            subquery_budget: usize::from(!self.options.bulk()),
        };
        let where_clause = self.random.gen_bool(0.6).then(|| self.predicate(&plain, 2));
        let where_clause = self.with_sargable(&local, where_clause);
        let width = self.random.gen_range(1..=3);
        let items = (0..width)
            .map(|_| {
                let function = *[
                    AggregateFunction::Count,
                    AggregateFunction::Sum,
                    AggregateFunction::Min,
                    AggregateFunction::Max,
                ]
                .choose(&mut self.random)
                .unwrap_or(&AggregateFunction::Count);
                let sql_type = match function {
                    AggregateFunction::Sum if self.random.gen_bool(0.7) => SqlType::Integer,
                    AggregateFunction::Sum => SqlType::Real,
                    _ => self.pick_type(local.iter()),
                };
                let argument = (function != AggregateFunction::Count || self.random.gen_bool(0.5))
                    .then(|| Box::new(self.scalar(sql_type, &Scope::plain(&local), 2)));
                let filter = self
                    .random
                    .gen_bool(0.15)
                    .then(|| Box::new(self.predicate(&Scope::plain(&local), 1)));
                Expr::Aggregate {
                    function,
                    distinct: false,
                    argument,
                    filter,
                }
            })
            .collect();
        let query = Query::simple(Select {
            distinct: false,
            items,
            from: Some(from),
            where_clause,
            group_by: Vec::new(),
            having: None,
        });
        let partition = Some(self.predicate(&plain, 2));
        Statement::Query {
            query: Box::new(query),
            partition,
        }
    }
}
