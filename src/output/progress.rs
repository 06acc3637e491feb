//! Progress while a run goes on: on a terminal, a bar per phase with its live MB/s and an ETA;
//! elsewhere (logs, CI), one line per finished phase. Implements the suite's `Observer`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Style;
use crate::engine::Live;
use crate::result::TestResult;
use crate::suite::{Observer, Phase};
use crate::units::{format_size, mb_per_s};

pub struct Progress {
    style: Style,
    current: Mutex<Option<Ticker>>,
}

struct Ticker {
    bar: ProgressBar,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
    label: String,
    started: Instant,
    live: Arc<Live>,
}

impl Progress {
    pub fn new(style: Style) -> Self {
        Progress {
            style,
            current: Mutex::new(None),
        }
    }

    /// Prints one line above any bar.
    pub fn line(&self, text: &str) {
        match self.current.lock().unwrap().as_ref() {
            Some(ticker) => ticker.bar.println(text),
            None => super::to_stderr(&format!("{text}\n")),
        }
    }
}

impl Observer for Progress {
    fn started(&self, phase: &Phase, live: Arc<Live>) {
        let (label, length, by_time) = match phase {
            Phase::Fill { bytes } => (
                format!("Writing the {} test file", format_size(*bytes)),
                *bytes,
                false,
            ),
            Phase::Test {
                spec,
                index,
                count,
                expected,
            } => (
                format!("[{}/{}] {}", index + 1, count, spec.name()),
                expected.as_millis() as u64,
                true,
            ),
        };
        let bar = if self.style.interactive {
            ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        let template = if by_time {
            "{prefix:<24} [{bar:30}] {msg:>12}  ETA {eta}"
        } else {
            "{prefix:<24} [{bar:30}] {bytes}/{total_bytes} {msg:>12}  ETA {eta}"
        };
        bar.set_style(
            ProgressStyle::with_template(template)
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_prefix(label.clone());
        let stop = Arc::new(AtomicBool::new(false));
        let started = Instant::now();
        let thread = {
            let (bar, stop, live) = (bar.clone(), stop.clone(), live.clone());
            std::thread::spawn(move || {
                let mut last = (started, 0u64);
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    let now = Instant::now();
                    let bytes = live.bytes();
                    let window = now.duration_since(last.0).as_secs_f64();
                    if window >= 0.5 {
                        bar.set_message(format!("{:.1} MB/s", mb_per_s(bytes - last.1, window)));
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
        });
    }

    fn finished(&self, result: Option<&TestResult>) {
        let Some(ticker) = self.current.lock().unwrap().take() else {
            return;
        };
        ticker.stop.store(true, Ordering::Relaxed);
        let _ = ticker.thread.join();
        ticker.bar.finish_and_clear();
        let seconds = ticker.started.elapsed().as_secs_f64();
        let summary = match result {
            Some(t) => format!("{:>10.2} MB/s {:>10.0} IOPS", t.mb_per_s, t.iops),
            None => format!(
                "{:>10.2} MB/s in {seconds:.1} s",
                mb_per_s(ticker.live.bytes(), seconds)
            ),
        };
        super::to_stderr(&format!(
            "{} {}\n",
            self.style.dim(&format!("{:<24}", ticker.label)),
            summary
        ));
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
