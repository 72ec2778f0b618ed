//! [`Core`]: one Python connection's engine state — its `basalt::Connection`, the statements
//! it has prepared (by SQL text) and the transaction mode — used with the GIL released.
//!
//! Everything here is plain Rust: no Python object is touched, so the cursor and connection
//! run it inside `Python::detach` behind a mutex. Queries run as the session's portals (one
//! per cursor), which keep their place between fetches, so a cursor streams its rows;
//! `executemany` runs one prepared statement over every parameter set. Files are opened
//! once per process ([`open`]): every connection to one path shares one `basalt::Database`,
//! as the engine requires.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use basalt::{ColumnDescription, DataType, Value};
use parking_lot::Mutex;

use crate::errors::{Failure, Outcome, binding, closed};

/// Statements a connection keeps prepared; past it the cache starts again.
const STATEMENT_CACHE: usize = 256;
/// Rows one multi-row INSERT of `executemany` carries at most.
const MULTI_ROWS: usize = 256;
/// Parameters one multi-row INSERT takes at most.
const MULTI_PARAMETERS: usize = 16_384;
/// Times a statement that opened the implicit transaction is retried on a fresh snapshot.
const IMPLICIT_RETRIES: usize = 100;

/// The databases open in this process, by canonical path.
static OPEN: Mutex<Option<HashMap<PathBuf, Weak<basalt::Database>>>> = Mutex::new(None);

/// The database at `path` (`":memory:"`: a new in-memory one), shared with every other
/// connection of this process to the same file.
pub(crate) fn open(path: &str) -> Outcome<Arc<basalt::Database>> {
    if path == ":memory:" {
        return Ok(Arc::new(basalt::Database::open_in_memory()?));
    }
    let key = canonical(Path::new(path))?;
    let mut open = OPEN.lock();
    let open = open.get_or_insert_with(HashMap::new);
    if let Some(database) = open.get(&key).and_then(Weak::upgrade) {
        return Ok(database);
    }
    open.retain(|_, database| database.strong_count() > 0);
    let database = Arc::new(basalt::Database::open(&key)?);
    open.insert(key, Arc::downgrade(&database));
    Ok(database)
}

/// `path` made absolute, with symbolic links resolved in the part that exists.
fn canonical(path: &Path) -> Outcome<PathBuf> {
    if let Ok(path) = std::fs::canonicalize(path) {
        return Ok(path);
    }
    let absolute = std::path::absolute(path).map_err(|error| {
        binding(
            "58030",
            format!("cannot resolve {}: {error}", path.display()),
        )
    })?;
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => Ok(std::fs::canonicalize(parent)
            .map(|parent| parent.join(name))
            .unwrap_or(absolute.clone())),
        _ => Ok(absolute),
    }
}

/// What a statement is, for the transaction rules and the cursor's attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kind {
    /// It returns rows (a query, or a modification with RETURNING).
    pub(crate) query: bool,
    /// INSERT, UPDATE, DELETE, REPLACE or MERGE: opens the implicit transaction.
    pub(crate) modifies: bool,
    /// INSERT or REPLACE: sets `lastrowid`.
    pub(crate) inserts: bool,
    /// CREATE, ALTER or DROP: the statement cache starts again after it.
    pub(crate) ddl: bool,
}

impl Kind {
    fn of(sql: &str, query: bool) -> Kind {
        let keyword = first_keyword(sql);
        let is = |word: &str| keyword.eq_ignore_ascii_case(word);
        let inserts = is("insert") || is("replace");
        Kind {
            query,
            modifies: inserts
                || is("update")
                || is("delete")
                || is("merge")
                || (is("with") && !query),
            inserts,
            ddl: is("create") || is("alter") || is("drop"),
        }
    }
}

/// The first word of `sql`, after whitespace, `--` comments and `/* */` comments.
fn first_keyword(sql: &str) -> &str {
    let mut rest = sql;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.find('\n').map_or("", |end| &after[end..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
        } else {
            break;
        }
    }
    let end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    &rest[..end]
}

