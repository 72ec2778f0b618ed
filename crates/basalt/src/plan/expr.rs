//! Bound expressions: the binder's output for every scalar expression in a statement.
//!
//! Names are gone (columns are positions in the input row, or in an enclosing query's row
//! for correlated subqueries), and every node knows its result type. Operators are
//! PostgreSQL's, with implicit casts made explicit by the binder ([`Expr::Cast`]), so the
//! evaluator never guesses: `integer + real` arrives as `cast(integer as real) + real`.

use crate::types::{DataType, Value};

use super::PlanNode;

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Subtract,
    Multiply,
    Divide,
    Remainder,
    /// `||`.
    Concat,
    Equal,
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    /// Three-valued AND.
    And,
    /// Three-valued OR.
    Or,
    BitAnd,
    BitOr,
    BitXor,
    ShiftLeft,
    ShiftRight,
}

/// The SQL spelling of a comparison operator (`=` for anything else).
pub fn comparison_symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::NotEqual => "<>",
        BinaryOp::Less => "<",
        BinaryOp::LessOrEqual => "<=",
        BinaryOp::Greater => ">",
        BinaryOp::GreaterOrEqual => ">=",
        _ => "=",
    }
}

impl BinaryOp {
    /// Whether this operator compares its operands (and so returns a boolean).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Equal
                | BinaryOp::NotEqual
                | BinaryOp::Less
                | BinaryOp::LessOrEqual
                | BinaryOp::Greater
                | BinaryOp::GreaterOrEqual
        )
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Not,
    Negate,
    Plus,
    BitNot,
}

/// A scalar function resolved by name in `crate::types`' function registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalarFunctionRef {
    /// Lower-case registry name.
    pub name: String,
    /// Volatile functions (random) are never constant-folded.
    pub volatile: bool,
}

/// Aggregate functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggregateFunction {
    /// `count(*)`: rows in the group.
    CountStar,
    /// `count(x)`: non-NULL values.
    Count,
    /// `sum(x)`: NULL for no non-NULL input; integer sum overflow is an error.
    Sum,
    /// SQLite's `total(x)`: like sum but real, and 0.0 for no input.
    Total,
    /// `avg(x)`: real (NULL for no input).
    Avg,
    Min,
    Max,
    /// `string_agg(x, separator)` / `group_concat(x[, separator])` (default separator ",").
    StringAgg,
    BoolAnd,
    BoolOr,
    /// `json_agg(x)`: every input value, NULLs included, as a json array.
    JsonAgg,
    /// `jsonb_agg(x)`: the same as jsonb.
    JsonbAgg,
    /// `array_agg(x)`: the inputs (NULLs included) as an array; arrays of arrays make a
    /// multidimensional array.
    ArrayAgg,
    /// `json_object_agg(key, value)`: a json object of the pairs (a NULL key is an error).
    JsonObjectAgg,
    /// `jsonb_object_agg(key, value)`: the same as jsonb (the last duplicate key wins).
    JsonbObjectAgg,
    /// `percentile_cont(f) WITHIN GROUP (ORDER BY x)`: the value at fraction `f` of the
    /// sorted non-NULL inputs, interpolated between the two nearest (real or interval).
    PercentileCont,
    /// `percentile_disc(f) WITHIN GROUP (ORDER BY x)`: the first sorted input whose position
    /// reaches fraction `f` of them.
    PercentileDisc,
    /// `mode() WITHIN GROUP (ORDER BY x)`: the most frequent non-NULL input (the first in
    /// sort order among equally frequent ones).
    Mode,
}

impl AggregateFunction {
    /// The function's SQL name, which PostgreSQL also gives the output column of a call.
    pub fn name(self) -> &'static str {
        match self {
            AggregateFunction::CountStar | AggregateFunction::Count => "count",
            AggregateFunction::Sum => "sum",
            AggregateFunction::Total => "total",
            AggregateFunction::Avg => "avg",
            AggregateFunction::Min => "min",
            AggregateFunction::Max => "max",
            AggregateFunction::StringAgg => "string_agg",
            AggregateFunction::BoolAnd => "bool_and",
            AggregateFunction::BoolOr => "bool_or",
            AggregateFunction::JsonAgg => "json_agg",
            AggregateFunction::JsonbAgg => "jsonb_agg",
            AggregateFunction::ArrayAgg => "array_agg",
            AggregateFunction::JsonObjectAgg => "json_object_agg",
            AggregateFunction::JsonbObjectAgg => "jsonb_object_agg",
            AggregateFunction::PercentileCont => "percentile_cont",
            AggregateFunction::PercentileDisc => "percentile_disc",
            AggregateFunction::Mode => "mode",
        }
    }

    /// Whether this is an ordered-set aggregate (`... WITHIN GROUP (ORDER BY x)`).
    pub fn is_ordered_set(self) -> bool {
        matches!(
            self,
            AggregateFunction::PercentileCont
                | AggregateFunction::PercentileDisc
                | AggregateFunction::Mode
        )
    }
}

