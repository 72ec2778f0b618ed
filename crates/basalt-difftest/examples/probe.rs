//! A debugging aid for triaging findings: runs `;`-separated SQL from standard input on
//! Basalt and on SQLite (with `case_sensitive_like` on, as the tester runs it) and prints
//! both outcomes side by side. A statement prefixed with `twin:` runs only on a second
//! Basalt database, to replay what the index-free twin saw.
//!
//! ```sh
//! cargo run --release -p basalt-difftest --example probe < statements.sql
//! ```

use std::io::Read;

use basalt_difftest::compare::describe_rows;
use basalt_difftest::engines::{BasaltDatabase, Outcome, SqliteDatabase};

fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Rows(rows) => describe_rows(rows, 50),
        Outcome::Changed(count) => format!("  {count} rows changed"),
        Outcome::Error { code, message } => {
            format!("  error {}: {message}", code.as_deref().unwrap_or(""))
        }
        Outcome::Panic(message) => format!("  panic: {message}"),
        Outcome::TimedOut => "  interrupted at the time limit".to_owned(),
    }
}

fn main() -> Result<(), String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|error| error.to_string())?;
    let basalt = BasaltDatabase::open()?;
    let twin = BasaltDatabase::open()?;
    let sqlite = SqliteDatabase::open()?;
    for statement in text
        .split(';')
        .map(str::trim)
        .filter(|statement| !statement.is_empty())
    {
        if let Some(sql) = statement.strip_prefix("twin:") {
            println!("> twin: {}", sql.trim());
            println!("Basalt twin:\n{}", describe(&twin.run(sql.trim())));
            continue;
        }
        println!("> {statement}");
        println!("Basalt:\n{}", describe(&basalt.run(statement)));
        println!("SQLite:\n{}", describe(&sqlite.run(statement)));
    }
    Ok(())
}
