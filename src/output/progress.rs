//! Progress while a run goes on: on a terminal, a bar per phase with its live MB/s and an ETA;
//! elsewhere (logs, CI), one line per finished phase. Implements the suite's `Observer`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Style;
use iomark_core::progress::{Live, Observer, Phase};
use iomark_result::events::{Done, Event};
use iomark_result::result::TestResult;
use iomark_result::units::{format_size, mb_per_s, Rate};

pub struct Progress {
    style: Style,
    mode: Mode,
    current: Mutex<Option<Ticker>>,
}

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Bars on a terminal, a line per finished phase elsewhere.
    Human,
    /// One JSON object per line: `{"event":"start"|"tick"|"done"|"note", …}`, a tick a second.
    Json,
    /// Nothing (`--quiet`, `--progress none`).
    Silent,
}

/// One JSON progress line on standard error.
fn emit(event: Event) {
    super::to_stderr(&format!("{}\n", event.line()));
}

struct Ticker {
    bar: ProgressBar,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
    label: String,
    started: Instant,
    live: Arc<Live>,
    /// The expected time of the phases after this one, where it is known.
    after: Option<Duration>,
}

impl Progress {
    pub fn new(style: Style) -> Self {
        Self::with_mode(style, Mode::Human)
    }

    pub fn with_mode(style: Style, mode: Mode) -> Self {
        Progress {
            style,
            mode,
            current: Mutex::new(None),
        }
    }

    /// Prints one line above any bar.
    pub fn line(&self, text: &str) {
        match self.mode {
            Mode::Silent => {}
            Mode::Json => emit(Event::Note {
                message: text.to_string(),
            }),
            Mode::Human => match self.current.lock().unwrap().as_ref() {
                Some(ticker) => ticker.bar.println(text),
                None => super::to_stderr(&format!("{text}\n")),
            },
        }
    }
}

impl Observer for Progress {
    fn note(&self, text: &str) {
        self.line(&format!("note: {text}"));
    }

    fn started(&self, phase: &Phase, live: Arc<Live>) {
        let (label, length, by_time, after) = match phase {
            Phase::Fill { bytes, after } => (
                format!("Writing the {} test file", format_size(*bytes)),
                *bytes,
                false,
                *after,
            ),
            Phase::Test {
                name,
                index,
                count,
                expected,
                bytes,
                after,
            } => (
                format!("[{}/{}] {}", index + 1, count, name),
                bytes.unwrap_or(expected.as_millis() as u64),
                bytes.is_none(),
                *after,
            ),
            Phase::Bytes { label, bytes } => (label.clone(), *bytes, false, Some(Duration::ZERO)),
        };
        if self.mode == Mode::Json {
            emit(Event::Start {
                phase: label.clone(),
            });
        }
        let bar = if self.style.interactive && self.mode == Mode::Human {
            ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        let template = if by_time {
            "{prefix:<24} [{bar:30}] {msg:>12}  ETA {eta}{run}"
        } else {
            "{prefix:<24} [{bar:30}] {bytes}/{total_bytes} {msg:>12}  ETA {eta}{run}"
        };
        bar.set_style(
            ProgressStyle::with_template(template)
                .expect("valid template")
                .progress_chars("=> ")
                // The whole run's time left: this phase's, then the phases after it.
                .with_key(
                    "run",
                    move |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        if let Some(after) = after.filter(|a| !a.is_zero()) {
                            let left = state.eta() + after;
                            let _ = write!(w, " · run {} left", short_duration(left));
                        }
                    },
                ),
        );
        bar.set_prefix(label.clone());
        let stop = Arc::new(AtomicBool::new(false));
        let started = Instant::now();
        let thread = {
            let (bar, stop, live) = (bar.clone(), stop.clone(), live.clone());
            let interactive = self.style.interactive;
            let (mode, phase) = (self.mode, label.clone());
            std::thread::spawn(move || {
                let mut last = (started, 0u64);
                let mut tick = (started, 0u64);
                let mut printed = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    if mode == Mode::Human {
                        print_samples(&bar, interactive, &live, &mut printed);
                    }
                    let now = Instant::now();
                    let bytes = live.bytes();
                    let since_tick = now.duration_since(tick.0).as_secs_f64();
                    if mode == Mode::Json && since_tick >= 1.0 {
                        emit(Event::Tick {
                            phase: phase.clone(),
                            elapsed_s: now.duration_since(started).as_secs_f64(),
                            bytes,
                            mb_per_s: mb_per_s(bytes - tick.1, since_tick),
                        });
                        tick = (now, bytes);
                    }
                    let window = now.duration_since(last.0).as_secs_f64();
                    if window >= 0.5 {
                        bar.set_message(Rate(mb_per_s(bytes - last.1, window)).to_string());
                        last = (now, bytes);
                    }
                    let position = if by_time {
                        now.duration_since(started).as_millis() as u64
                    } else {
                        bytes
                    };
                    bar.set_position(position.min(length));
                }
            })
        };
        *self.current.lock().unwrap() = Some(Ticker {
            bar,
            stop,
            thread,
            label,
            started,
            live,
            after,
        });
    }

    fn finished(&self, result: Option<&TestResult>) {
        self.finish(result, None);
    }

    fn finished_saying(&self, summary: &str) {
        self.finish(None, Some(summary));
    }

    fn left(&self, after: Option<Duration>) {
        if let Some(ticker) = self.current.lock().unwrap().as_mut() {
            ticker.after = after;
        }
    }
}

