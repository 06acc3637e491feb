//! A health check told where people and monitors look (issue 48): the Prometheus text
//! node_exporter's textfile collector reads, the JSON a webhook receives, the message shown at
//! login, and the one line with performance data a Nagios-style monitor reads. Pure: a document
//! in, text out; where it goes is the command's business.

use iomark_profiles::describe;
use iomark_result::result::health::{Section, Verdict};
use iomark_result::result::time::unix_seconds;
use iomark_result::result::ResultDoc;
use iomark_result::units::format_size;
use serde_json::{json, Value};

/// The first words of every file a check writes outside its folder (but the login message): a
/// file beginning so is iomark's to replace or remove, and no other.
pub const WRITTEN_BY: &str = "# Written by iomark health";
/// The first words of the login message, which people read (a comment line would be shown).
pub const LOGIN_BEGINS: &str = "iomark health: ";

/// Whether a file beginning with `head` is one a check wrote.
pub fn is_ours(head: &[u8]) -> bool {
    head.starts_with(WRITTEN_BY.as_bytes()) || head.starts_with(LOGIN_BEGINS.as_bytes())
}

/// Whether people are told of this check: it is not healthy, or it is after one that was not
/// (the all-clear).
pub fn worth_telling(section: &Section) -> bool {
    section.verdict != Verdict::Healthy
        || section
            .previous_verdict
            .is_some_and(|v| v != Verdict::Healthy)
}

/// What was checked, in a few words: the path, and the device where it is known
/// (`/media/card (mmcblk0 SanDisk SC64G · mmc · 59.5 GiB)`).
pub fn what(doc: &ResultDoc) -> String {
    one_line(&match describe::device_line(doc) {
        Some(device) => format!("{} ({device})", doc.target.path),
        None => doc.target.path.clone(),
    })
}

/// The plugin output of a Nagios-style check: `HEALTH OK - … | perfdata`, one line.
pub fn monitor_line(doc: &ResultDoc) -> String {
    let Some(h) = &doc.health else {
        return "HEALTH UNKNOWN - no health check in this result".into();
    };
    let status = ["OK", "WARNING", "CRITICAL"][h.verdict.exit_status() as usize];
    let mut perf = vec![
        format!("canary_bad={}B;;;0", h.canary_bad_bytes),
        format!("canary_unreadable={}B;;;0", h.canary_unreadable_bytes),
    ];
    if let Some(r) = &h.read_latency_us {
        perf.push(format!("read_p99={:.6}s;;;0", r.p99 / 1e6));
    }
    if let Some(w) = &h.synced_write_ms {
        perf.push(format!("synced_write_p99={:.6}s;1;;0", w.p99 / 1e3));
    }
    if let Some(written) = h.device_written_bytes {
        perf.push(format!("written={written}B;;;0"));
    }
    format!(
        "HEALTH {status} - {}: {} | {}",
        what(doc),
        one_line(&h.sentence),
        perf.join(" ")
    )
}

