//! The I/O engine: a [`Job`] (what to do) goes in, a [`Measurement`] (what happened) comes out.
//!
//! The engine knows nothing of profiles, terminals or databases. One loop (`core_loop`) runs every
//! job: limits, offsets, data, timing, latency and the timeline. Each backend lives in a file of
//! its own and implements only the small [`core_loop::Ops`] (queue, commit, reap): `uring`
//! (io_uring, exactly `queue_depth` I/Os in flight per thread), `psync` (pread/pwrite; a queue
//! depth above one uses that many threads, per thread of the job) and `null` (no I/O at all,
//! so it measures the loop itself).
//! [`Engine`] names them. The test file's life cycle is in `target`, timing and latency
//! recording in `clock`, offsets and data in `pattern`, aligned buffers in `buffer`.
//!
//! What lives where: `core_loop.rs`, the one I/O loop (limits, offsets, data, timing, latency, a
//! timeline of tenths of a second, progress counters, final sync; a stream per thread of a job,
//! each with its share of a count and its stripe of a sequential file; how completions are waited
//! for: a batch at a time from a queue depth of 16, `batch`, unless the job waits for each as the
//! tools a profile reproduces do, `Job::wait_each`); one file per backend implementing its small
//! `Ops` (`uring.rs`, which also polls for the one I/O of a single-thread stream at queue depth 1
//! before it sleeps, `polls`; `psync.rs`, `null.rs`); `target.rs`, the test file's life; `fill.rs`,
//! how a slow device's fill is cut short; `registry.rs`, the files a signal must remove;
//! `stale.rs`, removing what a killed run left; `clock.rs`, `pattern.rs`, `buffer.rs`; `rawdev.rs`,
//! a raw block device's life: opened (read-only or for writing) only as root, when nothing uses it
//! (`probe::inuse`: not mounted, nor a partition of it, no holders, not swap) and with `O_EXCL`. It
//! knows nothing of profiles, output, storage.

pub mod buffer;
pub mod clock;
pub mod core_loop;
pub mod fill;
pub mod null;
pub mod pattern;
pub mod psync;
pub mod rawdev;
mod registry;
pub mod stale;
pub mod target;
pub mod uring;

use std::io;

use crate::progress::Live;
use std::time::Duration;

pub use clock::Measurement;
pub use target::TestFile;

/// What a test does, in the profiles' words (`iomark_profiles::spec`).
pub use iomark_profiles::spec::{Data, Op, Pattern};

/// When a job stops issuing new I/Os (those in flight are always waited for and counted): after
/// this many I/Os, or this much time since the first submission, whichever comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub ios: Option<u64>,
    pub time: Option<Duration>,
}

impl Limit {
    /// Issue until this much time has passed.
    pub fn time(duration: Duration) -> Self {
        Limit {
            ios: None,
            time: Some(duration),
        }
    }

    /// Issue exactly this many I/Os.
    pub fn ios(count: u64) -> Self {
        Limit {
            ios: Some(count),
            time: None,
        }
    }

    /// This many I/Os, but stop early when the time is up (a bound for slow media).
    pub fn ios_within(count: u64, duration: Duration) -> Self {
        Limit {
            ios: Some(count),
            time: Some(duration),
        }
    }
}

/// One stretch of I/O against the test file.
#[derive(Clone, Debug)]
pub struct Job {
    pub op: Op,
    pub pattern: Pattern,
    pub block_size: u64,
    /// I/Os in flight at once, per thread.
    pub queue_depth: u32,
    /// Threads, each with its own queue of `queue_depth` (fio's `numjobs`): their I/Os are
    /// summed and their latencies merged, as fio's `group_reporting` does. A sequential job gives
    /// each its own stripe of the file; a random one lets each draw from the whole span.
    pub threads: u32,
    pub data: Data,
    pub limit: Limit,
    /// Call `fdatasync` after the last write and count its time: with buffered I/O, a write is
    /// only done once it reached the device.
    pub sync_at_end: bool,
    /// Wait for each completion asleep, one at a time, as fio, iozone and CrystalDiskMark do by
    /// default, rather than in batches at a deep queue: for profiles whose figures must compare
    /// with those tools' published ones.
    pub wait_each: bool,
    /// Poll for the I/O of a single-thread stream at queue depth 1 before sleeping
    /// (`uring::polls`), so the CPU's wake-up is not counted as the device's: fio's
    /// `iodepth_batch_complete_min=0`, which neither fio nor CrystalDiskMark does by default.
    pub poll: bool,
    /// Confine the offsets to the first this many bytes of the file (fio's and iozone's 80 MiB
    /// inside the pi profile's larger file); `None` spans the whole file.
    pub span: Option<u64>,
}

impl Job {
    /// The bytes of `file` this job's offsets range over.
    pub fn span_of(&self, file: &TestFile) -> u64 {
        self.span.map_or(file.size(), |span| span.min(file.size()))
    }
}

