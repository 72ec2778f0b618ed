//! Statement parameters: tuples, slices, arrays, `Vec<Value>`, named lists, and the
//! [`params!`](crate::params) macro.

use crate::plan::ParameterInfo;
use crate::sqlstate;
use crate::types::Value;

use super::error::{Error, Result};
use super::value::ToSql;

/// Values for a statement's parameters.
pub trait Params {
    /// The values in parameter order, checked against the statement's parameters.
    fn into_values(self, parameters: &[ParameterInfo]) -> Result<Vec<Value>>;
}

fn check_count(given: usize, parameters: &[ParameterInfo]) -> Result<()> {
    if given != parameters.len() {
        return Err(Error::new(
            sqlstate::PROTOCOL_VIOLATION,
            format!(
                "statement has {} parameters but {given} values were supplied",
                parameters.len()
            ),
        ));
    }
    Ok(())
}

impl Params for () {
    fn into_values(self, parameters: &[ParameterInfo]) -> Result<Vec<Value>> {
        check_count(0, parameters)?;
        Ok(Vec::new())
    }
}

impl Params for Vec<Value> {
    fn into_values(self, parameters: &[ParameterInfo]) -> Result<Vec<Value>> {
        check_count(self.len(), parameters)?;
        Ok(self)
    }
}

impl Params for &[&dyn ToSql] {
    fn into_values(self, parameters: &[ParameterInfo]) -> Result<Vec<Value>> {
        check_count(self.len(), parameters)?;
        Ok(self.iter().map(|value| value.to_sql()).collect())
    }
}

impl<T: ToSql, const N: usize> Params for [T; N] {
    fn into_values(self, parameters: &[ParameterInfo]) -> Result<Vec<Value>> {
        check_count(N, parameters)?;
        Ok(self.iter().map(ToSql::to_sql).collect())
    }
}

impl<T: ToSql, const N: usize> Params for &[T; N] {
    fn into_values(self, parameters: &[ParameterInfo]) -> Result<Vec<Value>> {
        check_count(N, parameters)?;
        Ok(self.iter().map(ToSql::to_sql).collect())
    }
}

/// Named parameters: `&[(":name", &value)]`. Names may be written with or without their
/// `:` / `$` / `@` prefix.
impl Params for &[(&str, &dyn ToSql)] {
    fn into_values(self, parameters: &[ParameterInfo]) -> Result<Vec<Value>> {
        check_count(self.len(), parameters)?;
        let strip = |name: &str| name.trim_start_matches([':', '$', '@', '?']).to_string();
        parameters
            .iter()
            .enumerate()
            .map(|(position, parameter)| {
                let wanted = parameter
                    .name
                    .as_deref()
                    .map(strip)
                    .unwrap_or_else(|| (position + 1).to_string());
                self.iter()
                    .find(|(name, _)| strip(name) == wanted)
                    .map(|(_, value)| value.to_sql())
                    .ok_or_else(|| {
                        Error::new(
                            sqlstate::PROTOCOL_VIOLATION,
                            format!("no value supplied for parameter {wanted}"),
                        )
                    })
            })
            .collect()
    }
}

macro_rules! tuple_params {
    ($count:literal: $($name:ident),+) => {
        impl<$($name: ToSql),+> Params for ($($name,)+) {
            #[allow(non_snake_case, reason = "the tuple's type parameters name its fields")]
            fn into_values(self, parameters: &[ParameterInfo]) -> Result<Vec<Value>> {
                check_count($count, parameters)?;
                let ($($name,)+) = self;
                Ok(vec![$($name.to_sql()),+])
            }
        }
    };
}

tuple_params!(1: A);
tuple_params!(2: A, B);
tuple_params!(3: A, B, C);
tuple_params!(4: A, B, C, D);
tuple_params!(5: A, B, C, D, E);
tuple_params!(6: A, B, C, D, E, F);
tuple_params!(7: A, B, C, D, E, F, G);
tuple_params!(8: A, B, C, D, E, F, G, H);
tuple_params!(9: A, B, C, D, E, F, G, H, I);
tuple_params!(10: A, B, C, D, E, F, G, H, I, J);
tuple_params!(11: A, B, C, D, E, F, G, H, I, J, K);
tuple_params!(12: A, B, C, D, E, F, G, H, I, J, K, L);

/// Parameters of mixed types as a slice: `stmt.execute(params![1, "a", 2.5])`.
#[macro_export]
macro_rules! params {
    () => {
        &[] as &[&dyn $crate::ToSql]
    };
    ($($value:expr),+ $(,)?) => {
        &[$(&$value as &dyn $crate::ToSql),+] as &[&dyn $crate::ToSql]
    };
}

/// Named parameters: `stmt.execute(named_params![":id" => 1, ":name" => "a"])`.
#[macro_export]
macro_rules! named_params {
    ($($name:literal => $value:expr),* $(,)?) => {
        &[$(($name, &$value as &dyn $crate::ToSql)),*] as &[(&str, &dyn $crate::ToSql)]
    };
}
