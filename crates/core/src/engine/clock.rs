//! Timing: per-I/O latency into an HdrHistogram, bytes into a timeline of tenths of a second,
//! and the process's CPU time.
//!
//! A backend reads the clock once per batch of completions, not once per I/O, and records every
//! I/O of the batch against that instant: on a busy queue this halves the clock reads without
//! changing any latency by more than the time it takes to walk the batch.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

/// The timeline's bucket: a tenth of a second, fine enough to draw a quick test lasting one or
/// two seconds; the suite adds buckets up into whole seconds where a test is long.
pub const TIMELINE_STEP_NS: u64 = 100_000_000;

/// Latencies from 1 ns to 100 s at three significant digits (0.1% resolution).
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 100_000_000_000, 3).expect("histogram bounds")
}

/// What one job did.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub bytes: u64,
    pub ios: u64,
    /// From the first submission to the last completion (and the final sync, if any).
    pub elapsed: Duration,
    /// Per-I/O latency, submission to completion, in nanoseconds.
    pub latency: Histogram<u64>,
    /// Bytes completed in each [`TIMELINE_STEP_NS`] since the job started; the last entry may
    /// cover a partial step (its length is `elapsed` minus the whole steps before it).
    pub timeline: Vec<u64>,
}

impl Measurement {
    /// Adds another stream's figures measured over the same period (psync threads).
    pub fn merge(&mut self, other: &Measurement) {
        self.bytes += other.bytes;
        self.ios += other.ios;
        self.elapsed = self.elapsed.max(other.elapsed);
        self.latency
            .add(&other.latency)
            .expect("same histogram bounds");
        if self.timeline.len() < other.timeline.len() {
            self.timeline.resize(other.timeline.len(), 0);
        }
        for (mine, theirs) in self.timeline.iter_mut().zip(&other.timeline) {
            *mine += theirs;
        }
    }
}

/// Collects completions for one stream of I/O.
pub struct Recorder<'a> {
    start: Instant,
    latency: Histogram<u64>,
    timeline: Vec<u64>,
    bytes: u64,
    ios: u64,
    sink: Option<&'a Mutex<Vec<u64>>>,
}

impl<'a> Recorder<'a> {
    pub fn new(start: Instant) -> Self {
        Recorder {
            start,
            latency: new_histogram(),
            timeline: Vec::with_capacity(16),
            bytes: 0,
            ios: 0,
            sink: None,
        }
    }

    /// Also hands every latency to `sink` (for `--live`; one uncontended lock per I/O).
    pub fn with_sink(mut self, sink: Option<&'a Mutex<Vec<u64>>>) -> Self {
        self.sink = sink;
        self
    }

    /// One I/O of `bytes` bytes, submitted at `submitted`, completed at `done`.
    #[inline]
    pub fn record(&mut self, submitted: Instant, done: Instant, bytes: u64) {
        let since_start = done.saturating_duration_since(self.start).as_nanos() as u64;
        let nanos = done.saturating_duration_since(submitted).as_nanos() as u64;
        self.record_at(nanos, step_of(since_start), bytes);
    }

    /// One I/O of `bytes` bytes that took `nanos` and completed in timeline step `step` since
    /// the start: the core loop reads the clock once per batch and works out the step once.
    #[inline]
    pub fn record_at(&mut self, nanos: u64, step: usize, bytes: u64) {
        self.latency.saturating_record(nanos.max(1));
        if let Some(sink) = self.sink {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(nanos);
        }
        if step >= self.timeline.len() {
            self.timeline.resize(step + 1, 0);
        }
        self.timeline[step] += bytes;
        self.bytes += bytes;
        self.ios += 1;
    }

    pub fn finish(self, end: Instant) -> Measurement {
        let elapsed = end.saturating_duration_since(self.start);
        self.finish_after(elapsed)
    }

    /// The measurement, `elapsed` after the start.
    pub fn finish_after(self, elapsed: Duration) -> Measurement {
        Measurement {
            bytes: self.bytes,
            ios: self.ios,
            elapsed,
            latency: self.latency,
            timeline: self.timeline,
        }
    }
}

/// The timeline step that `nanos` after the start falls in.
#[inline]
pub fn step_of(nanos: u64) -> usize {
    (nanos / TIMELINE_STEP_NS) as usize
}

/// Now on the monotonic clock (the clock `Instant` reads), in nanoseconds, as one integer: the
/// core loop reads it once per batch and does its arithmetic on integers. Measured at QD1 on the
/// null engine, `Instant` arithmetic (two subtractions of timespecs per I/O) took 14% of the
/// loop's time.
#[inline]
pub fn now_ns() -> u64 {
    // SAFETY: clock_gettime fills the timespec it is given; CLOCK_MONOTONIC always exists.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// User and system CPU time this process has used so far, all threads together.
pub fn cpu_time() -> (Duration, Duration) {
    // SAFETY: getrusage fills the struct it is given; zeroed is a valid rusage.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let as_duration = |tv: libc::timeval| {
        Duration::from_secs(tv.tv_sec as u64) + Duration::from_micros(tv.tv_usec as u64)
    };
    (as_duration(usage.ru_utime), as_duration(usage.ru_stime))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_latency_and_timeline() {
        let start = Instant::now();
        let mut recorder = Recorder::new(start);
        recorder.record(start, start + Duration::from_micros(100), 4096);
        recorder.record(start, start + Duration::from_millis(1500), 4096);
        let m = recorder.finish(start + Duration::from_millis(1600));
        assert_eq!((m.bytes, m.ios), (8192, 2));
        // Tenths of a second: the first I/O in the first, the second in the sixteenth.
        assert_eq!(m.timeline.len(), 16);
        assert_eq!((m.timeline[0], m.timeline[15]), (4096, 4096));
        assert_eq!(m.timeline.iter().sum::<u64>(), 8192);
        assert_eq!(m.elapsed, Duration::from_millis(1600));
        let p50 = m.latency.value_at_quantile(0.5);
        assert!((99_900..=100_100).contains(&p50), "{p50}");
    }

    #[test]
    fn merge_adds_streams() {
        let start = Instant::now();
        let mut a = Recorder::new(start);
        a.record(start, start + Duration::from_millis(10), 100);
        let mut b = Recorder::new(start);
        b.record(start, start + Duration::from_millis(250), 50);
        let mut merged = a.finish(start + Duration::from_secs(1));
        merged.merge(&b.finish(start + Duration::from_secs(3)));
        assert_eq!(merged.timeline, vec![100, 0, 50]);
        assert_eq!(merged.elapsed, Duration::from_secs(3));
        assert_eq!(merged.ios, 2);
        assert_eq!(merged.latency.len(), 2);
    }
}
