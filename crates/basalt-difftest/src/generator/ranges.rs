//! Range predicates over every kind of key of a large table (`--large`): the row id, the
//! primary key, UNIQUE constraints and each index — single-column or composite, ascending
//! or descending, over integers, reals, short and long texts — with constants anywhere in,
//! at the edges of or outside the values the key holds: one-sided comparisons (either way
//! round), BETWEEN (sometimes with its bounds crossed), two-sided ranges, IN lists spread
//! over the table, IS [NOT] NULL and prefix LIKE; on a composite key, equalities (or an IN
//! list) on a prefix and a range on the next column.

use rand::Rng;
use rand::seq::SliceRandom;

use super::Generator;
use crate::ast::{BinaryOperator, Expr, Literal};
use crate::large_schema::{long_text_bound, wide_constant};
use crate::schema::{Column, Domain, SqlType, Table};
use crate::values::random_value;

/// The order of two constants of comparable types (numbers by value, text by bytes).
fn constant_order(left: &Expr, right: &Expr) -> std::cmp::Ordering {
    let number = |expression: &Expr| match expression {
        Expr::Literal(Literal::Integer(value)) => Some(*value as f64),
        Expr::Literal(Literal::Real(value)) => Some(*value),
        _ => None,
    };
    match (left, right) {
        (Expr::Literal(Literal::Text(left)), Expr::Literal(Literal::Text(right))) => {
            left.as_bytes().cmp(right.as_bytes())
        }
        _ => number(left)
            .partial_cmp(&number(right))
            .unwrap_or(std::cmp::Ordering::Equal),
    }
}

fn and(left: Expr, right: Expr) -> Expr {
    Expr::binary(BinaryOperator::And, left, right)
}

impl Generator {
    /// A constant to compare with a column of `sql_type` drawn from `domain`: for wide
    /// integers anywhere in or near their bounds (sometimes a REAL between two integers),
    /// for long texts a prefix with some digits, for the small domains a value of the
    /// wider domain or a little beyond.
    pub(super) fn range_constant(&mut self, sql_type: SqlType, domain: Domain, flag: bool) -> Expr {
        let literal = match domain {
            Domain::Wide { low, high } => {
                let value = wide_constant(&mut self.random, low, high);
                if self.random.gen_bool(0.15) {
                    Literal::Real(value as f64 + 0.5)
                } else {
                    Literal::Integer(value)
                }
            }
            Domain::LongText => Literal::Text(long_text_bound(&mut self.random)),
            Domain::Small => match sql_type {
                SqlType::Integer if flag => Literal::Integer(self.random.gen_range(0..=1)),
                SqlType::Integer if self.random.gen_bool(0.15) => {
                    Literal::Real(f64::from(self.random.gen_range(-12..=42)) + 0.5)
                }
                SqlType::Integer => Literal::Integer(self.random.gen_range(-12..=42)),
                SqlType::Real if self.random.gen_bool(0.15) => {
                    Literal::Integer(self.random.gen_range(-11..=21))
                }
                SqlType::Real => Literal::Real(f64::from(self.random.gen_range(-44..=84)) / 4.0),
                SqlType::Text => {
                    let wide = self.random.gen_bool(0.5);
                    random_value(&mut self.random, SqlType::Text, wide)
                }
            },
        };
        Expr::Literal(literal)
    }

    fn column_constant(&mut self, column: &Column) -> Expr {
        self.range_constant(column.sql_type, column.domain, column.flag)
    }

