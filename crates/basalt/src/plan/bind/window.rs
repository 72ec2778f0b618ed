//! Window function calls: binding `f(...) OVER (...)`, named windows (`WINDOW w AS (...)`),
//! frames, and the Window nodes a query level gets, as PostgreSQL defines them.
//!
//! This mirrors the aggregate machinery (`aggregate.rs`). While a query level's SELECT list
//! and ORDER BY are bound, each window call is appended to the level's
//! [`WindowContext::Collecting`] list and stands in the bound expression as a *marker*
//! column (`WINDOW_MARK + k`, below the aggregate markers). The call's own expressions
//! (arguments, PARTITION BY, ORDER BY, FILTER) are bound over the FROM row; when the level
//! is grouped they are rewritten over the Aggregate node like any other expression, since
//! windows are computed after GROUP BY / HAVING. [`add_window_nodes`] then stacks one
//! Window node per distinct (PARTITION BY, ORDER BY) over the plan and replaces the markers
//! by the columns those nodes append. Markers never leave the binder.
//!
//! Errors follow PostgreSQL: a window call where windows are not allowed (WHERE, GROUP BY,
//! HAVING, CHECK, DEFAULT, ...) or inside another window call is 42P20, inside an
//! aggregate's arguments 42803; a window-only function without OVER is 42809; an unknown
//! window name is 42704; malformed frames are 42P20.

use sqlparser::ast;

use crate::plan::expr::Expr;
use crate::plan::window::window_function_name;
use crate::plan::{
    FrameBound, FrameUnits, OutputColumn, PlanKind, PlanNode, SortKey, WindowCall, WindowFrame,
    WindowFunction,
};
use crate::sqlstate;
use crate::types::{DataType, Value};

use super::Binder;
use super::aggregate::AGGREGATE_MARK;
use super::error::BindError;
use super::expr::is_untyped;
use super::function::{CallArguments, non_aggregate_arguments};
use super::ident_name;
use super::scope::Scope;

/// Column indexes in `WINDOW_MARK..AGGREGATE_MARK` stand for window calls during binding.
pub(super) const WINDOW_MARK: usize = usize::MAX / 4;

/// One window call of a query level, with its window, bound over the level's FROM row.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct BoundWindowCall {
    pub partition_by: Vec<Expr>,
    pub order_by: Vec<SortKey>,
    pub call: WindowCall,
}

/// Whether window calls are allowed where an expression is being bound.
#[derive(Clone, Debug)]
pub(super) enum WindowContext {
    /// Not allowed; the clause's name, for the message.
    Forbidden(&'static str),
    /// Inside an aggregate's arguments.
    InsideAggregate,
    /// Inside a window call (its arguments or window).
    Nested,
    /// Allowed: the calls seen so far.
    Collecting(Vec<BoundWindowCall>),
}

/// Functions that exist only as window functions.
pub(super) fn is_window_only(name: &str) -> bool {
    matches!(
        name,
        "row_number"
            | "rank"
            | "dense_rank"
            | "percent_rank"
            | "cume_dist"
            | "ntile"
            | "lag"
            | "lead"
            | "first_value"
            | "last_value"
            | "nth_value"
    )
}

fn windowing_error(message: impl Into<String>) -> BindError {
    BindError::new(sqlstate::WINDOWING_ERROR, message)
}

/// A window definition with any reference to a named window resolved.
#[derive(Clone, Debug, Default)]
struct ResolvedWindow {
    partition_by: Vec<ast::Expr>,
    order_by: Vec<ast::OrderByExpr>,
    frame: Option<ast::WindowFrame>,
}

impl Binder<'_> {
    /// Binds `name(...) OVER ...`, returning its marker column.
    pub(super) fn bind_window_call(
        &mut self,
        name: &str,
        function: &ast::Function,
        over: &ast::WindowType,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let mut calls = match std::mem::replace(&mut self.windows, WindowContext::Nested) {
            WindowContext::Collecting(calls) => calls,
            other => {
                let error = match &other {
                    WindowContext::Forbidden(clause) => {
                        windowing_error(format!("window functions are not allowed in {clause}"))
                    }
                    WindowContext::InsideAggregate => BindError::grouping(
                        "aggregate function calls cannot contain window function calls",
                    ),
                    _ => windowing_error("window function calls cannot be nested"),
                };
                self.windows = other;
                return Err(error);
            }
        };
        let bound = self.bind_window_parts(name, function, over, scope);
        let bound = match bound {
            Ok(bound) => bound,
            Err(error) => {
                self.windows = WindowContext::Collecting(calls);
                return Err(error);
            }
        };
        let data_type = bound.call.data_type;
        let position = match calls.iter().position(|existing| *existing == bound) {
            Some(position) => position,
            None => {
                calls.push(bound);
                calls.len() - 1
            }
        };
        self.windows = WindowContext::Collecting(calls);
        Ok(Expr::Column {
            index: WINDOW_MARK + position,
            data_type,
        })
    }

