//! Plans: what a statement does, with every name resolved and every type known.
//!
//! The binder (`plan::bind`) turns a parsed statement into a [`Plan`] tree of
//! [`PlanNode`]s whose expressions are [`Expr`]s: columns are positions in the input row,
//! functions are resolved, and every expression carries its [`DataType`]. The optimizer
//! rewrites the tree (pushing filters into scans, choosing index ranges, ordering joins), and
//! the executor (`crate::exec`) turns it into operators. A prepared statement keeps its plan
//! and re-executes it with new parameters; nothing here depends on parameter values.
//!
//! Row shape conventions:
//! * Every node has a `schema`: the names and types of the columns it produces.
//! * `Expr::Column(i)` in a node refers to column `i` of that node's *input* (for joins: the
//!   left input's columns followed by the right's).
//! * An [`PlanKind::Aggregate`] node produces the GROUP BY keys, then one column per
//!   aggregate call; expressions above it refer to those columns.
//! * A [`PlanKind::Window`] node produces its input's columns, then one column per window
//!   function call.

pub mod bind;
pub mod ddl;
pub mod expr;
pub mod optimize;
mod visit;
pub mod window;

use std::sync::Arc;

use crate::catalog::{IndexDef, TableDef};
use crate::types::DataType;

pub use expr::{
    AggregateCall, AggregateFunction, BinaryOp, Expr, ScalarFunctionRef, SequenceOperation, UnaryOp,
};
pub use window::{FrameBound, FrameUnits, WindowCall, WindowFrame, WindowFunction};

/// One column of a node's output.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputColumn {
    /// The column's name (an alias, a column name, or a generated name like `?column?`).
    pub name: String,
    /// The table (or alias) it came from, for resolving `t.col` above this node.
    pub table: Option<String>,
    pub data_type: DataType,
    /// The stored table column whose values this column carries unchanged, when there is
    /// one: what a client is told a result column comes from (the wire protocol's table and
    /// column numbers). Kept through projections, joins, filters, sorts and subqueries in
    /// FROM; any expression, aggregate or set operation loses it.
    pub source: Option<ColumnSource>,
}

/// A stored table column, by table name and position in the table's columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnSource {
    pub table: String,
    pub column: usize,
}

impl ColumnSource {
    /// The source `expr` carries when it reads a column of `input` unchanged.
    pub fn of(expr: &Expr, input: &[OutputColumn]) -> Option<ColumnSource> {
        match expr {
            Expr::Column { index, .. } => input.get(*index)?.source.clone(),
            _ => None,
        }
    }
}

/// A plan node: what it does and what it produces.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanNode {
    pub kind: PlanKind,
    pub schema: Vec<OutputColumn>,
}

/// What a scan reads for one output column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanColumn {
    /// The row id.
    RowId,
    /// The table column at this position in `TableDef::columns`.
    Column(usize),
    /// The table column at this position, which nothing above the scan reads: it keeps its
    /// place and type in the scan's rows but is not decoded, every value NULL
    /// (`optimize::columns`, the optimizer's last pass).
    Unread(usize),
}

/// A bound on a scan range, as expressions evaluated once when the scan starts (they may use
/// parameters but not columns).
#[derive(Clone, Debug, PartialEq)]
pub enum RangeBound {
    Unbounded,
    Included(Vec<Expr>),
    Excluded(Vec<Expr>),
}

