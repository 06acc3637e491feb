//! From measurements to reported figures.
//!
//! The reported loop is the median loop by throughput (the lower of the middle two for an even
//! count), reported whole, so its MB/s and IOPS come from the same bytes and seconds and
//! `mb_per_s == iops * block_size / 10^6` holds exactly. Latency percentiles cover every I/O of
//! every timed loop. The spread between loops is the coefficient of variation of their MB/s.

use crate::engine::clock::TIMELINE_STEP_NS;
use crate::engine::Measurement;
use iomark_result::result::{Bucket, Cpu, Latency, Loop, TestResult, TimelineSample};
use iomark_result::stats::{coefficient_of_variation, median_index};
use iomark_result::units::{mb_per_s, per_second};

use super::TestSpec;

/// A timeline's last sample shorter than this part of a step is folded into the one before: it
/// holds only the I/Os drained after the deadline, and on its own would show a rate no device
/// sustained.
const SHORTEST_SAMPLE: f64 = 0.5;

/// Timed loops lasting this long in all are sampled second by second; shorter ones in finer
/// steps, so that a quick test of a second or two draws a line, not a point.
const FINE_UNDER_S: f64 = 10.0;

/// A fine step must hold this many I/Os on average, else a coarser one is taken: a slow card's
/// 1 MiB writes arrive one or two a tenth of a second, and steps holding one or none would draw
/// a saw between zero and twice the rate instead of the rate (a tenth of one I/O's worth is the
/// most one step's count can be off).
const MIN_IOS_PER_STEP: f64 = 10.0;

/// The steps a timeline may take, in the engine's buckets (tenths of a second).
const STEPS: [usize; 4] = [1, 2, 5, 10];

pub fn summarize(spec: &TestSpec, measurements: &[Measurement], cpu: Cpu) -> TestResult {
    let loops: Vec<Loop> = measurements
        .iter()
        .map(|m| {
            let seconds = m.elapsed.as_secs_f64();
            Loop {
                extra: Default::default(),
                mb_per_s: mb_per_s(m.bytes, seconds),
                iops: per_second(m.ios, seconds),
                bytes: m.bytes,
                ios: m.ios,
                seconds,
            }
        })
        .collect();
    let rates: Vec<f64> = loops.iter().map(|l| l.mb_per_s).collect();
    let reported = loops.get(median_index(&rates)).cloned().unwrap_or(Loop {
        extra: Default::default(),
        mb_per_s: 0.0,
        iops: 0.0,
        bytes: 0,
        ios: 0,
        seconds: 0.0,
    });
    TestResult {
        extra: Default::default(),
        name: spec.name(),
        kind: spec.pattern.as_str().into(),
        op: spec.op.as_str().into(),
        block_size: spec.block_size,
        queue_depth: spec.queue_depth,
        threads: spec.threads,
        mb_per_s: reported.mb_per_s,
        iops: reported.iops,
        latency_us: latency(measurements, spec.ios.is_some()),
        cv: coefficient_of_variation(&rates),
        mean_ci95_pct: None,
        cpu,
        timeline: timeline(measurements),
        loops,
    }
}

/// Latency over every I/O; with `buckets`, also the histogram (for counted tests: the latency
/// profile's samples, whose distribution is the point).
fn latency(measurements: &[Measurement], buckets: bool) -> Latency {
    let mut all = crate::engine::clock::new_histogram();
    for m in measurements {
        all.add(&m.latency).expect("same histogram bounds");
    }
    if all.is_empty() {
        return Latency::default();
    }
    let us = |ns: u64| ns as f64 / 1000.0;
    Latency {
        extra: Default::default(),
        min: us(all.min()),
        mean: all.mean() / 1000.0,
        p50: us(all.value_at_quantile(0.50)),
        p90: us(all.value_at_quantile(0.90)),
        p99: us(all.value_at_quantile(0.99)),
        p99_9: us(all.value_at_quantile(0.999)),
        max: us(all.max()),
        stddev: all.stdev() / 1000.0,
        histogram: if buckets { histogram(&all) } else { Vec::new() },
    }
}

/// Buckets four to an octave (bounds 2^(k/4) µs), from the fastest I/O's to the slowest's; empty
/// buckets inside that range are kept so that a chart shows the gaps.
fn histogram(all: &hdrhistogram::Histogram<u64>) -> Vec<Bucket> {
    let bucket_of = |ns: u64| ((ns.max(1) as f64 / 1000.0).log2() * 4.0).ceil() as i32;
    let first = bucket_of(all.min());
    let last = bucket_of(all.max());
    let mut buckets: Vec<Bucket> = (first..=last)
        .map(|k| Bucket {
            extra: Default::default(),
            le_us: 2f64.powf(k as f64 / 4.0),
            count: 0,
        })
        .collect();
    for value in all.iter_recorded() {
        let k = bucket_of(all.highest_equivalent(value.value_iterated_to()));
        let index = (k - first).clamp(0, buckets.len() as i32 - 1) as usize;
        buckets[index].count += value.count_at_value();
    }
    buckets
}

