//! `iomark serve`: the results site (its stylesheet, security headers and stop signal are the
//! local app's too, `crates/app/`). The site's server-rendered pages (askama templates,
//! checked at compile time and escaping by default; no JavaScript) and a JSON API under
//! `/api/v1/`, both over the store, on SQLite or PostgreSQL.
//!
//! - `views/`: what a page, its API answer and its card show, a file per resource, computed
//!   once from the store's rows (so a page and its API answer always agree); `pages/` draws
//!   them as HTML, a file per resource, and `api.rs` answers them as JSON; `error.rs`: how a
//!   request fails, as JSON or as a page;
//! - `answers.rs`: what the API answers, as `iomark submit` and `iomark health --share` read
//!   it (the same types);
//! - `openapi.rs`: the API described (OpenAPI 3.1, from the handlers' own annotations);
//! - `card.rs`: a result's card as a PNG to post;
//! - `dump/`: every public result in bulk, made in the background into files, with the
//!   licence the operator publishes them under;
//! - `cache.rs`: GET answers kept for a few seconds (every visitor sees the same pages);
//! - `metrics.rs`: what an operator watches, at `/metrics` (Prometheus);
//! - `guard.rs`: what every request passes through: the per-client rate limit, the time
//!   limit, the security headers; `writers.rs`: the clients that wrote a moment ago, whose
//!   reads go to the store's primary when it has read replicas;
//!
//! One store pool for the process's lifetime. SIGTERM or SIGINT stops accepting connections
//! and gives the requests in flight [`DRAIN`] to finish; a submission answered 201 is committed
//! before the answer is sent.
//!
//! What lives where: `iomark serve`: `lib.rs` (routes, one store pool, graceful shutdown);
//! `intake/` (the one intake: every document sent made canonical once, `mod.rs`, by the site's
//! rules, `rules.rs`, its texts, `texts.rs`, every number's unit, `units.rs`, and physics,
//! `physics.rs`; nothing after reads what was sent); `views/`
//! (what a page, its API answer and its card show, found once from the store's rows: a file per
//! resource, `leaderboard.rs`, `device.rs`, `compare.rs`, `listing.rs` (every result a page at a
//! time, the raw data), `standing.rs` (where a submitted result stands, in figures and a sentence
//! each, for the 201 answer and `iomark submit`), `params.rs` (what a query parameter may hold,
//! checked there and described from the same constants in the OpenAPI document), and in `mod.rs`
//! the one visible result and the class a `profile` names); `pages/` (those views as HTML from the
//! askama templates in `templates/`, which escape every value: a file per resource,
//! `leaderboard.rs`, `device.rs`, `result.rs` (the report, and the Open Graph tags that make a
//! posted link preview its card), `compare.rs`, `histogram.rs` (a device's distribution as SVG),
//! `moderate.rs` (the moderators' page and its forms: HTTP Basic with the secret, forms taken only
//! from this site's own origin, never cached), and in `mod.rs` what they share) and `api.rs` (the
//! same as JSON under `/api/v1/`, submit and delete) both read `views/`, never each other;
//! `admin.rs` (the moderators' API, on only with `--admin-token-file`: hide, restore, merge,
//! review, audit; never cached); `openapi.rs` (the API described: the OpenAPI 3.1 document at
//! `/api/v1/openapi.json`, made from the handlers' `#[utoipa::path]` annotations and the types they
//! answer with, plus the refusals any route can give, added once); `error.rs` (how a request fails:
//! a `Failure` answered as JSON, `Api`, or as a page, `Page`, one type with the format as its
//! parameter; the JSON writer that escapes markup); `card.rs` (a result's card as a PNG to post,
//! drawn once and kept), `dump/` (every public result in bulk: `mod.rs` the dumps kept in
//! `--dump-dir`, when the next is due, the routes that serve the files by streaming them and the
//! index; `make.rs` one dump made, the store read a page at a time and the gzip JSON lines and the
//! results' and the cards' CSV (`columns.rs`) written on a blocking thread under new names, synced,
//! renamed over regular files only, a failed dump discarded whole; `patch.rs` the last dump
//! less the results deleted or hidden since, at most every 30 s, while it stays served), `metrics.rs` (what an operator watches: a log line per request through
//! `tracing`, text or JSON (`--log`), with the client the guard put on the answer; Prometheus
//! metrics at `/metrics`, through the `metrics` facade: every request counted by route pattern,
//! method and status, and timed; submissions saved, and refused by reason
//! (`result::DocumentError::reason` and the intake's); the cache's hits; the store's connections; the threads
//! answering, `--workers`), `guard.rs` (rate limit, time limit, one shape for every failure,
//! security headers; and `WholeBody`, a POST's whole body read before its handler as an extractor,
//! so a method a route does not take is answered 405 before any body is read), `listener.rs`
//! (connections: a cap below the open-file limit, a share per address, idle and slow ones cut;
//! `evict.rs`: at the cap, the one waiting longest with no request in flight leaves),
//! `cache.rs` (answers kept a few seconds, keyed by the parameters pages read, bounded in bytes:
//! when full, those asked for only once go first; one render per missing answer, the requests that
//! miss meanwhile waiting for it; a submission or a deletion (its handler naming the device,
//! `Changed`) or a busy device's background refresh forgets every answer but the other devices'
//! pages; a moderator's change forgets them all), `writers.rs` (the clients that wrote in the last
//! 10 s: with read replicas, `guard.rs` runs their requests in `store::on_primary` and the cache is
//! not read for them; per process, so the proxy sends a writer's requests to one process for as
//! long). It knows nothing of terminals, the engine.

