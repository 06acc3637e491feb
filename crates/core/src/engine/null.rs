//! null backend: does no I/O at all.
//!
//! Its ops complete every queued I/O at once, so a job on it runs the same core loop as a real
//! backend (offsets drawn, write buffers re-stamped, every I/O timed and recorded) and nothing
//! else: its IOPS are the ceiling iomark's engine can reach, and its CPU time per I/O is the
//! engine's own cost (as fio's `null` engine). `bench/vs-fio --parts null` sets it beside fio's.

use super::buffer::Buffers;
use super::core_loop::{Completion, Ops};
use super::{EngineError, Job, TestFile};

pub struct Null {
    /// One buffer serves every slot: nothing reads it, but writes are still re-stamped.
    buffer: Buffers,
    block: i64,
    queued: Vec<usize>,
}

impl Ops for Null {
    fn open(_file: &TestFile, job: &Job, depth: usize) -> Result<Self, EngineError> {
        Ok(Null {
            buffer: Buffers::new(1, job.block_size as usize).map_err(EngineError::Memory)?,
            block: job.block_size as i64,
            queued: Vec::with_capacity(depth),
        })
    }

    fn buffer(&mut self, _slot: usize) -> &mut [u8] {
        self.buffer.get_mut(0)
    }

    fn queue(&mut self, slot: usize, _offset: u64) {
        self.queued.push(slot);
    }

    fn reap(&mut self, _want: usize, done: &mut Vec<Completion>) -> Result<(), EngineError> {
        for &slot in &self.queued {
            done.push((slot, self.block));
        }
        self.queued.clear();
        Ok(())
    }
}
