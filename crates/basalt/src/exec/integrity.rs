//! `PRAGMA integrity_check`: a full check of one snapshot of the database.
//!
//! It verifies, and reports each problem as one line of text (the statement returns them as
//! rows, or the single row `ok`), as SQLite's pragma of the same name does:
//!
//! - **every tree**: the catalog tree, each table, index and sequence tree passes its
//!   structural check (`TableTree::check_pages`, an index's access method's `check_pages`,
//!   for the B+tree `IndexTree::check_pages`: page kinds, ordering within and across pages
//!   and against the separators above, one leaf depth, sibling links both ways, overflow
//!   chains, heap accounting);
//! - **every row against its indexes**: each row of a table has the entry each of its
//!   indexes should hold (the entry computed from the row by the index's access method, as
//!   every writer computes it), and each index entry names a row that exists and whose key
//!   it is (`IndexAm::verify_entries`), so an index holds exactly one entry per row; a UNIQUE index has no two entries with the same
//!   non-NULL key; a NOT NULL column holds no NULL;
//! - **every page of the file**: each page from 1 to the page count belongs to exactly one
//!   tree or to the free list (whose own check is `crate::txn::free_list_check`): a page
//!   used twice, used and free at once, or neither (leaked) is reported.
//!
//! A damaged tree is reported once and not read further (its rows are not compared with
//! its indexes), so one bad page does not produce thousands of lines; the total is capped
//! at the caller's limit (SQLite's default is 100). The check reads through a `PageSource`
//! only: it takes no locks beyond its snapshot and never writes. Comparing a table with an
//! index costs one index seek per row and one table seek per index entry.

use std::collections::{HashMap, HashSet};

use crate::catalog::{self, CATALOG_ROOT_SLOT, Catalog, IndexDef, TableDef};
use crate::sqlstate;
use crate::storage::PageNo;
use crate::storage::btree::TableTree;
use crate::txn::free_list_check::check_free_list;

use super::error::{ExecError, ExecResult};
use super::index_access::{IndexAccess, IndexAm, IndexProbe, StoredRow};
use super::record::read_row_values;
use super::source::PageSource;

/// SQLite's default cap on reported problems.
pub const DEFAULT_MAX_PROBLEMS: usize = 100;

/// Problems found so far, capped; and who owns each page seen.
struct Report {
    problems: Vec<String>,
    max: usize,
    owners: HashMap<PageNo, String>,
    /// Whether some tree could not be walked whole, so its pages are unknown.
    tree_unwalked: bool,
}

impl Report {
    fn full(&self) -> bool {
        self.problems.len() >= self.max
    }

    fn problem(&mut self, text: String) {
        if !self.full() {
            self.problems.push(text);
        }
    }

    /// Records that `owner` uses `pages`; a page another owner already uses is a problem.
    fn claim(&mut self, owner: &str, pages: HashSet<PageNo>) {
        let mut pages: Vec<PageNo> = pages.into_iter().collect();
        pages.sort_unstable();
        for page in pages {
            if let Some(previous) = self.owners.get(&page) {
                let text = format!("page {page} is used by both {previous} and {owner}");
                self.problem(text);
            } else {
                self.owners.insert(page, owner.to_string());
            }
        }
    }
}

/// Checks the snapshot `source` and returns its problems, at most `max_problems` of them
/// (an empty list means the database is sound). `only_table`, if given, limits the row and
/// index comparison to that table; the trees and pages of the whole file are still
/// checked, as page accounting needs every tree.
pub fn check(
    source: &PageSource,
    max_problems: usize,
    only_table: Option<&str>,
) -> ExecResult<Vec<String>> {
    source.merge_deferred()?;
    let mut report = Report {
        problems: Vec::new(),
        max: max_problems.max(1),
        owners: HashMap::new(),
        tree_unwalked: false,
    };
    let header = source.header();
    let catalog_root = source.meta(CATALOG_ROOT_SLOT);
    let mut catalog_sound = true;
    if catalog_root != 0 {
        match PageNo::try_from(catalog_root) {
            Ok(root) => match TableTree::open(root).check_pages(source) {
                Ok((_, pages)) => report.claim("the catalog", pages),
                Err(error) => {
                    catalog_sound = false;
                    report.tree_unwalked = true;
                    report.problem(format!("catalog: {error}"));
                }
            },
            Err(_) => {
                catalog_sound = false;
                report.tree_unwalked = true;
                report.problem(format!("catalog: root page {catalog_root} is out of range"));
            }
        }
    }
    let catalog = if catalog_sound {
        match catalog::load_catalog(source, |slot| source.meta(slot)) {
            Ok(catalog) => Some(catalog),
            Err(error) => {
                report.problem(format!("catalog: {error}"));
                None
            }
        }
    } else {
        None
    };
    if let Some(catalog) = &catalog {
        if let Some(name) = only_table
            && catalog.table(name).is_none()
        {
            return Err(ExecError::new(
                sqlstate::UNDEFINED_TABLE,
                format!("relation \"{name}\" does not exist"),
            ));
        }
        check_tables(source, catalog, only_table, &mut report)?;
        let mut sequences: Vec<_> = catalog.sequences.values().collect();
        sequences.sort_by(|a, b| a.name.cmp(&b.name));
        for sequence in sequences {
            let owner = format!("sequence {}", sequence.name);
            match TableTree::open(sequence.root).check_pages(source) {
                Ok((_, pages)) => report.claim(&owner, pages),
                Err(error) => {
                    report.tree_unwalked = true;
                    report.problem(format!("{owner}: {error}"));
                }
            }
        }
    }
    let free = check_free_list(source, &header);
    for problem in free.problems {
        report.problem(problem);
    }
    // Page accounting needs every tree's pages: skip it when a tree could not be walked.
    let every_tree_walked = catalog.is_some() && !report.tree_unwalked;
    let mut leaked = Vec::new();
    for page in 1..header.page_count {
        match (report.owners.get(&page), free.pages.contains(&page)) {
            (Some(owner), true) => {
                let text = format!("page {page} is used by {owner} and is on the free list");
                report.problem(text);
            }
            (None, false) if every_tree_walked => leaked.push(page),
            _ => {}
        }
    }
    for page in leaked {
        report.problem(format!("page {page} is never used"));
    }
    Ok(report.problems)
}

