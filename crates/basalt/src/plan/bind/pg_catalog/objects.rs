//! Basalt's schema objects as PostgreSQL's catalogs see them: every table, view, index and
//! sequence gets a relation OID, every PRIMARY KEY, UNIQUE, CHECK and FOREIGN KEY constraint
//! and every trigger an OID of its own, and each column a PostgreSQL type OID and typmod.
//!
//! OIDs: Basalt stores no object identifiers (and the file format keeps none), so an OID is
//! derived from what identifies the object — its kind and lower-cased name — by a 64-bit
//! FNV-1a hash folded into PostgreSQL's range for user objects (16,386 to 2^31 − 1, above
//! the OIDs Basalt reports for `vector` and its array). The same schema therefore gives the
//! same OIDs in every session and after a restart, which is what clients that cache them
//! between statements (psql's `\d`, drivers' type caches) need. The rare collision is
//! resolved by probing upwards in (kind, name) order, so an OID changes only when a
//! colliding object appears; a rename changes an object's OID (PostgreSQL's would stay).
//!
//! A row-id primary key (`id INTEGER PRIMARY KEY`) has no index of its own in Basalt — the
//! table *is* ordered by it — but PostgreSQL always has one, named `{table}_pkey`; it is
//! listed here as such, so `\d t` shows the key as PostgreSQL would.

use std::collections::HashSet;
use std::sync::Arc;

use crate::catalog::{
    Catalog, ColumnDef, IndexDef, IndexMethod, ReferentialAction, SequenceDef, TableDef,
    TriggerDef, ViewDef,
};
use crate::storage::keys::KeyOrder;
use crate::types::DataType;

/// The first OID handed to a Basalt object.
const FIRST_OID: u64 = 16_386;
/// One past the last.
const OID_LIMIT: u64 = 1 << 31;

/// What a relation is.
#[derive(Clone, Debug)]
pub(crate) enum RelationKind {
    Table(Arc<TableDef>),
    View(Arc<ViewDef>),
    Index(PgIndex),
    Sequence(Arc<SequenceDef>),
}

/// An index, explicit or implicit (constraint, row-id primary key).
#[derive(Clone, Debug)]
pub(crate) struct PgIndex {
    pub table: Arc<TableDef>,
    pub table_oid: i64,
    pub columns: Vec<(usize, KeyOrder)>,
    pub unique: bool,
    pub primary: bool,
    pub method: &'static str,
    /// The HNSW operator class, when not the default.
    pub operator_class: Option<&'static str>,
    pub options: Vec<(String, String)>,
}

/// A relation with its OID.
#[derive(Clone, Debug)]
pub(crate) struct PgRelation {
    pub oid: i64,
    pub name: String,
    pub kind: RelationKind,
}

impl PgRelation {
    /// `pg_class.relkind`.
    pub fn relkind(&self) -> &'static str {
        match self.kind {
            RelationKind::Table(_) => "r",
            RelationKind::View(_) => "v",
            RelationKind::Index(_) => "i",
            RelationKind::Sequence(_) => "S",
        }
    }
}

/// A table constraint.
#[derive(Clone, Debug)]
pub(crate) struct PgConstraint {
    pub oid: i64,
    pub name: String,
    /// `p`, `u`, `c` or `f`.
    pub kind: &'static str,
    pub table_oid: i64,
    /// The index enforcing a `p` / `u` constraint (0 otherwise).
    pub index_oid: i64,
    /// Attribute numbers (from 1) of the constrained columns.
    pub columns: Vec<i64>,
    /// `pg_get_constraintdef`'s text.
    pub definition: String,
    /// For a foreign key: the referenced table's OID and attribute numbers, and the
    /// update and delete actions as `pg_constraint` letters.
    pub references: Option<(i64, Vec<i64>, &'static str, &'static str)>,
}

/// A trigger.
#[derive(Clone, Debug)]
pub(crate) struct PgTrigger {
    pub oid: i64,
    pub table_oid: i64,
    pub def: Arc<TriggerDef>,
}

/// Every Basalt object with its OIDs.
#[derive(Debug, Default)]
pub(crate) struct PgObjects {
    /// Relations in (kind, name) order.
    pub relations: Vec<PgRelation>,
    pub constraints: Vec<PgConstraint>,
    pub triggers: Vec<PgTrigger>,
}

