//! Carries a [`Plan`] out on the engine: creates and fills the test file, runs each test (an
//! unscored warm-up, then timed loops), hands each measurement to `aggregate`, and concludes
//! (score, verdicts, settings). Progress goes to an [`Observer`]; the suite never prints.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::plan::{Plan, AUTO_MIN_LOOPS, AUTO_WIDTH};
use super::rates::Rates;
use super::{aggregate, scan, verdicts, TestSpec};
use crate::engine::rawdev::RawDevice;
use crate::engine::target::TargetError;
use crate::engine::{self, Engine, EngineError, Job, Limit, Op, TestFile};
use crate::progress::{Live, Observer, Phase};
use iomark_profiles::surface;
use iomark_result::result::score::SurfaceScore;
use iomark_result::result::{Cpu, Score, Settings, Target, TestResult, Warning};
use iomark_result::stats;

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("surface scan: {source}")]
    Surface { source: std::io::Error },
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error("writing the test file {path}: {source}")]
    Fill { path: PathBuf, source: EngineError },
    #[error("{test}: {source}")]
    Test { test: String, source: EngineError },
    #[error("{test}: cannot evict the test file from the page cache: {source}")]
    Evict {
        test: String,
        source: std::io::Error,
    },
}

/// What a run produced.
pub struct Outcome {
    pub tests: Vec<TestResult>,
    /// How it was measured: the plan, the engines that ran, whether direct I/O was in force.
    pub settings: Settings,
    pub warnings: Vec<Warning>,
    /// Where the test file lived (it is gone now).
    pub file_path: PathBuf,
    /// The profile's derived figures, if it has any.
    pub score: Option<Score>,
}

/// Carries out `plan` in `dir` on `engine`; `target` is what the probe found there, for the
/// verdicts that depend on the device (a USB link's ceiling, an SD card's claimed classes).
pub fn run(
    plan: &Plan,
    dir: &Path,
    engine: Engine,
    observer: &dyn Observer,
    target: &Target,
) -> Result<Outcome, SuiteError> {
    let mut file = TestFile::create(dir, plan.file_size, plan.direct)?;
    for (path, bytes) in file.reclaimed() {
        observer.note(&format!(
            "removed {} ({}), the test file of an iomark run that was killed",
            path.display(),
            iomark_result::units::format_size(*bytes)
        ));
    }
    let mut warnings = Vec::new();
    if let Some(reason) = file.buffered_reason() {
        warnings.push(verdicts::direct_io_unavailable(reason));
    }

    // The fill's rate, and each whole-file test's, tell how long those after will take.
    let mut rates = Rates::default();
    if plan.fill {
        fill(plan, &mut file, observer, &mut rates)?;
    }

    let mut tests = Vec::with_capacity(plan.tests.len());
    let mut engines: Vec<&'static str> = Vec::new();
    for (index, spec) in plan.tests.iter().enumerate() {
        let live = Arc::new(if plan.live {
            Live::sampling()
        } else {
            Live::default()
        });
        observer.started(
            &Phase::Test {
                name: spec.name(),
                index,
                count: plan.tests.len(),
                expected: (plan.test_time() + plan.drain(spec, rates)).mul_f64(rates.stretch()),
                bytes: spec.whole_file.then(|| spec.span_in(file.size())),
                after: plan.time_from(index + 1, rates),
            },
            live.clone(),
        );
        let test_engine = if spec.buffered {
            engine.for_buffered()
        } else {
            engine
        };
        if !engines.contains(&test_engine.name()) {
            engines.push(test_engine.name());
        }
        let began = std::time::Instant::now();
        let result = if spec.buffered {
            file.buffered(|| measure(plan, spec, &file, test_engine, &live))
        } else {
            measure(plan, spec, &file, test_engine, &live)
        }?;
        if spec.whole_file {
            rates.record(spec.op, result.mb_per_s * 1e6);
        } else if spec.ios.is_none() {
            // Its own rate first: what it was planned to take counts its drains at that rate.
            rates.record_test(spec.op, spec.pattern, result.mb_per_s * 1e6);
            let planned = plan.test_time() + plan.drain(spec, rates);
            rates.record_timed(planned, began.elapsed());
        }
        observer.left(plan.time_from(index + 1, rates));
        observer.finished(Some(&result));
        tests.push(result);
    }

    let mut score = plan.profile.score(&tests, &plan.claimed, target);
    if let Some(spec) = plan.surface {
        let surface = scan::scan(file.file(), file.size(), spec, "file", observer, None)
            .map_err(|source| SuiteError::Surface { source })?;
        score = Some(Score::Surface(SurfaceScore {
            surface,
            extra: Default::default(),
        }));
        warnings.push(verdicts::surface_over_file());
        engines.push("psync");
    }
    warnings.extend(verdicts::from_results(&tests));
    let link_mbps = target
        .device
        .as_ref()
        .and_then(|d| d.usb.as_ref())
        .and_then(|u| u.speed_mbps);
    if let Some(link_mbps) = link_mbps {
        warnings.extend(verdicts::beyond_link(&tests, link_mbps));
    }
    warnings.extend(plan.profile.verdicts(plan.file_size, score.as_ref()));
    // The engine that ran first is the run's own; one that ran only some steps (psync for
    // buffered steps under io_uring) is named after it.
    engines.sort_by_key(|name| *name != engine.name());
    Ok(Outcome {
        settings: plan.settings(engines.join("+"), file.direct(), file.size()),
        score,
        tests,
        warnings,
        file_path: file.path().to_path_buf(),
    })
}

