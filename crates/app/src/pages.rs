//! The app's screens, from the templates in `templates/`: what to measure (`/`), a result
//! (`/results/ID`: its grid and verdicts, then the HTML report `iomark export` writes, with
//! the app's links above it) and its card, the saved runs (`/history`), and a page for
//! anything refused or missing (`trouble`). Every page works without the script. A run's own
//! page is `watch.rs`'s.

use askama::Template;
use axum::extract::{Path as UrlPath, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};

use crate::form::{Start, PROFILES};
use crate::grid::{self, Grid};
use crate::mounts::Place;
use crate::Shared;
use iomark_export::chart::{self, Kind};
use iomark_result::result::Summary;

#[derive(Template)]
#[template(path = "home.html")]
struct Home {
    title: String,
    places: Vec<Place>,
    profiles: &'static [&'static str],
    recent: Vec<Saved>,
    /// The form as it was filled in, where a start was refused, and why.
    form: Start,
    trouble: Option<String>,
}

pub async fn home(State(app): State<Shared>) -> Response {
    let form = Start {
        profile: "standard".into(),
        ..Start::default()
    };
    home_page(&app, form, None).await
}

/// The home page, its forms as `form` holds them; with `trouble`, why a start was refused
/// (400), said above them.
pub(super) async fn home_page(app: &Shared, form: Start, trouble: Option<String>) -> Response {
    let places = app.mounts.list(app).await;
    // Health checks have their own screen; a timer's may be many.
    let recent = app
        .store
        .history()
        .list(Some(2000))
        .await
        .unwrap_or_default();
    let recent = recent
        .iter()
        .filter(|s| s.profile != "health")
        .take(5)
        .map(Saved::of)
        .collect();
    let refused = trouble.is_some();
    let mut response = page(&Home {
        title: "Measure a disk".into(),
        places,
        profiles: &PROFILES,
        recent,
        form,
        trouble,
    });
    if refused {
        *response.status_mut() = StatusCode::BAD_REQUEST;
    }
    response
}

/// `/results/ID`: the report `iomark export --format html` writes, the app's links above it.
pub async fn result(State(app): State<Shared>, UrlPath(id): UrlPath<String>) -> Response {
    let Ok(doc) = app.store.history().get(&id).await else {
        return not_found().await;
    };
    let Ok(report) = iomark_export::exporter(iomark_export::Format::Html).export(&doc) else {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "the report could not be drawn",
        )
            .into_response();
    };
    // For an SD card, the verdict Pi owners know: Raspberry Pi's own SD Card Speed Test's.
    let pi_test = iomark_result::result::agnostics::verdict(&doc)
        .map(|(_, said)| format!("<p id=\"agnostics\"><strong>{}</strong></p>", escape(&said)))
        .unwrap_or_default();
    // The figures in the grid people know, the verdicts beside them, the report below.
    let glance = match doc.tests.is_empty() {
        true => pi_test,
        false => {
            let headline = iomark_profiles::headline(&doc)
                .map(|h| {
                    format!(
                        "<p id=\"headline\"><strong>{}</strong>: {}</p>",
                        escape(&h.short),
                        escape(&h.sentence)
                    )
                })
                .unwrap_or_default();
            let verdicts = match headline.is_empty() && pi_test.is_empty() {
                true => String::new(),
                false => format!("<div class=\"verdicts\">{headline}{pi_test}</div>"),
            };
            format!(
                "<style>{}</style>{}{verdicts}<p><a href=\"#report\">The whole report</a>: \
                 every figure, its charts and how it was measured.</p>",
                grid::STYLE,
                Grid::of(&doc).render().unwrap_or_default()
            )
        }
    };
    let links = format!(
        "<body><style>{MENU}</style><nav class=\"app-menu\"><a href=\"/\"><strong>iomark</strong></a> \
         <a href=\"/\">measure</a> <a href=\"/history\">history</a> \
         <a href=\"/health\">health</a></nav><p><a href=\"/\">Measure again</a> · <a href=\"/history\">History</a> · \
         <a href=\"/results/{id}/card.png\" download>The card to share (PNG)</a> · \
         <a href=\"/results/{id}/submit\">Send to a results site</a></p>{glance}\
         <div id=\"report\"></div>",
        id = encode(&doc.id)
    );
    let report = in_the_app_s_words(&String::from_utf8_lossy(&report));
    let mut response = Html(report.replacen("<body>", &links, 1)).into_response();
    // The report's own styles are inline: its policy, with this app's links.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; \
             frame-ancestors 'none'",
        ),
    );
    response
}

