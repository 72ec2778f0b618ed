//! The rows Basalt's own objects contribute to the `pg_catalog` relations, and the rows the
//! `pg_catalog` relations contribute about themselves (in `pg_class` and `pg_attribute`).
//!
//! Each row is built by column name ([`RowBuilder`]) against the relation's recorded column
//! list, so a row cannot put a value in the wrong column or of the wrong type, and the
//! columns a row leaves out get PostgreSQL's zero value (NOT NULL columns) or NULL.
//! Relations not matched here have only their static rows, or none.

use std::sync::Arc;

use super::data::{self, SystemRelation};
use super::objects::{PgObjects, RelationKind, attnum, column_list, column_type, quote};
use super::{OWNER_OID, PG_CATALOG_OID, PUBLIC_OID};
use crate::catalog::{TableDef, TriggerEvent, TriggerTiming};
use crate::plan::bind::Binder;
use crate::plan::bind::error::BindError;
use crate::plan::bind::function::{DATABASE_NAME, SESSION_USER};
use crate::types::array::Array;
use crate::types::{DataType, Value};

/// PostgreSQL's OID of access method `heap`, which every table has.
const HEAP_AM: i64 = 2;
/// PostgreSQL's OID of access method `btree`.
const BTREE_AM: i64 = 403;
/// PostgreSQL's default collation (`pg_collation` row `default`), which text columns have.
const DEFAULT_COLLATION: i64 = 100;

/// One row of a relation, filled by column name.
pub(super) struct RowBuilder {
    relation: &'static SystemRelation,
    values: Vec<Option<Value>>,
}

impl RowBuilder {
    pub fn new(relation: &'static SystemRelation) -> RowBuilder {
        RowBuilder {
            relation,
            values: vec![None; relation.columns.len()],
        }
    }

    /// Sets column `name` (a name the relation does not have is ignored: the recorded
    /// column lists are PostgreSQL 15's, and a row may name a column of another version).
    pub fn set(&mut self, name: &str, value: impl Into<Cell>) -> &mut Self {
        if let Some(slot) = self
            .relation
            .position(name)
            .and_then(|position| self.values.get_mut(position))
        {
            *slot = Some(value.into().0);
        }
        self
    }

    pub fn finish(&mut self) -> Vec<Value> {
        self.values
            .iter_mut()
            .zip(&self.relation.columns)
            .map(|(value, column)| match value.take() {
                Some(value) => value,
                None if column.not_null => data::zero_value(column),
                None => Value::Null,
            })
            .collect()
    }
}

/// A value for [`RowBuilder::set`].
pub(super) struct Cell(Value);

impl From<i64> for Cell {
    fn from(value: i64) -> Cell {
        Cell(Value::Integer(value))
    }
}
impl From<bool> for Cell {
    fn from(value: bool) -> Cell {
        Cell(Value::Boolean(value))
    }
}
impl From<&str> for Cell {
    fn from(value: &str) -> Cell {
        Cell(Value::Text(value.to_string()))
    }
}
impl From<String> for Cell {
    fn from(value: String) -> Cell {
        Cell(Value::Text(value))
    }
}
impl From<Value> for Cell {
    fn from(value: Value) -> Cell {
        Cell(value)
    }
}
impl From<Vec<i64>> for Cell {
    fn from(values: Vec<i64>) -> Cell {
        let elements = values.into_iter().map(Value::Integer).collect();
        Cell(
            Array::from_elements(DataType::Integer, elements)
                .map_or(Value::Null, |array| Value::Array(Arc::new(array))),
        )
    }
}

/// An `int2vector` / `oidvector` value: an integer array subscripted from 0, as
/// PostgreSQL's vector types are (`indkey[0]` is an index's first column).
fn vector(values: Vec<i64>) -> Value {
    let Ok(length) = u32::try_from(values.len()) else {
        return Value::Null;
    };
    let elements = values.into_iter().map(Value::Integer).collect();
    crate::types::array::Array::new(
        DataType::Integer,
        vec![crate::types::array::Dimension { lower: 0, length }],
        elements,
    )
    .map_or(Value::Null, |array| Value::Array(Arc::new(array)))
}

