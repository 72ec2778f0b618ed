//! Rewriting stored SQL when ALTER TABLE renames a table or a column, or drops a column.
//!
//! CHECK constraints and view queries are kept in the catalog as SQL text (they stay readable
//! in `.schema` and independent of plan structures). PostgreSQL keeps them as bound trees, so
//! a rename flows through them by construction; Basalt has to rewrite the text, or a table
//! whose CHECK names a renamed column would reject every later INSERT and a view over it
//! would stop working.
//!
//! What is rewritten, and the rule that keeps a rewrite from changing meaning:
//!
//! * A CHECK constraint sees only its own table, so every column reference in it, bare or
//!   qualified by the table's name, is the table's.
//! * In a view, a reference qualified by the table's name or one of its aliases is renamed.
//!   A bare reference is renamed only when nothing else in the query could have been meant:
//!   no other relation in the view has a column of that name (as far as the catalog and the
//!   query's own derived tables tell), and no output column or CTE of the view is called
//!   that. Otherwise the rename fails with 0A000 and names the view, rather than guess.
//!   A renamed bare output column keeps its old name as an alias, as the view's columns keep
//!   their names in PostgreSQL. Every rewritten view is bound again against the new schema
//!   before anything is stored, so a case the rules miss (`USING (col)`, `NATURAL JOIN`)
//!   fails the ALTER instead of leaving a view that no longer binds.
//! * A view that reads the table with column aliases (`FROM t AS x (a, b)`) blocks renaming
//!   and dropping any of its columns (0A000, as above): the aliases rename columns by
//!   position, so names under them are not the table's and a dropped column would shift them.
//! * A renamed table stays reachable under its old name inside views: `FROM t` becomes
//!   `FROM members AS t`, so every `t.col` in the view still means what it meant.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{self, VisitMut, VisitorMut};

use crate::catalog::{Catalog, TableDef, ViewDef};
use crate::sqlstate;

use super::{BindError, parse_stored_expr, parse_stored_query};

/// `a` and `b` name the same thing (identifiers compare without regard to ASCII case).
fn same(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// The identifier for `name`, quoted only when it must be (by the rule `.schema` and `.dump`
/// use).
fn ident(name: &str) -> ast::Ident {
    if crate::catalog::describe::is_plain_identifier(name) {
        ast::Ident::new(name)
    } else {
        ast::Ident::with_quote('"', name)
    }
}

/// How an expression refers to a column of the table, if it does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reference {
    /// `column`: the table's only if nothing else in scope has that name.
    Bare,
    /// `qualifier.column` with one of the table's qualifiers.
    Qualified,
}

/// Whether `expr` is a reference to `column` (bare, or qualified by one of `qualifiers`, the
/// lower-cased names the table goes by).
fn reference(expr: &ast::Expr, column: &str, qualifiers: &HashSet<String>) -> Option<Reference> {
    match expr {
        ast::Expr::Identifier(id) if same(&id.value, column) => Some(Reference::Bare),
        ast::Expr::CompoundIdentifier(parts)
            if parts.len() >= 2
                && same(&parts[parts.len() - 1].value, column)
                && qualifiers.contains(&parts[parts.len() - 2].value.to_lowercase()) =>
        {
            Some(Reference::Qualified)
        }
        _ => None,
    }
}

/// The references to `column` in `node`: (bare, qualified).
fn count_references<V: ast::Visit>(
    node: &V,
    column: &str,
    qualifiers: &HashSet<String>,
) -> (usize, usize) {
    let (mut bare, mut qualified) = (0, 0);
    let _ = ast::visit_expressions(node, |expr| {
        match reference(expr, column, qualifiers) {
            Some(Reference::Bare) => bare += 1,
            Some(Reference::Qualified) => qualified += 1,
            None => {}
        }
        ControlFlow::<()>::Continue(())
    });
    (bare, qualified)
}

