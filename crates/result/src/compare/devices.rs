//! Devices side by side on a site: a figure's medians over each device's results, told apart
//! only where the middle halves of their results do not overlap.

use super::Verdict;

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