/// For `INSERT ... VALUES (?, ..., ?)` with `width` placeholders and nothing after them:
/// the same INSERT with `rows` rows of placeholders. `None` for anything else (other
/// placeholders or expressions in the row, ON CONFLICT, RETURNING, INSERT ... SELECT).
pub(crate) fn multi_row_sql(sql: &str, width: usize, rows: usize) -> Option<String> {
    if width == 0 || !first_keyword(sql).eq_ignore_ascii_case("insert") {
        return None;
    }
    let body = sql.trim_end().trim_end_matches(';').trim_end();
    let open = body.rfind('(')?;
    let inner = body.strip_suffix(')')?.get(open + 1..)?;
    let mut placeholders = inner.split(',').map(str::trim);
    if inner.split(',').count() != width || !placeholders.all(|item| item == "?") {
        return None;
    }
    let head = body.get(..open)?.trim_end();
    let keyword_start = head.len().checked_sub("values".len())?;
    if !head.get(keyword_start..)?.eq_ignore_ascii_case("values") {
        return None;
    }
    let before = head.get(..keyword_start)?.chars().next_back()?;
    if !(before.is_whitespace() || before == ')') {
        return None;
    }
    let row = format!("({})", vec!["?"; width].join(", "));
    let mut multi = String::with_capacity(head.len() + rows * (row.len() + 2));
    multi.push_str(head);
    multi.push(' ');
    for index in 0..rows {
        if index > 0 {
            multi.push_str(", ");
        }
        multi.push_str(&row);
    }
    Some(multi)
}

/// Whether a multi-row INSERT's `error` leaves nothing of it behind and comes from its
/// rows' data, so that running them one at a time finds the row at fault.
fn redo_singly(error: &basalt::Error) -> bool {
    let code = error.code();
    matches!(code.get(..2), Some("21" | "22" | "23" | "42" | "54")) || code == "P0001"
}

/// A statement prepared in the session under `name`, with what the binding needs to know.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) name: String,
    pub(crate) sql: String,
    /// Each parameter's name (`:name` without its prefix) and the type the statement
    /// gives it.
    pub(crate) parameters: Vec<(Option<String>, DataType)>,
    /// For `:1`, `:2`, ... placeholders (PEP 249's numeric style), the position in the
    /// parameter sequence each parameter takes its value from; `None` when no parameter has
    /// a numeric name.
    pub(crate) positions: Option<Vec<usize>>,
    /// The result columns as prepared.
    pub(crate) columns: Vec<ColumnDescription>,
    pub(crate) kind: Kind,
}

/// What running a query's portal gave.
#[derive(Debug)]
pub(crate) struct Fetched {
    /// The values of the rows, row after row.
    pub(crate) values: Vec<Value>,
    /// Columns per row.
    pub(crate) width: usize,
    /// Rows remain in the portal.
    pub(crate) more: bool,
    /// The result columns, when the plan's differ from the prepared statement's (the schema
    /// changed since).
    pub(crate) columns: Option<Vec<ColumnDescription>>,
}

/// What [`Core::run_many`] did.
#[derive(Debug)]
pub(crate) enum Many {
    /// Every row ran; the rows changed.
    Done(u64),
    /// A multi-row group failed and was undone: the rows changed before it, and the first
    /// row of the group, from which the rest must run again one at a time.
    Redo { changed: u64, from_row: usize },
}

/// One Python connection's engine state.
#[derive(Debug)]
pub(crate) struct Core {
    connection: Option<basalt::Connection>,
    /// Keeps the database open while the connection is.
    _database: Arc<basalt::Database>,
    statements: HashMap<String, Arc<Prepared>>,
    next_name: u64,
    /// Each statement commits on its own; no implicit BEGIN.
    pub(crate) autocommit: bool,
}

impl Core {
    pub(crate) fn new(database: Arc<basalt::Database>, autocommit: bool) -> Core {
        Core {
            connection: Some(database.connect()),
            _database: database,
            statements: HashMap::new(),
            next_name: 0,
            autocommit,
        }
    }

    pub(crate) fn connection(&self) -> Outcome<&basalt::Connection> {
        self.connection.as_ref().ok_or_else(|| closed("connection"))
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.connection.is_none()
    }

    /// Closes the connection; an open transaction rolls back.
    pub(crate) fn close(&mut self) {
        self.statements.clear();
        self.connection = None;
    }

    /// A unique name for a portal or statement of this connection.
    pub(crate) fn unique_name(&mut self, prefix: char) -> String {
        self.next_name += 1;
        format!("{prefix}{}", self.next_name)
    }

    /// The cached statement for `sql`, if there is one.
    pub(crate) fn cached(&self, sql: &str) -> Option<Arc<Prepared>> {
        self.statements.get(sql).cloned()
    }

