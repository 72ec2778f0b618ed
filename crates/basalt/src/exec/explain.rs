//! EXPLAIN, EXPLAIN ANALYZE and EXPLAIN VERBOSE: a plan as indented text, one operator per
//! line, and — after an instrumented run — the rows each operator produced and the time spent
//! in it; with VERBOSE, each operator's estimated rows and details (`explain_verbose`).
//!
//! Instrumentation is opt-in per execution: when [`ExecContext::profile`] is set,
//! `operators::build` wraps every operator it creates in a [`Profiled`] operator that times
//! each `next` call and counts rows, keyed by the address of the plan node it came from (the
//! plan outlives the execution, so addresses are stable). Times are inclusive of the
//! operator's inputs, as in PostgreSQL; "loops" counts how many times an operator was built,
//! which is more than one for the plans of correlated subqueries.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::plan::{AccessPath, PlanKind, PlanNode, RangeBound};

use super::batch::Batch;
use super::context::ExecContext;
use super::error::ExecResult;
use super::explain_verbose::{Scope, node_details};
use super::operators::Operator;
use super::spill::SpillStats;

/// What an instrumented run measured for one plan node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperatorStats {
    pub rows: u64,
    pub time: Duration,
    pub loops: u64,
    /// Written to spill files while the operator (or its inputs) ran; the plan text shows
    /// each operator's own share.
    pub spilled: SpillStats,
}

/// Statistics of an instrumented run, by plan node address.
pub type Profile = HashMap<usize, OperatorStats>;

/// The key of `node` in a [`Profile`].
pub fn node_key(node: &PlanNode) -> usize {
    node as *const PlanNode as usize
}

/// Wraps an operator to record its rows and time in the context's profile.
#[derive(Debug)]
pub struct Profiled {
    inner: Box<dyn Operator>,
    node: usize,
}

impl Profiled {
    /// `inner`, built for `node`, recording into `ctx`'s profile.
    pub fn wrap(inner: Box<dyn Operator>, node: &PlanNode, ctx: &ExecContext) -> Box<dyn Operator> {
        let key = node_key(node);
        if let Some(profile) = &ctx.profile {
            profile.borrow_mut().entry(key).or_default().loops += 1;
        }
        Box::new(Profiled { inner, node: key })
    }
}

impl Operator for Profiled {
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        let started = Instant::now();
        let spilled_before = ctx.spilled.get();
        let result = self.inner.next(ctx);
        let elapsed = started.elapsed();
        let spilled = ctx.spilled.get().minus(spilled_before);
        if let Some(profile) = &ctx.profile {
            let mut profile = profile.borrow_mut();
            let stats = profile.entry(self.node).or_default();
            stats.time += elapsed;
            stats.spilled = stats.spilled.plus(spilled);
            if let Ok(Some(batch)) = &result {
                stats.rows += batch.rows as u64;
            }
        }
        result
    }
}

/// How much EXPLAIN prints.
#[derive(Clone, Copy, Default)]
pub struct ExplainOptions<'a> {
    /// What an instrumented run measured (EXPLAIN ANALYZE).
    pub profile: Option<&'a Profile>,
    /// Each node's details below it: predicates, keys, bounds, projections (EXPLAIN VERBOSE).
    pub verbose: bool,
    /// The optimizer's row estimate of a node, shown with VERBOSE.
    pub estimate: Option<&'a dyn Fn(&PlanNode) -> f64>,
    /// `hnsw.exact_search` is on: a vector search node reads the whole table instead of its
    /// index when it runs, and EXPLAIN says so rather than naming the index.
    pub exact_vector_search: bool,
}

impl std::fmt::Debug for ExplainOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExplainOptions")
            .field("profile", &self.profile.is_some())
            .field("verbose", &self.verbose)
            .field("estimate", &self.estimate.is_some())
            .field("exact_vector_search", &self.exact_vector_search)
            .finish()
    }
}

/// The plan as indented text, as `options` asks. A node's lines are indented two spaces per
/// level; with VERBOSE its details follow it four spaces deeper than the node, and the plans
/// of subqueries in its expressions follow its inputs as `SubPlan N` entries.
pub fn explain_with(node: &PlanNode, options: &ExplainOptions<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut next_subplan = 0;
    walk(
        node,
        0,
        options,
        &Scope::default(),
        &mut next_subplan,
        &mut out,
    );
    out
}

