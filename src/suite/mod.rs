//! Profiles: lists of jobs, how their loops are combined, and what is concluded from them.
//!
//! A profile is data ([`Profile`]); the user's options turn it into a [`Plan`]; [`run`] carries
//! the plan out on the engine: it creates and fills the test file, runs each test (an unscored
//! warm-up, then timed loops), and hands each measurement to `aggregate` to become a
//! [`TestResult`]. Progress goes to an [`Observer`]; the suite itself never prints.

pub mod aggregate;
pub mod fio;
pub mod latency;
pub mod pi;
pub mod sdcard;
pub mod standard;
pub mod sustained;
pub mod sweep;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{self, Backend, Data, Job, Limit, Live, Op, Pattern, TestFile};
use crate::result::{TestResult, Warning};
use crate::units::block_label;

/// One test of a profile: a row of the table in one direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestSpec {
    pub pattern: Pattern,
    pub op: Op,
    pub block_size: u64,
    pub queue_depth: u32,
    pub threads: u32,
    /// Stop each loop after this many I/Os instead of after the plan's duration.
    pub ios: Option<u64>,
    /// Write the whole file exactly once, bounded by the plan's duration (sustained writes).
    pub whole_file: bool,
    /// A time bound of the test's own, in place of the plan's duration.
    pub bound: Option<Duration>,
    /// Offsets only within the first this many bytes of the file.
    pub span: Option<u64>,
    /// Through the page cache, whatever the plan says (dd's default).
    pub buffered: bool,
    /// This test's data, in place of the plan's (dd writes zeros).
    pub data: Option<Data>,
    /// `fdatasync` after the last write, timed (dd's `conv=fsync`, iozone's `-e`).
    pub fsync: bool,
    /// A name of the test's own in place of `SEQ1M_Q8T1` (the pi profile's `DD4K_Q1T1`).
    pub label: Option<&'static str>,
}

impl TestSpec {
    pub fn new(pattern: Pattern, block_size: u64, queue_depth: u32, op: Op) -> Self {
        TestSpec {
            pattern,
            op,
            block_size,
            queue_depth,
            threads: 1,
            ios: None,
            whole_file: false,
            bound: None,
            span: None,
            buffered: false,
            data: None,
            fsync: false,
            label: None,
        }
    }

    /// The bytes this test's offsets range over in a file of `file_size` bytes.
    pub fn span_in(&self, file_size: u64) -> u64 {
        self.span.map_or(file_size, |span| span.min(file_size))
    }

    /// The same test, stopping at `bound` whatever the plan's duration.
    pub fn bounded(mut self, bound: Duration) -> Self {
        self.bound = Some(bound);
        self
    }

    /// The same test, once over the whole file (stopping early at the plan's duration).
    pub fn once_over_file(mut self) -> Self {
        self.whole_file = true;
        self
    }

    /// The same test, counted in I/Os rather than timed.
    pub fn with_ios(mut self, ios: u64) -> Self {
        self.ios = Some(ios);
        self
    }

    /// The row's name, as CrystalDiskMark spells it: `SEQ1M_Q8T1`, `RND4K_Q32T1`.
    pub fn row(&self) -> String {
        if let Some(label) = self.label {
            return label.to_string();
        }
        let kind = match self.pattern {
            Pattern::Sequential => "SEQ",
            Pattern::Random => "RND",
        };
        format!(
            "{kind}{}_Q{}T{}",
            block_label(self.block_size),
            self.queue_depth,
            self.threads
        )
    }

    /// The test's name: `SEQ1M_Q8T1_read`.
    pub fn name(&self) -> String {
        format!("{}_{}", self.row(), self.op.as_str())
    }
}

/// A named list of tests with its default sizes and times.
#[derive(Clone, Debug)]
pub struct Profile {
    pub name: &'static str,
    pub tests: Vec<TestSpec>,
    pub file_size: u64,
    pub loops: u32,
    pub duration: Duration,
    pub warmup: Duration,
    /// Derives the profile's `score` from its results, where it has one.
    pub score: Option<fn(&[TestResult]) -> serde_json::Value>,
    /// Write the whole file before the tests (not when the first test writes it itself).
    pub fill: bool,
}

