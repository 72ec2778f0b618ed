//! `rrf(...)` in FROM: reciprocal rank fusion of ranked subqueries, the short form of the
//! hybrid-retrieval query that docs/sql.md spells out with window functions and UNION ALL.
//!
//! ```sql
//! SELECT id, score FROM rrf(
//!   (SELECT id FROM docs WHERE fts_match(body, $1) ORDER BY bm25_score(body, $1) DESC LIMIT 100),
//!   (SELECT id FROM docs ORDER BY emb <=> $2 LIMIT 100),
//!   k => 60, weights => (0.5, 0.5))
//! ORDER BY score DESC, id LIMIT 10;
//! ```
//!
//! Each positional argument is a parenthesized query (a *branch*): its rows, in the order it
//! returns them, rank 1, 2, ...; its first column is the key the branches are fused on
//! (every branch's first column has one type). Named arguments: `k` (default 60) and
//! `weights`, one number per branch (default 1 each; a single number with one branch), as
//! constants or parameters of DOUBLE PRECISION. The item has two columns: the key, named as
//! the first branch names its first column, and `score`. It binds to a
//! [`PlanKind::RankFusion`]; the executor checks `k` and the weights (finite, not negative)
//! when it runs, since parameters are only known then.
//!
//! A branch binds like a subquery in FROM: it sees the enclosing queries' columns (through
//! outer references) and parameters, and — `rrf` being LATERAL, as functions in FROM are in
//! PostgreSQL — the FROM items to its left (`table_function.rs` binds it over them and, when
//! a branch reads them, makes it a lateral subquery that runs once per left row).

use sqlparser::ast;

use crate::plan::{Expr, OutputColumn, PlanKind, PlanNode};
use crate::sqlstate;
use crate::types::DataType;

use super::error::BindError;
use super::expr::coerce;
use super::from::derived;
use super::scope::Scope;
use super::{Binder, ident_name};

/// reciprocal rank fusion's customary constant (Cormack, Clarke and Büttcher, 2009).
const DEFAULT_K: f64 = 60.0;

