//! Operators: the executable form of plan nodes.
//!
//! Each operator pulls batches from its inputs and produces batches (`next` returns `None`
//! when it is exhausted). Operators are built fresh for every execution of a prepared plan
//! by [`build`], so they may keep any per-execution state; the plan itself is immutable.

mod aggregate;
mod basic;
pub mod external_sort;
mod function_scan;
mod hash_join;
mod join;
mod json_aggregate;
mod lateral;
mod leaf_filter;
mod ordered_set;
mod rank_fusion;
mod recursive;
mod scan;
mod series;
mod setop;
pub mod sort;
#[cfg(test)]
mod spill_tests;
mod text_scan;
mod vector_exact;
mod vector_scan;
mod window;

pub use scan::encode_key_value;

use super::batch::Batch;
use super::context::ExecContext;
use super::error::{ExecError, ExecResult};
use crate::plan::{PlanKind, PlanNode};

/// An input that replays batches: the leaf of operator tests.
#[cfg(test)]
#[derive(Debug)]
pub(super) struct Replay(pub(super) std::collections::VecDeque<Batch>);

#[cfg(test)]
impl Operator for Replay {
    fn next(&mut self, _ctx: &ExecContext) -> ExecResult<Option<Batch>> {
        Ok(self.0.pop_front())
    }
}

/// A source of batches.
pub trait Operator: std::fmt::Debug + Send {
    /// The next batch, or `None` when there are no more rows. Batches may be empty.
    fn next(&mut self, ctx: &ExecContext) -> ExecResult<Option<Batch>>;

    /// Whether [`Operator::rewind`] can restart this operator and everything under it.
    /// Asked before rewinding, so a tree that cannot be rewound is left untouched (and built
    /// anew by the caller). Only what a recursive union's recursive term commonly holds says
    /// yes; the rest keeps this default.
    fn rewindable(&self) -> bool {
        false
    }

    /// Restarts the operator to produce its rows again from the start, re-reading its
    /// inputs, as if it were built anew from its plan node (the recursive union's next
    /// evaluation, whose working table scan reads the new working table). Called only when
    /// [`Operator::rewindable`] said yes.
    fn rewind(&mut self, _ctx: &ExecContext) -> ExecResult<()> {
        Err(crate::exec::error::ExecError::internal(
            "an operator that cannot be rewound was rewound",
        ))
    }
}

/// Builds the operator tree for `node` (instrumented when the context collects a profile).
pub fn build(node: &PlanNode, ctx: &ExecContext) -> ExecResult<Box<dyn Operator>> {
    let operator = build_operator(node, ctx)?;
    Ok(match ctx.profile {
        Some(_) => crate::exec::explain::Profiled::wrap(operator, node, ctx),
        None => operator,
    })
}

