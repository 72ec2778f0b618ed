//! The schema statements pg_dump's plain output is made of, beyond CREATE TABLE and
//! ADD CONSTRAINT: `ALTER TABLE ... ALTER COLUMN ... SET DEFAULT` / `DROP DEFAULT`,
//! `ALTER TABLE ... ALTER COLUMN ... ADD GENERATED ... AS IDENTITY (...)`, and the two that
//! change nothing Basalt keeps, `ALTER TABLE ... OWNER TO` and `COMMENT ON`.
//!
//! Defaults and identities are bound with CREATE TABLE's rules and PostgreSQL's errors (a
//! default is validated as a column DEFAULT; an identity needs a NOT NULL integer column
//! without a default, 55000 otherwise), so the executor only stores the new definition (and
//! allocates an identity's sequence). OWNER TO and COMMENT ON check that the object exists
//! (42P01 / 42703 as PostgreSQL) and bind to [`DdlStatement::NoEffect`]: Basalt has no roles,
//! and comments are not stored (docs/sql.md).

use sqlparser::ast;

use crate::catalog::TableDef;
use crate::plan::ddl::{AlterTable, DdlStatement};
use crate::sqlstate;

use super::error::BindError;
use super::sequence::SequenceOptions;
use super::{Binder, ident_name, object_name};

fn undefined_relation(name: &str) -> BindError {
    BindError::new(
        sqlstate::UNDEFINED_TABLE,
        format!("relation \"{name}\" does not exist"),
    )
}

fn prerequisite(message: String) -> BindError {
    BindError::new(sqlstate::OBJECT_NOT_IN_PREREQUISITE_STATE, message)
}