/// The profiles `--profile` accepts.
pub const PROFILES: [&str; 7] = [
    "standard",
    "quick",
    "latency",
    "sweep",
    "sustained",
    "sdcard",
    "pi",
];

pub fn profile(name: &str) -> Option<Profile> {
    match name {
        "standard" => Some(standard::standard()),
        "quick" => Some(standard::quick()),
        "latency" => Some(latency::latency()),
        "sweep" => Some(sweep::sweep()),
        "sustained" => Some(sustained::sustained()),
        "sdcard" => Some(sdcard::sdcard()),
        "pi" => Some(pi::pi()),
        _ => None,
    }
}

/// What exactly will run: a profile with the user's choices applied and checked.
#[derive(Clone, Debug)]
pub struct Plan {
    pub profile: String,
    pub tests: Vec<TestSpec>,
    pub file_size: u64,
    pub loops: u32,
    pub duration: Duration,
    pub warmup: Duration,
    pub data: Data,
    /// Whether to ask for direct I/O (it may still be unavailable).
    pub direct: bool,
    /// Keep every I/O's latency for the watcher, to show as it comes (`--live`).
    pub live: bool,
    /// Write the whole file before the tests.
    pub fill: bool,
    /// Reads a temperature (°C), sampled each second during whole-file writes; given by the
    /// caller, which knows where the sensors are.
    pub thermometer: Option<fn() -> Option<f64>>,
    pub score: Option<fn(&[TestResult]) -> serde_json::Value>,
}

impl Plan {
    /// Keeps only the tests named in `names` (case-insensitive); a row name such as
    /// `SEQ1M_Q8T1` selects both its read and its write test.
    pub fn select(&mut self, names: &[String]) -> Result<(), String> {
        if names.is_empty() {
            return Ok(());
        }
        for wanted in names {
            let known = self.tests.iter().any(|t| {
                t.name().eq_ignore_ascii_case(wanted) || t.row().eq_ignore_ascii_case(wanted)
            });
            if !known {
                let all: Vec<String> = self.tests.iter().map(TestSpec::name).collect();
                return Err(format!(
                    "--test: no test '{wanted}' in profile {} (tests: {})",
                    self.profile,
                    all.join(", ")
                ));
            }
        }
        self.keep_fill_honest_after_selection(names);
        self.tests.retain(|t| {
            names
                .iter()
                .any(|n| t.name().eq_ignore_ascii_case(n) || t.row().eq_ignore_ascii_case(n))
        });
        Ok(())
    }

    /// A profile that skips the fill relies on its first test writing the whole file; if the
    /// selection drops that test, reads would meet never-written blocks (which the filesystem
    /// answers with zeros, without touching the device), so the file is filled after all.
    fn keep_fill_honest_after_selection(&mut self, names: &[String]) {
        let selected = |t: &TestSpec| {
            names
                .iter()
                .any(|n| t.name().eq_ignore_ascii_case(n) || t.row().eq_ignore_ascii_case(n))
        };
        let writes_all = |t: &TestSpec| t.whole_file && t.op == Op::Write && t.span.is_none();
        if let Some(first) = self.tests.iter().find(|t| selected(t)) {
            if !writes_all(first) {
                self.fill = true;
            }
        }
    }

    /// The largest block any selected test uses; the file must hold at least one.
    pub fn largest_block(&self) -> u64 {
        self.tests
            .iter()
            .map(|t| t.block_size)
            .max()
            .unwrap_or(4096)
    }

    /// Rounds the file size down to whole largest blocks, so sequential tests cover it evenly.
    pub fn fit_file_size(&mut self) -> Result<(), String> {
        let block = self.largest_block();
        if self.file_size < block {
            return Err(format!(
                "--size: {} is smaller than one {} block of the selected tests",
                crate::units::format_size(self.file_size),
                crate::units::format_size(block)
            ));
        }
        self.file_size -= self.file_size % block;
        Ok(())
    }

