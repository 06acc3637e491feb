//! `iomark verify`'s report: the verdict, then the figures behind it.

use super::Style;
use crate::result::verify::Section;
use crate::result::ResultDoc;
use crate::units::format_size;

/// How many wrong ranges the terminal shows (the document keeps up to 1000).
const SHOWN: usize = 10;

pub fn render(doc: &ResultDoc, style: Style) -> String {
    let Some(v) = &doc.verify else {
        return String::new();
    };
    let mut out = String::new();
    let what = match v.mode.as_str() {
        "files" => "files on the filesystem",
        "probe" => "capacity probe of the raw device",
        _ => "every byte of the raw device",
    };
    out.push_str(&format!(
        "{}\n",
        style.bold(&format!(
            "iomark {} · verify · {what} · {}",
            doc.tool.version, doc.target.path
        ))
    ));
    let verdict = if v.ok {
        v.verdict.clone()
    } else {
        style.red(&v.verdict)
    };
    out.push_str(&format!("\n{}\n\n", style.bold(&verdict)));
    let line = |label: &str, value: String| format!("  {label:<18} {value}\n");
    out.push_str(&line("written", format_size(v.written_bytes)));
    out.push_str(&line("intact", format_size(v.good_bytes)));
    out.push_str(&line("wrong", format_size(v.bad_bytes)));
    out.push_str(&line("written elsewhere", format_size(v.aliased_bytes)));
    out.push_str(&line("unreadable", format_size(v.unreadable_bytes)));
    if let Some(claimed) = v.claimed_bytes {
        out.push_str(&line("claimed", format_size(claimed)));
    }
    if let Some(real) = v.real_bytes {
        out.push_str(&line("holds", format_size(real)));
    }
    let rate = |r: Option<f64>| r.map_or("-".into(), |r| format!("{r:.1} MB/s"));
    out.push_str(&line("write", rate(v.write_mb_per_s)));
    out.push_str(&line("read", rate(v.read_mb_per_s)));
    if !v.direct {
        out.push_str(&style.dim(
            "  (this filesystem refuses direct I/O: the files were synced and dropped from the page cache before reading)\n",
        ));
    }
    if !v.problems.is_empty() {
        out.push_str("\n  where:\n");
        for p in v.problems.iter().take(SHOWN) {
            out.push_str(&format!(
                "    {} {} {}{}\n",
                place(v, p.position),
                format_size(p.bytes),
                p.kind.name(),
                p.holds
                    .map(|h| format!(" (holds what was written at {})", place(v, h)))
                    .unwrap_or_default()
            ));
        }
        let more = v.problems.len().saturating_sub(SHOWN) as u64 + v.more_problems;
        if more > 0 {
            out.push_str(&format!(
                "    … and {more} more ranges (all in the JSON document)\n"
            ));
        }
    }
    out
}

/// A stream position as a person finds it: a file and offset, or a device offset.
fn place(v: &Section, position: u64) -> String {
    match v.file_bytes {
        Some(file_bytes) if file_bytes > 0 => format!(
            "{:04}.iomv+{}",
            position / file_bytes + 1,
            position % file_bytes
        ),
        _ => format!("offset {position}"),
    }
}
