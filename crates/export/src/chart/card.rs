//! One run as a card to post: CrystalDiskMark's and KDiskMark's window, a row per test, the
//! read and write figures side by side as large numbers over a bar, the device above and the
//! method, host and run below. A langs run has a row per language beside the device's own; a
//! verify its write and read-back.
//!
//! The bars share one fixed logarithmic scale, 0.1 MB/s to 10 GB/s (a decade a fifth of the
//! cell), so that two cards posted side by side compare by eye: an SD card's 4K writes and an
//! NVMe drive's sequential reads both land inside it, and a bar never says "fast" only because
//! the run's other figures were slow.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::glyphs::{fit, wrap};
use super::*;
use iomark_profiles::{describe, headline};
use iomark_result::result::{rows, ResultDoc, TestResult};
use iomark_result::units::{format_micros, format_size};

const MARGIN: i32 = 16;
const HEADER: i32 = 100;
/// The label's line, where the run has one.
const LABEL_LINE: i32 = 24;
/// The profile's headline (the pi score, the SD classes met) and its sentence, where it has one.
const HEADLINE_BAND: i32 = 62;
const ROW: i32 = 74;
const GAP: i32 = 8;
/// The host, the run and the scale, then the method and the first warning over two lines each
/// where they need them.
const FOOTER: i32 = 126;
const LABEL_WIDTH: i32 = 180;

/// The bars' scale: 10^-1 to 10^4 MB/s.
const SCALE_MB_PER_S: (f64, f64) = (0.1, 10_000.0);

const INK: RGBColor = RGBColor(0x1a, 0x20, 0x2c);
const MUTED: RGBColor = RGBColor(0x4a, 0x55, 0x68);
const LABEL: RGBColor = RGBColor(0x2d, 0x37, 0x48);
const CELL: RGBColor = RGBColor(0xf1, 0xf4, 0xf8);
const EDGE: RGBColor = RGBColor(0xcb, 0xd5, 0xe1);

/// The most rows a card draws: iomark's profiles make at most seven, and a document made by
/// hand with a thousand tests drew a 10.8 MB picture (issue 22).
pub const MAX_ROWS: usize = 16;

pub(super) fn height(doc: &ResultDoc) -> u32 {
    let rows = lines(doc).len().min(MAX_ROWS) as i32;
    (header(doc) + rows * (ROW + GAP) + FOOTER) as u32
}

/// A row of the card: its label (a line or two) and what it read and wrote.
struct Line {
    first: String,
    second: String,
    read: Option<Figure>,
    write: Option<Figure>,
}

/// One cell's figure: the MB/s on the bar, and what is said under it.
struct Figure {
    mb_per_s: f64,
    detail: String,
}

impl Figure {
    fn of_test(t: &TestResult) -> Figure {
        Figure {
            mb_per_s: t.mb_per_s,
            detail: format!(
                "{:.0} IOPS · p99 {}",
                t.iops,
                format_micros(t.latency_us.p99)
            ),
        }
    }
}

/// What the card draws: a langs run's languages, then the device's own tests; a verify's
/// write and read-back; else a row per test.
fn lines(doc: &ResultDoc) -> Vec<Line> {
    let mut out = Vec::new();
    if let Some(langs) = &doc.langs {
        for r in &langs.results {
            let op = |f: &iomark_result::result::langs::OpFigures| Figure {
                mb_per_s: f.mb_per_s,
                detail: format!("{:.2} ns/B · {:.1} MiB/s", f.ns_per_byte, f.mib_per_s),
            };
            out.push(Line {
                first: r.lang.clone(),
                second: r.variant.clone(),
                read: Some(op(&r.read)),
                write: Some(op(&r.write)),
            });
        }
    }
    if let Some(v) = &doc.verify {
        let figure =
            |rate: Option<f64>, detail: String| rate.map(|mb_per_s| Figure { mb_per_s, detail });
        out.push(Line {
            first: "VERIFY".into(),
            second: v.mode.clone(),
            read: figure(
                v.read_mb_per_s,
                format!("{} read back intact", format_size(v.good_bytes)),
            ),
            write: figure(
                v.write_mb_per_s,
                format!("{} written", format_size(v.written_bytes)),
            ),
        });
    }
    for row in rows(&doc.tests) {
        let (first, second) = row.name.split_once('_').unwrap_or((&row.name, ""));
        out.push(Line {
            first: first.into(),
            second: second.replace('_', " "),
            read: row.read.map(Figure::of_test),
            write: row.write.map(Figure::of_test),
        });
    }
    out
}

