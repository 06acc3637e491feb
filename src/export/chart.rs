//! Charts of saved runs, drawn with plotters as SVG (for files and the HTML report) or PNG.
//!
//! Text is laid out with DejaVu Sans, compiled in, so that a chart looks the same on a machine
//! without fonts; SVG text names `sans-serif` and the viewer's own font draws it.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::result::{ResultDoc, TestResult};
use crate::units::block_label;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// MB/s of every test, one bar per test and run.
    Bars,
    /// MB/s second by second.
    Timeline,
    /// Latency percentiles, min to max, on a log scale.
    Latency,
    /// How many I/Os fell in each latency bucket (tests that kept buckets: the latency profile).
    Histogram,
    /// MB/s against block size, read and write.
    Sweep,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bars => "bars",
            Kind::Timeline => "timeline",
            Kind::Latency => "latency",
            Kind::Histogram => "histogram",
            Kind::Sweep => "sweep",
        }
    }
}

pub const READ: RGBColor = RGBColor(0x2b, 0x6c, 0xb0);
pub const WRITE: RGBColor = RGBColor(0xd9, 0x6c, 0x1e);
/// One colour per run in comparisons, or per test where a chart draws many; the first two
/// are read's and write's.
const PALETTE: [RGBColor; 8] = [
    READ,
    WRITE,
    RGBColor(0x2f, 0x9e, 0x44),
    RGBColor(0x9c, 0x36, 0xb5),
    RGBColor(0xc9, 0x2a, 0x2a),
    RGBColor(0x5c, 0x5f, 0x66),
    RGBColor(0x0c, 0x8f, 0x9c),
    RGBColor(0xb0, 0x8d, 0x00),
];
const FONT: &str = "sans-serif";
const WIDTH: u32 = 900;

fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

/// Whether the runs hold what this kind of chart draws; `Err` says what is missing.
pub fn check(kind: Kind, docs: &[&ResultDoc]) -> Result<(), String> {
    let has = |f: &dyn Fn(&TestResult) -> bool| docs.iter().any(|d| d.tests.iter().any(f));
    let ok = match kind {
        Kind::Bars | Kind::Latency => has(&|_| true),
        Kind::Timeline => has(&|t| !t.timeline.is_empty()),
        Kind::Histogram => has(&|t| !t.latency_us.histogram.is_empty()),
        Kind::Sweep => sweep_series(docs).iter().any(|s| s.points.len() >= 2),
    };
    if ok {
        Ok(())
    } else {
        Err(match kind {
            Kind::Histogram => {
                "no latency histogram in these runs: `iomark run --profile latency` records one"
                    .into()
            }
            Kind::Sweep => {
                "no block-size series in these runs: `iomark run --profile sweep` measures one"
                    .into()
            }
            _ => format!("nothing to draw a {} chart from", kind.name()),
        })
    }
}

/// The chart as an SVG document.
pub fn svg(kind: Kind, docs: &[&ResultDoc]) -> Result<String, String> {
    check(kind, docs)?;
    fonts();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size(kind, docs)).into_drawing_area();
        draw(&root, kind, docs)?;
        root.present().map_err(err)?;
    }
    Ok(text)
}

/// The chart as a PNG file.
pub fn png(kind: Kind, docs: &[&ResultDoc], path: &Path) -> Result<(), String> {
    check(kind, docs)?;
    fonts();
    let root = BitMapBackend::new(path, size(kind, docs)).into_drawing_area();
    draw(&root, kind, docs)?;
    root.present().map_err(err)
}

fn size(kind: Kind, docs: &[&ResultDoc]) -> (u32, u32) {
    match kind {
        Kind::Bars => {
            let tests = crate::result::test_names(docs.iter().copied()).len() as u32;
            let per_test = 14 * docs.len() as u32 + 12;
            (WIDTH, 90 + tests * per_test.max(26) + legend_height(docs))
        }
        Kind::Histogram => (WIDTH, 420 + legend_height(docs)),
        _ => (WIDTH, 420),
    }
}

