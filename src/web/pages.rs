//! The HTML pages, rendered from the templates in `templates/` (askama: checked when iomark is
//! compiled, and escaping every value unless it is marked safe; the only values marked safe
//! are the SVG histogram and the report, themselves drawn from templates).

use std::collections::BTreeMap;

use askama::Template;
use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};

use super::api::{self, DeviceQuery};
use super::views::{self, metric_label, BoardQuery, Failure};
use super::Shared;
use crate::result::identity::KINDS;
use crate::store::site::{Spread, METRICS};

/// A failure answered as a page.
pub struct Page(pub Failure);

impl<E: Into<Failure>> From<E> for Page {
    fn from(e: E) -> Page {
        Page(e.into())
    }
}

impl IntoResponse for Page {
    fn into_response(self) -> Response {
        self.0.respond(false)
    }
}

fn render(template: &impl Template) -> Result<Html<String>, Page> {
    template.render().map(Html).map_err(|e| {
        Page(Failure::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the page could not be drawn: {e}"),
        ))
    })
}

#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage {
    pub title: String,
    pub reason: String,
}

pub struct Choice {
    pub value: String,
    pub label: String,
    pub selected: bool,
}

pub struct BoardLine {
    pub rank: usize,
    pub href: String,
    pub name: String,
    pub kind: String,
    pub results: i64,
    pub median: String,
    pub range: String,
    pub price: String,
    pub per_gb: String,
    pub per_usd: String,
}

#[derive(Template)]
#[template(path = "leaderboard.html")]
pub struct LeaderboardPage {
    pub title: String,
    pub q: String,
    pub transport: String,
    pub board: String,
    pub fs: String,
    pub profiles: Vec<Choice>,
    pub boards: Vec<String>,
    pub filesystems: Vec<String>,
    pub sorts: Vec<Choice>,
    pub kinds: Vec<Choice>,
    pub class: String,
    pub sort_label: String,
    pub unit: String,
    pub lines: Vec<BoardLine>,
    pub recent: Vec<RecentLine>,
    /// The same leaderboard with more devices, when this one may have cut some.
    pub more: Option<String>,
    pub api: String,
}

/// A result in the list of the newest.
pub struct RecentLine {
    pub href: String,
    pub date: String,
    pub device: String,
    pub class: String,
    pub label: String,
    pub figure: String,
    pub note: String,
}

