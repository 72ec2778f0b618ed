//! Table functions in FROM: `generate_series(start, stop[, step])` over integers and
//! `generate_series(start, stop, step interval)` over timestamps, and the registry's
//! set-returning functions (`json_each` ...; bound in `set_returning.rs`), and `rrf(...)`,
//! reciprocal rank fusion of ranked subqueries (`rank_fusion.rs`).
//!
//! A table function is a FROM item whose rows a function computes. Its arguments may read
//! outer queries' columns and parameters, and — LATERAL, implicit for functions as in
//! PostgreSQL — the columns of the FROM items to its left: they are bound over those items'
//! scope, so a name resolves there before it resolves in an outer query. A function that
//! reads them becomes a [`PlanKind::GenerateSeries`] over those items (its arguments
//! evaluated once per row of them); one that does not reads one empty row instead (its
//! arguments evaluated once) and is joined like any other FROM item.
//!
//! Naming follows PostgreSQL: without an alias the item and its column are both called
//! `generate_series`; `AS g` names both `g`; `AS g(n)` names the item `g` and the column `n`.
//! Types: INTEGER arguments (untyped literals and parameters become INTEGER) give an INTEGER
//! column; TIMESTAMP (or DATE, as PostgreSQL resolves it to the timestamp form) start and
//! stop with an INTERVAL step give a TIMESTAMP column — once any argument is a date, a
//! timestamp or an interval, untyped starts and stops are timestamps and an untyped step an
//! interval. Other types are 42883, as there is no such function.

use sqlparser::ast;

use crate::plan::{Expr, JoinKind, OutputColumn, PlanKind, PlanNode};
use crate::sqlstate;
use crate::types::DataType;

use super::aggregate::AggregateContext;
use super::error::BindError;
use super::expr::{coerce, is_untyped};
use super::scope::Scope;
use super::{Binder, ident_name, object_name};

/// A bound table function, and whether its arguments read the lateral row.
pub(super) struct TableFunction {
    /// The function over one empty row (its output: the function's columns), or, when
    /// `lateral`, with a placeholder input the caller replaces by the items to its left.
    pub plan: PlanNode,
    /// The function's own columns.
    pub scope: Scope,
    /// Its arguments read columns of the FROM items to its left (as input columns): it must
    /// be evaluated over the rows of those items.
    pub lateral: bool,
}

