//! The COPY statement as the server reads it: `COPY table [(columns)] FROM STDIN`,
//! `COPY table [(columns)] | (query) TO STDOUT`, with PostgreSQL's option list
//! (`WITH (FORMAT csv, HEADER true, DELIMITER ',', ...)`) or its pre-9.0 form
//! (`WITH CSV HEADER`, `DELIMITER AS ','`), checked as PostgreSQL checks them.
//!
//! Why the server parses COPY itself: the engine has no COPY (it is a protocol feature, the
//! data travels in CopyData messages), and the workspace's sqlparser reads only part of
//! PostgreSQL's option grammar (`FREEZE on`, which pgbench sends, and `HEADER on` are syntax
//! errors to it). The statement is small; a lexer for its words, literals and parentheses
//! is enough, and keeps the table and column names exactly as written so the engine
//! resolves them as it resolves them in any other statement.
//!
//! What it guarantees: a statement it accepts has a valid, consistent set of options (checked
//! by [`crate::copy_options`] as PostgreSQL's `ProcessCopyOptions` checks them); anything
//! else is a
//! [`WireError`] — 42601 for syntax, 22023 / 0A000 for options, 42501 for a server file or
//! program (Basalt never touches the server's files).

use crate::copy_options::{ColumnSet, CopyOptions, GivenOptions, check_options, set};
use crate::error::{FEATURE_NOT_SUPPORTED, WireError};

/// 42601: the COPY statement does not parse.
const SYNTAX_ERROR: &str = "42601";
/// 42501: COPY to or from a server file or program.
const INSUFFICIENT_PRIVILEGE: &str = "42501";

/// What COPY reads from or writes to the table side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CopySource {
    /// A table: its name as written in the statement (quotes kept) and as PostgreSQL
    /// reports it in error contexts, and the listed columns, each folded and as written.
    Table {
        name_sql: String,
        name: String,
        columns: Vec<(String, String)>,
    },
    /// `(query)`: the query's text.
    Query(String),
}

/// A COPY statement the server can run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CopyStatement {
    pub(crate) source: CopySource,
    /// FROM STDIN (true) or TO STDOUT (false).
    pub(crate) from: bool,
    pub(crate) options: CopyOptions,
}

/// One token of the statement, with its byte span.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    /// An unquoted word, lower-cased, and its text as written.
    Word(String),
    /// A quoted identifier's name.
    Quoted(String),
    /// A string literal's value.
    String(String),
    Number(String),
    Punct(u8),
}

#[derive(Debug)]
struct Lexed {
    token: Token,
    start: usize,
    end: usize,
}

fn syntax(message: impl Into<String>) -> WireError {
    WireError::new(SYNTAX_ERROR, message)
}

fn lex(sql: &str) -> Result<Vec<Lexed>, WireError> {
    let bytes = sql.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let byte = bytes[at];
        let token = match byte {
            b'-' if bytes.get(at + 1) == Some(&b'-') => {
                while at < bytes.len() && bytes[at] != b'\n' {
                    at += 1;
                }
                continue;
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at += 2;
                while at < bytes.len() && !(bytes[at] == b'*' && bytes.get(at + 1) == Some(&b'/')) {
                    at += 1;
                }
                at = (at + 2).min(bytes.len());
                continue;
            }
            byte if byte.is_ascii_whitespace() => {
                at += 1;
                continue;
            }
            b'\'' => {
                let (value, end) = quoted(sql, at, b'\'')?;
                at = end;
                Token::String(value)
            }
            b'e' | b'E' if bytes.get(at + 1) == Some(&b'\'') => {
                let (value, end) = escape_string(sql, at + 1)?;
                at = end;
                Token::String(value)
            }
            b'"' => {
                let (value, end) = quoted(sql, at, b'"')?;
                at = end;
                Token::Quoted(value)
            }
            byte if byte.is_ascii_digit() => {
                while at < bytes.len() && (bytes[at].is_ascii_digit() || bytes[at] == b'.') {
                    at += 1;
                }
                Token::Number(sql.get(start..at).unwrap_or_default().to_owned())
            }
            byte if byte.is_ascii_alphabetic() || byte == b'_' || byte >= 0x80 => {
                while at < bytes.len()
                    && (bytes[at].is_ascii_alphanumeric()
                        || bytes[at] == b'_'
                        || bytes[at] == b'$'
                        || bytes[at] >= 0x80)
                {
                    at += 1;
                }
                Token::Word(sql.get(start..at).unwrap_or_default().to_lowercase())
            }
            other => {
                at += 1;
                Token::Punct(other)
            }
        };
        tokens.push(Lexed {
            token,
            start,
            end: at,
        });
    }
    Ok(tokens)
}

