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

/// iomark's own sentences, whose `commands` stay code (issue 45: a verify's verdict showed
/// escaped backticks): text between a pair of backticks is kept as a code span, the rest
/// escaped; with an odd count, all of it is escaped.
fn escape_prose(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return escape(text);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| match i % 2 {
            0 => escape(part),
            // A code span shows its text as it is; a line break or a table's bar would still
            // end it.
            _ => format!("`{}`", part.replace(['\n', '\r'], " ").replace('|', "¦")),
        })
        .collect()
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
        if let Some(h) = iomark_profiles::headline(doc).filter(|_| doc.verify.is_none()) {
            let _ = writeln!(out);
            let _ = writeln!(out, "**{}**: {}", escape(&h.short), escape(&h.sentence));
        }
        if let Some(price) = doc.price_usd {
            let _ = writeln!(out);
            let _ = writeln!(out, "{}", escape(&super::html::price_text(doc, price)));
        }
        let _ = writeln!(out);
        let on = iomark_profiles::describe::on(doc)
            .map(|on| format!(" {}", escape(&on)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{}{on} · {}",
            doc.started_at.get(..10).unwrap_or(&doc.started_at),
            escape_prose(&iomark_profiles::describe::method_line(doc)),
        );
        if !doc.tests.is_empty() {
            tests_table(&mut out, doc);
        }
        if let Some(v) = &doc.verify {
            verify_table(&mut out, v);
        }
        // What the profile adds (score, class verdicts, cliff, saturation), as the terminal
        // prints it, its columns kept.
        let details = iomark_profiles::details::details(doc, &iomark_profiles::Plain);
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
            let _ = write!(out, "> ⚠ {}", escape_prose(&w.message));
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
            t.map(|t| figure(t.mb_per_s).to_string())
                .unwrap_or_else(|| "–".into())
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
    let _ = writeln!(*out, "**{}**", escape_prose(&v.verdict));
    let _ = writeln!(*out);
    let _ = writeln!(*out, "| | |");
    let _ = writeln!(*out, "|:--|--:|");
    for (label, value) in v.figures() {
        let _ = writeln!(*out, "| {label} | {value} |");
    }
    for p in v.problems.iter().take(20) {
        let _ = writeln!(*out);
        let _ = write!(*out, "- {}", escape_prose(&v.describe(p)));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_stay_code_and_the_rest_is_escaped() {
        assert_eq!(
            escape_prose("run `iomark verify --resume` in *that* folder"),
            "run `iomark verify --resume` in \\*that\\* folder"
        );
        // A pair's text is shown as it is, but cannot end a line or a table's cell.
        assert_eq!(escape_prose("`a|b\nc`"), "`a¦b c`");
        // An odd backtick: all escaped, nothing opens a span.
        assert_eq!(escape_prose("it's `odd"), "it's \\`odd");
    }

    #[test]
    fn a_verify_of_a_raw_device_says_so_and_keeps_its_commands() {
        let mut doc = iomark_result::result::sample::doc();
        doc.target.filesystem = None;
        doc.tests.clear();
        let mut section = iomark_result::result::sample::verify_section();
        section.mode = "probe".into();
        section.verdict = "All 256 MiB are real: `iomark verify --full` reads every byte.".into();
        doc.verify = Some(section);
        let text = String::from_utf8(Markdown.export(&doc).unwrap()).unwrap();
        assert!(!text.contains("unknown filesystem"), "{text}");
        assert!(text.contains(" on the raw device · "), "{text}");
        assert!(
            text.contains("`iomark verify --full`") && !text.contains("\\`"),
            "{text}"
        );
    }
}
