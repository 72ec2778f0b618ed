//! Dot commands: lines starting with `.` that talk to the shell rather than the database
//! (`.help` lists them). Each command checks its arguments and fails with a usage line rather
//! than guessing; the longer ones live in their own modules (`import`, `import_sqlite`, `dump`,
//! `dump_postgres`).
//!
//! Table names and patterns in dot commands match case-insensitively, and patterns use
//! LIKE's wildcards (`%` for any run of characters, `_` for one), as in sqlite3.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;

use basalt::{SchemaKind, SchemaObject};

use crate::input::split_arguments;
use crate::render::Mode;
use crate::session::{Failure, Flow, Output, Session};
use crate::{dump, dump_postgres, import, import_sqlite};

/// `.read` files may include each other, but not forever.
const MAX_READ_DEPTH: usize = 16;

pub const HELP: &str = "\
.bail on|off             stop at the first error (default: on for scripts, off at the prompt)
.dump [TABLE...]         SQL that recreates the database, or only the tables named
.dump --postgres [--pgvector] [TABLE...]
                         the same as a psql script for PostgreSQL 15 (COPY for the rows)
.exit, .quit             leave the shell (Ctrl-D does too)
.explain on|off          show each statement's plan before running it
.explain QUERY           show the plan of QUERY without running it
.headers on|off          show column names above results (default on)
.help                    this list
.import FILE TABLE       load a CSV or TSV file with a header line into TABLE, creating it
                         if needed (--csv / --tsv override the guess from the extension)
.import-sqlite FILE      copy a SQLite database (read-only) into this one: tables, keys,
                         indexes, views, triggers, rows [--on-error stop|skip-row|null]
.indexes [TABLE]         list indexes, or those of the tables matching TABLE
.mode [MODE]             show or set the output mode:
                         table, box, csv, tsv, json, jsonl, line, markdown
.nullvalue [TEXT]        show or set the text that stands for NULL
.open FILE               close this database and open FILE (created if missing)
.output [FILE]           write results to FILE; with no FILE, back to standard output
.read FILE               run the SQL and dot commands in FILE
.schema [PATTERN]        show the CREATE statements of tables and views (matching PATTERN)
.show                    show the current settings
.tables [PATTERN]        list tables and views (matching PATTERN, with % and _ wildcards)
.timer on|off            report how long each statement takes";

impl Session {
    /// Runs the dot command on `line` (which starts with `.`).
    pub fn run_dot_command(&mut self, line: &str, location: Option<&str>) -> Flow {
        let body = line.trim_start_matches('.').trim_end();
        let (name, rest) = body
            .split_once(char::is_whitespace)
            .map_or((body, ""), |(name, rest)| (name, rest.trim()));
        let result = split_arguments(rest)
            .map_err(Failure::Message)
            .and_then(|arguments| self.dot_command(name, &arguments, rest));
        match result {
            Ok(flow) => flow,
            Err(failure) => self.report(failure, location),
        }
    }

    fn dot_command(&mut self, name: &str, args: &[String], rest: &str) -> Result<Flow, Failure> {
        match name {
            "bail" => self.settings.bail = on_off(name, args)?,
            "dump" => match args.split_first() {
                Some((first, rest)) if first == "--postgres" => dump_postgres::shell(self, rest)?,
                _ => dump::dump(self, args)?,
            },
            "exit" | "quit" => {
                no_arguments(name, args)?;
                return Ok(Flow::Quit);
            }
            "explain" => self.explain(rest)?,
            "headers" | "header" => self.settings.headers = on_off(name, args)?,
            "help" => self.write_lines(&[HELP.to_string()])?,
            "import" => import::import(self, args)?,
            "import-sqlite" => import_sqlite::shell(self, args)?,
            "indexes" | "indices" => self.list_indexes(args)?,
            "mode" => self.mode(args)?,
            "nullvalue" => self.null_value(args)?,
            "open" => {
                let [file] = args else {
                    return Err(usage(".open FILE"));
                };
                self.reopen(Path::new(file))?;
            }
            "output" => self.redirect(args)?,
            "read" => {
                let [file] = args else {
                    return Err(usage(".read FILE"));
                };
                return self.read(file);
            }
            "schema" => self.schema(args)?,
            "show" => self.show(args)?,
            "tables" => self.tables(args)?,
            "timer" => self.settings.timer = on_off(name, args)?,
            "" => {
                return Err(Failure::Message(
                    "a dot command needs a name; try .help".into(),
                ));
            }
            other => {
                return Err(Failure::Message(format!(
                    "unknown command \".{other}\"; enter \".help\" for the list"
                )));
            }
        }
        Ok(Flow::Continue)
    }

