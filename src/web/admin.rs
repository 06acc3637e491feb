//! The moderators' API (`/api/v1/admin/`), on only with `--admin-token-file`: hide a result
//! or a whole device with a reason and restore it (aggregates and every page follow at once),
//! merge one device's key into another's (its pages then redirect there), read the audit of
//! every such action, and list the results to review. Without the feature every route answers
//! 404; without the secret, 401, and nothing changes.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::api::bearer;
use super::error::{Api, Failure};
use super::Shared;
use crate::store::{constant_time_eq, Moderated};

/// Lets the request through if it carries the moderators' secret.
fn allowed(state: &Shared, headers: &HeaderMap) -> Result<(), Failure> {
    let Some(secret) = &state.config.admin_token else {
        return Err(Failure::not_found("this site has no moderators' API"));
    };
    match bearer(headers) {
        Some(token) if constant_time_eq(token.as_bytes(), secret.as_bytes()) => Ok(()),
        _ => Err(Failure::new(
            StatusCode::UNAUTHORIZED,
            "moderating needs the site's secret: Authorization: Bearer SECRET",
        )),
    }
}

/// The reason a moderator gives: `{"reason": "…"}`, 1 to 500 characters.
fn reason(body: &Bytes) -> Result<String, Failure> {
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|_| Failure::bad("send {\"reason\": \"why\"} as JSON"))?;
    let reason = value["reason"].as_str().map(str::trim).unwrap_or("");
    if reason.is_empty() || reason.chars().count() > 500 || reason.chars().any(char::is_control) {
        return Err(Failure::bad(
            "reason: say why in 1 to 500 characters, no control characters",
        ));
    }
    Ok(reason.to_string())
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
        Moderated::Circular => Err(Failure::bad("a device cannot be merged into itself").into()),
    }
}

pub async fn hide(
    State(state): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Api> {
    result_action(state, id, headers, body, true).await
}

pub async fn restore(
    State(state): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Api> {
    result_action(state, id, headers, body, false).await
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
        true => answer(&id, state.store.hide(&id, &reason).await?, "hidden"),
        false => answer(&id, state.store.restore(&id, &reason).await?, "restored"),
    }
}

/// `{"into": KEY, "reason": …}`: device KEY's results are filed under `into` from now on.
pub async fn merge(
    State(state): State<Shared>,
    Path(key): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Api> {
    allowed(&state, &headers)?;
    let reason = reason(&body)?;
    let value: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let into = value["into"].as_str().map(str::trim).unwrap_or("");
    if into.is_empty() || into.len() > 200 || into.chars().any(char::is_control) {
        return Err(Failure::bad("into: the device key to merge into").into());
    }
    match state.store.merge(&key, into, &reason).await? {
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
        true => (state.store.hide_device(&key, &reason).await?, "hidden"),
        false => (state.store.restore_device(&key, &reason).await?, "restored"),
    };
    if count == 0 {
        return Err(
            Failure::not_found(format!("device '{key}' has no results to be {what}")).into(),
        );
    }
    Ok(Json(json!({ "device": key, what: count })).into_response())
}

pub async fn hide_device(
    State(state): State<Shared>,
    Path(key): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Api> {
    device_action(state, key, headers, body, true).await
}

pub async fn restore_device(
    State(state): State<Shared>,
    Path(key): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Api> {
    device_action(state, key, headers, body, false).await
}

pub async fn audit(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, Api> {
    allowed(&state, &headers)?;
    Ok(Json(json!({ "audit": state.store.audit(500).await? })).into_response())
}

pub async fn review(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, Api> {
    allowed(&state, &headers)?;
    Ok(Json(json!({ "review": state.store.review(500).await? })).into_response())
}