/// Renames the references to column `old` in `node` to `new` (bare ones only when
/// `bare_allowed`); returns how many it renamed.
fn rename_references<V: VisitMut>(
    node: &mut V,
    old: &str,
    new: &str,
    qualifiers: &HashSet<String>,
    bare_allowed: bool,
) -> usize {
    let mut renamed = 0;
    let _ = ast::visit_expressions_mut(node, |expr| {
        let name = match (reference(expr, old, qualifiers), &mut *expr) {
            (Some(Reference::Bare), ast::Expr::Identifier(id)) if bare_allowed => id,
            (Some(Reference::Qualified), ast::Expr::CompoundIdentifier(parts)) => {
                let last = parts.len() - 1;
                &mut parts[last]
            }
            _ => return ControlFlow::<()>::Continue(()),
        };
        *name = ident(new);
        renamed += 1;
        ControlFlow::Continue(())
    });
    renamed
}

/// A CHECK constraint of table `table` with column `old` renamed to `new`; `None` when it
/// does not mention the column. A CHECK sees only its own table, so every reference is its.
pub fn rename_column_in_check(
    sql: &str,
    table: &str,
    old: &str,
    new: &str,
) -> Result<Option<String>, BindError> {
    let mut expr = parse_stored_expr(sql)?;
    let qualifiers = HashSet::from([table.to_lowercase()]);
    let renamed = rename_references(&mut expr, old, new, &qualifiers, true);
    Ok((renamed > 0).then(|| expr.to_string()))
}

/// Whether a CHECK constraint of table `table` mentions column `column`.
pub fn check_mentions_column(sql: &str, table: &str, column: &str) -> Result<bool, BindError> {
    let expr = parse_stored_expr(sql)?;
    let (bare, qualified) = count_references(&expr, column, &HashSet::from([table.to_lowercase()]));
    Ok(bare + qualified > 0)
}

