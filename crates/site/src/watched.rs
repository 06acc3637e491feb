//! `/api/v1/card-health`: the checks of a card whose owner shares its health with the site
//! (`iomark health PATH --share URL`), added under the card's key and withdrawn with it. The
//! key (`Authorization: Bearer KEY`) is kept only as its SHA-256, as a deletion token is: who
//! holds it adds to the card or withdraws it, and nobody else can. What the checks say shows on
//! the device's page and in its API answer (`views::cards`).

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::api::{bearer, installation, own_token, token_hash};
use super::error::{Api, Failure, Json, Refusal};
use super::guard::WholeBody;
use super::views;
use crate::Shared;
use iomark_result::result::ResultDoc;
use iomark_store::{CardCheck, Sender};

/// The most checks one request shares (a year of checks every six hours is 15 requests).
pub const MOST: usize = 100;
/// The earliest a check can have been made: 2026-01-01, before iomark could make one.
const EARLIEST_S: f64 = 1_767_225_600.0;
/// How far ahead of the site's clock a check's time may be (the two clocks differ).
const AHEAD_S: f64 = 300.0;

/// What a share is answered with (`iomark health --share` reads it as this type).
#[derive(Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CardReceipt {
    /// Checks new to the site, and checks it had already from this card (sent again).
    pub added: u64,
    pub again: u64,
    /// The device the card is filed under, and its page, which tells its cards' record.
    pub device: String,
    pub url: String,
}

/// Shares a card's health checks: a JSON array of up to 100 health check documents (as
/// `iomark health --json` writes them), oldest first, with the card's key. The key is the
/// client's own (`Authorization: Bearer KEY`, 32 to 128 letters, digits, `-` or `_`): it adds
/// each later check to the same card and withdraws the card (`DELETE`). A check the card has
/// already is counted, not added again; a card's checks come in the order they were made.
#[utoipa::path(post, path = "/api/v1/card-health", tag = "cards",
    request_body(content = Object, content_type = "application/json",
        description = "An array of health check documents (iomark.result/1, profile health), \
            oldest first"),
    security(("token" = [])),
    responses(
        (status = CREATED, description = "Added to the card", body = CardReceipt),
        (status = BAD_REQUEST, description = "A key that is too short or holds other \
            characters, or checks older than the card's newest", body = Refusal),
        (status = UNAUTHORIZED, description = "No key: Authorization: Bearer KEY", body = Refusal),
        (status = CONFLICT, description = "A check with that id is another card's", body = Refusal),
        (status = UNPROCESSABLE_ENTITY, description = "Not health checks this site takes",
            body = Refusal)))]
pub async fn share(
    State(state): State<Shared>,
    headers: HeaderMap,
    client: Option<axum::Extension<super::metrics::Client>>,
    WholeBody(body): WholeBody,
) -> Result<Response, Api> {
    let key = bearer(&headers).ok_or_else(|| {
        Failure::new(
            StatusCode::UNAUTHORIZED,
            "a card's checks are shared under its key: Authorization: Bearer KEY",
        )
    })?;
    let card = token_hash(own_token(key)?);
    let unfit = |why: String| {
        super::metrics::refused("not_card_health");
        Failure::new(StatusCode::UNPROCESSABLE_ENTITY, why)
    };
    // As text, as every other reader here reads JSON (one reader in the binary, not two).
    let text = std::str::from_utf8(&body).unwrap_or_default();
    let values = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(values)) => values,
        Ok(one @ Value::Object(_)) => vec![one],
        _ => return Err(unfit("send a JSON array of health check documents".into()).into()),
    };
    if values.is_empty() || values.len() > MOST {
        return Err(unfit(format!(
            "{} checks: send 1 to {MOST} at a time, oldest first",
            values.len()
        ))
        .into());
    }
    let now = iomark_result::result::time::unix_seconds(&iomark_result::result::now_rfc3339())
        .unwrap_or(f64::MAX);
    let mut admitted = values
        .iter()
        .map(|value| check_of(value, now))
        .collect::<Result<Vec<(CardCheck, ResultDoc)>, String>>()
        .map_err(unfit)?;
    admitted.sort_by(|(a, _), (b, _)| (a.checked_s, &a.id).cmp(&(b.checked_s, &b.id)));
    // One card's counts, check after check, as time allows them to grow.
    for pair in admitted.windows(2) {
        super::intake::physics::between(&pair[0].1, &pair[1].1).map_err(unfit)?;
    }
    let checks: Vec<CardCheck> = admitted.into_iter().map(|(check, _)| check).collect();
    let sender = Sender {
        address: client.map(|c| c.0 .0),
        installation: installation(&headers)?.map(str::to_string),
    };
    let shared = match state.store.cards().share(&card, &sender, &checks).await {
        Err(iomark_store::StoreError::Duplicate(id)) => {
            return Err(Failure::new(
                StatusCode::CONFLICT,
                format!("check {id} was shared under another card's key"),
            )
            .into())
        }
        other => other?,
    };
    // Where the card is filed: its first check's device, as the store kept it.
    let device = shared.device;
    let receipt = CardReceipt {
        added: shared.added,
        again: shared.again,
        url: format!("{}/devices/{}", state.public_url, views::encode(&device)),
        device: device.clone(),
    };
    let mut response = (StatusCode::CREATED, Json(receipt)).into_response();
    response
        .extensions_mut()
        .insert(super::cache::Changed(vec![device]));
    Ok(response)
}

