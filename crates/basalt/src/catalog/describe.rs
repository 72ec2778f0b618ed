//! The schema as SQL: every sequence, table, index, view and trigger with a `CREATE` statement rebuilt
//! from the catalog (a trigger's is its stored text), and the identifier quoting rule those
//! statements follow.
//!
//! The catalog keeps structure, not the original text, so each statement is reconstructed:
//! names quoted where they must be, declared types as written, DEFAULT and CHECK expressions
//! as the catalog stores them (the parser's rendering of what the user wrote). Executing the
//! statements in the order returned recreates an equivalent schema — the same columns, types,
//! constraints, indexes and views — which is what a dump needs; the text itself may differ
//! from what was typed.
//!
//! Indexes created implicitly for a PRIMARY KEY or UNIQUE constraint are not listed: they are
//! part of their table's statement, and creating them separately would duplicate them.
//!
//! Two readers use it: the embedded API's `Connection::schema_objects` (the shell's `.tables`,
//! `.schema` and `.dump`), and the binder's SQL-visible catalog (`basalt_schema`), so both
//! show the same statements.

use std::collections::BTreeSet;

use sqlparser::tokenizer::{Token, Tokenizer};

use super::{Catalog, ForeignKeyDef, IndexDef, IndexMethod, ReferentialAction, TableDef, ViewDef};
use crate::sql::BasaltDialect;
use crate::sql::names::POSTGRESQL_RESERVED;
use crate::storage::keys::KeyOrder;

/// What kind of object a [`SchemaObject`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaKind {
    Table,
    Index,
    View,
    Trigger,
    Sequence,
}

/// One schema object with a statement that recreates it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaObject {
    pub kind: SchemaKind,
    /// The object's name as the catalog keeps it (unquoted identifiers folded to lower case).
    pub name: String,
    /// The table an index (or the table or view a trigger) belongs to; for tables and
    /// views, their own name.
    pub table: String,
    /// A `CREATE TABLE`, `CREATE INDEX` or `CREATE VIEW` statement, without a trailing `;`.
    pub sql: String,
}

/// Every sequence, table, index, view and trigger, in an order that recreates them: sequences
/// first (column defaults call them), then tables by name (each
/// after the tables its foreign keys reference), then indexes by name, then views, each view
/// after the views it reads, then triggers by name.
pub fn describe_catalog(catalog: &Catalog) -> Vec<SchemaObject> {
    let mut objects = Vec::new();
    // A SERIAL column's sequence is part of its table's statement.
    for sequence in catalog.sequences.values().filter(|s| s.owner.is_none()) {
        objects.push(SchemaObject {
            kind: SchemaKind::Sequence,
            name: sequence.name.clone(),
            table: sequence.name.clone(),
            sql: sequence.to_sql(),
        });
    }
    for table in tables_in_dependency_order(catalog) {
        objects.push(SchemaObject {
            kind: SchemaKind::Table,
            name: table.name.clone(),
            table: table.name.clone(),
            sql: create_table_sql(table, catalog),
        });
    }
    for index in catalog.indexes.values().filter(|index| !index.implicit) {
        let Some(table) = catalog.table(&index.table) else {
            continue;
        };
        objects.push(SchemaObject {
            kind: SchemaKind::Index,
            name: index.name.clone(),
            table: table.name.clone(),
            sql: create_index_sql(index, table),
        });
    }
    for view in views_in_dependency_order(catalog) {
        objects.push(SchemaObject {
            kind: SchemaKind::View,
            name: view.name.clone(),
            table: view.name.clone(),
            sql: create_view_sql(view),
        });
    }
    for trigger in catalog.triggers.values() {
        objects.push(SchemaObject {
            kind: SchemaKind::Trigger,
            name: trigger.name.clone(),
            table: trigger.table.clone(),
            sql: trigger.to_sql(),
        });
    }
    objects
}

