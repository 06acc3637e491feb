//! One device: its figures by class and by board, from the same aggregates the leaderboard
//! ranks it by, its newest results, and published figures beside them.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{class_of, encode, params};
use crate::error::Failure;
use crate::Shared;
use iomark_profiles::reasons::words;
use iomark_result::result::metric::{self, Metric};
use iomark_store::{DeviceRow, Entry, Point, Spread};

#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeviceQuery {
    /// The profile whose results are shown (`standard`, `pi`, `sdcard`…, or a whole class);
    /// by default the standard one where the device has such results.
    #[param(value_type = Option<params::Text>, inline)]
    pub profile: Option<String>,
    /// A result of this device to mark among the others: the viewer's own.
    #[param(value_type = Option<params::Text>, inline)]
    pub mine: Option<String>,
}

/// The most results a device's page and API answer list in full, newest first; every one is
/// in the listing (`/api/v1/results?device=KEY&profile=CLASS`). A page of 200 was 101 KB and
/// a site's cache held few of them (bench/site-load at 1,000,000 results).
pub const LISTED: usize = 50;

pub async fn device_view(
    state: &Shared,
    key: &str,
    query: &DeviceQuery,
) -> Result<DeviceView, Failure> {
    params::plain("profile", query.profile.as_deref())?;
    params::plain("mine", query.mine.as_deref())?;
    let site = state.store.site();
    // As many of its newest results as a standing weighs (`--standing-sample`).
    let sample = usize::try_from(state.config.standing_sample)
        .unwrap_or(1)
        .max(1);
    let synthetic = state.config.show_synthetic;
    let (classes, rows) =
        tokio::try_join!(site.device_classes(key, synthetic), site.device_rows(key))?;
    let Some(class) = shown_class(class_of(query.profile.as_deref()), &classes) else {
        // A device merged into another, or renamed by new rules: its address leads there.
        if let Some(target) = site.moved(key).await? {
            // Relative, so the page and the API each lead to their own address for it.
            return Err(Failure::moved(match &query.profile {
                Some(profile) => format!(
                    "{}?{}",
                    encode(&target),
                    form_urlencoded::Serializer::new(String::new())
                        .append_pair("profile", profile)
                        .finish()
                ),
                None => encode(&target),
            }));
        }
        return cards_only(state, key).await;
    };
    // The figures of its ranked results, as its aggregate has them; those of its results
    // when none is ranked (nothing is drawn then).
    let present: Vec<&'static str> = rows
        .iter()
        .find(|(c, s, _)| *c == class && s.is_empty())
        .map(|(_, _, row)| metric::present(|c| row.stats.contains_key(c)))
        .unwrap_or_default();
    let figure = metric::shown(&class, &present)[0].column;
    let total = classes.iter().find(|(c, _)| *c == class).map_or(0, |c| c.1);
    let (mut points, results) = site
        .device_results(key, &class, figure, synthetic, (LISTED, sample), total)
        .await?;
    let present = match present.is_empty() {
        true => metric::present(|c| results.iter().any(|e| e.figures.contains_key(c))),
        false => present,
    };
    // Where none is ranked (or its aggregate is still to come, `store::stale`), its results'
    // own first figure may be another: its points are read again by that one.
    let first = metric::shown(&class, &present)[0].column;
    if first != figure {
        points = site
            .device_results(key, &class, first, synthetic, (LISTED, sample), total)
            .await?
            .0;
    }
    let mut view = device(key, &class, present, &classes, points, results, rows);
    if let Some(id) = query
        .mine
        .as_deref()
        .map(str::trim)
        .filter(|id| !id.is_empty())
    {
        // A result older than the newest the page reads (5,000 a class) is looked up by its
        // id (issue 44: the 5,201st-newest was "not among" its device's results).
        let older = match view.points.iter().any(|p| p.id == id) {
            true => None,
            false => site
                .entry(id)
                .await?
                .filter(|e| e.device_key.as_deref() == Some(key) && e.class == class),
        };
        view.mine = Some(mine(&view, id, older.as_ref()));
    }
    view.cards = super::cards::of(&state.store.cards().of_device(key).await?);
    view.corroboration = state.config.corroboration;
    Ok(view)
}

/// A device with no result but cards of it watched (`iomark health --share`): its page tells
/// those alone.
async fn cards_only(state: &Shared, key: &str) -> Result<DeviceView, Failure> {
    let rows = state.store.cards().of_device(key).await?;
    let (Some(cards), Some(first)) = (super::cards::of(&rows), rows.first()) else {
        return Err(Failure::not_found(format!(
            "no results for a device '{key}'"
        )));
    };
    let mut view = device(key, "", vec![], &[], vec![], vec![], vec![]);
    view.name = first.device_name.clone();
    view.cards = Some(cards);
    Ok(view)
}

/// The class a device's page shows: the one asked for where it has results of it, else its
/// standard one, else the one it has most results of.
fn shown_class(asked: Option<String>, classes: &[(String, usize)]) -> Option<String> {
    asked
        .filter(|c| classes.iter().any(|(k, _)| k == c))
        .or_else(|| {
            classes
                .iter()
                .map(|(c, _)| c)
                .find(|c| c.starts_with("standard/"))
                .or_else(|| classes.first().map(|(c, _)| c))
                .cloned()
        })
}

