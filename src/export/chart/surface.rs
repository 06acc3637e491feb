//! The surface scan, as GNOME Disks draws it: read rate (a line) and access time (dots)
//! against position on the device, 0 to 100%, in two panels sharing the position axis.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use crate::result::score::Surface;
use crate::result::{ResultDoc, Score};

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
    let (top, bottom) = root.split_vertically(300);
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
        .build_cartesian_2d(0.0..100.0, 0.0..rate_max)
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
        let points = s.samples.iter().map(|p| (p.position * 100.0, p.mb_per_s));
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))
            .map_err(err)?
            .label(format!(
                "{}read rate, mean {:.1} MB/s",
                run_tag(docs, run),
                s.mean_mb_per_s
            ))
            .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 14, y + 4)], color.filled()));
    }
    series_legend(&mut chart, SeriesLabelPosition::LowerRight)?;

    let ms_max = scans
        .iter()
        .flat_map(|(_, s)| s.access.iter().map(|a| a.ms))
        .fold(0.01_f64, f64::max)
        * 1.15;
    let mut chart = ChartBuilder::on(&bottom)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..100.0, 0.0..ms_max)
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
        chart
            .draw_series(
                s.access
                    .iter()
                    .map(|a| Circle::new((a.position * 100.0, a.ms), 2, color.mix(0.6).filled())),
            )
            .map_err(err)?
            .label(format!(
                "{}access time, mean {:.2} ms",
                run_tag(docs, run),
                s.mean_access_ms
            ))
            .legend(move |(x, y)| Circle::new((x + 7, y), 3, color.filled()));
    }
    series_legend(&mut chart, SeriesLabelPosition::UpperRight)
}
