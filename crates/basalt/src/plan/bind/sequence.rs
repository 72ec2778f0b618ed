//! Sequences in the binder: `CREATE SEQUENCE` / `DROP SEQUENCE`, the calls `nextval`,
//! `currval` and `setval`, and the columns that own a sequence (SERIAL types and
//! `GENERATED ... AS IDENTITY`; SQLite's AUTOINCREMENT is bound with the primary key in
//! `ddl.rs`, where the row id column is known).
//!
//! `CREATE SEQUENCE` options are checked here with PostgreSQL's defaults and messages
//! (22023 for an impossible combination), so the executor only allocates the counter's tree;
//! `ALTER SEQUENCE` options are applied to the sequence's definition here the same way, so
//! the executor only stores it (and repositions the counter for RESTART). `AS type` sets
//! the defaults and limits of PostgreSQL's smallint, integer or bigint sequences. `OWNED BY
//! table.column` is checked (the table and column must exist) but records no ownership:
//! such a sequence is not dropped with its table, unlike PostgreSQL's (docs/sql.md).
//! A sequence call names its sequence by a text constant, which is resolved against the
//! catalog at bind time — PostgreSQL does the same when the argument is a `regclass`
//! literal — so the plan holds the sequence's definition and root page, and a schema change
//! re-binds it like any other plan. A name computed at run time is not supported (0A000).

use std::sync::Arc;

use sqlparser::ast;

use crate::catalog::{ColumnDef, SequenceDef};
use crate::plan::ddl::DdlStatement;
use crate::plan::expr::{Expr, SequenceOperation};
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::column::Constraints;
use super::error::BindError;
use super::expr::coerce;
use super::types::assignable;
use super::{Binder, ident_name, object_name};
use crate::sql::sequence_syntax::AlterOption;

/// The options of `CREATE SEQUENCE` (or of an identity column), each as written.
#[derive(Clone, Debug, Default)]
pub(crate) struct SequenceOptions {
    pub increment: Option<i64>,
    /// `Some(None)` is `NO MINVALUE`.
    pub min_value: Option<Option<i64>>,
    pub max_value: Option<Option<i64>>,
    pub start: Option<i64>,
    pub cycle: Option<bool>,
    pub cache: Option<i64>,
}

/// The value range of a sequence's data type (`AS smallint | integer | bigint`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SequenceType {
    name: &'static str,
    min: i64,
    max: i64,
}

impl SequenceType {
    const BIGINT: SequenceType = SequenceType {
        name: "bigint",
        min: i64::MIN,
        max: i64::MAX,
    };

    /// The type of `AS data_type`: 22023 unless it is an integer type, as in PostgreSQL.
    fn of(data_type: &ast::DataType) -> Result<SequenceType, BindError> {
        use ast::DataType as T;
        Ok(match data_type {
            T::SmallInt(_) | T::Int2(_) => SequenceType {
                name: "smallint",
                min: i64::from(i16::MIN),
                max: i64::from(i16::MAX),
            },
            T::Int(_) | T::Integer(_) | T::Int4(_) => SequenceType {
                name: "integer",
                min: i64::from(i32::MIN),
                max: i64::from(i32::MAX),
            },
            T::BigInt(_) | T::Int8(_) => SequenceType::BIGINT,
            _ => {
                return Err(BindError::new(
                    sqlstate::INVALID_PARAMETER_VALUE,
                    "sequence type must be smallint, integer, or bigint",
                ));
            }
        })
    }
}

fn invalid(message: String) -> BindError {
    BindError::new(sqlstate::INVALID_PARAMETER_VALUE, message)
}

/// PostgreSQL's checks of a sequence's settings (22023 with its messages).
fn check_settings(
    increment: i64,
    min_value: i64,
    max_value: i64,
    start: i64,
    data_type: SequenceType,
) -> Result<(), BindError> {
    if increment == 0 {
        return Err(invalid("INCREMENT must not be zero".to_string()));
    }
    for (option, value) in [("MAXVALUE", max_value), ("MINVALUE", min_value)] {
        if value < data_type.min || value > data_type.max {
            return Err(invalid(format!(
                "{option} ({value}) is out of range for sequence data type {}",
                data_type.name
            )));
        }
    }
    if min_value >= max_value {
        return Err(invalid(format!(
            "MINVALUE ({min_value}) must be less than MAXVALUE ({max_value})"
        )));
    }
    check_in_range("START value", start, min_value, max_value)
}

