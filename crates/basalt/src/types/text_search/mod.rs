//! Full-text search over text values: the analyzer that turns text into terms
//! ([`analyzer`]), the query language ([`query`]), matching, highlighting and snippets over
//! one analyzed document ([`matcher`]), and BM25 ranking ([`bm25`]).
//!
//! This is the part of full-text search that needs no index: the SQL functions
//! `fts_match`, `fts_highlight` and `fts_snippet` (`types/functions/text_search.rs`) run it
//! row by row with the default analyzer, and `bm25_score` (`exec/eval_text_search.rs`) with
//! statistics from one scan of the table per statement. A full-text index (not built yet) will run the same
//! analyzer over the same text, so an indexed search and a scan agree on what matches.

pub mod analyzer;
pub mod bm25;
pub mod matcher;
pub mod query;

#[cfg(test)]
mod tests;

pub use analyzer::{Analyzer, Token};
