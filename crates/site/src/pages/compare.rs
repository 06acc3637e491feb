//! `/compare`: up to four results side by side with verdicts, or devices with medians.

use super::*;

pub struct CompareColumn {
    pub letter: String,
    pub href: String,
    pub title: String,
    pub sub: String,
}

pub struct CompareRow {
    pub label: String,
    pub cells: Vec<CompareCell>,
}

/// A figure, and under it how it compares with the baseline's (empty for the baseline).
pub struct CompareCell {
    pub text: String,
    pub verdict: String,
}

impl From<String> for CompareCell {
    fn from(text: String) -> CompareCell {
        CompareCell {
            text,
            verdict: String::new(),
        }
    }
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
    let compared = views::comparison(&state, raw.as_deref()).await?;
    let api = format!("/api/v1/compare?{}", raw.clone().unwrap_or_default());
    let page = match compared {
        views::Compared::Results(c) => results_page(&c, api),
        views::Compared::Devices(devices) => devices_page(&devices, api),
    };
    render(&page)
}

/// Results side by side: each figure with its difference from the first and a verdict.
fn results_page(c: &iomark_result::compare::Comparison, api: String) -> ComparePage {
    ComparePage {
        title: format!("{} results side by side", c.runs.len()),
        columns: c
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| CompareColumn {
                letter: iomark_result::compare::letter(i).to_string(),
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
                        None => String::from("–").into(),
                        Some(cell) => CompareCell {
                            text: figure(cell.value).to_string(),
                            verdict: match (cell.diff_pct, cell.verdict) {
                                (Some(d), Some(v)) => format!("{d:+.1}%, {}", v.as_str()),
                                _ => String::new(),
                            },
                        },
                    })
                    .collect(),
            })
            .collect(),
        notes: std::iter::once(format!(
            "The first is the baseline. {}",
            iomark_result::compare::METHOD
        ))
        .chain(c.spread.iter().cloned())
        .chain(c.within_noise.iter().cloned())
        .chain(c.differences.iter().cloned())
        .collect(),
        api,
    }
}

/// Devices side by side: the medians of their ranked results, their spreads and verdicts.
fn devices_page(devices: &[views::DeviceView], api: String) -> ComparePage {
    let class = devices.first().map(|d| d.class.clone()).unwrap_or_default();
    let present = metric::present(|c| devices.iter().any(|d| d.summary.contains_key(c)));
    let metrics = metric::shown(&class, &present);
    ComparePage {
        title: format!("{} devices side by side", devices.len()),
        columns: devices
            .iter()
            .enumerate()
            .map(|(i, d)| CompareColumn {
                letter: iomark_result::compare::letter(i).to_string(),
                href: format!("/devices/{}?profile={}", encode(&d.key), encode(&d.class)),
                title: d.shown_name().to_string(),
                sub: format!(
                    "{} ranked of {} results, {}",
                    d.summary.values().map(|s| s.n).max().unwrap_or(0),
                    d.results_total,
                    profile_label(&d.class)
                ),
            })
            .collect(),
        rows: metrics
            .iter()
            .map(|m| CompareRow {
                label: m.heading(),
                cells: devices
                    .iter()
                    .map(|d| {
                        let Some(s) = d.summary.get(m.column) else {
                            return String::from("–").into();
                        };
                        let versus = d.versus.as_ref().and_then(|v| v.get(m.column));
                        CompareCell {
                            text: figure(s.median).to_string(),
                            verdict: match versus {
                                Some(v) => format!(
                                    "({}) {:+.0}%, {}",
                                    range(s),
                                    v.diff_pct,
                                    v.verdict.as_str()
                                ),
                                None => format!("({})", range(s)),
                            },
                        }
                    })
                    .collect(),
            })
            .chain(devices.iter().any(|d| !d.classes_met.is_empty()).then(|| {
                CompareRow {
                    label: "SD classes met (by most results)".into(),
                    cells: devices
                        .iter()
                        .map(|d| {
                            d.classes_met
                                .first()
                                .map(|(v, n)| format!("{v} ({n} of them)"))
                                .unwrap_or_else(|| "–".into())
                                .into()
                        })
                        .collect(),
                }
            }))
            .chain([
                CompareRow {
                    label: "Median price".into(),
                    cells: devices
                        .iter()
                        .map(|d| money(d.price_usd, 2).into())
                        .collect(),
                },
                CompareRow {
                    label: "Price per GB".into(),
                    cells: devices
                        .iter()
                        .map(|d| money(views::usd_per_gb(d.price_usd, d.capacity_gb), 3).into())
                        .collect(),
                },
            ])
            .collect(),
        notes: vec![
            "Each figure is the median of the device's ranked results, with the middle \
             half of them in brackets; the first device is the baseline."
                .into(),
            format!(
                "Faster or slower only where both devices have {} ranked results or \
                 more and the middle halves of their results do not overlap; within \
                 noise where they overlap (results of one model vary with the board, \
                 the card's age and how full it is), can't tell with fewer results.",
                iomark_result::compare::MIN_RESULTS
            ),
        ],
        api,
    }
}