/// 22023 unless `value` (START or RESTART) lies within `[min_value, max_value]`.
fn check_in_range(what: &str, value: i64, min_value: i64, max_value: i64) -> Result<(), BindError> {
    if value < min_value {
        return Err(invalid(format!(
            "{what} ({value}) cannot be less than MINVALUE ({min_value})"
        )));
    }
    if value > max_value {
        return Err(invalid(format!(
            "{what} ({value}) cannot be greater than MAXVALUE ({max_value})"
        )));
    }
    Ok(())
}

/// A sequence option's value: an integer constant, possibly negative.
fn option_integer(expr: &ast::Expr, option: &str) -> Result<i64, BindError> {
    let text: String = expr.to_string().split_whitespace().collect();
    text.parse::<i64>().map_err(|_| {
        BindError::new(
            sqlstate::INVALID_PARAMETER_VALUE,
            format!("{option} must be an integer constant, not {expr}"),
        )
    })
}

impl SequenceOptions {
    /// Gathers sqlparser's option list; `CACHE` is accepted and ignored (Basalt hands out
    /// values one at a time, which PostgreSQL's `CACHE 1` default also does).
    pub(crate) fn from_ast(options: &[ast::SequenceOptions]) -> Result<Self, BindError> {
        let mut gathered = SequenceOptions::default();
        for option in options {
            match option {
                ast::SequenceOptions::IncrementBy(expr, _) => {
                    gathered.increment = Some(option_integer(expr, "INCREMENT")?)
                }
                ast::SequenceOptions::MinValue(expr) => {
                    gathered.min_value = Some(
                        expr.as_ref()
                            .map(|expr| option_integer(expr, "MINVALUE"))
                            .transpose()?,
                    )
                }
                ast::SequenceOptions::MaxValue(expr) => {
                    gathered.max_value = Some(
                        expr.as_ref()
                            .map(|expr| option_integer(expr, "MAXVALUE"))
                            .transpose()?,
                    )
                }
                ast::SequenceOptions::StartWith(expr, _) => {
                    gathered.start = Some(option_integer(expr, "START")?)
                }
                ast::SequenceOptions::Cache(expr) => {
                    let cache = option_integer(expr, "CACHE")?;
                    if cache < 1 {
                        return Err(invalid(format!(
                            "CACHE ({cache}) must be greater than zero"
                        )));
                    }
                    gathered.cache = Some(cache);
                }
                ast::SequenceOptions::Cycle(no_cycle) => gathered.cycle = Some(!no_cycle),
            }
        }
        Ok(gathered)
    }

    /// The sequence these options describe, with PostgreSQL's defaults: ascending sequences
    /// run from 1 to the largest BIGINT, descending ones from -1 down to the smallest, and
    /// start at their near end. `root` is filled in when the sequence is created.
    pub(crate) fn definition(&self, name: String) -> Result<SequenceDef, BindError> {
        self.definition_of_type(name, SequenceType::BIGINT)
    }

    /// [`Self::definition`] for a sequence `AS data_type`: its range bounds the defaults and
    /// the limits.
    fn definition_of_type(
        &self,
        name: String,
        data_type: SequenceType,
    ) -> Result<SequenceDef, BindError> {
        let increment = self.increment.unwrap_or(1);
        let ascending = increment >= 0;
        let min_value =
            self.min_value
                .flatten()
                .unwrap_or(if ascending { 1 } else { data_type.min });
        let max_value =
            self.max_value
                .flatten()
                .unwrap_or(if ascending { data_type.max } else { -1 });
        let start = self
            .start
            .unwrap_or(if ascending { min_value } else { max_value });
        check_settings(increment, min_value, max_value, start, data_type)?;
        Ok(SequenceDef {
            name,
            increment,
            min_value,
            max_value,
            start,
            cycle: self.cycle.unwrap_or(false),
            root: 0,
            owner: None,
            identity: None,
            autoincrement: false,
        })
    }
}

