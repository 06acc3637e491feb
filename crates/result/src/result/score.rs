//! `score`: the figures a profile derives from its tests, typed per profile.
//!
//! The JSON shapes are the contract (unchanged since the first profiles):
//! - pi: `{equivalents, formula, parts: {…}, total}`;
//! - sdcard: `{classes: [{class, family, measured, note, pass, required}]}`;
//! - sustained: `{sustained: {…} | null}`;
//! - sweep: `{sweep: {read?: {…}, write?: {…}}}`;
//! - surface: `{surface: {access: [{ms, position}], …, samples: [{mb_per_s, position}]}}`;
//! - standard, quick, latency: `null`.
//!
//! A document is read back without knowing its profile first, so the variants are told apart
//! by the fields they must have (serde's untagged form, tried in order). A score this version
//! does not know, from a newer iomark, is kept as it came (`Other`) rather than refused or
//! changed. Fields are declared in alphabetical order, the order the documents have always
//! had, so a stored document exports byte for byte as it was written.

use serde::{Deserialize, Deserializer, Serialize};

use super::Extra;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Score {
    Pi(PiScore),
    SdCard(SdCardScore),
    Sweep(SweepScore),
    Sustained(SustainedScore),
    Surface(SurfaceScore),
    /// A score of a kind this version does not know.
    Other(serde_json::Value),
}

impl Score {
    /// Drops every field this version does not know, at every level; `false` for a score of a
    /// kind it does not know at all (`Other`), which a site leaves out whole.
    pub fn drop_unknown(&mut self) -> bool {
        match self {
            Score::Pi(pi) => {
                pi.extra.clear();
                pi.parts.extra.clear();
            }
            Score::SdCard(sd) => {
                sd.extra.clear();
                for class in &mut sd.classes {
                    class.extra.clear();
                    class.measured.extra.clear();
                    class.required.extra.clear();
                }
            }
            Score::Sweep(sweep) => {
                sweep.extra.clear();
                sweep.sweep.extra.clear();
                let directions = [&mut sweep.sweep.read, &mut sweep.sweep.write];
                directions
                    .into_iter()
                    .flatten()
                    .for_each(|s| s.extra.clear());
            }
            Score::Sustained(sustained) => {
                sustained.extra.clear();
                sustained.sustained.iter_mut().for_each(|f| f.extra.clear());
            }
            Score::Surface(surface) => {
                surface.extra.clear();
                surface.surface.extra.clear();
            }
            Score::Other(_) => return false,
        }
        true
    }
}

