//! What kind of command a statement is, from its leading keywords: enough for PostgreSQL's
//! command tags (`SELECT 3`, `INSERT 0 1`, `CREATE TABLE`, ...) and for the rules of a failed
//! transaction block, where only ROLLBACK (or ROLLBACK TO SAVEPOINT, or COMMIT, which then
//! rolls back) may run.
//!
//! It reads the statement's text with a small lexer that skips comments, string literals,
//! quoted identifiers and parenthesised parts, and stops as soon as it knows: the engine has
//! already parsed the statement, so the text is valid SQL, and the kind needs no second full
//! parse. A statement it does not recognise gets its first keyword, upper-cased, as its tag,
//! which is what PostgreSQL does for most utility commands.

/// A statement's kind, as the server needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Command {
    /// SELECT, VALUES, TABLE, SHOW-like queries, and CREATE TABLE AS: tag `SELECT n`.
    Select,
    /// INSERT: tag `INSERT 0 n`.
    Insert,
    /// UPDATE, DELETE, MERGE: tag `UPDATE n` and so on.
    Update,
    Delete,
    Merge,
    Begin,
    /// COMMIT or END.
    Commit,
    /// ROLLBACK or ABORT, ending the transaction.
    Rollback,
    /// ROLLBACK TO [SAVEPOINT] name: the transaction continues.
    RollbackTo,
    /// COPY: tag `COPY n`.
    Copy,
    /// FETCH from a cursor: tag `FETCH n` (the rows returned).
    Fetch,
    /// MOVE of a cursor: tag `MOVE n` (the rows moved over).
    Move,
    /// DEALLOCATE [PREPARE] name, or ALL (`None`): run by the server, which owns the
    /// protocol's prepared statements (psycopg sends DEALLOCATE ALL after a DROP or ALTER).
    Deallocate(Option<String>),
    /// Anything else, with its tag (`CREATE TABLE`, `SET`, `SAVEPOINT`, ...).
    Other(String),
}

impl Command {
    /// The kind of `sql`, one statement's text.
    pub(crate) fn of(sql: &str) -> Command {
        let words = leading_words(sql, 4);
        let word = |index: usize| words.get(index).map(String::as_str).unwrap_or("");
        match word(0) {
            "select" | "values" | "table" => Command::Select,
            "insert" => Command::Insert,
            "update" => Command::Update,
            "delete" => Command::Delete,
            "merge" => Command::Merge,
            "with" => main_statement_of_with(sql),
            "begin" | "start" => Command::Begin,
            "commit" | "end" => Command::Commit,
            "rollback" | "abort" => {
                if words.iter().skip(1).any(|word| word == "to") {
                    Command::RollbackTo
                } else {
                    Command::Rollback
                }
            }
            "create" => create_tag(sql, &words),
            "drop" | "alter" => {
                Command::Other(format!("{} {}", word(0), object_word(&words[1..])).to_uppercase())
            }
            "truncate" => Command::Other("TRUNCATE TABLE".to_owned()),
            "copy" => Command::Copy,
            "fetch" => Command::Fetch,
            "move" => Command::Move,
            "declare" => Command::Other("DECLARE CURSOR".to_owned()),
            "deallocate" => {
                let name = if word(1) == "prepare" {
                    word(2)
                } else {
                    word(1)
                };
                Command::Deallocate((name != "all").then(|| name.to_owned()))
            }
            "close" if word(1) == "all" => Command::Other("CLOSE CURSOR ALL".to_owned()),
            "close" => Command::Other("CLOSE CURSOR".to_owned()),
            // No word outside parentheses: a parenthesised query, `(SELECT 1)`.
            "" => Command::Select,
            first => Command::Other(first.to_uppercase()),
        }
    }

