//! Typed random expressions: scalars of each column type, predicates with three-valued
//! logic, aggregate calls, and subqueries in expressions.
//!
//! The rules that keep both engines in agreement are enforced here: no comparison between
//! text and numbers, `/` and `%` only by nonzero literals, `substr` only from position 1
//! on, CASE and COALESCE branches of one type, LIKE only on text, and scalar subqueries
//! that return at most one row (an aggregate, or ORDER BY all columns with LIMIT 1).

use rand::Rng;
use rand::seq::SliceRandom;

use super::{ExpressionType, Generator, Scope, ScopeColumn};
use crate::ast::{
    AggregateFunction, BinaryOperator, Expr, Literal, OrderKey, OrderTarget, Query, Select,
};
use crate::schema::SqlType;
use crate::values::{
    nonempty_text, nonzero_integer, nonzero_real, random_glob_pattern, random_literal,
    random_pattern,
};

const COMPARISONS: &[BinaryOperator] = &[
    BinaryOperator::Equal,
    BinaryOperator::NotEqual,
    BinaryOperator::Less,
    BinaryOperator::LessOrEqual,
    BinaryOperator::Greater,
    BinaryOperator::GreaterOrEqual,
];

impl Generator {
    /// An expression of `expression_type`.
    pub fn expression(
        &mut self,
        expression_type: ExpressionType,
        scope: &Scope<'_>,
        depth: usize,
    ) -> Expr {
        match expression_type {
            ExpressionType::Scalar(sql_type) => self.scalar(sql_type, scope, depth),
            ExpressionType::Boolean => self.predicate(scope, depth),
        }
    }

    /// A column of `sql_type` usable here, if there is one.
    fn column_of(&mut self, sql_type: SqlType, scope: &Scope<'_>) -> Option<Expr> {
        // Wide integers (row ids of large tables) never go into arithmetic: they would
        // overflow, an error in Basalt and a switch to REAL in SQLite.
        let candidates: Vec<&ScopeColumn> = scope
            .referable()
            .filter(|column| column.sql_type == sql_type && column.domain.arithmetic())
            .collect();
        candidates
            .choose(&mut self.random)
            .map(|column| column.expression())
    }

    fn leaf(&mut self, sql_type: SqlType, scope: &Scope<'_>) -> Expr {
        if scope.grouping.is_some()
            && self.random.gen_bool(0.4)
            && let Some(aggregate) = self.aggregate(sql_type, scope)
        {
            return aggregate;
        }
        if self.random.gen_bool(0.75)
            && let Some(column) = self.column_of(sql_type, scope)
        {
            return column;
        }
        Expr::Literal(random_literal(&mut self.random, sql_type))
    }

    /// A scalar expression of `sql_type`.
    pub fn scalar(&mut self, sql_type: SqlType, scope: &Scope<'_>, depth: usize) -> Expr {
        if depth == 0 || self.random.gen_bool(0.35) {
            return self.leaf(sql_type, scope);
        }
        let next = depth - 1;
        let choice = self.random.gen_range(0..100);
        if choice < 12
            && scope.grouping.is_some()
            && let Some(aggregate) = self.aggregate(sql_type, scope)
        {
            return aggregate;
        }
        if (12..18).contains(&choice) && scope.subquery_budget > 0 {
            return self.scalar_subquery(sql_type, scope);
        }
        if (18..28).contains(&choice) {
            return self.case_expression(ExpressionType::Scalar(sql_type), scope, next);
        }
        if (28..34).contains(&choice) {
            let count = self.random.gen_range(2..=3);
            let arguments = (0..count)
                .map(|_| self.scalar(sql_type, scope, next))
                .collect();
            return Expr::function("coalesce", arguments);
        }
        if (34..38).contains(&choice) {
            let left = self.scalar(sql_type, scope, next);
            let right = self.scalar(sql_type, scope, next);
            return Expr::function("nullif", vec![left, right]);
        }
        match sql_type {
            SqlType::Integer => self.integer_operation(scope, next),
            SqlType::Real => self.real_operation(scope, next),
            SqlType::Text => self.text_operation(scope, next),
        }
    }

