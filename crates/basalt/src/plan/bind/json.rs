//! JSON operators and the type rules around json and jsonb.
//!
//! The operators bind to the registry functions PostgreSQL implements them with, chosen by
//! the left operand's type and, for `->`/`->>`, the right one's:
//!
//! | operator            | json / jsonb function                                        |
//! |---------------------|--------------------------------------------------------------|
//! | `doc -> 'key'`      | `json_object_field` / `jsonb_object_field`                   |
//! | `doc -> 2`          | `json_array_element` / `jsonb_array_element`                 |
//! | `->>`               | the `_text` variants of the two above                        |
//! | `doc #> '{a,0}'`    | `json_extract_path_op` / `jsonb_extract_path_op`             |
//! | `#>>`               | `json_extract_path_text_op` / `jsonb_extract_path_text_op`   |
//! | `a @> b`, `a <@ b`  | `jsonb_contains`, `jsonb_contained` (jsonb only)             |
//! | `doc ? 'key'`       | `jsonb_exists` (jsonb only)                                  |
//! | `doc - 'key'`, `doc - 2` | `jsonb_delete` (jsonb only; see [`Binder::bind_jsonb_minus`]) |
//! | `a \|\| b`          | `jsonb_concat` (see [`Binder::bind_jsonb_concat`])             |
//! | `doc - '{a,b}'::text[]` | `jsonb_delete_keys`                                       |
//! | `doc ?\| keys`, `doc ?& keys` | `jsonb_exists_any`, `jsonb_exists_all` (keys: text[])  |
//! | `doc #- '{a,0}'`    | `jsonb_delete_path` (path: text[])                           |
//! | `doc @? path`, `doc @@ path` | `jsonb_path_exists_opr`, `jsonb_path_match_opr` (path: text, a jsonpath) |
//!
//! The path of `#>` is PostgreSQL's `text[]`: an untyped literal stays text in array-literal
//! syntax, parsed when the operator runs, and a `text[]` value (`ARRAY['a', 'b']`, a
//! parameter) is passed as its text form, which reads back as the same path. As in PostgreSQL, the
//! document operand must be json or jsonb (anything else, an untyped literal included, is
//! 42883 or, for a literal, 42725 "operator is not unique"); an untyped key is text; an
//! untyped operand of `@>` / `<@`, and an untyped document of `?`, `?|`, `?&`, `#-`, `@?` and
//! `@@`, is jsonb; their untyped second operand is text[] (a jsonpath, which Basalt keeps
//! as text, for `@?` / `@@`).
//!
//! json itself has no equality or ordering in PostgreSQL, so comparing, sorting, grouping
//! or DISTINCT on json is 42883 ([`require_equality`], [`require_ordering`]); jsonb has
//! both.

use sqlparser::ast;

use crate::plan::expr::Expr;
use crate::sqlstate;
use crate::types::DataType;

use super::Binder;
use super::error::BindError;
use super::expr::is_untyped;
use super::scope::Scope;

/// The JSON operators sqlparser parses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum JsonOperator {
    /// `->`
    Get,
    /// `->>`
    GetText,
    /// `#>`
    GetPath,
    /// `#>>`
    GetPathText,
    /// `@>`
    Contains,
    /// `<@`
    ContainedBy,
    /// `?`
    Exists,
    /// `?|` (any of a text[] of keys)
    ExistsAny,
    /// `?&` (all of a text[] of keys)
    ExistsAll,
    /// `#-` (delete at a path)
    DeletePath,
    /// `@?` (jsonpath yields an item)
    PathExists,
    /// `@@` (jsonpath predicate check)
    PathMatch,
}

impl JsonOperator {
    /// The JSON operator `op` is, if any.
    pub(super) fn of(op: &ast::BinaryOperator) -> Option<JsonOperator> {
        use ast::BinaryOperator as B;
        Some(match op {
            B::Arrow => JsonOperator::Get,
            B::LongArrow => JsonOperator::GetText,
            B::HashArrow => JsonOperator::GetPath,
            B::HashLongArrow => JsonOperator::GetPathText,
            B::AtArrow => JsonOperator::Contains,
            B::ArrowAt => JsonOperator::ContainedBy,
            B::Question => JsonOperator::Exists,
            B::QuestionPipe => JsonOperator::ExistsAny,
            B::QuestionAnd => JsonOperator::ExistsAll,
            B::HashMinus => JsonOperator::DeletePath,
            B::AtQuestion => JsonOperator::PathExists,
            B::AtAt => JsonOperator::PathMatch,
            _ => return None,
        })
    }