fn err<E: std::fmt::Display>(e: E) -> String {
    format!("cannot draw the chart: {e}")
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    kind: Kind,
    docs: &[&ResultDoc],
) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    match kind {
        Kind::Bars => bars(root, docs),
        Kind::Timeline => timeline(root, docs),
        Kind::Latency => latency(root, docs),
        Kind::Histogram => histogram(root, docs),
        Kind::Sweep => sweep(root, docs),
    }
}

/// "A", "B"… for runs in a comparison; nothing for a single run.
fn run_tag(docs: &[&ResultDoc], i: usize) -> String {
    if docs.len() > 1 {
        format!("{} ", crate::compare::letter(i))
    } else {
        String::new()
    }
}

fn title(docs: &[&ResultDoc], what: &str) -> String {
    match docs {
        [doc] => format!("{what} · {}", describe(doc)),
        _ => format!("{what} · {} runs", docs.len()),
    }
}

fn describe(doc: &ResultDoc) -> String {
    let label = doc
        .label
        .as_deref()
        .map(|l| format!(" \"{l}\""))
        .unwrap_or_default();
    format!(
        "{}{label} · {}",
        doc.device_label(),
        doc.started_at.get(..10).unwrap_or(&doc.started_at)
    )
}

fn bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), String> {
    let (area, below) = with_legend_space(root, docs);
    let root = &area;
    let names = crate::result::test_names(docs.iter().copied());
    let max = docs
        .iter()
        .flat_map(|d| d.tests.iter().map(|t| t.mb_per_s))
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let n = names.len() as f64;
    let mut chart = ChartBuilder::on(root)
        .caption(title(docs, "Throughput (MB/s)"), (FONT, 18))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(150)
        // Row i (from the top) is centred on y = n - 1 - i, so that whole numbers label rows.
        .build_cartesian_2d(0.0..max * 1.18, -0.5..n - 0.5)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(names.len() * 2 + 1)
        .y_label_formatter(&|v| category(&names, n as usize - 1, *v, true))
        .x_desc("MB/s (10⁶ bytes per second)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .label_style((FONT, 13))
        .draw()
        .map_err(err)?;
    let slot = 0.8 / docs.len() as f64;
    for (j, doc) in docs.iter().enumerate() {
        let mut bars = Vec::new();
        let mut labels = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let Some(t) = doc.test(name) else { continue };
            // Rows run top to bottom in test order.
            let top = n - 1.0 - i as f64 + 0.4 - slot * j as f64;
            let color = if docs.len() > 1 {
                PALETTE[j % PALETTE.len()]
            } else if t.op == "write" {
                WRITE
            } else {
                READ
            };
            bars.push(Rectangle::new(
                [(0.0, top), (t.mb_per_s, top - slot * 0.9)],
                color.filled(),
            ));
            labels.push(Text::new(
                format!("{}{:.1}", run_tag(docs, j), t.mb_per_s),
                (t.mb_per_s + max * 0.01, top - slot * 0.15),
                (FONT, 12).into_font().color(&BLACK),
            ));
        }
        chart.draw_series(bars).map_err(err)?;
        chart.draw_series(labels).map_err(err)?;
    }
    legend(below, docs)
}

/// Splits off a strip at the bottom for the runs' legend, when there are several runs.
fn with_legend_space<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> (DrawingArea<DB, Shift>, Option<DrawingArea<DB, Shift>>) {
    if docs.len() < 2 {
        return (root.clone(), None);
    }
    let (_, h) = root.dim_in_pixel();
    let (top, bottom) = root.split_vertically(h.saturating_sub(legend_height(docs)));
    (top, Some(bottom))
}

fn legend_height(docs: &[&ResultDoc]) -> u32 {
    if docs.len() < 2 {
        0
    } else {
        16 * docs.len() as u32 + 12
    }
}

