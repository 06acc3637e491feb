//! `/health`: each folder whose health checks are saved (`iomark health`, by hand or on its
//! timer), its newest verdict in its words, and its checks over time as `iomark health
//! --history --chart` draws them.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::Shared;
use iomark_export::chart::{self, Kind};

struct Watched {
    path: String,
    verdict: String,
    sentence: String,
    checks: usize,
    /// The chart, an SVG drawn by iomark's own chart code from the checks.
    chart: String,
}

#[derive(Template)]
#[template(path = "health.html")]
struct Page {
    title: String,
    watched: Vec<Watched>,
}

pub async fn health(State(app): State<Shared>) -> Response {
    let checks = match app.store.history().health_checks().await {
        Ok(checks) => checks,
        Err(e) => {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("the history could not be read: {e}"),
            )
                .into_response()
        }
    };
    let mut paths: Vec<&str> = checks.iter().map(|d| d.target.path.as_str()).collect();
    paths.sort();
    paths.dedup();
    let watched = paths
        .into_iter()
        .map(|path| {
            let of: Vec<_> = checks.iter().filter(|d| d.target.path == path).collect();
            let newest = of.last().and_then(|d| d.health.as_ref());
            Watched {
                path: path.to_string(),
                verdict: newest
                    .map(|h| h.verdict.as_str().to_string())
                    .unwrap_or_default(),
                sentence: newest.map(|h| h.sentence.clone()).unwrap_or_default(),
                checks: of.len(),
                chart: chart::svg(Kind::Health, &of).unwrap_or_default(),
            }
        })
        .collect();
    crate::pages::page(&Page {
        title: "Health over time".into(),
        watched,
    })
}