impl Binder<'_> {
    /// Binds the table function `name(args) [AS alias]`. `lateral` is the scope of the FROM
    /// items to its left, which the arguments may read.
    pub(super) fn bind_table_function(
        &mut self,
        name: &ast::ObjectName,
        args: &[ast::FunctionArg],
        alias: Option<&ast::TableAlias>,
        with_ordinality: bool,
        lateral: Option<&Scope>,
    ) -> Result<TableFunction, BindError> {
        let mut function = object_name(name)?.to_lowercase();
        // Basalt has no partitioned tables, so a relation's partition ancestors are just
        // itself (PostgreSQL lists the relation first): `unnest(ARRAY[rel::oid])`.
        let ancestors;
        let args = if function == "pg_partition_ancestors" {
            let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(relation))] = args else {
                return Err(BindError::undefined_function(
                    "function pg_partition_ancestors takes one relation",
                ));
            };
            let oid = ast::Expr::Cast {
                kind: ast::CastKind::DoubleColon,
                expr: Box::new(relation.clone()),
                data_type: ast::DataType::Custom(
                    ast::ObjectName::from(vec![ast::Ident::new("oid")]),
                    Vec::new(),
                ),
                format: None,
            };
            ancestors = [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(
                ast::Expr::Array(ast::Array {
                    elem: vec![oid],
                    named: true,
                }),
            ))];
            function = "unnest".to_owned();
            &ancestors[..]
        } else {
            args
        };
        if with_ordinality {
            if function != "unnest" {
                return Err(BindError::unsupported(format!(
                    "WITH ORDINALITY (other than for unnest) on {function}"
                )));
            }
            function = "$unnest_ordinality".to_owned();
        }
        if function == "rrf" {
            let (plan, scope) = self.bind_rank_fusion(args, alias)?;
            return Ok(TableFunction {
                plan,
                scope,
                lateral: false,
            });
        }
        let positional = super::json::positional_path_arguments(&function, args)?;
        let args = positional.as_deref().unwrap_or(args);
        let mut expressions = Vec::with_capacity(args.len());
        for arg in args {
            match arg {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(expr)) => {
                    expressions.push(expr)
                }
                other => {
                    return Err(BindError::unsupported(format!(
                        "argument {other} of {function}"
                    )));
                }
            }
        }
        if function != "generate_series" {
            return self
                .bind_set_returning_function(&function, &expressions, alias, lateral)?
                .ok_or_else(|| {
                    BindError::undefined_function(format!(
                        "function {function} does not exist as a table function"
                    ))
                });
        }
        // Arguments that read no input column are as valid over one empty row as over the
        // lateral items' rows (a subquery among them sees one level out either way).
        let empty = Scope::default();
        let (bound, column_type, written_types) =
            self.bind_series_arguments(&expressions, lateral.unwrap_or(&empty))?;
        let reads_lateral = bound.iter().any(|expr| reads_level(expr, 0));
        let types: Vec<DataType> = bound.iter().map(Expr::data_type).collect();
        let expected: &[DataType] = match column_type {
            DataType::Timestamp => &[DataType::Timestamp, DataType::Timestamp, DataType::Interval],
            DataType::TimestampTz => &[
                DataType::TimestampTz,
                DataType::TimestampTz,
                DataType::Interval,
            ],
            _ => &[DataType::Integer; 3],
        };
        let arity = if matches!(column_type, DataType::Timestamp | DataType::TimestampTz) {
            3..=3
        } else {
            2..=3
        };
        if !arity.contains(&bound.len())
            || types
                .iter()
                .zip(expected)
                .any(|(t, e)| t.unmodified() != e.unmodified())
        {
            let names: Vec<&str> = written_types.iter().map(|t| t.name()).collect();
            return Err(BindError::undefined_function(format!(
                "function generate_series({}) does not exist",
                names.join(", ")
            )));
        }
        let mut bound = bound.into_iter();
        let (Some(start), Some(stop)) = (bound.next(), bound.next()) else {
            return Err(BindError::syntax(
                "generate_series needs a start and a stop",
            ));
        };
        let step = bound.next();
        let (item_name, column_name) = match alias {
            None => (function.clone(), function.clone()),
            Some(alias) => {
                let item_name = ident_name(&alias.name);
                match alias.columns.as_slice() {
                    [] => (item_name.clone(), item_name),
                    [column] => (item_name, ident_name(&column.name)),
                    columns => {
                        return Err(BindError::new(
                            sqlstate::INVALID_COLUMN_REFERENCE,
                            format!(
                                "table \"{item_name}\" has 1 columns available but {} columns specified",
                                columns.len()
                            ),
                        ));
                    }
                }
            }
        };
        let plan = PlanNode {
            kind: PlanKind::GenerateSeries {
                input: Box::new(PlanNode {
                    kind: PlanKind::SingleRow,
                    schema: Vec::new(),
                }),
                start,
                stop,
                step,
            },
            schema: vec![OutputColumn {
                name: column_name,
                table: Some(item_name),
                data_type: column_type,
                source: None,
            }],
        };
        let scope = Scope::from_schema(&plan.schema);
        Ok(TableFunction {
            plan,
            scope,
            lateral: reads_lateral,
        })
    }

    /// The arguments over `scope`, the series' type, and the arguments' types as written
    /// (for messages; a date's is `date`). The series is TIMESTAMP when an argument is a
    /// date, timestamp or interval (untyped starts and stops then become TIMESTAMP, an untyped
    /// step INTERVAL, and dates their midnights), INTEGER otherwise (untyped ones INTEGER).
    fn bind_series_arguments(
        &mut self,
        args: &[&ast::Expr],
        scope: &Scope,
    ) -> Result<(Vec<Expr>, DataType, Vec<DataType>), BindError> {
        let mut bound = Vec::with_capacity(args.len());
        for &arg in args {
            bound.push(self.bind_expr(arg, scope)?);
        }
        let temporal = bound.iter().zip(args).any(|(expr, &arg)| {
            !is_untyped(arg)
                && matches!(
                    expr.data_type(),
                    DataType::Date
                        | DataType::Timestamp
                        | DataType::TimestampTz
                        | DataType::Interval
                )
        });
        // A timestamptz among the bounds makes the series one of instants, stepping in the
        // session zone; the other bound converts as PostgreSQL's implicit cast does.
        let instant = bound
            .iter()
            .zip(args)
            .any(|(expr, &arg)| !is_untyped(arg) && expr.data_type() == DataType::TimestampTz);
        let point_type = if instant {
            DataType::TimestampTz
        } else {
            DataType::Timestamp
        };
        let mut typed = Vec::with_capacity(bound.len());
        let mut written_types = Vec::with_capacity(bound.len());
        for (position, (expr, &arg)) in bound.into_iter().zip(args).enumerate() {
            let written = expr.data_type();
            let converted = match (temporal, position) {
                (false, _) => self.type_if_untyped(expr, arg, DataType::Integer)?,
                (true, 2) => self.type_if_untyped(expr, arg, DataType::Interval)?,
                (true, _)
                    if matches!(expr.data_type(), DataType::Date | DataType::Timestamp)
                        && expr.data_type() != point_type
                        && !is_untyped(arg) =>
                {
                    coerce(expr, point_type)
                }
                (true, _) => self.type_if_untyped(expr, arg, point_type)?,
            };
            written_types.push(if is_untyped(arg) {
                converted.data_type()
            } else {
                written
            });
            typed.push(converted);
        }
        let column_type = if temporal {
            point_type
        } else {
            DataType::Integer
        };
        Ok((typed, column_type, written_types))
    }
}

