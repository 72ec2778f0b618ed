//! The reg* casts (`'t'::regclass`, `c.oid::regclass`, `x::regtype::text`) and the lookups
//! the catalog functions share.
//!
//! The reg* types are not types here (the catalog format gets no new type tags). A cast to
//! one is a conversion done when the statement is bound, in the direction the expression
//! needs, which is how PostgreSQL *shows* these values: text cast to a reg* type is the
//! object's OID, an integer (an OID) cast to it is the object's name, `x::regclass::text` is
//! always the name and `x::regclass::oid` always the OID. So `WHERE attrelid =
//! 't'::regclass` compares OIDs and `SELECT c.oid::regclass` shows names, as in PostgreSQL;
//! what differs is `SELECT 't'::regclass`, which shows the OID.
//!
//! A lookup of something only known at execution (a column's OID, a parameter's name) is a
//! `CASE` over the statement's catalog snapshot, frozen into the plan like the catalog
//! relations are.

use sqlparser::ast;

use super::data;
use super::functions::format_type;
use super::objects::{PgObjects, quote};
use super::rows::rename_bootstrap;
use super::{literal, text};
use crate::plan::bind::Binder;
use crate::plan::bind::error::BindError;
use crate::plan::bind::expr::is_untyped;
use crate::plan::bind::scope::Scope;
use crate::plan::expr::Expr;
use crate::sqlstate;
use crate::types::{DataType, Value};

/// The reg* types a cast may name.
pub(crate) fn is_reg_type(name: &str) -> bool {
    matches!(
        name,
        "regclass"
            | "regtype"
            | "regproc"
            | "regprocedure"
            | "regnamespace"
            | "regrole"
            | "regoper"
            | "regoperator"
            | "regconfig"
            | "regdictionary"
            | "regcollation"
    )
}

/// `(oid, name)` of the objects of a reg* type, and `(spelling, oid)` of the names that may
/// be written for them.
type RegEntries = (Vec<(i64, String)>, Vec<(String, i64)>);

/// What a reg* cast yields.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RegOutput {
    /// The OID for text input, the name for an OID (see the module documentation).
    Natural,
    /// The name (`x::regclass::text`).
    Name,
    /// The OID (`x::regclass::oid`).
    Oid,
}

/// A `CASE` mapping `key` through `entries` (`else_result` for anything else).
pub(super) fn lookup(
    key: Expr,
    entries: Vec<(Value, Expr)>,
    else_result: Expr,
    data_type: DataType,
) -> Expr {
    if let Expr::Literal { value, .. } = &key {
        if matches!(value, Value::Null) {
            return literal(Value::Null, data_type);
        }
        let found = entries.iter().find(|(candidate, _)| candidate == value);
        return match found {
            Some((_, result)) => result.clone(),
            None => else_result,
        };
    }
    if entries.is_empty() {
        return Expr::Case {
            operand: None,
            branches: vec![(
                Expr::IsNull {
                    operand: Box::new(key),
                    negated: false,
                },
                literal(Value::Null, data_type),
            )],
            else_result: Some(Box::new(else_result)),
            data_type,
        };
    }
    let key_type = key.data_type();
    Expr::Case {
        operand: Some(Box::new(key)),
        branches: entries
            .into_iter()
            .map(|(value, result)| (literal(value, key_type), result))
            .collect(),
        else_result: Some(Box::new(else_result)),
        data_type,
    }
}

/// An OID's text, as PostgreSQL shows an OID with no object (`-` for 0).
fn oid_text(oid: Expr) -> Expr {
    let as_text = Expr::Cast {
        operand: Box::new(oid.clone()),
        to: DataType::Text(None),
    };
    lookup(
        oid,
        vec![(Value::Integer(0), text("-"))],
        as_text,
        DataType::Text(None),
    )
}

/// A name as written in reg* input: parts split at unquoted dots, unquoted parts folded to
/// lower case; the schema part dropped when it is `public` or `pg_catalog`.
pub(crate) fn parse_object_name(input: &str) -> String {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut chars = input.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                current.push('"');
            }
            '"' => quoted = !quoted,
            '.' if !quoted => parts.push(std::mem::take(&mut current)),
            c if quoted => current.push(c),
            c => current.extend(c.to_lowercase()),
        }
    }
    parts.push(current);
    match parts.as_slice() {
        [schema, name] if schema == "public" || schema == "pg_catalog" => name.clone(),
        _ => parts.join("."),
    }
}

