//! The binder: turns a parsed statement (sqlparser's AST) into a bound [`Bound`] statement,
//! resolving every name against a [`Catalog`] snapshot and giving every expression a type.
//!
//! It sits between parsing (`crate::sql`) and the optimizer/executor: its output has no
//! names left to resolve (columns are positions, functions are registry entries), every
//! implicit conversion is an explicit [`crate::plan::Expr::Cast`], and plans are the
//! straightforward translation of the SQL (left-deep nested-loop joins, filters above full
//! scans) that the optimizer then rewrites. Semantics are PostgreSQL's, with the SQLite forms
//! the sqllogictest corpus uses accepted; errors carry PostgreSQL's SQLSTATEs
//! ([`BindError`]). The binder never panics, whatever the input.
//!
//! Layout: [`scope`] (name resolution), [`expr`], [`predicate`] and [`function`] (scalar
//! expressions), [`aggregate`]
//! (aggregate calls and the rewrite over an Aggregate node), [`select`] and [`query`]
//! (queries), [`recursive`] (WITH RECURSIVE), [`from`] (FROM items and joins) with
//! [`table_function`] and [`system`] (the catalog as relations), [`grouping_sets`] (GROUPING
//! SETS, ROLLUP, CUBE), [`dml`], [`ddl`] with [`foreign_key`] and [`trigger`] (with
//! [`instead_of`]), [`types`] (type rules and functions), and [`window`] (window calls and the
//! Window nodes over a query level).

mod aggregate;
mod alter_column;
mod array;
mod collate;
mod column;
mod composite;
mod cursor;
mod ddl;
mod dml;
mod error;
mod expr;
mod foreign_key;
mod from;
mod function;
mod grouping_sets;
mod instead_of;
mod json;
mod operators;
mod ordered_set;
mod parameters;
pub(crate) mod pg_catalog;
mod predicate;
mod query;
mod rank_fusion;
mod recursive;
pub mod rewrite;
mod scope;
mod select;
mod sequence;
mod set_returning;
mod system;
mod table_function;
mod temporal;
#[cfg(test)]
mod tests;
mod text_search;
mod transaction;
mod trigger;
mod types;
mod window;

use std::rc::Rc;

use sqlparser::ast;

use crate::catalog::{Catalog, TableDef};
use crate::plan::ddl::DdlStatement;
use crate::plan::{Bound, BoundStatement, Expr, OutputColumn, ParameterInfo, PlanNode};
use crate::sqlstate;
use crate::types::DataType;

pub use error::BindError;
use parameters::PlaceholderNumbering;
use scope::Scope;
pub use trigger::{TriggerRow, bind_trigger_program, duplicate_trigger_error, trigger_row};

/// Binds one parsed statement against `catalog`.
pub fn bind(statement: &ast::Statement, catalog: &Catalog) -> Result<Bound, BindError> {
    bind_with(statement, catalog, false)
}

/// Binds a statement of a trigger program, where SQLite's `RAISE(...)` is allowed.
pub(crate) fn bind_trigger_statement(
    statement: &ast::Statement,
    catalog: &Catalog,
) -> Result<Bound, BindError> {
    bind_with(statement, catalog, true)
}

fn bind_with(
    statement: &ast::Statement,
    catalog: &Catalog,
    in_trigger: bool,
) -> Result<Bound, BindError> {
    let mut binder = Binder::new(catalog);
    binder.in_trigger = in_trigger;
    binder.placeholders = PlaceholderNumbering::of(statement)?;
    let statement = binder.bind_statement(statement)?;
    Ok(Bound {
        statement,
        parameters: binder.parameters,
    })
}

/// Binds a column's stored DEFAULT expression (SQL text from [`ColumnDef::default`]),
/// converted to the column's type `data_type`. The result reads no columns or parameters.
///
/// [`ColumnDef::default`]: crate::catalog::ColumnDef::default
pub fn bind_column_default(
    sql: &str,
    data_type: DataType,
    table: &TableDef,
    catalog: &Catalog,
) -> Result<Expr, BindError> {
    let ast = parse_stored_expr(sql)?;
    let mut binder = Binder::new(catalog);
    binder.aggregates = aggregate::AggregateContext::Forbidden("DEFAULT expressions");
    binder.windows = window::WindowContext::Forbidden("DEFAULT expressions");
    let bound = binder.bind_expr(&ast, &Scope::default())?;
    let bound = binder.type_if_untyped(bound, &ast, data_type)?;
    if !types::assignable(bound.data_type(), data_type) {
        return Err(BindError::mismatch(format!(
            "default for a column of table \"{}\" is of type {} but the column is of type {data_type}",
            table.name,
            bound.data_type()
        )));
    }
    if !binder.parameters.is_empty() {
        return Err(BindError::syntax(
            "parameters are not allowed in DEFAULT expressions",
        ));
    }
    Ok(expr::coerce(bound, data_type))
}

