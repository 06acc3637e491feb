//! The sdcard profile: does the card meet its speed classes?
//!
//! Three tests: a sustained sequential write (1 MiB, QD8, once over the file, bounded in time),
//! and 4 KiB random reads and writes at queue depth 1 (the application performance classes'
//! measure; A2's higher figures also need command queuing, which few Linux hosts enable). Each
//! class of the SD Association (`../shared/reference/sd-classes.csv`: SD Physical Layer
//! Simplified Specification 4.10 section 4.13 and sdcard.org's class pages) is judged on the
//! write rate the card sustains (after any cache cliff, since a class is a minimum) and the
//! random IOPS.

use std::time::Duration;

use crate::says::{Headline, Marks, Says};
use crate::spec::{Defaults, FileSize, TestSpec};
use crate::spec::{Op, Pattern};
use crate::sustained;
use iomark_result::result::score::{ClassFigures, ClassVerdict, SdCardScore};
use iomark_result::result::ResultDoc;
use iomark_result::result::{Target, TestResult, Transport, Warning, WarningKind};
use std::fmt::Write as _;

/// One class: its name and minimums (sequential write MB/s, random 4 KiB read and write IOPS).
pub struct Class {
    pub family: &'static str,
    pub name: &'static str,
    pub write_mb_per_s: f64,
    pub read_iops: Option<f64>,
    pub write_iops: Option<f64>,
    pub note: &'static str,
}

const fn class(family: &'static str, name: &'static str, write_mb_per_s: f64) -> Class {
    Class {
        family,
        name,
        write_mb_per_s,
        read_iops: None,
        write_iops: None,
        note: "",
    }
}

/// The SD Association's minimums, as in `sd-classes.csv`.
pub const CLASSES: [Class; 13] = [
    class("speed", "C2", 2.0),
    class("speed", "C4", 4.0),
    class("speed", "C6", 6.0),
    Class {
        note: "needs the High Speed bus",
        ..class("speed", "C10", 10.0)
    },
    class("uhs", "U1", 10.0),
    class("uhs", "U3", 30.0),
    class("video", "V6", 6.0),
    class("video", "V10", 10.0),
    class("video", "V30", 30.0),
    Class {
        note: "needs UHS-II",
        ..class("video", "V60", 60.0)
    },
    Class {
        note: "needs UHS-II",
        ..class("video", "V90", 90.0)
    },
    Class {
        read_iops: Some(1500.0),
        write_iops: Some(500.0),
        note: "SD 5.1",
        ..class("app", "A1", 10.0)
    },
    Class {
        read_iops: Some(4000.0),
        write_iops: Some(2000.0),
        note: "SD 6.0; needs command queuing and cache on host and card",
        ..class("app", "A2", 10.0)
    },
];

pub const SEQUENTIAL: &str = "SEQ1M_Q8T1_write";
pub const RANDOM_READ: &str = "RND4K_Q1T1_read";
pub const RANDOM_WRITE: &str = "RND4K_Q1T1_write";

pub fn sdcard() -> Defaults {
    Defaults {
        tests: vec![
            TestSpec::new(Pattern::Sequential, 1 << 20, 8, Op::Write)
                .once_over_file()
                .bounded(sustained::TIME_BOUND),
            TestSpec::new(Pattern::Random, 4096, 1, Op::Read),
            TestSpec::new(Pattern::Random, 4096, 1, Op::Write),
        ],
        // Well beyond the SLC cache of most cards, small enough for a 10 MB/s card.
        file_size: FileSize::Fixed(1 << 30),
        loops: 3,
        duration: Duration::from_secs(2),
        warmup: Duration::from_secs(1),
        fill: true,
        cut_fill: false,
    }
}

/// The write rate a card sustains: after its cliff if it has one, else over the whole write.
fn sustained_rate(test: &TestResult) -> f64 {
    let finding = sustained::analyze(&iomark_result::result::per_second(&test.timeline));
    finding.after_mb_per_s.min(finding.before_mb_per_s)
}

