//! Deletion is final (issue 59): a stranger who kept a copy of a deleted result's document
//! sent it again and got 201, at the same address with its owner's label; a hidden result
//! deleted and sent again by its owner was visible again. A result deleted (by its token) or
//! hidden (by a moderator) leaves a tombstone: its id and its measurement's fingerprint, and a
//! submission that matches either is refused, whoever sends it, under whatever id or label. A
//! moderator's restore lifts a hidden result's tombstone (`moderation.rs`).
//!
//! The second attack pass sent a deleted result again with one test dropped, or its model
//! renamed: the whole measurement's fingerprint differed and the copy ranked. So each test is
//! buried too, by every six of eight of its figures ([`test_prints`]): a submission any of
//! whose tests agrees with a buried test in six figures, on whatever device, is refused; so is
//! one whose latencies have a buried test's shape (all seven shares of their mean), which
//! scaling every figure leaves as it was (the third attack pass). To pass, a copy must change
//! every test it keeps as a new measurement would: it is then a made-up result like any other,
//! which the intake's physics, the device's own figures and its households judge.
//!
//! The fourth attack pass found honest results refused: 2 of 15 new documents, then agreeing
//! with a buried test of their model in five of seven shares at three digits (two runs of one
//! device share a latency's share of its mean to three digits one time in a few, and a site
//! holds many buried tests of a popular model). A shape now agrees in all seven shares, to four
//! digits: what a copy scaled whole keeps exactly and two runs never do.
//!
//! The seventh attack pass moved three of a test's eight figures by half a percent (its rate
//! and its latencies' least and most), in one test or in all: every print of a whole test
//! changed. So each latency is buried on its own too, as a share of its test's mean
//! ([`figure_prints`]: the same however the whole is scaled), and a submission half of whose
//! shares are one buried result's, across all its tests, is refused: a copy must move most of
//! its latencies to pass, each on its own, as a made-up result does. Two runs of a device
//! share a share to four digits now and then, half of them never: the mean is an average of
//! every I/O, and moves. (Rates and means themselves are no such print: a bus-bound stick's,
//! or a test's made-up documents', agree run after run.)

use sha2::{Digest, Sha256};
use sqlx::{Any, Row, Transaction};

use iomark_result::result::ResultDoc;

/// A measurement's fingerprint: its device and its tests' figures (each test's MB/s and IOPS to
/// four significant digits, the tests in order of name), hashed. The same measurement sent
/// under another id or label, at another time, with its tests in another order or a figure
/// moved by a rounding error, has the same (issue 59's attack pass brought a deleted result
/// back by writing its start as `+00:00`, or one figure one unit of the last place up); two
/// runs of a device rarely agree in every figure to four digits.
pub(crate) fn fingerprint(doc: &ResultDoc) -> String {
    let four = |v: f64| match v.is_finite() && v != 0.0 {
        true => format!("{v:.3e}"),
        false => "0".to_string(),
    };
    let mut tests: Vec<String> = doc
        .tests
        .iter()
        .map(|t| format!("{} {} {}", t.name, four(t.mb_per_s), four(t.iops)))
        .collect();
    tests.sort();
    let device = doc.identity().device_key.unwrap_or_default();
    let text = format!("{device}\n{}", tests.join("\n"));
    hex(&Sha256::digest(text.as_bytes()))
}

