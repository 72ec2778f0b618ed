//! `CREATE SEQUENCE` with its options in any order, and `ALTER SEQUENCE`, as PostgreSQL
//! writes them (pg_dump emits `START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1`,
//! an order sqlparser's fixed grammar refuses, and sqlparser has no `ALTER SEQUENCE`).
//!
//! Both are parsed here from the dialect's `parse_statement` hook. `CREATE SEQUENCE` becomes
//! sqlparser's own `Statement::CreateSequence`, its options listed in the order written.
//! `ALTER SEQUENCE`, which has no AST of its own, is carried as `Statement::AlterConnector`
//! (Hive's `ALTER CONNECTOR`, which Basalt's dialect refuses, so that AST can only come from
//! here): `name` is the sequence's (last) name part and each option one
//! `SqlOption::KeyValue` whose key is an [`AlterOption`] name, in the order written — see
//! [`AlterOption`] for the values. Giving an option twice is 42601 (`conflicting or
//! redundant options`), as in PostgreSQL.

use sqlparser::ast::{
    DataType, Expr, Ident, ObjectName, SequenceOptions, SqlOption, Statement, Value,
};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// The keys of an `ALTER SEQUENCE` carried as `AlterConnector` properties, and their values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlterOption {
    /// `IF EXISTS`: the value is `TRUE`.
    IfExists,
    /// `INCREMENT [BY] n`: the number.
    Increment,
    /// `MINVALUE n` / `NO MINVALUE`: the number, or NULL.
    MinValue,
    /// `MAXVALUE n` / `NO MAXVALUE`: the number, or NULL.
    MaxValue,
    /// `START [WITH] n`: the number.
    Start,
    /// `RESTART [[WITH] n]`: the number, or NULL for the sequence's start.
    Restart,
    /// `CACHE n`: the number.
    Cache,
    /// `[NO] CYCLE`: a boolean.
    Cycle,
    /// `AS type`: the type's name as an identifier.
    As,
    /// `OWNED BY NONE` / `OWNED BY table.column`: the name as a (compound) identifier.
    OwnedBy,
}

impl AlterOption {
    const ALL: [AlterOption; 10] = [
        AlterOption::IfExists,
        AlterOption::Increment,
        AlterOption::MinValue,
        AlterOption::MaxValue,
        AlterOption::Start,
        AlterOption::Restart,
        AlterOption::Cache,
        AlterOption::Cycle,
        AlterOption::As,
        AlterOption::OwnedBy,
    ];

    /// The key this option is carried under.
    pub fn key(self) -> &'static str {
        match self {
            AlterOption::IfExists => "if_exists",
            AlterOption::Increment => "increment",
            AlterOption::MinValue => "minvalue",
            AlterOption::MaxValue => "maxvalue",
            AlterOption::Start => "start",
            AlterOption::Restart => "restart",
            AlterOption::Cache => "cache",
            AlterOption::Cycle => "cycle",
            AlterOption::As => "as",
            AlterOption::OwnedBy => "owned_by",
        }
    }

    /// The option carried under `key`.
    pub fn of_key(key: &str) -> Option<AlterOption> {
        AlterOption::ALL
            .into_iter()
            .find(|option| option.key() == key)
    }
}

/// The options of either statement, as written.
#[derive(Default)]
pub(crate) struct Parsed {
    pub(crate) options: Vec<SequenceOptions>,
    pub(crate) data_type: Option<DataType>,
    pub(crate) owned_by: Option<ObjectName>,
    /// `RESTART` (ALTER only): `Some(None)` without a value.
    pub(crate) restart: Option<Option<Expr>>,
    /// Each option's name, to refuse one given twice.
    seen: Vec<&'static str>,
}

impl Parsed {
    fn note(&mut self, option: &'static str) -> Result<(), ParserError> {
        if self.seen.contains(&option) {
            return Err(ParserError::ParserError(
                "conflicting or redundant options".to_string(),
            ));
        }
        self.seen.push(option);
        Ok(())
    }
}

fn is_keyword(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(word) if word.keyword == keyword && word.quote_style.is_none())
}

/// `CREATE [TEMP | TEMPORARY] SEQUENCE ...`, when that is what comes next.
pub fn parse_create_sequence(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    let [create, second, third] = parser.peek_tokens_ref::<3>();
    if !is_keyword(&create.token, Keyword::CREATE) {
        return None;
    }
    let temporary =
        is_keyword(&second.token, Keyword::TEMP) || is_keyword(&second.token, Keyword::TEMPORARY);
    let sequence = if temporary { third } else { second };
    if !is_keyword(&sequence.token, Keyword::SEQUENCE) {
        return None;
    }
    for _ in 0..(2 + usize::from(temporary)) {
        parser.advance_token();
    }
    Some(create_sequence(parser, temporary))
}

fn create_sequence(parser: &mut Parser<'_>, temporary: bool) -> Result<Statement, ParserError> {
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    let parsed = parse_options(parser, false)?;
    Ok(Statement::CreateSequence {
        temporary,
        if_not_exists,
        name,
        data_type: parsed.data_type,
        sequence_options: parsed.options,
        owned_by: parsed.owned_by,
    })
}

/// `ALTER SEQUENCE ...` (carried as `AlterConnector`), or the refusal of a written `ALTER
/// CONNECTOR`, when one of them comes next.
pub fn parse_alter_sequence(parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
    let [alter, second] = parser.peek_tokens_ref::<2>();
    if !is_keyword(&alter.token, Keyword::ALTER) {
        return None;
    }
    if is_keyword(&second.token, Keyword::CONNECTOR) {
        return Some(Err(ParserError::ParserError(
            "ALTER CONNECTOR is not supported".to_string(),
        )));
    }
    if !is_keyword(&second.token, Keyword::SEQUENCE) {
        return None;
    }
    parser.advance_token();
    parser.advance_token();
    Some(alter_sequence(parser))
}

