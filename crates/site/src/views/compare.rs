//! A comparison: two to four results side by side with verdicts, or devices with medians.

use serde::Serialize;

use std::collections::BTreeMap;

use super::device::{device_view, DeviceView, Versus};
use super::{params, visible_result};
use crate::error::Failure;
use crate::Shared;
use iomark_result::compare::{between_devices, Earlier, Results};
use iomark_result::result::ResultDoc;
use iomark_store::{Entry, Spread};

/// The ids or device keys of a compare request: `ids=A,B` (or `ids=A&ids=B`), at most four.
pub fn listed(raw: Option<&str>, name: &str) -> Result<Vec<String>, Failure> {
    let mut out = Vec::new();
    for (key, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        if key == name {
            params::plain(name, Some(&value))?;
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
    Ok(out)
}

/// Each figure both devices have, `other`'s against `base`'s (`compare::between_devices`).
fn versus(
    base: &BTreeMap<String, Spread>,
    other: &BTreeMap<String, Spread>,
) -> BTreeMap<String, Versus> {
    let results = |s: &Spread| Results {
        median: s.median,
        p25: s.p25,
        p75: s.p75,
        n: s.n,
    };
    other
        .iter()
        .filter_map(|(figure, theirs)| {
            let (diff, verdict) = between_devices(results(base.get(figure)?), results(theirs));
            Some((
                figure.clone(),
                Versus {
                    diff_pct: diff * 100.0,
                    verdict,
                },
            ))
        })
        .collect()
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Compared {
    Results(iomark_result::compare::Comparison),
    Devices(Vec<DeviceView>),
}

pub async fn comparison(state: &Shared, raw: Option<&str>) -> Result<Compared, Failure> {
    let ids = listed(raw, "ids")?;
    let devices = listed(raw, "devices")?;
    if !devices.is_empty() {
        let query = super::DeviceQuery {
            profile: form_urlencoded::parse(raw.unwrap_or("").as_bytes())
                .find(|(k, _)| k == "profile")
                .map(|(_, v)| v.to_string()),
            mine: None,
        };
        let mut views = Vec::new();
        for key in &devices {
            views.push(device_view(state, key, &query).await?);
        }
        if let Some((base, others)) = views.split_first_mut() {
            for other in others {
                other.versus = Some(versus(&base.summary, &other.summary));
            }
        }
        return Ok(Compared::Devices(views));
    }
    if ids.len() < 2 {
        return Err(Failure::bad(
            "compare needs two to four results (ids=A,B) or devices (devices=K1,K2)",
        ));
    }
    let mut results = Vec::new();
    for id in &ids {
        results.push(visible_result(state, id).await?);
    }
    let earlier = match results.first() {
        Some((base, _)) => earlier(state, base).await?,
        None => Vec::new(),
    };
    let docs: Vec<_> = results.into_iter().map(|(_, doc)| doc).collect();
    Ok(Compared::Results(iomark_result::compare::compare(
        &docs,
        &earlier,
        Earlier::Site,
    )))
}

/// The most results of the baseline's device read for the run-to-run spread, newest first.
const EARLIER: u32 = 20;

/// The baseline's device's newest ranked results of its class, whose spread tells how far one
/// result of it differs from another (`compare` keeps those measured as the baseline was).
async fn earlier(state: &Shared, base: &Entry) -> Result<Vec<ResultDoc>, Failure> {
    let Some(key) = &base.device_key else {
        return Ok(Vec::new());
    };
    let texts = state
        .store
        .site()
        .device_documents(key, &base.class, state.config.show_synthetic, EARLIER)
        .await?;
    // A document the site kept parses; one that does not is left out of the spread, not a
    // reason to refuse the comparison.
    Ok(texts
        .iter()
        .filter_map(|t| serde_json::from_str(t).ok())
        .collect())
}
