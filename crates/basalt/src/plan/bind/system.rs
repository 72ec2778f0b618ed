//! The catalog as SQL relations: `information_schema.tables`, `information_schema.columns`
//! and `basalt_schema` (also reachable as SQLite's `sqlite_schema` / `sqlite_master`).
//!
//! Each is computed from the binder's catalog snapshot into a constant `VALUES` node, so a
//! query over it is planned like any other subquery (filters, joins, sorts) and sees exactly
//! the schema its statement is bound against — inside a transaction, that transaction's own
//! uncommitted DDL. Freezing the rows into the plan is safe for prepared statements because
//! every schema change invalidates cached plans, so a statement re-binds (and re-reads the
//! catalog) after DDL.
//!
//! Name resolution: anything qualified with `information_schema.` is one of these relations
//! (an unknown name there is 42P01); the unqualified `basalt_schema`, `sqlite_schema` and
//! `sqlite_master` are, unless a table or view of that name exists, which takes precedence as
//! an ordinary user object would.
//!
//! The shapes follow PostgreSQL's information_schema for the columns they share (Basalt has one
//! catalog, reported as `main`, and one schema, `public`), and SQLite's `sqlite_schema` for
//! `basalt_schema` (`type`, `name`, `tbl_name`, `sql`), with statements rebuilt from the catalog
//! by `catalog::describe` — the same text the shell's `.schema` prints.

use sqlparser::ast;

use crate::catalog::describe::{SchemaKind, describe_catalog};
use crate::sqlstate;
use std::sync::Arc;

use crate::catalog::{ColumnDef, TableDef, ViewDef};
use crate::plan::expr::Expr;
use crate::plan::{OutputColumn, PlanKind, PlanNode};
use crate::types::{DataType, Value};

use super::Binder;
use super::error::BindError;
use crate::sql::object_name_parts;

/// The catalog name reported in `table_catalog`.
const CATALOG_NAME: &str = "main";
/// The schema name reported in `table_schema`.
const SCHEMA_NAME: &str = "public";

impl Binder<'_> {
    /// The system relation `name` refers to, if it is one (see the module documentation).
    pub(super) fn system_relation(
        &mut self,
        name: &ast::ObjectName,
    ) -> Result<Option<PlanNode>, BindError> {
        let parts = object_name_parts(name);
        if let Some(plan) = self.pg_catalog_relation(&parts)? {
            return Ok(Some(plan));
        }
        match parts.as_slice() {
            [schema, relation] if schema == "information_schema" => match relation.as_str() {
                "tables" => Ok(Some(self.information_schema_tables())),
                "columns" => self.information_schema_columns().map(Some),
                _ => Err(BindError::new(
                    sqlstate::UNDEFINED_TABLE,
                    format!("relation \"information_schema.{relation}\" does not exist"),
                )),
            },
            [relation]
                if matches!(
                    relation.as_str(),
                    "basalt_schema" | "sqlite_schema" | "sqlite_master"
                ) && self.catalog.table(relation).is_none()
                    && !self.catalog.views.contains_key(relation) =>
            {
                Ok(Some(self.basalt_schema()))
            }
            _ => Ok(None),
        }
    }

    /// The catalog's tables in name order.
    fn tables_by_name(&self) -> Vec<Arc<TableDef>> {
        let mut tables: Vec<_> = self.catalog.tables.values().cloned().collect();
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        tables
    }

    /// The catalog's views in name order (owned handles: binding a view needs `&mut self`).
    fn views_by_name(&self) -> Vec<Arc<ViewDef>> {
        let mut views: Vec<_> = self.catalog.views.values().cloned().collect();
        views.sort_by(|a, b| a.name.cmp(&b.name));
        views
    }

    fn information_schema_tables(&self) -> PlanNode {
        let mut rows = Vec::new();
        for table in self.tables_by_name() {
            rows.push(vec![
                text(CATALOG_NAME),
                text(SCHEMA_NAME),
                text(&table.name),
                text("BASE TABLE"),
            ]);
        }
        for view in self.views_by_name() {
            rows.push(vec![
                text(CATALOG_NAME),
                text(SCHEMA_NAME),
                text(&view.name),
                text("VIEW"),
            ]);
        }
        values(
            &[
                ("table_catalog", DataType::Text(None)),
                ("table_schema", DataType::Text(None)),
                ("table_name", DataType::Text(None)),
                ("table_type", DataType::Text(None)),
            ],
            rows,
        )
    }

    fn information_schema_columns(&mut self) -> Result<PlanNode, BindError> {
        let mut rows = Vec::new();
        for table in self.tables_by_name() {
            for (position, column) in table.columns.iter().enumerate() {
                let not_null = column.not_null
                    || table.row_id_column == Some(position)
                    || table.primary_key.contains(&position);
                let mut row = column_row(
                    &table.name,
                    &column.name,
                    position,
                    column.default.as_deref(),
                    !not_null,
                    &declared_type_name(column),
                    column.max_length().map(i64::from),
                );
                row.extend(generation_facts(column.generated.as_deref()));
                rows.push(row);
            }
        }
        for view in self.views_by_name() {
            // A view's column types are its query's: bind it as a FROM item would.
            let plan = self.bind_view(&view)?;
            for (position, output) in plan.schema.iter().enumerate() {
                let name = view.column_names.get(position).unwrap_or(&output.name);
                let mut row = column_row(
                    &view.name,
                    name,
                    position,
                    None,
                    true,
                    computed_type_name(output.data_type),
                    None,
                );
                row.extend(generation_facts(None));
                rows.push(row);
            }
        }
        Ok(values(
            &[
                ("table_catalog", DataType::Text(None)),
                ("table_schema", DataType::Text(None)),
                ("table_name", DataType::Text(None)),
                ("column_name", DataType::Text(None)),
                ("ordinal_position", DataType::Integer),
                ("column_default", DataType::Text(None)),
                ("is_nullable", DataType::Text(None)),
                ("data_type", DataType::Text(None)),
                ("character_maximum_length", DataType::Integer),
                ("is_generated", DataType::Text(None)),
                ("generation_expression", DataType::Text(None)),
            ],
            rows,
        ))
    }

    fn basalt_schema(&self) -> PlanNode {
        let rows = describe_catalog(self.catalog)
            .into_iter()
            .map(|object| {
                let kind = match object.kind {
                    SchemaKind::Table => "table",
                    SchemaKind::Index => "index",
                    SchemaKind::View => "view",
                    SchemaKind::Trigger => "trigger",
                    SchemaKind::Sequence => "sequence",
                };
                vec![
                    text(kind),
                    text(&object.name),
                    text(&object.table),
                    text(&object.sql),
                ]
            })
            .collect();
        values(
            &[
                ("type", DataType::Text(None)),
                ("name", DataType::Text(None)),
                ("tbl_name", DataType::Text(None)),
                ("sql", DataType::Text(None)),
            ],
            rows,
        )
    }
}

