//! The result document's `health` section: one check of whether a card or disk still keeps what
//! it is given, from `iomark health` (added within `iomark.result/1`). SD cards report no wear
//! and a failing one often acknowledges every write while keeping none; a check is built from
//! what such a card shows instead (issue 48).

use serde::{Deserialize, Serialize};

use super::{Extra, Settings};

/// How a check ends, worst first. The verdict of a check is its worst signal's.
pub const VERDICTS: [&str; 4] = ["lying", "failing", "watch", "healthy"];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// `healthy`, `watch` (something to look at again), `failing` (errors, read-only) or
    /// `lying` (it does not keep what it was given, yet said it did).
    pub verdict: String,
    /// One sentence a person can act on.
    pub sentence: String,
    /// What the verdict was made from, worst first.
    pub signals: Vec<Signal>,
    /// How many checks of this folder there have been, this one included.
    pub checks: u64,
    /// The verdict of the check before this one, where there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_verdict: Option<String>,
    /// Bytes of known content written at the first check and read back at each.
    pub canary_bytes: u64,
    /// Of them, those read back other than written (flipped bits, zeros, old data).
    pub canary_bad_bytes: u64,
    /// Of them, those whose read failed.
    pub canary_unreadable_bytes: u64,
    /// Whether a fresh write, synced, read back as written past the page cache.
    pub fresh_write_kept: Option<bool>,
    /// Small reads past the page cache, in microseconds.
    pub read_latency_us: Option<Spread>,
    /// Small writes each synced to the device, in milliseconds.
    pub synced_write_ms: Option<Spread>,
    /// The same two of the first checks, which later ones are compared with.
    pub baseline_read_p99_us: Option<f64>,
    pub baseline_synced_write_p99_ms: Option<f64>,
    /// The most this check meant to write.
    pub budget_bytes: u64,
    /// What the device counted written while the check ran (every process's writes, from
    /// its `stat` in sysfs), where it could be read.
    pub device_written_bytes: Option<u64>,
    /// What the device counted written per day since the last check (its daily write load),
    /// where both counts were read since the machine started.
    pub written_per_day_bytes: Option<u64>,
    /// Whether reads bypassed the page cache (O_DIRECT); otherwise the files were synced and
    /// dropped from the cache before they were read.
    pub direct: bool,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One thing a check looked at.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    /// `canaries`, `fresh_write`, `read_latency`, `write_stalls`, `read_only`,
    /// `filesystem_errors`, …
    pub name: String,
    /// `healthy`, `watch`, `failing` or `lying`; `unknown` where it could not be told.
    pub state: String,
    /// What was seen, in words.
    pub evidence: String,
}

/// Percentiles of a handful of timings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub count: u64,
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (none where there are none).
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
        Some(Spread {
            count: sorted.len() as u64,
            p50: at(0.5),
            p99: at(0.99),
            max: sorted[sorted.len() - 1],
        })
    }
}

impl Section {
    /// Whether the section makes sense: a verdict iomark gives, and timings that are finite
    /// and not negative (what is wrong, where not).
    pub fn check(&self) -> Result<(), String> {
        let timings = [&self.read_latency_us, &self.synced_write_ms];
        let mut figures = timings
            .iter()
            .filter_map(|t| t.as_ref())
            .flat_map(|t| [t.p50, t.p99, t.max])
            .chain(self.baseline_read_p99_us)
            .chain(self.baseline_synced_write_p99_ms);
        if !VERDICTS.contains(&self.verdict.as_str()) {
            return Err(format!(
                "verdict '{}' is not one iomark gives",
                self.verdict
            ));
        }
        if let Some(previous) = &self.previous_verdict {
            if !VERDICTS.contains(&previous.as_str()) {
                return Err(format!(
                    "previous verdict '{previous}' is not one iomark gives"
                ));
            }
        }
        if figures.any(|f| !(f.is_finite() && f >= 0.0)) {
            return Err("timings must be finite and not negative".into());
        }
        Ok(())
    }
}

impl Settings {
    /// What a health check's document says it was run with.
    pub fn health(section: &Section) -> Settings {
        Settings {
            extra: Default::default(),
            profile: "health".into(),
            file_size_bytes: section.canary_bytes.max(1),
            fill_cut_from_bytes: None,
            loops: 1,
            loops_auto: false,
            polled: false,
            duration_s: 0.0,
            warmup_s: 0.0,
            engine: "psync".into(),
            direct: section.direct,
            data: "pattern".into(),
            count: None,
        }
    }
}
