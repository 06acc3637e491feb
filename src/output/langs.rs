//! `iomark langs`' report: each language and variant's write and read rate beside the device's
//! own, the 2019 figures, and what explains the difference.

use std::fmt::Write as _;

use super::Style;
use iomark_result::reference;
use iomark_result::result::langs::Section;
use iomark_result::result::{ResultDoc, TestResult};
use iomark_result::units::format_size;

/// The device test of that direction (SEQ1M Q8T1, direct), if it ran.
pub fn device_rate<'a>(tests: &'a [TestResult], op: &str) -> Option<&'a TestResult> {
    tests.iter().find(|t| t.op == op && t.kind == "seq")
}

pub fn render(doc: &ResultDoc, style: Style) -> String {
    let mut out = String::new();
    let Some(section) = &doc.langs else {
        return out;
    };
    let device_read = device_rate(&doc.tests, "read").map(|t| t.mb_per_s);
    let device_write = device_rate(&doc.tests, "write").map(|t| t.mb_per_s);
    heading(&mut out, doc, section, style);
    if let (Some(r), Some(w)) = (device_read, device_write) {
        let _ = writeln!(
            out,
            "The device itself (iomark's engine, SEQ1M Q8T1, {}): write {w:.1} MB/s, read {r:.1} MB/s",
            if doc.settings.direct { "direct I/O" } else { "buffered: direct I/O unavailable" }
        );
    }
    out.push('\n');
    table(&mut out, section, style);
    out.push('\n');
    for note in notes(section, device_write, device_read) {
        let _ = writeln!(out, "{}", wrap(&note, 100));
    }
    let _ = writeln!(
        out,
        "{}",
        style.dim("MB/s = 10^6 bytes/s; MiB/s = 2^20 bytes/s (the 2019 figures' unit); ± = spread of the counted repetitions")
    );
    // The warnings stored with the run (a program whose repetitions varied widely, say).
    out.push_str(&super::table::warnings(doc, style));
    out
}

/// What was run, and how.
fn heading(out: &mut String, doc: &ResultDoc, section: &Section, style: Style) {
    let fs = doc
        .target
        .filesystem
        .as_deref()
        .unwrap_or("unknown filesystem");
    let _ = writeln!(
        *out,
        "{}",
        style.bold(&format!(
            "iomark {} · langs · {} one byte per call · {} ({fs})",
            doc.tool.version,
            format_size(section.bytes),
            doc.target.path
        ))
    );
    let reps = if section.reps > 1 {
        format!("{} repetitions, the first dropped", section.reps)
    } else {
        "1 repetition".into()
    };
    let cache = if section.cold {
        "file synced and dropped from the page cache before each read"
    } else {
        "page cache warm, no fsync (as in 2019)"
    };
    let _ = writeln!(*out, "{}", style.dim(&format!("{reps} · {cache}")));
}

/// A row per language and variant, then the languages skipped.
fn table(out: &mut String, section: &Section, style: Style) {
    let header = format!(
        "{:<7} {:<9} {:>10} {:>9} {:>7} {:>10} {:>9} {:>7} {:>6}  {:<15} {}",
        "Lang",
        "Variant",
        "Write MB/s",
        "MiB/s",
        "ns/B",
        "Read MB/s",
        "MiB/s",
        "ns/B",
        "±",
        "2019 laptop W/R",
        "Runtime"
    );
    let _ = writeln!(*out, "{}", style.bold(&header));
    for r in &section.results {
        // One counted repetition has no spread to show: "–", as every table shows it.
        let spread = match r.write.reps >= 2 && r.read.reps >= 2 {
            true => format!("{:.1}%", r.write.cv.max(r.read.cv) * 100.0),
            false => "–".to_string(),
        };
        // 2019's figures beside the row that runs 2019's program, or the default one if that did
        // not run.
        let has_2019 = section
            .results
            .iter()
            .any(|o| o.lang == r.lang && o.variant == iomark_result::result::langs::VARIANT_2019);
        let then = if r.variant == iomark_result::result::langs::VARIANT_2019
            || (r.variant == "default" && !has_2019)
        {
            reference::find(&r.lang, "laptop")
                .map(|f| format!("{:.1}/{:.1}", f.write_mib_s, f.read_mib_s))
                .unwrap_or_else(|| "-".into())
        } else {
            String::new()
        };
        let runtime: String = r.runtime.chars().take(40).collect();
        let _ = writeln!(
            *out,
            "{:<7} {:<9} {:>10.1} {:>9.1} {:>7.2} {:>10.1} {:>9.1} {:>7.2} {:>6}  {:<15} {}",
            r.lang,
            r.variant,
            r.write.mb_per_s,
            r.write.mib_per_s,
            r.write.ns_per_byte,
            r.read.mb_per_s,
            r.read.mib_per_s,
            r.read.ns_per_byte,
            spread,
            then,
            style.dim(&runtime)
        );
    }
    for s in &section.skipped {
        let _ = writeln!(
            *out,
            "{:<7} {}",
            s.lang,
            style.dim(&format!("skipped: {}", s.reason))
        );
    }
}

