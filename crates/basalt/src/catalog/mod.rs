//! The catalog: tables, columns, indexes, views, triggers and sequences, persisted in the database file.
//!
//! Every schema object is one entry of a *system index tree* whose root page is kept in
//! header meta slot [`CATALOG_ROOT_SLOT`]; a schema version in meta slot
//! [`SCHEMA_VERSION_SLOT`] is bumped by every DDL statement, so a connection knows when its
//! cached catalog — and every prepared plan built against it — is stale. Because the
//! catalog lives in ordinary pages, DDL is transactional exactly like DML: a rolled-back
//! `CREATE TABLE` leaves no trace, and every snapshot sees the schema that matches its data.
//!
//! An entry's key is its kind byte followed by its lower-cased name; its value is the object's
//! definition in a small versioned binary form ([`encode`]): names, declared types, physical
//! column slots, constraints as SQL text, and root pages. Expressions (DEFAULT, CHECK) are kept
//! as SQL text and re-parsed by the binder when a statement needs them.

pub mod describe;
mod encode;
pub mod postgres;
mod store;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::storage::PageNo;
use crate::storage::btree::ColumnKind;
use crate::storage::keys::KeyOrder;
use crate::types::vector::kernels::Metric;
use crate::types::{DataType, Value};

pub use encode::{decode_entry, encode_entry};
pub use store::{load_catalog, put_object, remove_object};

/// Meta slot holding the catalog tree's root page.
pub const CATALOG_ROOT_SLOT: usize = 0;
/// Meta slot holding the schema version.
pub const SCHEMA_VERSION_SLOT: usize = 1;

/// A column of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnDef {
    /// Name as written (case-folded per SQL rules by the binder).
    pub name: String,
    /// The value type, with its declared modifier (`VARCHAR(20)`'s length), enforced on
    /// every write.
    pub data_type: DataType,
    /// The type as declared (`VARCHAR(20)`, `BIGINT`), for introspection and the wire.
    pub declared_type: String,
    /// `NOT NULL`.
    pub not_null: bool,
    /// `DEFAULT` expression as SQL text.
    pub default: Option<String>,
    /// `GENERATED ALWAYS AS (expr) STORED`: the expression as SQL text over the table's
    /// other columns. The executor computes the value on every INSERT and UPDATE (after
    /// BEFORE triggers, before constraints); statements may only write DEFAULT into it.
    pub generated: Option<String>,
    /// Position of this column's values in the table tree's rows. Stable across ALTER TABLE:
    /// dropped columns keep their slot, new columns get new slots.
    pub slot: usize,
}

impl ColumnDef {
    /// The maximum length of a `VARCHAR(n)` / `CHAR(n)` column.
    pub fn max_length(&self) -> Option<u32> {
        self.data_type.max_length()
    }

    /// How the column's values are stored in a table leaf.
    pub fn storage_kind(&self) -> ColumnKind {
        self.data_type.storage_kind()
    }
}

/// A foreign key constraint (`REFERENCES`), enforced by `crate::exec::foreign_keys`.
///
/// The binder validates it when the table is created: the referenced table exists, the
/// referenced columns are named explicitly (a bare `REFERENCES p` is stored as p's primary
/// key) and are exactly the columns of p's primary key or of a unique index, and the types
/// are comparable. DDL keeps it valid afterwards: renames rewrite `referenced_table` and
/// `referenced_columns`, and drops that would leave it dangling are refused.
#[derive(Clone, Debug, PartialEq)]
pub struct ForeignKeyDef {
    /// The constraint's name (`CONSTRAINT name`, else PostgreSQL's `{table}_{columns}_fkey`).
    pub name: String,
    /// The referencing columns (positions in the table's `columns`).
    pub columns: Vec<usize>,
    /// The referenced table's name.
    pub referenced_table: String,
    /// The referenced columns' names, pairwise with `columns`.
    pub referenced_columns: Vec<String>,
    pub on_delete: ReferentialAction,
    pub on_update: ReferentialAction,
}