/// One aggregate call of an Aggregate node.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateCall {
    pub function: AggregateFunction,
    /// Arguments over the Aggregate node's input (empty for count(*); the separator of
    /// string_agg is the second argument).
    pub args: Vec<Expr>,
    /// `DISTINCT`: duplicate argument values are counted once.
    pub distinct: bool,
    /// `FILTER (WHERE ...)` over the input row.
    pub filter: Option<Expr>,
    /// `agg(x ORDER BY ...)`, keys over the input row: the order string_agg and the json
    /// aggregates take their rows in (kept empty for aggregates whose result cannot depend
    /// on it, such as count or sum).
    pub order_by: Vec<super::SortKey>,
    /// An ordered-set aggregate's direct arguments (the fraction of `percentile_cont(0.5)
    /// WITHIN GROUP (ORDER BY x)`). Unlike `args` these are evaluated once per group, over
    /// the Aggregate node's group key columns (column `i` is the `i`th GROUP BY key), so
    /// they may use only grouped columns, as in PostgreSQL; an ordered-set aggregate's
    /// `args` hold the WITHIN GROUP expression and `order_by` its sort key.
    pub direct_args: Vec<Expr>,
    pub data_type: DataType,
}

/// A bound scalar expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Column `index` of the input row.
    Column { index: usize, data_type: DataType },
    /// Column `index` of an enclosing query's current row, `depth` levels out (1 = the query
    /// directly enclosing this subquery). Only inside subquery plans.
    OuterColumn {
        depth: usize,
        index: usize,
        data_type: DataType,
    },
    /// A constant.
    Literal { value: Value, data_type: DataType },
    /// Statement parameter `index` (0-based), converted to `data_type` when bound.
    Parameter { index: usize, data_type: DataType },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
        data_type: DataType,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
        data_type: DataType,
    },
    /// `CAST(operand AS to)` and implicit conversions.
    Cast { operand: Box<Expr>, to: DataType },
    /// `IS [NOT] NULL`.
    IsNull { operand: Box<Expr>, negated: bool },
    /// `IS [NOT] DISTINCT FROM` (NULL-safe equality).
    IsDistinctFrom {
        left: Box<Expr>,
        right: Box<Expr>,
        negated: bool,
    },
    /// `operand [NOT] IN (list)` with SQL NULL semantics.
    InList {
        operand: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    /// `[NOT] LIKE / ILIKE / GLOB pattern [ESCAPE e]`.
    Like {
        operand: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
        negated: bool,
        case_insensitive: bool,
        glob: bool,
    },
    /// `CASE [operand] WHEN .. THEN .. ELSE .. END`; with an operand, each WHEN is compared to it.
    Case {
        operand: Option<Box<Expr>>,
        branches: Vec<(Expr, Expr)>,
        else_result: Option<Box<Expr>>,
        data_type: DataType,
    },
    /// First non-NULL argument (arguments already cast to `data_type`).
    Coalesce {
        args: Vec<Expr>,
        data_type: DataType,
    },
    /// A scalar function call.
    Function {
        function: ScalarFunctionRef,
        args: Vec<Expr>,
        data_type: DataType,
    },
    /// `now()` / `CURRENT_TIMESTAMP`: the statement's start time (one value per statement).
    CurrentTimestamp,
    /// `CURRENT_DATE`: the statement's start date.
    CurrentDate,
    /// `nextval`, `currval` or `setval` on a sequence resolved when the call was bound (as
    /// PostgreSQL resolves a `regclass` literal). Volatile and side-effecting: evaluated once
    /// per row, never folded or moved; `nextval`/`setval` make the statement a write.
    Sequence {
        operation: SequenceOperation,
        sequence: std::sync::Arc<crate::catalog::SequenceDef>,
        /// `setval`'s value and optional `is_called` (already cast to BIGINT / BOOLEAN).
        args: Vec<Expr>,
    },
    /// `(SELECT ...)` returning at most one row of one column (NULL when no row).
    ScalarSubquery {
        plan: Box<PlanNode>,
        data_type: DataType,
    },
    /// `[NOT] EXISTS (SELECT ...)`.
    Exists { plan: Box<PlanNode>, negated: bool },
    /// `operand [NOT] IN (SELECT ...)` with SQL NULL semantics, or, with a `quantifier`,
    /// `operand op ANY | SOME | ALL (SELECT ...)` (then `negated` is false).
    InSubquery {
        operand: Box<Expr>,
        plan: Box<PlanNode>,
        negated: bool,
        quantifier: Option<Quantifier>,
    },
}

/// The comparison of `operand op ANY (subquery)` / `op ALL (subquery)`. `x IN (...)` is
/// `x = ANY (...)`, and `x NOT IN (...)` is `x <> ALL (...)`, to the NULL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantifier {
    /// A comparison (`BinaryOp::is_comparison`).
    pub op: BinaryOp,
    /// ALL: every row must satisfy it; ANY / SOME: one row must.
    pub all: bool,
}

/// What a sequence function does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SequenceOperation {
    /// `nextval`: advance and return the new value.
    Next,
    /// `currval`: this session's last `nextval` result.
    Current,
    /// `setval`: move the counter.
    Set,
}