    /// The statement for `sql`, prepared now unless cached.
    pub(crate) fn prepare(&mut self, sql: &str) -> Outcome<Arc<Prepared>> {
        if let Some(prepared) = self.cached(sql) {
            return Ok(prepared);
        }
        if self.statements.len() >= STATEMENT_CACHE {
            self.forget_statements();
        }
        let name = self.unique_name('s');
        let description = self.connection()?.session().prepare_named(&name, sql)?;
        let parameters = description
            .parameters
            .into_iter()
            .map(|parameter| {
                let name = parameter
                    .name
                    .map(|name| name.trim_start_matches([':', '$', '@', '?']).to_owned());
                (name, parameter.data_type)
            })
            .collect::<Vec<(Option<String>, DataType)>>();
        let numbered =
            |name: &str| !name.is_empty() && name.bytes().all(|byte| byte.is_ascii_digit());
        let positions = parameters
            .iter()
            .any(|(name, _)| name.as_deref().is_some_and(numbered))
            .then(|| {
                parameters
                    .iter()
                    .enumerate()
                    .map(|(position, (name, _))| {
                        name.as_deref()
                            .filter(|name| numbered(name))
                            .and_then(|name| name.parse::<usize>().ok())
                            .and_then(|number| number.checked_sub(1))
                            .unwrap_or(position)
                    })
                    .collect()
            });
        let kind = Kind::of(sql, !description.columns.is_empty());
        let prepared = Arc::new(Prepared {
            name,
            sql: sql.to_owned(),
            parameters,
            positions,
            columns: description.columns,
            kind,
        });
        self.statements.insert(sql.to_owned(), prepared.clone());
        Ok(prepared)
    }

    /// Forgets every prepared statement (after DDL, or when the cache is full).
    pub(crate) fn forget_statements(&mut self) {
        if let Some(connection) = &self.connection {
            for prepared in self.statements.values() {
                connection.session().close_statement(&prepared.name);
            }
        }
        self.statements.clear();
    }

