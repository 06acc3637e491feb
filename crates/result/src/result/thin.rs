//! What a public site keeps of a result: at most [`SITE_KEEPS`] bytes. A result of a long
//! test is mostly its timeline (the pi profile's hour-long write is a sample a second: 3,600
//! of them, over 128 kB with their temperatures, as the tests below make it), and a surface
//! scan's mostly its readings; a site merges the timelines into fewer,
//! longer samples and keeps an even share of the scan's readings until the result fits, and
//! says so in a `thinned` warning. Every figure, loop and percentile stays as measured; a
//! result that does not fit even so is refused.

use super::score::Score;
use super::timeline::sample_lengths;
use super::warning::{Warning, WarningKind};
use super::{ResultDoc, TimelineSample};

/// The most bytes of compact JSON a public site stores of one result (issue 44: documents
/// of 754 kB were stored as sent, 30 a minute from one address, and dumped to everyone).
pub const SITE_KEEPS: usize = 64_000;
/// The fewest samples a site thins a timeline, or each of a surface scan's lists, to.
pub const FEWEST: usize = 50;

impl ResultDoc {
    /// Thins the document to what a site keeps (see the module): `Ok(true)` when it took
    /// anything out, `Err` with one line saying why when even the fewest samples do not fit.
    /// The same document always thins the same way.
    pub fn thin_for_site(&mut self) -> Result<bool, String> {
        let size = |doc: &ResultDoc| serde_json::to_vec(doc).map_or(usize::MAX, |v| v.len());
        if size(self) <= SITE_KEEPS {
            return Ok(false);
        }
        let before = Lengths::of(self);
        let mut cap = before.longest();
        while cap > FEWEST {
            cap = cap.div_ceil(2).max(FEWEST);
            for test in &mut self.tests {
                if test.timeline.len() > cap {
                    test.timeline = merged(&test.timeline, cap);
                }
            }
            if let Some(Score::Surface(surface)) = &mut self.score {
                let surface = &mut surface.surface;
                if surface.access.len() > cap {
                    surface.access = every_kth(&surface.access, cap);
                }
                if surface.samples.len() > cap {
                    surface.samples = every_kth(&surface.samples, cap);
                }
            }
            self.say_thinned(&before, &Lengths::of(self));
            if size(self) <= SITE_KEEPS {
                return Ok(true);
            }
        }
        Err(format!(
            "the result is {} kB as compact JSON even with each timeline merged into {FEWEST} \
             samples; a site keeps at most {} kB of one result (send fewer tests or loops)",
            size(self).div_ceil(1000),
            SITE_KEEPS / 1000
        ))
    }

    /// Puts the `thinned` warning, saying what was taken out, in place of any before it (a
    /// document thinned once and sent again says what its sender measured, not twice).
    fn say_thinned(&mut self, before: &Lengths, after: &Lengths) {
        let mut parts = Vec::new();
        if after.timeline < before.timeline {
            parts.push(format!(
                "merged each timeline into at most {} samples (each the mean of the ones it \
                 joins; the longest had {})",
                after.timeline, before.timeline
            ));
        }
        if after.access < before.access {
            parts.push(format!(
                "kept {} of the surface scan's {} access times",
                after.access, before.access
            ));
        }
        if after.samples < before.samples {
            parts.push(format!(
                "kept {} of its {} rate samples, evenly spread",
                after.samples, before.samples
            ));
        }
        let kind = WarningKind::Thinned.as_str();
        self.warnings.retain(|w| w.kind != kind);
        self.warnings.push(Warning::new(
            WarningKind::Thinned,
            format!(
                "A site keeps at most {} kB of a result: it {}. Every figure is as measured.",
                SITE_KEEPS / 1000,
                parts.join("; ")
            ),
        ));
    }
}

/// The longest timeline, and a surface scan's lists, of a document.
struct Lengths {
    timeline: usize,
    access: usize,
    samples: usize,
}

