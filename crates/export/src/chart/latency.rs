//! Latency percentiles, min to max, on a log scale: a panel per test row, a line per run and
//! direction, coloured by the one rule ([`color_for`]); in a comparison, the key below names
//! each run by its letter.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use iomark_result::result::ResultDoc;

const PERCENTILES: [&str; 7] = ["min", "p50", "mean", "p90", "p99", "p99.9", "max"];

pub(super) fn latency<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let rows = test_rows(docs);
    let mut per_row: Vec<Vec<Series>> = rows.iter().map(|_| Vec::new()).collect();
    for (j, doc) in docs.iter().enumerate() {
        for t in &doc.tests {
            let l = &t.latency_us;
            let values = [l.min, l.p50, l.mean, l.p90, l.p99, l.p99_9, l.max];
            per_row[row_of(&rows, &t.name)].push(Series {
                name: format!("{}{}", run_tag(docs, j), t.op),
                color: color_for(docs, j, &t.op),
                dashed: t.op == "write",
                points: values
                    .iter()
                    .enumerate()
                    .map(|(k, v)| (k as f64, v.max(0.1)))
                    .collect(),
            });
        }
    }
    let (_, height) = root.dim_in_pixel();
    let (body, key) = root.split_vertically(height.saturating_sub(line_key_height(docs)));
    let body = body
        .titled(&title(docs, "Latency (µs, log scale)"), (FONT, 18))
        .map_err(err)?;
    for ((area, row), series) in panels(&body, rows.len()).iter().zip(&rows).zip(&per_row) {
        panel(area, &row.replace('_', " "), series)?;
    }
    line_key(&key, docs)
}

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    series: &[Series],
) -> Result<(), ExportError> {
    let values = || series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let y_max = values().fold(1.0_f64, f64::max) * 2.0;
    let y_min = values().fold(f64::MAX, f64::min).min(y_max / 10.0) / 2.0;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 14))
        .margin(8)
        .margin_right(20)
        .x_label_area_size(30)
        .y_label_area_size(56)
        .build_cartesian_2d(
            -0.3..(PERCENTILES.len() as f64 - 0.7),
            log_span(y_min, y_max).log_scale(),
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        // The bold lines alone: a log axis's light ones crowd a narrow panel into a grey band.
        .light_line_style(TRANSPARENT)
        .x_labels(PERCENTILES.len() * 2 + 1)
        .x_label_formatter(&|v| category(&PERCENTILES, 0, *v, false))
        .y_desc("µs")
        .y_labels(5)
        .y_label_formatter(&|v| one_two_five(*v))
        .label_style((FONT, 12))
        .draw()
        .map_err(err)?;
    for s in series {
        draw_line(&mut chart, &s.points, s.color, s.dashed)?;
        let at = inside(&chart);
        chart
            .draw_series(
                s.points
                    .iter()
                    .map(|&p| Circle::new(at(p), 3, s.color.filled())),
            )
            .map_err(err)?;
    }
    Ok(())
}
