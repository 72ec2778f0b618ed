//! INSERT, UPDATE and DELETE.
//!
//! INSERT binds its source (VALUES rows or a query) with every column converted to its
//! target column's type by PostgreSQL's assignment rules; UPDATE and DELETE read their table
//! through `Filter(WHERE)` over a `TableScan` producing the row id then every column, which
//! is the row shape the executor's write operators expect. RETURNING is bound over the
//! written row: every table column in table order (the row id is not part of it).

use std::sync::Arc;

use sqlparser::ast;

use crate::catalog::{TableDef, nearest};
use crate::plan::expr::Expr;
use crate::plan::{ConflictAction, OutputColumn, PlanKind, PlanNode};
use crate::sql::insert_syntax::{self, Overriding};
use crate::sqlstate;
use crate::types::Value;

use super::aggregate::AggregateContext;
use super::error::{BindError, with_hint};
use super::expr::coerce;
use super::from::{schema_of, table_scan};
use super::scope::{Scope, ScopeColumn};
use super::types::assignable;
use super::{Binder, ident_name, object_name, parse_stored_expr};

impl Binder<'_> {
    /// The table a DML statement writes, 42P01 (with a hint) when unknown.
    pub(super) fn target_table(&self, name: &ast::ObjectName) -> Result<Arc<TableDef>, BindError> {
        let table_name = object_name(name)?;
        if let Some(table) = self.catalog.table(&table_name) {
            return Ok(Arc::clone(table));
        }
        if self.catalog.views.contains_key(&table_name.to_lowercase()) {
            return Err(BindError::unsupported(format!(
                "modifying view \"{table_name}\""
            )));
        }
        Err(BindError::new(
            sqlstate::UNDEFINED_TABLE,
            with_hint(
                format!("relation \"{table_name}\" does not exist"),
                self.catalog.nearest_table_name(&table_name),
            ),
        ))
    }

    /// Converts a value bound from `ast` for storing in `column` of `table`.
    fn assign(
        &mut self,
        bound: Expr,
        ast: &ast::Expr,
        table: &TableDef,
        column: usize,
    ) -> Result<Expr, BindError> {
        let Some(def) = table.columns.get(column) else {
            return Err(BindError::syntax("assignment to an unknown column"));
        };
        let bound = self.type_if_untyped(bound, ast, def.data_type)?;
        let from = bound.data_type();
        if !assignable(from, def.data_type) {
            return Err(BindError::mismatch(format!(
                "column \"{}\" is of type {} but expression is of type {from}",
                def.name, def.data_type
            )));
        }
        Ok(coerce(bound, def.data_type))
    }

    /// A column's DEFAULT expression (or a typed NULL), for `DEFAULT` in VALUES / SET.
    fn column_default(&mut self, table: &TableDef, column: usize) -> Result<Expr, BindError> {
        let Some(def) = table.columns.get(column) else {
            return Err(BindError::syntax("DEFAULT for an unknown column"));
        };
        match &def.default {
            None => Ok(Expr::Literal {
                value: Value::Null,
                data_type: def.data_type,
            }),
            Some(text) => {
                let ast = parse_stored_expr(text)?;
                let bound = self.bind_expr(&ast, &Scope::default())?;
                self.assign(bound, &ast, table, column)
            }
        }
    }

    /// 428C9 when an INSERT without `OVERRIDING SYSTEM VALUE` or `OVERRIDING USER VALUE` gives
    /// a value for a `GENERATED ALWAYS AS IDENTITY` column.
    fn refuse_always_identity(
        &self,
        table: &crate::catalog::TableDef,
        target_columns: &[usize],
    ) -> Result<(), BindError> {
        match self.always_identity_among(table, target_columns) {
            Some(column) => Err(BindError::new(
                sqlstate::GENERATED_ALWAYS,
                format!(
                    "cannot insert a non-DEFAULT value into column \"{column}\" (it is an identity column defined as GENERATED ALWAYS)"
                ),
            )),
            None => Ok(()),
        }
    }

    /// The positions of `table`'s identity columns (ALWAYS and BY DEFAULT).
    fn identity_columns(&self, table: &TableDef) -> Vec<usize> {
        self.catalog
            .sequences
            .values()
            .filter_map(|sequence| {
                let (column, _) = sequence.identity.as_ref()?;
                let owned = sequence
                    .owner
                    .as_ref()
                    .is_some_and(|owner| owner.eq_ignore_ascii_case(&table.name));
                owned.then(|| table.column(column).map(|(position, _)| position))?
            })
            .collect()
    }

    /// The name of a `GENERATED ALWAYS AS IDENTITY` column of `table` among `columns`.
    fn always_identity_among(
        &self,
        table: &crate::catalog::TableDef,
        columns: &[usize],
    ) -> Option<String> {
        self.catalog.sequences.values().find_map(|sequence| {
            let (column, true) = sequence.identity.as_ref()? else {
                return None;
            };
            let owned = sequence
                .owner
                .as_ref()
                .is_some_and(|owner| owner.eq_ignore_ascii_case(&table.name));
            let (position, _) = table.column(column)?;
            (owned && columns.contains(&position)).then(|| column.clone())
        })
    }

    pub(super) fn bind_insert(&mut self, insert: &ast::Insert) -> Result<PlanNode, BindError> {
        self.aggregates = AggregateContext::Forbidden("INSERT");
        let ast::TableObject::TableName(name) = &insert.table else {
            return Err(BindError::unsupported("INSERT into a table function"));
        };
        if !insert.assignments.is_empty() || insert.partitioned.is_some() || insert.overwrite {
            return Err(BindError::unsupported("this INSERT form"));
        }
        let table = self.target_table(name)?;
        let alias = match &insert.table_alias {
            Some(alias) => ident_name(&alias.alias),
            None => table.name.clone(),
        };
        let explicit_columns = !insert.columns.is_empty();
        let overriding = insert_syntax::overriding(insert);
        // OVERRIDING USER VALUE: the values given for identity columns are replaced by the
        // columns' defaults (their sequences' next values).
        let ignored = if overriding == Overriding::User {
            self.identity_columns(&table)
        } else {
            Vec::new()
        };
        let mut target_columns = Vec::with_capacity(table.columns.len());
        if explicit_columns {
            for column in &insert.columns {
                let column = object_name(column)?;
                let (position, _) = table
                    .column(&column)
                    .ok_or_else(|| unknown_column(&table, &column))?;
                if target_columns.contains(&position) {
                    return Err(BindError::new(
                        sqlstate::DUPLICATE_COLUMN,
                        format!("column \"{column}\" specified more than once"),
                    ));
                }
                target_columns.push(position);
            }
        } else {
            target_columns.extend(0..table.columns.len());
        }

        let source = match &insert.source {
            None => {
                target_columns.clear();
                PlanNode {
                    kind: PlanKind::Values {
                        rows: vec![Vec::new()],
                    },
                    schema: Vec::new(),
                }
            }
            Some(query) => {
                let target = InsertTarget {
                    table: &table,
                    explicit_columns,
                    ignored: &ignored,
                };
                self.bind_insert_source(query, &target, &mut target_columns)?
            }
        };

        if overriding == Overriding::None {
            self.refuse_always_identity(&table, &target_columns)?;
        }
        let table_scope = table_scan(&table, &alias, false).1;
        let mut on_conflict = match insert.or {
            Some(ast::SqliteOnConflict::Ignore) => ConflictAction::IgnoreAnyViolation,
            Some(ast::SqliteOnConflict::Replace) => ConflictAction::Replace,
            // ROLLBACK / FAIL are approximated by failing the statement.
            Some(_) | None => ConflictAction::Abort,
        };
        if insert.replace_into {
            on_conflict = ConflictAction::Replace;
        }
        if insert.ignore {
            on_conflict = ConflictAction::IgnoreAnyViolation;
        }
        match &insert.on {
            None => {}
            Some(ast::OnInsert::DuplicateKeyUpdate(_)) => {
                return Err(BindError::unsupported("ON DUPLICATE KEY UPDATE"));
            }
            Some(ast::OnInsert::OnConflict(conflict)) => {
                on_conflict = self.bind_on_conflict(conflict, &table, &table_scope)?;
            }
            Some(other) => return Err(BindError::unsupported(format!("{other}"))),
        }
        let (returning, schema) = self.bind_returning(insert.returning.as_deref(), &table_scope)?;
        Ok(PlanNode {
            kind: PlanKind::Insert {
                table,
                source: Box::new(source),
                target_columns,
                on_conflict,
                returning,
            },
            schema,
        })
    }

    fn bind_insert_source(
        &mut self,
        query: &ast::Query,
        target: &InsertTarget<'_>,
        target_columns: &mut Vec<usize>,
    ) -> Result<PlanNode, BindError> {
        let (table, explicit_columns, ignored) =
            (target.table, target.explicit_columns, target.ignored);
        let check_width = |width: usize, target_columns: &mut Vec<usize>| {
            if width > target_columns.len() {
                return Err(BindError::syntax(
                    "INSERT has more expressions than target columns",
                ));
            }
            if width < target_columns.len() {
                if explicit_columns {
                    return Err(BindError::syntax(
                        "INSERT has more target columns than expressions",
                    ));
                }
                target_columns.truncate(width);
            }
            Ok(())
        };
        let plain_values =
            query.with.is_none() && query.order_by.is_none() && query.limit_clause.is_none();
        if let ast::SetExpr::Values(values) = query.body.as_ref()
            && plain_values
        {
            let width = values.rows.first().map_or(0, |row| row.content.len());
            check_width(width, target_columns)?;
            let rows = self.bind_insert_rows(values, table, target_columns, ignored)?;
            let schema = target_columns
                .iter()
                .map(|&column| OutputColumn {
                    name: table.columns[column].name.clone(),
                    table: None,
                    data_type: table.columns[column].data_type,
                    source: None,
                })
                .collect();
            return Ok(PlanNode {
                kind: PlanKind::Values { rows },
                schema,
            });
        }
        let plan = self.bind_query(query)?;
        check_width(plan.schema.len(), target_columns)?;
        refuse_generated(table, target_columns)?;
        let mut exprs = Vec::with_capacity(plan.schema.len());
        let mut schema = Vec::with_capacity(plan.schema.len());
        for (index, (column, &target)) in plan.schema.iter().zip(target_columns.iter()).enumerate()
        {
            let def = &table.columns[target];
            if ignored.contains(&target) {
                exprs.push(self.column_default(table, target)?);
                schema.push(OutputColumn {
                    name: def.name.clone(),
                    table: None,
                    data_type: def.data_type,
                    source: None,
                });
                continue;
            }
            if !assignable(column.data_type, def.data_type) {
                return Err(BindError::mismatch(format!(
                    "column \"{}\" is of type {} but expression is of type {}",
                    def.name, def.data_type, column.data_type
                )));
            }
            exprs.push(coerce(
                Expr::Column {
                    index,
                    data_type: column.data_type,
                },
                def.data_type,
            ));
            schema.push(OutputColumn {
                name: def.name.clone(),
                table: None,
                data_type: def.data_type,
                source: None,
            });
        }
        Ok(PlanNode {
            kind: PlanKind::Project {
                input: Box::new(plan),
                exprs,
            },
            schema,
        })
    }

    /// Binds VALUES rows for INSERT: each value typed by its target column; `DEFAULT`
    /// becomes the column's default expression, as does any value for an `ignored` column.
    fn bind_insert_rows(
        &mut self,
        values: &ast::Values,
        table: &TableDef,
        target_columns: &[usize],
        ignored: &[usize],
    ) -> Result<Vec<Vec<Expr>>, BindError> {
        let scope = Scope::default();
        let mut rows = Vec::with_capacity(values.rows.len());
        for row in &values.rows {
            if row.content.len() != target_columns.len() {
                return Err(BindError::syntax(
                    "VALUES lists must all be the same length",
                ));
            }
            let mut bound_row = Vec::with_capacity(row.content.len());
            for (item, &column) in row.content.iter().zip(target_columns) {
                if is_default_keyword(item) || ignored.contains(&column) {
                    bound_row.push(self.column_default(table, column)?);
                    continue;
                }
                refuse_generated(table, &[column])?;
                let bound = self.bind_expr(item, &scope)?;
                bound_row.push(self.assign(bound, item, table, column)?);
            }
            rows.push(bound_row);
        }
        Ok(rows)
    }

    fn bind_on_conflict(
        &mut self,
        conflict: &ast::OnConflict,
        table: &TableDef,
        table_scope: &Scope,
    ) -> Result<ConflictAction, BindError> {
        let mut target_columns = Vec::new();
        match &conflict.conflict_target {
            None => {}
            Some(ast::ConflictTarget::Columns(columns)) => {
                for column in columns {
                    let name = ident_name(column);
                    let (position, _) = table
                        .column(&name)
                        .ok_or_else(|| unknown_column(table, &name))?;
                    target_columns.push(position);
                }
                // As in PostgreSQL (and SQLite), the target must name the row id, a primary
                // key or a unique constraint (found by basalt-difftest).
                let mut wanted = target_columns.clone();
                wanted.sort_unstable();
                wanted.dedup();
                let names_row_id = table.row_id_column.is_some_and(|id| wanted == [id]);
                let names_unique_index = self.catalog.indexes_of(&table.name).any(|index| {
                    let mut indexed: Vec<usize> =
                        index.columns.iter().map(|(column, _)| *column).collect();
                    indexed.sort_unstable();
                    index.unique && indexed == wanted
                });
                if !names_row_id && !names_unique_index {
                    return Err(BindError::new(
                        sqlstate::INVALID_COLUMN_REFERENCE,
                        "there is no unique or exclusion constraint matching the ON CONFLICT specification",
                    ));
                }
            }
            Some(ast::ConflictTarget::OnConstraint(_)) => {
                return Err(BindError::unsupported("ON CONFLICT ON CONSTRAINT"));
            }
        }
        let update = match &conflict.action {
            ast::OnConflictAction::DoNothing => return Ok(ConflictAction::Ignore),
            ast::OnConflictAction::DoUpdate(update) => update,
        };
        if target_columns.is_empty() {
            return Err(BindError::syntax(
                "ON CONFLICT DO UPDATE requires inference specification",
            ));
        }
        // The existing row, then the proposed row as `excluded` (reachable qualified only,
        // unless no table column has the name).
        let mut scope = table_scope.clone();
        for column in &table_scope.columns {
            scope.columns.push(ScopeColumn {
                table: Some("excluded".to_string()),
                hidden: true,
                ..column.clone()
            });
        }
        let assignments = self.bind_assignments(&update.assignments, table, &scope)?;
        let condition = match &update.selection {
            Some(condition) => Some(self.bind_boolean(condition, &scope, "WHERE")?),
            None => None,
        };
        Ok(ConflictAction::Update {
            target_columns,
            assignments,
            condition,
        })
    }

    /// Binds `SET col = expr, ...` over `scope`.
    fn bind_assignments(
        &mut self,
        assignments: &[ast::Assignment],
        table: &TableDef,
        scope: &Scope,
    ) -> Result<Vec<(usize, Expr)>, BindError> {
        let mut bound = Vec::with_capacity(assignments.len());
        for assignment in assignments {
            let name = match &assignment.target {
                ast::AssignmentTarget::ColumnName(name) => object_name(name)?,
                ast::AssignmentTarget::Tuple(_) => {
                    return Err(BindError::unsupported("assigning to a column list"));
                }
            };
            let (column, _) = table
                .column(&name)
                .ok_or_else(|| unknown_column(table, &name))?;
            if let Some(identity) = self.always_identity_among(table, &[column]) {
                return Err(BindError::new(
                    sqlstate::GENERATED_ALWAYS,
                    format!("column \"{identity}\" can only be updated to DEFAULT"),
                ));
            }
            if bound.iter().any(|(c, _)| *c == column) {
                return Err(BindError::new(
                    sqlstate::SYNTAX_ERROR,
                    format!("multiple assignments to same column \"{name}\""),
                ));
            }
            let value = if is_default_keyword(&assignment.value) {
                self.column_default(table, column)?
            } else if table.columns[column].generated.is_some() {
                return Err(BindError::new(
                    sqlstate::GENERATED_ALWAYS,
                    format!("column \"{name}\" can only be updated to DEFAULT"),
                ));
            } else {
                let value = self.bind_expr(&assignment.value, scope)?;
                self.assign(value, &assignment.value, table, column)?
            };
            bound.push((column, value));
        }
        Ok(bound)
    }

    pub(super) fn bind_update(&mut self, update: &ast::Update) -> Result<PlanNode, BindError> {
        self.aggregates = AggregateContext::Forbidden("UPDATE");
        if update.from.is_some()
            || !update.order_by.is_empty()
            || update.limit.is_some()
            || update.or.is_some()
        {
            return Err(BindError::unsupported(
                "UPDATE ... FROM / ORDER BY / LIMIT / OR",
            ));
        }
        let (table, alias) = self.single_table(&update.table)?;
        let (input, scope) = self.write_input(&table, &alias, update.selection.as_ref())?;
        let assignments = self.bind_assignments(&update.assignments, &table, &scope)?;
        let table_scope = table_scan(&table, &alias, false).1;
        let (returning, schema) = self.bind_returning(update.returning.as_deref(), &table_scope)?;
        Ok(PlanNode {
            kind: PlanKind::Update {
                table,
                input: Box::new(input),
                assignments,
                returning,
            },
            schema,
        })
    }

    pub(super) fn bind_delete(&mut self, delete: &ast::Delete) -> Result<PlanNode, BindError> {
        self.aggregates = AggregateContext::Forbidden("DELETE");
        if !delete.tables.is_empty()
            || delete.using.is_some()
            || !delete.order_by.is_empty()
            || delete.limit.is_some()
        {
            return Err(BindError::unsupported(
                "DELETE with USING / ORDER BY / LIMIT / several tables",
            ));
        }
        let from = match &delete.from {
            ast::FromTable::WithFromKeyword(from) | ast::FromTable::WithoutKeyword(from) => from,
        };
        let [item] = from.as_slice() else {
            return Err(BindError::unsupported("DELETE from several tables"));
        };
        let (table, alias) = self.single_table(item)?;
        let (input, _) = self.write_input(&table, &alias, delete.selection.as_ref())?;
        let table_scope = table_scan(&table, &alias, false).1;
        let (returning, schema) = self.bind_returning(delete.returning.as_deref(), &table_scope)?;
        let old_columns = self.delete_reads(&table, returning.is_empty());
        Ok(PlanNode {
            kind: PlanKind::Delete {
                table,
                input: Box::new(input),
                returning,
                old_columns,
            },
            schema,
        })
    }

    /// The columns a DELETE from `table` reads of each old row (`PlanKind::Delete`'s
    /// `old_columns`): its indexes' columns, or all of them when something else may read the
    /// row — a trigger on the table, RETURNING, or a foreign key referencing the table (its
    /// check or action reads the referenced key, and a cascade's triggers the rest). The plan
    /// is bound again whenever the schema changes (a new index or trigger included), so the
    /// answer holds for as long as the plan does.
    fn delete_reads(&self, table: &TableDef, returns_nothing: bool) -> Option<Vec<usize>> {
        let catalog = self.catalog;
        let referenced = catalog.tables.values().any(|other| {
            other
                .foreign_keys
                .iter()
                .any(|key| key.referenced_table.eq_ignore_ascii_case(&table.name))
        });
        if !returns_nothing || referenced || catalog.triggers_of(&table.name).next().is_some() {
            return None;
        }
        let mut columns: Vec<usize> = catalog
            .indexes_of(&table.name)
            .flat_map(|index| index.columns.iter().map(|(column, _)| *column))
            .collect();
        columns.sort_unstable();
        columns.dedup();
        Some(columns)
    }

    /// The one table (and its alias) an UPDATE or DELETE names.
    fn single_table(
        &self,
        item: &ast::TableWithJoins,
    ) -> Result<(Arc<TableDef>, String), BindError> {
        if !item.joins.is_empty() {
            return Err(BindError::unsupported("joins in UPDATE / DELETE"));
        }
        let ast::TableFactor::Table { name, alias, .. } = &item.relation else {
            return Err(BindError::unsupported("UPDATE / DELETE of a derived table"));
        };
        let table = self.target_table(name)?;
        let alias = match alias {
            Some(alias) => ident_name(&alias.name),
            None => table.name.clone(),
        };
        Ok((table, alias))
    }

    /// `Filter(WHERE)` over a scan producing the row id then every column.
    fn write_input(
        &mut self,
        table: &Arc<TableDef>,
        alias: &str,
        selection: Option<&ast::Expr>,
    ) -> Result<(PlanNode, Scope), BindError> {
        let (mut plan, scope) = table_scan(table, alias, true);
        if let Some(condition) = selection {
            let predicate = self.bind_boolean(condition, &scope, "WHERE")?;
            plan = PlanNode {
                schema: schema_of(&scope),
                kind: PlanKind::Filter {
                    input: Box::new(plan),
                    predicate,
                },
            };
        }
        Ok((plan, scope))
    }
}

