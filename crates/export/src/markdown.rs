//! A table to paste into an issue or a forum post: read and write side by side, as the terminal
//! shows it, with what was measured and how in one line above.

use std::fmt::Write as _;

use super::{figure, ExportError, Exporter};
use iomark_result::result::ResultDoc;
use iomark_result::units::{format_micros, format_size};

pub struct Markdown;

/// Keeps a user's text from breaking the table or the emphasis around it.
fn escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '|' | '*' | '_' | '`' | '<' | '>' | '[' | ']' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

impl Exporter for Markdown {
    fn export(&self, doc: &ResultDoc) -> Result<Vec<u8>, ExportError> {
        let mut out = String::new();
        let s = &doc.settings;
        let title = match &doc.label {
            Some(label) => format!("{} ({})", escape(label), escape(&doc.device_label())),
            None => escape(&doc.device_label()),
        };
        let _ = writeln!(
            out,
            "**{title}** · iomark {} · {} profile",
            doc.tool.version, s.profile
        );
        if let Some(h) = doc.headline().filter(|_| doc.verify.is_none()) {
            let _ = writeln!(out);
            let _ = writeln!(out, "**{}**: {}", escape(&h.short), escape(&h.sentence));
        }
        if let Some(price) = doc.price_usd {
            let _ = writeln!(out);
            let _ = writeln!(out, "{}", escape(&super::html::price_text(doc, price)));
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{} on {} · {}",
            doc.started_at.get(..10).unwrap_or(&doc.started_at),
            escape(
                doc.target
                    .filesystem
                    .as_deref()
                    .unwrap_or("unknown filesystem")
            ),
            escape(&iomark_result::result::describe::method_line(doc)),
        );
        if !doc.tests.is_empty() {
            tests_table(&mut out, doc);
        }
        if let Some(v) = &doc.verify {
            verify_table(&mut out, v);
        }
        // What the profile adds (score, class verdicts, cliff, saturation), as the terminal
        // prints it, its columns kept.
        let details = super::score::details(doc, &super::score::Plain);
        if !details.trim().is_empty() {
            let _ = writeln!(out);
            let _ = writeln!(out, "```text");
            let _ = write!(out, "{}", details.replace("```", "'''"));
            if !details.ends_with('\n') {
                let _ = writeln!(out);
            }
            let _ = writeln!(out, "```");
        }
        if let Some(section) = &doc.langs {
            langs_table(&mut out, section);
        }
        for w in &doc.warnings {
            let _ = writeln!(out);
            let _ = write!(out, "> ⚠ {}", escape(&w.message));
        }
        if !doc.warnings.is_empty() {
            let _ = writeln!(out);
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "<sub>MB/s = 10^6 bytes/s · run {}</sub>", doc.id);
        Ok(out.into_bytes())
    }
}

/// The run's table: a row per test row, read and write side by side.
fn tests_table(out: &mut String, doc: &ResultDoc) {
    let _ = writeln!(*out);
    let _ = writeln!(
        *out,
        "| Test | Read MB/s | Write MB/s | Read IOPS | Write IOPS | Read p99 | Write p99 |"
    );
    let _ = writeln!(
        *out,
        "|:-----|----------:|-----------:|----------:|-----------:|---------:|----------:|"
    );
    for iomark_result::result::TestRow {
        name: row,
        read,
        write,
    } in iomark_result::result::rows(&doc.tests)
    {
        let mb = |t: Option<&iomark_result::result::TestResult>| {
            t.map(|t| figure(t.mb_per_s)).unwrap_or_else(|| "–".into())
        };
        let iops = |t: Option<&iomark_result::result::TestResult>| {
            t.map(|t| format!("{:.0}", t.iops))
                .unwrap_or_else(|| "–".into())
        };
        let p99 = |t: Option<&iomark_result::result::TestResult>| {
            t.map(|t| format_micros(t.latency_us.p99))
                .unwrap_or_else(|| "–".into())
        };
        let _ = writeln!(
            *out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            escape(&row.replace('_', " ")),
            mb(read),
            mb(write),
            iops(read),
            iops(write),
            p99(read),
            p99(write)
        );
    }
}

/// A verify's verdict, its figures, and its first problems.
fn verify_table(out: &mut String, v: &iomark_result::result::verify::Section) {
    let _ = writeln!(*out);
    let _ = writeln!(*out, "**{}**", escape(&v.verdict));
    let _ = writeln!(*out);
    let _ = writeln!(*out, "| | |");
    let _ = writeln!(*out, "|:--|--:|");
    for (label, value) in v.figures() {
        let _ = writeln!(*out, "| {label} | {value} |");
    }
    for p in v.problems.iter().take(20) {
        let _ = writeln!(*out);
        let _ = write!(*out, "- {}", escape(&v.describe(p)));
    }
    if !v.problems.is_empty() {
        let _ = writeln!(*out);
    }
}

/// The langs experiment's rows.
fn langs_table(out: &mut String, section: &iomark_result::result::langs::Section) {
    let _ = writeln!(*out);
    let _ = writeln!(
        *out,
        "One byte per call, {} per repetition:",
        format_size(section.bytes)
    );
    let _ = writeln!(*out);
    let _ = writeln!(
        *out,
        "| Language | Variant | Write MB/s | Read MB/s | Write ns/B | Read ns/B | Runtime |"
    );
    let _ = writeln!(
        *out,
        "|:---------|:--------|-----------:|----------:|-----------:|----------:|:--------|"
    );
    for r in &section.results {
        let _ = writeln!(
            *out,
            "| {} | {} | {} | {} | {:.2} | {:.2} | {} |",
            escape(&r.lang),
            escape(&r.variant),
            figure(r.write.mb_per_s),
            figure(r.read.mb_per_s),
            r.write.ns_per_byte,
            r.read.ns_per_byte,
            escape(&r.runtime)
        );
    }
}