/// What the figures mean: rates beyond the device's, and calls that cost more than the disk.
fn notes(section: &Section, device_write: Option<f64>, device_read: Option<f64>) -> Vec<String> {
    let faster = |op: &str, device: Option<f64>| -> Vec<String> {
        let Some(device) = device else { return vec![] };
        section
            .results
            .iter()
            .filter(|r| {
                let rate = if op == "write" {
                    r.write.mb_per_s
                } else {
                    r.read.mb_per_s
                };
                rate > device
            })
            .map(|r| format!("{}/{}", r.lang, r.variant))
            .collect()
    };
    let over_write = faster("write", device_write);
    let over_read = faster("read", device_read);
    let mut notes = Vec::new();
    if !over_write.is_empty() {
        notes.push(format!(
            "Faster than the device can write: {}. Without fsync, write() and close() return once \
             the bytes are in the page cache; the kernel writes them to the device later. These \
             rates measure the language's runtime and memory, not the disk.",
            over_write.join(", ")
        ));
    }
    if !over_read.is_empty() {
        notes.push(format!(
            "Faster than the device can read: {}. {}",
            over_read.join(", "),
            if section.cold {
                "The file was dropped from the page cache before each read, so read-ahead and \
                 the device's own cache are what remain."
            } else {
                "The file was just written, so it is read from the page cache (RAM). Use --cold \
                 to read from the device."
            }
        ));
    }
    let slow: Vec<String> = section
        .results
        .iter()
        .filter(|r| r.write.ns_per_byte > 20.0 || r.read.ns_per_byte > 20.0)
        .map(|r| {
            format!(
                "{}/{} ({:.0}/{:.0} ns)",
                r.lang, r.variant, r.write.ns_per_byte, r.read.ns_per_byte
            )
        })
        .collect();
    if !slow.is_empty() {
        notes.push(format!(
            "Over 20 ns per byte: {}. At one call per byte, the cost of a call (an interpreter's \
             dispatch, a new object per byte, a lock, a decoding layer) is the rate; the disk \
             hardly matters.",
            slow.join(", ")
        ));
    }
    notes
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        if line > 0 && line + 1 + word.chars().count() > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.chars().count();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use iomark_result::result::langs::{LangResult, OpFigures, Section};
    use iomark_result::result::{sample, Warning, WarningKind};

    #[test]
    fn the_warnings_stored_with_a_run_are_printed_with_it() {
        let figures = OpFigures {
            mb_per_s: 100.0,
            mib_per_s: 95.4,
            ns_per_byte: 10.0,
            reps: 2,
            min_mb_per_s: 50.0,
            max_mb_per_s: 150.0,
            cv: 0.7,
            extra: Default::default(),
        };
        let mut doc = sample::doc();
        doc.langs = Some(Section {
            bytes: 1 << 20,
            reps: 3,
            cold: false,
            cpu: None,
            results: vec![LangResult {
                lang: "c".into(),
                variant: "default".into(),
                about: String::new(),
                runtime: "cc".into(),
                build_flags: None,
                write: figures.clone(),
                read: figures,
                extra: Default::default(),
            }],
            skipped: Vec::new(),
            extra: Default::default(),
        });
        doc.warnings = vec![Warning::new(
            WarningKind::HighVariation,
            "repetitions differed by more than 10% in c/default write 70%",
        )];
        let text = render(&doc, Style::plain());
        assert!(
            text.contains("warning: repetitions differed by more than 10%"),
            "{text}"
        );
    }
}
