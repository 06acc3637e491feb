//! A card's health over time (`iomark health --history`): its checks, oldest first, one point
//! each, in three panels sharing the time axis: the small reads' 99th percentile (read blue),
//! the synced writes' (write orange), and what the device wrote per day between checks (write
//! orange). A check that was not healthy is named above its point in the top panel; nothing
//! is told by colour but read and write.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::tick;
use super::*;
use iomark_result::result::health::{Section, Verdict};
use iomark_result::result::time::unix_seconds;
use iomark_result::result::{unix_rfc3339, ResultDoc};

/// The checks among `docs` with their time, oldest first.
pub(super) fn checks<'a>(docs: &[&'a ResultDoc]) -> Vec<(f64, &'a ResultDoc, &'a Section)> {
    let mut checks: Vec<_> = docs
        .iter()
        .filter_map(|d| {
            let at = unix_seconds(&d.finished_at)?;
            Some((at, *d, d.health.as_ref()?))
        })
        .collect();
    checks.sort_by(|a, b| a.0.total_cmp(&b.0));
    checks
}

pub(super) const HEIGHT: u32 = 640;

pub(super) fn health<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let checks = checks(docs);
    let (first, last) = match (checks.first(), checks.last()) {
        (Some(f), Some(l)) => (f.0, l.0),
        _ => return Ok(()),
    };
    // Ten minutes at least, so that one check or a few close together still make an axis.
    let span = (last - first).max(600.0);
    let middle = (first + last) / 2.0;
    let x_range = (middle - span * 0.53)..(middle + span * 0.53);
    let label = move |x: &f64| {
        let t = unix_rfc3339(x.max(0.0) as u64);
        let (from, to) = match span {
            s if s > 3.0 * 86_400.0 => (0, 10),
            s if s > 7_200.0 => (5, 16),
            _ => (11, 19),
        };
        t.get(from..to).unwrap_or(&t).replace('T', " ")
    };
    let path = checks
        .last()
        .map(|(_, d, _)| d.target.path.as_str())
        .unwrap_or("");
    let caption = format!(
        "Health of {path} · {} check{} · {}",
        checks.len(),
        if checks.len() == 1 { "" } else { "s" },
        checks
            .last()
            .map(|(_, d, _)| d.device_label())
            .unwrap_or_default()
    );
    let panels = root.split_evenly((3, 1));
    let series = series(&checks);
    for (k, ((what, color, points), area)) in series.iter().zip(panels.iter()).enumerate() {
        let top = match points.is_empty() {
            true => 1.0,
            false => points.iter().map(|p| p.1).fold(0.0_f64, f64::max).max(1e-3) * 1.25,
        };
        let mut builder = ChartBuilder::on(area);
        builder
            .margin(12)
            .margin_right(40)
            .x_label_area_size(if k == 2 { 36 } else { 8 })
            .y_label_area_size(70);
        if k == 0 {
            builder.caption(&caption, (FONT, 18));
        }
        let mut chart = builder
            .build_cartesian_2d(
                super::frame::span(x_range.start, x_range.end),
                super::frame::span(0.0, top),
            )
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_labels(6)
            .x_label_formatter(&|x| if k == 2 { label(x) } else { String::new() })
            .y_desc(*what)
            .y_labels(if points.is_empty() { 0 } else { 5 })
            .y_label_formatter(&|v| tick(*v))
            .label_style((FONT, 13))
            .draw()
            .map_err(err)?;
        if points.is_empty() {
            chart
                .plotting_area()
                .draw(&Text::new(
                    "not measured in these checks (it needs two checks a minute or more apart, in one boot)",
                    (x_range.start + span * 0.05, top * 0.5),
                    (FONT, 13).into_font(),
                ))
                .map_err(err)?;
            continue;
        }
        let at = super::frame::inside(&chart);
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|&p| at(p)),
                color.stroke_width(2),
            ))
            .map_err(err)?;
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&p| Circle::new(at(p), 3, color.filled())),
            )
            .map_err(err)?;
        if k == 0 {
            // The verdict of each check that was not healthy, beside its point.
            let words = checks
                .iter()
                .filter(|(_, _, h)| h.verdict != Verdict::Healthy)
                .map(|(t, _, h)| {
                    let y = h
                        .read_latency_us
                        .as_ref()
                        .map_or(top * 0.8, |r| r.p99 / 1e3);
                    EmptyElement::at(at((*t, y)))
                        + Text::new(
                            h.verdict.as_str(),
                            (6, -16),
                            (FONT, 12).into_font().color(&BLACK),
                        )
                });
            chart.draw_series(words).map_err(err)?;
        }
    }
    Ok(())
}

/// The three panels' names, colours and points: the reads' p99 in ms, the synced writes' p99
/// in ms, what was written per day in MiB.
type Series = (&'static str, RGBColor, Vec<(f64, f64)>);

fn series(checks: &[(f64, &ResultDoc, &Section)]) -> [Series; 3] {
    // What was written per day in the unit that keeps its largest figure readable.
    let most = checks
        .iter()
        .filter_map(|(_, _, h)| h.written_per_day_bytes)
        .max()
        .unwrap_or(0);
    let per_day = match most {
        m if m >= 10 << 40 => ("written per day, TiB", (1u64 << 40) as f64),
        m if m >= 10 << 30 => ("written per day, GiB", (1u64 << 30) as f64),
        _ => ("written per day, MiB", (1u64 << 20) as f64),
    };
    [
        (
            "4 KiB reads, p99 ms",
            READ,
            checks
                .iter()
                .filter_map(|(t, _, h)| Some((*t, h.read_latency_us.as_ref()?.p99 / 1e3)))
                .collect::<Vec<_>>(),
        ),
        (
            "synced writes, p99 ms",
            WRITE,
            checks
                .iter()
                .filter_map(|(t, _, h)| Some((*t, h.synced_write_ms.as_ref()?.p99)))
                .collect(),
        ),
        (
            per_day.0,
            WRITE,
            checks
                .iter()
                .filter_map(|(t, _, h)| Some((*t, h.written_per_day_bytes? as f64 / per_day.1)))
                .collect(),
        ),
    ]
}
