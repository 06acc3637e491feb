//! The JSON API under `/api/v1/`: what the pages show, as data, plus submitting a result and
//! deleting it with its token. Every failure is `{"error": "…"}` with a 4xx or 5xx status.

use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use super::error::{Api, Failure, Json, Refusal};
use super::guard::WholeBody;
use super::views::{self, params, BoardQuery, Compared, DeviceQuery};
use crate::Shared;
use iomark_store::StoreError;
use iomark_store::{Deletion, Sender};

type Answer<T> = Result<Json<T>, Api>;

/// Devices ranked by the median of a figure over their results, among results of one profile,
/// I/O mode and data.
#[utoipa::path(get, path = "/api/v1/leaderboard", tag = "results", params(BoardQuery),
    responses((status = OK, description = "The ranked devices", body = views::Leaderboard),
        (status = BAD_REQUEST, description = "A parameter this site does not take", body = Refusal)))]
pub async fn leaderboard(
    State(state): State<Shared>,
    Query(query): Query<BoardQuery>,
) -> Answer<views::Leaderboard> {
    let (filter, offered) = views::checked(
        &state.store,
        &state.choices,
        &query,
        state.config.show_synthetic,
        state.config.corroboration,
    )
    .await?;
    let rows = state.store.site().leaderboard(&filter).await?;
    Ok(Json(views::leaderboard(&filter, rows, &offered.figures)))
}

/// Every result a page at a time, in id order (`views::listing`): the raw data. Each page has
/// the next one's address while there may be more.
#[utoipa::path(get, path = "/api/v1/results", tag = "results", params(views::ListQuery),
    responses((status = OK, description = "A page of results", body = views::Listing),
        (status = BAD_REQUEST, description = "A parameter this site does not take", body = Refusal)))]
pub async fn results(
    State(state): State<Shared>,
    Query(query): Query<views::ListQuery>,
) -> Answer<views::Listing> {
    Ok(Json(views::listing(&state, &query).await?))
}

/// One device: its figures across its results (per board too), its newest 50 results (every
/// one through `all_results`), the SD classes they meet, and where a result of the viewer's
/// stands among them.
#[utoipa::path(get, path = "/api/v1/devices/{key}", tag = "results",
    params(("key" = inline(params::Text), Path, description = "The device's key, as the leaderboard lists it"),
        DeviceQuery),
    responses(
        (status = OK, description = "The device", body = views::DeviceView),
        (status = MOVED_PERMANENTLY, description = "The device was merged into another or renamed: \
            Location says where it is now", headers(("Location" = String))),
        (status = NOT_FOUND, description = "No device has that key", body = Refusal),
        (status = BAD_REQUEST, description = "A parameter this site does not take", body = Refusal)))]
pub async fn device(
    State(state): State<Shared>,
    Path(key): Path<String>,
    Query(query): Query<DeviceQuery>,
) -> Answer<views::DeviceView> {
    Ok(Json(views::device_view(&state, &key, &query).await?))
}

/// What a submission is answered with (`iomark submit` reads it as this type).
#[derive(Debug, PartialEq, Serialize, Deserialize, ToSchema)]
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
    #[serde(default)]
    pub standing: Option<views::Standing>,
}

/// Submits a result document as `iomark run --json` writes it (`iomark submit` sends it so).
/// The answer's token deletes it again. A client may choose that token itself
/// (`Authorization: Bearer TOKEN`, 32 to 128 letters, digits, `-` or `_`; `iomark submit` does):
/// the same submission sent again with it, a retry whose answer was lost on the way, is then
/// answered 201 with the same receipt instead of 409. A device's name and medians weigh each
/// submitter once: the site tells submitters apart by their address's /24 or /48, and joins
/// the addresses one installation sends from by its key (`X-Iomark-Installation`, as a token
/// is spelt; `iomark submit` sends one), kept only as keyed hashes.
#[utoipa::path(post, path = "/api/v1/results", tag = "results",
    request_body(content = Object, content_type = "application/json",
        description = "A result document (iomark.result/1)"),
    security((), ("token" = [])),
    responses(
        (status = CREATED, description = "Saved (or saved before, from the same document with \
            the same token of the client's): where it is, its deletion token, and where it \
            stands", body = Receipt, headers(("Location" = String))),
        (status = BAD_REQUEST, description = "A token or installation key of the client's \
            that is too short or holds other characters", body = Refusal),
        (status = CONFLICT, description = "A result with that id is here already", body = Refusal),
        (status = GONE, description = "This result, or the same measurement under another id, \
            was deleted or hidden here: it is not taken again", body = Refusal),
        (status = UNPROCESSABLE_ENTITY, description = "Not a result document this site takes",
            body = Refusal)))]
