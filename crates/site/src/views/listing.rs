//! Every result, a page at a time (`GET /api/v1/results`): the raw data, for anyone who wants
//! to draw their own conclusions. Pages follow each other by id; each has the address of the
//! next while there may be more.

use serde::Serialize;

use super::{class_of, params};
use crate::error::Failure;
use crate::Shared;
use iomark_result::result::ResultDoc;
use iomark_store::Entry;

/// At most this many results a page, and this many with their documents.
pub const MAX_PAGE: u32 = 500;
pub const MAX_WITH_DOCUMENTS: u32 = 50;

#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// The id after which this page begins (the previous page's last).
    #[param(value_type = Option<params::Text>, inline)]
    pub after: Option<String>,
    /// Results of one profile only (`standard`, `pi`…, or a whole class).
    #[param(value_type = Option<params::Text>, inline)]
    pub profile: Option<String>,
    /// Results of one device only, by its key.
    #[param(value_type = Option<params::Text>, inline)]
    pub device: Option<String>,
    /// How many results a page, 1 to 500 (1 to 50 with documents); by default 100.
    #[param(value_type = Option<PageLimit>, inline)]
    pub limit: Option<u32>,
    /// `1` or `true`: each result's whole document too.
    #[param(value_type = Option<params::Switch>, inline)]
    pub documents: Option<String>,
}

type PageLimit = params::Limit<MAX_PAGE>;

/// A result as the API gives it: in a listing, and alone (`GET /api/v1/results/{id}`, always
/// with its document).
#[derive(Serialize, utoipa::ToSchema)]
pub struct Listed {
    /// The result's facts, at this level of the JSON.
    #[serde(flatten)]
    pub entry: Entry,
    pub url: String,
    /// The whole result document (iomark.result/1): alone, or in a listing with `documents=1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub document: Option<ResultDoc>,
}

#[derive(Serialize, utoipa::ToSchema)]
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
    let limit = params::limit(query.limit, 100, MAX_PAGE)?.min(most);
    let after = query.after.as_deref().unwrap_or("").trim();
    let device = query
        .device
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    for (name, value) in [
        ("after", Some(after)),
        ("device", device),
        ("profile", query.profile.as_deref()),
    ] {
        params::plain(name, value)?;
    }
    let class = class_of(query.profile.as_deref());
    let entries = state
        .store
        .site()
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
            true => Some(super::shown_document(state, &entry.id).await?),
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
