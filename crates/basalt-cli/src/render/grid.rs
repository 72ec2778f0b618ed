//! The aligned modes: `table` (ASCII borders), `box` (Unicode borders) and `markdown`.
//!
//! All rows are read first, so each column can be as wide as its widest value. In a terminal
//! the table is then fitted to the terminal's width: the widest columns are capped until the
//! whole table fits, and values longer than their column end in `…`. Widths are measured in
//! terminal cells (East Asian wide characters count two), and control characters are shown
//! escaped (`\n`, `\t`) so that one row stays on one line.

use std::io::Write;

use basalt::Rows;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::{Column, Mode, RenderError, Style, value_text};

/// The narrowest a capped column gets, so that a few characters of each value stay visible.
const MIN_CAPPED_WIDTH: usize = 5;

/// Border characters: left, between columns, right, and the horizontal line.
struct Rule {
    left: &'static str,
    middle: &'static str,
    right: &'static str,
    line: &'static str,
}

struct Borders {
    top: Rule,
    below_header: Rule,
    bottom: Rule,
    vertical: &'static str,
}

const ASCII: Borders = Borders {
    top: Rule {
        left: "+",
        middle: "+",
        right: "+",
        line: "-",
    },
    below_header: Rule {
        left: "+",
        middle: "+",
        right: "+",
        line: "-",
    },
    bottom: Rule {
        left: "+",
        middle: "+",
        right: "+",
        line: "-",
    },
    vertical: "|",
};

const UNICODE: Borders = Borders {
    top: Rule {
        left: "┌",
        middle: "┬",
        right: "┐",
        line: "─",
    },
    below_header: Rule {
        left: "├",
        middle: "┼",
        right: "┤",
        line: "─",
    },
    bottom: Rule {
        left: "└",
        middle: "┴",
        right: "┘",
        line: "─",
    },
    vertical: "│",
};

pub(super) fn write(
    out: &mut dyn Write,
    rows: &mut Rows<'_>,
    columns: &[Column],
    style: &Style,
) -> Result<(), RenderError> {
    let markdown = style.mode == Mode::Markdown;
    let clean = |text: &str| {
        let shown = escape_controls(text);
        if markdown {
            shown.replace('|', "\\|")
        } else {
            shown
        }
    };
    let headers: Vec<String> = columns.iter().map(|column| clean(&column.name)).collect();
    let mut body: Vec<Vec<String>> = Vec::new();
    while let Some(row) = rows.next()? {
        let mut cells = Vec::with_capacity(columns.len());
        for index in 0..columns.len() {
            cells.push(clean(&value_text(row.get_ref(index)?, style.null_text())));
        }
        body.push(cells);
    }

    let mut widths: Vec<usize> = vec![if markdown { 3 } else { 1 }; columns.len()];
    for (index, width) in widths.iter_mut().enumerate() {
        if style.headers {
            *width = (*width).max(headers[index].width());
        }
        for cells in &body {
            *width = (*width).max(cells[index].width());
        }
    }
    if !markdown && let Some(available) = style.width {
        fit(&mut widths, available);
    }

    let borders = if style.mode == Mode::Box {
        &UNICODE
    } else {
        &ASCII
    };
    if markdown {
        if style.headers {
            write_cells(out, "|", &headers, &widths, columns, false)?;
        } else {
            write_cells(
                out,
                "|",
                &vec![String::new(); columns.len()],
                &widths,
                columns,
                false,
            )?;
        }
        write_markdown_rule(out, &widths, columns)?;
        for cells in &body {
            write_cells(out, "|", cells, &widths, columns, true)?;
        }
        return Ok(());
    }
    write_rule(out, &borders.top, &widths)?;
    if style.headers {
        write_cells(out, borders.vertical, &headers, &widths, columns, false)?;
        write_rule(out, &borders.below_header, &widths)?;
    }
    for cells in &body {
        write_cells(out, borders.vertical, cells, &widths, columns, true)?;
    }
    write_rule(out, &borders.bottom, &widths)?;
    Ok(())
}

