//! Why a result does not rank, as facts: the document's own (`Identity::flag`, found by
//! `identity.rs` and `link.rs`), or a results site's, from what the site holds (the store's
//! `hold.rs`). No words here: the words are `crates/profiles/src/reasons.rs`'s. A store
//! keeps a reason as its JSON ([`Reason::stored`]), and reads back as [`Reason::Said`] the
//! words an older store kept before reasons were facts.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Reason {
    /// Measured with the null engine, which does no I/O.
    NullEngine,
    /// A pi score of other file sizes (`--size`).
    PiSizes,
    /// A test faster than the narrowest link the document names carries.
    BeyondLink {
        test: String,
        mb_per_s: f64,
        link: Link,
        /// The link's rate, MB/s.
        ceiling: f64,
    },
    /// A rotating disk's random reads beyond what its platters bring under its heads.
    BeyondPlatters {
        test: String,
        iops: f64,
        rpm: u32,
        /// The most its platters allow at the test's queue.
        most: f64,
    },
    /// A device larger than any of its kind can be.
    LargerThanKind {
        kind: String,
        size_bytes: u64,
        most_bytes: u64,
        /// Where the bound comes from (`SDUC's addressing`).
        bound: String,
    },
    /// Random I/O one at a time faster than its kind's bus (or any device) answers.
    OneAtATime {
        test: String,
        iops: f64,
        /// `read` or `write`.
        op: String,
        /// The device's kind, where the floor is its kind's; none where it is any device's.
        kind: Option<String>,
        floor_us: f64,
        /// What takes that long (`an SD bus moves 4 KiB in 39 µs`).
        basis: String,
    },
    /// A name that mixes scripts, or writes a word in look-alike letters or signs.
    MixedScripts { name: String, word: String },
    /// A device a moderator hid, for their reason: it waits until restored.
    HiddenDevice { moderator: String },
    /// It calls an established device another kind or capacity than its submitters do.
    Contradicts {
        kind: String,
        capacity_gb: Option<i64>,
        submitters: i64,
        their_kind: String,
        their_capacity_gb: Option<i64>,
    },
    /// A figure over `times` its device's own median.
    OverOwnMedian {
        /// The figure's column in `METRICS`.
        metric: String,
        value: f64,
        median: f64,
        times: f64,
    },
    /// Half its figures or more under a tenth of the device's own median, or one under a
    /// hundredth (`times`: which), the first of them here.
    UnderOwnMedian {
        metric: String,
        value: f64,
        median: f64,
        times: f64,
    },
    /// A new device's name written as an existing device's, a letter for a digit or another.
    LookAlike { like: String },
    /// A figure over `times` the fastest of its kind (none: of any kind) on the site.
    FarBeyond {
        metric: String,
        value: f64,
        fastest: f64,
        times: f64,
        kind: Option<String>,
    },
    /// Words an older store kept, shown as they are.
    Said { words: String },
}

/// The link a figure cannot pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "link", rename_all = "snake_case")]
pub enum Link {
    /// The fastest interface a device of its kind is sold with, by its name.
    Kind {
        interface: String,
    },
    Usb {
        mbit_s: f64,
    },
    /// An SD card's or eMMC's bus in its timing mode (as the kernel names it), at its clock.
    SdBus {
        timing: String,
        mhz: f64,
    },
    /// SATA III.
    Sata,
    Pcie {
        gt_s: f64,
        lanes: u32,
    },
}

impl Reason {
    /// As a store keeps it.
    pub fn stored(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// What a store kept: a reason's JSON, or an older store's words.
    pub fn from_stored(text: &str) -> Reason {
        serde_json::from_str(text).unwrap_or_else(|_| Reason::Said {
            words: text.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_reads_back_as_kept_and_old_words_stay_words() {
        let reasons = [
            Reason::NullEngine,
            Reason::BeyondLink {
                test: "SEQ1M_Q8T1_read".into(),
                mb_per_s: 412.5,
                link: Link::Usb { mbit_s: 480.0 },
                ceiling: 60.0,
            },
            Reason::OneAtATime {
                test: "RND4K_Q1T1_write".into(),
                iops: 500_000.0,
                op: "write".into(),
                kind: None,
                floor_us: 1.0,
                basis: "b".into(),
            },
            Reason::FarBeyond {
                metric: "seq_read".into(),
                value: 9e4,
                fastest: 7e3,
                times: 2.0,
                kind: Some("NVMe".into()),
            },
        ];
        for r in reasons {
            assert_eq!(Reason::from_stored(&r.stored()), r, "{}", r.stored());
        }
        let old = "its seq read of 900 MB/s is over 5× this device's own median";
        assert_eq!(Reason::from_stored(old), Reason::Said { words: old.into() });
        // Words that happen to be JSON of something else are words too.
        assert_eq!(
            Reason::from_stored("{\"why\":\"nothing\"}"),
            Reason::Said {
                words: "{\"why\":\"nothing\"}".into()
            }
        );
    }
}
