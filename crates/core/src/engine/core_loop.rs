//! The one I/O loop every backend runs through, as fio's core loop serves every ioengine.
//!
//! A backend implements [`Ops`]: set up a stream, queue an I/O into a slot, start what is
//! queued, and reap completions. Everything else lives here, once: the limits (I/O count and
//! time), offsets and write data, the clock, the latency recorder and the timeline, progress
//! counters, what happens on an error, and the final `fdatasync`. So the `null` backend, whose
//! ops do nothing, measures exactly what this loop costs per I/O.
//!
//! Queue depth is I/Os in flight per stream. A backend that completes I/Os asynchronously
//! (io_uring, null) runs a stream of `queue_depth` slots per thread of the job; psync, whose
//! calls block, runs `queue_depth` streams of one slot each per thread. Several streams run on
//! as many threads, as fio's `numjobs`: a counted job gives each stream its own share of the
//! count, and a sequential one its own stripe of the same size, so a job over the whole file
//! writes every block exactly once whatever the streams.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

use super::clock::{self, Measurement, Recorder};
use super::pattern::{prepare, restamp, share, Offsets, Rng};
use super::{EngineError, Job, Op, TestFile};
use crate::progress::Live;

/// One completed I/O: the slot it was queued in and what the kernel answered, as io_uring
/// reports it: the bytes moved, or a negative errno. (A plain pair keeps the per-I/O path free
/// of drops and moves of `io::Error`.)
pub type Completion = (usize, i64);

/// A system call's answer as a completion's result: the bytes moved, or `-errno`.
pub fn outcome(moved: isize) -> i64 {
    if moved < 0 {
        -(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO) as i64)
    } else {
        moved as i64
    }
}

/// What a backend does for one stream of I/O: fio's `ioengine_ops` (queue, commit, getevents),
/// reduced to what iomark needs.
pub trait Ops: Sized {
    /// Sets up one stream of `depth` slots over `file`, each slot with a buffer of the job's
    /// block size.
    fn open(file: &TestFile, job: &Job, depth: usize) -> Result<Self, EngineError>;

    /// The buffer of `slot`, which the loop fills before it queues a write.
    fn buffer(&mut self, slot: usize) -> &mut [u8];

    /// Queues the job's operation on `slot` at `offset`; it need not start yet.
    fn queue(&mut self, slot: usize, offset: u64);

    /// Starts what is queued, without waiting for anything to complete.
    fn commit(&mut self) {}

    /// Starts what is queued and waits until at least one I/O completes, and up to `want` of
    /// them where the backend can wait for a batch (or the wait is interrupted), appending each
    /// completion to `done`. An error here is the backend's own failure, not an I/O's: the
    /// stream ends at once.
    fn reap(&mut self, want: usize, done: &mut Vec<Completion>) -> Result<(), EngineError>;
}

/// Runs `job` on `file` as `streams` streams of `depth` slots each, through backend `O`.
pub fn run<O: Ops>(
    file: &TestFile,
    job: &Job,
    live: &Live,
    streams: u64,
    depth: usize,
) -> Result<Measurement, EngineError> {
    let streams = streams.max(1);
    let shared = Shared {
        file,
        job,
        live,
        start: OnceLock::new(),
        ready: Barrier::new(streams as usize),
        time_limit_ns: job.limit.time.map(|t| t.as_nanos() as u64),
        streams,
        depth: depth.max(1),
        failed: AtomicBool::new(false),
    };
    let mut total = if shared.streams == 1 {
        shared.stream::<O>(0)?
    } else {
        let results: Vec<Result<Measurement, EngineError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..shared.streams)
                .map(|index| {
                    let shared = &shared;
                    scope.spawn(move || shared.stream::<O>(index))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("an I/O stream panicked"))
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
        total.elapsed = shared.started().0.elapsed();
    }
    Ok(total)
}

/// From this queue depth on, completions are reaped and their replacements submitted in
/// batches of a quarter of the queue, one system call for each batch.
pub const BATCH_FROM: usize = 16;

