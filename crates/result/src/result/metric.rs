//! The figures a results site ranks devices by, written once. Everything else is derived from
//! [`METRICS`]: the store's columns and the SQL that writes and reads them
//! (`store::columns`), a result's figures, the sorts a leaderboard offers, the names and units
//! pages print, and the columns a device's page shows.
//!
//! A new ranked figure is one line here and its column in a new migration (`entries` and
//! `devices`); a store test checks that the migrations and this list name the same columns.

use super::ResultDoc;

/// Where a ranked figure comes from in a result document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A test of the standard set: its MB/s, or its IOPS where `unit` is IOPS.
    Test(&'static str),
    /// The profile's score total (the pi profile's PiBenchmarks-compatible score).
    Score,
}

/// One figure a site ranks by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metric {
    /// Its column in the store's `entries` and `devices`, its key in a device's aggregates,
    /// and its name in the API (`sort=`): a contract.
    pub column: &'static str,
    pub source: Source,
    /// As people read it.
    pub label: &'static str,
    pub unit: &'static str,
    /// Shown on the pages of the pi profile's results (which rank by the score); every figure
    /// from a test is shown for the other profiles.
    pub pi: bool,
    /// One profile's own figure (the nvme profile's SEQ128K Q32T1 and RND4K Q32T16): shown on
    /// that profile's leaderboard beside the four every leaderboard shows, where its results
    /// have it.
    pub own: bool,
}

const fn test(column: &'static str, test: &'static str, label: &'static str, pi: bool) -> Metric {
    let bytes = column.as_bytes();
    let seq = bytes[0] == b's' && bytes[1] == b'e';
    Metric {
        column,
        source: Source::Test(test),
        label,
        unit: if seq { "MB/s" } else { "IOPS" },
        pi,
        own: false,
    }
}

/// [`test`], for a figure of one profile's own (`own`).
const fn own(column: &'static str, name: &'static str, label: &'static str) -> Metric {
    Metric {
        own: true,
        ..test(column, name, label, false)
    }
}

/// The figures a device is ranked by: the eight standard tests (MB/s for SEQ1M, IOPS for
/// RND4K), the pi profile's score, and the nvme profile's own four (SEQ128K Q32T1 and RND4K
/// Q32T16, as KDiskMark's NVMe preset has them).
pub const METRICS: [Metric; 13] = [
    test("seq1m_q8_read", "SEQ1M_Q8T1_read", "SEQ1M Q8T1 read", true),
    test(
        "seq1m_q8_write",
        "SEQ1M_Q8T1_write",
        "SEQ1M Q8T1 write",
        true,
    ),
    test("seq1m_q1_read", "SEQ1M_Q1T1_read", "SEQ1M Q1T1 read", false),
    test(
        "seq1m_q1_write",
        "SEQ1M_Q1T1_write",
        "SEQ1M Q1T1 write",
        false,
    ),
    test(
        "rnd4k_q32_read",
        "RND4K_Q32T1_read",
        "RND4K Q32T1 read",
        false,
    ),
    test(
        "rnd4k_q32_write",
        "RND4K_Q32T1_write",
        "RND4K Q32T1 write",
        false,
    ),
    test("rnd4k_q1_read", "RND4K_Q1T1_read", "RND4K Q1T1 read", true),
    test(
        "rnd4k_q1_write",
        "RND4K_Q1T1_write",
        "RND4K Q1T1 write",
        true,
    ),
    Metric {
        column: "score",
        source: Source::Score,
        label: "PiBenchmarks score",
        unit: "points",
        pi: true,
        own: false,
    },
    own(
        "seq128k_q32_read",
        "SEQ128K_Q32T1_read",
        "SEQ128K Q32T1 read",
    ),
    own(
        "seq128k_q32_write",
        "SEQ128K_Q32T1_write",
        "SEQ128K Q32T1 write",
    ),
    own(
        "rnd4k_q32t16_read",
        "RND4K_Q32T16_read",
        "RND4K Q32T16 read",
    ),
    own(
        "rnd4k_q32t16_write",
        "RND4K_Q32T16_write",
        "RND4K Q32T16 write",
    ),
];

/// The figure people shop by (and sort by, outside the pi profile): SEQ1M Q8T1 read.
pub const HEADLINE: &Metric = &METRICS[0];
/// The pi profile's score.
pub const SCORE: &Metric = &METRICS[8];

impl Metric {
    /// This figure of a document, if the document has it.
    pub fn of(&self, doc: &ResultDoc) -> Option<f64> {
        match self.source {
            Source::Test(name) => doc.test(name).map(|t| {
                if self.unit == "MB/s" {
                    t.mb_per_s
                } else {
                    t.iops
                }
            }),
            Source::Score => doc.score_total().map(|s| s as f64),
        }
    }

    /// The name and unit, as a column heading or a choice reads: `SEQ1M Q8T1 read (MB/s)`.
    pub fn heading(&self) -> String {
        format!("{} ({})", self.label, self.unit)
    }
}

/// The figure named `column`.
pub fn find(column: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.column == column)
}

/// The columns of the figures that `has` says some result has, in the list's order.
pub fn present(has: impl Fn(&str) -> bool) -> Vec<&'static str> {
    METRICS
        .iter()
        .map(|m| m.column)
        .filter(|c| has(c))
        .collect()
}

/// What a leaderboard of `class` sorts by unless told: the score for the pi profile, else the
/// first figure of the list that the class's results have (`present`, columns: the sdcard
/// profile has no SEQ1M Q8T1 read, and a board sorted by it listed none of its cards), else
/// SEQ1M Q8T1 read.
pub fn default_sort(class: &str, present: &[&str]) -> &'static Metric {
    if class.starts_with("pi/") {
        return SCORE;
    }
    METRICS
        .iter()
        .filter(|m| matches!(m.source, Source::Test(_)))
        .find(|m| present.contains(&m.column))
        .unwrap_or(HEADLINE)
}

