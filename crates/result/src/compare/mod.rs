//! Runs side by side: each test's figure against the baseline's, with a verdict only where the
//! runs' loops show a difference beyond their spread by a stated test ([`METHOD`]).
//!
//! A loop is a sample of the device; the tenths of one loop's timeline are not (they follow
//! each other, and a cache or a flush spans many): an earlier verdict that took them as samples
//! called two identical quick runs 26% "slower" beside a 54% difference "within noise". The
//! tenths stay for the timeline.

use serde::{Deserialize, Serialize};

use crate::result::{ResultDoc, TestResult};

mod devices;
mod verdict;

pub use devices::{between_devices, Results, MIN_RESULTS};
use verdict::difference;
pub use verdict::{
    detectable, holm, p_value, verdict, RunSpread, ALPHA, MIN_EFFECT, MIN_HISTORY, MIN_LOOPS,
    RUN_SPREAD,
};

/// What the verdicts mean, once: the table's footnote, `--help`, the site and docs/GUIDE.md
/// say it in these words.
macro_rules! method {
    () => {
        "faster or slower: Welch's t-test on the runs' loops (their logarithms), each run's \
         level given the run-to-run spread of 3 or more earlier runs of the device with the \
         same method, else 15%, finds the difference at 1% over all the figures compared \
         (Holm's step-down), and it is 5% or more; within noise: it does not; can't tell: a \
         run has fewer than 3 loops (run both with --loops 3 or more); not compared: the runs \
         were measured differently."
    };
}

/// The verdicts' meaning, as a comparison's footnote gives it.
pub const METHOD: &str = method!();

/// `iomark compare --help`'s closing words.
pub const HELP: &str = concat!(
    "Each figure is compared with the baseline's, each loop of a run taken as one sample of \
     the device (the tenths of a loop's timeline are not samples: they follow each other). ",
    method!(),
    " Measured differently: another profile, file size, I/O, data, engine, polling or loop \
     length. Runs on the null engine measure iomark, not a device: their verdict is \
     \"no device\"."
);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Faster,
    Slower,
    WithinNoise,
    /// A run has too few loops for the test.
    CantTell,
    /// The runs were measured differently (profile, file size, I/O, data, engine, polling,
    /// loop length): the figures stand side by side without a verdict.
    NotCompared,
    /// A run was on the null engine: it measured iomark itself, not a device, so no device
    /// is faster or slower.
    NoDevice,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
            Verdict::CantTell => "can't tell",
            Verdict::NotCompared => "not compared",
            Verdict::NoDevice => "no device (null engine)",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Run {
    pub id: String,
    pub started_at: String,
    pub label: Option<String>,
    pub device: String,
    pub profile: String,
    /// What the device cost, where the run says.
    pub price_usd: Option<f64>,
}

/// One test across the runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Row {
    pub test: String,
    /// `MB/s` for blocks of 64 KiB and more, `IOPS` below.
    pub unit: String,
    /// One per run, in the order given; none where that run lacks the test.
    pub cells: Vec<Option<Cell>>,
    /// How much a run's level was taken to differ from another's beyond its loops, in percent
    /// ([`RunSpread`]).
    pub run_spread_pct: f64,
    /// How many earlier runs of the device that was taken from; none: assumed.
    pub run_spread_runs: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Cell {
    pub value: f64,
    pub cv: f64,
    pub loops: usize,
    /// Against the baseline, in percent (absent for the baseline itself).
    pub diff_pct: Option<f64>,
    /// Welch's test's two-sided p-value against the baseline's loops, where it was made.
    pub p_value: Option<f64>,
    pub verdict: Option<Verdict>,
    /// Where the verdict is "within noise": how many times apart the two figures would have
    /// had to be for a verdict (the first found among the comparison's, at 1% over them all,
    /// and 5% or more), with these loops and this run-to-run spread.
    pub detectable: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Comparison {
    pub runs: Vec<Run>,
    pub rows: Vec<Row>,
    /// How the runs' settings differ from the baseline's, where that changes what a figure
    /// means (profile, file size, I/O, data, engine, polling, loop length) or how sure a
    /// verdict can be (loops).
    pub differences: Vec<String>,
    /// Where the run-to-run spread came from, in a sentence (none for a single run).
    pub spread: Option<String>,
    /// What "within noise" could have seen, in a sentence (none where no figure is).
    pub within_noise: Option<String>,
}

/// Where the earlier runs that give the run-to-run spread come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Earlier {
    /// This computer's saved runs of the baseline's device.
    Saved,
    /// Other results of the baseline's device on a results site (other people's units and
    /// hosts, so their spread is wider than one disk's, and fewer differences are called).
    Site,
}