    fn integer_operation(&mut self, scope: &Scope<'_>, next: usize) -> Expr {
        let integer = SqlType::Integer;
        match self.random.gen_range(0..10) {
            0..=2 => {
                let operator = *[
                    BinaryOperator::Plus,
                    BinaryOperator::Minus,
                    BinaryOperator::Multiply,
                ]
                .choose(&mut self.random)
                .unwrap_or(&BinaryOperator::Plus);
                let left = self.scalar(integer, scope, next);
                let right = self.scalar(integer, scope, next);
                Expr::binary(operator, left, right)
            }
            3 | 4 => {
                let operator = if self.random.gen_bool(0.5) {
                    BinaryOperator::Divide
                } else {
                    BinaryOperator::Modulo
                };
                let left = self.scalar(integer, scope, next);
                Expr::binary(
                    operator,
                    left,
                    Expr::Literal(nonzero_integer(&mut self.random)),
                )
            }
            5 => Expr::Negate(Box::new(self.scalar(integer, scope, next))),
            6 => Expr::function("abs", vec![self.scalar(integer, scope, next)]),
            7 => Expr::function("length", vec![self.scalar(SqlType::Text, scope, next)]),
            _ => self.leaf(integer, scope),
        }
    }

    fn real_operation(&mut self, scope: &Scope<'_>, next: usize) -> Expr {
        let real = SqlType::Real;
        match self.random.gen_range(0..10) {
            0..=3 => {
                let operator = *[
                    BinaryOperator::Plus,
                    BinaryOperator::Minus,
                    BinaryOperator::Multiply,
                ]
                .choose(&mut self.random)
                .unwrap_or(&BinaryOperator::Plus);
                // One side may be an integer: mixed arithmetic is REAL in both dialects.
                let left_type = if self.random.gen_bool(0.3) {
                    SqlType::Integer
                } else {
                    real
                };
                let left = self.scalar(left_type, scope, next);
                let right = self.scalar(real, scope, next);
                if self.random.gen_bool(0.5) {
                    Expr::binary(operator, left, right)
                } else {
                    Expr::binary(operator, right, left)
                }
            }
            4 | 5 => {
                let dividend_type = if self.random.gen_bool(0.3) {
                    SqlType::Integer
                } else {
                    real
                };
                let dividend = self.scalar(dividend_type, scope, next);
                Expr::binary(
                    BinaryOperator::Divide,
                    dividend,
                    Expr::Literal(nonzero_real(&mut self.random)),
                )
            }
            6 => Expr::Negate(Box::new(self.scalar(real, scope, next))),
            7 => Expr::function("abs", vec![self.scalar(real, scope, next)]),
            // Only integers are cast (a real to an integer truncates in SQLite, rounds in
            // PostgreSQL).
            8 if self.random.gen_bool(0.4) => Expr::Cast {
                operand: Box::new(self.scalar(SqlType::Integer, scope, next)),
                to: real,
            },
            _ => self.leaf(real, scope),
        }
    }

    fn text_operation(&mut self, scope: &Scope<'_>, next: usize) -> Expr {
        let text = SqlType::Text;
        match self.random.gen_range(0..12) {
            0..=2 => {
                let left = self.scalar(text, scope, next);
                let right = self.scalar(text, scope, next);
                Expr::binary(BinaryOperator::Concatenate, left, right)
            }
            // Integers print the same in both dialects (reals do not: `2.0` against `2`).
            8 => Expr::Cast {
                operand: Box::new(self.scalar(SqlType::Integer, scope, next)),
                to: text,
            },
            9 => {
                let function = *["trim", "ltrim", "rtrim"]
                    .choose(&mut self.random)
                    .unwrap_or(&"trim");
                Expr::function(function, vec![self.scalar(text, scope, next)])
            }
            3 => Expr::function("upper", vec![self.scalar(text, scope, next)]),
            4 => Expr::function("lower", vec![self.scalar(text, scope, next)]),
            5 | 6 => {
                let operand = self.scalar(text, scope, next);
                let start = Expr::Literal(Literal::Integer(self.random.gen_range(1..=3)));
                let length = Expr::Literal(Literal::Integer(self.random.gen_range(0..=3)));
                Expr::function("substr", vec![operand, start, length])
            }
            7 | 10 => {
                let operand = self.scalar(text, scope, next);
                let from = Expr::Literal(nonempty_text(&mut self.random));
                let to = Expr::Literal(random_literal(&mut self.random, text));
                Expr::function("replace", vec![operand, from, to])
            }
            _ => self.leaf(text, scope),
        }
    }