impl Lengths {
    fn of(doc: &ResultDoc) -> Lengths {
        let (access, samples) = match &doc.score {
            Some(Score::Surface(s)) => (s.surface.access.len(), s.surface.samples.len()),
            _ => (0, 0),
        };
        Lengths {
            timeline: doc
                .tests
                .iter()
                .map(|t| t.timeline.len())
                .max()
                .unwrap_or(0),
            access,
            samples,
        }
    }

    fn longest(&self) -> usize {
        self.timeline.max(self.access).max(self.samples)
    }
}

/// `timeline` in at most `cap` samples: runs of `k` neighbours, each merged into one that
/// begins where the run begins, at the run's mean rate weighted by how long each lasts, and
/// at its hottest temperature; a short last run (under half of `k`) joins the one before, so
/// that no sample is much shorter than the rest.
fn merged(timeline: &[TimelineSample], cap: usize) -> Vec<TimelineSample> {
    let k = timeline.len().div_ceil(cap.max(1));
    let lengths = sample_lengths(timeline);
    let mut runs: Vec<std::ops::Range<usize>> = (0..timeline.len())
        .step_by(k)
        .map(|start| start..(start + k).min(timeline.len()))
        .collect();
    if runs.len() > 1 && runs[runs.len() - 1].len() * 2 < k {
        let last = runs.pop().unwrap_or_default();
        if let Some(before) = runs.last_mut() {
            before.end = last.end;
        }
    }
    runs.into_iter()
        .map(|run| {
            let seconds: f64 = lengths[run.clone()].iter().sum();
            let megabytes: f64 = timeline[run.clone()]
                .iter()
                .zip(&lengths[run.clone()])
                .map(|(s, length)| s.mb_per_s * length)
                .sum();
            let samples = &timeline[run.clone()];
            TimelineSample {
                extra: Default::default(),
                t: samples[0].t,
                mb_per_s: if seconds > 0.0 {
                    megabytes / seconds
                } else {
                    samples.iter().map(|s| s.mb_per_s).sum::<f64>() / samples.len() as f64
                },
                temp_c: samples.iter().filter_map(|s| s.temp_c).reduce(f64::max),
            }
        })
        .collect()
}