    fn bind_window_parts(
        &mut self,
        name: &str,
        function: &ast::Function,
        over: &ast::WindowType,
        scope: &Scope,
    ) -> Result<BoundWindowCall, BindError> {
        let window = match over {
            ast::WindowType::WindowSpec(spec) => self.resolve_window_spec(spec, usize::MAX)?,
            ast::WindowType::NamedWindow(window_name) => {
                self.named_window(&ident_name(window_name), usize::MAX)?
            }
        };
        let call = super::function::call_arguments(function)?;
        let mut partition_by = Vec::with_capacity(window.partition_by.len());
        for expr in &window.partition_by {
            partition_by.push(self.bind_expr(expr, scope)?);
        }
        let mut order_by = Vec::with_capacity(window.order_by.len());
        for key in &window.order_by {
            let order = super::select::order_key(0, &key.options)?;
            order_by.push(SortKey {
                expr: self.bind_expr(&key.expr, scope)?,
                descending: order.descending,
                nulls_first: order.nulls_first,
            });
        }
        let frame = match &window.frame {
            Some(frame) => self.bind_frame(frame, &order_by, scope)?,
            None => WindowFrame::default_frame(),
        };
        let (function, args, filter, data_type) =
            self.bind_window_function(name, &call, function.filter.as_deref(), scope)?;
        Ok(BoundWindowCall {
            partition_by,
            order_by,
            call: WindowCall {
                function,
                args,
                filter,
                frame,
                data_type,
            },
        })
    }

    /// The function, arguments, filter and result type of a window call.
    fn bind_window_function(
        &mut self,
        name: &str,
        call: &CallArguments<'_>,
        filter: Option<&ast::Expr>,
        scope: &Scope,
    ) -> Result<(WindowFunction, Vec<Expr>, Option<Expr>, DataType), BindError> {
        if super::aggregate::is_aggregate(name, call.args.len()) {
            if call.distinct {
                return Err(BindError::unsupported("DISTINCT for window functions"));
            }
            if !call.order_by.is_empty() {
                return Err(BindError::unsupported(
                    "aggregate ORDER BY for window functions",
                ));
            }
            let aggregate = self.bind_aggregate_call(name, call, filter, scope)?;
            return Ok((
                WindowFunction::Aggregate(aggregate.function),
                aggregate.args,
                aggregate.filter,
                aggregate.data_type,
            ));
        }
        if !is_window_only(name) {
            return Err(BindError::new(
                sqlstate::WRONG_OBJECT_TYPE,
                format!(
                    "OVER specified, but {name} is not a window function nor an aggregate function"
                ),
            ));
        }
        let asts = non_aggregate_arguments(call, filter.is_some(), name)?;
        let (function, arity) = match name {
            "row_number" => (WindowFunction::RowNumber, 0..=0),
            "rank" => (WindowFunction::Rank, 0..=0),
            "dense_rank" => (WindowFunction::DenseRank, 0..=0),
            "percent_rank" => (WindowFunction::PercentRank, 0..=0),
            "cume_dist" => (WindowFunction::CumeDist, 0..=0),
            "ntile" => (WindowFunction::Ntile, 1..=1),
            "lag" => (WindowFunction::Lag, 1..=3),
            "lead" => (WindowFunction::Lead, 1..=3),
            "first_value" => (WindowFunction::FirstValue, 1..=1),
            "last_value" => (WindowFunction::LastValue, 1..=1),
            _ => (WindowFunction::NthValue, 2..=2),
        };
        if !arity.contains(&asts.len()) {
            return Err(BindError::undefined_function(format!(
                "function {name} does not take {} arguments",
                asts.len()
            )));
        }
        let mut bound = Vec::with_capacity(asts.len());
        for ast in &asts {
            bound.push(self.bind_expr(ast, scope)?);
        }
        let mut args = Vec::with_capacity(bound.len());
        let data_type = match function {
            WindowFunction::RowNumber | WindowFunction::Rank | WindowFunction::DenseRank => {
                DataType::Integer
            }
            WindowFunction::PercentRank | WindowFunction::CumeDist => DataType::Real,
            WindowFunction::Ntile => {
                args.push(self.integer_argument(bound.remove(0), asts[0], name)?);
                DataType::Integer
            }
            WindowFunction::Lag | WindowFunction::Lead => {
                let mut bound = bound.into_iter();
                let value = bound.next();
                let offset = bound.next();
                let default = bound.next();
                let (value, offset) = match (value, offset) {
                    (Some(value), offset) => (value, offset),
                    (None, _) => return Err(BindError::syntax(format!("{name} needs a value"))),
                };
                // The value and the default share one type, as PostgreSQL's
                // lag(anycompatible, integer, anycompatible).
                let (values, data_type) = match default {
                    Some(default) => {
                        self.unify_list(vec![(value, asts[0]), (default, asts[2])], name)?
                    }
                    None => {
                        let value = self.untyped_value(value, asts[0])?;
                        let data_type = value.data_type();
                        (vec![value], data_type)
                    }
                };
                let mut values = values.into_iter();
                if let Some(value) = values.next() {
                    args.push(value);
                }
                match offset {
                    Some(offset) => args.push(self.integer_argument(offset, asts[1], name)?),
                    None => args.push(Expr::literal(Value::Integer(1))),
                }
                args.extend(values);
                data_type
            }
            WindowFunction::FirstValue | WindowFunction::LastValue | WindowFunction::NthValue => {
                let mut bound = bound.into_iter();
                let Some(value) = bound.next() else {
                    return Err(BindError::syntax(format!("{name} needs a value")));
                };
                let value = self.untyped_value(value, asts[0])?;
                let data_type = value.data_type();
                args.push(value);
                if let Some(n) = bound.next() {
                    args.push(self.integer_argument(n, asts[1], name)?);
                }
                data_type
            }
            WindowFunction::Aggregate(_) => {
                return Err(BindError::syntax(format!("{name} is an aggregate")));
            }
        };
        Ok((function, args, None, data_type))
    }