/// Writes the test file in full before any test (reading never-written extents measures
/// nothing), or as much of it as a slow device fills in the fill's budget, and says so.
fn fill(
    plan: &Plan,
    file: &mut TestFile,
    observer: &dyn Observer,
    rates: &mut Rates,
) -> Result<(), SuiteError> {
    let live = Arc::new(Live::default());
    observer.started(
        &Phase::Fill {
            bytes: plan.file_size,
            after: plan.time_from(0, *rates),
        },
        live.clone(),
    );
    let started = Instant::now();
    let path = file.path().to_path_buf();
    let written = file
        .fill(plan.data, &live, plan.fill_budget)
        .map_err(|source| SuiteError::Fill { path, source })?;
    let rate = written as f64 / started.elapsed().as_secs_f64().max(1e-3);
    rates.record(Op::Write, rate);
    observer.left(plan.time_from(0, *rates));
    observer.finished(None);
    if written < plan.file_size {
        observer.note(&format!(
            "the device writes about {:.1} MB/s, so the test file is {} instead of {}: \
             what it fills in {} s (--size sets the size)",
            rate / 1e6,
            iomark_result::units::format_size(written),
            iomark_result::units::format_size(plan.file_size),
            super::plan::FILL_BUDGET.as_secs()
        ));
    }
    Ok(())
}

/// Scans a raw device, read-only (the surface profile with `--device`): nothing is written.
pub fn run_device(
    plan: &Plan,
    dev: &RawDevice,
    observer: &dyn Observer,
) -> Result<Outcome, SuiteError> {
    let spec = plan.surface.unwrap_or(surface::Spec {
        samples: surface::SAMPLES,
        accesses: surface::ACCESSES,
    });
    let surface = scan::scan(&dev.file, dev.size, spec, "device", observer, None)
        .map_err(|source| SuiteError::Surface { source })?;
    Ok(Outcome {
        tests: Vec::new(),
        settings: plan.settings("psync".into(), true, dev.size),
        warnings: Vec::new(),
        file_path: dev.path.clone(),
        score: Some(Score::Surface(SurfaceScore {
            surface,
            extra: Default::default(),
        })),
    })
}

fn measure(
    plan: &Plan,
    spec: &TestSpec,
    file: &TestFile,
    engine: Engine,
    live: &Live,
) -> Result<TestResult, SuiteError> {
    let direct = file.direct() && !spec.buffered;
    let failed = |source| SuiteError::Test {
        test: spec.name(),
        source,
    };
    let job = |limit| Job {
        op: spec.op,
        pattern: spec.pattern,
        block_size: spec.block_size,
        queue_depth: spec.queue_depth,
        threads: spec.threads,
        data: spec.data.unwrap_or(plan.data),
        limit,
        sync_at_end: spec.op == Op::Write && (spec.fsync || !direct),
        span: spec.span,
        wait_each: spec.wait_each,
        poll: plan.poll && !spec.wait_each,
    };
    // With buffered I/O, each read stretch starts from an evicted cache (as far as the kernel
    // allows); direct I/O bypasses the cache and needs nothing.
    let ready = || -> Result<(), SuiteError> {
        if spec.op == Op::Read && !direct {
            file.evict_cache().map_err(|source| SuiteError::Evict {
                test: spec.name(),
                source,
            })?;
        }
        Ok(())
    };
    // A test that writes the whole file once is its own measurement: no warm-up, one loop.
    let auto = plan.auto_loops && !spec.whole_file;
    let (warmup, loop_count) = if spec.whole_file {
        (Duration::ZERO, 1)
    } else {
        (plan.warmup, plan.loops)
    };
    if !warmup.is_zero() {
        ready()?;
        engine
            .run(file, &job(Limit::time(warmup)), live)
            .map_err(failed)?;
    }
    let limit = match spec.ios {
        _ if spec.whole_file => Limit::ios_within(
            spec.span_in(file.size()) / spec.block_size,
            spec.bound.unwrap_or(plan.duration),
        ),
        Some(count) => Limit::ios(count),
        None => Limit::time(plan.duration),
    };
    let mut loops = Vec::with_capacity(loop_count as usize);
    let mut cpu = Cpu::default();
    let thermometer = plan.thermometer.filter(|_| spec.whole_file);
    let readings = Mutex::new(Vec::new());
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| -> Result<(), SuiteError> {
        if let Some(thermometer) = thermometer {
            let (readings, done) = (&readings, &done);
            scope.spawn(move || sample_temperatures(thermometer, readings, done));
        }
        let measured = (|| -> Result<(), SuiteError> {
            for _ in 0..loop_count {
                ready()?;
                let (user_before, sys_before) = engine::clock::cpu_time();
                let measurement = engine.run(file, &job(limit), live).map_err(failed)?;
                let (user_after, sys_after) = engine::clock::cpu_time();
                cpu.user_s += (user_after - user_before).as_secs_f64();
                cpu.sys_s += (sys_after - sys_before).as_secs_f64();
                loops.push(measurement);
                if auto && known_well_enough(&loops) {
                    break;
                }
            }
            Ok(())
        })();
        done.store(true, Ordering::Relaxed);
        measured
    })?;
    let mut result = aggregate::summarize(spec, &loops, cpu);
    if auto {
        result.mean_ci95_pct = stats::mean_ci95_relative(&loop_rates(&loops)).map(|w| w * 100.0);
    }
    let readings = readings.into_inner().unwrap_or_else(|p| p.into_inner());
    if !readings.is_empty() {
        aggregate::attach_temperatures(&mut result.timeline, &readings);
    }
    Ok(result)
}