    /// PostgreSQL's CommandComplete tag for this command having affected or returned `rows`.
    pub(crate) fn tag(&self, rows: u64) -> String {
        match self {
            Command::Select => format!("SELECT {rows}"),
            Command::Insert => format!("INSERT 0 {rows}"),
            Command::Update => format!("UPDATE {rows}"),
            Command::Delete => format!("DELETE {rows}"),
            Command::Merge => format!("MERGE {rows}"),
            Command::Copy => format!("COPY {rows}"),
            Command::Fetch => format!("FETCH {rows}"),
            Command::Move => format!("MOVE {rows}"),
            Command::Begin => "BEGIN".to_owned(),
            Command::Commit => "COMMIT".to_owned(),
            Command::Rollback | Command::RollbackTo => "ROLLBACK".to_owned(),
            Command::Deallocate(Some(_)) => "DEALLOCATE".to_owned(),
            Command::Deallocate(None) => "DEALLOCATE ALL".to_owned(),
            Command::Other(tag) => tag.clone(),
        }
    }

    /// Whether it may run in a failed transaction block.
    pub(crate) fn ends_failure(&self) -> bool {
        matches!(
            self,
            Command::Commit | Command::Rollback | Command::RollbackTo
        )
    }

    /// Whether it opens, ends or marks a transaction (BEGIN, COMMIT, ROLLBACK, SAVEPOINT,
    /// RELEASE): a message holding one is not wrapped in an implicit transaction.
    pub(crate) fn controls_transaction(&self) -> bool {
        match self {
            Command::Begin | Command::Commit | Command::Rollback | Command::RollbackTo => true,
            Command::Other(tag) => tag == "SAVEPOINT" || tag == "RELEASE",
            _ => false,
        }
    }

    /// Whether its row count is the rows it changed (reported by its first execution)
    /// rather than the rows an execution returned.
    pub(crate) fn counts_changes(&self) -> bool {
        matches!(
            self,
            Command::Insert | Command::Update | Command::Delete | Command::Merge | Command::Move
        )
    }
}

/// The object word of `CREATE ...` / `DROP ...` / `ALTER ...` (`TABLE`, `INDEX`,
/// `MATERIALIZED VIEW`), past the modifiers that are not part of PostgreSQL's tag.
fn object_word(words: &[String]) -> String {
    let mut rest = words.iter().map(String::as_str).skip_while(|word| {
        matches!(
            *word,
            "or" | "replace"
                | "unique"
                | "temp"
                | "temporary"
                | "unlogged"
                | "global"
                | "local"
                | "virtual"
                | "recursive"
        )
    });
    match rest.next() {
        Some("materialized") => "materialized view".to_owned(),
        Some(word) => word.to_owned(),
        None => String::new(),
    }
}

/// `CREATE TABLE ... AS query` reports `SELECT n`, as PostgreSQL does; other CREATEs report
/// `CREATE <object>`.
fn create_tag(sql: &str, words: &[String]) -> Command {
    let object = object_word(&words[1..]);
    if object == "table" || object == "materialized view" {
        let top = top_level_words(sql);
        if top.iter().any(|word| word == "as") {
            return Command::Select;
        }
    }
    Command::Other(format!("CREATE {}", object.to_uppercase()))
}

/// The statement a `WITH` introduces: the first top-level keyword after the CTEs.
fn main_statement_of_with(sql: &str) -> Command {
    for word in top_level_words(sql) {
        match word.as_str() {
            "insert" => return Command::Insert,
            "update" => return Command::Update,
            "delete" => return Command::Delete,
            "merge" => return Command::Merge,
            "select" | "values" | "table" => return Command::Select,
            _ => {}
        }
    }
    Command::Select
}