/// A quoted literal or identifier starting at `at`, a doubled quote standing for one.
fn quoted(sql: &str, at: usize, quote: u8) -> Result<(String, usize), WireError> {
    let bytes = sql.as_bytes();
    let mut value = Vec::new();
    let mut index = at + 1;
    while index < bytes.len() {
        if bytes[index] == quote {
            if bytes.get(index + 1) == Some(&quote) {
                value.push(quote);
                index += 2;
                continue;
            }
            return Ok((String::from_utf8_lossy(&value).into_owned(), index + 1));
        }
        value.push(bytes[index]);
        index += 1;
    }
    Err(syntax("unterminated quoted string in COPY statement"))
}

/// An `E'...'` literal starting at its quote: backslash escapes `\n`, `\t`, `\\`, `\'` ...
fn escape_string(sql: &str, at: usize) -> Result<(String, usize), WireError> {
    let bytes = sql.as_bytes();
    let mut value = Vec::new();
    let mut index = at + 1;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' => {
                let next = bytes.get(index + 1).copied().unwrap_or(b'\\');
                value.push(match next {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'b' => 8,
                    b'f' => 12,
                    other => other,
                });
                index += 2;
            }
            b'\'' if bytes.get(index + 1) == Some(&b'\'') => {
                value.push(b'\'');
                index += 2;
            }
            b'\'' => return Ok((String::from_utf8_lossy(&value).into_owned(), index + 1)),
            other => {
                value.push(other);
                index += 1;
            }
        }
    }
    Err(syntax("unterminated quoted string in COPY statement"))
}