fn alter_sequence(parser: &mut Parser<'_>) -> Result<Statement, ParserError> {
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    let Some(last) = name.0.last().and_then(|part| part.as_ident()).cloned() else {
        return Err(ParserError::ParserError(format!("invalid name {name}")));
    };
    let parsed = parse_options(parser, true)?;
    if parsed.seen.is_empty() {
        return parser.expected_ref("an ALTER SEQUENCE option", parser.peek_token_ref());
    }
    let property = |option: AlterOption, value: Expr| SqlOption::KeyValue {
        key: Ident::new(option.key()),
        value,
    };
    let null = || Expr::Value(Value::Null.into());
    let mut properties = Vec::new();
    if if_exists {
        properties.push(property(
            AlterOption::IfExists,
            Expr::Value(Value::Boolean(true).into()),
        ));
    }
    for option in parsed.options {
        properties.push(match option {
            SequenceOptions::IncrementBy(value, _) => property(AlterOption::Increment, value),
            SequenceOptions::MinValue(value) => {
                property(AlterOption::MinValue, value.unwrap_or_else(null))
            }
            SequenceOptions::MaxValue(value) => {
                property(AlterOption::MaxValue, value.unwrap_or_else(null))
            }
            SequenceOptions::StartWith(value, _) => property(AlterOption::Start, value),
            SequenceOptions::Cache(value) => property(AlterOption::Cache, value),
            SequenceOptions::Cycle(no_cycle) => property(
                AlterOption::Cycle,
                Expr::Value(Value::Boolean(!no_cycle).into()),
            ),
        });
    }
    if let Some(restart) = parsed.restart {
        properties.push(property(AlterOption::Restart, restart.unwrap_or_else(null)));
    }
    if let Some(data_type) = parsed.data_type {
        properties.push(property(
            AlterOption::As,
            Expr::Identifier(Ident::new(data_type.to_string())),
        ));
    }
    if let Some(owner) = parsed.owned_by {
        let parts: Vec<Ident> = owner
            .0
            .iter()
            .filter_map(|part| part.as_ident().cloned())
            .collect();
        properties.push(property(
            AlterOption::OwnedBy,
            Expr::CompoundIdentifier(parts),
        ));
    }
    Ok(Statement::AlterConnector {
        name: last,
        properties: Some(properties),
        url: None,
        owner: None,
    })
}

/// The options after the sequence's name, in any order, each at most once.
pub(crate) fn parse_options(parser: &mut Parser<'_>, alter: bool) -> Result<Parsed, ParserError> {
    let mut parsed = Parsed::default();
    loop {
        if parser.parse_keyword(Keyword::AS) {
            parsed.note("AS")?;
            parsed.data_type = Some(parser.parse_data_type()?);
        } else if parser.parse_keyword(Keyword::INCREMENT) {
            parsed.note("INCREMENT")?;
            let by = parser.parse_keyword(Keyword::BY);
            let value = parser.parse_number()?;
            parsed.options.push(SequenceOptions::IncrementBy(value, by));
        } else if parser.parse_keyword(Keyword::MINVALUE) {
            parsed.note("MINVALUE")?;
            let value = parser.parse_number()?;
            parsed.options.push(SequenceOptions::MinValue(Some(value)));
        } else if parser.parse_keywords(&[Keyword::NO, Keyword::MINVALUE]) {
            parsed.note("MINVALUE")?;
            parsed.options.push(SequenceOptions::MinValue(None));
        } else if parser.parse_keyword(Keyword::MAXVALUE) {
            parsed.note("MAXVALUE")?;
            let value = parser.parse_number()?;
            parsed.options.push(SequenceOptions::MaxValue(Some(value)));
        } else if parser.parse_keywords(&[Keyword::NO, Keyword::MAXVALUE]) {
            parsed.note("MAXVALUE")?;
            parsed.options.push(SequenceOptions::MaxValue(None));
        } else if parser.parse_keyword(Keyword::START) {
            parsed.note("START")?;
            let with = parser.parse_keyword(Keyword::WITH);
            let value = parser.parse_number()?;
            parsed.options.push(SequenceOptions::StartWith(value, with));
        } else if alter && parser.parse_keyword(Keyword::RESTART) {
            parsed.note("RESTART")?;
            let with = parser.parse_keyword(Keyword::WITH);
            let has_value = with
                || matches!(
                    parser.peek_token_ref().token,
                    Token::Number(..) | Token::Minus | Token::Plus
                );
            parsed.restart = Some(if has_value {
                Some(parser.parse_number()?)
            } else {
                None
            });
        } else if parser.parse_keyword(Keyword::CACHE) {
            parsed.note("CACHE")?;
            let value = parser.parse_number()?;
            parsed.options.push(SequenceOptions::Cache(value));
        } else if parser.parse_keywords(&[Keyword::NO, Keyword::CYCLE]) {
            parsed.note("CYCLE")?;
            parsed.options.push(SequenceOptions::Cycle(true));
        } else if parser.parse_keyword(Keyword::CYCLE) {
            parsed.note("CYCLE")?;
            parsed.options.push(SequenceOptions::Cycle(false));
        } else if parser.parse_keywords(&[Keyword::OWNED, Keyword::BY]) {
            parsed.note("OWNED BY")?;
            parsed.owned_by = Some(if parser.parse_keyword(Keyword::NONE) {
                ObjectName::from(vec![Ident::new("NONE")])
            } else {
                parser.parse_object_name(false)?
            });
        } else {
            return Ok(parsed);
        }
    }
}
