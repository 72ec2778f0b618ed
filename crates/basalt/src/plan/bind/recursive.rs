//! WITH RECURSIVE: which CTEs are recursive, whether they have the form PostgreSQL accepts,
//! and how one is bound into a [`PlanKind::RecursiveUnion`].
//!
//! A CTE of a `WITH RECURSIVE` list is recursive when its query names it as a table. Such a
//! query must be `non-recursive-term UNION [ALL] recursive-term`, and the self-reference
//! must appear exactly once, in the recursive term, where one evaluation of it reads only
//! the previous evaluation's rows: not in a subquery expression, not on the nullable side of
//! an outer join, not under INTERSECT ALL or EXCEPT, and not at a query level that
//! aggregates. [`recursive_form`] checks all of this on the syntax tree, before anything is
//! bound, following PostgreSQL's `checkWellFormedRecursion` rule for rule and with its
//! SQLSTATEs (42P19, and 0A000 for ORDER BY / LIMIT / OFFSET over the whole union) and
//! messages, so the errors do not depend on the order in which the binder visits things.
//!
//! Binding ([`Binder::bind_recursive_cte`]) then binds the non-recursive term, which fixes
//! the column types (NULL columns become text, as PostgreSQL resolves unknown literals);
//! binds the recursive term with the CTE's name standing for a working table of those
//! columns (a [`PlanKind::WorkingTableScan`] numbered uniquely within the statement); and
//! casts the recursive term's columns to the fixed types — failing, as PostgreSQL does, when
//! a column's type would have to change instead.

use std::ops::ControlFlow;
use std::rc::Rc;
use std::sync::Arc;

use sqlparser::ast::{self, Visit, Visitor};

use crate::plan::{OutputColumn, PlanKind, PlanNode};
use crate::sqlstate;
use crate::types::DataType;

use super::aggregate::is_aggregate;
use super::error::BindError;
use super::query::cast_columns;
use super::types::common_type;
use super::{Binder, CteDefinition, WorkingTable, ident_name, object_name};

/// The two terms of a recursive CTE's query.
pub(super) struct RecursiveForm<'q> {
    pub base: &'q ast::SetExpr,
    pub recursive: &'q ast::SetExpr,
    /// UNION ALL (keep duplicates) rather than UNION.
    pub all: bool,
}

/// Whether `node` names the table `name` anywhere (subqueries included), other than inside
/// a query whose own WITH defines a CTE of that name.
pub(super) fn refers_to(name: &str, node: &impl Visit) -> bool {
    let mut finder = ReferenceFinder {
        name,
        shadowing: Vec::new(),
    };
    node.visit(&mut finder).is_break()
}

struct ReferenceFinder<'a> {
    name: &'a str,
    /// For each query entered, whether its WITH redefines the name.
    shadowing: Vec<bool>,
}

