//! Triggers in the binder: validating `CREATE TRIGGER` and binding a trigger's program for
//! firing.
//!
//! A trigger (SQLite's form: `CREATE TRIGGER name {BEFORE | AFTER | INSTEAD OF} {INSERT |
//! UPDATE [OF col, ...] | DELETE} ON table [FOR EACH ROW] [WHEN cond] BEGIN stmt; ... END`)
//! is stored as text ([`TriggerDef`]) and bound again whenever a statement fires it, exactly
//! as a view's query is: the catalog keeps no plans, so a trigger always runs against the
//! schema of the statement that fires it.
//!
//! # NEW and OLD
//!
//! Inside the program, `NEW.column` and `OLD.column` name the columns of the row being
//! changed. Before binding, every such reference is rewritten in the AST into a typed
//! parameter — `NEW.c` (column `i` of `n`) becomes `CAST($i+1 AS type)` and `OLD.c` becomes
//! `CAST($n+i+1 AS type)` — so the ordinary binder, optimizer and executor run the program
//! unchanged, and the executor fires it by passing the row's values as the parameters (see
//! `crate::exec::triggers`). The cast carries the column's type into expressions, so
//! `NEW.x + 1` binds as the column's arithmetic, not as an untyped parameter. A trigger
//! program may not contain placeholders of its own (nothing could supply them).
//!
//! The rewrite only touches the references the event allows (NEW in INSERT and UPDATE
//! triggers, OLD in UPDATE and DELETE triggers); any other `NEW.x`/`OLD.x` is left for the
//! binder, which reports it as it reports any unknown table qualifier (42P01, "missing
//! FROM-clause entry for table"), and an unknown column of NEW or OLD is 42703.
//!
//! # Validation at CREATE time
//!
//! Unlike SQLite, which compiles a trigger only when it first fires, Basalt binds the WHEN
//! condition and every statement of the program when the trigger is created, so a typo is
//! reported by `CREATE TRIGGER` rather than by some later INSERT. (A program that names a
//! table created afterwards is therefore refused; create the tables first.)

use std::ops::ControlFlow;

use sqlparser::ast;

use crate::catalog::{Catalog, TriggerDef, TriggerEvent, TriggerTiming};
use crate::plan::ddl::DdlStatement;
use crate::plan::{Bound, BoundStatement};
use crate::sqlstate;
use crate::types::DataType;

use super::error::BindError;
use super::{Binder, ident_name, object_name};

/// The columns of the row a trigger's NEW and OLD stand for: the table's columns, or the
/// output columns of the view an INSTEAD OF trigger watches.
pub type TriggerRow = Vec<(String, DataType)>;

/// A trigger's WHEN condition and program, bound for firing. Parameters `1..=n` are the NEW
/// row's columns and `n+1..=2n` the OLD row's, where `n` is the row's column count.
#[derive(Clone, Debug)]
pub struct BoundTriggerProgram {
    /// `SELECT 1 WHERE condition`: the trigger fires for a row when this returns a row.
    pub condition: Option<Bound>,
    /// The program's statements, in order.
    pub body: Vec<Bound>,
    /// The row NEW and OLD stand for.
    pub row: TriggerRow,
}

/// The row `relation` (a table or a view) gives its triggers' NEW and OLD.
pub fn trigger_row(relation: &str, catalog: &Catalog) -> Result<TriggerRow, BindError> {
    if let Some(table) = catalog.table(relation) {
        return Ok(table
            .columns
            .iter()
            .map(|column| (column.name.clone(), column.data_type))
            .collect());
    }
    if catalog.views.contains_key(&relation.to_lowercase()) {
        let query = format!("SELECT * FROM \"{}\"", relation.replace('"', "\"\""));
        let statement =
            crate::sql::parse_one(&query).map_err(|error| BindError::syntax(error.to_string()))?;
        if let BoundStatement::Query(plan) = super::bind(&statement, catalog)?.statement {
            return Ok(plan
                .schema
                .into_iter()
                .map(|column| (column.name, column.data_type))
                .collect());
        }
    }
    Err(BindError::new(
        sqlstate::UNDEFINED_TABLE,
        format!("relation \"{relation}\" does not exist"),
    ))
}

