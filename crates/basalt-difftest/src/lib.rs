//! Differential and metamorphic random testing of Basalt (issue 7).
//!
//! For each case, a random number generator seeded from (seed, case number) draws a
//! schema (2–4 tables of INTEGER, REAL and TEXT columns, 0/1 "flag" integers, NULLable
//! and NOT NULL columns, row-id, composite or no primary keys, UNIQUE constraints, plain
//! and unique multi-column indexes, some descending), NULL-heavy data over small domains,
//! and a stream of queries and modifications. Each statement runs on three databases:
//!
//! 1. **Basalt against SQLite** (rusqlite, bundled): rows compared as multisets, or in
//!    order when ORDER BY covers every output column; modifications compared by success
//!    or failure (not the message) and by the number of rows changed.
//! 2. **Ternary logic partitioning** (Basalt alone): for a query Q and predicate p, the
//!    rows of Q are the multiset union of Q WHERE p, Q WHERE NOT p and Q WHERE p IS NULL;
//!    for `count / sum / min / max` without GROUP BY, the parts' aggregates combine into
//!    the whole's.
//! 3. **Index-free twin** (Basalt alone): the same tables and rows without primary keys,
//!    UNIQUE constraints or indexes, so no plan can use an index seek, index join or
//!    index order; every query must return what Basalt with them returns.
//!
//! A mismatch is reduced ([`reducer`]) and written as a sqllogictest file
//! ([`reproduction`]) with SQLite's results as the expected ones.
//!
//! # Keeping to SQL both dialects mean the same way
//!
//! Basalt speaks PostgreSQL's dialect, SQLite its own. The generator only produces SQL
//! whose meaning they share; each rule and why (docs/testing.md has the same list):
//!
//! - **Types.** Every column holds only values of its declared type and every expression
//!   has one static type, because SQLite's type affinity would otherwise store `'5'` in an
//!   INTEGER column or compare `1 < 'a'` by storage class. Text is never compared with a
//!   number (PostgreSQL rejects it). REAL literals are written with a decimal point.
//! - **Division.** `/` and `%` only by nonzero literals: both truncate integer division
//!   toward zero, but division by zero is NULL in SQLite and an error in PostgreSQL.
//! - **Overflow.** Integers stay within ±100 at the leaves and expressions are shallow, so
//!   nothing overflows (an error in Basalt, a switch to REAL in SQLite).
//! - **Reals.** Data reals are multiples of 0.25 (exact sums); results compare with a
//!   relative tolerance of 1e-9, because summation order differs.
//! - **Booleans.** Basalt returns BOOLEAN for comparisons, SQLite the integers 0 and 1;
//!   Basalt's booleans are read as 0 and 1. Only flag columns (0/1/NULL) are used as truth
//!   values directly.
//! - **NULL order.** ORDER BY always says NULLS FIRST or LAST (PostgreSQL puts NULLs last
//!   ascending, SQLite first).
//! - **LIKE.** SQLite runs with `PRAGMA case_sensitive_like = ON` (its LIKE otherwise
//!   ignores ASCII case; PostgreSQL's does not).
//! - **Aggregates.** `avg` and `total` are REAL in both; `sum` of no rows is NULL in both;
//!   `group_concat`'s order is unspecified, so only its `length` is used.
//! - **Scalar subqueries** return at most one row (an aggregate, or ORDER BY with LIMIT
//!   1): SQLite takes the first of many rows, PostgreSQL raises an error.
//! - **LIMIT / OFFSET** only with an ORDER BY over every output column; otherwise which
//!   rows survive is unspecified.
//! - **Set operations.** At most two members when one operator is INTERSECT (PostgreSQL
//!   binds INTERSECT tighter, SQLite evaluates left to right); members have equal types.
//! - **GROUP BY.** Outside aggregates only grouped columns are used (SQLite allows bare
//!   columns, PostgreSQL does not); aggregate arguments use only the current query's
//!   columns; ORDER BY expressions only in plain, non-DISTINCT queries.
//! - **substr** starts at position 1 or later (the dialects count positions ≤ 0
//!   differently).
//! - **Primary keys** are declared NOT NULL (SQLite allows NULL in a non-INTEGER primary
//!   key). Row-id columns are always given a value (the index-free twin has no row id).
//! - **Uniqueness.** UPDATE assigns only constants to key columns, so whether a statement
//!   violates uniqueness never depends on the order rows are updated in (SQLite checks
//!   each row as it is written, PostgreSQL's rule differs).
//! - **Modifications with subqueries** never read the table they modify (SQLite may
//!   evaluate them against a half-modified table).
//! - **Conflict clauses.** ON CONFLICT only follows VALUES (after a SELECT, SQLite reads ON
//!   as a join condition); DO UPDATE inserts one row (PostgreSQL refuses to update a row
//!   twice in one statement, SQLite does not); a DO UPDATE target never lists the row id
//!   with other columns (SQLite matches no such target to a unique index).
//! - **Transactions.** COMMIT, ROLLBACK, SAVEPOINT, RELEASE and ROLLBACK TO only where
//!   valid (a COMMIT without a transaction is an error in SQLite, a warning in
//!   PostgreSQL); their change counts, like DDL's, are not compared.
//! - **FILTER** never on a DISTINCT aggregate (SQLite 3.54 returns 0 for
//!   `count(DISTINCT x) FILTER (WHERE ...)` when it reads x from an index after ANALYZE:
//!   an SQLite bug).
//! - **EXISTS** subqueries have no OFFSET (SQLite drops DISTINCT inside EXISTS even when an
//!   OFFSET then counts rows: an SQLite bug).
//! - **Negative zero.** -0.0 and 0.0 compare equal (Basalt returns -0.0 for
//!   `-(0.0 * 1.75)`, SQLite 0.0).
//! - **CAST** only of integers, to REAL or TEXT (real to integer truncates in SQLite and
//!   rounds in PostgreSQL; real to text prints differently).
//! - **INSERT … SELECT with OR IGNORE / OR REPLACE** orders its rows by every column
//!   (which of two conflicting rows wins depends on their order).
//! - **NULLs** inside expressions are typed (`CAST(NULL AS INTEGER)`): a bare NULL has no
//!   type in SQLite and an inferred one in Basalt (`abs(NULL)` is REAL), which shows in the
//!   type of a UNION column. `replace`'s pattern is never empty (`replace(x, '', NULL)` is
//!   x in SQLite, NULL in PostgreSQL).
//!
//! A real Basalt bug is never normalised away: a known, unfixed one can only be avoided by
//! a named switch in [`generator::Avoidances`], documented with the bug.

pub mod ast;
pub mod case;
pub mod compare;
pub mod driver;
pub mod engines;
pub mod generator;
pub mod large_schema;
pub mod reducer;
pub mod reproduction;
pub mod schema;
pub mod statement;
pub mod validity;
pub mod values;
pub mod visit;
pub mod watchdog;
