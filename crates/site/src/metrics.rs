//! What an operator watches: a log line per request on standard error (`tracing`: text, or
//! JSON with `--log json`), and Prometheus metrics at `/metrics` (its text format), through the
//! `metrics` facade and its Prometheus exporter, whose own HTTP listener is left out: the site
//! serves them. Requests by route, method and status, and their time by route; submissions
//! saved, and refused by reason; the answer cache's hits and misses; the store pool's
//! connections; the threads answering requests (`serve --workers`). A route is the pattern the
//! site knows (`/devices/{key}`), never the address asked for, so no client can make new
//! series.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use axum::extract::Request;
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

use crate::Shared;

/// Request times' histogram buckets, in seconds: from a cached page to the time limit.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// The process's recorder, installed once: the `metrics` facade has one per process.
fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets(&BUCKETS)
            .expect("the buckets are not empty")
            .build_recorder();
        let handle = recorder.handle();
        // Another recorder installed first would keep these metrics; the page says so empty.
        let _ = metrics::set_global_recorder(recorder);
        handle
    })
}

/// Starts recording (before the first request).
pub fn install() {
    handle();
}

/// How `iomark serve` writes what happens: a line per request and the site's own events
/// (text or JSON), or its events alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Log {
    Text,
    Json,
    /// Warnings and errors and the site's own events, no line per request.
    Quiet,
}

static REQUESTS: AtomicBool = AtomicBool::new(true);

/// Sends the process's events (`tracing`) to standard error as `log` says: iomark's own at
/// INFO and above, its libraries' warnings and errors (sqlx's slow statements among them; its
/// pool's notes on connections it replaced are left out). Once per process; a second call
/// changes nothing.
pub fn install_log(log: Log) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    REQUESTS.store(log != Log::Quiet, Ordering::Relaxed);
    let wanted = tracing_subscriber::filter::Targets::new()
        .with_default(tracing::Level::WARN)
        .with_target("iomark", tracing::Level::INFO);
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false);
    let registry = tracing_subscriber::registry().with(wanted);
    let _ = match log {
        Log::Json => registry
            .with(lines.json().flatten_event(true).with_current_span(false))
            .try_init(),
        Log::Text | Log::Quiet => registry.with(lines).try_init(),
    };
}

/// The client a request was taken as (the proxy's last X-Forwarded-For address, or the
/// connection's), which the guard puts on the answer for this layer's log line.
#[derive(Clone, Copy)]
pub struct Client(pub IpAddr);

/// The route a path belongs to, as the router names it; `other` for any path it has none for.
pub fn route(path: &str) -> &'static str {
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match parts.as_slice() {
        [""] => "/",
        ["devices", _] => "/devices/{key}",
        ["results", _] => "/results/{id}",
        ["results", _, "card.png"] => "/results/{id}/card.png",
        ["compare"] => "/compare",
        ["about"] => "/about",
        ["metrics"] => "/metrics",
        ["moderate"] => "/moderate",
        ["moderate", "results", _, _] => "/moderate/results/{id}/{action}",
        ["static", "site.css"] => "/static/site.css",
        ["api", "v1", "leaderboard"] => "/api/v1/leaderboard",
        ["api", "v1", "devices", _] => "/api/v1/devices/{key}",
        ["api", "v1", "results"] => "/api/v1/results",
        ["api", "v1", "results", _] => "/api/v1/results/{id}",
        ["api", "v1", "compare"] => "/api/v1/compare",
        ["api", "v1", "health"] => "/api/v1/health",
        ["api", "v1", "card-health"] => "/api/v1/card-health",
        ["api", "v1", "openapi.json"] => "/api/v1/openapi.json",
        ["api", "v1", "dump"] => "/api/v1/dump",
        ["api", "v1", "dump", _] => "/api/v1/dump/{file}",
        ["api", "v1", "admin", ..] => "/api/v1/admin/…",
        _ => "other",
    }
}

/// A submission refused before it reached the store, and why (`reason` is one word of a fixed
/// list: `DocumentError::reason`, `not_utf8`, and the intake's `implausible`, `out_of_range`,
/// `too_large`).
pub fn refused(reason: &'static str) {
    metrics::counter!("iomark_submissions_refused_total", "reason" => reason).increment(1);
}

/// A submission saved (answered 201).
pub fn saved() {
    metrics::counter!("iomark_submissions_saved_total").increment(1);
}

/// A submission sent again by its submitter after it was saved, answered 201 as the first was.
pub fn replayed() {
    metrics::counter!("iomark_submissions_replayed_total").increment(1);
}

/// Counts every request and times it, by route, and writes its log line.
pub async fn layer(request: Request, next: Next) -> Response {
    let route = route(request.uri().path());
    let method = request.method().as_str().to_string();
    let path = REQUESTS
        .load(Ordering::Relaxed)
        .then(|| logged_path(request.uri().path()));
    let started = Instant::now();
    let response = next.run(request).await;
    let took = started.elapsed();
    let status = response.status().as_u16();
    if let Some(path) = path {
        let client = response.extensions().get::<Client>().map(|c| c.0);
        let client = client.map(|c| c.to_string()).unwrap_or_default();
        let ms = (took.as_secs_f64() * 1e4).round() / 10.0;
        let cached = response.headers().contains_key(header::AGE);
        // tracing takes a level known where it is written: one line for each.
        macro_rules! line {
            ($level:ident) => {
                tracing::$level!(target: "iomark::request", %method, route, %path, status, ms,
                    cached, client)
            };
        }
        if status >= 500 {
            line!(warn);
        } else {
            line!(info);
        }
    }
    let status = status.to_string();
    metrics::counter!("iomark_requests_total",
        "route" => route, "method" => method, "status" => status)
    .increment(1);
    metrics::histogram!("iomark_request_duration_seconds", "route" => route)
        .record(took.as_secs_f64());
    response
}

/// The most of a path a log line holds: a client may ask for any length of address, which
/// would otherwise be written whole on every request.
const LOGGED_PATH: usize = 200;

/// A path as its log line shows it: the path alone (a query may hold what someone searched
/// for), control characters escaped, cut at [`LOGGED_PATH`] characters with `…`.
fn logged_path(path: &str) -> String {
    let mut shown: String = iomark_result::result::printable(path)
        .chars()
        .take(LOGGED_PATH + 1)
        .collect();
    if shown.chars().count() > LOGGED_PATH {
        shown = shown.chars().take(LOGGED_PATH).collect();
        shown.push('…');
    }
    shown
}

/// `GET /metrics`.
pub async fn metrics(axum::extract::State(state): axum::extract::State<Shared>) -> Response {
    let (open, idle) = state.store.connections();
    metrics::gauge!("iomark_store_connections", "state" => "open").set(open as f64);
    metrics::gauge!("iomark_store_connections", "state" => "idle").set(idle as f64);
    let workers = tokio::runtime::Handle::current().metrics().num_workers();
    metrics::gauge!("iomark_workers").set(workers as f64);
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        handle().render(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_path_is_cut_and_a_control_character_escaped() {
        assert_eq!(logged_path("/devices/a"), "/devices/a");
        assert_eq!(logged_path("/x\u{1b}[2J"), "/x\\u{1b}[2J");
        let long = format!("/{}", "é".repeat(5000));
        let shown = logged_path(&long);
        assert_eq!(shown.chars().count(), LOGGED_PATH + 1);
        assert!(shown.ends_with('…'));
        let whole = format!("/{}", "a".repeat(LOGGED_PATH - 1));
        assert_eq!(logged_path(&whole), whole, "as long as allowed: kept whole");
    }
}