impl Progress {
    fn finish(&self, result: Option<&TestResult>, said: Option<&str>) {
        let Some(ticker) = self.current.lock().unwrap().take() else {
            return;
        };
        ticker.stop.store(true, Ordering::Relaxed);
        let _ = ticker.thread.join();
        let seconds = ticker.started.elapsed().as_secs_f64();
        match self.mode {
            Mode::Human => {}
            Mode::Silent => return,
            Mode::Json => {
                emit(Event::Done(Done {
                    phase: ticker.label,
                    seconds,
                    test: result.map(|t| t.name.clone()),
                    mb_per_s: match (result, said) {
                        (Some(t), _) => Some(t.mb_per_s),
                        (None, None) => Some(mb_per_s(ticker.live.bytes(), seconds)),
                        (None, Some(_)) => None,
                    },
                    summary: said.map(str::to_string),
                    iops: result.map(|t| t.iops),
                    run_left_s: ticker.after.map(|a| a.as_secs_f64()),
                }));
                return;
            }
        }
        // Samples that arrived after the ticker's last look.
        let mut printed = result.map_or(0, |t| t.loops.iter().map(|l| l.ios).sum::<u64>());
        let left = ticker.live.take_samples();
        printed = printed.saturating_sub(left.len() as u64);
        for ns in left {
            printed += 1;
            super::to_stderr(&sample_line(printed, ns));
        }
        ticker.bar.finish_and_clear();
        let summary = match (result, said) {
            (Some(t), _) => format!("{:>10.2} MB/s {:>10.0} IOPS", t.mb_per_s, t.iops),
            (None, Some(said)) => said.to_string(),
            (None, None) => format!(
                "{:>10.2} MB/s in {seconds:.1} s",
                mb_per_s(ticker.live.bytes(), seconds)
            ),
        };
        let left = match ticker.after {
            Some(after) if !after.is_zero() => {
                format!("   (run: {} left)", short_duration(after))
            }
            _ => String::new(),
        };
        super::to_stderr(&format!(
            "{} {}{}\n",
            self.style.dim(&format!("{:<24}", ticker.label)),
            summary,
            self.style.dim(&left)
        ));
    }
}

/// `2m 05s`, `45s`, `1h 02m`: minutes and seconds are all a wait needs.
pub fn short_duration(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// One `--live` line, as ioping prints them: which request, how long it took.
fn sample_line(number: u64, nanos: u64) -> String {
    format!("  request {number:>6}: {:>9.1} µs\n", nanos as f64 / 1000.0)
}

fn print_samples(bar: &ProgressBar, interactive: bool, live: &Live, printed: &mut u64) {
    for ns in live.take_samples() {
        *printed += 1;
        let line = sample_line(*printed, ns);
        if interactive {
            bar.println(line.trim_end());
        } else {
            super::to_stderr(&line);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(ticker) = self.current.lock().unwrap().take() {
            ticker.stop.store(true, Ordering::Relaxed);
            let _ = ticker.thread.join();
            ticker.bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_for_people() {
        assert_eq!(short_duration(Duration::from_millis(400)), "0s");
        assert_eq!(short_duration(Duration::from_secs(45)), "45s");
        assert_eq!(short_duration(Duration::from_secs(125)), "2m 05s");
        assert_eq!(short_duration(Duration::from_secs(3725)), "1h 02m");
    }
}
