//! Skip lists: records known to fail, listed with the reason they are skipped.
//!
//! One entry per line, `path:line  # reason`. Blank lines and lines starting with `#` are
//! ignored. Every entry must give a non-empty reason, so a skip is never silent. `path` is
//! matched against the script paths the runner was given by trailing components, so
//! `select1.test:40` matches `/work/shared/slt/sqlite/select1.test` and
//! `index/in/10/slt_good_0.test:7` matches any path ending in those four components.
//! `line` is a record's header line (`statement`/`query`) or its first line (the first
//! `skipif`/`onlyif`), the numbers failure reports print.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// One skip-list line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkipEntry {
    pub path: PathBuf,
    pub line: usize,
    pub reason: String,
}

/// A parsed skip list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkipList {
    pub entries: Vec<SkipEntry>,
}

impl SkipList {
    /// Parses skip-list text; errors name the offending line (1-based).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut entries = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let number = index + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (location, reason) = line
                .split_once('#')
                .ok_or_else(|| format!("skip list line {number}: missing `# reason`"))?;
            let reason = reason.trim();
            if reason.is_empty() {
                return Err(format!("skip list line {number}: empty reason"));
            }
            // rsplit: the path itself may contain ':'.
            let (path, record_line) = location
                .trim()
                .rsplit_once(':')
                .ok_or_else(|| format!("skip list line {number}: expected `path:line`"))?;
            let record_line = record_line
                .trim()
                .parse::<usize>()
                .map_err(|_| format!("skip list line {number}: bad line number {record_line:?}"))?;
            if path.is_empty() {
                return Err(format!("skip list line {number}: empty path"));
            }
            entries.push(SkipEntry {
                path: PathBuf::from(path),
                line: record_line,
                reason: reason.to_owned(),
            });
        }
        Ok(Self { entries })
    }

    /// The record lines to skip in `script`.
    pub fn lines_for(&self, script: &Path) -> HashSet<usize> {
        self.entries
            .iter()
            .filter(|entry| script.ends_with(&entry.path))
            .map(|entry| entry.line)
            .collect()
    }

    /// Entries whose path matches none of `scripts` (probably stale or misspelled).
    pub fn unmatched<'a>(&'a self, scripts: &[PathBuf]) -> Vec<&'a SkipEntry> {
        self.entries
            .iter()
            .filter(|entry| !scripts.iter().any(|script| script.ends_with(&entry.path)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entries_and_comments() {
        let list = SkipList::parse(
            "# known failures\n\nselect1.test:40  # NULL ordering\nindex/in/10/slt_good_0.test:7 # IN with NULL\nc:/x.test:3 # colon in path\n",
        )
        .unwrap();
        assert_eq!(list.entries.len(), 3);
        assert_eq!(
            list.entries[0],
            SkipEntry {
                path: "select1.test".into(),
                line: 40,
                reason: "NULL ordering".into()
            }
        );
        assert_eq!(list.entries[2].path, PathBuf::from("c:/x.test"));
        assert_eq!(
            list.lines_for(Path::new("/a/sqlite/select1.test")),
            HashSet::from([40])
        );
        assert!(
            list.lines_for(Path::new("/a/sqlite/xselect1.test"))
                .is_empty()
        );
        assert_eq!(
            list.lines_for(Path::new("/s/index/in/10/slt_good_0.test")),
            HashSet::from([7])
        );
        assert!(
            list.lines_for(Path::new("/s/index/in/100/slt_good_0.test"))
                .is_empty()
        );
        assert_eq!(list.unmatched(&[PathBuf::from("/a/select1.test")]).len(), 2);
    }

    #[test]
    fn rejects_bad_lines() {
        assert!(
            SkipList::parse("select1.test:40\n")
                .unwrap_err()
                .contains("line 1")
        );
        assert!(SkipList::parse("select1.test:40 #   \n").is_err());
        assert!(
            SkipList::parse("\nselect1.test # reason\n")
                .unwrap_err()
                .contains("line 2")
        );
        assert!(SkipList::parse("select1.test:x # reason\n").is_err());
        assert!(SkipList::parse(":4 # reason\n").is_err());
    }
}
