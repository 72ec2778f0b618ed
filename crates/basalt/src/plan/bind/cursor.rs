//! Binding of `DECLARE ... CURSOR`, `FETCH`, `MOVE` and `CLOSE` into
//! [`CursorStatement`]s, which the session runs against its open cursors
//! (`api/session/cursor.rs`). DECLARE's query is bound here so that its errors (an unknown
//! table, a type error) and its parameters come with the DECLARE, as in PostgreSQL.

use sqlparser::ast;

use crate::plan::ddl::{CursorDirection, CursorStatement};
use crate::sql::cursor_syntax::MOVE_MARKER;

use super::error::BindError;
use super::{Binder, ident_name};

impl Binder<'_> {
    /// `DECLARE name [BINARY] [INSENSITIVE] [[NO] SCROLL] CURSOR [WITH[OUT] HOLD] FOR query`.
    pub(super) fn bind_declare(
        &mut self,
        stmts: &[ast::Declare],
    ) -> Result<CursorStatement, BindError> {
        let [declare] = stmts else {
            return Err(BindError::syntax("DECLARE declares one cursor"));
        };
        let (Some(ast::DeclareType::Cursor), Some(query), [name]) = (
            &declare.declare_type,
            &declare.for_query,
            declare.names.as_slice(),
        ) else {
            return Err(BindError::unsupported("DECLARE of anything but a cursor"));
        };
        if declare.binary == Some(true) {
            return Err(BindError::unsupported("BINARY cursors"));
        }
        // Checked and its parameters recorded; the plan is made again when the cursor opens.
        self.bind_query(query)?;
        Ok(CursorStatement::Declare {
            name: ident_name(name),
            query: query.clone(),
            scroll: declare.scroll,
            hold: declare.hold == Some(true),
        })
    }

    /// `FETCH` / `MOVE` (sqlparser's `Fetch`, marked as a MOVE by `cursor_syntax`).
    pub(super) fn bind_fetch(
        &mut self,
        name: &ast::Ident,
        direction: &ast::FetchDirection,
        into: Option<&ast::ObjectName>,
    ) -> Result<CursorStatement, BindError> {
        let fetch = match into {
            None => true,
            Some(target) if target.to_string() == MOVE_MARKER => false,
            Some(_) => return Err(BindError::syntax("FETCH ... INTO is PL/pgSQL's")),
        };
        use ast::FetchDirection as D;
        let direction = match direction {
            D::Next => CursorDirection::Relative(1),
            D::Prior => CursorDirection::Relative(-1),
            D::First => CursorDirection::Absolute(1),
            D::Last => CursorDirection::Absolute(-1),
            D::Absolute { limit } => CursorDirection::Absolute(count(limit)?),
            D::Relative { limit } => CursorDirection::Relative(count(limit)?),
            D::All | D::ForwardAll => CursorDirection::Forward(None),
            D::BackwardAll => CursorDirection::Backward(None),
            // A negative count goes the other way, as in PostgreSQL (`FETCH -2` is
            // `BACKWARD 2`).
            D::Count { limit } | D::Forward { limit: Some(limit) } => signed(count(limit)?, true),
            D::Forward { limit: None } => CursorDirection::Forward(Some(1)),
            D::Backward { limit: Some(limit) } => signed(count(limit)?, false),
            D::Backward { limit: None } => CursorDirection::Backward(Some(1)),
        };
        Ok(CursorStatement::Fetch {
            name: ident_name(name),
            direction,
            fetch,
        })
    }

    /// `CLOSE name` / `CLOSE ALL`.
    pub(super) fn bind_close(&mut self, cursor: &ast::CloseCursor) -> CursorStatement {
        CursorStatement::Close(match cursor {
            ast::CloseCursor::All => None,
            ast::CloseCursor::Specific { name } => Some(ident_name(name)),
        })
    }
}

/// `n` rows forward (`forward`) or backward; a negative `n` turns the direction around.
fn signed(n: i64, forward: bool) -> CursorDirection {
    if (n >= 0) == forward {
        CursorDirection::Forward(Some(n.saturating_abs()))
    } else {
        CursorDirection::Backward(Some(n.saturating_abs()))
    }
}

fn count(value: &ast::ValueWithSpan) -> Result<i64, BindError> {
    match &value.value {
        ast::Value::Number(text, _) => text
            .parse()
            .map_err(|_| BindError::syntax(format!("cursor count {text} is not an integer"))),
        other => Err(BindError::syntax(format!(
            "cursor count {other} is not an integer"
        ))),
    }
}