impl ForeignKeyDef {
    /// PostgreSQL's name for an unnamed foreign key: `{table}_{column}_{column}_fkey`.
    pub fn default_name(table: &TableDef, columns: &[usize]) -> String {
        let mut name = table.name.clone();
        for &column in columns {
            if let Some(column) = table.columns.get(column) {
                name.push('_');
                name.push_str(&column.name);
            }
        }
        name.push_str("_fkey");
        name
    }
}

/// What happens to referencing rows when a referenced row changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReferentialAction {
    NoAction,
    Restrict,
    Cascade,
    SetNull,
    SetDefault,
}

/// Most columns a table may have, dropped ones included (PostgreSQL's limit and code, 54011):
/// each keeps a physical slot, and every row carries a cell per slot. Far below the file
/// format's own limit ([`MAX_SLOTS_IN_FILE`]), so every table DDL can make stays readable.
pub const MAX_TABLE_COLUMNS: usize = 1600;

/// Most physical slots a stored table definition may claim: a table leaf counts its columns
/// in 2 bytes. A catalog entry claiming more is damaged, and trusting its count would make
/// every row written to the table allocate that many cells.
pub const MAX_SLOTS_IN_FILE: usize = u16::MAX as usize;

/// A table.
#[derive(Clone, Debug, PartialEq)]
pub struct TableDef {
    pub name: String,
    pub columns: Vec<ColumnDef>,
    /// Root page of the table tree (rows keyed by row id).
    pub root: PageNo,
    /// The column that *is* the row id (`INTEGER PRIMARY KEY`), if any.
    pub row_id_column: Option<usize>,
    /// Primary key columns (empty = none). When not the row id, a unique index enforces it.
    pub primary_key: Vec<usize>,
    /// CHECK constraints as SQL text.
    pub checks: Vec<String>,
    pub foreign_keys: Vec<ForeignKeyDef>,
    /// Physical slot count of the table tree's rows (≥ columns.len(): DROP COLUMN rewrites the
    /// rows into dense slots, but files written before it did may still have gaps).
    pub slot_count: usize,
}

impl TableDef {
    /// The column named `name` (case-insensitive), with its position.
    pub fn column(&self, name: &str) -> Option<(usize, &ColumnDef)> {
        self.columns
            .iter()
            .enumerate()
            .find(|(_, column)| column.name.eq_ignore_ascii_case(name))
    }

    /// Storage kinds of every physical slot, for writing rows.
    pub fn slot_kinds(&self) -> Vec<ColumnKind> {
        let mut kinds = vec![ColumnKind::Var; self.slot_count];
        for column in &self.columns {
            if let Some(kind) = kinds.get_mut(column.slot) {
                *kind = column.storage_kind();
            }
        }
        kinds
    }
}

impl TableDef {
    /// Whether `columns` is exactly the row id column, so a key on them is a row id.
    pub fn is_row_id(&self, columns: &[usize]) -> bool {
        matches!((columns, self.row_id_column), ([column], Some(row_id)) if *column == row_id)
    }
}

/// How an index is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexMethod {
    /// An ordered B+tree on memcomparable keys.
    BTree,
    /// An HNSW graph over one vector column (pgvector's `hnsw`), ordered by the distance its
    /// operator class names (`vector_l2_ops` → L2, ...).
    Hnsw(Metric),
    /// An inverted index over one text column, for full-text search ranked by BM25; its
    /// options choose the analyzer (`tokenizer`, `stemmer`, `stopwords`).
    Fts,
}

/// Why `CREATE INDEX ... USING name` names no method Basalt has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownIndexMethod {
    /// PostgreSQL has this method, Basalt does not (yet).
    NotSupported(String),
    /// No such access method at all.
    DoesNotExist(String),
}

