//! From the user's choices to a checked [`Plan`]: a profile's defaults with the options applied,
//! and how long what is left of it should take.

use std::time::Duration;

use super::rates::Rates;
use super::select::{on_threads, select, SelectError};
use super::TestSpec;
use crate::engine::target::FillBudget;
use crate::engine::Data;
use iomark_profiles::surface;
use iomark_profiles::Profile;
use iomark_result::result::Settings;
use iomark_result::units::format_size;

/// How long filling the test file may take on a slow device before the file is cut to what
/// the device writes in that time (profiles with `cut_fill`, without `--size`), and the least
/// it is cut to.
pub const FILL_BUDGET: Duration = Duration::from_secs(10);
pub const FILL_MIN: u64 = 64 << 20;

/// `--loops auto`: at least this many loops, then more until the 95% confidence interval of
/// their mean MB/s is within this share of it, at most [`AUTO_MAX_LOOPS`].
pub const AUTO_MIN_LOOPS: usize = 3;
pub const AUTO_WIDTH: f64 = 0.025;
pub const AUTO_MAX_LOOPS: u32 = 20;

/// What the user chose, already parsed (`cli` turns arguments into this).
#[derive(Clone, Debug)]
pub struct Options {
    pub profile: Profile,
    pub size: Option<u64>,
    pub loops: Option<u32>,
    /// Add loops until the mean is known well enough (`--loops auto`); `loops` is then the most.
    pub auto_loops: bool,
    pub duration: Option<Duration>,
    pub warmup: Option<Duration>,
    /// I/Os per loop, for the tests counted rather than timed; the surface scan's access times.
    pub count: Option<u64>,
    /// The surface scan's rate samples.
    pub samples: Option<u32>,
    /// Test or row names to keep (`--test`); empty keeps every test. A table profile also
    /// runs a CrystalDiskMark name it does not hold (`RND4K_Q32T16_read`).
    pub tests: Vec<String>,
    /// Threads for each test of a table profile (`--threads`), in place of its own.
    pub threads: Option<u32>,
    /// Poll for the one I/O of a single-thread test at queue depth 1 (`--poll`).
    pub poll: bool,
    /// SD classes the card claims (`--claimed`), for the sdcard profile.
    pub claimed: Vec<String>,
    pub data: Data,
    /// Ask for direct I/O (it may still be unavailable).
    pub direct: bool,
    /// Keep every I/O's latency for the watcher (`--live`).
    pub live: bool,
    /// Reads a temperature (°C), sampled each second during whole-file writes; given by the
    /// caller, which knows where the sensors are.
    pub thermometer: Option<fn() -> Option<f64>>,
}

impl Options {
    /// A profile as it is, without any choice of the user's.
    pub fn of(profile: Profile) -> Self {
        Options {
            profile,
            size: None,
            loops: None,
            auto_loops: false,
            duration: None,
            warmup: None,
            count: None,
            samples: None,
            tests: Vec::new(),
            threads: None,
            poll: false,
            claimed: Vec::new(),
            data: Data::Random,
            direct: true,
            live: false,
            thermometer: None,
        }
    }
}

