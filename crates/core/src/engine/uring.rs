//! io_uring backend: one ring of `queue_depth` slots per thread, which the core loop keeps full.
//!
//! The core loop answers completions by new submissions into the slots they freed: at a shallow
//! depth each at once, at a deep one a batch at a time (`core_loop::batch`), the last going to
//! the kernel with the wait for the next. With `--poll`, a stream with one I/O in flight polls
//! for it briefly before it sleeps ([`POLL_NS`]). The file and the buffers are registered with
//! the ring where the kernel allows it, which spares the kernel a file lookup and a page
//! pinning per I/O. If the ring itself fails with I/Os in flight, the buffers are leaked, not
//! freed: the kernel may still be writing into them. What fio options do the same is said
//! once, in `suite::fio`.
//!
//! Test: `cargo test engine` runs it against a real file; `bench/vs-fio` against fio's io_uring.

use std::io;
use std::mem::ManuallyDrop;

use io_uring::{opcode, squeue, types};

use super::buffer::Buffers;
use super::clock;
use super::core_loop::{Completion, Ops};
use super::{EngineError, Job, Op, TestFile};

/// Whether this kernel lets us set up a ring (it may be too old, disabled by
/// `kernel.io_uring_disabled`, or filtered by seccomp in a container).
pub fn available() -> io::Result<()> {
    io_uring::IoUring::new(2).map(|_| ())
}

/// One ring and the buffers it reads into and writes from.
pub struct IoUring {
    // Dropped by hand, ring first: the kernel may use the buffers until the ring is gone.
    ring: ManuallyDrop<io_uring::IoUring>,
    buffers: ManuallyDrop<Buffers>,
    /// Set when the ring failed with I/Os in flight: the kernel still owns the buffers, so
    /// they are leaked rather than freed under it.
    abandoned: bool,
    op: Op,
    block: u64,
    target: Target,
    fixed_buffers: bool,
    /// Poll for the one I/O in flight before sleeping (see [`POLL_NS`]).
    polls: bool,
}

impl Ops for IoUring {
    fn open(file: &TestFile, job: &Job, depth: usize) -> Result<Self, EngineError> {
        let ring = new_ring(depth.next_power_of_two() as u32).map_err(EngineError::Setup)?;
        let fixed_file = ring.submitter().register_files(&[file.fd()]).is_ok();
        let mut buffers =
            Buffers::new(depth, job.block_size as usize).map_err(EngineError::Memory)?;
        let iovecs = buffers.iovecs();
        // SAFETY: the buffers outlive the ring's use of them: Drop frees the ring first, and
        // frees the buffers only if no I/O can still be in flight.
        let fixed_buffers = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        Ok(IoUring {
            ring: ManuallyDrop::new(ring),
            buffers: ManuallyDrop::new(buffers),
            abandoned: false,
            op: job.op,
            block: job.block_size,
            target: if fixed_file {
                Target::Fixed
            } else {
                Target::Fd(file.fd())
            },
            fixed_buffers,
            polls: job.poll && polls(depth, job.threads),
        })
    }

    fn buffer(&mut self, slot: usize) -> &mut [u8] {
        self.buffers.get_mut(slot)
    }

    fn queue(&mut self, slot: usize, offset: u64) {
        let entry = entry(
            self.op,
            self.target,
            self.fixed_buffers,
            self.buffers.ptr(slot),
            slot,
            self.block,
            offset,
        );
        // SAFETY: the buffer stays alive and untouched until this slot's completion is reaped;
        // the queue has room for `depth` entries and never holds more.
        unsafe { self.ring.submission().push(&entry) }.expect("submission queue sized to depth");
    }

    /// Submits what is queued without waiting; a transient refusal leaves it queued for the
    /// next wait, which reports any lasting failure.
    fn commit(&mut self) {
        let _ = self.ring.submit();
    }

    fn reap(&mut self, want: usize, done: &mut Vec<Completion>) -> Result<(), EngineError> {
        if self.polls {
            self.poll();
        }
        // A poll that found its completion, with nothing left to submit, needs no system call.
        let ready = self.ring.completion().len();
        let waited = if ready >= want && self.ring.submission().is_empty() {
            Ok(0)
        } else {
            self.ring.submit_and_wait(want.saturating_sub(ready))
        };
        match waited {
            Ok(_) => {}
            // Interrupted, or the completion queue is full: reap what is there and wait again.
            Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR) | Some(libc::EBUSY)) => {}
            Err(e) => {
                self.abandoned = true;
                return Err(EngineError::Setup(e));
            }
        }
        done.extend(
            self.ring
                .completion()
                .map(|c| (c.user_data() as usize, i64::from(c.result()))),
        );
        Ok(())
    }
}

impl IoUring {
    /// Enters the ring without sleeping (submitting what is queued, running its completions)
    /// until something completed or [`POLL_NS`] passed; the wait that follows sleeps only then.
    fn poll(&mut self) {
        let until = clock::now_ns() + POLL_NS;
        loop {
            let queued = self.ring.submission().len() as u32;
            // SAFETY: an enter with no argument; GETEVENTS runs the deferred completions.
            let entered = unsafe {
                self.ring
                    .submitter()
                    .enter::<libc::sigset_t>(queued, 0, ENTER_GETEVENTS, None)
            };
            if entered.is_err() || !self.ring.completion().is_empty() || clock::now_ns() >= until {
                return;
            }
        }
    }
}

/// `IORING_ENTER_GETEVENTS`, which the io_uring crate does not export.
const ENTER_GETEVENTS: u32 = 1;

/// How long a stream with one I/O in flight polls for its completion before it sleeps, when the
/// job asks (`Job::poll`, `--poll`). Waking a sleeping thread costs microseconds (tens on a
/// virtual machine, more from a CPU's deep idle state), which a queue depth of one adds to every
/// I/O and counts as the device's: RND4K Q1T1 read on a RAM-backed loop device made 33,000 IOPS
/// sleeping and 54,000 polling (fio: 33,000 by default, 52,000 with
/// `iodepth_batch_complete_min=0`, which polls). A device slower than this is waited for
/// asleep. Off by default: fio, CrystalDiskMark and KDiskMark sleep, and their Q1T1 figures are
/// the ones people compare with.
pub const POLL_NS: u64 = 200_000;

/// Whether a stream of `depth` slots, one of `threads`, polls: at a queue depth of one, from a
/// single thread, where another CPU is online to do the device's side of the work.
pub fn polls(depth: usize, threads: u32) -> bool {
    depth == 1 && threads <= 1 && online_cpus() >= 2
}

fn online_cpus() -> libc::c_long {
    // SAFETY: sysconf reads a value and has no other effect.
    unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }
}

impl Drop for IoUring {
    fn drop(&mut self) {
        // SAFETY: each field is dropped once, here; the ring goes before the buffers it used.
        unsafe {
            ManuallyDrop::drop(&mut self.ring);
            if !self.abandoned {
                ManuallyDrop::drop(&mut self.buffers);
            }
        }
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