impl Earlier {
    fn runs(self) -> &'static str {
        match self {
            Earlier::Saved => "saved runs of this device",
            Earlier::Site => "other results of this device on this site",
        }
    }
}

/// Where the run-to-run spread came from, in a line: the earlier runs' range of spreads, or
/// the assumed one.
fn spread_line(rows: &[Row], runs: usize, from: Earlier) -> Option<String> {
    if runs < 2 {
        return None;
    }
    let measured: Vec<(f64, usize)> = rows
        .iter()
        .filter_map(|r| r.run_spread_runs.map(|n| (r.run_spread_pct, n)))
        .collect();
    if measured.is_empty() {
        return Some(format!(
            "Run-to-run spread: {:.0}% assumed (fewer than {MIN_HISTORY} {} with this method).",
            RUN_SPREAD * 100.0,
            from.runs()
        ));
    }
    let range = range(measured.iter().map(|m| m.0), |pct| format!("{pct:.1}%"));
    let most = measured.iter().map(|m| m.1).max().unwrap_or(0);
    Some(format!(
        "Run-to-run spread: {range}, from up to {most} {} with this method.",
        from.runs()
    ))
}

/// A run's settings that make its figures what they are, in words: (what, value, whether a
/// difference in it changes the method).
fn settings(d: &ResultDoc) -> Vec<(&'static str, String, bool)> {
    let s = &d.settings;
    let io = if s.direct { "direct" } else { "buffered" };
    vec![
        ("profile", s.profile.clone(), true),
        (
            "test file",
            crate::units::format_size(s.file_size_bytes),
            true,
        ),
        ("I/O", io.into(), true),
        ("data", s.data.clone(), true),
        ("engine", s.engine.clone(), true),
        ("polling", if s.polled { "on" } else { "off" }.into(), true),
        ("loops of", format!("{} s", s.duration_s), true),
        ("loops", s.loops.to_string(), false),
    ]
}

/// The settings of each run that differ from the first run's, in words.
pub fn differences(docs: &[ResultDoc]) -> Vec<String> {
    let Some(base) = docs.first() else {
        return Vec::new();
    };
    let first = settings(base);
    let mut out = Vec::new();
    for (i, doc) in docs.iter().enumerate().skip(1) {
        let mut measured_differently = false;
        for ((what, theirs, method), (_, ours, _)) in settings(doc).into_iter().zip(&first) {
            if &theirs != ours {
                let letter = letter(i);
                out.push(format!(
                    "{letter} ran with {what} {theirs}, the baseline with {ours}"
                ));
                measured_differently |= method;
            }
        }
        if measured_differently {
            out.push(format!(
                "{} was measured differently from the baseline: its figures are not compared",
                letter(i)
            ));
        }
    }
    out
}

/// Whether `doc` was measured as the baseline was (its verdicts mean something).
fn same_method(base: &ResultDoc, doc: &ResultDoc) -> bool {
    settings(base)
        .iter()
        .zip(settings(doc))
        .all(|(ours, theirs)| !ours.2 || ours.1 == theirs.1)
}

/// The letter a comparison calls its `i`-th run by: A (the baseline), B, C…
pub fn letter(i: usize) -> char {
    (b'A' + (i % 26) as u8) as char
}

/// The lowest to the highest of `values` as `shown` writes each, or one where they read alike.
fn range(values: impl Iterator<Item = f64> + Clone, shown: impl Fn(f64) -> String) -> String {
    let low = shown(values.clone().fold(f64::INFINITY, f64::min));
    let high = shown(values.fold(f64::NEG_INFINITY, f64::max));
    match low == high {
        true => low,
        false => format!("{low} to {high}"),
    }
}

/// What "within noise" means in this comparison, in a sentence: how many times apart its
/// figures would have had to be for a verdict. Two runs of a disk whose runs wander widely can
/// be 50% apart within noise; this says so instead of letting it read as "the same".
fn within_noise_line(rows: &[Row]) -> Option<String> {
    let reach: Vec<f64> = rows
        .iter()
        .flat_map(|r| r.cells.iter().flatten())
        .filter_map(|c| c.detectable)
        .collect();
    if reach.is_empty() {
        return None;
    }
    let range = range(reach.into_iter(), |factor| format!("{factor:.2}x"));
    Some(format!(
        "Within noise is not \"the same\": with these loops and this run-to-run spread, a \
         verdict needed the figures {range} apart or more."
    ))
}

