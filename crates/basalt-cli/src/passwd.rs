//! `basalt passwd FILE USER`: adds a user to a password file for `basalt serve
//! --password-file FILE`, or changes the user's password.
//!
//! The password is read from the terminal with echo off, asked twice; when standard input is
//! not a terminal, its first line is the password (for scripts: `printf '%s\n' "$PW" |
//! basalt passwd FILE USER`). Only the SCRAM-SHA-256 verifier is written — PostgreSQL's
//! `pg_authid` form, a random 16-byte salt, 4096 iterations — never the password. The file
//! is created readable by its owner only; other users' lines are kept. Exit status 0 when
//! the file was written, 2 otherwise.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Adds a user (or sets a user's password) in a password file for `basalt serve
/// --password-file`.
#[derive(Debug, Parser)]
#[command(name = "basalt passwd")]
pub struct PasswdArgs {
    /// The password file, created if missing
    pub file: PathBuf,

    /// The user name
    pub user: String,
}

/// Whether the command line asks for `basalt passwd ...`. A database file that is really
/// named `passwd` is reached as `./passwd`.
pub fn requested(arguments: &[String]) -> bool {
    arguments.get(1).is_some_and(|word| word == "passwd")
}

/// Runs `basalt passwd` with the arguments after the word `passwd`.
pub fn run(arguments: &[String]) -> ExitCode {
    let args = PasswdArgs::parse_from(arguments.iter().skip(1));
    let password = match read_password() {
        Ok(password) => password,
        Err(error) => {
            eprintln!("basalt passwd: {error}");
            return ExitCode::from(2);
        }
    };
    match basalt_server::auth::set_password(&args.file, &args.user, &password) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("basalt passwd: {}: {error}", args.file.display());
            ExitCode::from(2)
        }
    }
}

/// The new password: typed twice at a terminal (not echoed), else stdin's first line.
fn read_password() -> io::Result<String> {
    let stdin = io::stdin();
    if !stdin.is_terminal() {
        let mut line = String::new();
        stdin.lock().read_line(&mut line)?;
        let password = line.trim_end_matches(['\n', '\r']).to_owned();
        return non_empty(password);
    }
    let first = prompt("Enter new password: ")?;
    let second = prompt("Enter it again: ")?;
    if first != second {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "passwords didn't match",
        ));
    }
    non_empty(first)
}

fn non_empty(password: String) -> io::Result<String> {
    if password.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "empty password",
        ));
    }
    Ok(password)
}

/// Reads one line from the terminal with echo turned off (and back on afterwards).
fn prompt(text: &str) -> io::Result<String> {
    eprint!("{text}");
    io::stderr().flush()?;
    let stdin = io::stdin();
    let saved = rustix::termios::tcgetattr(&stdin)?;
    let mut quiet = saved.clone();
    quiet.local_modes.remove(rustix::termios::LocalModes::ECHO);
    rustix::termios::tcsetattr(&stdin, rustix::termios::OptionalActions::Now, &quiet)?;
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    rustix::termios::tcsetattr(&stdin, rustix::termios::OptionalActions::Now, &saved)?;
    eprintln!();
    read?;
    Ok(line.trim_end_matches(['\n', '\r']).to_owned())
}
