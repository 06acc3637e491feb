//! What the forms that start a run or a check send (`POST /runs`): read by `runs.rs`, and
//! given back by `pages.rs` as it was filled in when a start is refused.

use serde::Deserialize;

/// The profiles a run may be started with, as `iomark run --profile` names them.
pub const PROFILES: [&str; 5] = ["standard", "quick", "nvme", "pi", "sdcard"];

/// What the start form sends: a run, or with `kind` verify, a check of what a card keeps.
#[derive(Clone, Default, Deserialize)]
pub struct Start {
    #[serde(default)]
    pub kind: String,
    pub path: String,
    #[serde(default)]
    pub other: String,
    #[serde(default)]
    pub profile: String,
    #[serde(default)]
    pub size: String,
    #[serde(default)]
    pub loops: String,
    #[serde(default)]
    pub duration: String,
    #[serde(default)]
    pub claimed: String,
    #[serde(default)]
    pub threads: String,
}