/// Why options do not make a plan; each message names the flag at fault.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Select(#[from] SelectError),
    #[error("--size: {size} is smaller than one {block} block of the selected tests")]
    SmallerThanABlock { size: String, block: String },
    #[error("--count: the {0} profile runs its tests for a time; use --duration")]
    NotCounted(&'static str),
    #[error("--samples: only the surface profile takes rate samples")]
    SamplesWithoutSurface,
    #[error("--claimed: only the sdcard profile judges SD classes")]
    ClaimsWithoutSdCard,
    #[error("the free space is unknown, so the {0} profile cannot size its file: give --size")]
    FreeSpaceUnknown(&'static str),
}

/// What exactly will run: a profile with the user's choices applied and checked.
#[derive(Clone, Debug)]
pub struct Plan {
    pub profile: Profile,
    pub tests: Vec<TestSpec>,
    pub file_size: u64,
    /// Loops per test; with `auto_loops`, the most.
    pub loops: u32,
    pub auto_loops: bool,
    pub duration: Duration,
    pub warmup: Duration,
    pub data: Data,
    pub direct: bool,
    pub live: bool,
    /// Poll at queue depth 1 (`--poll`; never for a test that waits as its tools do).
    pub poll: bool,
    /// Write the whole file before the tests.
    pub fill: bool,
    /// Cut the file short on a slow device (see [`FILL_BUDGET`]).
    pub fill_budget: Option<FillBudget>,
    pub claimed: Vec<String>,
    pub thermometer: Option<fn() -> Option<f64>>,
    /// The surface profile's scan.
    pub surface: Option<surface::Spec>,
}

impl Plan {
    /// The plan for `options`; `free_bytes` is the free space where the test file goes, for
    /// profiles whose file size depends on it.
    pub fn new(options: Options, free_bytes: Option<u64>) -> Result<Plan, PlanError> {
        let profile = options.profile;
        let defaults = profile.defaults();
        if !options.claimed.is_empty() && !profile.judges_sd_classes() {
            return Err(PlanError::ClaimsWithoutSdCard);
        }
        if options.samples.is_some() && profile != Profile::Surface {
            return Err(PlanError::SamplesWithoutSurface);
        }
        let surface = (profile == Profile::Surface).then(|| surface::Spec {
            samples: options.samples.unwrap_or(surface::SAMPLES),
            accesses: options.count.unwrap_or(surface::ACCESSES),
        });
        let file_size = match options.size {
            Some(size) => size,
            None => defaults
                .file_size
                .resolve(free_bytes)
                .ok_or(PlanError::FreeSpaceUnknown(profile.name()))?,
        };
        // A profile with both a long write over its file and timed loops (sdcard): --duration
        // bounds the long write, and the loops keep the profile's length (it once made three
        // 10 s loops of each random test as well).
        let mut tests = defaults.tests;
        let mixed = tests.iter().any(|t| t.whole_file)
            && tests.iter().any(|t| !t.whole_file && t.ios.is_none());
        let mut duration = options.duration.unwrap_or(defaults.duration);
        if mixed {
            if let Some(bound) = options.duration {
                for test in tests.iter_mut().filter(|t| t.whole_file) {
                    test.bound = Some(bound);
                }
            }
            duration = defaults.duration;
        }
        let mut plan = Plan {
            profile,
            tests,
            file_size,
            loops: options.loops.unwrap_or(defaults.loops),
            auto_loops: options.auto_loops,
            duration,
            warmup: options.warmup.unwrap_or(defaults.warmup),
            data: options.data,
            direct: options.direct,
            live: options.live,
            poll: options.poll,
            fill: defaults.fill,
            fill_budget: None,
            claimed: options.claimed,
            thermometer: options.thermometer,
            surface,
        };
        if !options.tests.is_empty() {
            let selection = select(profile, plan.tests, &options.tests)?;
            plan.tests = selection.tests;
            plan.fill |= selection.fill;
        }
        if let Some(threads) = options.threads {
            plan.tests = on_threads(profile, plan.tests, threads)?;
        }
        if let (Some(count), None) = (options.count, surface) {
            plan.set_count(count)?;
        }
        plan.fit_file_size()?;
        if defaults.cut_fill && options.size.is_none() {
            plan.fill_budget = Some(FillBudget {
                time: FILL_BUDGET,
                block: plan.largest_block(),
                min: FILL_MIN.min(plan.file_size),
            });
        }
        Ok(plan)
    }

    /// The document's `settings` for this plan, run on `engine` with direct I/O `direct`, on
    /// a file of `file_size` bytes (less than planned where a slow device's fill was cut).
    pub fn settings(&self, engine: String, direct: bool, file_size: u64) -> Settings {
        Settings {
            extra: Default::default(),
            profile: self.profile.name().into(),
            file_size_bytes: file_size,
            fill_cut_from_bytes: (file_size < self.file_size).then_some(self.file_size),
            loops: self.loops,
            loops_auto: self.auto_loops,
            polled: self.poll,
            duration_s: self.duration.as_secs_f64(),
            warmup_s: self.warmup.as_secs_f64(),
            engine,
            direct,
            data: self.data.as_str().into(),
            count: self.tests.iter().find_map(|t| t.ios),
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
    fn fit_file_size(&mut self) -> Result<(), PlanError> {
        let block = self.largest_block();
        if self.file_size < block {
            return Err(PlanError::SmallerThanABlock {
                size: format_size(self.file_size),
                block: format_size(block),
            });
        }
        self.file_size -= self.file_size % block;
        Ok(())
    }

    /// Sets the I/O count of the tests that are counted rather than timed.
    fn set_count(&mut self, count: u64) -> Result<(), PlanError> {
        let mut counted = self.tests.iter_mut().filter(|t| t.ios.is_some()).peekable();
        if counted.peek().is_none() {
            return Err(PlanError::NotCounted(self.profile.name()));
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

    /// What a timed test's drains add to its loops: each loop (and the warm-up) ends by
    /// completing the I/Os in flight, at the rate of its own kind where one has run, else at
    /// the best rate known (issue 45: left out, a run on a 10 MB/s card ended 9-17% later than
    /// first said).
    pub fn drain(&self, test: &TestSpec, rates: Rates) -> Duration {
        let in_flight = test.block_size * u64::from(test.queue_depth * test.threads);
        let drains = f64::from(self.loops) + f64::from(!self.warmup.is_zero());
        rates
            .for_test(test.op, test.pattern)
            .map_or(Duration::ZERO, |rate| {
                Duration::from_secs_f64(in_flight as f64 / rate * drains)
            })
    }

    /// How long the tests from `first` on should take: their loops for timed tests, stretched
    /// as the timed tests so far were by their drains ([`Rates::stretch`]); for a test over
    /// the whole file (or its span), its bytes at the rate measured so far, never more than
    /// its time bound; counted tests (latency) are quick and left out. `None` while a test over
    /// the whole file is ahead and no rate is known yet: its bound is only a worst case (the pi
    /// profile's six steps of one hour each, for a run of seconds).
    pub fn time_from(&self, first: usize, rates: Rates) -> Option<Duration> {
        self.tests
            .iter()
            .skip(first)
            .map(|t| {
                let bound = t.bound.unwrap_or(self.duration);
                if t.whole_file {
                    rates.for_op(t.op).map(|rate| {
                        bound.min(Duration::from_secs_f64(
                            t.span_in(self.file_size) as f64 / rate,
                        ))
                    })
                } else if t.ios.is_some() {
                    Some(Duration::ZERO)
                } else {
                    let drain = self.drain(t, rates);
                    Some((self.test_time() + drain).mul_f64(rates.stretch()))
                }
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Op, Pattern};

    fn at(write: f64) -> Rates {
        Rates {
            write: Some(write),
            ..Rates::default()
        }
    }

    /// Issue 45: the time left left out each loop's drain. Each timed test's drains are its
    /// I/Os in flight at a loop's end, completed at its kind's rate; what else the tests so
    /// far took beyond their plan stretches those after them by as much.
    #[test]
    fn the_time_left_counts_each_test_s_drains() {
        let tests = ["SEQ1M_Q8T1_read", "RND4K_Q32T16_write"];
        let plan = plan_of(Profile::Standard, &tests);
        let (seq, rnd) = (&plan.tests[0], &plan.tests[1]);
        let drains = f64::from(plan.loops) + 1.0;
        let close = |a: Duration, b: f64| assert!((a.as_secs_f64() - b).abs() < 1e-6, "{a:?}");
        // Before any test: at the fill's 10 MB/s, 8 MiB in flight a loop; the random test's
        // at a quarter of that, until a random test has run.
        let rates = at(10e6);
        close(plan.drain(seq, rates), (8 << 20) as f64 / 10e6 * drains);
        close(plan.drain(rnd, rates), (2 << 20) as f64 / 2.5e6 * drains);
        let before = plan.time_from(0, rates).unwrap();
        assert_eq!(
            before,
            plan.test_time() * 2 + plan.drain(seq, rates) + plan.drain(rnd, rates)
        );
        // A random write measured at 2 MB/s: the random test's drains go at that rate.
        let mut rates = at(10e6);
        rates.record_test(Op::Write, Pattern::Random, 2e6);
        close(plan.drain(rnd, rates), (2 << 20) as f64 / 2e6 * drains);
        // Tests that took 20% longer than their loops and drains stretch the rest by as much.
        let plain = plan.time_from(1, rates).unwrap();
        rates.record_timed(plan.test_time(), plan.test_time().mul_f64(1.2));
        let stretched = plan.time_from(1, rates).unwrap();
        let ratio = stretched.as_secs_f64() / plain.as_secs_f64();
        assert!((ratio - 1.2).abs() < 1e-6, "{ratio}");
    }

    fn plan_of(profile: Profile, tests: &[&str]) -> Plan {
        let mut options = Options::of(profile);
        options.tests = tests.iter().map(|t| t.to_string()).collect();
        Plan::new(options, Some(100 << 30)).unwrap()
    }

    #[test]
    fn the_time_left_counts_loops_and_whole_file_writes_at_the_fill_rate() {
        let plan = plan_of(Profile::SdCard, &[]);
        assert_eq!(plan.file_size, 1 << 30);
        // Before the fill: unknown, not the write's bound (the rate is not known yet).
        let bound = iomark_profiles::sustained::TIME_BOUND;
        let loops = plan.test_time() * 2;
        assert_eq!(plan.time_from(0, Rates::default()), None);
        // A 10 MB/s card: 1 GiB takes 107 s, under the bound.
        let drains = plan.drain(&plan.tests[1], at(10e6)) + plan.drain(&plan.tests[2], at(10e6));
        let at_10 = plan.time_from(0, at(10e6)).unwrap();
        assert!((at_10 - loops - drains).as_secs_f64() - (1u64 << 30) as f64 / 10e6 < 1e-6);
        assert!(at_10 - loops - drains <= bound);
        // After the write, only the two random tests' loops and drains remain; after those,
        // nothing.
        assert_eq!(plan.time_from(1, at(10e6)), Some(loops + drains));
        assert_eq!(plan.time_from(3, at(10e6)), Some(Duration::ZERO));
        assert!(
            plan.time_from(0, at(1e3)).unwrap()
                <= bound + loops + plan.drain(&plan.tests[1], at(1e3)) * 2
        );
        // The pi profile has no fill: once its dd step has measured 10 MB/s, its six other
        // steps (each over 80 MiB) are estimated at that rate, not at their one-hour bound.
        let pi = plan_of(Profile::Pi, &[]);
        assert_eq!(pi.time_from(0, Rates::default()), None);
        let left = pi.time_from(1, at(10e6)).unwrap().as_secs_f64();
        let expected = 6.0 * (80 << 20) as f64 / 10e6;
        assert!((left - expected).abs() < 1e-6, "{left} s");
        // Counted tests are quick: the latency profile's remaining time is none.
        assert_eq!(
            plan_of(Profile::Latency, &[]).time_from(0, Rates::default()),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn sdcard_duration_bounds_its_long_write_not_its_loops() {
        let mut options = Options::of(Profile::SdCard);
        options.duration = Some(Duration::from_secs(10));
        let plan = Plan::new(options, None).unwrap();
        assert_eq!(plan.duration, Duration::from_secs(2));
        assert_eq!(plan.tests[0].bound, Some(Duration::from_secs(10)));
        assert!(plan.tests[1..].iter().all(|t| t.bound.is_none()));
        // Elsewhere it is the loops' length, and the sustained write's bound.
        for profile in [Profile::Standard, Profile::Sustained] {
            let mut options = Options::of(profile);
            options.duration = Some(Duration::from_secs(10));
            let plan = Plan::new(options, Some(100 << 30)).unwrap();
            assert_eq!(plan.duration, Duration::from_secs(10));
        }
    }

    #[test]
    fn standard_names_match_crystaldiskmark() {
        let names: Vec<String> = plan_of(Profile::Standard, &[])
            .tests
            .iter()
            .map(TestSpec::name)
            .collect();
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
        let p = plan_of(Profile::Standard, &["rnd4k_q32t1_read", "SEQ1M_Q1T1"]);
        let names: Vec<String> = p.tests.iter().map(TestSpec::name).collect();
        assert_eq!(
            names,
            ["SEQ1M_Q1T1_read", "RND4K_Q32T1_read", "SEQ1M_Q1T1_write"]
        );
        let mut options = Options::of(Profile::Standard);
        options.tests = vec!["RND8K_Q1_read".into()];
        let error = Plan::new(options, None).unwrap_err().to_string();
        assert!(
            error.starts_with("--test: no test 'RND8K_Q1_read'"),
            "{error}"
        );
    }

    #[test]
    fn file_size_fits_whole_blocks() {
        let sized = |size: u64, tests: &[&str]| {
            let mut options = Options::of(Profile::Standard);
            options.size = Some(size);
            options.tests = tests.iter().map(|t| t.to_string()).collect();
            Plan::new(options, None)
        };
        assert_eq!(sized((3 << 20) + 5, &[]).unwrap().file_size, 3 << 20);
        assert!(sized(4096, &[])
            .unwrap_err()
            .to_string()
            .contains("smaller than one 1 MiB block"));
        assert_eq!(sized(4096, &["RND4K_Q1T1_read"]).unwrap().file_size, 4096);
    }

    #[test]
    fn a_selection_without_the_writing_step_fills_the_file() {
        assert!(!plan_of(Profile::Pi, &[]).fill);
        assert!(!plan_of(Profile::Pi, &["DD4K_Q1T1_write", "FIO4K_Q64T1_read"]).fill);
        assert!(plan_of(Profile::Pi, &["FIO4K_Q64T1_read"]).fill);
    }

    #[test]
    fn the_sustained_file_follows_the_free_space() {
        let options = Options::of(Profile::Sustained);
        let plan = Plan::new(options.clone(), Some(10 << 30)).unwrap();
        assert_eq!(plan.file_size, 5 << 30);
        assert!(matches!(
            Plan::new(options, None),
            Err(PlanError::FreeSpaceUnknown("sustained"))
        ));
    }

    #[test]
    fn claims_belong_to_the_sdcard_profile() {
        let mut options = Options::of(Profile::Standard);
        options.claimed = vec!["V30".into()];
        assert!(matches!(
            Plan::new(options, None),
            Err(PlanError::ClaimsWithoutSdCard)
        ));
    }
}