/// Whether the card has anything to draw for `doc`.
pub(super) fn drawable(doc: &ResultDoc) -> bool {
    !lines(doc).is_empty()
}

fn header(doc: &ResultDoc) -> i32 {
    HEADER
        + if doc.label.is_some() { LABEL_LINE } else { 0 }
        + if headline(doc).is_some() {
            HEADLINE_BAND
        } else {
            0
        }
}

/// How much of a cell the bar for `mb_per_s` fills: each decade of the scale a fifth.
pub(super) fn bar_fraction(mb_per_s: f64) -> f64 {
    let (low, high) = SCALE_MB_PER_S;
    if mb_per_s.is_nan() || mb_per_s <= low {
        return 0.0;
    }
    ((mb_per_s / low).log10() / (high / low).log10()).clamp(0.0, 1.0)
}

/// Text on the card: a string at a place, in a style.
struct Pen<'a, DB: DrawingBackend> {
    root: &'a DrawingArea<DB, Shift>,
}

impl<DB: DrawingBackend> Pen<'_, DB> {
    fn text(&self, s: String, at: (i32, i32), style: TextStyle) -> Result<(), ExportError> {
        self.root.draw(&Text::new(s, at, style)).map_err(err)
    }
}

fn font(size: u32, style: FontStyle, color: RGBColor, pos: Pos) -> TextStyle<'static> {
    (FONT, size).into_font().style(style).color(&color).pos(pos)
}

const LEFT_TOP: Pos = Pos {
    h_pos: HPos::Left,
    v_pos: VPos::Top,
};
const RIGHT_TOP: Pos = Pos {
    h_pos: HPos::Right,
    v_pos: VPos::Top,
};

pub(super) fn card<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    doc: &ResultDoc,
) -> Result<(), ExportError> {
    let (width, height) = root.dim_in_pixel();
    let (width, height) = (width as i32, height as i32);
    let right = width - MARGIN;
    let pen = Pen { root };
    let y = heading(&pen, doc, right)?;
    test_rows(&pen, doc, right, y)?;
    footer(&pen, doc, right, height)
}

/// The device, and how it was measured; returns where the method line is.
fn heading<DB: DrawingBackend>(
    pen: &Pen<DB>,
    doc: &ResultDoc,
    right: i32,
) -> Result<i32, ExportError> {
    pen.text(
        "iomark".into(),
        (MARGIN, 12),
        font(26, FontStyle::Bold, READ, LEFT_TOP),
    )?;
    let device = describe::device_line(doc).unwrap_or_else(|| doc.device_label());
    pen.text(
        fit(&device, 18, true, right - 130 - 150),
        (130, 16),
        font(18, FontStyle::Bold, INK, LEFT_TOP),
    )?;
    // The user's label on a line of its own, under the device.
    let mut y = 50;
    if let Some(label) = &doc.label {
        pen.text(
            fit(&format!("“{label}”"), 15, true, right - MARGIN),
            (MARGIN, y),
            font(15, FontStyle::Bold, INK, LEFT_TOP),
        )?;
        y += LABEL_LINE;
    }
    if let Some(headline) = headline(doc) {
        pen.text(
            fit(&headline.short, 18, true, right - MARGIN),
            (MARGIN, y),
            font(18, FontStyle::Bold, READ, LEFT_TOP),
        )?;
        // The sentence over at most two lines.
        let (first, rest) = wrap(&headline.sentence, 13, false, right - MARGIN);
        for (i, line) in [first, rest].into_iter().enumerate() {
            pen.text(
                fit(&line, 13, false, right - MARGIN),
                (MARGIN, y + 24 + 17 * i as i32),
                font(13, FontStyle::Normal, INK, LEFT_TOP),
            )?;
        }
        y += HEADLINE_BAND;
    }
    pen.text(
        describe::when(doc),
        (right, 19),
        font(13, FontStyle::Normal, MUTED, RIGHT_TOP),
    )?;
    Ok(y)
}

