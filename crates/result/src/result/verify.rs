//! The result document's `verify` section: whether a device holds what it claims and gives back
//! what it was given, from `iomark verify` (added within `iomark.result/1`).

use serde::{Deserialize, Serialize};

use super::{Extra, Settings};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// `files` (free space filled with files, non-destructive), `probe` (a raw device's real
    /// capacity found by writing samples, destructive) or `full` (a whole raw device written
    /// and read back, destructive).
    pub mode: String,
    /// Bytes the run set out to write.
    pub planned_bytes: u64,
    /// Bytes written (less than planned where the run stopped early or the disk filled up).
    pub written_bytes: u64,
    /// Bytes read back exactly as written.
    pub good_bytes: u64,
    /// Bytes read back wrong: flipped bits, zeros, another run's data.
    pub bad_bytes: u64,
    /// Bytes that read back what this run wrote at another position: two positions stored in
    /// one place, the mark of fake capacity.
    pub aliased_bytes: u64,
    /// Bytes whose read failed.
    pub unreadable_bytes: u64,
    /// Position of the first wrong byte in the verified stream (for `files`: file N holds
    /// positions N×`file_bytes` on; for a device: its offset).
    pub first_bad_offset: Option<u64>,
    pub write_mb_per_s: Option<f64>,
    pub read_mb_per_s: Option<f64>,
    /// Whether the reads bypassed the page cache (O_DIRECT); otherwise the written data was
    /// synced and dropped from the cache before it was read.
    pub direct: bool,
    /// For `files`: the size of each file.
    pub file_bytes: Option<u64>,
    /// What the filesystem or device says it holds.
    pub claimed_bytes: Option<u64>,
    /// What it really holds, where the run could tell.
    pub real_bytes: Option<u64>,
    /// How `real_bytes` was told: `probe` (samples written across a raw device), `full` (every
    /// byte of it), `extents` (the files' places on the device, from the filesystem's FIEMAP:
    /// the distance between two places found sharing one, else the lowest place lost), or
    /// `used_plus_intact` (what was in use before the run plus what read back intact, where
    /// the filesystem does not map its files: an estimate that misses the filesystem's own
    /// space and where it put the files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_method: Option<String>,
    /// Whether everything written read back intact and the capacity is real.
    pub ok: bool,
    /// One sentence a person can act on.
    pub verdict: String,
    /// The wrong ranges, merged, in order (at most 1000).
    pub problems: Vec<Problem>,
    /// Ranges beyond the ones listed.
    pub more_problems: u64,
    /// Whether this run continued an interrupted one (`--resume`).
    pub resumed: bool,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Section {
    /// The figures behind the verdict, labelled, as every report shows them.
    pub fn figures(&self) -> Vec<(&'static str, String)> {
        use crate::units::format_size;
        let rate = |r: Option<f64>| r.map_or("-".into(), |r| crate::units::Rate(r).to_string());
        let mut out = vec![
            ("written", format_size(self.written_bytes)),
            ("intact", format_size(self.good_bytes)),
            ("wrong", format_size(self.bad_bytes)),
            ("written elsewhere", format_size(self.aliased_bytes)),
            ("unreadable", format_size(self.unreadable_bytes)),
        ];
        if let Some(claimed) = self.claimed_bytes {
            out.push(("claimed", format_size(claimed)));
        }
        if let Some(real) = self.real_bytes {
            out.push(("holds", format_size(real)));
        }
        out.push(("write", rate(self.write_mb_per_s)));
        out.push(("read", rate(self.read_mb_per_s)));
        out
    }

    /// A stream position as a person finds it: a file and offset, or a device offset.
    pub fn place(&self, position: u64) -> String {
        match self.file_bytes {
            Some(file_bytes) if file_bytes > 0 => format!(
                "{:04}.iomv+{}",
                position / file_bytes + 1,
                position % file_bytes
            ),
            _ => format!("offset {position}"),
        }
    }

    /// One wrong range, in words.
    pub fn describe(&self, p: &Problem) -> String {
        format!(
            "{} {} {}{}",
            self.place(p.position),
            crate::units::format_size(p.bytes),
            p.kind.name(),
            p.holds
                .map(|h| format!(" (holds what was written at {})", self.place(h)))
                .unwrap_or_default()
        )
    }
}

/// A run of wrong sectors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    /// Where it starts in the verified stream.
    pub position: u64,
    pub bytes: u64,
    pub kind: ProblemKind,
    /// For `aliased`: the position whose data it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holds: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProblemKind {
    Bad,
    Aliased,
    Unreadable,
}

impl ProblemKind {
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::Bad => "bad",
            ProblemKind::Aliased => "aliased",
            ProblemKind::Unreadable => "unreadable",
        }
    }
}

impl Settings {
    /// How a verify run measured: its pattern written once and read back, as much as it wrote.
    pub fn verify(section: &Section) -> Settings {
        Settings {
            extra: Default::default(),
            profile: "verify".into(),
            file_size_bytes: section.written_bytes,
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