/// Whether `sql` holds no statement: only whitespace, comments and semicolons (the wire
/// protocol's empty query). Cheaper than parsing it, which Parse would otherwise do twice.
pub(crate) fn is_empty_query(sql: &str) -> bool {
    let bytes = sql.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'-' if bytes.get(at + 1) == Some(&b'-') => {
                at = find_from(bytes, at, b"\n").map_or(bytes.len(), |end| end + 1);
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                match find_from(bytes, at + 2, b"*/") {
                    Some(end) => at = end + 2,
                    // An unterminated comment is the parser's error to report.
                    None => return false,
                }
            }
            byte if byte == b';' || byte.is_ascii_whitespace() => at += 1,
            _ => return false,
        }
    }
    true
}

/// The first `limit` keywords or identifiers of `sql`, lower-cased, outside parentheses.
fn leading_words(sql: &str, limit: usize) -> Vec<String> {
    let mut words = Vec::new();
    Lexer::new(sql).for_each_top_level_word(|word| {
        words.push(word.to_ascii_lowercase());
        words.len() < limit
    });
    words
}

/// Every keyword or identifier of `sql` outside parentheses, lower-cased.
fn top_level_words(sql: &str) -> Vec<String> {
    let mut words = Vec::new();
    Lexer::new(sql).for_each_top_level_word(|word| {
        words.push(word.to_ascii_lowercase());
        true
    });
    words
}

/// Just enough of a SQL lexer to find the words outside parentheses, literals and comments.
struct Lexer<'a> {
    sql: &'a str,
}

impl<'a> Lexer<'a> {
    fn new(sql: &'a str) -> Self {
        Lexer { sql }
    }

    /// Calls `visit` with each word at parenthesis depth 0 until it returns false.
    fn for_each_top_level_word(&self, mut visit: impl FnMut(&str) -> bool) {
        let bytes = self.sql.as_bytes();
        let mut at = 0;
        let mut depth = 0usize;
        while at < bytes.len() {
            let byte = bytes[at];
            match byte {
                b'-' if bytes.get(at + 1) == Some(&b'-') => {
                    at = find_from(bytes, at, b"\n").map_or(bytes.len(), |end| end + 1);
                }
                b'/' if bytes.get(at + 1) == Some(&b'*') => {
                    at = find_from(bytes, at + 2, b"*/").map_or(bytes.len(), |end| end + 2);
                }
                b'\'' | b'"' | b'`' => at = skip_quoted(bytes, at, byte),
                b'$' => at = skip_dollar(bytes, at),
                b'(' | b'[' => {
                    depth += 1;
                    at += 1;
                }
                b')' | b']' => {
                    depth = depth.saturating_sub(1);
                    at += 1;
                }
                byte if byte.is_ascii_alphabetic() || byte == b'_' || byte >= 0x80 => {
                    let start = at;
                    while at < bytes.len()
                        && (bytes[at].is_ascii_alphanumeric()
                            || bytes[at] == b'_'
                            || bytes[at] == b'$'
                            || bytes[at] >= 0x80)
                    {
                        at += 1;
                    }
                    if depth == 0
                        && let Some(word) = self.sql.get(start..at)
                        && !visit(word)
                    {
                        return;
                    }
                }
                _ => at += 1,
            }
        }
    }
}

fn find_from(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|position| from + position)
}

/// Past a quoted literal or identifier starting at `at` (a doubled quote is one character).
fn skip_quoted(bytes: &[u8], mut at: usize, quote: u8) -> usize {
    at += 1;
    while at < bytes.len() {
        if bytes[at] == quote {
            if bytes.get(at + 1) == Some(&quote) {
                at += 2;
                continue;
            }
            return at + 1;
        }
        at += 1;
    }
    at
}