    /// Sets the I/O count of the tests that are counted rather than timed.
    pub fn set_count(&mut self, count: u64) -> Result<(), String> {
        let mut counted = self.tests.iter_mut().filter(|t| t.ios.is_some()).peekable();
        if counted.peek().is_none() {
            return Err(format!(
                "--count: the {} profile runs its tests for a time; use --duration",
                self.profile
            ));
        }
        for test in counted {
            test.ios = Some(count);
        }
        Ok(())
    }

    /// How long one test is expected to take (counted tests: until they are done).
    pub fn test_time(&self) -> Duration {
        self.warmup + self.duration * self.loops
    }

    /// How long the tests from `first` on should take: their loops for timed tests; for a test
    /// over the whole file (or its span), its bytes at the rate measured so far, never more than
    /// its time bound; counted tests (latency) are quick and left out.
    pub fn time_from(&self, first: usize, rates: Rates) -> Duration {
        self.tests
            .iter()
            .skip(first)
            .map(|t| {
                let bound = t.bound.unwrap_or(self.duration);
                if t.whole_file {
                    match rates.for_op(t.op) {
                        Some(rate) => bound.min(Duration::from_secs_f64(
                            t.span_in(self.file_size) as f64 / rate,
                        )),
                        None => bound,
                    }
                } else if t.ios.is_some() {
                    Duration::ZERO
                } else {
                    self.test_time()
                }
            })
            .sum()
    }
}

/// Rates measured so far in a run (bytes per second), to estimate what is left.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rates {
    pub read: Option<f64>,
    pub write: Option<f64>,
}

impl Rates {
    /// The rate of that direction, else the other's (better than nothing), else none.
    pub fn for_op(self, op: Op) -> Option<f64> {
        let (own, other) = match op {
            Op::Read => (self.read, self.write),
            _ => (self.write, self.read),
        };
        own.or(other).filter(|r| *r > 0.0)
    }

    fn record(&mut self, op: Op, bytes_per_s: f64) {
        match op {
            Op::Read => self.read = Some(bytes_per_s),
            _ => self.write = Some(bytes_per_s),
        }
    }
}

/// What the suite is doing now, for a progress display.
pub enum Phase<'a> {
    /// Writing the whole test file before any test.
    Fill {
        bytes: u64,
        /// The tests' expected time, after the fill.
        after: Duration,
    },
    Test {
        spec: &'a TestSpec,
        index: usize,
        count: usize,
        expected: Duration,
        /// For a test that writes the whole file: its size, so progress can go by bytes.
        bytes: Option<u64>,
        /// The expected time of the tests after this one.
        after: Duration,
    },
    /// A program of `iomark langs`, writing and reading `bytes` in all.
    Program { label: String, bytes: u64 },
}

/// Watches a run. `live` counts bytes completed in the phase while it runs.
pub trait Observer {
    fn started(&self, phase: &Phase, live: Arc<Live>);
    fn finished(&self, result: Option<&TestResult>);
}

/// What a run produced.
pub struct Outcome {
    pub tests: Vec<TestResult>,
    /// Whether direct I/O was in force.
    pub direct: bool,
    pub warnings: Vec<Warning>,
    /// Where the test file lived (it is gone now).
    pub file_path: PathBuf,
    /// The profile's derived figures, if it has any.
    pub score: Option<serde_json::Value>,
}

