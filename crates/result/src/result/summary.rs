//! A saved run's headline, as a store's indexed columns hold it.

use super::Transport;

/// One line of `iomark history`: a saved run's headline, as the store's indexed columns hold it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    pub id: String,
    pub started_at: String,
    pub label: Option<String>,
    pub profile: String,
    pub device: Option<String>,
    pub transport: Option<Transport>,
    pub filesystem: Option<String>,
    pub seq_read_mb_per_s: Option<f64>,
    pub seq_write_mb_per_s: Option<f64>,
    pub rnd_read_iops: Option<f64>,
    pub rnd_write_iops: Option<f64>,
    pub score_total: Option<i64>,
    /// The profile's headline in a few words (`iomark_profiles::headline`), where it has one.
    pub headline: Option<String>,
}
