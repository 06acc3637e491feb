//! io_uring backend: one ring, exactly `queue_depth` I/Os in flight.
//!
//! Every completion is answered at once by a new submission into the slot it freed, and the
//! submissions of one batch go to the kernel together with the wait for the next completion
//! (one `io_uring_enter` per batch). The file and the buffers are registered with the ring
//! where the kernel allows it, which spares the kernel a file lookup and a page pinning per
//! I/O. On an error no new I/O is issued, but everything in flight is waited for before the
//! buffers are freed: the kernel may still be writing into them.
//!
//! Test: `cargo test engine` runs it against a real file; `bench/vs-fio` against fio's io_uring.

use std::io;
use std::time::Instant;

use io_uring::{opcode, squeue, types};

use super::buffer::Buffers;
use super::clock::{Measurement, Recorder};
use super::pattern::{prepare, restamp, Offsets, Rng};
use super::{Backend, EngineError, Job, Live, Op, TestFile};

pub struct IoUring;

/// Whether this kernel lets us set up a ring (it may be too old, disabled by
/// `kernel.io_uring_disabled`, or filtered by seccomp in a container).
pub fn available() -> io::Result<()> {
    io_uring::IoUring::new(2).map(|_| ())
}

impl Backend for IoUring {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn run(&self, file: &TestFile, job: &Job, live: &Live) -> Result<Measurement, EngineError> {
        let depth = job.queue_depth.max(1) as usize;
        let block = job.block_size;
        let mut ring = new_ring(depth.next_power_of_two() as u32).map_err(EngineError::Setup)?;
        let fixed_file = ring.submitter().register_files(&[file.fd()]).is_ok();

        let mut rng = Rng::from_entropy();
        let mut buffers = Buffers::new(depth, block as usize).map_err(EngineError::Memory)?;
        if job.op == Op::Write {
            for slot in 0..depth {
                prepare(buffers.get_mut(slot), job.data, &mut rng);
            }
        }
        let iovecs = buffers.iovecs();
        // SAFETY: the buffers outlive the ring's use of them (the ring is dropped first, below,
        // and only after every submitted I/O has completed).
        let fixed_buffers = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();

        let mut stream = Stream {
            job,
            block,
            target: if fixed_file {
                Target::Fixed
            } else {
                Target::Fd(file.fd())
            },
            fixed_buffers,
            offsets: Offsets::new(job.pattern, block, job.span_of(file), 0, 1),
            rng,
            buffers,
            slots: Vec::new(),
        };
        let start = Instant::now();
        stream.slots = vec![(start, 0u64); depth];
        let mut recorder = Recorder::new(start).with_sink(live.sample_sink());
        let mut issued = 0u64;
        let mut in_flight = 0usize;
        let mut last_done = start;
        let mut failure: Option<EngineError> = None;
        let may_issue =
            |issued: u64, now: Instant| job.limit.allows(issued, now.duration_since(start));

        for slot in 0..depth {
            if !may_issue(issued, start) {
                break;
            }
            stream.issue(slot, start, &mut ring);
            issued += 1;
            in_flight += 1;
        }

        let mut completed: Vec<(usize, i32)> = Vec::with_capacity(depth);
        while in_flight > 0 {
            match ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR) | Some(libc::EBUSY)) => {}
                Err(e) => {
                    // The ring itself failed; the kernel still owns the in-flight I/Os, so the
                    // buffers must not be freed while it might write into them.
                    std::mem::forget(stream);
                    return Err(EngineError::Setup(e));
                }
            }
            let now = Instant::now();
            last_done = now;
            completed.clear();
            completed.extend(
                ring.completion()
                    .map(|c| (c.user_data() as usize, c.result())),
            );
            let mut batch_bytes = 0;
            for (position, &(slot, result)) in completed.iter().enumerate() {
                in_flight -= 1;
                let (submitted, offset) = stream.slots[slot];
                let outcome = if result < 0 {
                    Err(io::Error::from_raw_os_error(-result))
                } else {
                    Ok(result as usize)
                };
                match EngineError::check(job.op, offset, block, outcome) {
                    Ok(()) => {
                        recorder.record(submitted, now, block);
                        batch_bytes += block;
                    }
                    Err(error) => {
                        failure.get_or_insert(error);
                    }
                }
                if failure.is_none() && may_issue(issued, now) {
                    stream.issue(slot, now, &mut ring);
                    // Hand each new I/O to the kernel at once rather than as one batch: a batch
                    // is submitted under a block-layer plug, so its first I/O would wait for the
                    // last to be prepared while the device idles. The batch's last I/O goes with
                    // the next wait, so a queue depth of one costs one system call per I/O.
                    if position + 1 < completed.len() {
                        submit(&mut ring);
                    }
                    issued += 1;
                    in_flight += 1;
                }
            }
            live.add(batch_bytes);
        }
        drop(ring);
        if let Some(error) = failure {
            return Err(error);
        }
        if job.sync_at_end {
            EngineError::check(Op::Write, 0, 0, file.file().sync_data().map(|_| 0))?;
            last_done = Instant::now();
        }
        Ok(recorder.finish(last_done))
    }
}