    fn case_expression(
        &mut self,
        result_type: ExpressionType,
        scope: &Scope<'_>,
        next: usize,
    ) -> Expr {
        let branch_count = self.random.gen_range(1..=3);
        let simple_operand = if self.random.gen_bool(0.3) {
            let operand_type = self.pick_type(scope.referable());
            Some(operand_type)
        } else {
            None
        };
        let operand = simple_operand.map(|sql_type| Box::new(self.scalar(sql_type, scope, next)));
        let branches = (0..branch_count)
            .map(|_| {
                let condition = match simple_operand {
                    Some(sql_type) => self.scalar(sql_type, scope, next),
                    None => self.predicate(scope, next),
                };
                (condition, self.expression(result_type, scope, next))
            })
            .collect();
        let otherwise = self
            .random
            .gen_bool(0.7)
            .then(|| Box::new(self.expression(result_type, scope, next)));
        Expr::Case {
            operand,
            branches,
            otherwise,
        }
    }

    /// An aggregate call of `sql_type` whose argument uses only the local columns.
    pub fn aggregate(&mut self, sql_type: SqlType, scope: &Scope<'_>) -> Option<Expr> {
        scope.grouping?;
        let argument_scope = Scope::plain(scope.local);
        let distinct = self.random.gen_bool(0.2);
        let (function, argument) = match sql_type {
            SqlType::Integer => match self.random.gen_range(0..7) {
                0 => (AggregateFunction::Count, None),
                1 => {
                    let argument_type = self.pick_type(scope.local.iter());
                    let argument = self.scalar(argument_type, &argument_scope, 1);
                    (AggregateFunction::Count, Some(argument))
                }
                2 | 3 => (
                    AggregateFunction::Sum,
                    Some(self.scalar(SqlType::Integer, &argument_scope, 1)),
                ),
                4 => (
                    AggregateFunction::Min,
                    Some(self.scalar(SqlType::Integer, &argument_scope, 1)),
                ),
                5 => (
                    AggregateFunction::Max,
                    Some(self.scalar(SqlType::Integer, &argument_scope, 1)),
                ),
                _ => {
                    // group_concat's order is unspecified in both engines; its length is not.
                    let argument = self.scalar(SqlType::Text, &argument_scope, 1);
                    let concatenation = Expr::Aggregate {
                        function: AggregateFunction::GroupConcat,
                        distinct,
                        argument: Some(Box::new(argument)),
                        filter: None,
                    };
                    return Some(Expr::function("length", vec![concatenation]));
                }
            },
            SqlType::Real => {
                let function = *[
                    AggregateFunction::Avg,
                    AggregateFunction::Sum,
                    AggregateFunction::Total,
                    AggregateFunction::Min,
                    AggregateFunction::Max,
                ]
                .choose(&mut self.random)
                .unwrap_or(&AggregateFunction::Avg);
                let argument_type = match function {
                    AggregateFunction::Avg | AggregateFunction::Total
                        if self.random.gen_bool(0.5) =>
                    {
                        SqlType::Integer
                    }
                    _ => SqlType::Real,
                };
                (
                    function,
                    Some(self.scalar(argument_type, &argument_scope, 1)),
                )
            }
            SqlType::Text => {
                let function = if self.random.gen_bool(0.5) {
                    AggregateFunction::Min
                } else {
                    AggregateFunction::Max
                };
                (
                    function,
                    Some(self.scalar(SqlType::Text, &argument_scope, 1)),
                )
            }
        };
        // SQLite miscounts a DISTINCT aggregate with FILTER when it reads the argument from
        // an index (count(DISTINCT x) FILTER (WHERE ...) gives 0 after ANALYZE).
        let distinct = distinct && argument.is_some();
        let filter = (!distinct && self.random.gen_bool(0.15))
            .then(|| Box::new(self.predicate(&argument_scope, 1)));
        Some(Expr::Aggregate {
            function,
            distinct,
            argument: argument.map(Box::new),
            filter,
        })
    }

