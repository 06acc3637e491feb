//! `/results/{id}/card.png`: a result as the card `iomark plot --kind card` draws, for people
//! to post where they ask which card or drive to buy. A result never changes once stored, so
//! the picture may be kept by browsers and proxies for a day, and is kept here too: each card is
//! drawn once however many ask for it at the same moment (the others wait for that drawing), at
//! most as many at once as there are cores, and the newest [`KEPT_BYTES`] of them are kept
//! (40 concurrent requests for a card drawn anew each time took the server to 7.2 GB,
//! issue 22).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::sync::{OnceCell, Semaphore};

use super::error::{Failure, Page};
use super::views;
use crate::Shared;
use iomark_export::chart::{self, Kind};

/// The most bytes of drawn cards kept.
pub const KEPT_BYTES: usize = 32 << 20;

/// Cards drawn, and being drawn.
pub struct Cards {
    drawing: Semaphore,
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    cells: HashMap<String, Arc<Cell>>,
    order: VecDeque<(String, usize)>,
    bytes: usize,
}

/// One result's card: drawn once, or why it cannot be (a 404 for a result with no table of
/// tests, a 500 for a drawing that failed).
type Cell = OnceCell<Result<Bytes, (StatusCode, String)>>;

impl Default for Cards {
    fn default() -> Cards {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Cards {
            drawing: Semaphore::new(cores),
            kept: Mutex::default(),
        }
    }
}

impl Cards {
    fn cell(&self, id: &str) -> Arc<Cell> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.cells.entry(id.to_string()).or_default().clone()
    }

    /// Counts a drawn card against the bound, forgetting the oldest past it.
    fn keep(&self, id: &str, bytes: usize) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.order.push_back((id.to_string(), bytes));
        kept.bytes += bytes;
        while kept.bytes > KEPT_BYTES {
            let Some((old, size)) = kept.order.pop_front() else {
                break;
            };
            kept.bytes -= size;
            kept.cells.remove(&old);
        }
    }
}

pub async fn card(State(state): State<Shared>, Path(id): Path<String>) -> Result<Response, Page> {
    let (entry, doc) = views::visible_result(&state, &id).await?;
    let cell = state.cards.cell(&entry.id);
    let drawn = cell
        .get_or_init(|| async {
            let _turn = state.cards.drawing.acquire().await;
            // Drawing takes a few milliseconds of CPU: off the runtime's threads.
            let png = tokio::task::spawn_blocking(move || {
                chart::check(Kind::Card, &[&doc])?;
                chart::png(Kind::Card, &[&doc])
            })
            .await;
            let drawn = match png {
                Ok(Ok(png)) => Ok(Bytes::from(png)),
                // A verify run or a surface scan has no table of tests to draw.
                Ok(Err(e)) => Err((
                    StatusCode::NOT_FOUND,
                    format!("this result has no card: {e}"),
                )),
                Err(e) => Err((
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the card could not be drawn: {e}"),
                )),
            };
            let size = drawn.as_ref().map_or(256, |png| png.len());
            state.cards.keep(&entry.id, size);
            drawn
        })
        .await;
    let png = drawn
        .clone()
        .map_err(|(status, reason)| Failure::new(status, reason))?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        png,
    )
        .into_response())
}