impl IndexMethod {
    /// The method `CREATE INDEX ... USING name` asks for (case-insensitive): the one place
    /// that maps a method's SQL name to its implementation. No `USING` means B+tree.
    pub fn from_name(name: &str) -> Result<IndexMethod, UnknownIndexMethod> {
        match name.to_ascii_lowercase().as_str() {
            "btree" => Ok(IndexMethod::BTree),
            // The operator class (`vector_cosine_ops`) chooses the distance; L2 is the
            // default, as pgvector's `vector_l2_ops` is.
            "hnsw" => Ok(IndexMethod::Hnsw(Metric::L2)),
            "fts" => Ok(IndexMethod::Fts),
            "hash" | "gin" | "gist" | "spgist" | "brin" | "bloom" => {
                Err(UnknownIndexMethod::NotSupported(name.to_ascii_lowercase()))
            }
            _ => Err(UnknownIndexMethod::DoesNotExist(name.to_owned())),
        }
    }

    /// The method's SQL name.
    pub fn name(self) -> &'static str {
        match self {
            IndexMethod::BTree => "btree",
            IndexMethod::Hnsw(_) => "hnsw",
            IndexMethod::Fts => "fts",
        }
    }

    /// The operator class an HNSW index's distance is named by (`vector_cosine_ops`).
    pub fn operator_class(self) -> Option<&'static str> {
        match self {
            IndexMethod::BTree | IndexMethod::Fts => None,
            IndexMethod::Hnsw(metric) => Some(match metric {
                Metric::L2 => "vector_l2_ops",
                Metric::NegativeInnerProduct => "vector_ip_ops",
                Metric::Cosine => "vector_cosine_ops",
                Metric::L1 => "vector_l1_ops",
            }),
        }
    }

    /// The distance of an HNSW operator class, by name.
    pub fn hnsw_metric(operator_class: &str) -> Option<Metric> {
        Some(match operator_class.to_ascii_lowercase().as_str() {
            "vector_l2_ops" => Metric::L2,
            "vector_ip_ops" => Metric::NegativeInnerProduct,
            "vector_cosine_ops" => Metric::Cosine,
            "vector_l1_ops" => Metric::L1,
            _ => return None,
        })
    }

    /// The storage parameters `CREATE INDEX ... WITH (name = value)` accepts for the method,
    /// each checked here; the result is the value as the catalog keeps it
    /// ([`IndexDef::options`]: an integer in decimal, a boolean as `true` or `false`). A
    /// B+tree takes PostgreSQL's `fillfactor` (10–100) and `deduplicate_items` (boolean) so
    /// that PostgreSQL DDL runs unchanged; Basalt's B+tree splits pages by its own rule, so
    /// neither changes the tree. A method that reads its options (an HNSW index's `m`) parses
    /// the stored text back when it opens the index.
    pub fn check_option(self, name: &str, value: &Value) -> Result<String, String> {
        match (self, name) {
            (IndexMethod::BTree, "fillfactor") => match value {
                Value::Integer(fill) if (10..=100).contains(fill) => Ok(fill.to_string()),
                Value::Integer(fill) => Err(format!(
                    "value {fill} out of bounds for option \"fillfactor\""
                )),
                other => Err(format!(
                    "invalid value for integer option \"fillfactor\": {other}"
                )),
            },
            (IndexMethod::BTree, "deduplicate_items") => match value {
                Value::Boolean(flag) => Ok(flag.to_string()),
                other => Err(format!(
                    "invalid value for boolean option \"deduplicate_items\": {other}"
                )),
            },
            // pgvector's bounds.
            (IndexMethod::Hnsw(_), "m") => integer_option(name, value, 2, 100),
            (IndexMethod::Hnsw(_), "ef_construction") => integer_option(name, value, 4, 1000),
            (IndexMethod::Fts, "tokenizer" | "stemmer" | "stopwords") => {
                let text = match value {
                    Value::Text(text) => text.clone(),
                    other => other.to_string(),
                };
                // The analyzer checks the value now, so a bad one fails CREATE INDEX.
                crate::types::text_search::Analyzer::from_options([(name, text.as_str())])
                    .map_err(|error| error.to_string())?;
                Ok(text.trim().to_lowercase())
            }
            _ => Err(format!("unrecognized parameter \"{name}\"")),
        }
    }
}

