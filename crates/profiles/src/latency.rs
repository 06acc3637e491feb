//! The latency profile: single 4 KiB random reads at queue depth 1, sample by sample, as ioping
//! and GNOME Disks' "access time" measure. Direct I/O, so every sample reaches the device.

use std::time::Duration;

use crate::spec::{Defaults, FileSize, TestSpec};
use crate::spec::{Op, Pattern};

/// Samples taken unless `--count` says otherwise (GNOME Disks takes 100, ioping one a second).
pub const SAMPLES: u64 = 1000;

pub fn latency() -> Defaults {
    Defaults {
        tests: vec![TestSpec::new(Pattern::Random, 4096, 1, Op::Read).with_ios(SAMPLES)],
        file_size: FileSize::Fixed(256 << 20),
        loops: 1,
        // Counted, not timed: the duration only sizes the progress bar's first guess.
        duration: Duration::from_secs(1),
        warmup: Duration::ZERO,
        fill: true,
        cut_fill: true,
    }
}
