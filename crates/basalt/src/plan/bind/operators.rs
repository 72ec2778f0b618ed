//! Operators in expressions: binary operators (comparisons, arithmetic, string and pattern
//! operators, the jsonb, array, vector and full-text ones, `OPERATOR(schema.op)`) and unary
//! ones, bound to typed [`Expr`] nodes with PostgreSQL's operand rules: an untyped operand
//! takes the other's type, numeric operands widen to their common type, and a pair no
//! operator takes is 42883 naming the operator and both types, as PostgreSQL says it.
//! Split from `expr.rs`, which binds the operands and the other expression forms.

use sqlparser::ast;

use crate::plan::expr::{BinaryOp, Expr, UnaryOp};
use crate::types::functions::vector::operator_function;
use crate::types::vector::kernels::Metric;
use crate::types::{DataType, Value};

use super::Binder;
use super::error::BindError;
use super::expr::{binary, coerce, is_untyped, number_literal};
use super::scope::Scope;
use super::types::common_type;

impl Binder<'_> {
    pub(super) fn bind_binary(
        &mut self,
        left: &ast::Expr,
        op: &ast::BinaryOperator,
        right: &ast::Expr,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        use ast::BinaryOperator as B;
        if let Some(json_operator) = super::json::JsonOperator::of(op) {
            return self.bind_json_operator(left, json_operator, right, scope);
        }
        // pgvector's distance operators are calls of its distance functions.
        if let B::Custom(spelling) = op
            && let Some(metric) = Metric::from_operator(spelling)
        {
            let bound = vec![self.bind_expr(left, scope)?, self.bind_expr(right, scope)?];
            return self.call_registered(operator_function(metric), bound, &[left, right]);
        }
        let op = match op {
            B::Plus => BinaryOp::Add,
            B::Minus => BinaryOp::Subtract,
            B::Multiply => BinaryOp::Multiply,
            B::Divide => BinaryOp::Divide,
            B::Modulo => BinaryOp::Remainder,
            B::StringConcat => BinaryOp::Concat,
            B::Eq => BinaryOp::Equal,
            B::NotEq => BinaryOp::NotEqual,
            B::Lt => BinaryOp::Less,
            B::LtEq => BinaryOp::LessOrEqual,
            B::Gt => BinaryOp::Greater,
            B::GtEq => BinaryOp::GreaterOrEqual,
            B::And => BinaryOp::And,
            B::Or => BinaryOp::Or,
            B::BitwiseAnd => BinaryOp::BitAnd,
            B::BitwiseOr => BinaryOp::BitOr,
            B::BitwiseXor | B::PGBitwiseXor => BinaryOp::BitXor,
            B::PGBitwiseShiftLeft => BinaryOp::ShiftLeft,
            B::PGBitwiseShiftRight => BinaryOp::ShiftRight,
            B::PGOverlap => {
                let bound = vec![self.bind_expr(left, scope)?, self.bind_expr(right, scope)?];
                return self.call_array_function("arrayoverlap", bound, &[left, right]);
            }
            B::Glob => return self.bind_like(left, right, None, false, false, true, scope),
            B::PGLikeMatch | B::PGNotLikeMatch | B::PGILikeMatch | B::PGNotILikeMatch => {
                let negated = matches!(op, B::PGNotLikeMatch | B::PGNotILikeMatch);
                let insensitive = matches!(op, B::PGILikeMatch | B::PGNotILikeMatch);
                return self.bind_like(left, right, None, negated, insensitive, false, scope);
            }
            B::PGRegexMatch | B::PGRegexIMatch | B::PGRegexNotMatch | B::PGRegexNotIMatch => {
                let negated = matches!(op, B::PGRegexNotMatch | B::PGRegexNotIMatch);
                let insensitive = matches!(op, B::PGRegexIMatch | B::PGRegexNotIMatch);
                return self.bind_regex_operator(left, right, negated, insensitive, scope);
            }
            // `OPERATOR(pg_catalog.~)`, as psql writes its operators: the operator named.
            B::PGCustomBinaryOperator(parts) => {
                let named = match parts.as_slice() {
                    [op] => Some(op.as_str()),
                    [schema, op] if schema.eq_ignore_ascii_case("pg_catalog") => Some(op.as_str()),
                    _ => None,
                };
                let Some(op) = named.and_then(named_operator) else {
                    return Err(BindError::undefined_function(format!(
                        "operator does not exist: {}",
                        parts.join(".")
                    )));
                };
                return self.bind_binary(left, &op, right, scope);
            }
            other => return Err(BindError::unsupported(format!("operator {other}"))),
        };
        match op {
            BinaryOp::And | BinaryOp::Or => {
                let context = if op == BinaryOp::And { "AND" } else { "OR" };
                let left = self.bind_boolean(left, scope, context)?;
                let right = self.bind_boolean(right, scope, context)?;
                Ok(binary(op, left, right, DataType::Boolean))
            }
            op if op.is_comparison() => {
                let symbol = comparison_symbol(op);
                let (left, right) = self.bind_compared(left, right, scope, symbol)?;
                Ok(binary(op, left, right, DataType::Boolean))
            }
            BinaryOp::Concat => {
                let left_bound = self.bind_expr(left, scope)?;
                let right_bound = self.bind_expr(right, scope)?;
                let json =
                    |expr: &Expr| matches!(expr.data_type(), DataType::Json | DataType::Jsonb);
                if (json(&left_bound) || json(&right_bound))
                    && let Some(concat) =
                        self.bind_jsonb_concat((&left_bound, left), (&right_bound, right))?
                {
                    return Ok(concat);
                }
                if left_bound.data_type().is_array() || right_bound.data_type().is_array() {
                    return self.bind_array_concat((left_bound, left), (right_bound, right));
                }
                if matches!(left_bound.data_type(), DataType::Vector(_))
                    || matches!(right_bound.data_type(), DataType::Vector(_))
                {
                    return self.call_registered(
                        "vector_concat",
                        vec![left_bound, right_bound],
                        &[left, right],
                    );
                }
                let mut operands = Vec::with_capacity(2);
                for (bound, operand) in [(left_bound, left), (right_bound, right)] {
                    operands.push(match bound.data_type() {
                        DataType::Blob => bound,
                        _ => self.resolve_untyped(bound, operand, DataType::Text(None))?,
                    });
                }
                let right = operands.pop();
                let left = operands.pop();
                match (left, right) {
                    (Some(left), Some(right)) => {
                        let data_type = if left.data_type() == DataType::Blob
                            && right.data_type() == DataType::Blob
                        {
                            DataType::Blob
                        } else {
                            DataType::Text(None)
                        };
                        Ok(binary(
                            op,
                            coerce(left, data_type),
                            coerce(right, data_type),
                            data_type,
                        ))
                    }
                    _ => Err(BindError::syntax("missing operand of ||")),
                }
            }
            _ => self.bind_arithmetic(op, left, right, scope),
        }
    }

    pub(super) fn bind_arithmetic(
        &mut self,
        op: BinaryOp,
        left: &ast::Expr,
        right: &ast::Expr,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let left_bound = self.bind_expr(left, scope)?;
        let right_bound = self.bind_expr(right, scope)?;
        let (left_type, right_type) = (left_bound.data_type(), right_bound.data_type());
        if op == BinaryOp::Subtract && left_type == DataType::Jsonb {
            return self.bind_jsonb_minus(left_bound, right_bound, right);
        }
        // Vectors add, subtract and multiply element by element (pgvector's vector_add...).
        if matches!(left_type, DataType::Vector(_)) || matches!(right_type, DataType::Vector(_)) {
            let function = match op {
                BinaryOp::Add => Some("vector_add"),
                BinaryOp::Subtract => Some("vector_sub"),
                BinaryOp::Multiply => Some("vector_mul"),
                _ => None,
            };
            if let Some(function) = function {
                return self.call_registered(
                    function,
                    vec![left_bound, right_bound],
                    &[left, right],
                );
            }
        }
        let bitwise = matches!(
            op,
            BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::ShiftLeft
                | BinaryOp::ShiftRight
        );
        let undefined = || {
            BindError::undefined_function(format!(
                "operator does not exist: {left_type} {} {right_type}",
                arithmetic_symbol(op)
            ))
        };
        // Timestamps, dates and intervals with each other and with numbers (interval × n).
        if let Some((left_target, right_target, result)) =
            super::temporal::temporal_operands(op, (&left_bound, left), (&right_bound, right))
        {
            let left_bound = self.resolve_untyped(left_bound, left, left_target)?;
            let right_bound = self.resolve_untyped(right_bound, right, right_target)?;
            return Ok(binary(op, left_bound, right_bound, result));
        }
        // Dates: date ± integer → date, date - date → integer.
        if left_type == DataType::Date && matches!(op, BinaryOp::Add | BinaryOp::Subtract) {
            if right_type == DataType::Date && op == BinaryOp::Subtract {
                return Ok(binary(op, left_bound, right_bound, DataType::Integer));
            }
            let right_bound = self.type_if_untyped(right_bound, right, DataType::Integer)?;
            if right_bound.data_type() == DataType::Integer {
                return Ok(binary(op, left_bound, right_bound, DataType::Date));
            }
            return Err(undefined());
        }
        if right_type == DataType::Date && op == BinaryOp::Add {
            let left_bound = self.type_if_untyped(left_bound, left, DataType::Integer)?;
            if left_bound.data_type() == DataType::Integer {
                return Ok(binary(op, left_bound, right_bound, DataType::Date));
            }
            return Err(undefined());
        }
        // Numbers: untyped operands take the other side's numeric type (integer when both
        // are untyped); booleans count as integers, as in SQLite.
        let numeric_type = |t: DataType, untyped: bool| match t {
            _ if untyped => Some(DataType::Null),
            DataType::Integer | DataType::Boolean | DataType::Null => Some(DataType::Integer),
            DataType::Real if !bitwise => Some(DataType::Real),
            DataType::Numeric(_) if !bitwise => Some(DataType::Numeric(None)),
            _ => None,
        };
        let left_numeric = numeric_type(left_type, is_untyped(left)).ok_or_else(undefined)?;
        let right_numeric = numeric_type(right_type, is_untyped(right)).ok_or_else(undefined)?;
        let result = match (left_numeric, right_numeric) {
            (DataType::Null, DataType::Null) => DataType::Integer,
            (DataType::Null, other) | (other, DataType::Null) => other,
            (a, b) => common_type(a, b).ok_or_else(undefined)?,
        };
        let left_bound = self.resolve_untyped(left_bound, left, result)?;
        let right_bound = self.resolve_untyped(right_bound, right, result)?;
        Ok(binary(op, left_bound, right_bound, result))
    }

    pub(super) fn bind_unary(
        &mut self,
        op: ast::UnaryOperator,
        operand: &ast::Expr,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        match op {
            ast::UnaryOperator::Not => {
                let operand = self.bind_boolean(operand, scope, "NOT")?;
                Ok(Expr::Unary {
                    op: UnaryOp::Not,
                    operand: Box::new(operand),
                    data_type: DataType::Boolean,
                })
            }
            ast::UnaryOperator::Minus
            | ast::UnaryOperator::Plus
            | ast::UnaryOperator::BitwiseNot => {
                // `-9223372036854775808` only fits as a negated literal.
                if op == ast::UnaryOperator::Minus
                    && let ast::Expr::Value(value) = operand
                    && let ast::Value::Number(text, _) = &value.value
                {
                    return Ok(Expr::literal(number_literal(&format!("-{text}"))?));
                }
                let bound = self.bind_expr(operand, scope)?;
                // SQLite leniency: unary plus is a no-op on any type (`+ text_col`).
                if op == ast::UnaryOperator::Plus
                    && !is_untyped(operand)
                    && !bound.data_type().is_numeric()
                {
                    return Ok(bound);
                }
                let bound = self.type_if_untyped(bound, operand, DataType::Integer)?;
                let data_type = match bound.data_type() {
                    DataType::Integer | DataType::Null | DataType::Boolean => DataType::Integer,
                    DataType::Real if op != ast::UnaryOperator::BitwiseNot => DataType::Real,
                    DataType::Numeric(_) if op != ast::UnaryOperator::BitwiseNot => {
                        DataType::Numeric(None)
                    }
                    DataType::Interval if op == ast::UnaryOperator::Minus => DataType::Interval,
                    other => {
                        return Err(BindError::undefined_function(format!(
                            "operator does not exist: {op} {other}"
                        )));
                    }
                };
                let op = match op {
                    ast::UnaryOperator::Minus => UnaryOp::Negate,
                    ast::UnaryOperator::Plus => UnaryOp::Plus,
                    _ => UnaryOp::BitNot,
                };
                // Fold negation of constants so `-1.5` stays a literal (index bounds, LIMIT).
                if op == UnaryOp::Negate
                    && let Expr::Literal { value, .. } = &bound
                {
                    match value {
                        Value::Real(r) => return Ok(Expr::literal(Value::Real(-r))),
                        Value::Numeric(n) => return Ok(Expr::literal(Value::Numeric(n.negate()))),
                        Value::Integer(i) if *i != i64::MIN => {
                            return Ok(Expr::literal(Value::Integer(-i)));
                        }
                        _ => {}
                    }
                }
                Ok(Expr::Unary {
                    op,
                    operand: Box::new(coerce(bound, data_type)),
                    data_type,
                })
            }
            other => Err(BindError::unsupported(format!("operator {other}"))),
        }
    }
}

