//! Latency percentiles, min to max, on a log scale.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use crate::result::ResultDoc;

const PERCENTILES: [&str; 7] = ["min", "p50", "mean", "p90", "p99", "p99.9", "max"];

pub(super) fn latency<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    // One run: a colour per test row (as the timeline: not read's blue nor write's orange),
    // writes dashed. Comparisons: a colour per test, the dash pattern tells the runs apart.
    let names = crate::result::test_names(docs.iter().copied());
    let rows = test_rows(docs);
    let mut series = Vec::new();
    let mut runs = Vec::new();
    for (j, doc) in docs.iter().enumerate() {
        for t in &doc.tests {
            let l = &t.latency_us;
            let values = [l.min, l.p50, l.mean, l.p90, l.p99, l.p99_9, l.max];
            let index = names.iter().position(|n| *n == t.name).unwrap_or(0);
            let row = row_of(&rows, &t.name);
            runs.push(j);
            series.push(Series {
                dashed: if docs.len() == 1 {
                    t.op == "write"
                } else {
                    j > 0
                },
                name: format!("{}{}", run_tag(docs, j), t.name.replace('_', " ")),
                color: if docs.len() == 1 {
                    row_color(row)
                } else {
                    PALETTE[index % PALETTE.len()]
                },
                points: values
                    .iter()
                    .enumerate()
                    .map(|(k, v)| (k as f64, v.max(0.1)))
                    .collect(),
            });
        }
    }
    let y_max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(1.0_f64, f64::max)
        * 2.0;
    let y_min = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(f64::MAX, f64::min)
        .min(y_max / 10.0)
        / 2.0;
    // The legend beside the plot: inside it, it covered the first points.
    let (width, _) = root.dim_in_pixel();
    let (plot, side) = root.split_horizontally(width.saturating_sub(LEGEND_WIDTH));
    let mut chart = ChartBuilder::on(&plot)
        .caption(
            match docs.len() {
                1 => title(docs, "Latency (µs, log scale)"),
                _ => title(docs, "Latency (µs, log scale; A solid, B, C… dashed)"),
            },
            (FONT, 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(
            -0.3..(PERCENTILES.len() as f64 - 0.7),
            (y_min..y_max).log_scale(),
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(PERCENTILES.len() * 2 + 1)
        .x_label_formatter(&|v| category(&PERCENTILES, 0, *v, false))
        .y_desc("µs")
        .y_label_formatter(&|v| tick(*v))
        .label_style((FONT, 13))
        .draw()
        .map_err(err)?;
    let mut entries = Vec::new();
    for (s, &run) in series.iter().zip(&runs) {
        let dash_it = s.dashed;
        let color = s.color;
        let points = s.points.iter().copied();
        if !dash_it {
            chart.draw_series(LineSeries::new(points, color.stroke_width(2)))
        } else {
            let dash = 4 + 3 * run.max(1) as u32;
            chart.draw_series(DashedLineSeries::new(
                points,
                dash,
                dash,
                color.stroke_width(2),
            ))
        }
        .map_err(err)?;
        if run == 0 || docs.len() == 1 {
            entries.push((
                s.name.trim_start_matches("A ").to_string(),
                color,
                dash_it && docs.len() == 1,
            ));
        }
        chart
            .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
    }
    side_legend(&side, &entries)
}
