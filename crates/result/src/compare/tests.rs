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

/// A device whose earlier runs' levels were within 1% of each other (five of them).
const STEADY: RunSpread = RunSpread {
    sd: 0.01,
    runs: Some(5),
};

/// The verdict of `b` against `a` alone in a comparison of one figure, on a steady device.
fn judged(a: &TestResult, b: &TestResult) -> Verdict {
    judged_with(a, b, STEADY)
}

fn judged_with(a: &TestResult, b: &TestResult, spread: RunSpread) -> Verdict {
    let diff = b.mb_per_s / a.mb_per_s - 1.0;
    let p = p_value(a, b, "MB/s", spread);
    verdict(diff, p, found_among(p, 1))
}

/// Whether Holm's step-down finds `p` among `n` figures whose others find nothing (p = 1).
fn found_among(p: Option<f64>, n: usize) -> bool {
    let mut ps = vec![Some(1.0); n];
    ps[0] = p;
    holm(&ps)[0]
}

#[test]
fn a_steady_difference_beyond_the_spread_is_a_verdict() {
    let a = measured(100.0, &[99.0, 100.0, 101.0]);
    let b = measured(110.0, &[109.0, 110.0, 111.0]);
    assert!(p_value(&a, &b, "MB/s", STEADY).is_some_and(|p| p < 0.001));
    assert_eq!(judged(&a, &b), Verdict::Faster);
    assert_eq!(judged(&b, &a), Verdict::Slower);
}

#[test]
fn the_same_difference_inside_a_wide_spread_is_noise() {
    let a = measured(100.0, &[80.0, 100.0, 120.0]);
    let b = measured(110.0, &[90.0, 110.0, 130.0]);
    assert_eq!(judged(&a, &b), Verdict::WithinNoise);
}

/// Issue 45 (`bench/compare-noise`): identical runs 33% apart in a table of eight, each
/// steady to 1% over its loops. Without earlier runs to say how far runs of the device
/// wander, a run's level is given 15%: that is within noise, and half the rate is still
/// slower.
#[test]
fn runs_wander_more_than_their_loops_say() {
    let a = measured(100.0, &[99.0, 100.0, 101.0]);
    let b = measured(133.0, &[132.0, 133.0, 134.0]);
    let among_eight = |a: &TestResult, b: &TestResult, spread| {
        let p = p_value(a, b, "MB/s", spread);
        verdict(b.mb_per_s / a.mb_per_s - 1.0, p, found_among(p, 8))
    };
    assert_eq!(
        among_eight(&a, &b, STEADY),
        Verdict::Faster,
        "a steady device"
    );
    assert_eq!(
        among_eight(&a, &b, RunSpread::ASSUMED),
        Verdict::WithinNoise
    );
    let half = measured(50.0, &[49.0, 50.0, 51.0]);
    assert_eq!(among_eight(&a, &half, RunSpread::ASSUMED), Verdict::Slower);
    // Earlier runs' levels give the spread: 100, 104, 96 MB/s is about 4%.
    let earlier: Vec<TestResult> = [100.0, 104.0, 96.0]
        .iter()
        .map(|&m| measured(m, &[m, m, m]))
        .collect();
    let spread = RunSpread::of(&earlier.iter().collect::<Vec<_>>(), "MB/s");
    assert_eq!(spread.runs, Some(3));
    assert!((spread.sd - 0.04).abs() < 0.002, "{spread:?}");
    assert_eq!(
        RunSpread::of(&earlier[..2].iter().collect::<Vec<_>>(), "MB/s"),
        RunSpread::ASSUMED
    );
}

#[test]
fn one_loop_cannot_tell_however_far_apart_or_calm_its_tenths() {
    // Issue 45: a quick run's one loop, its tenths taken as samples, called an identical
    // run 26% slower. Tenths follow each other; they are not samples of the disk.
    let tenths = |mb: f64| {
        let mut t = measured(mb, &[mb]);
        t.timeline = sample::timeline(&[mb, mb, mb, mb, mb]);
        t
    };
    assert_eq!(judged(&tenths(100.0), &tenths(74.0)), Verdict::CantTell);
    assert_eq!(judged(&tenths(100.0), &tenths(300.0)), Verdict::CantTell);
    // Two loops are still too few; three each tell.
    let two = measured(100.0, &[99.0, 101.0]);
    assert_eq!(
        judged(&two, &measured(50.0, &[49.0, 51.0])),
        Verdict::CantTell
    );
    let three = measured(100.0, &[99.0, 100.0, 101.0]);
    assert_eq!(
        judged(&three, &measured(50.0, &[49.0, 50.0, 51.0])),
        Verdict::Slower
    );
}

#[test]
fn a_sure_but_small_difference_is_noise() {
    // 2% apart with loops steady to 0.1%: a real difference of the moment, smaller than
    // identical runs of a disk differ by.
    let a = measured(100.0, &[99.9, 100.0, 100.1]);
    let b = measured(102.0, &[101.9, 102.0, 102.1]);
    let tight = RunSpread {
        sd: 0.001,
        runs: Some(5),
    };
    assert!(p_value(&a, &b, "MB/s", tight).is_some_and(|p| p < 1e-4));
    assert_eq!(judged_with(&a, &b, tight), Verdict::WithinNoise);
}

#[test]
fn more_figures_ask_more_of_each() {
    // A p-value under the level alone, over it shared among eight figures (1% / 8).
    let p = Some(ALPHA / 2.0);
    assert_eq!(verdict(0.10, p, found_among(p, 1)), Verdict::Faster);
    assert_eq!(verdict(0.10, p, found_among(p, 8)), Verdict::WithinNoise);
    let p = Some(ALPHA / 10.0);
    assert_eq!(verdict(-0.10, p, found_among(p, 8)), Verdict::Slower);
}

