//! The random case generator: a schema, its data, and a stream of queries and
//! modifications, all drawn from one seeded random number generator so a case is a pure
//! function of (seed, case number).
//!
//! Everything generated stays inside the SQL that Basalt (PostgreSQL dialect) and SQLite
//! give the same meaning; the crate docs list each rule and why it exists. The parts:
//!
//! - [`expression`]: typed scalar expressions and predicates;
//! - [`query`]: SELECTs with joins, grouping, subqueries, set operations and ordering;
//! - [`modification`]: INSERT / UPDATE / DELETE, including ones that violate constraints;
//! - [`ranges`] and [`large`]: with `--large`, range predicates over every kind of key,
//!   range queries and bulk modifications of tables of thousands of rows.

mod expression;
mod large;
mod modification;
mod query;
mod ranges;
mod sargable;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::ast::Expr;
use crate::large_schema::random_large_schema;
use crate::schema::{self, Domain, Schema, SqlType, Table, random_schema};
use crate::statement::Statement;

/// Named switches that keep the generator away from known, unfixed Basalt bugs, so a CI
/// run stays green while the bug stays documented (see `known/` and docs/testing.md).
/// Every switch is off by default: a plain run finds the bug again. There is none at
/// present: the last one (`INSERT OR IGNORE` / `OR REPLACE` against NOT NULL and CHECK) was
/// fixed, and its reproduction is `tests/slt/regress/or-ignore-or-replace-not-null.slt`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Avoidances {}

impl Avoidances {
    /// Every switch on: what the CI run uses.
    pub fn all_known() -> Avoidances {
        Avoidances {}
    }
}

/// What the generator may produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratorOptions {
    /// Statements after the schema and the initial data.
    pub statements_per_case: usize,
    /// The most rows of initial data per table. Up to 20, each row is its own INSERT (so
    /// the reducer can drop rows one by one); beyond, rows go in by fifty with INSERT OR
    /// IGNORE (duplicate keys are skipped), values spread wider, and queries join at most
    /// two tables — enough rows for multi-page B+trees and several batches per scan.
    pub max_rows: usize,
    /// With `--large`: the most rows of a large table (0: no large tables). A large case
    /// has one or two tables of a tenth of this to this many rows, loaded by one SQL
    /// statement each ([`crate::large_schema`]), and one or two small tables; its stream
    /// adds range queries over every kind of key and bulk modifications ([`large`]).
    pub large_rows: usize,
    pub avoid: Avoidances,
}

impl GeneratorOptions {
    /// Whether tables may be big (`--max-rows` above 20, or `--large`): queries then join
    /// at most two tables and nest one level of subqueries.
    pub fn bulk(&self) -> bool {
        self.max_rows > 20 || self.large()
    }

    /// Whether cases have large tables (`--large`).
    pub fn large(&self) -> bool {
        self.large_rows > 0
    }
}

impl Default for GeneratorOptions {
    fn default() -> Self {
        GeneratorOptions {
            statements_per_case: 50,
            max_rows: 20,
            large_rows: 0,
            avoid: Avoidances::default(),
        }
    }
}

/// The type of a generated expression: a scalar of a column type, or a truth value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpressionType {
    Scalar(SqlType),
    Boolean,
}

/// A column visible to an expression: `qualifier.name` of a known type.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeColumn {
    pub qualifier: String,
    pub name: String,
    pub sql_type: SqlType,
    /// Holds only 0, 1 or NULL.
    pub flag: bool,
    /// A base table's column that an index (or the row id) can seek on.
    pub seekable: bool,
    /// Where its values come from (a column of a large table may hold wide integers or
    /// long texts; wide integers are never operands of arithmetic).
    pub domain: Domain,
}

impl ScopeColumn {
    /// The column reference.
    pub fn expression(&self) -> Expr {
        Expr::column(&self.qualifier, &self.name)
    }
}

/// The columns an expression may use.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    /// Columns of the current FROM clause.
    pub local: &'a [ScopeColumn],
    /// Columns of enclosing queries (correlation).
    pub outer: &'a [ScopeColumn],
    /// In an aggregate query, the GROUP BY columns: outside aggregate calls only these
    /// local columns may be used, and aggregate calls are allowed.
    pub grouping: Option<&'a [ScopeColumn]>,
    /// How many more levels of subqueries may be nested.
    pub subquery_budget: usize,
}