impl Binder<'_> {
    /// Binds `rrf(args) [AS alias]`.
    pub(super) fn bind_rank_fusion(
        &mut self,
        args: &[ast::FunctionArg],
        alias: Option<&ast::TableAlias>,
    ) -> Result<(PlanNode, Scope), BindError> {
        let mut branches = Vec::new();
        let mut k = None;
        let mut weights = None;
        for arg in args {
            let (name, value) = match arg {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(value)) => (None, value),
                ast::FunctionArg::Named {
                    name,
                    arg: ast::FunctionArgExpr::Expr(value),
                    ..
                } => (Some(ident_name(name)), value),
                ast::FunctionArg::ExprNamed {
                    name: ast::Expr::Identifier(name),
                    arg: ast::FunctionArgExpr::Expr(value),
                    ..
                } => (Some(ident_name(name)), value),
                other => return Err(BindError::unsupported(format!("argument {other} of rrf"))),
            };
            match name.as_deref() {
                None => {
                    if k.is_some() || weights.is_some() {
                        return Err(BindError::syntax(
                            "rrf: a positional argument cannot follow a named one",
                        ));
                    }
                    let mut value = value;
                    // `((SELECT ...))`: extra parentheses around the query.
                    while let ast::Expr::Nested(inner) = value {
                        value = inner;
                    }
                    let ast::Expr::Subquery(query) = value else {
                        return Err(BindError::mismatch(format!(
                            "rrf's positional arguments are ranked queries in parentheses, \
                             not {value}"
                        )));
                    };
                    branches.push(self.bind_query(query)?);
                }
                Some("k") if k.is_none() => k = Some(self.bind_number(value, "k")?),
                Some("weights") if weights.is_none() => {
                    let items: Vec<&ast::Expr> = match value {
                        ast::Expr::Tuple(items) => items.iter().collect(),
                        ast::Expr::Nested(item) => vec![item],
                        item => vec![item],
                    };
                    let mut bound = Vec::with_capacity(items.len());
                    for item in items {
                        bound.push(self.bind_number(item, "weights")?);
                    }
                    weights = Some(bound);
                }
                Some(name @ ("k" | "weights")) => {
                    return Err(BindError::syntax(format!(
                        "rrf: argument \"{name}\" is given more than once"
                    )));
                }
                Some(other) => {
                    return Err(BindError::undefined_function(format!(
                        "function rrf has no argument named \"{other}\" (it takes ranked \
                         queries, k and weights)"
                    )));
                }
            }
        }
        let Some(first) = branches.first() else {
            return Err(BindError::undefined_function(
                "rrf needs at least one ranked query",
            ));
        };
        let Some(key) = first.schema.first().cloned() else {
            return Err(BindError::mismatch(
                "rrf's ranked queries must return the key to fuse on as their first column",
            ));
        };
        let key_type = key.data_type.unmodified();
        if matches!(key_type, DataType::Json) {
            return Err(BindError::new(
                sqlstate::UNDEFINED_FUNCTION,
                "could not identify an equality operator for type json (rrf's key)",
            ));
        }
        for (position, branch) in branches.iter().enumerate() {
            let data_type = branch
                .schema
                .first()
                .map(|column| column.data_type.unmodified());
            if data_type != Some(key_type) {
                return Err(BindError::mismatch(format!(
                    "rrf's ranked query {} returns {} as its key, the first returns {}",
                    position + 1,
                    data_type.map_or("no column", DataType::name),
                    key_type.name()
                )));
            }
        }
        let weights = match weights {
            Some(weights) if weights.len() != branches.len() => {
                return Err(BindError::mismatch(format!(
                    "rrf has {} ranked queries but {} weights",
                    branches.len(),
                    weights.len()
                )));
            }
            Some(weights) => weights,
            None => vec![literal(1.0); branches.len()],
        };
        let plan = PlanNode {
            kind: PlanKind::RankFusion {
                branches,
                k: k.unwrap_or(literal(DEFAULT_K)),
                weights,
            },
            schema: vec![
                OutputColumn {
                    name: key.name,
                    table: None,
                    data_type: key.data_type,
                    source: None,
                },
                OutputColumn {
                    name: "score".into(),
                    table: None,
                    data_type: DataType::Real,
                    source: None,
                },
            ],
        };
        let (name, columns) = match alias {
            Some(alias) => (
                ident_name(&alias.name),
                alias.columns.iter().map(|c| ident_name(&c.name)).collect(),
            ),
            None => ("rrf".to_string(), Vec::new()),
        };
        derived(plan, &name, &columns)
    }

    /// `k` or a weight: a number over no row (a constant or a parameter), as DOUBLE PRECISION.
    fn bind_number(&mut self, value: &ast::Expr, what: &str) -> Result<Expr, BindError> {
        let bound = self.bind_expr(value, &Scope::default())?;
        let bound = self.type_if_untyped(bound, value, DataType::Real)?;
        let mut reads_row = false;
        bound.visit(&mut |inner| {
            reads_row |= matches!(
                inner,
                Expr::Column { .. }
                    | Expr::OuterColumn { .. }
                    | Expr::ScalarSubquery { .. }
                    | Expr::Exists { .. }
                    | Expr::InSubquery { .. }
            );
        });
        if reads_row {
            return Err(BindError::unsupported(format!(
                "rrf's {what} must be constants or parameters, not {value}"
            )));
        }
        match bound.data_type().unmodified() {
            DataType::Integer | DataType::Real | DataType::Numeric(_) | DataType::Null => {
                Ok(coerce(bound, DataType::Real))
            }
            other => Err(BindError::mismatch(format!(
                "rrf's {what} must be numbers, not {}",
                other.name()
            ))),
        }
    }
}

/// A DOUBLE PRECISION constant.
fn literal(value: f64) -> Expr {
    Expr::Literal {
        value: crate::types::Value::Real(value),
        data_type: DataType::Real,
    }
}