/// `text` over at most two lines of `room` pixels at `size`, the second cut if it must be.
fn two_lines(text: &str, size: u32, bold: bool, room: i32) -> Vec<String> {
    let (first, rest) = wrap(text, size, bold, room);
    match (first.is_empty(), rest.is_empty()) {
        // One word wider than the line.
        (true, _) => vec![fit(text, size, bold, room)],
        (false, true) => vec![first],
        (false, false) => vec![first, fit(&rest, size, bold, room)],
    }
}

/// The columns, then a row per test.
fn test_rows<DB: DrawingBackend>(
    pen: &Pen<DB>,
    doc: &ResultDoc,
    right: i32,
    y: i32,
) -> Result<(), ExportError> {
    let cell_width = (right - (MARGIN + LABEL_WIDTH + GAP) - GAP) / 2;
    let read_x = MARGIN + LABEL_WIDTH + GAP;
    let write_x = read_x + cell_width + GAP;
    for (x, name) in [(read_x, "Read (MB/s)"), (write_x, "Write (MB/s)")] {
        pen.text(
            name.into(),
            (x + cell_width / 2, y + 26),
            font(15, FontStyle::Bold, INK, Pos::new(HPos::Center, VPos::Top)),
        )?;
    }
    let first_row = header(doc);
    for (i, row) in lines(doc).iter().take(MAX_ROWS).enumerate() {
        let top = first_row + i as i32 * (ROW + GAP);
        pen.root
            .draw(&Rectangle::new(
                [(MARGIN, top), (MARGIN + LABEL_WIDTH, top + ROW)],
                LABEL.filled(),
            ))
            .map_err(err)?;
        // `SEQ1M_Q8T1` over two lines, as CrystalDiskMark labels its buttons.
        let centre = MARGIN + LABEL_WIDTH / 2;
        let labels: &[(&str, u32, FontStyle, i32)] = if row.second.is_empty() {
            &[(&row.first, 20, FontStyle::Bold, ROW / 2)]
        } else {
            &[
                (&row.first, 20, FontStyle::Bold, ROW / 2 - 11),
                (&row.second, 15, FontStyle::Normal, ROW / 2 + 14),
            ]
        };
        for &(line, size, style, y) in labels {
            pen.text(
                fit(line, size, true, LABEL_WIDTH - 12),
                (centre, top + y),
                font(size, style, WHITE, Pos::new(HPos::Center, VPos::Center)),
            )?;
        }
        for (x, figure, color) in [
            (read_x, row.read.as_ref(), READ),
            (write_x, row.write.as_ref(), WRITE),
        ] {
            cell(pen.root, (x, top), cell_width, figure, color)?;
        }
    }

    Ok(())
}