/// The binary operator spelled `symbol`, for `OPERATOR(symbol)`.
fn named_operator(symbol: &str) -> Option<ast::BinaryOperator> {
    use ast::BinaryOperator as B;
    Some(match symbol {
        "+" => B::Plus,
        "-" => B::Minus,
        "*" => B::Multiply,
        "/" => B::Divide,
        "%" => B::Modulo,
        "||" => B::StringConcat,
        "=" => B::Eq,
        "<>" | "!=" => B::NotEq,
        "<" => B::Lt,
        "<=" => B::LtEq,
        ">" => B::Gt,
        ">=" => B::GtEq,
        "~" => B::PGRegexMatch,
        "~*" => B::PGRegexIMatch,
        "!~" => B::PGRegexNotMatch,
        "!~*" => B::PGRegexNotIMatch,
        "~~" => B::PGLikeMatch,
        "~~*" => B::PGILikeMatch,
        "!~~" => B::PGNotLikeMatch,
        "!~~*" => B::PGNotILikeMatch,
        "&&" => B::PGOverlap,
        "@>" => B::AtArrow,
        "<@" => B::ArrowAt,
        _ => return None,
    })
}

fn comparison_symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Equal => "=",
        BinaryOp::NotEqual => "<>",
        BinaryOp::Less => "<",
        BinaryOp::LessOrEqual => "<=",
        BinaryOp::Greater => ">",
        _ => ">=",
    }
}

fn arithmetic_symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Subtract => "-",
        BinaryOp::Multiply => "*",
        BinaryOp::Divide => "/",
        BinaryOp::Remainder => "%",
        BinaryOp::BitAnd => "&",
        BinaryOp::BitOr => "|",
        BinaryOp::BitXor => "#",
        BinaryOp::ShiftLeft => "<<",
        BinaryOp::ShiftRight => ">>",
        _ => "?",
    }
}
