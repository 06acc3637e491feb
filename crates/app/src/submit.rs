//! `/results/ID/submit`: a run sent to a results site as `iomark submit` sends it. First what
//! leaves the machine, whole (`--dry-run`), for the site named; then, on Send, the submission
//! itself (`--yes`), its receipt (the result's address, where it stands) and the link.

use std::time::Duration;

use askama::Template;
use axum::extract::{Form, Path as UrlPath, Query, State};
use axum::response::Response;
use serde::Deserialize;

use crate::Shared;

#[derive(Deserialize)]
pub struct Site {
    #[serde(default)]
    pub server: String,
    #[serde(default)]
    pub model: String,
}

#[derive(Template)]
#[template(path = "submit.html")]
struct Page {
    title: String,
    id: String,
    server: String,
    model: String,
    /// The document as it would be sent, or why it cannot be.
    preview: Option<String>,
    problem: Option<String>,
    /// After Send: what the site answered, and the result's address there.
    receipt: Option<String>,
    link: Option<String>,
}

/// A run's id as the history gives it: letters and digits (never an option to the child).
fn plain(id: &str) -> bool {
    !id.is_empty() && id.len() <= 40 && id.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The site's address, as `iomark submit --server` takes it: http(s), no spaces.
fn checked(server: &str) -> Option<String> {
    let server = server.trim();
    let ok = (server.starts_with("http://") || server.starts_with("https://"))
        && !server.contains(char::is_whitespace)
        && server.len() <= 300;
    ok.then(|| server.to_string())
}

pub async fn preview(
    State(app): State<Shared>,
    UrlPath(id): UrlPath<String>,
    Query(site): Query<Site>,
) -> Response {
    let server = match site.server.is_empty() {
        true => std::env::var("IOMARK_SERVER").unwrap_or_default(),
        false => site.server.clone(),
    };
    if !plain(&id) {
        return crate::pages::not_found().await;
    }
    let mut page = Page {
        title: "Send to a results site".into(),
        id: id.clone(),
        server: server.clone(),
        model: site.model.clone(),
        preview: None,
        problem: None,
        receipt: None,
        link: None,
    };
    if let Some(server) = checked(&server) {
        let mut args = vec![
            "submit",
            id.as_str(),
            "--server",
            server.as_str(),
            "--dry-run",
        ];
        // One word, `--model=…`: a name beginning with '-' is the name, never an option.
        let model = format!("--model={}", site.model.trim());
        if !site.model.trim().is_empty() {
            args.push(&model);
        }
        match crate::iomark(&app, &args, Duration::from_secs(30)).await {
            Ok((document, _)) => page.preview = Some(document),
            Err(why) => page.problem = Some(why),
        }
    } else if !server.is_empty() {
        page.problem = Some(format!(
            "'{server}' is not a site's address: give http://HOST or https://HOST"
        ));
    }
    crate::pages::page(&page)
}

pub async fn send(
    State(app): State<Shared>,
    UrlPath(id): UrlPath<String>,
    Form(site): Form<Site>,
) -> Response {
    if !plain(&id) {
        return crate::pages::not_found().await;
    }
    let mut page = Page {
        title: "Send to a results site".into(),
        id: id.clone(),
        server: site.server.clone(),
        model: site.model.clone(),
        preview: None,
        problem: None,
        receipt: None,
        link: None,
    };
    let Some(server) = checked(&site.server) else {
        page.problem = Some("give the site's address: http://HOST or https://HOST".into());
        return crate::pages::page(&page);
    };
    let mut args = vec!["submit", id.as_str(), "--server", server.as_str(), "--yes"];
    let model = format!("--model={}", site.model.trim());
    if !site.model.trim().is_empty() {
        args.push(&model);
    }
    match crate::iomark(&app, &args, Duration::from_secs(120)).await {
        Ok((said, _)) => {
            page.link = said
                .lines()
                .find_map(|l| l.strip_prefix("url: "))
                .map(|u| u.trim().to_string())
                .filter(|u| u.starts_with("http://") || u.starts_with("https://"));
            page.receipt = Some(said);
        }
        Err(why) => page.problem = Some(why),
    }
    crate::pages::page(&page)
}
