//! What the charts share: the legend and the space it takes, axis labels, line series and
//! their colours.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::*;
use iomark_result::result::ResultDoc;
use iomark_result::units::block_label;

/// Splits off a strip at the bottom for the runs' legend, when there are several runs.
pub(super) fn with_legend_space<DB: DrawingBackend>(
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

pub(super) fn legend_height(docs: &[&ResultDoc]) -> u32 {
    if docs.len() < 2 {
        0
    } else {
        16 * docs.len() as u32 + 12
    }
}

/// The runs' letters, colours, ids and descriptions, in the strip below a chart: the id as
/// `history` and `compare` show it, so a reader can find the run again.
pub(super) fn legend<DB: DrawingBackend>(
    area: Option<DrawingArea<DB, Shift>>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let Some(area) = area else { return Ok(()) };
    for (j, (doc, id)) in docs.iter().zip(run_ids(docs)).enumerate() {
        let y = 4 + 16 * j as i32;
        let x = 160;
        area.draw(&Rectangle::new(
            [(x, y), (x + 12, y + 12)],
            run_color(j).filled(),
        ))
        .map_err(err)?;
        area.draw(&Text::new(
            format!("{}{id} · {}", run_tag(docs, j), describe(doc)),
            (x + 18, y),
            (FONT, 12).into_font(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// Each run's id as `history` and `compare` show it: the shortest beginning that tells it from
/// the others, eight characters at least.
pub(super) fn run_ids(docs: &[&ResultDoc]) -> Vec<String> {
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    iomark_result::result::short_ids(&ids, 8)
}

/// A run's colour in a comparison, in every chart: the palette without read's blue and write's
/// orange, which mean read and write wherever one run is drawn.
pub(super) fn run_color(run: usize) -> RGBColor {
    PALETTE[2 + run % (PALETTE.len() - 2)]
}

/// The name at a whole-number axis position (none between them): `names[v]`, or counted down
/// from `top` when `reversed`.
pub(super) fn category(names: &[&str], top: usize, v: f64, reversed: bool) -> String {
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

/// The farthest an axis reaches from zero: beyond any figure of storage in any unit it draws
/// (µs, MB/s, IOPS, seconds, a Unix time), and far inside what the axis code steps through. A
/// range out to about 1e308 overflowed to infinity there and its drawing never ended, so two
/// views of one such result held a two-core site (issue 59). Every axis is made by [`span`] or
/// [`log_span`], so no document, however made, draws one wider.
pub(super) const AXIS_LIMIT: f64 = 1e12;

/// A linear axis from `lo` to `hi`: finite, increasing and inside ±[`AXIS_LIMIT`] whatever the
/// figures were (a point beyond it is drawn at the edge).
pub(super) fn span(lo: f64, hi: f64) -> std::ops::Range<f64> {
    let bound = |v: f64| match v.is_nan() {
        true => 0.0,
        false => v.clamp(-AXIS_LIMIT, AXIS_LIMIT),
    };
    let (lo, hi) = (bound(lo), bound(hi));
    match hi > lo {
        true => lo..hi,
        false => (hi - 1.0).min(lo)..(lo + 1.0).max(hi),
    }
}

/// A logarithmic axis from `lo` to `hi`: positive, as [`span`] is finite, and at most 18
/// decades from 10⁻⁶ to [`AXIS_LIMIT`].
pub(super) fn log_span(lo: f64, hi: f64) -> std::ops::Range<f64> {
    let bound = |v: f64| match v.is_nan() {
        true => 1.0,
        false => v.clamp(1e-6, AXIS_LIMIT),
    };
    let (lo, hi) = (bound(lo), bound(hi));
    match hi > lo {
        true => lo..hi,
        false => (lo / 10.0).max(1e-6)..(lo * 10.0).min(AXIS_LIMIT),
    }
}

/// Where a point is drawn on `chart`: itself, or the nearest point of the plot where it lies
/// outside the axes (plotters took a point far outside to a pixel past what an i32 holds, and
/// a debug build panicked on it). Every point and shape a chart draws from figures goes
/// through this.
pub(super) fn inside<DB, X, Y>(
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
) -> impl Fn((f64, f64)) -> (f64, f64)
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let fit = |r: std::ops::Range<f64>| {
        move |v: f64| match v.is_nan() {
            true => r.start,
            false => v.clamp(r.start.min(r.end), r.end.max(r.start)),
        }
    };
    let (x, y) = (fit(chart.x_range()), fit(chart.y_range()));
    move |(a, b)| (x(a), y(b))
}

/// An axis label: no more decimals than it needs (at most two), none from floating-point dust.
pub(super) fn tick(v: f64) -> String {
    let text = format!("{v:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A log axis's label where the value is 1, 2 or 5 times a power of ten, none between: the
/// axis marks every step (100, 200, … 900, 1000), and labelled all, they ran together.
pub(super) fn one_two_five(v: f64) -> String {
    if v.is_nan() || v <= 0.0 {
        return String::new();
    }
    let leading = v / 10f64.powf(v.log10().floor());
    if [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|m| (leading - m).abs() < 1e-6 * m)
    {
        tick(v)
    } else {
        String::new()
    }
}

/// A line per test (and run), dashed for writes.
pub(super) struct Series {
    pub(super) name: String,
    pub(super) color: RGBColor,
    pub(super) dashed: bool,
    pub(super) points: Vec<(f64, f64)>,
}

/// The one colour rule of every chart (ARCHITECTURE states it): one run draws read in blue and
/// write in orange; a comparison gives each run its own colour (A, B, C…, never blue or
/// orange), the same in every chart, with its letter in the legend; lines are solid for reads
/// and dashed for writes either way. Nothing else is told by colour: charts of many tests draw
/// a panel per test row ([`panels`]).
pub(super) fn color_for(docs: &[&ResultDoc], run: usize, op: &str) -> RGBColor {
    if docs.len() > 1 {
        run_color(run)
    } else if op == "write" {
        WRITE
    } else {
        READ
    }
}

/// A line, solid or dashed, on any chart whose coordinates are pairs of numbers.
pub(super) fn draw_line<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    points: &[(f64, f64)],
    color: RGBColor,
    dashed: bool,
) -> Result<(), ExportError>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let style = color.stroke_width(2);
    let at = inside(chart);
    let points = points.iter().map(|&p| at(p));
    if dashed {
        chart
            .draw_series(DashedLineSeries::new(points, 7, 5, style))
            .map_err(err)?;
    } else {
        chart
            .draw_series(LineSeries::new(points, style))
            .map_err(err)?;
    }
    Ok(())
}

/// Lines on a linear plot, the legend beside it. With `log2_x`, x values are base-2 logarithms of block sizes, and
/// whole numbers are labelled with the block size (4K, 8K, … 16M).
pub(super) fn lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    caption: String,
    series: Vec<Series>,
    x_desc: &str,
    y_desc: &str,
    log2_x: bool,
) -> Result<(), ExportError> {
    let (width, _) = root.dim_in_pixel();
    let (plot, side) = root.split_horizontally(width.saturating_sub(LEGEND_WIDTH));
    let root = &plot;
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
        .build_cartesian_2d(span(x_min, x_max), span(0.0, y_max))
        .map_err(err)?;
    let mut mesh = chart.configure_mesh();
    if log2_x {
        // One label per power of two: the axis runs in whole steps (a block size is at most
        // 2⁶⁴).
        mesh.x_labels(((x_max - x_min).clamp(0.0, 64.0) as usize + 1) * 2);
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
        draw_line(&mut chart, &s.points, s.color, s.dashed)?;
    }
    let entries: Vec<(String, RGBColor, bool)> = series
        .iter()
        .map(|s| (s.name.clone(), s.color, s.dashed))
        .collect();
    side_legend(&side, &entries)
}

/// The test rows of these runs (`SEQ1M_Q8T1`, …), in the order they ran: a read and a write of
/// one row share a line chart's colour.
pub(super) fn test_rows(docs: &[&ResultDoc]) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    for name in iomark_result::result::test_names(docs.iter().copied()) {
        let row = name
            .trim_end_matches("_read")
            .trim_end_matches("_write")
            .to_string();
        if !rows.contains(&row) {
            rows.push(row);
        }
    }
    rows
}

/// Which of `rows` a test of that name belongs to.
pub(super) fn row_of(rows: &[String], test: &str) -> usize {
    rows.iter()
        .position(|r| test.starts_with(r.as_str()))
        .unwrap_or(0)
}

/// How tall one panel of a chart drawn a panel per test row is.
pub(super) const PANEL_HEIGHT: u32 = 230;

/// Panels to a line: two, or one where there is one row.
fn panel_columns(rows: usize) -> usize {
    if rows > 1 {
        2
    } else {
        1
    }
}

/// The height the panels of `rows` test rows take.
pub(super) fn panels_height(rows: usize) -> u32 {
    rows.max(1).div_ceil(panel_columns(rows)) as u32 * PANEL_HEIGHT
}

/// One panel per test row, two to a line: a chart of many tests tells them apart by place,
/// never by colour (see [`color_for`]).
pub(super) fn panels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: usize,
) -> Vec<DrawingArea<DB, Shift>> {
    let columns = panel_columns(rows);
    area.split_evenly((rows.max(1).div_ceil(columns), columns))
        .into_iter()
        .take(rows)
        .collect()
}

/// The height of the key below a chart of lines: what solid and dashed mean, and the runs.
pub(super) fn line_key_height(docs: &[&ResultDoc]) -> u32 {
    26 + legend_height(docs)
}

/// The key below a chart of lines: read solid and write dashed (blue and orange for one run),
/// then each run's letter, colour, id and description in a comparison.
pub(super) fn line_key<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let (top, runs) = area.split_vertically(26);
    for (k, (op, dashed)) in [("read", false), ("write", true)].into_iter().enumerate() {
        let x = 160 + 150 * k as i32;
        let color = if docs.len() > 1 {
            RGBColor(0x33, 0x33, 0x33)
        } else {
            color_for(docs, 0, op)
        };
        let segments: &[(i32, i32)] = if dashed {
            &[(0, 9), (15, 24), (30, 36)]
        } else {
            &[(0, 36)]
        };
        for &(a, b) in segments {
            top.draw(&PathElement::new(
                vec![(x + a, 13), (x + b, 13)],
                color.stroke_width(3),
            ))
            .map_err(err)?;
        }
        top.draw(&Text::new(op, (x + 44, 6), (FONT, 13).into_font()))
            .map_err(err)?;
    }
    if docs.len() > 1 {
        legend(Some(runs), docs)?;
    }
    Ok(())
}

/// The width of the strip beside a plot that [`side_legend`] draws in.
pub(super) const LEGEND_WIDTH: u32 = 200;

/// A legend in its own strip beside the plot, so it never covers a line or a point: a sample
/// of each series' line (dashed where it is dashed) and its name.
pub(super) fn side_legend<DB: DrawingBackend>(
    side: &DrawingArea<DB, Shift>,
    entries: &[(String, RGBColor, bool)],
) -> Result<(), ExportError> {
    for (k, (name, color, dashed)) in entries.iter().enumerate() {
        let y = 48 + 20 * k as i32;
        let segments: &[(i32, i32)] = if *dashed {
            &[(4, 11), (19, 26)]
        } else {
            &[(4, 30)]
        };
        for &(a, b) in segments {
            side.draw(&PathElement::new(
                vec![(a, y + 6), (b, y + 6)],
                color.stroke_width(3),
            ))
            .map_err(err)?;
        }
        side.draw(&Text::new(name.clone(), (36, y), (FONT, 13).into_font()))
            .map_err(err)?;
    }
    Ok(())
}