    fn symbol(self) -> &'static str {
        match self {
            JsonOperator::Get => "->",
            JsonOperator::GetText => "->>",
            JsonOperator::GetPath => "#>",
            JsonOperator::GetPathText => "#>>",
            JsonOperator::Contains => "@>",
            JsonOperator::ContainedBy => "<@",
            JsonOperator::Exists => "?",
            JsonOperator::ExistsAny => "?|",
            JsonOperator::ExistsAll => "?&",
            JsonOperator::DeletePath => "#-",
            JsonOperator::PathExists => "@?",
            JsonOperator::PathMatch => "@@",
        }
    }
}

/// The name of an operand's type in an operator error (`unknown` for an untyped literal).
fn operand_type_name(bound: &Expr, ast: &ast::Expr) -> &'static str {
    if is_untyped(ast) {
        "unknown"
    } else {
        bound.data_type().name()
    }
}

impl Binder<'_> {
    /// Binds `left op right` for a JSON operator.
    pub(super) fn bind_json_operator(
        &mut self,
        left: &ast::Expr,
        op: JsonOperator,
        right: &ast::Expr,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let left_bound = self.bind_expr(left, scope)?;
        let right_bound = self.bind_expr(right, scope)?;
        let undefined = |left_bound: &Expr, right_bound: &Expr| {
            BindError::undefined_function(format!(
                "operator does not exist: {} {} {}",
                operand_type_name(left_bound, left),
                op.symbol(),
                operand_type_name(right_bound, right)
            ))
        };
        if (op == JsonOperator::Contains || op == JsonOperator::ContainedBy)
            && (left_bound.data_type().is_array() || right_bound.data_type().is_array())
        {
            let name = if op == JsonOperator::Contains {
                "arraycontains"
            } else {
                "arraycontained"
            };
            return self.call_array_function(name, vec![left_bound, right_bound], &[left, right]);
        }
        if op == JsonOperator::Contains || op == JsonOperator::ContainedBy {
            if is_untyped(left) && is_untyped(right) {
                return Err(not_unique(op));
            }
            let mut args = Vec::with_capacity(2);
            for (bound, ast) in [(left_bound.clone(), left), (right_bound.clone(), right)] {
                let bound = self.type_if_untyped(bound, ast, DataType::Jsonb)?;
                if !matches!(bound.data_type(), DataType::Jsonb | DataType::Null) {
                    return Err(undefined(&left_bound, &right_bound));
                }
                args.push(bound);
            }
            let name = if op == JsonOperator::Contains {
                "jsonb_contains"
            } else {
                "jsonb_contained"
            };
            return self.call_scalar(name, args);
        }
        if op == JsonOperator::Exists {
            // `'{"a": 1}' ? 'a'`: PostgreSQL resolves unknown ? unknown to jsonb ? text.
            let document = self.type_if_untyped(left_bound.clone(), left, DataType::Jsonb)?;
            let key = self.type_if_untyped(right_bound.clone(), right, DataType::Text(None))?;
            if !matches!(document.data_type(), DataType::Jsonb | DataType::Null)
                || !matches!(key.data_type(), DataType::Text(_) | DataType::Null)
            {
                return Err(undefined(&left_bound, &right_bound));
            }
            return self.call_scalar("jsonb_exists", vec![document, key]);
        }
        if let Some((function, second)) = match op {
            JsonOperator::ExistsAny => Some(("jsonb_exists_any", TEXT_ARRAY)),
            JsonOperator::ExistsAll => Some(("jsonb_exists_all", TEXT_ARRAY)),
            JsonOperator::DeletePath => Some(("jsonb_delete_path", TEXT_ARRAY)),
            JsonOperator::PathExists => Some(("jsonb_path_exists_opr", DataType::Text(None))),
            JsonOperator::PathMatch => Some(("jsonb_path_match_opr", DataType::Text(None))),
            _ => None,
        } {
            // PostgreSQL resolves an untyped document to jsonb and an untyped second
            // operand to text[] (a key list or a path) or jsonpath (text here); `?|` and
            // `?&` between two untyped literals are ambiguous there (42725).
            if matches!(op, JsonOperator::ExistsAny | JsonOperator::ExistsAll)
                && is_untyped(left)
                && is_untyped(right)
            {
                return Err(not_unique(op));
            }
            let document = self.type_if_untyped(left_bound.clone(), left, DataType::Jsonb)?;
            let other = self.type_if_untyped(right_bound.clone(), right, second)?;
            let fits = |t: DataType| t == second || t == DataType::Null;
            if !matches!(document.data_type(), DataType::Jsonb | DataType::Null)
                || !fits(other.data_type())
            {
                return Err(undefined(&left_bound, &right_bound));
            }
            return self.call_scalar(function, vec![document, other]);
        }
        if is_untyped(left) {
            return Err(not_unique(op));
        }
        let family = match left_bound.data_type() {
            DataType::Json => "json",
            DataType::Jsonb => "jsonb",
            _ => return Err(undefined(&left_bound, &right_bound)),
        };
        let right_bound = self.type_if_untyped(right_bound, right, DataType::Text(None))?;
        // A text[] path goes as its text form, the syntax the path parser reads.
        let right_bound = match (op, right_bound.data_type()) {
            (JsonOperator::GetPath | JsonOperator::GetPathText, DataType::Array(element))
                if element.is_text() =>
            {
                super::expr::coerce(right_bound, DataType::Text(None))
            }
            _ => right_bound,
        };
        let function = match (op, right_bound.data_type()) {
            (JsonOperator::Get, DataType::Text(_)) => "object_field",
            (JsonOperator::GetText, DataType::Text(_)) => "object_field_text",
            (JsonOperator::Get, DataType::Integer) => "array_element",
            (JsonOperator::GetText, DataType::Integer) => "array_element_text",
            (JsonOperator::GetPath, DataType::Text(_)) => "extract_path_op",
            (JsonOperator::GetPathText, DataType::Text(_)) => "extract_path_text_op",
            _ => return Err(undefined(&left_bound, &right_bound)),
        };
        self.call_scalar(
            &format!("{family}_{function}"),
            vec![left_bound, right_bound],
        )
    }
}

