//! What the site shows, computed once from the store for a page and its API answer alike:
//! the leaderboard with prices, a device's summary by class and by board, the published
//! reference figures beside it, and how a request fails.

use std::collections::BTreeMap;

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use serde::Serialize;

use crate::result::identity::{slug, KINDS};
use crate::store::site::{self, DeviceRow, Entry, Filter, Spread, METRICS};
use crate::store::{Problem, StoreError};

/// A request that cannot be answered, with the reason a person or a program is shown.
#[derive(Debug)]
pub struct Failure {
    pub status: StatusCode,
    pub reason: String,
}

impl Failure {
    pub fn new(status: StatusCode, reason: impl Into<String>) -> Failure {
        Failure {
            status,
            reason: reason.into(),
        }
    }

    pub fn bad(reason: impl Into<String>) -> Failure {
        Failure::new(StatusCode::BAD_REQUEST, reason)
    }

    pub fn not_found(reason: impl Into<String>) -> Failure {
        Failure::new(StatusCode::NOT_FOUND, reason)
    }

    /// As JSON (`{"error": …}`) for the API, as a small page otherwise.
    pub fn respond(self, api: bool) -> Response {
        if api {
            let mut response =
                super::api::Json(serde_json::json!({ "error": self.reason })).into_response();
            *response.status_mut() = self.status;
            response
        } else {
            use askama::Template;
            let page = super::pages::ErrorPage {
                title: self
                    .status
                    .canonical_reason()
                    .unwrap_or("Error")
                    .to_string(),
                reason: self.reason,
            };
            let body = page
                .render()
                .unwrap_or_else(|_| "iomark: the page could not be drawn".into());
            (self.status, Html(body)).into_response()
        }
    }
}

/// A result the site shows (a synthetic one only where the site is told to), with its
/// document: what its page, its API answer and its card are drawn from.
pub async fn visible_result(
    state: &super::State,
    id: &str,
) -> Result<(Entry, crate::result::ResultDoc), Failure> {
    let entry = state
        .store
        .entry(id)
        .await?
        .filter(|e| state.config.show_synthetic || !e.synthetic)
        .ok_or_else(|| Failure::not_found(format!("no result has the id '{id}'")))?;
    let doc = state.store.document(&entry.id).await?;
    Ok((entry, doc))
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        match e {
            StoreError::NotFound(_) => Failure::not_found(e.to_string()),
            StoreError::Duplicate(_) => Failure::new(StatusCode::CONFLICT, e.to_string()),
            StoreError::Invalid(_) => Failure::bad(e.to_string()),
            StoreError::Ambiguous(..) => Failure::bad(e.to_string()),
            StoreError::Unavailable { problem, .. } => {
                // The whole error (where the store is, what its driver said) goes to the
                // operator's log, never into an answer: it named the database URL, with a
                // password given as a query parameter (issue 22).
                eprintln!("iomark serve: {e}");
                let why = match problem {
                    Problem::Full => " (its disk is full)",
                    Problem::Locked => " (it is busy)",
                    Problem::Unreachable => " (its database cannot be reached)",
                    _ => "",
                };
                Failure::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("the results store is unavailable{why}, try again shortly"),
                )
            }
        }
    }
}

/// The classes with ranked devices and, per class, the boards and filesystems its results were
/// measured on: what the leaderboard's form offers. They change slowly and a page asks for
/// them on every view, so they are read from the store at most every 30 s.
#[derive(Default)]
pub struct Choices {
    cached: std::sync::Mutex<BTreeMap<String, (std::time::Instant, Offered)>>,
}

#[derive(Clone, Default)]
pub struct Offered {
    pub classes: Vec<(String, i64)>,
    pub boards: Vec<String>,
    pub filesystems: Vec<String>,
}