/// How many engine buckets make one timeline sample: whole seconds for tests of 10 s or more,
/// else the finest step that holds [`MIN_IOS_PER_STEP`] I/Os on average.
fn step_buckets(measurements: &[Measurement]) -> usize {
    let seconds: f64 = measurements.iter().map(|m| m.elapsed.as_secs_f64()).sum();
    let ios: u64 = measurements.iter().map(|m| m.ios).sum();
    let whole = STEPS[STEPS.len() - 1];
    if seconds >= FINE_UNDER_S || seconds <= 0.0 {
        return whole;
    }
    STEPS
        .into_iter()
        .find(|&k| ios as f64 * step_seconds(k) / seconds >= MIN_IOS_PER_STEP)
        .unwrap_or(whole)
}

fn step_seconds(buckets: usize) -> f64 {
    (buckets as u64 * TIMELINE_STEP_NS) as f64 / 1e9
}

/// One sample per step of each loop (see [`step_buckets`]), loops laid end to end.
fn timeline(measurements: &[Measurement]) -> Vec<TimelineSample> {
    let buckets = step_buckets(measurements);
    let step = step_seconds(buckets);
    let mut samples = Vec::new();
    let mut offset = 0.0;
    for m in measurements {
        let elapsed = m.elapsed.as_secs_f64();
        // (start, length, bytes) of each step; a short last one joins the one before.
        let mut steps: Vec<(f64, f64, u64)> = Vec::with_capacity(m.timeline.len() / buckets + 1);
        for (i, chunk) in m.timeline.chunks(buckets).enumerate() {
            let start = i as f64 * step;
            let length = (elapsed - start).clamp(0.0, step);
            let bytes: u64 = chunk.iter().sum();
            match steps.last_mut() {
                Some(last) if length < SHORTEST_SAMPLE * step => {
                    last.1 += length;
                    last.2 += bytes;
                }
                _ => steps.push((start, length, bytes)),
            }
        }
        for (start, length, bytes) in steps {
            samples.push(TimelineSample {
                extra: Default::default(),
                // To the microsecond: 0.3, not 0.30000000000000004.
                t: ((offset + start) * 1e6).round() / 1e6,
                mb_per_s: mb_per_s(bytes, length),
                temp_c: None,
            });
        }
        offset += elapsed;
    }
    samples
}