/// Whether `expr` reads a column of the row `depth` levels out from where it is evaluated
/// (0: its input row; inside a subquery's plan, one more).
pub(super) fn reads_level(expr: &Expr, depth: usize) -> bool {
    let mut found = false;
    expr.visit(&mut |inner| match inner {
        Expr::Column { .. } if depth == 0 => found = true,
        Expr::OuterColumn { depth: level, .. } if *level == depth => found = true,
        Expr::ScalarSubquery { plan, .. }
        | Expr::Exists { plan, .. }
        | Expr::InSubquery { plan, .. } => {
            plan.visit_exprs(&mut |nested| found |= reads_level(nested, depth + 1));
        }
        _ => {}
    });
    found
}

/// A FROM item bound after the items to its left.
pub(super) enum Placed {
    /// A LATERAL function, already over the items to its left.
    Joined((PlanNode, Scope)),
    /// Anything else: the items to its left (boxed: the variants differ in size) and the
    /// item, to be joined.
    Separate {
        left: Box<(PlanNode, Scope)>,
        right: (PlanNode, Scope),
    },
}

/// The name, arguments, alias and WITH ORDINALITY of a table function call in FROM.
type FunctionCall<'a> = (
    &'a ast::ObjectName,
    &'a [ast::FunctionArg],
    Option<&'a ast::TableAlias>,
    bool,
);

/// sqlparser's `UNNEST(...)` FROM item as the table function call `unnest(...)` it is in
/// PostgreSQL; `None` for any other item (or `WITH OFFSET`, BigQuery's form).
pub(super) fn unnest_as_function(factor: &ast::TableFactor) -> Option<ast::TableFactor> {
    let ast::TableFactor::UNNEST {
        alias,
        array_exprs,
        with_offset: false,
        with_ordinality,
        ..
    } = factor
    else {
        return None;
    };
    Some(ast::TableFactor::Function {
        lateral: false,
        name: ast::ObjectName::from(vec![ast::Ident::new("unnest")]),
        args: array_exprs
            .iter()
            .map(|expr| ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(expr.clone())))
            .collect(),
        with_ordinality: *with_ordinality,
        alias: alias.clone(),
    })
}

/// `factor` as a table function call, if it is one.
fn function_call(factor: &ast::TableFactor) -> Option<FunctionCall<'_>> {
    match factor {
        ast::TableFactor::Table {
            name,
            alias,
            args: Some(args),
            with_ordinality,
            ..
        } => Some((name, &args.args, alias.as_ref(), *with_ordinality)),
        ast::TableFactor::Function {
            name,
            args,
            alias,
            with_ordinality,
            ..
        } => Some((name, args, alias.as_ref(), *with_ordinality)),
        _ => None,
    }
}

