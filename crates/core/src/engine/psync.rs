//! psync backend: `pread`/`pwrite`, one I/O at a time per stream.
//!
//! Its calls block, so a queue depth above one runs that many streams on as many threads, each
//! with its own buffer, and the device sees that many I/Os in flight (as fio's psync engine with
//! `numjobs`). Sequential streams each walk their own stripe of the file (fio's
//! `offset_increment`); random streams each draw from the whole file. This backend works
//! everywhere, including kernels and containers without io_uring.
//!
//! Test: `cargo test engine` runs it against a real file; `bench/vs-fio` against fio's psync.

use std::os::unix::io::RawFd;

use super::buffer::Buffers;
use super::core_loop::{outcome, Completion, Ops};
use super::{EngineError, Job, Op, TestFile};

pub struct Psync {
    fd: RawFd,
    op: Op,
    buffer: Buffers,
    queued: Option<(usize, u64)>,
}

impl Ops for Psync {
    fn open(file: &TestFile, job: &Job, _depth: usize) -> Result<Self, EngineError> {
        Ok(Psync {
            fd: file.fd(),
            op: job.op,
            buffer: Buffers::new(1, job.block_size as usize).map_err(EngineError::Memory)?,
            queued: None,
        })
    }

    fn buffer(&mut self, _slot: usize) -> &mut [u8] {
        self.buffer.get_mut(0)
    }

    fn queue(&mut self, slot: usize, offset: u64) {
        self.queued = Some((slot, offset));
    }

    /// The I/O happens here, in the call.
    fn reap(&mut self, _want: usize, done: &mut Vec<Completion>) -> Result<(), EngineError> {
        let Some((slot, offset)) = self.queued.take() else {
            return Ok(());
        };
        let buffer = self.buffer.get_mut(0);
        // SAFETY: the buffer is valid for its length; the fd is the open test file, which
        // outlives the stream.
        let moved = unsafe {
            match self.op {
                Op::Read => libc::pread(
                    self.fd,
                    buffer.as_mut_ptr().cast(),
                    buffer.len(),
                    offset as libc::off_t,
                ),
                Op::Write => libc::pwrite(
                    self.fd,
                    buffer.as_ptr().cast(),
                    buffer.len(),
                    offset as libc::off_t,
                ),
            }
        };
        done.push((slot, outcome(moved)));
        Ok(())
    }
}
