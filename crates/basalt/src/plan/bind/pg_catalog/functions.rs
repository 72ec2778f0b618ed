//! The catalog functions and casts clients use with `pg_catalog`: `version()`,
//! `current_schemas`, `format_type`, `pg_get_indexdef` / `pg_get_constraintdef` /
//! `pg_get_expr` / `pg_get_viewdef`, `pg_get_userbyid`, the `*_is_visible` and
//! `has_*_privilege` checks, `obj_description`, `to_regclass` / `to_regtype`,
//! `pg_get_serial_sequence`, `current_setting`, `set_config` (for `search_path`), the sizes and the other functions psql's
//! describe commands call (the reg* casts are `reg.rs`).
//!
//! Functions that look objects up by OID need the catalog, which only the binder has: a call
//! becomes a `CASE` over the statement's catalog snapshot (`CASE oid WHEN 16390 THEN
//! 'CREATE INDEX ...' ... END`), frozen into the plan like the catalog relations are.
//! `format_type` needs only PostgreSQL's built-in types and is an ordinary registry function
//! (`types::functions::pg_catalog`).

use sqlparser::ast;

use super::data;
use super::objects::{PgObjects, RelationKind, quote};
use super::reg::{RegOutput, lookup, parse_object_name};
use super::rows::index_definition;
use super::{literal, text};
use crate::plan::bind::Binder;
use crate::plan::bind::error::BindError;
use crate::plan::bind::expr::is_untyped;
use crate::plan::bind::scope::Scope;
use crate::plan::expr::{BinaryOp, Expr};
use crate::sqlstate;
use crate::types::{DataType, Value};

/// The settings `set_config` accepts without changing anything (see its arm below).
const NO_OP_SETTINGS: &[&str] = &["search_path"];

/// What `version()` returns: PostgreSQL's shape (`PostgreSQL X.Y ...`, which SQLAlchemy and
/// others parse), naming the PostgreSQL version the server reports and Basalt's own.
fn version_text() -> String {
    format!(
        "PostgreSQL 15.0 (Basalt {}) on {}-{}, compiled by rustc, 64-bit",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH,
        std::env::consts::OS
    )
}

/// PostgreSQL's `format_type(oid, typmod)`: a type's SQL name with its modifier
/// (`character varying(40)`, `numeric(10,2)`, `integer[]`); `???` for an unknown OID.
pub(crate) fn format_type(oid: i64, typmod: i64) -> String {
    let element = data::element_type(oid);
    let name = data::type_name(oid).unwrap_or_default();
    if element != 0 && name.starts_with('_') {
        return format!("{}[]", format_type(element, typmod));
    }
    // A typmod is an int4 in PostgreSQL; any i64 a caller passes must not overflow here.
    let modifier = typmod.saturating_sub(4);
    let precision = |base: &str, rest: &str| {
        if typmod >= 0 {
            format!("{base}({typmod}){rest}")
        } else {
            format!("{base}{rest}")
        }
    };
    match oid {
        16 => "boolean".into(),
        20 => "bigint".into(),
        21 => "smallint".into(),
        23 => "integer".into(),
        700 => "real".into(),
        701 => "double precision".into(),
        18 => "\"char\"".into(),
        1043 if typmod >= 4 => format!("character varying({modifier})"),
        1043 => "character varying".into(),
        1042 if typmod >= 4 => format!("character({modifier})"),
        1042 => "bpchar".into(),
        1700 if typmod >= 4 => format!("numeric({},{})", modifier >> 16, modifier & 0xffff),
        1114 => precision("timestamp", " without time zone"),
        1184 => precision("timestamp", " with time zone"),
        1083 => precision("time", " without time zone"),
        1266 => precision("time", " with time zone"),
        1186 => precision("interval", ""),
        1560 if typmod >= 0 => format!("bit({typmod})"),
        1562 if typmod >= 0 => format!("bit varying({typmod})"),
        1562 => "bit varying".into(),
        _ if oid == i64::from(crate::types::VECTOR_OID) => {
            if typmod >= 0 {
                format!("vector({typmod})")
            } else {
                "vector".into()
            }
        }
        _ if name.is_empty() => "???".into(),
        _ => name.to_string(),
    }
}

