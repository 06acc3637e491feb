//! `iomark history`: one line per saved run.

use std::fmt::Write as _;

use super::{printable, Style};
use iomark_result::result::{short_ids, Summary};
use iomark_result::units::figure;

pub fn render(runs: &[Summary], style: Style) -> String {
    if runs.is_empty() {
        return "No saved runs yet: `iomark run` saves every run here.\n".into();
    }
    let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    let short = short_ids(&ids, iomark_result::result::SHORT_ID);
    let shown = |v: Option<f64>| v.map_or("-".into(), |v| figure(v).to_string());
    let rows: Vec<[String; 11]> = runs
        .iter()
        .zip(short)
        .map(|(r, id)| {
            [
                id,
                r.started_at
                    .get(..16)
                    .unwrap_or(&r.started_at)
                    .replace('T', " "),
                printable(r.label.as_deref().unwrap_or_default()).into_owned(),
                printable(r.device.as_deref().unwrap_or("?")).into_owned(),
                printable(r.filesystem.as_deref().unwrap_or_default()).into_owned(),
                printable(&r.profile).into_owned(),
                shown(r.seq_read_mb_per_s),
                shown(r.seq_write_mb_per_s),
                shown(r.rnd_read_iops),
                shown(r.rnd_write_iops),
                printable(r.headline.as_deref().unwrap_or_default()).into_owned(),
            ]
        })
        .collect();
    let header = [
        "ID",
        "Date (UTC)",
        "Label",
        "Device",
        "FS",
        "Profile",
        "SEQ1M Q8 R",
        "SEQ1M Q8 W",
        "RND4K Q1 R",
        "RND4K Q1 W",
        "Headline",
    ];
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (i, (w, cell)) in widths.iter_mut().zip(row).enumerate() {
            // A headline says a card's classes and the ones it misses in whole.
            let most = if i == 10 { 40 } else { 32 };
            *w = (*w).max(cell.chars().count()).min(most);
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<String>| -> String {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            let cell: String = cell.chars().take(*w).collect();
            if (6..10).contains(&i) {
                let _ = write!(text, "  {cell:>w$}");
            } else if i == 0 {
                let _ = write!(text, "{cell:<w$}");
            } else {
                let _ = write!(text, "  {cell:<w$}");
            }
        }
        text.trim_end().to_string()
    };
    let _ = writeln!(
        out,
        "{}",
        style.bold(&line(header.iter().map(|h| h.to_string()).collect()))
    );
    for row in rows {
        let _ = writeln!(out, "{}", line(row.to_vec()));
    }
    if runs
        .iter()
        .any(|r| r.headline.as_deref().is_some_and(|h| h.ends_with('*')))
    {
        let _ = writeln!(
            out,
            "{}",
            style
                .dim("* a pi score not comparable with pibenchmarks.com: --size changed its files")
        );
    }
    let _ = writeln!(
        out,
        "{}",
        style.dim(
            "MB/s for SEQ1M, IOPS for RND4K; the headline is a profile's own figure (the pi \
             score, the SD classes met); `iomark show ID` for the full report"
        )
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_grow_until_unique() {
        let ids = ["01ABCDEFGH11XY", "01ABCDEFGH12XY", "01ZZZZZZZZZZZZ"];
        assert_eq!(
            short_ids(&ids, 10),
            ["01ABCDEFGH11", "01ABCDEFGH12", "01ZZZZZZZZ"]
        );
        assert_eq!(short_ids(&["ABC"], 10), ["ABC"]);
    }
}
