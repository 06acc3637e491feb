//! The result document's `langs` section: each language's byte-at-a-time write and read, from
//! `iomark langs` (added within `iomark.result/1`).

use serde::{Deserialize, Serialize};

use super::Extra;

/// The variant that runs 2019's program as it was, for the five languages it measured.
pub const VARIANT_2019: &str = "2019";

/// The result document's `langs` section (added within `iomark.result/1`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// Bytes written and read per repetition.
    pub bytes: u64,
    /// Repetitions per program, in one process; the first is dropped when there are several.
    pub reps: u32,
    /// Whether the file was synced and dropped from the page cache between write and read.
    pub cold: bool,
    /// The CPU each program was pinned to (`--cpu`), if any (added within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<usize>,
    pub results: Vec<LangResult>,
    /// Languages not run, and why (a toolchain missing, a build that failed).
    pub skipped: Vec<Skipped>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LangResult {
    pub lang: String,
    pub variant: String,
    /// What the variant does, in a few words.
    pub about: String,
    /// The runtime or compiler's own version line.
    pub runtime: String,
    /// How it was built (the compiler command), or null for interpreted languages.
    pub build_flags: Option<String>,
    pub write: OpFigures,
    pub read: OpFigures,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpFigures {
    /// 10^6 bytes per second, over the counted repetitions' total time.
    pub mb_per_s: f64,
    /// 2^20 bytes per second (the 2019 figures' unit).
    pub mib_per_s: f64,
    pub ns_per_byte: f64,
    /// The repetitions counted (the first is dropped when there are several).
    pub reps: u32,
    /// Slowest and fastest counted repetition, MB/s.
    pub min_mb_per_s: f64,
    pub max_mb_per_s: f64,
    /// Coefficient of variation of the counted repetitions' MB/s.
    pub cv: f64,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub lang: String,
    pub reason: String,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}
