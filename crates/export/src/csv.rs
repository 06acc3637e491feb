//! One row per test with every figure, for spreadsheets; the run's identity repeats on each
//! row so that files from several runs can be concatenated (without their headers). A langs
//! run has one row per language, variant and operation instead ([`LANGS_HEADER`]).

use super::{ExportError, Exporter};
use iomark_result::result::ResultDoc;

pub struct Csv;

pub const HEADER: [&str; 32] = [
    "run_id",
    "started_at",
    "label",
    "profile",
    "device",
    "transport",
    "filesystem",
    "direct",
    "engine",
    "test",
    "kind",
    "op",
    "block_size",
    "queue_depth",
    "threads",
    "mb_per_s",
    "mib_per_s",
    "iops",
    "lat_min_us",
    "lat_mean_us",
    "lat_p50_us",
    "lat_p90_us",
    "lat_p99_us",
    "lat_p99_9_us",
    "lat_max_us",
    "lat_stddev_us",
    "cv",
    "loops",
    "cpu_user_s",
    "cpu_sys_s",
    "timeline_seconds",
    // Added after the others, so that a sheet reading columns by position still reads them.
    "price_usd",
];

/// A text cell a spreadsheet would take for a formula or a command (starting with `=`, `+`,
/// `-`, `@` or `|`, or their full-width forms, after any spaces, no-break ones too; or with a
/// tab or a carriage return) gets a leading `'`, as OWASP advises against CSV injection;
/// figures are numbers and are written as they are. Issue 59's attack pass found ` =1+2`,
/// `＝1+2` and `|cmd` passed; the twelfth, a no-break space before `=`.
pub fn text(cell: &str) -> String {
    // After any space, a no-break or an ideographic one too (the twelfth attack pass).
    let first = cell
        .trim_start_matches(|c: char| c == ' ' || (c.is_whitespace() && !"\t\r\n".contains(c)))
        .chars()
        .next();
    let formula = matches!(
        first,
        Some('=' | '+' | '-' | '@' | '|' | '＝' | '＋' | '－' | '＠' | '｜' | '\t' | '\r')
    );
    match formula {
        true => format!("'{cell}"),
        false => cell.to_string(),
    }
}

impl Exporter for Csv {
    fn export(&self, doc: &ResultDoc) -> Result<Vec<u8>, ExportError> {
        if let Some(section) = &doc.langs {
            return langs(doc, section);
        }
        let mut out = csv::Writer::from_writer(Vec::new());
        out.write_record(HEADER)
            .map_err(|e| ExportError::Encode(e.to_string()))?;
        let transport = doc
            .target
            .device
            .as_ref()
            .and_then(|d| d.transport)
            .map(|t| t.to_string())
            .unwrap_or_default();
        for t in &doc.tests {
            let l = &t.latency_us;
            let record: Vec<String> = vec![
                doc.id.clone(),
                doc.started_at.clone(),
                text(doc.label.as_deref().unwrap_or_default()),
                doc.settings.profile.clone(),
                text(&doc.device_label()),
                transport.clone(),
                doc.target.filesystem.clone().unwrap_or_default(),
                doc.settings.direct.to_string(),
                doc.settings.engine.clone(),
                t.name.clone(),
                t.kind.clone(),
                t.op.clone(),
                t.block_size.to_string(),
                t.queue_depth.to_string(),
                t.threads.to_string(),
                t.mb_per_s.to_string(),
                (t.mb_per_s * 1e6 / (1u64 << 20) as f64).to_string(),
                t.iops.to_string(),
                l.min.to_string(),
                l.mean.to_string(),
                l.p50.to_string(),
                l.p90.to_string(),
                l.p99.to_string(),
                l.p99_9.to_string(),
                l.max.to_string(),
                l.stddev.to_string(),
                // Empty for one loop, whose spread is unknown (every table shows "–").
                t.loop_spread().map(|cv| cv.to_string()).unwrap_or_default(),
                t.loops.len().to_string(),
                t.cpu.user_s.to_string(),
                t.cpu.sys_s.to_string(),
                // The time the timeline covers: every timed loop's.
                format!("{:.1}", t.loops.iter().map(|l| l.seconds).sum::<f64>()),
                doc.price_usd.map(|p| p.to_string()).unwrap_or_default(),
            ];
            out.write_record(&record)
                .map_err(|e| ExportError::Encode(e.to_string()))?;
        }
        out.into_inner()
            .map_err(|e| ExportError::Encode(e.to_string()))
    }
}

