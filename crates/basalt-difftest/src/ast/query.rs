//! Queries: SELECT with its FROM clause, set operations, common table expressions, ORDER
//! BY, LIMIT and OFFSET, and their rendering.

use std::fmt::{self, Display, Formatter};

use super::{Expr, write_list};

/// A join type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
    Cross,
}

/// A table in FROM: a base table or a derived table, with an alias.
#[derive(Debug, Clone, PartialEq)]
pub enum TableReference {
    Table { name: String, alias: String },
    Derived { query: Box<Query>, alias: String },
}

impl Display for TableReference {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TableReference::Table { name, alias } => write!(formatter, "{name} AS {alias}"),
            TableReference::Derived { query, alias } => write!(formatter, "({query}) AS {alias}"),
        }
    }
}

/// One join in FROM.
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    pub kind: JoinKind,
    pub table: TableReference,
    /// The ON condition (absent only for CROSS JOIN).
    pub on: Option<Expr>,
}

/// A FROM clause: a first table and the tables joined to it, left to right.
#[derive(Debug, Clone, PartialEq)]
pub struct From {
    pub first: TableReference,
    pub joins: Vec<Join>,
}

impl Display for From {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}", self.first)?;
        for join in &self.joins {
            let keyword = match join.kind {
                JoinKind::Inner => "JOIN",
                JoinKind::Left => "LEFT JOIN",
                JoinKind::Right => "RIGHT JOIN",
                JoinKind::Full => "FULL JOIN",
                JoinKind::Cross => "CROSS JOIN",
            };
            write!(formatter, " {keyword} {}", join.table)?;
            if let Some(on) = &join.on {
                write!(formatter, " ON {on}")?;
            }
        }
        Ok(())
    }
}

/// One SELECT (a member of a compound query, or the whole body).
#[derive(Debug, Clone, PartialEq)]
pub struct Select {
    pub distinct: bool,
    /// Output expressions; each is rendered `AS v<position>`.
    pub items: Vec<Expr>,
    pub from: Option<From>,
    pub where_clause: Option<Expr>,
    pub group_by: Vec<Expr>,
    pub having: Option<Expr>,
}

impl Display for Select {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        write!(formatter, "SELECT ")?;
        if self.distinct {
            write!(formatter, "DISTINCT ")?;
        }
        for (position, item) in self.items.iter().enumerate() {
            if position > 0 {
                write!(formatter, ", ")?;
            }
            write!(formatter, "{item} AS v{position}")?;
        }
        if let Some(from) = &self.from {
            write!(formatter, " FROM {from}")?;
        }
        if let Some(condition) = &self.where_clause {
            write!(formatter, " WHERE {condition}")?;
        }
        if !self.group_by.is_empty() {
            write!(formatter, " GROUP BY ")?;
            write_list(formatter, &self.group_by)?;
        }
        if let Some(condition) = &self.having {
            write!(formatter, " HAVING {condition}")?;
        }
        Ok(())
    }
}

/// A set operator between SELECTs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOperator {
    Union,
    UnionAll,
    Intersect,
    Except,
}

impl Display for SetOperator {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            SetOperator::Union => "UNION",
            SetOperator::UnionAll => "UNION ALL",
            SetOperator::Intersect => "INTERSECT",
            SetOperator::Except => "EXCEPT",
        })
    }
}

/// What an ORDER BY key sorts by.
#[derive(Debug, Clone, PartialEq)]
pub enum OrderTarget {
    /// An output column, 1-based.
    Ordinal(usize),
    Expression(Expr),
}

/// One ORDER BY key; NULL placement is always explicit (the dialects' defaults differ).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderKey {
    pub target: OrderTarget,
    pub descending: bool,
    pub nulls_first: bool,
}

impl Display for OrderKey {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        match &self.target {
            OrderTarget::Ordinal(ordinal) => write!(formatter, "{ordinal}")?,
            OrderTarget::Expression(expression) => write!(formatter, "{expression}")?,
        }
        write!(
            formatter,
            "{} NULLS {}",
            if self.descending { " DESC" } else { "" },
            if self.nulls_first { "FIRST" } else { "LAST" }
        )
    }
}

/// `name AS (query)` in a WITH clause; its columns are the query's `v0, v1, ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct CommonTable {
    pub name: String,
    pub query: Query,
}

/// A full query: common table expressions, a SELECT, optionally combined with more by set
/// operators, then ordered and limited.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub with: Vec<CommonTable>,
    pub body: Select,
    pub compounds: Vec<(SetOperator, Select)>,
    pub order_by: Vec<OrderKey>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
}

impl Query {
    /// A query of one SELECT with nothing after it.
    pub fn simple(body: Select) -> Query {
        Query {
            with: Vec::new(),
            body,
            compounds: Vec::new(),
            order_by: Vec::new(),
            limit: None,
            offset: None,
        }
    }

    /// Whether the order of the result rows is fully determined by ORDER BY: the keys
    /// cover every output column (rows that tie on all of them are identical).
    pub fn is_ordered(&self) -> bool {
        let width = self.body.items.len();
        !self.order_by.is_empty()
            && (1..=width).all(|ordinal| {
                self.order_by
                    .iter()
                    .any(|key| key.target == OrderTarget::Ordinal(ordinal))
            })
    }
}

impl Display for Query {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        for (position, common) in self.with.iter().enumerate() {
            let keyword = if position == 0 { "WITH" } else { "," };
            write!(
                formatter,
                "{keyword} {} AS ({}) ",
                common.name, common.query
            )?;
        }
        write!(formatter, "{}", self.body)?;
        for (operator, select) in &self.compounds {
            write!(formatter, " {operator} {select}")?;
        }
        if !self.order_by.is_empty() {
            write!(formatter, " ORDER BY ")?;
            write_list(formatter, &self.order_by)?;
        }
        if let Some(limit) = self.limit {
            write!(formatter, " LIMIT {limit}")?;
        }
        if let Some(offset) = self.offset {
            write!(formatter, " OFFSET {offset}")?;
        }
        Ok(())
    }
}
