//! What a results site keeps beside each document and reads back: a result's facts (`Entry`),
//! a device's aggregate (`DeviceRow`, with each figure's `Spread`), a leaderboard's `Filter`,
//! and how a deletion went.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use iomark_result::result::metric::Metric;
use iomark_result::result::Reason;

/// The most devices one leaderboard page lists.
pub const MAX_ROWS: u32 = 500;

/// How one figure spreads over a device's results: over its neighbourhoods' medians of their
/// submitters' own medians, each neighbourhood once (`n` of them: an IPv4 /16 or IPv6 /32,
/// `sender::neighbourhood`), as `aggregate` makes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Spread {
    pub median: f64,
    pub p25: f64,
    pub p75: f64,
    pub n: u64,
}

/// One line of a leaderboard.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceRow {
    pub key: String,
    pub name: String,
    pub kind: String,
    pub transport: Option<String>,
    pub capacity_gb: Option<i64>,
    /// Its results, counting as one the same figures sent again by one submitter.
    pub results: i64,
    /// How many submitters its results come from (`sender.rs`): each weighs once in its
    /// medians and its name, whatever it sends.
    pub submitters: i64,
    /// The median of the prices people gave, in US dollars.
    pub price_usd: Option<f64>,
    pub stats: BTreeMap<String, Spread>,
    /// What the device is sold as, where several of its results agree (`aggregate`).
    pub sold_as: Option<String>,
    /// The SD classes it meets, as most of its submitters find (the sdcard profile's only):
    /// the highest met in each family, as `C10 U3 V30 A1`.
    pub classes: Option<String>,
    /// How many independent neighbourhoods its results come from (an IPv4 /16 or IPv6 /32
    /// each, the most of one address family: `aggregate::independent`) that measured it alike
    /// (`aggregate::corroborating`). A leaderboard ranks it once they are as many as the
    /// site's [`Filter::corroboration`].
    pub neighbourhoods: i64,
    /// Every name its results gave it, as slugs (a search reads them; not shown).
    #[serde(skip)]
    pub names: String,
}

impl DeviceRow {
    /// The name a buyer knows it by: what it is sold as where its results agree on that, else
    /// its own name.
    pub fn shown_name(&self) -> &str {
        self.sold_as.as_deref().unwrap_or(&self.name)
    }
}

/// One result as a site lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Entry {
    pub id: String,
    pub class: String,
    pub device_key: Option<String>,
    pub device_name: String,
    pub kind: String,
    pub transport: Option<String>,
    pub capacity_gb: Option<i64>,
    pub started_at: String,
    pub label: Option<String>,
    /// The profile's headline in a few words (`ResultDoc::headline`), where it has one.
    pub headline: Option<String>,
    /// What its owner says the device is sold as (`iomark submit --model`).
    pub sold_as: Option<String>,
    pub board: Option<String>,
    pub filesystem: Option<String>,
    pub price_usd: Option<f64>,
    /// Why it is kept out of rankings, if it is: said in words wherever it is shown.
    #[serde(serialize_with = "iomark_profiles::reasons::as_words")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub flag: Option<Reason>,
    pub synthetic: bool,
    pub figures: BTreeMap<String, f64>,
    /// Who sent it, as a keyed hash (`sender.rs`); none for a result the site cannot tell.
    /// Never shown.
    #[serde(skip)]
    pub submitter: Option<String>,
    /// The sender's neighbourhood, as a keyed hash (`sender::neighbourhood`): households in one
    /// are not independent of each other. Never shown.
    #[serde(skip)]
    pub neighbourhood: Option<String>,
    /// It waits for a moderator before it ranks (its flag says why).
    pub waits: bool,
    /// The system it ran on (`ResultDoc::system`).
    pub system: Option<String>,
}

/// What a leaderboard shows.
#[derive(Clone, Debug)]
pub struct Filter {
    pub class: String,
    pub sort: &'static Metric,
    pub kind: Option<String>,
    pub transport: Option<String>,
    pub board: Option<String>,
    pub filesystem: Option<String>,
    /// Words of the model: each matched against every name the device's results gave it
    /// (its names, what it is sold as, labels) as slugs, so case and punctuation do not matter.
    pub text: Option<String>,
    pub limit: u32,
    pub synthetic: bool,
    /// How many independent neighbourhoods must have measured a device before it is ranked
    /// ([`DeviceRow::neighbourhoods`]); the others are listed after every ranked one, unranked.
    pub corroboration: u32,
}

/// How a deletion went.
#[derive(Debug, PartialEq, Eq)]
pub enum Deletion {
    Deleted,
    NoSuchResult,
    /// The token does not match (or the result was never submitted with one).
    WrongToken,
}