/// `text[]`, the key lists of `?|` / `?&` and the path of `#-`.
const TEXT_ARRAY: DataType = DataType::Array(&DataType::Text(None));

fn not_unique(op: JsonOperator) -> BindError {
    BindError::new(
        sqlstate::AMBIGUOUS_FUNCTION,
        format!("operator is not unique: unknown {} unknown", op.symbol()),
    )
}

/// 42883 unless values of `data_type` can be compared for equality (GROUP BY, DISTINCT).
pub(super) fn require_equality(data_type: DataType) -> Result<(), BindError> {
    if data_type == DataType::Json {
        return Err(BindError::undefined_function(
            "could not identify an equality operator for type json",
        ));
    }
    Ok(())
}

/// 42883 unless values of `data_type` can be sorted.
pub(super) fn require_ordering(data_type: DataType) -> Result<(), BindError> {
    if data_type == DataType::Json {
        return Err(BindError::undefined_function(
            "could not identify an ordering operator for type json",
        ));
    }
    Ok(())
}

impl Binder<'_> {
    /// `doc - key` and `doc - index` for a jsonb `doc` (both operands bound): PostgreSQL's
    /// `jsonb - text` and `jsonb - integer`; an untyped key is text, anything else 42883.
    pub(super) fn bind_jsonb_minus(
        &mut self,
        document: Expr,
        key: Expr,
        key_ast: &ast::Expr,
    ) -> Result<Expr, BindError> {
        let key = self.type_if_untyped(key, key_ast, DataType::Text(None))?;
        if key.data_type() == TEXT_ARRAY {
            return self.call_scalar("jsonb_delete_keys", vec![document, key]);
        }
        if !matches!(
            key.data_type(),
            DataType::Text(_) | DataType::Integer | DataType::Null
        ) {
            return Err(BindError::undefined_function(format!(
                "operator does not exist: jsonb - {}",
                key.data_type().name()
            )));
        }
        self.call_scalar("jsonb_delete", vec![document, key])
    }

    /// `a || b` where an operand is json or jsonb (both bound), or `None` when it is text
    /// concatenation after all. jsonb with jsonb (an untyped operand is jsonb, as PostgreSQL
    /// resolves it) is `jsonb_concat`; json or jsonb with text is text concatenation, as
    /// PostgreSQL's `anynonarray || text` (for json an untyped operand is text too); any
    /// other pairing (`json || json`, `jsonb || integer`) is 42883.
    pub(super) fn bind_jsonb_concat(
        &mut self,
        (left, left_ast): (&Expr, &ast::Expr),
        (right, right_ast): (&Expr, &ast::Expr),
    ) -> Result<Option<Expr>, BindError> {
        let is_text = |expr: &Expr, ast: &ast::Expr| {
            !is_untyped(ast) && matches!(expr.data_type(), DataType::Text(_))
        };
        if is_text(left, left_ast) || is_text(right, right_ast) {
            return Ok(None);
        }
        let jsonb = left.data_type() == DataType::Jsonb || right.data_type() == DataType::Jsonb;
        if !jsonb && (is_untyped(left_ast) || is_untyped(right_ast)) {
            return Ok(None);
        }
        let left_typed = self.type_if_untyped(left.clone(), left_ast, DataType::Jsonb)?;
        let right_typed = self.type_if_untyped(right.clone(), right_ast, DataType::Jsonb)?;
        for operand in [&left_typed, &right_typed] {
            if !matches!(operand.data_type(), DataType::Jsonb | DataType::Null) {
                return Err(BindError::undefined_function(format!(
                    "operator does not exist: {} || {}",
                    operand_type_name(left, left_ast),
                    operand_type_name(right, right_ast)
                )));
            }
        }
        self.call_scalar("jsonb_concat", vec![left_typed, right_typed])
            .map(Some)
    }
}

