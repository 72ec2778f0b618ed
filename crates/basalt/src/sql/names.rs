//! Identifier normalisation: how names written in SQL become catalog names.
//!
//! The binder (in `plan/`) resolves every table, column and index name through these
//! functions, so the rule lives in one place. It is PostgreSQL's: an unquoted identifier is
//! folded to lower case, a quoted one (`"Foo"`, and SQLite's `` `Foo` `` and `[Foo]`) is
//! taken exactly as written. So `Foo`, `FOO` and `foo` name one table, and `"Foo"` another.
//!
//! Like PostgreSQL with a UTF-8 database, folding affects ASCII letters only: `CAFÉ` becomes
//! `cafÉ`. This keeps folding independent of locale and Unicode version, so a name folded
//! when a table was created folds the same way forever.

use sqlparser::ast::{Ident, ObjectName, ObjectNamePart};

/// The catalog form of one identifier: unquoted → ASCII-lowercased, quoted → exact.
pub fn normalize_ident(ident: &Ident) -> String {
    match ident.quote_style {
        Some(_) => ident.value.clone(),
        None => ident.value.to_ascii_lowercase(),
    }
}

/// The parts of a possibly qualified name (`schema.table`, `t.col`), each normalised with
/// [`normalize_ident`].
///
/// A part that is not an identifier (sqlparser's dialect-specific `IDENTIFIER(...)`-style
/// function parts, which Basalt's dialect does not produce) is returned as written, so the
/// binder reports it as an unknown name rather than this function failing.
pub fn object_name_parts(name: &ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|part| match part {
            ObjectNamePart::Identifier(ident) => normalize_ident(ident),
            ObjectNamePart::Function(function) => function.to_string(),
        })
        .collect()
}

/// PostgreSQL's reserved keywords (the "reserved" category of its keyword list, those that
/// can name neither a column nor a function): every identifier-quoting rule in Basalt quotes
/// at least these. `catalog::describe` adds the words Basalt's own parser reads specially,
/// `format('%I')` the further categories PostgreSQL's `quote_ident` quotes.
pub const POSTGRESQL_RESERVED: &[&str] = &[
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "binary",
    "both",
    "case",
    "cast",
    "check",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "exists",
    "extract",
    "false",
    "fetch",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "group",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "join",
    "lateral",
    "leading",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "natural",
    "not",
    "notnull",
    "null",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "outer",
    "overlaps",
    "overlay",
    "placing",
    "position",
    "primary",
    "references",
    "returning",
    "right",
    "select",
    "session_user",
    "similar",
    "some",
    "substring",
    "symmetric",
    "table",
    "tablesample",
    "then",
    "to",
    "trailing",
    "trim",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::parse_one;
    use sqlparser::ast::Statement;

    #[test]
    fn folding() {
        assert_eq!(normalize_ident(&Ident::new("FooBar")), "foobar");
        assert_eq!(normalize_ident(&Ident::with_quote('"', "FooBar")), "FooBar");
        assert_eq!(normalize_ident(&Ident::with_quote('`', "FooBar")), "FooBar");
        assert_eq!(
            normalize_ident(&Ident::with_quote('[', "Foo Bar")),
            "Foo Bar"
        );
        assert_eq!(normalize_ident(&Ident::new("CAFÉ")), "cafÉ");
    }

    #[test]
    fn qualified_names_from_sql() {
        let Ok(Statement::Drop { names, .. }) =
            parse_one(r#"DROP TABLE Main."My Table", [Other].T2"#)
        else {
            panic!("DROP TABLE did not parse");
        };
        assert_eq!(object_name_parts(&names[0]), vec!["main", "My Table"]);
        assert_eq!(object_name_parts(&names[1]), vec!["Other", "t2"]);
    }
}
