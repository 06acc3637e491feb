//! The HTML pages, rendered from the templates in `templates/` (askama: checked when iomark is
//! compiled, and escaping every value unless it is marked safe; the only values marked safe
//! are the SVG histogram and the report, themselves drawn from templates).
//!
//! One file per resource: `leaderboard.rs` (`/`), `device.rs` (`/devices/KEY`), `result.rs`
//! (`/results/ID`), `compare.rs` (`/compare`); this file holds how a page fails and renders,
//! the figures' formatting they share, and the small pages.

mod compare;
mod device;
mod histogram;
mod leaderboard;
mod moderate;
mod result;

pub use compare::compare;
pub use device::device;
pub use leaderboard::leaderboard;
pub use moderate::{act as moderate_act, moderate};
pub use result::result;

use std::collections::BTreeMap;

use askama::Template;
use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};

use super::error::{Failed, Failure, Page};
use super::views::{self, BoardQuery, DeviceQuery};
use crate::Shared;
use iomark_result::result::identity::KINDS;
use iomark_result::result::metric::{self, Metric, METRICS};
use iomark_store::Spread;

fn render(template: &impl Template) -> Result<Html<String>, Page> {
    template.render().map(Html).map_err(|e| {
        Failed(Failure::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the page could not be drawn: {e}"),
        ))
    })
}

/// A figure as the tables print it: the digits its size earns, thousands set apart for IOPS.
pub use iomark_result::units::grouped as figure;

/// A figure's middle half over its submitters' medians: a single submitter has none.
fn range(s: &Spread) -> String {
    if s.n < 2 {
        "one submitter".into()
    } else {
        format!("{}–{}", figure(s.p25), figure(s.p75))
    }
}

fn money(value: Option<f64>, places: usize) -> String {
    value
        .map(|v| format!("${v:.places$}"))
        .unwrap_or_else(|| "–".into())
}

use views::encode;

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

fn cells(stats: &BTreeMap<String, f64>, metrics: &[&Metric]) -> Vec<String> {
    metrics
        .iter()
        .map(|m| {
            stats
                .get(m.column)
                .map_or("–".into(), |v| figure(*v).to_string())
        })
        .collect()
}

#[derive(Template)]
#[template(path = "about.html")]
pub struct AboutPage {
    pub title: String,
    /// This site's address, for the command that submits to it.
    pub site: String,
    /// iomark's home (Cargo.toml's repository), whose releases the install line fetches.
    pub repository: &'static str,
    /// The licence the results are published under.
    pub licence: String,
    /// How often this site makes a dump of every result, in words; none if it makes none.
    pub dumps: Option<String>,
}

pub async fn about(State(state): State<Shared>) -> Result<Html<String>, Page> {
    render(&AboutPage {
        title: "How iomark measures".into(),
        repository: env!("CARGO_PKG_REPOSITORY"),
        site: state.public_url.clone(),
        licence: state.config.data_licence.clone(),
        dumps: Some(state.config.dump_every)
            .filter(|every| !every.is_zero())
            .map(|every| humantime::format_duration(every).to_string()),
    })
}

pub async fn stylesheet() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        include_str!("../site.css"),
    )
        .into_response()
}

/// Nothing at this address: a page, or under `/api/` the API's own JSON refusal (issue 44:
/// an unknown API path answered an HTML page).
pub async fn not_found(uri: axum::http::Uri) -> Response {
    if uri.path() == "/api" || uri.path().starts_with("/api/") {
        Failure::not_found("the API has no such path: its paths are in /api/v1/openapi.json")
            .respond(true)
    } else {
        Failure::not_found("there is no page here").respond(false)
    }
}
