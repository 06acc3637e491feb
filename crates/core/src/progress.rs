//! The progress protocol: what a measuring job tells whoever watches it (a progress display),
//! without printing anything itself. The suite, the engine, verify and langs report through
//! it; `output::progress` draws it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use iomark_result::result::TestResult;

/// What the suite is doing now, for a progress display.
pub enum Phase {
    /// Writing the whole test file before any test.
    Fill {
        bytes: u64,
        /// The tests' expected time, after the fill; `None` where it is not known yet.
        after: Option<Duration>,
    },
    Test {
        /// The test's name, e.g. `SEQ1M_Q8T1_read`.
        name: String,
        index: usize,
        count: usize,
        expected: Duration,
        /// For a test that writes the whole file: its size, so progress can go by bytes.
        bytes: Option<u64>,
        /// The expected time of the tests after this one; `None` where it is not known yet (a
        /// test over the whole file is ahead, and no rate has been measured).
        after: Option<Duration>,
    },
    /// A phase counted in bytes: a program of `iomark langs` (writing and reading `bytes` in
    /// all), a pass of `iomark verify`.
    Bytes { label: String, bytes: u64 },
}

/// Watches a run. `live` counts bytes completed in the phase while it runs.
pub trait Observer {
    fn started(&self, phase: &Phase, live: Arc<Live>);
    fn finished(&self, result: Option<&TestResult>);
    /// The phase is done, and says its own figures (a program's write and read rates, a
    /// verify pass's rate over its I/O alone): these replace the bytes-over-the-phase rate a
    /// display would work out, which counts set-up and would differ from the report's.
    fn finished_saying(&self, summary: &str) {
        let _ = summary;
        self.finished(None);
    }
    /// Something the user should know that is not a property of the figures.
    fn note(&self, _text: &str) {}
    /// The time the phases after this one should take, known better now than when it began
    /// (the fill's rate once the fill is done; a test's own time once it has run).
    fn left(&self, _after: Option<Duration>) {}
}

/// Counters a job updates while it runs, so that a caller (the progress display) can watch
/// without the engine printing anything.
#[derive(Debug, Default)]
pub struct Live {
    bytes: AtomicU64,
    /// Per-I/O latencies in nanoseconds, kept only when asked for (`--live`).
    samples: Option<std::sync::Mutex<Vec<u64>>>,
}

impl Live {
    /// Counters that also keep every I/O's latency for the watcher to take.
    pub fn sampling() -> Self {
        Live {
            bytes: AtomicU64::new(0),
            samples: Some(std::sync::Mutex::new(Vec::new())),
        }
    }

    /// Where a recorder puts each latency, if samples are wanted.
    pub fn sample_sink(&self) -> Option<&std::sync::Mutex<Vec<u64>>> {
        self.samples.as_ref()
    }

    /// The latencies recorded since the last call, oldest first.
    pub fn take_samples(&self) -> Vec<u64> {
        match &self.samples {
            Some(samples) => {
                std::mem::take(&mut *samples.lock().unwrap_or_else(|p| p.into_inner()))
            }
            None => Vec::new(),
        }
    }

    pub fn add(&self, bytes: u64) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
}
