//! The interactive prompt: line editing and history through rustyline, and the rest through
//! the same [`Session::feed`] a script uses.
//!
//! Ctrl-C at the prompt clears the statement being typed; during a statement it cancels the
//! statement (see `interrupt`). Ctrl-D, `.quit` and `.exit` leave. History lives in
//! `~/.basalt_history`, one entry per statement or dot command.

use std::path::PathBuf;

use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;

use crate::session::{Flow, Pending, Session};

const PROMPT: &str = "basalt> ";
const CONTINUATION: &str = "   ...> ";

/// Runs the prompt until the user leaves (or, with `bail`, until an error).
pub fn run(session: &mut Session) -> Flow {
    let mut editor = match DefaultEditor::new() {
        Ok(editor) => editor,
        Err(error) => {
            eprintln!("Error: cannot start the line editor: {error}");
            return Flow::Stop;
        }
    };
    session.ctrl_c.install();
    let history = history_path();
    if let Some(path) = &history {
        // A missing history file is the normal first run.
        let _ = editor.load_history(path);
    }
    let mut pending = Pending::new(None);
    let flow = loop {
        let prompt = if pending.is_open() {
            CONTINUATION
        } else {
            PROMPT
        };
        match editor.readline(prompt) {
            Ok(line) => {
                let fed = session.feed(&mut pending, &line);
                if let Some(entry) = fed.completed {
                    let _ = editor.add_history_entry(entry);
                }
                if fed.flow != Flow::Continue {
                    break fed.flow;
                }
            }
            Err(ReadlineError::Interrupted) => pending.clear(),
            Err(ReadlineError::Eof) => break Flow::Quit,
            Err(error) => {
                eprintln!("Error: cannot read input: {error}");
                break Flow::Stop;
            }
        }
    };
    if let Some(path) = &history
        && let Err(error) = editor.save_history(path)
    {
        eprintln!(
            "warning: cannot save history to {}: {error}",
            path.display()
        );
    }
    flow
}

fn history_path() -> Option<PathBuf> {
    std::env::home_dir().map(|home| home.join(".basalt_history"))
}
