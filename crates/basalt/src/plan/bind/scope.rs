//! Name scopes: the columns a query level can see, and how a name resolves among them.
//!
//! A scope lists the columns of the row an expression is evaluated over, in row order, each
//! with the table (or alias) that qualifies it. Resolution follows PostgreSQL: a qualified
//! name `t.c` matches columns of `t`; an unqualified name must match exactly one *visible*
//! column (42702 otherwise). *Hidden* columns — the right-hand copy of a `USING` column, the
//! row id of an UPDATE/DELETE input, `excluded.*` of ON CONFLICT — are reachable when
//! qualified, or unqualified when no visible column has the name, and never expand from `*`.
//! Names compare case-insensitively, as the catalog's do.

use crate::catalog::nearest;
use crate::plan::{ColumnSource, OutputColumn};
use crate::sqlstate;
use crate::types::DataType;

use super::error::{BindError, with_hint};

/// One column of a scope.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct ScopeColumn {
    pub name: String,
    pub table: Option<String>,
    pub data_type: DataType,
    pub hidden: bool,
    /// The stored column the values come from unchanged (see [`OutputColumn::source`]).
    pub source: Option<ColumnSource>,
}

/// The columns one query level's expressions can see, in input-row order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Scope {
    pub columns: Vec<ScopeColumn>,
    /// Positions `*` expands to, in order; `None` means every visible column in row order.
    /// Set by USING / NATURAL joins, whose merged columns come first.
    pub star: Option<Vec<usize>>,
}

impl Scope {
    /// A scope over a node's output, every column visible.
    pub fn from_schema(schema: &[OutputColumn]) -> Scope {
        Scope {
            columns: schema
                .iter()
                .map(|column| ScopeColumn {
                    name: column.name.clone(),
                    table: column.table.clone(),
                    data_type: column.data_type,
                    hidden: false,
                    source: column.source.clone(),
                })
                .collect(),
            star: None,
        }
    }

    /// The same columns re-qualified by `alias` (a derived table, view or CTE), with
    /// optional new column names.
    pub fn requalified(schema: &[OutputColumn], alias: &str, names: &[String]) -> Scope {
        let mut scope = Scope::from_schema(schema);
        for (position, column) in scope.columns.iter_mut().enumerate() {
            column.table = Some(alias.to_string());
            if let Some(name) = names.get(position) {
                column.name = name.clone();
            }
        }
        scope
    }

    /// The positions `*` expands to.
    pub fn star_positions(&self) -> Vec<usize> {
        match &self.star {
            Some(positions) => positions.clone(),
            None => (0..self.columns.len())
                .filter(|&i| !self.columns[i].hidden)
                .collect(),
        }
    }

    /// The positions `table.*` expands to (every column of that table, hidden or not, as
    /// PostgreSQL does for the tables of a USING join). Empty when the table is unknown.
    pub fn table_positions(&self, table: &str) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| {
                self.columns[i]
                    .table
                    .as_deref()
                    .is_some_and(|t| t.eq_ignore_ascii_case(table))
            })
            .collect()
    }

    /// Whether some column is qualified by `table`.
    pub fn has_table(&self, table: &str) -> bool {
        self.columns.iter().any(|column| {
            column
                .table
                .as_deref()
                .is_some_and(|t| t.eq_ignore_ascii_case(table))
        })
    }

    /// Resolves `[table.]name`: `Ok(None)` when no column matches (the caller then tries
    /// enclosing scopes), 42702 when several do.
    pub fn resolve(&self, table: Option<&str>, name: &str) -> Result<Option<usize>, BindError> {
        let matches = |column: &ScopeColumn| {
            column.name.eq_ignore_ascii_case(name)
                && match table {
                    Some(table) => column
                        .table
                        .as_deref()
                        .is_some_and(|t| t.eq_ignore_ascii_case(table)),
                    None => true,
                }
        };
        let visible: Vec<usize> = (0..self.columns.len())
            .filter(|&i| !self.columns[i].hidden && matches(&self.columns[i]))
            .collect();
        let candidates = if visible.is_empty() {
            (0..self.columns.len())
                .filter(|&i| self.columns[i].hidden && matches(&self.columns[i]))
                .collect()
        } else {
            visible
        };
        match candidates.as_slice() {
            [] => Ok(None),
            [only] => Ok(Some(*only)),
            _ => Err(BindError::new(
                sqlstate::AMBIGUOUS_COLUMN,
                format!(
                    "column reference \"{}\" is ambiguous",
                    qualified_name(table, name)
                ),
            )),
        }
    }

    /// The 42703 error for a name no scope has, with the nearest visible name as a hint.
    pub fn unknown_column(&self, table: Option<&str>, name: &str) -> BindError {
        let message = match table {
            Some(table) if !self.has_table(table) => {
                return BindError::new(
                    sqlstate::UNDEFINED_TABLE,
                    format!("missing FROM-clause entry for table \"{table}\""),
                );
            }
            _ => format!("column \"{}\" does not exist", qualified_name(table, name)),
        };
        let hint = nearest(name, self.columns.iter().map(|c| c.name.as_str()));
        BindError::new(sqlstate::UNDEFINED_COLUMN, with_hint(message, hint))
    }
}

fn qualified_name(table: Option<&str>, name: &str) -> String {
    match table {
        Some(table) => format!("{table}.{name}"),
        None => name.to_string(),
    }
}
