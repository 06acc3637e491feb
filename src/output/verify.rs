//! `iomark verify`'s report: the verdict, then the figures behind it.

use super::Style;
use iomark_result::result::ResultDoc;

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
    for (label, value) in v.figures() {
        out.push_str(&format!("  {label:<18} {value}\n"));
    }
    if !v.direct {
        out.push_str(&style.dim(
            "  (this filesystem refuses direct I/O: the files were synced and dropped from the page cache before reading)\n",
        ));
    }
    if !v.problems.is_empty() {
        out.push_str("\n  where:\n");
        for p in v.problems.iter().take(SHOWN) {
            out.push_str(&format!("    {}\n", v.describe(p)));
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
