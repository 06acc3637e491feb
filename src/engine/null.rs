//! null backend: does no I/O at all.
//!
//! It walks the same path as a real backend (offsets drawn, write buffers re-stamped, every
//! "I/O" timed and recorded) and completes each at once, so its IOPS are the ceiling the engine
//! itself can reach and its CPU time is the engine's own cost per I/O (as fio's `null` engine).

use std::time::Instant;

use super::buffer::Buffers;
use super::clock::{Measurement, Recorder};
use super::pattern::{prepare, restamp, Offsets, Rng};
use super::{Backend, EngineError, Job, Live, Op, TestFile};

pub struct Null;

impl Backend for Null {
    fn name(&self) -> &'static str {
        "null"
    }

    fn run(&self, file: &TestFile, job: &Job, live: &Live) -> Result<Measurement, EngineError> {
        let depth = job.queue_depth.max(1) as usize;
        let block = job.block_size as usize;
        let mut rng = Rng::from_entropy();
        let mut buffer = Buffers::new(1, block).map_err(EngineError::Memory)?;
        if job.op == Op::Write {
            prepare(buffer.get_mut(0), job.data, &mut rng);
        }
        let mut offsets = Offsets::new(job.pattern, job.block_size, job.span_of(file), 0, 1);
        let start = Instant::now();
        let mut recorder = Recorder::new(start).with_sink(live.sample_sink());
        let mut submitted = vec![start; depth];
        let mut issued = 0u64;
        let mut now = start;
        loop {
            let room = if job.limit.allows(issued, now.duration_since(start)) {
                job.limit
                    .ios
                    .map_or(depth as u64, |count| (count - issued).min(depth as u64))
            } else {
                0
            };
            if room == 0 {
                break;
            }
            for slot in submitted.iter_mut().take(room as usize) {
                let _offset = std::hint::black_box(offsets.next_offset());
                if job.op == Op::Write {
                    restamp(buffer.get_mut(0), job.data, &mut rng);
                }
                recorder.record(*slot, now, job.block_size);
                *slot = now;
            }
            issued += room;
            live.add(room * job.block_size);
            now = Instant::now();
        }
        Ok(recorder.finish(now))
    }
}