/// The check as metrics in Prometheus' text format, one series each labelled with the path
/// and the device, for node_exporter's textfile collector.
pub fn metrics(doc: &ResultDoc) -> String {
    let Some(h) = &doc.health else {
        return String::new();
    };
    let device = doc
        .target
        .device
        .as_ref()
        .and_then(|d| d.name.as_deref())
        .unwrap_or("");
    let labels = format!(
        "path=\"{}\",device=\"{}\"",
        label(&doc.target.path),
        label(device)
    );
    let mut out = format!(
        "{WRITTEN_BY} for {} (check {}, {}); node_exporter's textfile collector reads it.\n",
        one_line(&doc.target.path),
        h.checks,
        doc.finished_at
    );
    let mut gauge = |name: &str, help: &str, series: Vec<(String, f64)>| {
        out.push_str(&format!(
            "# HELP iomark_health_{name} {help}\n# TYPE iomark_health_{name} gauge\n"
        ));
        for (extra, value) in series {
            out.push_str(&format!(
                "iomark_health_{name}{{{labels}{extra}}} {value}\n"
            ));
        }
    };
    gauge(
        "verdict",
        "The last check's verdict: 1 for the one it gave, 0 for the others.",
        Verdict::ALL
            .iter()
            .rev()
            .map(|v| {
                let is = if *v == h.verdict { 1.0 } else { 0.0 };
                (format!(",verdict=\"{v}\""), is)
            })
            .collect(),
    );
    gauge(
        "status",
        "The last check's verdict as a number: 0 healthy, 1 watch, 2 failing, 3 lying.",
        vec![(String::new(), f64::from(h.verdict.level()))],
    );
    if let Some(at) = unix_seconds(&doc.finished_at) {
        gauge(
            "last_check_timestamp_seconds",
            "When the last check ended, in seconds since 1970.",
            vec![(String::new(), at.floor())],
        );
    }
    gauge(
        "checks",
        "Checks made of this filesystem so far.",
        vec![(String::new(), h.checks as f64)],
    );
    gauge(
        "canary_bad_bytes",
        "Bytes of the canaries written at the first check that read back different.",
        vec![(String::new(), h.canary_bad_bytes as f64)],
    );
    gauge(
        "canary_unreadable_bytes",
        "Bytes of the canaries that could not be read.",
        vec![(String::new(), h.canary_unreadable_bytes as f64)],
    );
    if let Some(kept) = h.fresh_write_kept {
        gauge(
            "fresh_write_kept",
            "1 when a fresh write, synced, read back as written past the page cache.",
            vec![(String::new(), if kept { 1.0 } else { 0.0 })],
        );
    }
    if let Some(r) = &h.read_latency_us {
        gauge(
            "read_latency_p99_seconds",
            "The 99th percentile of the check's small reads past the page cache.",
            vec![(String::new(), r.p99 / 1e6)],
        );
    }
    if let Some(w) = &h.synced_write_ms {
        gauge(
            "synced_write_p99_seconds",
            "The 99th percentile of the check's small writes, each synced.",
            vec![(String::new(), w.p99 / 1e3)],
        );
    }
    if let Some(written) = h.device_written_bytes {
        gauge(
            "check_written_bytes",
            "What the device counted written while the check ran, every process's writes.",
            vec![(String::new(), written as f64)],
        );
    }
    if let Some(per_day) = h.written_per_day_bytes {
        gauge(
            "written_per_day_bytes",
            "What the device counted written per day between the last two checks.",
            vec![(String::new(), per_day as f64)],
        );
    }
    out
}

/// The JSON a webhook receives: the verdict, the one before it, the sentence and the evidence,
/// what was checked and on which machine; `title` and `message` ready for a notification
/// service to show (ntfy's templates, Home Assistant's `trigger.json`).
pub fn webhook(doc: &ResultDoc, hostname: &str) -> Value {
    let Some(h) = &doc.health else {
        return Value::Null;
    };
    let device = doc.target.device.as_ref();
    json!({
        "event": "iomark.health",
        "verdict": h.verdict,
        "previous_verdict": h.previous_verdict,
        "title": format!("{}: {} on {hostname}", h.verdict.as_str().to_uppercase(), doc.target.path),
        "message": h.sentence,
        "host": hostname,
        "path": doc.target.path,
        "device": device.and_then(|d| d.name.clone()),
        "model": device.and_then(|d| d.model.clone()),
        "checked": what(doc),
        "checks": h.checks,
        "at": doc.finished_at,
        "result_id": doc.id,
        "signals": h.signals,
        "tool": format!("iomark {}", doc.tool.version),
    })
}

/// The message shown at login while a check is not healthy: what, since when, what to do.
pub fn login_message(doc: &ResultDoc) -> String {
    let Some(h) = &doc.health else {
        return String::new();
    };
    format!(
        "{LOGIN_BEGINS}{} is {} ({} check, {})\n  {}\n  Written by this check: {} (budget {}). \
         See `iomark show {}`; this message goes when a check finds it healthy.\n\n",
        what(doc),
        h.verdict.as_str().to_uppercase(),
        ordinal(h.checks),
        doc.finished_at,
        one_line(&h.sentence),
        h.device_written_bytes
            .map(format_size)
            .unwrap_or_else(|| "not counted".into()),
        format_size(h.budget_bytes),
        doc.id
    )
}

fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A text on one line, control characters shown escaped (a path may hold a newline).
fn one_line(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// A label value as the text format escapes it: backslash, double quote and newline.
fn label(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped_and_lines_kept_whole() {
        assert_eq!(label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(one_line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(
            [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal),
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
                "111th"
            ]
        );
    }
}
