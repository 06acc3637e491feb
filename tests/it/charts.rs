//! Every kind of chart, drawn as PNG from documents of real runs and compared with its golden
//! picture in `tests/golden/charts/`, so that a change to how a chart looks shows in a test.
//!
//! The documents (`*.json` there) are runs of this project's virtual disk: `standard` and
//! `standard-b` (`--size 256MiB --loops 2 --duration 1s`, the second labelled), `latency`
//! (`--count 2000`), `sweep` (`--size 256MiB --duration 300ms`) and `surface` (`--size 256MiB
//! --samples 50 --count 200`). PNG text is drawn by iomark with the font compiled in, so a
//! chart comes out the same on any machine; a few pixels may still move where anti-aliasing
//! rounds differently, hence the tolerance.
//!
//! Each picture was looked at before it was kept. `IOMARK_BLESS=1 cargo test charts` rewrites
//! them; do that only for a change to a chart that is meant, and look at the new ones.
//! On a failure, the chart as drawn now is left in `target/chart-diff/`.

use std::path::{Path, PathBuf};

use iomark::export::chart::{png, Kind};
use iomark::result::ResultDoc;

/// At most this share of pixels may differ (by more than [`CHANNEL`] in a colour channel): a
/// changed label or moved line differs in far more. A looser test (0.2% of pixels, by 64) let
/// a card's figure fall by a third unseen: its bar is a light tint, near the cell's own colour.
const TOLERANCE: f64 = 0.0005;
const CHANNEL: u8 = 16;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/charts")
}

fn doc(name: &str) -> ResultDoc {
    let text = std::fs::read_to_string(golden_dir().join(format!("{name}.json"))).unwrap();
    ResultDoc::from_json(&text).unwrap()
}

/// The pixels of a PNG, as RGB rows, and its size.
fn pixels(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "iomark writes RGB");
    buffer.truncate(info.buffer_size());
    (info.width, info.height, buffer)
}

/// The share of pixels that differ, or `None` when the sizes differ.
fn difference(a: &[u8], b: &[u8]) -> Option<f64> {
    let (wa, ha, pa) = pixels(a);
    let (wb, hb, pb) = pixels(b);
    if (wa, ha) != (wb, hb) {
        return None;
    }
    let differing = pa
        .chunks(3)
        .zip(pb.chunks(3))
        .filter(|(x, y)| {
            x.iter()
                .zip(y.iter())
                .any(|(p, q)| p.abs_diff(*q) > CHANNEL)
        })
        .count();
    Some(differing as f64 / (wa as f64 * ha as f64))
}

fn check(name: &str, drawn: &[u8]) {
    let golden = golden_dir().join(format!("{name}.png"));
    if std::env::var_os("IOMARK_BLESS").is_some() {
        std::fs::write(&golden, drawn).unwrap();
        return;
    }
    let kept = std::fs::read(&golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
    let share = difference(&kept, drawn);
    if share.is_none_or(|s| s > TOLERANCE) {
        let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/chart-diff");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join(format!("{name}.png")), drawn).unwrap();
        panic!(
            "{name}: the chart drawn now differs from {} ({}); it is in {}",
            golden.display(),
            match share {
                Some(s) => format!("{:.2}% of pixels", s * 100.0),
                None => "another size".into(),
            },
            out.display()
        );
    }
}

#[test]
fn every_kind_of_chart_looks_as_it_did() {
    let standard = doc("standard");
    let second = doc("standard-b");
    let latency = doc("latency");
    let sweep = doc("sweep");
    let surface = doc("surface");
    // Six health checks of one folder a minute or so apart, the last after a canary changed.
    let text = std::fs::read_to_string(golden_dir().join("health.json")).unwrap();
    let checks: Vec<ResultDoc> = serde_json::from_str::<Vec<serde_json::Value>>(&text)
        .unwrap()
        .iter()
        .map(|d| ResultDoc::from_json(&d.to_string()).unwrap())
        .collect();
    let charts: [(&str, Kind, Vec<&ResultDoc>); 12] = [
        ("bars", Kind::Bars, vec![&standard]),
        ("bars-compare", Kind::Bars, vec![&standard, &second]),
        ("timeline", Kind::Timeline, vec![&standard]),
        ("latency", Kind::Latency, vec![&standard]),
        // A comparison: each run its colour and its letter in the key, a panel per test row.
        ("timeline-compare", Kind::Timeline, vec![&standard, &second]),
        ("latency-compare", Kind::Latency, vec![&standard, &second]),
        // Seven block sizes, seven panels: no colour has to tell tests apart.
        ("timeline-sweep", Kind::Timeline, vec![&sweep]),
        ("histogram", Kind::Histogram, vec![&latency]),
        ("sweep", Kind::Sweep, vec![&sweep]),
        ("surface", Kind::Surface, vec![&surface]),
        ("card", Kind::Card, vec![&second]),
        ("health", Kind::Health, checks.iter().collect()),
    ];
    for (name, kind, docs) in charts {
        check(name, &png(kind, &docs).unwrap());
    }
}

#[test]
fn the_comparison_would_see_one_figure_changed() {
    // The same card with one figure a third lower: its number and bar move, and the test of
    // the golden pictures would say so.
    let mut changed = doc("standard-b");
    let drawn = png(Kind::Card, &[&changed]).unwrap();
    changed.tests[0].mb_per_s *= 0.66;
    let moved = png(Kind::Card, &[&changed]).unwrap();
    let share = difference(&drawn, &moved).unwrap();
    assert!(share > TOLERANCE, "{share}");
    assert_eq!(difference(&drawn, &drawn), Some(0.0));
}