impl Expr {
    /// The type of the expression's result.
    pub fn data_type(&self) -> DataType {
        match self {
            Expr::Column { data_type, .. }
            | Expr::OuterColumn { data_type, .. }
            | Expr::Literal { data_type, .. }
            | Expr::Parameter { data_type, .. }
            | Expr::Unary { data_type, .. }
            | Expr::Binary { data_type, .. }
            | Expr::Case { data_type, .. }
            | Expr::Coalesce { data_type, .. }
            | Expr::Function { data_type, .. }
            | Expr::ScalarSubquery { data_type, .. } => *data_type,
            Expr::Cast { to, .. } => *to,
            Expr::IsNull { .. }
            | Expr::IsDistinctFrom { .. }
            | Expr::InList { .. }
            | Expr::Like { .. }
            | Expr::Exists { .. }
            | Expr::InSubquery { .. } => DataType::Boolean,
            Expr::CurrentTimestamp => DataType::TimestampTz,
            Expr::CurrentDate => DataType::Date,
            Expr::Sequence { .. } => DataType::Integer,
        }
    }

    /// A constant of the value's own type.
    pub fn literal(value: Value) -> Expr {
        let data_type = value.data_type();
        Expr::Literal { value, data_type }
    }

    /// Whether the expression reads no input column (it may still read parameters, outer
    /// columns or run subqueries).
    pub fn is_column_free(&self) -> bool {
        let mut free = true;
        self.visit(&mut |expr| {
            if matches!(expr, Expr::Column { .. }) {
                free = false;
            }
        });
        free
    }

    /// The direct sub-expressions, mutably (not descending into subquery plans), for the
    /// binder's and the optimizer's rewrites.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Column { .. }
            | Expr::OuterColumn { .. }
            | Expr::Literal { .. }
            | Expr::Parameter { .. }
            | Expr::CurrentTimestamp
            | Expr::CurrentDate
            | Expr::ScalarSubquery { .. }
            | Expr::Exists { .. } => Vec::new(),
            Expr::Unary { operand, .. }
            | Expr::Cast { operand, .. }
            | Expr::IsNull { operand, .. }
            | Expr::InSubquery { operand, .. } => {
                vec![operand.as_mut()]
            }
            Expr::Binary { left, right, .. } | Expr::IsDistinctFrom { left, right, .. } => {
                vec![left.as_mut(), right.as_mut()]
            }
            Expr::InList { operand, list, .. } => std::iter::once(operand.as_mut())
                .chain(list.iter_mut())
                .collect(),
            Expr::Like {
                operand,
                pattern,
                escape,
                ..
            } => {
                let mut children = vec![operand.as_mut(), pattern.as_mut()];
                if let Some(escape) = escape {
                    children.push(escape.as_mut());
                }
                children
            }
            Expr::Case {
                operand,
                branches,
                else_result,
                ..
            } => {
                let mut children = Vec::new();
                if let Some(operand) = operand {
                    children.push(operand.as_mut());
                }
                for (condition, result) in branches {
                    children.push(condition);
                    children.push(result);
                }
                if let Some(else_result) = else_result {
                    children.push(else_result.as_mut());
                }
                children
            }
            Expr::Coalesce { args, .. }
            | Expr::Function { args, .. }
            | Expr::Sequence { args, .. } => args.iter_mut().collect(),
        }
    }

    /// Calls `f` on this expression and every sub-expression (not descending into subquery
    /// plans, whose columns belong to another row).
    pub fn visit(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Column { .. }
            | Expr::OuterColumn { .. }
            | Expr::Literal { .. }
            | Expr::Parameter { .. }
            | Expr::CurrentTimestamp
            | Expr::CurrentDate
            | Expr::ScalarSubquery { .. }
            | Expr::Exists { .. } => {}
            Expr::Unary { operand, .. }
            | Expr::Cast { operand, .. }
            | Expr::IsNull { operand, .. } => operand.visit(f),
            Expr::Binary { left, right, .. } | Expr::IsDistinctFrom { left, right, .. } => {
                left.visit(f);
                right.visit(f);
            }
            Expr::InList { operand, list, .. } => {
                operand.visit(f);
                list.iter().for_each(|item| item.visit(f));
            }
            Expr::Like {
                operand,
                pattern,
                escape,
                ..
            } => {
                operand.visit(f);
                pattern.visit(f);
                if let Some(escape) = escape {
                    escape.visit(f);
                }
            }
            Expr::Case {
                operand,
                branches,
                else_result,
                ..
            } => {
                if let Some(operand) = operand {
                    operand.visit(f);
                }
                for (condition, result) in branches {
                    condition.visit(f);
                    result.visit(f);
                }
                if let Some(else_result) = else_result {
                    else_result.visit(f);
                }
            }
            Expr::Coalesce { args, .. }
            | Expr::Function { args, .. }
            | Expr::Sequence { args, .. } => args.iter().for_each(|arg| arg.visit(f)),
            Expr::InSubquery { operand, .. } => operand.visit(f),
        }
    }
}
