//! MB/s second by second, one line per test and run.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use crate::result::ResultDoc;

pub(super) fn timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let mut series = Vec::new();
    for (j, doc) in docs.iter().enumerate() {
        for (i, t) in doc
            .tests
            .iter()
            .filter(|t| !t.timeline.is_empty())
            .enumerate()
        {
            let mut points: Vec<(f64, f64)> =
                t.timeline.iter().map(|s| (s.t, s.mb_per_s)).collect();
            if points.len() == 1 {
                // One second is a level, not a point.
                points.push((points[0].0 + 1.0, points[0].1));
            }
            series.push(Series {
                name: format!("{}{}", run_tag(docs, j), t.name.replace('_', " ")),
                color: color_for(docs, j, i, &t.op),
                points,
            });
        }
    }
    lines(
        root,
        title(docs, "Throughput over time"),
        series,
        "seconds",
        "MB/s",
        false,
    )
}
