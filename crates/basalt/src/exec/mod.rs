//! Execution: operators that pull batches of column vectors.
//!
//! Operators exchange [`batch::Batch`]es — a few hundred to a few thousand rows stored
//! column by column — so expressions, aggregates, joins and sorts work on whole arrays.

mod alter_column;
pub mod analyze;
pub mod batch;
mod constraint;
pub mod context;
pub mod ddl;
pub mod dml;
pub mod error;
pub mod eval;
mod eval_text_search;
mod eval_vector;
pub mod explain;
pub mod explain_verbose;
pub mod foreign_keys;
pub mod index_access;
pub mod integrity;
pub mod operators;
pub mod record;
pub mod row_key;
pub mod sequence;
pub mod source;
pub mod spill;
pub mod triggers;
pub mod truncate;
pub mod vacuum;
