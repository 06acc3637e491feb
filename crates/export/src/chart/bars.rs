//! MB/s of every test, one bar per test and run (CrystalDiskMark's picture).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::frame::*;
use super::*;
use iomark_result::result::ResultDoc;

pub(super) fn bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    let (area, below) = with_legend_space(root, docs);
    let root = &area;
    let names = iomark_result::result::test_names(docs.iter().copied());
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
        .build_cartesian_2d(span(0.0, max * 1.18), -0.5..n - 0.5)
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
    let at = inside(&chart);
    for (j, doc) in docs.iter().enumerate() {
        let mut bars = Vec::new();
        let mut labels = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let Some(t) = doc.test(name) else { continue };
            // Rows run top to bottom in test order.
            let top = n - 1.0 - i as f64 + 0.4 - slot * j as f64;
            let color = color_for(docs, j, &t.op);
            bars.push(Rectangle::new(
                [at((0.0, top)), at((t.mb_per_s, top - slot * 0.9))],
                color.filled(),
            ));
            labels.push(Text::new(
                format!("{}{:.1}", run_tag(docs, j), t.mb_per_s),
                at((t.mb_per_s + max * 0.01, top - slot * 0.15)),
                (FONT, 12).into_font().color(&BLACK),
            ));
        }
        chart.draw_series(bars).map_err(err)?;
        chart.draw_series(labels).map_err(err)?;
    }
    legend(below, docs)
}
