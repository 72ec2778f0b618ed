//! Cardinality estimates: roughly how many rows a plan node produces, for the choices that
//! depend on sizes (an index join against a hash join).
//!
//! Table sizes come from a [`Statistics`] provider: `ANALYZE` results when the catalog has
//! them, else whatever the provider can estimate cheaply (the connection reads the table
//! tree's shape), else a default of a million rows — large enough that an unknown table is
//! never assumed to be cheap to hash. Selectivities are fixed guesses in the spirit of
//! SQLite's planner: an equality on a unique key finds one row, on another index ten (or
//! what ANALYZE measured), each side of a range keeps a third, any other filter half. The
//! numbers only have to order the alternatives correctly, not predict run times.

use crate::catalog::{Catalog, IndexDef, TableDef};
use crate::plan::{AccessPath, Expr, JoinKind, PlanKind, PlanNode, RangeBound};
use crate::types::Value;

/// Rows assumed for a table nothing is known about.
pub const UNKNOWN_TABLE_ROWS: f64 = 1_000_000.0;

/// Where table sizes come from.
pub trait Statistics {
    /// The estimated number of rows of `table`.
    fn table_rows(&self, table: &TableDef) -> f64;
}

/// Statistics from `ANALYZE` only (the default for plans built without a data source).
#[derive(Debug)]
pub struct CatalogStatistics<'a>(pub &'a Catalog);

impl Statistics for CatalogStatistics<'_> {
    fn table_rows(&self, table: &TableDef) -> f64 {
        self.0
            .analyzed_rows(table)
            .map_or(UNKNOWN_TABLE_ROWS, |rows| rows as f64)
    }
}

/// The sizes and selectivities the optimizer's cost comparisons use.
pub struct Estimator<'a> {
    pub catalog: &'a Catalog,
    pub statistics: &'a dyn Statistics,
}

impl std::fmt::Debug for Estimator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Estimator").finish_non_exhaustive()
    }
}

impl Estimator<'_> {
    /// Rows of `table`.
    pub fn table_rows(&self, table: &TableDef) -> f64 {
        self.statistics.table_rows(table).max(1.0)
    }

    /// Rows that share one value of the first `columns` key columns of `index`.
    pub fn rows_per_key(&self, index: &IndexDef, columns: usize) -> f64 {
        if index.unique && columns >= index.columns.len() {
            return 1.0;
        }
        self.catalog
            .analyzed_rows_per_key(index, columns)
            .unwrap_or(10.0)
            .max(1.0)
    }

    /// Estimated rows a scan of `table` by `access` returns.
    fn scan_rows(&self, table: &TableDef, access: &AccessPath) -> f64 {
        match access {
            AccessPath::Full => self.table_rows(table),
            AccessPath::RowIdRange { lower, upper } => {
                if is_equality(lower, upper) {
                    1.0
                } else {
                    self.table_rows(table) * range_fraction(lower, upper, 0)
                }
            }
            AccessPath::IndexRange {
                index,
                lower,
                upper,
            } => {
                let fixed = equality_prefix(lower, upper);
                let rows = if fixed == 0 {
                    self.table_rows(table)
                } else {
                    self.rows_per_key(index, fixed).min(self.table_rows(table))
                };
                rows * range_fraction(lower, upper, fixed)
            }
            // At most the rows the search is asked for (its limit is usually a constant).
            AccessPath::VectorSearch(search) => match &search.limit {
                Expr::Literal {
                    value: crate::types::Value::Integer(limit),
                    ..
                } => (*limit as f64).clamp(1.0, self.table_rows(table)),
                _ => self.table_rows(table).min(100.0),
            },
            // A search's top rows are at most its limit; every match, a guess of a tenth.
            AccessPath::TextSearch(search) => match &search.top {
                Some((
                    Expr::Literal {
                        value: crate::types::Value::Integer(limit),
                        ..
                    },
                    _,
                )) => (*limit as f64).clamp(1.0, self.table_rows(table)),
                _ => (self.table_rows(table) / 10.0).max(1.0),
            },
            AccessPath::Seeks { index, keys } => {
                let per_key = match index {
                    None => 1.0,
                    Some(index) => self.rows_per_key(index, 1).min(self.table_rows(table)),
                };
                keys.len() as f64 * per_key
            }
        }
    }

    /// Estimated output rows of `node`.
    pub fn rows(&self, node: &PlanNode) -> f64 {
        let rows = match &node.kind {
            PlanKind::SingleRow => 1.0,
            PlanKind::Values { rows } => rows.len() as f64,
            PlanKind::Scan { table, access, .. } => self.scan_rows(table, access),
            PlanKind::Filter { input, .. } => {
                let input_rows = self.rows(input);
                match &input.kind {
                    // A narrowed scan already accounts for the filter's conjuncts.
                    PlanKind::Scan { access, .. } if !matches!(access, AccessPath::Full) => {
                        input_rows
                    }
                    _ => input_rows * 0.5,
                }
            }
            PlanKind::Project { input, .. }
            | PlanKind::Sort { input, .. }
            | PlanKind::Window { input, .. }
            | PlanKind::Insert { source: input, .. }
            | PlanKind::Update { input, .. }
            | PlanKind::Delete { input, .. } => self.rows(input),
            PlanKind::Distinct { input } | PlanKind::DistinctOn { input, .. } => {
                self.rows(input) * 0.5
            }
            PlanKind::Aggregate {
                input, group_by, ..
            } => {
                if group_by.is_empty() {
                    1.0
                } else {
                    self.rows(input) * 0.1
                }
            }
            PlanKind::Limit { input, limit, .. } => {
                limit_rows(limit.as_ref()).map_or(self.rows(input), |n| n.min(self.rows(input)))
            }
            PlanKind::TopN { input, limit, .. } => {
                limit_rows(Some(limit)).map_or(self.rows(input), |n| n.min(self.rows(input)))
            }
            PlanKind::NestedLoopJoin {
                left, right, kind, ..
            }
            | PlanKind::HashJoin {
                left, right, kind, ..
            } => {
                let (left, right) = (self.rows(left), self.rows(right));
                match kind {
                    JoinKind::Semi | JoinKind::Anti => left,
                    JoinKind::Inner | JoinKind::Left | JoinKind::Right | JoinKind::Full => {
                        left.max(right)
                    }
                }
            }
            PlanKind::IndexJoin {
                left,
                table,
                index,
                kind,
                left_keys,
                ..
            } => {
                let left = self.rows(left);
                let per_key = match index {
                    None => 1.0,
                    Some(index) => self
                        .rows_per_key(index, left_keys.len())
                        .min(self.table_rows(table)),
                };
                match kind {
                    JoinKind::Semi | JoinKind::Anti => left,
                    _ => left * per_key,
                }
            }
            PlanKind::SetOperation { left, right, .. } => self.rows(left) + self.rows(right),
            // A guess, as PostgreSQL's: the recursion runs about ten times.
            PlanKind::RecursiveUnion {
                base, recursive, ..
            } => self.rows(base) + 10.0 * self.rows(recursive),
            PlanKind::WorkingTableScan { .. } => 10.0,
            PlanKind::GenerateSeries {
                input,
                start,
                stop,
                step,
            } => self.rows(input) * series_rows(start, stop, step.as_ref()).unwrap_or(1000.0),
            // A JSON document's members: a guess, as PostgreSQL's default of 100 rows.
            PlanKind::FunctionScan { input, .. } => self.rows(input) * 100.0,
            // At most every branch's rows, once each.
            PlanKind::RankFusion { branches, .. } => {
                branches.iter().map(|branch| self.rows(branch)).sum()
            }
            PlanKind::LateralSubquery {
                input, subquery, ..
            } => self.rows(input) * self.rows(subquery),
        };
        rows.max(1.0)
    }
}

