//! `/devices/KEY`: one device's figures by class and by board, every result, its distribution
//! as an SVG histogram, and published figures beside them.

use super::histogram::{distribution_svg, Mark};
use super::*;
use iomark_profiles::reasons::words;

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
    /// The viewer's own result.
    pub mine: bool,
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
    /// None without a ranked result to draw.
    pub chart: Option<String>,
    pub chart_label: String,
    /// Where the viewer's own result (`?mine=ID`) stands, in a sentence.
    pub mine: Option<String>,
    /// A typical result's card and page.
    pub card: Option<(String, String)>,
    pub columns: Vec<String>,
    pub boards: Vec<BoardRow>,
    /// The same by system (its `board` is the system's name).
    pub systems: Vec<BoardRow>,
    pub results: Vec<ResultLine>,
    /// Where the list stops short: how many there are, and the listing of every one.
    pub more: Option<(String, String)>,
    /// Whether any result has a headline: the column is shown only then.
    pub headlines: bool,
    /// The SD classes the results meet, most often met first, with how many: a card's verdict.
    pub verdicts: Vec<(String, usize)>,
    pub references: Vec<ReferenceLine>,
    /// What the cards of it their owners watch say: a sentence, and what their newest checks
    /// find.
    pub cards: Option<(String, String)>,
    pub api: String,
}

pub async fn device(
    State(state): State<Shared>,
    Path(key): Path<String>,
    Query(query): Query<DeviceQuery>,
) -> Result<Html<String>, Page> {
    let view = views::device_view(&state, &key, &query).await?;
    let metrics = view.figures();
    let medians = |stats: &BTreeMap<String, Spread>| {
        stats
            .iter()
            .map(|(k, s)| (k.clone(), s.median))
            .collect::<BTreeMap<_, _>>()
    };
    let primary = metrics[0];
    let values = view.distribution();
    let (label, unit) = (primary.label, primary.unit);
    let (marks, mine) = marks_and_standing(&view, primary);
    let page = DevicePage {
        headlines: view.results.iter().any(|e| e.headline.is_some()),
        verdicts: view.classes_met.clone(),
        cards: view.cards.as_ref().map(cards_words),
        title: view.shown_name().to_string(),
        facts: facts(&view),
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
                    median: figure(s.median).to_string(),
                    range: range(s),
                    n: s.n,
                })
            })
            .collect(),
        chart: (!values.is_empty()).then(|| distribution_svg(&values, label, unit, &marks)),
        chart_label: format!(
            "{label} ({unit}) of its {} ranked results, one bar per range; the dashed line is their median",
            values.len()
        ),
        mine,
        card: view.typical.as_ref().map(|id| {
            (
                format!("/results/{}/card.png", encode(id)),
                format!("/results/{}", encode(id)),
            )
        }),
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
        systems: view
            .systems
            .iter()
            .map(|b| BoardRow {
                board: b.system.clone(),
                results: b.results,
                cells: cells(&medians(&b.stats), &metrics),
            })
            .collect(),
        more: (view.results_total > view.results.len())
            .then(|| (view.results_total.to_string(), view.all_results.clone())),
        results: view
            .results
            .iter()
            .map(|e| ResultLine {
                id: e.id.clone(),
                href: format!("/results/{}", encode(&e.id)),
                date: e.started_at.chars().take(10).collect(),
                board: e.board.clone().unwrap_or_default(),
                label: e.label.clone().unwrap_or_default(),
                headline: e.headline.clone().unwrap_or_default(),
                cells: cells(&e.figures, &metrics),
                flag: e.flag.as_ref().map(words).unwrap_or_default(),
                mine: view.mine.as_ref().is_some_and(|m| m.id == e.id),
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
        api: match view.class.is_empty() {
            true => format!("/api/v1/devices/{}", encode(&view.key)),
            false => format!(
                "/api/v1/devices/{}?profile={}",
                encode(&view.key),
                encode(&view.class)
            ),
        },
    };
    render(&page)
}

/// The lines drawn on the distribution (the median, and the viewer's result), and where the
/// viewer's result stands in a sentence.
fn marks_and_standing(view: &views::DeviceView, primary: &Metric) -> (Vec<Mark>, Option<String>) {
    let mut marks: Vec<Mark> = view
        .summary
        .get(primary.column)
        .map(|s| Mark {
            label: "median".into(),
            value: s.median,
            mine: false,
        })
        .into_iter()
        .collect();
    let mine = view.mine.as_ref().map(|m| {
        if let Some(value) = m.value {
            marks.push(Mark {
                label: "yours".into(),
                value,
                mine: true,
            });
        }
        standing_sentence(m, view.shown_name(), primary)
    });
    (marks, mine)
}

/// What the device is, in a line: its kind, the name it calls itself, transport and price.
/// The cards' record in a sentence, and what their newest checks find.
fn cards_words(cards: &views::cards::CardsView) -> (String, String) {
    let now: Vec<String> = cards
        .now
        .iter()
        .map(|(verdict, n)| format!("{n} {}", verdict.meaning(*n != 1)))
        .collect();
    (cards.sentence.clone(), now.join(", "))
}

fn facts(view: &views::DeviceView) -> String {
    let mut facts: Vec<String> = (!view.kind.is_empty())
        .then(|| view.kind.clone())
        .into_iter()
        .collect();
    // What it calls itself, where its owners' name for it is the title.
    if view.sold_as.is_some() {
        facts.insert(0, format!("named {} by the device itself", view.name));
    }
    facts.extend(view.transport.clone());
    if let Some(price) = view.price_usd {
        facts.push(format!("median price ${price:.2}"));
    }
    // Each submitter weighs once: say how many the figures come from.
    let plural = |n: i64, one: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {one}s"),
    };
    if view.ranked > 0 {
        facts.push(format!(
            "{} ranked from {}",
            plural(view.ranked, "result"),
            plural(view.submitters, "submitter")
        ));
        if view.neighbourhoods < i64::from(view.corroboration) {
            facts.push(format!(
                "not ranked on the leaderboard yet: measured alike from {} of the {} \
                 independent networks it takes",
                view.neighbourhoods, view.corroboration
            ));
        }
    }
    facts.join(" · ")
}

/// Where the viewer's result stands, in a sentence.
fn standing_sentence(mine: &views::Mine, name: &str, figure_of: &Metric) -> String {
    let what = format!("{} ({})", figure_of.label, figure_of.unit);
    match (&mine.flag, mine.value, mine.beats) {
        _ if !mine.found => format!(
            "Result {} is not among {name}'s results of this profile.",
            mine.id
        ),
        (Some(flag), _, _) => format!("Your result is marked, but not ranked: {flag}."),
        (None, None, _) | (None, _, None) => {
            format!("Your result has no {what}, the figure drawn here.")
        }
        (None, Some(value), Some(_)) if mine.others == 0 => format!(
            "Yours, {} {}, is the only ranked result of {name} with {what} so far.",
            figure(value),
            figure_of.unit
        ),
        (None, Some(value), Some(beats)) => format!(
            "Yours, {} {}, beats {} of the other {} ranked results of {name} on {what}{}.",
            figure(value),
            figure_of.unit,
            if beats.fract() == 0.0 {
                format!("{beats:.0}")
            } else {
                format!("{beats:.1}")
            },
            mine.others,
            if beats.fract() == 0.0 {
                ""
            } else {
                " (a tie counts half)"
            }
        ),
    }
}
