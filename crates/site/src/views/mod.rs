//! What the site shows, computed once from the store for a page, its API answer and its card
//! alike: a file per resource (`leaderboard.rs`, `device.rs`, `compare.rs`, where a submitted
//! result stands in `standing.rs`), and here the one
//! result a page, an answer or a card is drawn from. `api.rs` and `pages/` both read these; they
//! read neither.

pub mod cards;
mod compare;
mod device;
mod leaderboard;
mod listing;
pub mod params;
mod standing;

pub use compare::{comparison, Compared};
pub use device::{device_view, DeviceQuery, DeviceView, Mine};
pub use leaderboard::{checked, leaderboard, BoardQuery, Choices, Leaderboard, Ranked};
pub use listing::{listing, ListQuery, Listed, Listing};
pub use standing::{standing, Figure, Group, Standing};

use super::error::Failure;
use crate::State;
use iomark_result::result::ResultDoc;
use iomark_store::Entry;

/// A result the site shows (a synthetic one only where the site is told to), with its
/// document: what its page, its API answer and its card are drawn from.
pub async fn visible_result(state: &State, id: &str) -> Result<(Entry, ResultDoc), Failure> {
    let entry = state
        .store
        .site()
        .entry(id)
        .await?
        .filter(|e| state.config.show_synthetic || !e.synthetic)
        .ok_or_else(|| Failure::not_found(format!("no result has the id '{id}'")))?;
    let doc = shown_document(state, &entry.id).await?;
    Ok((entry, doc))
}

/// A result's document as the site shows it (its page, card, API answers): without where on
/// the submitter's machine it ran, which is theirs (issue 44: a result's page showed it).
pub async fn shown_document(state: &State, id: &str) -> Result<ResultDoc, Failure> {
    let mut doc = state.store.history().document(id).await?;
    doc.target.path.clear();
    Ok(doc)
}

/// The class a `profile` parameter names: `standard` is `standard/direct/random`; a full class
/// is taken as it is.
pub fn class_of(profile: Option<&str>) -> Option<String> {
    let profile = profile.map(str::trim).filter(|p| !p.is_empty())?;
    Some(if profile.contains('/') {
        profile.to_string()
    } else {
        format!("{profile}/direct/random")
    })
}

/// What a gigabyte costs: a price in US dollars over a capacity in GB.
pub fn usd_per_gb(price_usd: Option<f64>, capacity_gb: Option<i64>) -> Option<f64> {
    price_usd
        .zip(capacity_gb.filter(|g| *g > 0))
        .map(|(p, g)| p / g as f64)
}

/// The link to a result on this site.
pub fn result_url(state: &State, id: &str) -> String {
    format!("{}/results/{id}", state.public_url)
}

/// Text as one segment of a path or one value of a query.
pub fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
