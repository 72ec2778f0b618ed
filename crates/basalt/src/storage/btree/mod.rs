//! B+trees over pages: table trees and index trees.
//!
//! A *table tree* maps a 64-bit row id to a row of column values. Its leaves store rows
//! column-major (PAX): the row ids, then for each column a null bitmap and either a fixed-width
//! value array or variable-length descriptors pointing into a heap at the end of the page. A
//! point read touches one slot per needed column; a scan of one column reads one contiguous
//! array per page. Values longer than about a quarter page live in overflow chains, except
//! for an inline prefix chosen so that the chain's pages are full.
//!
//! An *index tree* maps unique byte-string keys (memcomparable encodings from
//! `storage::keys`, so `memcmp` order is SQL order) to short byte values, in slotted pages.
//!
//! Both kinds keep their root at a fixed page number for their whole life (a root split
//! moves the root's contents into two new children), link leaves to both siblings for range
//! scans, split on overflow (unevenly when appending at the right edge, so sorted loads fill
//! pages), merge or rebalance underfull nodes on delete, and offer a bottom-up bulk load for
//! sorted input. All code reads pages through `PageRead` and writes through `PageWrite`, so
//! the same trees run inside a read transaction, a write transaction, or a test store.
//!
//! Every page read is validated before use: a damaged page yields `StorageError::Corrupt`,
//! never a panic or an out-of-bounds access, and tree walks are bounded by a depth limit so a
//! cycle in damaged child pointers cannot loop forever.
//!
//! The index tree lives in `index_page` (slotted-page layouts of its leaves and interior
//! nodes, documented byte by byte), `index` (the tree: descent, splits, merges, integrity
//! check), `index_cursor` (ordered iteration) and `index_bulk` (bottom-up bulk load).

//! The table tree lives in `row` (value types), `table_leaf` and `table_leaf_write` (the PAX
//! leaf layout, documented byte by byte), `table_interior`, `overflow` (long values),
//! `table` and `table_rebalance` (the tree: descent, splits, merges, bulk load),
//! `table_cursor` and `table_check` (integrity check). `remembered_path` lets a cursor reuse the
//! pages of its previous descent.

pub mod index;
mod index_bulk;
mod index_check;
pub mod index_cursor;
pub mod index_page;
#[cfg(test)]
mod index_tests;
pub mod overflow;
mod remembered_path;
pub mod row;
pub mod table;
pub mod table_check;
pub mod table_cursor;
pub mod table_interior;
pub mod table_leaf;
mod table_leaf_write;
mod table_rebalance;
#[cfg(test)]
mod table_tests;
#[cfg(test)]
pub(crate) mod test_store;

pub use index::{IndexTree, TreeStats as IndexTreeStats};
pub use index_cursor::IndexCursor;
pub use index_page::max_entry_size;
pub use row::{CellValue, ColumnKind, LoadRow, OwnedValue, Value, ValueRef};
pub use table::TableTree;
pub use table_check::TreeStats;
pub use table_cursor::TableCursor;
pub use table_interior::TableInterior;
pub use table_leaf::TableLeaf;
