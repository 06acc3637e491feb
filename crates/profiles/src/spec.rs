//! One test of a profile ([`TestSpec`]): what it does, and its name as CrystalDiskMark spells it;
//! what a profile runs unless the user says otherwise ([`Defaults`]).

use std::time::Duration;

use iomark_result::result::shape;
use iomark_result::units::block_label;

/// The most threads a test may run (CrystalDiskMark offers up to 64).
pub const MAX_THREADS: u32 = 64;
/// The most I/Os a test may keep in flight per thread.
pub const MAX_DEPTH: u32 = 512;
/// The most I/Os in flight over all of a test's threads (psync runs one thread per I/O).
pub const MAX_IN_FLIGHT: u32 = 1024;
/// The largest block a named test may use (a buffer per I/O in flight).
pub const MAX_BLOCK: u64 = 64 << 20;

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
        }
    }
}

/// Where the next offset comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Block after block from the start of the file (or of a thread's stripe), wrapping at its end.
    Sequential,
    /// Uniformly distributed, block-aligned offsets over the whole file.
    Random,
}

impl Pattern {
    /// The short name the result document uses: `seq` or `rand`.
    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::Sequential => "seq",
            Pattern::Random => "rand",
        }
    }
}

/// What written blocks contain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Data {
    /// Incompressible pseudo-random bytes, re-stamped for every write so no two blocks are equal
    /// (controllers that compress or deduplicate cannot shortcut the work).
    Random,
    /// All zeros: shows how much a controller gains from compressible data.
    Zero,
}

impl Data {
    pub fn as_str(self) -> &'static str {
        match self {
            Data::Random => "random",
            Data::Zero => "zero",
        }
    }
}

/// One test of a profile: a row of the table in one direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestSpec {
    pub pattern: Pattern,
    pub op: Op,
    pub block_size: u64,
    pub queue_depth: u32,
    pub threads: u32,
    /// Stop each loop after this many I/Os instead of after the plan's duration.
    pub ios: Option<u64>,
    /// Write the whole file exactly once, bounded by the plan's duration (sustained writes).
    pub whole_file: bool,
    /// A time bound of the test's own, in place of the plan's duration.
    pub bound: Option<Duration>,
    /// Offsets only within the first this many bytes of the file.
    pub span: Option<u64>,
    /// Through the page cache, whatever the plan says (dd's default).
    pub buffered: bool,
    /// This test's data, in place of the plan's (dd writes zeros).
    pub data: Option<Data>,
    /// `fdatasync` after the last write, timed (dd's `conv=fsync`, iozone's `-e`).
    pub fsync: bool,
    /// Completions waited for one at a time, asleep, as the tools a profile reproduces do
    /// (`engine::Job::wait_each`).
    pub wait_each: bool,
    /// A name of the test's own in place of `SEQ1M_Q8T1` (the pi profile's `DD4K_Q1T1`).
    pub label: Option<&'static str>,
}

impl TestSpec {
    pub fn new(pattern: Pattern, block_size: u64, queue_depth: u32, op: Op) -> Self {
        TestSpec {
            pattern,
            op,
            block_size,
            queue_depth,
            threads: 1,
            ios: None,
            whole_file: false,
            bound: None,
            span: None,
            buffered: false,
            data: None,
            fsync: false,
            wait_each: false,
            label: None,
        }
    }