/// Binds a stored CHECK constraint (SQL text from [`TableDef::checks`]) as a boolean over the
/// table's row: column `i` of the table is input column `i`.
pub fn bind_table_predicate(
    sql: &str,
    table: &TableDef,
    catalog: &Catalog,
) -> Result<Expr, BindError> {
    let ast = parse_stored_expr(sql)?;
    let mut binder = Binder::new(catalog);
    binder.aggregates = aggregate::AggregateContext::Forbidden("CHECK constraints");
    binder.windows = window::WindowContext::Forbidden("check constraints");
    let scope = table_scope(table);
    let predicate = binder.bind_boolean(&ast, &scope, "CHECK")?;
    if !binder.parameters.is_empty() {
        return Err(BindError::syntax(
            "parameters are not allowed in CHECK constraints",
        ));
    }
    Ok(predicate)
}

/// Binds the generation expression of column `column` of `table` (SQL text from
/// [`crate::catalog::ColumnDef::generated`]) over the table's row, converted to the column's
/// type. Checked as PostgreSQL checks them: no aggregates, window functions or subqueries,
/// only immutable functions (42P17: not `now()`, `random()`, `nextval`), and no other
/// generated column (42P17), so every generated value depends on stored base values only
/// and the order of computing them does not matter.
pub fn bind_generated_column(
    table: &TableDef,
    column: usize,
    catalog: &Catalog,
) -> Result<Expr, BindError> {
    let Some(def) = table.columns.get(column) else {
        return Err(BindError::syntax(
            "generation expression of an unknown column",
        ));
    };
    let Some(sql) = def.generated.as_deref() else {
        return Err(BindError::syntax(format!(
            "column \"{}\" is not a generated column",
            def.name
        )));
    };
    let ast = parse_stored_expr(sql)?;
    let mut binder = Binder::new(catalog);
    binder.aggregates = aggregate::AggregateContext::Forbidden("column generation expressions");
    binder.windows = window::WindowContext::Forbidden("column generation expressions");
    let bound = binder.bind_expr(&ast, &table_scope(table))?;
    let bound = binder.type_if_untyped(bound, &ast, def.data_type)?;
    if !types::assignable(bound.data_type(), def.data_type) {
        return Err(BindError::mismatch(format!(
            "column \"{}\" is of type {} but generation expression is of type {}",
            def.name,
            def.data_type,
            bound.data_type()
        )));
    }
    if !binder.parameters.is_empty() {
        return Err(BindError::syntax(
            "parameters are not allowed in generation expressions",
        ));
    }
    let mut problem = None;
    bound.visit(&mut |expr| {
        if problem.is_some() {
            return;
        }
        problem = match expr {
            Expr::Column { index, .. } => table
                .columns
                .get(*index)
                .filter(|other| other.generated.is_some())
                .map(|other| {
                    BindError::new(
                        sqlstate::INVALID_OBJECT_DEFINITION,
                        format!(
                            "cannot use generated column \"{}\" in column generation expression",
                            other.name
                        ),
                    )
                }),
            Expr::ScalarSubquery { .. } | Expr::Exists { .. } | Expr::InSubquery { .. } => Some(
                BindError::unsupported("a subquery in a column generation expression"),
            ),
            Expr::CurrentTimestamp | Expr::CurrentDate | Expr::Sequence { .. } => {
                Some(BindError::new(
                    sqlstate::INVALID_OBJECT_DEFINITION,
                    "generation expression is not immutable",
                ))
            }
            Expr::Function { function, .. } if function.volatile => Some(BindError::new(
                sqlstate::INVALID_OBJECT_DEFINITION,
                "generation expression is not immutable",
            )),
            _ => None,
        };
    });
    if let Some(problem) = problem {
        return Err(problem);
    }
    Ok(expr::coerce(bound, def.data_type))
}

/// The columns of `table`, qualified by its name.
fn table_scope(table: &TableDef) -> Scope {
    Scope {
        columns: table
            .columns
            .iter()
            .enumerate()
            .map(|(position, column)| scope::ScopeColumn {
                name: column.name.clone(),
                table: Some(table.name.clone()),
                data_type: column.data_type,
                hidden: false,
                source: Some(crate::plan::ColumnSource {
                    table: table.name.clone(),
                    column: position,
                }),
            })
            .collect(),
        star: None,
    }
}

/// How deeply views may nest (a view referring to itself through others would otherwise
/// recurse forever).
const MAX_VIEW_DEPTH: usize = 32;

