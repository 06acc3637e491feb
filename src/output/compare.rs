//! `iomark compare`: one column per run, each figure with its difference from the baseline and
//! a verdict.

use std::fmt::Write as _;

use super::Style;
use iomark_result::compare::{Comparison, Verdict};
use iomark_result::units::figure;

pub fn render(c: &Comparison, style: Style) -> String {
    let mut out = String::new();
    let letters: Vec<String> = (0..c.runs.len())
        .map(|i| iomark_result::compare::letter(i).to_string())
        .collect();
    key(&mut out, c, &letters, style);
    out.push('\n');
    table(&mut out, c, &letters, style);
    for difference in &c.differences {
        let _ = writeln!(out, "{}", style.yellow(&format!("note: {difference}")));
    }
    let _ = writeln!(out, "{}", style.dim(iomark_result::compare::METHOD));
    for line in c.spread.iter().chain(&c.within_noise) {
        let _ = writeln!(out, "{}", style.dim(line));
    }
    out
}

/// A line per run: its letter, id, date, device, profile, price and label.
fn key(out: &mut String, c: &Comparison, letters: &[String], style: Style) {
    for (run, letter) in c.runs.iter().zip(letters) {
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
}

/// Each run's columns: its value's width, and for a later run its difference's and verdict's
/// (0 where it has none).
struct Widths {
    value: Vec<usize>,
    diff: Vec<usize>,
    verdict: Vec<usize>,
}

impl Widths {
    fn of(c: &Comparison, runs: usize) -> Widths {
        let mut w = Widths {
            value: vec![1; runs],
            diff: vec![0; runs],
            verdict: vec![0; runs],
        };
        for row in &c.rows {
            for (k, cell) in row.cells.iter().enumerate() {
                let Some(cell) = cell else { continue };
                w.value[k] = w.value[k].max(figure(cell.value).to_string().len());
                if let (Some(diff), Some(verdict)) = (cell.diff_pct, cell.verdict) {
                    w.diff[k] = w.diff[k].max(format!("{diff:+.1}%").len());
                    w.verdict[k] = w.verdict[k].max(verdict.as_str().len());
                }
            }
        }
        w
    }

    /// The blank a run's difference and verdict take when it has none in a row.
    fn judged_blank(&self, k: usize) -> usize {
        2 + self.diff[k] + self.verdict[k]
    }
}

/// Names as the run table spells them (`SEQ1M Q8T1 read`), and every column aligned: a value
/// right-aligned, then for each later run its difference and its verdict.
fn table(out: &mut String, c: &Comparison, letters: &[String], style: Style) {
    let names: Vec<String> = c.rows.iter().map(|r| r.test.replace('_', " ")).collect();
    let name_width = names.iter().map(|n| n.len()).max().unwrap_or(4).max(4);
    let w = Widths::of(c, letters.len());
    let mut header = format!("{:<name_width$}  {:<4}", "Test", "Unit");
    for (k, letter) in letters.iter().enumerate() {
        let judged = if w.diff[k] > 0 { w.judged_blank(k) } else { 0 };
        let _ = write!(
            header,
            "  {:>v$}{:j$}",
            letter,
            "",
            v = w.value[k],
            j = judged
        );
    }
    let _ = writeln!(out, "{}", style.bold(header.trim_end()));
    for (row, name) in c.rows.iter().zip(&names) {
        let mut line = format!("{name:<name_width$}  {:<4}", row.unit);
        for (k, cell) in row.cells.iter().enumerate() {
            line.push_str("  ");
            let Some(cell) = cell else {
                let _ = write!(line, "{:>w$}", "-", w = w.value[k]);
                if w.diff[k] > 0 {
                    let _ = write!(line, "{:b$}", "", b = w.judged_blank(k));
                }
                continue;
            };
            let _ = write!(line, "{:>v$}", figure(cell.value), v = w.value[k]);
            if w.diff[k] == 0 {
                continue;
            }
            match (cell.diff_pct, cell.verdict) {
                (Some(diff), Some(verdict)) => {
                    let judged = format!(
                        " {:>dw$} {:<vw$}",
                        format!("{diff:+.1}%"),
                        verdict.as_str(),
                        dw = w.diff[k],
                        vw = w.verdict[k]
                    );
                    line.push_str(&match verdict {
                        Verdict::Faster => style.cyan(&judged),
                        Verdict::Slower => style.yellow(&judged),
                        Verdict::WithinNoise
                        | Verdict::CantTell
                        | Verdict::NotCompared
                        | Verdict::NoDevice => style.dim(&judged),
                    });
                }
                _ => {
                    let _ = write!(line, "{:b$}", "", b = w.judged_blank(k));
                }
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}