/// Tables with every table their foreign keys reference before them (CREATE TABLE checks
/// that the referenced table exists), otherwise by name. A cycle of foreign keys cannot be
/// created by CREATE TABLE statements alone; its tables come out by name.
fn tables_in_dependency_order(catalog: &Catalog) -> Vec<&TableDef> {
    let mut placed: Vec<&TableDef> = Vec::new();
    let mut remaining: Vec<&TableDef> = catalog.tables.values().map(|t| t.as_ref()).collect();
    while !remaining.is_empty() {
        let ready = remaining.iter().position(|table| {
            table.foreign_keys.iter().all(|key| {
                key.referenced_table.eq_ignore_ascii_case(&table.name)
                    || catalog.table(&key.referenced_table).is_none()
                    || placed
                        .iter()
                        .any(|done| done.name.eq_ignore_ascii_case(&key.referenced_table))
            })
        });
        // A cycle: take the first remaining table and go on.
        placed.push(remaining.remove(ready.unwrap_or(0)));
    }
    placed
}

fn create_table_sql(table: &TableDef, catalog: &Catalog) -> String {
    let column_name = |position: usize| {
        table
            .columns
            .get(position)
            .map_or_else(String::new, |column| quote_identifier(&column.name))
    };
    let key_list = |positions: &[usize]| {
        positions
            .iter()
            .map(|&position| column_name(position))
            .collect::<Vec<_>>()
            .join(", ")
    };

    // The table's constraint indexes: the first one matching the primary key enforces it
    // (when the key is not the row id); the others are UNIQUE constraints.
    let mut unique_keys: Vec<Vec<usize>> = catalog
        .indexes_of(&table.name)
        .filter(|index| index.implicit && index.unique)
        .map(|index| index.columns.iter().map(|(column, _)| *column).collect())
        .collect();
    if table.row_id_column.is_none()
        && let Some(at) = unique_keys.iter().position(|key| *key == table.primary_key)
    {
        unique_keys.remove(at);
    }

    // A one-column key that is the row id reads best inline; a one-column INTEGER key that is
    // not the row id was declared DESC, and must say so again or it would become the row id.
    let inline_primary_key = match table.primary_key.as_slice() {
        [column] if table.row_id_column == Some(*column) => Some(*column),
        [column]
            if table
                .columns
                .get(*column)
                .is_some_and(|c| c.data_type != crate::types::DataType::Integer) =>
        {
            Some(*column)
        }
        _ => None,
    };

    let mut lines = Vec::new();
    for (position, column) in table.columns.iter().enumerate() {
        let mut line = quote_identifier(&column.name);
        let declared = declared_type(column);
        if !declared.is_empty() {
            line.push(' ');
            line.push_str(&declared);
        }
        let in_primary_key = table.primary_key.contains(&position);
        // PRIMARY KEY implies NOT NULL except on the row id column, where NOT NULL is the
        // user's own choice.
        // An identity column's sequence, which its IDENTITY clause recreates.
        let identity = catalog
            .sequences
            .values()
            .find(|sequence| sequence.is_identity_of(&table.name, &column.name));
        let serial = super::serial_base_type(&column.declared_type).is_some() || identity.is_some();
        if column.not_null && !serial && (!in_primary_key || table.row_id_column == Some(position))
        {
            line.push_str(" NOT NULL");
        }
        // A SERIAL or identity column's NOT NULL DEFAULT nextval(...) is implied by its type
        // or its IDENTITY clause.
        if let Some(default) = column.default.as_ref().filter(|_| !serial) {
            line.push_str(" DEFAULT ");
            line.push_str(default);
        }
        if let Some(expression) = &column.generated {
            line.push_str(&format!(" GENERATED ALWAYS AS ({expression}) STORED"));
        }
        if let Some(sequence) = identity {
            let always = sequence
                .identity
                .as_ref()
                .is_some_and(|(_, always)| *always);
            line.push_str(&format!(
                " GENERATED {} AS IDENTITY (INCREMENT BY {} MINVALUE {} MAXVALUE {} START WITH {}{})",
                if always { "ALWAYS" } else { "BY DEFAULT" },
                sequence.increment,
                sequence.min_value,
                sequence.max_value,
                sequence.start,
                if sequence.cycle { " CYCLE" } else { " NO CYCLE" }
            ));
        }
        if inline_primary_key == Some(position) {
            line.push_str(" PRIMARY KEY");
            let autoincrement = catalog.sequences.values().any(|sequence| {
                sequence.autoincrement
                    && sequence
                        .owner
                        .as_ref()
                        .is_some_and(|owner| owner.eq_ignore_ascii_case(&table.name))
            });
            if autoincrement && table.row_id_column == Some(position) {
                line.push_str(" AUTOINCREMENT");
            }
        }
        if let Some(at) = unique_keys.iter().position(|key| *key == [position]) {
            unique_keys.remove(at);
            line.push_str(" UNIQUE");
        }
        lines.push(line);
    }
    if inline_primary_key.is_none() && !table.primary_key.is_empty() {
        let descending = if table.primary_key.len() == 1 && table.row_id_column.is_none() {
            " DESC"
        } else {
            ""
        };
        lines.push(format!(
            "PRIMARY KEY ({}{descending})",
            key_list(&table.primary_key)
        ));
    }
    for key in &unique_keys {
        lines.push(format!("UNIQUE ({})", key_list(key)));
    }
    for check in &table.checks {
        lines.push(format!("CHECK ({check})"));
    }
    for key in &table.foreign_keys {
        lines.push(foreign_key_sql(key, &key_list(&key.columns)));
    }
    format!(
        "CREATE TABLE {} (\n    {}\n)",
        quote_identifier(&table.name),
        lines.join(",\n    ")
    )
}