/// A common table expression visible to the query being bound.
#[derive(Clone, Debug)]
struct CteDefinition {
    name: String,
    column_names: Vec<String>,
    /// Shared, since every reference binds the query again.
    query: Rc<ast::Query>,
    /// How many entries of [`Binder::ctes`] its query sees: the CTEs before it, or in a
    /// WITH RECURSIVE list the whole list (itself and later ones included).
    visible: usize,
    /// Whether it names itself (in a WITH RECURSIVE list): bound as a recursive union.
    recursive: bool,
    /// Set while its query is being bound: a reference to it then is mutual recursion.
    binding: bool,
    /// While the recursive term of this CTE is being bound, its name stands for this
    /// working table.
    working_table: Option<WorkingTable>,
}

/// The working table a recursive CTE's name reads inside its recursive term.
#[derive(Clone, Debug)]
struct WorkingTable {
    /// Its number in the plan (unique within the statement).
    number: usize,
    /// Its columns: the non-recursive term's types, named by the CTE's column list.
    schema: Vec<OutputColumn>,
}

/// The state of one statement's binding.
#[derive(Debug)]
struct Binder<'a> {
    catalog: &'a Catalog,
    parameters: Vec<ParameterInfo>,
    /// The index of every placeholder of the statement, numbered in text order.
    placeholders: PlaceholderNumbering,
    /// Scopes of the enclosing query levels, innermost last (for correlated subqueries).
    outer: Vec<Scope>,
    /// CTEs in scope, innermost last.
    ctes: Vec<CteDefinition>,
    /// Aggregate calls of the query level being bound, when aggregates are allowed here;
    /// `None` with the reason when they are not.
    aggregates: aggregate::AggregateContext,
    /// Window calls of the query level being bound, when they are allowed here.
    windows: window::WindowContext,
    /// The WINDOW clause of the SELECT being bound.
    named_windows: Vec<ast::NamedWindowDefinition>,
    /// Arguments of the `GROUPING(...)` calls of the query level being bound (see
    /// `grouping_sets`).
    grouping_calls: Vec<Vec<Expr>>,
    /// Binding a trigger program's statement: `RAISE(...)` is allowed.
    in_trigger: bool,
    view_depth: usize,
    /// Working tables numbered so far (each bound recursive CTE reference takes one).
    working_tables: usize,
}

