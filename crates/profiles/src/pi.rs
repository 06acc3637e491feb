//! The pi profile: the tests of PiBenchmarks' Storage.sh, run by iomark's own engine, and its
//! published score computed exactly.
//!
//! Storage.sh (2024) runs `dd if=/dev/zero bs=4k count=130k conv=fsync` (buffered 4 KiB writes
//! of zeros, fsync timed; dd's MB/s is 10^6 bytes/s), fio's 4 KiB random read and write at
//! iodepth 64 with libaio and direct I/O over an 80 MiB file (each once over the file, not
//! timed), and `iozone -e -I -s 80M -r 4k -i 0 -i 1 -i 2` (direct, flush timed; columns write,
//! read, random read, random write, in KB/s of 1024 bytes). Its score:
//!
//! ```text
//! int((dd_MBps*1024 + fio_randread_IOPS*4 + fio_randwrite_IOPS*10
//!      + iozone_read_KBps + iozone_write_KBps + iozone_randread_KBps*4 + iozone_randwrite_KBps*10) / 100)
//! ```
//!
//! These are equivalents: the same operations, sizes, queue depths and caching, issued by
//! iomark's engine (io_uring or psync in place of libaio; iozone's random pass touches each
//! block once, iomark's draws offsets uniformly). The score is comparable with pibenchmarks.com,
//! not identical to a run of the original tools.

use std::time::Duration;

use crate::says::{Headline, Marks, Says};
use crate::spec::{Data, Op, Pattern};
use crate::spec::{Defaults, FileSize, TestSpec};
use iomark_result::result::score::{PiParts, PiScore};
use iomark_result::result::ResultDoc;
use iomark_result::result::{TestResult, Warning, WarningKind};

const BLOCK: u64 = 4096;
/// dd's `count=130k` of 4 KiB blocks: 520 MiB, which is also the test file's size.
const DD_BLOCKS: u64 = 130 * 1024;
/// The test file: exactly what dd writes.
pub const FILE_SIZE: u64 = DD_BLOCKS * BLOCK;
/// fio's and iozone's file: 80 MiB, the first 80 MiB of the test file.
const SMALL_FILE: u64 = 80 << 20;

pub const DD: &str = "DD4K_Q1T1";
pub const FIO: &str = "FIO4K_Q64T1";
pub const IOZONE: &str = "IOZ4K_Q1T1";
pub const IOZONE_RANDOM: &str = "IOZRND4K_Q1T1";

fn small(pattern: Pattern, depth: u32, op: Op, label: &'static str) -> TestSpec {
    // Each step is one pass over its file, as the original tools make it.
    let mut spec = TestSpec::new(pattern, BLOCK, depth, op).once_over_file();
    spec.span = Some(SMALL_FILE);
    // As fio (libaio) and iozone wait: the score compares with theirs.
    spec.wait_each = true;
    spec.label = Some(label);
    spec
}

pub fn pi() -> Defaults {
    let mut dd = TestSpec::new(Pattern::Sequential, BLOCK, 1, Op::Write).once_over_file();
    dd.buffered = true;
    dd.data = Some(Data::Zero);
    dd.fsync = true;
    dd.label = Some(DD);
    let iozone_write = TestSpec {
        fsync: true,
        ..small(Pattern::Sequential, 1, Op::Write, IOZONE)
    };
    let iozone_random_write = TestSpec {
        fsync: true,
        ..small(Pattern::Random, 1, Op::Write, IOZONE_RANDOM)
    };
    Defaults {
        tests: vec![
            // dd first: it writes the whole file, so no separate fill is needed.
            dd,
            small(Pattern::Random, 64, Op::Write, FIO),
            small(Pattern::Random, 64, Op::Read, FIO),
            iozone_write,
            small(Pattern::Sequential, 1, Op::Read, IOZONE),
            small(Pattern::Random, 1, Op::Read, IOZONE_RANDOM),
            iozone_random_write,
        ],
        file_size: FileSize::Fixed(FILE_SIZE),
        loops: 1,
        // Every step is one pass over its file; this bound is for media slower than 150 KB/s.
        duration: Duration::from_secs(3600),
        warmup: Duration::ZERO,
        fill: false,
        cut_fill: false,
    }
}

