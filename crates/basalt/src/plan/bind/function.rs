//! Function calls: the special forms (COALESCE, NULLIF, IIF, now(), multi-argument min/max)
//! desugared to plan expressions, aggregates handed to `aggregate.rs`, window calls (with
//! OVER) to `window.rs`, and everything else
//! resolved through the scalar-function registry (`types.rs`).

use sqlparser::ast;

use crate::plan::expr::{BinaryOp, Expr, UnaryOp};
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::Binder;
use super::error::BindError;
use super::expr::binary;
use super::scope::Scope;
use super::types::resolve_function;

/// What `CURRENT_USER`, `SESSION_USER`, `USER` and `CURRENT_ROLE` return. Basalt has no
/// roles and the session does not know who connected (the server takes a user name at
/// startup but does not check it), so every session is this one fixed user.
pub(super) const SESSION_USER: &str = "basalt";

/// What `CURRENT_SCHEMA` and `current_schema()` return: Basalt has the one schema, which
/// PostgreSQL would call `public`.
pub(super) const CURRENT_SCHEMA: &str = "public";

/// What `current_database()` and `CURRENT_CATALOG` return. A Basalt database is a file, not
/// one of a server's named databases, and the same file may be opened under any path, so
/// the name is fixed rather than taken from the path (docs/sql.md).
pub(super) const DATABASE_NAME: &str = "basalt";

/// A function call's arguments as written.
pub(super) struct CallArguments<'q> {
    pub args: Vec<&'q ast::FunctionArgExpr>,
    pub distinct: bool,
    /// `agg(x ORDER BY ...)`: the order an aggregate takes its rows in.
    pub order_by: &'q [ast::OrderByExpr],
    /// `agg(f) WITHIN GROUP (ORDER BY x)`: an ordered-set aggregate's sorted argument.
    pub within_group: &'q [ast::OrderByExpr],
}

/// Splits a call's argument list, rejecting forms Basalt does not support.
pub(super) fn call_arguments(function: &ast::Function) -> Result<CallArguments<'_>, BindError> {
    match &function.args {
        ast::FunctionArguments::None => Ok(CallArguments {
            args: Vec::new(),
            distinct: false,
            order_by: &[],
            within_group: &function.within_group,
        }),
        ast::FunctionArguments::Subquery(_) => Err(BindError::unsupported(
            "a subquery as function argument list",
        )),
        ast::FunctionArguments::List(list) => {
            let mut order_by: &[ast::OrderByExpr] = &[];
            for clause in &list.clauses {
                match clause {
                    ast::FunctionArgumentClause::OrderBy(keys) if order_by.is_empty() => {
                        order_by = keys;
                    }
                    _ => {
                        return Err(BindError::unsupported(format!(
                            "function clauses in {function}"
                        )));
                    }
                }
            }
            let mut args = Vec::with_capacity(list.args.len());
            for arg in &list.args {
                match arg {
                    ast::FunctionArg::Unnamed(arg) => args.push(arg),
                    _ => return Err(BindError::unsupported("named function arguments")),
                }
            }
            let distinct = matches!(
                list.duplicate_treatment,
                Some(ast::DuplicateTreatment::Distinct)
            );
            // PostgreSQL's grammar refuses these combinations (42601).
            if !function.within_group.is_empty() && distinct {
                return Err(BindError::syntax("cannot use DISTINCT with WITHIN GROUP"));
            }
            if !function.within_group.is_empty() && !order_by.is_empty() {
                return Err(BindError::syntax(
                    "cannot use multiple ORDER BY clauses with WITHIN GROUP",
                ));
            }
            Ok(CallArguments {
                args,
                distinct,
                order_by,
                within_group: &function.within_group,
            })
        }
    }
}

/// The value of PostgreSQL's session keywords that sqlparser parses as calls: `CURRENT_USER`,
/// `SESSION_USER`, `USER` (keywords only, as in PostgreSQL: with parentheses they are ordinary
/// function names, which do not exist), `CURRENT_CATALOG`, `current_schema()` and
/// `current_database()`.
fn session_value(name: &str, function: &ast::Function) -> Option<&'static str> {
    let keyword = matches!(function.args, ast::FunctionArguments::None);
    let no_arguments = match &function.args {
        ast::FunctionArguments::None => true,
        ast::FunctionArguments::List(list) => list.args.is_empty() && list.clauses.is_empty(),
        ast::FunctionArguments::Subquery(_) => false,
    };
    let plain = function.filter.is_none() && function.over.is_none();
    match name {
        "current_user" | "session_user" | "user" if keyword && plain => Some(SESSION_USER),
        "current_schema" if no_arguments && plain => Some(CURRENT_SCHEMA),
        "current_database" if no_arguments && !keyword && plain => Some(DATABASE_NAME),
        "current_catalog" if keyword && plain => Some(DATABASE_NAME),
        _ => None,
    }
}

