//! Array syntax: `ARRAY[...]` constructors, subscripts and slices, `op ANY / ALL (array)`,
//! the array operators (`||`, `@>`, `<@`, `&&`) and the polymorphic array functions
//! (`array_append(anyarray, anyelement)`), each bound to a registry call of
//! `types::array::functions`.
//!
//! Typing follows PostgreSQL's polymorphic rules as far as Basalt's types go: the element
//! type of a call is the common type of its arrays' element types and its element
//! arguments; untyped literals and parameters take that type (an untyped argument in an
//! array position is read as an array literal, `'{1,2}'`); with nothing typed, text. An
//! empty `ARRAY[]` needs a cast to give it a type (42P18), as in PostgreSQL.

use sqlparser::ast;

use crate::plan::expr::{BinaryOp, Expr};
use crate::sqlstate;
use crate::types::array::functions::polymorphic_signature;
use crate::types::{Array, DataType, Value};

use super::Binder;
use super::error::BindError;
use super::expr::is_untyped;
use super::scope::Scope;
use super::types::common_type;

fn integer_literal(value: i64) -> Expr {
    Expr::literal(Value::Integer(value))
}

impl Binder<'_> {
    /// `ARRAY(subquery)`: the subquery's one column as an array, in the subquery's row
    /// order — bound as the scalar subquery `(SELECT array_agg(x) FROM (subquery) AS s (x))`.
    /// No rows give NULL here (PostgreSQL gives an empty array: an empty `array_agg` has
    /// no element type to make one of).
    pub(super) fn bind_array_subquery(
        &mut self,
        query: &ast::Query,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let text = format!(
            "SELECT array_agg(basalt_array_subquery.element) FROM ({query}) AS \
             basalt_array_subquery (element)"
        );
        let statement = crate::sql::parse_one(&text)
            .map_err(|error| BindError::syntax(format!("ARRAY(subquery): {error}")))?;
        let ast::Statement::Query(aggregate) = statement else {
            return Err(BindError::syntax("ARRAY(subquery) needs a query"));
        };
        self.bind_expr(&ast::Expr::Subquery(aggregate), scope)
    }

    /// `ARRAY[...]` or a subscript: out of line so that `bind_expr`'s stack frame, one per
    /// level of nesting, does not grow with them.
    #[inline(never)]
    pub(super) fn bind_array_syntax(
        &mut self,
        expr: &ast::Expr,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        match expr {
            ast::Expr::Array(array) => self.bind_array_constructor(&array.elem, None, scope),
            ast::Expr::CompoundFieldAccess { root, access_chain } => {
                self.bind_subscript(root, access_chain, scope)
            }
            other => Err(BindError::unsupported(format!("expression {other}"))),
        }
    }

    /// `ARRAY[e1, e2, ...]`; `hint` is the array type a surrounding cast asks for
    /// (`ARRAY[]::int[]`), which an empty or all-untyped constructor takes.
    pub(super) fn bind_array_constructor(
        &mut self,
        elements: &[ast::Expr],
        hint: Option<DataType>,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let mut items = Vec::with_capacity(elements.len());
        for element in elements {
            // A nested `ARRAY[...]` inside takes the same hint.
            let bound = match element {
                ast::Expr::Array(inner) => self.bind_array_constructor(&inner.elem, hint, scope)?,
                _ => self.bind_expr(element, scope)?,
            };
            items.push((bound, element));
        }
        let any_typed = items.iter().any(|(_, ast)| !is_untyped(ast));
        let (args, element_type) = match hint.and_then(DataType::element_type) {
            Some(element) if !any_typed => {
                let mut args = Vec::with_capacity(items.len());
                for (bound, ast) in items {
                    args.push(self.resolve_untyped(bound, ast, element)?);
                }
                (args, element)
            }
            _ => self.unify_list(items, "ARRAY")?,
        };
        let array_type = match element_type {
            DataType::Array(_) => element_type,
            DataType::Null if args.is_empty() => {
                return Err(BindError::new(
                    sqlstate::INDETERMINATE_DATATYPE,
                    "cannot determine type of empty array".to_owned(),
                ));
            }
            // `ARRAY[NULL]` is text[], as PostgreSQL resolves unknown to text.
            DataType::Null => DataType::Array(&DataType::Text(None)),
            other => other
                .array_of()
                .ok_or_else(|| BindError::unsupported(format!("arrays of type {other}")))?,
        };
        let element = array_type.element_type().unwrap_or(DataType::Text(None));
        let mut call_args = Vec::with_capacity(args.len() + 1);
        call_args.push(Expr::Literal {
            value: Array::empty(element).into_value(),
            data_type: array_type,
        });
        call_args.extend(
            args.into_iter()
                .map(|arg| super::expr::coerce(arg, element_type)),
        );
        self.call_scalar("$array", call_args)
    }

    /// `root[i]`, `root[i][j]`, `root[lo:hi]`: an element (NULL out of range) or a slice.
    pub(super) fn bind_subscript(
        &mut self,
        root: &ast::Expr,
        chain: &[ast::AccessExpr],
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        // `(t.keys).x`: a field of a flattened composite column (`composite.rs`).
        if let Some(column) = super::composite::field_of_column(root, chain) {
            return self.bind_expr(&column, scope);
        }
        // `t.a[1]` parses as `t` then `.a` then `[1]`: the dotted names are the column's
        // qualified name, and only the subscripts follow.
        let mut path = match root {
            ast::Expr::Identifier(ident) => vec![ident.clone()],
            ast::Expr::CompoundIdentifier(parts) => parts.clone(),
            _ => Vec::new(),
        };
        let dots = if path.is_empty() {
            0
        } else {
            chain
                .iter()
                .take_while(|access| {
                    matches!(access, ast::AccessExpr::Dot(ast::Expr::Identifier(_)))
                })
                .count()
        };
        if dots > 0 && dots < chain.len() {
            for access in &chain[..dots] {
                if let ast::AccessExpr::Dot(ast::Expr::Identifier(name)) = access {
                    path.push(name.clone());
                }
            }
            let column = ast::Expr::CompoundIdentifier(path);
            return self.bind_subscript(&column, &chain[dots..], scope);
        }
        let array = self.bind_expr(root, scope)?;
        let data_type = array.data_type();
        if !data_type.is_array() {
            return Err(BindError::mismatch(format!(
                "cannot subscript type {data_type} because it does not support subscripting"
            )));
        }
        let mut subscripts = Vec::with_capacity(chain.len());
        for access in chain {
            match access {
                ast::AccessExpr::Subscript(subscript) => subscripts.push(subscript),
                ast::AccessExpr::Dot(_) => {
                    return Err(BindError::unsupported("field access on an array"));
                }
            }
        }
        let slicing = subscripts
            .iter()
            .any(|s| matches!(s, ast::Subscript::Slice { .. }));
        let mut args = vec![array];
        for subscript in subscripts {
            match subscript {
                ast::Subscript::Index { index } if !slicing => {
                    args.push(self.bind_integer(index, scope)?);
                }
                // In a slice, a plain subscript `i` is the range `1:i`, as in PostgreSQL.
                ast::Subscript::Index { index } => {
                    args.push(integer_literal(1));
                    args.push(self.bind_integer(index, scope)?);
                }
                ast::Subscript::Slice {
                    lower_bound,
                    upper_bound,
                    stride,
                } => {
                    if stride.is_some() {
                        return Err(BindError::unsupported("array slices with a stride"));
                    }
                    args.push(match lower_bound {
                        Some(lower) => self.bind_integer(lower, scope)?,
                        None => integer_literal(i64::MIN),
                    });
                    args.push(match upper_bound {
                        Some(upper) => self.bind_integer(upper, scope)?,
                        None => integer_literal(i64::MAX),
                    });
                }
            }
        }
        self.call_scalar(if slicing { "$slice" } else { "$subscript" }, args)
    }

    /// A subscript: an integer (untyped literals and parameters become one).
    fn bind_integer(&mut self, expr: &ast::Expr, scope: &Scope) -> Result<Expr, BindError> {
        let bound = self.bind_expr(expr, scope)?;
        let bound = self.resolve_untyped(bound, expr, DataType::Integer)?;
        match bound.data_type() {
            DataType::Integer | DataType::Null => Ok(bound),
            DataType::Real | DataType::Numeric(_) | DataType::Boolean => {
                Ok(super::expr::coerce(bound, DataType::Integer))
            }
            other => Err(BindError::mismatch(format!(
                "array subscript must have type integer, not {other}"
            ))),
        }
    }

    /// `operand op ANY (array)` / `op ALL (array)`.
    pub(super) fn bind_quantified_array(
        &mut self,
        operand: &ast::Expr,
        op: BinaryOp,
        right: &ast::Expr,
        all: bool,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let code = match op {
            BinaryOp::Equal => 0,
            BinaryOp::NotEqual => 1,
            BinaryOp::Less => 2,
            BinaryOp::LessOrEqual => 3,
            BinaryOp::Greater => 4,
            _ => 5,
        };
        let operand_bound = self.bind_expr(operand, scope)?;
        let array_bound = match right {
            ast::Expr::Array(array) => self.bind_array_constructor(&array.elem, None, scope)?,
            _ => self.bind_expr(right, scope)?,
        };
        let word = if all { "ALL" } else { "ANY" };
        let symbol = super::super::expr::comparison_symbol(op);
        let array_element = match array_bound.data_type() {
            DataType::Array(element) => Some(*element),
            DataType::Null => None,
            other if !is_untyped(right) => {
                return Err(BindError::undefined_function(format!(
                    "op {word}/{word} (array) requires array on right side, not {other}"
                )));
            }
            _ => None,
        };
        let element = match (is_untyped(operand), array_element) {
            (_, None) if is_untyped(right) || array_bound.data_type() == DataType::Null => {
                match operand_bound.data_type() {
                    DataType::Null => DataType::Text(None),
                    other => other.unmodified(),
                }
            }
            (true, Some(element)) => element,
            (false, Some(element)) => {
                common_type(operand_bound.data_type(), element).ok_or_else(|| {
                    BindError::undefined_function(format!(
                        "operator does not exist: {} {symbol} {element}",
                        operand_bound.data_type()
                    ))
                })?
            }
            (_, None) => DataType::Text(None),
        };
        let array_type = element
            .array_of()
            .ok_or_else(|| BindError::unsupported(format!("arrays of type {element}")))?;
        let operand_bound = self.resolve_untyped(operand_bound, operand, element)?;
        let array_bound = self.resolve_untyped(array_bound, right, array_type)?;
        self.call_scalar(
            "$quantified",
            vec![
                operand_bound,
                array_bound,
                integer_literal(code),
                Expr::literal(Value::Boolean(all)),
            ],
        )
    }

    /// A call of a polymorphic array function (`array_append`, `array_cat`, ...) whose
    /// arrays and elements share one element type.
    pub(super) fn call_array_function(
        &mut self,
        name: &str,
        bound: Vec<Expr>,
        asts: &[&ast::Expr],
    ) -> Result<Expr, BindError> {
        let signature = polymorphic_signature(name).unwrap_or(&[]);
        let undefined = |bound: &[Expr]| {
            let names: Vec<&str> = bound.iter().map(|e| e.data_type().name()).collect();
            BindError::undefined_function(format!(
                "function {name}({}) does not exist",
                names.join(", ")
            ))
        };
        let mut element = DataType::Null;
        for (position, (expr, ast)) in bound.iter().zip(asts).enumerate() {
            let Some(&is_array) = signature.get(position) else {
                continue;
            };
            if is_untyped(ast) {
                continue;
            }
            let candidate = match (is_array, expr.data_type()) {
                (_, DataType::Null) => continue,
                (true, DataType::Array(e)) => *e,
                (true, _) => return Err(undefined(&bound)),
                (false, DataType::Array(_)) => return Err(undefined(&bound)),
                (false, other) => other,
            };
            element = common_type(element, candidate).ok_or_else(|| undefined(&bound))?;
        }
        if element == DataType::Null {
            element = DataType::Text(None);
        }
        let array_type = element
            .array_of()
            .ok_or_else(|| BindError::unsupported(format!("arrays of type {element}")))?;
        let mut args = Vec::with_capacity(bound.len());
        for (position, (expr, ast)) in bound.into_iter().zip(asts).enumerate() {
            let target = match signature.get(position) {
                Some(true) => array_type,
                Some(false) => element,
                None => DataType::Integer,
            };
            args.push(self.resolve_untyped(expr, ast, target)?);
        }
        self.call_scalar(name, args)
    }

    /// `a || b` where one side is an array: `array_cat`, `array_append` or `array_prepend`
    /// (an untyped side is an array literal, as PostgreSQL prefers `anyarray || anyarray`).
    pub(super) fn bind_array_concat(
        &mut self,
        (left_bound, left): (Expr, &ast::Expr),
        (right_bound, right): (Expr, &ast::Expr),
    ) -> Result<Expr, BindError> {
        let array_or_untyped =
            |bound: &Expr, ast: &ast::Expr| bound.data_type().is_array() || is_untyped(ast);
        let name = match (
            array_or_untyped(&left_bound, left),
            array_or_untyped(&right_bound, right),
        ) {
            (true, true) => "array_cat",
            (true, false) => "array_append",
            _ => "array_prepend",
        };
        self.call_array_function(name, vec![left_bound, right_bound], &[left, right])
    }
}