/// Carries out a plan in `dir`.
pub fn run(
    plan: &Plan,
    dir: &Path,
    backend: &dyn Backend,
    observer: &dyn Observer,
) -> anyhow::Result<Outcome> {
    let file = TestFile::create(dir, plan.file_size, plan.direct)?;
    let mut warnings = Vec::new();
    if let Some(reason) = file.buffered_reason() {
        warnings.push(aggregate::direct_io_unavailable(reason));
    }

    // The fill's rate, and each whole-file test's, tell how long those after will take.
    let mut rates = Rates::default();
    if plan.fill {
        let live = Arc::new(Live::default());
        observer.started(
            &Phase::Fill {
                bytes: plan.file_size,
                after: plan.time_from(0, rates),
            },
            live.clone(),
        );
        let started = std::time::Instant::now();
        file.fill(plan.data, &live)
            .map_err(|e| anyhow::anyhow!("writing the test file {}: {e}", file.path().display()))?;
        rates.record(
            Op::Write,
            plan.file_size as f64 / started.elapsed().as_secs_f64().max(1e-3),
        );
        observer.finished(None);
    }

    let mut tests = Vec::with_capacity(plan.tests.len());
    for (index, spec) in plan.tests.iter().enumerate() {
        let live = Arc::new(if plan.live {
            Live::sampling()
        } else {
            Live::default()
        });
        observer.started(
            &Phase::Test {
                spec,
                index,
                count: plan.tests.len(),
                expected: plan.test_time(),
                bytes: spec.whole_file.then(|| spec.span_in(plan.file_size)),
                after: plan.time_from(index + 1, rates),
            },
            live.clone(),
        );
        let result = run_test(plan, spec, &file, backend, &live)
            .map_err(|e| anyhow::anyhow!("{}: {e}", spec.name()))?;
        if spec.whole_file {
            rates.record(spec.op, result.mb_per_s * 1e6);
        }
        observer.finished(Some(&result));
        tests.push(result);
    }
    warnings.extend(aggregate::verdicts(&tests));
    Ok(Outcome {
        score: plan.score.map(|score| score(&tests)),
        tests,
        direct: file.direct(),
        warnings,
        file_path: file.path().to_path_buf(),
    })
}

fn run_test(
    plan: &Plan,
    spec: &TestSpec,
    file: &TestFile,
    backend: &dyn Backend,
    live: &Live,
) -> anyhow::Result<TestResult> {
    if spec.buffered {
        // Buffered I/O as programs (dd) do it: one write(2) after another. io_uring would hand
        // buffered writes to kernel workers and measure that instead.
        file.buffered(|| measure(plan, spec, file, &engine::psync::Psync, live))
    } else {
        measure(plan, spec, file, backend, live)
    }
}

fn measure(
    plan: &Plan,
    spec: &TestSpec,
    file: &TestFile,
    backend: &dyn Backend,
    live: &Live,
) -> anyhow::Result<TestResult> {
    let direct = file.direct() && !spec.buffered;
    let job = |limit| Job {
        op: spec.op,
        pattern: spec.pattern,
        block_size: spec.block_size,
        queue_depth: spec.queue_depth,
        data: spec.data.unwrap_or(plan.data),
        limit,
        sync_at_end: spec.op == Op::Write && (spec.fsync || !direct),
        span: spec.span,
    };
    // With buffered I/O, each read stretch starts from an evicted cache (as far as the kernel
    // allows); direct I/O bypasses the cache and needs nothing.
    let ready = || -> anyhow::Result<()> {
        if spec.op == Op::Read && !direct {
            file.evict_cache()?;
        }
        Ok(())
    };
    // A test that writes the whole file once is its own measurement: no warm-up, one loop.
    let (warmup, loop_count) = if spec.whole_file {
        (Duration::ZERO, 1)
    } else {
        (plan.warmup, plan.loops)
    };
    if !warmup.is_zero() {
        ready()?;
        backend.run(file, &job(Limit::time(warmup)), live)?;
    }
    let mut loops = Vec::with_capacity(loop_count as usize);
    let mut cpu = crate::result::Cpu::default();
    let thermometer = plan.thermometer.filter(|_| spec.whole_file);
    let readings = std::sync::Mutex::new(Vec::new());
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| -> anyhow::Result<()> {
        if let Some(thermometer) = thermometer {
            let (readings, done) = (&readings, &done);
            scope.spawn(move || sample_temperatures(thermometer, readings, done));
        }
        let measured = (|| -> anyhow::Result<()> {
            for _ in 0..loop_count {
                ready()?;
                let (user_before, sys_before) = engine::clock::cpu_time();
                let limit = match spec.ios {
                    _ if spec.whole_file => Limit::ios_within(
                        spec.span_in(file.size()) / spec.block_size,
                        spec.bound.unwrap_or(plan.duration),
                    ),
                    Some(count) => Limit::ios(count),
                    None => Limit::time(plan.duration),
                };
                let measurement = backend.run(file, &job(limit), live)?;
                let (user_after, sys_after) = engine::clock::cpu_time();
                cpu.user_s += (user_after - user_before).as_secs_f64();
                cpu.sys_s += (sys_after - sys_before).as_secs_f64();
                loops.push(measurement);
            }
            Ok(())
        })();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        measured
    })?;
    let mut result = aggregate::summarize(spec, &loops, cpu);
    let readings = readings.into_inner().unwrap_or_else(|p| p.into_inner());
    if !readings.is_empty() {
        aggregate::attach_temperatures(&mut result.timeline, &readings);
    }
    Ok(result)
}