/// The runs' letters, colours and descriptions, in the strip below a chart.
fn legend<DB: DrawingBackend>(
    area: Option<DrawingArea<DB, Shift>>,
    docs: &[&ResultDoc],
) -> Result<(), String> {
    let Some(area) = area else { return Ok(()) };
    for (j, doc) in docs.iter().enumerate() {
        let y = 4 + 16 * j as i32;
        let x = 160;
        area.draw(&Rectangle::new(
            [(x, y), (x + 12, y + 12)],
            PALETTE[j % PALETTE.len()].filled(),
        ))
        .map_err(err)?;
        area.draw(&Text::new(
            format!("{}{}", run_tag(docs, j), describe(doc)),
            (x + 18, y),
            (FONT, 12).into_font(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// The name at a whole-number axis position (none between them): `names[v]`, or counted down
/// from `top` when `reversed`.
fn category(names: &[&str], top: usize, v: f64, reversed: bool) -> String {
    if (v - v.round()).abs() > 1e-6 || v.round() < 0.0 {
        return String::new();
    }
    let k = v.round() as usize;
    let index = if reversed {
        top.checked_sub(k)
    } else {
        Some(k)
    };
    index
        .and_then(|i| names.get(i))
        .map(|s| s.replace('_', " "))
        .unwrap_or_default()
}

/// An axis label: no more decimals than it needs (at most two), none from floating-point dust.
fn tick(v: f64) -> String {
    let text = format!("{v:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A line per test (and run); colours cycle.
struct Series {
    name: String,
    color: RGBColor,
    points: Vec<(f64, f64)>,
}

fn color_for(docs: &[&ResultDoc], run: usize, index: usize, op: &str) -> RGBColor {
    if docs.len() > 1 {
        PALETTE[run % PALETTE.len()]
    } else if index < 2 {
        if op == "write" {
            WRITE
        } else {
            READ
        }
    } else {
        PALETTE[index % PALETTE.len()]
    }
}

/// Lines on a linear plot. With `log2_x`, x values are base-2 logarithms of block sizes, and
/// whole numbers are labelled with the block size (4K, 8K, … 16M).
fn lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    caption: String,
    series: Vec<Series>,
    x_desc: &str,
    y_desc: &str,
    log2_x: bool,
) -> Result<(), String> {
    let xs = || series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = || series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let x_max = xs().fold(f64::MIN, f64::max).max(1.0);
    let x_min = xs().fold(f64::MAX, f64::min).min(x_max - 1.0);
    let y_max = ys().fold(0.0_f64, f64::max).max(1.0) * 1.1;
    let mut chart = ChartBuilder::on(root)
        .caption(caption, (FONT, 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x_min..x_max, 0.0..y_max)
        .map_err(err)?;
    let mut mesh = chart.configure_mesh();
    if log2_x {
        // One label per power of two: the axis runs in whole steps.
        mesh.x_labels(((x_max - x_min) as usize + 1) * 2);
    }
    mesh.x_desc(x_desc)
        .y_desc(y_desc)
        .label_style((FONT, 13))
        .x_label_formatter(&|v: &f64| {
            if !log2_x {
                tick(*v)
            } else if (v - v.round()).abs() < 1e-6 && *v >= 0.0 && *v < 63.0 {
                block_label(1u64 << v.round() as u32)
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v: &f64| tick(*v))
        .draw()
        .map_err(err)?;
    for s in &series {
        let color = s.color;
        chart
            .draw_series(LineSeries::new(
                s.points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(s.name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 14, y + 4)], color.filled()));
    }
    series_legend(&mut chart, SeriesLabelPosition::LowerRight)
}

fn timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), String> {
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

fn sweep_series(docs: &[&ResultDoc]) -> Vec<Series> {
    let mut series = Vec::new();
    for (j, doc) in docs.iter().enumerate() {
        for (i, op) in ["read", "write"].into_iter().enumerate() {
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
                color: color_for(docs, j * 2 + i, i, op),
                points,
            });
        }
    }
    series.retain(|s| s.points.len() >= 2);
    series
}

fn sweep<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), String> {
    lines(
        root,
        title(docs, "Sequential MB/s by block size (QD1)"),
        sweep_series(docs),
        "block size",
        "MB/s",
        true,
    )
}

const PERCENTILES: [&str; 7] = ["min", "p50", "mean", "p90", "p99", "p99.9", "max"];

fn latency<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), String> {
    // Colour tells the tests apart; in comparisons, the dash pattern tells the runs apart.
    let names = crate::result::test_names(docs.iter().copied());
    let mut series = Vec::new();
    let mut runs = Vec::new();
    for (j, doc) in docs.iter().enumerate() {
        for t in &doc.tests {
            let l = &t.latency_us;
            let values = [l.min, l.p50, l.mean, l.p90, l.p99, l.p99_9, l.max];
            let index = names.iter().position(|n| *n == t.name).unwrap_or(0);
            runs.push(j);
            series.push(Series {
                name: format!("{}{}", run_tag(docs, j), t.name.replace('_', " ")),
                color: PALETTE[index % PALETTE.len()],
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
    let mut chart = ChartBuilder::on(root)
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
    for (s, &run) in series.iter().zip(&runs) {
        let color = s.color;
        let points = s.points.iter().copied();
        let drawn = if run == 0 {
            chart.draw_series(LineSeries::new(points, color.stroke_width(2)))
        } else {
            let dash = 4 + 3 * run as u32;
            chart.draw_series(DashedLineSeries::new(
                points,
                dash,
                dash,
                color.stroke_width(2),
            ))
        }
        .map_err(err)?;
        if run == 0 || docs.len() == 1 {
            drawn
                .label(s.name.trim_start_matches("A ").to_string())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 4), (x + 14, y + 4)], color.filled())
                });
        }
        chart
            .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
    }
    series_legend(&mut chart, SeriesLabelPosition::UpperLeft)
}

/// The box naming each labelled series.
fn series_legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font((FONT, 12))
        .draw()
        .map_err(err)
}

fn histogram<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), String> {
    let (area, below) = with_legend_space(root, docs);
    let root = &area;
    // Each bucket is drawn as a bar from the previous bound to its own, on a log scale of µs.
    let mut bars = Vec::new();
    for (j, doc) in docs.iter().enumerate() {
        for (i, t) in doc
            .tests
            .iter()
            .filter(|t| !t.latency_us.histogram.is_empty())
            .enumerate()
        {
            let total: u64 = t.latency_us.histogram.iter().map(|b| b.count).sum();
            // Buckets are four to an octave: the first one's lower bound is a quarter octave down.
            let mut lower = t.latency_us.histogram[0].le_us / 2f64.powf(0.25);
            for b in &t.latency_us.histogram {
                let share = 100.0 * b.count as f64 / total.max(1) as f64;
                bars.push((lower, b.le_us, share, color_for(docs, j, i, &t.op)));
                lower = b.le_us;
            }
        }
    }
    let x_min = bars.iter().map(|b| b.0).fold(f64::MAX, f64::min).max(0.01);
    let x_max = bars
        .iter()
        .map(|b| b.1)
        .fold(0.0_f64, f64::max)
        .max(x_min * 2.0);
    let y_max = bars.iter().map(|b| b.2).fold(0.0_f64, f64::max).max(1.0) * 1.1;
    let mut chart = ChartBuilder::on(root)
        .caption(title(docs, "Latency histogram"), (FONT, 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((x_min..x_max).log_scale(), 0.0..y_max)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("latency (µs, log scale)")
        .y_desc("% of I/Os")
        .y_label_formatter(&|v| tick(*v))
        .label_style((FONT, 13))
        .draw()
        .map_err(err)?;
    let several = docs.len() > 1;
    chart
        .draw_series(bars.iter().map(|&(lo, hi, share, color)| {
            let style = if several {
                color.mix(0.5).filled()
            } else {
                color.filled()
            };
            Rectangle::new([(lo, 0.0), (hi, share)], style)
        }))
        .map_err(err)?;
    legend(below, docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_lose_floating_point_dust() {
        assert_eq!(tick(0.30000000000000004), "0.3");
        assert_eq!(tick(4000.0), "4000");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(0.375), "0.38");
    }

    #[test]
    fn every_kind_draws_the_sample_or_says_what_is_missing() {
        let doc = crate::result::sample::doc();
        for kind in [Kind::Bars, Kind::Timeline, Kind::Latency] {
            let svg = svg(kind, &[&doc]).unwrap();
            assert!(svg.starts_with("<svg") && svg.contains("<rect"), "{kind:?}");
        }
        // The sample is a standard run: no histogram, no block-size series.
        assert!(svg(Kind::Histogram, &[&doc])
            .unwrap_err()
            .contains("--profile latency"));
        assert!(svg(Kind::Sweep, &[&doc])
            .unwrap_err()
            .contains("--profile sweep"));
    }
}