    fn explain(&mut self, rest: &str) -> Result<(), Failure> {
        match rest.to_ascii_lowercase().as_str() {
            "" => Err(usage(".explain on|off  or  .explain QUERY")),
            "on" => {
                self.settings.explain = true;
                Ok(())
            }
            "off" => {
                self.settings.explain = false;
                Ok(())
            }
            _ => {
                let query = rest.trim_end().trim_end_matches(';');
                let lines = self.plan_lines(query)?;
                self.write_lines(&lines)
            }
        }
    }

    fn mode(&mut self, args: &[String]) -> Result<(), Failure> {
        match args {
            [] => self.write_lines(&[self.settings.mode.name().to_string()]),
            [name] => {
                self.settings.mode = Mode::parse(name).ok_or_else(|| {
                    Failure::Message(format!(
                        "unknown mode \"{name}\"; choose one of: {}",
                        Mode::NAMES
                    ))
                })?;
                Ok(())
            }
            _ => Err(usage(".mode [MODE]")),
        }
    }

    fn null_value(&mut self, args: &[String]) -> Result<(), Failure> {
        match args {
            [] => {
                let shown = match &self.settings.null_text {
                    Some(text) => format!("\"{text}\""),
                    None => "(the mode's default)".to_string(),
                };
                self.write_lines(&[shown])
            }
            [text] => {
                self.settings.null_text = Some(text.clone());
                Ok(())
            }
            _ => Err(usage(".nullvalue TEXT  (quote TEXT if it has spaces)")),
        }
    }

    fn redirect(&mut self, args: &[String]) -> Result<(), Failure> {
        self.flush()?;
        self.output = match args {
            [] => Output::stdout(),
            [file] if file == "-" => Output::stdout(),
            [file] => {
                let opened = File::create(file)
                    .map_err(|error| Failure::Io(format!("cannot create {file}"), error))?;
                Output::File(file.into(), BufWriter::new(opened))
            }
            _ => return Err(usage(".output [FILE]")),
        };
        Ok(())
    }

    fn read(&mut self, file: &str) -> Result<Flow, Failure> {
        if self.read_depth >= MAX_READ_DEPTH {
            return Err(Failure::Message(format!(
                ".read files nest more than {MAX_READ_DEPTH} deep (does {file} read itself?)"
            )));
        }
        let opened =
            File::open(file).map_err(|error| Failure::Io(format!("cannot open {file}"), error))?;
        self.read_depth += 1;
        let flow = self.run_script(&mut BufReader::new(opened), Some(file.to_string()));
        self.read_depth -= 1;
        Ok(flow)
    }

    fn show(&mut self, args: &[String]) -> Result<(), Failure> {
        no_arguments("show", args)?;
        let on = |flag: bool| if flag { "on" } else { "off" };
        let output = match &self.output {
            Output::Stdout(_) => "stdout".to_string(),
            Output::File(path, _) => path.display().to_string(),
        };
        let lines = [
            format!("  database: {}", self.database_label()),
            format!("      mode: {}", self.settings.mode.name()),
            format!("   headers: {}", on(self.settings.headers)),
            format!(
                " nullvalue: {}",
                self.settings
                    .null_text
                    .as_deref()
                    .map_or("(the mode's default)".to_string(), |t| format!("\"{t}\""))
            ),
            format!("    output: {output}"),
            format!("     timer: {}", on(self.settings.timer)),
            format!("      bail: {}", on(self.settings.bail)),
            format!("   explain: {}", on(self.settings.explain)),
        ];
        self.write_lines(&lines)
    }

    fn tables(&mut self, args: &[String]) -> Result<(), Failure> {
        let pattern = optional_pattern(".tables [PATTERN]", args)?;
        let mut names: Vec<String> = self
            .conn
            .schema_objects()?
            .into_iter()
            .filter(|object| {
                matches!(object.kind, SchemaKind::Table | SchemaKind::View)
                    && matches(pattern, &object.name)
            })
            .map(|object| object.name)
            .collect();
        names.sort_by_key(|name| name.to_lowercase());
        self.write_lines(&names)
    }

