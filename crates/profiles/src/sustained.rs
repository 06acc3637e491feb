//! The sustained profile: one long sequential write over fresh space, with a timeline, to find
//! where a drive's write cache runs out (a cliff) and whether it throttles (repeated dips).
//!
//! USB sticks and SD cards often write fast into an SLC or DRAM cache and then fall to the rate
//! of their flash; some slow down as they heat. The profile writes `--size` (by default the
//! smaller of 16 GiB and half the free space) once, 1 MiB at a time with 8 in flight, without
//! filling the file first, and stops early at `--duration` (by default 5 minutes) so slow media
//! finish in bounded time.

use std::time::Duration;

use crate::says::{seconds, Headline, Marks, Says};
use crate::spec::{Defaults, FileSize, TestSpec};
use crate::spec::{Op, Pattern};
use iomark_result::result::score::{SustainedFinding, SustainedScore};
use iomark_result::result::ResultDoc;
use iomark_result::result::{TestResult, TimelineSample};
use iomark_result::units::{format_size, Rate};

/// The write stops here even if the size is not reached.
pub const TIME_BOUND: Duration = Duration::from_secs(300);
/// The default size: the smaller of this and half the free space.
pub const MAX_SIZE: u64 = 16 << 30;
/// After a cliff, throughput stays below this share of what came before.
const CLIFF_RATIO: f64 = 0.7;
/// Share of the samples after a cliff that must stay down.
const STAYS_DOWN: f64 = 0.8;
/// A dip: a second below half the median, followed by one back above 80% of it.
const DIP_DEPTH: f64 = 0.5;
const DIP_RECOVERY: f64 = 0.8;

pub fn sustained() -> Defaults {
    Defaults {
        tests: vec![TestSpec::new(Pattern::Sequential, 1 << 20, 8, Op::Write).once_over_file()],
        file_size: FileSize::HalfFreeUpTo(MAX_SIZE),
        loops: 1,
        duration: TIME_BOUND,
        warmup: Duration::ZERO,
        // The write itself is the measurement, over fresh space.
        fill: false,
        cut_fill: false,
    }
}

/// What the timeline shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub cliff_at_bytes: Option<u64>,
    pub before_mb_per_s: f64,
    pub after_mb_per_s: f64,
    pub dips: usize,
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

fn sse(values: &[f64]) -> f64 {
    let m = mean(values);
    values.iter().map(|v| (v - m).powi(2)).sum()
}

pub fn analyze(timeline: &[TimelineSample]) -> Finding {
    let rates: Vec<f64> = timeline.iter().map(|s| s.mb_per_s).collect();
    let overall = mean(&rates);
    let mut finding = Finding {
        cliff_at_bytes: None,
        before_mb_per_s: overall,
        after_mb_per_s: overall,
        dips: count_dips(&rates),
    };
    // A cliff needs a few seconds on each side to be told from noise.
    if rates.len() < 6 {
        return finding;
    }
    // The split that best explains the timeline as two levels (least squared error).
    let split = (3..=rates.len() - 3)
        .min_by(|&a, &b| {
            let cost = |k: usize| sse(&rates[..k]) + sse(&rates[k..]);
            cost(a).total_cmp(&cost(b))
        })
        .expect("at least one split");
    let (before, after) = (mean(&rates[..split]), mean(&rates[split..]));
    let middle = (before + after) / 2.0;
    let down = rates[split..].iter().filter(|&&r| r < middle).count() as f64
        / (rates.len() - split) as f64;
    if after < CLIFF_RATIO * before && down >= STAYS_DOWN {
        let bytes: f64 = rates[..split]
            .iter()
            .zip(iomark_result::result::sample_lengths(timeline))
            .map(|(rate, seconds)| rate * 1e6 * seconds)
            .sum();
        finding.cliff_at_bytes = Some(bytes as u64);
        finding.before_mb_per_s = before;
        finding.after_mb_per_s = after;
    }
    finding
}

/// Seconds that fall below half the median and recover the next second.
fn count_dips(rates: &[f64]) -> usize {
    let mut sorted = rates.to_vec();
    sorted.sort_by(f64::total_cmp);
    let Some(&median) = sorted.get(sorted.len() / 2) else {
        return 0;
    };
    rates
        .windows(2)
        .filter(|w| w[0] < DIP_DEPTH * median && w[1] >= DIP_RECOVERY * median)
        .count()
}

pub fn score(tests: &[TestResult]) -> SustainedScore {
    let sustained = tests.first().map(|test| {
        // The cliff and dips are found second by second (a short run is sampled finer).
        let finding = analyze(&iomark_result::result::per_second(&test.timeline));
        SustainedFinding {
            extra: Default::default(),
            after_mb_per_s: finding.after_mb_per_s,
            before_mb_per_s: finding.before_mb_per_s,
            cliff_at_bytes: finding.cliff_at_bytes,
            dips: finding.dips as u64,
            // Drive (else SoC) temperature at its highest, where the kernel exposes a sensor.
            max_temp_c: test
                .timeline
                .iter()
                .filter_map(|s| s.temp_c)
                .reduce(f64::max),
            seconds: test.loops.iter().map(|l| l.seconds).sum(),
            written_bytes: test.loops.iter().map(|l| l.bytes).sum(),
        }
    });
    SustainedScore {
        extra: Default::default(),
        sustained,
    }
}

