//! Tests of the optimizer rules on hand-built plans.
