//! `iomark compare`: one column per run, each figure with its difference from the baseline and
//! a verdict.

use std::fmt::Write as _;

use super::Style;
use crate::compare::{Comparison, Verdict};

pub fn render(c: &Comparison, style: Style) -> String {
    let mut out = String::new();
    let letters: Vec<String> = (0..c.runs.len())
        .map(|i| crate::compare::letter(i).to_string())
        .collect();
    for (run, letter) in c.runs.iter().zip(&letters) {
        let date = run
            .started_at
            .get(..16)
            .unwrap_or(&run.started_at)
            .replace('T', " ");
        let label = run
            .label
            .as_deref()
            .map(|l| format!(" \"{}\"", super::printable(l)))
            .unwrap_or_default();
        let role = if letter == "A" { " (baseline)" } else { "" };
        let price = run
            .price_usd
            .map(|p| format!(" · ${p:.2}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{} {}  {date}  {} · {}{price}{label}{role}",
            style.bold(letter),
            run.id,
            super::printable(&run.device),
            super::printable(&run.profile)
        );
    }
    out.push('\n');
    let name_width = c
        .rows
        .iter()
        .map(|r| r.test.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let cell_width = 32;
    let mut header = format!("{:<name_width$}  {:>5}", "Test", "Unit");
    for letter in &letters {
        let _ = write!(header, "  {letter:<cell_width$}");
    }
    let _ = writeln!(out, "{}", style.bold(header.trim_end()));
    for row in &c.rows {
        let mut line = format!("{:<name_width$}  {:>5}", row.test, row.unit);
        for cell in &row.cells {
            let text = match cell {
                None => "-".to_string(),
                Some(cell) => {
                    let value = if row.unit == "IOPS" {
                        format!("{:.0}", cell.value)
                    } else {
                        format!("{:.1}", cell.value)
                    };
                    match (cell.diff_pct, cell.verdict) {
                        (Some(diff), Some(verdict)) => {
                            let judged = format!("{value} {diff:+.1}% {}", verdict.as_str());
                            let padded = format!("{judged:<cell_width$}");
                            match verdict {
                                Verdict::Faster => style.cyan(&padded),
                                Verdict::Slower => style.yellow(&padded),
                                Verdict::WithinNoise | Verdict::CantTell => style.dim(&padded),
                            }
                        }
                        _ => format!("{value:<cell_width$}"),
                    }
                }
            };
            line.push_str("  ");
            line.push_str(&text);
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    for difference in &c.differences {
        let _ = writeln!(out, "{}", style.yellow(&format!("note: {difference}")));
    }
    let _ = writeln!(
        out,
        "{}",
        style.dim(
            "within noise: the difference is inside twice the runs' combined loop-to-loop \
             spread (at least 2%); can't tell: a run had one loop and under 3 s of timeline, so \
             its spread is unknown, and the difference is under 50%"
        )
    );
    out
}
