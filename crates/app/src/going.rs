//! A run that goes is said on every page, whichever tab started it (issue 60: a run whose tab
//! was closed was listed nowhere, and a second start on the same card halved both runs'
//! figures): a line under the menu names it, what it measures and where, with the way to it
//! and a Stop that is Ctrl-C to it, as its own page's.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;

use crate::pages::escape;
use crate::Shared;

/// The most an HTML page of this app weighs (a result's report with its charts is under 2 MB);
/// a larger one is passed on untouched.
const MOST: usize = 16 << 20;

/// Puts the runs going on every HTML page but their own.
pub async fn said(State(app): State<Shared>, request: Request, next: Next) -> Response {
    let own = request
        .uri()
        .path()
        .strip_prefix("/runs/")
        .and_then(|n| n.parse::<u64>().ok());
    let response = next.run(request).await;
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let going: Vec<String> = app
        .runs
        .going()
        .into_iter()
        .filter(|(n, _)| Some(*n) != own)
        .map(|(n, run)| line(n, &run.profile, &run.path))
        .collect();
    if !html || going.is_empty() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MOST).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let page = String::from_utf8_lossy(&bytes);
    let banner = format!("<div id=\"going\" class=\"going\">{}</div>", going.concat());
    let page = match page.find("</header>") {
        Some(at) => format!("{}{banner}{}", &page[..at + 9], &page[at + 9..]),
        None => page.replacen("<body>", &format!("<body>{banner}"), 1),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(page))
}

/// One run's line: what it does, and the way to it and to Stop.
fn line(n: u64, profile: &str, path: &str) -> String {
    let what = match profile {
        "verify" => "checking a card",
        _ => "measuring",
    };
    format!(
        "<form method=\"post\" action=\"/runs/{n}/stop\"><strong>Run {n} is {what}</strong> \
         {} ({}) · <a href=\"/runs/{n}\">watch it</a> · <button type=\"submit\">Stop</button> \
         <span class=\"sub\">(another run on the same disk waits for it)</span></form>",
        escape(path),
        escape(profile)
    )
}
