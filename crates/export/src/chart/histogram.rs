//! How many I/Os fell in each latency bucket (the latency profile).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use iomark_result::result::ResultDoc;

pub(super) fn histogram<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let (area, below) = with_legend_space(root, docs);
    let root = &area;
    // Each bucket is drawn as a bar from the previous bound to its own, on a log scale of µs.
    let mut bars = Vec::new();
    for (j, doc) in docs.iter().enumerate() {
        for t in doc
            .tests
            .iter()
            .filter(|t| !t.latency_us.histogram.is_empty())
        {
            let total: u64 = t.latency_us.histogram.iter().map(|b| b.count).sum();
            // Buckets are four to an octave: the first one's lower bound is a quarter octave down.
            let mut lower = t.latency_us.histogram[0].le_us / 2f64.powf(0.25);
            for b in &t.latency_us.histogram {
                let share = 100.0 * b.count as f64 / total.max(1) as f64;
                bars.push((lower, b.le_us, share, color_for(docs, j, &t.op)));
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
        .build_cartesian_2d(log_span(x_min, x_max).log_scale(), span(0.0, y_max))
        .map_err(err)?;
    chart
        .configure_mesh()
        // The bold lines alone: a log axis's light ones crowd into a grey band.
        .light_line_style(TRANSPARENT)
        .x_labels(12)
        .x_desc("latency (µs, log scale)")
        .x_label_formatter(&|v| one_two_five(*v))
        .y_desc("% of I/Os")
        .y_label_formatter(&|v| tick(*v))
        .label_style((FONT, 13))
        .draw()
        .map_err(err)?;
    let several = docs.len() > 1;
    let at = inside(&chart);
    chart
        .draw_series(bars.iter().map(|&(lo, hi, share, color)| {
            let style = if several {
                color.mix(0.5).filled()
            } else {
                color.filled()
            };
            Rectangle::new([at((lo, 0.0)), at((hi, share))], style)
        }))
        .map_err(err)?;
    legend(below, docs)
}