/// An integer storage parameter within `low..=high`, as PostgreSQL words the errors.
fn integer_option(name: &str, value: &Value, low: i64, high: i64) -> Result<String, String> {
    match value {
        Value::Integer(n) if (low..=high).contains(n) => Ok(n.to_string()),
        Value::Integer(n) => Err(format!(
            "value {n} out of bounds for option \"{name}\" (valid values are {low} to {high})"
        )),
        other => Err(format!(
            "invalid value for integer option \"{name}\": {other}"
        )),
    }
}

/// A secondary index. Its entries are `encoded key columns ‖ row id` with empty values.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexDef {
    pub name: String,
    pub table: String,
    /// Indexed columns (positions in the table's `columns`) with their order.
    pub columns: Vec<(usize, KeyOrder)>,
    pub unique: bool,
    pub method: IndexMethod,
    pub root: PageNo,
    /// Created implicitly for a PRIMARY KEY or UNIQUE constraint (dropped with the table,
    /// not by DROP INDEX).
    pub implicit: bool,
    /// The method's storage parameters (`WITH (name = value, ...)`), in the order written:
    /// lower-cased names, values as [`IndexMethod::check_option`] normalised them. Kept as
    /// text so that a method's parameters need no catalog format of their own.
    pub options: Vec<(String, String)>,
}

/// A view: a named query.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewDef {
    pub name: String,
    /// Column names given in `CREATE VIEW v (a, b) AS ...`, if any.
    pub column_names: Vec<String>,
    /// The query, as SQL text.
    pub query: String,
}

/// When a trigger's program runs relative to the row change that fires it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriggerTiming {
    Before,
    After,
    /// Instead of the change: only on views, whose rows cannot be changed themselves.
    InsteadOf,
}

/// The kind of row change that fires a trigger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TriggerEvent {
    Insert,
    /// `UPDATE [OF column, ...]`: with columns, only an UPDATE whose SET names one of them.
    Update(Vec<String>),
    Delete,
}

/// A row trigger (SQLite's `CREATE TRIGGER`): a program of statements run for each row a
/// modification of `table` changes. The WHEN condition and the statements are kept as SQL
/// text and re-bound when a statement fires them (`crate::exec::triggers`), with `NEW` and
/// `OLD` standing for the row.
#[derive(Clone, Debug, PartialEq)]
pub struct TriggerDef {
    pub name: String,
    /// The table (or, for INSTEAD OF, the view) the trigger watches.
    pub table: String,
    pub timing: TriggerTiming,
    pub event: TriggerEvent,
    /// The WHEN condition, as SQL text.
    pub condition: Option<String>,
    /// The program: INSERT, UPDATE, DELETE and SELECT statements, each as SQL text.
    pub body: Vec<String>,
}