/// How a [`PlanKind::Scan`] finds its table's rows. Every way a plan reads a table is one of
/// these, so the optimizer's choice, the executor's operator, the estimates and EXPLAIN each
/// have one place per path. A new access method (an index-ordered top-k over a vector index,
/// say) is a new variant here.
#[derive(Clone, Debug, PartialEq)]
pub enum AccessPath {
    /// Every row, in row-id order.
    Full,
    /// The rows whose row id lies within the bounds (one value each), in row-id order. At
    /// least one bound is set; a range with neither is [`AccessPath::Full`].
    RowIdRange {
        lower: RangeBound,
        upper: RangeBound,
    },
    /// The rows whose index entries lie within the bounds (prefixes of the index's key
    /// columns), in index order. Bounds may both be unbounded: the whole table in index
    /// order.
    IndexRange {
        index: Arc<IndexDef>,
        lower: RangeBound,
        upper: RangeBound,
    },
    /// `key IN (list)`: one seek per distinct non-NULL value of `keys` (expressions fixed
    /// for the whole scan), by row id when `index` is `None`, else on the index's first
    /// column; rows come in no key order (the ORDER BY rule never relies on one).
    Seeks {
        index: Option<Arc<IndexDef>>,
        keys: Vec<Expr>,
    },
    /// `ORDER BY <distance to query> LIMIT n`: the rows nearest `query` (a constant or
    /// parameter vector) that pass `filter` (the WHERE conjuncts on this table). Through an
    /// HNSW index, nearest first as the index finds them, each checked against the table at
    /// the statement's snapshot, the search widening until `limit + offset` rows pass or the
    /// graph is exhausted; without one, an exact search: one pass over the table computing
    /// each row's distance from the page and keeping the `limit + offset` nearest. A TopN
    /// above orders them exactly.
    VectorSearch(Box<VectorSearch>),
    /// `fts_match(column, query)` through the column's full-text index (or `fts_match((a,
    /// b), query)` through an index over exactly those columns): every row whose text
    /// matches, in row order; or, under `ORDER BY bm25_score(column, query) DESC LIMIT n`,
    /// the `limit + offset` best-scoring matching rows that pass `filter`, best first
    /// (block-max WAND over the index). A TopN above orders them by the exact score.
    TextSearch(Box<TextSearch>),
}

/// What an [`AccessPath::TextSearch`] searches for.
#[derive(Clone, Debug, PartialEq)]
pub struct TextSearch {
    /// The full-text index that serves it; the searched columns are its columns.
    pub index: Arc<IndexDef>,
    /// The full-text query: a constant or a parameter.
    pub query: Expr,
    /// `Some` for the best rows by BM25: (limit, offset).
    pub top: Option<(Expr, Option<Expr>)>,
    /// With `top`: the other WHERE conjuncts on the table, over the scan's output row.
    pub filter: Option<Expr>,
    /// With `top`: the scan appends each row's BM25 score (what `bm25_score(column, query)`
    /// gives) after its `columns`, for the projection above to read.
    pub score: bool,
}

/// What an [`AccessPath::VectorSearch`] searches for (boxed: the path is in every scan).
#[derive(Clone, Debug, PartialEq)]
pub struct VectorSearch {
    /// The HNSW index that serves the search, `None` for an exact search.
    pub index: Option<Arc<IndexDef>>,
    /// The searched column's position in `TableDef::columns`.
    pub column: usize,
    /// The distance the ORDER BY computes (the index's own, when there is one).
    pub metric: crate::types::vector::kernels::Metric,
    /// The query vector: a constant or a parameter.
    pub query: Expr,
    /// Whether the query is the distance's first operand (`$1 <=> emb`): errors name the
    /// operands in the order they were written.
    pub query_first: bool,
    pub limit: Expr,
    pub offset: Option<Expr>,
    /// The WHERE conjuncts on the scanned table, over the scan's output row.
    pub filter: Option<Expr>,
}

impl AccessPath {
    /// A row-id range, or [`AccessPath::Full`] when neither bound is set.
    pub fn row_id_range(lower: RangeBound, upper: RangeBound) -> AccessPath {
        match (&lower, &upper) {
            (RangeBound::Unbounded, RangeBound::Unbounded) => AccessPath::Full,
            _ => AccessPath::RowIdRange { lower, upper },
        }
    }

    /// The range bounds of a range path (row id or index), `None` for a full scan or seeks.
    pub fn bounds(&self) -> Option<(&RangeBound, &RangeBound)> {
        match self {
            AccessPath::RowIdRange { lower, upper }
            | AccessPath::IndexRange { lower, upper, .. } => Some((lower, upper)),
            AccessPath::Full
            | AccessPath::Seeks { .. }
            | AccessPath::VectorSearch(_)
            | AccessPath::TextSearch(_) => None,
        }
    }
}