impl Visitor for ReferenceFinder<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &ast::Query) -> ControlFlow<()> {
        let redefines = query.with.as_ref().is_some_and(|with| {
            with.cte_tables
                .iter()
                .any(|cte| ident_name(&cte.alias.name).eq_ignore_ascii_case(self.name))
        });
        self.shadowing.push(redefines);
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _query: &ast::Query) -> ControlFlow<()> {
        self.shadowing.pop();
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &ast::TableFactor) -> ControlFlow<()> {
        if !self.shadowing.contains(&true) && is_reference(factor, self.name) {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

/// Whether a FROM item is the plain table name `name`.
fn is_reference(factor: &ast::TableFactor, name: &str) -> bool {
    match factor {
        ast::TableFactor::Table {
            name: table,
            args: None,
            ..
        } => {
            table.0.len() == 1
                && object_name(table).is_ok_and(|table| table.eq_ignore_ascii_case(name))
        }
        _ => false,
    }
}

/// Whether a SELECT's own expressions (not those of subqueries inside them) call an
/// aggregate function.
fn calls_aggregate(node: &impl Visit) -> bool {
    struct AggregateFinder {
        depth: usize,
    }
    impl Visitor for AggregateFinder {
        type Break = ();
        fn pre_visit_query(&mut self, _query: &ast::Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _query: &ast::Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, expr: &ast::Expr) -> ControlFlow<()> {
            if self.depth == 0
                && let ast::Expr::Function(function) = expr
                && function.over.is_none()
                && let Ok(name) = object_name(&function.name)
            {
                let argument_count = match &function.args {
                    ast::FunctionArguments::List(list) => list.args.len(),
                    _ => 0,
                };
                if is_aggregate(&name.to_lowercase(), argument_count) {
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }
    }
    node.visit(&mut AggregateFinder { depth: 0 }).is_break()
}

/// Where a self-reference would be, as PostgreSQL classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// In the recursive term, where it belongs.
    Allowed,
    NonRecursiveTerm,
    Subquery,
    OuterJoin,
    Intersect,
    Except,
}

impl Place {
    fn error(self, name: &str) -> BindError {
        let within = match self {
            Place::Allowed => "its recursive term more than once",
            Place::NonRecursiveTerm => "its non-recursive term",
            Place::Subquery => "a subquery",
            Place::OuterJoin => "an outer join",
            Place::Intersect => "INTERSECT",
            Place::Except => "EXCEPT",
        };
        let message = if self == Place::Allowed {
            format!("recursive reference to query \"{name}\" must not appear more than once")
        } else {
            format!("recursive reference to query \"{name}\" must not appear within {within}")
        };
        BindError::new(sqlstate::INVALID_RECURSION, message)
    }
}

/// Walks one term, counting self-references and rejecting misplaced ones.
struct FormCheck<'a> {
    name: &'a str,
    place: Place,
    references: usize,
    /// References in the FROM clause of the query level being walked (not in its derived
    /// tables): a level with one may not aggregate.
    level_references: usize,
}

impl FormCheck<'_> {
    fn reference(&mut self) -> Result<(), BindError> {
        if self.place != Place::Allowed {
            return Err(self.place.error(self.name));
        }
        self.references += 1;
        self.level_references += 1;
        if self.references > 1 {
            return Err(Place::Allowed.error(self.name));
        }
        Ok(())
    }

    /// A reference anywhere inside an expression is inside a subquery.
    fn expression(&mut self, node: &impl Visit) -> Result<(), BindError> {
        if refers_to(self.name, node) {
            return Err(Place::Subquery.error(self.name));
        }
        Ok(())
    }

    fn query(&mut self, query: &ast::Query) -> Result<(), BindError> {
        if let Some(with) = &query.with {
            // An inner WITH that redefines the name hides the CTE from this query.
            for cte in &with.cte_tables {
                if ident_name(&cte.alias.name).eq_ignore_ascii_case(self.name) {
                    return Ok(());
                }
                self.query(&cte.query)?;
            }
        }
        self.set_expr(&query.body)?;
        if let Some(order_by) = &query.order_by {
            self.expression(order_by)?;
        }
        if let Some(limit) = &query.limit_clause {
            self.expression(limit)?;
        }
        Ok(())
    }

    fn set_expr(&mut self, body: &ast::SetExpr) -> Result<(), BindError> {
        match body {
            ast::SetExpr::Select(select) => self.select(select),
            ast::SetExpr::Query(query) => self.query(query),
            ast::SetExpr::SetOperation {
                op,
                set_quantifier,
                left,
                right,
            } => {
                let saved = self.place;
                let all = matches!(set_quantifier, ast::SetQuantifier::All);
                let (left_place, right_place) = match (saved, op) {
                    (Place::Allowed, ast::SetOperator::Intersect) if all => {
                        (Place::Intersect, Place::Intersect)
                    }
                    (Place::Allowed, ast::SetOperator::Except | ast::SetOperator::Minus) => {
                        (if all { Place::Except } else { saved }, Place::Except)
                    }
                    _ => (saved, saved),
                };
                self.place = left_place;
                let result = self.set_expr(left);
                self.place = right_place;
                let result = result.and_then(|()| self.set_expr(right));
                self.place = saved;
                result
            }
            other => self.expression(other),
        }
    }

    fn select(&mut self, select: &ast::Select) -> Result<(), BindError> {
        let outer_level = std::mem::replace(&mut self.level_references, 0);
        for item in &select.from {
            self.table_with_joins(item)?;
        }
        let here = std::mem::replace(&mut self.level_references, outer_level);
        // The rest of the SELECT: references there are inside subquery expressions.
        let mut rest = select.clone();
        rest.from.clear();
        self.expression(&rest)?;
        if here > 0 && calls_aggregate(&rest) {
            return Err(BindError::new(
                sqlstate::INVALID_RECURSION,
                "aggregate functions are not allowed in a recursive query's recursive term",
            ));
        }
        Ok(())
    }

    fn table_with_joins(&mut self, item: &ast::TableWithJoins) -> Result<(), BindError> {
        let saved = self.place;
        let start = self.references;
        self.table_factor(&item.relation)?;
        for join in &item.joins {
            use ast::JoinOperator as J;
            let (left_nullable, right_nullable, constraint) = match &join.join_operator {
                J::Join(c) | J::Inner(c) | J::CrossJoin(c) => (false, false, Some(c)),
                J::Left(c) | J::LeftOuter(c) => (false, true, Some(c)),
                J::Right(c) | J::RightOuter(c) => (true, false, Some(c)),
                J::FullOuter(c) => (true, true, Some(c)),
                _ => (true, true, None),
            };
            if left_nullable && self.references > start && saved == Place::Allowed {
                return Err(Place::OuterJoin.error(self.name));
            }
            if right_nullable && saved == Place::Allowed {
                self.place = Place::OuterJoin;
            }
            let result = self.table_factor(&join.relation);
            self.place = saved;
            result?;
            if let Some(ast::JoinConstraint::On(condition)) = constraint {
                self.expression(condition)?;
            }
        }
        Ok(())
    }

    fn table_factor(&mut self, factor: &ast::TableFactor) -> Result<(), BindError> {
        if is_reference(factor, self.name) {
            return self.reference();
        }
        match factor {
            ast::TableFactor::Derived { subquery, .. } => self.query(subquery),
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => self.table_with_joins(table_with_joins),
            other => self.expression(other),
        }
    }
}

/// Checks that the query of the recursive CTE `name` has the form PostgreSQL accepts and
/// returns its two terms.
pub(super) fn recursive_form<'q>(
    name: &str,
    query: &'q ast::Query,
) -> Result<RecursiveForm<'q>, BindError> {
    let not_the_form = || {
        BindError::new(
            sqlstate::INVALID_RECURSION,
            format!(
                "recursive query \"{name}\" does not have the form non-recursive-term UNION [ALL] recursive-term"
            ),
        )
    };
    let ast::SetExpr::SetOperation {
        op: ast::SetOperator::Union,
        set_quantifier,
        left,
        right,
    } = query.body.as_ref()
    else {
        return Err(not_the_form());
    };
    let all = match set_quantifier {
        ast::SetQuantifier::All => true,
        ast::SetQuantifier::Distinct | ast::SetQuantifier::None => false,
        _ => return Err(not_the_form()),
    };
    let mut check = FormCheck {
        name,
        place: Place::NonRecursiveTerm,
        references: 0,
        level_references: 0,
    };
    check.set_expr(left)?;
    check.place = Place::Allowed;
    check.set_expr(right)?;
    if let Some(with) = &query.with
        && with
            .cte_tables
            .iter()
            .any(|cte| refers_to(name, cte.query.as_ref()))
    {
        return Err(BindError::new(
            sqlstate::INVALID_RECURSION,
            format!("recursive reference to query \"{name}\" must not appear within WITH"),
        ));
    }
    if check.references == 0 {
        // The reference is in ORDER BY or LIMIT over the union.
        return Err(Place::Subquery.error(name));
    }
    let not_implemented = |clause: &str| {
        BindError::new(
            sqlstate::FEATURE_NOT_SUPPORTED,
            format!("{clause} in a recursive query is not implemented"),
        )
    };
    if query.order_by.is_some() {
        return Err(not_implemented("ORDER BY"));
    }
    match &query.limit_clause {
        Some(ast::LimitClause::LimitOffset {
            offset: Some(_), ..
        })
        | Some(ast::LimitClause::OffsetCommaLimit { .. }) => return Err(not_implemented("OFFSET")),
        Some(ast::LimitClause::LimitOffset { limit: Some(_), .. }) => {
            return Err(not_implemented("LIMIT"));
        }
        _ => {}
    }
    if query.fetch.is_some() || !query.locks.is_empty() {
        return Err(not_implemented("this clause"));
    }
    Ok(RecursiveForm {
        base: left,
        recursive: right,
        all,
    })
}