/// Caps the widest columns until the table (`| a | b |`: three cells of padding and border per
/// column, plus one) fits in `available` cells. If even capped columns do not fit, the table
/// stays as narrow as the cap allows and the terminal wraps it.
fn fit(widths: &mut [usize], available: usize) {
    let overhead = 3 * widths.len() + 1;
    let total = |cap: usize| -> usize { widths.iter().map(|w| (*w).min(cap)).sum::<usize>() };
    if total(usize::MAX) + overhead <= available {
        return;
    }
    let widest = widths.iter().copied().max().unwrap_or(0);
    // The largest cap that fits, found by bisection between the floor and the widest column.
    let (mut low, mut high) = (MIN_CAPPED_WIDTH, widest);
    if total(low) + overhead > available {
        high = low;
    }
    while low < high {
        let middle = (low + high).div_ceil(2);
        if total(middle) + overhead <= available {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    for width in widths.iter_mut() {
        *width = (*width).min(low);
    }
}

fn write_rule(out: &mut dyn Write, rule: &Rule, widths: &[usize]) -> std::io::Result<()> {
    let mut line = String::from(rule.left);
    for (index, width) in widths.iter().enumerate() {
        if index > 0 {
            line.push_str(rule.middle);
        }
        line.push_str(&rule.line.repeat(width + 2));
    }
    line.push_str(rule.right);
    writeln!(out, "{line}")
}

fn write_markdown_rule(
    out: &mut dyn Write,
    widths: &[usize],
    columns: &[Column],
) -> std::io::Result<()> {
    let mut line = String::from("|");
    for (width, column) in widths.iter().zip(columns) {
        if column.right_aligned() {
            line.push_str(&format!(" {}: |", "-".repeat(width.saturating_sub(1))));
        } else {
            line.push_str(&format!(" {} |", "-".repeat(*width)));
        }
    }
    writeln!(out, "{line}")
}

/// One line of cells, each padded (numbers on the right in the body) or cut to its width.
fn write_cells(
    out: &mut dyn Write,
    vertical: &str,
    cells: &[String],
    widths: &[usize],
    columns: &[Column],
    body: bool,
) -> std::io::Result<()> {
    let mut line = String::from(vertical);
    for ((cell, width), column) in cells.iter().zip(widths).zip(columns) {
        let shown = truncate(cell, *width);
        let pad = " ".repeat(width.saturating_sub(shown.width()));
        line.push(' ');
        if body && column.right_aligned() {
            line.push_str(&pad);
            line.push_str(&shown);
        } else {
            line.push_str(&shown);
            line.push_str(&pad);
        }
        line.push(' ');
        line.push_str(vertical);
    }
    writeln!(out, "{line}")
}

/// `text` cut to `width` terminal cells, ending in `…` when anything was cut.
pub(super) fn truncate(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut shown = String::new();
    let mut used = 0;
    for ch in text.chars() {
        let cells = ch.width().unwrap_or(0);
        if used + cells + 1 > width {
            break;
        }
        shown.push(ch);
        used += cells;
    }
    shown.push('…');
    shown
}

/// Control characters as visible escapes, so a value never breaks the table's lines.
pub(super) fn escape_controls(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for ch in text.chars() {
        match ch {
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            ch if ch.is_control() => shown.push_str(&format!("\\u{{{:x}}}", u32::from(ch))),
            ch => shown.push(ch),
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_terminal_cells() {
        assert_eq!(truncate("hello", 5), "hello");
        assert_eq!(truncate("hello world", 5), "hell…");
        assert_eq!(truncate("漢字漢字", 5), "漢字…");
        assert_eq!(truncate("abc", 1), "…");
    }

    #[test]
    fn fitting_caps_the_widest_columns() {
        let mut widths = vec![2, 50, 100];
        fit(&mut widths, 80);
        assert!(widths.iter().sum::<usize>() + 10 <= 80, "{widths:?}");
        assert_eq!(widths[0], 2);
        assert_eq!(widths[1], widths[2]);

        let mut narrow = vec![2, 3];
        fit(&mut narrow, 80);
        assert_eq!(narrow, [2, 3]);
    }

    #[test]
    fn controls_are_escaped() {
        assert_eq!(escape_controls("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(escape_controls("\u{1b}"), "\\u{1b}");
    }
}