/// Everything one ring's I/Os need besides the ring: buffers, offsets, and per slot the time
/// of submission and the offset.
struct Stream<'a> {
    job: &'a Job,
    block: u64,
    target: Target,
    fixed_buffers: bool,
    offsets: Offsets,
    rng: Rng,
    buffers: Buffers,
    slots: Vec<(Instant, u64)>,
}

impl Stream<'_> {
    /// Queues the next I/O into `slot`; the caller submits it.
    fn issue(&mut self, slot: usize, now: Instant, ring: &mut io_uring::IoUring) {
        let offset = self.offsets.next_offset();
        self.slots[slot] = (now, offset);
        if self.job.op == Op::Write {
            restamp(self.buffers.get_mut(slot), self.job.data, &mut self.rng);
        }
        let entry = entry(
            self.job.op,
            self.target,
            self.fixed_buffers,
            self.buffers.ptr(slot),
            slot,
            self.block,
            offset,
        );
        // SAFETY: the buffer stays alive and untouched until this slot's completion is reaped;
        // the queue has room for `depth` entries and never holds more.
        unsafe { ring.submission().push(&entry) }.expect("submission queue sized to depth");
    }
}

/// A ring for one thread that submits and reaps itself: completions are run when it asks for
/// them (DEFER_TASKRUN, Linux 6.1) and never interrupt it (COOP_TASKRUN, 5.19). Measured on ext4
/// on a tmpfs-backed loop device, RND4K Q32T1 read, in rounds alternating with fio (364-405K):
/// a plain ring with batched submission 251-302K IOPS; COOP_TASKRUN and SINGLE_ISSUER alone
/// 288-326K; each I/O submitted at once alone 229-270K; all of these together 353-424K, at less
/// CPU per I/O than fio. Older kernels refuse the flags, and get the plain ring.
fn new_ring(entries: u32) -> io::Result<io_uring::IoUring> {
    let tuned = io_uring::IoUring::builder()
        .setup_coop_taskrun()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(entries);
    match tuned {
        Ok(ring) => Ok(ring),
        Err(error) if error.raw_os_error() == Some(libc::EINVAL) => io_uring::IoUring::new(entries),
        Err(error) => Err(error),
    }
}

/// Submits what is queued without waiting; a transient refusal leaves it queued for the next
/// `submit_and_wait`, which reports any lasting failure.
fn submit(ring: &mut io_uring::IoUring) {
    let _ = ring.submit();
}

#[derive(Clone, Copy)]
enum Target {
    Fixed,
    Fd(i32),
}

fn entry(
    op: Op,
    target: Target,
    fixed_buffers: bool,
    ptr: *mut u8,
    slot: usize,
    len: u64,
    offset: u64,
) -> squeue::Entry {
    let len = len as u32;
    let index = slot as u16;
    macro_rules! build {
        ($fd:expr) => {
            match (op, fixed_buffers) {
                (Op::Read, true) => opcode::ReadFixed::new($fd, ptr, len, index)
                    .offset(offset)
                    .build(),
                (Op::Read, false) => opcode::Read::new($fd, ptr, len).offset(offset).build(),
                (Op::Write, true) => opcode::WriteFixed::new($fd, ptr, len, index)
                    .offset(offset)
                    .build(),
                (Op::Write, false) => opcode::Write::new($fd, ptr, len).offset(offset).build(),
            }
        };
    }
    let entry = match target {
        Target::Fixed => build!(types::Fixed(0)),
        Target::Fd(fd) => build!(types::Fd(fd)),
    };
    entry.user_data(slot as u64)
}