/// `is_generated` and `generation_expression` of `information_schema.columns`.
fn generation_facts(expression: Option<&str>) -> [Expr; 2] {
    [
        text(if expression.is_some() {
            "ALWAYS"
        } else {
            "NEVER"
        }),
        expression.map_or_else(|| literal(Value::Null, DataType::Text(None)), text),
    ]
}

/// One row of `information_schema.columns` (`position` counts from 0 here, from 1 in SQL),
/// up to `character_maximum_length`.
fn column_row(
    table: &str,
    column: &str,
    position: usize,
    default: Option<&str>,
    nullable: bool,
    data_type: &str,
    max_length: Option<i64>,
) -> Vec<Expr> {
    vec![
        text(CATALOG_NAME),
        text(SCHEMA_NAME),
        text(table),
        text(column),
        literal(Value::Integer(position as i64 + 1), DataType::Integer),
        default.map_or_else(|| literal(Value::Null, DataType::Text(None)), text),
        text(if nullable { "YES" } else { "NO" }),
        text(data_type),
        literal(
            max_length.map_or(Value::Null, Value::Integer),
            DataType::Integer,
        ),
    ]
}

/// PostgreSQL's `data_type` spelling for a column's declared type (`VARCHAR(20)` is
/// `character varying`), falling back to the name of the type Basalt stores.
fn declared_type_name(column: &ColumnDef) -> String {
    let declared = column.declared_type.to_ascii_lowercase();
    let base = declared.split('(').next().unwrap_or_default().trim();
    let name = match base {
        "int" | "integer" | "int4" => "integer",
        "bigint" | "int8" => "bigint",
        "smallint" | "int2" => "smallint",
        "real" | "float4" => "real",
        "double precision" | "double" | "float" | "float8" => "double precision",
        "numeric" | "decimal" => "numeric",
        "text" => "text",
        "varchar" | "character varying" => "character varying",
        "char" | "character" => "character",
        "boolean" | "bool" => "boolean",
        "blob" | "bytea" => "bytea",
        "date" => "date",
        "timestamp" | "timestamp without time zone" => "timestamp without time zone",
        "timestamptz" | "timestamp with time zone" => "timestamp with time zone",
        "time" | "time without time zone" => "time without time zone",
        _ => column.data_type.name(),
    };
    name.to_string()
}

/// PostgreSQL's `data_type` for a type with no declared name (a view's column, computed by
/// its query). Basalt's REAL is a double: PostgreSQL's `double precision`.
fn computed_type_name(data_type: DataType) -> &'static str {
    match data_type {
        DataType::Real => "double precision",
        DataType::Text(Some(_)) => "character varying",
        DataType::Timestamp => "timestamp without time zone",
        DataType::TimestampTz => "timestamp with time zone",
        DataType::Time(_) => "time without time zone",
        other => other.name(),
    }
}

fn text(value: &str) -> Expr {
    literal(Value::Text(value.into()), DataType::Text(None))
}

fn literal(value: Value, data_type: DataType) -> Expr {
    Expr::Literal { value, data_type }
}

/// A constant relation with the given columns.
fn values(columns: &[(&str, DataType)], rows: Vec<Vec<Expr>>) -> PlanNode {
    PlanNode {
        kind: PlanKind::Values { rows },
        schema: columns
            .iter()
            .map(|(name, data_type)| OutputColumn {
                name: (*name).to_string(),
                table: None,
                data_type: *data_type,
                source: None,
            })
            .collect(),
    }
}
