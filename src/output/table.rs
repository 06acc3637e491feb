//! The report: a CrystalDiskMark-style table (one row per test pair, read and write side by
//! side), the run's settings above it, the warnings and the test file's fate below.

use std::fmt::Write as _;

use super::{printable, Style};
use crate::result::{ResultDoc, Score, TestResult};
use crate::units::{format_micros, format_size};

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
    if let Some(device) = &doc.target.device {
        let mut parts: Vec<String> = Vec::new();
        let identity: Vec<&str> = [device.vendor.as_deref(), device.model.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        parts.push(
            format!(
                "{} {}",
                device.name.as_deref().unwrap_or("?"),
                identity.join(" ")
            )
            .trim()
            .to_string(),
        );
        parts.extend(device.transport.clone());
        if let Some(speed) = device.usb.as_ref().and_then(|u| u.speed_mbps) {
            parts.push(format!("{speed} Mbps"));
        }
        parts.extend(device.size_bytes.map(format_size));
        let _ = writeln!(
            out,
            "{}",
            style.dim(&format!("device {}", printable(&parts.join(" · "))))
        );
    }
    // How the tests were paced: one pass per step (pi), one long write (sustained), or loops.
    let plan = match &doc.score {
        Some(Score::Pi(_)) => format!(
            "{} test file · each step once over its file, as dd, fio and iozone do",
            format_size(s.file_size_bytes)
        ),
        Some(Score::Sustained(_)) => format!(
            "{} written once (stopping at {} if not done)",
            format_size(s.file_size_bytes),
            seconds(s.duration_s)
        ),
        Some(Score::Surface(score)) => format!(
            "{} {} · {} reads of {} spread across it, then {} random 4 KiB reads, one at a time",
            format_size(s.file_size_bytes),
            if score.surface.over == "device" {
                "device, read-only"
            } else {
                "test file"
            },
            score.surface.samples.len(),
            format_size(score.surface.sample_bytes),
            score.surface.access.len()
        ),
        _ => format!(
            "{} test file{} · {} of {} after {} warm-up",
            format_size(s.file_size_bytes),
            s.fill_cut_from_bytes
                .map(|planned| format!(
                    " (cut from {}: the device fills no more in 10 s)",
                    format_size(planned)
                ))
                .unwrap_or_default(),
            if s.loops_auto {
                format!("3 to {} loops (auto)", s.loops)
            } else if s.loops == 1 {
                "1 loop".to_string()
            } else {
                format!("{} loops", s.loops)
            },
            match s.count {
                Some(count) => format!("{count} I/Os"),
                None => seconds(s.duration_s),
            },
            seconds(s.warmup_s)
        ),
    };
    let _ = writeln!(
        out,
        "{}",
        style.dim(&format!(
            "{plan} · {} · {} I/O · {} data{}",
            s.engine,
            if s.direct { "direct" } else { "buffered" },
            s.data,
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
    out.push_str(&super::score::details(doc, style));
    for warning in &doc.warnings {
        let _ = writeln!(out, "{} {}", style.yellow("warning:"), warning.message);
    }
    if let Some(path) = test_file {
        let _ = writeln!(
            out,
            "{}",
            style.dim(&format!("Test file: {path} (removed)"))
        );
    }
    out
}

pub(super) fn seconds(s: f64) -> String {
    if s < 1.0 && s > 0.0 {
        format!("{:.0} ms", s * 1000.0)
    } else {
        format!("{s} s")
    }
}

/// Rows in the order the tests ran, each with its read and write figures.
pub fn table(tests: &[TestResult], style: Style) -> String {
    let mut out = String::new();
    let half = |label: &str| format!("{label:<38}");
    let _ = writeln!(
        out,
        "{:<12} {}  {}",
        "",
        style.cyan(&half("Read")),
        style.cyan("Write")
    );
    let head = format!("{:>10} {:>10} {:>9} {:>6}", "MB/s", "IOPS", "p99", "±");
    let _ = writeln!(
        out,
        "{}",
        style.bold(&format!("{:<12} {head}  {head}", "Test"))
    );
    for row in crate::result::rows(tests) {
        let _ = writeln!(
            out,
            "{} {}  {}",
            style.bold(&format!("{:<12}", row.name.replace('_', " "))),
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