impl Binder<'_> {
    /// Binds the recursive CTE `cte` (its form already checked) as a recursive union.
    pub(super) fn bind_recursive_cte(
        &mut self,
        cte: &CteDefinition,
    ) -> Result<PlanNode, BindError> {
        let form = recursive_form(&cte.name, &cte.query)?;
        let visible = self.ctes.len();
        let result = match &cte.query.with {
            Some(with) => self.push_with(with),
            None => Ok(()),
        }
        .and_then(|()| self.bind_recursive_terms(cte, &form));
        self.ctes.truncate(visible);
        result
    }

    fn bind_recursive_terms(
        &mut self,
        cte: &CteDefinition,
        form: &RecursiveForm<'_>,
    ) -> Result<PlanNode, BindError> {
        let base = self.bind_set_expr(form.base)?;
        // Unknown-typed (NULL) columns resolve to text, as PostgreSQL resolves them.
        let types: Vec<DataType> = base
            .schema
            .iter()
            .map(|column| match column.data_type {
                DataType::Null => DataType::Text(None),
                other => other,
            })
            .collect();
        let base = cast_columns(base, &types);
        if cte.column_names.len() > base.schema.len() {
            return Err(BindError::new(
                sqlstate::INVALID_COLUMN_REFERENCE,
                format!(
                    "WITH query \"{}\" has {} columns available but {} columns specified",
                    cte.name,
                    base.schema.len(),
                    cte.column_names.len()
                ),
            ));
        }
        let schema: Vec<OutputColumn> = base
            .schema
            .iter()
            .enumerate()
            .map(|(position, column)| OutputColumn {
                name: cte
                    .column_names
                    .get(position)
                    .cloned()
                    .unwrap_or_else(|| column.name.clone()),
                table: Some(cte.name.clone()),
                data_type: column.data_type,
                source: None,
            })
            .collect();
        let working_table = self.working_tables;
        self.working_tables += 1;
        self.ctes.push(CteDefinition {
            name: cte.name.clone(),
            column_names: cte.column_names.clone(),
            query: Rc::clone(&cte.query),
            visible: self.ctes.len(),
            recursive: false,
            binding: false,
            working_table: Some(WorkingTable {
                number: working_table,
                schema: schema.clone(),
            }),
        });
        let recursive = self.bind_set_expr(form.recursive);
        self.ctes.pop();
        let recursive = recursive?;
        if recursive.schema.len() != base.schema.len() {
            return Err(BindError::syntax(
                "each UNION query must have the same number of columns",
            ));
        }
        for (position, (fixed, column)) in types.iter().zip(&recursive.schema).enumerate() {
            if common_type(*fixed, column.data_type) != Some(fixed.unmodified()) {
                let overall = common_type(*fixed, column.data_type).ok_or_else(|| {
                    BindError::mismatch(format!(
                        "UNION types {fixed} and {} cannot be matched",
                        column.data_type
                    ))
                })?;
                return Err(BindError::mismatch(format!(
                    "recursive query \"{}\" column {} has type {fixed} in non-recursive term but type {overall} overall; cast the output of the non-recursive term to the correct type",
                    cte.name,
                    position + 1
                )));
            }
        }
        let recursive = cast_columns(recursive, &types);
        let output = schema
            .into_iter()
            .map(|column| OutputColumn {
                table: None,
                ..column
            })
            .collect();
        Ok(PlanNode {
            kind: PlanKind::RecursiveUnion {
                working_table,
                all: form.all,
                base: Box::new(base),
                recursive: Arc::new(recursive),
            },
            schema: output,
        })
    }
}
