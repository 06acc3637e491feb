//! Runs side by side: each test's figure against the baseline's, with a verdict that weighs the
//! difference against both runs' own loop-to-loop spread.

use serde::Serialize;

use crate::result::{ResultDoc, TestResult};

/// The smallest band called noise, however steady both runs were: 2%.
pub const MIN_BAND: f64 = 0.02;
/// When a run's own spread is unknown (one loop, and under three seconds on its timeline),
/// a difference is a verdict only beyond this: identical quick runs made 20 s apart on this
/// project's virtual disk differed by up to 20%, and loops of one run there by 15-40%
/// (issue 11). Within it, the verdict is "can't tell".
pub const UNKNOWN_SPREAD_BAND: f64 = 0.5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Faster,
    Slower,
    WithinNoise,
    /// A run's spread is unknown and the difference is not far beyond anything it could be.
    CantTell,
    /// A run was on the null engine: it measured iomark itself, not a device, so no device
    /// is faster or slower.
    NoDevice,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
            Verdict::CantTell => "can't tell",
            Verdict::NoDevice => "no device (null engine)",
        }
    }
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Run {
    pub id: String,
    pub started_at: String,
    pub label: Option<String>,
    pub device: String,
    pub profile: String,
    /// What the device cost, where the run says.
    pub price_usd: Option<f64>,
}