fn walk(
    node: &PlanNode,
    depth: usize,
    options: &ExplainOptions<'_>,
    scope: &Scope,
    next_subplan: &mut usize,
    out: &mut Vec<String>,
) {
    let indent = "  ".repeat(depth);
    let mut line = format!("{indent}{}", label(&node.kind, options));
    if options.verbose
        && let Some(estimate) = options.estimate
    {
        line.push_str(&format!("  (estimated rows={})", estimate(node).round()));
    }
    if let Some(profile) = options.profile {
        push_measurements(node, profile, &mut line);
    }
    out.push(line);
    let subplans = if options.verbose {
        let (details, subplans) = node_details(node, scope, next_subplan);
        out.extend(
            details
                .into_iter()
                .map(|detail| format!("{indent}    {detail}")),
        );
        subplans
    } else {
        Vec::new()
    };
    for child in node.kind.children() {
        walk(child, depth + 1, options, scope, next_subplan, out);
    }
    for subplan in subplans {
        out.push(format!("{indent}  SubPlan {}", subplan.number));
        walk(
            subplan.plan,
            depth + 2,
            options,
            &subplan.scope,
            next_subplan,
            out,
        );
    }
}

/// Appends what an instrumented run measured for `node` to its line.
fn push_measurements(node: &PlanNode, profile: &Profile, line: &mut String) {
    match profile.get(&node_key(node)) {
        Some(stats) => {
            line.push_str(&format!(
                "  (actual rows={} loops={} time={:.3} ms",
                stats.rows,
                stats.loops,
                stats.time.as_secs_f64() * 1000.0
            ));
            // Spilling is counted inclusive of the inputs, like time; show the operator's
            // own.
            let own = node
                .kind
                .children()
                .into_iter()
                .fold(stats.spilled, |own, child| {
                    own.minus(
                        profile
                            .get(&node_key(child))
                            .map_or_else(SpillStats::default, |c| c.spilled),
                    )
                });
            if !own.is_empty() {
                line.push_str(&format!(
                    " spilled={}kB files={}",
                    own.bytes.div_ceil(1024),
                    own.files
                ));
            }
            line.push(')');
        }
        None => line.push_str("  (never executed)"),
    }
}

