//! What a device's results add up to: per figure the median and quartiles, per scope (all of
//! its results, one board's, one filesystem's).

use std::collections::BTreeMap;

use super::model::{DeviceRow, Entry, Spread};
use super::sender::Family;
use iomark_profiles::sdcard::classes_met_of;
use iomark_result::result::identity::slug;
use iomark_result::result::metric::METRICS;

/// The aggregates a result of this board, filesystem and system counts in: all of its
/// device's, its board's, its filesystem's, its board's and filesystem's together (so that a
/// leaderboard filtered by both reads aggregates too, never the entries: 405 ms a request at
/// 100,000 results, issue 22), and its system's (a device page's "By system").
pub(super) fn scopes(board: Option<&str>, fs: Option<&str>, system: Option<&str>) -> Vec<String> {
    let board = board.filter(|b| !b.is_empty());
    let fs = fs.filter(|f| !f.is_empty());
    let mut out = vec![scope(None, None)];
    out.extend(board.map(|b| scope(Some(b), None)));
    out.extend(fs.map(|f| scope(None, Some(f))));
    out.extend(board.zip(fs).map(|(b, f)| scope(Some(b), Some(f))));
    out.extend(
        system
            .filter(|s| !s.is_empty())
            .map(|s| format!("system:{s}")),
    );
    out
}

/// The name of one scope: '' for all of a device's results, `board:NAME`, `fs:NAME`, or
/// `both:BOARD\nFS` (neither holds a control character); `system:NAME` is [`scopes`]'.
pub(super) fn scope(board: Option<&str>, fs: Option<&str>) -> String {
    match (board, fs) {
        (None, None) => String::new(),
        (Some(board), None) => format!("board:{board}"),
        (None, Some(fs)) => format!("fs:{fs}"),
        (Some(board), Some(fs)) => format!("both:{board}\n{fs}"),
    }
}

pub(super) fn in_scope(e: &Entry, scope: &str) -> bool {
    if let Some(board) = scope.strip_prefix("board:") {
        e.board.as_deref() == Some(board)
    } else if let Some(fs) = scope.strip_prefix("fs:") {
        e.filesystem.as_deref() == Some(fs)
    } else if let Some(pair) = scope.strip_prefix("both:") {
        let (board, fs) = pair.split_once('\n').unwrap_or((pair, ""));
        e.board.as_deref() == Some(board) && e.filesystem.as_deref() == Some(fs)
    } else if let Some(system) = scope.strip_prefix("system:") {
        e.system.as_deref() == Some(system)
    } else {
        true
    }
}

/// The value most of `items` have; of values as common, the one seen first.
fn most_common<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Option<T> {
    most_common_counted(items).map(|(v, _)| v)
}

/// [`most_common`], with how many have it.
fn most_common_counted<T: PartialEq>(items: impl Iterator<Item = T>) -> Option<(T, usize)> {
    let mut counts: Vec<(T, usize)> = Vec::new();
    for item in items {
        match counts.iter_mut().find(|(v, _)| *v == item) {
            Some((_, n)) => *n += 1,
            None => counts.push((item, 1)),
        }
    }
    // max_by_key keeps the last of equals: reversed, the first seen wins.
    counts.into_iter().rev().max_by_key(|(_, n)| *n)
}

/// Submitters (households, `sender::network`) of as many neighbourhoods
/// (`sender::neighbourhood`: an IPv4 /16, an IPv6 /32) who must agree before a device is
/// called otherwise than its first submitter called it (its name, kind, transport, capacity),
/// or is shown as sold under a name at all: never one household's word, whether it sends over
/// IPv4 and IPv6 or from many of its /64s, nor one organisation's from several /24s of its
/// block ...
pub const AGREEING: usize = 3;
/// ... and by how many more submitters than still call it so.
pub const MARGIN: usize = 2;

/// Who gave a vote, as far as independence goes: its address family, and its place: its
/// neighbourhood, else (a result saved before neighbourhoods were kept) its household, else
/// (a sender the site cannot tell) a place of its own.
#[derive(Clone, Debug, PartialEq)]
struct Voter {
    family: Family,
    place: String,
}

/// How many independent households are behind the votes `keep` takes: the most places of one
/// address family. One client over IPv4 and IPv6 is one IPv4 household and one IPv6 household,
/// never two of either (issue 59: a dual-stack client counted twice named a card), so however
/// it sends it adds at most one; households of one neighbourhood count once (issue 59's second
/// attack pass: three /24s of one /22 named a device).
fn independent<T>(votes: &[(Voter, T)], keep: impl Fn(&T) -> bool) -> usize {
    use Family::{Other, V4, V6};
    [V4, V6, Other]
        .into_iter()
        .map(|f| {
            let places: std::collections::HashSet<&str> = votes
                .iter()
                .filter(|(who, v)| who.family == f && keep(v))
                .map(|(who, _)| who.place.as_str())
                .collect();
            places.len()
        })
        .max()
        .unwrap_or(0)
}