/// Why a job failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("the filesystem is full (no space left while writing at offset {offset})")]
    DiskFull { offset: u64 },
    #[error("{op} of {len} bytes at offset {offset} failed: {source}")]
    Io {
        op: &'static str,
        offset: u64,
        len: u64,
        source: io::Error,
    },
    #[error("{op} at offset {offset} moved {done} of {len} bytes (short transfer)")]
    Short {
        op: &'static str,
        offset: u64,
        done: u64,
        len: u64,
    },
    #[error("io_uring: {0}")]
    Setup(io::Error),
    #[error("cannot allocate I/O buffers: {0}")]
    Memory(io::Error),
}

impl EngineError {
    /// Classifies a completion's result (bytes moved, or `-errno`), the way [`check`] does.
    ///
    /// [`check`]: EngineError::check
    #[inline]
    pub(crate) fn check_completion(op: Op, offset: u64, len: u64, result: i64) -> Result<(), Self> {
        if result == len as i64 {
            return Ok(());
        }
        let outcome = if result < 0 {
            Err(io::Error::from_raw_os_error(-result as i32))
        } else {
            Ok(result as usize)
        };
        Self::check(op, offset, len, outcome)
    }

    /// Classifies the result of one read or write: the byte count, or why it failed.
    pub(crate) fn check(
        op: Op,
        offset: u64,
        len: u64,
        result: io::Result<usize>,
    ) -> Result<(), Self> {
        match result {
            Ok(done) if done as u64 == len => Ok(()),
            Ok(done) => Err(EngineError::Short {
                op: op.as_str(),
                offset,
                done: done as u64,
                len,
            }),
            Err(error) if error.raw_os_error() == Some(libc::ENOSPC) => {
                Err(EngineError::DiskFull { offset })
            }
            Err(source) => Err(EngineError::Io {
                op: op.as_str(),
                offset,
                len,
                source,
            }),
        }
    }
}

/// An I/O backend. Each is a file of its own implementing [`core_loop::Ops`]; every job runs
/// through the one loop in `core_loop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    IoUring,
    Psync,
    Null,
}

impl Engine {
    /// The name the result document records (`settings.engine`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::IoUring => "io_uring",
            Engine::Psync => "psync",
            Engine::Null => "null",
        }
    }

    /// Runs one job against an open test file: a stream per thread, each `queue_depth` deep.
    pub fn run(self, file: &TestFile, job: &Job, live: &Live) -> Result<Measurement, EngineError> {
        let depth = job.queue_depth.max(1);
        let threads = u64::from(job.threads.max(1));
        match self {
            Engine::IoUring => {
                core_loop::run::<uring::IoUring>(file, job, live, threads, depth as usize)
            }
            // Blocking calls reach a queue depth with that many streams of one I/O each.
            Engine::Psync => {
                core_loop::run::<psync::Psync>(file, job, live, threads * u64::from(depth), 1)
            }
            Engine::Null => core_loop::run::<null::Null>(file, job, live, threads, depth as usize),
        }
    }

    /// The engine for buffered I/O, done as programs (dd) do it: one `write(2)` after another.
    /// io_uring would hand buffered writes to kernel workers and measure those instead.
    pub fn for_buffered(self) -> Engine {
        match self {
            Engine::IoUring => Engine::Psync,
            other => other,
        }
    }
}

/// Which backend the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineChoice {
    /// io_uring where the kernel allows it, else psync.
    Auto,
    IoUring,
    Psync,
    Null,
}

/// Picks the backend; `Auto` falls back to psync where io_uring cannot be set up (old kernel,
/// `kernel.io_uring_disabled`, a seccomp filter), and says why in the second value.
pub fn select(choice: EngineChoice) -> Result<(Engine, Option<String>), EngineError> {
    match choice {
        EngineChoice::Psync => Ok((Engine::Psync, None)),
        EngineChoice::Null => Ok((Engine::Null, None)),
        EngineChoice::IoUring => {
            uring::available().map_err(EngineError::Setup)?;
            Ok((Engine::IoUring, None))
        }
        EngineChoice::Auto => match uring::available() {
            Ok(()) => Ok((Engine::IoUring, None)),
            Err(error) => Ok((
                Engine::Psync,
                Some(format!("io_uring is not available ({error}); using psync")),
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_outcomes_are_classified() {
        assert!(EngineError::check(Op::Read, 0, 4096, Ok(4096)).is_ok());
        let short = EngineError::check(Op::Read, 8192, 4096, Ok(100)).unwrap_err();
        assert_eq!(
            short.to_string(),
            "read at offset 8192 moved 100 of 4096 bytes (short transfer)"
        );
        let full = EngineError::check(
            Op::Write,
            4096,
            4096,
            Err(io::Error::from_raw_os_error(libc::ENOSPC)),
        );
        assert!(matches!(full, Err(EngineError::DiskFull { offset: 4096 })));
        let other = EngineError::check(
            Op::Write,
            0,
            4096,
            Err(io::Error::from_raw_os_error(libc::EIO)),
        );
        assert!(other
            .unwrap_err()
            .to_string()
            .starts_with("write of 4096 bytes at offset 0 failed"));
    }
}