impl Binder<'_> {
    /// A call of catalog function `name`, if it is one (`None`: not a catalog function).
    pub(in crate::plan::bind) fn bind_pg_catalog_call(
        &mut self,
        name: &str,
        asts: &[&ast::Expr],
        scope: &Scope,
    ) -> Option<Result<Expr, BindError>> {
        let known = matches!(
            name,
            "version"
                | "current_schemas"
                | "pg_get_userbyid"
                | "pg_get_indexdef"
                | "pg_get_constraintdef"
                | "pg_get_expr"
                | "pg_get_viewdef"
                | "pg_table_is_visible"
                | "pg_type_is_visible"
                | "pg_function_is_visible"
                | "pg_collation_is_visible"
                | "pg_opclass_is_visible"
                | "pg_operator_is_visible"
                | "pg_conversion_is_visible"
                | "pg_statistics_obj_is_visible"
                | "pg_ts_config_is_visible"
                | "pg_ts_dict_is_visible"
                | "pg_ts_parser_is_visible"
                | "pg_ts_template_is_visible"
                | "pg_opfamily_is_visible"
                | "pg_table_size"
                | "pg_relation_size"
                | "pg_total_relation_size"
                | "pg_indexes_size"
                | "pg_database_size"
                | "pg_get_function_result"
                | "pg_get_function_arguments"
                | "pg_get_function_identity_arguments"
                | "pg_tablespace_location"
                | "getdatabaseencoding"
                | "pg_client_encoding"
                | "pg_relation_is_publishable"
                | "obj_description"
                | "col_description"
                | "shobj_description"
                | "pg_get_statisticsobjdef_columns"
                | "pg_get_partkeydef"
                | "pg_get_triggerdef"
                | "pg_encoding_to_char"
                | "has_table_privilege"
                | "has_schema_privilege"
                | "has_database_privilege"
                | "has_column_privilege"
                | "has_any_column_privilege"
                | "has_sequence_privilege"
                | "has_function_privilege"
                | "pg_has_role"
                | "to_regclass"
                | "to_regtype"
                | "to_regnamespace"
                | "to_regrole"
                | "pg_get_serial_sequence"
                | "current_setting"
                | "set_config"
                | "pg_partition_ancestors"
                | "pg_partition_root"
        );
        if !known {
            return None;
        }
        Some(self.bind_catalog_function(name, asts, scope))
    }

    fn bind_catalog_function(
        &mut self,
        name: &str,
        asts: &[&ast::Expr],
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let mut args = Vec::with_capacity(asts.len());
        for ast in asts {
            let bound = self.bind_expr(ast, scope)?;
            let target = if is_untyped(ast) {
                DataType::Text(None)
            } else {
                DataType::Null
            };
            args.push(self.resolve_untyped(bound, ast, target)?);
        }
        let arity = |range: std::ops::RangeInclusive<usize>| {
            if range.contains(&args.len()) {
                Ok(())
            } else {
                Err(BindError::undefined_function(format!(
                    "function {name} does not take {} arguments",
                    args.len()
                )))
            }
        };
        let first = || {
            args.first()
                .cloned()
                .unwrap_or(literal(Value::Null, DataType::Null))
        };
        let text_null = literal(Value::Null, DataType::Text(None));
        let objects = PgObjects::new(self.catalog);
        Ok(match name {
            "version" => {
                arity(0..=0)?;
                text(&version_text())
            }
            "current_schemas" => {
                arity(1..=1)?;
                let array = |items: &[&str]| {
                    crate::types::cast::parse_literal_for(
                        DataType::Text(None)
                            .array_of()
                            .unwrap_or(DataType::Text(None)),
                        &format!("{{{}}}", items.join(",")),
                    )
                    .unwrap_or(Value::Null)
                };
                let array_type = DataType::Text(None)
                    .array_of()
                    .unwrap_or(DataType::Text(None));
                Expr::Case {
                    operand: None,
                    branches: vec![(
                        first(),
                        literal(array(&["pg_catalog", "public"]), array_type),
                    )],
                    else_result: Some(Box::new(literal(array(&["public"]), array_type))),
                    data_type: array_type,
                }
            }
            "pg_get_userbyid" => {
                arity(1..=1)?;
                let (names, _) = self.reg_entries("regrole")?;
                let key = first();
                let unknown = Expr::Binary {
                    op: BinaryOp::Concat,
                    left: Box::new(text("unknown (OID=")),
                    right: Box::new(Expr::Binary {
                        op: BinaryOp::Concat,
                        left: Box::new(Expr::Cast {
                            operand: Box::new(key.clone()),
                            to: DataType::Text(None),
                        }),
                        right: Box::new(text(")")),
                        data_type: DataType::Text(None),
                    }),
                    data_type: DataType::Text(None),
                };
                let entries = names
                    .into_iter()
                    .map(|(oid, name)| (Value::Integer(oid), text(&name)))
                    .collect();
                lookup(key, entries, unknown, DataType::Text(None))
            }
            "pg_get_indexdef" => {
                arity(1..=3)?;
                let pretty = matches!(
                    args.get(2),
                    Some(Expr::Literal {
                        value: Value::Boolean(true),
                        ..
                    })
                );
                let mut full = Vec::new();
                let mut by_column = Vec::new();
                for relation in &objects.relations {
                    if let RelationKind::Index(index) = &relation.kind {
                        full.push((
                            Value::Integer(relation.oid),
                            text(&index_definition(&relation.name, index, pretty)),
                        ));
                        let columns = index
                            .columns
                            .iter()
                            .enumerate()
                            .filter_map(|(i, (c, _))| {
                                let column = index.table.columns.get(*c)?;
                                Some((Value::Integer(i as i64 + 1), text(&quote(&column.name))))
                            })
                            .collect();
                        by_column.push((Value::Integer(relation.oid), columns));
                    }
                }
                let key = first();
                let definition = lookup(key.clone(), full, text_null.clone(), DataType::Text(None));
                match args.get(1) {
                    None
                    | Some(Expr::Literal {
                        value: Value::Integer(0),
                        ..
                    }) => definition,
                    Some(column) => {
                        let column_entries = by_column
                            .into_iter()
                            .map(|(oid, columns)| {
                                (
                                    oid,
                                    lookup(column.clone(), columns, text(""), DataType::Text(None)),
                                )
                            })
                            .collect();
                        Expr::Case {
                            operand: None,
                            branches: vec![(
                                Expr::Binary {
                                    op: BinaryOp::Equal,
                                    left: Box::new(column.clone()),
                                    right: Box::new(literal(Value::Integer(0), DataType::Integer)),
                                    data_type: DataType::Boolean,
                                },
                                definition,
                            )],
                            else_result: Some(Box::new(lookup(
                                key,
                                column_entries,
                                text_null,
                                DataType::Text(None),
                            ))),
                            data_type: DataType::Text(None),
                        }
                    }
                }
            }
            "pg_get_constraintdef" => {
                arity(1..=2)?;
                // PostgreSQL's non-pretty form parenthesizes a check's expression once more.
                let pretty = matches!(
                    args.get(1),
                    Some(Expr::Literal {
                        value: Value::Boolean(true),
                        ..
                    })
                );
                let entries = objects
                    .constraints
                    .iter()
                    .map(|c| {
                        let definition = match c.definition.strip_prefix("CHECK ") {
                            Some(expression) if !pretty => format!("CHECK ({expression})"),
                            _ => c.definition.clone(),
                        };
                        (Value::Integer(c.oid), text(&definition))
                    })
                    .collect();
                lookup(first(), entries, text_null, DataType::Text(None))
            }
            "pg_get_viewdef" => {
                arity(1..=2)?;
                let entries = objects
                    .relations
                    .iter()
                    .filter_map(|r| match &r.kind {
                        RelationKind::View(view) => {
                            Some((Value::Integer(r.oid), text(&view.query)))
                        }
                        _ => None,
                    })
                    .collect();
                lookup(first(), entries, text_null, DataType::Text(None))
            }
            // The expression columns (adbin, conbin) hold the expression's text already.
            "pg_get_expr" => {
                arity(2..=3)?;
                let expression = first();
                match expression.data_type() {
                    DataType::Text(_) => expression,
                    _ => Expr::Cast {
                        operand: Box::new(expression),
                        to: DataType::Text(None),
                    },
                }
            }
            // One schema, always on the search path: every object is visible.
            "pg_table_is_visible"
            | "pg_type_is_visible"
            | "pg_function_is_visible"
            | "pg_collation_is_visible"
            | "pg_opclass_is_visible"
            | "pg_operator_is_visible"
            | "pg_conversion_is_visible"
            | "pg_statistics_obj_is_visible"
            | "pg_ts_config_is_visible"
            | "pg_ts_dict_is_visible"
            | "pg_ts_parser_is_visible"
            | "pg_ts_template_is_visible"
            | "pg_opfamily_is_visible" => {
                arity(1..=1)?;
                Expr::Case {
                    operand: None,
                    branches: vec![(
                        Expr::IsNull {
                            operand: Box::new(first()),
                            negated: false,
                        },
                        literal(Value::Null, DataType::Boolean),
                    )],
                    else_result: Some(Box::new(literal(Value::Boolean(true), DataType::Boolean))),
                    data_type: DataType::Boolean,
                }
            }
            // Sizes live in the pager, which binding does not reach: unknown (NULL), which
            // psql's `\dt+` shows as an empty Size.
            "pg_table_size"
            | "pg_relation_size"
            | "pg_total_relation_size"
            | "pg_indexes_size"
            | "pg_database_size" => {
                arity(1..=2)?;
                literal(Value::Null, DataType::Integer)
            }
            // pg_proc has no rows, so these are never asked about a real function.
            "pg_get_function_result"
            | "pg_get_function_arguments"
            | "pg_get_function_identity_arguments" => {
                arity(1..=1)?;
                text_null
            }
            // Basalt speaks and stores only UTF-8.
            "getdatabaseencoding" | "pg_client_encoding" => {
                arity(0..=0)?;
                text("UTF8")
            }
            // Every relation is in the database's own file: the default tablespace.
            "pg_tablespace_location" => {
                arity(1..=1)?;
                text("")
            }
            "pg_relation_is_publishable" => {
                arity(1..=1)?;
                literal(Value::Boolean(false), DataType::Boolean)
            }
            // Basalt keeps no comments, statistics objects, partitions or trigger functions.
            "obj_description"
            | "col_description"
            | "shobj_description"
            | "pg_get_statisticsobjdef_columns"
            | "pg_get_partkeydef"
            | "pg_get_triggerdef" => {
                arity(1..=2)?;
                text_null
            }
            "pg_encoding_to_char" => {
                arity(1..=1)?;
                lookup(
                    first(),
                    vec![(Value::Integer(6), text("UTF8"))],
                    text(""),
                    DataType::Text(None),
                )
            }
            // Basalt has no privileges: every session may do everything.
            "has_table_privilege"
            | "has_schema_privilege"
            | "has_database_privilege"
            | "has_column_privilege"
            | "has_any_column_privilege"
            | "has_sequence_privilege"
            | "has_function_privilege"
            | "pg_has_role" => {
                arity(2..=4)?;
                literal(Value::Boolean(true), DataType::Boolean)
            }
            "to_regclass" | "to_regtype" | "to_regnamespace" | "to_regrole" => {
                arity(1..=1)?;
                let kind = name.replacen("to_", "", 1);
                let (_, aliases) = self.reg_entries(&kind)?;
                let key = first();
                match &key {
                    Expr::Literal {
                        value: Value::Text(input),
                        ..
                    } => {
                        let wanted = parse_object_name(input);
                        let found = aliases
                            .iter()
                            .find(|(n, _)| *n == wanted)
                            .map(|(_, oid)| *oid);
                        literal(found.map_or(Value::Null, Value::Integer), DataType::Integer)
                    }
                    _ => {
                        let entries = aliases
                            .into_iter()
                            .map(|(n, oid)| {
                                (
                                    Value::Text(n),
                                    literal(Value::Integer(oid), DataType::Integer),
                                )
                            })
                            .collect();
                        let lowered = self.call_scalar("lower", vec![key])?;
                        lookup(
                            lowered,
                            entries,
                            literal(Value::Null, DataType::Integer),
                            DataType::Integer,
                        )
                    }
                }
            }
            "pg_get_serial_sequence" => {
                arity(2..=2)?;
                let mut entries = Vec::new();
                for sequence in self.catalog.sequences.values() {
                    let Some(owner) = &sequence.owner else {
                        continue;
                    };
                    let Some(table) = self.catalog.table(owner) else {
                        continue;
                    };
                    for column in &table.columns {
                        let uses = sequence
                            .identity
                            .as_ref()
                            .is_some_and(|(c, _)| c.eq_ignore_ascii_case(&column.name))
                            || column.default.as_deref().is_some_and(|d| {
                                d.to_lowercase()
                                    .contains(&format!("'{}'", sequence.name.to_lowercase()))
                            });
                        if uses {
                            entries.push((
                                Value::Text(format!(
                                    "{}.{}",
                                    parse_object_name(&table.name),
                                    column.name
                                )),
                                text(&format!("public.{}", quote(&sequence.name))),
                            ));
                        }
                    }
                }
                let mut args = args.into_iter();
                let (Some(table), Some(column)) = (args.next(), args.next()) else {
                    return Err(BindError::syntax(
                        "pg_get_serial_sequence takes two arguments",
                    ));
                };
                let table = self.call_scalar("lower", vec![table])?;
                let key = Expr::Binary {
                    op: BinaryOp::Concat,
                    left: Box::new(Expr::Binary {
                        op: BinaryOp::Concat,
                        left: Box::new(table),
                        right: Box::new(text(".")),
                        data_type: DataType::Text(None),
                    }),
                    right: Box::new(column),
                    data_type: DataType::Text(None),
                };
                lookup(key, entries, text_null, DataType::Text(None))
            }
            // Basalt has no partitioned tables: a relation is its own only ancestor and root.
            "pg_partition_ancestors" | "pg_partition_root" => {
                arity(1..=1)?;
                let Some(ast) = asts.first() else {
                    return Err(BindError::syntax(format!("{name} takes one argument")));
                };
                return self.bind_reg_cast("regclass", ast, RegOutput::Oid, scope);
            }
            "current_setting" => {
                arity(1..=2)?;
                let missing_ok = matches!(
                    args.get(1),
                    Some(Expr::Literal {
                        value: Value::Boolean(true),
                        ..
                    })
                );
                match first() {
                    Expr::Literal {
                        value: Value::Text(setting),
                        ..
                    } => match super::reported_setting(&setting) {
                        Some(value) => text(&value),
                        None if missing_ok => text_null,
                        None => {
                            return Err(BindError::new(
                                sqlstate::UNDEFINED_OBJECT,
                                format!("unrecognized configuration parameter \"{setting}\""),
                            ));
                        }
                    },
                    // A name known only at execution (a parameter): looked up in the same
                    // table, NULL for a setting it does not have.
                    name => {
                        let entries = super::REPORTED_SETTINGS
                            .iter()
                            .map(|(setting, value)| {
                                (Value::Text(setting.to_ascii_lowercase()), text(value))
                            })
                            .collect();
                        let lowered = self.call_scalar("lower", vec![name])?;
                        lookup(lowered, entries, text_null, DataType::Text(None))
                    }
                }
            }
            // `set_config(name, value, is_local)` for the settings whose change means nothing
            // to Basalt, which pg_dump's scripts set: `search_path` (one schema, which bare
            // and `public.`/`pg_catalog.`-qualified names all reach). It returns the value, as
            // PostgreSQL does; other settings are changed with SET (0A000 here).
            "set_config" => {
                arity(3..=3)?;
                let setting = match first() {
                    Expr::Literal {
                        value: Value::Text(setting),
                        ..
                    } => setting,
                    _ => {
                        return Err(BindError::unsupported(
                            "set_config with a setting name computed at run time",
                        ));
                    }
                };
                if !NO_OP_SETTINGS
                    .iter()
                    .any(|known| known.eq_ignore_ascii_case(&setting))
                {
                    return Err(BindError::unsupported(format!(
                        "set_config('{setting}', ...) (use SET {setting} = ...)"
                    )));
                }
                let value = args.get(1).cloned().unwrap_or(text_null);
                match value.data_type() {
                    DataType::Text(_) => value,
                    _ => Expr::Cast {
                        operand: Box::new(value),
                        to: DataType::Text(None),
                    },
                }
            }
            _ => {
                return Err(BindError::undefined_function(format!(
                    "function {name} does not exist"
                )));
            }
        })
    }
}