#[test]
fn runs_measured_differently_are_not_compared() {
    let mut a = sample::doc();
    a.tests = vec![measured(100.0, &[99.0, 100.0, 101.0])];
    let mut b = a.clone();
    b.tests = vec![measured(50.0, &[49.0, 50.0, 51.0])];
    let cell = |c: &Comparison| c.rows[0].cells[1].as_ref().unwrap().verdict;
    assert_eq!(
        cell(&compare(&[a.clone(), b.clone()], &[], Earlier::Saved)),
        Some(Verdict::Slower)
    );
    b.settings.profile = "quick".into();
    let c = compare(&[a, b], &[], Earlier::Saved);
    assert_eq!(cell(&c), Some(Verdict::NotCompared));
    assert!(
        c.differences.iter().any(|d| d.contains("not compared")),
        "{:?}",
        c.differences
    );
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
    let comparison = compare(&[a.clone(), b], &[], Earlier::Saved);
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
    let v = compare(&[c, d], &[], Earlier::Saved).rows[0].cells[1]
        .as_ref()
        .unwrap()
        .verdict;
    assert_ne!(v, Some(Verdict::NoDevice));
}

#[test]
fn tests_missing_from_a_run_leave_a_gap() {
    let mut a = crate::result::sample::doc();
    let mut b = a.clone();
    a.tests = vec![measured(100.0, &[99.0, 100.0, 101.0])];
    let mut write = measured(50.0, &[49.0, 50.0, 51.0]);
    write.name = "SEQ1M_Q8T1_write".into();
    b.tests = vec![measured(50.0, &[49.0, 50.0, 51.0]), write];
    let c = compare(&[a, b], &[], Earlier::Saved);
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
            "B ran with I/O buffered, the baseline with direct",
            "B was measured differently from the baseline: its figures are not compared"
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

/// Holm's step-down finds what Bonferroni finds, and more where the smallest p-values pass:
/// at 1% over four figures, 0.002 passes α/4, 0.003 then α/3 and 0.0049 α/2 (Bonferroni's α/4
/// would refuse both); the first to fail stops the rest, and untested figures are never found.
#[test]
fn holm_steps_down_from_the_smallest_p_value() {
    let ps = [Some(0.003), None, Some(0.002), Some(0.2), Some(0.0049)];
    assert_eq!(holm(&ps), [true, false, true, false, true]);
    // 0.0026 fails α/4 = 0.0025: nothing after it is found, however small its share.
    let ps = [Some(0.0026), Some(0.004), Some(0.004), Some(0.004)];
    assert_eq!(holm(&ps), [false; 4]);
    assert_eq!(holm(&[None, None]), [false, false]);
    // Bonferroni's findings are always Holm's.
    let ps = [Some(0.001), Some(0.0024), Some(0.5), Some(0.03)];
    let bonferroni: Vec<bool> = ps.iter().map(|p| p.unwrap() < ALPHA / 4.0).collect();
    assert_eq!(holm(&ps), bonferroni);
}

/// "Within noise" says what it could have seen: two steady runs 33% apart, one figure, the
/// assumed 15% a run: a verdict needed them exp(2.576 × √(2 × 0.15²)) ≈ 1.73x apart (1% alone,
/// the normal's 2.576), and the sentence says so. Half as fast is past it.
#[test]
fn within_noise_says_how_far_apart_a_verdict_needed() {
    let mut a = sample::doc();
    a.tests = vec![measured(100.0, &[99.9, 100.0, 100.1])];
    let mut b = a.clone();
    b.tests = vec![measured(133.0, &[132.9, 133.0, 133.1])];
    let c = compare(&[a.clone(), b], &[], Earlier::Saved);
    let cell = c.rows[0].cells[1].as_ref().unwrap();
    assert_eq!(cell.verdict, Some(Verdict::WithinNoise));
    let needed = cell.detectable.unwrap();
    let expected = (2.576 * (2.0 * RUN_SPREAD * RUN_SPREAD).sqrt()).exp();
    assert!((needed - expected).abs() < 0.01, "{needed} {expected}");
    let line = c.within_noise.as_deref().unwrap();
    assert!(
        line.contains(&format!("{needed:.2}x apart or more")),
        "{line}"
    );
    let mut half = a.clone();
    half.tests = vec![measured(50.0, &[49.9, 50.0, 50.1])];
    let c = compare(&[a, half], &[], Earlier::Saved);
    let cell = c.rows[0].cells[1].as_ref().unwrap();
    assert_eq!(cell.verdict, Some(Verdict::Slower));
    assert_eq!(cell.detectable, None);
    assert_eq!(c.within_noise, None);
}

/// `iomark compare --json` is read back by the app as this same type: every field, the gaps
/// and the sentences included, reads back as it was written.
#[test]
fn a_comparison_reads_back_as_written() {
    let mut a = sample::doc();
    a.tests = vec![measured(100.0, &[99.9, 100.0, 100.1])];
    let mut b = a.clone();
    let mut write = measured(50.0, &[49.0, 50.0, 51.0]);
    write.name = "SEQ1M_Q8T1_write".into();
    b.tests = vec![measured(133.0, &[132.9, 133.0, 133.1]), write];
    b.label = Some("after".into());
    let c = compare(&[a, b], &[], Earlier::Saved);
    assert!(c.within_noise.is_some() && c.rows[1].cells[0].is_none());
    let text = serde_json::to_string_pretty(&c).unwrap();
    assert_eq!(serde_json::from_str::<Comparison>(&text).unwrap(), c);
}
