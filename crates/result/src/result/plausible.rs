//! What a public results site refuses beyond what `import` refuses. Anyone can send a site a
//! document, so a document it ranks must describe a measurement iomark could have made: real
//! (never marked synthetic: that mark is the local load generator's), of the size real
//! profiles make, with block sizes, queue depths and threads that match its tests' names,
//! figures that some storage interface can carry, a price people pay, a time not ahead of the
//! site's clock, and a label without invisible formatting. Figures beyond the document's own
//! link are not refused but kept out of rankings (`identity::rank_flag`).

use std::time::{Duration, SystemTime};

use super::time::rfc3339;
use super::ResultDoc;

/// The most tests a site takes in one result: the sweep, the largest profile, has 14.
pub const MAX_TESTS: usize = 64;
/// No storage interface carries more: PCIe 6.0 x16 is about 121,000 MB/s.
pub const MAX_MB_PER_S: f64 = 128_000.0;
/// The prices, in US dollars, a storage device is sold at.
pub const PRICE_USD: (f64, f64) = (0.5, 100_000.0);
/// How far a result's start may be ahead of the site's clock (clocks drift).
pub const AHEAD: Duration = Duration::from_secs(600);
/// The most samples a test's timeline may hold on a site: the longest any profile writes is
/// the pi profile's one-hour bound, a sample a second (3,600).
pub const MAX_TIMELINE: usize = 4_000;
/// The most loops a test may have (`--loops` takes at most 1,000).
pub const MAX_LOOPS: usize = 1_000;
/// The most bytes, as compact JSON, of fields this version does not know that a site keeps
/// in a document (what a newer iomark added): issue 44 saw an array of 150,000 unknown
/// elements, with 20,000 timeline samples, accepted, stored and dumped to everyone, 30 a
/// minute from one address. The body itself is at most 1 MiB (the site's own limit).
pub const MAX_UNKNOWN: usize = 16 << 10;

impl ResultDoc {
    /// Whether a public site may keep this (already checked) document; if not, one line
    /// saying why, naming the field.
    pub fn check_public(&self) -> Result<(), String> {
        if self.is_synthetic() {
            return Err(
                "synthetic: results marked synthetic come only from iomark's own load \
                        generator; a site takes measured results"
                    .into(),
            );
        }
        if self.health.is_some() {
            // A lone check would be counted as a result of the card with nothing to rank: a
            // card's checks are shared as its life, under its key (`POST /api/v1/card-health`,
            // which `iomark health --share` sends to).
            return Err(
                "a health check is not a run: a site takes a card's checks at                  /api/v1/card-health (`iomark health PATH --share URL` sends them there)"
                    .into(),
            );
        }
        if self.tests.len() > MAX_TESTS {
            return Err(format!(
                "the document has {} tests; a site takes at most {MAX_TESTS} (iomark's largest \
                 profile makes 14)",
                self.tests.len()
            ));
        }
        for t in &self.tests {
            if t.timeline.len() > MAX_TIMELINE || t.loops.len() > MAX_LOOPS {
                return Err(format!(
                    "test {}: {} timeline samples and {} loops; a site takes at most \
                     {MAX_TIMELINE} and {MAX_LOOPS}",
                    t.name,
                    t.timeline.len(),
                    t.loops.len()
                ));
            }
            if let Some((block, depth, threads)) = shape(&t.name) {
                if (t.block_size, t.queue_depth, t.threads) != (block, depth, threads) {
                    return Err(format!(
                        "test {}: block_size {}, queue_depth {} and threads {} do not match its \
                         name ({block}, {depth}, {threads})",
                        t.name, t.block_size, t.queue_depth, t.threads
                    ));
                }
            }
            if t.mb_per_s > MAX_MB_PER_S {
                return Err(format!(
                    "test {}: {:.0} MB/s is beyond any storage interface (PCIe 6.0 x16 carries \
                     about {MAX_MB_PER_S:.0})",
                    t.name, t.mb_per_s
                ));
            }
        }
        if let Some(price) = self.price_usd {
            if !(PRICE_USD.0..=PRICE_USD.1).contains(&price) {
                return Err(format!(
                    "price_usd: {price} is not what a storage device sells for (${} to ${})",
                    PRICE_USD.0, PRICE_USD.1
                ));
            }
        }
        let started = rfc3339("started_at", &self.started_at).map_err(|e| e.to_string())?;
        if let Ok(ahead) = started.duration_since(SystemTime::now()) {
            if ahead > AHEAD {
                return Err(format!(
                    "started_at {} is {} min ahead of this site's clock: set the clock of the \
                     machine that ran it",
                    self.started_at,
                    ahead.as_secs() / 60
                ));
            }
        }
        let unknown = self.unknown_bytes();
        if unknown > MAX_UNKNOWN {
            return Err(format!(
                "the document holds {} KiB of fields this site does not know (as compact \
                 JSON); it keeps at most {} KiB of them",
                unknown.div_ceil(1024),
                MAX_UNKNOWN >> 10
            ));
        }
        if let Some(label) = &self.label {
            if label.chars().any(super::identity::is_invisible) {
                return Err(
                    "label: holds invisible formatting characters (bidirectional \
                            overrides, zero-width spaces)"
                        .into(),
                );
            }
        }
        Ok(())
    }
}

