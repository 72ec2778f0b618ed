//! Binding of the date/time operators and INTERVAL literals.
//!
//! The operators on timestamps, dates and intervals (`timestamp + interval`, `timestamp -
//! timestamp`, `interval * number`, ...) are listed once, in
//! [`crate::types::arith::temporal_result_type`]; this module resolves an operator call
//! against that list as PostgreSQL resolves operators, including its rules for an untyped
//! operand (a quoted literal, NULL or a parameter): it takes the other operand's type when
//! that gives an operator (`interval + '1 day'`, `timestamp - '2024-01-01'`), or the one
//! type the candidates accept at its position (`timestamp + '1 day'` is `timestamp +
//! interval`, `interval * '2'` is `interval * real`). `date ± untyped` is left to the
//! integer rule (`date + 1`), which Basalt had before intervals.
//!
//! `EXTRACT(field FROM x)` is bound here too, as `date_part('field', x)`.
//!
//! `INTERVAL 'text' [qualifier]` literals are parsed here at bind time, with the
//! qualifier's meaning (`INTERVAL '1' DAY` is a day; fields below the qualifier's last are
//! dropped); see [`crate::types::interval::parse`].

use sqlparser::ast;

use crate::plan::expr::{BinaryOp, Expr};
use crate::types::interval::parse::{Qualifier, QualifierField, parse_qualified};
use crate::types::{DataType, Value, arith};

use super::error::BindError;
use super::expr::is_untyped;
use super::scope::Scope;
use super::types::type_error;
use super::{Binder, ident_name};

impl Binder<'_> {
    /// `EXTRACT(field FROM source)`: `date_part('field', source)`, as in PostgreSQL (whose
    /// EXTRACT returns numeric; Basalt's real stands in for it). An untyped source is a
    /// timestamp.
    pub(super) fn bind_extract(
        &mut self,
        field: &ast::DateTimeField,
        source: &ast::Expr,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let field = match field {
            ast::DateTimeField::Custom(name) => ident_name(name),
            other => other.to_string().to_ascii_lowercase(),
        };
        let bound = self.bind_expr(source, scope)?;
        let bound = self.type_if_untyped(bound, source, DataType::Timestamp)?;
        self.call_scalar("date_part", vec![Expr::literal(Value::Text(field)), bound])
    }
}

impl Binder<'_> {
    /// `source AT TIME ZONE zone`: `timezone(zone, source)`, which turns a timestamptz into
    /// the zone's local time and a timestamp (read as the zone's local time) into an
    /// instant. An untyped source is a timestamptz, as PostgreSQL resolves it.
    pub(super) fn bind_at_time_zone(
        &mut self,
        source: &ast::Expr,
        zone: &ast::Expr,
        scope: &Scope,
    ) -> Result<Expr, BindError> {
        let bound = self.bind_expr(source, scope)?;
        let bound = self.type_if_untyped(bound, source, DataType::TimestampTz)?;
        let bound_zone = self.bind_expr(zone, scope)?;
        let bound_zone = self.type_if_untyped(bound_zone, zone, DataType::Text(None))?;
        self.call_scalar("timezone", vec![bound_zone, bound])
    }
}

/// [`temporal_signature`] of bound operands with their syntax (which says whether each is
/// untyped).
pub(super) fn temporal_operands(
    op: BinaryOp,
    (left, left_ast): (&Expr, &ast::Expr),
    (right, right_ast): (&Expr, &ast::Expr),
) -> Option<(DataType, DataType, DataType)> {
    let typed = |bound: &Expr, ast| (!is_untyped(ast)).then(|| bound.data_type());
    temporal_signature(op, typed(left, left_ast), typed(right, right_ast))
}

/// The types a date/time operator call resolves to: the left operand's, the right's, and
/// the result's. `None` (an untyped operand's type) where the operand is untyped; `None`
/// overall when the call is not one of the date/time operators.
pub(super) fn temporal_signature(
    op: BinaryOp,
    left: Option<DataType>,
    right: Option<DataType>,
) -> Option<(DataType, DataType, DataType)> {
    let symbol = match op {
        BinaryOp::Add => "+",
        BinaryOp::Subtract => "-",
        BinaryOp::Multiply => "*",
        BinaryOp::Divide => "/",
        _ => return None,
    };
    let (left, right) = match (left, right) {
        (Some(left), Some(right)) => (left, right),
        (Some(left), None) => (left, untyped_operand(op, left, true)?),
        (None, Some(right)) => (untyped_operand(op, right, false)?, right),
        (None, None) => return None,
    };
    let result = arith::temporal_result_type(symbol, left, right)?;
    Some((left, right, result))
}