impl<'a> Binder<'a> {
    fn new(catalog: &'a Catalog) -> Binder<'a> {
        Binder {
            catalog,
            parameters: Vec::new(),
            placeholders: PlaceholderNumbering::default(),
            outer: Vec::new(),
            ctes: Vec::new(),
            aggregates: aggregate::AggregateContext::Forbidden("this context"),
            windows: window::WindowContext::Forbidden("this context"),
            named_windows: Vec::new(),
            grouping_calls: Vec::new(),
            in_trigger: false,
            view_depth: 0,
            working_tables: 0,
        }
    }

    fn bind_statement(&mut self, statement: &ast::Statement) -> Result<BoundStatement, BindError> {
        if let Some(view) = instead_of::target_view(statement)
            && self.is_view(view)
        {
            return Ok(BoundStatement::InsteadOf(
                self.bind_view_modification(statement, view)?,
            ));
        }
        match statement {
            ast::Statement::Query(query) => Ok(BoundStatement::Query(self.bind_query(query)?)),
            ast::Statement::Insert(insert) => Ok(BoundStatement::Modify(self.bind_insert(insert)?)),
            ast::Statement::Update(update) => Ok(BoundStatement::Modify(self.bind_update(update)?)),
            ast::Statement::Delete(delete) => Ok(BoundStatement::Modify(self.bind_delete(delete)?)),
            ast::Statement::Explain {
                analyze,
                verbose,
                statement,
                options,
                ..
            } => {
                let (analyze, verbose) = explain_options(*analyze, *verbose, options.as_deref())?;
                match self.bind_statement(statement)? {
                    BoundStatement::Query(plan) | BoundStatement::Modify(plan) => {
                        Ok(BoundStatement::Explain {
                            plan,
                            analyze,
                            verbose,
                        })
                    }
                    _ => Err(BindError::unsupported("EXPLAIN of a DDL statement")),
                }
            }
            ast::Statement::Declare { stmts } => Ok(BoundStatement::Ddl(DdlStatement::Cursor(
                self.bind_declare(stmts)?,
            ))),
            ast::Statement::Fetch {
                name,
                direction,
                into,
                ..
            } => Ok(BoundStatement::Ddl(DdlStatement::Cursor(self.bind_fetch(
                name,
                direction,
                into.as_ref(),
            )?))),
            ast::Statement::Close { cursor } => Ok(BoundStatement::Ddl(DdlStatement::Cursor(
                self.bind_close(cursor),
            ))),
            other => Ok(BoundStatement::Ddl(self.bind_ddl(other)?)),
        }
    }

    /// Records a use of parameter `index` with the type its context expects; the first
    /// context that gives a type wins.
    fn use_parameter(&mut self, index: usize, name: Option<String>, data_type: DataType) {
        while self.parameters.len() <= index {
            self.parameters.push(ParameterInfo {
                name: None,
                data_type: DataType::Null,
            });
        }
        let info = &mut self.parameters[index];
        if info.name.is_none() {
            info.name = name;
        }
        if info.data_type == DataType::Null {
            info.data_type = data_type;
        }
    }

    /// The index of the placeholder `text` at `location` (see [`parameters`]).
    fn parameter_index(
        &mut self,
        text: &str,
        location: sqlparser::tokenizer::Location,
    ) -> Result<(usize, Option<String>), BindError> {
        let next_free = self.parameters.len();
        self.placeholders.index(text, location, next_free)
    }
}

/// Parses stored SQL (a view's query, a column default) back into an AST.
fn parse_stored_query(sql: &str) -> Result<ast::Query, BindError> {
    let statement = crate::sql::parse_one(sql)
        .map_err(|error| BindError::syntax(format!("stored query does not parse: {error}")))?;
    match statement {
        ast::Statement::Query(query) => Ok(*query),
        _ => Err(BindError::syntax("stored query is not a single query")),
    }
}

/// Parses a stored expression (a column default).
fn parse_stored_expr(sql: &str) -> Result<ast::Expr, BindError> {
    let dialect = crate::sql::BasaltDialect::with_brackets();
    crate::sql::tokenize(sql)
        .map_err(|error| sqlparser::parser::ParserError::TokenizerError(error.to_string()))
        .and_then(|tokens| {
            sqlparser::parser::Parser::new(&dialect)
                .with_tokens_with_locations(tokens)
                .parse_expr()
        })
        .map_err(|error| BindError::syntax(format!("stored expression does not parse: {error}")))
}

/// An identifier as a name: unquoted identifiers fold to lower case.
fn ident_name(ident: &ast::Ident) -> String {
    crate::sql::normalize_ident(ident)
}

/// The last part of an object name (schema qualifiers like `main.` are ignored), folded.
fn object_name(name: &ast::ObjectName) -> Result<String, BindError> {
    match name.0.last() {
        Some(ast::ObjectNamePart::Identifier(ident)) => Ok(ident_name(ident)),
        _ => Err(BindError::syntax(format!("invalid name \"{name}\""))),
    }
}

/// A plan node's output as a scope.
fn scope_of(node: &PlanNode) -> Scope {
    Scope::from_schema(&node.schema)
}

/// ANALYZE and VERBOSE of `EXPLAIN [ANALYZE] [VERBOSE]` and of PostgreSQL's option list
/// `EXPLAIN (ANALYZE [bool], VERBOSE [bool], FORMAT TEXT)`. Options Basalt does not have
/// (COSTS, BUFFERS, other formats, ...) are refused rather than silently ignored.
fn explain_options(
    analyze: bool,
    verbose: bool,
    options: Option<&[ast::UtilityOption]>,
) -> Result<(bool, bool), BindError> {
    let (mut analyze, mut verbose) = (analyze, verbose);
    for option in options.unwrap_or_default() {
        let name = option.name.value.to_lowercase();
        let switch = || -> Result<bool, BindError> {
            let Some(arg) = &option.arg else {
                return Ok(true);
            };
            let text = arg.to_string().to_lowercase();
            match text.trim_matches('\'') {
                "true" | "on" | "1" | "yes" => Ok(true),
                "false" | "off" | "0" | "no" => Ok(false),
                _ => Err(BindError::new(
                    sqlstate::INVALID_PARAMETER_VALUE,
                    format!("{name} requires a Boolean value"),
                )),
            }
        };
        match name.as_str() {
            "analyze" => analyze = switch()?,
            "verbose" => verbose = switch()?,
            "format"
                if option
                    .arg
                    .as_ref()
                    .is_some_and(|arg| arg.to_string().eq_ignore_ascii_case("text")) => {}
            "format" | "costs" | "buffers" | "timing" | "summary" | "settings" | "wal"
            | "generic_plan" | "serialize" | "memory" => {
                return Err(BindError::unsupported(format!("EXPLAIN option {name}")));
            }
            _ => {
                return Err(BindError::new(
                    sqlstate::SYNTAX_ERROR,
                    format!("unrecognized EXPLAIN option \"{name}\""),
                ));
            }
        }
    }
    Ok((analyze, verbose))
}