    /// An untyped literal value argument is text (NULL stays unknown), as for scalar calls.
    fn untyped_value(&mut self, value: Expr, ast: &ast::Expr) -> Result<Expr, BindError> {
        let target = match &value {
            Expr::Literal {
                value: Value::Text(_),
                ..
            } => DataType::Text(None),
            _ => DataType::Null,
        };
        self.resolve_untyped(value, ast, target)
    }

    /// An argument that must be an integer (an untyped literal or parameter becomes one).
    fn integer_argument(
        &mut self,
        bound: Expr,
        ast: &ast::Expr,
        name: &str,
    ) -> Result<Expr, BindError> {
        let bound = self.type_if_untyped(bound, ast, DataType::Integer)?;
        match bound.data_type() {
            DataType::Integer => Ok(bound),
            DataType::Null => Ok(super::expr::coerce(bound, DataType::Integer)),
            other => Err(BindError::undefined_function(format!(
                "function {name} with an argument of type {other} does not exist"
            ))),
        }
    }

    /// A window specification with its base window (`OVER (w ORDER BY ...)`) merged in, as
    /// PostgreSQL copies windows: the copy keeps the base's PARTITION BY, may add an ORDER
    /// BY only if the base has none, and the base must have no frame.
    fn resolve_window_spec(
        &self,
        spec: &ast::WindowSpec,
        visible: usize,
    ) -> Result<ResolvedWindow, BindError> {
        let Some(base_name) = &spec.window_name else {
            return Ok(ResolvedWindow {
                partition_by: spec.partition_by.clone(),
                order_by: spec.order_by.clone(),
                frame: spec.window_frame.clone(),
            });
        };
        let base_name = ident_name(base_name);
        let base = self.named_window(&base_name, visible)?;
        if !spec.partition_by.is_empty() {
            return Err(windowing_error(format!(
                "cannot override PARTITION BY clause of window \"{base_name}\""
            )));
        }
        if !spec.order_by.is_empty() && !base.order_by.is_empty() {
            return Err(windowing_error(format!(
                "cannot override ORDER BY clause of window \"{base_name}\""
            )));
        }
        if base.frame.is_some() {
            return Err(windowing_error(format!(
                "cannot copy window \"{base_name}\" because it has a frame clause"
            )));
        }
        Ok(ResolvedWindow {
            partition_by: base.partition_by,
            order_by: if spec.order_by.is_empty() {
                base.order_by
            } else {
                spec.order_by.clone()
            },
            frame: spec.window_frame.clone(),
        })
    }