/// Where the card sits, as far as the target tells: which classes can be judged there.
#[derive(Clone, Debug, PartialEq)]
pub enum Seat {
    /// An SD card or eMMC on the host's own bus, in the timing debugfs gave (root only).
    Bus { timing: Option<String> },
    /// A card in a USB reader, by the reader's name: its bus is the reader's, unknown here.
    Reader,
    /// No SD card or eMMC: what it is instead.
    NotACard(String),
}

/// Words in a USB device's names that make it a card reader.
const READER_WORDS: [&str; 6] = [
    "card reader",
    "cardreader",
    "sd/mmc",
    "sd card",
    "microsd",
    "multi-card",
];

/// Where the target's card sits.
pub fn seat(target: &Target) -> Seat {
    let Some(device) = target.device.as_ref() else {
        return Seat::NotACard("a device iomark could not identify".into());
    };
    if device.transport == Some(Transport::Mmc) || device.sd.is_some() {
        return Seat::Bus {
            timing: device.sd.as_ref().and_then(|sd| sd.bus_timing.clone()),
        };
    }
    let names = [&device.model, &device.vendor]
        .into_iter()
        .flatten()
        .chain(device.usb.as_ref().and_then(|u| u.product.as_ref()))
        .map(|s| s.to_lowercase())
        .collect::<Vec<_>>();
    let reader = device.transport == Some(Transport::Usb)
        && names
            .iter()
            .any(|n| READER_WORDS.iter().any(|w| n.contains(w)));
    if reader {
        return Seat::Reader;
    }
    Seat::NotACard(match device.kind() {
        "virtual" => "a virtual disk".into(),
        "other" => "a device that does not report what it is".into(),
        "NVMe" => "an NVMe drive".into(),
        "USB flash" => "a USB flash drive".into(),
        kind => format!("a {kind}"),
    })
}

/// Whether the bus a class needs is the one the card is on: UHS-II for V60 and V90, which
/// Linux hosts rarely drive; a reader's bus is not known.
fn bus_known_for(class: &Class, seat: &Seat) -> bool {
    if !class.note.contains("UHS-II") {
        return true;
    }
    match seat {
        Seat::Bus { timing: Some(t) } => {
            let t = t.to_lowercase().replace(['-', ' '], "");
            t.contains("uhs2") || t.contains("uhsii")
        }
        _ => false,
    }
}

/// The class verdicts from the tests, where the card sits (`seat`), with the classes claimed
/// for it (`claimed`: `--claimed`, else what the card reports).
pub fn score(tests: &[TestResult], seat: &Seat, claimed: &[String]) -> SdCardScore {
    let find = |name: &str| tests.iter().find(|t| t.name == name);
    let write = find(SEQUENTIAL).map(sustained_rate);
    let read_iops = find(RANDOM_READ).map(|t| t.iops);
    let write_iops = find(RANDOM_WRITE).map(|t| t.iops);
    let not_a_card = match seat {
        Seat::NotACard(what) => Some(what.clone()),
        _ => None,
    };
    let classes = CLASSES
        .iter()
        .map(|c| {
            let checks = [
                Some(write.map(|w| w >= c.write_mb_per_s)),
                c.read_iops.map(|need| read_iops.map(|got| got >= need)),
                c.write_iops.map(|need| write_iops.map(|got| got >= need)),
            ];
            // A requirement not measured (a test left out with --test) gives no verdict.
            let verdicts: Vec<Option<bool>> = checks.into_iter().flatten().collect();
            let bus = bus_known_for(c, seat);
            let pass = if verdicts.iter().any(Option::is_none) || not_a_card.is_some() || !bus {
                None
            } else {
                Some(verdicts.iter().all(|v| *v == Some(true)))
            };
            let note = if !bus && not_a_card.is_none() {
                format!("can't tell on this bus: {}", c.note)
            } else {
                c.note.to_string()
            };
            ClassVerdict {
                extra: Default::default(),
                class: c.name.into(),
                family: c.family.into(),
                measured: ClassFigures {
                    extra: Default::default(),
                    random_read_iops_4k: c.read_iops.and(read_iops),
                    random_write_iops_4k: c.write_iops.and(write_iops),
                    sequential_write_mb_per_s: write,
                },
                note,
                pass,
                required: ClassFigures {
                    extra: Default::default(),
                    random_read_iops_4k: c.read_iops,
                    random_write_iops_4k: c.write_iops,
                    sequential_write_mb_per_s: Some(c.write_mb_per_s),
                },
            }
        })
        .collect();
    SdCardScore {
        extra: Default::default(),
        classes,
        not_a_card,
        claimed: claimed.to_vec(),
    }
}