/// Where the result `id` stands among the device's other ranked results of the class (the
/// newest the page read), by its first figure: one of those, or `older`, its own entry.
fn mine(view: &DeviceView, id: &str, older: Option<&Entry>) -> Mine {
    let figure = view.figures()[0].column;
    let own = view.points.iter().find(|p| p.id == id);
    let value = match (own, older) {
        (Some(p), _) => p.value,
        (None, Some(e)) => e.figures.get(figure).copied(),
        (None, None) => None,
    };
    let others: Vec<f64> = view
        .points
        .iter()
        .filter(|p| p.id != id && p.flag.is_none())
        .filter_map(|p| p.value)
        .collect();
    let beats = value.map(|v| {
        others
            .iter()
            .map(|o| match o.partial_cmp(&v) {
                Some(std::cmp::Ordering::Less) => 1.0,
                Some(std::cmp::Ordering::Equal) => 0.5,
                _ => 0.0,
            })
            .sum::<f64>()
    });
    Mine {
        id: id.to_string(),
        found: own.is_some() || older.is_some(),
        figure,
        value,
        flag: match (own, older) {
            (Some(p), _) => p.flag.as_ref().map(words),
            (None, Some(e)) => e.flag.as_ref().map(words),
            (None, None) => None,
        },
        beats,
        others: others.len(),
    }
}

/// The viewer's own result among a device's (`?mine=ID`).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Mine {
    pub id: String,
    /// Whether it is one of the results shown (this device, this class).
    pub found: bool,
    /// The figure it is placed by: the first the page shows.
    pub figure: &'static str,
    pub value: Option<f64>,
    /// Why it is not ranked, if it is not.
    pub flag: Option<String>,
    /// How many of the others it is faster than (a tie counts half), of `others`: the
    /// device's other ranked results with that figure.
    pub beats: Option<f64>,
    pub others: usize,
}

/// One device's page.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct DeviceView {
    pub key: String,
    pub name: String,
    /// What it is sold as, where several of its results agree on that (`iomark submit
    /// --model`): what its pages call it, its own name beside.
    pub sold_as: Option<String>,
    pub kind: String,
    pub transport: Option<String>,
    pub capacity_gb: Option<i64>,
    /// The class shown, and every class this device has results in (with how many).
    pub class: String,
    pub classes: Vec<(String, usize)>,
    /// Per figure, across the class's ranked (unflagged) results, each submitter weighing
    /// once (`n` counts submitters).
    pub summary: BTreeMap<String, Spread>,
    /// How many submitters the class's ranked results come from, and how many results they
    /// are (the same figures sent again by one submitter count once).
    pub submitters: i64,
    pub ranked: i64,
    /// How many independent neighbourhoods (an IPv4 /16 or IPv6 /32 each) measured it alike
    /// (`aggregate::corroborating`: two that disagree are one), and
    /// how many the site ranks a device from on its leaderboard (`corroboration`): until then
    /// it is listed there unranked.
    pub neighbourhoods: i64,
    pub corroboration: u32,
    pub price_usd: Option<f64>,
    /// The same per board the results were measured on,
    pub boards: Vec<BoardSummary>,
    /// and per system they ran on (distribution and kernel), most results first.
    pub systems: Vec<SystemSummary>,
    /// The class's newest results, flagged ones too (with their reason), newest first: at most
    /// 50 of them; `all_results` lists every one.
    pub results: Vec<Entry>,
    /// How many results of the class it has, flagged ones too.
    pub results_total: usize,
    /// Where every result of the class is listed, a page at a time.
    pub all_results: String,
    /// For the sdcard profile, the SD classes its ranked results meet, in their headline's
    /// words, each with how many results meet just those; most often met first.
    pub classes_met: Vec<(String, usize)>,
    /// Published figures for devices of this make and kind (not iomark results).
    pub references: Vec<&'static iomark_result::reference::DeviceFigures>,
    /// The result asked to be marked, and where it stands.
    pub mine: Option<Mine>,
    /// The ranked result nearest the median of the first figure shown: whose card stands for
    /// the device.
    pub typical: Option<String>,
    /// The cards of it whose owners share their health checks (`iomark health --share`):
    /// absent where none is watched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cards: Option<super::cards::CardsView>,
    /// In a comparison of devices, each figure against the first device's (absent for it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub versus: Option<BTreeMap<String, Versus>>,
    /// The figures the class's ranked results have (columns of the metric list); where none
    /// is ranked, those its newest have.
    #[serde(skip)]
    pub present: Vec<&'static str>,
    /// The class's results (up to 5,000, the newest) as its distribution needs them, by the
    /// first of [`DeviceView::figures`].
    #[serde(skip)]
    pub points: Vec<Point>,
}

/// A figure's median against the baseline device's, and whether that is a difference.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Versus {
    pub diff_pct: f64,
    pub verdict: iomark_result::compare::Verdict,
}

