//! `iomark health`'s report: the verdict in a sentence, then each signal and the figures.

use super::Style;
use iomark_result::result::health::State;
use iomark_result::result::ResultDoc;
use iomark_result::units::format_size;

pub fn render(doc: &ResultDoc, style: Style) -> String {
    let Some(h) = &doc.health else {
        return String::new();
    };
    let mut out = format!(
        "{}\n\n",
        style.bold(&format!(
            "iomark {} · health · check {} · {}",
            doc.tool.version,
            h.checks.max(1),
            doc.target.path
        ))
    );
    let paint = |state: State, text: &str| paint(style, state, text);
    out.push_str(&format!(
        "{} {}\n\n",
        style.bold(&paint(h.verdict.into(), &h.verdict.as_str().to_uppercase())),
        h.sentence
    ));
    for s in &h.signals {
        out.push_str(&format!(
            "  {:<8} {:<18} {}\n",
            paint(s.state, s.state.as_str()),
            s.name.replace('_', " "),
            s.evidence
        ));
    }
    out.push('\n');
    let mut figure = |label: &str, value: String| out.push_str(&format!("  {label:<31} {value}\n"));
    figures(&mut figure, h);
    if !h.direct {
        out.push_str(&style.dim(
            "  (this filesystem refuses direct I/O: the files were dropped from the page cache before reading)\n",
        ));
    }
    out
}

/// A state's text in its colour: green healthy, yellow to watch, red the rest.
fn paint(style: Style, state: State, text: &str) -> String {
    match state {
        State::Healthy => style.green(text),
        State::Watch => style.yellow(text),
        State::Failing | State::Lying | State::Unknown => style.red(text),
    }
}

/// The timings (beside the first checks' once there are checks after them) and the writes.
fn figures(figure: &mut impl FnMut(&str, String), h: &iomark_result::result::health::Section) {
    let later = h.checks > 3;
    if let Some(r) = &h.read_latency_us {
        let base = h
            .baseline_read_p99_us
            .filter(|_| later)
            .map(|b| format!(" (first checks: {:.2} ms)", b / 1e3))
            .unwrap_or_default();
        figure(
            "4 KiB reads, p50 / p99",
            format!("{:.2} / {:.2} ms{base}", r.p50 / 1e3, r.p99 / 1e3),
        );
    }
    if let Some(w) = &h.synced_write_ms {
        let base = h
            .baseline_synced_write_p99_ms
            .filter(|_| later)
            .map(|b| format!(" (first checks: {b:.1} ms)"))
            .unwrap_or_default();
        figure(
            "4 KiB synced writes, p50 / p99",
            format!("{:.1} / {:.1} ms{base}", w.p50, w.p99),
        );
    }
    let written = h
        .device_written_bytes
        .map(|b| format!("{} (the device's count, every process)", format_size(b)))
        .unwrap_or_else(|| "not counted here".into());
    figure(
        "written during the check",
        format!("{written}; budget {}", format_size(h.budget_bytes)),
    );
    if let Some(day) = h.written_per_day_bytes {
        figure(
            "written per day",
            format!("{} since the last check", format_size(day)),
        );
    }
}

/// The checks of one folder, oldest first, a line each: when, which check, the verdict, the
/// timings and the writes.
pub fn history(checks: &[&ResultDoc], style: Style) -> String {
    let path = checks.last().map_or("", |d| d.target.path.as_str());
    let mut out = format!(
        "{}\n\n  {:<16}  {:<10}  {:<8}  {:>11}  {:>12}  {:>12}  {:>11}\n",
        style.bold(&format!("Health of {path} · {} checks", checks.len())),
        "when (UTC)",
        "",
        "verdict",
        "reads p99",
        "writes p99",
        "written/day",
        "bad canary"
    );
    for doc in checks {
        let Some(h) = &doc.health else { continue };
        let when = doc
            .finished_at
            .get(..16)
            .unwrap_or(&doc.finished_at)
            .replace('T', " ");
        let paint = |text: &str| paint(style, h.verdict.into(), text);
        let ms =
            |v: Option<f64>, digits: usize| v.map_or("-".into(), |v| format!("{v:.digits$} ms"));
        out.push_str(&format!(
            "  {when:<16}  check {:<4}  {}  {:>11}  {:>12}  {:>12}  {:>11}\n",
            h.checks,
            paint(&format!("{:<8}", h.verdict)),
            ms(h.read_latency_us.as_ref().map(|r| r.p99 / 1e3), 2),
            ms(h.synced_write_ms.as_ref().map(|w| w.p99), 1),
            h.written_per_day_bytes.map_or("-".into(), format_size),
            format_size(h.canary_bad_bytes + h.canary_unreadable_bytes),
        ));
    }
    out
}
