//! INSERT, UPDATE and DELETE on a view, carried out by the view's INSTEAD OF triggers.
//!
//! A view's rows cannot be changed themselves; with an INSTEAD OF trigger for the event
//! (SQLite's rule: one INSERT trigger makes INSERT on the view legal, and so on), the
//! statement instead runs the trigger's program once per affected row. The binder turns the
//! statement into a [`ViewModification`]: a plan producing, per row, the OLD row (the view
//! row the UPDATE or DELETE selects) followed by the NEW row (what the INSERT gives, or the
//! view row with the UPDATE's assignments applied). The executor
//! (`crate::exec::triggers::execute_view_modification`) fires the triggers with those rows as
//! NEW and OLD; the underlying tables change only as the trigger programs change them.
//!
//! The plans are built from SQL over the view (`SELECT *, <new values> FROM view WHERE ...`)
//! so that WHERE and the assignments see the view's columns exactly as a query would. A
//! statement on a view without a matching INSTEAD OF trigger stays an error (0A000), as is
//! RETURNING on a view.

use sqlparser::ast;

use crate::catalog::{TriggerEvent, TriggerTiming};
use crate::plan::{Expr, OutputColumn, PlanKind, PlanNode, ViewModification};
use crate::sqlstate;
use crate::types::Value;

use super::error::BindError;
use super::expr::coerce;
use super::types::assignable;
use super::{Binder, ident_name, object_name};