/// The unit a test is compared in: `MB/s` for blocks of 64 KiB and more, `IOPS` below.
fn unit_of(docs: &[ResultDoc], name: &str) -> &'static str {
    let block = docs
        .iter()
        .find_map(|d| d.test(name))
        .map_or(0, |t| t.block_size);
    if block >= 64 * 1024 {
        "MB/s"
    } else {
        "IOPS"
    }
}

impl Run {
    fn of(d: &ResultDoc) -> Run {
        Run {
            id: d.id.clone(),
            started_at: d.started_at.clone(),
            label: d.label.clone(),
            device: d.device_label(),
            profile: d.settings.profile.clone(),
            price_usd: d.price_usd,
        }
    }
}

/// `docs` side by side, the first the baseline; `earlier`: other runs, of which those of the
/// baseline's device with its method give the run-to-run spread ([`RunSpread`]), `from` where
/// they were found.
pub fn compare(docs: &[ResultDoc], earlier: &[ResultDoc], from: Earlier) -> Comparison {
    let names = crate::result::test_names(docs);
    let base = docs.first();
    let earlier: Vec<&ResultDoc> = earlier
        .iter()
        .filter(|e| {
            base.is_some_and(|b| {
                same_method(b, e)
                    && e.device_label() == b.device_label()
                    && e.identity().device_key == b.identity().device_key
            }) && docs.iter().all(|d| d.id != e.id)
        })
        .collect();
    // The null engine does no I/O: its figures are iomark's own speed, not a device's.
    let null = |d: &ResultDoc| d.settings.engine.split('+').any(|e| e == "null");
    let no_device = base.is_some_and(null);
    let units: Vec<&'static str> = names.iter().map(|name| unit_of(docs, name)).collect();
    let spreads: Vec<RunSpread> = names
        .iter()
        .zip(&units)
        .map(|(name, unit)| {
            let tests: Vec<&TestResult> = earlier.iter().filter_map(|e| e.test(name)).collect();
            RunSpread::of(&tests, unit)
        })
        .collect();
    // Each run's p-values against the baseline, and which of them find a difference.
    let tested: Vec<Vec<Option<f64>>> = docs
        .iter()
        .map(|doc| {
            names
                .iter()
                .zip(&units)
                .zip(&spreads)
                .map(|((name, unit), spread)| {
                    let b = base?;
                    if !same_method(b, doc) {
                        return None;
                    }
                    p_value(b.test(name)?, doc.test(name)?, unit, *spread)
                })
                .collect()
        })
        .collect();
    let found: Vec<Vec<bool>> = tested.iter().map(|ps| holm(ps)).collect();
    let rows: Vec<Row> = names
        .iter()
        .zip(&units)
        .enumerate()
        .map(|(row, (name, &unit))| {
            let baseline = base.and_then(|d| d.test(name));
            let cells = docs
                .iter()
                .enumerate()
                .map(|(i, doc)| {
                    let t = doc.test(name)?;
                    let value = if unit == "MB/s" { t.mb_per_s } else { t.iops };
                    let judged = baseline.filter(|_| i > 0).map(|b| {
                        let base_value = if unit == "MB/s" { b.mb_per_s } else { b.iops };
                        let diff = difference(base_value, value);
                        let p = tested[i][row];
                        let verdict = if no_device || null(doc) {
                            Verdict::NoDevice
                        } else if !same_method(&docs[0], doc) {
                            Verdict::NotCompared
                        } else {
                            verdict(diff, p, found[i][row])
                        };
                        let among = tested[i].iter().flatten().count();
                        let reach = (verdict == Verdict::WithinNoise)
                            .then(|| detectable(b, t, unit, spreads[row], among))
                            .flatten();
                        (diff, p, verdict, reach)
                    });
                    Some(Cell {
                        value,
                        cv: t.cv,
                        loops: t.loops.len(),
                        diff_pct: judged.map(|j| j.0 * 100.0),
                        p_value: judged.and_then(|j| j.1),
                        verdict: judged.map(|j| j.2),
                        detectable: judged.and_then(|j| j.3),
                    })
                })
                .collect();
            Row {
                test: name.to_string(),
                unit: unit.to_string(),
                cells,
                run_spread_pct: spreads[row].sd * 100.0,
                run_spread_runs: spreads[row].runs,
            }
        })
        .collect();
    Comparison {
        runs: docs.iter().map(Run::of).collect(),
        spread: spread_line(&rows, docs.len(), from),
        within_noise: within_noise_line(&rows),
        rows,
        differences: differences(docs),
    }
}

#[cfg(test)]
mod tests;