impl Binder<'_> {
    /// `CREATE [TEMPORARY] SEQUENCE [IF NOT EXISTS] name [AS type] options [OWNED BY ...]`.
    pub(super) fn bind_create_sequence(
        &self,
        statement: &ast::Statement,
    ) -> Result<DdlStatement, BindError> {
        let ast::Statement::CreateSequence {
            temporary,
            if_not_exists,
            name,
            data_type,
            sequence_options,
            owned_by,
        } = statement
        else {
            return Err(BindError::unsupported(statement.to_string()));
        };
        if *temporary {
            return Err(BindError::unsupported("temporary sequences"));
        }
        let data_type = match data_type {
            Some(data_type) => SequenceType::of(data_type)?,
            None => SequenceType::BIGINT,
        };
        if let Some(owner) = owned_by {
            self.check_owner(owner)?;
        }
        let name = object_name(name)?;
        let sequence =
            SequenceOptions::from_ast(sequence_options)?.definition_of_type(name, data_type)?;
        Ok(DdlStatement::CreateSequence {
            sequence,
            if_not_exists: *if_not_exists,
        })
    }

    /// `OWNED BY NONE` or `OWNED BY table.column`, which must name an existing column (42P01,
    /// 42703); the link itself is not recorded (see the module documentation).
    fn check_owner(&self, owner: &ast::ObjectName) -> Result<(), BindError> {
        let parts: Vec<String> = owner
            .0
            .iter()
            .filter_map(|part| part.as_ident().map(ident_name))
            .collect();
        match parts.as_slice() {
            [none] if none.eq_ignore_ascii_case("none") => Ok(()),
            [.., table, column] => {
                let Some(definition) = self.catalog.table(table) else {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_TABLE,
                        format!("relation \"{table}\" does not exist"),
                    ));
                };
                if !definition
                    .columns
                    .iter()
                    .any(|c| c.name.eq_ignore_ascii_case(column))
                {
                    return Err(BindError::new(
                        sqlstate::UNDEFINED_COLUMN,
                        format!("column \"{column}\" of relation \"{table}\" does not exist"),
                    ));
                }
                Ok(())
            }
            _ => Err(BindError::syntax(format!(
                "invalid OWNED BY option: {owner}"
            ))),
        }
    }

    /// `ALTER SEQUENCE [IF EXISTS] name options` (carried as `AlterConnector`, see
    /// `sql::sequence_syntax`): the options applied to the sequence's definition, with
    /// PostgreSQL's checks. Options left out keep their values; `NO MINVALUE` / `NO MAXVALUE`
    /// take the defaults for the direction of the (new) increment; `RESTART` without a value
    /// restarts at the (new) start.
    pub(super) fn bind_alter_sequence(
        &self,
        statement: &ast::Statement,
    ) -> Result<DdlStatement, BindError> {
        let ast::Statement::AlterConnector {
            name,
            properties: Some(properties),
            ..
        } = statement
        else {
            return Err(BindError::unsupported(statement.to_string()));
        };
        let name = ident_name(name);
        let mut options = SequenceOptions::default();
        let mut if_exists = false;
        let mut restart: Option<Option<i64>> = None;
        let integer = |value: &ast::Expr, option: &str| -> Result<Option<i64>, BindError> {
            match value {
                ast::Expr::Value(value) if value.value == ast::Value::Null => Ok(None),
                other => option_integer(other, option).map(Some),
            }
        };
        for property in properties {
            let ast::SqlOption::KeyValue { key, value } = property else {
                return Err(BindError::unsupported(statement.to_string()));
            };
            let Some(option) = AlterOption::of_key(&key.value) else {
                return Err(BindError::unsupported(statement.to_string()));
            };
            match option {
                AlterOption::IfExists => if_exists = true,
                AlterOption::Increment => options.increment = integer(value, "INCREMENT")?,
                AlterOption::MinValue => options.min_value = Some(integer(value, "MINVALUE")?),
                AlterOption::MaxValue => options.max_value = Some(integer(value, "MAXVALUE")?),
                AlterOption::Start => options.start = integer(value, "START")?,
                AlterOption::Restart => restart = Some(integer(value, "RESTART")?),
                AlterOption::Cache => {
                    let cache = integer(value, "CACHE")?.unwrap_or(1);
                    if cache < 1 {
                        return Err(invalid(format!(
                            "CACHE ({cache}) must be greater than zero"
                        )));
                    }
                }
                AlterOption::Cycle => {
                    options.cycle = Some(matches!(
                        value,
                        ast::Expr::Value(value) if value.value == ast::Value::Boolean(true)
                    ));
                }
                AlterOption::As => {
                    return Err(BindError::unsupported("ALTER SEQUENCE ... AS type"));
                }
                AlterOption::OwnedBy => {
                    let ast::Expr::CompoundIdentifier(parts) = value else {
                        return Err(BindError::unsupported(statement.to_string()));
                    };
                    self.check_owner(&ast::ObjectName::from(parts.clone()))?;
                }
            }
        }
        let Some(existing) = self.catalog.sequences.get(&name.to_lowercase()) else {
            if self.catalog.table(&name).is_some()
                || self.catalog.views.contains_key(&name.to_lowercase())
            {
                return Err(BindError::new(
                    sqlstate::WRONG_OBJECT_TYPE,
                    format!("\"{name}\" is not a sequence"),
                ));
            }
            if if_exists {
                return Ok(DdlStatement::AlterSequence { name, change: None });
            }
            return Err(BindError::new(
                sqlstate::UNDEFINED_TABLE,
                format!("relation \"{name}\" does not exist"),
            ));
        };
        let increment = options.increment.unwrap_or(existing.increment);
        let ascending = increment >= 0;
        let min_value = match options.min_value {
            None => existing.min_value,
            Some(value) => value.unwrap_or(if ascending { 1 } else { i64::MIN }),
        };
        let max_value = match options.max_value {
            None => existing.max_value,
            Some(value) => value.unwrap_or(if ascending { i64::MAX } else { -1 }),
        };
        let start = options.start.unwrap_or(existing.start);
        check_settings(increment, min_value, max_value, start, SequenceType::BIGINT)?;
        let restart = match restart {
            Some(value) => {
                let value = value.unwrap_or(start);
                check_in_range("RESTART value", value, min_value, max_value)?;
                Some(value)
            }
            None => None,
        };
        let sequence = SequenceDef {
            increment,
            min_value,
            max_value,
            start,
            cycle: options.cycle.unwrap_or(existing.cycle),
            ..SequenceDef::clone(existing)
        };
        Ok(DdlStatement::AlterSequence {
            name,
            change: Some((sequence, restart)),
        })
    }

    /// `DROP SEQUENCE [IF EXISTS] name, ...`: every name must be a sequence (42P01 when
    /// missing, 42809 when it is another kind of relation).
    pub(super) fn bind_drop_sequence(
        &self,
        names: &[ast::ObjectName],
        if_exists: bool,
    ) -> Result<DdlStatement, BindError> {
        let names: Vec<String> = names.iter().map(object_name).collect::<Result<_, _>>()?;
        for name in &names {
            if let Some(sequence) = self.catalog.sequences.get(&name.to_lowercase()) {
                if let Some(owner) = &sequence.owner {
                    return Err(BindError::new(
                        sqlstate::DEPENDENT_OBJECTS_STILL_EXIST,
                        format!(
                            "cannot drop sequence {} because column default of table {owner} requires it",
                            sequence.name
                        ),
                    ));
                }
                continue;
            }
            if self.catalog.table(name).is_some()
                || self.catalog.views.contains_key(&name.to_lowercase())
            {
                return Err(BindError::new(
                    sqlstate::WRONG_OBJECT_TYPE,
                    format!("\"{name}\" is not a sequence"),
                ));
            }
            if !if_exists {
                return Err(BindError::new(
                    sqlstate::UNDEFINED_TABLE,
                    format!("sequence \"{name}\" does not exist"),
                ));
            }
        }
        Ok(DdlStatement::DropSequence { names, if_exists })
    }

    /// `nextval(name)`, `currval(name)`, `setval(name, value [, is_called])`, with the
    /// arguments already bound. `None` when `name` is not a sequence function.
    pub(super) fn bind_sequence_call(
        &self,
        name: &str,
        bound: &mut Vec<Expr>,
    ) -> Option<Result<Expr, BindError>> {
        let operation = match name {
            "nextval" => SequenceOperation::Next,
            "currval" => SequenceOperation::Current,
            "setval" => SequenceOperation::Set,
            _ => return None,
        };
        Some(self.sequence_call(name, operation, std::mem::take(bound)))
    }

    fn sequence_call(
        &self,
        name: &str,
        operation: SequenceOperation,
        bound: Vec<Expr>,
    ) -> Result<Expr, BindError> {
        let arity = match operation {
            SequenceOperation::Next | SequenceOperation::Current => 1..=1,
            SequenceOperation::Set => 2..=3,
        };
        if !arity.contains(&bound.len()) {
            return Err(BindError::undefined_function(format!(
                "function {name} does not take {} arguments",
                bound.len()
            )));
        }
        let mut arguments = bound.into_iter();
        let sequence_name = match arguments.next() {
            Some(Expr::Literal {
                value: Value::Text(text),
                ..
            }) => text,
            _ => {
                return Err(BindError::unsupported(format!(
                    "{name} with a sequence name that is not a text constant"
                )));
            }
        };
        let sequence = self.sequence_named(&sequence_name)?;
        let mut args = Vec::new();
        for (position, argument) in arguments.enumerate() {
            let wanted = if position == 0 {
                DataType::Integer
            } else {
                DataType::Boolean
            };
            if !assignable(argument.data_type(), wanted) {
                return Err(BindError::undefined_function(format!(
                    "function {name} does not accept {} as argument {}",
                    argument.data_type(),
                    position + 2
                )));
            }
            args.push(coerce(argument, wanted));
        }
        Ok(Expr::Sequence {
            operation,
            sequence,
            args,
        })
    }

    /// For a sequence function's first argument written `pg_get_serial_sequence('t', 'c')`
    /// with constants (as `basalt dump --postgres` writes its `setval` calls, so its scripts
    /// also load back into Basalt): the name of the sequence behind column `c` of table
    /// `t` — its identity sequence, or the one its DEFAULT calls `nextval` of. The table
    /// name is read as SQL reads names (folded unless quoted, `public.` allowed), the column
    /// name exactly, as PostgreSQL reads them. `None` for anything else, which binds as
    /// usual.
    pub(super) fn serial_sequence_argument(
        &self,
        function: &str,
        argument: &ast::Expr,
    ) -> Option<String> {
        if !matches!(function, "nextval" | "currval" | "setval") {
            return None;
        }
        let ast::Expr::Function(call) = argument else {
            return None;
        };
        let parts = crate::sql::object_name_parts(&call.name);
        let [.., last] = parts.as_slice() else {
            return None;
        };
        if last != "pg_get_serial_sequence" {
            return None;
        }
        let ast::FunctionArguments::List(list) = &call.args else {
            return None;
        };
        let texts: Vec<&str> = list
            .args
            .iter()
            .filter_map(|arg| match arg {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(
                    ast::ValueWithSpan {
                        value: ast::Value::SingleQuotedString(text),
                        ..
                    },
                ))) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let [table, column] = texts.as_slice() else {
            return None;
        };
        let table = self
            .catalog
            .table(&super::pg_catalog::parse_object_name(table))?;
        let column = table.columns.iter().find(|c| c.name == *column)?;
        self.catalog
            .sequences
            .values()
            .find(|sequence| {
                sequence.is_identity_of(&table.name, &column.name)
                    || column.default.as_deref().is_some_and(|default| {
                        // `nextval('s')`, or pg_dump's `nextval('public.s'::regclass)`.
                        let default = default.to_lowercase();
                        let name = sequence.name.to_lowercase();
                        default.contains(&format!("'{name}'"))
                            || default.contains(&format!("'public.{name}'"))
                    })
            })
            .map(|sequence| sequence.name.clone())
    }

    /// The sequence `name` names (unquoted names fold to lower case, as `regclass` does).
    fn sequence_named(&self, written: &str) -> Result<Arc<SequenceDef>, BindError> {
        // pg_dump qualifies every name (`'public.t_id_seq'`); Basalt has one schema, which
        // answers to `public` (and `pg_catalog`, as the binder's other name lookups do).
        let name = ["public.", "\"public\".", "pg_catalog."]
            .iter()
            .find_map(|schema| {
                written
                    .get(..schema.len())
                    .filter(|prefix| prefix.eq_ignore_ascii_case(schema))
                    .and_then(|_| written.get(schema.len()..))
            })
            .unwrap_or(written);
        let key = match name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
            Some(quoted) => quoted.replace("\"\"", "\""),
            None => name.to_lowercase(),
        };
        self.catalog
            .sequences
            .get(&key.to_lowercase())
            .cloned()
            .ok_or_else(|| {
                BindError::new(
                    sqlstate::UNDEFINED_TABLE,
                    format!("relation \"{name}\" does not exist"),
                )
            })
    }

    /// A SERIAL column, as PostgreSQL defines it: an integer column `NOT NULL DEFAULT
    /// nextval('<table>_<column>_seq')` whose sequence the table owns. Its other options bind
    /// as for any column, except a DEFAULT of its own (42601, as PostgreSQL) and NULL.
    pub(super) fn bind_serial_column(
        &mut self,
        column: &ast::ColumnDef,
        base: &str,
        position: usize,
        constraints: &mut Constraints,
        table_name: &str,
    ) -> Result<ColumnDef, BindError> {
        let name = ident_name(&column.name);
        for option in &column.options {
            match option.option {
                ast::ColumnOption::Default(_) => {
                    return Err(BindError::new(
                        sqlstate::SYNTAX_ERROR,
                        format!(
                            "multiple default values specified for column \"{name}\" of table \"{table_name}\""
                        ),
                    ));
                }
                ast::ColumnOption::Null => {
                    return Err(BindError::new(
                        sqlstate::SYNTAX_ERROR,
                        format!(
                            "conflicting NULL/NOT NULL declarations for column \"{name}\" of table \"{table_name}\""
                        ),
                    ));
                }
                _ => {}
            }
        }
        let plain = ast::ColumnDef {
            name: column.name.clone(),
            data_type: ast::DataType::Custom(
                ast::ObjectName::from(vec![ast::Ident::new(base)]),
                Vec::new(),
            ),
            options: column.options.clone(),
        };
        let mut def = self.bind_column_def(&plain, position, constraints, table_name)?;
        let sequence_name = format!("{table_name}_{name}_seq");
        let mut sequence = SequenceOptions::default().definition(sequence_name)?;
        let maximum = match base {
            "SMALLINT" => i64::from(i16::MAX),
            "INTEGER" => i64::from(i32::MAX),
            _ => i64::MAX,
        };
        sequence.max_value = maximum;
        sequence.owner = Some(table_name.to_string());
        def.declared_type = column.data_type.to_string().to_uppercase();
        def.not_null = true;
        def.default = Some(format!("nextval('{}')", sequence.name.replace('\'', "''")));
        constraints.sequences.push(sequence);
        Ok(def)
    }

    /// `GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [(options)]`: like SERIAL, an owned
    /// sequence `<table>_<column>_seq` (with the options given) supplies the column's
    /// default, and the column is NOT NULL; the sequence also records whether explicit
    /// values are refused (ALWAYS).
    pub(super) fn bind_identity(
        &mut self,
        def: &mut ColumnDef,
        always: bool,
        options: &[ast::SequenceOptions],
        column: &ast::ColumnDef,
        constraints: &mut Constraints,
        table_name: &str,
    ) -> Result<(), BindError> {
        let maximum = match column.data_type {
            ast::DataType::SmallInt(_) | ast::DataType::Int2(_) => i64::from(i16::MAX),
            ast::DataType::Int(_) | ast::DataType::Integer(_) | ast::DataType::Int4(_) => {
                i64::from(i32::MAX)
            }
            ast::DataType::BigInt(_) | ast::DataType::Int8(_) => i64::MAX,
            _ => {
                return Err(BindError::new(
                    sqlstate::INVALID_PARAMETER_VALUE,
                    format!(
                        "identity column type must be smallint, integer, or bigint, not {}",
                        column.data_type
                    ),
                ));
            }
        };
        let has_default = column
            .options
            .iter()
            .any(|option| matches!(option.option, ast::ColumnOption::Default(_)));
        if has_default || def.default.is_some() {
            return Err(BindError::new(
                sqlstate::SYNTAX_ERROR,
                format!(
                    "both default and identity specified for column \"{}\" of table \"{table_name}\"",
                    def.name
                ),
            ));
        }
        let mut options = SequenceOptions::from_ast(options)?;
        let ascending = options.increment.unwrap_or(1) > 0;
        if ascending && options.max_value.flatten().is_none() {
            options.max_value = Some(Some(maximum));
        }
        if !ascending && options.min_value.flatten().is_none() {
            options.min_value = Some(Some(-maximum - 1));
        }
        let mut sequence = options.definition(format!("{table_name}_{}_seq", def.name))?;
        sequence.owner = Some(table_name.to_string());
        sequence.identity = Some((def.name.clone(), always));
        def.not_null = true;
        def.default = Some(format!("nextval('{}')", sequence.name.replace('\'', "''")));
        constraints.sequences.push(sequence);
        Ok(())
    }
}

/// A sequence function's first argument as the name it gives: `'s'::regclass` (how
/// PostgreSQL and pg_dump write a serial column's `DEFAULT nextval('public.t_id_seq'::regclass)`)
/// names the sequence `'s'` names, which is resolved at bind time either way. Other
/// functions' and other arguments are returned as they are.
pub(super) fn regclass_operand<'a>(function: &str, argument: &'a ast::Expr) -> &'a ast::Expr {
    match argument {
        ast::Expr::Cast {
            expr,
            data_type: ast::DataType::Regclass,
            ..
        } if matches!(function, "nextval" | "currval" | "setval")
            && matches!(
                expr.as_ref(),
                ast::Expr::Value(ast::ValueWithSpan {
                    value: ast::Value::SingleQuotedString(_),
                    ..
                })
            ) =>
        {
            expr
        }
        other => other,
    }
}
