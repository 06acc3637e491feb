//! A test's timeline regrouped: how long each sample lasts, and whole seconds for what is
//! defined per second.

use super::TimelineSample;

/// How long each timeline sample lasts: until the next sample begins; the last as long as the
/// one before it (a short tail is folded into the sample before, so none is shorter).
pub fn sample_lengths(timeline: &[TimelineSample]) -> Vec<f64> {
    let mut lengths: Vec<f64> = timeline.windows(2).map(|w| w[1].t - w[0].t).collect();
    lengths.push(lengths.last().copied().unwrap_or(1.0));
    lengths
}

/// The timeline in whole seconds: a short test's finer samples averaged by their length into
/// the second they begin in (its hottest temperature kept), for what is defined per second
/// (a comparison's spread, a sustained write's dips).
pub fn per_second(timeline: &[TimelineSample]) -> Vec<TimelineSample> {
    // Already second by second (a long test's): as it is, each loop's short last second kept
    // apart from the next loop's first.
    if timeline.len() < 2 || timeline[1].t - timeline[0].t >= 1.0 - 1e-6 {
        return timeline.to_vec();
    }
    let mut seconds: Vec<(f64, f64, Option<f64>)> = Vec::new();
    for (sample, length) in timeline.iter().zip(sample_lengths(timeline)) {
        let second = (sample.t + 1e-6).floor().max(0.0) as usize;
        if seconds.len() <= second {
            seconds.resize(second + 1, (0.0, 0.0, None));
        }
        let (megabytes, seconds_in, temp) = &mut seconds[second];
        *megabytes += sample.mb_per_s * length;
        *seconds_in += length;
        *temp = match (*temp, sample.temp_c) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
    seconds
        .into_iter()
        .enumerate()
        .filter(|(_, (_, length, _))| *length > 0.0)
        .map(|(second, (megabytes, length, temp_c))| TimelineSample {
            extra: Default::default(),
            t: second as f64,
            mb_per_s: megabytes / length,
            temp_c,
        })
        .collect()
}