/// How many completions a stream of `depth` slots waits for at once, and submits together: one
/// below [`BATCH_FROM`], else a quarter of the queue, so three quarters of it stay in flight
/// while a batch is answered. An I/O of a batch is timed when the batch is reaped, up to the
/// batch's other I/Os' times late; at such a depth each I/O waits behind 16 or more anyway, and
/// the mean latency (the queue depth over the IOPS) is the same. Measured (RND4K Q32T1 read on a
/// RAM-backed loop device, pinned to one CPU, alternating with fio, 4 rounds): 251-279K IOPS at
/// 1.8-2.1 µs of CPU per I/O, against 232-290K at 2.7-3.0 µs one by one and fio's 225-274K at
/// 3.4-4.1 µs. Waiting with the kernel's bound on a batch's wait (`min_wait_usec`, 6.12) cost
/// more than it saved: 195-264K at 2.5-3.2 µs. fio's `iodepth_batch_submit` and
/// `iodepth_batch_complete_min` do the same.
pub fn batch(depth: usize) -> usize {
    if depth >= BATCH_FROM {
        depth / 4
    } else {
        1
    }
}

/// Progress is published in batches, to keep streams off one shared cache line, yet often
/// enough that a slow device's progress bar moves: every 16 I/Os or every MiB.
const PUBLISH_IOS: u64 = 16;
const PUBLISH_BYTES: u64 = 1 << 20;

/// What the streams of one job share.
struct Shared<'a> {
    file: &'a TestFile,
    job: &'a Job,
    live: &'a Live,
    /// When the timed part began, as an `Instant` and as nanoseconds on the same monotonic
    /// clock (the loop reads the clock as one integer once per batch and does its arithmetic on
    /// integers): set once every stream has opened and filled its buffers, so neither setting
    /// up a ring nor filling 16 MiB buffers with random data counts against a test's time.
    start: OnceLock<(Instant, u64)>,
    /// Where the streams wait for one another before the clock starts.
    ready: Barrier,
    time_limit_ns: Option<u64>,
    streams: u64,
    depth: usize,
    /// Set by the first stream that fails, so the others stop issuing.
    failed: AtomicBool,
}

