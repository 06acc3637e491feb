//! The warnings a run's figures call for, whatever the profile: a cache answered, loops
//! disagreed, the link cannot carry a figure, direct I/O or io_uring was unavailable. A profile's
//! own verdicts (SD classes, the pi score's comparability) are in its file.

use iomark_result::result::{TestResult, Warning, WarningKind};

/// Loops whose MB/s vary by more than this (coefficient of variation) are called noisy.
pub const HIGH_VARIATION: f64 = 0.10;
/// A read faster than this many bytes per microsecond (20 GB/s) did not come from a device
/// through any interface iomark expects, and neither did one under [`CACHED_MIN_LATENCY_US`].
pub const CACHED_BYTES_PER_US: f64 = 20_000.0;
pub const CACHED_MIN_LATENCY_US: f64 = 5.0;
/// Direct I/O could not be used.
pub fn direct_io_unavailable(reason: &str) -> Warning {
    Warning::new(
        WarningKind::DirectIoUnavailable,
        format!(
            "direct I/O is off: {reason}. Buffered I/O was used, with fsync after writes and the \
             file evicted from the page cache before reads, but reads may still be served from \
             memory; compare with a filesystem that supports O_DIRECT"
        ),
    )
}

/// `iomark langs`: programs whose counted repetitions differed by more than 10%.
pub fn langs_variation(
    results: &[iomark_result::result::langs::LangResult],
    pinned: bool,
) -> Option<Warning> {
    let noisy: Vec<String> = results
        .iter()
        .flat_map(|r| {
            [("write", &r.write), ("read", &r.read)]
                .into_iter()
                .filter(|(_, f)| f.cv > HIGH_VARIATION)
                .map(move |(op, f)| format!("{}/{} {op} {:.0}%", r.lang, r.variant, f.cv * 100.0))
        })
        .collect();
    (!noisy.is_empty()).then(|| {
        Warning::new(
            WarningKind::HighVariation,
            format!(
                "repetitions differed by more than {:.0}% (coefficient of variation) in {}: {}",
                HIGH_VARIATION * 100.0,
                noisy.join(", "),
                if pinned {
                    "close other programs, or use more --reps"
                } else {
                    "pin the programs to one CPU with --cpu N, close other programs, or use more --reps"
                }
            ),
        )
    })
}

/// A surface scan over a test file rather than a raw device.
pub fn surface_over_file() -> Warning {
    Warning::new(
        WarningKind::SurfaceOverFile,
        "the surface was scanned over a test file, so positions are the file's: where the \
         filesystem put its blocks hides the device's geometry (as root, `iomark run --device \
         /dev/sdX --profile surface` scans the device itself, read-only)"
            .to_string(),
    )
}

/// The requested engine could not be used.
pub fn engine_fallback(reason: &str) -> Warning {
    Warning::new(
        WarningKind::EngineFallback,
        format!(
            "{reason}. psync reaches queue depths above 1 with threads, which costs more CPU; \
             the figures remain valid"
        ),
    )
}

/// Figures the link to the device cannot carry: a USB link of `link_mbps` megabits per second
/// moves at most `link_mbps / 8` MB/s (before its own encoding overhead), so anything faster
/// came from a cache on this side of the link.
pub fn beyond_link(tests: &[TestResult], link_mbps: f64) -> Vec<Warning> {
    let ceiling = link_mbps / 8.0;
    tests
        .iter()
        .filter(|t| t.mb_per_s > ceiling)
        .map(|t| Warning::new(
            WarningKind::ProbablyCached,
            format!(
                "{}: {:.1} MB/s is more than the {link_mbps} Mbps USB link can carry ({ceiling:.0} MB/s): \
                 this figure came from a cache, not from the device",
                t.name, t.mb_per_s
            ),
        ))
        .collect()
}

/// Warnings the results themselves call for.
pub fn from_results(tests: &[TestResult]) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for test in tests {
        let cached_floor = CACHED_MIN_LATENCY_US.max(test.block_size as f64 / CACHED_BYTES_PER_US);
        if test.op == "read" && test.latency_us.min > 0.0 && test.latency_us.min < cached_floor {
            warnings.push(Warning::new(
                WarningKind::ProbablyCached,
                format!(
                    "{}: the fastest read took {:.1} µs, faster than storage answers: these reads \
                     were probably served from a cache (page cache, RAM disk, or a device cache)",
                    test.name, test.latency_us.min
                ),
            ));
        }
    }
    // Said once for the run, naming each test: five near-identical lines said nothing more.
    let noisy: Vec<String> = tests
        .iter()
        .filter(|t| t.cv > HIGH_VARIATION)
        .map(|t| format!("{} {:.0}%", t.name, t.cv * 100.0))
        .collect();
    if !noisy.is_empty() {
        warnings.push(Warning::new(
            WarningKind::HighVariation,
            format!(
                "loops differed by more than {:.0}% (coefficient of variation) in {}: close other \
                 programs using the disk, or use more --loops or a longer --duration",
                HIGH_VARIATION * 100.0,
                noisy.join(", ")
            ),
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::aggregate::summarize;
    use crate::suite::aggregate::tests::{measured, spec};
    use iomark_result::result::Cpu;
    use std::time::Duration;

    #[test]
    fn warns_about_caches_and_noise() {
        let fast = measured(1000, 4096, 0.001, Duration::from_nanos(800));
        let slow = measured(1000, 4096, 0.5, Duration::from_micros(80));
        let cached = summarize(&spec(), &[fast.clone(), fast], Cpu::default());
        let noisy = summarize(
            &spec(),
            &[
                slow.clone(),
                measured(1000, 4096, 1.0, Duration::from_micros(80)),
            ],
            Cpu::default(),
        );
        let kinds: Vec<String> = from_results(&[cached, noisy])
            .into_iter()
            .map(|w| w.kind)
            .collect();
        assert_eq!(kinds, ["probably_cached", "high_variation"]);
        let steady = summarize(&spec(), &[slow.clone(), slow], Cpu::default());
        assert!(from_results(&[steady]).is_empty());
    }

    #[test]
    fn faster_than_the_link_is_a_cache() {
        let fast = summarize(
            &spec(),
            &[measured(20_000, 4096, 1.0, Duration::from_micros(50))],
            Cpu::default(),
        );
        let slow = summarize(
            &spec(),
            &[measured(2_000, 4096, 1.0, Duration::from_micros(500))],
            Cpu::default(),
        );
        // 81.9 MB/s through a 480 Mbps (60 MB/s) link; 8.2 MB/s is fine.
        let warnings = beyond_link(&[fast.clone(), slow.clone()], 480.0);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0]
                .message
                .contains("81.9 MB/s is more than the 480 Mbps USB link"),
            "{}",
            warnings[0].message
        );
        assert!(beyond_link(&[fast, slow], 5000.0).is_empty());
    }

    #[test]
    fn noise_in_several_tests_is_said_once() {
        let slow = measured(1000, 4096, 0.5, Duration::from_micros(80));
        let slower = measured(1000, 4096, 1.0, Duration::from_micros(80));
        let noisy = summarize(&spec(), &[slow.clone(), slower.clone()], Cpu::default());
        let mut other = noisy.clone();
        other.name = "RND4K_Q1T1_write".into();
        let warnings = from_results(&[noisy, other]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0]
            .message
            .contains("RND4K_Q1T1_read 47%, RND4K_Q1T1_write 47%"));
    }
}