/// The score and every input to it, so a user can check it by hand.
pub fn score(tests: &[TestResult]) -> PiScore {
    let find = |name: String| tests.iter().find(|t| t.name == name);
    let kb_per_s = |t: &TestResult| t.mb_per_s * 1e6 / 1024.0;
    let parts = PiParts {
        extra: Default::default(),
        dd_write_mb_per_s: find(format!("{DD}_write")).map(|t| t.mb_per_s),
        fio_randread_4k_iops: find(format!("{FIO}_read")).map(|t| t.iops),
        fio_randwrite_4k_iops: find(format!("{FIO}_write")).map(|t| t.iops),
        iozone_randread_4k_kb_per_s: find(format!("{IOZONE_RANDOM}_read")).map(kb_per_s),
        iozone_randwrite_4k_kb_per_s: find(format!("{IOZONE_RANDOM}_write")).map(kb_per_s),
        iozone_read_4k_kb_per_s: find(format!("{IOZONE}_read")).map(kb_per_s),
        iozone_write_4k_kb_per_s: find(format!("{IOZONE}_write")).map(kb_per_s),
    };
    let total = (|| {
        let sum = parts.dd_write_mb_per_s? * 1024.0
            + parts.fio_randread_4k_iops? * 4.0
            + parts.fio_randwrite_4k_iops? * 10.0
            + parts.iozone_read_4k_kb_per_s?
            + parts.iozone_write_4k_kb_per_s?
            + parts.iozone_randread_4k_kb_per_s? * 4.0
            + parts.iozone_randwrite_4k_kb_per_s? * 10.0;
        Some((sum / 100.0).floor() as u64)
    })();
    PiScore {
extra: Default::default(),
        equivalents: "iomark's engine ran equivalents of dd, fio and iozone (same operations, sizes, queue depths and caching), not the tools themselves".into(),
        formula: "int((dd_write_mb_per_s*1024 + fio_randread_4k_iops*4 + fio_randwrite_4k_iops*10 + iozone_read_4k_kb_per_s + iozone_write_4k_kb_per_s + iozone_randread_4k_kb_per_s*4 + iozone_randwrite_4k_kb_per_s*10) / 100)".into(),
        parts,
        total,
    }
}

/// The score is PiBenchmarks' only on its own file sizes.
pub fn verdicts(file_size: u64) -> Vec<Warning> {
    if file_size == FILE_SIZE {
        return Vec::new();
    }
    vec![Warning::new(
        WarningKind::PiScoreNotComparable,
        "--size changed the pi profile's file sizes: the score is not comparable with \
         pibenchmarks.com (run without --size for that)",
    )]
}

impl Says for PiScore {
    fn headline(&self, doc: &ResultDoc) -> Option<Headline> {
        let total = self.total?;
        let comparable = !doc.warned(WarningKind::PiScoreNotComparable);
        Some(Headline {
            short: format!("score {total}{}", if comparable { "" } else { "*" }),
            sentence: format!(
                "PiBenchmarks-compatible score {total}: higher is faster, and 4K random writes \
                 weigh most, as they decide how a Pi feels in use.{}",
                if comparable {
                    ""
                } else {
                    " Not comparable with pibenchmarks.com: --size changed its files."
                }
            ),
        })
    }

