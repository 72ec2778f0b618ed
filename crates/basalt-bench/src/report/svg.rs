//! The ratio chart: one horizontal bar per Basalt / comparator pairing, on a log scale, from
//! the 1.0 line (parity) to the ratio — left and green where Basalt is faster, right and red
//! where it is slower. Pairings without a ratio (unsupported, refused by the gate) get a
//! grey label instead of a bar. Written by hand: it is a few rectangles and lines.

use std::fmt::Write as _;

use super::format_ratio;
use super::json::Envelope;

const ROW: f64 = 18.0;
const LABEL_WIDTH: f64 = 430.0;
const PLOT_WIDTH: f64 = 520.0;
const RIGHT_MARGIN: f64 = 70.0;
const TOP: f64 = 56.0;

/// Renders the chart.
pub fn render(envelope: &Envelope) -> String {
    let rows = &envelope.comparisons;
    let ratios: Vec<f64> = rows.iter().filter_map(|row| row.ratio).collect();
    // The axis spans whole decades around every ratio and 1.0.
    let low = ratios
        .iter()
        .copied()
        .fold(1.0f64, f64::min)
        .log10()
        .floor()
        .min(-1.0);
    let high = ratios
        .iter()
        .copied()
        .fold(1.0f64, f64::max)
        .log10()
        .ceil()
        .max(1.0);
    let x = |ratio: f64| LABEL_WIDTH + (ratio.log10() - low) / (high - low) * PLOT_WIDTH;
    let width = LABEL_WIDTH + PLOT_WIDTH + RIGHT_MARGIN;
    let height = TOP + rows.len() as f64 * ROW + 30.0;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"##
    );
    let _ = writeln!(svg, r##"<rect width="100%" height="100%" fill="white"/>"##);
    let _ = writeln!(
        svg,
        r##"<text x="10" y="20" font-size="14" font-weight="bold">Basalt / comparator, median time per operation ({} run, {})</text>"##,
        escape(&envelope.mode),
        escape(&envelope.started_utc)
    );
    let _ = writeln!(
        svg,
        r##"<text x="10" y="38" fill="#555">log scale; left of 1.0 (green) Basalt is faster, right (red) slower</text>"##
    );
    // Decade grid.
    let mut decade = low;
    while decade <= high {
        let ratio = 10f64.powf(decade);
        let gx = x(ratio);
        let stroke = if decade == 0.0 { "#000" } else { "#ddd" };
        let _ = writeln!(
            svg,
            r##"<line x1="{gx:.1}" y1="{:.1}" x2="{gx:.1}" y2="{:.1}" stroke="{stroke}"/>"##,
            TOP - 6.0,
            TOP + rows.len() as f64 * ROW
        );
        let _ = writeln!(
            svg,
            r##"<text x="{gx:.1}" y="{:.1}" text-anchor="middle" fill="#555">{}</text>"##,
            TOP + rows.len() as f64 * ROW + 14.0,
            decade_label(decade)
        );
        decade += 1.0;
    }
    for (index, row) in rows.iter().enumerate() {
        let y = TOP + index as f64 * ROW;
        let pair = if row.subject == crate::driver::DriverKind::Basalt {
            format!("vs {}", row.comparator)
        } else {
            format!("FULL vs {}", row.comparator)
        };
        let label = format!("{} · {} ({pair})", row.workload, row.metric);
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LABEL_WIDTH - 6.0,
            y + ROW * 0.7,
            escape(&label)
        );
        match row.ratio {
            Some(ratio) => {
                let (from, to) = (x(1.0), x(ratio));
                let (left, bar_width) = (from.min(to), (to - from).abs().max(1.0));
                let colour = if ratio <= 1.0 { "#2e8b57" } else { "#c0392b" };
                let _ = writeln!(
                    svg,
                    r##"<rect x="{left:.1}" y="{:.1}" width="{bar_width:.1}" height="{:.1}" fill="{colour}"/>"##,
                    y + 3.0,
                    ROW - 6.0
                );
                let (text_x, anchor) = if ratio <= 1.0 {
                    (left - 4.0, "end")
                } else {
                    (left + bar_width + 4.0, "start")
                };
                let _ = writeln!(
                    svg,
                    r##"<text x="{text_x:.1}" y="{:.1}" text-anchor="{anchor}">{}</text>"##,
                    y + ROW * 0.7,
                    escape(&format_ratio(ratio))
                );
            }
            None => {
                let reason = row.note.as_deref().unwrap_or("no ratio");
                let short: String = reason.chars().take(90).collect();
                let _ = writeln!(
                    svg,
                    r##"<text x="{:.1}" y="{:.1}" fill="#888">{}</text>"##,
                    x(1.0) + 4.0,
                    y + ROW * 0.7,
                    escape(&short)
                );
            }
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// `10^decade` as a short label: 0.01, 0.1, 1, 10, 100.
fn decade_label(decade: f64) -> String {
    let ratio = 10f64.powf(decade);
    if decade >= 0.0 {
        format!("{ratio:.0}")
    } else {
        format!("{ratio:.*}", (-decade) as usize)
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a < b & \"c\""), "a &lt; b &amp; &quot;c&quot;");
    }

    #[test]
    fn decade_labels_read_naturally() {
        assert_eq!(decade_label(1.0), "10");
        assert_eq!(decade_label(0.0), "1");
        assert_eq!(decade_label(-2.0), "0.01");
    }
}