    /// Opens the implicit transaction before a modification (sqlite3's default); true when
    /// it did.
    fn begin_if_needed(&self, kind: Kind) -> Outcome<bool> {
        let connection = self.connection()?;
        if kind.modifies && !self.autocommit && !connection.in_transaction() {
            connection.execute_batch("BEGIN")?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Whether `outcome` failed because another connection committed between the implicit
    /// BEGIN just run and the statement's first write (40001). Nothing of the transaction
    /// has been seen by the program yet, so it is begun again on a fresh snapshot and the
    /// statement retried (up to [`IMPLICIT_RETRIES`] times): what sqlite3's users get from
    /// SQLite's busy handler, where Basalt's snapshot check would otherwise fail them.
    fn restart_implicit<T>(
        &self,
        began: bool,
        attempt: &mut usize,
        outcome: &Outcome<T>,
    ) -> Outcome<bool> {
        let stale = matches!(outcome, Err(Failure::Engine(error)) if error.code() == "40001");
        if !(began && stale && *attempt < IMPLICIT_RETRIES) {
            return Ok(false);
        }
        *attempt += 1;
        let connection = self.connection()?;
        connection.execute_batch("ROLLBACK")?;
        connection.execute_batch("BEGIN")?;
        Ok(true)
    }

    /// Runs `prepared` with `values` in the cursor's portal `portal`; for a query, returns
    /// its first `max_rows` rows, for anything else the rows it changed.
    pub(crate) fn run(
        &mut self,
        portal: &str,
        prepared: &Prepared,
        values: Vec<Value>,
        max_rows: u64,
    ) -> Outcome<Result<Fetched, u64>> {
        // `run_once` closes the portal before binding it.
        let began = self.begin_if_needed(prepared.kind)?;
        let mut attempt = 0;
        let retry = began.then(|| values.clone());
        let mut outcome = self.run_once(portal, prepared, values, max_rows);
        while let Some(values) = &retry
            && self.restart_implicit(began, &mut attempt, &outcome)?
        {
            outcome = self.run_once(portal, prepared, values.clone(), max_rows);
        }
        outcome
    }

    fn run_once(
        &mut self,
        portal: &str,
        prepared: &Prepared,
        values: Vec<Value>,
        max_rows: u64,
    ) -> Outcome<Result<Fetched, u64>> {
        let session = self.connection()?.session();
        session.close_portal(portal);
        session.bind(portal, &prepared.name, values)?;
        if !prepared.kind.query {
            let execution = session.execute_portal(portal, 0, |_| Ok(()));
            session.close_portal(portal);
            let changed = execution?.rows;
            if prepared.kind.ddl {
                self.forget_statements();
            }
            return Ok(Err(changed));
        }
        let mut fetched = self.fetch(portal, max_rows, Vec::new())?;
        if fetched.width != 0 && fetched.width != prepared.columns.len() {
            // The plan changed shape since the statement was described: describe the portal
            // and prepare the statement afresh next time.
            let session = self.connection()?.session();
            fetched.columns = Some(session.describe_portal(portal)?);
            session.close_statement(&prepared.name);
            self.statements.remove(&prepared.sql);
        }
        Ok(Ok(fetched))
    }

    /// The next `max_rows` rows of the portal `portal`, into `values` (emptied first).
    pub(crate) fn fetch(
        &self,
        portal: &str,
        max_rows: u64,
        mut values: Vec<Value>,
    ) -> Outcome<Fetched> {
        values.clear();
        let mut width = 0;
        let execution = self
            .connection()?
            .session()
            .execute_portal(portal, max_rows, |row| {
                width = row.column_count();
                for column in 0..width {
                    values.push(row.get_ref(column)?.to_owned());
                }
                Ok(())
            })?;
        Ok(Fetched {
            values,
            width,
            more: execution.suspended,
            columns: None,
        })
    }

    /// Closes the portal `portal`.
    pub(crate) fn close_portal(&self, portal: &str) {
        if let Some(connection) = &self.connection {
            connection.session().close_portal(portal);
        }
    }

    /// Runs `prepared` once per row of `values` (`rows` rows of the statement's parameters,
    /// one after the other); returns the rows changed.
    ///
    /// With `grouped`, a plain `INSERT ... VALUES (?, ..., ?)` goes in groups of rows through
    /// one prepared multi-row INSERT (one statement per [`MULTI_ROWS`] rows instead of one
    /// per row). A group that fails with a data or constraint error was undone whole (by its
    /// statement savepoint, or as its own transaction); the result then says from which row
    /// the caller must run the rest again one at a time (its values were moved into the
    /// failed statement), so that the error comes from the row that causes it, with the rows
    /// before it inserted, as row-by-row execution would leave them.
    pub(crate) fn run_many(
        &self,
        prepared: &Prepared,
        values: Vec<Value>,
        rows: usize,
        grouped: bool,
    ) -> Outcome<Many> {
        let mut retry = self.begin_if_needed(prepared.kind)?;
        let connection = self.connection()?;
        let width = prepared.parameters.len();
        let mut changed = 0;
        let mut row = 0;
        let mut values = values.into_iter();
        let group = match width {
            0 => 0,
            width => MULTI_ROWS.min(MULTI_PARAMETERS / width),
        };
        if grouped
            && group > 1
            && rows >= group
            && let Some(sql) = multi_row_sql(&prepared.sql, width, group)
        {
            let mut statement = connection.prepare_cached(&sql)?;
            while rows - row >= group {
                let group_values = values.by_ref().take(group * width).collect();
                match self.execute_retrying(&mut statement, group_values, &mut retry) {
                    Ok(count) => {
                        changed += count;
                        row += group;
                    }
                    Err(Failure::Engine(error)) if redo_singly(&error) => {
                        return Ok(Many::Redo {
                            changed,
                            from_row: row,
                        });
                    }
                    Err(error) => return Err(error),
                }
            }
        }
        let mut statement = connection.prepare_cached(&prepared.sql)?;
        while row < rows {
            let row_values = values.by_ref().take(width).collect();
            changed += self.execute_retrying(&mut statement, row_values, &mut retry)?;
            row += 1;
        }
        Ok(Many::Done(changed))
    }

    /// Runs `statement` with `values`; while `retry` (the statement is the first of an
    /// implicit transaction just begun), restarts the transaction on a stale snapshot.
    fn execute_retrying(
        &self,
        statement: &mut basalt::CachedStatement<'_>,
        values: Vec<Value>,
        retry: &mut bool,
    ) -> Outcome<u64> {
        if !*retry {
            return Ok(statement.execute(values)? as u64);
        }
        *retry = false;
        let mut attempt = 0;
        loop {
            let outcome = statement
                .execute(values.clone())
                .map(|count| count as u64)
                .map_err(Failure::from);
            if self.restart_implicit(true, &mut attempt, &outcome)? {
                continue;
            }
            return outcome;
        }
    }

    /// COMMIT (or ROLLBACK) when a transaction is open; nothing otherwise.
    pub(crate) fn end(&self, commit: bool) -> Outcome<()> {
        let connection = self.connection()?;
        if connection.in_transaction() {
            connection.execute_batch(if commit { "COMMIT" } else { "ROLLBACK" })?;
        }
        Ok(())
    }
}
