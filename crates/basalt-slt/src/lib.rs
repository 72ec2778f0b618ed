//! A sqllogictest runner for Basalt that follows SQLite's reference runner.
//!
//! The conformance suite is SQLite's sqllogictest corpus, whose expected results were
//! produced by the reference runner (`sqllogictest.c` with `slt_sqlite.c`). To be judged
//! by the same rules, this crate reimplements that runner's semantics rather than those of
//! the newer `sqllogictest` crate: values are formatted by the declared column letter as
//! the C API would read them, sorting is bytewise on formatted text, and hashing is md5
//! over formatted values.
//!
//! - [`script`] reads records from a file, streaming.
//! - [`format`] turns a cell into the reference runner's text.
//! - [`runner`] executes a script on an [`engine::Engine`] and judges each record.
//! - [`skiplist`] parses the list of records deliberately skipped.
//! - [`rewrite`] writes actual results into a golden file (`--rewrite`).
//! - [`pg_cluster`] starts a throwaway PostgreSQL 15 and [`postgres_engine`] runs scripts on
//!   it, to check that expected results are PostgreSQL's.
//!
//! The `basalt-slt` binary adds file discovery, parallelism and reporting on top.

pub mod basalt_engine;
pub mod engine;
pub mod format;
pub mod pg_cluster;
pub mod postgres_engine;
pub mod rewrite;
pub mod runner;
pub mod script;
pub mod skiplist;
