//! Charts of saved runs, drawn with plotters as SVG (for files and the HTML report) or PNG.
//!
//! Text is laid out with DejaVu Sans, compiled in, so that a chart looks the same on a machine
//! without fonts; SVG text names `sans-serif` and the viewer's own font draws it.

mod bars;
mod card;
mod fonts;
mod frame;
mod glyphs;
mod health;
mod histogram;
mod latency;
mod surface;
mod sweep;
mod timeline;

use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::ExportError;
use frame::legend_height;
use iomark_result::result::{ResultDoc, TestResult};

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
    /// Read rate and access time against position (the surface profile).
    Surface,
    /// One run as a card to post: a row per test, read and write side by side.
    Card,
    /// A card's health checks over time: read and write latency, what it wrote per day.
    Health,
}

impl Kind {
    /// Every kind, in the order the HTML report draws them (the card last, which it does not).
    pub const ALL: [Kind; 8] = [
        Kind::Bars,
        Kind::Timeline,
        Kind::Latency,
        Kind::Histogram,
        Kind::Sweep,
        Kind::Surface,
        Kind::Health,
        Kind::Card,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Bars => "bars",
            Kind::Timeline => "timeline",
            Kind::Latency => "latency",
            Kind::Histogram => "histogram",
            Kind::Sweep => "sweep",
            Kind::Surface => "surface",
            Kind::Card => "card",
            Kind::Health => "health",
        }
    }
}

pub const READ: RGBColor = RGBColor(0x2b, 0x6c, 0xb0);
pub const WRITE: RGBColor = RGBColor(0xd9, 0x6c, 0x1e);
/// Read's blue and write's orange, then one colour per run in comparisons (see
/// `frame::color_for`, the one rule).
pub(super) const PALETTE: [RGBColor; 8] = [
    READ,
    WRITE,
    RGBColor(0x2f, 0x9e, 0x44),
    RGBColor(0x9c, 0x36, 0xb5),
    RGBColor(0xc9, 0x2a, 0x2a),
    RGBColor(0x5c, 0x5f, 0x66),
    RGBColor(0x0c, 0x8f, 0x9c),
    RGBColor(0xb0, 0x8d, 0x00),
];
pub(super) const FONT: &str = "sans-serif";
pub(super) const WIDTH: u32 = 900;

fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, fonts::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, fonts::bold());
    });
}

/// Whether the runs hold what this kind of chart draws; `Err` says what is missing.
pub fn check(kind: Kind, docs: &[&ResultDoc]) -> Result<(), ExportError> {
    let has = |f: &dyn Fn(&TestResult) -> bool| docs.iter().any(|d| d.tests.iter().any(f));
    let ok = match kind {
        Kind::Bars | Kind::Latency => has(&|_| true),
        Kind::Timeline => has(&|t| !t.timeline.is_empty()),
        Kind::Histogram => has(&|t| !t.latency_us.histogram.is_empty()),
        Kind::Sweep => sweep::sweep_series(docs)
            .iter()
            .any(|s| s.points.len() >= 2),
        Kind::Surface => !surface::scans(docs).is_empty(),
        Kind::Health => !health::checks(docs).is_empty(),
        Kind::Card => match docs {
            [doc] => card::drawable(doc),
            _ => {
                return Err(ExportError::NothingToDraw(format!(
                    "a card shows one run, not {}: `--kind bars` compares several",
                    docs.len()
                )))
            }
        },
    };
    if ok {
        Ok(())
    } else {
        Err(ExportError::NothingToDraw(match kind {
            Kind::Histogram => {
                "no latency histogram in these runs: `iomark run --profile latency` records one"
                    .into()
            }
            Kind::Sweep => {
                "no block-size series in these runs: `iomark run --profile sweep` measures one"
                    .into()
            }
            Kind::Surface => {
                "no surface scan in these runs: `iomark run --profile surface` makes one".into()
            }
            Kind::Health => "no health check among these: `iomark health PATH` makes one".into(),
            _ => format!("nothing to draw a {} chart from", kind.name()),
        }))
    }
}

