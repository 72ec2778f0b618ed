//! Predicates and special forms: IN lists and subqueries, BETWEEN, LIKE / ILIKE / GLOB,
//! CASE, and subquery binding — the expression forms that unify several operands to one type.

use sqlparser::ast;

use crate::plan::expr::{BinaryOp, Expr, Quantifier};
use crate::types::DataType;

use super::Binder;
use super::error::BindError;
use super::expr::{binary, coerce, is_untyped};
use super::scope::Scope;
use super::types::common_type;

impl Binder<'_> {
    pub(super) fn bind_in_list(
        &mut self,
        operand: &ast::Expr,
        list: &[ast::Expr],
        negated: bool,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let operand_bound = self.bind_expr(operand, scope)?;
        let mut items = vec![(operand_bound, operand)];
        for item in list {
            items.push((self.bind_expr(item, scope)?, item));
        }
        let (mut bound, _) = self.unify_list(items, "IN")?;
        let operand = bound.remove(0);
        Ok(Expr::InList {
            operand: Box::new(operand),
            list: bound,
            negated,
        })
    }

    pub(super) fn bind_in_subquery(
        &mut self,
        operand: &ast::Expr,
        query: &ast::Query,
        negated: bool,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        self.bind_subquery_comparison(operand, query, negated, None, scope)
    }

    /// `operand op ANY | SOME | ALL (right)`: only a subquery on the right (arrays are not
    /// a Basalt type yet), `op` one of `= <> < <= > >=`.
    pub(super) fn bind_quantified(
        &mut self,
        operand: &ast::Expr,
        op: &ast::BinaryOperator,
        right: &ast::Expr,
        all: bool,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let word = if all { "ALL" } else { "ANY" };
        let op = match op {
            ast::BinaryOperator::Eq => BinaryOp::Equal,
            ast::BinaryOperator::NotEq => BinaryOp::NotEqual,
            ast::BinaryOperator::Lt => BinaryOp::Less,
            ast::BinaryOperator::LtEq => BinaryOp::LessOrEqual,
            ast::BinaryOperator::Gt => BinaryOp::Greater,
            ast::BinaryOperator::GtEq => BinaryOp::GreaterOrEqual,
            other => {
                return Err(BindError::unsupported(format!("operator {other} {word}")));
            }
        };
        let mut right = right;
        while let ast::Expr::Nested(inner) = right {
            right = inner;
        }
        let ast::Expr::Subquery(query) = right else {
            return self.bind_quantified_array(operand, op, right, all, scope);
        };
        self.bind_subquery_comparison(operand, query, false, Some(Quantifier { op, all }), scope)
    }

    fn bind_subquery_comparison(
        &mut self,
        operand: &ast::Expr,
        query: &ast::Query,
        negated: bool,
        quantifier: Option<Quantifier>,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let operand_bound = self.bind_expr(operand, scope)?;
        let plan = self.bind_subquery(query, scope)?;
        let column_type = match plan.schema.as_slice() {
            [column] => column.data_type,
            _ => return Err(BindError::syntax("subquery has too many columns")),
        };
        let target = if is_untyped(operand) {
            column_type
        } else {
            common_type(operand_bound.data_type(), column_type).ok_or_else(|| {
                BindError::undefined_function(format!(
                    "operator does not exist: {} {} {column_type}",
                    operand_bound.data_type(),
                    quantifier.map_or("=", |q| super::super::expr::comparison_symbol(q.op)),
                ))
            })?
        };
        let operand_bound = self.resolve_untyped(operand_bound, operand, target)?;
        Ok(Expr::InSubquery {
            operand: Box::new(operand_bound),
            plan: Box::new(super::query::cast_columns(plan, &[target])),
            negated,
            quantifier,
        })
    }

    /// `x BETWEEN a AND b` is `x >= a AND x <= b`; `NOT BETWEEN` is `x < a OR x > b`.
    pub(super) fn bind_between(
        &mut self,
        operand: &ast::Expr,
        negated: bool,
        low: &ast::Expr,
        high: &ast::Expr,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let operand_bound = self.bind_expr(operand, scope)?;
        let low_bound = self.bind_expr(low, scope)?;
        let high_bound = self.bind_expr(high, scope)?;
        let (mut bound, _) = self.unify_list(
            vec![
                (operand_bound, operand),
                (low_bound, low),
                (high_bound, high),
            ],
            "BETWEEN",
        )?;
        let (Some(high), Some(low), Some(operand)) = (bound.pop(), bound.pop(), bound.pop()) else {
            return Err(BindError::syntax("invalid BETWEEN"));
        };
        let (lower_op, upper_op, join) = if negated {
            (BinaryOp::Less, BinaryOp::Greater, BinaryOp::Or)
        } else {
            (
                BinaryOp::GreaterOrEqual,
                BinaryOp::LessOrEqual,
                BinaryOp::And,
            )
        };
        Ok(binary(
            join,
            binary(lower_op, operand.clone(), low, DataType::Boolean),
            binary(upper_op, operand, high, DataType::Boolean),
            DataType::Boolean,
        ))
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "the parts of a quantified comparison, each needed"
    )]
    pub(super) fn bind_like(
        &mut self,
        operand: &ast::Expr,
        pattern: &ast::Expr,
        escape: Option<&ast::Expr>,
        negated: bool,
        case_insensitive: bool,
        glob: bool,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let text_operand = |binder: &mut Self, expr: &ast::Expr| -> Result<Expr, BindError> {
            let bound = binder.bind_expr(expr, scope)?;
            let bound = binder.resolve_untyped(bound, expr, DataType::Text(None))?;
            match bound.data_type() {
                DataType::Text(_) | DataType::Null => Ok(coerce(bound, DataType::Text(None))),
                // SQLite compares numbers with LIKE as their text.
                DataType::Integer | DataType::Real | DataType::Numeric(_) => {
                    Ok(coerce(bound, DataType::Text(None)))
                }
                other => Err(BindError::undefined_function(format!(
                    "operator does not exist: {other} ~~ text"
                ))),
            }
        };
        let operand = text_operand(self, operand)?;
        let pattern = text_operand(self, pattern)?;
        let escape = match escape {
            Some(escape) => Some(Box::new(text_operand(self, escape)?)),
            None => None,
        };
        Ok(Expr::Like {
            operand: Box::new(operand),
            pattern: Box::new(pattern),
            escape,
            negated,
            case_insensitive,
            glob,
        })
    }

    pub(super) fn bind_case(
        &mut self,
        operand: Option<&ast::Expr>,
        conditions: &[ast::CaseWhen],
        else_result: Option<&ast::Expr>,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let mut whens = Vec::with_capacity(conditions.len());
        let mut results = Vec::with_capacity(conditions.len() + 1);
        let operand_bound = match operand {
            Some(operand) => Some(self.bind_expr(operand, scope)?),
            None => None,
        };
        for when in conditions {
            whens.push(self.bind_expr(&when.condition, scope)?);
            results.push((self.bind_expr(&when.result, scope)?, &when.result));
        }
        if let Some(else_result) = else_result {
            results.push((self.bind_expr(else_result, scope)?, else_result));
        }
        let (mut results, data_type) = self.unify_list(results, "CASE")?;
        let else_bound = if else_result.is_some() {
            results.pop()
        } else {
            None
        };
        let (operand, conditions) = match (operand, operand_bound) {
            (Some(operand_ast), Some(operand_bound)) => {
                let mut items = vec![(operand_bound, operand_ast)];
                for (bound, when) in whens.into_iter().zip(conditions) {
                    items.push((bound, &when.condition));
                }
                let (mut items, _) = self.unify_list(items, "CASE/WHEN")?;
                let operand = items.remove(0);
                (Some(Box::new(operand)), items)
            }
            _ => {
                let mut bound = Vec::with_capacity(whens.len());
                for (when, ast) in whens.into_iter().zip(conditions) {
                    bound.push(self.as_boolean(when, &ast.condition, "CASE/WHEN")?);
                }
                (None, bound)
            }
        };
        Ok(Expr::Case {
            operand,
            branches: conditions.into_iter().zip(results).collect(),
            else_result: else_bound.map(Box::new),
            data_type,
        })
    }

    /// Binds a subquery expression's query: the current scope becomes the innermost
    /// enclosing scope, so names it does not define resolve to `OuterColumn`s.
    pub(super) fn bind_subquery(
        &mut self,
        query: &ast::Query,
        scope: &Scope,
    ) -> Result<crate::plan::PlanNode, BindError> {
        self.outer.push(scope.clone());
        let result = self.bind_query(query);
        self.outer.pop();
        result
    }
}