impl Binder<'_> {
    /// The rows relation `relation` holds beyond its static ones.
    pub(super) fn pg_rows(
        &mut self,
        relation: &'static SystemRelation,
    ) -> Result<Vec<Vec<Value>>, BindError> {
        let objects = PgObjects::new(self.catalog);
        let mut rows = Vec::new();
        let mut row = RowBuilder::new(relation);
        match relation.name {
            "pg_class" => {
                for system in data::relations() {
                    rows.push(
                        row.set("oid", system.oid)
                            .set("relname", system.name)
                            .set("relnamespace", PG_CATALOG_OID)
                            .set("relowner", OWNER_OID)
                            .set("relam", if system.kind == "r" { HEAP_AM } else { 0 })
                            .set("relkind", system.kind)
                            .set("relnatts", system.columns.len() as i64)
                            .set("relpersistence", "p")
                            .set("relreplident", if system.kind == "r" { "d" } else { "n" })
                            .set("relispopulated", true)
                            .set("reltuples", Value::Real(-1.0))
                            .finish(),
                    );
                }
                for object in &objects.relations {
                    let (natts, checks, am, has_index, has_triggers) = match &object.kind {
                        RelationKind::Table(table) => (
                            table.columns.len() as i64,
                            table.checks.len() as i64,
                            HEAP_AM,
                            objects.relations.iter().any(|r| {
                                matches!(&r.kind, RelationKind::Index(i) if i.table_oid == object.oid)
                            }),
                            // A foreign key is enforced by triggers in PostgreSQL, on both
                            // tables, and psql only looks for keys where there are triggers.
                            objects.triggers.iter().any(|t| t.table_oid == object.oid)
                                || objects.constraints.iter().any(|c| {
                                    c.kind == "f"
                                        && (c.table_oid == object.oid
                                            || c.references.as_ref().is_some_and(|r| r.0 == object.oid))
                                }),
                        ),
                        RelationKind::View(view) => (
                            // A view that no longer binds (its tables changed under it) is
                            // still listed, with the columns it names, so the catalog stays
                            // readable; reading the view itself reports the problem.
                            self.bind_view(view)
                                .map_or(view.column_names.len(), |plan| plan.schema.len())
                                as i64,
                            0,
                            0,
                            false,
                            objects.triggers.iter().any(|t| t.table_oid == object.oid),
                        ),
                        RelationKind::Index(index) => (
                            index.columns.len() as i64,
                            0,
                            if index.method == "btree" { BTREE_AM } else { 0 },
                            false,
                            false,
                        ),
                        RelationKind::Sequence(_) => (3, 0, 0, false, false),
                    };
                    let options = match &object.kind {
                        RelationKind::Index(index) if !index.options.is_empty() => text_array(
                            index
                                .options
                                .iter()
                                .map(|(k, v)| format!("{k}={v}"))
                                .collect(),
                        ),
                        _ => Value::Null,
                    };
                    let relkind = object.relkind();
                    rows.push(
                        row.set("oid", object.oid)
                            .set("relname", object.name.as_str())
                            .set("relnamespace", PUBLIC_OID)
                            .set("relowner", OWNER_OID)
                            .set("relam", am)
                            .set("relfilenode", object.oid)
                            .set("relkind", relkind)
                            .set("relnatts", natts)
                            .set("relchecks", checks)
                            .set("relhasindex", has_index)
                            .set("relhastriggers", has_triggers)
                            .set("relpersistence", "p")
                            .set("relreplident", if relkind == "r" { "d" } else { "n" })
                            .set("relispopulated", true)
                            .set("reltuples", Value::Real(-1.0))
                            .set("reloptions", options)
                            .finish(),
                    );
                }
            }
            "pg_attribute" => {
                for system in data::relations() {
                    for (position, column) in system.columns.iter().enumerate() {
                        let oid = data::type_oid(column.pg_type).unwrap_or(0);
                        let collation = if is_collatable(oid) { 950 } else { 0 };
                        rows.push(
                            attribute(&mut row, system.oid, column.name, position, oid, -1)
                                .set("attnotnull", column.not_null)
                                .set("attcollation", collation)
                                .finish(),
                        );
                    }
                }
                for object in &objects.relations {
                    match &object.kind {
                        RelationKind::Table(table) => {
                            for (position, column) in table.columns.iter().enumerate() {
                                let (oid, typmod) = column_type(column);
                                rows.push(
                                    attribute(
                                        &mut row,
                                        object.oid,
                                        &column.name,
                                        position,
                                        oid,
                                        typmod,
                                    )
                                    .set("attnotnull", is_not_null(table, position))
                                    .set(
                                        "atthasdef",
                                        column.default.is_some() || column.generated.is_some(),
                                    )
                                    .set(
                                        "attgenerated",
                                        if column.generated.is_some() { "s" } else { "" },
                                    )
                                    .set("attidentity", identity(self, table, &column.name))
                                    .set("attcollation", collation_of(oid))
                                    .finish(),
                                );
                            }
                        }
                        RelationKind::View(view) => {
                            // A view that no longer binds has no columns to list here.
                            let Ok(plan) = self.bind_view(view) else {
                                continue;
                            };
                            for (position, output) in plan.schema.iter().enumerate() {
                                let name = view.column_names.get(position).unwrap_or(&output.name);
                                // A column passed through from a table keeps its declared
                                // type (`int` is integer, not Basalt's 64-bit bigint).
                                let declared = output.source.as_ref().and_then(|source| {
                                    let table = self.catalog.table(&source.table)?;
                                    table.columns.get(source.column).map(column_type)
                                });
                                let (oid, typmod) = declared.unwrap_or((
                                    i64::from(output.data_type.descriptor().pg_oid),
                                    -1,
                                ));
                                rows.push(
                                    attribute(&mut row, object.oid, name, position, oid, typmod)
                                        .set("attcollation", collation_of(oid))
                                        .finish(),
                                );
                            }
                        }
                        RelationKind::Index(index) => {
                            for (position, (column, _)) in index.columns.iter().enumerate() {
                                let Some(def) = index.table.columns.get(*column) else {
                                    continue;
                                };
                                let (oid, typmod) = column_type(def);
                                rows.push(
                                    attribute(
                                        &mut row, object.oid, &def.name, position, oid, typmod,
                                    )
                                    .set("attcollation", collation_of(oid))
                                    .finish(),
                                );
                            }
                        }
                        RelationKind::Sequence(_) => {
                            for (position, (name, oid)) in
                                [("last_value", 20), ("log_cnt", 20), ("is_called", 16)]
                                    .into_iter()
                                    .enumerate()
                            {
                                rows.push(
                                    attribute(&mut row, object.oid, name, position, oid, -1)
                                        .set("attnotnull", true)
                                        .finish(),
                                );
                            }
                        }
                    }
                }
            }
            "pg_index" => {
                for object in &objects.relations {
                    let RelationKind::Index(index) = &object.kind else {
                        continue;
                    };
                    let keys: Vec<i64> = index.columns.iter().map(|(c, _)| attnum(*c)).collect();
                    let collations: Vec<i64> = index
                        .columns
                        .iter()
                        .map(|(c, _)| {
                            index
                                .table
                                .columns
                                .get(*c)
                                .map_or(0, |def| collation_of(column_type(def).0))
                        })
                        .collect();
                    // indoption's bits: 1 DESC, 2 NULLS FIRST; as text (see data.rs).
                    let options: Vec<String> = index
                        .columns
                        .iter()
                        .map(|(_, order)| {
                            (i64::from(order.descending) | (i64::from(order.nulls_first) << 1))
                                .to_string()
                        })
                        .collect();
                    rows.push(
                        row.set("indexrelid", object.oid)
                            .set("indrelid", index.table_oid)
                            .set("indnatts", keys.len() as i64)
                            .set("indnkeyatts", keys.len() as i64)
                            .set("indisunique", index.unique)
                            .set("indisprimary", index.primary)
                            .set("indimmediate", true)
                            .set("indisvalid", true)
                            .set("indisready", true)
                            .set("indislive", true)
                            .set("indclass", vector(vec![0; keys.len()]))
                            .set("indkey", vector(keys))
                            .set("indcollation", vector(collations))
                            .set("indoption", options.join(" "))
                            .finish(),
                    );
                }
            }
            "pg_constraint" => {
                for constraint in &objects.constraints {
                    let (confrelid, confkey, update, delete, matching) =
                        match &constraint.references {
                            Some((table, columns, update, delete)) => {
                                (*table, Cell::from(columns.clone()).0, *update, *delete, "s")
                            }
                            None => (0, Value::Null, " ", " ", " "),
                        };
                    let conbin = match constraint.kind {
                        "c" => Value::Text(
                            constraint
                                .definition
                                .strip_prefix("CHECK (")
                                .and_then(|rest| rest.strip_suffix(')'))
                                .unwrap_or_default()
                                .to_string(),
                        ),
                        _ => Value::Null,
                    };
                    rows.push(
                        row.set("oid", constraint.oid)
                            .set("conname", constraint.name.as_str())
                            .set("connamespace", PUBLIC_OID)
                            .set("contype", constraint.kind)
                            .set("convalidated", true)
                            .set("conrelid", constraint.table_oid)
                            .set("conindid", constraint.index_oid)
                            .set("confrelid", confrelid)
                            .set("confupdtype", update)
                            .set("confdeltype", delete)
                            .set("confmatchtype", matching)
                            .set("conislocal", true)
                            .set("connoinherit", constraint.kind == "c")
                            .set("conkey", constraint.columns.clone())
                            .set("confkey", confkey)
                            .set("conbin", conbin)
                            .finish(),
                    );
                }
            }
            "pg_attrdef" => {
                for object in &objects.relations {
                    let RelationKind::Table(table) = &object.kind else {
                        continue;
                    };
                    for (position, column) in table.columns.iter().enumerate() {
                        let Some(expression) =
                            column.generated.as_deref().or(column.default.as_deref())
                        else {
                            continue;
                        };
                        let shown = default_display(expression, column_type(column).0);
                        rows.push(
                            // An attrdef's OID: the table's, offset by the column (unique
                            // within the table, and clients only join on adrelid/adnum).
                            row.set("oid", object.oid + 1 + position as i64)
                                .set("adrelid", object.oid)
                                .set("adnum", attnum(position))
                                .set("adbin", shown)
                                .finish(),
                        );
                    }
                }
            }
            "pg_sequence" | "pg_sequences" => {
                for object in &objects.relations {
                    let RelationKind::Sequence(sequence) = &object.kind else {
                        continue;
                    };
                    rows.push(
                        row.set("seqrelid", object.oid)
                            .set("seqtypid", 20)
                            .set("seqstart", sequence.start)
                            .set("seqincrement", sequence.increment)
                            .set("seqmax", sequence.max_value)
                            .set("seqmin", sequence.min_value)
                            .set("seqcache", 1)
                            .set("seqcycle", sequence.cycle)
                            .set("schemaname", "public")
                            .set("sequencename", object.name.as_str())
                            .set("sequenceowner", SESSION_USER)
                            .set("data_type", Value::Integer(20))
                            .set("start_value", sequence.start)
                            .set("min_value", sequence.min_value)
                            .set("max_value", sequence.max_value)
                            .set("increment_by", sequence.increment)
                            .set("cycle", sequence.cycle)
                            .set("cache_size", 1)
                            .finish(),
                    );
                }
            }
            "pg_trigger" => {
                for trigger in &objects.triggers {
                    let def = &trigger.def;
                    // tgtype's bits: 1 ROW, 2 BEFORE, 4 INSERT, 8 DELETE, 16 UPDATE, 64 INSTEAD.
                    let timing = match def.timing {
                        TriggerTiming::Before => 2,
                        TriggerTiming::After => 0,
                        TriggerTiming::InsteadOf => 64,
                    };
                    let event = match def.event {
                        TriggerEvent::Insert => 4,
                        TriggerEvent::Delete => 8,
                        TriggerEvent::Update(_) => 16,
                    };
                    rows.push(
                        row.set("oid", trigger.oid)
                            .set("tgrelid", trigger.table_oid)
                            .set("tgname", def.name.as_str())
                            .set("tgtype", 1 | timing | event)
                            .set("tgenabled", "O")
                            .set("tgattr", vector(Vec::new()))
                            .set("tgargs", Value::Blob(Vec::new()))
                            .finish(),
                    );
                }
            }
            "pg_tables" | "pg_views" | "pg_indexes" => {
                for object in &objects.relations {
                    match (&object.kind, relation.name) {
                        (RelationKind::Table(_), "pg_tables") => rows.push(
                            row.set("schemaname", "public")
                                .set("tablename", object.name.as_str())
                                .set("tableowner", SESSION_USER)
                                .set(
                                    "hasindexes",
                                    objects.relations.iter().any(|r| {
                                        matches!(&r.kind, RelationKind::Index(i) if i.table_oid == object.oid)
                                    }),
                                )
                                .set("hasrules", false)
                                .set(
                                    "hastriggers",
                                    objects.triggers.iter().any(|t| t.table_oid == object.oid),
                                )
                                .set("rowsecurity", false)
                                .finish(),
                        ),
                        (RelationKind::View(view), "pg_views") => rows.push(
                            row.set("schemaname", "public")
                                .set("viewname", object.name.as_str())
                                .set("viewowner", SESSION_USER)
                                .set("definition", view.query.as_str())
                                .finish(),
                        ),
                        (RelationKind::Index(index), "pg_indexes") => rows.push(
                            row.set("schemaname", "public")
                                .set("tablename", index.table.name.as_str())
                                .set("indexname", object.name.as_str())
                                .set("indexdef", index_definition(&object.name, index, false))
                                .finish(),
                        ),
                        _ => {}
                    }
                }
            }
            "pg_type" => {
                // The vector type, whose OID Basalt reports on the wire (pgvector's, which
                // PostgreSQL assigns at CREATE EXTENSION, so it is not in the recorded rows).
                let oid = i64::from(crate::types::VECTOR_OID);
                rows.push(
                    row.set("oid", oid)
                        .set("typname", "vector")
                        .set("typnamespace", PUBLIC_OID)
                        .set("typowner", OWNER_OID)
                        .set("typlen", -1)
                        .set("typtype", "b")
                        .set("typcategory", "U")
                        .set("typisdefined", true)
                        .set("typdelim", ",")
                        .set("typalign", "i")
                        .set("typstorage", "x")
                        .set("typtypmod", -1)
                        .finish(),
                );
            }
            "pg_settings" => {
                for (name, value) in super::REPORTED_SETTINGS {
                    rows.push(
                        row.set("name", *name)
                            .set("setting", *value)
                            .set("context", "user")
                            .set("vartype", "string")
                            .set("source", "default")
                            .set("boot_val", *value)
                            .set("reset_val", *value)
                            .set("pending_restart", false)
                            .finish(),
                    );
                }
            }
            _ => {}
        }
        Ok(rows)
    }
}