impl Binder<'_> {
    /// `(oid, name)` of every object of reg* type `kind`, and further spellings that name
    /// one (`int4` for `integer`).
    pub(super) fn reg_entries(&mut self, kind: &str) -> Result<RegEntries, BindError> {
        let mut names = Vec::new();
        let mut aliases = Vec::new();
        match kind {
            "regclass" => {
                // Non-constant input is matched as text, so the schema-qualified spellings
                // are listed too (`public.t`, as pg_get_serial_sequence returns names).
                for relation in PgObjects::new(self.catalog).relations {
                    names.push((relation.oid, quote(&relation.name)));
                    let lower = relation.name.to_lowercase();
                    aliases.push((format!("public.{lower}"), relation.oid));
                    aliases.push((lower, relation.oid));
                }
                for relation in data::relations() {
                    names.push((relation.oid, relation.name.to_string()));
                    aliases.push((format!("pg_catalog.{}", relation.name), relation.oid));
                }
            }
            "regtype" => {
                let rows = data::static_rows("pg_type")
                    .map_err(|message| BindError::new(sqlstate::INTERNAL_ERROR, message))?;
                for row in rows {
                    if let (Some(Value::Integer(oid)), Some(Value::Text(name))) =
                        (row.first(), row.get(1))
                    {
                        names.push((*oid, format_type(*oid, -1)));
                        aliases.push((name.clone(), *oid));
                    }
                }
                let vector = i64::from(crate::types::VECTOR_OID);
                names.push((vector, "vector".into()));
                for (alias, oid) in [
                    ("int", 23),
                    ("varchar", 1043),
                    ("char", 1042),
                    ("float", 701),
                    ("decimal", 1700),
                    ("timestamptz", 1184),
                    ("bool", 16),
                ] {
                    aliases.push((alias.into(), oid));
                }
            }
            "regnamespace" | "regrole" => {
                let (relation, oid_column, name_column) = if kind == "regrole" {
                    ("pg_roles", "oid", "rolname")
                } else {
                    ("pg_namespace", "oid", "nspname")
                };
                let rows = data::static_rows(relation)
                    .map_err(|message| BindError::new(sqlstate::INTERNAL_ERROR, message))?;
                let rows = rename_bootstrap(relation, rows.to_vec());
                if let Some(shape) = data::relation(relation)
                    && let (Some(o), Some(n)) =
                        (shape.position(oid_column), shape.position(name_column))
                {
                    for row in rows {
                        if let (Some(Value::Integer(oid)), Some(Value::Text(name))) =
                            (row.get(o), row.get(n))
                        {
                            names.push((*oid, name.clone()));
                        }
                    }
                }
            }
            _ => {}
        }
        for (oid, name) in &names {
            aliases.push((parse_object_name(name), *oid));
        }
        Ok((names, aliases))
    }

    /// `operand::kind` (a reg* type), yielding `output` (see the module documentation).
    pub(in crate::plan::bind) fn bind_reg_cast(
        &mut self,
        kind: &str,
        operand: &ast::Expr,
        output: RegOutput,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let bound = self.bind_expr(operand, scope)?;
        let is_text = is_untyped(operand) || matches!(bound.data_type(), DataType::Text(_));
        let (names, aliases) = self.reg_entries(kind)?;
        let oid = if is_text {
            let bound = self.resolve_untyped(bound, operand, DataType::Text(None))?;
            match &bound {
                Expr::Literal {
                    value: Value::Null, ..
                } => literal(Value::Null, DataType::Integer),
                Expr::Literal {
                    value: Value::Text(input),
                    ..
                } => {
                    let wanted = parse_object_name(input);
                    let found = aliases
                        .iter()
                        .find(|(name, _)| *name == wanted)
                        .map(|(_, oid)| *oid);
                    match (found, input.trim().parse::<i64>()) {
                        (Some(oid), _) | (None, Ok(oid)) => {
                            literal(Value::Integer(oid), DataType::Integer)
                        }
                        (None, Err(_)) => return Err(missing_object(kind, input)),
                    }
                }
                _ => {
                    let entries = aliases
                        .iter()
                        .map(|(name, oid)| {
                            (
                                Value::Text(name.clone()),
                                literal(Value::Integer(*oid), DataType::Integer),
                            )
                        })
                        .collect();
                    let lowered = self.call_scalar("lower", vec![bound])?;
                    lookup(
                        lowered,
                        entries,
                        literal(Value::Null, DataType::Integer),
                        DataType::Integer,
                    )
                }
            }
        } else {
            if !matches!(bound.data_type(), DataType::Integer | DataType::Null) {
                return Err(BindError::new(
                    sqlstate::CANNOT_COERCE,
                    format!("cannot cast type {} to {kind}", bound.data_type()),
                ));
            }
            bound
        };
        let wants_name = match output {
            RegOutput::Name => true,
            RegOutput::Oid => false,
            RegOutput::Natural => !is_text,
        };
        if !wants_name {
            return Ok(oid);
        }
        let entries = names
            .into_iter()
            .map(|(oid, name)| (Value::Integer(oid), text(&name)))
            .collect();
        Ok(lookup(
            oid.clone(),
            entries,
            oid_text(oid),
            DataType::Text(None),
        ))
    }
}

/// The error for reg* input naming nothing, as PostgreSQL words it.
fn missing_object(kind: &str, input: &str) -> BindError {
    match kind {
        "regclass" => BindError::new(
            sqlstate::UNDEFINED_TABLE,
            format!("relation \"{input}\" does not exist"),
        ),
        "regtype" => BindError::new(
            sqlstate::UNDEFINED_OBJECT,
            format!("type \"{input}\" does not exist"),
        ),
        "regnamespace" => BindError::new(
            sqlstate::UNDEFINED_SCHEMA,
            format!("schema \"{input}\" does not exist"),
        ),
        "regrole" => BindError::new(
            sqlstate::UNDEFINED_OBJECT,
            format!("role \"{input}\" does not exist"),
        ),
        _ => BindError::unsupported(format!("{kind} input (Basalt has no {kind} objects)")),
    }
}
