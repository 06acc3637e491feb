//! The JSON API under `/api/v1/`: what the pages show, as data, plus submitting a result and
//! deleting it with its token. Every failure is `{"error": "…"}` with a 4xx or 5xx status.

use axum::body::Bytes;
use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::error::{Api, Failure, Json};
use super::views::{self, BoardQuery, Compared, DeviceQuery};
use super::Shared;
use crate::result::ResultDoc;
use crate::store::Deletion;

type Answer<T> = Result<Json<T>, Api>;

pub async fn leaderboard(
    State(state): State<Shared>,
    Query(query): Query<BoardQuery>,
) -> Answer<views::Leaderboard> {
    let (filter, offered) = views::checked(
        &state.store,
        &state.choices,
        &query,
        state.config.show_synthetic,
    )
    .await?;
    let rows = state.store.leaderboard(&filter).await?;
    Ok(Json(views::leaderboard(&filter, rows, &offered.figures)))
}

/// `GET /api/v1/results`: every result a page at a time (`views::listing`).
pub async fn results(
    State(state): State<Shared>,
    Query(query): Query<views::ListQuery>,
) -> Answer<views::Listing> {
    Ok(Json(views::listing(&state, &query).await?))
}

pub async fn device(
    State(state): State<Shared>,
    Path(key): Path<String>,
    Query(query): Query<DeviceQuery>,
) -> Answer<views::DeviceView> {
    Ok(Json(views::device_view(&state, &key, &query).await?))
}

#[derive(Serialize)]
pub struct Receipt {
    pub id: String,
    pub url: String,
    /// Deletes the result: `DELETE /api/v1/results/{id}` with `Authorization: Bearer TOKEN`.
    pub token: String,
    /// Why the result is kept out of rankings, if it is.
    pub flag: Option<String>,
    /// Where it stands among its model and its kind on its board, figure by figure; null when
    /// it is kept out of rankings or the standing could not be read (the result is saved
    /// either way).
    pub standing: Option<views::Standing>,
}

pub async fn submit(State(state): State<Shared>, body: Bytes) -> Result<Response, Api> {
    let text = std::str::from_utf8(&body)
        .map_err(|_| Failure::bad("the body is not UTF-8 text: send a result document (JSON)"))?;
    let doc = ResultDoc::from_json(text)
        .map_err(|e| Failure::new(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?;
    doc.check_public()
        .map_err(|e| Failure::new(StatusCode::UNPROCESSABLE_ENTITY, e))?;
    let token = new_token().map_err(|e| {
        Failure::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot make a token: {e}"),
        )
    })?;
    state
        .store
        .save_submitted(&doc, &token_hash(&token))
        .await?;
    // The result is saved: a standing that cannot be read leaves it out, never the 201.
    let standing = match views::standing(&state, &doc).await {
        Ok(standing) => standing,
        Err(e) => {
            eprintln!("iomark serve: the standing of {}: {e}", doc.id);
            None
        }
    };
    let receipt = Receipt {
        url: views::result_url(&state, &doc.id),
        id: doc.id.clone(),
        token,
        flag: doc.rank_flag(),
        standing,
    };
    let mut response = (StatusCode::CREATED, Json(receipt)).into_response();
    if let Ok(location) = format!("/results/{}", doc.id).parse() {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

pub async fn result(State(state): State<Shared>, Path(id): Path<String>) -> Answer<Value> {
    let (entry, doc) = views::visible_result(&state, &id).await?;
    Ok(Json(json!({
        "id": entry.id,
        "url": views::result_url(&state, &entry.id),
        "device_key": entry.device_key,
        "device_name": entry.device_name,
        "class": entry.class,
        "flag": entry.flag,
        "document": doc,
    })))
}

/// The token of an `Authorization: Bearer TOKEN` header.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        // The scheme's name is case-insensitive (RFC 9110, 11.1).
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .filter(|t| !t.is_empty())
}

pub async fn delete(
    State(state): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, Api> {
    let token = bearer(&headers).ok_or_else(|| {
        Failure::new(
            StatusCode::UNAUTHORIZED,
            "deleting a result needs its token: Authorization: Bearer TOKEN",
        )
    })?;
    match state
        .store
        .delete_submitted(&id, &token_hash(token))
        .await?
    {
        Deletion::Deleted => Ok((StatusCode::OK, Json(json!({ "deleted": id }))).into_response()),
        Deletion::NoSuchResult => {
            Err(Failure::not_found(format!("no result has the id '{id}'")).into())
        }
        Deletion::WrongToken => Err(Failure::new(
            StatusCode::FORBIDDEN,
            "that token does not delete this result",
        )
        .into()),
    }
}

pub async fn compare(State(state): State<Shared>, RawQuery(raw): RawQuery) -> Answer<Compared> {
    Ok(Json(views::comparison(&state, raw.as_deref()).await?))
}

pub async fn health(State(state): State<Shared>) -> Answer<Value> {
    state.store.ping().await?;
    Ok(Json(json!({ "ok": true })))
}

/// 32 random bytes from the kernel, in hex.
fn new_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// What the store keeps of a token: its SHA-256, so that a copy of the database deletes
/// nothing.
pub fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