mod admin;
pub mod answers;
mod api;
mod cache;
mod card;
mod dump;
mod error;
mod evict;
mod guard;
pub mod intake;
mod listener;
mod metrics;
mod openapi;
mod pages;
mod views;
mod watched;
mod writers;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::routing::get;
use axum::Router;
use utoipa::OpenApi;
use utoipa_axum::{router::OpenApiRouter, routes};

use iomark_store::Store;

pub use guard::secured_with;
pub use metrics::{install_log, Log};

/// The site's stylesheet, which the app's pages use too.
pub const STYLESHEET: &str = include_str!("site.css");

/// The largest request body taken, far above any result document (the real runs kept in
/// `tests/golden/charts/` are 4 to 25 KB: a standard run 22 KB, a surface scan 25 KB) and far
/// below what would tie up the server; fields a newer iomark added are kept, within it.
pub const BODY_LIMIT: usize = 1 << 20;
/// A request that takes longer is answered 503.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Config {
    pub listen: SocketAddr,
    /// Where links in receipts point, without a trailing slash [default: http:// and the
    /// address bound].
    pub public_url: Option<String>,
    pub submissions_per_minute: u32,
    pub requests_per_minute: u32,
    pub show_synthetic: bool,
    /// How long a page or API answer may be served again; zero for never.
    pub cache: Duration,
    /// Take the client's address from X-Forwarded-For (behind a proxy that sets it).
    pub trust_forwarded_for: bool,
    /// The moderators' secret; without it the admin API answers 404.
    pub admin_token: Option<String>,
    /// The licence the site publishes its results under, as people are told it (an SPDX
    /// name or a sentence).
    pub data_licence: String,
    /// Where dumps of every public result are made, and how often (zero: never).
    pub dump_dir: std::path::PathBuf,
    pub dump_every: Duration,
    /// The most of a group's latest results a submission's standing compares with.
    pub standing_sample: i64,
    /// How many independent neighbourhoods must have measured a device before it is ranked
    /// (1: every device at once, as a history of one's own).
    pub corroboration: u32,
}

pub struct State {
    pub store: Store,
    pub config: Config,
    pub public_url: String,
    pub limiter: guard::Limiter,
    /// What the leaderboard's filters offer, per class, as read at most every 30 s.
    pub choices: views::Choices,
    pub cache: cache::Cache,
    pub cards: card::Cards,
    pub dumps: dump::Dumps,
    pub writers: writers::Writers,
}

pub type Shared = Arc<State>;

/// The site's routes over a shared state: the pages, and the API with its description.
pub fn router(state: Shared) -> Router {
    let (api, doc) = OpenApiRouter::with_openapi(openapi::Doc::openapi())
        .routes(routes!(api::leaderboard))
        .routes(routes!(api::device))
        .routes(routes!(api::results, api::submit))
        .routes(routes!(api::result, api::delete))
        .routes(routes!(api::compare))
        .routes(routes!(api::health))
        .routes(routes!(watched::share, watched::withdraw))
        .routes(routes!(dump::index))
        .routes(routes!(dump::file))
        .routes(routes!(admin::hide))
        .routes(routes!(admin::restore))
        .routes(routes!(admin::rank))
        .routes(routes!(admin::merge))
        .routes(routes!(admin::hide_device))
        .routes(routes!(admin::restore_device))
        .routes(routes!(admin::audit))
        .routes(routes!(admin::review))
        .split_for_parts();
    let described: Arc<str> = openapi::document(doc).into();
    Router::new()
        .route("/", get(pages::leaderboard))
        .route("/devices/{key}", get(pages::device))
        .route("/results/{id}", get(pages::result))
        .route("/results/{id}/card.png", get(card::card))
        .route("/compare", get(pages::compare))
        .route("/about", get(pages::about))
        .route("/moderate", get(pages::moderate))
        .route(
            "/moderate/results/{id}/{action}",
            axum::routing::post(pages::moderate_act),
        )
        .route("/static/site.css", get(pages::stylesheet))
        .route("/metrics", get(metrics::metrics))
        .route(
            "/api/v1/openapi.json",
            get(move || async move {
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    described.to_string(),
                )
            }),
        )
        .merge(api)
        .fallback(pages::not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            cache::layer,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::guard,
        ))
        .layer(axum::middleware::from_fn(metrics::layer))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

