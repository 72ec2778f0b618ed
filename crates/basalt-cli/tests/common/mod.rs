//! Runs the built `basalt` binary the way a person or a script would: arguments, standard
//! input, and what comes back on stdout, stderr and the exit status.

#![allow(
    dead_code,
    clippy::unwrap_used,
    reason = "test helpers: each test file uses some of them"
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// What one run of the shell printed, and how it ended.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// A scratch directory for database files; also the shell's home and working directory, so
/// history and relative paths stay inside it.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `path(name)` as a string argument.
    pub fn arg(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, contents).unwrap();
        path
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    /// Runs `basalt ARGS` with `stdin` piped in.
    pub fn run(&self, args: &[&str], stdin: &str) -> Run {
        run_in(self.dir.path(), args, stdin)
    }
}

/// Starts `basalt ARGS` in `dir` (also its home, for history) with every stream piped.
pub fn spawn(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn run_in(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = spawn(dir, args);
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_string();
    // Written from another thread so a child that prints a lot never blocks against us.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
        code: output.status.code().unwrap_or(-1),
    }
}