/// How rows of a join's two sides are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
    /// Left rows that have a match (EXISTS / IN), each at most once; output = left columns.
    Semi,
    /// Left rows that have no match (NOT EXISTS); output = left columns.
    Anti,
}

/// UNION, INTERSECT, EXCEPT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOperator {
    Union,
    Intersect,
    Except,
}

/// One ORDER BY key.
#[derive(Clone, Debug, PartialEq)]
pub struct SortKey {
    pub expr: Expr,
    pub descending: bool,
    pub nulls_first: bool,
}

/// What INSERT does with a row that violates a uniqueness constraint (and, for SQLite's
/// `OR IGNORE` and `OR REPLACE`, NOT NULL and CHECK too).
#[derive(Clone, Debug, PartialEq)]
pub enum ConflictAction {
    /// Fail the statement (the default).
    Abort,
    /// Skip a row that collides on a unique key (`ON CONFLICT DO NOTHING`); any other
    /// violation fails the statement, as in PostgreSQL.
    Ignore,
    /// Skip a row that breaks a uniqueness, NOT NULL or CHECK constraint (SQLite's
    /// `INSERT OR IGNORE`, MySQL's `INSERT IGNORE`); a foreign key violation still fails the
    /// statement, as in SQLite.
    IgnoreAnyViolation,
    /// Delete the conflicting rows, then insert (`INSERT OR REPLACE`, `REPLACE INTO`). As in
    /// SQLite, a NULL bound for a NOT NULL column with a default takes the default instead.
    Replace,
    /// `ON CONFLICT (cols) DO UPDATE SET ...`: assignments are expressions over the existing
    /// row's columns followed by the proposed row's columns (`excluded.*`), with an optional
    /// WHERE over the same.
    Update {
        target_columns: Vec<usize>,
        assignments: Vec<(usize, Expr)>,
        condition: Option<Expr>,
    },
}

