//! `/devices/KEY`: one device's figures by class and by board, every result, its distribution
//! as an SVG histogram, and published figures beside them.

use super::*;

pub struct Figure {
    pub label: String,
    pub unit: String,
    pub median: String,
    pub range: String,
    pub n: u64,
}

pub struct BoardRow {
    pub board: String,
    pub results: usize,
    pub cells: Vec<String>,
}

pub struct ResultLine {
    pub id: String,
    pub href: String,
    pub date: String,
    pub board: String,
    pub label: String,
    /// The profile's own figure (a score, the SD classes met), where it has one.
    pub headline: String,
    pub cells: Vec<String>,
    pub flag: String,
}

pub struct Tab {
    pub href: String,
    pub label: String,
    pub active: bool,
}

pub struct ReferenceLine {
    pub device: String,
    pub host: String,
    pub figures: String,
    pub source: String,
}

#[derive(Template)]
#[template(path = "device.html")]
pub struct DevicePage {
    pub title: String,
    pub facts: String,
    pub tabs: Vec<Tab>,
    pub figures: Vec<Figure>,
    pub chart: String,
    pub chart_label: String,
    pub columns: Vec<String>,
    pub boards: Vec<BoardRow>,
    pub results: Vec<ResultLine>,
    /// Whether any result has a headline: the column is shown only then.
    pub headlines: bool,
    /// The SD classes the results meet, most often met first, with how many: a card's verdict.
    pub verdicts: Vec<(String, usize)>,
    pub references: Vec<ReferenceLine>,
    pub api: String,
}

pub async fn device(
    State(state): State<Shared>,
    Path(key): Path<String>,
    Query(query): Query<DeviceQuery>,
) -> Result<Html<String>, Page> {
    let view = views::device_view(&state, &key, query.profile.as_deref()).await?;
    let present = metric::present(|c| view.results.iter().any(|e| e.figures.contains_key(c)));
    let metrics = metric::shown(&view.class, &present);
    let medians = |stats: &BTreeMap<String, Spread>| {
        stats
            .iter()
            .map(|(k, s)| (k.clone(), s.median))
            .collect::<BTreeMap<_, _>>()
    };
    let primary = metrics[0];
    let values: Vec<f64> = view
        .results
        .iter()
        .filter(|e| e.flag.is_none())
        .filter_map(|e| e.figures.get(primary.column).copied())
        .collect();
    let (label, unit) = (primary.label, primary.unit);
    let mut facts = vec![view.kind.clone()];
    facts.extend(view.transport.clone());
    if let Some(price) = view.price_usd {
        facts.push(format!("median price ${price:.2}"));
    }
    let page = DevicePage {
        headlines: view.results.iter().any(|e| e.headline.is_some()),
        verdicts: view.classes_met.clone(),
        title: view.name.clone(),
        facts: facts.join(" · "),
        tabs: view
            .classes
            .iter()
            .map(|(c, n)| Tab {
                href: format!("/devices/{}?profile={}", encode(&view.key), encode(c)),
                label: format!("{} ({n})", profile_label(c)),
                active: *c == view.class,
            })
            .collect(),
        figures: metrics
            .iter()
            .filter_map(|m| {
                let s = view.summary.get(m.column)?;
                Some(Figure {
                    label: m.label.into(),
                    unit: m.unit.into(),
                    median: figure(s.median),
                    range: range(s),
                    n: s.n,
                })
            })
            .collect(),
        chart: distribution_svg(&values, &format!("{label} ({unit})")),
        chart_label: format!("{label} ({unit}), one bar per range of results"),
        columns: metrics.iter().map(|m| m.label.to_string()).collect(),
        boards: view
            .boards
            .iter()
            .map(|b| BoardRow {
                board: b.board.clone(),
                results: b.results,
                cells: cells(&medians(&b.stats), &metrics),
            })
            .collect(),
        results: view
            .results
            .iter()
            .take(200)
            .map(|e| ResultLine {
                id: e.id.clone(),
                href: format!("/results/{}", encode(&e.id)),
                date: e.started_at.chars().take(10).collect(),
                board: e.board.clone().unwrap_or_default(),
                label: e.label.clone().unwrap_or_default(),
                headline: e.headline.clone().unwrap_or_default(),
                cells: cells(&e.figures, &metrics),
                flag: e.flag.clone().unwrap_or_default(),
            })
            .collect(),
        references: view
            .references
            .iter()
            .map(|r| ReferenceLine {
                device: r.device.into(),
                host: r.host.into(),
                figures: r
                    .figures
                    .iter()
                    .map(|(what, v, unit)| format!("{what} {} {unit}", figure(*v)))
                    .collect::<Vec<_>>()
                    .join(" · "),
                source: r.source.into(),
            })
            .collect(),
        api: format!(
            "/api/v1/devices/{}?profile={}",
            encode(&view.key),
            encode(&view.class)
        ),
    };
    render(&page)
}

/// A histogram of `values` as inline SVG, from `templates/histogram.svg` (presentation
/// attributes only: the pages' policy allows no inline style).
#[derive(Template)]
#[template(path = "histogram.svg", escape = "html")]
struct Histogram {
    label: String,
    /// x, y, width and height of each bar, formatted.
    bars: Vec<(String, String, String, String)>,
    lo: String,
    hi: String,
}

pub fn distribution_svg(values: &[f64], label: &str) -> String {
    const W: f64 = 600.0;
    const H: f64 = 160.0;
    const BINS: usize = 20;
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        });
    let mut bars = Vec::new();
    if !values.is_empty() {
        let width = (hi - lo).max(hi.abs() * 1e-9).max(1e-9);
        let mut bins = [0usize; BINS];
        for v in values {
            let i = (((v - lo) / width) * BINS as f64) as usize;
            bins[i.min(BINS - 1)] += 1;
        }
        let most = *bins.iter().max().unwrap_or(&1) as f64;
        let bar = W / BINS as f64;
        for (i, n) in bins.iter().enumerate() {
            let h = *n as f64 / most * (H - 10.0);
            bars.push((
                format!("{:.1}", i as f64 * bar + 1.0),
                format!("{:.1}", H - h),
                format!("{:.1}", bar - 2.0),
                format!("{h:.1}"),
            ));
        }
    }
    Histogram {
        label: label.to_string(),
        bars,
        lo: figure(lo),
        hi: figure(hi),
    }
    .render()
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_histogram_draws_twenty_bars_and_escapes_its_label() {
        let svg = distribution_svg(&[1.0, 2.0, 2.0, 3.0], "a <b> & \"c\"");
        assert_eq!(svg.matches("<rect ").count(), 20);
        assert!(!svg.contains("<b>"));
        assert!(
            svg.contains("aria-label=\"a &#60;b&#62; &#38; &#34;c&#34;\""),
            "{svg}"
        );
        assert!(svg.ends_with("</svg>"), "{svg}");
        let empty = distribution_svg(&[], "x");
        assert!(empty.contains("no ranked results") && !empty.contains("<rect"));
    }
}