/// A CHECK constraint of a table renamed from `old` to `new` (references qualified by the
/// table's name follow it); `None` when nothing in it changes.
pub fn rename_table_in_check(sql: &str, old: &str, new: &str) -> Result<Option<String>, BindError> {
    let mut expr = parse_stored_expr(sql)?;
    let mut renamed = false;
    let _ = ast::visit_expressions_mut(&mut expr, |expr| {
        if let ast::Expr::CompoundIdentifier(parts) = expr
            && parts.len() >= 2
        {
            let qualifier = parts.len() - 2;
            if same(&parts[qualifier].value, old) {
                parts[qualifier] = ident(new);
                renamed = true;
            }
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(renamed.then(|| expr.to_string()))
}

/// What a view's query says about the names in it, gathered from every level of the query
/// (subqueries anywhere, derived tables, CTEs).
struct ViewNames<'a> {
    table: &'a str,
    catalog: &'a Catalog,
    /// The names the table's columns may be qualified by (its name and its aliases), lower
    /// case; empty when the view does not read the table.
    qualifiers: HashSet<String>,
    /// The output names of every other relation the view reads, where known.
    other_columns: Vec<String>,
    /// Whether some other relation's columns are unknown (a wildcard in a derived table).
    other_unknown: bool,
    /// Output aliases and CTE names anywhere in the query.
    declared: Vec<String>,
    /// Whether a CTE of the view is named like the table (then `FROM t` may mean either).
    shadowed: bool,
    /// Whether the query has a wildcard (`*` or `t.*`), which may take the table's columns.
    wildcard: bool,
    /// Whether the view reads the table with column aliases (`FROM t AS x (a, b)`), which
    /// rename its leading columns by position: no column of it can then be renamed (names
    /// under the alias are not the table's) or dropped (the aliases would shift).
    column_aliased: bool,
}

impl<'a> ViewNames<'a> {
    fn of(query: &ast::Query, table: &'a str, catalog: &'a Catalog) -> ViewNames<'a> {
        let mut names = ViewNames {
            table,
            catalog,
            qualifiers: HashSet::new(),
            other_columns: Vec::new(),
            other_unknown: false,
            declared: Vec::new(),
            shadowed: false,
            wildcard: false,
            column_aliased: false,
        };
        let _ = ast::Visit::visit(query, &mut names);
        names
    }

    /// The output names of a view the query reads: given, or from its query's select list.
    fn collect_view_columns(&mut self, view: &ViewDef) {
        self.other_columns.extend(view.column_names.iter().cloned());
        match parse_stored_query(&view.query) {
            Ok(query) => self.collect_output_names(&query),
            Err(_) => self.other_unknown = true,
        }
    }

    /// The output names of a query's first select list (bare columns give their own name).
    fn collect_output_names(&mut self, query: &ast::Query) {
        let Some(select) = first_select(&query.body) else {
            self.other_unknown = true;
            return;
        };
        for item in &select.projection {
            match item {
                ast::SelectItem::ExprWithAlias { alias, .. } => {
                    self.other_columns.push(alias.value.clone());
                }
                ast::SelectItem::UnnamedExpr(expr) => {
                    if let Some(name) = output_name(expr) {
                        self.other_columns.push(name.value.clone());
                    }
                }
                _ => self.other_unknown = true,
            }
        }
    }

    /// Whether a bare `column` in the view can only mean the table's column.
    fn bare_means_table(&self, column: &str) -> bool {
        !self.other_unknown
            && !self.other_columns.iter().any(|name| same(name, column))
            && !self.declared.iter().any(|name| same(name, column))
    }
}

impl ast::Visitor for ViewNames<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &ast::Query) -> ControlFlow<()> {
        for cte in query.with.iter().flat_map(|with| &with.cte_tables) {
            self.shadowed |= same(&cte.alias.name.value, self.table);
            self.declared.push(cte.alias.name.value.clone());
            self.declared
                .extend(cte.alias.columns.iter().map(|c| c.name.value.clone()));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &ast::Select) -> ControlFlow<()> {
        for item in &select.projection {
            match item {
                ast::SelectItem::ExprWithAlias { alias, .. } => {
                    self.declared.push(alias.value.clone());
                }
                ast::SelectItem::ExprWithAliases { aliases, .. } => {
                    self.declared
                        .extend(aliases.iter().map(|a| a.value.clone()));
                }
                ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                    self.wildcard = true;
                }
                ast::SelectItem::UnnamedExpr(_) => {}
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &ast::TableFactor) -> ControlFlow<()> {
        match factor {
            ast::TableFactor::Table { name, alias, .. } => {
                let catalog = self.catalog;
                let relation = name
                    .0
                    .last()
                    .and_then(|part| part.as_ident())
                    .map(|id| id.value.clone())
                    .unwrap_or_default();
                if same(&relation, self.table) {
                    self.column_aliased |= alias.as_ref().is_some_and(|a| !a.columns.is_empty());
                    let qualifier = alias.as_ref().map_or(&relation, |a| &a.name.value);
                    self.qualifiers.insert(qualifier.to_lowercase());
                } else if let Some(other) = catalog.table(&relation) {
                    self.other_columns
                        .extend(other.columns.iter().map(|c| c.name.clone()));
                } else if let Some(view) = catalog.views.get(&relation.to_lowercase()) {
                    self.collect_view_columns(view);
                }
                // Otherwise a CTE, whose names are in `declared`.
            }
            ast::TableFactor::Derived {
                subquery, alias, ..
            } => {
                if let Some(alias) = alias {
                    self.declared
                        .extend(alias.columns.iter().map(|c| c.name.value.clone()));
                }
                self.collect_output_names(subquery);
            }
            ast::TableFactor::NestedJoin { .. } => {}
            _ => self.other_unknown = true,
        }
        ControlFlow::Continue(())
    }
}

/// The first select list of a query body (which names a set operation's columns).
fn first_select(mut body: &ast::SetExpr) -> Option<&ast::Select> {
    loop {
        match body {
            ast::SetExpr::SetOperation { left, .. } => body = left,
            ast::SetExpr::Query(inner) => body = &inner.body,
            ast::SetExpr::Select(select) => return Some(select),
            _ => return None,
        }
    }
}

/// [`first_select`], to change.
fn first_select_mut(mut body: &mut ast::SetExpr) -> Option<&mut ast::Select> {
    loop {
        match body {
            ast::SetExpr::SetOperation { left, .. } => body = left,
            ast::SetExpr::Query(inner) => body = &mut inner.body,
            ast::SetExpr::Select(select) => return Some(select),
            _ => return None,
        }
    }
}

/// The name an unaliased select item gives its column, when it is a column reference.
fn output_name(expr: &ast::Expr) -> Option<&ast::Ident> {
    match expr {
        ast::Expr::Identifier(id) => Some(id),
        ast::Expr::CompoundIdentifier(parts) => parts.last(),
        _ => None,
    }
}

/// Error for a view the rewrite cannot handle.
fn cannot_rewrite(view: &ViewDef, what: &str) -> BindError {
    BindError::new(
        sqlstate::FEATURE_NOT_SUPPORTED,
        format!(
            "cannot {what}: view \"{}\" uses it in a way Basalt cannot rewrite; drop the view and create it again afterwards",
            view.name
        ),
    )
}

/// View `view` with column `old` of `table` renamed to `new`, checked against `after` (the
/// catalog as it will be after the rename); `None` when the view does not use the column.
pub fn rename_column_in_view(
    view: &ViewDef,
    table: &TableDef,
    old: &str,
    new: &str,
    catalog: &Catalog,
    after: &Catalog,
) -> Result<Option<String>, BindError> {
    let mut query = parse_stored_query(&view.query)?;
    let names = ViewNames::of(&query, &table.name, catalog);
    if names.qualifiers.is_empty() {
        return Ok(None);
    }
    let what = format!("rename column \"{old}\" of table \"{}\"", table.name);
    let bare_allowed = names.bare_means_table(old);
    let (bare, _) = count_references(&query, old, &names.qualifiers);
    if names.shadowed || names.column_aliased || (bare > 0 && !bare_allowed) {
        return Err(cannot_rewrite(view, &what));
    }
    keep_output_names(&mut query, old, &names.qualifiers);
    // `SELECT *` needs no rewrite: its output columns follow the table's new names.
    if rename_references(&mut query, old, new, &names.qualifiers, bare_allowed) == 0 {
        return Ok(None);
    }
    let sql = query.to_string();
    bind_view_query(&sql, after).map_err(|_| cannot_rewrite(view, &what))?;
    Ok(Some(sql))
}

/// Gives a select-list reference to `column` an alias of its own name, so that the view's
/// output column keeps that name once the reference is renamed.
fn keep_output_names(query: &mut ast::Query, column: &str, qualifiers: &HashSet<String>) {
    let Some(select) = first_select_mut(&mut query.body) else {
        return;
    };
    for item in &mut select.projection {
        if let ast::SelectItem::UnnamedExpr(expr) = item
            && reference(expr, column, qualifiers).is_some()
            && let Some(alias) = output_name(expr).cloned()
        {
            *item = ast::SelectItem::ExprWithAlias {
                expr: expr.clone(),
                alias,
            };
        }
    }
}

/// Whether view `view` depends on column `column` of `table` (names it, or takes all the
/// table's columns with a wildcard): such a column cannot be dropped. A bare name that might
/// be another relation's counts as a use: dropping is refused rather than risk a view that
/// no longer binds.
pub fn view_uses_column(
    view: &ViewDef,
    table: &TableDef,
    column: &str,
    catalog: &Catalog,
) -> Result<bool, BindError> {
    let query = parse_stored_query(&view.query)?;
    let names = ViewNames::of(&query, &table.name, catalog);
    if names.qualifiers.is_empty() {
        return Ok(false);
    }
    let (bare, qualified) = count_references(&query, column, &names.qualifiers);
    Ok(names.wildcard || names.shadowed || names.column_aliased || bare + qualified > 0)
}

/// View `view` after its table `old` was renamed to `new`; `None` when it does not read it.
pub fn rename_table_in_view(
    view: &ViewDef,
    old: &str,
    new: &str,
    catalog: &Catalog,
) -> Result<Option<String>, BindError> {
    let mut query = parse_stored_query(&view.query)?;
    // A CTE named like the table would make `FROM old` ambiguous to rewrite.
    if ViewNames::of(&query, old, catalog).shadowed {
        return Err(cannot_rewrite(view, &format!("rename table \"{old}\"")));
    }
    let mut renamed = false;
    let _ = query.visit(&mut TableRenamer {
        old,
        new,
        renamed: &mut renamed,
    });
    Ok(renamed.then(|| query.to_string()))
}

/// Renames table references `old` to `new`, aliasing them as `old` so qualified column
/// references keep their meaning.
struct TableRenamer<'a> {
    old: &'a str,
    new: &'a str,
    renamed: &'a mut bool,
}

