//! psync backend: `pread`/`pwrite`, one I/O at a time per thread.
//!
//! A queue depth above one runs that many threads, each with its own buffer, so that the
//! device sees that many I/Os in flight (as fio's psync engine with `numjobs`). Sequential
//! streams each walk their own stripe of the file (fio's `offset_increment`); random streams
//! each draw from the whole file. This backend works everywhere, including kernels and
//! containers without io_uring.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::buffer::Buffers;
use super::clock::{Measurement, Recorder};
use super::pattern::{prepare, restamp, Offsets, Rng};
use super::{Backend, EngineError, Job, Live, Op, TestFile};

pub struct Psync;

/// Completed bytes are published to the progress counter in batches, to keep threads off
/// one shared cache line.
const PUBLISH_EVERY: u64 = 16;

impl Backend for Psync {
    fn name(&self) -> &'static str {
        "psync"
    }

    fn run(&self, file: &TestFile, job: &Job, live: &Live) -> Result<Measurement, EngineError> {
        let streams = u64::from(job.queue_depth.max(1));
        let start = Instant::now();
        let failed = AtomicBool::new(false);
        let budget = AtomicU64::new(job.limit.ios.unwrap_or(u64::MAX));
        let shared = Shared {
            file,
            job,
            live,
            start,
            failed: &failed,
            budget: &budget,
            streams,
        };
        let mut total = if streams == 1 {
            shared.stream(0)?
        } else {
            let results: Vec<Result<Measurement, EngineError>> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..streams)
                    .map(|index| {
                        let shared = &shared;
                        scope.spawn(move || shared.stream(index))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("psync thread panicked"))
                    .collect()
            });
            let mut merged: Option<Measurement> = None;
            for result in results {
                let measurement = result?;
                match merged.as_mut() {
                    Some(total) => total.merge(&measurement),
                    None => merged = Some(measurement),
                }
            }
            merged.expect("at least one stream")
        };
        if job.sync_at_end {
            EngineError::check(Op::Write, 0, 0, file.file().sync_data().map(|_| 0))?;
            total.elapsed = start.elapsed();
        }
        Ok(total)
    }
}

struct Shared<'a> {
    file: &'a TestFile,
    job: &'a Job,
    live: &'a Live,
    start: Instant,
    failed: &'a AtomicBool,
    budget: &'a AtomicU64,
    streams: u64,
}

impl Shared<'_> {
    /// Whether this stream may issue one more I/O. A count is a budget shared by all streams;
    /// a timed job never touches it, so threads do not contend for one cache line per I/O.
    fn take_one(&self, now: Instant) -> bool {
        let limit = &self.job.limit;
        if limit
            .time
            .is_some_and(|time| now.duration_since(self.start) >= time)
        {
            return false;
        }
        limit.ios.is_none()
            || self
                .budget
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                    left.checked_sub(1)
                })
                .is_ok()
    }

    fn stream(&self, index: u64) -> Result<Measurement, EngineError> {
        let job = self.job;
        let mut rng = Rng::from_entropy();
        let mut buffer = Buffers::new(1, job.block_size as usize).map_err(|e| {
            self.failed.store(true, Ordering::Relaxed);
            EngineError::Memory(e)
        })?;
        if job.op == Op::Write {
            prepare(buffer.get_mut(0), job.data, &mut rng);
        }
        let mut offsets = Offsets::new(
            job.pattern,
            job.block_size,
            job.span_of(self.file),
            index,
            self.streams,
        );
        let mut recorder = Recorder::new(self.start).with_sink(self.live.sample_sink());
        let mut unpublished = 0u64;
        let mut now = Instant::now();
        let mut last_done = now;
        while !self.failed.load(Ordering::Relaxed) && self.take_one(now) {
            let offset = offsets.next_offset();
            let slice = buffer.get_mut(0);
            let result = match job.op {
                Op::Read => std::os::unix::fs::FileExt::read_at(self.file.file(), slice, offset),
                Op::Write => {
                    restamp(slice, job.data, &mut rng);
                    std::os::unix::fs::FileExt::write_at(self.file.file(), slice, offset)
                }
            };
            let done = Instant::now();
            if let Err(error) = EngineError::check(job.op, offset, job.block_size, result) {
                self.failed.store(true, Ordering::Relaxed);
                return Err(error);
            }
            recorder.record(now, done, job.block_size);
            unpublished += 1;
            if unpublished == PUBLISH_EVERY {
                self.live.add(unpublished * job.block_size);
                unpublished = 0;
            }
            now = done;
            last_done = done;
        }
        self.live.add(unpublished * job.block_size);
        Ok(recorder.finish(last_done))
    }
}
