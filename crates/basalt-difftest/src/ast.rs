//! The syntax tree of generated SQL and its rendering as text both engines parse.
//!
//! Queries are generated and reduced as trees, and only turned into text to run. The text
//! is fully parenthesised — every operator application gets its own parentheses — so that
//! the two dialects' different operator precedences never matter, and negative numbers are
//! always parenthesised so `-` never meets another `-` to form a comment.

use std::fmt::{self, Display, Formatter};

use crate::schema::SqlType;

/// A constant.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Null,
    /// `CAST(NULL AS type)`: a NULL whose type both engines know (see [`Literal::typed_null`]).
    TypedNull(SqlType),
    Integer(i64),
    Real(f64),
    Text(String),
    Boolean(bool),
}

impl Literal {
    /// A NULL of `sql_type`. A bare NULL has no type in SQLite and an inferred one in
    /// Basalt (`abs(NULL)` is REAL there), which shows when it decides a column's type,
    /// as in the first member of a UNION; expressions therefore use typed NULLs.
    pub fn typed_null(sql_type: SqlType) -> Literal {
        Literal::TypedNull(sql_type)
    }
}

impl Display for Literal {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Null => write!(formatter, "NULL"),
            Literal::TypedNull(sql_type) => write!(formatter, "CAST(NULL AS {})", sql_type.name()),
            Literal::Integer(value) if *value < 0 => write!(formatter, "({value})"),
            Literal::Integer(value) => write!(formatter, "{value}"),
            // `{:?}` always prints a decimal point or exponent, so the literal stays REAL.
            Literal::Real(value) if *value < 0.0 => write!(formatter, "({value:?})"),
            Literal::Real(value) => write!(formatter, "{value:?}"),
            Literal::Text(text) => write!(formatter, "'{}'", text.replace('\'', "''")),
            Literal::Boolean(true) => write!(formatter, "TRUE"),
            Literal::Boolean(false) => write!(formatter, "FALSE"),
        }
    }
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOperator {
    Plus,
    Minus,
    Multiply,
    Divide,
    Modulo,
    Concatenate,
    Equal,
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    And,
    Or,
    IsDistinctFrom,
    IsNotDistinctFrom,
}

impl BinaryOperator {
    fn symbol(self) -> &'static str {
        match self {
            BinaryOperator::Plus => "+",
            BinaryOperator::Minus => "-",
            BinaryOperator::Multiply => "*",
            BinaryOperator::Divide => "/",
            BinaryOperator::Modulo => "%",
            BinaryOperator::Concatenate => "||",
            BinaryOperator::Equal => "=",
            BinaryOperator::NotEqual => "<>",
            BinaryOperator::Less => "<",
            BinaryOperator::LessOrEqual => "<=",
            BinaryOperator::Greater => ">",
            BinaryOperator::GreaterOrEqual => ">=",
            BinaryOperator::And => "AND",
            BinaryOperator::Or => "OR",
            BinaryOperator::IsDistinctFrom => "IS DISTINCT FROM",
            BinaryOperator::IsNotDistinctFrom => "IS NOT DISTINCT FROM",
        }
    }
}

/// An aggregate function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggregateFunction {
    /// `count(*)` when the argument is absent.
    Count,
    Sum,
    Min,
    Max,
    Avg,
    Total,
    GroupConcat,
}

impl AggregateFunction {
    fn name(self) -> &'static str {
        match self {
            AggregateFunction::Count => "count",
            AggregateFunction::Sum => "sum",
            AggregateFunction::Min => "min",
            AggregateFunction::Max => "max",
            AggregateFunction::Avg => "avg",
            AggregateFunction::Total => "total",
            AggregateFunction::GroupConcat => "group_concat",
        }
    }
}

