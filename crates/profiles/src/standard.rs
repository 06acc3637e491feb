//! The CrystalDiskMark / KDiskMark tables: standard, its quick variant, and nvme.
//!
//! CrystalDiskMark 8's default preset: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, each
//! read and write, on a 1 GiB file. Its default of 5 loops of 5 s is cut here to 3 loops of
//! 2 s after a 1 s warm-up, so the whole table takes about a minute; `--loops` and
//! `--duration` restore the longer method. Its "NVMe SSD" preset (`nvme`) keeps SEQ1M Q8T1 and
//! RND4K Q1T1 and puts SEQ128K Q32T1 and RND4K Q32T16 in place of the other two rows: a fast
//! drive's random rate is reached only from several threads, each with its own queue.

use std::time::Duration;

use crate::spec::{Defaults, FileSize, TestSpec};
use crate::spec::{Op, Pattern};

/// The four rows of the table, each with a read and a write test (reads first, as in
/// CrystalDiskMark's "All" run).
fn table_tests() -> Vec<TestSpec> {
    table(&[
        (Pattern::Sequential, 1 << 20, 8, 1),
        (Pattern::Sequential, 1 << 20, 1, 1),
        (Pattern::Random, 4096, 32, 1),
        (Pattern::Random, 4096, 1, 1),
    ])
}

/// Each row (pattern, block, queue depth, threads) read, then each written.
fn table(rows: &[(Pattern, u64, u32, u32)]) -> Vec<TestSpec> {
    [Op::Read, Op::Write]
        .into_iter()
        .flat_map(|op| {
            rows.iter().map(move |&(pattern, block, depth, threads)| {
                TestSpec::new(pattern, block, depth, op).on_threads(threads)
            })
        })
        .collect()
}

/// CrystalDiskMark 8's "NVMe SSD" preset, with the standard table's loops.
pub fn nvme() -> Defaults {
    Defaults {
        tests: table(&[
            (Pattern::Sequential, 1 << 20, 8, 1),
            (Pattern::Sequential, 128 << 10, 32, 1),
            (Pattern::Random, 4096, 32, 16),
            (Pattern::Random, 4096, 1, 1),
        ]),
        ..standard()
    }
}

pub fn standard() -> Defaults {
    Defaults {
        tests: table_tests(),
        file_size: FileSize::Fixed(1 << 30),
        loops: 3,
        duration: Duration::from_secs(2),
        warmup: Duration::from_secs(1),
        fill: true,
        cut_fill: true,
    }
}

pub fn quick() -> Defaults {
    Defaults {
        tests: table_tests(),
        file_size: FileSize::Fixed(64 << 20),
        loops: 1,
        duration: Duration::from_millis(500),
        warmup: Duration::from_millis(100),
        fill: true,
        cut_fill: true,
    }
}

/// The langs profile's file: the largest the device's rate is measured on.
pub const LANGS_FILE: u64 = 256 << 20;

/// The device's own sequential rate, measured beside `iomark langs`: SEQ1M Q8T1 read and write,
/// three 1 s loops after a 0.5 s warm-up, on a file of up to 256 MiB (the caller sizes it).
pub fn langs() -> Defaults {
    Defaults {
        tests: vec![
            TestSpec::new(Pattern::Sequential, 1 << 20, 8, Op::Read),
            TestSpec::new(Pattern::Sequential, 1 << 20, 8, Op::Write),
        ],
        file_size: FileSize::Fixed(LANGS_FILE),
        loops: 3,
        duration: Duration::from_secs(1),
        warmup: Duration::from_millis(500),
        fill: true,
        cut_fill: true,
    }
}