/// The value of an unquoted identifier that PostgreSQL reads as a session keyword
/// (`CURRENT_SCHEMA`, `CURRENT_ROLE`; sqlparser parses the others as function calls).
pub(super) fn keyword_identifier_value(ident: &ast::Ident) -> Option<&'static str> {
    if ident.quote_style.is_some() {
        return None;
    }
    if ident.value.eq_ignore_ascii_case("current_schema") {
        Some(CURRENT_SCHEMA)
    } else if ident.value.eq_ignore_ascii_case("current_role") {
        Some(SESSION_USER)
    } else {
        None
    }
}

/// The expression of an argument, 42601 for `*` where an expression is needed.
/// The argument expressions of a call to `name`, which is not an aggregate: DISTINCT,
/// ORDER BY and FILTER are errors (42809), as is `*`.
pub(super) fn non_aggregate_arguments<'q>(
    call: &CallArguments<'q>,
    has_filter: bool,
    name: &str,
) -> Result<Vec<&'q ast::Expr>, BindError> {
    if call.distinct || has_filter {
        return Err(BindError::new(
            sqlstate::WRONG_OBJECT_TYPE,
            format!("DISTINCT or FILTER specified, but {name} is not an aggregate function"),
        ));
    }
    if !call.order_by.is_empty() {
        return Err(BindError::new(
            sqlstate::WRONG_OBJECT_TYPE,
            format!("ORDER BY specified, but {name} is not an aggregate function"),
        ));
    }
    call.args.iter().map(|arg| arg_expr(arg, name)).collect()
}

pub(super) fn arg_expr<'q>(
    arg: &'q ast::FunctionArgExpr,
    function: &str,
) -> Result<&'q ast::Expr, BindError> {
    match arg {
        ast::FunctionArgExpr::Expr(expr) => Ok(expr),
        _ => Err(BindError::syntax(format!(
            "\"*\" is not allowed as an argument of {function}"
        ))),
    }
}

