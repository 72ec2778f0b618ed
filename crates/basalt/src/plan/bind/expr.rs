//! Scalar expressions: names to column positions, literals to typed constants, operators to
//! typed [`Expr`] nodes with every implicit conversion made an explicit cast.
//!
//! Untyped operands — string literals, `NULL`, parameters — take the type their context
//! needs, as PostgreSQL's "unknown" literals do: they are bound first in source order (so
//! `?` parameters number left to right) and re-typed once the other operand's type is known
//! ([`Binder::resolve_untyped`]). A string literal left without context is TEXT.
//! Function calls are in `function.rs`, aggregate calls in `aggregate.rs`.

use sqlparser::ast;

use crate::plan::expr::{BinaryOp, Expr};
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::error::BindError;
use super::pg_catalog::RegOutput;
use super::scope::Scope;
use super::types::{cast_target, castable, common_type, convert_text, fold_cast, parse_hex};
use super::{Binder, ident_name};

/// Whether an expression is an untyped literal or parameter whose type comes from context.
/// `expr` without enclosing parentheses.
fn strip_nested(expr: &ast::Expr) -> &ast::Expr {
    match expr {
        ast::Expr::Nested(inner) => strip_nested(inner),
        other => other,
    }
}

pub(super) fn is_untyped(expr: &ast::Expr) -> bool {
    match expr {
        ast::Expr::Nested(inner) => is_untyped(inner),
        ast::Expr::Value(value) => matches!(
            value.value,
            ast::Value::SingleQuotedString(_) | ast::Value::Null | ast::Value::Placeholder(_)
        ),
        _ => false,
    }
}

/// `expr` (already of `to`'s type) checked against the modifier an explicit cast keeps
/// (`'[1,2]'::vector(3)` is 22000): a constant now, anything else by a cast the executor
/// runs. A target without a modifier leaves `expr` as it is.
fn enforce_modifier(expr: Expr, to: DataType) -> Result<Expr, BindError> {
    if to.modifier().is_none() {
        return Ok(expr);
    }
    Ok(match expr {
        Expr::Literal { value, .. } => Expr::Literal {
            value: crate::types::cast(&value, to).map_err(super::types::type_error)?,
            data_type: to,
        },
        operand => Expr::Cast {
            operand: Box::new(operand),
            to,
        },
    })
}

/// `expr` converted to `to`: constants are converted now when the conversion is exact,
/// anything else gets a cast.
///
/// The result has `to`'s type without its modifier: a conversion does not enforce a
/// declared length (writes into a column do, see `exec::dml`).
pub(super) fn coerce(expr: Expr, to: DataType) -> Expr {
    let to = to.unmodified();
    if expr.data_type().unmodified() == to || to == DataType::Null {
        return expr;
    }
    if let Expr::Literal { value, .. } = &expr
        && let Some(value) = fold_cast(value, to)
    {
        return Expr::Literal {
            value,
            data_type: to,
        };
    }
    Expr::Cast {
        operand: Box::new(expr),
        to,
    }
}