/// At most `cap` of `items`, evenly spread: every `k`th from the first. Readings at single
/// positions are kept as read, never averaged into readings nobody took.
fn every_kth<T: Clone>(items: &[T], cap: usize) -> Vec<T> {
    let k = items.len().div_ceil(cap.max(1));
    items.iter().step_by(k).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::sample;

    fn long(doc: &mut ResultDoc, seconds: usize) {
        let rates: Vec<f64> = (0..seconds)
            .map(|i| {
                if i < seconds / 3 {
                    90.123456789
                } else {
                    12.3456789
                }
            })
            .collect();
        doc.tests[0].timeline = sample::timeline(&rates);
        for (i, s) in doc.tests[0].timeline.iter_mut().enumerate() {
            s.temp_c = Some(40.0 + (i % 17) as f64);
        }
    }

    fn size(doc: &ResultDoc) -> usize {
        json(doc).len()
    }

    fn json(doc: &ResultDoc) -> String {
        serde_json::to_string(doc).unwrap()
    }

    #[test]
    fn a_small_result_is_kept_as_sent() {
        let mut doc = sample::doc();
        let sent = json(&doc);
        assert_eq!(doc.thin_for_site(), Ok(false));
        assert_eq!(json(&doc), sent);
    }

    #[test]
    fn an_hour_long_timeline_is_merged_until_the_result_fits() {
        let mut doc = sample::doc();
        long(&mut doc, 3600);
        let figures: Vec<f64> = doc.tests.iter().map(|t| t.mb_per_s).collect();
        let loops = doc.tests[0].loops.clone();
        assert!(size(&doc) > 2 * SITE_KEEPS, "{}", size(&doc));
        assert_eq!(doc.thin_for_site(), Ok(true));
        assert!(size(&doc) <= SITE_KEEPS, "{}", size(&doc));
        let timeline = &doc.tests[0].timeline;
        // Halved until it fits: 3,600 → 1,800 → 900.
        assert!(timeline.len() <= 1800, "{}", timeline.len());
        // The mean over the hour is the mean of what was sent, and each sample's rate and
        // hottest temperature are those of the seconds it joins.
        let mean = |t: &[TimelineSample]| {
            let lengths = sample_lengths(t);
            t.iter()
                .zip(&lengths)
                .map(|(s, l)| s.mb_per_s * l)
                .sum::<f64>()
                / lengths.iter().sum::<f64>()
        };
        let sent = sample::timeline(
            &(0..3600)
                .map(|i| if i < 1200 { 90.123456789 } else { 12.3456789 })
                .collect::<Vec<_>>(),
        );
        assert!((mean(timeline) - mean(&sent)).abs() < 1e-9);
        assert_eq!(timeline[0].t, 0.0);
        assert_eq!(timeline[1].t, 4.0);
        assert_eq!(timeline[0].temp_c, Some(43.0));
        assert!((timeline.last().unwrap().mb_per_s - 12.3456789).abs() < 1e-9);
        // Nothing else changed, and the warning says what was.
        assert_eq!(
            doc.tests.iter().map(|t| t.mb_per_s).collect::<Vec<_>>(),
            figures
        );
        assert_eq!(doc.tests[0].loops, loops);
        let said: Vec<&Warning> = doc
            .warnings
            .iter()
            .filter(|w| w.kind == "thinned")
            .collect();
        assert_eq!(said.len(), 1);
        assert!(
            said[0].message.contains("at most 900 samples")
                && said[0].message.contains("the longest had 3600"),
            "{}",
            said[0].message
        );
        // Thinned again, as when downloaded and sent to a site once more: it fits, unchanged.
        let kept = json(&doc);
        assert_eq!(doc.thin_for_site(), Ok(false));
        assert_eq!(json(&doc), kept);
    }

    #[test]
    fn a_short_last_run_joins_the_one_before() {
        let timeline = sample::timeline(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        let merged = merged(&timeline, 2);
        // Runs of 4: [1..4] and [5..7] (3 is not under half of 4).
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[1].t, timeline[4].t);
        let merged = merged_by(&timeline, 3);
        // Runs of 3: [1..3], [4..6], then 7 alone joins [4..6].
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[1].mb_per_s, 5.5);
    }

    fn merged_by(timeline: &[TimelineSample], k: usize) -> Vec<TimelineSample> {
        merged(timeline, timeline.len().div_ceil(k))
    }

    #[test]
    fn a_surface_scan_keeps_an_even_share_of_its_readings() {
        let mut doc = sample::surface_doc(4000, 400);
        assert!(size(&doc) > SITE_KEEPS, "{}", size(&doc));
        assert_eq!(doc.thin_for_site(), Ok(true));
        assert!(size(&doc) <= SITE_KEEPS, "{}", size(&doc));
        let Some(Score::Surface(s)) = &doc.score else {
            panic!("no surface score");
        };
        assert_eq!(s.surface.access[0].position, 0.0);
        assert!(s.surface.access.len() < 4000 && s.surface.access.len() >= FEWEST);
        let message = &doc.warnings.last().unwrap().message;
        assert!(
            message.contains("of the surface scan's 4000 access times"),
            "{message}"
        );
    }

    #[test]
    fn what_does_not_fit_even_thinned_is_refused_in_one_line() {
        let mut doc = sample::doc();
        let test = doc.tests[0].clone();
        doc.tests = vec![test; 64];
        for t in &mut doc.tests {
            t.loops = vec![t.loops[0].clone(); 20];
        }
        let error = doc.thin_for_site().unwrap_err();
        assert!(
            error.contains("a site keeps at most 64 kB") && !error.contains('\n'),
            "{error}"
        );
    }
}