/// Binds `trigger`'s condition and program against `catalog`.
pub fn bind_trigger_program(
    trigger: &TriggerDef,
    catalog: &Catalog,
) -> Result<BoundTriggerProgram, BindError> {
    let row = trigger_row(&trigger.table, catalog)?;
    let references = RowReferences::for_event(&trigger.event, &row);
    let condition = trigger
        .condition
        .as_ref()
        .map(|condition| {
            let mut statement = parse_program_statement(&format!("SELECT 1 WHERE {condition}"))?;
            references.substitute(&mut statement)?;
            super::bind(&statement, catalog)
        })
        .transpose()?;
    let body = trigger
        .body
        .iter()
        .map(|sql| {
            let mut statement = parse_program_statement(sql)?;
            check_program_statement(&statement)?;
            references.substitute(&mut statement)?;
            super::bind_trigger_statement(&statement, catalog)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(BoundTriggerProgram {
        condition,
        body,
        row,
    })
}

fn parse_program_statement(sql: &str) -> Result<ast::Statement, BindError> {
    crate::sql::parse_one(sql)
        .map_err(|error| BindError::syntax(format!("trigger statement does not parse: {error}")))
}

/// SQLite's rule: a trigger program holds INSERT, UPDATE, DELETE and SELECT statements.
fn check_program_statement(statement: &ast::Statement) -> Result<(), BindError> {
    match statement {
        ast::Statement::Insert(_)
        | ast::Statement::Update(_)
        | ast::Statement::Delete(_)
        | ast::Statement::Query(_) => Ok(()),
        _ => Err(BindError::syntax(
            "a trigger program may contain only INSERT, UPDATE, DELETE and SELECT statements",
        )),
    }
}

/// Which of NEW and OLD a trigger's event provides, over which row.
struct RowReferences<'a> {
    row: &'a TriggerRow,
    new: bool,
    old: bool,
}

impl<'a> RowReferences<'a> {
    fn for_event(event: &TriggerEvent, row: &'a TriggerRow) -> Self {
        RowReferences {
            row,
            new: !matches!(event, TriggerEvent::Delete),
            old: !matches!(event, TriggerEvent::Insert),
        }
    }

    /// Rewrites every allowed `NEW.c` / `OLD.c` in `statement` into its typed parameter;
    /// refuses placeholders written in the program.
    fn substitute(&self, statement: &mut ast::Statement) -> Result<(), BindError> {
        let flow = ast::visit_expressions_mut(statement, |expr| {
            match self.replacement(expr) {
                Ok(Some(replacement)) => *expr = replacement,
                Ok(None) => {}
                Err(error) => return ControlFlow::Break(error),
            }
            ControlFlow::Continue(())
        });
        match flow {
            ControlFlow::Break(error) => Err(error),
            ControlFlow::Continue(()) => Ok(()),
        }
    }

    fn replacement(&self, expr: &ast::Expr) -> Result<Option<ast::Expr>, BindError> {
        match expr {
            ast::Expr::Value(value) if matches!(value.value, ast::Value::Placeholder(_)) => Err(
                BindError::syntax("parameters are not allowed in a trigger program"),
            ),
            ast::Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                let qualifier = ident_name(&parts[0]);
                let offset = match qualifier.as_str() {
                    "new" if self.new => 0,
                    "old" if self.old => self.row.len(),
                    _ => return Ok(None),
                };
                let column = ident_name(&parts[1]);
                let Some(position) = self
                    .row
                    .iter()
                    .position(|(name, _)| name.eq_ignore_ascii_case(&column))
                else {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_COLUMN,
                        format!("column {qualifier}.{column} does not exist"),
                    ));
                };
                let placeholder = ast::Expr::value(ast::Value::Placeholder(format!(
                    "${}",
                    offset + position + 1
                )));
                Ok(Some(match sql_type(self.row[position].1) {
                    Some(data_type) => ast::Expr::Cast {
                        kind: ast::CastKind::Cast,
                        expr: Box::new(placeholder),
                        data_type,
                        format: None,
                    },
                    None => placeholder,
                }))
            }
            _ => Ok(None),
        }
    }
}

/// The SQL type a value of `data_type` is cast to (none for the type of NULL).
fn sql_type(data_type: DataType) -> Option<ast::DataType> {
    Some(match data_type {
        DataType::Null => return None,
        DataType::Array(element) => ast::DataType::Array(ast::ArrayElemTypeDef::SquareBracket(
            Box::new(sql_type(*element)?),
            None,
        )),
        DataType::Boolean => ast::DataType::Boolean,
        DataType::Integer => ast::DataType::BigInt(None),
        DataType::Real => ast::DataType::DoublePrecision,
        DataType::Numeric(typmod) => ast::DataType::Numeric(match typmod {
            Some((precision, scale)) => {
                ast::ExactNumberInfo::PrecisionAndScale(u64::from(precision), i64::from(scale))
            }
            None => ast::ExactNumberInfo::None,
        }),
        DataType::Text(_) => ast::DataType::Text,
        DataType::Blob => ast::DataType::Bytea,
        DataType::Date => ast::DataType::Date,
        DataType::Timestamp => ast::DataType::Timestamp(None, ast::TimezoneInfo::None),
        DataType::TimestampTz => ast::DataType::Timestamp(None, ast::TimezoneInfo::Tz),
        DataType::Time(precision) => {
            ast::DataType::Time(precision.map(u64::from), ast::TimezoneInfo::None)
        }
        DataType::Interval => ast::DataType::Interval {
            fields: None,
            precision: None,
        },
        DataType::Uuid => ast::DataType::Uuid,
        DataType::Json => ast::DataType::JSON,
        DataType::Jsonb => ast::DataType::JSONB,
        DataType::Vector(dimensions) => ast::DataType::Custom(
            ast::ObjectName::from(vec![ast::Ident::new("vector")]),
            dimensions.map(|n| vec![n.to_string()]).unwrap_or_default(),
        ),
    })
}

