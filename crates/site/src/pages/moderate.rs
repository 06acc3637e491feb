//! `/moderate`: the moderators' page. What to review (results kept out of rankings or naming no
//! device, ranked results far outside their model's others, new devices) and the last actions,
//! each result with a form that hides, restores or (one that waits for review) ranks it with a
//! reason. Plain forms, no script:
//! the browser sends the site's secret as HTTP Basic credentials (any user name, the secret as
//! the password), which it asks for itself on a 401. A browser also sends those credentials
//! with a form another site posts here, so a form is taken only from this site's own pages (its
//! `Origin`, else `Sec-Fetch-Site: same-origin`: this site's pages send no referrer, so a
//! browser's Origin from them is `null`). Never cached: the answer cache passes it by.
//! The API (`/api/v1/admin/`) does the same and more (merges, whole devices).

use std::collections::HashMap;

use axum::extract::Form;
use axum::http::HeaderMap;
use base64::Engine;

use super::*;
use crate::admin::{is_secret, REASON_MAX};
use iomark_profiles::reasons::words;
use iomark_store::{Entry, Moderated};

#[derive(Template)]
#[template(path = "moderate.html")]
struct ModeratePage {
    title: String,
    done: Option<String>,
    sections: [Section; 3],
    audit: Vec<AuditRow>,
}

/// One kind of result to review.
struct Section {
    heading: &'static str,
    id: &'static str,
    /// What the page says where there is none.
    empty: &'static str,
    rows: Vec<Row>,
}

/// A result to review.
struct Row {
    id: String,
    href: String,
    date: String,
    device: String,
    label: String,
    why: String,
    /// It waits for a moderator before it ranks: a form ranks it.
    waits: bool,
}

struct AuditRow {
    at: String,
    action: String,
    target: String,
    reason: String,
    /// A hidden result's restore form is offered.
    restorable: bool,
}

/// How many of each kind the page lists.
const SHOWN: usize = 200;

/// Why a request may not moderate, if it may not.
fn refused(state: &Shared, headers: &HeaderMap) -> Option<Response> {
    if state.config.admin_token.is_none() {
        return Some(Failed::<false>(Failure::not_found("there is no page here")).into_response());
    }
    let password = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("basic"))
        .and_then(|(_, encoded)| {
            base64::engine::general_purpose::STANDARD
                .decode(encoded.trim())
                .ok()
        })
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|pair| pair.split_once(':').map(|(_, p)| p.to_string()));
    if password.is_some_and(|p| is_secret(state, &p)) {
        return None;
    }
    let mut response = Failed::<false>(Failure::new(
        StatusCode::UNAUTHORIZED,
        "moderating needs the site's secret: any user name, the secret as the password",
    ))
    .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"iomark moderators\", charset=\"UTF-8\""),
    );
    Some(response)
}

/// Whether a form comes from this site's own pages: its Origin is this site's, scheme and all
/// (the origin of `--public-url` where it is given, else `http://` and the Host asked for:
/// the tenth attack pass had a form from `http://` taken by an `https://` site, and one from
/// `https://` by a plain one); where it has none, or `null` (what a browser sends from a page
/// whose referrer policy is `no-referrer`, as every page here is), the browser's own
/// `Sec-Fetch-Site` says same-origin (a header no page can set).
fn from_here(headers: &HeaderMap, public_url: Option<&str>) -> bool {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let ours = match public_url {
        Some(url) => Some(url.to_string()),
        None => text(header::HOST).map(|host| format!("http://{host}")),
    };
    match (text(header::ORIGIN), ours) {
        // A browser writes an origin without a path: one with any (`…/`) is none.
        (Some(origin), Some(ours)) if origin != "null" => {
            let whole = origin
                .split_once("://")
                .is_some_and(|(_, a)| !a.contains('/'));
            whole && origin_of(origin).is_some_and(|o| Some(o) == origin_of(&ours))
        }
        (Some(origin), None) if origin != "null" => false,
        _ => text(header::HeaderName::from_static("sec-fetch-site")) == Some("same-origin"),
    }
}

/// A URL's origin as browsers write it: its scheme and authority in lower case, without a
/// path or the scheme's default port.
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest.split('/').next()?.to_ascii_lowercase();
    let default = match scheme.as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => return None,
    };
    let authority = authority.strip_suffix(default).unwrap_or(&authority);
    (!authority.is_empty()).then(|| format!("{scheme}://{authority}"))
}

fn row(e: Entry, why: String) -> Row {
    Row {
        href: format!("/results/{}", encode(&e.id)),
        date: e.started_at.chars().take(10).collect(),
        device: e.device_name,
        label: e.label.unwrap_or_default(),
        why,
        waits: e.waits,
        id: e.id,
    }
}

