//! The session: one open database, the output settings, and the loop that turns lines of
//! input into statements and dot commands.
//!
//! Every way of giving the shell input goes through [`Session::feed`], one line at a time:
//! the interactive prompt (`repl`), a script on standard input or from `.read`, and SQL given
//! on the command line. A line starting with `.` when no statement is pending is a dot command
//! (`dot_commands`); other lines collect until the input ends a statement with `;` (by the
//! engine's tokenizer, see `input`), and then each statement runs in turn. So the prompt and
//! a script behave the same, and the tests, which drive the binary through a pipe, exercise
//! the code a person at the prompt runs.
//!
//! Errors are reported where they happen and counted; with `bail` set (the default for
//! scripts and one-shot use) the first one stops the input.

use std::fs::File;
use std::io::{self, BufRead, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use basalt::{Connection, Database};

use crate::input;
use crate::interrupt::CtrlC;
use crate::render::{self, Column, Mode, RenderError, Style};

/// What the input loop does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// `.quit`, or the output went away (a closed pipe).
    Quit,
    /// An error with `bail` on, or Ctrl-C during a script: stop reading input.
    Stop,
}

/// Something that went wrong, reported as `Error [SQLSTATE]: message` or `Error: message`.
#[derive(Debug)]
pub enum Failure {
    Sql(basalt::Error),
    Message(String),
    Io(String, io::Error),
}

impl From<basalt::Error> for Failure {
    fn from(error: basalt::Error) -> Self {
        Failure::Sql(error)
    }
}

/// Settings changed by dot commands and flags.
#[derive(Clone, Debug)]
pub struct Settings {
    pub mode: Mode,
    pub headers: bool,
    /// `.nullvalue`; `None` shows NULL the mode's way.
    pub null_text: Option<String>,
    pub timer: bool,
    /// Stop at the first error.
    pub bail: bool,
    /// Show each statement's plan before running it.
    pub explain: bool,
}

/// Where results go: standard output, or the file named by `.output`.
#[derive(Debug)]
pub enum Output {
    Stdout(BufWriter<io::Stdout>),
    File(PathBuf, BufWriter<File>),
}

impl Output {
    pub fn stdout() -> Output {
        Output::Stdout(BufWriter::new(io::stdout()))
    }

    pub fn writer(&mut self) -> &mut dyn Write {
        match self {
            Output::Stdout(writer) => writer,
            Output::File(_, writer) => writer,
        }
    }

    /// The width to fit tables into: the terminal's, when results go to one.
    fn terminal_width(&self) -> Option<usize> {
        match self {
            Output::Stdout(_) if io::stdout().is_terminal() => {
                terminal_size::terminal_size_of(io::stdout()).map(|(width, _)| usize::from(width.0))
            }
            _ => None,
        }
    }
}

/// Lines of one input that do not yet end a statement.
#[derive(Debug)]
pub struct Pending {
    /// Where the input comes from, for error locations (`None` at the prompt and for SQL on
    /// the command line, where the location is obvious).
    pub source: Option<String>,
    buffer: String,
    line: usize,
    start_line: usize,
}

impl Pending {
    pub fn new(source: Option<String>) -> Pending {
        Pending {
            source,
            buffer: String::new(),
            line: 0,
            start_line: 1,
        }
    }

    /// Whether a statement has started but not ended.
    pub fn is_open(&self) -> bool {
        !self.buffer.is_empty()
    }

    /// Forgets the unfinished statement (Ctrl-C at the prompt).
    pub fn clear(&mut self) {
        self.buffer.clear();
    }
}

/// What feeding a line did.
#[derive(Debug)]
pub struct Fed {
    pub flow: Flow,
    /// The statement or dot command the line completed, for the prompt's history.
    pub completed: Option<String>,
}

/// An open database and everything the shell remembers about it.
#[derive(Debug)]
pub struct Session {
    pub conn: Connection,
    /// The database file, or `None` for an in-memory database.
    pub path: Option<PathBuf>,
    pub settings: Settings,
    pub output: Output,
    pub ctrl_c: CtrlC,
    failures: usize,
    /// How many `.read` files are open inside each other.
    pub read_depth: usize,
}

/// Opens the database at `path`, or an in-memory one for `None` or `:memory:`.
pub fn open_database(path: Option<&Path>) -> Result<(Connection, Option<PathBuf>), Failure> {
    let path = path.filter(|path| *path != Path::new(":memory:"));
    let db = match path {
        Some(path) => Database::open(path)?,
        None => Database::open_in_memory()?,
    };
    Ok((db.connect(), path.map(Path::to_path_buf)))
}