impl PgObjects {
    /// The objects of `catalog`.
    pub fn new(catalog: &Catalog) -> PgObjects {
        let mut oids = OidAllocator::default();
        let mut objects = PgObjects::default();
        for table in catalog.tables.values() {
            objects.relations.push(PgRelation {
                oid: oids.allocate("table", &table.name),
                name: table.name.clone(),
                kind: RelationKind::Table(Arc::clone(table)),
            });
        }
        for view in catalog.views.values() {
            objects.relations.push(PgRelation {
                oid: oids.allocate("view", &view.name),
                name: view.name.clone(),
                kind: RelationKind::View(Arc::clone(view)),
            });
        }
        for sequence in catalog.sequences.values() {
            objects.relations.push(PgRelation {
                oid: oids.allocate("sequence", &sequence.name),
                name: sequence.name.clone(),
                kind: RelationKind::Sequence(Arc::clone(sequence)),
            });
        }
        let mut indexes: Vec<(String, PgIndex)> = Vec::new();
        for table in catalog.tables.values() {
            let Some(table_oid) = objects.table_oid(&table.name) else {
                continue;
            };
            let table_indexes: Vec<&Arc<IndexDef>> = catalog
                .indexes
                .values()
                .filter(|index| index.table.eq_ignore_ascii_case(&table.name))
                .collect();
            let is_primary = |index: &IndexDef| {
                index.implicit
                    && index.unique
                    && !table.primary_key.is_empty()
                    && index
                        .columns
                        .iter()
                        .map(|(c, _)| *c)
                        .eq(table.primary_key.iter().copied())
            };
            if !table.primary_key.is_empty() && !table_indexes.iter().any(|i| is_primary(i)) {
                indexes.push((
                    format!("{}_pkey", table.name),
                    PgIndex {
                        table: Arc::clone(table),
                        table_oid,
                        columns: table
                            .primary_key
                            .iter()
                            .map(|&c| (c, KeyOrder::ASC))
                            .collect(),
                        unique: true,
                        primary: true,
                        method: "btree",
                        operator_class: None,
                        options: Vec::new(),
                    },
                ));
            }
            for index in table_indexes {
                indexes.push((
                    index.name.clone(),
                    PgIndex {
                        table: Arc::clone(table),
                        table_oid,
                        columns: index.columns.clone(),
                        unique: index.unique,
                        primary: is_primary(index),
                        method: index.method.name(),
                        operator_class: match index.method {
                            IndexMethod::Hnsw(_) => index.method.operator_class(),
                            _ => None,
                        },
                        options: index.options.clone(),
                    },
                ));
            }
        }
        indexes.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, index) in indexes {
            let oid = oids.allocate("index", &name);
            if index.unique && (index.primary || is_constraint_index(&index, &name, catalog)) {
                let columns: Vec<i64> = index.columns.iter().map(|(c, _)| attnum(*c)).collect();
                let (kind, keyword) = if index.primary {
                    ("p", "PRIMARY KEY")
                } else {
                    ("u", "UNIQUE")
                };
                objects.constraints.push(PgConstraint {
                    oid: oids.allocate("constraint", &name),
                    name: name.clone(),
                    kind,
                    table_oid: index.table_oid,
                    index_oid: oid,
                    definition: format!(
                        "{keyword} ({})",
                        column_list(&index.table, &index.columns)
                    ),
                    columns,
                    references: None,
                });
            }
            objects.relations.push(PgRelation {
                oid,
                name,
                kind: RelationKind::Index(index),
            });
        }
        for table in catalog.tables.values() {
            let Some(table_oid) = objects.table_oid(&table.name) else {
                continue;
            };
            let mut check_names: Vec<String> = Vec::new();
            for check in &table.checks {
                // PostgreSQL's name: `{table}_{column}_check` when the expression reads one
                // column, else `{table}_check`, numbered from 1 when taken.
                let base = match checked_columns(table, check).as_slice() {
                    [column] => format!("{}_{column}_check", table.name),
                    _ => format!("{}_check", table.name),
                };
                let mut name = base.clone();
                let mut suffix = 1;
                while check_names.contains(&name) {
                    name = format!("{base}{suffix}");
                    suffix += 1;
                }
                check_names.push(name.clone());
                objects.constraints.push(PgConstraint {
                    oid: oids.allocate("constraint", &format!("{}.{name}", table.name)),
                    name,
                    kind: "c",
                    table_oid,
                    index_oid: 0,
                    columns: Vec::new(),
                    definition: format!("CHECK ({check})"),
                    references: None,
                });
            }
            for key in &table.foreign_keys {
                let referenced = catalog.table(&key.referenced_table);
                let referenced_oid = objects.table_oid(&key.referenced_table).unwrap_or(0);
                let referenced_columns: Vec<i64> = key
                    .referenced_columns
                    .iter()
                    .filter_map(|name| {
                        referenced
                            .and_then(|t| t.column(name))
                            .map(|(c, _)| attnum(c))
                    })
                    .collect();
                let mut definition = format!(
                    "FOREIGN KEY ({}) REFERENCES {}({})",
                    key.columns
                        .iter()
                        .filter_map(|&c| table.columns.get(c).map(|column| quote(&column.name)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    quote(&key.referenced_table),
                    key.referenced_columns
                        .iter()
                        .map(|c| quote(c))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                for (clause, action) in [("UPDATE", key.on_update), ("DELETE", key.on_delete)] {
                    if let Some(words) = action_words(action) {
                        definition.push_str(&format!(" ON {clause} {words}"));
                    }
                }
                // PostgreSQL records the referenced table's unique index the key relies on.
                let key_index = objects
                    .relations
                    .iter()
                    .find(|r| match &r.kind {
                        RelationKind::Index(index) => {
                            index.unique
                                && index.table_oid == referenced_oid
                                && index
                                    .columns
                                    .iter()
                                    .map(|(c, _)| attnum(*c))
                                    .eq(referenced_columns.iter().copied())
                        }
                        _ => false,
                    })
                    .map_or(0, |r| r.oid);
                objects.constraints.push(PgConstraint {
                    oid: oids.allocate("constraint", &format!("{}.{}", table.name, key.name)),
                    name: key.name.clone(),
                    kind: "f",
                    table_oid,
                    index_oid: key_index,
                    columns: key.columns.iter().map(|&c| attnum(c)).collect(),
                    definition,
                    references: Some((
                        referenced_oid,
                        referenced_columns,
                        action_letter(key.on_update),
                        action_letter(key.on_delete),
                    )),
                });
            }
        }
        for trigger in catalog.triggers.values() {
            objects.triggers.push(PgTrigger {
                oid: oids.allocate("trigger", &trigger.name),
                table_oid: objects.relation_oid(&trigger.table).unwrap_or(0),
                def: Arc::clone(trigger),
            });
        }
        objects
    }

    /// The OID of table `name`.
    pub fn table_oid(&self, name: &str) -> Option<i64> {
        self.relations
            .iter()
            .find(|r| matches!(r.kind, RelationKind::Table(_)) && r.name.eq_ignore_ascii_case(name))
            .map(|r| r.oid)
    }

    /// The OID of the relation (of any kind) called `name`.
    pub fn relation_oid(&self, name: &str) -> Option<i64> {
        self.relations
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(name))
            .map(|r| r.oid)
    }
}

/// The table's columns an expression names, each once, in order of first mention.
fn checked_columns(table: &TableDef, expression: &str) -> Vec<String> {
    let Ok(tokens) = crate::sql::tokenize(expression) else {
        return Vec::new();
    };
    let mut columns: Vec<String> = Vec::new();
    for token in tokens {
        if let sqlparser::tokenizer::Token::Word(word) = token.token {
            let name = if word.quote_style.is_some() {
                word.value
            } else {
                word.value.to_lowercase()
            };
            if let Some((_, column)) = table.column(&name)
                && !columns.contains(&column.name)
            {
                columns.push(column.name.clone());
            }
        }
    }
    columns
}

/// Whether a unique index backs a UNIQUE constraint (it was made implicitly for one) rather
/// than being a plain `CREATE UNIQUE INDEX`.
fn is_constraint_index(index: &PgIndex, name: &str, catalog: &Catalog) -> bool {
    catalog
        .indexes
        .get(&name.to_lowercase())
        .is_some_and(|def| def.implicit && index.unique)
}

/// OIDs from names (see the module documentation).
#[derive(Default)]
struct OidAllocator {
    used: HashSet<i64>,
}

impl OidAllocator {
    fn allocate(&mut self, kind: &str, name: &str) -> i64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in kind.bytes().chain([0]).chain(name.to_lowercase().bytes()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        let span = OID_LIMIT - FIRST_OID;
        let mut offset = hash % span;
        loop {
            let oid = (FIRST_OID + offset) as i64;
            if self.used.insert(oid) {
                return oid;
            }
            offset = (offset + 1) % span;
        }
    }
}

/// PostgreSQL's attribute number of column position `position`.
pub(crate) fn attnum(position: usize) -> i64 {
    position as i64 + 1
}

/// `a, b DESC` for an index's columns.
pub(crate) fn column_list(table: &TableDef, columns: &[(usize, KeyOrder)]) -> String {
    columns
        .iter()
        .filter_map(|(position, order)| {
            let column = table.columns.get(*position)?;
            let mut text = quote(&column.name);
            if order.descending {
                text.push_str(" DESC");
                if !order.nulls_first {
                    text.push_str(" NULLS LAST");
                }
            } else if order.nulls_first {
                text.push_str(" NULLS FIRST");
            }
            Some(text)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// An identifier as PostgreSQL's deparser writes it: bare when it is a plain lower-case word
/// and not a reserved keyword.
pub(crate) fn quote(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|first| first.is_ascii_lowercase() || first == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !crate::sql::names::POSTGRESQL_RESERVED.contains(&name);
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

fn action_words(action: ReferentialAction) -> Option<&'static str> {
    match action {
        ReferentialAction::NoAction => None,
        ReferentialAction::Restrict => Some("RESTRICT"),
        ReferentialAction::Cascade => Some("CASCADE"),
        ReferentialAction::SetNull => Some("SET NULL"),
        ReferentialAction::SetDefault => Some("SET DEFAULT"),
    }
}

fn action_letter(action: ReferentialAction) -> &'static str {
    match action {
        ReferentialAction::NoAction => "a",
        ReferentialAction::Restrict => "r",
        ReferentialAction::Cascade => "c",
        ReferentialAction::SetNull => "n",
        ReferentialAction::SetDefault => "d",
    }
}

/// A column's PostgreSQL type OID and typmod, from its declared type where that names a
/// PostgreSQL type more precisely than Basalt's stored one (`int` is `integer`, 23, though
/// Basalt stores 64 bits; `varchar(40)` is `character varying` with typmod 44).
pub(crate) fn column_type(column: &ColumnDef) -> (i64, i64) {
    let declared = column.declared_type.to_ascii_lowercase();
    let base = declared.split('(').next().unwrap_or_default().trim();
    let array = base.ends_with("[]");
    let base = base.trim_end_matches("[]").trim();
    let by_name = match base {
        "int" | "integer" | "int4" | "serial" | "serial4" => Some(23),
        "bigint" | "int8" | "bigserial" | "serial8" => Some(20),
        "smallint" | "int2" | "smallserial" | "serial2" => Some(21),
        "real" | "float4" => Some(700),
        "varchar" | "character varying" => Some(1043),
        "char" | "character" | "bpchar" => Some(1042),
        _ => None,
    };
    let typmod = match column.data_type {
        DataType::Text(Some(length)) => i64::from(length) + 4,
        DataType::Numeric(Some((precision, scale))) => {
            ((i64::from(precision) << 16) | i64::from(scale)) + 4
        }
        DataType::Time(Some(precision)) => i64::from(precision),
        DataType::Vector(Some(dimensions)) => i64::from(dimensions),
        _ => -1,
    };
    let oid = match (by_name, array) {
        (Some(oid), false) => oid,
        (Some(oid), true) => array_type_oid(oid),
        (None, _) => i64::from(column.data_type.descriptor().pg_oid),
    };
    (oid, typmod)
}

/// The array type of built-in type `element`, from the recorded `pg_type`.
fn array_type_oid(element: i64) -> i64 {
    super::data::type_name(element)
        .and_then(|name| super::data::type_oid(&format!("_{name}")))
        .unwrap_or(element)
}