    /// The named window `name` among the first `visible` definitions of the WINDOW clause
    /// (a definition may only build on the ones before it).
    fn named_window(&self, name: &str, visible: usize) -> Result<ResolvedWindow, BindError> {
        let position = self
            .named_windows
            .iter()
            .take(visible)
            .position(|definition| ident_name(&definition.0) == name)
            .ok_or_else(|| {
                BindError::new(
                    sqlstate::UNDEFINED_OBJECT,
                    format!("window \"{name}\" does not exist"),
                )
            })?;
        match &self.named_windows[position].1 {
            ast::NamedWindowExpr::NamedWindow(base) => {
                self.named_window(&ident_name(base), position)
            }
            ast::NamedWindowExpr::WindowSpec(spec) => self.resolve_window_spec(spec, position),
        }
    }

    /// Checks a WINDOW clause's names are distinct and every definition resolves.
    pub(super) fn check_named_windows(&self) -> Result<(), BindError> {
        for (position, definition) in self.named_windows.iter().enumerate() {
            let name = ident_name(&definition.0);
            if self.named_windows[..position]
                .iter()
                .any(|earlier| ident_name(&earlier.0) == name)
            {
                return Err(windowing_error(format!(
                    "window \"{name}\" is already defined"
                )));
            }
            self.named_window(&name, position + 1)?;
        }
        Ok(())
    }

    /// Binds a frame clause, with PostgreSQL's checks.
    fn bind_frame(
        &mut self,
        frame: &ast::WindowFrame,
        order_by: &[SortKey],
        scope: &Scope,
    ) -> Result<WindowFrame, BindError> {
        let units = match frame.units {
            ast::WindowFrameUnits::Rows => FrameUnits::Rows,
            ast::WindowFrameUnits::Range => FrameUnits::Range,
            ast::WindowFrameUnits::Groups => FrameUnits::Groups,
        };
        let start = self.bind_frame_bound(&frame.start_bound, units, order_by, scope)?;
        let end = match &frame.end_bound {
            Some(end) => self.bind_frame_bound(end, units, order_by, scope)?,
            None => FrameBound::CurrentRow,
        };
        match (&start, &end) {
            (FrameBound::UnboundedFollowing, _) => {
                return Err(windowing_error("frame start cannot be UNBOUNDED FOLLOWING"));
            }
            (_, FrameBound::UnboundedPreceding) => {
                return Err(windowing_error("frame end cannot be UNBOUNDED PRECEDING"));
            }
            (FrameBound::CurrentRow, FrameBound::Preceding(_)) => {
                return Err(windowing_error(
                    "frame starting from current row cannot have preceding rows",
                ));
            }
            (FrameBound::Following(_), FrameBound::Preceding(_) | FrameBound::CurrentRow) => {
                return Err(windowing_error(
                    "frame starting from following row cannot have preceding rows",
                ));
            }
            _ => {}
        }
        if units == FrameUnits::Groups && order_by.is_empty() {
            return Err(windowing_error("GROUPS mode requires an ORDER BY clause"));
        }
        Ok(WindowFrame { units, start, end })
    }

    fn bind_frame_bound(
        &mut self,
        bound: &ast::WindowFrameBound,
        units: FrameUnits,
        order_by: &[SortKey],
        scope: &Scope,
    ) -> Result<FrameBound, BindError> {
        Ok(match bound {
            ast::WindowFrameBound::CurrentRow => FrameBound::CurrentRow,
            ast::WindowFrameBound::Preceding(None) => FrameBound::UnboundedPreceding,
            ast::WindowFrameBound::Following(None) => FrameBound::UnboundedFollowing,
            ast::WindowFrameBound::Preceding(Some(offset)) => {
                FrameBound::Preceding(self.bind_frame_offset(offset, units, order_by, scope)?)
            }
            ast::WindowFrameBound::Following(Some(offset)) => {
                FrameBound::Following(self.bind_frame_offset(offset, units, order_by, scope)?)
            }
        })
    }

