//! Column definitions and table constraints, for CREATE TABLE and ALTER TABLE ADD COLUMN.
//!
//! A column definition becomes a [`ColumnDef`]: its type (as `types.rs` maps declared types),
//! NOT NULL, a DEFAULT validated as a constant expression of the column's type, a generation
//! expression (checked over the whole row by `super::bind_generated_column` once every
//! column is known), and a SERIAL type or IDENTITY clause (`sequence.rs`). Column-level and
//! table-level constraints — PRIMARY KEY, UNIQUE, CHECK, REFERENCES, AUTOINCREMENT — are
//! gathered into [`Constraints`] for `ddl.rs` to turn into the table's definition.

use sqlparser::ast;

use crate::catalog::{ColumnDef, ForeignKeyDef};
use crate::sqlstate;
use crate::types::DataType;

use super::aggregate::AggregateContext;
use super::error::BindError;
use super::foreign_key::foreign_key;
use super::scope::Scope;
use super::types::{assignable, sql_type};
use super::{Binder, ident_name};

/// Constraints gathered while binding CREATE TABLE.
#[derive(Default)]
pub(super) struct Constraints {
    pub(super) primary_key: Option<(Vec<usize>, bool)>,
    pub(super) unique: Vec<Vec<usize>>,
    pub(super) checks: Vec<String>,
    pub(super) foreign_keys: Vec<ForeignKeyDef>,
    /// Sequences of SERIAL and identity columns.
    pub(super) sequences: Vec<crate::catalog::SequenceDef>,
    /// The column declared AUTOINCREMENT (SQLite), if any.
    pub(super) autoincrement: Option<usize>,
}

pub(super) fn multiple_primary_keys(table: &str) -> BindError {
    BindError::new(
        sqlstate::INVALID_TABLE_DEFINITION,
        format!("multiple primary keys for table \"{table}\" are not allowed"),
    )
}