impl VisitorMut for TableRenamer<'_> {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &mut ast::TableFactor) -> ControlFlow<()> {
        if let ast::TableFactor::Table { name, alias, .. } = factor
            && let Some(last) = name.0.last()
            && last.as_ident().is_some_and(|id| same(&id.value, self.old))
        {
            let old_ident = last.as_ident().cloned().unwrap_or_else(|| ident(self.old));
            *name = ast::ObjectName::from(vec![ident(self.new)]);
            if alias.is_none() {
                *alias = Some(ast::TableAlias {
                    explicit: true,
                    name: old_ident,
                    columns: Vec::new(),
                    at: None,
                });
            }
            *self.renamed = true;
        }
        ControlFlow::Continue(())
    }
}

/// Binds a rewritten view query against the schema it will live in.
fn bind_view_query(sql: &str, catalog: &Catalog) -> Result<(), BindError> {
    let query = parse_stored_query(sql)?;
    super::bind(&ast::Statement::Query(Box::new(query)), catalog).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_references_follow_a_rename_bare_or_qualified() {
        let renamed = rename_column_in_check("b > 0 AND t.b < t.a", "t", "b", "Weight").unwrap();
        assert_eq!(
            renamed.as_deref(),
            Some(r#""Weight" > 0 AND t."Weight" < t.a"#)
        );
        assert_eq!(
            rename_column_in_check("a > 0", "t", "b", "c").unwrap(),
            None
        );
        // A reserved word is quoted.
        assert_eq!(
            rename_column_in_check("b > 0", "t", "b", "select")
                .unwrap()
                .as_deref(),
            Some(r#""select" > 0"#)
        );
        // Another table's qualifier is not this table's column.
        assert_eq!(
            rename_column_in_check("u.b > 0", "t", "b", "c").unwrap(),
            None
        );
        assert!(check_mentions_column("(B + 1) > 0", "t", "b").unwrap());
        assert_eq!(
            rename_table_in_check("t.a > 0 AND a < 5", "t", "members")
                .unwrap()
                .as_deref(),
            Some("members.a > 0 AND a < 5")
        );
    }

    #[test]
    fn a_renamed_table_keeps_its_old_name_as_an_alias_in_views() {
        let view = ViewDef {
            name: "v".into(),
            column_names: Vec::new(),
            query:
                "SELECT t.a FROM t JOIN u AS x ON x.id = t.a WHERE EXISTS (SELECT 1 FROM t AS y)"
                    .into(),
        };
        assert_eq!(
            rename_table_in_view(&view, "t", "members", &Catalog::default())
                .unwrap()
                .as_deref(),
            Some(
                "SELECT t.a FROM members AS t JOIN u AS x ON x.id = t.a WHERE EXISTS (SELECT 1 FROM members AS y)"
            )
        );
        assert_eq!(
            rename_table_in_view(&view, "w", "z", &Catalog::default()).unwrap(),
            None
        );
    }
}
