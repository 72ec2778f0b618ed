//! Full-text search over text values: the analyzer that turns text into terms
//! ([`analyzer`]), the query language ([`query`]), and matching, highlighting and snippets
//! over one analyzed document ([`matcher`]).
//!
//! This is the part of full-text search that needs no index: the SQL functions
//! `fts_match`, `fts_highlight` and `fts_snippet` (`types/functions/text_search.rs`) run it
//! row by row with the default analyzer. A full-text index (not built yet) will run the same
//! analyzer over the same text, so an indexed search and a scan agree on what matches.

pub mod analyzer;
pub mod matcher;
pub mod query;

#[cfg(test)]
mod tests;

pub use analyzer::{Analyzer, Token};
