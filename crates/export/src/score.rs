//! What a profile adds below the table, rendered from the typed score: the latency
//! distribution, the sustained write's cliff, the SD class verdicts, the PiBenchmarks score and
//! the sweep's saturation point. The terminal prints it marked (bold, dim, red); the HTML and
//! Markdown reports print it plain: one text, not a raw score in one place and words in another.

use iomark_result::result::score::{
    ClassFigures, PiScore, SdCardScore, Surface, SustainedFinding, SweepScore,
};
use iomark_result::result::{ResultDoc, Score};
use iomark_result::units::{format_micros, format_size};
use std::fmt::Write as _;

/// How the text is marked: a terminal's bold, dim and red, or nothing ([`Plain`]).
pub trait Marks {
    fn bold(&self, text: &str) -> String;
    fn dim(&self, text: &str) -> String;
    fn red(&self, text: &str) -> String;
}

/// Text as it is, for a report.
pub struct Plain;

impl Marks for Plain {
    fn bold(&self, text: &str) -> String {
        text.to_string()
    }
    fn dim(&self, text: &str) -> String {
        text.to_string()
    }
    fn red(&self, text: &str) -> String {
        text.to_string()
    }
}

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
    match &doc.score {
        Some(Score::Sustained(score)) => {
            if let Some(finding) = &score.sustained {
                sustained(&mut out, finding, style);
            }
        }
        Some(Score::SdCard(score)) => classes(&mut out, score, style),
        Some(Score::Pi(score)) => pi(&mut out, score, style),
        Some(Score::Sweep(score)) => sweep(&mut out, doc, score, style),
        Some(Score::Surface(score)) => surface(&mut out, &score.surface, style),
        Some(Score::Other(_)) | None => {}
    }
    out
}

