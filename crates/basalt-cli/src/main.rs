//! `basalt`: the Basalt shell. `basalt FILE` opens an interactive prompt on a database file;
//! `basalt FILE "SQL"` runs statements and exits; `basalt FILE < script.sql` runs a script.
//!
//! How the parts fit: `args` reads the command line; `session` holds the open database and
//! turns lines of input into statements and dot commands, whoever typed them; `repl` is the
//! prompt (rustyline) in front of it; `input` decides where statements end, with the engine's
//! tokenizer; `render` writes results in the chosen mode; `dot_commands`, `import` and `dump`
//! are the commands that are not SQL; `interrupt` routes Ctrl-C to the running statement;
//! `check` is the `basalt check FILE` command (the integrity check); `dump_postgres` is
//! `basalt dump --postgres FILE` and the shell's `.dump --postgres`; `serve` is
//! `basalt serve FILE`, the PostgreSQL wire protocol server, and `passwd` adds its users
//! (`basalt passwd FILE USER`); `import_sqlite` is
//! `basalt import-sqlite FILE.sqlite FILE.basalt` and the shell's `.import-sqlite`.

mod args;
mod check;
mod dot_commands;
mod dump;
mod dump_postgres;
mod import;
mod import_sqlite;
mod input;
mod interrupt;
mod passwd;
mod render;
mod repl;
mod serve;
mod session;

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use clap::Parser;

use crate::args::Args;
use crate::interrupt::{CtrlC, INTERRUPTED_STATUS};
use crate::render::Mode;
use crate::session::{Flow, Session, Settings, closed_pipe, describe, open_database};

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().collect();
    if check::requested(&arguments) {
        return check::run(&arguments);
    }
    if dump_postgres::requested(&arguments) {
        return dump_postgres::run(&arguments);
    }
    if import_sqlite::requested(&arguments) {
        return import_sqlite::run(&arguments);
    }
    if serve::requested(&arguments) {
        return serve::run(&arguments);
    }
    if passwd::requested(&arguments) {
        return passwd::run(&arguments);
    }
    let args = Args::parse();
    let interactive = args.commands.is_empty() && (args.interactive || io::stdin().is_terminal());
    let settings = Settings {
        // A terminal gets box drawing; a file or pipe gets the same layout in plain ASCII,
        // never cut to a width (ask for csv or json to feed another program).
        mode: args
            .requested_mode()
            .unwrap_or(if io::stdout().is_terminal() {
                Mode::Box
            } else {
                Mode::Table
            }),
        headers: !args.no_headers,
        null_text: args.nullvalue.clone(),
        timer: false,
        bail: args.bail || (!interactive && !args.keep_going),
        explain: false,
    };
    let ctrl_c = CtrlC::new(interactive);
    let (conn, path) = match open_database(args.file.as_deref()) {
        Ok(opened) => opened,
        Err(failure) => {
            eprintln!("{}", describe(&failure));
            return ExitCode::FAILURE;
        }
    };
    let mut session = Session::new(conn, path, settings, ctrl_c.clone());

    if !interactive {
        // The prompt installs it once its line editor is up (see `CtrlC::install`).
        ctrl_c.install();
    }
    let flow = if !args.commands.is_empty() {
        run_commands(&mut session, &args.commands)
    } else if interactive {
        println!(
            "Basalt {} — enter SQL ending with \";\", or .help for the shell's commands.",
            env!("CARGO_PKG_VERSION")
        );
        match &session.path {
            Some(_) => println!("Connected to {}.", session.database_label()),
            None => println!(
                "Connected to {}; use .open FILE for a file that lasts.",
                session.database_label()
            ),
        }
        repl::run(&mut session)
    } else {
        session.run_script(&mut io::stdin().lock(), Some("<stdin>".into()))
    };

    if let Err(failure) = session.flush()
        && !closed_pipe(&failure)
    {
        eprintln!("{}", describe(&failure));
    }
    if session.conn.in_transaction() {
        eprintln!("warning: the transaction left open was rolled back (COMMIT saves changes)");
    }
    if ctrl_c.script_stopped() {
        ExitCode::from(INTERRUPTED_STATUS)
    } else if flow == Flow::Stop || (!interactive && session.failures() > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs each SQL argument as a little script of its own.
fn run_commands(session: &mut Session, commands: &[String]) -> Flow {
    for command in commands {
        let flow = session.run_script(&mut command.as_bytes(), None);
        if flow != Flow::Continue {
            return flow;
        }
    }
    Flow::Continue
}
