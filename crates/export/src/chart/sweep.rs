//! MB/s against block size, read and write (the sweep profile).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use iomark_result::result::ResultDoc;

pub(super) fn sweep_series(docs: &[&ResultDoc]) -> Vec<Series> {
    let mut series = Vec::new();
    for (j, doc) in docs.iter().enumerate() {
        for op in ["read", "write"] {
            let mut points: Vec<(f64, f64)> = doc
                .tests
                .iter()
                .filter(|t| t.op == op && t.kind == "seq" && t.queue_depth == 1)
                .map(|t| ((t.block_size.max(1) as f64).log2(), t.mb_per_s))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            points.dedup_by(|a, b| a.0 == b.0);
            series.push(Series {
                name: format!("{}{op}", run_tag(docs, j)),
                color: color_for(docs, j, op),
                dashed: op == "write",
                points,
            });
        }
    }
    series.retain(|s| s.points.len() >= 2);
    series
}

pub(super) fn sweep<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    lines(
        root,
        title(docs, "Sequential MB/s by block size (QD1)"),
        sweep_series(docs),
        "block size",
        "MB/s",
        true,
    )
}