/// PiBenchmarks' published score and every input to it, so a user can check it by hand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PiScore {
    /// What ran: iomark's equivalents of dd, fio and iozone, not the tools.
    pub equivalents: String,
    /// The formula, with the names of `parts`.
    pub formula: String,
    pub parts: PiParts,
    /// `null` when a step was left out (`--test`).
    pub total: Option<u64>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PiParts {
    pub dd_write_mb_per_s: Option<f64>,
    pub fio_randread_4k_iops: Option<f64>,
    pub fio_randwrite_4k_iops: Option<f64>,
    pub iozone_randread_4k_kb_per_s: Option<f64>,
    pub iozone_randwrite_4k_kb_per_s: Option<f64>,
    pub iozone_read_4k_kb_per_s: Option<f64>,
    pub iozone_write_4k_kb_per_s: Option<f64>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A verdict for every SD Association class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SdCardScore {
    pub classes: Vec<ClassVerdict>,
    /// Set when the target is no SD card or eMMC (a virtual disk, an SSD, a stick): what it is.
    /// Its classes are then for reference, none passed or failed (added within /1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_a_card: Option<String>,
    /// The classes claimed for the card, by `--claimed` or else its own SD Status register
    /// (added within /1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claimed: Vec<String>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassVerdict {
    /// C2…C10, U1/U3, V6…V90, A1/A2.
    pub class: String,
    /// speed, uhs, video or app.
    pub family: String,
    /// What this card did, for the figures the class requires.
    pub measured: ClassFigures,
    /// What the class needs beyond the figures (a bus, a spec version).
    pub note: String,
    /// `null` when a required figure was not measured (`--test`).
    pub pass: Option<bool>,
    pub required: ClassFigures,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassFigures {
    pub random_read_iops_4k: Option<f64>,
    pub random_write_iops_4k: Option<f64>,
    pub sequential_write_mb_per_s: Option<f64>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Where a long write's cache ran out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SustainedScore {
    /// `null` when the profile's write was left out.
    #[serde(deserialize_with = "present")]
    pub sustained: Option<SustainedFinding>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SustainedFinding {
    pub after_mb_per_s: f64,
    pub before_mb_per_s: f64,
    /// Bytes written before throughput fell for good; `null`: no cliff.
    pub cliff_at_bytes: Option<u64>,
    /// Seconds that fell below half the median and recovered (throttling).
    pub dips: u64,
    /// The drive's (else the SoC's) hottest reading, where the kernel exposes a sensor.
    pub max_temp_c: Option<f64>,
    pub seconds: f64,
    pub written_bytes: u64,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Per direction, where throughput stops growing with block size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepScore {
    pub sweep: SweepDirections,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SweepDirections {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<Saturation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<Saturation>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Saturation {
    pub max_mb_per_s: f64,
    /// The smallest block size within 90% of the best.
    pub saturated_at_block_size: Option<u64>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A field that must be present, though it may be `null`: without this, serde takes a missing
/// `Option` field as `null`, and `{}` (or any other object) would read as a sustained score.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(value: serde_json::Value) -> Score {
        let score: Score = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(serde_json::to_value(&score).unwrap(), value, "{score:?}");
        score
    }

    #[test]
    fn each_shape_reads_back_as_its_own_variant_and_writes_the_same_json() {
        let pi = read(json!({"equivalents": "e", "formula": "f", "total": 12,
            "parts": {"dd_write_mb_per_s": 1.5, "fio_randread_4k_iops": null,
                      "fio_randwrite_4k_iops": 3.0, "iozone_randread_4k_kb_per_s": 4.0,
                      "iozone_randwrite_4k_kb_per_s": 5.0, "iozone_read_4k_kb_per_s": 6.0,
                      "iozone_write_4k_kb_per_s": 7.0}}));
        assert!(matches!(
            pi,
            Score::Pi(PiScore {
                total: Some(12),
                ..
            })
        ));
        let figures = json!({"random_read_iops_4k": null, "random_write_iops_4k": null,
                             "sequential_write_mb_per_s": 10.0});
        let sd = read(
            json!({"classes": [{"class": "C10", "family": "speed", "note": "",
            "pass": true, "measured": figures, "required": figures}]}),
        );
        assert!(matches!(sd, Score::SdCard(s) if s.classes[0].pass == Some(true)));
        let sweep = read(json!({"sweep": {"read": {"max_mb_per_s": 200.0,
            "saturated_at_block_size": 65536}}}));
        assert!(matches!(sweep, Score::Sweep(s) if s.sweep.write.is_none()));
        let sustained = read(json!({"sustained": {"after_mb_per_s": 10.0,
            "before_mb_per_s": 40.0, "cliff_at_bytes": 1000, "dips": 0, "max_temp_c": null,
            "seconds": 3.0, "written_bytes": 5000}}));
        assert!(matches!(sustained, Score::Sustained(s) if s.sustained.is_some()));
        assert!(matches!(
            read(json!({"sustained": null})),
            Score::Sustained(SustainedScore {
                sustained: None,
                ..
            })
        ));
    }

    #[test]
    fn an_unknown_score_is_kept_as_it_came() {
        for value in [json!({}), json!({"future": [1, 2]}), json!(3)] {
            assert!(matches!(read(value), Score::Other(_)));
        }
    }
}

/// The surface scan: read rate and access time against position, as GNOME Disks draws them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SurfaceScore {
    pub surface: Surface,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Surface {
    /// Single 4 KiB direct reads at random positions, one at a time.
    pub access: Vec<AccessSample>,
    pub max_mb_per_s: f64,
    pub mean_access_ms: f64,
    pub mean_mb_per_s: f64,
    pub min_mb_per_s: f64,
    /// `device` (a raw device, its positions its own) or `file` (a test file: where the
    /// filesystem put its blocks hides the device's geometry).
    pub over: String,
    /// Bytes read per rate sample.
    pub sample_bytes: u64,
    /// Rate samples, evenly spread from the start to the end.
    pub samples: Vec<RateSample>,
    /// Fields this version does not know (from a newer iomark), kept as they came.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Surface {
    /// A surface scan's figures: finite, not negative, at positions from 0 to 1.
    pub fn check(&self) -> Result<(), String> {
        let figures = [
            self.max_mb_per_s,
            self.min_mb_per_s,
            self.mean_mb_per_s,
            self.mean_access_ms,
        ]
        .into_iter()
        .chain(self.samples.iter().map(|s| s.mb_per_s))
        .chain(self.access.iter().map(|a| a.ms));
        if !figures.into_iter().all(|v| v.is_finite() && v >= 0.0) {
            return Err("rates and access times must be finite and not negative".into());
        }
        let positions = self.samples.iter().map(|s| s.position);
        if !positions
            .chain(self.access.iter().map(|a| a.position))
            .all(|p| (0.0..=1.0).contains(&p))
        {
            return Err("positions must be fractions of the device, 0 to 1".into());
        }
        if self.samples.is_empty() {
            return Err("a surface scan needs rate samples".into());
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateSample {
    pub mb_per_s: f64,
    /// Where the sample starts, as a fraction of the device (0 to 1).
    pub position: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccessSample {
    pub ms: f64,
    /// Where it read, as a fraction of the device (0 to 1).
    pub position: f64,
}
