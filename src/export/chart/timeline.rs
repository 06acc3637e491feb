//! MB/s second by second, one line per test and run.
//!
//! A colour per test (from the palette's colours other than read's blue and write's orange, so
//! those keep their meaning across charts), solid for reads and dashed for writes; in a
//! comparison, a colour per run instead (from the same colours). The legend sits beside the plot, never over a line,
//! and the MB/s axis is logarithmic where the tests differ tenfold or more (a 4 KiB random test
//! beside a sequential one would otherwise lie flat on zero).

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use crate::result::ResultDoc;

pub(super) fn timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let rows = test_rows(docs);
    let mut lines = Vec::new();
    // The axis ends where the last sample ends.
    let mut x_max = 0.0_f64;
    for (j, doc) in docs.iter().enumerate() {
        for t in doc.tests.iter().filter(|t| !t.timeline.is_empty()) {
            // Each sample is drawn at its middle, the time it speaks for; a single sample is a
            // level across its whole length, not a point.
            let lengths = crate::result::sample_lengths(&t.timeline);
            // The timeline ends where the timed loops, laid end to end, end; a last sample's
            // length is otherwise only a guess.
            let last = t.timeline.last().map_or(0.0, |s| s.t);
            let loops: f64 = t.loops.iter().map(|l| l.seconds).sum();
            let end = if loops > last {
                loops
            } else {
                last + lengths.last().unwrap_or(&1.0)
            };
            let points: Vec<(f64, f64)> = match t.timeline.as_slice() {
                [one] => vec![(one.t, one.mb_per_s), (end, one.mb_per_s)],
                samples => samples
                    .iter()
                    .zip(&lengths)
                    .map(|(s, length)| (s.t + length / 2.0, s.mb_per_s))
                    .collect(),
            };
            let points = points.into_iter().map(|(t, v)| (t, v.max(0.01))).collect();
            let row = row_of(&rows, &t.name);
            let color = if docs.len() > 1 {
                run_color(j)
            } else {
                row_color(row)
            };
            x_max = x_max.max(end);
            lines.push(Series {
                name: format!("{}{}", run_tag(docs, j), t.name.replace('_', " ")),
                color,
                dashed: t.op == "write",
                points,
            });
        }
    }
    let (width, _) = root.dim_in_pixel();
    let (plot, side) = root.split_horizontally(width.saturating_sub(LEGEND_WIDTH));
    let x_max = x_max.max(0.1);
    let y_max = lines
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(1.0_f64, f64::max)
        * 1.2;
    // Each line's median level: tenfold apart or more, the axis is logarithmic.
    let levels: Vec<f64> = lines
        .iter()
        .map(|l| {
            let mut v: Vec<f64> = l.points.iter().map(|p| p.1).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        })
        .collect();
    let lowest = levels.iter().copied().fold(f64::MAX, f64::min);
    let log = lowest > 0.0 && levels.iter().copied().fold(0.0, f64::max) / lowest >= 10.0;
    let caption = title(
        docs,
        if log {
            "Throughput over time (log scale)"
        } else {
            "Throughput over time"
        },
    );
    if log {
        let y_min = lines
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .fold(f64::MAX, f64::min)
            / 2.0;
        plot_lines(&plot, caption, x_max, (y_min..y_max).log_scale(), &lines)?;
    } else {
        plot_lines(&plot, caption, x_max, 0.0..y_max, &lines)?;
    }
    // The legend, beside the plot.
    let entries: Vec<(String, RGBColor, bool)> = lines
        .iter()
        .map(|l| (l.name.clone(), l.color, l.dashed))
        .collect();
    side_legend(&side, &entries)
}

/// The lines on a time axis from 0 to `x_max` and the MB/s axis `y` (linear or logarithmic).
fn plot_lines<DB, Y>(
    plot: &DrawingArea<DB, Shift>,
    caption: String,
    x_max: f64,
    y: Y,
    lines: &[Series],
) -> Result<(), ExportError>
where
    DB: DrawingBackend,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(plot)
        .caption(caption, (FONT, 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, y)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("seconds")
        .y_desc("MB/s")
        .label_style((FONT, 13))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .draw()
        .map_err(err)?;
    for l in lines {
        draw_line(&mut chart, &l.points, l.color, l.dashed)?;
    }
    Ok(())
}