/// The chart as an SVG document.
pub fn svg(kind: Kind, docs: &[&ResultDoc]) -> Result<String, ExportError> {
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

/// The chart as a PNG image.
pub fn png(kind: Kind, docs: &[&ResultDoc]) -> Result<Vec<u8>, ExportError> {
    use image::ImageEncoder;
    check(kind, docs)?;
    fonts();
    let (width, height) = size(kind, docs);
    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    {
        let root = glyphs::Glyphs::new(BitMapBackend::with_buffer(&mut rgb, (width, height)))
            .into_drawing_area();
        draw(&root, kind, docs)?;
        root.present().map_err(err)?;
    }
    let mut bytes = Vec::new();
    image::codecs::png::PngEncoder::new(&mut bytes)
        .write_image(&rgb, width, height, image::ColorType::Rgb8)
        .map_err(|e| ExportError::Encode(e.to_string()))?;
    Ok(bytes)
}

fn size(kind: Kind, docs: &[&ResultDoc]) -> (u32, u32) {
    match kind {
        Kind::Bars => {
            let tests = iomark_result::result::test_names(docs.iter().copied()).len() as u32;
            let per_test = 14 * docs.len() as u32 + 12;
            (WIDTH, 90 + tests * per_test.max(26) + legend_height(docs))
        }
        Kind::Histogram => (WIDTH, 420 + legend_height(docs)),
        Kind::Surface => (WIDTH, 560 + surface::strip_height(docs)),
        Kind::Card => (WIDTH, docs.first().map_or(400, |doc| card::height(doc))),
        Kind::Health => (WIDTH, health::HEIGHT),
        // A panel per test row, the title above and the key below.
        Kind::Timeline => (
            WIDTH,
            40 + frame::panels_height(timeline::rows(docs).len()) + frame::line_key_height(docs),
        ),
        Kind::Latency => (
            WIDTH,
            40 + frame::panels_height(frame::test_rows(docs).len()) + frame::line_key_height(docs),
        ),
        _ => (WIDTH, 420),
    }
}

pub(super) fn err<E: std::fmt::Display>(e: E) -> ExportError {
    ExportError::Draw(e.to_string())
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    kind: Kind,
    docs: &[&ResultDoc],
) -> Result<(), ExportError> {
    root.fill(&WHITE).map_err(err)?;
    match kind {
        Kind::Bars => bars::bars(root, docs),
        Kind::Timeline => timeline::timeline(root, docs),
        Kind::Latency => latency::latency(root, docs),
        Kind::Histogram => histogram::histogram(root, docs),
        Kind::Sweep => sweep::sweep(root, docs),
        Kind::Surface => surface::surface(root, docs),
        Kind::Card => card::card(root, docs[0]),
        Kind::Health => health::health(root, docs),
    }
}

/// "A", "B"… for runs in a comparison; nothing for a single run.
pub(super) fn run_tag(docs: &[&ResultDoc], i: usize) -> String {
    if docs.len() > 1 {
        format!("{} ", iomark_result::compare::letter(i))
    } else {
        String::new()
    }
}

pub(super) fn title(docs: &[&ResultDoc], what: &str) -> String {
    match docs {
        [doc] => format!("{what} · {}", describe(doc)),
        _ => format!("{what} · {} runs", docs.len()),
    }
}

pub(super) fn describe(doc: &ResultDoc) -> String {
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

#[cfg(test)]
mod tests {
    use super::frame::tick;
    use super::*;

    #[test]
    fn ticks_lose_floating_point_dust() {
        assert_eq!(tick(0.30000000000000004), "0.3");
        assert_eq!(tick(4000.0), "4000");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(0.375), "0.38");
    }

    #[test]
    fn log_axes_label_ones_twos_and_fives() {
        use super::frame::one_two_five;
        let labels: Vec<String> = [100.0, 200.0, 300.0, 500.0, 900.0, 1000.0, 2000.0, 0.5, 0.0]
            .into_iter()
            .map(one_two_five)
            .collect();
        assert_eq!(
            labels,
            ["100", "200", "", "500", "", "1000", "2000", "0.5", ""]
        );
    }

    #[test]
    fn a_sample_out_of_time_is_drawn_within_the_panel() {
        // Found by the fuzz target draw: a sample 2 * 10^15 s in, between two others, was
        // drawn at a pixel past what an i32 holds (an overflow in plotters). Imports refuse
        // such a timeline now; a store may hold one taken before.
        let mut doc = iomark_result::result::sample::doc();
        let test = doc.tests.iter_mut().find(|t| t.timeline.len() > 2).unwrap();
        test.timeline[1].t = 2e15;
        svg(Kind::Timeline, &[&doc]).unwrap();
        png(Kind::Timeline, &[&doc]).unwrap();
    }

    /// Every float of `doc` set to `to` (the document's JSON walked, read back as a document).
    fn every_figure(doc: &ResultDoc, to: f64) -> ResultDoc {
        fn walk(v: &mut serde_json::Value, to: f64) {
            match v {
                serde_json::Value::Number(n) if n.is_f64() => *v = serde_json::json!(to),
                serde_json::Value::Array(a) => a.iter_mut().for_each(|v| walk(v, to)),
                serde_json::Value::Object(o) => o.values_mut().for_each(|v| walk(v, to)),
                _ => {}
            }
        }
        let mut value = serde_json::to_value(doc).unwrap();
        walk(&mut value, to);
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn every_chart_of_the_largest_figures_is_drawn_at_once() {
        // Issue 59: a latency of about 1e308 made an axis that overflowed to infinity, and
        // its drawing never ended. Every figure at either end of what a float holds, in every
        // chart of one run and of two: each is drawn (or refused) within seconds.
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let samples = [
                iomark_result::result::sample::doc(),
                iomark_result::result::sample::surface_doc(4, 8),
            ];
            for sample in &samples {
                for to in [f64::MAX, -f64::MAX, f64::MIN_POSITIVE, 0.0, 1e300] {
                    let doc = every_figure(sample, to);
                    for kind in Kind::ALL {
                        let _ = svg(kind, &[&doc]);
                        let _ = svg(kind, &[&doc, sample]);
                        let _ = png(kind, &[&doc]);
                    }
                    // The report a site's result page is.
                    let _ = crate::Exporter::export(&crate::html::Html, &doc);
                }
            }
            done.send(()).unwrap();
        });
        match finished.recv_timeout(std::time::Duration::from_secs(120)) {
            Ok(()) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                panic!("the charts of the largest figures were still being drawn after 120 s")
            }
            Err(_) => panic!("drawing the charts of the largest figures panicked (above)"),
        }
    }

    #[test]
    fn every_chart_keeps_the_one_colour_rule() {
        // The colours a chart strokes and fills with, greys (axes, text) left out.
        fn colours(svg: &str) -> std::collections::BTreeSet<String> {
            svg.split('#')
                .skip(1)
                .filter_map(|rest| rest.get(..6))
                .filter(|hex| hex.chars().all(|c| c.is_ascii_hexdigit()))
                .map(|hex| hex.to_ascii_uppercase())
                .filter(|hex| !(hex[0..2] == hex[2..4] && hex[2..4] == hex[4..6]))
                .collect()
        }
        let hex = |c: RGBColor| format!("{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        let a = iomark_result::result::sample::doc();
        let mut b = a.clone();
        b.id = "01M8ZZZZZZZZZZZZZZZZZZZZZZ".into();
        let one: std::collections::BTreeSet<String> = [hex(READ), hex(WRITE)].into();
        let two: std::collections::BTreeSet<String> =
            [hex(frame::run_color(0)), hex(frame::run_color(1))].into();
        for kind in [Kind::Bars, Kind::Timeline, Kind::Latency] {
            // One run: read blue and write orange, and nothing else.
            let drawn = colours(&svg(kind, &[&a]).unwrap());
            assert!(
                drawn.is_subset(&one) && !drawn.is_empty(),
                "{kind:?}: {drawn:?}"
            );
            // Two runs: each its own colour, never read's or write's.
            let drawn = colours(&svg(kind, &[&a, &b]).unwrap());
            assert!(
                drawn.is_subset(&two) && drawn.len() == 2,
                "{kind:?}: {drawn:?}"
            );
        }
    }

    #[test]
    fn every_kind_draws_the_sample_or_says_what_is_missing() {
        let doc = iomark_result::result::sample::doc();
        for kind in [Kind::Bars, Kind::Timeline, Kind::Latency] {
            let svg = svg(kind, &[&doc]).unwrap();
            assert!(svg.starts_with("<svg") && svg.contains("<rect"), "{kind:?}");
        }
        // The sample is a standard run: no histogram, no block-size series.
        assert!(svg(Kind::Histogram, &[&doc])
            .unwrap_err()
            .to_string()
            .contains("--profile latency"));
        assert!(svg(Kind::Sweep, &[&doc])
            .unwrap_err()
            .to_string()
            .contains("--profile sweep"));
    }
}
