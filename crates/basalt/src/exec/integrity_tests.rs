//! Tests of `PRAGMA integrity_check`: a sound database of many pages reports `ok`, and each
//! kind of damage the check exists for — an index entry missing, an entry for no row, an
//! entry whose key does not match its row, a duplicate in a UNIQUE index, a leaked page, a
//! page both used and free, a damaged tree page — is reported as a row naming it. Damage is
//! made with the storage layer directly, in a write transaction that commits, exactly as a
//! bug in the layers above would leave it.

use crate::api::{Connection, Database};
use crate::catalog;
use crate::exec::source::PageSource;
use crate::storage::PageWrite;
use crate::storage::btree::{IndexTree, TableTree};
use crate::storage::keys;
use crate::txn::WriteTxn;

fn problems(conn: &Connection, pragma: &str) -> Vec<String> {
    let mut statement = conn.prepare(pragma).expect("prepare");
    let mut rows = statement.query(()).expect("query");
    let mut lines = Vec::new();
    while let Some(row) = rows.next().expect("row") {
        lines.push(row.get::<String>(0).expect("text"));
    }
    lines
}

fn check(conn: &Connection) -> Vec<String> {
    problems(conn, "PRAGMA integrity_check")
}

/// 20,000 rows (hundreds of leaves) with a UNIQUE, a DESC composite and a text index, after
/// deletes and updates that free and reuse pages.
fn populated() -> (Database, Connection) {
    let db = Database::open_in_memory().expect("open");
    let conn = db.connect();
    conn.execute_batch(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, u INTEGER UNIQUE, \
                         name TEXT, score REAL);
         CREATE INDEX t_k ON t (k DESC, score);
         CREATE INDEX t_name ON t (name);
         INSERT INTO t SELECT g, g % 97, g * 3, 'name-' || (g % 1000) || repeat('x', g % 40), \
                              g / 7.0 FROM generate_series(1, 20000) AS s(g);
         DELETE FROM t WHERE id BETWEEN 3000 AND 9000;
         UPDATE t SET k = k + 1, name = upper(name) WHERE id > 15000;
         INSERT INTO t SELECT g, g % 5, NULL, NULL, NULL FROM generate_series(30000, 32000) AS s(g);",
    )
    .expect("populate");
    (db, conn)
}

/// Runs `damage` in a committed write transaction on `db`'s store.
fn damage(db: &Database, damage: impl FnOnce(&mut WriteTxn, &catalog::Catalog)) {
    let mut txn = db.inner.store.begin_write().expect("write");
    let catalog = catalog::load_catalog(&txn, |slot| txn.meta(slot)).expect("catalog");
    damage(&mut txn, &catalog);
    txn.commit().expect("commit");
}

fn index_key_of(
    catalog: &catalog::Catalog,
    index: &str,
    values: &[crate::types::Value],
) -> Vec<u8> {
    let index = catalog.indexes.get(index).expect("index");
    let mut key = Vec::new();
    for (value, (_, order)) in values.iter().zip(&index.columns) {
        crate::exec::operators::encode_key_value(value, *order, &mut key);
    }
    key
}

#[test]
fn a_sound_database_is_ok() {
    let (_db, conn) = populated();
    assert_eq!(check(&conn), ["ok"]);
    assert_eq!(problems(&conn, "PRAGMA quick_check"), ["ok"]);
    assert_eq!(problems(&conn, "PRAGMA integrity_check(t)"), ["ok"]);
    // After DROP INDEX and DROP TABLE every freed page is on the free list, none leaked.
    conn.execute_batch("DROP INDEX t_name; CREATE TABLE u AS SELECT * FROM t; DROP TABLE t;")
        .expect("drop");
    assert_eq!(check(&conn), ["ok"]);
    conn.execute_batch("VACUUM").expect("vacuum");
    assert_eq!(check(&conn), ["ok"]);
}

#[test]
fn an_index_entry_missing_is_reported() {
    let (db, conn) = populated();
    damage(&db, |txn, catalog| {
        let index = catalog.indexes.get("t_name").expect("index");
        // Row 12's name is 'name-12' followed by twelve x.
        let name = crate::types::Value::Text(format!("name-12{}", "x".repeat(12)));
        let mut key = index_key_of(catalog, "t_name", &[name]);
        keys::encode_row_id(12, &mut key);
        assert!(
            IndexTree::open(index.root)
                .delete(txn, &key)
                .expect("delete")
        );
    });
    assert_eq!(
        check(&conn),
        ["table t: row 12 is missing from index t_name"]
    );
}

