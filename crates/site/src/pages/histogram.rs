//! A device's distribution as inline SVG (`templates/histogram.svg`): twenty bars over round
//! figures on a labelled axis, how many results each bar holds on the other, and lines that
//! mark the median and the viewer's own result. Presentation attributes only: the pages'
//! policy allows no inline style.

use askama::Template;

use super::figure;

/// A value to mark with a line and a label above the bars.
pub struct Mark {
    pub label: String,
    pub value: f64,
    /// The viewer's own result (drawn in its own colour), else the median.
    pub mine: bool,
}

#[derive(Template)]
#[template(path = "histogram.svg", escape = "html")]
struct Histogram {
    label: String,
    axis: String,
    /// x, y, width and height of each bar, formatted.
    bars: Vec<(String, String, String, String)>,
    /// The x axis' ticks: position and label.
    ticks: Vec<(String, String)>,
    /// The count axis' ticks: position and label.
    counts: Vec<(String, String)>,
    marks: Vec<MarkLine>,
}

/// A mark as drawn: its line from just under its label down to the axis.
struct MarkLine {
    x: String,
    label_x: String,
    label_y: String,
    top: String,
    colour: &'static str,
    dashes: &'static str,
    text: String,
}

const LEFT: f64 = 44.0;
const RIGHT: f64 = 456.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 170.0;
const BINS: usize = 20;

/// A step of 1, 2 or 5 times a power of ten that cuts `span` into about five.
fn step(span: f64) -> f64 {
    let rough = span / 5.0;
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * power)
}

/// The axis' ends and step: round figures around `lo`..`hi`, a span around a single value.
fn domain(lo: f64, hi: f64) -> (f64, f64, f64) {
    let span = if hi > lo {
        hi - lo
    } else {
        (hi.abs() * 0.2).max(1.0)
    };
    let step = step(span);
    let mut start = (lo / step).floor() * step;
    let mut end = (hi / step).ceil() * step;
    if end - start < step {
        start -= step;
        end += step;
    }
    (start.max(0.0).min(lo), end, step)
}

/// A tick's figure, with as many decimals as its step needs.
fn tick_label(value: f64, step: f64) -> String {
    if step >= 1.0 {
        // Whole numbers, with thousands separated as in the tables.
        figure(value.round())
            .to_string()
            .split('.')
            .next()
            .unwrap_or_default()
            .to_string()
    } else {
        let places = (-step.log10()).ceil().max(0.0) as usize;
        format!("{value:.places$}")
    }
}

/// `values` (one result each) drawn as a histogram labelled `label` (`SEQ1M Q8T1 read`), its
/// axis in `unit`, with `marks`.
pub fn distribution_svg(values: &[f64], label: &str, unit: &str, marks: &[Mark]) -> String {
    let mut page = Histogram {
        label: format!("{label} ({unit}), one bar per range of results"),
        axis: format!("{label} ({unit})"),
        bars: Vec::new(),
        ticks: Vec::new(),
        counts: Vec::new(),
        marks: Vec::new(),
    };
    let finite = |v: &&f64| v.is_finite();
    let all: Vec<f64> = values
        .iter()
        .chain(marks.iter().map(|m| &m.value))
        .filter(finite)
        .copied()
        .collect();
    if !values.is_empty() && !all.is_empty() {
        let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (start, end, step) = domain(lo, hi);
        let x = |v: f64| LEFT + (v - start) / (end - start) * (RIGHT - LEFT);
        let mut bins = [0usize; BINS];
        for v in values.iter().filter(finite) {
            let i = ((v - start) / (end - start) * BINS as f64) as usize;
            bins[i.min(BINS - 1)] += 1;
        }
        let most = bins.iter().copied().max().unwrap_or(1).max(1);
        let y = |n: usize| BOTTOM - n as f64 / most as f64 * (BOTTOM - TOP);
        let width = (RIGHT - LEFT) / BINS as f64;
        for (i, n) in bins.iter().enumerate() {
            page.bars.push((
                format!("{:.1}", LEFT + i as f64 * width + 1.0),
                format!("{:.1}", y(*n)),
                format!("{:.1}", width - 2.0),
                format!("{:.1}", BOTTOM - y(*n)),
            ));
        }
        let mut tick = start;
        while tick <= end + step * 1e-6 {
            page.ticks
                .push((format!("{:.1}", x(tick)), tick_label(tick, step)));
            tick += step;
        }
        let mut counts = vec![0, most];
        if most >= 4 {
            counts.insert(1, most / 2);
        }
        for n in counts {
            page.counts.push((format!("{:.1}", y(n)), n.to_string()));
        }
        for (row, m) in marks.iter().filter(|m| m.value.is_finite()).enumerate() {
            let at = x(m.value);
            let label_y = 13.0 + 14.0 * row as f64;
            page.marks.push(MarkLine {
                x: format!("{at:.1}"),
                label_x: format!("{:.1}", at.clamp(LEFT + 50.0, RIGHT - 40.0)),
                label_y: format!("{label_y:.1}"),
                top: format!("{:.1}", label_y + 4.0),
                colour: if m.mine { "#c2410c" } else { "#1d2127" },
                dashes: if m.mine { "none" } else { "4 3" },
                text: format!("{} {}", m.label, figure(m.value)),
            });
        }
    }
    page.render().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_histogram_has_axes_marks_and_an_escaped_label() {
        let mine = Mark {
            label: "yours".into(),
            value: 2.5,
            mine: true,
        };
        let svg = distribution_svg(&[1.0, 2.0, 2.0, 3.0], "a <b> & \"c\"", "MB/s", &[mine]);
        assert_eq!(svg.matches("<rect ").count(), 20);
        assert!(!svg.contains("<b>"));
        assert!(
            svg.contains("aria-label=\"a &#60;b&#62; &#38; &#34;c&#34; (MB/s)"),
            "{svg}"
        );
        // Round ticks from 1 to 3 (a step of 0.5), the count axis, the mark labelled.
        for tick in [">1.0<", ">1.5<", ">3.0<", ">results<", ">yours 2.50<"] {
            assert!(svg.contains(tick), "{tick}: {svg}");
        }
        assert!(svg.contains("stroke=\"#c2410c\""), "{svg}");
        assert!(svg.ends_with("</svg>"), "{svg}");
        let empty = distribution_svg(&[], "x", "MB/s", &[]);
        assert!(empty.contains("no ranked results") && !empty.contains("<rect"));
        // One value alone still has an axis around it.
        let one = distribution_svg(&[240.0], "x", "MB/s", &[]);
        assert!(one.contains(">230<") && one.contains(">250<"), "{one}");
        let many = distribution_svg(&[1200.0, 9800.0], "x", "IOPS", &[]);
        assert!(many.contains(">0<") && many.contains(">10,000<"), "{many}");
    }

    #[test]
    fn steps_are_round() {
        assert_eq!(step(100.0), 20.0);
        assert_eq!(step(7.0), 2.0);
        assert!((step(0.3) - 0.1).abs() < 1e-12);
        assert_eq!(domain(12.0, 97.0), (0.0, 100.0, 20.0));
    }
}