/// The FROM item a SELECT-list set-returning call becomes (see [`select_list_unnest`]).
const UNNEST_ITEM: &str = "__basalt_unnest";

/// The set-returning functions of one column that may stand in a SELECT list.
const SELECT_LIST_FUNCTIONS: [&str; 8] = [
    "unnest",
    "jsonb_path_query",
    "json_array_elements",
    "jsonb_array_elements",
    "json_array_elements_text",
    "jsonb_array_elements_text",
    "json_object_keys",
    "jsonb_object_keys",
];

/// The name and arguments of a call of one of [`SELECT_LIST_FUNCTIONS`].
fn unnest_argument(expr: &ast::Expr) -> Option<(String, &[ast::FunctionArg])> {
    let ast::Expr::Function(function) = expr else {
        return None;
    };
    let name = function.name.to_string().to_ascii_lowercase();
    if !SELECT_LIST_FUNCTIONS.contains(&name.as_str()) || function.over.is_some() {
        return None;
    }
    match &function.args {
        ast::FunctionArguments::List(list) if !list.args.is_empty() && list.clauses.is_empty() => {
            Some((name, list.args.as_slice()))
        }
        _ => None,
    }
}

/// The item a lockstep SELECT list's calls read their position from (see [`lockstep`]).
const LOCKSTEP_ITEM: &str = "__basalt_lockstep";

