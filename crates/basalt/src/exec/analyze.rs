//! `ANALYZE [table]`: counts what the optimizer estimates from — each table's rows and, per
//! index, how many rows share each leading-columns prefix — and stores it in the catalog.
//!
//! The statistics are exact at the moment they are taken and go stale as data changes, as in
//! SQLite and PostgreSQL; the optimizer falls back to quick estimates from the tree's shape
//! for tables never analysed. Storing them is a catalog change, so every cached plan is
//! re-planned with the new numbers.

use crate::catalog::{self, Catalog, IndexDef, IndexStatistics, SchemaObject, TableStatistics};
use crate::sqlstate;
use crate::storage::btree::TableTree;
use crate::txn::WriteTxn;

use super::error::{ExecError, ExecResult};
use super::index_access::{IndexAccess, IndexAm, KeyStatistics};

/// Analyses `table` (every table when `None`) inside `txn`.
pub fn analyze(table: Option<&str>, catalog: &Catalog, txn: &mut WriteTxn) -> ExecResult<()> {
    crate::exec::index_access::fts::deferred::merge_pending(txn)?;
    let tables: Vec<_> = match table {
        Some(name) => vec![catalog.table(name).cloned().ok_or_else(|| {
            ExecError::new(
                sqlstate::UNDEFINED_TABLE,
                format!("relation \"{name}\" does not exist"),
            )
        })?],
        None => catalog.tables.values().cloned().collect(),
    };
    for table in tables {
        let rows = count_rows(TableTree::open(table.root), txn)?;
        let indexes = catalog
            .indexes_of(&table.name)
            .map(|index| index_statistics(index, rows, txn))
            .collect::<ExecResult<Vec<_>>>()?;
        let statistics = TableStatistics {
            table: table.name.clone(),
            table_root: table.root,
            rows,
            indexes,
        };
        catalog::put_object(txn, &SchemaObject::Statistics(statistics))?;
    }
    Ok(())
}

fn count_rows(tree: TableTree, txn: &WriteTxn) -> ExecResult<u64> {
    let mut cursor = tree.cursor(txn);
    let mut rows = 0u64;
    let mut valid = cursor.first()?;
    while valid {
        rows += 1;
        valid = cursor.next()?;
    }
    Ok(rows)
}

/// Rows per distinct key prefix, from what the index's access method counts.
fn index_statistics(index: &IndexDef, rows: u64, txn: &WriteTxn) -> ExecResult<IndexStatistics> {
    let KeyStatistics {
        entries,
        distinct_prefixes: distinct,
    } = IndexAccess::of(index).key_statistics(txn)?;
    let total = entries.max(rows) as f64;
    Ok(IndexStatistics {
        index: index.name.clone(),
        index_root: index.root,
        rows_per_key: distinct
            .iter()
            .map(|&count| {
                if count == 0 {
                    1.0
                } else {
                    total / count as f64
                }
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use crate::catalog::{self, Catalog};

    fn committed_catalog(conn: &crate::Connection) -> Catalog {
        let read = conn.session().db.store.begin_read();
        catalog::load_catalog(&read, |slot| read.meta(slot)).unwrap()
    }

    /// REINDEX and VACUUM give indexes new root pages; the statistics, which name the roots
    /// they were taken from, must follow or the planner silently loses them.
    #[test]
    fn statistics_follow_rebuilt_indexes() {
        let db = crate::Database::open_in_memory().unwrap();
        let conn = db.connect();
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER);
             CREATE INDEX t_k ON t (k);
             INSERT INTO t SELECT n, n % 4 FROM generate_series(1, 400) AS g(n);
             ANALYZE",
        )
        .unwrap();
        let rows_per_key = |catalog: &Catalog| {
            let index = catalog.indexes.get("t_k").unwrap();
            catalog.analyzed_rows_per_key(index, 1)
        };
        let before = committed_catalog(&conn);
        assert_eq!(rows_per_key(&before), Some(100.0));
        let root_before = before.indexes.get("t_k").unwrap().root;

        conn.execute_batch("REINDEX t_k").unwrap();
        let after_reindex = committed_catalog(&conn);
        assert_ne!(after_reindex.indexes.get("t_k").unwrap().root, root_before);
        assert_eq!(rows_per_key(&after_reindex), Some(100.0));

        conn.execute_batch("VACUUM").unwrap();
        let after_vacuum = committed_catalog(&conn);
        assert_eq!(rows_per_key(&after_vacuum), Some(100.0));
        let table = after_vacuum.table("t").unwrap();
        assert_eq!(after_vacuum.analyzed_rows(table), Some(400));
    }
}