    /// A subquery returning at most one row and one column of `sql_type`.
    fn scalar_subquery(&mut self, sql_type: SqlType, scope: &Scope<'_>) -> Expr {
        let outer = scope.visible();
        let budget = scope.subquery_budget - 1;
        let max_tables = if self.options.bulk() { 1 } else { 2 };
        // In a large case, subqueries read small tables only (see `subquery`).
        let small_only = self.small_tables_only;
        self.small_tables_only |= self.options.large();
        let (from, local) = self.random_from_clause(&outer, budget, max_tables);
        self.small_tables_only = small_only;
        let inner = Scope {
            local: &local,
            outer: &outer,
            grouping: None,
            subquery_budget: budget,
        };
        let where_clause = self.random.gen_bool(0.7).then(|| self.predicate(&inner, 2));
        let where_clause = self.with_sargable(&local, where_clause);
        let aggregated = self.random.gen_bool(0.5);
        let item = if aggregated {
            let grouped = Scope {
                grouping: Some(&[]),
                ..inner
            };
            self.aggregate(sql_type, &grouped)
        } else {
            None
        };
        let ordered = item.is_none();
        let item = item.unwrap_or_else(|| self.scalar(sql_type, &inner, 1));
        let mut query = Query::simple(Select {
            distinct: false,
            items: vec![item],
            from: Some(from),
            where_clause,
            group_by: Vec::new(),
            having: None,
        });
        if ordered {
            query.order_by = vec![OrderKey {
                target: OrderTarget::Ordinal(1),
                descending: self.random.gen_bool(0.5),
                nulls_first: self.random.gen_bool(0.5),
            }];
            query.limit = Some(1);
        }
        Expr::Subquery(Box::new(query))
    }

    /// A truth-valued expression (which may be NULL: three-valued logic).
    pub fn predicate(&mut self, scope: &Scope<'_>, depth: usize) -> Expr {
        if depth == 0 || self.random.gen_bool(0.2) {
            return self.simple_predicate(scope);
        }
        let next = depth - 1;
        let choice = self.random.gen_range(0..100);
        match choice {
            0..=22 => {
                let operator = if choice <= 13 {
                    BinaryOperator::And
                } else {
                    BinaryOperator::Or
                };
                let left = self.predicate(scope, next);
                let right = self.predicate(scope, next);
                Expr::binary(operator, left, right)
            }
            23..=29 => Expr::Not(Box::new(self.predicate(scope, next))),
            30..=49 => self.comparison(scope, next),
            50..=55 => {
                let operand = if self.random.gen_bool(0.8) {
                    let sql_type = self.pick_type(scope.referable());
                    self.scalar(sql_type, scope, next)
                } else {
                    self.predicate(scope, next)
                };
                Expr::IsNull {
                    operand: Box::new(operand),
                    negated: self.random.gen_bool(0.5),
                }
            }
            56..=61 => {
                let sql_type = self.pick_type(scope.referable());
                let operand = self.scalar(sql_type, scope, next);
                let low = self.comparable_scalar(sql_type, scope, next);
                let high = self.comparable_scalar(sql_type, scope, next);
                Expr::Between {
                    operand: Box::new(operand),
                    low: Box::new(low),
                    high: Box::new(high),
                    negated: self.random.gen_bool(0.3),
                }
            }
            62..=68 => {
                let sql_type = self.pick_type(scope.referable());
                let operand = self.scalar(sql_type, scope, next);
                let count = self.random.gen_range(1..=4);
                let list = (0..count)
                    .map(|_| self.comparable_scalar(sql_type, scope, 0))
                    .collect();
                Expr::InList {
                    operand: Box::new(operand),
                    list,
                    negated: self.random.gen_bool(0.3),
                }
            }
            69..=75 if scope.subquery_budget > 0 => {
                let sql_type = self.pick_type(scope.referable());
                let operand = self.scalar(sql_type, scope, next);
                let item_type = if sql_type.is_numeric() && self.random.gen_bool(0.2) {
                    SqlType::Real
                } else {
                    sql_type
                };
                let query = self.subquery(&[item_type], scope);
                Expr::InSubquery {
                    operand: Box::new(operand),
                    query: Box::new(query),
                    negated: self.random.gen_bool(0.4),
                }
            }
            76..=81 if scope.subquery_budget > 0 => {
                let item_type = self.pick_type(scope.referable());
                let mut query = self.subquery(&[item_type], scope);
                // SQLite drops DISTINCT inside EXISTS even when OFFSET then counts rows.
                query.offset = None;
                Expr::Exists {
                    query: Box::new(query),
                    negated: self.random.gen_bool(0.4),
                }
            }
            82..=88 => {
                let operand = self.scalar(SqlType::Text, scope, next);
                let glob = self.random.gen_bool(0.25);
                let pattern = match (self.random.gen_bool(0.85), glob) {
                    (true, false) => Expr::Literal(random_pattern(&mut self.random)),
                    (true, true) => Expr::Literal(random_glob_pattern(&mut self.random)),
                    (false, _) => self.scalar(SqlType::Text, scope, 0),
                };
                Expr::Like {
                    operand: Box::new(operand),
                    pattern: Box::new(pattern),
                    negated: self.random.gen_bool(0.3),
                    glob,
                }
            }
            89..=93 => {
                let sql_type = self.pick_type(scope.referable());
                let left = self.scalar(sql_type, scope, next);
                let right = self.comparable_scalar(sql_type, scope, next);
                let operator = if self.random.gen_bool(0.5) {
                    BinaryOperator::IsDistinctFrom
                } else {
                    BinaryOperator::IsNotDistinctFrom
                };
                Expr::binary(operator, left, right)
            }
            94..=96 => self.case_expression(ExpressionType::Boolean, scope, next),
            97 | 98 => Expr::IsTruth {
                operand: Box::new(self.predicate(scope, next)),
                truth: self.random.gen_bool(0.5),
                negated: self.random.gen_bool(0.5),
            },
            _ => self.simple_predicate(scope),
        }
    }

