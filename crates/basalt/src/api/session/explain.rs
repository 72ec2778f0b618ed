//! EXPLAIN's output as result rows: the plan with estimates (VERBOSE), or with each
//! operator's measurements (ANALYZE), served as one text column.

use std::collections::VecDeque;

use super::{Outcome, TreeShapeStatistics};
use crate::catalog::Catalog;
use crate::exec::context::ExecContext;
use crate::exec::explain::{ExplainOptions, explain_with};
use crate::exec::source::PageSource;
use crate::plan::PlanNode;
use crate::plan::optimize;
use crate::types::{DataType, Value};

/// EXPLAIN output: the plan, with VERBOSE each operator's estimated rows (from the same
/// statistics the optimizer used) and details, with a profile each operator's measurements.
pub(super) fn plan_lines(
    plan: &PlanNode,
    verbose: bool,
    catalog: &Catalog,
    ctx: &ExecContext,
    profile: Option<&crate::exec::explain::Profile>,
) -> Vec<String> {
    let source: &PageSource = &ctx.source;
    let statistics = TreeShapeStatistics { catalog, source };
    let estimator = optimize::estimate::Estimator {
        catalog,
        statistics: &statistics,
    };
    let estimate = |node: &PlanNode| estimator.rows(node);
    explain_with(
        plan,
        &ExplainOptions {
            profile,
            verbose,
            estimate: Some(&estimate),
            exact_vector_search: ctx.vector_search.exact,
        },
    )
}

/// EXPLAIN ANALYZE output: the plan with each operator's measurements, then the total.
pub(super) fn analyzed_lines(
    plan: &PlanNode,
    verbose: bool,
    catalog: &Catalog,
    ctx: &ExecContext,
    elapsed: std::time::Duration,
) -> Vec<String> {
    let profile = ctx.profile.as_ref().map(|profile| profile.borrow().clone());
    let mut lines = plan_lines(plan, verbose, catalog, ctx, profile.as_ref());
    lines.push(format!(
        "Execution Time: {:.3} ms",
        elapsed.as_secs_f64() * 1000.0
    ));
    lines
}

/// Rows of one text column.
pub(super) fn text_rows(lines: Vec<String>, ctx: ExecContext) -> Outcome {
    let mut batch = crate::exec::batch::Batch::with_types(&[DataType::Text(None)], lines.len());
    for line in lines {
        batch.push_row(&[Value::Text(line)]);
    }
    Outcome::Rows {
        operator: Box::new(Buffered(vec![batch].into())),
        ctx,
    }
}

/// Batches computed up front, served as an operator.
#[derive(Debug)]
pub(crate) struct Buffered(pub(crate) VecDeque<crate::exec::batch::Batch>);

impl crate::exec::operators::Operator for Buffered {
    fn next(
        &mut self,
        _ctx: &ExecContext,
    ) -> crate::exec::error::ExecResult<Option<crate::exec::batch::Batch>> {
        Ok(self.0.pop_front())
    }
}
