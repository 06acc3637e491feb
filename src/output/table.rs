//! The report: a CrystalDiskMark-style table (one row per test pair, read and write side by
//! side), the run's settings above it, the warnings and the test file's fate below.

use std::fmt::Write as _;

use super::{printable, Style};
use iomark_profiles::describe;
use iomark_result::result::{ResultDoc, TestResult};
use iomark_result::units::format_micros;

/// The whole report for a finished run.
pub fn render(doc: &ResultDoc, test_file: Option<&str>, style: Style) -> String {
    let mut out = String::new();
    let s = &doc.settings;
    let fs = doc
        .target
        .filesystem
        .as_deref()
        .unwrap_or("unknown filesystem");
    let _ = writeln!(
        out,
        "{}",
        style.bold(&format!(
            "iomark {} · {} profile · {} ({fs})",
            doc.tool.version,
            printable(&s.profile),
            printable(&doc.target.path)
        ))
    );
    if let Some(device) = describe::device_line(doc) {
        let _ = writeln!(
            out,
            "{}",
            style.dim(&format!("device {}", printable(&device)))
        );
    }
    let _ = writeln!(
        out,
        "{}",
        style.dim(&format!(
            "{}{}",
            describe::method_line(doc),
            doc.label
                .as_ref()
                .map(|l| format!(" · {}", printable(l)))
                .unwrap_or_default()
        ))
    );
    out.push('\n');
    // A profile of its own reads (surface) has no table of tests.
    if !doc.tests.is_empty() {
        out.push_str(&table(&doc.tests, style));
        out.push('\n');
        let _ = writeln!(
            out,
            "{}",
            style.dim("MB/s = 10^6 bytes/s (as fio and CrystalDiskMark) · median loop · p99 = 99th percentile latency · ± = loop-to-loop variation")
        );
    }
    if s.loops_auto {
        let known: Vec<String> = doc
            .tests
            .iter()
            .filter_map(|t| {
                let width = t.mean_ci95_pct?;
                Some(format!("{} {} loops ±{width:.1}%", t.name, t.loops.len()))
            })
            .collect();
        let _ = writeln!(
            out,
            "{}",
            style.dim(&format!(
                "--loops auto: each test's mean to within its 95% interval: {}",
                known.join(", ")
            ))
        );
    }
    out.push_str(&iomark_profiles::details::details(doc, &style));
    out.push_str(&warnings(doc, style));
    if let Some(path) = test_file {
        let _ = writeln!(
            out,
            "{}",
            style.dim(&format!("Test file: {path} (removed)"))
        );
    }
    out
}

/// The run's warnings, a line each, as every command that prints a run ends.
pub fn warnings(doc: &ResultDoc, style: Style) -> String {
    let mut out = String::new();
    for warning in &doc.warnings {
        let _ = writeln!(out, "{} {}", style.yellow("warning:"), warning.message);
    }
    out
}

/// Rows in the order the tests ran, each with its read and write figures; the name column is
/// as wide as the longest name (`SEQ128K Q32T16`).
pub fn table(tests: &[TestResult], style: Style) -> String {
    let mut out = String::new();
    let rows = iomark_result::result::rows(tests);
    let width = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(12);
    let half = |label: &str| format!("{label:<38}");
    let _ = writeln!(
        out,
        "{:<width$} {}  {}",
        "",
        style.cyan(&half("Read")),
        style.cyan("Write")
    );
    let head = format!("{:>10} {:>10} {:>9} {:>6}", "MB/s", "IOPS", "p99", "±");
    let _ = writeln!(
        out,
        "{}",
        style.bold(&format!("{:<width$} {head}  {head}", "Test"))
    );
    for row in rows {
        let _ = writeln!(
            out,
            "{} {}  {}",
            style.bold(&format!("{:<width$}", row.name.replace('_', " "))),
            cells(row.read),
            cells(row.write)
        );
    }
    out
}

fn cells(test: Option<&TestResult>) -> String {
    match test {
        None => format!("{:>10} {:>10} {:>9} {:>6}", "–", "–", "–", "–"),
        Some(t) => format!(
            "{:>10} {:>10} {:>9} {:>6}",
            format!("{:.2}", t.mb_per_s),
            if t.iops >= 100.0 {
                format!("{:.0}", t.iops)
            } else {
                format!("{:.1}", t.iops)
            },
            format_micros(t.latency_us.p99),
            t.spread_text()
        ),
    }
}