    /// A frame offset: column-free; an integer for ROWS and GROUPS; for RANGE, of the
    /// ORDER BY key's numeric type, or an interval for a date, timestamp or interval key.
    fn bind_frame_offset(
        &mut self,
        offset: &ast::Expr,
        units: FrameUnits,
        order_by: &[SortKey],
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let units_name = match units {
            FrameUnits::Rows => "ROWS",
            FrameUnits::Range => "RANGE",
            FrameUnits::Groups => "GROUPS",
        };
        let target = match units {
            FrameUnits::Rows | FrameUnits::Groups => DataType::Integer,
            FrameUnits::Range => {
                let [key] = order_by else {
                    return Err(windowing_error(
                        "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column",
                    ));
                };
                match key.expr.data_type() {
                    DataType::Integer => DataType::Integer,
                    DataType::Real => DataType::Real,
                    // PostgreSQL's in_range for date, timestamp and interval keys.
                    DataType::Date
                    | DataType::Timestamp
                    | DataType::TimestampTz
                    | DataType::Interval => DataType::Interval,
                    other => {
                        return Err(BindError::unsupported(format!(
                            "RANGE with offset PRECEDING/FOLLOWING for column type {other}"
                        )));
                    }
                }
            }
        };
        // sqlparser reads a quoted string in a frame bound as an interval (`'1 day'
        // PRECEDING`), where PostgreSQL reads an untyped literal of the key's type: so for a
        // numeric offset the string is taken as that literal (`'5' PRECEDING` is 5, `'1 day'`
        // is 22P02). An explicit `INTERVAL '5'` without a qualifier parses the same way and is
        // taken the same way.
        let offset = match offset {
            ast::Expr::Interval(interval)
                if target != DataType::Interval
                    && interval.leading_field.is_none()
                    && interval.leading_precision.is_none()
                    && interval.last_field.is_none()
                    && interval.fractional_seconds_precision.is_none()
                    && is_untyped(&interval.value) =>
            {
                &*interval.value
            }
            other => other,
        };
        let bound = self.bind_expr(offset, scope)?;
        let mut reads_row = false;
        bound.visit(&mut |expr| {
            if matches!(expr, Expr::Column { .. } | Expr::OuterColumn { .. }) {
                reads_row = true;
            }
        });
        if reads_row {
            return Err(BindError::new(
                sqlstate::INVALID_COLUMN_REFERENCE,
                format!("argument of {units_name} must not contain variables"),
            ));
        }
        let bound = self.type_if_untyped(bound, offset, target)?;
        match (bound.data_type(), target) {
            (found, wanted) if found == wanted => Ok(bound),
            (DataType::Null | DataType::Integer | DataType::Numeric(_), DataType::Real)
            | (DataType::Null, _) => Ok(super::expr::coerce(bound, target)),
            (found, _) if units == FrameUnits::Range => Err(BindError::unsupported(format!(
                "RANGE with offset PRECEDING/FOLLOWING for column type {target} and offset type {found}"
            ))),
            (found, _) => Err(BindError::mismatch(format!(
                "argument of {units_name} must be type bigint, not type {found}"
            ))),
        }
    }
}

/// Whether a bound expression contains a window marker.
pub(super) fn has_window(expr: &Expr) -> bool {
    let mut found = false;
    expr.visit(&mut |e| {
        if matches!(e, Expr::Column { index, .. } if (WINDOW_MARK..AGGREGATE_MARK).contains(index))
        {
            found = true;
        }
    });
    found
}

/// Stacks one Window node per distinct (PARTITION BY, ORDER BY) of `calls` over `plan` and
/// rewrites `exprs` (over `plan`'s output, with window markers) over the result: input
/// columns keep their positions, each marker becomes the column its call's node appends.
pub(super) fn add_window_nodes(
    mut plan: PlanNode,
    calls: Vec<BoundWindowCall>,
    exprs: &mut [&mut Expr],
) -> PlanNode {
    let mut column_of_call = vec![0; calls.len()];
    let mut windows: Vec<(Vec<Expr>, Vec<SortKey>, Vec<usize>)> = Vec::new();
    for (position, call) in calls.iter().enumerate() {
        match windows.iter_mut().find(|(partition_by, order_by, _)| {
            *partition_by == call.partition_by && *order_by == call.order_by
        }) {
            Some((_, _, members)) => members.push(position),
            None => windows.push((
                call.partition_by.clone(),
                call.order_by.clone(),
                vec![position],
            )),
        }
    }
    for (partition_by, order_by, members) in windows {
        let mut schema = plan.schema.clone();
        let mut functions = Vec::with_capacity(members.len());
        for &member in &members {
            let call = calls[member].call.clone();
            column_of_call[member] = schema.len();
            schema.push(OutputColumn {
                name: window_function_name(call.function).to_string(),
                table: None,
                data_type: call.data_type,
                source: None,
            });
            functions.push(call);
        }
        plan = PlanNode {
            kind: PlanKind::Window {
                input: Box::new(plan),
                partition_by,
                order_by,
                functions,
            },
            schema,
        };
    }
    for expr in exprs {
        replace_markers(expr, &column_of_call);
    }
    plan
}

fn replace_markers(expr: &mut Expr, column_of_call: &[usize]) {
    if let Expr::Column { index, .. } = expr
        && (WINDOW_MARK..AGGREGATE_MARK).contains(index)
    {
        if let Some(&column) = column_of_call.get(*index - WINDOW_MARK) {
            *index = column;
        }
        return;
    }
    for child in expr.children_mut() {
        replace_markers(child, column_of_call);
    }
}
