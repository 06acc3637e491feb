//! The JSON API under `/api/v1/`: what the pages show, as data, plus submitting a result and
//! deleting it with its token. Every failure is `{"error": "…"}` with a 4xx or 5xx status.

use axum::body::Bytes;
use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::views::{self, BoardQuery, Failure};
use super::Shared;
use crate::result::ResultDoc;
use crate::store::site::Deletion;

/// A failure answered as JSON.
pub struct Api(pub Failure);

impl<E: Into<Failure>> From<E> for Api {
    fn from(e: E) -> Api {
        Api(e.into())
    }
}

impl IntoResponse for Api {
    fn into_response(self) -> Response {
        self.0.respond(true)
    }
}

/// A JSON answer in which `<`, `>` and `&` are written as `\u003c`, `\u003e` and `\u0026`:
/// the same JSON to a program, and no markup to a browser that is tricked into showing it.
pub struct Json<T>(pub T);

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        match serde_json::to_string(&self.0) {
            Ok(text) => {
                let mut safe = String::with_capacity(text.len());
                for c in text.chars() {
                    match c {
                        '<' => safe.push_str("\\u003c"),
                        '>' => safe.push_str("\\u003e"),
                        '&' => safe.push_str("\\u0026"),
                        c => safe.push(c),
                    }
                }
                ([(header::CONTENT_TYPE, "application/json")], safe).into_response()
            }
            Err(e) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("cannot encode the answer: {e}"),
            )
                .into_response(),
        }
    }
}

type Answer<T> = Result<Json<T>, Api>;

pub async fn leaderboard(
    State(state): State<Shared>,
    Query(query): Query<BoardQuery>,
) -> Answer<views::Leaderboard> {
    let filter = query.filter(state.config.show_synthetic)?;
    let rows = state.store.leaderboard(&filter).await?;
    Ok(Json(views::leaderboard(&filter, rows)))
}

#[derive(Debug, Default, serde::Deserialize)]
pub struct DeviceQuery {
    pub profile: Option<String>,
}

/// `standard` names the class `standard/direct/random`; a full class is taken as it is.
pub fn class_of(profile: Option<&str>) -> Option<String> {
    let profile = profile.map(str::trim).filter(|p| !p.is_empty())?;
    Some(if profile.contains('/') {
        profile.to_string()
    } else {
        format!("{profile}/direct/random")
    })
}

pub async fn device_view(
    state: &Shared,
    key: &str,
    profile: Option<&str>,
) -> Result<views::DeviceView, Failure> {
    let entries = state
        .store
        .device_entries(key, state.config.show_synthetic)
        .await?;
    let rows = state.store.device_rows(key).await?;
    views::device(key, class_of(profile).as_deref(), entries, rows)
        .ok_or_else(|| Failure::not_found(format!("no results for a device '{key}'")))
}

pub async fn device(
    State(state): State<Shared>,
    Path(key): Path<String>,
    Query(query): Query<DeviceQuery>,
) -> Answer<views::DeviceView> {
    Ok(Json(
        device_view(&state, &key, query.profile.as_deref()).await?,
    ))
}

/// The link to a result on this site.
pub fn result_url(state: &Shared, id: &str) -> String {
    format!("{}/results/{id}", state.public_url)
}

#[derive(Serialize)]
pub struct Receipt {
    pub id: String,
    pub url: String,
    /// Deletes the result: `DELETE /api/v1/results/{id}` with `Authorization: Bearer TOKEN`.
    pub token: String,
    /// Why the result is kept out of rankings, if it is.
    pub flag: Option<String>,
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
    let receipt = Receipt {
        url: result_url(&state, &doc.id),
        id: doc.id.clone(),
        token,
        flag: doc.rank_flag(),
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
        "url": result_url(&state, &entry.id),
        "device_key": entry.device_key,
        "device_name": entry.device_name,
        "class": entry.class,
        "flag": entry.flag,
        "document": doc,
    })))
}

pub async fn delete(
    State(state): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, Api> {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        // The scheme's name is case-insensitive (RFC 9110, 11.1).
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
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

/// The ids or device keys of a compare request: `ids=A,B` (or `ids=A&ids=B`), at most four.
pub fn listed(raw: Option<&str>, name: &str) -> Result<Vec<String>, Failure> {
    let mut out = Vec::new();
    for (key, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        if key == name {
            out.extend(
                value
                    .split(',')
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .map(str::to_string),
            );
        }
    }
    out.dedup();
    if out.len() > 4 {
        return Err(Failure::bad(format!(
            "{name}: at most 4 side by side, not {}",
            out.len()
        )));
    }
    if out.iter().any(|v| v.len() > 100) {
        return Err(Failure::bad(format!("{name}: not an id")));
    }
    Ok(out)
}

#[derive(Serialize)]
#[serde(untagged)]
pub enum Compared {
    Results(crate::compare::Comparison),
    Devices(Vec<views::DeviceView>),
}

pub async fn comparison(state: &Shared, raw: Option<&str>) -> Result<Compared, Failure> {
    let ids = listed(raw, "ids")?;
    let devices = listed(raw, "devices")?;
    if !devices.is_empty() {
        let profile = form_urlencoded::parse(raw.unwrap_or("").as_bytes())
            .find(|(k, _)| k == "profile")
            .map(|(_, v)| v.to_string());
        let mut views = Vec::new();
        for key in &devices {
            views.push(device_view(state, key, profile.as_deref()).await?);
        }
        return Ok(Compared::Devices(views));
    }
    if ids.len() < 2 {
        return Err(Failure::bad(
            "compare needs two to four results (ids=A,B) or devices (devices=K1,K2)",
        ));
    }
    let mut docs = Vec::new();
    for id in &ids {
        docs.push(views::visible_result(state, id).await?.1);
    }
    Ok(Compared::Results(crate::compare::compare(&docs)))
}

pub async fn compare(State(state): State<Shared>, RawQuery(raw): RawQuery) -> Answer<Compared> {
    Ok(Json(comparison(&state, raw.as_deref()).await?))
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