/// The operations of a plan.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanKind {
    /// One row with no columns: `SELECT 1`.
    SingleRow,
    /// Literal rows (`VALUES`, and the source of `INSERT ... VALUES`).
    Values { rows: Vec<Vec<Expr>> },
    /// Rows of a table, found by `access` (every row, a row-id range, an index range, or
    /// one seek per key), in the order the access path gives (reversed if `reverse`: a
    /// range read backwards; seeks are never reversed). The one node through which plans
    /// read a table: the optimizer chooses `access` (`optimize::access`, and the ORDER BY
    /// rule that may turn a full scan into an index-ordered one), the executor builds the
    /// matching operator, EXPLAIN prints it.
    Scan {
        table: Arc<TableDef>,
        columns: Vec<ScanColumn>,
        access: AccessPath,
        reverse: bool,
    },
    /// Rows whose predicate is true (not false, not NULL).
    Filter {
        input: Box<PlanNode>,
        predicate: Expr,
    },
    /// One output column per expression.
    Project {
        input: Box<PlanNode>,
        exprs: Vec<Expr>,
    },
    /// Groups (or one group when `group_by` is empty: then exactly one output row, even for
    /// empty input). Output: the group keys, then the aggregates.
    Aggregate {
        input: Box<PlanNode>,
        group_by: Vec<Expr>,
        aggregates: Vec<AggregateCall>,
    },
    /// Every input row, in (partition, order) order, followed by one column per window call
    /// computed over the row's partition (rows with equal `partition_by` values) ordered by
    /// `order_by` (see [`window`]).
    Window {
        input: Box<PlanNode>,
        partition_by: Vec<Expr>,
        order_by: Vec<SortKey>,
        functions: Vec<WindowCall>,
    },
    /// Rows ordered by the keys (stable).
    Sort {
        input: Box<PlanNode>,
        keys: Vec<SortKey>,
    },
    /// The first `offset + limit` rows in the keys' order, then skip `offset` (ORDER BY ...
    /// LIMIT): a bounded heap instead of a full sort.
    TopN {
        input: Box<PlanNode>,
        keys: Vec<SortKey>,
        limit: Expr,
        offset: Option<Expr>,
    },
    /// Skip `offset` rows, then at most `limit` rows (expressions without columns).
    Limit {
        input: Box<PlanNode>,
        limit: Option<Expr>,
        offset: Option<Expr>,
    },
    /// Duplicate rows removed (NULLs equal to each other).
    Distinct { input: Box<PlanNode> },
    /// DISTINCT ON: the first row of each run of rows equal on the `keys` columns (NULLs
    /// equal). The input is sorted so that equal keys are adjacent (the binder puts a Sort
    /// whose leading keys are these columns below it).
    DistinctOn {
        input: Box<PlanNode>,
        keys: Vec<usize>,
    },
    /// Every pair of rows for which `condition` holds (all pairs when `None`).
    NestedLoopJoin {
        left: Box<PlanNode>,
        right: Box<PlanNode>,
        kind: JoinKind,
        condition: Option<Expr>,
    },
    /// Pairs with equal keys (NULL keys never match), then `residual` over the joined row.
    /// `left_keys` are over the left input, `right_keys` over the right input.
    HashJoin {
        left: Box<PlanNode>,
        right: Box<PlanNode>,
        kind: JoinKind,
        left_keys: Vec<Expr>,
        right_keys: Vec<Expr>,
        residual: Option<Expr>,
    },
    /// For each left row, the rows of `table` whose row id (`index` is `None`) or whose leading
    /// `index` columns equal `left_keys` (NULL keys never match), found by seeks; then
    /// `residual` over the joined row. Output: the left columns, then `columns` of the table.
    /// Kinds: inner, left, semi, anti.
    IndexJoin {
        left: Box<PlanNode>,
        table: Arc<TableDef>,
        index: Option<Arc<IndexDef>>,
        columns: Vec<ScanColumn>,
        kind: JoinKind,
        left_keys: Vec<Expr>,
        residual: Option<Expr>,
    },
    /// UNION / INTERSECT / EXCEPT, with or without ALL. Both inputs have the same column types.
    SetOperation {
        operator: SetOperator,
        all: bool,
        left: Box<PlanNode>,
        right: Box<PlanNode>,
    },
    /// WITH RECURSIVE: the rows of `base`, then the rows of `recursive` evaluated again and
    /// again, each time over the rows the previous evaluation produced (the *working table*,
    /// read by the [`PlanKind::WorkingTableScan`] with the same `working_table` inside
    /// `recursive`), until an evaluation produces no rows. With `all` false, rows equal to
    /// one produced before are dropped (and never feed the next evaluation). Both inputs
    /// have the node's column types. `recursive` is shared (not copied) with the operator
    /// that builds it anew for every evaluation, so EXPLAIN ANALYZE finds its nodes.
    RecursiveUnion {
        working_table: usize,
        all: bool,
        base: Box<PlanNode>,
        recursive: Arc<PlanNode>,
    },
    /// The working table of the enclosing [`PlanKind::RecursiveUnion`] with the same
    /// `working_table` number (unique within a statement).
    WorkingTableScan { working_table: usize },
    /// `generate_series(start, stop[, step])` in FROM: for each row of `input`, that row
    /// followed by each INTEGER from `start` towards `stop` by `step` (1 when `None`),
    /// computed as they are read. The arguments are INTEGER expressions over the input row:
    /// `input` is `SingleRow` for a series on its own, or the FROM items to its left when
    /// its arguments read them (LATERAL). Output: the input's columns, then the value.
    GenerateSeries {
        input: Box<PlanNode>,
        start: Expr,
        stop: Expr,
        step: Option<Expr>,
    },
    /// A set-returning function of the registry (`types::functions::set_returning`, e.g.
    /// `json_each`) as a FROM item: for each row of `input`, that row followed by each row
    /// the function computes from `args` (expressions over the input row). `input` is
    /// `SingleRow` on its own, or the FROM items to its left when the arguments read them
    /// (LATERAL). Output: the input's columns, then the function's.
    FunctionScan {
        input: Box<PlanNode>,
        function: String,
        args: Vec<Expr>,
    },
    /// `rrf(branch, branch, ... [, k => k] [, weights => (w, w, ...)])` in FROM: reciprocal
    /// rank fusion of ranked lists. Each branch's rows, in the order it produces them, rank
    /// 1, 2, ...; a row contributes `weight / (k + rank)` to the score of its first column's
    /// value (the key; NULLs one key, as GROUP BY groups them). Output: each key once, with
    /// its summed score (DOUBLE PRECISION), highest score first, ties by key ascending.
    /// `k` and `weights` (one per branch) are DOUBLE PRECISION expressions over no row
    /// (constants and parameters), checked when the operator starts.
    RankFusion {
        branches: Vec<PlanNode>,
        k: Expr,
        weights: Vec<Expr>,
    },
    /// A `LATERAL (subquery)` FROM item: for each row of `input` (the FROM items to its
    /// left), `subquery` runs with that row as its innermost outer row (its references to
    /// the left items are `OuterColumn { depth: 1 }`), and each of its rows is appended to
    /// the input row. With `outer` (`LEFT JOIN LATERAL ... ON condition`), the pairs are
    /// those for which `condition` (over input then subquery columns) is true, and an input
    /// row with none is kept once with NULLs. Output: the input's columns, then the
    /// subquery's.
    LateralSubquery {
        input: Box<PlanNode>,
        subquery: Box<PlanNode>,
        outer: bool,
        condition: Option<Expr>,
    },
    /// Inserts the rows of `source` (one column per `target_columns` entry, already cast to
    /// the columns' types). Columns not listed get their defaults. Output: `returning`
    /// evaluated over the inserted row (all table columns, in table order).
    Insert {
        table: Arc<TableDef>,
        source: Box<PlanNode>,
        target_columns: Vec<usize>,
        on_conflict: ConflictAction,
        returning: Vec<Expr>,
    },
    /// For each row of `input` (row id, then every table column in table order), sets the
    /// assigned columns (expressions over that input row). Output: `returning` over the new row.
    Update {
        table: Arc<TableDef>,
        input: Box<PlanNode>,
        assignments: Vec<(usize, Expr)>,
        returning: Vec<Expr>,
    },
    /// Deletes each row of `input` (row id, then every table column). Output: `returning`
    /// over the deleted row.
    Delete {
        table: Arc<TableDef>,
        input: Box<PlanNode>,
        returning: Vec<Expr>,
        /// The table columns the deletion itself reads of each old row: its indexes'
        /// columns (to remove their entries), or every column (`None`) when a trigger,
        /// RETURNING or a foreign key that references the table may read the row. The
        /// others are left unread by the scan (`optimize::columns`) and arrive as NULL.
        old_columns: Option<Vec<usize>>,
    },
}