/// The column's type as declared. `CREATE TABLE ... AS` records the type of a bare NULL
/// column as `UNKNOWN`, which does not parse back; such a column stores text.
pub(crate) fn declared_type(column: &crate::catalog::ColumnDef) -> String {
    if column.declared_type.eq_ignore_ascii_case("unknown") {
        column.data_type.name().to_uppercase()
    } else {
        column.declared_type.clone()
    }
}

pub(super) fn foreign_key_sql(key: &ForeignKeyDef, columns: &str) -> String {
    let mut sql = format!(
        "FOREIGN KEY ({columns}) REFERENCES {}",
        quote_identifier(&key.referenced_table)
    );
    if !key.referenced_columns.is_empty() {
        let referenced: Vec<String> = key
            .referenced_columns
            .iter()
            .map(|name| quote_identifier(name))
            .collect();
        sql.push_str(&format!(" ({})", referenced.join(", ")));
    }
    for (event, action) in [("DELETE", key.on_delete), ("UPDATE", key.on_update)] {
        let action = match action {
            ReferentialAction::NoAction => continue,
            ReferentialAction::Restrict => "RESTRICT",
            ReferentialAction::Cascade => "CASCADE",
            ReferentialAction::SetNull => "SET NULL",
            ReferentialAction::SetDefault => "SET DEFAULT",
        };
        sql.push_str(&format!(" ON {event} {action}"));
    }
    sql
}

fn create_index_sql(index: &IndexDef, table: &TableDef) -> String {
    let columns: Vec<String> = index
        .columns
        .iter()
        .map(|(position, order)| {
            let name = table
                .columns
                .get(*position)
                .map_or_else(String::new, |column| quote_identifier(&column.name));
            match index.method.operator_class() {
                Some(class) => format!("{name} {class}"),
                None => format!("{name}{}", order_suffix(*order)),
            }
        })
        .collect();
    let using = match index.method {
        IndexMethod::BTree => String::new(),
        method => format!(" USING {}", method.name()),
    };
    let mut sql = format!(
        "CREATE {}INDEX {} ON {}{using} ({})",
        if index.unique { "UNIQUE " } else { "" },
        quote_identifier(&index.name),
        quote_identifier(&table.name),
        columns.join(", ")
    );
    if !index.options.is_empty() {
        let options: Vec<String> = index
            .options
            .iter()
            .map(|(name, value)| format!("{name} = {}", option_value_sql(value)))
            .collect();
        sql.push_str(&format!(" WITH ({})", options.join(", ")));
    }
    sql
}