impl Choices {
    pub async fn get(
        &self,
        store: &crate::store::Store,
        class: &str,
        synthetic: bool,
    ) -> Result<Offered, StoreError> {
        let key = format!("{class}\n{synthetic}");
        if let Some((when, offered)) = self
            .cached
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            if when.elapsed() < std::time::Duration::from_secs(30) {
                return Ok(offered.clone());
            }
        }
        let classes = store.classes(synthetic).await?;
        let (boards, filesystems) = store.scopes(class).await?;
        let offered = Offered {
            classes,
            boards,
            filesystems,
        };
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if cached.len() > 1000 {
            cached.clear();
        }
        cached.insert(key, (std::time::Instant::now(), offered.clone()));
        Ok(offered)
    }
}

/// A figure's name and unit, for people.
pub fn metric_label(metric: &str) -> (String, &'static str) {
    if metric == "score" {
        return ("PiBenchmarks score".into(), "points");
    }
    let unit = if metric.starts_with("seq") {
        "MB/s"
    } else {
        "IOPS"
    };
    let mut parts = metric.split('_');
    let (test, depth, op) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    (
        format!("{} {}T1 {op}", test.to_uppercase(), depth.to_uppercase()),
        unit,
    )
}

/// The query string of a leaderboard (page or API).
#[derive(Debug, Default, serde::Deserialize)]
pub struct BoardQuery {
    pub profile: Option<String>,
    pub sort: Option<String>,
    pub kind: Option<String>,
    pub transport: Option<String>,
    pub board: Option<String>,
    pub fs: Option<String>,
    pub q: Option<String>,
    pub limit: Option<u32>,
}