    /// The tests a CrystalDiskMark name states: `RND4K_Q32T16_read` is that one test, a row
    /// name (`SEQ128K_Q32T1`) its read and its write. `Ok(None)` for a name of another shape;
    /// an error, naming the limit, for one of this shape that iomark will not run.
    pub fn parse(name: &str) -> Result<Option<Vec<TestSpec>>, String> {
        let upper = name.to_ascii_uppercase();
        let (row, ops) = match upper.rsplit_once('_') {
            Some((row, "READ")) => (row, vec![Op::Read]),
            Some((row, "WRITE")) => (row, vec![Op::Write]),
            _ => (upper.as_str(), vec![Op::Read, Op::Write]),
        };
        let pattern = if row.starts_with("SEQ") {
            Pattern::Sequential
        } else if row.starts_with("RND") {
            Pattern::Random
        } else {
            return Ok(None);
        };
        let well_formed =
            row[3..].starts_with(|c: char| c.is_ascii_digit()) && row.split('_').count() == 2;
        let Some((block, depth, threads)) = shape(row).filter(|_| well_formed) else {
            return Ok(None);
        };
        if block == 0 || block % 4096 != 0 || block > MAX_BLOCK {
            return Err(format!(
                "{name}: the block must be a whole number of 4 KiB, at most {}",
                iomark_result::units::format_size(MAX_BLOCK)
            ));
        }
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(format!("{name}: the queue depth must be 1 to {MAX_DEPTH}"));
        }
        if !(1..=MAX_THREADS).contains(&threads) {
            return Err(format!("{name}: threads must be 1 to {MAX_THREADS}"));
        }
        if depth * threads > MAX_IN_FLIGHT {
            return Err(format!(
                "{name}: at most {MAX_IN_FLIGHT} I/Os in flight (queue depth times threads)"
            ));
        }
        Ok(Some(
            ops.into_iter()
                .map(|op| TestSpec::new(pattern, block, depth, op).on_threads(threads))
                .collect(),
        ))
    }

    /// The same test on `threads` threads, each with its own queue.
    pub fn on_threads(mut self, threads: u32) -> Self {
        self.threads = threads;
        self
    }

    /// The bytes this test's offsets range over in a file of `file_size` bytes.
    pub fn span_in(&self, file_size: u64) -> u64 {
        self.span.map_or(file_size, |span| span.min(file_size))
    }

    /// The same test, stopping at `bound` whatever the plan's duration.
    pub fn bounded(mut self, bound: Duration) -> Self {
        self.bound = Some(bound);
        self
    }

    /// The same test, once over the whole file (stopping early at the plan's duration).
    pub fn once_over_file(mut self) -> Self {
        self.whole_file = true;
        self
    }

    /// The same test, counted in I/Os rather than timed.
    pub fn with_ios(mut self, ios: u64) -> Self {
        self.ios = Some(ios);
        self
    }

    /// The row's name, as CrystalDiskMark spells it: `SEQ1M_Q8T1`, `RND4K_Q32T1`.
    pub fn row(&self) -> String {
        if let Some(label) = self.label {
            return label.to_string();
        }
        let kind = match self.pattern {
            Pattern::Sequential => "SEQ",
            Pattern::Random => "RND",
        };
        format!(
            "{kind}{}_Q{}T{}",
            block_label(self.block_size),
            self.queue_depth,
            self.threads
        )
    }

    /// The test's name: `SEQ1M_Q8T1_read`.
    pub fn name(&self) -> String {
        format!("{}_{}", self.row(), self.op.as_str())
    }
}

/// What a profile runs unless the user says otherwise.
#[derive(Clone, Debug)]
pub struct Defaults {
    pub tests: Vec<TestSpec>,
    pub file_size: FileSize,
    pub loops: u32,
    pub duration: Duration,
    pub warmup: Duration,
    /// Write the whole file before the tests (not when the first test writes it itself).
    pub fill: bool,
    /// On a device too slow to fill the file in [`super::plan::FILL_BUDGET`], make the file
    /// what it fills in that time (unless `--size` was given). Not for a profile whose
    /// verdicts depend on the file's size (sdcard's sustained write).
    pub cut_fill: bool,
}

/// A profile's default file size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileSize {
    Fixed(u64),
    /// The smaller of this and half the free space (a write over fresh space).
    HalfFreeUpTo(u64),
}

impl FileSize {
    /// The size in bytes, given the free space where it is known.
    pub fn resolve(self, free_bytes: Option<u64>) -> Option<u64> {
        match self {
            FileSize::Fixed(size) => Some(size),
            FileSize::HalfFreeUpTo(most) => free_bytes.map(|free| most.min(free / 2)),
        }
    }
}