/// The classes claimed for the target's card: those given with `--claimed`, else those the
/// card reports in its SD Status register.
pub fn claimed(given: &[String], target: &Target) -> Vec<String> {
    if !given.is_empty() {
        return given.to_vec();
    }
    target
        .device
        .as_ref()
        .and_then(|d| d.sd.as_ref())
        .map(|sd| sd.claimed_classes.clone())
        .unwrap_or_default()
}

/// The classes a card claims but failed.
pub fn failed_claims(score: &SdCardScore, claimed: &[String]) -> Vec<String> {
    claimed
        .iter()
        .filter(|name| {
            score
                .classes
                .iter()
                .any(|c| &c.class == *name && c.pass == Some(false))
        })
        .cloned()
        .collect()
}

/// A warning for each class claimed for the card (saved in the score) that it fails.
pub fn verdicts(score: &SdCardScore) -> Vec<Warning> {
    failed_claims(score, &score.claimed)
        .into_iter()
        .map(|class| {
            Warning::new(
                WarningKind::FailsClaimedClass,
                format!(
                    "the card claims {class} but does not meet it here (see the class table): \
                     a fake or worn card, or a reader or host that holds it back"
                ),
            )
        })
        .collect()
}

/// Whether `name` is a class this profile judges (for `--claimed`).
pub fn known(name: &str) -> bool {
    CLASSES.iter().any(|c| c.name == name)
}

/// The SD families in the order a card's label prints them.
const FAMILIES: [&str; 4] = ["speed", "uhs", "video", "app"];

/// What an SD card's `short` headline adds after the classes met: the claimed ones missed.
const MISSES: &str = ", misses claimed ";

/// The classes met of an SD card's `short` headline (`C10 U1 V10` of `C10 U1 V10, misses
/// claimed U3 V30 A1`).
pub fn classes_met_of(short: &str) -> &str {
    short.split(MISSES).next().unwrap_or(short)
}

impl Says for SdCardScore {
    /// The highest class met in each family, and the claimed classes it falls short of.
    fn headline(&self, doc: &ResultDoc) -> Option<Headline> {
        let classes = &self.classes;
        if classes.iter().all(|c| c.pass.is_none()) {
            return None;
        }
        let met: Vec<&ClassVerdict> = FAMILIES
            .iter()
            .filter_map(|family| {
                classes
                    .iter()
                    .rev()
                    .find(|c| c.family == *family && c.pass == Some(true))
            })
            .collect();
        // What the score saved; a document from before it did, what its card reported.
        let register = doc
            .target
            .device
            .as_ref()
            .and_then(|d| d.sd.as_ref())
            .map(|sd| sd.claimed_classes.as_slice())
            .unwrap_or_default();
        let claimed: Vec<&str> = match self.claimed.is_empty() {
            true => register.iter().map(String::as_str).collect(),
            false => self.claimed.iter().map(String::as_str).collect(),
        };
        let short_of: Vec<&str> = claimed
            .iter()
            .copied()
            .filter(|name| {
                classes
                    .iter()
                    .any(|c| c.class == *name && c.pass == Some(false))
            })
            .collect();
        let names: Vec<&str> = met.iter().map(|c| c.class.as_str()).collect();
        let mut sentence = if names.is_empty() {
            "Meets no SD class by the figures measured here.".to_string()
        } else {
            format!("By the figures measured here it meets {}.", list(&names))
        };
        let needs: Vec<String> = met
            .iter()
            .filter_map(|c| Some(format!("{} {}", c.class, &c.note[c.note.find("needs")?..])))
            .collect();
        if !needs.is_empty() {
            sentence.push_str(&format!(" Beyond figures, {}.", needs.join("; ")));
        }
        if !short_of.is_empty() {
            sentence.push_str(&format!(
                " It falls short of the {} claimed for it.",
                list(&short_of)
            ));
        } else if !claimed.is_empty() {
            sentence.push_str(&format!(
                " It meets every class claimed for it ({}).",
                claimed.join(" ")
            ));
        }
        let mut short = if names.is_empty() {
            "below C2".to_string()
        } else {
            names.join(" ")
        };
        if !short_of.is_empty() {
            short.push_str(&format!("{MISSES}{}", short_of.join(" ")));
        }
        Some(Headline { short, sentence })
    }