    fn schema(&mut self, args: &[String]) -> Result<(), Failure> {
        let pattern = optional_pattern(".schema [PATTERN]", args)?;
        let objects = self.conn.schema_objects()?;
        let mut lines = Vec::new();
        // The sequences, each table followed by its indexes, then the views, then the
        // triggers (matched by the table or view they watch).
        for sequence in objects.iter().filter(|o| o.kind == SchemaKind::Sequence) {
            if matches(pattern, &sequence.name) {
                lines.push(format!("{};", sequence.sql));
            }
        }
        for table in objects.iter().filter(|o| o.kind == SchemaKind::Table) {
            if !matches(pattern, &table.name) {
                continue;
            }
            lines.push(format!("{};", table.sql));
            for index in indexes_of(&objects, &table.name) {
                lines.push(format!("{};", index.sql));
            }
        }
        for view in objects.iter().filter(|o| o.kind == SchemaKind::View) {
            if matches(pattern, &view.name) {
                lines.push(format!("{};", view.sql));
            }
        }
        for trigger in objects.iter().filter(|o| o.kind == SchemaKind::Trigger) {
            if matches(pattern, &trigger.table) {
                lines.push(format!("{};", trigger.sql));
            }
        }
        self.write_lines(&lines)
    }

    fn list_indexes(&mut self, args: &[String]) -> Result<(), Failure> {
        let pattern = optional_pattern(".indexes [TABLE]", args)?;
        let names: Vec<String> = self
            .conn
            .schema_objects()?
            .into_iter()
            .filter(|object| object.kind == SchemaKind::Index && matches(pattern, &object.table))
            .map(|object| object.name)
            .collect();
        self.write_lines(&names)
    }
}

/// The explicit indexes of `table`.
pub fn indexes_of<'a>(
    objects: &'a [SchemaObject],
    table: &'a str,
) -> impl Iterator<Item = &'a SchemaObject> + 'a {
    objects
        .iter()
        .filter(move |o| o.kind == SchemaKind::Index && o.table == table)
}

fn usage(text: &str) -> Failure {
    Failure::Message(format!("usage: {text}"))
}

fn no_arguments(name: &str, args: &[String]) -> Result<(), Failure> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(usage(&format!(".{name} (takes no arguments)")))
    }
}

fn optional_pattern<'a>(text: &str, args: &'a [String]) -> Result<Option<&'a str>, Failure> {
    match args {
        [] => Ok(None),
        [pattern] => Ok(Some(pattern.as_str())),
        _ => Err(usage(text)),
    }
}

/// `on`/`off` (also yes/no, true/false, 1/0).
fn on_off(name: &str, args: &[String]) -> Result<bool, Failure> {
    let [value] = args else {
        return Err(usage(&format!(".{name} on|off")));
    };
    match value.to_ascii_lowercase().as_str() {
        "on" | "yes" | "true" | "1" => Ok(true),
        "off" | "no" | "false" | "0" => Ok(false),
        _ => Err(Failure::Message(format!(
            ".{name} takes on or off, not \"{value}\""
        ))),
    }
}

/// Whether `name` matches a LIKE `pattern` (case-insensitive); no pattern matches everything.
pub fn matches(pattern: Option<&str>, name: &str) -> bool {
    let Some(pattern) = pattern else {
        return true;
    };
    let pattern: Vec<char> = pattern.to_lowercase().chars().collect();
    let name: Vec<char> = name.to_lowercase().chars().collect();
    // Classic wildcard matching with backtracking to the last `%`.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('%') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '_' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((star_p, star_n)) => {
                    p = star_p + 1;
                    n = star_n + 1;
                    star = Some((star_p, star_n + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '%')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns() {
        assert!(matches(None, "x"));
        assert!(matches(Some("users"), "Users"));
        assert!(matches(Some("u%"), "users"));
        assert!(matches(Some("%er%"), "users"));
        assert!(matches(Some("user_"), "users"));
        assert!(!matches(Some("user_"), "user"));
        assert!(!matches(Some("x%"), "users"));
        assert!(matches(Some("%"), ""));
        assert!(matches(Some("a%b%c"), "axxbyyc"));
        assert!(!matches(Some("a%b%c"), "axxbyy"));
    }
}