/// A set-returning call of a SELECT list run in lockstep with others.
enum LockstepCall<'a> {
    /// `unnest(array)`.
    Unnest(&'a ast::Expr),
    /// `generate_subscripts(array, dimension)`.
    Subscripts(&'a ast::Expr, &'a ast::Expr),
}

fn lockstep_call(expr: &ast::Expr) -> Option<LockstepCall<'_>> {
    if let Some((name, args)) = unnest_argument(expr) {
        // Of the one-column set-returning functions, only `unnest` of one array runs in
        // lockstep (the others are refused beside a second call).
        return match args {
            [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(array))] if name == "unnest" => {
                Some(LockstepCall::Unnest(array))
            }
            _ => None,
        };
    }
    let ast::Expr::Function(function) = expr else {
        return None;
    };
    if !function
        .name
        .to_string()
        .eq_ignore_ascii_case("generate_subscripts")
        || function.over.is_some()
    {
        return None;
    }
    match &function.args {
        ast::FunctionArguments::List(list) => match list.args.as_slice() {
            [
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(array)),
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(dimension)),
            ] => Some(LockstepCall::Subscripts(array, dimension)),
            _ => None,
        },
        _ => None,
    }
}

/// One expression parsed from text built of displayed AST pieces.
pub(super) fn parse_expression(text: &str) -> Result<ast::Expr, BindError> {
    let statement = crate::sql::parse_one(&format!("SELECT {text}"))
        .map_err(|error| BindError::syntax(error.to_string()))?;
    if let ast::Statement::Query(query) = statement
        && let ast::SetExpr::Select(select) = *query.body
        && let Some(ast::SelectItem::UnnamedExpr(expr)) = select.projection.into_iter().next()
    {
        return Ok(expr);
    }
    Err(BindError::syntax(format!("not an expression: {text}")))
}