/// One test across the runs.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Row {
    pub test: String,
    /// `MB/s` for blocks of 64 KiB and more, `IOPS` below.
    pub unit: &'static str,
    /// One per run, in the order given; none where that run lacks the test.
    pub cells: Vec<Option<Cell>>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Cell {
    pub value: f64,
    pub cv: f64,
    pub loops: usize,
    /// Against the baseline, in percent (absent for the baseline itself).
    pub diff_pct: Option<f64>,
    /// The half-width of the noise band used, in percent.
    pub band_pct: Option<f64>,
    pub verdict: Option<Verdict>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Comparison {
    pub runs: Vec<Run>,
    pub rows: Vec<Row>,
    /// How the runs' settings differ from the baseline's, where that changes what a figure
    /// means (file size, direct or buffered I/O, data, engine, loops).
    pub differences: Vec<String>,
}

/// The settings of each run that differ from the first run's, in words.
pub fn differences(docs: &[ResultDoc]) -> Vec<String> {
    let Some(base) = docs.first() else {
        return Vec::new();
    };
    let describe = |d: &ResultDoc| -> Vec<(&'static str, String)> {
        let s = &d.settings;
        vec![
            ("test file", crate::units::format_size(s.file_size_bytes)),
            (
                "I/O",
                if s.direct {
                    "direct".into()
                } else {
                    "buffered".into()
                },
            ),
            ("data", s.data.clone()),
            ("engine", s.engine.clone()),
            ("loops", s.loops.to_string()),
        ]
    };
    let first = describe(base);
    let mut out = Vec::new();
    for (i, doc) in docs.iter().enumerate().skip(1) {
        for ((what, theirs), (_, ours)) in describe(doc).into_iter().zip(&first) {
            if &theirs != ours {
                let letter = letter(i);
                out.push(format!(
                    "{letter} ran with {what} {theirs}, the baseline with {ours}"
                ));
            }
        }
    }
    out
}

/// The letter a comparison calls its `i`-th run by: A (the baseline), B, C…
pub fn letter(i: usize) -> char {
    (b'A' + (i % 26) as u8) as char
}

/// A run's loop-to-loop spread for one test, as a coefficient of variation: from its loops when
/// it had several; else from its timeline's samples when it has three or more besides the last
/// (which may hold only the drain): seconds for a long loop, tenths for a short one (a single
/// quick loop of 0.5 s has five). It errs wide, since a second or a tenth varies more than a
/// loop; else unknown.
pub fn spread(t: &TestResult) -> Option<f64> {
    if t.loops.len() >= 2 {
        return Some(t.cv).filter(|cv| cv.is_finite());
    }
    if t.timeline.len() >= 4 {
        let rates: Vec<f64> = t.timeline[..t.timeline.len() - 1]
            .iter()
            .map(|s| s.mb_per_s)
            .collect();
        return Some(crate::stats::coefficient_of_variation(&rates)).filter(|cv| cv.is_finite());
    }
    None
}

/// The band within which two runs' figures cannot be told apart: twice their combined spread
/// and at least [`MIN_BAND`]; [`UNKNOWN_SPREAD_BAND`] when either spread is unknown. The
/// second value says whether both spreads were known.
pub fn band(base: &TestResult, other: &TestResult) -> (f64, bool) {
    match (spread(base), spread(other)) {
        (Some(a), Some(b)) => ((2.0 * (a.powi(2) + b.powi(2)).sqrt()).max(MIN_BAND), true),
        _ => (UNKNOWN_SPREAD_BAND, false),
    }
}

/// Higher is faster for every figure compared (MB/s and IOPS).
pub fn verdict(base: &TestResult, other: &TestResult) -> (f64, f64, Verdict) {
    let diff = if base.mb_per_s > 0.0 {
        other.mb_per_s / base.mb_per_s - 1.0
    } else if other.mb_per_s > 0.0 {
        f64::INFINITY
    } else {
        0.0
    };
    let (band, known) = band(base, other);
    let verdict = if diff.abs() <= band {
        if known {
            Verdict::WithinNoise
        } else {
            Verdict::CantTell
        }
    } else if diff > 0.0 {
        Verdict::Faster
    } else {
        Verdict::Slower
    };
    (diff, band, verdict)
}

/// Fewer results than this and two devices cannot be told apart by them.
pub const MIN_RESULTS: u64 = 3;

/// A figure across one device's results: their median, quartiles and count.
#[derive(Clone, Copy, Debug)]
pub struct Results {
    pub median: f64,
    pub p25: f64,
    pub p75: f64,
    pub n: u64,
}

/// One device's figure against the baseline device's (higher is faster): the difference of the
/// medians, and a verdict only where both have [`MIN_RESULTS`] results or more and the middle
/// halves of their results do not overlap; within noise where they overlap, can't tell with
/// fewer results. Results of one model vary with the board, the card's age and its fill more
/// than one run's loops do, so the band is their spread, not a run's.
pub fn between_devices(base: Results, other: Results) -> (f64, Verdict) {
    let diff = if base.median > 0.0 {
        other.median / base.median - 1.0
    } else {
        0.0
    };
    let verdict = if base.n < MIN_RESULTS || other.n < MIN_RESULTS {
        Verdict::CantTell
    } else if other.p25 > base.p75 {
        Verdict::Faster
    } else if other.p75 < base.p25 {
        Verdict::Slower
    } else {
        Verdict::WithinNoise
    };
    (diff, verdict)
}

pub fn compare(docs: &[ResultDoc]) -> Comparison {
    let names = crate::result::test_names(docs);
    let base = docs.first();
    // The null engine does no I/O: its figures are iomark's own speed, not a device's.
    let null = |d: &ResultDoc| d.settings.engine.split('+').any(|e| e == "null");
    let no_device = base.is_some_and(null);
    let rows = names
        .into_iter()
        .map(|name| {
            let baseline = base.and_then(|d| d.test(name));
            let block = docs
                .iter()
                .find_map(|d| d.test(name))
                .map(|t| t.block_size)
                .unwrap_or(0);
            let unit = if block >= 64 * 1024 { "MB/s" } else { "IOPS" };
            let cells = docs
                .iter()
                .enumerate()
                .map(|(i, doc)| {
                    let t = doc.test(name)?;
                    let value = if unit == "MB/s" { t.mb_per_s } else { t.iops };
                    let judged = baseline.filter(|_| i > 0).map(|b| {
                        let (diff, band, judged) = verdict(b, t);
                        if no_device || null(doc) {
                            (diff, band, Verdict::NoDevice)
                        } else {
                            (diff, band, judged)
                        }
                    });
                    Some(Cell {
                        value,
                        cv: t.cv,
                        loops: t.loops.len(),
                        diff_pct: judged.map(|(d, _, _)| d * 100.0),
                        band_pct: judged.map(|(_, b, _)| b * 100.0),
                        verdict: judged.map(|(_, _, v)| v),
                    })
                })
                .collect();
            Row {
                test: name.to_string(),
                unit,
                cells,
            }
        })
        .collect();
    Comparison {
        runs: docs
            .iter()
            .map(|d| Run {
                id: d.id.clone(),
                started_at: d.started_at.clone(),
                label: d.label.clone(),
                device: d.device_label(),
                profile: d.settings.profile.clone(),
                price_usd: d.price_usd,
            })
            .collect(),
        rows,
        differences: differences(docs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::sample;
    use crate::result::Loop;

    fn measured(mb_per_s: f64, loops: &[f64]) -> TestResult {
        let mut t = sample::result("SEQ1M_Q8T1_read", "read", 1 << 20, mb_per_s, mb_per_s);
        t.loops = loops
            .iter()
            .map(|&m| Loop {
                extra: Default::default(),
                mb_per_s: m,
                iops: m,
                bytes: 0,
                ios: 0,
                seconds: 1.0,
            })
            .collect();
        let mean = loops.iter().sum::<f64>() / loops.len() as f64;
        let var =
            loops.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (loops.len().max(2) - 1) as f64;
        t.cv = var.sqrt() / mean;
        t
    }

    #[test]
    fn a_steady_difference_beyond_the_spread_is_a_verdict() {
        let a = measured(100.0, &[99.0, 100.0, 101.0]);
        let b = measured(110.0, &[109.0, 110.0, 111.0]);
        let (diff, band, v) = verdict(&a, &b);
        assert!((diff - 0.10).abs() < 1e-9);
        // cv 1% and 0.9%: a band of 2·√(cv_a² + cv_b²) = 2.7%.
        let expected = 2.0 * (a.cv.powi(2) + b.cv.powi(2)).sqrt();
        assert!((band - expected).abs() < 1e-12 && band > MIN_BAND, "{band}");
        assert_eq!(v, Verdict::Faster);
        assert_eq!(verdict(&b, &a).2, Verdict::Slower);
    }

    #[test]
    fn the_same_difference_inside_a_wide_spread_is_noise() {
        let a = measured(100.0, &[80.0, 100.0, 120.0]);
        let b = measured(110.0, &[90.0, 110.0, 130.0]);
        let (_, band, v) = verdict(&a, &b);
        assert!(band > 0.3, "cv 20% and 18% give a band over 30%: {band}");
        assert_eq!(v, Verdict::WithinNoise);
    }

    #[test]
    fn issue_11_one_loop_without_a_timeline_cannot_tell_unless_far_apart() {
        // Two identical quick runs, 20% apart: the spread is unknown, so no verdict.
        let a = measured(100.0, &[100.0]);
        let b = measured(80.0, &[80.0]);
        assert_eq!(band(&a, &b), (UNKNOWN_SPREAD_BAND, false));
        assert_eq!(verdict(&a, &b).2, Verdict::CantTell);
        assert_eq!(verdict(&a, &measured(160.0, &[160.0])).2, Verdict::Faster);
        assert_eq!(verdict(&a, &measured(40.0, &[40.0])).2, Verdict::Slower);
    }

    #[test]
    fn a_quick_loop_in_tenths_has_a_known_spread() {
        // One 0.5 s loop, sampled in tenths: its spread is known from them (it was "can't tell"
        // for want of three whole seconds).
        let tenths = |mb: f64, rates: &[f64]| {
            let mut t = measured(mb, &[mb]);
            t.timeline = sample::timeline(rates);
            for (i, s) in t.timeline.iter_mut().enumerate() {
                s.t = i as f64 / 10.0;
            }
            t
        };
        let a = tenths(100.0, &[99.0, 101.0, 100.0, 100.0, 100.0]);
        let b = tenths(130.0, &[129.0, 131.0, 130.0, 130.0, 130.0]);
        assert!(spread(&a).is_some_and(|cv| cv < 0.01), "{:?}", spread(&a));
        assert_eq!(verdict(&a, &b).2, Verdict::Faster);
    }

    #[test]
    fn null_engine_runs_are_not_faster_or_slower_devices() {
        let mut a = sample::doc();
        a.settings.engine = "null".into();
        let mut b = a.clone();
        for t in &mut b.tests {
            t.mb_per_s *= 5.0;
            t.iops *= 5.0;
        }
        let comparison = compare(&[a.clone(), b]);
        let verdicts: Vec<_> = comparison.rows[0].cells[1]
            .iter()
            .map(|c| c.verdict)
            .collect();
        assert_eq!(verdicts, [Some(Verdict::NoDevice)]);
        // A real engine against itself, 5x apart, is a verdict.
        let mut c = a.clone();
        c.settings.engine = "io_uring".into();
        let mut d = c.clone();
        for t in &mut d.tests {
            t.mb_per_s *= 5.0;
            t.iops *= 5.0;
        }
        let v = compare(&[c, d]).rows[0].cells[1].as_ref().unwrap().verdict;
        assert_ne!(v, Some(Verdict::NoDevice));
    }

    #[test]
    fn one_loop_with_a_timeline_takes_its_seconds_as_samples() {
        let timed = |mb: f64, seconds: &[f64]| {
            let mut t = measured(mb, &[mb]);
            t.timeline = sample::timeline(seconds);
            t
        };
        // Steady seconds (cv about 1%): 10% apart is a verdict.
        let a = timed(100.0, &[99.0, 101.0, 100.0, 100.0, 60.0]);
        let b = timed(110.0, &[109.0, 111.0, 110.0, 110.0, 70.0]);
        assert!(band(&a, &b).1);
        assert_eq!(verdict(&a, &b).2, Verdict::Faster);
        // Seconds all over the place: the same 10% is noise.
        let c = timed(110.0, &[60.0, 160.0, 90.0, 130.0, 100.0]);
        assert_eq!(verdict(&a, &c).2, Verdict::WithinNoise);
    }

    #[test]
    fn tests_missing_from_a_run_leave_a_gap() {
        let mut a = crate::result::sample::doc();
        let mut b = a.clone();
        a.tests = vec![measured(100.0, &[100.0, 100.0])];
        let mut write = measured(50.0, &[50.0, 50.0]);
        write.name = "SEQ1M_Q8T1_write".into();
        b.tests = vec![measured(50.0, &[50.0, 50.0]), write];
        let c = compare(&[a, b]);
        assert_eq!(c.rows.len(), 2);
        assert!(c.rows[1].cells[0].is_none());
        let cell = c.rows[0].cells[1].as_ref().unwrap();
        assert_eq!(cell.verdict, Some(Verdict::Slower));
        assert!((cell.diff_pct.unwrap() + 50.0).abs() < 1e-9);
        assert!(c.rows[0].cells[0].as_ref().unwrap().verdict.is_none());
        assert!(c.differences.is_empty(), "{:?}", c.differences);
    }

    #[test]
    fn runs_measured_differently_are_said_to_be() {
        let a = crate::result::sample::doc();
        let mut b = a.clone();
        b.settings.direct = false;
        b.settings.file_size_bytes = 64 << 20;
        assert_eq!(
            differences(&[a, b]),
            [
                "B ran with test file 64 MiB, the baseline with 1 GiB",
                "B ran with I/O buffered, the baseline with direct"
            ]
        );
    }

    #[test]
    fn devices_differ_only_beyond_the_spread_of_their_results() {
        let of = |median: f64, p25: f64, p75: f64, n: u64| Results {
            median,
            p25,
            p75,
            n,
        };
        let base = of(100.0, 90.0, 110.0, 5);
        let (diff, v) = between_devices(base, of(130.0, 120.0, 140.0, 4));
        assert!((diff - 0.3).abs() < 1e-12);
        assert_eq!(v, Verdict::Faster);
        assert_eq!(
            between_devices(base, of(70.0, 60.0, 80.0, 4)).1,
            Verdict::Slower
        );
        // Middle halves that overlap: no verdict, however far the medians.
        assert_eq!(
            between_devices(base, of(125.0, 105.0, 140.0, 9)).1,
            Verdict::WithinNoise
        );
        // Two results are too few, however far apart.
        assert_eq!(
            between_devices(base, of(300.0, 290.0, 310.0, 2)).1,
            Verdict::CantTell
        );
    }
}