struct Parser<'a> {
    sql: &'a str,
    tokens: Vec<Lexed>,
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|lexed| &lexed.token)
    }

    fn next(&mut self) -> Option<&Lexed> {
        let token = self.tokens.get(self.at);
        self.at += 1;
        token
    }

    fn at_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w == word)
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let found = self.at_word(word);
        if found {
            self.at += 1;
        }
        found
    }

    fn eat_punct(&mut self, punct: u8) -> bool {
        let found = self.peek() == Some(&Token::Punct(punct));
        if found {
            self.at += 1;
        }
        found
    }

    fn expect_punct(&mut self, punct: u8) -> Result<(), WireError> {
        if self.eat_punct(punct) {
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn unexpected(&self) -> WireError {
        match self.tokens.get(self.at) {
            Some(lexed) => syntax(format!(
                "syntax error at or near \"{}\"",
                self.sql.get(lexed.start..lexed.end).unwrap_or_default()
            )),
            None => syntax("syntax error at end of input"),
        }
    }

    /// A name (identifier, keyword or quoted identifier): its folded form and its text.
    fn name(&mut self) -> Result<(String, String), WireError> {
        let sql = self.sql;
        match self.next() {
            Some(Lexed {
                token: Token::Word(word),
                start,
                end,
            }) => Ok((
                word.clone(),
                sql.get(*start..*end).unwrap_or_default().to_owned(),
            )),
            Some(Lexed {
                token: Token::Quoted(name),
                start,
                end,
            }) => Ok((
                name.clone(),
                sql.get(*start..*end).unwrap_or_default().to_owned(),
            )),
            _ => {
                self.at -= 1;
                Err(self.unexpected())
            }
        }
    }

    fn string(&mut self) -> Result<String, WireError> {
        match self.next() {
            Some(Lexed {
                token: Token::String(value),
                ..
            }) => Ok(value.clone()),
            _ => {
                self.at -= 1;
                Err(self.unexpected())
            }
        }
    }

    /// `(a, b, "C")`: the names, folded.
    fn name_list(&mut self) -> Result<Vec<(String, String)>, WireError> {
        self.expect_punct(b'(')?;
        let mut names = vec![self.name()?];
        while self.eat_punct(b',') {
            names.push(self.name()?);
        }
        self.expect_punct(b')')?;
        Ok(names)
    }

    /// A boolean option's optional value: `true`, `on`, `1`, ... (absent: true).
    fn boolean(&mut self, option: &str) -> Result<bool, WireError> {
        let word = match self.peek() {
            Some(Token::Word(word)) => word.clone(),
            Some(Token::String(word)) => word.to_lowercase(),
            Some(Token::Number(number)) => number.clone(),
            _ => return Ok(true),
        };
        self.at += 1;
        match word.as_str() {
            "true" | "on" | "1" | "yes" => Ok(true),
            "false" | "off" | "0" | "no" => Ok(false),
            _ => Err(WireError::new(
                SYNTAX_ERROR,
                format!("{option} requires a Boolean value"),
            )),
        }
    }

    /// A string option's value: a literal, or a bare word / number.
    fn value(&mut self) -> Result<String, WireError> {
        match self.next().map(|lexed| lexed.token.clone()) {
            Some(Token::String(value) | Token::Word(value) | Token::Number(value)) => Ok(value),
            _ => {
                self.at -= 1;
                Err(self.unexpected())
            }
        }
    }

    /// FORCE_QUOTE's `*` or a parenthesised column list.
    fn column_set(&mut self) -> Result<ColumnSet, WireError> {
        if self.eat_punct(b'*') {
            return Ok(ColumnSet::All);
        }
        let names = self.name_list()?;
        Ok(ColumnSet::Some(
            names.into_iter().map(|(name, _)| name).collect(),
        ))
    }

    /// The modern option list, after its `(`.
    fn option_list(&mut self, given: &mut GivenOptions) -> Result<(), WireError> {
        loop {
            let (option, _) = self.name()?;
            match option.as_str() {
                "format" => set(&mut given.format, self.value()?.to_lowercase())?,
                "freeze" => set(&mut given.freeze, self.boolean("freeze")?)?,
                "delimiter" => set(&mut given.delimiter, self.value()?)?,
                "null" => set(&mut given.null, self.value()?)?,
                "header" => {
                    if self.at_word("match") {
                        return Err(WireError::new(
                            FEATURE_NOT_SUPPORTED,
                            "COPY HEADER MATCH is not supported by Basalt",
                        ));
                    }
                    set(&mut given.header, self.boolean("header")?)?;
                }
                "quote" => set(&mut given.quote, self.value()?)?,
                "escape" => set(&mut given.escape, self.value()?)?,
                "force_quote" => set(&mut given.force_quote, self.column_set()?)?,
                "force_not_null" => set(&mut given.force_not_null, self.column_set()?)?,
                "force_null" => set(&mut given.force_null, self.column_set()?)?,
                "encoding" => set(&mut given.encoding, self.value()?)?,
                other => {
                    return Err(WireError::new(
                        SYNTAX_ERROR,
                        format!("option \"{other}\" not recognized"),
                    ));
                }
            }
            if !self.eat_punct(b',') {
                return self.expect_punct(b')');
            }
        }
    }

    /// The pre-9.0 options: `BINARY`, `CSV`, `HEADER`, `DELIMITER [AS] 'c'`, ...
    fn legacy_options(&mut self, given: &mut GivenOptions) -> Result<(), WireError> {
        while let Some(Token::Word(word)) = self.peek().cloned() {
            self.at += 1;
            match word.as_str() {
                "binary" => set(&mut given.format, "binary".to_owned())?,
                "csv" => set(&mut given.format, "csv".to_owned())?,
                "header" => set(&mut given.header, true)?,
                "freeze" => set(&mut given.freeze, true)?,
                "oids" => {
                    return Err(WireError::new(
                        FEATURE_NOT_SUPPORTED,
                        "COPY OIDS is not supported",
                    ));
                }
                "delimiter" | "null" | "quote" | "escape" => {
                    self.eat_word("as");
                    let value = self.string()?;
                    let slot = match word.as_str() {
                        "delimiter" => &mut given.delimiter,
                        "null" => &mut given.null,
                        "quote" => &mut given.quote,
                        _ => &mut given.escape,
                    };
                    set(slot, value)?;
                }
                "force" => {
                    if self.eat_word("quote") {
                        let columns = if self.eat_punct(b'*') {
                            ColumnSet::All
                        } else {
                            ColumnSet::Some(self.bare_names()?)
                        };
                        set(&mut given.force_quote, columns)?;
                    } else if self.eat_word("not") {
                        if !self.eat_word("null") {
                            return Err(self.unexpected());
                        }
                        set(
                            &mut given.force_not_null,
                            ColumnSet::Some(self.bare_names()?),
                        )?;
                    } else {
                        return Err(self.unexpected());
                    }
                }
                _ => {
                    self.at -= 1;
                    return Err(self.unexpected());
                }
            }
        }
        Ok(())
    }

    /// `a, b, c` without parentheses (the old FORCE forms).
    fn bare_names(&mut self) -> Result<Vec<String>, WireError> {
        let mut names = vec![self.name()?.0];
        while self.eat_punct(b',') {
            names.push(self.name()?.0);
        }
        Ok(names)
    }
}

/// Parses one COPY statement (`sql` is its text alone, a trailing `;` allowed).
pub(crate) fn parse_copy(sql: &str) -> Result<CopyStatement, WireError> {
    let mut parser = Parser {
        sql,
        tokens: lex(sql)?,
        at: 0,
    };
    if !parser.eat_word("copy") {
        return Err(parser.unexpected());
    }
    let source = if parser.peek() == Some(&Token::Punct(b'(')) {
        let open = parser.at;
        let mut depth = 0usize;
        let mut close = None;
        for (index, lexed) in parser.tokens.iter().enumerate().skip(open) {
            match lexed.token {
                Token::Punct(b'(') => depth += 1,
                Token::Punct(b')') => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(index);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else {
            parser.at = parser.tokens.len();
            return Err(parser.unexpected());
        };
        let start = parser.tokens[open].end;
        let end = parser.tokens[close].start;
        parser.at = close + 1;
        CopySource::Query(sql.get(start..end).unwrap_or_default().trim().to_owned())
    } else {
        let (mut name, mut name_sql) = parser.name()?;
        while parser.eat_punct(b'.') {
            let (part, part_sql) = parser.name()?;
            name = part;
            name_sql = format!("{name_sql}.{part_sql}");
        }
        let columns = if parser.peek() == Some(&Token::Punct(b'(')) {
            parser.name_list()?
        } else {
            Vec::new()
        };
        CopySource::Table {
            name_sql,
            name,
            columns,
        }
    };
    let from = if parser.eat_word("from") {
        true
    } else if parser.eat_word("to") {
        false
    } else {
        return Err(parser.unexpected());
    };
    if from && matches!(source, CopySource::Query(_)) {
        return Err(syntax("COPY FROM does not take a query; name a table"));
    }
    let stdio = if from { "stdin" } else { "stdout" };
    if !parser.eat_word(stdio) {
        if parser.at_word("program")
            || matches!(parser.peek(), Some(Token::String(_)))
            || parser.at_word("stdin")
            || parser.at_word("stdout")
        {
            let program = parser.at_word("program");
            if parser.at_word("stdin") || parser.at_word("stdout") {
                return Err(parser.unexpected());
            }
            return Err(server_side(program, from));
        }
        return Err(parser.unexpected());
    }
    let mut given = GivenOptions::default();
    parser.eat_word("with");
    if parser.eat_punct(b'(') {
        parser.option_list(&mut given)?;
    } else {
        parser.legacy_options(&mut given)?;
    }
    while parser.eat_punct(b';') {}
    if parser.peek().is_some() {
        return Err(parser.unexpected());
    }
    let options = check_options(given, from)?;
    Ok(CopyStatement {
        source,
        from,
        options,
    })
}

/// The refusal of COPY to or from the server's files or a program, as PostgreSQL words it
/// for a role without the file privileges.
fn server_side(program: bool, from: bool) -> WireError {
    let role = match (program, from) {
        (true, _) => "pg_execute_server_program",
        (false, true) => "pg_read_server_files",
        (false, false) => "pg_write_server_files",
    };
    let what = match (program, from) {
        (true, true) => "COPY from an external program",
        (true, false) => "COPY to an external program",
        (false, true) => "COPY from a file",
        (false, false) => "COPY to a file",
    };
    let mut error = WireError::new(
        INSUFFICIENT_PRIVILEGE,
        format!("must be superuser or have privileges of the {role} role to {what}"),
    );
    error.hint = Some(
        "Basalt's server never reads or writes files on the server. Anyone can COPY to \
         stdout or from stdin. psql's \\copy command also works for anyone."
            .to_owned(),
    );
    error
}

impl CopyStatement {
    /// The FORCE_* column names that must be among the copied columns.
    pub(crate) fn forced_columns(&self) -> impl Iterator<Item = &String> {
        let options = &self.options;
        options
            .force_quote
            .names()
            .iter()
            .chain(options.force_not_null.names())
            .chain(options.force_null.names())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_options::Format;

    #[test]
    fn modern_and_legacy_options() {
        let copy = parse_copy(
            "copy pgbench_accounts from stdin with (freeze on, FORMAT csv, HEADER true, \
             DELIMITER ';', NULL 'x', QUOTE '''', ESCAPE '\\')",
        )
        .expect("parses");
        assert!(copy.from);
        assert_eq!(copy.options.format, Format::Csv);
        assert_eq!(copy.options.delimiter, b';');
        assert_eq!(copy.options.quote, b'\'');
        assert_eq!(copy.options.escape, b'\\');
        assert!(copy.options.header);
        let legacy =
            parse_copy("COPY \"T\" (a, \"B\") FROM STDIN WITH CSV HEADER DELIMITER AS '|'")
                .expect("parses");
        assert_eq!(
            legacy.source,
            CopySource::Table {
                name_sql: "\"T\"".to_owned(),
                name: "T".to_owned(),
                columns: vec![
                    ("a".to_owned(), "a".to_owned()),
                    ("B".to_owned(), "\"B\"".to_owned())
                ],
            }
        );
        assert_eq!(legacy.options.delimiter, b'|');
        let text = parse_copy("copy t to stdout;").expect("parses");
        assert_eq!(text.options.delimiter, b'\t');
        assert_eq!(text.options.null, "\\N");
        let query = parse_copy("COPY (SELECT a, (b) FROM t) TO STDOUT (FORMAT csv, FORCE_QUOTE *)")
            .expect("parses");
        assert_eq!(
            query.source,
            CopySource::Query("SELECT a, (b) FROM t".to_owned())
        );
        assert_eq!(query.options.force_quote, ColumnSet::All);
    }

    #[test]
    fn refusals_carry_postgresql_codes() {
        let code = |sql: &str| parse_copy(sql).map(|_| ()).map_err(|error| error.code);
        assert_eq!(code("copy t from '/etc/passwd'"), Err("42501"));
        assert_eq!(code("copy t to program 'ls'"), Err("42501"));
        assert_eq!(code("copy t from stdin (format binary)"), Ok(()));
        assert_eq!(code("copy t from stdin binary"), Ok(()));
        assert_eq!(
            code("copy t to stdout (format binary, header)"),
            Err("42601")
        );
        assert_eq!(
            code("copy t from stdin (format binary, null 'x')"),
            Err("42601")
        );
        assert_eq!(code("copy t from stdin (format xml)"), Err("22023"));
        assert_eq!(code("copy t from stdin (quote '\"')"), Err("0A000"));
        assert_eq!(code("copy t from stdin (delimiter ',,')"), Err("0A000"));
        assert_eq!(
            code("copy t from stdin (format csv, delimiter '\"')"),
            Err("22023")
        );
        assert_eq!(code("copy t to stdin"), Err("42601"));
        assert_eq!(code("copy t from stdin (header, header)"), Err("42601"));
        assert_eq!(
            code("copy t from stdin (format csv, force_quote *)"),
            Err("0A000")
        );
    }
}
