//! What `EXPLAIN VERBOSE` adds to each plan node: its predicates, keys, bounds, projections
//! and the like, as lines of SQL-like text, so a test (or a person) can pin exactly which
//! predicate a filter applies, which key an index join seeks and which bounds a range scan
//! reads.
//!
//! Expressions are printed with the names of the columns they read: a column of a node's
//! input is named by that input's schema (`t.k`, or the output name of a computed column),
//! a parameter is `$N`, a constant is a SQL literal. Subqueries inside expressions are
//! printed as `(SubPlan N)`; [`node_details`] hands their plans back so the caller prints
//! each one below the node, with the node's input row as the scope their outer references
//! (`OuterColumn`) resolve in. Nothing here evaluates anything; it only reads the plan.

use crate::catalog::{IndexDef, TableDef};
use crate::plan::{
    AccessPath, AggregateCall, BinaryOp, ConflictAction, Expr, FrameBound, FrameUnits,
    OutputColumn, PlanKind, PlanNode, RangeBound, ScanColumn, SequenceOperation, SortKey, UnaryOp,
    WindowCall, WindowFrame, window::window_function_name,
};
use crate::types::Value;

/// The columns an expression can read: its node's input row, and the rows of enclosing
/// queries (innermost last) for the outer references of a subquery.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Names of the current input row's columns.
    pub columns: Vec<String>,
    /// Enclosing rows, outermost first.
    pub outer: Vec<Vec<String>>,
}

impl Scope {
    fn with_columns(&self, columns: Vec<String>) -> Scope {
        Scope {
            columns,
            outer: self.outer.clone(),
        }
    }

    /// The scope of a subquery evaluated over this scope's row.
    pub fn entering_subquery(&self) -> Scope {
        let mut outer = self.outer.clone();
        outer.push(self.columns.clone());
        Scope {
            columns: Vec::new(),
            outer,
        }
    }
}

/// A subquery found in a node's expressions, numbered in the order printed.
#[derive(Debug)]
pub struct SubPlan<'a> {
    pub number: usize,
    pub plan: &'a PlanNode,
    /// The scope its outer references resolve in.
    pub scope: Scope,
}

/// The detail lines of `node` (without indentation) and the subqueries its expressions hold.
/// `next_subplan` numbers subqueries across the whole plan.
pub fn node_details<'a>(
    node: &'a PlanNode,
    scope: &Scope,
    next_subplan: &mut usize,
) -> (Vec<String>, Vec<SubPlan<'a>>) {
    let mut printer = Printer {
        subplans: Vec::new(),
        next_subplan,
    };
    let lines = printer.details(node, scope);
    (lines, printer.subplans)
}

/// The names of a node's output columns, as expressions above it refer to them.
pub fn output_names(schema: &[OutputColumn]) -> Vec<String> {
    schema
        .iter()
        .map(|column| match &column.table {
            Some(table) => format!("{table}.{}", column.name),
            None => column.name.clone(),
        })
        .collect()
}

/// The input row of `node` as its expressions see it (for joins, left then right).
pub fn input_names(node: &PlanNode) -> Vec<String> {
    match &node.kind {
        PlanKind::NestedLoopJoin { left, right, .. } | PlanKind::HashJoin { left, right, .. } => {
            let mut names = output_names(&left.schema);
            names.extend(output_names(&right.schema));
            names
        }
        PlanKind::IndexJoin {
            left,
            table,
            columns,
            ..
        } => {
            let mut names = output_names(&left.schema);
            names.extend(scan_names(table, columns));
            names
        }
        PlanKind::LateralSubquery {
            input, subquery, ..
        } => {
            let mut names = output_names(&input.schema);
            names.extend(output_names(&subquery.schema));
            names
        }
        // Returning lists and ON CONFLICT read the table's row.
        PlanKind::Insert { table, .. } => table_names(table),
        _ => node
            .kind
            .children()
            .first()
            .map_or_else(Vec::new, |input| output_names(&input.schema)),
    }
}

fn table_names(table: &TableDef) -> Vec<String> {
    table
        .columns
        .iter()
        .map(|column| format!("{}.{}", table.name, column.name))
        .collect()
}