/// A test's prints: its name with every six of eight of its figures (MB/s and its latencies'
/// min, p50, p90, p99, p99.9, max and standard deviation) to four significant digits, hashed.
/// Two runs' tests agree in a figure or two now and then (a USB 2.0 stick's reads sit at its
/// bus's limit, and at a full queue the mean latency follows the rate), in six of eight
/// never: latencies spread afresh each run. And by every five of the seven shares of its mean
/// its latencies are (min, p50 … max, deviation), all seven to four digits: its tail moves by
/// percents from run to run, so two runs share a shape no more than figures. A test without a rate or a
/// latency has none (the intake refuses a test whose I/Os took no time, `physics.rs`).
pub(crate) fn test_prints(doc: &ResultDoc) -> Vec<String> {
    let four = |v: f64| format!("{v:.3e}");
    let mut prints = Vec::new();
    for t in &doc.tests {
        let l = &t.latency_us;
        if !(t.mb_per_s > 0.0 && l.mean > 0.0) {
            continue;
        }
        let figures = [
            t.mb_per_s, l.min, l.p50, l.p90, l.p99, l.p99_9, l.max, l.stddev,
        ];
        let figures: Vec<String> = figures.into_iter().map(four).collect();
        prints.extend(all_but(2, &t.name, &figures));
        // Under no name (the sixth attack pass moved a read's figures under the write's
        // name, and the write's under the read's).
        prints.extend(all_but(2, "", &figures));
        // All eight to three digits: what a copy rounded so keeps (the sixth attack pass).
        let three: Vec<String> = [
            t.mb_per_s, l.min, l.p50, l.p90, l.p99, l.p99_9, l.max, l.stddev,
        ]
        .into_iter()
        .map(|v| format!("{v:.2e}"))
        .collect();
        let text = format!("three: {}", three.join(" "));
        prints.push(hex(&Sha256::digest(text.as_bytes())[..16]));
        // Its latencies' shape, each a share of their mean: the same however the whole is
        // scaled (the third attack pass scaled every figure of a deleted result by 1.0003,
        // and it ranked again); and every six of the seven, so that one figure moved besides
        // (the sixth: x1.05, then the maximum or the deviation by 1 or 2%) is no escape.
        let shape = [l.min, l.p50, l.p90, l.p99, l.p99_9, l.max, l.stddev];
        let shape: Vec<String> = shape.iter().map(|v| four(v / l.mean)).collect();
        let text = format!("{} shape: {}", t.name, shape.join(" "));
        prints.push(hex(&Sha256::digest(text.as_bytes())[..16]));
        prints.extend(all_but(1, "shape", &shape));
        // Where each latency lies between the least and the most, and the deviation as a
        // share of that range: the same under any `a·x + b` (the sixth: every latency made
        // 1.02·x + 3 µs).
        let range = l.max - l.min;
        if range > 0.0 {
            let at = [l.mean, l.p50, l.p90, l.p99, l.p99_9];
            let mut place: Vec<String> = at.iter().map(|v| four((v - l.min) / range)).collect();
            place.push(four(l.stddev / range));
            let text = format!("place: {}", place.join(" "));
            prints.push(hex(&Sha256::digest(text.as_bytes())[..16]));
        }
        // Its loops' rates and its timeline's samples, each a share of the test's rate: the
        // same however its latencies are bent, where its rates are scaled whole (the ninth:
        // every latency made x + 0.5·√x, the rates x1.02). Two runs' loops and seconds spread
        // afresh; a copy's keep their shape.
        // A flat shape (a bus-bound stick's loops and seconds, alike to a few in ten
        // thousand run after run) is no fingerprint, and makes none.
        let shape = |rates: &[f64], digits: usize, spread: f64| {
            let (low, high) = rates
                .iter()
                .fold((f64::MAX, 0.0_f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
            (low > 0.0 && high / low - 1.0 > spread).then(|| {
                let shares: Vec<String> = rates
                    .iter()
                    .map(|r| format!("{:.*e}", digits - 1, r / t.mb_per_s))
                    .collect();
                shares.join(" ")
            })
        };
        let loops: Vec<f64> = t.loops.iter().map(|l| l.mb_per_s).collect();
        if let Some(text) = (loops.len() >= 3)
            .then(|| shape(&loops, 5, 0.002))
            .flatten()
        {
            let text = format!("loops: {text}");
            prints.push(hex(&Sha256::digest(text.as_bytes())[..16]));
        }
        // A timeline whose samples are a few blocks each (a slow device's 1 MiB blocks, four
        // or five a tenth of a second) repeats from run to run: no print of it.
        let step = match &t.timeline[..] {
            [a, b, ..] if b.t > a.t => b.t - a.t,
            _ => 1.0,
        };
        let blocks = |mb: f64| mb * 1e6 * step / t.block_size.max(1) as f64;
        let fine = t.timeline.iter().all(|p| blocks(p.mb_per_s) >= FINE_BLOCKS);
        let seconds: Vec<f64> = match fine {
            true => t.timeline.iter().map(|p| p.mb_per_s).collect(),
            false => Vec::new(),
        };
        // Its shape to four digits, of eight samples or more: a steady drive's few samples
        // moved by tenths of a percent share it now and then (the fifteenth attack pass's
        // honest-like runs of five samples, 0.2% apart, were refused 1 in 300).
        if let Some(text) = (seconds.len() >= 8)
            .then(|| shape(&seconds, 4, 0.005))
            .flatten()
        {
            let text = format!("timeline: {text}");
            prints.push(hex(&Sha256::digest(text.as_bytes())[..16]));
        }
        prints.extend(as_sent(t, &seconds));
        // The same on a scale of logarithms: the same under any `b·x^a` (the eighth: every
        // latency made x^1.015/1.03, the rate x1.03).
        if l.min > 0.0 && l.max > l.min {
            let (low, high) = (l.min.ln(), l.max.ln());
            let at = [l.mean, l.p50, l.p90, l.p99, l.p99_9];
            let place: Vec<String> = at
                .iter()
                .map(|v| four((v.max(l.min).ln() - low) / (high - low)))
                .collect();
            let text = format!("log place: {}", place.join(" "));
            prints.push(hex(&Sha256::digest(text.as_bytes())[..16]));
        }
    }
    prints
}

/// What was counted and timed, as it was: a test's loops' I/Os, bytes and seconds as sent (to
/// the nanosecond iomark times them), all its loops together, two or more; and its timeline's
/// samples (`seconds`, none where they are coarse) to six digits (the fourteenth attack pass
/// moved every rate and latency by 0.3% and kept these). A loop alone is no print: one loop of
/// a popular model's buried runs ends in the same microsecond with the same I/Os as an honest
/// new one now and then (the fifteenth refused 5 of 300 so). Seconds rounded to the
/// millisecond (no run of iomark's) and a flat timeline (a bus-bound stick's) make none.
fn as_sent(t: &iomark_result::result::TestResult, seconds: &[f64]) -> Vec<String> {
    let mut prints = Vec::new();
    let timed = |l: &iomark_result::result::Loop| l.ios > 0 && (l.seconds * 1e3).fract() != 0.0;
    if t.loops.len() >= 2 && t.loops.iter().all(timed) {
        let loops: Vec<String> = t
            .loops
            .iter()
            .map(|l| format!("{} {} {:?}", l.ios, l.bytes, l.seconds))
            .collect();
        let text = format!("loops as sent: {}", loops.join(" "));
        prints.push(hex(&Sha256::digest(text.as_bytes())[..16]));
    }
    let (low, high) = seconds
        .iter()
        .fold((f64::MAX, 0.0_f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
    if seconds.len() >= 4 && low > 0.0 && high / low - 1.0 > 0.005 {
        let samples: Vec<String> = seconds.iter().map(|v| format!("{v:.5e}")).collect();
        let text = format!("timeline as sent: {}", samples.join(" "));
        prints.push(hex(&Sha256::digest(text.as_bytes())[..16]));
    }
    prints
}

/// The fewest blocks each of a timeline's samples must count for the timeline to be a print.
const FINE_BLOCKS: f64 = 100.0;

/// The prints of `figures` of test `name`: each leaving `out` of them out (one or two),
/// hashed. Two out keeps the text the tombstones of older versions hold.
fn all_but(out: usize, name: &str, figures: &[String]) -> Vec<String> {
    let mut prints = Vec::new();
    for a in 0..figures.len() {
        for b in a + 1..figures.len() + 2 - out {
            let kept: Vec<&str> = (0..figures.len())
                .filter(|i| *i != a && (out == 1 || *i != b))
                .map(|i| figures[i].as_str())
                .collect();
            let text = match out {
                1 => format!("{name} without {a}: {}", kept.join(" ")),
                _ => format!("{name} without {a} {b}: {}", kept.join(" ")),
            };
            prints.push(hex(&Sha256::digest(text.as_bytes())[..16]));
            if out == 1 {
                break;
            }
        }
    }
    prints
}

/// The most shares a result is judged by: a sweep's many tests are bounded work.
const MOST_FIGURES: usize = 256;
/// The fewest shares that make a copy, however few a result has: one test's seven less one
/// (a document whose every test shares one shape, as made-up ones do, has seven in all).
const SHARES_AT_LEAST: usize = 6;

/// How many of `n` shares must be one buried result's for a copy: half, and six at least.
fn shares_needed(n: usize) -> usize {
    n.div_ceil(2).max(SHARES_AT_LEAST)
}

/// A result's latencies, each on its own (see the module): each test's least, percentiles,
/// most and deviation as a share of its mean, under no test's name, to four digits, hashed,
/// without repeats and at most [`MOST_FIGURES`].
pub(crate) fn figure_prints(doc: &ResultDoc) -> Vec<String> {
    let four = |v: f64| format!("{v:.3e}");
    let mut shares = Vec::new();
    for t in &doc.tests {
        let l = &t.latency_us;
        if !(t.mb_per_s > 0.0 && l.mean > 0.0) {
            continue;
        }
        for (role, v) in [
            ("min", l.min),
            ("p50", l.p50),
            ("p90", l.p90),
            ("p99", l.p99),
            ("p99.9", l.p99_9),
            ("max", l.max),
            ("deviation", l.stddev),
        ] {
            shares.push(format!("{role}/mean {}", four(v / l.mean)));
        }
    }
    let mut prints: Vec<String> = shares
        .iter()
        .map(|t| hex(&Sha256::digest(format!("figure {t}").as_bytes())[..16]))
        .collect();
    prints.sort();
    prints.dedup();
    prints.truncate(MOST_FIGURES);
    prints
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Buries result `id` (its document as stored), in `tx`: it is not taken again.
pub(crate) async fn bury(tx: &mut Transaction<'_, Any>, id: &str) -> Result<(), sqlx::Error> {
    let Some(row) = sqlx::query("SELECT document FROM results WHERE id = $1")
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?
    else {
        return Ok(());
    };
    let text: String = row.try_get(0)?;
    let doc = serde_json::from_str::<ResultDoc>(&text).ok();
    let print = doc.as_ref().map(fingerprint).unwrap_or_default();
    for figure in doc.as_ref().map(figure_prints).unwrap_or_default() {
        sqlx::query(
            "INSERT INTO buried_figures (print, id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )
        .bind(figure)
        .bind(id)
        .execute(&mut **tx)
        .await?;
    }
    for test in doc.as_ref().map(test_prints).unwrap_or_default() {
        sqlx::query("INSERT INTO buried_tests (print, id) VALUES ($1, $2) ON CONFLICT DO NOTHING")
            .bind(test)
            .bind(id)
            .execute(&mut **tx)
            .await?;
    }
    if let Some(doc) = &doc {
        near::bury(tx, id, doc).await?;
    }
    sqlx::query(
        "INSERT INTO tombstones (id, fingerprint, buried_at) VALUES ($1, $2, $3) \
         ON CONFLICT (id) DO NOTHING",
    )
    .bind(id)
    .bind(print)
    .bind(super::now())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Lifts result `id`'s tombstone, in `tx` (a moderator restored it).
pub(crate) async fn lift(tx: &mut Transaction<'_, Any>, id: &str) -> Result<(), sqlx::Error> {
    for table in [
        "tombstones",
        "buried_tests",
        "buried_figures",
        "buried_near",
    ] {
        sqlx::query(&format!("DELETE FROM {table} WHERE id = $1"))
            .bind(id)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Whether `doc` is a result this site buried, by its id, its measurement or one of its tests.
pub(crate) async fn buried(
    tx: &mut Transaction<'_, Any>,
    doc: &ResultDoc,
) -> Result<bool, sqlx::Error> {
    let whole = sqlx::query("SELECT 1 FROM tombstones WHERE id = $1 OR fingerprint = $2")
        .bind(&doc.id)
        .bind(fingerprint(doc))
        .fetch_optional(&mut **tx)
        .await?;
    if whole.is_some() {
        return Ok(true);
    }
    // A few dozen prints at a time.
    for prints in test_prints(doc).chunks(64) {
        let marks: Vec<String> = (1..=prints.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT 1 FROM buried_tests WHERE print IN ({})",
            marks.join(", ")
        );
        let query = prints.iter().fold(sqlx::query(&sql), |q, p| q.bind(p));
        if query.fetch_optional(&mut **tx).await?.is_some() {
            return Ok(true);
        }
    }
    // Its figures, nearly all within half a percent of a buried result's.
    if near::copy(tx, doc).await? {
        return Ok(true);
    }
    // Half of its latencies' shares one buried result's, and six at least (one query of at
    // most `MOST_FIGURES` prints).
    let prints = figure_prints(doc);
    if prints.len() >= SHARES_AT_LEAST {
        let marks: Vec<String> = (2..prints.len() + 2).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT id FROM buried_figures WHERE print IN ({}) GROUP BY id \
             HAVING COUNT(*) >= $1 LIMIT 1",
            marks.join(", ")
        );
        let query = sqlx::query(&sql).bind(shares_needed(prints.len()) as i64);
        let query = prints.iter().fold(query, |q, p| q.bind(p));
        if query.fetch_optional(&mut **tx).await?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether `doc` is a copy of a result whose [`figure_prints`] are `buried` (the test's view
/// of [`buried`]'s rule).
#[cfg(test)]
fn a_copy_by_figures(doc: &ResultDoc, buried: &[Vec<String>]) -> bool {
    let prints = figure_prints(doc);
    buried.iter().any(|b| {
        let same = prints.iter().filter(|p| b.contains(p)).count();
        prints.len() >= SHARES_AT_LEAST && same >= shares_needed(prints.len())
    })
}

mod near;
pub(crate) use near::fill_bands;
#[cfg(test)]
use near::{near_copy, near_figures, near_of};

#[cfg(test)]
mod tests;
