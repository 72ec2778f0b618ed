//! `SqlSyntaxError`: a syntax error with its position in the SQL text.
//!
//! Every failure of the parsing layer (tokenizer or parser) becomes one of these, carrying
//! SQLSTATE `42601` (PostgreSQL's `syntax_error`), a 1-based line and column, and the text
//! of the offending token when there is one. The API and the shell render it with
//! [`SqlSyntaxError::caret_display`], PostgreSQL-style, so users see where the error is.
//!
//! Positions: `line` counts `\n`-separated lines from 1; `column` counts characters (Unicode
//! scalar values, a tab being one) from 1, which is what sqlparser's tokenizer reports.
//! [`SqlSyntaxError::caret_display`] converts that to a display position.

use std::fmt;

use crate::sqlstate::{self, SqlState};

/// A syntax error in SQL text: SQLSTATE `42601`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlSyntaxError {
    /// What was wrong, without the position (e.g. `Expected: an expression, found: FROM`).
    pub message: String,
    /// 1-based line of the error.
    pub line: u64,
    /// 1-based column of the error, in characters.
    pub column: u64,
    /// The offending token as written, when the error is at a token (not at end of input).
    pub token: Option<String>,
}

/// Tab stops used when rendering a line with a caret.
const TAB_WIDTH: usize = 8;

impl SqlSyntaxError {
    /// The SQLSTATE of every syntax error: `SYNTAX_ERROR`.
    pub fn sqlstate(&self) -> SqlState {
        sqlstate::SYNTAX_ERROR
    }

    /// The offending line of `sql` with a `^` under the error's column, e.g.
    ///
    /// ```text
    /// LINE 2: SELECT a b c FROM t
    ///                    ^
    /// ```
    ///
    /// Tabs are expanded to spaces (stops every 8 columns) in both lines so the caret lines up
    /// whatever the terminal's tab width; East Asian wide characters count two columns and
    /// combining marks none, which is how terminals draw them. `sql` should be the text that
    /// was parsed; if the position lies outside it, the caret goes at the end of the nearest
    /// line instead of panicking.
    pub fn caret_display(&self, sql: &str) -> String {
        let line_index = usize::try_from(self.line.max(1) - 1).unwrap_or(usize::MAX);
        let lines: Vec<&str> = sql.split('\n').collect();
        let line = lines
            .get(line_index)
            .or(lines.last())
            .copied()
            .unwrap_or("");
        let line = line.strip_suffix('\r').unwrap_or(line);
        let before = usize::try_from(self.column.max(1) - 1).unwrap_or(usize::MAX);

        let mut rendered = String::new();
        let mut width = 0usize; // display width of `rendered`
        let mut caret_at = None;
        for (i, ch) in line.chars().enumerate() {
            if i == before {
                caret_at = Some(width);
            }
            if ch == '\t' {
                let pad = TAB_WIDTH - width % TAB_WIDTH;
                rendered.extend(std::iter::repeat_n(' ', pad));
                width += pad;
            } else if ch.is_control() {
                // Other control characters would move the terminal's cursor: show a space.
                rendered.push(' ');
                width += 1;
            } else {
                rendered.push(ch);
                width += char_width(ch);
            }
        }
        let caret_at = caret_at.unwrap_or(width);
        let prefix = format!("LINE {}: ", self.line);
        let indent = prefix.chars().count() + caret_at;
        format!("{prefix}{rendered}\n{}^", " ".repeat(indent))
    }
}

impl fmt::Display for SqlSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "syntax error at line {}, column {}",
            self.line, self.column
        )?;
        if let Some(token) = &self.token {
            write!(f, " near \"{token}\"")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for SqlSyntaxError {}

/// Columns a character occupies on a terminal: 0 for combining marks and zero-width
/// characters, 2 for East Asian wide and fullwidth characters and most emoji, 1 otherwise.
///
/// An approximation of Unicode's East Asian Width (UAX #11) by block, good enough to place
/// a caret without a dependency.
fn char_width(ch: char) -> usize {
    let c = u32::from(ch);
    let zero = matches!(c,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x0610..=0x061A
        | 0x064B..=0x065F | 0x0E31 | 0x0E34..=0x0E3A | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF
        | 0x200B..=0x200F | 0x20D0..=0x20FF | 0xFE00..=0xFE0F | 0xFE20..=0xFE2F | 0xFEFF);
    if zero {
        return 0;
    }
    let wide = matches!(c,
        0x1100..=0x115F | 0x2E80..=0x303E | 0x3041..=0x33FF | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF | 0xA000..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF | 0x20000..=0x2FFFD | 0x30000..=0x3FFFD);
    if wide { 2 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(line: u64, column: u64) -> SqlSyntaxError {
        SqlSyntaxError {
            message: "boom".into(),
            line,
            column,
            token: Some("x".into()),
        }
    }

    #[test]
    fn display_and_code() {
        let e = err(2, 5);
        assert_eq!(e.sqlstate().code(), "42601");
        assert_eq!(
            e.to_string(),
            "syntax error at line 2, column 5 near \"x\": boom"
        );
        let e = SqlSyntaxError { token: None, ..e };
        assert_eq!(e.to_string(), "syntax error at line 2, column 5: boom");
    }

    #[test]
    fn caret_plain() {
        let sql = "SELECT 1;\nSELECT a b c FROM t";
        assert_eq!(
            err(2, 12).caret_display(sql),
            "LINE 2: SELECT a b c FROM t\n                   ^"
        );
    }

    #[test]
    fn caret_tabs_and_wide_characters() {
        // Tab expands to column 8; the CJK characters are two columns each.
        let sql = "\tx = '漢字' !";
        let shown = err(1, 11).caret_display(sql);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines[0], "LINE 1:         x = '漢字' !");
        let caret_col = lines[1].len() - 1;
        // "LINE 1: " is 8 columns, the tab 8, "x = '" 5, 漢字 4, "' " 2.
        assert_eq!(caret_col, 8 + 8 + 5 + 4 + 2);
    }

    #[test]
    fn caret_out_of_range_does_not_panic() {
        assert!(err(99, 99).caret_display("abc").ends_with('^'));
        assert!(err(0, 0).caret_display("").ends_with('^'));
        assert!(
            err(1, 3)
                .caret_display("ab\r\n")
                .starts_with("LINE 1: ab\n")
        );
    }
}
