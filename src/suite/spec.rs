//! One test of a profile ([`TestSpec`]): what it does, and its name as CrystalDiskMark spells it.

use std::time::Duration;

use crate::engine::{Data, Op, Pattern};
use crate::units::block_label;

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
            label: None,
        }
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
