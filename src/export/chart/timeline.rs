//! MB/s second by second, one line per test and run.
//!
//! A colour per test (from the palette's colours other than read's blue and write's orange, so
//! those keep their meaning across charts), solid for reads and dashed for writes; in a
//! comparison, a colour per run instead (from the same colours). The legend sits beside the plot, never over a line,
//! and the MB/s axis is logarithmic where the tests differ tenfold or more (a 4 KiB random test
//! beside a sequential one would otherwise lie flat on zero).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use crate::result::ResultDoc;

struct Line {
    name: String,
    color: RGBColor,
    dashed: bool,
    points: Vec<(f64, f64)>,
}

pub(super) fn timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let rows = test_rows(docs);
    let mut lines = Vec::new();
    for (j, doc) in docs.iter().enumerate() {
        for t in doc.tests.iter().filter(|t| !t.timeline.is_empty()) {
            let mut points: Vec<(f64, f64)> = t
                .timeline
                .iter()
                .map(|s| (s.t, s.mb_per_s.max(0.01)))
                .collect();
            if points.len() == 1 {
                // One second is a level, not a point.
                points.push((points[0].0 + 1.0, points[0].1));
            }
            let row = row_of(&rows, &t.name);
            let color = if docs.len() > 1 {
                PALETTE[2 + j % (PALETTE.len() - 2)]
            } else {
                row_color(row)
            };
            lines.push(Line {
                name: format!("{}{}", run_tag(docs, j), t.name.replace('_', " ")),
                color,
                dashed: t.op == "write",
                points,
            });
        }
    }
    let (width, _) = root.dim_in_pixel();
    let (plot, side) = root.split_horizontally(width.saturating_sub(LEGEND_WIDTH));
    let xs = || lines.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let x_max = xs().fold(f64::MIN, f64::max).max(1.0);
    let x_min = xs().fold(f64::MAX, f64::min).min(x_max - 1.0);
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
        let mut chart = ChartBuilder::on(&plot)
            .caption(caption, (FONT, 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x_min..x_max, (y_min..y_max).log_scale())
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
        for l in &lines {
            draw_line(&mut chart, l)?;
        }
    } else {
        let mut chart = ChartBuilder::on(&plot)
            .caption(caption, (FONT, 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x_min..x_max, 0.0..y_max)
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
        for l in &lines {
            draw_line(&mut chart, l)?;
        }
    }
    // The legend, beside the plot.
    let entries: Vec<(String, RGBColor, bool)> = lines
        .iter()
        .map(|l| (l.name.clone(), l.color, l.dashed))
        .collect();
    side_legend(&side, &entries)
}

fn draw_line<DB, CT>(chart: &mut ChartContext<'_, DB, CT>, l: &Line) -> Result<(), ExportError>
where
    DB: DrawingBackend,
    CT: CoordTranslate<From = (f64, f64)>,
{
    let style = l.color.stroke_width(2);
    if l.dashed {
        chart
            .draw_series(DashedLineSeries::new(l.points.iter().copied(), 7, 5, style))
            .map_err(err)?;
    } else {
        chart
            .draw_series(LineSeries::new(l.points.iter().copied(), style))
            .map_err(err)?;
    }
    Ok(())
}