impl TriggerDef {
    /// The trigger's timing and event as `CREATE TRIGGER` writes them (`BEFORE`,
    /// `UPDATE OF a, b`), the same words in Basalt's and PostgreSQL's syntax.
    pub fn timing_and_event_sql(&self) -> (&'static str, String) {
        let timing = match self.timing {
            TriggerTiming::Before => "BEFORE",
            TriggerTiming::After => "AFTER",
            TriggerTiming::InsteadOf => "INSTEAD OF",
        };
        let event = match &self.event {
            TriggerEvent::Insert => "INSERT".to_string(),
            TriggerEvent::Update(columns) if columns.is_empty() => "UPDATE".to_string(),
            TriggerEvent::Update(columns) => format!(
                "UPDATE OF {}",
                columns
                    .iter()
                    .map(|column| quote_identifier(column))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            TriggerEvent::Delete => "DELETE".to_string(),
        };
        (timing, event)
    }

    /// The trigger as a `CREATE TRIGGER` statement (for `.schema` and dumps).
    pub fn to_sql(&self) -> String {
        let (timing, event) = self.timing_and_event_sql();
        let mut sql = format!(
            "CREATE TRIGGER {} {timing} {event} ON {} FOR EACH ROW",
            quote_identifier(&self.name),
            quote_identifier(&self.table)
        );
        if let Some(condition) = &self.condition {
            sql.push_str(&format!(" WHEN {condition}"));
        }
        sql.push_str(" BEGIN");
        for statement in &self.body {
            sql.push_str(&format!(" {statement};"));
        }
        sql.push_str(" END");
        sql
    }
}

/// `name` as an identifier: bare when it is a plain lower-case word, else double-quoted.
fn quote_identifier(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|first| first.is_ascii_lowercase() || first == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// A sequence (`CREATE SEQUENCE`): a named counter that `nextval` advances.
///
/// The definition lives in the catalog; the counter's position (last value, whether it has
/// been handed out) lives in a one-row table tree of its own (`root`), so advancing it writes
/// one small page and leaves the schema version — and every prepared plan — alone. Both are
/// ordinary pages, so a rolled-back transaction also rolls back its `nextval` calls (unlike
/// PostgreSQL, whose sequences are non-transactional; `docs/sql.md` says so).
#[derive(Clone, Debug, PartialEq)]
pub struct SequenceDef {
    pub name: String,
    /// Added to the value by each `nextval` (never 0; negative counts down).
    pub increment: i64,
    pub min_value: i64,
    pub max_value: i64,
    /// The first value `nextval` returns.
    pub start: i64,
    /// Whether passing a bound wraps around to the other one instead of failing (2200H).
    pub cycle: bool,
    /// Root page of the tree holding the counter's state.
    pub root: PageNo,
    /// The table whose SERIAL column created it: the sequence is dropped with that table and
    /// is part of its `CREATE TABLE` in schema listings, not a statement of its own.
    pub owner: Option<String>,
    /// For an identity column's sequence: the column, and whether it is `GENERATED ALWAYS`
    /// (explicit values refused, 428C9) rather than `BY DEFAULT`.
    pub identity: Option<(String, bool)>,
    /// SQLite's AUTOINCREMENT: the sequence is its owner table's high-water mark of row ids
    /// (SQLite's `sqlite_sequence` row), never lowered, so deleted ids are not reused.
    pub autoincrement: bool,
}

impl SequenceDef {
    /// Whether this is the sequence of identity column `column` of table `table` (names
    /// compared case-insensitively, as the catalog keys them).
    pub fn is_identity_of(&self, table: &str, column: &str) -> bool {
        self.owner
            .as_ref()
            .is_some_and(|owner| owner.eq_ignore_ascii_case(table))
            && self
                .identity
                .as_ref()
                .is_some_and(|(name, _)| name.eq_ignore_ascii_case(column))
    }

    /// The sequence as a `CREATE SEQUENCE` statement (for `.schema` and dumps). The current
    /// position is not part of the schema; a dump carries it as a `setval` call.
    pub fn to_sql(&self) -> String {
        format!(
            "CREATE SEQUENCE {} INCREMENT BY {} MINVALUE {} MAXVALUE {} START WITH {}{}",
            quote_identifier(&self.name),
            self.increment,
            self.min_value,
            self.max_value,
            self.start,
            if self.cycle { " CYCLE" } else { " NO CYCLE" }
        )
    }
}

/// The integer type behind a SERIAL pseudo-type (`serial`, `bigserial`, `smallserial` and
/// their `serial4`/`serial8`/`serial2` spellings), compared case-insensitively.
pub fn serial_base_type(declared: &str) -> Option<&'static str> {
    match declared.to_ascii_lowercase().as_str() {
        "serial" | "serial4" => Some("INTEGER"),
        "bigserial" | "serial8" => Some("BIGINT"),
        "smallserial" | "serial2" => Some("SMALLINT"),
        _ => None,
    }
}

/// What `ANALYZE` measured of one table, for the optimizer's estimates. Statistics name the
/// root pages they were taken from, so a table or index dropped and re-created under the same
/// name does not inherit them.
#[derive(Clone, Debug, PartialEq)]
pub struct TableStatistics {
    pub table: String,
    pub table_root: PageNo,
    pub rows: u64,
    pub indexes: Vec<IndexStatistics>,
}

/// Per index: the average number of rows sharing each leading-columns prefix (entry `k` for
/// the first `k + 1` key columns), as SQLite's `sqlite_stat1` keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexStatistics {
    pub index: String,
    pub index_root: PageNo,
    pub rows_per_key: Vec<f64>,
}