pub async fn submit(
    State(state): State<Shared>,
    headers: HeaderMap,
    client: Option<axum::Extension<super::metrics::Client>>,
    WholeBody(body): WholeBody,
) -> Result<Response, Api> {
    let text = std::str::from_utf8(&body).map_err(|_| {
        super::metrics::refused("not_utf8");
        Failure::bad("the body is not UTF-8 text: send a result document (JSON)")
    })?;
    // The one intake: what is kept, and everything drawn from it, is what it makes of the
    // document (no local path, no unknown field, every text and figure canonical, at most
    // 64 kB; a retry of this submission is compared as it was stored, too).
    let doc = super::intake::admit(text).map_err(|refused| {
        super::metrics::refused(refused.reason);
        Failure::new(StatusCode::UNPROCESSABLE_ENTITY, refused.message)
    })?;
    let own = bearer(&headers).map(own_token).transpose()?;
    let token = match own {
        Some(own) => own.to_string(),
        None => iomark_result::result::token::new_token().map_err(|e| {
            Failure::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("cannot make a token: {e}"),
            )
        })?,
    };
    let hash = token_hash(&token);
    let sender = Sender {
        address: client.map(|c| c.0 .0),
        installation: installation(&headers)?.map(str::to_string),
    };
    match state.store.submissions().save(&doc, &hash, &sender).await {
        Ok(()) => super::metrics::saved(),
        // Sent again by its submitter (the same document, the same token of its own): the
        // first was saved and its answer lost, so this one is answered as that one was.
        Err(StoreError::Duplicate(_))
            if own.is_some()
                && state
                    .store
                    .submissions()
                    .submitted_before(&doc, &hash)
                    .await? =>
        {
            super::metrics::replayed()
        }
        Err(e) => return Err(e.into()),
    }
    // What the store filed it as, read on the primary, which has it (a replica would not
    // yet): why it is kept out of rankings where the site holds it for review, and the device
    // it was filed under.
    let filed = iomark_store::on_primary(state.store.site().entry(&doc.id))
        .await
        .ok()
        .flatten();
    // The result is saved: a standing that cannot be read leaves it out, never the 201; one
    // the site holds for review has none yet.
    // Or hidden as it arrived, its device being one a moderator hid.
    let hidden = match filed {
        Some(_) => None,
        None => iomark_store::on_primary(state.store.moderation().why_hidden(&doc.id))
            .await
            .ok()
            .flatten(),
    };
    let held = filed.as_ref().is_some_and(|e| e.waits) || hidden.is_some();
    let standing = match views::standing(&state, &doc).await {
        Ok(_) if held => None,
        Ok(standing) => standing,
        Err(e) => {
            tracing::warn!(id = %doc.id, "its standing could not be read: {e}");
            None
        }
    };
    let receipt = Receipt {
        url: views::result_url(&state, &doc.id),
        id: doc.id.clone(),
        token,
        flag: hidden
            .map(iomark_profiles::reasons::hidden_device)
            .or_else(|| {
                filed
                    .as_ref()
                    .and_then(|e| e.flag.clone())
                    .or_else(|| doc.rank_flag())
                    .as_ref()
                    .map(iomark_profiles::reasons::words)
            }),
        standing,
    };
    let mut response = (StatusCode::CREATED, Json(receipt)).into_response();
    if let Ok(location) = format!("/results/{}", doc.id).parse() {
        response.headers_mut().insert(header::LOCATION, location);
    }
    // The pages a new result of its device may change: the device it names, and the one it
    // was filed under where that one was merged into another (whose page showed it only after
    // --cache-seconds before).
    let named = doc.identity().device_key;
    let devices = named.into_iter().chain(filed.and_then(|e| e.device_key));
    response
        .extensions_mut()
        .insert(super::cache::Changed(devices.collect()));
    Ok(response)
}

/// One result, with its whole document.
#[utoipa::path(get, path = "/api/v1/results/{id}", tag = "results",
    params(("id" = inline(params::Text), Path, description = "The result's id")),
    responses(
        (status = OK, description = "The result: its facts, as a listing gives them, and its \
            document", body = views::Listed),
        (status = NOT_FOUND, description = "No result has that id", body = Refusal)))]