fn present(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

impl BoardQuery {
    /// Checked into a store filter: a profile class (`standard` means `standard/direct/random`),
    /// a known figure to sort by (the pi profile's score by default for pi, SEQ1M Q8T1 read
    /// otherwise), a known kind.
    pub fn filter(&self, synthetic: bool) -> Result<Filter, Failure> {
        let profile = present(&self.profile).unwrap_or_else(|| "standard".into());
        let class = if profile.contains('/') {
            profile
        } else {
            format!("{profile}/direct/random")
        };
        if class.len() > 100 || class.chars().any(|c| c.is_control()) {
            return Err(Failure::bad("profile: not a profile"));
        }
        let default_sort = if class.starts_with("pi/") {
            "score"
        } else {
            "seq1m_q8_read"
        };
        let wanted = present(&self.sort).unwrap_or_else(|| default_sort.into());
        let sort = METRICS.iter().find(|m| **m == wanted).ok_or_else(|| {
            Failure::bad(format!(
                "sort: '{}' is not a figure; one of {}",
                wanted.chars().take(40).collect::<String>(),
                METRICS.join(", ")
            ))
        })?;
        let kind = present(&self.kind);
        if let Some(kind) = &kind {
            if !KINDS.contains(&kind.as_str()) {
                return Err(Failure::bad(format!(
                    "kind: not a kind of device; one of {}",
                    KINDS.join(", ")
                )));
            }
        }
        for (name, value) in [
            ("transport", &self.transport),
            ("board", &self.board),
            ("fs", &self.fs),
            ("q", &self.q),
        ] {
            if value.as_ref().is_some_and(|v| v.chars().count() > 200) {
                return Err(Failure::bad(format!("{name}: at most 200 characters")));
            }
        }
        Ok(Filter {
            class,
            sort,
            kind,
            transport: present(&self.transport),
            board: present(&self.board),
            filesystem: present(&self.fs),
            text: present(&self.q).filter(|q| !slug(q).is_empty()),
            limit: self.limit.unwrap_or(100).clamp(1, site::MAX_ROWS),
            synthetic,
        })
    }
}

/// One ranked device, with the figure sorted by and what it costs.
#[derive(Clone, Debug, Serialize)]
pub struct Ranked {
    pub rank: usize,
    /// The device's aggregate, its fields at this level of the JSON.
    #[serde(flatten)]
    pub device: DeviceRow,
    /// The sorted-by figure across the device's results.
    pub figure: Spread,
    pub usd_per_gb: Option<f64>,
    /// SEQ1M Q8T1 read MB/s per dollar (the figure people shop by).
    pub mb_per_s_per_usd: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Leaderboard {
    pub class: String,
    pub sort: String,
    pub sort_label: String,
    pub unit: &'static str,
    pub devices: Vec<Ranked>,
}

pub fn leaderboard(filter: &Filter, rows: Vec<DeviceRow>) -> Leaderboard {
    let (sort_label, unit) = metric_label(filter.sort);
    let devices = rows
        .into_iter()
        .enumerate()
        .filter_map(|(i, row)| {
            let figure = row.stats.get(filter.sort)?.clone();
            let price = row.price_usd;
            Some(Ranked {
                rank: i + 1,
                usd_per_gb: price
                    .zip(row.capacity_gb.filter(|g| *g > 0))
                    .map(|(p, g)| p / g as f64),
                mb_per_s_per_usd: price
                    .zip(row.stats.get("seq1m_q8_read"))
                    .map(|(p, s)| s.median / p),
                figure,
                device: row,
            })
        })
        .collect();
    Leaderboard {
        class: filter.class.clone(),
        sort: filter.sort.to_string(),
        sort_label,
        unit,
        devices,
    }
}

/// One device's page.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceView {
    pub key: String,
    pub name: String,
    pub kind: String,
    pub transport: Option<String>,
    pub capacity_gb: Option<i64>,
    /// The class shown, and every class this device has results in (with how many).
    pub class: String,
    pub classes: Vec<(String, usize)>,
    /// Per figure, across the class's ranked (unflagged) results.
    pub summary: BTreeMap<String, Spread>,
    pub price_usd: Option<f64>,
    /// The same per board the results were measured on.
    pub boards: Vec<BoardSummary>,
    /// Every result of the class, flagged ones too (with their reason), newest first.
    pub results: Vec<Entry>,
    /// Published figures for devices of this make and kind (not iomark results).
    pub references: Vec<&'static crate::reference::DeviceFigures>,
}

#[derive(Clone, Debug, Serialize)]
pub struct BoardSummary {
    pub board: String,
    pub results: usize,
    pub stats: BTreeMap<String, Spread>,
}

/// A device's view: its figures, per board too, from the same aggregates the leaderboard
/// ranks it by (`rows`, all of them: a device with 9,696 results had a median of 11,853 on the
/// leaderboard and 1,185 on its page, which read only its newest 5,000, issue 22), and its
/// newest results (`entries`) with their flags.
pub fn device(
    key: &str,
    class: Option<&str>,
    entries: Vec<Entry>,
    rows: Vec<(String, String, DeviceRow)>,
) -> Option<DeviceView> {
    let newest = entries.first()?.clone();
    let mut classes: Vec<(String, usize)> = Vec::new();
    for e in &entries {
        match classes.iter_mut().find(|(c, _)| *c == e.class) {
            Some((_, n)) => *n += 1,
            None => classes.push((e.class.clone(), 1)),
        }
    }
    classes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let class = class
        .filter(|c| classes.iter().any(|(k, _)| k == c))
        .map(str::to_string)
        .or_else(|| {
            classes
                .iter()
                .find(|(c, _)| c.starts_with("standard/"))
                .map(|(c, _)| c.clone())
        })
        .unwrap_or_else(|| classes[0].0.clone());
    let results: Vec<Entry> = entries.into_iter().filter(|e| e.class == class).collect();
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
    let (name, kind, transport, capacity_gb) = match named {
        Some((_, _, row)) => (
            row.name.clone(),
            row.kind.clone(),
            row.transport.clone(),
            row.capacity_gb,
        ),
        None => (
            newest.device_name,
            newest.kind,
            newest.transport,
            newest.capacity_gb,
        ),
    };
    Some(DeviceView {
        key: key.to_string(),
        references: crate::reference::device_figures(&name, &kind),
        name,
        kind,
        transport,
        capacity_gb,
        class,
        classes,
        summary: all.map(|(_, _, r)| r.stats.clone()).unwrap_or_default(),
        price_usd: all.and_then(|(_, _, r)| r.price_usd),
        boards,
        results,
    })
}