/// A stored storage-parameter value as SQL: an integer or a boolean bare (so it reads back
/// as the same value), anything else as a string literal.
pub(super) fn option_value_sql(value: &str) -> String {
    if value.parse::<i64>().is_ok() || value == "true" || value == "false" {
        value.to_string()
    } else {
        format!("'{}'", value.replace('\'', "''"))
    }
}

/// ASC implies NULLS LAST and DESC implies NULLS FIRST (PostgreSQL's defaults); only the
/// other two combinations need saying.
pub(super) fn order_suffix(order: KeyOrder) -> &'static str {
    match (order.descending, order.nulls_first) {
        (false, false) => "",
        (false, true) => " NULLS FIRST",
        (true, true) => " DESC",
        (true, false) => " DESC NULLS LAST",
    }
}

pub(super) fn create_view_sql(view: &ViewDef) -> String {
    let columns = if view.column_names.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = view
            .column_names
            .iter()
            .map(|name| quote_identifier(name))
            .collect();
        format!(" ({})", names.join(", "))
    };
    format!(
        "CREATE VIEW {}{columns} AS {}",
        quote_identifier(&view.name),
        view.query
    )
}

/// Views ordered so that each comes after the views its query names. A view's query is
/// scanned for words that name other views; a word that only looks like one (a column of
/// the same name) at worst moves a view later, and if the guesses ever form a cycle the
/// remaining views follow in name order.
pub(super) fn views_in_dependency_order(catalog: &Catalog) -> Vec<&ViewDef> {
    let mut pending: Vec<(&ViewDef, BTreeSet<String>)> = catalog
        .views
        .values()
        .map(|view| {
            let words = query_words(&view.query);
            let needs = catalog
                .views
                .keys()
                .filter(|name| **name != view.name.to_lowercase() && words.contains(*name))
                .cloned()
                .collect();
            (view.as_ref(), needs)
        })
        .collect();
    let mut ordered: Vec<&ViewDef> = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let ready = pending
            .iter()
            .position(|(_, needs)| needs.is_empty())
            .unwrap_or(0);
        let (view, _) = pending.remove(ready);
        let done = view.name.to_lowercase();
        for (_, needs) in &mut pending {
            needs.remove(&done);
        }
        ordered.push(view);
    }
    ordered
}

/// The identifiers and keywords of a query, lower-cased (catalog keys are lower case).
fn query_words(query: &str) -> BTreeSet<String> {
    let dialect = BasaltDialect::new();
    let Ok(tokens) = Tokenizer::new(&dialect, query).tokenize() else {
        return BTreeSet::new();
    };
    tokens
        .into_iter()
        .filter_map(|token| match token {
            Token::Word(word) => Some(word.value.to_lowercase()),
            _ => None,
        })
        .collect()
}

/// Words that cannot stand unquoted where the reconstructed statements put names, besides
/// PostgreSQL's reserved keywords ([`POSTGRESQL_RESERVED`], what its `quote_ident` quotes at
/// the least): the words sqlparser reads as the start of a constraint in a column list or of
/// a special form in an index's column list.
const PARSER_RESERVED: &[&str] = &[
    "ceil", "floor", "fulltext", "glob", "index", "key", "spatial",
];

/// `name` as an identifier that reads back as exactly `name`: bare when it is lower-case
/// ASCII letters, digits and underscores (not starting with a digit) and not reserved,
/// double-quoted otherwise. Tools that write SQL (the shell's `.dump` and `.import`) use it
/// so that their names are quoted by the same rule as [`describe_catalog`].
pub fn quote_identifier(name: &str) -> String {
    if is_plain_identifier(name) {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// Whether `name` can be written bare and read back as exactly `name` (see
/// [`quote_identifier`]).
pub(crate) fn is_plain_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|first| first.is_ascii_lowercase() || first == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !POSTGRESQL_RESERVED.contains(&name)
        && !PARSER_RESERVED.contains(&name)
}