/// Several set-returning calls in one SELECT list — `unnest(a)` and
/// `generate_subscripts(a, d)`, as SQLAlchemy's and psql's catalog queries write them — run
/// in lockstep, as PostgreSQL runs them: a row's expansion has as many rows as its longest
/// call, the shorter ones give NULL beyond their end, and a NULL or empty array gives no
/// elements. The list becomes a FROM item `generate_series(1, n) AS item (i)` with `n` the
/// greatest of the calls' lengths, and each call the `i`th value: `a[array_lower(a, 1) + i -
/// 1]` for `unnest(a)` (one-dimensional arrays: PostgreSQL's unnest would also flatten
/// deeper ones) and `array_lower(a, d) + i - 1` while within `array_length(a, d)` for
/// `generate_subscripts(a, d)`. Each call keeps its function's name as the column's.
fn lockstep(select: &ast::Select) -> Result<ast::Select, BindError> {
    use std::ops::ControlFlow;
    let mut rewritten = select.clone();
    for item in &mut rewritten.projection {
        if let ast::SelectItem::UnnamedExpr(expr) = item
            && let Some(call) = lockstep_call(expr)
        {
            let name = match call {
                LockstepCall::Unnest(_) => "unnest",
                LockstepCall::Subscripts(..) => "generate_subscripts",
            };
            *item = ast::SelectItem::ExprWithAlias {
                expr: expr.clone(),
                alias: ast::Ident::new(name),
            };
        }
    }
    let position = format!("{LOCKSTEP_ITEM}.i");
    let mut lengths = Vec::new();
    let mut failure = None;
    let _ = ast::visit_expressions_mut(&mut rewritten.projection, |expr: &mut ast::Expr| {
        let replacement = match lockstep_call(expr) {
            Some(LockstepCall::Unnest(array)) => {
                lengths.push(format!("cardinality({array})"));
                format!("({array})[array_lower({array}, 1) + {position} - 1]")
            }
            Some(LockstepCall::Subscripts(array, dimension)) => {
                lengths.push(format!("array_length({array}, {dimension})"));
                format!(
                    "CASE WHEN {position} <= array_length({array}, {dimension}) \
                     THEN array_lower({array}, {dimension}) + {position} - 1 END"
                )
            }
            None => return ControlFlow::Continue(()),
        };
        match parse_expression(&replacement) {
            Ok(parsed) => {
                *expr = parsed;
                ControlFlow::Continue(())
            }
            Err(error) => {
                failure = Some(error);
                ControlFlow::Break(())
            }
        }
    });
    if let Some(error) = failure {
        return Err(error);
    }
    let series = crate::sql::parse_one(&format!(
        "SELECT * FROM generate_series(1, coalesce(greatest({}), 0)) AS {LOCKSTEP_ITEM} (i)",
        lengths.join(", ")
    ))
    .map_err(|error| BindError::syntax(error.to_string()))?;
    let ast::Statement::Query(query) = series else {
        return Err(BindError::syntax("set-returning SELECT list"));
    };
    let ast::SetExpr::Select(series) = *query.body else {
        return Err(BindError::syntax("set-returning SELECT list"));
    };
    rewritten.from.extend(series.from);
    Ok(rewritten)
}

