//! The moderators' API (`/api/v1/admin/`), on only with `--admin-token-file`: hide a result
//! or a whole device with a reason and restore it (aggregates and every page follow at once),
//! merge one device's key into another's (its pages then redirect there), read the audit of
//! every such action, and list the results to review. Without the feature every route answers
//! 404; without the secret, 401, and nothing changes.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use serde_json::json;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use super::api::bearer;
use super::error::{Api, Failure, Json, Refusal};
use super::guard::WholeBody;
use super::views::params;
use crate::Shared;
use iomark_store::{constant_time_eq, Moderated};

/// Whether `candidate` is the moderators' secret (compared in constant time); none is without
/// the feature.
pub fn is_secret(state: &Shared, candidate: &str) -> bool {
    state
        .config
        .admin_token
        .as_ref()
        .is_some_and(|secret| constant_time_eq(candidate.as_bytes(), secret.as_bytes()))
}

/// Lets the request through if it carries the moderators' secret.
fn allowed(state: &Shared, headers: &HeaderMap) -> Result<(), Failure> {
    if state.config.admin_token.is_none() {
        return Err(Failure::not_found("this site has no moderators' API"));
    };
    match bearer(headers) {
        Some(token) if is_secret(state, token) => Ok(()),
        _ => Err(Failure::new(
            StatusCode::UNAUTHORIZED,
            "moderating needs the site's secret: Authorization: Bearer SECRET",
        )),
    }
}

/// The most characters of a moderator's reason, and of a device key merged into.
pub const REASON_MAX: usize = 500;
const KEY_MAX: usize = 200;

/// `{"reason": …}`: what a moderator's action is sent with (read by [`reason`]).
#[derive(serde::Deserialize)]
pub struct Reason {
    reason: Option<String>,
}

/// `{"into": KEY, "reason": …}`: what a merge is sent with (read by [`merge`]).
#[derive(serde::Deserialize)]
pub struct Merge {
    into: Option<String>,
}

/// An object of `fields`, each some words of at most so many characters.
fn words_object(fields: &[(&str, usize, &str)]) -> RefOr<Schema> {
    let mut object = ObjectBuilder::new().schema_type(Type::Object);
    for (name, most, what) in fields {
        object = object.required(*name).property(
            *name,
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(*most))
                .pattern(Some(params::WORDS))
                .description(Some(*what)),
        );
    }
    object.into()
}

impl PartialSchema for Reason {
    fn schema() -> RefOr<Schema> {
        words_object(&[("reason", REASON_MAX, "Why, kept in the audit")])
    }
}

impl PartialSchema for Merge {
    fn schema() -> RefOr<Schema> {
        words_object(&[
            ("into", KEY_MAX, "The device key this device's results join"),
            ("reason", REASON_MAX, "Why, kept in the audit"),
        ])
    }
}

impl ToSchema for Reason {}
impl ToSchema for Merge {}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Audit {
    pub audit: Vec<iomark_store::AuditLine>,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Review {
    /// Results kept out of rankings, and results that name no device.
    pub review: Vec<iomark_store::Entry>,
    /// Ranked results far outside their own model's other results in some figure: more than
    /// three interquartile ranges beyond the middle half of at least five (Tukey's far out).
    pub outliers: Vec<iomark_store::Outlier>,
    /// Ranked results that are the only result of their device so far: a new device to check.
    pub new_devices: Vec<iomark_store::Entry>,
}

/// The reason a moderator gives: `{"reason": "…"}` ([`Reason`]).
fn reason(body: &Bytes) -> Result<String, Failure> {
    let value: Reason = serde_json::from_slice(body)
        .map_err(|_| Failure::bad("send {\"reason\": \"why\"} as JSON"))?;
    let reason = params::words("reason", value.reason.as_deref(), REASON_MAX)?;
    Ok(reason.trim().to_string())
}

fn answer(id: &str, done: Moderated, what: &str) -> Result<Response, Api> {
    match done {
        Moderated::Done => Ok(Json(json!({ what: id })).into_response()),
        Moderated::Already => {
            Err(Failure::new(StatusCode::CONFLICT, format!("{id} is already {what}")).into())
        }
        Moderated::NoSuchResult => {
            Err(Failure::not_found(format!("no result has the id '{id}'")).into())
        }
        Moderated::Circular => Err(Failure::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "a device cannot be merged into itself, nor into one merged into it",
        )
        .into()),
    }
}