/// The parts of a `pg_attribute` row every kind of relation shares.
fn attribute<'r>(
    row: &'r mut RowBuilder,
    relation: i64,
    name: &str,
    position: usize,
    type_oid: i64,
    typmod: i64,
) -> &'r mut RowBuilder {
    let (length, by_value, align, storage) = type_storage(type_oid);
    row.set("attrelid", relation)
        .set("attname", name)
        .set("atttypid", type_oid)
        .set("attstattarget", -1)
        .set("attlen", length)
        .set("attnum", attnum(position))
        .set("attndims", i64::from(data::element_type(type_oid) != 0))
        .set("attcacheoff", -1)
        .set("atttypmod", typmod)
        .set("attbyval", by_value)
        .set("attalign", align)
        .set("attstorage", storage)
        .set("attislocal", true)
}

/// `typlen`, `typbyval`, `typalign` and `typstorage` of a built-in type.
fn type_storage(oid: i64) -> (i64, bool, String, String) {
    let fallback = (-1, false, "i".to_string(), "x".to_string());
    let (Ok(rows), Some(relation)) = (data::static_rows("pg_type"), data::relation("pg_type"))
    else {
        return fallback;
    };
    let Some(row) = rows
        .iter()
        .find(|row| row.first() == Some(&Value::Integer(oid)))
    else {
        return fallback;
    };
    let get = |name: &str| relation.position(name).and_then(|p| row.get(p));
    match (
        get("typlen"),
        get("typbyval"),
        get("typalign"),
        get("typstorage"),
    ) {
        (
            Some(Value::Integer(length)),
            Some(Value::Boolean(by_value)),
            Some(Value::Text(align)),
            Some(Value::Text(storage)),
        ) => (*length, *by_value, align.clone(), storage.clone()),
        _ => fallback,
    }
}