impl Binder<'_> {
    /// A column definition; column-level constraints go to `constraints`.
    pub(super) fn bind_column_def(
        &mut self,
        column: &ast::ColumnDef,
        position: usize,
        constraints: &mut Constraints,
        table_name: &str,
    ) -> Result<ColumnDef, BindError> {
        let declared = column.data_type.to_string();
        if let Some(base) = crate::catalog::serial_base_type(&declared) {
            return self.bind_serial_column(column, base, position, constraints, table_name);
        }
        let data_type = sql_type(&column.data_type)?;
        let mut def = ColumnDef {
            name: ident_name(&column.name),
            data_type,
            declared_type: match column.data_type {
                ast::DataType::Unspecified => String::new(),
                ref declared => declared.to_string(),
            },
            not_null: false,
            default: None,
            generated: None,
            slot: position,
        };
        for option in &column.options {
            match &option.option {
                ast::ColumnOption::Null => def.not_null = false,
                ast::ColumnOption::NotNull => def.not_null = true,
                ast::ColumnOption::Default(expr) => {
                    self.check_constant(expr, data_type, &def.name)?;
                    def.default = Some(expr.to_string());
                }
                ast::ColumnOption::PrimaryKey(key) => {
                    if constraints.primary_key.is_some() {
                        return Err(multiple_primary_keys(table_name));
                    }
                    let descending = key
                        .columns
                        .iter()
                        .any(|c| matches!(c.column.options.sort, Some(ast::OrderBySort::Desc)));
                    constraints.primary_key = Some((vec![position], descending));
                }
                ast::ColumnOption::Unique(_) => constraints.unique.push(vec![position]),
                ast::ColumnOption::ForeignKey(key) => {
                    constraints.foreign_keys.push(foreign_key(
                        vec![position],
                        key,
                        option.name.as_ref(),
                    )?);
                }
                ast::ColumnOption::Check(check) => constraints.checks.push(check.expr.to_string()),
                // `GENERATED ALWAYS AS (expr) STORED` (the parser requires STORED, as
                // PostgreSQL does).
                ast::ColumnOption::Generated {
                    generation_expr: Some(expr),
                    ..
                } => {
                    if def.generated.is_some() {
                        return Err(BindError::new(
                            sqlstate::SYNTAX_ERROR,
                            format!(
                                "multiple generation clauses specified for column \"{}\" of table \"{table_name}\"",
                                def.name
                            ),
                        ));
                    }
                    def.generated = Some(expr.to_string());
                }
                ast::ColumnOption::Generated {
                    generated_as,
                    sequence_options,
                    generation_expr: None,
                    ..
                } => {
                    let always = match generated_as {
                        ast::GeneratedAs::Always => true,
                        ast::GeneratedAs::ByDefault => false,
                        // sqlparser sets this only with an expression (the arm above).
                        ast::GeneratedAs::ExpStored => {
                            return Err(BindError::syntax("STORED without an expression"));
                        }
                    };
                    self.bind_identity(
                        &mut def,
                        always,
                        sequence_options.as_deref().unwrap_or_default(),
                        column,
                        constraints,
                        table_name,
                    )?;
                }
                ast::ColumnOption::DialectSpecific(tokens)
                    if tokens.iter().any(|token| {
                        matches!(token, sqlparser::tokenizer::Token::Word(word)
                            if word.keyword == sqlparser::keywords::Keyword::AUTOINCREMENT)
                    }) =>
                {
                    constraints.autoincrement = Some(position);
                }
                // The binary collation is what every column has; NOCASE on a column is not
                // supported (see collate.rs), and unknown names are 42704.
                ast::ColumnOption::Collation(name) => {
                    if super::collate::collation(name)? != super::collate::Collation::Binary {
                        return Err(BindError::unsupported(format!(
                            "COLLATE {name} on a column (write expr COLLATE {name} in queries)"
                        )));
                    }
                }
                // Comments, other dialect-specific words and conflict clauses do not change
                // what is stored.
                ast::ColumnOption::Comment(_)
                | ast::ColumnOption::DialectSpecific(_)
                | ast::ColumnOption::OnConflict(_)
                | ast::ColumnOption::CharacterSet(_) => {}
                other => return Err(BindError::unsupported(format!("column option {other}"))),
            }
        }
        if def.generated.is_some() {
            let conflict = if def.default.is_some() {
                Some("default")
            } else if constraints.sequences.iter().any(|sequence| {
                sequence
                    .identity
                    .as_ref()
                    .is_some_and(|(c, _)| *c == def.name)
            }) {
                Some("identity")
            } else {
                None
            };
            if let Some(conflict) = conflict {
                return Err(BindError::new(
                    sqlstate::SYNTAX_ERROR,
                    format!(
                        "both {conflict} and generation expression specified for column \"{}\" of table \"{table_name}\"",
                        def.name
                    ),
                ));
            }
        }
        Ok(def)
    }

    /// Validates a DEFAULT expression: no columns, assignable to the column.
    pub(super) fn check_constant(
        &mut self,
        expr: &ast::Expr,
        data_type: DataType,
        column: &str,
    ) -> Result<(), BindError> {
        let saved = std::mem::replace(
            &mut self.aggregates,
            AggregateContext::Forbidden("DEFAULT expressions"),
        );
        let outer = std::mem::take(&mut self.outer);
        let bound = self.bind_expr(expr, &Scope::default());
        self.outer = outer;
        self.aggregates = saved;
        let bound = bound?;
        let bound = self.resolve_untyped(bound, expr, data_type)?;
        if !assignable(bound.data_type(), data_type) {
            return Err(BindError::mismatch(format!(
                "column \"{column}\" is of type {data_type} but default expression is of type {}",
                bound.data_type()
            )));
        }
        Ok(())
    }

    pub(super) fn bind_table_constraint(
        &mut self,
        constraint: &ast::TableConstraint,
        columns: &[ColumnDef],
        constraints: &mut Constraints,
    ) -> Result<(), BindError> {
        let position = |name: &str| {
            columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    BindError::new(
                        sqlstate::UNDEFINED_COLUMN,
                        format!("column \"{name}\" named in key does not exist"),
                    )
                })
        };
        let key_columns =
            |index_columns: &[ast::IndexColumn]| -> Result<(Vec<usize>, bool), BindError> {
                let mut positions = Vec::with_capacity(index_columns.len());
                let mut descending = false;
                for column in index_columns {
                    let ast::Expr::Identifier(ident) = &column.column.expr else {
                        return Err(BindError::unsupported("expressions in keys"));
                    };
                    descending |=
                        matches!(column.column.options.sort, Some(ast::OrderBySort::Desc));
                    positions.push(position(&ident_name(ident))?);
                }
                Ok((positions, descending))
            };
        match constraint {
            ast::TableConstraint::PrimaryKey(key) => {
                if constraints.primary_key.is_some() {
                    return Err(multiple_primary_keys(""));
                }
                constraints.primary_key = Some(key_columns(&key.columns)?);
            }
            ast::TableConstraint::Unique(unique) => {
                constraints.unique.push(key_columns(&unique.columns)?.0)
            }
            ast::TableConstraint::ForeignKey(key) => {
                let positions = key
                    .columns
                    .iter()
                    .map(|c| position(&ident_name(c)))
                    .collect::<Result<_, _>>()?;
                constraints
                    .foreign_keys
                    .push(foreign_key(positions, key, None)?);
            }
            ast::TableConstraint::Check(check) => constraints.checks.push(check.expr.to_string()),
            other => return Err(BindError::unsupported(format!("table constraint {other}"))),
        }
        Ok(())
    }
}