/// The length of a series with constant arguments.
fn series_rows(start: &Expr, stop: &Expr, step: Option<&Expr>) -> Option<f64> {
    let constant = |expr: &Expr| match expr {
        Expr::Literal {
            value: Value::Integer(value),
            ..
        } => Some(*value as f64),
        _ => None,
    };
    let step = match step {
        Some(step) => constant(step)?,
        None => 1.0,
    };
    if step == 0.0 {
        return None;
    }
    Some(
        ((constant(stop)? - constant(start)?) / step)
            .floor()
            .max(-1.0)
            + 1.0,
    )
}

/// A constant LIMIT's row count.
fn limit_rows(limit: Option<&Expr>) -> Option<f64> {
    match limit? {
        Expr::Literal {
            value: Value::Integer(count),
            ..
        } => Some((*count).max(0) as f64),
        _ => None,
    }
}

/// Whether both bounds pin the scan to one key.
fn is_equality(lower: &RangeBound, upper: &RangeBound) -> bool {
    matches!((lower, upper), (RangeBound::Included(low), RangeBound::Included(high)) if low == high)
}

/// How many leading key columns both bounds fix to the same values.
pub fn equality_prefix(lower: &RangeBound, upper: &RangeBound) -> usize {
    match (lower, upper) {
        (
            RangeBound::Included(low) | RangeBound::Excluded(low),
            RangeBound::Included(high) | RangeBound::Excluded(high),
        ) => low.iter().zip(high).take_while(|(a, b)| a == b).count(),
        _ => 0,
    }
}

/// The fraction a range keeps beyond its `fixed` equality columns: a third per bounded side.
fn range_fraction(lower: &RangeBound, upper: &RangeBound, fixed: usize) -> f64 {
    let bounded = |bound: &RangeBound| match bound {
        RangeBound::Unbounded => false,
        RangeBound::Included(key) | RangeBound::Excluded(key) => key.len() > fixed,
    };
    let mut fraction = 1.0;
    if bounded(lower) {
        fraction /= 3.0;
    }
    if bounded(upper) {
        fraction /= 3.0;
    }
    fraction
}