impl Session {
    pub fn new(conn: Connection, path: Option<PathBuf>, settings: Settings, ctrl_c: CtrlC) -> Self {
        ctrl_c.watch(&conn);
        Session {
            conn,
            path,
            settings,
            output: Output::stdout(),
            ctrl_c,
            failures: 0,
            read_depth: 0,
        }
    }

    /// How many errors were reported.
    pub fn failures(&self) -> usize {
        self.failures
    }

    /// Takes one line of input (without its line ending).
    pub fn feed(&mut self, pending: &mut Pending, line: &str) -> Fed {
        pending.line += 1;
        if !pending.is_open() {
            let trimmed = line.trim_start();
            if trimmed.starts_with('.') {
                let location = self.location(pending, pending.line);
                let flow = self.run_dot_command(trimmed, location.as_deref());
                return Fed {
                    flow,
                    completed: Some(line.to_string()),
                };
            }
            // Most lines start a statement with a word; only the others can be blank to
            // the tokenizer (a comment, a stray `;`).
            let starts_with_word = trimmed.starts_with(|c: char| c.is_alphanumeric());
            if !starts_with_word && input::is_blank(line) {
                return Fed {
                    flow: Flow::Continue,
                    completed: None,
                };
            }
            pending.start_line = pending.line;
        }
        pending.buffer.push_str(line);
        pending.buffer.push('\n');
        // Only a line with a `;` (or one closing a comment after a `;`) can end a statement;
        // skipping the others keeps a long multi-line statement from being re-tokenized at
        // every line.
        let may_end = line.contains(';') || line.contains("*/");
        let chunk = std::mem::take(&mut pending.buffer);
        let Some(statements) = may_end
            .then(|| input::complete_statements(&chunk))
            .flatten()
        else {
            pending.buffer = chunk;
            return Fed {
                flow: Flow::Continue,
                completed: None,
            };
        };
        let flow = self.run_statements(&statements, pending);
        Fed {
            flow,
            completed: Some(chunk.trim_end().to_string()),
        }
    }

    /// Runs what is left at the end of an input: a last statement without its `;`.
    pub fn finish(&mut self, pending: &mut Pending) -> Flow {
        let chunk = std::mem::take(&mut pending.buffer);
        if input::is_blank(&chunk) {
            return Flow::Continue;
        }
        self.run_statements(&input::split(&chunk), pending)
    }