/// What a device is called, from its submitters' votes (each submitter's own most common
/// value, with its family, in the order they first sent a result), where `needed` households
/// must give a value before it is shown: the first value so given, until another has
/// [`AGREEING`] households and [`MARGIN`] more than it, and more than half of all (a clear
/// majority). With how many households gave it.
fn settle<T: PartialEq + Clone>(votes: &[(Voter, T)], needed: usize) -> Option<(T, usize)> {
    let count = |v: &T| independent(votes, |w| w == v);
    let first = votes.iter().map(|(_, v)| v).find(|v| count(v) >= needed)?;
    let kept = count(first);
    // The value most households give; of equals, the first given.
    let (best, n) = votes
        .iter()
        .map(|(_, v)| (v, count(v)))
        .rev()
        .max_by_key(|(_, n)| *n)?;
    let clear = n >= AGREEING && n >= kept + MARGIN && 2 * n > independent(votes, |_| true);
    Some(match best != first && clear {
        true => (best.clone(), n),
        false => (first.clone(), kept),
    })
}

/// A device's results by submitter, in the order each first sent one: a result the site
/// cannot tell the sender of is a submitter of its own.
fn by_submitter<'e>(group: &[&'e Entry]) -> Vec<Vec<&'e Entry>> {
    let mut submitters: Vec<Vec<&Entry>> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = Default::default();
    for e in group {
        let Some(who) = e.submitter.as_deref() else {
            submitters.push(vec![e]);
            continue;
        };
        let i = *at.entry(who).or_insert_with(|| {
            submitters.push(Vec::new());
            submitters.len() - 1
        });
        submitters[i].push(e);
    }
    submitters
}

/// One submitter's results with the same figures sent again (under a new id) kept once: they
/// are one result. Its results name the device all the same (`votes`).
fn distinct<'e>(results: &[&'e Entry]) -> Vec<&'e Entry> {
    // The figures seen, as bits: 3,000 results of one submitter are looked through once.
    let mut seen: std::collections::HashSet<Vec<(&str, u64)>> = Default::default();
    results
        .iter()
        .copied()
        .filter(|e| {
            seen.insert(
                e.figures
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.to_bits()))
                    .collect(),
            )
        })
        .collect()
}

/// Each submitter's vote: the value most of its results give.
fn votes<T: PartialEq + Clone>(
    submitters: &[Vec<&Entry>],
    of: impl Fn(&Entry) -> T + Copy,
) -> Vec<(Voter, T)> {
    submitters
        .iter()
        .enumerate()
        .filter_map(|(n, results)| {
            let vote = most_common(results.iter().map(|e| of(e)))?;
            let first = results.first()?;
            let family = Family::of(first.submitter.as_deref());
            Some((
                Voter {
                    family,
                    place: place(first, n),
                },
                vote,
            ))
        })
        .collect()
}

/// The median of each submitter's own median: each submitter weighs once, however many
/// results it sent.
fn spread_of_submitters(
    submitters: &[Vec<&Entry>],
    of: impl Fn(&Entry) -> Option<f64> + Copy,
) -> Option<Spread> {
    spread(
        place_medians(submitters, of)?
            .into_iter()
            .map(|(_, m)| m)
            .collect(),
    )
}

/// How far a place's median may be from the device's, either way, and the place still
/// corroborate it: two places whose figures are within twice each other's both do (the
/// device's median of two is their mean), an SD card in a USB 2 reader and in a UHS-I one
/// differing in their reads alone.
pub const CORROBORATES: f64 = 1.5;

/// How many places (neighbourhoods, `place`) corroborate the device's figures, each given as
/// its median and the places' own medians (`place_medians`): within [`CORROBORATES`] times
/// of the device's in half their figures or more.
/// A median of two places is their mean, so either moves it alone: the fourteenth attack pass
/// sent a device measured once at 480 MB/s at 4.9 times that from another neighbourhood, and
/// it ranked at 1,460. Two that disagree so rank on neither's word; of three, the median is
/// one's between the others'. None where the device has no figures.
fn corroborating(figures: &[(f64, Vec<(String, f64)>)]) -> Option<usize> {
    let mut within: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (device, medians) in figures {
        let m = device.abs();
        for (place, median) in medians {
            let (near, all) = within.entry(place.as_str()).or_default();
            *all += 1;
            *near += usize::from(*median >= m / CORROBORATES && *median <= m * CORROBORATES);
        }
    }
    // Two that disagree may both be far from their mean: still one place measured it.
    (!within.is_empty()).then(|| {
        within
            .values()
            .filter(|(near, all)| 2 * near >= *all)
            .count()
            .max(1)
    })
}