/// One catalog entry.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaObject {
    Table(TableDef),
    Index(IndexDef),
    View(ViewDef),
    Statistics(TableStatistics),
    Trigger(TriggerDef),
    Sequence(SequenceDef),
}

impl SchemaObject {
    /// The object's name.
    pub fn name(&self) -> &str {
        match self {
            SchemaObject::Table(table) => &table.name,
            SchemaObject::Index(index) => &index.name,
            SchemaObject::View(view) => &view.name,
            SchemaObject::Statistics(statistics) => &statistics.table,
            SchemaObject::Trigger(trigger) => &trigger.name,
            SchemaObject::Sequence(sequence) => &sequence.name,
        }
    }

    /// The kind byte that prefixes the object's key in the catalog tree.
    pub fn kind_byte(&self) -> u8 {
        match self {
            SchemaObject::Table(_) => b't',
            SchemaObject::Index(_) => b'i',
            SchemaObject::View(_) => b'v',
            SchemaObject::Statistics(_) => b's',
            SchemaObject::Trigger(_) => b'r',
            SchemaObject::Sequence(_) => b'q',
        }
    }
}

/// An immutable snapshot of the schema, shared by every statement planned against it.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// The schema version this snapshot was read at.
    pub version: u64,
    pub tables: BTreeMap<String, Arc<TableDef>>,
    pub indexes: BTreeMap<String, Arc<IndexDef>>,
    pub views: BTreeMap<String, Arc<ViewDef>>,
    /// ANALYZE results by lower-cased table name.
    pub statistics: BTreeMap<String, Arc<TableStatistics>>,
    /// Triggers by lower-cased name.
    pub triggers: BTreeMap<String, Arc<TriggerDef>>,
    /// Sequences by lower-cased name.
    pub sequences: BTreeMap<String, Arc<SequenceDef>>,
}

impl Catalog {
    /// Builds a catalog from decoded entries.
    pub fn from_objects(version: u64, objects: impl IntoIterator<Item = SchemaObject>) -> Catalog {
        let mut catalog = Catalog {
            version,
            ..Catalog::default()
        };
        for object in objects {
            match object {
                SchemaObject::Table(table) => {
                    catalog
                        .tables
                        .insert(table.name.to_lowercase(), Arc::new(table));
                }
                SchemaObject::Index(index) => {
                    catalog
                        .indexes
                        .insert(index.name.to_lowercase(), Arc::new(index));
                }
                SchemaObject::View(view) => {
                    catalog
                        .views
                        .insert(view.name.to_lowercase(), Arc::new(view));
                }
                SchemaObject::Statistics(statistics) => {
                    catalog
                        .statistics
                        .insert(statistics.table.to_lowercase(), Arc::new(statistics));
                }
                SchemaObject::Trigger(trigger) => {
                    catalog
                        .triggers
                        .insert(trigger.name.to_lowercase(), Arc::new(trigger));
                }
                SchemaObject::Sequence(sequence) => {
                    catalog
                        .sequences
                        .insert(sequence.name.to_lowercase(), Arc::new(sequence));
                }
            }
        }
        catalog
    }

    /// ANALYZE's row count of `table`, if it was analysed in its current incarnation.
    pub fn analyzed_rows(&self, table: &TableDef) -> Option<u64> {
        self.statistics
            .get(&table.name.to_lowercase())
            .filter(|statistics| statistics.table_root == table.root)
            .map(|statistics| statistics.rows)
    }