impl DeviceView {
    /// The name a buyer knows it by: what it is sold as, else its own.
    pub fn shown_name(&self) -> &str {
        self.sold_as.as_deref().unwrap_or(&self.name)
    }

    /// The figures its tables show, the one its distribution is drawn by first.
    pub fn figures(&self) -> Vec<&'static Metric> {
        metric::shown(&self.class, &self.present)
    }

    /// The first figure of each ranked result: its distribution.
    pub fn distribution(&self) -> Vec<f64> {
        ranked(&self.points).filter_map(|p| p.value).collect()
    }
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct BoardSummary {
    pub board: String,
    pub results: usize,
    pub stats: BTreeMap<String, Spread>,
}

/// The same for one system its results ran on (`ResultDoc::system`: distribution and kernel).
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct SystemSummary {
    pub system: String,
    pub results: usize,
    pub stats: BTreeMap<String, Spread>,
}

/// A device's view: its figures, per board too, from the same aggregates the leaderboard
/// ranks it by (`rows`, all of them: a device with 9,696 results had a median of 11,853 on the
/// leaderboard and 1,185 on its page, which read only its newest 5,000, issue 22), the
/// distribution of the `shown` class's results (`points`) and its newest results in full.
pub fn device(
    key: &str,
    class: &str,
    present: Vec<&'static str>,
    classes: &[(String, usize)],
    points: Vec<Point>,
    results: Vec<Entry>,
    rows: Vec<(String, String, DeviceRow)>,
) -> DeviceView {
    let class = class.to_string();
    let mut classes_met: Vec<(String, usize)> = Vec::new();
    if class.starts_with("sdcard/") {
        for h in ranked(&points).filter_map(|p| p.headline.as_ref()) {
            match classes_met.iter_mut().find(|(v, _)| v == h) {
                Some((_, n)) => *n += 1,
                None => classes_met.push((h.clone(), 1)),
            }
        }
        classes_met.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    }
    let all = rows.iter().find(|(c, s, _)| *c == class && s.is_empty());
    // The name and kind its results agree on, whichever class is shown.
    let named = all.or_else(|| rows.iter().find(|(_, s, _)| s.is_empty()));
    let boards = rows
        .iter()
        .filter(|(c, _, _)| *c == class)
        .filter_map(|(_, scope, row)| {
            Some(BoardSummary {
                board: scope.strip_prefix("board:")?.to_string(),
                results: row.results as usize,
                stats: row.stats.clone(),
            })
        })
        .collect();
    let mut systems: Vec<SystemSummary> = rows
        .iter()
        .filter(|(c, _, _)| *c == class)
        .filter_map(|(_, scope, row)| {
            Some(SystemSummary {
                system: scope.strip_prefix("system:")?.to_string(),
                results: row.results as usize,
                stats: row.stats.clone(),
            })
        })
        .collect();
    systems.sort_by(|a, b| {
        b.results
            .cmp(&a.results)
            .then_with(|| a.system.cmp(&b.system))
    });
    let sold_as = named.and_then(|(_, _, row)| row.sold_as.clone());
    let (name, kind, transport, capacity_gb) = match (named, results.first()) {
        (Some((_, _, row)), _) => (
            row.name.clone(),
            row.kind.clone(),
            row.transport.clone(),
            row.capacity_gb,
        ),
        (None, Some(newest)) => (
            newest.device_name.clone(),
            newest.kind.clone(),
            newest.transport.clone(),
            newest.capacity_gb,
        ),
        (None, None) => (key.to_string(), String::new(), None, None),
    };
    let mut view = DeviceView {
        key: key.to_string(),
        references: iomark_result::reference::device_figures(&name, &kind),
        name,
        sold_as,
        kind,
        transport,
        capacity_gb,
        all_results: format!(
            "/api/v1/results?device={}&profile={}",
            encode(key),
            encode(&class)
        ),
        results_total: classes
            .iter()
            .find(|(c, _)| *c == class)
            .map_or(0, |(_, n)| *n),
        class,
        classes: classes.to_vec(),
        summary: all.map(|(_, _, r)| r.stats.clone()).unwrap_or_default(),
        submitters: all.map_or(0, |(_, _, r)| r.submitters),
        ranked: all.map_or(0, |(_, _, r)| r.results),
        neighbourhoods: all.map_or(0, |(_, _, r)| r.neighbourhoods),
        // The site's, set by `device_view`.
        corroboration: 1,
        price_usd: all.and_then(|(_, _, r)| r.price_usd),
        boards,
        systems,
        results,
        classes_met,
        mine: None,
        versus: None,
        typical: None,
        cards: None,
        present,
        points,
    };
    view.typical = typical(&view);
    view
}

/// The ranked (unflagged) of `points`.
fn ranked(points: &[Point]) -> impl Iterator<Item = &Point> {
    points.iter().filter(|p| p.flag.is_none())
}

/// The id of the ranked result nearest the median of the view's first figure.
fn typical(view: &DeviceView) -> Option<String> {
    let figure = view.figures()[0].column;
    let median = view.summary.get(figure)?.median;
    ranked(&view.points)
        .filter_map(|p| Some((p, (p.value? - median).abs())))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(p, _)| p.id.clone())
}