impl Binder<'_> {
    /// A table function call in FROM on its own (its arguments read no FROM columns).
    pub(super) fn bind_function_factor(
        &mut self,
        factor: &ast::TableFactor,
    ) -> Option<Result<(PlanNode, Scope), BindError>> {
        let (name, args, alias, with_ordinality) = function_call(factor)?;
        Some(
            self.bind_table_function(name, args, alias, with_ordinality, None)
                .map(|function| (function.plan, function.scope)),
        )
    }

    /// Binds `factor`, a FROM item after the items `left`: a table function whose arguments
    /// read `left`'s columns becomes a series over `left`'s rows.
    pub(super) fn bind_after(
        &mut self,
        factor: &ast::TableFactor,
        left: (PlanNode, Scope),
    ) -> Result<Placed, BindError> {
        if let Some(function) = unnest_as_function(factor) {
            return self.bind_after(&function, left);
        }
        if let ast::TableFactor::Derived {
            lateral: true,
            subquery,
            alias,
            ..
        } = factor
        {
            return self.bind_lateral_subquery(subquery, alias.as_ref(), left);
        }
        let Some((name, args, alias, with_ordinality)) = function_call(factor) else {
            let right = self.bind_table_factor(factor)?;
            return Ok(Placed::Separate {
                left: Box::new(left),
                right,
            });
        };
        if object_name(name)?.eq_ignore_ascii_case("rrf") && !with_ordinality {
            return self.bind_rank_fusion_after(args, alias, left);
        }
        let function =
            self.bind_table_function(name, args, alias, with_ordinality, Some(&left.1))?;
        if !function.lateral {
            return Ok(Placed::Separate {
                left: Box::new(left),
                right: (function.plan, function.scope),
            });
        }
        let (left_plan, left_scope) = left;
        for column in &function.scope.columns {
            if let Some(table) = &column.table
                && left_scope.has_table(table)
            {
                return Err(BindError::new(
                    sqlstate::DUPLICATE_ALIAS,
                    format!("table name \"{table}\" specified more than once"),
                ));
            }
        }
        let mut kind = function.plan.kind;
        if let PlanKind::GenerateSeries { input, .. } | PlanKind::FunctionScan { input, .. } =
            &mut kind
        {
            **input = left_plan;
        }
        let left_width = left_scope.columns.len();
        let mut scope = left_scope;
        let star = scope.star.take().map(|mut positions| {
            positions.extend(left_width..left_width + function.scope.columns.len());
            positions
        });
        scope.columns.extend(function.scope.columns);
        scope.star = star;
        let plan = PlanNode {
            kind,
            schema: super::from::schema_of(&scope),
        };
        Ok(Placed::Joined((plan, scope)))
    }

    /// `LATERAL (subquery) [AS alias]` after the items `left`: the subquery is bound with
    /// `left`'s columns as its innermost outer scope, and runs once per left row
    /// ([`PlanKind::LateralSubquery`]).
    fn bind_lateral_subquery(
        &mut self,
        subquery: &ast::Query,
        alias: Option<&ast::TableAlias>,
        left: (PlanNode, Scope),
    ) -> Result<Placed, BindError> {
        let (left_plan, left_scope) = left;
        self.outer.push(left_scope.clone());
        let bound = self.bind_query(subquery);
        self.outer.pop();
        let (subquery_plan, subquery_scope) = self.derived_item(bound?, alias)?;
        lateral_join((left_plan, left_scope), (subquery_plan, subquery_scope))
    }

    /// `rrf(...)` after the items `left`. As in PostgreSQL, a function in FROM is LATERAL:
    /// a branch may read the left items' columns (one fusion per left row, e.g. a batch of
    /// queries from a table). One that reads none is bound again without them, as an
    /// ordinary FROM item (its outer references then count one level fewer).
    fn bind_rank_fusion_after(
        &mut self,
        args: &[ast::FunctionArg],
        alias: Option<&ast::TableAlias>,
        left: (PlanNode, Scope),
    ) -> Result<Placed, BindError> {
        self.outer.push(left.1.clone());
        let bound = self.bind_rank_fusion(args, alias);
        self.outer.pop();
        let (plan, scope) = bound?;
        let mut reads_left = false;
        plan.visit_exprs(&mut |expr| reads_left |= reads_level(expr, 1));
        if reads_left {
            return lateral_join(left, (plan, scope));
        }
        let right = self.bind_rank_fusion(args, alias)?;
        Ok(Placed::Separate {
            left: Box::new(left),
            right,
        })
    }

    /// The join condition of a LATERAL item joined by `kind`: for inner joins the condition
    /// filters the pairs; a LATERAL subquery may also be LEFT joined, keeping left rows
    /// without a passing pair once, with NULLs.
    pub(super) fn lateral_condition(
        &mut self,
        (plan, scope): (PlanNode, Scope),
        kind: JoinKind,
        constraint: &ast::JoinConstraint,
    ) -> Result<(PlanNode, Scope), BindError> {
        if kind == JoinKind::Left
            && let PlanKind::LateralSubquery {
                input,
                subquery,
                outer: false,
                condition: None,
            } = plan.kind
        {
            let condition = match constraint {
                ast::JoinConstraint::On(condition) => {
                    self.aggregates = AggregateContext::Forbidden("JOIN conditions");
                    Some(self.bind_boolean(condition, &scope, "JOIN/ON")?)
                }
                ast::JoinConstraint::None => None,
                _ => {
                    return Err(BindError::unsupported(
                        "USING or NATURAL with a LATERAL subquery",
                    ));
                }
            };
            let plan = PlanNode {
                kind: PlanKind::LateralSubquery {
                    input,
                    subquery,
                    outer: true,
                    condition,
                },
                schema: plan.schema,
            };
            return Ok((plan, scope));
        }
        if matches!(kind, JoinKind::Right | JoinKind::Full) {
            // PostgreSQL's error and code (42P10): the LATERAL item reads the rows of an
            // item that a RIGHT or FULL join would have to null-extend.
            return Err(BindError::new(
                sqlstate::INVALID_COLUMN_REFERENCE,
                "invalid reference to FROM-clause entry from a LATERAL item: the combining \
                 JOIN type must be INNER or LEFT for a LATERAL reference",
            ));
        }
        if kind != JoinKind::Inner {
            return Err(BindError::unsupported(format!(
                "{kind:?} JOIN of a LATERAL item (only inner and LEFT joins)"
            )));
        }
        match constraint {
            ast::JoinConstraint::None => Ok((plan, scope)),
            ast::JoinConstraint::On(condition) => {
                self.aggregates = AggregateContext::Forbidden("JOIN conditions");
                let predicate = self.bind_boolean(condition, &scope, "JOIN/ON")?;
                let plan = PlanNode {
                    schema: plan.schema.clone(),
                    kind: PlanKind::Filter {
                        input: Box::new(plan),
                        predicate,
                    },
                };
                Ok((plan, scope))
            }
            _ => Err(BindError::unsupported(
                "USING or NATURAL with a LATERAL function",
            )),
        }
    }
}

/// The items `left` joined with `right`, a subquery that runs once per left row (its
/// references to the left items are outer columns): a [`PlanKind::LateralSubquery`].
fn lateral_join(
    (left_plan, left_scope): (PlanNode, Scope),
    (subquery_plan, subquery_scope): (PlanNode, Scope),
) -> Result<Placed, BindError> {
    for column in &subquery_scope.columns {
        if let Some(table) = &column.table
            && left_scope.has_table(table)
        {
            return Err(BindError::new(
                sqlstate::DUPLICATE_ALIAS,
                format!("table name \"{table}\" specified more than once"),
            ));
        }
    }
    let left_width = left_scope.columns.len();
    let mut scope = left_scope;
    let star = scope.star.take().map(|mut positions| {
        positions.extend(left_width..left_width + subquery_scope.columns.len());
        positions
    });
    scope.columns.extend(subquery_scope.columns);
    scope.star = star;
    let plan = PlanNode {
        kind: PlanKind::LateralSubquery {
            input: Box::new(left_plan),
            subquery: Box::new(subquery_plan),
            outer: false,
            condition: None,
        },
        schema: super::from::schema_of(&scope),
    };
    Ok(Placed::Joined((plan, scope)))
}