/// Past a dollar-quoted string (`$$...$$`, `$tag$...$tag$`) starting at `at`, or past a
/// lone `$` (a parameter such as `$1`).
fn skip_dollar(bytes: &[u8], at: usize) -> usize {
    let mut end = at + 1;
    while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
        end += 1;
    }
    if bytes.get(end) != Some(&b'$') || bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
        return at + 1;
    }
    let delimiter = &bytes[at..=end];
    find_from(bytes, end + 1, delimiter).map_or(bytes.len(), |close| close + delimiter.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_follow_postgresql() {
        let tag = |sql: &str, rows| Command::of(sql).tag(rows);
        assert_eq!(tag("select 1", 1), "SELECT 1");
        assert_eq!(tag("FETCH 3 FROM c", 2), "FETCH 2");
        assert_eq!(tag("move absolute 4 in c", 1), "MOVE 1");
        assert_eq!(
            tag("DECLARE c SCROLL CURSOR FOR SELECT 1", 0),
            "DECLARE CURSOR"
        );
        assert_eq!(tag("CLOSE c", 0), "CLOSE CURSOR");
        assert_eq!(tag("close all", 0), "CLOSE CURSOR ALL");
        assert_eq!(tag("DEALLOCATE ALL", 0), "DEALLOCATE ALL");
        assert_eq!(tag("deallocate prepare all", 0), "DEALLOCATE ALL");
        assert_eq!(
            Command::of("DEALLOCATE PREPARE _pg3_0"),
            Command::Deallocate(Some("_pg3_0".to_owned()))
        );
        assert_eq!(tag("  -- hi\n/* x */ (SELECT 1)", 1), "SELECT 1");
        assert_eq!(tag("INSERT INTO t VALUES (1)", 1), "INSERT 0 1");
        assert_eq!(tag("update t set a = 1", 3), "UPDATE 3");
        assert_eq!(tag("DELETE FROM t", 0), "DELETE 0");
        assert_eq!(tag("create table t (a int)", 0), "CREATE TABLE");
        assert_eq!(tag("CREATE UNIQUE INDEX i ON t (a)", 0), "CREATE INDEX");
        assert_eq!(
            tag("create or replace view v as select 1", 0),
            "CREATE VIEW"
        );
        assert_eq!(tag("create table t2 as select * from t", 4), "SELECT 4");
        assert_eq!(tag("drop table t", 0), "DROP TABLE");
        assert_eq!(tag("begin", 0), "BEGIN");
        assert_eq!(tag("start transaction", 0), "BEGIN");
        assert_eq!(tag("end", 0), "COMMIT");
        assert_eq!(tag("abort", 0), "ROLLBACK");
        assert_eq!(tag("set work_mem = '1MB'", 0), "SET");
        assert_eq!(
            tag(
                "WITH x AS (SELECT 1 AS \"insert\") INSERT INTO t SELECT * FROM x",
                1
            ),
            "INSERT 0 1"
        );
        assert_eq!(
            tag(
                "with recursive r(n) as (select 1 union all select n + 1 from r) select * from r",
                2
            ),
            "SELECT 2"
        );
    }

    #[test]
    fn empty_queries_hold_only_blanks_comments_and_semicolons() {
        for empty in ["", " ; ;\n", "-- note\n;", "/* a */ ; -- b"] {
            assert!(is_empty_query(empty), "{empty:?}");
        }
        for statement in ["SELECT 1", "; x", "/* unterminated", "-- a\nSELECT 1"] {
            assert!(!is_empty_query(statement), "{statement:?}");
        }
    }

    #[test]
    fn rollback_to_savepoint_is_told_apart() {
        assert_eq!(Command::of("ROLLBACK TO SAVEPOINT a"), Command::RollbackTo);
        assert_eq!(Command::of("rollback work to a"), Command::RollbackTo);
        assert_eq!(Command::of("ROLLBACK"), Command::Rollback);
        assert!(Command::of("commit").ends_failure());
        assert!(!Command::of("select 1").ends_failure());
    }

    #[test]
    fn literals_and_dollar_quotes_hide_their_words() {
        assert_eq!(
            top_level_words("select 'insert', $$ delete $$, $1, \"update\" from t"),
            ["select", "from", "t"]
        );
        assert_eq!(
            top_level_words("select $tag$ a ) b $tag$ x"),
            ["select", "x"]
        );
    }
}
