//! `iomark compare`: one column per run, each figure with its difference from the baseline and
//! a verdict.

use std::fmt::Write as _;

use super::Style;
use iomark_result::compare::{Comparison, Verdict};

pub fn render(c: &Comparison, style: Style) -> String {
    let mut out = String::new();
    let letters: Vec<String> = (0..c.runs.len())
        .map(|i| iomark_result::compare::letter(i).to_string())
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
    // Names as the run table spells them (`SEQ1M Q8T1 read`), and every column aligned: a
    // value right-aligned, then for each later run its difference and its verdict.
    let names: Vec<String> = c.rows.iter().map(|r| r.test.replace('_', " ")).collect();
    let name_width = names.iter().map(|n| n.len()).max().unwrap_or(4).max(4);
    let value = |unit: &str, v: f64| {
        if unit == "IOPS" {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    };
    let runs = letters.len();
    let mut value_width = vec![1usize; runs];
    let mut diff_width = vec![0usize; runs];
    let mut verdict_width = vec![0usize; runs];
    for row in &c.rows {
        for (k, cell) in row.cells.iter().enumerate() {
            let Some(cell) = cell else { continue };
            value_width[k] = value_width[k].max(value(row.unit, cell.value).len());
            if let (Some(diff), Some(verdict)) = (cell.diff_pct, cell.verdict) {
                diff_width[k] = diff_width[k].max(format!("{diff:+.1}%").len());
                verdict_width[k] = verdict_width[k].max(verdict.as_str().len());
            }
        }
    }
    let mut header = format!("{:<name_width$}  {:<4}", "Test", "Unit");
    for (k, letter) in letters.iter().enumerate() {
        let width = value_width[k]
            + if diff_width[k] > 0 {
                1 + diff_width[k] + 1 + verdict_width[k]
            } else {
                0
            };
        let _ = write!(header, "  {:>w$}", letter, w = value_width[k]);
        let _ = write!(header, "{:w$}", "", w = width - value_width[k]);
    }
    let _ = writeln!(out, "{}", style.bold(header.trim_end()));
    for (row, name) in c.rows.iter().zip(&names) {
        let mut line = format!("{name:<name_width$}  {:<4}", row.unit);
        for (k, cell) in row.cells.iter().enumerate() {
            line.push_str("  ");
            let Some(cell) = cell else {
                let _ = write!(line, "{:>w$}", "-", w = value_width[k]);
                if diff_width[k] > 0 {
                    let _ = write!(line, "{:w$}", "", w = 2 + diff_width[k] + verdict_width[k]);
                }
                continue;
            };
            let _ = write!(
                line,
                "{:>w$}",
                value(row.unit, cell.value),
                w = value_width[k]
            );
            if diff_width[k] == 0 {
                continue;
            }
            match (cell.diff_pct, cell.verdict) {
                (Some(diff), Some(verdict)) => {
                    let judged = format!(
                        " {:>dw$} {:<vw$}",
                        format!("{diff:+.1}%"),
                        verdict.as_str(),
                        dw = diff_width[k],
                        vw = verdict_width[k]
                    );
                    line.push_str(&match verdict {
                        Verdict::Faster => style.cyan(&judged),
                        Verdict::Slower => style.yellow(&judged),
                        Verdict::WithinNoise | Verdict::CantTell | Verdict::NoDevice => {
                            style.dim(&judged)
                        }
                    });
                }
                _ => {
                    let _ = write!(line, "{:w$}", "", w = 2 + diff_width[k] + verdict_width[k]);
                }
            }
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