pub async fn moderate(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if let Some(refusal) = refused(&state, &headers) {
        return refusal;
    }
    let page = async {
        let flagged = state.store.site().review(SHOWN as u32).await?;
        let (outliers, new_devices) = state.store.site().unusual(SHOWN).await?;
        let audit = state.store.moderation().audit(SHOWN as u32).await?;
        Ok::<_, iomark_store::StoreError>(ModeratePage {
            title: "Moderating".into(),
            // Said by the page from what was done, never text a link carries.
            done: match (query.get("done").map(String::as_str), query.get("id")) {
                (Some(what @ ("hidden" | "restored" | "ranked")), Some(id)) => Some(format!(
                    "Result {} is {what}.",
                    id.chars().take(views::params::TEXT_MAX).collect::<String>()
                )),
                _ => None,
            },
            sections: [
                Section {
                    heading: "Kept out of rankings, or naming no device",
                    id: "flagged",
                    empty: "Nothing is kept out of rankings.",
                    rows: flagged
                        .into_iter()
                        .map(|e| {
                            let why = e
                                .flag
                                .as_ref()
                                .map(words)
                                .unwrap_or_else(|| "names no device model".into());
                            row(e, why)
                        })
                        .collect(),
                },
                Section {
                    heading: "Far outside their model's other results",
                    id: "outliers",
                    empty: "No ranked result is far outside its model's others.",
                    rows: outliers
                        .into_iter()
                        .map(|o| {
                            let (label, unit) = METRICS
                                .iter()
                                .find(|m| m.column == o.figure)
                                .map_or((o.figure.as_str(), ""), |m| (m.label, m.unit));
                            let why = format!(
                                "{label} {} {unit}: the middle half of the model's {} results \
                                 is {} to {} ({:.1} times that range beyond it)",
                                figure(o.value),
                                o.model.n,
                                figure(o.model.p25),
                                figure(o.model.p75),
                                o.ranges_out
                            );
                            row(o.entry, why)
                        })
                        .collect(),
                },
                Section {
                    heading: "New devices",
                    id: "new",
                    empty: "No device has only one result.",
                    rows: new_devices
                        .into_iter()
                        .map(|e| row(e, "the first result of this device".into()))
                        .collect(),
                },
            ],
            audit: audit
                .into_iter()
                .map(|a| AuditRow {
                    restorable: a.action == "hide",
                    at: a.at.chars().take(19).collect::<String>().replace('T', " "),
                    action: a.action,
                    target: a.target,
                    reason: a.reason,
                })
                .collect(),
        })
    };
    let mut response = match page.await {
        Ok(page) => render(&page).into_response(),
        Err(e) => Failed::<false>(Failure::from(e)).into_response(),
    };
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[derive(serde::Deserialize)]
pub struct Action {
    reason: String,
}

/// `POST /moderate/results/{id}/hide`, `…/restore` or `…/rank`, from the page's forms: done, then back
/// to the page (303) saying so.
pub async fn act(
    State(state): State<Shared>,
    Path((id, action)): Path<(String, String)>,
    headers: HeaderMap,
    Form(form): Form<Action>,
) -> Response {
    if let Some(refusal) = refused(&state, &headers) {
        return refusal;
    }
    if !from_here(&headers, state.config.public_url.as_deref()) {
        return Failed::<false>(Failure::new(
            StatusCode::FORBIDDEN,
            "a moderator's form is taken from this site's own pages only",
        ))
        .into_response();
    }
    let reason = match views::params::words("reason", Some(&form.reason), REASON_MAX) {
        Ok(reason) => reason.trim().to_string(),
        Err(e) => return Failed::<false>(e).into_response(),
    };
    let done = match action.as_str() {
        "hide" => state
            .store
            .moderation()
            .hide(&id, &reason)
            .await
            .map(|d| (d, "hidden")),
        "restore" => state
            .store
            .moderation()
            .restore(&id, &reason)
            .await
            .map(|d| (d, "restored")),
        "rank" => state
            .store
            .moderation()
            .rank(&id, &reason)
            .await
            .map(|d| (d, "ranked")),
        _ => return Failed::<false>(Failure::not_found("there is no page here")).into_response(),
    };
    let failure = match done {
        Ok((Moderated::Done, what)) => {
            state.cache.clear();
            if what == "hidden" {
                state.dumps.forget();
            }
            let location = format!("/moderate?done={what}&id={}", encode(&id));
            return (
                StatusCode::SEE_OTHER,
                [(header::LOCATION, location)],
                "done",
            )
                .into_response();
        }
        Ok((Moderated::NoSuchResult, _)) => {
            Failure::not_found(format!("no result has the id '{id}'"))
        }
        Ok((_, what)) => Failure::new(StatusCode::CONFLICT, format!("{id} is already {what}")),
        Err(e) => Failure::from(e),
    };
    Failed::<false>(failure).into_response()
}