/// `SELECT ..., unnest(a), ... FROM items` as `SELECT ..., u.unnest, ... FROM items,
/// unnest(a) AS u(unnest)`: one output row per element of each input row's array, no row
/// for an empty or NULL array — what PostgreSQL's set-returning function in the SELECT list
/// gives when it is the only one. The same for the other one-column set-returning
/// functions ([`SELECT_LIST_FUNCTIONS`]: `jsonb_path_query`, `jsonb_array_elements`, ...),
/// whose column takes the function's name, as in PostgreSQL. `None` when the select list has
/// no such call (or one inside a subquery, left alone); several `unnest` calls, or
/// `generate_subscripts`, run in lockstep ([`lockstep`]); 0A000 for several calls when one is
/// another function, inside an aggregate's arguments, and beside GROUP BY or HAVING
/// (PostgreSQL expands after grouping).
pub(super) fn select_list_unnest(select: &ast::Select) -> Result<Option<ast::Select>, BindError> {
    use std::ops::ControlFlow;
    let mut calls = 0;
    let mut subqueries = false;
    let mut in_aggregate = false;
    let _ = ast::visit_expressions(&select.projection, |expr: &ast::Expr| {
        if unnest_argument(expr).is_some() {
            calls += 1;
        }
        // `count(unnest(a))`: PostgreSQL refuses a set-returning call inside an aggregate's
        // or window function's arguments; moved into FROM it would silently count elements.
        if let ast::Expr::Function(function) = expr
            && let ast::FunctionArguments::List(list) = &function.args
            && (function.over.is_some()
                || super::aggregate::is_aggregate(
                    &function.name.to_string().to_ascii_lowercase(),
                    list.args.len(),
                ))
        {
            let _ = ast::visit_expressions(&list.args, |inner: &ast::Expr| {
                if unnest_argument(inner).is_some() {
                    in_aggregate = true;
                }
                ControlFlow::<()>::Continue(())
            });
        }
        if matches!(
            expr,
            ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. }
        ) {
            subqueries = true;
        }
        ControlFlow::<()>::Continue(())
    });
    let mut subscripts = 0;
    let _ = ast::visit_expressions(&select.projection, |expr: &ast::Expr| {
        if matches!(lockstep_call(expr), Some(LockstepCall::Subscripts(..))) {
            subscripts += 1;
        }
        ControlFlow::<()>::Continue(())
    });
    if calls + subscripts == 0 || subqueries {
        return Ok(None);
    }
    if in_aggregate {
        return Err(BindError::new(
            crate::sqlstate::FEATURE_NOT_SUPPORTED,
            "aggregate function calls cannot contain set-returning function calls",
        ));
    }
    let grouped = !matches!(&select.group_by, ast::GroupByExpr::Expressions(e, _) if e.is_empty());
    if grouped || select.having.is_some() {
        return Err(BindError::unsupported(
            "a set-returning function in the SELECT list of a grouped query",
        ));
    }
    // generate_subscripts runs through the lockstep rewrite even alone.
    if calls + subscripts > 1 || subscripts > 0 {
        let mut in_lockstep = 0;
        let _ = ast::visit_expressions(&select.projection, |expr: &ast::Expr| {
            if lockstep_call(expr).is_some() {
                in_lockstep += 1;
            }
            ControlFlow::<()>::Continue(())
        });
        if in_lockstep < calls + subscripts {
            return Err(BindError::unsupported(
                "several set-returning functions in one SELECT list, other than unnest and \
                 generate_subscripts",
            ));
        }
        return lockstep(select).map(Some);
    }
    let mut rewritten = select.clone();
    let mut call = None;
    let _ = ast::visit_expressions_mut(&mut rewritten.projection, |expr: &mut ast::Expr| {
        if let Some((name, args)) = unnest_argument(expr) {
            call = Some((name.clone(), args.to_vec()));
            *expr = ast::Expr::CompoundIdentifier(vec![
                ast::Ident::new(UNNEST_ITEM),
                ast::Ident::new(name),
            ]);
        }
        ControlFlow::<()>::Continue(())
    });
    let Some((name, args)) = call else {
        return Ok(None);
    };
    rewritten.from.push(ast::TableWithJoins {
        relation: ast::TableFactor::Function {
            lateral: false,
            name: ast::ObjectName::from(vec![ast::Ident::new(name.clone())]),
            args,
            with_ordinality: false,
            alias: Some(ast::TableAlias {
                explicit: true,
                name: ast::Ident::new(UNNEST_ITEM),
                columns: vec![ast::TableAliasColumnDef {
                    name: ast::Ident::new(name),
                    data_type: None,
                }],
                at: None,
            }),
        },
        joins: Vec::new(),
    });
    Ok(Some(rewritten))
}