fn unknown_column(table: &TableDef, name: &str) -> BindError {
    let hint = nearest(name, table.columns.iter().map(|c| c.name.as_str()));
    BindError::new(
        sqlstate::UNDEFINED_COLUMN,
        with_hint(
            format!(
                "column \"{name}\" of relation \"{}\" does not exist",
                table.name
            ),
            hint,
        ),
    )
}

/// Whether a VALUES item or SET value is the `DEFAULT` keyword.
/// 428C9 when a statement writes a value other than DEFAULT into a generated column.
fn refuse_generated(table: &TableDef, columns: &[usize]) -> Result<(), BindError> {
    match columns
        .iter()
        .filter_map(|&column| table.columns.get(column))
        .find(|column| column.generated.is_some())
    {
        Some(column) => Err(BindError::new(
            sqlstate::GENERATED_ALWAYS,
            format!(
                "cannot insert a non-DEFAULT value into column \"{}\" (it is a generated column)",
                column.name
            ),
        )),
        None => Ok(()),
    }
}

fn is_default_keyword(expr: &ast::Expr) -> bool {
    matches!(expr, ast::Expr::Identifier(ident) if ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case("default"))
}

/// The table an INSERT writes, as its source is bound.
struct InsertTarget<'a> {
    table: &'a TableDef,
    /// Whether the statement lists its columns (else the source may give fewer).
    explicit_columns: bool,
    /// Columns whose given values are replaced by their defaults (OVERRIDING USER VALUE).
    ignored: &'a [usize],
}