#[utoipa::path(post, path = "/api/v1/admin/results/{id}/hide", tag = "moderation",
    params(("id" = inline(params::Text), Path, description = "The result's id")),
    request_body(content = Reason, content_type = "application/json"),
    security(("moderator" = [])),
    responses(
        (status = OK, description = "Hidden: `{\"hidden\": ID}`", body = Object),
        (status = NOT_FOUND, description = "No result has that id, or the site has no moderators' API", body = Refusal),
        (status = CONFLICT, description = "Already so", body = Refusal),
        (status = BAD_REQUEST, description = "The body is not `{\"reason\": \"why\"}`", body = Refusal)))]
pub async fn hide(
    State(state): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    WholeBody(body): WholeBody,
) -> Result<Response, Api> {
    result_action(state, id, headers, body, true).await
}

#[utoipa::path(post, path = "/api/v1/admin/results/{id}/restore", tag = "moderation",
    params(("id" = inline(params::Text), Path, description = "The result's id")),
    request_body(content = Reason, content_type = "application/json"),
    security(("moderator" = [])),
    responses(
        (status = OK, description = "Restored: `{\"restored\": ID}`", body = Object),
        (status = NOT_FOUND, description = "No result has that id, or the site has no moderators' API", body = Refusal),
        (status = CONFLICT, description = "Already so", body = Refusal),
        (status = BAD_REQUEST, description = "The body is not `{\"reason\": \"why\"}`", body = Refusal)))]
pub async fn restore(
    State(state): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    WholeBody(body): WholeBody,
) -> Result<Response, Api> {
    result_action(state, id, headers, body, false).await
}

/// Ranks result `id`, which waited for a moderator (a device called something its
/// submitters do not call it, or a first result far beyond its kind on the site).
#[utoipa::path(post, path = "/api/v1/admin/results/{id}/rank", tag = "moderation",
    params(("id" = inline(params::Text), Path, description = "The result's id")),
    request_body(content = Reason, content_type = "application/json"),
    security(("moderator" = [])),
    responses(
        (status = OK, description = "Ranked: `{\"ranked\": ID}`", body = Object),
        (status = NOT_FOUND, description = "No result has that id, or the site has no moderators' API", body = Refusal),
        (status = CONFLICT, description = "It waits for nothing", body = Refusal),
        (status = BAD_REQUEST, description = "The body is not `{\"reason\": \"why\"}`", body = Refusal)))]
pub async fn rank(
    State(state): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    WholeBody(body): WholeBody,
) -> Result<Response, Api> {
    allowed(&state, &headers)?;
    let reason = reason(&body)?;
    answer(
        &id,
        state.store.moderation().rank(&id, &reason).await?,
        "ranked",
    )
}

/// Hides or restores result `id`: `{"reason": …}`.
async fn result_action(
    state: Shared,
    id: String,
    headers: HeaderMap,
    body: Bytes,
    hide: bool,
) -> Result<Response, Api> {
    allowed(&state, &headers)?;
    let reason = reason(&body)?;
    match hide {
        true => {
            let done = state.store.moderation().hide(&id, &reason).await?;
            if done == Moderated::Done {
                state.dumps.forget();
            }
            answer(&id, done, "hidden")
        }
        false => answer(
            &id,
            state.store.moderation().restore(&id, &reason).await?,
            "restored",
        ),
    }
}

/// `{"into": KEY, "reason": …}`: device KEY's results are filed under `into` from now on.
#[utoipa::path(post, path = "/api/v1/admin/devices/{key}/merge", tag = "moderation",
    params(("key" = inline(params::Text), Path, description = "The device's key")),
    request_body(content = Merge, content_type = "application/json"),
    security(("moderator" = [])),
    responses(
        (status = OK, description = "Merged: `{\"merged\": KEY}`", body = Object),
        (status = NOT_FOUND, description = "Either device has no results here, or the site has no moderators' API", body = Refusal),
        (status = CONFLICT, description = "Already so", body = Refusal),
        (status = UNPROCESSABLE_ENTITY, description = "Into itself, or into a device merged into \
            it", body = Refusal),
        (status = BAD_REQUEST, description = "The body is not `{\"into\": KEY, \"reason\": \"why\"}`", body = Refusal)))]