#[test]
fn entries_without_rows_and_wrong_keys_are_reported() {
    let (db, conn) = populated();
    damage(&db, |txn, catalog| {
        let index = catalog.indexes.get("t_k").expect("index");
        let values = [
            crate::types::Value::Integer(5),
            crate::types::Value::Real(1.0),
        ];
        // An entry for row 4000, which was deleted.
        let mut orphan = index_key_of(catalog, "t_k", &values);
        keys::encode_row_id(4000, &mut orphan);
        assert!(
            IndexTree::open(index.root)
                .insert(txn, &orphan, &[])
                .expect("insert")
        );
        // An entry for row 20000 with a key that is not its row's.
        let mut wrong = index_key_of(catalog, "t_k", &values);
        keys::encode_row_id(20000, &mut wrong);
        assert!(
            IndexTree::open(index.root)
                .insert(txn, &wrong, &[])
                .expect("insert")
        );
    });
    assert_eq!(
        check(&conn),
        [
            "index t_k: entry for row 4000, which table t does not have",
            "index t_k: the entry for row 20000 does not match the row",
        ]
    );
}

#[test]
fn a_duplicate_in_a_unique_index_is_reported() {
    let (db, conn) = populated();
    conn.execute_batch(
        "CREATE TABLE d (a INTEGER);
         INSERT INTO d VALUES (1), (2), (NULL), (2), (3), (NULL);
         CREATE INDEX d_a ON d (a);",
    )
    .expect("create");
    // The index holds a duplicate its definition now forbids (two NULLs are allowed).
    damage(&db, |txn, catalog| {
        let index = catalog.indexes.get("d_a").expect("index");
        let unique = catalog::IndexDef {
            unique: true,
            ..catalog::IndexDef::clone(index)
        };
        catalog::put_object(txn, &catalog::SchemaObject::Index(unique)).expect("catalog");
    });
    assert_eq!(
        check(&conn),
        ["index d_a: duplicate key in a UNIQUE index (row 4)"]
    );
}

#[test]
fn a_deleted_row_leaves_orphans_in_every_index() {
    let (db, conn) = populated();
    damage(&db, |txn, catalog| {
        let table = catalog.table("t").expect("table");
        assert!(TableTree::open(table.root).delete(txn, 10).expect("delete"));
    });
    assert_eq!(
        check(&conn),
        [
            "index t_k: entry for row 10, which table t does not have",
            "index t_name: entry for row 10, which table t does not have",
            "index t_u_key: entry for row 10, which table t does not have",
        ]
    );
}

#[test]
fn leaked_and_doubly_used_pages_are_reported() {
    let (db, conn) = populated();
    let mut leaked = 0;
    damage(&db, |txn, _| {
        leaked = txn.allocate_page().expect("allocate");
    });
    assert_eq!(check(&conn), [format!("page {leaked} is never used")]);

    let (db, conn) = populated();
    let mut freed = 0;
    damage(&db, |txn, catalog| {
        // Free a leaf of table t while the tree still links to it.
        let table = catalog.table("t").expect("table");
        let mut cursor = TableTree::open(table.root).cursor(&*txn);
        assert!(cursor.seek_ge(5).expect("seek"));
        freed = cursor.leaf().expect("leaf").page_no();
        drop(cursor);
        txn.free_page(freed).expect("free");
    });
    let found = check(&conn);
    assert!(
        found.contains(&format!(
            "page {freed} is used by table t and is on the free list"
        )),
        "{found:?}"
    );
}

#[test]
fn a_damaged_tree_page_is_reported_once() {
    let (db, conn) = populated();
    let mut page = 0;
    damage(&db, |txn, catalog| {
        let index = catalog.indexes.get("t_name").expect("index");
        let mut cursor = IndexTree::open(index.root).cursor(&*txn);
        assert!(cursor.last().expect("last"));
        page = cursor.leaf_page().expect("leaf");
        drop(cursor);
        // An index leaf overwritten with a table leaf's kind byte.
        txn.page_mut(page).expect("page")[0] = crate::storage::page::kind::TABLE_LEAF;
    });
    let found = check(&conn);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("index t_name: "), "{found:?}");
    assert!(found[0].contains(&format!("page {page}")), "{found:?}");
}

#[test]
fn the_argument_caps_problems_or_names_a_table() {
    let (db, conn) = populated();
    damage(&db, |txn, catalog| {
        let table = catalog.table("t").expect("table");
        for row_id in 1..=30 {
            assert!(
                TableTree::open(table.root)
                    .delete(txn, row_id)
                    .expect("delete")
            );
        }
    });
    assert_eq!(check(&conn).len(), 90);
    assert_eq!(problems(&conn, "PRAGMA integrity_check(5)").len(), 5);
    let error = conn
        .execute("PRAGMA integrity_check(nosuchtable)", ())
        .expect_err("unknown table");
    assert_eq!(error.code(), "42P01");
}

#[test]
fn the_check_sees_the_transactions_own_changes() {
    let (db, conn) = populated();
    conn.execute_batch("BEGIN; DELETE FROM t WHERE id < 100; UPDATE t SET u = -u;")
        .expect("write");
    assert_eq!(check(&conn), ["ok"]);
    conn.execute_batch("ROLLBACK").expect("rollback");
    let source = PageSource::Read(std::sync::Arc::new(db.inner.store.begin_read()));
    assert!(super::check(&source, 100, None).expect("check").is_empty());
}