impl Binder<'_> {
    /// `CREATE TRIGGER`: checks the target and the timing, and binds the program once.
    pub(super) fn bind_create_trigger(
        &mut self,
        create: &ast::CreateTrigger,
    ) -> Result<DdlStatement, BindError> {
        if create.temporary {
            return Err(BindError::unsupported("temporary triggers"));
        }
        if create.or_replace || create.is_constraint {
            return Err(BindError::unsupported(
                "CREATE OR REPLACE TRIGGER and constraint triggers",
            ));
        }
        if create.exec_body.is_some() || !create.referencing.is_empty() {
            return Err(BindError::unsupported(
                "triggers that execute a function (write the statements between BEGIN and END)",
            ));
        }
        if matches!(
            create.trigger_object,
            Some(
                ast::TriggerObjectKind::For(ast::TriggerObject::Statement)
                    | ast::TriggerObjectKind::ForEach(ast::TriggerObject::Statement)
            )
        ) {
            return Err(BindError::unsupported("FOR EACH STATEMENT triggers"));
        }
        let event = match create.events.as_slice() {
            [ast::TriggerEvent::Insert] => TriggerEvent::Insert,
            [ast::TriggerEvent::Update(columns)] => {
                TriggerEvent::Update(columns.iter().map(ident_name).collect())
            }
            [ast::TriggerEvent::Delete] => TriggerEvent::Delete,
            [ast::TriggerEvent::Truncate] => {
                return Err(BindError::unsupported("TRUNCATE triggers"));
            }
            _ => return Err(BindError::unsupported("a trigger on several events")),
        };
        // SQLite's default is BEFORE; T-SQL's `FOR` means AFTER.
        let timing = match create.period {
            None | Some(ast::TriggerPeriod::Before) => TriggerTiming::Before,
            Some(ast::TriggerPeriod::After | ast::TriggerPeriod::For) => TriggerTiming::After,
            Some(ast::TriggerPeriod::InsteadOf) => TriggerTiming::InsteadOf,
        };
        let name = object_name(&create.name)?;
        let relation = object_name(&create.table_name)?;
        let (relation, is_view) = if let Some(table) = self.catalog.table(&relation) {
            (table.name.clone(), false)
        } else if let Some(view) = self.catalog.views.get(&relation.to_lowercase()) {
            (view.name.clone(), true)
        } else {
            return Err(BindError::new(
                sqlstate::UNDEFINED_TABLE,
                format!("relation \"{relation}\" does not exist"),
            ));
        };
        match (timing, is_view) {
            (TriggerTiming::InsteadOf, false) => {
                return Err(BindError::new(
                    sqlstate::WRONG_OBJECT_TYPE,
                    format!("\"{relation}\" is a table: tables cannot have INSTEAD OF triggers"),
                ));
            }
            (TriggerTiming::Before | TriggerTiming::After, true) => {
                return Err(BindError::new(
                    sqlstate::WRONG_OBJECT_TYPE,
                    format!("\"{relation}\" is a view: views cannot have BEFORE or AFTER triggers"),
                ));
            }
            _ => {}
        }
        let if_not_exists = create.or_alter;
        if !if_not_exists && self.catalog.triggers.contains_key(&name.to_lowercase()) {
            return Err(duplicate_trigger_error(&name, &relation));
        }
        let row = trigger_row(&relation, self.catalog)?;
        if let TriggerEvent::Update(columns) = &event {
            for column in columns {
                if !row
                    .iter()
                    .any(|(name, _)| name.eq_ignore_ascii_case(column))
                {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_COLUMN,
                        format!("column \"{column}\" of relation \"{relation}\" does not exist"),
                    ));
                }
            }
        }
        let body = match &create.statements {
            Some(statements) => statements
                .statements()
                .iter()
                .map(ToString::to_string)
                .collect(),
            None => return Err(BindError::syntax("a trigger needs a BEGIN ... END program")),
        };
        let trigger = TriggerDef {
            name,
            table: relation,
            timing,
            event,
            condition: create.condition.as_ref().map(ToString::to_string),
            body,
        };
        // Bound now so a broken program is refused when created, not when it first fires.
        bind_trigger_program(&trigger, self.catalog)?;
        Ok(DdlStatement::CreateTrigger {
            trigger,
            if_not_exists,
        })
    }

    /// `DROP TRIGGER [IF EXISTS] name [ON table]`.
    pub(super) fn bind_drop_trigger(
        &mut self,
        drop: &ast::DropTrigger,
    ) -> Result<DdlStatement, BindError> {
        let name = object_name(&drop.trigger_name)?;
        if !drop.if_exists && !self.catalog.triggers.contains_key(&name.to_lowercase()) {
            return Err(BindError::new(
                sqlstate::UNDEFINED_OBJECT,
                format!("trigger \"{name}\" does not exist"),
            ));
        }
        Ok(DdlStatement::DropTrigger {
            name,
            if_exists: drop.if_exists,
        })
    }
}

/// 42710: a trigger of this name exists.
pub fn duplicate_trigger_error(name: &str, relation: &str) -> BindError {
    BindError::new(
        sqlstate::DUPLICATE_OBJECT,
        format!("trigger \"{name}\" for relation \"{relation}\" already exists"),
    )
}
