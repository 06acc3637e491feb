//! `iomark ui`: iomark for people who never open a terminal, as a local app in the browser.
//! It is a front end over the command line: a run is `iomark run … --progress json` as a child
//! process, whose progress lines reach the page as they come (server-sent events), whose Stop
//! is Ctrl-C (SIGINT: the run removes its test file as at a terminal), and whose result is read
//! back from the store it saved it in; nothing is measured or recomputed here.
//!
//! - `guard.rs`: every request's checks: the one-time secret (from the address opened, then a
//!   cookie of its own), a Host of this machine (DNS rebinding), a same-origin Origin on
//!   every action, and the security headers;
//! - `runs.rs`: the runs started (what their form sends, `form.rs`), their children and their
//!   progress; `going.rs`: the runs
//!   going said on every page, with the way to them and Stop;
//! - `mounts.rs`: what can be measured: the mounted filesystems, each with what `iomark info`
//!   knows of it;
//! - `pages.rs`: the screens, from the templates in `templates/` (a run's own, `watch.rs`);
//!   `grid.rs`: a run's figures
//!   in CrystalDiskMark's grid (`grid.css`), on a run's page and a result's; `ui.js`: the one
//!   small script (the grid and rate live, the time left; every page works without it);
//! - `compare.rs` (saved runs side by side, `iomark compare --json`), `submit.rs` (a run sent
//!   to a results site, `iomark submit`, after its whole document is shown), `health.rs` (the
//!   health checks saved, over time; a check now, `iomark health`, and its schedule, with the
//!   user's consent, `--install-timer`/`--remove-timer`).

mod compare;
mod form;
mod going;
mod grid;
mod guard;
mod health;
mod mounts;
mod pages;
mod runs;
mod submit;
mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::routing::{get, post};
use axum::Router;

pub use guard::cookie_name;

/// What the app is started with (`commands::ui`).
pub struct Config {
    /// The iomark binary the runs are made with: this one.
    pub exe: PathBuf,
    /// `--db` as given, passed to every child, so the app shows the store they save in.
    pub db: Option<String>,
    /// The secret the address opened carries.
    pub secret: String,
    /// Where the runs' documents are written before they are read back (removed at the end).
    pub work: PathBuf,
    /// The app stops after this long without a request while no run goes (started from a
    /// menu, it has no terminal to be stopped from); none: never.
    pub idle: Option<std::time::Duration>,
}

pub(crate) struct App {
    pub config: Config,
    /// The store the runs save in: the history and the results shown.
    pub store: iomark_store::Store,
    /// The address served: the only Host taken, with `localhost` for its port.
    pub address: SocketAddr,
    pub runs: runs::Runs,
    pub mounts: mounts::Mounts,
    /// When the last request came, in seconds since the app started.
    pub seen: std::sync::atomic::AtomicU64,
    pub started: std::time::Instant,
}

type Shared = Arc<App>;

/// Serves the app on `listener` until SIGINT or SIGTERM, or its idle time: whether it was the
/// idle time. `ready` is told the address first. The runs still going are stopped as Ctrl-C
/// stops them, and waited for.
pub async fn serve(
    store: iomark_store::Store,
    listener: std::net::TcpListener,
    config: Config,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<bool> {
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let address = listener.local_addr()?;
    let app = Arc::new(App {
        config,
        store,
        address,
        runs: Default::default(),
        mounts: Default::default(),
        seen: Default::default(),
        started: std::time::Instant::now(),
    });
    ready(address);
    let idle = idle(app.clone());
    let (tx, rx) = tokio::sync::oneshot::channel();
    let stopping = Arc::new(tokio::sync::Notify::new());
    let (runs, told) = (app.clone(), stopping.clone());
    // The runs are stopped first: a page watching one holds its connection until it ends.
    let server = axum::serve(listener, router(app.clone())).with_graceful_shutdown(async move {
        let was_idle = tokio::select! {
            _ = iomark_site::stopped() => false,
            _ = idle => true,
        };
        runs.runs.stop_all().await;
        told.notify_one();
        let _ = tx.send(was_idle);
    });
    // Connections still open 10 s after that (a page's keep-alive) are not waited for.
    tokio::select! {
        served = server => served?,
        _ = async {
            stopping.notified().await;
            tokio::time::sleep(Duration::from_secs(10)).await;
        } => {}
    }
    Ok(rx.await.unwrap_or(false))
}

/// `iomark ARGS… [--db …]` as a child, to its end (at most `within`): its standard output and
/// error, or what it said when it failed.
async fn iomark(app: &App, args: &[&str], within: Duration) -> Result<(String, String), String> {
    let (status, out, err) = iomark_status(app, args, within).await?;
    match status {
        0 => Ok((out, err)),
        _ => Err(format!("{out}{err}").trim().to_string()),
    }
}

/// `iomark ARGS` as a child, within `within`: its exit status (-1 for a signal), standard
/// output and standard error.
async fn iomark_status(
    app: &App,
    args: &[&str],
    within: Duration,
) -> Result<(i32, String, String), String> {
    let mut command = tokio::process::Command::new(&app.config.exe);
    command.args(args).arg("--color").arg("never");
    if let Some(db) = &app.config.db {
        command.arg("--db").arg(db);
    }
    command
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = match tokio::time::timeout(within, command.output()).await {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => return Err(format!("iomark could not start: {e}")),
        Err(_) => return Err(format!("iomark did not answer in {} s", within.as_secs())),
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    Ok((
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    ))
}

/// Ends when the app has had no request for its `idle` time and no run goes.
async fn idle(app: Shared) {
    let Some(idle) = app.config.idle else {
        return std::future::pending().await;
    };
    loop {
        tokio::time::sleep(Duration::from_secs(1).min(idle)).await;
        let seen = Duration::from_secs(app.seen.load(Ordering::Relaxed));
        if app.started.elapsed().saturating_sub(seen) >= idle && !app.runs.any_going() {
            return;
        }
    }
}

fn router(app: Shared) -> Router {
    Router::new()
        .route("/", get(pages::home))
        .route("/runs", post(runs::start))
        .route("/runs/{n}", get(watch::run))
        .route("/runs/{n}/events", get(runs::events))
        .route("/runs/{n}/stop", post(runs::stop))
        .route("/results/{id}", get(pages::result))
        .route("/results/{id}/card.png", get(pages::card))
        .route("/history", get(pages::history))
        .route("/compare", get(compare::compare))
        .route("/health", get(health::health))
        .route("/health/check", post(health::check))
        .route("/health/schedule", post(health::schedule))
        .route(
            "/results/{id}/submit",
            get(submit::preview).post(submit::send),
        )
        .route("/static/site.css", get(pages::stylesheet))
        .route("/static/ui.js", get(pages::script))
        .route("/favicon.ico", get(pages::favicon))
        .fallback(pages::not_found)
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            going::said,
        ))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            guard::guard,
        ))
        .with_state(app)
}