/// The type an untyped operand of `op` takes beside a `known` operand (on the right of it
/// when `untyped_on_right`), following PostgreSQL: the known type itself when an operator
/// takes it on both sides, otherwise the single type the candidates accept there.
fn untyped_operand(op: BinaryOp, known: DataType, untyped_on_right: bool) -> Option<DataType> {
    Some(match (op, known) {
        // timestamp + interval and interval + timestamp are the only `+` with a timestamp.
        (BinaryOp::Add, DataType::Timestamp | DataType::TimestampTz) => DataType::Interval,
        (BinaryOp::Subtract, DataType::TimestampTz) => DataType::TimestampTz,
        // timestamp - timestamp exists, so the untyped side is a timestamp.
        (BinaryOp::Subtract, DataType::Timestamp) => DataType::Timestamp,
        (BinaryOp::Add | BinaryOp::Subtract, DataType::Interval) => DataType::Interval,
        // time - time exists, so an untyped side of `-` is a time; `+` takes an interval.
        (BinaryOp::Subtract, DataType::Time(_)) => DataType::Time(None),
        (BinaryOp::Add, DataType::Time(_)) => DataType::Interval,
        (BinaryOp::Multiply, DataType::Interval) => DataType::Real,
        (BinaryOp::Divide, DataType::Interval) if untyped_on_right => DataType::Real,
        _ => return None,
    })
}

/// The value of `INTERVAL 'text' [qualifier]`.
pub(super) fn interval_literal(interval: &ast::Interval) -> Result<Expr, BindError> {
    let text = match interval.value.as_ref() {
        ast::Expr::Value(value) => match &value.value {
            ast::Value::SingleQuotedString(text) => text,
            _ => {
                return Err(BindError::syntax(format!(
                    "INTERVAL needs a quoted string, not {}",
                    interval.value
                )));
            }
        },
        other => {
            return Err(BindError::unsupported(format!(
                "INTERVAL of the expression {other}"
            )));
        }
    };
    if interval.leading_precision.is_some() || interval.fractional_seconds_precision.is_some() {
        return Err(BindError::unsupported(format!(
            "the precision in {interval}"
        )));
    }
    let qualifier = match &interval.leading_field {
        None => None,
        Some(leading) => Some(Qualifier {
            leading: qualifier_field(leading)?,
            last: interval
                .last_field
                .as_ref()
                .map(qualifier_field)
                .transpose()?,
        }),
    };
    let value = parse_qualified(text, qualifier).map_err(type_error)?;
    Ok(Expr::Literal {
        value: Value::Interval(value),
        data_type: DataType::Interval,
    })
}

fn qualifier_field(field: &ast::DateTimeField) -> Result<QualifierField, BindError> {
    use ast::DateTimeField as F;
    Ok(match field {
        F::Year | F::Years => QualifierField::Year,
        F::Month | F::Months => QualifierField::Month,
        F::Day | F::Days => QualifierField::Day,
        F::Hour | F::Hours => QualifierField::Hour,
        F::Minute | F::Minutes => QualifierField::Minute,
        F::Second | F::Seconds => QualifierField::Second,
        other => {
            return Err(BindError::syntax(format!(
                "{other} is not an interval qualifier field"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::{Date, Integer, Interval, Real, Text, Timestamp};

    #[test]
    fn typed_operators_follow_the_table() {
        let signature = |op, left, right| temporal_signature(op, Some(left), Some(right));
        assert_eq!(
            signature(BinaryOp::Add, Timestamp, Interval),
            Some((Timestamp, Interval, Timestamp))
        );
        assert_eq!(
            signature(BinaryOp::Add, Interval, Date),
            Some((Interval, Date, Timestamp))
        );
        assert_eq!(
            signature(BinaryOp::Subtract, Date, Timestamp),
            Some((Date, Timestamp, Interval))
        );
        assert_eq!(
            signature(BinaryOp::Multiply, Integer, Interval),
            Some((Integer, Interval, Interval))
        );
        assert_eq!(signature(BinaryOp::Add, Timestamp, Timestamp), None);
        assert_eq!(signature(BinaryOp::Divide, Integer, Interval), None);
        assert_eq!(signature(BinaryOp::Subtract, Date, Date), None);
        assert_eq!(signature(BinaryOp::Add, Interval, Text(None)), None);
        assert_eq!(signature(BinaryOp::Remainder, Interval, Integer), None);
    }

    #[test]
    fn untyped_operands_resolve_as_in_postgresql() {
        assert_eq!(
            temporal_signature(BinaryOp::Add, Some(Timestamp), None),
            Some((Timestamp, Interval, Timestamp))
        );
        assert_eq!(
            temporal_signature(BinaryOp::Subtract, None, Some(Timestamp)),
            Some((Timestamp, Timestamp, Interval))
        );
        assert_eq!(
            temporal_signature(BinaryOp::Multiply, None, Some(Interval)),
            Some((Real, Interval, Interval))
        );
        assert_eq!(
            temporal_signature(BinaryOp::Divide, None, Some(Interval)),
            None
        );
        assert_eq!(temporal_signature(BinaryOp::Add, Some(Date), None), None);
        assert_eq!(temporal_signature(BinaryOp::Add, None, None), None);
    }
}
