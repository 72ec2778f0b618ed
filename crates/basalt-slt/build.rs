//! Generates one named test per sqllogictest file of our own (`tests/slt/**/*.slt`), so a
//! failure names its file and `cargo test -p basalt-slt --test conformance FILTER` runs one.
//! The list is written to `$OUT_DIR/own_slt_tests.rs`, which `tests/conformance.rs`
//! includes; adding or removing a file re-runs this script (the directories are watched).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.join("../../tests/slt");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut out = String::new();
    for file in &files {
        let Ok(relative) = file.strip_prefix(&root) else {
            continue;
        };
        let relative = relative.to_string_lossy().replace('\\', "/");
        let name: String = relative
            .trim_end_matches(".slt")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "#[test]\nfn slt_{name}() {{\n    run_own_file({relative:?});\n}}\n"
        );
    }
    let _ = writeln!(out, "const OWN_SLT_FILE_COUNT: usize = {};", files.len());
    let target =
        PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("own_slt_tests.rs");
    if let Err(error) = std::fs::write(&target, out) {
        println!("cargo::error=cannot write {}: {error}", target.display());
    }
}

/// Every `.slt` file below `dir`, watching each directory for added and removed files.
fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    println!("cargo::rerun-if-changed={}", dir.display());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "slt") {
            files.push(path);
        }
    }
}
