//! The result document's `health` section: one check of whether a card or disk still keeps what
//! it is given, from `iomark health` (added within `iomark.result/1`). SD cards report no wear
//! and a failing one often acknowledges every write while keeping none; a check is built from
//! what such a card shows instead (issue 48).

use serde::{Deserialize, Serialize};

use super::{Extra, Settings};

/// How many times over its capacity flash may be written in its life: the best SLC is rated
/// for 100,000 cycles; a card's TLC or QLC for a few thousand. What a device is said to have
/// written beyond it is no device's (a site refuses it, `intake::physics`, `store::cards`).
pub const LIFE_CYCLES: f64 = 100_000.0;

/// How a check ends, best first (so a worse verdict compares greater): the verdict of a check
/// is its worst signal's. The JSON word is `as_str`'s; a word iomark does not give is refused
/// where a document is read, never taken for healthy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Healthy,
    /// Something to look at again.
    Watch,
    /// Errors, read-only, gone.
    Failing,
    /// It does not keep what it was given, yet said it did.
    Lying,
}

impl Verdict {
    /// Every verdict, best first.
    pub const ALL: [Verdict; 4] = [
        Verdict::Healthy,
        Verdict::Watch,
        Verdict::Failing,
        Verdict::Lying,
    ];

    /// The word in the JSON, the store and the metrics' labels.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Healthy => "healthy",
            Verdict::Watch => "watch",
            Verdict::Failing => "failing",
            Verdict::Lying => "lying",
        }
    }

    /// The verdict a word names, none for a word iomark does not give.
    pub fn parse(word: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == word)
    }

    /// As a number for monitors, worst highest: 0 healthy, 1 watch, 2 failing, 3 lying.
    pub fn level(self) -> u8 {
        self as u8
    }

    /// The exit status of a check, as a Nagios-style monitor and `smartctl -H` read one:
    /// 0 OK (healthy), 1 WARNING (watch), 2 CRITICAL (failing, lying). 3, UNKNOWN, is a
    /// check's that could not be made.
    pub fn exit_status(self) -> i32 {
        match self {
            Verdict::Healthy => 0,
            Verdict::Watch => 1,
            Verdict::Failing | Verdict::Lying => 2,
        }
    }

    /// Whether a card's good life ended at a check with this verdict (a card's failures on
    /// the site count from it).
    pub fn ends_a_life(self) -> bool {
        matches!(self, Verdict::Failing | Verdict::Lying)
    }

    /// What it means for the card, after "it is" or "they are" (`lying about what it
    /// stores` reads as the site's pages say it).
    pub fn meaning(self, plural: bool) -> &'static str {
        match (self, plural) {
            (Verdict::Healthy, _) => "healthy",
            (Verdict::Watch, _) => "to watch",
            (Verdict::Failing, _) => "failing",
            (Verdict::Lying, false) => "lying about what it stores",
            (Verdict::Lying, true) => "lying about what they store",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// What one signal showed: a verdict's state, or `unknown` where it could not be told (which
/// moves no verdict).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Healthy,
    Watch,
    Failing,
    Lying,
    Unknown,
}

impl State {
    /// The verdict this state gives, none for `unknown`.
    pub fn verdict(self) -> Option<Verdict> {
        match self {
            State::Healthy => Some(Verdict::Healthy),
            State::Watch => Some(Verdict::Watch),
            State::Failing => Some(Verdict::Failing),
            State::Lying => Some(Verdict::Lying),
            State::Unknown => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.verdict().map_or("unknown", Verdict::as_str)
    }
}

impl From<Verdict> for State {
    fn from(verdict: Verdict) -> State {
        match verdict {
            Verdict::Healthy => State::Healthy,
            Verdict::Watch => State::Watch,
            Verdict::Failing => State::Failing,
            Verdict::Lying => State::Lying,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    pub verdict: Verdict,
    /// One sentence a person can act on.
    pub sentence: String,
    /// What the verdict was made from, worst first.
    pub signals: Vec<Signal>,
    /// How many checks of this folder there have been, this one included.
    pub checks: u64,
    /// The verdict of the check before this one, where there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_verdict: Option<Verdict>,
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
    pub state: State,
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
    /// Whether the section makes sense (its verdicts are typed: a word iomark does not give is
    /// refused as the document is read): timings that are finite and not negative (what is wrong, where not).
    pub fn check(&self) -> Result<(), String> {
        let timings = [&self.read_latency_us, &self.synced_write_ms];
        let mut figures = timings
            .iter()
            .filter_map(|t| t.as_ref())
            .flat_map(|t| [t.p50, t.p99, t.max])
            .chain(self.baseline_read_p99_us)
            .chain(self.baseline_synced_write_p99_ms);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_exit_statuses_rise_with_the_verdict() {
        let levels: Vec<u8> = Verdict::ALL.iter().map(|v| v.level()).collect();
        assert_eq!(levels, [0, 1, 2, 3]);
        let statuses: Vec<i32> = Verdict::ALL.iter().map(|v| v.exit_status()).collect();
        assert_eq!(statuses, [0, 1, 2, 2]);
        assert!(Verdict::Lying > Verdict::Failing && Verdict::Watch > Verdict::Healthy);
    }

    #[test]
    fn verdicts_and_states_keep_their_words_and_refuse_others() {
        for verdict in Verdict::ALL {
            let word = serde_json::to_value(verdict).unwrap();
            assert_eq!(word, verdict.as_str());
            assert_eq!(serde_json::from_value::<Verdict>(word).unwrap(), verdict);
            assert_eq!(Verdict::parse(verdict.as_str()), Some(verdict));
            let state = State::from(verdict);
            assert_eq!(serde_json::to_value(state).unwrap(), verdict.as_str());
            assert_eq!(state.verdict(), Some(verdict));
        }
        assert_eq!(serde_json::to_value(State::Unknown).unwrap(), "unknown");
        // A word iomark does not give is an error, never healthy.
        for word in ["unknown", "HEALTHY", "ok", ""] {
            assert!(
                serde_json::from_value::<Verdict>(word.into()).is_err(),
                "{word}"
            );
            assert_eq!(Verdict::parse(word), None);
        }
        assert!(serde_json::from_value::<State>("fine".into()).is_err());
    }
}
