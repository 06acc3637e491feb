//! Every result, a page at a time (`GET /api/v1/results`): the raw data, for anyone who wants
//! to draw their own conclusions. Pages follow each other by id; each has the address of the
//! next while there may be more.

use serde::Serialize;

use super::class_of;
use crate::result::ResultDoc;
use crate::store::Entry;
use crate::web::error::Failure;
use crate::web::Shared;

/// At most this many results a page, and this many with their documents.
pub const MAX_PAGE: u32 = 500;
pub const MAX_WITH_DOCUMENTS: u32 = 50;

#[derive(Debug, Default, serde::Deserialize)]
pub struct ListQuery {
    /// The id after which this page begins (the previous page's last).
    pub after: Option<String>,
    pub profile: Option<String>,
    pub device: Option<String>,
    pub limit: Option<u32>,
    /// `1` or `true`: each result's whole document too.
    pub documents: Option<String>,
}

#[derive(Serialize)]
pub struct Listed {
    #[serde(flatten)]
    pub entry: Entry,
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<ResultDoc>,
}

#[derive(Serialize)]
pub struct Listing {
    pub results: Vec<Listed>,
    /// The next page's address; absent on the last.
    pub next: Option<String>,
}

pub async fn listing(state: &Shared, query: &ListQuery) -> Result<Listing, Failure> {
    let documents = match query.documents.as_deref() {
        None | Some("" | "0" | "false") => false,
        Some("1" | "true") => true,
        Some(_) => return Err(Failure::bad("documents: 1 or 0")),
    };
    let most = if documents {
        MAX_WITH_DOCUMENTS
    } else {
        MAX_PAGE
    };
    let limit = query.limit.unwrap_or(100).clamp(1, most);
    let after = query.after.as_deref().unwrap_or("").trim();
    let device = query
        .device
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    for (name, value) in [("after", Some(after)), ("device", device)] {
        if value.is_some_and(|v| v.len() > 100 || v.chars().any(|c| c.is_control())) {
            return Err(Failure::bad(format!("{name}: not an id")));
        }
    }
    let class = class_of(query.profile.as_deref());
    if class
        .as_ref()
        .is_some_and(|c| c.len() > 100 || c.chars().any(|c| c.is_control()))
    {
        return Err(Failure::bad("profile: not a profile"));
    }
    let entries = state
        .store
        .listing(
            after,
            class.as_deref(),
            device,
            limit,
            state.config.show_synthetic,
        )
        .await?;
    let next = (entries.len() as u32 == limit).then(|| {
        let mut pairs = vec![(
            "after",
            entries.last().map(|e| e.id.clone()).unwrap_or_default(),
        )];
        pairs.extend(query.profile.clone().map(|p| ("profile", p)));
        pairs.extend(device.map(|d| ("device", d.to_string())));
        pairs.push(("limit", limit.to_string()));
        if documents {
            pairs.push(("documents", "1".into()));
        }
        let query: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        format!("{}/api/v1/results?{query}", state.public_url)
    });
    let mut results = Vec::with_capacity(entries.len());
    for entry in entries {
        let document = match documents {
            true => Some(state.store.document(&entry.id).await?),
            false => None,
        };
        results.push(Listed {
            url: super::result_url(state, &entry.id),
            entry,
            document,
        });
    }
    Ok(Listing { results, next })
}