/// The figures a device's or a comparison's tables show for `class`, the default sort first:
/// the score and four tests for pi, the tests otherwise; of those, the ones its results have
/// (`present`), where they have any (else the standard eight).
pub fn shown(class: &str, present: &[&str]) -> Vec<&'static Metric> {
    let first = default_sort(class, present);
    let pi = class.starts_with("pi/");
    std::iter::once(first)
        .chain(METRICS.iter().filter(|m| {
            *m != first
                && ((present.is_empty() && !m.own) || present.contains(&m.column))
                && if pi {
                    m.pi
                } else {
                    matches!(m.source, Source::Test(_))
                }
        }))
        .collect()
}

/// The figures every line of a leaderboard of `class` shows side by side, sorted by `sort`:
/// read beside write, sequential beside 4K (the four tests a card shows), after the score for
/// pi; of those, the ones its results have (`present`), then a profile's own figures that they
/// have, and `sort` last where it is none of them.
pub fn side_by_side(class: &str, present: &[&str], sort: &'static Metric) -> Vec<&'static Metric> {
    let pi = class.starts_with("pi/");
    let mut figures: Vec<&'static Metric> = std::iter::once(SCORE)
        .filter(|_| pi)
        .chain(METRICS.iter().filter(|m| m.pi && *m != SCORE))
        .filter(|m| present.is_empty() || present.contains(&m.column))
        .chain(
            METRICS
                .iter()
                .filter(|m| m.own && present.contains(&m.column)),
        )
        .collect();
    if !figures.contains(&sort) {
        figures.push(sort);
    }
    figures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_figure_is_named_once_and_shown_as_before() {
        let mut columns: Vec<&str> = METRICS.iter().map(|m| m.column).collect();
        columns.dedup();
        assert_eq!(columns.len(), METRICS.len());
        assert_eq!(find("rnd4k_q32_write").unwrap().unit, "IOPS");
        assert_eq!(find("seq1m_q1_read").unwrap().unit, "MB/s");
        assert_eq!(SCORE.column, "score");
        let pi: Vec<&str> = shown("pi/direct/random", &[])
            .iter()
            .map(|m| m.column)
            .collect();
        assert_eq!(
            pi,
            [
                "score",
                "seq1m_q8_read",
                "seq1m_q8_write",
                "rnd4k_q1_read",
                "rnd4k_q1_write"
            ]
        );
        let standard: Vec<&str> = shown("standard/direct/random", &[])
            .iter()
            .map(|m| m.column)
            .collect();
        assert_eq!(standard.len(), 8);
        assert_eq!(standard[0], "seq1m_q8_read");
        // A profile without SEQ1M Q8T1 read (sdcard) is sorted and shown by what it has.
        let sd = ["seq1m_q8_write", "rnd4k_q1_read", "rnd4k_q1_write"];
        assert_eq!(default_sort("sdcard/direct/random", &sd).column, sd[0]);
        let shown: Vec<&str> = shown("sdcard/direct/random", &sd)
            .iter()
            .map(|m| m.column)
            .collect();
        assert_eq!(shown, sd);
        assert_eq!(default_sort("pi/direct/random", &sd).column, "score");
        // The nvme profile's own figures, where its results have them, on its leaderboard too.
        let nvme = [
            "seq1m_q8_read",
            "seq1m_q8_write",
            "rnd4k_q1_read",
            "rnd4k_q1_write",
            "seq128k_q32_read",
            "seq128k_q32_write",
            "rnd4k_q32t16_read",
            "rnd4k_q32t16_write",
        ];
        let class = "nvme/direct/random";
        let tables: Vec<&str> = super::shown(class, &nvme)
            .iter()
            .map(|m| m.column)
            .collect();
        assert_eq!(tables.len(), 8, "{tables:?}");
        let side: Vec<&str> = side_by_side(class, &nvme, HEADLINE)
            .iter()
            .map(|m| m.column)
            .collect();
        assert_eq!(side, nvme);
        // The label is the test's name as tables print it.
        for m in &METRICS {
            if let Source::Test(name) = m.source {
                let parts: Vec<&str> = name.split('_').collect();
                assert_eq!(m.label, parts.join(" "));
            }
        }
    }

    #[test]
    fn a_leaderboard_shows_read_beside_write_and_seq_beside_4k() {
        let columns = |class, present: &[&str], sort| -> Vec<&str> {
            side_by_side(class, present, find(sort).unwrap())
                .iter()
                .map(|m| m.column)
                .collect()
        };
        let four = [
            "seq1m_q8_read",
            "seq1m_q8_write",
            "rnd4k_q1_read",
            "rnd4k_q1_write",
        ];
        assert_eq!(
            columns("standard/direct/random", &[], "seq1m_q8_read"),
            four
        );
        assert_eq!(
            columns("standard/direct/random", &[], "rnd4k_q32_read"),
            [&four[..], &["rnd4k_q32_read"]].concat()
        );
        assert_eq!(
            columns("pi/direct/random", &[], "score"),
            [&["score"][..], &four].concat()
        );
        // The sdcard profile has no SEQ1M Q8T1 read: no empty column for it.
        let sd = ["seq1m_q8_write", "rnd4k_q1_read", "rnd4k_q1_write"];
        assert_eq!(columns("sdcard/direct/random", &sd, "seq1m_q8_write"), sd);
    }
}