/// A scalar expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Column {
        qualifier: String,
        name: String,
    },
    Literal(Literal),
    Negate(Box<Expr>),
    Not(Box<Expr>),
    Binary {
        operator: BinaryOperator,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    IsNull {
        operand: Box<Expr>,
        negated: bool,
    },
    Between {
        operand: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    InList {
        operand: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    InSubquery {
        operand: Box<Expr>,
        query: Box<Query>,
        negated: bool,
    },
    Exists {
        query: Box<Query>,
        negated: bool,
    },
    Subquery(Box<Query>),
    Like {
        operand: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
    },
    Case {
        operand: Option<Box<Expr>>,
        branches: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    Function {
        name: String,
        arguments: Vec<Expr>,
    },
    Aggregate {
        function: AggregateFunction,
        distinct: bool,
        argument: Option<Box<Expr>>,
    },
}

impl Expr {
    /// A column reference `qualifier.name`.
    pub fn column(qualifier: &str, name: &str) -> Expr {
        Expr::Column {
            qualifier: qualifier.to_owned(),
            name: name.to_owned(),
        }
    }

    /// `left operator right`.
    pub fn binary(operator: BinaryOperator, left: Expr, right: Expr) -> Expr {
        Expr::Binary {
            operator,
            left: Box::new(left),
            right: Box::new(right),
        }
    }

    /// A function call.
    pub fn function(name: &str, arguments: Vec<Expr>) -> Expr {
        Expr::Function {
            name: name.to_owned(),
            arguments,
        }
    }

    /// Whether an aggregate call appears in this expression outside subqueries.
    pub fn contains_aggregate(&self) -> bool {
        let mut found = false;
        self.for_each_child(&mut |child| found |= child.contains_aggregate());
        found || matches!(self, Expr::Aggregate { .. })
    }

    /// Whether a column reference appears in this expression outside subqueries (an
    /// ORDER BY or GROUP BY key without one is a constant, which SQLite may take as an
    /// ordinal).
    pub fn mentions_column(&self) -> bool {
        let mut found = matches!(self, Expr::Column { .. });
        self.for_each_child(&mut |child| found |= child.mentions_column());
        found
    }

    /// Calls `visit` on each direct child expression (not those inside subqueries).
    pub fn for_each_child(&self, visit: &mut dyn FnMut(&Expr)) {
        match self {
            Expr::Column { .. } | Expr::Literal(_) | Expr::Exists { .. } | Expr::Subquery(_) => {}
            Expr::Negate(inner) | Expr::Not(inner) => visit(inner),
            Expr::Binary { left, right, .. } => {
                visit(left);
                visit(right);
            }
            Expr::IsNull { operand, .. } | Expr::InSubquery { operand, .. } => visit(operand),
            Expr::Between {
                operand, low, high, ..
            } => {
                visit(operand);
                visit(low);
                visit(high);
            }
            Expr::InList { operand, list, .. } => {
                visit(operand);
                list.iter().for_each(&mut *visit);
            }
            Expr::Like {
                operand, pattern, ..
            } => {
                visit(operand);
                visit(pattern);
            }
            Expr::Case {
                operand,
                branches,
                otherwise,
            } => {
                operand.iter().for_each(|inner| visit(inner));
                for (condition, result) in branches {
                    visit(condition);
                    visit(result);
                }
                otherwise.iter().for_each(|inner| visit(inner));
            }
            Expr::Function { arguments, .. } => arguments.iter().for_each(&mut *visit),
            Expr::Aggregate { argument, .. } => argument.iter().for_each(|inner| visit(inner)),
        }
    }
}

fn write_list<T: Display>(formatter: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (position, item) in items.iter().enumerate() {
        if position > 0 {
            write!(formatter, ", ")?;
        }
        write!(formatter, "{item}")?;
    }
    Ok(())
}

fn not_word(negated: bool) -> &'static str {
    if negated { "NOT " } else { "" }
}

impl Display for Expr {
    fn fmt(&self, formatter: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Column { qualifier, name } => write!(formatter, "{qualifier}.{name}"),
            Expr::Literal(literal) => write!(formatter, "{literal}"),
            Expr::Negate(inner) => write!(formatter, "(- {inner})"),
            Expr::Not(inner) => write!(formatter, "(NOT {inner})"),
            Expr::Binary {
                operator,
                left,
                right,
            } => write!(formatter, "({left} {} {right})", operator.symbol()),
            Expr::IsNull { operand, negated } => {
                write!(formatter, "({operand} IS {}NULL)", not_word(*negated))
            }
            Expr::Between {
                operand,
                low,
                high,
                negated,
            } => write!(
                formatter,
                "({operand} {}BETWEEN {low} AND {high})",
                not_word(*negated)
            ),
            Expr::InList {
                operand,
                list,
                negated,
            } => {
                write!(formatter, "({operand} {}IN (", not_word(*negated))?;
                write_list(formatter, list)?;
                write!(formatter, "))")
            }
            Expr::InSubquery {
                operand,
                query,
                negated,
            } => write!(formatter, "({operand} {}IN ({query}))", not_word(*negated)),
            Expr::Exists { query, negated } => {
                write!(formatter, "({}EXISTS ({query}))", not_word(*negated))
            }
            Expr::Subquery(query) => write!(formatter, "({query})"),
            Expr::Like {
                operand,
                pattern,
                negated,
            } => write!(
                formatter,
                "({operand} {}LIKE {pattern})",
                not_word(*negated)
            ),
            Expr::Case {
                operand,
                branches,
                otherwise,
            } => {
                write!(formatter, "(CASE")?;
                if let Some(operand) = operand {
                    write!(formatter, " {operand}")?;
                }
                for (condition, result) in branches {
                    write!(formatter, " WHEN {condition} THEN {result}")?;
                }
                if let Some(otherwise) = otherwise {
                    write!(formatter, " ELSE {otherwise}")?;
                }
                write!(formatter, " END)")
            }
            Expr::Function { name, arguments } => {
                write!(formatter, "{name}(")?;
                write_list(formatter, arguments)?;
                write!(formatter, ")")
            }
            Expr::Aggregate {
                function,
                distinct,
                argument,
            } => match argument {
                None => write!(formatter, "{}(*)", function.name()),
                Some(argument) => write!(
                    formatter,
                    "{}({}{argument})",
                    function.name(),
                    if *distinct { "DISTINCT " } else { "" }
                ),
            },
        }
    }
}

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

/// A full query: a SELECT, optionally combined with more by set operators, then ordered
/// and limited.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
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