/// The view an INSERT, UPDATE or DELETE targets, if it targets a view (not a table).
pub(super) fn target_view(statement: &ast::Statement) -> Option<&ast::ObjectName> {
    let name = match statement {
        ast::Statement::Insert(insert) => match &insert.table {
            ast::TableObject::TableName(name) => name,
            _ => return None,
        },
        ast::Statement::Update(update) => match &update.table.relation {
            ast::TableFactor::Table { name, .. } => name,
            _ => return None,
        },
        ast::Statement::Delete(delete) => match &delete.from {
            ast::FromTable::WithFromKeyword(from) | ast::FromTable::WithoutKeyword(from) => {
                match from.first().map(|item| &item.relation) {
                    Some(ast::TableFactor::Table { name, .. }) => name,
                    _ => return None,
                }
            }
        },
        _ => return None,
    };
    Some(name)
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

impl Binder<'_> {
    /// Whether `name` is a view (and not a table), so the statement needs INSTEAD OF.
    pub(super) fn is_view(&self, name: &ast::ObjectName) -> bool {
        object_name(name).is_ok_and(|name| {
            self.catalog.table(&name).is_none()
                && self.catalog.views.contains_key(&name.to_lowercase())
        })
    }

    /// Binds an INSERT, UPDATE or DELETE on view `name` into a [`ViewModification`].
    pub(super) fn bind_view_modification(
        &mut self,
        statement: &ast::Statement,
        name: &ast::ObjectName,
    ) -> Result<ViewModification, BindError> {
        let view_name = object_name(name)?;
        let view = self
            .catalog
            .views
            .get(&view_name.to_lowercase())
            .cloned()
            .ok_or_else(|| {
                BindError::new(
                    sqlstate::UNDEFINED_TABLE,
                    format!("view \"{view_name}\" does not exist"),
                )
            })?;
        let row = super::trigger_row(&view.name, self.catalog)?;
        let (event, rows) = match statement {
            ast::Statement::Insert(insert) => {
                if insert.returning.is_some() || insert.on.is_some() || insert.or.is_some() {
                    return Err(BindError::unsupported(
                        "RETURNING, ON CONFLICT and OR in an INSERT on a view",
                    ));
                }
                (TriggerEvent::Insert, self.view_insert_rows(insert, &row)?)
            }
            ast::Statement::Update(update) => {
                if update.returning.is_some() || update.from.is_some() {
                    return Err(BindError::unsupported(
                        "RETURNING and FROM in an UPDATE on a view",
                    ));
                }
                let mut new_values: Vec<String> =
                    row.iter().map(|(column, _)| quoted(column)).collect();
                let mut assigned = Vec::new();
                for assignment in &update.assignments {
                    let ast::AssignmentTarget::ColumnName(column) = &assignment.target else {
                        return Err(BindError::unsupported("tuple assignment on a view"));
                    };
                    let column = object_name(column)?;
                    let Some(position) = row
                        .iter()
                        .position(|(name, _)| name.eq_ignore_ascii_case(&column))
                    else {
                        return Err(BindError::new(
                            sqlstate::UNDEFINED_COLUMN,
                            format!(
                                "column \"{column}\" of relation \"{}\" does not exist",
                                view.name
                            ),
                        ));
                    };
                    new_values[position] = format!("({})", assignment.value);
                    assigned.push(row[position].0.clone());
                }
                let sql = format!(
                    "SELECT *, {} FROM {}{}{}",
                    new_values.join(", "),
                    quoted(&view.name),
                    alias_text(&update.table.relation),
                    where_text(update.selection.as_ref())
                );
                (TriggerEvent::Update(assigned), self.bind_view_query(&sql)?)
            }
            ast::Statement::Delete(delete) => {
                if delete.returning.is_some() {
                    return Err(BindError::unsupported("RETURNING in a DELETE on a view"));
                }
                let from = match &delete.from {
                    ast::FromTable::WithFromKeyword(from)
                    | ast::FromTable::WithoutKeyword(from) => from,
                };
                if from.len() != 1 || !delete.tables.is_empty() || delete.using.is_some() {
                    return Err(BindError::unsupported("DELETE from several relations"));
                }
                let sql = format!(
                    "SELECT * FROM {}{}{}",
                    quoted(&view.name),
                    alias_text(&from[0].relation),
                    where_text(delete.selection.as_ref())
                );
                (TriggerEvent::Delete, self.bind_view_query(&sql)?)
            }
            _ => return Err(BindError::syntax("not a modification of a view")),
        };
        let fires = self.catalog.triggers_of(&view.name).any(|trigger| {
            trigger.timing == TriggerTiming::InsteadOf
                && std::mem::discriminant(&trigger.event) == std::mem::discriminant(&event)
        });
        if !fires {
            let verb = match event {
                TriggerEvent::Insert => "insert into",
                TriggerEvent::Update(_) => "update",
                TriggerEvent::Delete => "delete from",
            };
            return Err(BindError::unsupported(format!(
                "modifying view \"{}\" (cannot {verb} a view without an INSTEAD OF trigger for it)",
                view.name
            )));
        }
        Ok(ViewModification {
            view: view.name.clone(),
            event,
            rows,
            width: row.len(),
        })
    }

    /// Binds a query over the view (its text built here) as part of this statement, so
    /// placeholders in the user's WHERE and SET keep their numbers.
    fn bind_view_query(&mut self, sql: &str) -> Result<PlanNode, BindError> {
        let query = super::parse_stored_query(sql)?;
        self.bind_query(&query)
    }

    /// The NEW rows of an INSERT on a view: the source's columns placed at the named view
    /// columns (all of them, in order, when none are named), NULL elsewhere.
    fn view_insert_rows(
        &mut self,
        insert: &ast::Insert,
        row: &super::TriggerRow,
    ) -> Result<PlanNode, BindError> {
        let targets: Vec<usize> = if insert.columns.is_empty() {
            (0..row.len()).collect()
        } else {
            insert
                .columns
                .iter()
                .map(|column| {
                    let column = object_name(column)?;
                    row.iter()
                        .position(|(name, _)| name.eq_ignore_ascii_case(&column))
                        .ok_or_else(|| {
                            BindError::new(
                                sqlstate::UNDEFINED_COLUMN,
                                format!("column \"{column}\" does not exist"),
                            )
                        })
                })
                .collect::<Result<_, _>>()?
        };
        let source = match &insert.source {
            Some(query) => self.bind_query(query)?,
            None => PlanNode {
                kind: PlanKind::Values {
                    rows: vec![Vec::new()],
                },
                schema: Vec::new(),
            },
        };
        if source.schema.len() > targets.len()
            || (!insert.columns.is_empty() && source.schema.len() < targets.len())
        {
            return Err(BindError::syntax(
                "INSERT has a different number of target columns and expressions",
            ));
        }
        let mut exprs = Vec::with_capacity(row.len());
        let mut schema = Vec::with_capacity(row.len());
        for (position, (name, data_type)) in row.iter().enumerate() {
            let given = targets
                .iter()
                .position(|&target| target == position)
                .and_then(|index| {
                    source
                        .schema
                        .get(index)
                        .map(|column| (index, column.data_type))
                });
            let expr = match given {
                Some((index, from)) => {
                    if !assignable(from, *data_type) {
                        return Err(BindError::mismatch(format!(
                            "column \"{name}\" is of type {data_type} but expression is of type {from}"
                        )));
                    }
                    coerce(
                        Expr::Column {
                            index,
                            data_type: from,
                        },
                        *data_type,
                    )
                }
                None => Expr::Literal {
                    value: Value::Null,
                    data_type: *data_type,
                },
            };
            exprs.push(expr);
            schema.push(OutputColumn {
                name: name.clone(),
                table: None,
                data_type: *data_type,
                source: None,
            });
        }
        Ok(PlanNode {
            kind: PlanKind::Project {
                input: Box::new(source),
                exprs,
            },
            schema,
        })
    }
}

/// ` AS alias` when the statement gave the view one.
fn alias_text(relation: &ast::TableFactor) -> String {
    match relation {
        ast::TableFactor::Table {
            alias: Some(alias), ..
        } => format!(" AS {}", quoted(&ident_name(&alias.name))),
        _ => String::new(),
    }
}

fn where_text(selection: Option<&ast::Expr>) -> String {
    selection.map_or_else(String::new, |condition| format!(" WHERE {condition}"))
}