    /// ANALYZE's average rows per distinct prefix of `columns` leading key columns of `index`.
    pub fn analyzed_rows_per_key(&self, index: &IndexDef, columns: usize) -> Option<f64> {
        let statistics = self.statistics.get(&index.table.to_lowercase())?;
        let entry = statistics
            .indexes
            .iter()
            .find(|entry| entry.index.eq_ignore_ascii_case(&index.name))?;
        if entry.index_root != index.root {
            return None;
        }
        entry.rows_per_key.get(columns.checked_sub(1)?).copied()
    }

    /// The table named `name` (case-insensitive).
    pub fn table(&self, name: &str) -> Option<&Arc<TableDef>> {
        self.tables.get(&name.to_lowercase())
    }

    /// The sequences a table's SERIAL or identity columns own (dropped with the table,
    /// restarted by `TRUNCATE ... RESTART IDENTITY`).
    pub fn sequences_owned_by<'c>(
        &'c self,
        table: &'c str,
    ) -> impl Iterator<Item = &'c Arc<SequenceDef>> + 'c {
        self.sequences.values().filter(move |sequence| {
            sequence
                .owner
                .as_ref()
                .is_some_and(|owner| owner.eq_ignore_ascii_case(table))
        })
    }

    /// The triggers on table or view `table`, in name order (the order they fire in).
    pub fn triggers_of<'a>(
        &'a self,
        table: &'a str,
    ) -> impl Iterator<Item = &'a Arc<TriggerDef>> + 'a {
        self.triggers
            .values()
            .filter(move |trigger| trigger.table.eq_ignore_ascii_case(table))
    }

    /// The indexes of table `table`.
    pub fn indexes_of<'a>(
        &'a self,
        table: &'a str,
    ) -> impl Iterator<Item = &'a Arc<IndexDef>> + 'a {
        self.indexes
            .values()
            .filter(move |index| index.table.eq_ignore_ascii_case(table))
    }

    /// The indexes of `table` with a key order (B+trees): the ones key ranges, seeks, ORDER BY
    /// and index joins may use. An HNSW index is reached only by a vector search.
    pub fn ordered_indexes_of<'a>(
        &'a self,
        table: &'a str,
    ) -> impl Iterator<Item = &'a Arc<IndexDef>> + 'a {
        self.indexes_of(table)
            .filter(|index| index.method == IndexMethod::BTree)
    }

    /// A unique index of `table` whose columns are exactly `columns`, in any order (so it
    /// can find the one row holding a given value of them).
    pub fn unique_index_on<'a>(
        &'a self,
        table: &'a str,
        columns: &[usize],
    ) -> Option<&'a Arc<IndexDef>> {
        self.indexes_of(table).find(|index| {
            index.unique
                && index.columns.len() == columns.len()
                && index
                    .columns
                    .iter()
                    .all(|(column, _)| columns.contains(column))
                && columns
                    .iter()
                    .all(|column| index.columns.iter().any(|(c, _)| c == column))
        })
    }

    /// Every foreign key that references table `table` (including a table's references to
    /// itself), with the referencing table.
    pub fn references_to<'a>(
        &'a self,
        table: &'a str,
    ) -> impl Iterator<Item = (&'a Arc<TableDef>, &'a ForeignKeyDef)> + 'a {
        self.tables.values().flat_map(move |child| {
            child
                .foreign_keys
                .iter()
                .filter(move |key| key.referenced_table.eq_ignore_ascii_case(table))
                .map(move |key| (child, key))
        })
    }

    /// The known name closest to `name`, for "did you mean" hints.
    pub fn nearest_table_name(&self, name: &str) -> Option<&str> {
        nearest(
            name,
            self.tables
                .values()
                .map(|t| t.name.as_str())
                .chain(self.views.values().map(|v| v.name.as_str())),
        )
    }
}

/// The candidate with the smallest edit distance to `name`, if it is close enough to help.
pub fn nearest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let name = name.to_lowercase();
    candidates
        .map(|candidate| (edit_distance(&name, &candidate.to_lowercase()), candidate))
        .filter(|(distance, candidate)| *distance <= 2.max(candidate.len() / 3))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}