    fn details(&self, _doc: &ResultDoc, style: &dyn Marks) -> String {
        let part = |value: Option<f64>| value.map_or("?".to_string(), |v| format!("{v:.1}"));
        let p = &self.parts;
        format!(
            "{} {} = int(({} MB/s dd×1024 + {}×4 + {}×10 fio IOPS + {} + {} + {}×4 + {}×10 iozone KB/s) / 100)\n{}\n",
            style.bold("PiBenchmarks score:"),
            self.total.map_or("?".to_string(), |t| t.to_string()),
            part(p.dd_write_mb_per_s),
            part(p.fio_randread_4k_iops),
            part(p.fio_randwrite_4k_iops),
            part(p.iozone_read_4k_kb_per_s),
            part(p.iozone_write_4k_kb_per_s),
            part(p.iozone_randread_4k_kb_per_s),
            part(p.iozone_randwrite_4k_kb_per_s),
            style.dim("DD4K: dd bs=4k count=130k conv=fsync of zeros; FIO4K_Q64T1: fio 4k random, iodepth 64, 80 MiB; IOZ4K / IOZRND4K: iozone -e -I -s 80M -r 4k. Equivalents run by iomark's engine, not the tools themselves.")
        )
    }

    fn pacing(&self, _doc: &ResultDoc) -> Option<String> {
        Some("each step once over its file, as dd, fio and iozone do".to_string())
    }

    /// Its dd step is buffered, as dd is, whatever the others were.
    fn io_mode(&self, doc: &ResultDoc, mode: &str) -> Option<String> {
        doc.settings
            .direct
            .then(|| format!("{mode} (its dd step buffered, as dd is)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iomark_result::result::sample;

    fn result(name: &str, mb_per_s: f64, iops: f64) -> TestResult {
        sample::result(name, "read", BLOCK, mb_per_s, iops)
    }

    #[test]
    fn score_matches_a_hand_computation() {
        // The SanDisk Ultra microSD of pi-storage-2019.csv: dd 13.6 MB/s, iozone read 9558,
        // write 2324, random read 9247, random write 2686 KB/s; fio figures invented: 2100 and
        // 650 IOPS. By hand: 13.6*1024 = 13926.4; 2100*4 = 8400; 650*10 = 6500; 9558 + 2324;
        // 9247*4 = 36988; 2686*10 = 26860; sum 104556.4; /100 = 1045.564 -> 1045.
        let kb = |k: f64| k * 1024.0 / 1e6;
        let tests = [
            result("DD4K_Q1T1_write", 13.6, 0.0),
            result("FIO4K_Q64T1_read", 0.0, 2100.0),
            result("FIO4K_Q64T1_write", 0.0, 650.0),
            result("IOZ4K_Q1T1_read", kb(9558.0), 0.0),
            result("IOZ4K_Q1T1_write", kb(2324.0), 0.0),
            result("IOZRND4K_Q1T1_read", kb(9247.0), 0.0),
            result("IOZRND4K_Q1T1_write", kb(2686.0), 0.0),
        ];
        let score = score(&tests);
        assert_eq!(score.total, Some(1045));
        let read = score.parts.iozone_read_4k_kb_per_s.unwrap();
        assert!((read - 9558.0).abs() < 1e-6, "{read}");
        // A missing part leaves the total unknown rather than wrong.
        assert!(super::score(&tests[1..]).total.is_none());
    }

    #[test]
    fn profile_matches_storage_sh() {
        let p = pi();
        assert_eq!(p.file_size, FileSize::Fixed(130 * 1024 * 4096));
        let names: Vec<String> = p.tests.iter().map(TestSpec::name).collect();
        assert_eq!(
            names,
            [
                "DD4K_Q1T1_write",
                "FIO4K_Q64T1_write",
                "FIO4K_Q64T1_read",
                "IOZ4K_Q1T1_write",
                "IOZ4K_Q1T1_read",
                "IOZRND4K_Q1T1_read",
                "IOZRND4K_Q1T1_write"
            ]
        );
        let dd = &p.tests[0];
        assert!(
            dd.buffered
                && dd.fsync
                && dd.data == Some(Data::Zero)
                && dd.whole_file
                && dd.span.is_none()
        );
        for small in &p.tests[1..] {
            assert!(small.whole_file && !small.buffered);
            assert_eq!(small.span, Some(80 << 20));
        }
        assert_eq!(p.tests[1].queue_depth, 64);
    }
}