impl Binder<'_> {
    /// Whether a table, view or sequence (what `ALTER TABLE` may name in PostgreSQL) is
    /// called `name`.
    fn relation_exists(&self, name: &str) -> bool {
        let key = name.to_lowercase();
        self.catalog.table(name).is_some()
            || self.catalog.views.contains_key(&key)
            || self.catalog.sequences.contains_key(&key)
    }

    /// `ALTER TABLE name OWNER TO role`: no roles to change; the relation must exist.
    pub(super) fn bind_owner_to(
        &self,
        name: &str,
        if_exists: bool,
    ) -> Result<DdlStatement, BindError> {
        if !if_exists && !self.relation_exists(name) {
            return Err(undefined_relation(name));
        }
        Ok(DdlStatement::NoEffect)
    }

    /// `COMMENT ON object IS '...'`: the object must exist; the text is not kept. Objects
    /// Basalt has no catalog of (schemas, extensions, functions, types, ...) are accepted as
    /// they come: pg_dump writes `COMMENT ON SCHEMA public` and `COMMENT ON EXTENSION`.
    pub(super) fn bind_comment(
        &self,
        object_type: &ast::CommentObject,
        object_name: &ast::ObjectName,
        if_exists: bool,
    ) -> Result<DdlStatement, BindError> {
        let parts = crate::sql::object_name_parts(object_name);
        let found = match object_type {
            ast::CommentObject::Table
            | ast::CommentObject::MaterializedView
            | ast::CommentObject::Sequence => self.relation_exists(&object_name_text(object_name)?),
            ast::CommentObject::Index => self
                .catalog
                .indexes
                .contains_key(&object_name_text(object_name)?.to_lowercase()),
            ast::CommentObject::Column => {
                // `[schema.]table.column`: the last part is the column.
                let [.., table, column] = parts.as_slice() else {
                    return Err(BindError::syntax(format!(
                        "column name must be qualified: {object_name}"
                    )));
                };
                match self.catalog.table(table) {
                    Some(def) if def.column(column).is_some() => true,
                    Some(_) => {
                        return Err(BindError::new(
                            sqlstate::UNDEFINED_COLUMN,
                            format!("column \"{column}\" of relation \"{table}\" does not exist"),
                        ));
                    }
                    // A view's columns may be commented too.
                    None => self.catalog.views.contains_key(&table.to_lowercase()),
                }
            }
            _ => true,
        };
        if !found && !if_exists {
            return Err(undefined_relation(&object_name.to_string()));
        }
        Ok(DdlStatement::NoEffect)
    }

    /// `ALTER TABLE t ALTER [COLUMN] c op` for SET DEFAULT, DROP DEFAULT and ADD GENERATED
    /// AS IDENTITY. `sequence_name` is the identity's `SEQUENCE NAME` (carried by the
    /// dialect, see `sql::identity_syntax`).
    pub(super) fn bind_alter_column(
        &mut self,
        table: &TableDef,
        column_name: &ast::Ident,
        op: &ast::AlterColumnOperation,
        sequence_name: Option<&ast::Ident>,
    ) -> Result<AlterTable, BindError> {
        let name = ident_name(column_name);
        let Some((position, column)) = table.column(&name) else {
            return Err(BindError::new(
                sqlstate::UNDEFINED_COLUMN,
                format!(
                    "column \"{name}\" of relation \"{}\" does not exist",
                    table.name
                ),
            ));
        };
        let column = column.clone();
        let identity = self
            .catalog
            .sequences
            .values()
            .any(|sequence| sequence.is_identity_of(&table.name, &column.name));
        let column_kind_error = |what: &str| {
            BindError::new(
                sqlstate::SYNTAX_ERROR,
                format!(
                    "column \"{}\" of relation \"{}\" is {what}",
                    column.name, table.name
                ),
            )
        };
        match op {
            ast::AlterColumnOperation::SetDefault { value } => {
                if identity {
                    return Err(column_kind_error("an identity column"));
                }
                if column.generated.is_some() {
                    return Err(column_kind_error("a generated column"));
                }
                self.check_constant(value, column.data_type, &column.name)?;
                Ok(AlterTable::SetDefault {
                    table: table.name.clone(),
                    column: position,
                    default: Some(value.to_string()),
                })
            }
            ast::AlterColumnOperation::DropDefault => {
                if identity {
                    return Err(column_kind_error("an identity column"));
                }
                Ok(AlterTable::SetDefault {
                    table: table.name.clone(),
                    column: position,
                    default: None,
                })
            }
            ast::AlterColumnOperation::AddGenerated {
                generated_as,
                sequence_options,
            } => {
                let always = match generated_as {
                    Some(ast::GeneratedAs::ByDefault) => false,
                    Some(ast::GeneratedAs::Always) | None => true,
                    Some(ast::GeneratedAs::ExpStored) => {
                        return Err(BindError::syntax("STORED is not an identity option"));
                    }
                };
                let declared = column.declared_type.to_lowercase();
                let maximum = match declared.as_str() {
                    "smallint" | "int2" => i64::from(i16::MAX),
                    "int" | "integer" | "int4" => i64::from(i32::MAX),
                    "bigint" | "int8" => i64::MAX,
                    _ => {
                        return Err(BindError::new(
                            sqlstate::INVALID_PARAMETER_VALUE,
                            format!(
                                "identity column type must be smallint, integer, or bigint, not {}",
                                column.declared_type
                            ),
                        ));
                    }
                };
                if identity {
                    return Err(prerequisite(format!(
                        "column \"{}\" of relation \"{}\" is already an identity column",
                        column.name, table.name
                    )));
                }
                if !column.not_null {
                    return Err(prerequisite(format!(
                        "column \"{}\" of relation \"{}\" must be declared NOT NULL before identity can be added",
                        column.name, table.name
                    )));
                }
                if column.default.is_some() || column.generated.is_some() {
                    return Err(prerequisite(format!(
                        "column \"{}\" of relation \"{}\" already has a default value",
                        column.name, table.name
                    )));
                }
                let mut options =
                    SequenceOptions::from_ast(sequence_options.as_deref().unwrap_or_default())?;
                let ascending = options.increment.unwrap_or(1) > 0;
                if ascending && options.max_value.flatten().is_none() {
                    options.max_value = Some(Some(maximum));
                }
                if !ascending && options.min_value.flatten().is_none() {
                    options.min_value = Some(Some(-maximum - 1));
                }
                let sequence_name = sequence_name
                    .map_or_else(|| format!("{}_{}_seq", table.name, column.name), ident_name);
                if self.relation_exists(&sequence_name) {
                    return Err(BindError::new(
                        sqlstate::DUPLICATE_TABLE,
                        format!("relation \"{sequence_name}\" already exists"),
                    ));
                }
                let mut sequence = options.definition(sequence_name)?;
                sequence.owner = Some(table.name.clone());
                sequence.identity = Some((column.name.clone(), always));
                Ok(AlterTable::AddIdentity {
                    table: table.name.clone(),
                    column: position,
                    sequence,
                })
            }
            other => Err(BindError::unsupported(format!(
                "ALTER TABLE ALTER COLUMN {other}"
            ))),
        }
    }
}

/// The `SEQUENCE NAME` of an `ADD GENERATED ... AS IDENTITY`, which the dialect carries in
/// the statement's `on_cluster` field (`sql::identity_syntax`); no other ALTER TABLE may
/// have that field (ClickHouse's ON CLUSTER).
pub(super) fn identity_sequence_name(
    alter: &ast::AlterTable,
) -> Result<Option<&ast::Ident>, BindError> {
    match (alter.operations.as_slice(), &alter.on_cluster) {
        (
            [
                ast::AlterTableOperation::AlterColumn {
                    op: ast::AlterColumnOperation::AddGenerated { .. },
                    ..
                },
            ],
            name,
        ) => Ok(name.as_ref()),
        (_, None) => Ok(None),
        (_, Some(_)) => Err(BindError::unsupported("ON CLUSTER")),
    }
}

/// The (last part of the) name, folded.
fn object_name_text(name: &ast::ObjectName) -> Result<String, BindError> {
    object_name(name)
}