/// Whether values of type `oid` are text, which has a collation.
fn is_collatable(oid: i64) -> bool {
    matches!(oid, 25 | 1043 | 1042 | 19 | 18)
        || matches!(data::element_type(oid), 25 | 1043 | 1042 | 19)
}

fn collation_of(type_oid: i64) -> i64 {
    if is_collatable(type_oid) {
        DEFAULT_COLLATION
    } else {
        0
    }
}

fn is_not_null(table: &TableDef, position: usize) -> bool {
    table.columns.get(position).is_some_and(|c| c.not_null)
        || table.row_id_column == Some(position)
        || table.primary_key.contains(&position)
}

/// `attidentity`: `a` (ALWAYS) or `d` (BY DEFAULT) for an identity column, else ''.
fn identity(binder: &Binder<'_>, table: &TableDef, column: &str) -> &'static str {
    binder
        .catalog
        .sequences
        .values()
        .find_map(|sequence| match (&sequence.owner, &sequence.identity) {
            (Some(owner), Some((name, always)))
                if owner.eq_ignore_ascii_case(&table.name) && name.eq_ignore_ascii_case(column) =>
            {
                Some(if *always { "a" } else { "d" })
            }
            _ => None,
        })
        .unwrap_or("")
}

/// A text array value.
fn text_array(items: Vec<String>) -> Value {
    Array::from_elements(
        DataType::Text(None),
        items.into_iter().map(Value::Text).collect(),
    )
    .map_or(Value::Null, |array| Value::Array(Arc::new(array)))
}

/// A column default as PostgreSQL's deparser prints it (`pg_get_expr`): a quoted literal
/// carries its column's type (`'x'::character varying`), and `nextval`'s argument is a
/// regclass (`nextval('s'::regclass)`). Other expressions are shown as written.
pub(super) fn default_display(expression: &str, type_oid: i64) -> String {
    let trimmed = expression.trim();
    if is_quoted_literal(trimmed) {
        return format!("{trimmed}::{}", super::functions::format_type(type_oid, -1));
    }
    // The argument as written (its case kept), found where the lower-cased text has it.
    let argument = trimmed
        .get(..8)
        .filter(|call| call.eq_ignore_ascii_case("nextval("))
        .and_then(|_| trimmed.get(8..))
        .and_then(|rest| rest.strip_suffix(')'));
    if let Some(argument) = argument
        && is_quoted_literal(argument.trim())
    {
        return format!("nextval({}::regclass)", argument.trim());
    }
    trimmed.to_string()
}

/// Whether `text` is one single-quoted SQL string literal.
fn is_quoted_literal(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) else {
        return false;
    };
    !inner.replace("''", "").contains('\'')
}

