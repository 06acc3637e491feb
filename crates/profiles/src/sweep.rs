//! The sweep profile: sequential reads and writes at queue depth 1 for block sizes from 4 KiB to
//! 16 MiB (the dd block-size experiment), and where throughput stops growing with block size.

use std::time::Duration;

use crate::says::{Headline, Marks, Says};
use crate::spec::{Defaults, FileSize, TestSpec};
use crate::spec::{Op, Pattern};
use iomark_result::result::score::{Saturation, SweepDirections, SweepScore};
use iomark_result::result::ResultDoc;
use iomark_result::result::TestResult;
use iomark_result::units::format_size;
use std::fmt::Write as _;

pub const BLOCK_SIZES: [u64; 7] = [
    4 << 10,
    16 << 10,
    64 << 10,
    256 << 10,
    1 << 20,
    4 << 20,
    16 << 20,
];

/// A block size reaches saturation when its MB/s is within this share of the best.
pub const SATURATED: f64 = 0.9;

pub fn sweep() -> Defaults {
    let tests = [Op::Read, Op::Write]
        .into_iter()
        .flat_map(|op| BLOCK_SIZES.map(|block| TestSpec::new(Pattern::Sequential, block, 1, op)))
        .collect();
    Defaults {
        tests,
        file_size: FileSize::Fixed(256 << 20),
        loops: 1,
        duration: Duration::from_secs(1),
        warmup: Duration::from_millis(200),
        fill: true,
        cut_fill: true,
    }
}

/// Per direction: the best MB/s, and the smallest block size within 90% of it.
pub fn score(tests: &[TestResult]) -> SweepScore {
    let saturation = |op: &str| {
        let mut runs: Vec<&TestResult> = tests.iter().filter(|t| t.op == op).collect();
        if runs.is_empty() {
            return None;
        }
        runs.sort_by_key(|t| t.block_size);
        let best = runs.iter().map(|t| t.mb_per_s).fold(0.0, f64::max);
        Some(Saturation {
            extra: Default::default(),
            max_mb_per_s: best,
            saturated_at_block_size: runs
                .iter()
                .find(|t| t.mb_per_s >= SATURATED * best)
                .map(|t| t.block_size),
        })
    };
    SweepScore {
        extra: Default::default(),
        sweep: SweepDirections {
            extra: Default::default(),
            read: saturation("read"),
            write: saturation("write"),
        },
    }
}

impl Says for SweepScore {
    fn headline(&self, _doc: &ResultDoc) -> Option<Headline> {
        let mut short = Vec::new();
        let mut words = Vec::new();
        for (op, entry) in [("read", &self.sweep.read), ("write", &self.sweep.write)] {
            let Some(block) = entry.as_ref().and_then(|e| e.saturated_at_block_size) else {
                continue;
            };
            short.push(format!(
                "{} {}",
                &op[..1].to_uppercase(),
                format_size(block)
            ));
            words.push(format!("{op}s at {} blocks", format_size(block)));
        }
        (!short.is_empty()).then(|| Headline {
            short: format!("saturates {}", short.join(", ")),
            sentence: format!(
                "Sequential {} come within 90% of their best: larger blocks gain little.",
                words.join(" and ")
            ),
        })
    }

    fn details(&self, doc: &ResultDoc, style: &dyn Marks) -> String {
        let mut out = String::new();
        for (op, entry) in [("read", &self.sweep.read), ("write", &self.sweep.write)] {
            let Some(entry) = entry else { continue };
            let Some(block) = entry.saturated_at_block_size else {
                continue;
            };
            // The rate at the saturating size, and the best and where it was: the sentence
            // once quoted the 4 MiB best as the 1 MiB figure.
            let of_op = || doc.tests.iter().filter(|t| t.op == op);
            let at = of_op().find(|t| t.block_size == block);
            let best = of_op().max_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s));
            let line = match (at, best) {
                (Some(at), Some(best)) if best.block_size != block => format!(
                    "{} saturates at {} blocks: {:.1} MB/s there, within 90% of its best, {:.1} MB/s at {}",
                    style.bold(&format!("Sequential {op}")),
                    format_size(block),
                    at.mb_per_s,
                    best.mb_per_s,
                    format_size(best.block_size)
                ),
                (Some(at), _) => format!(
                    "{} saturates at {} blocks, its best: {:.1} MB/s",
                    style.bold(&format!("Sequential {op}")),
                    format_size(block),
                    at.mb_per_s
                ),
                _ => format!(
                    "{} saturates at {} blocks (within 90% of its best, {:.1} MB/s)",
                    style.bold(&format!("Sequential {op}")),
                    format_size(block),
                    entry.max_mb_per_s
                ),
            };
            let _ = writeln!(out, "{line}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iomark_result::result::sample;

    fn result(op: &str, block_size: u64, mb_per_s: f64) -> TestResult {
        let iops = mb_per_s * 1e6 / block_size as f64;
        sample::result(&format!("SEQ_{op}"), op, block_size, mb_per_s, iops)
    }

    #[test]
    fn saturation_is_the_smallest_block_near_the_best() {
        let tests = [
            result("read", 4096, 40.0),
            result("read", 65536, 180.0),
            result("read", 1 << 20, 195.0),
            result("read", 16 << 20, 200.0),
            result("write", 4096, 10.0),
            result("write", 1 << 20, 90.0),
        ];
        let score = score(&tests).sweep;
        let read = score.read.unwrap();
        assert_eq!(read.saturated_at_block_size, Some(65536));
        assert_eq!(read.max_mb_per_s, 200.0);
        assert_eq!(score.write.unwrap().saturated_at_block_size, Some(1 << 20));
    }

    #[test]
    fn sweep_names_its_rows_by_block_size() {
        let names: Vec<String> = sweep().tests.iter().map(TestSpec::name).collect();
        assert_eq!(names.first().unwrap(), "SEQ4K_Q1T1_read");
        assert_eq!(names.last().unwrap(), "SEQ16M_Q1T1_write");
        assert_eq!(names.len(), 14);
    }
}
