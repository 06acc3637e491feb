//! What a run adds below the table: the latency profile's distribution, then its profile's
//! own lines from the typed score (the sustained write's cliff, the SD class verdicts, the
//! PiBenchmarks score, the sweep's saturation point, the surface's rates), each said in its
//! profile's file. The terminal prints it marked (bold, dim, red); the HTML and Markdown
//! reports print it plain: one text, not a raw score in one place and words in another.

use crate::says::Marks;
use crate::says_of;
use iomark_result::result::ResultDoc;
use iomark_result::units::format_micros;
use std::fmt::Write as _;

/// The lines a report prints below the table: a counted test's latency distribution, then
/// what the run's profile says of its score.
pub fn details(doc: &ResultDoc, style: &dyn Marks) -> String {
    let mut out = String::new();
    // Counted tests (the latency profile) are there for their distribution.
    if doc.settings.count.is_some() {
        for t in &doc.tests {
            let l = &t.latency_us;
            let samples: u64 = t.loops.iter().map(|l| l.ios).sum();
            let _ = writeln!(
                out,
                "{} {samples} samples: min {}, mean {}, max {}, stddev {}; p50 {}, p90 {}, p99 {}, p99.9 {}",
                style.bold(&format!("{} latency:", t.name)),
                format_micros(l.min),
                format_micros(l.mean),
                format_micros(l.max),
                format_micros(l.stddev),
                format_micros(l.p50),
                format_micros(l.p90),
                format_micros(l.p99),
                format_micros(l.p99_9)
            );
        }
    }
    if let Some(says) = doc.score.as_ref().and_then(says_of) {
        out.push_str(&says.details(doc, style));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::says::Plain;
    use iomark_result::result::sample;
    use iomark_result::result::score::{Saturation, SweepDirections, SweepScore};
    use iomark_result::result::Score;

    #[test]
    fn the_sweep_quotes_the_rate_where_it_saturates_and_its_best_apart() {
        let mut doc = sample::doc();
        doc.tests = vec![
            sample::result("SEQ256K_Q1T1_read", "read", 256 << 10, 500.0, 2000.0),
            sample::result("SEQ1M_Q1T1_read", "read", 1 << 20, 882.8, 882.8),
            sample::result("SEQ4M_Q1T1_read", "read", 4 << 20, 950.0, 237.5),
        ];
        doc.score = Some(Score::Sweep(SweepScore {
            sweep: SweepDirections {
                read: Some(Saturation {
                    max_mb_per_s: 950.0,
                    saturated_at_block_size: Some(1 << 20),
                    extra: Default::default(),
                }),
                write: None,
                extra: Default::default(),
            },
            extra: Default::default(),
        }));
        let text = details(&doc, &Plain);
        assert!(
            text.contains("saturates at 1 MiB blocks: 882.8 MB/s there, within 90% of its best, 950.0 MB/s at 4 MiB"),
            "{text}"
        );
    }
}