/// The host and the run, and anything the run warned of.
fn footer<DB: DrawingBackend>(
    pen: &Pen<DB>,
    doc: &ResultDoc,
    right: i32,
    height: i32,
) -> Result<(), ExportError> {
    let host = [
        doc.host
            .board
            .clone()
            .or_else(|| doc.host.cpu_model.clone()),
        doc.host.kernel.as_deref().map(|k| format!("Linux {k}")),
        Some(doc.host.arch.clone()),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" · ");
    let id = doc.id.get(..10).unwrap_or(&doc.id);
    let bottom = height - FOOTER + 12;
    let method = format!(
        "{} profile · {}{}",
        doc.settings.profile,
        doc.target
            .filesystem
            .as_deref()
            .map(|fs| format!("{fs} · "))
            .unwrap_or_default(),
        describe::method_line(doc)
    );
    for (i, line) in two_lines(&method, 12, false, right - MARGIN)
        .into_iter()
        .enumerate()
    {
        pen.text(
            line,
            (MARGIN, bottom + 16 * i as i32),
            font(12, FontStyle::Normal, MUTED, LEFT_TOP),
        )?;
    }
    let bottom = bottom + 36;
    pen.text(
        fit(&format!("host {host}"), 12, false, right - MARGIN),
        (MARGIN, bottom),
        font(12, FontStyle::Normal, MUTED, LEFT_TOP),
    )?;
    pen.text(
        format!(
            "iomark {} · run {id} · MB/s = 10⁶ bytes/s, median loop · bars: log scale, 0.1 MB/s to 10 GB/s",
            doc.tool.version
        ),
        (MARGIN, bottom + 18),
        font(12, FontStyle::Normal, MUTED, LEFT_TOP),
    )?;
    if let Some(first) = doc.warnings.first() {
        let more = match doc.warnings.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        let warning = format!("⚠ {}{more}", first.message);
        for (i, line) in two_lines(&warning, 12, true, right - MARGIN)
            .into_iter()
            .enumerate()
        {
            pen.text(
                line,
                (MARGIN, bottom + 36 + 16 * i as i32),
                font(12, FontStyle::Bold, WRITE, LEFT_TOP),
            )?;
        }
    }
    Ok(())
}

/// One figure: its bar on the shared scale, the MB/s large, IOPS and p99 latency below it.
fn cell<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (x, top): (i32, i32),
    width: i32,
    figure: Option<&Figure>,
    color: RGBColor,
) -> Result<(), ExportError> {
    let bottom = top + ROW;
    root.draw(&Rectangle::new(
        [(x, top), (x + width, bottom)],
        CELL.filled(),
    ))
    .map_err(err)?;
    let Some(t) = figure else {
        root.draw(&Rectangle::new([(x, top), (x + width, bottom)], EDGE))
            .map_err(err)?;
        return root
            .draw(&Text::new(
                "not run",
                (x + width / 2, top + ROW / 2),
                (FONT, 15)
                    .into_font()
                    .color(&MUTED)
                    .pos(Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(err);
    };
    let filled = (bar_fraction(t.mb_per_s) * width as f64).round() as i32;
    if filled > 0 {
        root.draw(&Rectangle::new(
            [(x, top), (x + filled, bottom)],
            color.mix(0.22).filled(),
        ))
        .map_err(err)?;
        root.draw(&Rectangle::new(
            [(x, bottom - 5), (x + filled, bottom)],
            color.filled(),
        ))
        .map_err(err)?;
    }
    root.draw(&Rectangle::new([(x, top), (x + width, bottom)], EDGE))
        .map_err(err)?;
    root.draw(&Text::new(
        format!("{:.2}", t.mb_per_s),
        (x + width - 12, top + 26),
        (FONT, 30)
            .into_font()
            .style(FontStyle::Bold)
            .color(&INK)
            .pos(Pos::new(HPos::Right, VPos::Center)),
    ))
    .map_err(err)?;
    root.draw(&Text::new(
        t.detail.clone(),
        (x + width - 12, top + 56),
        (FONT, 12)
            .into_font()
            .color(&MUTED)
            .pos(Pos::new(HPos::Right, VPos::Center)),
    ))
    .map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_decade_is_a_fifth_of_the_bar() {
        assert_eq!(bar_fraction(0.05), 0.0);
        assert_eq!(bar_fraction(f64::NAN), 0.0);
        assert!((bar_fraction(1.0) - 0.2).abs() < 1e-12);
        assert!((bar_fraction(100.0) - 0.6).abs() < 1e-12);
        assert!((bar_fraction(10_000.0) - 1.0).abs() < 1e-12);
        assert_eq!(bar_fraction(50_000.0), 1.0);
    }
}