    /// A scalar of a type comparable with `sql_type` (integers and reals mix).
    fn comparable_scalar(&mut self, sql_type: SqlType, scope: &Scope<'_>, depth: usize) -> Expr {
        let other = match sql_type {
            SqlType::Text => SqlType::Text,
            _ if self.random.gen_bool(0.2) => {
                if sql_type == SqlType::Integer {
                    SqlType::Real
                } else {
                    SqlType::Integer
                }
            }
            _ => sql_type,
        };
        self.scalar(other, scope, depth)
    }

    fn comparison(&mut self, scope: &Scope<'_>, depth: usize) -> Expr {
        let sql_type = self.pick_type(scope.referable());
        let left = self.scalar(sql_type, scope, depth);
        let right = self.comparable_scalar(sql_type, scope, depth);
        let operator = *COMPARISONS
            .choose(&mut self.random)
            .unwrap_or(&BinaryOperator::Equal);
        Expr::binary(operator, left, right)
    }

    /// A predicate on one column: a comparison with a literal or column, IS NULL, LIKE, or
    /// a 0/1 flag column used as a truth value.
    fn simple_predicate(&mut self, scope: &Scope<'_>) -> Expr {
        let flags: Vec<Expr> = scope
            .referable()
            .filter(|column| column.flag)
            .map(ScopeColumn::expression)
            .collect();
        let choice = self.random.gen_range(0..100);
        if choice < 8 && !flags.is_empty() {
            let flag = flags[self.random.gen_range(0..flags.len())].clone();
            return if self.random.gen_bool(0.3) {
                Expr::Not(Box::new(flag))
            } else {
                flag
            };
        }
        if choice < 10 {
            return Expr::Literal(Literal::Boolean(self.random.gen_bool(0.5)));
        }
        let sql_type = self.pick_type(scope.referable());
        if choice < 22 {
            return Expr::IsNull {
                operand: Box::new(self.leaf(sql_type, scope)),
                negated: self.random.gen_bool(0.5),
            };
        }
        if choice < 30 {
            let glob = self.random.gen_bool(0.2);
            let pattern = if glob {
                random_glob_pattern(&mut self.random)
            } else {
                random_pattern(&mut self.random)
            };
            return Expr::Like {
                operand: Box::new(self.leaf(SqlType::Text, scope)),
                pattern: Box::new(Expr::Literal(pattern)),
                negated: self.random.gen_bool(0.2),
                glob,
            };
        }
        self.comparison(scope, 0)
    }
}