pub async fn result(State(state): State<Shared>, Path(id): Path<String>) -> Answer<views::Listed> {
    let (entry, document) = views::visible_result(&state, &id).await?;
    Ok(Json(views::Listed {
        url: views::result_url(&state, &entry.id),
        entry,
        document: Some(document),
    }))
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

/// A deletion done.
#[derive(Serialize, ToSchema)]
pub struct Deleted {
    /// The id of the result deleted.
    pub deleted: String,
}

/// Deletes a result, with the token its submission was answered with.
#[utoipa::path(delete, path = "/api/v1/results/{id}", tag = "results",
    params(("id" = inline(params::Text), Path, description = "The result's id")),
    security(("token" = [])),
    responses(
        (status = OK, description = "Deleted", body = Deleted),
        (status = UNAUTHORIZED, description = "No token: Authorization: Bearer TOKEN", body = Refusal),
        (status = FORBIDDEN, description = "That token does not delete this result", body = Refusal),
        (status = NOT_FOUND, description = "No result has that id", body = Refusal)))]
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
    // The device whose pages a deletion may change, as the primary has it (a replica may not
    // have the result yet, or the merge that moved it); where it cannot be read, every answer
    // is forgotten.
    let device = iomark_store::on_primary(state.store.site().entry(&id))
        .await
        .ok()
        .map(|e| e.and_then(|e| e.device_key));
    match state
        .store
        .submissions()
        .delete(&id, &token_hash(token))
        .await?
    {
        Deletion::Deleted => {
            state.dumps.forget();
            let mut response = (StatusCode::OK, Json(Deleted { deleted: id })).into_response();
            if let Some(device) = device {
                let changed = super::cache::Changed(device.into_iter().collect());
                response.extensions_mut().insert(changed);
            }
            Ok(response)
        }
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

/// Two to four results side by side, test by test, with verdicts; or two to four devices, each
/// figure's median against the first device's.
#[utoipa::path(get, path = "/api/v1/compare", tag = "results",
    params(
        ("ids" = inline(Option<params::Text>), Query,
            description = "Two to four result ids, comma-separated"),
        ("devices" = inline(Option<params::Text>), Query,
            description = "One to four device keys, comma-separated"),
        ("profile" = inline(Option<params::Text>), Query,
            description = "With devices: the profile compared")),
    responses(
        (status = OK, description = "The comparison", body = Compared),
        (status = NOT_FOUND, description = "A result or device is not here", body = Refusal),
        (status = BAD_REQUEST, description = "A parameter this site does not take", body = Refusal)))]
pub async fn compare(State(state): State<Shared>, RawQuery(raw): RawQuery) -> Answer<Compared> {
    Ok(Json(views::comparison(&state, raw.as_deref()).await?))
}

/// The site is up and its store answers.
#[derive(Serialize, ToSchema)]
pub struct Health {
    pub ok: bool,
}

/// Whether the site and its store answer.
#[utoipa::path(get, path = "/api/v1/health", tag = "results",
    responses((status = OK, description = "Up", body = Health)))]
pub async fn health(State(state): State<Shared>) -> Answer<Health> {
    state.store.site().ping().await?;
    Ok(Json(Health { ok: true }))
}

/// A deletion token a client chose: long enough not to be guessed, and plain.
/// The header an installation of `iomark submit` sends its key in.
pub const INSTALLATION: &str = "x-iomark-installation";

/// The installation key a submission came with, spelt as a token is, if it came with one.
pub(crate) fn installation(headers: &HeaderMap) -> Result<Option<&str>, Failure> {
    let Some(value) = headers.get(INSTALLATION) else {
        return Ok(None);
    };
    match value.to_str().map(str::trim) {
        Ok(key) if iomark_result::result::token::is_token(key) => Ok(Some(key)),
        _ => {
            super::metrics::refused("bad_installation");
            Err(Failure::bad(
                "an installation key (X-Iomark-Installation) is 32 to 128 letters, digits, '-' \
                 or '_'",
            ))
        }
    }
}

pub(crate) fn own_token(token: &str) -> Result<&str, Failure> {
    if iomark_result::result::token::is_token(token) {
        Ok(token)
    } else {
        super::metrics::refused("bad_token");
        Err(Failure::bad(
            "a token of your own (Authorization: Bearer TOKEN) is 32 to 128 letters, digits, \
             '-' or '_'",
        ))
    }
}

/// What the store keeps of a token: its SHA-256, so that a copy of the database deletes
/// nothing.
pub fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