/// `pg_get_indexdef`'s text: `CREATE [UNIQUE] INDEX name ON public.table USING method (...)`;
/// the pretty form leaves the schema out (it is on the search path).
pub(super) fn index_definition(
    name: &str,
    index: &super::objects::PgIndex,
    pretty: bool,
) -> String {
    let columns = match index.operator_class {
        Some(class) => format!("{} {class}", column_list(&index.table, &index.columns)),
        None => column_list(&index.table, &index.columns),
    };
    let mut text = format!(
        "CREATE {}INDEX {} ON {}{} USING {} ({columns})",
        if index.unique { "UNIQUE " } else { "" },
        quote(name),
        if pretty { "" } else { "public." },
        quote(&index.table.name),
        index.method,
    );
    if !index.options.is_empty() {
        let options: Vec<String> = index
            .options
            .iter()
            .map(|(k, v)| format!("{k}='{v}'"))
            .collect();
        text.push_str(&format!(" WITH ({})", options.join(", ")));
    }
    text
}

/// The rows of `pg_roles` / `pg_user` / `pg_database` name PostgreSQL's bootstrap user and
/// database; Basalt's are [`SESSION_USER`] and [`DATABASE_NAME`].
pub(super) fn rename_bootstrap(relation: &str, mut rows: Vec<Vec<Value>>) -> Vec<Vec<Value>> {
    let (column, replacement) = match relation {
        "pg_roles" => ("rolname", SESSION_USER),
        "pg_user" => ("usename", SESSION_USER),
        "pg_database" => ("datname", DATABASE_NAME),
        _ => return rows,
    };
    let Some(relation) = data::relation(relation) else {
        return rows;
    };
    let (Some(position), Some(oid_position)) = (
        relation.position(column),
        relation
            .position("oid")
            .or_else(|| relation.position("usesysid")),
    ) else {
        return rows;
    };
    for row in &mut rows {
        let is_bootstrap = matches!(
            row.get(oid_position),
            Some(Value::Integer(OWNER_OID)) | Some(Value::Integer(5))
        );
        if is_bootstrap && let Some(cell) = row.get_mut(position) {
            *cell = Value::Text(replacement.to_string());
        }
    }
    rows
}