    /// A range predicate on `qualifier.column`.
    pub(super) fn column_range(&mut self, qualifier: &str, column: &Column) -> Expr {
        let reference = Expr::column(qualifier, &column.name);
        let choice = self.random.gen_range(0..100);
        match choice {
            0..=29 => {
                let operator = *[
                    BinaryOperator::Less,
                    BinaryOperator::LessOrEqual,
                    BinaryOperator::Greater,
                    BinaryOperator::GreaterOrEqual,
                ]
                .choose(&mut self.random)
                .unwrap_or(&BinaryOperator::Less);
                let constant = self.column_constant(column);
                if self.random.gen_bool(0.2) {
                    Expr::binary(operator, constant, reference)
                } else {
                    Expr::binary(operator, reference, constant)
                }
            }
            30..=49 => {
                let mut low = self.column_constant(column);
                let mut high = self.column_constant(column);
                // Mostly in order; crossed bounds select nothing.
                if constant_order(&low, &high).is_gt() && self.random.gen_bool(0.9) {
                    std::mem::swap(&mut low, &mut high);
                }
                Expr::Between {
                    operand: Box::new(reference),
                    low: Box::new(low),
                    high: Box::new(high),
                    negated: self.random.gen_bool(0.08),
                }
            }
            50..=64 => {
                let mut low = self.column_constant(column);
                let mut high = self.column_constant(column);
                if constant_order(&low, &high).is_gt() {
                    std::mem::swap(&mut low, &mut high);
                }
                let above = if self.random.gen_bool(0.5) {
                    BinaryOperator::Greater
                } else {
                    BinaryOperator::GreaterOrEqual
                };
                let below = if self.random.gen_bool(0.5) {
                    BinaryOperator::Less
                } else {
                    BinaryOperator::LessOrEqual
                };
                let lower = Expr::binary(above, reference.clone(), low);
                let upper = Expr::binary(below, reference, high);
                if self.random.gen_bool(0.5) {
                    and(lower, upper)
                } else {
                    and(upper, lower)
                }
            }
            65..=76 => {
                let count = self.random.gen_range(2..=20);
                let list = (0..count).map(|_| self.column_constant(column)).collect();
                Expr::InList {
                    operand: Box::new(reference),
                    list,
                    negated: self.random.gen_bool(0.05),
                }
            }
            77..=84 => {
                let constant = self.column_constant(column);
                Expr::binary(BinaryOperator::Equal, reference, constant)
            }
            85..=91 => Expr::IsNull {
                operand: Box::new(reference),
                negated: self.random.gen_bool(0.6),
            },
            _ if column.sql_type == SqlType::Text => {
                let prefix = match column.domain {
                    Domain::LongText => long_text_bound(&mut self.random),
                    _ => ["a", "b", "A", "ab", "x", "1", ""]
                        .choose(&mut self.random)
                        .copied()
                        .unwrap_or("a")
                        .to_owned(),
                };
                Expr::Like {
                    operand: Box::new(reference),
                    pattern: Box::new(Expr::Literal(Literal::Text(format!("{prefix}%")))),
                    negated: false,
                    glob: false,
                }
            }
            _ => {
                let constant = self.column_constant(column);
                Expr::binary(BinaryOperator::GreaterOrEqual, reference, constant)
            }
        }
    }

    /// The keys of `table` a range can use: the row id, primary key, UNIQUE constraints
    /// and indexes, as column positions in key order.
    pub(super) fn table_keys(&self, table: &Table) -> Vec<Vec<usize>> {
        let mut keys = table.unique_keys(&self.schema.indexes);
        keys.extend(
            self.schema
                .indexes
                .iter()
                .filter(|index| index.table == table.name && !index.unique)
                .map(|index| {
                    index
                        .columns
                        .iter()
                        .map(|&(position, _)| position)
                        .collect()
                }),
        );
        keys.retain(|key: &Vec<usize>| !key.is_empty());
        keys
    }

    /// A range over one key of `table` (the row id more often than the others, sometimes
    /// any column), and the key's columns the predicate constrains.
    pub(super) fn key_range(&mut self, table: &Table, qualifier: &str) -> (Expr, Vec<usize>) {
        let keys = self.table_keys(table);
        let key = match (table.row_id(), self.random.gen_range(0..100)) {
            (Some(row_id), 0..=34) => vec![row_id],
            (_, 35..=44) => vec![self.random.gen_range(0..table.columns.len())],
            _ => keys
                .choose(&mut self.random)
                .cloned()
                .unwrap_or_else(|| vec![0]),
        };
        let used = if key.len() > 1 && self.random.gen_bool(0.4) {
            self.random.gen_range(2..=key.len())
        } else {
            1
        };
        let mut predicate = None;
        for (place, &position) in key[..used].iter().enumerate() {
            let column = table.columns[position].clone();
            let part = if place + 1 < used {
                let reference = Expr::column(qualifier, &column.name);
                if self.random.gen_bool(0.75) {
                    let constant = self.column_constant(&column);
                    Expr::binary(BinaryOperator::Equal, reference, constant)
                } else {
                    let count = self.random.gen_range(2..=5);
                    let list = (0..count).map(|_| self.column_constant(&column)).collect();
                    Expr::InList {
                        operand: Box::new(reference),
                        list,
                        negated: false,
                    }
                }
            } else {
                self.column_range(qualifier, &column)
            };
            predicate = Some(match predicate {
                Some(earlier) => and(earlier, part),
                None => part,
            });
        }
        let predicate = predicate.unwrap_or(Expr::Literal(Literal::Boolean(true)));
        (predicate, key[..used].to_vec())
    }
}