/// Walks every table tree and index tree, and compares each table with its indexes.
fn check_tables(
    source: &PageSource,
    catalog: &Catalog,
    only_table: Option<&str>,
    report: &mut Report,
) -> ExecResult<()> {
    let mut tables: Vec<_> = catalog.tables.values().collect();
    tables.sort_by(|a, b| a.name.cmp(&b.name));
    for table in tables {
        let owner = format!("table {}", table.name);
        let table_sound = match TableTree::open(table.root).check_pages(source) {
            Ok((_, pages)) => {
                report.claim(&owner, pages);
                true
            }
            Err(error) => {
                report.tree_unwalked = true;
                report.problem(format!("{owner}: {error}"));
                false
            }
        };
        let mut indexes: Vec<&IndexDef> = catalog
            .indexes_of(&table.name)
            .map(|index| &**index)
            .collect();
        indexes.sort_by(|a, b| a.name.cmp(&b.name));
        let mut sound_indexes = Vec::new();
        for index in indexes {
            let owner = format!("index {}", index.name);
            match IndexAccess::of(index).check_pages(source) {
                Ok(pages) => {
                    report.claim(&owner, pages);
                    sound_indexes.push(index);
                }
                Err(error) => {
                    report.tree_unwalked = true;
                    report.problem(format!("{owner}: {error}"));
                }
            }
        }
        let wanted = only_table.is_none_or(|name| name.eq_ignore_ascii_case(&table.name));
        if table_sound && wanted && !report.full() {
            compare_rows(source, table, &sound_indexes, report)?;
        }
    }
    Ok(())
}

/// Checks each row's NOT NULL columns and index entries, then each index's entries against
/// the rows.
fn compare_rows(
    source: &PageSource,
    table: &TableDef,
    indexes: &[&IndexDef],
    report: &mut Report,
) -> ExecResult<()> {
    let mut rows = TableTree::open(table.root).cursor(source.clone());
    let accesses: Vec<IndexAccess<'_>> =
        indexes.iter().map(|index| IndexAccess::of(index)).collect();
    let mut probes: Vec<_> = accesses
        .iter()
        .map(|access| access.probe(source.clone()))
        .collect();
    let mut valid = rows.first()?;
    while valid && !report.full() {
        let row_id = rows
            .row_id()
            .ok_or_else(|| ExecError::internal("integrity check lost its row"))?;
        let values = match read_row_values(&rows, table) {
            Ok(values) => values,
            Err(error) => {
                report.problem(format!(
                    "table {}: row {row_id} cannot be read: {error}",
                    table.name
                ));
                valid = rows.next()?;
                continue;
            }
        };
        for (column, value) in table.columns.iter().zip(&values) {
            if column.not_null && value.is_null() {
                report.problem(format!(
                    "table {}: NULL in NOT NULL column {} of row {row_id}",
                    table.name, column.name
                ));
            }
        }
        for ((index, access), probe) in indexes.iter().zip(&accesses).zip(probes.iter_mut()) {
            if !probe.contains(&access.entry(&values, row_id))? {
                report.problem(format!(
                    "table {}: row {row_id} is missing from index {}",
                    table.name, index.name
                ));
            }
        }
        valid = rows.next()?;
    }
    for index in indexes {
        if report.full() {
            break;
        }
        compare_entries(source, table, index, report)?;
    }
    Ok(())
}

/// Checks that every entry of `index` names an existing row of `table` whose entry it is,
/// and that a UNIQUE index holds no key twice (the access method walks its entries).
fn compare_entries(
    source: &PageSource,
    table: &TableDef,
    index: &IndexDef,
    report: &mut Report,
) -> ExecResult<()> {
    let mut rows = TableTree::open(table.root).cursor(source.clone());
    let row = |row_id| -> ExecResult<StoredRow> {
        if !rows.seek_ge(row_id)? {
            return Ok(StoredRow::Missing);
        }
        // An unreadable row is reported by the row pass.
        Ok(read_row_values(&rows, table).map_or(StoredRow::Unreadable, StoredRow::Values))
    };
    IndexAccess::of(index).verify_entries(source.clone(), row, |problem| {
        report.problem(problem);
        !report.full()
    })
}

#[cfg(test)]
#[path = "integrity_tests.rs"]
mod tests;
