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
//! * A renamed table stays reachable under its old name inside views: `FROM t` becomes
//!   `FROM members AS t`, so every `t.col` in the view still means what it meant.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{self, VisitMut, VisitorMut};

use crate::catalog::{Catalog, TableDef, ViewDef};

use super::{BindError, parse_stored_expr, parse_stored_query};

/// `a` and `b` name the same thing (identifiers compare without regard to ASCII case).
fn same(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// The identifier for `name`, quoted only when it must be (by the rule `.schema` and `.dump`
/// use).
fn ident(name: &str) -> ast::Ident {
    if crate::api::schema::is_plain_identifier(name) {
        ast::Ident::new(name)
    } else {
        ast::Ident::with_quote('"', name)
    }
}

/// Renames column references in one expression tree. `qualifiers` are the names a reference
/// to the table's columns may be qualified by; bare references are renamed only when
/// `bare_allowed`, and otherwise counted in `bare_refused`.
struct ColumnRenamer<'a> {
    old: &'a str,
    new: &'a str,
    qualifiers: &'a HashSet<String>,
    bare_allowed: bool,
    renamed: usize,
    bare_refused: usize,
}

impl VisitorMut for ColumnRenamer<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut ast::Expr) -> ControlFlow<()> {
        match expr {
            ast::Expr::Identifier(id) if same(&id.value, self.old) => {
                if self.bare_allowed {
                    *id = ident(self.new);
                    self.renamed += 1;
                } else {
                    self.bare_refused += 1;
                }
            }
            ast::Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                let last = parts.len() - 1;
                let qualifier = parts[last - 1].value.to_lowercase();
                if same(&parts[last].value, self.old) && self.qualifiers.contains(&qualifier) {
                    parts[last] = ident(self.new);
                    self.renamed += 1;
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// A CHECK constraint of table `table` with column `old` renamed to `new`; `None` when it
/// does not mention the column.
pub fn rename_column_in_check(
    sql: &str,
    table: &str,
    old: &str,
    new: &str,
) -> Result<Option<String>, BindError> {
    let mut expr = parse_stored_expr(sql)?;
    let qualifiers = HashSet::from([table.to_lowercase()]);
    let mut renamer = ColumnRenamer {
        old,
        new,
        qualifiers: &qualifiers,
        bare_allowed: true,
        renamed: 0,
        bare_refused: 0,
    };
    let _ = expr.visit(&mut renamer);
    Ok((renamer.renamed > 0).then(|| expr.to_string()))
}

/// Whether a CHECK constraint of table `table` mentions column `column`.
pub fn check_mentions_column(sql: &str, table: &str, column: &str) -> Result<bool, BindError> {
    Ok(rename_column_in_check(sql, table, column, column)?.is_some())
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

/// What a view's query says about the names in it.
#[derive(Default)]
struct ViewNames {
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
    /// Whether the table's columns are taken by a wildcard (`*` or `t.*`).
    wildcard: bool,
}

impl ViewNames {
    fn of(query: &ast::Query, table: &TableDef, catalog: &Catalog) -> ViewNames {
        let mut names = ViewNames::default();
        names.collect_query(query, table, catalog);
        names
    }

    fn collect_query(&mut self, query: &ast::Query, table: &TableDef, catalog: &Catalog) {
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                self.declared.push(cte.alias.name.value.clone());
                self.shadowed |= same(&cte.alias.name.value, &table.name);
                self.declared
                    .extend(cte.alias.columns.iter().map(|c| c.name.value.clone()));
                self.collect_query(&cte.query, table, catalog);
            }
        }
        self.collect_set_expr(&query.body, table, catalog);
    }

    fn collect_set_expr(&mut self, body: &ast::SetExpr, table: &TableDef, catalog: &Catalog) {
        match body {
            ast::SetExpr::Select(select) => {
                for item in &select.projection {
                    match item {
                        ast::SelectItem::ExprWithAlias { alias, .. } => {
                            self.declared.push(alias.value.clone());
                        }
                        ast::SelectItem::Wildcard(_) => self.wildcard = true,
                        ast::SelectItem::QualifiedWildcard(..) => self.wildcard = true,
                        ast::SelectItem::ExprWithAliases { aliases, .. } => {
                            self.declared
                                .extend(aliases.iter().map(|a| a.value.clone()));
                        }
                        ast::SelectItem::UnnamedExpr(_) => {}
                    }
                }
                for from in &select.from {
                    self.collect_factor(&from.relation, table, catalog);
                    for join in &from.joins {
                        self.collect_factor(&join.relation, table, catalog);
                    }
                }
                // Subqueries in expressions read relations too.
                let _ = ast::visit_expressions(&select.selection, |expr| {
                    self.collect_subquery(expr, table, catalog);
                    ControlFlow::<()>::Continue(())
                });
                let _ = ast::visit_expressions(&select.projection, |expr| {
                    self.collect_subquery(expr, table, catalog);
                    ControlFlow::<()>::Continue(())
                });
            }
            ast::SetExpr::Query(query) => self.collect_query(query, table, catalog),
            ast::SetExpr::SetOperation { left, right, .. } => {
                self.collect_set_expr(left, table, catalog);
                self.collect_set_expr(right, table, catalog);
            }
            _ => {}
        }
    }

    fn collect_subquery(&mut self, expr: &ast::Expr, table: &TableDef, catalog: &Catalog) {
        match expr {
            ast::Expr::Subquery(query)
            | ast::Expr::Exists {
                subquery: query, ..
            }
            | ast::Expr::InSubquery {
                subquery: query, ..
            } => self.collect_query(query, table, catalog),
            _ => {}
        }
    }

    fn collect_factor(&mut self, factor: &ast::TableFactor, table: &TableDef, catalog: &Catalog) {
        match factor {
            ast::TableFactor::Table { name, alias, .. } => {
                let relation = name
                    .0
                    .last()
                    .and_then(|part| part.as_ident())
                    .map(|id| id.value.clone())
                    .unwrap_or_default();
                if same(&relation, &table.name) {
                    let qualifier = alias.as_ref().map_or(&relation, |a| &a.name.value);
                    self.qualifiers.insert(qualifier.to_lowercase());
                } else if let Some(other) = catalog.table(&relation) {
                    self.other_columns
                        .extend(other.columns.iter().map(|c| c.name.clone()));
                } else if let Some(view) = catalog.views.get(&relation.to_lowercase()) {
                    self.collect_view_columns(view);
                } else {
                    // A CTE: its names are in `declared`.
                }
            }
            ast::TableFactor::Derived {
                subquery, alias, ..
            } => {
                if let Some(alias) = alias {
                    self.declared
                        .extend(alias.columns.iter().map(|c| c.name.value.clone()));
                }
                self.collect_query(subquery, table, catalog);
                self.collect_output_names(subquery);
            }
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                self.collect_factor(&table_with_joins.relation, table, catalog);
                for join in &table_with_joins.joins {
                    self.collect_factor(&join.relation, table, catalog);
                }
            }
            _ => self.other_unknown = true,
        }
    }

    /// The output names of a view the query reads: given, or from its query's select list.
    fn collect_view_columns(&mut self, view: &ViewDef) {
        if !view.column_names.is_empty() {
            self.other_columns.extend(view.column_names.iter().cloned());
        }
        match parse_stored_query(&view.query) {
            Ok(query) => self.collect_output_names(&query),
            Err(_) => self.other_unknown = true,
        }
    }

    /// The output names of a query's first select list (bare columns give their own name).
    fn collect_output_names(&mut self, query: &ast::Query) {
        let mut body = query.body.as_ref();
        loop {
            match body {
                ast::SetExpr::SetOperation { left, .. } => body = left,
                ast::SetExpr::Query(inner) => body = &inner.body,
                _ => break,
            }
        }
        let ast::SetExpr::Select(select) = body else {
            self.other_unknown = true;
            return;
        };
        for item in &select.projection {
            match item {
                ast::SelectItem::ExprWithAlias { alias, .. } => {
                    self.other_columns.push(alias.value.clone());
                }
                ast::SelectItem::UnnamedExpr(ast::Expr::Identifier(id)) => {
                    self.other_columns.push(id.value.clone());
                }
                ast::SelectItem::UnnamedExpr(ast::Expr::CompoundIdentifier(parts)) => {
                    if let Some(last) = parts.last() {
                        self.other_columns.push(last.value.clone());
                    }
                }
                ast::SelectItem::UnnamedExpr(_) => {}
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

/// Error for a view the rewrite cannot handle.
fn cannot_rewrite(view: &ViewDef, what: &str) -> BindError {
    BindError::new(
        "0A000",
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
    let names = ViewNames::of(&query, table, catalog);
    if names.qualifiers.is_empty() {
        return Ok(None);
    }
    let what = format!("rename column \"{old}\" of table \"{}\"", table.name);
    if names.shadowed {
        return Err(cannot_rewrite(view, &what));
    }
    keep_output_names(&mut query, old, &names.qualifiers);
    let mut renamer = ColumnRenamer {
        old,
        new,
        qualifiers: &names.qualifiers,
        bare_allowed: names.bare_means_table(old),
        renamed: 0,
        bare_refused: 0,
    };
    let _ = query.visit(&mut renamer);
    if renamer.bare_refused > 0 {
        return Err(cannot_rewrite(view, &what));
    }
    // `SELECT *` needs no rewrite: its output columns follow the table's new names.
    if renamer.renamed == 0 {
        return Ok(None);
    }
    let sql = query.to_string();
    bind_view_query(&sql, after).map_err(|_| cannot_rewrite(view, &what))?;
    Ok(Some(sql))
}

/// Gives a bare select-list reference to `column` an alias of its own name, so that the
/// view's output column keeps that name once the reference is renamed.
fn keep_output_names(query: &mut ast::Query, column: &str, qualifiers: &HashSet<String>) {
    let mut body = query.body.as_mut();
    loop {
        match body {
            ast::SetExpr::SetOperation { left, .. } => body = left,
            ast::SetExpr::Query(inner) => body = inner.body.as_mut(),
            _ => break,
        }
    }
    let ast::SetExpr::Select(select) = body else {
        return;
    };
    for item in &mut select.projection {
        let ast::SelectItem::UnnamedExpr(expr) = item else {
            continue;
        };
        let names_column = match &*expr {
            ast::Expr::Identifier(id) => same(&id.value, column),
            ast::Expr::CompoundIdentifier(parts) => {
                parts.len() >= 2
                    && same(&parts[parts.len() - 1].value, column)
                    && qualifiers.contains(&parts[parts.len() - 2].value.to_lowercase())
            }
            _ => false,
        };
        if names_column {
            let alias = match &*expr {
                ast::Expr::Identifier(id) => id.clone(),
                ast::Expr::CompoundIdentifier(parts) => parts[parts.len() - 1].clone(),
                _ => continue,
            };
            *item = ast::SelectItem::ExprWithAlias {
                expr: expr.clone(),
                alias,
            };
        }
    }
}

/// Whether view `view` depends on column `column` of `table` (names it, or takes all the
/// table's columns with a wildcard): such a column cannot be dropped.
pub fn view_uses_column(
    view: &ViewDef,
    table: &TableDef,
    column: &str,
    catalog: &Catalog,
) -> Result<bool, BindError> {
    let mut query = parse_stored_query(&view.query)?;
    let names = ViewNames::of(&query, table, catalog);
    if names.qualifiers.is_empty() {
        return Ok(false);
    }
    if names.wildcard || names.shadowed {
        return Ok(true);
    }
    let mut finder = ColumnRenamer {
        old: column,
        new: column,
        qualifiers: &names.qualifiers,
        bare_allowed: names.bare_means_table(column),
        renamed: 0,
        bare_refused: 0,
    };
    let _ = query.visit(&mut finder);
    // A bare name that might be another relation's is counted as a use: dropping the
    // column is refused rather than risk a view that no longer binds.
    Ok(finder.renamed + finder.bare_refused > 0)
}

/// View `view` after its table `old` was renamed to `new`; `None` when it does not read it.
pub fn rename_table_in_view(
    view: &ViewDef,
    old: &str,
    new: &str,
) -> Result<Option<String>, BindError> {
    let mut query = parse_stored_query(&view.query)?;
    // A CTE named like the table would make `FROM old` ambiguous to rewrite.
    let mut ctes = CteNames::default();
    let _ = ast::Visit::visit(&query, &mut ctes);
    if ctes.0.iter().any(|name| same(name, old)) {
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

/// The names of every CTE in a query, nested ones included.
#[derive(Default)]
struct CteNames(Vec<String>);

impl ast::Visitor for CteNames {
    type Break = ();

    fn pre_visit_query(&mut self, query: &ast::Query) -> ControlFlow<()> {
        if let Some(with) = &query.with {
            self.0.extend(
                with.cte_tables
                    .iter()
                    .map(|cte| cte.alias.name.value.clone()),
            );
        }
        ControlFlow::Continue(())
    }
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
            rename_table_in_view(&view, "t", "members")
                .unwrap()
                .as_deref(),
            Some(
                "SELECT t.a FROM members AS t JOIN u AS x ON x.id = t.a WHERE EXISTS (SELECT 1 FROM members AS y)"
            )
        );
        assert_eq!(rename_table_in_view(&view, "w", "z").unwrap(), None);
    }
}