impl Binder<'_> {
    /// SQLite's `RAISE(ABORT | FAIL | ROLLBACK, message)` in a trigger program: evaluating it
    /// fails the statement with SQLSTATE P0001 (PostgreSQL's `raise_exception`) and the
    /// message, undoing the statement's changes. FAIL and ROLLBACK are treated as ABORT (the
    /// statement's earlier rows are undone too, and an explicit transaction stays open);
    /// `RAISE(IGNORE)`, which skips the rest of the row's processing, is not supported.
    fn bind_raise(&mut self, args: &[&ast::Expr], scope: &Scope) -> Result<Expr, BindError> {
        if !self.in_trigger {
            return Err(BindError::syntax(
                "RAISE() may only be used within a trigger program",
            ));
        }
        let action = match args.first() {
            Some(ast::Expr::Identifier(word)) => word.value.to_ascii_uppercase(),
            _ => String::new(),
        };
        match (action.as_str(), args.len()) {
            ("ABORT" | "FAIL" | "ROLLBACK", 2) => {}
            ("IGNORE", 1) => return Err(BindError::unsupported("RAISE(IGNORE)")),
            _ => {
                return Err(BindError::syntax(
                    "RAISE takes IGNORE, or ABORT, FAIL or ROLLBACK and a message",
                ));
            }
        }
        let message = self.bind_expr(args[1], scope)?;
        let message = self.type_if_untyped(message, args[1], DataType::Text(None))?;
        let Some(resolved) = super::types::resolve_function("raise", &[message.data_type()])?
        else {
            return Err(BindError::undefined_function(
                "function raise does not exist",
            ));
        };
        Ok(Expr::Function {
            function: resolved.function,
            args: vec![message],
            data_type: resolved.data_type,
        })
    }

    pub(super) fn bind_function(
        &mut self,
        function: &ast::Function,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let name = super::object_name(&function.name)?;
        if let ast::FunctionArguments::List(list) = &function.args
            && let Some(args) =
                super::json::positional_path_arguments(&name.to_lowercase(), &list.args)?
        {
            // `jsonb_path_exists(doc, path, silent => true)`: bound as the positional call.
            let mut positional = function.clone();
            if let ast::FunctionArguments::List(list) = &mut positional.args {
                list.args = args;
            }
            return self.bind_function(&positional, scope);
        }
        if function.over.is_some() && super::ordered_set::is_ordered_set(&name) {
            return Err(BindError::new(
                sqlstate::FEATURE_NOT_SUPPORTED,
                format!("OVER is not supported for ordered-set aggregate {name}"),
            ));
        }
        if !function.within_group.is_empty()
            && matches!(
                name.as_str(),
                "rank" | "dense_rank" | "percent_rank" | "cume_dist"
            )
        {
            return Err(BindError::unsupported(format!(
                "the hypothetical-set aggregate {name}(...) WITHIN GROUP"
            )));
        }
        if !function.within_group.is_empty() && !super::ordered_set::is_ordered_set(&name) {
            // PostgreSQL looks for a function taking the direct and the sorted arguments
            // together, and finds none.
            return Err(BindError::undefined_function(format!(
                "function {name} is not an ordered-set aggregate, so it cannot have WITHIN GROUP"
            )));
        }
        if let Some(over) = &function.over {
            return self.bind_window_call(&name, function, over, scope);
        }
        if super::window::is_window_only(&name) {
            return Err(BindError::new(
                sqlstate::WRONG_OBJECT_TYPE,
                format!("window function {name} requires an OVER clause"),
            ));
        }
        if let ast::FunctionArguments::Subquery(query) = &function.args
            && name == "array"
        {
            return self.bind_array_subquery(query, scope);
        }
        let call = call_arguments(function)?;
        if let Some(value) = session_value(&name, function) {
            return Ok(Expr::literal(Value::Text(value.to_owned())));
        }
        if name.eq_ignore_ascii_case("raise") {
            let asts = non_aggregate_arguments(&call, function.filter.is_some(), &name)?;
            return self.bind_raise(&asts, scope);
        }
        if name.eq_ignore_ascii_case("grouping") {
            let asts = non_aggregate_arguments(&call, function.filter.is_some(), &name)?;
            return self.bind_grouping_call(&asts, scope);
        }
        if super::aggregate::is_aggregate(&name, call.args.len()) {
            return self.bind_aggregate(&name, &call, function.filter.as_deref(), scope);
        }
        let asts = non_aggregate_arguments(&call, function.filter.is_some(), &name)?;
        if let Some(call) = self.bind_pg_catalog_call(&name, &asts, scope) {
            return call;
        }
        if let Some(ast::Expr::Tuple(items)) = asts.first()
            && super::text_search::takes_document(&name)
        {
            return self.bind_full_text_row(&name, items, &asts[1..], scope);
        }
        let mut bound = Vec::with_capacity(asts.len());
        for (position, ast) in asts.iter().enumerate() {
            if position == 0
                && let Some(sequence) = self.serial_sequence_argument(&name, ast)
            {
                bound.push(Expr::literal(Value::Text(sequence)));
                continue;
            }
            let ast = match position {
                0 => super::sequence::regclass_operand(&name, ast),
                _ => ast,
            };
            bound.push(self.bind_expr(ast, scope)?);
        }
        let arity = |expected: std::ops::RangeInclusive<usize>| {
            if expected.contains(&asts.len()) {
                Ok(())
            } else {
                Err(BindError::undefined_function(format!(
                    "function {name} does not take {} arguments",
                    asts.len()
                )))
            }
        };
        if let Some(call) = self.bind_sequence_call(&name, &mut bound) {
            return call;
        }
        if name == super::text_search::BM25_SCORE {
            let mut bound = bound.into_iter();
            let (Some(column), Some(query), None) = (bound.next(), bound.next(), bound.next())
            else {
                return Err(BindError::undefined_function(format!(
                    "function {name} takes two arguments, a text column (or a row of them) \
                     and a query"
                )));
            };
            return self.bind_bm25_score(vec![column], (query, asts[1]), scope);
        }
        match name.as_str() {
            "coalesce" | "ifnull" => {
                arity(if name == "ifnull" {
                    2..=2
                } else {
                    1..=usize::MAX
                })?;
                let (args, data_type) =
                    self.unify_list(bound.into_iter().zip(asts).collect(), "COALESCE")?;
                Ok(Expr::Coalesce { args, data_type })
            }
            "nullif" => {
                arity(2..=2)?;
                let mut bound = bound.into_iter();
                let (Some(left), Some(right)) = (bound.next(), bound.next()) else {
                    return Err(BindError::syntax("nullif needs two arguments"));
                };
                let data_type = left.data_type();
                let (left, right) = self.unify_pair(left, asts[0], right, asts[1], "=")?;
                // NULLIF(a, b) is CASE WHEN a = b THEN NULL ELSE a END, typed as `a`.
                let result = super::expr::coerce(left.clone(), data_type);
                let data_type = result.data_type();
                Ok(Expr::Case {
                    operand: None,
                    branches: vec![(
                        binary(BinaryOp::Equal, left, right, DataType::Boolean),
                        Expr::Literal {
                            value: Value::Null,
                            data_type,
                        },
                    )],
                    else_result: Some(Box::new(result)),
                    data_type,
                })
            }
            "iif" => {
                arity(3..=3)?;
                let mut bound = bound.into_iter();
                let (Some(condition), Some(then), Some(otherwise)) =
                    (bound.next(), bound.next(), bound.next())
                else {
                    return Err(BindError::syntax("iif needs three arguments"));
                };
                let condition = self.as_boolean(condition, asts[0], "IIF")?;
                let (mut results, data_type) =
                    self.unify_list(vec![(then, asts[1]), (otherwise, asts[2])], "IIF")?;
                let otherwise = results.pop();
                let then = results.pop();
                match (then, otherwise) {
                    (Some(then), Some(otherwise)) => Ok(Expr::Case {
                        operand: None,
                        branches: vec![(condition, then)],
                        else_result: Some(Box::new(otherwise)),
                        data_type,
                    }),
                    _ => Err(BindError::syntax("iif needs three arguments")),
                }
            }
            "now" | "current_timestamp" | "transaction_timestamp" | "statement_timestamp" => {
                arity(0..=0)?;
                Ok(Expr::CurrentTimestamp)
            }
            // The session zone's wall-clock time: timestamp without time zone.
            "localtimestamp" => {
                arity(0..=0)?;
                Ok(Expr::Cast {
                    operand: Box::new(Expr::CurrentTimestamp),
                    to: DataType::Timestamp,
                })
            }
            // The session zone's time of day, rounded to the optional precision. PostgreSQL's
            // CURRENT_TIME is a `time with time zone`, which Basalt does not have: here it is
            // LOCALTIME, a `time` (docs/sql.md lists the difference).
            "current_time" | "localtime" => {
                arity(0..=1)?;
                let precision = match bound.first() {
                    None => None,
                    Some(Expr::Literal {
                        value: Value::Integer(p),
                        ..
                    }) if *p >= 0 => Some(
                        u32::try_from(*p)
                            .unwrap_or(u32::MAX)
                            .min(crate::types::time::MAX_PRECISION),
                    ),
                    Some(_) => {
                        return Err(BindError::syntax(format!(
                            "{} takes a precision from 0 to 6",
                            name.to_ascii_uppercase()
                        )));
                    }
                };
                Ok(Expr::Cast {
                    operand: Box::new(Expr::CurrentTimestamp),
                    to: DataType::Time(precision),
                })
            }
            "current_date" => {
                arity(0..=0)?;
                Ok(Expr::CurrentDate)
            }
            "age" => {
                // Untyped arguments are timestamps (PostgreSQL's `age(timestamp, ...)`), and
                // `age(t)` measures from midnight of the current date: the statement's date,
                // which only the executor knows, so it is an argument here.
                arity(1..=2)?;
                let mut args = Vec::with_capacity(2);
                if asts.len() == 1 {
                    args.push(Expr::Cast {
                        operand: Box::new(Expr::CurrentDate),
                        to: DataType::Timestamp,
                    });
                }
                for (bound, ast) in bound.into_iter().zip(asts) {
                    args.push(self.type_if_untyped(bound, ast, DataType::Timestamp)?);
                }
                self.call_scalar("age", args)
            }
            "min" | "max" | "greatest" | "least" => {
                // SQLite's multi-argument min/max are PostgreSQL's least/greatest.
                let name = if matches!(name.as_str(), "max" | "greatest") {
                    "greatest"
                } else {
                    "least"
                };
                let (args, data_type) =
                    self.unify_list(bound.into_iter().zip(asts).collect(), name)?;
                Ok(Expr::Function {
                    function: crate::plan::ScalarFunctionRef {
                        name: name.to_string(),
                        volatile: false,
                    },
                    args,
                    data_type,
                })
            }
            _ if crate::types::array::functions::polymorphic_signature(&name).is_some() => {
                self.call_array_function(&name, bound, &asts)
            }
            _ => {
                let mut call = self.call_registered(&name, bound, &asts)?;
                if let Expr::Function { args, .. } = &mut call {
                    self.add_full_text_options(&name, args, scope);
                }
                Ok(call)
            }
        }
    }

    /// A call of registry function `name` on arguments bound from `asts`. An untyped
    /// argument takes the type of a JSON function's document parameter or a vector function's
    /// vector; otherwise, with nothing else to go on, it is text (NULL stays unknown).
    pub(super) fn call_registered(
        &mut self,
        name: &str,
        bound: Vec<Expr>,
        asts: &[&ast::Expr],
    ) -> Result<Expr, BindError> {
        // PostgreSQL has to_char of numbers, timestamps and intervals: a quoted literal (or
        // NULL) as the value matches more than one of them.
        if name == "to_char" && asts.first().is_some_and(|ast| super::expr::is_untyped(ast)) {
            return Err(BindError::new(
                sqlstate::AMBIGUOUS_FUNCTION,
                format!(
                    "function to_char({}) is not unique",
                    vec!["unknown"; asts.len()].join(", ")
                ),
            ));
        }
        let mut args = Vec::with_capacity(bound.len());
        for (position, (bound, ast)) in bound.into_iter().zip(asts).enumerate() {
            let target = match (
                crate::types::functions::untyped_argument_type(name, position),
                &bound,
            ) {
                (Some(declared), _) if super::expr::is_untyped(ast) => declared,
                (Some(_), _) => DataType::Null,
                (
                    None,
                    Expr::Literal {
                        value: Value::Text(_),
                        ..
                    },
                ) => DataType::Text(None),
                _ => DataType::Null,
            };
            args.push(self.resolve_untyped(bound, ast, target)?);
        }
        self.call_scalar(name, args)
    }

    /// `string ~ pattern` and its case-insensitive (`~*`) and negated (`!~`, `!~*`) forms:
    /// `regexp_like(string, pattern[, 'i'])`, under NOT when negated. Operands must be text
    /// (an untyped literal is taken as text), as PostgreSQL's `text ~ text`.
    pub(super) fn bind_regex_operator(
        &mut self,
        left: &ast::Expr,
        right: &ast::Expr,
        negated: bool,
        insensitive: bool,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let mut args = Vec::with_capacity(3);
        let mut types = Vec::with_capacity(2);
        for operand in [left, right] {
            let bound = self.bind_expr(operand, scope)?;
            types.push(bound.data_type());
            args.push(self.resolve_untyped(bound, operand, DataType::Text(None))?);
        }
        if let [left_type, right_type] = types[..]
            && [left_type, right_type]
                .iter()
                .any(|t| !matches!(t, DataType::Text(_) | DataType::Null))
        {
            let symbol = match (negated, insensitive) {
                (false, false) => "~",
                (false, true) => "~*",
                (true, false) => "!~",
                (true, true) => "!~*",
            };
            return Err(BindError::undefined_function(format!(
                "operator does not exist: {} {symbol} {}",
                left_type.name(),
                right_type.name()
            )));
        }
        if insensitive {
            args.push(Expr::Literal {
                value: Value::Text("i".to_owned()),
                data_type: DataType::Text(None),
            });
        }
        let matched = self.call_scalar("regexp_like", args)?;
        Ok(if negated {
            Expr::Unary {
                op: UnaryOp::Not,
                operand: Box::new(matched),
                data_type: DataType::Boolean,
            }
        } else {
            matched
        })
    }

    /// A call of registry function `name` on bound arguments.
    pub(super) fn call_scalar(&mut self, name: &str, args: Vec<Expr>) -> Result<Expr, BindError> {
        let types: Vec<DataType> = args.iter().map(Expr::data_type).collect();
        match resolve_function(name, &types)? {
            Some(resolved) => Ok(Expr::Function {
                function: resolved.function,
                args,
                data_type: resolved.data_type,
            }),
            None => {
                let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
                Err(BindError::undefined_function(format!(
                    "function {name}({}) does not exist",
                    names.join(", ")
                )))
            }
        }
    }
}