fn label(kind: &PlanKind, options: &ExplainOptions<'_>) -> String {
    match kind {
        PlanKind::SingleRow => "Result".into(),
        PlanKind::Values { rows } => format!("Values ({} rows)", rows.len()),
        PlanKind::Scan {
            table,
            access,
            reverse,
            ..
        } => {
            let backward = if *reverse { " Backward" } else { "" };
            match access {
                AccessPath::Full => format!("Table Scan{backward} on {}", table.name),
                AccessPath::RowIdRange { .. } => {
                    format!("Table Scan{backward} on {} (row id range)", table.name)
                }
                AccessPath::IndexRange {
                    index,
                    lower,
                    upper,
                } => format!(
                    "Index Scan{backward} using {} on {} ({})",
                    index.name,
                    table.name,
                    describe_index_range(lower, upper)
                ),
                AccessPath::Seeks { index: None, keys } => {
                    format!("Row Id Seeks on {} ({})", table.name, seek_keys(keys))
                }
                AccessPath::VectorSearch(search) => match &search.index {
                    None => format!("Exact Vector Search on {}", table.name),
                    Some(index) if options.exact_vector_search => format!(
                        "Exact Vector Search on {} (hnsw.exact_search is on; {} not used)",
                        table.name, index.name
                    ),
                    Some(index) => {
                        format!(
                            "Vector Search using {} on {} (hnsw)",
                            index.name, table.name
                        )
                    }
                },
                AccessPath::TextSearch(search) => match &search.top {
                    None => format!(
                        "Full-Text Search using {} on {} (fts)",
                        search.index.name, table.name
                    ),
                    Some(_) => format!(
                        "Full-Text Top-K Search using {} on {} (fts, block-max WAND)",
                        search.index.name, table.name
                    ),
                },
                AccessPath::Seeks {
                    index: Some(index),
                    keys,
                } => format!(
                    "Index Seeks using {} on {} ({})",
                    index.name,
                    table.name,
                    seek_keys(keys)
                ),
            }
        }
        PlanKind::Filter { .. } => "Filter".into(),
        PlanKind::Project { exprs, .. } => format!("Project ({} columns)", exprs.len()),
        PlanKind::Aggregate {
            group_by,
            aggregates,
            ..
        } => format!(
            "Hash Aggregate ({} keys, {} aggregates)",
            group_by.len(),
            aggregates.len()
        ),
        PlanKind::Window {
            partition_by,
            order_by,
            functions,
            ..
        } => format!(
            "Window ({} partition keys, {} order keys, {} functions)",
            partition_by.len(),
            order_by.len(),
            functions.len()
        ),
        PlanKind::Sort { keys, .. } => format!("Sort ({} keys)", keys.len()),
        PlanKind::TopN { keys, .. } => format!("Top-N Sort ({} keys)", keys.len()),
        PlanKind::Limit { .. } => "Limit".into(),
        PlanKind::Distinct { .. } => "Distinct".into(),
        PlanKind::DistinctOn { keys, .. } => format!("Distinct On ({} keys)", keys.len()),
        PlanKind::NestedLoopJoin { kind, .. } => format!("Nested Loop {kind:?} Join"),
        PlanKind::HashJoin {
            kind,
            left_keys,
            residual,
            ..
        } => format!(
            "Hash {kind:?} Join ({} key{}{})",
            left_keys.len(),
            if left_keys.len() == 1 { "" } else { "s" },
            if residual.is_some() { ", residual" } else { "" }
        ),
        PlanKind::IndexJoin {
            table,
            index,
            kind,
            left_keys,
            residual,
            ..
        } => format!(
            "Index {kind:?} Join on {} using {} ({} key{}{})",
            table.name,
            index.as_ref().map_or("row id", |index| index.name.as_str()),
            left_keys.len(),
            if left_keys.len() == 1 { "" } else { "s" },
            if residual.is_some() { ", residual" } else { "" }
        ),
        PlanKind::SetOperation { operator, all, .. } => {
            format!("{operator:?}{}", if *all { " All" } else { "" })
        }
        PlanKind::RecursiveUnion {
            working_table, all, ..
        } => format!(
            "Recursive Union{} (working table {working_table})",
            if *all { " All" } else { "" }
        ),
        PlanKind::WorkingTableScan { working_table } => {
            format!("Working Table Scan (working table {working_table})")
        }
        PlanKind::GenerateSeries { .. } => "Function Scan on generate_series".into(),
        PlanKind::FunctionScan { function, .. } => format!("Function Scan on {function}"),
        PlanKind::RankFusion { branches, .. } => match branches.len() {
            1 => "Rank Fusion (rrf) of 1 ranked query".to_string(),
            count => format!("Rank Fusion (rrf) of {count} ranked queries"),
        },
        PlanKind::LateralSubquery { outer: false, .. } => "Lateral Subquery".to_string(),
        PlanKind::LateralSubquery { outer: true, .. } => "Lateral Subquery (left)".to_string(),
        PlanKind::Insert { table, .. } => format!("Insert on {}", table.name),
        PlanKind::Update { table, .. } => format!("Update on {}", table.name),
        PlanKind::Delete { table, .. } => format!("Delete on {}", table.name),
    }
}

/// How an index scan's bounds read in EXPLAIN: how many leading key columns are fixed by
/// equalities, then which ends of the next column's range are bounded.
fn describe_index_range(lower: &RangeBound, upper: &RangeBound) -> String {
    let key = |bound: &RangeBound| match bound {
        RangeBound::Unbounded => Vec::new(),
        RangeBound::Included(key) | RangeBound::Excluded(key) => key.clone(),
    };
    let (low, high) = (key(lower), key(upper));
    let equal = if lower == upper {
        low.len()
    } else {
        low.iter().zip(&high).take_while(|(a, b)| a == b).count()
    };
    let mut parts = Vec::new();
    if equal > 0 {
        parts.push(format!(
            "{equal} key column{} equal",
            if equal == 1 { "" } else { "s" }
        ));
    }
    match (low.len() > equal, high.len() > equal) {
        (true, true) => parts.push("range".to_string()),
        (true, false) => parts.push("lower bound".to_string()),
        (false, true) => parts.push("upper bound".to_string()),
        (false, false) => {}
    }
    if parts.is_empty() {
        "full".to_string()
    } else {
        parts.join(", ")
    }
}

/// How many keys a seek scan has: a count, or the elements of one array (`= ANY ($1)`).
fn seek_keys(keys: &[crate::plan::Expr]) -> String {
    match keys {
        [array] if array.data_type().is_array() => "the elements of an array".to_owned(),
        _ => format!("{} keys", keys.len()),
    }
}