/// A figure as the tables print it: three significant digits, thousands for IOPS.
pub fn figure(value: f64) -> String {
    if !value.is_finite() {
        "–".into()
    } else if value >= 1000.0 {
        let whole = format!("{:.0}", value);
        let mut out = String::new();
        for (i, c) in whole.chars().enumerate() {
            if i > 0 && (whole.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    } else if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

fn range(s: &Spread) -> String {
    if s.n < 2 {
        "one result".into()
    } else {
        format!("{}–{}", figure(s.p25), figure(s.p75))
    }
}

fn money(value: Option<f64>, places: usize) -> String {
    value
        .map(|v| format!("${v:.places$}"))
        .unwrap_or_else(|| "–".into())
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn profile_label(class: &str) -> String {
    let mut parts = class.split('/');
    let profile = parts.next().unwrap_or(class);
    let rest: Vec<&str> = parts.collect();
    if rest == ["direct", "random"] {
        profile.to_string()
    } else {
        format!("{profile} ({})", rest.join(", "))
    }
}

pub async fn leaderboard(
    State(state): State<Shared>,
    RawQuery(raw_query): RawQuery,
    Query(mut query): Query<BoardQuery>,
) -> Result<Html<String>, Page> {
    // A page lists 50 devices unless asked for more (`limit`, up to 500); the API 100.
    let raw_query = raw_query.unwrap_or_default();
    query.limit = query.limit.or(Some(50));
    let filter = query.filter(state.config.show_synthetic)?;
    let rows = state.store.leaderboard(&filter).await?;
    let offered = state
        .choices
        .get(&state.store, &filter.class, state.config.show_synthetic)
        .await?;
    let mut classes = offered.classes.clone();
    if !classes.iter().any(|(c, _)| *c == filter.class) {
        classes.push((filter.class.clone(), 0));
    }
    let board = views::leaderboard(&filter, rows);
    let recent = state
        .store
        .recent(10, state.config.show_synthetic)
        .await?
        .into_iter()
        .map(|e| RecentLine {
            href: format!("/results/{}", encode(&e.id)),
            date: e.started_at.chars().take(10).collect(),
            class: profile_label(&e.class),
            label: e.label.clone().unwrap_or_default(),
            figure: e
                .figures
                .get("seq1m_q8_read")
                .map(|v| format!("{} MB/s", figure(*v)))
                .unwrap_or_else(|| "–".into()),
            note: match (&e.flag, &e.device_key) {
                (Some(flag), _) => format!("not ranked: {flag}"),
                (None, None) => "not ranked: the result names no device model".into(),
                _ => String::new(),
            },
            device: e.device_name,
        })
        .collect();
    let lines = board
        .devices
        .iter()
        .map(|d| BoardLine {
            rank: d.rank,
            href: format!(
                "/devices/{}?profile={}",
                encode(&d.device.key),
                encode(&board.class)
            ),
            name: d.device.name.clone(),
            kind: d.device.kind.clone(),
            results: d.device.results,
            median: figure(d.figure.median),
            range: range(&d.figure),
            price: money(d.device.price_usd, 2),
            per_gb: money(d.usd_per_gb, 3),
            per_usd: d.mb_per_s_per_usd.map(figure).unwrap_or_else(|| "–".into()),
        })
        .collect();
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let page = LeaderboardPage {
        title: format!("Leaderboard: {}", profile_label(&board.class)),
        q: text(&query.q),
        transport: text(&query.transport),
        board: text(&query.board),
        fs: text(&query.fs),
        boards: offered.boards,
        filesystems: offered.filesystems,
        profiles: classes
            .iter()
            .map(|(c, n)| Choice {
                value: c.clone(),
                label: format!("{} · {n} devices", profile_label(c)),
                selected: *c == board.class,
            })
            .collect(),
        sorts: METRICS
            .iter()
            .map(|m| {
                let (label, unit) = metric_label(m);
                Choice {
                    value: m.to_string(),
                    label: format!("{label} ({unit})"),
                    selected: *m == board.sort,
                }
            })
            .collect(),
        kinds: std::iter::once(("", "any kind"))
            .chain(KINDS.iter().map(|k| (*k, *k)))
            .map(|(value, label)| Choice {
                value: value.into(),
                label: label.into(),
                selected: filter.kind.as_deref().unwrap_or("") == value,
            })
            .collect(),
        api: format!(
            "/api/v1/leaderboard?profile={}&sort={}",
            encode(&board.class),
            board.sort
        ),
        class: board.class,
        sort_label: board.sort_label,
        unit: board.unit.into(),
        lines,
        recent,
        more: (board.devices.len() as u32 >= filter.limit && filter.limit < 500).then(|| {
            let mut next: Vec<(String, String)> = form_urlencoded::parse(raw_query.as_bytes())
                .filter(|(k, _)| k != "limit")
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            next.push(("limit".into(), (filter.limit * 4).min(500).to_string()));
            let query: String = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(next)
                .finish();
            format!("/?{query}")
        }),
    };
    render(&page)
}

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
    pub references: Vec<ReferenceLine>,
    pub api: String,
}

/// The figures a device page's tables show: the standard eight, or the score for pi.
fn shown_metrics(class: &str) -> Vec<&'static str> {
    if class.starts_with("pi/") {
        vec![
            "score",
            "seq1m_q8_read",
            "seq1m_q8_write",
            "rnd4k_q1_read",
            "rnd4k_q1_write",
        ]
    } else {
        METRICS[..8].to_vec()
    }
}

fn cells(stats: &BTreeMap<String, f64>, metrics: &[&str]) -> Vec<String> {
    metrics
        .iter()
        .map(|m| {
            stats
                .get(*m)
                .map(|v| figure(*v))
                .unwrap_or_else(|| "–".into())
        })
        .collect()
}

pub async fn device(
    State(state): State<Shared>,
    Path(key): Path<String>,
    Query(query): Query<DeviceQuery>,
) -> Result<Html<String>, Page> {
    let view = api::device_view(&state, &key, query.profile.as_deref()).await?;
    let metrics = shown_metrics(&view.class);
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
        .filter_map(|e| e.figures.get(primary).copied())
        .collect();
    let (label, unit) = metric_label(primary);
    let mut facts = vec![view.kind.clone()];
    facts.extend(view.transport.clone());
    if let Some(price) = view.price_usd {
        facts.push(format!("median price ${price:.2}"));
    }
    let page = DevicePage {
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
                let s = view.summary.get(*m)?;
                let (label, unit) = metric_label(m);
                Some(Figure {
                    label,
                    unit: unit.into(),
                    median: figure(s.median),
                    range: range(s),
                    n: s.n,
                })
            })
            .collect(),
        chart: distribution_svg(&values, &format!("{label} ({unit})")),
        chart_label: format!("{label} ({unit}), one bar per range of results"),
        columns: metrics.iter().map(|m| metric_label(m).0).collect(),
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

/// The site's links above a result's report, and why it is not ranked.
#[derive(Template)]
#[template(path = "result_nav.html")]
struct ResultNav {
    device: Option<(String, String)>,
    json: String,
    card: String,
    flag: Option<String>,
}

pub async fn result(State(state): State<Shared>, Path(id): Path<String>) -> Result<Response, Page> {
    let (entry, doc) = views::visible_result(&state, &id).await?;
    use crate::export::Exporter;
    let report = crate::export::html::Html.export(&doc).map_err(|e| {
        Failure::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the report could not be drawn: {e}"),
        )
    })?;
    let report = String::from_utf8_lossy(&report).to_string();
    let banner = ResultNav {
        device: entry.device_key.as_ref().map(|key| {
            (
                format!("/devices/{}?profile={}", encode(key), encode(&entry.class)),
                entry.device_name.clone(),
            )
        }),
        json: format!("/api/v1/results/{}", encode(&entry.id)),
        card: format!("/results/{}/card.png", encode(&entry.id)),
        flag: entry.flag.clone(),
    }
    .render()
    .map_err(|e| {
        Failure::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the page could not be drawn: {e}"),
        )
    })?;
    let body = report.replacen("<body>\n", &format!("<body>\n{banner}"), 1);
    let mut response = Html(body).into_response();
    // The report carries its own style element (it is also a file people mail around): this
    // page allows inline style, and still no script, no request elsewhere.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; \
             form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        ),
    );
    Ok(response)
}