impl Binder<'_> {
    /// Binds `expr` over `scope` (the row it is evaluated on).
    pub(super) fn bind_expr(&mut self, expr: &ast::Expr, scope: &Scope) -> Result<Expr, BindError> {
        match expr {
            // PostgreSQL's keywords CURRENT_SCHEMA and CURRENT_ROLE, which sqlparser reads as
            // identifiers; as keywords they win over a column of that name (quote it).
            ast::Expr::Identifier(ident)
                if let Some(value) = super::function::keyword_identifier_value(ident) =>
            {
                Ok(Expr::literal(Value::Text(value.to_owned())))
            }
            ast::Expr::Identifier(ident) => self.bind_column(None, &ident_name(ident), scope),
            ast::Expr::CompoundIdentifier(parts) => match parts.as_slice() {
                [.., table, column] => {
                    self.bind_column(Some(&ident_name(table)), &ident_name(column), scope)
                }
                _ => Err(BindError::syntax(format!(
                    "invalid column reference {expr}"
                ))),
            },
            ast::Expr::Value(value) => self.bind_value(&value.value, value.span.start),
            ast::Expr::TypedString(typed) => {
                let to = cast_target(&typed.data_type)?;
                let text = match &typed.value.value {
                    ast::Value::SingleQuotedString(text) => text,
                    other => {
                        return Err(BindError::syntax(format!("invalid typed literal {other}")));
                    }
                };
                Ok(Expr::Literal {
                    value: convert_text(text, to)?,
                    data_type: to,
                })
            }
            ast::Expr::Nested(inner) => self.bind_expr(inner, scope),
            ast::Expr::BinaryOp { left, op, right } => self.bind_binary(left, op, right, scope),
            ast::Expr::UnaryOp { op, expr } => self.bind_unary(*op, expr, scope),
            ast::Expr::IsNull(operand) | ast::Expr::IsNotNull(operand) => {
                let operand = self.bind_expr(operand, scope)?;
                Ok(Expr::IsNull {
                    operand: Box::new(operand),
                    negated: matches!(expr, ast::Expr::IsNotNull(_)),
                })
            }
            ast::Expr::IsUnknown(operand) | ast::Expr::IsNotUnknown(operand) => {
                let operand = self.bind_boolean(operand, scope, "IS UNKNOWN")?;
                Ok(Expr::IsNull {
                    operand: Box::new(operand),
                    negated: matches!(expr, ast::Expr::IsNotUnknown(_)),
                })
            }
            ast::Expr::IsTrue(operand)
            | ast::Expr::IsNotTrue(operand)
            | ast::Expr::IsFalse(operand)
            | ast::Expr::IsNotFalse(operand) => {
                let operand = self.bind_boolean(operand, scope, "IS TRUE")?;
                let truth = matches!(expr, ast::Expr::IsTrue(_) | ast::Expr::IsNotTrue(_));
                // `x IS TRUE` is `x IS NOT DISTINCT FROM TRUE`.
                Ok(Expr::IsDistinctFrom {
                    left: Box::new(operand),
                    right: Box::new(Expr::literal(Value::Boolean(truth))),
                    negated: matches!(expr, ast::Expr::IsTrue(_) | ast::Expr::IsFalse(_)),
                })
            }
            ast::Expr::IsDistinctFrom(left, right) | ast::Expr::IsNotDistinctFrom(left, right) => {
                let (left, right) = self.bind_compared(left, right, scope, "IS DISTINCT FROM")?;
                Ok(Expr::IsDistinctFrom {
                    left: Box::new(left),
                    right: Box::new(right),
                    negated: matches!(expr, ast::Expr::IsNotDistinctFrom(..)),
                })
            }
            ast::Expr::InList {
                expr: operand,
                list,
                negated,
            } => self.bind_in_list(operand, list, *negated, scope),
            ast::Expr::InSubquery {
                expr: operand,
                subquery,
                negated,
            } => self.bind_in_subquery(operand, subquery, *negated, scope),
            ast::Expr::AnyOp {
                left,
                compare_op,
                right,
                ..
            } => self.bind_quantified(left, compare_op, right, false, scope),
            ast::Expr::AllOp {
                left,
                compare_op,
                right,
            } => self.bind_quantified(left, compare_op, right, true, scope),
            ast::Expr::Between {
                expr: operand,
                negated,
                low,
                high,
            } => self.bind_between(operand, *negated, low, high, scope),
            ast::Expr::Like {
                negated,
                any,
                expr: operand,
                pattern,
                escape_char,
            }
            | ast::Expr::ILike {
                negated,
                any,
                expr: operand,
                pattern,
                escape_char,
            } => {
                if *any {
                    return Err(BindError::unsupported("LIKE ANY"));
                }
                let case_insensitive = matches!(expr, ast::Expr::ILike { .. });
                self.bind_like(
                    operand,
                    pattern,
                    escape_char.as_deref(),
                    *negated,
                    case_insensitive,
                    false,
                    scope,
                )
            }
            ast::Expr::Cast {
                kind,
                expr: operand,
                data_type,
                format,
            } => self.bind_cast(expr, kind, operand, data_type, format.is_some(), scope),
            ast::Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.bind_case(
                operand.as_deref(),
                conditions,
                else_result.as_deref(),
                scope,
            ),
            ast::Expr::Function(function) => self.bind_function(function, scope),
            ast::Expr::Exists { subquery, negated } => {
                let plan = self.bind_subquery(subquery, scope)?;
                Ok(Expr::Exists {
                    plan: Box::new(plan),
                    negated: *negated,
                })
            }
            ast::Expr::Subquery(query) => {
                let plan = self.bind_subquery(query, scope)?;
                let data_type = match plan.schema.as_slice() {
                    [column] => column.data_type,
                    _ => return Err(BindError::syntax("subquery must return only one column")),
                };
                Ok(Expr::ScalarSubquery {
                    plan: Box::new(plan),
                    data_type,
                })
            }
            ast::Expr::Substring {
                expr: operand,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.bind_expr(operand, scope)?];
                let from = match substring_from {
                    Some(from) => self.bind_expr(from, scope)?,
                    None => Expr::literal(Value::Integer(1)),
                };
                args.push(from);
                if let Some(length) = substring_for {
                    args.push(self.bind_expr(length, scope)?);
                }
                self.call_scalar("substr", args)
            }
            ast::Expr::Trim {
                trim_where,
                trim_what,
                expr: operand,
                trim_characters,
            } => {
                let name = match trim_where {
                    Some(ast::TrimWhereField::Leading) => "ltrim",
                    Some(ast::TrimWhereField::Trailing) => "rtrim",
                    _ => "btrim",
                };
                let mut args = vec![self.bind_expr(operand, scope)?];
                if let Some(what) = trim_what {
                    args.push(self.bind_expr(what, scope)?);
                }
                // PostgreSQL's `TRIM([BOTH | LEADING | TRAILING] s, chars)`: the characters
                // follow the string (a third argument is then no function, 42883).
                for characters in trim_characters.iter().flatten() {
                    args.push(self.bind_expr(characters, scope)?);
                }
                self.call_scalar(name, args)
            }
            ast::Expr::Overlay {
                expr: operand,
                overlay_what,
                overlay_from,
                overlay_for,
            } => {
                let mut args = vec![
                    self.bind_expr(operand, scope)?,
                    self.bind_expr(overlay_what, scope)?,
                    self.bind_expr(overlay_from, scope)?,
                ];
                if let Some(count) = overlay_for {
                    args.push(self.bind_expr(count, scope)?);
                }
                self.call_scalar("overlay", args)
            }
            ast::Expr::Ceil {
                expr: operand,
                field,
            }
            | ast::Expr::Floor {
                expr: operand,
                field,
            } => {
                if !matches!(
                    field,
                    ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime)
                ) {
                    return Err(BindError::unsupported(format!("{expr}")));
                }
                let name = if matches!(expr, ast::Expr::Ceil { .. }) {
                    "ceil"
                } else {
                    "floor"
                };
                let args = vec![self.bind_expr(operand, scope)?];
                self.call_scalar(name, args)
            }
            ast::Expr::Position { expr: needle, r#in } => {
                let args = vec![self.bind_expr(r#in, scope)?, self.bind_expr(needle, scope)?];
                self.call_scalar("strpos", args)
            }
            ast::Expr::Collate { expr, collation } => self.bind_collate(expr, collation, scope),
            ast::Expr::Interval(interval) => super::temporal::interval_literal(interval),
            ast::Expr::Extract {
                field,
                expr: source,
                ..
            } => self.bind_extract(field, source, scope),
            ast::Expr::AtTimeZone {
                timestamp,
                time_zone,
            } => self.bind_at_time_zone(timestamp, time_zone, scope),
            ast::Expr::Tuple(_) => Err(BindError::unsupported("row values")),
            ast::Expr::Array(_) | ast::Expr::CompoundFieldAccess { .. } => {
                self.bind_array_syntax(expr, scope)
            }
            ast::Expr::Wildcard(_) | ast::Expr::QualifiedWildcard(..) => {
                Err(BindError::syntax("\"*\" is not allowed here"))
            }
            other => Err(BindError::unsupported(format!("expression {other}"))),
        }
    }

    /// `CAST(operand AS data_type)` / `operand::data_type`. Out of line (as are the other
    /// larger arms) so that `bind_expr`'s stack frame, one per level of nesting, stays small.
    #[inline(never)]
    fn bind_cast(
        &mut self,
        expr: &ast::Expr,
        kind: &ast::CastKind,
        operand: &ast::Expr,
        data_type: &ast::DataType,
        has_format: bool,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        if !matches!(kind, ast::CastKind::Cast | ast::CastKind::DoubleColon) || has_format {
            return Err(BindError::unsupported(format!("cast form {expr}")));
        }
        if let ast::DataType::Custom(name, modifiers) = data_type
            && modifiers.is_empty()
            && name.to_string().eq_ignore_ascii_case("jsonpath")
        {
            // No jsonpath storage type: the cast checks the path and gives its normalized
            // text (`'$.a'::jsonpath` is `$."a"`), as PostgreSQL prints a jsonpath value.
            let bound = self.bind_expr(operand, scope)?;
            let text = self.type_if_untyped(bound, operand, DataType::Text(None))?;
            if !matches!(text.data_type(), DataType::Text(_) | DataType::Null) {
                return Err(BindError::new(
                    sqlstate::CANNOT_COERCE,
                    format!("cannot cast type {} to jsonpath", text.data_type()),
                ));
            }
            return self.call_scalar("jsonpath", vec![text]);
        }
        if let Some(reg) = super::pg_catalog::cast_type_name(data_type)
            .filter(|name| super::pg_catalog::is_reg_type(name))
        {
            // A reg* value cast to its own type again is the same value:
            // `CAST($1::regclass AS regclass)`, as SQLAlchemy's asyncpg dialect types a
            // parameter, is `$1::regclass` (cast twice, the OID would turn into the name).
            let mut operand = operand;
            while let ast::Expr::Cast {
                expr: inner,
                data_type: inner_type,
                kind: ast::CastKind::Cast | ast::CastKind::DoubleColon,
                format: None,
            } = strip_nested(operand)
                && super::pg_catalog::cast_type_name(inner_type).as_deref() == Some(reg.as_str())
            {
                operand = inner;
            }
            return self.bind_reg_cast(&reg, operand, RegOutput::Natural, scope);
        }
        // `x::regclass::text` is the name and `x::regclass::oid` the OID, whichever x is.
        if let ast::Expr::Cast {
            expr: inner,
            data_type: inner_type,
            kind: ast::CastKind::Cast | ast::CastKind::DoubleColon,
            format: None,
        } = strip_nested(operand)
            && let Some(reg) = super::pg_catalog::cast_type_name(inner_type)
                .filter(|name| super::pg_catalog::is_reg_type(name))
        {
            let output = match cast_target(data_type)? {
                DataType::Text(_) => Some(RegOutput::Name),
                DataType::Integer => Some(RegOutput::Oid),
                _ => None,
            };
            if let Some(output) = output {
                return self.bind_reg_cast(&reg, inner, output, scope);
            }
        }
        let to = cast_target(data_type)?;
        let bound = match operand {
            // `ARRAY[]::int[]`: the constructor takes the cast's type.
            ast::Expr::Array(array) if to.is_array() => {
                self.bind_array_constructor(&array.elem, Some(to), scope)?
            }
            _ => self.bind_expr(operand, scope)?,
        };
        if is_untyped(operand) {
            let resolved = self.resolve_untyped(bound, operand, to)?;
            return enforce_modifier(resolved, to);
        }
        let from = bound.data_type();
        if !castable(from, to) {
            return Err(BindError::new(
                sqlstate::CANNOT_COERCE,
                format!("cannot cast type {from} to {to}"),
            ));
        }
        enforce_modifier(coerce(bound, to), to)
    }

    /// Binds a column reference, looking outward through enclosing queries.
    fn bind_column(
        &mut self,
        table: Option<&str>,
        name: &str,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        if let Some(index) = scope.resolve(table, name)? {
            return Ok(Expr::Column {
                index,
                data_type: scope.columns[index].data_type,
            });
        }
        for (depth, outer) in self.outer.iter().rev().enumerate() {
            if let Some(index) = outer.resolve(table, name)? {
                return Ok(Expr::OuterColumn {
                    depth: depth + 1,
                    index,
                    data_type: outer.columns[index].data_type,
                });
            }
        }
        // `SELECT true` / `false` arrive as identifiers in some dialects.
        if table.is_none() && (name == "true" || name == "false") {
            return Ok(Expr::literal(Value::Boolean(name == "true")));
        }
        Err(scope.unknown_column(table, name))
    }

    fn bind_value(
        &mut self,
        value: &ast::Value,
        location: sqlparser::tokenizer::Location,
    ) -> Result<Expr, BindError> {
        Ok(match value {
            ast::Value::Number(text, _) => Expr::literal(number_literal(text)?),
            ast::Value::SingleQuotedString(text)
            | ast::Value::EscapedStringLiteral(text)
            | ast::Value::NationalStringLiteral(text)
            | ast::Value::TripleSingleQuotedString(text)
            | ast::Value::UnicodeStringLiteral(text) => Expr::literal(Value::Text(text.clone())),
            ast::Value::DollarQuotedString(quoted) => {
                Expr::literal(Value::Text(quoted.value.clone()))
            }
            ast::Value::HexStringLiteral(hex) => {
                Expr::literal(Value::Blob(parse_hex(hex).ok_or_else(|| {
                    BindError::new(
                        sqlstate::INVALID_TEXT_REPRESENTATION,
                        format!("invalid hexadecimal literal x'{hex}'"),
                    )
                })?))
            }
            ast::Value::SingleQuotedByteStringLiteral(text) => {
                Expr::literal(Value::Blob(text.as_bytes().to_vec()))
            }
            ast::Value::Boolean(b) => Expr::literal(Value::Boolean(*b)),
            ast::Value::Null => Expr::literal(Value::Null),
            ast::Value::Placeholder(text) => {
                let (index, name) = self.parameter_index(text, location)?;
                self.use_parameter(index, name, DataType::Null);
                Expr::Parameter {
                    index,
                    data_type: DataType::Null,
                }
            }
            other => return Err(BindError::unsupported(format!("literal {other}"))),
        })
    }

    /// Gives an untyped operand (bound from `ast`) the type `to`: string literals are
    /// converted now (22P02 when they cannot be), NULL becomes a typed NULL, and a parameter
    /// records the type it will be converted to. Typed operands are cast.
    pub(super) fn resolve_untyped(
        &mut self,
        bound: Expr,
        ast: &ast::Expr,
        to: DataType,
    ) -> Result<Expr, BindError> {
        // A literal or parameter takes the context's type, not its modifier: text compared
        // with a VARCHAR(20) column is text of any length (PostgreSQL's typmod -1).
        let to = to.unmodified();
        if to == DataType::Null || !is_untyped(ast) {
            return Ok(coerce(bound, to));
        }
        Ok(match bound {
            Expr::Literal {
                value: Value::Text(text),
                ..
            } => Expr::Literal {
                value: convert_text(&text, to)?,
                data_type: to,
            },
            Expr::Literal {
                value: Value::Null, ..
            } => Expr::Literal {
                value: Value::Null,
                data_type: to,
            },
            Expr::Parameter { index, .. } => {
                self.use_parameter(index, None, to);
                Expr::Parameter {
                    index,
                    data_type: to,
                }
            }
            other => coerce(other, to),
        })
    }

    /// Gives an untyped operand the type `to`; a typed operand is returned unchanged (the
    /// caller checks it).
    pub(super) fn type_if_untyped(
        &mut self,
        bound: Expr,
        ast: &ast::Expr,
        to: DataType,
    ) -> Result<Expr, BindError> {
        if is_untyped(ast) {
            self.resolve_untyped(bound, ast, to)
        } else {
            Ok(bound)
        }
    }

    /// Binds a condition: a boolean (or, leniently as SQLite does, an integer or NULL).
    pub(super) fn bind_boolean(
        &mut self,
        expr: &ast::Expr,
        scope: &Scope,
        context: &str,
    ) -> Result<Expr, BindError> {
        let bound = self.bind_expr(expr, scope)?;
        self.as_boolean(bound, expr, context)
    }

    /// Converts a bound condition to boolean, 42804 when its type cannot be one.
    pub(super) fn as_boolean(
        &mut self,
        bound: Expr,
        ast: &ast::Expr,
        context: &str,
    ) -> Result<Expr, BindError> {
        if is_untyped(ast) {
            return self.resolve_untyped(bound, ast, DataType::Boolean);
        }
        match bound.data_type() {
            DataType::Boolean => Ok(bound),
            DataType::Integer | DataType::Real | DataType::Null => {
                Ok(coerce(bound, DataType::Boolean))
            }
            other => Err(BindError::mismatch(format!(
                "argument of {context} must be type boolean, not type {other}"
            ))),
        }
    }

    /// Binds two operands that are compared, converting both to their common type.
    pub(super) fn bind_compared(
        &mut self,
        left: &ast::Expr,
        right: &ast::Expr,
        scope: &Scope,
        operator: &str,
    ) -> Result<(Expr, Expr), BindError> {
        let left_bound = self.bind_expr(left, scope)?;
        let right_bound = self.bind_expr(right, scope)?;
        let (left_bound, right_bound) =
            self.collate_comparison((left_bound, left), (right_bound, right))?;
        let (left_bound, right_bound) =
            self.unify_pair(left_bound, left, right_bound, right, operator)?;
        // PostgreSQL's json has no comparison operators at all (jsonb has them).
        if left_bound.data_type() == DataType::Json {
            return Err(BindError::undefined_function(format!(
                "operator does not exist: json {operator} json"
            )));
        }
        Ok((left_bound, right_bound))
    }

    /// Converts two bound operands to their common type (untyped ones take the other's).
    pub(super) fn unify_pair(
        &mut self,
        left_bound: Expr,
        left: &ast::Expr,
        right_bound: Expr,
        right: &ast::Expr,
        operator: &str,
    ) -> Result<(Expr, Expr), BindError> {
        let (left_type, right_type) = (left_bound.data_type(), right_bound.data_type());
        let target = match (is_untyped(left), is_untyped(right)) {
            (true, false) => right_type,
            (false, true) => left_type,
            (true, true) if left_type == DataType::Null => right_type,
            _ => common_type(left_type, right_type).ok_or_else(|| {
                BindError::undefined_function(format!(
                    "operator does not exist: {left_type} {operator} {right_type}"
                ))
            })?,
        };
        let left_bound = self.resolve_untyped(left_bound, left, target)?;
        let right_bound = self.resolve_untyped(right_bound, right, target)?;
        Ok((left_bound, right_bound))
    }

    /// Converts a list of bound expressions to their common type (CASE results, COALESCE,
    /// IN lists); untyped members take it, and a list of only untyped members is TEXT.
    pub(super) fn unify_list(
        &mut self,
        items: Vec<(Expr, &ast::Expr)>,
        what: &str,
    ) -> Result<(Vec<Expr>, DataType), BindError> {
        let mut target = DataType::Null;
        let mut any_typed = false;
        for (bound, ast) in &items {
            if is_untyped(ast) {
                continue;
            }
            any_typed = true;
            target = common_type(target, bound.data_type()).ok_or_else(|| {
                BindError::mismatch(format!(
                    "{what} types {target} and {} cannot be matched",
                    bound.data_type()
                ))
            })?;
        }
        if !any_typed {
            target = if items
                .iter()
                .all(|(bound, _)| bound.data_type() == DataType::Null)
            {
                DataType::Null
            } else {
                DataType::Text(None)
            };
        }
        let mut result = Vec::with_capacity(items.len());
        for (bound, ast) in items {
            result.push(self.resolve_untyped(bound, ast, target)?);
        }
        Ok((result, target))
    }
}

/// A numeric literal, typed as PostgreSQL types it: an integer when it has no fraction or
/// exponent and fits 64 bits, otherwise NUMERIC (`1.5`, `1e3`, `99999999999999999999`).
/// A literal beyond NUMERIC's 38 digits (`1e300`) is a double, as it was before NUMERIC
/// was exact.
pub(super) fn number_literal(text: &str) -> Result<Value, BindError> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"))
        && let Ok(value) = i64::from_str_radix(hex, 16)
    {
        return Ok(Value::Integer(value));
    }
    if let Ok(value) = text.parse::<i64>() {
        return Ok(Value::Integer(value));
    }
    if let Ok(value) = crate::types::numeric::parse(text) {
        return Ok(Value::Numeric(value));
    }
    text.parse::<f64>().map(Value::Real).map_err(|_| {
        BindError::new(
            sqlstate::INVALID_TEXT_REPRESENTATION,
            format!("invalid number \"{text}\""),
        )
    })
}

pub(super) fn binary(op: BinaryOp, left: Expr, right: Expr, data_type: DataType) -> Expr {
    Expr::Binary {
        op,
        left: Box::new(left),
        right: Box::new(right),
        data_type,
    }
}