impl Shared<'_> {
    /// The start of the timed part: the first stream past [`Shared::ready`] sets it.
    fn started(&self) -> (Instant, u64) {
        *self.start.get_or_init(|| (Instant::now(), clock::now_ns()))
    }

    /// Whether one more I/O may be issued by a stream that has issued `issued` of its `quota`
    /// (its share of a counted job's I/Os; none for a timed one).
    #[inline]
    fn may_issue(&self, issued: u64, quota: Option<u64>, elapsed_ns: u64) -> bool {
        if self.time_limit_ns.is_some_and(|limit| elapsed_ns >= limit) {
            return false;
        }
        quota.is_none_or(|quota| issued < quota)
    }

    fn stream<O: Ops>(&self, index: u64) -> Result<Measurement, EngineError> {
        let outcome = self.stream_inner::<O>(index);
        if outcome.is_err() {
            self.failed.store(true, Ordering::Relaxed);
        }
        outcome
    }

    fn stream_inner<O: Ops>(&self, index: u64) -> Result<Measurement, EngineError> {
        let job = self.job;
        let block = job.block_size;
        let depth = self.depth;
        let mut rng = Rng::from_entropy();
        let opened = O::open(self.file, job, depth).map(|mut ops| {
            if job.op == Op::Write {
                for slot in 0..depth {
                    prepare(ops.buffer(slot), job.data, &mut rng);
                }
            }
            ops
        });
        // Every stream waits here, opened or not, so none is left waiting for one that failed.
        self.ready.wait();
        let mut ops = opened?;
        let (start, start_ns) = self.started();
        let quota = job
            .limit
            .ios
            .map(|count| share(count, index, self.streams).1);
        let offsets = Offsets::new(
            job.pattern,
            block,
            job.span_of(self.file),
            index,
            self.streams,
        );
        let mut recorder = Recorder::new(start).with_sink(self.live.sample_sink());
        let mut next = Next {
            job,
            offsets,
            rng,
            slots: vec![(start_ns, 0u64); depth],
        };
        let several = self.streams > 1;
        let mut issued = 0u64;
        let mut in_flight = 0usize;
        let mut failure: Option<EngineError> = None;
        let mut now = clock::now_ns();
        let mut last_done = now;
        let (mut unpublished_ios, mut unpublished_bytes) = (0u64, 0u64);

        // The first wave goes to the kernel together with the first wait, whatever the time: a
        // stream preempted between the start and here (a busy machine) still measures one wave
        // rather than none. Only a count (its share of it) limits it.
        for slot in 0..depth {
            if !self.may_issue(issued, quota, 0) {
                break;
            }
            next.issue(&mut ops, slot, now);
            issued += 1;
            in_flight += 1;
        }
        let mut done: Vec<Completion> = Vec::with_capacity(depth);
        let batch = if job.wait_each { 1 } else { batch(depth) };
        while in_flight > 0 {
            done.clear();
            ops.reap(batch.min(in_flight), &mut done)?;
            // The clock is read once per batch, and the timeline's step worked out once.
            now = clock::now_ns();
            last_done = now;
            let elapsed = now.saturating_sub(start_ns);
            let step = clock::step_of(elapsed);
            let count = done.len();
            for (position, &(slot, result)) in done.iter().enumerate() {
                in_flight -= 1;
                let (submitted, offset) = next.slots[slot];
                match EngineError::check_completion(job.op, offset, block, result) {
                    Ok(()) => {
                        recorder.record_at(now.saturating_sub(submitted), step, block);
                        unpublished_ios += 1;
                        unpublished_bytes += block;
                    }
                    Err(error) => {
                        failure.get_or_insert(error);
                        if several {
                            self.failed.store(true, Ordering::Relaxed);
                        }
                    }
                }
                let stopped = failure.is_some() || (several && self.failed.load(Ordering::Relaxed));
                if !stopped && self.may_issue(issued, quota, elapsed) {
                    next.issue(&mut ops, slot, now);
                    // A shallow queue hands each new I/O to the kernel at once rather than as
                    // one batch: a batch is submitted under a block-layer plug, so its first I/O
                    // would wait for the last to be prepared while the device idles. A deep one
                    // (see `batch`) keeps the device busy meanwhile, and submits its batch with
                    // the next wait. The last I/O always goes with the next wait, so a queue
                    // depth of one costs one system call per I/O.
                    if batch == 1 && position + 1 < count {
                        ops.commit();
                    }
                    issued += 1;
                    in_flight += 1;
                }
            }
            if unpublished_ios >= PUBLISH_IOS || unpublished_bytes >= PUBLISH_BYTES {
                self.live.add(unpublished_bytes);
                (unpublished_ios, unpublished_bytes) = (0, 0);
            }
        }
        self.live.add(unpublished_bytes);
        if let Some(error) = failure {
            return Err(error);
        }
        Ok(recorder.finish_after(Duration::from_nanos(last_done.saturating_sub(start_ns))))
    }
}

/// What the next I/O of a stream is: its offset and, for a write, fresh data in its buffer.
struct Next<'a> {
    job: &'a Job,
    offsets: Offsets,
    rng: Rng,
    /// Per slot: when its I/O was issued (monotonic nanoseconds), and where (for an error
    /// message).
    slots: Vec<(u64, u64)>,
}

impl Next<'_> {
    #[inline]
    fn issue<O: Ops>(&mut self, ops: &mut O, slot: usize, now: u64) {
        let offset = self.offsets.next_offset();
        if self.job.op == Op::Write {
            restamp(ops.buffer(slot), self.job.data, &mut self.rng);
        }
        self.slots[slot] = (now, offset);
        ops.queue(slot, offset);
    }
}