impl Says for SustainedScore {
    fn headline(&self, _doc: &ResultDoc) -> Option<Headline> {
        let s = self.sustained.as_ref()?;
        Some(match s.cliff_at_bytes {
            Some(at) => Headline {
                short: format!("cliff at {}", format_size(at)),
                sentence: format!(
                    "Writes {:.1} MB/s for the first {}, then {:.1} MB/s: a write cache ran out \
                     there.",
                    s.before_mb_per_s,
                    format_size(at),
                    s.after_mb_per_s
                ),
            },
            None => Headline {
                short: format!("no cliff, {}", Rate(s.before_mb_per_s)),
                sentence: format!(
                    "Wrote {:.1} MB/s throughout {}: no write cache ran out.",
                    s.before_mb_per_s,
                    format_size(s.written_bytes)
                ),
            },
        })
    }

    fn details(&self, _doc: &ResultDoc, style: &dyn Marks) -> String {
        let Some(s) = &self.sustained else {
            return String::new();
        };
        let verdict = match s.cliff_at_bytes {
            Some(at) => format!(
                "{:.1} MB/s for the first {}, then {:.1} MB/s (a write cache ran out)",
                s.before_mb_per_s,
                format_size(at),
                s.after_mb_per_s
            ),
            None => format!("{:.1} MB/s throughout, no cliff", s.before_mb_per_s),
        };
        let heat = s
            .max_temp_c
            .map(|c| format!("; peaking at {c:.0} °C"))
            .unwrap_or_default();
        format!(
            "{} {verdict}; {} written in {:.1} s{heat}{}\n",
            style.bold("Sustained write:"),
            format_size(s.written_bytes),
            s.seconds,
            if s.dips >= 3 {
                format!("; {} short dips (throttling? check temperature)", s.dips)
            } else {
                String::new()
            }
        )
    }

    /// The write is over fresh space, not a test file filled first.
    fn object(&self, doc: &ResultDoc) -> Option<String> {
        Some(format_size(doc.settings.file_size_bytes))
    }

    fn pacing(&self, doc: &ResultDoc) -> Option<String> {
        Some(format!(
            "written once (stopping at {} if not done)",
            seconds(doc.settings.duration_s)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeline(rates: &[f64]) -> Vec<TimelineSample> {
        iomark_result::result::sample::timeline(rates)
    }

    #[test]
    fn a_cache_running_out_is_a_cliff() {
        // 12 s at about 400 MB/s, then 20 s at about 80 MB/s: a cliff after ~4.8 GB.
        let mut rates: Vec<f64> = (0..12)
            .map(|i| 400.0 + (i % 3) as f64 * 5.0 - 5.0)
            .collect();
        rates.extend((0..20).map(|i| 80.0 + (i % 4) as f64 * 3.0));
        let finding = analyze(&timeline(&rates));
        let at = finding.cliff_at_bytes.expect("a cliff");
        assert!(
            (at as f64 - 12.0 * 400e6).abs() < 0.05 * 12.0 * 400e6,
            "{at}"
        );
        assert!((finding.before_mb_per_s - 400.0).abs() < 5.0, "{finding:?}");
        assert!((finding.after_mb_per_s - 84.5).abs() < 3.0, "{finding:?}");
        assert_eq!(finding.dips, 0);
    }

    #[test]
    fn a_steady_drive_has_no_cliff() {
        let rates: Vec<f64> = (0..30)
            .map(|i| 200.0 + ((i * 7) % 11) as f64 - 5.0)
            .collect();
        let finding = analyze(&timeline(&rates));
        assert_eq!(finding.cliff_at_bytes, None);
        assert!((finding.before_mb_per_s - finding.after_mb_per_s).abs() < 1e-9);
        assert_eq!(finding.dips, 0);
    }

    #[test]
    fn short_drops_that_recover_are_dips_not_a_cliff() {
        let mut rates = vec![300.0; 30];
        for i in [5, 12, 19, 26] {
            rates[i] = 60.0;
        }
        let finding = analyze(&timeline(&rates));
        assert_eq!(finding.cliff_at_bytes, None);
        assert_eq!(finding.dips, 4);
    }

    #[test]
    fn a_short_run_sampled_in_tenths_is_judged_second_by_second() {
        // 4 s at 300 MB/s with one slow tenth in each second, then 4 s at 60: tenth by tenth
        // there are four dips; second by second there are none, and the cliff is at 4 × 270.3 MB.
        let mut tenths = Vec::new();
        for second in 0..8 {
            for tenth in 0..10 {
                let rate = if second < 4 { 300.0 } else { 60.0 };
                tenths.push(TimelineSample {
                    extra: Default::default(),
                    t: second as f64 + tenth as f64 / 10.0,
                    mb_per_s: if tenth == 5 && second < 4 { 3.0 } else { rate },
                    temp_c: None,
                });
            }
        }
        assert_eq!(analyze(&tenths).dips, 4);
        let seconds = iomark_result::result::per_second(&tenths);
        assert_eq!(seconds.len(), 8);
        let finding = analyze(&seconds);
        assert_eq!(finding.dips, 0);
        let at = finding.cliff_at_bytes.expect("a cliff") as f64;
        assert!((at - 4.0 * 270.3e6).abs() < 1e6, "{at}");
    }

    #[test]
    fn too_short_to_tell() {
        let finding = analyze(&timeline(&[500.0, 500.0, 50.0, 50.0]));
        assert_eq!(finding.cliff_at_bytes, None);
        let size = sustained().file_size;
        assert_eq!(size.resolve(Some(10 << 30)), Some(5 << 30));
        assert_eq!(size.resolve(Some(100 << 30)), Some(16 << 30));
    }
}