fn sustained(out: &mut String, s: &SustainedFinding, style: &dyn Marks) {
    let verdict = match s.cliff_at_bytes {
        Some(at) => format!(
            "{:.1} MB/s for the first {}, then {:.1} MB/s (a write cache ran out)",
            s.before_mb_per_s,
            format_size(at),
            s.after_mb_per_s
        ),
        None => format!("{:.1} MB/s throughout, no cliff", s.before_mb_per_s),
    };
    let heat = s
        .max_temp_c
        .map(|c| format!("; peaking at {c:.0} °C"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{} {verdict}; {} written in {:.1} s{heat}{}",
        style.bold("Sustained write:"),
        format_size(s.written_bytes),
        s.seconds,
        if s.dips >= 3 {
            format!("; {} short dips (throttling? check temperature)", s.dips)
        } else {
            String::new()
        }
    );
}

fn classes(out: &mut String, score: &SdCardScore, style: &dyn Marks) {
    if let Some(what) = &score.not_a_card {
        let _ = writeln!(
            out,
            "{}",
            style.bold(&format!(
                "SD classes, for reference only: this is {what}, not an SD card, so no class is \
                 met or missed"
            ))
        );
    }
    let _ = writeln!(
        out,
        "{}",
        style.bold(&format!(
            "{:<6} {:<10} {:<32} {}",
            "Class", "verdict", "sustained write, 4K IOPS", "required"
        ))
    );
    let figures = |side: &ClassFigures| {
        let mut parts = vec![format!(
            "{:.1} MB/s",
            side.sequential_write_mb_per_s.unwrap_or(f64::NAN)
        )];
        if let (Some(r), Some(w)) = (side.random_read_iops_4k, side.random_write_iops_4k) {
            parts.push(format!("{r:.0}/{w:.0} IOPS"));
        }
        parts.join(", ")
    };
    for class in &score.classes {
        let verdict = match class.pass {
            Some(true) => "pass".to_string(),
            Some(false) => style.red("FAIL"),
            None if class.note.starts_with("can't tell") => "can't tell".to_string(),
            None => "–".to_string(),
        };
        let note = Some(class.note.as_str())
            .filter(|n| !n.is_empty())
            .map(|n| format!("  ({n})"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{:<6} {:<10} {:<32} {}{}",
            class.class,
            verdict,
            figures(&class.measured),
            figures(&class.required),
            style.dim(&note)
        );
    }
    claims(out, score, style);
    let _ = writeln!(
        out,
        "{}",
        style.dim(
            "sustained write: the rate after any cache cliff (the table's SEQ1M Q8T1 write is its \
             median loop); IOPS: 4 KiB random read/write at QD1"
        )
    );
}

/// The classes claimed for the card, met and missed, said as plainly either way.
fn claims(out: &mut String, score: &SdCardScore, style: &dyn Marks) {
    if score.claimed.is_empty() || score.not_a_card.is_some() {
        return;
    }
    let with = |pass: Option<bool>| -> Vec<&str> {
        score
            .claimed
            .iter()
            .filter(|name| {
                score
                    .classes
                    .iter()
                    .any(|c| &c.class == *name && c.pass == pass)
            })
            .map(String::as_str)
            .collect()
    };
    let (met, missed, untold) = (with(Some(true)), with(Some(false)), with(None));
    let mut parts = Vec::new();
    if !met.is_empty() {
        parts.push(format!("meets {}", met.join(" ")));
    }
    if !missed.is_empty() {
        parts.push(style.red(&format!("misses {}", missed.join(" "))));
    }
    if !untold.is_empty() {
        parts.push(format!("can't tell {}", untold.join(" ")));
    }
    let _ = writeln!(
        out,
        "{} {}: {}",
        style.bold("Claimed:"),
        score.claimed.join(" "),
        parts.join("; ")
    );
}

fn pi(out: &mut String, score: &PiScore, style: &dyn Marks) {
    let part = |value: Option<f64>| value.map_or("?".to_string(), |v| format!("{v:.1}"));
    let p = &score.parts;
    let _ = writeln!(
        out,
        "{} {} = int(({} MB/s dd×1024 + {}×4 + {}×10 fio IOPS + {} + {} + {}×4 + {}×10 iozone KB/s) / 100)",
        style.bold("PiBenchmarks score:"),
        score.total.map_or("?".to_string(), |t| t.to_string()),
        part(p.dd_write_mb_per_s),
        part(p.fio_randread_4k_iops),
        part(p.fio_randwrite_4k_iops),
        part(p.iozone_read_4k_kb_per_s),
        part(p.iozone_write_4k_kb_per_s),
        part(p.iozone_randread_4k_kb_per_s),
        part(p.iozone_randwrite_4k_kb_per_s),
    );
    let _ = writeln!(
        out,
        "{}",
        style.dim("DD4K: dd bs=4k count=130k conv=fsync of zeros; FIO4K_Q64T1: fio 4k random, iodepth 64, 80 MiB; IOZ4K / IOZRND4K: iozone -e -I -s 80M -r 4k. Equivalents run by iomark's engine, not the tools themselves.")
    );
}

fn surface(out: &mut String, s: &Surface, style: &dyn Marks) {
    let _ = writeln!(
        out,
        "{} {} reads of {} across the {}: min {:.1}, mean {:.1}, max {:.1} MB/s",
        style.bold("Surface read rate:"),
        s.samples.len(),
        format_size(s.sample_bytes),
        s.over,
        s.min_mb_per_s,
        s.mean_mb_per_s,
        s.max_mb_per_s
    );
    let _ = writeln!(
        out,
        "{} {} random 4 KiB reads: mean {:.2} ms",
        style.bold("Access time:"),
        s.access.len(),
        s.mean_access_ms
    );
}

fn sweep(out: &mut String, doc: &ResultDoc, score: &SweepScore, style: &dyn Marks) {
    for (op, entry) in [("read", &score.sweep.read), ("write", &score.sweep.write)] {
        let Some(entry) = entry else { continue };
        let Some(block) = entry.saturated_at_block_size else {
            continue;
        };
        // The rate at the saturating size, and the best and where it was: the sentence once
        // quoted the 4 MiB best as the 1 MiB figure.
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use iomark_result::result::sample;
    use iomark_result::result::score::{Saturation, SweepDirections};

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