/// The names of a scan's columns by position (for resolving references to them).
fn scan_names(table: &TableDef, columns: &[ScanColumn]) -> Vec<String> {
    columns
        .iter()
        .map(|column| match column {
            ScanColumn::RowId => format!("{}.<row id>", table.name),
            ScanColumn::Column(index) | ScanColumn::Unread(index) => {
                table.columns.get(*index).map_or_else(
                    || format!("{}.<column {index}>", table.name),
                    |column| format!("{}.{}", table.name, column.name),
                )
            }
        })
        .collect()
}

/// The names of the columns a scan reads, for its `Output:` line: unread columns
/// (`optimize::columns`) are left out, as the scan does not produce them.
fn read_names(table: &TableDef, columns: &[ScanColumn]) -> Vec<String> {
    let names = scan_names(table, columns);
    names
        .into_iter()
        .zip(columns)
        .filter(|(_, column)| !matches!(column, ScanColumn::Unread(_)))
        .map(|(name, _)| name)
        .collect()
}

struct Printer<'a, 'n> {
    subplans: Vec<SubPlan<'a>>,
    next_subplan: &'n mut usize,
}

impl<'a> Printer<'a, '_> {
    fn details(&mut self, node: &'a PlanNode, scope: &Scope) -> Vec<String> {
        let input = scope.with_columns(input_names(node));
        let mut lines = Vec::new();
        match &node.kind {
            PlanKind::SingleRow | PlanKind::Distinct { .. } | PlanKind::WorkingTableScan { .. } => {
            }
            PlanKind::SetOperation { .. } | PlanKind::RecursiveUnion { .. } => {}
            PlanKind::Values { rows } => {
                let rows: Vec<String> = rows
                    .iter()
                    .map(|row| format!("({})", self.list(row, &input)))
                    .collect();
                lines.push(format!("Rows: {}", rows.join(", ")));
            }
            PlanKind::Scan {
                table,
                columns,
                access,
                ..
            } => {
                let mut names = read_names(table, columns);
                if let AccessPath::TextSearch(search) = access
                    && search.score
                {
                    // The top-k search's score column (see `plan::TextSearch::score`).
                    names.extend(node.schema.last().map(|column| column.name.clone()));
                }
                lines.push(format!("Output: {}", names.join(", ")));
                let row_id = || vec![(format!("{}.<row id>", table.name), false)];
                match access {
                    AccessPath::Full => {}
                    AccessPath::RowIdRange { lower, upper } => {
                        if let Some(range) = self.range(&row_id(), lower, upper, &input) {
                            lines.push(format!("Row Id Cond: {range}"));
                        }
                    }
                    AccessPath::IndexRange {
                        index,
                        lower,
                        upper,
                    } => {
                        let keys = index_column_names(table, index);
                        if let Some(range) = self.range(&keys, lower, upper, &input) {
                            lines.push(format!("Index Cond: {range}"));
                        }
                    }
                    AccessPath::Seeks { index, keys } => {
                        let key = match index {
                            Some(index) => index_column_names(table, index),
                            None => row_id(),
                        };
                        let name = key
                            .first()
                            .map_or_else(String::new, |(name, _)| name.clone());
                        lines.push(format!(
                            "Seek Keys: {name} IN ({})",
                            self.list(keys, &input)
                        ));
                    }
                    AccessPath::VectorSearch(search) => {
                        let crate::plan::VectorSearch {
                            index: _,
                            column,
                            metric,
                            query,
                            query_first: _,
                            limit,
                            offset,
                            filter,
                        } = search.as_ref();
                        let column = table
                            .columns
                            .get(*column)
                            .map_or_else(String::new, |column| column.name.clone());
                        lines.push(format!(
                            "Order By: {column} {} {}",
                            metric.operator(),
                            self.expr(query, &input)
                        ));
                        let offset = offset.as_ref().map_or_else(String::new, |o| {
                            format!(" offset {}", self.expr(o, &input))
                        });
                        lines.push(format!("Rows: {}{offset}", self.expr(limit, &input)));
                        if let Some(filter) = filter {
                            // The filter reads the scan's own output row.
                            let own = scope.with_columns(scan_names(table, columns));
                            lines.push(format!("Search Filter: {}", self.expr(filter, &own)));
                        }
                    }
                    AccessPath::TextSearch(search) => {
                        let names: Vec<&str> = search
                            .index
                            .columns
                            .iter()
                            .filter_map(|(column, _)| table.columns.get(*column))
                            .map(|column| column.name.as_str())
                            .collect();
                        let column = match names.as_slice() {
                            [one] => (*one).to_owned(),
                            many => format!("({})", many.join(", ")),
                        };
                        lines.push(format!(
                            "Full-Text Query: fts_match({column}, {})",
                            self.expr(&search.query, &input)
                        ));
                        if let Some((limit, offset)) = &search.top {
                            let offset = offset.as_ref().map_or_else(String::new, |o| {
                                format!(" offset {}", self.expr(o, &input))
                            });
                            lines.push(format!(
                                "Order By: bm25_score({column}, {}) DESC",
                                self.expr(&search.query, &input)
                            ));
                            lines.push(format!("Rows: {}{offset}", self.expr(limit, &input)));
                        }
                        if let Some(filter) = &search.filter {
                            let own = scope.with_columns(scan_names(table, columns));
                            lines.push(format!("Search Filter: {}", self.expr(filter, &own)));
                        }
                    }
                }
            }
            PlanKind::Filter { predicate, .. } => {
                lines.push(format!("Filter: {}", self.expr(predicate, &input)));
            }
            PlanKind::Project { exprs, .. } => {
                lines.push(format!("Output: {}", self.list(exprs, &input)));
            }
            PlanKind::Aggregate {
                group_by,
                aggregates,
                ..
            } => {
                if !group_by.is_empty() {
                    lines.push(format!("Group Key: {}", self.list(group_by, &input)));
                }
                let calls: Vec<String> = aggregates
                    .iter()
                    .map(|call| self.aggregate(call, group_by, &input))
                    .collect();
                if !calls.is_empty() {
                    lines.push(format!("Aggregates: {}", calls.join(", ")));
                }
            }
            PlanKind::Window {
                partition_by,
                order_by,
                functions,
                ..
            } => {
                if !partition_by.is_empty() {
                    lines.push(format!("Partition By: {}", self.list(partition_by, &input)));
                }
                if !order_by.is_empty() {
                    lines.push(format!("Order By: {}", self.sort_keys(order_by, &input)));
                }
                let calls: Vec<String> = functions
                    .iter()
                    .map(|call| self.window_call(call, &input))
                    .collect();
                lines.push(format!("Functions: {}", calls.join(", ")));
            }
            PlanKind::Sort { keys, .. } => {
                lines.push(format!("Sort Key: {}", self.sort_keys(keys, &input)));
            }
            PlanKind::DistinctOn { keys, .. } => {
                let names = input_names(node);
                let keys: Vec<&str> = keys
                    .iter()
                    .map(|key| names.get(*key).map_or("?", String::as_str))
                    .collect();
                lines.push(format!("Distinct Key: {}", keys.join(", ")));
            }
            PlanKind::TopN {
                keys,
                limit,
                offset,
                ..
            } => {
                lines.push(format!("Sort Key: {}", self.sort_keys(keys, &input)));
                lines.push(format!("Limit: {}", self.expr(limit, &input)));
                if let Some(offset) = offset {
                    lines.push(format!("Offset: {}", self.expr(offset, &input)));
                }
            }
            PlanKind::Limit { limit, offset, .. } => {
                if let Some(limit) = limit {
                    lines.push(format!("Limit: {}", self.expr(limit, &input)));
                }
                if let Some(offset) = offset {
                    lines.push(format!("Offset: {}", self.expr(offset, &input)));
                }
            }
            PlanKind::NestedLoopJoin { condition, .. } => {
                if let Some(condition) = condition {
                    lines.push(format!("Join Filter: {}", self.expr(condition, &input)));
                }
            }
            PlanKind::HashJoin {
                left,
                right,
                left_keys,
                right_keys,
                residual,
                ..
            } => {
                let left_scope = scope.with_columns(output_names(&left.schema));
                let right_scope = scope.with_columns(output_names(&right.schema));
                let pairs: Vec<String> = left_keys
                    .iter()
                    .zip(right_keys)
                    .map(|(l, r)| {
                        format!(
                            "{} = {}",
                            self.expr(l, &left_scope),
                            self.expr(r, &right_scope)
                        )
                    })
                    .collect();
                lines.push(format!("Hash Cond: {}", pairs.join(" AND ")));
                if let Some(residual) = residual {
                    lines.push(format!("Join Filter: {}", self.expr(residual, &input)));
                }
            }
            PlanKind::IndexJoin {
                left,
                table,
                index,
                columns,
                left_keys,
                residual,
                ..
            } => {
                let left_scope = scope.with_columns(output_names(&left.schema));
                let keys = match index {
                    Some(index) => index_column_names(table, index),
                    None => vec![(format!("{}.<row id>", table.name), false)],
                };
                let pairs: Vec<String> = keys
                    .iter()
                    .zip(left_keys)
                    .map(|((key, _), expr)| format!("{key} = {}", self.expr(expr, &left_scope)))
                    .collect();
                lines.push(format!("Seek Key: {}", pairs.join(" AND ")));
                lines.push(format!("Output: {}", read_names(table, columns).join(", ")));
                if let Some(residual) = residual {
                    lines.push(format!("Join Filter: {}", self.expr(residual, &input)));
                }
            }
            PlanKind::GenerateSeries {
                start, stop, step, ..
            } => {
                let mut args = vec![self.expr(start, &input), self.expr(stop, &input)];
                if let Some(step) = step {
                    args.push(self.expr(step, &input));
                }
                lines.push(format!("Arguments: {}", args.join(", ")));
            }
            PlanKind::FunctionScan { args, .. } => {
                lines.push(format!("Arguments: {}", self.list(args, &input)));
            }
            PlanKind::RankFusion { k, weights, .. } => {
                lines.push(format!(
                    "k: {}; weights: {}",
                    self.expr(k, &input),
                    self.list(weights, &input)
                ));
            }
            PlanKind::LateralSubquery { condition, .. } => {
                if let Some(condition) = condition {
                    lines.push(format!("Join Filter: {}", self.expr(condition, &input)));
                }
            }
            PlanKind::Insert {
                table,
                target_columns,
                on_conflict,
                returning,
                ..
            } => {
                let names: Vec<String> = target_columns
                    .iter()
                    .map(|c| column_name(table, *c))
                    .collect();
                lines.push(format!("Columns: {}", names.join(", ")));
                // DO UPDATE reads the existing row, then the proposed one (`excluded`).
                let mut both = table_names(table);
                both.extend(
                    table
                        .columns
                        .iter()
                        .map(|column| format!("excluded.{}", column.name)),
                );
                let both = scope.with_columns(both);
                match on_conflict {
                    ConflictAction::Abort => {}
                    ConflictAction::Ignore => lines.push("On Conflict: do nothing".into()),
                    ConflictAction::IgnoreAnyViolation => {
                        lines.push("On Conflict: ignore (OR IGNORE)".into());
                    }
                    ConflictAction::Replace => lines.push("On Conflict: replace".into()),
                    ConflictAction::Update {
                        target_columns,
                        assignments,
                        condition,
                    } => {
                        let target: Vec<String> = target_columns
                            .iter()
                            .map(|c| column_name(table, *c))
                            .collect();
                        let sets = self.assignments(table, assignments, &both);
                        let mut line =
                            format!("On Conflict ({}): do update set {sets}", target.join(", "));
                        if let Some(condition) = condition {
                            line.push_str(&format!(" where {}", self.expr(condition, &both)));
                        }
                        lines.push(line);
                    }
                }
                self.returning(returning, &input, &mut lines);
            }
            PlanKind::Update {
                table,
                assignments,
                returning,
                ..
            } => {
                let sets = self.assignments(table, assignments, &input);
                lines.push(format!("Set: {sets}"));
                let row = scope.with_columns(table_names(table));
                self.returning(returning, &row, &mut lines);
            }
            PlanKind::Delete {
                table, returning, ..
            } => {
                let row = scope.with_columns(table_names(table));
                self.returning(returning, &row, &mut lines);
            }
        }
        lines
    }

    fn returning(&mut self, returning: &'a [Expr], scope: &Scope, lines: &mut Vec<String>) {
        if !returning.is_empty() {
            lines.push(format!("Returning: {}", self.list(returning, scope)));
        }
    }

    fn assignments(
        &mut self,
        table: &TableDef,
        assignments: &'a [(usize, Expr)],
        scope: &Scope,
    ) -> String {
        assignments
            .iter()
            .map(|(column, expr)| {
                format!(
                    "{} = {}",
                    column_name(table, *column),
                    self.expr(expr, scope)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A range over `keys` (name, descending; the bounds are prefixes of them), as
    /// comparisons.
    fn range(
        &mut self,
        keys: &[(String, bool)],
        lower: &'a RangeBound,
        upper: &'a RangeBound,
        scope: &Scope,
    ) -> Option<String> {
        let values = |bound: &'a RangeBound| match bound {
            RangeBound::Unbounded => None,
            RangeBound::Included(values) => Some((values, true)),
            RangeBound::Excluded(values) => Some((values, false)),
        };
        let (low, high) = (values(lower), values(upper));
        if let (Some((low, true)), Some((high, true))) = (low, high)
            && low == high
        {
            return Some(self.comparison(keys, low, Comparison::Equal, scope));
        }
        let mut parts = Vec::new();
        if let Some((values, inclusive)) = low {
            let comparison = Comparison::Lower { inclusive };
            parts.push(self.comparison(keys, values, comparison, scope));
        }
        if let Some((values, inclusive)) = high {
            let comparison = Comparison::Upper { inclusive };
            parts.push(self.comparison(keys, values, comparison, scope));
        }
        (!parts.is_empty()).then(|| parts.join(" AND "))
    }

    /// One bound as SQL. A range runs in index order, so over DESC columns its lower bound
    /// is the larger value: the operator is turned around when every column of the bound
    /// is DESC, and a tuple mixing orders marks its DESC columns (and compares in index
    /// order).
    fn comparison(
        &mut self,
        keys: &[(String, bool)],
        values: &'a [Expr],
        comparison: Comparison,
        scope: &Scope,
    ) -> String {
        let keys = &keys[..values.len().min(keys.len())];
        let all_descending = keys.iter().all(|(_, descending)| *descending);
        let mixed = !all_descending && keys.iter().any(|(_, descending)| *descending);
        let op = comparison.operator(all_descending);
        let names: Vec<String> = keys
            .iter()
            .map(|(name, descending)| {
                if mixed && *descending {
                    format!("{name} DESC")
                } else {
                    name.clone()
                }
            })
            .collect();
        if values.len() == 1 {
            format!("{} {op} {}", names.join(", "), self.expr(&values[0], scope))
        } else {
            format!("({}) {op} ({})", names.join(", "), self.list(values, scope))
        }
    }

    fn list(&mut self, exprs: &'a [Expr], scope: &Scope) -> String {
        exprs
            .iter()
            .map(|expr| self.expr(expr, scope))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn sort_keys(&mut self, keys: &'a [SortKey], scope: &Scope) -> String {
        keys.iter()
            .map(|key| {
                format!(
                    "{}{}{}",
                    self.expr(&key.expr, scope),
                    if key.descending { " DESC" } else { "" },
                    if key.nulls_first {
                        " NULLS FIRST"
                    } else {
                        " NULLS LAST"
                    }
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn aggregate(
        &mut self,
        call: &'a AggregateCall,
        group_by: &'a [Expr],
        scope: &Scope,
    ) -> String {
        if call.function.is_ordered_set() {
            // The direct arguments read the group keys: shown as the keys' expressions.
            let keys = Scope {
                columns: group_by.iter().map(|key| self.expr(key, scope)).collect(),
                outer: scope.outer.clone(),
            };
            let direct: Vec<String> = call
                .direct_args
                .iter()
                .map(|arg| self.expr(arg, &keys))
                .collect();
            let mut text = format!(
                "{}({}) WITHIN GROUP (ORDER BY {})",
                call.function.name(),
                direct.join(", "),
                self.sort_keys(&call.order_by, scope)
            );
            if let Some(filter) = &call.filter {
                text.push_str(&format!(" FILTER (WHERE {})", self.expr(filter, scope)));
            }
            return text;
        }
        let args = if call.args.is_empty() {
            "*".to_string()
        } else {
            self.list(&call.args, scope)
        };
        let order = if call.order_by.is_empty() {
            String::new()
        } else {
            format!(" ORDER BY {}", self.sort_keys(&call.order_by, scope))
        };
        let mut text = format!(
            "{}({}{args}{order})",
            call.function.name(),
            if call.distinct { "DISTINCT " } else { "" }
        );
        if let Some(filter) = &call.filter {
            text.push_str(&format!(" FILTER (WHERE {})", self.expr(filter, scope)));
        }
        text
    }

    fn window_call(&mut self, call: &'a WindowCall, scope: &Scope) -> String {
        let mut text = format!(
            "{}({})",
            window_function_name(call.function),
            self.list(&call.args, scope)
        );
        if let Some(filter) = &call.filter {
            text.push_str(&format!(" FILTER (WHERE {})", self.expr(filter, scope)));
        }
        text.push_str(&format!(" {}", self.frame(&call.frame, scope)));
        text
    }

    fn frame(&mut self, frame: &'a WindowFrame, scope: &Scope) -> String {
        let units = match frame.units {
            FrameUnits::Rows => "ROWS",
            FrameUnits::Range => "RANGE",
            FrameUnits::Groups => "GROUPS",
        };
        let start = self.frame_bound(&frame.start, scope);
        let end = self.frame_bound(&frame.end, scope);
        format!("{units} BETWEEN {start} AND {end}")
    }

    fn frame_bound(&mut self, bound: &'a FrameBound, scope: &Scope) -> String {
        match bound {
            FrameBound::UnboundedPreceding => "UNBOUNDED PRECEDING".into(),
            FrameBound::Preceding(offset) => format!("{} PRECEDING", self.expr(offset, scope)),
            FrameBound::CurrentRow => "CURRENT ROW".into(),
            FrameBound::Following(offset) => format!("{} FOLLOWING", self.expr(offset, scope)),
            FrameBound::UnboundedFollowing => "UNBOUNDED FOLLOWING".into(),
        }
    }

    /// A subquery's placeholder, recording its plan for printing below the node.
    fn subplan(&mut self, plan: &'a PlanNode, scope: &Scope) -> String {
        *self.next_subplan += 1;
        let number = *self.next_subplan;
        self.subplans.push(SubPlan {
            number,
            plan,
            scope: scope.entering_subquery(),
        });
        format!("(SubPlan {number})")
    }

    /// An operand of an operator: parenthesized unless it binds tighter than any operator.
    fn operand(&mut self, expr: &'a Expr, scope: &Scope) -> String {
        let text = self.expr(expr, scope);
        match expr {
            Expr::Binary { .. }
            | Expr::IsNull { .. }
            | Expr::IsDistinctFrom { .. }
            | Expr::InList { .. }
            | Expr::Like { .. }
            | Expr::InSubquery { .. }
            | Expr::Unary {
                op: UnaryOp::Not, ..
            } => format!("({text})"),
            _ => text,
        }
    }

    fn expr(&mut self, expr: &'a Expr, scope: &Scope) -> String {
        match expr {
            Expr::Column { index, .. } => scope
                .columns
                .get(*index)
                .cloned()
                .unwrap_or_else(|| format!("#{index}")),
            Expr::OuterColumn { depth, index, .. } => scope
                .outer
                .len()
                .checked_sub(*depth)
                .and_then(|level| scope.outer.get(level))
                .and_then(|row| row.get(*index))
                .map_or_else(
                    || format!("outer{depth}.#{index}"),
                    |name| format!("outer.{name}"),
                ),
            Expr::Literal { value, .. } => literal(value),
            Expr::Parameter { index, .. } => format!("${}", index + 1),
            Expr::Unary { op, operand, .. } => {
                let operand = self.operand(operand, scope);
                match op {
                    UnaryOp::Not => format!("NOT {operand}"),
                    UnaryOp::Negate => format!("-{operand}"),
                    UnaryOp::Plus => format!("+{operand}"),
                    UnaryOp::BitNot => format!("~{operand}"),
                }
            }
            Expr::Binary {
                op, left, right, ..
            } => {
                let (left, right) = (self.operand(left, scope), self.operand(right, scope));
                format!("{left} {} {right}", binary_symbol(*op))
            }
            Expr::Cast { operand, to } => format!("CAST({} AS {to})", self.expr(operand, scope)),
            Expr::IsNull { operand, negated } => format!(
                "{} IS {}NULL",
                self.operand(operand, scope),
                if *negated { "NOT " } else { "" }
            ),
            Expr::IsDistinctFrom {
                left,
                right,
                negated,
            } => format!(
                "{} IS {}DISTINCT FROM {}",
                self.operand(left, scope),
                if *negated { "NOT " } else { "" },
                self.operand(right, scope)
            ),
            Expr::InList {
                operand,
                list,
                negated,
            } => format!(
                "{} {}IN ({})",
                self.operand(operand, scope),
                if *negated { "NOT " } else { "" },
                self.list(list, scope)
            ),
            Expr::Like {
                operand,
                pattern,
                escape,
                negated,
                case_insensitive,
                glob,
            } => {
                let word = match (glob, case_insensitive) {
                    (true, _) => "GLOB",
                    (false, true) => "ILIKE",
                    (false, false) => "LIKE",
                };
                let mut text = format!(
                    "{} {}{word} {}",
                    self.operand(operand, scope),
                    if *negated { "NOT " } else { "" },
                    self.operand(pattern, scope)
                );
                if let Some(escape) = escape {
                    text.push_str(&format!(" ESCAPE {}", self.operand(escape, scope)));
                }
                text
            }
            Expr::Case {
                operand,
                branches,
                else_result,
                ..
            } => {
                let mut text = "CASE".to_string();
                if let Some(operand) = operand {
                    text.push_str(&format!(" {}", self.expr(operand, scope)));
                }
                for (when, then) in branches {
                    text.push_str(&format!(
                        " WHEN {} THEN {}",
                        self.expr(when, scope),
                        self.expr(then, scope)
                    ));
                }
                if let Some(otherwise) = else_result {
                    text.push_str(&format!(" ELSE {}", self.expr(otherwise, scope)));
                }
                text.push_str(" END");
                text
            }
            Expr::Coalesce { args, .. } => format!("COALESCE({})", self.list(args, scope)),
            Expr::Function { function, args, .. } => {
                format!("{}({})", function.name, self.list(args, scope))
            }
            Expr::CurrentTimestamp => "CURRENT_TIMESTAMP".into(),
            Expr::CurrentDate => "CURRENT_DATE".into(),
            Expr::Sequence {
                operation,
                sequence,
                args,
            } => {
                let name = match operation {
                    SequenceOperation::Next => "nextval",
                    SequenceOperation::Current => "currval",
                    SequenceOperation::Set => "setval",
                };
                let mut text = format!("{name}('{}'", sequence.name.replace('\'', "''"));
                for arg in args {
                    text.push_str(&format!(", {}", self.expr(arg, scope)));
                }
                text.push(')');
                text
            }
            Expr::ScalarSubquery { plan, .. } => self.subplan(plan, scope),
            Expr::Exists { plan, negated } => format!(
                "{}EXISTS {}",
                if *negated { "NOT " } else { "" },
                self.subplan(plan, scope)
            ),
            Expr::InSubquery {
                operand,
                plan,
                negated,
                quantifier,
            } => {
                let operand = self.operand(operand, scope);
                match quantifier {
                    None => format!(
                        "{operand} {}IN {}",
                        if *negated { "NOT " } else { "" },
                        self.subplan(plan, scope)
                    ),
                    Some(quantifier) => format!(
                        "{operand} {} {} {}",
                        crate::plan::expr::comparison_symbol(quantifier.op),
                        if quantifier.all { "ALL" } else { "ANY" },
                        self.subplan(plan, scope)
                    ),
                }
            }
        }
    }
}

fn binary_symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Subtract => "-",
        BinaryOp::Multiply => "*",
        BinaryOp::Divide => "/",
        BinaryOp::Remainder => "%",
        BinaryOp::Concat => "||",
        BinaryOp::Equal => "=",
        BinaryOp::NotEqual => "<>",
        BinaryOp::Less => "<",
        BinaryOp::LessOrEqual => "<=",
        BinaryOp::Greater => ">",
        BinaryOp::GreaterOrEqual => ">=",
        BinaryOp::And => "AND",
        BinaryOp::Or => "OR",
        BinaryOp::BitAnd => "&",
        BinaryOp::BitOr => "|",
        BinaryOp::BitXor => "#",
        BinaryOp::ShiftLeft => "<<",
        BinaryOp::ShiftRight => ">>",
    }
}

/// A constant as a SQL literal: numbers and booleans bare, everything else quoted and typed
/// where the text alone would not say the type.
fn literal(value: &Value) -> String {
    let quoted = |text: String| format!("'{}'", text.replace('\'', "''"));
    match value {
        Value::Null => "NULL".into(),
        Value::Boolean(_) | Value::Integer(_) | Value::Real(_) | Value::Numeric(_) => {
            value.to_string()
        }
        Value::Text(_) | Value::Json(_) | Value::Jsonb(_) => quoted(value.to_string()),
        Value::Blob(_) => format!("{}::bytea", quoted(value.to_string())),
        Value::Date(_) => format!("DATE {}", quoted(value.to_string())),
        Value::Timestamp(_) => format!("TIMESTAMP {}", quoted(value.to_string())),
        Value::TimestampTz(_) => format!("TIMESTAMPTZ {}", quoted(value.to_string())),
        Value::Time(_) => format!("TIME {}", quoted(value.to_string())),
        Value::Interval(_) => format!("INTERVAL {}", quoted(value.to_string())),
        Value::Uuid(_) => format!("{}::uuid", quoted(value.to_string())),
        Value::Vector(_) => format!("{}::vector", quoted(value.to_string())),
        Value::Array(array) => format!("{}::{}", quoted(value.to_string()), array.data_type()),
    }
}

fn column_name(table: &TableDef, column: usize) -> String {
    table
        .columns
        .get(column)
        .map_or_else(|| format!("<column {column}>"), |c| c.name.clone())
}

/// The key columns of `index` as qualified names, each with whether it is DESC.
fn index_column_names(table: &TableDef, index: &IndexDef) -> Vec<(String, bool)> {
    index
        .columns
        .iter()
        .map(|(column, order)| {
            let name = format!("{}.{}", table.name, column_name(table, *column));
            (name, order.descending)
        })
        .collect()
}

/// Which bound of a range a comparison states.
#[derive(Clone, Copy)]
enum Comparison {
    Equal,
    Lower { inclusive: bool },
    Upper { inclusive: bool },
}

impl Comparison {
    /// The SQL operator, for a bound over ascending columns or (`descending`) over DESC ones.
    fn operator(self, descending: bool) -> &'static str {
        match (self, descending) {
            (Comparison::Equal, _) => "=",
            (Comparison::Lower { inclusive: true }, false)
            | (Comparison::Upper { inclusive: true }, true) => ">=",
            (Comparison::Lower { inclusive: false }, false)
            | (Comparison::Upper { inclusive: false }, true) => ">",
            (Comparison::Lower { inclusive: true }, true)
            | (Comparison::Upper { inclusive: true }, false) => "<=",
            (Comparison::Lower { inclusive: false }, true)
            | (Comparison::Upper { inclusive: false }, false) => "<",
        }
    }
}
