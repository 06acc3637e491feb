//! What a device's results add up to: per figure the median and quartiles, per scope (all of
//! its results, one board's, one filesystem's).

use std::collections::BTreeMap;

use super::model::{DeviceRow, Entry, Spread};
use iomark_result::result::headline::classes_met_of;
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

/// Submitters who must agree before a device is called otherwise than its first submitter
/// called it (its name, kind, transport, capacity, what it is sold as) ...
pub const AGREEING: usize = 3;
/// ... and by how many more submitters than still call it so.
pub const MARGIN: usize = 2;

/// What a device is called, from its submitters' votes (each submitter's own most common
/// value, in the order they first sent a result), where `needed` of them must give a value
/// before it is shown: the first value so given, until another has [`AGREEING`] submitters
/// and [`MARGIN`] more than it. With how many gave it.
fn settle<T: PartialEq + Clone>(votes: &[T], needed: usize) -> Option<(T, usize)> {
    let count = |v: &T| votes.iter().filter(|w| *w == v).count();
    let first = votes.iter().find(|v| count(v) >= needed)?;
    let (best, n) = most_common_counted(votes.iter())?;
    let kept = count(first);
    Some(match best != first && n >= AGREEING && n >= kept + MARGIN {
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
) -> Vec<T> {
    submitters
        .iter()
        .filter_map(|results| most_common(results.iter().map(|e| of(e))))
        .collect()
}

/// The median of each submitter's own median: each submitter weighs once, however many
/// results it sent.
fn spread_of_submitters(
    submitters: &[Vec<&Entry>],
    of: impl Fn(&Entry) -> Option<f64> + Copy,
) -> Option<Spread> {
    let medians = submitters
        .iter()
        .filter_map(|results| spread(results.iter().filter_map(|e| of(e)).collect()))
        .map(|s| s.median)
        .collect();
    spread(medians)
}

/// Groups entries by device (in the order each device first appears) and summarises each,
/// weighing each submitter once (`by_submitter`, `distinct`): per figure the median and quartiles of its
/// submitters' medians, the median price, and the name, kind, transport and capacity its
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
            let mut stats = BTreeMap::new();
            for metric in &METRICS {
                let of = |e: &Entry| e.figures.get(metric.column).copied();
                if let Some(spread) = spread_of_submitters(&figures, of) {
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
                submitters: submitters.len() as i64,
                price_usd: spread_of_submitters(&figures, |e| e.price_usd).map(|s| s.median),
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
    let votes: Vec<String> = votes(submitters, found).into_iter().flatten().collect();
    most_common(votes.into_iter())
}

/// Submitters who must give one name before a device is shown as sold under it: what one
/// says makes the device findable by it, never names it.
pub const SOLD_AS_AGREEING: usize = 2;

/// What the device is sold as: of the submitters that give a name (each its own most common,
/// compared as slugs, spelt as first given), what they settle on, once
/// [`SOLD_AS_AGREEING`] of them give it.
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
    let (wanted, _) = settle(&votes(&given, slugged), SOLD_AS_AGREEING)?;
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
mod tests {
    use super::*;

    #[test]
    fn the_most_common_wins_and_the_first_breaks_ties() {
        assert_eq!(most_common(["a", "b", "b"].into_iter()), Some("b"));
        assert_eq!(most_common(["a", "b"].into_iter()), Some("a"));
        assert_eq!(
            most_common(["b", "a", "a", "b", "c"].into_iter()),
            Some("b")
        );
        assert_eq!(most_common(std::iter::empty::<&str>()), None);
    }

    fn entry(name: &str, sold_as: Option<&str>, label: Option<&str>) -> Entry {
        Entry {
            id: String::new(),
            class: "standard/direct/random".into(),
            device_key: Some("sandisk-sn64g-64gb".into()),
            device_name: name.into(),
            kind: "microSD".into(),
            transport: None,
            capacity_gb: Some(64),
            started_at: String::new(),
            label: label.map(str::to_string),
            headline: None,
            sold_as: sold_as.map(str::to_string),
            board: None,
            filesystem: None,
            price_usd: None,
            flag: None,
            synthetic: false,
            figures: BTreeMap::new(),
            submitter: None,
            waits: false,
            system: None,
        }
    }

    #[test]
    fn one_result_cannot_say_what_a_device_is_sold_as() {
        let extreme = Some("SanDisk Extreme 64GB A2");
        let one = [
            entry("SanDisk SN64G 64 GB", extreme, None),
            entry("SanDisk SN64G 64 GB", None, None),
        ];
        let row = &aggregate(&one)[0];
        assert_eq!(row.sold_as, None);
        // Searchable all the same.
        assert!(row.names.contains("sandisk-extreme-64gb-a2"));
        let two = [
            entry("SanDisk SN64G 64 GB", Some("Fake Pro"), None),
            entry("SanDisk SN64G 64 GB", extreme, None),
            entry(
                "SanDisk SN64G 64 GB",
                Some("sandisk  EXTREME 64gb a2"),
                None,
            ),
        ];
        assert_eq!(aggregate(&two)[0].sold_as.as_deref(), extreme);
    }

    /// A result of `who` naming the device `name`, of kind `kind`, with SEQ1M Q8T1 read `mb`.
    fn sent(who: &str, name: &str, kind: &str, mb: f64) -> Entry {
        let mut e = entry(name, None, None);
        e.submitter = Some(who.into());
        e.kind = kind.into();
        e.figures.insert("seq1m_q8_read".into(), mb);
        e
    }

    /// A card's classes are what most of its submitters find, each weighing once however
    /// many results it sends, a claim it misses left out; results of other profiles find none.
    #[test]
    fn a_cards_classes_are_what_most_submitters_find() {
        let card = |who: &str, headline: &str| {
            let mut e = sent(who, "Card", "microSD", 80.0);
            e.class = "sdcard/direct/random".into();
            e.headline = Some(headline.into());
            e
        };
        let mut group = vec![
            card("a", "C10 U3 V30 A1"),
            card("b", "C10 U1 V10, misses claimed U3 V30 A1"),
            card("c", "C10 U3 V30 A1, misses claimed A2"),
        ];
        for _ in 0..10 {
            group.push(card("loud", "C10 U3 V90 A2"));
        }
        assert_eq!(
            aggregate(&group)[0].classes.as_deref(),
            Some("C10 U3 V30 A1")
        );
        let standard = [sent("a", "Card", "microSD", 80.0)];
        assert_eq!(aggregate(&standard)[0].classes, None);
    }

    #[test]
    fn each_submitter_weighs_once_however_much_it_sends() {
        // Four submitters agree on about 90 MB/s; a fifth sends 3,000 results of 9,000.
        let mut group: Vec<Entry> = (0..4)
            .map(|n| sent(&format!("s{n}"), "Good Card", "microSD", 88.0 + n as f64))
            .collect();
        for n in 0..3000 {
            group.push(sent("loud", "Good Card", "microSD", 9000.0 + n as f64));
        }
        let row = &aggregate(&group)[0];
        let read = &row.stats["seq1m_q8_read"];
        assert_eq!((row.submitters, read.n), (5, 5));
        assert_eq!(read.median, 90.0);
        assert_eq!(row.results, 3004);
        // The same figures sent again under new ids by one submitter are one result.
        let again: Vec<Entry> = (0..50)
            .map(|_| sent("loud", "Good Card", "microSD", 9000.0))
            .collect();
        let row = &aggregate(&[group[..4].to_vec(), again].concat())[0];
        assert_eq!((row.results, row.submitters), (5, 5));
        // A result the site cannot tell the sender of is a submitter of its own.
        let mut unknown = entry("Good Card", None, None);
        unknown.figures.insert("seq1m_q8_read".into(), 1.0);
        let row = &aggregate(&[unknown.clone(), unknown])[0];
        assert_eq!((row.results, row.submitters), (2, 2));
    }

    #[test]
    fn a_device_is_renamed_by_several_submitters_and_a_margin_only() {
        let honest = |n: usize| -> Vec<Entry> {
            (0..n)
                .map(|i| sent(&format!("h{i}"), "Samsung 980 PRO", "NVMe", 6000.0))
                .collect()
        };
        let fake = |who: &str| sent(who, "CHEAP FAKE", "USB flash", 6000.0);
        // One submitter, however often it sends, changes nothing.
        let mut group = honest(4);
        group.extend((0..20).map(|_| fake("attacker")));
        let row = &aggregate(&group)[0];
        assert_eq!(
            (row.name.as_str(), row.kind.as_str()),
            ("Samsung 980 PRO", "NVMe")
        );
        // Nor does a first submitter outvoted by fewer than AGREEING others.
        let mut group = honest(1);
        group.extend((0..AGREEING - 1).map(|n| fake(&format!("a{n}"))));
        assert_eq!(aggregate(&group)[0].name, "Samsung 980 PRO");
        // AGREEING submitters, MARGIN more than name it otherwise, do.
        let mut group = honest(1);
        group.extend((0..AGREEING).map(|n| fake(&format!("a{n}"))));
        assert_eq!(aggregate(&group)[0].name, "CHEAP FAKE");
        // Short of the margin, they do not.
        let mut group = honest(2);
        group.extend((0..AGREEING).map(|n| fake(&format!("a{n}"))));
        assert_eq!(aggregate(&group)[0].name, "Samsung 980 PRO");
        // A submitter's vote is what most of its own results say.
        let mut group = vec![sent("one", "Name A", "SD", 1.0)];
        group.extend((0..3).map(|_| sent("two", "Name B", "SD", 2.0)));
        group.push(sent("two", "Name A", "SD", 3.0));
        assert_eq!(
            settle(
                &votes(&by_submitter(&group.iter().collect::<Vec<_>>()), |e| e
                    .device_name
                    .clone()),
                1
            ),
            Some(("Name A".to_string(), 1))
        );
    }

    #[test]
    fn names_hold_every_name_and_label_once_and_stay_bounded() {
        let mut group = vec![
            entry("SanDisk SN64G 64 GB", None, Some("Pi 4 boot card")),
            entry(
                "SanDisk SN64G 64 GB",
                Some("SanDisk Extreme"),
                Some("pi 4 boot card"),
            ),
        ];
        let first = names("sandisk-sn64g-64gb", &group.iter().collect::<Vec<_>>());
        assert_eq!(
            first,
            "sandisk-sn64g-64gb sandisk-sn64g-64-gb sandisk-extreme pi-4-boot-card"
        );
        for n in 0..2000 {
            group.push(entry(
                "SanDisk SN64G 64 GB",
                None,
                Some(&format!("label {n}")),
            ));
        }
        // The model's own names come first, whatever the labels.
        group.push(entry("Other Name", None, None));
        let bounded = names("sandisk-sn64g-64gb", &group.iter().collect::<Vec<_>>());
        assert!(bounded.len() <= NAMES_BYTES);
        assert!(bounded.contains("other-name") && bounded.contains("pi-4-boot-card"));
    }

    #[test]
    fn quartiles() {
        let s = spread(vec![4.0, 1.0, 3.0, 2.0, 5.0]).unwrap();
        assert_eq!((s.median, s.p25, s.p75, s.n), (3.0, 2.0, 4.0, 5));
        let s = spread(vec![1.0, 2.0]).unwrap();
        assert_eq!(s.median, 1.5);
        assert!(spread(vec![f64::NAN]).is_none());
    }
}