pub const LANGS_HEADER: [&str; 16] = [
    "run_id",
    "started_at",
    "label",
    "bytes",
    "lang",
    "variant",
    "op",
    "mb_per_s",
    "mib_per_s",
    "ns_per_byte",
    "reps",
    "min_mb_per_s",
    "max_mb_per_s",
    "cv",
    "runtime",
    "build_flags",
];

fn langs(
    doc: &ResultDoc,
    section: &iomark_result::result::langs::Section,
) -> Result<Vec<u8>, ExportError> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(LANGS_HEADER)
        .map_err(|e| ExportError::Encode(e.to_string()))?;
    for r in &section.results {
        for (op, f) in [("write", &r.write), ("read", &r.read)] {
            let record: Vec<String> = vec![
                doc.id.clone(),
                doc.started_at.clone(),
                text(doc.label.as_deref().unwrap_or_default()),
                section.bytes.to_string(),
                r.lang.clone(),
                r.variant.clone(),
                op.into(),
                f.mb_per_s.to_string(),
                f.mib_per_s.to_string(),
                f.ns_per_byte.to_string(),
                f.reps.to_string(),
                f.min_mb_per_s.to_string(),
                f.max_mb_per_s.to_string(),
                if f.reps >= 2 {
                    f.cv.to_string()
                } else {
                    String::new()
                },
                text(&r.runtime),
                text(r.build_flags.as_deref().unwrap_or_default()),
            ];
            out.write_record(&record)
                .map_err(|e| ExportError::Encode(e.to_string()))?;
        }
    }
    out.into_inner()
        .map_err(|e| ExportError::Encode(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_a_spreadsheet_would_run_is_quoted_however_it_is_spelt() {
        for cell in [
            "=1+2",
            " =1+2",
            "＝1+2",
            "|cmd",
            "  @SUM(A1)",
            "-2+3",
            "\t=1",
            "\u{a0}=1+2",
            "\u{3000}＋1",
        ] {
            assert!(text(cell).starts_with('\''), "{cell:?}");
        }
        for cell in ["SanDisk", "1=2", "a|b", "Ultra -64GB"] {
            assert_eq!(text(cell), cell);
        }
    }

    #[test]
    fn text_that_a_spreadsheet_would_run_is_defused() {
        let mut doc = iomark_result::result::sample::doc();
        doc.label = Some("=HYPERLINK(\"http://x\")".into());
        let csv = String::from_utf8(Csv.export(&doc).unwrap()).unwrap();
        assert!(
            csv.contains(",'=HYPERLINK") || csv.contains(",\"'=HYPERLINK"),
            "{csv}"
        );
        assert_eq!(text("-1"), "'-1");
        assert_eq!(text("SanDisk"), "SanDisk");
    }

    #[test]
    fn the_price_is_the_last_column() {
        let mut doc = iomark_result::result::sample::doc();
        doc.price_usd = Some(12.99);
        let csv = String::from_utf8(Csv.export(&doc).unwrap()).unwrap();
        let mut lines = csv.lines();
        assert!(lines
            .next()
            .unwrap()
            .ends_with(",timeline_seconds,price_usd"));
        for line in lines {
            assert!(line.ends_with(",12.99"), "{line}");
            assert_eq!(line.split(',').count(), HEADER.len());
        }
        doc.price_usd = None;
        let csv = String::from_utf8(Csv.export(&doc).unwrap()).unwrap();
        assert!(csv.lines().skip(1).all(|l| l.ends_with(',')));
    }
}
