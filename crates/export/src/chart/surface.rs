//! The surface scan, as GNOME Disks draws it: read rate (a line) and access time (dots)
//! against position on the device, 0 to 100%, in two panels sharing the position axis.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use iomark_result::result::score::Surface;
use iomark_result::result::{ResultDoc, Score};

/// The runs' surface scans, with their run index.
pub(super) fn scans<'a>(docs: &[&'a ResultDoc]) -> Vec<(usize, &'a Surface)> {
    docs.iter()
        .enumerate()
        .filter_map(|(i, d)| match &d.score {
            Some(Score::Surface(s)) if !s.surface.samples.is_empty() => Some((i, &s.surface)),
            _ => None,
        })
        .collect()
}

pub(super) fn surface<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let scans = scans(docs);
    let over_file = scans.iter().any(|(_, s)| s.over != "device");
    // What each scan found, in a strip below the panels: inside them it covered points.
    let (_, height) = root.dim_in_pixel();
    let (panels, below) = root.split_vertically(height.saturating_sub(strip_height(docs)));
    let (top, bottom) = panels.split_vertically(300);
    let rate_max = scans
        .iter()
        .map(|(_, s)| s.max_mb_per_s)
        .fold(1.0_f64, f64::max)
        * 1.15;
    let mut chart = ChartBuilder::on(&top)
        .caption(
            title(
                docs,
                if over_file {
                    "Surface (positions in the test file)"
                } else {
                    "Surface (positions on the device)"
                },
            ),
            (FONT, 18),
        )
        .margin(12)
        .x_label_area_size(10)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..100.0, span(0.0, rate_max))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(11)
        .x_label_formatter(&|_| String::new())
        .y_desc("read MB/s")
        .y_label_formatter(&|v| tick(*v))
        .label_style((FONT, 13))
        .draw()
        .map_err(err)?;
    for &(run, s) in &scans {
        let color = color_for(docs, run, "read");
        let at = inside(&chart);
        let points = s
            .samples
            .iter()
            .map(|p| at((p.position * 100.0, p.mb_per_s)));
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))
            .map_err(err)?;
    }

    let ms_max = scans
        .iter()
        .flat_map(|(_, s)| s.access.iter().map(|a| a.ms))
        .fold(0.01_f64, f64::max)
        * 1.15;
    let mut chart = ChartBuilder::on(&bottom)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..100.0, span(0.0, ms_max))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(11)
        .x_desc("position (%)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_desc("access ms")
        .y_label_formatter(&|v| tick(*v))
        .label_style((FONT, 13))
        .draw()
        .map_err(err)?;
    for &(run, s) in &scans {
        let color = color_for(docs, run, "read");
        let at = inside(&chart);
        chart
            .draw_series(
                s.access.iter().map(|a| {
                    Circle::new(at((a.position * 100.0, a.ms)), 2, color.mix(0.6).filled())
                }),
            )
            .map_err(err)?;
    }
    let ids = run_ids(docs);
    for (k, &(run, s)) in scans.iter().enumerate() {
        let y = 6 + 16 * k as i32;
        let x = 80;
        below
            .draw(&Rectangle::new(
                [(x, y), (x + 12, y + 12)],
                color_for(docs, run, "read").filled(),
            ))
            .map_err(err)?;
        let who = if docs.len() > 1 {
            format!("{}{} · ", run_tag(docs, run), ids[run])
        } else {
            String::new()
        };
        below
            .draw(&Text::new(
                format!(
                    "{who}read rate {:.1} MB/s on average ({:.1} to {:.1}) · access time {:.2} ms on average",
                    s.mean_mb_per_s, s.min_mb_per_s, s.max_mb_per_s, s.mean_access_ms
                ),
                (x + 18, y),
                (FONT, 13).into_font(),
            ))
            .map_err(err)?;
    }
    Ok(())
}

/// The strip below the panels: a line per scan.
pub(super) fn strip_height(docs: &[&ResultDoc]) -> u32 {
    16 * scans(docs).len() as u32 + 14
}
