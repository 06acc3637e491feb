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
        if self.tests.len() > MAX_TESTS {
            return Err(format!(
                "the document has {} tests; a site takes at most {MAX_TESTS} (iomark's largest \
                 profile makes 14)",
                self.tests.len()
            ));
        }
        for t in &self.tests {
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
}