/// A report's advice in the app's words: its options by the names the form gives them, not the
/// command's flags (issue 60: "use more --loops or a longer --duration").
fn in_the_app_s_words(report: &str) -> String {
    [
        (
            "more --loops or a longer --duration",
            "more loops or longer ones (Options, when you measure again)",
        ),
        (
            "(<code>iomark run --print-fio</code>)",
            "(iomark's command line writes fio's job file for it)",
        ),
        ("--loops", "more loops (Options)"),
        ("--duration", "longer loops (Options)"),
        ("--size", "another test file size (Options)"),
    ]
    .iter()
    .fold(report.to_string(), |text, (flag, words)| {
        text.replace(flag, words)
    })
}

/// The app's menu on a result's page, whose report carries only its own styles (issue 60:
/// result pages had no menu); and its charts at a phone's width drawn at 760 of their 900
/// pixels, in a figure that scrolls sideways (they were shrunk to 38%, their labels to 5 px).
const MENU: &str = ".app-menu{background:#1f2329;padding:.55rem 1rem;margin:0 0 .8rem}\
    .app-menu a{color:#fff;margin-right:1rem;text-decoration:none}\
    @media (max-width:40rem){figure.chart{overflow-x:auto}figure.chart svg{max-width:none;width:760px}}";

/// `/favicon.ico`: none, said plainly (a browser asks on every page; a 404 page each time was
/// noise in its console, issue 60).
pub async fn favicon() -> StatusCode {
    StatusCode::NO_CONTENT
}

/// `/results/ID/card.png`: the card `iomark plot --kind card` draws.
pub async fn card(State(app): State<Shared>, UrlPath(id): UrlPath<String>) -> Response {
    let Ok(doc) = app.store.history().get(&id).await else {
        return not_found().await;
    };
    match chart::png(Kind::Card, &[&doc]) {
        Ok(png) => ([(header::CONTENT_TYPE, "image/png")], png).into_response(),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the card could not be drawn: {e}"),
        )
            .into_response(),
    }
}

#[derive(Template)]
#[template(path = "history.html")]
struct History {
    title: String,
    runs: Vec<Saved>,
}

/// A saved run in a line.
struct Saved {
    id: String,
    date: String,
    device: String,
    profile: String,
    what: String,
}

impl Saved {
    fn of(s: &Summary) -> Saved {
        let what = match (&s.headline, s.seq_read_mb_per_s, s.seq_write_mb_per_s) {
            (Some(h), _, _) => h.clone(),
            // The one figure rule, as `iomark history` writes them (it said 7173.4 where the
            // terminal says 7173).
            (None, Some(r), Some(w)) => format!(
                "SEQ1M read {} MB/s, write {} MB/s",
                iomark_result::units::figure(r),
                iomark_result::units::figure(w)
            ),
            _ => String::new(),
        };
        Saved {
            id: s.id.clone(),
            date: s
                .started_at
                .chars()
                .take(16)
                .collect::<String>()
                .replace('T', " "),
            device: s.device.clone().unwrap_or_default(),
            profile: s.profile.clone(),
            what,
        }
    }
}

pub async fn history(State(app): State<Shared>) -> Response {
    match app.store.history().list(Some(5000)).await {
        Ok(runs) => page(&History {
            title: "Saved runs".into(),
            runs: runs
                .iter()
                .filter(|s| s.profile != "health")
                .take(200)
                .map(Saved::of)
                .collect(),
        }),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the history could not be read: {e}"),
        )
            .into_response(),
    }
}

/// The site's stylesheet and the app's own, once.
static STYLESHEET: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    [iomark_site::STYLESHEET, include_str!("ui.css"), grid::STYLE].concat()
});

pub async fn stylesheet() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        STYLESHEET.as_str(),
    )
        .into_response()
}

pub async fn script() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("ui.js"),
    )
        .into_response()
}

pub async fn not_found() -> Response {
    trouble(
        StatusCode::NOT_FOUND,
        "Not here",
        "This app has no such page, or the run or result it showed is no longer kept.",
        ("/", "Back to measuring"),
    )
}

#[derive(Template)]
#[template(path = "trouble.html")]
struct Trouble<'a> {
    title: &'a str,
    said: &'a str,
    back_href: &'a str,
    back_text: &'a str,
}

/// Something went wrong: a page in the app's own frame saying what it means and what to do,
/// with the way back, under `status`.
pub(super) fn trouble(
    status: StatusCode,
    title: &str,
    said: &str,
    (back_href, back_text): (&str, &str),
) -> Response {
    let mut response = page(&Trouble {
        title,
        said,
        back_href,
        back_text,
    });
    *response.status_mut() = status;
    response
}

pub(super) fn page(template: &impl Template) -> Response {
    match template.render() {
        Ok(html) => Html(html).into_response(),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the page could not be drawn: {e}"),
        )
            .into_response(),
    }
}

/// Text as HTML text.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