/// A statement parameter: `?`, `?N`, `$N` or `:name`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParameterInfo {
    /// The name of a `:name` parameter.
    pub name: Option<String>,
    /// The type the context expects (`DataType::Null` when nothing constrains it; the value
    /// is then used as given).
    pub data_type: DataType,
}

/// A bound statement.
#[derive(Clone, Debug, PartialEq)]
pub enum BoundStatement {
    /// A query (rows out, nothing changed).
    Query(PlanNode),
    /// INSERT, UPDATE or DELETE (a plan whose root is one of those nodes).
    Modify(PlanNode),
    /// EXPLAIN [ANALYZE] [VERBOSE] of a query or modification.
    Explain {
        plan: PlanNode,
        analyze: bool,
        verbose: bool,
    },
    /// DDL, transaction control and settings.
    Ddl(ddl::DdlStatement),
    /// INSERT, UPDATE or DELETE on a view, carried out by its INSTEAD OF triggers.
    InsteadOf(ViewModification),
}

/// An INSERT, UPDATE or DELETE on a view, which the view's INSTEAD OF triggers carry out
/// (`crate::exec::triggers`). `rows` produces one row per affected view row: the OLD row's
/// `width` columns (UPDATE, DELETE) followed by the NEW row's (INSERT, UPDATE).
#[derive(Clone, Debug, PartialEq)]
pub struct ViewModification {
    pub view: String,
    /// The event; an UPDATE lists the columns its SET assigns.
    pub event: crate::catalog::TriggerEvent,
    pub rows: PlanNode,
    /// The view's column count.
    pub width: usize,
}

/// A bound statement with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub statement: BoundStatement,
    pub parameters: Vec<ParameterInfo>,
}