fn build_operator(node: &PlanNode, ctx: &ExecContext) -> ExecResult<Box<dyn Operator>> {
    let types: Vec<_> = node.schema.iter().map(|column| column.data_type).collect();
    Ok(match &node.kind {
        PlanKind::SingleRow => Box::new(basic::SingleRow::default()),
        PlanKind::Values { rows } => Box::new(basic::ValuesOperator::new(rows.clone(), types)),
        PlanKind::Scan {
            table,
            columns,
            access,
            reverse,
        } => scan::build_scan(table, columns, access, *reverse, ctx)?,
        PlanKind::Filter { input, predicate } => {
            // A forward table scan right below tests the filter's simple conjuncts inside
            // its leaves; the filter still evaluates the whole predicate on what comes up.
            let filtered = match &input.kind {
                PlanKind::Scan {
                    table,
                    columns,
                    access,
                    reverse: false,
                } => scan::build_filtered_scan(table, columns, access, predicate, ctx)?,
                _ => None,
            };
            let input = match filtered {
                Some(scan) => match ctx.profile {
                    Some(_) => crate::exec::explain::Profiled::wrap(scan, input, ctx),
                    None => scan,
                },
                None => build(input, ctx)?,
            };
            Box::new(basic::Filter::new(input, predicate.clone()))
        }
        PlanKind::Project { input, exprs } => {
            Box::new(basic::Project::new(build(input, ctx)?, exprs.clone()))
        }
        PlanKind::Limit {
            input,
            limit,
            offset,
        } => Box::new(basic::Limit::new(
            build(input, ctx)?,
            limit.as_ref(),
            offset.as_ref(),
            ctx,
        )?),
        PlanKind::Sort { input, keys } => {
            Box::new(sort::Sort::new(build(input, ctx)?, keys.clone(), types))
        }
        PlanKind::Window {
            input,
            partition_by,
            order_by,
            functions,
        } => window_operator(input, partition_by, order_by, functions, types, ctx)?,
        PlanKind::TopN {
            input,
            keys,
            limit,
            offset,
        } => Box::new(sort::TopN::new(
            build(input, ctx)?,
            keys.clone(),
            limit,
            offset.as_ref(),
            types,
            ctx,
        )?),
        PlanKind::DistinctOn { input, keys } => {
            Box::new(basic::DistinctOn::new(build(input, ctx)?, keys.clone()))
        }
        PlanKind::Distinct { input } => Box::new(setop::SetOperation::distinct(
            build(input, ctx)?,
            types,
            ctx.operator_memory,
        )),
        PlanKind::Aggregate {
            input,
            group_by,
            aggregates,
        } => Box::new(aggregate::HashAggregate::new(
            build(input, ctx)?,
            group_by.clone(),
            aggregates.clone(),
            types,
            input.schema.iter().map(|c| c.data_type).collect(),
        )),
        PlanKind::NestedLoopJoin {
            left,
            right,
            kind,
            condition,
        } => Box::new(join::NestedLoopJoin::new(
            build(left, ctx)?,
            build(right, ctx)?,
            *kind,
            condition.clone(),
            left.schema.iter().map(|c| c.data_type).collect(),
            right.schema.iter().map(|c| c.data_type).collect(),
        )),
        PlanKind::HashJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            residual,
        } => Box::new(hash_join::HashJoin::new(
            build(left, ctx)?,
            build(right, ctx)?,
            *kind,
            left_keys.clone(),
            right_keys.clone(),
            residual.clone(),
            left.schema.iter().map(|c| c.data_type).collect(),
            right.schema.iter().map(|c| c.data_type).collect(),
        )),
        PlanKind::IndexJoin {
            left,
            table,
            index,
            columns,
            kind,
            left_keys,
            residual,
        } => Box::new(join::IndexJoin::new(
            build(left, ctx)?,
            table.clone(),
            index.clone(),
            columns.clone(),
            *kind,
            left_keys.clone(),
            residual.clone(),
            left.schema.iter().map(|c| c.data_type).collect(),
            ctx,
        )?),
        PlanKind::SetOperation {
            operator,
            all,
            left,
            right,
        } => Box::new(setop::SetOperation::new(
            build(left, ctx)?,
            build(right, ctx)?,
            *operator,
            *all,
            types,
            ctx.operator_memory,
        )),
        PlanKind::RecursiveUnion {
            working_table,
            all,
            base,
            recursive,
        } => Box::new(recursive::RecursiveUnion::new(
            build(base, ctx)?,
            std::sync::Arc::clone(recursive),
            *working_table,
            *all,
        )),
        PlanKind::RankFusion {
            branches,
            k,
            weights,
        } => {
            let mut operators = Vec::with_capacity(branches.len());
            for branch in branches {
                operators.push(build(branch, ctx)?);
            }
            Box::new(rank_fusion::RankFusion::new(
                operators,
                k.clone(),
                weights.clone(),
                types
                    .first()
                    .copied()
                    .unwrap_or(crate::types::DataType::Null),
            ))
        }
        PlanKind::WorkingTableScan { .. } => Box::new(recursive::WorkingTableScan::new(node, ctx)?),
        PlanKind::GenerateSeries {
            input,
            start,
            stop,
            step,
        } => Box::new(series::GenerateSeries::new(
            build(input, ctx)?,
            start.clone(),
            stop.clone(),
            step.clone(),
        )),
        PlanKind::FunctionScan {
            input,
            function,
            args,
        } => Box::new(function_scan::FunctionScan::new(
            build(input, ctx)?,
            function,
            args.clone(),
            node.schema.iter().map(|column| column.data_type).collect(),
        )?),
        PlanKind::LateralSubquery {
            input,
            subquery,
            outer,
            condition,
        } => Box::new(lateral::LateralSubquery::new(
            build(input, ctx)?,
            (**subquery).clone(),
            *outer,
            condition.clone(),
            types.clone(),
        )),
        PlanKind::Insert { .. } | PlanKind::Update { .. } | PlanKind::Delete { .. } => {
            return Err(ExecError::internal(
                "a modification cannot be nested inside a query",
            ));
        }
    })
}

/// A window operator over its input sorted by (partition keys, order keys) with the spilling
/// sort; the partition keys' direction is arbitrary, it only has to bring equal keys together.
fn window_operator(
    input: &PlanNode,
    partition_by: &[crate::plan::Expr],
    order_by: &[crate::plan::SortKey],
    functions: &[crate::plan::WindowCall],
    types: Vec<crate::types::DataType>,
    ctx: &ExecContext,
) -> ExecResult<Box<dyn Operator>> {
    let input_types: Vec<_> = input.schema.iter().map(|c| c.data_type).collect();
    let mut keys: Vec<crate::plan::SortKey> = partition_by
        .iter()
        .map(|expr| crate::plan::SortKey {
            expr: expr.clone(),
            descending: false,
            nulls_first: false,
        })
        .collect();
    keys.extend(order_by.iter().cloned());
    let mut sorted = build(input, ctx)?;
    if !keys.is_empty() {
        sorted = Box::new(sort::Sort::new(sorted, keys, input_types.clone()));
    }
    Ok(Box::new(window::WindowOperator::new(
        sorted,
        partition_by.to_vec(),
        order_by.to_vec(),
        functions.to_vec(),
        input_types,
        types,
    )))
}

/// Runs an operator to completion, collecting its batches.
pub fn collect(operator: &mut dyn Operator, ctx: &ExecContext) -> ExecResult<Vec<Batch>> {
    let mut batches = Vec::new();
    while let Some(batch) = operator.next(ctx)? {
        if batch.rows > 0 {
            batches.push(batch);
        }
    }
    Ok(batches)
}