pub struct CompareColumn {
    pub letter: String,
    pub href: String,
    pub title: String,
    pub sub: String,
}

pub struct CompareRow {
    pub label: String,
    pub cells: Vec<String>,
}

#[derive(Template)]
#[template(path = "compare.html")]
pub struct ComparePage {
    pub title: String,
    pub columns: Vec<CompareColumn>,
    pub rows: Vec<CompareRow>,
    pub notes: Vec<String>,
    pub api: String,
}

pub async fn compare(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Result<Html<String>, Page> {
    let compared = api::comparison(&state, raw.as_deref()).await?;
    let api = format!("/api/v1/compare?{}", raw.clone().unwrap_or_default());
    let page = match compared {
        api::Compared::Results(c) => ComparePage {
            title: format!("{} results side by side", c.runs.len()),
            columns: c
                .runs
                .iter()
                .enumerate()
                .map(|(i, r)| CompareColumn {
                    letter: crate::compare::letter(i).to_string(),
                    href: format!("/results/{}", encode(&r.id)),
                    title: r.device.clone(),
                    sub: format!(
                        "{}{}",
                        r.started_at.chars().take(10).collect::<String>(),
                        r.label
                            .as_ref()
                            .map(|l| format!(" · {l}"))
                            .unwrap_or_default()
                    ),
                })
                .collect(),
            rows: c
                .rows
                .iter()
                .map(|row| CompareRow {
                    label: format!("{} ({})", row.test.replace('_', " "), row.unit),
                    cells: row
                        .cells
                        .iter()
                        .map(|cell| match cell {
                            None => "–".into(),
                            Some(cell) => match (cell.diff_pct, cell.verdict) {
                                (Some(d), Some(v)) => {
                                    format!("{} ({d:+.1}%, {})", figure(cell.value), v.as_str())
                                }
                                _ => figure(cell.value),
                            },
                        })
                        .collect(),
                })
                .collect(),
            notes: std::iter::once(
                "The first is the baseline. A difference is a verdict only beyond both \
                 results' own loop-to-loop spread (at least 2%); \"can't tell\" where a \
                 result's spread is unknown."
                    .to_string(),
            )
            .chain(c.differences.iter().cloned())
            .collect(),
            api,
        },
        api::Compared::Devices(devices) => {
            let class = devices.first().map(|d| d.class.clone()).unwrap_or_default();
            let metrics = shown_metrics(&class);
            ComparePage {
                title: format!("{} devices side by side", devices.len()),
                columns: devices
                    .iter()
                    .enumerate()
                    .map(|(i, d)| CompareColumn {
                        letter: crate::compare::letter(i).to_string(),
                        href: format!("/devices/{}?profile={}", encode(&d.key), encode(&d.class)),
                        title: d.name.clone(),
                        sub: format!("{} results, {}", d.results.len(), profile_label(&d.class)),
                    })
                    .collect(),
                rows: metrics
                    .iter()
                    .map(|m| {
                        let (label, unit) = metric_label(m);
                        CompareRow {
                            label: format!("{label} ({unit})"),
                            cells: devices
                                .iter()
                                .map(|d| {
                                    d.summary
                                        .get(*m)
                                        .map(|s| format!("{} ({})", figure(s.median), range(s)))
                                        .unwrap_or_else(|| "–".into())
                                })
                                .collect(),
                        }
                    })
                    .collect(),
                notes: vec![
                    "Each figure is the median of the device's ranked results, with the middle \
                     half of them in brackets."
                        .into(),
                ],
                api,
            }
        }
    };
    render(&page)
}

#[derive(Template)]
#[template(path = "about.html")]
pub struct AboutPage {
    pub title: String,
}

pub async fn about() -> Result<Html<String>, Page> {
    render(&AboutPage {
        title: "How iomark measures".into(),
    })
}

pub async fn stylesheet() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        include_str!("site.css"),
    )
        .into_response()
}

pub async fn not_found() -> Page {
    Page(Failure::not_found("there is no page here"))
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