/// Each loop's rate, bytes per second.
fn loop_rates(loops: &[engine::Measurement]) -> Vec<f64> {
    loops
        .iter()
        .map(|m| m.bytes as f64 / m.elapsed.as_secs_f64().max(1e-9))
        .collect()
}

/// `--loops auto`: enough loops, and their mean known to within the width asked for.
fn known_well_enough(loops: &[engine::Measurement]) -> bool {
    loops.len() >= AUTO_MIN_LOOPS
        && stats::mean_ci95_relative(&loop_rates(loops)).is_some_and(|w| w <= AUTO_WIDTH)
}

/// Reads the thermometer about once a second until `done`: `(seconds since start, °C)`.
fn sample_temperatures(
    thermometer: fn() -> Option<f64>,
    readings: &Mutex<Vec<(f64, f64)>>,
    done: &AtomicBool,
) {
    let start = Instant::now();
    let mut next = Duration::ZERO;
    while !done.load(Ordering::Relaxed) {
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
    use crate::suite::plan::Options;
    use iomark_profiles::Profile;

    struct Quiet;

    impl Observer for Quiet {
        fn started(&self, _: &Phase, _: Arc<Live>) {}
        fn finished(&self, _: Option<&TestResult>) {}
    }

    #[test]
    fn a_sustained_write_samples_the_thermometer_into_its_timeline() {
        let mut options = Options::of(Profile::Sustained);
        options.size = Some(64 << 20);
        // Slow enough to span a few seconds on any disk: bounded at 2.5 s.
        options.duration = Some(Duration::from_millis(2500));
        options.thermometer = Some(|| Some(42.5));
        let plan = Plan::new(options, None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let outcome = run(&plan, dir.path(), Engine::Psync, &Quiet, &Target::default()).unwrap();
        let timeline = &outcome.tests[0].timeline;
        assert!(!timeline.is_empty());
        assert_eq!(timeline[0].temp_c, Some(42.5), "{timeline:?}");
        let Some(Score::Sustained(score)) = outcome.score else {
            panic!("no sustained score")
        };
        assert_eq!(score.sustained.unwrap().max_temp_c, Some(42.5));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn settings_name_every_engine_that_ran() {
        // The pi profile's dd step is buffered: under io_uring it runs on psync.
        let mut options = Options::of(Profile::Pi);
        options.size = Some(8 << 20);
        options.tests = vec!["DD4K_Q1T1_write".into(), "FIO4K_Q64T1_read".into()];
        let plan = Plan::new(options, None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let target = Target::default();
        let engine = match engine::select(engine::EngineChoice::Auto).unwrap().0 {
            Engine::IoUring => Engine::IoUring,
            // Without io_uring here, nothing differs; the null engine runs every step itself.
            _ => Engine::Null,
        };
        let outcome = run(&plan, dir.path(), engine, &Quiet, &target).unwrap();
        let expected = match engine {
            Engine::IoUring => "io_uring+psync",
            _ => "null",
        };
        assert_eq!(outcome.settings.engine, expected);
        let outcome = run(&plan, dir.path(), Engine::Null, &Quiet, &target).unwrap();
        assert_eq!(outcome.settings.engine, "null");
    }
}
