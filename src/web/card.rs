//! `/results/{id}/card.png`: a result as the card `iomark plot --kind card` draws, for people
//! to post where they ask which card or drive to buy. A result never changes once stored, so
//! the picture may be kept by browsers and proxies for a day.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::pages::Page;
use super::views::{self, Failure};
use super::Shared;
use crate::export::chart::{self, Kind};

pub async fn card(State(state): State<Shared>, Path(id): Path<String>) -> Result<Response, Page> {
    let (_, doc) = views::visible_result(&state, &id).await?;
    // Drawing takes a few milliseconds of CPU: off the runtime's threads.
    let drawn = tokio::task::spawn_blocking(move || {
        chart::check(Kind::Card, &[&doc])?;
        chart::png(Kind::Card, &[&doc])
    })
    .await
    .map_err(|e| Failure::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let png = drawn.map_err(|e| {
        // A verify run or a surface scan has no table of tests to draw.
        Failure::not_found(format!("this result has no card: {e}"))
    })?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        png,
    )
        .into_response())
}
