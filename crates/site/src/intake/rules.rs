//! What a public results site refuses beyond what `import` refuses, the intake's first rule.
//! Anyone can send a site a document, so a document it ranks must describe a measurement iomark could have made: real
//! (never marked synthetic: that mark is the local load generator's), of the size real
//! profiles make, with block sizes, queue depths and threads that match its tests' names,
//! figures that some storage interface can carry, a price people pay, a time not ahead of the
//! site's clock, and a label without invisible formatting. Figures beyond the document's own
//! link are not refused but kept out of rankings (`identity::rank_flag`).

use std::time::{Duration, SystemTime};

use iomark_result::result::time::rfc3339;
use iomark_result::result::{shape, ResultDoc};

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

/// Whether a public site may keep this (already checked) document; if not, one line saying
/// why, naming the field.
pub fn check_public(doc: &ResultDoc) -> Result<(), String> {
    if doc.is_synthetic() {
        return Err(
            "synthetic: results marked synthetic come only from iomark's own load \
                    generator; a site takes measured results"
                .into(),
        );
    }
    if doc.health.is_some() {
        // A lone check would be counted as a result of the card with nothing to rank: a
        // card's checks are shared as its life, under its key (`POST /api/v1/card-health`,
        // which `iomark health --share` sends to).
        return Err(
            "a health check is not a run: a site takes a card's checks at                  /api/v1/card-health (`iomark health PATH --share URL` sends them there)"
                .into(),
        );
    }
    if doc.tests.len() > MAX_TESTS {
        return Err(format!(
            "the document has {} tests; a site takes at most {MAX_TESTS} (iomark's largest \
             profile makes 14)",
            doc.tests.len()
        ));
    }
    for t in &doc.tests {
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
    if let Some(price) = doc.price_usd {
        if !(PRICE_USD.0..=PRICE_USD.1).contains(&price) {
            // 1e-300 written out is 300 zeros.
            let said = match (0.01..1e9).contains(&price.abs()) {
                true => price.to_string(),
                false => format!("{price:e}"),
            };
            return Err(format!(
                "price_usd: {said} is not what a storage device sells for (${} to ${})",
                PRICE_USD.0, PRICE_USD.1
            ));
        }
    }
    let started = rfc3339("started_at", &doc.started_at).map_err(|e| e.to_string())?;
    if let Ok(ahead) = started.duration_since(SystemTime::now()) {
        if ahead > AHEAD {
            return Err(format!(
                "started_at {} is {} min ahead of this site's clock: set the clock of the \
                 machine that ran it",
                doc.started_at,
                ahead.as_secs() / 60
            ));
        }
    }
    if let Some(label) = &doc.label {
        if label
            .chars()
            .any(iomark_result::result::identity::is_invisible)
        {
            return Err(
                "label: holds invisible formatting characters (bidirectional \
                        overrides, zero-width spaces)"
                    .into(),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use iomark_result::result::sample;
    use std::time::{Duration, SystemTime};

    #[test]
    fn a_site_refuses_what_no_measurement_makes() {
        let good = sample::doc();
        assert_eq!(check_public(&good), Ok(()));
        let refused = |change: &dyn Fn(&mut ResultDoc), why: &str| {
            let mut doc = sample::doc();
            change(&mut doc);
            let error = check_public(&doc).unwrap_err();
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
        refused(&|d| d.price_usd = Some(1e-300), "price_usd: 1e-300 is not");
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
    /// elements) were stored as sent and dumped to everyone (the intake drops unknown fields).
    #[test]
    fn a_site_keeps_documents_of_the_size_iomark_makes() {
        let doc = sample::doc();
        assert!(check_public(&doc).is_ok());
        let mut long = doc.clone();
        long.tests[0].timeline = sample::timeline(&vec![100.0; MAX_TIMELINE + 1]);
        let e = check_public(&long).unwrap_err();
        assert!(e.contains("timeline samples") && e.contains("4000"), "{e}");
    }
}