    fn details(&self, _doc: &ResultDoc, style: &dyn Marks) -> String {
        let mut out = String::new();
        if let Some(what) = &self.not_a_card {
            let _ = writeln!(
                out,
                "{}",
                style.bold(&format!(
                    "SD classes, for reference only: this is {what}, not an SD card, so no \
                     class is met or missed"
                ))
            );
        }
        let _ = writeln!(
            out,
            "{}",
            style.bold(&format!(
                "{:<6} {:<10} {:<32} {}",
                "Class", "verdict", "sustained write, 4K IOPS", "required"
            ))
        );
        let figures = |side: &ClassFigures| {
            let mut parts = vec![format!(
                "{:.1} MB/s",
                side.sequential_write_mb_per_s.unwrap_or(f64::NAN)
            )];
            if let (Some(r), Some(w)) = (side.random_read_iops_4k, side.random_write_iops_4k) {
                parts.push(format!("{r:.0}/{w:.0} IOPS"));
            }
            parts.join(", ")
        };
        for class in &self.classes {
            let verdict = match class.pass {
                Some(true) => "pass".to_string(),
                Some(false) => style.red("FAIL"),
                None if class.note.starts_with("can't tell") => "can't tell".to_string(),
                None => "–".to_string(),
            };
            let note = Some(class.note.as_str())
                .filter(|n| !n.is_empty())
                .map(|n| format!("  ({n})"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{:<6} {:<10} {:<32} {}{}",
                class.class,
                verdict,
                figures(&class.measured),
                figures(&class.required),
                style.dim(&note)
            );
        }
        out.push_str(&claims(self, style));
        let _ = writeln!(
            out,
            "{}",
            style.dim(
                "sustained write: the rate after any cache cliff (the table's SEQ1M Q8T1 write \
                 is its median loop); IOPS: 4 KiB random read/write at QD1"
            )
        );
        out
    }
}

/// The classes claimed for the card, met and missed, said as plainly either way.
fn claims(score: &SdCardScore, style: &dyn Marks) -> String {
    if score.claimed.is_empty() || score.not_a_card.is_some() {
        return String::new();
    }
    let with = |pass: Option<bool>| -> Vec<&str> {
        score
            .claimed
            .iter()
            .filter(|name| {
                score
                    .classes
                    .iter()
                    .any(|c| &c.class == *name && c.pass == pass)
            })
            .map(String::as_str)
            .collect()
    };
    let (met, missed, untold) = (with(Some(true)), with(Some(false)), with(None));
    let mut parts = Vec::new();
    if !met.is_empty() {
        parts.push(format!("meets {}", met.join(" ")));
    }
    if !missed.is_empty() {
        parts.push(style.red(&format!("misses {}", missed.join(" "))));
    }
    if !untold.is_empty() {
        parts.push(format!("can't tell {}", untold.join(" ")));
    }
    format!(
        "{} {}: {}\n",
        style.bold("Claimed:"),
        score.claimed.join(" "),
        parts.join("; ")
    )
}

/// `a`, `a and b`, `a, b and c`.
fn list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests;
