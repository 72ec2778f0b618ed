//! Schema introspection: [`Connection::schema_objects`] lists every table, index, view and
//! trigger with a `CREATE` statement rebuilt from the catalog (`catalog::describe`), and
//! [`Connection::postgres_schema`] the same schema as PostgreSQL statements
//! (`catalog::postgres`, for `basalt dump --postgres`).
//!
//! This is how tools (the `basalt` shell's `.tables`, `.schema` and `.dump`) see the schema;
//! SQL sees the same statements through `basalt_schema`. The schema is read the way a query
//! would read it: inside an explicit transaction, that transaction's own (possibly
//! uncommitted) schema; otherwise the newest committed one.

use super::connection::Connection;
use super::error::Result;
use crate::catalog::describe::describe_catalog;
pub use crate::catalog::describe::{SchemaKind, SchemaObject, quote_identifier};
pub use crate::catalog::postgres::{PostgresOptions, PostgresSchema, PostgresTable};

/// Where one sequence stands, for dumps ([`Connection::sequence_positions`]): `setval(name,
/// last_value, called)` puts a recreated sequence back in the same place.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SequencePosition {
    pub name: String,
    /// The table whose SERIAL, identity or AUTOINCREMENT column owns it, if any.
    pub owner: Option<String>,
    /// It belongs to a `GENERATED ALWAYS AS IDENTITY` column (whose explicit values an
    /// INSERT must ask for with `OVERRIDING SYSTEM VALUE`).
    pub generated_always: bool,
    /// The last value handed out, or, when `called` is false, the next one.
    pub last_value: i64,
    pub called: bool,
}

impl Connection {
    /// Every sequence — free-standing or owned by a column — and its position, read in the
    /// same snapshot as [`Connection::schema_objects`], in name order.
    pub fn sequence_positions(&self) -> Result<Vec<SequencePosition>> {
        let source = self.session().read_source()?;
        let catalog = self.session().db.catalog_for(&source)?;
        let mut positions = Vec::with_capacity(catalog.sequences.len());
        for sequence in catalog.sequences.values() {
            let (last_value, called) = crate::exec::sequence::position(sequence, &source)?;
            positions.push(SequencePosition {
                name: sequence.name.clone(),
                owner: sequence.owner.clone(),
                generated_always: sequence
                    .identity
                    .as_ref()
                    .is_some_and(|(_, always)| *always),
                last_value,
                called,
            });
        }
        positions.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(positions)
    }

    /// Every table, index, view and trigger, in an order that recreates them: tables by
    /// name, then indexes by name, then views, each view after the views it reads, then
    /// triggers by name.
    pub fn schema_objects(&self) -> Result<Vec<SchemaObject>> {
        let source = self.session().read_source()?;
        let catalog = self.session().db.catalog_for(&source)?;
        Ok(describe_catalog(&catalog))
    }