/// The jsonpath functions' parameter names, in order (PostgreSQL's: `vars` defaults to
/// `'{}'`, `silent` to false).
const PATH_PARAMETERS: [&str; 4] = ["target", "path", "vars", "silent"];

/// The functions whose arguments may be named as [`PATH_PARAMETERS`].
fn takes_path_parameters(name: &str) -> bool {
    matches!(
        name,
        "jsonb_path_exists"
            | "jsonb_path_match"
            | "jsonb_path_query"
            | "jsonb_path_query_array"
            | "jsonb_path_query_first"
    )
}

/// The arguments of a jsonpath function call with named arguments (`silent => true`) put in
/// positional order, a left-out `vars` as `'{}'`; `None` when the call is not to such a
/// function or names no argument. A name it does not have, a name given twice or a
/// positional argument after a named one is an error, as in PostgreSQL.
pub(super) fn positional_path_arguments(
    name: &str,
    args: &[ast::FunctionArg],
) -> Result<Option<Vec<ast::FunctionArg>>, BindError> {
    let named = |arg: &ast::FunctionArg| {
        matches!(
            arg,
            ast::FunctionArg::Named { .. } | ast::FunctionArg::ExprNamed { .. }
        )
    };
    if !takes_path_parameters(name) || !args.iter().any(named) {
        return Ok(None);
    }
    let mut slots: [Option<ast::Expr>; 4] = [None, None, None, None];
    let mut seen_named = false;
    for (position, arg) in args.iter().enumerate() {
        let (parameter, value) = match arg {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(value)) => {
                if seen_named {
                    return Err(BindError::syntax(
                        "positional argument cannot follow named argument",
                    ));
                }
                (position, value)
            }
            ast::FunctionArg::Named {
                name: parameter,
                arg: ast::FunctionArgExpr::Expr(value),
                ..
            }
            | ast::FunctionArg::ExprNamed {
                name: ast::Expr::Identifier(parameter),
                arg: ast::FunctionArgExpr::Expr(value),
                ..
            } => {
                seen_named = true;
                let parameter = super::ident_name(parameter);
                let Some(slot) = PATH_PARAMETERS.iter().position(|p| *p == parameter) else {
                    return Err(BindError::undefined_function(format!(
                        "function {name} has no parameter named \"{parameter}\""
                    )));
                };
                (slot, value)
            }
            other => {
                return Err(BindError::unsupported(format!(
                    "argument {other} of {name}"
                )));
            }
        };
        let Some(slot) = slots.get_mut(parameter) else {
            return Err(BindError::undefined_function(format!(
                "function {name} does not take {} arguments",
                args.len()
            )));
        };
        if slot.is_some() {
            return Err(BindError::syntax(format!(
                "argument name \"{}\" used more than once",
                PATH_PARAMETERS[parameter]
            )));
        }
        *slot = Some(value.clone());
    }
    if slots[3].is_some() && slots[2].is_none() {
        slots[2] = Some(ast::Expr::Value(
            ast::Value::SingleQuotedString("{}".to_owned()).into(),
        ));
    }
    let count = slots
        .iter()
        .rposition(Option::is_some)
        .map_or(0, |last| last + 1);
    let mut positional = Vec::with_capacity(count);
    for (slot, parameter) in slots.into_iter().take(count).zip(PATH_PARAMETERS) {
        let Some(value) = slot else {
            return Err(BindError::undefined_function(format!(
                "function {name} needs its argument \"{parameter}\""
            )));
        };
        positional.push(ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(value)));
    }
    Ok(Some(positional))
}
