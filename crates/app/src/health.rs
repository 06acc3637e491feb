//! `/health`: each folder whose health checks are saved (`iomark health`, by hand or on its
//! timer), its newest verdict in its words, and its checks over time as `iomark health
//! --history --chart` draws them; a check now of it or of another folder (`POST
//! /health/check`), and its schedule (`POST /health/schedule`: `iomark health PATH
//! --install-timer`, a timer of the user's, or `--remove-timer`), each the command itself.

use std::time::Duration;

use askama::Template;
use axum::extract::{Form, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use crate::mounts::Place;
use crate::pages::trouble;
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
    /// Where a first check may be made.
    places: Vec<Place>,
    /// What was just done (a schedule made or removed), in the app's words.
    done: Option<String>,
}

pub async fn health(State(app): State<Shared>) -> Response {
    health_page(&app, None).await
}

async fn health_page(app: &Shared, done: Option<String>) -> Response {
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
    let places = app.mounts.list(app).await;
    crate::pages::page(&Page {
        title: "Health over time".into(),
        watched,
        places: places.into_iter().filter(|p| p.writable).collect(),
        done,
    })
}

/// What the health forms send: the folder (or `other` and its path typed), and for the
/// schedule, `make` or `remove` and the user's consent.
#[derive(Deserialize)]
pub struct Asked {
    path: String,
    #[serde(default)]
    other: String,
    #[serde(default)]
    action: String,
    #[serde(default)]
    consent: String,
}

impl Asked {
    /// The folder asked for, if it is one; else the page saying so.
    fn folder(&self) -> Result<String, Box<Response>> {
        let path = match self.path.as_str() {
            "other" => self.other.trim(),
            chosen => chosen,
        };
        let folder = std::path::Path::new(path);
        if path.is_empty() || !folder.is_absolute() || !folder.is_dir() {
            return Err(Box::new(trouble(
                StatusCode::BAD_REQUEST,
                "No such folder",
                &format!(
                    "'{path}' is no folder on this machine. Choose a filesystem in the list, or \
                     type the full path of a folder on the card, such as /media/pi/CARD."
                ),
                ("/health", "Back to health"),
            )));
        }
        Ok(path.to_string())
    }
}

/// `POST /health/check`: `iomark health PATH` now; the health page shows it with the others.
pub async fn check(State(app): State<Shared>, Form(asked): Form<Asked>) -> Response {
    let path = match asked.folder() {
        Ok(path) => path,
        Err(page) => return *page,
    };
    // Its exit status is its verdict (0 healthy, 1 watch, 2 failing or lying), saved either
    // way; 3 is no check made.
    let args = ["health", path.as_str()];
    match crate::iomark_status(&app, &args, Duration::from_secs(300)).await {
        Ok((0..=2, _, _)) => {
            (StatusCode::SEE_OTHER, [(header::LOCATION, "/health")]).into_response()
        }
        Ok((_, out, err)) => checked_nothing(&path, &format!("{out}{err}")),
        Err(why) => checked_nothing(&path, &why),
    }
}

fn checked_nothing(path: &str, said: &str) -> Response {
    trouble(
        StatusCode::UNPROCESSABLE_ENTITY,
        "No check was made",
        &format!("The card at {path} could not be checked: {}", said.trim()),
        ("/health", "Back to health"),
    )
}

/// `POST /health/schedule`: a check every 6 hours on a timer of the user's, or none; only
/// with the consent the form asks for (the same a terminal user gives by typing it).
pub async fn schedule(State(app): State<Shared>, Form(asked): Form<Asked>) -> Response {
    let path = match asked.folder() {
        Ok(path) => path,
        Err(page) => return *page,
    };
    let (flag, done) = match asked.action.as_str() {
        "make" if asked.consent == "yes" => (
            "--install-timer",
            format!(
                "{path} is checked every 6 hours from now on, by a timer of yours (systemd's, \
                 else a line for cron), whether this app is open or not. Each check writes about \
                 100 KiB. Stop it here whenever you like."
            ),
        ),
        "make" => {
            return trouble(
                StatusCode::BAD_REQUEST,
                "Nothing scheduled",
                "A schedule checks the card every 6 hours, writing about 100 KiB each time, \
                 even when this app is closed: tick that you agree to it, then Schedule.",
                ("/health", "Back to health"),
            )
        }
        "remove" => (
            "--remove-timer",
            format!("{path} is no longer checked on a schedule; its saved checks stay."),
        ),
        _ => return crate::pages::not_found().await,
    };
    let args = ["health", path.as_str(), flag, "--user"];
    match crate::iomark(&app, &args, Duration::from_secs(60)).await {
        Ok(_) => health_page(&app, Some(done)).await,
        Err(why) => trouble(
            StatusCode::UNPROCESSABLE_ENTITY,
            "The schedule was not changed",
            &format!("For {path}: {why}"),
            ("/health", "Back to health"),
        ),
    }
}