    /// Feeds every line of `reader`, then runs what is left.
    pub fn run_script(&mut self, reader: &mut dyn BufRead, source: Option<String>) -> Flow {
        let mut pending = Pending::new(source);
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) => return self.finish(&mut pending),
                Ok(_) => {}
                Err(error) => {
                    let name = pending.source.clone().unwrap_or_else(|| "input".into());
                    let location = self.location(&pending, pending.line + 1);
                    return self.report(
                        Failure::Io(format!("cannot read {name}"), error),
                        location.as_deref(),
                    );
                }
            }
            let text = line.strip_suffix('\n').unwrap_or(&line);
            let text = text.strip_suffix('\r').unwrap_or(text);
            let flow = self.feed(&mut pending, text).flow;
            if flow != Flow::Continue {
                return flow;
            }
        }
    }

    fn location(&self, pending: &Pending, line: usize) -> Option<String> {
        pending
            .source
            .as_ref()
            .map(|source| format!("{source}, line {line}"))
    }

    /// Runs the statements of a complete chunk of input, in order.
    fn run_statements(&mut self, statements: &[input::Statement<'_>], pending: &Pending) -> Flow {
        for statement in statements {
            let result = self.run_statement(statement.text);
            if let Err(failure) = result {
                // A syntax error's line counts from the statement's first line.
                let within = match &failure {
                    Failure::Sql(error) => error
                        .position()
                        .and_then(|(line, _)| usize::try_from(line).ok())
                        .unwrap_or(1)
                        .max(1),
                    _ => 1,
                };
                let line = pending.start_line + statement.line + within - 2;
                let location = self.location(pending, line);
                let flow = self.report(failure, location.as_deref());
                if flow != Flow::Continue {
                    return flow;
                }
            }
            if self.ctrl_c.script_stopped() {
                return Flow::Stop;
            }
        }
        Flow::Continue
    }

    /// Runs one statement and writes its rows.
    pub fn run_statement(&mut self, sql: &str) -> Result<(), Failure> {
        let _running = self.ctrl_c.running();
        let started = Instant::now();
        if self.settings.explain
            && let Ok(lines) = self.plan_lines(sql)
        {
            self.write_lines(&lines)?;
        }
        {
            let mut statement = self.conn.prepare(sql)?;
            if statement.column_count() == 0 {
                statement.execute(())?;
            } else {
                let columns: Vec<Column> = statement
                    .column_names()
                    .into_iter()
                    .zip(statement.column_types())
                    .map(|(name, data_type)| Column {
                        name: name.to_string(),
                        data_type,
                    })
                    .collect();
                let style = Style {
                    mode: self.settings.mode,
                    headers: self.settings.headers,
                    null_text: self.settings.null_text.clone(),
                    width: self.output.terminal_width(),
                };
                let mut rows = statement.query(())?;
                match render::write_rows(self.output.writer(), &mut rows, &columns, &style) {
                    Ok(()) => {}
                    Err(RenderError::Query(error)) => return Err(Failure::Sql(error)),
                    Err(RenderError::Io(error)) => return Err(output_failure(error)),
                }
            }
        }
        self.flush()?;
        if self.settings.timer {
            eprintln!("Run Time: {}", format_duration(started.elapsed()));
        }
        Ok(())
    }

    /// The plan `EXPLAIN` shows for `sql`, one line per operator.
    pub fn plan_lines(&self, sql: &str) -> Result<Vec<String>, basalt::Error> {
        let mut statement = self.conn.prepare(&format!("EXPLAIN {sql}"))?;
        statement
            .query(())?
            .map(|row| Ok(render::value_text(row.get_ref(0)?, "")))
    }

    /// Writes lines of text to the output.
    pub fn write_lines(&mut self, lines: &[String]) -> Result<(), Failure> {
        let out = self.output.writer();
        for line in lines {
            writeln!(out, "{line}").map_err(output_failure)?;
        }
        self.flush()
    }

    pub fn flush(&mut self) -> Result<(), Failure> {
        self.output.writer().flush().map_err(output_failure)
    }

    /// Prints `failure` to stderr and counts it; says whether input goes on.
    pub fn report(&mut self, failure: Failure, location: Option<&str>) -> Flow {
        // Results written before the error appear before it.
        let flushed = self.output.writer().flush();
        let output_gone = closed_pipe(&failure)
            || flushed.is_err_and(|error| error.kind() == io::ErrorKind::BrokenPipe);
        if output_gone {
            // Whoever read the output has gone (`basalt db "..." | head`): stop quietly.
            return Flow::Quit;
        }
        self.failures += 1;
        let mut message = describe(&failure);
        if let Some(location) = location {
            message.push_str(&format!("\n  at {location}"));
        }
        eprintln!("{message}");
        if self.settings.bail {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }

    /// Replaces the database (`.open`). An open transaction on the old one is rolled back.
    pub fn reopen(&mut self, path: &Path) -> Result<(), Failure> {
        let (conn, path) = open_database(Some(path))?;
        if self.conn.in_transaction() {
            eprintln!("warning: the open transaction on the previous database was rolled back");
        }
        self.ctrl_c.watch(&conn);
        self.conn = conn;
        self.path = path;
        Ok(())
    }

    /// A description of the database for the banner and `.show`.
    pub fn database_label(&self) -> String {
        match &self.path {
            Some(path) => path.display().to_string(),
            None => "a transient in-memory database".to_string(),
        }
    }
}

/// A failure as the shell prints it: `Error [SQLSTATE]: message`, with the statement and a
/// caret under the error for syntax errors; `Error: message` for the shell's own.
pub fn describe(failure: &Failure) -> String {
    match failure {
        Failure::Sql(error) => {
            let mut text = format!("Error [{}]: {}", error.code(), error.message());
            if let Some(caret) = error.caret() {
                text.push('\n');
                text.push_str(caret);
            }
            text
        }
        Failure::Message(message) => format!("Error: {message}"),
        Failure::Io(context, error) => format!("Error: {context}: {error}"),
    }
}

/// Whether `failure` means the reader of our output went away (`basalt ... | head`), which
/// ends the shell quietly rather than as an error.
pub fn closed_pipe(failure: &Failure) -> bool {
    matches!(failure, Failure::Io(_, error) if error.kind() == io::ErrorKind::BrokenPipe)
}

/// An error writing results: `.output`'s file, or standard output.
pub fn output_failure(error: io::Error) -> Failure {
    Failure::Io("cannot write the output".into(), error)
}

fn format_duration(elapsed: Duration) -> String {
    if elapsed < Duration::from_secs(1) {
        format!("{:.3} ms", elapsed.as_secs_f64() * 1000.0)
    } else {
        format!("{:.3} s", elapsed.as_secs_f64())
    }
}
