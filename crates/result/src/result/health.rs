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
    /// What the device reports of itself, where it reports anything (eMMC, NVMe, ATA SMART).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_report: Option<DeviceReport>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

/// What a device says of its own wear and errors (an SD card says nothing): an eMMC's life
/// estimates, an NVMe drive's SMART / health log, an ATA drive's SMART data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceReport {
    /// `emmc` (its extended CSD's estimates, from sysfs), `nvme` (its health log page),
    /// `ata` (its SMART data, through the SCSI/ATA translation).
    pub source: String,
    /// What it says overall, in iomark's reading: `ok`, `warning` or `failing`.
    pub says: String,
    /// The share of its rated life it says it has used, in percent (eMMC: the upper bound of
    /// the worse of its two bands; NVMe: Percentage Used, which may pass 100).
    pub life_used_percent: Option<u64>,
    /// NVMe: the spare capacity left, in percent, and the threshold it warns below.
    pub spare_percent: Option<u64>,
    pub spare_threshold_percent: Option<u64>,
    /// NVMe: its critical warning bits (0 when none).
    pub critical_warning: Option<u64>,
    /// NVMe: media and data integrity errors over its life.
    pub media_errors: Option<u64>,
    /// ATA: sectors reallocated (5), waiting to be (197), and found unreadable (198).
    pub reallocated_sectors: Option<u64>,
    pub pending_sectors: Option<u64>,
    pub uncorrectable_sectors: Option<u64>,
    /// ATA: whether an attribute is at or past its threshold (the drive predicts its failure).
    pub threshold_exceeded: Option<bool>,
    pub power_on_hours: Option<u64>,
    pub unsafe_shutdowns: Option<u64>,
    /// What it says it has written over its life, in bytes.
    pub written_bytes: Option<u64>,
    pub temperature_c: Option<f64>,
    /// eMMC: its reserved blocks (`normal`, `warning`: 80% used, `urgent`: 90%).
    pub pre_eol: Option<String>,
    /// The bytes it answered (the NVMe log page, the ATA SMART data) in hex, kept whole so
    /// that what this iomark does not read is not lost.
    pub raw_hex: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// What a device may say overall.
pub const DEVICE_SAYS: [&str; 3] = ["ok", "warning", "failing"];

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
        if let Some(report) = &self.device_report {
            if !DEVICE_SAYS.contains(&report.says.as_str()) {
                return Err(format!("a device report says '{}'", report.says));
            }
            if report.temperature_c.is_some_and(|t| !t.is_finite()) {
                return Err("a device report's temperature must be finite".into());
            }
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