    /// The schema as PostgreSQL 15 statements (see `catalog::postgres` for what translates
    /// and how), read in the same snapshot as [`Connection::schema_objects`] — inside an
    /// explicit transaction, the one its data is read in — including each sequence's
    /// position.
    pub fn postgres_schema(&self, options: PostgresOptions) -> Result<PostgresSchema> {
        let source = self.session().read_source()?;
        let catalog = self.session().db.catalog_for(&source)?;
        crate::catalog::postgres::postgres_schema(&catalog, options, &mut |sequence| {
            Ok(crate::exec::sequence::position(sequence, &source)?)
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "tests"
    )]

    use super::*;
    use crate::Database;
    use crate::catalog::describe::declared_type;
    use crate::catalog::{Catalog, TableDef};

    const SCHEMA: &str = r#"
        CREATE TABLE regions (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE "Mixed Case" ("Key" VARCHAR(20) PRIMARY KEY, "select" INTEGER, "quote""d" TEXT);
        CREATE TABLE customers (
            id INTEGER NOT NULL PRIMARY KEY,
            region_id INTEGER REFERENCES regions (id) ON DELETE CASCADE,
            email VARCHAR(80) NOT NULL,
            nick CHAR(8) DEFAULT 'anon',
            score DOUBLE PRECISION DEFAULT -1.5 CHECK (score >= -100),
            joined DATE DEFAULT '2024-01-01',
            seen TIMESTAMP,
            active BOOLEAN DEFAULT true,
            photo BYTEA,
            UNIQUE (email, region_id),
            CHECK (length(email) > 3)
        );
        CREATE TABLE pairs (a INTEGER, b TEXT, c REAL, PRIMARY KEY (a, b), UNIQUE (c),
            FOREIGN KEY (a) REFERENCES regions ON UPDATE SET NULL);
        CREATE TABLE backwards (k INTEGER, v TEXT, PRIMARY KEY (k DESC));
        CREATE TABLE named_pk (code TEXT PRIMARY KEY, n BIGINT);
        CREATE INDEX customers_by_score ON customers (score DESC, email);
        CREATE UNIQUE INDEX customers_nick ON customers (nick ASC NULLS FIRST);
        CREATE INDEX pairs_c ON pairs (c DESC NULLS LAST);
        CREATE INDEX "Odd Index" ON "Mixed Case" ("select");
        CREATE VIEW a_view AS SELECT id, name FROM regions WHERE id > 1;
        CREATE VIEW b_view (x, "Y") AS SELECT id, name FROM a_view;
        CREATE VIEW aa_view AS SELECT count(*) AS n FROM b_view;
        CREATE TABLE copied AS SELECT id, name, NULL AS nothing FROM regions;
    "#;

    fn objects(conn: &Connection) -> Vec<SchemaObject> {
        conn.schema_objects().unwrap()
    }

    #[test]
    fn reconstructed_schema_recreates_itself() {
        let db = Database::open_in_memory().unwrap();
        let conn = db.connect();
        conn.execute_batch(SCHEMA).unwrap();
        let original = objects(&conn);
        assert_eq!(
            original
                .iter()
                .filter(|o| o.kind == SchemaKind::Table)
                .count(),
            7
        );
        assert_eq!(
            original
                .iter()
                .filter(|o| o.kind == SchemaKind::Index)
                .count(),
            4,
            "implicit indexes are not listed: {original:#?}"
        );

        let copy = Database::open_in_memory().unwrap();
        let copy_conn = copy.connect();
        for object in &original {
            copy_conn
                .execute_batch(&object.sql)
                .unwrap_or_else(|e| panic!("{}\n{e}", object.sql));
        }
        assert_eq!(objects(&copy_conn), original);

        // The copies are equivalent, not only alike in text: same catalog structure.
        let catalog = |conn: &Connection| {
            let source = conn.session().read_source().unwrap();
            conn.session().db.catalog_for(&source).unwrap()
        };
        let (a, b) = (catalog(&conn), catalog(&copy_conn));
        // `CREATE TABLE ... AS` declares a NULL column's type as UNKNOWN, recreated as TEXT.
        let columns = |table: &TableDef| {
            let mut columns = table.columns.clone();
            for column in &mut columns {
                column.declared_type = declared_type(column);
            }
            columns
        };
        for (name, table) in &a.tables {
            let other = &b.tables[name];
            assert_eq!(columns(table), columns(other), "{name}");
            assert_eq!(table.primary_key, other.primary_key, "{name}");
            assert_eq!(table.row_id_column, other.row_id_column, "{name}");
            assert_eq!(table.checks, other.checks, "{name}");
            assert_eq!(table.foreign_keys, other.foreign_keys, "{name}");
        }
        let shape = |c: &Catalog| {
            c.indexes
                .values()
                .map(|i| (i.name.clone(), i.table.clone(), i.columns.clone(), i.unique))
                .collect::<Vec<_>>()
        };
        assert_eq!(shape(&a), shape(&b));
    }

    #[test]
    fn views_follow_the_views_they_read() {
        let db = Database::open_in_memory().unwrap();
        let conn = db.connect();
        conn.execute_batch(SCHEMA).unwrap();
        let views: Vec<String> = objects(&conn)
            .into_iter()
            .filter(|o| o.kind == SchemaKind::View)
            .map(|o| o.name)
            .collect();
        assert_eq!(views, ["a_view", "b_view", "aa_view"]);
    }

    #[test]
    fn statements_read_naturally() {
        let db = Database::open_in_memory().unwrap();
        let conn = db.connect();
        conn.execute_batch(SCHEMA).unwrap();
        let sql = |name: &str| {
            objects(&conn)
                .into_iter()
                .find(|o| o.name == name)
                .unwrap()
                .sql
        };
        assert_eq!(
            sql("regions"),
            "CREATE TABLE regions (\n    id INTEGER PRIMARY KEY,\n    name TEXT NOT NULL UNIQUE\n)"
        );
        assert_eq!(
            sql("customers_by_score"),
            "CREATE INDEX customers_by_score ON customers (score DESC, email)"
        );
        assert!(sql("backwards").contains("PRIMARY KEY (k DESC)"));
        assert!(sql("Mixed Case").starts_with("CREATE TABLE \"Mixed Case\" (\n    \"Key\""));
        assert!(sql("Mixed Case").contains("\"quote\"\"d\" TEXT"));
        assert!(sql("copied").contains("nothing TEXT"));
    }

    #[test]
    fn an_open_transaction_sees_its_own_schema() {
        let db = Database::open_in_memory().unwrap();
        let conn = db.connect();
        let other = db.connect();
        conn.execute_batch("BEGIN; CREATE TABLE fresh (x INTEGER); SELECT 1")
            .unwrap();
        assert!(objects(&conn).iter().any(|o| o.name == "fresh"));
        assert!(objects(&other).is_empty());
        conn.execute_batch("ROLLBACK").unwrap();
        assert!(objects(&conn).is_empty());
    }

    #[test]
    fn quoting() {
        assert_eq!(quote_identifier("users"), "users");
        assert_eq!(quote_identifier("_x1"), "_x1");
        assert_eq!(quote_identifier("Users"), "\"Users\"");
        assert_eq!(quote_identifier("order"), "\"order\"");
        assert_eq!(quote_identifier("1st"), "\"1st\"");
        assert_eq!(quote_identifier("a\"b"), "\"a\"\"b\"");
        assert_eq!(quote_identifier(""), "\"\"");
        assert_eq!(quote_identifier("café"), "\"café\"");
    }
}