/// Each place's median of its submitters' medians of figure `of`, of the address family with
/// the most places.
fn place_medians(
    submitters: &[Vec<&Entry>],
    of: impl Fn(&Entry) -> Option<f64> + Copy,
) -> Option<Vec<(String, f64)>> {
    // Each submitter's median, then each place's median of those (issue 59's third attack
    // pass moved a device's median from 1,314 to 394 MB/s with 20 /24s of one /16): a place
    // weighs once, however many households it holds.
    let mut places: Vec<(Family, String, Vec<f64>)> = Vec::new();
    for (n, results) in submitters.iter().enumerate() {
        let Some(own) = spread(results.iter().filter_map(|e| of(e)).collect()) else {
            continue;
        };
        let Some(first) = results.first() else {
            continue;
        };
        let (family, at) = (Family::of(first.submitter.as_deref()), place(first, n));
        match places.iter_mut().find(|(f, p, _)| *f == family && *p == at) {
            Some((_, _, medians)) => medians.push(own.median),
            None => places.push((family, at, vec![own.median])),
        }
    }
    // The places of one address family: the one with the most (of as many, IPv4, whose
    // addresses are the scarcer). One client over IPv4 and IPv6 is a place in each, and
    // `households` counts it once: its two places weighed twice, and the fifth attack pass's
    // dual-stack client moved a device's median from 686 to 307 MB/s, its own figure.
    let count = |f: Family| places.iter().filter(|(of, _, _)| *of == f).count();
    let family = [Family::V4, Family::Other, Family::V6]
        .into_iter()
        .rev()
        .max_by_key(|f| count(*f))?;
    Some(
        places
            .into_iter()
            .filter(|(f, _, _)| *f == family)
            .filter_map(|(_, at, medians)| spread(medians).map(|s| (at, s.median)))
            .collect(),
    )
}

/// Where submitter `n`, whose first result is `first`, stands: its neighbourhood, else (a
/// result saved before neighbourhoods were kept) its household, else a place of its own.
fn place(first: &Entry, n: usize) -> String {
    [&first.neighbourhood, &first.submitter]
        .into_iter()
        .flatten()
        .next()
        .map_or_else(|| format!("untold {n}"), |p| format!("at {p}"))
}

/// Groups entries by device (in the order each device first appears) and summarises each,
/// weighing each submitter once (`by_submitter`, `distinct`) and each neighbourhood once: per
/// figure the median and quartiles of its neighbourhoods' medians of their submitters' medians, the median price, and the name, kind, transport and capacity its
/// submitters settle on (`settle`; `entries` come in the order results arrived in).
pub fn aggregate(entries: &[Entry]) -> Vec<DeviceRow> {
    let mut order: Vec<&str> = Vec::new();
    let mut groups: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for e in entries {
        let Some(key) = e.device_key.as_deref() else {
            continue;
        };
        groups
            .entry(key)
            .or_insert_with(|| {
                order.push(key);
                Vec::new()
            })
            .push(e);
    }
    order
        .into_iter()
        .map(|key| {
            let group = &groups[key];
            let submitters = by_submitter(group);
            let figures: Vec<Vec<&Entry>> = submitters.iter().map(|r| distinct(r)).collect();
            let called = |of: fn(&Entry) -> String| settle(&votes(&submitters, of), 1).map(|v| v.0);
            let transport = settle(&votes(&submitters, |e| e.transport.clone()), 1).map(|v| v.0);
            let capacity_gb = settle(&votes(&submitters, |e| e.capacity_gb), 1).map(|v| v.0);
            // Each figure's places' medians, read once: its spread, and which places
            // corroborate it.
            let mut stats = BTreeMap::new();
            let mut places = Vec::new();
            for metric in &METRICS {
                let of = |e: &Entry| e.figures.get(metric.column).copied();
                let medians = place_medians(&figures, of).unwrap_or_default();
                if let Some(spread) = spread(medians.iter().map(|(_, m)| *m).collect()) {
                    places.push((spread.median, medians));
                    stats.insert(metric.column.to_string(), spread);
                }
            }
            DeviceRow {
                sold_as: sold_as(&submitters),
                classes: classes_met(&submitters),
                names: names(key, group),
                key: key.to_string(),
                name: called(|e| e.device_name.clone()).unwrap_or_default(),
                kind: called(|e| e.kind.clone()).unwrap_or_default(),
                transport: transport.flatten(),
                capacity_gb: capacity_gb.flatten(),
                results: figures.iter().map(Vec::len).sum::<usize>() as i64,
                // Households, not addresses: one client over IPv4 and IPv6 counts once.
                submitters: super::sender::households(
                    submitters
                        .iter()
                        .map(|s| s.first().and_then(|e| e.submitter.as_deref())),
                ) as i64,
                price_usd: spread_of_submitters(&figures, |e| e.price_usd).map(|s| s.median),
                // Where it ranks from: one household's word never puts it above others, nor
                // one of two neighbourhoods' that disagree.
                neighbourhoods: independent(&votes(&submitters, |_| ()), |_| true)
                    .min(corroborating(&places).unwrap_or(usize::MAX))
                    as i64,
                stats,
            }
        })
        .collect()
}