/// How long requests under way when the site is told to stop are given to end: SIGTERM ends
/// the server within seconds whatever a request is doing (issue 59: a page that never ended
/// kept a stopped site up). Every page is drawn in well under a second; with [`CLOSING`] the
/// server is gone within about three (the eighth attack pass measured 4.18 s on a loaded
/// machine with 3 s here and the close unbounded: too near the 5 s promised).
pub const DRAIN: Duration = Duration::from_secs(2);
/// How long the store's connections are given to close once the requests are done or cut off
/// (a stopped PostgreSQL answers no goodbye).
pub const CLOSING: Duration = Duration::from_secs(1);

/// Serves on `listener` (bound by the caller before it made anything, so that a port in use
/// is said before a store is created) until SIGTERM or SIGINT. `ready` is told the address
/// bound (port 0 picks one).
pub async fn serve(
    store: Store,
    listener: std::net::TcpListener,
    config: Config,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = listener::Guarded::new(
        tokio::net::TcpListener::from_std(listener)?,
        !config.trust_forwarded_for,
    );
    let address = axum::serve::Listener::local_addr(&listener)?;
    let limiter = guard::Limiter::new(config.requests_per_minute, config.submissions_per_minute);
    let dumps = dump::Dumps::open(
        config.dump_dir.clone(),
        config.dump_every,
        config.data_licence.clone(),
    )
    .map_err(|e| std::io::Error::other(format!("--dump-dir: {e}")))?;
    let public_url = config
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{address}"));
    let state = Arc::new(State {
        store,
        public_url,
        limiter,
        choices: Default::default(),
        cache: cache::Cache::new(config.cache),
        cards: Default::default(),
        dumps,
        writers: Default::default(),
        config,
    });
    metrics::install();
    let dumping = tokio::spawn(dump::keep_made(state.clone()));
    let refreshing = tokio::spawn(keep_fresh(state.clone()));
    ready(address);
    let app = router(state.clone()).into_make_service_with_connect_info::<listener::Peer>();
    // At SIGTERM the site stops taking requests and gives those under way [`DRAIN`] to end.
    let (stopping, mut stop) = tokio::sync::watch::channel(false);
    let served = axum::serve(listener, app).with_graceful_shutdown(async move {
        stopped().await;
        let _ = stopping.send(true);
    });
    let drained = async move {
        let _ = stop.wait_for(|stop| *stop).await;
        tokio::time::sleep(DRAIN).await;
    };
    tokio::select! {
        served = std::future::IntoFuture::into_future(served) => served?,
        () = drained => tracing::warn!(
            "requests still under way {} s after the signal to stop were cut off",
            DRAIN.as_secs()
        ),
    }
    // A dump being made stops here; what it wrote is removed at the next start.
    dumping.abort();
    let _ = dumping.await;
    // A refresh cut here is rolled back; its marks stay for the next start.
    refreshing.abort();
    let _ = refreshing.await;
    // Every request has finished: close the pool (PostgreSQL sees clean disconnections).
    if let Ok(state) = Arc::try_unwrap(state) {
        let _ = tokio::time::timeout(CLOSING, state.store.close()).await;
    }
    Ok(())
}

/// Refreshes, every second, the aggregates submissions left to the background (`store::stale`).
async fn keep_fresh(state: Shared) {
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        match state.store.derivation().refresh_stale().await {
            Ok(refreshed) if refreshed.is_empty() => {}
            Ok(refreshed) => {
                ::metrics::counter!("iomark_store_background_refreshes_total")
                    .increment(refreshed.len() as u64);
                // Their pages and every leaderboard may show the aggregates as they were; the
                // other devices' pages do not (emptying the whole cache each second took them
                // too, on a site where busy devices keep the pass at work).
                state.cache.forget(&refreshed);
            }
            Err(e) => tracing::error!("the background refresh of devices' figures: {e}"),
        }
    }
}

/// Ends at SIGTERM or SIGINT: when a server (the site, the app) stops taking requests.
pub async fn stopped() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        std::future::pending::<()>().await;
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
