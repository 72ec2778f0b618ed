//! The syntax tree of generated SQL and its rendering as text both engines parse.
//!
//! Queries are generated and reduced as trees, and only turned into text to run. The text
//! is fully parenthesised — every operator application gets its own parentheses — so that
//! the two dialects' different operator precedences never matter, and negative numbers are
//! always parenthesised so `-` never meets another `-` to form a comment.
//!
//! This module holds expressions; [`query`] holds SELECT, FROM, set operations and ORDER
//! BY.

mod query;

pub use query::{
    CommonTable, From, Join, JoinKind, OrderKey, OrderTarget, Query, Select, SetOperator,
    TableReference,
};

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
    /// The operator as written in SQL.
    pub fn symbol(self) -> &'static str {
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
    /// LIKE, or GLOB when `glob`.
    Like {
        operand: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
        glob: bool,
    },
    /// `operand IS [NOT] TRUE / FALSE`.
    IsTruth {
        operand: Box<Expr>,
        truth: bool,
        negated: bool,
    },
    /// `CAST(operand AS type)`.
    Cast {
        operand: Box<Expr>,
        to: SqlType,
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
        /// `FILTER (WHERE ...)`.
        filter: Option<Box<Expr>>,
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
            Expr::IsNull { operand, .. }
            | Expr::InSubquery { operand, .. }
            | Expr::IsTruth { operand, .. }
            | Expr::Cast { operand, .. } => visit(operand),
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
            Expr::Aggregate {
                argument, filter, ..
            } => argument
                .iter()
                .chain(filter.iter())
                .for_each(|inner| visit(inner)),
        }
    }
}

pub(crate) fn write_list<T: Display>(formatter: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
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
                glob,
            } => write!(
                formatter,
                "({operand} {}{} {pattern})",
                not_word(*negated),
                if *glob { "GLOB" } else { "LIKE" }
            ),
            Expr::IsTruth {
                operand,
                truth,
                negated,
            } => write!(
                formatter,
                "({operand} IS {}{})",
                not_word(*negated),
                if *truth { "TRUE" } else { "FALSE" }
            ),
            Expr::Cast { operand, to } => write!(formatter, "CAST({operand} AS {})", to.name()),
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
                filter,
            } => {
                match argument {
                    None => write!(formatter, "{}(*)", function.name())?,
                    Some(argument) => write!(
                        formatter,
                        "{}({}{argument})",
                        function.name(),
                        if *distinct { "DISTINCT " } else { "" }
                    )?,
                }
                match filter {
                    Some(condition) => write!(formatter, " FILTER (WHERE {condition})"),
                    None => Ok(()),
                }
            }
        }
    }
}