/// A card withdrawn (`iomark health --unshare` reads it as this type).
#[derive(Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Withdrawn {
    /// How many of its checks the site had, all removed.
    pub checks: u64,
}

/// Withdraws a card: every check shared under its key is removed.
#[utoipa::path(delete, path = "/api/v1/card-health", tag = "cards",
    security(("token" = [])),
    responses(
        (status = OK, description = "Withdrawn", body = Withdrawn),
        (status = UNAUTHORIZED, description = "No key: Authorization: Bearer KEY", body = Refusal),
        (status = NOT_FOUND, description = "No card has that key", body = Refusal)))]
pub async fn withdraw(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, Api> {
    let key = bearer(&headers).ok_or_else(|| {
        Failure::new(
            StatusCode::UNAUTHORIZED,
            "withdrawing a card needs its key: Authorization: Bearer KEY",
        )
    })?;
    match state.store.cards().withdraw(&token_hash(key)).await? {
        0 => Err(Failure::not_found("no card has that key").into()),
        checks => {
            // Its checks leave the published dump at once, as a deleted result does.
            state.dumps.forget();
            Ok((StatusCode::OK, Json(Withdrawn { checks })).into_response())
        }
    }
}

/// What the site keeps of one check, from its document: refused where it is no health check,
/// names no device, or holds what no check can.
fn check_of(value: &Value, now: f64) -> Result<(CardCheck, ResultDoc), String> {
    let doc = super::intake::admit_check(&value.to_string()).map_err(|e| e.message)?;
    let (Some(health), "health") = (&doc.health, doc.settings.profile.as_str()) else {
        return Err(format!(
            "{} is not a health check: a run goes to /api/v1/results",
            doc.id
        ));
    };
    if doc.is_synthetic() {
        return Err(format!(
            "{} is synthetic: a site takes measured checks",
            doc.id
        ));
    }
    let identity = doc.identity();
    let Some(device_key) = identity.device_key else {
        return Err(format!(
            "{} names no device: a card's checks are told under its model",
            doc.id
        ));
    };
    let at = iomark_result::result::time::unix_seconds(&doc.started_at).unwrap_or(0.0);
    if !(EARLIEST_S..=now + AHEAD_S).contains(&at) {
        return Err(format!(
            "{} was made at {}, which is not a time a check can have been made",
            doc.id, doc.started_at
        ));
    }
    let check = CardCheck {
        id: doc.id.clone(),
        device_key,
        device_name: identity.device_name,
        checked_s: at as i64,
        verdict: health.verdict,
        written_per_day: health.written_per_day_bytes,
        capacity_bytes: doc.target.device.as_ref().and_then(|d| d.size_bytes),
    };
    Ok((check, doc))
}