/// The SD classes a device meets: each submitter's most common finding (the classes its
/// sdcard results meet, `headline::classes_met`), then the finding of the most submitters
/// (of as many, the first given). None for results of other profiles, which find none.
fn classes_met(submitters: &[Vec<&Entry>]) -> Option<String> {
    let found = |e: &Entry| {
        e.class
            .starts_with("sdcard/")
            .then(|| e.headline.as_deref().map(classes_met_of))
            .flatten()
            .map(str::to_string)
    };
    let votes: Vec<String> = votes(submitters, found)
        .into_iter()
        .filter_map(|(_, v)| v)
        .collect();
    most_common(votes.into_iter())
}

/// What the device is sold as: of the submitters that give a name (each its own most common,
/// compared as slugs, spelt as first given), what they settle on, once [`AGREEING`] of them
/// give it: what one or two say makes the device findable by it (`names`), never names it.
fn sold_as(submitters: &[Vec<&Entry>]) -> Option<String> {
    let given: Vec<Vec<&Entry>> = submitters
        .iter()
        .map(|results| {
            results
                .iter()
                .copied()
                .filter(|e| e.sold_as.is_some())
                .collect::<Vec<_>>()
        })
        .filter(|results| !results.is_empty())
        .collect();
    let slugged = |e: &Entry| e.sold_as.as_deref().map(slug).unwrap_or_default();
    let (wanted, _) = settle(&votes(&given, slugged), AGREEING)?;
    given
        .iter()
        .flatten()
        .find(|e| slugged(e) == wanted)
        .and_then(|e| e.sold_as.clone())
}

/// The most a device's search text holds, in bytes: its names and what it is sold as come
/// first, then its results' labels, most common first, while they fit.
const NAMES_BYTES: usize = 4096;

/// Every name the device's results gave it, as slugs a search can match word by word: its
/// key, its names (a merged device's results keep theirs), what it is sold as, its labels.
fn names(key: &str, group: &[&Entry]) -> String {
    // Each distinct text is made a slug once: a device's results mostly repeat one name, and
    // this runs on every submission, over every result of the device.
    let mut slugs: Vec<String> = vec![key.to_string()];
    let mut named: std::collections::HashSet<&str> = Default::default();
    // Each label once, with how many results gave it, in the order first given.
    let mut given: Vec<(&str, usize)> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = Default::default();
    for e in group {
        for name in std::iter::once(e.device_name.as_str()).chain(e.sold_as.as_deref()) {
            if named.insert(name) {
                slugs.push(slug(name));
            }
        }
        if let Some(label) = e.label.as_deref() {
            match at.get(label) {
                Some(&i) => given[i].1 += 1,
                None => {
                    at.insert(label, given.len());
                    given.push((label, 1));
                }
            }
        }
    }
    // Labels spelt otherwise but alike as slugs count as one.
    let mut labels: Vec<(String, usize)> = Vec::new();
    let mut slugged: std::collections::HashMap<String, usize> = Default::default();
    for (label, n) in given {
        let label = slug(label);
        match slugged.get(&label) {
            Some(&i) => labels[i].1 += n,
            None => {
                slugged.insert(label.clone(), labels.len());
                labels.push((label, n));
            }
        }
    }
    labels.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let mut out = String::new();
    let mut taken = std::collections::HashSet::new();
    for name in slugs.into_iter().chain(labels.into_iter().map(|(l, _)| l)) {
        if name.is_empty()
            || out.len() + name.len() + 1 > NAMES_BYTES
            || !taken.insert(name.clone())
        {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&name);
    }
    out
}

/// Median and quartiles (linear interpolation between closest ranks), or none of nothing.
pub fn spread(mut values: Vec<f64>) -> Option<Spread> {
    values.retain(|v| v.is_finite());
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let pos = q * (values.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        values[lo] + (values[hi] - values[lo]) * (pos - lo as f64)
    };
    Some(Spread {
        median: at(0.5),
        p25: at(0.25),
        p75: at(0.75),
        n: values.len() as u64,
    })
}

#[cfg(test)]
mod tests;
