//! The verdict on one figure of two runs: Welch's t-test on their loops, each run's level
//! given how far whole runs of the device wander ([`RunSpread`]), at a level shared among the
//! figures compared ([`holm`]).

use super::Verdict;
use crate::result::TestResult;

/// Fewer loops than this in either run, and a difference is "can't tell".
pub const MIN_LOOPS: usize = 3;
/// The chance of calling any figure of a comparison faster or slower when the runs do not
/// differ, shared among the figures judged by Holm's step-down ([`holm`]). 1%, so that 19
/// pairs of identical runs in 20 get no verdict with room to spare.
pub const ALPHA: f64 = 0.01;
/// The smallest difference called faster or slower however steady the runs.
pub const MIN_EFFECT: f64 = 0.05;
/// How much two runs of one disk differ beyond their loops, where the history cannot say:
/// the disk's state between them (its caches, what the host did) moves a whole run, and a
/// run's loops, taken back to back, do not show it. `bench/compare-noise` on this project's
/// virtual disk: 20 identical standard runs' levels spread 7% to 14% (one test 27%), and
/// identical pairs 33% to 105% apart with loops steady to 1%. Its 10 standard pairs judged
/// with no history: at 10% three got a verdict, at 15% none.
pub const RUN_SPREAD: f64 = 0.15;
/// Earlier runs of a device, with the same method, needed to take its run-to-run spread from
/// them.
pub const MIN_HISTORY: usize = 3;

/// A test's loops as samples of the figure compared (MB/s or IOPS), as logarithms: a
/// difference of logarithms is a ratio, whatever the device's speed.
fn samples(t: &TestResult, unit: &str) -> Vec<f64> {
    t.loops
        .iter()
        .map(|l| if unit == "MB/s" { l.mb_per_s } else { l.iops })
        .filter(|v| *v > 0.0)
        .map(f64::ln)
        .collect()
}

/// The relative difference of `other`'s figure from `base`'s.
pub(super) fn difference(base: f64, other: f64) -> f64 {
    if base > 0.0 {
        other / base - 1.0
    } else if other > 0.0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// How much a run's level differs from another's of the same disk beyond what its loops show,
/// as a standard deviation of the logarithm (about a coefficient of variation): the spread of
/// earlier runs' levels, or [`RUN_SPREAD`] where there were too few.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSpread {
    pub sd: f64,
    /// How many earlier runs it was taken from; none: assumed.
    pub runs: Option<usize>,
}

impl RunSpread {
    pub const ASSUMED: RunSpread = RunSpread {
        sd: RUN_SPREAD,
        runs: None,
    };

    /// From earlier runs' tests of the same name (same device, same method): the sample
    /// standard deviation of their levels (each the mean of its loops' logarithms), where
    /// there are [`MIN_HISTORY`] or more; else assumed.
    pub fn of(earlier: &[&TestResult], unit: &str) -> RunSpread {
        let levels: Vec<f64> = earlier
            .iter()
            .map(|t| samples(t, unit))
            .filter(|s| !s.is_empty())
            .map(|s| s.iter().sum::<f64>() / s.len() as f64)
            .collect();
        if levels.len() < MIN_HISTORY {
            return RunSpread::ASSUMED;
        }
        let n = levels.len() as f64;
        let mean = levels.iter().sum::<f64>() / n;
        let var = levels.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0);
        RunSpread {
            sd: var.sqrt(),
            runs: Some(levels.len()),
        }
    }
}

/// What Welch's test of two tests takes: their loops as logarithms, the further variance of
/// both runs' levels (twice `spread`'s) and its degrees of freedom; none unless each has
/// [`MIN_LOOPS`] or more.
fn beside(
    base: &TestResult,
    other: &TestResult,
    unit: &str,
    spread: RunSpread,
) -> Option<(Vec<f64>, Vec<f64>, f64, f64)> {
    let (a, b) = (samples(base, unit), samples(other, unit));
    if a.len() < MIN_LOOPS || b.len() < MIN_LOOPS {
        return None;
    }
    let df = spread.runs.map_or(f64::INFINITY, |n| (n - 1) as f64);
    Some((a, b, 2.0 * spread.sd.powi(2), df))
}

/// Welch's test of two tests' loops, each run's level given `spread` more (both runs': twice
/// its variance): its p-value, where each has [`MIN_LOOPS`] or more.
pub fn p_value(
    base: &TestResult,
    other: &TestResult,
    unit: &str,
    spread: RunSpread,
) -> Option<f64> {
    let (a, b, extra, df) = beside(base, other, unit, spread)?;
    crate::stats::welch_p_beside(&a, &b, extra, df)
}

/// How many times apart two tests' figures would have to be for a verdict, with their loops'
/// spreads and `spread` as [`p_value`] takes them: the first found among `judged` figures
/// (Holm's first step, α/m) and at least [`MIN_EFFECT`]; none where no test can be made.
pub fn detectable(
    base: &TestResult,
    other: &TestResult,
    unit: &str,
    spread: RunSpread,
    judged: usize,
) -> Option<f64> {
    let (a, b, extra, df) = beside(base, other, unit, spread)?;
    let level = ALPHA / judged.max(1) as f64;
    let d = crate::stats::welch_detectable(&a, &b, extra, df, level)?;
    Some(d.exp().max(1.0 + MIN_EFFECT))
}

/// Which of a comparison's p-values (none: not tested) find a difference at [`ALPHA`] over all
/// the figures tested, by Holm's step-down: the smallest against α/m, the next against
/// α/(m−1), and so on, stopping at the first that is not under its share. The same family-wise
/// level as Bonferroni's α/m for each, and never fewer findings.
pub fn holm(ps: &[Option<f64>]) -> Vec<bool> {
    let mut order: Vec<(usize, f64)> = ps
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (i, p)))
        .collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    let m = order.len();
    let mut found = vec![false; ps.len()];
    for (k, (i, p)) in order.into_iter().enumerate() {
        if p < ALPHA / (m - k) as f64 {
            found[i] = true;
        } else {
            break;
        }
    }
    found
}

/// The verdict on one figure: `p` from [`p_value`] (none: too few loops), `found` whether
/// [`holm`] found its difference among the comparison's figures.
pub fn verdict(diff: f64, p: Option<f64>, found: bool) -> Verdict {
    if p.is_none() {
        return Verdict::CantTell;
    }
    if found && diff.abs() >= MIN_EFFECT {
        if diff > 0.0 {
            Verdict::Faster
        } else {
            Verdict::Slower
        }
    } else {
        Verdict::WithinNoise
    }
}