/// Reads the thermometer about once a second until `done`: `(seconds since start, °C)`.
fn sample_temperatures(
    thermometer: fn() -> Option<f64>,
    readings: &std::sync::Mutex<Vec<(f64, f64)>>,
    done: &std::sync::atomic::AtomicBool,
) {
    let start = std::time::Instant::now();
    let mut next = Duration::ZERO;
    while !done.load(std::sync::atomic::Ordering::Relaxed) {
        if start.elapsed() >= next {
            if let Some(celsius) = thermometer() {
                readings
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((start.elapsed().as_secs_f64(), celsius));
            }
            next += Duration::from_secs(1);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(write: f64) -> Rates {
        Rates {
            read: None,
            write: Some(write),
        }
    }

    #[test]
    fn the_time_left_counts_loops_and_whole_file_writes_at_the_fill_rate() {
        let mut plan = plan_of(sdcard::sdcard());
        plan.file_size = 1 << 30;
        // Before the fill: the write counts at its bound (the rate is not known yet).
        let bound = sustained::TIME_BOUND;
        let loops = plan.test_time() * 2;
        assert_eq!(plan.time_from(0, Rates::default()), bound + loops);
        // A 10 MB/s card: 1 GiB takes 107 s, under the bound.
        let at_10 = plan.time_from(0, at(10e6));
        assert!((at_10 - loops).as_secs_f64() - (1u64 << 30) as f64 / 10e6 < 1e-6);
        assert!(at_10 - loops <= bound);
        // After the write, only the two random tests' loops remain; after those, nothing.
        assert_eq!(plan.time_from(1, at(10e6)), loops);
        assert_eq!(plan.time_from(3, at(10e6)), Duration::ZERO);
        // The pi profile has no fill: once its dd step has measured 10 MB/s, its six other
        // steps (each over 80 MiB) are estimated at that rate, not at their one-hour bound.
        let pi = plan_of(pi::pi());
        let left = pi.time_from(1, at(10e6)).as_secs_f64();
        let expected = 6.0 * (80 << 20) as f64 / 10e6;
        assert!((left - expected).abs() < 1e-6, "{left} s");
        // Counted tests are quick: the latency profile's remaining time is none.
        assert_eq!(
            plan_of(latency::latency()).time_from(0, Rates::default()),
            Duration::ZERO
        );
    }

    /// A profile's plan with its own settings.
    fn plan_of(profile: Profile) -> Plan {
        Plan {
            profile: profile.name.into(),
            tests: profile.tests,
            file_size: profile.file_size,
            loops: profile.loops,
            duration: profile.duration,
            warmup: profile.warmup,
            data: Data::Random,
            direct: true,
            live: false,
            fill: profile.fill,
            thermometer: None,
            score: None,
        }
    }

    fn plan() -> Plan {
        let profile = standard::standard();
        Plan {
            profile: profile.name.into(),
            tests: profile.tests,
            file_size: profile.file_size,
            loops: 1,
            duration: Duration::from_secs(1),
            warmup: Duration::ZERO,
            data: Data::Random,
            direct: true,
            live: false,
            fill: true,
            thermometer: None,
            score: None,
        }
    }

    #[test]
    fn standard_names_match_crystaldiskmark() {
        let names: Vec<String> = plan().tests.iter().map(TestSpec::name).collect();
        assert_eq!(
            names,
            [
                "SEQ1M_Q8T1_read",
                "SEQ1M_Q1T1_read",
                "RND4K_Q32T1_read",
                "RND4K_Q1T1_read",
                "SEQ1M_Q8T1_write",
                "SEQ1M_Q1T1_write",
                "RND4K_Q32T1_write",
                "RND4K_Q1T1_write"
            ]
        );
    }

    #[test]
    fn select_by_test_or_row_name() {
        let mut p = plan();
        p.select(&["rnd4k_q32t1_read".into(), "SEQ1M_Q1T1".into()])
            .unwrap();
        let names: Vec<String> = p.tests.iter().map(TestSpec::name).collect();
        assert_eq!(
            names,
            ["SEQ1M_Q1T1_read", "RND4K_Q32T1_read", "SEQ1M_Q1T1_write"]
        );
        let error = plan().select(&["RND8K_Q1T1_read".into()]).unwrap_err();
        assert!(
            error.starts_with("--test: no test 'RND8K_Q1T1_read'"),
            "{error}"
        );
    }

    #[test]
    fn file_size_fits_whole_blocks() {
        let mut p = plan();
        p.file_size = (3 << 20) + 5;
        p.fit_file_size().unwrap();
        assert_eq!(p.file_size, 3 << 20);
        p.file_size = 4096;
        assert!(p
            .fit_file_size()
            .unwrap_err()
            .contains("smaller than one 1 MiB block"));
        p.select(&["RND4K_Q1T1_read".into()]).unwrap();
        p.fit_file_size().unwrap();
        assert_eq!(p.file_size, 4096);
    }

    struct Quiet;

    impl Observer for Quiet {
        fn started(&self, _: &Phase, _: Arc<Live>) {}
        fn finished(&self, _: Option<&TestResult>) {}
    }

    #[test]
    fn a_sustained_write_samples_the_thermometer_into_its_timeline() {
        let profile = sustained::sustained();
        let plan = Plan {
            profile: profile.name.into(),
            tests: profile.tests,
            file_size: 64 << 20,
            loops: 1,
            // Slow enough to span a few seconds on any disk: bounded at 2.5 s.
            duration: Duration::from_millis(2500),
            warmup: Duration::ZERO,
            data: Data::Random,
            direct: true,
            live: false,
            fill: profile.fill,
            thermometer: Some(|| Some(42.5)),
            score: profile.score,
        };
        let dir = tempfile::tempdir().unwrap();
        let outcome = run(&plan, dir.path(), &engine::psync::Psync, &Quiet).unwrap();
        let timeline = &outcome.tests[0].timeline;
        assert!(!timeline.is_empty());
        assert_eq!(timeline[0].temp_c, Some(42.5), "{timeline:?}");
        assert_eq!(outcome.score.unwrap()["sustained"]["max_temp_c"], 42.5);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_selection_without_the_writing_step_fills_the_file() {
        let pi = pi::pi();
        let plan = |names: &[&str]| {
            let mut plan = Plan {
                profile: "pi".into(),
                tests: pi.tests.clone(),
                file_size: pi.file_size,
                loops: 1,
                duration: Duration::from_secs(1),
                warmup: Duration::ZERO,
                data: Data::Random,
                direct: true,
                live: false,
                fill: pi.fill,
                thermometer: None,
                score: None,
            };
            plan.select(&names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .unwrap();
            plan
        };
        assert!(!pi.fill);
        assert!(!plan(&["DD4K_Q1T1_write", "FIO4K_Q64T1_read"]).fill);
        assert!(plan(&["FIO4K_Q64T1_read"]).fill);
        assert!(!plan(&[]).fill);
    }
}