pub async fn merge(
    State(state): State<Shared>,
    Path(key): Path<String>,
    headers: HeaderMap,
    WholeBody(body): WholeBody,
) -> Result<Response, Api> {
    allowed(&state, &headers)?;
    let reason = reason(&body)?;
    let value: Merge = serde_json::from_slice(&body)
        .map_err(|_| Failure::bad("send {\"into\": KEY, \"reason\": \"why\"} as JSON"))?;
    let into = params::words("into", value.into.as_deref(), KEY_MAX)?.trim();
    match state.store.moderation().merge(&key, into, &reason).await? {
        Moderated::NoSuchResult => Err(Failure::not_found(format!(
            "both devices need results here: '{key}' and '{into}'"
        ))
        .into()),
        done => answer(&key, done, "merged"),
    }
}

/// Hides or restores every result of device `key`: `{"reason": …}`.
async fn device_action(
    state: Shared,
    key: String,
    headers: HeaderMap,
    body: Bytes,
    hide: bool,
) -> Result<Response, Api> {
    allowed(&state, &headers)?;
    let reason = reason(&body)?;
    let (count, what) = match hide {
        true => {
            let count = state.store.moderation().hide_device(&key, &reason).await?;
            if count > 0 {
                state.dumps.forget();
            }
            (count, "hidden")
        }
        false => (
            state
                .store
                .moderation()
                .restore_device(&key, &reason)
                .await?,
            "restored",
        ),
    };
    if count == 0 {
        return Err(
            Failure::not_found(format!("device '{key}' has no results to be {what}")).into(),
        );
    }
    Ok(Json(json!({ "device": key, what: count })).into_response())
}

/// Hides every result of a device (a fake or abusive one).
#[utoipa::path(post, path = "/api/v1/admin/devices/{key}/hide", tag = "moderation",
    params(("key" = inline(params::Text), Path, description = "The device's key")),
    request_body(content = Reason, content_type = "application/json"),
    security(("moderator" = [])),
    responses(
        (status = OK, description = "Hidden: `{\"device\": KEY, \"hidden\": COUNT}`", body = Object),
        (status = NOT_FOUND, description = "The device has no results to hide, or the site has no moderators' API", body = Refusal),
        (status = BAD_REQUEST, description = "The body is not `{\"reason\": \"why\"}`", body = Refusal)))]
pub async fn hide_device(
    State(state): State<Shared>,
    Path(key): Path<String>,
    headers: HeaderMap,
    WholeBody(body): WholeBody,
) -> Result<Response, Api> {
    device_action(state, key, headers, body, true).await
}

/// Restores every hidden result of a device.
#[utoipa::path(post, path = "/api/v1/admin/devices/{key}/restore", tag = "moderation",
    params(("key" = inline(params::Text), Path, description = "The device's key")),
    request_body(content = Reason, content_type = "application/json"),
    security(("moderator" = [])),
    responses(
        (status = OK, description = "Restored: `{\"device\": KEY, \"restored\": COUNT}`", body = Object),
        (status = NOT_FOUND, description = "The device has no results to restore, or the site has no moderators' API", body = Refusal),
        (status = BAD_REQUEST, description = "The body is not `{\"reason\": \"why\"}`", body = Refusal)))]
pub async fn restore_device(
    State(state): State<Shared>,
    Path(key): Path<String>,
    headers: HeaderMap,
    WholeBody(body): WholeBody,
) -> Result<Response, Api> {
    device_action(state, key, headers, body, false).await
}

/// Every moderator's action, newest first (up to 500).
#[utoipa::path(get, path = "/api/v1/admin/audit", tag = "moderation",
    security(("moderator" = [])),
    responses(
        (status = OK, description = "The audit", body = Audit),
        (status = NOT_FOUND, description = "The site has no moderators' API", body = Refusal)))]
pub async fn audit(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, Api> {
    allowed(&state, &headers)?;
    Ok(Json(Audit {
        audit: state.store.moderation().audit(500).await?,
    })
    .into_response())
}

/// Results to look at, newest first (up to 500 of each kind): those kept out of rankings, those
/// whose device could not be named, those far outside their model's others, and new devices.
#[utoipa::path(get, path = "/api/v1/admin/review", tag = "moderation",
    security(("moderator" = [])),
    responses(
        (status = OK, description = "The results to review", body = Review),
        (status = NOT_FOUND, description = "The site has no moderators' API", body = Refusal)))]
pub async fn review(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, Api> {
    allowed(&state, &headers)?;
    let (outliers, new_devices) = state.store.site().unusual(500).await?;
    Ok(Json(Review {
        review: state.store.site().review(500).await?,
        outliers,
        new_devices,
    })
    .into_response())
}