impl ResultDoc {
    /// How many bytes of compact JSON the fields this version does not know take, in the
    /// document and its settings, host, target, device, tests, loops and timelines.
    fn unknown_bytes(&self) -> usize {
        let size = |extra: &super::Extra| {
            if extra.is_empty() {
                0
            } else {
                serde_json::to_vec(extra).map_or(usize::MAX, |json| json.len())
            }
        };
        let device = self.target.device.as_ref().map_or(0, |d| size(&d.extra));
        let tests: usize = self
            .tests
            .iter()
            .map(|t| {
                size(&t.extra)
                    + t.loops.iter().map(|l| size(&l.extra)).sum::<usize>()
                    + t.timeline.iter().map(|s| size(&s.extra)).sum::<usize>()
            })
            .sum();
        [
            size(&self.extra),
            size(&self.settings.extra),
            size(&self.host.extra),
            size(&self.target.extra),
            device,
            tests,
        ]
        .into_iter()
        .fold(0usize, usize::saturating_add)
    }
}

/// The block size, queue depth and threads a test's name states: `SEQ1M_Q8T1_read` is
/// 1 MiB, 8, 1; `RND4K_Q32T1_write` 4 KiB, 32, 1; `IOZRND4K_Q1T1_read` 4 KiB, 1, 1. None for
/// a name of another shape.
pub fn shape(name: &str) -> Option<(u64, u32, u32)> {
    let mut parts = name.split('_');
    let size = parts
        .next()?
        .trim_start_matches(|c: char| c.is_ascii_uppercase());
    let queue = parts.next()?.strip_prefix('Q')?;
    let (unit, digits) = match size.strip_suffix('K') {
        Some(d) => (1u64 << 10, d),
        None => (1u64 << 20, size.strip_suffix('M')?),
    };
    let block = digits.parse::<u64>().ok()?.checked_mul(unit)?;
    let (depth, threads) = queue.split_once('T')?;
    Some((block, depth.parse().ok()?, threads.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::sample;

    #[test]
    fn names_state_their_shape() {
        assert_eq!(shape("SEQ1M_Q8T1_read"), Some((1 << 20, 8, 1)));
        assert_eq!(shape("RND4K_Q32T1_write"), Some((4096, 32, 1)));
        assert_eq!(shape("SEQ128K_Q32T1_read"), Some((128 << 10, 32, 1)));
        assert_eq!(shape("IOZRND4K_Q1T1_read"), Some((4096, 1, 1)));
        assert_eq!(shape("DD4K_Q1T1_write"), Some((4096, 1, 1)));
        assert_eq!(shape("whatever"), None);
        assert_eq!(shape("SEQ99999999999999999M_Q1T1_read"), None);
    }

    #[test]
    fn a_site_refuses_what_no_measurement_makes() {
        let good = sample::doc();
        assert_eq!(good.check_public(), Ok(()));
        let refused = |change: &dyn Fn(&mut ResultDoc), why: &str| {
            let mut doc = sample::doc();
            change(&mut doc);
            let error = doc.check_public().unwrap_err();
            assert!(error.contains(why), "{why}: {error}");
        };
        refused(
            &|d| {
                d.extra.insert("synthetic".into(), true.into());
            },
            "synthetic",
        );
        refused(
            &|d| {
                let t = d
                    .tests
                    .iter_mut()
                    .find(|t| t.name.starts_with("RND"))
                    .unwrap();
                t.block_size = 1;
                t.iops *= 4096.0;
            },
            "do not match its name",
        );
        refused(
            &|d| {
                let t = &mut d.tests[0];
                t.mb_per_s = 990_000.0;
                t.iops = t.mb_per_s * 1e6 / t.block_size as f64;
            },
            "beyond any storage interface",
        );
        refused(&|d| d.price_usd = Some(1e-300), "price_usd");
        refused(&|d| d.price_usd = Some(250_000.0), "price_usd");
        refused(
            &|d| {
                let ahead = SystemTime::now() + Duration::from_secs(23 * 3600);
                d.started_at = humantime::format_rfc3339_seconds(ahead).to_string();
                d.finished_at = d.started_at.clone();
            },
            "ahead of this site's clock",
        );
        refused(
            &|d| d.label = Some("evil\u{202e}gnp.exe".into()),
            "invisible",
        );
        refused(
            &|d| {
                let t = d.tests[0].clone();
                d.tests = (0..65)
                    .map(|i| {
                        let mut t = t.clone();
                        t.name = format!("X{i}");
                        t
                    })
                    .collect();
            },
            "at most 64",
        );
    }

    /// Issue 44: 754 KB documents (20,000 timeline samples, an unknown array of 150,000
    /// elements) were stored as sent and dumped to everyone.
    #[test]
    fn a_site_keeps_documents_of_the_size_iomark_makes() {
        let doc = sample::doc();
        assert!(doc.check_public().is_ok());
        let mut long = doc.clone();
        long.tests[0].timeline = sample::timeline(&vec![100.0; MAX_TIMELINE + 1]);
        let e = long.check_public().unwrap_err();
        assert!(e.contains("timeline samples") && e.contains("4000"), "{e}");
        let mut padded = doc.clone();
        padded
            .extra
            .insert("unknown".into(), serde_json::json!(vec![0u8; 150_000]));
        let e = padded.check_public().unwrap_err();
        assert!(e.contains("fields this site does not know"), "{e}");
        // A field this version does not know, of a size a newer iomark might add, is kept.
        let mut newer = doc;
        newer
            .extra
            .insert("new_field".into(), serde_json::json!("a few words"));
        assert!(newer.check_public().is_ok());
    }
}
