//! `ALTER TABLE [IF EXISTS] [ONLY] t ALTER [COLUMN] c ADD GENERATED { ALWAYS | BY DEFAULT }
//! AS IDENTITY [ ( options ) ]` as pg_dump writes it: the options open with
//! `SEQUENCE NAME public.t_c_seq` and list the rest in pg_dump's order
//! (`START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1`). sqlparser parses the
//! statement itself but knows neither `SEQUENCE NAME` nor options in any order, so the
//! dialect's `parse_statement` hook parses it here.
//!
//! The result is sqlparser's own `Statement::AlterTable` with one
//! `AlterColumn { op: AddGenerated { .. } }` operation. The sequence's name, which that AST
//! has no place for, is carried in the statement's `on_cluster` field (ClickHouse's
//! `ON CLUSTER`, which Basalt's dialect never parses, so the field can only be set here): its
//! last name part, as written (quotes kept, so the binder folds it as any identifier). The
//! binder (`plan::bind::alter_column`) reads it back.
//!
//! Anything else that starts `ALTER TABLE` is left to sqlparser: the prefix is read with
//! `maybe_parse`, which rewinds when the statement turns out not to be this one.

use sqlparser::ast::{
    AlterColumnOperation, AlterTable, AlterTableOperation, GeneratedAs, Ident, ObjectName,
    Statement,
};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

use super::sequence_syntax::parse_options;

/// What comes before `ADD GENERATED`.
struct Prefix {
    name: ObjectName,
    if_exists: bool,
    only: bool,
    column: Ident,
}

/// The statement, when it is `ALTER TABLE ... ALTER COLUMN ... ADD GENERATED`.
pub fn parse_add_identity(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    if !parser.peek_keyword(Keyword::ALTER) {
        return None;
    }
    let prefix = match parser.maybe_parse(|parser| {
        parser.expect_keywords(&[Keyword::ALTER, Keyword::TABLE])?;
        let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
        let only = parser.parse_keyword(Keyword::ONLY);
        let name = parser.parse_object_name(false)?;
        parser.expect_keyword(Keyword::ALTER)?;
        let _ = parser.parse_keyword(Keyword::COLUMN);
        let column = parser.parse_identifier()?;
        parser.expect_keywords(&[Keyword::ADD, Keyword::GENERATED])?;
        Ok(Prefix {
            name,
            if_exists,
            only,
            column,
        })
    }) {
        Ok(Some(prefix)) => prefix,
        Ok(None) => return None,
        Err(error) => return Some(Err(error)),
    };
    Some(add_identity(parser, prefix))
}

fn add_identity(parser: &mut Parser<'_>, prefix: Prefix) -> Result<Statement, ParserError> {
    let generated_as = if parser.parse_keyword(Keyword::ALWAYS) {
        GeneratedAs::Always
    } else {
        parser.expect_keywords(&[Keyword::BY, Keyword::DEFAULT])?;
        GeneratedAs::ByDefault
    };
    parser.expect_keywords(&[Keyword::AS, Keyword::IDENTITY])?;
    let mut sequence_name = None;
    let mut options = Vec::new();
    if parser.consume_token(&Token::LParen) {
        loop {
            if parser.parse_keywords(&[Keyword::SEQUENCE, Keyword::NAME]) {
                if sequence_name.is_some() {
                    return Err(ParserError::ParserError(
                        "conflicting or redundant options".to_string(),
                    ));
                }
                let name = parser.parse_object_name(false)?;
                sequence_name = name.0.last().and_then(|part| part.as_ident()).cloned();
                continue;
            }
            let parsed = parse_options(parser, false)?;
            if parsed.data_type.is_some() || parsed.owned_by.is_some() {
                return Err(ParserError::ParserError(
                    "AS and OWNED BY are not identity column options".to_string(),
                ));
            }
            if parsed.options.is_empty() {
                break;
            }
            options.extend(parsed.options);
        }
        parser.expect_token(&Token::RParen)?;
    }
    Ok(Statement::AlterTable(AlterTable {
        name: prefix.name,
        if_exists: prefix.if_exists,
        only: prefix.only,
        operations: vec![AlterTableOperation::AlterColumn {
            column_name: prefix.column,
            op: AlterColumnOperation::AddGenerated {
                generated_as: Some(generated_as),
                sequence_options: Some(options),
            },
        }],
        location: None,
        on_cluster: sequence_name,
        table_type: None,
        end_token: sqlparser::ast::helpers::attached_token::AttachedToken::empty(),
    }))
}