/// Puts temperature readings, taken as `(seconds since the loop began, °C)`, on the timeline
/// samples they fall in (the hottest reading of each sample).
pub fn attach_temperatures(timeline: &mut [TimelineSample], readings: &[(f64, f64)]) {
    let lengths = iomark_result::result::sample_lengths(timeline);
    for (sample, length) in timeline.iter_mut().zip(lengths) {
        sample.temp_c = readings
            .iter()
            .filter(|(t, _)| *t >= sample.t && *t < sample.t + length)
            .map(|(_, celsius)| *celsius)
            .reduce(f64::max);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::clock::Recorder;
    use crate::engine::{Op, Pattern};
    use std::time::{Duration, Instant};

    /// A measurement of `ios` I/Os of `block` bytes spread evenly over `seconds`.
    pub(crate) fn measured(ios: u64, block: u64, seconds: f64, latency: Duration) -> Measurement {
        let start = Instant::now();
        let mut recorder = Recorder::new(start);
        for i in 0..ios {
            let done = start + Duration::from_secs_f64(seconds * (i + 1) as f64 / ios as f64);
            recorder.record(done - latency, done, block);
        }
        recorder.finish(start + Duration::from_secs_f64(seconds))
    }

    pub(crate) fn spec() -> TestSpec {
        TestSpec::new(Pattern::Random, 4096, 1, Op::Read)
    }

    #[test]
    fn reports_the_median_loop_whole() {
        let loops = [
            measured(3000, 4096, 1.0, Duration::from_micros(300)),
            measured(1000, 4096, 1.0, Duration::from_micros(900)),
            measured(2000, 4096, 1.0, Duration::from_micros(450)),
        ];
        let r = summarize(&spec(), &loops, Cpu::default());
        assert_eq!(r.iops, 2000.0);
        assert_eq!(r.mb_per_s, 2000.0 * 4096.0 / 1e6);
        assert_eq!(r.mb_per_s, r.iops * r.block_size as f64 / 1e6);
        assert_eq!(r.loops.len(), 3);
        assert!((r.cv - 0.5).abs() < 1e-9, "{}", r.cv);
        // Percentiles over all 6000 I/Os: half at 300 µs, a third at 450, a sixth at 900.
        assert!((r.latency_us.p50 - 300.0).abs() < 1.0, "{:?}", r.latency_us);
        assert!((r.latency_us.p90 - 900.0).abs() < 1.0, "{:?}", r.latency_us);
        assert!((r.latency_us.max - 900.0).abs() < 1.0);
        assert!(
            (r.latency_us.mean - 450.0).abs() < 1.0,
            "{:?}",
            r.latency_us
        );
    }

    #[test]
    fn even_count_takes_the_lower_middle() {
        assert_eq!(median_index(&[4.0, 1.0, 3.0, 2.0]), 3);
        assert_eq!(median_index(&[5.0]), 0);
        assert_eq!(coefficient_of_variation(&[5.0]), 0.0);
        assert_eq!(coefficient_of_variation(&[2.0, 2.0, 2.0]), 0.0);
    }

    #[test]
    fn timeline_per_second_with_the_drain_folded_in() {
        // 5.2 s at 1000 I/Os per second, twice: 10 s or more in all, so whole seconds; the
        // 0.2 s after the fifth second folded into it.
        let m = measured(5200, 1_000_000, 5.2, Duration::from_micros(10));
        let r = summarize(&spec(), &[m.clone(), m], Cpu::default());
        assert_eq!(r.timeline.len(), 10);
        assert_eq!(r.timeline[0].t, 0.0);
        assert_eq!(r.timeline[1].t, 1.0);
        assert_eq!(r.timeline[5].t, 5.2);
        for sample in &r.timeline {
            assert!((sample.mb_per_s - 1000.0).abs() < 10.0, "{sample:?}");
        }
        // Already second by second: what is defined per second takes it as it is.
        assert_eq!(iomark_result::result::per_second(&r.timeline), r.timeline);
    }

    #[test]
    fn a_short_test_is_sampled_in_tenths() {
        // 1.03 s at 1000 I/Os per second, twice: tenths of a second, the last 0.03 s of each
        // loop folded into its tenth tenth.
        let m = measured(1030, 1_000_000, 1.03, Duration::from_micros(10));
        let r = summarize(&spec(), &[m.clone(), m], Cpu::default());
        assert_eq!(r.timeline.len(), 20, "{:?}", r.timeline);
        assert_eq!(r.timeline[3].t, 0.3);
        assert_eq!(r.timeline[10].t, 1.03);
        assert_eq!(r.timeline[19].t, 1.93);
        // (An I/O completing on a step's last instant counts in the next: 990, not 1000.)
        for sample in &r.timeline {
            assert!((sample.mb_per_s - 1000.0).abs() <= 10.0, "{sample:?}");
        }
        // Taken back to whole seconds (for a comparison's spread), the level is the same.
        let seconds = r.timeline_seconds();
        assert_eq!(seconds.len(), 2);
        assert!(
            seconds.iter().all(|s| (s - 1000.0).abs() < 10.0),
            "{seconds:?}"
        );
    }

    #[test]
    fn a_slow_short_test_takes_steps_holding_ten_ios() {
        // 40 I/Os in 2 s: two a tenth, four a fifth, ten a half second.
        let m = measured(40, 1 << 20, 2.0, Duration::from_millis(40));
        let r = summarize(&spec(), &[m], Cpu::default());
        let starts: Vec<f64> = r.timeline.iter().map(|s| s.t).collect();
        assert_eq!(starts, [0.0, 0.5, 1.0, 1.5]);
    }

    #[test]
    fn histogram_buckets_are_quarter_octaves_covering_every_io() {
        let mut h = crate::engine::clock::new_histogram();
        // 100 I/Os at 100 µs, 10 at 1 ms, 1 at 10 ms.
        h.record_n(100_000, 100).unwrap();
        h.record_n(1_000_000, 10).unwrap();
        h.record(10_000_000).unwrap();
        let buckets = histogram(&h);
        assert_eq!(buckets.iter().map(|b| b.count).sum::<u64>(), 111);
        // From the bucket holding 100 µs to the one holding 10 ms: log2(100) * 4 = 26.6 → 27
        // steps, every bound a quarter octave above the last.
        assert_eq!(buckets.len(), 28);
        for pair in buckets.windows(2) {
            assert!((pair[1].le_us / pair[0].le_us - 2f64.powf(0.25)).abs() < 1e-9);
        }
        let holding = |us: f64| {
            buckets
                .iter()
                .find(|b| b.le_us >= us * 0.999)
                .map(|b| b.count)
                .unwrap()
        };
        assert_eq!(holding(100.0), 100);
        assert_eq!(holding(1000.0), 10);
        assert_eq!(buckets.last().unwrap().count, 1);
        assert!(buckets[0].le_us >= 100.0 && buckets[0].le_us < 100.0 * 2f64.powf(0.25));
    }

    #[test]
    fn temperatures_land_on_their_seconds() {
        let mut timeline: Vec<TimelineSample> = (0..3)
            .map(|i| TimelineSample {
                extra: Default::default(),
                t: f64::from(i),
                mb_per_s: 100.0,
                temp_c: None,
            })
            .collect();
        attach_temperatures(
            &mut timeline,
            &[(0.01, 40.0), (1.02, 41.5), (1.6, 42.0), (3.4, 50.0)],
        );
        let temps: Vec<Option<f64>> = timeline.iter().map(|s| s.temp_c).collect();
        assert_eq!(temps, [Some(40.0), Some(42.0), None]);
    }
}
