//! MB/s over time: a panel per test row, a line per run and direction.
//!
//! Colours follow the one rule ([`color_for`]): read blue and write orange for one run, a colour
//! per run in a comparison; reads solid, writes dashed. Tests are told apart by their panel,
//! never by colour. Each panel's MB/s axis is logarithmic where its lines differ tenfold or
//! more; the time axis is the same in every panel.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use iomark_result::result::{ResultDoc, TestResult};

/// The test rows that have a timeline, in the order the tests ran.
pub(super) fn rows(docs: &[&ResultDoc]) -> Vec<String> {
    test_rows(docs)
        .into_iter()
        .filter(|row| {
            docs.iter().any(|d| {
                d.tests
                    .iter()
                    .any(|t| t.name.starts_with(row.as_str()) && !t.timeline.is_empty())
            })
        })
        .collect()
}

/// A test's timeline as points, each sample at its middle (the time it speaks for; a single
/// sample is a level across its whole length), and where the test ends.
fn points(t: &TestResult) -> (Vec<(f64, f64)>, f64) {
    let lengths = iomark_result::result::sample_lengths(&t.timeline);
    // The timeline ends where the timed loops, laid end to end, end; a last sample's length is
    // otherwise only a guess.
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
    // Within the drawn time: a sample past the end (a last sample's length is a guess) would
    // be drawn far outside the panel, past what a pixel coordinate holds.
    let end = end.max(0.0);
    let points = points
        .into_iter()
        .map(|(t, v)| (t.min(end).max(0.0), v.max(0.01)))
        .collect();
    (points, end)
}

pub(super) fn timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let rows = rows(docs);
    let mut x_max = 0.1_f64;
    // Per row, its lines: a run's read and write.
    let mut per_row: Vec<Vec<Series>> = rows.iter().map(|_| Vec::new()).collect();
    for (j, doc) in docs.iter().enumerate() {
        for t in doc.tests.iter().filter(|t| !t.timeline.is_empty()) {
            let (points, end) = points(t);
            x_max = x_max.max(end);
            per_row[row_of(&rows, &t.name)].push(Series {
                name: format!("{}{}", run_tag(docs, j), t.op),
                color: color_for(docs, j, &t.op),
                dashed: t.op == "write",
                points,
            });
        }
    }
    let (_, height) = root.dim_in_pixel();
    let (body, key) = root.split_vertically(height.saturating_sub(line_key_height(docs)));
    let body = body
        .titled(&title(docs, "Throughput over time (MB/s)"), (FONT, 18))
        .map_err(err)?;
    for ((area, row), lines) in panels(&body, rows.len()).iter().zip(&rows).zip(&per_row) {
        panel(area, &row.replace('_', " "), x_max, lines)?;
    }
    line_key(&key, docs)
}

/// One test row's lines, on a logarithmic MB/s axis where they differ tenfold or more.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    x_max: f64,
    lines: &[Series],
) -> Result<(), ExportError> {
    let values = || lines.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let y_max = values().fold(1.0_f64, f64::max) * 1.2;
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
    if log {
        let y_min = values().fold(f64::MAX, f64::min) / 2.0;
        plot_lines(
            area,
            caption,
            x_max,
            log_span(y_min, y_max).log_scale(),
            lines,
            one_two_five,
        )
    } else {
        plot_lines(area, caption, x_max, span(0.0, y_max), lines, tick)
    }
}

/// The lines on a time axis from 0 to `x_max` and the MB/s axis `y` (linear or logarithmic).
fn plot_lines<DB, Y>(
    plot: &DrawingArea<DB, Shift>,
    caption: &str,
    x_max: f64,
    y: Y,
    lines: &[Series],
    y_label: fn(f64) -> String,
) -> Result<(), ExportError>
where
    DB: DrawingBackend,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(plot)
        .caption(caption, (FONT, 14))
        .margin(8)
        .margin_right(20)
        .x_label_area_size(34)
        .y_label_area_size(56)
        .build_cartesian_2d(span(0.0, x_max), y)
        .map_err(err)?;
    chart
        .configure_mesh()
        // The bold lines alone: a log axis's light ones crowd a narrow panel into a grey band.
        .light_line_style(TRANSPARENT)
        .x_desc("seconds")
        .y_desc("MB/s")
        .x_labels(6)
        .y_labels(5)
        .label_style((FONT, 12))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| y_label(*v))
        .draw()
        .map_err(err)?;
    for l in lines {
        draw_line(&mut chart, &l.points, l.color, l.dashed)?;
    }
    Ok(())
}
