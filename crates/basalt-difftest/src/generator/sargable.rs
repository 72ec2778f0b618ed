//! Predicates an index can answer: a comparison, range, IN list, IS NULL or prefix LIKE
//! on a column the row id or an index can seek on, with constants of the column's type
//! (sometimes of the other numeric type, so seeks must convert their bounds). Random
//! predicates rarely take this shape, so without these the optimizer's index seeks,
//! index joins and the index-free comparison would seldom be exercised.

use rand::Rng;
use rand::seq::SliceRandom;

use super::{Generator, ScopeColumn};
use crate::ast::{BinaryOperator, Expr, Literal};
use crate::schema::{Domain, SqlType};
use crate::values::random_value;

impl Generator {
    /// A constant comparable with `column`, near its values.
    fn seek_constant(&mut self, column: &ScopeColumn) -> Expr {
        if column.domain != Domain::Small {
            return self.range_constant(column.sql_type, column.domain, column.flag);
        }
        let sql_type = match column.sql_type {
            SqlType::Integer if self.random.gen_bool(0.2) => SqlType::Real,
            SqlType::Real if self.random.gen_bool(0.2) => SqlType::Integer,
            other => other,
        };
        let wide = self.random.gen_bool(0.5);
        let literal = match (column.flag, sql_type) {
            (true, SqlType::Integer) => Literal::Integer(self.random.gen_range(0..=1)),
            _ => random_value(&mut self.random, sql_type, wide),
        };
        // Halves between integers test bound conversion in integer seeks.
        match literal {
            Literal::Real(value) if column.sql_type == SqlType::Integer => {
                Expr::Literal(Literal::Real(value.trunc() + 0.5))
            }
            other => Expr::Literal(other),
        }
    }

    /// A predicate on a seekable column of `columns`, if there is one.
    pub(super) fn sargable_predicate(&mut self, columns: &[ScopeColumn]) -> Option<Expr> {
        let seekable: Vec<&ScopeColumn> = columns.iter().filter(|column| column.seekable).collect();
        let column = (*seekable.choose(&mut self.random)?).clone();
        let reference = column.expression();
        let predicate = match self.random.gen_range(0..100) {
            0..=29 => {
                let constant = self.seek_constant(&column);
                Expr::binary(BinaryOperator::Equal, reference, constant)
            }
            30..=54 => {
                let operator = *[
                    BinaryOperator::Less,
                    BinaryOperator::LessOrEqual,
                    BinaryOperator::Greater,
                    BinaryOperator::GreaterOrEqual,
                ]
                .choose(&mut self.random)
                .unwrap_or(&BinaryOperator::Less);
                let constant = self.seek_constant(&column);
                if self.random.gen_bool(0.2) {
                    Expr::binary(operator, constant, reference)
                } else {
                    Expr::binary(operator, reference, constant)
                }
            }
            55..=69 => {
                let low = self.seek_constant(&column);
                let high = self.seek_constant(&column);
                Expr::Between {
                    operand: Box::new(reference),
                    low: Box::new(low),
                    high: Box::new(high),
                    negated: false,
                }
            }
            70..=84 => {
                let count = self.random.gen_range(1..=4);
                let list = (0..count).map(|_| self.seek_constant(&column)).collect();
                Expr::InList {
                    operand: Box::new(reference),
                    list,
                    negated: false,
                }
            }
            85..=91 => Expr::IsNull {
                operand: Box::new(reference),
                negated: self.random.gen_bool(0.3),
            },
            _ if column.sql_type == SqlType::Text => {
                let prefix = ["a", "b", "A", "ab", "x", "1", ""]
                    .choose(&mut self.random)
                    .copied()
                    .unwrap_or("a");
                let tail = ["%", "_%", "%b", "_"].choose(&mut self.random).copied();
                Expr::Like {
                    operand: Box::new(reference),
                    pattern: Box::new(Expr::Literal(Literal::Text(format!(
                        "{prefix}{}",
                        tail.unwrap_or("%")
                    )))),
                    negated: false,
                    glob: false,
                }
            }
            _ => {
                let constant = self.seek_constant(&column);
                Expr::binary(BinaryOperator::GreaterOrEqual, reference, constant)
            }
        };
        Some(predicate)
    }

    /// `predicate`, or a sargable predicate on `columns` AND-ed to it (or alone) about
    /// half the time.
    pub(super) fn with_sargable(
        &mut self,
        columns: &[ScopeColumn],
        predicate: Option<Expr>,
    ) -> Option<Expr> {
        if !self.random.gen_bool(0.5) {
            return predicate;
        }
        let Some(seek) = self.sargable_predicate(columns) else {
            return predicate;
        };
        Some(match predicate {
            Some(other) if self.random.gen_bool(0.6) => {
                if self.random.gen_bool(0.5) {
                    Expr::binary(BinaryOperator::And, seek, other)
                } else {
                    Expr::binary(BinaryOperator::And, other, seek)
                }
            }
            _ => seek,
        })
    }
}
