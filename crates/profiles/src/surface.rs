//! The surface profile: the read rate and the access time across a whole device, as GNOME
//! Disks' benchmark draws them: `samples` reads of 10 MiB evenly spread from the first byte to
//! the last, then `accesses` single 4 KiB reads at random positions, one at a time, all direct.
//!
//! On a raw device (`iomark run --device /dev/sdX --profile surface`, opened read-only by
//! `engine::rawdev`) the positions are the device's own, and nothing is written. Over a test
//! file the positions are the file's: where the filesystem put its blocks hides the device's
//! geometry, and the document says so.
//!
//! The reads themselves are the core's (`iomark_core::suite::scan`): single synchronous reads,
//! timed one by one, because a rate per position is the figure.

use std::time::Duration;

use crate::says::{Headline, Marks, Says};
use crate::spec::{Defaults, FileSize};
use iomark_result::result::score::{AccessSample, RateSample, Surface, SurfaceScore};
use iomark_result::result::ResultDoc;
use iomark_result::units::format_size;

/// GNOME Disks' defaults.
pub const SAMPLES: u32 = 100;
pub const SAMPLE_BYTES: u64 = 10 << 20;
pub const ACCESSES: u64 = 1000;
pub const ACCESS_BYTES: u64 = 4096;

/// What one scan does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    pub samples: u32,
    pub accesses: u64,
}

pub fn surface() -> Defaults {
    Defaults {
        tests: Vec::new(),
        // Over a file: a file of its own, up to 1 GiB, written first.
        file_size: FileSize::HalfFreeUpTo(1 << 30),
        loops: 1,
        duration: Duration::from_secs(1),
        warmup: Duration::ZERO,
        fill: true,
        cut_fill: true,
    }
}

/// The scan's figures from its reads: `samples` rates, `access` times, each sample
/// `sample_bytes` long, `over` a `device` or a `file`.
pub fn summarize(
    samples: Vec<RateSample>,
    access: Vec<AccessSample>,
    sample_bytes: u64,
    over: &str,
) -> Surface {
    let rates: Vec<f64> = samples.iter().map(|s| s.mb_per_s).collect();
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let times: Vec<f64> = access.iter().map(|a| a.ms).collect();
    Surface {
        extra: Default::default(),
        max_mb_per_s: rates.iter().copied().fold(0.0, f64::max),
        min_mb_per_s: if rates.is_empty() {
            0.0
        } else {
            rates.iter().copied().fold(f64::INFINITY, f64::min)
        },
        mean_mb_per_s: mean(&rates),
        mean_access_ms: mean(&times),
        over: over.into(),
        sample_bytes,
        samples,
        access,
    }
}

impl Says for SurfaceScore {
    fn headline(&self, _doc: &ResultDoc) -> Option<Headline> {
        let s = &self.surface;
        Some(Headline {
            short: format!("{:.1} MB/s, {:.2} ms", s.mean_mb_per_s, s.mean_access_ms),
            sentence: format!(
                "Reads {:.1} MB/s on average across the {} ({:.1} to {:.1}), and finds a random \
                 block in {:.2} ms.",
                s.mean_mb_per_s, s.over, s.min_mb_per_s, s.max_mb_per_s, s.mean_access_ms
            ),
        })
    }

    fn details(&self, _doc: &ResultDoc, style: &dyn Marks) -> String {
        let s = &self.surface;
        format!(
            "{} {} reads of {} across the {}: min {:.1}, mean {:.1}, max {:.1} MB/s\n{} {} random \
             4 KiB reads: mean {:.2} ms\n",
            style.bold("Surface read rate:"),
            s.samples.len(),
            format_size(s.sample_bytes),
            s.over,
            s.min_mb_per_s,
            s.mean_mb_per_s,
            s.max_mb_per_s,
            style.bold("Access time:"),
            s.access.len(),
            s.mean_access_ms
        )
    }

    fn object(&self, doc: &ResultDoc) -> Option<String> {
        (self.surface.over == "device").then(|| {
            format!(
                "{} device, read-only",
                format_size(doc.settings.file_size_bytes)
            )
        })
    }

    /// Each read timed alone, with pread, wherever io_uring works: a rate per position is its
    /// figure, not a queue's; on a device it writes nothing, so has no data.
    fn engine(&self, doc: &ResultDoc) -> Option<(String, String)> {
        Some((
            "pread, each read timed alone (a rate per position, not a queue's)".to_string(),
            match self.surface.over == "device" {
                true => "nothing written".to_string(),
                false => format!("{} data", doc.settings.data),
            },
        ))
    }

    fn pacing(&self, _doc: &ResultDoc) -> Option<String> {
        let s = &self.surface;
        Some(format!(
            "{} reads of {} spread across it, then {} random 4 KiB reads, one at a time",
            s.samples.len(),
            format_size(s.sample_bytes),
            s.access.len()
        ))
    }
}
