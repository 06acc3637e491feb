//! The report: a CrystalDiskMark-style table (one row per test pair, read and write side by
//! side), the run's settings above it, the warnings and the test file's fate below.

use std::fmt::Write as _;

use super::Style;
use crate::result::{ResultDoc, TestResult};
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
            doc.tool.version, s.profile, doc.target.path
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
            style.dim(&format!("device {}", parts.join(" · ")))
        );
    }
    let plan = if s.profile == "pi" {
        format!(
            "{} test file · each step once over its file, as dd, fio and iozone do",
            format_size(s.file_size_bytes)
        )
    } else if s.profile == "sustained" {
        format!(
            "{} written once (stopping at {} if not done)",
            format_size(s.file_size_bytes),
            seconds(s.duration_s)
        )
    } else {
        format!(
            "{} test file · {} of {} after {} warm-up",
            format_size(s.file_size_bytes),
            if s.loops == 1 {
                "1 loop".to_string()
            } else {
                format!("{} loops", s.loops)
            },
            match s.count {
                Some(count) => format!("{count} I/Os"),
                None => seconds(s.duration_s),
            },
            seconds(s.warmup_s)
        )
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
                .map(|l| format!(" · {l}"))
                .unwrap_or_default()
        ))
    );
    out.push('\n');
    out.push_str(&table(&doc.tests, style));
    out.push('\n');
    let _ = writeln!(
        out,
        "{}",
        style.dim("MB/s = 10^6 bytes/s (as fio and CrystalDiskMark) · median loop · p99 = 99th percentile latency · ± = loop-to-loop variation")
    );
    out.push_str(&details(doc, style));
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

/// What a profile adds below the table: the latency distribution, the sweep's saturation point.
fn details(doc: &ResultDoc, style: Style) -> String {
    let mut out = String::new();
    if doc.settings.profile == "latency" {
        for t in &doc.tests {
            let l = &t.latency_us;
            let samples: u64 = t.loops.iter().map(|l| l.ios).sum();
            let _ = writeln!(
                out,
                "{} {samples} samples: min {}, mean {}, max {}, stddev {}; p50 {}, p90 {}, p99 {}, p99.9 {}",
                style.bold(&format!("{} latency:", t.name)),
                format_micros(l.min),
                format_micros(l.mean),
                format_micros(l.max),
                format_micros(l.stddev),
                format_micros(l.p50),
                format_micros(l.p90),
                format_micros(l.p99),
                format_micros(l.p99_9)
            );
        }
    }
    if let Some(sustained) = doc.score.as_ref().and_then(|s| s.get("sustained")) {
        let rate = |key: &str| sustained[key].as_f64().unwrap_or(0.0);
        let written = sustained["written_bytes"].as_u64().unwrap_or(0);
        let seconds = sustained["seconds"].as_f64().unwrap_or(0.0);
        let verdict = match sustained["cliff_at_bytes"].as_u64() {
            Some(at) => format!(
                "{:.1} MB/s for the first {}, then {:.1} MB/s (a write cache ran out)",
                rate("before_mb_per_s"),
                crate::units::format_size(at),
                rate("after_mb_per_s")
            ),
            None => format!("{:.1} MB/s throughout, no cliff", rate("before_mb_per_s")),
        };
        let dips = sustained["dips"].as_u64().unwrap_or(0);
        let heat = sustained["max_temp_c"]
            .as_f64()
            .map(|c| format!("; peaking at {c:.0} °C"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{} {verdict}; {} written in {seconds:.1} s{heat}{}",
            style.bold("Sustained write:"),
            crate::units::format_size(written),
            if dips >= 3 {
                format!("; {dips} short dips (throttling? check temperature)")
            } else {
                String::new()
            }
        );
    }
    if let Some(classes) = doc.score.as_ref().and_then(|s| s["classes"].as_array()) {
        let _ = writeln!(
            out,
            "{}",
            style.bold(&format!(
                "{:<6} {:<8} {:<32} {}",
                "Class", "verdict", "measured", "required"
            ))
        );
        let figures = |side: &serde_json::Value| {
            let mut parts = vec![format!(
                "{:.1} MB/s",
                side["sequential_write_mb_per_s"]
                    .as_f64()
                    .unwrap_or(f64::NAN)
            )];
            if let (Some(r), Some(w)) = (
                side["random_read_iops_4k"].as_f64(),
                side["random_write_iops_4k"].as_f64(),
            ) {
                parts.push(format!("{r:.0}/{w:.0} IOPS"));
            }
            parts.join(", ")
        };
        for class in classes {
            let verdict = match class["pass"].as_bool() {
                Some(true) => "pass".to_string(),
                Some(false) => style.red("FAIL"),
                None => "–".to_string(),
            };
            let note = class["note"]
                .as_str()
                .filter(|n| !n.is_empty())
                .map(|n| format!("  ({n})"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{:<6} {:<8} {:<32} {}{}",
                class["class"].as_str().unwrap_or("?"),
                verdict,
                figures(&class["measured"]),
                figures(&class["required"]),
                style.dim(&note)
            );
        }
        let _ = writeln!(out, "{}", style.dim("sequential: the write rate sustained after any cache cliff; IOPS: 4 KiB random read/write at QD1"));
    }
    if let Some(parts) = doc
        .score
        .as_ref()
        .filter(|_| doc.settings.profile == "pi")
        .map(|s| &s["parts"])
    {
        let part = |key: &str| {
            parts[key]
                .as_f64()
                .map_or("?".to_string(), |v| format!("{v:.1}"))
        };
        let total = doc.score.as_ref().and_then(|s| s["total"].as_u64());
        let _ = writeln!(
            out,
            "{} {} = int(({} MB/s dd×1024 + {}×4 + {}×10 fio IOPS + {} + {} + {}×4 + {}×10 iozone KB/s) / 100)",
            style.bold("PiBenchmarks score:"),
            total.map_or("?".to_string(), |t| t.to_string()),
            part("dd_write_mb_per_s"),
            part("fio_randread_4k_iops"),
            part("fio_randwrite_4k_iops"),
            part("iozone_read_4k_kb_per_s"),
            part("iozone_write_4k_kb_per_s"),
            part("iozone_randread_4k_kb_per_s"),
            part("iozone_randwrite_4k_kb_per_s"),
        );
        let _ = writeln!(
            out,
            "{}",
            style.dim("DD4K: dd bs=4k count=130k conv=fsync of zeros; FIO4K_Q64T1: fio 4k random, iodepth 64, 80 MiB; IOZ4K / IOZRND4K: iozone -e -I -s 80M -r 4k. Equivalents run by iomark's engine, not the tools themselves.")
        );
    }
    if let Some(sweep) = doc.score.as_ref().and_then(|s| s.get("sweep")) {
        for op in ["read", "write"] {
            let Some(entry) = sweep.get(op) else { continue };
            if let (Some(block), Some(best)) = (
                entry["saturated_at_block_size"].as_u64(),
                entry["max_mb_per_s"].as_f64(),
            ) {
                let _ = writeln!(
                    out,
                    "{} saturates at {} blocks: within 90% of its best, {best:.1} MB/s",
                    style.bold(&format!("Sequential {op}")),
                    crate::units::format_size(block)
                );
            }
        }
    }
    out
}

fn seconds(s: f64) -> String {
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
            format!("{:.1}%", t.cv * 100.0)
        ),
    }
}