impl<'a> Scope<'a> {
    /// A scope without outer columns, grouping or subqueries.
    pub fn plain(local: &'a [ScopeColumn]) -> Scope<'a> {
        Scope {
            local,
            outer: &[],
            grouping: None,
            subquery_budget: 0,
        }
    }

    /// The columns usable as bare column references here.
    fn referable(&self) -> impl Iterator<Item = &'a ScopeColumn> + 'a {
        let bare = self.grouping.unwrap_or(self.local);
        bare.iter().chain(self.outer.iter())
    }

    /// The columns a subquery nested here may correlate with.
    fn visible(&self) -> Vec<ScopeColumn> {
        self.referable().cloned().collect()
    }
}

/// Generates statements for one case.
#[derive(Debug)]
pub struct Generator {
    pub random: StdRng,
    pub schema: Schema,
    pub options: GeneratorOptions,
    next_alias: usize,
    /// The table a modification writes: its subqueries must not read it (SQLite may
    /// evaluate them while the table is half updated).
    excluded_table: Option<String>,
    /// Views created so far: name and column types.
    views: Vec<(String, Vec<SqlType>)>,
    /// Indexes created in the stream so far (to name them in DROP INDEX).
    next_index: usize,
    /// Common table expressions the query being generated may read: name and column types.
    common_tables: Vec<(String, Vec<SqlType>)>,
    /// Query statements generated so far, to repeat some later (Basalt then reuses the
    /// cached plan after the data, indexes or statistics changed).
    previous_queries: Vec<Statement>,
    /// Open savepoints, innermost last, while a transaction is open.
    savepoints: Option<Vec<String>>,
    next_savepoint: usize,
    /// While a subquery is generated in a large case: read only small tables (a
    /// correlated subquery runs once per outer row).
    small_tables_only: bool,
    /// Numbers the fresh prefixes bulk modifications give unique long texts.
    next_fresh: usize,
}

/// The random number generator of case `case` under `seed`.
pub fn case_random(seed: u64, case: u64) -> StdRng {
    // SplitMix64 of the pair, so neighbouring seeds and cases get unrelated streams.
    let mut state = seed
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(case.wrapping_mul(0xbf58_476d_1ce4_e5b9));
    state = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    state = (state ^ (state >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    StdRng::seed_from_u64(state ^ (state >> 31))
}

/// Case `case` under `seed`: its schema, and all its statements — the schema's DDL, the
/// data, then the random stream.
pub fn generate_case(seed: u64, case: u64, options: GeneratorOptions) -> (Schema, Vec<Statement>) {
    let mut random = case_random(seed, case);
    let (schema, loads) = if options.large() {
        random_large_schema(&mut random, options.large_rows)
    } else {
        (random_schema(&mut random), Vec::new())
    };
    let mut generator = Generator {
        random,
        schema,
        options,
        next_alias: 0,
        excluded_table: None,
        common_tables: Vec::new(),
        views: Vec::new(),
        previous_queries: Vec::new(),
        next_index: 0,
        savepoints: None,
        next_savepoint: 0,
        small_tables_only: false,
        next_fresh: 0,
    };
    let statements = generator.statements(loads);
    (generator.schema, statements)
}

impl Generator {
    fn statements(&mut self, loads: Vec<crate::statement::Load>) -> Vec<Statement> {
        let mut statements = Vec::new();
        for table in &self.schema.tables {
            statements.push(Statement::CreateTable {
                sql: table.create_sql(true),
                index_free_sql: table.create_sql(false),
            });
        }
        let indexes_first = self.random.gen_bool(0.5);
        let index_statements: Vec<Statement> = self
            .schema
            .indexes
            .iter()
            .filter_map(|index| {
                let table = self.schema.table(&index.table)?;
                Some(Statement::CreateIndex {
                    sql: index.create_sql(table),
                })
            })
            .collect();
        if indexes_first {
            statements.extend(index_statements.iter().cloned());
        }
        for load in loads {
            statements.push(Statement::Load(Box::new(load)));
        }
        for table_position in 0..self.schema.tables.len() {
            if self.schema.tables[table_position].large {
                continue;
            }
            let rows = self.random.gen_range(0..=self.options.max_rows);
            if self.options.max_rows > 20 {
                for chunk_start in (0..rows).step_by(50) {
                    let chunk = (rows - chunk_start).min(50);
                    statements.push(self.bulk_insert(table_position, chunk));
                }
            } else {
                for _ in 0..rows {
                    statements.push(self.single_row_insert(table_position));
                }
            }
        }
        if !indexes_first {
            statements.extend(index_statements);
        }
        for _ in 0..self.options.statements_per_case {
            self.next_alias = 0;
            if self.options.large() {
                let statement = self.large_case_statement();
                statements.push(statement);
                continue;
            }
            let statement = match self.random.gen_range(0..100) {
                0..=54 => self.query_statement(),
                55..=72 => self.insert_statement(),
                73..=85 => self.update_statement(),
                86..=91 => self.delete_statement(),
                92..=94 if self.savepoints.is_none() => self.schema_statement(),
                _ => self.control_statement(),
            };
            statements.push(statement);
        }
        statements
    }

    /// BEGIN or ANALYZE outside a transaction; COMMIT, ROLLBACK, SAVEPOINT, RELEASE or
    /// ROLLBACK TO inside one (each only where it is valid: a COMMIT without a transaction
    /// is an error in SQLite and a warning in PostgreSQL).
    fn control_statement(&mut self) -> Statement {
        let Some(savepoints) = &mut self.savepoints else {
            let sql = if self.random.gen_bool(0.7) {
                self.savepoints = Some(Vec::new());
                "BEGIN".to_owned()
            } else {
                "ANALYZE".to_owned()
            };
            return Statement::Control { sql };
        };
        let choice = self.random.gen_range(0..100);
        let sql = match (choice, savepoints.is_empty()) {
            (0..=24, _) => {
                self.savepoints = None;
                "COMMIT".to_owned()
            }
            (25..=44, _) => {
                self.savepoints = None;
                "ROLLBACK".to_owned()
            }
            (45..=69, _) | (_, true) => {
                self.next_savepoint += 1;
                let name = format!("s{}", self.next_savepoint);
                savepoints.push(name.clone());
                format!("SAVEPOINT {name}")
            }
            (70..=84, false) => {
                let keep = self.random.gen_range(0..savepoints.len());
                savepoints.truncate(keep + 1);
                format!("ROLLBACK TO {}", savepoints[keep])
            }
            _ => {
                let keep = self.random.gen_range(0..savepoints.len());
                let name = savepoints[keep].clone();
                savepoints.truncate(keep);
                format!("RELEASE {name}")
            }
        };
        Statement::Control { sql }
    }

    /// CREATE VIEW, CREATE [UNIQUE] INDEX or DROP INDEX, outside transactions. A new
    /// unique index joins the schema's keys (UPDATE assigns its columns only constants),
    /// even if building it fails on duplicates, or it is dropped later: being careful
    /// with a column that is not a key costs nothing.
    fn schema_statement(&mut self) -> Statement {
        match self.random.gen_range(0..10) {
            0..=3 => {
                let width = self.random.gen_range(1..=3);
                let column_types: Vec<SqlType> = (0..width)
                    .map(|_| random_sql_type(&mut self.random))
                    .collect();
                let item_types: Vec<ExpressionType> = column_types
                    .iter()
                    .map(|&t| ExpressionType::Scalar(t))
                    .collect();
                let query = self.query(&item_types, &[], 1, false);
                let name = format!("view{}", self.views.len() + 1);
                self.views.push((name.clone(), column_types));
                Statement::CreateView {
                    name,
                    query: Box::new(query),
                }
            }
            4..=7 => {
                self.next_index += 1;
                let position = self.random.gen_range(0..self.schema.tables.len());
                let mut table = self.schema.tables[position].clone();
                let name = format!("{}_late{}", table.name, self.next_index);
                let index = schema::random_index(&mut self.random, &mut table, &name);
                let sql = index.create_sql(&table);
                self.schema.indexes.push(index);
                Statement::CreateIndex { sql }
            }
            _ => {
                let names: Vec<String> = self
                    .schema
                    .indexes
                    .iter()
                    .map(|index| index.name.clone())
                    .collect();
                let name = names
                    .choose(&mut self.random)
                    .cloned()
                    .unwrap_or_else(|| "t0_index0".to_owned());
                Statement::CreateIndex {
                    sql: format!("DROP INDEX IF EXISTS {name}"),
                }
            }
        }
    }

    /// The columns of base table `table` under `qualifier`.
    fn base_table_scope(&self, table: &Table, qualifier: &str) -> Vec<ScopeColumn> {
        let seekable = table.seekable_columns(&self.schema.indexes);
        table
            .columns
            .iter()
            .enumerate()
            .map(|(position, column)| ScopeColumn {
                qualifier: qualifier.to_owned(),
                name: column.name.clone(),
                sql_type: column.sql_type,
                flag: column.flag,
                seekable: seekable.contains(&position),
                domain: column.domain,
            })
            .collect()
    }

    /// A fresh table alias.
    fn alias(&mut self, prefix: &str) -> String {
        self.next_alias += 1;
        format!("{prefix}{}", self.next_alias)
    }

    /// A random column type, preferring those present in `columns`.
    fn pick_type<'c>(&mut self, mut columns: impl Iterator<Item = &'c ScopeColumn>) -> SqlType {
        let present: Vec<SqlType> = columns.by_ref().map(|column| column.sql_type).collect();
        if !present.is_empty() && self.random.gen_bool(0.8) {
            return present[self.random.gen_range(0..present.len())];
        }
        random_sql_type(&mut self.random)
    }
}

/// One of the three column types, integers most often.
pub fn random_sql_type(random: &mut StdRng) -> SqlType {
    match random.gen_range(0..5) {
        0 | 1 => SqlType::Integer,
        2 => SqlType::Real,
        _ => SqlType::Text,
    }
}
