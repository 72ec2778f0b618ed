//! Set-returning functions of the registry (`types::functions::set_returning`: `json_each`,
//! `jsonb_array_elements`, ...) as FROM items, bound into a [`PlanKind::FunctionScan`].
//!
//! `table_function.rs` routes every table function other than `generate_series` here and
//! handles LATERAL placement for both alike: arguments are bound over the FROM items to the
//! left, and a call that reads them runs once per row of those items.
//!
//! Naming follows PostgreSQL: the item is called after the function, or its alias; columns
//! keep the function's names (`key`, `value`) unless the alias lists new ones
//! (`AS e(k, v)`), except that a function returning a plain type (`json_object_keys`) names
//! its one column after the alias, as PostgreSQL does. An untyped literal argument takes
//! the function's document type (json or jsonb).

use sqlparser::ast;

use crate::plan::{Expr, OutputColumn, PlanKind, PlanNode};
use crate::types::DataType;
use crate::types::functions::json_untyped_argument_type;
use crate::types::functions::set_returning::set_returning_function;

use super::error::BindError;
use super::scope::Scope;
use super::table_function::{TableFunction, reads_level};
use super::types::type_error;
use super::{Binder, ident_name};

impl Binder<'_> {
    /// Binds registry function `function(args) [AS alias]` as a FROM item; `lateral` is the
    /// scope of the FROM items to its left. `Ok(None)` when no such function exists.
    pub(super) fn bind_set_returning_function(
        &mut self,
        function: &str,
        args: &[&ast::Expr],
        alias: Option<&ast::TableAlias>,
        lateral: Option<&Scope>,
    ) -> Result<Option<TableFunction>, BindError> {
        let Some(definition) = set_returning_function(function) else {
            return Ok(None);
        };
        let empty = Scope::default();
        let scope = lateral.unwrap_or(&empty);
        let mut bound = Vec::with_capacity(args.len());
        for (position, &arg) in args.iter().enumerate() {
            let expr = self.bind_expr(arg, scope)?;
            let target =
                json_untyped_argument_type(function, position).unwrap_or(DataType::Text(None));
            bound.push(self.type_if_untyped(expr, arg, target)?);
        }
        let types: Vec<DataType> = bound.iter().map(Expr::data_type).collect();
        let columns = (definition.columns)(&types).map_err(type_error)?;
        let reads_lateral = bound.iter().any(|expr| reads_level(expr, 0));
        let item_name = alias.map_or_else(|| function.to_owned(), |alias| ident_name(&alias.name));
        let mut names: Vec<String> = columns.iter().map(|(name, _)| (*name).to_owned()).collect();
        if let Some(alias) = alias {
            if alias.columns.len() > names.len() {
                return Err(BindError::new(
                    crate::sqlstate::INVALID_COLUMN_REFERENCE,
                    format!(
                        "table \"{item_name}\" has {} columns available but {} columns specified",
                        names.len(),
                        alias.columns.len()
                    ),
                ));
            }
            for (name, column) in names.iter_mut().zip(&alias.columns) {
                *name = ident_name(&column.name);
            }
            if definition.scalar
                && alias.columns.is_empty()
                && let Some(name) = names.first_mut()
            {
                *name = item_name.clone();
            }
        }
        let plan = PlanNode {
            kind: PlanKind::FunctionScan {
                input: Box::new(PlanNode {
                    kind: PlanKind::SingleRow,
                    schema: Vec::new(),
                }),
                function: definition.name.to_owned(),
                args: bound,
            },
            schema: names
                .into_iter()
                .zip(&columns)
                .map(|(name, (_, data_type))| OutputColumn {
                    name,
                    table: Some(item_name.clone()),
                    data_type: *data_type,
                    source: None,
                })
                .collect(),
        };
        let scope = Scope::from_schema(&plan.schema);
        Ok(Some(TableFunction {
            plan,
            scope,
            lateral: reads_lateral,
        }))
    }
}
